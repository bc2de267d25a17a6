"""`gfverify check CLAIM... --run FILE`: the catalogue's claims on a recorded run.

Exit codes (`verify.exit_codes`): 0 every claim decided and none VIOLATED, 1 a claim
VIOLATED on a run, 2 bad input (a file, a claim name), 3 none VIOLATED but some
INCONCLUSIVE.
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

from verify.errors import UsageError
from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED

_EPILOG = """\
A run is one .npz file in gfverify's recorded-run format (docs: "Your own runs"):
numerics.recorder.Recorder writes it from a PyTorch loop. Examples::

  gfverify check S002 CF-13 --run run.npz
  gfverify check S002-L1 --run lr0.05.npz --run lr0.025.npz --compare --csv verdicts.csv
"""


def register(subparsers) -> None:
    chk = subparsers.add_parser(
        "check", help="check the catalogue's claims on a recorded run (--run FILE)",
        description="Check claims (ids such as S002-L1, or a paper: every claim of it that "
        "one run decides) on recorded training runs, with the verdict table, each claim's "
        "worst margin and where it first fails.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    chk.add_argument("claims", nargs="+", metavar="CLAIM",
                     help="claim ids (S002-L1, CF-13) or paper names (S002)")
    chk.add_argument("--run", dest="runs", action="append", required=True, metavar="FILE",
                     help="a recorded run (.npz; repeatable)")
    chk.add_argument("--compare", action="store_true",
                     help="also measure each run's distance to the exact flow and to "
                          "gfverify's own gradient descent at its step, from its initial "
                          "state (and the order between runs of the same problem)")
    chk.add_argument("--rounding-only", action="store_true",
                     help="judge the recorded numbers as they are: their rounding is the "
                          "only error counted (by default a gradient-descent record also "
                          "carries the discretisation error gfverify measures at its step)")
    chk.add_argument("--csv", default=None, metavar="PATH",
                     help="write the verdicts as CSV (one row per run and claim)")
    chk.set_defaults(run=_check_command)


def _check_command(args) -> int:
    from numerics.recorded import recorded
    from verify.recorded.claims import check_run, select, table_lines

    claims, skipped = select(args.claims)
    csv_path = _csv_path(args.csv)
    if not claims:
        raise UsageError("CLAIM: none of these claims is decided on one run: "
                         + "; ".join(skipped))
    for path in args.runs:  # every file read and validated before any run is made
        recorded(path, reference=False)
    rows, outcomes, distances, runs = [], [], [], []
    for path in args.runs:
        start = time.perf_counter()
        tr = recorded(path, reference=not args.rounding_only)
        runs.append((path, tr))
        results = check_run(claims, tr)
        print(_run_header(path, tr, claims))
        print("\n".join(table_lines(results)))
        if args.compare:
            distances.append(_print_distances(tr))
        print(f"checked {len(results)} claims in {time.perf_counter() - start:.1f} s (the "
              "record read, gfverify's reference runs made and the claims checked)")
        print()
        rows += [r.row(path) for r in results]
        outcomes += [r.verdict.outcome.value for r in results if not r.hypothesis]
    if args.compare and len(runs) > 1:
        _print_orders([tr for _, tr in runs], distances)
    if skipped:
        print("not checked (one run does not decide them):")
        print("\n".join(f"  {line}" for line in skipped))
    if csv_path is not None:
        _write_csv(csv_path, rows)
        print(f"wrote {csv_path}")
    if "VIOLATED" in outcomes:
        return EXIT_FOUND
    return EXIT_UNDECIDED if "INCONCLUSIVE" in outcomes else EXIT_OK


def error_counted(tr) -> str:
    """What a recorded run's error estimate counts, in words."""
    return {"gd_step_halving": "the recording's rounding and gfverify's gradient descent "
                               "at half the step (its discretisation error)",
            "exact_flow": "the recording's rounding and gfverify's exact flow",
            }.get(tr.options.get("error_from"), "the recording's rounding only")


def _run_header(path: str, tr, claims=()) -> str:
    from numerics.recorded import convention_text

    p = tr.problem
    how = error_counted(tr)
    what = tr.provenance.get("run", tr.method)
    if tr.departure and "(not gradient descent)" not in what:
        what = f"declared {what}"  # measured otherwise: the next lines say how far
    lines = [f"run {path}: {what}; n={p.n} d={p.d} p={p.p}, "
             f"{len(tr.t)} saved times t in [{tr.t[0]:.4g}, {tr.t[-1]:.4g}]",
             f"  loss: {convention_text(p)}"]
    lines += [f"  {line}" for line in convention_lines(tr, claims)]
    if tr.departure:
        lines.append(f"  not gradient descent: {tr.departure}; the flow's claims are "
                     "INAPPLICABLE to it")
    lines.append(f"  error counted: {how} (state error {tr.error_estimate:.2g})")
    return "\n".join(lines)


def convention_lines(tr, claims) -> list[str]:
    """How the run is read for claims written in another loss convention: the flow of c L
    at time t is the flow of c' L at time t c / c' (`numerics.conventions`)."""
    from dataclasses import replace

    from numerics.recorded import convention_text

    p = tr.problem
    out = []
    from verify.engine.run_context import convention_of

    for scale in sorted({convention_of(c, p) for c in claims} - {None, p.loss_scale}):
        factor = p.loss_scale / scale
        theirs = convention_text(replace(p, loss_scale=scale))
        out.append(f"claims written for {theirs}: checked on this run read as that loss's "
                   f"flow, at {factor:g} x the run's times (the times shown for them are "
                   f"theirs; divide by {factor:g} for the run's)")
    return out


def _print_distances(tr) -> dict:
    from numerics.recorded import compare_with_flow

    cmp = compare_with_flow(tr)
    flow = cmp["flow"]
    k = int(flow.argmax())
    line = (f"distance to the exact flow (max_j |theta_j - theta_j*| / |theta_j*|): max "
            f"{flow[k]:.3g} at t = {tr.t[k]:.4g}, {flow[-1]:.3g} at the end")
    if cmp["gd"] is not None:
        line += (f"; to gfverify's gradient descent at lr={tr.options['lr']:g}: max "
                 f"{cmp['gd'].max():.3g}")
    print(line)
    return cmp


def _print_orders(runs, distances) -> None:
    """The observed order of the distance to the flow between runs of the same problem at
    different steps: log(d1/d2) / log(lr1/lr2) (1 for gradient descent)."""
    lines = []
    for i in range(len(runs) - 1):
        a, b = runs[i], runs[i + 1]
        la, lb = a.options.get("lr"), b.options.get("lr")
        if (a.problem.content_hash != b.problem.content_hash or not la or not lb
                or la == lb):
            continue
        da, db = float(distances[i]["flow"].max()), float(distances[i + 1]["flow"].max())
        if da > 0 and db > 0:
            order = math.log(da / db) / math.log(la / lb)
            lines.append(f"  lr {la:g} -> {lb:g}: distance {da:.3g} -> {db:.3g}, "
                         f"observed order {order:.2f}")
    if lines:
        print("distance to the exact flow against the step (gradient descent: order 1):")
        print("\n".join(lines))
        print()


def _csv_path(text: str | None) -> Path | None:
    from verify.conjecture.cli import output_file

    return output_file(text, "--csv", "give a file name ending in .csv")


def _write_csv(path: Path, rows: list[dict]) -> None:
    tmp = path.with_name(path.name + ".partial")
    with tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)
