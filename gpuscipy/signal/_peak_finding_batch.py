"""Peak finding over many channels at once, and the GPU stages of find_peaks.

``find_peaks_batch`` (a gpuscipy extension; SciPy has no batched
``find_peaks``) finds the peaks of every channel of an ``(..., n)`` array
-- SciPy's ``find_peaks`` applied to each ``x[c]`` -- in one pass of kernels
over all channels, and returns them CSR-style. ``find_peaks`` (1-D,
SciPy's semantics and errors, in ``_peak_finding``) runs the same stages on
one channel.

Stages (kernels in ``_peak_finding.cuh`` and ``_peak_finding_batch.cuh``)
-------------------------------------------------------------------------
1. Local maxima with the plateau, height and threshold conditions fused:
   a count kernel over all samples (channel edges act as signal ends), one
   device synchronisation for the count, and one pass of a decoupled
   look-back compaction that writes each candidate's channel-local index,
   channel and properties at its rank (Merrill & Garland 2016).
2. ``distance``: one block per channel runs SciPy's greedy selection as
   rounds of a parallel maximal independent set (Blelloch, Fineman & Shun
   2012) in an order that ranks equal heights by position. The result
   depends on the order of equal heights only when some removed peak has no
   kept neighbour of strictly greater height within the distance; such
   channels (and any that need more than ``MAX_ROUNDS`` rounds) are
   flagged on the device and redone on the host with NumPy's argsort, the
   order SciPy uses (``_peak_finding.select_by_peak_distance``).
3. Prominences and widths: one thread per candidate still kept, the walks
   of the 1-D kernels clamped to the channel, with their conditions. The
   stages pass keep masks on; nothing is compacted between them.
4. Per-channel counts of the last mask, copied to the host with the status
   words (warnings, flagged channels) in one copy -- the second and last
   synchronisation -- then one compaction of every property row.

References
----------
D. Merrill and M. Garland, "Single-pass Parallel Prefix Scan with Decoupled
Look-back", NVIDIA NVR-2016-002, 2016.
G. E. Blelloch, J. T. Fineman and J. Shun, "Greedy Sequential Maximal
Independent Set and Matching are Parallel on Average", SPAA 2012.
"""

import math
import struct
import warnings

import numpy

import gpuscipy_core as gp

from . import _peak_finding as _pf

__all__ = ["find_peaks_batch"]

THREADS = 256
DISTANCE_THREADS = 256           # one block per channel
DISTANCE_THREADS_LARGE = 1024    # a single channel
MAX_ROUNDS = 128                 # distance rounds before a channel goes to the host
STATUS = 16                      # status words: distance, prominences, widths
_I8 = numpy.dtype(numpy.int64)
_F8 = numpy.dtype(numpy.float64)
_U1 = numpy.dtype(numpy.uint8)
_PER_SAMPLE, _PER_CHANNEL = 2, 3  # gs_signal_peaks::bound_t array kinds


def _function(source, name):
    from gpuscipy_core.kernel import get_function
    return get_function(source, name)


def _kernel(name):
    return _function(_pf.peaks_source(), name)


def _grid(count, threads=THREADS):
    return (max(1, -(-count // threads)), 1, 1), (threads, 1, 1)


# ------------------------------------------------------------ borders

def _pack(b):
    """Bytes of a ``gs_signal_peaks::bound_t`` for a stage border ``(lo, hi)``, each
    None, a float, or ``(device float64 array, kind)``."""
    def part(v):
        if v is None:
            return 0, 0.0, 0
        if isinstance(v, tuple):
            return v[0].ptr, 0.0, v[1]
        return 0, float(v), 1
    lo_p, lo, has_lo = part(None if b is None else b[0])
    hi_p, hi, has_hi = part(None if b is None else b[1])
    return struct.pack("<QQddii", lo_p, hi_p, lo, hi, has_lo, has_hi)


def stage_bound(b):
    """A parsed 1-D border (``_peak_finding._device_bound``: None, floats or
    x-sized device arrays) as a stage border."""
    if b is None:
        return None
    return tuple(v if v is None or isinstance(v, float) else (v, _PER_SAMPLE) for v in b)


def _is_array(v):
    return isinstance(v, (numpy.ndarray, gp.ndarray)) or _pf._on_device(v)


def _batch_condition(interval, shape, name):
    """``(lo, hi)`` stage borders of a find_peaks_batch condition."""
    lead = shape[:-1]
    channels = math.prod(lead)
    if isinstance(interval, (tuple, list)) and len(interval) == 2:
        lo, hi = interval
    elif _is_array(interval) or isinstance(interval, (tuple, list)):
        a = interval if _is_array(interval) else numpy.asarray(interval)
        if _pf._on_device(a):
            a = gp.asarray(a)
        if a.shape in (shape, lead, (channels,)) or a.ndim == 0:
            lo, hi = a, None
        elif a.shape[0] == 2:
            # SciPy's unpacking of an array (min, max): two numbers or rows
            lo, hi = (a.get().tolist() if isinstance(a, gp.ndarray) else a.tolist()) \
                if a.ndim == 1 else (a[0], a[1])
        else:
            raise ValueError(_border_message(name, "lower", shape))
    else:
        lo, hi = interval, None
    return (_batch_border(lo, shape, name, "lower"), _batch_border(hi, shape, name, "upper"))


def _border_message(name, which, shape):
    return (f"the {which} interval border of `{name}` must be a number, an array of "
            f"shape {shape[:-1]} (one value per channel) or an array of x's shape {shape}")


def _batch_border(v, shape, name, which):
    if v is None:
        return None
    if _is_array(v):
        a = gp.asarray(v) if _pf._on_device(v) else v
        if a.ndim == 0:
            v = a.get() if isinstance(a, gp.ndarray) else a
        else:
            if a.shape == shape:
                kind = _PER_SAMPLE
            elif a.shape == shape[:-1] or (a.ndim == 1 and a.size == math.prod(shape[:-1])):
                kind = _PER_CHANNEL
            else:
                raise ValueError(_border_message(name, which, shape))
            if a.dtype.kind == "c":
                a = a.real
            if a.dtype.kind not in "biuf":
                raise TypeError(f"the {which} interval border of `{name}` must be real, "
                                f"got {a.dtype}")
            return gp.ascontiguousarray(gp.asarray(a), dtype=_F8).reshape(-1), kind
    a = numpy.asarray(v)
    if a.ndim != 0:
        raise ValueError(_border_message(name, which, shape))
    if a.dtype.kind not in "biuf":
        raise TypeError(f"the {which} interval border of `{name}` must be real, got {a.dtype}")
    return float(a)


def _x_batch(value):
    """``value`` as a C-contiguous float64 device array, with its shape."""
    if _pf._on_device(value):
        x = gp.asarray(value)
        if x.dtype.kind == "c":
            warnings.warn("Casting complex values to real discards the imaginary part",
                          numpy.exceptions.ComplexWarning, stacklevel=3)
            x = x.real
        if x.ndim == 0:
            raise ValueError("`x` must have at least one dimension")
        return gp.ascontiguousarray(x, dtype=_F8), x.shape
    h = numpy.asarray(value, order="C", dtype=numpy.float64)
    if h.ndim == 0:
        raise ValueError("`x` must have at least one dimension")
    return gp.asarray(h), h.shape


# ------------------------------------------------------------ stages

_ORDER = ("plateau_sizes", "left_edges", "right_edges", "peak_heights", "left_thresholds",
          "right_thresholds", "prominences", "left_bases", "right_bases", "widths",
          "width_heights", "left_ips", "right_ips")


def _summaries(x, nrow):
    """``gs_signal_peaks::tiles_t`` bytes for the walks (tiles of 2^lg samples, lg
    from the channel length) and the buffer behind them."""
    lg = _pf.tile_log2(nrow)
    if lg is None:
        return struct.pack("<QQQQi4x", 0, 0, 0, 0, 0), None
    n = x.size
    ntiles = -(-n // (1 << lg))
    sm = gp.empty((4, ntiles), _I8)
    if lg <= 10:      # many small tiles: a warp each
        _kernel("gs_peaks_summaries_warp")(*_grid(32 * ntiles),
                                           (x, n, numpy.int32(lg), ntiles, sm))
    else:
        _kernel("gs_peaks_summaries")((ntiles, 1, 1), (THREADS, 1, 1),
                                      (x, n, numpy.int32(lg), ntiles, sm))
    return struct.pack("<QQQQi4x", sm[0].ptr, sm[1].ptr, sm[2].ptr, sm[3].ptr, lg), sm


def find_peaks_rows(x, plateau=None, height=None, threshold=None, distance=None,
                    prominence=None, width=None, wlen=-1, rel_height=0.5):
    """The find_peaks stages on the channels of ``x``.

    Parameters
    ----------
    x : device ndarray, float64, C-contiguous, shape (channels, n)
    plateau, height, threshold, prominence, width : stage borders or None
        ``(lo, hi)``, each None, a float or ``(device float64 array,
        kind)`` with kind 2 (per sample, x's size) or 3 (per channel);
        None: the condition is not asked for.
    distance : number or None
        SciPy's ``distance`` (already checked to be >= 1, or NaN).
    wlen : int
        Parsed window length (-1: none).
    rel_height : float
        Parsed relative height (used with ``width``).

    Returns
    -------
    rows : dict
        ``"peaks"`` (int64, channel-local indices) and the properties SciPy
        returns for the conditions given, in its order, flat over the
        channels (device arrays, views of one buffer).
    offsets : numpy.ndarray, int64, shape (channels + 1,)
        Channel ``c``'s peaks are ``rows[k][offsets[c]:offsets[c + 1]]``.
    zero_prominence, zero_width : bool
        Whether SciPy would warn "some peaks have a prominence / width of 0".
    """
    channels, n = x.shape
    total_n = channels * n
    multi = channels > 1
    d = _pf.distance_samples(distance)
    need_h = height is not None or d is not None
    need_prom = prominence is not None or width is not None
    row_of, r = {}, 1
    for key, size, want in (("channel", 1, multi), ("heights", 1, need_h),
                            ("plateau", 3, plateau is not None),
                            ("threshold", 2, threshold is not None)):
        if want:
            row_of[key], r = r, r + size
    conds = _pack(plateau) + _pack(height) + _pack(threshold)

    # 1. candidates (one sync: their number)
    m = 0
    if n >= 3 and channels:
        ntiles = -(-total_n // _pf.TILE)
        state = gp.zeros((2 + 2 * ntiles + 1,), _I8)   # look-back state, then the count
        count = state[2 + 2 * ntiles:]
        _kernel("gs_peaks_count")((ntiles, 1, 1), (THREADS, 1, 1),
                                  (x, total_n, n, conds, count))
        m = int(count.get()[0])
    buf = gp.empty((r, m), _I8)
    if m:
        _kernel("gs_peaks_write")(
            (ntiles, 1, 1), (THREADS, 1, 1),
            (x, total_n, n, conds, ntiles, state, buf, m,
             *(numpy.int32(row_of.get(k, -1))
               for k in ("heights", "plateau", "threshold", "channel"))))
    table = {"peaks": buf[0]}
    if plateau is not None:
        for i, k in enumerate(_ORDER[:3]):
            table[k] = buf[row_of["plateau"] + i]
    if height is not None:
        table["peak_heights"] = buf[row_of["heights"]]
    if threshold is not None:
        table["left_thresholds"] = buf[row_of["threshold"]]
        table["right_thresholds"] = buf[row_of["threshold"] + 1]
    if m == 0:
        rows = dict(table)
        for k in _ORDER[6:9] if need_prom else ():
            rows[k] = gp.empty((0,), _I8)
        for k in _ORDER[9:] if width is not None else ():
            rows[k] = gp.empty((0,), _I8)
        return _typed(rows), numpy.zeros(channels + 1, numpy.int64), False, False

    chan = buf[row_of["channel"]] if multi else None
    heights = buf[row_of["heights"]] if need_h else None
    # status words, per-channel counts and the final compaction's look-back
    # state, zeroed at once; the first STATUS + channels words come back.
    # The state's 16-byte tile descriptors need a 16-byte aligned start: the
    # counts take an even number of words.
    state_at = STATUS + channels + (channels & 1)
    scratch = gp.zeros((state_at + _pf._state_words(m),), _I8)
    offsets = None
    if multi:
        offsets = gp.empty((channels + 1,), _I8)
        _kernel("gs_peaks_channel_offsets")(*_grid(m + 1), (chan, m, channels, offsets))

    # 2. distance
    dmask = flags = None
    if d is not None and m > 1:
        sel = gp.empty((2, m), _U1)
        dmask = sel[0]
        flags = gp.empty((channels,), _U1)
        # one channel: the whole GPU is this block's, and each round's
        # dependent loads are spread over more threads
        threads = DISTANCE_THREADS if multi else DISTANCE_THREADS_LARGE
        _kernel("gs_peaks_distance")(
            (channels, 1, 1), (threads, 1, 1),
            (buf[0], heights, 0 if offsets is None else offsets, m, d,
             numpy.int32(MAX_ROUNDS), dmask, sel[1], scratch[STATUS:STATUS + channels],
             flags, scratch[:2]))

    # 3. prominences, widths; 4. counts (the second sync)
    stage = _Filters(x, buf[0], chan, m, wlen, rel_height, prominence, width, need_prom)
    mask, extra = stage.run(dmask, scratch, offsets, channels)
    host = scratch[:STATUS + channels].get()
    counts = host[STATUS:]
    if host[1]:
        # channels whose result depends on the order of equal heights:
        # SciPy's selection on the host, then stage 3 again
        dmask, counts = _host_distance(buf[0], heights, dmask, flags, offsets, m, distance)
        scratch = gp.zeros((state_at + _pf._state_words(m),), _I8)
        mask, extra = stage.run(dmask, scratch, offsets, channels)
        if mask is dmask:
            host = numpy.zeros(STATUS, numpy.int64)
        else:
            host = scratch[:STATUS + channels].get()
            counts = host[STATUS:]
    out_offsets = numpy.zeros(channels + 1, numpy.int64)
    numpy.cumsum(counts, out=out_offsets[1:])
    total = int(out_offsets[-1])

    table.update(extra)
    if mask is None:
        rows = table
    else:
        names, out = _pf._compact(table, mask, total, scratch[state_at:])
        rows = _pf._rows(names, out, total)
    return _typed(rows), out_offsets, bool(host[8 + 2]), bool(host[12 + 3])


def _typed(rows):
    return {k: (v.view(_F8) if k in _pf._FLOAT_PROPERTIES else v) for k, v in rows.items()}


class _Filters:
    """Stage 3 and the per-channel counts, runnable twice (the second time
    with the host's distance mask)."""

    def __init__(self, x, peaks, chan, m, wlen, rel_height, prominence, width, need_prom):
        self.x, self.peaks, self.chan, self.m = x, peaks, chan, m
        self.wlen, self.rel = int(wlen), float(rel_height)
        self.prominence, self.width, self.need_prom = prominence, width, need_prom
        self.tiles = None

    def run(self, pre, scratch, offsets, channels):
        """Launch the stages on the candidates kept by ``pre`` (a uint8
        device mask or None); returns the final mask and the property rows.
        The counts of ``pre`` itself are the distance stage's (or the
        host's): only a later mask is counted here."""
        x, m, chan = self.x, self.m, self.chan
        status = scratch[:STATUS]
        mask, extra = pre, {}
        if self.need_prom:
            if self.tiles is None:
                self.tiles = _summaries(x, x.shape[1])
            tiles = self.tiles[0]
            prom = gp.empty((3, m), _I8)
            keep = gp.empty((m,), _U1) if self.prominence is not None else None
            _kernel("gs_peaks_prominences_rows")(
                *_grid(m, _pf.PEAK_THREADS),
                (x, x.shape[1], self.peaks, 0 if chan is None else chan, m, self.wlen, tiles,
                 0 if pre is None else pre, prom[0], prom[1], prom[2], _pack(self.prominence),
                 0 if keep is None else keep, status[8:12]))
            extra.update(prominences=prom[0], left_bases=prom[1], right_bases=prom[2])
            if keep is not None:
                mask = keep
            if self.width is not None:
                wout = gp.empty((4, m), _I8)
                keep = gp.empty((m,), _U1)
                _kernel("gs_peaks_widths_rows")(
                    *_grid(m, _pf.PEAK_THREADS),
                    (x, x.shape[1], self.peaks, 0 if chan is None else chan, m, self.rel,
                     prom[0], prom[1], prom[2], tiles, 0 if mask is None else mask, wout, m,
                     _pack(self.width), keep, status[12:16]))
                extra.update(widths=wout[0], width_heights=wout[1], left_ips=wout[2],
                             right_ips=wout[3])
                mask = keep
        if mask is None or mask is not pre:
            _kernel("gs_peaks_channel_counts")(
                (channels, 1, 1), (THREADS, 1, 1),
                (0 if mask is None else mask, 0 if offsets is None else offsets, m,
                 scratch[STATUS:STATUS + channels]))
        return mask, extra


def _host_distance(peaks, heights, dmask, flags, offsets, m, distance):
    """The distance mask (a device array) and its per-channel counts, with
    the flagged channels selected on the host as SciPy selects them."""
    fl = numpy.flatnonzero(flags.get())
    pos = peaks.get()
    h = heights.get().view(numpy.float64)
    keep = dmask.get()
    off = offsets.get() if offsets is not None else numpy.array([0, m], numpy.int64)
    for c in fl.tolist():
        a, b = int(off[c]), int(off[c + 1])
        keep[a:b] = _pf.select_by_peak_distance(pos[a:b], h[a:b], distance)
    keep = (keep == 1).astype(numpy.uint8)
    cs = numpy.zeros(m + 1, numpy.int64)
    numpy.cumsum(keep, out=cs[1:])
    return gp.asarray(keep), cs[off[1:]] - cs[off[:-1]]


# ------------------------------------------------------------ public API

def find_peaks_batch(x, height=None, threshold=None, distance=None, prominence=None,
                     width=None, wlen=None, rel_height=0.5, plateau_size=None):
    """Find the peaks of every channel of a batch of signals at once.

    A gpuscipy extension (SciPy has no batched :func:`scipy.signal.find_peaks`).

    Channel ``c`` (row ``c`` of ``x`` reshaped to ``(channels, n)``, the
    leading axes flattened in C order) gets exactly the peaks and properties
    of ``scipy.signal.find_peaks(x[c], ...)``; all channels are processed
    together by one pass of kernels, and the results come back CSR-style.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Signals along the last axis (converted to float64 as SciPy does;
        complex input is cast to its real part with a ``ComplexWarning``).
        A 1-D ``x`` is one channel.
    height, threshold, prominence, width, plateau_size : optional
        As in ``find_peaks``: a minimum, or a pair ``(min, max)`` (a tuple
        or list; None for an open side). Each border is a number, an array
        of shape ``x.shape[:-1]`` (or ``(channels,)``): one value per
        channel, or an array of ``x``'s shape: one value per sample, read at
        each peak. An array whose first axis has length 2 and that matches
        neither shape is unpacked into ``(min, max)`` as SciPy does.
    distance : number, optional
        Minimal horizontal distance (>= 1, rounded up) between neighbouring
        peaks of a channel; higher peaks are kept first.
    wlen : int or float, optional
        Window length for the prominences (see ``peak_prominences``).
    rel_height : float, optional
        Relative height at which widths are measured; used with ``width``.

    Returns
    -------
    peaks : gpuscipy_core.ndarray, int64, shape (total,)
        The peaks of all channels, channel after channel, each as an index
        within its channel (increasing within a channel).
    offsets : numpy.ndarray, int64, shape (channels + 1,)
        Channel ``c``'s peaks are ``peaks[offsets[c]:offsets[c + 1]]``
        (host array: the lengths are known on the host anyway).
    properties : dict of gpuscipy_core.ndarray, shape (total,)
        ``find_peaks``' properties for the conditions given, in its order,
        flat like ``peaks`` (indices channel-local: ``left_bases``,
        ``right_bases``, ``left_edges``, ``right_edges``, ``left_ips``,
        ``right_ips``).

    Raises
    ------
    ValueError
        ``x`` 0-d; ``distance < 1``; a border of another shape; ``wlen <=
        1``; ``rel_height < 0`` (with ``width``).
    TypeError
        A non-real border.

    Warns
    -----
    PeakPropertyWarning
        "some peaks have a prominence of 0" / "... a width of 0" (any
        channel), as ``find_peaks`` warns.

    Notes
    -----
    Two device synchronisations: the number of candidates after the fused
    conditions, and one copy of the per-channel counts with the status
    words. ``distance`` runs on the GPU; channels where SciPy's choice
    depends on how NumPy's argsort orders equal heights (two conflicting
    candidates of equal height decide which survives) are redone on the
    host, as ``find_peaks`` does (one more copy). See
    ``docs/signal-peaks.md``.

    References
    ----------
    G. E. Blelloch, J. T. Fineman and J. Shun, "Greedy Sequential Maximal
    Independent Set and Matching are Parallel on Average", SPAA 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuscipy.signal import find_peaks_batch
    >>> x = np.array([[0, 2, 0, 3, 0, 1, 0], [0, 1, 0, 0, 5, 0, 0]], float)
    >>> peaks, offsets, props = find_peaks_batch(x, height=[1.5, 0.5])
    >>> offsets
    array([0, 2, 4])
    """
    x, shape = _x_batch(x)
    if distance is not None and distance < 1:
        raise ValueError("`distance` must be greater or equal to 1")
    n = shape[-1]
    x2 = x.reshape(math.prod(shape[:-1]), n)

    def cond(v, name):
        return None if v is None else _batch_condition(v, shape, name)
    pl = cond(plateau_size, "plateau_size")
    hb = cond(height, "height")
    tb = cond(threshold, "threshold")
    wl = _pf._wlen_as_expected(wlen) if (prominence is not None or width is not None) else -1
    pb = cond(prominence, "prominence")
    rel = 0.5
    if width is not None:
        rel = _pf._rel_height(rel_height)
    wb = cond(width, "width")
    rows, offsets, zp, zw = find_peaks_rows(x2, pl, hb, tb, distance, pb, wb, wl, rel)
    if zp:
        _pf._warn("prominence")
    if zw:
        _pf._warn("width")
    peaks = rows.pop("peaks")
    return peaks, offsets, rows
