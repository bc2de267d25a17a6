"""`gfverify new-pack NAME [--dir DIR]`: write a minimal outside pack that works as it is.

It writes ``DIR/gfverify-NAME/`` (``DIR`` default: the current directory) from the
template files in ``verify/pack_template/`` (package data; each ``*.tmpl`` file is copied
with its ``{{key}}`` placeholders replaced by plain strings, nothing is evaluated):

- ``pyproject.toml``: the distribution ``gfverify-NAME``, the entry point ``NAME`` of
  the group ``gfverify.packs`` naming ``PACKAGE:PACK``;
- ``PACKAGE/__init__.py`` (``PACKAGE``: NAME lower-cased, '-' -> '_'): the `Pack`
  record, pack name ``PACK_NAME`` (NAME upper-cased, '-' -> '_': the claim-id prefix);
- ``PACKAGE/claims.py``: two claims every gradient flow obeys (``PACK_NAME-1``: the
  loss never rises; ``PACK_NAME-2``: |theta(t) - theta(0)|^2 <= kappa t L(0));
- ``PACKAGE/tests/test_claims.py``: their checks on exact flows, recorded in
  ``pytest verify``'s table, and one mutant;
- ``README.md``: what to edit next, and the pack author's guide (docs/guides/packs.md).

NAME: letters, digits, '-' and '_', starting with a letter (at most `MAX_NAME`
characters), not a built-in pack's name, neither an installed pack's entry point nor
its name, and its package must not shadow a module already importable. An existing non-empty target
directory is refused; nothing is written then.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from verify.errors import InputError

TEMPLATE = "pack_template"
SUFFIX = ".tmpl"
PACKAGE_DIR = "package"  # the template folder that becomes the pack's package
MAX_NAME = 40
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


@dataclass(frozen=True)
class Names:
    """The names one NAME gives the new pack."""

    name: str  # the entry point (gfverify.packs), as given
    dist: str  # the distribution and its folder: gfverify-NAME
    package: str  # the Python package
    pack: str  # Pack.name: the claim-id prefix and `gfverify claims --paper`

    def values(self) -> dict[str, str]:
        return {"name": self.name, "dist": self.dist, "package": self.package,
                "pack": self.pack,
                "title": f"two facts of every gradient flow (pack {self.name}; edit me)"}


def names(name: str) -> Names:
    """The pack's names from NAME; bad NAME is an `InputError` naming what is allowed."""
    allowed = ("allowed: letters, digits, '-' and '_', starting with a letter, at most "
               f"{MAX_NAME} characters")
    if not _NAME.fullmatch(name) or len(name) > MAX_NAME:
        raise InputError(f"NAME {name!r}: not a pack name; {allowed}")
    package = name.lower().replace("-", "_")
    pack = name.upper().replace("-", "_")
    if keyword.iskeyword(package):
        raise InputError(f"NAME {name!r}: its package {package!r} is a Python keyword; "
                         "choose another name")
    from theory import packs

    builtin = {p.name.upper(): p.name for p in packs.BUILTIN}
    if pack in builtin:
        raise InputError(f"NAME {name!r}: the pack name {pack!r} is a built-in pack's "
                         f"({', '.join(builtin.values())} are taken); choose another name")
    taken = {ep.name for ep in packs.entry_points(group=packs.ENTRY_POINT_GROUP)}
    if name in taken:
        raise InputError(f"NAME {name!r}: an installed pack already has this entry point "
                         f"(installed: {', '.join(sorted(taken))}); choose another name")
    try:  # the selected installed packs' names (one that does not load is not our concern)
        called = {p.name for p in packs.installed()}
    except packs.PackError:
        called = set()
    if pack in called:
        raise InputError(f"NAME {name!r}: an installed pack is already called {pack!r} "
                         "(`gfverify packs`); choose another name")
    import importlib.util

    try:
        found = importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        found = True
    if found:
        raise InputError(f"NAME {name!r}: its package {package!r} would shadow the module "
                         f"{package!r} that is already importable; choose another name")
    return Names(name=name, dist=f"gfverify-{name}", package=package, pack=pack)


def render(text: str, values: dict[str, str], where: str) -> str:
    """``text`` with each ``{{key}}`` replaced by ``values[key]`` (plain text, never code)."""
    unknown = sorted({m.group(1) for m in _PLACEHOLDER.finditer(text)} - values.keys())
    if unknown:  # a template of ours names a key we do not fill: our bug, say where
        raise RuntimeError(f"pack template {where}: unknown placeholder(s) {unknown}")
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def _template_files(root, prefix: tuple[str, ...] = ()):
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            yield from _template_files(entry, (*prefix, entry.name))
        elif entry.name.endswith(SUFFIX):
            yield (*prefix, entry.name), entry


def files(n: Names) -> dict[str, str]:
    """The new pack's files: relative path -> text, rendered from the template."""
    values = n.values()
    out = {}
    for parts, entry in _template_files(resources.files("verify") / TEMPLATE):
        rel = [n.package if p == PACKAGE_DIR else p for p in parts]
        rel[-1] = rel[-1][: -len(SUFFIX)]
        out["/".join(rel)] = render(entry.read_text(encoding="utf-8"), values,
                                    "/".join(parts))
    return out


def write(name: str, directory: str | Path = ".") -> tuple[Path, Names, list[str]]:
    """Write the pack NAME into ``directory/gfverify-NAME``; (its path, its names, the files
    written). Refuses (`InputError`, nothing written) a bad NAME or a non-empty target."""
    n = names(name)
    parent = Path(directory)
    target = parent / n.dist
    if parent.exists() and not parent.is_dir():
        raise InputError(f"--dir {parent}: is a file, not a directory")
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise InputError(f"{target}: exists and is not an empty directory; new-pack writes "
                         "only into a new (or empty) one: remove it or choose another --dir")
    contents = files(n)
    try:
        for rel, text in contents.items():
            path = target / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--dir {parent}: cannot write {target} there "
                         f"({exc.strerror or exc})") from None
    return target, n, sorted(contents)


def _run(args) -> int:
    target, n, written = write(args.name, args.dir)
    print(f"wrote {target}/: {', '.join(written)}")
    print(f"pack {n.pack} (entry point {n.name!r}, package {n.package}); next:")
    print(f"  pip install -e {target}")
    print(f"  pytest verify --verify-packs {n.name}   # rows {n.pack}-1, {n.pack}-2: HOLDS")
    print(f"then edit {n.package}/claims.py and its tests ({target / 'README.md'}; the "
          "guide: docs/guides/packs.md)")
    return 0


def register(subparsers) -> None:
    np_ = subparsers.add_parser(
        "new-pack", help="write a minimal outside pack (claims, tests, pyproject) to start from",
        description="Write DIR/gfverify-NAME/: an installable pack with two claims every "
        "gradient flow obeys, its tests (rows in `pytest verify`'s table) and a README "
        "saying what to edit next.")
    np_.add_argument("name", metavar="NAME",
                     help="the pack's entry-point name: letters, digits, '-' and '_', "
                          "starting with a letter (package: lower case with '_'; pack and "
                          "claim-id prefix: upper case)")
    np_.add_argument("--dir", default=".", metavar="DIR",
                     help="where to write gfverify-NAME/ (default: the current directory)")
    np_.set_defaults(run=_run)
