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


def register_hypothesis_profiles() -> None:
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
