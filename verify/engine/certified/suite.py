"""Certification inside the verification suite (``pytest verify --verify-certify``).

With the option on, `verify.engine.check.check` of time-resolved evidence also decides the claim
on certified tubes, instance by instance in the order checked, until ``limit`` instances
decided it (PROVED or DISPROVED) or `ATTEMPTS` x ``limit`` were tried, counted per claim
over the session's process (`configure`): instances whose runs the certificate covers
(exact-flow runs with the square loss and ReLU or leaky ReLU, of at most `MAX_SIZE`
weights, each tube given `MAX_SECONDS`). A claim about instance numbers only (no quantity
of t) is not certified: a tube has nothing to add; one the claim evaluator cannot read (a
quantity without an enclosure) is UNCERTIFIED with the reason before any tube is built. A
tube is built once per run and kept for every claim checked on it (`tube_for`, keyed by
the run's instance, times and method). Each instance verdict then carries its
`Certification` (``verdict.certificate``) and the verdict table counts them in its
``certified`` column. Off (the default), nothing here runs.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, replace

import numpy as np

from numerics import Trajectory
from numerics.certify import CertifyError, NotCertifiable, Tube, certify
from numerics.certify.instance import Instance

# instances certified per check (the rest keep their float verdicts only)
DEFAULT_LIMIT = 2
# runs with more weights than this are left uncertified in the suite (a tube costs 7 to 40
# times its run, more with many crossings: two-point p = 400 about 15 s; `check(...,
# certify=True)` has no such cap)
MAX_SIZE = 1200
# and a tube is given this long; where it stops, what it certified so far still counts
MAX_SECONDS = 60.0
_CACHE_SIZE = 64


# a claim's tubes are tried on at most this many times ``limit`` instances (the ones
# certified so far are counted only when they decided the claim)
ATTEMPTS = 3


@dataclass
class _Setting:
    limit: int = 0  # 0: off
    decided: dict = None  # claim id -> instances decided (PROVED/DISPROVED) in this process
    tried: dict = None  # claim id -> instances certified at all in this process


_SETTING = _Setting()
_TUBES: OrderedDict[str, Tube | str] = OrderedDict()


def configure(limit: int | None) -> None:
    """Turn the suite's certification on with ``limit`` instances per check (None or 0:
    off)."""
    _SETTING.limit = max(int(limit or 0), 0)
    _SETTING.decided, _SETTING.tried = {}, {}
    _TUBES.clear()


def active() -> bool:
    """Whether the suite certifies (``--verify-certify`` given)."""
    return _SETTING.limit > 0


def _key(traj: Trajectory) -> str:
    h = hashlib.sha256()
    h.update(traj.problem.content_hash.encode())
    h.update(np.ascontiguousarray(np.asarray(traj.t, float)).tobytes())
    h.update(str(traj.method).encode())
    h.update(np.ascontiguousarray(np.asarray(traj.W, float)[-1]).tobytes())
    return h.hexdigest()


def why_not(traj: Trajectory) -> str:
    """Why the suite does not certify ``traj`` ("" when it does)."""
    if not str(traj.method).startswith("exact"):
        return f"a {traj.method} run (certificates cover the exact flow)"
    try:
        Instance.of_problem(traj.problem)
    except NotCertifiable as exc:
        return str(exc)
    size = traj.problem.p * (traj.problem.d + 1)
    if size > MAX_SIZE:
        return f"{size} weights, more than the suite certifies ({MAX_SIZE})"
    if not traj.status.ok:
        return "the run did not finish cleanly"
    return ""


def tube_for(traj: Trajectory) -> Tube | str:
    """The certified tube of ``traj`` (built once per run and kept), or why there is none."""
    key = _key(traj)
    if key in _TUBES:
        _TUBES.move_to_end(key)
        return _TUBES[key]
    reason = why_not(traj)
    if not reason:
        try:
            got: Tube | str = certify(traj, max_seconds=MAX_SECONDS)
        except (NotCertifiable, CertifyError) as exc:
            got = str(exc)
    else:
        got = reason
    _TUBES[key] = got
    while len(_TUBES) > _CACHE_SIZE:
        _TUBES.popitem(last=False)
    return got


def attach(claim, runs: list[Trajectory], verdict):
    """``verdict`` (on ``runs``, in their order) with the claim decided on the tubes of up
    to the configured number of its certifiable, applicable instances."""
    from verify.engine.certified.decide import Certification, CertifiedOutcome, certify_claim
    from verify.engine.verdict import Outcome

    members = list(verdict.instances) if verdict.instances else [verdict]
    if len(members) != len(runs) or not _of_the_run(claim):
        return verdict
    decided, tried = _SETTING.decided, _SETTING.tried
    out = []
    for v, run in zip(members, runs, strict=True):
        if (decided.get(claim.id, 0) >= _SETTING.limit
                or tried.get(claim.id, 0) >= ATTEMPTS * _SETTING.limit
                or v.outcome is Outcome.INAPPLICABLE or why_not(run)):
            out.append(v)
            continue
        tried[claim.id] = tried.get(claim.id, 0) + 1
        unwritable = _unwritable(claim, run)
        tube = unwritable or tube_for(run)  # no tube for a claim the evaluator cannot read
        if isinstance(tube, str):
            cert = Certification(claim.id, CertifiedOutcome.UNCERTIFIED, tube)
        else:
            try:
                cert = certify_claim(claim, run, tube=tube)
            except Exception as exc:  # noqa: BLE001 - the float verdict stands, say why
                cert = Certification(claim.id, CertifiedOutcome.UNCERTIFIED,
                                     f"the certified layer failed: {type(exc).__name__}: {exc}")
        if cert.outcome is not CertifiedOutcome.UNCERTIFIED:
            decided[claim.id] = decided.get(claim.id, 0) + 1
        out.append(replace(v, certificate=cert.to_dict()))
    if not verdict.instances:
        return out[0]
    return replace(verdict, instances=tuple(out))


def _unwritable(claim, run) -> str:
    """Why the claim evaluator cannot read ``claim`` (a quantity or an instance number
    without an enclosure, ...), or "": known before any tube is built."""
    from numerics.certify.claims import ClaimError
    from numerics.certify.quantities import NotEnclosed
    from verify.engine.certified.spec import claim_spec

    try:
        claim_spec(claim, float(run.t[-1]))
    except (NotEnclosed, ClaimError) as exc:
        return str(exc)
    return ""


def _of_the_run(claim) -> bool:
    """Whether the claim's statement or event reads the run (a quantity of t): a claim
    about instance numbers only has nothing a tube could decide."""
    import sympy as sp

    exprs = [claim.statement] + ([claim.event] if claim.event is not None else [])
    return any(isinstance(f, sp.core.function.AppliedUndef) and f.args
               and any(getattr(a, "name", "") == "t" for a in f.args)
               for e in exprs for f in sp.sympify(e).atoms(sp.core.function.AppliedUndef))


__all__ = ["DEFAULT_LIMIT", "MAX_SIZE", "active", "attach", "configure", "tube_for",
           "why_not"]
