"""Report sections E-000-2 (threshold) and E-000-4 (orthogonal PL): fits, store reuse, output."""

from __future__ import annotations

import json

import numpy as np
import pytest

from papers.s000 import repro_pl as pl
from papers.s000 import repro_threshold as th
from papers.s000.reference import ReferenceMissing, number, reference_dir, threshold_runs


def test_logistic_threshold_recovers_the_crossing_of_a_known_curve():
    n = np.arange(10, 410, 20)
    p = 1 / (1 + np.exp((n - 217.0) / 30.0))
    trials = np.full(n.size, 4000)
    hits = np.round(p * trials)
    assert th.logistic_threshold(n, hits, trials) == pytest.approx(217.0, abs=2.0)
    # never crossing 1/2: the threshold is outside the grid
    assert np.isnan(th.logistic_threshold(n, trials, trials))


def test_slope_of_log_means_recovers_a_power_law_with_an_interval():
    rng = np.random.default_rng(0)
    runs = {n: {"x": n**-0.75 * rng.uniform(0.9, 1.1, size=40)} for n in (1000, 1400, 2000)}
    fit = pl.slope_of_log_means(runs, "x")
    assert fit["lo"] <= -0.75 <= fit["hi"] and fit["hi"] - fit["lo"] < 0.2
    assert fit["slope"] == pytest.approx(-0.75, abs=0.05)


def test_reference_cells_and_location(tmp_path, monkeypatch):
    assert number("tensor(0.25)") == 0.25 and number("1e-3") == 1e-3
    monkeypatch.setenv("GFVERIFY_REFERENCE", str(tmp_path / "nowhere"))
    with pytest.raises(ReferenceMissing, match="GFVERIFY_REFERENCE"):
        reference_dir()


@pytest.fixture
def published():
    return threshold_runs()


def test_threshold_section_compares_with_the_published_counts_and_reuses_the_store(
        tmp_path, published):
    rep = th.run(tmp_path, "quick", show_progress=False, d_values=(10,))
    d = rep.data
    assert rep.blocks[0].text.startswith("Reproduction E-000-2") and d["computed"] == 200
    assert d["compared"] == 10 and 0 <= d["inside"] <= 10
    pub = {(r["d"], r["n"]): r["CV_probability"] for r in published}
    for row in d["points"]:
        assert row["trials"] == 20 and row["published"] == pytest.approx(pub[(10, row["n"])])
        lo, hi = row["published_interval"]
        assert row["inside"] == (lo <= row["probability"] <= hi)
    assert all(f.read_bytes()[:4] == b"\x89PNG" for f in rep.figures)
    json.dumps(d)
    again = th.run(tmp_path, "quick", show_progress=False, d_values=(10,))
    assert again.data["computed"] == 0 and again.data["points"] == d["points"]


def test_pl_section_on_a_small_grid(tmp_path, monkeypatch):
    monkeypatch.setattr(pl, "QUICK", {"n": "1000..1200 step 100", "seeds": 3})
    monkeypatch.setattr(pl, "BOOTSTRAP", 200)
    monkeypatch.setattr(pl, "STEP_FACTORS", (2,))
    rep = pl.run(tmp_path, "quick", show_progress=False)
    d = rep.data
    assert d["n"] == [1000, 1100, 1200] and d["computed"] == 9
    for key, *_ in pl.STATISTICS:
        f = d["fits"][key]
        assert f["lo"] <= f["slope"] <= f["hi"], key
    # the published-protocol statistics are ordered as the sandwich says, on every run
    assert all(d["sandwich_holds_per_n"].values())
    err = d["step_error"]
    assert set(err) == {1000, 1200}
    assert all(e["relative_change_lr_to_half"] < 0.5 for e in err.values())
    # compared with the published CSV shipped in papers/s000/published/ (never a quiet skip)
    assert set(d["published"]) == {key for key, _, column, *_ in pl.STATISTICS if column}
    json.dumps(d)
    # the step error's runs are stored too: a second report computes nothing (they were
    # re-run on every report, 1040 of the section's 1066 s with the protocol's rows stored)
    import verify.sweep.run as sweep_run

    def no_work(*args, **kwargs):
        raise AssertionError("a stored run was computed again")

    monkeypatch.setattr(sweep_run, "compute_batch", no_work)
    again = pl.run(tmp_path, "quick", show_progress=False)
    assert again.data["step_error"] == err and again.data["computed"] == 0


def test_the_conjecture_paragraph_says_what_the_interval_decides():
    """S000-C2 (PL ~ 1/sqrt(n)): an interval that holds -1/2 and -0.81 alike decides
    nothing, and the paragraph says so (with the published slopes that exclude -1/2), never
    "consistent with the conjectured -1/2" beside the finding that R's data exclude it."""
    published = {"rate_end": {"slope": -0.81, "lo": -0.85, "hi": -0.77},
                 "mu_upp": {"slope": -0.503, "lo": -0.509, "hi": -0.498}}
    data = {"published": published, "seeds_per_n": {1000: 10, 2000: 10}, "n": [1000, 2000]}
    wide = {"slope": -0.72, "lo": -0.99, "hi": -0.43}
    text = pl._conjecture_blocks(data, wide)[0][1].text
    assert "consistent" not in text and "does not decide the conjecture" in text
    assert "R's slope of mu(t_inf), -0.81" in text and "-0.81 [-0.85, -0.77] exclude -1/2" in text
    assert "mu_upp = (16/n) max E_i -0.50" not in text  # the bound's slope holds -1/2
    narrow = {"slope": -0.52, "lo": -0.6, "hi": -0.45}
    assert "consistent with the conjectured -1/2" in pl._conjecture_blocks(data, narrow)[0][1].text
    blocks, findings = pl._conjecture_blocks(data, {"slope": -0.9, "lo": -1.0, "hi": -0.8})
    assert "excludes -1/2" in blocks[1].text and findings
