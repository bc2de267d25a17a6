"""Benchmark (not a test): the power of `gfverify tighten` on the true statements of the
conjecture benchmark that have a free constant.

`bench/conjectures.py` holds statements whose truth is argued next to them. Every true
for-all-t one whose bound carries a constant factor is asked here with that factor freed
(``CONSTANTS``: the statement with ``C`` in the constant's place, and the value the
statement uses): `verify.tighten.tighten` at its defaults (budget 20, seed 0, the
statement's family, parameters and method) returns the sharpest constant over the family,
with its error and a witness. A row is *decided* when the verdict is SHARPEST FOUND (the
tighten's own check: the statement with C moved 2% past the sharpest value is VIOLATED on
the witness and 2% back HOLDS). The witness is then *replayed* independently, by
`verify.conjecture.conjecture` on the witness's parameters (budget 1): at the value 2%
past, at the witness's time (``--at-t``), it must answer COUNTEREXAMPLE; at 2% back,
over the statement's window, NO COUNTEREXAMPLE. The sharpest value
must also lie on the true side of the statement's own constant (the statement is true:
where C is bounded below, the sharpest value is at most the statement's; above, at least).

Left out, with the reason: the for-all-t statements whose bound is a tolerance or 0
(``Balance(t) <= 1e-7``, ``SignFlips(t) <= 0``, ``CrossGroupJac(t) <= 0``): freeing it
measures the round-off of a conserved or exactly-zero quantity, not a constant of a bound.

Target (issue 41): at least 90% of the rows decided, every decided witness replayed.

    python bench/tightness.py [--budget N] [--only SUBSTRING] [--jobs J] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

import conjectures as cj

# id -> (the statement with C in place of its constant, the constant it uses[, conditions on
# the instance: `--assume`, where the constant multiplies a factor whose sign the family
# does not fix])
CONSTANTS: dict[str, tuple] = {
    "TP-drift": ("ParamDrift(t) <= C*sqrt(kappa*t*L(0))", 1.0),
    "TP-pl-low": ("PL(t) >= C*Xmin**2*Emin(t)/n", 2.0),
    "TP-growth": ("log(NormW(t)) <= log(NormW(0)) + C*Xmax*sqrt(2*L(0)/n)*t", 1.0),
    "TP-drift-gd": ("ParamDrift(t) <= C*sqrt(kappa*t*L(0))", 1.0),
    "OR-pl-up": ("PL(t) <= C*Emax(t)/n", 4.0),
    "OR-growth": ("log(NormW(t)) <= log(NormW(0)) + C*sqrt(2*L(0)/n)*t", 1.0),
    "OR-resid": ("R(t) <= C*sqrt(2*n*L(0))", 1.0),
    "OA-pl-low": ("PL(t) >= C*Xmin**2*Emin(t)/n", 2.0),
    "OA-pl-up": ("PL(t) <= C*Xmax**2*Emax(t)/n", 4.0),
    "OA-pl-fit": ("PL(t) >= C*Xmin*MinAbsY*MinFitRatio(t)/n", 2.0),
    "OA-pl-low-gd": ("PL(t) >= C*Xmin**2*Emin(t)/n", 2.0),
    "SP-drift": ("ParamDrift(t) <= C*sqrt(kappa*t*L(0))", 1.0),
    "SP-resid": ("R(t) <= C*sqrt(2*n*L(0))", 1.0),
    # where GammaMax > 1 the bound is <= 0 for every C >= 0 (trivially true, and the
    # constant is then bounded from the other side): tightened where GammaMax < 1
    "SP-pl-gersh": ("PL(t) >= C*(1 - GammaMax)*Xmin**2*Emin(t)/n", 2.0, ("GammaMax < 1",)),
    "SE-growth": ("log(NormW(t)) <= log(NormW(0)) + C*Xmax*L(0)*t", 1.0),
    "SE-monotone": ("L(t) <= C*L(0)", 1.0),
    "GR-pl-low": ("PL(t) >= C*Emin(t)/n", 2.0),
    "GR-capacity": ("NormW(t)**2 <= C*p*Cy_plus*sqrt(n)", 1.0),
}
LEFT_OUT = ("SP-balance", "SE-balance", "OA-signs", "GR-decoupled", "GR-decoupled-gd")
TARGET = 0.9


def statements() -> list[cj.Statement]:
    """The conjecture benchmark's statements asked here, in its order."""
    chosen = [s for s in cj.STATEMENTS if s.id in CONSTANTS]
    missing = set(CONSTANTS) - {s.id for s in chosen}
    if missing:
        raise SystemExit(f"error: CONSTANTS names statements the conjecture benchmark does "
                         f"not have: {sorted(missing)}")
    unlisted = [s.id for s in cj.STATEMENTS if s.truth and s.mode == "for_all_t"
                and s.id not in CONSTANTS and s.id not in LEFT_OUT]
    if unlisted:
        raise SystemExit(f"error: true for-all-t statements neither asked nor left out: "
                         f"{unlisted}")
    return chosen


def at(text: str, value: float) -> str:
    """``text`` with its free constant C set to ``value``."""
    return re.sub(r"\bC\b", repr(float(value)), text)


def _replay(stmt: cj.Statement, text: str, value: float, params: dict,
            at_t: float | None = None, assume=()) -> str:
    """`conjecture` on the witness at C = ``value``: at the witness's time ``at_t`` (the 2%
    past check: it fails there), or over the statement's window (2% back: it holds)."""
    from verify.conjecture import conjecture

    result = conjecture(at(text, value), stmt.family, params=params, budget=1, seed=0,
                        mode="at_t" if at_t is not None else stmt.mode, at_t=at_t,
                        method=stmt.method, lr=stmt.lr, plot=None, assume=assume)
    return result.verdict


def run_statement(stmt: cj.Statement, budget: int, seed: int) -> dict:
    """Tighten ``stmt`` (its constant freed) in this process, replay the witness; its row."""
    cj.warm_up([stmt])
    from verify.tighten import tighten

    text, used, *rest = CONSTANTS[stmt.id]
    assume = rest[0] if rest else ()
    row = {"id": stmt.id, "family": stmt.family, "method": stmt.method, "statement": text,
           "used": used, "assume": list(assume), "budget": budget, "seed": seed}
    start = time.perf_counter()
    try:
        result = tighten(text, stmt.family, free="C", params=stmt.params_dict, budget=budget,
                         seed=seed, method=stmt.method, lr=stmt.lr, plot=None,
                         assume=assume)
    except Exception as exc:  # noqa: BLE001 - reported, never hidden
        row.update(verdict="ERROR", error=f"{type(exc).__name__}: {exc}")
        row["seconds"] = time.perf_counter() - start
        return row
    row.update(verdict=result.verdict, error="", sharpest=result.sharpest,
               sharpest_error=result.error, direction=result.direction,
               counts=result.counts(), reasons=result.reasons(),
               searched=len(result.searched), left_out=result.left_out,
               replay_command=result.replay())
    w = result.witness
    if result.verdict == "SHARPEST FOUND":
        # the witness's parameters over the statement's fixed ones (its horizon)
        params = {**stmt.params_dict, **w.searched.params}
        t_witness = w.searched.extreme.t
        row.update(witness=params, past=w.past, back=w.back, t_witness=t_witness,
                   replay_past=_replay(stmt, text, w.past, params, t_witness, assume),
                   replay_back=_replay(stmt, text, w.back, params, assume=assume))
        row["replayed"] = (row["replay_past"] == "COUNTEREXAMPLE"
                           and row["replay_back"] == "NO COUNTEREXAMPLE")
        # the statement is true: its own constant is on the holding side of the sharpest
        row["true_side"] = bool((used - result.sharpest) * result.direction
                                >= -result.error)
    row["seconds"] = time.perf_counter() - start
    return row


HEADER = (f"{'id':<13} {'family':<16} {'method':<6} {'verdict':<15} {'sharpest':>22} "
          f"{'used':>5} {'replay':<7} {'s':>6}  statement")


def row_line(r: dict) -> str:
    if r.get("sharpest") is not None and r["verdict"] == "SHARPEST FOUND":
        sharp = f"{r['sharpest']:.6g} +- {r['sharpest_error']:.1g}"
        replay = "yes" if r["replayed"] and r["true_side"] else "NO"
    else:
        sharp, replay = "-", "-"
    return (f"{r['id']:<13} {r['family']:<16} {r['method']:<6} {r['verdict']:<15} "
            f"{sharp:>22} {r['used']:>5g} {replay:<7} {r['seconds']:>6.1f}  {r['statement']}"
            + "".join(f" --assume '{a}'" for a in r.get("assume", ())))


def summarise(rows: list[dict]) -> dict:
    decided = [r for r in rows if r["verdict"] == "SHARPEST FOUND"]
    return {"rows": len(rows), "decided": len(decided),
            "decided_share": len(decided) / len(rows) if rows else float("nan"),
            "replayed": sum(bool(r.get("replayed")) for r in decided),
            "true_side": sum(bool(r.get("true_side")) for r in decided),
            "undecided_ids": [r["id"] for r in rows if r["verdict"] != "SHARPEST FOUND"],
            "not_replayed_ids": [r["id"] for r in decided
                                 if not (r.get("replayed") and r.get("true_side"))],
            "seconds_total": sum(r["seconds"] for r in rows)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--budget", type=int, default=20,
                        help="instances per statement (default 20, tighten's own)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", metavar="SUBSTRING")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    chosen = [s for s in statements()
              if not args.only or args.only.lower() in f"{s.id} {s.family}".lower()]
    print(f"{len(chosen)} statements with a free constant (left out: {', '.join(LEFT_OUT)}), "
          f"budget {args.budget}, seed {args.seed}, {args.jobs} at a time")
    print(HEADER)
    start = time.perf_counter()
    rows = cj.run_all(chosen, args.budget, args.seed, args.jobs,
                      on_row=lambda r: print(row_line(r), flush=True), worker=run_statement)
    wall = time.perf_counter() - start
    s = summarise(rows)
    print()
    print(f"decided (SHARPEST FOUND): {s['decided']}/{s['rows']} ({s['decided_share']:.0%}; "
          f"target {TARGET:.0%})")
    print(f"witness replayed by conjecture (2% past: COUNTEREXAMPLE, 2% back: NO "
          f"COUNTEREXAMPLE) and on the true side of the statement's constant: "
          f"{min(s['replayed'], s['true_side'])}/{s['decided']}")
    for r in rows:
        if r["verdict"] != "SHARPEST FOUND":
            why = r.get("error") or "; ".join(f"{k} x {v}" for v, k in
                                              r.get("reasons", {}).items())
            print(f"  {r['id']}: {r['verdict']}: {why}")
    print(f"seconds: {s['seconds_total']:.0f} in the statements, {wall:.0f} wall")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"budget": args.budget, "seed": args.seed, "summary": s, "rows": rows,
                       "versions": cj.versions()}, handle, indent=2, default=str)
    ok = s["decided_share"] >= TARGET and not s["not_replayed_ids"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
