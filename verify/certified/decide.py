"""PROVED and DISPROVED: a claim decided on the certified tube of a run, not on its floats.

- A window claim is DISPROVED at a saved time where its relation fails for every state of
  the tube there, and PROVED when it holds on every step's box (the step's polynomial
  range widened by its tube radius, the time as the step's interval) across its window.
- An event-time claim ``t_event <= bound`` is PROVED at a saved time t <= bound where the
  event holds on the whole tube (the first event time is then at most t), and DISPROVED
  when the event fails on every step's box up to the bound.

Anything else (a quantity without a certified enclosure, a window past where the tube
ends, a margin inside the tube) is UNCERTIFIED, with the reason; the float verdict stands.
PROVED is a statement about this instance and this run's horizon, not about the theorem.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field

import numpy as np
import sympy as sp
from flint import arb

from numerics.certify import CertifyError, NotCertifiable, Tube, certify
from numerics.certify.balls import (
    Ball,
    add_up,
    derivative,
    range_on,
    shifted,
    sub_down,
    sup_on,
    up,
    value_at,
)
from theory.bridge import flatten
from theory.claim import Claim, Kind
from verify.certified.enclosures import (
    INSTANCE_WIDEN,
    MEASURES,
    STEP_MEASURES,
    NotEnclosed,
    around,
    drift_over_step,
    exact_time,
    instance_number,
    relation_sign,
    state_box,
)
from verify.measures import instance_values

_T = sp.Symbol("t", nonnegative=True, real=True)


class CertifiedOutcome(enum.StrEnum):
    """What the certified layer concluded (kept apart from the four float outcomes)."""

    PROVED = "PROVED"
    DISPROVED = "DISPROVED"
    UNCERTIFIED = "UNCERTIFIED"


@dataclass(frozen=True)
class Certification:
    """A claim on a certified tube: the outcome, why, the time it was decided at, and the
    certificate's record (arithmetic, order, steps, radii, the file when written)."""

    claim_id: str
    outcome: CertifiedOutcome
    reason: str
    t: float | None = None
    record: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["outcome"] = self.outcome.value
        return d

    def __str__(self) -> str:
        at = "" if self.t is None else f" at t={self.t:.6g}"
        rec = self.record
        cert = (f" [certified tube: {rec.get('steps')} steps, radius <= "
                f"{rec.get('max_radius', float('nan')):.3g} to t={rec.get('end', 0):.6g}]"
                if rec.get("steps") else "")
        return f"{self.claim_id} {self.outcome.value}{at}: {self.reason}{cert}"


class _Context:
    """The enclosures of a claim's inputs at saved times and over steps of a tube."""

    def __init__(self, claim: Claim, traj, tube: Tube):
        self.claim, self.traj, self.tube = claim, traj, tube
        self.shape = tube.shape
        self.inst = instance_values(traj.problem)
        W0, a0 = tube.shape.split(np.asarray(tube.theta0, float))
        self.start = (Ball.exact(W0), Ball.exact(a0))
        self._speeds: dict = {}
        self._at_cache: dict[float, dict[str, arb]] = {}

    def flat(self, expr: sp.Basic):
        return flatten(self.claim.substituted(expr))

    def _measure(self, name: str, W: Ball, a: Ball) -> arb:
        if name not in MEASURES:
            raise NotEnclosed(f"{name}(t) has no certified enclosure (certified: "
                              f"{', '.join(sorted(MEASURES))})")
        return MEASURES[name](self.shape, W, a, self.start)

    def _saved(self, t: float):
        hit = np.flatnonzero(self.tube.times == t)
        if not hit.size:
            raise NotEnclosed(f"t={t:g} is not a certified saved time")
        k = int(hit[0])
        return around(self.shape, self.tube.states[k], float(self.tube.radii[k]))

    def env(self, originals: dict, t: float | None = None, step: int | None = None,
            part: tuple[float, float] = (0.0, 1.0)) -> dict:
        """arb values of every flat name, at saved time ``t`` or over step ``step`` (its
        fraction ``part`` of the step's length)."""
        if step is not None:
            W, a, tval = self.step_box(step, part)
        else:
            W, a = self._saved(t)
            tval = exact_time(t)
        out = {}
        for name, term in originals.items():
            if isinstance(term, sp.core.function.AppliedUndef):
                (arg,) = term.args
                fname = term.func.__name__
                if arg == _T and step is not None and fname in STEP_MEASURES:
                    P, width, R = self.step_poly(step, part)
                    out[name] = drift_over_step(self.shape, P, width, R, self.start,
                                                STEP_MEASURES[fname])
                elif arg == _T:
                    out[name] = self._measure(fname, W, a)
                else:
                    W0, a0 = self._saved(float(arg))
                    out[name] = self._measure(fname, W0, a0)
            elif isinstance(term, sp.Derivative):
                raise NotEnclosed(f"the derivative {term} has no certified enclosure")
            elif term == _T or getattr(term, "name", None) == "t":
                out[name] = tval
            elif getattr(term, "name", None) in self.inst:
                out[name] = instance_number(self.inst[term.name])
            else:
                raise NotEnclosed(f"{term} has no value on this instance")
        return out

    def step_poly(self, k: int, part: tuple[float, float] = (0.0, 1.0)):
        """Step k's polynomial on a fraction ``part`` = (f0, f1) of its length, as
        (coefficient balls in u = s - s0, the width of [s0, s1] rounded up, the step's box
        radius): every state of the tube there is within that radius of it."""
        tube = self.tube
        h = float(tube.bounds[k + 1] - tube.bounds[k])
        s0 = part[0] * h
        s1 = h if part[1] == 1.0 else part[1] * h
        P = Ball.exact(tube.coeffs[k])
        if s0 > 0:
            P = shifted(P, s0)
        width = min(float(np.nextafter(s1 - s0, np.inf)), h)
        return P, width, float(up(tube.R[k], 1))

    def step_box(self, k: int, part: tuple[float, float] = (0.0, 1.0)):
        """The box of every state of the tube over a fraction ``part`` = (f0, f1) of step
        k and the times it spans: (W, a, t). The whole step: the polynomial's range widened
        by the step's box radius. A part: the polynomial at its middle, widened by the
        step's speed bound (sup |P'| over the step) times half the part's length and the
        box radius (cheap, for the halving of a step a box does not decide)."""
        tube = self.tube
        b0, b1 = float(tube.bounds[k]), float(tube.bounds[k + 1])
        h = b1 - b0
        s0 = part[0] * h
        s1 = h if part[1] == 1.0 else part[1] * h
        R = float(up(tube.R[k], 1))
        if part == (0.0, 1.0):
            lo, hi = range_on(Ball.exact(tube.coeffs[k]), h)
        else:
            P, speed = self._step_speed(k)
            mid = 0.5 * (s0 + s1)
            half = max(mid - s0, s1 - mid)  # exact (Sterbenz: the ends are within 2x)
            centre = value_at(P, mid)
            reach = up(speed * half, 2)
            lo, hi = sub_down(centre.lower(), reach), add_up(centre.upper(), reach)
        W, a = state_box(self.shape, sub_down(lo, R), add_up(hi, R))
        start = exact_time(b0) + exact_time(s0)
        end = exact_time(b1) if part[1] == 1.0 else exact_time(b0) + exact_time(s1)
        return W, a, start.union(end)

    def _step_speed(self, k: int):
        """Step k's coefficient balls and sup over the step of |P'| entrywise (kept)."""
        if k not in self._speeds:
            tube = self.tube
            P = Ball.exact(tube.coeffs[k])
            h = float(tube.bounds[k + 1] - tube.bounds[k])
            self._speeds = {k: (P, sup_on(derivative(P), h))}  # one step at a time
        return self._speeds[k]

    def steps_over(self, ta: float, tb: float) -> list[int]:
        b = self.tube.bounds
        return [k for k in range(len(self.tube.R)) if b[k + 1] >= ta and b[k] <= tb]


def _window(claim: Claim, traj) -> tuple[np.ndarray, float, float]:
    from verify.check_run import window_mask

    mask = window_mask(claim, traj)
    t = np.asarray(traj.t, float)
    if not mask.any():
        raise NotEnclosed("the claim's window holds no saved time")
    return mask, float(t[mask][0]), float(t[mask][-1])


def _decide_window(ctx: _Context) -> Certification:
    claim, tube = ctx.claim, ctx.tube
    flat, originals = ctx.flat(claim.statement)
    mask, ta, tb = _window(claim, ctx.traj)
    for t in np.asarray(ctx.traj.t, float)[mask]:
        if t > tube.end:
            break
        if relation_sign(flat, ctx.env(originals, t=float(t))) == -1:
            return Certification(claim.id, CertifiedOutcome.DISPROVED,
                                 "the relation fails on the whole certified tube there",
                                 float(t))
    if tb > tube.end:
        return Certification(claim.id, CertifiedOutcome.UNCERTIFIED,
                             f"the tube is certified to t={tube.end:.6g}, the window "
                             f"reaches {tb:.6g} ({tube.why or 'horizon'})")
    if ta == tb:
        ok = relation_sign(flat, ctx.env(originals, t=ta)) == 1
        undecided = [] if ok else [ta]
    else:
        undecided = next((float(tube.bounds[k]) for k in ctx.steps_over(ta, tb)
                          if not _holds_over_step(ctx, flat, originals, k)), None)
        undecided = [] if undecided is None else [undecided]
    if not undecided:
        return Certification(claim.id, CertifiedOutcome.PROVED,
                             f"the relation holds on the whole tube for t in "
                             f"[{ta:.6g}, {tb:.6g}]")
    return Certification(claim.id, CertifiedOutcome.UNCERTIFIED,
                         f"the tube does not decide the relation from t={undecided[0]:.6g}")


# a step on which the tube does not decide a relation is halved up to this many times
# (2^SPLIT_DEPTH parts at most), each part's box the polynomial's range over it
SPLIT_DEPTH = 8


def _holds_over_step(ctx: _Context, flat, originals: dict, k: int, want: int = 1) -> bool:
    """Whether the relation holds (``want`` 1; fails: -1) on every box of step k, the
    step halved where a box does not decide it (its states move less over a shorter
    part)."""
    todo = [((0.0, 1.0), 0)]
    while todo:
        part, depth = todo.pop()
        sign = relation_sign(flat, ctx.env(originals, step=k, part=part))
        if sign == want:
            continue
        if sign == -want or depth >= SPLIT_DEPTH:
            return False
        mid = 0.5 * (part[0] + part[1])
        todo += [((part[0], mid), depth + 1), ((mid, part[1]), depth + 1)]
    return True


def _decide_event(ctx: _Context) -> Certification:
    claim, tube = ctx.claim, ctx.tube
    st = claim.substituted(claim.statement)
    if not (isinstance(st, (sp.Le, sp.Lt)) and st.lhs == claim.event_time):
        raise NotEnclosed("an event-time statement other than t_event <= bound")
    ev_flat, ev_orig = ctx.flat(claim.event)
    bound_flat, bound_orig = ctx.flat(st.rhs)
    bound = ctx.env(bound_orig, t=0.0)
    from verify.certified.enclosures import evaluate

    bound_val = evaluate(bound_flat, bound)
    strict = isinstance(st, sp.Lt)
    for t in tube.times:
        t = float(t)
        tv = exact_time(t)
        if not ((tv < bound_val) if strict else (tv <= bound_val)):
            break
        if relation_sign(ev_flat, ctx.env(ev_orig, t=t)) == 1:
            return Certification(claim.id, CertifiedOutcome.PROVED,
                                 f"the event holds on the whole tube at t={t:.6g}, within "
                                 f"the bound {float(bound_val.mid()):.6g}", t)
    upper = float(bound_val.upper())
    if tube.end < upper:
        return Certification(claim.id, CertifiedOutcome.UNCERTIFIED,
                             f"no saved time has the event certain, and the tube ends at "
                             f"t={tube.end:.6g} before the bound {upper:.6g}")
    for k in ctx.steps_over(0.0, upper):
        if not _holds_over_step(ctx, ev_flat, ev_orig, k, want=-1):
            return Certification(claim.id, CertifiedOutcome.UNCERTIFIED,
                                 f"the tube does not decide the event from t="
                                 f"{float(tube.bounds[k]):.6g}")
    return Certification(claim.id, CertifiedOutcome.DISPROVED,
                         f"the event fails on the whole tube up to the bound {upper:.6g}")


def certify_claim(claim: Claim, traj, tube: Tube | None = None,
                  file=None) -> Certification:
    """Decide ``claim`` on the certified tube of ``traj`` (built with
    `numerics.certify.certify` unless given); write the certificate to ``file`` when
    given. Never raises for a run or claim it cannot certify: UNCERTIFIED says why."""
    try:
        tube = certify(traj) if tube is None else tube
    except (NotCertifiable, CertifyError) as exc:
        return Certification(claim.id, CertifiedOutcome.UNCERTIFIED, str(exc))
    record = {**tube.record, "instance_numbers": f"float64, widened by {INSTANCE_WIDEN:.3g} "
              "relative", "complete": tube.complete, "stopped": tube.why}
    if file is not None:
        record["file"] = str(tube.write(file))
    ctx = _Context(claim, traj, tube)
    try:
        if claim.kind is Kind.EVENT_TIME:
            out = _decide_event(ctx)
        else:
            out = _decide_window(ctx)
    except NotEnclosed as exc:
        out = Certification(claim.id, CertifiedOutcome.UNCERTIFIED, str(exc))
    return Certification(out.claim_id, out.outcome, out.reason, out.t, record)
