"""pytest plugin: verification profiles and the verdict table.

Registered under the ``pytest11`` entry point, so it is active whenever the
package is installed. Tests record verdicts through the ``verdicts`` fixture;
after the run the plugin prints one row per claim (instances, outcome counts,
worst margin and where) and, with ``--verify-json``/``--verify-md``, writes it; the JSON
rows carry the worst instance's figure data under ``"figure"`` (`verify.results.table`).
Under pytest-xdist each worker ships its rows to the controller. ``pytest verify``
also runs the tests of every pack, built-in and installed (`theory.packs`), into the same table.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest
from hypothesis import settings

from verify.front import pack_memory
from verify.results import findings as findings_mod
from verify.results import mutants as mutants_mod
from verify.results.table import VerdictLog, format_table, markdown_table
from verify.running.profiles import PROFILES, get_profile, register_hypothesis_profiles, set_active

_WORKER_KEY = "gfverify_rows"
DEFAULT_STORE = ".gfverify-store"  # the paper profile's run store, in pytest's rootdir


# -- pytest hooks ------------------------------------------------------------------------------
def pytest_addoption(parser):
    group = parser.getgroup("gfverify", "gfverify verification suite")
    group.addoption("--verify-profile", default="quick", choices=tuple(PROFILES),
                    help="instance counts and sizes of the verification suite (default quick; "
                         "paper: the papers' experimental sizes where affordable, "
                         "`verify.running.profiles`)")
    group.addoption("--verify-store", default=None, metavar="DIR",
                    help="keep every run in DIR as it finishes and read runs kept there: a "
                         "stopped run resumes (default with --verify-profile paper: "
                         f"{DEFAULT_STORE} in the rootdir; none otherwise)")
    group.addoption("--scheduler", default=None, metavar="ADDRESS", dest="verify_scheduler",
                    help="run the suite's simulations as tasks on this Dask scheduler, e.g. "
                         "tcp://host:8786 (pip install 'gfverify[dask]')")
    group.addoption("--dask-local", default=None, metavar="N", dest="verify_dask_local",
                    type=_workers_option,
                    help="run the suite's simulations as tasks on a local Dask cluster of N "
                         "worker processes; with pytest-xdist's -n the tests also run in "
                         "parallel and every xdist worker sends its runs to that one cluster")
    group.addoption("--verify-json", default=None, metavar="PATH",
                    help="write the verdict table as JSON to PATH")
    group.addoption("--verify-packs", default=None, metavar="WHICH",
                    help="the packs whose tests and mutants run: all (default: built-in and "
                         "installed), builtin, or a comma list of pack names (any case) or "
                         "installed packs' entry-point names: those packs only")
    group.addoption("--verify-against", default=None, metavar="PATH",
                    help="a verdicts.json of another profile's run (`--verify-json`): every "
                         "claim decided differently there and here is a finding with both "
                         "instances (`verify.results.sizes.verdict_changes`)")
    group.addoption("--verify-md", default=None, metavar="PATH",
                    help="write the verdict table as Markdown to PATH")
    group.addoption("--verify-certify", default=None, nargs="?", const=2, type=int,
                    metavar="N",
                    help="also decide each claim on certified tubes until N instances "
                         "decided it (default 2; at most 3N tried, per claim and test process; "
                         "exact-flow runs with the square loss, ReLU or leaky ReLU): PROVED, "
                         "DISPROVED or UNCERTIFIED, in the table's certified column")


def _pack_test_dirs(choice: str | None = None) -> list[Path]:
    """The test directories of the packs ``--verify-packs`` selects (`theory.packs.tested`;
    every pack, built-in and installed, without the option)."""
    from theory import packs

    return [d for pack in packs.tested(choice or "all")
            if (d := pack.directory("tests")) is not None]


def tested_mutants(choice: str | None) -> tuple[str, ...]:
    """The declared mutants (`verify.results.mutants.roster`) of the packs whose tests run: ids
    ``PACK-...~label`` of the selected packs."""
    from theory import packs

    roster = mutants_mod.roster()
    if choice is None or choice.strip().lower() in ("", "all"):
        return roster
    names = {p.name for p in packs.tested(choice)}
    return tuple(m for m in roster if m.split("-", 1)[0] in names)


def _add_pack_tests(config) -> None:
    """``pytest verify`` runs the packs' tests with the toolkit's own: when the invocation
    collects this package's directory, the selected packs' test directories join it
    (unless a path given already contains them)."""
    here = Path(__file__).resolve().parents[1]  # the verify package
    given = [Path(str(a).split("::")[0]).resolve() for a in config.args]
    if here not in given:
        return
    for path in _pack_test_dirs(config.getoption("--verify-packs")):
        if not any(path == g or g in path.parents for g in given):
            config.args.append(str(path))


def pytest_configure(config):
    config.addinivalue_line("markers", "claim(id): the catalogue claim a test checks")
    choice = config.getoption("--verify-packs")
    if choice is not None:
        from theory import packs

        packs.select(choice)
    _add_pack_tests(config)
    config._gfverify_pack_roots = tuple(
        d.parent.resolve() for d in _pack_test_dirs(config.getoption("--verify-packs")))
    register_hypothesis_profiles()
    name = config.getoption("--verify-profile")
    settings.load_profile(f"gfverify-{name}")
    config._gfverify_profile = get_profile(name)
    set_active(name)  # before collection: test modules pick their strategies by it
    config._gfverify_log = VerdictLog(profile=name)
    _configure_runs(config, name)
    certify = config.getoption("--verify-certify")
    if certify is not None:
        if certify < 1:
            raise pytest.UsageError(f"--verify-certify: a number of instances >= 1, got "
                                    f"{certify}")
        from verify.engine.certified import suite

        suite.configure(certify)


@pytest.fixture(scope="session")
def verdicts(request) -> VerdictLog:
    """The session's `verify.results.table.VerdictLog`: record verdicts for the table printed
    after the run.

    ``verdicts.record(verdict, claim.kind.value)`` for a claim's verdict,
    ``verdicts.record_mutant(verdict, caught)`` for a mutant's,
    ``verdicts.finding(Finding(...), verdict=...)`` for a finding
    (`verify.results.findings.Finding`). Session-scoped: every test of the run (under
    pytest-xdist, every worker's, merged) records into one table."""
    return request.config._gfverify_log


@pytest.fixture(scope="session")
def verify_profile(request):
    """The active verification profile (`verify.running.profiles.Profile`, quick or full), chosen
    with ``--verify-profile`` (default quick): ``verify_profile.name``, and the sizes
    (``saved_times``, ``examples``, ...) a test scales its instances by."""
    return request.config._gfverify_profile


def _workers_option(text: str) -> int:
    from verify.running.executors import workers_option

    try:
        return workers_option(text)
    except Exception as exc:  # argparse's type error, said as pytest's usage error
        raise pytest.UsageError(f"--dask-local: {exc}") from None


def _store_dir(config, profile: str) -> str | None:
    given = config.getoption("--verify-store")
    if given is not None:
        return given
    if profile == "paper":
        return str(Path(str(config.rootpath)) / DEFAULT_STORE)
    return None


def _configure_runs(config, profile: str) -> None:
    """The session's runner (`verify.running.runs`): its store (``--verify-store``, by default
    `DEFAULT_STORE` for the paper profile) and executor (``--scheduler``/``--dask-local``).
    A SIGTERM ends the session as Ctrl-C does (what finished is kept; workers closed)."""
    store = _store_dir(config, profile)
    scheduler = config.getoption("verify_scheduler")
    local = config.getoption("verify_dask_local")
    config._gfverify_runs = None
    config._gfverify_cluster = None
    if store is None and scheduler is None and local is None:
        return
    import contextlib

    from verify.running import runs
    from verify.running.executors import executor_for

    if local is not None and scheduler is not None:
        raise pytest.UsageError("--dask-local and --scheduler: give one (a local cluster, or "
                                "a running scheduler's address)")
    if local is not None:
        worker_input = getattr(config, "workerinput", None)
        if worker_input is not None:  # an xdist worker: join the controller's cluster
            scheduler, local = worker_input.get(_SCHEDULER_KEY), None
            if scheduler is None:
                raise pytest.UsageError("--dask-local: this pytest-xdist worker was given no "
                                        "cluster address by its controller")
        elif _distributes(config):
            if not config.getoption("collectonly", False):
                _start_shared_cluster(config, local)  # the controller runs no test
            return
    stack = contextlib.ExitStack()
    try:
        ex = executor_for(scheduler, local)
        stack.enter_context(ex)
        runner = runs.Runner(runs.RunStore(store) if store is not None else None,
                             None if getattr(ex, "name", "") == "local" else ex, track=True)
    except Exception as exc:
        stack.close()
        raise pytest.UsageError(str(exc)) from None
    previous_runner = runs.set_current(runner)
    previous_signal = _catch_sigterm()
    config._gfverify_runs = (runner, stack, previous_runner, previous_signal,
                             getattr(ex, "name", "here"))


def _distributes(config) -> bool:
    """Whether this is a pytest-xdist controller that hands tests to workers (as xdist
    decides it: a distribution mode and test environments, ``-n K`` or ``--tx``)."""
    try:
        return config.getoption("dist") != "no" and bool(config.getoption("tx"))
    except ValueError:  # xdist is not installed or not loaded
        return False


_SCHEDULER_KEY = "gfverify_scheduler"  # in each xdist worker's workerinput
_RUNS_KEY = "gfverify_runs"  # a worker's runner counts, in its workeroutput


def _start_shared_cluster(config, workers: int) -> None:
    """``-n K --dask-local N``: the xdist controller starts the one local cluster (N
    processes) that all K test workers send their runs to (`pytest_configure_node` hands
    them its address), so the tests and the simulations both run in parallel."""
    from verify.running.executors import DaskExecutor

    ex = DaskExecutor(local_workers=workers)
    try:
        ex.__enter__()
        address = ex.scheduler_address()  # the cluster starts now
    except Exception as exc:
        ex.__exit__(None, None, None)
        raise pytest.UsageError(str(exc)) from None
    config._gfverify_cluster = (ex, address, _catch_sigterm())


def _catch_sigterm():
    """SIGTERM ends the session as Ctrl-C does (in the main thread); the handler it
    replaced."""
    import signal

    previous = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    return previous


def _restore_sigterm(previous) -> None:
    import signal

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, previous)


@pytest.hookimpl(optionalhook=True)  # an xdist hook
def pytest_configure_node(node):
    held = getattr(node.config, "_gfverify_cluster", None)
    if held:
        node.workerinput[_SCHEDULER_KEY] = held[1]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """What one run of a test's cost: the CPU seconds of the largest run the test asked the
    session's runner for (`verify.running.runs.Runner.cpu`, kept in the store with each run), added
    to every claim the test recorded a verdict for (the table's ``run_cpu``)."""
    held = getattr(item.config, "_gfverify_runs", None)
    log = getattr(item.config, "_gfverify_log", None)
    if not held or log is None:
        yield
        return
    runner = held[0]
    before = {cid: len(rows) for cid, rows in log.rows.items()}
    runner.requested.clear()
    yield
    cost = runner.cost_of(runner.requested)
    if cost is not None:
        for cid, rows in log.rows.items():
            if len(rows) > before.get(cid, 0):
                log.costs[cid] = max(log.costs.get(cid, 0.0), cost)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After a pack's last test (the next is another pack's, or none), the runs its modules
    cached are let go (`verify.front.pack_memory`)."""
    roots = getattr(item.config, "_gfverify_pack_roots", ())
    here = pack_memory.pack_of(item.path, roots)
    if here is not None and (nextitem is None
                             or pack_memory.pack_of(nextitem.path, roots) != here):
        pack_memory.release(here)


def _interrupt(signum, frame) -> None:  # SIGTERM as Ctrl-C: pytest stops and cleans up
    raise KeyboardInterrupt


def pytest_unconfigure(config):
    cluster = getattr(config, "_gfverify_cluster", None)
    if cluster:
        config._gfverify_cluster = None
        try:
            cluster[0].__exit__(None, None, None)
        finally:
            _restore_sigterm(cluster[2])
    held = getattr(config, "_gfverify_runs", None)
    if not held:
        return

    from verify.running import runs

    runner, stack, previous_runner, previous_signal, _ = held
    config._gfverify_runs = None
    try:
        stack.close()  # cancels unfinished tasks, closes the client and cluster
    finally:
        runs.set_current(previous_runner)
        _restore_sigterm(previous_signal)


def pytest_sessionfinish(session):
    config = session.config
    if hasattr(config, "workeroutput"):  # xdist worker: ship rows to the controller
        config.workeroutput[_WORKER_KEY] = json.dumps(config._gfverify_log.payload())
        held = getattr(config, "_gfverify_runs", None)
        if held:
            config.workeroutput[_RUNS_KEY] = json.dumps(
                {"loaded": held[0].loaded, "computed": held[0].computed, "where": held[-1]})


@pytest.hookimpl(optionalhook=True)  # an xdist hook: pytest without xdist must not refuse it
def pytest_testnodedown(node, error):
    data = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
    if data:
        node.config._gfverify_log.merge(json.loads(data))
    counts = getattr(node, "workeroutput", {}).get(_RUNS_KEY)
    if counts:
        if getattr(node.config, "_gfverify_worker_runs", None) is None:
            node.config._gfverify_worker_runs = []
        node.config._gfverify_worker_runs.append(json.loads(counts))


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workeroutput"):
        return
    log: VerdictLog = config._gfverify_log
    table = log.table()
    against = config.getoption("--verify-against")
    if against and table:  # verdicts that change with the size of the instances
        from verify.results.findings import load_run
        from verify.results.sizes import verdict_changes

        other = load_run(against)
        for found in verdict_changes(other, {"profile": log.profile, "claims": table}):
            log.findings.append(found.to_dict())
    if not table and not log.mutants and not log.findings:
        return
    terminalreporter.section("gfverify verdicts")
    for line in _runs_lines(config):
        terminalreporter.write_line(line)
    for line in format_table(table):
        terminalreporter.write_line(line)
    score = mutants_mod.score(log.mutants,
                              tested_mutants(config.getoption("--verify-packs")))
    terminalreporter.write_line(mutants_mod.summary_line(score))
    found = findings_mod.distinct([findings_mod.Finding.from_dict(d) for d in log.findings])
    if found:
        terminalreporter.write_line(f"findings measured in this run ({len(found)}; texts in "
                                    f"--verify-json and the report):")
        for f in found:
            terminalreporter.write_line(f"  {f.line()}")
    if config.getoption("--verify-json"):
        profile = config._gfverify_profile.name
        tests = {k: len(terminalreporter.stats.get(k, []))
                 for k in ("passed", "failed", "error", "skipped", "xfailed", "xpassed")}
        with open(config.getoption("--verify-json"), "w") as fh:
            fh.write(_compact_numbers(json.dumps(
                {"profile": profile, "tests": tests, "claims": table, "mutants": log.mutants,
                 "mutant_score": score, "findings": [f.to_dict() for f in found]},
                indent=2)))
    if config.getoption("--verify-md"):
        with open(config.getoption("--verify-md"), "w") as fh:
            fh.write(markdown_table(table))


def _runs_lines(config) -> list[str]:
    """The "runs: ... read from the store, ... computed" line: this process's runner, or
    under pytest-xdist the test workers' counts summed (the controller runs no test)."""
    store = _store_dir(config, config._gfverify_profile.name)
    kept = f", kept in {store}" if store is not None else ""
    counts = getattr(config, "_gfverify_worker_runs", None)
    cluster = getattr(config, "_gfverify_cluster", None)
    if counts:
        loaded, computed = (sum(c[k] for c in counts) for k in ("loaded", "computed"))
        started = len(config.getoption("tx") or ())
        missing = (f"; {started - len(counts)} of the {started} workers sent no counts"
                   if started > len(counts) else "")
        if cluster:
            joined = sum(c.get("where") == f"dask scheduler {cluster[1]}" for c in counts)
            where = f"{cluster[0].name}, shared by {joined} pytest-xdist workers{missing}"
        else:
            wheres = sorted({c.get("where", "here") for c in counts})
            where = f"{', '.join(wheres)}, in {len(counts)} pytest-xdist workers{missing}"
    elif getattr(config, "_gfverify_runs", None):
        runner, *_, where = config._gfverify_runs
        loaded, computed = runner.loaded, runner.computed
    else:
        return []
    return [f"runs: {loaded} read from the store, {computed} computed ({where}){kept}"]


_NUMBER_LIST = re.compile(r"\[\s*((?:-?[0-9.eE+-]+|null|NaN|-?Infinity)"
                          r"(?:,\s*(?:-?[0-9.eE+-]+|null|NaN|-?Infinity))*)\s*\]")


def _compact_numbers(text: str) -> str:
    """Indented JSON with each list of numbers on one line (the figure series), which
    keeps the file readable and a third of the size."""
    def one_line(m: re.Match) -> str:
        if "\n" not in m.group(0):  # strings hold no raw newline: this is inside a string
            return m.group(0)
        return "[" + re.sub(r",\s+", ", ", m.group(1)) + "]"

    return _NUMBER_LIST.sub(one_line, text)
