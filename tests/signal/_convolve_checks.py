"""Data and checks shared by the convolution tests (CPU, emulated, GPU)."""

import numpy as np


def data(rng, shape, dt):
    """Random test data of dtype ``dt``: booleans, small integers (no
    overflow in the sums), normal floats, complex with both parts."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.random(shape) > 0.6
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -60
        return rng.integers(lo, 60, shape).astype(dt)
    x = rng.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def close(got, want, rtol=1e-12):
    """Host arrays: same dtype and shape; integers exact; NaN and inf at the
    same places with the same values; finite values within ``rtol`` of the
    largest finite ``|want|`` (the error taken exactly, in complex128)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    elif want.size:
        finite = np.isfinite(want)
        np.testing.assert_array_equal(got[~finite], want[~finite])
        if finite.any():
            scale = max(float(np.max(np.abs(want[finite]))), 1e-300)
            err = float(np.max(np.abs(got[finite].astype(np.complex128) - want[finite])))
            assert err <= rtol * scale, (err, scale)


def tol_direct(dt, terms):
    """Direct sums in another order: exact for integers; float64 and
    complex128 1e-12 relative to the largest output; float32 and complex64
    the ulp of a sum of ``terms`` products; float16 (computed in float32,
    rounded once) 2e-3."""
    dt = np.dtype(dt)
    if dt.kind in "biu":
        return 0
    if dt.char == "e":
        return 2e-3
    if dt.char in "fF":
        return 2e-6 * max(1, terms) ** 0.5
    return 1e-12
