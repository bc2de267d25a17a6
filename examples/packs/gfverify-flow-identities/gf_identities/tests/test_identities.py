"""The pack's verification tests: run by ``pytest verify`` with gfverify's own (the pack is
installed), their verdicts in the same table through the ``verdicts`` fixture."""

from functools import cache

import pytest
import sympy as sp

from gf_identities.claims import CLAIMS, PathEnergy
from gf_identities.families import flow
from theory.symbols import L, ParamDrift, kappa, t
from verify import Outcome, check
from verify.running.profiles import per_profile

BY_ID = {c.id: c for c in CLAIMS}


@cache
def run(seed: int, n: int = 6, d: int = 4, p: int = 8, scale: float = 0.5):
    return flow(n=n, d=d, p=p, scale=scale, seed=seed)


# (n, d, p, scale) and seeds per profile (every profile: `per_profile` refuses a table
# without one); the paper profile 10 times the sizes
SIZES = {"quick": [(6, 4, 8, 0.5), (10, 3, 12, 0.2)],
         "full": [(6, 4, 8, 0.5), (10, 3, 12, 0.2)],
         "paper": [(60, 40, 80, 0.5), (100, 30, 120, 0.2)]}
SEEDS = {"quick": 3, "full": 12, "paper": 3}


def runs(profile):
    seeds = range(per_profile(SEEDS, profile.name, "seeds"))
    return [run(s, *size) for s in seeds for size in per_profile(SIZES, profile.name, "sizes")]


@pytest.mark.parametrize("cid", sorted(BY_ID))
def test_claim_holds_on_the_family(cid, verdicts, verify_profile):
    claim = BY_ID[cid]
    verdict = check(claim, runs(verify_profile))
    verdicts.record(verdict, claim.kind.value)
    assert verdict.outcome is Outcome.HOLDS, str(verdict)


@pytest.mark.parametrize("label, cid, statement", [
    ("2x", "GF-1", sp.Eq(L(0) - L(t), 2 * PathEnergy(t))),
    ("quarter", "GF-3", sp.Le(ParamDrift(t) ** 2, kappa * t * (L(0) - L(t)) / 4)),
])
def test_mutant_is_rejected(label, cid, statement, verdicts):
    mutant = BY_ID[cid].variant(label, statement=statement)
    verdict = check(mutant, run(0))
    caught = verdict.outcome is Outcome.VIOLATED
    verdicts.record_mutant(verdict, caught)
    assert caught, f"mutant {mutant.id} not caught: {verdict}"
