"""Tightening at the loss floor: the saved times no float64 run decides are left out of an
instance's extreme and named, as a check names them (issue 41), and the undecided reasons
are grouped."""

from __future__ import annotations

import re
import warnings

import numpy as np

from verify.conjecture.instance import MethodSpec, first_positive, run_family_instance
from verify.conjecture.statement import statement_of
from verify.engine.check_run import undecidable_times
from verify.engine.escalation import check_escalating
from verify.front.cli import EXIT_OK, main
from verify.instances.families import get as get_family
from verify.tighten import tighten
from verify.tighten.extreme import LEFT_OUT

# an orthogonal-asym instance whose loss reaches the float64 floor well before its horizon
PL_SANDWICH = "PL(t) >= C/n*Emin(t)"
AT_FLOOR = {"n": 2, "p": 6, "d": 2, "seed": 0}


def test_the_named_times_are_the_ones_a_check_names():
    """`undecidable_times` is the check's own rule: the same count as the verdict's note."""
    family = get_family("orthogonal-asym")
    problem = family.make(dict(AT_FLOOR))
    text = "PL(t) >= 6.5/n*Emin(t)"
    statement = statement_of(text)
    tr, _ = run_family_instance(family, problem, dict(AT_FLOOR), MethodSpec(), 1001, [], None)
    claim = statement.claim("for_all_t", None, float(tr.t[-1]), first_positive(tr))
    verdict, tr = check_escalating(claim, tr)  # at the finest float64 run: HOLDS, named
    mask, note = undecidable_times(claim, tr)
    counts = [int(m) for m in re.findall(r"undecidable in float64 at (\d+) of", note)]
    assert mask.any() and sum(counts) == int(mask.sum())
    assert verdict.unresolved and sorted(counts) == sorted(
        int(m) for m in re.findall(r"undecidable in float64 at (\d+) of", verdict.unresolved))
    # the loss is at its floor where the times are named
    assert np.asarray(tr.loss)[mask].max() / tr.loss[0] < 1e-9


def test_an_instance_at_the_loss_floor_is_decided_with_its_times_named():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no library warning (matplotlib's legend) either
        result = tighten(PL_SANDWICH, "orthogonal-asym", free="C", params=AT_FLOOR, budget=1,
                         refine_budget=0, plot=None)
    assert result.verdict == "SHARPEST FOUND", result.report()
    ext = result.witness.searched.extreme
    assert ext.note.startswith(LEFT_OUT) and "undecidable in float64" in ext.note
    # the witness check is the same statement at 2% past (VIOLATED) and back (HOLDS)
    assert result.witness.decided
    assert "on the witness: decided without the saved times" in result.report()


def test_undecided_reasons_are_grouped_with_an_example(capsys):
    code = main(["tighten", PL_SANDWICH, "--free", "C", "--family", "orthogonal-asym",
                 "--budget", "6", "--no-plot"])
    out = capsys.readouterr().out
    assert code == EXIT_OK, out
    searched = int(re.search(r"searched: (\d+) instances", out).group(1))
    reason_lines = re.findall(r"^  (\d+) x (undecided|inapplicable): ", out, flags=re.M)
    decided = int(re.search(r"(\d+) decided", out).group(1))
    assert decided + sum(int(k) for k, _ in reason_lines) == searched
    # one line per reason, not per instance: the lines' reasons differ
    texts = re.findall(r"^  \d+ x (.*)$", out, flags=re.M)
    assert len(texts) == len(set(texts))
    assert decided >= searched // 2, out


def test_assume_leaves_out_instances_and_is_replayed():
    """--assume as in `conjecture`: an instance failing it is inapplicable (not run), the
    reasons are grouped by the assumption, and the replay carries it."""
    result = tighten("PL(t) >= C*(1 - GammaMax)*Xmin**2*Emin(t)/n", "sphere", free="C",
                     budget=6, refine_budget=0, plot=None, assume=("GammaMax < 1",))
    inapplicable = [s for s in result.searched if s.extreme.status == "inapplicable"]
    assert inapplicable and all("GammaMax < 1" in s.extreme.note for s in inapplicable)
    assert list(result.reasons()) == ["inapplicable: --assume GammaMax < 1 fails: "
                                      "`GammaMax < 1`"]
    assert result.verdict == "SHARPEST FOUND", result.report()
    assert "--assume 'GammaMax < 1'" in result.replay()
    assert all("--assume 'GammaMax < 1'" in c for c in result.conjecture_commands().values())


def test_a_claim_is_tightened_on_its_experiments_runs():
    """S001-F9 is stated for E-001-3's SGD run, which no family draws: the table tightens it
    on that run, with the witness's 2% check, and no replay command is offered."""
    from papers.s001.e001_3 import alignment_runs
    from verify.tighten.search import tighten_claim_on_runs

    runs = alignment_runs()
    norms = tighten_claim_on_runs("S001-F9", runs, part=2, label="E-001-3 runs")
    assert norms.verdict == "SHARPEST FOUND", norms.report()
    assert norms.witness.searched.params == {"run": "E-001-3 both layers"}
    assert norms.direction > 0 and 0 < norms.sharpest < 1  # NormChange <= C/100, C = 1 holds
    assert norms.replay() == "" and "no replay command" in norms.report()
    directions = tighten_claim_on_runs("S001-F9", runs, part=1)
    assert directions.direction < 0 and directions.sharpest > 1  # DirChange >= C, C = 1 holds
