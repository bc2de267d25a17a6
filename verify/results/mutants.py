"""The declared roster of mutants, and how a run is scored against it.

A mutant is a deliberately wrong variant of a claim (a constant halved, an exponent moved,
an assumption dropped) that its check must reject: VIOLATED on the evidence the true claim
is checked on. The roster lists every mutant id once (`ROSTER`, in
``verify/results/mutant_roster.txt``, one id per line: the variant's claim id, e.g.
``S000-A3~gamma0/2``). "mutants caught k/N" counts the roster, so a mutant that was
skipped, or whose test crashed before recording it, counts as not caught, never as absent.
A mutant id recorded by a run but missing from the roster is reported as undeclared.

A mutant checked on several instances is caught when every check of it was caught.
"""

from __future__ import annotations

from pathlib import Path

ROSTER_FILE = Path(__file__).with_name("mutant_roster.txt")


def roster(path: Path | None = None) -> tuple[str, ...]:
    """The ids in ``path``; by default the built-in roster and then the ``mutants`` the
    installed packs declare (`theory.packs`)."""
    if path is None:
        from theory import packs

        extra = tuple(m for pack in packs.installed() for m in pack.mutants)
        path = ROSTER_FILE
    else:
        extra = ()
    lines = [ln.strip() for ln in path.read_text().splitlines()]
    ids = tuple(ln for ln in lines if ln and not ln.startswith("#")) + extra
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ValueError(f"{path}: mutant ids listed twice: {dupes}")
    return ids


def score(records: list[dict], declared: tuple[str, ...] | None = None) -> dict:
    """``records``: what the run recorded (``{"id", "caught", ...}`` per check). Returns
    caught, total (the roster's size), checks, and the ids not run, not caught and
    undeclared."""
    declared = roster() if declared is None else declared
    by_id: dict[str, list[bool]] = {}
    for r in records:
        by_id.setdefault(r["id"], []).append(bool(r["caught"]))
    caught = sorted(i for i in declared if by_id.get(i) and all(by_id[i]))
    return {"caught": len(caught), "total": len(declared), "checks": len(records),
            "not_run": sorted(i for i in declared if i not in by_id),
            "not_caught": sorted(i for i in declared if by_id.get(i) and not all(by_id[i])),
            "undeclared": sorted(i for i in by_id if i not in declared)}


def summary_line(s: dict) -> str:
    line = f"mutants caught {s['caught']}/{s['total']} ({s['checks']} checks)"
    if s["not_run"]:
        line += f"; not run: {len(s['not_run'])} ({', '.join(s['not_run'][:4])}"
        line += ", ...)" if len(s["not_run"]) > 4 else ")"
    if s["not_caught"]:
        line += f"; NOT CAUGHT: {', '.join(s['not_caught'])}"
    if s["undeclared"]:
        line += (f"; undeclared (add to verify/results/mutant_roster.txt): "
                 f"{', '.join(s['undeclared'])}")
    return line
