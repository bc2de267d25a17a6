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
    """The engine sits at the top of verify/; the report, sweeps and conjectures are each a
    subpackage (their parts do not drift back to the top as prefixed modules), and tests/
    mirrors the packages."""
    root = Path(__file__).resolve().parents[2]
    for role in ("report", "sweep", "conjecture"):
        assert (root / "verify" / role / "__init__.py").is_file(), role
    drifted = [p.name for p in (root / "verify").glob("*.py")
               if p.stem.split("_")[0] in ("report", "sweep", "conjecture", "reproduction")
               or p.stem.endswith(("_conjecture", "_sweep", "_report"))]
    assert not drifted, drifted
    flat = [p.name for p in (root / "tests").glob("test_*.py")]
    assert not flat, f"tests/ mirrors the packages (tests/theory, tests/verify, ...): {flat}"
    for sub in ("theory", "numerics", "verify", "verify/sweep", "verify/conjecture"):
        assert list((root / "tests" / sub).glob("test_*.py")), sub
