"""What a certificate costs next to the float run it certifies, and how tight it is.

For each instance: the exact flow's run (101 saved times, its companion included), then
`numerics.certify.certify` on it, S002-T1 decided on the tube and written with it, and the
separate checker on the file (which re-verifies the tube and re-decides the claim), each
timed on one BLAS thread. Printed per instance: sizes, the run's time, the certificate's
and the checker's, their ratios to the run, steps and crossing windows (crossings with a
concave kink; a convex one needs none), how far the tube reaches (the horizon, or where
it stopped and why), the largest radius against the run's companion error estimate,
S002-T1's certified outcome (with the time it was decided at) and the float verdict.

Sets of instances:

- ``small`` (default): S002's two-point example at widths 10, 30 and 60, CF-7's group
  initialisation (n = 6, no crossing) and S002's orthogonal family at growing sizes
  (lam = 1e-6), where every crossing's kink is convex;
- ``reach``: the sizes past the suite's 400 weights: the orthogonal family at n = d = 10
  (p = 60 and p = 400, 4,400 weights) and the two-point example at p = 400; then where
  the certifier spends its time on the largest (cProfile, the functions of
  numerics.certify by their own time and with what they call).

    python bench/certify_cost.py                  # a few minutes on a quiet machine
    python bench/certify_cost.py --set reach      # about ten minutes
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
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
from verify.engine.certified import certify_claim  # noqa: E402
from verify.engine.check import check  # noqa: E402


def _small():
    for p in (10, 30, 60):
        prob = generators.two_point(p=p, lam=1e-6 / np.sqrt(p), seed=0)
        yield f"two-point p={p}", prob, s002_horizon(prob)
    yield ("CF-7 group n=6 p=3", generators.group(6, (1, 2, 3), seed=2, scale=0.05,
                                                  aligned=False), 30.0)
    for n, p, seed in ((3, 10, 0), (3, 30, 0), (2, 20, 1), (4, 10, 2), (4, 60, 0),
                       (5, 100, 0)):
        prob = ORTHOGONAL.build(n=n, p=p, d=n, lam=1e-6, seed=seed)
        yield f"orthogonal n={n} p={p} seed={seed}", prob, s002_horizon(prob)


def _reach():
    prob = generators.two_point(p=400, lam=1e-6 / np.sqrt(400), seed=0)
    yield "two-point p=400", prob, s002_horizon(prob)
    for p in (60, 400):  # the largest last: it is the one profiled
        prob = ORTHOGONAL.build(n=10, p=p, d=10, lam=1e-6, seed=0)
        yield f"orthogonal n=d=10 p={p}", prob, s002_horizon(prob)


_OURS = ("numerics/certify/",)


def _profile_lines(stats: pstats.Stats, total: float, top: int = 12) -> list[str]:
    rows = []
    for (file, _line, name), (_, _, tt, ct, _) in stats.stats.items():
        if any(part in file for part in _OURS):
            rows.append((ct, tt, f"{Path(file).stem}.{name}"))
    rows.sort(reverse=True)
    out = [f"where certify's {total:.1f} s went (cProfile; cumulative = with what it calls):",
           "| function | cumulative (s) | share | own time (s) |", "|---|---|---|---|"]
    for ct, tt, name in rows[:top]:
        out.append(f"| {name} | {ct:.1f} | {ct / total:.0%} | {tt:.1f} |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=("small", "reach"), default="small")
    args = parser.parse_args()
    instances = list(_small() if args.set == "small" else _reach())
    print("| instance | n | p | weights | horizon | run (s) | certify (s) | check (s) | "
          "certify / run | check / run | steps | windows | certified to | max radius | "
          "companion error | radius / error | S002-T1 certified | float |")
    print("|" + "---|" * 18)
    profiled = None
    with tempfile.TemporaryDirectory() as tmp:
        for k, (name, prob, horizon) in enumerate(instances):
            t = np.linspace(0.0, horizon, 101)
            start = time.perf_counter()
            run = simulate(prob, ExactFlow(), t)
            t_run = time.perf_counter() - start
            last = args.set == "reach" and k == len(instances) - 1
            prof = cProfile.Profile() if last else None
            start = time.perf_counter()
            if prof is not None:
                prof.enable()
            tube = certify(run)
            if prof is not None:
                prof.disable()
            t_cert = time.perf_counter() - start
            cert = certify_claim(get("S002-T1"), run, tube=tube, file=Path(tmp) / "c.npz")
            start = time.perf_counter()
            checked = check_certificate(cert.record["file"])
            t_check = time.perf_counter() - start
            assert checked.verdict.outcome == cert.outcome.value
            reach = "horizon" if tube.complete else f"t = {tube.end:.3g} of {horizon:.3g}"
            at = "" if cert.t is None else f" at {cert.t:.4g}"
            floats = check(get("S002-T1"), run).outcome.value
            print(f"| {name} | {prob.n} | {prob.p} | {prob.p * (prob.d + 1)} | "
                  f"{horizon:.1f} | {t_run:.2f} | {t_cert:.2f} | {t_check:.2f} | "
                  f"{t_cert / t_run:.0f} | {t_check / t_run:.0f} | {tube.steps} | "
                  f"{tube.windows} | {reach} | {tube.radii.max():.2g} | "
                  f"{run.error_estimate:.2g} | {tube.radii.max() / run.error_estimate:.2g} | "
                  f"{cert.outcome.value}{at} | {floats} |", flush=True)
            if prof is not None:
                profiled = (pstats.Stats(prof), t_cert, name)
    if profiled is not None:
        stats, total, name = profiled
        print()
        print(f"{name}:")
        print("\n".join(_profile_lines(stats, total)))


if __name__ == "__main__":
    main()
