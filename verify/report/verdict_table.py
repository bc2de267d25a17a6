"""The report's verdict table: one row per claim and kind of data, in natural id order
(S001-L2 before S001-L10), each claim id linked to its catalogue entry; "where" split into
the instance, the time and the relation of the worst margin (in the paper's notation when
the relation is one of the claim's own); the reasons instances were not decided grouped,
with counts.
"""

from __future__ import annotations

import html
import re
from functools import cache

import sympy as sp

from theory import registry
from theory.claim import render_latex
from theory.symbols import latex_names_for
from verify.report.doc import mathml, number_text
from verify.report.front import base_id
from verify.results.findings import data_label
from verify.results.table import FIT_HEADER, certified_cell, fit_cell

HEADER = ["claim", "kind", "verdict", "instances: outcomes", "worst margin", "error",
          "instance", "t", "relation"]
_OUTCOMES = ("HOLDS", "VIOLATED", "INCONCLUSIVE", "INAPPLICABLE")
#: The columns of numbers (worst margin, error, t), kept on one line (their places in
#: `HEADER`; `number_columns` finds them in a header with the fit or certified column).
NUMBER_COLUMNS = (4, 5, 7)
_NUMBER_NAMES = ("worst margin", "error", "t")
_WRAP_NAMES = ("claim", "kind", FIT_HEADER)


def number_columns(header: list[str]) -> tuple[int, ...]:
    """The places of the columns of single numbers in ``header`` (as `rows` returns it), kept
    on one line: the worst margin, the error and t."""
    return tuple(k for k, name in enumerate(header) if name in _NUMBER_NAMES)


def wrapped_columns(header: list[str]) -> tuple[int, ...]:
    """The places of the columns the HTML may break between words (`verify.report.doc.Table`'s
    ``wrap``): the claim (its id kept whole, a variant or data label on the next line), the
    kind and the fit (the exponent above its band), so that the table fits a 1,400 px
    window."""
    return tuple(k for k, name in enumerate(header) if name in _WRAP_NAMES)


def natural_key(text: str) -> tuple:
    """Sort key reading runs of digits as numbers: S001-L2 < S001-L10."""
    return tuple((0, int(tok), "") if tok.isdigit() else (1, 0, tok)
                 for tok in re.findall(r"\d+|\D+", text))


def split_where(row: dict) -> tuple[str, str, str]:
    """(instance with its seed, time, relation) where a row's worst margin was attained,
    from the parts `verify.results.table` records (a row without them: its whole ``where``)."""
    parts = row.get("where_parts")
    if not parts:
        return str(row.get("where", "")), "", ""
    instance = " ".join(x for x in (parts.get("instance") or "",
                                    "" if parts.get("seed") is None else f"seed={parts['seed']}")
                        if x)
    t = "" if parts.get("t") is None else number_text(parts["t"], ".4g")
    return instance, t, parts.get("part") or ""


_OPERATOR = {sp.LessThan: r"\le", sp.StrictLessThan: "<", sp.GreaterThan: r"\ge",
             sp.StrictGreaterThan: ">", sp.Equality: "=", sp.Unequality: r"\ne"}
#: A side of a relation longer than this (LaTeX characters) is split at its terms.
LONG_SIDE = 60


def _side_pieces(expr: sp.Basic, names: dict, lead: str = "", trail: str = "") -> list[str]:
    """An expression as pieces of LaTeX to set one after another, ``lead`` opening the
    first and ``trail`` closing the last: a long sum split at its terms (each but the first
    with its sign), a long max or min at its arguments, recursively; else whole."""
    whole = render_latex(expr, names)
    if len(whole) <= LONG_SIDE:
        return [f"{lead} {whole} {trail}".strip()]
    if isinstance(expr, sp.Add):
        parts = []
        for k, term in enumerate(sp.Add.make_args(expr)):
            negative = term.could_extract_minus_sign()
            sign = "-" if negative else ("+" if k else "")
            parts.append((f"{lead if k == 0 else ''} {sign}".strip(), -term if negative else term))
        out = []
        for k, (head, term) in enumerate(parts):
            out += _side_pieces(term, names, head, trail if k == len(parts) - 1 else "")
        return out
    if isinstance(expr, (sp.Max, sp.Min)):
        name = r"\max" if isinstance(expr, sp.Max) else r"\min"
        args = list(expr.args)
        out = []
        for k, arg in enumerate(args):
            head = f"{lead} {name}(" if k == 0 else ""
            tail = ")" + (f" {trail}" if trail else "") if k == len(args) - 1 else ","
            out += _side_pieces(arg, names, head.strip(), tail)
        return out
    return [f"{lead} {whole} {trail}".strip()]


def _matching_relation(claim, part: str) -> sp.Basic | None:
    """The claim's relation ``part`` names: the one whose sympy text it is, or, for an
    event time (``t_conv``: the part is the time's name), the bound on that time."""
    exprs = [claim.statement] + ([claim.event] if getattr(claim, "event", None) is not None
                                 else [])
    relations = [rel for expr in exprs
                 for rel in sp.sympify(expr).atoms(sp.core.relational.Relational)]
    for rel in relations:
        if sp.sstr(rel) == part:
            return rel
    named = [rel for rel in sp.sympify(claim.statement).atoms(sp.core.relational.Relational)
             if part in {s.name for s in rel.free_symbols}]
    return named[0] if part.isidentifier() and len(named) == 1 else None


@cache
def relation_pieces(claim_id: str, part: str) -> tuple[str, ...] | None:
    """``part`` in the paper's notation, as LaTeX pieces a line may break between (the
    left side, then the operator with the right side, long sums split at their terms),
    when it is one of the claim's relations or the name of its event time; else None."""
    try:
        claim = registry.get(base_id(claim_id))
    except KeyError:
        return None
    rel = _matching_relation(claim, part)
    if rel is None or type(rel) not in _OPERATOR:
        return None
    names = latex_names_for(claim.paper)
    return tuple(_side_pieces(rel.lhs, names)
                 + _side_pieces(rel.rhs, names, _OPERATOR[type(rel)]))


def relation_latex(claim_id: str, part: str) -> str | None:
    """``part`` (a relation in sympy's text form, or an event time's name) in the paper's
    notation, when it is one of the claim's own relations; else None."""
    pieces = relation_pieces(claim_id, part)
    return " ".join(pieces) if pieces else None


#: The most characters one formula piece may show in a table cell (about 300 px there);
#: a relation with a longer piece (a closed form's nested identity) is named, not set.
MAX_PIECE = 45


@cache
def shown_length(latex: str) -> int:
    """How many characters ``latex`` shows once typeset (its MathML's text)."""
    markup = mathml(latex, display="inline")
    if markup is None:
        return len(latex)
    return len(html.unescape(re.sub(r"<[^>]+>", "", markup)))


def relation_cell(claim_id: str, part: str, catalogue_page: str = "catalogue.html") -> str:
    """``part`` as report text: inline formulas in the paper's notation when it is one of
    the claim's relations (one formula per piece, so that a narrow column wraps between
    them instead of cutting a long relation off), else code; empty when there is none. A
    relation with a piece longer than `MAX_PIECE` is named by its place in the claim's
    catalogue entry (``catalogue_page``), where it is set in full."""
    if not part:
        return ""
    pieces = relation_pieces(claim_id, part)
    if pieces and max(shown_length(p) for p in pieces) > MAX_PIECE:
        cid = base_id(claim_id)
        return f"its relation in full: [{cid}]({catalogue_page}#{cid}) (too wide for a cell)"
    return " ".join(f"${p}$" for p in pieces) if pieces else f"`{part}`"


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
        relation = relation_cell(r["claim"], part, catalogue_page)
        margin = number_text(r["worst_margin"], ".3g", missing="", nonfinite="not finite")
        error = number_text(r["error"], ".1g", missing="", nonfinite="not finite")
        # the id is the link, a variant's label ([lam 4^-7]) after it, where a line may break
        variant = r["claim"][len(cid):].replace("[", "\\[").replace("]", "\\]")
        link = f"[{cid}]({catalogue_page}#{cid}){variant}"
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
