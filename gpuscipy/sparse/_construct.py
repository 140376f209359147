"""Construction functions (``scipy.sparse``'s): identity and diagonal
arrays, random arrays, block stacking, Kronecker products.

Every function builds its stored arrays on the device from device arrays
(``gpuscipy_core``): host work is limited to shapes, offsets and per-block
metadata (one host loop over blocks or diagonals, never over entries).

Results follow SciPy's interface rule: the ``*_array`` functions (and any
function given a ``sparray`` input) return ``sparray`` classes, the older
names (``eye``, ``identity``, ``diags``, ``spdiags``, ``random``, ``rand``,
``bmat``, ``hstack``/``vstack`` of matrices, ...) return ``*_matrix``
classes.

Differences from SciPy (dia and bsr are not built yet):

- ``eye``, ``identity``, ``eye_array``, ``diags``, ``diags_array`` and
  ``spdiags`` return CSR where SciPy returns DIA (``format=None``); the
  stored entries are SciPy's DIA -> CSR conversion's (zeros dropped,
  canonical order).
- ``kron`` returns CSR where SciPy returns BSR (``format=None`` and a
  second operand at least half full); SciPy's BSR stores the second
  operand's zeros in every block, the CSR stores the nonzero products only.
- ``format='dia'``, ``'bsr'``, ``'lil'``, ``'dok'`` raise
  ``NotImplementedError``.
- ``random``/``random_array``: the positions and values come from
  ``gpuscipy_core.random`` (Philox on the device), so they are not SciPy's
  for the same seed. A NumPy ``Generator``/``RandomState`` (or ``None``:
  NumPy's global state, as SciPy) seeds the device generator with one
  64-bit draw.
- Only 2-D shapes (SciPy's ``random_array`` and ``kron`` also take n-D).
"""

import math
import numbers
import warnings

import numpy

import gpuscipy_core as gp
import gpuscipy_core.random as _gprandom

from ._base import _spbase, public_class, sparray
from ._coo import _coo_base
from ._sputils import check_shape, getdtype, isscalarlike, to_device, upcast

__all__ = ["eye", "identity", "eye_array", "diags", "diags_array", "spdiags", "random",
           "random_array", "rand", "kron", "kronsum", "hstack", "vstack", "bmat",
           "block_array", "block_diag"]

_UNBUILT = ("dia", "bsr", "lil", "dok")

_NoValue = object()


# ---------------------------------------------------------------- helpers

def _scipy_sparse():
    import scipy.sparse
    return scipy.sparse


def _is_sparray(x):
    """``x`` has the array interface: ours or SciPy's ``sparray``."""
    if isinstance(x, sparray):
        return True
    if isinstance(x, _spbase):
        return False
    sp = _scipy_sparse()
    return isinstance(x, sp.sparray)


def _as_sparse(x, is_array):
    """``x`` (ours, SciPy's sparse, or dense) as one of our sparse arrays with
    the given interface; coo/csr/csc keep their format, others become CSR,
    dense becomes COO."""
    if isinstance(x, _spbase):
        if x._is_array == bool(is_array):
            return x
        if x.format == "coo":
            return _coo_base._from_parts(x.data, x.row, x.col, x.shape, is_array,
                                         x.has_canonical_format)
        out = public_class(x.format, is_array)._from_parts(x.data, x.indices, x.indptr,
                                                           x.shape, nnz=x.nnz)
        out._flags = dict(x._flags)
        return out
    sp = _scipy_sparse()
    if sp.issparse(x):
        fmt = x.format if x.format in ("coo", "csr", "csc") else "csr"
        return public_class(fmt, is_array)(x)
    return public_class("coo", is_array)(x)


def _as_coo(x, is_array):
    return _as_sparse(x, is_array).tocoo(copy=False)


def _check_format(format):
    if format in _UNBUILT:
        raise NotImplementedError(f"format {format!r} is not built yet in "
                                  "gpuscipy.sparse (coo, csr and csc are)")


def _asformat(a, format):
    _check_format(format)
    return a.asformat(format)


def _coo(data, row, col, shape, is_array, canonical=False):
    return _coo_base._from_parts(data, row, col, shape, is_array, canonical)


def _i64(a):
    return a.astype(numpy.int64, copy=False)


def _device_int64(values):
    return gp.asarray(numpy.asarray(values, dtype=numpy.int64))


def _canonical_csr(data, row, col, shape, is_array, drop_zeros=False):
    """CSR of these entries: sorted, duplicates summed (SciPy's COO -> CSR);
    ``drop_zeros``: explicit zeros removed (SciPy's DIA -> CSR)."""
    if drop_zeros and data.shape[0]:
        keep = data != 0
        data, row, col = data[keep], row[keep], col[keep]
    return _coo(data, row, col, shape, is_array).tocsr()


# ---------------------------------------------------------------- diagonals

def _diagonals(values, row0, col0, lengths, shape, dtype, is_array):
    """Canonical CSR (zeros dropped) of diagonal runs: run ``j`` holds
    ``values[j]`` (device, length ``lengths[j]``) at ``(row0[j] + t,
    col0[j] + t)``. All runs' coordinates come from one ``arange`` and a
    ``searchsorted`` of the run starts (a few launches, whatever the count)."""
    total = int(sum(lengths))
    if total == 0:
        return _canonical_csr(gp.empty(0, dtype), gp.empty(0, numpy.int64),
                              gp.empty(0, numpy.int64), shape, is_array)
    ptr = numpy.zeros(len(lengths) + 1, numpy.int64)
    numpy.cumsum(lengths, out=ptr[1:])
    pos = gp.arange(total, dtype=numpy.int64)
    run = gp.searchsorted(_device_int64(ptr[1:]), pos, side="right")
    local = pos - _device_int64(ptr[:-1])[run]
    row = local + _device_int64(row0)[run]
    col = local + _device_int64(col0)[run]
    data = gp.concatenate([v.astype(dtype, copy=False) for v, L in zip(values, lengths)
                           if L])
    return _canonical_csr(data, row, col, shape, is_array, drop_zeros=True)


def _diag_length(m, n, offset):
    return min(m + offset, n - offset, min(m, n))


def _eye(m, n, k, dtype, format, is_array):
    n = m if n is None else n
    m, n, k = int(m), int(n), int(k)
    dt = getdtype(dtype)
    length = _diag_length(m, n, k)
    if length < 0:
        raise ValueError(f"Offset {k} (index 0) out of bounds")
    check_shape((m, n))
    if format in _UNBUILT:
        _check_format(format)
    r0, c0 = max(0, -k), max(0, k)
    ones = gp.ones(length, dt)
    if format == "coo":
        row = gp.arange(r0, r0 + length, dtype=numpy.int64)
        col = gp.arange(c0, c0 + length, dtype=numpy.int64)
        return _coo(ones, row, col, (m, n), is_array, canonical=True)
    fmt = "csc" if format == "csc" else "csr"
    M, s0, s1 = (n, c0, r0) if fmt == "csc" else (m, r0, c0)
    ptr = gp.concatenate([gp.zeros(s0, numpy.int64),
                          gp.arange(length + 1, dtype=numpy.int64),
                          gp.full(M - s0 - length, length, numpy.int64)])
    ind = gp.arange(s1, s1 + length, dtype=numpy.int64)
    out = public_class(fmt, is_array)._from_parts(ones, ind, ptr, (m, n), canonical=True)
    return _asformat(out, format)


def eye_array(m, n=None, *, k=0, dtype=float, format=None):
    """Sparse array of shape ``(m, n)`` (``n`` defaults to ``m``) with ones on
    the ``k``-th diagonal. CSR for ``format=None`` (SciPy: DIA)."""
    return _eye(m, n, k, dtype, format, True)


def eye(m, n=None, k=0, dtype=float, format=None):
    """As :func:`eye_array`, a ``*_matrix`` (SciPy's older name)."""
    return _eye(m, n, k, dtype, format, False)


def identity(n, dtype="d", format=None):
    """The ``n`` x ``n`` identity as a ``*_matrix`` (CSR for ``format=None``;
    SciPy: DIA)."""
    return _eye(n, n, 0, dtype, format, False)


def _atleast_1d(d):
    if isinstance(d, gp.ndarray):
        return d.reshape(1) if d.ndim == 0 else d
    return to_device(numpy.atleast_1d(numpy.asarray(d)), name="diagonal")


def _diags_dtype(diagonals, dtype, stacklevel):
    dts = [numpy.dtype(d.dtype) for d in diagonals]
    if dtype is None:
        return getdtype(numpy.result_type(*dts))
    if dtype is _NoValue:
        # SciPy's deprecated default: an inexact dtype (numpy.common_type)
        dt = numpy.dtype(numpy.common_type(*[numpy.empty(0, d) for d in dts]))
        future = numpy.result_type(*dts)
        if dt != future:
            warnings.warn(f"Input has data type {future}, but the output has been cast "
                          f"to {dt}.  In the future, the output data type will match "
                          "the input. To avoid this warning, set the `dtype` parameter "
                          "to `None` to have the output dtype match the input, or set "
                          "it to the desired output data type.", FutureWarning,
                          stacklevel=stacklevel)
        return getdtype(dt)
    return getdtype(dtype)


def _diags(diagonals, offsets, shape, format, dtype, is_array, stacklevel):
    if isscalarlike(offsets):
        if len(diagonals) == 0 or isscalarlike(diagonals[0]):
            diagonals = [_atleast_1d(diagonals)]
        else:
            raise ValueError("Different number of diagonals and offsets.")
    else:
        diagonals = [_atleast_1d(d) for d in diagonals]
    if isinstance(offsets, gp.ndarray):
        offsets = gp.asnumpy(offsets)
    offsets = numpy.atleast_1d(numpy.asarray(offsets))
    if len(diagonals) != len(offsets):
        raise ValueError("Different number of diagonals and offsets.")
    if shape is None:
        m = diagonals[0].shape[0] + abs(int(offsets[0]))
        shape = (m, m)
    dt = _diags_dtype(diagonals, dtype, stacklevel + 1)
    m, n = (int(s) for s in shape)
    values, row0, col0, lengths = [], [], [], []
    for j, (d, off) in enumerate(zip(diagonals, offsets)):
        off = int(off)
        length = _diag_length(m, n, off)
        if length < 0:
            raise ValueError(f"Offset {off} (index {j}) out of bounds")
        if d.ndim != 1:
            d = d.reshape(-1)
        have = d.shape[0]
        if have >= length:
            d = d[:length]
        elif have == 1:
            d = gp.repeat(d, length)
        else:
            raise ValueError(f"Diagonal length (index {j}: {have} at offset {off}) "
                             f"does not agree with array size ({m}, {n}).")
        values.append(d)
        row0.append(max(0, -off))
        col0.append(max(0, off))
        lengths.append(length)
    if len(numpy.unique(offsets)) != len(offsets):
        raise ValueError("offset array contains duplicate values")
    check_shape((m, n))
    out = _diagonals(values, row0, col0, lengths, (m, n), dt, is_array)
    return _asformat(out, format)


def diags_array(diagonals, /, *, offsets=0, shape=None, format=None, dtype=_NoValue):
    """Sparse array from diagonals (``diagonals[j]`` on diagonal
    ``offsets[j]``; a length-1 diagonal is broadcast, longer ones are cut).

    ``dtype`` as SciPy: None gives the diagonals' result type; left out, the
    deprecated inexact default (``numpy.common_type``, with SciPy's
    ``FutureWarning`` when it differs). Zeros are not stored. CSR for
    ``format=None`` (SciPy: DIA)."""
    return _diags(diagonals, offsets, shape, format, dtype, True, 3)


def diags(diagonals, offsets=0, shape=None, format=None, dtype=_NoValue):
    """As :func:`diags_array`, a ``*_matrix`` (SciPy's older name)."""
    return _diags(diagonals, offsets, shape, format, dtype, False, 3)


def spdiags(data, diags, m=None, n=None, format=None):
    """A ``*_matrix`` from the rows of ``data`` (DIA storage: ``data[j, c]``
    sits at column ``c`` of diagonal ``diags[j]``). ``m, n`` or ``m=(m, n)``
    give the shape, else ``(L, L)`` for rows of length ``L``. CSR for
    ``format=None`` (SciPy: DIA)."""
    if m is None and n is None:
        m = n = len(data[0])
    elif n is None:
        m, n = m
    data = data if isinstance(data, gp.ndarray) else to_device(numpy.asarray(data),
                                                                name="data")
    if data.ndim < 2:
        data = data.reshape((1,) * (2 - data.ndim) + data.shape)
    if isinstance(diags, gp.ndarray):
        diags = gp.asnumpy(diags)
    offsets = numpy.atleast_1d(numpy.asarray(diags))
    if offsets.ndim != 1:
        raise ValueError("offsets array must have rank 1")
    if data.ndim != 2:
        raise ValueError("data array must have rank 2")
    if data.shape[0] != len(offsets):
        raise ValueError(f"number of diagonals ({data.shape[0]}) does not match the "
                         f"number of offsets ({len(offsets)})")
    if len(numpy.unique(offsets)) != len(offsets):
        raise ValueError("offset array contains duplicate values")
    m, n = check_shape((m, n))
    dt = getdtype(None, data)
    L = data.shape[1]
    values, row0, col0, lengths = [], [], [], []
    for j, off in enumerate(offsets):
        off = int(off)
        lo, hi = max(0, off), min(n, m + off, L)
        if hi <= lo:
            continue
        values.append(data[j, lo:hi])
        row0.append(lo - off)
        col0.append(lo)
        lengths.append(hi - lo)
    out = _diagonals(values, row0, col0, lengths, (m, n), dt, False)
    return _asformat(out, format)


# ---------------------------------------------------------------- random

def _seed_from_numpy(state):
    """One 63-bit seed drawn from a NumPy generator, RandomState or the
    ``numpy.random`` module (which advances it, as SciPy's draws would)."""
    if isinstance(state, numpy.random.Generator):
        return int(state.integers(0, 2**63 - 1, dtype=numpy.int64))
    return int(state.randint(0, 2**63 - 1, dtype=numpy.int64))


def _generator(rng, random_state, name):
    """The device generator for ``rng`` / the legacy ``random_state``."""
    if rng is not None and random_state is not None:
        raise TypeError(f"{name}() got multiple values for argument now known as "
                        "`rng`. Specify one of `rng` or `random_state`.")
    r = rng if rng is not None else random_state
    if isinstance(r, _gprandom.Generator):
        return r
    if r is None:
        return _gprandom.default_rng(_seed_from_numpy(numpy.random.mtrand._rand))
    if r is numpy.random:
        return _gprandom.default_rng(_seed_from_numpy(numpy.random.mtrand._rand))
    if isinstance(r, (numpy.random.Generator, numpy.random.RandomState)):
        return _gprandom.default_rng(_seed_from_numpy(r))
    if isinstance(r, numpy.random.BitGenerator):
        return _gprandom.default_rng(_seed_from_numpy(numpy.random.Generator(r)))
    if isinstance(r, (numbers.Integral, numpy.random.SeedSequence)) and not \
            isinstance(r, bool):
        return _gprandom.default_rng(r)
    raise ValueError(f"{r!r} cannot be used to seed a random number generator")


def _positions(gen, m, n, k):
    """``k`` distinct (row, col) positions of an ``m`` x ``n`` array, uniformly
    random, on the device (int64).

    Dense enough (``m*n <= max(4k, 2**22)``): ``choice(m*n, k,
    replace=False)`` (a sort of ``m*n`` random keys) and SciPy's
    column-major unravel. Sparser: pairs drawn with replacement, the first
    occurrence of each kept (a stable sort by position), and the first
    ``k`` distinct pairs in draw order taken -- rejection of repeats, which
    is exactly sampling without replacement; more pairs are drawn in the
    rare case that too few are distinct."""
    if k == 0:
        z = gp.empty(0, numpy.int64)
        return z, z
    tot = m * n
    if tot <= max(4 * k, 2**22):
        flat = _i64(gen.choice(tot, size=k, replace=False))
        return flat % m, flat // m
    rows = gp.empty(0, numpy.int64)
    cols = gp.empty(0, numpy.int64)
    distinct = 0
    while True:
        need = k - distinct
        d = need + need // 2 + 64
        rows = gp.concatenate([rows, _i64(gen.integers(0, m, size=d))])
        cols = gp.concatenate([cols, _i64(gen.integers(0, n, size=d))])
        order = gp.lexsort((cols, rows))
        rs, cs = rows[order], cols[order]
        first = gp.empty(rs.shape[0], numpy.bool_)
        first[:1] = True
        first[1:] = (rs[1:] != rs[:-1]) | (cs[1:] != cs[:-1])
        firsts = order[gp.flatnonzero(first)]
        distinct = int(firsts.shape[0])
        if distinct >= k:
            sel = gp.sort(firsts)[:k]
            return rows[sel], cols[sel]


def _default_sampler(gen, dt):
    if dt.kind in "iu":
        info = numpy.iinfo(dt)
        return lambda size: gen.integers(int(info.min), int(info.max), size=size,
                                         dtype=dt)
    if dt.kind == "c":
        return lambda size: gen.random(size) + 1j * gen.random(size)
    return lambda size: gen.random(size)


def _random(shape, density, dtype, gen_args, sampler, name):
    if density < 0 or density > 1:
        raise ValueError("density expected to be 0 <= density <= 1")
    m, n = check_shape(shape)
    dt = getdtype(dtype, default=numpy.float64)
    k = int(round(density * math.prod((m, n))))
    gen = _generator(*gen_args, name)
    row, col = _positions(gen, m, n, k)
    if sampler is None:
        sampler = _default_sampler(gen, dt)
    vals = sampler(size=k)
    vals = vals if isinstance(vals, gp.ndarray) else to_device(numpy.asarray(vals),
                                                                name="data")
    vals = vals.reshape(-1) if vals.ndim != 1 else vals
    if vals.shape[0] != k:
        raise ValueError("row, column, and data array must all be the same length")
    return vals.astype(dt, copy=False), row, col, (m, n)


def random_array(shape, *, density=0.01, format="coo", dtype=None, rng=None,
                 data_sampler=None, random_state=None):
    """A sparse array of ``round(density * m * n)`` random entries at distinct
    uniformly random positions.

    ``data_sampler(size=k)`` gives the values (host or device array); the
    default is uniform on [0, 1) (real and imaginary parts for complex,
    ``integers(min, max)`` of the dtype for integers), drawn on the device.
    ``rng``: None (a seed from NumPy's global state), an int or
    ``SeedSequence``, a ``gpuscipy_core.random.Generator`` (used as is) or a
    NumPy ``Generator``/``RandomState`` (one seed drawn from it). The values
    are not SciPy's for the same seed."""
    vals, row, col, shp = _random(shape, density, dtype, (rng, random_state),
                                  data_sampler, "random_array")
    return _asformat(_coo(vals, row, col, shp, True), format)


def random(m, n, density=0.01, format="coo", dtype=None, rng=None, data_rvs=None, *,
           random_state=None):
    """As :func:`random_array`, an ``m`` x ``n`` ``*_matrix``; ``data_rvs(k)``
    gives the values (SciPy's older name)."""
    if n is None:
        n = m
    sampler = None if data_rvs is None else (lambda size: data_rvs(size))
    vals, row, col, shp = _random((int(m), int(n)), density, dtype, (rng, random_state),
                                  sampler, "random")
    return _asformat(_coo(vals, row, col, shp, False), format)


def rand(m, n, density=0.01, format="coo", dtype=None, rng=None, *, random_state=None):
    """As :func:`random` with uniform values on [0, 1)."""
    vals, row, col, shp = _random((int(m), int(n)), density, dtype, (rng, random_state),
                                  None, "rand")
    return _asformat(_coo(vals, row, col, shp, False), format)


# ---------------------------------------------------------------- Kronecker

def _kron_coo(A, B, is_array):
    """COO of kron(A, B) in SciPy's entry order (each entry of A expanded
    into B's entries); the zero product is an empty float64 COO (SciPy's)."""
    shape = (A.shape[0] * B.shape[0], A.shape[1] * B.shape[1])
    na, nb = A.nnz, B.nnz
    if na == 0 or nb == 0:
        return public_class("coo", is_array)(shape)
    data = gp.repeat(A.data, nb) * gp.tile(B.data, na)
    row = gp.repeat(_i64(A.row) * B.shape[0], nb) + gp.tile(_i64(B.row), na)
    col = gp.repeat(_i64(A.col) * B.shape[1], nb) + gp.tile(_i64(B.col), na)
    return _coo(data, row, col, shape, is_array)


def kron(A, B, format=None):
    """Kronecker product of sparse or dense ``A`` and ``B``: COO (SciPy's
    entry order) for ``format=None``; where SciPy returns BSR (``B`` at
    least half full) this returns CSR."""
    is_array = _is_sparray(A) or _is_sparray(B)
    B = _as_coo(B, is_array)
    A = _as_coo(A, is_array)
    if format == "bsr":
        _check_format(format)
    out = _kron_coo(A, B, is_array)
    if format is None and 2 * B.nnz >= B.shape[0] * B.shape[1] and out.nnz:
        return out.tocsr()
    return _asformat(out, format)


def kronsum(A, B, format=None):
    """Kronecker sum ``kron(I_n, A) + kron(B, I_m)`` of square ``A`` (m x m)
    and ``B`` (n x n): CSR (duplicates summed, zero sums dropped, as SciPy's
    sparse ``+``) for ``format=None``."""
    is_array = _is_sparray(A) or _is_sparray(B)
    A = _as_coo(A, is_array)
    B = _as_coo(B, is_array)
    if A.shape[0] != A.shape[1]:
        raise ValueError("A is not square")
    if B.shape[0] != B.shape[1]:
        raise ValueError("B is not square")
    dt = upcast(A.dtype, B.dtype)
    L = _kron_coo(_eye(B.shape[0], None, 0, dt, "coo", is_array), A, is_array)
    R = _kron_coo(B, _eye(A.shape[0], None, 0, dt, "coo", is_array), is_array)
    dt = upcast(L.dtype, R.dtype)
    data = gp.concatenate([L.data.astype(dt, copy=False), R.data.astype(dt, copy=False)])
    row = gp.concatenate([_i64(L.row), _i64(R.row)])
    col = gp.concatenate([_i64(L.col), _i64(R.col)])
    out = _coo(data, row, col, L.shape, is_array).tocsr()
    out.eliminate_zeros()
    return _asformat(out, format)


# ---------------------------------------------------------------- blocks

def _grid(blocks):
    """``blocks`` as a list of equal-length rows (``ValueError`` 'blocks must
    be 2-D' otherwise, as SciPy)."""
    if isinstance(blocks, numpy.ndarray) and blocks.dtype == object:
        if blocks.ndim != 2:
            raise ValueError("blocks must be 2-D")
        return [list(r) for r in blocks]
    if isinstance(blocks, (_spbase, gp.ndarray)) or not hasattr(blocks, "__len__"):
        raise ValueError("blocks must be 2-D")
    grid = []
    for r in blocks:
        if not isinstance(r, (list, tuple)) and not (isinstance(r, numpy.ndarray)
                                                     and r.dtype == object):
            raise ValueError("blocks must be 2-D")
        row = list(r)
        if any(isinstance(b, (list, tuple)) for b in row):
            raise ValueError("blocks must be 2-D")
        grid.append(row)
    if not grid or len({len(r) for r in grid}) > 1:
        raise ValueError("blocks must be 2-D")
    return grid


def _stack_major(blocks, fmt, is_array):
    """CSR blocks on top of each other (CSC: side by side): the entry arrays
    concatenated, each block's pointers shifted by the entries before it."""
    major_ax = 0 if fmt == "csr" else 1
    minor = blocks[0].shape[1 - major_ax]
    for b in blocks:
        if b.shape[1 - major_ax] != minor:
            raise ValueError(f"incompatible dimensions for axis {1 - major_ax}")
    dt = numpy.result_type(*[b.dtype for b in blocks])
    nnz = [b.nnz for b in blocks]
    offs = numpy.concatenate([[0], numpy.cumsum(nnz)]).astype(numpy.int64)
    data = gp.concatenate([b.data[:k].astype(dt, copy=False) for b, k in zip(blocks, nnz)])
    ind = gp.concatenate([_i64(b.indices[:k]) for b, k in zip(blocks, nnz)])
    ptr = gp.concatenate([_i64(b.indptr[:-1]) + int(o) for b, o in zip(blocks, offs)]
                         + [_device_int64([offs[-1]])])
    major = sum(b.shape[major_ax] for b in blocks)
    shape = (major, minor) if fmt == "csr" else (minor, major)
    return public_class(fmt, is_array)._from_parts(data, ind, ptr, shape, nnz=int(offs[-1]))


def _stack_minor(blocks, fmt, is_array):
    """CSR blocks side by side (CSC: on top of each other): each output row
    holds block 0's entries of that row, then block 1's, ...; every entry is
    scattered to ``ptr[row] + (entries of the row in earlier blocks) +
    (its place in its block's row)``."""
    if len(blocks) == 1:
        return blocks[0]
    major_ax = 0 if fmt == "csr" else 1
    dims = {b.shape[major_ax] for b in blocks}
    if len(dims) > 1:
        raise ValueError(f"Mismatching dimensions along axis {major_ax}: {dims}")
    M, = dims
    dt = numpy.result_type(*[b.dtype for b in blocks])
    counts = [_i64(gp.diff(b.indptr)) for b in blocks]
    per_row = counts[0]
    for c in counts[1:]:
        per_row = per_row + c
    ptr = gp.concatenate([gp.zeros(1, numpy.int64), gp.cumsum(per_row, dtype=numpy.int64)])
    nnz = sum(b.nnz for b in blocks)
    data = gp.empty(nnz, dt)
    ind = gp.empty(nnz, numpy.int64)
    before = gp.zeros(M, numpy.int64)
    shift = 0
    for b, c in zip(blocks, counts):
        k = b.nnz
        if k:
            major = b._major_index()
            local = gp.arange(k, dtype=numpy.int64) - _i64(b.indptr)[major]
            dest = ptr[major] + before[major] + local
            data[dest] = b.data[:k].astype(dt, copy=False)
            ind[dest] = _i64(b.indices[:k]) + shift
        before = before + c
        shift += b.shape[1 - major_ax]
    shape = (M, shift) if fmt == "csr" else (shift, M)
    return public_class(fmt, is_array)._from_parts(data, ind, ptr, shape, nnz=nnz)


def _block(blocks, format, dtype, is_array):
    grid = _grid(blocks)
    M, N = len(grid), len(grid[0])
    if N == 0:
        raise IndexError("index 0 is out of bounds for axis 1 with size 0")
    sp = _scipy_sparse()
    grid = [[b if b is None or isinstance(b, _spbase) or not sp.issparse(b)
             else _as_sparse(b, is_array) for b in r] for r in grid]
    flat = [b for r in grid for b in r]
    for fmt in ("csr", "csc"):
        if format in (None, fmt) and all(isinstance(b, _spbase) and b.format == fmt
                                         for b in flat):
            if fmt == "csr":
                rows = [_stack_minor(r, fmt, is_array) for r in grid]
                out = _stack_major(rows, fmt, is_array)
            else:
                cols = [_stack_minor([grid[i][j] for i in range(M)], fmt, is_array)
                        for j in range(N)]
                out = _stack_major(cols, fmt, is_array)
            if dtype is not None:
                out = out.astype(getdtype(dtype), copy=False)
            return out
    heights = [0] * M
    widths = [0] * N
    parts = []
    for i, r in enumerate(grid):
        for j, b in enumerate(r):
            if b is None:
                continue
            a = _as_coo(b, is_array)
            h, w = a.shape
            if heights[i] == 0:
                heights[i] = h
            elif heights[i] != h:
                raise ValueError(f"blocks[{i},:] has incompatible row dimensions. "
                                 f"Got blocks[{i},{j}].shape[0] == {h}, "
                                 f"expected {heights[i]}.")
            if widths[j] == 0:
                widths[j] = w
            elif widths[j] != w:
                raise ValueError(f"blocks[:,{j}] has incompatible column dimensions. "
                                 f"Got blocks[{i},{j}].shape[1] == {w}, "
                                 f"expected {widths[j]}.")
            parts.append((i, j, a))
    if dtype is not None:
        dt = getdtype(dtype)
    elif parts:
        dt = upcast(*[a.dtype for _, _, a in parts])
    else:
        dt = numpy.dtype(numpy.float64)
    r_off = numpy.concatenate([[0], numpy.cumsum(heights)]).astype(numpy.int64)
    c_off = numpy.concatenate([[0], numpy.cumsum(widths)]).astype(numpy.int64)
    shape = (int(r_off[-1]), int(c_off[-1]))
    parts = [p for p in parts if p[2].nnz]
    if parts:
        data = gp.concatenate([a.data.astype(dt, copy=False) for _, _, a in parts])
        row = gp.concatenate([_i64(a.row) + int(r_off[i]) for i, _, a in parts])
        col = gp.concatenate([_i64(a.col) + int(c_off[j]) for _, j, a in parts])
    else:
        data = gp.empty(0, dt)
        row = col = gp.empty(0, numpy.int64)
    return _asformat(_coo(data, row, col, shape, is_array), format)


def _any_sparray(blocks):
    if isinstance(blocks, numpy.ndarray) and blocks.dtype == object:
        return any(_is_sparray(b) for b in blocks.flat)
    out = False
    try:
        for r in blocks:
            if isinstance(r, (list, tuple, numpy.ndarray)) and not isinstance(r, gp.ndarray):
                out = out or any(_is_sparray(b) for b in r)
            else:
                out = out or _is_sparray(r)
    except TypeError:
        pass
    return out


def _as_list(blocks):
    if isinstance(blocks, (_spbase, gp.ndarray)) or not hasattr(blocks, "__len__"):
        raise ValueError("blocks must be 2-D")
    return list(blocks)


def hstack(blocks, format=None, dtype=None):
    """Blocks side by side. All CSR (``format`` None or 'csr'): CSR without
    converting; all CSC: CSC; otherwise COO (then ``format``)."""
    blocks = _as_list(blocks)
    return _block([blocks], format, dtype, _any_sparray(blocks))


def vstack(blocks, format=None, dtype=None):
    """Blocks on top of each other (formats as :func:`hstack`)."""
    blocks = _as_list(blocks)
    return _block([[b] for b in blocks], format, dtype, _any_sparray(blocks))


def bmat(blocks, format=None, dtype=None):
    """A sparse array or matrix from a 2-D grid of blocks (None: an empty
    block); a ``*_matrix`` unless a block is a ``sparray``."""
    return _block(blocks, format, dtype, _any_sparray(blocks))


def block_array(blocks, *, format=None, dtype=None):
    """As :func:`bmat`, always a ``sparray``."""
    return _block(blocks, format, dtype, True)


def block_diag(mats, format=None, dtype=None):
    """The blocks ``mats`` (sparse, dense, lists or scalars) along the
    diagonal: COO for ``format=None``. A dense block stores all its entries
    (zeros included), a list or a scalar only its nonzeros, as SciPy."""
    mats = list(mats)
    is_array = any(_is_sparray(a) for a in mats)
    sp = _scipy_sparse()
    data, rows, cols = [], [], []
    r_idx = c_idx = 0
    for a in mats:
        if isinstance(a, (list, tuple, numbers.Number)):
            a = _as_coo(numpy.atleast_2d(numpy.asarray(a)), True)
        if isinstance(a, _spbase) or sp.issparse(a):
            c = _as_coo(a, is_array)
            nr, nc = c.shape
            rows.append(_i64(c.row) + r_idx)
            cols.append(_i64(c.col) + c_idx)
            data.append(c.data)
        else:
            d = a if isinstance(a, gp.ndarray) else to_device(numpy.asarray(a))
            nr, nc = d.shape
            pos = gp.arange(nr * nc, dtype=numpy.int64)
            rows.append(pos // max(nc, 1) + r_idx)
            cols.append(pos % max(nc, 1) + c_idx)
            data.append(d.reshape(-1))
        r_idx += nr
        c_idx += nc
    if not data:
        raise ValueError("need at least one array to concatenate")
    dt = numpy.result_type(*[d.dtype for d in data])
    data = gp.concatenate([d.astype(dt, copy=False) for d in data])
    getdtype(None, data)
    out = _coo(data, gp.concatenate(rows), gp.concatenate(cols), (r_idx, c_idx), is_array)
    if dtype is not None:
        out = out.astype(getdtype(dtype), copy=False)
    return _asformat(out, format)
