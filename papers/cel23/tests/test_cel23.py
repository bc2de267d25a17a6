"""CEL23 (a teacher neuron on correlated inputs): claims checked on exact gradient flows.

Every dynamic claim is checked on instances of ``cel23-correlated`` (d = n = 3, m = 6, every
angle(v*, x_i) < pi/4, so Assumption 1 and the pi/4 condition hold) at two scales:

- lam = 1e-30, small enough for the premises the lemmas chain (P18: T0 < T1/3 needs lam below
  about 1e-20 here) and still a float64 number: every claim must hold;
- lam = 4^-7, the paper's own experiments: rows ``[lam 4^-7]`` for the claims whose constants
  do not involve lam (the catalogue's "most informative" relaxed checks). The others are
  vacuous or have lost their premise there (P18, P27, L28 near T1, L28(viii)): the test
  asserts the premise fails as the catalogue predicts instead of recording a verdict.

Assumption 2 fails on every float64 instance (log10 lam_max is about -5e6 on these): each
verdict says "relaxed" with the numbers. Each run is simulated once per session (the
evidence cache); a mutant (a constant made wrong) must come back VIOLATED.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from papers.cel23 import claims as C
from papers.cel23.data import correlated
from papers.cel23.evidence import cel23_trajectory, limit_trajectory
from papers.cel23.families import SIZES
from papers.cel23.measures import structure
from theory.claim import Kind
from theory.symbols import PL, L, t
from verify import Outcome, check
from verify.engine.check_run import above_loss_floor
from verify.engine.evidence import claim_time
from verify.language.measures import instance_values
from verify.results.findings import Finding

SMALL_LAM = 1e-30
PAPER_LAM = 4.0**-7
QUICK_SEEDS = (1, 2)
FULL_SEEDS = (1, 2, 3, 4)

DYNAMIC = tuple(c for c in C.CLAIMS if c.checkable and c.kind is not Kind.LIMIT)
# constants free of lam (catalogue: the informative relaxed checks at the paper's scale)
LAM_FREE = (C.P17, C.BALANCE, C.BALANCE_LOWER, C.NORM_CONTROL, C.CROSSINGS, C.NEGATIVES, C.BALL,
            C.OVERSHOOT, C.BEFORE_T2, C.SECOND_PHASE, C.CONVERGENCE, C.CONVERGENCE_RATE)
# premises that fail at the paper's lam, as the catalogue says they do
PAPER_LAM_PREMISE_FAILS = (C.PHASE_ORDER, C.TEACHER_CONE)


def _seeds(profile) -> tuple[int, ...]:
    return tuple(SIZES[0].at_profile(profile.name)["seeds"])


def _run(lam: float, seed: int, rtol: float = 1e-10, profile=None):
    """The run of seed ``seed`` at ``lam`` (at ``profile``'s d and m: SIZES; d = 3, m = 6
    without one)."""
    at = SIZES[0].at_profile(profile.name) if profile is not None else {"d": 3, "m": 6}
    problem = correlated(d=at["d"], m=at["m"], lam=lam, scheme="centred", rejection="pi/4",
                         seed=seed)
    t1 = claim_time(C.AT_T1, problem, C.T1)  # L5 is stated at the instant T1
    return cel23_trajectory(problem, rtol=rtol, extra_times=(t1,))


# CrossingExcess (L3) compares each activation event's time with the yardstick's, to a bound
# lam^(3/4)-ish ~ 1e-22 that no float64 run resolves. At rtol 1e-10 the companion's event
# times can understate the error: seed 4 at lam = 1e-30, the first crossing of neuron 3 is
# 2.4e-12 from the exact yardstick (mpmath agrees with the closed form to 1e-16) while the
# companion difference is 6.1e-13, so the check read VIOLATED. At rtol 1e-13 the gap is 7e-15
# and the companion (rtol 1e-12) differs by 1.8e-13: INCONCLUSIVE, as it must be. L3 is
# therefore checked on the run at rtol 1e-13.
CROSSINGS_RTOL = 1e-13

# Outside Assumption 2 a lemma may fail: lam = 1e-30 is not "small enough" on every instance.
# Such a VIOLATED verdict (always relaxed, with A2's numbers) is a measured finding, recorded
# with its instance; these are the claims the full profile's seeds showed failing so.
RELAXED_FINDING = "CEL23-relaxed"


def _relaxed_finding(claim, verdict, lam: float, seed: int, verdicts, profile) -> None:
    _relaxed(verdict)
    at = SIZES[0].at_profile(profile.name)
    when = f" at t = {verdict.where.t:.4g}" if verdict.where.t is not None else ""
    verdicts.finding(Finding(
        RELAXED_FINDING, "Outside Assumption 2 (which no float64 lam meets), some of CEL23's "
        "lemmas fail on runs of the pi/4 family",
        f"{claim.id} at lam = {lam:.3g} on cel23-correlated d={at['d']} m={at['m']} "
        f"seed={seed}: VIOLATED, margin {verdict.margin:.3g} (error {verdict.error:.2g})"
        f"{when}.",
        claims=(claim.id.split("[")[0],),
        evidence={"claim": claim.id, "lam": lam, "seed": seed, "margin": verdict.margin,
                  "t": verdict.where.t}), kind=claim.kind.value)


# Near convergence these claims compare quantities that vanish with the residual
# g = H (v* - v): the angle between v and g (the set S), the rate d|v|^2/dt against
# 3 lam^(eps/3) |v|^2 |g| (L28b), and the overshoot order of nu_k/nu_k* - 1 (F28a). Measured on
# seed 2 at lam = 1e-30: at L/L(0) = 7e-11 the rate's error is 9.2e-9 against values of about
# 2e-8, and at L/L(0) = 2e-15 the overshoot order's error is 1.7e-8 against |r_k - 1| ~ 1e-7,
# so neither decides (the catalogue's own runs needed L >= 1e-20 at higher precision). They are
# checked while L(t)/L(0) >= 1e-9; the verdict states the window.
S_LOSS_FLOOR = 1e-9


FLOORED = (C.BUNDLE.id, C.BUNDLE_GROWTH.id, C.OVERSHOOT.id)


def _check(claim, tr):
    if claim.id.split("[")[0] in FLOORED:
        claim = above_loss_floor(claim, tr, S_LOSS_FLOOR)
    return check(claim, tr)


def _relaxed(verdict) -> None:
    assert "relaxed" in verdict.reason and "A2 fails" in verdict.reason, str(verdict)


def _needs_a2(claim) -> bool:
    return any(a.name == "A2" for a in claim.setting)


def _p18_inside_assumption_2(seed: int) -> float:
    """P18 (T0 < T1/3 with T1 = eps ln(1/lam)/|gamma_[n]|) at the largest lam Assumption 2
    allows: ln(1/lam) = -Log10LamMax ln 10, exact arithmetic on logs (T0 does not depend on
    lam). The margin T1/3 - T0 there."""
    inst = instance_values(_run(SMALL_LAM, seed).problem)
    log_inv_lam = -inst["Log10LamMax"] * math.log(10.0)
    return float(C.EPS) * log_inv_lam / (3 * inst["GammaN"]) - inst["T0"]


@pytest.mark.parametrize("claim", DYNAMIC, ids=lambda c: c.id)
def test_small_lam(claim, verdicts, verify_profile):
    for seed in _seeds(verify_profile):
        rtol = CROSSINGS_RTOL if claim is C.CROSSINGS else 1e-10
        verdict = _check(claim, _run(SMALL_LAM, seed, rtol, verify_profile))
        if _needs_a2(claim):
            _relaxed(verdict)
        if verdict.outcome is Outcome.VIOLATED and claim in (C.PHASE_ORDER, C.BEFORE_T2):
            if claim is C.PHASE_ORDER:  # inside Assumption 2 it holds, by arithmetic
                assert _p18_inside_assumption_2(seed) > 0, f"seed {seed}"
            _relaxed_finding(claim, verdict, SMALL_LAM, seed, verdicts, verify_profile)
            continue
        verdicts.record(verdict, claim.kind.value)
        # CrossingExcess's bound lam^(3/4) ~ 1e-22 is below the event times' accuracy
        allowed = {Outcome.HOLDS, Outcome.INCONCLUSIVE} if claim is C.CROSSINGS else {
            Outcome.HOLDS}
        assert verdict.outcome in allowed, f"seed {seed}: {verdict}"


def test_p18_holds_inside_assumption_2():
    """A check inside Assumption 2: P18 involves lam only through ln(1/lam), so it is
    evaluated exactly at A2's own lam (log10 lam = Log10LamMax, about -5e6 here), where
    float64 cannot hold lam itself. It holds on every seed of both profiles."""
    for seed in FULL_SEEDS:
        assert _p18_inside_assumption_2(seed) > 0, f"seed {seed}"


@pytest.mark.parametrize("claim", LAM_FREE, ids=lambda c: c.id)
def test_paper_lam(claim, verdicts, verify_profile):
    row = claim.at_setting("lam 4^-7")
    for seed in _seeds(verify_profile):
        verdict = _check(row, _run(PAPER_LAM, seed, profile=verify_profile))
        if verdict.outcome is Outcome.VIOLATED and claim is C.NEGATIVES:
            _relaxed_finding(row, verdict, PAPER_LAM, seed, verdicts, verify_profile)
            continue
        verdicts.record(verdict, claim.kind.value)
        assert verdict.outcome is Outcome.HOLDS, f"seed {seed}: {verdict}"


@pytest.mark.parametrize("claim", PAPER_LAM_PREMISE_FAILS, ids=lambda c: c.id)
def test_paper_lam_premise_fails(claim):
    """At lam = 4^-7 these statements are false on the run (P18: T0 >= T1/3; P27: its bound
    1/sqrt 2 + 2 lam^(1/8) = 0.88 exceeds what the bundle reaches right after T1): the
    catalogue's prediction, and why they are checked at lam = 1e-30."""
    verdict = check(claim, _run(PAPER_LAM, QUICK_SEEDS[0]))
    assert verdict.outcome is Outcome.VIOLATED, str(verdict)
    _relaxed(verdict)


def test_instances_meet_the_hypotheses_but_assumption_2():
    st = structure(_run(PAPER_LAM, QUICK_SEEDS[0]).problem)
    assert not st["a1"]
    assert 0 < st["delta"] <= 1 <= st["Delta"]
    assert st["T0"] >= 1.0


# -- mutants: constants made wrong ---------------------------------------------------------------
MUTANTS = {
    "CEL23-L32~pl-x10": C.SECOND_PHASE.variant(
        "pl-x10", statement=sp.Gt(PL(t), 10 * 2 * C.EtaMin * C.GammaN / (5 * C.EtaMax))),
    "CEL23-L32b~quarter": C.BEFORE_T2.variant(
        "quarter", statement=sp.Lt(C.NormV(t), sp.Rational(1, 4))),
    "CEL23-T6b~rate-eta1": C.CONVERGENCE_RATE.variant(
        "rate-eta1", statement=sp.Lt(L(t), C.DeltaA**2 / 2 * sp.exp(-(t - C.t_T2) * 2 * C.EtaMax))),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mutant_is_caught(mutant, verdicts):
    verdict = check(MUTANTS[mutant], _run(SMALL_LAM, QUICK_SEEDS[0]))
    caught = verdict.outcome is Outcome.VIOLATED
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {mutant} not caught: {verdict}"


# -- the limits (Theorem 7, Lemma 34, F7a/F7b/F35a) ------------------------------------------------
# lam -> 0 along a geometric sequence, each run read at its limit point (its end state polished
# by Newton's method, `verify.engine.limit_point`): the quick profile on seed 2 (the cheap one: its
# eta_d is 6 times seed 1's, so its runs are 7 times shorter), the full one on seeds 1 and 2 at
# half-decade steps. The last values (1e-11, 1e-14) are past where the distances to the limit
# fall below the runs' errors (about 0.028 lam against 1e-11 for the limit network): the
# sequence settles there, which decides a wrong claimed limit.
LIMIT_SEQUENCES = {
    "quick": {2: (1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8, 1e-11, 1e-14)},
    "full": {seed: tuple(10.0 ** -(k / 2) for k in range(4, 15)) + (1e-9, 1e-11, 1e-14)
             for seed in (1, 2)},
    "paper": {seed: tuple(10.0 ** -(k / 2) for k in range(4, 15)) + (1e-9, 1e-11, 1e-14)
              for seed in (1, 2)},
}
# the claims at fixed lam, at the paper's lam and at 1e-3 (below it F7a's bound >= 1 is met
# with a room of the order of lam^2, under the runs' accuracy)
FIXED_LAMS = (4.0**-7, 1e-3)
SEQUENCE_CLAIMS = (C.RANK_ONE, C.LIMIT_NETWORK, C.RATIOS)
FIXED_LAM_CLAIMS = (C.FIXED_LAM, C.PLATEAU_ANGLES)


def _sequences(profile) -> dict:
    return LIMIT_SEQUENCES.get(profile.name, LIMIT_SEQUENCES["full"])


def _limit_run(lam: float, seed: int):
    problem = correlated(d=3, m=6, lam=lam, scheme="centred", rejection="pi/4", seed=seed)
    t1 = claim_time(C.AT_T1, problem, C.T1)  # L34's first part is read at T1
    return limit_trajectory(problem, extra_times=(t1,))


def _limit_runs(seed: int, lams) -> list:
    return [_limit_run(lam, seed) for lam in lams]


@pytest.mark.parametrize("claim", SEQUENCE_CLAIMS, ids=lambda c: c.id)
def test_lam_to_zero(claim, verdicts, verify_profile):
    """Theorem 7, Lemma 34 and the limit network F7b as limits lam -> 0: HOLDS, with the
    fitted exponent of each distance to its claimed limit and its band in the verdict."""
    for seed, lams in _sequences(verify_profile).items():
        verdict = verdicts.record(check(claim, _limit_runs(seed, lams)), claim.kind.value)
        assert verdict.outcome is Outcome.HOLDS, f"seed {seed}: {verdict}"
        _relaxed(verdict)


def test_limit_network_closed_form(verify_profile):
    """The acceptance's closed form: the share of the norm of F7b's top neuron tends to
    C_j*/|C| from the yardsticks (exact), the distance like lam^1 (measured 0.028 lam); the
    same claim 1% off is VIOLATED (the limit's band, settled or extrapolated, is the closed
    form's value to 1e-8)."""
    seed, lams = next(iter(_sequences(verify_profile).items()))
    runs = _limit_runs(seed, lams)
    part = sp.Eq(sp.Limit(sp.Limit(C.NormShareTop(t), t, sp.oo), C.lam, 0), C.CShareTop)
    exact = check(C.LIMIT_NETWORK.variant("top", statement=part), runs)
    assert exact.outcome is Outcome.HOLDS, str(exact)
    assert exact.band[0] > 0.9 and exact.band[1] < 1.1, exact.band  # |gap| ~ lam
    off = check(C.LIMIT_NETWORK.variant("1%", statement=part.func(part.lhs, 1.01 * part.rhs)),
                runs)
    assert off.outcome is Outcome.VIOLATED, str(off)


@pytest.mark.parametrize("claim", FIXED_LAM_CLAIMS, ids=lambda c: c.id)
def test_fixed_lam_limits(claim, verdicts, verify_profile):
    """F7a and F35a: t -> infinity at fixed lam, on each run's limit point (HOLDS, or for
    F7a's lower bound met with equality INCONCLUSIVE within the run's error)."""
    for seed in _sequences(verify_profile):
        for lam in FIXED_LAMS:
            verdict = verdicts.record(check(claim, _limit_run(lam, seed)), claim.kind.value)
            assert verdict.method == "limit point"
            if verdict.outcome is Outcome.INCONCLUSIVE and claim is C.FIXED_LAM:
                # F7a's lower bound sum_{J_+} |w_j|^2 >= 1 is attained when the neurons of
                # J_+ are parallel (one of them active: seed 1 of the full profile, margin
                # 1.2e-11 against an error of 3.4e-11): no float run decides a bound met
                # with equality, and the row says INCONCLUSIVE, never HOLDS
                assert 0 <= verdict.margin <= verdict.error, f"seed {seed}: {verdict}"
                continue
            assert verdict.outcome is Outcome.HOLDS, f"seed {seed} lam {lam:.3g}: {verdict}"


def _fitted(claim, name: str):
    return {**claim.parameters, name: None}


C_FIT = sp.Symbol("c_fit", positive=True)
LIMIT_MUTANTS = {
    # a wrong limit value
    "CEL23-F7b~1%-off": lambda: C.LIMIT_NETWORK.variant("1%-off", statement=sp.And(
        sp.Eq(sp.Limit(sp.Limit(C.NormShareTop(t), t, sp.oo), C.lam, 0), 1.01 * C.CShareTop),
        sp.Eq(sp.Limit(sp.Limit(C.LimitNetGap(t), t, sp.oo), C.lam, 0), 0))),
    "CEL23-T7~angle-0.01": lambda: C.RANK_ONE.variant("angle-0.01", statement=sp.Eq(
        sp.Limit(sp.Limit(C.MaxActiveAngle(t), t, sp.oo), C.lam, 0), sp.Rational(1, 100))),
    "CEL23-L34~gap-1e-3": lambda: C.RATIOS.variant("gap-1e-3", statement=sp.Eq(
        sp.Limit(C.LimitNetGap(t), C.lam, 0), sp.Rational(1, 1000))),
    # a wrong exponent sign: the angle growing as lam -> 0
    "CEL23-T7~angle-grows": lambda: C.RANK_ONE.variant("angle-grows", statement=sp.Ge(
        sp.Limit(C.MaxActiveAngle(t), t, sp.oo), C_FIT * C.lam ** sp.Rational(-1, 4)),
        parameters=_fitted(C.RANK_ONE, "c_fit")),
    # a wrong rate: the limit network reached like lam^2 (it is lam^1)
    "CEL23-F7b~rate-lam^2": lambda: C.LIMIT_NETWORK.variant("rate-lam^2", statement=sp.Le(
        sp.Limit(C.LimitNetGap(t), t, sp.oo), C_FIT * C.lam**2),
        parameters=_fitted(C.LIMIT_NETWORK, "c_fit")),
}
FIXED_LAM_MUTANTS = {
    "CEL23-F7a~below-1": lambda: C.FIXED_LAM.variant("below-1", statement=sp.Lt(
        sp.Limit(C.NormWPlusSq(t), t, sp.oo), 1)),
    "CEL23-F35a~angle-0": lambda: C.PLATEAU_ANGLES.variant("angle-0", statement=sp.Eq(
        sp.Limit(C.MaxActiveAngle(t), t, sp.oo), 0)),
}


@pytest.mark.parametrize("mutant", sorted(LIMIT_MUTANTS))
def test_limit_mutant_is_caught(mutant, verdicts, verify_profile):
    claim = LIMIT_MUTANTS[mutant]()
    assert claim.id == mutant
    seed, lams = next(iter(_sequences(verify_profile).items()))
    verdict = check(claim, _limit_runs(seed, lams))
    caught = verdict.outcome is Outcome.VIOLATED
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {mutant} not caught: {verdict}"


@pytest.mark.parametrize("mutant", sorted(FIXED_LAM_MUTANTS))
def test_fixed_lam_mutant_is_caught(mutant, verdicts, verify_profile):
    """Each fixed-lam mutant on every seed of the profile, at the paper's lam: caught when
    one of them is VIOLATED. (On seed 1 of the full profile F7a's bound >= 1 is met with
    equality, so ``< 1`` is INCONCLUSIVE there within the run's error, never decided; the
    other seed decides it.)"""
    claim = FIXED_LAM_MUTANTS[mutant]()
    assert claim.id == mutant
    verdicts_by_seed = [check(claim, _limit_run(FIXED_LAMS[0], seed))
                        for seed in _sequences(verify_profile)]
    violated = [v for v in verdicts_by_seed if v.outcome is Outcome.VIOLATED]
    verdict = violated[0] if violated else verdicts_by_seed[0]
    caught = bool(violated)
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {mutant} not caught: {verdict}"
