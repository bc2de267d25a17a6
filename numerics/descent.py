"""Full-batch gradient descent, batched over replicates in one torch computation.

Each step is theta <- theta - lr * kappa * grad L (kappa = the Problem's
flow_factor), the explicit Euler discretisation of the flow
d(theta)/dt = -kappa grad L, and step k sits at physical time t = k * lr. For a
mean-field Problem (kappa = p) this is the published protocol's "GD on p * L
with learning rate lr". The error against the flow is first order in lr.

Gradients are closed form (`numerics.torch_network`, a mirror of
`numerics.network`), with relu'(0) = 0. When n < d the first layer is kept in
the span of the data, W = W0 + C X with C of shape (p, n), since every gradient
dL/dW_j = s a_j sum_i A_ji g_i x_i lies there; the pre-activations are then
W0 X^T + C G with the Gram matrix G = X X^T, and a step costs O(p n^2) instead
of O(p n d). When every sample is a multiple of a distinct canonical vector
(x_i = c_i e_{k_i}, the orthogonal data of S000 and S002), G is diagonal, G C^T
is a row scaling and a step costs O(p n): the d - n zero coordinates of each
sample are never multiplied.

Saved times: each t_eval must be a whole number of steps, t = k * lr (to a
relative 1e-9); the Trajectory's ``t`` holds the snapped values k * lr.

Error estimate (step halving): the same Problems are run again with step
lr / error_check as the ``companion``, saved at the same times. For a
first-order method the difference D between the two runs is (1 - 1/m) times the
error of this run (m = error_check), so ``error_estimate`` = D / (1 - 1/m)
(Richardson), with D the max over saved times of `Trajectory.state_error`
(the max relative per-neuron difference). Note that ``state_error`` and
``error_of`` compare with the (finer) companion directly, so for this method
they are (1 - 1/m) times the error of the run: half of it for m = 2.

Other models (the Problem's activation and trained layers): a ReLU network takes the fused
step below; another activation computes sigma(Z) and sigma'(Z) from the raw
pre-activations (`numerics.torch_network.activation_gradient_terms`, BLAS only); a frozen
layer is not updated.

Minibatch SGD (``batch_size``): each epoch draws a permutation of the n samples (one
numpy Generator per replicate, seeded by ``sgd_seed`` and the Problem's content hash, so
a replicate's batches do not depend on the other replicates of its run) and takes
ceil(n / batch_size) steps, each on the next batch S with the batch's mean gradient on
the full loss's scale (every sample's g scaled by n / |S|, the rest by 0, as a minibatch
mean loss does; unbiased over an epoch when batch_size divides n). Its Trajectories are named
``minibatch_sgd``, never a flow. The object is the SGD process itself (as the published
protocol's GD is), so its companion is not a halved step but the same run, same batches,
in float32: their difference bounds the float64 run's round-off (float32's unit round-off
is 5e8 times float64's), and ``error_estimate`` is its largest relative state difference
(a float32 run has no cheaper companion: inf). The saved loss is the full loss L(theta_k).

Early stopping (``stop_loss``, as the published protocol): a replicate stops at
the first step k whose loss L(theta_k) < stop_loss; later saved times repeat
theta_k and ``Trajectory.stop_time`` = k * lr. Its companion is frozen at the
same physical time (not by its own loss), so the error estimate compares the two
discretisations of the same stretch of flow.

Length (~590 lines): one integrator, its batched torch step, its step-halving companion,
its stopping rules and its step rule (the activation's gradient terms, frozen layers,
minibatches), which share the batch's state and are read together.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from numerics import network, threads
from numerics import torch_network as tn
from numerics.flow import MethodError
from numerics.problem import Problem
from numerics.provenance import environment
from numerics.simulate import check_batch
from numerics.trajectory import Status, Trajectory

SPACES = ("auto", "full", "span")
# A saved time counts as a whole number of steps if t / lr is within this
# relative distance of an integer (absorbs the rounding of t = k * lr).
_WHOLE_STEP_RTOL = 1e-9


@dataclass(frozen=True)
class GradientDescent:
    """Full-batch gradient descent with step ``lr`` in flow time (t = steps * lr).

    Every saved time must be a whole number of steps. The error estimate halves the step
    (Richardson; the module docstring); a minibatch SGD run's companion is the same run in
    float32.

    Attributes
    ----------
    lr
        The step, in flow time: each step moves theta by -lr * kappa * grad L (required).
    dtype
        ``"float64"`` (default) or ``"float32"``.
    stop_loss
        Stop a replicate once its loss L (the Problem's L, not kappa * L) falls below this;
        ``None`` (default) runs to the last saved time. The published protocol's threshold
        p/(2n) on p * L is stop_loss = 1/(2n).
    error_check
        The companion runs with step lr / error_check (an integer >= 2, so the saved times
        stay whole steps; default 2); ``None`` skips it (error estimate inf).
    space
        ``"full"`` (W itself), ``"span"`` (W = W0 + C X) or ``"auto"`` (default: span when
        n < d or when every sample is a multiple of its own canonical vector).
    gemm
        The library of a full-space step's two products (W X^T and (A g) X): ``"blas"``
        (torch's batched matmul), ``"onednn"`` (oneDNN, one call per replicate on prepacked
        samples; float32 only) or ``"auto"`` (default: oneDNN for float32 when n d p >=
        `numerics.torch_network.ONEDNN_MIN_NDP`, where it is faster). The library used is
        in each Trajectory's ``provenance["gemm"]``.
    batch_size
        Minibatch SGD with batches of this many samples, one permutation per epoch (the
        module docstring); ``None`` (default) is full-batch descent.
    sgd_seed
        The seed of the minibatches' permutations (default 0), per replicate.
    device
        Where the steps run: ``"cpu"`` (default), ``"cuda"`` (or ``"cuda:N"``; a GPU,
        float64 included) or ``"auto"`` (a GPU when torch sees one, else the CPU). The
        device used is in each Trajectory's ``provenance["device"]``.
    """

    lr: float
    dtype: str = "float64"
    stop_loss: float | None = None
    error_check: int | None = 2
    space: str = "auto"
    gemm: str = "auto"
    batch_size: int | None = None
    sgd_seed: int = 0
    device: str = "cpu"

    name = "gradient_descent"
    vector_output = True  # integrates a vector output (the cross-entropy) too

    @property
    def method_name(self) -> str:
        """What its Trajectories are called (``minibatch_sgd`` with a batch size)."""
        return self.name if self.batch_size is None else "minibatch_sgd"

    def __post_init__(self) -> None:
        if isinstance(self.lr, bool) or not (
            isinstance(self.lr, (int, float)) and np.isfinite(self.lr) and self.lr > 0
        ):
            raise MethodError(f"lr: must be a positive finite number, got {self.lr!r}.")
        if self.dtype not in tn.DTYPES:
            raise MethodError(f"dtype: {self.dtype!r} is not one of {tuple(tn.DTYPES)}.")
        if self.stop_loss is not None and not (
            isinstance(self.stop_loss, (int, float)) and np.isfinite(self.stop_loss)
            and self.stop_loss > 0
        ):
            raise MethodError(
                f"stop_loss: must be a positive finite loss level or None, got {self.stop_loss!r}."
            )
        if self.error_check is not None and (
            isinstance(self.error_check, bool) or not isinstance(self.error_check, int)
            or self.error_check < 2
        ):
            raise MethodError(
                f"error_check: must be an integer >= 2 (the companion's step is "
                f"lr / error_check) or None, got {self.error_check!r}."
            )
        if self.space not in SPACES:
            raise MethodError(f"space: {self.space!r} is not one of {SPACES}.")
        if self.gemm not in tn.GEMMS:
            raise MethodError(f"gemm: {self.gemm!r} is not one of {tn.GEMMS}.")
        if self.batch_size is not None and (
                isinstance(self.batch_size, bool) or not isinstance(self.batch_size, int)
                or self.batch_size < 1):
            raise MethodError(f"batch_size: must be a positive integer or None, got "
                              f"{self.batch_size!r}.")
        if isinstance(self.sgd_seed, bool) or not isinstance(self.sgd_seed, int) or (
                self.sgd_seed < 0):
            raise MethodError(f"sgd_seed: must be a non-negative integer, got {self.sgd_seed!r}.")
        if not isinstance(self.device, str) or not (
                self.device in ("cpu", "auto") or self.device.split(":")[0] == "cuda"):
            raise MethodError(f"device: {self.device!r} is not one of 'cpu', 'cuda', "
                              "'cuda:N' or 'auto'.")
        if self.gemm == "onednn" and self.device != "cpu":
            raise MethodError("gemm: 'onednn' runs on the CPU only; use gemm='auto' or "
                              "'blas' on another device.")
        if self.gemm == "onednn" and self.dtype != "float32":
            raise MethodError("gemm: 'onednn' takes float32 only; set dtype='float32' "
                              "or gemm='auto'.")

    def options(self) -> dict:
        """The options as a dict (stored in ``Trajectory.options``; the SGD ones only with
        a batch size)."""
        return {
            "lr": self.lr,
            "dtype": self.dtype,
            "stop_loss": self.stop_loss,
            "error_check": self.error_check,
            "space": self.space,
            "gemm": self.gemm,
            **({} if self.batch_size is None else {"batch_size": self.batch_size,
                                                   "sgd_seed": self.sgd_seed}),
            **({} if self.device == "cpu" else {"device": self.device}),
        }

    def torch_device(self) -> torch.device:
        """The torch device the steps run on (``auto``: a GPU when torch sees one); a
        MethodError when the device asked for is not on this machine."""
        if self.device == "cpu" or (self.device == "auto" and not torch.cuda.is_available()):
            return torch.device("cpu")
        if not torch.cuda.is_available():
            raise MethodError(f"device: {self.device!r} is not available here (torch sees no "
                              "GPU: torch.cuda.is_available() is False); use 'cpu' or 'auto'.")
        return torch.device("cuda" if self.device == "auto" else self.device)

    def run(self, problem: Problem, t_eval: np.ndarray) -> Trajectory:
        """One Problem: `run_batch` with a batch of one."""
        return self.run_batch([problem], t_eval)[0]

    def run_batch(self, problems: Sequence[Problem], t_eval: np.ndarray) -> list[Trajectory]:
        """One Trajectory per Problem, all descended together as one batch.

        ``wall_time`` of each Trajectory is its share (1/B) of the batch's time.
        """
        check_batch(problems)
        first = problems[0]
        with threads.for_products(2.0 * len(problems) * first.p * first.n * first.d):
            return self._run_batch(problems, t_eval)

    def _run_batch(self, problems, t_eval) -> list[Trajectory]:
        start = time.perf_counter()
        steps = whole_steps(t_eval, self.lr)
        times = steps * self.lr  # t_eval snapped to whole steps; the companion's too
        main = self._descend_batch(problems, steps, self.stop_loss, halt_steps=None)
        companions: list[Trajectory | None] = [None] * len(problems)
        if self.batch_size is not None:
            return self._with_rounding_companion(problems, t_eval, main, times, start)
        if self.error_check is not None:
            m = self.error_check
            finer = dataclasses.replace(self, lr=self.lr / m, stop_loss=None, error_check=None)
            halt = np.where(main.stop_step >= 0, main.stop_step * m, -1)
            comp = finer._descend_batch(problems, steps * m, None, halt_steps=halt)
            companions = [finer._trajectory(problems, comp, b, times, None, 0.0)
                          for b in range(len(problems))]
        share = (time.perf_counter() - start) / len(problems)
        runs = [self._trajectory(problems, main, b, times, companions[b], share)
                for b in range(len(problems))]
        if self.error_check is None:
            return runs
        richardson = 1.0 / (1.0 - 1.0 / self.error_check)
        return [dataclasses.replace(run, error_estimate=richardson * float(np.max(run.state_error)))
                for run in runs]

    def _with_rounding_companion(self, problems, t_eval, main, times, start) -> list[Trajectory]:
        """Minibatch SGD's runs, each with the same run in float32 as its companion (the
        module docstring); a float32 run, or error_check=None, has none."""
        companions: list[Trajectory | None] = [None] * len(problems)
        if self.error_check is not None and self.dtype == "float64":
            single = dataclasses.replace(self, dtype="float32", error_check=None)
            companions = single.run_batch(problems, t_eval)
        share = (time.perf_counter() - start) / len(problems)
        runs = [self._trajectory(problems, main, b, times, companions[b], share)
                for b in range(len(problems))]
        return [run if run.companion is None else dataclasses.replace(
            run, error_estimate=float(np.max(run.state_error))) for run in runs]

    # -- internals -------------------------------------------------------------------
    def _descend_batch(self, problems, steps, stop_loss, halt_steps) -> _Descent:
        dtype = tn.DTYPES[self.dtype]
        device = self.torch_device()
        batch = tn.TorchBatch.from_problems(problems, dtype, device)
        W0 = torch.from_numpy(np.stack([q.W0 for q in problems])).to(device, dtype)
        a0 = torch.from_numpy(np.stack([q.a0 for q in problems])).to(device, dtype)
        n, d, p = problems[0].n, problems[0].d, problems[0].p
        rule = _StepRule.of(self, problems, batch)
        # span when it is cheaper: n < d, or one-hot orthogonal samples (O(np) per step)
        if self.space == "span" or (
                self.space == "auto" and (n < d or _one_hot_columns(batch.X) is not None)):
            return _descend(_SpanState(batch, W0, a0), rule, steps, stop_loss, halt_steps)
        if not batch.is_relu and self.gemm == "onednn":
            raise MethodError("gemm: 'onednn' fuses the ReLU into its product; this Problem's "
                              f"activation is {problems[0].activation.spec!r}: use 'auto' or "
                              "'blas'.")
        try:
            gemm = (tn.resolve_gemm(self.gemm, dtype, n, d, p) if batch.is_relu else "blas")
        except ValueError as exc:
            raise MethodError(str(exc)) from None
        if gemm == "blas":
            return _descend(_FullState(batch, W0, a0), rule, steps, stop_loss, halt_steps)
        # oneDNN: the replicates descend in groups small enough for their packed samples
        # to stay in cache from one step to the next (each replicate's products are its
        # own calls, so grouping does not change its numbers)
        parts = []
        for rows in tn.onednn_groups(len(problems), n, d):
            group = batch.select(rows)
            state = _FullState(group, W0[rows], a0[rows], tn.PackedSamples(group.X, p))
            halt = None if halt_steps is None else np.asarray(halt_steps)[rows.numpy()]
            parts.append(_descend(state, rule.select(rows), steps, stop_loss, halt))
        return _Descent.concatenate(parts, gemm="onednn")

    def _trajectory(self, problems, run, b, times, companion, wall) -> Trajectory:
        k = run.n_saved[b]
        stop = run.stop_step[b] if run.stop_step[b] >= 0 else run.halt_step[b]
        status, message = Status.SUCCESS, ""
        if run.fail_step[b] >= 0:
            status = Status.NONFINITE
            message = (
                f"non-finite loss at step {run.fail_step[b]} (t={run.fail_step[b] * self.lr:.6g}); "
                "lower lr"
            )
        elif run.stop_step[b] >= 0:
            message = (
                f"stopped early at step {stop} (t={stop * self.lr:.6g}): "
                f"loss < stop_loss={self.stop_loss:g}"
            )
        return Trajectory(
            problem=problems[b],
            t=times[:k],
            W=run.W[b][:k],
            a=run.a[b][:k],
            method=self.method_name,
            options=self.options(),
            status=status,
            message=message,
            companion=companion,
            stop_time=None if stop < 0 else float(stop * self.lr),
            n_steps=int(run.n_steps[b]),
            step_loss=run.losses[b, : int(run.n_steps[b]) + 1].copy(),
            wall_time=wall,
            provenance=dict(environment(), gemm=run.gemm, device=run.device),
        )


def whole_steps(t_eval: np.ndarray, lr: float) -> np.ndarray:
    """Step numbers k with t_eval = k * lr, or a MethodError naming t_eval and lr."""
    t = np.asarray(t_eval, dtype=float)
    ratio = t / lr
    k = np.rint(ratio)
    off = np.abs(ratio - k) > _WHOLE_STEP_RTOL * np.maximum(1.0, ratio)
    if np.any(off):
        bad = float(t[np.argmax(off)])
        raise MethodError(
            f"t_eval: every saved time must be a whole number of steps of lr={lr!r} "
            f"(t = k * lr); {bad!r} is not. Use t_eval = lr * integers, or change lr."
        )
    return k.astype(np.int64)


@dataclass
class _Descent:
    """Saved states (numpy float64) and per-replicate outcomes of one batched run.

    Step markers are -1 when the event did not happen.
    """

    W: np.ndarray  # (B, T, p, d)
    a: np.ndarray  # (B, T, p)
    n_saved: np.ndarray  # (B,) valid saved times (fewer after a failure)
    n_steps: np.ndarray  # (B,) updates applied
    losses: np.ndarray  # (B, K) L(theta_k) for k = 0 .. K - 1 (nan after a replicate ended)
    stop_step: np.ndarray  # (B,) early stop on stop_loss
    halt_step: np.ndarray  # (B,) frozen at a prescribed step (companions)
    fail_step: np.ndarray  # (B,) non-finite loss
    gemm: str = "blas"  # the library of the full-space products
    device: str = "cpu"  # where the steps ran

    @classmethod
    def concatenate(cls, parts: list[_Descent], gemm: str) -> _Descent:
        """Runs of consecutive groups of replicates, as one run (losses padded with nan)."""
        width = max(part.losses.shape[1] for part in parts)
        losses = [np.pad(part.losses, ((0, 0), (0, width - part.losses.shape[1])),
                         constant_values=np.nan) for part in parts]
        joined = {f.name: np.concatenate([getattr(part, f.name) for part in parts])
                  for f in dataclasses.fields(cls) if f.name not in ("losses", "gemm", "device")}
        return cls(losses=np.concatenate(losses), gemm=gemm, **joined)


class _FullState:
    """theta = (W, a) stored as is; relu(W X^T) goes into one reused (B, p, n) buffer.

    With ``packed`` samples the two products of a step run on oneDNN
    (`numerics.torch_network.PackedSamples`), else on torch's batched matmul.
    """

    def __init__(self, batch: tn.TorchBatch, W0: torch.Tensor, a0: torch.Tensor,
                 packed: tn.PackedSamples | None = None):
        self.batch, self.packed = batch, packed
        self.W, self.a = W0.clone(), a0.clone()
        self.Z = torch.empty((W0.shape[0], W0.shape[1], batch.n), dtype=W0.dtype,
                             device=W0.device)

    def rectified_preactivations(self) -> torch.Tensor:
        if self.packed is not None:
            return self.packed.relu_preactivations(self.W, out=self.Z)
        return self.preactivations().clamp_min_(0.0)

    def preactivations(self) -> torch.Tensor:
        return tn.preactivations(self.W, self.batch, out=self.Z)

    def step(self, eta: float, AG, grad_a, eta_w: float | None = None,
             eta_a: float | None = None) -> None:
        # W_j -= eta a_j (AG X)_j first (at the old a), then a -= eta dL/da; in place. A
        # frozen layer has its eta at 0 (``eta_w``/``eta_a`` default to ``eta``)
        eta_w = eta if eta_w is None else eta_w
        eta_a = eta if eta_a is None else eta_a
        if eta_w:
            products = tn.first_layer_products(self.batch, AG, self.packed)
            if self.batch.vector:  # AG holds <a_j, s g_i> already
                self.W.add_(products, alpha=-eta_w)
            else:
                self.W.addcmul_(products, self.a.unsqueeze(2), value=-eta_w)
        if eta_a:
            self.a.add_(grad_a, alpha=-eta_a)

    def weights(self) -> tuple[torch.Tensor, torch.Tensor]:
        return self.W, self.a

    def select(self, rows: torch.Tensor) -> _FullState:
        packed = None if self.packed is None else self.packed.select(rows)
        return _FullState(self.batch.select(rows), self.W[rows], self.a[rows], packed)


class _SpanState:
    """W = W0 + C X with C (B, p, n): pre-activations Z0 + C G, G = X X^T.

    A step works in place: the pre-activations go into one (B, p, n) buffer (which
    `numerics.torch_network.gradient_terms` turns into A g) and C is updated in place,
    so no array of that size is allocated per step (on one-hot data, where a step is a
    few passes over such arrays, allocation was most of its time).
    """

    def __init__(self, batch: tn.TorchBatch, W0: torch.Tensor, a0: torch.Tensor):
        self.batch, self.W0 = batch, W0
        self.columns = _one_hot_columns(batch.X)
        if self.columns is not None:
            # x_i = v_i e_{k_i} with distinct k_i (as x_i = c_i e_i): G = diag(v^2) and
            # <w_j, x_i> = v_i W[j, k_i]; nothing of size n x d is ever multiplied.
            cols, vals = self.columns
            self.Z0 = vals[:, None, :] * torch.gather(W0, 2, self._expand(cols))
            self.G = (vals**2)[:, None, :]
        else:
            self.Z0 = tn.preactivations(W0, batch)
            self.G = batch.X @ batch.XT
        self.C = torch.zeros_like(self.Z0)
        self.Z = torch.empty_like(self.Z0)
        self.a = a0.clone()

    def _expand(self, cols: torch.Tensor) -> torch.Tensor:
        return cols[:, None, :].expand(-1, self.W0.shape[1], -1)

    def rectified_preactivations(self) -> torch.Tensor:
        return self.preactivations().clamp_min_(0.0)

    def preactivations(self) -> torch.Tensor:
        if self.columns is not None:
            return torch.addcmul(self.Z0, self.G, self.C, out=self.Z)
        return torch.baddbmm(self.Z0, self.C, self.G, out=self.Z)

    def step(self, eta: float, AG, grad_a, eta_w: float | None = None,
             eta_a: float | None = None) -> None:
        # dL/dW = C_grad X with C_grad = a_j AG: the step stays in the span.
        eta_w = eta if eta_w is None else eta_w
        eta_a = eta if eta_a is None else eta_a
        if eta_w:
            if self.batch.vector:  # AG holds <a_j, s g_i> already
                self.C.add_(AG, alpha=-eta_w)
            else:
                self.C.addcmul_(AG, self.a[:, :, None], value=-eta_w)
        if eta_a:
            self.a.add_(grad_a, alpha=-eta_a)

    def weights(self) -> tuple[torch.Tensor, torch.Tensor]:
        if self.columns is not None:
            cols, vals = self.columns
            return self.W0.scatter_add(2, self._expand(cols), self.C * vals[:, None, :]), self.a
        return self.W0 + self.C @ self.batch.X, self.a

    def select(self, rows: torch.Tensor) -> _SpanState:
        new = object.__new__(_SpanState)
        new.batch = self.batch.select(rows)
        new.W0, new.Z0, new.G = self.W0[rows], self.Z0[rows], self.G[rows]
        new.C, new.a = self.C[rows], self.a[rows]
        new.Z = torch.empty_like(new.C)
        new.columns = None if self.columns is None else tuple(c[rows] for c in self.columns)
        return new


def _one_hot_columns(X: torch.Tensor):
    """`numerics.network.one_hot_columns` of every replicate, as (columns, values) tensors
    of shape (B, n); None unless every replicate's data are one-hot."""
    found = [network.one_hot_columns(x) for x in X.cpu().numpy()]
    if any(f is None for f in found):
        return None
    cols = torch.from_numpy(np.stack([c for c, _ in found])).to(X.device)
    return cols, torch.from_numpy(np.stack([v for _, v in found])).to(X.device, X.dtype)


class _StepRule:
    """What one step of a run computes: its gradient terms (the fused ReLU step or any
    activation's), the step of each layer (0 on a frozen one) and, for minibatch SGD,
    each replicate's sample weights at step k."""

    def __init__(self, batch, eta, eta_w, eta_a, samplers):
        self.batch, self.eta, self.eta_w, self.eta_a = batch, eta, eta_w, eta_a
        self.samplers = samplers  # None, or one _Minibatches per replicate

    @classmethod
    def of(cls, method: GradientDescent, problems, batch) -> _StepRule:
        eta = method.lr * batch.flow_factor
        first = problems[0]
        samplers = None
        if method.batch_size is not None:
            samplers = [_Minibatches(q, method.batch_size, method.sgd_seed) for q in problems]
        return cls(batch, eta, eta if first.trains_first_layer else 0.0,
                   eta if first.trains_second_layer else 0.0, samplers)

    def select(self, rows: torch.Tensor) -> _StepRule:
        samplers = None if self.samplers is None else [self.samplers[k] for k in rows.tolist()]
        return _StepRule(self.batch.select(rows), self.eta, self.eta_w, self.eta_a, samplers)

    def weights(self, k: int, alive) -> torch.Tensor | None:
        if self.samplers is None:
            return None
        rows = [self.samplers[b].weights(k) for b in alive]
        X = self.batch.X
        return torch.from_numpy(np.stack(rows)).to(X.device, X.dtype)

    def terms(self, state, k: int, alive):
        weights = self.weights(k, alive)
        if state.batch.is_relu:
            return tn.rectified_gradient_terms(state.batch, state.a,
                                               state.rectified_preactivations(), weights)
        return tn.activation_gradient_terms(state.batch, state.a, state.preactivations(),
                                            weights)

    def step(self, state, AG, grad_a) -> None:
        if self.eta_w == self.eta_a:
            state.step(self.eta, AG, grad_a)
        else:
            state.step(self.eta, AG, grad_a, self.eta_w, self.eta_a)


class _Minibatches:
    """One replicate's minibatches: an epoch is a seeded permutation of its n samples cut
    into batches of ``size`` (the last one shorter); step k takes batch k mod the epoch's
    count. Weights n / |S| on the batch S: the batch's mean on the full loss's scale."""

    def __init__(self, problem: Problem, size: int, seed: int):
        self.n = problem.n
        self.size = min(size, self.n)
        self.per_epoch = -(-self.n // self.size)
        self.rng = np.random.default_rng([seed, int(problem.content_hash, 16)])
        self.epoch, self.order = -1, None

    def weights(self, k: int) -> np.ndarray:
        epoch, part = divmod(k, self.per_epoch)
        while self.epoch < epoch:  # epochs are drawn in order: same seed, same batches
            self.order = self.rng.permutation(self.n)
            self.epoch += 1
        batch = self.order[part * self.size:(part + 1) * self.size]
        out = np.zeros(self.n)
        out[batch] = self.n / batch.size
        return out


def _descend(state, rule: _StepRule, steps, stop_loss, halt_steps) -> _Descent:
    """Run steps 0 .. steps[-1], saving theta_k at every k in ``steps``.

    A replicate that stops (stop_loss, halt step or a non-finite loss) is dropped from
    the batch at once: its state is written into the remaining saved times and the
    others go on without it, so a batch costs what its live replicates cost.
    """
    B = rule.batch.X.shape[0]
    device = rule.batch.X.device
    W_init, a_init = state.weights()
    saved_W = torch.empty((B, len(steps)) + tuple(W_init.shape[1:]), dtype=W_init.dtype)
    saved_a = torch.empty((B, len(steps)) + tuple(a_init.shape[1:]), dtype=a_init.dtype)
    stop_step = np.full(B, -1, dtype=np.int64)
    fail_step = np.full(B, -1, dtype=np.int64)
    halt_step = np.full(B, -1, dtype=np.int64)
    halt = None if halt_steps is None else np.asarray(halt_steps, dtype=np.int64)
    halt_at = set() if halt is None else set(halt.tolist())
    active = np.ones(B, dtype=bool)
    alive = np.arange(B)  # the replicates (original indices) still in ``state``, in order
    next_save, last = 0, int(steps[-1])
    losses = np.full((B, last + 1), np.nan)
    for k in range(last + 1):
        live_loss, AG, grad_a = rule.terms(state, k, alive)
        live = live_loss.cpu().numpy()  # the loss of the replicates in ``alive``
        losses[alive, k] = live
        # all finite, none below stop_loss, no halt now: nothing to decide (the usual step)
        finished = not (np.isfinite(live.sum()) and (stop_loss is None or live.min() >= stop_loss)
                        and k not in halt_at) and _finish(
            k, live, alive, active, stop_loss, halt, stop_step, fail_step, halt_step)
        while next_save < len(steps) and steps[next_save] == k:
            W_now, a_now = state.weights()
            saved_W[alive, next_save], saved_a[alive, next_save] = W_now.cpu(), a_now.cpu()
            next_save += 1
        if k == last or not active.any():
            break
        if finished:
            stay = active[alive]
            W_now, a_now = state.weights()
            gone = torch.from_numpy(~stay).to(device)
            saved_W[alive[~stay], next_save:] = W_now[gone][:, None].cpu()
            saved_a[alive[~stay], next_save:] = a_now[gone][:, None].cpu()
            rows = torch.from_numpy(np.flatnonzero(stay)).to(device)
            state, AG, grad_a = state.select(rows), AG[rows], grad_a[rows]
            alive = alive[stay]
        rule.step(state, AG, grad_a)
    if next_save < len(steps):  # the loop ended early: the rest repeat the last state
        W_last, a_last = state.weights()
        saved_W[alive, next_save:] = W_last[:, None].cpu()
        saved_a[alive, next_save:] = a_last[:, None].cpu()
    ended = np.where(active, last, np.maximum.reduce([stop_step, fail_step, halt_step]))
    n_saved = np.where(
        fail_step >= 0, np.searchsorted(steps, fail_step, side="left"), len(steps)
    )
    return _Descent(
        W=saved_W.to(torch.float64).numpy(),
        a=saved_a.to(torch.float64).numpy(),
        n_saved=n_saved,
        losses=losses[:, : int(ended.max()) + 1],
        n_steps=ended,
        stop_step=stop_step,
        halt_step=halt_step,
        fail_step=fail_step,
        device=str(device),
    )


def _finish(k, live, alive, active, stop_loss, halt, stop_step, fail_step, halt_step) -> bool:
    """Deactivate the replicates ``alive`` (losses ``live``) that fail, reach stop_loss or
    their halt step at step k."""
    loss = np.full(len(active), np.nan)
    loss[alive] = live
    rules = [(~np.isfinite(loss), fail_step)]
    if stop_loss is not None:
        rules.append((loss < stop_loss, stop_step))
    if halt is not None:
        rules.append((halt == k, halt_step))
    changed = False
    for hit, record in rules:
        now = hit & active
        if now.any():
            record[now] = k
            active[now] = False
            changed = True
    return changed
