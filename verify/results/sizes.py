"""At which sizes the claims are checked: each pack's sizes table, per profile, beside the
paper's own experimental sizes.

A pack declares, in its ``families`` module, ``SIZES``: a tuple of `Sizes`, one per group
of checks that share their instances (the claims they check, the paper's size in words,
the numbers its tests read per profile). The tests read their sizes from it
(``sizes.at(verify_profile.name)``), so that the table says what ran. From these tables
come the verdict table's size column under the ``paper`` profile (`row_size`), the sizes
table of the findings page (`markdown`, with the cost of one run that
the paper profile's run measured, ``bench/paper_sizes.py --write``,
``verify/results/paper_costs.json``) and the line of
the report's first screen that says at which sizes its verdicts were obtained
(`profile_line`).

The ``paper`` profile's rule (`Sizes.meets_rule`): where the paper's size is larger than the
full profile's, the paper profile checks at least ten times the full profile's size or at
the paper's own, else the group says why (``reason``, shown on the row).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from theory import fields
from verify.instances.run_cost import duration_text
from verify.results.finding import Finding
from verify.running.profiles import PROFILES, per_profile

#: the factor the paper profile's size must reach over the full profile's (or the paper's)
FACTOR = 10


@dataclass(frozen=True)
class Sizes:
    """One group of a pack's checks and the sizes it runs at, per profile.

    Attributes
    ----------
    key
        The group's name, unique in the pack (``"weakly interacting data"``).
    claims
        The ids of the claims its checks record verdicts for.
    paper
        The paper's experimental size for these claims, in words, with where it is
        from (``"d = 100, n = 1,300-2,100, p = 36-38 (E-000-1)"``); or what stands for
        it when the paper ran none (``"none: the theory's statement for any n"``).
    paper_scale
        The paper's size as one number of the kind ``scale`` names (2,100 samples), or
        None when the paper gives no larger size (no factor is asked for then).
    scale
        The name of the number compared across profiles (``"n"``): a key of every
        profile's entry in ``at`` whose value (the largest, for a list) is the size.
    at
        Profile -> the numbers the group's tests read (a mapping; every profile of
        `verify.running.profiles.PROFILES` has one).
    shown
        Profile -> the size in words (``"n = 3-6, d = 4 n^2"``); every profile.
    reason
        Why the ``paper`` profile stops below the paper's size (the cost of one run, an
        assumption that fails there, ...): shown on the verdict table's row; required
        when the paper profile is below both ten times the full profile's size and the
        paper's.
    run
        ``run(profile) -> (problem, method, t_eval)``: the group's largest run at that
        profile (for one's own timing); None when not given.
    """

    key: str
    claims: tuple[str, ...]
    paper: str
    scale: str
    at: Mapping[str, Mapping[str, Any]]
    shown: Mapping[str, str]
    paper_scale: float | None = None
    reason: str = ""
    run: Callable[[str], tuple] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        owner = f"sizes {self.key!r}"
        fields.text(owner, "key", self.key, empty=False)
        object.__setattr__(self, "claims", fields.strings(owner, "claims", self.claims))
        for name in ("paper", "scale", "reason"):
            fields.text(owner, name, getattr(self, name))
        for name in ("at", "shown"):
            table = getattr(self, name)
            if not isinstance(table, Mapping) or set(table) != set(PROFILES):
                raise fields.fail(owner, name, f"a mapping with one entry per profile "
                                  f"{sorted(PROFILES)}", table)
            object.__setattr__(self, name, MappingProxyType(dict(table)))
        for prof, values in self.at.items():
            if not isinstance(values, Mapping) or self.scale not in values:
                raise fields.fail(owner, f"at[{prof!r}]", f"a mapping holding {self.scale!r}",
                                  values)
        if not self.meets_rule() and not self.reason:
            raise fields.fail(owner, "reason", f"why the paper profile's {self.scale} = "
                              f"{self.size('paper'):g} is below {FACTOR} x the full "
                              f"profile's ({self.size('full'):g}) and the paper's "
                              f"({self.paper_scale:g})", self.reason)

    def at_profile(self, profile: str) -> Mapping[str, Any]:
        """The numbers the tests read at ``profile`` (an unknown profile: an InputError)."""
        return per_profile(self.at, profile, f"sizes {self.key!r}")

    def size(self, profile: str) -> float:
        """The compared size at ``profile`` (the largest, when the entry is a list)."""
        value = self.at_profile(profile)[self.scale]
        if isinstance(value, list | tuple | range):
            return float(max(value))
        return float(value)

    def target(self) -> float | None:
        """The size the paper profile is asked to reach: min(paper's, 10 x full's), or
        None when the paper's size is not larger than the full profile's."""
        if self.paper_scale is None or self.paper_scale <= self.size("full"):
            return None
        return min(float(self.paper_scale), FACTOR * self.size("full"))

    def meets_rule(self) -> bool:
        """Whether the paper profile reaches `target` (or nothing is asked)."""
        goal = self.target()
        return goal is None or self.size("paper") >= goal

    def factor(self) -> float:
        """The paper profile's size over the full profile's."""
        return self.size("paper") / max(self.size("full"), 1e-300)


def declared() -> tuple[Sizes, ...]:
    """Every pack's sizes tables (``SIZES`` in its families module), in pack order."""
    from theory import packs

    out: list[Sizes] = []
    for _pack, module in packs.modules("families"):
        out.extend(getattr(module, "SIZES", ()) or ())
    return tuple(out)


def _base(claim_id: str) -> str:
    """A table row's claim without its variant (``BF25-L4[eps 1/10]`` -> ``BF25-L4``)."""
    return claim_id.split("[", 1)[0].strip()


def for_claim(claim_id: str, tables: tuple[Sizes, ...] | None = None) -> list[Sizes]:
    """The groups that check ``claim_id`` (its variants included)."""
    tables = declared() if tables is None else tables
    base = _base(claim_id)
    return [s for s in tables if base in s.claims]


def row_size(claim_id: str, profile: str, tables: tuple[Sizes, ...] | None = None) -> dict:
    """What the verdict table says of a claim's sizes at ``profile``: ``{"size": text,
    "reason": text}`` (empty texts when no group declares the claim)."""
    groups = for_claim(claim_id, tables)
    if not groups:
        return {"size": "", "reason": ""}
    size = "; ".join(f"{s.shown[profile]}" for s in groups)
    reasons = [s.reason for s in groups if profile == "paper" and s.reason]
    return {"size": size, "reason": "; ".join(dict.fromkeys(reasons))}


def paper_costs() -> dict:
    """The cost of one run per group and profile (``verify/results/paper_costs.json``, written by
    ``bench/paper_sizes.py V.json --write`` from a suite run's ``run_cpu``): {"measured":
    {...}, "groups": {key: {profile: seconds}}}; empty when absent."""
    from importlib import resources

    try:
        return json.loads(resources.files("verify.results").joinpath("paper_costs.json")
                          .read_text())
    except (OSError, ValueError):
        return {}


def _cost_cell(key: str, costs: dict) -> str:
    seconds = costs.get("groups", {}).get(key, {})
    cells = [f"{prof}: {duration_text(seconds[prof])}" for prof in ("full", "paper")
             if isinstance(seconds.get(prof), int | float)]
    return ", ".join(cells) if cells else "not measured"


HEADER = ["checks", "claims", "the paper's size", "full profile", "paper profile",
          "x full", "cost of one run (CPU)", "why not the paper's size"]


def table_rows(tables: tuple[Sizes, ...] | None = None, costs: dict | None = None
               ) -> list[list[str]]:
    """The sizes table, one row per group (the columns of `HEADER`): the group, its claims,
    the paper's size, the full and paper profiles' sizes, the factor between them, the cost
    of one run and the reason ("-" where there is none)."""
    tables = declared() if tables is None else tables
    costs = paper_costs() if costs is None else costs
    rows = []
    for s in tables:
        factor = f"{s.factor():.3g}" if s.size("full") > 0 else "-"
        rows.append([s.key, ", ".join(s.claims), s.paper, s.shown["full"], s.shown["paper"],
                     factor, _cost_cell(s.key, costs), s.reason or "-"])
    return rows


def markdown(tables: tuple[Sizes, ...] | None = None, costs: dict | None = None) -> str:
    """The sizes table as Markdown (the findings page's): the reasons, sentences long, are
    numbered notes under the table, so that its columns stay readable on a page."""
    costs = paper_costs() if costs is None else costs
    measured = costs.get("measured", {})
    header = HEADER[:-1]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes: list[str] = []
    for row in table_rows(tables, costs):
        *cells, reason = row
        if reason != "-":
            if reason not in notes:
                notes.append(reason)
            cells[0] += f" (why: note {notes.index(reason) + 1})"
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    if notes:
        lines += ["", f"{HEADER[-1][0].upper() + HEADER[-1][1:]}:", ""]
        lines += [f"{k}. {text}" for k, text in enumerate(notes, 1)]
    note = (f"Costs: the CPU seconds of the largest run a group's tests asked for (the "
            f"exact flow with its companion, or the descent with its half-step run), measured "
            f"by the suite's runner on {measured.get('date', '?')} "
            f"(`{measured.get('by', 'bench/paper_sizes.py')}`)."
            if measured else "Costs: not measured (`python bench/paper_sizes.py V.json "
            "--write` after `pytest verify --verify-profile paper --verify-json V.json`).")
    return "\n".join(lines) + "\n\n" + note + "\n"


def profile_line(profile: str, tables: tuple[Sizes, ...] | None = None) -> str:
    """One sentence for the report's first screen: at which sizes the verdicts were
    obtained."""
    tables = declared() if tables is None else tables
    if not tables:
        return f"Verdicts obtained at the `{profile}` profile's sizes."
    at_paper = sum(1 for s in tables if s.paper_scale is not None
                   and s.size(profile) >= s.paper_scale)
    larger = sum(1 for s in tables if s.paper_scale is not None
                 and s.paper_scale > s.size(profile))
    return (f"Verdicts obtained at the `{profile}` profile's sizes: {len(tables)} groups of "
            f"checks, {at_paper} at their paper's experimental size or above, {larger} "
            f"below it (the paper ran larger instances); each group's sizes, the paper's "
            f"and the cost of one run are in the sizes table of the findings page "
            f"(`verify.results.sizes`), and `--profile paper` checks at the papers' sizes where "
            f"affordable.")




def verdict_changes(small: dict, large: dict) -> list:
    """Findings where a claim's verdict at one profile's sizes differs from another's: one
    per verdict row (claim and kind of data) decided differently, with both instances (the
    worst margin and where). ``small``, ``large``: suite runs (`verify.results.findings.load_run`,
    or dicts with ``profile`` and ``claims``), e.g. the full profile's and the paper
    profile's."""
    def rows(run):
        return {(r["claim"], r.get("data", "simulated")): r for r in run.get("claims") or []}

    before, after = rows(small), rows(large)
    p0, p1 = small.get("profile") or "?", large.get("profile") or "?"
    out = []
    for key in sorted(set(before) & set(after)):
        a, b = before[key], after[key]
        if a["verdict"] == b["verdict"] or "-" in (a["verdict"], b["verdict"]):
            continue
        claim = key[0]
        base = _base(claim)

        def at(r, prof, claim=claim):
            margin = ("" if r.get("worst_margin") is None else
                      f", worst margin {r['worst_margin']:.3g} (error {r.get('error') or 0:.2g})"
                      f" at {r.get('where') or '?'}")
            size = row_size(claim, prof)["size"] or f"the {prof} profile's instances"
            return (f"{r['verdict']} at the {prof} profile ({size}; {r['instances']} "
                    f"instances{margin})")

        out.append(Finding(
            f"sizes-{base}", f"{claim}'s verdict changes with the instances' size: "
            f"{a['verdict']} at the {p0} profile, {b['verdict']} at the {p1} profile",
            f"{claim}: {at(a, p0)}; {at(b, p1)}.", claims=(base,),
            evidence={"small": {k: a.get(k) for k in ("verdict", "instances", "worst_margin",
                                                      "error", "where")} | {"profile": p0},
                      "large": {k: b.get(k) for k in ("verdict", "instances", "worst_margin",
                                                      "error", "where")} | {"profile": p1}},
            data=key[1] if key[1] in ("simulated", "published", "recorded") else "simulated"))
    return out


__all__ = ["FACTOR", "HEADER", "Sizes", "declared", "for_claim", "markdown", "paper_costs",
           "profile_line", "row_size", "table_rows", "verdict_changes"]
