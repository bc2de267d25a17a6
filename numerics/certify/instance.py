"""The instance a certificate is about, exactly: data, initial state and model.

Every number of an instance is a float64 value, that is an exact binary fraction; the
arrays are stored as such, and the scalars of the model (loss scale, leak slope,
initialisation scale) as their exact decimal expansions. `Instance` refuses anything
outside what the certificate covers, naming the field: a train other than ``both``,
``first`` or ``second``, a loss scale that is not positive, a slope outside [0, 1), a
non-finite or huge entry, arrays of the wrong shape. Its `hash` is the problem's content
hash (`numerics.identity`), the one verdicts and reports print.

Shared by the certificate's writer (`numerics.certify.tube`) and its checker.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from numerics import identity
from numerics.certify.field import Shape

PARAMETRIZATIONS = ("standard", "mean_field")
TRAINED = ("both", "first", "second")
ACTIVATIONS = ("relu", "leaky")
# entries of the data and the initial state are at most this large (the ball arithmetic's
# products of three of them, times sums over the sizes, stay far inside float64)
MAX_ENTRY = 2.0**64
# the sizes the checker accepts (memory: a tube holds (order + 1) x p (d + 1) per step)
MAX_SAMPLES = 10_000
MAX_WEIGHTS = 1_000_000


class InstanceError(ValueError):
    """The instance is not one a certificate covers; ``field`` names what is wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field


def exact_decimal(x: float) -> str:
    """The exact decimal expansion of a float64 (``0.1`` reads
    ``0.1000000000000000055511151231257827021181583404541015625``)."""
    return format(Decimal(float(x)), "f") if float(x) == float(x) else str(x)


def read_float(field: str, text, positive: bool = False, below_one: bool = False) -> float:
    """A scalar of the file: an exact decimal (a string) that is a float64 value, finite,
    within the range asked for; `InstanceError` naming ``field`` otherwise."""
    if not isinstance(text, str):
        raise InstanceError(field, f"an exact decimal as a string, got {text!r}")
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise InstanceError(field, f"{text[:40]!r} is not a decimal number") from None
    try:
        as_float = float(value)
    except OverflowError:
        raise InstanceError(field, f"{text[:40]} is beyond float64's range") from None
    if Fraction(as_float) != value:
        raise InstanceError(field, f"{text[:40]} is not a float64 value (the instance's "
                            f"numbers are; {as_float!r} is exactly "
                            f"{exact_decimal(as_float)[:60]})")
    if positive and not value > 0:
        raise InstanceError(field, f"must be positive, got {text[:40]}")
    if below_one and not 0 <= value < 1:
        raise InstanceError(field, f"must be in [0, 1), got {text[:40]}")
    return as_float


def check_array(field: str, value, ndim: int, limit: float = MAX_ENTRY,
                dtype=np.float64) -> np.ndarray:
    """An array of the file: the dtype and number of axes asked for, finite, every entry
    at most ``limit`` in size; `InstanceError` naming ``field`` otherwise."""
    arr = np.asarray(value)
    if arr.dtype != dtype:
        raise InstanceError(field, f"expected {np.dtype(dtype).name} entries, got "
                            f"{arr.dtype}")
    if arr.ndim != ndim:
        raise InstanceError(field, f"expected {ndim} axes, got shape {arr.shape}")
    if dtype == np.float64:
        if not np.all(np.isfinite(arr)):
            bad = arr[~np.isfinite(arr)].ravel()[0]
            raise InstanceError(field, f"an entry is {bad} (every entry must be finite)")
        if arr.size and float(np.max(np.abs(arr))) > limit:
            raise InstanceError(field, f"an entry {float(np.max(np.abs(arr))):.3g} is larger "
                                f"than {limit:.3g}, the most the checker's arithmetic "
                                "is certified for")
    return arr


@dataclass(frozen=True, eq=False)
class Instance:
    """An exact instance: the square loss, ReLU or leaky ReLU, scalar output.

    Attributes
    ----------
    X, y, W0, a0
        Data (n, d), labels (n,), initial first layer (p, d) and second layer (p,).
    parametrization
        ``"standard"`` or ``"mean_field"``.
    loss_scale
        c > 0 in L = c/(2n) sum_i r_i^2.
    init_scale
        The initialisation scale lam (the vocabulary's ``lam``), or None.
    activation
        ``"relu"`` (slope 0) or ``"leaky"``.
    slope
        The leak slope, in [0, 1) (0 for the ReLU).
    train
        ``"both"``, ``"first"`` (a fixed) or ``"second"`` (W fixed).
    """

    X: np.ndarray
    y: np.ndarray
    W0: np.ndarray
    a0: np.ndarray
    parametrization: str
    loss_scale: float
    init_scale: float | None
    activation: str
    slope: float
    train: str

    def __post_init__(self) -> None:
        X = check_array("X", self.X, 2)
        y = check_array("y", self.y, 1)
        W0 = check_array("W0", self.W0, 2)
        a0 = check_array("a0", self.a0, 1)
        n, d = X.shape
        if not (1 <= n <= MAX_SAMPLES and d >= 1):
            raise InstanceError("X", f"needs 1 to {MAX_SAMPLES} samples and a feature, got "
                                f"shape {X.shape}")
        if y.shape != (n,):
            raise InstanceError("y", f"expected shape ({n},) to match X, got {y.shape}")
        if W0.shape[1:] != (d,) or W0.shape[0] < 1:
            raise InstanceError("W0", f"expected shape (p, {d}), got {W0.shape}")
        if a0.shape != (W0.shape[0],):
            raise InstanceError("a0", f"expected shape ({W0.shape[0]},), got {a0.shape}")
        if W0.shape[0] * (d + 1) > MAX_WEIGHTS:
            raise InstanceError("W0", f"{W0.shape[0] * (d + 1)} weights, more than "
                                f"{MAX_WEIGHTS}")
        for name, value, allowed in (("parametrization", self.parametrization,
                                      PARAMETRIZATIONS), ("activation", self.activation,
                                                          ACTIVATIONS),
                                     ("train", self.train, TRAINED)):
            if not (isinstance(value, str) and value in allowed):
                raise InstanceError(name, f"{value!r} is not one of "
                                    f"{', '.join(map(repr, allowed))}")
        for name, value, positive in (("loss_scale", self.loss_scale, True),
                                      ("slope", self.slope, False)):
            if isinstance(value, bool) or not isinstance(value, float | int) or not (
                    np.isfinite(value) and (value > 0 if positive else 0 <= value < 1)):
                raise InstanceError(name, f"must be {'positive' if positive else 'in [0, 1)'}"
                                    f" and finite, got {value!r}")
        if self.activation == "relu" and self.slope != 0:
            raise InstanceError("slope", f"the ReLU's slope is 0, got {self.slope!r}")
        if self.init_scale is not None and (
                isinstance(self.init_scale, bool) or not isinstance(self.init_scale, float | int)
                or not (np.isfinite(self.init_scale) and self.init_scale > 0)):
            raise InstanceError("init_scale", f"must be positive and finite or null, got "
                                f"{self.init_scale!r}")
        for name, arr in (("X", X), ("y", y), ("W0", W0), ("a0", a0)):
            arr = np.array(arr, dtype=np.float64)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "loss_scale", float(self.loss_scale))
        object.__setattr__(self, "slope", float(self.slope))
        if self.init_scale is not None:
            object.__setattr__(self, "init_scale", float(self.init_scale))

    # -- sizes --------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def p(self) -> int:
        return self.W0.shape[0]

    @property
    def mean_field(self) -> bool:
        return self.parametrization == "mean_field"

    @property
    def size(self) -> int:
        """The number of weights, p (d + 1)."""
        return self.p * (self.d + 1)

    @property
    def theta0(self) -> np.ndarray:
        """The initial state as one flat vector (W row-major, then a)."""
        return np.concatenate([self.W0.ravel(), self.a0])

    # -- identity -----------------------------------------------------------------------
    @property
    def activation_spec(self) -> str:
        return "relu" if self.activation == "relu" else identity.leaky_spec(self.slope)

    @property
    def hash(self) -> str:
        """The problem's content hash (`numerics.Problem.content_hash` of this instance)."""
        return identity.content_hash(self.X, self.y, self.W0, self.a0, self.parametrization,
                                     "square", self.loss_scale, self.init_scale,
                                     identity.model_spec(self.activation_spec, self.train))

    def describe(self) -> str:
        """One line: sizes, parametrisation and model."""
        act = "ReLU" if self.activation == "relu" else f"leaky ReLU (slope {self.slope:g})"
        lam = "" if self.init_scale is None else f", lam={self.init_scale:.3g}"
        trained = {"both": "both layers", "first": "the first layer",
                   "second": "the second layer"}[self.train]
        return (f"n={self.n} d={self.d} p={self.p}, {self.parametrization}, square loss "
                f"(scale {self.loss_scale:g}), {act}, {trained} trained{lam}")

    def shape(self) -> Shape:
        """The field's constants (`numerics.certify.field.Shape`)."""
        return Shape(self.X, self.y, self.p, self.loss_scale, self.mean_field, self.slope,
                     self.train)

    # -- the file ------------------------------------------------------------------------
    def settings(self) -> dict:
        """The model's settings as the file holds them (scalars as exact decimals)."""
        return {"hash": self.hash, "n": self.n, "d": self.d, "p": self.p,
                "parametrization": self.parametrization, "loss": "square",
                "loss_scale": exact_decimal(self.loss_scale),
                "init_scale": (None if self.init_scale is None
                               else exact_decimal(self.init_scale)),
                "activation": self.activation, "slope": exact_decimal(self.slope),
                "train": self.train}

    @classmethod
    def from_file(cls, settings, arrays: dict) -> Instance:
        """The instance a file holds, every field checked; `InstanceError` naming the
        first that is wrong (the settings' hash must be the hash of what the file holds)."""
        if not isinstance(settings, dict):
            raise InstanceError("instance", "the instance's settings are missing")
        if settings.get("loss") != "square":
            raise InstanceError("instance.loss", f"{settings.get('loss')!r}: certificates "
                                "cover the square loss")
        init = settings.get("init_scale")
        try:
            inst = cls(arrays["X"], arrays["y"], arrays["W0"], arrays["a0"],
                       settings.get("parametrization"),
                       read_float("instance.loss_scale", settings.get("loss_scale"), True),
                       None if init is None else read_float("instance.init_scale", init, True),
                       settings.get("activation"),
                       read_float("instance.slope", settings.get("slope"), below_one=True),
                       settings.get("train"))
        except InstanceError as exc:
            if exc.field.startswith("instance"):
                raise
            raise InstanceError(f"instance.{exc.field}", str(exc).split(": ", 1)[1]) from None
        for key in ("n", "d", "p"):
            if settings.get(key) != getattr(inst, key):
                raise InstanceError(f"instance.{key}", f"{settings.get(key)!r}, but the "
                                    f"arrays have {key} = {getattr(inst, key)}")
        if settings.get("hash") != inst.hash:
            raise InstanceError("instance.hash", f"{settings.get('hash')!r} is not the hash "
                                f"of the data, initial state and model the file holds "
                                f"({inst.hash}): the file is not about the instance it names")
        return inst

    @classmethod
    def of_problem(cls, problem) -> Instance:
        """The exact instance of a `numerics.Problem` (square loss, ReLU or leaky ReLU,
        scalar output); `numerics.certify.field.NotCertifiable` otherwise."""
        from numerics.certify.field import NotCertifiable

        if problem.loss != "square":
            raise NotCertifiable(f"the {problem.loss} loss: certificates cover the square loss "
                                 "(a polynomial field between activation changes)")
        kind = type(problem.activation).__name__
        if kind not in ("ReLU", "LeakyReLU"):
            raise NotCertifiable(f"activation {problem.activation.describe()}: certificates "
                                 "cover ReLU and leaky ReLU")
        if problem.a0.ndim != 1:
            raise NotCertifiable("a vector output: certificates cover a scalar output")
        return cls(np.asarray(problem.X, float), np.asarray(problem.y, float),
                   np.asarray(problem.W0, float), np.asarray(problem.a0, float),
                   problem.parametrization, float(problem.loss_scale),
                   None if problem.init_scale is None else float(problem.init_scale),
                   "relu" if kind == "ReLU" else "leaky", float(problem.activation.slope),
                   problem.train)


__all__ = ["Instance", "InstanceError", "check_array", "exact_decimal", "read_float"]
