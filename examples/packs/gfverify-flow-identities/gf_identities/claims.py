"""The pack's claims, in gfverify's vocabulary plus one term of its own (PathEnergy).

Along theta' = -kappa grad L (the Filippov velocity where a pre-activation slides):
dL/dt = <grad L, theta'> = -|theta'|^2 / kappa, so
  GF-1  L(0) - L(t) = (1/kappa) int_0^t |theta'|^2 ds         (energy identity),
and by Cauchy-Schwarz, |theta(t) - theta(0)| <= int_0^t |theta'| <= sqrt(t int |theta'|^2):
  GF-3  |theta(t) - theta(0)|^2 <= kappa t (L(0) - L(t)),
  GF-4  |theta(t) - theta(0)|^2 <= kappa t L(0)                 (L >= 0).
For ReLU (positively homogeneous) units, d/dt (a_j^2 - |w_j|^2) = 0:
  GF-2  max_j |c_j(t) - c_j(0)| = 0 with c_j = a_j^2 - |w_j|^2.
"""

import sympy as sp

from theory import Claim, Kind, Provenance, Source
from theory.symbols import Balance, L, ParamDrift, Term, kappa, t

PathEnergy = sp.Function("PathEnergy")

TERMS = (Term("PathEnergy", PathEnergy, "trajectory",
              "(1/kappa) int_0^t |dtheta/ds|^2 ds, the energy dissipated along the run "
              "(trapezoid rule on the saved times; pack GF)"),)
LATEX_NAMES = {"PathEnergy": r"\mathcal{E}(t)"}

_SRC = "GF"


def _source(where: str) -> Source:
    return Source(_SRC, where, Provenance.DERIVED)


ENERGY = Claim(
    id="GF-1", title="energy identity: the loss lost is the energy dissipated",
    kind=Kind.IDENTITY, source=_source("dL/dt = -|theta'|^2/kappa, integrated"),
    statement=sp.Eq(L(0) - L(t), PathEnergy(t)), loss="square",
    measures="L(0) - L(t) against the trapezoid integral of |theta'|^2/kappa over the saved "
    "times (its error: the difference to the same rule on every other time)",
    notes="Checks the integrator: a flow that moved at the wrong speed, or a velocity taken "
    "on the wrong side of a kink, breaks it.")

BALANCE = Claim(
    id="GF-2", title="a_j^2 - |w_j|^2 is conserved by every ReLU neuron",
    kind=Kind.CONSERVED, source=_source("positive homogeneity of relu"),
    statement=sp.Eq(Balance(t), 0), parametrization="standard", loss="square",
    measures="max_j |c_j(t) - c_j(0)|, c_j = a_j^2 - |w_j|^2")

DISPLACEMENT = Claim(
    id="GF-3", title="the run moves at most sqrt(kappa t (L(0) - L(t)))",
    kind=Kind.POINTWISE, source=_source("Cauchy-Schwarz on int |theta'|"),
    statement=sp.Le(ParamDrift(t) ** 2, kappa * t * (L(0) - L(t))), loss="square",
    window=(sp.Integer(1), sp.oo),
    measures="|theta(t) - theta(0)|^2 against kappa t (L(0) - L(t)), from t = 1",
    notes="For small t the two sides agree to third order in t (the path is nearly "
    "straight), inside the numerical error; so the check starts at t = 1.")

DISPLACEMENT_L0 = Claim(
    id="GF-4", title="the run moves at most sqrt(kappa t L(0))",
    kind=Kind.POINTWISE, source=_source("GF-3 with L(t) >= 0"),
    statement=sp.Le(ParamDrift(t) ** 2, kappa * t * L(0)), loss="square",
    measures="|theta(t) - theta(0)|^2 against kappa t L(0)")

CLAIMS = (ENERGY, BALANCE, DISPLACEMENT, DISPLACEMENT_L0)
