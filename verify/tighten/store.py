"""Tightening results kept in SQLite (``DIR/tighten.sqlite``), one row per instance.

A row is keyed by the *query* (a hash of what is tightened: the statement or claim, the
constant, the part, the family with its fixed parameters, the mode, the method and the
saved points) and by the instance's parameters. Each instance is committed as soon as it
is computed, so an interrupted search loses at most the instance being simulated, and a
second run with the same query (a larger budget, another seed) reads the stored
instances instead of simulating them and reports the sharpest value over all of them.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from verify.tighten.statement import TightenError

DB_NAME = "tighten.sqlite"
COLUMNS = ("query", "params", "problem_hash", "status", "value", "error", "t", "part",
           "direction", "note", "horizon", "versions")


def query_hash(description: dict) -> str:
    text = json.dumps(description, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def params_key(params: dict) -> str:
    return json.dumps({k: params[k] for k in sorted(params)}, default=str)


class Store:
    """The rows of one query in ``results_dir`` (created if needed)."""

    def __init__(self, results_dir, query: str, description: dict):
        self.dir = Path(results_dir)
        self.query = query
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(self.dir / DB_NAME, timeout=30.0)
            self.conn.execute("PRAGMA journal_mode=WAL")
            with self.conn:
                cols = ", ".join(COLUMNS)
                self.conn.execute(f"CREATE TABLE IF NOT EXISTS rows ({cols}, "
                                  "PRIMARY KEY (query, params))")
                self.conn.execute("CREATE TABLE IF NOT EXISTS queries (query PRIMARY KEY, "
                                  "description)")
                self.conn.execute("INSERT OR IGNORE INTO queries VALUES (?, ?)",
                                  (query, json.dumps(description, sort_keys=True, default=str)))
            have = [r[1] for r in self.conn.execute("PRAGMA table_info(rows)")]
        except (OSError, sqlite3.Error) as exc:
            raise TightenError(f"--results {self.dir}: cannot hold a tightening store "
                               f"({exc})") from None
        if tuple(have) != COLUMNS:
            raise TightenError(f"--results {self.dir}: {DB_NAME} was written by another "
                               f"version of gfverify; use a new directory")

    def rows(self) -> list[dict]:
        cur = self.conn.execute(f"SELECT {', '.join(COLUMNS)} FROM rows WHERE query = ? "
                                "ORDER BY rowid", (self.query,))
        return [dict(zip(COLUMNS, r, strict=True)) for r in cur.fetchall()]

    def add(self, row: dict) -> None:
        values = tuple(row.get(c) for c in COLUMNS)
        with self.conn:
            self.conn.execute(f"INSERT OR REPLACE INTO rows VALUES "
                              f"({', '.join('?' * len(COLUMNS))})", values)

    def close(self) -> None:
        self.conn.close()
