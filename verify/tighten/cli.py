"""`gfverify tighten ...`: the sharpest constant of a statement or a catalogue claim.

Exit codes (`verify.exit_codes`): 0 a sharpest value with a decided witness, 1 a claim's
proved value is violated on the witness (the claim fails there), 2 bad input, 3
undecided (no instance decided the constant, or the witness is within numerical error
at 2%), 4 an internal error.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from verify.conjecture.cli import (
    add_run_options,
    add_time_options,
    numeric_at_t,
    output_file,
    parse_params,
    plot_path,
    run_option_kwargs,
)
from verify.errors import UsageError

_EPILOG = """\
EXPR is a statement with one free constant (--free, default C); a claim id tightens the
claim's parameter (--param NAME) or the multiplier of its bound side. Examples::

  gfverify tighten "L(t) <= C*L(0)" --free C --family orthogonal
  gfverify tighten "first(L(t) <= 1e-3*L(0)) <= C*log(1/lam)/Dminus" --family two-point
  gfverify tighten S002-T1 --param c_T --family two-point
"""


def register(subparsers) -> None:
    tg = subparsers.add_parser(
        "tighten", help="the sharpest constant of a statement or a claim, with its witness",
        description="Search a family for the instance on which a constant must be most "
        "extreme for a statement to hold; print the sharpest value observed with its error, "
        "the witness (checked 2%% past and back) and a replay command.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    tg.add_argument("target", help='a statement with a free constant ("L(t) <= C*L(0)") or a '
                                   "claim id (S002-T1)")
    tg.add_argument("--free", default=None, metavar="NAME",
                    help="the free constant of a statement (default C)")
    tg.add_argument("--family", default=None,
                    help="family name (see `gfverify families`); for a claim, default the "
                         "first family of its pack")
    tg.add_argument("--data", default=None, metavar="FILE",
                    help="search your dataset instead of a family (an .npz with X and y, or "
                         "a .csv with the label last; see `gfverify conjecture --data`)")
    tg.add_argument("--run", dest="runs", action="append", default=[], metavar="FILE",
                    help="measure the constant on recorded runs (.npz, repeatable) instead "
                         "of searching")
    tg.add_argument("--rounding-only", action="store_true",
                    help="with --run: count only the recording's rounding as its error (by "
                         "default a gradient-descent record also carries its discretisation "
                         "error, as in `gfverify check --run`)")
    tg.add_argument("--param", action="append", default=[], metavar="KEY=VALUE|NAME",
                    help="KEY=VALUE fixes a family parameter (repeatable; horizon=T sets the "
                         "horizon); for a claim, a bare NAME is the parameter to tighten")
    tg.add_argument("--claim-param", action="append", default=[], metavar="NAME=VALUE",
                    help="a claim's other parameter set first (e.g. eps=1/40); repeatable")
    tg.add_argument("--part", type=int, default=None,
                    help="tighten only this part of a conjunction (1-based)")
    add_time_options(tg, "the extreme over every saved time from t = 0 (default)")
    tg.add_argument("--budget", type=int, default=20, help="instances to draw (default 20)")
    tg.add_argument("--refine-budget", type=int, default=None,
                    help="simulations for the local refinement (default budget/4)")
    add_run_options(tg)
    tg.add_argument("--loss-floor", type=float, default=None, metavar="LEVEL",
                    help="end the window at the last saved time where L(t)/L(0) >= LEVEL "
                         "(e.g. 1e-10: below it the round-off of vanishing ratios such as "
                         "the PL swamps every margin)")
    tg.add_argument("--assume", action="append", default=[], metavar="EXPR",
                    help="a condition on the instance (e.g. 'GammaMax < 1'; repeatable): an "
                         "instance that fails it is inapplicable, never simulated")
    tg.add_argument("--results", default=None, metavar="DIR",
                    help="store the instances in DIR/tighten.sqlite; a later run with the "
                         "same query reads them and extends the search")
    tg.add_argument("--json", default=None, metavar="OUT", help="write the result as JSON")
    tg.add_argument("--plot", default=None, help="PNG path (default tighten.png)")
    tg.add_argument("--no-plot", action="store_true", help="do not write a PNG")
    tg.add_argument("--quiet", action="store_true", help="no progress bar")
    tg.set_defaults(run=_tighten_command, mode=None)


_ID_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9]*-[A-Za-z]*[0-9]+[A-Za-z0-9]*")


def _looks_like_claim(target: str) -> bool:
    """Whether ``target`` is a catalogue claim id; text shaped like one (``S002-T11``: no
    comparison, a paper and a number joined by a hyphen) that names no claim is refused
    with the closest ids, not parsed as a statement."""
    from theory import UnknownName, registry

    try:
        registry.get(target.strip())
    except UnknownName as exc:
        if _ID_LIKE.fullmatch(target.strip()):
            raise UsageError(f"tighten {target.strip()!r}: not a claim id (a statement needs "
                             f"a comparison such as <=); {str(exc).split('; ', 1)[-1]}"
                             ) from None
        return False
    except Exception:  # noqa: BLE001 - any other lookup failure: not a claim id
        return False
    return True


def _json_path(text: str | None) -> Path | None:
    return output_file(text, "--json")


def _tighten_command(args) -> int:
    from verify.instances.families import FamilyError
    from verify.tighten.search import tighten, tighten_claim
    from verify.tighten.statement import TightenError

    is_claim = _looks_like_claim(args.target)  # a mistyped id is refused first, by name
    family_params = parse_params([p for p in args.param if "=" in p])
    names = [p.strip() for p in args.param if "=" not in p]
    args.at_t = numeric_at_t(args.at_t, "gfverify tighten")
    mode = "at_t" if args.at_t is not None else (args.mode or "for_all_t")
    if args.runs:
        return _on_runs(args, family_params, names, mode)
    if args.rounding_only:
        raise UsageError("--rounding-only: used with --run only")
    if args.data is not None:
        if args.family is not None:
            raise UsageError("--family/--data: give one of them")
        from verify.recorded.data import data_family

        args.family = data_family(args.data, loss=family_params.pop("loss", "square"))
    out = _json_path(args.json)
    kwargs = dict(params=family_params, budget=args.budget, seed=args.seed,
                  method=args.method, lr=args.lr, t_max=args.t_max,
                  refine_budget=args.refine_budget, results=args.results,
                  plot=plot_path(args, "tighten.png"), progress=not args.quiet,
                  loss_floor=args.loss_floor, assume=tuple(args.assume))
    if args.points is not None:
        kwargs["points"] = args.points
    kwargs.update(run_option_kwargs(args))
    try:
        if is_claim:
            if args.free is not None:
                raise UsageError("--free: a claim's constant is its parameter (--param NAME) "
                                 "or the multiplier of its bound side")
            if mode != "for_all_t":
                raise UsageError("--at-t/--as-t-to-inf: a claim is tightened over its own "
                                 "window")
            if len(names) > 1:
                raise UsageError(f"--param: one claim parameter at a time, got {names}")
            result = tighten_claim(args.target.strip(), args.family,
                                   param=names[0] if names else None, part=args.part,
                                   claim_params=parse_params(args.claim_param,
                                                             "--claim-param"), **kwargs)
        else:
            if args.claim_param:
                raise UsageError("--claim-param: only for a catalogue claim (a statement's "
                                 "constants are written in it)")
            if names:
                raise UsageError(f"--param {names[0]}: expected KEY=VALUE (a bare NAME "
                                 f"names a claim's parameter, and {args.target!r} is not a "
                                 f"claim id)")
            if args.family is None:
                raise UsageError("--family: required for a statement (see `gfverify "
                                 "families`)")
            result = tighten(args.target, args.family, free=args.free or "C",
                             part=args.part, mode=mode, at_t=args.at_t, **kwargs)
    except (TightenError, FamilyError) as exc:
        raise UsageError(str(exc)) from None
    print(result.report())
    if out is not None:
        tmp = out.with_name(out.name + ".partial")
        tmp.write_text(json.dumps(result.to_dict(), indent=2, default=str) + "\n")
        tmp.replace(out)
        print(f"  json: {out}")
    return result.exit_code


def _on_runs(args, family_params, names, mode) -> int:
    from verify.recorded.tighten import tighten_on_runs
    from verify.tighten.statement import TightenError

    given = [name for name, value in (
        ("--family", args.family), ("--data", args.data), ("--results", args.results),
        ("--json", args.json), ("--refine-budget", args.refine_budget), ("--lr", args.lr),
        ("--t-max", args.t_max), ("--points", args.points), ("--escalate", args.escalate),
        ("--max-cost", args.max_cost), ("--sizes", None if args.sizes == "default" else 1),
        ("--loss-floor", args.loss_floor), ("--param", family_params),
        ("--assume", args.assume)) if value not in (None, [], {})]
    if given:
        raise UsageError(f"{given[0]}: not used with --run (the recorded runs are the "
                         "instances: nothing is drawn or simulated)")
    if len(names) > 1:
        raise UsageError(f"--param: one claim parameter at a time, got {names}")
    try:
        result = tighten_on_runs(args.target, args.runs, free=args.free,
                                 param=names[0] if names else None, part=args.part,
                                 mode=mode, at_t=args.at_t,
                                 claim_params=parse_params(args.claim_param, "--claim-param"),
                                 reference=not args.rounding_only)
    except TightenError as exc:
        raise UsageError(str(exc)) from None
    print(result.report())
    return result.exit_code
