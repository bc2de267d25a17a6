"""MZV25, Min, Zhu and Vidal, NeurIPS 2025 (neural collapse under gradient flow on
shallow ReLU networks for orthogonally separable data): a built-in pack (`theory.packs`),
laid out as an outside pack is.

claims (the binary case checked, the K-class case declared), measures (the binary
quantities on runs), multiclass (every quantity as a function of arrays, for K >= 2, and the
K-class generators), families (the binary instances), evidence (the runs the tests and the
report share), the report section repro_binary (E-MZV25-1) and tests.
"""
