"""BF25, Boursier and Flammarion, JMLR 2025 (early alignment is a two-edged sword): a
built-in pack (`theory.packs`), laid out as an outside pack is.

data (the section 5 example, Assumption 3's box, Eq. (3)'s initialisation), cones (the
activation cones of the data and the quantities of Theorem 1's threshold, exact in
d = 2), claims, measures, families, evidence (the horizon of its runs), the report section
repro_nonconvergence (E-BF25-1) and tests.
"""
