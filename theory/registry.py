"""The catalogue: every claim of every paper module, looked up by ID."""

from __future__ import annotations

from theory import closed_forms, s000, s001, s002
from theory.claim import Claim, Kind

_MODULES = (s000, s001, s002, closed_forms)


def _index() -> dict[str, Claim]:
    index: dict[str, Claim] = {}
    for module in _MODULES:
        for claim in module.CLAIMS:
            if claim.id in index:
                raise RuntimeError(f"claim id {claim.id} is declared twice")
            index[claim.id] = claim
    return index


_INDEX = _index()


def claims(paper: str | None = None, kind: Kind | str | None = None) -> tuple[Claim, ...]:
    """All claims, optionally only one paper's ("S002") or one kind's."""
    if isinstance(kind, str):
        kind = Kind[kind.upper()] if kind.upper() in Kind.__members__ else Kind(kind)
    return tuple(
        c for c in _INDEX.values()
        if (paper is None or c.paper == paper) and (kind is None or c.kind is kind)
    )


def get(claim_id: str) -> Claim:
    """The claim with this catalogue ID, e.g. ``get("S002-L3")``."""
    try:
        return _INDEX[claim_id]
    except KeyError:
        raise KeyError(
            f"no claim {claim_id!r}; known ids: {', '.join(sorted(_INDEX))}"
        ) from None
