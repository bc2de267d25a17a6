"""A sweep on another model: the [model] table reaches every instance and the stored rows."""

from __future__ import annotations

import json

import pytest

from verify.sweep import parse_config, plan, read_rows, run_sweep
from verify.sweep.config import SweepConfigError

BASE = {"name": "m", "generator": "sphere", "seeds": 2, "grid": {"n": [6], "d": [4], "p": [5]},
        "method": {"name": "flow", "t_max": 2.0, "points": 3}}


def test_the_model_table_reaches_instances_rows_and_keys(tmp_path):
    relu = parse_config(BASE)
    leaky = parse_config({**BASE, "model": {"activation": "leaky:0.2", "train": "first"}})
    (b_relu,), (b_leaky,) = plan(relu), plan(leaky)
    assert b_relu.config_hash != b_leaky.config_hash
    problems = b_leaky.problems()
    assert all(q.activation.spec == "leaky:0.2" and q.train == "first" for q in problems)
    run_sweep(leaky, tmp_path, progress=False)
    rows = read_rows(tmp_path)
    assert len(rows) == 2
    assert all(json.loads(r["options"])["model"] == {"activation": "leaky:0.2",
                                                     "train": "first"} for r in rows)


@pytest.mark.parametrize("model, name", [({"activation": "gelu"}, "model.activation"),
                                         ({"depth": 2}, "model.depth"),
                                         ({"bias": -1}, "model.bias")])
def test_bad_model_options_are_named(model, name):
    with pytest.raises(SweepConfigError, match=name.replace(".", r"\.")):
        parse_config({**BASE, "model": model})
