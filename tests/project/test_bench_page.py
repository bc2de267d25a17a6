"""The benchmarks page's measured numbers are recorded runs': every generated block of
docs/benchmarks.md is the rendering of its record in bench/results (bench/record.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "benchmarks.md"


def _record_module():
    spec = importlib.util.spec_from_file_location("bench_record", ROOT / "bench" / "record.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_block_is_its_record():
    record = _record_module()
    text = PAGE.read_text()
    names = record.blocks(text)
    assert len(names) >= 3, names
    assert record.page_text(text) == text, ("docs/benchmarks.md disagrees with bench/results: run "
                       "`python bench/record.py --page docs/benchmarks.md`")
    for name in names:
        rec = record.load(name)
        assert rec["output"].strip() and rec["commit"], name
        assert rec.get("stored_as", rec["name"]) == name, (name, rec["name"])
        assert rec["command"].startswith(f"python bench/{rec['name']}.py"), rec["command"]


def test_a_changed_record_is_caught(tmp_path, monkeypatch):
    record = _record_module()
    text = PAGE.read_text()
    name = record.blocks(text)[0]
    original = record.load
    rec = original(name)
    rec["output"] += "\nedited"
    monkeypatch.setattr(record, "load", lambda n: rec if n == name else original(n))
    assert record.page_text(text) != text


def test_a_second_record_of_one_script_says_how_it_was_made():
    record = _record_module()
    rec = dict(record.load(record.blocks(PAGE.read_text())[0]), stored_as="other_run")
    assert f"`python bench/record.py --as other_run {rec['name']}`" in record.render(rec)
    del rec["stored_as"]
    assert " --as " not in record.render(rec)
