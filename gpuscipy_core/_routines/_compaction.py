"""Stream compaction: nonzero, argwhere, flatnonzero, extract, compress, place.

Method
------
Every routine here is one pass of a decoupled look-back scan over the truth
values of a C-contiguous array (``gs::scan::compact`` in
``gpuscipy/scan.cuh``; Merrill & Garland 2016): each tile counts its nonzero
elements, learns how many precede it from its predecessors' published
counts, and each nonzero element is written straight to its rank -- its
multi-index (``nonzero``/``argwhere``), its value (``extract``,
``compress``) or a value taken from ``vals`` (``place``). The output size
is data dependent, so a count (``count_nonzero``, one reduction) runs first
and its value is read by the host: these routines synchronise with the
device once, as NumPy's semantics require.

Layout: ``nonzero`` writes one (ndim, count) int64 array; its rows are the
returned index arrays (contiguous), and ``argwhere`` returns its transpose
(an F-ordered (count, ndim) view, the layout NumPy's ``argwhere`` has).
Inputs that are not C-contiguous are copied to C order first, so indices
always come in C (row-major) order, as in NumPy.

References
----------
D. Merrill and M. Garland, "Single-pass Parallel Prefix Scan with Decoupled
Look-back", NVIDIA Technical Report NVR-2016-002, 2016.
"""

import numpy

from .._kernel._module import get_function
from .._ndarray import ndarray
from . import _scan_source as S
from ._scan import _aligned, _asarray, _contiguous, _normalize_axis

__all__ = ["nonzero", "argwhere", "flatnonzero", "extract", "compress", "place"]

_I8 = numpy.dtype(numpy.int64)
_U1 = numpy.dtype(numpy.uint8)


def _count(flags):
    """Number of nonzero elements (a device sync)."""
    from ._reduction import count_nonzero
    return int(count_nonzero(flags))


def _zeros_u1(nbytes):
    from ._creation import zeros
    return zeros(nbytes, _U1)


def _compact(flags, action, args, val_dt=None, out_dt=None):
    """Run the compaction kernel ``action`` over C-contiguous ``flags``."""
    n = flags.size
    name, src, items = S.compact_source(flags.dtype, action, val_dt, out_dt)
    tile = S.THREADS * items
    ntiles = (n + tile - 1) // tile
    state = _zeros_u1(S.state_bytes(ntiles, 8))
    f = get_function(src, name)
    f(ntiles, S.THREADS, (flags, n, ntiles, state) + tuple(args))


def _index_rows(a):
    """(ndim, count) int64 array: row d holds coordinate d of every nonzero
    element of ``a`` (ndim >= 1), in C order."""
    from ._creation import empty
    nd = a.ndim
    if a.size == 0:
        return empty((nd, 0), _I8)
    flags = _contiguous(a)
    count = _count(flags)
    out = empty((nd, count), _I8)
    if count == 0:
        return out
    if nd > 64:
        raise ValueError("nonzero supports at most 64 dimensions")
    shape = numpy.zeros(64, numpy.int64)
    shape[:nd] = a.shape
    _compact(flags, "index", (out, count, numpy.int32(nd), shape.tobytes()))
    return out


def nonzero(a):
    """Indices of the nonzero elements, one int64 array per dimension.

    Parameters
    ----------
    a : array_like
        Input of any dtype and at least one dimension (NaN counts as
        nonzero; a complex number is nonzero if either part is).

    Returns
    -------
    tuple of ndarray
        ``a.ndim`` int64 arrays of equal length, in C (row-major) order of
        the elements, as :func:`numpy.nonzero` gives.

    Raises
    ------
    ValueError
        For a 0-d input (as NumPy 2 does).

    Notes
    -----
    One count (a device sync, the output size depends on the data), then one
    decoupled look-back compaction pass (Merrill & Garland 2016).
    """
    a = _asarray(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. "
                         "Use np.atleast_1d(scalar).nonzero() instead.")
    rows = _index_rows(a)
    return tuple(rows[d] for d in range(a.ndim))


def argwhere(a):
    """Indices of the nonzero elements, grouped by element.

    Returns an int64 array of shape ``(N, a.ndim)`` (``(N, 0)``-like shapes
    for 0-d input, as in NumPy: ``(1, 0)`` when the scalar is nonzero, else
    ``(0, 0)``).
    """
    a = _asarray(a)
    if a.ndim == 0:
        return argwhere(a.reshape(1))[:, :0]
    return _index_rows(a).T


def flatnonzero(a):
    """Indices of the nonzero elements of ``ravel(a)`` (an int64 array)."""
    a = _asarray(a)
    return nonzero(a.reshape(-1))[0]


def _flat_flags(condition, size, axis_name="axis 0"):
    """C-ordered flags of ``condition`` limited to ``size`` elements, with
    NumPy's IndexError when a true element lies beyond ``size``."""
    flags = _contiguous(condition).reshape(-1)
    if flags.size > size:
        tail = flags[size:]
        if _count(tail):
            first = int(nonzero(tail)[0][0]) + size
            raise IndexError(f"index {first} is out of bounds for {axis_name} "
                             f"with size {size}")
        flags = flags[:size]
    return flags


def _select(flags, src, out_dt):
    """Values of C-contiguous ``src`` (flat) where ``flags`` is true."""
    from ._creation import empty
    count = _count(flags) if flags.size else 0
    out = empty((count,), out_dt)
    if count:
        _compact(flags, "select", (src, out), src.dtype, out_dt)
    return out


def extract(condition, arr):
    """The elements of ``arr`` where ``condition`` is true, as a 1-D array
    (``take(ravel(arr), nonzero(ravel(condition))[0])``).

    Raises
    ------
    IndexError
        When ``condition`` has a true element past ``arr.size``.
    """
    arr = _asarray(arr)
    condition = _asarray(condition)
    flags = _flat_flags(condition, arr.size)
    src = _contiguous(arr).reshape(-1)
    if flags.size < src.size:
        src = src[:flags.size]
    return _select(flags, src, arr.dtype)


def compress(condition, a, axis=None, out=None):
    """Selected slices of ``a`` along ``axis`` where ``condition`` is true.

    Parameters
    ----------
    condition : 1-D array_like
        Truth values; entries past ``a.shape[axis]`` must be false.
    a : array_like
        Input array.
    axis : int, optional
        Axis along which to select; None works on ``ravel(a)``.
    out : ndarray, optional
        Output of the result's shape (values cast to its dtype).

    Raises
    ------
    ValueError
        If ``condition`` is not 1-D, or ``out`` has the wrong shape.
    IndexError
        If a true entry of ``condition`` is past the end of the axis.
    """
    from ._creation import empty
    a = _asarray(a)
    condition = _asarray(condition)
    if condition.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    else:
        axis = _normalize_axis(axis, a.ndim)
    n = a.shape[axis]
    flags = _flat_flags(condition, n, f"axis {axis}")
    idx = nonzero(flags)[0] if flags.size else empty((0,), _I8)
    m = idx.size
    shape = a.shape[:axis] + (m,) + a.shape[axis + 1:]
    res = empty(shape, a.dtype)
    if res.size:
        src = _contiguous(a)
        outer = int(numpy.prod(a.shape[:axis], dtype=numpy.int64))
        inner = int(numpy.prod(a.shape[axis + 1:], dtype=numpy.int64))
        name, source = S.gather_axis_source(a.dtype)
        f = get_function(source, name)
        total = res.size
        blocks = min((total + S.THREADS - 1) // S.THREADS, 65535 * 4)
        f(blocks, S.THREADS, (src, idx, res, outer, n, m, inner))
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("out must be a gpuscipy_core.ndarray")
        if out.shape != shape:
            raise ValueError("Bad size of the out array.")
        out[...] = res
        return out
    return res


def place(arr, mask, vals):
    """Change elements of ``arr`` in place: the k-th element where ``mask``
    is true (C order) becomes ``vals[k % len(vals)]``.

    Raises
    ------
    TypeError
        If ``arr`` is not a gpuscipy_core.ndarray.
    ValueError
        If ``mask`` and ``arr`` differ in size, or ``vals`` is empty while
        ``mask`` has a true element.
    """
    if not isinstance(arr, ndarray):
        raise TypeError("argument 1 must be gpuscipy_core.ndarray, not "
                        f"{type(arr).__name__}")
    mask = _asarray(mask)
    if mask.size != arr.size:
        raise ValueError("place: mask and data must be the same size")
    if arr.size == 0:
        return
    flags = _contiguous(mask).reshape(-1)
    count = _count(flags)
    if count == 0:
        return
    vals = _contiguous(_asarray(vals, dtype=arr.dtype)).reshape(-1)
    if vals.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    if arr.flags.c_contiguous and _aligned(arr):
        dst = arr
    else:
        dst = _contiguous(arr)
    _compact(flags, "place", (dst.reshape(-1), vals, vals.size), arr.dtype)
    if dst is not arr:
        arr[...] = dst

