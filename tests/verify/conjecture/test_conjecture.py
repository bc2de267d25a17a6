"""Conjectures: safe parsing, search, shrinking, replay, scaling fits, the command line."""

from __future__ import annotations

import dataclasses
import re
import shlex

import numpy as np
import pytest
import sympy as sp

from papers.s002 import families as s002_families
from theory import symbols as S
from verify import ConjectureResult, conjecture
from verify.conjecture.instance import InstanceChecker
from verify.conjecture.search import MethodSpec, _shrink, statement_of
from verify.engine.scaling import fit_power_law
from verify.engine.verdict import ALL_NAMED, WITHIN_ERROR, Outcome
from verify.front.cli import EXIT_INTERNAL, EXIT_UNDECIDED, main
from verify.instances import families
from verify.language.expressions import ExpressionError, parse_conjecture, parse_scaling

# short horizons: lam = 1e-6 instead of down to 1e-20
FAST = {"lam": "1e-6"}
TRUE = "ParamDrift(t) <= sqrt(kappa*t*L(0))"  # energy identity + Cauchy-Schwarz
FALSE = "StableRank(t) <= 2"  # false at initialisation once d >= 3


# -- the parser ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text, message", [
    ("L(t).real <= 1", "attribute access"),
    ("L(t) <= n.__class__", "attribute access"),
    ("__import__('os').system('true') <= 1", "attribute access"),
    ("__import__('os') <= 1", "calling '__import__' is not allowed"),
    ("eval('1') <= 1", "calling 'eval' is not allowed"),
    ("foo(t) <= 1", "calling 'foo' is not allowed"),
    ("L(t) <= bogus", "'bogus' is not in the vocabulary"),
    ("L(t) <= Lplus", "not in the vocabulary"),
    ("(lambda: 1)() <= 2", "calling an expression"),
    ("lambda x: x", "lambda is not allowed"),
    ("L(t) <= (lambda: 1)", "lambda is not allowed"),
    ("L(t) <= sum([x for x in [1]])", "calling 'sum'"),
    ("L(t) <= [x for x in (1, 2)][0]", "subscripts"),
    ("L(t) <= min([x for x in (1, 2)])", "comprehensions"),
    ("L[0] <= 1", "subscripts"),
    ("L(t) <= 'a'", "strings are not allowed"),
    ("L(t) <= 1 if n else 2", "conditional"),
    ("L <= 1", "write L(t)"),
    ("n(t) <= 1", "not a function of time"),
    ("L(t) ^ 2 <= 1", "'^' is not a power"),
    ("L(t) <= 10**10**10", "not a finite real number"),
    ("L(t) + 1", "must be a comparison"),
    ("L(t) <= 1 or L(t) >= 2", "'or' is not allowed"),
    ("exp(x=1) <= 2", "keyword arguments"),
    ("PL(oo) <= 1", "only meaningful in a --scaling"),
    ("L(t) <=", "cannot read"),
])
def test_parser_rejects_with_a_clear_message(text, message):
    with pytest.raises(ExpressionError, match=re.escape(message)):
        parse_conjecture(text)


def test_unmeasurable_vocabulary_name_is_named_as_such():
    with pytest.raises(ExpressionError, match="cannot measure it"):
        parse_conjecture("L(t) <= eps")


def test_parser_accepts_the_examples():
    rel = parse_conjecture("L(t) <= L(0)*exp(-t/n)").relation
    assert rel == sp.Le(S.L(S.t), S.L(0) * sp.exp(-S.t / S.n))
    chain = parse_conjecture("2*Xmin**2*Emin(t)/n <= PL(t) <= 4*Xmax**2*Emax(t)/n")
    assert isinstance(chain.relation, sp.And) and len(chain.relation.args) == 2
    event = parse_conjecture("first(L(t) <= 1e-8*L(0)) <= 3*log(1/lam)/Dminus")
    assert event.is_event_time and event.relation.lhs == S.t_conv
    assert parse_conjecture("max(R(t), abs(Balance(t))) < sqrt(2*L(0)*n) + pi") is not None
    assert parse_scaling("PL(oo) ~ n**alpha").exponent is None
    assert parse_scaling("PL(oo) ~ K/sqrt(n)").exponent == pytest.approx(-0.5)
    assert parse_scaling("PL(oo)*n ~ n**(-1/2)").exponent == pytest.approx(-0.5)
    with pytest.raises(ExpressionError, match="not a power law"):
        parse_scaling("PL(oo) ~ log(n)")
    with pytest.raises(ExpressionError, match="one '~'"):
        parse_scaling("PL(oo) <= n")


# -- search and shrink ------------------------------------------------------------------------
def test_true_conjecture_finds_no_counterexample():
    result = conjecture(TRUE, "orthogonal", params=FAST, budget=4, seed=1)
    assert isinstance(result, ConjectureResult) and not result.found and result.exit_code == 0
    assert len(result.tried) >= 2 and all(i.outcome.value == "HOLDS" for i in result.tried)
    worst = result.worst
    assert 0 < worst.relative_margin < 1 and worst.error < worst.margin
    assert "NO COUNTEREXAMPLE" in result.report() and "worst margin" in result.report()


def test_false_conjecture_is_found_and_shrunk_to_the_smallest_sizes(tmp_path):
    result = conjecture(FALSE, "orthogonal", params=FAST, budget=5, seed=0,
                        plot=tmp_path / "c.png")
    assert result.found and result.exit_code == 1
    c = result.counterexample
    fam = families.get("orthogonal")
    assert c.params["n"] == fam.params["n"].lo and c.params["p"] == fam.params["p"].lo
    assert c.lhs > c.rhs and -c.margin > c.error
    assert (tmp_path / "c.png").stat().st_size > 5_000
    assert "--budget 1" in result.replay_command


def test_shrinker_lowers_every_size_from_a_large_start():
    fam = families.get("orthogonal").fixed(lam=1e-6)
    checker = InstanceChecker(statement_of(FALSE), fam, "for_all_t", None, MethodSpec(), 201)
    start = checker({"n": 5, "p": 50, "d": 7, "lam": 1e-6, "seed": 3})
    assert start.outcome.value == "VIOLATED"
    shrunk, trials = _shrink(checker, start, budget=40)
    assert shrunk.params["n"] == 2 and shrunk.params["p"] == 30
    assert 3 <= shrunk.params["d"] < 7 and shrunk.outcome.value == "VIOLATED" and trials <= 40


# True (c_j = a_j^2 - |w_j|^2 is conserved), but the run's own drift is its numerical error:
# no float64 run can tell it from 0, at any time.
AT_THE_LIMIT = "Balance(t) <= 0"


def test_violation_inside_the_numerical_error_is_not_a_counterexample():
    result = conjecture(AT_THE_LIMIT, "orthogonal", params={"lam": 1e-6, "n": 2, "p": 30},
                        budget=2, escalate=0)
    assert not result.found
    assert all(i.outcome.value == "INCONCLUSIVE" for i in result.tried)


def test_escalation_ends_at_float64s_resolution_and_says_so():
    """Re-run up the ladder, the same statement stays undecided (nothing resolves it) and
    says which run it was left at; a plateau that float64 cannot leave (L(t) = L(0) to the last bit
    at lam = 1e-20) is decided through L's increments."""
    result = conjecture(AT_THE_LIMIT, "orthogonal", params={"lam": 1e-6, "n": 2, "p": 30},
                        budget=1)
    (inst,) = result.tried
    # the run's drift is its numerical error: the relation fails on the run, within its
    # error (or, where the engine keeps the balance to round-off, within the rounding of
    # the formula itself: float64's resolution), even at the finest float64 run; such
    # times are never named as holding
    assert inst.outcome.value == "INCONCLUSIVE"
    assert inst.verdict.reason == WITHIN_ERROR or inst.verdict.reason.startswith(ALL_NAMED)
    assert "rtol 1e-13" in inst.verdict.accuracy
    assert result.escalations() == {"the exact flow at rtol 1e-13": 1}
    plateau = conjecture("L(t) <= L(0)", "orthogonal",
                         params={"lam": 1e-20, "n": 2, "p": 30}, budget=2)
    assert plateau.verdict == "NO COUNTEREXAMPLE" and not plateau.escalations()


def test_a_search_that_decides_nothing_is_undecided_not_no_counterexample(capsys, tmp_path):
    # every instance INCONCLUSIVE (a conserved quantity's drift against 0, not re-run)
    argv = ["conjecture", AT_THE_LIMIT, "--family", "orthogonal", "--param", "lam=1e-6",
            "--param", "n=2", "--param", "p=30", "--budget", "2", "--escalate", "0"]
    for extra in (["--no-plot"], ["--plot", str(tmp_path / "u.png")]):
        assert main(argv + extra) == EXIT_UNDECIDED, extra
        out = capsys.readouterr().out
        assert "verdict: UNDECIDED" in out and "NO COUNTEREXAMPLE" not in out
        assert "decided (HOLDS or VIOLATED): 0" in out
        # the drift is the run's numerical error (or, where the engine keeps the balance to
        # round-off, within the rounding of the formula itself): undecided either way
        assert ("2 x INCONCLUSIVE: the margin is within the numerical error" in out
                or "2 x INCONCLUSIVE: every saved time of the window is below float64's "
                   "resolution" in out)
    assert (tmp_path / "u.png").stat().st_size > 5_000
    # asking for no decided share at all accepts the search (and says what it decided)
    assert main(argv + ["--no-plot", "--min-decided", "0"]) == 0
    assert "decided (HOLDS or VIOLATED): 0" in capsys.readouterr().out
    assert main(argv + ["--no-plot", "--min-decided", "1.5"]) == 2
    assert "--min-decided" in capsys.readouterr().err


def test_partly_decided_searches_need_the_share_asked_for():
    result = conjecture(TRUE, "orthogonal", params=FAST, budget=3, seed=1)
    assert result.decided == len(result.tried) and result.verdict == "NO COUNTEREXAMPLE"
    inconclusive = dataclasses.replace(result.tried[0], verdict=dataclasses.replace(
        result.tried[0].verdict, outcome=Outcome.INCONCLUSIVE, reason="chattering"))
    mixed = dataclasses.replace(result, tried=[inconclusive, *result.tried[1:]])
    assert mixed.verdict == "UNDECIDED" and mixed.exit_code == EXIT_UNDECIDED
    assert mixed.undecided_reasons() == {"INCONCLUSIVE: chattering": 1}
    assert dataclasses.replace(mixed, min_decided=0.5).exit_code == 0


def test_an_internal_error_is_exit_4_in_one_line(capsys, monkeypatch):
    import verify.front.cli as cli

    def broken(args):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(cli, "_claims_command", broken)
    assert main(["claims"]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: RuntimeError: simulated bug" in err
    assert "Traceback" not in err


def test_replay_command_reproduces_the_numbers(capsys):
    result = conjecture(FALSE, "orthogonal", params=FAST, budget=5, seed=0)
    argv = shlex.split(result.replay_command)[1:] + ["--no-plot"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    c = result.counterexample
    assert f"lhs = {c.lhs:.6g}, rhs = {c.rhs:.6g}" in out and c.problem_hash in out


def test_callable_conjecture_uses_the_same_check():
    result = conjecture(lambda tr: (tr.stable_rank, 2.0), "orthogonal", params=FAST, budget=3)
    assert result.found and result.counterexample.params["n"] == 2


# -- scaling ------------------------------------------------------------------------------
def test_power_law_fit_recovers_a_known_exponent():
    rng = np.random.default_rng(7)
    n = np.repeat([50, 100, 200, 400, 800], 6)
    values = 2.5 * n**-0.7 * np.exp(0.05 * rng.standard_normal(n.size))
    fit = fit_power_law(n, values)
    assert fit.contains(-0.7) and fit.half_width < 0.05 and fit.t_lo <= -0.7 <= fit.t_hi
    exact = fit_power_law([10, 20, 40], 3.0 * np.array([10, 20, 40]) ** -0.5)
    assert exact.exponent == pytest.approx(-0.5, abs=1e-12)


def test_scaling_command_fits_and_gives_an_exit_code(capsys, tmp_path):
    code = main(["conjecture", "--scaling", "PL(oo) ~ n**alpha", "--family", "group",
                 "--n", "4,8,16", "--reps", "2", "--param", "groups=2",
                 "--plot", str(tmp_path / "s.png")])
    out = capsys.readouterr().out
    assert code == 0 and "fit: alpha =" in out and "FITTED" in out
    alpha = float(re.search(r"alpha = (-?[\d.]+)", out).group(1))
    # CF-7: with a fixed number of groups the limit rate is (2/n) min_g ||y_g|| ~ n^(-1/2)
    assert -0.8 < alpha < -0.2
    code = main(["conjecture", "--scaling", "PL(oo) ~ n**2", "--family", "group",
                 "--n", "4,8,16", "--reps", "2", "--param", "groups=2", "--no-plot"])
    assert code == 1 and "REJECTED" in capsys.readouterr().out


# -- the model options ----------------------------------------------------------------------------
def test_model_options_reach_the_runs_and_the_replay(capsys):
    """--param activation/train: the instances are that network, the conserved quantity
    follows (k a^2 - |w|^2 with a leaky ReLU, not with a frozen layer), and the replay
    command carries the model."""
    conserved = ["conjecture", "Balance(t) <= 1e-6", "--family", "sphere", "--param", "n=3",
                 "--param", "activation=leaky:0.2", "--budget", "2", "--no-plot"]
    assert main(conserved) == 0
    out = capsys.readouterr().out
    assert "family: sphere (activation=leaky:0.2)" in out
    assert "--param activation=leaky:0.2" in out
    frozen = conserved[:-3] + ["--param", "train=first", "--budget", "2", "--no-plot"]
    assert main(frozen) == 1  # a stays fixed while w moves: not conserved
    out = capsys.readouterr().out
    assert "COUNTEREXAMPLE" in out and "--param train=first" in out
    assert main(["conjecture", "L(t) <= L(0)", "--family", "sphere", "--param",
                 "activation=tanh"]) == 2
    assert "activation" in capsys.readouterr().err


# -- assumptions ----------------------------------------------------------------------------------
def test_assumptions_exclude_draws_before_any_run(capsys):
    """--assume: only instances that satisfy the conditions are simulated; the others are
    counted as excluded, never counterexamples, and the replay carries the assumption."""
    assert main(["conjecture", "L(t) <= L(0)", "--family", "separable", "--assume",
                 "mu >= 0.5", "--budget", "3", "--no-plot"]) == 0
    out = capsys.readouterr().out
    assert "excluded by --assume (mu >= 0.5):" in out and "--assume 'mu >= 0.5'" in out
    # a statement false on some instances of the family is true under its assumption:
    # n = 2 draws make "n >= 3" false at t = 0; excluded, there is no counterexample
    code = main(["conjecture", "n >= 3", "--family", "orthogonal", "--param", "lam=1e-6",
                 "--assume", "n >= 3", "--budget", "3", "--no-plot"])
    assert code == 0, capsys.readouterr().out
    capsys.readouterr()
    assert main(["conjecture", "n >= 3", "--family", "orthogonal", "--param", "lam=1e-6",
                 "--param", "n=2", "--budget", "2", "--no-plot"]) == 1
    capsys.readouterr()
    assert main(["conjecture", "L(t) <= L(0)", "--family", "separable", "--assume",
                 "mu >= 2", "--budget", "2", "--no-plot"]) == 2
    assert "no instance" in capsys.readouterr().err


# -- command line -------------------------------------------------------------------------------
def test_cli_exit_codes(capsys):
    assert main(["conjecture", TRUE, "--family", "orthogonal", "--param", "lam=1e-6",
                 "--budget", "2", "--no-plot"]) == 0
    assert main(["conjecture", FALSE, "--family", "orthogonal", "--param", "lam=1e-6",
                 "--budget", "3", "--no-plot"]) == 1
    capsys.readouterr()
    bad = [
        (["conjecture", "L(t) <= foo", "--family", "orthogonal"], "foo"),
        (["conjecture", "L(t) <= 1", "--family", "nope"], "--family"),
        (["conjecture", "L(t) <= 1", "--family", "orthogonal", "--param", "q=1"], "q"),
        (["conjecture", "L(t) <= 1", "--family", "orthogonal", "--param", "n=abc"], "n"),
        (["conjecture", "L(t) <= 1", "--family", "orthogonal", "--param", "lam=-1"], "lam"),
        (["conjecture", "L(t) <= 1", "--family", "orthogonal", "--budget", "0"], "--budget"),
        (["conjecture", "--family", "orthogonal"], "statement"),
        (["conjecture", "--scaling", "PL(oo) ~ log(n)", "--family", "group"], "power law"),
    ]
    for argv, name in bad:
        assert main(argv) == 2, argv
        assert name in capsys.readouterr().err


def test_families_lists_the_six_names(capsys):
    assert main(["families"]) == 0
    out = capsys.readouterr().out
    for name in ("two-point", "orthogonal", "orthogonal-asym", "sphere", "separable", "group"):
        assert re.search(rf"^{re.escape(name)}[ ,]", out, flags=re.M), name
    assert "default" in out and "horizon" in out


def test_family_parameters_are_typed_and_validated():
    fam = families.get("orthonormal")  # alias
    assert fam is s002_families.ORTHOGONAL
    fixed = fam.fixed(d="3", lam="1e-8")
    assert fixed.params["n"].hi == 3 and fixed.params["lam"].lo == 1e-8
    rng = np.random.default_rng(0)
    problem = fixed.sample(rng)
    assert problem.d == 3 and problem.init_scale == 1e-8 and problem.n <= 3
    assert problem.meta["family_params"]["d"] == 3
    with pytest.raises(ValueError, match="horizon"):
        fam.fixed(horizon="-1")
    assert fam.fixed(horizon="12").horizon(problem) == 12.0


def test_families_prints_what_param_accepts_beside_what_a_search_draws(capsys):
    """`gfverify families` printed only the search range (orthogonal's lam [1e-20, 1e-6], p
    [30, 60]) while --param accepted lam=1e-3 and refused p=0 as outside [1, inf]: each
    numeric parameter's line now gives both, and they are the ones parse applies."""
    assert main(["families"]) == 0
    out = capsys.readouterr().out
    block = out[out.index("orthogonal, orthonormal  ["):].split("\n\n")[0]
    lines = {}
    for line in block.splitlines():
        words = line.split()
        if line.startswith("    ") and words and words[0] in ("n", "p", "d", "lam", "seed"):
            name = words[0]
        elif "allowed" in line and "drawn" in line:
            lines[name] = line
    fam = families.get("orthogonal")
    for name in ("n", "p", "d", "lam", "seed"):
        assert f"allowed {fam.params[name].allowed_text()}" in lines[name], lines[name]
    assert "(0, 0.5]" in lines["lam"] and "[1, inf)" in lines["p"]
    fam.fixed(lam="1e-3", p="1")  # inside what the listing says --param allows
    with pytest.raises(families.FamilyError, match=re.escape("allowed range [1, inf)")):
        fam.fixed(p="0")


def test_a_bound_between_parameters_is_named_after_the_typed_value():
    """``--param n=9`` on orthogonal (d drawn from [2, 8], d >= n) read "d must be >= n": a
    fixed n now moves the drawn range of d bound to it, and a pair that cannot hold names
    both values."""
    fam = families.get("orthogonal")
    fixed = fam.fixed(n="9")
    drawn = [fixed.sample_params(np.random.default_rng(seed)) for seed in range(5)]
    assert all(p["n"] == 9 and p["d"] >= 9 for p in drawn), drawn
    with pytest.raises(families.FamilyError, match=r"--param d=1: outside the allowed range"):
        fam.fixed(d="1")
    with pytest.raises(families.FamilyError, match=r"--param d=3: d must be >= n, and n=4"):
        fam.fixed(n="4", d="3")


def test_gd_method_runs_or_says_why():
    try:
        result = conjecture(TRUE, "two-point", params={"lam": 1e-2}, budget=1, method="gd",
                            lr=0.05)
    except ValueError as exc:
        assert "gradient descent" in str(exc)
        return
    assert result.tried and result.tried[0].verdict.method == "gradient_descent"


def test_a_statement_undefined_on_some_draws_is_inapplicable_there_not_an_abort():
    # sqrt(n - 3) is not real at n = 2 only: that draw says nothing, the search goes on
    res = conjecture("L(t) <= L(0) + sqrt(n - 3)", family="orthogonal", budget=10, seed=0,
                     params={"p": 4})
    undefined = [i for i in res.tried if i.outcome is Outcome.INAPPLICABLE]
    assert undefined and all(i.params["n"] == 2 for i in undefined)
    assert "undefined here" in undefined[0].verdict.reason
    assert any(i.outcome is Outcome.HOLDS for i in res.tried) and res.counterexample is None


@pytest.mark.parametrize("old, new", [("Uplus", "CapPlus"), ("Uminus", "CapMinus"),
                                      ("Cx_minus", "Xmin"), ("Cx_plus", "Xmax"),
                                      ("Cy_minus", "MinAbsY")])
def test_renamed_vocabulary_names_still_read(old, new):
    """The capacity U_+ was `Uplus` (one letter's case from u_+(t) = `UPlus(t)`); S000's data
    constants had their own names for S001's numbers. Old statements keep working."""
    assert new in S.VOCABULARY and old not in S.VOCABULARY and S.RENAMED[old] == new
    read = parse_conjecture(f"L(t) <= {old}").relation
    assert read == parse_conjecture(f"L(t) <= {new}").relation


def test_an_event_time_statement_is_searched_not_crashed():
    """first(EVENT) <= BOUND on a family: the event's relation is checked for definedness
    before simulating (it once crashed there: bool() of a sympy relation). On the two-point
    plateau L(t) <= L(0)/2 comes long after t = 1 (lam <= 1e-4), so the bound 1 is false."""
    result = conjecture("first(L(t) <= 0.5*L(0)) <= 1", "two-point", budget=1)
    assert result.verdict == "COUNTEREXAMPLE" and result.exit_code == 1, result.report()


def test_a_callable_statement_replays_by_importing_it(tmp_path, monkeypatch):
    """A callable at the top of an importable module gets a replay command that imports it
    and checks the same instance (run here in a fresh interpreter); a lambda gets the
    reason it has none."""
    import os
    import shlex
    import subprocess
    import sys

    (tmp_path / "my_statements.py").write_text(
        "def rank_at_most_two(tr):\n    return tr.stable_rank, 2.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from my_statements import rank_at_most_two

    result = conjecture(rank_at_most_two, "orthogonal", params=FAST, budget=3, plot=None)
    assert result.found and result.replay_command.startswith("python -c ")
    argv = shlex.split(result.replay_command)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), root]))
    out = subprocess.run([sys.executable, *argv[1:]], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "verdict: COUNTEREXAMPLE" in out.stdout
    assert result.counterexample.problem_hash in out.stdout
    lam = conjecture(lambda tr: (tr.stable_rank, 2.0), "orthogonal", params=FAST, budget=2,
                     plot=None)
    assert lam.replay_command.startswith("(none: the callable '<lambda>' is defined as a "
                                         "lambda or inside a function")
