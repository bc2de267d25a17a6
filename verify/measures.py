"""Numbers for the vocabulary: each `theory.symbols` name measured on a Problem or run.

Instance quantities are floats computed from the Problem. Trajectory quantities
are arrays over the saved times, each with a round-off magnitude: the size of
the floating-point error the formula itself can make (independent of the
integration error, which the companion run measures).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from numerics import Problem, Trajectory

FLOAT_EPS = float(np.finfo(np.float64).eps)
# Rounding accumulated by sums over p neurons and n samples and by the state
# itself: a few hundred ulps of the magnitudes involved. Round-off is a floor
# under the error estimate, never a substitute for it.
ROUNDOFF_ULPS = 256.0
# Error estimates from a companion run can vanish by coincidence (the two runs'
# errors cancel at one time); every such estimate is multiplied by this factor.
ERROR_SAFETY = 3.0


class UnknownQuantity(KeyError):
    pass


# -- instance quantities -----------------------------------------------------------------
def key_neuron_sets(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """S002's S_{+,1} and S_{-,1} (indices), from the initial weights."""
    Z0 = problem.W0 @ problem.X.T  # (p, n)
    pos, neg = problem.y > 0, problem.y < 0
    s_plus = (problem.a0 > 0) & np.all(Z0[:, pos] >= 0, axis=1)
    s_minus = (problem.a0 < 0) & np.all(Z0[:, neg] >= 0, axis=1)
    return np.flatnonzero(s_plus), np.flatnonzero(s_minus)


def d_vectors(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """D_+ = (1/n) sum_{y_k>0} y_k x_k and D_- = (1/n) sum_{y_k<0} y_k x_k."""
    y, X = problem.y, problem.X
    return (y * (y > 0)) @ X / problem.n, (y * (y < 0)) @ X / problem.n


def growth_ratio_out(problem: Problem) -> float:
    """max_{j not in S_{+,1}} ||D_{A_j}|| / ||D_+|| (see the vocabulary's GrowthRatioOut)."""
    s_plus, _ = key_neuron_sets(problem)
    others = np.setdiff1d(np.arange(problem.p), s_plus)
    Dp, _ = d_vectors(problem)
    norm_plus = float(np.linalg.norm(Dp))
    if others.size == 0 or norm_plus == 0:
        return 0.0
    active = (problem.W0[others] @ problem.X.T) > 0  # (others, n)
    same_sign = np.sign(problem.a0[others])[:, None] == np.sign(problem.y)[None, :]
    weights = (active & same_sign) * problem.y[None, :] / problem.n  # (others, n)
    rates = np.linalg.norm(weights @ problem.X, axis=1)
    return float(rates.max() / norm_plus)


def _capacity(problem: Problem, sign: float) -> float:
    sel = np.sign(problem.y) == sign
    ratios = problem.y[sel] / np.linalg.norm(problem.X[sel], axis=1)
    return float(np.sqrt(np.sum(ratios**2)))


def _off_diagonal_gram(problem: Problem) -> float:
    Xn = problem.X / np.linalg.norm(problem.X, axis=1, keepdims=True)
    G = np.abs(Xn @ Xn.T)
    np.fill_diagonal(G, 0.0)
    return float(G.max()) if problem.n > 1 else 0.0


def _init_imbalance(problem: Problem) -> float:
    sq = problem.a0**2 + np.sum(problem.W0**2, axis=1)
    c = problem.a0**2 - np.sum(problem.W0**2, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(sq > 0, np.abs(c) / sq, 0.0)
    # relative imbalance below round-off of the norm computation counts as 0
    rel = np.where(rel <= ROUNDOFF_ULPS * FLOAT_EPS, 0.0, rel)
    return float(rel.max())


def instance_values(problem: Problem) -> dict[str, float]:
    """Every instance quantity of the vocabulary that this Problem defines."""
    Dp, Dm = d_vectors(problem)
    s_plus, s_minus = key_neuron_sets(problem)
    values = {
        "n": float(problem.n),
        "d": float(problem.d),
        "p": float(problem.p),
        "kappa": problem.flow_factor,
        "Dplus": float(np.linalg.norm(Dp)),
        "Dminus": float(np.linalg.norm(Dm)),
        "Uplus": _capacity(problem, 1.0),
        "Uminus": _capacity(problem, -1.0),
        "OffDiagGram": _off_diagonal_gram(problem),
        "MinAbsY": float(np.min(np.abs(problem.y))),
        "InitImbalance": _init_imbalance(problem),
        "NumSPlus": float(len(s_plus)),
        "NumSMinus": float(len(s_minus)),
        "GrowthRatioOut": growth_ratio_out(problem),
    }
    if problem.init_scale is not None:
        lam = problem.init_scale
        values["lam"] = lam
        values["c_init"] = float(np.max(np.linalg.norm(problem.W0, axis=1)) / lam)
    return values


# -- trajectory quantities ---------------------------------------------------------------
@dataclass(frozen=True)
class Series:
    """A measured quantity over the saved times, with its error floor.

    ``roundoff`` bounds the error the quantity inherits from (a) rounding in its
    formula and (b) the state's own estimated relative error at that time
    (``Trajectory.state_error``, per neuron against the companion run),
    propagated to first order through the quantity's degree of homogeneity in
    the weights. (b) covers errors that the run and its companion share, which
    a plain difference of the quantity between the two runs would miss.
    """

    values: np.ndarray
    roundoff: np.ndarray


def _rel(tr: Trajectory, degree: float) -> np.ndarray:
    """Relative error floor, per saved time, of a quantity homogeneous of ``degree`` in a
    neuron's weights: rounding plus ``degree`` times the state's relative error.

    The state error used is the running maximum of ``Trajectory.state_error`` up to
    each time (an envelope: the difference to the companion run fluctuates and can
    cancel at single times, while the error itself accumulates), times ERROR_SAFETY.
    """
    envelope = np.maximum.accumulate(tr.state_error) if len(tr.t) else tr.state_error
    return ROUNDOFF_ULPS * FLOAT_EPS + degree * ERROR_SAFETY * envelope


def _output_error(tr: Trajectory) -> np.ndarray:
    """Error floor of h(x_i) (degree 2 in the weights), per time."""
    scale = np.max(np.abs(tr.problem.y)) + np.max(np.abs(tr.outputs), axis=-1)
    return _rel(tr, 2.0) * scale


def _loss(tr: Trajectory) -> Series:
    e_h = _output_error(tr)
    r = np.max(np.abs(tr.residuals), axis=-1)
    scale = tr.problem.loss_scale if tr.problem.loss == "square" else 1.0
    return Series(tr.loss, scale * e_h * (2 * r + e_h))


def _pl(tr: Trajectory) -> Series:
    e_h = _output_error(tr)
    r = np.max(np.abs(tr.residuals), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(r > 0, 4 * e_h / r, np.inf) + _rel(tr, 2.0)
    return Series(tr.pl, rel * np.abs(tr.pl))


def _relative(tr: Trajectory, values: np.ndarray, degree: float) -> Series:
    return Series(values, _rel(tr, degree) * np.abs(values))


def _square_norms(tr: Trajectory) -> np.ndarray:
    return tr.a**2 + tr.neuron_norms**2  # (T, p)


def _balance(tr: Trajectory) -> Series:
    drift = np.max(np.abs(tr.balancedness - tr.balancedness[0]), axis=-1)
    sq = _square_norms(tr)
    mag = np.max(sq + sq[0], axis=-1)
    return Series(drift, _rel(tr, 2.0) * mag)


def _norm_sum_drift(tr: Trajectory) -> Series:
    sq = _square_norms(tr)
    drift = np.max(np.abs(sq - sq[0]), axis=-1)
    return Series(drift, _rel(tr, 2.0) * np.max(sq + sq[0], axis=-1))


def _sign_flips(tr: Trajectory) -> Series:
    flips = np.sum(np.sign(tr.a) != np.sign(tr.a[0]), axis=-1).astype(float)
    return Series(flips, np.zeros_like(flips))


def _u_plus(tr: Trajectory) -> Series:
    s_plus, _ = key_neuron_sets(tr.problem)
    return _relative(tr, tr.group_norm_sq(s_plus), 2.0)


def _u_minus(tr: Trajectory) -> Series:
    _, s_minus = key_neuron_sets(tr.problem)
    return _relative(tr, tr.group_norm_sq(s_minus), 2.0)


def _align(tr: Trajectory, which: int) -> Series:
    sets = key_neuron_sets(tr.problem)
    Dp, Dm = d_vectors(tr.problem)
    D = Dp if which == 0 else -Dm
    idx = sets[which]
    norm = float(np.linalg.norm(D))
    if idx.size == 0 or norm == 0:
        nan = np.full(len(tr.t), np.nan)
        return Series(nan, nan)
    values = norm * np.min(tr.alignment(D)[:, idx], axis=-1)
    # a cosine moves by at most ~2x the relative error of the neuron
    return Series(values, _rel(tr, 2.0) * norm)


def _norm_out_plus(tr: Trajectory) -> Series:
    s_plus, _ = key_neuron_sets(tr.problem)
    others = np.setdiff1d(np.arange(tr.problem.p), s_plus)
    if others.size == 0:
        return _relative(tr, np.zeros(len(tr.t)), 1.0)
    return _relative(tr, np.max(tr.neuron_norms[:, others], axis=-1), 1.0)


TRAJECTORY_QUANTITIES: dict[str, Callable[[Trajectory], Series]] = {
    "L": _loss,
    "PL": _pl,
    "R": lambda tr: Series(np.max(np.abs(tr.residuals), axis=-1), _output_error(tr)),
    "NormW": lambda tr: _relative(tr, np.max(tr.neuron_norms, axis=-1), 1.0),
    "Balance": _balance,
    "NormSumDrift": _norm_sum_drift,
    "SignFlips": _sign_flips,
    "UPlus": _u_plus,
    "UMinus": _u_minus,
    "AlignPlus": lambda tr: _align(tr, 0),
    "AlignMinus": lambda tr: _align(tr, 1),
    "NormOutPlus": _norm_out_plus,
}


def measure(tr: Trajectory, name: str) -> Series:
    try:
        fn = TRAJECTORY_QUANTITIES[name]
    except KeyError:
        raise UnknownQuantity(
            f"no measurement for trajectory quantity {name!r}; "
            f"measurable: {', '.join(sorted(TRAJECTORY_QUANTITIES))}"
        ) from None
    return fn(tr)
