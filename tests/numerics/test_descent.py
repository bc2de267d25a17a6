"""Gradient descent (`numerics.descent`): its torch formulas, its order, its batching.

Fast (a few seconds): small problems only.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from numerics import generators, network
from numerics import torch_network as tn
from numerics.descent import GradientDescent
from numerics.flow import ExactFlow, MethodError
from numerics.problem import Problem, ProblemError
from numerics.protocol_loop import protocol_descent
from numerics.simulate import simulate, simulate_batch
from numerics.trajectory import Status

# float64 agreement of two evaluations of the same formula in a different
# operation order: a few hundred ulps of the largest term.
FORMULA_RTOL = 1e-12
# Two float64 descents that differ only in how W is stored (span vs full) or in
# batching: round-off accumulates over the steps, far below this.
SAME_RUN_RTOL = 1e-10
BATCH_RTOL = 1e-12


def relative_gap(u: np.ndarray, v: np.ndarray) -> float:
    return float(np.max(np.abs(u - v)) / np.max(np.abs(v)))


def state_gap(run, reference) -> float:
    """max over saved times of the relative per-neuron difference (`Trajectory.state_error`)."""
    return float(np.max(dataclasses.replace(run, companion=reference).state_error))


def fitted_order(steps, errors) -> float:
    return float(np.polyfit(np.log(steps), np.log(errors), 1)[0])


# -- the torch mirror of numerics.network --------------------------------------------


def problem_with_an_exact_zero(seed, loss, parametrization, loss_scale) -> Problem:
    """Random weights away from init, with <w_0, x_0> = 0 exactly (relu'(0) = 0 matters)."""
    base = generators.sphere(7, 5, 4, seed)
    rng = np.random.default_rng(100 + seed)
    X = base.X.copy()
    X[0, 0] = 0.0
    W = rng.standard_normal((4, 5))
    W[0, 1:] = 0.0
    y = base.y if loss == "square" else np.sign(base.y)
    return Problem(X=X, y=y, W0=W, a0=rng.standard_normal(4), loss=loss,
                   parametrization=parametrization, loss_scale=loss_scale)


@pytest.mark.parametrize("loss", ["square", "exponential", "logistic"])
@pytest.mark.parametrize("parametrization", ["standard", "mean_field"])
def test_torch_formulas_equal_network_formulas(loss, parametrization):
    problems = [problem_with_an_exact_zero(seed, loss, parametrization, scale)
                for seed, scale in ((1, 1.0), (2, 2.5))]
    batch = tn.TorchBatch.from_problems(problems, torch.float64)
    W = torch.from_numpy(np.stack([q.W0 for q in problems]))
    a = torch.from_numpy(np.stack([q.a0 for q in problems]))
    Z = tn.preactivations(W, batch)  # neuron-major (B, p, n)
    assert Z[0, 0, 0] == 0.0 and Z[1, 0, 0] == 0.0
    h = tn.outputs_from_preactivations(batch, a, Z)
    loss_values = tn.loss_from_outputs(batch, h).numpy()
    g = tn.loss_derivative(batch, h).numpy()
    gW, ga = tn.gradient(batch, W, a)
    for b, q in enumerate(problems):
        h_ref = network.outputs(q, q.W0, q.a0)
        gW_ref, ga_ref = network.gradient(q, q.W0, q.a0)
        assert relative_gap(h[b].numpy(), h_ref) < FORMULA_RTOL
        assert relative_gap(loss_values[b], network.loss_from_outputs(q, h_ref)) < FORMULA_RTOL
        assert relative_gap(g[b], network.loss_derivative(q, h_ref)) < FORMULA_RTOL
        assert relative_gap(gW[b].numpy(), gW_ref) < FORMULA_RTOL
        assert relative_gap(ga[b].numpy(), ga_ref) < FORMULA_RTOL


# -- convergence to the flow ------------------------------------------------------------


def test_descent_converges_to_the_flow_at_first_order():
    """Errors at lr, lr/2, lr/4, lr/8 against ExactFlow: log-log slope ~ 1 (S000-F4)."""
    problem = generators.two_point(p=6, lam=0.5, seed=1)
    t_eval = np.linspace(0.0, 4.0, 5)  # the flow crosses activation boundaries here
    flow = simulate(problem, ExactFlow(rtol=1e-12, error_check=None), t_eval)
    assert flow.status is Status.SUCCESS and len(flow.t) == len(t_eval)
    assert len(flow.events) > 0
    steps = 0.04 / 2.0 ** np.arange(4)
    errors, estimates, drifts = [], [], []
    for lr in steps:
        run = simulate(problem, GradientDescent(lr=float(lr)), t_eval)
        errors.append(state_gap(run, flow))
        estimates.append(run.error_estimate)
        drifts.append(run.conservation_drift)
    assert 0.9 <= fitted_order(steps, errors) <= 1.1
    # The flow conserves c_j = a_j^2 - ||w_j||^2; descent does not (CF-2).
    assert flow.conservation_drift < 1e-6 * min(drifts)
    # The step-halving (Richardson) estimate tracks the true error: measured
    # ratios 1.002-1.016; the band allows for higher-order terms.
    ratio = np.array(estimates) / np.array(errors)
    assert np.all((ratio > 0.8) & (ratio < 1.25)), ratio


def test_mean_field_time_is_steps_times_lr():
    """kappa = p: one step of lr moves theta by -lr * p * grad L (published protocol)."""
    problem = generators.sphere(6, 4, 5, seed=3)
    run = simulate(problem, GradientDescent(lr=0.01, error_check=None), [0.0, 0.01])
    gW, ga = network.gradient(problem, problem.W0, problem.a0)
    assert relative_gap(run.W[1], problem.W0 - 0.01 * 5 * gW) < FORMULA_RTOL
    assert relative_gap(run.a[1], problem.a0 - 0.01 * 5 * ga) < FORMULA_RTOL
    assert run.n_steps == 1 and np.allclose(run.t, [0.0, 0.01])


# -- batching, span of the data, dtype ----------------------------------------------------


def test_batched_equals_one_at_a_time():
    problems = [generators.sphere(8, 5, 6, seed) for seed in (3, 4, 5, 7)]
    method = GradientDescent(lr=0.02, stop_loss=0.05)
    t_eval = 0.02 * np.array([0, 50, 200, 400])
    together = simulate_batch(problems, method, t_eval)
    stop_times = [tr.stop_time for tr in together]
    assert len(set(stop_times) - {None}) == 2 and None in stop_times  # seeds 3, 5 stop; 4, 7 not
    for q, tr in zip(problems, together, strict=True):
        alone = simulate(q, method, t_eval)
        assert tr.problem is q and tr.stop_time == alone.stop_time
        assert relative_gap(tr.W, alone.W) < BATCH_RTOL
        assert relative_gap(tr.a, alone.a) < BATCH_RTOL
        assert abs(tr.error_estimate - alone.error_estimate) <= BATCH_RTOL * alone.error_estimate


def test_span_of_the_data_equals_full_space():
    problem = generators.sphere(n=5, d=40, p=6, seed=4)  # n < d
    t_eval = 0.05 * np.array([0, 10, 100, 300])
    span = simulate(problem, GradientDescent(lr=0.05, space="span"), t_eval)
    full = simulate(problem, GradientDescent(lr=0.05, space="full"), t_eval)
    auto = simulate(problem, GradientDescent(lr=0.05), t_eval)
    assert np.array_equal(span.activation[-1], full.activation[-1])
    assert not np.array_equal(full.activation[0], full.activation[-1]), "patterns should change"
    assert relative_gap(span.W, full.W) < SAME_RUN_RTOL
    assert relative_gap(span.a, full.a) < SAME_RUN_RTOL
    assert np.array_equal(auto.W, span.W)  # "auto" chooses the span when n < d


def test_orthogonal_data_take_the_diagonal_gram_path_and_agree_with_full_space():
    # x_i = c_i e_i: G is diagonal, the span state scales rows instead of multiplying by G
    problem = generators.orthogonal_scaled(n=6, d=30, p=5, seed=2, repo_orth=True)
    t_eval = 1.0 * np.array([0, 20, 150, 400])
    span = simulate(problem, GradientDescent(lr=1.0, space="span"), t_eval)
    full = simulate(problem, GradientDescent(lr=1.0, space="full"), t_eval)
    assert not np.array_equal(full.activation[0], full.activation[-1]), "patterns should change"
    assert full.loss[-1] < 0.5 * full.loss[0]
    assert relative_gap(span.W, full.W) < SAME_RUN_RTOL
    assert relative_gap(span.a, full.a) < SAME_RUN_RTOL
    # n = d orthogonal data: "auto" still takes the O(np) path (same numbers as "span")
    square = generators.orthogonal_scaled(n=6, d=6, p=5, seed=2, repo_orth=True)
    auto = simulate(square, GradientDescent(lr=1.0), t_eval)
    assert np.array_equal(auto.W, simulate(square, GradientDescent(lr=1.0, space="span"),
                                           t_eval).W)


def test_step_loss_is_the_loss_at_every_step_up_to_the_stop():
    problem = generators.sphere(8, 5, 6, seed=3)
    lr = 0.02
    every_step = simulate(problem, GradientDescent(lr=lr, error_check=None), lr * np.arange(401))
    assert np.allclose(every_step.step_loss, every_step.loss, rtol=1e-13, atol=0)
    stopped = simulate(problem, GradientDescent(lr=lr, stop_loss=0.05), lr * np.array([0, 400]))
    assert len(stopped.step_loss) == stopped.n_steps + 1
    assert np.allclose(stopped.step_loss, every_step.loss[: stopped.n_steps + 1], rtol=1e-13)
    assert stopped.step_loss[-1] < 0.05 <= stopped.step_loss[-2]


def test_float32_is_close_to_float64():
    problem = generators.sphere(8, 5, 6, seed=5)
    t_eval = 0.02 * np.array([0, 100, 300])
    single = simulate(problem, GradientDescent(lr=0.02, dtype="float32"), t_eval)
    double = simulate(problem, GradientDescent(lr=0.02), t_eval)
    gap = state_gap(single, double)
    # float32 round-off (6e-8) accumulated over 300 steps; measured ~1e-6.
    assert 0 < gap < 1e-5
    assert single.options["dtype"] == "float32" and single.status is Status.SUCCESS


# -- the products on oneDNN ------------------------------------------------------------------

needs_onednn = pytest.mark.skipif(not tn.onednn_available(), reason="no oneDNN in this torch")


def test_auto_takes_onednn_for_large_float32_products_only():
    big, small = (1000, 100, 10), (100, 10, 30)
    expected = "onednn" if tn.onednn_available() else "blas"
    assert tn.resolve_gemm("auto", torch.float32, *big) == expected
    assert tn.resolve_gemm("auto", torch.float32, *small) == "blas"
    assert tn.resolve_gemm("auto", torch.float64, *big) == "blas"
    assert tn.resolve_gemm("blas", torch.float32, *big) == "blas"
    with pytest.raises(ValueError, match="^gemm: 'onednn'.*float32"):
        tn.resolve_gemm("onednn", torch.float64, *small)


@needs_onednn
def test_onednn_products_agree_with_batched_matmul_and_float64():
    problems = [generators.sphere(40, 10, 8, seed) for seed in (0, 1, 2)]
    t_eval = np.array([0.0, 100.0, 400.0])
    runs = {gemm: simulate_batch(problems, GradientDescent(lr=1.0, dtype="float32",
                                                           stop_loss=0.05, gemm=gemm), t_eval)
            for gemm in ("onednn", "blas")}
    double = simulate_batch(problems, GradientDescent(lr=1.0, stop_loss=0.05), t_eval)
    assert {tr.provenance["gemm"] for tr in runs["onednn"]} == {"onednn"}
    assert {tr.provenance["gemm"] for tr in runs["blas"]} == {"blas"}
    stops = [tr.stop_time for tr in runs["onednn"]]
    assert None in stops and set(stops) != {None}  # early stops, and runs to the end
    for fast, blas, exact in zip(runs["onednn"], runs["blas"], double, strict=True):
        assert not np.array_equal(fast.activation[0], fast.activation[-1])
        assert fast.stop_time == blas.stop_time == exact.stop_time
        # float32 round-off (6e-8), amplified over <= 400 steps at lr = 1: measured up to
        # 3.4e-5 on oneDNN and 2.2e-5 on batched matmul (a wrong product would be O(1))
        assert 0 < state_gap(fast, exact) < 2e-4 and state_gap(blas, exact) < 2e-4
        assert np.allclose(fast.step_loss, exact.step_loss, rtol=1e-3)  # measured 2.5e-4
        # the step-halving companion ran on oneDNN too, and estimates the same step error
        assert fast.companion.provenance["gemm"] == "onednn"
        assert fast.error_estimate == pytest.approx(exact.error_estimate, rel=1e-3)


@needs_onednn
def test_onednn_groups_leave_each_replicates_numbers_unchanged(monkeypatch):
    """Replicates descend in groups sized by ONEDNN_GROUP_BYTES; a replicate's products are
    its own oneDNN calls, so its numbers are the same in any group, or alone."""
    problems = [generators.sphere(40, 10, 8, seed) for seed in (0, 1, 2, 3, 4)]
    method = GradientDescent(lr=1.0, dtype="float32", stop_loss=0.05, gemm="onednn")
    t_eval = np.array([0.0, 50.0, 300.0])
    runs = {}
    for budget in (1, 2 * 8 * 40 * 10, 10 * 2**20):  # groups of 1, 2 and all 5
        monkeypatch.setattr(tn, "ONEDNN_GROUP_BYTES", budget)
        runs[budget] = simulate_batch(problems, method, t_eval)
    alone = [simulate(q, method, t_eval) for q in problems]
    for k, reference in enumerate(alone):
        for grouped in runs.values():
            tr = grouped[k]
            assert tr.problem is problems[k] and tr.stop_time == reference.stop_time
            assert np.array_equal(tr.W, reference.W) and np.array_equal(tr.a, reference.a)
            assert np.array_equal(tr.step_loss, reference.step_loss)
            assert np.array_equal(tr.companion.W, reference.companion.W)


def test_descent_is_the_published_loop():
    """Our closed-form, batched descent against the published protocol's loop (autograd,
    SGD on p L): same stop, same weights; in float32 on oneDNN where n d p >= 1e6."""
    stopping = generators.sphere(20, 10, 30, seed=1)  # stops at update 44 (n < the threshold)
    large = generators.sphere(1000, 40, 30, seed=0)  # n d p = 1.2e6: oneDNN in float32
    # float32 over 100 updates: measured 2e-7. (Near update 150 this large run meets a
    # pre-activation whose sign float32 cannot resolve: float32 runs then branch apart by
    # ~0.1 whatever computes them, the published loop against itself in float64 too.)
    cases = ((stopping, "float64", 200, 1e-12), (large, "float64", 200, 1e-12),
             (stopping, "float32", 100, 1e-5), (large, "float32", 100, 1e-5))
    for problem, dtype, epochs, rtol in cases:
        stop = 1.0 / (2 * problem.n)  # the protocol's p L < p / (2n)
        W, a, updates = protocol_descent(problem, epochs, dtype=tn.DTYPES[dtype],
                                         stop_objective=problem.p * stop)
        ours = simulate(problem, GradientDescent(lr=1.0, dtype=dtype, stop_loss=stop,
                                                 error_check=None), [0.0, float(epochs)])
        assert ours.n_steps == updates
        assert (updates < epochs) == (problem is stopping)
        assert relative_gap(ours.W[-1], W) < rtol and relative_gap(ours.a[-1], a) < rtol
        if dtype == "float32" and problem is large and tn.onednn_available():
            assert ours.provenance["gemm"] == "onednn"


# -- conserved quantities (CF-2) ------------------------------------------------------------


def test_one_step_erodes_balancedness_by_the_cf2_formula():
    """c_j^{k+1} - c_j^k = eta^2 (g_a^2 - ||g_w||^2) with eta = lr * kappa, <= 0 under A1."""
    problem = generators.sphere(9, 4, 5, seed=6)
    lr = 0.05
    run = simulate(problem, GradientDescent(lr=lr, error_check=None), [0.0, lr])
    gW, ga = network.gradient(problem, problem.W0, problem.a0)
    eta = lr * problem.flow_factor
    predicted = eta**2 * (ga**2 - np.sum(gW**2, axis=1))
    observed = run.balancedness[1] - run.balancedness[0]
    assert np.all(predicted < 0)  # |a_j| >= ||w_j|| at this initialisation
    assert np.max(np.abs(observed - predicted)) < 1e-12 * np.max(np.abs(run.balancedness[0]))


def test_balancedness_drift_over_a_fixed_time_is_first_order_in_lr():
    """O(lr^2) per step times T/lr steps: the drift by time T shrinks like lr."""
    problem = generators.sphere(9, 4, 5, seed=6)
    t_eval = [0.0, 2.0]
    steps = 0.04 / 2.0 ** np.arange(4)
    drifts = [simulate(problem, GradientDescent(lr=float(lr), error_check=None), t_eval)
              .conservation_drift for lr in steps]
    assert min(drifts) > 1e-6
    assert 0.9 <= fitted_order(steps, drifts) <= 1.1


# -- early stopping ------------------------------------------------------------------------


def test_early_stopping_freezes_at_the_first_step_below_the_threshold():
    problem = generators.sphere(8, 5, 6, seed=3)
    lr, stop_loss = 0.02, 0.05
    every_step = simulate(problem, GradientDescent(lr=lr, error_check=None), lr * np.arange(401))
    first_below = int(np.argmax(every_step.loss < stop_loss))
    assert 0 < first_below < 300
    t_eval = lr * np.array([0, 100, 300, 400])
    run = simulate(problem, GradientDescent(lr=lr, stop_loss=stop_loss), t_eval)
    assert run.stop_time == pytest.approx(first_below * lr, rel=1e-12)
    assert run.n_steps == first_below and "stopped early" in run.message
    assert run.status is Status.SUCCESS
    after = run.t >= run.stop_time
    frozen = every_step.W[first_below]
    assert all(np.array_equal(W, frozen) for W in run.W[after])
    assert run.loss[-1] < stop_loss <= every_step.loss[first_below - 1]
    # The companion (step lr/2) is frozen at the same physical time.
    assert run.companion.stop_time == run.stop_time
    assert np.array_equal(run.companion.t, run.t)
    assert run.companion.options["lr"] == lr / 2
    assert 0 < run.error_estimate < 0.1


# -- failures and bad input ----------------------------------------------------------------


def test_divergent_step_is_reported_as_nonfinite():
    problem = generators.sphere(8, 5, 6, seed=8)
    run = simulate(problem, GradientDescent(lr=5.0, error_check=None), 5.0 * np.arange(200))
    assert run.status is Status.NONFINITE and "lower lr" in run.message
    assert 0 < len(run.t) < 200 and run.finite


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"lr": 0.0}, "lr"),
        ({"lr": float("nan")}, "lr"),
        ({"lr": True}, "lr"),
        ({"lr": 0.1, "dtype": "float16"}, "dtype"),
        ({"lr": 0.1, "stop_loss": -1.0}, "stop_loss"),
        ({"lr": 0.1, "error_check": 1}, "error_check"),
        ({"lr": 0.1, "error_check": 2.5}, "error_check"),
        ({"lr": 0.1, "space": "dual"}, "space"),
        ({"lr": 0.1, "gemm": "cublas"}, "gemm"),
        ({"lr": 0.1, "gemm": "onednn"}, "gemm"),  # float64 (the default dtype)
    ],
)
def test_bad_options_name_the_option(options, named):
    with pytest.raises(MethodError, match=f"^{named}:"):
        GradientDescent(**options)


def test_saved_times_must_be_whole_steps():
    problem = generators.two_point(p=3, lam=0.5)
    with pytest.raises(MethodError, match="t_eval.*lr=0.1"):
        simulate(problem, GradientDescent(lr=0.1), [0.0, 0.25])
    run = simulate(problem, GradientDescent(lr=0.1, error_check=None), [0.0, 0.3, 0.7])
    assert np.array_equal(run.t, 0.1 * np.array([0, 3, 7]))  # snapped to k * lr
    assert run.n_steps == 7


def test_simulate_batch_rejects_what_cannot_run_together():
    a, b = generators.sphere(8, 5, 6, seed=0), generators.sphere(8, 5, 6, seed=1)
    method = GradientDescent(lr=0.1)
    with pytest.raises(ProblemError, match="^problems: expected at least one"):
        simulate_batch([], method, [0.0])
    with pytest.raises(ProblemError, match=r"^problems\[1\]: expected a numerics.Problem"):
        simulate_batch([a, "b"], method, [0.0])
    with pytest.raises(ProblemError, match=r"^problems\[1\]: n=9"):
        simulate_batch([a, generators.sphere(9, 5, 6, seed=1)], method, [0.0])
    with pytest.raises(ProblemError, match=r"^problems\[1\]: parametrization='standard'"):
        simulate_batch([a, b.with_initialisation(b.W0, b.a0, parametrization="standard")],
                       method, [0.0])
    with pytest.raises(ProblemError, match="^t_eval: times must be strictly increasing"):
        simulate_batch([a, b], method, [0.0, 0.0])
    with pytest.raises(ProblemError, match="^method:"):
        simulate_batch([a, b], "gd", [0.0])


def test_simulate_still_validates_its_input():
    problem = generators.two_point(p=3, lam=0.5)
    with pytest.raises(ProblemError, match="^problem:"):
        simulate("problem", GradientDescent(lr=0.1), [0.0])
    with pytest.raises(ProblemError, match="^t_eval: times must be finite"):
        simulate(problem, GradientDescent(lr=0.1), [-0.1, 0.0])
    with pytest.raises(ProblemError, match="^t_eval: expected a non-empty"):
        simulate(problem, GradientDescent(lr=0.1), [])


def test_simulate_batch_runs_methods_without_a_batch_path_one_by_one():
    problems = [generators.two_point(p=3, lam=0.5, seed=s) for s in (0, 1)]
    method = ExactFlow(error_check=None)
    together = simulate_batch(problems, method, [0.0, 1.0])
    for q, tr in zip(problems, together, strict=True):
        assert np.array_equal(tr.W, simulate(q, method, [0.0, 1.0]).W)


# -- the device -------------------------------------------------------------------------------
def test_descent_records_its_device_and_runs_the_same_on_the_cpu_by_name():
    problem = generators.two_point(seed=1, p=8)
    t = np.linspace(0.0, 2.0, 5)
    default = simulate(problem, GradientDescent(lr=0.01), t)
    named = simulate(problem, GradientDescent(lr=0.01, device="cpu"), t)
    auto = simulate(problem, GradientDescent(lr=0.01, device="auto"), t)
    assert default.provenance["device"] == "cpu" == named.provenance["device"]
    assert np.array_equal(default.W, named.W) and np.array_equal(default.a, named.a)
    assert "device" not in default.options and named.options == default.options
    if not torch.cuda.is_available():  # auto falls back to the CPU, with the same numbers
        assert auto.provenance["device"] == "cpu" and np.array_equal(auto.W, default.W)


def test_descent_refuses_a_device_by_name():
    with pytest.raises(MethodError, match="device: 'tpu' is not one of"):
        GradientDescent(lr=0.01, device="tpu")
    with pytest.raises(MethodError, match="gemm: 'onednn' runs on the CPU only"):
        GradientDescent(lr=0.01, device="cuda", gemm="onednn", dtype="float32")
    if not torch.cuda.is_available():
        with pytest.raises(MethodError, match="device: 'cuda' is not available here"):
            simulate(generators.two_point(seed=1, p=8), GradientDescent(lr=0.01, device="cuda"),
                     np.linspace(0.0, 0.1, 3))
