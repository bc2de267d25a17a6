"""Unknown names, answered with the closest known ones: a mistyped claim id, family,
parameter or quantity gets "did you mean ...?" with at most three names (`difflib`, case
not counted), and a long list of names is not printed but named by the command that
lists it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: Up to this many choices are listed in full; beyond, only the closest are named.
LIST_AT_MOST = 12
_CUTOFF = 0.6


def closest(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The choices most like ``name`` (at most ``n``, best first; case is not counted)."""
    by_lower: dict[str, str] = {}
    for choice in choices:
        by_lower.setdefault(str(choice).lower(), str(choice))
    hits = difflib.get_close_matches(str(name).lower(), list(by_lower), n=n, cutoff=_CUTOFF)
    return [by_lower[h] for h in hits]


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"did you mean A, B?"`` naming the closest choices, or "" when none is close."""
    near = closest(name, choices)
    return f"did you mean {', '.join(near)}?" if near else ""


def unknown_name(name: str, choices: Iterable[str], lister: str = "") -> str:
    """What to tell a user who gave ``name`` among ``choices``: the closest ones, and the
    whole list when it is short (else where it is listed: ``lister``, a command)."""
    choices = list(dict.fromkeys(str(c) for c in choices))
    hint = did_you_mean(name, choices)
    if len(choices) <= LIST_AT_MOST or not lister:
        listed = f"the choices: {', '.join(choices)}"
        return f"{hint} ({listed})" if hint else listed
    where = f"`{lister}` lists all {len(choices)}"
    return f"{hint} ({where})" if hint else f"no name is close; {where}"


__all__ = ["LIST_AT_MOST", "closest", "did_you_mean", "unknown_name"]
