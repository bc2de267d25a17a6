"""Exact gradient flow: the flow integrated between activation changes, through sliding modes.

Inside a region where the activation pattern A = 1{<w_j, x_i> > 0} is fixed the flow
of a piecewise-linear network is a polynomial ODE. An *engine* integrates it there to the
requested tolerance and locates the next change of pattern (an *event*); the regime
(`numerics.flow.regime`) then gives the pairs at their surface their sides and the
integration goes on in the new pattern. Two engines:

- ``taylor`` (`numerics.flow.taylor`, the default where it applies): the Taylor series of
  the flow per step, from the ODE's recurrence (`numerics.flow.series`); every
  pre-activation is a polynomial over the step, so the earliest crossing among all p n
  pairs is found on the polynomials at once (`numerics.flow.roots`) and the next step
  starts there with nothing to restart. The order adapts to the step: closely spaced
  events cost a few orders each. Batches of trials run in lockstep (`ExactFlow.run_batch`).
- ``rk`` (`numerics.flow.rk`): scipy's DOP853 with the pattern held fixed, signs inspected
  on its dense output after every step, the earliest crossing located by Brent's method
  and the integrator restarted there. It integrates what the series do not (ReLU powers,
  log-norm coordinates) and is the reference the Taylor engine is checked against.

At each crossing the pairs of the neuron that sit on their surface z_ij = 0 are
given sides by the Filippov (Clarke) velocity (numerics.sliding): a pair pushed to
the surface from both sides *slides*: it is held on z_ij = 0 with the activation
alpha_ij in [0, 1] that keeps it there (the minimal-norm element of -kappa dL), and
leaves when alpha_ij reaches 0 or 1 (located like a crossing). A pair repelled from both
sides has no unique continuation: the convention relu'(0) = 0 sends it to the inactive
side, and `Trajectory.choices` records where and when. With relu'(0) = 0 a neuron whose
pre-activations are all <= 0 has zero velocity, so it stays dead. ``sliding=False``
restores the earlier behaviour (every crossing switches the pair; a sliding mode ends the
run CHATTERING).

Error estimate: the same integration is repeated at a looser tolerance
(``rtol * error_check``; the Taylor engine's companion also sums each step's series one
order short, so that its truncation error dominates this run's at every step) and the two
runs are compared at every saved time.

Coordinates (``coordinates=``): ``"cartesian"`` integrates (W, a) directly;
``"span"`` integrates W = W0 + C X (cost per step independent of d);
``"lognorm"`` integrates each neuron's log-norm, direction and a_j/||w_j||
(numerics.coordinates.LogNorm) for initialisation scales far below 1e-20, and
stores ln||w_j(t)|| in ``Trajectory.log_norms``; it detects sliding modes but does
not integrate them (the run ends CHATTERING, naming the coordinates to use).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from numerics import threads
from numerics.coordinates import COORDINATES, resolve
from numerics.problem import Problem
from numerics.provenance import environment
from numerics.trajectory import Trajectory

ENGINES = ("auto", "taylor", "rk")


class MethodError(ValueError):
    """Bad options for a simulation method; the message names the option."""


@dataclass(frozen=True)
class ExactFlow:
    """Gradient flow integrated exactly across activation changes.

    Each region of fixed activation pattern integrated by an engine (Taylor series, or
    DOP853), crossings located to a few ulps, sliding modes integrated with the Filippov
    velocity (the module docstring).

    Attributes
    ----------
    rtol
        Relative tolerance of the local error control per neuron, in (0, 1e-2) (default
        1e-10).
    atol_fraction
        Absolute floor per neuron, as a fraction of rtol times the neuron's initial norm
        (keeps tiny initialisations relative; default 1e-6).
    error_check
        The companion run for the error estimate uses ``rtol * error_check`` (default 10,
        must be > 1; the Taylor engine's companion also sums its series one order short);
        ``None`` skips it (error estimate inf).
    max_steps
        Cap on accepted steps per run (default 2,000,000); the run ends MAX_STEPS there.
    chatter_limit
        A single pair (i, j) changing side (active, inactive, sliding) more often than this
        marks the run CHATTERING: switching the sliding-mode solve did not resolve
        (default 200).
    coordinates
        ``"auto"`` (default: ``"span"`` when n < d, else ``"cartesian"``),
        ``"cartesian"``, ``"span"`` (W = W0 + C X, cost per step independent of d) or
        ``"lognorm"`` (per-neuron ln ||w_j||, direction, a_j / ||w_j||: for tiny
        initialisation scales, ReLU networks with both layers trained only).
    sliding
        Integrate through sliding modes (default True); False switches a pair at every
        crossing, as earlier versions did.
    device
        Where the Taylor engine's series live (`numerics.flow.arrays`): ``"cpu"`` (default:
        numpy), ``"cuda"`` or ``"cuda:N"`` (torch float64 on that GPU), ``"auto"`` (a GPU when
        torch sees one, else numpy), ``"torch"`` (torch on the CPU: the GPU path, run here).
        The event search and the regime run on the CPU either way; the device is recorded
        in the Trajectory's ``provenance["device"]``. The Runge-Kutta engine runs on the CPU.
    engine
        ``"auto"`` (default: ``"taylor"`` for piecewise-linear activations in cartesian or
        span coordinates, else ``"rk"``), ``"taylor"`` (Taylor series per step, events
        found on their polynomials; `numerics.flow.taylor`) or ``"rk"`` (DOP853 restarted
        at every event; `numerics.flow.rk`). The engine that ran is recorded in the
        Trajectory's ``provenance["engine"]``.
    """

    rtol: float = 1e-10
    atol_fraction: float = 1e-6
    error_check: float | None = 10.0
    max_steps: int = 2_000_000
    chatter_limit: int = 200
    coordinates: str = "auto"
    sliding: bool = True
    engine: str = "auto"
    device: str = "cpu"

    name = "exact_flow"
    vector_output = True  # integrates a vector output (the cross-entropy) too

    def __post_init__(self) -> None:
        if not (0 < self.rtol < 1e-2):
            raise MethodError(f"rtol: must be in (0, 1e-2), got {self.rtol!r}.")
        if self.error_check is not None and not self.error_check > 1:
            raise MethodError(f"error_check: must be > 1 or None, got {self.error_check!r}.")
        if self.coordinates not in (*COORDINATES, "auto"):
            raise MethodError(
                f"coordinates: {self.coordinates!r} is not one of "
                f"{('auto', *COORDINATES)}."
            )
        if self.engine not in ENGINES:
            raise MethodError(f"engine: {self.engine!r} is not one of {ENGINES}.")
        if not isinstance(self.device, str) or not (
                self.device in ("cpu", "auto", "torch") or self.device.split(":")[0] == "cuda"):
            raise MethodError(f"device: {self.device!r} is not one of 'cpu', 'auto', 'torch', "
                              "'cuda' or 'cuda:N'.")
        if self.rtol * (self.error_check or 1) >= 1e-2:
            raise MethodError(
                "error_check: rtol * error_check must stay below 1e-2; lower one of them."
            )

    def options(self) -> dict:
        """The options as a dict (stored in ``Trajectory.options``)."""
        return {
            "rtol": self.rtol,
            "atol_fraction": self.atol_fraction,
            "error_check": self.error_check,
            "max_steps": self.max_steps,
            "chatter_limit": self.chatter_limit,
            "coordinates": self.coordinates,
            "sliding": self.sliding,
            "engine": self.engine,
            **({} if self.device == "cpu" else {"device": self.device}),
        }

    def engine_for(self, problem: Problem) -> str:
        """The engine that integrates ``problem``: ``"taylor"`` or ``"rk"`` (a MethodError
        when ``engine="taylor"`` was asked for a Problem its series do not cover)."""
        from numerics.flow import series

        coordinates = resolve(self.coordinates, problem)
        covered = series.supports(problem, coordinates)
        if problem.vector_output and coordinates == "lognorm":
            raise MethodError("coordinates: 'lognorm' integrates a scalar output (a_j over "
                              "||w_j||); a vector output (the cross-entropy) needs "
                              "'cartesian', 'span' or 'auto'.")
        if self.engine == "taylor" and problem.vector_output:
            raise MethodError("engine: 'taylor' sums the series of a scalar output; a vector "
                              "output (the cross-entropy) is integrated by engine='rk' (or "
                              "'auto').")
        if self.engine == "taylor" and not covered:
            raise MethodError(
                "engine: 'taylor' integrates piecewise-linear activations in cartesian or "
                f"span coordinates; this run is {problem.activation.spec!r} in "
                f"{coordinates!r} coordinates: use engine='rk' or 'auto'.")
        if self.engine == "rk" or not covered:
            if self.device not in ("cpu", "auto"):
                raise MethodError(
                    f"device: {self.device!r} runs the Taylor engine's series; this run takes "
                    "the Runge-Kutta engine, which runs on the CPU: use device='cpu' or "
                    "'auto'.")
            return "rk"
        return "taylor"

    def run(self, problem: Problem, t_eval: np.ndarray) -> Trajectory:
        """Integrate ``problem`` from t = 0, saving at ``t_eval`` (validated times: call it
        through `numerics.simulate`), with the companion run unless ``error_check`` is None.
        """
        return self.run_batch([problem], t_eval)[0]

    def run_batch(self, problems: Sequence[Problem], t_eval: np.ndarray) -> list[Trajectory]:
        """One Trajectory per Problem (same sizes and conventions: call it through
        `numerics.simulate_batch`). The Taylor engine integrates them in lockstep, one set
        of arrays for all (`numerics.flow.taylor`); the Runge-Kutta engine one after the
        other. ``wall_time`` of each Trajectory is its share of the batch's time."""
        problems = list(problems)
        for problem in problems:
            if problem.model_spec and resolve(self.coordinates, problem) == "lognorm":
                raise MethodError(
                    "coordinates: 'lognorm' integrates the ReLU network with both layers "
                    f"trained; this Problem is {problem.model_spec!r}: use 'span' or "
                    "'cartesian'.")
        engine = self.engine_for(problems[0])
        first = problems[0]
        with threads.for_products(2.0 * len(problems) * first.p * first.n * max(first.n, first.d)):
            return self._run_batch(problems, t_eval, engine)

    def _run_batch(self, problems, t_eval, engine) -> list[Trajectory]:
        from numerics.flow import arrays, rk, taylor

        start = time.perf_counter()
        device = "cpu"
        if engine == "taylor":
            try:
                xp = arrays.backend(self.device)
            except (RuntimeError, ValueError) as exc:  # torch's word for a device it lacks
                raise MethodError(f"device: {self.device!r} is not available here "
                                  f"({exc}); use 'cpu' or 'auto'.") from None
            device = xp.device + ("" if xp.name == "numpy" else " (torch)")
            mains = taylor.integrate_batch(problems, t_eval, self, self.rtol, xp=xp)
            looses = (None if self.error_check is None else
                      taylor.integrate_batch(problems, t_eval, self,
                                             self.rtol * self.error_check, companion=True,
                                             xp=xp))
        else:
            mains = [rk.integrate(q, t_eval, self, self.rtol) for q in problems]
            looses = (None if self.error_check is None else
                      [rk.integrate(q, t_eval, self, self.rtol * self.error_check)
                       for q in problems])
        share = (time.perf_counter() - start) / len(problems)
        out = []
        for b, problem in enumerate(problems):
            main, companion, error = mains[b], None, float("inf")
            if looses is not None:
                loose = looses[b]
                companion = _as_trajectory(problem, t_eval, self, loose, None, float("inf"),
                                           0.0, engine, device)
                k = len(main["y"])
                if k and k == len(loose["y"]):
                    error = main["coords"].difference(main["y"], loose["y"])
            out.append(_as_trajectory(problem, t_eval, self, main, companion, error, share,
                                      engine, device))
        return out


def _as_trajectory(problem, t_eval, method, run, companion, error, wall, engine,
                   device) -> Trajectory:
    out = run["coords"].outputs(run["y"])
    return Trajectory(
        problem=problem,
        t=np.asarray(t_eval, dtype=float)[: len(run["y"])],
        W=out["W"],
        a=out["a"],
        log_norms=out.get("log_norms"),
        method=method.name,
        options=method.options(),
        status=run["status"],
        message=run["message"],
        error_estimate=error,
        companion=companion,
        events=tuple(run["events"]),
        choices=tuple(run["choices"]),
        filippov_mask=run["masks"],
        n_steps=run["n_steps"],
        wall_time=wall,
        provenance=dict(environment(), engine=engine, device=device),
    )
