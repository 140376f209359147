"""One right-hand side at n >= TRSM_MIN_N: the permutation and two cuBLAS
triangular solves instead of cuSOLVER's getrs, and solve's condition
estimate on the factors without the permutation (``_solve_dense``)."""

import warnings

import numpy as np
import pytest
import scipy.linalg as sl

gpu = pytest.mark.gpu
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
TOL = {"f": 2e-4, "F": 2e-4, "d": 1e-10, "D": 1e-10}


def _rand(shape, dtype, rng):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _well(n, dtype, rng):
    return (_rand((n, n), dtype, rng) + 4 * n ** 0.5 * np.eye(n)).astype(dtype)


def test_threshold_is_inside_the_permutation_kernel():
    from gpuscipy.linalg import _solve_dense, _lu_perm
    assert 1 < _solve_dense.TRSM_MIN_N <= _lu_perm.MAX_N


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("trans", [0, 1, 2])
def test_lu_solve_one_column(dtype, trans):
    import gpuscipy_core as gp
    from gpuscipy import linalg
    from gpuscipy.linalg import _solve_dense
    rng = np.random.default_rng(trans + 3 * DTYPES.index(dtype))
    n = _solve_dense.TRSM_MIN_N + 88
    a = _well(n, dtype, rng)
    lu, piv = sl.lu_factor(a)
    tol = TOL[np.dtype(dtype).char]
    for b in (_rand(n, dtype, rng), _rand((n, 1), dtype, rng)):
        want = sl.lu_solve((lu, piv), b, trans=trans)
        got = linalg.lu_solve((gp.asarray(lu), gp.asarray(piv)), gp.asarray(b), trans=trans)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got.get(), want, rtol=tol, atol=tol * np.abs(want).max())


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_one_column_and_its_warning(dtype):
    import gpuscipy_core as gp
    from gpuscipy import linalg
    from gpuscipy.linalg import _solve_dense
    rng = np.random.default_rng(40 + DTYPES.index(dtype))
    n = _solve_dense.TRSM_MIN_N + 37
    a = _well(n, dtype, rng)
    b = _rand(n, dtype, rng)
    tol = TOL[np.dtype(dtype).char]
    # (SciPy refuses transposed=True for complex matrices; so do we)
    for transposed in (False, True) if np.dtype(dtype).kind == "f" else (False,):
        with warnings.catch_warnings():
            warnings.simplefilter("error")          # well conditioned: no warning
            got = linalg.solve(gp.asarray(a), gp.asarray(b), transposed=transposed).get()
        want = sl.solve(a, b, transposed=transposed)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
    # singular values down to 1e-24 (float64) / 1e-12 (float32): the
    # reciprocal condition number is far below eps, whatever the estimate
    u, _ = np.linalg.qr(rng.standard_normal((n, n)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    low = -12 if np.dtype(dtype).char in "fF" else -24
    ill = (u @ np.diag(np.logspace(0, low, n)) @ v.T).astype(dtype)
    with pytest.warns(sl.LinAlgWarning, match="ill-conditioned"):
        linalg.solve(gp.asarray(ill), gp.asarray(b))
