"""MOR26's family and the sizes of its checks.

The data and the start are S002's orthogonal setting (`numerics.generators.orthonormal`:
x_k = e_k, |y_k| ~ U[0.5, 1.5] with both signs, balanced w_j = lam g_j), shared, not copied;
what differs is the width: MOR26 is about mild widths m ~ log n (S000's rule
floor(ln(n/0.05)/ln(4/3)) + 1, `numerics.generators.published_width`), where S002's
family (m >= 30, n <= 5) never goes, and about lam down to 1e-136 (the limits lam -> 0 are
read on 1/ln(1/lam), `papers.mor26.evidence.LIMIT_LAMS`).

The paper's own sizes could not be read (its experiments and figures were not reachable):
every group of `SIZES` says so, and its ``paper`` profile runs the full profile's sizes.
"""

from __future__ import annotations

from numerics import Problem, generators
from papers.mor26 import algorithm
from papers.mor26.evidence import mor26_horizon
from verify.instances.families import SMALL_SCALE, Family, FloatParam, IntParam, seed_param
from verify.results.sizes import Sizes


def _horizon(problem: Problem, params: dict) -> float:
    return mor26_horizon(problem)


MILD = Family(
    name="mor26-orthogonal",
    setting="MOR26",
    description="MOR26's setting: S002's orthonormal data (x_k = e_k, |y_k| ~ U[0.5,1.5], both "
    "signs) at a mild width m ~ log n and small lam; standard network, square loss, balanced "
    "init w_j = lam g_j",
    params={
        "n": IntParam(4, 16, "samples", default=8, limits=(2, None)),
        "p": IntParam(2, 24, "width m (S000's rule ln(n/0.05)/ln(4/3) + 1 by default)",
                      default=lambda v: generators.published_width(v["n"]),
                      default_text="ln(n/0.05)/ln(4/3)+1"),
        "d": IntParam(4, 16, "input dimension", default=lambda v: v["n"], default_text="n",
                      ge="n", limits=(2, None)),
        "lam": FloatParam(1e-136, 1e-6, "initialisation scale", default=1e-16,
                          limits=SMALL_SCALE),
        "seed": seed_param(),
    },
    build=lambda n, p, d, lam, seed: generators.orthonormal(n=n, d=d, p=p, lam=lam, seed=seed),
    horizon_rule=_horizon,
    horizon_text="(tau_N ln(1/lam) + 30 n/min_i |y~_{S_i}|)/(3/4), tau_N Algorithm 1's last "
    "activation",
)

FAMILIES = (MILD,)


# -- the draws of the checks ----------------------------------------------------------------------
#: a draw's limit is resolved along `papers.mor26.evidence.LIMIT_LAMS` when the corrections
#: lam^margin (`papers.mor26.algorithm.JumpProcess.margin`) are below e^-9 at its smallest lam
#: (margin >= 0.03 at lam = 1e-136); the draws of the limit checks are the first seeds that are
RESOLVED_MARGIN = 0.03


def resolved_seeds(n: int, p: int, count: int, start: int = 0,
                   interpolating: bool | None = None) -> tuple[int, ...]:
    """The first ``count`` seeds from ``start`` whose draw of the family (d = n) is generic
    for Algorithm 1 and resolved (`RESOLVED_MARGIN`), and, with ``interpolating`` True or
    False, whose limit does or does not fit every sample: the draws the limit checks read."""
    out: list[int] = []
    seed = start
    while len(out) < count:
        problem = generators.orthonormal(n=n, d=n, p=p, lam=1e-8, seed=seed)
        try:
            jp = algorithm.of_problem(problem)
        except algorithm.NotGeneric:
            jp = None
        if jp is not None and jp.margin >= RESOLVED_MARGIN and (
                interpolating is None or jp.interpolates == interpolating):
            out.append(seed)
        seed += 1
    return tuple(out)


def sequence_draws(profile: str) -> list[tuple[int, int, int]]:
    """(n, m, seed) of the lam sequences at ``profile`` (`SIZES`' first group: per entry
    [n, m, count, which], which "interpolating", "uncovered" or "any")."""
    which = {"interpolating": True, "uncovered": False, "any": None}
    out = []
    for n, p, count, kind in SIZES[0].at_profile(profile)["draws"]:
        out += [(n, p, seed) for seed in resolved_seeds(n, p, count,
                                                        interpolating=which[kind])]
    return out


_UNREAD = "none read: the paper's experiments could not be reached (its text was not read)"
_SAME = "the paper's sizes are unknown: the paper profile runs the full profile's sizes"
_SEQUENCE_CLAIMS = ("MOR26-Tx1", "MOR26-Tx1b", "MOR26-F3", "MOR26-F4", "MOR26-Tx2c",
                    "MOR26-A1", "MOR26-F1")
_FULL_DRAWS = {"draws": [[6, 4, 2, "any"], [8, 18, 2, "interpolating"], [8, 18, 1, "uncovered"],
                         [12, 6, 2, "any"], [12, 8, 1, "any"], [16, 8, 2, "any"]], "n": 16}

SIZES = (
    Sizes(key="MOR26 lam sequences", claims=_SEQUENCE_CLAIMS, paper=_UNREAD, scale="n",
          at={"quick": {"draws": [[8, 18, 1, "interpolating"], [12, 6, 1, "any"],
                                  [12, 8, 1, "any"]], "n": 12},
              "full": _FULL_DRAWS, "paper": _FULL_DRAWS},
          shown={"quick": "n = 8, 12, 12 at m = 18, 6, 8: one resolved draw each (the first "
                          "at n = 8 one whose limit interpolates), 10 lam from 1e-6 to 1e-136",
                 "full": "n = 6, 8, 8, 12, 12, 16 at m = 4, 18, 18, 6, 8, 8: ten resolved draws "
                         "(at n = 8: two that interpolate, one that does not), 10 lam from "
                         "1e-6 to 1e-136",
                 "paper": "as the full profile"},
          reason=_SAME),
    Sizes(key="MOR26 coverage sample", claims=("MOR26-Tx2", "MOR26-Tx2b", "MOR26-Tx2d"),
          paper=_UNREAD, scale="count",
          at={"quick": {"count": 3000, "n": 16, "p": 10},
              "full": {"count": 12000, "n": 16, "p": 10},
              "paper": {"count": 12000, "n": 16, "p": 10}},
          shown={"quick": "3,000 initialisations, n = 16, m = 10",
                 "full": "12,000 initialisations, n = 16, m = 10",
                 "paper": "as the full profile"},
          reason=_SAME),
    Sizes(key="MOR26 limit norm over n", claims=("MOR26-Tx4",), paper=_UNREAD, scale="n",
          at={"quick": {"n": [16 * 2**k for k in range(10)], "draws": 40},
              "full": {"n": [16 * 2**k for k in range(11)], "draws": 80},
              "paper": {"n": [16 * 2**k for k in range(11)], "draws": 80}},
          shown={"quick": "n = 16 .. 8192 (doubling), m = S000's rule, 40 draws each "
                          "(Algorithm 1 only)",
                 "full": "n = 16 .. 16384 (doubling), m = S000's rule, 80 draws each "
                         "(Algorithm 1 only)",
                 "paper": "as the full profile"},
          reason=_SAME),
)
