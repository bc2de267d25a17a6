"""`Trajectory`: a simulated run, its error estimate, events and diagnostics."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from numerics import network
from numerics.problem import Problem, ProblemError

# codes of Trajectory.cones (S001's S_+, S_-, S_dead)
CONE_PLUS, CONE_MINUS, CONE_DEAD, CONE_OTHER = 1, -1, 0, 2


class Status(enum.Enum):
    """How a simulation ended. Failure members say what to try."""

    #: The run reached its last saved time (or stopped on purpose, ``Trajectory.stop_time``).
    SUCCESS = "success"
    #: The method's step cap was reached before the last saved time.
    MAX_STEPS = "maximum number of steps reached; raise max_steps or shorten t_eval"
    #: The state became NaN or infinite.
    NONFINITE = "the state became NaN or infinite; lower the tolerance or the step"
    #: A pair kept switching side faster than the sliding-mode solve resolves (or, in
    #: coordinates that do not integrate sliding modes, a sliding mode was met).
    CHATTERING = (
        "a pre-activation kept switching sign (sliding mode); the flow is not "
        "regular here and the trajectory after that time is not trustworthy"
    )

    @property
    def ok(self) -> bool:
        """Whether the run ended normally (SUCCESS)."""
        return self is Status.SUCCESS


@dataclass(frozen=True)
class ActivationEvent:
    """Pair (neuron j, sample i) changed side at time t: ``direction`` is its new side,
    ``+1`` active, ``-1`` inactive, ``0`` held on z_ij = 0 (a sliding mode).

    Attributes
    ----------
    t
        The time of the change (located to a few ulps on the dense output).
    neuron
        The neuron j (row of W).
    sample
        The sample i (row of X).
    direction
        The pair's new side: +1 active, -1 inactive, 0 held on its surface (sliding).
    """

    t: float
    neuron: int
    sample: int
    direction: int


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Parameters at the saved times, with how they were produced.

    ``error_estimate`` is the largest relative difference (per neuron, scaled by
    the neuron's norm) between this run and ``companion``, an independent run of
    the same method at another setting; ``error_of`` applies the same
    comparison to any diagnostic, which is how checks get the numerical error of
    the quantity they measure.

    ``stop_time`` is set when the run stopped early on purpose (gradient
    descent's ``stop_loss``): the state is frozen from that time on, so saved
    states after it repeat the stopped state and are not states of the flow.

    The per-time quantities (``loss``, ``pl``, ``neuron_norms``, ...) are computed on
    first use and cached; each is one value (or one row) per saved time.

    Attributes
    ----------
    problem
        The `Problem` simulated.
    t
        The saved times, shape (T,), increasing (gradient descent: snapped to whole steps).
    W
        The first layer at the saved times, shape (T, p, d).
    a
        The output weights at the saved times, shape (T, p).
    method
        The method's name: ``"exact_flow"``, ``"gradient_descent"``, ``"minibatch_sgd"``,
        ``"high_precision_flow"`` or ``"closed_form"``.
    options
        The method's options as it ran (``method.options()``).
    status
        How the run ended (`Status`); anything but SUCCESS means the run stopped short.
    message
        The method's explanation when the run did not succeed ("" otherwise).
    error_estimate
        The largest relative per-neuron difference from ``companion`` over the saved times;
        inf when there is no companion (the error is unknown).
    companion
        The independent run the error is estimated from (a looser tolerance, a finer step,
        fewer digits; its own companion is None), or None.
    events
        The activation changes (`ActivationEvent`) in time order; () for methods that do
        not locate them (gradient descent, the closed form).
    stop_time
        The time the run stopped on purpose (gradient descent's ``stop_loss``), after which
        the state is frozen; None when it ran to the last saved time.
    n_steps
        Accepted integration steps (Taylor steps, descent steps) of this run.
    wall_time
        Seconds the run took with its companion (in a batch, its share of the batch).
    provenance
        Versions of the packages and platform that made the numbers (and, for gradient
        descent, the matrix-product library, ``"gemm"``).
    log_norms
        ln ||w_j(t)||, shape (T, p), when the method integrated log-norms (tiny scales:
        W may underflow to 0 while these stay exact; -inf for a zero neuron); else None.
    step_loss
        The loss at every descent step k = 0 .. n_steps, shape (n_steps + 1,), whatever the
        saved times (gradient descent); None for the flows.
    high_precision
        (W, a) at every saved time as mpmath numbers (object arrays) when the method
        computed them at high precision (`numerics.HighPrecisionFlow`); else None.
    filippov_mask
        The activation the flow moved with, shape (T, p, n): 1 active, 0 inactive, alpha_ij
        in [0, 1] on pairs held on z_ij = 0 (the Filippov velocity); None for methods that
        use the strict mask 1{z > 0}.
    choices
        Where the continuation was not unique (a pair repelled from both sides of its
        surface) and relu'(0) = 0 chose the inactive side: records with ``t``,
        ``neuron``, ``sample``.
    departure
        Why the saved states are not a run of the dynamics the Problem defines, in words
        (a recorded loop driven by Adam, momentum or weight decay: declared by its record,
        or measured against gfverify's own descent at its step, `numerics.recorded`); ""
        for a run that is one. The flow's claims are INAPPLICABLE to such a run.
    """

    problem: Problem
    t: np.ndarray
    W: np.ndarray
    a: np.ndarray
    method: str
    options: dict
    status: Status = Status.SUCCESS
    message: str = ""
    error_estimate: float = float("inf")
    companion: Trajectory | None = None
    events: tuple[ActivationEvent, ...] = ()
    stop_time: float | None = None
    n_steps: int = 0
    wall_time: float = 0.0
    provenance: dict = field(default_factory=dict)
    log_norms: np.ndarray | None = None
    step_loss: np.ndarray | None = None
    high_precision: tuple | None = None
    filippov_mask: np.ndarray | None = None
    choices: tuple = ()
    departure: str = ""

    def first(self, k: int) -> Trajectory:
        """The run (and its companion) restricted to its first ``k`` saved times; events
        and choices after the last kept time are dropped."""
        companion = None if self.companion is None else self.companion.first(k)
        t_end = self.t[k - 1] if k else -np.inf

        def head(arr):
            return None if arr is None else arr[:k]

        return dataclasses.replace(
            self, t=self.t[:k], W=self.W[:k], a=self.a[:k], companion=companion,
            events=tuple(e for e in self.events if e.t <= t_end),
            choices=tuple(c for c in self.choices if c.t <= t_end),
            log_norms=head(self.log_norms), high_precision=head(self.high_precision),
            filippov_mask=head(self.filippov_mask))

    # -- basic quantities ----------------------------------------------------------
    @cached_property
    def preactivations(self) -> np.ndarray:
        """Z[k, j, i] = <w_j(t_k), x_i>."""
        return network.preactivations(self.W, self.problem.X)

    @cached_property
    def activation(self) -> np.ndarray:
        """Whether sample i activates neuron j at t_k, boolean of shape (T, p, n).

        Active means z_ij > 0; a pair held on z_ij = 0 by a sliding mode is not active."""
        if self.filippov_mask is not None:
            return self.filippov_mask == 1.0
        return self.preactivations > 0

    @cached_property
    def sliding(self) -> np.ndarray:
        """Whether the pair is held on z_ij = 0 (a sliding mode) at t_k, boolean (T, p, n)."""
        if self.filippov_mask is None:
            return np.zeros(self.preactivations.shape, dtype=bool)
        events = sorted(self.events, key=lambda e: e.t)
        out = np.zeros(self.filippov_mask.shape, dtype=bool)
        state = np.zeros(out.shape[1:], dtype=bool)
        times = [e.t for e in events]
        k = 0
        for step, t in enumerate(self.t):
            while k < len(events) and times[k] <= t:
                state[events[k].neuron, events[k].sample] = events[k].direction == 0
                k += 1
            out[step] = state
        return out

    @cached_property
    def velocity(self) -> tuple[np.ndarray, np.ndarray]:
        """``(dW/dt, da/dt)`` at each saved time, -kappa times the gradient with the mask the
        flow moved with (the minimal-norm element of the subdifferential on sliding modes),
        the strict mask 1{z > 0} otherwise."""
        return network.trained_velocity(
            self.problem, *network.gradient(self.problem, self.W, self.a, self.filippov_mask))

    @cached_property
    def outputs(self) -> np.ndarray:
        """h(x_i) at each saved time, shape (T, n), or (T, n, K) for a vector output."""
        return network.outputs(self.problem, self.W, self.a)

    @cached_property
    def output_norms_sq(self) -> np.ndarray:
        """The squared norm of each a_j(t), shape (T, p) (a_j^2 for a scalar output)."""
        return self.a**2 if self.a.ndim == 2 else np.sum(self.a**2, axis=-1)

    @cached_property
    def residuals(self) -> np.ndarray:
        """r_i(t) = y_i - h(x_i) (S000's sign convention); a vector output has logits, not
        predictions of y: there, a ValueError."""
        if self.problem.vector_output:
            raise ValueError("residuals: a vector output's h(x_i) are logits, not "
                             "predictions of the labels (see outputs and loss)")
        return self.problem.y - self.outputs

    @cached_property
    def loss(self) -> np.ndarray:
        """The loss L(t) at each saved time, shape (T,) (the Problem's loss, loss_scale
        included)."""
        return network.loss_from_outputs(self.problem, self.outputs)

    @cached_property
    def pl(self) -> np.ndarray:
        """Local PL curvature ``-(dL/dt)/L = |dtheta/dt|^2 / (kappa L)``, shape (T,).

        From exact gradients (the Filippov velocity on sliding modes, `velocity`)."""
        vW, va = self.velocity
        sq = np.sum(vW**2, axis=(-2, -1)) + np.sum(va**2, axis=tuple(range(1, va.ndim)))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.loss > 0, sq / (self.problem.flow_factor * self.loss), np.nan)

    @cached_property
    def neuron_norms(self) -> np.ndarray:
        """||w_j(t)||, shape (T, p)."""
        return np.linalg.norm(self.W, axis=-1)

    @cached_property
    def log_neuron_norms(self) -> np.ndarray:
        """``ln||w_j(t)||``, shape (T, p); the stored log-norms when present (no underflow)."""
        if self.log_norms is not None:
            return self.log_norms
        with np.errstate(divide="ignore"):
            return np.log(self.neuron_norms)

    @cached_property
    def balancedness(self) -> np.ndarray:
        """c_j(t) = k a_j^2 - ||w_j||^2, shape (T, p), k the activation's degree of
        homogeneity (1 for ReLU and leaky ReLU): conserved by the flow when both layers
        train (CF-2, CF-13)."""
        k = self.problem.activation.degree
        a_sq = self.output_norms_sq
        return (a_sq if k == 1.0 else k * a_sq) - self.neuron_norms**2

    @cached_property
    def conservation_drift(self) -> float:
        """``max_j |c_j(t_last) - c_j(0)|``, c_j = k a_j^2 - ||w_j||^2 (`balancedness`;
        THEORY CF-2, S000-L1).

        Zero for the flow up to integration error; gradient descent erodes it
        by O(lr) per unit time. c_j(0) is taken from the Problem's (W0, a0);
        infinite when nothing was saved.
        """
        if len(self.a) == 0:
            return float("inf")
        k = self.problem.activation.degree
        a0 = self.problem.a0
        a0_sq = a0**2 if a0.ndim == 1 else np.sum(a0**2, axis=-1)
        c0 = k * a0_sq - np.sum(self.problem.W0**2, axis=-1)
        return float(np.max(np.abs(self.balancedness[-1] - c0)))

    @cached_property
    def energies(self) -> np.ndarray:
        """E_i(t) = s * sum_j 1{<w_j,x_i> > 0} a_j^2 (s = 1/p mean-field, 1 standard)."""
        return self.problem.output_factor * np.einsum("kji,kj->ki", self.activation,
                                                      self.output_norms_sq)

    @cached_property
    def stable_rank(self) -> np.ndarray:
        """||W||_F^2 / ||W||_2^2 at each time."""
        sv = np.linalg.svd(self.W, compute_uv=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.sum(sv**2, axis=-1) / sv[..., 0] ** 2

    @cached_property
    def cones(self) -> np.ndarray:
        """S001-D2 cone of each neuron at each time, shape (T, p), as integer codes.

        CONE_PLUS: active exactly on the positive samples (``S_+``); CONE_MINUS: exactly
        on the negative ones (``S_-``); CONE_DEAD: on none (``S_dead``); CONE_OTHER: else.
        """
        act = self.activation  # (T, p, n)
        pos = self.problem.y > 0
        out = np.full(act.shape[:2], CONE_OTHER, dtype=int)
        out[np.all(act == pos, axis=-1)] = CONE_PLUS
        out[np.all(act == ~pos, axis=-1)] = CONE_MINUS
        out[~np.any(act, axis=-1)] = CONE_DEAD
        return out

    @cached_property
    def min_norm_excess(self) -> np.ndarray:
        """||theta(t)||^2 - ||theta*||^2, theta* a minimum-l2-norm interpolator (orthogonal data).

        For orthogonal inputs ||theta*||^2 = 2 (||y~_+|| + ||y~_-||) with y~_k = y_k/||x_k||
        (THEORY CF-9, unit norms give 2n(||D_+|| + ||D_-||)); the excess is >= 0 at any
        interpolator and 0 exactly on the minimum-norm set. Meaningless for other data.
        """
        y_tilde = self.problem.y / np.linalg.norm(self.problem.X, axis=1)
        star = 2 * (np.linalg.norm(y_tilde[y_tilde > 0]) + np.linalg.norm(y_tilde[y_tilde < 0]))
        theta_sq = np.sum(self.W**2, axis=(-2, -1)) + np.sum(self.output_norms_sq, axis=-1)
        return theta_sq - star

    def alignment(self, direction: np.ndarray) -> np.ndarray:
        """cos(w_j(t), direction), shape (T, p); 0 for a zero neuron."""
        u = np.asarray(direction, dtype=float)
        u = u / np.linalg.norm(u)
        norms = self.neuron_norms
        dots = self.W @ u
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(norms > 0, dots / norms, 0.0)

    def group_norm_sq(self, neurons) -> np.ndarray:
        """sum_{j in neurons} ||w_j(t)||^2, shape (T,)."""
        idx = np.asarray(list(neurons), dtype=int)
        return np.sum(self.neuron_norms[:, idx] ** 2, axis=-1)

    def first_time(self, values: np.ndarray, level: float, above: bool = True) -> float:
        """First saved time at which ``values`` >= level (or <= level); inf if never."""
        hit = values >= level if above else values <= level
        idx = np.flatnonzero(hit)
        return float(self.t[idx[0]]) if idx.size else float("inf")

    # -- numerical error -----------------------------------------------------------
    @property
    def nominal_error(self) -> float:
        """A relative accuracy the method itself guarantees at most, rtol per step
        accumulated linearly over the accepted steps (0 for methods without an rtol).

        A floor under `state_error`: the companion run can share an error with this
        run (the same early steps), which their difference cannot see.
        """
        rtol = self.options.get("rtol")
        return float(rtol) * max(self.n_steps, 1) if rtol else 0.0

    @cached_property
    def state_error(self) -> np.ndarray:
        """Per saved time, ``max_j |theta_j - theta'_j| / |theta_j|`` against the companion.

        theta_j = (w_j, a_j), or its trained part when a layer is frozen; a neuron that is
        exactly zero in both runs counts 0.
        Infinite at every time when there is no companion (the error is unknown).
        """
        if self.companion is None or len(self.companion.t) != len(self.t):
            return np.full(len(self.t), np.inf)
        mine, theirs = self._trained_part(self), self._trained_part(self.companion)
        diff = np.linalg.norm(mine - theirs, axis=-1)
        scale = np.linalg.norm(mine, axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(scale > 0, diff / scale, np.where(diff > 0, np.inf, 0.0))
        rel = np.where(np.isnan(rel), np.inf, rel)
        return np.max(rel, axis=-1)

    @staticmethod
    def _trained_part(run: Trajectory) -> np.ndarray:
        """theta_j = (w_j, a_j) per neuron, or only its trained part when a layer is frozen:
        a frozen a_j (or w_j) has no error, and counting its size would dilute the moving
        part's relative error, which is what the measured quantities inherit."""
        train = run.problem.train
        a = run.a if run.a.ndim == run.W.ndim else run.a[..., None]
        if train == "first":
            return run.W
        if train == "second":
            return a
        return np.concatenate([run.W, a], axis=-1)

    def error_of(self, quantity: Callable[[Trajectory], np.ndarray]) -> np.ndarray:
        """``|quantity(self) - quantity(companion)|``: the numerical error of a diagnostic.

        Without a companion the error is unknown and reported as infinite, so
        any verdict that depends on it is INCONCLUSIVE rather than a silent pass.
        """
        mine = np.asarray(quantity(self), dtype=float)
        if self.companion is None:
            return np.full_like(mine, np.inf)
        theirs = np.asarray(quantity(self.companion), dtype=float)
        with np.errstate(invalid="ignore"):
            err = np.abs(mine - theirs)
        return np.where(np.isnan(err), np.inf, err)

    @property
    def finite(self) -> bool:
        """Whether every saved W and a is finite (no NaN, no infinity)."""
        return bool(np.all(np.isfinite(self.W)) and np.all(np.isfinite(self.a)))

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis/IPython: the short repr
        printer.text(repr(self))

    def __repr__(self) -> str:
        # short on purpose (the arrays can be megabytes): sizes, method, status, problem
        return (f"Trajectory({self.method}, {len(self.t)} saved times to "
                f"t={float(self.t[-1]) if len(self.t) else 0.0:.4g}, {self.status.name}, "
                f"problem {self.problem.describe()})")

    def plot(self, quantity: str = "loss", ax=None, log: bool | None = None):
        """Plot a per-time quantity of the run (``loss``, ``pl``, ``neuron_norms``, ...: any
        attribute with one value, or one row, per saved time) against t, on ``ax`` or a new
        figure; the loss and the norms on a log scale by default. Returns the axes."""
        import matplotlib.pyplot as plt

        values = np.asarray(getattr(self, quantity), dtype=float)
        if values.shape[:1] != self.t.shape:
            raise ProblemError(f"quantity: {quantity!r} is not a per-time array of the run")
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot(self.t, values.reshape(len(self.t), -1), lw=1)
        if log if log is not None else quantity in ("loss", "neuron_norms"):
            ax.set_yscale("log")
        ax.set_xlabel("t")
        ax.set_ylabel(quantity)
        ax.set_title(f"{self.method}: {self.problem.describe()}", fontsize=8)
        return ax

    def summary(self) -> str:
        """One line of text: method, problem, status, saved times, steps, events, sliding
        pairs, error estimate and wall time."""
        held = ""
        if self.filippov_mask is not None and len(self.t):
            held = (f", {int(self.sliding.any(axis=0).sum())} pairs slid "
                    f"({int(self.sliding[-1].sum())} held at the end), "
                    f"{len(self.choices)} non-unique continuations")
        return (
            f"{self.method} on {self.problem.describe()}: {self.status.name}, "
            f"{len(self.t)} saved times to t={self.t[-1]:.4g}, {self.n_steps} steps, "
            f"{len(self.events)} activation events{held}, error estimate "
            f"{self.error_estimate:.2e}, {self.wall_time:.2f}s"
        )
