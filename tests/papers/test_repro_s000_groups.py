"""The E-000-5 / S000-T2 reproduction section (papers/s000/repro_groups.py), quick profile:
real PNGs, blocks headed by E-000-5, JSON-safe data, and its numbers checked against
independent recomputations (CF-7's width and drop-time formulas written out here, a fresh
simulation with the same seed)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from papers.s000 import groups_model as gm
from papers.s000 import repro_groups as rg
from papers.s000.groups_sim import simulated_point
from verify.report.doc import Block, Figure, Heading, Table

SEED = 0
K_LIMIT = 4 * math.log(9)


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    out = tmp_path_factory.mktemp("e000_5")
    return out, rg.run(out, "quick", seed=SEED, show_progress=False)


def test_figures_are_pngs_shown_in_the_blocks(section):
    out, rep = section
    assert len(rep.figures) == 2
    for path in rep.figures:
        assert path.parent == out and path.exists() and path.stat().st_size > 10_000
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    shown = sorted(str(b.path) for b in rep.blocks if isinstance(b, Figure))
    assert shown == sorted(map(str, rep.figures))


def test_blocks_headed_by_the_experiment(section):
    _, rep = section
    assert isinstance(rep.blocks[0], Heading) and "E-000-5" in rep.blocks[0].text
    assert rep.experiment == "E-000-5"
    assert all(isinstance(b, Block) for b in rep.blocks)
    for b in rep.blocks:
        if isinstance(b, Table):
            assert b.rows and all(len(row) == len(b.header) for row in b.rows)
    assert rep.findings and all(f.startswith("E-000-5") for f in rep.findings)


def test_data_is_json_and_records_the_run(section):
    _, rep = section
    data = json.loads(json.dumps(rep.data, allow_nan=False))
    assert data["seed"] == SEED and data["profile"] == "quick"
    assert data["setting"]["figure_n"] == str(100 + 1739274941520501047)
    assert 0 < rep.wall_time < 30


def test_widths_match_cf7_formula_written_out(section):
    """W = 2 ln 9 / ln((pY - N_0)/N_0) with Y = beta sqrt(n), p = 2, N_0 = 1, measured by root
    finding on the curves; W^L (loss-drop width) is smaller, both shrink with n."""
    _, rep = section
    pts = rep.data["closed_form"]
    for p in pts:
        for G in p["groups"]:
            expected = 2 * math.log(9) / math.log(2 * G["beta"] * math.sqrt(p["n"]) - 1)
            assert G["width_measured"] == pytest.approx(expected, rel=1e-9)
            assert 0 < G["loss_width"] < G["width_measured"]
    for g in range(2):
        widths = [p["groups"][g]["width_measured"] for p in pts]
        assert np.all(np.diff(widths) < 0)
        # W ln n increases towards 4 ln 9 from below
        wlog = [p["groups"][g]["width_log_n"] for p in pts]
        assert np.all(np.diff(wlog) > 0) and wlog[-1] < K_LIMIT
        assert (K_LIMIT - wlog[-1]) / K_LIMIT < 0.015


def test_width_fit_has_the_claimed_sign_and_size(section):
    _, rep = section
    fits, decision = rep.data["fits"], rep.data["shrinks_like_inverse_log"]
    assert rep.data["limits"]["width_times_log_n"] == pytest.approx(K_LIMIT, rel=1e-12)
    for g, beta in enumerate(gm.BETAS):
        asym = fits["asymptotic"][g]
        # 1/W grows with ln n (no floor) and its slope gives K = 4 ln 9 within K_TOL
        assert asym["inverse_slope_lo"] > 0
        assert asym["K_lo"] <= asym["K"] <= asym["K_hi"]
        assert abs(asym["K"] / K_LIMIT - 1) < 1e-4
        assert asym["c"] == pytest.approx(2 * math.log(2 * beta), rel=1e-3)
        assert decision["asymptotic"][g]["shrinks"] is True
        # the straight line W = a + b/ln n: slope below K, positive intercept, both moving
        # towards (K, 0) as the range moves to larger n (the text's claim)
        whole = fits["all_closed_form"][g]
        for f in (asym, whole):
            assert 0 < f["line_slope"] < K_LIMIT and f["line_intercept"] > 0
        assert asym["line_slope"] > whole["line_slope"]
        assert asym["line_intercept"] < whole["line_intercept"]
        # simulated n: no floor, K positive and biased below 4 ln 9 by O(n^-1/2), within 10%
        sim = fits["simulated"][g]
        assert decision["simulated"][g]["no_floor"] is True
        assert 0.9 * K_LIMIT < sim["K"] < K_LIMIT


def test_closed_form_against_simulation_within_stated_tolerance(section):
    _, rep = section
    data = rep.data
    assert data["gap_tolerance"] == gm.GAP_TOL <= 1e-6
    assert data["gaps_within_tolerance"] is True
    for key, value in data["gaps"].items():
        assert 0 <= value <= gm.GAP_TOL, key
    for r in data["simulated"]:
        assert r["flow_status"] == "SUCCESS"
        assert 0 < r["flow_error_estimate"] < 1e-7
        assert 0 < r["closed_form_error_estimate"] < 1e-13
        # the measured gap is explained by ExactFlow's own error estimate
        assert r["gap_state"] <= 3 * r["flow_error_estimate"] + r["flow_nominal_error"]
        assert r["gap_loss"] <= 3 * r["flow_loss_error"] + 1e-12
    assert data["gaps_within_error_estimate"] is True


def test_drop_time_ratio_tends_to_one_half_monotonically(section):
    _, rep = section
    pts = rep.data["closed_form"]
    for key in ("ratio_cf7_half_capacity", "ratio_paper_formula", "ratio_measured_half_drop"):
        ratios = [p[key] for p in pts]
        assert np.all(np.diff(ratios) < 0), key
        assert min(ratios) > 0.5 and ratios[-1] - 0.5 < 0.004, key
    sims = rep.data["simulated"]
    assert np.all(np.diff([r["ratio_flow_capacity"] for r in sims]) < 0)
    assert all(rep.data["ratio_monotone_decreasing"].values())
    assert rep.data["limits"]["ratio"] == 0.5
    fig = rep.data["figure_n_point"]
    n = float(100 + 1739274941520501047)
    expected = 0.5 * math.log(4 * math.sqrt(n) - 1) / math.log(2 * math.sqrt(n) - 1)
    assert fig["ratio_cf7_half_capacity"] == pytest.approx(expected, rel=1e-9)
    assert round(fig["ratio_cf7_half_capacity"], 3) == gm.PAPER_RATIO
    assert round(fig["ratio_paper_formula"], 3) == gm.PAPER_RATIO


def test_same_seed_same_simulated_numbers(section):
    _, rep = section
    first = rep.data["simulated"][1]
    again = simulated_point(first["n"], first["seed"], gm.PROFILES["quick"])
    for key in ("width_flow", "width_closed", "ratio_flow", "gap_state", "flow_error_estimate"):
        assert again[key] == first[key], key
