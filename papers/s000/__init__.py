"""S000, Dana et al. 2025 (weakly interacting data): a built-in pack (`theory.packs`).

claims, measures, families, reference (the published measurements in published/),
protocols (the published experiments as sweep files), the report sections repro_*
(E-000-2 by GD and by the flow, E-000-4, E-000-5) and tests.
"""
