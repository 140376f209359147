"""Tests of gpuscipy.linalg solvers and LU/Cholesky factorizations.

CPU part: a NumPy model of the batched warp-per-system kernels
(``_helpers``) checked against LAPACK (pivots, packed factor, solves,
condition estimate), and an NVRTC compile of representative kernel variants.
GPU part (``gpu`` marker): parity with scipy.linalg.

Tolerances: solutions are compared by relative residual-scale error,
float64/complex128 1e-10 and float32/complex64 1e-4: LU with partial
pivoting is backward stable, so ``|x - x_ref| / |x|`` is about
``cond(a) * eps``; the random test matrices have cond < 1e3, giving ~1e-13
(double) and ~1e-4 at worst (single, eps 1.2e-7).
"""

import warnings

import numpy as np
import pytest
import scipy.linalg as sl

from tests.linalg._helpers import (sim_lu_factor, sim_lu_solve_n, sim_lu_solve_t,
                                   sim_lu_rcond, sim_cholesky, sim_cholesky_solve)

TOL = {"f": 1e-4, "F": 1e-4, "d": 1e-10, "D": 1e-10}
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _rand(shape, dtype, rng):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _well(n, dtype, rng, batch=()):
    return (_rand(batch + (n, n), dtype, rng) + 4 * n ** 0.5 * np.eye(n)).astype(dtype)


# ------------------------------------------------------------ CPU: model

@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("n", [1, 2, 5, 17, 32])
def test_model_lu_matches_lapack(dtype, n):
    rng = np.random.default_rng(n)
    a = _rand((n, n), dtype, rng)
    r, pos, ipiv, info = sim_lu_factor(a)
    lu = np.empty_like(a)
    lu[pos[:n]] = r[:n]
    lu0, piv0 = sl.lu_factor(a)
    assert info == 0
    np.testing.assert_array_equal(ipiv, piv0)
    np.testing.assert_allclose(lu, lu0, rtol=1e-11, atol=1e-11)
    b = _rand((n,), dtype, rng)
    x = np.empty_like(b)
    x[pos[:n]] = sim_lu_solve_n(r, pos, b)[:n]
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10, atol=1e-10)
    c = np.zeros(32, dtype)
    c[:n] = b[pos[:n]]   # lane holding pivot row k loads b_k
    for conj, op in ((False, a.T), (True, a.conj().T)):
        z = sim_lu_solve_t(r, pos, c, conj)[:n]
        np.testing.assert_allclose(z, np.linalg.solve(op, b), rtol=1e-10, atol=1e-10)
    gecon = sl.lapack.get_lapack_funcs("gecon", (a,))
    rc_lapack, _ = gecon(lu0, np.linalg.norm(a, 1))
    np.testing.assert_allclose(sim_lu_rcond(a, r, pos), rc_lapack, rtol=1e-8)


def test_model_lu_singular_and_ties():
    # exact zero pivot -> LAPACK's info; ties -> LAPACK's pivots
    a = np.array([[1.0, 2, 3], [2, 4, 6], [1, 1, 1]])
    r, pos, ipiv, info = sim_lu_factor(a)
    lu0, piv0 = sl.lu_factor(np.array([[1.0, 2, 3], [2, 4, 6], [1, 1, 1]]))
    np.testing.assert_array_equal(ipiv, piv0)
    t = np.array([[1.0, 1, 1], [-1, 2, 1], [1, -1, 3]])
    r, pos, ipiv, info = sim_lu_factor(t)
    np.testing.assert_array_equal(ipiv, sl.lu_factor(t)[1])
    z = np.zeros((4, 4))
    assert sim_lu_factor(z)[3] == 1
    s = np.array([[1.0, 2], [2, 4]])
    assert sim_lu_factor(s)[3] == 2


def test_model_rcond_hilbert_warns():
    h = sl.hilbert(12)
    r, pos, _, _ = sim_lu_factor(h)
    assert sim_lu_rcond(h, r, pos) < np.finfo(np.float64).eps


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_model_cholesky(upper, dtype):
    rng = np.random.default_rng(3)
    g = _rand((9, 9), dtype, rng)
    a = g @ g.conj().T + 9 * np.eye(9)
    c, info = sim_cholesky(a, upper)
    assert info == 0
    np.testing.assert_allclose(c, sl.cholesky(a, lower=not upper), rtol=1e-12, atol=1e-12)
    b = _rand((9,), dtype, rng)
    low = c.conj().T if upper else c
    np.testing.assert_allclose(sim_cholesky_solve(low, b), np.linalg.solve(a, b),
                               rtol=1e-10, atol=1e-10)
    assert sim_cholesky(-np.eye(3, dtype=dtype), upper)[1] == 1


# ------------------------------------------------------- CPU: NVRTC compile

# (dtype, n, flags): every flag of the kernels appears; n=32 float64 is the bar.
LU_SPECS = [
    ("d", 32, dict(solve=True, want_rcond=True)),
    ("f", 7, dict(solve=True, trans=1)),
    ("F", 3, dict(solve=True, trans=2, want_rcond=True)),
    ("D", 2, dict(inv=True, want_rcond=True)),
    ("d", 5, dict(want_lu=True)),
    ("F", 4, dict(want_det=True)),
    ("d", 1, dict(solve=True, want_lu=True, want_det=True, want_rcond=True)),
]
CHOL_SPECS = [("d", 32, dict(upper=False)), ("D", 3, dict(upper=True, solve=True)),
              ("f", 6, dict(upper=True, want_factor=False, solve=True))]


@pytest.mark.parametrize("dtype,n,flags", LU_SPECS)
def test_lu_kernel_compiles(dtype, n, flags):
    from gpuscipy.linalg import _batched_lu as bl
    from gpuscipy_core._kernel import compile_cubin
    src, name = bl.lu_source(dtype, n, **flags)
    assert name == bl.lu_kernel_name(dtype, n, **flags)
    assert compile_cubin(src, name)


@pytest.mark.parametrize("dtype,n,flags", CHOL_SPECS)
def test_cholesky_kernel_compiles(dtype, n, flags):
    from gpuscipy.linalg import _batched_lu as bl
    from gpuscipy_core._kernel import compile_cubin
    src, name = bl.cholesky_source(dtype, n, **flags)
    assert compile_cubin(src, name)


def test_kernel_spec_errors():
    from gpuscipy.linalg import _batched_lu as bl
    with pytest.raises(ValueError):
        bl.lu_source("d", 33)
    with pytest.raises(TypeError):
        bl.lu_source("i", 3)
    assert bl.warps_per_block("D", 32) == 2 and bl.warps_per_block("d", 32) == 4


# ------------------------------------------------------------- GPU parity

gpu = pytest.mark.gpu


def _gp():
    import gpuscipy_core as gp
    from gpuscipy import linalg
    return gp, linalg


def _close(x, ref, dtype):
    xh = x.get() if hasattr(x, "get") else np.asarray(x)
    ref = np.asarray(ref)
    assert xh.shape == ref.shape, (xh.shape, ref.shape)
    assert xh.dtype == ref.dtype, (xh.dtype, ref.dtype)
    scale = max(np.abs(ref).max(), 1.0) if ref.size else 1.0
    np.testing.assert_allclose(xh, ref, rtol=0, atol=TOL[np.dtype(dtype).char] * scale)


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 3, 32, 33, 100])
@pytest.mark.parametrize("bshape", ["1d", "2d"])
def test_solve_parity(dtype, n, bshape):
    gp, linalg = _gp()
    rng = np.random.default_rng(n)
    a = _well(n, dtype, rng)
    b = _rand((n,) if bshape == "1d" else (n, 3), dtype, rng)
    _close(linalg.solve(gp.asarray(a), gp.asarray(b)), sl.solve(a, b), dtype)


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [4, 40])
def test_solve_transposed(dtype, n):
    gp, linalg = _gp()
    rng = np.random.default_rng(1)
    a, b = _well(n, dtype, rng), _rand((n, 2), dtype, rng)
    _close(linalg.solve(gp.asarray(a), gp.asarray(b), transposed=True),
           sl.solve(a, b, transposed=True), dtype)


@gpu
@pytest.mark.parametrize("assume_a", ["gen", "sym", "her", "pos", "diagonal",
                                      "tridiagonal", "banded", "upper triangular",
                                      "lower triangular"])
@pytest.mark.parametrize("n", [5, 50])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_assume_a(assume_a, n, lower):
    gp, linalg = _gp()
    rng = np.random.default_rng(2)
    g = _rand((n, n), np.float64, rng)
    a = g @ g.T + n * np.eye(n)
    b = _rand((n,), np.float64, rng)
    _close(linalg.solve(gp.asarray(a), gp.asarray(b), assume_a=assume_a, lower=lower),
           sl.solve(a, b, assume_a=assume_a, lower=lower), np.float64)


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [4, 32, 40])
def test_solve_batched_broadcast(dtype, n):
    gp, linalg = _gp()
    rng = np.random.default_rng(5)
    a = _well(n, dtype, rng, (3, 1))
    b = _rand((4, n, 2), dtype, rng)
    _close(linalg.solve(gp.asarray(a), gp.asarray(b)), sl.solve(a, b), dtype)
    b1 = _rand((n,), dtype, rng)
    _close(linalg.solve(gp.asarray(a), gp.asarray(b1)), sl.solve(a, b1), dtype)


@gpu
def test_solve_noncontiguous_and_ints():
    gp, linalg = _gp()
    rng = np.random.default_rng(6)
    a = _well(6, np.float64, rng)[::-1, :].T
    b = _rand((12,), np.float64, rng)[::2]
    _close(linalg.solve(gp.asarray(np.ascontiguousarray(a))[::1].T.T, gp.asarray(b)),
           sl.solve(a, b), np.float64)
    ai = np.array([[3, 2, 0], [1, -1, 0], [0, 5, 1]])
    bi = np.array([2, 4, -1])
    _close(linalg.solve(gp.asarray(ai), gp.asarray(bi)), sl.solve(ai, bi), np.float64)


@gpu
def test_solve_edge_cases():
    gp, linalg = _gp()
    x = linalg.solve(gp.zeros((0, 0)), gp.zeros((0, 3)))
    assert x.shape == (0, 3) and x.dtype == np.float64
    x = linalg.solve(gp.zeros((0, 0), np.float32), gp.zeros((0,), np.float32))
    assert x.shape == (0,) and x.dtype == np.float32
    _close(linalg.solve(gp.asarray([[2.0]]), gp.asarray([1.0, 2, 3])),
           sl.solve([[2.0]], [1.0, 2, 3]), np.float64)
    with pytest.raises(sl.LinAlgError, match="singular"):
        linalg.solve(gp.asarray([[0.0]]), gp.asarray([1.0]))


@gpu
@pytest.mark.parametrize("n", [2, 40])
def test_solve_singular(n):
    gp, linalg = _gp()
    a = np.ones((n, n))
    with pytest.raises(sl.LinAlgError, match=r"slice\(s\) \[0\] are singular"):
        linalg.solve(gp.asarray(a), gp.asarray(np.ones(n)))
    stack = np.stack([np.eye(n), a, np.eye(n)])
    with pytest.raises(sl.LinAlgError, match=r"slice\(s\) \[1\] are singular"):
        linalg.solve(gp.asarray(stack), gp.asarray(np.ones(n)))
    with pytest.raises(sl.LinAlgError):
        linalg.solve(gp.asarray(-np.eye(n)), gp.asarray(np.ones(n)), assume_a="pos")


@gpu
@pytest.mark.parametrize("n", [12, 40])
def test_solve_ill_conditioned_warns(n):
    gp, linalg = _gp()
    h = sl.hilbert(n)
    with pytest.warns(sl.LinAlgWarning, match="An ill-conditioned matrix detected: slice 0"):
        linalg.solve(gp.asarray(h), gp.asarray(np.ones(n)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linalg.solve(gp.asarray(np.eye(n)), gp.asarray(np.ones(n)))


@gpu
def test_solve_bad_input():
    gp, linalg = _gp()
    cases = [
        (np.eye(3), np.ones(4), {}, ValueError, "incompatible shapes"),
        (np.ones((3, 4)), np.ones(4), {}, ValueError, "Expected square matrix"),
        (np.eye(2), np.ones(2), {"assume_a": "foo"}, ValueError, "not a recognized"),
        (np.eye(2), np.array([1, np.nan]), {}, ValueError, "infs or NaNs"),
        (np.eye(2) + 0j, np.ones(2), {"transposed": True}, NotImplementedError, "complex"),
        (np.eye(3)[None].repeat(4, 0), np.ones((4, 3)), {}, ValueError, "incompatible"),
    ]
    for a, b, kw, exc, msg in cases:
        with pytest.raises(exc):
            sl.solve(a, b, **kw)
        with pytest.raises(exc, match=msg):
            linalg.solve(gp.asarray(a), gp.asarray(b), **kw)


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 5, 32, 50])
def test_lu_factor_solve(dtype, n):
    gp, linalg = _gp()
    rng = np.random.default_rng(7)
    a = _rand((n, n), dtype, rng)
    lu_, piv = linalg.lu_factor(gp.asarray(a))
    lu0, piv0 = sl.lu_factor(a)
    np.testing.assert_array_equal(piv.get(), piv0)
    assert piv.dtype == piv0.dtype
    _close(lu_, lu0, dtype)
    b = _rand((n, 2), dtype, rng)
    for trans in (0, 1, 2):
        _close(linalg.lu_solve((lu_, piv), gp.asarray(b), trans=trans),
               sl.lu_solve((lu0, piv0), b, trans=trans), dtype)


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 6, 6), (3, 40, 40)])
def test_lu_inv_det(dtype, shape):
    gp, linalg = _gp()
    rng = np.random.default_rng(8)
    a = _well(shape[-1], dtype, rng, shape[:-2])
    _close(linalg.inv(gp.asarray(a)), sl.inv(a), dtype)
    d0 = sl.det(a)
    d = linalg.det(gp.asarray(a))
    np.testing.assert_allclose(d.get(), d0, rtol=TOL[np.dtype(dtype).char] * 10)
    if len(shape) == 2:
        for kw in ({}, {"permute_l": True}, {"p_indices": True}):
            got = linalg.lu(gp.asarray(a), **kw)
            ref = sl.lu(a, **kw)
            for g, r in zip(got, ref):
                _close(g, r, dtype) if r.dtype.kind != "i" else \
                    np.testing.assert_array_equal(g.get(), r)


@gpu
def test_det_inv_edge():
    gp, linalg = _gp()
    assert float(linalg.det(gp.zeros((0, 0)))) == 1.0
    assert linalg.inv(gp.zeros((0, 0))).shape == (0, 0)
    with pytest.raises(sl.LinAlgError):
        linalg.inv(gp.asarray(np.ones((3, 3))))
    assert float(linalg.det(gp.asarray(np.ones((3, 3))))) == 0.0


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 6, 32, 45])
@pytest.mark.parametrize("lower", [False, True])
def test_cholesky_parity(dtype, n, lower):
    gp, linalg = _gp()
    rng = np.random.default_rng(9)
    g = _rand((n, n), dtype, rng)
    a = (g @ g.conj().T + n * np.eye(n)).astype(dtype)
    _close(linalg.cholesky(gp.asarray(a), lower=lower), sl.cholesky(a, lower=lower), dtype)
    c = linalg.cho_factor(gp.asarray(a), lower=lower)
    b = _rand((n, 2), dtype, rng)
    _close(linalg.cho_solve(c, gp.asarray(b)),
           sl.cho_solve(sl.cho_factor(a, lower=lower), b), dtype)
    with pytest.raises(sl.LinAlgError, match="leading minor"):
        linalg.cholesky(gp.asarray(-np.eye(n, dtype=dtype)))


@gpu
def test_cholesky_batched():
    gp, linalg = _gp()
    rng = np.random.default_rng(10)
    g = _rand((5, 8, 8), np.float64, rng)
    a = g @ g.transpose(0, 2, 1) + 8 * np.eye(8)
    _close(linalg.cholesky(gp.asarray(a)), sl.cholesky(a), np.float64)


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans", [0, 1, 2, "N", "T", "C"])
@pytest.mark.parametrize("lower", [False, True])
def test_solve_triangular(dtype, trans, lower):
    gp, linalg = _gp()
    rng = np.random.default_rng(11)
    n = 20
    a = _well(n, dtype, rng)
    a = np.tril(a) if lower else np.triu(a)
    b = _rand((n, 3), dtype, rng)
    for unit in (False, True):
        _close(linalg.solve_triangular(gp.asarray(a), gp.asarray(b), trans=trans,
                                       lower=lower, unit_diagonal=unit),
               sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit),
               dtype)
    z = a.copy()
    z[3, 3] = 0
    with pytest.raises(sl.LinAlgError, match="diagonal 3"):
        linalg.solve_triangular(gp.asarray(z), gp.asarray(b), lower=lower)


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_banded(dtype):
    gp, linalg = _gp()
    rng = np.random.default_rng(12)
    n, l, u = 12, 2, 1
    ab = _rand((l + u + 1, n), dtype, rng)
    ab[u] += 6
    b = _rand((n, 2), dtype, rng)
    _close(linalg.solve_banded((l, u), gp.asarray(ab), gp.asarray(b)),
           sl.solve_banded((l, u), ab, b), dtype)
    # Hermitian positive definite band (upper form): diagonal dominant
    hb = _rand((3, n), dtype, rng)
    hb[-1] = np.abs(hb[-1]) + 8
    for lower in (False, True):
        hbl = hb[::-1].copy() if lower else hb
        if lower:
            hbl[1:] = np.conj(hb[:-1][::-1])
            hbl[1, :-1], hbl[2, :-2] = np.conj(hb[1, 1:]), np.conj(hb[0, 2:])
        ref = sl.solveh_banded(hbl, b, lower=lower)
        _close(linalg.solveh_banded(gp.asarray(hbl), gp.asarray(b), lower=lower), ref, dtype)
        cb = sl.cholesky_banded(hbl, lower=lower)
        got = linalg.cholesky_banded(gp.asarray(hbl), lower=lower)
        _close(got, cb, dtype)
        _close(linalg.cho_solve_banded((got, lower), gp.asarray(b)),
               sl.cho_solve_banded((cb, lower), b), dtype)


@gpu
def test_batched_lu_direct_matches_model():
    """The kernel's packed factor and pivots equal the CPU model's."""
    gp, _ = _gp()
    from gpuscipy.linalg import _batched_lu as bl
    rng = np.random.default_rng(13)
    a = _rand((50, 32, 32), np.float64, rng)
    res = bl.batched_lu(gp.asarray(a), want_lu=True, want_det=True, want_rcond=True)
    for s in (0, 17, 49):
        lu0, piv0 = sl.lu_factor(a[s])
        np.testing.assert_array_equal(res["ipiv"].get()[s], piv0)
        np.testing.assert_allclose(res["lu"].get()[s], lu0, rtol=1e-10, atol=1e-10)
        r, pos, _, _ = sim_lu_factor(a[s])
        np.testing.assert_allclose(res["rcond"].get()[s], sim_lu_rcond(a[s], r, pos),
                                   rtol=1e-8)
    np.testing.assert_allclose(res["det"].get(), np.linalg.det(a), rtol=1e-9)
    assert (res["info"].get() == 0).all()
