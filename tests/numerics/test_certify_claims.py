"""The claim evaluator (numerics.certify.claims, quantities): exact inputs, windows and
events enclosed on the tube, and the reach of the certified layer."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from flint import arb

from numerics import ExactFlow, Problem, generators, simulate
from numerics.certify import certify, check_certificate
from numerics.certify.claims import ClaimError, ClaimSpec, decide
from numerics.certify.instance import Instance, InstanceError
from numerics.certify.quantities import INSTANCE_NUMBERS
from papers.s002.evidence import s002_horizon
from papers.s002.families import ORTHOGONAL
from theory import get
from verify.conjecture.certify import certified_claim
from verify.conjecture.statement import statement_of
from verify.conjecture.when import parse_at_time, parse_window
from verify.engine.certified import CertifiedOutcome, certify_claim
from verify.engine.certified.spec import claim_spec
from verify.language.expressions import ExpressionError, parse_conjecture
from verify.language.measures import instance_values


# -- exact literals -------------------------------------------------------------------------
def test_literals_are_read_exactly():
    rel = parse_conjecture("L(t) <= 1e-8*L(0)").relation
    assert sp.Rational(1, 10**8) in rel.rhs.atoms(sp.Rational)
    assert parse_conjecture("L(t) <= 0.1").relation.rhs == sp.Rational(1, 10)
    assert parse_conjecture("L(t) <= 1.5*L(0)").relation.rhs == sp.Rational(3, 2) * sp.Function(
        "L")(0)


@pytest.mark.parametrize("text", ["SignFlips(t) < 1e-400", "SignFlips(t) >= 1e-400",
                                  "L(t) <= 1e-200*1e-200", "L(t) <= exp(-1000)",
                                  "L(t) <= 2**-2000", "L(t) <= 10**-400"])
def test_numbers_below_float64_are_refused(text):
    """Python's parser makes 1e-400 into 0.0: 'SignFlips(t) < 1e-400' (true: 0 < 1e-400)
    came back a counterexample. Read exactly, such a number is named and refused."""
    with pytest.raises(ExpressionError, match="below float64's range"):
        parse_conjecture(text)


def test_the_uncertified_conjecture_is_no_counterexample_below_float64(tmp_path):
    out = subprocess.run([sys.executable, "-m", "verify", "conjecture", "SignFlips(t) < 1e-400",
                          "--family", "two-point", "--budget", "1", "--no-plot"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2 and "1e-400" in out.stderr, out.stdout + out.stderr
    assert "COUNTEREXAMPLE" not in out.stdout


def test_an_exact_literal_is_decided_in_arb(tmp_path):
    """0.1 written is 1/10, not the float 0.1000000000000000055...: a claim whose margin is
    below the float's rounding is decided by the rational."""
    problem = generators.two_point(p=10, lam=1e-6 / np.sqrt(10), seed=0)
    run = simulate(problem, ExactFlow(), np.linspace(0, 5, 11))
    claim = statement_of("SignFlips(t) < 0.1").claim("for_all_t", None, 5.0, float(run.t[1]))
    spec = claim_spec(claim, 5.0)
    assert spec.relation == ["lt", ["q", "SignFlips", ["t"]], ["num", "1/10"]]
    assert decide(spec, certify(run)).outcome == "PROVED"


# -- the instance's numbers, exactly --------------------------------------------------------
@pytest.mark.parametrize("problem", [
    generators.two_point(p=10, lam=1e-6 / np.sqrt(10), seed=0),
    ORTHOGONAL.build(n=4, p=12, d=5, lam=1e-4, seed=3),
    generators.correlated(n=5, d=7, p=4, seed=1, rho=0.3),
], ids=["two-point", "orthogonal", "correlated"])
def test_instance_numbers_enclose_the_float_definitions(problem):
    inst = Instance.of_problem(problem)
    floats = instance_values(problem)
    checked = 0
    for name, fn in INSTANCE_NUMBERS.items():
        if name not in floats:
            continue
        box = fn(inst)
        value = floats[name]
        tol = 1e-13 * abs(value)  # the float code's own rounding
        assert float(box.lower()) - tol <= value <= float(box.upper()) + tol, (name, box, value)
        assert float(box.rad()) <= 1e-14 * max(abs(value), 1.0), (name, box)
        checked += 1
    assert checked >= 7


def test_the_instance_hash_is_the_problems():
    problem = Problem(X=np.eye(2), y=np.array([1.0, -1.0]), W0=np.eye(2), a0=np.ones(2),
                      activation="leaky:0.1", train="first", loss_scale=2.0, init_scale=0.5)
    inst = Instance.of_problem(problem)
    assert inst.hash == problem.content_hash
    assert Instance.from_file(inst.settings(), {"X": inst.X, "y": inst.y, "W0": inst.W0,
                                                "a0": inst.a0}).hash == inst.hash


@pytest.mark.parametrize(("change", "field"), [
    ({"train": "Both"}, "train"), ({"loss_scale": -1.0}, "loss_scale"),
    ({"slope": 1.5, "activation": "leaky"}, "slope"), ({"activation": "tanh"}, "activation"),
    ({"slope": 0.1}, "slope"), ({"parametrization": "mf"}, "parametrization"),
])
def test_an_instance_outside_the_certificate_is_refused(change, field):
    base = dict(X=np.eye(2), y=np.ones(2), W0=np.eye(2), a0=np.ones(2),
                parametrization="standard", loss_scale=1.0, init_scale=None,
                activation="relu", slope=0.0, train="both")
    with pytest.raises(InstanceError) as info:
        Instance(**{**base, **change})
    assert info.value.field == field


def test_a_malformed_claim_tree_is_refused():
    base = dict(id="x", text="x", form="x", kind="window", window=[["num", "0/1"],
                                                                    ["horizon"]],
                event=None, horizon=1.0)
    for bad in (["le", ["q", "Saddle", ["t"]], ["num", "1/1"]], ["le", ["os.system"], ["t"]],
                ["le", ["num", "1e-400"], ["t"]], ["add", ["t"], ["t"]], "L(t) <= 1"):
        with pytest.raises(ClaimError):
            ClaimSpec(relation=bad, **base)


# -- windows and events on the tube ------------------------------------------------------------
@pytest.fixture(scope="module")
def toy():
    problem = generators.two_point(p=10, lam=1e-6 / np.sqrt(10), seed=0)
    run = simulate(problem, ExactFlow(), np.linspace(0, s002_horizon(problem), 101))
    return run, certify(run)


def test_the_event_time_is_enclosed_on_the_tube(toy):
    """S002-T1's event L(t) <= 1e-8 L(0): its first time is PROVED at a boundary B of the
    tube and, from below, every box up to A fails it; A <= t* <= B brackets the float run's
    first saved time with the event."""
    from numerics.certify.claims import Context

    run, tube = toy
    spec = claim_spec(get("S002-T1"), float(run.t[-1]))
    ctx = Context(spec, tube)
    B = ctx.event_upper(until=run.t[-1])
    A = ctx.event_lower(until=B)
    floats = np.asarray(run.loss)
    first = float(run.t[np.argmax(floats <= 1e-8 * floats[0])])
    assert A <= B and B - A < 1.0
    assert float(run.t[np.searchsorted(run.t, first) - 1]) <= B <= first + 1e-9
    assert decide(spec, tube).t == B


def test_a_window_opening_at_an_event_is_decided_on_its_enclosure(toy, tmp_path):
    """--window 'first(L(t) <= L(0)/2), oo': the window's start is the event's time on the
    tube (an enclosure), not the first saved time the float run shows it."""
    run, tube = toy
    statement = statement_of("L(t) <= L(0)")
    claim = certified_claim(statement, "window", parse_window("first(L(t) <= L(0)/2), oo"),
                            run)
    spec = claim_spec(claim, float(run.t[-1]))
    assert spec.window[0] == ["event_time"] and spec.event is not None
    cert = certify_claim(claim, run, tube=tube, file=tmp_path / "w.npz")
    assert cert.outcome is CertifiedOutcome.PROVED, cert.reason
    assert check_certificate(cert.record["file"]).verdict.outcome == "PROVED"


def test_an_instance_dependent_time_stays_an_expression(toy):
    run, tube = toy
    claim = certified_claim(statement_of("L(t) <= L(0)"), "at_t",
                            parse_at_time("log(1/lam)/Dplus"), run)
    spec = claim_spec(claim, float(run.t[-1]))
    assert spec.window[0] == spec.window[1] and "inst" in str(spec.window[0])
    got = decide(spec, tube)
    assert got.outcome == "PROVED", got.reason
    t = float(np.log(1 / run.problem.init_scale) / instance_values(run.problem)["Dplus"])
    assert abs(got.t - t) <= 1e-9 * t


def test_cf5_reads_its_event_time_without_a_crash():
    """CF-5's window opens at t_conv and its statement reads L(t_conv): both enclosed on
    the tube (before: an uncaught CheckError)."""
    problem = generators.group(6, (1, 2, 3), seed=2, scale=0.05, aligned=False)
    run = simulate(problem, ExactFlow(), np.linspace(0, 30, 61))
    cert = certify_claim(get("CF-5"), run)
    assert cert.outcome in tuple(CertifiedOutcome)


# -- reach ----------------------------------------------------------------------------------
def test_orthogonal_data_at_n_equal_d_equal_10_reaches_its_horizon():
    """Before: the first crossing step exceeded its growth cap (a convex crossing's own
    stray, 64 d u |w| |x| past the surface, is above 16 x a radius still at the rounding
    floor) and the tube stopped at t = 0.73 with 'no step could be certified'."""
    problem = ORTHOGONAL.build(n=10, p=20, d=10, lam=1e-6, seed=0)
    run = simulate(problem, ExactFlow(), np.linspace(0, s002_horizon(problem), 101))
    tube = certify(run)
    assert tube.complete, tube.why
    assert tube.windows == 0 and np.sum(tube.regime[1:] != tube.regime[:-1]) >= 10
    assert certify_claim(get("S002-T1"), run, tube=tube).outcome is CertifiedOutcome.PROVED


def test_a_sliding_mode_stops_the_writer_with_its_reason():
    problem = Problem(X=np.array([[1.0, 0.0], [0.6, 0.8]]), y=np.array([1.0, -0.5]),
                      W0=np.array([[0.5, 0.1], [-0.2, 0.6]]), a0=np.array([0.4, -0.3]))
    run = simulate(problem, ExactFlow(), np.linspace(0.0, 6.0, 6))
    tube = certify(run, max_seconds=60)
    assert "sliding mode" in tube.why and 3.0 < tube.end < 3.5 and tube.steps < 100


def test_exact_rationals_in_arb():
    from numerics.certify.quantities import rational

    box = rational(Fraction(1, 10**400))
    assert box > 0 and box < arb("1e-399")
