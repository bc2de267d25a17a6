"""CEL23's yardsticks solved exactly, and the instance quantities built from them.

A yardstick (catalogue D2) is the neuron ODE of CEL23 with the outputs removed:
alpha_j(0) = z_j and d alpha/dt = s_j |alpha| gamma_{I_+(alpha)}, where
gamma_I = (1/n) sum_{i in I} y_i x_i (divided by n, not |I|; gamma of the empty set is 0).
Conventions: rows of X are the points x_i, y_i = relu(<v*, x_i>) > 0, Z holds the unscaled
init directions z_j as rows, s the signs; H = X^T X / n (the paper's X X^T / n).

What is computed, and from where:

- `eigen`: eigen-pairs of H in decreasing order, eigenvector signs fixed so that every
  nu_k* = <u_k, v*> > 0 (D3).
- `yardsticks`: every trajectory for j in J_+ and J_- (D1), event by event (section 4.1).
  While the active set I is fixed, gamma := gamma_I is constant, and in the pseudo-time
  tau' (d tau' = |alpha| dt) the yardstick moves on the straight line alpha0 + s tau' gamma.
  Sample i meets the boundary at tau' = r_i = -s <alpha0, x_i> / <gamma, x_i>; the next
  crossing is the smallest r_i over the candidates (s = +1: inactive samples, which enter;
  s = -1: active samples, which leave), P14(i). Real time follows from section 4.2: with
  k = |gamma|, g = gamma / k, A = |alpha0| and c = s <alpha0, g>, the quantities
  p = |alpha| + s <alpha, g> and q = |alpha| - s <alpha, g> obey p' = k p and q' = -k q, so
  p = (A + c) e^{k dt}, q = (A - c) e^{-k dt}. Since s <alpha, g> = c + k tau', the stage
  length to pseudo-time tau' is ln((|alpha| + c + k tau') / (A + c)) / k (the log formula of
  4.1); for s = -1 we use the equivalent q form ln((A - c) / (|alpha| - c - k tau')) / k,
  whose numerator and denominator are bounded below by |alpha| (no cancellation).
  `Yardstick.alpha` inverts this: alpha(t) = alpha0 + s u g with
  u = k tau' = (p - q)/2 - c = 2 sinh(x/2) (A cosh(x/2) + c sinh(x/2)), x = k (t - start).
  Note the unit vector g: written with the unnormalised gamma it reads alpha0 + s (u/k) gamma.
  After its last crossing an s = +1 yardstick stays in the all-active stage forever; an
  s = -1 yardstick has an empty active set, gamma = 0, and is frozen (kept as a last Stage).
- `Yardstick.cos_phi`: cos of phi = angle(alpha, gamma_{I_+(alpha)}), equal to
  s (p - q)/(p + q), i.e. tanh(artanh cos phi(start+) + s k (t - start)) (P13, P14(vi), P22).
- `Yardstick.growth_constant`: for s = +1, (|alpha| + <alpha, g_[n]>) e^{-|gamma_[n]| t} is
  constant after the last crossing (it is p e^{-kt}); C_j is half of it (section 4.4, F7b).
- `delta_items`: the eleven items of D4, their minimum delta, and Delta (D4); item 9 by
  dense sampling along each finite stage (4.1); items 7/8 use phi_j^0 =
  angle(z_j, gamma_{I_+(z_j)}). `T0` is D5's T0, `log10_lambda_max` the A2 bound (H.3).
- `integrate`: an independent solve_ivp (DOP853) solution of the same ODE with events at the
  sign changes of <alpha, x_i>, used to cross-check the closed form.

Assumption A1(iv) (no two samples reach the boundary together) and A1(ii)'s I_0(z_j) = {}
are checked and reported with ValueError.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

TIE_RTOL = 1e-12  # two crossing pseudo-times this close (relative) violate A1(iv)
ZERO_RTOL = 1e-12  # |<z, x>| below this times |z||x| counts as <z, x> = 0 (I_0)
DELTA_ITEMS = ("min_x_norm", "min_x_cosine", "eigengap", "sqrt_eta_d", "min_nu_star",
               "min_z_norm", "min_cos_phi0_plus", "min_sin_phi0_minus", "min_margin",
               "min_exit_cosine_minus", "min_stage_length")  # D4 items 1..11, in order


def _mask(active, n: int) -> np.ndarray:
    idx = np.asarray(active)
    if idx.dtype == bool:
        return idx.reshape(n)
    mask = np.zeros(n, dtype=bool)
    mask[idx.astype(np.intp).ravel()] = True
    return mask


def gamma(X, y, active) -> np.ndarray:
    """gamma_I = (1/n) sum_{i in I} y_i x_i; ``active`` is a boolean mask or an index array."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    return np.where(_mask(active, len(y)), y, 0.0) @ X / len(y)


def eigen(X, vstar) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(eta, U, nu_star): eigenvalues of H = X^T X / n, decreasing; unit eigenvectors as the
    columns of U, signed so that nu_star = U^T v* > 0 (D3)."""
    X = np.asarray(X, float)
    eta, U = np.linalg.eigh(X.T @ X / len(X))
    eta, U = eta[::-1].copy(), U[:, ::-1].copy()
    U *= np.where(U.T @ vstar < 0, -1.0, 1.0)
    return eta, U, U.T @ np.asarray(vstar, float)


def sets(X, Z, s) -> tuple[np.ndarray, np.ndarray]:
    """(J_plus, J_minus): neurons with I_+(z_j) non-empty and s_j = +1, resp. -1 (D1)."""
    alive = np.any(np.asarray(Z, float) @ np.asarray(X, float).T > 0, axis=1)
    s = np.asarray(s)
    return np.flatnonzero(alive & (s > 0)), np.flatnonzero(alive & (s < 0))


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Stage:
    """One stage: on [start, end) the active set is ``active`` and gamma is constant.
    ``crossing`` is the sample that reaches the boundary at ``end`` (None if end = inf)."""

    start: float
    end: float
    alpha0: np.ndarray
    gamma: np.ndarray
    active: tuple[int, ...]
    crossing: int | None

    def evolve(self, s: int, dt) -> np.ndarray:
        """alpha at times start + dt (dt an array >= 0), shape (len(dt), d) (section 4.2)."""
        dt = np.asarray(dt, float).reshape(-1)
        k = float(np.linalg.norm(self.gamma))
        if k == 0.0:
            return np.tile(self.alpha0, (len(dt), 1))
        g = self.gamma / k
        A, c, h = float(np.linalg.norm(self.alpha0)), s * float(self.alpha0 @ g), k * dt / 2
        u = 2.0 * np.sinh(h) * (A * np.cosh(h) + c * np.sinh(h))
        return self.alpha0 + s * u[:, None] * g


@dataclass(frozen=True, eq=False)
class Yardstick:
    """The exact yardstick of neuron j; ``stages`` cover [0, inf) in order."""

    j: int
    s: int
    z: np.ndarray
    stages: tuple[Stage, ...]

    @property
    def crossings(self) -> tuple[int, ...]:
        return tuple(st.crossing for st in self.stages if st.crossing is not None)

    @property
    def times(self) -> tuple[float, ...]:
        return tuple(st.end for st in self.stages if st.crossing is not None)

    @property
    def n_j(self) -> int:
        return len(self.crossings)

    def _locate(self, t) -> tuple[np.ndarray, np.ndarray]:
        t = np.asarray(t, float).reshape(-1)
        starts = np.array([st.start for st in self.stages])
        return t, np.clip(np.searchsorted(starts, t, side="right") - 1, 0, None)

    def alpha(self, t) -> np.ndarray:
        """alpha^t (exact); t scalar -> (d,), t array -> (len(t), d). At a crossing time
        the stage that starts there is used (alpha is continuous)."""
        tt, idx = self._locate(t)
        out = np.empty((len(tt), len(self.z)))
        for l in np.unique(idx):
            st = self.stages[l]
            out[idx == l] = st.evolve(self.s, tt[idx == l] - st.start)
        return out[0] if np.ndim(t) == 0 else out

    def cos_phi(self, t) -> np.ndarray | float:
        """cos angle(alpha^t, gamma_{I_+(alpha^t)}); right limit at crossing times; nan where
        the active set is empty (a frozen s = -1 yardstick)."""
        tt, idx = self._locate(t)
        a = np.atleast_2d(self.alpha(tt))
        out = np.full(len(tt), np.nan)
        for l in np.unique(idx):
            g = self.stages[l].gamma
            if self.stages[l].active:
                sel = idx == l
                out[sel] = a[sel] @ g / (np.linalg.norm(a[sel], axis=1) * np.linalg.norm(g))
        return float(out[0]) if np.ndim(t) == 0 else out

    def growth_constant(self) -> float:
        """C_j = (|alpha^tau| + <alpha^tau, g_[n]>) e^{-|gamma_[n]| tau} / 2, tau = tau^{n_j}
        (section 4.4; s = +1 only)."""
        if self.s != 1:
            raise ValueError(f"growth_constant: yardstick {self.j} has s = -1 (it freezes).")
        last = self.stages[-1]
        k = float(np.linalg.norm(last.gamma))
        a = last.alpha0
        return 0.5 * (float(np.linalg.norm(a)) + float(a @ last.gamma) / k) * math.exp(
            -k * last.start)


def _yardstick(X: np.ndarray, y: np.ndarray, j: int, z: np.ndarray, s: int) -> Yardstick:
    n = len(X)
    active = X @ z > 0
    alpha, t, stages, last = z.copy(), 0.0, [], None
    while True:
        g = gamma(X, y, active)
        cand = ~active if s > 0 else active.copy()
        if not cand.any():  # s = +1: all active forever; s = -1: nothing active, frozen
            stages.append(Stage(t, math.inf, _frozen(alpha), _frozen(g),
                                tuple(np.flatnonzero(active).tolist()), None))
            break
        gx, ax = X @ g, X @ alpha
        r = np.full(n, np.inf)
        ok = gx != 0
        r[ok] = -s * ax[ok] / gx[ok]
        r[(r <= 0) | ~np.isfinite(r)] = np.inf
        if last is not None:
            r[last] = np.inf  # it sits on the boundary and was just moved across
        rc = np.where(cand, r, np.inf)
        order = np.argsort(rc)
        i, r1 = int(order[0]), float(rc[order[0]])
        if not math.isfinite(r1):
            raise ValueError(f"yardstick {j}: samples {np.flatnonzero(cand).tolist()} never "
                             "reach the boundary (<gamma, x_i> <= 0): the data are not "
                             "positively correlated.")
        if np.any(np.where(cand, np.inf, r) < r1):
            raise ValueError(f"yardstick {j}: a sample would cross in the wrong direction "
                             "(P12 fails): the data are not positively correlated.")
        r2 = float(rc[order[1]]) if n > 1 else math.inf
        if math.isfinite(r2) and r2 - r1 <= TIE_RTOL * r2:
            raise ValueError(f"yardstick {j}: samples {i} and {int(order[1])} reach the "
                             f"boundary at the same time (pseudo-times {r1!r} and {r2!r}); "
                             "Assumption 1(iv) fails.")
        k = float(np.linalg.norm(g))
        alpha1 = alpha + s * r1 * g
        A, R, c = float(np.linalg.norm(alpha)), float(np.linalg.norm(alpha1)), s * float(
            alpha @ g) / k
        if s > 0:
            dt = math.log((R + c + k * r1) / (A + c)) / k
        else:
            dt = math.log((A - c) / (R - c - k * r1)) / k
        stages.append(Stage(t, t + dt, _frozen(alpha), _frozen(g),
                            tuple(np.flatnonzero(active).tolist()), i))
        t, alpha, last = t + dt, alpha1, i
        active = active.copy()
        active[i] = s > 0
    return Yardstick(j, s, _frozen(z), tuple(stages))


def yardsticks(X, y, Z, s) -> dict[int, Yardstick]:
    """The exact yardsticks of all j in J_+ and J_- (section 4.1), keyed by j."""
    X, y, Z, s = (np.asarray(a, float) for a in (X, y, Z, s))
    P = Z @ X.T
    zero = np.abs(P) <= ZERO_RTOL * np.outer(np.linalg.norm(Z, axis=1),
                                              np.linalg.norm(X, axis=1))
    if zero.any():
        j, i = (int(v[0]) for v in np.nonzero(zero))
        raise ValueError(f"z_{j} is orthogonal to x_{i}: I_0(z_j) is not empty "
                         "(Assumption 1(ii) fails).")
    Jp, Jm = sets(X, Z, s)
    return {int(j): _yardstick(X, y, int(j), Z[j], int(s[j])) for j in sorted([*Jp, *Jm])}


def T0(ys: dict[int, Yardstick]) -> float:
    """T0 = max_j tau_j^{n_j} + 1 over J_+ and J_- (D5); 1 if no yardstick crosses."""
    return max([y.times[-1] for y in ys.values() if y.n_j] + [0.0]) + 1.0


def delta_items(X, y, vstar, Z, s, ys=None, samples_per_stage: int = 2000) -> dict:
    """The eleven items of D4 (names in DELTA_ITEMS), ``delta`` (their minimum) and
    ``Delta`` = max(max_i |x_i|, max_j |z_j|, 1). An item over an empty set is +inf."""
    X, y, Z = (np.asarray(a, float) for a in (X, y, Z))
    ys = yardsticks(X, y, Z, s) if ys is None else ys
    eta, _, nu = eigen(X, vstar)
    d = X.shape[1]
    xn = np.linalg.norm(X, axis=1)
    Xh = X / xn[:, None]

    def lo(values) -> float:
        values = list(values)
        return float(min(values)) if values else math.inf

    sq = np.sqrt(np.clip(eta, 0.0, None))
    cos0, sin0 = {}, {}
    for j, yk in ys.items():
        zh = yk.z / np.linalg.norm(yk.z)
        g = gamma(X, y, X @ yk.z > 0)
        g = g / np.linalg.norm(g)
        cos0[j] = float(zh @ g)
        sin0[j] = float(np.linalg.norm(zh - cos0[j] * g))
    margins, exits, lengths = [], [], []
    for yk in ys.values():
        prev = None
        for st in yk.stages:
            if st.crossing is None:
                break
            a = st.evolve(yk.s, np.linspace(0.0, st.end - st.start, samples_per_stage))
            m = np.abs(a @ Xh.T) / np.linalg.norm(a, axis=1)[:, None]
            keep = np.ones(len(X), dtype=bool)
            keep[[st.crossing] + ([prev] if prev is not None else [])] = False
            if keep.any():
                margins.append(float(m[:, keep].min()))
            lengths.append(st.end - st.start)
            prev = st.crossing
        if yk.s < 0:
            exits.append(float(yk.z @ Xh[yk.crossings[0]]) / float(np.linalg.norm(yk.z)))
    items = dict(zip(DELTA_ITEMS, (
        float(xn.min()), float((Xh @ Xh.T).min()), lo((sq[:-1] - sq[1:]) * (d - 1)),
        float(sq[-1]), float(nu.min() * math.sqrt(d)), float(np.linalg.norm(Z, axis=1).min()),
        lo(cos0[j] for j in cos0 if ys[j].s > 0), lo(sin0[j] for j in sin0 if ys[j].s < 0),
        lo(margins), lo(exits), lo(lengths)), strict=True))
    items["delta"] = min(items.values())
    items["Delta"] = max(float(xn.max()), float(np.linalg.norm(Z, axis=1).max()), 1.0)
    return items


def log10_lambda_max(m: int, n: int, delta: float, Delta: float, eps: float = 0.25) -> float:
    """log10 of Assumption 2's bound (m n^{9 n Delta^2 / delta^3})^{-3/eps} (header H.3)."""
    return -(3.0 / eps) * (math.log10(m) + (9.0 * n * Delta**2 / delta**3) * math.log10(n))


def integrate(X, y, z, s, t_end, rtol: float = 1e-12, t_eval=None,
              return_events: bool = False):
    """(t, alpha): the yardstick ODE d alpha/dt = s |alpha| gamma_{I_+(alpha)} by solve_ivp
    (DOP853), restarted at each sign change of <alpha, x_i>. Returns the solver's points, or
    the values at ``t_eval`` (sorted, in [0, t_end]); with ``return_events`` also the list of
    (time, i) crossings. For cross-checking the closed form only."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    alpha, t = np.array(z, dtype=float), 0.0
    active = X @ alpha > 0
    atol = rtol * 1e-3 * float(np.linalg.norm(alpha))
    ts, als, events, segments = [np.array([0.0])], [alpha[None, :]], [], []
    while True:
        g = gamma(X, y, active)
        if not g.any():  # nothing active: alpha is frozen from here on
            ts.append(np.array([float(t_end)]))
            als.append(alpha[None, :])
            segments.append((t, float(t_end), lambda tt, a=alpha: np.repeat(
                a[:, None], np.size(tt), axis=1)))
            break
        evs = []
        for i in range(len(X)):
            def f(_t, a, x=X[i]):
                return float(a @ x)
            f.terminal, f.direction = True, (-1.0 if active[i] else 1.0)
            evs.append(f)
        sol = solve_ivp(lambda _t, a, g=g: s * np.linalg.norm(a) * g, (t, t_end), alpha,
                        method="DOP853", rtol=rtol, atol=atol, events=evs,
                        dense_output=t_eval is not None)
        ts.append(sol.t[1:])
        als.append(sol.y.T[1:])
        segments.append((t, float(sol.t[-1]), sol.sol))
        if sol.status != 1:
            break
        hit = [i for i, te in enumerate(sol.t_events) if len(te)]
        t, alpha = float(sol.t[-1]), sol.y[:, -1].copy()
        active = X @ alpha > 0  # the active set just after the event ...
        for i in hit:  # ... where the crossing samples follow the velocity's sign
            events.append((float(sol.t_events[i][0]), i))
            active[i] = s * float(g @ X[i]) > 0
    if t_eval is None:
        out = (np.concatenate(ts), np.concatenate(als))
    else:
        te = np.asarray(t_eval, float)
        vals = np.empty((len(te), len(alpha)))
        for a, b, dense in segments:
            sel = (te >= a) & (te <= b)
            if sel.any():
                vals[sel] = dense(te[sel]).T
        out = (te, vals)
    return (*out, events) if return_events else out
