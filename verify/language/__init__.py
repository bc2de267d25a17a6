"""The language claims, conjectures and tightened bounds are written in.

`measures` evaluates the vocabulary's quantities on a run, `expressions` parses what a
user types (a conjecture, a window, a time) into sympy without ``eval``, and `limits`
holds the allowed ranges of the numbers in it. The engine, the conjecture search and
``tighten`` all read statements through this package.
"""
