"""The model around a Problem's data: activation, trained layers, hidden biases, initialisation.

A generator draws data and weights for a paper's setting; `with_model` turns its Problem
into the same problem with another model, so that every family, method and claim sees
the one Problem type:

- ``activation``: an object of `numerics.activations` or its spelling (``leaky:0.1``);
- ``train``: ``both`` (default), ``first`` (the output weights a stay fixed) or
  ``second`` (W stays fixed);
- ``bias``: hidden biases, as a constant input coordinate (`with_hidden_bias`);
- ``init``: the output weights redrawn against the first layer (`reinitialise`).

Hidden biases. h(x) = s sum_j a_j sigma(<w_j, x> + b_j) is the bias-free network on the
augmented inputs (x, c) with first-layer rows (w_j, b_j / c). Every method and the exact
flow carry the bias unchanged, as one more coordinate. What it does to the theory: the
augmented inputs are not orthogonal (<(x_i, c), (x_k, c)> = <x_i, x_k> + c^2), so claims
that assume orthogonal or weakly interacting data are INAPPLICABLE on them; b_j joins w_j
in the conserved quantity, k a_j^2 - ||w_j||^2 - b_j^2 / c^2.

Initialisations (the first layer W0 as the generator drew it; a_j's sign kept, + for 0):

- ``balanced``: a_j = s_j ||w_j|| (exactly balanced: c_j = 0 for a ReLU network);
- ``unbalanced[:R]``: a_j = R m xi_j with xi_j ~ N(0, 1) and m the mean ||w_j||: output
  weights on their own scale, independent of the first layer (R = 1 by default);
- ``dominated[:F]``: a_j = s_j F ||w_j||, F >= 1 (|a_j| >= F ||w_j||: Boursier and
  Flammarion 2025's Eq. (4), strictly; F = 2 by default);
- ``asymmetric``: a_j = s_j (||w_j|| + E_j), E_j ~ Exp(1) (S000's I-000-repo).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from numerics.activations import ActivationError
from numerics.activations import parse as parse_activation
from numerics.problem import TRAINED, Problem, ProblemError

INITS = ("balanced", "unbalanced", "dominated", "asymmetric")
_INIT_DEFAULTS = {"unbalanced": 1.0, "dominated": 2.0}


def with_hidden_bias(problem: Problem, b0=None, constant: float = 1.0) -> Problem:
    """``problem`` with hidden biases: X gains the column ``constant`` and W0 the column
    b0 / constant (``b0`` defaults to zeros). ``meta["hidden_bias"]`` records the constant."""
    if "hidden_bias" in problem.meta:
        raise ProblemError("bias: this Problem has hidden biases already.")
    if not (np.isfinite(constant) and constant > 0):
        raise ProblemError(f"bias: the bias coordinate must be a positive number, got "
                           f"{constant!r}.")
    b0 = np.zeros(problem.p) if b0 is None else np.asarray(b0, dtype=float)
    if b0.shape != (problem.p,):
        raise ProblemError(f"b0: expected shape ({problem.p},), one bias per neuron, got "
                           f"{b0.shape}.")
    X = np.hstack([problem.X, np.full((problem.n, 1), float(constant))])
    W0 = np.hstack([problem.W0, (b0 / constant)[:, None]])
    meta = dict(problem.meta, hidden_bias=float(constant))
    return replace(problem, X=X, W0=W0, meta=meta)


def hidden_biases(problem: Problem, W: np.ndarray) -> np.ndarray:
    """b_j from first-layer weights W (..., p, d) of a Problem with hidden biases."""
    constant = problem.meta.get("hidden_bias")
    if constant is None:
        raise ProblemError("bias: this Problem has no hidden biases.")
    return W[..., -1] * constant


def parse_init(text: str) -> tuple[str, float | None]:
    """(scheme, factor) from ``balanced``, ``unbalanced:R``, ``dominated:F``,
    ``asymmetric``; a ProblemError naming ``init`` otherwise."""
    kind, _, arg = str(text).strip().lower().partition(":")
    if kind not in INITS:
        raise ProblemError(f"init: {text!r} is not one of {INITS} (with ':FACTOR' for "
                           "unbalanced and dominated).")
    if kind not in _INIT_DEFAULTS:
        if arg:
            raise ProblemError(f"init: {kind!r} takes no factor, got {text!r}.")
        return kind, None
    try:
        factor = float(arg) if arg else _INIT_DEFAULTS[kind]
    except ValueError:
        raise ProblemError(f"init: {text!r}: the factor must be a number.") from None
    least = 1.0 if kind == "dominated" else 0.0
    if not (np.isfinite(factor) and factor >= least and factor > 0):
        raise ProblemError(f"init: the {kind} factor must be {'>= 1' if least else '> 0'}, "
                           f"got {factor!r}.")
    return kind, factor


def reinitialise(problem: Problem, init: str, seed: int = 0) -> Problem:
    """``problem`` with its output weights redrawn by ``init`` (module docstring) against
    its first layer W0; the draws (unbalanced, asymmetric) come from ``seed``."""
    kind, factor = parse_init(init)
    norms = np.linalg.norm(problem.W0, axis=1)
    signs = np.where(problem.a0 < 0, -1.0, 1.0)
    rng = np.random.default_rng([int(seed), 0x1A17])
    if kind == "balanced":
        a0 = signs * norms
    elif kind == "dominated":
        a0 = signs * factor * norms
    elif kind == "asymmetric":
        a0 = signs * (norms + rng.exponential(1.0, size=problem.p))
    else:
        a0 = factor * float(np.mean(norms)) * rng.standard_normal(problem.p)
    meta = dict(problem.meta, init=str(init))
    return replace(problem, a0=a0, meta=meta)


def with_model(problem: Problem, activation=None, train: str | None = None,
               bias: float | None = None, init: str | None = None, seed: int = 0) -> Problem:
    """``problem`` with the model options given (None leaves one as it is); the order is
    init, then bias, so that an initialisation sees the generator's first layer."""
    if init is not None:
        problem = reinitialise(problem, init, seed)
    if bias is not None:
        problem = with_hidden_bias(problem, constant=bias)
    changes = {}
    if activation is not None:
        try:
            changes["activation"] = parse_activation(activation)
        except ActivationError as exc:
            raise ProblemError(str(exc)) from None
    if train is not None:
        if train not in TRAINED:
            raise ProblemError(f"train: {train!r} is not one of {TRAINED}.")
        changes["train"] = train
    return replace(problem, **changes) if changes else problem
