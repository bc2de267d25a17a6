"""The extremal-vector finder (`papers.bf25b.extremal`): BF25's exact cones in d = 2, a case
whose answer is known in closed form, the face solve, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

from papers.bf25 import cones
from papers.bf25b import extremal as E
from papers.bf25b.data import teacher_problem


def _directions(result: E.Search) -> list[tuple[int, np.ndarray]]:
    return [(e.sign, e.u) for e in result.found]


def _cones_extremal(problem) -> list[tuple[int, np.ndarray, str]]:
    """(sign, unit vector, kind of cell) of every extremal vector BF25's cones enumerate."""
    out = []
    norms = np.linalg.norm(problem.X, axis=1)
    for pat in cones.patterns(problem):
        for D in cones.extremal(pat):
            u = D / np.linalg.norm(D)
            z, s = problem.X @ u / norms, np.array(pat.u)
            if np.all(z[s != 0] * s[s != 0] >= -1e-10) and np.all(np.abs(z[s == 0]) <= 1e-10):
                out.append((1, u, pat.kind))
            else:
                out.append((-1, -u, pat.kind))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_d2_agrees_with_bf25_cones(seed):
    """In d = 2, every extremal vector the search finds is one of the cones' (exact
    enumeration), and every one the cones put in an open sector is found (from 64 starts)."""
    problem = teacher_problem(12, 2, 2, 1e-3, 0.5, seed)
    ref = _cones_extremal(problem)
    rng = np.random.default_rng(seed)
    found = E.search(problem.X, problem.y, E.random_starts(2, 64, rng))
    assert found.found
    for sign, u in _directions(found):
        assert any(s == sign and np.allclose(u, v, atol=1e-9) for s, v, _ in ref), (sign, u)
    for s, v, kind in ref:
        if kind == "sector":
            assert any(sign == s and np.allclose(u, v, atol=1e-9)
                       for sign, u in _directions(found)), (s, v)


@pytest.mark.parametrize("d", (3, 5, 8))
def test_antithetic_sample_has_exactly_the_known_pair(d):
    """Samples closed under x -> -x with noiseless labels y = <beta, x>: on every open cell
    D_n(u) = (1/(2n)) X^T X beta exactly (each pair contributes (<beta, x>) x once), so the
    extremal vectors are +-X^T X beta/|X^T X beta| and nothing else."""
    rng = np.random.default_rng(d)
    half = rng.standard_normal((40, d))
    X = np.vstack([half, -half])
    beta = rng.standard_normal(d)
    y = X @ beta
    target = X.T @ X @ beta
    target /= np.linalg.norm(target)
    result = E.search(X, y, E.random_starts(d, 24, rng))
    assert {e.sign for e in result.found} == {1, -1}
    for e in result.found:
        assert np.allclose(e.u, e.sign * target, atol=1e-12)
        assert e.value == pytest.approx(np.linalg.norm(X.T @ X @ beta) / (2 * len(y)))
    assert len(result.found) == 2 and result.unresolved == 0


def test_a_non_extremal_vector_is_refused():
    """`verify` returns None for a vector whose cell's D_n points out of the cell, and the
    vector it returns for an extremal cell is D_n's own direction (not the input)."""
    problem = teacher_problem(100, 4, 2, 1e-3, 0.2, 0)
    X, y = problem.X, problem.y
    beta = np.asarray(problem.meta["teacher"])
    e = E.iterate(X, y, beta, 1)
    assert e is not None and 0 not in e.pattern
    off = np.linalg.qr(np.column_stack([e.u, np.eye(4)[:, :3]]))[0][:, 1]
    assert E.verify(X, y, off, 1) is None
    near = e.u + 0.1 * e.margin * off
    again = E.verify(X, y, near / np.linalg.norm(near), 1)
    assert again is not None and np.array_equal(again.u, e.u)
    D = E.field(X, y, e.u)
    assert np.allclose(D, e.value * e.u, rtol=0, atol=1e-15)


def test_face_vectors_satisfy_the_set_valued_definition():
    """A draw whose iteration cycles across a face (n = 200, d = 5): every vector found on a
    face is orthogonal to the face's inputs to rounding, keeps the other signs, and equals
    sign D(eta)/|D(eta)| for some eta in [0, 1] on the face's samples (least squares)."""
    rng = np.random.default_rng(200_003)
    beta = rng.standard_normal(5)
    beta /= np.linalg.norm(beta)
    X = rng.standard_normal((200, 5))
    y = X @ beta + 0.5 * rng.standard_normal(200)
    result = E.search(X, y, E.random_starts(5, 32, rng))
    faces = [e for e in result.found if 0 in e.pattern]
    assert faces, "this draw was chosen for its faces"
    for e in faces:
        p = np.array(e.pattern)
        zero = np.flatnonzero(p == 0)
        z = X @ e.u / np.linalg.norm(X, axis=1)
        assert np.max(np.abs(z[zero])) <= E.FACE_TOL
        assert np.all(np.sign(z[p != 0]) == p[p != 0])
        base = (y[p > 0] @ X[p > 0]) / len(y)
        V = (y[zero, None] * X[zero]) / len(y)
        eta = np.linalg.lstsq(V.T, e.sign * e.value * e.u - base, rcond=None)[0]
        assert np.all(eta >= -1e-9) and np.all(eta <= 1 + 1e-9)
        assert np.allclose(base + eta @ V, e.sign * e.value * e.u, atol=1e-12)


def test_largest_angle_and_refusals():
    with pytest.raises(ValueError, match="no extremal vector"):
        E.largest_angle(E.Search(found=(), starts=2, unresolved=2), np.ones(3))
    u = np.array([1.0, 0.0])
    res = E.Search(found=(E.Extremal(u, 1, 1.0, 0.1, (1,)),
                          E.Extremal(np.array([-0.6, -0.8]), -1, 1.0, 0.1, (1,))),
                   starts=2, unresolved=0)
    assert E.largest_angle(res, np.array([2.0, 0.0])) == pytest.approx(np.arccos(0.6))
