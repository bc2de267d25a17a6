"""The S001 reproduction section (papers/s001/repro_alignment.py) on a small setting: it writes real
PNGs, returns blocks headed by the experiment IDs and JSON-safe data, and its numbers agree
with independent recomputations from re-simulated runs (same seed, same numbers)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from numerics import ExactFlow, generators, simulate
from papers.s001 import alignment as al
from papers.s001 import repro_alignment as rs
from papers.s001.e001_2 import a1_problem
from verify.language.measures import measure
from verify.report.doc import Block, Figure, Heading, Table

TINY = al.Settings(grid_n=(4, 8), grid_mu=(0.3, 0.9), grid_seeds=2, grid_points=201,
                   a1_mu=(0.5,), a1_n=6, a1_d=6, a1_iterations=3000, a1_stride=50,
                   a1_gd_iterations=400, toy_seeds=1, toy_iterations=7000, toy_stride=500,
                   digits_per_class=20, digits_iterations=2000, digits_stride=100,
                   digits_sum_iterations=100, e001_3_iterations=600)
SEED = 3


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    out = tmp_path_factory.mktemp("e001")
    return out, rs.run(out, "quick", seed=SEED, show_progress=False, settings=TINY)


def test_figures_are_pngs_in_out(section):
    out, rep = section
    assert len(rep.figures) == 5
    for path in rep.figures:
        assert path.parent == out and path.exists()
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    shown = [b.path for b in rep.blocks if isinstance(b, Figure)]
    assert sorted(map(str, shown)) == sorted(map(str, rep.figures))


def test_blocks_are_headed_by_the_experiments(section):
    _, rep = section
    assert isinstance(rep.blocks[0], Heading) and "E-001" in rep.blocks[0].text
    headings = [b.text for b in rep.blocks if isinstance(b, Heading)]
    assert any(h.startswith("E-001-2") for h in headings)
    assert any(h.startswith("E-001-1") for h in headings)
    assert any(h.startswith("E-001-3") for h in headings)
    assert all(isinstance(b, Block) for b in rep.blocks)
    for b in rep.blocks:
        if isinstance(b, Table):
            assert all(len(row) == len(b.header) for row in b.rows)
    assert rep.experiment == "E-001-2, E-001-1, E-001-3"
    assert all(isinstance(f, str) and f.startswith("E-001") for f in rep.findings)


def test_data_is_json(section):
    _, rep = section
    text = json.dumps(rep.data, allow_nan=False)
    assert json.loads(text)["seed"] == SEED


def test_t1_grid_is_positive_finite_and_located(section):
    _, rep = section
    rows = rep.data["E-001-2"]["grid"]
    assert len(rows) == 2 * 2 * 2
    for r in rows:
        assert r["t_1"] is not None and 0 < r["t_1"] < r["horizon"]
        assert r["t_1_error"] is not None and r["t_1_error"] < 1e-3
        assert r["ratio"] == pytest.approx(r["t_1"] / (math.log(r["n"]) / math.sqrt(r["mu"])))
    # independent recomputation for one row: t_1 lies in the saved interval where every
    # neuron first sits in S_+/S_dead (sign a > 0) or S_-/S_dead (sign a < 0)
    r = rows[-1]
    pr = generators.separable(n=r["n"], d=TINY.grid_d, p=TINY.grid_width, seed=r["seed"],
                              mu=r["mu_requested"], eps=al.THEOREM_EPS)
    tr = simulate(pr, ExactFlow(rtol=1e-10, coordinates="lognorm"),
                  np.linspace(0.0, r["horizon"], TINY.grid_points))
    act = np.einsum("kjd,id->kji", tr.W, pr.X) > 0
    pos = pr.y > 0
    home = np.where(pr.a0[None, :, None] > 0, pos[None, None, :], ~pos[None, None, :])
    ok = np.all((act == home) | ~act.any(axis=-1, keepdims=True), axis=(-2, -1))
    k = int(np.flatnonzero(ok)[0])
    assert tr.t[k - 1] < r["t_1"] <= tr.t[k]
    # the section's count is the project's Unsorted measure on balanced runs
    assert np.array_equal(al.unsorted_counts(tr), measure(tr, "Unsorted").values)


def test_fits_and_ratios(section):
    _, rep = section
    fits = rep.data["E-001-2"]["fits"]
    assert fits["sorted_runs"] == fits["runs"] == 8
    lin = fits["linear"]
    assert lin["slope_lo"] <= lin["slope"] <= lin["slope_hi"]
    assert 0 < fits["ratio"]["min"] <= fits["ratio"]["median"] <= fits["ratio"]["max"]
    assert fits["max_ratio_to_bound"] < 1  # the proof's explicit t_1 bound holds
    assert fits["lost_neurons"] == 0


def test_stable_rank_against_recomputation(section):
    _, rep = section
    (a1,) = rep.data["E-001-2"]["a1"]
    pr = a1_problem(TINY, 0.5, SEED)
    it = np.arange(0, TINY.a1_iterations + 1, TINY.a1_stride)
    tr = simulate(pr, ExactFlow(rtol=1e-9), it * al.PAPER_LR)
    W = tr.W[-1]
    independent = np.linalg.norm(W, "fro") ** 2 / np.linalg.norm(W, 2) ** 2
    assert a1["final_stable_rank"] == pytest.approx(independent, rel=1e-9)
    assert 1.0 <= independent <= 2.0
    assert a1["final_stable_rank_error"] < 1e-3
    # the mean-neuron cosine of the section against a direct computation
    xp = pr.X[pr.y > 0].sum(axis=0)
    w_bar = W[tr.a[-1] > 0].mean(axis=0)
    direct = w_bar @ xp / (np.linalg.norm(w_bar) * np.linalg.norm(xp))
    assert a1["final_cos_plus"] == pytest.approx(direct, abs=1e-12)
    assert a1["t_1"] is not None and a1["t_1"] > 0
    gd = rep.data["E-001-2"]["a1_gd"]
    assert gd["state_error"] is not None and gd["state_error"] < 1


def test_toys_and_digits_carry_error_estimates(section):
    _, rep = section
    for toy in rep.data["E-001-2"]["toys"]:
        assert toy["state_error"] is not None and toy["state_error"] < 1e-5
        assert toy["outside"]["mid"]["outside"] == toy["outside"]["mid"]["companion_outside"]
    d = rep.data["E-001-1"]["digits"]
    assert d["n"] == 40 and d["d"] == 64
    assert d["cos_x_plus_x_minus"] == pytest.approx(-1.0, abs=1e-12)  # centring: x_+ = -x_-
    assert 0 < d["state_error"] < 0.1
    assert 1.0 <= d["final_stable_rank"]
    assert d["final_stable_rank_error"] is not None
