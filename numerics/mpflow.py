"""High-precision gradient flow: Taylor series in mpmath between located switches.

The flow is the same regular solution as `ExactFlow` (activation pattern held
fixed between sign changes of <w_j, x_i>, relu'(0) = 0, a dead neuron stays
dead), integrated in mpmath at ``digits`` significant digits:

- Inside a fixed pattern the field is analytic, so the state is advanced by its
  Taylor series, whose coefficients come from the recurrence of the ODE
  (Cauchy products of the series of W, a, the outputs h and dL/dh; exp and
  1/(1 + e^m) by their power-series recurrences). Order and step follow Jorba
  and Zou (2005): K = ceil(ln(10) digits / 2) + 1 and h = r / e^2, with r the
  smallest per-neuron radius estimate (|theta_j,0| / |theta_j,k|)^{1/k} from the
  last two coefficients, so each step's truncation error is about 10^-digits
  relative to each neuron.
- Pre-activations are polynomials in time within a step: their signs are
  checked at interior nodes, and the earliest crossing is bisected on the
  polynomial to ~10^-digits of the step; the state restarts just past it.
- Other activations: a leaky ReLU's pattern gives sigma' = slope + (1 - slope) A, a
  ReLU power max(z, 0)^beta with integer beta its Cauchy powers of Z on the active
  side; a frozen layer's coefficients stay 0 (the Problem's ``train``).
- The companion runs at ``companion_digits`` (default digits - 15); the
  error estimate is their relative difference per neuron, computed in mpmath.

Cost per step grows like digits^2 * p * (n + d) multiplications in Python
(mpmath), so the method refuses problems with p * (n + d) > ``max_size``
(default 64: e.g. p = 8 neurons with n + d = 8). Everything runs inside
``mp.workdps``; the global precision is never changed.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from mpmath import mp

from numerics.flow import MethodError
from numerics.problem import Problem
from numerics.provenance import environment
from numerics.trajectory import ActivationEvent, Status, Trajectory

# Extra working digits beyond the requested accuracy (round-off in the sums).
_GUARD_DIGITS = 10
# Interior nodes (fractions of a step) where pre-activation signs are inspected.
_NODES = 8
_to_mpf = np.vectorize(mp.mpf, otypes=[object])
_to_float = np.vectorize(float, otypes=[float])


@dataclass(frozen=True)
class HighPrecisionFlow:
    """Gradient flow in mpmath at ``digits`` digits (small problems only).

    Taylor series between located switches (the module docstring); piecewise-linear
    activations and integer ReLU powers only.

    Attributes
    ----------
    digits
        Target accuracy in significant digits, in [16, 1000] (default 50); the working
        precision adds 10.
    companion_digits
        Accuracy of the companion run for the error estimate, in [8, digits) (``None``,
        the default: ``digits - 15``, at least 16).
    error_check
        Run the companion (default True); without it the error estimate is inf.
    max_size
        Largest p * (n + d) accepted (default 64); a larger Problem is refused.
    max_steps
        Cap on Taylor steps per run (default 100,000).
    chatter_limit
        A pair switching side more often than this marks the run CHATTERING (default 200).
    """

    digits: int = 50
    companion_digits: int | None = None
    error_check: bool = True
    max_size: int = 64
    max_steps: int = 100_000
    chatter_limit: int = 200

    name = "high_precision_flow"

    def __post_init__(self) -> None:
        if not 16 <= self.digits <= 1000:
            raise MethodError(f"digits: must be in [16, 1000], got {self.digits!r}.")
        if self.companion_digits is not None and not 8 <= self.companion_digits < self.digits:
            raise MethodError(
                f"companion_digits: must be in [8, digits={self.digits}), got "
                f"{self.companion_digits!r}."
            )

    def options(self) -> dict:
        """The options as a dict (stored in ``Trajectory.options``), companion digits
        resolved."""
        return {"digits": self.digits, "companion_digits": self._companion_digits(),
                "error_check": self.error_check, "max_size": self.max_size,
                "max_steps": self.max_steps, "chatter_limit": self.chatter_limit}

    def _companion_digits(self) -> int:
        if self.companion_digits is not None:
            return self.companion_digits
        return max(16, self.digits - 15) if self.digits > 16 else 8

    def run(self, problem: Problem, t_eval: np.ndarray) -> Trajectory:
        """Integrate ``problem`` in mpmath, saving at ``t_eval`` (call it through
        `numerics.simulate`); a MethodError for an activation or a size it does not take."""
        act = problem.activation
        if not act.piecewise_linear and act.integer_power is None:
            raise MethodError(
                f"activation: HighPrecisionFlow takes piecewise-linear activations and integer "
                f"ReLU powers (its Taylor series are polynomial), not {act.spec!r}.")
        size = problem.p * (problem.n + problem.d)
        if size > self.max_size:
            raise MethodError(
                f"max_size: p*(n+d) = {size} exceeds {self.max_size}; HighPrecisionFlow is for "
                "small problems (cost ~ digits^2 p (n+d) per step). Use ExactFlow, or raise "
                "max_size knowingly."
            )
        start = time.perf_counter()
        main = _integrate(problem, t_eval, self.digits, self)
        companion, error = None, float("inf")
        if self.error_check:
            loose = _integrate(problem, t_eval, self._companion_digits(), self)
            companion = _trajectory(problem, t_eval, self, loose, None, float("inf"), 0.0)
            error = _mp_relative_difference(main, loose, self.digits)
        return _trajectory(problem, t_eval, self, main, companion, error,
                           time.perf_counter() - start)


def _trajectory(problem, t_eval, method, run, companion, error, wall) -> Trajectory:
    Wm, am = run["W"], run["a"]
    with mp.workdps(run["digits"] + _GUARD_DIGITS):
        log_norms = np.array(
            [[float(mp.log(mp.sqrt(mp.fsum(w * w for w in row)))) if any(row) else -math.inf
              for row in Wk] for Wk in Wm]
        ).reshape(len(Wm), problem.p)
    return Trajectory(
        problem=problem, t=np.asarray(t_eval, dtype=float)[: len(am)],
        W=_to_float(Wm).reshape(len(Wm), problem.p, problem.d),
        a=_to_float(am).reshape(len(am), problem.p), method=method.name,
        options=method.options(), status=run["status"], message=run["message"],
        error_estimate=error, companion=companion, events=tuple(run["events"]),
        n_steps=run["n_steps"], wall_time=wall, provenance=environment(),
        log_norms=log_norms, high_precision=(Wm, am),
    )


def _mp_relative_difference(main, loose, digits) -> float:
    k = len(main["a"])
    if k == 0 or k != len(loose["a"]):
        return float("inf")
    worst = mp.mpf(0)
    with mp.workdps(digits + _GUARD_DIGITS):
        for W1, a1, W2, a2 in zip(main["W"], main["a"], loose["W"], loose["a"], strict=True):
            for j in range(len(a1)):
                th1 = list(W1[j]) + [a1[j]]
                diff = mp.sqrt(mp.fsum((u - v) ** 2 for u, v in zip(th1, list(W2[j]) + [a2[j]],
                                                                      strict=True)))
                scale = mp.sqrt(mp.fsum(u * u for u in th1))
                if scale > 0:
                    worst = max(worst, diff / scale)
                elif diff > 0:
                    return float("inf")
    return float(worst)


class _Series:
    """Taylor coefficients of the flow with a fixed activation mask."""

    def __init__(self, problem: Problem, order: int) -> None:
        self.K = order
        self.X = _to_mpf(problem.X)
        self.XT = self.X.T.copy()
        self.y = _to_mpf(problem.y)
        self.s = mp.mpf(1) / problem.p if problem.parametrization == "mean_field" else mp.mpf(1)
        self.kappa = mp.mpf(problem.flow_factor)
        self.scale = mp.mpf(problem.loss_scale)
        self.loss = problem.loss
        self.n, self.p, self.d = problem.n, problem.p, problem.d
        act = problem.activation
        # sigma on the active side: z (times 1, or the slope elsewhere) or z^power
        self.power = None if act.piecewise_linear else act.integer_power
        self.slope = mp.mpf(act.slope) if act.piecewise_linear else None
        self.moves_W, self.moves_a = problem.trains_first_layer, problem.trains_second_layer

    def coefficients(self, W, a, mask):
        """(Wc, ac, Zc): coefficient k of W, a and Z = W X^T for k = 0..K."""
        K, p, n, d = self.K, self.p, self.n, self.d
        zero = mp.mpf(0)
        Wc = np.full((K + 1, p, d), zero, dtype=object)
        ac = np.full((K + 1, p), zero, dtype=object)
        Zc = np.full((K + 1, p, n), zero, dtype=object)
        AZ = np.full((K + 1, p, n), zero, dtype=object)  # sigma(Z)
        AG = np.full((K + 1, p, n), zero, dtype=object)  # sigma'(Z) g
        V = np.full((K + 1, p, d), zero, dtype=object)
        h = np.full((K + 1, n), zero, dtype=object)
        gs = np.full((K + 1, n), zero, dtype=object)
        aux = np.full((K + 1, n), zero, dtype=object)  # exp(-y h) or 1/(1 + exp(y h))
        E = np.full((K + 1, n), zero, dtype=object)  # exp(y h) (logistic only)
        if self.power is None:  # piecewise linear: sigma' = slope + (1 - slope) A, constant
            slopes = np.where(mask, mp.mpf(1), self.slope) if self.slope else mask
            powers = None
        else:  # powers[m][k]: coefficient k of Z^(m+1), by Cauchy products
            powers = np.full((self.power, K + 1, p, n), zero, dtype=object)
        Wc[0], ac[0] = W, a
        fdot, s = mp.fdot, self.s
        for k in range(K + 1):
            Zc[k] = Wc[k] @ self.XT
            if k == K:
                break
            if powers is None:
                AZ[k] = np.where(mask, Zc[k], zero) if slopes is mask else slopes * Zc[k]
            else:
                powers[0, k] = Zc[k]
                for m in range(1, self.power):
                    powers[m, k] = _cauchy(Zc, powers[m - 1], k)
                AZ[k] = np.where(mask, powers[-1, k], zero)
            for i in range(n):
                h[k, i] = s * fdot(ac[: k + 1].ravel(), AZ[k::-1, :, i].ravel())
            gs[k] = self._loss_series(h, aux, E, k)
            if powers is None:
                AG[k] = np.where(mask, gs[k][None, :], zero) if slopes is mask else (
                    slopes * gs[k][None, :])
            else:
                AG[k] = np.where(mask, self.power * _cauchy(powers[-2], gs[:, None, :], k), zero)
            V[k] = AG[k] @ self.X
            factor = -self.kappa * s / (k + 1)
            for j in range(p):
                if self.moves_a:  # da_j/dt = -kappa s sum_i g_i sigma(z_ij)
                    if powers is None:  # g sigma = (sigma' g) z
                        rate = fdot(AG[: k + 1, j, :].ravel(), Zc[k::-1, j, :].ravel())
                    else:
                        rate = fdot(gs[: k + 1].ravel(), AZ[k::-1, j, :].ravel())
                    ac[k + 1, j] = factor * rate
                if self.moves_W:
                    for col in range(d):
                        Wc[k + 1, j, col] = factor * fdot(ac[: k + 1, j], V[k::-1, j, col])
        return Wc, ac, Zc

    def _loss_series(self, h, aux, E, k):
        """Coefficient k of g = dL/dh (needs h_0..h_k; fills the auxiliary series)."""
        y, sc = self.y, self.scale
        if self.loss == "square":
            if k == 0:
                return -sc * (y - h[0]) / self.n
            return sc * h[k] / self.n
        if self.loss == "exponential":  # aux = exp(u), u = -y h
            for i in range(self.n):
                aux[k, i] = _exp_coefficient(k, [-y[i] * h[m, i] for m in range(k + 1)],
                                             aux[:, i])
            return -sc * y * aux[k]
        for i in range(self.n):  # logistic: aux = 1/(1 + E), E = exp(y h)
            E[k, i] = _exp_coefficient(k, [y[i] * h[m, i] for m in range(k + 1)], E[:, i])
            b0 = 1 + E[0, i]
            if k == 0:
                aux[0, i] = 1 / b0
            else:
                aux[k, i] = -mp.fdot(E[1 : k + 1, i], aux[k - 1 :: -1, i][:k]) / b0
        return -sc * y * aux[k]


def _cauchy(first, second, k):
    """Coefficient k of the product of two series given as arrays along axis 0 (elementwise
    over the other axes, broadcast)."""
    out = first[0] * second[k]
    for m in range(1, k + 1):
        out = out + first[m] * second[k - m]
    return out


def _exp_coefficient(k, u, e):
    """Coefficient k of exp(u) from u_0..u_k and e_0..e_{k-1}: (1/k) sum m u_m e_{k-m}."""
    if k == 0:
        return mp.exp(u[0])
    return mp.fdot([m * u[m] for m in range(1, k + 1)], e[k - 1 :: -1][:k]) / k


def _polyval(coeffs, tau):
    """sum_k coeffs[k] tau^k (Horner) for an object array of coefficients along axis 0."""
    out = coeffs[-1]
    for c in coeffs[-2::-1]:
        out = out * tau + c
    return out


def _integrate(problem: Problem, t_eval, digits: int, opts: HighPrecisionFlow) -> dict:
    with mp.workdps(digits + _GUARD_DIGITS):
        return _integrate_at_precision(problem, t_eval, digits, opts)


def _integrate_at_precision(problem, t_eval, digits, opts) -> dict:
    order = math.ceil(digits * math.log(10) / 2) + 1
    series = _Series(problem, order)
    times = [mp.mpf(float(t)) for t in t_eval]
    W, a = _to_mpf(problem.W0), _to_mpf(problem.a0)
    mask = (W @ series.XT) > 0
    saved_W, saved_a, events = [], [], []
    flips = np.zeros(mask.shape, dtype=int)
    t, t_end = mp.mpf(0), times[-1]
    status, message, n_steps = Status.SUCCESS, "", 0
    nxt = 0
    while nxt < len(times) and times[nxt] <= t:
        saved_W.append(W.copy())
        saved_a.append(a.copy())
        nxt += 1
    resolution = mp.mpf(10) ** (-digits)
    while t < t_end:
        if n_steps >= opts.max_steps:
            status, message = Status.MAX_STEPS, f"{n_steps} steps reached at t={float(t):.6g}"
            break
        n_steps += 1
        Wc, ac, Zc = series.coefficients(W, a, mask)
        step = min(_step_size(Wc, ac, order), t_end - t)
        nodes = [step * m / _NODES for m in range(1, _NODES + 1)]
        crossing = None
        lo = mp.mpf(0)
        for node in nodes:
            mismatch = (_polyval(Zc, node) > 0) != mask
            if mismatch.any():
                crossing = _bisect(Zc, mask, mismatch, lo, node, step * resolution)
                break
            lo = node
        tau = step if crossing is None else crossing
        while nxt < len(times) and times[nxt] <= t + tau:
            dt = times[nxt] - t
            saved_W.append(_polyval(Wc, dt))
            saved_a.append(_polyval(ac, dt))
            nxt += 1
        W, a, t = _polyval(Wc, tau), _polyval(ac, tau), t + tau
        if crossing is None:
            continue
        new_mask = (W @ series.XT) > 0
        forced = (_polyval(Zc, tau) > 0)
        changed_by_poly = forced != mask
        new_mask = np.where(changed_by_poly, forced, new_mask)
        for j, i in zip(*np.nonzero(new_mask != mask), strict=True):
            events.append(ActivationEvent(float(t), int(j), int(i), 1 if new_mask[j, i] else -1))
            flips[j, i] += 1
        mask = new_mask
        if flips.max() > opts.chatter_limit:
            j, i = np.unravel_index(np.argmax(flips), flips.shape)
            status = Status.CHATTERING
            message = f"pair (neuron {j}, sample {i}) switched {flips[j, i]} times"
            break
    if status is Status.SUCCESS and nxt < len(times):
        status, message = Status.NONFINITE, "integration stopped before the last saved time"
    p, d = problem.p, problem.d
    return {
        "W": np.array(saved_W, dtype=object).reshape(len(saved_W), p, d),
        "a": np.array(saved_a, dtype=object).reshape(len(saved_a), p),
        "status": status, "message": message, "events": events, "n_steps": n_steps,
        "digits": digits,
    }


def _step_size(Wc, ac, order):
    """Jorba-Zou step: e^-2 times the smallest per-neuron radius estimate."""
    theta = np.concatenate([Wc, ac[..., None]], axis=-1)  # (K+1, p, d+1)
    size = np.vectorize(abs, otypes=[object])(theta).max(axis=-1)  # (K+1, p)
    radius = mp.inf
    for j in range(size.shape[1]):
        if size[0, j] == 0:
            continue
        for k in (order - 1, order):
            if size[k, j] > 0:
                radius = min(radius, (size[0, j] / size[k, j]) ** (mp.mpf(1) / k))
    return radius / mp.e**2


def _bisect(Zc, mask, mismatch, lo, hi, width):
    """Earliest tau in (lo, hi] where a mismatched pair has left its side; returns the far end."""
    best = hi
    for j, i in zip(*np.nonzero(mismatch), strict=True):
        coeffs, side = Zc[:, j, i], mask[j, i]
        a, b = lo, best
        if (_polyval(coeffs, b) > 0) == side:
            continue  # already back on its side by ``best``: an earlier crossing wins
        while b - a > width:
            mid = (a + b) / 2
            if (_polyval(coeffs, mid) > 0) != side:
                b = mid
            else:
                a = mid
        best = min(best, b)
    return best
