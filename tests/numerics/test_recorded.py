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
from verify.engine.check import check
from verify.engine.verdict import Outcome
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
    assert run.departure == ""
    ours = simulate(run.problem, GradientDescent(lr=0.05), run.t)
    theirs = [r.verdict for r in check_run(claims, run)]
    mine = [r.verdict for r in check_run(claims, ours)]
    assert [v.outcome for v in theirs] == [v.outcome for v in mine]
    assert len(theirs) >= 10
    for a, b in zip(theirs, mine, strict=True):  # the same numbers, up to float64 rounding
        if np.isfinite(b.margin):
            assert a.margin == pytest.approx(b.margin, rel=1e-6, abs=1e-12), a.claim_id


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("mse", [False, True])
def test_one_loop_recorded_four_ways_gives_gradient_descents_table(dtype, mse):
    """MSELoss (the flow of 2L, loss_scale 2) or MSE / 2, float32 or float64: the verdict
    table of gfverify's own gradient descent on the record's Problem, row for row, up to
    INCONCLUSIVE where float32's rounding is larger than a margin; never a VIOLATED flow
    identity, never an INAPPLICABLE from an exact-equality assumption."""
    claims, _ = select(["S002", "CF-13", "CEL23-P1b"])
    loss_fn = nn.MSELoss() if mse else None
    rec = _train(_network(dtype=dtype), 0.05, 150.0, dtype=dtype, loss_fn=loss_fn,
                 init_scale=1e-6, loss_scale=2.0 if mse else 1.0)
    run = rec.trajectory()
    assert run.departure == "", run.departure
    ours = simulate(run.problem, GradientDescent(lr=run.options["lr"]), run.t)
    theirs = check_run(claims, run)
    mine = check_run(claims, ours)
    for a, b, claim in zip(theirs, mine, claims, strict=True):
        va, vb = a.verdict, b.verdict
        assert va.outcome is not Outcome.VIOLATED or vb.outcome is Outcome.VIOLATED, va
        if va.outcome is Outcome.INAPPLICABLE:
            assert vb.outcome is Outcome.INAPPLICABLE, (va, vb)
        if dtype == torch.float64:
            assert va.outcome is vb.outcome, (va, vb)
        elif va.outcome is not vb.outcome:  # float32: undecided where its rounding is larger
            assert va.outcome is Outcome.INCONCLUSIVE, (va, vb)
        if claim.id in ("S002-D1", "CEL23-P1b"):  # the flow's own equations
            assert va.outcome is not Outcome.VIOLATED, va
        if va.outcome is Outcome.INAPPLICABLE:  # never an exact balance missed by rounding
            assert "balanced initialisation" not in va.reason, va
    assert sum(a.verdict.outcome is Outcome.HOLDS for a in theirs) >= 3


def test_an_mse_loop_is_the_flow_of_2l_read_at_twice_its_times():
    from verify.engine.run_context import in_claim_convention

    d1 = theory.get("S002-D1")
    rec = _train(_network(), 0.05, 30.0, loss_fn=nn.MSELoss(), loss_scale=2.0,
                 init_scale=1e-6)
    run = rec.trajectory()
    read = in_claim_convention(d1, run)
    assert read.problem.loss_scale == 1.0 and np.allclose(read.t, 2 * run.t)
    assert np.allclose(read.loss, run.loss / 2)
    assert read.companion is not None and np.allclose(read.companion.t, 2 * run.t)
    assert check(d1, run).outcome is not Outcome.VIOLATED
    # the same formula claimed for the flow of 2L is wrong: a claim in the wrong convention
    wrong = d1.variant("2L", loss_scale=2.0)
    assert check(wrong, _train(_network(), 0.05, 30.0, init_scale=1e-6).trajectory()
                 ).outcome is Outcome.VIOLATED


def test_the_distance_to_the_flow_halves_with_the_step(s002_runs):
    far, near = (compare_with_flow(s002_runs[lr]) for lr in (0.05, 0.025))
    order = np.log2(far["flow"].max() / near["flow"].max())
    assert 0.8 < order < 1.2
    # the loop is gfverify's gradient descent at its step, to float64 rounding
    assert far["gd"].max() < 1e-10 and near["gd"].max() < 1e-10
    for lr, cmp in ((0.05, far), (0.025, near)):  # the estimate bounds the true error
        assert s002_runs[lr].error_estimate >= cmp["flow"].max()


def test_weight_decay_makes_the_flows_claims_inapplicable_and_shows_when_it_departs():
    cf13 = theory.get("CF-13")
    clean = _train(_network(lam=0.5, ratio=2.0), 0.05, 150.0, init_scale=0.5).trajectory()
    decay = _train(_network(lam=0.5, ratio=2.0), 0.05, 150.0, weight_decay=1e-3,
                   init_scale=0.5).trajectory()
    assert clean.departure == "" and check(cf13, clean).outcome.value != "VIOLATED"
    # measured (the loop gave no optimiser): from its first steps it is not gradient descent
    assert "its distance to gfverify's descent" in decay.departure
    assert decay.options["departs_at"] <= 3.0
    verdict = check(cf13, decay)
    assert verdict.outcome is Outcome.INAPPLICABLE and "not gradient descent" in verdict.reason
    # a statement about the run as it was made is still checked, and shows where it fails
    as_made = cf13.variant("as made", loss_scale=None)
    verdict = check(as_made, decay)
    assert verdict.outcome is Outcome.VIOLATED
    first = first_failure(as_made, decay, verdict)
    assert first is not None and 0 < first <= verdict.where.t
    k = int(np.searchsorted(decay.t, first))
    assert decay.t[k] == first


def _train_with(opt_factory, lr=0.05, horizon=30.0, give_optimizer=True, schedule=None,
                ratio=2.0):
    """A loop driven by ``opt_factory``'s optimiser (and ``schedule``'s, stepped after each
    update), saving every 10 steps; the recorder given the optimiser or only the step."""
    model = _network(lam=0.5, ratio=ratio)
    X, y = torch.eye(4, dtype=torch.float64), torch.tensor(Y, dtype=torch.float64)
    opt = opt_factory(model.parameters())
    sched = schedule(opt) if schedule else None
    rec = Recorder(model, X, y, **({"optimizer": opt} if give_optimizer else {"lr": lr}),
                   init_scale=0.5)
    for step in range(round(horizon / lr) + 1):
        loss = ((model(X).squeeze(1) - y) ** 2).mean() / 2
        if step % 10 == 0:
            rec.save(step, loss)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
    return rec


@pytest.mark.parametrize("give_optimizer", [True, False])
@pytest.mark.parametrize(("factory", "words"), [
    (lambda p: torch.optim.Adam(p, lr=0.05), "Adam"),
    (lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9), "momentum 0.9"),
    (lambda p: torch.optim.SGD(p, lr=0.05, weight_decay=1e-2), "weight decay 0.01"),
])
def test_a_loop_that_is_not_gradient_descent_gets_no_verdict_of_the_flow(factory, words,
                                                                       give_optimizer):
    run = _train_with(factory, give_optimizer=give_optimizer).trajectory()
    # declared (the optimiser was given: its class and settings) or measured (it was not)
    assert (words if give_optimizer else "rounding explains") in run.departure
    claims, _ = select(["S002", "CF-13"])
    for r in check_run(claims, run):
        v = r.verdict
        assert v.outcome is not Outcome.VIOLATED, v
        if not r.hypothesis and not theory.get(v.claim_id).instance_property:
            assert v.outcome is Outcome.INAPPLICABLE and "not gradient descent" in v.reason


def test_the_optimiser_is_recorded_in_the_file_and_read_back(tmp_path):
    rec = _train_with(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.5), horizon=1.0)
    path = rec.write(tmp_path / "m.npz")
    run = recorded(path, reference=False)
    assert "momentum 0.5" in run.departure
    assert "SGD(lr=0.05, momentum=0.5" in run.provenance["run"]
    plain = _train_with(lambda p: torch.optim.SGD(p, lr=0.05), horizon=1.0)
    assert plain.model.optimizer.is_gradient_descent
    assert recorded(plain.write(tmp_path / "p.npz"), reference=False).departure == ""


def test_a_learning_rate_schedule_is_recorded_as_a_departure():
    rec = _train_with(lambda p: torch.optim.SGD(p, lr=0.05), horizon=3.0, ratio=1.0,
                      schedule=lambda opt: torch.optim.lr_scheduler.StepLR(opt, 20, 0.5))
    assert rec.model.optimizer.lr_changes[0] == (20, 0.025)
    assert "step changed during the run" in rec.model.optimizer.departure()


class _Net(nn.Module):
    """A research-code network: its own module, attributes named as its authors like."""

    def __init__(self, d=4, p=30, act=None):
        super().__init__()
        self.hidden = nn.Linear(d, p, bias=True)
        self.predict = nn.Linear(p, 1, bias=False)
        self.act = act

    def forward(self, x):
        z = self.hidden(x)
        return self.predict(self.act(z) if self.act is not None else torch.relu(z))


@pytest.mark.parametrize("act", [nn.ReLU(), None, nn.LeakyReLU(0.2)])
def test_your_own_module_is_mapped_by_structure(act):
    net = _Net(act=act).double()
    rec = Recorder(net, torch.eye(4, dtype=torch.float64),
                   torch.tensor(Y, dtype=torch.float64), lr=0.05)
    assert rec.first is net.hidden and rec.second is net.predict
    assert rec.model.activation == ("leaky:0.2" if isinstance(act, nn.LeakyReLU) else "relu")
    assert rec.model.hidden_bias == 1.0


def test_named_layers_and_an_activation_the_output_contradicts():
    net = _Net(act=None).double()
    X, y = torch.eye(4, dtype=torch.float64), torch.tensor(Y, dtype=torch.float64)
    rec = Recorder(net, X, y, lr=0.05, layers=(net.hidden, net.predict))
    assert rec.model.activation == "relu"
    with pytest.raises(RecordError, match="differs by"):  # F.relu, declared leaky
        Recorder(net, X, y, lr=0.05, activation="leaky:0.3")
    with pytest.raises(RecordError, match="layers: the last is a ReLU"):
        Recorder(net, X, y, lr=0.05, layers=(net.hidden, nn.ReLU()))


def test_a_balanced_float32_start_meets_the_balance_assumptions():
    """A float32 balanced start |a_j| = |w_j| holds to float32's rounding (the authors'
    loop: 113 of 200 neurons below by 7e-8 relative), not float64's."""
    from verify.engine.check_run import inapplicable_instance

    torch.manual_seed(3)
    net = _Net(d=1, p=200, act=nn.ReLU())
    with torch.no_grad():
        net.hidden.weight.normal_(0, 1e-3)
        net.hidden.bias.normal_(0, 1e-3)
        norms = (net.hidden.weight.norm(dim=1) ** 2 + net.hidden.bias ** 2).sqrt()
        net.predict.weight.copy_((2 * torch.bernoulli(0.5 * torch.ones(1, 200)) - 1) * norms)
    X = torch.tensor([[-0.75], [-0.5], [0.125]])
    y = torch.tensor([1.1, 0.1, 0.8])
    rec = Recorder(net, X, y, lr=1e-3, init_scale=1e-3, loss_scale=2.0)
    rec.save(0, nn.MSELoss()(net(X).squeeze(1), y))
    problem = rec.trajectory(reference=False).problem
    a, w = np.abs(problem.a0), np.linalg.norm(problem.W0, axis=1)
    assert np.any(a < w)  # not balanced in float64's arithmetic
    for cid in ("BF25-L1", "BF25-T1", "S002-L1"):
        why = inapplicable_instance(theory.get(cid), problem) or ""
        assert "Eq. (4)" not in why and "balanced" not in why, (cid, why)
    # a real imbalance is named, with the neuron and by how much
    unbalanced = Problem(X=problem.X, y=problem.y, W0=problem.W0, a0=problem.a0 * 0.9,
                         meta=dict(problem.meta))
    why = inapplicable_instance(theory.get("BF25-L1"), unbalanced)
    assert "Eq. (4) fails" in why and "neuron" in why and "of |a_j| + |w_j|" in why


def test_a_claim_between_two_saved_times_is_interpolated_with_its_error(s002_runs):
    run = s002_runs[0.05]
    l2 = theory.get("S002-L2")
    from verify.engine.check_run import instance_scalar

    at = instance_scalar(l2, run, l2.window[0])
    assert not np.any(np.abs(run.t - at) < 1e-6)  # not a saved time
    verdict = check(l2, run)
    assert "interpolated between the saved times" in verdict.reason or verdict.outcome in (
        Outcome.HOLDS, Outcome.VIOLATED)
    assert verdict.where.t == pytest.approx(at)
    # a saved time that differs from the claim's in its last bits counts as that time
    import dataclasses

    t = run.t.copy()
    t[int(np.argmin(np.abs(t - at)))] = at * (1 + 1e-13)
    moved = dataclasses.replace(run, t=t, companion=dataclasses.replace(run.companion, t=t))
    shifted = check(l2, moved)
    assert "interpolated" not in shifted.reason and shifted.where.t == pytest.approx(at)


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
                           nn.Linear(8, 1)), "3 nn.Linear modules"),
    (lambda: nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 1)),
     "BatchNorm1d"),
    (lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3, bias=False)),
     "vector output"),
    (lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)), "output bias"),
    (lambda: nn.Linear(4, 1), "1 nn.Linear modules"),
    (lambda: nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1, bias=False)), "Tanh"),
])
def test_the_recorder_refuses_what_it_cannot_map_in_one_line(model, words):
    with pytest.raises(RecordError) as err:
        Recorder(model(), torch.eye(4), torch.ones(4), lr=0.1)
    text = str(err.value)
    assert words in text and ("it reads a two-layer network" in text or "name them" in text)
    assert "\n" not in text


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
