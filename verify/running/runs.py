"""Runs as tasks: the simulations a verification, a search or a report section asks for,
kept in a store as they finish and computed on an executor.

`simulate` (the signature of `numerics.simulate`) and `simulate_all` (many runs at once)
go through the process's current `Runner`. By default that runner has no store and runs
each simulation here, one after the other: exactly `numerics.simulate`. Configured
(`configure`, done by ``pytest verify --verify-store DIR --dask-local N`` and by
``gfverify report``/``conjecture`` with ``--dask-local N`` or ``--scheduler ADDRESS``) it

- looks each run up in its `RunStore` first (a run is named by its problem's content
  hash, its method and options, and its saved times, `run_key`), and keeps every run it
  computes there as soon as it finishes: a stop (Ctrl-C, SIGTERM) keeps what finished,
  and the next run with the same store resumes from it;
- computes the runs not stored as tasks of its executor
  (`verify.running.executors.DaskExecutor` on a Dask cluster, or the sweeps'
  `verify.sweep.LocalExecutor` here), ``simulate_all``'s runs all at once.

Methods are deterministic, so a run is the same whichever executor computed it, and the
verdicts on a Dask cluster are those of the serial run (tested). The store holds the
`numerics.Trajectory` objects pickled (with the CPU seconds each cost), in a directory per
version of the engines' code (`numerics_fingerprint`): runs made by other code are never
read. Point
a store at a directory gfverify wrote (as with any pickle, never at one from elsewhere).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from numerics import Problem, Trajectory
from numerics import simulate as _simulate
from verify.errors import InputError


def run_key(problem: Problem, method, t_eval) -> str:
    """The name of a run: SHA-256 (24 hex) of the problem's content hash, the method's name
    and options, and the saved times (their float64 bytes)."""
    h = hashlib.sha256()
    h.update(problem.content_hash.encode())
    h.update(str(getattr(method, "name", type(method).__name__)).encode())
    h.update(json.dumps(method.options(), sort_keys=True, default=repr).encode())
    h.update(np.ascontiguousarray(np.asarray(t_eval, dtype=float)).tobytes())
    return h.hexdigest()[:24]


@dataclass(frozen=True)
class RunSpec:
    """One simulation: ``simulate(problem, method, t_eval)``; `key` names it.

    Attributes
    ----------
    problem
        The `numerics.Problem`.
    method
        The method object (`numerics.ExactFlow`, `numerics.GradientDescent`, ...).
    t_eval
        The saved times (increasing, from 0).
    """

    problem: Problem
    method: object
    t_eval: np.ndarray

    @property
    def key(self) -> str:
        """The run's name in a store (`run_key`)."""
        return run_key(self.problem, self.method, self.t_eval)


def compute(spec: RunSpec) -> Trajectory:
    """The run ``spec`` names (what an executor's task does)."""
    return _simulate(spec.problem, spec.method, spec.t_eval)


def _compute_indexed(item: tuple[int, RunSpec]) -> tuple[int, Trajectory, float]:
    """``(index, run, CPU seconds)``: the run and what it cost the process that made it
    (an executor's worker runs one task at a time on one thread)."""
    index, spec = item
    start = time.process_time()
    tr = compute(spec)
    return index, tr, time.process_time() - start


def numerics_fingerprint() -> str:
    """SHA-256 (16 hex) of the source files of the `numerics` package that make a run's
    numbers (all but `_NOT_ENGINES`): a store keeps runs per version of them (editing the
    checks, the packs or the report keeps the runs; editing an engine does not)."""
    import numerics

    h = hashlib.sha256()
    root = Path(numerics.__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        if name.startswith(_NOT_ENGINES):
            continue
        h.update(name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


# numerics modules that read, record or certify runs and make none (left out of the
# fingerprint: editing them keeps a store's runs)
_NOT_ENGINES = ("certify/", "recorded.py", "recorder.py")


class RunStore:
    """A directory of finished runs (``ROOT/runs-FINGERPRINT/ab/KEY.pickle``), each written
    under a temporary name and renamed (a stop leaves whole files or none).

    Attributes
    ----------
    root
        The directory given (``--verify-store DIR``, the report's ``OUT/store``).
    directory
        Where this code's runs are: ``root/runs-FINGERPRINT``.
    """

    def __init__(self, root: str | os.PathLike, fingerprint: str | None = None) -> None:
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise InputError(f"store {self.root}: is a file; a run store is a directory")
        if fingerprint is None:
            fingerprint = numerics_fingerprint()
        self.directory = self.root / f"runs-{fingerprint}"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"store {self.root}: cannot write there "
                             f"({exc.strerror or exc})") from None

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.pickle"

    def get(self, key: str) -> Trajectory | None:
        """The stored run, or None (also for a file that cannot be read back)."""
        got = self.get_with_cost(key)
        return None if got is None else got[0]

    def get_with_cost(self, key: str) -> tuple[Trajectory, float] | None:
        """The stored run and the CPU seconds it cost when it was made, or None."""
        path = self._path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            kept = pickle.loads(data)  # noqa: S301 - our own store (module docstring)
        except Exception:  # a damaged file: computed again
            return None
        if not (isinstance(kept, dict) and isinstance(kept.get("run"), Trajectory)):
            return None
        return kept["run"], float(kept.get("cpu_seconds", float("nan")))

    def put(self, key: str, tr: Trajectory, cpu_seconds: float = float("nan")) -> None:
        """Keep the run ``tr`` under ``key`` with what it cost (written whole or not at
        all)."""
        path = self._path(key)
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.partial")
        try:
            tmp.write_bytes(pickle.dumps({"run": tr, "cpu_seconds": float(cpu_seconds)},
                                         protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, path)
        except BaseException:  # a stop while writing: no half-written file is left
            tmp.unlink(missing_ok=True)
            raise

    def keys(self) -> list[str]:
        """The keys of the runs stored (by this code)."""
        return sorted(p.stem for p in self.directory.glob("*/*.pickle"))


@dataclass
class Runner:
    """Where runs come from: a `RunStore` (or None) and an executor (anything with
    ``map_unordered(fn, items)``, entered; None: this process, in order).

    Attributes
    ----------
    store
        The `RunStore`, or None (nothing kept).
    executor
        The executor the runs not stored are computed on, or None (here).
    loaded
        Runs read from the store so far.
    computed
        Runs computed (and stored) so far.
    cpu
        Run key -> the CPU seconds the run cost (runs computed here or on a worker, and
        runs read from the store, which keeps what they cost).
    requested
        With ``track``, the keys of the runs asked for since it was last cleared (the pytest
        plugin clears it before each test, to say what the test's runs cost).
    track
        Whether to keep `requested` (False: a search's runner keeps nothing).
    """

    store: RunStore | None = None
    executor: object | None = None
    loaded: int = 0
    computed: int = 0
    cpu: dict = field(default_factory=dict)
    requested: list = field(default_factory=list)
    track: bool = False  # keep `requested` (the pytest plugin's runner does)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def simulate(self, problem: Problem, method, t_eval) -> Trajectory:
        """One run (`numerics.simulate`'s signature)."""
        return self.run_all([RunSpec(problem, method, np.asarray(t_eval, dtype=float))])[0]

    def run_all(self, specs: Sequence[RunSpec]) -> list[Trajectory]:
        """The runs ``specs`` name, in their order: stored ones read, the others computed
        as tasks of the executor at once (each stored as soon as it finishes)."""
        specs = list(specs)
        out: list[Trajectory | None] = [None] * len(specs)
        keys = [s.key for s in specs]
        if self.track:
            with self._lock:
                self.requested.extend(keys)
        missing: dict[str, list[int]] = {}
        for i, key in enumerate(keys):
            got = self.store.get_with_cost(key) if self.store is not None else None
            if got is not None:
                out[i] = got[0]
                with self._lock:
                    self.loaded += 1
                    self.cpu[key] = got[1]
            else:  # one task per distinct run
                missing.setdefault(key, []).append(i)
        tasks = [(idx[0], specs[idx[0]]) for idx in missing.values()]
        if tasks:
            if self.executor is None:
                results = (_compute_indexed(t) for t in tasks)
            else:
                results = self.executor.map_unordered(_compute_indexed, tasks)
            for i, tr, cpu in results:
                if self.store is not None:
                    self.store.put(keys[i], tr, cpu)
                with self._lock:
                    self.computed += 1
                    self.cpu[keys[i]] = cpu
                for j in missing[keys[i]]:
                    out[j] = tr
        return out  # type: ignore[return-value]

    def cost_of(self, keys) -> float | None:
        """The largest CPU cost among the runs ``keys`` (None when none is known)."""
        known = [self.cpu[k] for k in keys if k in self.cpu and self.cpu[k] == self.cpu[k]]
        return max(known) if known else None


_CURRENT = Runner()


def current() -> Runner:
    """The process's current runner (no store, here: `numerics.simulate` unless
    configured)."""
    return _CURRENT


def simulate(problem: Problem, method, t_eval) -> Trajectory:
    """`numerics.simulate` through the current runner (its store and executor)."""
    return _CURRENT.simulate(problem, method, t_eval)


def simulate_all(jobs: Iterable[tuple[Problem, object, object]]) -> list[Trajectory]:
    """Many runs at once, ``(problem, method, t_eval)`` each, through the current runner:
    on a cluster they run as parallel tasks. In the order given."""
    return _CURRENT.run_all([RunSpec(p, m, np.asarray(t, dtype=float)) for p, m, t in jobs])


@contextlib.contextmanager
def using(runner: Runner):
    """``with using(Runner(store, executor)):`` the current runner for the block."""
    global _CURRENT
    previous, _CURRENT = _CURRENT, runner
    try:
        yield runner
    finally:
        _CURRENT = previous


def set_current(runner: Runner) -> Runner:
    """Make ``runner`` the current one (for the rest of the process); returns the previous
    one."""
    global _CURRENT
    previous, _CURRENT = _CURRENT, runner
    return previous


@contextlib.contextmanager
def configured(store: str | os.PathLike | None = None, scheduler: str | None = None,
               local_workers: int | None = None):
    """The current runner for the block: the store in ``store`` (None: none), computing on
    a Dask scheduler (``scheduler``), a local Dask cluster of ``local_workers`` processes,
    or here (neither). The executor is closed on leaving, also after Ctrl-C."""
    from verify.running.executors import executor_for

    with executor_for(scheduler, local_workers) as ex:
        runner = Runner(RunStore(store) if store is not None else None,
                        None if getattr(ex, "name", "local") == "local" else ex)
        with using(runner):
            yield runner


__all__ = ["RunSpec", "RunStore", "Runner", "compute", "configured", "current", "run_key",
           "set_current", "simulate", "simulate_all", "using"]
