"""A sweep's store: the SQLite file in the results directory, its row schema (`COLUMNS`),
opening it (a directory that cannot hold it is a `SweepStoreError` naming it) and reading
its rows back (as dicts or a pandas DataFrame).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from verify.errors import InputError

#: The store's file name inside its results directory.
DB_NAME = "results.sqlite"
#: The row schema's version; a store written with other columns is refused, not migrated.
SCHEMA_VERSION = 2
#: The columns of table ``trajectories`` as (name, SQLite type), one row per trajectory
#: (its recipe: hashes, generator, parameters, seed, method; the losses, stop time and
#: epochs, success: final L <= 1/(2n); the rates at the end, the error estimate, status,
#: wall time and package versions).
COLUMNS = (
    ("instance_hash", "TEXT NOT NULL"),
    ("config_hash", "TEXT NOT NULL"),
    ("sweep", "TEXT"),
    ("generator", "TEXT"),
    ("params", "TEXT"),
    ("n", "INTEGER"),
    ("d", "INTEGER"),
    ("p", "INTEGER"),
    ("seed", "INTEGER"),
    ("method", "TEXT"),
    ("options", "TEXT"),
    ("initial_loss", "REAL"),
    ("final_loss", "REAL"),
    ("loss_ratio", "REAL"),
    ("stop_time", "REAL"),
    ("epochs", "INTEGER"),
    ("success", "INTEGER"),
    ("pl_end", "REAL"),
    ("rate_end", "REAL"),  # 2 mean (L_{k-1} - L_k)/(L_{k-1} + L_k), last 100 steps, per unit t
    ("rate_avg", "REAL"),  # ln(L_0 / L_end) / t_end
    ("energy_min", "REAL"),  # min_i E_i at the end, E_i = s sum_j 1{<w_j,x_i> > 0} a_j^2
    ("energy_max", "REAL"),
    ("kernel_rate", "REAL"),  # 2 kappa c lambda_min(NTK) / n at the end (when asked)
    ("error_estimate", "REAL"),
    ("status", "TEXT"),
    ("message", "TEXT"),
    ("wall_time", "REAL"),
    ("versions", "TEXT"),
)
#: The column names, in `COLUMNS` order (the keys of each row `read_rows` returns).
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)



class SweepStoreError(InputError):
    """A results directory that cannot hold this sweep's rows; the message names DIR."""


def row_key(row: dict) -> tuple:
    """A stored row's recipe, as `Batch.keys` lists it."""
    return (row["generator"], row["params"], row["seed"], row["config_hash"])


def connect(results_dir) -> sqlite3.Connection:
    """Open (creating if needed) the sweep store in ``results_dir``. A directory that cannot
    hold a store (a file, unwritable, a corrupted database) is a `SweepStoreError` naming
    the path, raised before anything is written."""
    results_dir = Path(results_dir)
    try:
        results_dir.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(results_dir / DB_NAME, timeout=30.0)
    except (OSError, sqlite3.Error) as exc:
        raise _store_error(results_dir, exc) from None
    try:
        have = [r[1] for r in conn.execute("PRAGMA table_info(trajectories)")]
        if have and tuple(have) != COLUMN_NAMES:  # checked before anything is written
            raise SweepStoreError(
                f"DIR: {results_dir / DB_NAME} was written by another version of gfverify "
                f"(columns differ from schema {SCHEMA_VERSION}); use a new --results "
                f"directory.")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        cols = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)
        with conn:
            conn.execute(f"CREATE TABLE IF NOT EXISTS trajectories ({cols}, "
                         "PRIMARY KEY (instance_hash, config_hash))")
    except sqlite3.Error as exc:
        conn.close()
        raise _store_error(results_dir, exc) from None
    except SweepStoreError:
        conn.close()
        raise
    return conn


def close(conn: sqlite3.Connection) -> None:
    """Close a writing connection, leaving the store as one file: the write-ahead log is
    folded in and switched off when no other connection uses the store (readers that open
    it read-only then create no -wal/-shm files); a busy store keeps its log for the next
    writer."""
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
    except sqlite3.Error:
        pass  # another connection holds the store; it stays in WAL mode
    finally:
        conn.close()


def _store_error(results_dir: Path, exc: Exception) -> SweepStoreError:
    path = Path(results_dir)
    if path.exists() and not path.is_dir():
        why = "is a file, not a directory"
    elif isinstance(exc, sqlite3.DatabaseError) and "not a database" in str(exc):
        why = f"holds a {DB_NAME} that is not a readable database (corrupted?)"
    elif isinstance(exc, PermissionError) or "readonly" in str(exc) or "read-only" in str(exc):
        why = "is not writable"
    else:
        why = f"cannot hold a store ({getattr(exc, 'strerror', None) or exc})"
    return SweepStoreError(f"--results {path}: {why}; a store is a directory holding "
                           f"{DB_NAME} (and, while in use, its -wal and -shm files)")


# -- reading --------------------------------------------------------------------------------


def to_dataframe(results_dir):
    """The stored rows (`read_rows`) as a pandas DataFrame (``pip install
    'gfverify[notebook]'``)."""
    from verify.results.table import as_dataframe

    return as_dataframe(read_rows(results_dir))


def read_rows(results_dir) -> list[dict]:
    """Every stored row, ordered by sweep, grid parameters and seed. A read-only store (or
    one on read-only media) is read as it is; a corrupted one is a `SweepStoreError`."""
    path = Path(results_dir) / DB_NAME
    if not path.is_file():
        raise FileNotFoundError(f"DIR: no sweep store {path}; run `gfverify sweep` first.")
    query = (f"SELECT {', '.join(COLUMN_NAMES)} FROM trajectories "
             "ORDER BY sweep, generator, n, d, p, params, method, options, seed, instance_hash")
    last: Exception | None = None
    # mode=ro needs to create the WAL's -shm file; where it cannot (a read-only directory),
    # immutable=1 reads the database file as it is (nobody may write it meanwhile)
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(f"file:{path}?{flags}", uri=True, timeout=30.0)
        except sqlite3.Error as exc:
            last = exc
            continue
        try:
            cur = conn.execute(query)
            return [dict(zip(COLUMN_NAMES, r, strict=True)) for r in cur]
        except sqlite3.DatabaseError as exc:
            last = exc
            if "not a database" in str(exc) or "malformed" in str(exc):
                break
        finally:
            conn.close()
    raise _store_error(Path(results_dir), last)
