"""Sparse (x) sparse: the matrix product (SpGEMM) and the elementwise
operations (``multiply``, ``maximum``, ``minimum``, the comparisons, the
division), with SciPy's result formats, dtypes and warnings.

Matrix product: cuSPARSE's SpGEMM (``_cusparse.spgemm``) for float32/64 and
complex64/128 values with int32 indices; otherwise (integer or bool values,
int64 indices) :func:`spgemm_expand`, on the device: every product
``A[i, k] * B[k, j]`` is expanded (row ``k`` of B for each entry of A: the
lengths of those rows, a cumulative sum, one ``searchsorted`` to map each
product to its A entry, gathers), then the products are sorted by
(i, j) with the core's stable ``lexsort`` and each run summed in order
(``segment_sum``): SciPy's order of summation (``csr_matmat``: A's row in
stored order), so integer results are exact (NumPy's wrapping). Entries that
sum to zero are dropped, as SciPy's ``csr_matmat`` does; the result is
canonical (sorted indices, no duplicates).

Elementwise: the canonical union of the two entry lists. Both lists,
tagged by zeros in the other operand's value column, are concatenated and
sorted by (major, minor) with the stable ``lexsort``; each run of one key
gives A's sum and B's sum (``segment_sum``), the operation is applied per
key and zero results are dropped (SciPy's ``csr_binop_csr``).
"""

import operator
import warnings

import numpy

import gpuscipy_core as gp

from ._kernels import segment_sum
from ._sputils import get_index_dtype, isdense, isscalarlike, upcast

__all__ = []

_I64 = numpy.int64


# ---------------------------------------------------------------- helpers

def _empty_parts(dt, nmajor):
    return (gp.empty(0, dt), gp.empty(0, numpy.int32), gp.zeros(nmajor + 1, numpy.int32))


def _runs(major, minor):
    """Pointers of the runs of equal (major, minor) keys of sorted keys."""
    n = major.shape[0]
    new = gp.empty(n, numpy.bool_)
    new[:1] = True
    if n > 1:
        new[1:] = (major[1:] != major[:-1]) | (minor[1:] != minor[:-1])
    starts = gp.flatnonzero(new)
    return starts, gp.concatenate([starts, gp.asarray(numpy.array([n], starts.dtype))])


def _compressed(major, minor, data, nmajor, drop_zeros=True):
    """CSR-like arrays ``(data, indices, indptr)`` of entries sorted by
    (major, minor) without duplicates (zeros dropped when asked)."""
    if drop_zeros and data.shape[0]:
        keep = data != 0
        major, minor, data = major[keep], minor[keep], data[keep]
    idx = get_index_dtype(maxval=max(nmajor, data.shape[0],
                                     int(minor.max()) + 1 if minor.shape[0] else 0))
    indptr = gp.searchsorted(major, gp.arange(nmajor + 1, dtype=major.dtype)).astype(idx)
    return data, minor.astype(idx), indptr


def _result(fmt, is_array, shape, parts):
    from ._base import public_class
    data, indices, indptr = parts
    return public_class(fmt, is_array)._from_parts(data, indices, indptr, shape,
                                                   canonical=True)


# ---------------------------------------------------------------- SpGEMM

def spgemm_expand(a_parts, b_parts, dtype=None):
    """``C = A @ B`` of CSR arrays ``(data, indices, indptr, (M, K))`` and
    ``(..., (K, N))`` by expanding every product (see the module's text);
    returns CSR ``(data, indices, indptr)``, canonical, zeros dropped, in
    ``dtype`` (default: the upcast of the two)."""
    ad, ai, ap, (M, K) = a_parts
    bd, bi, bp, (K2, N) = b_parts
    dt = numpy.dtype(dtype) if dtype is not None else upcast(ad.dtype, bd.dtype)
    nnz_a = int(ap[-1]) if ap.shape[0] else 0
    if nnz_a == 0 or M == 0 or N == 0 or bi.shape[0] == 0:
        return _empty_parts(dt, M)
    ad, ai = ad[:nnz_a].astype(dt), ai[:nnz_a].astype(_I64)
    bp64 = bp.astype(_I64)
    row_a = gp.searchsorted(ap[1:].astype(_I64), gp.arange(nnz_a, dtype=_I64),
                            side="right").astype(_I64)
    start = bp64[ai]
    cnt = bp64[ai + 1] - start
    incl = gp.cumsum(cnt)
    total = int(incl[-1])
    if total == 0:
        return _empty_parts(dt, M)
    p = gp.arange(total, dtype=_I64)
    e = gp.searchsorted(incl, p, side="right").astype(_I64)
    bidx = start[e] + (p - (incl - cnt)[e])
    row = row_a[e]
    col = bi[bidx].astype(_I64)
    val = ad[e] * bd.astype(dt)[bidx]
    order = gp.lexsort((col, row))
    row, col, val = row[order], col[order], val[order]
    starts, ptr = _runs(row, col)
    if starts.shape[0] != total:
        val = segment_sum(val, ptr, dt)
        row, col = row[starts], col[starts]
    return _compressed(row, col, val, M)


def _csr_parts(x, dt, canonical):
    if canonical and not x.has_canonical_format:
        x = x.copy()
        x.sum_duplicates()
    n = x.nnz
    return (x.data[:n].astype(dt, copy=False), x.indices[:n], x.indptr, x.shape)


def spgemm(a_csr, b_csr, dt):
    """CSR ``(data, indices, indptr)`` of ``a_csr @ b_csr`` (two CSR
    arrays) in the value dtype ``dt``: cuSPARSE or the expansion."""
    M, N = a_csr.shape[0], b_csr.shape[1]
    if a_csr.nnz == 0 or b_csr.nnz == 0 or M == 0 or N == 0:
        return _empty_parts(dt, M)
    int32 = (a_csr.indices.dtype == numpy.int32 and b_csr.indices.dtype == numpy.int32
             and a_csr.indptr.dtype == numpy.int32 and b_csr.indptr.dtype == numpy.int32)
    if dt.kind not in "fc" or not int32:
        return spgemm_expand(_csr_parts(a_csr, dt, False), _csr_parts(b_csr, dt, False), dt)
    from . import _cusparse
    data, indices, indptr = _cusparse.spgemm(_csr_parts(a_csr, dt, True),
                                             _csr_parts(b_csr, dt, True))
    from ._base import public_class
    c = public_class("csr", True)._from_parts(data, indices, indptr, (M, N))
    c.sort_indices()
    c.eliminate_zeros()
    c._flags = {"sorted": True, "canonical": True}
    return c.data, c.indices, c.indptr


def matmul_sparse(a, b):
    """``a @ b`` of two sparse arrays (shapes checked by the caller): CSC
    when ``a`` is CSC, else CSR; ``a``'s interface; SciPy's upcast."""
    dt = upcast(a.dtype, b.dtype)
    M, N = a.shape[0], b.shape[1]
    if a.format == "csc":
        # C^T = B^T A^T: the CSR arrays of B^T, A^T are the CSC ones of B, A
        bt = b.tocsc(copy=False).transpose()
        at = a.transpose()
        return _result("csc", a._is_array, (M, N), spgemm(bt, at, dt))
    return _result("csr", a._is_array, (M, N),
                   spgemm(a.tocsr(copy=False), b.tocsr(copy=False), dt))


# ---------------------------------------------------------------- elementwise

def _entries(x, fmt):
    c = x.tocoo(copy=False)
    r, k = c.row.astype(_I64), c.col.astype(_I64)
    return (c.data, r, k) if fmt == "csr" else (c.data, k, r)


def _union(a, b, fmt, dt):
    """Sorted union keys and per-key sums ``(major, minor, va, vb)``."""
    da, ma, na = _entries(a, fmt)
    db, mb, nb = _entries(b, fmt)
    la, lb = da.shape[0], db.shape[0]
    major = gp.concatenate([ma, mb])
    minor = gp.concatenate([na, nb])
    va = gp.concatenate([da.astype(dt), gp.zeros(lb, dt)])
    vb = gp.concatenate([gp.zeros(la, dt), db.astype(dt)])
    if la + lb == 0:
        return major, minor, va, vb
    order = gp.lexsort((minor, major))
    major, minor, va, vb = major[order], minor[order], va[order], vb[order]
    starts, ptr = _runs(major, minor)
    if starts.shape[0] == la + lb:
        return major, minor, va, vb
    return (major[starts], minor[starts], segment_sum(va, ptr, dt),
            segment_sum(vb, ptr, dt))


def _cs_format(x):
    return x.format if x.format in ("csr", "csc") else "csr"


def binop(a, b, fn, out_dtype=None):
    """``fn(a, b)`` elementwise over the union of two sparse arrays of one
    shape, zero results dropped; in ``a``'s compressed format (CSR for COO)
    and interface; values in the upcast dtype (``out_dtype``: the result's)."""
    fmt = _cs_format(a)
    dt = upcast(a.dtype, b.dtype)
    major, minor, va, vb = _union(a, b, fmt, dt)
    with numpy.errstate(all="ignore"):
        r = fn(va, vb)
    if out_dtype is not None:
        r = r.astype(out_dtype, copy=False)
    nmajor = a.shape[0] if fmt == "csr" else a.shape[1]
    return _result(fmt, a._is_array, a.shape, _compressed(major, minor, r, nmajor))


def _check_same_shape(a, b):
    if a.shape != b.shape:
        raise ValueError(f"inconsistent shapes {a.shape} and {b.shape}")


def _diag_csr(values, is_array):
    from ._base import public_class
    n = values.shape[0]
    idx = get_index_dtype(maxval=n)
    ar = gp.arange(n, dtype=idx)
    return public_class("csr", is_array)._from_parts(
        values, ar, gp.arange(n + 1, dtype=idx), (n, n))


def multiply_sparse(a, b):
    """``a.multiply(b)`` for sparse ``b``: SciPy's result formats, with its
    broadcasting of (1, 1), row and column operands."""
    if a.shape == b.shape:
        return binop(a, b, operator.mul)
    if b.shape == (1, 1):
        return a._mul_scalar(b.toarray()[0, 0])
    if a.shape == (1, 1):
        return b._mul_scalar(gp.sum(a._stored_data()))
    (sM, sN), (oM, oN) = a.shape, b.shape
    is_array = a._is_array
    if sM == 1 and oN == 1:
        return matmul_sparse(b, a.tocsc())
    if sN == 1 and oM == 1:
        return matmul_sparse(a, b.tocsc())
    if oM == 1 and sN == oN:
        return matmul_sparse(a, _diag_csr(b.toarray().reshape(-1), is_array))
    if sM == 1 and sN == oN:
        return matmul_sparse(b, _diag_csr(a.toarray().reshape(-1), is_array))
    if oN == 1 and sM == oM:
        return matmul_sparse(_diag_csr(b.toarray().reshape(-1), is_array), a)
    if sN == 1 and sM == oM:
        return matmul_sparse(_diag_csr(a.toarray().reshape(-1), is_array), b)
    raise ValueError(f"inconsistent shapes {a.shape} and {b.shape}")


def _scalar_binopt(cs, other, fn):
    """SciPy's ``_scalar_binopt``: duplicates summed (in place), ``fn`` on
    the stored values, zero results dropped."""
    cs.sum_duplicates()
    res = cs._with_data(fn(cs._stored_data(), other), copy=True)
    res.eliminate_zeros()
    return res


def _host_scalar(x):
    if isinstance(x, gp.ndarray):
        return gp.asnumpy(x)[()]
    return x


def _operand(x):
    """``x`` as sparse, dense (device) or scalar; ``None`` when it is none."""
    from ._base import _as_dense_operand, issparse
    if issparse(x) or isscalarlike(x) or isinstance(x, gp.ndarray):
        return x
    if isdense(x) or isinstance(x, (list, tuple)):
        try:
            return _as_dense_operand(x)
        except TypeError:
            return None
    return None


def maximum_minimum(a, other, name):
    """``a.maximum(other)`` / ``a.minimum(other)`` (``name``), SciPy's rules."""
    from ._base import SparseEfficiencyWarning, issparse
    fn = getattr(gp, name)
    npfn = getattr(numpy, name)
    other = _operand(other)
    if other is None:
        raise NotImplementedError("maximum or minimum with an unrecognized array type "
                                  "is not supported")
    if isscalarlike(other):
        other = _host_scalar(other)
        if npfn(0, other):
            pos_neg = "positive" if name == "maximum" else "negative"
            warnings.warn(f"Taking {name} with a {pos_neg} number results in a dense "
                          "matrix.", SparseEfficiencyWarning, stacklevel=3)
            return type(a)(fn(a.toarray(), other))
        cs = a if a.format in ("csr", "csc") else a.tocsr()
        return _scalar_binopt(cs, other, fn)
    if issparse(other):
        if a.shape != other.shape:
            raise ValueError(f"inconsistent shapes self.shape={a.shape} "
                             f"other.shape={other.shape}")
        return binop(a, other, fn)
    return fn(a.toarray(), other)


_SYM = {operator.eq: "==", operator.ne: "!=", operator.lt: "<", operator.gt: ">",
        operator.le: "<=", operator.ge: ">="}
_NEG = {operator.eq: operator.ne, operator.ne: operator.eq, operator.lt: operator.ge,
        operator.gt: operator.le, operator.le: operator.gt, operator.ge: operator.lt}


def _all_true_minus(cs, inv):
    """SciPy's ``all_true - inv`` for a bool sparse ``inv``: True where
    ``inv`` holds no True, as ``cs``'s format and interface."""
    dense = gp.logical_not(inv.toarray())
    return type(cs)(dense)


def compare(a, other, op):
    """``a <op> other`` (``==``, ``!=``, ``<``, ``>``, ``<=``, ``>=``) as SciPy:
    sparse bool results, a SparseEfficiencyWarning where the result is mostly
    True, dense results for dense operands."""
    from ._base import SparseEfficiencyWarning, issparse
    other = _operand(other)
    if other is None:
        return NotImplemented
    if isscalarlike(other):
        other = _host_scalar(other)
        if not op(0, other):
            if numpy.isnan(other):
                return type(a)(a.shape, dtype=numpy.bool_)
            cs = a if a.format in ("csr", "csc") else a.tocsr()
            return _scalar_binopt(cs, other, op)
        warnings.warn(f"Comparing a sparse matrix with {other} using {_SYM[op]} is "
                      f"inefficient. Try using {_SYM[_NEG[op]]} instead.",
                      SparseEfficiencyWarning, stacklevel=3)
        if numpy.isnan(other):
            return type(a)(gp.ones(a.shape, numpy.bool_))
        cs = a if a.format in ("csr", "csc") else a.tocsr()
        return _all_true_minus(cs, _scalar_binopt(cs, other, _NEG[op]))
    if issparse(other):
        if a.shape != other.shape:
            if op in (operator.eq, operator.ne):
                return op is operator.ne
            raise ValueError("inconsistent shape")
        cs = a if a.format in ("csr", "csc") else a.tocsr()
        if not op(0, 0):
            return binop(cs, other, op)
        warnings.warn(f"Comparing two sparse matrices using {_SYM[op]} is inefficient. "
                      f"Try using {_SYM[_NEG[op]]} instead.", SparseEfficiencyWarning,
                      stacklevel=3)
        return _all_true_minus(cs, binop(cs, other, _NEG[op]))
    return op(a.toarray(), other)


def divide_sparse(a, b):
    """``a / b`` of two sparse arrays: a dense device array as SciPy's
    ``_divide_sparse`` (NaN outside ``b``'s nonzeros, 0 on them, then the
    quotients over the union); values float64 unless ``a`` is complex."""
    _check_same_shape(a, b)
    if numpy.can_cast(a.dtype, numpy.float64):
        a = a.astype(numpy.float64, copy=False)
    fmt = _cs_format(a)
    dt = upcast(a.dtype, b.dtype)
    major, minor, va, vb = _union(a, b, fmt, dt)
    with numpy.errstate(all="ignore"):
        r = va / vb
    out_dt = a.dtype
    out = gp.full(a.shape, numpy.nan, dtype=out_dt)
    cb = b.tocoo(copy=False)
    nz = cb.data != 0
    out[cb.row[nz], cb.col[nz]] = 0
    keep = r != 0
    row, col = (major, minor) if fmt == "csr" else (minor, major)
    out[row[keep], col[keep]] = r[keep].astype(out_dt) if out_dt.kind == "c" or \
        r.dtype.kind != "c" else r[keep].real.astype(out_dt)
    return out
