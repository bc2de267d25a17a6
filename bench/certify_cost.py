"""What a certificate costs next to the float run it certifies, and how tight it is.

For each instance: the exact flow's run (101 saved times, its companion included), then
`numerics.certify.certify` on it and the separate checker on the written file, each timed
on one BLAS thread. Printed per instance: sizes, the run's time, the certificate's and the
checker's, their ratios to the run, steps and crossing windows, how far the tube reaches
(the horizon, or where it stopped and why), the largest radius against the run's
companion error estimate.

Instances: S002's two-point example at widths 10, 30 and 60 (its horizon), CF-7's group
initialisation (n = 6, no crossing) and S002's orthogonal family (n = 3, p = 30,
lam = 1e-6; its tube stops early: every deactivation multiplies the radius, see the
certificates page).

    python bench/certify_cost.py        # about two minutes on a quiet machine
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from numerics import ExactFlow, generators, simulate  # noqa: E402
from numerics.certify import certify, check_certificate  # noqa: E402
from papers.s002.evidence import s002_horizon  # noqa: E402
from papers.s002.families import ORTHOGONAL  # noqa: E402


def _instances():
    for p in (10, 30, 60):
        prob = generators.two_point(p=p, lam=1e-6 / np.sqrt(p), seed=0)
        yield f"two-point p={p}", prob, s002_horizon(prob)
    yield ("CF-7 group n=6 p=3", generators.group(6, (1, 2, 3), seed=2, scale=0.05,
                                                  aligned=False), 30.0)
    prob = ORTHOGONAL.build(n=3, p=30, d=3, lam=1e-6, seed=0)
    yield "orthogonal n=3 p=30", prob, s002_horizon(prob)


def main() -> None:
    print("| instance | n | p | horizon | run (s) | certify (s) | check (s) | certify / run "
          "| check / run | steps | windows | certified to | max radius | companion error "
          "| radius / error |")
    print("|" + "---|" * 15)
    with tempfile.TemporaryDirectory() as tmp:
        for name, prob, horizon in _instances():
            t = np.linspace(0.0, horizon, 101)
            start = time.perf_counter()
            run = simulate(prob, ExactFlow(), t)
            t_run = time.perf_counter() - start
            start = time.perf_counter()
            tube = certify(run)
            t_cert = time.perf_counter() - start
            path = tube.write(Path(tmp) / "c.npz")
            start = time.perf_counter()
            check_certificate(path)
            t_check = time.perf_counter() - start
            reach = "horizon" if tube.complete else f"t = {tube.end:.3g} of {horizon:.3g}"
            print(f"| {name} | {prob.n} | {prob.p} | {horizon:.1f} | {t_run:.2f} | "
                  f"{t_cert:.2f} | {t_check:.2f} | {t_cert / t_run:.0f} | "
                  f"{t_check / t_run:.0f} | {tube.steps} | {tube.windows} | {reach} | "
                  f"{tube.radii.max():.2g} | {run.error_estimate:.2g} | "
                  f"{tube.radii.max() / run.error_estimate:.2g} |", flush=True)


if __name__ == "__main__":
    main()
