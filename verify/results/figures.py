"""Figures: matplotlib without a screen, and PNGs (optionally with PDF copies) written
atomically.

``save_png`` writes to a temporary name and renames, so an interrupted run never
leaves a half-written figure where a report points to it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

_PDF_DIR: list[Path] = []  # where `save_png` also writes a PDF copy (see `pdf_copies`)


@contextlib.contextmanager
def pdf_copies(directory):
    """While active, every figure `save_png` writes is also written, as a vector PDF of the
    same name, into ``directory`` (the report's LaTeX export)."""
    _PDF_DIR.append(Path(directory))
    try:
        yield Path(directory)
    finally:
        _PDF_DIR.pop()


def pyplot():
    """matplotlib.pyplot on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def legend(ax, **kwargs) -> None:
    """``ax.legend(**kwargs)`` when ``ax`` has a labelled artist (matplotlib warns on a
    terminal otherwise)."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**kwargs)


#: a PNG larger than this (bytes) is stored with a 256-colour palette (`_palette`)
PALETTE_ABOVE = 100_000


def _palette(path: Path) -> None:
    """Rewrite the PNG at ``path`` with an adaptive 256-colour palette, no dithering: a
    heat map or a dense scatter plot shrinks about 2.5 times (358 kB to 133 kB for E-001-1's
    figure; mean change 0.3 of 255 per channel), and the report, which embeds its figures,
    stays under its size target."""
    from PIL import Image

    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT,
                                           dither=Image.Dither.NONE)
    small.save(path, format="PNG", optimize=True)


def save_png(fig, path, dpi: int = 110) -> Path:
    """Save ``fig`` to ``path`` (parents created) atomically, then close it; a large PNG
    with a palette (`PALETTE_ABOVE`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial.png")
    fig.savefig(tmp, dpi=dpi)
    if tmp.stat().st_size > PALETTE_ABOVE:
        _palette(tmp)
    if _PDF_DIR:
        pdf = _PDF_DIR[-1] / path.with_suffix(".pdf").name
        pdf.parent.mkdir(parents=True, exist_ok=True)
        partial = pdf.with_name(pdf.name + ".partial.pdf")
        fig.savefig(partial)
        os.replace(partial, pdf)
    pyplot().close(fig)
    os.replace(tmp, path)
    return path
