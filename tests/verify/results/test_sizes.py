"""`verify.results.sizes`: the packs' sizes tables, the paper profile's rule, the verdict table's
size
column, the findings page's sizes table and the verdicts that change with size."""

from __future__ import annotations

import json

import pytest

import theory
from theory.fields import RecordError
from verify.engine.verdict import Outcome, Verdict, Where
from verify.results import sizes
from verify.results.table import VerdictLog, format_table, markdown_table
from verify.running.profiles import PROFILES, get_profile, per_profile


def _group(paper_scale=2000, paper_n=40, reason=""):
    return sizes.Sizes(key="toy", claims=("S000-T1",), paper="n = 2,000 (E-toy)",
                       paper_scale=paper_scale, scale="n",
                       at={"quick": {"n": 4}, "full": {"n": 8}, "paper": {"n": paper_n}},
                       shown={"quick": "n = 4", "full": "n = 8", "paper": f"n = {paper_n}"},
                       reason=reason)


def test_the_paper_profile_must_reach_ten_times_the_full_size_or_say_why():
    assert _group(paper_n=80).meets_rule()  # 10 x 8
    with pytest.raises(RecordError, match="below 10 x the full profile's"):
        _group(paper_n=40)
    assert not _group(paper_n=40, reason="memory").meets_rule()
    assert _group(paper_scale=30, paper_n=30).meets_rule()  # the paper's own size is enough
    assert _group(paper_scale=None, paper_n=8).target() is None  # no larger paper size


def test_a_table_must_cover_every_profile():
    with pytest.raises(RecordError, match="one entry per profile"):
        sizes.Sizes(key="x", claims=(), paper="", scale="n", at={"quick": {"n": 1}},
                    shown={"quick": ""})


def test_every_checkable_claim_of_every_pack_has_its_sizes():
    """Each checkable claim of the built-in packs is in a group of its pack's sizes table,
    and every group reaches ten times the full profile's size (or the paper's) under the
    paper profile, or says why (checked where the table is made)."""
    tables = sizes.declared()
    for paper in ("S000", "S001", "S002", "CEL23", "BF25", "MZV25"):
        missing = [c.id for c in theory.claims(paper=paper)
                   if c.checkable and not sizes.for_claim(c.id, tables)]
        assert not missing, (paper, missing)
    assert all(g.meets_rule() or g.reason for g in tables)
    seeds = [g for g in tables if g.key.startswith(("S000", "S001", "S002"))]
    below = [g.key for g in seeds if not g.meets_rule()]
    # each with its reason on the row; the fourth: S002's lam -> 0 sequence at m = 8 (issue 51)
    assert len(below) <= 4, below


def test_under_the_paper_profile_each_row_says_its_sizes_and_why():
    log = VerdictLog(profile="paper")
    log.record(Verdict("S000-T1", Outcome.HOLDS, margin=0.1, error=0.01,
                       where=Where("abc", 0, 1.0)), "pointwise bound")
    row = log.table()[0]
    assert "n = 12, 24" in row["size"] and "not weakly interacting" in row["size_reason"]
    assert "n = 160" in row["size"]  # its orthogonal protocol group too
    lines = format_table(log.table())
    assert lines[0].split()[-1] == "size" and "below the paper's" in lines[1]
    assert "| size |" in markdown_table(log.table())
    quick = VerdictLog(profile="quick")
    quick.record(Verdict("S000-T1", Outcome.HOLDS, margin=0.1, error=0.01), "pointwise bound")
    assert "size" not in quick.table()[0] and "size" not in format_table(quick.table())[0]


def test_a_verdict_that_changes_with_size_is_a_finding_with_both_instances():
    small = {"profile": "full", "claims": [
        {"claim": "S000-T1", "data": "simulated", "verdict": "HOLDS", "instances": 31,
         "worst_margin": 0.02, "error": 0.001, "where": "aaa seed=0 t=1"},
        {"claim": "S000-L3", "data": "simulated", "verdict": "HOLDS", "instances": 3,
         "worst_margin": 0.1, "error": 0.0, "where": "bbb"}]}
    large = {"profile": "paper", "claims": [
        {"claim": "S000-T1", "data": "simulated", "verdict": "VIOLATED", "instances": 6,
         "worst_margin": -0.3, "error": 0.01, "where": "ccc seed=0 t=5"},
        {"claim": "S000-L3", "data": "simulated", "verdict": "HOLDS", "instances": 5,
         "worst_margin": 0.2, "error": 0.0, "where": "ddd"}]}
    found = sizes.verdict_changes(small, large)
    assert [f.id for f in found] == ["sizes-S000-T1"]
    text = found[0].text
    assert "HOLDS at the full profile" in text and "VIOLATED at the paper profile" in text
    assert "aaa seed=0 t=1" in text and "ccc seed=0 t=5" in text and "n = 160" in text


def test_the_findings_command_compares_two_runs(tmp_path, capsys):
    from verify.front.cli import main

    for name, verdict in (("a", "HOLDS"), ("b", "VIOLATED")):
        (tmp_path / f"{name}.json").write_text(json.dumps({
            "profile": "full" if name == "a" else "paper", "findings": [], "claims": [
                {"claim": "S002-T1", "data": "simulated", "verdict": verdict, "instances": 2,
                 "worst_margin": 1.0, "error": 0.1, "where": name}]}))
    assert main(["findings", str(tmp_path / "b.json"), "--against",
                 str(tmp_path / "a.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 verdict(s) differ") and "sizes-S002-T1" in out


def test_the_findings_block_holds_the_sizes_table_and_a_stale_one_is_named(tmp_path):
    from verify.results import findings as F

    run = {"profile": "quick", "tests": {"passed": 1}, "findings": [], "claims": []}
    page = tmp_path / "page.md"
    page.write_text(f"# x\n{F.BLOCK_BEGIN}\nold\n{F.BLOCK_END}\n")
    F.update_page(page, run)
    block = F.page_block(page)
    assert "### At which sizes the claims are checked" in block
    assert "| checks | claims | the paper's size |" in block and "why: note 1" in block
    assert F.page_disagreements(page, run) == []
    page.write_text(page.read_text().replace("E-000-4", "E-000-9"))
    assert any(d.startswith("sizes:") for d in F.page_disagreements(page, run))


def test_the_report_s_first_screen_says_at_which_sizes():
    line = sizes.profile_line("quick")
    assert line.startswith("Verdicts obtained at the `quick` profile's sizes:")
    assert "below it" in line and "sizes table" in line


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_every_report_section_and_pack_table_has_every_profile(name):
    """The per-profile tables of the packs' sections and tests accept the paper profile (a
    table without it would be refused by `per_profile`, never read as quick's)."""
    from papers.bf25.repro_nonconvergence import SETTINGS as bf25
    from papers.cel23 import repro_dynamics, repro_rank, repro_theorem8
    from papers.mzv25.repro_binary import SETTINGS as mzv25
    from papers.s000.groups_model import PROFILES as groups
    from papers.s001.alignment import settings_for

    get_profile(name)
    for table in (bf25, mzv25, groups, repro_dynamics.HORIZON, repro_rank.GRID,
                  repro_rank.GD_UP_TO, repro_theorem8.GRID, repro_theorem8.MAX_CELLS):
        per_profile(table, name)
    settings_for(name)
    for group in sizes.declared():
        group.at_profile(name)
