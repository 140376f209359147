"""Peak finding on the GPU with scipy.signal's semantics.

``find_peaks``, ``peak_prominences``, ``peak_widths``, ``argrelmin``,
``argrelmax`` and ``argrelextrema``: SciPy's signatures, defaults, result
dtypes (indices ``intp`` = int64, properties float64), errors and
``PeakPropertyWarning``s. Peak indices are identical to SciPy's and every
property is computed with SciPy's arithmetic on the same float64 values.

Method (kernels in ``_peak_finding.cuh``)
-----------------------------------------
- Local maxima: a per-sample statement of SciPy's plateau rule, tested by
  every thread of a count kernel and again by a one-pass decoupled
  look-back compaction (the core's ``gs::scan``; Merrill & Garland 2016)
  that writes each peak and its properties at its rank. The plateau,
  height and threshold conditions are fused into that test. One device
  sync: the number of peaks sizes the outputs.
- ``distance``: SciPy keeps peaks greedily by decreasing height, with the
  order of equal heights given by NumPy's default (unstable) ``argsort``
  -- which depends on the CPU's SIMD sort, so no GPU sort can reproduce it.
  The GPU selects by rounds of a parallel greedy in an order that ranks
  equal heights by position, and flags a signal whose result depends on
  that choice (``_peak_finding_batch``); only then does
  ``select_by_peak_distance`` run on the host: peaks with no neighbour
  closer than ``distance`` are kept at once; the rest go through vectorised
  rounds of the greedy maximal independent set (a peak whose rank is
  highest in its window is kept and removes its window; Blelloch, Fineman &
  Shun 2012) while the rounds decide at least a quarter of the remaining
  peaks, then a sequential pass in priority order.
- Prominences: one thread per peak walks left and right as SciPy does;
  tile summaries (max, min, first/last argmin of tiles of 2^8-2^14
  samples) let a walk cross whole tiles, bounding it by ~2B + n/B steps.
- Widths: one thread per peak, the same tile skipping (tile minimum above
  the reference height), SciPy's interpolation without FMA contraction.
- Property conditions: fused into the prominence / width kernels as keep
  masks that the next stage reads; one look-back compaction of all
  property rows at the end, sized by per-channel counts that come back
  with the status words in one copy, which is also where the warnings (and
  for ``peak_prominences`` / ``peak_widths`` the errors) come from.
- ``argrelextrema``: one thread per element along the axis of a
  C-contiguous (outer, n, inner) view, NumPy's comparison functions on the
  device, then the core's ``nonzero``.

References
----------
D. Merrill and M. Garland, "Single-pass Parallel Prefix Scan with Decoupled
Look-back", NVIDIA NVR-2016-002, 2016.
G. E. Blelloch, J. T. Fineman and J. Shun, "Greedy Sequential Maximal
Independent Set and Matching are Parallel on Average", SPAA 2012.
"""

import functools
import math
import os
import struct
import warnings

import numpy

import gpuscipy_core as gp
from gpuscipy_core.kernel import ctype, read_source

from ._arraytools import hashable as _hashable


def _peak_property_warning():
    """SciPy's own ``PeakPropertyWarning`` class, so filters written for
    SciPy catch ours (imported when first needed: importing it imports all
    of scipy.signal)."""
    from scipy.signal._peak_finding_utils import PeakPropertyWarning
    return PeakPropertyWarning


def __getattr__(name):
    if name == "PeakPropertyWarning":
        return _peak_property_warning()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["find_peaks", "peak_prominences", "peak_widths", "argrelmin",
           "argrelmax", "argrelextrema"]

_HERE = os.path.dirname(os.path.abspath(__file__))
THREADS = 256                    # gs_signal_peaks::kThreads
TILE = 256 * 8                   # gs_signal_peaks::kTile (samples per maxima tile)
COMPACT_ITEMS = 16
COMPACT_TILE = 256 * COMPACT_ITEMS
PEAK_THREADS = 128               # one thread per peak
MAX_ROWS = 16                    # gs_signal_peaks::kMaxRows
_I8 = numpy.dtype(numpy.int64)
_F8 = numpy.dtype(numpy.float64)
_U1 = numpy.dtype(numpy.uint8)

# find_peaks' float64 properties (the others are intp)
_FLOAT_PROPERTIES = frozenset({"peak_heights", "left_thresholds", "right_thresholds",
                               "prominences", "widths", "width_heights", "left_ips",
                               "right_ips"})

# comparator -> gs_signal_peaks::compare code
_COMPARATORS = {numpy.greater: 0, numpy.less: 1, numpy.greater_equal: 2,
                numpy.less_equal: 3, numpy.equal: 4, numpy.not_equal: 5}
for _k, _c in list(_COMPARATORS.items()):
    _COMPARATORS.setdefault(getattr(gp, _k.__name__), _c)


# ---------------------------------------------------------------- sources

_CUH = os.path.join(_HERE, "_peak_finding.cuh")


_WRAPPERS = """
#define GS_PEAKS_KERNEL extern "C" __global__ void __launch_bounds__(256)
GS_PEAKS_KERNEL gs_peaks_count(const double* x, long long n, long long nrow,
                               gs_signal_peaks::conds_t c, unsigned long long* total) {
  gs_signal_peaks::count_peaks(x, n, nrow, c, total);
}
GS_PEAKS_KERNEL gs_peaks_write(const double* x, long long n, long long nrow,
                               gs_signal_peaks::conds_t c, long long ntiles, void* state,
                               long long* out, long long cap, int r_height, int r_plateau,
                               int r_threshold, int r_channel) {
  gs_signal_peaks::write_peaks(x, n, nrow, c, ntiles, state, out, cap, r_height, r_plateau,
                               r_threshold, r_channel);
}
GS_PEAKS_KERNEL gs_peaks_compact(const unsigned char* flags, long long m, long long ntiles,
                                 void* state, gs_signal_peaks::rows_t src, int nrows,
                                 long long* dst, long long cap) {
  gs_signal_peaks::rows_action act;
  act.src = src; act.nrows = nrows; act.dst = dst; act.cap = cap;
  gs::scan::compact<unsigned char, %(items)d, 1>(flags, m, ntiles, state, act);
}
GS_PEAKS_KERNEL gs_peaks_summaries(const double* x, long long n, int lg, long long ntiles,
                                   long long* sm) {
  gs_signal_peaks::tile_summaries(x, n, lg, ntiles, sm);
}
GS_PEAKS_KERNEL gs_peaks_prominences(const double* x, long long n, const long long* peaks,
                                     long long m, long long wlen, gs_signal_peaks::tiles_t t,
                                     double* prom, long long* lb, long long* rb,
                                     gs_signal_peaks::bound_t cond, unsigned char* keep,
                                     unsigned long long* status) {
  gs_signal_peaks::prominences(x, n, peaks, m, wlen, t, prom, lb, rb, cond, keep, status);
}
GS_PEAKS_KERNEL gs_peaks_widths(const double* x, long long n, const long long* peaks,
                                long long m, double rel_height, const double* prom,
                                const long long* lb, const long long* rb,
                                gs_signal_peaks::tiles_t t, double* out, long long cap,
                                gs_signal_peaks::bound_t cond, unsigned char* keep,
                                unsigned long long* status) {
  gs_signal_peaks::widths(x, n, peaks, m, rel_height, prom, lb, rb, t, out, cap, cond, keep,
                          status);
}
"""

PEAK_KERNELS = ("gs_peaks_count", "gs_peaks_write", "gs_peaks_compact",
                "gs_peaks_summaries", "gs_peaks_prominences", "gs_peaks_widths",
                # _peak_finding_batch.cuh
                "gs_peaks_distance", "gs_peaks_prominences_rows", "gs_peaks_widths_rows",
                "gs_peaks_channel_counts", "gs_peaks_channel_offsets",
                "gs_peaks_summaries_warp")


@functools.lru_cache(maxsize=128)
def peaks_source():
    """CUDA source of the find_peaks kernels (one module; all float64):
    the two headers' text (``_peak_finding.cuh``, then the batch stages of
    ``_peak_finding_batch.cuh`` with their ``extern "C"`` kernels), then the
    other kernels of ``PEAK_KERNELS``."""
    return (read_source(_CUH) + read_source(os.path.join(_HERE, "_peak_finding_batch.cuh"))
            + _WRAPPERS % {"items": COMPACT_ITEMS})


@functools.lru_cache(maxsize=128)
def relextrema_source(dtype):
    """``(source, name)`` of the argrelextrema kernel for ``dtype``."""
    dt = numpy.dtype(dtype)
    name = f"gs_relextrema_{dt.name}"
    src = (f"{read_source(_CUH)}\n"
           f'extern "C" __global__ void __launch_bounds__(256)\n'
           f"{name}(const {ctype(dt)}* x, bool* out, long long outer, long long n,\n"
           f"     long long inner, long long order, int cmp, int wrap) {{\n"
           f"  gs_signal_peaks::relextrema(x, out, outer, n, inner, order, cmp, wrap);\n}}\n")
    return src, name


def _function(source, name):
    from gpuscipy_core.kernel import get_function
    return get_function(source, name)


def _kernel(name):
    """A find_peaks kernel (one of ``PEAK_KERNELS``), loaded."""
    return _function(peaks_source(), name)


def _blocks(count, threads):
    return (max(1, -(-count // threads)), 1, 1), (threads, 1, 1)


# ------------------------------------------------------------ arguments

def _on_device(a):
    return isinstance(a, gp.ndarray) or hasattr(a, "__cuda_array_interface__") or (
        hasattr(a, "__dlpack__") and not isinstance(a, numpy.ndarray))


def _x_as_expected(value):
    """``value`` as a C-contiguous float64 1-D device array (SciPy's
    ``np.asarray(value, order='C', dtype=np.float64)``, with its
    ComplexWarning for complex input)."""
    if _on_device(value):
        x = gp.asarray(value)
        if x.dtype.kind == "c":
            warnings.warn("Casting complex values to real discards the imaginary part",
                          numpy.exceptions.ComplexWarning, stacklevel=3)
            x = x.real
        if x.ndim != 1:
            raise ValueError("`x` must be a 1-D array")
        return gp.ascontiguousarray(x, dtype=_F8)
    h = numpy.asarray(value, order="C", dtype=numpy.float64)
    if h.ndim != 1:
        raise ValueError("`x` must be a 1-D array")
    return gp.asarray(h)


def _peaks_as_expected(value):
    """``value`` as a C-contiguous int64 (intp) 1-D device array, with
    SciPy's rules: empty input of any dtype is accepted, other dtypes must
    cast safely to intp."""
    if _on_device(value):
        p = gp.asarray(value)
        if p.size == 0:
            return gp.empty((0,), _I8)
        if not numpy.can_cast(p.dtype, numpy.intp, "safe"):
            raise TypeError("cannot safely cast `peaks` to dtype('intp')")
        if p.ndim != 1:
            raise ValueError("`peaks` must be a 1-D array")
        return gp.ascontiguousarray(p, dtype=_I8)
    h = numpy.asarray(value)
    if h.size == 0:
        h = numpy.array([], dtype=numpy.intp)
    try:
        h = h.astype(numpy.intp, order="C", casting="safe", subok=False, copy=False)
    except TypeError as e:
        raise TypeError("cannot safely cast `peaks` to dtype('intp')") from e
    if h.ndim != 1:
        raise ValueError("`peaks` must be a 1-D array")
    return gp.asarray(h)


def _wlen_as_expected(value):
    """SciPy's window length: -1 for None, else rounded up to an integer > 1."""
    if value is None:
        return -1
    if 1 < value:
        if isinstance(value, float):
            value = math.ceil(value)
        return int(numpy.intp(value))
    raise ValueError(f"`wlen` must be larger than 1, was {value}")


def _rel_height(value):
    if isinstance(value, (str, bytes)):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    value = float(value)
    if value < 0:
        raise ValueError("`rel_height` must be greater or equal to 0.0")
    return value


def _condition(interval, x_size):
    """``(imin, imax)`` of a find_peaks condition (SciPy's
    ``_unpack_condition_args``): each None, a float, or an x-sized array
    (NumPy or device, not yet converted)."""
    if isinstance(interval, gp.ndarray):
        # NumPy's unpacking: a length-2 axis gives scalars (1-D) or rows
        if interval.ndim >= 1 and interval.shape[0] == 2:
            if interval.ndim == 1:
                imin, imax = interval.get().tolist()
            else:
                imin, imax = interval[0], interval[1]
        else:
            imin, imax = interval, None
    else:
        try:
            imin, imax = interval
        except (TypeError, ValueError):
            imin, imax = interval, None
    return (_border(imin, x_size, "lower"), _border(imax, x_size, "upper"))


def _border(v, x_size, which):
    if v is None:
        return None
    if isinstance(v, (numpy.ndarray, gp.ndarray)):
        if v.size != x_size:
            raise ValueError(f"array size of {which} interval border must match x")
        return v
    a = numpy.asarray(v)
    if a.ndim != 0:
        raise ValueError(f"the {which} interval border must be a number or an array of "
                         "x's size (gpuscipy does not broadcast other sequences against "
                         "the peaks found so far)")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"the {which} interval border must be real, got {a.dtype}")
    return float(a)


def _device_bound(b):
    """A parsed condition with its arrays as contiguous float64 device arrays."""
    if b is None:
        return None

    def conv(v):
        if isinstance(v, (numpy.ndarray, gp.ndarray)):
            if v.dtype.kind == "c":
                v = v.real
            return gp.ascontiguousarray(v, dtype=_F8).reshape(-1)
        return v
    return conv(b[0]), conv(b[1])


def _pack_bound(b):
    """Bytes of a ``gs_signal_peaks::bound_t``."""
    def part(v):
        if v is None:
            return 0, 0.0, 0
        if isinstance(v, gp.ndarray):
            return v.ptr, 0.0, 2
        return 0, float(v), 1
    lo_p, lo, has_lo = part(None if b is None else b[0])
    hi_p, hi, has_hi = part(None if b is None else b[1])
    return struct.pack("<QQddii", lo_p, hi_p, lo, hi, has_lo, has_hi)


# ------------------------------------------------- distance (on the host)

def _window_max(v, lo, hi):
    """``out[i] = max(v[lo[i]:hi[i]])`` for non-empty windows (sparse table,
    one level kept at a time)."""
    w = hi - lo
    out = v[lo].copy()
    cur, span, wmax = v, 1, int(w.max()) if w.size else 0
    while 2 * span <= wmax:
        cur = numpy.maximum(cur[:-span], cur[span:])   # max(v[i:i + 2 span])
        span *= 2
        sel = numpy.flatnonzero((w >= span) & (w < 2 * span))
        out[sel] = numpy.maximum(cur[lo[sel]], cur[hi[sel] - span])
    return out


_PROBE = 1 << 16


def _greedy_round(peaks, rank, und, dd):
    """One round of the parallel greedy over the undecided peaks ``und``
    (indices into ``peaks``, increasing): the peaks highest-ranked in their
    window (kept) and the peaks their windows cover (decided), as masks
    over ``und``."""
    pu, ru = peaks[und], rank[und]
    k = und.size
    lo = numpy.searchsorted(pu, pu - dd, "right")
    hi = numpy.searchsorted(pu, pu + dd, "left")
    root = ru == _window_max(ru, lo, hi)
    cover = (numpy.bincount(lo[root], minlength=k + 1)
             - numpy.bincount(hi[root], minlength=k + 1))
    return root, numpy.cumsum(cover[:k]) > 0


def distance_samples(distance):
    """SciPy's ``distance`` in samples (int), or None when it removes
    nothing: SciPy converts ceil(distance) to intp, and NaN (which
    ``distance < 1`` lets through), inf and values >= 2^63 become x86's
    "integer indefinite" INT64_MIN, than which no two peaks are closer.
    Values above 2^62 (wider than any signal) are clipped to it."""
    if distance is None:
        return None
    d = numpy.ceil(numpy.float64(distance))
    if not d < 2.0 ** 63:
        return None
    return int(min(d, 2.0 ** 62))


def select_by_peak_distance(peaks, priority, distance):
    """Host selection of SciPy's ``distance`` condition.

    Parameters
    ----------
    peaks : ndarray of intp, increasing
    priority : ndarray of float64 (the peak heights)
    distance : float, >= 1 (rounded up, as SciPy does)

    Returns
    -------
    keep : ndarray of bool
        True for the peaks SciPy keeps: peaks are taken by decreasing
        priority (ties in the order of ``numpy.argsort(priority)``, the call
        SciPy makes) and each kept peak removes the peaks closer than
        ``distance``.
    """
    peaks = numpy.asarray(peaks, dtype=numpy.intp)
    m = peaks.size
    keep = numpy.ones(m, dtype=bool)
    dd = distance_samples(distance)
    if m < 2 or dd is None:
        return keep
    order = numpy.argsort(numpy.asarray(priority, dtype=numpy.float64))
    rank = numpy.empty(m, numpy.int64)
    rank[order] = numpy.arange(m)
    gaps = numpy.diff(peaks) < dd
    contested = numpy.zeros(m, bool)
    contested[:-1] |= gaps
    contested[1:] |= gaps
    und = numpy.flatnonzero(contested)   # isolated peaks are kept
    # rounds pay when they decide much at once (noise-like heights); where
    # the ranks climb steadily along the signal (equal heights that argsort
    # keeps in position order) each round decides a few peaks: a probe on
    # one stretch of the signal tells which case this is
    probe = und[:_PROBE] if und.size > 4 * _PROBE else und
    root, covered = _greedy_round(peaks, rank, probe, dd)
    if 4 * int(covered.sum()) >= probe.size:
        first = probe is und             # then the probe was round 1
        while und.size:
            if not first:
                root, covered = _greedy_round(peaks, rank, und, dd)
            first = False
            keep[und[covered & ~root]] = False
            rest = und[~covered]
            decided = und.size - rest.size
            und = rest
            if 4 * decided < decided + und.size:
                break
    if und.size:                         # sequential greedy over the rest
        k = und.size
        inv = numpy.empty(m, numpy.int64)
        inv[und] = numpy.arange(k)
        pu = peaks[und]                  # increasing: fast searches
        lo = numpy.searchsorted(peaks, pu - dd, "right")
        hi = numpy.searchsorted(peaks, pu + dd, "left")
        isund = numpy.zeros(m, bool)
        isund[und] = True
        pri = order[::-1]
        pri = pri[isund[pri]]            # undecided, highest priority first
        at = inv[pri]
        zeros = memoryview(bytes(int((hi - lo).max())))
        kb = bytearray(keep.view(numpy.uint8).tobytes())
        for j, a, b in zip(pri.tolist(), lo[at].tolist(), hi[at].tolist()):
            if kb[j]:
                kb[a:j] = zeros[:j - a]
                kb[j + 1:b] = zeros[:b - j - 1]
        keep = numpy.frombuffer(kb, dtype=bool).copy()
    return keep


# ------------------------------------------------------- device stages

def _state_words(m):
    """int64 words of the zeroed look-back state of a compaction of m rows."""
    return 2 + 2 * -(-m // COMPACT_TILE)


def _compact(table, keep, cap, state):
    """The rows of ``table`` (name -> int64 device array of length m) where
    the uint8 device mask ``keep`` is set, into a ``(len(table), cap)``
    buffer (row r = r-th name); the caller knows or reads the count.
    ``state``: zeroed int64 device words, at least ``_state_words(m)``."""
    names = list(table)
    m = keep.size
    out = gp.empty((len(names), cap), _I8)
    if m and cap:
        ntiles = -(-m // COMPACT_TILE)
        ptrs = [table[k].ptr for k in names] + [0] * (MAX_ROWS - len(names))
        _kernel("gs_peaks_compact")(
            (ntiles, 1, 1), (THREADS, 1, 1),
            (keep, m, ntiles, state, struct.pack(f"<{MAX_ROWS}Q", *ptrs),
             numpy.int32(len(names)), out, cap))
    return names, out


def _rows(names, buf, count):
    return {k: buf[r, :count] for r, k in enumerate(names)}


def tile_log2(n):
    """log2 of the summary tile for a signal of n samples, or None (short
    signals are walked sample by sample)."""
    if n < (1 << 12):
        return None
    return min(14, max(8, n.bit_length() // 2))


def _tiles(x):
    """``gs_signal_peaks::tiles_t`` bytes (and the buffer that backs them)."""
    n = x.size
    lg = tile_log2(n)
    if lg is None:
        return struct.pack("<QQQQi4x", 0, 0, 0, 0, 0), None
    ntiles = -(-n // (1 << lg))
    sm = gp.empty((4, ntiles), _I8)
    _kernel("gs_peaks_summaries")((ntiles, 1, 1), (THREADS, 1, 1),
                                  (x, n, numpy.int32(lg), ntiles, sm))
    return struct.pack("<QQQQi4x", sm[0].ptr, sm[1].ptr, sm[2].ptr, sm[3].ptr, lg), sm


def _launch_prominences(x, peaks, wlen, tiles, cond, keep, status):
    m = peaks.size
    out = gp.empty((3, m), _I8)
    if m:
        _kernel("gs_peaks_prominences")(
            *_blocks(m, PEAK_THREADS),
            (x, x.size, peaks, m, int(wlen), tiles, out[0], out[1], out[2],
             _pack_bound(cond), 0 if keep is None else keep, status))
    return out


def _launch_widths(x, peaks, rel_height, prom, lb, rb, tiles, cond, keep, status):
    m = peaks.size
    out = gp.empty((4, m), _I8)
    if m:
        _kernel("gs_peaks_widths")(
            *_blocks(m, PEAK_THREADS),
            (x, x.size, peaks, m, float(rel_height), prom, lb, rb, tiles, out, m,
             _pack_bound(cond), 0 if keep is None else keep, status))
    return out


def _warn(what):
    warnings.warn(f"some peaks have a {what} of 0", _peak_property_warning(), stacklevel=3)


def _first_invalid(status_word, peaks):
    """The peak value at the first invalid position a kernel reported."""
    p = peaks.size - int(status_word)
    return int(peaks[p:p + 1].get()[0])


# ------------------------------------------------------------ public API

def peak_prominences(x, peaks, wlen=None):
    """Calculate the prominence of each peak in a signal.

    The prominence of a peak is the vertical distance between the peak and
    its lowest contour line: the higher of the minima of ``x`` between the
    peak and the nearest higher sample (or the window edge) on each side.

    Parameters
    ----------
    x : array_like, 1-D
        A signal with peaks (converted to float64 as SciPy does; complex
        input is cast to its real part with a ``ComplexWarning``).
    peaks : array_like of int, 1-D
        Indices of peaks in ``x``.
    wlen : int or float, optional
        Window length in samples; a float is rounded up, and the window
        holds ``wlen // 2`` samples on each side of the peak.

    Returns
    -------
    prominences : ndarray, float64, shape (len(peaks),)
    left_bases, right_bases : ndarray, intp (int64), shape (len(peaks),)
        The minima that define the prominence on each side (the nearest
        of equal minima).

    Raises
    ------
    ValueError
        If ``x`` or ``peaks`` is not 1-D, a peak is not a valid index of
        ``x`` (SciPy's message names the first), or ``wlen <= 1``.
    TypeError
        If ``peaks`` cannot be cast safely to intp.

    Warns
    -----
    PeakPropertyWarning
        "some peaks have a prominence of 0".

    Notes
    -----
    One thread per peak; tile summaries of the signal let the walks cross
    whole tiles. The status (errors, warning) is read back: one device
    synchronisation.
    """
    x = _x_as_expected(x)
    peaks = _peaks_as_expected(peaks)
    wlen = _wlen_as_expected(wlen)
    out, _, _ = _prominences_checked(x, peaks, wlen)
    return out[0].view(_F8), out[1], out[2]


def _prominences_checked(x, peaks, wlen, read=True):
    """Prominence rows, the status words and the tile summaries (bytes and
    their buffer); SciPy's error and warning come from the status, read
    here unless ``read`` is False (then the caller reads it)."""
    status = gp.zeros((8,), _I8)
    if peaks.size == 0:
        return gp.empty((3, 0), _I8), status, None
    tiles = _tiles(x)
    out = _launch_prominences(x, peaks, wlen, tiles[0], None, None, status)
    if read:
        _prominence_status(status.get(), peaks)
    return out, status, tiles


def _prominence_status(st, peaks):
    if st[1]:
        raise ValueError(f"peak {_first_invalid(st[1], peaks)} is not a valid index for `x`")
    if st[2]:
        _warn("prominence")


def _prominence_data(data):
    """``prominence_data`` as device arrays, with the checks SciPy's typed
    arguments make (float64 / intp, 1-D, C-contiguous)."""
    data = tuple(data)
    if len(data) != 3:
        raise TypeError(f"_peak_widths() takes exactly 6 positional arguments "
                        f"({3 + len(data)} given)")
    out = []
    for a, dt in zip(data, (_F8, _I8, _I8)):
        if not isinstance(a, (numpy.ndarray, gp.ndarray)):
            raise TypeError(f"a bytes-like object is required, not '{type(a).__name__}'")
        if a.ndim != 1:
            raise ValueError(f"Buffer has wrong number of dimensions (expected 1, got {a.ndim})")
        if a.dtype != dt:
            raise ValueError(f"Buffer dtype mismatch, expected "
                             f"'{'float64_t' if dt == _F8 else 'intp_t'}' but got {a.dtype}")
        if not a.flags.c_contiguous:
            raise ValueError("ndarray is not C-contiguous")
        out.append(gp.asarray(a))
    return out


def peak_widths(x, peaks, rel_height=0.5, prominence_data=None, wlen=None):
    """Calculate the width of each peak in a signal.

    The width is measured at ``x[peak] - prominence * rel_height``, between
    the points where a horizontal line at that height meets the signal on
    each side (linear interpolation between samples), searching no further
    than the bases.

    Parameters
    ----------
    x : array_like, 1-D
        A signal with peaks (float64, as in SciPy).
    peaks : array_like of int, 1-D
        Indices of peaks in ``x``.
    rel_height : float, optional
        Relative height of the width line (0.5: half the prominence; 1: the
        lowest contour line). Must be >= 0.
    prominence_data : tuple of 3 arrays, optional
        ``(prominences, left_bases, right_bases)`` as returned by
        :func:`peak_prominences` (float64, intp, intp; 1-D, C-contiguous,
        same length as ``peaks``); computed when not given.
    wlen : int or float, optional
        Window length for the prominences when ``prominence_data`` is None.

    Returns
    -------
    widths, width_heights, left_ips, right_ips : ndarray, float64
        Widths in samples, the height of each width line, and the
        interpolated positions of its left and right ends.

    Raises
    ------
    ValueError
        Bad ``x``/``peaks``/``wlen`` (as in :func:`peak_prominences`),
        ``rel_height < 0``, ``prominence_data`` of the wrong dtype, shape or
        layout, or bases that do not satisfy
        ``0 <= left_base <= peak <= right_base < x.size``
        ("prominence data is invalid for peak ...").
    TypeError
        ``peaks`` not castable to intp, ``prominence_data`` not arrays.

    Warns
    -----
    PeakPropertyWarning
        "some peaks have a width of 0" (and "... prominence of 0" from the
        prominence step).
    """
    x = _x_as_expected(x)
    peaks = _peaks_as_expected(peaks)
    if prominence_data is None:
        wlen = _wlen_as_expected(wlen)
        prom, status, tiles = _prominences_checked(x, peaks, wlen, read=False)
        prom, lb, rb = prom[0], prom[1], prom[2]
        own = True
    else:
        prom, lb, rb = _prominence_data(prominence_data)
        status, own, tiles = gp.zeros((8,), _I8), False, None
    try:
        rel = _rel_height(rel_height)
    except (TypeError, ValueError):
        if own and peaks.size:
            _prominence_status(status.get(), peaks)
        raise
    if not (peaks.shape[0] == prom.shape[0] == lb.shape[0] == rb.shape[0]):
        raise ValueError("arrays in `prominence_data` must have the same shape as `peaks`")
    m = peaks.size
    if m == 0:
        return tuple(gp.empty((0,), _F8) for _ in range(4))
    tiles = _tiles(x) if tiles is None else tiles
    out = _launch_widths(x, peaks, rel, prom, lb, rb, tiles[0], None, None, status[4:])
    st = status.get()
    if own:
        _prominence_status(st, peaks)
    if st[5]:
        raise ValueError(f"prominence data is invalid for peak "
                         f"{_first_invalid(st[5], peaks)}")
    if st[7]:
        _warn("width")
    return tuple(out[r].view(_F8) for r in range(4))


def find_peaks(x, height=None, threshold=None, distance=None, prominence=None,
               width=None, wlen=None, rel_height=0.5, plateau_size=None):
    """Find peaks inside a signal based on peak properties.

    A peak is a local maximum: a sample (or the middle of a flat run of
    equal samples, rounded down) whose neighbours are both smaller. The
    first and last samples, plateaus touching them, and NaN are never
    peaks. The conditions are applied in SciPy's order: ``plateau_size``,
    ``height``, ``threshold``, ``distance``, ``prominence``, ``width``.

    Parameters
    ----------
    x : array_like, 1-D
        Signal with peaks (converted to float64 as SciPy does).
    height, threshold, prominence, width, plateau_size : number or ndarray or sequence, optional
        Required property of the peaks: a minimum, or a pair ``(min, max)``
        (None for an open side). An ndarray border must have ``x``'s size
        and is read at each peak's index. ``threshold`` is the vertical
        distance to the neighbouring samples, ``plateau_size`` the length of
        the flat top in samples, ``width`` in samples.
    distance : number, optional
        Minimal horizontal distance (>= 1, rounded up) between neighbouring
        peaks; higher peaks are kept first.
    wlen : int or float, optional
        Window length for the prominences (see :func:`peak_prominences`).
    rel_height : float, optional
        Relative height at which widths are measured (see
        :func:`peak_widths`); used only with ``width``.

    Returns
    -------
    peaks : ndarray, intp (int64)
        Indices of the peaks that meet all conditions, increasing.
    properties : dict
        The properties SciPy returns for the conditions given, in its order:
        plateau_sizes, left_edges, right_edges (intp), peak_heights,
        left_thresholds, right_thresholds, prominences (float64),
        left_bases, right_bases (intp), widths, width_heights, left_ips,
        right_ips (float64). Device arrays (views of one buffer per stage).

    Raises
    ------
    ValueError
        ``x`` not 1-D; ``distance < 1``; an array border whose size is not
        ``x.size``; ``wlen <= 1``; ``rel_height < 0`` (with ``width``).

    Warns
    -----
    PeakPropertyWarning
        "some peaks have a prominence of 0" / "... a width of 0".

    Differences from SciPy
    ----------------------
    A border that is neither a number nor an ndarray of ``x``'s size (a
    list of three numbers, say) raises ``ValueError``; SciPy would broadcast
    it against the properties of the peaks found up to that stage.

    Notes
    -----
    The stages of :func:`find_peaks_batch` on one channel: two device
    synchronisations (the number of peaks after the fused plateau, height
    and threshold conditions; the final count with the warnings), whatever
    the conditions. ``distance`` runs on the GPU unless the peaks it must
    choose between include two of equal height whose order decides the
    outcome; then it runs on the host with NumPy's argsort, the order SciPy
    uses (one more copy each way).
    """
    from ._peak_finding_batch import find_peaks_rows, stage_bound
    x = _x_as_expected(x)
    if distance is not None and distance < 1:
        raise ValueError("`distance` must be greater or equal to 1")
    n = x.size
    pl = _condition(plateau_size, n) if plateau_size is not None else None
    hb = _condition(height, n) if height is not None else None
    tb = _condition(threshold, n) if threshold is not None else None
    wl, rel, wb = -1, 0.5, None
    if prominence is not None or width is not None:
        wl = _wlen_as_expected(wlen)
    pb = _condition(prominence, n) if prominence is not None else None
    if width is not None:
        rel = _rel_height(rel_height)
        wb = _condition(width, n)
    pl, hb, tb, pb, wb = (stage_bound(_device_bound(b)) for b in (pl, hb, tb, pb, wb))
    rows, _, zero_prominence, zero_width = find_peaks_rows(
        x.reshape(1, n), pl, hb, tb, distance, pb, wb, wl, rel)
    if zero_prominence:
        _warn("prominence")
    if zero_width:
        _warn("width")
    peaks = rows.pop("peaks")
    return peaks, rows


# --------------------------------------------------------- argrelextrema

def _take_mode(mode):
    """NumPy's reading of a ``take`` mode ('clip', 'wrap' or 'raise'), with
    NumPy's own error for anything else."""
    probe = numpy.arange(2)
    try:
        v = probe.take([2], mode=mode)[0]
    except IndexError:
        return "raise"
    return "clip" if v == 1 else "wrap"


def argrelextrema(data, comparator, axis=0, order=1, mode="clip"):
    """Calculate the relative extrema of ``data``.

    An element is an extremum if ``comparator(data[n], data[n + k])`` and
    ``comparator(data[n], data[n - k])`` hold for k = 1 .. ``order`` along
    ``axis``.

    Parameters
    ----------
    data : array_like, N-d
        Array in which to find the relative extrema (any dtype; compared in
        its own dtype, complex lexicographically as NumPy does).
    comparator : callable
        ``numpy.greater``, ``less``, ``greater_equal``, ``less_equal``,
        ``equal`` or ``not_equal`` (or gpuscipy_core's functions of those
        names) run as one device kernel. Any other callable is called as
        SciPy calls it, with two device arrays (the data and the data
        shifted along ``axis``), and must return a boolean device array.
    axis : int, optional
        Axis over which to select from ``data``.
    order : int, optional
        How many points on each side to compare.
    mode : {'clip', 'wrap'}, optional
        Indices past the ends are clipped to them or wrap around
        (``numpy.take``'s modes; 'raise' raises ``IndexError`` as there).

    Returns
    -------
    extrema : tuple of ndarrays, intp (int64)
        Indices of the extrema, one array per dimension (``nonzero``'s
        layout).

    Raises
    ------
    ValueError
        ``order`` not an integer >= 1, or an unknown ``mode``.
    IndexError
        ``axis`` out of range (or 0-d data), or ``mode='raise'``.
    TypeError
        A float ``order`` (SciPy's ``range`` fails on it).
    """
    data = gp.asarray(data)
    if (int(order) != order) or (order < 1):
        raise ValueError("Order must be an int >= 1")
    datalen = data.shape[axis]
    how = _take_mode(mode)
    shifts = range(1, order + 1)
    ax = axis % data.ndim
    # beyond n shifts the clipped or wrapped neighbours repeat
    reach = min(len(shifts), max(datalen, 1))
    if how == "raise" and datalen:
        raise IndexError(f"index {datalen} is out of bounds for axis {ax} "
                         f"with size {datalen}")
    code = _COMPARATORS.get(comparator) if _hashable(comparator) else None
    if code is None:
        return _relextrema_generic(data, comparator, ax, shifts, how)
    data = gp.ascontiguousarray(data)
    shape = data.shape
    outer = math.prod(shape[:ax])
    inner = math.prod(shape[ax + 1:])
    mask = gp.empty(shape, numpy.bool_)
    if data.size:
        grid, block = _blocks(min(data.size, 1 << 24), THREADS)
        f = _function(*relextrema_source(data.dtype))
        f(grid, block, (data, mask, outer, datalen, inner, reach, numpy.int32(code),
                        numpy.int32(how == "wrap")))
    return gp.nonzero(mask)


def _relextrema_generic(data, comparator, axis, shifts, mode):
    """SciPy's algorithm on device arrays, for other comparators."""
    locs = gp.arange(data.shape[axis])
    results = gp.ones(data.shape, numpy.bool_)
    main = gp.take(data, locs, axis=axis, mode=mode)
    for shift in shifts:
        plus = gp.take(data, locs + shift, axis=axis, mode=mode)
        minus = gp.take(data, locs - shift, axis=axis, mode=mode)
        results &= gp.asarray(comparator(main, plus))
        results &= gp.asarray(comparator(main, minus))
        if not bool(results.any()):
            break
    return gp.nonzero(results)


def argrelmin(data, axis=0, order=1, mode="clip"):
    return argrelextrema(data, numpy.less, axis, order, mode)


def argrelmax(data, axis=0, order=1, mode="clip"):
    return argrelextrema(data, numpy.greater, axis, order, mode)


_ARGREL_DOC = """Relative {what} of ``data``: ``argrelextrema`` with ``numpy.{cmp}``.

    Parameters
    ----------
    data : array_like (device or host), N-d
        Array in which to find the relative {what}.
    axis : int, optional
        Axis along which to compare. Default 0.
    order : int, optional
        How many points on each side to compare (an int >= 1). Default 1.
    mode : {{'clip', 'wrap'}}, optional
        How the edges are treated: 'clip' (default) never counts an edge
        point as an extremum, 'wrap' wraps around the axis.

    Returns
    -------
    extrema : tuple of gpuscipy_core.ndarray, int64
        Indices of the {what}, one array per dimension of ``data`` (as
        ``numpy.nonzero`` returns them).

    Raises
    ------
    ValueError
        ``order`` < 1 ("Order must be an int >= 1"), an unknown ``mode``.

    Notes
    -----
    One comparison kernel and the core's ``nonzero`` (see
    :func:`argrelextrema`).
    """
argrelmin.__doc__ = _ARGREL_DOC.format(what="minima", cmp="less")
argrelmax.__doc__ = _ARGREL_DOC.format(what="maxima", cmp="greater")

