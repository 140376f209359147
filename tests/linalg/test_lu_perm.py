"""Tests of gpuscipy.linalg._lu_perm (getrf's pivots as a permutation).

CPU: the NumPy model against LAPACK's laswp order, the argument checks, the
per-factor cache, an NVRTC compile of the kernel. GPU: the kernel against the
model on cuSOLVER's pivots and on hand-made swap sequences (exact: integer
index arrays).
"""

import threading

import numpy as np
import pytest
import scipy.linalg as sl

from gpuscipy.linalg import _lu_perm as M

gpu = pytest.mark.gpu


def test_model_perm_is_laswp():
    rng = np.random.default_rng(3)
    n = 50
    ipiv = np.array([rng.integers(i, n) for i in range(n)]) + 1
    b = rng.standard_normal(n)
    pb = b.copy()
    for i, p in enumerate(ipiv - 1):
        pb[[i, p]] = pb[[p, i]]
    np.testing.assert_array_equal(b[M.model_perm(ipiv)], pb)


def test_model_perm_matches_scipy_lu_factor():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((40, 40))
    lu, piv = sl.lu_factor(a)
    perm = M.model_perm(piv + 1)
    l, u = np.tril(lu, -1) + np.eye(40), np.triu(lu)
    np.testing.assert_allclose(a[perm], l @ u, atol=1e-12)


def test_lu_perm_argument_checks():
    class Fake:
        shape = (10,)
        dtype = np.dtype(np.int32)
    with pytest.raises(TypeError, match="int64"):
        M.lu_perm(Fake())
    Fake.shape = (M.MAX_N + 1,)
    Fake.dtype = np.dtype(np.int64)
    with pytest.raises(ValueError, match="n must be <= 8192"):
        M.lu_perm(Fake())


def test_kernel_compiles():
    from gpuscipy_core.kernel import compile_cubin
    assert compile_cubin(*M.perm_source())


def test_perm_cache_is_per_ipiv_object(monkeypatch):
    calls = []
    monkeypatch.setattr(M, "lu_perm", lambda ipiv: calls.append(ipiv) or object())
    monkeypatch.setattr(M, "_last", threading.local())
    import gpuscipy_core.cuda as cuda
    monkeypatch.setattr(cuda, "get_current_stream_ptr", lambda: 0)
    a, b = object(), object()
    p1 = M.lu_perm_cached(a)
    assert M.lu_perm_cached(a) is p1 and len(calls) == 1
    p2 = M.lu_perm_cached(b)
    assert p2 is not p1 and len(calls) == 2
    assert M.lu_perm_cached(a) is not p1 and len(calls) == 3   # one entry


def test_perm_cache_keeps_legacy_stream_entries_only(monkeypatch):
    calls = []
    monkeypatch.setattr(M, "lu_perm", lambda ipiv: calls.append(ipiv) or object())
    monkeypatch.setattr(M, "_last", threading.local())
    import gpuscipy_core.cuda as cuda
    monkeypatch.setattr(cuda, "get_current_stream_ptr", lambda: 1234)
    a = object()
    M.lu_perm_cached(a)
    M.lu_perm_cached(a)
    assert len(calls) == 2


@gpu
@pytest.mark.parametrize("n", [1, 2, 33, 300, 2049, 4096, M.MAX_N])
def test_gpu_perm_matches_model(n):
    import gpuscipy_core as gp
    rng = np.random.default_rng(n)
    ipiv = np.array([rng.integers(i, n) for i in range(n)], np.int64) + 1
    perm = M.lu_perm(gp.asarray(ipiv))
    assert perm.dtype == np.int32
    np.testing.assert_array_equal(perm.get(), M.model_perm(ipiv))


@gpu
def test_gpu_perm_of_cusolver_pivots():
    import gpuscipy_core as gp
    from gpuscipy.linalg import _solve_dense as SD
    rng = np.random.default_rng(5)
    n = 600
    a_h = rng.standard_normal((n, n))
    lu = gp.empty((n, n), np.float64, order="F")
    lu[...] = gp.asarray(a_h)
    ipiv, info = SD.getrf(lu)
    assert int(info.get()[0]) == 0
    perm = M.lu_perm(ipiv).get()
    np.testing.assert_array_equal(perm, M.model_perm(ipiv.get()))
    l_h = np.tril(lu.get(), -1) + np.eye(n)
    np.testing.assert_allclose(a_h[perm], l_h @ np.triu(lu.get()), atol=1e-10)


@gpu
def test_gpu_bad_pivot_is_ignored():
    import gpuscipy_core as gp
    ipiv = np.array([3, 0, 99, 4], np.int64)     # 1-based; 0 and 99 out of range
    perm = M.lu_perm(gp.asarray(ipiv)).get()
    want = np.arange(4)
    want[[0, 2]] = want[[2, 0]]
    np.testing.assert_array_equal(perm, want)
