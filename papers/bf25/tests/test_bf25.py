"""BF25 (early alignment is a two-edged sword): claims checked on exact gradient flows.

Instances (quick profile; the full profile adds seeds):

- the section 5 data (`papers.bf25.families.SECTION5`) at the paper's lam = 1e-3 with
  m = 40 neurons (the paper ran 200,000; Theorem 2 holds for every m): Theorem 1, Lemma 4
  and the derived facts apply there (Assumption 4 holds), Theorem 2 does not (Assumption
  3 fails: y_3 = 0.8 < 1), and BF25-F2c carries its conclusion to such data;
- draws of Assumption 3's box (`papers.bf25.families.ASSUMPTION3`, eta = 0.15, m = 20,
  lam = 1e-5: Theorem 1's threshold lambda*_1 is about 7e-4 at the median draw, so the
  paper's 1e-3 is above it on most), where every claim applies;
- the same instances started dominated (a_j = 1.5 s_j |w_j|) for Theorem 1's
  |w_j| <= |a_j|, an equality on a balanced start that float64 cannot decide.

Each run is simulated once per session (`verify.engine.evidence`'s cache). Limits (Theorem 2,
Lemma 7) are read by `papers.bf25.measures.limit_estimate` at the end of runs that go 40
time constants past the escape (`papers.bf25.evidence.horizon`). Two findings are
measured and recorded (Lemma 8's Assumption 5 fails inside the box; Theorem 2 needs a
positive neuron active at t = 0), and every mutant must come back VIOLATED.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from numerics.model import reinitialise
from papers.bf25 import claims as C
from papers.bf25 import data
from papers.bf25.evidence import bf25_trajectory
from papers.bf25.families import ASSUMPTION3, SECTION5, SIZES
from papers.bf25.measures import LIMIT_OF, limit_estimate, live_positive
from theory.symbols import L, NormSumDrift, Xmax, eps, t
from verify import Outcome, check
from verify.engine.check_run import inapplicable_problem
from verify.engine.evidence import Sample, claim_time
from verify.engine.run_context import RunContext, in_claim_convention
from verify.language.measures import instance_values
from verify.results.findings import Finding

A3_PARAMS = {"m": 20, "eta": 0.15, "lam": 1e-5}
EPS_TENTH = sp.Rational(1, 10)
FLOWS, EMPTY_I = SIZES  # papers/bf25/families.py: the sizes per profile


def _seeds(profile, which: str) -> tuple[int, ...]:
    return tuple(FLOWS.at_profile(profile.name)[which])


def _section5(seed: int, init: str = "balanced", m: int = 40):
    problem = SECTION5.make({"m": m, "lam": data.PAPER_LAM, "seed": seed})
    return problem if init == "balanced" else reinitialise(problem, init, seed)


def _assumption3(seed: int, init: str = "balanced", m: int = 20):
    coords = "box" if seed % 2 else "bias"  # both readings of Assumption 3
    problem = ASSUMPTION3.make({**A3_PARAMS, "m": m, "coords": coords, "seed": seed})
    return problem if init == "balanced" else reinitialise(problem, init, seed)


def _run(problem):
    """The flow up to the horizon, saved also at tau (eps = 1/4 and 1/10)."""
    taus = [claim_time(claim, problem, C.tau) for claim in
            (C.PHASE_1, C.PHASE_1.with_parameters(eps=EPS_TENTH))]
    return bf25_trajectory(problem, extra_times=taus)


def _instances(profile, init: str = "balanced"):
    at = FLOWS.at_profile(profile.name)
    return ([_section5(s, init, at["m"]) for s in _seeds(profile, "section5")]
            + [_assumption3(s, init, at["m_a3"]) for s in _seeds(profile, "assumption3")])


def _evidence(claim, tr):
    """A run, or its limit estimate for a claim stated at t -> infinity."""
    names = {s.name for s in claim.statement.free_symbols} & LIMIT_OF.keys()
    return limit_estimate(tr, names.pop()) if names else tr


def _check(claim, tr):
    return check(claim, _evidence(claim, tr))


def _applies(verdict) -> bool:
    return verdict.outcome is not Outcome.INAPPLICABLE


# -- the checkable claims on balanced starts ---------------------------------------------------
BALANCED_CLAIMS = tuple(c for c in C.CLAIMS if c.checkable
                        and c.kind.name not in ("PROBABILITY", "LIMIT")
                        and c is not C.NORM_DOMINATION)
# where each claim must apply (the others are INAPPLICABLE there by their hypotheses)
SECTION5_ONLY_INAPPLICABLE = {c.id for c in (C.LEMMA_8, C.SPURIOUS, C.SPURIOUS_LOSS, C.PHASE_3,
                                             C.PHASE_3_CONES, C.PHASE_3_BUNDLE)}
EPS_ROWS = (C.NORM_SANDWICH, C.PHASE_1)  # also checked at eps = 1/10


@pytest.mark.parametrize("claim", BALANCED_CLAIMS, ids=lambda c: c.id)
def test_balanced_instances(claim, verdicts, verify_profile):
    for problem in _instances(verify_profile):
        verdict = _check(claim, _run(problem))
        on_section5 = problem.meta.get("generator") == "bf25.section5"
        if on_section5 and claim.id in SECTION5_ONLY_INAPPLICABLE:
            assert verdict.outcome is Outcome.INAPPLICABLE, str(verdict)
            assert "A3 with eta < 1/6 fails" in verdict.reason
            continue
        verdicts.record(verdict, claim.kind.value)
        assert verdict.outcome is Outcome.HOLDS, f"{problem.describe()}: {verdict}"


@pytest.mark.parametrize("claim", EPS_ROWS, ids=lambda c: c.id)
def test_other_eps(claim, verdicts, verify_profile):
    """Theorem 1 and Lemma 4 hold for every eps in (0, 1/3): the row [eps 1/10]."""
    row = claim.with_parameters(eps=EPS_TENTH).at_setting("eps 1/10")
    for problem in _instances(verify_profile):
        verdict = verdicts.record(_check(row, _run(problem)), claim.kind.value)
        assert verdict.outcome is Outcome.HOLDS, f"{problem.describe()}: {verdict}"


def test_domination_on_dominated_starts(verdicts, verify_profile):
    """|w_j| <= |a_j| up to tau (Theorem 1 (i)): decided on a dominated start (margin about
    1/3); on a balanced one it is the equality of Lemma 1, which float64 resolves only as
    an equality (INCONCLUSIVE as an inequality, every time named)."""
    for problem in _instances(verify_profile, "dominated:1.5"):
        tr = _run(problem)
        for claim in (C.NORM_DOMINATION, C.NORM_SANDWICH, C.BALANCEDNESS):
            verdict = verdicts.record(check(claim, tr), claim.kind.value)
            assert verdict.outcome is Outcome.HOLDS, f"{problem.describe()}: {verdict}"
    balanced = check(C.NORM_DOMINATION, _run(_section5(0)))
    assert balanced.outcome is Outcome.INCONCLUSIVE and "resolution" in balanced.reason


def test_instances_are_where_the_pack_says():
    """The section 5 data meet Assumptions 4 and 6 but not 3 or 5; the box draws meet 3."""
    s5 = instance_values(_section5(0))
    assert s5["A4Holds"] == 1 and s5["A6Margin"] > 0 and s5["A5Margin"] < 0
    assert not np.isfinite(s5["A3Eta"])
    a3 = instance_values(_assumption3(0))
    assert a3["A3Eta"] < 1 / 6 and a3["LamEff"] < a3["LamStarBase"]


# -- F2e: the probability that I is empty --------------------------------------------------------
def test_no_live_positive_probability(verdicts, verify_profile):
    """P(I empty) = ((1 + q)/2)^m on the section 5 data with m = 3 (a Monte Carlo sample of
    Eq. (3)'s draw; q = 0.378 there)."""
    count = EMPTY_I.at_profile(verify_profile.name)["count"]
    sample = Sample([data.section5(m=3, seed=s) for s in range(count)],
                    description=f"{count} draws of Eq. (3), m = 3, section 5 data")
    verdict = verdicts.record(check(C.NO_LIVE_POSITIVE, sample), C.NO_LIVE_POSITIVE.kind.value)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)


# -- findings ------------------------------------------------------------------------------------
# A draw of the box (eta = 0.15, coords box, seed 35: A3Eta = 0.136) where Assumption 5 fails
# for the third point; seeds 0-399 at eta = 0.15 give 9 such draws (coords box), at eta =
# 0.166 22 (box) and 1 (bias: seed 126).
LEMMA8_DRAWS = ({"eta": 0.15, "coords": "box", "seed": 35},
                {"eta": 0.166, "coords": "bias", "seed": 126})


@pytest.mark.parametrize("draw", LEMMA8_DRAWS, ids=lambda d: f"{d['coords']}-{d['seed']}")
def test_lemma8_assumption5_fails_inside_the_box(draw, verdicts):
    """Finding BF25-L8-A5: Lemma 8 says Assumption 3 with eta < 1/6 implies Assumption 5; on
    these draws of the box it does not, although Theorem 2's conclusion still holds there."""
    problem = ASSUMPTION3.make({**A3_PARAMS, **draw})
    tr = _run(problem)
    verdict = check(C.LEMMA_8, tr)
    assert verdict.outcome is Outcome.VIOLATED, f"finding no longer reproduces: {verdict}"
    theorem = _check(C.SPURIOUS, tr)
    assert theorem.outcome is Outcome.HOLDS, str(theorem)
    inst = instance_values(problem)
    X, y = problem.X, problem.y
    verdicts.finding(Finding(
        "BF25-L8-A5",
        "BF25's Lemma 8 fails: Assumption 3 with eta < 1/6 does not imply Assumption 5",
        f"Three points in Assumption 3's box (A3Eta = {inst['A3Eta']:.4g} < 1/6; x~ = "
        f"{np.round(X, 4).tolist()}, y = {np.round(y, 4).tolist()}): Assumption 5's margin "
        f"min_k y_k |x_k|^2 - |y| (sum_k' <x_k', x_k>^2)^(1/2) over K is "
        f"{inst['A5Margin']:.3g} < 0. The proof (p. 29) bounds the left side by "
        "(1 + (1 - eta)^2)^2 instead of 1 + (1 - eta)^2 and |y|^2 by eta^2 + (1 + eta)^2, "
        f"missing a label near 1. Theorem 2's conclusion still holds on this draw (OLS gap "
        f"at the limit {theorem.observed:.2g} +- {theorem.error:.2g}, m = {problem.p}, "
        f"lam = {problem.init_scale:g}).",
        claims=(C.LEMMA_8.id, C.SPURIOUS.id),
        evidence={"draw": draw, "A3Eta": inst["A3Eta"], "A5Margin": inst["A5Margin"],
                  "X": X.tolist(), "y": y.tolist(), "ols_gap": theorem.observed}),
        verdict=verdict, kind=C.LEMMA_8.kind.value)


def test_theorem2_needs_a_live_positive_neuron(verdicts):
    """Finding BF25-T2-empty-I: Theorem 2 is stated 'for any m'; when no positive neuron is
    active on a sample at t = 0 (probability ((1 + q)/2)^m, BF25-F2e) the network never
    leaves 0 and the limit is not the OLS fit. Checked on a box draw with m = 2 whose I is
    empty, as the theorem states it (without the pack's I_NONEMPTY)."""
    problem = ASSUMPTION3.make({**A3_PARAMS, "m": 2, "eta": 0.1, "coords": "bias", "seed": 1})
    assert not live_positive(problem).any()
    as_stated = replace(C.SPURIOUS.at_setting("as stated"),
                        setting=tuple(a for a in C.SPURIOUS.setting if a is not C.I_NONEMPTY))
    tr = _run(problem)
    verdict = check(as_stated, _evidence(as_stated, tr))
    assert verdict.outcome is Outcome.VIOLATED, str(verdict)
    assert check(C.SPURIOUS, _evidence(C.SPURIOUS, tr)).outcome is Outcome.INAPPLICABLE
    q = instance_values(problem)["DeadConeFrac"]
    verdicts.finding(Finding(
        "BF25-T2-empty-I", "BF25's Theorem 2 needs a positive neuron active at t = 0 (it says 'for "
        "any m')",
        f"Assumption 3 draw (eta = 0.1, coords bias, seed 1), m = 2, lam = 1e-5: no positive "
        f"neuron is active on a sample at t = 0 (I is empty; probability ((1 + q)/2)^m = "
        f"{((1 + q) / 2) ** 2:.3g} at q = {q:.3f}). The limit's largest gap to the OLS "
        f"predictions is {verdict.observed:.3g} +- {verdict.error:.2g} (the network stays "
        f"at 0: L goes from {tr.loss[0]:.4g} to {tr.loss[-1]:.4g}, L_LS = "
        f"{instance_values(problem)['LossLS']:.4g}). The proof's phase 2 grows the neurons "
        "of I, so the statement holds for draws with I non-empty (the pack's I_NONEMPTY), "
        "which have probability 1 - ((1 + q)/2)^m.",
        claims=(C.SPURIOUS.id,), evidence={"m": 2, "seed": 1, "q": q,
                                           "ols_gap": verdict.observed}),
        verdict=verdict, kind=C.SPURIOUS.kind.value)


# -- mutants: deliberately wrong variants that the checks must catch ---------------------------
LE = C.LamEff
MUTANTS = {
    "BF25-T1~exp/4": C.NORM_SANDWICH.variant("exp/4", statement=sp.And(
        sp.Le(C.AGrowthMax(t), LE ** (-eps / 2)), sp.Ge(C.AGrowthMin(t), LE ** (2 * eps)))),
    "BF25-T1~window-x3": C.NORM_SANDWICH.variant("window-x3", window=(sp.Integer(0), 3 * C.tau)),
    "BF25-T1b~0.9": C.NORM_DOMINATION.variant(
        "0.9", statement=sp.Le(C.NormOverOut(t), sp.Rational(9, 10))),
    "BF25-L1~sum-of-squares": C.BALANCEDNESS.variant(
        "sum-of-squares", statement=sp.Eq(NormSumDrift(t), 0)),
    "BF25-F1c~rate/2": C.ENVELOPE.variant(
        "rate/2", statement=sp.Le(C.NormLogGrowth(t), Xmax * sp.sqrt(2 * L(0)) * t / 2)),
    "BF25-L4~shrinks": C.PHASE_1.variant("shrinks", statement=sp.Le(C.PosGrowthMax(t), 1)),
    "BF25-F2b~negatives-descend": C.ESCAPE.variant(
        "negatives-descend", statement=sp.Ge(C.NumDescentMinus, 1)),
    "BF25-F1e~two": C.SINGLE_EXTREMAL.variant("two", statement=sp.Eq(C.NumExtremal, 2)),
    "BF25-T2b~interpolates": C.SPURIOUS_LOSS.variant(
        "interpolates", statement=sp.Eq(C.LossInf, 0)),
    # Eq. (6) claimed for the flow of 2L (the authors' torch MSELoss, no 1/2): a claim
    # written in the wrong loss convention (theory.Claim.loss_scale), A1 dropped
    "BF25-D1~2L-flow": C.LAYER_ODES.variant("2L-flow", setting=(), loss_scale=2.0),
    # the OLS point claimed a zero-loss point (it is a spurious stationary point, L_LS > 0)
    "BF25-F2a~interpolates": C.OLS_STATIONARY.variant(
        "interpolates", statement=sp.Eq(C.LossLS, 0)),
}


def _mutant_instance(mutant: str):
    if mutant == "BF25-D1~2L-flow":
        return replace(_section5(0), loss_scale=2.0)
    if mutant == "BF25-T2b~interpolates":
        return _assumption3(0)
    return _section5(0)


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_mutant_is_caught(mutant, verdicts):
    claim = MUTANTS[mutant]
    verdict = _check(claim, _run(_mutant_instance(mutant)))
    caught = verdict.outcome is Outcome.VIOLATED
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {mutant} not caught: {verdict}"


# -- the rates and limits as lam -> 0 (Theorem 1 (ii), Lemma 4 (1), Theorem 4, F1d, F3) ----------
# Runs along lam decreasing geometrically on one instance draw (the same data and shapes):
# the O(lam^eps) of Theorem 1 (ii) and Lemma 4 (1) and F1d's early phase need the run up to
# tau only; Theorem 4 and F3 read each run at its limit point (`verify.engine.limit_point`).
RATE_LAMS = {"quick": tuple(10.0**-k for k in range(4, 13)),
             "full": tuple(10.0 ** -(k / 2) for k in range(8, 27)),
             "paper": tuple(10.0 ** -(k / 2) for k in range(8, 27))}
LIMIT_LAMS = {"quick": (1e-3, 1e-4, 1e-5, 1e-6, 1e-8, 1e-10, 1e-12),
              "full": tuple(10.0 ** -(k / 2) for k in range(6, 17)) + (1e-10, 1e-12),
              "paper": tuple(10.0 ** -(k / 2) for k in range(6, 17)) + (1e-10, 1e-12)}
# the instance draws: the section 5 data and box draws where Assumption 5 holds (Theorem 4)
SEQUENCE_DRAWS = {"quick": ("section5", 0), "full": ("section5", 1)}
BOX_SEEDS = {"quick": (0,), "full": (0, 2, 3)}
RATE_CLAIMS = (C.ALIGNMENT, C.PHASE_1_ALIGN, C.GROWTH_RATE)
LIMIT_CLAIMS = (C.THEOREM_4, C.SPARSITY)


def _profile_key(profile) -> str:
    return "quick" if profile.name == "quick" else "full"


def _at_lam(problem, lam: float):
    """The same draw (data, shapes z_j, signs) at the scale lam."""
    scale = lam / problem.init_scale
    return problem.with_initialisation(problem.W0 * scale, problem.a0 * scale, init_scale=lam,
                                       meta={**problem.meta, "lam": lam})


def _to_tau(problem):
    tau = claim_time(C.PHASE_1, problem, C.tau)
    return bf25_trajectory(problem, points=201, rtol=1e-12, extra_times=(tau,),
                           t_end=1.05 * tau)


def _rate_draws(profile) -> list:
    key = _profile_key(profile)
    draws = [_section5(s) for s in range(SEQUENCE_DRAWS[key][1] + 1)]
    return draws + [_assumption3(s) for s in BOX_SEEDS[key]]


def _below_threshold(claim, runs: list) -> list:
    """The runs of a lam -> 0 sequence (lam decreasing) from the first whose instance meets
    the claim's hypotheses: Theorem 1's lam < lambda*_1 (Eq. (21)) is a threshold of each
    draw, and a box draw may put it below the sequence's first lam (seed 2 of the full
    profile: LamEff 2.2e-4 at lam = 1e-5 against 2.0e-4). Only the largest lams may fail it,
    and at least five runs must remain."""
    unmet = []
    for run in runs:
        tr = in_claim_convention(claim, run)
        unmet.append(inapplicable_problem(claim, RunContext(claim, tr), tr.problem))
    first = next((i for i, why in enumerate(unmet) if why is None), len(runs))
    assert all(why is None for why in unmet[first:]), unmet
    assert len(runs) - first >= 5, unmet
    return runs[first:]


@pytest.mark.parametrize("claim", RATE_CLAIMS, ids=lambda c: c.id)
def test_rates_as_lam_vanishes(claim, verdicts, verify_profile):
    """O(lam^eps) without a constant: the fitted exponent of the alignment defect at tau
    (measured 0.496 on the section 5 data, 2 eps as derived) against eps; F1d's excess over
    D_max t up to tau vanishing with h."""
    lams = RATE_LAMS[_profile_key(verify_profile)]
    for base in _rate_draws(verify_profile):
        runs = _below_threshold(claim, [_to_tau(_at_lam(base, lam)) for lam in lams])
        verdict = verdicts.record(check(claim, runs), claim.kind.value)
        assert verdict.outcome is Outcome.HOLDS, f"{base.describe()}: {verdict}"


def _limit_sequence(seed: int, lams) -> list:
    base = _assumption3(seed)
    return [bf25_trajectory(_at_lam(base, lam), points=1001, rtol=1e-12) for lam in lams]


@pytest.mark.parametrize("claim", LIMIT_CLAIMS, ids=lambda c: c.id)
def test_limits_as_lam_vanishes(claim, verdicts, verify_profile):
    """Theorem 4 (the limit function tends to <beta*, x>_+ on the whole circle, the exponent
    about 1) and F3 (one direction, the spread like lam^1.0000) on box draws."""
    key = _profile_key(verify_profile)
    for seed in BOX_SEEDS[key]:
        verdict = verdicts.record(check(claim, _limit_sequence(seed, LIMIT_LAMS[key])),
                                  claim.kind.value)
        assert verdict.outcome is Outcome.HOLDS, f"seed {seed}: {verdict}"


C_FIT = sp.Symbol("c_fit", positive=True)
RATE_MUTANTS = {
    # a wrong rate: aligned like lam^(4 eps) = lam (the defect goes like lam^(2 eps))
    "BF25-T1c~rate-4eps": lambda: C.ALIGNMENT.variant("rate-4eps", statement=sp.Le(
        C.DStarDefect(t), C.c_hi * LE ** (4 * eps))),
    # a wrong exponent sign: the defect growing as lam -> 0
    "BF25-L4c~grows": lambda: C.PHASE_1_ALIGN.variant("grows", statement=sp.Ge(
        C.DStarDefect(t), C.c_hi * LE ** (-eps))),
    # a wrong rate: the norms growing at D_max/2 (the excess then grows like ln(1/lam))
    "BF25-F1d~rate-Dmax/2": lambda: C.GROWTH_RATE.variant("rate-Dmax/2", statement=sp.Eq(
        sp.Limit(sp.Max(C.NormLogGrowth(t) - C.Dmax * t / 2, 0), C.lam, 0), 0)),
}
LIMIT_MUTANTS = {
    # wrong limit values
    "BF25-T4~gap-0.01": lambda: C.THEOREM_4.variant("gap-0.01", statement=sp.Eq(
        sp.Limit(sp.Limit(C.ReluGap(t), t, sp.oo), C.lam, 0), sp.Rational(1, 100))),
    "BF25-F3~spread-0.1": lambda: C.SPARSITY.variant("spread-0.1", statement=sp.Eq(
        sp.Limit(sp.Limit(C.DirectionSpread(t), t, sp.oo), C.lam, 0), sp.Rational(1, 10))),
}


@pytest.mark.parametrize("mutant", sorted(RATE_MUTANTS))
def test_rate_mutant_is_caught(mutant, verdicts, verify_profile):
    claim = RATE_MUTANTS[mutant]()
    assert claim.id == mutant
    lams = RATE_LAMS[_profile_key(verify_profile)]
    verdict = check(claim, [_to_tau(_at_lam(_section5(0), lam)) for lam in lams])
    caught = verdict.outcome is Outcome.VIOLATED
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {mutant} not caught: {verdict}"


@pytest.mark.parametrize("mutant", sorted(LIMIT_MUTANTS))
def test_limit_mutant_is_caught(mutant, verdicts, verify_profile):
    claim = LIMIT_MUTANTS[mutant]()
    assert claim.id == mutant
    key = _profile_key(verify_profile)
    verdict = check(claim, _limit_sequence(BOX_SEEDS[key][0], LIMIT_LAMS[key]))
    caught = verdict.outcome is Outcome.VIOLATED
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {mutant} not caught: {verdict}"


def test_polished_limit_is_the_ols_point():
    """The limit of a box draw, polished by Newton's method: |grad L| at rounding, a minimum
    of its activation pattern that is degenerate (the all-active neurons share v = beta*), and
    the loss L_LS to 1e-12, with the gradient's start at the run's end above it."""
    from verify.engine.limit_point import polished_limit

    limit = polished_limit(_run(_assumption3(0)))
    point = limit.point
    assert point.gradient_norm < 1e-14 < point.start_gradient_norm
    assert point.kind == "degenerate" and point.negative == 0
    assert abs(point.loss - instance_values(limit.run.problem)["LossLS"]) < 1e-12
