"""Re-check a certificate file on its own: ``python -m numerics.certify FILE``.

It imports no integrator, no run and no parser: the ball arithmetic
(`numerics.certify.balls`), the polynomial field (`numerics.certify.field`), the exact
instance (`numerics.certify.instance`), the claim evaluator (`numerics.certify.claims`,
`numerics.certify.quantities`) and the file's reader (`numerics.certify.certificate`).
From the file alone it

1. reads and checks every field (`certificate.read`): settings against their allowed
   values, arrays finite and within range, boundaries and saved entries in order, the
   instance's hash recomputed from its data, initial state and model;
2. rebuilds the field from the instance and re-verifies the tube step by step
   (`field.verify_step`: defect, logarithmic norm, the regimes the tube may meet, held
   pairs), each step's exact length, the first step's start against the instance's
   initial state, each step's end against the next step's start, and the radii claimed
   at the run's saved times;
3. re-decides the claim in Arb on that tube (`claims.decide`) and requires the file's
   verdict (a file that says UNCERTIFIED claims nothing: where the checker decides more,
   it prints its own verdict beside the file's); where a window's end is decided by the
   loss's monotonicity (Lemma 9, `numerics.certify.monotone`), it re-derives that the
   lemma applies (the claim's shape, the field as -kappa grad L of the claim's L) and
   requires the file's record of it (from when, L's enclosure there, the sides' bounds).

Any failure rejects the file (`CertificateRejected`, naming the field or the step).
Command line: exit 0 accepted (it prints the claim, the instance's hash, the verdict and
its time), 1 rejected (one line, the reason), 2 usage.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from numerics.certify import certificate
from numerics.certify.balls import RoundingModeError, check_rounding, distance_up, up, value_at
from numerics.certify.claims import ClaimSpec, Decision, decide
from numerics.certify.field import (
    NotCertifiable,
    restart_radius,
    start_sets,
    step_polynomial,
    verify_step,
)
from numerics.certify.monotone import NAME

FORMAT = certificate.FORMAT


class CertificateRejected(ValueError):
    """The file does not prove what it claims; the message says where."""


@dataclass(frozen=True)
class Checked:
    """An accepted certificate.

    Attributes
    ----------
    instance
        The instance's hash (`numerics.Problem.content_hash`).
    claim, verdict
        The claim and its verdict, re-derived on the tube (None for a tube alone).
    times, states, radii
        The run's saved times, its states there and the radii (Euclidean) within which the
        true flow certainly lies.
    end
        The last time the tube reaches; ``steps``: its number of steps.
    """

    instance: str
    claim: ClaimSpec | None
    verdict: Decision | None
    times: np.ndarray
    states: np.ndarray
    radii: np.ndarray
    end: float
    steps: int
    description: str = ""
    said: Decision | None = None


def check_certificate(path, instance: str | None = None) -> Checked:
    """Accept the certificate at ``path`` (returning what it proves) or reject it;
    ``instance``: the hash the file must be about."""
    try:
        check_rounding()
        f = certificate.read(path)
    except certificate.FileRejected as exc:
        raise CertificateRejected(str(exc)) from None
    except RoundingModeError as exc:
        raise CertificateRejected(str(exc)) from None
    if instance is not None and f.instance.hash != instance:
        raise CertificateRejected(f"instance.hash: the file is about {f.instance.hash}, not "
                                  f"{instance}")
    with np.errstate(all="ignore"):
        _check_tube(f)
        _check_saved(f)
        verdict = _check_claim(f)
    idx = f.saved_index
    return Checked(f.instance.hash, f.claim, verdict, f.bounds[idx], f.saved_state,
                   f.saved_radius, f.end, f.steps, f.instance.describe(), f.verdict)


def _check_tube(f: certificate.TubeFile) -> None:
    shape = f.instance.shape()
    theta0 = f.instance.theta0
    N = f.steps

    def start(k):
        return f.coeffs[k, 0] if k < N else f.end_state

    if not distance_up(theta0, start(0)) <= f.r0[0]:
        raise CertificateRejected("r0[0]: the instance's initial state is outside the first "
                                  "radius of the tube's start")
    if N:
        stuck0, pinned0 = start_sets(shape, theta0)
        if np.any(f.stuck[0] & ~stuck0) or np.any(f.pinned[0] & ~pinned0):
            raise CertificateRejected("step 0: it takes pairs as held at z <= 0 (or at 0) that "
                                      "the initial state does not have there")
    for k in range(N):
        b0, b1 = float(f.bounds[k]), float(f.bounds[k + 1])
        h = b1 - b0
        if not (h > 0 and Fraction(b0) + Fraction(h) == Fraction(b1)):
            raise CertificateRejected(f"step {k} (t = {b0!r}): its length is not exact")
        P, W, a = step_polynomial(shape, f.coeffs[k])
        try:
            bnd = verify_step(shape, W, a, h, float(f.r0[k]), float(f.R[k]), f.stuck[k],
                              f.pinned[k], f.regime[k])
            reach = (restart_radius(shape, value_at(P, h), bnd.r_end, bnd.pinned_end,
                                    start(k + 1)) if bnd.ok else np.inf)
        except (ValueError, ArithmeticError, NotCertifiable) as exc:
            raise CertificateRejected(f"step {k} (t = {b0!r}): its bounds cannot be computed "
                                      f"({type(exc).__name__}: {exc})") from None
        if not bnd.ok:
            raise CertificateRejected(f"step {k} (t = {b0!r}): {bnd.why}")
        if k + 1 < N and (np.any(f.stuck[k + 1] & ~bnd.stuck_end)
                          or np.any(f.pinned[k + 1] & ~bnd.pinned_end)):
            raise CertificateRejected(f"step {k + 1}: a pair is taken as held at z <= 0 (or "
                                      "at 0) that the previous step does not show so")
        if not reach <= f.r0[k + 1]:
            raise CertificateRejected(
                f"step {k} (t = {b0!r}): the tube reaches {reach:.6g} at its end, more than "
                f"the radius {f.r0[k + 1]:.6g} claimed there (r0[{k + 1}])")


def _check_saved(f: certificate.TubeFile) -> None:
    N = f.steps
    for j, k in enumerate(f.saved_index):
        k = int(k)
        centre = f.coeffs[k, 0] if k < N else f.end_state
        need = up(float(f.r0[k]) + distance_up(f.saved_state[j], centre), 2)
        if not need <= f.saved_radius[j]:
            raise CertificateRejected(f"saved entry {j} (t = {float(f.bounds[k])!r}): the "
                                      "claimed radius does not cover the tube there")


def _check_claim(f: certificate.TubeFile) -> Decision | None:
    if f.claim is None:
        return None
    if f.claim.horizon != float(f.bounds[f.saved_index[-1]]) and not f.why:
        raise CertificateRejected(f"tube.why: the tube is said complete, but the run's last "
                                  f"saved time {float(f.bounds[f.saved_index[-1]])!r} is not "
                                  f"the claim's horizon {f.claim.horizon!r}")
    got = decide(f.claim, f)
    said = f.verdict
    _check_tail(said, got)
    if got.outcome != said.outcome and said.outcome != "UNCERTIFIED":
        at = "" if said.t is None else f" at t={said.t!r}"
        now = "" if got.t is None else f" at t={got.t!r}"
        raise CertificateRejected(
            f"verdict: the file says {said.outcome}{at} ({said.reason}); on the file's tube "
            f"(to t={f.end:.6g}) the claim is {got.outcome}{now} ({got.reason})")
    return got


def _check_tail(said: Decision, got: Decision) -> None:
    """The file's tail (a window's end decided by Lemma 9, `numerics.certify.monotone`)
    against the checker's own: claimed where the lemma does not apply, missing where the
    tube alone does not decide the window, or from another time or on other numbers, the
    file is rejected."""
    if said.tail is None and got.tail is None:
        return
    if said.tail is not None and got.tail is None:
        why = got.reason if got.outcome != "PROVED" else "the tube alone decides it"
        raise CertificateRejected(
            f"verdict.tail: the file decides the window from t={said.tail.start!r} on by "
            f"{NAME}, which does not hold here: on the file's tube the claim is "
            f"{got.outcome} ({why})")
    if said.tail is None:
        if said.outcome == "UNCERTIFIED":
            return  # the file claims nothing; the checker's verdict is printed beside it
        raise CertificateRejected(
            f"verdict.tail: the file says {said.outcome} on the tube alone, but the tube does "
            f"not decide the window: the checker needs {NAME} from t={got.tail.start!r}")
    differs = said.tail.differs(got.tail)
    if differs:
        raise CertificateRejected(differs)


def report(got: Checked, path) -> list[str]:
    """What the command line prints for an accepted certificate."""
    lines = [f"ACCEPTED: {path} ({FORMAT})"]
    if got.claim is not None:
        c = got.claim
        lines.append(f"claim:    {c.id}: {c.text}")
        lines.append(f"          decided as {c.describe()}")
    else:
        lines.append("claim:    none (a tube alone)")
    lines.append(f"instance: {got.instance} ({got.description})")
    lines.append(f"tube:     {got.steps} steps to t = {got.end:.6g}; at the run's "
                 f"{len(got.times)} saved times the true flow is within "
                 f"{float(np.max(got.radii)):.3g} of it")
    if got.verdict is not None:
        v = got.verdict
        at = "" if v.t is None else f" at t={v.t:.6g}"
        lines.append(f"verdict:  {v.outcome}{at}: {v.reason}")
        if v.tail is not None:
            t0 = f"{v.tail.start:.6g}"
            lines.append(f"tail:     from t={t0} on, the verdict rests on {NAME}; re-derived "
                         f"here: the claim's shape, the field as {v.tail.flow}, and "
                         f"L({t0}) <= {v.tail.loss[1]:.6g} on the tube")
        if got.said is not None and got.said != v:
            said = "" if got.said.t is None else f" at t={got.said.t:.6g}"
            lines.append(f"          (the file says {got.said.outcome}{said}: "
                         f"{got.said.reason})")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m numerics.certify",
        description="Re-check a gfverify certificate: the tube, the instance and the claim's "
        "verdict, from the file alone.")
    parser.add_argument("file", help="the certificate (.npz)")
    parser.add_argument("--instance", default=None, metavar="HASH",
                        help="reject the file unless it is about this instance (its content "
                             "hash, 16 hex digits)")
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    if args.instance is not None and not (len(args.instance) == 16 and all(
            c in "0123456789abcdef" for c in args.instance)):
        print(f"error: --instance {args.instance!r}: a content hash, 16 hex digits",
              file=sys.stderr)
        return 2
    try:
        got = check_certificate(args.file, instance=args.instance)
    except CertificateRejected as exc:
        print(f"REJECTED: {args.file}: {exc}")
        return 1
    except Exception as exc:  # noqa: BLE001 - a file the checks above missed: never accept
        print(f"REJECTED: {args.file}: the checker could not process it "
              f"({type(exc).__name__}: {str(exc)[:200]})")
        return 1
    print("\n".join(report(got, args.file)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
