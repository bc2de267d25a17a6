"""`gfverify conjecture ...` and `gfverify families`: the command-line side of conjectures.

Exit codes (`verify.exit_codes`): 0 no counterexample among the decided instances (or a
scaling exponent inside its interval), 1 a counterexample (or an exponent outside), 2 bad
input, 3 undecided (fewer instances decided than --min-decided asks, or no fit), 4 an
internal error.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from verify.errors import UsageError
from verify.exit_codes import EXIT_OK
from verify.language import limits

_EPILOG = """\
vocabulary: t, n, d, p, lam, mu, Dplus, Dminus, kappa, ... (instance numbers) and
L(t), PL(t), R(t), NormW(t), Balance(t), Emin(t), Emax(t), StableRank(t), ...
(quantities of time; L(0) is the initial value). Functions: exp, log, sqrt, min,
max, abs; first(EVENT) is the first time EVENT holds. Examples::

  gfverify conjecture "L(t) <= L(0)*exp(-t/n)" --family orthogonal
  gfverify conjecture "first(L(t) <= 1e-8*L(0)) <= 3*log(1/lam)/Dminus" --family two-point
  gfverify conjecture --scaling "PL(oo) ~ n**(-1/2)" --family orthogonal-asym --n 8,16,32
"""


def register(subparsers) -> None:
    con = subparsers.add_parser(
        "conjecture", help="search a family for a counterexample to a statement",
        description="Search a family of instances for a counterexample to an inequality in "
        "the vocabulary, shrink it, and print it with a replay command and a plot.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    con.add_argument("expr", nargs="?", default=None,
                     help='the statement, e.g. "L(t) <= L(0)*exp(-t/n)"')
    con.add_argument("--scaling", default=None, metavar="LAW",
                     help='a scaling statement instead, e.g. "PL(oo) ~ n**alpha"')
    con.add_argument("--family", default=None,
                     help="family name (see `gfverify families`); required unless --data, "
                          "--run or --results")
    con.add_argument("--data", default=None, metavar="FILE",
                     help="search your dataset instead of a family: an .npz with arrays X and "
                          "y, or a .csv with the label last; --param n= (samples), p=, lam=, "
                          "loss=, init=, activation=, seed= as for a family")
    con.add_argument("--run", dest="runs", action="append", default=[], metavar="FILE",
                     help="check the statement on recorded runs (.npz, repeatable) instead of "
                          "searching: no instances are drawn")
    con.add_argument("--rounding-only", action="store_true",
                     help="with --run: count only the recording's rounding as its error (by "
                          "default a gradient-descent record also carries the discretisation "
                          "error gfverify measures at its step)")
    con.add_argument("--results", default=None, metavar="DIR",
                     help="with --scaling 'COLUMN ~ n**alpha': fit stored sweep rows instead of "
                          "simulating (COLUMN a numeric column of the store)")
    con.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                     help="with --results: keep rows whose column KEY equals VALUE "
                          "(repeatable)")
    con.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                     help="fix a family parameter (repeatable); horizon=T sets the horizon")
    add_time_options(con, "at every saved time of the horizon (default)")
    con.add_argument("--window", default=None, metavar="A,B",
                     help="at every saved time from A to B, each a number or a time on "
                          "each instance as --at-t takes it; B may be oo: "
                          "'0, log(1/lam)/(2*Dplus)' or 'first(L(t) <= L(0)/2), oo'")
    con.add_argument("--assume", action="append", default=[], metavar="EXPR",
                     help="a condition on the instance (e.g. 'mu >= 0.1'; repeatable): draws "
                          "that fail it are excluded before they are simulated, and counted")
    con.add_argument("--budget", type=int, default=None,
                     help="instances to draw (default 20)")
    add_run_options(con)
    con.add_argument("--min-decided", type=float, default=None, metavar="SHARE",
                     help="share of the instances tried that must be decided (HOLDS or "
                          "VIOLATED) for NO COUNTEREXAMPLE; fewer gives UNDECIDED, exit 3 "
                          "(default 1: all)")
    con.add_argument("--loss-floor", type=float, default=None, metavar="LEVEL",
                     help="with --for-all-t: compare only where L(t)/L(0) >= LEVEL (default: "
                          "every saved time; times no float64 run resolves are named)")
    con.add_argument("--shrink-budget", type=int, default=None,
                     help="simulations allowed for shrinking (default 40)")
    con.add_argument("--plot", default=None,
                     help="PNG path (default conjecture.png or scaling.png)")
    con.add_argument("--no-plot", action="store_true", help="do not write a PNG")
    con.add_argument("--certify", nargs="?", const="conjecture.cert.npz", default=None,
                     metavar="FILE",
                     help="decide the counterexample (or, when there is none, each instance "
                          "that HOLDS) on its run's certified tube (PROVED / DISPROVED; exact "
                          "flow, square loss, ReLU or leaky ReLU) and write the certificates "
                          "to FILE, FILE's stem-2, -3, ... (default conjecture.cert.npz); "
                          "re-check one with `python -m numerics.certify FILE`")
    con.add_argument("--n", default=None, metavar="N1,N2,...",
                     help="sizes for --scaling (default 8,16,32)")
    con.add_argument("--reps", type=int, default=None,
                     help="repetitions (seeds) per size for --scaling (default 3)")
    con.add_argument("--jobs", type=int, default=1, help="processes for --scaling")
    from verify.running.executors import add_options

    add_options(con, "the search's runs (those its first phase draws all at once)")
    con.add_argument("--run-store", default=None, metavar="DIR",
                     help="keep every run in DIR as it finishes and read runs kept there: a "
                          "stopped search resumes without re-running them")
    con.set_defaults(run=_conjecture_command, mode=None)

    fam = subparsers.add_parser("families", help="list the instance families and parameters")
    fam.set_defaults(run=_families_command)


def add_time_options(parser, for_all_help: str) -> None:
    """When a statement is compared: --for-all-t, --at-t T or --as-t-to-inf (one of)."""
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--for-all-t", dest="mode", action="store_const", const="for_all_t",
                      help=for_all_help)
    when.add_argument("--at-t", default=None, metavar="T",
                      help="at time T: a number, or (gfverify conjecture) a time on each "
                           "instance: an expression in instance numbers "
                           "('3*log(1/lam)/Dplus') or a run's event ('first(L(t) <= "
                           "L(0)/2)')")
    when.add_argument("--as-t-to-inf", dest="mode", action="store_const",
                      const="as_t_to_inf", help="at the end of the horizon")


def output_file(text: str | None, option: str, hint: str = "give a file name") -> Path | None:
    """A file a command will write (``--json``, ``--csv``, ``--plot``, ``--certify``),
    checked before any work: its directory must exist and take a new file (a probe file is
    created there and removed, as ``report --out`` does), and the path must not be a
    directory nor a file that cannot be written; None when not asked for."""
    if text is None:
        return None
    path = Path(text)
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{option} {path}: the directory {parent} does not exist (create it "
                         f"first; gfverify writes only the file)")
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a directory; {hint}")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {path}: the file exists and cannot be written")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".gfverify-probe-"):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write in {parent} "
                         f"({exc.strerror or exc})") from None
    return path


def numeric_at_t(value, where: str) -> float | None:
    """``--at-t`` as a number, for the commands that take no instance-dependent time."""
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        raise UsageError(f"--at-t {value!r}: {where} takes a number (an instance-dependent "
                         "time is for `gfverify conjecture` on a family)") from None


def add_run_options(parser) -> None:
    """The options of a search's runs, shared by `gfverify conjecture` and `tighten`."""
    parser.add_argument("--seed", type=int, default=0, help="seed of the search (default 0)")
    parser.add_argument("--method", default="flow", choices=("flow", "gd"),
                        help="exact gradient flow (default) or gradient descent")
    parser.add_argument("--lr", type=float, default=None,
                        help="gradient-descent step (gd only)")
    parser.add_argument("--t-max", type=float, default=None, help="simulation horizon")
    parser.add_argument("--points", type=int, default=None, help="saved times per run")
    parser.add_argument("--escalate", type=int, default=None, metavar="N",
                        help="re-runs of an exact-flow instance undecided by its numerical "
                             "error (with --scaling: of a run whose F(oo) is not known to "
                             "1%%): rtol 1e-12, then 1e-13, then (N = 3) the high-precision "
                             "flow where it applies (default 2; 0: none)")
    parser.add_argument("--sizes", default="default", choices=("default", "paper"),
                        help="the family's drawn ranges: default, or paper (up to its "
                             "papers' experimental sizes; `gfverify families` prints both)")
    parser.add_argument("--max-cost", default=None, metavar="DURATION",
                        help="the largest estimated cost of one exact-flow run, by the "
                             "family's cost model (`gfverify families`): 600, 90s, 30min, 2h "
                             "(default 1h); a draw above it is replaced, a fixed instance "
                             "above it refused")


def run_option_kwargs(args) -> dict:
    """The keyword arguments of `add_run_options`'s options that a search takes when given
    (``escalate``, ``sizes``, ``max_cost``)."""
    from verify.instances.run_cost import CostError, parse_duration

    out = {"sizes": args.sizes}
    if args.escalate is not None:
        out["escalate"] = args.escalate
    if args.max_cost is not None:
        try:
            out["max_cost"] = parse_duration(args.max_cost)
        except CostError as exc:
            raise UsageError(str(exc)) from None
    return out


def parse_params(items: list[str], option: str = "--param") -> dict[str, str]:
    """``KEY=VALUE`` items of a repeatable option, as text (each one parsed later)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise UsageError(f"{option}: expected KEY=VALUE, got {item!r}")
        if key in out:
            raise UsageError(f"{option} {key}: given twice")
        out[key] = value
    return out


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"--n: expected integers separated by commas, got {text!r}") from None
    if len(sizes) < 2 or min(sizes) < 1:
        raise UsageError(f"--n: at least two positive sizes, got {text!r}")
    try:
        limits.at_most("--n", max(sizes), "size")
    except limits.LimitError as exc:
        raise UsageError(str(exc)) from None
    return sizes


def plot_path(args, default: str) -> str | None:
    """The PNG to write, or None; its directory must exist (nothing is created)."""
    if args.no_plot:
        if args.plot is not None:
            raise UsageError("--plot/--no-plot: give one of them")
        return None
    return str(output_file(args.plot or default, "--plot",
                           "give a file name ending in .png"))


def _conjecture_command(args) -> int:
    from verify.conjecture import ConjectureError, conjecture
    from verify.instances.families import FamilyError

    if (args.expr is None) == (args.scaling is None):
        raise UsageError("conjecture: give either a statement or --scaling LAW (not both)")
    if args.runs:
        return _on_runs(args)
    if args.rounding_only:
        raise UsageError("--rounding-only: used with --run only (it says what a recorded "
                         "run's error counts)")
    if args.results is not None:
        return _stored_scaling(args)
    if args.where:
        raise UsageError("--where: only used with --results")
    if args.certify is not None:
        if args.scaling is not None:
            raise UsageError("--certify: not used with --scaling")
        output_file(args.certify, "--certify", "give a file name ending in .npz")
    if args.data is not None:
        if args.family is not None:
            raise UsageError("--family/--data: give one of them (--data FILE is the family of "
                             "your dataset)")
    elif args.family is None:
        raise UsageError("--family: required (see `gfverify families`), unless --data FILE "
                         "searches your dataset, --run FILE checks recorded runs or --scaling "
                         "is fitted to a sweep store with --results DIR")
    params = parse_params(args.param)
    if args.data is not None:
        from verify.recorded.data import data_family

        args.family = data_family(args.data, loss=params.pop("loss", "square"))
    try:
        if args.scaling is not None:
            return _scaling(args, params)
        for opt in ("n", "reps"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt}: only used with --scaling")
        mode = "at_t" if args.at_t is not None else (args.mode or "for_all_t")
        at_t = args.at_t
        if args.window is not None:
            if args.at_t is not None or args.mode is not None:
                raise UsageError("--window: give one of --for-all-t, --at-t, --as-t-to-inf "
                                 "and --window")
            mode, at_t = "window", args.window
        kwargs = {}
        if args.points is not None:
            kwargs["points"] = args.points
        if args.shrink_budget is not None:
            kwargs["shrink_budget"] = args.shrink_budget
        if args.min_decided is not None:
            kwargs["min_decided"] = args.min_decided
        kwargs.update(run_option_kwargs(args))
        if args.loss_floor is not None:
            kwargs["loss_floor"] = args.loss_floor
        if args.assume:
            kwargs["assume"] = tuple(args.assume)
        from verify.running.runs import configured

        plot = plot_path(args, "conjecture.png")
        with configured(args.run_store, args.scheduler, args.dask_local):
            result = conjecture(
                args.expr, args.family, params=params, mode=mode, at_t=at_t,
                budget=20 if args.budget is None else args.budget, seed=args.seed,
                method=args.method, lr=args.lr, t_max=args.t_max, plot=plot, **kwargs)
    except (ConjectureError, FamilyError) as exc:
        raise UsageError(str(exc)) from None
    print(result.report(), flush=True)
    if args.certify is not None:
        from verify.conjecture.certify import certified_lines

        print("\n".join(certified_lines(result, args.certify)))
    return result.exit_code


def _on_runs(args) -> int:
    from verify.conjecture import ConjectureError
    from verify.recorded.statement import on_runs

    if args.expr is None:
        raise UsageError("--run: give a statement to check on the runs (a --scaling law needs "
                         "a family or a sweep store)")
    given = [name for name, value in (
        ("--family", args.family), ("--data", args.data), ("--results", args.results),
        ("--param", args.param), ("--assume", args.assume), ("--budget", args.budget),
        ("--shrink-budget", args.shrink_budget), ("--min-decided", args.min_decided),
        ("--lr", args.lr), ("--t-max", args.t_max), ("--points", args.points),
        ("--escalate", args.escalate), ("--n", args.n), ("--reps", args.reps),
        ("--max-cost", args.max_cost), ("--sizes", None if args.sizes == "default" else 1),
        ("--dask-local", args.dask_local), ("--scheduler", args.scheduler),
        ("--run-store", args.run_store),
        ("--where", args.where)) if value not in (None, [])]
    if args.method != "flow":
        given.append("--method")
    if given:
        raise UsageError(f"{given[0]}: not used with --run (the recorded runs are the "
                         "instances: nothing is drawn or simulated)")
    from verify.conjecture.when import parse_at_time, parse_window
    from verify.language.expressions import ExpressionError

    mode = "at_t" if args.at_t is not None else (args.mode or "for_all_t")
    if args.loss_floor is not None and not (0 < args.loss_floor < 1):
        raise UsageError(f"--loss-floor {args.loss_floor!r}: expected a number between 0 and "
                         "1 (a level of L(t)/L(0))")
    try:
        when = parse_at_time(args.at_t) if args.at_t is not None else None
        if args.window is not None:
            if args.at_t is not None or args.mode is not None:
                raise UsageError("--window: give one of --for-all-t, --at-t, --as-t-to-inf "
                                 "and --window")
            mode, when = "window", parse_window(args.window)
        result = on_runs(args.expr, args.runs, mode=mode, at_t=when,
                         loss_floor=args.loss_floor, reference=not args.rounding_only)
    except (ConjectureError, ExpressionError) as exc:
        raise UsageError(str(exc)) from None
    print(result.report())
    return result.exit_code


def _stored_scaling(args) -> int:
    from verify.conjecture.stored import StoreConjectureError, stored_scaling

    if args.scaling is None:
        raise UsageError("--results: only a --scaling law can be fitted to stored rows")
    if args.family is not None or args.param:
        raise UsageError("--family/--param: not used with --results (the rows are stored)")
    try:
        result = stored_scaling(args.scaling, args.results, args.where)
    except StoreConjectureError as exc:
        raise UsageError(str(exc)) from None
    print(result.report())
    return result.exit_code


def _scaling(args, params) -> int:
    from verify.conjecture.scaling import scaling_conjecture

    if args.mode is not None or args.at_t is not None or args.window is not None:
        raise UsageError("--for-all-t/--at-t/--as-t-to-inf/--window: a scaling statement is "
                         "taken at t = oo (the asymptotic window)")
    if args.budget is not None:
        raise UsageError("--budget: not used with --scaling (use --n and --reps)")
    if args.min_decided is not None:
        raise UsageError("--min-decided: not used with --scaling (its fit says INCONCLUSIVE, "
                         "exit 3, when too few runs are decided)")
    if args.loss_floor is not None:
        raise UsageError("--loss-floor: not used with --scaling")
    kwargs = {}
    if args.n is not None:
        kwargs["ns"] = _sizes(args.n)
    if args.reps is not None:
        kwargs["reps"] = args.reps
    if args.points is not None:
        kwargs["points"] = args.points
    if args.escalate is not None:  # runs whose F(oo) is not known to 1% (default 2)
        kwargs["escalate"] = args.escalate
    if args.jobs < 1:
        raise UsageError(f"--jobs: at least 1, got {args.jobs}")
    if args.sizes != "default":
        raise UsageError("--sizes: not used with --scaling (its sizes are --n)")
    kwargs.update({k: v for k, v in run_option_kwargs(args).items() if k == "max_cost"})
    result = scaling_conjecture(
        args.scaling, args.family, params=params, seed=args.seed, method=args.method,
        lr=args.lr, t_max=args.t_max, jobs=args.jobs,
        plot=plot_path(args, "scaling.png"), **kwargs)
    print(result.report())
    return result.exit_code


def _families_command(args) -> int:
    from verify.instances.families import all_families
    from verify.instances.run_cost import cost_lines, run_costs

    costs = run_costs()
    for fam in all_families().values():
        print(fam.listing())
        for line in cost_lines(fam.name, costs):
            print(line)
        print()
    print("Fix a parameter with --param KEY=VALUE; --param horizon=T (or --t-max T) sets the "
          "simulation horizon.")
    return EXIT_OK
