"""MOR26, "Mildly Overparameterized ReLU Networks on Orthogonal Data: Incremental Learning and
Implicit Bias" (arXiv 2605.27097, 2026; abstract only: its text was not read): a built-in
pack (`theory.packs`).

algorithm (Algorithm 1: the lam -> 0 jump process, our reconstruction), claims, measures,
families, evidence (horizons, the lam sequences, the norm ratio along n), the report section
repro_staircase (E-MOR26-1), and tests.
"""
