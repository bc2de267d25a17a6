"""CEL23, Chistikov, Englert and Lazić, NeurIPS 2023 (a teacher neuron on correlated
inputs): a built-in pack (`theory.packs`), laid out as an outside pack is.

data (the paper's data and initialisation schemes), yardstick (the exactly solvable
yardstick trajectories and the instance quantities delta, Delta, T0, eta_k, nu_k*),
theorem8 (M, Example 37, the explicit interpolators), claims, measures, families,
evidence (the runs its tests share), report sections and tests.
"""
