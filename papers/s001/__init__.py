"""S001, Min, Mallada and Vidal, ICLR 2024 (early alignment): a built-in pack
(`theory.packs`).

claims, measures, families, evidence (the runs its tests share), the report section
repro_alignment (E-001-1, E-001-2) and tests.
"""
