"""The conjecture benchmark at the families' default ranges and at the papers' sizes
(`bench/conjectures.py --sizes default|paper`, recorded side by side in
bench/results/conjectures_sizes_default.json and conjectures_sizes_paper.json): searches at
the papers' sizes decide at least as often as at the default ones (issue 50's acceptance),
on the same statements, budget and seed, with no wrong answer at either."""

from __future__ import annotations

import json
import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results"
_HEAD = re.compile(r"^(\d+) statements, budget (\d+), seed (\d+), \d+ at a time, (\w+) sizes$")
_ROW = re.compile(r"^(\S+)\s+\S+\s+(?:flow|gd)\s+(?:true|false)\s+"
                  r"(NO COUNTEREXAMPLE|COUNTEREXAMPLE|UNDECIDED|ERROR)\s+\S+\s+(\d+)/(\d+)\s")


def parse(output: str) -> dict:
    """The header, and per statement its answer and its instances decided and tried."""
    lines = output.splitlines()
    head = _HEAD.match(lines[0])
    assert head, lines[0]
    rows = {}
    for line in lines[2:]:
        m = _ROW.match(line)
        if m:
            rows[m[1]] = (m[2], int(m[3]), int(m[4]))
    wrong = re.search(r"^WRONG answers: (\d+)", output, re.M)
    return {"statements": int(head[1]), "budget": int(head[2]), "seed": int(head[3]),
            "sizes": head[4], "rows": rows, "wrong": int(wrong[1]) if wrong else None}


def test_the_parser_reads_a_block():
    text = ("2 statements, budget 5, seed 0, 2 at a time, paper sizes\nid ...\n"
            "A  two-point flow true  NO COUNTEREXAMPLE correct  4/5  2.1  L(t) <= L(0)\n"
            "B  sphere    gd   false UNDECIDED         undecided 0/3  9.0  x\n\n"
            "WRONG answers: 0\n")
    got = parse(text)
    assert got["sizes"] == "paper" and got["wrong"] == 0
    assert got["rows"] == {"A": ("NO COUNTEREXAMPLE", 4, 5), "B": ("UNDECIDED", 0, 3)}


def test_searches_at_the_papers_sizes_decide_at_least_as_often():
    default, paper = (parse(json.loads((RESULTS / f"conjectures_sizes_{which}.json")
                                       .read_text())["output"]) for which in ("default", "paper"))
    assert (default["sizes"], paper["sizes"]) == ("default", "paper")
    assert (default["budget"], default["seed"]) == (paper["budget"], paper["seed"])
    assert set(default["rows"]) == set(paper["rows"]) and len(paper["rows"]) == \
        paper["statements"]
    assert default["wrong"] == 0 and paper["wrong"] == 0

    def answered(run):  # statements answered (NO COUNTEREXAMPLE or COUNTEREXAMPLE)
        return sum(a in ("NO COUNTEREXAMPLE", "COUNTEREXAMPLE") for a, _, _ in
                   run["rows"].values())

    def share(run):  # instances decided (HOLDS or VIOLATED) of those tried
        return (sum(d for _, d, _ in run["rows"].values())
                / sum(t for _, _, t in run["rows"].values()))

    assert answered(paper) >= answered(default)
    assert share(paper) >= share(default)
