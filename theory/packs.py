"""Packs: what a paper (or a user's own set of claims) brings to gfverify, and where.

A pack is declared by a `Pack` record that names its parts by *module path*, so
that reading the declaration imports nothing heavy: the claims are loaded by
`theory`, the measures, families, generators, reproductions and tests by `verify`
when they are first needed. gfverify finds packs installed in the environment
through the entry-point group ``gfverify.packs`` (as pytest finds its plugins
through ``pytest11``): a distribution declares, in its ``pyproject.toml``,

    [project.entry-points."gfverify.packs"]
    my-pack = "my_pack:PACK"

and ``my_pack.PACK`` is a `Pack`. What each module named here must define:

- ``claims``: ``CLAIMS``, a tuple of `theory.Claim` whose ``source.paper`` is the
  pack's ``name`` (their ids start with ``name-``); optionally ``TERMS``, a tuple of
  `theory.symbols.Term` for the quantities only this pack uses, and
  ``LATEX_NAMES``, a dict name -> LaTeX;
- ``measures``: ``TRAJECTORY`` (name -> f(Trajectory) -> verify.measures.Series),
  ``INSTANCE`` (name -> f(Problem) -> float) and ``ENSEMBLE`` dicts, as the
  built-in papers' measure modules do;
- ``families``: ``FAMILIES``, a tuple of `verify.families.Family` (for
  ``gfverify conjecture --family`` and ``gfverify families``);
- ``generators``: ``GENERATORS``, a dict name -> f(seed=..., **grid values) ->
  numerics.Problem (for ``generator = "name"`` in a sweep file);
- each of ``reproductions``: ``run(out, profile, *, seed, show_progress, store) ->
  verify.reproduction.Reproduction`` (a section of ``gfverify report``);
- ``tests``: a package whose ``test_*.py`` files ``pytest verify`` runs with the
  toolkit's own, recording verdicts in the same table (the ``verdicts`` fixture);
- ``mutants``: the ids of the mutant checks those tests record (the roster that
  "mutants caught k/N" is counted against).

The three papers and the closed forms are built in (`BUILTIN`); `packs()` lists
them first, then the installed ones.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from types import ModuleType

ENTRY_POINT_GROUP = "gfverify.packs"


class PackError(RuntimeError):
    """An installed pack is malformed (the message names the pack and what is wrong)."""


@dataclass(frozen=True)
class Pack:
    """The parts of one pack, by module path (see the module's docstring)."""

    name: str
    title: str
    claims: str
    measures: str = ""
    families: str = ""
    generators: str = ""
    reproductions: tuple[str, ...] = ()
    tests: str = ""
    mutants: tuple[str, ...] = ()
    source: str = ""
    builtin: bool = False

    def module(self, part: str) -> ModuleType | None:
        """The module named by ``part`` ("claims", "measures", ...), or None if unset."""
        path = getattr(self, part)
        if not path:
            return None
        try:
            return importlib.import_module(path)
        except ImportError as exc:
            raise PackError(f"pack {self.name!r}: its {part} module {path!r} does not "
                            f"import ({exc})") from exc


BUILTIN = (
    Pack("S000", "Dana et al. 2025: weakly interacting data", "theory.s000",
         measures="verify.measures_s000",
         reproductions=("verify.repro_s000_threshold", "verify.repro_s000_flow_threshold",
                        "verify.repro_s000_pl", "verify.repro_s000_groups"),
         source="arXiv 2502.16977", builtin=True),
    Pack("S001", "Min, Mallada, Vidal, ICLR 2024: early alignment", "theory.s001",
         measures="verify.measures_s001", reproductions=("verify.repro_s001",),
         source="ICLR 2024", builtin=True),
    Pack("S002", "Boursier, Pillaud-Vivien, Flammarion, NeurIPS 2022: saddle to saddle",
         "theory.s002", measures="verify.measures_s002", source="NeurIPS 2022",
         builtin=True),
    Pack("CF", "closed forms derived for the three papers", "theory.closed_forms",
         builtin=True),
)


@cache
def installed() -> tuple[Pack, ...]:
    """The packs installed through the ``gfverify.packs`` entry points, by name."""
    found = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            pack = ep.load()
        except Exception as exc:  # a broken third-party pack must say so, by name
            raise PackError(f"installed pack {ep.name!r} ({ep.value}) does not load: "
                            f"{type(exc).__name__}: {exc}") from exc
        if not isinstance(pack, Pack):
            raise PackError(f"installed pack {ep.name!r}: {ep.value} is a "
                            f"{type(pack).__name__}, not a theory.packs.Pack")
        found.append(pack)
    return tuple(found)


@cache
def packs() -> tuple[Pack, ...]:
    """Every pack: the built-in ones, then the installed ones (names are unique)."""
    every = BUILTIN + installed()
    seen: set[str] = set()
    for pack in every:
        if pack.name in seen:
            raise PackError(f"two packs are called {pack.name!r}; rename one")
        seen.add(pack.name)
    return every


def modules(part: str, *, builtin: bool | None = None) -> list[tuple[Pack, ModuleType]]:
    """(pack, module) for every pack that names a ``part`` module (``builtin``: only the
    built-in packs, only the installed ones, or all when None)."""
    out = []
    for pack in packs():
        if builtin is not None and pack.builtin != builtin:
            continue
        module = pack.module(part)
        if module is not None:
            out.append((pack, module))
    return out
