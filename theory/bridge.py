"""One bridge from sympy to numbers: numpy, mpmath or torch.

Applied trajectory functions such as ``L(t)`` or ``L(0)`` become plain symbols
(``L__t``, ``L__0``) before lambdify, so a caller passes measured arrays by name;
a time derivative ``d/dt UPlus(t)`` becomes ``dUPlus__t`` (a measured rate).

Functions a backend lacks are supplied here: harmonic numbers (S001's t_1) for
numpy and torch, and Min/Max of mixed numbers and tensors for torch.
"""

from __future__ import annotations

from collections.abc import Callable

import sympy as sp

BACKENDS = ("numpy", "mpmath", "torch")


def flat_name(term: sp.Basic) -> str:
    """The argument name an applied function or symbol gets: L(t) -> 'L__t'."""
    if isinstance(term, sp.Symbol):
        return term.name
    if isinstance(term, sp.Derivative):
        return "d" + flat_name(term.expr)
    if isinstance(term, sp.core.function.AppliedUndef):
        (arg,) = term.args
        tag = "t" if arg == sp.Symbol("t", nonnegative=True, real=True) else sp.sstr(arg)
        return f"{term.func.__name__}__{tag}".replace(".", "_").replace("-", "m")
    raise TypeError(f"cannot name {term!r}")


def flatten(expr: sp.Basic) -> tuple[sp.Basic, dict[str, sp.Basic]]:
    """``expr`` with applied functions replaced by symbols, and name -> original term."""
    originals: dict[str, sp.Basic] = {}
    flat = expr
    for kind in (sp.Derivative, sp.core.function.AppliedUndef):
        subs = {}
        for term in flat.atoms(kind):
            name = flat_name(term)
            originals[name] = term
            subs[term] = sp.Symbol(name, real=True)
        flat = flat.xreplace(subs) if subs else flat
    for s in expr.free_symbols:
        originals.setdefault(s.name, s)
    return flat, originals


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

        fn = sp.lambdify(args, _with_float_constants(flat), modules="torch",
                         printer=_torch_printer())
    elif backend == "numpy":
        fn = sp.lambdify(args, flat, modules=[{"harmonic": _numpy_harmonic}, "numpy"])
    else:
        fn = sp.lambdify(args, flat, modules="mpmath")

    def call(**values):
        missing = [nm for nm in names if nm not in values]
        if missing:
            raise KeyError(f"missing values for {missing}")
        return fn(*(values[nm] for nm in names))

    return call, names


def _with_float_constants(expr: sp.Basic) -> sp.Basic:
    """Exact constants (sqrt(2), 1/4) as floats: torch functions take tensors, not sympy
    numbers. Containers without evalf (Tuple) are handled element by element."""
    if hasattr(expr, "evalf"):
        return expr.evalf()
    return expr.func(*(_with_float_constants(a) for a in expr.args))


def _numpy_harmonic(k):
    """H_k = 1 + 1/2 + ... + 1/k for integer-valued k (scalar or array)."""
    import math

    import numpy as np

    values = np.vectorize(lambda q: math.fsum(1.0 / j for j in range(1, int(round(q)) + 1)),
                          otypes=[float])(np.asarray(k))
    return values if values.ndim else float(values)


def _torch_printer():
    """sympy's torch printer, plus harmonic numbers and Min/Max of numbers and tensors."""
    from sympy.printing.pytorch import TorchPrinter  # imports torch: only when asked for

    class Printer(TorchPrinter):
        def _tensor(self, expr) -> str:
            return (f"{self._module_format('torch.as_tensor')}({self._print(expr)}, "
                    f"dtype={self._module_format('torch.float64')})")

        def _fold(self, name: str, expr) -> str:
            out, *rest = (self._tensor(a) for a in expr.args)
            for arg in rest:
                out = f"{self._module_format(name)}({out}, {arg})"
            return out

        def _print_Min(self, expr) -> str:
            return self._fold("torch.minimum", expr)

        def _print_Max(self, expr) -> str:
            return self._fold("torch.maximum", expr)

        def _print_harmonic(self, expr) -> str:
            if len(expr.args) != 1:
                raise TypeError(f"only first-order harmonic numbers are supported: {expr}")
            digamma = self._module_format("torch.special.digamma")
            return f"({digamma}({self._tensor(expr.args[0])} + 1) + {float(sp.EulerGamma)!r})"

    return Printer({"fully_qualified_modules": True, "inline": True,
                    "allow_unknown_functions": True, "user_functions": {}})
