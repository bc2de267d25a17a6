"""Sweeps: a grid of generated instances x seeds, simulated in batches, stored in SQLite.

The parts: `run` (plan the batches, compute them, run a sweep), `config` (the TOML
file and its protocols), `store` (the SQLite store and its row schema),
`dask_executor` (batches on a Dask cluster) and `cli` (``gfverify sweep``). Every
public name of `run` (which includes those of `config` and `store`) is importable
from here: ``from verify.sweep import run_sweep, read_rows``.
"""

from verify.lazy import forwarding

__getattr__, __dir__ = forwarding(__name__, "verify.sweep.run")
