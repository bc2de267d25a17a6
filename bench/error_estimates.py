"""How tight the error estimates of the trajectory quantities are: true error / estimate.

Runs the harness of ``tests/verify/engine/test_error_estimates.py`` (same instances, same runs,
same reference: ExactFlow(rtol=1e-13) in the run's coordinates, mpmath on the two-point
example; gradient descent against the exact flow) and prints, for every trajectory
quantity and family (instances of one family pooled; gradient-descent instances in their
own columns), ``worst/median`` of the ratio

    |Q(run) - Q(reference)| / estimate      over the saved times with a finite estimate.

A ratio above 1 is an estimate below the true error; 1e-4 an estimate 10^4 times too
pessimistic. Marks: ``!`` the true error certainly exceeds the estimate somewhere (even
less the reference's own spread against its companion: the test fails); ``~`` exceeds it
only within the reference's spread (reference-limited: not decided); ``=0`` run and
reference identically 0 with estimate 0 (checked, vacuously); ``-`` not defined on that
family's instances; ``?`` estimate unknown (inf) at every time. Then the failures with
where they are worst, the reference-limited cases, quantities whose measurement emits
floating-point warnings, and what is undefined where.

    python bench/error_estimates.py             # about 25 s on 2 cores
    python bench/error_estimates.py --labels    # also one column per instance
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _harness():
    path = ROOT / "tests" / "verify" / "test_error_estimates.py"
    spec = importlib.util.spec_from_file_location("error_estimate_harness", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _cell(comps) -> str:
    checked = [c for c in comps if c.status == "checked"]
    if not checked:
        return "-"
    if all(c.trivial for c in checked):
        return "=0"
    known = np.concatenate([c.ratio[c.known] for c in checked])
    if known.size == 0:
        return "?"
    worst, median = float(np.max(known)), float(np.median(known))
    mark = ("!" if any(c.failing.any() for c in checked)
            else "~" if any(c.exceeded.any() for c in checked) else "")

    def fmt(x: float) -> str:
        return "0" if x == 0 else "inf" if np.isinf(x) else f"{x:.0e}".replace("e-0", "e-")

    return f"{fmt(worst)}/{fmt(median)}{mark}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--labels", action="store_true", help="one column per instance too")
    args = ap.parse_args()

    start = time.perf_counter()
    H = _harness()
    timings = {}
    for label in H.ALL_INSTANCES:
        t0 = time.perf_counter()
        H.run_under_test(label)
        t1 = time.perf_counter()
        H.reference(label)
        t2 = time.perf_counter()
        for form in H.FORMS:
            H.comparisons(label, form)
        timings[label] = (t1 - t0, t2 - t1, time.perf_counter() - t2)

    families = list(dict.fromkeys(s.family for s in H.INSTANCES.values()))
    columns = [(f, [lab for lab, s in H.INSTANCES.items() if s.family == f]) for f in families]
    columns += [(lab, [lab]) for lab in H.GD_INSTANCES]
    if args.labels:
        columns += [(lab, [lab]) for lab in H.INSTANCES if len(
            [x for x in H.INSTANCES if H.INSTANCES[x].family == H.INSTANCES[lab].family]) > 1]

    print("instances:")
    for label, spec in H.ALL_INSTANCES.items():
        run, ref = H.run_under_test(label), H.reference(label)
        tr, tf, tc = timings[label]
        params = " ".join(f"{k}={v}" for k, v in spec.params)
        print(f"  {label:22s} {params}  [{spec.why}]")
        print(f"  {'':22s} run {run.method} {run.status.name} est {run.error_estimate:.1e} "
              f"({tr:.2f}s), reference {ref.method} ({tf:.2f}s), measures {tc:.2f}s")
    width = max(13, *(len(c[0]) + 1 for c in columns))
    for form in H.FORMS:
        names = H.names_for(form)
        title = "Q(t)" if form == "value" else "Q(t) - Q(0)"
        print(f"\n{title}: worst/median of |run - ref| / estimate  (! fails, ~ reference-"
              "limited, =0 vacuous, - undefined)")
        print(f"{'quantity':18s}" + "".join(f"{c[0]:>{width}s}" for c in columns))
        for name in names:
            cells = [_cell([H.comparisons(lab, form)[name] for lab in labs])
                     for _, labs in columns]
            print(f"{name:18s}" + "".join(f"{c:>{width}s}" for c in cells))

    every = [(form, name, label, H.comparisons(label, form)[name]) for form in H.FORMS
             for name in H.names_for(form) for label in H.ALL_INSTANCES]
    print("\nFAILURES (true error certainly above the estimate), worst time per instance:")
    n_fail = 0
    for form, name, label, c in every:
        if c.status == "checked" and c.failing.any():
            n_fail += 1
            print("  " + c.where())
        elif c.status == "error":
            n_fail += 1
            print(f"  {name} ({form}) on {label}: CRASHED: {c.reason}")
    print(f"  ({n_fail} quantity/instance pairs)")

    print("\nreference-limited (above the estimate only within the reference's own spread):")
    for _form, _name, _label, c in every:
        if c.status == "checked" and c.exceeded.any() and not c.failing.any():
            k = int(np.flatnonzero(c.exceeded)[np.argmax(c.ratio[c.exceeded])])
            print("  " + c.where(k))

    print("\nfloating-point warnings while measuring (run, reference or companion):")
    seen = {}
    for _form, name, label, c in every:
        for w in c.warnings:
            seen.setdefault((name, w), set()).add(label)
    for (name, w), labels in seen.items():
        print(f"  {name}: {w} [{', '.join(sorted(labels))}]")

    print("\nundefined (skipped) on:")
    for name in H.quantity_names():
        undefined = {}
        for label in H.ALL_INSTANCES:
            c = H.comparisons(label)[name]
            if c.status == "undefined":
                undefined.setdefault(c.reason[:90], []).append(label)
        for reason, labels in undefined.items():
            print(f"  {name}: {reason} [{', '.join(labels)}]")
    vacuous = [n for n in H.quantity_names()
               if all(c.trivial for lab in H.ALL_INSTANCES
                      if (c := H.comparisons(lab)[n]).status == "checked")]
    print(f"\nidentically 0 on every instance (checked only vacuously): {', '.join(vacuous)}")
    print(f"\ntotal {time.perf_counter() - start:.1f}s")


if __name__ == "__main__":
    main()
