"""Tests of gpuscipy.linalg._trsv (getrs by one launch per triangle).

CPU: the NumPy model of the kernels' blocked algorithm (tiles, padding,
gather/scatter, trans 0/1/2) against SciPy's lu_solve; NVRTC compiles of
every kernel variant getrs uses, for every dtype and right-hand-side count.
GPU: the kernels against SciPy's lu_solve on cuSOLVER's factor, the
permutation kernel against its model, and solve() with the kernels enabled.

Tolerances: relative to max|x|, 1e-4 (float32/complex64) and 1e-10
(float64/complex128) on well-conditioned matrices (a + sqrt(n) I): the
blocked sums regroup LAPACK's, so results agree to rounding, not bitwise.
"""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.linalg as sl

from gpuscipy.linalg import _trsv as M
from tests.linalg._helpers import assert_pivots_unambiguous

DTYPES = "fdFD"
TOL = {"f": 1e-4, "d": 1e-10, "F": 1e-4, "D": 1e-10}
# (lower, trans, unit) of the two solves getrs makes for each trans
GETRS_VARIANTS = [(True, 0, True), (False, 0, False), (True, 1, False),
                  (False, 1, True), (True, 2, False), (False, 2, True)]


def _well(rng, n, dtype, k=None):
    shape = (n, n) if k is None else (n, k)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if k is None:
        x = x + np.sqrt(n) * np.eye(n)
    return x.astype(dtype)


def _err(x, ref):
    return np.abs(x - ref).max() / max(np.abs(ref).max(), 1e-30)


# ------------------------------------------------------------------ CPU

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 5, 32, 33, 64, 65, 200])
@pytest.mark.parametrize("trans", [0, 1, 2])
def test_model_matches_lu_solve(dtype, n, trans):
    rng = np.random.default_rng(n * 7 + trans)
    lu, piv = sl.lu_factor(_well(rng, n, dtype))
    for k in (1, 3):
        b = _well(rng, n, dtype, k)
        x = M.model_getrs(lu, piv + 1, b, trans)
        assert _err(x, sl.lu_solve((lu, piv), b, trans=trans)) < TOL[dtype]
    b1 = _well(rng, n, dtype, 1)[:, 0]
    x1 = M.model_getrs(lu, piv + 1, b1, trans)
    assert x1.shape == (n,)
    assert _err(x1, sl.lu_solve((lu, piv), b1, trans=trans)) < TOL[dtype]


def test_model_perm_is_laswp():
    rng = np.random.default_rng(3)
    n = 50
    ipiv = np.array([rng.integers(i, n) for i in range(n)]) + 1
    b = rng.standard_normal(n)
    pb = b.copy()
    for i, p in enumerate(ipiv - 1):
        pb[[i, p]] = pb[[p, i]]
    np.testing.assert_array_equal(b[M.model_perm(ipiv)], pb)


def test_availability_and_errors():
    assert M.available(4096, 3, np.float64)
    assert not M.available(M.MAX_N + 1, 1, np.float64)
    assert not M.available(100, M.MAX_NRHS + 1, np.float64)
    assert not M.available(100, 1, np.int64)
    assert M.block_size(np.complex128) == 32 and M.block_size(np.float32) == 64
    with pytest.raises(TypeError):
        M.trsv_source("i", 1, True, 0, True)
    with pytest.raises(ValueError):
        M.trsv_source("d", 0, True, 0, True)
    with pytest.raises(ValueError):
        M.trsv_source("d", 1, True, 3, True)


def test_enabled_reads_the_environment(monkeypatch):
    monkeypatch.delenv("GPUSCIPY_GETRS", raising=False)
    assert not M.enabled()
    monkeypatch.setenv("GPUSCIPY_GETRS", "kernel")
    assert M.enabled()


def test_nvrtc_every_variant():
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    header = M.perm_source()[0]

    def unit(dtype):
        # one translation unit per dtype: the header once, then the wrappers
        parts = [header]
        for nrhs in range(1, M.MAX_NRHS + 1):
            for lower, trans, unit_ in GETRS_VARIANTS:
                src, name = M.trsv_source(dtype, nrhs, lower, trans, unit_)
                assert src.startswith(header) and name in src
                parts.append(src[len(header):])
        return compile_cubin("".join(parts), f"trsv_{dtype}")

    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as ex:
        assert all(ex.map(unit, DTYPES))


# ------------------------------------------------------------------ GPU

gpu = pytest.mark.gpu


def _factor(a_h):
    import gpuscipy_core as gp
    from gpuscipy.linalg import _solve_dense as SD
    n = a_h.shape[0]
    lu = gp.empty((n, n), a_h.dtype, order="F")
    lu[...] = gp.asarray(a_h)
    ipiv, info = SD.getrf(lu)
    return lu, ipiv


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 31, 32, 33, 64, 65, 300, 1000])
def test_gpu_getrs_matches_lu_solve(dtype, n):
    import gpuscipy_core as gp
    rng = np.random.default_rng(n)
    a_h = _well(rng, n, dtype)
    lu, ipiv = _factor(a_h)
    perm = M.lu_perm(ipiv)
    np.testing.assert_array_equal(perm.get(), M.model_perm(ipiv.get()))
    # the triangular solves are checked on the GPU's own factor: in double
    # precision against SciPy's lu_solve of it; in single precision against
    # the exact solution of that factor (lu_solve of it in double), where the
    # kernel must be as accurate as LAPACK's single-precision getrs (the
    # forward error of a triangular solve grows with the factor's condition,
    # so a fixed 1e-4 against another single-precision answer can fail for
    # an accurate kernel: complex64, n = 1000 gave 1.4e-4)
    lu_g, piv_g = lu.get(), ipiv.get() - 1
    single = np.dtype(dtype) in (np.float32, np.complex64)
    wide = np.promote_types(dtype, np.float64)

    def check(x, b_h, trans, what):
        if not single:
            ref = sl.lu_solve((lu_g, piv_g), b_h, trans=trans)
            assert _err(x, ref) < TOL[dtype], what
            return
        exact = sl.lu_solve((lu_g.astype(wide), piv_g), b_h.astype(wide), trans=trans)
        lapack = sl.lu_solve((lu_g, piv_g), b_h, trans=trans)
        eps = np.finfo(dtype).eps
        assert _err(x, exact) <= 4 * _err(lapack, exact) + 16 * eps, what

    for k in range(1, M.MAX_NRHS + 1):
        b_h = _well(rng, n, dtype, k)
        for trans in (0, 1, 2):
            b = gp.empty((n, k), dtype, order="F")
            b[...] = gp.asarray(b_h)
            x = M.getrs(lu, perm, b, trans)
            assert x is b
            check(b.get(), b_h, trans, (k, trans))
    b1 = gp.asarray(b_h[:, 0].copy())
    M.getrs(lu, perm, b1, 0)
    check(b1.get(), b_h[:, 0], 0, "1-d")
    # and the factor itself is LAPACK's (same pivots: the candidates are
    # never within rounding of each other; growth ~1 for these shifted
    # matrices, so 4 n eps bounds two implementations' difference 4 times)
    lu_h, _ = sl.lu_factor(a_h)
    assert_pivots_unambiguous(lu_h, f"n={n}", margin=4)
    assert _err(lu_g, lu_h) < (1e-3 if single else 1e-10)


@gpu
def test_gpu_large_and_repeated():
    # n = 4096 (the benchmark's size, 64 chained blocks) twice on one factor:
    # the flags and ticket are fresh for every launch
    import gpuscipy_core as gp
    n = 4096
    rng = np.random.default_rng(1)
    a_h = _well(rng, n, "d")
    lu, ipiv = _factor(a_h)
    perm = M.lu_perm(ipiv)
    for _ in range(2):
        b_h = rng.standard_normal((n, 3))
        b = gp.empty((n, 3), np.float64, order="F")
        b[...] = gp.asarray(b_h)
        M.getrs(lu, perm, b, 0)
        assert _err(b.get(), np.linalg.solve(a_h, b_h)) < 1e-10


@gpu
def test_gpu_many_chained_blocks_repeated():
    # complex128 at MAX_N: 256 blocks of 32 rows chained through flags, more
    # blocks than run at once, repeated so an ordering race can show
    import gpuscipy_core as gp
    n = M.MAX_N
    rng = np.random.default_rng(2)
    a_h = _well(rng, n, "D")
    lu, ipiv = _factor(a_h)
    perm = M.lu_perm(ipiv)
    b_h = _well(rng, n, "D", 2)
    ref = None
    for it in range(10):
        b = gp.empty((n, 2), np.complex128, order="F")
        b[...] = gp.asarray(b_h)
        M.getrs(lu, perm, b, 1 + it % 2)
        x = b.get()
        if it < 2:
            # SciPy's solve has no transposed= for complex: solve A^T / A^H
            ref2 = sl.solve(a_h.T if it == 0 else a_h.conj().T, b_h)
            assert _err(x, ref2) < 1e-10
            ref = (x, None) if it == 0 else (ref[0], x)
        else:   # the same launch again: bitwise the same answer
            np.testing.assert_array_equal(x, ref[it % 2])


def test_lu_perm_argument_checks():
    class Fake:
        shape = (10,)
        dtype = np.dtype(np.int32)
    with pytest.raises(TypeError, match="int64"):
        M.lu_perm(Fake())
    Fake.shape = (M.MAX_N + 1,)
    with pytest.raises(ValueError):
        M.lu_perm(Fake())


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [40, 300])
def test_gpu_solve_with_kernels(dtype, n, monkeypatch):
    # scipy.linalg.solve's path (getrf on a^T, getrs op T, condition
    # estimate) with the kernels switched on
    import gpuscipy_core as gp
    from gpuscipy import linalg
    monkeypatch.setenv("GPUSCIPY_GETRS", "kernel")
    rng = np.random.default_rng(n + 1)
    a_h = _well(rng, n, dtype)
    b_h = _well(rng, n, dtype, 2)
    for transposed in ((False, True) if dtype in "fd" else (False,)):
        x = linalg.solve(gp.asarray(a_h), gp.asarray(b_h), transposed=transposed)
        ref = sl.solve(a_h, b_h, transposed=transposed)
        assert _err(x.get(), ref) < TOL[dtype]
    ill = np.eye(n, dtype=dtype)
    ill[-1, -1] = 1e-30       # rcond 1e-30: SciPy's LinAlgWarning
    with pytest.warns(sl.LinAlgWarning):
        sl.solve(ill, b_h)
    with pytest.warns(sl.LinAlgWarning):
        linalg.solve(gp.asarray(ill), gp.asarray(b_h))


def test_perm_cache_is_per_ipiv_object(monkeypatch):
    calls = []
    monkeypatch.setattr(M, "lu_perm", lambda ipiv: calls.append(ipiv) or object())
    monkeypatch.setattr(M, "_last", __import__("threading").local())
    import gpuscipy_core._cuda._stream as st
    monkeypatch.setattr(st, "get_current_stream_ptr", lambda: 0)
    a, b = object(), object()
    p1 = M.lu_perm_cached(a)
    assert M.lu_perm_cached(a) is p1 and len(calls) == 1
    p2 = M.lu_perm_cached(b)
    assert p2 is not p1 and len(calls) == 2
    assert M.lu_perm_cached(a) is not p1 and len(calls) == 3   # one entry
