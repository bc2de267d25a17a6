"""A small document model for the report, rendered to Markdown and to self-contained HTML.

Blocks are tuples: ``("h", level, text)``, ``("p", text)``, ``("list", items)``,
``("table", header, rows)``, ``("img", path, alt)``, ``("math", latex)``,
``("pre", text)``. Inline text may use backticks for code. In HTML, figures are
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


def to_markdown(blocks: list[tuple]) -> str:
    out: list[str] = []
    for b in blocks:
        kind = b[0]
        if kind == "h":
            out += ["#" * b[1] + " " + b[2], ""]
        elif kind == "p":
            out += [b[1], ""]
        elif kind == "list":
            out += [f"- {item}" for item in b[1]] + [""]
        elif kind == "table":
            header, rows = b[1], b[2]
            out.append("| " + " | ".join(header) + " |")
            out.append("|" + "---|" * len(header))
            out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
            out.append("")
        elif kind == "img":
            out += [f"![{b[2]}]({Path(b[1]).name})", ""]
        elif kind == "math":
            out += [f"$$ {b[1]} $$", ""]
        elif kind == "pre":
            out += ["```", b[1], "```", ""]
        else:  # pragma: no cover - a programming error
            raise ValueError(f"unknown block {kind!r}")
    return "\n".join(out)


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


def to_html(blocks: list[tuple], title: str) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{html.escape(title)}</title>", f"<style>{_STYLE}</style>", "</head>",
           "<body>"]
    for b in blocks:
        kind = b[0]
        if kind == "h":
            out.append(f"<h{b[1]}>{_inline(b[2])}</h{b[1]}>")
        elif kind == "p":
            out.append(f"<p>{_inline(b[1])}</p>")
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in b[1]) + "</ul>")
        elif kind == "table":
            head = "".join(f"<th>{html.escape(str(h))}</th>" for h in b[1])
            body = []
            for row in b[2]:
                cells = []
                for c in row:
                    s = str(c)
                    cls = f' class="{s}"' if s in ("HOLDS", "VIOLATED", "INCONCLUSIVE",
                                                    "INAPPLICABLE") else ""
                    cells.append(f"<td{cls}>{_inline(s)}</td>")
                body.append("<tr>" + "".join(cells) + "</tr>")
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>"
                       + "".join(body) + "</tbody></table>")
        elif kind == "img":
            data = Path(b[1]).read_bytes()
            out.append(f'<p><img src="{_data_uri(data)}" alt="{html.escape(b[2])}"></p>')
        elif kind == "math":
            png = math_png(b[1])
            if png is None:
                out.append(f"<pre><code>{html.escape(b[1])}</code></pre>")
            else:
                out.append(f'<p><img class="math" src="{_data_uri(png)}" '
                           f'alt="{html.escape(b[1])}" title="{html.escape(b[1])}"></p>')
        elif kind == "pre":
            out.append(f"<pre>{html.escape(b[1])}</pre>")
        else:  # pragma: no cover
            raise ValueError(f"unknown block {kind!r}")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)
