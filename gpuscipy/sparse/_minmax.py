"""``min``, ``max``, ``nanmin``, ``nanmax``, ``argmin``, ``argmax`` of the
sparse formats (SciPy's ``_minmax_mixin`` rules, SciPy 1.18 signatures).

Implicit zeros: a row / column (or the whole array) with fewer stored
entries than its length also holds a 0, which takes part in the result
unless ``explicit=True``. Duplicates are summed first (a canonical copy;
SciPy sums them in place).

Algorithm: the canonical CSR (rows, ``axis=1`` and the total) or CSC
(columns, ``axis=0``) form, then one kernel (``_minmax.cuh``,
``segment_extreme``: one thread per row / column, entries in stored order)
gives each segment's extreme and the position of its first occurrence.
The total reduces the stored values in chunks of ``CHUNK`` entries, then
the chunks' extremes the same way, until one is left. The implicit-zero
rule is elementwise afterwards (``gp.minimum(value, 0)`` ...), and the
first implicit zero of a sorted row is the count of its leading entries
whose column equals their offset in the row (a ``segment_sum``).

Results: the total is a 0-d device array (``min``/``max``) or a Python
int (``argmin``/``argmax``); along an axis, ``*_matrix`` gets SciPy's
``coo_matrix`` (1, N) / (M, 1) for min/max and a 2-D device array for
argmin/argmax, ``*_array`` gets a 1-D device array (SciPy: a 1-D
``coo_array`` for min/max; the formats here are 2-D only).
"""

import functools
import os

import numpy

import gpuscipy_core as gp
from gpuscipy_core.kernel import ctype, launch, read_source

from ._kernels import BLOCK, segment_sum

__all__ = []

_CUH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_minmax.cuh")
OPS = {"min": 0, "max": 1, "nanmin": 2, "nanmax": 3}
_ZERO_OP = {"min": "minimum", "max": "maximum", "nanmin": "fmin", "nanmax": "fmax"}
CHUNK = 1024


@functools.lru_cache(maxsize=128)
def segment_extreme_source(value_dtype, index_dtype, op):
    """``(source, name)`` of the segment extreme for these dtypes and ``op``
    ('min', 'max', 'nanmin', 'nanmax'); pure (no device access)."""
    t, i = ctype(numpy.dtype(value_dtype)), ctype(numpy.dtype(index_dtype))
    src = "#include <gpuscipy/types.cuh>\n" + read_source(_CUH)
    return src, f"gs_sparse_minmax::segment_extreme<{t}, {i}, {OPS[op]}>"


def segment_extreme(values, indptr, op):
    """``(out, pos)``: per segment of ``indptr``, the extreme of ``values``
    under ``op`` and the absolute position of its first occurrence (int64;
    ``-1`` and ``out`` 0 for an empty segment)."""
    nseg = max(indptr.shape[0] - 1, 0)
    out = gp.zeros(nseg, values.dtype)
    pos = gp.empty(nseg, numpy.int64)
    if nseg == 0:
        return out, pos
    values = gp.ascontiguousarray(values)
    indptr = gp.ascontiguousarray(indptr)
    src, name = segment_extreme_source(values.dtype, indptr.dtype, op)
    grid = (min(-(-nseg // BLOCK), 65535 * 32), 1, 1)
    launch(src, name, grid, (BLOCK, 1, 1), (values, indptr, nseg, out, pos))
    return out, pos


def _total(values, op):
    """The extreme of a non-empty 1-D array and its first position (device
    arrays of shape (1,)): chunks of ``CHUNK``, then chunks of those."""
    v, where_from = values, None
    while True:
        n = v.shape[0]
        ptr = gp.concatenate([gp.arange(0, n, CHUNK, dtype=numpy.int64),
                              gp.asarray(numpy.array([n], numpy.int64))])
        v, p = segment_extreme(v, ptr, op)
        where_from = p if where_from is None else where_from[p]
        if v.shape[0] == 1:
            return v, where_from


def _axis(axis):
    """SciPy's ``validateaxis`` for 2-D: None, or 0 / 1."""
    if axis is None:
        return None
    if axis == ():
        raise ValueError("sparse does not accept 0D axis (). Either use toarray (for "
                         "dense) or copy (for sparse).")
    if not isinstance(axis, tuple):
        if not numpy.issubdtype(numpy.dtype(type(axis)), numpy.integer):
            raise TypeError(f"axis must be an integer/tuple of ints, not {type(axis)}")
        axis = (axis,)
    canon = []
    for ax in axis:
        try:
            ax = int(ax) if int(ax) == ax else None
        except (TypeError, ValueError):
            ax = None
        if ax is None or isinstance(ax, bool):
            raise TypeError(f"axis must be an integer. (given {ax})")
        if ax < 0:
            ax += 2
        if ax < 0 or ax >= 2:
            raise ValueError("axis out of range for ndim")
        canon.append(ax)
    if len(canon) != len(set(canon)):
        raise ValueError("duplicate value in axis")
    if len(canon) > 2:
        raise ValueError("axis tuple has too many elements")
    return None if len(canon) == 2 else canon[0]


def _canonical(a, fmt):
    """``a`` in ``fmt`` ('csr' / 'csc') with sorted indices and no
    duplicates, ``a`` itself untouched."""
    c = a.tocsr(copy=False) if fmt == "csr" else a.tocsc(copy=False)
    if not c.has_canonical_format:
        c = c.copy()
        c.sum_duplicates()
    return c


def _zero(dtype):
    return gp.zeros((), dtype)


def min_or_max(a, axis, out, op, explicit):
    """``a.min()`` / ``max`` / ``nanmin`` / ``nanmax`` (``op``)."""
    if out is not None:
        raise ValueError("Sparse min/max does not support an 'out' parameter.")
    axis = _axis(axis)
    zop = getattr(gp, _ZERO_OP[op])
    m, n = a.shape
    if axis is None:
        if m == 0 or n == 0:
            raise ValueError("zero-size array to reduction operation")
        if a.nnz == 0:
            return _zero(a.dtype)
        c = _canonical(a, "csr")
        v, _ = _total(c._stored_data(), op)
        v = v.reshape(())
        if c.nnz != m * n and not explicit:
            v = zop(_zero(a.dtype), v)
        return v
    if a.shape[axis] == 0:
        raise ValueError("zero-size array to reduction operation")
    c = _canonical(a, "csc" if axis == 0 else "csr")
    val, _ = segment_extreme(c._stored_data(), c.indptr, op)
    if not explicit:
        full = gp.diff(c.indptr) == a.shape[axis]
        val = gp.where(full, val, zop(val, _zero(a.dtype)))
    if a._is_array:
        return val
    from ._base import public_class
    keep = gp.flatnonzero(val != 0)
    zeros = gp.zeros(keep.shape[0], keep.dtype)
    ij = (zeros, keep) if axis == 0 else (keep, zeros)
    shape = (1, val.shape[0]) if axis == 0 else (val.shape[0], 1)
    return public_class("coo", False)((val[keep], ij), shape=shape, dtype=a.dtype)


def _leading_run(c):
    """Per segment of canonical ``c``: the first minor index not stored
    (the count of entries whose index equals their offset in the segment)."""
    nnz = c.nnz
    if nnz == 0:
        return gp.zeros(c.indptr.shape[0] - 1, numpy.int64)
    major = c._major_index()
    offset = gp.arange(nnz, dtype=numpy.int64) - c.indptr[major].astype(numpy.int64)
    return segment_sum(c.indices[:nnz].astype(numpy.int64) == offset, c.indptr,
                       numpy.int64)


def argmin_or_argmax(a, axis, out, op, explicit):
    """``a.argmin()`` / ``argmax`` (``op`` 'min' / 'max')."""
    name = "arg" + op
    if out is not None:
        raise ValueError(f"Sparse {name} does not support an 'out' parameter.")
    axis = _axis(axis)
    m, n = a.shape
    zero = _zero(a.dtype)
    better = (lambda x: x < zero) if op == "min" else (lambda x: x > zero)
    if axis is not None:
        if a.shape[axis] == 0:
            raise ValueError(f"Cannot apply {name} along a zero-sized dimension.")
        c = _canonical(a, "csc" if axis == 0 else "csr")
        nseg = c.indptr.shape[0] - 1
        if c.nnz == 0:
            ret = gp.zeros(nseg, numpy.int64)
        else:
            val, pos = segment_extreme(c._stored_data(), c.indptr, op)
            at = c.indices[gp.where(pos >= 0, pos, 0)].astype(numpy.int64)
            ret = gp.where(pos >= 0, at, 0)
            if not explicit:
                gap = _leading_run(c)
                full = gp.diff(c.indptr) == a.shape[axis]
                ret = gp.where(better(val) | full, ret,
                               gp.where(val == zero, gp.where(ret < gap, ret, gap), gap))
        if a._is_array:
            return ret
        return ret.reshape((1, -1) if axis == 0 else (-1, 1))
    if m == 0 or n == 0:
        raise ValueError(f"Cannot apply {name} to an empty matrix.")
    if a.nnz == 0:
        if explicit:
            raise ValueError(f"Cannot apply {name} to zero matrix when explicit=True.")
        return 0
    c = _canonical(a, "csr")
    v, p = _total(c._stored_data(), op)
    p = int(gp.asnumpy(p)[0])
    if explicit:
        return p
    row = int(gp.asnumpy(c._major_index()[p:p + 1])[0])
    col = int(gp.asnumpy(c.indices[p:p + 1])[0])
    v = v.reshape(())
    if bool(better(v)) or c.nnz == m * n:
        return row * n + col
    counts = gp.diff(c.indptr)
    r = int(gp.asnumpy(gp.flatnonzero(counts < n)[:1])[0])
    z = r * n + int(gp.asnumpy(_leading_run(c)[r:r + 1])[0])
    if bool(v == zero):
        return min(z, p)
    return z
