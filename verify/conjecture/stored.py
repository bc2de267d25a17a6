"""Scaling conjectures on stored sweep rows: ``gfverify conjecture --scaling LAW --results DIR``.

``LAW`` reads ``COLUMN ~ SIZE**alpha`` or ``COLUMN ~ SIZE**(-1/2)``: COLUMN is a
numeric column of the sweep store (`verify.sweep.COLUMNS`, e.g. ``rate_end`` or
``kernel_rate``), SIZE one of the grid sizes n, d, p. Nothing is simulated: the
rows a sweep stored are read, filtered by ``--where key=value`` (column values,
compared as text), restricted to successful runs with a positive finite value,
and fitted by `verify.engine.scaling.fit_power_law` (pooled least squares of log value on
log size; bootstrap over runs within each size). With a stated exponent the
verdict is CONSISTENT (inside the interval, exit 0) or REJECTED (exit 1); rows that
cannot be fitted (one size only, say) give UNDECIDED (exit 3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from verify.engine.scaling import FitError, PowerLawFit, fit_power_law
from verify.errors import InputError
from verify.exit_codes import EXIT_FOUND, EXIT_OK, EXIT_UNDECIDED
from verify.language.expressions import ExpressionError, parse_power_law
from verify.sweep import COLUMNS, SweepStoreError, read_rows

SIZES = ("n", "d", "p")
NUMERIC = tuple(name for name, kind in COLUMNS if kind.startswith(("REAL", "INTEGER"))
                and name not in ("seed", "success", "wall_time"))
FILTERS = ("sweep", "generator", "method", "n", "d", "p", "config_hash", "status")



class StoreConjectureError(InputError):
    """Bad law, filter or store; the message names what to change."""


@dataclass(frozen=True)
class StoredScaling:
    law: str
    column: str
    size: str
    exponent: float | None
    fit: PowerLawFit | None  # None: the stored rows do not determine a fit (see ``note``)
    counts: dict  # size value -> runs used
    skipped: int
    note: str = ""

    @property
    def consistent(self) -> bool | None:
        if self.exponent is None or self.fit is None:
            return None
        return self.fit.lo <= self.exponent <= self.fit.hi

    @property
    def exit_code(self) -> int:
        if self.fit is None:
            return EXIT_UNDECIDED
        return EXIT_FOUND if self.consistent is False else EXIT_OK

    def report(self) -> str:
        f = self.fit
        if f is None:
            return (f"UNDECIDED: {self.law} cannot be fitted to the stored runs at {self.size} = "
                    + ", ".join(f"{k} ({v})" for k, v in sorted(self.counts.items()))
                    + f": {self.note}")
        lines = [f"{self.law}: fitted exponent {f.exponent:.3f}, {f.level:.0%} interval "
                 f"[{f.lo:.3f}, {f.hi:.3f}] ({f.method}; t-interval [{f.t_lo:.3f}, "
                 f"{f.t_hi:.3f}]) from {f.points} stored runs at {self.size} = "
                 + ", ".join(f"{k} ({v})" for k, v in sorted(self.counts.items()))]
        if self.skipped:
            lines.append(f"  {self.skipped} rows left out (failed runs or non-positive "
                         f"{self.column})")
        if self.exponent is not None:
            verdict = "CONSISTENT" if self.consistent else "REJECTED"
            lines.append(f"{verdict}: the stated exponent {self.exponent:g} is "
                         f"{'inside' if self.consistent else 'outside'} the interval")
        return "\n".join(lines)


def parse_law(text: str) -> tuple[str, str, float | None]:
    """(column, size, stated exponent or None) of ``COLUMN ~ SIZE**...``."""
    if not isinstance(text, str) or text.count("~") != 1:
        raise StoreConjectureError("--scaling: write 'COLUMN ~ n**alpha' or "
                                   "'COLUMN ~ n**(-1/2)' (one '~').")
    left, right = (part.strip() for part in text.split("~"))
    if left not in NUMERIC:
        raise StoreConjectureError(f"--scaling: {left!r} is not a numeric column of the sweep "
                                   f"store; use one of {', '.join(NUMERIC)}.")
    try:
        size, exponent, _ = parse_power_law(right, sizes=("n", "d", "p"))
    except ExpressionError as exc:
        raise StoreConjectureError(f"--scaling: the law {right!r} must read SIZE**alpha or "
                                   f"SIZE**(number), SIZE one of n, d, p ({exc}).") from None
    return left, size.name, exponent


def parse_where(items) -> dict[str, str]:
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or key not in FILTERS:
            raise StoreConjectureError(f"--where: expected KEY=VALUE with KEY one of "
                                       f"{', '.join(FILTERS)}, got {item!r}.")
        out[key] = value
    return out


def stored_scaling(law: str, results_dir, where=None) -> StoredScaling:
    column, size, exponent = parse_law(law)
    filters = parse_where(where) if not isinstance(where, dict) else where
    try:
        rows = read_rows(results_dir)
    except SweepStoreError as exc:
        raise StoreConjectureError(str(exc)) from None
    except FileNotFoundError as exc:
        raise StoreConjectureError(f"--results: {exc}") from None
    rows = [r for r in rows if all(str(r[k]) == v for k, v in filters.items())]
    used, skipped = [], 0
    for r in rows:
        value = r[column]
        if r["status"] != "success" or value is None or not math.isfinite(value) or value <= 0:
            skipped += 1
            continue
        used.append((r[size], value))
    if not used:
        raise StoreConjectureError(f"--results: no stored row with a positive {column}"
                                   + (f" matching {filters}" if filters else "") + ".")
    counts: dict = {}
    for x, _ in used:
        counts[x] = counts.get(x, 0) + 1
    try:
        fit = fit_power_law([x for x, _ in used], [y for _, y in used])
    except FitError as exc:  # valid store, too little in it to decide: undecided, not bad input
        return StoredScaling(law, column, size, exponent, None, counts, skipped, note=str(exc))
    return StoredScaling(law, column, size, exponent, fit, counts, skipped)
