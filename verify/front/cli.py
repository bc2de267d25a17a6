"""`gfverify` command line (also `python -m verify`).

Exit codes (`verify.exit_codes`): 0 success / no counterexample among decided instances,
1 a counterexample, 2 bad input (the message names the input and what is allowed),
3 undecided, 4 internal error, 5 a report whose verification suite failed; 130 interrupted
(a sweep resumes when run again).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import signal
import sys
import traceback

from verify.errors import InputError, UsageError, input_errors
from verify.exit_codes import (
    EXIT_FOUND,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_SUITE_FAILED,
    EXIT_UNDECIDED,
    EXIT_USAGE,
)

__all__ = ["EXIT_FOUND", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_SUITE_FAILED",
           "EXIT_UNDECIDED", "EXIT_USAGE", "UsageError", "build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse exits 2 too; keep the message format ours
        raise UsageError(f"{self.prog}: {message}")



def _builtin_names() -> str:
    """The built-in packs' names, for help texts (``S000, S001, ...``), from the one list."""
    from theory.packs import BUILTIN

    return ", ".join(pack.name for pack in BUILTIN if pack.name != "CF")

def _claims_command(args) -> int:
    import sympy

    import theory
    from theory.suggest import unknown_name

    try:
        selected = theory.claims(paper=args.paper, kind=args.kind)
        if args.builtin:
            from theory.registry import pack_of

            selected = tuple(c for c in selected if pack_of(c.id).builtin)
    except (KeyError, ValueError):
        kinds = [k.name.lower() for k in theory.Kind]
        raise UsageError(f"--kind: no kind {args.kind!r}; "
                         f"{unknown_name(args.kind, kinds)}") from None
    if args.paper and not selected:
        from theory.registry import groups

        if args.paper not in groups():
            raise UsageError(f"--paper: no paper {args.paper!r}; "
                             f"{unknown_name(args.paper, list(groups()))}")
    if args.format == "json":
        print(json.dumps([c.to_dict() for c in selected], indent=2))
    elif args.format == "md":
        from theory.catalogue_doc import markdown

        print(markdown(selected), end="")
    elif args.format == "latex":
        for c in selected:
            print(f"% {c.id}: {c.title} ({c.source})")
            print(f"\\[ {c.latex()} \\]")
    elif args.format == "long":
        for c in selected:
            check = "checkable" if c.checkable else f"not checkable: {c.not_checkable_reason}"
            print(f"{c.id:<10} {c.kind.value:<22} {str(c.source):<40} {check}")
            print(f"{'':<10} {sympy.sstr(c.statement)}")
    else:
        _print_claims_table(selected)
    return EXIT_OK


def _print_claims_table(claims, width: int | None = None) -> None:
    """One line per claim: id, kind, checkable, title (cut to the terminal's width)."""
    import shutil

    width = width or max(shutil.get_terminal_size((100, 24)).columns, 60)
    wid = max([len("id")] + [len(c.id) for c in claims])
    wkind = max([len("kind")] + [len(c.kind.value) for c in claims])
    head = f"{'id':<{wid}}  {'kind':<{wkind}}  {'checkable':<9}  title"
    print(head)
    print("-" * min(width, max(len(head), 40)))
    room = max(width - wid - wkind - 15, 20)
    for c in claims:
        title = c.title if len(c.title) <= room else c.title[:room - 3] + "..."
        print(f"{c.id:<{wid}}  {c.kind.value:<{wkind}}  {'yes' if c.checkable else 'no':<9}  "
              f"{title}")


def _packs_command(args) -> int:
    from theory import packs

    for pack in packs.packs():
        count = len(pack.module("claims").CLAIMS)
        parts = [part for part in ("measures", "families", "generators", "protocols",
                                   "tests") if getattr(pack, part)]
        parts += [f"{len(pack.reproductions)} report section(s)"] if pack.reproductions else []
        where = "built in" if pack.builtin else "installed"
        print(f"{pack.name:<8} {where:<9} {count:>3} claims  {pack.title}"
              + (f"  [{', '.join(parts)}]" if parts else ""))
    return EXIT_OK


def _vocabulary_command(args) -> int:
    """The names a statement can use: functions, instance numbers, quantities of time."""
    import textwrap

    import theory
    from theory import symbols
    from verify.language.expressions import FUNCTIONS, measurable_names

    theory.claims()  # every pack's terms registered, with their meanings
    instance, trajectory = measurable_names()
    query = (args.name or "").lower()
    groups = (("quantities of time, written F(t) or F(0)", sorted(trajectory)),
              ("instance numbers", sorted(instance | {"t"})))
    shown = 0
    for title, names in groups:
        names = [n for n in names if query in n.lower()]
        if not names:
            continue
        print(f"{title}:")
        width = max(len(n) for n in names)
        for name in names:
            meaning = symbols.VOCABULARY[name].meaning if name in symbols.VOCABULARY else ""
            lines = textwrap.wrap(meaning, 100 - width - 4) or [""]
            print(f"  {name:<{width}}  {lines[0]}")
            for line in lines[1:]:
                print(f"  {'':<{width}}  {line}")
        shown += len(names)
        print()
    if not shown:
        from theory.suggest import unknown_name

        raise UsageError(f"vocabulary {args.name!r}: no name contains it; "
                         f"{unknown_name(args.name, sorted(instance | trajectory))}")
    if not query:
        print(f"functions: {', '.join(FUNCTIONS)}; first(EVENT) is the first time EVENT "
              "holds")
    return EXIT_OK


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("gfverify")
    except metadata.PackageNotFoundError:
        return "(not installed)"


def _megabytes(path) -> str:
    try:
        return f"{path.stat().st_size / 1e6:.2f} MB"
    except OSError:
        return "not written"


def _interrupt_on_sigterm(signum, frame) -> None:
    raise KeyboardInterrupt


def _report_command(args) -> int:
    from verify.report import write_report
    from verify.report.write import ReportInterrupted, select_sections

    sections = select_sections(args.section) if args.section else None
    # SIGTERM stops the report as Ctrl-C does: it keeps what finished, and says so
    previous = signal.signal(signal.SIGTERM, _interrupt_on_sigterm)
    try:
        result = write_report(args.out, profile=args.profile, seed=args.seed,
                              show_progress=not args.quiet, instances=args.instances,
                              suite=not args.no_suite, store=args.results,
                              reproductions=sections, latex=args.format == "latex",
                              fresh=args.fresh, certify=args.certify or 0,
                              scheduler=args.scheduler, dask_local=args.dask_local,
                              parallel=False if args.serial else None)
    except ReportInterrupted as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        signal.signal(signal.SIGTERM, previous)
    pages = [p for p in (result.html, getattr(result, "catalogue", None)) if p is not None]
    sizes = ", ".join(f"{p.name} ({_megabytes(p)})" for p in pages)
    print(f"wrote {result.index.parent}: {sizes}, their Markdown, {result.verdicts_json.name} "
          f"and {len(result.figures)} figures ({result.wall_time:.1f} s)")
    if getattr(result, "latex", None) is not None:
        print(f"LaTeX: {result.latex} (\\input it; {result.latex.parent}/main.tex compiles it)")
    if result.suite is not None:
        from verify.results.mutants import summary_line

        print(f"verification suite: {len(result.suite['claims'])} verdict rows, "
              f"{result.suite['summary'] or 'no summary'}, "
              f"{summary_line(result.suite['mutant_score'])}")
    for rep in result.reproductions:
        print(f"{rep.experiment}: {rep.title} ({rep.wall_time:.1f} s)")
        for line in rep.summary:
            print(f"  {line}")
        for finding in rep.findings:
            print(f"  finding: {finding}")
    if result.suite is not None and not result.suite["ok"]:
        from verify.report import suite_failure

        print(f"error: {suite_failure(result.suite)}", file=sys.stderr)
        return EXIT_SUITE_FAILED
    return EXIT_OK


def _findings_command(args) -> int:
    from verify.results import findings as F

    try:
        run = F.load_run(args.verdicts)
        if args.against:  # the verdicts that change with the instances' size
            from verify.results.sizes import verdict_changes

            changed = verdict_changes(F.load_run(args.against), run)
            print(f"{len(changed)} verdict(s) differ between {args.against} "
                  f"({F.load_run(args.against)['profile'] or '?'}) and {args.verdicts} "
                  f"({run['profile'] or '?'})")
            print(F.markdown(changed, run["profile"]), end="")
            return EXIT_OK
        if args.page:
            changed = F.update_page(args.page, run)
            print(f"{args.page}: generated block {'rewritten' if changed else 'unchanged'} "
                  f"({len(F.distinct(run['findings']))} findings, profile "
                  f"{run['profile'] or '?'})")
        else:
            print(F.run_summary(run))
            print()
            print(F.markdown(run["findings"], run["profile"]), end="")
    except F.FindingError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"--page {args.page}: {exc.strerror or exc}") from None
    return EXIT_OK


# Further subcommands live in their own modules, each with ``register(subparsers)``
# that adds its parser and sets ``run`` (a function of the parsed args -> exit code).
COMMAND_MODULES: tuple[str, ...] = ("verify.recorded.cli", "verify.conjecture.cli",
                                   "verify.sweep.cli", "verify.tighten.cli",
                                   "verify.front.new_pack")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gfverify", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"gfverify {_version()}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    rep = sub.add_parser("report", help="write the bound-checking report")
    rep.add_argument("--profile", default="quick", choices=("quick", "full", "paper"),
                     help="instance counts and sizes (default quick; paper: the papers' "
                          "experimental sizes where affordable, hours)")
    rep.add_argument("--out", required=True, help="output directory (created if needed)")
    rep.add_argument("--seed", type=int, default=0, help="seed of the random instances")
    rep.add_argument("--instances", type=int, default=None,
                     help="number of random family instances (default: the profile's)")
    rep.add_argument("--quiet", action="store_true", help="no progress bar")
    rep.add_argument("--no-suite", action="store_true",
                     help="skip the verification suite (only S002's foundation claims)")
    rep.add_argument("--format", default="html", choices=("html", "latex"),
                     help="html: index.html, catalogue.html and their Markdown; latex: "
                          "those and OUT/latex/ (a fragment to \\input in a paper's appendix: "
                          "counts, verdict table, findings, tightness table, the sections' "
                          "figures as PDF, and main.tex that compiles it)")
    rep.add_argument("--section", action="append", default=None, metavar="NAME",
                     help="only these report sections (repeatable): a pack's name, e.g. "
                          "S002, or a section's module, e.g. repro_gd (default: every "
                          "pack's sections)")
    rep.add_argument("--results", default=None, metavar="DIR",
                     help="sweep store of the reproductions (default OUT/store); rows found "
                          "there are read, not recomputed (e.g. a full `gfverify sweep "
                          "papers/s000/protocols/exp1_1.toml --results DIR`)")
    rep.add_argument("--fresh", action="store_true",
                     help="ignore the parts an interrupted run kept in OUT (by default a "
                          "report resumes from them when they were made by the same code "
                          "for the same options)")
    rep.add_argument("--serial", action="store_true",
                     help="run the tightness table after the sections in this process (by "
                          "default, on two cores or more, it runs in a worker process "
                          "beside them)")
    rep.add_argument("--certify", type=int, nargs="?", const=2, default=None, metavar="N",
                     help="the suite also decides each claim on certified tubes until N "
                          "instances decided it (default 2, at most 3N tried): a certified "
                          "column (PROVED, DISPROVED, UNCERTIFIED) in the verdict table and "
                          "its LaTeX")
    from verify.running.executors import add_options

    add_options(rep, "the sections' and the suite's runs (kept in the store as they finish)")
    rep.set_defaults(run=_report_command)

    fi = sub.add_parser("findings", help="the findings a suite run measured (from its "
                                         "verdicts.json), or rewrite the findings page's "
                                         "generated block")
    fi.add_argument("verdicts", help="verdicts.json of `gfverify report` or of "
                                     "`pytest verify --verify-json PATH`")
    fi.add_argument("--page", "--readme", dest="page", default=None, metavar="PATH",
                    help="rewrite the generated findings block of this Markdown page "
                         "(docs/findings.md; --readme is its former name)")
    fi.add_argument("--against", default=None, metavar="VERDICTS",
                    help="another run's verdicts.json (e.g. the full profile's, against the "
                         "paper profile's): the claims decided differently, each a finding "
                         "with both instances")
    fi.set_defaults(run=_findings_command)

    cl = sub.add_parser("claims", help="list the catalogue's claims")
    cl.add_argument("--paper", default=None,
                    help=f"a pack's name ({_builtin_names()} or an installed pack's: "
                         "`gfverify packs`) or CF, the closed-form identities (default: all)")
    cl.add_argument("--kind", default=None, help="only claims of this kind")
    cl.add_argument("--format", default="table",
                    choices=("table", "long", "json", "latex", "md"),
                    help="table: id, kind, checkable, title; long: with source, the reason "
                         "a claim is not checkable and the statement; md: the Markdown "
                         "catalogue page (docs/catalogue.md is this output with --builtin)")
    cl.add_argument("--builtin", action="store_true",
                    help="only the built-in packs' claims (not those of installed packs)")
    cl.set_defaults(run=_claims_command)

    vo = sub.add_parser("vocabulary", help="the names a statement can use: quantities of "
                                           "time, instance numbers and functions")
    vo.add_argument("name", nargs="?", default=None,
                    help="only the names that contain this text (case not counted)")
    vo.set_defaults(run=_vocabulary_command)

    pk = sub.add_parser("packs", help="list the packs: the built-in papers and every pack "
                                      "installed through the gfverify.packs entry points")
    pk.set_defaults(run=_packs_command)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "command", None):
            parser.print_help()
            return EXIT_USAGE
        return args.run(args)
    except InputError as exc:  # bad input, named by the message (a line per violation)
        for line in str(exc).splitlines() or [""]:
            print(f"error: {line}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `gfverify claims | head`: the reader left early
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug of ours (never exit 1, the code for a counterexample),
        # unless it is the bad-input class of a lower layer (numerics, theory): imported
        # here, not in an except clause, which SystemExit from --help would evaluate
        if isinstance(exc, input_errors()):
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if os.environ.get("GFVERIFY_DEBUG"):
            traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc} (a gfverify bug; rerun with "
              f"GFVERIFY_DEBUG=1 for the traceback)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
