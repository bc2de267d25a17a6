"""`gfverify new-pack`: the pack it writes is complete, loads through the gfverify.packs
entry point and passes its own tests; a bad NAME or a non-empty target is refused (exit 2,
one line, nothing written).

"Installed" here is what pip's editable install amounts to for importlib.metadata: the
pack's folder on the path and a ``*.dist-info`` with its entry point (read from the
generated pyproject.toml), so no pip run is needed; CI (.ci/run) also pip-installs a
generated pack and runs the whole ``pytest verify`` with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import theory
from theory import packs, registry
from verify.front import new_pack
from verify.front.cli import main

NAME = "zz-demo"
PACKAGE, PACK = "zz_demo", "ZZ_DEMO"
FILES = {"pyproject.toml", "README.md", f"{PACKAGE}/__init__.py", f"{PACKAGE}/claims.py",
         f"{PACKAGE}/tests/__init__.py", f"{PACKAGE}/tests/test_claims.py"}


def _generate(tmp_path: Path) -> Path:
    assert main(["new-pack", NAME, "--dir", str(tmp_path / "out")]) == 0
    return tmp_path / "out" / f"gfverify-{NAME}"


def _fake_install(root: Path, site: Path) -> None:
    """A dist-info holding the entry point the generated pyproject.toml declares."""
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    eps = project["entry-points"][packs.ENTRY_POINT_GROUP]
    (info / "entry_points.txt").write_text(
        f"[{packs.ENTRY_POINT_GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()))


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def test_it_writes_a_complete_pack(tmp_path, capsys):
    root = _generate(tmp_path)
    out = capsys.readouterr().out
    assert str(root) in out and f"pip install -e {root}" in out
    assert _files(root) == FILES
    for rel in FILES:
        text = (root / rel).read_text()
        assert "{{" not in text and "}}" not in text, rel
        if rel.endswith(".py"):
            compile(text, rel, "exec")
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["project"]["name"] == f"gfverify-{NAME}"
    assert project["project"]["entry-points"]["gfverify.packs"] == {NAME: f"{PACKAGE}:PACK"}
    assert set(project["tool"]["setuptools"]["packages"]) == {PACKAGE, f"{PACKAGE}.tests"}
    readme = (root / "README.md").read_text()
    assert "docs/guides/packs.md" in readme and "What to edit next" in readme
    assert f"--verify-packs {NAME}" in readme


def test_the_generated_code_passes_the_repositorys_lint(tmp_path):
    pytest.importorskip("ruff")
    root = _generate(tmp_path)
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--select",
                           "E,F,W,I,B,UP", "--line-length", "100", "--target-version",
                           "py311", "."], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The generated pack, 'installed' (on the path, with its entry point's dist-info) and
    selected; gfverify's caches are cleared before and after."""
    root = _generate(tmp_path)
    _fake_install(root, tmp_path / "site")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv(packs.SELECT_ENV, NAME)
    packs.select(NAME)
    yield root
    monkeypatch.undo()
    packs.installed.cache_clear()
    packs.packs.cache_clear()
    registry.reset()
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def test_the_generated_pack_loads_as_an_installed_pack(installed, capsys):
    pack = packs.packs()[-1]
    assert (pack.name, pack.builtin) == (PACK, False)
    assert [c.id for c in theory.claims(paper=PACK)] == [f"{PACK}-1", f"{PACK}-2"]
    assert registry.pack_of(f"{PACK}-1") is pack
    assert pack.directory("tests") == (installed / PACKAGE / "tests").resolve()
    from verify.front import plugin
    from verify.results import mutants

    assert pack.directory("tests") in plugin._pack_test_dirs()  # what `pytest verify` adds
    assert f"{PACK}-1~half" in mutants.roster()
    assert main(["packs"]) == 0
    assert any(line.startswith(f"{PACK} ") and "installed" in line
               for line in capsys.readouterr().out.splitlines())
    # a second pack of the same name is refused: its entry point is taken
    assert main(["new-pack", NAME, "--dir", str(installed.parent / "again")]) == 2
    assert "already has this entry point" in capsys.readouterr().err
    assert main(["new-pack", PACKAGE, "--dir", str(installed.parent / "again")]) == 2
    assert f"already called {PACK!r}" in capsys.readouterr().err  # zz_demo: pack ZZ_DEMO
    assert not (installed.parent / "again").exists()


def test_the_generated_pack_passes_its_own_tests(installed, tmp_path):
    """Its tests, run by pytest with gfverify's plugin and the pack selected: every claim
    HOLDS in the verdict table and its mutant is caught."""
    report = tmp_path / "verdicts.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path / "site"), str(installed), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(installed / PACKAGE / "tests"), "-q",
         "-p", "no:cacheprovider", "--verify-packs", NAME, "--verify-json", str(report)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    data = json.loads(report.read_text())
    rows = {row["claim"]: row["verdict"] for row in data["claims"]}
    assert rows == {f"{PACK}-1": "HOLDS", f"{PACK}-2": "HOLDS"}
    score = data["mutant_score"]
    assert f"{PACK}-1~half" not in score["not_run"] + score["not_caught"] + score["undeclared"]


@pytest.mark.parametrize("name, says", [
    ("1demo", "starting with a letter"),
    ("de mo", "letters, digits, '-' and '_'"),
    ("demo.x", "letters, digits, '-' and '_'"),
    ("", "starting with a letter"),
    ("x" * 41, "at most 40 characters"),
    ("s000", "built-in pack's"),
    ("Cel23", "built-in pack's"),
    ("class", "Python keyword"),
    ("json", "would shadow the module"),
    ("verify", "would shadow the module"),
])
def test_a_bad_name_is_refused_in_one_line(name, says, tmp_path, capsys):
    assert main(["new-pack", name, "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: NAME {name!r}") and says in err
    assert len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_a_non_empty_target_is_refused_and_nothing_written(tmp_path, capsys):
    target = tmp_path / f"gfverify-{NAME}"
    target.mkdir()
    (target / "mine.txt").write_text("keep")
    assert main(["new-pack", NAME, "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(target) in err and "not an empty directory" in err
    assert _files(target) == {"mine.txt"}
    (tmp_path / "file").write_text("")
    assert main(["new-pack", NAME, "--dir", str(tmp_path / "file")]) == 2
    assert "is a file" in capsys.readouterr().err
    empty = tmp_path / "empty"
    (empty / f"gfverify-{NAME}").mkdir(parents=True)  # an empty target is fine
    assert main(["new-pack", NAME, "--dir", str(empty)]) == 0
    assert _files(empty / f"gfverify-{NAME}") == FILES


def test_the_template_is_rendered_without_evaluating_anything():
    assert new_pack.render("a {{name}} b", {"name": "{{x}} __import__('os')"}, "t") == \
        "a {{x}} __import__('os') b"
    with pytest.raises(RuntimeError, match="unknown placeholder"):
        new_pack.render("{{nope}}", {}, "t")
