"""gpuscipy.sparse's COO, CSR and CSC formats against SciPy on the GPU:
construction, conversions, canonical forms, products, reductions, errors.

Tolerances: integer and bool results are exact; float results compare at
rtol 1e-12 (float64/complex128) and 1e-5 (float32/complex64): sums of
duplicates and row sums add in stored order as SciPy, but cuSPARSE's SpMV
and SpMM may add a row's products in another order.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import gpuscipy.sparse as gs
import gpuscipy_core as gp

pytestmark = pytest.mark.gpu

DTYPES = ["?", "i1", "u2", "i4", "i8", "u8", "f4", "f8", "c8", "c16"]
FORMATS = ["coo", "csr", "csc"]


def _rtol(dt):
    dt = np.dtype(dt)
    return 0 if dt.kind in "biu" else (1e-5 if dt in (np.float32, np.complex64) else 1e-12)


def _random(m, n, density, dtype, seed):
    rng = np.random.default_rng(seed)
    a = sp.random(m, n, density=density, format="coo", random_state=rng, dtype=np.float64)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        data = rng.integers(0, 2, a.nnz).astype(bool)
    elif dt.kind in "iu":
        data = rng.integers(0, 100, a.nnz).astype(dt)
    elif dt.kind == "c":
        data = (rng.standard_normal(a.nnz) + 1j * rng.standard_normal(a.nnz)).astype(dt)
    else:
        data = rng.standard_normal(a.nnz).astype(dt)
    return sp.coo_array((data, (a.row, a.col)), shape=(m, n))


def _with_duplicates(m, n, nnz, dtype, seed):
    """COO with duplicates, explicit zeros and unsorted entries."""
    rng = np.random.default_rng(seed)
    row = rng.integers(0, m, nnz)
    col = rng.integers(0, n, nnz)
    data = rng.integers(-3, 4, nnz).astype(dtype)
    return sp.coo_array((data, (row, col)), shape=(m, n))


def _close(got, want, dt):
    got = gp.asnumpy(got) if isinstance(got, gp.ndarray) else np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=_rtol(dt), atol=0)


SHAPES = [(0, 0), (1, 1), (1, 7), (7, 1), (30, 20), (20, 30)]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_roundtrip_and_conversions(fmt, dtype, shape):
    h = _random(*shape, 0.3, dtype, 1).asformat(fmt)
    a = getattr(gs, f"{fmt}_array")(h)
    assert a.shape == h.shape and a.dtype == h.dtype and a.format == fmt and a.nnz == h.nnz
    back = a.get()
    assert type(back) is type(h)
    np.testing.assert_array_equal(back.toarray(), h.toarray())
    np.testing.assert_array_equal(gp.asnumpy(a.toarray()), h.toarray())
    for other in FORMATS:
        b = a.asformat(other)
        assert b.format == other and type(b) is getattr(gs, f"{other}_array")
        np.testing.assert_array_equal(gp.asnumpy(b.toarray()), h.toarray())
    t = a.T
    assert t.shape == shape[::-1]
    np.testing.assert_array_equal(gp.asnumpy(t.toarray()), h.toarray().T)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", ["i4", "f8", "c8"])
def test_duplicates_and_zeros(fmt, dtype):
    h = _with_duplicates(13, 9, 200, dtype, 2)
    a = gs.coo_array((gp.asarray(h.data), (gp.asarray(h.row), gp.asarray(h.col))),
                     shape=h.shape).asformat(fmt)
    np.testing.assert_array_equal(gp.asnumpy(a.toarray()), h.toarray())
    c = a.copy()
    c.sum_duplicates()
    assert c.has_canonical_format
    ref = h.tocsr()
    ref.sum_duplicates()
    assert c.nnz == ref.nnz
    c.eliminate_zeros()
    ref.eliminate_zeros()
    assert c.nnz == ref.nnz
    np.testing.assert_array_equal(gp.asnumpy(c.toarray()), ref.toarray())


@pytest.mark.parametrize("dtype", ["i8", "f8", "c16"])
def test_csr_sort_indices_and_flags(dtype):
    rng = np.random.default_rng(3)
    h = sp.random(40, 30, density=0.2, format="csr", random_state=rng).astype(dtype)
    # shuffle the indices within each row
    for r in range(h.shape[0]):
        s, e = h.indptr[r], h.indptr[r + 1]
        p = rng.permutation(e - s) + s
        h.indices[s:e], h.data[s:e] = h.indices[p].copy(), h.data[p].copy()
    h.has_sorted_indices = False
    a = gs.csr_array((h.data, h.indices, h.indptr), shape=h.shape)
    assert a.has_sorted_indices == h.has_sorted_indices
    a.sort_indices()
    h.sort_indices()
    assert a.has_sorted_indices and a.has_canonical_format
    np.testing.assert_array_equal(gp.asnumpy(a.indices), h.indices)
    np.testing.assert_array_equal(gp.asnumpy(a.data), h.data)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_products_with_dense(fmt, dtype):
    h = _random(25, 17, 0.25, dtype, 4).asformat(fmt)
    a = getattr(gs, f"{fmt}_array")(h)
    rng = np.random.default_rng(5)
    x = rng.integers(0, 5, 17).astype(dtype)
    X = rng.integers(0, 5, (17, 4)).astype(dtype)
    _close(a @ gp.asarray(x), h @ x, dtype)
    _close(a @ gp.asarray(X), h @ X, dtype)
    _close(a.dot(x), h.dot(x), dtype)
    y = rng.integers(0, 5, 25).astype(dtype)
    _close(gp.asarray(y) @ a, y @ h, dtype)


@pytest.mark.parametrize("cls", ["csr_matrix", "csc_matrix", "coo_matrix"])
def test_matrix_interface(cls):
    h = getattr(sp, cls)(_random(6, 5, 0.5, "f8", 6))
    a = getattr(gs, cls)(h)
    x = np.arange(5.0)
    _close(a * gp.asarray(x), h * x, "f8")
    assert gs.isspmatrix(a) and gs.issparse(a)
    assert getattr(gs, "isspmatrix_" + cls[:3])(a)
    s = a.sum(axis=0)
    assert s.shape == (1, 5)
    _close(s, np.asarray(h.sum(axis=0)), "f8")
    _close(a.sum(axis=1), np.asarray(h.sum(axis=1)), "f8")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions(fmt, dtype):
    h = _random(19, 11, 0.3, dtype, 7).asformat(fmt)
    a = getattr(gs, f"{fmt}_array")(h)
    for axis in (None, 0, 1, -1):
        got, want = a.sum(axis=axis), h.sum(axis=axis)
        assert np.asarray(gp.asnumpy(got)).dtype == np.asarray(want).dtype, axis
        _close(got, want, dtype)
        _close(a.mean(axis=axis), h.mean(axis=axis), "f8" if dtype in "?i1u2i4i8u8" else dtype)
    for k in (-18, -3, 0, 2, 10, 11, -19):
        _close(a.diagonal(k), h.diagonal(k), dtype)
    _close(a.trace(), h.trace(), dtype)
    assert int(a.count_nonzero()) == h.count_nonzero()
    assert not hasattr(a, "getnnz")          # the matrix interface only, as SciPy
    m, hm = getattr(gs, f"{fmt}_matrix")(h), getattr(sp, f"{fmt}_matrix")(h)
    assert m.getnnz() == hm.getnnz()
    for axis in (0, 1):
        np.testing.assert_array_equal(gp.asnumpy(m.getnnz(axis=axis)), hm.getnnz(axis=axis))


@pytest.mark.parametrize("dtype", ["i4", "f4", "c16"])
def test_arithmetic(dtype):
    h1 = _random(12, 8, 0.3, dtype, 8).tocsr()
    h2 = _random(12, 8, 0.3, dtype, 9).tocsc()
    a1, a2 = gs.csr_array(h1), gs.csc_array(h2)
    _close((a1 + a2).toarray(), (h1 + h2).toarray(), dtype)
    _close((a1 - a2).toarray(), (h1 - h2).toarray(), dtype)
    _close((a1 * 3).toarray(), (h1 * 3).toarray(), dtype)
    _close((-a1).toarray(), (-h1).toarray(), dtype)
    _close((a1 / 2).toarray(), (h1 / 2).toarray(), dtype)
    _close(abs(a1).toarray(), abs(h1).toarray(), dtype)
    _close(a1.power(2).toarray(), h1.power(2).toarray(), dtype)
    _close(a1.multiply(gp.asarray(h2.toarray())), h1.multiply(h2.toarray()).toarray()
           if sp.issparse(h1.multiply(h2.toarray())) else h1.multiply(h2.toarray()), dtype)
    _close((a1 + gp.asarray(h2.toarray())), h1 + h2.toarray(), dtype)
    _close(a1.conj().toarray(), h1.conj().toarray(), dtype)
    _close(a1.real.toarray(), h1.real.toarray(), dtype)


def test_int64_indices_and_scipy_sources():
    h = _random(50, 40, 0.1, "f8", 10).tocsr()
    h.indices = h.indices.astype(np.int64)
    h.indptr = h.indptr.astype(np.int64)
    a = gs.csr_array((gp.asarray(h.data), gp.asarray(h.indices), gp.asarray(h.indptr)),
                     shape=h.shape)
    assert a.indices.dtype == np.int32        # SciPy's rule: int32 when it fits
    np.testing.assert_array_equal(gp.asnumpy(a.tocsc().toarray()), h.toarray())
    for src in (h, h.tocsc(), h.tocoo(), sp.csr_matrix(h)):
        b = gs.csr_array(src)
        np.testing.assert_array_equal(gp.asnumpy(b.toarray()), h.toarray())


def test_dense_sources():
    d = np.array([[0, 1.5, 0], [2, 0, 0], [0, 0, -3]])
    for src in (d, gp.asarray(d), d.tolist()):
        a = gs.csr_array(src)
        assert a.nnz == 3 and a.has_canonical_format
        np.testing.assert_array_equal(gp.asnumpy(a.toarray()), d)
    m = gs.coo_matrix(np.array([1.0, 0, 2.0]))
    assert m.shape == (1, 3)
    e = gs.csc_array((4, 5), dtype=np.int16)
    assert e.nnz == 0 and e.dtype == np.int16 and e.shape == (4, 5)
    np.testing.assert_array_equal(gp.asnumpy(e.toarray()), np.zeros((4, 5), np.int16))


def test_bad_input():
    with pytest.raises(ValueError, match="same length"):
        gs.coo_array(([1.0, 2.0], ([0], [0, 1])), shape=(2, 2))
    with pytest.raises(ValueError, match="row index exceeds"):
        gs.coo_array(([1.0], ([5], [0])), shape=(2, 2))
    with pytest.raises(ValueError, match="negative column index"):
        gs.coo_array(([1.0], ([0], [-1])), shape=(2, 2))
    with pytest.raises(ValueError, match="cannot infer dimensions"):
        gs.coo_array((np.zeros(0), (np.zeros(0, int), np.zeros(0, int))))
    with pytest.raises(ValueError, match="index pointer size"):
        gs.csr_array(([1.0], [0], [0, 1]), shape=(3, 3))
    with pytest.raises(ValueError, match="start with 0"):
        gs.csr_array(([1.0], [0], [1, 1, 1, 1]), shape=(3, 3))
    with pytest.raises(ValueError, match="does not support dtype"):
        gs.csr_array(np.eye(3, dtype=np.float16))
    a = gs.csr_array(np.eye(3))
    with pytest.raises(ValueError, match="dimension mismatch"):
        a @ gp.ones(4)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        a + gs.csr_array(np.eye(4))
    with pytest.raises(TypeError, match="ambiguous"):
        len(a)
    with pytest.raises(ValueError, match="'axes' parameter"):
        a.transpose(axes=(0, 1))
    with pytest.raises(ValueError, match="Scalar operands"):
        a @ 2
    full = gs.csr_array(([1.0], [7], [0, 1, 1, 1]), shape=(3, 3))
    with pytest.raises(ValueError, match="indices must be < 3"):
        full.check_format(full_check=True)


@pytest.mark.parametrize("fmt", FORMATS)
def test_nan_inf_and_strided_dense(fmt):
    rng = np.random.default_rng(11)
    d = rng.standard_normal((9, 8))
    d[rng.random(d.shape) < 0.5] = 0
    d[1, 2], d[4, 0], d[7, 7] = np.nan, np.inf, -np.inf
    view = gp.asarray(d)[::-1, ::2]                  # negative and non-unit strides
    want = d[::-1, ::2]
    a = getattr(gs, f"{fmt}_array")(view)
    h = getattr(sp, f"{fmt}_array")(np.ascontiguousarray(want))
    assert a.nnz == h.nnz
    np.testing.assert_array_equal(gp.asnumpy(a.toarray()), want)
    for axis in (None, 0, 1):
        np.testing.assert_allclose(gp.asnumpy(a.sum(axis=axis)), h.sum(axis=axis),
                                   rtol=1e-12, equal_nan=True)
    x = rng.standard_normal(4)
    np.testing.assert_allclose(gp.asnumpy(a @ gp.asarray(x)), h @ x, rtol=1e-12,
                               equal_nan=True)
