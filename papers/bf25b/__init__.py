"""BF25B, Boursier and Flammarion, "Simplicity bias and optimization threshold in two-layer
ReLU networks" (ICML 2025, arXiv 2410.02348; abstract only: its body was not read): a
built-in pack (`theory.packs`).

data (the linear-teacher instances), extremal (a d-general finder of D_n's extremal vectors,
each verified exactly), claims, measures, families, evidence (the Monte Carlo population
field, the angle series over n, the flows over n), the report section repro_threshold
(E-BF25B-1), and tests. BF25's initialisation and OLS measures are imported, not copied.
"""
