"""`Recorder`: the one gfverify object a PyTorch training loop needs to be checked.

It reads a plain two-layer network,

    nn.Sequential(nn.Linear(d, p, bias=False), nn.ReLU(), nn.Linear(p, 1, bias=False))

(``nn.LeakyReLU(slope)`` for the activation; ``bias=True`` on the first layer: hidden
biases, recorded as the constant input coordinate 1, `numerics.model`; a layer whose
weights do not require gradients: a frozen layer), and saves its weights when asked::

    rec = Recorder(model, X, y, lr=0.05, init_scale=1e-6)
    for step in range(steps):
        loss = ((model(X).squeeze(1) - y) ** 2).mean() / 2
        if step % 10 == 0:
            rec.save(step, loss)   # the state the loss was computed at: before the update
        opt.zero_grad(); loss.backward(); opt.step()
    rec.write("run.npz")           # numerics.recorded's format; or rec.trajectory()

Time: step k is at flow time t = k lr / kappa (kappa = p for a mean-field network, 1
otherwise), the time gfverify's own `GradientDescent` gives the same step.

At the first save with a loss, the loss the loop computed is compared with the Problem's
loss at the saved state (the declared ``loss``, ``loss_scale`` and ``parametrization``):
a mismatch (the mean square error without its 1/2, a sum for a mean, outputs not divided
by p) is a `numerics.recorded.RecordError` naming the convention it looks like, before the
loop runs on with a time axis that would be wrong. `convention` says which was found.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from numerics.recorded import (
    RecordError,
    RunModel,
    check_loss,
    convention_text,
    problem_of,
    recorded,
    write_run,
)
from numerics.trajectory import Trajectory

SUPPORTED = ("nn.Sequential(nn.Linear(d, p[, bias]), nn.ReLU() or nn.LeakyReLU(slope), "
             "nn.Linear(p, 1, bias=False))")


class Recorder:
    """Saves a two-layer PyTorch network's weights during training, as a recorded run.

    Parameters
    ----------
    model
        The network (the module docstring's form); anything else is a RecordError that
        names what it supports.
    X, y
        The training inputs (n, d) and labels (n,) or (n, 1), as the loop uses them
        (tensors or arrays).
    lr
        The optimizer's step on the loss the loop computes.
    batch_size
        The minibatch size for SGD (None: full-batch gradient descent).
    loss
        ``"square"`` (default), ``"exponential"`` or ``"logistic"``.
    loss_scale
        The loss's prefactor c relative to gfverify's convention (square: c/(2n) sum (y -
        h)^2); torch's ``MSELoss`` is c = 2.
    parametrization
        ``"standard"`` (default) or ``"mean_field"`` (the loop's network output is divided
        by p).
    init_scale
        The initialisation scale lam, when the initialisation has one (claims of
        small-initialisation papers need it).
    note
        Free text stored with the run (where it comes from).
    """

    def __init__(self, model, X, y, *, lr: float, batch_size: int | None = None,
                 loss: str = "square", loss_scale: float = 1.0,
                 parametrization: str = "standard", init_scale: float | None = None,
                 note: str = ""):
        self.first, self.second, activation, bias = _layers(model)
        self.dtype = _dtype(self.first.weight)
        X = _numpy(X, "X")
        y = _numpy(y, "y")
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        if X.ndim != 2 or X.shape[1] != self.first.in_features:
            raise RecordError(f"Recorder: X: expected shape (n, {self.first.in_features}) "
                              f"(the first layer's inputs), got {X.shape}")
        if y.shape != (X.shape[0],):
            raise RecordError(f"Recorder: y: expected shape ({X.shape[0]},) or "
                              f"({X.shape[0]}, 1), one label per row of X, got {y.shape}")
        train = _trained(self.first, self.second)
        self.model = RunModel(
            activation=activation, train=train, parametrization=parametrization, loss=loss,
            loss_scale=float(loss_scale), method="gd" if batch_size is None else "sgd",
            lr=None, batch_size=batch_size, dtype=self.dtype,
            hidden_bias=1.0 if bias else None, init_scale=init_scale, note=note)
        self.X = np.hstack([X, np.ones((X.shape[0], 1))]) if bias else X
        self.y = y
        kappa = self.first.out_features if parametrization == "mean_field" else 1.0
        if not (isinstance(lr, (int, float)) and np.isfinite(lr) and lr > 0):
            raise RecordError(f"Recorder: lr: expected a positive step, got {lr!r}")
        self.step_time = float(lr) / kappa
        self.model = RunModel(**{**self.model.__dict__, "lr": self.step_time})
        self.model.validate("Recorder")
        self.steps: list[int] = []
        self.W: list[np.ndarray] = []
        self.a: list[np.ndarray] = []
        self.losses: list[float] = []
        self.convention = ""

    def save(self, step: int, loss=None) -> None:
        """Save the network's current weights as step ``step`` (t = step * lr / kappa), with
        the loss the loop computed at them (a float or a 0-d tensor; optional, but give it
        at least once: the first save with a loss checks the convention)."""
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 0:
            raise RecordError(f"Recorder.save: step: expected a whole step number >= 0, got "
                              f"{step!r}")
        if self.steps and step <= self.steps[-1]:
            raise RecordError(f"Recorder.save: step {step} after step {self.steps[-1]}: save "
                              "each step once, in increasing order")
        if self.steps and (loss is not None) != bool(self.losses):
            raise RecordError("Recorder.save: loss: give it at every save or at none")
        W, a = self._weights()
        self.steps.append(int(step))
        self.W.append(W)
        self.a.append(a)
        if loss is None:
            return
        value = float(loss.detach().cpu().item() if hasattr(loss, "detach") else loss)
        self.losses.append(value)
        if len(self.losses) == 1:
            self.convention = self._check_first(value)

    def _weights(self) -> tuple[np.ndarray, np.ndarray]:
        W = self.first.weight.detach().cpu().double().numpy().copy()
        if self.first.bias is not None:
            W = np.hstack([W, self.first.bias.detach().cpu().double().numpy()[:, None]])
        a = self.second.weight.detach().cpu().double().numpy()[0].copy()
        if not (np.all(np.isfinite(W)) and np.all(np.isfinite(a))):
            raise RecordError("Recorder.save: the network's weights contain NaN or infinity "
                              "(the run diverged; lower lr)")
        return W, a

    def _check_first(self, value: float) -> str:
        problem = problem_of({"X": self.X, "y": self.y, "W": self.W[0][None],
                              "a": self.a[0][None]}, self.model, "Recorder")
        run = Trajectory(problem=problem, t=np.zeros(1), W=self.W[-1][None],
                         a=self.a[-1][None], method="recorded", options={})
        check_loss(run, np.array([value]), self.model, "Recorder.save (first save)")
        return convention_text(problem)

    def arrays(self) -> dict:
        """The recorded run as `numerics.recorded.write_run`'s arguments."""
        if not self.steps:
            raise RecordError("Recorder: nothing saved yet (call save(step, loss) in the loop)")
        out = {"X": self.X, "y": self.y, "times": np.array(self.steps) * self.step_time,
               "W": np.stack(self.W), "a": np.stack(self.a), "model": self.model}
        if self.losses:
            out["loss"] = np.array(self.losses)
        return out

    def write(self, path) -> Path:
        """Write the run to ``path`` (one ``.npz``, `numerics.recorded`'s format)."""
        arrays = self.arrays()
        model = arrays.pop("model")
        return write_run(path, model=model, **arrays)

    def trajectory(self, reference: bool = True) -> Trajectory:
        """The run so far as a `Trajectory` (`numerics.recorded.recorded`)."""
        return recorded(None, reference=reference, **self.arrays())


def _layers(model):
    import torch.nn as nn

    def refuse(what: str):
        raise RecordError(f"Recorder: cannot map {what}; it reads {SUPPORTED}")

    if not isinstance(model, nn.Sequential):
        refuse(f"a {type(model).__name__} (not an nn.Sequential)")
    parts = list(model)
    if len(parts) != 3:
        refuse(f"an nn.Sequential of {len(parts)} modules "
               f"({', '.join(type(m).__name__ for m in parts)})")
    first, act, second = parts
    for layer, where in ((first, "first"), (second, "last")):
        if not isinstance(layer, nn.Linear):
            refuse(f"a {type(layer).__name__} as the {where} module")
    if type(act) not in (nn.ReLU, nn.LeakyReLU):
        refuse(f"a {type(act).__name__} as the activation")
    if second.out_features != 1:
        refuse(f"a vector output (nn.Linear({second.in_features}, {second.out_features}))")
    if second.in_features != first.out_features:
        refuse(f"layers of widths {first.out_features} and {second.in_features}")
    if second.bias is not None:
        refuse("an output bias (use nn.Linear(p, 1, bias=False))")
    activation = "relu" if type(act) is nn.ReLU else f"leaky:{act.negative_slope:g}"
    return first, second, activation, first.bias is not None


def _trained(first, second) -> str:
    moving_first = first.weight.requires_grad or (
        first.bias is not None and first.bias.requires_grad)
    moving_second = second.weight.requires_grad
    if moving_first and moving_second:
        return "both"
    if moving_first:
        return "first"
    if moving_second:
        return "second"
    raise RecordError("Recorder: no layer requires gradients (both are frozen): nothing "
                      "trains")


def _dtype(weight) -> str:
    import torch

    names = {torch.float32: "float32", torch.float64: "float64"}
    if weight.dtype not in names:
        raise RecordError(f"Recorder: the weights are {weight.dtype}; it records float32 or "
                          "float64 networks")
    return names[weight.dtype]


def _numpy(value, name: str) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().double().numpy()
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise RecordError(f"Recorder: {name}: not an array of numbers") from None
    if not np.all(np.isfinite(arr)):
        raise RecordError(f"Recorder: {name}: contains NaN or infinity")
    return arr
