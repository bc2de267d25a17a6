"""Lemma 9, the loss does not increase along the flow: a window claim's tail decided by it.

**Lemma 9.** Let theta: [0, T] -> R^P be absolutely continuous with
theta'(t) in -kappa M G(theta(t)) for almost every t, where L = c/(2n) sum_i r_i^2 is the
instance's square loss (r_i = s sum_j a_j sigma(z_ji) - y_i, z_ji = <w_j, x_i>,
sigma(z) = max(z, beta z)), G(theta) the set of its chain-rule gradients

    dL/da_j = (c/n) s sum_i r_i D_ji z_ji,     dL/dw_j = (c/n) s a_j sum_i r_i D_ji x_i,

over every D with D_ji = sigma'(z_ji) where z_ji != 0 and D_ji in [beta, 1] where
z_ji = 0, kappa > 0 a constant and M the orthogonal projection onto the trained
coordinates. Then t -> L(theta(t)) is non-increasing, and |theta(t) - theta(0)|^2 <=
kappa t L(theta(0)).

*Proof.* L is locally Lipschitz, so l(t) = L(theta(t)) is absolutely continuous. Each
z_ji(t) is absolutely continuous, and at almost every t either z_ji(t) != 0 or
z_ji'(t) = 0 (the points of {z_ji = 0} where z_ji has a non-zero derivative are isolated
in it, so countably many). At such a t where theta and l are differentiable,
d/dt sigma(z_ji) = D_ji z_ji' for *every* admissible D (where z_ji = 0 = z_ji',
|sigma(z_ji(t + h))| <= |z_ji(t + h)| = o(h)), and sigma(z_ji) = D_ji z_ji; the product
rule then gives l'(t) = <g, theta'(t)> for every g in G(theta(t)). Taking the g with
theta'(t) = -kappa M g: l'(t) = -kappa |M g|^2 <= 0. Integrating, l is non-increasing, and
|theta'|^2 = kappa^2 |M g|^2 = -kappa l', so int_0^t |theta'|^2 <= kappa l(0) and
Cauchy-Schwarz bounds the distance travelled (no solution escapes in finite time: the flow
exists to every horizon). The same chain rule is Bolte and Pauwels' conservative field of
the backpropagation oracle (Math. Program. 188, 2021) and, for the Clarke subdifferential
of a Whitney stratifiable function, the chain rule of Davis, Drusvyatskiy, Kakade and Lee
(Found. Comput. Math. 20, 2020); the argument above needs neither.

The certified field (`numerics.certify.field`) is -kappa M G: Filippov's set of the
piecewise-polynomial field is the image of the box of admissible D (the field is affine in
each D_ji, and at z_ji = 0 the a-part does not read D_ji), with kappa = 1/s (1 standard,
p mean field) and M the trained layers (`GRADIENT_FLOWS`). Every solution the tube encloses
is such a theta, whichever side a pair at z = 0 takes.

**The tail rule.** A window claim ``SMALL <= BIG`` (or ``<``; ``>=`` and ``>`` read the
other way) whose SMALL - BIG is a function of L(t) and t that does not decrease in L(t)
and does not increase in t (`trend`: SMALL built from L(t) with positive coefficients and
from terms non-increasing in t, BIG from terms non-decreasing in t and -L(t)) holds at
every t >= T0 once it holds on the tube's ball at a boundary T0: SMALL(t) - BIG(t) <=
SMALL(T0) - BIG(T0) <= 0 along the flow, by Lemma 9. `decide_tail` finds the first such
boundary at which the claim also holds on every box of its window before it, and
returns the record a certificate keeps (`Tail`). Anything else (a relation of another
shape, a quantity other than L at t, a side whose trend is not certain, a field that is
not -kappa M grad L at T0) does not apply, and says why.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from numerics.certify import field
from numerics.certify.balls import Ball, float_down, float_up
from numerics.certify.quantities import NotEnclosed

LEMMA = "monotone-loss"
NAME = "Lemma 9 (the loss does not increase along the gradient flow)"
# the flows the certificate's field is, as theta' = -kappa M grad L: (loss, parametrisation)
# -> kappa (as an expression in p), and the trained layers -> what M keeps. Derived in the
# module's docstring and the certificates guide; tested against autograd.
GRADIENT_FLOWS = {("square", "standard"): "1", ("square", "mean_field"): "p"}
TRAINED = {"both": "W and a", "first": "W (a fixed)", "second": "a (W fixed)"}
# a recorded enclosure may differ from the checker's own by this much (relative): another
# machine's BLAS sums in another order
SLACK = 2.0**-20


class NotApplicable(ValueError):
    """Lemma 9 does not decide the claim's tail; the message says why."""


@dataclass(frozen=True)
class Tail:
    """A window's tail decided by Lemma 9, as a certificate records it.

    Attributes
    ----------
    start
        T0, the boundary time from which the lemma decides the claim; ``boundary`` its
        index in the tube.
    loss
        [lo, hi]: L enclosed on the tube's ball at T0.
    small, big
        An upper bound of the relation's smaller side and a lower bound of its larger
        side at T0 (small <= big, strictly for ``<``).
    flow
        The flow the lemma reads the field as (theta' = -kappa M grad L).
    """

    start: float
    boundary: int
    loss: tuple[float, float]
    small: float
    big: float
    flow: str
    lemma: str = LEMMA

    def to_json(self) -> dict:
        out = asdict(self)
        out["loss"] = list(self.loss)
        return out

    @classmethod
    def from_json(cls, data) -> Tail:
        """A recorded tail, every field checked (`NotApplicable` naming the field)."""
        keys = {"lemma", "start", "boundary", "loss", "small", "big", "flow"}
        if not isinstance(data, dict) or set(data) != keys:
            raise NotApplicable(f"verdict.tail: an object with {', '.join(sorted(keys))}")
        if data["lemma"] != LEMMA:
            raise NotApplicable(f"verdict.tail.lemma: {data['lemma']!r}, the checker knows "
                                f"{LEMMA!r}")
        for key in ("start", "small", "big"):
            if not finite(data[key]):
                raise NotApplicable(f"verdict.tail.{key}: a finite number, got "
                                    f"{str(data[key])[:40]}")
        k = data["boundary"]
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise NotApplicable(f"verdict.tail.boundary: a step boundary's index, got {k!r}")
        lo_hi = data["loss"]
        if not (isinstance(lo_hi, list) and len(lo_hi) == 2 and all(map(finite, lo_hi))
                and lo_hi[0] <= lo_hi[1]):
            raise NotApplicable(f"verdict.tail.loss: [lo, hi] with lo <= hi, got "
                                f"{str(lo_hi)[:60]}")
        if not isinstance(data["flow"], str):
            raise NotApplicable("verdict.tail.flow: a string")
        return cls(float(data["start"]), k, (float(lo_hi[0]), float(lo_hi[1])),
                   float(data["small"]), float(data["big"]), data["flow"])

    def differs(self, other: Tail) -> str:
        """The first field where a recorded tail is not the re-derived ``other`` (numbers
        to within `SLACK`), "" when they agree."""
        if self.start != other.start or self.boundary != other.boundary:
            return (f"verdict.tail.start: the file has the lemma from t={self.start!r} "
                    f"(boundary {self.boundary}); the checker finds it from "
                    f"t={other.start!r} (boundary {other.boundary})")
        if self.flow != other.flow:
            return (f"verdict.tail.flow: the file reads the field as {self.flow!r}; the "
                    f"instance's is {other.flow!r}")
        pairs = (("loss", self.loss[0], other.loss[0]), ("loss", self.loss[1], other.loss[1]),
                 ("small", self.small, other.small), ("big", self.big, other.big))
        for name, said, got in pairs:
            if not abs(said - got) <= SLACK * abs(got) + 1e-300:
                return (f"verdict.tail.{name}: the file records {said!r} at t={self.start!r}, "
                        f"the checker encloses {got!r} there")
        return ""

    def describe(self) -> str:
        """One line: from when, on what, with which numbers."""
        return (f"from t={self.start:.6g} on by {NAME}: L({self.start:.6g}) <= "
                f"{self.loss[1]:.6g}, the smaller side <= {self.small:.6g} <= {self.big:.6g} "
                "<= the larger side")


def finite(v) -> bool:
    """Whether a JSON value is a finite number a float holds (an integer of 400 digits is
    not)."""
    if isinstance(v, bool) or not isinstance(v, float | int):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


# -- the flow -----------------------------------------------------------------------------
def gradient_flow(instance) -> tuple[float, str]:
    """(kappa, what it reads) for the certified field of ``instance`` as
    theta' = -kappa M grad L (`GRADIENT_FLOWS`); `NotApplicable` for a model outside the
    table."""
    loss = getattr(instance, "loss", "square")
    key = (loss, instance.parametrization)
    if key not in GRADIENT_FLOWS or instance.train not in TRAINED:
        raise NotApplicable(f"the certified field of a {loss} loss, {instance.parametrization}"
                            f" parametrisation, train {instance.train!r} is not a gradient "
                            "flow of L the lemma knows")
    kappa = float(instance.p) if GRADIENT_FLOWS[key] == "p" else 1.0
    text = (f"theta' = -kappa grad L with kappa = {GRADIENT_FLOWS[key]}"
            f"{'' if GRADIENT_FLOWS[key] == '1' else f' = {instance.p}'} "
            f"({instance.parametrization}), {TRAINED[instance.train]} trained")
    return kappa, text


def loss_gradient(shape, W: Ball, a: Ball, D: Ball) -> tuple[Ball, Ball]:
    """G: the chain-rule gradient of L = c/(2n) sum_i r_i^2 at the state (W, a) with the
    slopes ``D`` (written from L's formula, apart from the field's code)."""
    X = Ball.exact(shape.X)
    z = W @ X.T                                     # (p, n)
    u = z * D                                       # sigma(z_ji)
    s = shape.s()
    r = (a.reshape(shape.p, 1) * u).sum(axis=0) * s - Ball.exact(shape.y)
    rate = shape.rate() * s                         # (c/n) s
    ga = (u * r.reshape(1, shape.n)).sum(axis=1) * rate
    q = (D * r.reshape(1, shape.n)) @ X             # (p, d)
    gW = a.reshape(shape.p, 1) * q * rate
    return gW, ga


def field_mismatch(shape, theta: np.ndarray, kappa: float) -> str:
    """Why the certified field at the float state ``theta`` is not -kappa M grad L ("" when
    it is, every entry's ball of the difference holding 0): the field of
    `numerics.certify.field` (what the tube's steps are verified against) against
    `loss_gradient`, with the slopes the state's signs fix (the hull [beta, 1] where a
    pre-activation's ball holds 0)."""
    W0, a0 = shape.split(np.asarray(theta, float))
    W, a = Ball.exact(W0), Ball.exact(a0)
    z = W @ Ball.exact(shape.X.T)
    D = field.slopes(shape, z.lower() > 0, z.upper() < 0)
    F = field.field_along(shape, W.reshape(1, shape.p, shape.d), a.reshape(1, shape.p), D)
    gW, ga = loss_gradient(shape, W, a, D)
    keep_W = 0.0 if shape.train == "second" else kappa
    keep_a = 0.0 if shape.train == "first" else kappa
    for name, got, want in (("W", F.dW[0], gW.scale(-keep_W)), ("a", F.da[0],
                                                                 ga.scale(-keep_a))):
        gap = got - want
        if not np.all((gap.lower() <= 0) & (gap.upper() >= 0)):
            worst = float(np.max(np.abs(gap.mid)))
            return (f"the certified field's {name}-part is not -kappa grad L at the state "
                    f"(off by {worst:.3g}): the tube's model is not the gradient flow of "
                    "this L")
    return ""


# -- the claim's shape --------------------------------------------------------------------
def _join(parts: list) -> tuple[int, int] | None:
    """The trend of a sum (or min, max) of terms of the given trends."""
    if any(p is None for p in parts):
        return None
    out = []
    for comp in zip(*parts, strict=True):
        signs = set(comp) - {0}
        if len(signs) > 1:
            return None
        out.append(signs.pop() if signs else 0)
    return out[0], out[1]


def _has(node, op: str) -> bool:
    return isinstance(node, list) and bool(node) and (
        node[0] == op or any(_has(a, op) for a in node[1:]))


def trend(node, sign_of) -> tuple[int, int] | None:
    """How the expression ``node`` moves with (L(t), t): each +1 (non-decreasing), -1
    (non-increasing) or 0 (constant); None where that is not certain. ``sign_of(node)``:
    +1 or -1 where a constant expression's sign is certain, else 0."""
    op, args = node[0], node[1:]
    if op == "t":
        return 0, 1
    if op == "q":
        name, when = args
        if not _has(when, "t"):
            return 0, 0
        return (1, 0) if name == "L" and when == ["t"] else None
    if not _has(node, "t"):
        return 0, 0
    if op in ("add", "min", "max"):
        return _join([trend(a, sign_of) for a in args])
    if op == "mul":
        moving = [a for a in args if _has(a, "t")]
        if len(moving) != 1:
            return None
        inner = trend(moving[0], sign_of)
        fixed = [a for a in args if not _has(a, "t")]
        sign = sign_of(["mul", *fixed]) if fixed else 1
        if inner is None or sign == 0:
            return None
        return inner[0] * sign, inner[1] * sign
    if op == "exp":
        return trend(args[0], sign_of)
    return None  # pow, log, abs of a quantity of t: not read


def tail_sides(relation) -> tuple[list, list, bool]:
    """(SMALL, BIG, strict) of a relation SMALL <= BIG (or <); `NotApplicable` for an
    equality, a conjunction or a disjunction."""
    op = relation[0]
    if op in ("le", "lt"):
        return relation[1], relation[2], op == "lt"
    if op in ("ge", "gt"):
        return relation[2], relation[1], op == "gt"
    raise NotApplicable(f"the relation is {'an equality' if op == 'eq' else 'a ' + op}, "
                        "not one inequality")


def check_shape(relation, sign_of) -> None:
    """`NotApplicable` unless SMALL - BIG does not decrease in L(t) and does not increase
    in t, and reads L(t) (`trend`)."""
    small, big, _ = tail_sides(relation)
    ts, tb = trend(small, sign_of), trend(big, sign_of)
    if ts is None or tb is None:
        raise NotApplicable("a side of the relation reads a quantity of t other than L(t), "
                            "or a product, power or function of one whose trend is not "
                            "certain")
    if ts[0] < 0 or tb[0] > 0:
        raise NotApplicable("the smaller side decreases with L(t) (or the larger one grows "
                            "with it): a falling L does not help it")
    if ts[1] > 0 or tb[1] < 0:
        raise NotApplicable("the right side decreases in t (or the left side grows in t): "
                            "it may overtake the loss's bound")
    if ts[0] == 0 and tb[0] == 0:
        raise NotApplicable("the relation does not read the loss L(t)")


# -- the decision -------------------------------------------------------------------------
def _sign_of(ctx):
    def sign(node) -> int:
        try:
            v = ctx.evaluate(node)
        except (NotEnclosed, ValueError, ZeroDivisionError, OverflowError):
            return 0
        return 1 if v > 0 else (-1 if v < 0 else 0)
    return sign


def applies(ctx) -> tuple[float, str]:
    """(kappa, the flow's text) when the lemma can decide the tail of ``ctx``'s claim (a
    window claim of the right shape, on a field the lemma knows); `NotApplicable` why
    not."""
    spec = ctx.spec
    if spec.kind != "window":
        raise NotApplicable("an event-time claim")
    check_shape(spec.relation, _sign_of(ctx))
    return gradient_flow(ctx.instance)


def at_boundary(ctx, k: int, kappa: float, flow: str) -> Tail | None:
    """The tail record if the claim holds on the tube's ball at boundary k and the field
    there is -kappa M grad L; None where the relation is not certain there."""
    small, big, strict = tail_sides(ctx.spec.relation)
    at = ("exact",) if k == 0 else ("ball", k)
    try:
        lo = ctx.evaluate(small, at)
        hi = ctx.evaluate(big, at)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    gap = hi - lo
    if not ((gap > 0) if strict else (gap >= 0)):
        return None
    why = field_mismatch(ctx.shape, ctx.centre(k), kappa)
    if why:
        raise NotApplicable(why)
    loss = ctx.quantity("L", ["t"], at)
    return Tail(float(ctx.bounds[k]), k, (float_down(loss), float_up(loss)), float_up(lo),
                float_down(hi), flow)


def decide_tail(ctx, lo_out: float, hi_out: float, single: bool) -> Tail:
    """The first boundary T0 <= hi_out (<= lo_out for a claim at a single time) at which
    Lemma 9 decides the claim from T0 on, the claim holding on every box of its window
    before T0; `NotApplicable` why there is none."""
    kappa, flow = applies(ctx)
    parts = {} if single else {k: (s0, s1) for k, s0, s1 in ctx.parts(max(lo_out, 0.0),
                                                                       hi_out)}
    for k in range(ctx.N + 1):
        t = float(ctx.bounds[k])
        if t > (lo_out if single else hi_out):
            break
        if k - 1 in parts:  # step k - 1 meets the window: the relation must hold on it
            s0, s1 = parts[k - 1]
            first = ctx.holds_over(ctx.spec.relation, k - 1, s0, s1, want=1)
            if first is not None:
                at = float(ctx.bounds[k - 1]) + first
                raise NotApplicable(f"the tube does not decide the relation from "
                                    f"t={at:.6g}, before any boundary where the loss's "
                                    "bound decides it")
        got = at_boundary(ctx, k, kappa, flow)
        if got is not None:
            return got
    raise NotApplicable("the relation is certain at no boundary of the tube, so the loss's "
                        "monotonicity has no start")


__all__ = ["GRADIENT_FLOWS", "LEMMA", "NAME", "NotApplicable", "Tail", "applies", "finite",
           "check_shape", "decide_tail", "field_mismatch", "gradient_flow", "loss_gradient",
           "trend"]
