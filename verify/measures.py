"""Numbers for the vocabulary: each `theory.symbols` name measured on a Problem or run.

Instance quantities are floats computed from the Problem. Trajectory quantities
are arrays over the saved times, each with a round-off magnitude: the size of
the floating-point error the formula itself can make (independent of the
integration error, which the companion run measures).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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
def _off_diagonal_gram(problem: Problem) -> float:
    # raw dot products first, then the norms: exactly orthogonal data (an exact zero in
    # X X^T, as the two-point example's) stay exactly 0 instead of a rounding residue
    norms = np.linalg.norm(problem.X, axis=1)
    G = np.abs(problem.X @ problem.X.T) / np.outer(norms, norms)
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
# estimates it (used by PROBABILITY claims on a verify.evidence.Sample).
ENSEMBLE_QUANTITIES: dict[str, Callable[[Problem], bool]] = QuantityTable({})


def instance_values(problem: Problem) -> InstanceValues:
    """Every instance quantity of the vocabulary that this Problem defines (lazily)."""
    return InstanceValues(problem)


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


def relative_floor(tr: Trajectory, degree: float) -> np.ndarray:
    """Relative error floor, per saved time, of a quantity homogeneous of ``degree`` in a
    neuron's weights: rounding plus ``degree`` times the state's relative error.

    The state error used is the running maximum of ``Trajectory.state_error`` up to
    each time (an envelope: the difference to the companion run fluctuates and can
    cancel at single times, while the error itself accumulates), times ERROR_SAFETY,
    plus the method's nominal accuracy (`Trajectory.nominal_error`).
    """
    envelope = np.maximum.accumulate(tr.state_error) if len(tr.t) else tr.state_error
    return ROUNDOFF_ULPS * FLOAT_EPS + degree * (ERROR_SAFETY * envelope + tr.nominal_error)


def output_error(tr: Trajectory) -> np.ndarray:
    """Error floor of h(x_i) (degree 2 in the weights), per time."""
    scale = np.max(np.abs(tr.problem.y)) + np.max(np.abs(tr.outputs), axis=-1)
    return relative_floor(tr, 2.0) * scale


def _loss(tr: Trajectory) -> Series:
    e_h = output_error(tr)
    r = np.max(np.abs(tr.residuals), axis=-1)
    scale = tr.problem.loss_scale if tr.problem.loss == "square" else 1.0
    return Series(tr.loss, scale * e_h * (2 * r + e_h))


def _pl(tr: Trajectory) -> Series:
    e_h = output_error(tr)
    r = np.max(np.abs(tr.residuals), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(r > 0, 4 * e_h / r, np.inf) + relative_floor(tr, 2.0)
    return Series(tr.pl, rel * np.abs(tr.pl))


def relative_series(tr: Trajectory, values: np.ndarray, degree: float) -> Series:
    with np.errstate(invalid="ignore"):  # 0 x an unknown (inf) floor: unknown, not nan
        error = relative_floor(tr, degree) * np.abs(values)
    return Series(values, np.where(np.isnan(error), np.inf, error))


def _square_norms(tr: Trajectory) -> np.ndarray:
    return tr.a**2 + tr.neuron_norms**2  # (T, p)


def _balance(tr: Trajectory) -> Series:
    drift = np.max(np.abs(tr.balancedness - tr.balancedness[0]), axis=-1)
    sq = _square_norms(tr)
    mag = np.max(sq + sq[0], axis=-1)
    return Series(drift, relative_floor(tr, 2.0) * mag)


def _norm_sum_drift(tr: Trajectory) -> Series:
    sq = _square_norms(tr)
    drift = np.max(np.abs(sq - sq[0]), axis=-1)
    return Series(drift, relative_floor(tr, 2.0) * np.max(sq + sq[0], axis=-1))


def _sign_flips(tr: Trajectory) -> Series:
    flips = np.sum(np.sign(tr.a) != np.sign(tr.a[0]), axis=-1).astype(float)
    return Series(flips, np.zeros_like(flips))


TRAJECTORY_QUANTITIES: dict[str, Callable[[Trajectory], Series]] = QuantityTable({
    "L": _loss,
    "PL": _pl,
    "R": lambda tr: Series(np.max(np.abs(tr.residuals), axis=-1), output_error(tr)),
    "NormW": lambda tr: relative_series(tr, np.max(tr.neuron_norms, axis=-1), 1.0),
    "Balance": _balance,
    "NormSumDrift": _norm_sum_drift,
    "SignFlips": _sign_flips,
})


def measure(tr: Trajectory, name: str) -> Series:
    try:
        fn = TRAJECTORY_QUANTITIES[name]
    except KeyError:
        raise UnknownQuantity(
            f"no measurement for trajectory quantity {name!r}; "
            f"measurable: {', '.join(sorted(TRAJECTORY_QUANTITIES))}"
        ) from None
    return fn(tr)


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
# Each pack's measures module (theory.packs: the three papers' papers.s00x.measures, and
# any installed pack's) defines TRAJECTORY, INSTANCE and ENSEMBLE dicts with the contracts
# of the tables above (and may use the helpers above); they are merged on first read.
_MERGED: list[bool] = []  # set once the packs' quantities are in the tables
_DEFAULTS: set[str] = set()  # conjecture-vocabulary names a pack may define instead


def _merge_pack_quantities() -> None:
    if _MERGED:
        return
    _MERGED.append(True)
    from theory import packs

    for pack, mod in packs.modules("measures"):
        for table, extra in ((TRAJECTORY_QUANTITIES, getattr(mod, "TRAJECTORY", {})),
                             (INSTANCE_QUANTITIES, getattr(mod, "INSTANCE", {})),
                             (ENSEMBLE_QUANTITIES, getattr(mod, "ENSEMBLE", {}))):
            clash = {k for k in extra if dict.__contains__(table, k) and k not in _DEFAULTS}
            if clash:
                raise packs.PackError(f"pack {pack.name!r} ({mod.__name__}) redefines "
                                      f"quantities {sorted(clash)}")
            dict.update(table, extra)


# -- vocabulary quantities for conjectures (``gfverify conjecture``) -----------------------
# Defined here only where no paper module above already defines the name (theirs win).
def _energies(tr: Trajectory, reduce) -> Series:
    """min_i or max_i of E_i(t) = s sum_j 1{<w_j, x_i> > 0} a_j^2, s the Problem's output
    factor (1/p mean-field, 1 standard). A change of activation pattern between the run and
    its companion shows in their difference; the floor covers the weights' own error."""
    return relative_series(tr, reduce(tr.energies, axis=-1), 2.0)


def _min_fit_ratio(tr: Trajectory) -> Series:
    y = np.abs(tr.problem.y)
    return Series(np.min(np.abs(tr.outputs) / y, axis=-1), output_error(tr) / y.min())


def _grad_norm_sq(tr: Trajectory) -> Series:
    pl, loss = _pl(tr), _loss(tr)
    values = pl.values * loss.values / tr.problem.flow_factor
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = pl.roundoff / np.abs(pl.values) + loss.roundoff / np.abs(loss.values)
    return Series(values, np.where(np.isfinite(rel), rel, np.inf) * np.abs(values))


def _param_drift(tr: Trajectory) -> Series:
    dW, da = tr.W - tr.problem.W0, tr.a - tr.problem.a0
    values = np.sqrt(np.sum(dW**2, axis=(-2, -1)) + np.sum(da**2, axis=-1))
    size = np.sqrt(np.sum(tr.W**2, axis=(-2, -1)) + np.sum(tr.a**2, axis=-1))
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
    "MaxAbsH": lambda tr: Series(np.max(np.abs(tr.outputs), axis=-1), output_error(tr)),
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
    "GoodInit": _good_init,
}
# (the packs' quantities are merged later, on first read, and replace these)
for _table, _extra in ((TRAJECTORY_QUANTITIES, _CONJECTURE_TRAJECTORY),
                       (INSTANCE_QUANTITIES, _CONJECTURE_INSTANCE)):
    for _name, _fn in _extra.items():
        if not dict.__contains__(_table, _name):
            dict.__setitem__(_table, _name, _fn)
            _DEFAULTS.add(_name)
