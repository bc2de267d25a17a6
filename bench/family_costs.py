"""What one run of each family's instances costs, at its defaults, at the sizes its default
search reaches and at its papers' sizes (``--sizes paper``).

For every built-in family (`verify.instances.families.all_families`), on this machine, one BLAS
thread: the run `gfverify conjecture` makes of one instance (the exact flow to the
family's horizon with its companion, the family's coordinates,
`verify.conjecture.instance.run_family_instance`, 201 saved times), timed at

- the family's defaults;
- every size parameter at the top of its default drawn range (the others at their
  defaults);
- the papers' sizes: every size parameter at the top of its ``paper`` drawn range, and at
  its geometric middle (the others at their defaults);
- the extra points `EXTRA` names (the sphere family at E-000-2's n = 100 and 200 with
  d = 40, p = 30; cel23-experiments at d = 64 and the paper's m = 200).

It prints the CPU seconds (one core: the cost model's unit, unaffected by other jobs
waiting for the cores), the wall seconds, the steps and the activation events of each, and
with ``--write`` stores them in ``verify/instances/family_costs.json`` (package data), which
``gfverify families`` prints under each family and from which `verify.instances.run_cost` fits each
family's cost model (``--max-cost``). ``--only NAME`` measures one family and keeps the
others' stored rows.

    python bench/family_costs.py            # an hour or more on a 2-core machine
    python bench/family_costs.py --write
    python bench/family_costs.py --only cel23-experiments --write
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import subprocess
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "GFVERIFY_THREADS"):
    os.environ.setdefault(_var, "1")

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "verify" / "instances" / "family_costs.json"
# Points measured beyond the defaults and the tops of the drawn ranges.
EXTRA = {"sphere": ({"n": 100, "d": 40, "p": 30, "seed": 0},
                    {"n": 200, "d": 40, "p": 30, "seed": 0}),
         # E-CEL23-1's d = 64 at the paper's width (the issue's conjecture at d = 64)
         "cel23-experiments": ({"d": 64, "m": 200, "seed": 0},)}
SIZES = ("n", "d", "p", "h", "m", "groups", "n_plus", "n_minus", "K", "n_per_class")


def _within(fam, point: dict) -> dict:
    """``point`` with every size inside its drawn range and the bounds between sizes kept
    (d >= n: d moves up to n)."""
    out = dict(point)
    for name, spec in fam.params.items():
        if name in SIZES and spec.kind == "int":
            lo, hi = spec.bounds(out)
            out[name] = min(max(out[name], lo), hi)
    return out


def _top(fam, which: str, name: str, where: float = 1.0) -> dict:
    lo, hi = fam.params[name].range(which)
    value = hi if where >= 1.0 else int(round(math.exp(
        math.log(max(lo, 1)) + where * (math.log(hi) - math.log(max(lo, 1))))))
    top = fam.defaults(seed=0, **{name: value})  # the rules follow (p = R(n), d = 2n)
    return _within(fam.sized(which), top)


def _points(fam) -> list[tuple[str, dict]]:
    base = fam.defaults(seed=0)
    points = [("defaults", dict(base))]
    for which in ("default", "paper"):
        for name, spec in fam.params.items():
            if name not in SIZES or spec.kind != "int":
                continue
            if which == "paper" and spec.range("paper") == spec.range("default"):
                continue
            marks = (1.0,) if which == "default" else (0.5, 1.0)
            for where in marks:
                top = _top(fam, which, name, where)
                if all(top != p for _, p in points):
                    points.append((which, top))
    for extra in EXTRA.get(fam.name, ()):
        points.append(("extra", {**base, **extra}))
    return points


def measure(fam, params: dict) -> dict:
    from verify.conjecture.instance import MethodSpec, run_family_instance

    problem = fam.make(params)
    cpu, start = time.process_time(), time.perf_counter()
    spec = MethodSpec(max_cost=math.inf)  # measured whatever the current model says
    tr, horizon = run_family_instance(fam, problem, params, spec, 201, [])
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"params": {k: v for k, v in params.items() if k != "seed"},
            "seconds": round(cpu, 2), "wall_seconds": round(wall, 2),
            "horizon": round(float(horizon), 4), "steps": int(tr.n_steps),
            "events": len(tr.events), "status": tr.status.name,
            "engine": tr.provenance.get("engine", "")}


def main(args) -> None:
    from numerics.problem import ProblemError
    from theory import packs
    from verify.instances.families import all_families

    builtin = {p.name for p in packs.packs() if p.builtin}
    load_before = [round(x, 2) for x in os.getloadavg()]
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    rows: dict[str, list] = dict(old.get("families", {})) if args.only else {}
    for name, fam in all_families().items():
        if fam.setting not in builtin or (args.only and name not in args.only):
            continue
        rows[name] = []
        for which, params in _points(fam):
            try:
                row = measure(fam, params)
            except ProblemError as exc:  # a point the family cannot draw: said, not stored
                print(f"{name:<18} {params}: not drawn: {exc}", flush=True)
                continue
            row["sizes"] = which
            rows[name].append(row)
            shown = " ".join(f"{k}={v}" for k, v in row["params"].items())
            print(f"{name:<18} {shown:<52} {row['seconds']:>8.2f} s CPU "
                  f"({row['wall_seconds']:.1f} wall)  steps {row['steps']:>7}  "
                  f"events {row['events']:>6}  {row['status']} ({row['engine']})", flush=True)
        if args.write:  # after each family: a stopped run keeps the families measured
            _write(rows, old, name, load_before, args.only)
    if args.write:
        print(f"wrote {OUT.relative_to(ROOT)}")


def _write(rows: dict, old: dict, name: str, load_before: list, only) -> None:
    """Store ``rows`` with each family's own header (date, commit, load, command) in
    ``measured_families``: ``name``'s is this run's, the families carried over with ``--only``
    keep theirs (the file's former header, for a file written before per-family headers)."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    header = {"date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
              "commit": commit, "cores": os.cpu_count(),
              "load": [load_before[0], round(os.getloadavg()[0], 2)],
              "unit": "CPU seconds of one core (wall_seconds: elapsed)",
              "by": "python bench/family_costs.py --write"
                    + (f" --only {' '.join(only)}" if only else "")}
    former = old.get("measured_families", {})
    headers = {fam: former.get(fam, old.get("measured", header)) for fam in rows}
    headers.update(_written)
    headers[name] = _written[name] = header
    tmp = OUT.with_name(OUT.name + ".partial")
    tmp.write_text(json.dumps({"measured": header, "measured_families": headers,
                               "families": rows}, indent=1) + "\n")
    tmp.replace(OUT)


_written: dict[str, dict] = {}  # the headers of the families this run measured


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="store the costs for gfverify families")
    ap.add_argument("--only", nargs="+", metavar="FAMILY", default=None,
                    help="measure these families only (the others' stored rows are kept)")
    main(ap.parse_args())
