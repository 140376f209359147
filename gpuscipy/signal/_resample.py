"""Resampling: ``resample`` (Fourier method, cuFFT) and ``resample_poly``
(polyphase filtering, the upfirdn kernel).

``resample`` follows SciPy's spectral bookkeeping step for step on device
arrays (one-sided FFT for real input, the unpaired Nyquist bin doubled or
halved, the optional spectral window folded for the one-sided case).

``resample_poly`` designs its low-pass filter on the host with
``scipy.signal.firwin`` (cached per rates, window and dtype, and kept on the
device per stream), and runs one launch of the upfirdn kernel that computes
only the kept outputs (SciPy filters the whole signal and slices). The
``padtype`` backgrounds ('mean', 'median', 'minimum', 'maximum') are one
device reduction; subtracting and adding them back happens inside the
kernel when that gives SciPy's arithmetic exactly (the difference ``x - bg``
computed in the output dtype), otherwise ``x - bg`` is formed first.
:func:`model_resample_poly` runs the same host-side set-up and the NumPy
model of the kernel, for the CPU tests.
"""

import math

import numpy

from . import _upfirdn as U
from ._arraytools import LRUCache
from ._arraytools import hashable as _hashable

__all__ = ["resample", "resample_poly", "resample_impl", "spectral_window",
           "centring", "design_filter",
           "background_dtype", "model_resample_poly", "BACKGROUNDS"]

#: padtypes that subtract a per-signal background (SciPy's ``funcs``).
BACKGROUNDS = ("mean", "median", "minimum", "maximum")
_CACHE_SIZE = 32


# ------------------------------------------------------------ host set-up

_design_cache = LRUCache(_CACHE_SIZE)


def design_filter(up, down, window, x_dtype):
    """resample_poly's designed filter as SciPy makes it: ``firwin(2*half_len
    + 1, 1/max_rate, window=window)`` with ``half_len = 10*max_rate``, cast
    to `x`'s dtype when it is floating or complex (float64 otherwise), times
    ``up`` in that dtype. Returns ``(h, half_len)``; ``h`` is a read-only
    host array, cached when ``window`` is hashable."""
    x_dtype = numpy.dtype(x_dtype)
    key = (up, down, window, x_dtype.str) if _hashable(window) else None
    hit = _design_cache.get(key)
    if hit is not None:
        return hit
    from scipy.signal import firwin
    max_rate = max(up, down)
    half_len = 10 * max_rate
    h = firwin(2 * half_len + 1, 1.0 / max_rate, window=window)
    h = numpy.asarray(h, dtype=x_dtype if x_dtype.kind in "fc" else numpy.float64)
    h *= up
    h.flags.writeable = False
    return _design_cache.put(key, (h, half_len))


def centring(len_h, half_len, n_in, up, down):
    """SciPy's zero padding that centres the output on the filter:
    ``(h_pre, len_total, out_start, n_out)`` (pre-padding, padded filter
    length, first kept output of the full upfirdn result, output length).

    The post-padding is SciPy's loop (grow until the full output covers the
    kept range) in closed form:
    ``max(0, (target - 1)*down - (n_in - 1)*up - (len_h + h_pre) + 1)``.
    """
    n_out = n_in * up
    n_out = n_out // down + bool(n_out % down)
    h_pre = down - half_len % down
    out_start = (half_len + h_pre) // down
    target = n_out + out_start
    post = max(0, (target - 1) * down - (n_in - 1) * up - (len_h + h_pre) + 1)
    return h_pre, len_h + h_pre + post, out_start, n_out


def background_dtype(padtype, x_dtype):
    """Dtype of the background NumPy computes for ``padtype``: mean and
    median give float64 for bool and integers, the input dtype otherwise;
    minimum and maximum keep the input dtype."""
    x_dtype = numpy.dtype(x_dtype)
    if padtype in ("mean", "median") and x_dtype.kind in "biu":
        return numpy.dtype(numpy.float64)
    return x_dtype


def _window_filter(window):
    """(h, half_len) of an explicit filter (list or array), SciPy's checks,
    before the ``*= up``; ``h`` a new host or device array."""
    import gpuscipy_core as gp
    if isinstance(window, gp.ndarray):
        h = window.copy()
    else:
        h = numpy.array(window, copy=True)
    if h.ndim > 1:
        raise ValueError("window must be 1-D")
    if h.ndim == 0:
        raise IndexError("tuple index out of range")   # SciPy's h.shape[0]
    return h, (h.size - 1) // 2


def _is_array(obj):
    return isinstance(obj, (numpy.ndarray, numpy.generic)) or hasattr(
        obj, "__array_namespace__")


# ---------------------------------------------------------- device pieces

_device_cache = LRUCache(_CACHE_SIZE)


def _device_taps(h, dtype, key):
    """``h`` as a contiguous device array of ``dtype``; designed filters are
    kept per (design key, dtype, device, stream) so repeated calls make no
    host-to-device copy."""
    import gpuscipy_core as gp
    if isinstance(h, gp.ndarray):
        return gp.ascontiguousarray(h.astype(dtype, copy=False))
    if key is None:
        return gp.asarray(numpy.ascontiguousarray(h, dtype=dtype))
    from gpuscipy_core.cuda import get_current_stream_ptr, get_device_id
    full = (key, numpy.dtype(dtype).str, get_device_id(), get_current_stream_ptr())
    hit = _device_cache.get(full)
    if hit is not None:
        return hit
    return _device_cache.put(full, gp.asarray(numpy.ascontiguousarray(h, dtype=dtype)))


def _median(x, axis):
    """``numpy.median(x, axis, keepdims=True)`` on the device: the mean of
    the middle one or two sorted samples, NaN where the signal holds NaN."""
    import gpuscipy_core as gp
    n = x.shape[axis]
    if n == 0:
        return gp.mean(x, axis=axis, keepdims=True)
    s = gp.sort(x, axis=axis)
    k = n // 2
    lead = (slice(None),) * axis
    mid = s[lead + (slice(k - 1, k + 1) if n % 2 == 0 else slice(k, k + 1),)]
    med = gp.mean(mid, axis=axis, keepdims=True)
    if x.dtype.kind in "fc":
        last = s[lead + (slice(n - 1, n),)]
        med = gp.where(gp.isnan(last), numpy.nan, med)
    return med


def _background(padtype, x, axis):
    import gpuscipy_core as gp
    if padtype == "mean":
        return gp.mean(x, axis=axis, keepdims=True)
    if padtype == "median":
        return _median(x, axis)
    if padtype == "minimum":
        return gp.min(x, axis=axis, keepdims=True)
    return gp.max(x, axis=axis, keepdims=True)


# ----------------------------------------------------------- resample_poly

def resample_poly(x, up, down, axis=0, window=("kaiser", 5.0), padtype="constant",
                  cval=None):
    """Resample `x` along the given axis using polyphase filtering.

    The signal is upsampled by `up`, filtered by a zero-phase low-pass FIR
    filter, and downsampled by `down` (in one polyphase pass; the
    upsampled signal is never formed). The output rate is ``up / down``
    times the input rate.

    Parameters
    ----------
    x : array_like or device array
        The data to be resampled (bool, integer, float16/32/64 or
        complex64/128).
    up : int
        The upsampling factor.
    down : int
        The downsampling factor.
    axis : int, optional
        The axis of `x` that is resampled. Default 0.
    window : string, tuple, or array_like, optional
        The window of the designed low-pass filter (``scipy.signal.firwin``
        of ``20*max_rate + 1`` taps, cutoff ``1/max_rate``, on the host), or
        the FIR filter itself (a list or a host or device 1-D array),
        applied at ``up`` times the input rate.
    padtype : str, optional
        ``'constant'``, ``'line'``, ``'mean'``, ``'median'``, ``'maximum'``,
        ``'minimum'`` or another `upfirdn` mode: the values assumed beyond
        the boundaries. The background padtypes subtract the per-signal
        mean, median, maximum or minimum, pad with zeros, and add it back.
    cval : float, optional
        The value beyond the boundaries for ``padtype='constant'``.
        Default 0.

    Returns
    -------
    resampled_x : gpuscipy_core.ndarray
        ``ceil(n * up / down)`` samples along `axis` (after dividing `up`
        and `down` by their gcd; a copy of `x` when both become 1). Dtype
        ``result_type(h, x - background, float32)``: float64 for integer
        input with the designed filter, float32 for float16/float32.

    Raises
    ------
    ValueError
        `up` or `down` not an integer or < 1, `cval` given with another
        padtype, an unknown padtype, a window array that is not 1-D.
    IndexError
        `axis` out of range.
    TypeError
        An unsupported dtype or a `cval` that is not a number.

    Notes
    -----
    The filter, its centring pad and the cropped range are SciPy's, so the
    outputs are SciPy's to rounding. One kernel launch computes only the
    kept outputs (plus one reduction for a background padtype).

    References
    ----------
    .. [1] R. E. Crochiere and L. R. Rabiner, *Multirate Digital Signal
       Processing*, Prentice Hall, 1983.
    """
    import gpuscipy_core as gp
    if not isinstance(x, gp.ndarray):
        x = numpy.asarray(x)       # validated on the host, copied over below
    if up != int(up):
        raise ValueError("up must be an integer")
    if down != int(down):
        raise ValueError("down must be an integer")
    up = int(up)
    down = int(down)
    if up < 1 or down < 1:
        raise ValueError("up and down must be >= 1")
    if cval is not None and padtype != "constant":
        raise ValueError("cval has no effect when padtype is ", padtype)
    g = math.gcd(up, down)
    up //= g
    down //= g
    if up == down == 1:
        return x.copy() if isinstance(x, gp.ndarray) else gp.asarray(x)
    n_in = x.shape[axis]
    key = None
    if isinstance(window, list) or _is_array(window):
        h, half_len = _window_filter(window)
        h *= up
    else:
        h, half_len = design_filter(up, down, window, x.dtype)
        if _hashable(window):
            key = (up, down, window, x.dtype.str)
    h_pre, len_total, out_start, n_out = centring(h.shape[0], half_len, n_in, up, down)
    if padtype in BACKGROUNDS:
        mode, cval_ = 0, 0
    elif padtype in U.MODES:
        mode = U.MODE_CODES[padtype]
        cval_ = (0 if cval is None else cval) if padtype == "constant" else 0
    else:
        raise ValueError("padtype must be one of: maximum, mean, median, minimum, "
                         + ", ".join(U.MODES))
    axis = axis % x.ndim
    bg_sub = bg_add = None
    if padtype in BACKGROUNDS:
        x = gp.asarray(x)
        bg = _background(padtype, x, axis)
        ts = numpy.result_type(x.dtype, bg.dtype)
        dt = U.result_dtype(h.dtype, ts)
        U.check_dtype(dt)
        bg_t = gp.ascontiguousarray(bg.astype(dt, copy=False)).reshape(-1)
        bg_add = bg_t
        if ts == dt:
            bg_sub = bg_t            # T(x) - T(bg) is NumPy's x - bg exactly
        else:
            x = x - bg               # NumPy's dtype rules (and errors)
    else:
        dt = U.result_dtype(h.dtype, x.dtype)
        U.check_dtype(dt)
    cval_ = U.cval_scalar(cval_, dt)
    x = gp.asarray(x)
    taps = _device_taps(h, dt, key)
    return U.apply(x, taps, up, down, axis, mode, cval_, dt, h_pre=h_pre,
                   len_total=len_total, out_start=out_start, out_len=n_out,
                   bg_sub=bg_sub, bg_add=bg_add)


def model_resample_poly(x, up, down, window=("kaiser", 5.0), padtype="constant",
                        cval=None, plan=None):
    """NumPy model of :func:`resample_poly` for a 1-D host signal: the same
    host set-up (gcd, filter, centring, background rule) and
    :func:`_upfirdn.model_apply` for the kernel."""
    x = numpy.asarray(x)
    g = math.gcd(up, down)
    up //= g
    down //= g
    if up == down == 1:
        return x.copy()
    if isinstance(window, list) or _is_array(window):
        h, half_len = _window_filter(window)
        h *= up
    else:
        h, half_len = design_filter(up, down, window, x.dtype)
    h_pre, len_total, out_start, n_out = centring(h.shape[0], half_len, len(x), up, down)
    kw = dict(h_pre=h_pre, len_total=len_total, out_start=out_start, out_len=n_out,
              plan=plan)
    if padtype in BACKGROUNDS:
        bg = {"mean": numpy.mean, "median": numpy.median, "minimum": numpy.min,
              "maximum": numpy.max}[padtype](x)
        bg = numpy.asarray(bg)
        ts = numpy.result_type(x.dtype, bg.dtype)
        dt = U.result_dtype(h.dtype, ts)
        if ts == dt:
            return U.model_apply(x, h, up, down, 0, 0, dt, bg_sub=bg, bg_add=bg, **kw)
        return U.model_apply(x - bg, h, up, down, 0, 0, dt, bg_add=bg, **kw)
    dt = U.result_dtype(h.dtype, x.dtype)
    c = (0 if cval is None else cval) if padtype == "constant" else 0
    return U.model_apply(x, h, up, down, U.MODE_CODES[padtype], c, dt, **kw)


# ---------------------------------------------------------------- resample

_window_cache = LRUCache(_CACHE_SIZE)


def spectral_window(window, n):
    """``fftshift(get_window(window, n))`` as float64, on the host (read-only;
    cached when ``window`` is hashable)."""
    from scipy.fft import fftshift
    from scipy.signal import get_window
    key = (window, n) if _hashable(window) else None
    hit = _window_cache.get(key)
    if hit is not None:
        return hit
    w = numpy.ascontiguousarray(fftshift(get_window(window, n)), dtype=numpy.float64)
    w.flags.writeable = False
    return _window_cache.put(key, w)


def resample(x, num, t=None, axis=0, window=None, domain="time"):
    """Resample `x` to `num` samples using the Fourier method along `axis`.

    The FFT of `x` is cut or zero-padded to `num` bins (the unpaired
    Nyquist bin of an even length split into a bin pair or a bin pair
    united), then inverse transformed; `x` is assumed periodic.

    Parameters
    ----------
    x : array_like or device array
        Equidistant samples (or their FFT when ``domain='freq'``).
    num : int
        Number of output samples.
    t : array_like, optional
        Timestamps of `x`; only ``t[0]`` and ``t[1]`` are used. When given,
        the output timestamps ``t[0] + (t[1]-t[0]) * n_x/num * arange(num)``
        are returned too.
    axis : int, optional
        The time/frequency axis. Default 0 (ignored for 1-D `x`, as SciPy).
    window : array_like, callable, string, float, or tuple, optional
        Spectral window ``W`` applied to the FFT: an array of ``n_x``
        values, a callable of the frequencies ``fftfreq(n_x)`` (passed as a
        device array), or a ``scipy.signal.get_window`` spec (designed on
        the host, fftshifted). For real input the window is folded to one
        side (mean of the ``+f`` and ``-f`` values).
    domain : {'time', 'freq'}, optional
        Whether `x` holds samples or an FFT already. Default 'time'.

    Returns
    -------
    x_r : gpuscipy_core.ndarray
        `num` samples along `axis`: real for real time-domain input
        (float32 for float16/float32), complex otherwise.
    t_r : gpuscipy_core.ndarray, optional
        The output timestamps, when `t` is given.

    Raises
    ------
    ValueError
        Unknown `domain`; a window array whose shape is not ``(n_x,)``; an
        empty `x`.
    ZeroDivisionError
        ``num == 0``.

    Differences from SciPy
    ----------------------
    A callable `window` receives the frequencies as a device array (SciPy
    passes a NumPy array).

    Notes
    -----
    One-sided (``rfft``/``irfft``) transforms for real time-domain input,
    two-sided otherwise, on cuFFT through `gpuscipy.fft`.
    """
    import gpuscipy_core as gp
    from gpuscipy import fft as gfft
    return resample_impl(x, num, t, axis, window, domain, gp, gfft)


def resample_impl(x, num, t, axis, window, domain, xp, fft):
    """:func:`resample` over the array namespace ``xp`` and FFT module
    ``fft`` (``gpuscipy_core`` and ``gpuscipy.fft`` on the GPU; the CPU
    tests run it with ``numpy`` and ``scipy.fft``). Host inputs are
    checked before they are copied to ``xp``."""
    if domain not in ("time", "freq"):
        raise ValueError(f"Parameter {domain=} not in ('time', 'freq')!")
    if not isinstance(x, xp.ndarray):
        x = numpy.asarray(x)
    if x.ndim > 1:
        x = (xp if isinstance(x, xp.ndarray) else numpy).moveaxis(x, axis, -1)
    n_x = x.shape[-1]
    s_fac = n_x / num
    m = min(num, n_x)
    m2 = m // 2 + 1
    if window is None:
        W = None
    elif callable(window):
        W = xp.asarray(window(fft.fftfreq(n_x)))
    elif hasattr(window, "shape"):
        if window.shape != (n_x,):
            raise ValueError(f"{window.shape=} != ({n_x},), i.e., window length "
                             "is not equal to number of frequency bins!")
        W = window.copy() if isinstance(window, xp.ndarray) else xp.asarray(window)
    else:
        W = xp.asarray(spectral_window(window, n_x)).copy()
    x = xp.asarray(x)
    if domain == "time" and x.dtype.kind != "c":
        X = fft.rfft(x)
        if W is not None:
            n_X = X.shape[-1]
            W[1:n_X] += xp.flip(W[-n_X + 1:]).copy()
            W[1:n_X] /= 2
            X *= W[:n_X]
        X = X[..., :m2]
        if m % 2 == 0 and num != n_x:
            X[..., m // 2] *= 2 if num < n_x else 0.5
        x_r = fft.irfft(X / s_fac, n=num, overwrite_x=True)
    else:
        if W is not None:
            # Transform at the precision of the windowed result (SciPy 1.18
            # returns a complex64 input windowed by a float64 window to
            # double-precision accuracy; 1.17 transforms in single first).
            x = x.astype(numpy.result_type(x.dtype, W.dtype), copy=False)
        X = fft.fft(x) if domain == "time" else x
        if W is not None:
            X = X * W
        Y = xp.zeros(X.shape[:-1] + (num,), dtype=X.dtype)
        Y[..., :m2] = X[..., :m2]
        if m2 < m:
            Y[..., m2 - m:] = X[..., m2 - m:]
        if m % 2 == 0:
            if num < n_x:
                Y[..., -m // 2] += X[..., -m // 2]
            elif n_x < num:
                Y[..., m // 2] /= 2
                Y[..., num - m // 2] = Y[..., m // 2]
        x_r = fft.ifft(Y / s_fac, n=num, overwrite_x=True)
    if x_r.ndim > 1:
        x_r = xp.moveaxis(x_r, -1, axis)
    if t is not None:
        if not isinstance(t, xp.ndarray):
            t = xp.asarray(numpy.asarray(t)[:2])
        return x_r, t[0] + (t[1] - t[0]) * s_fac * xp.arange(num)
    return x_r
