"""How tight is a bound: the sharpest value of a constant, with the instance that attains it.

The parts: `statement` (a statement or a claim with one free constant, solved for it),
`extreme` (one instance: the extreme of the constant's critical value over its window),
`search` (the adversarial search, the refinement and the witness check: `tighten`,
`tighten_claim`), `result` (what a tightening returns), `store` (resumable SQLite rows)
and `cli` (``gfverify tighten``). Public names of `search` are importable from here.
"""

from verify.lazy import forwarding

__getattr__, __dir__ = forwarding(__name__, "verify.tighten.search")
