"""Helpers the benchmarks that compare this checkout with an older commit share: one
worker run in a fresh interpreter on a given source tree, an old tree from git, and the
relative difference of two final states. (A leading underscore: not a benchmark.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def run_worker(script: str, tree: Path, argv: list[str], out: Path, what: str,
               one_thread: bool = False) -> dict:
    """``python script --worker ARGV`` with PYTHONPATH on ``tree``: the JSON row its last
    line prints, with the arrays it saved in ``out`` (an .npz); an error naming ``what``
    if it fails or imports numerics from elsewhere."""
    cmd = [sys.executable, str(Path(script).resolve()), "--worker", *argv, "--out", str(out)]
    env = dict(os.environ, PYTHONPATH=str(tree), **(ONE_THREAD if one_thread else {}))
    res = subprocess.run(cmd, env=env, cwd=out.parent, capture_output=True, text=True,
                         check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{what} on {tree} failed:\n{res.stderr[-3000:]}")
    row = json.loads(res.stdout.strip().splitlines()[-1])
    if not Path(row["numerics"]).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"the run meant for {tree} imported {row['numerics']}")
    with np.load(out) as f:
        row.update({key: f[key] for key in f.files})
    return row


def old_tree(rev: str, into: Path, parts=("numerics",)) -> Path:
    """The packages ``parts`` of commit ``rev``, from git, in ``into``."""
    into.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, *parts],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def state_difference(new: dict, old: dict) -> float:
    """max_j |theta_j - theta'_j| / |theta_j| between two final states (W, a)."""
    th1 = np.concatenate([new["W"], new["a"][:, None]], axis=1)
    th2 = np.concatenate([old["W"], old["a"][:, None]], axis=1)
    scale = np.linalg.norm(th1, axis=1)
    diff = np.linalg.norm(th1 - th2, axis=1)
    return float(np.max(np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), diff)))
