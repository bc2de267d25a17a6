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


# -- E-CEL23-3 and E-CEL23-4 (`papers.cel23.repro_dynamics`) ---------------------------------
def test_plateau_exit_and_late_rate_on_a_known_curve():
    from papers.cel23 import repro_dynamics as D

    t = np.linspace(0.0, 100.0, 1001)
    loss = np.where(t < 10.0, 1.0, np.exp(-0.3 * (t - 10.0)))  # a plateau, then e^(-0.3 t)
    steps = np.rint(t / D.LR).astype(int)
    assert D.plateau_exit(steps, loss) == steps[np.flatnonzero(t >= 10.0)[0] + 24]
    assert D.late_rate(t, loss) == pytest.approx(0.3, rel=1e-9)
    flat = np.ones_like(t)
    assert D.plateau_exit(steps, flat) is None and D.late_rate(t, flat) is None


def test_one_run_overtakes_the_teacher_coordinates_in_eigen_order():
    """The E-CEL23-4 run (uncentred, d = 16, m = 25, lam = 4^-7) to t = 300: the first
    coordinates r_k pass 1 in the order k = 1, 2, ... (CEL23-F28a), the bundle narrows to
    below a degree and |theta|^2 heads to 2."""
    from papers.cel23 import repro_dynamics as D

    one = D.single_run(300.0)
    crossed = [s for s in one["first_over"] if s is not None]
    assert len(crossed) >= 3 and crossed == sorted(crossed)
    assert one["in_order"] and one["initial_segment_always"]
    assert 0 < one["max_angle"][-1] < 1.0
    assert abs(one["theta_sq"][-1] - 2.0) < 0.1


# -- Theorem 8 on Example 37 (`papers.cel23.repro_theorem8`) ---------------------------------
def test_theorem8_section_decides_both_families(tmp_path):
    """Example 37(a) (M < 0, certified) has the rank-one interpolators as least-norm ones;
    37(b) (M > 0 from b = 11, catalogue: M = 0.0148 at b = 11) has an exact interpolator
    below 2 (1.99953 at b = 11, 1.97452 at b = 20: the catalogue's numbers)."""
    from papers.cel23 import repro_theorem8 as T

    rep = T.run(tmp_path, "quick", show_progress=False)
    rows = rep.data["rows"]
    assert all(r["decided"] and "HOLDS" in r["outcome"] for r in rows)
    for r in rows:
        if r["family"] == "37a":
            assert r["sign"] == -1 and r["M_upper"] < 0 and r["dual_slack"] <= 1 + 1e-12
            assert r["interp_sq"] is None and r["z_matrix"]
        else:
            assert r["sign"] == 1 and r["dual_slack"] > 1 and r["interp_residual"] < 1e-12
            assert r["f38_bound"] <= r["interp_sq"] < 2
    b11 = next(r for r in rows if r["family"] == "37b" and r["param"] == 11.0)
    assert round(b11["M_lower"], 4) == 0.0148 and b11["interp_sq"] == pytest.approx(1.99953,
                                                                                   abs=5e-6)
    assert "decided on 8 of 8" in rep.summary[0]


def test_a_trial_with_two_bundles_is_set_apart_from_the_slope_law():
    """The small-lam law is one bundle's: a trial whose max angle stays above 90 degrees
    (two bundles, slope near 0) is counted apart, not averaged into the slope."""
    ks = (-7, -10, -13)

    def trial(angle_at):
        return {"max_angle": angle_at, "mean_angle": 0.0, "nuclear": 1.0, "loss": 0.0}

    runs = {"gd": {(s, 4, k): [trial(3.0 * 4.0**k), trial(130.0 + k * 1e-3)]
                   for s in R.SCHEMES for k in ks}}
    _, slopes, apart = R._summaries(runs, (4,), ks, trials=2)
    for s in R.SCHEMES:
        assert slopes[("gd", s, 4)] == [pytest.approx(1.0)] and apart[("gd", s, 4)] == 1


def test_rank_section_end_to_end_on_a_small_grid(tmp_path, monkeypatch):
    """The whole section (GD cells, flow pool, summaries, figure, blocks) on d = 4, two
    lam, two trials, a short horizon: the report's own call, ``instances`` = trials."""
    monkeypatch.setitem(R.GRID, "quick", ((4,), (-7, -10), 100.0))
    rep = R.run(tmp_path, "quick", seed=0, show_progress=False, store=tmp_path,
                instances=2)
    cells = rep.data["cells"]
    assert len(cells) == 2 * 2 * 2 and rep.data["trials"] == 2
    assert all(c["published"] is not None and c["ratio"] > 0 for c in cells)
    assert set(rep.data["slopes"]) == {f"{m} {s} 4" for m in ("gd", "flow")
                                       for s in R.SCHEMES}
    assert (tmp_path / R.FIGURE).stat().st_size > 10_000
    assert "of 8 cells" in rep.summary[0] and rep.experiment == "E-CEL23-1"


def test_the_published_protocol_is_a_sweep_of_the_packs_generator():
    """`gfverify sweep ecel23_1` finds CEL23's protocol and its built-in generator:
    4 d x 16 lam x 2 schemes, 5 seeds each; one batch runs (shortened) with n = d, p = 200."""
    import dataclasses

    from verify.sweep.run import compute_batch, load_config, plan

    batches = plan(load_config("ecel23_1"))
    assert len(batches) == 4 * 16 * 2 and all(b.seeds == (0, 1, 2, 3, 4) for b in batches)
    assert {b.params["lam"] for b in batches} == {4.0**k for k in range(2, -14, -1)}
    first = dataclasses.replace(batches[0], options={**batches[0].options, "epochs": 200})
    rows = compute_batch(first)
    assert [(r["n"], r["d"], r["p"]) for r in rows] == [(4, 4, 200)] * 5
    assert all(r["final_loss"] < r["initial_loss"] for r in rows)


def test_the_paper_agrees_when_the_medians_are_within_the_stated_factor():
    """A cell whose trials span 1e-5 to 1e2 degrees (one trial with two bundles) holds any
    published median in its range; the criterion is the ratio of the medians, within a
    factor 2 either way, and the report shows the interquartile range beside the range."""
    ks = (-7,)

    def trial(angle):
        return {"max_angle": angle, "mean_angle": 0.0, "nuclear": 1.0, "loss": 0.0}

    published = R.PUBLISHED_MAX_ANGLE[("centred", 4)][-7][0]
    spread = [1e-5, 0.5 * published, 0.6 * published, 0.7 * published, 100.0]
    runs = {"gd": {(s, 4, -7): [trial(a) for a in spread] for s in R.SCHEMES}}
    cells, _, _ = R._summaries(runs, (4,), ks, trials=5)
    cell = next(c for c in cells if c["scheme"] == "centred")
    assert cell["inside"]  # the range holds it: no criterion
    assert cell["ratio"] == pytest.approx(0.6) and cell["agrees"]
    assert cell["q1"] == pytest.approx(0.5 * published)
    assert R.agrees(1.0, 2.0) and R.agrees(2.0, 1.0) and not R.agrees(2.01, 1.0)
    assert not R.agrees(0.49, 1.0)


def test_the_quartile_criterion_and_the_ratio_across_lam():
    """Beside the factor-2 criterion: the paper's median inside our interquartile range,
    and how far ours / paper moves across lam in one (method, data, d): a constant ratio
    says the two follow the same law in lam and differ by the data draws' constant."""
    ks = (-7, -10)

    def trial(angle):
        return {"max_angle": angle, "mean_angle": 0.0, "nuclear": 1.0, "loss": 0.0}

    runs = {"gd": {}}
    for k in ks:
        published = R.PUBLISHED_MAX_ANGLE[("centred", 4)][k][0]
        for s in R.SCHEMES:  # ours = 0.4 x the paper's at both lam, quartiles around it
            runs["gd"][(s, 4, k)] = [trial(f * 0.4 * published) for f in (0.5, 0.9, 1, 1.1, 3)]
    cells, _, _ = R._summaries(runs, (4,), ks, trials=5)
    centred = [c for c in cells if c["scheme"] == "centred"]
    assert all(c["ratio"] == pytest.approx(0.4) and not c["agrees"] for c in centred)
    assert all(c["in_quartiles"] is False for c in centred)
    assert R.ratio_drifts(centred) == [pytest.approx(1.0)]
    moving = [dict(c) for c in centred]
    moving[1]["ratio"] = 1.2  # ours / paper goes from 0.4 to 1.2 across lam: a factor 3
    assert R.ratio_drifts(moving) == [pytest.approx(3.0)]
