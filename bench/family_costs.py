"""What one run of each family's instances costs, at its defaults and at the sizes its
search reaches (and, for the sphere family, at E-000-2's sizes).

For every built-in family (`verify.families.all_families`), on this machine, one BLAS
thread: the run `gfverify conjecture` makes of one instance (the exact flow to the
family's horizon with its companion, the family's coordinates,
`verify.conjecture.instance.run_family_instance`, 201 saved times), timed at

- the family's defaults;
- every size parameter at the top of its search range (the others at their defaults);
- the extra points `EXTRA` names (the sphere family at E-000-2's n = 100 and 200 with
  d = 40, p = 30).

It prints the wall time, the steps and the activation events of each, and with
``--write`` stores them in ``verify/family_costs.json`` (package data), which
``gfverify families`` prints under each family ("what a run costs there").

    python bench/family_costs.py            # several minutes on a 2-core machine
    python bench/family_costs.py --write
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "verify" / "family_costs.json"
# Points measured beyond the defaults and the tops of the search ranges.
EXTRA = {"sphere": ({"n": 100, "d": 40, "p": 30, "seed": 0},
                    {"n": 200, "d": 40, "p": 30, "seed": 0})}
SIZES = ("n", "d", "p", "h", "m", "groups")


def _points(fam) -> list[dict]:
    base = fam.defaults(seed=0)
    points = [dict(base)]
    for name, spec in fam.params.items():
        if name not in SIZES or spec.kind != "int":
            continue
        top = fam.defaults(seed=0, **{name: spec.hi})  # the rules follow (p = R(n), d = 2n)
        for other, ospec in fam.params.items():  # within the other sizes' ranges
            if other in SIZES and other != name and ospec.kind == "int":
                lo = max(ospec.lo, top[ospec.ge]) if ospec.ge in top else ospec.lo
                top[other] = min(max(top[other], lo), max(ospec.hi, lo))
        if top not in points:
            points.append(top)
    for extra in EXTRA.get(fam.name, ()):
        points.append({**base, **extra})
    return points


def measure(fam, params: dict) -> dict:
    from verify.conjecture.instance import MethodSpec, run_family_instance

    problem = fam.make(params)
    start = time.perf_counter()
    tr, horizon = run_family_instance(fam, problem, params, MethodSpec(), 201, [])
    wall = time.perf_counter() - start
    return {"params": {k: v for k, v in params.items() if k != "seed"}, "seconds": round(wall, 2),
            "horizon": round(float(horizon), 4), "steps": int(tr.n_steps),
            "events": len(tr.events), "status": tr.status.name,
            "engine": tr.provenance.get("engine", "")}


def main(args) -> None:
    from numerics.problem import ProblemError
    from theory import packs
    from verify.families import all_families

    builtin = {p.name for p in packs.packs() if p.builtin}
    load_before = [round(x, 2) for x in os.getloadavg()]
    rows: dict[str, list] = {}
    for name, fam in all_families().items():
        if fam.setting not in builtin:
            continue
        rows[name] = []
        for params in _points(fam):
            try:
                row = measure(fam, params)
            except ProblemError as exc:  # a point the family cannot draw: said, not stored
                print(f"{name:<18} {params}: not drawn: {exc}", flush=True)
                continue
            rows[name].append(row)
            shown = " ".join(f"{k}={v}" for k, v in row["params"].items())
            print(f"{name:<18} {shown:<52} {row['seconds']:>8.2f} s  steps {row['steps']:>7}  "
                  f"events {row['events']:>6}  {row['status']} ({row['engine']})", flush=True)
    if args.write:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        OUT.write_text(json.dumps({
            "measured": {"date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
                         "commit": commit, "cores": os.cpu_count(),
                         "load": [load_before[0], round(os.getloadavg()[0], 2)],
                         "by": "python bench/family_costs.py --write"},
            "families": rows}, indent=1) + "\n")
        print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="store the costs for gfverify families")
    main(ap.parse_args())
