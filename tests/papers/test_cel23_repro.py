"""E-CEL23-1's observables and its runs (`papers.cel23.repro_rank`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from papers.cel23 import repro_rank as R


def test_rank_proxies_on_known_neurons():
    X = np.array([[1.0, 0.2], [0.8, 0.6]])
    tiny = math.radians(1e-5)  # a bundle 1e-5 degrees wide: arccos would lose it
    W = np.array([[1.0, 0.0], [math.cos(tiny), math.sin(tiny)], [2 * math.cos(0.3),
                  2 * math.sin(0.3)], [-1.0, -1.0]])  # the last is inactive on both points
    out = R.rank_proxies(X, W)
    assert out["active"] == 3
    assert out["max_angle"] == pytest.approx(math.degrees(0.3), rel=1e-9)
    mean = (1e-5 + math.degrees(0.3) + math.degrees(0.3 - tiny)) / 3
    assert out["mean_angle"] == pytest.approx(mean, rel=1e-9)
    assert out["nuclear"] == pytest.approx(np.linalg.svd(W, compute_uv=False).sum())
    two = R.rank_proxies(X, W[:2])
    assert two["max_angle"] == pytest.approx(1e-5, rel=1e-6)


def test_the_small_lam_slope_is_the_exponent():
    ks = [-7, -10, -13]
    assert R.slope(ks, [3.0 * 4.0**k for k in ks]) == pytest.approx(1.0)
    assert R.slope(ks, [3.0 * 4.0 ** (k / 8) for k in ks]) == pytest.approx(1 / 8)


def test_published_tables_cover_the_quick_grid():
    ds, ks, _ = R.GRID["quick"]
    for scheme in R.SCHEMES:
        for d in ds:
            assert set(ks) <= set(R.PUBLISHED_MAX_ANGLE[(scheme, d)])


def test_descent_and_flow_agree_on_one_trial():
    """One trial (d = 4, lam = 4^-10, centred, data seed 1) by GD at the paper's step and
    by the exact flow: the same bundle, to 3% in its width; the width is of order lam in
    degrees as the paper's Table 1 says (8.6e-3 there at the median)."""
    gd = R._gd_cell(4, -10, "centred", 1000.0)[1]
    flow = R._flow_one((4, -10, "centred", 1, 1000.0))
    assert flow["max_angle"] == pytest.approx(gd["max_angle"], rel=0.03)
    assert 1e-4 < flow["max_angle"] < 1e-1
    assert gd["loss"] < R.STOP_LOSS and abs(flow["nuclear"] - 1.0) < 1e-3
