"""Sparse (x) sparse against SciPy on the GPU: the matrix product (cuSPARSE
SpGEMM and the expansion fallback), ``multiply``, ``maximum``/``minimum``,
comparisons, division. Integer/bool results exact; float ones at rtol 1e-12
(64-bit) / 1e-5 (32-bit): cuSPARSE may add a row's products in another order.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import gpuscipy.sparse as gs
import gpuscipy_core as gp
from gpuscipy.sparse import _binop

pytestmark = pytest.mark.gpu

DTYPES = ["?", "i1", "u2", "i4", "i8", "u8", "f4", "f8", "c8", "c16"]
FORMATS = ["coo", "csr", "csc"]
SHAPES = [((0, 5), (5, 3)), ((4, 0), (0, 3)), ((1, 1), (1, 1)), ((7, 9), (9, 6)),
          ((30, 20), (20, 25))]


def _rtol(dt):
    dt = np.dtype(dt)
    return 0 if dt.kind in "biu" else (1e-5 if dt in (np.float32, np.complex64) else 1e-12)


def _random(m, n, dtype, seed, density=0.3, dups=True):
    """COO with empty rows/columns, duplicates and explicit zeros."""
    rng = np.random.default_rng(seed)
    nnz = int(m * n * density) if m and n else 0
    row = rng.integers(0, max(m // 2 + 1, 1), nnz) * 2 % max(m, 1)  # empty rows
    col = rng.integers(0, max(n, 1), nnz) * 3 % max(n, 1)           # empty columns
    if dups and nnz:
        row, col = np.concatenate([row, row[:3]]), np.concatenate([col, col[:3]])
    dt = np.dtype(dtype)
    k = row.shape[0]
    if dt.kind == "b":
        data = rng.integers(0, 2, k).astype(bool)
    elif dt.kind in "iu":
        data = rng.integers(0, 5, k).astype(dt)
    elif dt.kind == "c":
        data = (rng.integers(-3, 4, k) + 1j * rng.standard_normal(k)).astype(dt)
    else:
        data = rng.integers(-3, 4, k).astype(dt) * 0.5
    return sp.coo_array((data, (row, col)), shape=(m, n))


def _dense(x):
    if isinstance(x, gp.ndarray):
        return gp.asnumpy(x)
    if isinstance(x, (np.ndarray, np.matrix)):
        return np.asarray(x)
    return gp.asnumpy(x.toarray()) if not sp.issparse(x) else x.toarray()


def _same(got, want, dt=None):
    if sp.issparse(want):
        assert gs.issparse(got), type(got)
        assert got.format == want.format, (got.format, want.format)
        assert got._is_array == isinstance(want, sp.sparray)
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        assert got.shape == want.shape
        # zeros dropped as SciPy's kernels do; kept where SciPy keeps them (scalars)
        assert got.nnz in (np.count_nonzero(want.toarray()), want.nnz)
        assert got.has_canonical_format
    g, w = _dense(got), _dense(want)
    assert g.shape == w.shape and g.dtype == w.dtype, (g.dtype, w.dtype)
    np.testing.assert_allclose(g, w, rtol=_rtol(dt or w.dtype), atol=0)


def _ours(h, fmt, array=True):
    return getattr(gs, f"{fmt}_{'array' if array else 'matrix'}")(h)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SHAPES)
def test_matmul(dtype, shapes):
    ha, hb = _random(*shapes[0], dtype, 1), _random(*shapes[1], dtype, 2)
    for fa in FORMATS:
        for fb in FORMATS:
            want = ha.asformat(fa) @ hb.asformat(fb)
            _same(_ours(ha, fa) @ _ours(hb, fb), want)


@pytest.mark.parametrize("da,db", [("f4", "f8"), ("i4", "f4"), ("?", "i1"), ("c8", "f8"),
                                   ("u8", "i8")])
def test_matmul_upcast_and_interfaces(da, db):
    ha, hb = _random(9, 8, da, 3), _random(8, 5, db, 4)
    _same(_ours(ha, "csr") @ _ours(hb, "csc"), ha.tocsr() @ hb.tocsc())
    ma, mb = sp.csr_matrix(ha), sp.csc_matrix(hb)
    _same(_ours(ha, "csr", False) * _ours(hb, "csc", False), ma * mb)
    _same(_ours(ha, "csr", False) @ _ours(hb, "csr"), ma @ sp.csr_array(hb))
    _same(_ours(ha, "csr").dot(_ours(hb, "csr", False)), sp.csr_array(ha).dot(sp.csr_matrix(hb)))


def test_matmul_cancellation_and_int64_indices():
    a = sp.csr_array(np.array([[1.0, 1.0], [2.0, 0.0]]))
    b = sp.csr_array(np.array([[1.0], [-1.0]]))
    _same(_ours(a, "csr") @ _ours(b, "csr"), a @ b)      # (0, 0) cancels: dropped
    h = _random(20, 20, "f8", 5)
    ga = gs.csr_array(h)
    big = gs.csr_array((ga.data, ga.indices.astype(np.int64), ga.indptr.astype(np.int64)),
                       shape=ga.shape)
    big.indices, big.indptr = big.indices.astype(np.int64), big.indptr.astype(np.int64)
    _same(big @ ga, h.tocsr() @ h.tocsr())


@pytest.mark.parametrize("dtype", ["f4", "f8", "c8", "c16"])
def test_spgemm_matches_expansion(dtype):
    ha, hb = _random(40, 30, dtype, 6), _random(30, 35, dtype, 7)
    a, b = gs.csr_array(ha), gs.csr_array(hb)
    a.sum_duplicates()
    b.sum_duplicates()
    dt = np.dtype(dtype)
    got = _binop.spgemm(a, b, dt)
    ref = _binop.spgemm_expand(_binop._csr_parts(a, dt, False), _binop._csr_parts(b, dt, False))
    np.testing.assert_array_equal(gp.asnumpy(got[2]), gp.asnumpy(ref[2]))
    np.testing.assert_array_equal(gp.asnumpy(got[1]), gp.asnumpy(ref[1]))
    np.testing.assert_allclose(gp.asnumpy(got[0]), gp.asnumpy(ref[0]), rtol=_rtol(dt))


def _pair(dtype, shape=(12, 10)):
    return _random(*shape, dtype, 8), _random(*shape, dtype, 9)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fa", FORMATS)
def test_multiply_maximum_minimum(dtype, fa):
    ha, hb = _pair(dtype)
    for fb in FORMATS:
        x, y = ha.asformat(fa), hb.asformat(fb)
        a, b = _ours(ha, fa), _ours(hb, fb)
        _same(a.multiply(b), x.multiply(y))
        _same(a * b, x * y)
        if np.dtype(dtype).kind != "c":
            _same(a.maximum(b), x.maximum(y))
            _same(a.minimum(b), x.minimum(y))


def test_multiply_broadcasting_and_matrix_star():
    h = _random(6, 5, "f8", 10)
    for other in (_random(1, 5, "f8", 11), _random(6, 1, "f8", 12), _random(1, 1, "f8", 13)):
        _same(gs.csr_array(h).multiply(gs.csr_array(other)), h.tocsr().multiply(other.tocsr()))
        _same(gs.csr_array(other).multiply(gs.csr_array(h)), other.tocsr().multiply(h.tocsr()))
    r, c = _random(1, 5, "f8", 14, density=0.8), _random(6, 1, "f8", 15, density=0.8)
    _same(gs.csr_array(r).multiply(gs.csr_array(c)), r.tocsr().multiply(c.tocsr()))
    with pytest.raises(ValueError, match="inconsistent shapes"):
        gs.csr_array(h).multiply(gs.csr_array(_random(5, 6, "f8", 1)))


def _check_warns(fn_ours, fn_scipy):
    with warnings.catch_warnings(record=True) as w1:
        warnings.simplefilter("always")
        want = fn_scipy()
    with warnings.catch_warnings(record=True) as w2:
        warnings.simplefilter("always")
        got = fn_ours()
    k1 = [x.category.__name__ for x in w1 if "Sparse" in x.category.__name__]
    k2 = [x.category.__name__ for x in w2 if "Sparse" in x.category.__name__]
    assert k1 == k2, (k1, k2)
    return got, want


OPS = ["__eq__", "__ne__", "__lt__", "__gt__", "__le__", "__ge__"]


@pytest.mark.parametrize("dtype", ["?", "i1", "u2", "i8", "f4", "f8", "c16"])
@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("fmt", FORMATS)
def test_comparisons(dtype, op, fmt):
    if np.dtype(dtype).kind == "c" and op not in ("__eq__", "__ne__"):
        pytest.skip("complex ordering")
    ha, hb = _pair(dtype)
    x, y = ha.asformat(fmt), hb.asformat("csr")
    a, b = _ours(ha, fmt), _ours(hb, "csr")
    got, want = _check_warns(lambda: getattr(a, op)(b), lambda: getattr(x, op)(y))
    _same(got, want)
    for s in (0, 1, -1, 2.5, np.nan):
        if np.dtype(dtype).kind == "c" and op not in ("__eq__", "__ne__"):
            continue
        x, a = ha.asformat(fmt), _ours(ha, fmt)
        got, want = _check_warns(lambda: getattr(a, op)(s), lambda: getattr(x, op)(s))
        _same(got, want)
    d = hb.toarray()
    got = getattr(_ours(ha, fmt), op)(gp.asarray(d))
    _same(got, getattr(ha.asformat(fmt), op)(d))


def test_comparison_shape_mismatch_and_scalar_maximum():
    a, b = gs.csr_array(_random(4, 3, "f8", 1)), gs.csr_array(_random(3, 4, "f8", 2))
    assert (a == b) is False and (a != b) is True
    with pytest.raises(ValueError, match="inconsistent shape"):
        a < b
    h = _random(5, 4, "f8", 3)
    for fmt in FORMATS:
        for s in (-1.0, 0.0, 2.0):
            for name in ("maximum", "minimum"):
                got, want = _check_warns(lambda: getattr(_ours(h, fmt), name)(s),
                                         lambda: getattr(h.asformat(fmt), name)(s))
                _same(got, want)
        d = _random(5, 4, "f8", 4).toarray()
        _same(_ours(h, fmt).maximum(gp.asarray(d)), np.asarray(h.asformat(fmt).maximum(d)))
    with pytest.raises(ValueError, match="inconsistent shapes"):
        a.maximum(b)


@pytest.mark.parametrize("dtype", ["?", "i4", "u8", "f4", "f8", "c8", "c16"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_divide(dtype, fmt):
    ha, hb = _pair(dtype)
    with np.errstate(all="ignore"):
        want = ha.asformat(fmt) / hb.asformat("csr")
    got = _ours(ha, fmt) / _ours(hb, "csr")
    assert isinstance(got, gp.ndarray)
    g, w = gp.asnumpy(got), np.asarray(want)
    assert g.dtype == w.dtype
    if w.dtype.kind == "c":
        # x / 0 of complex: SciPy's C++ gives nan+nanj, NumPy/CUDA inf or nan parts
        fin = np.isfinite(w)
        np.testing.assert_array_equal(np.isfinite(g), fin)
        g, w = g[fin], w[fin]
    np.testing.assert_allclose(g, w, rtol=_rtol(w.dtype), atol=0, equal_nan=True)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        _ours(ha, fmt) / gs.csr_array(_random(3, 3, dtype, 1))


def test_bad_input():
    a = gs.csr_array(_random(4, 3, "f8", 1))
    with pytest.raises(ValueError, match="dimension mismatch"):
        a @ a
    with pytest.raises(ValueError, match="dimension mismatch"):
        gs.csr_matrix(a) * gs.csr_matrix(a)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        a.multiply(a.T)
    with pytest.raises(TypeError):
        hash(a)
