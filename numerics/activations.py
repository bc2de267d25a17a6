"""Hidden-layer activations: the one object every method asks what sigma is.

Every activation here is positively homogeneous, sigma(c z) = c^k sigma(z) for c > 0, and
says so (``degree`` k): Euler's relation sigma'(z) z = k sigma(z) is what makes
k a_j^2 - ||w_j||^2 a conserved quantity of the two-layer flow (CF-13).

- `ReLU`: max(z, 0), k = 1, piecewise linear, relu'(0) = 0 (the toolkit's convention).
- `LeakyReLU(slope)`: z for z > 0, slope * z for z < 0, slope in [0, 1); k = 1, piecewise
  linear. Its Clarke derivative at 0 is the interval [slope, 1].
- `ReLUPower(beta)`: max(z, 0)^beta, beta > 1; k = beta, continuously differentiable with
  sigma'(0) = 0, so the flow has no sliding modes (S000-F7's monomials x -> x^beta on the
  active side; beta = 2 is the squared ReLU).

The methods hold an activation pattern A (p x n; 1 where z_ij > 0) fixed inside a smooth
region and switch it at located crossings, so the functions below take Z and A: on a
piecewise-linear activation sigma(z) = sigma'(z) z with sigma' = slope + (1 - slope) A,
and A may be fractional on a pair held on its kink by a sliding mode (its Clarke
coefficient). `parse` reads the command line's spelling (``relu``, ``leaky:0.1``,
``power:2``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numerics.identity import leaky_spec


class ActivationError(ValueError):
    """A bad activation or spelling of one; the message names what is allowed."""


SPELLINGS = "'relu', 'leaky:SLOPE' (0 <= SLOPE < 1) or 'power:BETA' (BETA > 1)"


@dataclass(frozen=True)
class LeakyReLU:
    """sigma(z) = z (z > 0), slope * z (z <= 0), with slope in [0, 1).

    Positively homogeneous of degree 1 (``degree``) and piecewise linear
    (``piecewise_linear``); its Clarke derivative at 0 is the interval [slope, 1].

    Attributes
    ----------
    slope
        The slope on the negative side, in [0, 1) (default 0.01); 0 is the ReLU.
    """

    slope: float = 0.01

    degree = 1.0
    piecewise_linear = True

    def __post_init__(self) -> None:
        value = self.slope
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                math.isfinite(value) and 0.0 <= value < 1.0):
            raise ActivationError(f"slope: a leaky ReLU's slope must be in [0, 1), got {value!r}.")
        object.__setattr__(self, "slope", float(value))

    @property
    def spec(self) -> str:
        """The spelling `parse` reads back (``"leaky:0.1"``), as the command line takes it."""
        return leaky_spec(self.slope)

    @property
    def is_relu(self) -> bool:
        """Whether it is numerically the ReLU (slope 0); claims stated for ReLU networks then
        apply."""
        return self.slope == 0.0

    @property
    def leak_ratio(self) -> float:
        """``slope / (1 - slope)``; the kink's Clarke coefficient alpha in [0, 1] gives the
        derivative slope + (1 - slope) alpha; the sliding solve works in units of
        (1 - slope), where the always-on part weighs this ratio (`numerics.sliding`)."""
        return self.slope / (1.0 - self.slope)

    @property
    def kink_share(self) -> float:
        """``1 - slope``, how much of the derivative the Clarke coefficient alpha carries."""
        return 1.0 - self.slope

    def derivative(self, Z, A):
        """sigma'(z) with the pattern A (fractional alpha on a sliding pair)."""
        if self.slope == 0.0:
            return A
        return self.slope + self.kink_share * A

    def value(self, Z, A):
        """sigma(z) = sigma'(z) z with the pattern A."""
        return self.derivative(Z, A) * Z

    def torch_value(self, Z):
        """sigma(Z) on a torch tensor (gradient descent's forward pass)."""
        import torch

        return torch.nn.functional.leaky_relu(Z, self.slope)

    def torch_derivative(self, Z):
        """sigma'(Z) on a torch tensor, with sigma'(0) = slope (the strict mask z > 0)."""
        return (Z > 0).to(Z.dtype).mul_(self.kink_share).add_(self.slope)

    def describe(self) -> str:
        """The activation in words, for reports."""
        return f"leaky ReLU with slope {self.slope:g}"


@dataclass(frozen=True)
class ReLU(LeakyReLU):
    """max(z, 0), relu'(0) = 0: the default, and the toolkit's numbers before activations
    were objects.

    Attributes
    ----------
    slope
        Always 0.0 (a LeakyReLU of slope 0); another value is refused.
    """

    slope: float = 0.0

    def __post_init__(self) -> None:
        if self.slope != 0.0:
            raise ActivationError("slope: ReLU has slope 0; use LeakyReLU(slope) for another.")
        object.__setattr__(self, "slope", 0.0)

    @property
    def spec(self) -> str:
        """``"relu"``."""
        return "relu"

    def describe(self) -> str:
        """``"ReLU"``."""
        return "ReLU"


@dataclass(frozen=True)
class ReLUPower:
    """sigma(z) = max(z, 0)^beta, beta > 1: positively homogeneous of degree beta, C^1.

    Its field is continuous, so the flow's pairs cross their surfaces and never slide.

    Attributes
    ----------
    beta
        The power, > 1 (default 2.0, the squared ReLU); also the degree of homogeneity.
    """

    beta: float = 2.0

    piecewise_linear = False
    is_relu = False

    def __post_init__(self) -> None:
        value = self.beta
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                math.isfinite(value) and value > 1.0):
            raise ActivationError(f"beta: a ReLU power needs beta > 1, got {value!r}.")
        object.__setattr__(self, "beta", float(value))

    @property
    def degree(self) -> float:
        """The degree of homogeneity k = beta (k a_j^2 - ||w_j||^2 is conserved, CF-13)."""
        return self.beta

    @property
    def spec(self) -> str:
        """The spelling `parse` reads back (``"power:2"``)."""
        return f"power:{self.beta:g}"

    @property
    def integer_power(self) -> int | None:
        """beta as an int when it is one (the high-precision flow's Taylor series need it)."""
        return int(self.beta) if self.beta == int(self.beta) else None

    def _power(self, Z, exponent):
        # held pattern: continue z^beta smoothly through 0 as sign(z)|z|^beta, so a step that
        # overshoots a crossing stays finite until the crossing is located
        return np.sign(Z) * np.abs(Z) ** exponent

    def value(self, Z, A):
        """sigma(z) with the held pattern A: A z^beta, continued smoothly through 0."""
        return A * self._power(Z, self.beta)

    def derivative(self, Z, A):
        """sigma'(z) with the held pattern A: A beta abs(z)^(beta - 1)."""
        return A * (self.beta * np.abs(Z) ** (self.beta - 1.0))

    def torch_value(self, Z):
        """sigma(Z) on a torch tensor (gradient descent's forward pass)."""
        return Z.clamp_min(0.0).pow_(self.beta)

    def torch_derivative(self, Z):
        """sigma'(Z) on a torch tensor."""
        return Z.clamp_min(0.0).pow_(self.beta - 1.0).mul_(self.beta)

    def describe(self) -> str:
        """The activation in words, for reports."""
        return f"ReLU to the power {self.beta:g}"


Activation = LeakyReLU | ReLUPower
ACTIVATION_TYPES = (LeakyReLU, ReLUPower)


def parse(text: str, name: str = "activation") -> Activation:
    """The activation a user spelled (``relu``, ``leaky:0.1``, ``power:2``); a clear
    ActivationError naming ``name`` otherwise. Parsed, never evaluated."""
    if isinstance(text, ACTIVATION_TYPES):
        return text
    raw = str(text).strip().lower()
    kind, _, arg = raw.partition(":")
    try:
        if kind == "relu" and not arg:
            return ReLU()
        if kind in ("leaky", "leaky_relu", "leakyrelu"):
            return LeakyReLU(float(arg) if arg else 0.01)
        if kind in ("power", "relu_power", "relupower"):
            return ReLUPower(float(arg) if arg else 2.0)
    except ValueError as exc:
        raise ActivationError(f"{name}: {text!r}: {exc}") from None
    raise ActivationError(f"{name}: {text!r} is not an activation; use {SPELLINGS}.")
