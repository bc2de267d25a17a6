"""Certified tubes (numerics.certify) and claims decided on them (verify.engine.certified)."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from numerics import ClosedForm, ExactFlow, Problem, generators, simulate
from numerics.certify import CertificateRejected, certify, check_certificate
from numerics.certify.balls import Ball, poly_mul, range_on, sup_on, value_at
from numerics.certify.tube import exact_step
from papers.s002.evidence import s002_horizon
from theory import get
from verify.engine.certified import CertifiedOutcome, certify_claim
from verify.engine.check import check


# -- ball arithmetic against exact rationals ---------------------------------------------------
def _exact(a):
    return [[Fraction(float(v)) for v in row] for row in np.atleast_2d(a)]


def test_ball_products_contain_the_exact_products():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(4, 7)) * 10.0 ** rng.integers(-8, 8, size=(4, 7))
    B = rng.normal(size=(7, 3))
    C = Ball.exact(A) @ Ball.exact(B)
    exact = [[sum(x * y for x, y in zip(row, col, strict=True)) for col in zip(*_exact(B),
                                                                              strict=True)]
             for row in _exact(A)]
    gap = np.array([[abs(Fraction(float(C.mid[i, j])) - exact[i][j]) for j in range(3)]
                    for i in range(4)], dtype=float)
    assert np.all(gap <= C.rad)
    P = poly_mul(Ball.exact(rng.normal(size=(3, 2))), Ball.exact(rng.normal(size=(4, 2))))
    assert P.shape == (6, 2)


def _exact_poly_einsum(sub, A, B):
    """C_m = sum_k einsum(sub, A_k, B_{m-k}) in exact rationals (object arrays)."""
    KA, KB = A.shape[0], B.shape[0]
    Aq = np.vectorize(Fraction, otypes=[object])(A)
    Bq = np.vectorize(Fraction, otypes=[object])(B)
    out = None
    for m in range(KA + KB - 1):
        acc = None
        for k in range(max(0, m - KB + 1), min(KA, m + 1)):
            term = np.einsum(sub, Aq[k], Bq[m - k])
            acc = term if acc is None else acc + term
        out = [acc] if out is None else out + [acc]
    return np.array(out, dtype=object)


@pytest.mark.parametrize("sub", ["j,ji->i", "i,ji->j", "j,jd->jd"])
def test_fused_polynomial_products_contain_the_exact_ones(sub):
    """poly_einsum (one BLAS product per pass, summed along the polynomial axis) against
    exact rationals, with radii on both sides and magnitudes 1e-8 to 1e8."""
    from numerics.certify.balls import poly_einsum

    rng = np.random.default_rng(7)
    shapes = {"j,ji->i": ((5, 6), (4, 6, 3)), "i,ji->j": ((7, 3), (4, 6, 3)),
              "j,jd->jd": ((5, 6), (7, 6, 2))}[sub]
    A = rng.normal(size=shapes[0]) * 10.0 ** rng.integers(-8, 8, size=shapes[0])
    B = rng.normal(size=shapes[1])
    rA = np.abs(A) * 1e-12
    C = poly_einsum(sub, Ball(A, rA), Ball.exact(B))
    exact = _exact_poly_einsum(sub, A, B)
    gap = np.vectorize(lambda c, m: float(abs(Fraction(float(m)) - c)), otypes=[float])(
        exact, C.mid)
    spread = _exact_poly_einsum(sub, rA, np.abs(B)).astype(float)
    assert np.all(gap + spread <= C.rad)
    # the bound is not loose by orders: a few hundred ulps of the magnitudes
    mag = _exact_poly_einsum(sub, np.abs(A), np.abs(B)).astype(float)
    assert np.all(C.rad <= spread * 1.01 + 1e-13 * mag + 1e-290)


def test_horner_running_bound_contains_the_exact_value():
    rng = np.random.default_rng(3)
    P = rng.normal(size=(15, 40)) * 10.0 ** rng.integers(-6, 6, size=(15, 40))
    s = np.array([0.0, 1e-9, 0.37, 0.9999, 1.3])
    at = value_at(Ball.exact(P), s)
    for k, x in enumerate(s):
        xq = Fraction(float(x))
        for j in range(P.shape[1]):
            exact = sum(Fraction(float(P[i, j])) * xq**i for i in range(P.shape[0]))
            assert abs(Fraction(float(at.mid[k, j])) - exact) <= Fraction(float(at.rad[k, j]))


def test_exp_goes_through_arb():
    import mpmath

    from numerics.certify.balls import exp_up

    mpmath.mp.prec = 200
    for x in (0.0, 1e-300, 1e-8, 0.5, 3.75, 40.0):
        assert exp_up(x) >= mpmath.e ** mpmath.mpf(x)
        assert exp_up(x) <= float(mpmath.e ** mpmath.mpf(x)) * (1 + 1e-15)


def test_a_rounding_mode_other_than_nearest_is_refused():
    """Round-to-nearest is checked, not assumed: under upward rounding (fesetround) the
    ball arithmetic refuses to load."""
    code = ("import ctypes, ctypes.util, sys\n"
            "libm = ctypes.CDLL(ctypes.util.find_library('m'))\n"
            "assert libm.fesetround(0x800) == 0\n"  # FE_UPWARD on x86-64
            "try:\n"
            "    import numerics.certify.balls\n"
            "except Exception as exc:\n"
            "    print(type(exc).__name__, exc); sys.exit(0)\n"
            "sys.exit(1)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if "x86" not in __import__("platform").machine() and "AMD64" not in \
            __import__("platform").machine():
        pytest.skip("FE_UPWARD's value is x86-64's")
    assert out.returncode == 0 and "RoundingModeError" in out.stdout, out.stdout + out.stderr


def test_polynomial_bounds_enclose_the_values():
    rng = np.random.default_rng(1)
    P = Ball.exact(rng.normal(size=(6, 5)))
    h = 0.7
    lo, hi = range_on(P, h)
    s = np.linspace(0, h, 1001)
    vals = np.polynomial.polynomial.polyval(s, P.mid, tensor=True)  # (5, 1001)
    assert np.all(vals.min(axis=1) >= lo) and np.all(vals.max(axis=1) <= hi)
    assert np.all(np.abs(vals).max(axis=1) <= sup_on(P, h))
    at = value_at(P, 0.3)
    assert np.all(np.abs(np.polynomial.polynomial.polyval(0.3, P.mid) - at.mid) <= at.rad + 1e-15)


def test_exact_steps_are_exact():
    for b, target in [(0.0, 0.37), (0.044, 0.186), (1.5, 2.9), (3.0, 1e3)]:
        end, h = exact_step(b, target)
        assert b < end <= target and Fraction(b) + Fraction(h) == Fraction(end)


# -- the two-point toy: certified to its horizon -------------------------------------------------
@pytest.fixture(scope="module")
def toy():
    problem = generators.two_point(p=10, lam=1e-6 / np.sqrt(10), seed=0)
    run = simulate(problem, ExactFlow(), np.linspace(0, s002_horizon(problem), 101))
    return run, certify(run)


def test_toy_tube_reaches_the_horizon_within_100x_the_companion(toy):
    run, tube = toy
    assert tube.complete and tube.end == run.t[-1]
    assert tube.radii.max() <= 100 * run.error_estimate
    # it crossed activation changes (each step records the regime its polynomial follows)
    assert np.sum(tube.regime[1:] != tube.regime[:-1]) >= 1


def test_toy_tube_holds_a_more_accurate_run(toy):
    run, tube = toy
    fine = simulate(run.problem, ExactFlow(rtol=1e-13), run.t)
    states = np.concatenate([fine.W.reshape(len(fine.t), -1), fine.a], axis=1)
    gap = np.linalg.norm(states - tube.states, axis=1)
    # the fine run's own error is far below the radii; the tube must hold it
    assert np.all(gap <= tube.radii + 1e-3 * tube.radii)


def test_checker_accepts_and_rejects(toy, tmp_path):
    _, tube = toy
    path = tube.write(tmp_path / "toy.npz")
    got = check_certificate(path)
    assert got.steps == tube.steps and np.array_equal(got.radii, tube.radii)
    data = dict(np.load(path))
    for key, change in [("coeffs", lambda c: c.__setitem__((5, 1, 3), c[5, 1, 3] * 1.001)),
                        ("r0", lambda r: r.__setitem__(40, r[40] * 1e-3)),
                        ("saved_radius", lambda r: r.__setitem__(50, r[50] * 0.5))]:
        bad = {k: v.copy() for k, v in data.items()}
        change(bad[key])
        bad_path = tmp_path / f"bad_{key}.npz"
        np.savez(bad_path, **bad)
        with pytest.raises(CertificateRejected):
            check_certificate(bad_path)
    out = subprocess.run([sys.executable, "-m", "numerics.certify", str(path)],
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("ACCEPTED"), out.stdout + out.stderr


def test_s002_t1_is_proved_on_the_toy(toy):
    run, tube = toy
    verdict = check(get("S002-T1"), run, certify=True)
    assert verdict.certificate["outcome"] == "PROVED"
    assert "certified: PROVED" in str(verdict)
    assert verdict.certificate["record"]["max_radius"] == tube.radii.max()


# -- a false statement on the orthogonal family: DISPROVED with a checkable file -------------
def test_exponential_decay_is_disproved_on_orthogonal_data(tmp_path):
    from verify.conjecture import conjecture

    result = conjecture("L(t) <= L(0)*exp(-t)", "orthogonal",
                        params={"n": "3", "p": "30", "lam": "1e-6"}, budget=1, plot=None)
    assert result.found
    cert = certify_claim(result.claim(), result.trajectory(), file=tmp_path / "cx.npz")
    assert cert.outcome is CertifiedOutcome.DISPROVED
    assert check_certificate(cert.record["file"]).end >= cert.t


def test_conjecture_cli_certifies_its_counterexample(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "verify", "conjecture", "L(t) <= L(0)*exp(-t)", "--family",
         "orthogonal", "--param", "n=3", "--param", "p=30", "--param", "lam=1e-6",
         "--budget", "1", "--no-plot", "--certify", str(tmp_path / "c.npz")],
        capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert "certified: the counterexample" in out.stdout and ": DISPROVED at t=" in out.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "verify", "conjecture", "L(t) <= L(0)", "--family",
         "orthogonal", "--certify", str(tmp_path / "nowhere" / "c.npz")],
        capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and "--certify" in bad.stderr and "Traceback" not in bad.stderr


def test_conjecture_cli_certifies_each_instance_that_holds(tmp_path):
    """A search with no counterexample: every HOLDS instance is certified (PROVED on each),
    and the checker re-decides a file alone, printing the claim, the hash and PROVED."""
    out = subprocess.run(
        [sys.executable, "-m", "verify", "conjecture", "L(t) <= 1.5*L(0)", "--family",
         "two-point", "--param", "p=10", "--param", "lam=1e-6", "--budget", "2", "--no-plot",
         "--certify", str(tmp_path / "tp.npz")], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "certified: the instances that HOLD, 2 instance(s) on their certified tubes: " \
           "2 PROVED" in out.stdout, out.stdout
    hashes = [line.split("[instance ")[1].split(",")[0] for line in out.stdout.splitlines()
              if "[instance " in line]
    assert len(hashes) == 2 and (tmp_path / "tp-2.npz").exists()
    check = subprocess.run([sys.executable, "-m", "numerics.certify", str(tmp_path / "tp.npz")],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "claim:    conjecture: L(t) <= 1.5*L(0)" in check.stdout
    assert f"instance: {hashes[0]}" in check.stdout
    assert "verdict:  PROVED" in check.stdout


# -- soundness against closed forms (CF-7 group dynamics, CF-8 phase law) ------------------------
def _cf8_problem():
    X = np.eye(4)
    y = np.array([1.0, 0.5, -0.8, -0.3])
    dplus, dminus = np.where(y > 0, y, 0), np.where(y < 0, -y, 0)
    U = np.array([dplus, dplus, dminus])
    U = U / np.linalg.norm(U, axis=1)[:, None]
    scales = np.array([1e-4, 3e-4, 2e-4])
    return Problem(X=X, y=y, W0=scales[:, None] * U, a0=np.array([1.0, 1.0, -1.0]) * scales)


@pytest.mark.parametrize("problem", [
    generators.group(6, (1, 2, 3), seed=2, scale=0.05, aligned=False),
    _cf8_problem(),
], ids=["CF-7", "CF-8"])
def test_closed_forms_lie_inside_the_tube(problem, tmp_path):
    t = np.linspace(0, 30, 61)
    run = simulate(problem, ExactFlow(), t)
    tube = certify(run)
    assert tube.complete
    exact = simulate(problem, ClosedForm(), t).companion  # mpmath, 30 digits, then rounded
    states = np.concatenate([exact.W.reshape(len(t), -1), exact.a], axis=1)
    truth_gap = np.linalg.norm(states - tube.states, axis=1)
    # the reference's own error: its final rounding, and the few ulps its group parameters
    # (rho, Y, ... computed from the float problem) put it off the exact initial state,
    # which the tube holds exactly at t = 0 (carried as a relative error, four times)
    size = np.linalg.norm(states, axis=1)
    rounding = 2.0**-52 * size + 4.0 * truth_gap[0] / size[0] * size
    assert np.all(truth_gap <= tube.radii + rounding)
    # a radius shrunk below the true error is refused by the checker
    path = tube.write(tmp_path / "cf.npz")
    data = dict(np.load(path))
    k = int(np.argmax(truth_gap))
    data["saved_radius"][k] = 0.5 * truth_gap[k]
    np.savez(tmp_path / "shrunk.npz", **data)
    with pytest.raises(CertificateRejected):
        check_certificate(tmp_path / "shrunk.npz")


def test_outside_the_certified_setting_is_uncertified():
    problem = generators.separable(n=3, d=2, p=3, seed=4, mu=0.2, eps=0.5, loss="logistic")
    run = simulate(problem, ExactFlow(), np.linspace(0, 1, 5))
    cert = certify_claim(get("S002-T1"), run)
    assert cert.outcome is CertifiedOutcome.UNCERTIFIED and "logistic" in cert.reason


# -- orthogonal data: every crossing's kink is convex, no window -----------------------------
@pytest.fixture(scope="module")
def orthogonal():
    from papers.s002.families import ORTHOGONAL

    problem = ORTHOGONAL.build(n=3, p=10, d=3, lam=1e-6, seed=0)
    run = simulate(problem, ExactFlow(), np.linspace(0, s002_horizon(problem), 101))
    return run, certify(run)


def test_orthogonal_tube_passes_its_crossings_without_windows(orthogonal):
    run, tube = orthogonal
    assert tube.complete and tube.end == run.t[-1], tube.why
    assert tube.windows == 0
    # pairs changed regime between steps: the tube went through crossings
    flips = np.sum(tube.regime[1:] != tube.regime[:-1])
    assert flips >= 3
    assert tube.radii.max() <= 100 * run.error_estimate


def test_orthogonal_tube_holds_a_more_accurate_run(orthogonal):
    run, tube = orthogonal
    fine = simulate(run.problem, ExactFlow(rtol=1e-13), run.t)
    states = np.concatenate([fine.W.reshape(len(fine.t), -1), fine.a], axis=1)
    gap = np.linalg.norm(states - tube.states, axis=1)
    assert np.all(gap <= tube.radii + 1e-3 * tube.radii)


def test_s002_t1_is_proved_on_orthogonal_data(orthogonal, tmp_path):
    run, tube = orthogonal
    cert = certify_claim(get("S002-T1"), run, tube=tube, file=tmp_path / "t1.npz")
    assert cert.outcome is CertifiedOutcome.PROVED, cert.reason
    assert check_certificate(cert.record["file"]).end == run.t[-1]


def test_a_regime_that_hides_the_kink_is_rejected(orthogonal, tmp_path):
    """The checker recomputes every bound from the file: a step whose recorded regime is
    not the side its polynomial is on (a defect as large as the field's jump) fails."""
    _, tube = orthogonal
    path = tube.write(tmp_path / "o.npz")
    data = dict(np.load(path))
    k = int(np.flatnonzero((tube.regime[1:] != tube.regime[:-1]).any(axis=(1, 2)))[0]) + 1
    data["regime"][k] = ~data["regime"][k]
    np.savez(tmp_path / "flipped.npz", **data)
    with pytest.raises(CertificateRejected):
        check_certificate(tmp_path / "flipped.npz")


# -- the measures' enclosures hold the float values ----------------------------------------
@pytest.mark.parametrize("name", ["L", "R", "NormW", "Balance", "NormSumDrift", "ParamDrift",
                                  "MaxAbsH", "NormWFrobSq", "SignFlips", "Emin", "Emax"])
def test_enclosures_hold_the_measured_values(orthogonal, name):
    from numerics.certify.balls import Ball
    from numerics.certify.quantities import MEASURES, around
    from verify.language.measures import TRAJECTORY_QUANTITIES

    run, tube = orthogonal
    W0, a0 = tube.shape.split(tube.theta0)
    start = (Ball.exact(W0), Ball.exact(a0))
    values = TRAJECTORY_QUANTITIES[name](run).values
    for k in (0, 10, 50, 100):  # the box around the run's state holding the true flow
        W, a = around(tube.shape, tube.states[k], float(tube.radii[k]))
        box = MEASURES[name](tube.shape, W, a, start)
        lo, hi = float(box.lower()), float(box.upper())
        assert lo - 1e-12 * abs(values[k]) <= values[k] <= hi + 1e-12 * abs(values[k]), \
            (name, k, lo, values[k], hi)
        if name not in ("Emin", "Emax"):  # an indicator of z > 0: a pair held exactly on
            # its surface counts as either in the box around the state
            assert hi - lo <= 1e-6 * max(abs(values[k]), 1.0) + 1e-6, (name, k, lo, hi)


def test_balance_is_proved_conserved_on_the_tube(orthogonal):
    """CF-13's conserved a_j^2 - |w_j|^2 on the tube: PROVED for a bound above the tube's
    reach, DISPROVED for none (a negative bound)."""
    from verify.conjecture.statement import statement_of

    run, tube = orthogonal
    for text, expected in [("Balance(t) <= 1e-6", CertifiedOutcome.PROVED),
                           ("Balance(t) <= -1", CertifiedOutcome.DISPROVED)]:
        claim = statement_of(text).claim("for_all_t", None, float(run.t[-1]))
        cert = certify_claim(claim, run, tube=tube)
        assert cert.outcome is expected, (text, cert.reason)
