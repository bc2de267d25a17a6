"""A small document model for the report, rendered to Markdown and to self-contained HTML.

Blocks are small classes, each rendering itself: `Heading` (level, text), `Paragraph`,
`Bullets` (items), `Table` (header, rows), `Figure` (path, alt), `Math` (LaTeX) and `Code`
(preformatted text). (A tuple ``("h", level, text)``, ``("p", text)``, ... as written by
packs before these classes is still read, through `block`.) Inline text may use
backticks for code. In HTML, figures are
embedded as base64 data URIs and formulas as PNGs rendered by matplotlib's mathtext
(falling back to the LaTeX source in a ``<code>`` block when mathtext cannot parse
it), so the page needs no network access and no other file.
"""

from __future__ import annotations

import base64
import html
import io
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_CODE = re.compile(r"`([^`]*)`")


def number_text(x, spec: str = ".4g", *, missing: str = "-", nonfinite: str | None = None,
                exact_ints: bool = False, sci_outside: tuple[float, float] | None = None) -> str:
    """A number as report text, one rule for every section: None -> ``missing``; a string
    as it is; a non-finite float -> ``nonfinite`` (default: Python's "inf"/"nan"); an int
    exactly when ``exact_ints``; |x| outside ``sci_outside`` (low, high) in scientific
    notation with the digits of ``spec``; otherwise ``format(x, spec)``."""
    if x is None:
        return missing
    if isinstance(x, str):
        return x
    if isinstance(x, float) and not math.isfinite(x) and nonfinite is not None:
        return nonfinite
    if exact_ints and isinstance(x, int):
        return str(x)
    if sci_outside is not None and x != 0 and not sci_outside[0] <= abs(x) < sci_outside[1]:
        digits = int(spec.strip(".g") or 4)
        return f"{x:.{digits - 1}e}"
    return format(x, spec)


def _cell(c) -> str:
    return str(c).replace("|", "\\|").replace("\n", " ")


def _inline(text: str) -> str:
    parts = _CODE.split(str(text))
    return "".join(f"<code>{html.escape(p)}</code>" if i % 2 else html.escape(p)
                   for i, p in enumerate(parts))


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def math_png(latex: str, dpi: int = 110) -> bytes | None:
    """``latex`` rendered by matplotlib's mathtext, or None when it cannot parse it."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import mathtext

    buf = io.BytesIO()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mathtext.math_to_image(f"${latex}$", buf, dpi=dpi, format="png")
    except Exception:  # noqa: BLE001 - any parse/render failure falls back to the source
        return None
    return buf.getvalue()


_STYLE = """
body { font-family: sans-serif; max-width: 72em; margin: 1em auto; padding: 0 1em;
       line-height: 1.4; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #bbb; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #eee; }
code, pre { background: #f5f5f5; font-size: 0.9em; }
pre { padding: 0.5em; overflow-x: auto; }
img.math { vertical-align: middle; }
.HOLDS { color: #1a7f37; } .VIOLATED { color: #c62828; font-weight: bold; }
.INCONCLUSIVE { color: #b26a00; } .INAPPLICABLE { color: #666; }
"""



# -- blocks ----------------------------------------------------------------------------------
def _table_cell_html(c) -> str:
    s = str(c)
    cls = f' class="{s}"' if s in ("HOLDS", "VIOLATED", "INCONCLUSIVE", "INAPPLICABLE") else ""
    return f"<td{cls}>{_inline(s)}</td>"


@dataclass(frozen=True)
class Heading:
    level: int
    text: str

    def markdown(self) -> list[str]:
        return ["#" * self.level + " " + self.text, ""]

    def html(self) -> str:
        return f"<h{self.level}>{_inline(self.text)}</h{self.level}>"


@dataclass(frozen=True)
class Paragraph:
    text: str

    def markdown(self) -> list[str]:
        return [self.text, ""]

    def html(self) -> str:
        return f"<p>{_inline(self.text)}</p>"


@dataclass(frozen=True)
class Bullets:
    items: Sequence

    def markdown(self) -> list[str]:
        return [f"- {item}" for item in self.items] + [""]

    def html(self) -> str:
        return "<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in self.items) + "</ul>"


@dataclass(frozen=True)
class Table:
    header: Sequence
    rows: Sequence

    def markdown(self) -> list[str]:
        out = ["| " + " | ".join(str(h) for h in self.header) + " |",
               "|" + "---|" * len(self.header)]
        out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in self.rows]
        return out + [""]

    def html(self) -> str:
        head = "".join(f"<th>{html.escape(str(h))}</th>" for h in self.header)
        body = "".join("<tr>" + "".join(_table_cell_html(c) for c in row) + "</tr>"
                       for row in self.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


@dataclass(frozen=True)
class Figure:
    path: str | Path
    alt: str

    def markdown(self) -> list[str]:
        return [f"![{self.alt}]({Path(self.path).name})", ""]

    def html(self) -> str:
        data = Path(self.path).read_bytes()
        return f'<p><img src="{_data_uri(data)}" alt="{html.escape(self.alt)}"></p>'


@dataclass(frozen=True)
class Math:
    latex: str

    def markdown(self) -> list[str]:
        return [f"$$ {self.latex} $$", ""]

    def html(self) -> str:
        png = math_png(self.latex)
        if png is None:
            return f"<pre><code>{html.escape(self.latex)}</code></pre>"
        return (f'<p><img class="math" src="{_data_uri(png)}" '
                f'alt="{html.escape(self.latex)}" title="{html.escape(self.latex)}"></p>')


@dataclass(frozen=True)
class Code:
    text: str

    def markdown(self) -> list[str]:
        return ["```", self.text, "```", ""]

    def html(self) -> str:
        return f"<pre>{html.escape(self.text)}</pre>"


Block = Heading | Paragraph | Bullets | Table | Figure | Math | Code
_BY_KIND = {"h": Heading, "p": Paragraph, "list": Bullets, "table": Table, "img": Figure,
            "math": Math, "pre": Code}


def block(b) -> Block:
    """``b`` as a block: a block as it is, a tuple ``(kind, *fields)`` converted."""
    if isinstance(b, Block):
        return b
    if isinstance(b, tuple) and b and b[0] in _BY_KIND:
        return _BY_KIND[b[0]](*b[1:])
    raise ValueError(f"a report block must be one of Heading, Paragraph, Bullets, Table, "
                     f"Figure, Math, Code (or a tuple whose kind is one of "
                     f"{sorted(_BY_KIND)}), got {b!r}")


def to_markdown(blocks) -> str:
    return "\n".join(line for b in blocks for line in block(b).markdown())


def to_html(blocks, title: str) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{html.escape(title)}</title>", f"<style>{_STYLE}</style>", "</head>",
           "<body>"]
    out += [block(b).html() for b in blocks]
    out += ["</body>", "</html>", ""]
    return "\n".join(out)
