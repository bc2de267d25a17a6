"""Work limits: what one command may ask for before it is refused (exit 2, before any work).

A typo such as ``--t-max 1e12`` or ``--param p=1000000000`` would otherwise run until
killed or try to allocate tens of GB. The limits are generous for this machine class
(2 cores, 24 GiB); a user who means it raises them explicitly with the environment
variable ``GFVERIFY_NO_LIMITS=1``.
"""

from __future__ import annotations

import math
import os

from verify.errors import InputError

LIMITS = {
    "size": 100_000,          # n, p, d of one instance (each)
    "weights": 20_000_000,    # p (d + 1) + n d numbers of one instance
    "points": 100_000,        # saved times per run
    "horizon": 100_000.0,     # flow time of one run
    "gd_steps": 10_000_000,   # horizon / lr for gradient descent
    "budget": 10_000,         # instances of a search, shrink runs
    "sweep_points": 1_000_000,  # rows of one sweep (grid points x seeds)
}
OVERRIDE = "GFVERIFY_NO_LIMITS"


class LimitError(InputError):
    """A request beyond a work limit; the message names the input and the limit."""


def lifted() -> bool:
    return os.environ.get(OVERRIDE, "") not in ("", "0")


def _refuse(what: str, value, limit) -> None:
    shown = f"{value:,}" if isinstance(value, int) else f"{value:g}"
    raise LimitError(f"{what}: {shown} is above the limit {limit:,} (set {OVERRIDE}=1 to "
                     f"allow it)")


def at_most(what: str, value: float, key: str) -> None:
    """Refuse ``value`` (named ``what``, e.g. "--points") above ``LIMITS[key]``."""
    if lifted():
        return
    if not (isinstance(value, (int, float)) and math.isfinite(value)):
        return
    if value > LIMITS[key]:
        _refuse(what, value, LIMITS[key])


def problem_size(params: dict, where: str = "--param") -> None:
    """Refuse an instance whose sizes (n, p, d, h) or weight count exceed the limits."""
    if lifted():
        return
    sizes = {k: params[k] for k in ("n", "p", "d", "h") if isinstance(params.get(k), int)}
    for k, v in sizes.items():
        at_most(f"{where} {k}", v, "size")
    n, d = sizes.get("n", 1), sizes.get("d", sizes.get("n", 1))
    p = sizes.get("p", sizes.get("h", 1))
    at_most(f"{where} n, p, d (p (d + 1) + n d weights)", p * (d + 1) + n * d, "weights")
