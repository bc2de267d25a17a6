"""`Claim`: what a paper says, declared symbolically; it computes nothing.

A claim's statement is a sympy relation (or a conjunction of relations) in the
vocabulary of `theory.symbols`. How it is checked follows from its kind:

- POINTWISE: the relation holds at every time in ``window``;
- CONSERVED: an equality to 0 of a drift quantity at every time in ``window``;
- EVENT_TIME: ``event_time`` (a symbol) is the first time ``event`` holds, and the
  statement bounds it;
- TRAPPING, IDENTITY, SCALING, PROBABILITY, QUALITATIVE: see `Kind`.

Constants a paper hides in O(.) or leaves "small enough" are named
``parameters`` with a documented value; ``with_parameters`` and ``variant``
build modified claims (mutants, user choices) without touching the original.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import sympy as sp


class Kind(enum.Enum):
    POINTWISE = "pointwise bound"
    CONSERVED = "conserved quantity"
    EVENT_TIME = "event time bound"
    TRAPPING = "trapping/monotonicity"
    IDENTITY = "closed-form identity"
    SCALING = "scaling law"
    PROBABILITY = "probability bound"
    QUALITATIVE = "qualitative"


class Provenance(enum.Enum):
    """How faithfully the statement follows the seed text (THEORY.md's tags)."""

    VERBATIM = "seed"
    OCR = "seed-OCR"
    REPO = "repo"
    DERIVED = "derived"
    INFERRED = "inferred"


SEEDS = {
    "S000": "000_9471162ab059ead6.txt",
    "S001": "001_3d2e519e1927f769.txt",
    "S002": "002_2cfc81695abc9c19.txt",
}


@dataclass(frozen=True)
class Source:
    paper: str  # "S002"
    reference: str  # "Lemma 3", "Section 5", ...
    provenance: Provenance

    @property
    def seed_file(self) -> str:
        return SEEDS[self.paper]

    def __str__(self) -> str:
        return f"{self.paper} {self.reference} [{self.provenance.value}]"


@dataclass(frozen=True)
class Assumption:
    """A hypothesis of a claim: a sympy relation over instance quantities."""

    name: str
    statement: sp.Basic
    text: str

    def latex(self) -> str:
        return sp.latex(self.statement)


def _frozen(mapping) -> MappingProxyType:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Claim:
    id: str
    title: str
    kind: Kind
    source: Source
    statement: sp.Basic
    setting: tuple[Assumption, ...] = ()
    parametrization: str | None = None  # "standard", "mean_field", "classification" or any
    loss: str | None = None  # "square", "exponential", "logistic" or any
    window: tuple[sp.Basic, sp.Basic] = (sp.Integer(0), sp.oo)
    event: sp.Basic | None = None
    event_time: sp.Symbol | None = None
    parameters: MappingProxyType = field(default_factory=lambda: _frozen({}))
    parameter_notes: str = ""
    measures: str = ""
    checkable: bool = True
    not_checkable_reason: str = ""
    flags: tuple[str, ...] = ()
    notes: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", _frozen(self.parameters))
        if self.kind is Kind.EVENT_TIME and (self.event is None or self.event_time is None):
            raise ValueError(f"{self.id}: an EVENT_TIME claim needs event and event_time.")
        if not self.checkable and not self.not_checkable_reason:
            raise ValueError(f"{self.id}: say why the claim is not checkable.")

    # -- views -----------------------------------------------------------------------
    @property
    def paper(self) -> str:
        return self.source.paper

    def relations(self) -> tuple[sp.Basic, ...]:
        """The statement's relations (a conjunction is split into its parts)."""
        if isinstance(self.statement, sp.And):
            return tuple(self.statement.args)
        return (self.statement,)

    def event_relations(self) -> tuple[sp.Basic, ...]:
        if self.event is None:
            return ()
        return tuple(self.event.args) if isinstance(self.event, sp.And) else (self.event,)

    def substituted(self, expr: sp.Basic) -> sp.Basic:
        """``expr`` with the claim's parameter values substituted."""
        subs = {sp.Symbol(k, **_assumptions_of(expr, k)): v for k, v in self.parameters.items()}
        return expr.xreplace(subs) if subs else expr

    def latex(self) -> str:
        body = sp.latex(self.statement)
        if self.kind is Kind.EVENT_TIME:
            return (f"{body}, \\quad {sp.latex(self.event_time)} := "
                    f"\\inf\\{{t : {sp.latex(self.event)}\\}}")
        if self.kind in (Kind.POINTWISE, Kind.CONSERVED, Kind.TRAPPING):
            lo, hi = self.window
            return f"{body} \\quad \\forall t \\in [{sp.latex(lo)}, {sp.latex(hi)})"
        return body

    def text(self) -> str:
        """One line of plain text."""
        body = sp.sstr(self.statement)
        if self.kind is Kind.EVENT_TIME:
            body += f", where {self.event_time} = first t with {sp.sstr(self.event)}"
        elif self.kind in (Kind.POINTWISE, Kind.CONSERVED, Kind.TRAPPING):
            lo, hi = self.window
            body += f" for t in [{lo}, {hi})"
        return f"{self.id} ({self.kind.value}): {body}"

    # -- derived claims ----------------------------------------------------------------
    def with_parameters(self, **values) -> Claim:
        unknown = set(values) - set(self.parameters)
        if unknown:
            raise KeyError(
                f"{self.id}: no parameter {sorted(unknown)}; it has {sorted(self.parameters)}."
            )
        merged = dict(self.parameters)
        merged.update(values)
        return replace(self, parameters=_frozen(merged))

    def variant(self, suffix: str, **changes) -> Claim:
        """A modified copy (e.g. a mutant) whose id says what changed."""
        return replace(self, id=f"{self.id}~{suffix}", **changes)


def _assumptions_of(expr: sp.Basic, name: str) -> dict:
    """The assumptions of the symbol called ``name`` inside ``expr`` (for xreplace)."""
    for s in expr.free_symbols:
        if s.name == name:
            return s.assumptions0
    return {}
