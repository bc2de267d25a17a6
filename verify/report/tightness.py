"""The report's tightness table: for every catalogue claim with a constant, the proved
value, the sharpest value observed, the slack factor and the witness.

Each claim that `verify.tighten.statement.is_tightenable` accepts (checkable, pointwise or
event-time, with a bound side that is not 0) is tightened by `tighten_claim` at the
profile's budget (`verify.running.profiles.Profile.tighten_budget`), on the family its pack
declares for it (a ``TIGHTEN`` mapping in the pack's families module: claim id ->
``{"family": NAME, "params": {...}, "param": NAME}``, or ``{"runs": "module:function"}``
for a claim stated for an experiment no family draws: the function returns the named runs
it is tightened on, `verify.tighten.search.tighten_claim_on_runs`) or else on the default
family of its paper. Instances are kept in the report's store (``tighten.sqlite``), so a
second report with the same store reads them and a larger budget extends them.
"""

from __future__ import annotations

import functools
import importlib
import time

from theory import packs, registry
from verify.errors import InputError
from verify.report.doc import Block, Bullets, Heading, Paragraph, Table, number_text
from verify.running.profiles import get_profile
from verify.running.progress import Progress

HEADER = ["claim", "constant", "family", "proved", "sharpest observed", "slack",
          "witness", "verdict"]


def declared_settings() -> dict[str, dict]:
    """Every pack's ``TIGHTEN`` declarations (claim id -> settings)."""
    out: dict[str, dict] = {}
    for pack in packs.packs():
        module = pack.module("families") if pack.families else None
        out.update(getattr(module, "TIGHTEN", {}) or {})
    return out


def tightenable_claims(papers: tuple[str, ...] | None = None) -> list:
    """The claims the table tightens: every tightenable claim, or only those declared by the
    packs named in ``papers``."""
    from verify.tighten.statement import is_tightenable

    return [c for c in registry.claims() if is_tightenable(c)
            and (papers is None or registry.pack_of(c.id).name in papers)]


def statement_parameter(claim) -> str | None:
    """The claim's one named parameter its statement uses (c_T, eps, tol, gamma_0), which
    the table tightens; None when it names none there, or several (then the multiplier of
    its bound side is tightened)."""
    names = sorted(k for k in claim.parameters
                   if any(s.name == k for s in claim.statement.free_symbols))
    return names[0] if len(names) == 1 else None


@functools.cache
def _runs(where: str, profile: str) -> dict:
    """The runs a ``TIGHTEN`` entry's ``"runs"`` names (``"module:name"``, a function of
    the profile), made once per report (a claim's parts share them)."""
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)(profile)


def _number(x, digits: int = 4) -> str:
    return number_text(x, f".{digits}g", missing="n/a", nonfinite="n/a")


def _slack_text(d: dict) -> str:
    if d.get("slack_at_least") is not None:  # the value known to 2% of the proved one only
        return f">= {_number(d['slack_at_least'], 3)}"
    return _number(d.get("slack"), 3)


def _row(claim_id: str, result) -> tuple[list[str], dict]:
    d = result.to_dict()
    w = d["witness"]
    sharpest = (f"{_number(d['sharpest'], 5)} ± {_number(d['error'], 2)}"
                if d["sharpest"] is not None else "none decided")
    if d.get("outside_range"):  # a positive parameter whose critical value is not
        sharpest += f"; {d['outside_range']}"
    proved = (_number(d.get("proved"), 5) if d.get("proved") is not None
              else d.get("proved_text", ""))
    witness = (" ".join(f"{k}={v}" for k, v in w["params"].items())
               + ("" if w["decided"] else " (not decided)")) if w else ""
    verdict = verdict_text(d)
    if w and w.get("relaxed"):  # the witness is outside a hypothesis the paper states
        verdict += f"; witness {w['relaxed']}"
    from verify.tighten.extreme import BEYOND

    if w and BEYOND in (w.get("note") or ""):  # the witness's extreme may lie in named times
        verdict += f"; {BEYOND}"
    family = d["family"] + (f" where L/L(0) >= {d['loss_floor']:g}"
                            if d.get("loss_floor") is not None else "")
    row = [claim_id, d["tightened"], family, proved, sharpest, _slack_text(d),
           witness, verdict]
    return row, d


def verdict_text(d: dict) -> str:
    """The verdict cell: a decided witness says over how many decided instances its value
    is the sharpest (1 of 4 drawn is a value, not a search's result), and how the others
    came out."""
    counts = d["counts"]
    others = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()) if k != "decided")
    decided = counts.get("decided", 0)
    if d["verdict"] == "SHARPEST FOUND":
        return (f"witness decided; the sharpest of {decided} decided instance"
                f"{'s' if decided != 1 else ''}" + (f" ({others})" if others else ""))
    every = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    return f"{d['verdict']} ({every})"


def catalogue_line(key: str, d: dict) -> str:
    """The catalogue's one line for a tightened claim (or part): proved / sharpest
    observed / slack factor / witness, from the tightness table's data."""
    if "refused" in d:
        return f"tightness ({key}): not tightened: {d['refused']}"
    w = d.get("witness")
    if d.get("sharpest") is None or w is None:
        return f"tightness ({key}): {d['verdict']}, no instance decided the constant"
    witness = " ".join(f"{k}={v}" for k, v in w["params"].items())
    decided = "decided" if w["decided"] else "not decided"
    return (f"tightness ({key}, {d['tightened']}): proved {_number(d.get('proved'), 5)} / "
            f"sharpest observed {_number(d['sharpest'], 5)} ± {_number(d['error'], 2)} / "
            f"slack factor {_slack_text(d)} / witness {witness} on "
            f"{d['family']} ({decided}"
            + (f"; {w['relaxed']}" if w.get("relaxed") else "") + ")"
            + (f"; {d['outside_range']}" if d.get("outside_range") else ""))


def run(out_dir, profile: str, store, show_progress: bool = True,
        instances: int | None = None, progress=None,
        papers: tuple[str, ...] | None = None) -> tuple[list[Block], dict]:
    """The section's blocks and its data (for verdicts.json). ``instances`` (`gfverify
    report --instances`) caps the instances drawn per claim (at least 1; default: the
    profile's budget). ``progress``: a pair [done, total] of claims set as they finish (a
    `verify.running.pool.Background` counter, when the report runs this beside its sections).
    ``papers``: only the claims of these packs (`tightenable_claims`; the report passes the
    packs of the sections ``--section`` selected); None: every pack's."""
    from verify.tighten.search import tighten_claim, tighten_claim_on_runs

    prof = get_profile(profile)
    budget = (prof.tighten_budget if instances is None
              else max(1, min(int(instances), prof.tighten_budget)))
    settings = declared_settings()
    claims = tightenable_claims(papers)
    rows, data, start = [], {}, time.perf_counter()
    if progress is not None:
        progress[1] = len(claims)
    with Progress(len(claims), "tightness", enabled=show_progress) as bar:
        for claim in claims:
            s = settings.get(claim.id, {})

            def one(part, label, s=s, claim=claim):
                try:
                    if "runs" in s:  # an experiment no family draws: its own runs
                        return _row(label, tighten_claim_on_runs(
                            claim.id, _runs(s["runs"], profile), part=part,
                            param=s.get("param", statement_parameter(claim)),
                            claim_params=s.get("claim_params"),
                            label=s.get("family", "its runs")))
                    result = tighten_claim(
                        claim.id, s.get("family"), part=part,
                        param=s.get("param", statement_parameter(claim)),
                        params=s.get("params"), t_max=s.get("t_max"),
                        loss_floor=s.get("loss_floor"), claim_params=s.get("claim_params"),
                        budget=budget, refine_budget=prof.tighten_refine,
                        results=store, seed=0,
                        # the paper profile draws at the papers' sizes (`Family.sized`)
                        sizes="paper" if prof.name == "paper" else "default")
                except InputError as exc:  # e.g. a constant that cannot be isolated
                    return ([label, "", s.get("family", ""), "", "not tightened", "", "",
                             str(exc)], {"refused": str(exc)})
                return _row(label, result)

            row, d = one(s.get("part"), claim.id)
            if "opposite sides" in d.get("refused", ""):  # one row per part instead
                for k in range(1, len(claim.relations()) + 1):
                    row, d = one(k, f"{claim.id} part {k}")
                    rows.append(row)
                    data[f"{claim.id} part {k}"] = d
            else:
                rows.append(row)
                data[claim.id] = d
            bar.advance()
            if progress is not None:
                progress[0] = bar.done
    wall = time.perf_counter() - start
    found = sum(1 for d in data.values()
                if d.get("verdict") in ("SHARPEST FOUND", "PROVED VALUE VIOLATED"))
    notes = _number_reasons(rows, data)
    rows_total = len(data)
    blocks = [
        Heading(2, "How tight: the sharpest constants"),
        Paragraph(f"For each claim with a constant, `gfverify tighten CLAIM` at the `{profile}` "
              f"profile (budget: {budget} instances drawn + "
              f"{prof.tighten_refine} refinement runs, seed 0): the one named parameter the "
              f"claim's statement uses (proved: its value in the claim) or else the "
              f"multiplier of its bound side (proved value 1), on the family and settings "
              f"its pack declares (a loss floor is named in the family column), the "
              f"sharpest value observed "
              f"with its numerical error, the slack factor (proved / sharpest, >= 1 when the "
              f"proved value is on the side that keeps the claim true) and the witness. A "
              f"witness is *decided* when the claim with the constant moved 2% past the "
              f"sharpest value is VIOLATED on it and 2% back HOLDS; UNDECIDED rows say why. "
              f"{len(claims)} claims{_of_papers(papers)} ({rows_total} rows: a claim whose "
              f"parts bound the constant from opposite sides has one row per part); {found} rows "
              f"have a decided witness ({wall:.1f} s)."),
        Table(HEADER, rows),
    ]
    if notes:
        blocks += [Paragraph("Rows without a decided witness, by reason (the numbers in "
                             "the verdict column; instances counted per row):"),
                   Bullets(notes)]
    return blocks, {"profile": profile, "wall_time": wall, "claims": data,
                    "papers": None if papers is None else sorted(papers)}


def _of_papers(papers) -> str:
    """" of S002's" for the table's paragraph when it covers some packs only."""
    if papers is None:
        return ""
    *others, last = sorted(papers)
    names = f"{', '.join(others)} and {last}" if others else last
    return f" of {names}'s (the packs of the sections selected)"


def _number_reasons(rows: list[list[str]], data: dict) -> list[str]:
    """Number the reasons of the rows without a decided witness (one number per reason,
    in the order met), append the numbers to those rows' verdict cells, and return the
    numbered list: each reason with the rows it came from and their instances."""
    numbers: dict[str, int] = {}
    where: dict[str, list[str]] = {}
    for row, (key, d) in zip(rows, data.items(), strict=True):
        if d.get("verdict") in ("SHARPEST FOUND", "PROVED VALUE VIOLATED"):
            continue
        reasons = d.get("reasons") or {}
        if "refused" in d:
            reasons = {f"not tightened: {d['refused']}": 0}
        elif not reasons and d.get("witness"):
            reasons = {"the witness's 2% check is within numerical error on the five "
                       "sharpest instances": 0}
        mine = []
        for why, count in reasons.items():
            k = numbers.setdefault(why, len(numbers) + 1)
            mine.append(k)
            where.setdefault(why, []).append(f"{key} ({count})" if count else key)
        if mine:
            row[-1] += " [" + ", ".join(str(k) for k in sorted(set(mine))) + "]"
    return [f"[{k}] {why}: {', '.join(where[why])}" for why, k in numbers.items()]


__all__ = ["HEADER", "declared_settings", "run", "tightenable_claims", "verdict_text"]
