"""Verification profiles: how many instances and how large, as hypothesis settings."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, settings

from verify.errors import InputError


@dataclass(frozen=True)
class Profile:
    name: str
    examples: int  # random instances per claim and family
    max_n: int  # largest number of samples drawn
    saved_times: int  # points of the saved-time grid


PROFILES = {
    "quick": Profile("quick", examples=20, max_n=5, saved_times=4001),
    "full": Profile("full", examples=200, max_n=8, saved_times=8001),
}


def pin_hypothesis_draws() -> None:
    """Make Hypothesis's draws depend on the seed alone.

    Hypothesis (6.13x and later) biases its draws towards the literal constants of the
    local modules loaded so far in the process (`hypothesis.internal.conjecture.
    providers._get_local_constants`). Which of our modules are loaded depends on the order
    tests run in (xdist hands them out by load) and on lazy imports, so the same seed drew
    different instances from run to run (measured: 5 of 22 draws of an S002 family test).
    The pool is pinned to empty: the draws use Hypothesis's global constants only. A
    Hypothesis without this mechanism is left as it is."""
    try:
        from hypothesis.internal.conjecture import providers as hp

        empty = hp.Constants(integers=hp.SortedSet(), floats=hp.SortedSet(key=hp.float_to_int),
                             bytes=hp.SortedSet(), strings=hp.SortedSet())
        hp._get_local_constants = lambda: empty
    except (ImportError, AttributeError):
        return


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


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise InputError(
            f"profile: {name!r} is not one of {sorted(PROFILES)}"
        ) from None
