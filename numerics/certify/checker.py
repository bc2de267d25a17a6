"""Re-verify a certificate file (`Tube.write`) on its own: ``check_certificate(path)``.

It imports no integrator: only the ball arithmetic (`numerics.certify.balls`) and the
polynomial field (`numerics.certify.field`). From the file's data, initial state, step
boundaries, Taylor coefficients and claimed radii it checks, with its own bounds:

1. the initial state lies within the first radius of the first step's start;
2. every step's length is exact (boundary + length == next boundary, in rationals);
3. every step's pairs taken as held at z <= 0 (or exactly at 0) were shown so by the step
   before;
4. every step's Gronwall bound (`field.verify_step`: defect, logarithmic norm, the regimes
   the tube may meet) stays inside the box the step claims and, carried to the step's end
   (and projected onto the surfaces of pairs exactly at 0, `field.restart_radius`),
   within the next boundary's claimed radius of the next step's start;
5. at the run's saved times, the claimed radius around the run's state covers the
   boundary's radius plus the distance between the two.

Any failure rejects the file (`CertificateRejected`, naming the step and the bound).
Command line: ``python -m numerics.certify FILE`` (exit 0 accepted, 1 rejected).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from numerics.certify.balls import Ball, distance_up, up, value_at
from numerics.certify.field import Shape, restart_radius, start_sets, verify_step

FORMAT = "gfverify-certificate/2"


_ARRAYS = ("X", "y", "theta0", "bounds", "coeffs", "r0", "R", "end_state", "saved_index",
           "stuck", "pinned", "regime", "saved_state", "saved_radius")


class CertificateRejected(ValueError):
    """The file does not prove what it claims; the message says where."""


@dataclass(frozen=True)
class Checked:
    """An accepted certificate: the saved times, the run's states there and the radii
    (Euclidean) within which the true flow certainly lies."""

    times: np.ndarray
    states: np.ndarray
    radii: np.ndarray
    end: float
    steps: int


def _load(path):
    try:
        with np.load(Path(path), allow_pickle=False) as f:
            data = {k: f[k] for k in f.files}
        meta = json.loads(str(data.pop("meta")))
    except (OSError, ValueError, KeyError) as exc:
        raise CertificateRejected(f"{path}: not a certificate file ({exc})") from None
    if meta.get("format") != FORMAT:
        raise CertificateRejected(f"{path}: format {meta.get('format')!r}, expected {FORMAT}")
    missing = [k for k in _ARRAYS if k not in data]
    if missing:
        raise CertificateRejected(f"{path}: the arrays {', '.join(missing)} are missing")
    return meta, data


def check_certificate(path) -> Checked:
    """Accept the certificate at ``path`` (returning what it proves) or reject it."""
    meta, f = _load(path)
    shape = Shape(f["X"], f["y"], int(meta["p"]), float(meta["loss_scale"]),
                  bool(meta["mean_field"]), float(meta["slope"]), str(meta["train"]))
    bounds, coeffs, r0, R = f["bounds"], f["coeffs"], f["r0"], f["R"]
    stuck, pinned, regime = f["stuck"], f["pinned"], f["regime"]
    N = len(R)
    if not (len(bounds) == N + 1 and len(r0) == N + 1 and coeffs.shape[0] == N):
        raise CertificateRejected("the step arrays disagree in length")
    if bounds[0] != 0.0 or np.any(r0 < 0) or not np.all(np.isfinite(r0)):
        raise CertificateRejected("the first boundary is not 0 or a radius is invalid")
    pd = shape.p * shape.d

    def start(k):
        return coeffs[k, 0] if k < N else f["end_state"]

    if len(stuck) != N or len(pinned) != N or len(regime) != N:
        raise CertificateRejected("the held-down pairs disagree with the steps")
    if N:
        stuck0, pinned0 = start_sets(shape, f["theta0"])
        if np.any(stuck[0] & ~stuck0) or np.any(pinned[0] & ~pinned0):
            raise CertificateRejected("step 0 takes pairs as held at z <= 0 (or at 0) that "
                                      "the initial state does not have there")
    if distance_up(f["theta0"], start(0)) > r0[0]:
        raise CertificateRejected("the initial state is outside the first radius")
    for k in range(N):
        h = bounds[k + 1] - bounds[k]
        if not (h > 0 and Fraction(bounds[k]) + Fraction(h) == Fraction(bounds[k + 1])):
            raise CertificateRejected(f"step {k}: its length is not exact")
        P = Ball.exact(coeffs[k])
        W = P[:, :pd].reshape(P.shape[0], shape.p, shape.d)
        a = P[:, pd:]
        bnd = verify_step(shape, W, a, float(h), float(r0[k]), float(R[k]), stuck[k], pinned[k],
                          regime[k])
        if not bnd.ok:
            raise CertificateRejected(f"step {k} (t = {bounds[k]!r}): {bnd.why}")
        if k + 1 < N and (np.any(stuck[k + 1] & ~bnd.stuck_end)
                          or np.any(pinned[k + 1] & ~bnd.pinned_end)):
            raise CertificateRejected(f"step {k + 1}: a pair is taken as held at z <= 0 "
                                      "(or at 0) that the previous step does not show so")
        reach = restart_radius(shape, value_at(P, float(h)), bnd.r_end, bnd.pinned_end,
                               start(k + 1))
        if reach > r0[k + 1]:
            raise CertificateRejected(
                f"step {k} (t = {bounds[k]!r}): the tube reaches {reach:.6g} at its end, "
                f"more than the radius {r0[k + 1]:.6g} claimed there")
    idx, states, radii = f["saved_index"], f["saved_state"], f["saved_radius"]
    for j, k in enumerate(idx):
        if not 0 <= k <= N or up(r0[k] + distance_up(states[j], start(k)), 2) > radii[j]:
            raise CertificateRejected(f"saved time {j}: the claimed radius does not cover "
                                      "the tube there")
    return Checked(bounds[idx], states, radii, float(bounds[-1]), N)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m numerics.certify FILE", file=sys.stderr)
        return 2
    try:
        got = check_certificate(argv[0])
    except CertificateRejected as exc:
        print(f"REJECTED: {exc}")
        return 1
    print(f"ACCEPTED: {got.steps} steps to t = {got.end:g}; largest radius at a saved time "
          f"{got.radii.max():.3g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
