"""The published measurements the report reproduces (shipped in ``papers/s000/published/``).

They are read, never written, and never used to tune anything: the report runs
the published protocol and only then compares. The directory is, in order,
the ``reference`` argument, the ``GFVERIFY_REFERENCE`` environment variable, or
the copy shipped with the package (`SHIPPED`; its README says where the numbers
come from and the protocol behind them).
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

from verify.errors import InputError

ENV = "GFVERIFY_REFERENCE"
SHIPPED = Path(__file__).resolve().parent / "published"
_TENSOR = re.compile(r"^\s*tensor\(\s*([^,)]+)")


class ReferenceMissing(InputError):
    """The reference data are not where they were looked for (the message says where)."""


def reference_dir(reference: str | os.PathLike | None = None) -> Path:
    if reference is not None:
        path = Path(reference)
    elif os.environ.get(ENV):
        path = Path(os.environ[ENV])
    else:
        path = SHIPPED
    if not path.is_dir():
        raise ReferenceMissing(
            f"reference: no directory {path}; pass --reference DIR (or set {ENV}) to a copy "
            f"of the published data laid out as {SHIPPED} is.")
    return path


def number(cell: str) -> float:
    """A CSV cell as a float; cells saved as the text ``tensor(x)`` give x."""
    m = _TENSOR.match(cell)
    return float(m[1] if m else cell)


def read_table(path: Path) -> list[dict]:
    with open(path, newline="") as handle:
        return [{k: number(v) for k, v in row.items()} for row in csv.DictReader(handle)]


def threshold_runs(reference=None) -> list[dict]:
    """E-000-2 (their Experiment 1.1): rows d, n, p, loss_trend, CV_probability for every d."""
    folder = reference_dir(reference) / "dana2025" / "exp1_threshold_vs_d"
    files = sorted(folder.glob("d_*.csv"), key=lambda f: int(f.stem.split("_")[1]))
    if not files:
        raise ReferenceMissing(f"reference: no d_*.csv files in {folder}.")
    return [row for f in files for row in read_table(f)]


def orthogonal_pl(reference=None) -> list[dict]:
    """E-000-4 (their Experiment 2): rows n, d, log_speed, log_avg_speed, log_lower, log_upper."""
    path = reference_dir(reference) / "dana2025" / "exp2_orthogonal_pl" / "d2000_n1000-2000.csv"
    if not path.is_file():
        raise ReferenceMissing(f"reference: no {path}.")
    return read_table(path)
