"""Verdict tables: collect verdicts per claim and format them (text, Markdown, JSON).

Shared by the pytest plugin and the report, so both show the same table. Each claim's
row carries, under ``"figure"``, the ``figure_data`` of the instance its ``where`` names
(the worst margin; see `verify.engine.figure_data`) plus that instance's own ``"outcome"``, or
None when that instance has none: the
log keeps only that one per claim, so the table and the rows shipped between pytest-xdist
workers stay small.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from verify.engine.verdict import Outcome, Verdict, Where
from verify.errors import InputError
from verify.results.finding import DATA_KINDS, Finding, FindingError
from verify.results.sizes import row_size


@dataclass
class VerdictLog:
    """Verdicts recorded during a session, keyed by claim id.

    The pytest plugin's ``verdicts`` fixture is the session's log (`verify.front.plugin`): a
    test records with `record`, `record_mutant` and `finding`, and the table printed after
    the run (and written by ``--verify-json``/``--verify-md``) is `table`. In Jupyter the
    log shows as that table (HTML); `to_dataframe` gives it to pandas. A log of one's own
    (``VerdictLog()``) collects verdicts the same way outside pytest.

    Attributes
    ----------
    rows
        Claim id -> one dict per recorded instance (outcome, margin, error, where, reason,
        kind of data; the worst instance's figure data under ``"figure"``).
    kinds
        Claim id -> the kind given to `record` (``claim.kind.value``, such as
        "pointwise bound"); the table's ``kind`` column.
    mutants
        One dict per recorded mutant (``id``, ``caught``, ``outcome``), in recording order.
    findings
        One dict per recorded finding (`verify.results.findings.Finding.to_dict`), in recording
        order.
    profile
        The verification profile the verdicts were obtained at ("" when unknown): under
        ``paper`` each table row says at which sizes (`verify.results.sizes.row_size`).
    costs
        Claim id -> the CPU seconds of the largest run a test recording it asked for (the
        pytest plugin measures it through its runner, `verify.running.runs`); the table's
        ``run_cpu``.
    """

    rows: dict[str, list[dict]] = field(default_factory=lambda: defaultdict(list))
    kinds: dict[str, str] = field(default_factory=dict)
    mutants: list[dict] = field(default_factory=list)
    findings: list[dict] = field(default_factory=list)
    profile: str = ""
    costs: dict[str, float] = field(default_factory=dict)

    def __repr__(self) -> str:  # short: hypothesis prints the fixtures of a failing example
        return (f"VerdictLog({sum(map(len, self.rows.values()))} verdicts on "
                f"{len(self.rows)} claims, {len(self.mutants)} mutants)")

    def _repr_pretty_(self, printer, cycle) -> None:  # hypothesis's printer: the short repr
        printer.text(repr(self))

    def _repr_html_(self) -> str:
        """Jupyter shows the verdict table (one row per claim and kind of data)."""
        import html

        header = ("claim", "kind", "data", "instances", "HOLDS", "VIOLATED", "INAPPLICABLE",
                  "INCONCLUSIVE", "verdict", "worst_margin", "error", "where")
        head = "".join(f"<th>{h}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell(row.get(h)))}</td>"
                                        for h in header) + "</tr>" for row in self.table())
        return f"<table><tr>{head}</tr>{body}</table>"

    def to_dataframe(self):
        """The verdict table as a pandas DataFrame (``pip install 'gfverify[notebook]'``)."""
        return as_dataframe([{k: v for k, v in row.items() if k != "figure"}
                           for row in self.table()])

    def record(self, verdict: Verdict, kind: str = "", data: str = "simulated") -> Verdict:
        """Record a verdict (each of its instances is a row). ``data="published"`` marks a
        verdict decided on a published CSV: shown in its own row, never counted among the
        instances we simulated."""
        if data not in DATA_KINDS:
            raise InputError(f"data: {data!r} is not one of {DATA_KINDS}")
        members = verdict.instances or (verdict,)
        rows = self.rows[verdict.claim_id]
        for v in members:
            row = _row(v)
            row["data"] = data
            if v.figure_data is not None:
                # with the outcome on that instance (the row's verdict is over all of them)
                row["figure"] = {**v.figure_data, "outcome": v.outcome.value}
            rows.append(row)
        _keep_worst_figure(rows)
        if kind:
            self.kinds[verdict.claim_id] = kind
        return verdict

    def record_mutant(self, verdict: Verdict, caught: bool) -> Verdict:
        """Record a mutant's verdict (a deliberately wrong variant of a claim) and whether
        the check caught it (``caught``, the test's judgement: usually VIOLATED), for
        "mutants caught k/N" (`verify.results.mutants`), never for the table. A mutant checked
        several times is caught when every check caught it. Its id must be declared (an
        installed pack's ``Pack.mutants``; the built-in roster
        ``verify/results/mutant_roster.txt``),
        else it is reported as undeclared. Returns ``verdict``."""
        self.mutants.append({"id": verdict.claim_id, "caught": bool(caught),
                             "outcome": verdict.outcome.value})
        return verdict

    def finding(self, finding: Finding, verdict: Verdict | None = None, kind: str = "") -> Finding:
        """Record a finding (measured by the calling test); with ``verdict``, also record the
        verdict it rests on in the table (VIOLATED rows stay visible there). A title that
        does not name the paper (`Finding.names_its_paper`) is a `FindingError`."""
        if not finding.names_its_paper():
            raise FindingError(f"finding {finding.id}: its title {finding.title!r} names none "
                               f"of {', '.join(finding.papers())}; a headline is read alone")
        if verdict is not None:
            self.record(verdict, kind, data=finding.data)
        self.findings.append(finding.to_dict())
        return finding

    def merge(self, payload: dict) -> None:
        """Add the rows, kinds, mutants and findings of another log's `payload` (a
        pytest-xdist worker's, shipped to the controller)."""
        for cid, rows in payload["rows"].items():
            self.rows[cid].extend(rows)
            _keep_worst_figure(self.rows[cid])
        self.kinds.update(payload["kinds"])
        self.mutants.extend(payload["mutants"])
        self.findings.extend(payload.get("findings", []))
        for cid, cost in payload.get("costs", {}).items():
            self.costs[cid] = max(self.costs.get(cid, 0.0), cost)

    def payload(self) -> dict:
        """The log as plain JSON data (rows, kinds, mutants, findings), for `merge`."""
        return {"rows": dict(self.rows), "kinds": self.kinds, "mutants": self.mutants,
                "findings": self.findings, "costs": self.costs}

    def table(self) -> list[dict]:
        """One row per claim and kind of data (our simulations; published data)."""
        out = []
        for cid in sorted(self.rows):
            for data in DATA_KINDS:
                rows = [r for r in self.rows[cid] if r.get("data", "simulated") == data]
                if rows:
                    out.append(self._table_row(cid, data, rows))
        return out

    def _table_row(self, cid: str, data: str, rows: list[dict]) -> dict:
        counts = {o.value: sum(r["outcome"] == o.value for r in rows) for o in Outcome}
        worst = _worst(rows)
        fitted = worst if worst else _slowest_fit(rows)
        return {
            "claim": cid,
            "kind": self.kinds.get(cid, ""),
            "data": data,
            "instances": len(rows),
            **counts,
            "verdict": _overall(counts),
            "worst_margin": worst["margin"] if worst else None,
            "error": worst["error"] if worst else None,
            # where the worst margin was attained, or (no instance has a margin: limits
            # not decided) where the fit column's exponent was measured
            "where": fitted["where"] if fitted else "",
            "where_parts": fitted.get("where_parts") if fitted else None,
            "reasons": _reasons(rows),
            "figure": worst.get("figure") if worst else None,
            **_fit(fitted),
            **_certified(rows),
            **self._sizes(cid),
            **({"run_cpu": self.costs[cid]} if cid in self.costs else {}),
        }

    def _sizes(self, cid: str) -> dict:
        """The row's sizes under the paper profile (`verify.results.sizes.row_size`): {"size",
        "size_reason"}; nothing for the other profiles."""
        if self.profile != "paper":
            return {}
        got = row_size(cid, self.profile)
        return {"size": got["size"], "size_reason": got["reason"]}


def _row(v: Verdict) -> dict:
    row = {
        "outcome": v.outcome.value,
        "margin": None if math.isnan(v.margin) else float(v.margin),
        "error": None if math.isnan(v.error) else float(v.error),
        "where": str(v.where),
        "where_parts": _where_parts(v.where),
        "reason": v.reason,
    }
    if v.band is not None:  # a limit check's fitted exponent and its band
        row["fit"] = {"exponent": _float(v.observed), "lo": _float(v.band[0]),
                      "hi": _float(v.band[1])}
    if v.certificate:
        row["certified"] = v.certificate["outcome"]
        row["certified_reason"] = v.certificate.get("reason", "")
    return row


def _float(value) -> float | None:
    return None if value is None or not math.isfinite(float(value)) else float(value)


def _fit(worst: dict | None) -> dict:
    """A table row's fit (a limit check's fitted exponent and band), from the instance its
    ``where`` names; {} for a row without one."""
    return {"fit": worst["fit"]} if worst and worst.get("fit") else {}


def _slowest_fit(rows: list[dict]) -> dict | None:
    """Among instances with a fit and no margin (limits left INCONCLUSIVE: the sequence too
    short to extrapolate), the one whose exponent's band reaches lowest (the slowest
    approach measured); None when there is none."""
    fitted = [r for r in rows if r.get("fit") and r["fit"].get("lo") is not None]
    return min(fitted, key=lambda r: (r["fit"]["lo"], str(r.get("where", "")))) if fitted \
        else None


def fit_cell(r: dict) -> str:
    """The fit column's text: the fitted exponent and its 95% band ("1.00 [0.998, 1.00]");
    empty for a row that is not a limit check."""
    fit = r.get("fit")
    if not fit:
        return ""

    def num(v):
        return "?" if v is None else f"{v:.3g}"

    return f"{num(fit['exponent'])} [{num(fit['lo'])}, {num(fit['hi'])}]"


def _fits(table: list[dict]) -> bool:
    """Whether the table has a fit column (some row is a limit check with a fit)."""
    return any(r.get("fit") for r in table)


CERTIFIED = ("PROVED", "DISPROVED", "UNCERTIFIED")


def _certified(rows: list[dict]) -> dict:
    """A table row's certified counts (`verify.engine.certified`), when any instance was
    certified: {"certified": {PROVED: k, ...}, "certified_reasons": {why: count}}."""
    got = [r for r in rows if r.get("certified")]
    if not got:
        return {}
    counts = {o: sum(r["certified"] == o for r in got) for o in CERTIFIED}
    why: dict[str, int] = {}
    for r in got:
        if r["certified"] == "UNCERTIFIED" and r.get("certified_reason"):
            why[r["certified_reason"]] = why.get(r["certified_reason"], 0) + 1
    return {"certified": counts, "certified_reasons": why}


def certified_cell(r: dict) -> str:
    """The certified column's text: how many of the certified instances came out each way
    ("2 PROVED", "1 DISPROVED, 1 UNCERTIFIED"); empty where none was certified."""
    counts = r.get("certified") or {}
    return ", ".join(f"{counts[o]} {o}" for o in CERTIFIED if counts.get(o))


def _where_parts(where) -> dict | None:
    """A `Where`'s fields (instance, seed, finite time, relation) as plain JSON."""
    if not isinstance(where, Where):
        return None
    t = where.t if where.t is not None and math.isfinite(where.t) else None
    seed = where.seed if where.seed is None or isinstance(where.seed, str) else int(where.seed)
    return {"instance": str(where.instance), "seed": seed, "t": None if t is None else float(t),
            "part": str(where.part)}


def _worst(rows: list[dict]) -> dict | None:
    ranked = [r for r in rows if r["margin"] is not None
              and r["outcome"] in ("HOLDS", "VIOLATED", "INCONCLUSIVE")]
    # ties (equal margins, e.g. an identity exact on every instance) go to the first
    # "where" in text order, not to whichever xdist worker reported first
    return min(ranked, key=lambda r: (r["margin"], str(r.get("where", "")))) if ranked else None


def _keep_worst_figure(rows: list[dict]) -> None:
    """Drop the figure data of every row but the one `_worst` picks (the table's ``where``),
    per kind of data (each has its own table row)."""
    for data in DATA_KINDS:
        group = [r for r in rows if r.get("data", "simulated") == data]
        worst = _worst(group)
        for r in group:
            if r is not worst:
                r.pop("figure", None)


def _reasons(rows: list[dict]) -> dict[str, int]:
    """How often each reason was given for INAPPLICABLE and INCONCLUSIVE outcomes."""
    out: dict[str, int] = {}
    for r in rows:
        if r["outcome"] in ("INAPPLICABLE", "INCONCLUSIVE") and r["reason"]:
            key = f"{r['outcome']}: {r['reason'].split(' with ')[0]}"
            out[key] = out.get(key, 0) + 1
    return out


def _overall(counts: dict[str, int]) -> str:
    for outcome in ("VIOLATED", "INCONCLUSIVE", "HOLDS", "INAPPLICABLE"):
        if counts[outcome]:
            return outcome
    return "-"


def _data_cell(r: dict) -> str:
    return {"published": "published", "recorded": "recorded"}.get(r.get("data"), "sim")


def _margin_cell(r: dict) -> str:
    margin = "" if r["worst_margin"] is None else f"{r['worst_margin']:.3g}"
    if r["error"] is not None and margin:
        margin += f" (err {r['error']:.1g})"
    return margin


def _certifies(table: list[dict]) -> bool:
    """Whether the table has a certified column (some row was certified)."""
    return any(r.get("certified") for r in table)


def _sized(table: list[dict]) -> bool:
    """Whether the table has a size column (the paper profile's rows say their sizes)."""
    return any("size" in r for r in table)


def _cells(r: dict, certified: bool, where=str, fits: bool = False,
           sized: bool = False) -> list[str]:
    """One row's cells in the table's column order (`VERDICT_HEADER`, with the fit column of
    limit checks before where, then certified, then size under the paper profile, where the
    table has them)."""
    cells = [r["claim"], r["kind"], _data_cell(r), str(r["instances"]), str(r["HOLDS"]),
             str(r["VIOLATED"]), str(r["INAPPLICABLE"]), str(r["INCONCLUSIVE"]),
             r["verdict"], _margin_cell(r)]
    if fits:
        cells.append(fit_cell(r))
    cells.append(where(r["where"]))
    cells = cells + [certified_cell(r)] if certified else cells
    return cells + [_size_cell(r)] if sized else cells


def _size_cell(r: dict) -> str:
    """The sizes a row's verdicts were obtained at, and why below the paper's (if so)."""
    size = r.get("size") or "not declared"
    return f"{size} (below the paper's: {r['size_reason']})" if r.get("size_reason") else size


def _notes(table: list[dict]) -> list[str]:
    """Why instances were not decided, and why certified ones were not certified."""
    notes = [f"{r['claim']}: {n} x {reason}" for r in table
             for reason, n in r.get("reasons", {}).items()]
    notes += [f"{r['claim']}: {n} x UNCERTIFIED: {reason}" for r in table
              for reason, n in r.get("certified_reasons", {}).items()]
    return notes


def format_table(table: list[dict]) -> list[str]:
    certified, fits, sized = _certifies(table), _fits(table), _sized(table)
    head = ("claim", "kind", "data", "inst", "HOLDS", "VIOL", "INAPP", "INCONC", "verdict",
            "worst margin") + ((FIT_HEADER,) if fits else ()) + (
        "where",) + (("certified",) if certified else ()) + (("size",) if sized else ())
    lines = [head] + [tuple(_cells(r, certified, fits=fits, sized=sized)) for r in table]
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            for row in lines]


def markdown_table(table: list[dict]) -> str:
    certified, fits, sized = _certifies(table), _fits(table), _sized(table)
    header = verdict_header(table)
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    rows += ["| " + " | ".join(_cells(r, certified, _code_cell, fits, sized)) + " |"
             for r in table]
    notes = [f"- {n}" for n in _notes(table)]
    if notes:
        rows += ["", "Why instances were not decided:", "", *notes]
    return "\n".join(rows) + "\n"


def _code_cell(text) -> str:
    """A table cell holding a formula as code, so that Markdown reads none of its ``*`` or
    ``_`` as emphasis (a ``|`` escaped, as a GFM table cell needs even inside code)."""
    if not text:
        return ""
    text = str(text).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}"


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "" if value is None else str(value)


def as_dataframe(rows: list[dict]):
    """``rows`` as a pandas DataFrame, or an InputError saying how to install pandas."""
    try:
        import pandas as pd
    except ImportError:
        raise InputError("to_dataframe: needs pandas (pip install 'gfverify[notebook]')") \
            from None
    return pd.DataFrame(rows)


# -- the verdict table as report rows --------------------------------------------------------
VERDICT_HEADER = ["claim", "kind", "data", "instances", "HOLDS", "VIOLATED", "INAPPLICABLE",
                  "INCONCLUSIVE", "verdict", "worst margin", "where"]


def verdict_rows(table: list[dict]) -> tuple[list[list[str]], list[str]]:
    """Rows of the verdict table (as `verify.results.table.markdown_table`, with the fit column of
    limit checks, a certified column and the paper profile's size column where some row has
    them: `verdict_header`) and the notes on instances that were not decided."""
    certified, fits, sized = _certifies(table), _fits(table), _sized(table)
    return [_cells(r, certified, fits=fits, sized=sized) for r in table], _notes(table)


FIT_HEADER = "fit exponent [95% band]"


def verdict_header(table: list[dict]) -> list[str]:
    """The report's verdict table columns for ``table`` (`VERDICT_HEADER`, the fitted
    exponent and band of limit checks when some row is one, certified when some row was
    certified, and size under the paper profile)."""
    header = list(VERDICT_HEADER)
    if _fits(table):
        header.insert(header.index("where"), FIT_HEADER)
    return (header + (["certified"] if _certifies(table) else [])
            + (["size"] if _sized(table) else []))
