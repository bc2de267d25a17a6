"""The "E-000-2 by the gradient flow" section: pairing, the paired test, what it may claim."""

from __future__ import annotations

import pytest

from papers.s000 import repro_flow_threshold as rf


def _row(n, seed, success, status="success", final=None, error=1e-10, d=10):
    final = (0.1 if success else 10.0) / (2 * n) if final is None else final
    return {"d": d, "n": n, "seed": seed, "success": int(success), "status": status,
            "final_loss": final, "error_estimate": error}


def test_mcnemar_exact_values():
    assert rf.mcnemar(0, 0) == 1.0
    assert rf.mcnemar(5, 0) == pytest.approx(2 * 0.5**5)
    assert rf.mcnemar(8, 0) == pytest.approx(2 * 0.5**8)
    assert rf.mcnemar(3, 3) == 1.0


def test_pairs_follow_seeds_and_leave_out_undecided_flows():
    flow = [_row(40, s, True) for s in range(6)]
    flow.append(_row(40, 6, True, status="chattering"))
    flow.append(_row(40, 7, True, final=1.0 / 80 * (1 + 1e-12)))  # at 1/(2n) within error
    gd = [_row(40, s, s < 2) for s in range(8)]
    pt = rf.pair_rows(flow, gd)[(10, 40)]
    assert (pt["pairs"], pt["flow"], pt["gd"], pt["flow_only"], pt["gd_only"],
            pt["undecided"]) == (6, 6, 2, 4, 0, 2)
    assert pt["flow_interval"][0] > 0.5 and pt["gd_interval"][1] < 0.8


def _data(flow_only, gd_only, pairs=8):
    total = {"pairs": pairs, "flow": flow_only, "gd": gd_only, "flow_only": flow_only,
             "gd_only": gd_only, "undecided": 0, "mcnemar_p": rf.mcnemar(flow_only, gd_only)}
    return {"total": total, "differ": [], "d_values": [10], "threshold_flow": {10: 50.0},
            "threshold_gd": {10: 30.0}}


def test_a_difference_is_a_finding_only_when_the_paired_test_rejects():
    decided = rf._finding(_data(8, 0))
    assert "not the gradient flow" in decided and "8 converge under the flow" in decided
    assert rf._finding(_data(4, 0)) == ""  # p = 0.125: not decided
    assert rf._comparison(_data(4, 0)).startswith("Not decided")
    assert rf._comparison(_data(0, 0)).startswith("The flow and gradient descent")
