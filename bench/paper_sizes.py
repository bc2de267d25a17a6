"""The cost of one run per group of checks (the packs' sizes tables, `verify.results.sizes`), from a
suite run that measured it.

``pytest verify --verify-profile paper --verify-json V.json`` records, for every claim,
the CPU seconds of the largest run a test recording it asked for (``run_cpu``: the plugin
times each run through its runner, `verify.running.runs`, and the store keeps what a run cost when
it is read back). This script takes the largest over each group's claims and, with
``--write``, stores it under the run's profile in ``verify/results/paper_costs.json`` (package
data), which the findings page's sizes table shows (``gfverify findings --page``).

    python bench/paper_sizes.py V.json            # print the costs per group
    python bench/paper_sizes.py V.json --write    # and store them
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "verify" / "results" / "paper_costs.json"


def group_costs(run: dict) -> dict[str, float]:
    """Group key -> the largest ``run_cpu`` over its claims' rows in ``run``."""
    from verify.results.sizes import declared

    by_claim: dict[str, float] = {}
    for row in run.get("claims") or []:
        if row.get("run_cpu") is not None:
            base = row["claim"].split("[")[0]
            by_claim[base] = max(by_claim.get(base, 0.0), float(row["run_cpu"]))
    out = {}
    for group in declared():
        costs = [by_claim[c] for c in group.claims if c in by_claim]
        if costs:
            out[group.key] = max(costs)
    return out


def main(args) -> None:
    from verify.instances.run_cost import duration_text
    from verify.results.findings import load_run

    run = load_run(args.verdicts)
    profile = run["profile"] or "?"
    costs = group_costs(run)
    for key, seconds in costs.items():
        print(f"{key:<60} {profile}: {duration_text(seconds)} ({seconds:.1f} s CPU)")
    if args.write:
        old = json.loads(OUT.read_text()) if OUT.exists() else {}
        groups = old.get("groups", {})
        for key, seconds in costs.items():
            groups.setdefault(key, {})[profile] = round(seconds, 1)
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        OUT.write_text(json.dumps({
            "measured": {"date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d"),
                         "commit": commit, "profile": profile,
                         "by": "pytest verify --verify-profile paper --verify-json V.json; "
                               "python bench/paper_sizes.py V.json --write"},
            "groups": groups}, indent=1) + "\n")
        print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("verdicts", help="verdicts.json of pytest verify --verify-json")
    ap.add_argument("--write", action="store_true", help="store the costs for the sizes table")
    main(ap.parse_args())
