"""A run someone else made: a recorded training run as a `Trajectory`.

A researcher's own experiment (their loop, their data) is checked like gfverify's runs
once it is a Trajectory: `check`, the measures, `tighten` and the report read it
unchanged. The file is one ``.npz`` (numpy's archive; `write_run` writes it,
`numerics.recorder.Recorder` does from a PyTorch loop):

========  ==============  ============================================================
array     shape           what
========  ==============  ============================================================
X         (n, d)          the inputs, one row per sample (with hidden biases: their
                          constant coordinate last)
y         (n,)            the labels
times     (T,)            the saved times, increasing, >= 0: steps times the step for
                          gradient descent (t = k lr), the flow's time otherwise
W         (T, p, d)       the first layer at each saved time (rows w_j)
a         (T, p)          the output weights at each saved time
model     () string       JSON: ``format`` ("gfverify-run/1"), ``activation`` (a spelling
                          `numerics.activations.parse` reads: "relu", "leaky:0.1"),
                          ``train`` ("both", "first", "second"), ``parametrization``
                          ("standard", "mean_field"), ``loss`` ("square", "exponential",
                          "logistic"), ``loss_scale``, ``hidden_bias`` (the bias
                          coordinate's value, or null), ``method`` ({"name": "gd", "sgd"
                          or "flow", "lr": step or null, "batch_size": or null}),
                          ``dtype`` (what the run computed in: "float32" or "float64"),
                          ``init_scale`` (lam, or null), ``note`` (free text)
loss      (T,), optional  the loss the user's loop computed at each saved time; checked
                          against the Problem's loss (the declared convention)
========  ==============  ============================================================

Honest numbers for a run we did not make: a recorded run has no companion integration of
its own. Its states are what the run computed, so its companion (`_companion`) is the
record with every weight moved by one unit of the recording's rounding (float32 runs carry
float32's), plus, for gradient descent, the distance gfverify measures between its own
descent at the recorded step and at half of it from the recorded initial state (and, for
a recorded flow, the distance to gfverify's exact flow). A gradient-flow claim on a GD
record is then judged as on gfverify's own gradient descent at that step: it HOLDS or is
VIOLATED beyond the discretisation error a correct loop has there, and the verdict says it
is about the recorded run (``Trajectory.method`` "recorded_gradient_descent"). What the
user usually wants next is `compare_with_flow`: the distance of the record to the exact
flow and to gfverify's own descent at the same step, where a bug in the loop (a missing
factor, weight decay, a wrong sign) shows.

Bad input (a missing array, shapes that disagree, times not increasing, NaN or inf, a
loss that is not the declared convention's) is a `RecordError`: one line naming the file,
the array and what is allowed.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from numerics.activations import ActivationError
from numerics.activations import parse as parse_activation
from numerics.optimizers import Optimizer, OptimizerError
from numerics.problem import LOSSES, PARAMETRIZATIONS, TRAINED, Problem, ProblemError
from numerics.provenance import environment
from numerics.trajectory import Status, Trajectory

FORMAT = "gfverify-run/2"
FORMATS = ("gfverify-run/1", FORMAT)  # /1: no optimiser record
METHODS = ("gd", "sgd", "flow")
DTYPES = {"float32": float(np.finfo(np.float32).eps) / 2,
          "float64": float(np.finfo(np.float64).eps) / 2}  # unit roundoff
REQUIRED = ("X", "y", "times", "W", "a", "model")
# the user's loss and the Problem's at a saved time agree to this (relative), in the
# recording's precision (times a few hundred: a loss is a sum of n terms)
LOSS_RTOL = {"float32": 1e-4, "float64": 1e-10}


class RecordError(ProblemError):
    """A recorded run that cannot be read as one; the message names the file, the array
    or field, and what is allowed."""


@dataclass(frozen=True)
class RunModel:
    """The model and method a run was made with (the file's ``model`` record).

    Attributes
    ----------
    activation
        The activation's spelling (``"relu"``, ``"leaky:0.1"``).
    train
        Which layers trained: ``"both"``, ``"first"`` or ``"second"``.
    parametrization
        ``"standard"`` or ``"mean_field"``.
    loss
        ``"square"``, ``"exponential"`` or ``"logistic"``.
    loss_scale
        The loss's prefactor c (the Problem's conventions: square L = c/(2n) sum (y - h)^2).
    method
        ``"gd"``, ``"sgd"`` or ``"flow"``.
    lr
        The step (gradient descent, SGD), or None.
    batch_size
        The minibatch size (SGD), or None.
    dtype
        What the run computed in: ``"float32"`` or ``"float64"``.
    hidden_bias
        The constant of the bias coordinate (the last column of X), or None.
    init_scale
        The initialisation scale lam, or None.
    note
        Free text (where the run comes from).
    optimizer
        The loop's optimiser (`numerics.optimizers.Optimizer`), or None when the record
        does not say (a run declared gradient descent, measured as such).
    """

    activation: str = "relu"
    train: str = "both"
    parametrization: str = "standard"
    loss: str = "square"
    loss_scale: float = 1.0
    method: str = "gd"
    lr: float | None = None
    batch_size: int | None = None
    dtype: str = "float64"
    hidden_bias: float | None = None
    init_scale: float | None = None
    note: str = ""
    optimizer: Optimizer | None = None

    def to_json(self) -> str:
        """The file's ``model`` record (JSON text)."""
        return json.dumps({
            "format": FORMAT, "activation": self.activation, "train": self.train,
            "parametrization": self.parametrization, "loss": self.loss,
            "loss_scale": self.loss_scale,
            "method": {"name": self.method, "lr": self.lr, "batch_size": self.batch_size},
            "dtype": self.dtype, "hidden_bias": self.hidden_bias,
            "init_scale": self.init_scale, "note": self.note,
            "optimizer": None if self.optimizer is None else self.optimizer.to_dict()})

    @classmethod
    def from_json(cls, text: str, where: str) -> RunModel:
        """The model a file's ``model`` record describes, validated; a RecordError naming
        ``where`` (the file) and the field otherwise."""
        try:
            raw = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise RecordError(f"{where}: model: not a JSON record ({exc})") from None
        if not isinstance(raw, dict) or raw.get("format") not in FORMATS:
            raise RecordError(f"{where}: model: expected a record with format {FORMAT!r}, "
                              f"got {raw.get('format') if isinstance(raw, dict) else raw!r}")
        optimizer = raw.get("optimizer")
        if optimizer is not None:
            try:
                optimizer = Optimizer.from_dict(optimizer, where)
            except OptimizerError as exc:
                raise RecordError(str(exc)) from None
        method = raw.get("method") or {}
        if not isinstance(method, dict):
            raise RecordError(f"{where}: model.method: expected {{\"name\", \"lr\", "
                              f"\"batch_size\"}}, got {method!r}")
        model = cls(activation=raw.get("activation", "relu"), train=raw.get("train", "both"),
                    parametrization=raw.get("parametrization", "standard"),
                    loss=raw.get("loss", "square"), loss_scale=raw.get("loss_scale", 1.0),
                    method=method.get("name", "gd"), lr=method.get("lr"),
                    batch_size=method.get("batch_size"), dtype=raw.get("dtype", "float64"),
                    hidden_bias=raw.get("hidden_bias"), init_scale=raw.get("init_scale"),
                    note=str(raw.get("note", "")), optimizer=optimizer)
        model.validate(where)
        return model

    def validate(self, where: str) -> None:
        """A RecordError naming the first field outside what is allowed."""
        def bad(field, value, allowed):
            raise RecordError(f"{where}: model.{field}: {value!r} is not {allowed}")

        try:
            parse_activation(self.activation)
        except ActivationError:
            bad("activation", self.activation, "an activation ('relu', 'leaky:SLOPE')")
        checks = (("train", self.train, TRAINED), ("parametrization", self.parametrization,
                                                   PARAMETRIZATIONS),
                  ("loss", self.loss, LOSSES), ("method", self.method, METHODS),
                  ("dtype", self.dtype, tuple(DTYPES)))
        for field, value, allowed in checks:
            if value not in allowed:
                bad(field, value, f"one of {allowed}")
        if not _positive(self.loss_scale):
            bad("loss_scale", self.loss_scale, "a positive number")
        if self.method in ("gd", "sgd") and not _positive(self.lr):
            bad("method.lr", self.lr, f"a positive step (method {self.method!r})")
        if self.method == "sgd" and not (isinstance(self.batch_size, int)
                                         and self.batch_size >= 1):
            bad("method.batch_size", self.batch_size, "a positive integer (method 'sgd')")
        for field, value in (("hidden_bias", self.hidden_bias),
                             ("init_scale", self.init_scale)):
            if value is not None and not _positive(value):
                bad(field, value, "a positive number or null")
        if self.optimizer is not None and not isinstance(self.optimizer, Optimizer):
            bad("optimizer", self.optimizer, "a numerics.optimizers.Optimizer or null")

    def describe(self) -> str:
        """The run in words: ``gradient descent at lr=0.01 in float32`` (with the
        optimiser it was made with, when recorded and not plain gradient descent)."""
        what = {"gd": "gradient descent", "sgd": "minibatch SGD", "flow": "a flow"}[self.method]
        step = f" at lr={self.lr:g}" if self.lr is not None else ""
        batch = f", batches of {self.batch_size}" if self.batch_size else ""
        if self.optimizer is not None and not self.optimizer.is_gradient_descent:
            return f"{self.optimizer.describe()}{batch} in {self.dtype} (not gradient descent)"
        return f"{what}{step}{batch} in {self.dtype}"


def _positive(value) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and np.isfinite(value) and value > 0)


def write_run(path, X, y, times, W, a, model: RunModel, loss=None) -> Path:
    """Write a recorded run (the module docstring's format) to ``path`` (``.npz``),
    validated as `recorded` reads it; returns the path."""
    path = Path(path)
    arrays = {"X": np.asarray(X, dtype=float), "y": np.asarray(y, dtype=float),
              "times": np.asarray(times, dtype=float), "W": np.asarray(W, dtype=float),
              "a": np.asarray(a, dtype=float), "model": np.array(model.to_json())}
    if loss is not None:
        arrays["loss"] = np.asarray(loss, dtype=float)
    _plain_run(*_validated(arrays, str(path)), str(path))  # nothing is written for a run
    # that would not read back
    tmp = path.with_name(path.name + ".partial.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)
    return path


def recorded(source, reference: bool = True, **arrays) -> Trajectory:
    """The recorded run in ``source`` (a path to its ``.npz``) as a Trajectory; or, with
    ``source=None``, from the arrays and ``model`` (a `RunModel`) given as keywords.

    ``reference``: measure the method's distance from the flow with gfverify's own runs
    from the recorded initial state (the companion; `_companion` says how), so that a
    flow claim is judged on the record as on gfverify's own run of that method; False:
    the recording's rounding alone (a verdict about the recorded numbers as they are)."""
    if source is None:
        model = arrays.pop("model", None)
        if not isinstance(model, RunModel):
            raise RecordError("model: pass a numerics.recorded.RunModel")
        arrays["model"] = np.array(model.to_json())
        where = "the recorded run"
    else:
        where = str(source)
        arrays = _read(Path(source))
    return _trajectory(*_validated(arrays, where), where, reference)


def _read(path: Path) -> dict:
    if not path.exists():
        raise RecordError(f"{path}: no such file (a recorded run is one .npz file)")
    try:
        with np.load(path, allow_pickle=False) as f:
            return {name: f[name] for name in f.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise RecordError(f"{path}: not a recorded run (an .npz of the arrays X, y, times, "
                          f"W, a, model): {exc}") from None


def _validated(arrays: dict, where: str):
    missing = [name for name in REQUIRED if name not in arrays]
    if missing:
        raise RecordError(f"{where}: missing array {missing[0]!r} (a recorded run has "
                          f"{', '.join(REQUIRED)}; loss is optional)")
    model = RunModel.from_json(str(arrays["model"]), where)
    out = {}
    for name in ("X", "y", "times", "W", "a", *(("loss",) if "loss" in arrays else ())):
        try:
            arr = np.asarray(arrays[name], dtype=float)
        except (TypeError, ValueError):
            raise RecordError(f"{where}: {name}: not an array of numbers") from None
        if not np.all(np.isfinite(arr)):
            raise RecordError(f"{where}: {name}: contains NaN or infinity")
        out[name] = arr
    X, y, t, W, a = (out[k] for k in ("X", "y", "times", "W", "a"))
    shapes = {"X": (2, "(n, d)"), "y": (1, "(n,)"), "times": (1, "(T,)"), "W": (3, "(T, p, d)"),
              "a": (2, "(T, p)")}
    for name, (ndim, text) in shapes.items():
        if out[name].ndim != ndim:
            raise RecordError(f"{where}: {name}: expected shape {text}, got "
                              f"{out[name].shape}")
    n, d = X.shape
    T, p = len(t), W.shape[1]
    expected = {"y": (n,), "W": (T, p, d), "a": (T, p)}
    if "loss" in out:
        expected["loss"] = (T,)
    for name, shape in expected.items():
        if out[name].shape != shape:
            raise RecordError(f"{where}: {name}: expected shape {shape} (n = {n} samples, "
                              f"d = {d}, T = {T} saved times, p = {p} neurons), got "
                              f"{out[name].shape}")
    if T == 0 or t[0] < 0 or np.any(np.diff(t) <= 0):
        raise RecordError(f"{where}: times: must be >= 0 and strictly increasing "
                          "(one per saved state)")
    if model.hidden_bias is not None and not np.allclose(X[:, -1], model.hidden_bias):
        raise RecordError(f"{where}: X: its last column must be the bias coordinate "
                          f"{model.hidden_bias:g} (model.hidden_bias)")
    return out, model


def problem_of(arrays: dict, model: RunModel, where: str = "the recorded run") -> Problem:
    """The Problem the run starts from: its data, its first saved state, its model."""
    meta = {"generator": "recorded", "recorded": where, "method": model.method,
            "dtype": model.dtype}
    if model.hidden_bias is not None:
        meta["hidden_bias"] = float(model.hidden_bias)
    try:
        return Problem(X=arrays["X"], y=arrays["y"], W0=arrays["W"][0], a0=arrays["a"][0],
                       parametrization=model.parametrization, loss=model.loss,
                       loss_scale=float(model.loss_scale), init_scale=model.init_scale,
                       meta=meta, activation=model.activation, train=model.train)
    except ProblemError as exc:
        raise RecordError(f"{where}: {exc}") from None


# Trajectory.method of a recorded run, by the run's method
METHOD_NAMES = {"gd": "recorded_gradient_descent", "sgd": "recorded_minibatch_sgd",
                "flow": "recorded_flow"}


def _trajectory(arrays: dict, model: RunModel, where: str, reference: bool) -> Trajectory:
    run = _plain_run(arrays, model, where)
    descent = _descent(run, model, reference)
    companion, how = _companion(run.problem, run.t, run.W, run.a, model, run.options,
                                reference, descent)
    departure = model.optimizer.departure() if model.optimizer is not None else ""
    measured: dict = {}
    if descent is not None:
        measured_text, measured = measured_departure(run, descent, model)
        departure = departure or measured_text
    run = replace(run, companion=companion, departure=departure,
                  options=dict(run.options, error_from=how, **measured))
    factor = RICHARDSON if how == "gd_step_halving" else 1.0
    return replace(run, error_estimate=factor * float(np.max(run.state_error)))


def _plain_run(arrays: dict, model: RunModel, where: str) -> Trajectory:
    """The record as a Trajectory without a companion, its loss checked."""
    problem = problem_of(arrays, model, where)
    W, a, t = arrays["W"], arrays["a"], arrays["times"]
    options = {"method": model.method, "lr": model.lr, "batch_size": model.batch_size,
               "dtype": model.dtype, "source": where}
    run = Trajectory(problem=problem, t=t, W=W, a=a, method=METHOD_NAMES[model.method],
                     options=options, status=Status.SUCCESS,
                     n_steps=int(round(t[-1] / model.lr)) if model.lr else 0,
                     provenance=dict(environment(), recorded=where, run=model.describe()))
    if "loss" in arrays:  # before any work: a record in another convention is refused
        check_loss(run, arrays["loss"], model, where)
    return run


# gradient descent's error against the flow from one halving of its step (first order):
# the difference of the two runs times 1 / (1 - 1/2), as numerics.descent's estimate
RICHARDSON = 2.0


# A correct loop's distance from gfverify's descent at its step is its rounding, amplified
# along the run as the descent amplifies any perturbation: measured as the largest distance
# between gfverify's descent in float32 and in float64 (scaled to the recording's precision),
# times this safety factor, plus a floor of this many units of the recording's rounding.
SPREAD_SAFETY = 10.0
SPREAD_FLOOR_ULPS = 64.0


def _descent(run: Trajectory, model: RunModel, reference: bool):
    """gfverify's own descent at the record's step from its first state, at its saved times
    (``(float64 run with its half-step companion when reference, float32 run)``), or None
    for a record that is not declared gradient descent in whole steps."""
    if model.method != "gd" or not _whole_steps(run.t, model.lr):
        return None
    from numerics.descent import GradientDescent

    gd = GradientDescent(lr=model.lr, error_check=2 if reference else None).run(
        run.problem, run.t)
    gd32 = GradientDescent(lr=model.lr, dtype="float32", error_check=None).run(
        run.problem, run.t)
    return gd, gd32


def measured_departure(run: Trajectory, descent, model: RunModel) -> tuple[str, dict]:
    """Whether a record declared gradient descent is gradient descent at its step: its
    distance to gfverify's descent from the same start (the largest relative per-neuron
    distance, `compare_with_flow`'s) against what rounding explains (`SPREAD_SAFETY` x the
    largest float32-float64 spread of gfverify's own descent over the run, scaled to the
    recording's precision, plus `SPREAD_FLOOR_ULPS` units). ``(text, numbers)``: the text
    is "" when the record stays within it, else from which saved time and by how much it
    leaves it."""
    gd, gd32 = descent
    u = DTYPES[model.dtype]
    distance = _distance(run, gd)
    # the spread over the whole run: rounding can set off an amplification (a neuron at a
    # kink) at another saved time in the loop than in gfverify's float32 run
    spread = float(np.max(_distance(gd32, gd))) * (u / DTYPES["float32"])
    allowed = np.full(len(run.t), SPREAD_SAFETY * spread + SPREAD_FLOOR_ULPS * u)
    numbers = {"distance_to_descent": float(np.max(distance)),
               "descent_spread": float(np.max(allowed))}
    over = np.flatnonzero(~(distance <= allowed))
    if not over.size:
        return "", numbers
    k = int(over[0])
    numbers["departs_at"] = float(run.t[k])
    return (f"from t = {run.t[k]:.4g} its distance to gfverify's descent at lr={model.lr:g} "
            f"from the same start is {distance[k]:.2g} (largest {np.max(distance):.2g}), "
            f"above the {allowed[k]:.2g} that {model.dtype} rounding explains (weight decay, "
            "momentum, another optimiser or loss, or weights saved after the update)"), numbers


def _companion(problem, t, W, a, model, options, reference,
               descent=None) -> tuple[Trajectory, str]:
    """The run a recorded run's errors are measured against, and how it was made.

    Every companion moves each recorded weight by one unit of the recording's rounding
    (alternating signs over the entries), so that a check counts, through its usual
    formulas, what rounding the recorded numbers did to the quantity it measures. With
    ``reference`` it also carries the method's own distance from the flow, as gfverify
    measures it from the recorded initial state:

    - gradient descent: the difference between gfverify's gradient descent at the
      recorded step and at half of it (the estimate `numerics.GradientDescent` gives its
      own runs; ``descent``, `_descent`), added to the record: a flow claim on a GD record
      is then judged, as on gfverify's own GD, beyond the discretisation error a correct
      loop has at that step;
    - a flow: gfverify's exact flow at the recorded times (the record's own error is
      measured, not estimated);
    - minibatch SGD: the rounding alone (the verdict is about that SGD run, as
      gfverify's own SGD runs are).
    """
    u = DTYPES[model.dtype]
    signs_W = np.where(np.indices(W.shape[1:]).sum(axis=0) % 2 == 0, 1.0, -1.0)
    signs_a = np.where(np.arange(W.shape[1]) % 2 == 0, -1.0, 1.0)
    shift_W, shift_a = u * W * signs_W, u * a * signs_a
    how = f"{model.dtype}_rounding"
    if reference and descent is not None and descent[0].companion is not None:
        gd = descent[0]
        shift_W = shift_W + (gd.companion.W - gd.W)
        shift_a = shift_a + (gd.companion.a - gd.a)
        how = "gd_step_halving"
    elif reference and model.method == "flow":
        from numerics.flow import ExactFlow

        flow = ExactFlow(rtol=1e-11, error_check=None).run(problem, t)
        if flow.status.ok and len(flow.t) == len(t):
            shift_W, shift_a = flow.W - W, flow.a - a
            how = "exact_flow"
    comp = Trajectory(problem=problem, t=t, W=W + shift_W, a=a + shift_a,
                      method=METHOD_NAMES[model.method],
                      options=dict(options, companion_of="the record", made_by=how),
                      status=Status.SUCCESS)
    return comp, how


def _whole_steps(t: np.ndarray, lr: float | None) -> bool:
    if not lr:
        return False
    steps = np.rint(t / lr)
    return bool(np.allclose(steps * lr, t, rtol=1e-9, atol=1e-12 * lr))


def check_loss(tr: Trajectory, loss: np.ndarray, model: RunModel, where: str) -> str:
    """The user's loss against the Problem's at every saved time: a RecordError naming the
    convention it looks like when they differ; a line naming the convention when they
    agree."""
    ours = tr.loss
    allowed = LOSS_RTOL[model.dtype] * np.abs(ours)
    if tr.problem.loss == "square":
        # near an interpolating state the loop's residuals y - h are differences of close
        # numbers: each is known to ~u |y|, so L = c/(2n) sum r^2 to ~ u sqrt(2 c L) rms(y)
        rms_y = float(np.sqrt(np.mean(tr.problem.y ** 2)))
        allowed = allowed + 64 * DTYPES[model.dtype] * np.sqrt(
            2 * tr.problem.loss_scale * np.abs(ours)) * rms_y
    bad = np.abs(loss - ours) > allowed
    if not np.any(bad):
        return convention_text(tr.problem)
    k = int(np.argmax(bad))
    raise RecordError(f"{where}: loss: at t = {tr.t[k]:g} the run's loss is {loss[k]:.6g} "
                      f"where the declared convention gives {ours[k]:.6g}: "
                      f"{mismatch_text(loss[k], tr, k)}")


def convention_text(problem: Problem) -> str:
    """The loss convention of ``problem`` in words."""
    c, n = problem.loss_scale, problem.n
    scale = "" if c == 1.0 else f"{c:g} x "
    if problem.loss == "square":
        return f"{scale}1/(2n) sum_i (y_i - h(x_i))^2 with n = {n} (the mean square loss / 2)"
    if problem.loss == "exponential":
        return f"{scale}sum_i exp(-y_i h(x_i))"
    return f"{scale}sum_i log(1 + exp(-y_i h(x_i)))"


def mismatch_text(theirs: float, tr: Trajectory, k: int) -> str:
    """What a loss ``theirs`` at saved time ``k`` of ``tr`` that is not the Problem's looks
    like: the network's output scale (standard, divided by p, divided by sqrt(p)) and the
    loss's factor (the 1/2, a mean or a sum) of a known convention that gives it, and what
    to record; or the ratio."""
    problem = tr.problem
    n, p, c = problem.n, problem.p, problem.loss_scale
    h = tr.outputs[k] / problem.output_factor  # the standard network's outputs
    scales = [("standard", 1.0, "outputs not divided by p (a standard network): record "
               "with parametrization='standard'"),
              ("mean_field", 1.0 / p, "outputs divided by p (a mean-field network): record "
               "with parametrization='mean_field'"),
              ("ntk", 1.0 / np.sqrt(p), "outputs divided by sqrt(p) (the NTK scaling), which "
               "gfverify's networks do not have (write 1/sqrt(p) into the output weights)")]
    factors = ([(1.0, ""), (2.0, "the mean of (y - h)^2 without the 1/2 (torch's MSELoss)"),
                (float(n), "a sum over the samples, not a mean"),
                (2.0 * n, "a sum of (y - h)^2 without the 1/2")] if problem.loss == "square"
               else [(1.0, ""), (1.0 / n, "a mean over the samples, not the sum the Problem's "
                                           "loss is")])
    for name, scale, scale_words in scales:
        base = _unit_loss(problem.loss, problem.y, scale * h)
        for factor, words in factors:
            value = factor * base
            if value == 0 or abs(theirs / value - 1.0) > 1e-3:
                continue
            if name == problem.parametrization and abs(factor / c - 1.0) < 1e-12:
                continue  # the declared convention itself (it did not match)
            said = []
            if name != problem.parametrization:
                said.append(scale_words)
            if abs(factor / c - 1.0) > 1e-12:
                said.append(f"{words or 'the 1/(2n) mean square loss'}: record with "
                            f"loss_scale = {factor:g}")
            return "it matches " + "; and ".join(said)
    ratio = theirs / tr.loss[k] if tr.loss[k] != 0 else float("inf")
    return (f"{ratio:.6g} times the declared convention's ({convention_text(problem)}), "
            "which no known convention explains; check the loss, the outputs' scale and the "
            "data")


def _unit_loss(loss: str, y: np.ndarray, h: np.ndarray) -> float:
    """The loss with loss_scale 1 at outputs h."""
    if loss == "square":
        return float(np.sum((y - h) ** 2) / (2 * len(y)))
    if loss == "exponential":
        return float(np.sum(np.exp(-y * h)))
    return float(np.sum(np.logaddexp(0.0, -y * h)))


def compare_with_flow(tr: Trajectory, rtol: float = 1e-10) -> dict:
    """How far a recorded run is from the exact gradient flow and from gfverify's own
    gradient descent at the recorded step, from the recorded initial state, at the
    recorded times: ``{"flow": (T,), "gd": (T,) or None}`` of the largest relative
    per-neuron distance ``max_j |theta_j - theta'_j| / |theta'_j|`` (theta_j = (w_j, a_j)),
    with the reference runs under ``"flow_run"`` and ``"gd_run"``."""
    from numerics import ExactFlow, GradientDescent, simulate

    problem, t = tr.problem, tr.t
    flow = simulate(problem, ExactFlow(rtol=rtol, error_check=None), t)
    out = {"flow": _distance(tr, flow), "flow_run": flow, "gd": None, "gd_run": None}
    lr = tr.options.get("lr")
    if lr:
        steps = np.rint(t / lr)
        if np.allclose(steps * lr, t, rtol=1e-9, atol=0.0):
            gd = simulate(problem, GradientDescent(lr=lr, error_check=None), steps * lr)
            out["gd"], out["gd_run"] = _distance(tr, gd), gd
    return out


def _distance(run: Trajectory, ref: Trajectory) -> np.ndarray:
    k = min(len(run.t), len(ref.t))
    th1 = np.concatenate([run.W[:k], run.a[:k, :, None]], axis=-1)
    th2 = np.concatenate([ref.W[:k], ref.a[:k, :, None]], axis=-1)
    scale = np.linalg.norm(th2, axis=-1)
    diff = np.linalg.norm(th1 - th2, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(scale > 0, diff / scale, np.where(diff > 0, np.inf, 0.0))
    return np.max(rel, axis=-1)
