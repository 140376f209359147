"""Host-side pieces of the spectral functions: windows, ShortTimeFFT
parameter objects, caches of their device copies, the median bias, the
NOLA check of istft, and the parameter rules SciPy applies before any data
is touched (``triage_segments``).

Nothing here reads signal data. Windows come from
``scipy.signal.get_window`` on the host; their device copies are cached by
(what the window is, its length, scaling, dtype, device), so a repeated
call uploads nothing.
"""

import warnings

import numpy

from .._lazy import scipy_signal as _ss

from ._arraytools import LRUCache

__all__ = ["host_array", "window_key", "host_window", "triage_segments", "stft_plan",
           "device_copy", "median_bias", "istft_norm", "nola_ok"]

_CACHE_MAX = 64
_host_cache = LRUCache(_CACHE_MAX)     # (window, nperseg) -> read-only ndarray
_sft_cache = LRUCache(_CACHE_MAX)      # parameters -> ShortTimeFFT
_dev_cache = LRUCache(_CACHE_MAX)      # (key, dtype, device) -> device array


def host_array(a):
    """A window or breakpoints given as an array, on the host (a device
    array is copied back: it is small)."""
    if hasattr(a, "__cuda_array_interface__") and not isinstance(a, numpy.ndarray):
        import gpuscipy_core as gp
        return gp.asnumpy(a)
    return numpy.asarray(a)


def window_key(window):
    """The cache key of a window given by name (str or tuple), else None."""
    if isinstance(window, (str, tuple)):
        try:
            hash(window)
        except TypeError:
            return None
        return ("w", type(window).__name__, window)
    return None


def host_window(window, nperseg):
    """``scipy.signal.get_window(window, nperseg)``, cached (read-only)."""
    wk = window_key(window)
    key = None if wk is None else (wk, int(nperseg))
    w = _host_cache.get(key)
    if w is None:
        w = _ss.get_window(window, nperseg)
        w.setflags(write=False)
        _host_cache.put(key, w)
    return w


def triage_segments(window, nperseg, input_length, stacklevel):
    """SciPy's ``_triage_segments`` (legacy spectrogram/stft): the window
    array and nperseg, with SciPy's warning when nperseg is longer than the
    input and its errors for array windows."""
    if isinstance(window, (str, tuple)):
        if nperseg is None:
            nperseg = 256
        if nperseg > input_length:
            warnings.warn(f'nperseg = {nperseg:d} is greater than input length '
                          f' = {input_length:d}, using nperseg = {input_length:d}',
                          stacklevel=stacklevel + 1)
            nperseg = input_length
        win = host_window(window, nperseg)
    else:
        win = host_array(window)
        if len(win.shape) != 1:
            raise ValueError('window must be 1-D')
        if input_length < win.shape[-1]:
            raise ValueError('window is longer than input signal')
        if nperseg is None:
            nperseg = win.shape[0]
        elif nperseg is not None:
            if nperseg != win.shape[0]:
                raise ValueError("value specified for nperseg is different"
                                 " from length of window")
    return win, nperseg


def stft_plan(win, wkey, hop, fs, fft_mode, nfft, scale_to):
    """The ``ShortTimeFFT`` that ``scipy.signal.csd`` builds (its checks,
    scaled window ``.win`` and frequencies ``.f``), cached when the window
    was given by name."""
    key = None
    if wkey is not None:
        key = (wkey, len(win), hop, type(fs).__name__, fs, fft_mode, nfft, scale_to)
    sft = _sft_cache.get(key)
    if sft is None:
        sft = _ss.ShortTimeFFT(win, hop, fs, fft_mode=fft_mode, mfft=nfft, scale_to=scale_to,
                           phase_shift=None)
        _sft_cache.put(key, sft)
    return sft


def device_copy(be, key, make, dtype):
    """``make()`` (a host array) as a ``dtype`` array of backend ``be``; on the
    device cached under ``key`` (None: not cached) per dtype and device."""
    dtype = numpy.dtype(dtype)
    if not be.is_device:
        return numpy.asarray(make(), dtype)
    from gpuscipy_core.cuda import get_device_id
    full = None if key is None else (key, dtype.str, get_device_id())
    d = _dev_cache.get(full)
    if d is None:
        d = be.asarray(numpy.ascontiguousarray(make(), dtype))
        _dev_cache.put(full, d)
    return d


def median_bias(n):
    """Bias of the median of n chi-square(2) samples against their mean,
    ``sum_{k=1}^{n} (-1)^(k+1) / k`` (scipy.signal.welch's correction for
    average='median'), summed as SciPy sums it."""
    even = 2.0 * numpy.arange(1.0, (n - 1) // 2 + 1)
    return 1 + numpy.sum(1.0 / (even + 1) - 1.0 / even)


def istft_norm(win2, nstep, nseg, nperseg, t):
    """The summed squared window at output samples ``t`` (array), summed in
    segment order from 0 as scipy.signal.istft does (``win2`` = win**2)."""
    t = numpy.asarray(t, numpy.int64)
    norm = numpy.zeros(t.shape, win2.dtype)
    p_hi = numpy.minimum(t // nstep, nseg - 1)
    lo_num = t - nperseg + 1
    p_lo = numpy.where(lo_num <= 0, 0, -(-lo_num // nstep))
    for d in range(-(-nperseg // nstep) + 1):
        p = p_lo + d
        ok = p <= p_hi
        k = numpy.where(ok, t - p * nstep, 0)
        norm = numpy.where(ok, norm + win2[k], norm)
    return norm


def nola_ok(win2, nstep, nseg, nperseg, start, stop):
    """Whether every output sample in [start, stop) has a summed squared
    window > 1e-10 (istft's NOLA test), from at most ~2 nperseg + nstep
    evaluations: in the interior [max(0, nperseg - nstep), nseg nstep) every
    sample sees all its segments, so the sum depends only on t mod nstep
    and one period of it stands for the rest."""
    if stop <= start:
        return True
    i0, i1 = max(0, nperseg - nstep), nseg * nstep
    lo, hi = max(start, i0), min(stop, i1)
    if hi - lo <= nstep:
        pts = [numpy.arange(start, stop)]
    else:
        pts = [numpy.arange(start, lo), numpy.arange(lo, lo + nstep),
               numpy.arange(hi, stop)]
    t = numpy.concatenate(pts)
    norm = istft_norm(win2, nstep, nseg, nperseg, t)
    thr = norm.dtype.type(1e-10) if norm.dtype.kind == "f" else 1e-10
    return bool(numpy.all(norm.real > thr))
