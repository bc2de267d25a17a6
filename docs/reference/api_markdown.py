"""The API reference as plain Markdown, for readers of the repository (GitHub, an editor).

    python docs/reference/api_markdown.py           # rewrite docs/reference/api-md/
    python docs/reference/api_markdown.py --check   # exit 1 if a page differs

The site's API pages (``docs/reference/api/*.md``) are prose around autodoc directives,
which only Sphinx expands: read as Markdown they show the directives. This script writes
each page again into ``docs/reference/api-md/`` with every directive replaced by what it
documents, from the same docstrings: the signature, the docstring (numpydoc sections as
lists, reStructuredText literals as code) and, for a class, its public methods and
properties (``:members:`` and ``:no-members:`` as autodoc reads them). The site leaves
that directory out; ``tests/project/test_docs.py`` fails when it is stale.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "reference" / "api"
OUT = ROOT / "docs" / "reference" / "api-md"
SITE_NOTE = ("*Generated from the docstrings by `docs/reference/api_markdown.py` (do not "
             "edit): the [site's page](../api/{page}) is the same text with "
             "cross-references.*")

_DIRECTIVE = re.compile(r"^\.\. (?P<kind>auto[a-z]+):: +(?P<target>\S+)\s*$")
_OPTION = re.compile(r"^[ \t]+:(?P<name>[a-z-]+):(?P<value>.*)$")
_SECTION = re.compile(r"^(?P<title>[A-Z][A-Za-z ]+)\n-{3,}\n", re.M)
_LIST_SECTIONS = ("Parameters", "Attributes", "Returns", "Yields", "Raises",
                  "Other Parameters", "Keyword Arguments")


# -- objects -------------------------------------------------------------------------------
def resolve(target: str):
    """The object a directive names, imported as autodoc does (the longest importable
    module prefix, then attributes)."""
    from verify.moved import new_path

    parts = target.split(".")
    for cut in range(len(parts), 0, -1):
        if new_path(".".join(parts[:cut])):
            continue  # an old module path (`verify.moved`): `verify.check` is the function
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(f"{target}: no module in its path")


def signature(name: str, obj) -> str:
    try:
        sig = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return name
    return f"{name}{sig}"


def doc_comment(target: str) -> str:
    """The ``#:`` comment of a module-level name (before its assignment or on its line)."""
    module_name, _, name = target.rpartition(".")
    module = importlib.import_module(module_name)
    lines = inspect.getsource(module).splitlines()
    for node in ast.parse("\n".join(lines)).body:
        targets = (node.targets if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, ast.AnnAssign) else [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            k = node.lineno - 1
            same = lines[k].partition("#:")[2].strip()
            above = []
            while k > 0 and lines[k - 1].strip().startswith("#:"):
                k -= 1
                above.insert(0, lines[k].strip()[2:].strip())
            return " ".join(above) or same
    return ""


# -- docstrings as Markdown ----------------------------------------------------------------
def inline(text: str) -> str:
    """reStructuredText inline markup as Markdown: roles and ``literals`` as code."""
    text = re.sub(r":[a-z:]+:`~?([^`]+)`", r"`\1`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return re.sub(r"`~([^`]+)`", r"`\1`", text)


def _dedent(lines: list[str]) -> list[str]:
    indents = [len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()]
    cut = min(indents) if indents else 0
    return [ln[cut:] for ln in lines]


def _list_section(body: str) -> list[str]:
    """A numpydoc list ("name : type" then an indented description) as Markdown items."""
    items: list[list[str]] = []
    for line in body.splitlines():
        if line.strip() and not line.startswith((" ", "\t")):
            items.append([line.strip(), ""])
        elif items and line.strip():
            items[-1][1] += " " + line.strip()
    out = []
    for head, text in items:
        name, _, kind = head.partition(" : ")
        kind = f" ({inline(kind.strip())})" if kind.strip() else ""
        out.append(f"- `{name.strip()}`{kind}: {inline(text.strip())}".rstrip(": "))
    return out


def _prose(body: str) -> list[str]:
    """Paragraphs with literal blocks (``::`` and ``>>>`` examples) fenced."""
    out: list[str] = []
    lines = body.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.lstrip().startswith(">>>"):
            block = []
            while k < len(lines) and lines[k].strip():
                block.append(lines[k])
                k += 1
            out += ["```python", *_dedent(block), "```"]
            continue
        if line.rstrip().endswith("::") and not line.strip().startswith(".."):
            out.append(inline(line.rstrip()[:-1].rstrip()) + (":" if line.strip() != "::"
                                                                else ""))
            k += 1
            while k < len(lines) and not lines[k].strip():
                k += 1
            base = len(line) - len(line.lstrip())
            block = []
            while k < len(lines) and (not lines[k].strip()
                                      or len(lines[k]) - len(lines[k].lstrip()) > base):
                block.append(lines[k])
                k += 1
            while block and not block[-1].strip():
                block.pop()
            out += ["```", *_dedent(block), "```", ""]
            continue
        out.append(inline(line.strip()) if line.strip() else "")
        k += 1
    return out


def docstring_markdown(doc: str) -> list[str]:
    """A numpydoc docstring as Markdown lines."""
    if not doc:
        return []
    parts = _SECTION.split(doc)
    out = _prose(parts[0].strip())
    for title, body in zip(parts[1::2], parts[2::2], strict=True):
        out += ["", f"**{title}**", ""]
        body = "\n".join(_dedent(body.strip("\n").splitlines()))
        out += _list_section(body) if title in _LIST_SECTIONS else _prose(body)
    return out


# -- directives ----------------------------------------------------------------------------
def _members(obj, option: str | None) -> list[tuple[str, object]]:
    """The public methods and properties a class directive shows (autodoc's rule: every
    documented public member defined on the class, or the ``:members:`` list)."""
    if option is not None and option.strip():
        names = [n.strip() for n in option.split(",")]
    else:
        names = [n for n, v in vars(obj).items() if not n.startswith("_")
                 and (inspect.isfunction(v) or isinstance(v, (property, classmethod,
                                                               staticmethod)))]
    out = []
    for name in names:
        member = inspect.getattr_static(obj, name)
        if isinstance(member, (classmethod, staticmethod)):
            member = member.__func__
        if inspect.getdoc(member) and not (dataclasses.is_dataclass(obj) and name in
                                           {f.name for f in dataclasses.fields(obj)}):
            out.append((name, member))
    return out


def directive_markdown(kind: str, target: str, options: dict) -> list[str]:
    """What one autodoc directive documents, as Markdown lines."""
    obj = resolve(target)
    short = target
    if kind == "automodule":
        out = [f"### `{target}`", ""] + docstring_markdown(inspect.getdoc(obj) or "")
        if "no-members" in options:
            return out + [""]
        names = ([n.strip() for n in options["members"].split(",")] if options.get("members")
                 else list(getattr(obj, "__all__", [])))
        for name in names:
            member = getattr(obj, name)
            sub = ("autoclass" if inspect.isclass(member) else "autofunction"
                   if callable(member) else "autodata")
            out += directive_markdown(sub, f"{target}.{name}", {})
        return out
    if kind == "autodata":
        value = "" if "no-value" in options else f" = {obj!r}"
        doc = doc_comment(target) or ""
        return [f"### `{short}`", "", f"`{target.rsplit('.', 1)[-1]}{value}`", "",
                *_prose(inline(doc)), ""]
    head = ("exception " if kind == "autoexception" else "class " if kind == "autoclass"
            else "")
    out = [f"### `{short}`", "", f"```python\n{head}{signature(target.rsplit('.', 1)[-1], obj)}"
           f"\n```", ""] + docstring_markdown(inspect.getdoc(obj) or "") + [""]
    if kind in ("autoclass", "autoexception") and "no-members" not in options:
        for name, member in _members(obj, options.get("members")):
            what = ("property" if isinstance(member, property) else
                    signature(name, member))
            label = f"{name} (property)" if what == "property" else what
            out += [f"#### `{short}.{label}`" if what == "property"
                    else f"#### `{short}.{name}`", ""]
            if what != "property":
                out += [f"```python\n{what}\n```", ""]
            out += docstring_markdown(inspect.getdoc(member) or "") + [""]
    return out


def rst_block(block: str) -> list[str]:
    """An ``{eval-rst}`` block's directives as Markdown."""
    lines = block.splitlines()
    out = []
    for k, line in enumerate(lines):
        found = _DIRECTIVE.match(line)
        if not found:
            continue
        options = {}
        for follow in lines[k + 1:]:
            option = _OPTION.match(follow)
            if not option:
                break
            options[option["name"]] = option["value"].strip()
        out += directive_markdown(found["kind"], found["target"], options)
    return out


def page_markdown(path: Path) -> str:
    """One API page with its directives written out (its toctree as a list of links)."""
    text = path.read_text(encoding="utf-8")

    def toctree(m: re.Match) -> str:
        entries = [e.strip() for e in m.group(1).splitlines()
                   if e.strip() and not e.strip().startswith(":")]
        return "".join(f"- [{e}]({e}.md)\n" for e in entries)

    text = re.sub(r"```\{toctree\}\n(.*?)```\n", toctree, text, flags=re.S)
    text = re.sub(r"```\{eval-rst\}\n(.*?)```\n",
                  lambda m: "\n".join(rst_block(m.group(1))).rstrip() + "\n", text, flags=re.S)
    title, _, rest = text.partition("\n")
    return f"{title}\n\n{SITE_NOTE.format(page=path.name)}\n{rest}".rstrip() + "\n"


def pages() -> dict[Path, str]:
    """Where each generated page goes -> its text."""
    return {OUT / p.name: page_markdown(p) for p in sorted(API.glob("*.md"))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a generated page differs from the docstrings")
    args = parser.parse_args(argv)
    fresh = pages()
    if args.check:
        stale = sorted(str(p.relative_to(ROOT)) for p, text in fresh.items()
                       if not p.exists() or p.read_text(encoding="utf-8") != text)
        extra = sorted(str(p.relative_to(ROOT)) for p in OUT.glob("*.md") if p not in fresh)
        for name in stale + extra:
            print(f"{name}: stale; run `python docs/reference/api_markdown.py`")
        return 1 if stale or extra else 0
    OUT.mkdir(exist_ok=True)
    for path, text in fresh.items():
        path.write_text(text, encoding="utf-8")
    for path in OUT.glob("*.md"):
        if path not in fresh:
            path.unlink()
    print(f"wrote {len(fresh)} pages into {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
