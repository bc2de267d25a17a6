"""`Recorder`: the one gfverify object a PyTorch training loop needs to be checked.

It reads a two-layer network: ``nn.Sequential(nn.Linear(d, p), nn.ReLU(), nn.Linear(p, 1,
bias=False))``, or the loop's own ``nn.Module`` with two ``nn.Linear`` layers and a ReLU
(found by structure, or named: ``layers=(net.hidden, net.predict)``, ``activation=``),
and saves its weights when asked::

    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    rec = Recorder(net, X, y, optimizer=opt, loss_scale=2, init_scale=1e-6)
    for step in range(steps):
        loss = nn.MSELoss()(net(X), y)     # the mean of (y - h)^2: loss_scale 2
        if step % 10 == 0:
            rec.save(step, loss)   # the state the loss was computed at: before the update
        opt.zero_grad(); loss.backward(); opt.step()
    rec.write("run.npz")           # numerics.recorded's format; or rec.trajectory()

``nn.LeakyReLU(slope)`` is a leaky activation; ``bias=True`` on the first layer: hidden
biases, recorded as the constant input coordinate 1 (`numerics.model`); a layer whose
weights do not require gradients: a frozen layer. At construction the network's own
output on X is compared with a_j sigma(<w_j, x>) of the layers found: a model the
recorder misreads is refused there, with how to name its layers.

Time: step k is at flow time t = k lr / kappa (kappa = p for a mean-field network, 1
otherwise), the time gfverify's own `GradientDescent` gives the same step.

The optimiser: given ``optimizer=``, its class and hyperparameters (momentum, betas,
weight decay, each group's step) are recorded (`numerics.optimizers`), and its step is
read again at every save (a schedule that changes it is recorded). A loop that is not
gradient descent (Adam, momentum, weight decay) is recorded as it is, and the flow's
claims are then INAPPLICABLE to it (`numerics.recorded`).

The loss: ``loss_scale`` is its prefactor c against gfverify's convention (square: c/(2n)
sum (y - h)^2; torch's ``MSELoss`` is c = 2). The loop then follows the flow of c L, which
is the flow of L at c times its time: the claims, written in their papers' convention,
are checked on the run read that way (`numerics.conventions`). At the first save with a
loss, the loss the loop computed is compared with the Problem's loss at the saved state:
a mismatch (the mean square error without its 1/2, a sum for a mean, outputs not divided
by p) is a `numerics.recorded.RecordError` naming the convention it looks like and the
``loss_scale`` to declare, before the loop runs on with a time axis that would be wrong.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from numerics.optimizers import Optimizer, OptimizerError
from numerics.recorded import (
    DTYPES,
    RecordError,
    RunModel,
    check_loss,
    convention_text,
    problem_of,
    recorded,
    write_run,
)
from numerics.trajectory import Trajectory

SUPPORTED = ("a two-layer network: nn.Linear(d, p[, bias]), nn.ReLU() or nn.LeakyReLU(slope), "
             "nn.Linear(p, 1, bias=False), as an nn.Sequential or in your own nn.Module")
HOW_TO_NAME = ("name them: Recorder(net, X, y, lr=..., layers=(net.hidden, net.output), "
               "activation='relu') (your two nn.Linear attributes, the first layer first; "
               "activation 'relu' or 'leaky:SLOPE')")


class Recorder:
    """Saves a two-layer PyTorch network's weights during training, as a recorded run.

    Parameters
    ----------
    model
        The network (the module docstring's forms); anything else is a RecordError that
        names what it supports and how to name the layers.
    X, y
        The training inputs (n, d) and labels (n,) or (n, 1), as the loop uses them
        (tensors or arrays).
    lr
        The step of the loop's update (optional with ``optimizer``: its step is used; the
        two must agree when both are given).
    optimizer
        The loop's ``torch.optim`` optimiser (recommended): its class and hyperparameters
        are recorded, and a loop that is not gradient descent (Adam, momentum, weight
        decay, layer-wise or scheduled steps) is marked so (`numerics.optimizers`).
        Without it the loop is recorded as gradient descent and gfverify measures whether
        it is.
    layers
        ``(first, last)``: the two ``nn.Linear`` modules of your own ``nn.Module``, when
        they cannot be found by structure.
    activation
        ``"relu"`` or ``"leaky:SLOPE"`` (or the activation module), when the model's
        activation is not an ``nn.ReLU``/``nn.LeakyReLU`` attribute (``F.relu`` in
        ``forward``: ReLU is then assumed, and checked on the model's output).
    batch_size
        The minibatch size for SGD (None: full-batch).
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

    def __init__(self, model, X, y, *, lr: float | None = None, optimizer=None,
                 layers=None, activation=None, batch_size: int | None = None,
                 loss: str = "square", loss_scale: float = 1.0,
                 parametrization: str = "standard", init_scale: float | None = None,
                 note: str = ""):
        self.first, self.second, act, bias = find_layers(model, layers, activation)
        self.dtype = _dtype(self.first.weight)
        self.optimizer = optimizer
        record = _optimizer_record(optimizer)
        lr = _step(lr, record)
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
        kappa = self.first.out_features if parametrization == "mean_field" else 1.0
        self.step_time = float(lr) / kappa
        self.model = RunModel(
            activation=act, train=train, parametrization=parametrization, loss=loss,
            loss_scale=float(loss_scale), method="gd" if batch_size is None else "sgd",
            lr=self.step_time, batch_size=batch_size, dtype=self.dtype,
            hidden_bias=1.0 if bias else None, init_scale=init_scale, note=note,
            optimizer=record)
        self.model.validate("Recorder")
        self.X = np.hstack([X, np.ones((X.shape[0], 1))]) if bias else X
        self.y = y
        _check_forward(model, X, self)
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
        self._read_step(int(step))
        self.steps.append(int(step))
        self.W.append(W)
        self.a.append(a)
        if loss is None:
            return
        value = float(loss.detach().cpu().item() if hasattr(loss, "detach") else loss)
        self.losses.append(value)
        if len(self.losses) == 1:
            self.convention = self._check_first(value)

    def _read_step(self, step: int) -> None:
        """Record a change of the optimiser's step (a schedule) found at this save."""
        record = self.model.optimizer
        if self.optimizer is None or record is None:
            return
        lrs = [float(g["lr"]) for g in self.optimizer.param_groups]
        known = record.lr_changes[-1][1] if record.lr_changes else record.lr
        if record.lr is not None and any(lr != known for lr in lrs):
            changed = next(lr for lr in lrs if lr != known)
            self.model = replace(self.model, optimizer=record.with_lr_change(step, changed))

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


def find_layers(model, layers=None, activation=None):
    """``(first, last, activation spelling, has hidden biases)`` of a two-layer network:
    an ``nn.Sequential`` of three modules, ``layers`` named by the user, or the only two
    ``nn.Linear`` modules of the user's own ``nn.Module``; a RecordError that says how to
    name them otherwise."""
    import torch.nn as nn

    if not isinstance(model, nn.Module):
        raise RecordError(f"Recorder: model: expected a torch nn.Module, got a "
                          f"{type(model).__name__}")
    kind = type(model).__name__
    if layers is not None:
        if not (isinstance(layers, (tuple, list)) and len(layers) == 2):
            raise RecordError("Recorder: layers: expected (first, last), the two nn.Linear "
                              f"modules of the network, got {layers!r}")
        first, second = layers
        for layer, where in ((first, "first"), (second, "last")):
            if not isinstance(layer, nn.Linear):
                raise RecordError(f"Recorder: layers: the {where} is a "
                                  f"{type(layer).__name__}, not an nn.Linear")
    else:
        first, second = _linear_pair(model, kind)
    ours = {id(q) for q in (*first.parameters(), *second.parameters())}
    others = [(name, m) for name, m in model.named_modules()
              if any(id(q) not in ours for q in m.parameters(recurse=False))]
    if others:
        name, module = others[0]
        raise RecordError(f"Recorder: cannot map a {kind} with parameters outside its two "
                          f"layers (a {type(module).__name__} {name or kind!r}); it reads "
                          f"{SUPPORTED}")
    if second.out_features != 1:
        raise RecordError(f"Recorder: cannot map a vector output (nn.Linear("
                          f"{second.in_features}, {second.out_features})); it reads "
                          f"{SUPPORTED}")
    if second.in_features != first.out_features:
        raise RecordError(f"Recorder: layers of widths {first.out_features} and "
                          f"{second.in_features} do not connect (the first layer's outputs "
                          "are the last layer's inputs); " + HOW_TO_NAME)
    if second.bias is not None:
        raise RecordError("Recorder: cannot map an output bias (use nn.Linear(p, 1, "
                          f"bias=False)); it reads {SUPPORTED}")
    return first, second, _activation(model, activation, kind), first.bias is not None


def _linear_pair(model, kind: str):
    import torch.nn as nn

    linears = [(name or kind, m) for name, m in model.named_modules()
               if isinstance(m, nn.Linear)]
    if len(linears) != 2:
        found = ", ".join(name for name, _ in linears) or "none"
        raise RecordError(f"Recorder: cannot map a {kind}: it has {len(linears)} nn.Linear "
                          f"modules ({found}), where a two-layer network has 2; "
                          + HOW_TO_NAME)
    (_, a), (_, b) = linears
    if a.out_features == b.in_features and b.out_features == 1:
        return a, b
    if b.out_features == a.in_features and a.out_features == 1:
        return b, a
    return a, b  # the width and output checks name what is wrong


_OTHER_ACTIVATIONS = ("Tanh", "Sigmoid", "GELU", "ELU", "SELU", "SiLU", "Softplus", "Mish",
                      "Hardtanh", "ReLU6", "PReLU", "CELU", "Softsign", "Hardswish")


def _activation(model, given, kind: str) -> str:
    import torch.nn as nn

    from numerics.activations import ActivationError
    from numerics.activations import parse as parse_activation

    if given is not None:
        if isinstance(given, nn.Module):
            return _module_activation(given, kind)
        try:
            parse_activation(given)
        except ActivationError:
            raise RecordError(f"Recorder: activation: {given!r} is not 'relu', "
                              "'leaky:SLOPE' or an nn.ReLU / nn.LeakyReLU module") from None
        return str(given)
    found = {_module_activation(m, kind) for _, m in model.named_modules()
             if type(m) in (nn.ReLU, nn.LeakyReLU)}
    others = sorted({type(m).__name__ for _, m in model.named_modules()
                     if type(m).__name__ in _OTHER_ACTIVATIONS})
    if others:
        raise RecordError(f"Recorder: cannot map a {kind} with a {others[0]} activation; it "
                          f"reads {SUPPORTED}")
    if len(found) > 1:
        raise RecordError(f"Recorder: a {kind} holds several activations "
                          f"({', '.join(sorted(found))}); name the one its hidden layer "
                          "uses: activation='relu' or 'leaky:SLOPE'")
    return found.pop() if found else "relu"  # F.relu in forward: checked on the output


def _module_activation(module, kind: str) -> str:
    import torch.nn as nn

    if type(module) is nn.ReLU:
        return "relu"
    if type(module) is nn.LeakyReLU:
        return f"leaky:{module.negative_slope:g}"
    raise RecordError(f"Recorder: cannot map a {kind} with a {type(module).__name__} "
                      f"activation; it reads {SUPPORTED}")


def _check_forward(model, X: np.ndarray, rec: Recorder) -> None:
    """The model's own output on X against sum_j a_j sigma(<w_j, x>) of the layers found
    (the declared activation; divided by p or not: a mean-field loop may divide in its
    loss or in its forward): a RecordError when it is neither, so that no run is recorded
    for a network the recorder reads wrongly."""
    import torch

    weight = rec.first.weight
    W, a = rec._weights()
    problem = problem_of({"X": rec.X, "y": rec.y, "W": W[None], "a": a[None]}, rec.model,
                         "Recorder")
    factor = problem.output_factor
    standard = Trajectory(problem=problem, t=np.zeros(1), W=W[None], a=a[None],
                          method="recorded", options={}).outputs[0] / factor
    try:
        with torch.no_grad():
            out = model(torch.as_tensor(X, dtype=weight.dtype, device=weight.device))
    except Exception as exc:  # the user's forward: any failure is theirs to see
        raise RecordError(f"Recorder: the model's forward on X failed ({type(exc).__name__}: "
                          f"{exc}); X must be what the loop feeds it") from None
    theirs = out.detach().cpu().double().numpy().reshape(-1) if hasattr(out, "detach") \
        else None
    if theirs is None or theirs.shape != standard.shape:
        got = getattr(out, "shape", type(out).__name__)
        raise RecordError(f"Recorder: the model's output on X has shape {tuple(got)}, not "
                          f"one number per sample ({len(standard)}); it reads {SUPPORTED}")
    scale = float(np.sum(np.abs(a) * np.linalg.norm(W, axis=1))
                  * np.max(np.linalg.norm(rec.X, axis=1)))
    tol = 64 * DTYPES[rec.dtype] * X.shape[1] * max(scale, np.finfo(float).tiny)
    gaps = {f: float(np.max(np.abs(theirs - f * standard))) for f in {1.0, factor}}
    if min(gaps.values()) <= tol:
        return
    p = problem.p
    if float(np.max(np.abs(theirs - standard / p))) <= tol:
        raise RecordError("Recorder: the model divides its output by p (a mean-field "
                          "network): record with parametrization='mean_field'")
    raise RecordError(
        f"Recorder: the model's output is not sum_j a_j sigma(<w_j, x>) of the layers found "
        f"(activation {rec.model.activation}): it differs by {min(gaps.values()):.3g} "
        f"(allowed {tol:.2g}); if the network is two-layer, {HOW_TO_NAME}")


def _optimizer_record(optimizer) -> Optimizer | None:
    if optimizer is None:
        return None
    try:
        return Optimizer.from_torch(optimizer)
    except OptimizerError as exc:
        raise RecordError(f"Recorder: {exc}") from None


def _step(lr, record: Optimizer | None) -> float:
    """The loop's step: ``lr``, or the optimiser's (they must agree when both are given)."""
    if lr is not None and not (isinstance(lr, (int, float)) and not isinstance(lr, bool)
                               and np.isfinite(lr) and lr > 0):
        raise RecordError(f"Recorder: lr: expected a positive step, got {lr!r}")
    if record is None:
        if lr is None:
            raise RecordError("Recorder: lr: give the loop's step (lr=...) or its optimiser "
                              "(optimizer=opt)")
        return float(lr)
    ref = record.lr if record.lr is not None else record.group_lrs[0]
    if lr is not None and abs(lr - ref) > 1e-12 * ref:
        raise RecordError(f"Recorder: lr: {lr:g}, but the optimiser's step is {ref:g}; "
                          "give one of them")
    return float(ref)


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
