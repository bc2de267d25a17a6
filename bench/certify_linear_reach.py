"""How far a Lohner-type (QR, linearised) enclosure could take the certified tube, measured.

The tube's radius obeys |e|' <= mu |e| + delta (`numerics.certify.field.verify_step`), mu a
bound of the logarithmic norm over every direction. A Lohner-type enclosure propagates the
error through the flow's own linearisation Phi(t, s) (the variational equation
Phi' = -kappa Hess L Phi) instead, so at best its radius is the propagated local errors,
int_0^t ||Phi(t, s)|| delta(s) ds, with delta the tube's own defects (wrapping, the
remainder's nonlinear terms and the regimes' hulls only add to it). This prints, on the
worst instance of ``gfverify conjecture "L(t) <= 1.5*L(0)" --family two-point`` (p = 10,
lam = 1e-20, seed 0), side by side at times t:

- the tube's radius r(t) and its growth bound exp(int_0^t mu);
- ||Phi(t, 0)||_2 (the flow's own expansion since t = 0, from a run at rtol 1e-12 and the
  variational equation at rtol 1e-10 on 0.25-wide intervals);
- the linear bound int_0^t ||Phi(t, s)|| delta(s) ds (delta counted where the tube reaches).

    python bench/certify_linear_reach.py      # about 3.5 minutes on one core
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import torch
from scipy.integrate import solve_ivp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from numerics import ExactFlow, generators, simulate  # noqa: E402
from numerics.certify import certify  # noqa: E402
from numerics.certify.field import step_polynomial, verify_step  # noqa: E402

HORIZON = 296.567239214152
TIMES = (10, 20, 30, 40, 50, 60, 70, 75, 80, 90, 100, 120)
WIDTH = 0.25  # the variational equation's intervals


def _tube_rates(tube):
    """Each step's growth bound mu and defect delta, recomputed as the checker does."""
    shape = tube.instance.shape()
    mus, defects = [], []
    for k in range(tube.steps):
        h = tube.bounds[k + 1] - tube.bounds[k]
        _, W, a = step_polynomial(shape, tube.coeffs[k])
        bnd = verify_step(shape, W, a, h, float(tube.r0[k]), float(tube.R[k]), tube.stuck[k],
                          tube.pinned[k], tube.regime[k])
        mus.append(bnd.mu)
        defects.append(bnd.defect)
    return np.array(mus), np.array(defects)


def _variational_steps(problem, grid):
    """Phi(grid[i + 1], grid[i]) for each interval, along a run at rtol 1e-12."""
    torch.set_default_dtype(torch.float64)
    X, y = torch.tensor(problem.X), torch.tensor(problem.y)
    p, d = problem.p, problem.d
    size = p * (d + 1)

    def loss(theta):
        W, a = theta[:p * d].reshape(p, d), theta[p * d:]
        h = (a[:, None] * torch.relu(W @ X.T)).sum(0)
        return problem.loss_scale * 0.5 * ((h - y) ** 2).mean()

    def rhs(t, u):
        theta = torch.tensor(u[:size])
        g = torch.func.grad(loss)(theta)
        J = -torch.func.hessian(loss)(theta)
        Phi = u[size:].reshape(size, size)
        return np.concatenate([-g.numpy(), (J.numpy() @ Phi).ravel()])

    run = simulate(problem, ExactFlow(rtol=1e-12), grid)
    states = np.concatenate([run.W.reshape(len(grid), -1), run.a], axis=1)
    out = []
    for i in range(len(grid) - 1):
        u0 = np.concatenate([states[i], np.eye(size).ravel()])
        sol = solve_ivp(rhs, (grid[i], grid[i + 1]), u0, rtol=1e-10, atol=1e-14,
                        method="DOP853")
        out.append(sol.y[size:, -1].reshape(size, size))
    return out


def main() -> None:
    problem = generators.two_point(p=10, lam=1e-20, seed=0)
    run = simulate(problem, ExactFlow(), np.linspace(0, HORIZON, 101))
    start = time.perf_counter()
    tube = certify(run, max_saved=101)
    print(f"tube: {tube.steps} steps to t = {tube.end:.4g} ({time.perf_counter() - start:.1f} s;"
          f" {tube.why})")
    mus, defects = _tube_rates(tube)
    growth = np.concatenate([[0.0], np.cumsum(mus * np.diff(tube.bounds))])
    grid = np.arange(0.0, max(TIMES) + WIDTH / 2, WIDTH)
    steps = _variational_steps(problem, grid)

    def boundary(t):
        return int(np.searchsorted(tube.bounds, t, side="right") - 1)

    print("| t | tube radius r(t) | exp(int_0^t mu) | ||Phi(t, 0)|| | "
          "int_0^t ||Phi(t, s)|| delta(s) ds |")
    print("|---|---|---|---|---|")
    for T in TIMES:
        j = int(round(T / WIDTH))
        M, norms = np.eye(steps[0].shape[0]), [1.0] * (j + 1)
        for i in range(j - 1, -1, -1):  # Phi(t, grid[i]) = Phi(t, grid[i + 1]) Phi_i
            M = M @ steps[i]
            norms[i] = float(np.linalg.norm(M, 2))
        linear = sum(norms[i] * defects[min(boundary(grid[i]), tube.steps - 1)] * WIDTH
                     for i in range(j) if grid[i] < tube.end)
        inside = T <= tube.end
        r = f"{tube.r0[boundary(T)]:.3g}" if inside else "-"
        g = f"{np.exp(growth[boundary(T)]):.3g}" if inside else "-"
        print(f"| {T} | {r} | {g} | {norms[0]:.3g} | {linear:.3g} |", flush=True)


if __name__ == "__main__":
    main()
