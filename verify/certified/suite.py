"""Certification inside the verification suite (``pytest verify --verify-certify``).

With the option on, every `verify.check.check` of time-resolved evidence also decides the
claim on the certified tube of up to ``limit`` of its instances (`configure`): the
instances that allow it (exact-flow runs with the square loss and ReLU or leaky ReLU, of
at most `MAX_SIZE` weights), in the order given. A tube is built once per run and kept
for every claim checked on it (`tube_for`, keyed by the run's instance, times and
method). Each instance verdict then carries its `Certification` (``verdict.certificate``)
and the verdict table counts them in its ``certified`` column. Off (the default), nothing
here runs.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, replace

import numpy as np

from numerics import Trajectory
from numerics.certify import CertifyError, NotCertifiable, Tube, certify
from numerics.certify.field import shape_of

# instances certified per check (the rest keep their float verdicts only)
DEFAULT_LIMIT = 2
# runs with more weights than this are left uncertified in the suite (a tube costs 10 to 50
# times its run, more with many crossings; `check(..., certify=True)` has no such cap)
MAX_SIZE = 400
_CACHE_SIZE = 64


@dataclass
class _Setting:
    limit: int = 0  # 0: off


_SETTING = _Setting()
_TUBES: OrderedDict[str, Tube | str] = OrderedDict()


def configure(limit: int | None) -> None:
    """Turn the suite's certification on with ``limit`` instances per check (None or 0:
    off)."""
    _SETTING.limit = max(int(limit or 0), 0)
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
        shape_of(traj.problem)
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
            got: Tube | str = certify(traj)
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
    from verify.certified.decide import Certification, CertifiedOutcome, certify_claim
    from verify.verdict import Outcome

    members = list(verdict.instances) if verdict.instances else [verdict]
    if len(members) != len(runs):
        return verdict
    left = _SETTING.limit
    out = []
    for v, run in zip(members, runs, strict=True):
        if left <= 0 or v.outcome is Outcome.INAPPLICABLE or why_not(run):
            out.append(v)
            continue
        left -= 1
        tube = tube_for(run)
        if isinstance(tube, str):
            cert = Certification(claim.id, CertifiedOutcome.UNCERTIFIED, tube)
        else:
            cert = certify_claim(claim, run, tube=tube)
        out.append(replace(v, certificate=cert.to_dict()))
    if not verdict.instances:
        return out[0]
    return replace(verdict, instances=tuple(out))


__all__ = ["DEFAULT_LIMIT", "MAX_SIZE", "active", "attach", "configure", "tube_for",
           "why_not"]
