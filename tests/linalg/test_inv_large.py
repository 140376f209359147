"""linalg.inv above the warp-LU size (n > 32): cuSOLVER LU, the inverse
solved untransposed into the output's transpose, rcond from the inverse."""

import warnings

import numpy as np
import pytest
import scipy.linalg as sl

gpu = pytest.mark.gpu
TOL = {"f": 2e-4, "F": 2e-4, "d": 1e-10, "D": 1e-10}
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _rand(shape, dtype, rng):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


@gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(33, 33), (2, 64, 64), (300, 300)])
def test_inv_matches_scipy(dtype, shape):
    import gpuscipy_core as gp
    from gpuscipy import linalg
    rng = np.random.default_rng(shape[-1] + len(shape))
    n = shape[-1]
    a = (_rand(shape, dtype, rng) + 4 * n ** 0.5 * np.eye(n)).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # well conditioned: no warning
        got = linalg.inv(gp.asarray(a))
    want = sl.inv(a)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.flags.c_contiguous
    tol = TOL[np.dtype(dtype).char]
    np.testing.assert_allclose(got.get(), want, rtol=tol, atol=tol * np.abs(want).max())
    # a transposed (F-ordered) and a negatively strided input
    at = gp.asarray(np.ascontiguousarray(a[..., ::-1, :]))[..., ::-1, :]
    np.testing.assert_allclose(linalg.inv(at).get(), want, rtol=tol,
                               atol=tol * np.abs(want).max())


@gpu
@pytest.mark.parametrize("n", [40, 100])
def test_inv_ill_conditioned_warns_and_singular_raises(n):
    import gpuscipy_core as gp
    from gpuscipy import linalg
    h = sl.hilbert(n)
    with pytest.warns(sl.LinAlgWarning, match="An ill-conditioned matrix detected: slice 0"):
        linalg.inv(gp.asarray(h))
    stack = np.stack([np.eye(n), np.ones((n, n))])
    with pytest.raises(sl.LinAlgError, match="singular"):
        linalg.inv(gp.asarray(stack))


@gpu
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_inv_non_finite_input_raises_after_the_queued_work(bad):
    # the finite check is read with info and rcond, after the LU is queued:
    # the error is still SciPy's, and it comes before the singular error
    import gpuscipy_core as gp
    from gpuscipy import linalg
    a = np.ones((2, 40, 40))              # singular slices as well
    a[1, 3, 7] = bad
    with pytest.raises(ValueError, match="infs or NaNs"):
        sl.inv(a[1])
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.inv(gp.asarray(a))
    with pytest.raises(sl.LinAlgError, match="singular"):    # slice 0
        linalg.inv(gp.asarray(a), check_finite=False)


@gpu
def test_inv_finite_entries_whose_column_sums_overflow_are_accepted():
    # ||a||_1 overflows to inf for these finite entries: the exact check
    # runs and lets them through; rcond is then 0 and warns
    import gpuscipy_core as gp
    from gpuscipy import linalg
    n = 40
    a = np.eye(n)
    a[:, 0] = 1e307
    want = np.eye(n)                 # the inverse, exactly (no LAPACK)
    want[:, 0] = -1
    want[0, 0] = 1e-307
    with pytest.warns(sl.LinAlgWarning, match="slice 0 has rcond = 0.0"):
        got = linalg.inv(gp.asarray(a)).get()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("real", ["f4", "f8"])
def test_inv_status_kernel_compiles(real):
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    from gpuscipy.linalg import _solvers
    name, src = _solvers._inv_status_kernel().source("i4", real, real)
    assert compile_cubin(src, name)
