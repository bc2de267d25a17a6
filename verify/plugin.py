"""pytest plugin: verification profiles and the verdict table.

Registered under the ``pytest11`` entry point, so it is active whenever the
package is installed. Tests record verdicts through the ``verdicts`` fixture;
after the run the plugin prints one row per claim (instances, outcome counts,
worst margin and where) and, with ``--verify-json``/``--verify-md``, writes it.
Under pytest-xdist each worker ships its rows to the controller.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass, field

import pytest
from hypothesis import settings

from verify.profiles import get_profile, register_hypothesis_profiles
from verify.verdict import Outcome, Verdict

_WORKER_KEY = "gfverify_rows"


@dataclass
class VerdictLog:
    """Verdicts recorded during a session, keyed by claim id."""

    rows: dict[str, list[dict]] = field(default_factory=lambda: defaultdict(list))
    kinds: dict[str, str] = field(default_factory=dict)
    mutants: list[dict] = field(default_factory=list)

    def record(self, verdict: Verdict, kind: str = "") -> Verdict:
        members = verdict.instances or (verdict,)
        for v in members:
            self.rows[verdict.claim_id].append(_row(v))
        if kind:
            self.kinds[verdict.claim_id] = kind
        return verdict

    def record_mutant(self, verdict: Verdict, caught: bool) -> Verdict:
        self.mutants.append({"id": verdict.claim_id, "caught": bool(caught),
                             "outcome": verdict.outcome.value})
        return verdict

    def merge(self, payload: dict) -> None:
        for cid, rows in payload["rows"].items():
            self.rows[cid].extend(rows)
        self.kinds.update(payload["kinds"])
        self.mutants.extend(payload["mutants"])

    def payload(self) -> dict:
        return {"rows": dict(self.rows), "kinds": self.kinds, "mutants": self.mutants}

    def table(self) -> list[dict]:
        out = []
        for cid in sorted(self.rows):
            rows = self.rows[cid]
            counts = {o.value: sum(r["outcome"] == o.value for r in rows) for o in Outcome}
            worst = _worst(rows)
            out.append({
                "claim": cid,
                "kind": self.kinds.get(cid, ""),
                "instances": len(rows),
                **counts,
                "verdict": _overall(counts),
                "worst_margin": worst["margin"] if worst else None,
                "tolerance": worst["tolerance"] if worst else None,
                "where": worst["where"] if worst else "",
            })
        return out


def _row(v: Verdict) -> dict:
    return {
        "outcome": v.outcome.value,
        "margin": None if math.isnan(v.margin) else float(v.margin),
        "tolerance": None if math.isnan(v.tolerance) else float(v.tolerance),
        "where": str(v.where),
        "reason": v.reason,
    }


def _worst(rows: list[dict]) -> dict | None:
    ranked = [r for r in rows if r["margin"] is not None
              and r["outcome"] in ("HOLDS", "VIOLATED", "INCONCLUSIVE")]
    return min(ranked, key=lambda r: r["margin"]) if ranked else None


def _overall(counts: dict[str, int]) -> str:
    for outcome in ("VIOLATED", "INCONCLUSIVE", "HOLDS", "INAPPLICABLE"):
        if counts[outcome]:
            return outcome
    return "-"


def format_table(table: list[dict]) -> list[str]:
    head = ("claim", "kind", "inst", "HOLDS", "VIOL", "INAPP", "INCONC", "verdict",
            "worst margin", "where")
    lines = [head]
    for r in table:
        margin = "" if r["worst_margin"] is None else f"{r['worst_margin']:.3g}"
        if r["tolerance"] is not None and margin:
            margin += f" (err {r['tolerance']:.1g})"
        lines.append((r["claim"], r["kind"], str(r["instances"]), str(r["HOLDS"]),
                      str(r["VIOLATED"]), str(r["INAPPLICABLE"]), str(r["INCONCLUSIVE"]),
                      r["verdict"], margin, r["where"]))
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
            for row in lines]


def markdown_table(table: list[dict]) -> str:
    rows = ["| claim | kind | instances | HOLDS | VIOLATED | INAPPLICABLE | INCONCLUSIVE "
            "| verdict | worst margin | where |", "|" + "---|" * 10]
    for r in table:
        margin = "" if r["worst_margin"] is None else f"{r['worst_margin']:.3g}"
        if r["tolerance"] is not None and margin:
            margin += f" (err {r['tolerance']:.1g})"
        rows.append(f"| {r['claim']} | {r['kind']} | {r['instances']} | {r['HOLDS']} | "
                    f"{r['VIOLATED']} | {r['INAPPLICABLE']} | {r['INCONCLUSIVE']} | "
                    f"{r['verdict']} | {margin} | {r['where']} |")
    return "\n".join(rows) + "\n"


# -- pytest hooks ------------------------------------------------------------------------------
def pytest_addoption(parser):
    group = parser.getgroup("gfverify", "gfverify verification suite")
    group.addoption("--verify-profile", default="quick", choices=("quick", "full"),
                    help="instance counts and sizes of the verification suite (default quick)")
    group.addoption("--verify-json", default=None, metavar="PATH",
                    help="write the verdict table as JSON to PATH")
    group.addoption("--verify-md", default=None, metavar="PATH",
                    help="write the verdict table as Markdown to PATH")


def pytest_configure(config):
    register_hypothesis_profiles()
    name = config.getoption("--verify-profile")
    settings.load_profile(f"gfverify-{name}")
    config._gfverify_profile = get_profile(name)
    config._gfverify_log = VerdictLog()


@pytest.fixture(scope="session")
def verdicts(request) -> VerdictLog:
    """Record verdicts for the table printed after the run."""
    return request.config._gfverify_log


@pytest.fixture(scope="session")
def verify_profile(request):
    """The active verification profile (quick or full)."""
    return request.config._gfverify_profile


def pytest_sessionfinish(session):
    config = session.config
    if hasattr(config, "workeroutput"):  # xdist worker: ship rows to the controller
        config.workeroutput[_WORKER_KEY] = json.dumps(config._gfverify_log.payload())


def pytest_testnodedown(node, error):
    data = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
    if data:
        node.config._gfverify_log.merge(json.loads(data))


def pytest_terminal_summary(terminalreporter, config):
    if hasattr(config, "workeroutput"):
        return
    log: VerdictLog = config._gfverify_log
    table = log.table()
    if not table and not log.mutants:
        return
    terminalreporter.section("gfverify verdicts")
    for line in format_table(table):
        terminalreporter.write_line(line)
    if log.mutants:
        caught = sum(m["caught"] for m in log.mutants)
        terminalreporter.write_line(f"mutants caught {caught}/{len(log.mutants)}")
    if config.getoption("--verify-json"):
        with open(config.getoption("--verify-json"), "w") as fh:
            json.dump({"claims": table, "mutants": log.mutants}, fh, indent=2)
    if config.getoption("--verify-md"):
        with open(config.getoption("--verify-md"), "w") as fh:
            fh.write(markdown_table(table))
