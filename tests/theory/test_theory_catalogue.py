"""The theory catalogue: every claim heading of THEORY.md sections 2-4 (listed in
tests/data/theory_headings.txt) and of CEL23's catalogue (tests/data/cel23_headings.txt),
declared and usable.

Each claim must be in the registry under its heading's ID, speak the shared
vocabulary, render to LaTeX and to one line of text, say where it comes from and
(if it cannot be checked) why, and lambdify to numpy, mpmath and torch.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp
from sympy.core.function import AppliedUndef

import theory
from theory import Kind, Provenance, Source, symbols
from theory.registry import by_heading, pack_of

HEADINGS = Path(__file__).resolve().parents[1] / "data" / "theory_headings.txt"
CEL23_HEADINGS = HEADINGS.with_name("cel23_headings.txt")
# the catalogues of the packs written after CEL23's standard (docs/papers/NAME.md)
PACK_HEADINGS = [HEADINGS.with_name(f"{name}_headings.txt") for name in ("mzv25", "bf25", "mor26",
                                                                        "bf25b")]
CLAIMS = theory.claims()
CHECKABLE = [c for c in CLAIMS if c.checkable]
# relations the verdict machinery evaluates (verify.check): no Ne, no Implies
CHECK_RELATIONS = (sp.Eq, sp.Le, sp.Lt, sp.Ge, sp.Gt)


def _heading_ids(path: Path = HEADINGS) -> list[str]:
    """The claim headings of a catalogue the built-in claims were written from, as listed in
    ``path`` (by default THEORY.md sections 2 to 4)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _terms(claim) -> set[sp.Basic]:
    """Every sympy expression a claim declares."""
    exprs = [claim.statement, *claim.window, *(a.statement for a in claim.setting),
             *claim.definitions.values()]
    if claim.event is not None:
        exprs += [claim.event, claim.event_time]
    return {sp.sympify(e) for e in exprs}


def _names(expr: sp.Basic) -> set[str]:
    names = {s.name for s in expr.free_symbols}
    names |= {f.func.__name__ for f in expr.atoms(AppliedUndef)}
    return names


def _relations(expr: sp.Basic) -> tuple[sp.Basic, ...]:
    if isinstance(expr, sp.And):
        return tuple(r for arg in expr.args for r in _relations(arg))
    return (expr,)


# -- the catalogue covers THEORY.md ----------------------------------------------------------
def test_every_heading_id_is_declared():
    headings = _heading_ids()
    assert len(headings) > 60, f"{HEADINGS} lists too few headings"
    missing = [h for h in headings if not _declared(h)]
    assert not missing, f"THEORY.md IDs without a claim: {missing}"


def test_every_cel23_entry_is_declared():
    headings = _heading_ids(CEL23_HEADINGS)
    assert len(headings) == 45, f"{CEL23_HEADINGS}: the catalogue has 45 entries"
    missing = [h for h in headings if not _declared(h)]
    assert not missing, f"CEL23 catalogue IDs without a claim: {missing}"


def _declared(heading: str) -> bool:
    try:
        return bool(by_heading(heading))
    except KeyError:
        return False


@pytest.mark.parametrize("path", PACK_HEADINGS, ids=lambda p: p.stem)
def test_every_pack_catalogue_entry_is_declared(path):
    if not path.exists():
        pytest.skip(f"{path.name}: no catalogue list yet")
    headings = _heading_ids(path)
    missing = [h for h in headings if not _declared(h)]
    assert headings and not missing, f"{path.stem} catalogue IDs without a claim: {missing}"


def test_every_paper_claim_comes_from_a_heading():
    headings = _heading_ids() + _heading_ids(CEL23_HEADINGS) + [
        h for path in PACK_HEADINGS if path.exists() for h in _heading_ids(path)]
    declared = {c.id for h in headings for c in by_heading(h)}
    # the closed forms CF-n (THEORY section 6) serve a paper but have their own headings
    strays = sorted(c.id for c in CLAIMS if pack_of(c.id).builtin
                    and not c.id.startswith("CF-") and c.id not in declared)
    assert not strays, f"claims with no THEORY.md heading: {strays}"


def test_combined_headings_are_split_and_get_explains():
    assert [c.id for c in by_heading("S001-L8/L9")] == ["S001-L8", "S001-L9"]
    assert [c.id for c in by_heading("S002-A1/A2")] == ["S002-A1", "S002-A2"]
    with pytest.raises(KeyError, match="S001-L13, S001-L14"):
        theory.get("S001-L13/L14")


# -- each claim is well formed ----------------------------------------------------------------
@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim_has_source_kind_and_reason(claim):
    assert isinstance(claim.source, Source) and isinstance(claim.source.provenance, Provenance)
    assert claim.id.startswith((claim.paper + "-", "CF-")) and claim.source.reference
    assert isinstance(claim.kind, Kind) and claim.title
    if claim.checkable:
        assert claim.measures, f"{claim.id}: say what the check measures"
    else:
        assert claim.not_checkable_reason
    if any(v is not None for v in claim.parameters.values()):
        assert claim.parameter_notes, f"{claim.id}: document the parameter choice"


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim_speaks_the_vocabulary(claim):
    for expr in _terms(claim):
        unknown = _names(expr) - symbols.VOCABULARY.keys()
        assert not unknown, f"{claim.id}: names outside theory.symbols: {unknown}"
    for name in claim.parameters:
        assert symbols.lookup(name).sort == "parameter"
    for symbol in claim.definitions:
        assert symbols.lookup(symbol.name).sort == "constant"


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_statement_did_not_collapse(claim):
    """sympy evaluates e.g. Gt(x, 0) to True for a positive symbol: none may vanish."""
    for expr in (claim.statement, *(a.statement for a in claim.setting)):
        for rel in _relations(expr):
            assert not isinstance(rel, sp.logic.boolalg.BooleanAtom), claim.id
    if claim.kind is Kind.EVENT_TIME:
        assert isinstance(claim.statement, (sp.Le, sp.Lt))
        assert claim.statement.lhs == claim.event_time
    if claim.checkable and claim.kind in (Kind.POINTWISE, Kind.CONSERVED, Kind.TRAPPING,
                                          Kind.EVENT_TIME):
        event = claim.event if claim.event is not None else sp.true
        for rel in _relations(claim.statement) + _relations(event):
            assert isinstance(rel, (*CHECK_RELATIONS, sp.logic.boolalg.BooleanTrue)), rel


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim_renders(claim):
    tex = claim.latex()
    assert tex and "\n" not in tex
    assert "operatorname{harmonic}" not in tex
    plain = tex.replace(r"\{", "").replace(r"\}", "")
    assert plain.count("{") == plain.count("}"), f"{claim.id}: unbalanced braces"
    text = claim.text()
    assert text.startswith(claim.id) and "\n" not in text
    row = json.loads(json.dumps(claim.to_dict()))
    for key in ("id", "title", "kind", "source", "paper", "parametrization", "loss",
                "statement", "latex", "parameters", "measures", "checkable", "reason", "flags"):
        assert key in row, key
    assert row["id"] == claim.id and row["latex"] == tex


def test_latex_reads_like_each_paper():
    assert r"\sqrt{h}" in theory.get("S001-L3").latex()
    assert r"\varepsilon" in theory.get("S001-L3").latex()
    assert "m}" in theory.get("S002-A3").latex()
    assert r"\|D_+\|" in theory.get("S002-L3").latex()
    assert r"C_x^-" in theory.get("S000-T1").latex()
    assert "H_{n_-}" in theory.get("S001-T1a").latex()


def test_every_vocabulary_name_has_meaning_and_latex():
    for name, term in symbols.VOCABULARY.items():
        assert term.name == name and term.meaning, name
        template = symbols.latex_names[name]
        if isinstance(term.obj, sp.core.function.UndefinedFunction):
            assert "(t)" in template, f"{name}: a trajectory template needs '(t)'"


def test_section_8_flags_are_recorded():
    flags = " ".join(f for c in CLAIMS for f in c.flags)
    for item in range(1, 11):
        assert f"section 8.{item})" in flags or f"section 8.{item}." in flags, item


def test_parametrisations_map_to_problems():
    assert theory.get("S001-T1a").applies_to("standard", "exponential")
    assert theory.get("S001-T1a").applies_to("standard", "logistic")
    assert not theory.get("S001-T1a").applies_to("standard", "square")
    assert theory.get("S000-T1").applies_to("mean_field", "square")
    assert not theory.get("S000-T1").applies_to("standard", "square")
    assert theory.get("S002-L2").applies_to("standard", "square")


# -- explicit constants ------------------------------------------------------------------
def test_definitions_expand_to_instance_quantities():
    for claim in CLAIMS:
        for expr in _terms(claim):
            left = {s.name for s in claim.substituted(expr).free_symbols} & {
                s.name for s in claim.definitions}
            assert not left, f"{claim.id}: {left} not expanded"


def test_s001_t1_is_below_the_papers_log_bound():
    """CF-11's t_1 <= 16 log n / (min(zeta, xi) sqrt(mu) X_min) whenever n_+, n_- >= 1."""
    claim = theory.get("S001-T1a")
    margin = sp.Min(symbols.mu**2, symbols.zeta_2) * sp.sqrt(symbols.mu) * symbols.Xmin
    log_bound = 16 * sp.log(symbols.n_plus + symbols.n_minus) / margin
    gap, _ = theory.lambdify(claim.substituted(claim.statement.rhs) - log_bound, "mpmath")
    for n_pos in range(1, 40):
        for n_neg in range(1, 40):
            assert gap(n_plus=n_pos, n_minus=n_neg, mu=0.5, zeta_2=0.3, Xmin=1.0) < 0


def test_s002_phase_one_time():
    claim = theory.get("S002-L2")
    lo, hi = (claim.substituted(w) for w in claim.window)
    assert lo == hi
    assert sp.simplify(lo + sp.log(symbols.lam) / (10 * symbols.Dminus)) == 0


# -- numbers: one bridge, three backends -----------------------------------------------------
def _numeric_forms(claim) -> list[sp.Basic]:
    exprs = []
    statement = claim.statement
    if claim.kind is Kind.LIMIT:  # what the checks evaluate: the quantity, the limit, the rate
        from theory.limits import limit_forms

        for form in limit_forms(claim):
            exprs.append(form.quantity if form.target is None else form.quantity - form.target)
            if form.rate is not None:
                exprs.append(form.rate[0] ** form.rate[1])
        statement = None
    for expr in (statement, claim.event, *(a.statement for a in claim.setting)):
        if expr is not None:
            exprs += [rel.lhs - rel.rhs for rel in _relations(expr)
                      if isinstance(rel, CHECK_RELATIONS)]
    exprs += [w for w in claim.window if w.free_symbols]
    return [claim.substituted(e) for e in exprs]


def _value(term: sp.Basic) -> float:
    return 3.0 if getattr(term, "is_integer", False) else 0.7


@pytest.mark.parametrize("backend", ["numpy", "mpmath", "torch"])
def test_checkable_claims_lambdify(backend):
    torch = pytest.importorskip("torch") if backend == "torch" else None
    convert = {
        "numpy": float,
        "mpmath": mpmath.mpf,
        "torch": lambda v: torch.tensor(v, dtype=torch.float64),
    }[backend]
    for claim in CHECKABLE:
        forms = sp.Tuple(*_numeric_forms(claim))  # one lambdify per claim keeps this fast
        fn, names = theory.lambdify(forms, backend)
        _, originals = theory.bridge.flatten(forms)
        out = fn(**{nm: convert(_value(originals[nm])) for nm in names})
        for expr, value in zip(forms, out, strict=True):
            value = float(np.asarray(value)) if backend == "numpy" else float(value)
            assert math.isfinite(value), f"{claim.id} ({backend}): {expr} -> {value}"


def test_harmonic_numbers_agree_across_backends():
    expr = sp.harmonic(symbols.n_minus) / 2
    for backend, arg in (("numpy", 7.0), ("mpmath", mpmath.mpf(7))):
        fn, _ = theory.lambdify(expr, backend)
        assert float(fn(n_minus=arg)) == pytest.approx(float(sp.harmonic(7) / 2), rel=1e-14)
    torch = pytest.importorskip("torch")
    fn, _ = theory.lambdify(expr, "torch")
    value = float(fn(n_minus=torch.tensor(7.0, dtype=torch.float64)))
    assert value == pytest.approx(float(sp.harmonic(7) / 2), rel=1e-12)


# -- dependencies -----------------------------------------------------------------------------
def test_importing_theory_loads_no_numerics():
    code = "import sys, theory; theory.claims(); print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    loaded = set(out.stdout.split())
    for heavy in ("torch", "scipy", "numpy", "numerics", "verify", "matplotlib"):
        assert heavy not in loaded, f"importing theory imported {heavy}"


def test_every_closed_form_is_declared():
    ids = {c.id for c in CLAIMS}
    assert {f"CF-{k}" for k in range(1, 13)} <= ids


def test_docs_catalogue_is_the_claims_own_output(capsys):
    from verify.front.cli import main

    assert main(["claims", "--format", "md", "--builtin"]) == 0
    page = Path(__file__).resolve().parents[2] / "docs" / "catalogue.md"
    assert page.read_text(encoding="utf-8") == capsys.readouterr().out, (
        "docs/catalogue.md is stale: run `gfverify claims --format md --builtin > "
        "docs/catalogue.md`")


def test_the_catalogue_page_shows_free_text_as_written():
    """Titles and notes like ``<w^*_j, x^*_i>`` or ``v* ... x_i`` render as typed, not as
    emphasis, and code spans stay code."""
    from markdown_it import MarkdownIt

    from theory.catalogue_doc import _text

    raw = "angle(v*, x_i) < pi/4; <w^*_j, x^*_i> and `test_cel23_*.py`"
    html = MarkdownIt().render(_text(raw))
    assert "<em>" not in html and "<strong>" not in html
    assert "angle(v*, x_i) &lt; pi/4; &lt;w^*_j, x^*_i&gt;" in html
    assert "<code>test_cel23_*.py</code>" in html
