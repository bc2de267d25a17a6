"""The eight papers gfverify is built around, as built-in packs (`theory.packs`).

Each folder is laid out as an outside pack is (``examples/packs/`` shows one) and uses only
the public API an outside pack can use; the engine (``theory``, ``numerics``, ``verify``)
imports none of them and finds them through `theory.packs.BUILTIN`:

- ``s000``: weakly interacting data (Dana et al. 2025): claims, measures, families,
  published reference data and protocols, reproductions E-000-2/4/5, tests;
- ``s001``: early alignment (Min, Mallada, Vidal, ICLR 2024): claims, measures, family,
  evidence runs, reproductions E-001-1/2, tests;
- ``s002``: saddle to saddle (Boursier, Pillaud-Vivien, Flammarion, NeurIPS 2022): claims,
  measures, families, the foundation table and reproduction E-002-1, tests;
- ``cel23``: a teacher neuron on correlated inputs (Chistikov, Englert, Lazic, NeurIPS
  2023): claims, the exact yardsticks, Theorem 8's quantity M, measures, families, tests;
- ``bf25``: early alignment is a two-edged sword (Boursier, Flammarion, JMLR 2025): claims,
  the data's activation cones, measures, families, evidence, the non-convergence
  reproduction, tests;
- ``mzv25``: neural collapse under gradient flow on orthogonally separable data (Min, Zhu,
  Vidal, NeurIPS 2025): claims, measures, the K-class quantities, families, evidence, the
  binary reproduction, tests;
- ``mor26``: mildly overparameterized ReLU networks on orthogonal data (arXiv 2605.27097,
  2026; only its abstract was read): Algorithm 1 (the lam -> 0 jump process, our
  reconstruction), claims, measures, family, evidence, the staircase reproduction, tests;
- ``bf25b``: simplicity bias and the optimisation threshold (Boursier, Flammarion, ICML
  2025; only its abstract was read): the linear-teacher data, a d-general extremal-vector
  finder (each vector verified exactly), claims, measures, family, evidence, the threshold
  reproduction, tests.

A draft catalogue of a paper not yet a pack may sit in ``catalogues/``; it moves to the
pack's page, ``docs/papers/NAME.md``, when the pack is written (BF25B's and MOR26's did).
"""
