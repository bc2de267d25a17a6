"""The BF25B report section (papers/bf25b/repro_threshold.py) on a small sweep: it writes a
real PNG, returns blocks headed by E-BF25B-1 and JSON-safe data, its rows are the runs it
names (same seed, same numbers), and it shows interpolation stopping as n grows."""

from __future__ import annotations

import json

import pytest

from papers.bf25b import repro_threshold as R
from tests.papers.sections import assert_figures_shown
from verify.report.doc import Heading, Table


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    out = tmp_path_factory.mktemp("ebf25b")
    patch = pytest.MonkeyPatch()
    patch.setattr(R, "SWEEP", {name: {"n": (4, 16), "seeds": 3, "d": 2} for name in R.SWEEP})
    try:
        yield out, R.run(out, "quick", show_progress=False)
    finally:
        patch.undo()


def test_the_figure_is_a_png_in_out(section):
    out, rep = section
    assert len(rep.figures) == 1
    assert_figures_shown(out, rep)


def test_blocks_are_headed_by_the_experiment_and_the_table_is_full(section):
    _, rep = section
    assert isinstance(rep.blocks[0], Heading) and "E-BF25B-1" in rep.blocks[0].text
    (table,) = [b for b in rep.blocks if isinstance(b, Table)]
    assert len(table.rows) == 2 and all(len(r) == len(table.header) for r in table.rows)
    json.dumps(rep.data)
    assert rep.summary and "none from n = 16" in rep.summary[0]


def test_rows_are_the_runs_and_interpolation_stops(section):
    """A row recomputed from its seed gives the same numbers; at n = 4 some run interpolates
    (seeds 1, 2: final loss < 1e-17), at n = 16 none does and the training loss is within
    the OLS residual loss's order, the test loss below twice the null predictor's."""
    _, rep = section
    rows = rep.data["rows"]
    again = R.run_row(rows[1]["n"], rows[1]["d"], rows[1]["seed"])
    assert again == rows[1]
    small = [r for r in rows if r["n"] == 4]
    large = [r for r in rows if r["n"] == 16]
    assert any(r["interpolates"] for r in small)
    assert not any(r["interpolates"] for r in large)
    for r in large:
        assert r["train"] == pytest.approx(r["ols"], rel=0.5)
        assert r["test"] < 0.5 * (1 + R.NOISE**2)  # the zero predictor's test loss
    for r in rows:
        assert r["interpolates"] == (r["train"] < R.FIT_LEVEL)
