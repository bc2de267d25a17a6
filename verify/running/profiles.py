"""Verification profiles: how many instances and how large, as hypothesis settings."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from hypothesis import HealthCheck, settings

from verify.errors import InputError


@dataclass(frozen=True)
class Profile:
    """How many instances and how large: the ``quick``, ``full`` or ``paper`` profile
    (`PROFILES`). The ``paper`` profile checks each claim at its paper's experimental sizes
    where one run costs at most about an hour of one core, else at the largest affordable
    size below (each pack's sizes table says which and why, `verify.results.sizes`); it is not run
    by CI (``pytest verify --verify-profile paper --dask-local 2``, the runs on a local
    cluster of two processes, took 32 min on 2 cores and peaks at 12 GB in one process;
    with ``-p xdist -n K`` beside it the K test processes share that cluster).

    ``pytest verify --verify-profile NAME`` selects it (the ``verify_profile`` fixture of
    a pack's tests is it) and ``gfverify report --profile NAME`` runs the report's
    sections with it. Its hypothesis settings profile is ``gfverify-NAME``
    (``max_examples`` = ``examples``, derandomized).

    Attributes
    ----------
    name
        ``"quick"``, ``"full"`` or ``"paper"``.
    examples
        Random instances per claim and family (hypothesis's ``max_examples``).
    max_n
        The largest number of samples an instance draws.
    saved_times
        The number of points of the saved-time grid of a run.
    tighten_budget
        Instances drawn per claim by the report's tightness table.
    tighten_refine
        Refinement runs per claim in the report's tightness table.
    """

    name: str
    examples: int  # random instances per claim and family
    max_n: int  # largest number of samples drawn
    saved_times: int  # points of the saved-time grid
    tighten_budget: int = 3  # instances drawn per claim by the report's tightness table
    tighten_refine: int = 1  # refinement runs per claim there


PROFILES = {
    "quick": Profile("quick", examples=20, max_n=5, saved_times=4001, tighten_budget=3,
                     tighten_refine=1),
    "full": Profile("full", examples=200, max_n=8, saved_times=8001, tighten_budget=12,
                    tighten_refine=4),
    # the papers' experimental sizes where one run costs at most about an hour of one core
    # (each pack's sizes table, `verify.results.sizes`): fewer, larger instances, fewer saved times
    "paper": Profile("paper", examples=10, max_n=8, saved_times=2001, tighten_budget=3,
                     tighten_refine=1),
}


_ACTIVE = ["quick"]


def active() -> str:
    """The profile of this process's verification session (``pytest verify
    --verify-profile NAME`` sets it before the tests are collected, so that a test module
    can choose its hypothesis strategies by it); ``"quick"`` outside a session."""
    return _ACTIVE[0]


def set_active(name: str) -> None:
    """Make ``name`` the session's profile (`active`); an unknown name is an InputError."""
    _ACTIVE[0] = get_profile(name).name


def pin_hypothesis_draws() -> None:
    """Make Hypothesis's draws depend on the seed alone, for the rest of the process.

    Hypothesis (6.13x and later) biases its draws towards the literal constants of the
    local modules loaded so far in the process (`hypothesis.internal.conjecture.
    providers._get_local_constants`). Which of our modules are loaded depends on the order
    tests run in (xdist hands them out by load) and on lazy imports, so the same seed drew
    different instances from run to run (measured: 5 of 22 draws of an S002 family test).
    The pool is pinned to empty (and the cache built from it cleared): the draws use
    Hypothesis's global constants only. The plugin pins it for the verification session;
    `pinned_hypothesis_draws` does it for one search and restores it. A Hypothesis without
    this mechanism is left as it is."""
    _set_local_constants(None)


@contextlib.contextmanager
def pinned_hypothesis_draws():
    """`pin_hypothesis_draws` for the duration of a ``with`` block, then Hypothesis's own
    behaviour again (a conjecture search in a user's process leaves their tests alone)."""
    previous = _set_local_constants(None)
    try:
        yield
    finally:
        if previous is not None:
            _set_local_constants(previous)


def _set_local_constants(source):
    """Replace Hypothesis's local-constants source (None: an empty pool); return the
    previous one, or None when this Hypothesis has no such mechanism."""
    try:
        from hypothesis.internal.conjecture import providers as hp

        previous = hp._get_local_constants
        if source is None:
            empty = hp.Constants(integers=hp.SortedSet(),
                                 floats=hp.SortedSet(key=hp.float_to_int),
                                 bytes=hp.SortedSet(), strings=hp.SortedSet())
            source = lambda: empty  # noqa: E731
        hp._get_local_constants = source
        hp.CONSTANTS_CACHE.cache.clear()
        return previous
    except (ImportError, AttributeError):
        return None


def register_hypothesis_profiles() -> None:
    pin_hypothesis_draws()
    for prof in PROFILES.values():
        settings.register_profile(
            f"gfverify-{prof.name}",
            max_examples=prof.examples,
            deadline=None,
            derandomize=True,
            database=None,
            print_blob=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        )


def per_profile(table: dict, profile: str, what: str = "settings"):
    """A section's own entry for ``profile`` (``table``: profile name -> its sizes). One
    rule for every section: the profile must be one of PROFILES (else a clear
    InputError), and a table must cover every profile (else a pack's error, named)."""
    get_profile(profile)
    missing = sorted(set(PROFILES) - set(table))
    if missing:
        raise ValueError(f"{what}: no entry for the profile(s) {missing}; a section's "
                         f"table covers {sorted(PROFILES)}")
    return table[profile]


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise InputError(
            f"profile: {name!r} is not one of {sorted(PROFILES)}"
        ) from None
