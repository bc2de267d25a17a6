"""PathEnergy(t) = (1/kappa) int_0^t |theta'(s)|^2 ds, measured on the saved times.

theta' is the trajectory's own velocity (`numerics.Trajectory.velocity`: -kappa grad L,
the Filippov velocity on sliding modes). The integral is the cumulative trapezoid rule.
Its error: |theta'|^2 jumps where a neuron switches or starts to slide, where the usual
Richardson estimate (the same rule on every other time) undercounts (measured: by 10x
on the family's runs), so each interval [t_k, t_k+1] is bounded as if the integrand
were monotone there, h_k |f(t_k+1) - f(t_k)| / 2 (the trapezoid value lies midway
between the two one-sided sums), summed up to t; plus the state's relative error floor.
"""

import numpy as np

from verify.language.measures import Series, relative_floor


def path_energy(tr) -> Series:
    vW, va = tr.velocity
    f = (np.sum(vW**2, axis=(-2, -1)) + np.sum(va**2, axis=-1)) / tr.problem.flow_factor
    h = np.diff(tr.t)
    values = np.concatenate([[0.0], np.cumsum(0.5 * h * (f[1:] + f[:-1]))])
    rule = np.concatenate([[0.0], np.cumsum(0.5 * h * np.abs(np.diff(f)))])
    with np.errstate(invalid="ignore"):  # a companion run has no error estimate (inf) of its own
        floor = relative_floor(tr, 2.0) * np.abs(values)
    return Series(values, rule + floor)


TRAJECTORY = {"PathEnergy": path_energy}
