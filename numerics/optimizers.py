"""What updated a recorded run's weights: the optimiser, as the record declares it.

A claim about the gradient flow is judged on a recorded loop as on gfverify's own
gradient descent at the loop's step (`numerics.recorded`). That reading is right only for
a loop whose update is theta <- theta - lr grad L: torch's ``SGD`` with no momentum, no
weight decay and one step for every layer, or a hand-written step. Anything else (Adam,
momentum, weight decay, layer-wise steps, a step that changed during the run) follows
other dynamics, and the flow's claims do not apply to it. `Optimizer` is the record of
it: what `numerics.recorder.Recorder` reads off the torch optimiser it is given, stored
in the run file's ``model.optimizer`` (`Optimizer.to_dict`), and `Optimizer.departure`
says, in words, why a run is not gradient descent ("" when it is).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# torch.optim's optimisers (torch 2.x); a loop's own optimiser class is "custom:NAME"
KNOWN = ("SGD", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta", "Adafactor", "ASGD",
         "LBFGS", "Muon", "NAdam", "RAdam", "RMSprop", "Rprop", "SparseAdam")
# param-group entries that choose an implementation, not the update
_IMPLEMENTATION = ("params", "foreach", "capturable", "differentiable", "fused")
# hyperparameters whose nonzero (True) value makes SGD something other than gradient descent
_NOT_PLAIN = {"momentum": "momentum {}", "weight_decay": "weight decay {}",
              "nesterov": "Nesterov momentum", "maximize": "maximize=True (ascent)"}


class OptimizerError(ValueError):
    """An optimiser record outside what is allowed; the message names the field."""


@dataclass(frozen=True)
class Optimizer:
    """A recorded run's optimiser.

    Attributes
    ----------
    name
        torch's class name (one of `KNOWN`), ``"custom:CLASS"`` for a loop's own optimiser
        class, or ``"gd"`` for a hand-written step theta <- theta - lr grad L.
    lr
        The step of every parameter group, or None when the groups' steps differ (then
        ``group_lrs`` holds them).
    settings
        The hyperparameters that shape the update (momentum, weight_decay, betas, ...), as
        the first parameter group holds them (implementation switches such as ``foreach``
        left out).
    group_lrs
        The step of each parameter group, in order.
    lr_changes
        ``(step, lr)`` for each saved step at which the step was found changed (a learning
        rate schedule), in order.
    """

    name: str
    lr: float | None = None
    settings: dict = field(default_factory=dict)
    group_lrs: tuple[float, ...] = ()
    lr_changes: tuple[tuple[int, float], ...] = ()

    def __post_init__(self) -> None:
        _validate(self)

    @classmethod
    def from_torch(cls, opt) -> Optimizer:
        """The record of a ``torch.optim.Optimizer`` (its class and first parameter group's
        hyperparameters, every group's step)."""
        kind = type(opt).__name__
        name = kind if kind in KNOWN and type(opt).__module__.startswith("torch.optim") \
            else f"custom:{kind}"
        groups = getattr(opt, "param_groups", None)
        if not groups:
            raise OptimizerError(f"optimizer: a {kind} with no parameter groups (expected a "
                                 "torch.optim.Optimizer)")
        lrs = tuple(_plain(g.get("lr")) for g in groups)
        settings = {k: _plain(v) for k, v in groups[0].items()
                    if k not in _IMPLEMENTATION and k != "lr"}
        same = all(lr == lrs[0] for lr in lrs)
        return cls(name=name, lr=lrs[0] if same else None, settings=settings,
                   group_lrs=lrs)

    def with_lr_change(self, step: int, lr: float) -> Optimizer:
        """The record with a change of step found at ``step``."""
        return Optimizer(self.name, self.lr, dict(self.settings), self.group_lrs,
                         (*self.lr_changes, (int(step), float(lr))))

    @property
    def is_gradient_descent(self) -> bool:
        """Whether the update is theta <- theta - lr grad L with one constant step."""
        return self.departure() == ""

    def departure(self) -> str:
        """Why a loop with this optimiser is not gradient descent at one constant step, in
        words; "" when it is."""
        if self.lr_changes:
            step, lr = self.lr_changes[0]
            return (f"its step changed during the run (lr = {lr:g} at step {step}; a "
                    "learning-rate schedule): the saved times t = k lr do not hold")
        if self.lr is None:
            steps = ", ".join(f"{lr:g}" for lr in self.group_lrs)
            return f"its parameter groups have different steps ({steps})"
        if self.name == "gd":
            return ""
        if self.name != "SGD":
            shown = ", ".join(f"{k} {_text(v)}" for k, v in self.settings.items()
                              if k in ("betas", "momentum", "weight_decay", "alpha", "eps")
                              and v not in (None, 0, False))
            return (f"the optimiser is {self.name.removeprefix('custom:')}"
                    + (f" ({shown})" if shown else ""))
        extras = [_NOT_PLAIN[k].format(_text(v)) for k, v in self.settings.items()
                  if k in _NOT_PLAIN and v not in (None, 0, 0.0, False)]
        if extras:
            return "the optimiser is SGD with " + " and ".join(extras)
        return ""

    def describe(self) -> str:
        """The optimiser in words (``torch.optim.Adam(lr=0.001, betas=(0.9, 0.999))``)."""
        if self.name == "gd":
            return "a hand-written gradient step"
        shown = [f"lr={self.lr:g}"] if self.lr is not None else [
            "lr=" + "/".join(f"{lr:g}" for lr in self.group_lrs)]
        shown += [f"{k}={_text(v)}" for k, v in self.settings.items()
                  if v not in (None, False) and not (k == "dampening" and v == 0)]
        label = self.name.removeprefix("custom:")
        return f"{label}({', '.join(shown)})"

    def to_dict(self) -> dict:
        """The JSON record (the run file's ``model.optimizer``)."""
        return {"name": self.name, "lr": self.lr, "settings": self.settings,
                "group_lrs": list(self.group_lrs),
                "lr_changes": [list(c) for c in self.lr_changes]}

    @classmethod
    def from_dict(cls, raw, where: str) -> Optimizer:
        """The optimiser a file's ``model.optimizer`` record describes; an OptimizerError
        naming ``where`` and the field otherwise."""
        if not isinstance(raw, dict):
            raise OptimizerError(f"{where}: model.optimizer: expected a record with name, "
                                 f"lr and settings, got {raw!r}")
        try:
            changes = tuple((int(s), float(lr)) for s, lr in raw.get("lr_changes") or ())
            groups = tuple(float(lr) for lr in raw.get("group_lrs") or ())
        except (TypeError, ValueError):
            raise OptimizerError(f"{where}: model.optimizer.lr_changes / group_lrs: expected "
                                 "lists of numbers") from None
        try:
            return cls(name=raw.get("name"), lr=raw.get("lr"),
                       settings=raw.get("settings") or {}, group_lrs=groups,
                       lr_changes=changes)
        except OptimizerError as exc:
            raise OptimizerError(f"{where}: {exc}") from None


def _validate(opt: Optimizer) -> None:
    name = opt.name
    if not isinstance(name, str) or not (
            name in KNOWN or name == "gd"
            or (name.startswith("custom:") and len(name) > len("custom:"))):
        raise OptimizerError(f"model.optimizer.name: {name!r} is not one of "
                             f"{', '.join(KNOWN)}, 'gd' (a hand-written step) or "
                             "'custom:CLASS'")
    if opt.lr is not None and not _positive(opt.lr):
        raise OptimizerError(f"model.optimizer.lr: {opt.lr!r} is not a positive step or null")
    if not isinstance(opt.settings, dict) or not all(
            isinstance(k, str) and _setting_value(v) for k, v in opt.settings.items()):
        raise OptimizerError(f"model.optimizer.settings: {opt.settings!r} is not a record of "
                             "numbers, booleans, lists of numbers or nulls")
    # momentum in [0, 1), dampening in [0, 1], weight decay >= 0
    ranges = {"momentum": (0.0, 1.0, False), "dampening": (0.0, 1.0, True),
              "weight_decay": (0.0, math.inf, False)}
    for key, (lo, hi, closed) in ranges.items():
        value = opt.settings.get(key)
        if value is None:
            continue
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (number and lo <= value and (value <= hi if closed else value < hi)):
            raise OptimizerError(f"model.optimizer.settings.{key}: {value!r} is not in "
                                 f"[{lo:g}, {hi:g}{']' if closed else ')'}")
    if any(not _positive(lr) for lr in opt.group_lrs):
        raise OptimizerError(f"model.optimizer.group_lrs: {list(opt.group_lrs)!r} are not all "
                             "positive steps")
    if any(s < 0 or not _positive(lr) for s, lr in opt.lr_changes):
        raise OptimizerError(f"model.optimizer.lr_changes: {list(opt.lr_changes)!r} are not "
                             "(step >= 0, positive lr) pairs")


def _positive(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


def _setting_value(value) -> bool:
    if value is None or isinstance(value, (bool, str)):
        return True
    if isinstance(value, (int, float)):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(v is None or (isinstance(v, (int, float)) and math.isfinite(v))
                   for v in value)
    return False


def _plain(value):
    """A JSON-ready copy of a param-group value (tensors and tuples to numbers and lists)."""
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def _text(value) -> str:
    if isinstance(value, list):
        return "(" + ", ".join(_text(v) for v in value) + ")"
    return f"{value:g}" if isinstance(value, float) else str(value)
