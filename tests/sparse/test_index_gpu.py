"""gpuscipy.sparse indexing (``__getitem__``, ``__setitem__``, ``setdiag``)
against SciPy on the GPU: ints, slices with any step, integer arrays,
masks, element pairs, both interfaces, duplicates and explicit zeros."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import gpuscipy.sparse as gs
import gpuscipy_core as gp

pytestmark = pytest.mark.gpu

DTYPES = ["?", "i1", "u2", "i4", "i8", "u8", "f4", "f8", "c8", "c16"]
FORMATS = ["csr", "csc", "coo"]


def _h(m, n, dtype, seed, dup=True):
    """A SciPy COO array with duplicates, explicit zeros and empty rows."""
    rng = np.random.default_rng(seed)
    nnz = (m * n) // 3
    row = rng.integers(0, max(m - 2, 1), nnz)      # the last rows stay empty
    col = rng.integers(0, n, nnz)
    data = rng.integers(-3, 4, nnz)
    dt = np.dtype(dtype)
    data = (data != 0) if dt.kind == "b" else data.astype(dt)
    if dt.kind == "c":
        data = data + 1j * rng.integers(-2, 3, nnz)
    if not dup:
        return sp.coo_array((data, (row, col)), shape=(m, n)).tocsr().tocoo()
    return sp.coo_array((data.astype(dt), (row, col)), shape=(m, n))


def _pair(fmt, is_array, h):
    kind = "array" if is_array else "matrix"
    return getattr(gs, f"{fmt}_{kind}")(h.asformat(fmt)), getattr(sp, f"{fmt}_{kind}")(h)


def _dense(x):
    if gs.issparse(x):
        return x.get().toarray()
    if sp.issparse(x):
        return x.toarray()
    if isinstance(x, gp.ndarray):
        return gp.asnumpy(x)
    return np.asarray(x)


def _same(got, want):
    if sp.issparse(want) and want.ndim == 2:
        assert gs.issparse(got), type(got)
        assert got.format == want.format and got._is_array == isinstance(want, sp.sparray)
    assert tuple(np.shape(_dense(got))) == tuple(np.shape(_dense(want)))
    d = _dense(got)
    assert d.dtype == _dense(want).dtype
    np.testing.assert_array_equal(d, _dense(want))


KEYS = [
    (1, 2), (-1, -3), (3,), -2, (slice(None), 2), (2, slice(None)), (slice(1, 5),),
    (slice(None, None, -1),), (slice(7, 0, -3), slice(None, None, 2)),
    (slice(None), slice(5, 1, -1)), ([1, 3, 1],), ([4, 0], slice(None)),
    (slice(None), [2, 0, 2, 5]), ([1, 2, 3], [0, 5, 2]), (np.array([[0], [3]]), [1, 2]),
    ([[0, 1], [2, 3]], [[0, 1], [1, 2]]), (Ellipsis, 1), (1, Ellipsis),
    (slice(2, 2),), ([],), (slice(None), []), ([1, 2], 3), (2, [0, 3, 3]),
    (np.array([True, False] * 4 + [True]),),
    (slice(None), np.array([False, True, True, False, False, True])),
    (np.int64(2), np.int32(4)),
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("is_array", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_getitem_parity(fmt, is_array, dtype):
    h = _h(9, 6, dtype, 1)
    a, s = _pair(fmt, is_array, h)
    if fmt == "coo" and not is_array:
        with pytest.raises(TypeError, match="not subscriptable"):
            a[1, 2]
        return
    for key in KEYS:
        _same(a[key], s[key])
    _same(a[gp.asarray(np.array([0, 8, 4])), 1:], s[np.array([0, 8, 4]), 1:])


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_getitem_chains_and_empty(fmt):
    h = _h(12, 7, "f8", 2)
    for is_array in (True, False):
        a, s = _pair(fmt, is_array, h)
        _same(a[[5, 1, 1]][:, [6, 0]], s[[5, 1, 1]][:, [6, 0]])
        _same(a[::2][1:, ::-1], s[::2][1:, ::-1])
        e, se = _pair(fmt, is_array, sp.coo_array((0, 5)))
        _same(e[:, 1:3], se[:, 1:3])
        z, sz = _pair(fmt, is_array, sp.coo_array((4, 5)))
        _same(z[[0, 3]], sz[[0, 3]])
        _same(z[2, 1], sz[2, 1])


def test_getitem_errors():
    a = gs.csr_array(_h(5, 4, "f8", 3))
    for key, msg in [((5, 1), r"index \(5\) out of range"),
                     ((1, -5), r"index \(-5\) out of range"),
                     ([7], r"index \(7\) out of range"),
                     (([1, 9], [0, 1]), r"index \(9\) out of range"),
                     (np.array([True, False]), r"bool index 0 has shape \(2,\) instead of \(5,\)"),
                     ((1.5, 1), "Index dimension"),
                     ((1, 2, 3), "Too many indices"),
                     (([0, 1], [1, 2, 3]), "shape mismatch")]:
        with pytest.raises(IndexError, match=msg):
            a[key]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        a[::0]
    with pytest.raises(NotImplementedError):
        a[None, 1]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("is_array", [True, False])
@pytest.mark.parametrize("dtype", ["?", "i4", "f8", "c16"])
def test_setitem_parity(fmt, is_array, dtype):
    if fmt == "coo" and not is_array:
        return
    h = _h(8, 6, dtype, 4)
    a, s = _pair(fmt, is_array, h)
    cases = [((1, 2), 3), ((7, 5), 1), ((0, 0), 0), ((slice(None), 1), 2),
             ((2, slice(1, 4)), np.array([1, 0, 2])), (([0, 3, 3], [1, 2, 2]), np.array([4, 5, 6])),
             ((slice(0, 4, 2), [0, 5]), np.array([[1, 2], [3, 0]])), ((5,), 0)]
    if fmt == "coo":      # SciPy's coo_array keeps the first of repeated pairs
        cases[5] = (([0, 3, 4], [1, 2, 2]), np.array([4, 5, 6]))
    for key, x in cases:
        x = np.asarray(x).astype(dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sp.SparseEfficiencyWarning)
            warnings.simplefilter("ignore", gs.SparseEfficiencyWarning)
            a[key] = gp.asarray(x) if x.ndim else x[()]
            s[key] = x if x.ndim else x[()]
        np.testing.assert_array_equal(_dense(a), _dense(s), err_msg=str(key))
        assert a.format == fmt and a.dtype == s.dtype


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("k", [0, 2, -3, 5, -7])
def test_setdiag(fmt, k):
    h = _h(8, 6, "f8", 5)
    for values in (7.0, np.arange(1.0, 9.0), np.array([1.0, 0.0])):
        a, s = _pair(fmt, True, h)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a.setdiag(gp.asarray(values) if np.ndim(values) else values, k)
            s.setdiag(values, k)
        np.testing.assert_array_equal(_dense(a), _dense(s))
    a = gs.csr_array(h)
    with pytest.raises(ValueError, match="k exceeds"):
        a.setdiag(1.0, 6)
    with pytest.raises(NotImplementedError):
        a[0, 0] = gs.csr_array(np.eye(1))
