"""The exact flow through sliding modes on S000's published setting (sphere data, p = 30).

Prints, measured in this run:

1. coverage: for each (n, d) of the grid and seeds 0..S-1, the share of flows that reach
   the horizon 2n with status SUCCESS, and the causes of the others;
2. invariants on those runs: balance drift (max_j |c_j(T) - c_j(0)|) against the run's own
   error estimate, and the energy identity dL/dt = -|dtheta/dt|^2 / kappa along sliding
   segments (central differences of the saved loss, away from events);
3. gradient descent at steps eta, eta/2, eta/4, eta/8 against the flow on one instance per
   size: errors and the fitted order;
4. cost: the flow against gradient descent at the largest step of the halving sequence
   that matches the flow to 1e-3 (max relative per-neuron difference), side by side.

    python bench/sliding.py                 # the acceptance grid (about an hour on 2 cores)
    python bench/sliding.py --seeds 3 --sizes 20x10,20x400   # a quick look
    python bench/sliding.py --activation leaky:0.1 --seeds 10 --sizes 20x10,50x20,100x40

With ``--activation`` the same instances run on that network (`numerics.with_model`);
the conserved quantity is then k a_j^2 - ||w_j||^2 with the activation's degree k.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed

import numpy as np

from numerics import ExactFlow, GradientDescent, generators, simulate, with_model
from numerics.coordinates import relative_difference

GRID = ((20, 10), (50, 20), (100, 40), (200, 40), (20, 40), (20, 400))
P = 30


def _instance(n, d, seed, activation):
    problem = generators.sphere(n=n, d=d, p=P, seed=seed)
    return problem if activation == "relu" else with_model(problem, activation=activation)


def _run(args):
    n, d, seed, points, activation = args
    problem = _instance(n, d, seed, activation)
    t = np.linspace(0.0, 2.0 * n, points)
    start = time.perf_counter()
    tr = simulate(problem, ExactFlow(), t)
    wall = time.perf_counter() - start
    out = {"n": n, "d": d, "seed": seed, "status": tr.status.name, "message": tr.message,
           "wall": wall, "error": tr.error_estimate, "drift": tr.conservation_drift,
           "choices": len(tr.choices), "sliding_max": int(tr.sliding.sum(axis=(1, 2)).max()),
           "events": len(tr.events), "loss_ratio": float(tr.loss[-1] / tr.loss[0])}
    out.update(_energy_identity(tr))
    return out


def _energy_identity(tr) -> dict:
    vW, va = tr.velocity
    speed = (np.sum(vW**2, axis=(1, 2)) + np.sum(va**2, axis=1)) / tr.problem.flow_factor
    dL = np.gradient(tr.loss, tr.t)
    events = np.array([e.t for e in tr.events]) if tr.events else np.array([np.inf])
    h = tr.t[1] - tr.t[0]
    calm = np.array([np.all(np.abs(events - t) > 2 * h) for t in tr.t])
    pick = tr.sliding.any(axis=(1, 2)) & calm & (tr.loss / tr.loss[0] > 1e-8)
    pick[[0, -1]] = False
    if not pick.any():
        return {"energy_points": 0, "energy_rel": float("nan")}
    rel = np.abs(dL[pick] + speed[pick]) / speed[pick]
    return {"energy_points": int(pick.sum()), "energy_rel": float(np.median(rel))}


def coverage(sizes, seeds, points, workers, first_seed=0, activation="relu") -> list[dict]:
    # seed by seed (every size at the first seed first), so that a run stopped early still
    # covers every size
    jobs = [(n, d, s, points, activation) for s in range(first_seed, first_seed + seeds)
            for n, d in sizes]
    rows = []
    with ProcessPoolExecutor(workers) as pool:
        futures = [pool.submit(_run, job) for job in jobs]
        for fut in as_completed(futures):  # one line per run as it ends: partial runs count
            r = fut.result()
            rows.append(r)
            print(f"  run n={r['n']} d={r['d']} seed={r['seed']}: {r['status']} "
                  f"{r['wall']:.1f} s, drift {r['drift']:.2g}, error {r['error']:.2g}, "
                  f"sliding max {r['sliding_max']}, choices {r['choices']}, energy rel "
                  f"{r['energy_rel']:.2g}", flush=True)
    print(f"\n== coverage: sphere data, p = {P}, published init (I-000-repo), horizon 2n, "
          f"activation {activation} ==")
    print(f"{'n':>5} {'d':>5} {'OK':>6} {'med wall s':>10} {'max drift':>10} {'max err':>9} "
          f"{'max sliding':>11} {'choices':>7} {'energy rel (median)':>19}")
    for n, d in sizes:
        rs = [r for r in rows if (r["n"], r["d"]) == (n, d)]
        ok = [r for r in rs if r["status"] == "SUCCESS"]
        energy = [r["energy_rel"] for r in ok if r["energy_points"]]
        wall = np.median([r["wall"] for r in rs])
        print(f"{n:>5} {d:>5} {len(ok):>3}/{len(rs):<2} {wall:>10.1f} "
              f"{max((r['drift'] for r in ok), default=np.nan):>10.2e} "
              f"{max((r['error'] for r in ok), default=np.nan):>9.1e} "
              f"{max(r['sliding_max'] for r in rs):>11} {sum(r['choices'] for r in rs):>7} "
              f"{(np.median(energy) if energy else np.nan):>19.2e}")
    ok = sum(r["status"] == "SUCCESS" for r in rows)
    print(f"all: {ok}/{len(rows)} = {100 * ok / len(rows):.1f}% reach 2n with SUCCESS")
    causes = Counter(r["status"] for r in rows if r["status"] != "SUCCESS")
    for r in rows:
        if r["status"] != "SUCCESS":
            print(f"  n={r['n']} d={r['d']} seed={r['seed']}: {r['status']}: {r['message']}")
    if causes:
        print("  causes:", dict(causes))
    worst = max((r["drift"] / max(r["error"], 1e-300) for r in rows
                 if r["status"] == "SUCCESS"), default=np.nan)
    print("balance drift against the run's error estimate (relative per neuron, times the "
          f"neuron's |theta_j|^2 ~ 1..30): drift / error = {worst:.2g} at most")
    return rows


def descent_order(n, d, seed=0, base=4e-3, activation="relu"):
    problem = _instance(n, d, seed, activation)
    t = np.linspace(0.0, 2.0 * n, 21)
    start = time.perf_counter()
    flow = simulate(problem, ExactFlow(), t)
    flow_wall = time.perf_counter() - start
    steps = [base / 2**k for k in range(4)]
    errors, loss_errors, walls = [], [], []
    for lr in steps:
        start = time.perf_counter()
        gd = simulate(problem, GradientDescent(lr=lr, error_check=None), t)
        walls.append(time.perf_counter() - start)
        errors.append(relative_difference(gd.W, gd.a, flow.W, flow.a))
        loss_errors.append(float(np.max(np.abs(gd.loss - flow.loss) / flow.loss[0])))
    order = np.polyfit(np.log(steps), np.log(errors), 1)[0]
    loss_order = np.polyfit(np.log(steps), np.log(loss_errors), 1)[0]
    print(f"\n== n={n} d={d} seed={seed}: GD -> flow (horizon {2 * n}) ==")
    for lr, e, le, w in zip(steps, errors, loss_errors, walls, strict=True):
        print(f"  lr={lr:.3g}: state error {e:.3g}, loss error / L(0) {le:.3g}, wall {w:.2f} s")
    print(f"  fitted order: state {order:.2f}, loss {loss_order:.2f}")
    match = [w for e, w in zip(errors, walls, strict=True) if e <= 1e-3]
    if match:
        print(f"  cost: flow {flow_wall:.2f} s (with its companion run) against GD at the largest "
              f"step matching it to 1e-3, {match[0]:.2f} s: ratio flow/GD = "
              f"{flow_wall / match[0]:.2f}")
    else:
        print(f"  cost: flow {flow_wall:.2f} s; no step of the sequence matched it to 1e-3")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--sizes", default=",".join(f"{n}x{d}" for n, d in GRID))
    ap.add_argument("--points", type=int, default=401)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-order", action="store_true")
    ap.add_argument("--activation", default="relu",
                    help="the network's activation (relu, leaky:SLOPE, power:BETA)")
    args = ap.parse_args(argv)
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    if args.seeds > 0:  # --seeds 0: only the descent order
        coverage(sizes, args.seeds, args.points, args.workers, args.first_seed,
                 args.activation)
    if not args.no_order:
        for n, d in sizes:
            descent_order(n, d, activation=args.activation)


if __name__ == "__main__":
    main()
