"""CEL23's data facts that are not verdict rows (catalogue CEL23-F0a, CEL23-F0b), sampled,
and the generator's contract (schemes, rejection, seeds, bad input)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from numerics.problem import ProblemError
from papers.cel23 import data
from papers.cel23.yardstick import sets


def _angle(u: np.ndarray, v: np.ndarray) -> float:
    c = float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
    return math.acos(max(-1.0, min(1.0, c)))


@pytest.mark.parametrize("d", [2, 3, 5])
def test_f0a_pi4_to_the_teacher_gives_pairwise_angles_below_pi2(d):
    """CEL23-F0a (i): inputs within pi/4 of v* are pairwise within pi/2 (triangle
    inequality for angles), on draws that sit close to the pi/4 limit."""
    rng = np.random.default_rng(d)
    worst = 0.0
    for _ in range(400):
        vstar = rng.standard_normal(d)
        X = []
        while len(X) < 2:
            x = vstar + rng.standard_normal(d) * np.linalg.norm(vstar)
            if _angle(x, vstar) < math.pi / 4:
                X.append(x)
        worst = max(worst, _angle(X[0], X[1]))
    assert 1.2 < worst < math.pi / 2  # the sample comes near the bound and stays below it


def test_f0a_small_offsets_stay_within_pi4():
    """CEL23-F0a (ii): x = v* + e with |e| < |v*|/sqrt 2 is within pi/4 of v*."""
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(5000):
        d = int(rng.integers(2, 8))
        vstar = rng.standard_normal(d)
        e = rng.standard_normal(d)
        e *= rng.uniform(0.0, 1.0) * np.linalg.norm(vstar) / math.sqrt(2) / np.linalg.norm(e)
        worst = max(worst, _angle(vstar + e, vstar))
    assert 0.7 < worst < math.pi / 4


@pytest.mark.parametrize("m", [1, 2, 4])
def test_f0b_some_positive_neuron_with_probability_at_least_1_minus_3_4_to_the_m(m):
    """CEL23-F0b: P(J_+ non-empty) >= 1 - (3/4)^m under the pi/4 condition. 2000 draws of
    the paper's initialisation on one instance: the estimate must not fall below the bound
    by more than 4 standard errors."""
    rng = np.random.default_rng(100 + m)
    X, _ = data.draw_data(3, "centred", "pi/4", rng)
    draws = 2000
    hits = sum(len(sets(X, *_init(X, m, rng))[0]) > 0 for _ in range(draws))
    bound = 1 - 0.75**m
    se = math.sqrt(bound * (1 - bound) / draws)
    assert hits / draws >= bound - 4 * se, (hits / draws, bound)


def _init(X, m, rng):
    Z, _, a0 = data.small_init(X, m, 1.0, rng)
    return Z, np.sign(a0)


@pytest.mark.parametrize("scheme", data.SCHEMES)
def test_generator_meets_its_rejection_rule_and_repeats_by_seed(scheme):
    p = data.correlated(d=3, m=4, lam=1e-6, scheme=scheme, rejection="pi/4", seed=5)
    q = data.correlated(d=3, m=4, lam=1e-6, scheme=scheme, rejection="pi/4", seed=5)
    vstar = data.teacher(p)
    assert data.min_teacher_cosine(p.X, vstar) > 1 / math.sqrt(2)
    assert np.linalg.norm(vstar) == pytest.approx(1.0)
    np.testing.assert_array_equal(p.X, q.X)
    np.testing.assert_array_equal(p.W0, q.W0)
    np.testing.assert_allclose(p.y, np.maximum(p.X @ vstar, 0.0))
    np.testing.assert_allclose(np.abs(p.a0), np.linalg.norm(p.W0, axis=1))  # balanced


@pytest.mark.parametrize("kw, match", [
    ({"scheme": "skewed"}, "scheme"), ({"rejection": "pi/3"}, "rejection"),
    ({"d": 1}, "d"), ({"m": 0}, "m"), ({"lam": 0.0}, "lam")])
def test_bad_generator_input_is_named(kw, match):
    with pytest.raises(ProblemError, match=match):
        data.correlated(**{"d": 3, "m": 4, "lam": 1e-3, **kw})
