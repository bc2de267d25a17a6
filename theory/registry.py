"""The catalogue: every claim of every pack (`theory.packs`), looked up by ID."""

from __future__ import annotations

from theory import packs, symbols
from theory.claim import Claim, Kind
from theory.suggest import unknown_name
from theory.symbols import UnknownName

_PACK_OF: dict[str, packs.Pack] = {}


# the index and the packs' tuple it was built from (`theory.packs.packs`): a new selection
# of packs (`theory.packs.select`) is a new tuple, so the index is rebuilt on next use
_BUILT: list[tuple[tuple, dict[str, Claim]]] = []


def _index() -> dict[str, Claim]:
    """Every pack's claims by id, built on first use (so that importing `theory` does not
    import the installed packs, which import `theory`) and again when the selection of
    packs changed."""
    current = packs.packs()
    if not _BUILT or _BUILT[0][0] is not current:
        _BUILT[:] = [(current, _build())]
    return _BUILT[0][1]


def _build() -> dict[str, Claim]:
    index: dict[str, Claim] = {}
    for pack, module in packs.modules("claims"):
        symbols.register(getattr(module, "TERMS", ()), getattr(module, "LATEX_NAMES", {}),
                         getattr(module, "PAPER_LATEX_NAMES", {}), owner=pack.name)
        for claim in module.CLAIMS:
            if claim.id in index:
                raise packs.PackError(f"claim id {claim.id} is declared twice (pack "
                                      f"{pack.name!r})")
            if not pack.builtin and claim.paper != pack.name:
                raise packs.PackError(f"pack {pack.name!r}: claim {claim.id} names paper "
                                      f"{claim.paper!r}; a pack's claims carry its name")
            index[claim.id] = claim
            _PACK_OF[claim.id] = pack
    return index




def load() -> None:
    """Load every pack's claims and vocabulary terms (done on first use of the catalogue;
    call it before reading `theory.symbols.VOCABULARY` directly)."""
    _index()


def pack_of(claim_id: str) -> packs.Pack:
    """The pack that declares the claim ``claim_id``."""
    get(claim_id)  # builds the index; an unknown id is refused by name
    return _PACK_OF[claim_id]


# the closed-form identities (THEORY.md section 6, ids CF-k): a group of claims of their own,
# whatever paper each was first stated in
CLOSED_FORMS = "CF"


def in_group(claim: Claim, paper: str) -> bool:
    """Whether ``claim`` belongs to ``paper`` (a pack's name) or, for ``"CF"``, is one of
    the closed-form identities CF-k."""
    if paper == CLOSED_FORMS:
        return claim.id.startswith(CLOSED_FORMS + "-")
    return claim.paper == paper


def groups() -> list[str]:
    """The names ``claims(paper=...)`` takes: every pack's name and ``"CF"``."""
    return sorted({c.paper for c in _index().values()} | {CLOSED_FORMS})


def claims(paper: str | None = None, kind: Kind | str | None = None) -> tuple[Claim, ...]:
    """All claims, optionally only one paper's ("S002"; "CF": the closed-form identities)
    or one kind's."""
    if isinstance(kind, str):
        kind = Kind[kind.upper()] if kind.upper() in Kind.__members__ else Kind(kind)
    return tuple(
        c for c in _index().values()
        if (paper is None or in_group(c, paper)) and (kind is None or c.kind is kind)
    )


def get(claim_id: str) -> Claim:
    """The claim with this catalogue ID, e.g. ``get("S002-L3")``."""
    try:
        return _index()[claim_id]
    except KeyError:
        parts = _split_heading(claim_id)
        if len(parts) > 1 and all(p in _index() for p in parts):
            raise UnknownName(f"{claim_id!r} names several claims: {', '.join(parts)}; "
                           "get them one by one or use by_heading") from None
        raise UnknownName(f"no claim {claim_id!r}; "
                          f"{unknown_name(claim_id, sorted(_index()), 'gfverify claims')}"
                          ) from None


def by_heading(heading_id: str) -> tuple[Claim, ...]:
    """The claims a THEORY.md heading ID names: "S001-L8/L9" -> (S001-L8, S001-L9).

    A heading that groups two lemmas is declared as one claim per lemma. A heading whose
    statement is checked in parts keeps its ID for the first part and adds a letter for
    the others: "S000-F7" -> (S000-F7, S000-F7b).
    """
    if heading_id in _index():
        return tuple(c for cid, c in _index().items() if cid == heading_id or (
            cid[:-1] == heading_id and cid[-1] in "bcdefgh"))
    return tuple(get(part) for part in _split_heading(heading_id))


def _split_heading(heading_id: str) -> tuple[str, ...]:
    paper, _, labels = heading_id.partition("-")
    return tuple(f"{paper}-{label}" for label in labels.split("/"))


def reset() -> None:
    """Forget the claims index (it is rebuilt on next use)."""
    _BUILT.clear()
