"""Indexing of the sparse formats: ``__getitem__``, ``__setitem__``,
``setdiag`` (SciPy 1.18's rules for ``*_array`` and ``*_matrix``).

Keys: integers (negative wrap), slices (any step), integer arrays and
lists (host or device, 1-D or 2-D), boolean masks (one per axis, or one of
the array's shape), ``Ellipsis``, in any combination. Two index arrays (or
an array and an integer on ``*_array``) select element pairs, broadcast
together, as NumPy; otherwise rows and columns are selected independently.

Algorithms (device arrays throughout, no host loop over entries):

* Major-axis selection (rows of CSR, columns of CSC): whole segments are
  gathered -- the new pointers are the cumsum of the selected lengths, the
  source position of output entry ``e`` is
  ``indptr[sel[s]] + e - newptr[s]`` with ``s = searchsorted(newptr[1:], e,
  'right')``, then one gather of ``indices`` and ``data``.
* Minor-axis selection: the selection sorted (stable argsort); every entry
  finds its run of equal selections by two ``searchsorted`` and is repeated
  once per match (``repeat``), so repeated and unsorted selections work.
  The result is built as COO and compressed (sorted, duplicates summed).
* Element pairs: keys ``row * N + col`` of the canonical CSR form are
  sorted; one ``searchsorted`` per requested pair.
* ``__setitem__`` / ``setdiag``: the target pairs (last assignment wins),
  stored entries at those pairs are dropped, the new values appended, and
  the array rebuilt through COO (correct, not yet fast). New zeros are not
  stored; stored entries assigned 0 stay as explicit zeros (SciPy's rule).

Results: ``*_array`` results that SciPy returns as 1-D ``coo_array`` (a
row ``A[i]``, a column ``A[:, j]``, ``A[i, cols]``, element pairs) are
1-D device arrays here (the formats are 2-D only); element pairs of a
``*_matrix`` are a (1, k) device array (SciPy: ``numpy.matrix``); a
single element is a 0-d device array (SciPy: a NumPy scalar).

Not supported (``NotImplementedError``): ``None`` (newaxis) in a key,
sparse arrays as keys or as assigned values.
"""

import warnings

import numpy

import gpuscipy_core as gp

from ._base import SparseEfficiencyWarning, _spbase, public_class
from ._sputils import isintlike

__all__ = []


# ---------------------------------------------------------------- keys

def _is_int(x):
    if isinstance(x, (bool, numpy.bool_)):
        return False
    if isinstance(x, (int, numpy.integer)):
        return True
    return (isinstance(x, (numpy.ndarray, gp.ndarray)) and x.ndim == 0
            and x.dtype.kind in "iu")


def _check_int(k, n):
    k = int(k)
    if k < -n or k >= n:
        raise IndexError(f"index ({k}) out of range")
    return k + n if k < 0 else k


def _as_index_array(x, n, axis):
    """A device int64 array of ``x`` (list, host or device array; bool masks
    become their positions), wrapped and bounds-checked against ``n``."""
    if not isinstance(x, gp.ndarray):
        h = numpy.asarray(x)
        if h.dtype == object:
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if h.size == 0 and h.dtype.kind == "f":
            h = h.astype(numpy.int64)
        x = gp.asarray(h)
    if x.dtype.kind == "b":
        if x.ndim != 1 or x.shape[0] != n:
            raise IndexError(f"bool index {axis} has shape {tuple(x.shape)} instead of ({n},)")
        return gp.flatnonzero(x).astype(numpy.int64)
    if x.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    if x.ndim > 2:
        raise IndexError("Index dimension must be 1 or 2")
    x = x.astype(numpy.int64)
    if x.size:
        ext = gp.asnumpy(gp.stack([x.min(), x.max()]))
        if ext[1] >= n:
            raise IndexError(f"index ({int(ext[1])}) out of range")
        if ext[0] < -n:
            raise IndexError(f"index ({int(ext[0])}) out of range")
        if ext[0] < 0:
            x = gp.where(x < 0, x + n, x)
    return x


def _parse(a, key):
    """``key`` as two selections, each ``('int', k)``, ``('slice', slice)``
    (normalized) or ``('array', device int64 array)``."""
    m, n = a.shape
    if isinstance(key, _spbase):
        raise NotImplementedError("sparse arrays as indices are not supported")
    if isinstance(key, (numpy.ndarray, gp.ndarray)) and key.dtype.kind == "b" \
            and key.ndim == 2:
        if tuple(key.shape) != (m, n):
            raise IndexError(f"bool index has shape {tuple(key.shape)} instead of {(m, n)}")
        r, c = gp.nonzero(key if isinstance(key, gp.ndarray) else gp.asarray(key))
        return ("array", r.astype(numpy.int64)), ("array", c.astype(numpy.int64))
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is None for k in key):
        raise NotImplementedError("None (newaxis) in an index is not supported")
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if Ellipsis in [k for k in key if k is Ellipsis]:
        i = [j for j, k in enumerate(key) if k is Ellipsis][0]
        fill = (slice(None),) * max(2 - (len(key) - 1), 0)
        key = key[:i] + fill + key[i + 1:]
    if len(key) > 2:
        raise IndexError("Too many indices for array or tuple index out of range. "
                         f"Key {key} needs {len(key)}D. Array is 2")
    key = key + (slice(None),) * (2 - len(key))
    out = []
    for axis, (k, size) in enumerate(zip(key, (m, n))):
        if _is_int(k):
            out.append(("int", _check_int(k, size)))
        elif isinstance(k, slice):
            out.append(("slice", slice(*k.indices(size))))
        elif isinstance(k, (list, numpy.ndarray, gp.ndarray)):
            out.append(("array", _as_index_array(k, size, axis)))
        elif isintlike(k) and not isinstance(k, (float, numpy.floating)):
            out.append(("int", _check_int(k, size)))
        else:
            raise IndexError("Index dimension must be 1 or 2. Got 0")
    return out[0], out[1]


def _positions(sel):
    """The selected positions of a selection as a 1-D device int64 array."""
    kind, v = sel
    if kind == "int":
        return gp.asarray(numpy.array([v], numpy.int64))
    if kind == "slice":
        return gp.arange(v.start, v.stop, v.step, dtype=numpy.int64)
    return v.reshape(-1)


def _is_full(sel, size):
    return sel[0] == "slice" and sel[1].indices(size) == (0, size, 1) and \
        sel[1].step == 1


def _is_pair(a, ri, ci):
    if ri[0] == "array" and ci[0] == "array":
        return True
    if a._is_array and "array" in (ri[0], ci[0]) and "int" in (ri[0], ci[0]):
        return True
    return False


def _broadcast_pair(ri, ci):
    r = ri[1] if ri[0] == "array" else gp.asarray(numpy.array(ri[1], numpy.int64))
    c = ci[1] if ci[0] == "array" else gp.asarray(numpy.array(ci[1], numpy.int64))
    try:
        shape = numpy.broadcast_shapes(tuple(r.shape), tuple(c.shape))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                         f"with shapes {tuple(r.shape)} {tuple(c.shape)}") from None
    return gp.broadcast_to(r, shape).reshape(-1), gp.broadcast_to(c, shape).reshape(-1), shape


# ---------------------------------------------------------------- getitem

def _canonical_csr(a):
    c = a.tocsr(copy=False)
    if not c.has_canonical_format:
        c = c.copy()
        c.sum_duplicates()
    return c


def _lookup(c, rows, cols):
    """Values of canonical CSR ``c`` at the pairs (rows, cols) (1-D)."""
    n = c.shape[1]
    if c.nnz == 0 or rows.shape[0] == 0:
        return gp.zeros(rows.shape[0], c.dtype)
    keys = c._major_index() * n + c.indices[:c.nnz].astype(numpy.int64)
    q = rows * n + cols
    pos = gp.searchsorted(keys, q)
    pos = gp.where(pos < c.nnz, pos, 0)
    found = keys[pos] == q
    return gp.where(found, c._stored_data()[pos], gp.zeros((), c.dtype))


def _major_gather(c, sel):
    """(major, minor, data) COO parts of the segments ``sel`` of compressed
    ``c`` (major numbered 0..len(sel)-1)."""
    lengths = gp.diff(c.indptr).astype(numpy.int64)[sel]
    newptr = gp.concatenate([gp.zeros(1, numpy.int64), gp.cumsum(lengths)])
    total = int(gp.asnumpy(newptr[-1:])[0])
    if total == 0:
        e = gp.empty(0, numpy.int64)
        return e, e, gp.empty(0, c.dtype)
    e = gp.arange(total, dtype=numpy.int64)
    seg = gp.searchsorted(newptr[1:], e, side="right")
    src = c.indptr.astype(numpy.int64)[sel][seg] + (e - newptr[seg])
    return seg, c.indices[src].astype(numpy.int64), c.data[src]


def _minor_select(major, minor, data, sel):
    """Entries remapped to the positions of ``sel`` (an entry is repeated
    once per position selecting its minor index; unselected ones dropped)."""
    if minor.shape[0] == 0 or sel.shape[0] == 0:
        e = gp.empty(0, numpy.int64)
        return e, e, gp.empty(0, data.dtype)
    perm = gp.argsort(sel, kind="stable")
    ssel = sel[perm]
    lo = gp.searchsorted(ssel, minor, side="left")
    cnt = gp.searchsorted(ssel, minor, side="right") - lo
    rep = gp.repeat(gp.arange(minor.shape[0], dtype=numpy.int64), cnt)
    if rep.shape[0] == 0:
        e = gp.empty(0, numpy.int64)
        return e, e, gp.empty(0, data.dtype)
    first = gp.cumsum(cnt) - cnt
    k = gp.arange(rep.shape[0], dtype=numpy.int64) - first[rep]
    return major[rep], perm[lo[rep] + k].astype(numpy.int64), data[rep]


def _submatrix(a, ri, ci):
    """``a[R][:, C]`` as a 2-D sparse array of ``a``'s format."""
    from ._coo import _coo_base
    m, n = a.shape
    fmt = a.format
    c = a if fmt in ("csr", "csc") else a.tocsr(copy=False)
    msel, nsel = (ri, ci) if c.format == "csr" else (ci, ri)
    M, N = (m, n) if c.format == "csr" else (n, m)
    mpos, npos = _positions(msel), _positions(nsel)
    if _is_full(msel, M):
        major = c._major_index()
        minor = c.indices[:c.nnz].astype(numpy.int64)
        data = c._stored_data()
    else:
        major, minor, data = _major_gather(c, mpos)
    if not _is_full(nsel, N):
        major, minor, data = _minor_select(major, minor, data, npos)
    shape = (mpos.shape[0], npos.shape[0])
    row, col = (major, minor) if c.format == "csr" else (minor, major)
    if c.format == "csc":
        shape = shape[::-1]
    out = _coo_base._from_parts(data, row, col, shape, a._is_array)
    return out if fmt == "coo" else out.asformat(fmt)


def getitem(a, key):
    """``a[key]`` (see the module docstring)."""
    if a.format == "coo" and not a._is_array:
        raise TypeError("'coo_matrix' object is not subscriptable")
    ri, ci = _parse(a, key)
    if ri[0] == "int" and ci[0] == "int":
        c = _canonical_csr(a)
        return _lookup(c, gp.asarray(numpy.array([ri[1]], numpy.int64)),
                       gp.asarray(numpy.array([ci[1]], numpy.int64))).reshape(())
    if _is_pair(a, ri, ci):
        rows, cols, shape = _broadcast_pair(ri, ci)
        vals = _lookup(_canonical_csr(a), rows, cols)
        if len(shape) == 2:
            d = vals.reshape(shape)
            return public_class(a.format, a._is_array)(d)
        if a._is_array:
            return vals.reshape(shape)
        return vals.reshape(1, -1)
    for s in (ri, ci):
        if s[0] == "array" and s[1].ndim != 1:
            raise IndexError("Index dimension must be 1 or 2")
    sub = _submatrix(a, ri, ci)
    if a._is_array and "int" in (ri[0], ci[0]):
        return sub.toarray().reshape(-1)
    return sub


# ---------------------------------------------------------------- setitem

def _targets(a, key):
    """The target pairs of ``key`` (rows, cols: 1-D device int64) and the
    shape an assigned value broadcasts to."""
    ri, ci = _parse(a, key)
    if ri[0] == "int" and ci[0] == "int":
        return (gp.asarray(numpy.array([ri[1]], numpy.int64)),
                gp.asarray(numpy.array([ci[1]], numpy.int64)), ())
    if _is_pair(a, ri, ci):
        return _broadcast_pair(ri, ci)
    r, c = _positions(ri), _positions(ci)
    shape = (r.shape[0], c.shape[0])
    rows = gp.repeat(r, c.shape[0])
    cols = gp.concatenate([c] * r.shape[0]) if r.shape[0] else gp.empty(0, numpy.int64)
    if a._is_array:
        sel = tuple(s for s, t in zip(shape, (ri, ci)) if t[0] != "int")
        return rows, cols, (sel, shape)
    return rows, cols, shape


def _assign(a, rows, cols, vals):
    """Store ``vals`` at the pairs (rows, cols) of ``a`` in place (last
    assignment of a pair wins; new zeros are not stored)."""
    from ._coo import _coo_base
    m, n = a.shape
    if rows.shape[0] == 0:
        return
    keys = rows * n + cols
    order = gp.argsort(keys, kind="stable")
    keys, vals = keys[order], vals[order]
    last = gp.concatenate([keys[1:] != keys[:-1], gp.ones(1, numpy.bool_)])
    keep = gp.flatnonzero(last)
    keys, vals = keys[keep], vals[keep]
    c = _canonical_csr(a)
    if c.nnz:
        old = c._major_index() * n + c.indices[:c.nnz].astype(numpy.int64)
        p = gp.searchsorted(keys, old)
        p = gp.where(p < keys.shape[0], p, 0)
        hit = keys[p] == old
        q = gp.searchsorted(old, keys)
        q = gp.where(q < old.shape[0], q, 0)
        stored = old[q] == keys
        stay = gp.flatnonzero(~hit)
        old_r, old_c = old[stay] // n, old[stay] % n
        old_d = c._stored_data()[stay]
    else:
        stored = gp.zeros(keys.shape[0], numpy.bool_)
        old_r = old_c = gp.empty(0, numpy.int64)
        old_d = gp.empty(0, a.dtype)
    new = gp.flatnonzero(stored | (vals != 0))
    if a.format != "coo" and bool(gp.any(~stored[new])):
        warnings.warn(f"Changing the sparsity structure of a {a.format}_"
                      f"{'array' if a._is_array else 'matrix'} is expensive. lil and dok "
                      "are more efficient.", SparseEfficiencyWarning, stacklevel=3)
    keys, vals = keys[new], vals[new]
    row = gp.concatenate([old_r, keys // n])
    col = gp.concatenate([old_c, keys % n])
    data = gp.concatenate([old_d, vals.astype(a.dtype)])
    coo = _coo_base._from_parts(data, row, col, a.shape, a._is_array)
    res = coo.asformat(a.format) if a.format != "coo" else coo
    if a.format == "coo":
        res.sum_duplicates()
    a.__dict__.update(res.__dict__)


def _as_values(x, dtype):
    if isinstance(x, _spbase):
        raise NotImplementedError("assigning a sparse array is not supported; "
                                  "assign x.toarray()")
    if isinstance(x, gp.ndarray):
        return x
    h = numpy.asarray(x)
    if h.dtype == object:
        raise ValueError("setting an array element with a sequence.")
    return gp.asarray(h)


def setitem(a, key, x):
    """``a[key] = x`` (``x`` a scalar or a dense array broadcasting to the
    selection)."""
    if a.format == "coo" and not a._is_array:
        raise TypeError("'coo_matrix' object does not support item assignment")
    rows, cols, shape = _targets(a, key)
    v = _as_values(x, a.dtype)
    if isinstance(shape, tuple) and len(shape) == 2 and isinstance(shape[0], tuple):
        sel, grid = shape
        try:
            v = gp.broadcast_to(v, sel).reshape(grid)
        except ValueError:
            v = _broadcast_or_raise(v, grid)
        shape = grid
    else:
        v = _broadcast_or_raise(v, shape)
    _assign(a, rows, cols, v.reshape(-1).astype(a.dtype))


def _broadcast_or_raise(v, shape):
    try:
        return gp.broadcast_to(v, shape)
    except ValueError:
        if v.size == int(numpy.prod(shape)) and v.ndim <= 2:
            return v.reshape(shape)
        raise ValueError(f"shape mismatch in assignment: {tuple(v.shape)} to {shape}") \
            from None


def setdiag(a, values, k=0):
    """Set the ``k``-th diagonal to ``values`` (a scalar: the whole
    diagonal; an array: its first ``len(values)`` entries), in place."""
    m, n = a.shape
    if (k < 0 and -k >= m) or (k > 0 and k >= n):
        raise ValueError("k exceeds array dimensions")
    length = min(m + min(k, 0), n - max(k, 0))
    v = _as_values(values, a.dtype)
    if v.ndim == 0:
        v = gp.broadcast_to(v, (length,))
    else:
        v = v.reshape(-1)[:length]
    cnt = v.shape[0]
    i = gp.arange(cnt, dtype=numpy.int64)
    _assign(a, i - min(k, 0), i + max(k, 0), v.astype(a.dtype))
