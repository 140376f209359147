"""gpuscipy.sparse min/max/nanmin/nanmax/argmin/argmax against SciPy on the
GPU: axes None/0/1, implicit zeros, explicit=True, NaN, every dtype, both
interfaces; and their errors."""

import numpy as np
import pytest
import scipy.sparse as sp

import gpuscipy.sparse as gs
import gpuscipy_core as gp

pytestmark = pytest.mark.gpu

DTYPES = ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8", "c8", "c16"]
FORMATS = ["csr", "csc", "coo"]


def _h(m, n, dtype, seed, full_rows=True, nan=False):
    """COO with duplicates, explicit zeros, empty rows, a full row and a
    full column (no implicit zero there)."""
    rng = np.random.default_rng(seed)
    nnz = (m * n) // 3
    row = list(rng.integers(0, max(m - 1, 1), nnz))
    col = list(rng.integers(0, n, nnz))
    if full_rows and m > 1 and n > 1:
        row += [1] * n + list(range(m))
        col += list(range(n)) + [2 % n] * m
    row, col = np.array(row), np.array(col)
    k = len(row)
    dt = np.dtype(dtype)
    data = rng.integers(-4, 5, k)
    if dt.kind == "u":
        data = np.abs(data)
    if dt.kind == "b":
        data = data > 0
    elif dt.kind == "c":
        data = data + 1j * rng.integers(-2, 3, k)
    data = data.astype(dt)
    if nan and dt.kind in "fc":
        data[rng.random(k) < 0.15] = np.nan
    return sp.coo_array((data, (row, col)), shape=(m, n))


def _dense(x):
    if gs.issparse(x):
        return x.get().toarray()
    if sp.issparse(x):
        return x.toarray()
    if isinstance(x, gp.ndarray):
        return gp.asnumpy(x)
    return np.asarray(x)


def _check(got, want, name):
    g, w = _dense(got), _dense(want)
    assert g.shape == w.shape, name
    assert g.dtype == w.dtype, (name, g.dtype, w.dtype)
    np.testing.assert_array_equal(g, w, err_msg=name)
    if isinstance(want, sp.spmatrix):
        assert gs.issparse(got) and got.format == "coo" and not got._is_array


FUNCS = ["min", "max", "nanmin", "nanmax", "argmin", "argmax"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_array", [True, False])
@pytest.mark.parametrize("shape", [(1, 1), (1, 6), (6, 1), (9, 7), (4, 30)])
def test_parity(fmt, dtype, is_array, shape):
    for seed, nan in ((1, False), (2, True)):
        h = _h(*shape, dtype, seed, nan=nan)
        kind = "array" if is_array else "matrix"
        a = getattr(gs, f"{fmt}_{kind}")(h.asformat(fmt))
        s = getattr(sp, f"{fmt}_{kind}")(h)
        for f in FUNCS:
            for axis in (None, 0, 1, -1, (0, 1)):
                for explicit in (False, True):
                    with np.errstate(invalid="ignore"):
                        try:
                            want = getattr(s.copy(), f)(axis=axis, explicit=explicit)
                        except ValueError as e:
                            with pytest.raises(ValueError, match=str(e)[:20]):
                                getattr(a, f)(axis=axis, explicit=explicit)
                            continue
                    got = getattr(a, f)(axis=axis, explicit=explicit)
                    name = f"{f} axis={axis} explicit={explicit} nan={nan}"
                    if f.startswith("arg") and axis is None:
                        assert isinstance(got, int) and got == want, name
                    else:
                        _check(got, want, name)


@pytest.mark.parametrize("fmt", FORMATS)
def test_special_rows(fmt):
    d = np.array([[0, 0, 0, 0], [np.nan, np.nan, np.nan, np.nan], [np.nan, 0, 0, 0],
                  [-1, -1, -1, -1], [1, 2, 3, 4], [0, 5, 0, -5]])
    h = sp.coo_array(d)
    extra = sp.coo_array(([0.0, 0.0], ([0, 4], [1, 0])), shape=d.shape)   # explicit zeros
    h = sp.coo_array((np.r_[h.data, extra.data], (np.r_[h.row, extra.row],
                      np.r_[h.col, extra.col])), shape=d.shape)
    for is_array in (True, False):
        kind = "array" if is_array else "matrix"
        a = getattr(gs, f"{fmt}_{kind}")(h.asformat(fmt))
        s = getattr(sp, f"{fmt}_{kind}")(h)
        for f in FUNCS:
            for axis in (None, 0, 1):
                for explicit in (False, True):
                    with np.errstate(invalid="ignore"):
                        want = getattr(s.copy(), f)(axis=axis, explicit=explicit)
                    got = getattr(a, f)(axis=axis, explicit=explicit)
                    if f.startswith("arg") and axis is None:
                        assert got == want, (f, axis, explicit)
                    else:
                        _check(got, want, f"{f} {axis} {explicit}")


def test_errors():
    a = gs.csr_array(np.eye(3))
    with pytest.raises(ValueError, match="'out' parameter"):
        a.max(out=gp.zeros(3))
    with pytest.raises(ValueError, match="Sparse argmin does not support"):
        a.argmin(out=gp.zeros(3))
    e = gs.csr_array((0, 3))
    with pytest.raises(ValueError, match="zero-size array"):
        e.min()
    with pytest.raises(ValueError, match="zero-size array"):
        e.max(axis=0)
    assert _dense(e.max(axis=1)).shape == (0,)
    with pytest.raises(ValueError, match="Cannot apply argmax to an empty matrix"):
        e.argmax()
    with pytest.raises(ValueError, match="along a zero-sized dimension"):
        e.argmax(axis=0)
    z = gs.csr_array((3, 3))
    assert z.argmin() == 0 and float(gp.asnumpy(z.max())) == 0.0
    with pytest.raises(ValueError, match="zero matrix when explicit=True"):
        z.argmin(explicit=True)
    with pytest.raises(ValueError, match="axis out of range"):
        a.min(axis=2)
    with pytest.raises(TypeError, match="axis must be an integer"):
        a.min(axis=1.5)
    with pytest.raises(ValueError, match="duplicate value"):
        a.min(axis=(1, 1))


def test_long_total():
    # more entries than one chunk of the total's reduction
    rng = np.random.default_rng(7)
    h = sp.random(300, 200, density=0.2, format="csr", random_state=rng)
    h.data[1234] = 5.0
    h.data[4321] = -5.0
    a = gs.csr_array(h)
    assert float(gp.asnumpy(a.max())) == h.max() and a.argmax() == h.argmax()
    assert float(gp.asnumpy(a.min())) == h.min() and a.argmin() == h.argmin()
