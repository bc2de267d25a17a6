"""The API reference documents what it shows, and shows what the packages export.

The objects are read off the autodoc directives of ``docs/reference/api/*.md`` (inside
``{eval-rst}`` blocks: ``autoclass``, ``autoexception``, ``autofunction``, ``autodata``,
``automodule``). Rules:

- every documented object has a docstring of its own (a dataclass's generated signature
  does not count); a module, function or class without one is named;
- a documented class's public methods and properties have a docstring (inherited from a
  base class counts, as autodoc shows it), unless its directive says ``:no-members:``;
- every field of a documented class (``dataclasses.fields``, a NamedTuple's ``_fields``;
  enum members are exempt) is named in the ``Attributes`` section of the class's
  docstring, with a description; a name in that section that is no field or attribute
  of the class is named too (a renamed field leaves one behind);
- one ``Attributes`` entry per attribute: napoleon renders ``lo, hi`` as one variable
  ``hi`` of type ``lo,``;
- ``autodata`` needs a doc comment (``#:`` before the assignment or on its line) or a
  docstring after it, in the module the directive names;
- the first line of a property's or a data's docstring has no colon outside ````code````:
  napoleon would print the text before it as the value's type;
- ``automodule`` without ``:no-members:``: its members (``:members:`` list, else
  ``__all__``, else the public functions, classes and data defined in the module) follow
  the rules above;
- every name in ``theory.__all__``, ``numerics.__all__`` and ``verify.__all__`` is on some
  API page (the same object), and every page is in the reference's toctree.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import importlib
import inspect
import re
import types
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "reference" / "api"
PACKAGES = ("theory", "numerics", "verify")

_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)\.\. (?P<kind>auto[a-z]+):: +(?P<target>\S+)\s*$")
_OPTION = re.compile(r"^[ \t]+:(?P<name>[a-z-]+):(?P<value>.*)$")
_MYST_AUTODOC = re.compile(r"^\s*[`:]{3,}\s*\{(auto[a-z]+)\}", re.M)


class Entry(NamedTuple):
    """One autodoc directive of an API page."""

    page: str
    line: int
    kind: str
    target: str
    options: dict

    def __str__(self) -> str:
        return f"{self.target} ({self.kind}, {self.page}:{self.line})"


def _pages() -> list[Path]:
    return sorted(p for p in API.glob("*.md"))


def parse_directives(text: str, page: str = "") -> list[Entry]:
    """The autodoc directives of a page, with their options."""
    lines = text.splitlines()
    out = []
    for k, line in enumerate(lines):
        m = _DIRECTIVE.match(line)
        if not m:
            continue
        options = {}
        for follow in lines[k + 1:]:
            opt = _OPTION.match(follow)
            if not opt:
                break
            options[opt["name"]] = opt["value"].strip()
        out.append(Entry(page, k + 1, m["kind"], m["target"], options))
    return out


def _entries() -> list[Entry]:
    out = []
    for page in _pages():
        out += parse_directives(page.read_text(encoding="utf-8"), page.name)
    return out


ENTRIES = _entries()


# -- resolving --------------------------------------------------------------------------
def resolve(kind: str, target: str):
    """The object a directive documents, imported as autodoc imports it: the module is the
    dotted path before the last name (or before the class for a member)."""
    if kind == "automodule":
        return importlib.import_module(target)
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        modname = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(modname)
        except ModuleNotFoundError as exc:
            if exc.name is not None and modname.startswith(exc.name) and exc.name != parts[0]:
                continue
            raise
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(f"{target}: no module in its path")


# -- docstrings -------------------------------------------------------------------------
def own_doc(obj) -> str:
    """``obj``'s docstring, "" when it has none of its own (a class does not inherit one,
    and a dataclass's or NamedTuple's generated signature is not one)."""
    if isinstance(obj, type):
        doc = obj.__dict__.get("__doc__")
        if not isinstance(doc, str):
            return ""
        generated = (dataclasses.is_dataclass(obj) or hasattr(obj, "_fields")
                     or issubclass(obj, enum.Enum))
        if generated and (doc.startswith(f"{obj.__name__}(") or doc == "An enumeration."):
            return ""
        return inspect.cleandoc(doc)
    doc = getattr(obj, "__doc__", None)
    return inspect.cleandoc(doc) if isinstance(doc, str) else ""


def _function_of(member):
    """The function behind a class member (method, static/class method, property), or
    None for data."""
    if isinstance(member, (staticmethod, classmethod)):
        return member.__func__
    if isinstance(member, property):
        return member.fget
    if isinstance(member, functools.cached_property):
        return member.func
    if isinstance(member, (types.FunctionType, functools._lru_cache_wrapper)):
        return member
    return None


def _member_doc(cls: type, name: str) -> str:
    """A member's docstring as autodoc shows it: its own, else the first base class's."""
    for klass in cls.__mro__:
        member = klass.__dict__.get(name)
        if member is None:
            continue
        func = _function_of(member)
        doc = getattr(member, "__doc__", None) if isinstance(member, property) else None
        doc = doc or (getattr(func, "__doc__", None) if func is not None else None)
        if doc and doc.strip():
            return inspect.cleandoc(doc)
    return ""


_CODE = re.compile(r"``.+?``|:[a-z:]+:`[^`]+`")


def colon_in_first_line(doc: str) -> bool:
    """Whether napoleon would split the first line of a property's or a data's docstring
    at a colon, printing the part before it as a type."""
    first = doc.strip().splitlines()[0] if doc.strip() else ""
    return re.search(r"(?<!:):(?!:)", _CODE.sub("", first)) is not None


def public_properties(cls: type) -> list[str]:
    """The public properties (plain or cached) a class defines itself."""
    return [name for name, member in vars(cls).items() if not name.startswith("_")
            and isinstance(member, (property, functools.cached_property))]


def public_methods(cls: type) -> list[str]:
    """The public methods and properties a class defines itself (not inherited)."""
    return [name for name, member in vars(cls).items()
            if not name.startswith("_") and _function_of(member) is not None]


def fields_of(cls: type) -> list[str]:
    """A dataclass's fields or a NamedTuple's, without private ones."""
    if dataclasses.is_dataclass(cls):
        return [f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")]
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return [f for f in cls._fields if not f.startswith("_")]
    return []


def attributes_section(doc: str) -> tuple[dict[str, str], list[str]] | None:
    """The NumPy-style ``Attributes`` section of ``doc``: (name -> description, malformed
    entry lines), or None when there is none. ``a, b`` and ``a : type`` are read."""
    lines = doc.splitlines()

    def is_header(k: int) -> bool:
        return (k + 1 < len(lines) and lines[k].strip() != ""
                and re.fullmatch(r"-{3,}", lines[k + 1].strip()) is not None
                and len(lines[k + 1].strip()) >= len(lines[k].strip()))

    for k, line in enumerate(lines):
        if line.strip() == "Attributes" and is_header(k):
            base = len(line) - len(line.lstrip())
            entries: dict[str, str] = {}
            malformed: list[str] = []
            current: list[str] = []
            j = k + 2
            while j < len(lines):
                text = lines[j]
                if is_header(j):
                    break
                indent = len(text) - len(text.lstrip())
                if text.strip() and indent <= base:
                    names = [n.strip().strip("`*") for n in text.split(" : ")[0].split(",")]
                    if not all(n.isidentifier() for n in names):
                        malformed.append(text.strip())
                        current = []
                    else:
                        current = names
                        for n in names:
                            entries.setdefault(n, "")
                elif text.strip() and current:
                    for n in current:
                        entries[n] = (entries[n] + " " + text.strip()).strip()
                j += 1
            return entries, malformed
    return None


def _known_attribute(cls: type, name: str) -> bool:
    if name in fields_of(cls) or hasattr(cls, name):
        return True
    for klass in cls.__mro__:
        if name in getattr(klass, "__annotations__", {}):
            return True
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return False
    return re.search(rf"\bself\.{re.escape(name)}\s*[:=]", source) is not None


def class_problems(cls: type, members: bool = True) -> list[str]:
    """What is missing from a class's documentation (empty: nothing)."""
    out = []
    doc = own_doc(cls)
    if not doc:
        out.append("no docstring")
    fields = fields_of(cls)
    section = attributes_section(doc) if doc else None
    if fields:
        if section is None:
            out.append(f"no Attributes section for its fields {', '.join(fields)}")
        else:
            entries, malformed = section
            missing = [f for f in fields if f not in entries]
            if missing:
                out.append(f"fields not in its Attributes section: {', '.join(missing)}")
            empty = [f for f in fields if f in entries and not entries[f]]
            if empty:
                out.append(f"fields without a description: {', '.join(empty)}")
            out += [f"malformed Attributes entry: {line!r}" for line in malformed]
    if section is not None:
        stale = [n for n in section[0] if not _known_attribute(cls, n)]
        if stale:
            out.append(f"its Attributes section names no attribute of it: {', '.join(stale)}")
    if members:
        undocumented = [m for m in public_methods(cls) if not _member_doc(cls, m)]
        if undocumented:
            out.append(f"methods or properties without a docstring: {', '.join(undocumented)}")
        split = [m for m in public_properties(cls) if colon_in_first_line(_member_doc(cls, m))]
        if split:
            out.append(f"properties whose docstring's first line has a colon (napoleon reads "
                       f"the text before it as a type): {', '.join(split)}")
    return out


def data_docs(module: types.ModuleType) -> dict[str, str]:
    """Module-level assignments and their doc comments (``#:`` lines before the
    assignment or on its first line, or a string right after it), as autodoc reads them;
    "" for an assignment without one."""
    source = inspect.getsource(module)
    lines = source.splitlines()
    body = ast.parse(source).body
    out: dict[str, str] = {}
    for k, node in enumerate(body):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        before, j = [], node.lineno - 2
        while j >= 0 and lines[j].lstrip().startswith("#:"):
            before.insert(0, lines[j].lstrip()[2:].strip())
            j -= 1
        same = re.search(r"#:\s*(.+)$", lines[node.lineno - 1])
        after = body[k + 1] if k + 1 < len(body) else None
        string = (after.value.value if isinstance(after, ast.Expr)
                  and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)
                  else "")
        doc = "\n".join(before) or (same[1] if same else "") or inspect.cleandoc(string)
        for name in names:
            out[name] = doc
    return out


def module_members(module: types.ModuleType, entry: Entry) -> list[str]:
    """The members an ``automodule`` directive documents."""
    listed = entry.options.get("members", "")
    if listed:
        return [n.strip() for n in listed.split(",") if n.strip()]
    if hasattr(module, "__all__") and "ignore-module-all" not in entry.options:
        return list(module.__all__)
    names = [n for n, obj in vars(module).items() if not n.startswith("_")
             and (inspect.isclass(obj) or inspect.isfunction(obj))
             and getattr(obj, "__module__", None) == module.__name__]
    names += [n for n in data_docs(module) if not n.startswith("_") and n not in names]
    excluded = {n.strip() for n in entry.options.get("exclude-members", "").split(",")}
    return [n for n in names if n not in excluded]


def object_problems(kind: str, obj, *, module=None, name: str = "",
                    members: bool = True) -> list[str]:
    """What is missing from one documented object's documentation."""
    if kind == "data" or (module is not None and not (inspect.isclass(obj) or callable(obj)
                                                      or inspect.ismodule(obj))):
        docs = data_docs(module)
        if name not in docs:
            return [f"{name} is not assigned in {module.__name__} (its doc comment is read there)"]
        if not docs[name]:
            return ["no doc comment (#: before it) or docstring after it"]
        if colon_in_first_line(docs[name]):
            return ["its doc's first line has a colon (napoleon reads the text before it as "
                    "a type)"]
        return []
    if inspect.isclass(obj):
        return class_problems(obj, members=members)
    return [] if own_doc(obj) else ["no docstring"]


def entry_problems(entry: Entry) -> list[str]:
    """Everything missing from the documentation of one directive's object(s)."""
    obj = resolve(entry.kind, entry.target)
    members = "no-members" not in entry.options
    if entry.kind == "automodule":
        out = [] if own_doc(obj) else ["the module has no docstring"]
        if members:
            for name in module_members(obj, entry):
                member = getattr(obj, name)
                out += [f"{name}: {p}" for p in object_problems(
                    "member", member, module=obj, name=name)]
        return out
    if entry.kind in ("autodata", "autoattribute"):
        modname, _, name = entry.target.rpartition(".")
        return object_problems("data", obj, module=importlib.import_module(modname), name=name)
    return object_problems(entry.kind, obj, members=members)


# -- the tests ----------------------------------------------------------------------------
def test_the_pages_document_something():
    assert _pages(), f"no API pages in {API}"
    for page in _pages():
        if page.name != "index.md":
            assert any(e.page == page.name for e in ENTRIES), f"{page.name}: no autodoc directive"


def test_autodoc_directives_are_in_eval_rst_blocks():
    # With Sphinx 9, MyST's ```{autoclass} form renders autodoc's output as raw text.
    for page in _pages():
        m = _MYST_AUTODOC.search(page.read_text(encoding="utf-8"))
        assert m is None, (f"{page.name}: write {{{m[1]}}} inside an {{eval-rst}} block "
                           f"(`.. {m[1]}:: target`), not as a MyST directive")


def test_every_page_is_in_the_toctree():
    index = (API / "index.md").read_text(encoding="utf-8")
    tree = re.search(r"```\{toctree\}\n(.*?)```", index, re.S)
    assert tree, "docs/reference/api/index.md has no toctree"
    listed = {line.strip() for line in tree[1].splitlines()
              if line.strip() and not line.strip().startswith(":")}
    for page in _pages():
        if page.name != "index.md":
            assert page.stem in listed, f"{page.name} is not in the API index's toctree"


@pytest.mark.parametrize("entry", ENTRIES, ids=str)
def test_documented_object_is_described(entry):
    problems = entry_problems(entry)
    assert not problems, f"{entry}:\n  " + "\n  ".join(problems)


@functools.cache
def _documented_objects() -> list:
    out = []
    for entry in ENTRIES:
        obj = resolve(entry.kind, entry.target)
        out.append(obj)
        if entry.kind == "automodule" and "no-members" not in entry.options:
            out += [getattr(obj, name) for name in module_members(obj, entry)]
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_every_export_is_on_an_api_page(package):
    module = importlib.import_module(package)
    documented = _documented_objects()
    missing = [name for name in module.__all__
               if not any(getattr(module, name) is obj for obj in documented)]
    assert not missing, (f"{package}.__all__ names not on any page of docs/reference/api: "
                         f"{', '.join(missing)}")



def combined_attribute_entries(doc: str) -> list[str]:
    """The entries of ``doc``'s ``Attributes`` section that name several attributes
    (``lo, hi``): napoleon renders one as a single variable named by the last name, with
    the others as its type ("hi (lo,)"), so each attribute needs an entry of its own."""
    lines = doc.splitlines()

    def is_header(k: int) -> bool:
        return (k + 1 < len(lines) and lines[k].strip() != ""
                and re.fullmatch(r"-{3,}", lines[k + 1].strip()) is not None)

    for k, line in enumerate(lines):
        if line.strip() == "Attributes" and is_header(k):
            base = len(line) - len(line.lstrip())
            out = []
            for j in range(k + 2, len(lines)):
                text = lines[j]
                if is_header(j):
                    break
                names = text.split(" : ")[0]
                if (text.strip() and len(text) - len(text.lstrip()) <= base and "," in names
                        and all(n.strip().strip("`*").isidentifier() for n in names.split(","))):
                    out.append(text.strip())
            return out
    return []


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.kind in ("autoclass", "automodule",
                                                                    "autoexception")], ids=str)
def test_attributes_have_one_entry_each(entry):
    obj = resolve(entry.kind, entry.target)
    if entry.kind == "automodule":
        members = ([] if "no-members" in entry.options else
                   [getattr(obj, n) for n in module_members(obj, entry)])
    else:
        members = [obj]
    combined = [f"{cls.__name__}: {line!r}" for cls in members if inspect.isclass(cls)
                for line in combined_attribute_entries(own_doc(cls))]
    assert not combined, (f"{entry}: an Attributes entry per attribute (napoleon renders "
                          f"'a, b' as one variable b of type a):\n  " + "\n  ".join(combined))


# -- the checker itself: it must fail on wrong documentation --------------------------------
def test_the_checker_names_what_is_missing():
    @dataclasses.dataclass
    class Good:
        """Something.

        Attributes
        ----------
        a
            The first.
        b, c : int
            The other two.
        ratio
            A property.
        """

        a: int
        b: int = 0
        c: int = 1

        @property
        def ratio(self) -> float:
            """a / b."""
            return self.a / self.b

    assert class_problems(Good) == []

    @dataclasses.dataclass
    class Undocumented:
        a: int

    assert class_problems(Undocumented)[0] == "no docstring"

    @dataclasses.dataclass
    class MissingField:
        """Something.

        Attributes
        ----------
        a
            The first.
        gone
            A field that was renamed.
        """

        a: int
        b: int
        _private: int = 0

        def method(self):
            return 1

    problems = class_problems(MissingField)
    assert "fields not in its Attributes section: b" in problems
    assert "its Attributes section names no attribute of it: gone" in problems
    assert "methods or properties without a docstring: method" in problems
    assert class_problems(MissingField, members=False)[-1].endswith("gone")

    class Pair(NamedTuple):
        """Two numbers.

        Attributes
        ----------
        x
        """

        x: float
        y: float

    assert class_problems(Pair) == ["fields not in its Attributes section: y",
                                     "fields without a description: x"]

    class Split:
        """Something."""

        @property
        def size(self) -> int:
            """Shape (T, p): the size."""
            return 0

        @property
        def fine(self) -> int:
            """The size ``(T, p): k``, and on the next line
            a colon: here."""
            return 0

    assert class_problems(Split) == ["properties whose docstring's first line has a colon "
                                     "(napoleon reads the text before it as a type): size"]

    class Sub(Good):
        @property
        def ratio(self) -> float:
            return 2.0

    assert not any("ratio" in p for p in class_problems(Sub))  # inherits its docstring



def test_the_checker_finds_combined_attribute_entries():
    doc = inspect.cleandoc("""Something.

        Attributes
        ----------
        lo, hi : int
            The range.
        name
            Its name, e.g. ``a, b``.

        Notes
        -----
        x, y
            Not an attribute.
        """)
    assert combined_attribute_entries(doc) == ["lo, hi : int"]
    assert combined_attribute_entries("Nothing.") == []

def test_the_parser_reads_directives_and_options():
    text = ("```{eval-rst}\n.. automodule:: theory.packs\n   :no-members:\n\n"
            ".. autodata:: theory.packs.BUILTIN\n   :no-value:\n```\n")
    entries = parse_directives(text, "x.md")
    assert [(e.kind, e.target, e.options) for e in entries] == [
        ("automodule", "theory.packs", {"no-members": ""}),
        ("autodata", "theory.packs.BUILTIN", {"no-value": ""})]
    assert _MYST_AUTODOC.search("```{autoclass} theory.Claim\n```\n")
