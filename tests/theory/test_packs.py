"""Packs: an installed pack (here a fake entry point to a package written in tmp_path) joins
the catalogue, the families, the sweep generators and the report's sections; a malformed
one is refused by name."""

from __future__ import annotations

import sys
import textwrap
from importlib.metadata import EntryPoint

import pytest
import sympy as sp

import theory
from theory import packs, registry
from verify import sweep
from verify.instances import families
from verify.report import reproduction_modules

PACK_SOURCE = {
    "toy_pack/__init__.py": """
        from theory.packs import Pack
        PACK = Pack(name="TOY", title="a toy pack", claims="toy_pack.claims",
                    families="toy_pack.fams", generators="toy_pack.fams",
                    reproductions=("toy_pack.section",), mutants=("TOY-1~half",))
        NOT_A_PACK = 42
        """,
    "toy_pack/claims.py": """
        import sympy as sp
        from theory import Claim, Kind, Provenance, Source
        from theory.symbols import L, Term, t
        Toy = sp.Function("ToyQuantity")
        TERMS = (Term("ToyQuantity", Toy, "trajectory", "a toy quantity"),)
        LATEX_NAMES = {"ToyQuantity": "T(t)"}
        CLAIMS = (Claim(id="TOY-1", title="toy", kind=Kind.POINTWISE,
                        source=Source("TOY", "here", Provenance.DERIVED),
                        statement=sp.Le(L(t), L(0)), measures="L against L(0)"),)
        """,
    "toy_pack/fams.py": """
        from numerics import generators
        from verify.instances.families import Family, IntParam
        TOY = Family(name="toy", description="two-point data", setting="TOY",
                     params={"seed": IntParam(0, 9, "seed", default=0)},
                     build=lambda seed: generators.two_point(seed=seed),
                     horizon_rule=lambda problem, params: 5.0)
        FAMILIES = (TOY,)
        GENERATORS = {"toy": lambda seed, **kw: generators.two_point(seed=seed)}
        """,
    "toy_pack/section.py": "def run(out, profile, **kw):\n    raise NotImplementedError\n",
}


def _reset():
    packs.installed.cache_clear()
    packs.packs.cache_clear()
    registry.reset()


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The toy pack, 'installed': importable, and named by a gfverify.packs entry point."""
    for rel, text in PACK_SOURCE.items():
        path = tmp_path / rel
        path.parent.mkdir(exist_ok=True)
        path.write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))

    def install(value="toy_pack:PACK"):
        ep = EntryPoint("toy", value, packs.ENTRY_POINT_GROUP)
        monkeypatch.setattr(packs, "entry_points", lambda group: [ep])
        monkeypatch.setenv(packs.SELECT_ENV, "all")  # the toolkit's own runs select builtin
        _reset()

    yield install
    monkeypatch.undo()
    _reset()
    for name in [m for m in sys.modules if m.startswith("toy_pack")]:
        del sys.modules[name]


def test_an_installed_pack_joins_every_registry(installed):
    installed()
    assert [p.name for p in packs.packs()][-1] == "TOY"
    assert theory.get("TOY-1").paper == "TOY" and registry.pack_of("TOY-1").name == "TOY"
    assert "ToyQuantity" in theory.symbols.VOCABULARY
    assert "toy" in families.all_families() and families.get("toy").name == "toy"
    assert "toy" in sweep.generator_names() and sweep.generator("toy")(seed=1).n == 2
    assert reproduction_modules()[-1] == "toy_pack.section"
    from verify.results import mutants
    assert mutants.roster()[-1] == "TOY-1~half"


def test_without_it_nothing_of_it_is_found(installed):
    _reset()
    assert "TOY" not in [p.name for p in packs.packs()]
    with pytest.raises(theory.UnknownName):
        theory.get("TOY-1")
    with pytest.raises(families.FamilyError, match="no family 'toy'"):
        families.get("toy")


def test_a_malformed_pack_is_refused_by_name(installed):
    installed("toy_pack:NOT_A_PACK")
    with pytest.raises(packs.PackError, match="'toy'.*not a theory.packs.Pack"):
        packs.packs()
    installed("toy_pack.missing:PACK")
    with pytest.raises(packs.PackError, match="'toy'.*does not load"):
        packs.packs()


def test_a_missing_report_section_is_refused_naming_the_pack_and_module(installed, tmp_path,
                                                                        capsys):
    from verify.front.cli import main

    (tmp_path / "toy_pack" / "section.py").unlink()
    installed()
    assert main(["report", "--out", str(tmp_path / "rep"), "--no-suite", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "pack 'TOY'" in err and "'toy_pack.section'" in err and "internal error" not in err
    assert not (tmp_path / "rep" / "index.html").exists()


def test_a_report_section_that_raises_on_import_is_refused_naming_the_pack(installed,
                                                                           tmp_path, capsys):
    from verify.front.cli import main

    (tmp_path / "toy_pack" / "section.py").write_text("raise ValueError('bad table')\n")
    installed()
    assert main(["report", "--out", str(tmp_path / "rep"), "--no-suite", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "pack 'TOY'" in err and "'toy_pack.section'" in err and "bad table" in err
    assert "internal error" not in err and not (tmp_path / "rep").exists()


def test_the_selection_admits_only_the_packs_it_names(installed, monkeypatch):
    installed()
    for choice, expected in (("builtin", False), ("toy", True), ("other,toy", True),
                             ("other", False), ("all", True)):
        monkeypatch.setenv(packs.SELECT_ENV, choice)
        packs.select(choice)
        assert ("TOY" in [p.name for p in packs.packs()]) is expected, choice
        if not expected:
            with pytest.raises(theory.UnknownName):
                theory.get("TOY-1")
    from verify.results import mutants

    assert mutants.roster()[-1] == "TOY-1~half"


def test_version(capsys):
    from verify.front.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.startswith("gfverify ")


def test_a_measures_module_imported_first_is_still_merged():
    """A pack's measures module imports verify.language.measures; imported before it, its quantities
    must still be measurable (they are merged on the tables' first read, not at import)."""
    import subprocess

    code = ("import papers.s000.measures\nfrom verify import measures\n"
            "assert 'ParamMapGap' in measures.TRAJECTORY_QUANTITIES\n"
            "assert 'PGoodInit' in measures.ENSEMBLE_QUANTITIES\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_term_sort_is_one_of_the_declared_sorts():
    """A pack's vocabulary term names its sort by text or by `Sort`; a misspelt sort is
    refused at once, naming the allowed values."""
    import sympy as sp

    from theory.symbols import Sort, Term

    term = Term("Extra", sp.Function("Extra"), "trajectory", "a pack's quantity")
    assert term.sort is Sort.TRAJECTORY and term.sort == "trajectory"
    with pytest.raises(ValueError, match="sort 'trajectry' is not one of instance, trajectory"):
        Term("Extra", sp.Function("Extra"), "trajectry", "a pack's quantity")


# -- broken packs: refused by name (pack, module, file), exit 2, never an internal error --------
_CLAIM = ("Claim(id={id!r}, title='toy', kind={kind}, source=Source({paper!r}, 'here', "
          "Provenance.DERIVED), statement=sp.Le(L(t), L(0)){extra})")
_HEAD = ("import sympy as sp\nfrom theory import Claim, Kind, Provenance, Source\n"
         "from theory.symbols import L, t\n")


def _claims(*claims: str, head: str = _HEAD) -> str:
    return head + f"CLAIMS = ({', '.join(claims)},)\n"


def _claim(id="TOY-1", kind="Kind.POINTWISE", paper="TOY", extra="") -> str:
    return _CLAIM.format(id=id, kind=kind, paper=paper, extra=extra)


def _refused(capsys, *needles, commands=(["packs"], ["claims"])) -> None:
    from verify.front.cli import main

    for argv in commands:
        _reset()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "internal error" not in err, err
        for needle in needles:
            assert needle in err, (argv, needle, err)


@pytest.mark.parametrize("source, says", [
    (_claims(_claim(kind="'pointwise'")), "claim 'TOY-1': kind: a Kind"),
    (_claims(_claim(extra=", parametrization='bogus'")), "fails on import"),
    (_claims(_claim(), _claim()), "declared twice"),
    (_claims("'TOY-1'"), "CLAIMS[0]"),
    ("X = 1\n", "must define CLAIMS"),
    (_claims(_claim(extra=", statement2=1")), "fails on import"),
    ("CLAIMS = (\n", "SyntaxError"),
], ids=["kind-as-text", "bad-parametrization", "duplicate-id", "not-a-claim", "no-CLAIMS",
        "unknown-field", "syntax-error"])
def test_a_bad_claim_record_is_refused_naming_the_pack_and_file(source, says, installed,
                                                                 tmp_path, capsys):
    (tmp_path / "toy_pack" / "claims.py").write_text(source)
    installed()
    _refused(capsys, "pack 'TOY'", str(tmp_path / "toy_pack" / "claims.py"), says)


# every field of a claim (and of its assumptions and source) is checked where the record
# is made: one line naming the claim (or the assumption), the field and what is allowed
_ASSUMPTION = "Assumption('small init', sp.Le(lam, 1), 'lam <= 1')"


@pytest.mark.parametrize("extra, says", [
    (", parameters={sp.Symbol('eps'): 0.1}", "claim 'TOY-1': parameters: keys that are "
     "parameter names (str), got Symbol eps; write {'eps': ...}"),
    (", parameters={'eps': 'big'}", "parameters['eps']: a sympy expression or a number"),
    (", parameters={'eps': [1]}", "parameters['eps']"),
    (", title=3", "claim 'TOY-1': title: a string, got int 3"),
    (", statement=True", "claim 'TOY-1': statement: a sympy relation"),
    (", statement=L(t)", "claim 'TOY-1': statement: a sympy relation"),
    (", setting=" + _ASSUMPTION, "claim 'TOY-1': setting: a tuple of Assumption"),
    (", setting=('lam <= 1',)", "claim 'TOY-1': setting: a tuple of Assumption"),
    (", window=(0,)", "claim 'TOY-1': window: a pair (start, end)"),
    (", window=('0', 'oo')", "window[0]: a sympy expression or a number, got str '0' (text "
     "is not evaluated"),
    (", event_time='t2'", "claim 'TOY-1': event_time: a sympy Symbol (or None), got str "
     "'t2'; write sp.Symbol('t2')"),
    (", event=sp.Symbol('x')", "claim 'TOY-1': event: a sympy relation"),
    (", definitions={'zeta': 1}", "claim 'TOY-1': definitions: keys that are sympy Symbols"),
    (", flags='a remark'", "claim 'TOY-1': flags: a tuple of strings, got str 'a remark'; "
     "write ('a remark',)"),
    (", checkable='yes'", "claim 'TOY-1': checkable: True or False"),
    (", loss='mse'", "claim 'TOY-1': loss: None or one of"),
    (", activations='relu'", "claim 'TOY-1': activations: a tuple of strings, got str "
     "'relu'; write ('relu',)"),
    (", notes=None", "claim 'TOY-1': notes: a string, got NoneType None"),
    (", setting=(Assumption('big', True, 'always'),)", "assumption 'big': statement: a sympy "
     "relation"),
    (", setting=(Assumption('late', sp.Le(L(t), 1), 'L <= 1'),)", "assumption 'late': "
     "statement: a condition on the instance (no t"),
    (", setting=(Assumption('lam', sp.Le(lam, 1), 'lam <= 1', required='no'),)",
     "assumption 'lam': required: True or False"),
    (", source=('TOY', 'here')", "claim 'TOY-1': source: a Source(paper, reference, "
     "provenance)"),
    (", source=Source('TOY', 3, Provenance.DERIVED)", "source (TOY ...): reference: a string"),
    (", source=Source('TOY', 'here', 'derived')", "source (TOY ...): provenance: a "
     "Provenance"),
], ids=lambda v: v[2:40] if isinstance(v, str) and v.startswith(",") else "")
def test_a_malformed_claim_field_is_refused_where_it_is_made(extra, says, installed,
                                                            tmp_path, capsys):
    """The record is refused at its construction (theory.fields.RecordError); from an
    installed pack the command line says so in one line, exit 2."""
    head = (_HEAD.replace("import L, t", "import L, lam, t")
            .replace("from theory import Claim,", "from theory import Assumption, Claim,"))
    good = ("id='TOY-1', title='toy', kind=Kind.POINTWISE, source=Source('TOY', 'here', "
            "Provenance.DERIVED), statement=sp.Le(L(t), L(0))")
    # the malformed field replaces the good one (the later key wins)
    source = _claims(f"Claim(**dict(dict({good}){extra}))", head=head)
    (tmp_path / "toy_pack" / "claims.py").write_text(source)
    installed()
    _refused(capsys, "pack 'TOY'", str(tmp_path / "toy_pack" / "claims.py"), says)


@pytest.mark.parametrize("change, says", [
    (('params={"seed": IntParam(0, 9, "seed", default=0)}', 'params={"seed": 3}'),
     "family 'toy': params: a mapping name (str) -> IntParam, FloatParam or ChoiceParam"),
    (("horizon_rule=lambda problem, params: 5.0", "horizon_rule=5.0"),
     "family 'toy': horizon_rule: a function horizon_rule(problem, params) -> float, got "
     "float 5.0"),
    (('description="two-point data"', "description=None"), "family 'toy': description: a "
     "string"),
    (('setting="TOY",', 'setting="TOY", aliases="toy2",'), "family 'toy': aliases: a tuple "
     "of strings, got str 'toy2'; write ('toy2',)"),
], ids=["param-not-a-spec", "horizon-not-a-function", "description", "aliases-as-text"])
def test_a_malformed_family_is_refused_where_it_is_made(change, says, installed, tmp_path,
                                                        capsys):
    fams = tmp_path / "toy_pack" / "fams.py"
    fams.write_text(fams.read_text().replace(*change))
    installed()
    _refused(capsys, "pack 'TOY'", str(fams), says, commands=(["families"],))


@pytest.mark.parametrize("change, says", [
    (('Term("ToyQuantity", Toy,', 'Term("Toy Quantity", Toy,'), "term: name: a name "
     "statements can use"),
    (('Term("ToyQuantity", Toy,', 'Term("ToyQuantity", "Toy",'), "term 'ToyQuantity': obj: "
     "a sympy Symbol or Function, got str 'Toy'"),
    (('"a toy quantity"', "None"), "term 'ToyQuantity': meaning: a string"),
], ids=["name", "obj", "meaning"])
def test_a_malformed_term_is_refused_where_it_is_made(change, says, installed, tmp_path,
                                                      capsys):
    claims = tmp_path / "toy_pack" / "claims.py"
    claims.write_text(claims.read_text().replace(*change))
    installed()
    _refused(capsys, "pack 'TOY'", str(claims), says)


def test_plain_numbers_in_a_claim_become_sympy_numbers():
    """An int or a Fraction where an expression is expected is converted exactly (the later
    checks then work on it), a float to a sympy Float."""
    from fractions import Fraction

    from theory import Claim, Kind, Provenance, Source
    from theory.symbols import L, t

    claim = Claim(id="TOY-1", title="toy", kind=Kind.POINTWISE,
                  source=Source("TOY", "here", Provenance.DERIVED),
                  statement=sp.Le(L(t), sp.Symbol("c") * L(0)),
                  parameters={"c": 1, "d": Fraction(1, 4), "e": 0.5, "f": None},
                  window=(0, 10))
    assert claim.parameters["c"] == sp.Integer(1) and claim.parameters["d"] == sp.Rational(1, 4)
    assert isinstance(claim.parameters["e"], sp.Float) and claim.parameters["f"] is None
    assert claim.window == (sp.Integer(0), sp.Integer(10))
    assert claim.substituted(claim.statement) == sp.Le(L(t), L(0))


def test_a_missing_claims_module_is_refused_naming_the_pack_and_module(installed, tmp_path,
                                                                      capsys):
    (tmp_path / "toy_pack" / "claims.py").unlink()
    installed()
    _refused(capsys, "pack 'TOY'", "'toy_pack.claims' does not import")


@pytest.mark.parametrize("claim, says", [
    (_claim(id="S000-T1"), "its id must start with the pack's name, 'TOY-'"),
    (_claim(id="CF-1", paper="CF"), "its source names paper 'CF'"),
], ids=["built-in-claim-id", "built-in-paper"])
def test_a_claim_id_clash_is_refused_naming_the_pack_and_file(claim, says, installed,
                                                              tmp_path, capsys):
    (tmp_path / "toy_pack" / "claims.py").write_text(_claims(claim))
    installed()
    _refused(capsys, "pack 'TOY'", str(tmp_path / "toy_pack" / "claims.py"), says)


def test_a_pack_named_as_a_built_in_one_is_refused_naming_the_entry_point(installed, tmp_path,
                                                                        capsys):
    init = tmp_path / "toy_pack" / "__init__.py"
    init.write_text(init.read_text().replace('name="TOY"', 'name="S000"'))
    installed()
    _refused(capsys, "pack 'S000'", "installed pack 'toy'", str(init),
             "the name of the built-in pack")


@pytest.mark.parametrize("field, says", [
    ('reproductions="toy_pack.section"', "write ('toy_pack.section',)"),
    ('mutants=("TOY-1~half", 3)', "its mutants must be a tuple"),
    ('name="TOY PACK"', "no '-' or space"),
    ('claims=None', "its claims must be a string"),
])
def test_a_malformed_pack_record_is_refused_naming_the_field_and_file(field, says, installed,
                                                                      tmp_path, capsys):
    init = tmp_path / "toy_pack" / "__init__.py"
    init.write_text("from theory.packs import Pack\n"
                    f"PACK = Pack(**dict(dict(name='TOY', title='toy', claims='toy_pack.claims'), "
                    f"{field}))\n")
    installed()
    _refused(capsys, "installed pack 'toy'", str(init), says)


def test_a_section_that_does_not_exist_is_refused_by_report_only(installed, tmp_path, capsys):
    """`packs` and `claims` do not need the report's sections; `report --section` names the
    pack and the missing module before any work (the CI fixture
    tests/fixtures/packs/gfverify-broken-repro is this pack, installed)."""
    from verify.front.cli import main

    init = tmp_path / "toy_pack" / "__init__.py"
    init.write_text(init.read_text().replace('"toy_pack.section"', '"toy_pack.nowhere"'))
    installed()
    assert main(["packs"]) == 0 and main(["claims", "--paper", "TOY"]) == 0
    capsys.readouterr()
    _refused(capsys, "pack 'TOY'", "'toy_pack.nowhere'", "does not import",
             commands=(["report", "--no-suite", "--quiet", "--section", "TOY", "--out",
                        str(tmp_path / "rep")],))
    assert not (tmp_path / "rep").exists()


def test_verify_packs_names_the_packs_whose_tests_run(installed, monkeypatch):
    """`pytest verify --verify-packs NAME` runs that pack's tests and counts its mutants
    only (a built-in pack by its name in any case, an installed one by its name or entry
    point); an unknown name is refused naming the packs there are."""
    from verify.front.plugin import _pack_test_dirs, tested_mutants

    installed()
    assert [p.name for p in packs.tested("toy")] == ["TOY"]
    assert [p.name for p in packs.tested("s002,TOY")] == ["S002", "TOY"]
    assert _pack_test_dirs("s002") == [packs.BUILTIN[2].directory("tests")]
    assert packs.BUILTIN[2].name == "S002"
    assert tested_mutants("TOY") == ("TOY-1~half",)
    s002 = tested_mutants("S002")
    assert s002 and all(m.startswith("S002-") for m in s002)
    assert len(tested_mutants("all")) > len(s002)
    with pytest.raises(packs.PackError, match="--verify-packs 'nope': no pack has that name"):
        packs.tested("nope")
    assert packs.tested("ALL") == packs.packs() and packs.tested("Builtin") == packs.BUILTIN


def test_a_pack_is_selected_by_its_name_when_its_entry_point_differs(installed, monkeypatch):
    """`gfverify new-pack my-pack` writes entry point my-pack and pack MY_PACK: either
    name selects it."""
    installed()
    ep = EntryPoint("toy-pack-ep", "toy_pack:PACK", packs.ENTRY_POINT_GROUP)
    monkeypatch.setattr(packs, "entry_points", lambda group: [ep])
    for choice in ("TOY", "toy-pack-ep"):
        packs.select(choice)
        assert [p.name for p in packs.installed()] == ["TOY"]
        assert [p.name for p in packs.tested(choice)] == ["TOY"]


def test_the_builtin_selection_never_loads_an_installed_pack(installed):
    """The repository's own runs (`--verify-packs=builtin`) do not depend on what else is
    installed: a pack that does not even load is not looked at."""
    installed("toy_pack.missing:PACK")
    packs.select("builtin")
    assert all(p.builtin for p in packs.packs()) and packs.installed() == ()
    assert theory.get("S000-T1").paper == "S000"


def test_every_builtin_claims_module_passes_the_pack_checks():
    for pack in packs.BUILTIN:
        assert len(pack.module("claims").CLAIMS) > 0, pack.name
