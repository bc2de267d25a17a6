"""S002, Boursier, Pillaud-Vivien and Flammarion, NeurIPS 2022 (saddle to saddle): a
built-in pack (`theory.packs`).

claims, measures, families, evidence (the horizon past every S002 bound), the report
sections repro_foundation (S002-L1, T1, L3) and repro_gd (E-002-1), and tests.
"""
