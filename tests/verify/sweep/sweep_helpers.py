"""Helpers shared by the sweep tests (test_sweep, test_sweep_dask)."""

from __future__ import annotations

import verify.sweep.run as sweep


def write_config(tmp_path, text, name="sweep.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def stored_rows(results):
    """The stored rows without their wall times (which differ from run to run)."""
    return [{k: v for k, v in row.items() if k != "wall_time"} for row in sweep.read_rows(results)]
