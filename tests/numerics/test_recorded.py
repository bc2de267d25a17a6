"""Recorded runs (numerics.recorded) and the PyTorch recorder (numerics.recorder): a loop's
record is checked as gfverify's own gradient descent at its step is, a loop with a bug is
caught, and a record that is not what it declares is refused with one line."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn as nn

import theory
from numerics import GradientDescent, Problem, simulate
from numerics.recorded import (
    RecordError,
    RunModel,
    compare_with_flow,
    recorded,
    write_run,
)
from numerics.recorder import Recorder
from verify.check import check
from verify.recorded.claims import check_run, first_failure, select

Y = (1.0, -0.7, 1.3, -1.2)


def _network(p=30, lam=1e-6, ratio=1.0, dtype=torch.float64, seed=0, d=4, bias=False):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(d, p, bias=bias), nn.ReLU(),
                          nn.Linear(p, 1, bias=False)).to(dtype)
    with torch.no_grad():
        W = lam * torch.randn(p, d, dtype=dtype)
        signs = torch.where(torch.rand(p) < 0.5, -1.0, 1.0).to(dtype)
        model[0].weight.copy_(W)
        model[2].weight.copy_((ratio * signs * W.norm(dim=1))[None])
        if bias:
            model[0].bias.zero_()
    return model


def _train(model, lr, horizon, every_time=1.5, weight_decay=0.0, loss_fn=None,
           dtype=torch.float64, **recorder):
    X = torch.eye(4, dtype=dtype)
    y = torch.tensor(Y, dtype=dtype)
    opt = torch.optim.SGD(model.parameters(), lr=lr, weight_decay=weight_decay)
    rec = Recorder(model, X, y, lr=lr, **recorder)
    every = max(1, round(every_time / lr))
    for step in range(round(horizon / lr) + 1):
        out = model(X).squeeze(1)
        loss = loss_fn(out, y) if loss_fn else ((out - y) ** 2).mean() / 2
        if step % every == 0:
            rec.save(step, loss)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return rec


@pytest.fixture(scope="module")
def s002_runs():
    """S002's setting trained by a plain torch loop at lr and lr / 2 (float64)."""
    return {lr: _train(_network(), lr, 150.0, init_scale=1e-6).trajectory()
            for lr in (0.05, 0.025)}


def test_a_torch_loop_gives_the_verdicts_of_gradient_descent_row_for_row(s002_runs):
    claims, _ = select(["S002", "CF-13"])
    run = s002_runs[0.05]
    assert run.method == "recorded_gradient_descent"
    assert run.options["error_from"] == "gd_step_halving"
    ours = simulate(run.problem, GradientDescent(lr=0.05), run.t)
    theirs = [r.verdict for r in check_run(claims, run)]
    mine = [check(c, ours) for c in claims]
    assert [v.outcome for v in theirs] == [v.outcome for v in mine]
    assert len(theirs) >= 10
    for a, b in zip(theirs, mine, strict=True):  # the same numbers, up to float64 rounding
        if np.isfinite(b.margin):
            assert a.margin == pytest.approx(b.margin, rel=1e-6, abs=1e-12), a.claim_id


def test_the_distance_to_the_flow_halves_with_the_step(s002_runs):
    far, near = (compare_with_flow(s002_runs[lr]) for lr in (0.05, 0.025))
    order = np.log2(far["flow"].max() / near["flow"].max())
    assert 0.8 < order < 1.2
    # the loop is gfverify's gradient descent at its step, to float64 rounding
    assert far["gd"].max() < 1e-10 and near["gd"].max() < 1e-10
    for lr, cmp in ((0.05, far), (0.025, near)):  # the estimate bounds the true error
        assert s002_runs[lr].error_estimate >= cmp["flow"].max()


def test_weight_decay_is_caught_with_the_first_time_balancedness_fails():
    cf13 = theory.get("CF-13")
    clean = _train(_network(lam=0.5, ratio=2.0), 0.05, 150.0, init_scale=0.5).trajectory()
    decay = _train(_network(lam=0.5, ratio=2.0), 0.05, 150.0, weight_decay=1e-3,
                   init_scale=0.5).trajectory()
    assert check(cf13, clean).outcome.value != "VIOLATED"
    verdict = check(cf13, decay)
    assert verdict.outcome.value == "VIOLATED"
    first = first_failure(cf13, decay, verdict)
    assert first is not None and 0 < first <= verdict.where.t
    # before the first failure every saved time is within the error; at it, not
    k = int(np.searchsorted(decay.t, first))
    assert decay.t[k] == first


@pytest.mark.parametrize(("loss_fn", "words"), [
    (nn.MSELoss(), "MSELoss"),
    (lambda out, y: ((out - y) ** 2).sum() / 2, "a sum over the samples"),
    (lambda out, y: ((out / 30 - y) ** 2).mean() / 2, "parametrization='mean_field'"),
])
def test_a_loss_in_another_convention_is_named_at_the_first_save(loss_fn, words):
    with pytest.raises(RecordError, match="first save") as err:
        _train(_network(lam=0.5), 0.05, 1.0, loss_fn=loss_fn)
    assert words in str(err.value)


def test_a_declared_convention_records_the_loop_as_it_is():
    rec = _train(_network(lam=0.5), 0.05, 3.0, loss_fn=nn.MSELoss(), loss_scale=2.0)
    run = rec.trajectory(reference=False)
    assert run.problem.loss_scale == 2.0
    assert np.allclose(run.loss, rec.losses, rtol=1e-12)


def test_mean_field_time_is_the_step_over_p():
    p, lr = 12, 0.3
    model = _network(p=p, lam=0.5)
    rec = _train(model, lr, 3.0, loss_fn=lambda out, y: ((out / p - y) ** 2).mean() / 2,
                 parametrization="mean_field", every_time=lr)
    run = rec.trajectory()
    assert run.t[1] == pytest.approx(lr / p)
    ours = simulate(run.problem, GradientDescent(lr=lr / p), run.t)
    assert np.max(np.abs(ours.W - run.W)) < 1e-12


@pytest.mark.parametrize("setup", ["bias", "frozen_first", "frozen_second", "leaky", "float32"])
def test_the_recorder_maps_each_supported_network(setup):
    kw = {"bias": setup == "bias", "dtype": torch.float32 if setup == "float32" else
          torch.float64}
    model = _network(lam=0.5, **kw)
    if setup == "leaky":
        model[1] = nn.LeakyReLU(0.1)
    if setup == "frozen_first":
        model[0].weight.requires_grad_(False)
    if setup == "frozen_second":
        model[2].weight.requires_grad_(False)
    rec = _train(model, 0.05, 3.0, dtype=kw["dtype"])
    run = rec.trajectory()
    expected_train = {"frozen_first": "second", "frozen_second": "first"}.get(setup, "both")
    assert run.problem.train == expected_train
    assert type(run.problem.activation).__name__ == ("LeakyReLU" if setup == "leaky" else "ReLU")
    if setup == "bias":
        assert run.problem.d == 5 and np.all(run.problem.X[:, -1] == 1.0)
    if setup == "float32":  # float32's rounding is counted, not float64's
        assert run.options["dtype"] == "float32"
        assert run.error_of(lambda r: r.W).max() > 1e-9
    ours = simulate(run.problem, GradientDescent(lr=0.05, dtype="float64"), run.t)
    tol = 1e-4 if setup == "float32" else 1e-12
    assert np.max(np.abs(ours.W - run.W)) < tol * np.max(np.abs(run.W))


@pytest.mark.parametrize(("model", "words"), [
    (lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(),
                           nn.Linear(8, 1)), "5 modules"),
    (lambda: nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 1)),
     "BatchNorm1d"),
    (lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3, bias=False)),
     "vector output"),
    (lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)), "output bias"),
    (lambda: nn.Linear(4, 1), "not an nn.Sequential"),
])
def test_the_recorder_refuses_what_it_cannot_map_in_one_line(model, words):
    with pytest.raises(RecordError) as err:
        Recorder(model(), torch.eye(4), torch.ones(4), lr=0.1)
    assert words in str(err.value) and "it reads nn.Sequential" in str(err.value)
    assert "\n" not in str(err.value)


def _arrays(T=5, p=3, n=4, d=4):
    rng = np.random.default_rng(0)
    W = rng.standard_normal((T, p, d))
    return {"X": np.eye(n, d), "y": np.array(Y[:n]), "times": np.arange(T) * 0.1, "W": W,
            "a": np.linalg.norm(W, axis=-1)}


def test_write_and_read_back(tmp_path):
    arrays = _arrays()
    model = RunModel(method="flow", dtype="float64", note="test")
    path = write_run(tmp_path / "r.npz", model=model, **arrays)
    run = recorded(path, reference=False)
    assert run.method == "recorded_flow" and run.t.shape == (5,)
    assert np.array_equal(run.W, arrays["W"])
    assert run.provenance["recorded"] == str(path)
    # rounding only: the companion differs by one float64 unit per weight
    assert 0 < run.error_estimate < 1e-15


@pytest.mark.parametrize(("change", "words"), [
    (lambda a: a.pop("W"), "missing array 'W'"),
    (lambda a: a.update(a=a["a"][:, :2]), "a: expected shape"),
    (lambda a: a.update(times=a["times"][::-1].copy()), "times: must be"),
    (lambda a: a["W"].__setitem__((1, 0, 0), np.nan), "W: contains NaN"),
    (lambda a: a.update(y=np.ones(3)), "y: expected shape"),
])
def test_a_bad_record_is_refused_naming_the_array(tmp_path, change, words):
    arrays = _arrays()
    change(arrays)
    path = tmp_path / "r.npz"
    np.savez(path, model=np.array(RunModel(method="flow").to_json()), **arrays)
    with pytest.raises(RecordError) as err:
        recorded(path)
    assert words in str(err.value) and str(path) in str(err.value)
    if "W" in arrays:  # write_run refuses it too, and writes nothing
        with pytest.raises(RecordError, match=words.split(":")[0]):
            write_run(tmp_path / "w.npz", model=RunModel(method="flow"), **arrays)
        assert not (tmp_path / "w.npz").exists()


def test_a_record_whose_loss_is_not_its_convention_is_refused(tmp_path):
    arrays = _arrays()
    problem = Problem(X=arrays["X"], y=arrays["y"], W0=arrays["W"][0], a0=arrays["a"][0])
    tr = simulate(problem, GradientDescent(lr=0.1, error_check=None), arrays["times"])
    loss = 2 * tr.loss
    with pytest.raises(RecordError, match="MSELoss"):
        write_run(tmp_path / "r.npz", model=RunModel(method="flow"), loss=loss,
                  **{**arrays, "W": tr.W, "a": tr.a})
