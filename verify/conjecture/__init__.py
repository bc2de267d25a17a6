"""Checking new conjectures: state it, search it, shrink the counterexample.

The parts: `statement` (the text or callable as a claim), `instance` (one instance's
run and check), `search` (the hypothesis search and the shrink, `conjecture()`),
`result` (what a search returns), `scaling` (conjectures on how an asymptotic
quantity scales with n), `stored` (scaling laws read from a sweep store) and `cli`
(``gfverify conjecture``). ``from verify.conjecture import conjecture`` is the entry
point; the public names of `search`, `scaling` and `stored` are importable from here.
"""

from verify.lazy import forwarding

__getattr__, __dir__ = forwarding(__name__, "verify.conjecture.search",
                                  "verify.conjecture.scaling", "verify.conjecture.stored")
