"""`Problem`: one training problem (data, network convention, initial weights).

A Problem is frozen and hashable by content: two Problems with the same arrays
and settings have the same `content_hash`, which keys caches and results.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from numerics import identity
from numerics.activations import ACTIVATION_TYPES, ActivationError, ReLU
from numerics.activations import parse as parse_activation

PARAMETRIZATIONS = ("standard", "mean_field")
LOSSES = ("square", "exponential", "logistic", "cross_entropy")
# losses of a vector output (K >= 2 logits, a0 of shape (p, K)); the others are scalar
VECTOR_LOSSES = ("cross_entropy",)
# which layers the flow moves: both (default), the first only (a fixed), the second only
# (W fixed)
TRAINED = ("both", "first", "second")


class ProblemError(ValueError):
    """Bad input for a Problem; the message names the field and the fix."""


def _frozen_array(name: str, value: Any, ndim: int) -> np.ndarray:
    if np.iscomplexobj(value):
        raise ProblemError(f"{name}: complex values are not allowed; pass real numbers.")
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ProblemError(f"{name}: cannot be read as a float array ({exc}).") from exc
    if arr.ndim != ndim:
        raise ProblemError(f"{name}: expected a {ndim}-d array, got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ProblemError(f"{name}: contains NaN or infinity; pass finite values.")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Problem:
    """A shallow ReLU network training problem.

    Network: h(x) = s * sum_j a_j relu(<w_j, x>), with s = 1 (``standard``) or
    s = 1/p (``mean_field``). Flow: d(theta)/dt = -kappa grad L with kappa = 1
    (standard) or kappa = p (mean_field). Losses:

    - ``square``: L = loss_scale/(2n) sum_i (y_i - h(x_i))^2 (mean, as S000/S002);
    - ``exponential``: L = loss_scale * sum_i exp(-y_i h(x_i)) (sum, as S001);
    - ``logistic``: L = loss_scale * sum_i log(1 + exp(-y_i h(x_i))) (sum; S001's
      appendix uses loss_scale = 2);
    - ``cross_entropy``: a vector output h(x) = s sum_j a_j sigma(<w_j, x>) in R^K, each
      a_j in R^K (a0 of shape (p, K), K >= 2), labels y_i in {0, ..., K-1} and
      L = loss_scale * sum_i (log sum_k exp(h_k(x_i)) - h_{y_i}(x_i)) (sum, softmax
      cross-entropy, as Min, Zhu and Vidal 2025).

    relu'(0) = 0 throughout: sample i activates neuron j iff <w_j, x_i> > 0.

    ``activation`` (`numerics.activations`: ReLU() by default, LeakyReLU(slope),
    ReLUPower(beta); a spelling such as ``"leaky:0.1"`` is parsed) replaces relu in h;
    ``train`` says which layers move (``both``, ``first``: a fixed, ``second``: W fixed).
    Hidden biases are a constant input coordinate (`numerics.model.with_hidden_bias`).

    ``init_scale`` (lambda) records the initialisation scale when the
    initialisation has one (claims of small-initialisation papers need it);
    ``meta`` records how the Problem was produced (generator, parameters, seed).

    Attributes
    ----------
    X
        The inputs, one row x_i per sample: shape (n, d), float64, read-only.
    y
        The labels, shape (n,); in {-1, +1} for the exponential and logistic losses, class
        indices 0 .. K-1 for the cross-entropy.
    W0
        The initial first layer, one row w_j per neuron: shape (p, d).
    a0
        The initial output weights, shape (p,), or (p, K) for a vector output (the
        cross-entropy).
    parametrization
        ``"standard"`` (s = 1, kappa = 1, the default) or ``"mean_field"`` (s = 1/p,
        kappa = p).
    loss
        ``"square"`` (default), ``"exponential"`` or ``"logistic"``.
    loss_scale
        The loss's positive prefactor c (default 1.0; see the losses above).
    init_scale
        The initialisation scale lambda, or None when the initialisation has none; recorded
        for the claims (``lam``), never used by the dynamics.
    meta
        How the Problem was made (``generator``, its parameters, ``seed``, ``family``,
        ``hidden_bias``, ...); not part of `content_hash` or equality.
    activation
        The hidden activation (`numerics.activations`; default ``ReLU()``); a spelling such
        as ``"leaky:0.1"`` is parsed on construction.
    train
        Which layers the flow moves: ``"both"`` (default), ``"first"`` (a fixed) or
        ``"second"`` (W fixed).
    """

    X: np.ndarray
    y: np.ndarray
    W0: np.ndarray
    a0: np.ndarray
    parametrization: str = "standard"
    loss: str = "square"
    loss_scale: float = 1.0
    init_scale: float | None = None
    meta: dict = field(default_factory=dict)
    activation: object = field(default_factory=ReLU)
    train: str = "both"

    def __post_init__(self) -> None:
        X = _frozen_array("X", self.X, 2)
        y = _frozen_array("y", self.y, 1)
        W0 = _frozen_array("W0", self.W0, 2)
        vector = self.loss in VECTOR_LOSSES
        if vector and np.ndim(self.a0) != 2:
            raise ProblemError(
                f"a0: the {self.loss} loss has a vector output: expected shape (p, K), one "
                f"row of K output weights per neuron, got shape {np.shape(self.a0)}.")
        if not vector and np.ndim(self.a0) == 2:
            raise ProblemError(
                f"a0: expected shape (p,) for the {self.loss} loss's scalar output, got the "
                f"vector output's {np.shape(self.a0)} (a vector output takes "
                f"loss='cross_entropy').")
        a0 = _frozen_array("a0", self.a0, 2 if vector else 1)
        n, d = X.shape
        if n == 0 or d == 0:
            raise ProblemError(f"X: needs at least one sample and one feature, got {X.shape}.")
        if y.shape != (n,):
            raise ProblemError(f"y: expected shape ({n},) to match X's {n} rows, got {y.shape}.")
        if W0.shape[0] == 0:
            raise ProblemError("W0: needs at least one neuron (one row), got 0.")
        if W0.shape[1] != d:
            raise ProblemError(
                f"W0: expected shape (p, {d}) (one row per neuron, {d} features as X), "
                f"got {W0.shape}."
            )
        if vector and (a0.shape[0] != W0.shape[0] or a0.shape[1] < 2):
            raise ProblemError(
                f"a0: the {self.loss} loss has a vector output: expected shape "
                f"({W0.shape[0]}, K) with K >= 2 classes, one row per row of W0, got "
                f"{a0.shape}."
            )
        if not vector and a0.shape != (W0.shape[0],):
            raise ProblemError(
                f"a0: expected shape ({W0.shape[0]},), one output weight per row of W0, "
                f"got {a0.shape}."
            )
        if self.parametrization not in PARAMETRIZATIONS:
            raise ProblemError(
                f"parametrization: {self.parametrization!r} is not one of {PARAMETRIZATIONS}."
            )
        if self.loss not in LOSSES:
            raise ProblemError(f"loss: {self.loss!r} is not one of {LOSSES}.")
        if not (np.isfinite(self.loss_scale) and self.loss_scale > 0):
            raise ProblemError(f"loss_scale: must be a positive number, got {self.loss_scale!r}.")
        if self.init_scale is not None and not (
            np.isfinite(self.init_scale) and self.init_scale > 0
        ):
            raise ProblemError(f"init_scale: must be positive or None, got {self.init_scale!r}.")
        if not isinstance(self.activation, ACTIVATION_TYPES):
            try:
                object.__setattr__(self, "activation", parse_activation(self.activation))
            except ActivationError as exc:
                raise ProblemError(str(exc)) from None
        if self.train not in TRAINED:
            raise ProblemError(f"train: {self.train!r} is not one of {TRAINED}.")
        if vector:
            K = a0.shape[1]
            if not np.all(np.isin(y, np.arange(K, dtype=float))):
                raise ProblemError(f"y: the {self.loss} loss needs class labels in "
                                   f"0 .. {K - 1} (K = {K}, the columns of a0).")
        elif self.loss != "square" and not np.all(np.isin(y, (-1.0, 1.0))):
            raise ProblemError(f"y: the {self.loss} loss needs labels in {{-1, +1}}.")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "W0", W0)
        object.__setattr__(self, "a0", a0)
        object.__setattr__(self, "loss_scale", float(self.loss_scale))
        object.__setattr__(self, "meta", dict(self.meta))

    # -- sizes and conventions -------------------------------------------------
    @property
    def n(self) -> int:
        """The number of samples (rows of X)."""
        return self.X.shape[0]

    @property
    def d(self) -> int:
        """The input dimension (columns of X)."""
        return self.X.shape[1]

    @property
    def p(self) -> int:
        """The width, the number of hidden neurons (rows of W0)."""
        return self.W0.shape[0]

    @property
    def n_outputs(self) -> int:
        """The output's dimension K (1 for a scalar output, the columns of a0 for a vector
        one: the cross-entropy)."""
        return 1 if self.a0.ndim == 1 else self.a0.shape[1]

    @property
    def vector_output(self) -> bool:
        """Whether the output is a vector (a0 of shape (p, K), the cross-entropy)."""
        return self.a0.ndim == 2

    def one_hot(self) -> np.ndarray:
        """The labels as one-hot rows (n, K) (vector output only)."""
        if not self.vector_output:
            raise ProblemError("one_hot: the Problem has a scalar output.")
        return np.eye(self.n_outputs)[self.y.astype(int)]

    @property
    def output_factor(self) -> float:
        """s in h = s * sum_j a_j relu(<w_j, x>)."""
        return 1.0 / self.p if self.parametrization == "mean_field" else 1.0

    @property
    def flow_factor(self) -> float:
        """kappa in d(theta)/dt = -kappa grad L."""
        return float(self.p) if self.parametrization == "mean_field" else 1.0

    @property
    def trains_first_layer(self) -> bool:
        """Whether W moves (``train`` is ``"both"`` or ``"first"``)."""
        return self.train in ("both", "first")

    @property
    def trains_second_layer(self) -> bool:
        """Whether a moves (``train`` is ``"both"`` or ``"second"``)."""
        return self.train in ("both", "second")

    @property
    def model_spec(self) -> str:
        """The model where it is not the default, e.g. ``"leaky:0.1, first layer"``; ""
        for a ReLU network with both layers trained."""
        return identity.model_spec(self.activation.spec, self.train)

    @property
    def unit_roundoff(self) -> float:
        """The unit roundoff of the numbers the instance was given in, float64's (2^-53)
        or, for a run recorded in float32 (``meta["dtype"]``), float32's (2^-24). An
        assumption stated as an equality holds on the instance to this precision."""
        return 2.0**-24 if self.meta.get("dtype") == "float32" else 2.0**-53

    # -- identity ----------------------------------------------------------------
    @property
    def content_hash(self) -> str:
        """SHA-256 (hex, 16 chars) of the arrays and settings; meta is not hashed
        (`numerics.identity.content_hash`)."""
        return identity.content_hash(self.X, self.y, self.W0, self.a0, self.parametrization,
                                     self.loss, self.loss_scale, self.init_scale,
                                     self.model_spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Problem) and self.content_hash == other.content_hash

    def __hash__(self) -> int:
        return hash(self.content_hash)

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis/IPython: the short repr
        printer.text(repr(self))

    def __repr__(self) -> str:
        # short on purpose: hypothesis, pytest and logs print reprs of failing examples
        return f"Problem({self.describe()})"

    def describe(self) -> str:
        """One line: sizes, conventions, scale, hash, and the recorded generator."""
        lam = "" if self.init_scale is None else f", lam={self.init_scale:.3g}"
        gen = self.meta.get("generator")
        src = f", from {gen}" if gen else ""
        seed = f" seed={self.meta['seed']}" if "seed" in self.meta else ""
        parts = [self.model_spec] if self.model_spec else []
        if "hidden_bias" in self.meta:  # numerics.model.with_hidden_bias: the last input
            parts.append(f"hidden bias, x_d = {self.meta['hidden_bias']:g}")
        model = f" ({', '.join(parts)})" if parts else ""
        return (
            f"n={self.n} d={self.d} p={self.p} {self.parametrization}/{self.loss}{lam}{model}"
            f" [{self.content_hash}]{src}{seed}"
        )

    def with_initialisation(self, W0: np.ndarray, a0: np.ndarray, **changes: Any) -> Problem:
        """A copy with other initial weights (and optionally other settings)."""
        return replace(self, W0=W0, a0=a0, **changes)
