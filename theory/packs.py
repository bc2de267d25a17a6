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
  verify.report.reproduction.Reproduction`` (a section of ``gfverify report``);
- ``protocols``: a package whose directory holds sweep files (``NAME.toml``) that
  ``gfverify sweep NAME`` runs by name;
- ``tests``: a package whose ``test_*.py`` files ``pytest verify`` runs with the
  toolkit's own, recording verdicts in the same table (the ``verdicts`` fixture);
- ``mutants``: the ids of the mutant checks those tests record (the roster that
  "mutants caught k/N" is counted against).

The four papers are built in (`BUILTIN`): each is a folder of the ``papers`` package
(``papers/s000/`` ...) laid out as an outside pack is, and uses only the public API an
outside pack can use. The closed forms (CF) are a pack of derived claims kept in
``theory`` (`theory.closed_form_claims`, on the formulas of `theory.closed_forms`).
`packs()` lists the built-in packs first, then the installed ones.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
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
    protocols: str = ""
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

    def directory(self, part: str) -> Path | None:
        """The directory of the package named by ``part`` ("tests", "protocols"), found
        without importing it; None if unset."""
        path = getattr(self, part)
        if not path:
            return None
        spec = importlib.util.find_spec(path)
        if spec is None or not spec.submodule_search_locations:
            raise PackError(f"pack {self.name!r}: its {part} {path!r} is not an importable "
                            "package (a folder with an __init__.py)")
        return Path(next(iter(spec.submodule_search_locations))).resolve()


BUILTIN = (
    Pack("S000", "Dana et al. 2025: weakly interacting data", "papers.s000.claims",
         measures="papers.s000.measures", families="papers.s000.families",
         reproductions=("papers.s000.repro_threshold", "papers.s000.repro_flow_threshold",
                        "papers.s000.repro_pl", "papers.s000.repro_groups"),
         protocols="papers.s000.protocols", tests="papers.s000.tests",
         source="arXiv 2502.16977", builtin=True),
    Pack("S001", "Min, Mallada, Vidal, ICLR 2024: early alignment", "papers.s001.claims",
         measures="papers.s001.measures", families="papers.s001.families",
         reproductions=("papers.s001.repro_alignment",), tests="papers.s001.tests",
         source="ICLR 2024", builtin=True),
    Pack("S002", "Boursier, Pillaud-Vivien, Flammarion, NeurIPS 2022: saddle to saddle",
         "papers.s002.claims", measures="papers.s002.measures",
         families="papers.s002.families",
         reproductions=("papers.s002.repro_foundation", "papers.s002.repro_gd"),
         tests="papers.s002.tests", source="NeurIPS 2022", builtin=True),
    Pack("CEL23", "Chistikov, Englert, Lazic, NeurIPS 2023: a teacher neuron on correlated inputs",
         "papers.cel23.claims", measures="papers.cel23.measures",
         families="papers.cel23.families", generators="papers.cel23.families",
         reproductions=("papers.cel23.repro_rank", "papers.cel23.repro_dynamics",
                        "papers.cel23.repro_theorem8"),
         protocols="papers.cel23.protocols",
         tests="papers.cel23.tests", source="NeurIPS 2023, arXiv 2306.06479", builtin=True),
    Pack("CF", "closed forms derived for the three papers", "theory.closed_form_claims",
         builtin=True),
)


# Which installed packs count: "all" (the default), "builtin" (none of them), or a comma
# list of entry-point names. `pytest verify --verify-packs` sets it for the session (and the
# processes it starts); the environment variable lets any command do the same.
SELECT_ENV = "GFVERIFY_PACKS"


def selection() -> str:
    return os.environ.get(SELECT_ENV, "all").strip() or "all"


def select(choice: str) -> None:
    """Count only the installed packs ``choice`` names ("all", "builtin" or names); clears
    every cache that holds packs."""
    os.environ[SELECT_ENV] = choice
    installed.cache_clear()
    packs.cache_clear()
    from theory import registry

    registry.reset()


@cache
def installed() -> tuple[Pack, ...]:
    """The packs installed through the ``gfverify.packs`` entry points, by name (those the
    selection, `SELECT_ENV`, admits)."""
    chosen = selection()
    if chosen == "builtin":
        return ()
    names = None if chosen == "all" else {n.strip() for n in chosen.split(",")}
    found = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        if names is not None and ep.name not in names:
            continue
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
