"""`Claim`: what a paper says, declared symbolically; it computes nothing.

A claim's statement is a sympy relation (or a conjunction of relations) in the
vocabulary of `theory.symbols`. How it is checked follows from its kind:

- POINTWISE: the relation holds at every time in ``window``;
- CONSERVED: an equality to 0 of a drift quantity at every time in ``window``;
- EVENT_TIME: ``event_time`` (a symbol) is the first time ``event`` holds, and the
  statement bounds it;
- TRAPPING, IDENTITY, SCALING, PROBABILITY, QUALITATIVE: see `Kind`.

Constants a paper hides in O(.) or leaves "small enough" are named
``parameters`` with a documented value (``None``: fitted by a scaling check, only
the law's exponent is claimed); ``with_parameters`` and ``variant`` build modified
claims (mutants, user choices) without touching the original. Constants a paper
does make explicit (S001's t_1, zeta, xi) are ``definitions``: a symbol in the
statement and its formula in instance quantities, expanded by ``substituted``.

Conventions of the catalogue: an assumption-type claim (a property of the
instance, no time) is POINTWISE with window (0, 0); an IDENTITY is an exact
equation, between instance quantities or along a run; a POINTWISE claim with
window (a, a) holds at the single time a; a SCALING statement relates a measured
quantity to a power (or log) law in a size (``=`` reads "of the order of",
``<=``/``>=`` read "at most/at least of the order of") with fitted prefactors.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import sympy as sp
from sympy.core.function import AppliedUndef

from theory import fields
from theory.limits import limit_forms
from theory.symbols import UnknownName, latex_names, latex_names_for
from theory.symbols import t as t_symbol


class Kind(enum.Enum):
    """How a claim's statement is read and checked (the value is its name in tables and JSON).

    POINTWISE
        The relation holds at every saved time of the claim's ``window`` (at one time for a
        window ``(a, a)``; an instance property, no time, for the window ``(0, 0)``).
    CONSERVED
        A drift quantity equals 0 at every time of the window (up to its numerical error).
    EVENT_TIME
        ``event_time`` is the first time ``event`` holds; the statement bounds it.
    TRAPPING
        A set, once entered, is never left, or a quantity is monotone; stated on a counter
        (exits, wrong-way crossings) or a derivative and checked like POINTWISE.
    IDENTITY
        An exact equation, between instance quantities or along a run; confirmed only where
        it is known finely enough.
    SCALING
        A measured quantity against a power (or log) law in a size, fitted over a series of
        runs (`verify.engine.evidence.ScalingData`); prefactors hidden by the paper are fitted.
    PROBABILITY
        A frequency over random instances (`verify.engine.evidence.Sample`), with exact binomial
        intervals.
    LIMIT
        A limit or a rate without a constant, decided by a fit along a sequence
        (`verify.engine.check_limit`, `theory.limits`): ``Eq(Limit(Q, lam, 0), Q*)`` (Q at instances
        with lam decreasing), ``Limit(F(t), t, oo)`` (a run's limit point, or its saves), the
        two nested (lam -> 0 of t -> infinity), or ``Q <= C x**a`` with C a fitted parameter
        (Q = O(x^a) as x -> 0: the fitted exponent against a).
    QUALITATIVE
        Listed with its formula, not checked (``checkable=False`` with the reason).
    """

    POINTWISE = "pointwise bound"
    CONSERVED = "conserved quantity"
    EVENT_TIME = "event time bound"
    TRAPPING = "trapping/monotonicity"
    IDENTITY = "closed-form identity"
    SCALING = "scaling law"
    PROBABILITY = "probability bound"
    LIMIT = "limit"
    QUALITATIVE = "qualitative"


class Provenance(enum.Enum):
    """How faithfully the statement follows the seed text (THEORY.md's tags).

    VERBATIM
        As printed in the paper (tag ``seed``).
    OCR
        Read through OCR of the paper (``seed-OCR``).
    REPO
        From the authors' code rather than the text (``repo``).
    DERIVED
        Derived here from the paper's statements (``derived``).
    INFERRED
        The paper's meaning, inferred where the text is ambiguous (``inferred``).
    """

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
    """Where a claim comes from: the paper, the place in it and how faithfully it is read.

    Attributes
    ----------
    paper
        The pack (paper) name, e.g. ``"S002"``; a claim's ``paper`` and the start of its id.
    reference
        The place in the paper: ``"Lemma 3"``, ``"Section 5"``, ...
    provenance
        How faithfully the statement follows the text (`Provenance`).
    """

    paper: str  # "S002"
    reference: str  # "Lemma 3", "Section 5", ...
    provenance: Provenance

    def __post_init__(self) -> None:
        fields.text("source", "paper", self.paper, empty=False)
        owner = f"source ({self.paper} ...)"
        fields.text(owner, "reference", self.reference)
        if not isinstance(self.provenance, Provenance):
            raise fields.fail(owner, "provenance", "a Provenance (" + ", ".join(
                f"Provenance.{p.name}" for p in Provenance) + ")", self.provenance)

    @property
    def seed_file(self) -> str:
        """The seed text file of a built-in paper ("" for any other pack)."""
        return SEEDS.get(self.paper, "")

    def __str__(self) -> str:
        return f"{self.paper} {self.reference} [{self.provenance.value}]"


@dataclass(frozen=True)
class Assumption:
    """A hypothesis of a claim: a sympy relation over instance quantities.

    ``required=False`` marks a hypothesis no simulation can meet (CEL23's Assumption 2
    asks for lam near 10^-24000): where it fails the claim is still checked, as stated,
    and its verdict says which hypothesis was not met ("relaxed"), instead of being
    INAPPLICABLE.

    Attributes
    ----------
    name
        A short name, quoted by verdicts when the hypothesis fails (``"orthogonal data"``).
    statement
        A sympy relation over instance quantities of the vocabulary (no time), evaluated on
        every instance.
    text
        The hypothesis in words, as the paper states it.
    required
        True (default): where it fails the claim is INAPPLICABLE. False: the claim is still
        checked and its verdict's reason begins ``relaxed (outside the paper's hypotheses)``.
    """

    name: str
    statement: sp.Basic
    text: str
    required: bool = True

    def __post_init__(self) -> None:
        fields.text("assumption", "name", self.name, empty=False)
        owner = f"assumption {self.name!r}"
        fields.relation(owner, "statement", self.statement)
        if t_symbol in self.statement.free_symbols:
            raise fields.fail(owner, "statement", "a condition on the instance (no t: an "
                              "assumption is checked once per instance)", self.statement)
        fields.text(owner, "text", self.text)
        fields.flag(owner, "required", self.required)

    def latex(self, names: dict[str, str] | None = None) -> str:
        """The statement in LaTeX, with ``names`` (default `theory.symbols.latex_names`)."""
        return render_latex(self.statement, latex_names if names is None else names)


# How a claim's parametrisation reads on a simulated Problem: the network convention and
# the losses it covers. S001's "classification" setting is the standard network trained
# on a sum-type exponential or logistic loss.
# "multiclass" is the standard network with a vector output on the summed softmax
# cross-entropy (MZV25's K-class case).
LOSSES = ("square", "exponential", "logistic", "cross_entropy")  # a claim's possible losses
CONVENTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "standard": ("standard", ("square", "exponential", "logistic")),
    "mean_field": ("mean_field", ("square", "exponential", "logistic")),
    "classification": ("standard", ("exponential", "logistic")),
    "multiclass": ("standard", ("cross_entropy",)),
}


# The models a claim can be stated for: the activation's kind (`activation_kind`) and the
# trained layers (numerics.problem.TRAINED). A claim names the ones it covers; the default
# is the toolkit's founding model, a ReLU network with both layers trained.
ACTIVATION_KINDS = ("relu", "leaky", "power")

# The loss prefactor c the papers' formulas are written for, by loss: 1/(2n) sum (y - h)^2
# for the square loss (S000, S002 eq. (1), CEL23 Section 2, BF25 Assumption 1 with c = 1),
# the plain sum of exp(-y h) (S001, MZV25), 2 log(1 + exp(-y h)) for the logistic loss
# (S001 App. B, MZV25: -l'(0) = y) and the summed cross-entropy (MZV25). The flow of c L at
# time t is the flow of c' L at time t c / c' (and gradient descent on c L at step lr is
# gradient descent on c' L at step lr c / c'), so a run made with another prefactor (torch's
# MSELoss is c = 2) is checked on the same run read in the claim's convention.
PAPER_LOSS_SCALES = {"square": 1.0, "exponential": 1.0, "logistic": 2.0,
                     "cross_entropy": 1.0}
LAYERS = ("both", "first", "second")


# a user's statement's scope: every model, and the run read as it was made (its own loss
# prefactor and time, whatever its optimiser: `Claim.loss_scale` None)
ANY_MODEL = {"activations": ACTIVATION_KINDS, "layers": LAYERS, "loss_scale": None}


def activation_kind(activation) -> str:
    """``relu`` (ReLU, or a leaky ReLU of slope 0), ``leaky`` or ``power``."""
    if getattr(activation, "is_relu", False):
        return "relu"
    return "leaky" if activation.piecewise_linear else "power"


def _frozen(mapping) -> MappingProxyType:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, declared symbolically: a frozen record that computes nothing.

    How it is checked follows from ``kind`` (see the module's conventions and `Kind`).
    Build variants with `with_parameters`, `variant`, `on_model` and `at_setting`; the
    original is never changed.

    Attributes
    ----------
    id
        The catalogue id, ``PAPER-LABEL`` (``"S002-T1"``); variants add ``~suffix`` or
        ``[setting]``.
    title
        A short title, in words.
    kind
        How the statement is read and checked (`Kind`).
    source
        Where the claim comes from (`Source`: paper, reference, provenance).
    statement
        A sympy relation, or a conjunction of relations (``sp.And``), in the vocabulary of
        `theory.symbols`.
    setting
        The hypotheses (`Assumption`), evaluated on every instance; () when there are none.
    parametrization
        The network convention the claim is stated for: ``"standard"``, ``"mean_field"``,
        ``"classification"`` (the standard network on an exponential or logistic loss), or
        None for any.
    loss
        The loss the claim is stated for (``"square"``, ``"exponential"``,
        ``"logistic"``), or None for any.
    window
        The times ``(start, end)`` the statement is read at, as sympy expressions (default
        ``(0, oo)``; ``(a, a)``: the single time a; ``(0, 0)``: an instance property).
    event
        For an EVENT_TIME claim (or a window that opens at an event): the relation whose
        first time of holding defines ``event_time``; None otherwise.
    event_time
        The symbol of that first time (``t_conv``, ``t_2``, ...), or None.
    definitions
        Constants the paper makes explicit: symbol -> formula in instance quantities,
        expanded by `substituted` (read-only mapping; empty by default).
    parameters
        Constants the paper hides in O(.) or leaves free: name -> documented value, or None
        for a prefactor fitted by a scaling check (read-only mapping; empty by default).
    parameter_notes
        Where the parameters' values come from, in words ("" when there are none).
    measures
        What the check compares, in words (shown in the catalogue).
    checkable
        False for a claim that is listed but not checked (QUALITATIVE claims, say).
    not_checkable_reason
        Why the claim is not checked; required when ``checkable`` is False.
    flags
        Remarks on the source (a misprint, a gap), one string each, shown in the catalogue.
    notes
        Free notes on the reading of the claim.
    activations
        The activation kinds the claim is stated for, a non-empty subset of ``("relu",
        "leaky", "power")`` (default ``("relu",)``); on any other model `verify.check`
        returns INAPPLICABLE.
    layers
        The trained layers it is stated for, a subset of ``("both", "first", "second")``
        (default ``("both",)``).
    loss_scale
        The loss prefactor c the statement's formulas are written for: ``"paper"`` (the
        default: the papers' convention for the instance's loss, `PAPER_LOSS_SCALES`), a
        positive number, an expression in instance quantities (``1/n``: a mean where the
        paper sums), or None (the instance's own prefactor: a user's statement about the
        run as it was made). A run made with another prefactor is checked as the same
        run read in the claim's convention, its times multiplied by c_run / c
        (`convention_scale`, `numerics.conventions`).
    """

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
    definitions: MappingProxyType = field(default_factory=lambda: _frozen({}))
    parameters: MappingProxyType = field(default_factory=lambda: _frozen({}))
    parameter_notes: str = ""
    measures: str = ""
    checkable: bool = True
    not_checkable_reason: str = ""
    flags: tuple[str, ...] = ()
    notes: str = ""
    activations: tuple[str, ...] = ("relu",)
    layers: tuple[str, ...] = ("both",)
    loss_scale: float | str | None = "paper"

    def __post_init__(self) -> None:
        """Every field is checked here (`theory.fields`): a malformed record is refused
        where it is made, naming the claim, the field and what is allowed."""
        owner = f"claim {self.id!r}"
        if not isinstance(self.id, str) or not self.id.strip() or "\n" in self.id:
            raise fields.fail("claim", "id", "a non-empty one-line string (PAPER-LABEL)",
                              self.id)
        fields.text(owner, "title", self.title)
        if not isinstance(self.kind, Kind):
            raise fields.fail(owner, "kind", "a Kind (" + ", ".join(
                f"Kind.{k.name}" for k in Kind) + ")", self.kind)
        fields.instance_of(owner, "source", self.source, Source,
                           "a Source(paper, reference, provenance)")
        fields.relation(owner, "statement", self.statement)
        object.__setattr__(self, "setting", fields.records(owner, "setting", self.setting,
                                                           Assumption))
        object.__setattr__(self, "window", fields.window(owner, self.window))
        fields.relation(owner, "event", self.event, allow_none=True)
        fields.symbol(owner, "event_time", self.event_time, allow_none=True)
        object.__setattr__(self, "parameters",
                           _frozen(fields.parameters(owner, self.parameters)))
        object.__setattr__(self, "definitions",
                           _frozen(fields.definitions(owner, self.definitions)))
        for name in ("parameter_notes", "measures", "not_checkable_reason", "notes"):
            fields.text(owner, name, getattr(self, name))
        fields.flag(owner, "checkable", self.checkable)
        object.__setattr__(self, "flags", fields.strings(owner, "flags", self.flags))
        if self.loss is not None and self.loss not in LOSSES:
            raise fields.fail(owner, "loss", f"None or one of {LOSSES}", self.loss)
        if self.parametrization is not None and self.parametrization not in CONVENTIONS:
            raise ValueError(f"{self.id}: parametrization {self.parametrization!r} is not one "
                             f"of {sorted(CONVENTIONS)}.")
        if self.kind is Kind.EVENT_TIME and (self.event is None or self.event_time is None):
            raise ValueError(f"{self.id}: an EVENT_TIME claim needs event and event_time.")
        if self.kind is Kind.LIMIT:
            limit_forms(self)  # every relation a limit or a rate: a RecordError otherwise
        for name, values, allowed in (("activations", self.activations, ACTIVATION_KINDS),
                                      ("layers", self.layers, LAYERS)):
            values = fields.strings(owner, name, values)
            object.__setattr__(self, name, values)
            if not values or not set(values) <= set(allowed):
                raise ValueError(f"{self.id}: {name} {values!r} must be a non-empty subset "
                                 f"of {allowed}.")
        if not self.checkable and not self.not_checkable_reason:
            raise ValueError(f"{self.id}: say why the claim is not checkable.")
        scale = self.loss_scale
        if isinstance(scale, sp.Basic) and scale.is_number:
            scale = float(scale)
            object.__setattr__(self, "loss_scale", scale)
        numeric = (isinstance(scale, (int, float)) and not isinstance(scale, bool)
                   and 0 < scale < float("inf"))
        expression = (isinstance(scale, sp.Expr) and not scale.has(t_symbol)
                      and not scale.atoms(AppliedUndef))
        if not (scale is None or scale == "paper" or numeric or expression):
            raise fields.fail(owner, "loss_scale", "'paper', a positive number, an expression "
                              "in instance quantities (1/n) or None", scale)

    # -- views -----------------------------------------------------------------------
    @property
    def paper(self) -> str:
        """The pack (paper) the claim belongs to, ``source.paper``."""
        return self.source.paper

    def relations(self) -> tuple[sp.Basic, ...]:
        """The statement's relations (a conjunction is split into its parts)."""
        if isinstance(self.statement, sp.And):
            return tuple(self.statement.args)
        return (self.statement,)

    def event_relations(self) -> tuple[sp.Basic, ...]:
        """The event's relations (a conjunction split into its parts); () without an event."""
        if self.event is None:
            return ()
        return tuple(self.event.args) if isinstance(self.event, sp.And) else (self.event,)

    def expanded(self, expr: sp.Basic) -> sp.Basic:
        """``expr`` with the claim's defined constants replaced by their formulas."""
        defs = dict(self.definitions)
        for _ in range(len(defs) + 1):
            if not expr.free_symbols & defs.keys():
                return expr
            expr = expr.xreplace(defs)
        raise ValueError(f"{self.id}: the definitions refer to each other in a cycle.")

    def substituted(self, expr: sp.Basic) -> sp.Basic:
        """``expr`` with definitions expanded and parameter values substituted.

        Fitted parameters (value ``None``) stay symbolic.
        """
        expr = self.expanded(expr)
        subs = {sp.Symbol(k, **_assumptions_of(expr, k)): v
                for k, v in self.parameters.items() if v is not None}
        return expr.xreplace(subs) if subs else expr

    def used_definitions(self) -> tuple[tuple[sp.Symbol, sp.Basic], ...]:
        """The definitions the statement, event, window or setting need, in order."""
        exprs = [self.statement, *self.window, *(a.statement for a in self.setting)]
        if self.event is not None:
            exprs.append(self.event)
        frontier = set().union(*(sp.sympify(e).free_symbols for e in exprs))
        used: set[sp.Symbol] = set()
        while frontier:
            symbol = frontier.pop()
            if symbol in self.definitions and symbol not in used:
                used.add(symbol)
                frontier |= self.definitions[symbol].free_symbols
        return tuple((s, v) for s, v in self.definitions.items() if s in used)

    def model_mismatch(self, problem) -> str | None:
        """Why a Problem's model (activation, trained layers) is outside the claim's, or None."""
        kind = activation_kind(problem.activation)
        if kind not in self.activations:
            return (f"the claim is stated for {' or '.join(self.activations)} activations; the "
                    f"instance's is {problem.activation.spec}")
        if problem.train not in self.layers:
            return (f"the claim is stated with {' or '.join(self.layers)} layer(s) trained; the "
                    f"instance trains {problem.train}")
        return None

    @property
    def reads_run_as_made(self) -> bool:
        """Whether the statement is about a run as it was made (a user's statement,
        ``loss_scale`` None), not about the gradient flow the run stands for: only such a
        statement is checked on a run that does not follow the flow's dynamics (a
        recorded Adam loop, `numerics.Trajectory.departure`)."""
        return self.loss_scale is None

    @property
    def instance_property(self) -> bool:
        """Whether the claim is a property of the instance, read at t = 0 only (window
        (0, 0)), of its data and initial state and not of the dynamics."""
        return self.window == (sp.Integer(0), sp.Integer(0))

    def convention_scale(self, loss: str, values=None) -> float | None:
        """The loss prefactor the statement is written for on an instance with ``loss``
        (`loss_scale`; an expression is evaluated on ``values``, the instance's quantities
        by name), or None: the instance's own (no change of convention)."""
        if self.loss_scale is None:
            return None
        if isinstance(self.loss_scale, str):  # "paper"
            return PAPER_LOSS_SCALES[loss]
        if isinstance(self.loss_scale, sp.Expr):
            if values is None:
                raise ValueError(f"{self.id}: loss_scale {self.loss_scale} needs the "
                                 "instance's values")
            return float(self.loss_scale.xreplace(
                {s: values[s.name] for s in self.loss_scale.free_symbols}))
        return float(self.loss_scale)

    def applies_to(self, parametrization: str, loss: str) -> bool:
        """Whether a Problem with this network convention and loss is in the claim's scope."""
        if self.loss is not None and loss != self.loss:
            return False
        if self.parametrization is None:
            return True
        network, losses = CONVENTIONS[self.parametrization]
        return parametrization == network and loss in losses

    def _timed(self) -> bool:
        """Whether the statement depends on time (a static instance property does not)."""
        return self.statement.has(_TIME) or bool(self.statement.atoms(AppliedUndef))

    def _shows_window(self) -> bool:
        if self.kind is Kind.LIMIT:  # its t is bound by a limit unless a window says when
            return self.window != (sp.Integer(0), sp.oo)
        windowed = self.kind in (Kind.POINTWISE, Kind.CONSERVED, Kind.TRAPPING)
        return self._timed() and (windowed or self.window != (sp.Integer(0), sp.oo))

    def latex(self) -> str:
        """The statement as the paper would print it (``theory.symbols.latex_names``)."""
        names = latex_names_for(self.paper)

        def tex(expr):
            return render_latex(sp.sympify(expr), names)

        body = tex(self.statement)
        if self.event is not None:
            event = f"{tex(self.event_time)} := \\inf\\{{t : {tex(self.event)}\\}}"
            body = f"{body}, \\quad {event}"
        if self._shows_window():
            lo, hi = self.window
            if lo == hi:
                body = f"{body} \\quad \\text{{at }} t = {tex(lo)}"
            else:
                body = f"{body} \\quad \\forall t \\in [{tex(lo)}, {tex(hi)})"
        defs = ", ".join(f"{tex(s)} := {tex(v)}" for s, v in self.used_definitions())
        if defs:
            body = f"{body}, \\quad \\text{{where }} {defs}"
        return body

    def _repr_latex_(self) -> str:
        """Jupyter shows a claim as its id, title and statement, typeset."""
        title = self.title.replace("$", r"\$").replace("_", r"\_").replace("^", r"\^{}")
        return rf"$\textbf{{{self.id}}}\ \text{{({title})}}:\quad {self.latex()}$"

    def text(self) -> str:
        """One line of plain text."""
        body = sp.sstr(self.statement)
        if self.event is not None:
            body += f", where {self.event_time} = first t with {sp.sstr(self.event)}"
        if self._shows_window():
            lo, hi = self.window
            body += f" at t = {lo}" if lo == hi else f" for t in [{lo}, {hi})"
        defs = "; ".join(f"{s} = {sp.sstr(v)}" for s, v in self.used_definitions())
        if defs:
            body += f"; with {defs}"
        return f"{self.id} ({self.kind.value}): {body}"

    def to_dict(self) -> dict:
        """A JSON-ready summary (``gfverify claims --format json``)."""
        return {
            "id": self.id,
            "title": self.title,
            "kind": self.kind.value,
            "paper": self.paper,
            "source": str(self.source),
            "reference": self.source.reference,
            "provenance": self.source.provenance.value,
            "parametrization": self.parametrization,
            "loss": self.loss,
            "loss_scale": (sp.sstr(self.loss_scale) if isinstance(self.loss_scale, sp.Expr)
                           else self.loss_scale),
            "statement": self.text(),
            "sympy": sp.sstr(self.statement),
            "latex": self.latex(),
            "setting": [{"name": a.name, "statement": sp.sstr(a.statement), "text": a.text}
                        for a in self.setting],
            "window": [sp.sstr(w) for w in self.window],
            "event": None if self.event is None else sp.sstr(self.event),
            "event_time": None if self.event_time is None else str(self.event_time),
            "definitions": {str(s): sp.sstr(v) for s, v in self.definitions.items()},
            "parameters": {k: "fitted" if v is None else sp.sstr(v)
                           for k, v in self.parameters.items()},
            "parameter_notes": self.parameter_notes,
            "measures": self.measures,
            "checkable": self.checkable,
            "reason": self.not_checkable_reason,
            "flags": list(self.flags),
            "notes": self.notes,
        }

    # -- derived claims ----------------------------------------------------------------
    def with_parameters(self, **values) -> Claim:
        """The claim with some named parameters set to other values (``c_T=1``); an unknown
        name is an `UnknownName` listing the claim's parameters."""
        unknown = set(values) - set(self.parameters)
        if unknown:
            raise UnknownName(
                f"{self.id}: no parameter {sorted(unknown)}; it has {sorted(self.parameters)}."
            )
        merged = dict(self.parameters)
        merged.update(values)
        return replace(self, parameters=_frozen(merged))

    def on_model(self, model: str) -> Claim:
        """The claim checked on one model it covers (``S001-L3[leaky 0.1]``): its own row."""
        return self.at_setting(model)

    def at_setting(self, label: str) -> Claim:
        """The claim checked in one named setting (a model, a scale such as CEL23's
        ``[lam 4^-7]``): its own row of the verdict table, ``ID[label]``."""
        return replace(self, id=f"{self.id}[{label}]")

    def variant(self, suffix: str, **changes) -> Claim:
        """A modified copy (e.g. a mutant) whose id says what changed."""
        return replace(self, id=f"{self.id}~{suffix}", **changes)


_TIME = sp.Symbol("t", nonnegative=True, real=True)


def render_latex(expr: sp.Basic, names: dict[str, str]) -> str:
    """LaTeX of ``expr`` with vocabulary names printed as ``names`` says.

    Symbols go through ``sp.latex(..., symbol_names=...)``; an applied trajectory
    quantity F(a) (and its derivative) is first replaced by a placeholder symbol
    printed from F's template, "(t)" standing for the argument.
    """
    subs: dict[sp.Basic, sp.Symbol] = {}
    symbol_names: dict[sp.Symbol, str] = {}

    def applied(term: sp.Basic) -> str | None:
        template = names.get(term.func.__name__)
        if template is None or len(term.args) != 1:
            return None
        arg = f"({render_latex(term.args[0], names)})"
        return template.replace("(t)", arg) if "(t)" in template else template + arg

    for der in expr.atoms(sp.Derivative):
        inner = applied(der.expr) if isinstance(der.expr, AppliedUndef) else None
        if inner is not None:
            var = " ".join(render_latex(v, names) for v in der.variables)
            placeholder = sp.Symbol(f"d{sp.sstr(der.expr)}")
            subs[der], symbol_names[placeholder] = placeholder, f"\\frac{{d}}{{d{var}}} {inner}"
    expr = expr.xreplace(subs) if subs else expr
    subs = {}
    for term in expr.atoms(sp.harmonic):  # sympy prints harmonic(k) as an operator name
        if len(term.args) == 1:
            placeholder = sp.Symbol(sp.sstr(term))
            subs[term] = placeholder
            symbol_names[placeholder] = f"H_{{{render_latex(term.args[0], names)}}}"
    for term in expr.atoms(AppliedUndef):
        tex = applied(term)
        if tex is not None:
            placeholder = sp.Symbol(sp.sstr(term))
            subs[term], symbol_names[placeholder] = placeholder, tex
    expr = expr.xreplace(subs) if subs else expr
    for symbol in expr.atoms(sp.Symbol):  # a limit's bound variable (lam) too
        if symbol not in symbol_names and symbol.name in names:
            symbol_names[symbol] = names[symbol.name]
    return sp.latex(expr, symbol_names=symbol_names)


def _assumptions_of(expr: sp.Basic, name: str) -> dict:
    """The assumptions of the symbol called ``name`` inside ``expr`` (for xreplace)."""
    for s in expr.free_symbols:
        if s.name == name:
            return s.assumptions0
    return {}
