"""Numbers for the vocabulary: each `theory.symbols` name measured on a Problem or run.

Instance quantities are floats computed from the Problem. Trajectory quantities
are arrays over the saved times, each with a round-off magnitude: the size of
the floating-point error the formula itself can make (independent of the
integration error, which the companion run measures).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from numerics import Problem, Trajectory
from verify.errors import UnknownQuantity

FLOAT_EPS = float(np.finfo(np.float64).eps)
# Rounding accumulated by sums over p neurons and n samples and by the state
# itself: a few hundred ulps of the magnitudes involved. Round-off is a floor
# under the error estimate, never a substitute for it.
ROUNDOFF_ULPS = 256.0
# Error estimates from a companion run can vanish by coincidence (the two runs'
# errors cancel at one time); every such estimate is multiplied by this factor.
ERROR_SAFETY = 3.0


# -- instance quantities -----------------------------------------------------------------
def _off_diagonal_gram(problem: Problem) -> float:
    # raw dot products first, then the norms: exactly orthogonal data (an exact zero in
    # X X^T, as the two-point example's) stay exactly 0 instead of a rounding residue
    norms = np.linalg.norm(problem.X, axis=1)
    G = np.abs(problem.X @ problem.X.T) / np.outer(norms, norms)
    np.fill_diagonal(G, 0.0)
    return float(G.max()) if problem.n > 1 else 0.0


class Detailed(float):
    """An instance quantity with a line that says where it comes from (the neuron that
    breaks a balance, by how much): an assumption that fails on it quotes the line."""

    detail: str = ""

    def __new__(cls, value: float, detail: str = "") -> Detailed:
        out = super().__new__(cls, value)
        out.detail = detail
        return out


def rounding_of(problem: Problem) -> float:
    """The relative rounding of a formula of the instance's numbers: `ROUNDOFF_ULPS` units
    of the precision they were given in (`Problem.unit_roundoff`: a float32 record's
    balance holds to float32's rounding, not float64's)."""
    return ROUNDOFF_ULPS * 2.0 * problem.unit_roundoff


def _init_imbalance(problem: Problem) -> float:
    a_sq = problem.a0**2 if problem.a0.ndim == 1 else np.sum(problem.a0**2, axis=1)
    sq = a_sq + np.sum(problem.W0**2, axis=1)
    c = a_sq - np.sum(problem.W0**2, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(sq > 0, np.abs(c) / sq, 0.0)
    # relative imbalance below the rounding of the numbers and the norms counts as 0
    floor = rounding_of(problem)
    j = int(np.argmax(rel))
    detail = (f"neuron {j}: |a_j|^2 - |w_j|^2 = {c[j]:.3g}, {rel[j]:.2g} of |a_j|^2 + "
              f"|w_j|^2, above the rounding {floor:.2g}")
    rel = np.where(rel <= floor, 0.0, rel)
    return Detailed(float(rel.max()), detail if rel.max() > 0 else "")


class UndefinedQuantity(KeyError):
    """The quantity is not defined for this Problem (e.g. lam without an init scale)."""


def _init_scale(problem: Problem) -> float:
    if problem.init_scale is None:
        raise UndefinedQuantity("lam (the Problem records no init_scale)")
    return float(problem.init_scale)


def _c_init(problem: Problem) -> float:
    return float(np.max(np.linalg.norm(problem.W0, axis=1)) / _init_scale(problem))


class QuantityTable(dict):
    """A table name -> measurement that adds the packs' quantities on its first read
    (`_merge_pack_quantities`), not when this module is imported: a pack's measures module
    imports this one, and may be imported first."""


def _merging_first(name: str):
    read = getattr(dict, name)

    def method(self, *args):
        _merge_pack_quantities()
        return read(self, *args)

    method.__name__ = name
    return method


for _read in ("__getitem__", "__contains__", "__iter__", "__len__", "get", "keys", "values",
              "items"):
    setattr(QuantityTable, _read, _merging_first(_read))


INSTANCE_QUANTITIES: dict[str, Callable[[Problem], float]] = QuantityTable({
    "n": lambda pr: float(pr.n),
    "d": lambda pr: float(pr.d),
    "p": lambda pr: float(pr.p),
    "kappa": lambda pr: pr.flow_factor,
    "OffDiagGram": _off_diagonal_gram,
    "MinAbsY": lambda pr: float(np.min(np.abs(pr.y))),
    "InitImbalance": _init_imbalance,
    "n_plus": lambda pr: float(np.sum(pr.y > 0)),
    "n_minus": lambda pr: float(np.sum(pr.y < 0)),
    "lam": _init_scale,
    "c_init": _c_init,
})


class InstanceValues(Mapping):
    """The instance quantities of one Problem, computed when first asked for.

    ``name in values`` is False for a quantity the Problem does not define.
    """

    def __init__(self, problem: Problem):
        self.problem = problem
        self._cache: dict[str, float] = {}

    def __getitem__(self, name: str) -> float:
        if name not in self._cache:
            try:
                fn = INSTANCE_QUANTITIES[name]
            except KeyError:
                raise UndefinedQuantity(f"no instance quantity {name!r}") from None
            self._cache[name] = fn(self.problem)
        return self._cache[name]

    def __contains__(self, name) -> bool:
        try:
            self[name]
        except UndefinedQuantity:
            return False
        return True

    def __iter__(self):
        return (name for name in INSTANCE_QUANTITIES if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


# Probabilities over an ensemble of instances: name -> the indicator whose frequency
# estimates it (used by PROBABILITY claims on a verify.engine.evidence.Sample).
ENSEMBLE_QUANTITIES: dict[str, Callable[[Problem], bool]] = QuantityTable({})

# Run scalars a limit defines (t -> infinity: LossInf, MuInf, ...): name -> the estimate of
# it read off one run, f(Trajectory) -> verify.engine.evidence.Estimate (its value at the end of the
# run, with an error that counts how much it still moves there; a ValueError when the run
# cannot give it). A pack's measures module defines them in a LIMITS dict; `gfverify check
# --run` reads a converged record's limit this way.
LIMIT_QUANTITIES: dict[str, Callable] = QuantityTable({})


def instance_values(problem: Problem) -> InstanceValues:
    """Every instance quantity of the vocabulary that this Problem defines (lazily)."""
    return InstanceValues(problem)


# -- trajectory quantities ---------------------------------------------------------------
@dataclass(frozen=True)
class Series:
    """A measured quantity over the saved times, with its error floor.

    A pack's trajectory measure returns one (``f(trajectory) -> Series``); `verify.check`
    adds the difference to the run's companion to ``roundoff`` and decides INCONCLUSIVE
    when a margin is within the sum.

    Attributes
    ----------
    values
        The quantity at each saved time of the run (an array of the run's length).
    roundoff
        Its error floor at each saved time, in the quantity's units (absolute): a bound on
        the error the quantity inherits from (a) rounding in its formula and (b) the
        state's own estimated relative error at that time (`state_relative_error`: the
        running maximum of the per-neuron companion difference), propagated to first
        order through the quantity's dependence on the weights, or, for quantities of the
        outputs, the outputs' own error (`output_error`, which keeps the method's nominal
        accuracy as a floor). (b) covers a quantity whose own companion difference
        cancels at a saved time while the state's does not. For a quantity homogeneous in
        the weights it is ``relative_floor(tr, degree) * abs(values)`` (`relative_floor`).
    rounding
        The part of ``roundoff`` that no float64 run can remove, per saved time: the
        formula's own rounding at an exactly known state. A margin within the rounding of
        its relation is below float64's resolution (`verify.engine.check_run` names such times
        instead of counting them undecided). None (the default): not known (such times
        are never called unresolvable, only undecided).
    own_error
        Where given, a second total error estimate per saved time that needs no companion
        difference of the quantity (a conserved quantity's: ERROR_SAFETY x the larger of
        its drifts in the run and the companion, each of which is that run's own error
        when the flow conserves it, and which exceed the true drift otherwise); a check
        takes the smaller of the two estimates, time by time. None (the default): none.
    increment
        Where given, ``increment(k)`` is the Series of F(t) - F(t_k) computed directly
        (not as the difference of two rounded values), with its own error: on a plateau
        L(t) - L(0) is resolved long after L(t) and L(0) agree to the last bit. None (the
        default): F(t) - F(t_k) is only the difference of two entries of ``values``. Not
        compared by ``==``.
    """

    values: np.ndarray
    roundoff: np.ndarray
    rounding: np.ndarray | None = None
    own_error: np.ndarray | None = None
    increment: Callable[[int], Series] | None = field(default=None, compare=False)


ROUNDING = ROUNDOFF_ULPS * FLOAT_EPS  # relative rounding of a formula of the weights


def state_relative_error(tr: Trajectory) -> np.ndarray:
    """Relative error of each neuron's (w_j, a_j), per saved time: ERROR_SAFETY x the running
    maximum of `Trajectory.state_error` (the per-neuron relative difference to the companion
    run; an envelope, since that difference fluctuates and can cancel at single times while
    the error accumulates).

    The method's nominal accuracy (`Trajectory.nominal_error`, rtol x accepted steps) is not
    added: it bounds a worst case in which every step's local error adds up in one
    direction, and was 10^3-10^4 times the error measured against runs 1,000 times more
    accurate (`tests/verify/engine/test_error_estimates.py`), so that statements that hold with
    room came back undecided."""
    envelope = np.maximum.accumulate(tr.state_error) if len(tr.t) else tr.state_error
    if tr.problem.train != "both" and tr.method == "exact_flow":
        # A frozen layer: on tests/verify/engine/test_error_estimates.py's instance the runs at
        # rtol 1e-8, 1e-9 and 1e-10 shared an error of 1.3e-12 (relative) that the runs at
        # 1e-11 to 1e-13 did not have, so the companion difference saw 2.5e-14 (true /
        # estimate up to 5.7); the cause (a discrete decision at an event, taken alike by
        # the run and its companion, is the likeliest) is not found. Until it is, the
        # exact flow's tolerance is a floor of such a run's state error.
        envelope = np.maximum(envelope, float(tr.options.get("rtol", 0.0)))
    return ERROR_SAFETY * envelope


def relative_floor(tr: Trajectory, degree: float) -> np.ndarray:
    """Relative error floor, per saved time, of a quantity homogeneous of ``degree`` in a
    neuron's weights: rounding plus ``degree`` times the state's relative error
    (`state_relative_error`). Times the quantity's magnitude (``abs(values)``), it is such
    a quantity's `Series.roundoff`."""
    return ROUNDING + degree * state_relative_error(tr)


def _degree(tr: Trajectory) -> float:
    """k, the degree of homogeneity of the run's activation (1 for ReLU and leaky ReLU)."""
    return float(tr.problem.activation.degree)


def output_magnitude(tr: Trajectory) -> np.ndarray:
    """max_i of s |x_i| sum_j |theta_j| (|a_j| + |w_j|), per saved time (s the output
    factor): a relative error rho of every neuron's theta_j = (w_j, a_j) moves each output
    h(x_i) by at most rho times this (relu and leaky relu are 1-Lipschitz, so a kink adds
    nothing). For a k-homogeneous activation (|sigma(z)| <= |z|^k, |sigma'(z)| <= k |z|^(k-1))
    the factor |x_i| (|a_j| + |w_j|) is |x_i|^k |w_j|^(k-1) (|w_j| + k |a_j|)."""
    norms = tr.neuron_norms
    # |a_j| (the norm of a vector output's a_j)
    a_abs = np.abs(tr.a) if tr.a.ndim == 2 else np.linalg.norm(tr.a, axis=-1)
    theta = np.sqrt(tr.output_norms_sq + norms**2)
    x_max = float(np.max(np.linalg.norm(tr.problem.X, axis=1)))
    k = _degree(tr)
    if k == 1.0:
        return tr.problem.output_factor * x_max * np.sum(theta * (a_abs + norms), axis=-1)
    per = x_max**k * norms ** (k - 1.0) * (norms + k * np.abs(tr.a))
    return tr.problem.output_factor * np.sum(theta * per, axis=-1)


def output_error(tr: Trajectory, labels: bool = True) -> np.ndarray:
    """Error floor of the outputs h(x_i) (``labels``: of the residuals y_i - h(x_i), whose
    rounding also scales with ``|y_i|``), per time: ERROR_SAFETY x the largest difference of an
    output between the run and its companion, over the saved time and its two neighbours
    on each side (the difference can cancel at single times), plus rounding.

    Not the state's relative error through `output_magnitude`: near a minimum the flow
    contracts the error across the outputs while the error along the set of minima does
    not move them, so that propagation exceeded the outputs' true error by 10^6-10^8 late
    in a run (`tests/verify/engine/test_error_estimates.py`), and every relation of a residual
    (the loss, the PL ratio) came back undecided there."""
    comp = tr.companion
    if comp is None or len(comp.t) != len(tr.t):
        return np.full(len(tr.t), np.inf)
    with np.errstate(invalid="ignore"):
        gap = np.abs(tr.outputs - comp.outputs)
        diff = np.max(gap.reshape(len(gap), -1), axis=-1)
    diff = np.where(np.isnan(diff), np.inf, diff)
    # near convergence the run's and the companion's errors in the outputs are of one size
    # (both at the integrator's noise floor, which a looser tolerance does not raise ten
    # times): the method's nominal accuracy through the outputs stays as a floor there
    nominal = tr.nominal_error * output_magnitude(tr)
    return ERROR_SAFETY * _local_max(diff, 2) + nominal + output_rounding(tr, labels)


def _local_max(x: np.ndarray, radius: int) -> np.ndarray:
    """max of ``x`` over each index and ``radius`` neighbours on each side."""
    if x.size == 0:
        return x
    padded = np.pad(x, radius, mode="edge")
    return np.lib.stride_tricks.sliding_window_view(padded, 2 * radius + 1).max(axis=-1)


def output_rounding(tr: Trajectory, labels: bool = True) -> np.ndarray:
    """The rounding part of `output_error` (at an exactly known state)."""
    h = np.abs(tr.outputs)
    mag = output_magnitude(tr) + np.max(h.reshape(len(h), -1), axis=-1)
    if labels and not tr.problem.vector_output:  # a vector output's labels are class indices
        mag = mag + np.max(np.abs(tr.problem.y))
    return ROUNDING * mag


def _loss_error(tr: Trajectory, e_h: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """The loss's error when every output is known to within ``e_h``: first order through
    |dL/dh_i| (second order for the square loss; for the exponential and logistic losses
    |d^2 L/dh_i^2| <= |dL/dh_i| e^{e_h} bounds the rest), plus the loss's own rounding."""
    pr = tr.problem
    if pr.loss == "square":
        r = np.max(np.abs(tr.residuals), axis=-1)
        return pr.loss_scale * e_h * (2 * r + e_h) + ROUNDING * loss
    from numerics import network

    if pr.loss == "cross_entropy":
        # L_i(h + delta) - L_i(h) = <g_i, delta> + delta^T H delta / 2 with H = c (diag(q) -
        # q q^T) at some softmax q on the segment: delta^T H delta <= c sum_k q_k delta_k^2
        # <= c e_h^2, whatever q (each |delta_k| <= e_h)
        g = np.sum(np.abs(network.loss_derivative(pr, tr.outputs)), axis=(-2, -1))
        return g * e_h + 0.5 * pr.loss_scale * pr.n * e_h**2 + ROUNDING * loss

    g = np.sum(np.abs(network.loss_derivative(pr, tr.outputs)), axis=-1)
    with np.errstate(over="ignore"):
        return g * e_h * (1 + e_h * np.exp(np.minimum(e_h, 700.0))) + ROUNDING * loss


def _loss(tr: Trajectory) -> Series:
    e_h, r_h = output_error(tr), output_rounding(tr)
    return Series(tr.loss, _loss_error(tr, e_h, tr.loss), _loss_error(tr, r_h, tr.loss),
                  increment=lambda k: _loss_increment(tr, k))


def _loss_increment(tr: Trajectory, k: int) -> Series:
    """L(t) - L(t_k) from the outputs' own differences (h_i(t) - h_i(t_k) is resolved while
    the outputs are far below the labels, where L(t) and L(t_k) agree to the last bit)."""
    pr = tr.problem
    h, h0 = tr.outputs, tr.outputs[k]
    dh = h - h0
    y = pr.y
    if pr.vector_output:
        return _cross_entropy_increment(tr, k)
    if pr.loss == "square":
        # (1/2n) sum (y - h)^2 - (y - h0)^2 = (1/2n) sum dh (dh - 2 (y - h0))
        terms = dh * (dh - 2.0 * (y - h0))
        values = pr.loss_scale * 0.5 * np.mean(terms, axis=-1)
        size = pr.loss_scale * 0.5 * np.mean(np.abs(dh) * (np.abs(dh) + 2 * np.abs(y - h0)),
                                             axis=-1)
    else:
        m0, dm = y * h0, y * dh
        if pr.loss == "exponential":  # e^{-m0 - dm} - e^{-m0} = e^{-m0} expm1(-dm)
            terms = np.exp(-m0) * np.expm1(-dm)
        else:  # log(1 + e^{-m}) at m0 + dm minus at m0
            terms = np.log1p(np.exp(-np.logaddexp(0.0, m0)) * np.expm1(-dm))
        values = pr.loss_scale * np.sum(terms, axis=-1)
        size = pr.loss_scale * np.sum(np.abs(terms), axis=-1)
    from numerics import network

    # each end's outputs move by the state's error there (the state at t_k is the run's
    # own, with its own error), through that end's |dL/dh_i|, plus the loss's curvature
    # times the error squared (square: loss_scale/(2n) per sample; exponential and
    # logistic: at most |dL/dh_i| |y_i| e^{|y_i| e})
    mag, rel = output_magnitude(tr), state_relative_error(tr)
    g_t = np.abs(network.loss_derivative(pr, h))
    g_k = np.abs(network.loss_derivative(pr, h0))
    e_t, e_k = rel * mag, rel[k] * mag[k]
    r_t = ROUNDING * (mag + np.max(np.abs(h), axis=-1))
    r_k = ROUNDING * (mag[k] + np.max(np.abs(h0)))

    def through(e_now, e_then):
        with np.errstate(over="ignore", invalid="ignore"):
            if pr.loss == "square":
                second = pr.loss_scale * 0.5 * (e_now**2 + e_then**2)
            else:
                ay = np.abs(y)
                second = 0.5 * (np.sum(g_t * ay * np.exp(np.minimum(ay * e_now[:, None],
                                                                     700.0)), axis=-1)
                                * e_now**2
                                + np.sum(g_k * ay * np.exp(np.minimum(ay * e_then, 700.0)))
                                * e_then**2)
            return np.sum(g_t, axis=-1) * e_now + np.sum(g_k) * e_then + second

    rounding = through(r_t, r_k) + ROUNDING * size
    error = through(e_t, e_k) + rounding
    return Series(values, np.where(np.isnan(error), np.inf, error), rounding)


def _cross_entropy_increment(tr: Trajectory, k: int) -> Series:
    """`_loss_increment` for the cross-entropy: per sample, log sum_c q_c e^{dh_c} - dh_y
    with q the softmax at t_k (= log1p(sum_c q_c expm1(dh_c)) - dh_y, resolved when the
    outputs barely move); the error as the loss's own (`_loss_error`) at both ends."""
    from numerics import network

    pr = tr.problem
    h, h0 = tr.outputs, tr.outputs[k]
    dh = h - h0
    q = np.exp(network.log_softmax(h0))
    picked = np.take_along_axis(dh, np.broadcast_to(pr.y.astype(int)[:, None],
                                                    dh.shape[:-1] + (1,)), axis=-1)[..., 0]
    terms = np.log1p(np.sum(q * np.expm1(dh), axis=-1)) - picked
    values = pr.loss_scale * np.sum(terms, axis=-1)
    size = pr.loss_scale * np.sum(np.abs(terms), axis=-1)
    mag, rel = output_magnitude(tr), state_relative_error(tr)
    e_t, e_k = rel * mag, rel[k] * mag[k]
    loss = tr.loss
    g_k = float(np.sum(np.abs(network.loss_derivative(pr, h0))))
    at_k = g_k * e_k + 0.5 * pr.loss_scale * pr.n * e_k**2 + ROUNDING * loss[k]
    error = _loss_error(tr, e_t, loss) + at_k + ROUNDING * size
    return Series(values, np.where(np.isnan(error), np.inf, error), ROUNDING * (size + loss))


def loss_curvature(tr: Trajectory) -> np.ndarray:
    """Per time and sample, a bound on |d(dL/dh_i)/dh_i| over outputs within their error:
    loss_scale/n for the square loss; |dL/dh_i| |y_i| e^{|y_i| e_h} for the exponential and
    logistic losses (whose second derivative is at most the first times |y_i|)."""
    from numerics import network

    pr = tr.problem
    if pr.loss == "square":
        return np.full(tr.outputs.shape, pr.loss_scale / pr.n)
    e_h = output_error(tr)[:, None]
    g = np.abs(network.loss_derivative(pr, tr.outputs))
    with np.errstate(over="ignore", invalid="ignore"):
        return g * np.abs(pr.y) * np.exp(np.minimum(np.abs(pr.y) * e_h, 700.0))


def output_gradient_bound(tr: Trajectory) -> np.ndarray:
    """Per time, a bound on |grad_theta h(x_i)| over the samples: s |x_i| (sum_j |theta_j|^2)^(1/2)
    (d h/d a_j = s relu(<w_j, x_i>), d h/d w_j = s a_j 1{...} x_i); for a k-homogeneous
    activation s |x_i|^k (sum_j |w_j|^(2k - 2) (|w_j|^2 + k^2 a_j^2))^(1/2)."""
    x_max = float(np.max(np.linalg.norm(tr.problem.X, axis=1)))
    k = _degree(tr)
    if k == 1.0:
        theta_sq = np.sum(tr.a**2 + tr.neuron_norms**2, axis=-1)
        return tr.problem.output_factor * x_max * np.sqrt(theta_sq)
    norms = tr.neuron_norms
    sq = np.sum(norms ** (2 * k - 2) * (norms**2 + k**2 * tr.a**2), axis=-1)
    return tr.problem.output_factor * x_max**k * np.sqrt(sq)


def velocity_error(tr: Trajectory) -> np.ndarray:
    """Per time, a bound on the error of the velocity dtheta/dt = -kappa sum_i g_i grad h(x_i)
    (g_i = dL/dh_i): each g_i moves by at most its curvature times the outputs' error
    (`output_error`), each grad h(x_i) by the state's relative error; a small gradient made
    of large cancelling terms (a saddle) keeps the absolute error of its terms.

    With the run's own activation pattern: the side of a pair within round-off of its
    surface is the event handling's (crossings located to a few ulps, a pair at rest on
    its surface moving with its Filippov alpha, which is continuous in the state), not a
    jump this bound counts. Bounding every such pair by its mask's jump made the PL ratio
    unknown wherever a neuron had died on a sample (z_ij ~ -1e-23 at rest on z = 0), while
    the estimate without it was never exceeded by the true error
    (`tests/verify/engine/test_error_estimates.py`, sliding runs included)."""
    from numerics import network

    G = output_gradient_bound(tr)
    dg = np.sum(loss_curvature(tr), axis=-1) * output_error(tr)
    g = np.sum(np.abs(network.loss_derivative(tr.problem, tr.outputs)), axis=-1)
    k = _degree(tr)  # grad h is k-homogeneous in theta_j: a relative rho moves it by k rho
    rho = state_relative_error(tr) if k == 1.0 else k * state_relative_error(tr)
    with np.errstate(invalid="ignore"):
        out = tr.problem.flow_factor * G * (dg + rho * g)
    return np.where(np.isnan(out), np.inf, out)


def neuron_velocity_error(tr: Trajectory) -> np.ndarray:
    """Per time and neuron, a bound on the error of (dw_j/dt, da_j/dt): the loss derivative's
    error through |grad_{theta_j} h(x_i)| <= s |x_i| (|a_j| + |w_j|), and the neuron's own
    relative error through its velocity (shape (T, p)); for a k-homogeneous activation the
    gradient bound of `output_magnitude` and k times the relative error."""
    x_max = float(np.max(np.linalg.norm(tr.problem.X, axis=1)))
    dg = np.sum(loss_curvature(tr), axis=-1) * output_error(tr)
    vW, va = tr.velocity
    speed_j = np.sqrt(np.sum(vW**2, axis=-1) + va**2)
    pr = tr.problem
    k = _degree(tr)
    with np.errstate(invalid="ignore"):
        if k == 1.0:
            out = (pr.flow_factor * pr.output_factor * x_max * (np.abs(tr.a) + tr.neuron_norms)
                   * dg[:, None] + state_relative_error(tr)[:, None] * speed_j)
        else:  # |grad_{theta_j} h| <= |x|^k |w_j|^(k-1) (|w_j| + k |a_j|), k-homogeneous
            norms = tr.neuron_norms
            grad_h = x_max**k * norms ** (k - 1.0) * (norms + k * np.abs(tr.a))
            out = (pr.flow_factor * pr.output_factor * grad_h * dg[:, None]
                   + k * state_relative_error(tr)[:, None] * speed_j)
    return np.where(np.isnan(out), np.inf, out)


def velocity_rounding(tr: Trajectory) -> np.ndarray:
    """The rounding part of `velocity_error` (an exactly known state)."""
    from numerics import network

    G = output_gradient_bound(tr)
    dg = np.sum(loss_curvature(tr), axis=-1) * output_rounding(tr)
    g = np.sum(np.abs(network.loss_derivative(tr.problem, tr.outputs)), axis=-1)
    return tr.problem.flow_factor * G * (dg + ROUNDING * g)


def _squared_speed(tr: Trajectory) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """|dtheta/dt|^2 per time, its error and its rounding: 2 |v| dv + dv^2."""
    vW, va = tr.velocity
    speed = np.sqrt(np.sum(vW**2, axis=(-2, -1)) + np.sum(va**2, axis=-1))
    dv, rv = velocity_error(tr), velocity_rounding(tr)
    with np.errstate(invalid="ignore", over="ignore"):
        return speed**2, 2 * speed * dv + dv**2, 2 * speed * rv + rv**2


def _pl(tr: Trajectory) -> Series:
    """PL = |dtheta/dt|^2 / (kappa L): the squared speed's error (`velocity_error`) over
    kappa L, plus the PL times the loss's relative error."""
    loss = _loss(tr)
    sq, e_sq, r_sq = _squared_speed(tr)
    kL = tr.problem.flow_factor * tr.loss
    pl = np.abs(tr.pl)
    with np.errstate(divide="ignore", invalid="ignore"):
        # |v|^2 / (kappa L) with |v|^2 within e_sq and L within eL: at most
        # (|v|^2 + e_sq) / (kappa (L - eL)), so the error is (e_sq/kL + PL eL/L)/(1 - eL/L)
        # (unknown when the loss is not known to be positive)
        shrink = 1.0 - loss.roundoff / tr.loss
        error = np.where((kL > 0) & (shrink > 0),
                         (e_sq / kL + pl * loss.roundoff / tr.loss) / shrink, np.inf)
        shrink_r = 1.0 - loss.rounding / tr.loss
        rounding = np.where((kL > 0) & (shrink_r > 0),
                            (r_sq / kL + pl * loss.rounding / tr.loss) / shrink_r, np.inf)
    return Series(tr.pl, np.where(np.isnan(error), np.inf, error),
                  np.where(np.isnan(rounding), np.inf, rounding))


def relative_series(tr: Trajectory, values: np.ndarray, degree: float) -> Series:
    with np.errstate(invalid="ignore"):  # 0 x an unknown (inf) floor: unknown, not nan
        error = relative_floor(tr, degree) * np.abs(values)
    return Series(values, np.where(np.isnan(error), np.inf, error), ROUNDING * np.abs(values))


def _square_norms(tr: Trajectory) -> np.ndarray:
    return tr.output_norms_sq + tr.neuron_norms**2  # (T, p)


def _drift(tr: Trajectory, c: np.ndarray) -> Series:
    """max_j |c_j(t) - c_j(0)| of a per-neuron quadratic c_j of the weights: its error is
    the state's relative error through |grad c_j| (a^2 + |w|^2 at t and at 0, the state at 0
    being exact), its rounding that of both sides."""
    drift = np.max(np.abs(c - c[0]), axis=-1)
    sq = _square_norms(tr)
    rel = state_relative_error(tr)
    return Series(drift, np.max(2 * rel[:, None] * sq + ROUNDING * (sq + sq[0]), axis=-1),
                  ROUNDING * np.max(sq + sq[0], axis=-1))


def _balance(tr: Trajectory) -> Series:
    """The drift of c_j = a_j^2 - |w_j|^2, conserved by the flow (CF-2). Its own error: the
    drifts of the run and of its companion, each that run's integration error when c_j is
    conserved (an integrator moves a conserved quadratic far less than it misplaces the
    state along the flow), and at least the true drift's own size when it is not, unless
    the run's and the companion's errors both cancel the true drift (runs at tolerances
    ten times apart). At least 3x the measured drift, so this estimate alone never shows a
    violation: the companion-difference estimate, which a check also computes, does."""
    own = _drift(tr, tr.balancedness)
    comp = tr.companion
    if comp is None or len(comp.t) != len(tr.t):
        return own
    other = np.max(np.abs(comp.balancedness - comp.balancedness[0]), axis=-1)
    own_error = ERROR_SAFETY * np.maximum(own.values, other) + own.rounding
    return replace(own, own_error=own_error)


def _norm_sum_drift(tr: Trajectory) -> Series:
    return _drift(tr, _square_norms(tr))


def _sign_flips(tr: Trajectory) -> Series:
    flips = np.sum(np.sign(tr.a) != np.sign(tr.a[0]), axis=-1).astype(float)
    return Series(flips, np.zeros_like(flips))


TRAJECTORY_QUANTITIES: dict[str, Callable[[Trajectory], Series]] = QuantityTable({
    "L": _loss,
    "PL": _pl,
    "R": lambda tr: Series(np.max(np.abs(tr.residuals), axis=-1), output_error(tr),
                           output_rounding(tr)),
    "NormW": lambda tr: relative_series(tr, np.max(tr.neuron_norms, axis=-1), 1.0),
    "Balance": _balance,
    "NormSumDrift": _norm_sum_drift,
    "SignFlips": _sign_flips,
})


def measure(tr: Trajectory, name: str) -> Series:
    """``name`` measured on ``tr``. Floating-point warnings are off: on a companion run
    (which has no companion of its own) every error floor is infinite and inf x 0 occurs;
    a check reads only a companion's values, and a non-finite value of a run is judged by
    the check itself (INCONCLUSIVE)."""
    try:
        fn = TRAJECTORY_QUANTITIES[name]
    except KeyError:
        raise UnknownQuantity(
            f"no measurement for trajectory quantity {name!r}; "
            f"measurable: {', '.join(sorted(TRAJECTORY_QUANTITIES))}"
        ) from None
    if tr.problem.vector_output and (name in SCALAR_OUTPUT_ONLY or name in _PACK_SCALAR_ONLY):
        raise UndefinedQuantity(f"{name}(t) on a vector output (the cross-entropy): it is "
                                "defined for a scalar output only")
    with np.errstate(all="ignore"):
        return fn(tr)


# built-in quantities defined (or with an error bound) for a scalar output only: on a
# vector output's run (the cross-entropy) a claim that needs one is INAPPLICABLE
SCALAR_OUTPUT_ONLY = frozenset({"R", "PL", "GradNormSq", "SignFlips", "MinFitRatio", "MaxAbsH"})


# -- rate statistics of a loss curve (per step of gradient descent) -----------------------
def terminal_rate(step_loss: np.ndarray, lr: float, window: int = 100) -> float:
    """mu(t_inf): 2 mean_k (L_{k-1} - L_k) / (L_{k-1} + L_k) over the last ``window`` steps,
    per unit time (divided by lr). NaN with fewer than 2 steps."""
    L = np.asarray(step_loss, dtype=float)[-(window + 1):]
    if len(L) < 2:
        return float("nan")
    return float(2.0 * np.mean((L[:-1] - L[1:]) / (L[:-1] + L[1:])) / lr)


def average_rate(step_loss: np.ndarray, lr: float) -> float:
    """<mu_inf>: ln(L_0 / L_end) / (steps * lr). NaN with no step."""
    L = np.asarray(step_loss, dtype=float)
    if len(L) < 2 or not (L[0] > 0 and L[-1] > 0):
        return float("nan")
    return float(np.log(L[0] / L[-1]) / ((len(L) - 1) * lr))


# -- per-pack quantities -------------------------------------------------------------------
# Each pack's measures module (theory.packs: the built-in papers' papers.*.measures, and
# any installed pack's) defines TRAJECTORY, INSTANCE and ENSEMBLE dicts (and optionally
# LIMITS) with the contracts of the tables above (and may use the helpers above); they are
# merged on first read.
_MERGED: list[bool] = []  # set once the packs' quantities are in the tables
_DEFAULTS: set[str] = set()  # conjecture-vocabulary names a pack may define instead
# A pack's trajectory quantities are measured on scalar-output runs only unless its measures
# module lists them in VECTOR_OUTPUT (a set of names): on a vector output's run the others
# are undefined (a claim that needs one is INAPPLICABLE), never a crash.
_PACK_SCALAR_ONLY: set[str] = set()


def _merge_pack_quantities() -> None:
    if _MERGED:
        return
    _MERGED.append(True)
    from theory import packs

    for pack, mod in packs.modules("measures"):
        for table, extra in ((TRAJECTORY_QUANTITIES, getattr(mod, "TRAJECTORY", {})),
                             (INSTANCE_QUANTITIES, getattr(mod, "INSTANCE", {})),
                             (ENSEMBLE_QUANTITIES, getattr(mod, "ENSEMBLE", {})),
                             (LIMIT_QUANTITIES, getattr(mod, "LIMITS", {}))):
            clash = {k for k in extra if dict.__contains__(table, k) and k not in _DEFAULTS}
            if clash:
                raise packs.PackError(f"pack {pack.name!r} ({mod.__name__}) redefines "
                                      f"quantities {sorted(clash)}")
            dict.update(table, extra)
        vector = set(getattr(mod, "VECTOR_OUTPUT", ()))
        _PACK_SCALAR_ONLY.update(set(getattr(mod, "TRAJECTORY", {})) - vector)


# -- vocabulary quantities for conjectures (``gfverify conjecture``) -----------------------
# Defined here only where no paper module above already defines the name (theirs win).
def _energies(tr: Trajectory, reduce) -> Series:
    """min_i or max_i of E_i(t) = s sum_j 1{<w_j, x_i> > 0} a_j^2, s the Problem's output
    factor (1/p mean-field, 1 standard). A change of activation pattern between the run and
    its companion shows in their difference; the floor covers the weights' own error."""
    return relative_series(tr, reduce(tr.energies, axis=-1), 2.0)


def _min_fit_ratio(tr: Trajectory) -> Series:
    y = np.abs(tr.problem.y)
    return Series(np.min(np.abs(tr.outputs) / y, axis=-1), output_error(tr, False) / y.min(),
                  output_rounding(tr, False) / y.min())


def _grad_norm_sq(tr: Trajectory) -> Series:
    """|grad L|^2 = |dtheta/dt|^2 / kappa^2, with the squared speed's error."""
    sq, e_sq, r_sq = _squared_speed(tr)
    k2 = tr.problem.flow_factor ** 2
    return Series(sq / k2, e_sq / k2, r_sq / k2)


def _param_drift(tr: Trajectory) -> Series:
    dW, da = tr.W - tr.problem.W0, tr.a - tr.problem.a0
    over_a = tuple(range(1, da.ndim))  # (p,) or, for a vector output, (p, K) per time
    values = np.sqrt(np.sum(dW**2, axis=(-2, -1)) + np.sum(da**2, axis=over_a))
    size = np.sqrt(np.sum(tr.W**2, axis=(-2, -1)) + np.sum(tr.a**2, axis=over_a))
    return Series(values, relative_floor(tr, 1.0) * size)


def _separation(pr: Problem) -> float:
    Z = pr.y[:, None] * pr.X / np.linalg.norm(pr.X, axis=1, keepdims=True)
    return float(np.min(Z @ Z.T))


def _good_init(pr: Problem) -> float:
    good = ((pr.W0 @ pr.X.T) > 0) & ((pr.a0[:, None] * pr.y[None, :]) > 0)
    return float(np.all(good.any(axis=0)))


_CONJECTURE_TRAJECTORY: dict[str, Callable[[Trajectory], Series]] = {
    "Emin": lambda tr: _energies(tr, np.min),
    "Emax": lambda tr: _energies(tr, np.max),
    # a ratio of two degree-2 quantities: their relative errors add
    "StableRank": lambda tr: relative_series(tr, tr.stable_rank, 4.0),
    "MinFitRatio": _min_fit_ratio,
    "MaxAbsH": lambda tr: Series(np.max(np.abs(tr.outputs).reshape(len(tr.t), -1), axis=-1),
                                 output_error(tr, False),
                                 output_rounding(tr, False)),
    "GradNormSq": _grad_norm_sq,
    "NormWFrobSq": lambda tr: relative_series(tr, np.sum(tr.W**2, axis=(-2, -1)), 2.0),
    "NormWSpecSq": lambda tr: relative_series(
        tr, np.linalg.svd(tr.W, compute_uv=False)[..., 0] ** 2, 2.0),
    "ParamDrift": _param_drift,
}
_CONJECTURE_INSTANCE: dict[str, Callable[[Problem], float]] = {
    "mu": _separation,
    "Xmin": lambda pr: float(np.linalg.norm(pr.X, axis=1).min()),
    "Xmax": lambda pr: float(np.linalg.norm(pr.X, axis=1).max()),
    "Cy_plus": lambda pr: float(np.abs(pr.y).max()),
    "n_plus": lambda pr: float(np.sum(pr.y > 0)),
    "n_minus": lambda pr: float(np.sum(pr.y < 0)),
    "MinInitBalance": lambda pr: float(np.min(pr.a0**2 - np.sum(pr.W0**2, axis=1))),
    "LossScale": lambda pr: float(pr.loss_scale),
    "GoodInit": _good_init,
}
# (the packs' quantities are merged later, on first read, and replace these)
for _table, _extra in ((TRAJECTORY_QUANTITIES, _CONJECTURE_TRAJECTORY),
                       (INSTANCE_QUANTITIES, _CONJECTURE_INSTANCE)):
    for _name, _fn in _extra.items():
        if not dict.__contains__(_table, _name):
            dict.__setitem__(_table, _name, _fn)
            _DEFAULTS.add(_name)
