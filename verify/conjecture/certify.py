"""``gfverify conjecture ... --certify FILE``: the search's instances decided on certified tubes.

A counterexample's run is certified and the statement decided on it (DISPROVED when the
tube shows it fails); on a search that found none, every instance that HOLDS is certified
in turn (PROVED on each where the tube decides it). Each certificate is written to a file
(FILE for the first, FILE's stem with -2, -3, ... for the others) that
``python -m numerics.certify`` re-checks.

The claim certified is the statement with its times as the statement gives them: an
``--at-t`` or ``--window`` time in instance numbers stays an expression (the checker
evaluates it in Arb from the instance), and one that uses ``first(EVENT)`` reads the
event's time enclosed on the tube, not the first saved time the float run shows it.

Where the tube stops before the window ends, a statement bounding the loss L(t) by a side
that does not decrease in t is decided past the tube by Lemma 9 (the loss does not increase
along the flow, `numerics.certify.monotone`); the summary counts those PROVED verdicts.
"""

from __future__ import annotations

import math
from pathlib import Path

import sympy as sp

from theory import symbols as S
from theory.claim import ANY_MODEL, Claim, Kind, Provenance, Source
from verify.conjecture.statement import Statement, statement_of
from verify.conjecture.when import AtTime, Window
from verify.engine.verdict import Outcome

# a run is compared with the tube at this many of its saved times (each ends a step)
SAVED_TIMES = 101


class NoCertifiedClaim(ValueError):
    """The statement cannot be written as a certified claim (the message says why)."""


def _time(end, event: list) -> sp.Basic:
    """A window end as an expression: a number, an `AtTime`'s expression (its event noted
    in ``event``) or oo."""
    if isinstance(end, AtTime):
        if end.event is not None:
            if event and event[0] != end.event:
                raise NoCertifiedClaim("the window's two ends use different events; a "
                                       "certificate encloses one event's time")
            event[:] = [end.event]
        return end.expr
    if math.isinf(end):
        return sp.oo
    return sp.Float(end)


def certified_claim(statement: Statement, mode: str, at_t, run) -> Claim:
    """The statement on ``run`` as the claim a certificate decides (its times as
    expressions, `AtTime`'s events kept as events)."""
    if statement.parsed is None:
        raise NoCertifiedClaim("a Python callable has no certified enclosure")
    source = Source("user", "conjecture", Provenance.INFERRED)
    parsed = statement.parsed
    if parsed.is_event_time:
        return Claim(id="conjecture", title=statement.text, kind=Kind.EVENT_TIME,
                     source=source, statement=parsed.relation, event=parsed.event,
                     event_time=S.t_conv, **ANY_MODEL)
    event: list = []
    t_end = float(run.t[-1])
    if mode == "for_all_t":
        window = (sp.Float(float(run.t[1]) if len(run.t) > 1 else 0.0), sp.oo)
    elif mode == "as_t_to_inf":
        window = (sp.Float(t_end), sp.Float(t_end))
    elif mode == "at_t":
        at = _time(at_t, event)
        window = (at, at)
    elif mode == "window" and isinstance(at_t, Window):
        window = (_time(at_t.start, event), _time(at_t.end, event))
    else:
        raise NoCertifiedClaim(f"the mode {mode!r}")
    extra = {"event": event[0], "event_time": S.t_conv} if event else {}
    return Claim(id="conjecture", title=statement.text, kind=Kind.POINTWISE, source=source,
                 statement=parsed.relation, window=window, **extra, **ANY_MODEL)


def _paths(path: Path, count: int) -> list[Path]:
    """FILE, then FILE's stem with -2, -3, ... (the suffix kept)."""
    suffix = "".join(path.suffixes[-1:]) or ".npz"
    stem = path.name[: -len(suffix)] if path.name.endswith(suffix) else path.name
    return [path] + [path.with_name(f"{stem}-{k}{suffix}") for k in range(2, count + 1)]


def certified_lines(result, path: str) -> list[str]:
    """The ``--certify`` lines of a search: the counterexample's certified verdict, or
    each HOLDS instance's, with the certificates written."""
    from numerics.certify import CertifyError, NotCertifiable, certify
    from verify.engine.certified import certify_claim

    if result.found:
        targets = [result.counterexample]
        what = "the counterexample"
    else:
        targets = [i for i in result.tried if i.outcome is Outcome.HOLDS]
        what = "the instances that HOLD"
        if not targets:
            return ["certify: no instance HOLDS and none is a counterexample: nothing to "
                    "certify"]
    statement = statement_of(result.statement)
    lines, counts, written, tails = [], {}, [], 0
    files = iter(_paths(Path(path), len(targets)))
    for inst in targets:
        run = result.trajectory() if result.found else result.run_of(inst)
        label = inst.describe()
        if run is None or not str(run.method).startswith("exact"):
            lines.append(f"  {label}: not certified (certificates cover the exact flow, "
                         "--method flow)")
            counts["not certified"] = counts.get("not certified", 0) + 1
            continue
        try:
            claim = certified_claim(statement, result.mode, result.at_t, run)
        except NoCertifiedClaim as exc:
            lines.append(f"  {label}: UNCERTIFIED ({exc})")
            counts["UNCERTIFIED"] = counts.get("UNCERTIFIED", 0) + 1
            continue
        try:
            tube = certify(run, max_saved=SAVED_TIMES)
        except (NotCertifiable, CertifyError) as exc:
            lines.append(f"  {label}: UNCERTIFIED ({exc})")
            counts["UNCERTIFIED"] = counts.get("UNCERTIFIED", 0) + 1
            continue
        file = next(files)
        cert = certify_claim(claim, run, tube=tube, file=file)
        counts[cert.outcome.value] = counts.get(cert.outcome.value, 0) + 1
        tails += "tail" in cert.record
        at = "" if cert.t is None else f" at t={cert.t:.6g}"
        lines.append(f"  {label}: {cert.outcome.value}{at}: {cert.reason} [instance "
                     f"{cert.record.get('instance')}, {cert.record.get('steps')} steps, "
                     f"radius <= {cert.record.get('max_radius', float('nan')):.3g}; "
                     f"certificate {file}]")
        written.append(str(file))
    summary = ", ".join(f"{n} {k}" for k, n in counts.items())
    if tails:
        summary += (f" ({tails} of them past the tube's end by Lemma 9: the loss does not "
                    "increase along the flow)")
    head = [f"certified: {what}, {len(targets)} instance(s) on their certified tubes: "
            f"{summary}"]
    tail = []
    if written:
        tail.append(f"re-check each certificate: python -m numerics.certify FILE "
                    f"({', '.join(written[:3])}{', ...' if len(written) > 3 else ''})")
    return head + lines + tail


__all__ = ["NoCertifiedClaim", "certified_claim", "certified_lines"]
