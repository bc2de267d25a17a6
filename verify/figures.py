"""Figures: matplotlib without a screen, and PNGs written atomically.

``save_png`` writes to a temporary name and renames, so an interrupted run never
leaves a half-written figure where a report points to it.
"""

from __future__ import annotations

import os
from pathlib import Path


def pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_png(fig, path, dpi: int = 110) -> Path:
    """Save ``fig`` to ``path`` (parents created) atomically, then close it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial.png")
    fig.savefig(tmp, dpi=dpi)
    pyplot().close(fig)
    os.replace(tmp, path)
    return path
