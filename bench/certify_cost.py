"""What a certificate costs next to the float run it certifies, and how tight it is.

For each instance: the exact flow's run (101 saved times, its companion included), then
`numerics.certify.certify` on it and the separate checker on the written file, each timed
on one BLAS thread, and S002-T1 decided on the tube. Printed per instance: sizes, the
run's time, the certificate's and the checker's, their ratios to the run, steps and
crossing windows (crossings with a concave kink; a convex one needs none), how far the
tube reaches (the horizon, or where it stopped and why), the largest radius against the
run's companion error estimate, and S002-T1's certified outcome.

Instances: S002's two-point example at widths 10, 30 and 60 (its horizon), CF-7's group
initialisation (n = 6, no crossing) and S002's orthogonal family at growing sizes
(lam = 1e-6), where every crossing's kink is convex.

    python bench/certify_cost.py        # a few minutes on a quiet machine
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
from theory import get  # noqa: E402
from verify.certified import certify_claim  # noqa: E402


def _instances():
    for p in (10, 30, 60):
        prob = generators.two_point(p=p, lam=1e-6 / np.sqrt(p), seed=0)
        yield f"two-point p={p}", prob, s002_horizon(prob)
    yield ("CF-7 group n=6 p=3", generators.group(6, (1, 2, 3), seed=2, scale=0.05,
                                                  aligned=False), 30.0)
    for n, p, seed in ((3, 10, 0), (3, 30, 0), (2, 20, 1), (4, 10, 2), (4, 60, 0),
                       (5, 100, 0)):
        prob = ORTHOGONAL.build(n=n, p=p, d=n, lam=1e-6, seed=seed)
        yield f"orthogonal n={n} p={p} seed={seed}", prob, s002_horizon(prob)


def main() -> None:
    print("| instance | n | p | horizon | run (s) | certify (s) | check (s) | certify / run "
          "| check / run | steps | windows | certified to | max radius | companion error "
          "| radius / error | S002-T1 |")
    print("|" + "---|" * 16)
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
            t1 = certify_claim(get("S002-T1"), run, tube=tube).outcome.value
            print(f"| {name} | {prob.n} | {prob.p} | {horizon:.1f} | {t_run:.2f} | "
                  f"{t_cert:.2f} | {t_check:.2f} | {t_cert / t_run:.0f} | "
                  f"{t_check / t_run:.0f} | {tube.steps} | {tube.windows} | {reach} | "
                  f"{tube.radii.max():.2g} | {run.error_estimate:.2g} | "
                  f"{tube.radii.max() / run.error_estimate:.2g} | {t1} |", flush=True)


if __name__ == "__main__":
    main()
