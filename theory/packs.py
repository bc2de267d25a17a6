"""Packs: what a paper (or a user's own set of claims) brings to gfverify, and where.

A pack is declared by a `Pack` record that names its parts by *module path*, so
that reading the declaration imports nothing heavy: the claims are loaded by
`theory`, the measures, families, generators, reproductions and tests by `verify`
when they are first needed. gfverify finds packs installed in the environment
through the entry-point group ``gfverify.packs`` (as pytest finds its plugins
through ``pytest11``): a distribution declares, in its ``pyproject.toml``::

    [project.entry-points."gfverify.packs"]
    my-pack = "my_pack:PACK"

and ``my_pack.PACK`` is a `Pack`. What each module named here must define:

- ``claims``: ``CLAIMS``, a tuple of `theory.Claim` whose ``source.paper`` is the
  pack's ``name`` (their ids start with ``name-``); optionally ``TERMS``, a tuple of
  `theory.symbols.Term` for the quantities only this pack uses, ``LATEX_NAMES``, a
  dict name -> LaTeX, and ``PAPER_LATEX_NAMES``, paper -> {name: LaTeX} for a
  paper's own notation;
- ``measures``: ``TRAJECTORY`` (name -> f(Trajectory) -> verify.language.measures.Series),
  ``INSTANCE`` (name -> f(Problem) -> float) and ``ENSEMBLE`` dicts, as the
  built-in papers' measure modules do; optionally ``LIMITS`` (a run scalar that a limit
  t -> infinity defines -> f(Trajectory) -> verify.engine.evidence.Estimate, read at the end of a
  run with its error: how ``gfverify check --run`` decides such a claim on a record);
- ``families``: ``FAMILIES``, a tuple of `verify.instances.families.Family` (for
  ``gfverify conjecture --family`` and ``gfverify families``); optionally ``TIGHTEN``,
  claim id -> the family and settings ``gfverify tighten`` and the report's tightness
  table use for that claim;
- ``generators``: ``GENERATORS``, a dict name -> ``f(seed=..., **grid_values) ->
  numerics.Problem`` (for ``generator = "name"`` in a sweep file);
- each of ``reproductions``: ``run(out, profile, *, seed, show_progress, store) ->
  verify.report.reproduction.Reproduction`` (a section of ``gfverify report``;
  optionally a keyword ``instances``, and a ``preflight()`` that refuses a missing
  input before the report starts);
- ``protocols``: a package whose directory holds sweep files (``NAME.toml``) that
  ``gfverify sweep NAME`` runs by name;
- ``tests``: a package whose ``test_*.py`` files ``pytest verify`` runs with the
  toolkit's own, recording verdicts in the same table (the ``verdicts`` fixture);
- ``mutants``: the ids of the mutant checks those tests record (the roster that
  "mutants caught k/N" is counted against).

The eight papers are built in (`BUILTIN`): each is a folder of the ``papers`` package
(``papers/s000/`` ...) laid out as an outside pack is, and uses only the public API an
outside pack can use. The closed forms (CF) are a pack of derived claims kept in
``theory`` (`theory.closed_form_claims`, on the formulas of `theory.closed_forms`).
`packs()` lists the built-in packs first, then the installed ones.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

import sympy as sp

from theory.claim import Claim, Kind, Source
from theory.errors import PackError

#: The entry-point group an installed pack declares itself in (``pyproject.toml``).
ENTRY_POINT_GROUP = "gfverify.packs"


@dataclass(frozen=True)
class Pack:
    """The parts of one pack, by module path (see the module's docstring).

    Reading a Pack imports nothing: each part is a dotted module path, imported when
    gfverify first needs it ("" for a part the pack does not have).

    Attributes
    ----------
    name
        The pack's name: the ``source.paper`` of its claims and the start of their ids
        (``"GF"``); unique among the packs.
    title
        One line on what the pack is (``gfverify packs`` prints it).
    claims
        The module that defines ``CLAIMS`` (and optionally ``TERMS``, ``LATEX_NAMES``);
        the one part every pack has.
    measures
        The module of its measures (``TRAJECTORY``, ``INSTANCE``, ``ENSEMBLE``), or "".
    families
        The module of its families (``FAMILIES``), or "".
    generators
        The module of its sweep generators (``GENERATORS``), or "".
    reproductions
        The modules of its report sections, in report order (each has ``run``); () for none.
    protocols
        A package whose folder holds sweep files ``NAME.toml`` (``gfverify sweep NAME``),
        or "".
    tests
        A package whose ``test_*.py`` files ``pytest verify`` runs, or "".
    mutants
        The ids of the mutant checks its tests record ("mutants caught k/N" counts them).
    source
        Where the claims come from (a reference, a URL), in words.
    builtin
        True for the packs shipped in gfverify (`BUILTIN`); False for installed ones.
    """

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

    def __post_init__(self) -> None:
        """A malformed record is refused at once, naming the pack and the field."""
        if not isinstance(self.name, str) or not self.name or any(
                c.isspace() or c == "-" for c in self.name):
            raise PackError(f"pack {self.name!r}: its name must be a non-empty string with "
                            "no '-' or space (claim ids are NAME-label)")
        for part in ("title", "claims", "measures", "families", "generators", "protocols",
                     "tests", "source"):
            value = getattr(self, part)
            if not isinstance(value, str):
                raise PackError(f"pack {self.name!r}: its {part} must be a string (a module "
                                f"path or text), got {type(value).__name__} {value!r}")
        if not self.claims:
            raise PackError(f"pack {self.name!r}: its claims module must be named (a "
                            "module path, e.g. 'my_pack.claims')")
        for part in ("reproductions", "mutants"):
            value = getattr(self, part)
            if isinstance(value, str) or not isinstance(value, tuple | list) or not all(
                    isinstance(v, str) and v for v in value):
                hint = f"; write ({value!r},)" if isinstance(value, str) else ""
                raise PackError(f"pack {self.name!r}: its {part} must be a tuple of "
                                f"non-empty strings, got {value!r}{hint}")
            object.__setattr__(self, part, tuple(value))

    def module(self, part: str) -> ModuleType | None:
        """The module named by ``part`` ("claims", "measures", ...), or None if unset. One
        that does not import (or, for an installed pack, fails while importing) is a
        `PackError` naming the pack, the module and where it failed; a claims module is
        checked (`CLAIMS`, a tuple of well-formed `theory.Claim`)."""
        path = getattr(self, part)
        if not path:
            return None
        try:
            module = importlib.import_module(path)
        except ImportError as exc:
            raise PackError(f"pack {self.name!r}: its {part} module {path!r} does not "
                            f"import{_where(exc, path)} ({exc})") from exc
        except Exception as exc:  # a broken installed pack, not a bug of gfverify's
            if self.builtin:
                raise
            raise PackError(f"pack {self.name!r}: its {part} module {path!r} fails on "
                            f"import{_where(exc, path)}: {type(exc).__name__}: {exc}") from exc
        if part == "claims":
            _check_claims(self, module)
        return module

    def directory(self, part: str) -> Path | None:
        """The directory of the package named by ``part`` ("tests", "protocols"), found
        without importing it; None if unset."""
        path = getattr(self, part)
        if not path:
            return None
        try:
            spec = importlib.util.find_spec(path)
        except (ImportError, ValueError):  # a parent package that is missing
            spec = None
        if spec is None or not spec.submodule_search_locations:
            raise PackError(f"pack {self.name!r}: its {part} {path!r} is not an importable "
                            "package (a folder with an __init__.py)")
        return Path(next(iter(spec.submodule_search_locations))).resolve()


def _origin(path: str) -> str:
    """The file of module ``path`` (found without importing it), or "" if there is none."""
    try:
        spec = importlib.util.find_spec(path)
    except (ImportError, ValueError):
        return ""
    return spec.origin if spec is not None and spec.origin not in (None, "built-in") else ""


def _where(exc: BaseException, path: str) -> str:
    """" (FILE, line N)": where importing module ``path`` failed, in the pack's own files
    (the last frame of the traceback under the pack's top-level package); else the module's
    file; "" if neither is known."""
    top = _origin(path.split(".")[0])
    root = Path(top).parent if top else None
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if root is not None and root in Path(f.filename).parents]
    if isinstance(exc, SyntaxError) and exc.filename:
        return f" ({exc.filename}, line {exc.lineno})"
    if frames:
        return f" ({frames[-1].filename}, line {frames[-1].lineno})"
    file = _origin(path) if not isinstance(exc, ModuleNotFoundError) else ""
    return f" ({file})" if file else ""


def _check_claims(pack: Pack, module: ModuleType) -> None:
    """Refuse a claims module without a well-formed ``CLAIMS`` (naming the pack, the module
    and its file): a tuple of `theory.Claim`, each with a str id, a `Kind`, a `Source` and
    a sympy statement; ids unique; an installed pack's ids start with its name and its
    claims' ``source.paper`` is its name."""
    file = getattr(module, "__file__", None)
    where = f"{module.__name__!r}" + (f" ({file})" if file else "")
    claims = getattr(module, "CLAIMS", None)
    if not isinstance(claims, tuple | list):
        got = "does not define it" if claims is None else f"defines a {type(claims).__name__}"
        raise PackError(f"pack {pack.name!r}: its claims module {where} must define CLAIMS, "
                        f"a tuple of theory.Claim; it {got}")
    seen: set[str] = set()
    for k, claim in enumerate(claims):
        cid = getattr(claim, "id", None)
        label = cid if isinstance(cid, str) and cid else f"CLAIMS[{k}]"
        if not isinstance(claim, Claim):
            problem = f"is a {type(claim).__name__}, not a theory.Claim"
        elif not isinstance(cid, str) or not cid:
            problem = f"its id must be a non-empty string, got {cid!r}"
        elif not isinstance(claim.kind, Kind):
            problem = (f"its kind {claim.kind!r} is not a theory.Kind (one of "
                       f"{', '.join('Kind.' + k.name for k in Kind)})")
        elif not isinstance(claim.source, Source):
            problem = f"its source {claim.source!r} is not a theory.Source"
        elif not isinstance(claim.statement, sp.Basic):
            problem = f"its statement {claim.statement!r} is not a sympy expression"
        elif not isinstance(claim.title, str):
            problem = f"its title {claim.title!r} is not a string"
        elif cid in seen:
            problem = "its id is declared twice in CLAIMS"
        elif not pack.builtin and claim.paper != pack.name:
            problem = (f"its source names paper {claim.paper!r}; a pack's claims carry its "
                       f"name, {pack.name!r}")
        elif not pack.builtin and not cid.startswith(f"{pack.name}-"):
            problem = f"its id must start with the pack's name, {pack.name + '-'!r}"
        else:
            seen.add(cid)
            continue
        raise PackError(f"pack {pack.name!r}: claim {label} in {where}: {problem}")


#: The packs gfverify ships, the eight papers (``papers/``) and the closed forms (CF).
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
    Pack("BF25", "Boursier, Flammarion, JMLR 2025: early alignment is a two-edged sword",
         "papers.bf25.claims", measures="papers.bf25.measures",
         families="papers.bf25.families",
         reproductions=("papers.bf25.repro_nonconvergence",), tests="papers.bf25.tests",
         source="JMLR 26(183), 2025; arXiv 2401.10791", builtin=True),
    Pack("MZV25", "Min, Zhu, Vidal, NeurIPS 2025: neural collapse under gradient flow",
         "papers.mzv25.claims", measures="papers.mzv25.measures",
         families="papers.mzv25.families", generators="papers.mzv25.families",
         reproductions=("papers.mzv25.repro_binary",), tests="papers.mzv25.tests",
         source="NeurIPS 2025, arXiv 2510.21078", builtin=True),
    Pack("MOR26", "Mildly overparameterized ReLU networks on orthogonal data (2026): "
         "incremental learning", "papers.mor26.claims", measures="papers.mor26.measures",
         families="papers.mor26.families", reproductions=("papers.mor26.repro_staircase",),
         tests="papers.mor26.tests", source="arXiv 2605.27097 (abstract only: the text was "
         "not read)", builtin=True),
    Pack("BF25B", "Boursier, Flammarion, ICML 2025: simplicity bias and optimization threshold",
         "papers.bf25b.claims", measures="papers.bf25b.measures",
         families="papers.bf25b.families",
         reproductions=("papers.bf25b.repro_threshold",), tests="papers.bf25b.tests",
         source="ICML 2025, arXiv 2410.02348 (abstract only: the body was not read)",
         builtin=True),
    Pack("CF", "closed forms derived for S000, S001 and S002", "theory.closed_form_claims",
         builtin=True),
)


# Which installed packs count: "all" (the default), "builtin" (none of them), or a comma
# list of entry-point names. `pytest verify --verify-packs` sets it for the session (and the
# processes it starts); the environment variable lets any command do the same.
#: The environment variable that selects the installed packs, ``all`` (default),
#: ``builtin`` (none of them) or a comma list of entry-point names.
SELECT_ENV = "GFVERIFY_PACKS"


def selection() -> str:
    """Which installed packs count, as `SELECT_ENV` says (``"all"`` when unset)."""
    return os.environ.get(SELECT_ENV, "all").strip() or "all"


def select(choice: str) -> None:
    """Count only the installed packs ``choice`` names ("all", "builtin" or names); clears
    every cache that holds packs."""
    os.environ[SELECT_ENV] = choice
    installed.cache_clear()
    packs.cache_clear()  # the claims index (`theory.registry`) follows the new tuple


# where each installed pack was found: id(pack) -> "installed pack 'name' (module:attr in FILE)"
_ORIGINS: dict[int, str] = {}
_ENTRY_NAMES: dict[int, str] = {}  # id(pack) -> its entry point's name


def tested(choice: str) -> tuple[Pack, ...]:
    """The packs whose tests (and declared mutants) a run of ``pytest verify
    --verify-packs CHOICE`` counts: every pack for ``all``, the built-in ones for
    ``builtin``, else only the packs named (a comma list of pack names, any case, or
    installed packs' entry-point names). A name no pack answers to is a `PackError`."""
    choice = (choice or "all").strip() or "all"
    if choice.lower() in ("all", "builtin"):
        choice = choice.lower()
    if choice == "all":
        return packs()
    if choice == "builtin":
        return BUILTIN
    names = [n.strip() for n in choice.split(",") if n.strip()]
    every = packs()
    out = []
    for name in names:
        hits = [p for p in every if p.name.lower() == name.lower()
                or _ENTRY_NAMES.get(id(p)) == name]
        if not hits:
            known = ", ".join(sorted({p.name for p in every}
                                     | {v for v in _ENTRY_NAMES.values()}))
            raise PackError(f"--verify-packs {name!r}: no pack has that name (packs: "
                            f"{known}; or all, builtin)")
        out += [p for p in hits if p not in out]
    return tuple(out)


@cache
def installed() -> tuple[Pack, ...]:
    """The packs installed through the ``gfverify.packs`` entry points, by name (those the
    selection, `SELECT_ENV`, admits)."""
    chosen = selection()
    chosen = chosen.lower() if chosen.lower() in ("all", "builtin") else chosen
    _ORIGINS.clear()
    _ENTRY_NAMES.clear()
    if chosen == "builtin":
        return ()
    names = None if chosen == "all" else {n.strip().lower() for n in chosen.split(",")}
    found = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        named = names is None or ep.name.lower() in names
        try:
            pack = ep.load()
        except Exception as exc:  # a broken third-party pack must say so, by name
            if not named:  # (loaded only to read its pack name: not asked for)
                continue
            raise PackError(f"installed pack {ep.name!r} ({ep.value}) does not "
                            f"load{_where(exc, ep.module)}: {type(exc).__name__}: "
                            f"{exc}") from exc
        file = getattr(sys.modules.get(ep.module), "__file__", None)
        where = f"{ep.value} in {file}" if file else ep.value
        if not isinstance(pack, Pack):
            if not named:
                continue
            raise PackError(f"installed pack {ep.name!r}: {where} is a "
                            f"{type(pack).__name__}, not a theory.packs.Pack")
        if names is not None and not {ep.name.lower(), pack.name.lower()} & names:
            continue  # (loaded to read its name: selected by entry point or pack name)
        _ORIGINS[id(pack)] = f"installed pack {ep.name!r} ({where})"
        _ENTRY_NAMES[id(pack)] = ep.name
        found.append(pack)
    return tuple(found)


@cache
def packs() -> tuple[Pack, ...]:
    """Every pack: the built-in ones, then the installed ones (names are unique)."""
    every = BUILTIN + installed()
    seen: dict[str, Pack] = {}
    for pack in every:
        if pack.name in seen:
            first = seen[pack.name]
            which = ("the built-in pack" if first.builtin
                     else _ORIGINS.get(id(first), "an installed pack"))
            raise PackError(f"pack {pack.name!r}: {_ORIGINS.get(id(pack), 'a pack')} has the "
                            f"name of {which}; rename it (its Pack(name=...))")
        seen[pack.name] = pack
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
