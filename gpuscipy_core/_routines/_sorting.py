"""Sorting and searching: sort, argsort, partition, searchsorted, unique, lexsort.

Method
------
Every sort is a stable least-significant-digit (LSD) radix sort on kernels
of our own (``gpuscipy/sort.cuh``, sources in ``_sort_source.py``); CUB is
not used. Reasons: the same code compiles with NVRTC 13.0 on the test
machine and 13.5 in CI without depending on which CCCL release sits beside
it, its compile takes ~0.2 s per kernel instead of seconds for CUB's
templates, and its logic is small enough to simulate in NumPy
(tests/core/test_sorting.py does).

* Keys are mapped to unsigned integers whose unsigned order is NumPy's order:
  floats flip the sign bit (negative values: all bits), signed integers flip
  the sign bit, bool and unsigned integers stay as they are. For ``argsort``,
  ``unique``, ``lexsort`` and ``searchsorted`` every NaN maps to one key above
  +inf and -0.0 to +0.0, so values equal under NumPy's ``<`` keep their
  input order (the result is exactly NumPy's stable argsort). ``sort`` keeps
  the map a bijection so that it can decode the keys it moved: -0.0 is
  placed just before +0.0 and NaNs (at the end) lose only their sign bit;
  the output equals NumPy's elementwise.
* Complex keys follow NumPy's order ``[R + Rj, R + nanj, nan + Rj, nan +
  nanj]`` as three radix words sorted LSD first: imaginary part, real part,
  NaN group (2 bits).
* One row of at most 4096 keys (``sort(axis=...)`` of short rows, small 1-D
  sorts): one block of 256 threads per row sorts it in shared memory, all
  digit passes in one launch (one read, one write).
* Long 1-D sorts: Onesweep (Adinets & Merrill 2022): one kernel histograms
  every 8-bit digit at once, one small kernel scans them and plans the
  passes, then one kernel per digit ranks tiles in shared memory and finds
  each tile's global digit offsets by decoupled look-back (Merrill &
  Garland 2016) -- one read and one write of keys (and values) per digit
  plus one read. The passes are bound by instruction issue and latency,
  not by bandwidth (2.5 ms for 2^26 float32 was ~0.6 ms per pass against
  ~0.13 ms of memory traffic), so the design counts SASS instructions per
  key and hides latencies:

  - no ``__match_any_sync`` (microcoded, ~1 step per distinct digit in the
    warp): lanes with equal digits are found with 8 ballots, written in PTX
    so that a bit costs 4 instructions (the C++ form compiled to 7);
    digits are one PRMT;
  - the order of CUB's onesweep agent: per-warp digit counts first (shared
    atomics, which the hardware aggregates per address), the tile's
    aggregate published at once so that later tiles' look-backs rarely
    wait on an unpublished word, then the per-warp slots (digit start +
    earlier warps), then the ranks: per round of 32 keys the highest lane
    of each equal-digit group takes the group's slots with one predicated
    atomicAdd and broadcasts the first, and every key (and value) goes
    straight to its slot (no second pass over the ranks, no warp barriers);
  - look-back by 256 threads (one per digit), each loading a window of 16
    predecessors' words at once: one L2 round trip per 16 tiles walked
    instead of one per tile (the walk length grows with the tile rate
    times the L2 latency);
  - full tiles run a variant without bounds tests; values are loaded before
    the ranking and share its exchange (keys and values side by side in
    shared memory), so a tile has 5 block barriers with or without values;
  - tiles of 20 keys per thread (5120; 16 for 8-byte keys, 16/12/8 with
    values by bytes per key), 3 blocks of 256 per SM (24 warps, as CUB's
    2 x 384 on sm_90) within 80 registers and no spills, < 48 KiB of
    shared memory per block (``_sort_source.onesweep_config``;
    ``benchmarks/bench_sort.py --tune`` times the alternatives);
  - values between passes are 32-bit positions when n < 2^32 (argsort moves
    4+4 bytes per key and pass, not 4+8); the last pass widens to int64;
  - passes whose digit is the same for every key (one histogram bucket holds
    n: small integers in wide types, constant exponent bytes) are skipped on
    the device: the scan kernel writes a plan that tells each pass whether
    it runs and which buffers it reads and writes (the last pass that runs
    writes the output; the others alternate backwards), so there is no host
    synchronisation and no copy;
  - the key transform is fused into the first pass that runs and the inverse
    into the last one (no separate passes over the keys);
  - 11-bit digits (3 passes for 32-bit keys) were rejected: 2048 bins make
    the look-back state 8x larger and split each tile into runs of ~3 keys,
    so the scatter would no longer write contiguous runs.
* Long rows of a batch, complex keys and lexsort: an argsort by successive
  stable passes (one per key word, least significant first), the row number
  as the most significant word.

Every ``kind`` gives the same stable result (NumPy only promises stability
for ``kind='stable'``; a stable result satisfies every kind). ``partition``
and ``argpartition`` return the fully sorted result, which satisfies their
contract (the k-th element in place, smaller before, larger after).

References
----------
A. Adinets and D. Merrill, "Onesweep: a faster least significant digit radix
sort for GPUs", arXiv:2206.01784, 2022.
D. Merrill and M. Garland, "Single-pass parallel prefix scan with decoupled
look-back", NVIDIA NVR-2016-002, 2016.
"""


import numpy

from .._ndarray import ndarray
from .._kernel._module import get_function
from . import _creation
from . import _sort_source as _src
from ._creation import asarray as _asarray
from ._scan import _normalize_axis

__all__ = ["sort", "argsort", "partition", "argpartition", "searchsorted", "unique",
           "lexsort", "sort_complex", "sort_inplace", "partition_inplace"]

_BLOCK = 256
_BLOCK_SORT_MAX = 4096
_HIST_GRID_MAX = 1056   # ~8 blocks of 256 per SM on a 132-SM H100/H200
# (key width, value width) -> (keys per thread, blocks per SM) of the
# onesweep passes, overriding _sort_source.onesweep_config; for tuning runs
# (benchmarks/bench_sort.py --tune), empty otherwise.
_ONESWEEP_CONFIG = {}


# ---- helpers ----------------------------------------------------------------

def _launch(spec, grid, args):
    src, name = spec
    get_function(src, name)((int(grid), 1, 1), (_BLOCK, 1, 1), tuple(args))


def _blocks(n):
    return (int(n) + _BLOCK - 1) // _BLOCK


def _key_info(dt):
    """(width of a radix word in bytes, kind, is complex) for a dtype."""
    k = dt.kind
    if k == "b":
        return 1, "u", False
    if k == "u":
        return dt.itemsize, "u", False
    if k == "i":
        return dt.itemsize, "i", False
    if k == "f" and dt.itemsize in (2, 4, 8):
        return dt.itemsize, "f", False
    if k == "c" and dt.itemsize in (8, 16):
        return dt.itemsize // 2, "f", True
    raise TypeError(f"sorting arrays of dtype {dt} is not supported")


def _uint(width):
    return numpy.dtype(f"u{width}")


def _check_kind(kind, stable):
    if stable is not None and kind is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same "
                         "time. Use only one of them.")
    if kind is None:
        return
    if not isinstance(kind, str) or not kind or kind[0].lower() not in "qhms":
        raise ValueError("sort kind must be one of 'quick', 'heap', or 'stable' "
                         f"(got {kind!r})")


def _check_order(order):
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def _to_rows(a, axis):
    """C-contiguous (nrows, len) copy of ``a`` with ``axis`` last, plus what
    is needed to undo it."""
    nd = a.ndim
    perm = [i for i in range(nd) if i != axis] + [axis]
    moved = a.transpose(perm) if axis != nd - 1 else a
    moved = _creation.ascontiguousarray(moved)
    length = a.shape[axis]
    nrows = moved.size // length if length else 0
    return moved.reshape(nrows, length), moved.shape, perm


def _from_rows(r, moved_shape, perm):
    out = r.reshape(moved_shape)
    if perm != sorted(perm):
        inv = [0] * len(perm)
        for i, p in enumerate(perm):
            inv[p] = i
        out = _creation.ascontiguousarray(out.transpose(inv))
    return out


# ---- radix sort engines ----------------------------------------------------

def _onesweep(keys, n, width, kind, *, canon, enc, dec, end_bit, vals=None,
              iota=False, want_keys=True, out_keys=None):
    """Stable LSD radix sort of ``n`` keys (raw if ``enc``) on bits [0, end_bit).

    Returns (sorted keys or None, sorted int64 values or None). ``vals``
    (int64) travel with the keys; ``iota`` makes them the input positions.
    Bits of the keys at or above ``end_bit`` must be zero when end_bit is
    not a multiple of 8 (digits are 8 bits wide). Sorted keys go to
    ``out_keys`` when given. Digit passes whose digit is the same for every
    key are skipped on the device (see gs::sort::scan_plan): no host sync.
    """
    npass = max(1, (end_bit + 7) // 8)
    with_vals = vals is not None or iota
    vmode = 0 if not with_vals else (1 if vals is not None else 2)
    vwidth = 4 if n < (1 << 32) else 8
    items, min_blocks = _ONESWEEP_CONFIG.get(
        (width, vwidth if with_vals else 0),
        _src.onesweep_config(width, vwidth if with_vals else 0))
    tile = _BLOCK * items
    ntiles = (n + tile - 1) // tile
    swidth = 4 if n < (1 << 30) else 8
    hist = _creation.zeros(npass * 256, numpy.uint64)
    state = _creation.zeros(npass * ntiles * 256, _uint(swidth))
    counters = _creation.zeros(npass, numpy.uint32)
    plan = _creation.empty(npass, numpy.int32)
    hgrid = min(max(1, (n + _BLOCK * _src.HIST_ITEMS - 1) // (_BLOCK * _src.HIST_ITEMS)),
                _HIST_GRID_MAX)
    _launch(_src.histogram_source(width, kind, canon, enc, npass), hgrid,
            (keys, n, hist))
    _launch(_src.scan_source(npass), 1, (hist, n, plan))
    kdt = _uint(width)
    # Buffers (gs::sort::scan_plan): the last pass that runs writes "out",
    # the others alternate out/tmp backwards, so tmp is needed from 2 passes
    # and, when no keys are wanted, an "out" for keys from 3.
    ktmp = _creation.empty(n, kdt) if npass >= 2 else 0
    if want_keys:
        kout = out_keys if out_keys is not None else _creation.empty(n, kdt)
    else:
        kout = _creation.empty(n, kdt) if npass >= 3 else 0
    vtmp = vout = 0
    if with_vals:
        vtmp = _creation.empty(n, _uint(vwidth)) if npass >= 2 else 0
        vout = _creation.empty(n, numpy.int64)
    spec = _src.onesweep_source(width, kind, canon, enc, dec, want_keys, vmode, swidth,
                                vwidth, items, min_blocks)
    sw = state.itemsize * ntiles * 256
    for p in range(npass):
        _launch(spec, ntiles,
                (keys, ktmp, kout, vals if vmode == 1 else 0, vtmp, vout, n,
                 numpy.int32(8 * p), hist.ptr + p * 256 * 8, state.ptr + p * sw,
                 counters.ptr + p * 4, plan, numpy.int32(p)))
    return (kout if want_keys else None), (vout if with_vals else None)


def _block_sort(x2, width, kind, want_index):
    """Sort each row of the C-contiguous (nrows, len <= 4096) array ``x2``."""
    nrows, length = x2.shape
    items = 1 if length <= 256 else (4 if length <= 1024 else 16)
    npass = width
    if want_index:
        out = _creation.empty((nrows, length), numpy.int64)
        spec = _src.block_sort_source(width, kind, True, npass, 2, items)
        args = (x2, 0, out, numpy.int32(length))
    else:
        out = _creation.empty((nrows, length), x2.dtype)
        spec = _src.block_sort_source(width, kind, False, npass, 0, items)
        args = (x2, out, 0, numpy.int32(length))
    _launch(spec, nrows, args)
    return out


def _word(src, perm, n, width, out_width, kind, mode, stride=1, offset=0, length=1,
          out=None):
    if out is None:
        out = _creation.empty(n, _uint(out_width))
    _launch(_src.radix_word_source(width, out_width, kind, mode), _blocks(n),
            (src, perm if perm is not None else 0, out, n, stride, offset, length))
    return out


def _column_words(x, width, kind, cplx):
    """(mode, word width, end bit) of each radix word of a key, LSD first."""
    if cplx:
        return [(1, width, 8 * width), (2, width, 8 * width), (3, 1, 2)]
    return [(0, width, 8 * width)]


def _argsort_words(columns, n, nrows, length):
    """Stable argsort (flat int64 positions) by several keys.

    ``columns``: [(array, width, kind, cplx, stride, offset)], least
    significant first; the row number ``pos // length`` is the most
    significant key when nrows > 1.
    """
    perm = None
    for (x, width, kind, cplx, stride, offset) in columns:
        for mode, wwidth, end_bit in _column_words(x, width, kind, cplx):
            if perm is None and mode == 0 and stride == 1 and offset == 0:
                _, perm = _onesweep(x, n, width, kind, canon=True, enc=True, dec=False,
                                    end_bit=end_bit, iota=True, want_keys=False)
                continue
            w = _word(x, perm, n, width, wwidth, kind, mode, stride, offset)
            _, perm = _onesweep(w, n, wwidth, "u", canon=True, enc=False, dec=False,
                                end_bit=end_bit, vals=perm, iota=perm is None,
                                want_keys=False)
    if nrows > 1:
        rwidth = 4 if nrows <= (1 << 32) else 8
        w = _word(0, perm, n, 8, rwidth, "u", 4, length=length)
        _, perm = _onesweep(w, n, rwidth, "u", canon=True, enc=False, dec=False,
                            end_bit=max(1, int(nrows - 1).bit_length()), vals=perm,
                            want_keys=False)
    return perm


def _gather(src, idx, n, out_dtype, stride=1, offset=0):
    out = _creation.empty(n, out_dtype)
    _launch(_src.gather_source(numpy.dtype(out_dtype).itemsize), _blocks(n),
            (src, idx, out, n, stride, offset))
    return out


def _sort_rows(x2, want_index):
    """Stable sort (or argsort) of every row of a C-contiguous 2-D array."""
    nrows, length = x2.shape
    if want_index:
        out_dt = numpy.dtype(numpy.int64)
    else:
        out_dt = x2.dtype
    if nrows == 0 or length == 0:
        return _creation.empty((nrows, length), out_dt)
    width, kind, cplx = _key_info(x2.dtype)
    n = nrows * length
    if not cplx and length <= _BLOCK_SORT_MAX:
        return _block_sort(x2, width, kind, want_index)
    if not cplx and nrows == 1:
        if want_index:
            _, v = _onesweep(x2, n, width, kind, canon=True, enc=True, dec=False,
                             end_bit=8 * width, iota=True, want_keys=False)
            return v.reshape(nrows, length)
        out = _creation.empty((nrows, length), out_dt)
        k, _ = _onesweep(x2, n, width, kind, canon=False, enc=True, dec=True,
                         end_bit=8 * width, out_keys=out)
        return k.view(out_dt).reshape(nrows, length)
    perm = _argsort_words([(x2, width, kind, cplx, 1, 0)], n, nrows, length)
    if want_index:
        out = _creation.empty(n, numpy.int64)
        _launch(_src.row_index_source(), _blocks(n), (perm, out, n, length))
        return out.reshape(nrows, length)
    return _gather(x2, perm, n, out_dt).reshape(nrows, length)


# ---- public API ------------------------------------------------------------

def _axis_operand(a, axis):
    """``(a, axis)`` of the sort family: ``axis=None`` sorts the flattened
    array; a 0-d array has no axis (NumPy's AxisError)."""
    a = _asarray(a)
    if axis is None:
        return _creation.ascontiguousarray(a).reshape(-1), 0
    if a.ndim == 0:
        raise numpy.exceptions.AxisError(axis if isinstance(axis, int) else -1, 0)
    return a, _normalize_axis(axis, a.ndim)


def _sorted(a, axis, want_index):
    a, axis = _axis_operand(a, axis)
    _key_info(a.dtype)
    x2, moved, perm = _to_rows(a, axis)
    return _from_rows(_sort_rows(x2, want_index), moved, perm)


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """Return a sorted copy of an array (``numpy.sort``).

    Parameters
    ----------
    a : ndarray
        Array of any supported dtype (bool, integers, float16/32/64,
        complex64/128) and shape.
    axis : int or None
        Axis to sort along; ``None`` sorts the flattened array.
    kind, stable : optional
        Accepted for NumPy compatibility; the sort is always stable
        (an LSD radix sort).
    order : None
        Only ``None`` (arrays with fields are not supported).

    Returns
    -------
    ndarray
        Sorted array, same dtype and shape (1-D for ``axis=None``). NaNs sort
        to the end as in NumPy; complex values lexicographically with NumPy's
        NaN rules.

    Raises
    ------
    numpy.exceptions.AxisError
        For a 0-d array with an integer axis or an axis out of range.
    ValueError
        For a bad ``kind``, both ``kind`` and ``stable``, or ``order``.
    """
    _check_kind(kind, stable)
    _check_order(order)
    return _sorted(a, axis, False)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """Indices that sort an array (``numpy.argsort``), always stable.

    Equal keys (including all NaNs and -0.0/+0.0) keep their input order, so
    the result equals NumPy's ``argsort(kind='stable')`` exactly. Returns an
    int64 array of ``a``'s shape (1-D for ``axis=None`` or a 0-d ``a``).
    Raises like :func:`sort`.
    """
    _check_kind(kind, stable)
    _check_order(order)
    a = _asarray(a)
    if a.ndim == 0 and axis is not None:
        a = a.reshape(1)
    return _sorted(a, axis, True)


def sort_inplace(a, axis=-1, kind=None, order=None, stable=None):
    """``ndarray.sort``: sort ``a`` in place along ``axis``."""
    _check_kind(kind, stable)
    _check_order(order)
    if axis is None:
        raise numpy.exceptions.AxisError("axis None is not supported by ndarray.sort")
    res = _sorted(a, axis, False)
    a[...] = res


def _check_kth(kth, length):
    ks = numpy.asarray(kth)
    if ks.dtype.kind == "b":
        raise ValueError("Booleans unacceptable as partition index")
    if ks.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if ks.ndim > 1:
        raise ValueError("kth array must have dimension <= 1")
    for k in ks.reshape(-1).tolist():
        kk = k + length if k < 0 else k
        if not 0 <= kk < length:
            raise ValueError(f"kth(={kk}) out of bounds ({length})")


def _partitioned(a, kth, axis, kind, order, want_index):
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")
    _check_order(order)
    a, ax = _axis_operand(a, axis)
    _check_kth(kth, a.shape[ax])
    return _sorted(a, ax, want_index)


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """Partitioned copy of an array (``numpy.partition``).

    Returns the sorted array along ``axis``, which satisfies NumPy's
    contract for every ``kth`` (the k-th element where a sort puts it,
    no larger element before it, no smaller one after it).

    Raises
    ------
    TypeError
        If ``kth`` is not integer.
    ValueError
        If ``kth`` is out of bounds or ``kind`` is not ``'introselect'``.
    numpy.exceptions.AxisError
        For a 0-d array or an axis out of range.
    """
    return _partitioned(a, kth, axis, kind, order, False)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition an array (``numpy.argpartition``): the stable
    argsort, which satisfies the contract. Raises like :func:`partition`."""
    return _partitioned(a, kth, axis, kind, order, True)


def partition_inplace(a, kth, axis=-1, kind="introselect", order=None):
    """``ndarray.partition``: partition ``a`` in place (by sorting it)."""
    a[...] = _partitioned(a, kth, axis, kind, order, False)


def sort_complex(a):
    """Sort a complex array by real part, then imaginary part
    (``numpy.sort_complex``); real input is cast to complex like NumPy
    (int8/int16/uint8/uint16 to complex64, everything else to complex128)."""
    b = sort(a)
    if b.dtype.kind != "c":
        target = numpy.complex64 if b.dtype.char in "bhBH" else numpy.complex128
        b = b.astype(target)
    return b


def searchsorted(a, v, side="left", sorter=None):
    """Indices where elements of ``v`` keep sorted ``a`` sorted
    (``numpy.searchsorted``).

    One thread per query, a binary search in NumPy's order (NaN last,
    complex lexicographic). ``a`` and ``v`` are compared in their common dtype
    (``numpy.result_type``). ``sorter`` (int) gives the order of an unsorted
    ``a``; its indices are not bounds-checked (NumPy does not either).

    Returns
    -------
    ndarray
        int64 indices of ``v``'s shape.

    Raises
    ------
    ValueError
        If ``a`` is not 1-D, ``side`` is not 'left'/'right', or ``sorter``
        has another size than ``a``.
    """
    if not isinstance(side, str):
        raise TypeError(f"search side must be str, not {type(side).__name__}")
    if side not in ("left", "right"):
        raise ValueError(f"search side must be one of 'left' or 'right' (got {side!r})")
    a = _asarray(a)
    if a.ndim != 1:
        raise ValueError("object too deep for desired array")
    if not isinstance(v, ndarray):
        v = _creation.asarray(v) if numpy.ndim(v) else _creation.asarray(
            numpy.asarray(v, dtype=numpy.result_type(a.dtype, v)))
    dt = numpy.result_type(a.dtype, v.dtype)
    width, kind, cplx = _key_info(dt)
    a_c = _creation.ascontiguousarray(a, dt)
    v_c = _creation.ascontiguousarray(v, dt).reshape(-1)
    nq = v_c.size
    out = _creation.empty(v.shape, numpy.int64)
    s = 0
    if sorter is not None:
        sorter = _asarray(sorter)
        if sorter.dtype.kind not in "iu" or sorter.ndim != 1:
            raise TypeError("could not parse sorter argument")
        if sorter.size != a.size:
            raise ValueError("sorter.size must equal a.size")
        s = _creation.ascontiguousarray(sorter, numpy.int64)
    if nq:
        _launch(_src.searchsorted_source(width, kind, cplx, side == "right",
                                         sorter is not None),
                _blocks(nq), (a_c, s, a_c.size, v_c, out, nq))
    return out


def _scan_int64(x, n):
    """Inclusive scan of an int64 vector (reduce-then-scan over 2048-tiles)."""
    y = _creation.empty(n, numpy.int64)
    tile = 2048
    nt = (n + tile - 1) // tile
    if nt <= 8:
        _launch(_src.tile_scan_source(True), 1, (x, y, 0, n))
        return y
    sums = _creation.empty(nt, numpy.int64)
    _launch(_src.tile_sum_source(), nt, (x, sums, n))
    incl = _scan_int64(sums, nt)
    _launch(_src.tile_scan_source(False), nt, (x, y, incl, n))
    return y


def unique(ar, return_index=False, return_inverse=False, return_counts=False,
           axis=None, *, equal_nan=True, sorted=True):
    """Sorted unique elements of an array (``numpy.unique``).

    Sort (stable argsort), flag the first of each run of equal keys, scan
    the flags into group numbers, scatter. ``return_index`` gives the first
    occurrence; ``return_inverse`` has ``ar``'s shape for ``axis=None`` and
    is 1-D for an integer axis (NumPy 2); ``equal_nan`` collapses NaNs (for
    complex: every value with a NaN part) as NumPy does. ``sorted`` is
    accepted; the result is always sorted.

    Raises
    ------
    numpy.exceptions.AxisError
        If ``axis`` is out of range.
    """
    ar = _asarray(ar)
    width, kind, cplx = _key_info(ar.dtype)
    if axis is None:
        x = _creation.ascontiguousarray(ar).reshape(-1)
        inv_shape = ar.shape
        rest = 1
        moved_shape = None
    else:
        ax = _normalize_axis(axis, ar.ndim)
        perm_axes = [ax] + [i for i in range(ar.ndim) if i != ax]
        moved = _creation.ascontiguousarray(ar.transpose(perm_axes))
        moved_shape = moved.shape
        rest = 1
        for s in moved_shape[1:]:
            rest *= s
        m_rows = moved_shape[0]
        x = moved.reshape(m_rows, rest) if m_rows and rest else moved.reshape(-1)
        inv_shape = (m_rows,)
    n = x.shape[0] if axis is not None else x.size
    if axis is not None and (n == 0 or rest == 0):
        return _unique_degenerate(ar, moved_shape, perm_axes, n, rest, return_index,
                                  return_inverse, return_counts)
    if n == 0:
        res = [_creation.empty(0, ar.dtype)]
        if return_index:
            res.append(_creation.empty(0, numpy.int64))
        if return_inverse:
            res.append(_creation.empty(inv_shape, numpy.int64))
        if return_counts:
            res.append(_creation.empty(0, numpy.int64))
        return res[0] if len(res) == 1 else tuple(res)

    # Stable argsort of the rows (columns least significant first).
    columns = [(x, width, kind, cplx, rest, c) for c in reversed(range(rest))]
    if rest == 1 and not cplx and n <= _BLOCK_SORT_MAX:
        perm = _block_sort(x.reshape(1, n), width, kind, True).reshape(-1)
    else:
        perm = _argsort_words(columns, n, 1, n)

    # Radix words of the sorted rows, then the run flags.
    nwords = rest * len(_column_words(x, width, kind, cplx))
    allw = _creation.empty(nwords * n, _uint(width))
    codes = []
    i = 0
    for c in range(rest):
        for mode, _, _ in _column_words(x, width, kind, cplx):
            _word(x, perm, n, width, width, kind, mode, rest, c, out=allw[i * n:(i + 1) * n])
            i += 1
        if cplx:
            codes.append("cn" if (axis is not None or not equal_nan) else "c")
        elif kind == "f" and (axis is not None or not equal_nan):
            codes.append("rn")
        else:
            codes.append("r")
    flag = _creation.empty(n, numpy.int64)
    _launch(_src.flags_source(width, tuple(codes)), _blocks(n), (allw, flag, n))
    gid = _scan_int64(flag, n)
    m = int(gid[n - 1])
    first = _creation.empty(m, numpy.int64)
    inv = _creation.empty(n, numpy.int64) if return_inverse else 0
    _launch(_src.unique_scatter_source(), _blocks(n), (flag, gid, perm, first, inv, n))
    index = _gather(perm, first, m, numpy.int64)
    if axis is None:
        values = _gather(x, index, m, ar.dtype)
    else:
        ar_idx = (index.reshape(m, 1) * rest
                  + _creation.arange(rest, dtype=numpy.int64).reshape(1, rest)).reshape(-1)
        values = _gather(x.reshape(-1), ar_idx, m * rest, ar.dtype)
        values = values.reshape((m,) + tuple(moved_shape[1:]))
        inv_axes = [0] * len(perm_axes)
        for i, p in enumerate(perm_axes):
            inv_axes[p] = i
        values = _creation.ascontiguousarray(values.transpose(inv_axes))
    res = [values]
    if return_index:
        res.append(index)
    if return_inverse:
        res.append(inv.reshape(inv_shape))
    if return_counts:
        counts = _creation.empty(m, numpy.int64)
        _launch(_src.counts_source(), _blocks(m), (first, counts, m, n))
        res.append(counts)
    return res[0] if len(res) == 1 else tuple(res)


def _unique_degenerate(ar, moved_shape, perm_axes, n, rest, return_index,
                       return_inverse, return_counts):
    """unique(axis=k) when there are no rows or the rows are empty: ask NumPy
    on a host array of the same shape (no data to move)."""
    host = numpy.empty(ar.shape, ar.dtype)
    ax = perm_axes[0]
    r = numpy.unique(host, return_index=return_index, return_inverse=return_inverse,
                     return_counts=return_counts, axis=ax)
    if isinstance(r, tuple):
        return tuple(_creation.asarray(x) for x in r)
    return _creation.asarray(r)


def lexsort(keys, axis=-1):
    """Indirect stable sort on several keys (``numpy.lexsort``); the last key
    is the primary one.

    Successive stable radix passes, from the first key (least significant)
    to the last, each key split into its radix words.

    Raises
    ------
    TypeError
        If ``keys`` is empty or 0-d.
    ValueError
        If the keys differ in shape.
    """
    if isinstance(keys, ndarray):
        if keys.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = [keys[i] for i in range(keys.shape[0])]
    elif isinstance(keys, numpy.ndarray):
        if keys.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = list(keys)
    else:
        keys = list(keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    keys = [_asarray(k) for k in keys]
    shape = keys[0].shape
    if any(k.shape != shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    if len(shape) == 0:
        keys = [k.reshape(1) for k in keys]
        shape = (1,)
    ax = _normalize_axis(axis, len(shape))
    rows = [_to_rows(k, ax) for k in keys]
    nrows, length = rows[0][0].shape
    if nrows * length == 0:
        return _creation.empty(shape, numpy.int64)
    columns = []
    for (x2, _, _) in rows:
        width, kind, cplx = _key_info(x2.dtype)
        columns.append((x2, width, kind, cplx, 1, 0))
    n = nrows * length
    perm = _argsort_words(columns, n, nrows, length)
    out = _creation.empty(n, numpy.int64)
    _launch(_src.row_index_source(), _blocks(n), (perm, out, n, length))
    return _from_rows(out.reshape(nrows, length), rows[0][1], rows[0][2])
