"""The MOR26 report section (papers/mor26/repro_staircase.py) on one small draw: it writes a
real PNG, returns blocks headed by E-MOR26-1 and JSON-safe data, its times are those of the
runs it names, and its acceptance table shows the gap shrinking at the three lam."""

from __future__ import annotations

import json
import math

import pytest

from papers.mor26 import repro_staircase as R
from papers.mor26.evidence import LIMIT_LAMS, lam_sequence
from papers.mor26.measures import exit_times
from tests.papers.sections import assert_figures_shown
from verify.report.doc import Block, Heading, Table


@pytest.fixture(scope="module")
def section(tmp_path_factory):
    out = tmp_path_factory.mktemp("emor26")
    patch = pytest.MonkeyPatch()
    patch.setattr(R, "DRAWS", ((6, 4, False),))
    patch.setattr(R, "RATIO_NS", {name: (16, 64, 256) for name in R.RATIO_NS})
    patch.setattr(R, "RATIO_DRAWS", {name: 12 for name in R.RATIO_DRAWS})
    try:
        yield out, R.run(out, "quick", show_progress=False)
    finally:
        patch.undo()


def test_the_figure_is_a_png_in_out(section):
    out, rep = section
    assert len(rep.figures) == 1
    assert_figures_shown(out, rep)


def test_blocks_are_headed_by_the_experiment_and_tables_are_full(section):
    _, rep = section
    assert isinstance(rep.blocks[0], Heading) and "E-MOR26-1" in rep.blocks[0].text
    assert rep.experiment == "E-MOR26-1" and all(isinstance(b, Block) for b in rep.blocks)
    tables = [b for b in rep.blocks if isinstance(b, Table)]
    assert len(tables) == 2
    for table in tables:
        assert table.rows and all(len(row) == len(table.header) for row in table.rows)
    json.dumps(rep.data)
    assert rep.summary and "gap falls from" in rep.summary[0]


def test_the_times_are_the_runs_and_the_gap_shrinks(section):
    _, rep = section
    (draw,) = rep.data["draws"]
    runs = lam_sequence(draw["n"], draw["n"], draw["m"], draw["seed"])
    picks = [LIMIT_LAMS.index(v) for v in R.SHOWN_LAMS]
    for k in picks:
        scale = math.log(1 / LIMIT_LAMS[k])
        again = [t_i / scale for _, t_i, _ in exit_times(runs[k])]
        assert draw["rescaled_times"][k] == pytest.approx(again, rel=1e-12)
    for i, act in enumerate(draw["activations"]):
        gaps = [abs(draw["rescaled_times"][k][i] - act["tau"]) for k in picks]
        assert gaps[0] > gaps[1] > gaps[2]
    ratio = rep.data["ratio"]
    assert ratio["n"] == [16, 64, 256] and len(ratio["mean"]) == 3
    assert all(m >= 1 for m in ratio["mean"])  # no interpolator beats the least one
