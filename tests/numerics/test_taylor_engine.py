"""The Taylor engine of the exact flow: its series, its event search, and its agreement
with the Runge-Kutta engine (the same events, states within the stated error)."""

from __future__ import annotations

import numpy as np
import pytest

from numerics import (
    ExactFlow,
    MethodError,
    Status,
    generators,
    network,
    simulate,
    simulate_batch,
    with_model,
)
from numerics.flow import roots
from numerics.flow.regime import Regime
from numerics.flow.series import FlowSeries, order_for
from numerics.model import with_hidden_bias
from papers.cel23 import data as cel23


def _events(tr):
    return np.array([(e.t, e.neuron, e.sample, e.direction) for e in tr.events]).reshape(-1, 4)


# events closer in time than this are simultaneous for the comparison of two engines: both
# locate each event far more accurately, but the order of two crossings at the same instant
# (to the run's tolerance) depends on the rounding of the machine's BLAS kernels
SIMULTANEOUS = 1e-6


def _in_order(events: np.ndarray) -> np.ndarray:
    """Events with each group of simultaneous ones sorted by (neuron, sample, direction)."""
    if not len(events):
        return events
    group = np.concatenate([[0], np.cumsum(np.diff(events[:, 0]) > SIMULTANEOUS)])
    order = np.lexsort((events[:, 3], events[:, 2], events[:, 1], group))
    return events[order]


def _theta(tr):
    return np.concatenate([tr.W, tr.a[..., None]], axis=-1)


def _relative(tr, ref):
    diff = np.linalg.norm(_theta(tr) - _theta(ref), axis=-1)
    scale = np.linalg.norm(_theta(ref), axis=-1)
    return float(np.max(np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), diff)))


# -- the series --------------------------------------------------------------------------
def _series_at_start(problem, coordinates, mask=None):
    run = Regime(problem, np.array([0.0, 1.0]), ExactFlow(coordinates=coordinates), 1e-10)
    y = run.start()
    s = FlowSeries([problem], coordinates, 12)
    D = problem.activation.derivative(None, run.mask if mask is None else mask)
    s.set_regime(0, np.asarray(D, dtype=float), None if run.system.empty else run.system)
    s.start([y])
    for _ in range(12):
        s.extend()
    return run, y, s


SERIES_CASES = {
    "two_point": lambda: generators.two_point(seed=2, p=7, lam=0.3),
    "mean_field": lambda: generators.orthogonal_scaled(n=5, d=6, p=4, seed=1),
    "exponential": lambda: generators.separable(n=6, d=3, p=5, seed=0, mu=0.5, eps=0.2),
    "logistic": lambda: generators.separable(n=6, d=3, p=5, seed=1, mu=0.5, eps=0.2,
                                             loss="logistic"),
    "leaky": lambda: with_model(generators.sphere(n=5, d=4, p=6, seed=0), activation="leaky:0.2"),
    "first_layer": lambda: with_model(generators.sphere(n=5, d=4, p=6, seed=0), train="first"),
    "second_layer": lambda: with_model(generators.sphere(n=5, d=4, p=6, seed=0), train="second"),
}


@pytest.mark.parametrize("coordinates", ["cartesian", "span"])
@pytest.mark.parametrize("case", sorted(SERIES_CASES))
def test_series_solve_the_flow_inside_the_regime(case, coordinates):
    """d/dtau of the summed series equals the field at the summed state (the regime held),
    up to the truncation: at order 12 and a step a tenth of the series' reach."""
    problem = SERIES_CASES[case]()
    run, y0, s = _series_at_start(problem, coordinates)
    assert np.allclose(s.state_at(0, np.array([0.0]))[0], y0, rtol=0, atol=1e-15)
    assert np.allclose(s.z_at(0, 0.0), run.coords.preactivations(y0), rtol=1e-13, atol=1e-15)
    eps = 1e-12 * s.neuron_sizes(0) + 1e-300
    h = 0.1 * float(s.step_bound(eps)[0])
    for tau in (0.0, 0.5 * h, h):
        y = s.state_at(0, np.array([tau]))[0]
        field = run.field(0.0, y)
        dh = 1e-4 * max(h, 1e-12)
        slope = (s.state_at(0, np.array([tau + dh]))[0]
                 - s.state_at(0, np.array([tau - dh]))[0]) / (2 * dh)
        scale = np.max(np.abs(field)) + 1e-300
        assert np.max(np.abs(slope - field)) / scale < 1e-6, (case, tau)
        # the pre-activation series is the state's
        assert np.allclose(s.z_at(0, tau), run.coords.preactivations(y),
                           rtol=1e-9, atol=1e-12 * np.max(np.abs(run.coords.preactivations(y))))


def test_series_hold_sliding_pairs_on_their_surface():
    """A sliding pair's pre-activation coefficients vanish beyond order 0: the Filippov
    coefficients keep dz/dt = 0 at every order."""
    problem = generators.sphere(n=12, d=6, p=20, seed=0)
    tr = simulate(problem, ExactFlow(error_check=None), np.linspace(0, 100, 201))
    k = int(np.argmax(tr.sliding.any(axis=(1, 2))))
    assert tr.sliding[k].any(), "the sphere instance slides"
    # restart a run from the saved state with the regime it had there
    run = Regime(problem, np.array([0.0, 1.0]), ExactFlow(), 1e-10)
    y = np.concatenate([tr.W[k].ravel(), tr.a[k]])
    run.mask = (tr.filippov_mask[k] == 1.0).astype(float)
    run.sliding = tr.sliding[k].copy()
    from numerics.sliding import SlidingSystem

    run.system = SlidingSystem(run.G, run.mask, run.sliding)
    s = FlowSeries([problem], run.coords.name, 10)
    s.set_regime(0, run.mask, run.system)
    s.start([y])
    for _ in range(10):
        s.extend()
    j, i = np.nonzero(run.sliding)
    zs = s.Z[0, 1:11][:, j, i]
    assert np.max(np.abs(zs)) < 1e-12 * np.max(np.abs(s.Z[0, 1:11]))


def test_order_follows_the_tolerance():
    assert order_for(1e-10) == 13 and order_for(1e-13) == 16 and order_for(1e-3) == 6


# -- the event search ---------------------------------------------------------------------
def _poly(*coeffs):
    return np.array(coeffs, dtype=float)[:, None]


def test_first_crossing_of_a_rising_polynomial_brackets_its_zero():
    F = _poly(-1.0, 2.0, 0.5)  # zero at (-2 + sqrt(6)) / 1 = 0.4495
    tau, m = roots.first_crossing(F, np.array([1e-9]), 1.0, 1e-14)
    root = -2.0 + np.sqrt(6.0)
    assert m == 0 and 0.0 <= tau - root <= 1e-13
    assert roots.value(F[:, 0].tolist(), tau) > 0.0


def test_first_crossing_takes_the_earliest_of_several():
    F = np.hstack([_poly(-1.0, 1.0), _poly(-0.2, 1.0), _poly(-0.5, 2.0), _poly(-0.1, -1.0)])
    tau, m = roots.first_crossing(F, np.zeros(4), 1.0, 1e-14)
    assert m == 1 and tau == pytest.approx(0.2, abs=1e-13)


def test_first_crossing_sees_a_crossing_and_return_inside_the_step():
    # -(tau - 0.4)(tau - 0.6) - 0.001: up through 0 near 0.42, back near 0.58; the ends are
    # below 0, so only the curvature bound and the bisection can find it
    F = _poly(-0.241, 1.0, -1.0)
    tau, m = roots.first_crossing(F, np.array([1e-12]), 1.0, 1e-14)
    assert m == 0 and tau == pytest.approx(0.5 - np.sqrt(0.009), abs=1e-12)


def test_first_crossing_ignores_a_graze_within_the_band():
    F = _poly(-0.0401, 0.4, -1.0)  # peaks at tau = 0.2 at -1e-4
    assert roots.first_crossing(F, np.array([0.0]), 1.0, 1e-14) == (None, None)
    F = _poly(-0.04, 0.4, -1.0)  # touches 0 at its peak: within a band of 1e-6
    assert roots.first_crossing(F, np.array([1e-6]), 1.0, 1e-14) == (None, None)


def test_first_crossing_past_the_surface_at_the_start_crosses_at_once():
    F = _poly(1e-12, 1.0)  # within its band, on the wrong side, moving away
    tau, m = roots.first_crossing(F, np.array([1e-9]), 1.0, 1e-14)
    assert m == 0 and tau == 1e-14


def test_reach_bounds_the_move_of_every_polynomial():
    rng = np.random.default_rng(0)
    F = rng.standard_normal((6, 50))
    h = 0.3
    taus = np.linspace(0, h, 200)
    moved = np.max(np.abs(roots.horner(F, taus) - F[0]), axis=0)
    assert np.all(moved <= roots.reach(F, h) * (1 + 1e-12))


# -- the engine against the Runge-Kutta engine ---------------------------------------------
ENGINE_CASES = {
    "two_point": (lambda: generators.two_point(seed=3, p=20), 60.0),
    "orthonormal": (lambda: generators.orthonormal(n=6, d=8, p=20, lam=1e-3, seed=1), 60.0),
    "mean_field": (lambda: generators.orthogonal_scaled(n=10, d=12, p=15, seed=2), 100.0),
    "sphere_sliding": (lambda: generators.sphere(n=12, d=6, p=20, seed=0), 100.0),
    "exponential": (lambda: generators.separable(n=10, d=4, p=10, seed=0, mu=0.5, eps=1e-3),
                    40.0),
    "logistic": (lambda: generators.separable(n=10, d=4, p=10, seed=1, mu=0.5, eps=1e-3,
                                              loss="logistic"), 40.0),
    "leaky": (lambda: with_model(generators.two_point(seed=3, p=20), activation="leaky:0.1"),
              60.0),
    "first_layer": (lambda: with_model(generators.sphere(n=8, d=5, p=10, seed=1),
                                       train="first"), 60.0),
    "hidden_bias": (lambda: with_hidden_bias(generators.sphere(n=8, d=5, p=10, seed=1)), 60.0),
    "cel23": (lambda: cel23.correlated(d=4, m=30, lam=4.0**-7, scheme="centred",
                                       rejection="pi/2", seed=1), 60.0),
}


@pytest.mark.parametrize("case", sorted(ENGINE_CASES))
def test_taylor_engine_finds_the_runge_kutta_engines_events(case):
    make, horizon = ENGINE_CASES[case]
    problem = make()
    t = np.linspace(0.0, horizon, 121)
    new = simulate(problem, ExactFlow(engine="taylor"), t)
    old = simulate(problem, ExactFlow(engine="rk"), t)
    assert new.status is Status.SUCCESS and old.status is Status.SUCCESS
    assert new.provenance["engine"] == "taylor" and old.provenance["engine"] == "rk"
    a, b = _in_order(_events(new)), _in_order(_events(old))
    assert len(a) == len(b) and np.array_equal(a[:, 1:], b[:, 1:]), case
    if len(a):
        assert np.max(np.abs(a[:, 0] - b[:, 0])) < 1e-6
    assert len(new.choices) == len(old.choices)
    assert np.array_equal(new.sliding, old.sliding)
    # the two runs differ by less than the larger of their stated errors
    assert _relative(new, old) <= max(new.error_estimate, old.error_estimate)


@pytest.mark.parametrize("case", ["two_point", "sphere_sliding", "exponential", "cel23"])
def test_taylor_error_estimate_bounds_its_true_error(case):
    make, horizon = ENGINE_CASES[case]
    problem = make()
    t = np.linspace(0.0, horizon, 61)
    run = simulate(problem, ExactFlow(engine="taylor"), t)
    reference = simulate(problem, ExactFlow(engine="taylor", rtol=1e-14, error_check=None), t)
    assert _events(run).shape == _events(reference).shape
    true_error = _relative(run, reference)
    assert true_error <= run.error_estimate, (true_error, run.error_estimate)


def test_a_sliding_pair_whose_residual_vanishes_still_leaves_its_surface():
    """Sphere data (n = 3, d = 450, seed 0): pair (4, 0) slides while sample 0's residual
    g_0 goes to 0 and through it, so its alpha = beta / g_0 is a ratio of vanishing
    numbers. Its exit is found on the series (the state's alpha, rounded, could not show
    it: the engine once kept the pair sliding with alpha = -5 and the run blew up, its
    balancedness drifting by 2e5). The events after that are the ill-conditioned pair's
    and may differ from the Runge-Kutta engine's; the states agree within the errors."""
    problem = generators.sphere(n=3, d=450, p=generators.published_width(3), seed=0)
    t = np.linspace(0.0, 18.0, 401)
    new = simulate(problem, ExactFlow(engine="taylor"), t)
    old = simulate(problem, ExactFlow(engine="rk"), t)
    assert new.status is Status.SUCCESS
    assert np.all((new.filippov_mask >= 0.0) & (new.filippov_mask <= 1.0))
    drift = np.max(np.abs(new.balancedness - new.balancedness[0]))
    assert drift < 1e-8 * np.max(new.a**2)
    assert _relative(new, old) <= max(new.error_estimate, old.error_estimate)


def test_a_batch_integrates_each_trial_as_alone():
    problems = [cel23.correlated(d=4, m=20, lam=4.0**k, scheme="centred", rejection="pi/2",
                                 seed=s) for k, s in ((-7, 0), (-9, 1), (-5, 2))]
    t = np.linspace(0.0, 40.0, 41)
    batch = simulate_batch(problems, ExactFlow(), t)
    for problem, tr in zip(problems, batch, strict=True):
        alone = simulate(problem, ExactFlow(), t)
        assert tr.problem is problem
        # the same numbers: each trial's step is its own, whatever its batch mates do
        assert np.array_equal(_events(tr), _events(alone))
        assert np.array_equal(tr.W, alone.W) and np.array_equal(tr.a, alone.a)
        assert tr.error_estimate == alone.error_estimate


def test_a_batch_keeps_going_when_one_trial_ends_early():
    # a zero initialisation never moves: that trial is done at once, the others go on
    live = generators.two_point(seed=1, p=10)
    dead = live.with_initialisation(np.zeros_like(live.W0), np.zeros_like(live.a0))
    t = np.linspace(0.0, 30.0, 31)
    out = simulate_batch([live, dead, live], ExactFlow(error_check=None), t)
    assert [tr.status for tr in out] == [Status.SUCCESS] * 3
    assert np.allclose(out[1].W, 0.0) and np.array_equal(out[0].W, out[2].W)
    assert len(out[0].events) > 0


# -- choosing the engine -----------------------------------------------------------------
def test_engine_auto_takes_the_series_where_they_apply():
    relu = generators.two_point(seed=0, p=6)
    power = with_model(relu, activation="power:2")
    assert ExactFlow().engine_for(relu) == "taylor"
    assert ExactFlow(coordinates="lognorm").engine_for(relu) == "rk"
    assert ExactFlow().engine_for(power) == "rk"
    assert ExactFlow(engine="rk").engine_for(relu) == "rk"
    tr = simulate(power, ExactFlow(), np.linspace(0, 5, 6))
    assert tr.provenance["engine"] == "rk" and tr.options["engine"] == "auto"


def test_engine_taylor_refuses_what_its_series_do_not_cover():
    power = with_model(generators.two_point(seed=0, p=6), activation="power:2")
    with pytest.raises(MethodError, match="engine: 'taylor'.*power:2"):
        simulate(power, ExactFlow(engine="taylor"), np.linspace(0, 1, 3))
    with pytest.raises(MethodError, match="engine: 'fast' is not one of"):
        ExactFlow(engine="fast")


def test_field_and_series_agree_at_order_one():
    """The first coefficients are the field itself (network.flow_field with the mask)."""
    problem = generators.sphere(n=6, d=5, p=8, seed=3)
    run, y, s = _series_at_start(problem, "cartesian")
    dW, da = network.flow_field(problem, problem.W0, problem.a0, run.mask)
    W1 = (s.U[0, 1] @ problem.X) if s.gram else s.U[0, 1]
    assert np.allclose(W1, dW, rtol=1e-12, atol=1e-15)
    assert np.allclose(s.a[0, 1], da, rtol=1e-12, atol=1e-15)


# -- the device path ---------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["cel23", "sphere_sliding", "logistic", "leaky"])
def test_the_series_on_torch_give_the_numpy_run(case):
    """The GPU path (the series in torch float64), run on the CPU here: the same events,
    the same states to round-off, and the device recorded."""
    make, horizon = ENGINE_CASES[case]
    problem = make()
    t = np.linspace(0.0, horizon, 61)
    ref = simulate(problem, ExactFlow(), t)
    dev = simulate(problem, ExactFlow(device="torch"), t)
    assert ref.provenance["device"] == "cpu" and dev.provenance["device"] == "cpu (torch)"
    assert dev.options["device"] == "torch" and "device" not in ref.options
    assert np.array_equal(_events(dev)[:, 1:], _events(ref)[:, 1:])
    assert _relative(dev, ref) < 1e-12
    assert dev.error_estimate == pytest.approx(ref.error_estimate, rel=1e-3)


def test_a_device_the_run_cannot_use_is_refused_by_name():
    relu = generators.two_point(seed=0, p=6)
    with pytest.raises(MethodError, match="device: 'tpu' is not one of"):
        ExactFlow(device="tpu")
    with pytest.raises(MethodError, match="device: 'torch' runs the Taylor engine's series"):
        simulate(relu, ExactFlow(device="torch", engine="rk"), np.linspace(0, 1, 3))
    import torch

    if not torch.cuda.is_available():
        with pytest.raises(MethodError, match="device: 'cuda' is not available here"):
            simulate(relu, ExactFlow(device="cuda"), np.linspace(0, 1, 3))
        auto = simulate(relu, ExactFlow(device="auto"), np.linspace(0, 1, 3))
        assert auto.provenance["device"] == "cpu"
