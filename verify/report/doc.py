"""A small document model for the report, rendered to Markdown, self-contained HTML and a
LaTeX fragment.

Blocks are small classes, each rendering itself: `Heading` (level, text, optional
anchor), `Paragraph`, `Bullets` (items), `Table` (header, rows, optional row anchors),
`Figure` (path, alt, optional anchor), `Math` (LaTeX), `Code` (preformatted text) and
`Html` (markup the report itself builds, shown in the HTML only). (A tuple
``("h", level, text)``, ``("p", text)``, ... as written by packs before these classes is
still read, through `block`.)

Text is Markdown (CommonMark: ``**bold**``, ``*emphasis*``, backticks for code,
``[text](#anchor)`` links), rendered by markdown-it-py with raw HTML disabled, so no
markup is ever shown raw and no text can inject HTML. Formulas become MathML
(latex2mathml; browsers typeset it natively, as vectors), falling back to the LaTeX
source in a ``<code>`` block when the converter cannot parse it. Figures are embedded as
base64 data URIs and scaled to the column, so the page needs no network access and no
other file. Every heading and figure has an ``id``: its explicit anchor, else the first
claim or experiment ID in its text (``S002-T1``, ``E-000-2``) when no earlier element has
it, else a slug of its text; `to_html` makes them unique within the page.
"""

from __future__ import annotations

import base64
import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from markdown_it import MarkdownIt


def number_text(x, spec: str = ".4g", *, missing: str = "-", nonfinite: str | None = None,
                exact_ints: bool = False, sci_outside: tuple[float, float] | None = None) -> str:
    """A number as report text, one rule for every section: None -> ``missing``; a string
    as it is; a non-finite float -> ``nonfinite`` (default: Python's "inf"/"nan"); an int
    exactly when ``exact_ints``; ``|x|`` outside ``sci_outside`` (low, high) in scientific
    notation with the digits of ``spec``; otherwise ``format(x, spec)``."""
    if x is None:
        return missing
    if isinstance(x, str):
        return x
    if isinstance(x, float) and not math.isfinite(x) and nonfinite is not None:
        return nonfinite
    if x == 0:
        x = abs(x)  # -0.0 reads as 0
    if exact_ints and isinstance(x, int):
        return str(x)
    if sci_outside is not None and x != 0 and not sci_outside[0] <= abs(x) < sci_outside[1]:
        digits = int(spec.strip(".g") or 4)
        return f"{x:.{digits - 1}e}"
    return format(x, spec)




# -- inline text -------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False})


_INLINE_MATH = re.compile(r"\$([^$\n]+)\$")


def inline_html(text) -> str:
    """``text`` (inline Markdown, with ``$...$`` for inline formulas) as HTML; raw HTML in
    it is escaped, never passed through."""
    pieces = _INLINE_MATH.split(str(text))
    out = []
    for i, piece in enumerate(pieces):
        if i % 2:
            out.append(mathml(piece, display="inline")
                       or f"<code>{html.escape(piece)}</code>")
        elif piece:
            out.append(_markdown().renderInline(piece))
    return "".join(out)


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
                  "#": r"\#", "^": r"\^{}", "_": r"\_", "%": r"\%", "~": r"\~{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}


def latex_escape(text: str) -> str:
    """Plain text as LaTeX text (every special character escaped)."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


_LATEX_WRAP = {"strong": (r"\textbf{", "}"), "em": (r"\emph{", "}"), "link": ("", "")}


def inline_latex(text) -> str:
    """``text`` (inline Markdown) as LaTeX: ``$...$`` formulas as they are, bold, emphasis
    and code kept, links as their text, everything else escaped."""
    pieces = _INLINE_MATH.split(str(text))
    return "".join(f"${p}$" if i % 2 else _markdown_latex(p) for i, p in enumerate(pieces))


def _markdown_latex(text: str) -> str:
    if not text:
        return ""
    out: list[str] = []
    for tok in _markdown().parseInline(text)[0].children or []:
        kind, _, edge = tok.type.rpartition("_")
        if tok.type == "text":
            out.append(latex_escape(tok.content))
        elif tok.type == "code_inline":
            out.append(r"\texttt{" + latex_escape(tok.content) + "}")
        elif tok.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif kind in _LATEX_WRAP and edge in ("open", "close"):
            out.append(_LATEX_WRAP[kind][0 if edge == "open" else 1])
        else:
            out.append(latex_escape(tok.content))
    return "".join(out)


_ID_IN_TEXT = re.compile(r"\b(?:E-(?:[A-Z]+\d*|\d+)-\d+|[A-Z]+\d+-[A-Z]+\d+[a-z]?)\b")


def slug(text: str) -> str:
    """An anchor for ``text``: lower case, runs of other characters as one hyphen."""
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "section"


def _data_uri(data: bytes, mime: str = "image/png") -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def mathml(latex: str, display: str = "block") -> str | None:
    """``latex`` as MathML (latex2mathml), or None when it cannot convert it."""
    from latex2mathml.converter import convert

    try:
        return convert(latex, display=display)
    except Exception:  # noqa: BLE001 - any parse failure falls back to the source
        return None


_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 76em; margin: 1em auto;
       padding: 0 1em; line-height: 1.45; color: #1f2328; }
h1, h2, h3, h4 { line-height: 1.2; scroll-margin-top: 0.5em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
.scroll { overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #bbb; padding: 2px 4px; text-align: left; vertical-align: top; }
th { background: #eee; position: sticky; top: 0; }
td.id, td:first-child, td.nowrap { white-space: nowrap; }
td.wrap { white-space: normal; }
td.wrap a, td.wrap code { white-space: nowrap; }
tr:target, li:target, :target > td { background: #fff3c4; }
code, pre { background: #f5f5f5; font-size: 0.9em; }
pre { padding: 0.5em; overflow-x: auto; }
img { max-width: 100%; height: auto; }
figure { margin: 1em 0; }
figcaption { font-size: 0.85em; color: #555; }
math { font-size: 1.1em; }
td math { font-size: 1em; }
math[display="block"] { margin: 0.6em 0; overflow-x: auto; }
nav.toc ul { columns: 2; }
.summary { border: 1px solid #bbb; border-radius: 6px; padding: 0.5em 1em; background: #fafafa; }
.HOLDS { color: #1a7f37; } .VIOLATED { color: #c62828; font-weight: bold; }
.INCONCLUSIVE { color: #b26a00; } .INAPPLICABLE { color: #666; }
"""

_OUTCOMES = ("HOLDS", "VIOLATED", "INCONCLUSIVE", "INAPPLICABLE")


class _Anchors:
    """The ids used so far on one page; each new one made unique."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.headings: list[tuple[int, str, str]] = []  # (level, text, id), page order

    def take(self, explicit: str | None, text: str) -> str:
        candidates = [explicit] if explicit else []
        candidates += _ID_IN_TEXT.findall(str(text))[:1] + [slug(text)]
        for c in candidates:
            if c not in self.used:
                self.used.add(c)
                return c
        base, n = candidates[-1], 2
        while f"{base}-{n}" in self.used:
            n += 1
        self.used.add(f"{base}-{n}")
        return f"{base}-{n}"


# -- blocks ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Heading:
    """A heading: ``# text`` in Markdown, ``<h1>``-``<h6>`` in HTML, a starred section,
    subsection, ... in LaTeX.

    Its HTML id is ``anchor``, else the first claim or experiment ID in ``text`` that no
    earlier element has (the report's summary links a section's experiment ID there),
    else a slug of ``text``.

    Attributes
    ----------
    level
        1 to 6: a section's heading is level 2 (``Heading(2, "Reproduction E-XYZ-1: ...")``),
        its parts 3 and below.
    text
        The heading's text (Markdown, ``$...$`` for a formula).
    anchor
        The heading's HTML id; None (the default): taken from ``text`` as above.
    """

    level: int
    text: str
    anchor: str | None = None

    def markdown(self) -> list[str]:
        """The block as Markdown lines (for index.md), a blank line last."""
        return ["#" * self.level + " " + self.text, ""]

    def html(self, anchors: _Anchors) -> str:
        """The block as HTML; ``anchors`` (the page's ids so far, kept by `to_html`) makes
        its ids unique."""
        ident = anchors.take(self.anchor, self.text)
        anchors.headings.append((self.level, self.text, ident))
        return f'<h{self.level} id="{html.escape(ident)}">{inline_html(self.text)}</h{self.level}>'

    def latex(self) -> str:
        """The block as LaTeX (`to_latex`)."""
        command = {1: "section", 2: "subsection", 3: "subsubsection"}.get(self.level, "paragraph")
        return f"\\{command}*{{{inline_latex(self.text)}}}\n"


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of text.

    Attributes
    ----------
    text
        CommonMark Markdown (``**bold**``, ``*emphasis*``, backticks for code, links),
        ``$...$`` for an inline formula (MathML in the HTML); raw HTML is escaped. Write a
        sympy relation in backticks, since ``**`` and ``*`` are Markdown.
    """

    text: str

    def markdown(self) -> list[str]:
        """The block as Markdown lines (for index.md), a blank line last."""
        return [self.text, ""]

    def html(self, anchors: _Anchors) -> str:
        """The block as HTML; ``anchors`` (the page's ids so far, kept by `to_html`) makes
        its ids unique."""
        return f"<p>{inline_html(self.text)}</p>"

    def latex(self) -> str:
        """The block as LaTeX (`to_latex`)."""
        return inline_latex(self.text) + "\n"


@dataclass(frozen=True)
class Bullets:
    """A bulleted list.

    Attributes
    ----------
    items
        The entries, each a line of Markdown text (as `Paragraph`'s ``text``).
    anchors
        An HTML id per item, in order (None: no id; fewer ids than items: the rest have
        none), for entries that are linked to. Empty (the default): no ids.
    """

    items: Sequence
    anchors: Sequence = ()  # an id per item (None: no id); for linkable entries

    def markdown(self) -> list[str]:
        """The block as Markdown lines (for index.md), a blank line last."""
        return [f"- {item}" for item in self.items] + [""]

    def html(self, anchors: _Anchors) -> str:
        """The block as HTML; ``anchors`` (the page's ids so far, kept by `to_html`) makes
        its ids unique."""
        ids = list(self.anchors) + [None] * (len(self.items) - len(self.anchors))
        return "<ul>" + "".join(
            f'<li{_id_attr(anchors, i)}>{inline_html(item)}</li>'
            for item, i in zip(self.items, ids, strict=True)) + "</ul>"

    def latex(self) -> str:
        """The block as LaTeX (`to_latex`)."""
        if not self.items:
            return ""
        return ("\\begin{itemize}\n" + "".join(f"  \\item {inline_latex(i)}\n" for i in self.items)
                + "\\end{itemize}\n")


def _id_attr(anchors: _Anchors, ident: str | None) -> str:
    if not ident:
        return ""
    return f' id="{html.escape(anchors.take(ident, ident))}"'


def _cell(c) -> str:
    return str(c).replace("|", "\\|").replace("\n", " ")


_SLASH_IN_WORD = re.compile(r"(?<=[A-Za-z])/(?=[A-Za-z])")


def _table_cell_html(c, nowrap: bool = False, wrap: bool = False) -> str:
    s = str(c)
    classes = ([s] if s in _OUTCOMES else []) + (["nowrap"] if nowrap else []) \
        + (["wrap"] if wrap else [])
    cls = f' class="{" ".join(classes)}"' if classes else ""
    if wrap and "](" not in s:  # a line may break after the slash of trapping/monotonicity
        s = _SLASH_IN_WORD.sub("/\u200b", s)
    return f"<td{cls}>{inline_html(s)}</td>"


@dataclass(frozen=True)
class Table:
    """A table: a header row and rows of cells (each cell's text is Markdown; an outcome
    such as ``VIOLATED`` is coloured in the HTML).

    Attributes
    ----------
    header
        The column headings.
    rows
        The rows, each a sequence of cells as long as ``header`` (any value: shown as
        ``str(cell)``; format numbers with `number_text`).
    row_anchors
        An HTML id per row, in order (None: no id; fewer ids than rows: the rest have
        none), e.g. the claim id of a row. Empty (the default): no ids.
    latex_columns
        The LaTeX column spec (``"lrr"``, ``p{...}`` columns); "" (the default): ``l`` per
        column.
    nowrap
        The indices of the columns whose cells the HTML keeps on one line (numbers such
        as ``2e-101``, which a narrow column would break after the hyphen); () (the
        default): every cell wraps as the browser sees fit.
    wrap
        The indices of the columns whose cells the HTML breaks between words even where
        the page keeps a column whole (the first column), with links and code kept whole,
        and a word break allowed after a slash (``trapping/monotonicity``).
    """

    header: Sequence
    rows: Sequence
    row_anchors: Sequence = ()  # an id per row (None: no id), e.g. the claim id of a row
    latex_columns: str = ""  # the LaTeX column spec (default: "l" per column)
    nowrap: Sequence = ()  # columns kept on one line in the HTML
    wrap: Sequence = ()  # columns broken between words in the HTML (links kept whole)

    def markdown(self) -> list[str]:
        """The block as Markdown lines (for index.md), a blank line last."""
        out = ["| " + " | ".join(str(h) for h in self.header) + " |",
               "|" + "---|" * len(self.header)]
        out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in self.rows]
        return out + [""]

    def html(self, anchors: _Anchors) -> str:
        """The block as HTML; ``anchors`` (the page's ids so far, kept by `to_html`) makes
        its ids unique."""
        head = "".join(f"<th>{inline_html(h)}</th>" for h in self.header)
        ids = list(self.row_anchors) + [None] * (len(self.rows) - len(self.row_anchors))
        keep, wrap = set(self.nowrap), set(self.wrap)
        body = "".join(f"<tr{_id_attr(anchors, i)}>"
                       + "".join(_table_cell_html(c, k in keep, k in wrap)
                                 for k, c in enumerate(row))
                       + "</tr>" for row, i in zip(self.rows, ids, strict=True))
        return (f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
                f"<tbody>{body}</tbody></table></div>")

    def latex(self) -> str:
        """The block as LaTeX (`to_latex`)."""
        spec = self.latex_columns or "l" * len(self.header)
        head = " & ".join(inline_latex(h) for h in self.header) + r" \\"
        body = "".join(" & ".join(inline_latex(c) for c in row) + " \\\\\n" for row in self.rows)
        return ("{\\footnotesize\n\\begin{longtable}{" + spec + "}\n\\toprule\n" + head
                + "\n\\midrule\n\\endhead\n" + body + "\\bottomrule\n\\end{longtable}}\n")


@dataclass(frozen=True)
class Figure:
    """A figure: an image with its caption, embedded in the HTML as a data URI.

    Attributes
    ----------
    path
        The image file, a PNG (or SVG): for a report section, one it wrote into ``out``
        (`verify.results.figures.save_png`) and lists in its
        `~verify.report.reproduction.Reproduction`'s ``figures``. Markdown links
        to its name (index.md is written beside it); LaTeX includes the path as given.
    alt
        The caption (Markdown), also the image's alt text.
    anchor
        The figure's HTML id; None (the default): ``fig-`` and a slug of the file's name.
    """

    path: str | Path
    alt: str
    anchor: str | None = None

    def markdown(self) -> list[str]:
        """The block as Markdown lines (for index.md), a blank line last."""
        return [f"![{self.alt}]({Path(self.path).name})", ""]

    def html(self, anchors: _Anchors) -> str:
        """The block as HTML; ``anchors`` (the page's ids so far, kept by `to_html`) makes
        its ids unique."""
        path = Path(self.path)
        ident = anchors.take(self.anchor or f"fig-{slug(path.stem)}", "figure")
        data = _data_uri(path.read_bytes(), "image/svg+xml" if path.suffix == ".svg"
                         else "image/png")
        return (f'<figure id="{html.escape(ident)}"><img src="{data}" '
                f'alt="{html.escape(self.alt)}"><figcaption>{inline_html(self.alt)}'
                f"</figcaption></figure>")

    def latex(self) -> str:
        """The figure at its path as given (relative to the LaTeX file), e.g. a PDF."""
        path = Path(self.path)
        where = "" if str(path.parent) == "." else f"{path.parent.as_posix()}/"
        return ("\\begin{figure}[htbp]\n\\centering\n\\includegraphics[width=\\linewidth]{"
                + f"{where}{path.name}" + "}\n\\caption{" + inline_latex(self.alt)
                + "}\n\\end{figure}\n")


@dataclass(frozen=True)
class Math:
    """A displayed formula.

    Attributes
    ----------
    latex_source
        The formula in LaTeX (no ``$$``): MathML in the HTML (the LaTeX source in a code
        block when the converter cannot parse it), ``$$ ... $$`` in Markdown, ``\\[ ... \\]``
        in LaTeX.
    """

    latex_source: str

    def markdown(self) -> list[str]:
        """The block as Markdown lines (for index.md), a blank line last."""
        return [f"$$ {self.latex_source} $$", ""]

    def html(self, anchors: _Anchors) -> str:
        """The block as HTML; ``anchors`` (the page's ids so far, kept by `to_html`) makes
        its ids unique."""
        markup = mathml(self.latex_source)
        if markup is None:
            return f"<pre><code>{html.escape(self.latex_source)}</code></pre>"
        return markup

    def latex(self) -> str:
        """The block as LaTeX (`to_latex`)."""
        return f"\\[ {self.latex_source} \\]\n"


@dataclass(frozen=True)
class Code:
    """Preformatted text (a command, a table of plain text), shown as it is.

    Attributes
    ----------
    text
        The text, lines and spaces kept; nothing in it is read as Markdown.
    """

    text: str

    def markdown(self) -> list[str]:
        """The block as Markdown lines (for index.md), a blank line last."""
        return ["```", self.text, "```", ""]

    def html(self, anchors: _Anchors) -> str:
        """The block as HTML; ``anchors`` (the page's ids so far, kept by `to_html`) makes
        its ids unique."""
        return f"<pre>{html.escape(self.text)}</pre>"

    def latex(self) -> str:
        """The block as LaTeX (`to_latex`)."""
        return "\\begin{verbatim}\n" + self.text + "\n\\end{verbatim}\n"


@dataclass(frozen=True)
class Html:
    """Markup the report builds itself (its summary box, table of contents): shown as it is
    in the HTML, as ``markdown`` (if any) in index.md, and left out of the LaTeX."""

    markup: str
    markdown_text: str = ""
    ids: tuple[str, ...] = field(default_factory=tuple)  # the ids the markup defines

    def markdown(self) -> list[str]:
        """The block as Markdown lines (for index.md), a blank line last."""
        return [self.markdown_text, ""] if self.markdown_text else []

    def html(self, anchors: _Anchors) -> str:
        """The block as HTML; ``anchors`` (the page's ids so far, kept by `to_html`) makes
        its ids unique."""
        anchors.used.update(self.ids)
        return self.markup

    def latex(self) -> str:
        """The block as LaTeX (`to_latex`)."""
        return ""


#: Any report block, an entry of a section's ``blocks``
#: (`verify.report.reproduction.Reproduction`), or the report's own `Html`.
Block = Heading | Paragraph | Bullets | Table | Figure | Math | Code | Html
_BY_KIND = {"h": Heading, "p": Paragraph, "list": Bullets, "table": Table, "img": Figure,
            "math": Math, "pre": Code}


def block(b) -> Block:
    """``b`` as a block: a block as it is, a tuple ``(kind, *fields)`` converted."""
    if isinstance(b, Block):
        return b
    if isinstance(b, tuple) and b and b[0] in _BY_KIND:
        return _BY_KIND[b[0]](*b[1:])
    raise ValueError(f"a report block must be one of Heading, Paragraph, Bullets, Table, "
                     f"Figure, Math, Code, Html (or a tuple whose kind is one of "
                     f"{sorted(_BY_KIND)}), got {b!r}")


def to_markdown(blocks) -> str:
    return "\n".join(line for b in blocks for line in block(b).markdown())


def to_html(blocks, title: str) -> str:
    """A self-contained HTML page: every figure embedded, formulas as MathML, no link out."""
    anchors = _Anchors()
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{html.escape(title)}</title>", f"<style>{_STYLE}</style>", "</head>",
           "<body>"]
    out += [block(b).html(anchors) for b in blocks]
    out += ["</body>", "</html>", ""]
    page = "\n".join(out)
    if CONTENTS_MARK in page:  # an `Html` block asked for the table of contents
        items = "".join(f'<li><a href="#{html.escape(ident)}">{inline_html(text)}</a></li>'
                        for level, text, ident in anchors.headings if level == 2)
        page = page.replace(CONTENTS_MARK, f"<ul>{items}</ul>", 1)
    return page


CONTENTS_MARK = "<!--contents-->"


LATEX_PACKAGES = ("amsmath", "amssymb", "array", "booktabs", "longtable", "graphicx")


def to_latex(blocks) -> str:
    """A LaTeX fragment for ``\\input`` (the preamble needs `LATEX_PACKAGES`)."""
    return "".join(block(b).latex() + "\n" for b in blocks)
