"""Scans and counting: cumsum, cumprod, nancumsum, nancumprod, diff,
ediff1d, bincount, histogram, histogram_bin_edges, digitize.

Scans
-----
One canonical problem: a C-contiguous ``(outer, n, inner)`` array scanned
along ``n`` (the input is copied to C order first when it is not). Kernels
(``gpuscipy/scan.cuh``):

* ``inner == 1`` (the scanned axis is the fastest): a single-pass
  decoupled look-back scan (Merrill & Garland 2016) over tiles of 256 *
  ITEMS elements aligned to rows, so one kernel does a 1-D scan of any
  length and a batch of rows; a tile looks back only within its row.
  Carries of at most 8 bytes are published with their status in one
  16-byte descriptor (single 16-byte accesses, no fences), and the whole
  block looks back over 256 predecessors per L2 round trip: the chain of
  inclusive prefixes (which moves one window per round trip) then stays
  far below the memory time (with a 32-tile window, 2^16 tiles of 2^28
  float32 took 1.5 ms on an H200). Whole aligned warp segments move as
  16-byte streaming loads/stores.
* ``inner > 1`` with many lines (or short lines): one thread per
  ``(outer, inner)`` line, consecutive threads on consecutive ``inner``
  indices (coalesced), each a sequential loop along ``n``.
* ``inner > 1`` with few long lines: the axis is moved last by a tiled
  transpose copy, scanned by the look-back kernel and moved back.

Accuracy
--------
Each thread scans its 16 (8, 4) consecutive elements in an accumulator
type -- float32 for float16/float32 results, complex64 for complex64, the
result type otherwise -- and thread totals, block totals and the chain of
tile prefixes are carried in float64 (complex128). Each output is
``acc(exclusive carry) + thread-local prefix``, rounded once to the result
dtype. Error of a prefix of k elements: below about ``(ITEMS + 4) *
eps(acc) * sum|x| + (log2(4096) + k / 4096) * eps64 * sum|x|`` plus the
final rounding -- for float16/float32 far below NumPy's sequential loop in
the result precision (``k * eps(result) * sum|x|``), but not bitwise equal
to it. Why the split: a float64 accumulator for every element doubles the
registers of the bandwidth-bound 1-D scan (fewer resident blocks, fewer
bytes in flight) and costs two conversions per element, while the float64
carry keeps the long tile chain -- where a float32 running sum would lose
the most (2^16 tiles for 2^28 elements) -- accurate. Integer scans wrap
modulo 2**bits exactly as NumPy's do; bool sums are int64 counts.

Counting
--------
``bincount`` and ``histogram`` use per-block privatised counters in shared
memory merged with one global atomic per bin and block (global atomics
directly when the bins do not fit). Counts are exact; weighted sums are
float64 atomics whose order is not fixed, so they may differ from NumPy's
in the last bits (relative error below ``n * eps`` of the sum of
``|weights|`` in a bin).

Differences from NumPy
----------------------
float16/float32 scans whose partial sums leave the float32 range and come
back (for example ``[3e38, 3e38, -3e38]``) may give a finite value where
NumPy's sequential loop gives inf, depending on where tile and thread
boundaries fall (the float64 carry does not overflow). ``histogram`` with a
string ``bins`` estimator is not supported.

References
----------
D. Merrill and M. Garland, "Single-pass Parallel Prefix Scan with Decoupled
Look-back", NVIDIA Technical Report NVR-2016-002, 2016.
"""

import functools
from math import prod as _prod
import operator
import warnings

import numpy
from numpy.lib.array_utils import normalize_axis_index

from .._kernel._module import get_function
from .._ndarray import ndarray, normalize_dtype
from . import _scan_source as S
from ._creation import asarray as _asarray
from ._reduction import _out

__all__ = ["cumsum", "cumprod", "nancumsum", "nancumprod", "diff", "ediff1d",
           "bincount", "histogram", "histogram_bin_edges", "digitize"]

_I8 = numpy.dtype(numpy.int64)
_U8 = numpy.dtype(numpy.uint64)
_F8 = numpy.dtype(numpy.float64)
_U1 = numpy.dtype(numpy.uint8)

#: Lines of the one-thread-per-line kernel that keep the GPU busy; below
#: this (and for lines longer than _SHORT) the axis is moved last instead.
_MANY_LINES = 8192
_SHORT = 64


# ---------------------------------------------------------------- helpers

def _aligned(a):
    """True when ``a``'s data pointer suits the kernels' loads of its dtype
    (``gs::complex<T>`` is aligned to its full size, 16 bytes for
    complex128; the other types to their size)."""
    return a.ptr % a.dtype.itemsize == 0


def _contiguous(a):
    """``a`` itself when C-contiguous with an aligned pointer, else a copy
    (a fresh pool allocation: aligned to at least 256 bytes)."""
    if a.flags.c_contiguous and _aligned(a):
        return a
    from ._creation import ascontiguousarray, empty
    if a.flags.c_contiguous:
        out = empty(a.shape, a.dtype)
        out[...] = a
        return out
    return ascontiguousarray(a)


def _empty(shape, dt):
    from ._creation import empty
    return empty(shape, dt)


def _zeros(shape, dt):
    from ._creation import zeros
    return zeros(shape, dt)


def _normalize_axis(axis, ndim):
    """``axis`` as an index in ``range(ndim)``: NumPy's own check (TypeError
    for a non-integer, AxisError out of range). The routines modules share
    this one."""
    return normalize_axis_index(operator.index(axis), ndim)



def _root(a):
    return a.base if a.base is not None else a


@functools.lru_cache(maxsize=None)
def _probe(fname, dt, dtype):
    """(result dtype, warnings) of NumPy's ``fname`` on a 2-element array."""
    x = numpy.ones(2, dt)
    with warnings.catch_warnings(record=True) as w, numpy.errstate(all="ignore"):
        warnings.simplefilter("always")
        r = getattr(numpy, fname)(x, dtype=dtype)
    return normalize_dtype(r.dtype), tuple((str(m.message), m.category) for m in w)


def _result_dtype(fname, dt, dtype):
    res, warns = _probe(fname, dt, dtype)
    for msg, cat in warns:
        warnings.warn(msg, cat, stacklevel=4)
    return res


def _grid(total, cap=65536):
    return max(1, min((total + S.THREADS - 1) // S.THREADS, cap))


# ---------------------------------------------------------------- scans

def _scan_rows(x, dst, rows, n, spec):
    """Look-back scan of the rows of C-contiguous (rows, n) ``x`` into
    C-contiguous ``dst``."""
    name, src, items = S.scan_rows_source(*spec)
    tile = S.THREADS * items
    tpr = (n + tile - 1) // tile
    ntiles = rows * tpr
    if ntiles >= 2**31:
        raise ValueError("array too large for the scan kernel")
    state = _zeros(S.state_bytes(ntiles, S.carry_size(spec[1])), _U1)
    f = get_function(src, name)
    f(ntiles, S.THREADS, (x, dst, n, n, n, tpr, ntiles, state))


def _scan_lines(x, dst, outer, n, inner, spec):
    name, src = S.scan_lines_source(*spec)
    f = get_function(src, name)
    f(_grid(outer * inner), S.THREADS, (x, dst, outer, n, inner))


def _scan_into(x, dst, axis, comp, prod, nan_skip):
    """Scan C-contiguous ``x`` along ``axis`` into C-contiguous ``dst``
    (same shape, any dtype)."""
    shape = x.shape
    outer = _prod(shape[:axis])
    n = shape[axis]
    inner = _prod(shape[axis + 1:])
    spec = (x.dtype, comp, dst.dtype, prod, nan_skip)
    if inner == 1:
        if n > _SHORT or outer == 1:
            _scan_rows(x, dst, outer, n, spec)
        else:
            _scan_lines(x, dst, outer, n, 1, spec)
    elif outer * inner >= _MANY_LINES or n <= _SHORT:
        _scan_lines(x, dst, outer, n, inner, spec)
    else:
        xt = _contiguous(x.reshape(outer, n, inner).transpose(0, 2, 1))
        tmp = _empty((outer, inner, n), dst.dtype)
        _scan_rows(xt, tmp, outer * inner, n, spec)
        dst.reshape(outer, n, inner)[...] = tmp.transpose(0, 2, 1)


def _accumulate(fname, a, axis, dtype, out, prod, nan):
    a = _asarray(a)
    out = _out(out)
    dtype = None if dtype is None else normalize_dtype(dtype)
    res = _result_dtype(fname, a.dtype, dtype)
    comp = dtype if dtype is not None else res
    nan_skip = nan and a.dtype.kind in "fc"
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    elif a.ndim == 0:
        _normalize_axis(axis, 1)
        a = a.reshape(1)
        axis = 0
    else:
        axis = _normalize_axis(axis, a.ndim)
    if out is not None:
        if out.shape != a.shape:
            raise ValueError("provided out is the wrong size for the accumulation.")
        out_dt = out.dtype
    else:
        out_dt = res
    if a.size == 0:
        return out if out is not None else _empty(a.shape, out_dt)
    x = _contiguous(a)
    if out is not None and out.flags.c_contiguous and _aligned(out) and (
            _root(out) is not _root(x) or out.ptr == x.ptr):
        dst = out   # in place is safe: every element is read before written
    else:
        dst = _empty(a.shape, out_dt)
    _scan_into(x, dst, axis, comp, prod, nan_skip)
    if out is not None and dst is not out:
        out[...] = dst
        return out
    return dst


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum of the elements along an axis.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int, optional
        Axis along which to accumulate; None (default) works on the
        flattened (C order) array.
    dtype : data-type, optional
        Type in which the elements are summed and returned (default:
        NumPy's: int64 for bool and signed integers narrower than 64 bits,
        uint64 for unsigned ones, the input's otherwise).
    out : ndarray, optional
        Output of the result's shape (values cast to its dtype).

    Returns
    -------
    ndarray
        Same shape as ``a`` (1-D when ``axis`` is None).

    Raises
    ------
    numpy.exceptions.AxisError
        If ``axis`` is out of range.
    ValueError
        If ``out`` has the wrong shape.

    Notes
    -----
    Single-pass decoupled look-back scan (Merrill & Garland 2016); float16
    and float32 values are scanned per thread in float32 and carried across
    threads and tiles in float64 (see the module docstring for accuracy).
    """
    return _accumulate("cumsum", a, axis, dtype, out, False, False)


def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product of the elements along an axis (parameters as in
    :func:`cumsum`)."""
    return _accumulate("cumprod", a, axis, dtype, out, True, False)


def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum treating NaN as zero (parameters as in :func:`cumsum`)."""
    return _accumulate("nancumsum", a, axis, dtype, out, False, True)


def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product treating NaN as one (parameters as in
    :func:`cumsum`)."""
    return _accumulate("nancumprod", a, axis, dtype, out, True, True)


# ---------------------------------------------------------------- differences

class _NoValueType:
    def __repr__(self):
        return "<no value>"


_NoValue = _NoValueType()


def _concat_axis(parts, axis, dt):
    shape = list(parts[0].shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    out = _empty(tuple(shape), dt)
    pos = 0
    for p in parts:
        k = p.shape[axis]
        if k:
            sl = [slice(None)] * len(shape)
            sl[axis] = slice(pos, pos + k)
            out[tuple(sl)] = p
        pos += k
    return out


def diff(a, n=1, axis=-1, prepend=_NoValue, append=_NoValue):
    """The n-th discrete difference along the given axis.

    ``out[i] = a[i + 1] - a[i]`` along ``axis``, applied ``n`` times
    (``not_equal`` for bool input, as NumPy does). ``prepend`` and
    ``append`` values are joined to ``a`` along ``axis`` first (scalars are
    broadcast to one slice).

    Raises
    ------
    ValueError
        If ``n`` is negative, or ``a`` is 0-d.
    numpy.exceptions.AxisError
        If ``axis`` is out of range.
    """
    from . import _ufuncs
    if n == 0:
        return _asarray(a)
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = _asarray(a)
    nd = a.ndim
    if nd == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _normalize_axis(axis, nd)
    parts = []
    for value in (prepend, None, append):
        if value is None:
            parts.append(a)
            continue
        if value is _NoValue:
            continue
        v = _asarray(value)
        if v.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            t = _empty(tuple(shape), v.dtype)
            t[...] = v
            v = t
        parts.append(v)
    if len(parts) > 1:
        for p in parts:
            if p.ndim != nd:
                raise ValueError("all the input arrays must have same number of "
                                 "dimensions")
        dt = normalize_dtype(numpy.result_type(*[p.dtype for p in parts]))
        a = _concat_axis(parts, axis, dt)
    op = _ufuncs.not_equal if a.dtype == numpy.bool_ else _ufuncs.subtract
    hi = [slice(None)] * nd
    lo = [slice(None)] * nd
    hi[axis] = slice(1, None)
    lo[axis] = slice(None, -1)
    hi, lo = tuple(hi), tuple(lo)
    for _ in range(n):
        a = op(a[hi], a[lo])
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences between consecutive elements of ``ravel(ary)``, with
    optional values put before (``to_begin``) and after (``to_end``).

    Raises
    ------
    TypeError
        If ``to_begin``/``to_end`` cannot be cast to ``ary``'s dtype under
        the ``same_kind`` rule.
    """
    from . import _ufuncs
    ary = _asarray(ary).reshape(-1)
    dt = ary.dtype
    ends = []
    for name, v in (("to_begin", to_begin), ("to_end", to_end)):
        if v is None:
            ends.append(None)
            continue
        v = _asarray(v)
        if not numpy.can_cast(v.dtype, dt, casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` "
                            "under the `same_kind` rule.")
        ends.append(v.reshape(-1))
    nb = 0 if ends[0] is None else ends[0].size
    ne = 0 if ends[1] is None else ends[1].size
    nd = max(ary.size - 1, 0)
    result = _empty((nb + nd + ne,), dt)
    if nb:
        result[:nb] = ends[0]
    if nd:
        _ufuncs.subtract(ary[1:], ary[:-1], out=result[nb:nb + nd])
    if ne:
        result[nb + nd:] = ends[1]
    return result


# ---------------------------------------------------------------- counting

def _num_blocks(n, per_thread=16, cap=528):
    return max(1, min((n + S.THREADS * per_thread - 1) // (S.THREADS * per_thread), cap))


def bincount(x, weights=None, minlength=0):
    """Number of occurrences of each value of a non-negative int array.

    Parameters
    ----------
    x : 1-D array_like of non-negative ints
    weights : array_like, optional
        Same shape as ``x``; the result sums them instead of counting.
    minlength : int
        Minimum number of bins.

    Returns
    -------
    ndarray
        int64 counts (float64 sums with ``weights``) of length
        ``max(x.max() + 1, minlength)``.

    Raises
    ------
    ValueError
        For negative values, a negative ``minlength``, a non 1-D ``x`` or
        ``weights`` of another length.
    TypeError
        If ``x`` cannot be cast safely to int64 (or ``weights`` to float64).

    Notes
    -----
    The maximum (and minimum) of ``x`` are read by the host (one sync).
    Privatised shared-memory counters per block, merged with global atomics;
    weighted sums are float64 atomics (order not fixed).
    """
    from ._reduction import max as _max, min as _min
    x = _asarray(x)
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if x.ndim > 1:
        raise ValueError("object too deep for desired array")
    if x.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if not numpy.can_cast(x.dtype, _I8, "safe"):
        raise TypeError(f"Cannot cast array data from {x.dtype!r} to "
                        f"dtype('int64') according to the rule 'safe'")
    if x.size == 0:
        # NumPy returns int64 zeros for empty input, weights or not (the
        # weights are not even checked)
        return _zeros((minlength,), _I8)
    if weights is not None:
        weights = _asarray(weights)
        if weights.shape != x.shape:
            raise ValueError("The weights and list don't have the same length.")
        if not numpy.can_cast(weights.dtype, _F8, "safe"):
            raise TypeError(f"Cannot cast array data from {weights.dtype!r} to "
                            f"dtype('float64') according to the rule 'safe'")
    if int(_min(x)) < 0:
        raise ValueError("'list' argument must have no negative elements")
    nbins = max(int(_max(x)) + 1, minlength)
    return _bincount(_contiguous(x), None if weights is None else _contiguous(weights),
                     nbins)


def _bincount(x, weights, nbins, parts=1):
    n = x.size
    w_dt = None if weights is None else weights.dtype
    if w_dt is not None and w_dt.kind == "c":
        parts = 2
    acc_dt = _U8 if weights is None else _F8
    out = _zeros((parts * nbins,), acc_dt)
    shared = parts * nbins * 8 <= 96 * 1024
    name, src = S.bincount_source(x.dtype, w_dt, shared)
    f = get_function(src, name)
    args = (x,) + (() if weights is None else (weights,)) + (n, out, nbins)
    f(_num_blocks(n), S.THREADS, args, shared_mem=parts * nbins * 8 if shared else 0)
    if weights is None:
        return out.view(_I8)
    return out


def _outer_edges(a, range):
    """NumPy's first/last edges (host scalars, one sync for min/max)."""
    if range is not None:
        first_edge, last_edge = range
        if first_edge > last_edge:
            raise ValueError("max must be larger than min in range parameter.")
        if not (numpy.isfinite(first_edge) and numpy.isfinite(last_edge)):
            raise ValueError(
                f"supplied range of [{first_edge}, {last_edge}] is not finite")
    elif a.size == 0:
        first_edge, last_edge = 0, 1
    else:
        from ._reduction import max as _max, min as _min
        first_edge = _min(a).get()[()]
        last_edge = _max(a).get()[()]
        if not (numpy.isfinite(first_edge) and numpy.isfinite(last_edge)):
            raise ValueError(
                f"autodetected range of [{first_edge}, {last_edge}] is not finite")
    if first_edge == last_edge:
        first_edge = first_edge - 0.5
        last_edge = last_edge + 0.5
    return first_edge, last_edge


def _bin_edges(a, bins, range, weights):
    """(host edges, (first, last, nbins) for equal bins or None)."""
    if isinstance(bins, str):
        raise NotImplementedError(
            "histogram bin estimators given by name are not supported; pass "
            "the number of bins or the edges")
    if isinstance(bins, ndarray):
        bins = bins.get()
    if numpy.ndim(bins) == 0:
        try:
            nb = operator.index(bins)
        except TypeError as e:
            raise TypeError("`bins` must be an integer, a string, or an array") from e
        if nb < 1:
            raise ValueError("`bins` must be positive, when an integer")
        first_edge, last_edge = _outer_edges(a, range)
        bin_type = numpy.result_type(first_edge, last_edge, a.dtype)
        if numpy.issubdtype(bin_type, numpy.integer):
            bin_type = numpy.result_type(bin_type, float)
        edges = numpy.linspace(first_edge, last_edge, nb + 1, endpoint=True,
                               dtype=bin_type)
        if numpy.any(edges[:-1] >= edges[1:]):
            raise ValueError(f"Too many bins for data range. Cannot create {nb} "
                             "finite-sized bins.")
        return edges, (first_edge, last_edge, nb)
    if numpy.ndim(bins) == 1:
        edges = numpy.asarray(bins)
        if numpy.any(edges[:-1] > edges[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
        return edges, None
    raise ValueError("`bins` must be 1d, when an array")


def _cmp_dtype(dt):
    """Comparison dtype in device code: float16 compares exactly in float32,
    bool as uint8."""
    dt = numpy.dtype(dt)
    if dt == numpy.float16:
        return numpy.dtype(numpy.float32)
    if dt.kind == "b":
        return _U1
    if dt.kind == "c":
        raise TypeError("histogram and digitize of complex values are not supported")
    return dt


def _keep_bounds(first_edge, last_edge, keep_rt, keep_dt):
    """``(lo, hi, any)``: NumPy's range test ``first_edge <= x <= last_edge``
    (done by NumPy in the promoted dtype ``keep_rt``) as ``lo <= x <= hi``
    in the device comparison dtype ``keep_dt`` (0-d NumPy arrays). Floating
    bounds are rounded to ``keep_rt`` first (float16 data with a Python
    float range compares against the float16 rounding of the range).

    An integer ``keep_dt`` comes from integer data with integer edges;
    NumPy 2 compares Python ints outside the dtype's range by value (e.g.
    ``uint8 >= -3`` is always true), so the bounds are clamped to the
    dtype's range instead of being wrapped by a cast; ``any`` is False when
    no value of the dtype can pass (the kernel is then skipped)."""
    if keep_dt.kind in "iu":
        info = numpy.iinfo(keep_dt)
        f, l = int(first_edge), int(last_edge)
        if f > info.max or l < info.min:
            return numpy.zeros((), keep_dt), numpy.zeros((), keep_dt), False
        f = max(f, int(info.min))
        l = min(l, int(info.max))
        return numpy.asarray(f, keep_dt), numpy.asarray(l, keep_dt), True
    return (numpy.asarray(first_edge).astype(keep_rt).astype(keep_dt),
            numpy.asarray(last_edge).astype(keep_rt).astype(keep_dt), True)


def _check_weights(a, weights):
    if weights is None:
        return None
    weights = _asarray(weights)
    if weights.shape != a.shape:
        raise ValueError("weights should have the same shape as a.")
    return weights


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The bin edges :func:`histogram` uses (NumPy's rules: equal bins over
    ``range`` or the data's min/max, widened by 0.5 each way when empty).

    Raises
    ------
    ValueError
        For non-positive ``bins``, a bad ``range``, a non-finite data range,
        or array ``bins`` that are not 1-D and increasing.
    NotImplementedError
        For string ``bins`` (estimators).
    """
    a = _asarray(a)
    weights = _check_weights(a, weights)
    edges, _ = _bin_edges(a.reshape(-1), bins, range, weights)
    return _asarray(edges)


def histogram(a, bins=10, range=None, density=None, weights=None):
    """Histogram of the flattened data.

    Parameters
    ----------
    a : array_like
        Data (flattened).
    bins : int or 1-D array_like
        Number of equal-width bins over ``range``, or the monotonically
        increasing bin edges. Every bin is half open ``[e[i], e[i+1])``
        except the last, which includes its right edge.
    range : (float, float), optional
        Range of the equal bins (default: data min and max); values outside
        are ignored.
    density : bool, optional
        Return the probability density (the integral over the range is 1).
    weights : array_like, optional
        Same shape as ``a``; the result sums them instead of counting.

    Returns
    -------
    hist : ndarray
        int64 counts, or sums in the weights' dtype, or float64 densities.
    bin_edges : ndarray
        ``len(hist) + 1`` edges.

    Raises
    ------
    ValueError
        See :func:`histogram_bin_edges`; also for ``weights`` of another
        shape.

    Notes
    -----
    Each element finds its bin by binary search over the edges; counts are
    exact int64 atomics, weighted sums float64 atomics (order not fixed,
    see the module docstring). NaN values are ignored with explicit
    ``range`` or array ``bins``; with an autodetected range they raise
    ``ValueError`` (as in NumPy).
    """
    a = _asarray(a)
    weights = _check_weights(a, weights)
    flat = _contiguous(a).reshape(-1)
    wflat = None if weights is None else _contiguous(weights).reshape(-1)
    edges, uniform = _bin_edges(flat, bins, range, weights)
    nb = edges.size - 1
    ntype = _I8 if weights is None else weights.dtype
    if uniform is not None:
        first_edge, last_edge, _ = uniform
        keep_rt = normalize_dtype(numpy.result_type(a.dtype, first_edge, last_edge))
        keep_dt = _cmp_dtype(keep_rt)
        cmp_dt = _cmp_dtype(edges.dtype)
        lo, hi, keep_any = _keep_bounds(first_edge, last_edge, keep_rt, keep_dt)
    else:
        cmp_dt = _cmp_dtype(numpy.result_type(a.dtype, edges.dtype))
        keep_dt = cmp_dt
        lo = hi = numpy.zeros((), keep_dt)
        keep_any = True
    e_dev = _asarray(numpy.ascontiguousarray(edges.astype(cmp_dt)))
    parts = 2 if (weights is not None and weights.dtype.kind == "c") else 1
    acc_dt = _U8 if weights is None else _F8
    acc = _zeros((parts * max(nb, 0),), acc_dt)
    if flat.size and nb > 0 and keep_any:
        w_dt = None if weights is None else weights.dtype
        name, src = S.histogram_source(flat.dtype, keep_dt, cmp_dt, w_dt,
                                       uniform is not None)
        f = get_function(src, name)
        args = (flat,) + (() if wflat is None else (wflat,)) + (
            flat.size, e_dev, edges.size, lo[()], hi[()], acc)
        f(_num_blocks(flat.size, 4, 4096), S.THREADS, args)
    if weights is None:
        hist = acc.view(_I8)
    elif parts == 2:
        hist = _empty((nb,), ntype)
        hist.real[...] = acc[:nb]
        hist.imag[...] = acc[nb:]
    else:
        hist = acc.astype(ntype)
    edges_dev = _asarray(edges)
    if density:
        from . import _ufuncs
        from ._reduction import sum as _sum
        db = _asarray(numpy.diff(edges).astype(float))
        hist = _ufuncs.divide(_ufuncs.divide(hist, db), _sum(hist))
    return hist, edges_dev


def _monotonic(bins):
    """1 (non-decreasing), -1 (non-increasing), 0 (neither); one sync."""
    from . import _ufuncs
    from ._reduction import all as _all
    if bins.size < 2:
        return 1
    if bool(_all(_ufuncs.less_equal(bins[:-1], bins[1:]))):
        return 1
    if bool(_all(_ufuncs.greater_equal(bins[:-1], bins[1:]))):
        return -1
    return 0


def digitize(x, bins, right=False):
    """Indices of the bins to which each value of ``x`` belongs.

    ``bins`` must be 1-D and monotonic (increasing or decreasing). For
    increasing bins, ``right=False`` gives ``i`` with ``bins[i-1] <= x <
    bins[i]`` (``searchsorted(bins, x, 'right')``); ``right=True`` gives
    ``bins[i-1] < x <= bins[i]``. Returns int64 indices of ``x``'s shape.

    Raises
    ------
    TypeError
        If ``x`` is complex.
    ValueError
        If ``bins`` is not 1-D or not monotonic.
    """
    x = _asarray(x)
    bins = _asarray(bins)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if bins.ndim != 1:
        raise ValueError("object of too small depth for desired array"
                         if bins.ndim == 0 else "object too deep for desired array")
    mono = _monotonic(bins)
    if mono == 0:
        raise ValueError("bins must be monotonically increasing or decreasing")
    cmp_dt = _cmp_dtype(numpy.result_type(x.dtype, bins.dtype))
    b = bins[::-1] if mono == -1 else bins
    b = _contiguous(b).astype(cmp_dt) if b.dtype != cmp_dt else _contiguous(b)
    xc = _contiguous(x)
    out = _empty(x.shape, _I8)
    if x.size:
        name, src = S.digitize_source(xc.dtype, cmp_dt)
        f = get_function(src, name)
        f(_grid(x.size), S.THREADS, (xc, x.size, b, bins.size, not right, mono == -1,
                                     out))
    return out
