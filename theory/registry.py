"""The catalogue: every claim of every paper module, looked up by ID."""

from __future__ import annotations

from theory import closed_forms, s000, s001, s002
from theory.claim import Claim, Kind
from theory.symbols import UnknownName

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
        parts = _split_heading(claim_id)
        if len(parts) > 1 and all(p in _INDEX for p in parts):
            raise UnknownName(f"{claim_id!r} names several claims: {', '.join(parts)}; "
                           "get them one by one or use by_heading") from None
        raise UnknownName(
            f"no claim {claim_id!r}; known ids: {', '.join(sorted(_INDEX))}"
        ) from None


def by_heading(heading_id: str) -> tuple[Claim, ...]:
    """The claims a THEORY.md heading ID names: "S001-L8/L9" -> (S001-L8, S001-L9).

    A heading that groups two lemmas is declared as one claim per lemma.
    """
    if heading_id in _INDEX:
        return (_INDEX[heading_id],)
    return tuple(get(part) for part in _split_heading(heading_id))


def _split_heading(heading_id: str) -> tuple[str, ...]:
    paper, _, labels = heading_id.partition("-")
    return tuple(f"{paper}-{label}" for label in labels.split("/"))
