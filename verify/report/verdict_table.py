"""The report's verdict table: one row per claim and kind of data, in natural id order
(S001-L2 before S001-L10), each claim id linked to its catalogue entry; "where" split into
the instance, the time and the relation of the worst margin (in the paper's notation when
the relation is one of the claim's own); the reasons instances were not decided grouped,
with counts.
"""

from __future__ import annotations

import re
from functools import cache

import sympy as sp

from theory import registry
from theory.claim import render_latex
from theory.symbols import latex_names_for
from verify.findings import data_label
from verify.report.doc import number_text
from verify.report.front import base_id
from verify.table import FIT_HEADER, certified_cell, fit_cell

HEADER = ["claim", "kind", "verdict", "instances: outcomes", "worst margin", "error",
          "instance", "t", "relation"]
_OUTCOMES = ("HOLDS", "VIOLATED", "INCONCLUSIVE", "INAPPLICABLE")
def natural_key(text: str) -> tuple:
    """Sort key reading runs of digits as numbers: S001-L2 < S001-L10."""
    return tuple((0, int(tok), "") if tok.isdigit() else (1, 0, tok)
                 for tok in re.findall(r"\d+|\D+", text))


def split_where(row: dict) -> tuple[str, str, str]:
    """(instance with its seed, time, relation) where a row's worst margin was attained,
    from the parts `verify.table` records (a row without them: its whole ``where``)."""
    parts = row.get("where_parts")
    if not parts:
        return str(row.get("where", "")), "", ""
    instance = " ".join(x for x in (parts.get("instance") or "",
                                    "" if parts.get("seed") is None else f"seed={parts['seed']}")
                        if x)
    t = "" if parts.get("t") is None else number_text(parts["t"], ".4g")
    return instance, t, parts.get("part") or ""


@cache
def relation_latex(claim_id: str, part: str) -> str | None:
    """``part`` (a relation in sympy's text form) in the paper's notation, when it is one of
    the claim's own relations; else None."""
    try:
        claim = registry.get(base_id(claim_id))
    except KeyError:
        return None
    names = latex_names_for(claim.paper)
    exprs = [claim.statement] + ([claim.event] if getattr(claim, "event", None) is not None
                                 else [])
    for expr in exprs:
        for rel in sp.sympify(expr).atoms(sp.core.relational.Relational):
            if sp.sstr(rel) == part:
                return render_latex(rel, names)
    return None


def relation_cell(claim_id: str, part: str) -> str:
    """``part`` as report text: an inline formula in the paper's notation when it is one
    of the claim's relations, else code; empty when there is none."""
    if not part:
        return ""
    tex = relation_latex(claim_id, part)
    return f"${tex}$" if tex else f"`{part}`"


def rows(table: list[dict], catalogue_page: str = "catalogue.html"):
    """(header, rows, row anchors) of the verdict table: the first row of each claim is
    anchored at the claim's id. A suite run with ``--verify-certify`` adds a certified
    column (how many certified instances were PROVED, DISPROVED or UNCERTIFIED); limit
    checks add their fitted exponent with its band."""
    certified = any(r.get("certified") for r in table)
    fits = any(r.get("fit") for r in table)
    out, anchors, seen = [], [], set()
    for r in sorted(table, key=lambda r: (natural_key(r["claim"]), r.get("data", ""))):
        cid = base_id(r["claim"])
        instance, t, part = split_where(r)
        relation = relation_cell(r["claim"], part)
        margin = number_text(r["worst_margin"], ".3g", missing="", nonfinite="not finite")
        error = number_text(r["error"], ".1g", missing="", nonfinite="not finite")
        link = f"[{r['claim']}]({catalogue_page}#{cid})"
        if data_label(r.get("data")):
            link += f" ({data_label(r.get('data'))})"
        counts = ", ".join(f"{r[o]} {o}" for o in _OUTCOMES if r.get(o))
        out.append([link, r["kind"], r["verdict"], f"{r['instances']}: {counts or 'none'}",
                    margin, error] + ([fit_cell(r)] if fits else [])
                   + [f"`{instance}`" if instance else "", t, relation]
                   + ([certified_cell(r)] if certified else []))
        anchors.append(None if cid in seen else cid)
        seen.add(cid)
    header = HEADER[:6] + ([FIT_HEADER] if fits else []) + HEADER[6:]
    return header + (["certified"] if certified else []), out, anchors


def _reason_group(reason: str) -> str:
    """A reason without its instance's numbers: an assumption's failure as it is (the
    measured values are already cut off), else the text before ": <name> = <value>"."""
    if " fails: " in reason:
        return reason
    return re.split(r":\s*[^:]*=\s*[-+0-9.e]+", reason)[0]


def undecided(table: list[dict]) -> tuple[list[str], list[list[str]]]:
    """The reasons instances were not decided, grouped (one row per outcome and reason,
    the claims it came from with their counts, and the total)."""
    groups: dict[str, dict[str, int]] = {}
    for r in table:
        for reason, n in r.get("reasons", {}).items():
            key = _reason_group(reason)
            claims = groups.setdefault(key, {})
            claims[r["claim"]] = claims.get(r["claim"], 0) + n
    header = ["outcome: reason", "claims (instances)", "instances"]
    out = [[key, ", ".join(f"{c} ({n})" for c, n in sorted(claims.items(),
                                                           key=lambda kv: natural_key(kv[0]))),
            str(sum(claims.values()))]
           for key, claims in sorted(groups.items(), key=lambda kv: -sum(kv[1].values()))]
    return header, out
