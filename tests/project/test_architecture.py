"""Dependencies run one way, and each package exports what it says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _modules_after_import(name: str) -> set[str]:
    code = f"import sys, {name}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return set(out.stdout.split())


def test_theory_imports_sympy_only():
    loaded = _modules_after_import("theory")
    for heavy in ("torch", "scipy", "numerics", "verify", "matplotlib"):
        assert heavy not in loaded, f"importing theory imported {heavy}"


def test_numerics_knows_no_claims():
    loaded = _modules_after_import("numerics")
    assert "verify" not in loaded and "theory.registry" not in loaded


@pytest.mark.parametrize("package", ["theory", "numerics", "verify"])
def test_all_names_exist(package):
    mod = __import__(package)
    assert mod.__all__, package
    for name in mod.__all__:
        assert hasattr(mod, name), f"{package}.__all__ lists missing {name}"


OURS = ("theory", "numerics", "verify", "papers", "gf_identities")


def _private_uses(path) -> list[str]:
    """Uses of another module's private names: ``from M import _x`` and ``M._x`` where M was
    bound by an import of one of our packages."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules, out = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in OURS:
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    out.append(f"{path}:{node.lineno} from {node.module} import {alias.name}")
                modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in OURS:
                    modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in modules and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            out.append(f"{path}:{node.lineno} {node.value.id}.{node.attr}")
    return out


def test_packs_and_engine_use_only_public_names_of_other_modules():
    """Built-in packs, the engine and the example outside pack reach each other through
    public names only (what an outside pack can use is what the built-in ones use)."""

    root = Path(__file__).resolve().parents[2]
    files = [p for pkg in ("theory", "numerics", "verify", "papers")
             for p in (root / pkg).rglob("*.py")]
    files += list((root / "examples" / "packs").rglob("*.py"))
    found = [use for path in files for use in _private_uses(path)]
    assert not found, "\n".join(found)


def test_the_suite_collects_without_xdist(tmp_path):
    """An installed gfverify without the dev extras has no pytest-xdist: the plugin must not
    need it (an xdist hook it implements is optional). Measured on the wheel: before, every
    `pytest verify` there was an INTERNALERROR."""

    verify_dir = Path(__file__).resolve().parents[2] / "verify"
    out = subprocess.run([sys.executable, "-m", "pytest", str(verify_dir), "--collect-only",
                          "-q", "-p", "no:xdist", "-p", "no:cacheprovider"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]


# The packs' own modules: the built-in papers (``papers``), the closed forms (theory.packs
# keeps CF in theory) and the example outside pack. Everything else is engine.
PACK_MODULE = ("papers", "theory.closed_form_claims", "gf_identities")


def _imported_modules(path) -> set[str]:
    """Every module a file imports, at top level or inside a function."""
    import ast

    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out |= {f"{node.module}.{alias.name}" for alias in node.names}
    return out


def test_the_engine_imports_no_pack():
    """Engine modules (check, verdicts, measures and families machinery, report, sweep,
    conjecture, cli, ...) reach the packs only through theory.packs, never by import."""

    root = Path(__file__).resolve().parents[2]
    engine = [p for pkg in ("theory", "numerics", "verify") for p in (root / pkg).rglob("*.py")
              if not f"{pkg}.{p.stem}".startswith(PACK_MODULE)]
    found = [f"{path.relative_to(root)} imports {name}" for path in engine
             for name in sorted(_imported_modules(path)) if name.startswith(PACK_MODULE)]
    assert not found, "\n".join(found)
    assert len(engine) > 50, len(engine)  # the scan saw the engine


def test_every_builtin_paper_is_a_folder_of_papers():
    """The three papers live in papers/<name>/ and theory.packs names only modules there
    (the layout an outside pack has); nothing of a paper is left in the engine packages."""

    from theory import packs

    root = Path(__file__).resolve().parents[2]
    for pack in packs.BUILTIN:
        if pack.name == "CF":
            continue
        named = [pack.claims, pack.measures, pack.families, pack.tests, *pack.reproductions]
        prefix = f"papers.{pack.name.lower()}."
        assert all(m.startswith(prefix) for m in named), (pack.name, named)
    leftovers = [p.name for pkg in ("theory", "verify") for p in (root / pkg).glob("*.py")
                 if any(tag in p.stem for tag in ("s000", "s001", "s002", "repro_"))]
    assert not leftovers, leftovers


def test_verify_is_split_by_role():
    """verify/ is rooms around an engine: the checking engine, the statement language, the
    runs, the instance families, the results and the front each a package, the products
    (report, sweeps, conjectures, tighten, recorded runs) each a package; no more than 14
    modules at the top, and tests/ mirrors the packages."""
    root = Path(__file__).resolve().parents[2]
    for role in (*LAYERS, "report", "sweep", "conjecture", "tighten", "recorded"):
        if role:
            assert (root / "verify" / role / "__init__.py").is_file(), role
    top = sorted(p.name for p in (root / "verify").glob("*.py"))
    assert len(top) <= 14, top
    drifted = [p.name for p in (root / "verify").glob("*.py")
               if p.stem.split("_")[0] in ("report", "sweep", "conjecture", "reproduction",
                                           "check", "evidence")
               or p.stem.endswith(("_conjecture", "_sweep", "_report"))]
    assert not drifted, drifted
    flat = [p.name for p in (root / "tests").glob("test_*.py")]
    assert not flat, f"tests/ mirrors the packages (tests/theory, tests/verify, ...): {flat}"
    assert not list((root / "tests" / "verify").glob("test_*.py")), "tests/verify/ mirrors verify/"
    for sub in ("theory", "numerics", "verify/engine", "verify/language", "verify/running",
                "verify/instances", "verify/results", "verify/front", "verify/sweep",
                "verify/conjecture", "verify/tighten", "verify/report", "verify/recorded"):
        assert list((root / "tests" / sub).glob("test_*.py")), sub


# verify's packages by layer: a module imports only from its own layer or the ones below
# ("" is verify's top-level modules: its errors, exit codes and lazy namespaces)
LAYERS = {"": 0, "language": 1, "running": 1, "instances": 1, "engine": 2, "results": 3,
          "conjecture": 4, "tighten": 4, "report": 4, "sweep": 4, "recorded": 4, "front": 5}


def _imports(root: Path) -> dict[str, dict[str, int]]:
    """Every import between our modules (``theory``, ``numerics``, ``verify``, ``papers``),
    module-level or inside a function: {module: {imported module: line}}. An import of a
    package from inside it (``from theory import fields`` in ``theory.claim``) counts as
    an import of the submodule it names."""
    import ast

    files = {}
    for pkg in ("theory", "numerics", "verify", "papers"):
        for p in (root / pkg).rglob("*.py"):
            parts = list(p.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            files[".".join(parts)] = p
    out: dict[str, dict[str, int]] = {}
    for me, p in files.items():
        pkg = me if p.name == "__init__.py" else me.rpartition(".")[0]
        edges = out.setdefault(me, {})
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                named = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in files]
                targets = named or [base]
            else:
                continue
            for target in targets:
                if target in files and target != me and not me.startswith(target + "."):
                    edges.setdefault(target, node.lineno)
    return out


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circles():
    """No two of our modules import each other, directly or around a circle, counting the
    imports inside functions: a shared piece lives below both sides instead."""
    root = Path(__file__).resolve().parents[2]
    circles = _cycles(_imports(root))
    assert not circles, "\n".join(" <-> ".join(c) for c in circles)


def test_cycle_finder_finds_a_circle_made_of_function_level_imports():
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    assert _cycles(graph) == [["a", "b", "c"]]


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if parts[0] != "verify" or parts[-1] == "__main__":
        return None
    if len(parts) == 2 and (Path(__file__).resolve().parents[2] / "verify"
                            / f"{parts[1]}.py").is_file():
        return LAYERS[""]
    return LAYERS.get(parts[1]) if len(parts) > 1 else LAYERS[""]


def test_verify_imports_only_downward():
    """The language, the runs and the families below the engine, the engine below the
    results, the results below the products, the products below the command line and the
    pytest plugin; never upward."""
    root = Path(__file__).resolve().parents[2]
    packages = {p.name for p in (root / "verify").iterdir()
                if (p / "__init__.py").is_file()} - {"pack_template"}
    assert packages <= set(LAYERS), f"a verify package without a layer: {packages - set(LAYERS)}"
    upward = []
    for module, targets in _imports(root).items():
        mine = _layer(module)
        if mine is None:
            continue
        for target, line in targets.items():
            theirs = _layer(target)
            if theirs is not None and theirs > mine:
                upward.append(f"{module}:{line} imports {target} (layer {theirs} > {mine})")
    assert not upward, "\n".join(upward)


def test_old_module_paths_import_the_moved_module_with_a_warning():
    """A pack written against verify's old layout (``verify.measures``) keeps working: the
    old path is the very module at its new path, and a DeprecationWarning names it."""
    code = ("import warnings, sys\n"
            "warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    from verify.measures import average_rate\n"
            "    import verify.check_run as old\n"
            "import verify.language.measures as m, verify.engine.check_run as new\n"
            "assert average_rate is m.average_rate and old is new, (old, new)\n"
            "assert old.__spec__.name == 'verify.engine.check_run', old.__spec__.name\n"
            "print('|'.join(str(x.message) for x in w))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "verify.measures moved to verify.language.measures" in out
    assert "verify.check_run moved to verify.engine.check_run" in out
