"""A researcher's dataset as a family (``gfverify conjecture EXPR --data FILE``).

The file holds the inputs and labels: an ``.npz`` with arrays ``X`` (n, d) and ``y`` (n,)
(a recorded run's file is one), or a ``.csv`` of numbers, one sample per row, the label in
the last column (a first line that is not numbers is a header and is skipped).

An instance draws from it, by the family rules (parameters as every family's, ``--param
KEY=VALUE``):

- ``n``: the samples used, the first n of a random order of the file's rows (the order
  is the seed's), so that lowering n removes samples from an instance;
- ``p``: the width; the first layer w_j = lam g_j / sqrt(d), g_j ~ N(0, I_d), drawn
  neuron by neuron, so that lowering p removes neurons;
- ``lam``: the initialisation scale; a_j = s_j ||w_j|| with random signs s_j (balanced,
  S002's initialisation); ``init=`` (`numerics.model`) draws another;
- ``loss``: the file's loss, fixed when the family is made (square by default;
  exponential or logistic for labels in {-1, +1});
- ``seed``: the random numbers of the order, the weights and the signs;

with a standard network and both layers trained (``activation=``, ``train=``, ``bias=``
as for every family). The horizon is S002's rule on these data, 3.6 ln(1/lam) / m + 20 / m,
with m the smaller nonzero norm of D_+- = sum over the samples of each label sign of
g_i(0) x_i (g_i(0) = the loss's derivative at h = 0: y_i / n for the square loss); ``--param
horizon=T`` sets it. A search shrinks a counterexample by lowering n and p.
"""

from __future__ import annotations

import csv
import math
import zipfile
from pathlib import Path

import numpy as np

from numerics.problem import LOSSES, Problem
from verify.instances.families import (
    ChoiceParam,
    Family,
    FamilyError,
    FloatParam,
    IntParam,
    seed_param,
)

#: the search range of the width (a fixed --param p may go beyond it)
WIDTHS = (2, 40)


def read_data(path) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) from a dataset file (the module docstring's formats); a FamilyError naming
    the file and what is wrong otherwise."""
    path = Path(path)
    if not path.is_file():
        raise FamilyError(f"--data {path}: no such file (an .npz with arrays X and y, or a "
                          f".csv with the label in the last column)")
    if path.suffix == ".npz":
        X, y = _from_npz(path)
    elif path.suffix == ".csv":
        X, y = _from_csv(path)
    else:
        raise FamilyError(f"--data {path}: expected an .npz (arrays X, y) or a .csv file")
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise FamilyError(f"--data {path}: X: expected shape (n, d) with n, d >= 1, got "
                          f"{X.shape}")
    if y.shape != (X.shape[0],):
        raise FamilyError(f"--data {path}: y: expected shape ({X.shape[0]},), one label per "
                          f"row of X, got {y.shape}")
    for name, arr in (("X", X), ("y", y)):
        if not np.all(np.isfinite(arr)):
            raise FamilyError(f"--data {path}: {name}: contains NaN or infinity")
    return X, y


def _from_npz(path: Path) -> tuple[np.ndarray, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as f:
            missing = [k for k in ("X", "y") if k not in f.files]
            if missing:
                raise FamilyError(f"--data {path}: missing array {missing[0]!r} (the file "
                                  f"has {', '.join(f.files) or 'none'}; a dataset has X and y)")
            return (np.asarray(f["X"], dtype=float), np.asarray(f["y"], dtype=float))
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise FamilyError(f"--data {path}: not a readable .npz ({exc})") from None


def _from_csv(path: Path) -> tuple[np.ndarray, np.ndarray]:
    rows = []
    try:
        with path.open(newline="") as f:
            for k, row in enumerate(csv.reader(f)):
                if not row or all(not c.strip() for c in row):
                    continue
                try:
                    rows.append([float(c) for c in row])
                except ValueError:
                    if k == 0:
                        continue  # a header
                    raise FamilyError(f"--data {path}: line {k + 1}: not numbers "
                                      f"({','.join(row)[:60]!r})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FamilyError(f"--data {path}: cannot read it ({exc})") from None
    if not rows:
        raise FamilyError(f"--data {path}: no rows of numbers")
    widths = {len(r) for r in rows}
    if len(widths) != 1 or widths.pop() < 2:
        raise FamilyError(f"--data {path}: every row needs the same number (>= 2) of "
                          "columns: the features, then the label")
    arr = np.array(rows)
    return arr[:, :-1], arr[:, -1]


def data_family(path, loss: str = "square") -> Family:
    """The family of instances on the dataset in ``path`` (the module docstring)."""
    X, y = read_data(path)
    if loss not in LOSSES:
        raise FamilyError(f"--param loss: {loss!r} is not one of {LOSSES}")
    if loss != "square" and not np.all(np.abs(y) == 1.0):
        raise FamilyError(f"--param loss={loss}: needs labels in {{-1, +1}}; {path} has "
                          f"others (use loss=square)")
    N, d = X.shape
    X.setflags(write=False)
    y.setflags(write=False)
    name = f"data:{path}"

    def build(n, p, lam, loss, seed) -> Problem:
        order = np.random.default_rng([seed, 0]).permutation(N)[:n]
        G = np.random.default_rng([seed, 1]).standard_normal((p, d))
        signs = np.where(np.random.default_rng([seed, 2]).random(p) < 0.5, -1.0, 1.0)
        W0 = lam * G / math.sqrt(d)
        a0 = signs * np.linalg.norm(W0, axis=1)
        return Problem(X=X[order], y=y[order], W0=W0, a0=a0, loss=loss, init_scale=lam,
                       meta={"generator": "data", "data": str(path), "rows": order.tolist()})

    def horizon(problem: Problem, params) -> float:
        g = {"square": problem.y / problem.n, "exponential": problem.y,
             "logistic": problem.y / 2}[problem.loss]
        norms = [np.linalg.norm(g[mask] @ problem.X[mask])
                 for mask in (problem.y > 0, problem.y < 0) if mask.any()]
        m = min((v for v in norms if v > 0), default=0.0)
        if m == 0.0:
            raise FamilyError(f"--data {path}: the labels of these samples give the flow no "
                              "direction at h = 0 (D_+ = D_- = 0); set --param horizon=T")
        return (3.6 * math.log(1.0 / problem.init_scale) + 20.0) / m

    params = {
        "n": IntParam(min(2, N), N, f"samples (of the file's {N}; lowering n removes samples)",
                      default=N, limits=(1, N)),
        "p": IntParam(*WIDTHS, "width (lowering p removes neurons)", default=20),
        "lam": FloatParam(1e-6, 0.1, "initialisation scale", default=1e-3,
                          limits=(0.0, 1.0)),
        "loss": ChoiceParam((loss,), "loss (fixed with --param loss=)", default=loss),
        "seed": seed_param(),
    }
    return Family(name=name, description=f"the dataset {path} ({N} samples, d = {d}); balanced "
                  "init at scale lam, standard network, both layers trained",
                  params=params, build=build, horizon_rule=horizon,
                  horizon_text="(3.6 ln(1/lam) + 20) / min ||D_+-|| (S002's rule on these data)",
                  selector=("--data", str(path)))
