"""One bridge from sympy to numbers: numpy, mpmath or torch.

Applied trajectory functions such as ``L(t)`` or ``L(0)`` become plain symbols
(``L__t``, ``L__0``) before lambdify, so a caller passes measured arrays by name.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

BACKENDS = ("numpy", "mpmath", "torch")


def flat_name(term: sp.Basic) -> str:
    """The argument name an applied function or symbol gets: L(t) -> 'L__t'."""
    if isinstance(term, sp.Symbol):
        return term.name
    if isinstance(term, sp.core.function.AppliedUndef):
        (arg,) = term.args
        tag = "t" if arg == sp.Symbol("t", nonnegative=True, real=True) else sp.sstr(arg)
        return f"{term.func.__name__}__{tag}".replace(".", "_").replace("-", "m")
    raise TypeError(f"cannot name {term!r}")


def flatten(expr: sp.Basic) -> tuple[sp.Basic, dict[str, sp.Basic]]:
    """``expr`` with applied functions replaced by symbols, and name -> original term."""
    originals: dict[str, sp.Basic] = {}
    subs = {}
    for term in expr.atoms(sp.core.function.AppliedUndef):
        name = flat_name(term)
        originals[name] = term
        subs[term] = sp.Symbol(name, real=True)
    for s in expr.free_symbols:
        originals.setdefault(s.name, s)
    return expr.xreplace(subs), originals


def lambdify(expr: sp.Basic, backend: str = "numpy") -> tuple[Callable, tuple[str, ...]]:
    """A function of keyword arguments (the flat names) evaluating ``expr``."""
    if backend not in BACKENDS:
        raise ValueError(f"backend: {backend!r} is not one of {BACKENDS}")
    flat, originals = flatten(expr)
    names = tuple(sorted(originals))
    args = [sp.Symbol(nm, real=True) for nm in names]
    # match the assumptions of the symbols actually present
    present = {s.name: s for s in flat.free_symbols}
    args = [present.get(nm, a) for nm, a in zip(names, args, strict=True)]
    if backend == "torch":
        import torch  # noqa: F401  (imported only when asked for)

        fn = sp.lambdify(args, flat, modules="torch")
    else:
        fn = sp.lambdify(args, flat, modules=backend)

    def call(**values):
        missing = [nm for nm in names if nm not in values]
        if missing:
            raise KeyError(f"missing values for {missing}")
        return fn(*(values[nm] for nm in names))

    return call, names
