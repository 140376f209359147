"""Spectral analysis on the GPU: periodogram, welch, csd, coherence,
spectrogram, stft, istft (``scipy.signal``'s signatures, defaults, scaling,
warnings and errors).

Method (every function; kernels in ``_spectral_kernels.cuh``)
-------------------------------------------------------------
1. Parameters are resolved on the host exactly as SciPy resolves them
   (``csd``/``welch`` through a cached ``scipy.signal.ShortTimeFFT``, whose
   scaled window and frequencies are used as they are; ``spectrogram`` and
   ``stft`` through SciPy's legacy rules). No signal data is read there.
2. One ``frames`` kernel writes the FFT input: segment s of line b is
   samples ``s * hop + k`` of the line (boundary extension and padding folded
   into the index map, no copy of the signal), detrended per segment (mean or
   least-squares line, moments in double), windowed, zero padded to nfft.
   Strided, broadcast and negative-stride inputs are read in place.
3. One batched cuFFT transform of all segments (R2C, or C2C for complex or
   two-sided output).
4. One reduction kernel pass: the mean over segments of ``|X|^2`` or
   ``Y conj(X)`` (chunked partial sums in double, then a fixed-order final
   sum with the one-sided doubling), or a tiled transpose to SciPy's
   (..., freq, time) layout with the power/scale/magnitude/angle operation;
   ``average='median'`` selects medians by radix selection on the device;
   ``mode='phase'`` unwraps along frequency in place.
5. ``istft``: batched inverse FFT (``gpuscipy.fft``), then one overlap-add
   kernel that gathers each output sample's segments in order and divides by
   the summed squared window; the NOLA test runs on the host from the window
   alone (a handful of samples represent the periodic interior).

Frequencies and times are computed on the host (as SciPy computes them) and
returned as device arrays.

References: P. D. Welch, "The use of fast Fourier transform for the
estimation of power spectra", IEEE Trans. Audio Electroacoust. 15(2), 1967;
D. W. Griffin and J. S. Lim, "Signal estimation from modified short-time
Fourier transform", IEEE TASSP 32(2), 1984 (overlap-add inverse).
"""

import warnings
from math import prod

import numpy
from scipy import fft as _sp_fft

from . import _spectral_host as H
from . import _spectral_kernels as _device

__all__ = ["periodogram", "welch", "csd", "coherence", "spectrogram", "stft", "istft"]

# The backend the public functions run on: the device (``_spectral_kernels``).
# The CPU tests swap in ``_spectral_models`` (NumPy models of the kernels) to
# run the public functions end to end without a GPU.
_BE = _device

# boundary extension modes of the frames kernel (legacy stft)
_BOUNDARY = {'even': 1, 'odd': 2, 'constant': 3, 'zeros': 0, None: None}


# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------

def _asarray(be, a):
    if be.is_device:
        import gpuscipy_core as gp
        return a if isinstance(a, gp.ndarray) else gp.asarray(a)
    return numpy.asarray(a)


def _real_dtype(out_dtype):
    return numpy.dtype(numpy.dtype(out_dtype).char.lower())


def _frames_input(be, xm, out_dtype, two_sided):
    """``(x, TO)``: the lines cast to the kernel's input type and the frame
    buffer type. Real compute: the real type of ``out_dtype``; two-sided:
    complex frames (real input is read as real)."""
    r = _real_dtype(out_dtype)
    c = numpy.dtype(r.char.upper())
    if xm.dtype.kind == "c":
        t, to = c, c
    else:
        t, to = r, (c if two_sided else r)
    if xm.dtype != t:
        xm = xm.astype(t)
    return xm, to


def _spectra(be, xm, hop, nseg, nperseg, nfft, win_dev, dmode, detrend_call, out_dtype,
             two_sided, pre=0, post=0, bmode=0):
    """FFT of the detrended, windowed segments of the lines of ``xm`` (axis
    last): ``(B * nseg, nf)`` complex."""
    xm, to = _frames_input(be, xm, out_dtype, two_sided)
    if detrend_call is None:
        fr = be.frames(xm, pre, post, bmode, hop, nseg, nperseg, nfft, win_dev, dmode, to)
    else:
        outer = xm.shape[:-1]
        raw = be.frames(xm, pre, post, bmode, hop, nseg, nperseg, nperseg, None, 0, xm.dtype)
        seg = raw.reshape(outer + (nseg, nperseg))
        d = _asarray(be, detrend_call(seg))
        if d.shape != seg.shape:
            raise ValueError(f"detrend returned shape {d.shape}, expected {seg.shape}")
        d = d.reshape(prod(outer) * nseg, nperseg)
        if d.dtype != xm.dtype:
            d = d.astype(xm.dtype)
        fr = be.frames(d, 0, 0, 0, nperseg, 1, nperseg, nfft, win_dev, 0, to)
    kind = "C2C" if numpy.dtype(to).kind == "c" else "R2C"
    X = be.fft(fr, kind, nfft)
    if dmode == 2 and detrend_call is None and not be.all_finite(X):
        # SciPy fits each segment's line with scipy.linalg.lstsq, whose
        # check_finite raises; a segment holding an inf or NaN has a NaN line
        # and so an all-NaN spectrum here, so X is finite iff every segment is
        # (short of an overflow in the FFT itself).
        raise ValueError("array must not contain infs or NaNs")
    return X


def _doubling(onesided, nfft, nf):
    """The frequencies [lo, hi) a one-sided spectrum doubles."""
    if not onesided:
        return 0, 0
    return 1, (nf - 1 if nfft % 2 == 0 else nf)


# ---------------------------------------------------------------------------
# csd / welch (scipy.signal.csd's ShortTimeFFT route)
# ---------------------------------------------------------------------------

def _detrend_mode_sft(detrend):
    """``(mode, callable)`` for csd's ``detr`` (False -> None) or the
    error ShortTimeFFT.stft_detrend raises; an unknown trend name is
    returned as mode -1 (SciPy raises when the first segment is detrended)."""
    detr = None if detrend is False else detrend
    if isinstance(detr, str):
        if detr in ('linear', 'l'):
            return 2, None
        if detr in ('constant', 'c'):
            return 1, None
        return -1, None
    if detr is None:
        return 0, None
    if callable(detr):
        return 0, detr
    raise ValueError(f"Parameter detr={detr!r} is not a str, function or " + "None!")


def _csd_impl(be, x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
              scaling, axis, average, same_data, level):
    axis = int(axis)
    x = _asarray(be, x)
    if not same_data:
        y = _asarray(be, y)
        x_outer, y_outer = list(x.shape), list(y.shape)
        x_outer.pop(axis)
        y_outer.pop(axis)
        try:
            outer_shape = numpy.broadcast_shapes(x_outer, y_outer)
        except ValueError as e:
            raise ValueError('x and y cannot be broadcast together.') from e
        if x.size == 0 or y.size == 0:
            out_shape = outer_shape + (min([x.shape[axis], y.shape[axis]]),)
            empty_out = _asarray(be, numpy.moveaxis(numpy.empty(out_shape), -1, axis))
            return empty_out, empty_out
        out_dtype = numpy.result_type(x.dtype, y.dtype, numpy.complex64)
    else:
        if x.size == 0:
            return be.xp.empty(x.shape), be.xp.empty(x.shape)
        out_dtype = numpy.result_type(x.dtype, numpy.complex64)

    n = x.shape[axis] if same_data else max(x.shape[axis], y.shape[axis])
    wkey = H.window_key(window)
    if isinstance(window, str) or isinstance(window, tuple):
        nperseg = int(nperseg) if nperseg is not None else 256
        if nperseg < 1:
            raise ValueError(f"Parameter {nperseg=} is not a positive integer!")
        elif n < nperseg:
            warnings.warn(f"{nperseg=} is greater than signal length max(len(x), "
                          f"len(y)) = {n}, using nperseg = {n}", stacklevel=level + 1)
            nperseg = n
        win = H.host_window(window, nperseg)
    else:
        win = H.host_array(window)
        if nperseg is None:
            nperseg = len(win)
    if nperseg != len(win):
        raise ValueError(f"{nperseg=} does not equal {len(win)=}")
    nfft = int(nfft) if nfft is not None else nperseg
    if nfft < nperseg:
        raise ValueError(f"{nfft=} must be greater than or equal to {nperseg=}!")
    noverlap = int(noverlap) if noverlap is not None else nperseg // 2
    if noverlap >= nperseg:
        raise ValueError(f"{noverlap=} must be less than {nperseg=}!")
    if x.dtype.kind == "c" and return_onesided:
        return_onesided = False
    fft_mode = 'onesided' if return_onesided else 'twosided'
    if scaling not in (scales := {'spectrum': 'magnitude', 'density': 'psd'}):
        raise ValueError(f"Parameter {scaling=} not in {scales}!")
    _check_window_real(win)
    sft = H.stft_plan(win, wkey, nperseg - noverlap, fs, fft_mode, nfft, scales[scaling])
    hop = sft.hop
    p1 = (n - noverlap) // hop

    # ShortTimeFFT.spectrogram(y, x, ...) runs stft_detrend(y) first (then
    # x, which passes the same checks): its checks, in its order
    first = x if same_data else y
    if sft.onesided_fft and first.dtype.kind == "c":
        raise ValueError(f"Complex-valued `x` not allowed for self.fft_mode={fft_mode!r}'! "
                         "Set property `fft_mode` to 'twosided' or 'centered'.")
    dmode, dcall = _detrend_mode_sft(detrend)
    m2p = sft.m_num - sft.m_num_mid
    if not n >= m2p:
        shape = list(first.shape)
        shape[axis] = n
        e_str = f'len(x)={n}' if first.ndim == 1 else f'of {axis=} of {tuple(shape)}'
        raise ValueError(f"{e_str} must be >= ceil(m_num/2) = {m2p}!")
    sft.p_range(n, 0, p1)
    if dmode == -1:
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    nseg = p1
    if nseg > 1 and average not in ('median', 'mean'):
        raise ValueError(f"Parameter {average=} must be 'median' or 'mean'!")

    rdt = _real_dtype(out_dtype)
    win_dev = H.device_copy(be, None if wkey is None else ("sft", wkey, nperseg, fs, scaling),
                            lambda: sft.win.real, rdt)
    xm = be.xp.moveaxis(x, axis, -1)
    if same_data:
        outer = xm.shape[:-1]
    else:
        ym = be.xp.moveaxis(y, axis, -1)
        outer = tuple(outer_shape)
        xm = be.xp.broadcast_to(xm, outer + (xm.shape[-1],))
        ym = be.xp.broadcast_to(ym, outer + (ym.shape[-1],))
    B = prod(outer)
    two_sided = not return_onesided
    X = _spectra(be, xm, hop, nseg, nperseg, nfft, win_dev, dmode, dcall, out_dtype, two_sided)
    Y = None
    if not same_data:
        Y = _spectra(be, ym, hop, nseg, nperseg, nfft, win_dev, dmode, dcall, out_dtype,
                     two_sided)
    nf = X.shape[-1]
    dlo, dhi = _doubling(return_onesided, nfft, nf)
    res_dtype = rdt if same_data else numpy.dtype(out_dtype)
    if nseg > 1 and average == 'median':
        P = be.transpose_op(X, Y, B, nseg, nf, "power" if same_data else "cross", 1.0, dlo, dhi)
        out = be.median(P, H.median_bias(nseg))
    else:
        out = be.power_mean(X, Y, B, nseg, nf, dlo, dhi, res_dtype)
    out = be.xp.moveaxis(out.reshape(outer + (nf,)), -1, axis)
    f = H.device_copy(be, ("f", fft_mode, nfft, type(fs).__name__, fs), lambda: sft.f,
                      numpy.float64)
    return f, out


def _check_window_real(win):
    if numpy.iscomplexobj(win) and numpy.any(numpy.imag(win) != 0):
        raise NotImplementedError("complex-valued windows are not supported on the GPU")




def csd(x, y, fs=1.0, window='hann_periodic', nperseg=None, noverlap=None, nfft=None,
        detrend='constant', return_onesided=True, scaling='density', axis=-1,
        average='mean'):
    r"""Estimate the cross power spectral density, Pxy, using Welch's method.

    Parameters
    ----------
    x, y : array_like
        Time series (device arrays, or anything ``gpuscipy_core.asarray``
        takes); any dtype SciPy accepts. The axes other than ``axis`` are
        broadcast against each other; the shorter signal along ``axis`` is
        zero padded to the longer one.
    fs, window : see :func:`welch`.
    nperseg : int, optional
        Length of each segment. Default 256 for a window given by name (the
        signal length, with a ``UserWarning``, when that is longer), else
        the window's length.
    noverlap : int, optional
        Points to overlap between segments. Default ``nperseg // 2``.
    nfft : int, optional
        Length of the FFT (zero padding). Default ``nperseg``.
    detrend : str or function or False, optional
        'constant' (default) or 'linear' removes the mean or the
        least-squares line of each segment; False or None nothing. A
        function receives the device array of all segments, shape
        ``(..., nseg, nperseg)``, and returns one of the same shape.
    return_onesided : bool, optional
        One-sided spectrum for real data (default); complex data always give
        a two-sided one.
    scaling : {'density', 'spectrum'}, optional
        Cross spectral density (V**2/Hz) or cross spectrum (V**2).
    axis : int, optional
        Axis along which the CSD is computed. Default -1.
    average : {'mean', 'median'}, optional
        Averaging of the segments' periodograms; 'median' is corrected by
        SciPy's bias factor (real and imaginary parts separately).

    Returns
    -------
    f : gpuscipy_core.ndarray
        Sample frequencies, float64.
    Pxy : gpuscipy_core.ndarray
        Cross spectral density or cross power spectrum, complex64 for
        single-precision inputs (float32, complex64, small integers), else
        complex128; real when ``x is y``. The frequency axis replaces ``axis``.

    Raises
    ------
    ValueError
        For SciPy's bad parameters (nperseg < 1, noverlap >= nperseg,
        nfft < nperseg, unknown scaling, average or trend type, shapes that
        do not broadcast, a complex ``y`` with a real ``x`` and
        ``return_onesided=True``), with SciPy's messages. Window errors are
        ``scipy.signal.get_window``'s and ``ShortTimeFFT``'s. With
        ``detrend='linear'``, a segment holding an inf or NaN ("array must
        not contain infs or NaNs": SciPy's least-squares fit refuses it).

    Notes
    -----
    Segments start every ``nperseg - noverlap`` samples; there are
    ``(n - noverlap) // (nperseg - noverlap)`` of them, as in SciPy.
    Single-precision inputs are computed in single precision (SciPy computes
    in double and rounds); sums over segments are accumulated in double.

    Differences from SciPy
    ----------------------
    A ``detrend`` function is called once with every segment (SciPy calls it
    once per segment). Complex windows are not supported.

    References
    ----------
    P. D. Welch, "The use of the fast Fourier transform for the estimation
    of power spectra", IEEE Trans. Audio Electroacoust. 15(2), 70-73, 1967.
    """
    same = y is x
    return _csd_impl(_BE, x, y, fs, window, nperseg, noverlap, nfft, detrend,
                     return_onesided, scaling, axis, average, same, 3)


def welch(x, fs=1.0, window='hann_periodic', nperseg=None, noverlap=None, nfft=None,
          detrend='constant', return_onesided=True, scaling='density', axis=-1,
          average='mean'):
    r"""Estimate power spectral density using Welch's method.

    Parameters
    ----------
    x : array_like
        Time series (device array, or anything ``gpuscipy_core.asarray``
        takes), any dtype SciPy accepts, any layout.
    fs : float, optional
        Sampling frequency. Default 1.0.
    window : str or tuple or array_like, optional
        Window name for ``scipy.signal.get_window`` (default
        'hann_periodic'), or the window itself (1-D, real).
    nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis, average
        As in :func:`csd`.

    Returns
    -------
    f : gpuscipy_core.ndarray
        Sample frequencies, float64.
    Pxx : gpuscipy_core.ndarray
        Power spectral density (V**2/Hz) or power spectrum (V**2), float32
        for single-precision inputs else float64; the frequency axis
        replaces ``axis``.

    Raises
    ------
    ValueError
        As :func:`csd`.

    Notes
    -----
    One frames kernel (detrend, window, zero padding), one batched real FFT
    and one reduction over segments; see the module notes.

    Differences from SciPy
    ----------------------
    As :func:`csd`.

    References
    ----------
    P. D. Welch, IEEE Trans. Audio Electroacoust. 15(2), 1967.
    """
    return _csd_impl(_BE, x, x, fs, window, nperseg, noverlap, nfft, detrend,
                     return_onesided, scaling, axis, average, True, 3)


def _periodogram_impl(be, x, fs, window, nfft, detrend, return_onesided, scaling, axis):
    x = _asarray(be, x)
    if x.size == 0:
        return be.xp.empty(x.shape), be.xp.empty(x.shape)
    if window is None:
        window = 'boxcar'
    if nfft is None:
        nperseg = x.shape[axis]
    elif nfft == x.shape[axis]:
        nperseg = nfft
    elif nfft > x.shape[axis]:
        nperseg = x.shape[axis]
    elif nfft < x.shape[axis]:
        s = [slice(None)] * len(x.shape)
        s[axis] = slice(None, nfft)
        x = x[tuple(s)]
        nperseg = nfft
        nfft = None
    if hasattr(window, 'size'):
        if window.size != nperseg:
            raise ValueError('the size of the window must be the same size '
                             'of the input on the specified axis')
    return _csd_impl(be, x, x, fs, window, nperseg, 0, nfft, detrend, return_onesided,
                     scaling, axis, 'mean', True, 4)


def periodogram(x, fs=1.0, window='boxcar', nfft=None, detrend='constant',
                return_onesided=True, scaling='density', axis=-1):
    """Estimate power spectral density using a periodogram.

    Parameters
    ----------
    x : array_like
        Time series (device array or anything ``gpuscipy_core.asarray``
        takes).
    fs : float, optional
        Sampling frequency. Default 1.0.
    window : str or tuple or array_like, optional
        Window (default 'boxcar'; None means 'boxcar'); an array must have
        the length of the (cut) input.
    nfft : int, optional
        FFT length: longer than the input zero pads, shorter cuts the input.
    detrend, return_onesided, scaling, axis
        As in :func:`welch`.

    Returns
    -------
    f : gpuscipy_core.ndarray
        Sample frequencies, float64.
    Pxx : gpuscipy_core.ndarray
        Power spectral density or power spectrum (float32 or float64).

    Raises
    ------
    ValueError
        A window array whose size is not the segment length, and the errors
        of :func:`welch`.

    Notes
    -----
    :func:`welch` with one segment of the whole input (``noverlap=0``).
    """
    return _periodogram_impl(_BE, x, fs, window, nfft, detrend, return_onesided,
                             scaling, axis)


def _coherence_impl(be, x, y, fs, window, nperseg, noverlap, nfft, detrend, axis):
    same = y is x
    x = _asarray(be, x)
    y = x if same else _asarray(be, y)
    args = (fs, window, nperseg, noverlap, nfft, detrend, True, 'density', axis, 'mean')
    freqs, Pxx = _csd_impl(be, x, x, *args, True, 4)
    _, Pyy = _csd_impl(be, y, y, *args, True, 4)
    _, Pxy = _csd_impl(be, x, y, *args, same, 4)
    Cxy = be.xp.abs(Pxy) ** 2 / Pxx / Pyy
    return freqs, Cxy


def coherence(x, y, fs=1.0, window='hann_periodic', nperseg=None, noverlap=None,
              nfft=None, detrend='constant', axis=-1):
    r"""Estimate the magnitude squared coherence estimate, Cxy, of discrete-time
    signals X and Y using Welch's method.

    ``Cxy = abs(Pxy)**2 / (Pxx * Pyy)`` from :func:`welch` and :func:`csd`
    with the same parameters.

    Parameters
    ----------
    x, y : array_like
        Time series (device arrays or anything ``gpuscipy_core.asarray``
        takes).
    fs, window, nperseg, noverlap, nfft, detrend, axis
        As in :func:`csd`.

    Returns
    -------
    f : gpuscipy_core.ndarray
        Sample frequencies, float64.
    Cxy : gpuscipy_core.ndarray
        Magnitude squared coherence (float32 or float64).

    Raises
    ------
    ValueError
        As :func:`csd`.
    """
    return _coherence_impl(_BE, x, y, fs, window, nperseg, noverlap, nfft, detrend, axis)


# ---------------------------------------------------------------------------
# spectrogram / stft (SciPy's legacy _spectral_helper route)
# ---------------------------------------------------------------------------

def _positive_nperseg(nperseg):
    """``int(nperseg)``, with SciPy's error when it is below 1."""
    nperseg = int(nperseg)
    if nperseg < 1:
        raise ValueError('nperseg must be a positive integer')
    return nperseg


def _fft_overlap(nfft, nfft_default, nperseg, noverlap):
    """``(nfft, noverlap, hop)`` of the STFT helper and istft: ``nfft_default``
    when ``nfft`` is None; the defaults and checks with SciPy's messages."""
    if nfft is None:
        nfft = nfft_default
    elif nfft < nperseg:
        raise ValueError('nfft must be greater than or equal to nperseg.')
    else:
        nfft = int(nfft)
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    if noverlap >= nperseg:
        raise ValueError('noverlap must be less than nperseg.')
    return nfft, noverlap, nperseg - noverlap


def _spectral_helper(be, x, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                     scaling, axis, op, boundary=None, padded=False, level=4, wkey=None):
    """SciPy's legacy ``_spectral_helper`` for one signal; ``op`` is the
    output operation: 'power' (mode 'psd'), 'scale' (complex STFT),
    'magnitude', 'angle' or 'phase'."""
    mode = 'psd' if op == 'power' else 'stft'
    if boundary not in _BOUNDARY:
        raise ValueError(f"Unknown boundary option '{boundary}', "
                         f"must be one of: {list(_BOUNDARY.keys())}")
    axis = int(axis)
    x = _asarray(be, x)
    outdtype = numpy.result_type(x.dtype, numpy.complex64)
    if x.size == 0:
        return be.xp.empty(x.shape), be.xp.empty(x.shape), be.xp.empty(x.shape)
    if x.ndim > 1 and axis != -1:
        x = be.xp.moveaxis(x, axis, -1)
    if nperseg is not None:
        nperseg = _positive_nperseg(nperseg)
    if wkey is None:
        wkey = H.window_key(window)
    win, nperseg = H.triage_segments(window, nperseg, x.shape[-1], level + 1)
    nfft, noverlap, nstep = _fft_overlap(nfft, nperseg, nperseg, noverlap)

    length = x.shape[-1]
    n_sig = length
    pre = post = 0
    bmode = 0
    if boundary is not None:
        ext = nperseg // 2
        bmode = _BOUNDARY[boundary]
        if ext >= 1:
            if bmode in (1, 2) and ext > n_sig - 1:
                raise ValueError(("The extension length n (%d) is too big. " +
                                  "It must not exceed x.shape[axis]-1, which is %d.")
                                 % (ext, n_sig - 1))
            pre = post = ext
            length += 2 * ext
    if padded:
        nadd = (-(length - nperseg) % nstep) % nperseg
        length += nadd

    dcall = None
    dmode = 0
    if not detrend:
        pass
    elif not hasattr(detrend, '__call__'):
        dmode = {'linear': 2, 'l': 2, 'constant': 1, 'c': 1}.get(detrend, -1) \
            if isinstance(detrend, str) else -1
    elif axis != -1:
        def _moved(d, _f=detrend, _a=axis):
            return be.xp.moveaxis(_f(be.xp.moveaxis(d, -1, _a)), _a, -1)
        dcall = _moved
    else:
        dcall = detrend

    if numpy.result_type(win, numpy.complex64) != outdtype:
        win = win.astype(outdtype)
    _check_window_real(win)
    if scaling == 'density':
        scale = 1.0 / (fs * (win * win).sum())
    elif scaling == 'spectrum':
        scale = 1.0 / win.sum() ** 2
    else:
        raise ValueError(f'Unknown scaling: {scaling!r}')
    if mode == 'stft':
        scale = numpy.sqrt(scale)
    if return_onesided:
        if x.dtype.kind == "c":
            sides = 'twosided'
            warnings.warn('Input data is complex, switching to return_onesided=False',
                          stacklevel=level + 1)
        else:
            sides = 'onesided'
    else:
        sides = 'twosided'
    if sides == 'twosided':
        freqs = _sp_fft.fftfreq(nfft, 1 / fs)
    else:
        freqs = _sp_fft.rfftfreq(nfft, 1 / fs)
    if dmode == -1:
        raise ValueError("Trend type must be 'linear' or 'constant'.")

    nseg = (length - nperseg) // nstep + 1
    rdt = _real_dtype(outdtype)
    win_key = None if wkey is None else ("legacy", wkey, nperseg, outdtype.str)
    win_dev = H.device_copy(be, win_key, lambda: numpy.real(win), rdt)
    outer = x.shape[:-1]
    B = prod(outer)
    X = _spectra(be, x, nstep, nseg, nperseg, nfft, win_dev, dmode, dcall, outdtype,
                 sides == 'twosided', pre, post, bmode)
    nf = X.shape[-1]
    dlo, dhi = _doubling(sides == 'onesided' and op == 'power', nfft, nf)
    res = be.transpose_op(X, None, B, nseg, nf, 'angle' if op == 'phase' else op,
                          float(numpy.real(scale)), dlo, dhi)
    if op == 'phase':
        be.unwrap(res)

    time = numpy.arange(nperseg / 2, length - nperseg / 2 + 1, nperseg - noverlap) / float(fs)
    if boundary is not None:
        time -= (nperseg / 2) / fs
    if axis < 0:
        axis -= 1
    res = be.xp.swapaxes(res.reshape(outer + (nf, nseg)), -1, -2)
    res = be.xp.moveaxis(res, -1, axis)
    return _asarray(be, freqs), _asarray(be, time), res


def _spectrogram_impl(be, x, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                      scaling, axis, mode):
    modelist = ['psd', 'complex', 'magnitude', 'angle', 'phase']
    if mode not in modelist:
        raise ValueError(f'unknown value for mode {mode}, must be one of {modelist}')
    x = _asarray(be, x)
    wkey = H.window_key(window)
    window, nperseg = H.triage_segments(window, nperseg, x.shape[axis], 4)
    if noverlap is None:
        noverlap = nperseg // 8
    op = {'psd': 'power', 'complex': 'scale'}.get(mode, mode)
    return _spectral_helper(be, x, fs, window, nperseg, noverlap, nfft, detrend,
                            return_onesided, scaling, axis, op, level=4, wkey=wkey)


def spectrogram(x, fs=1.0, window=('tukey_periodic', .25), nperseg=None, noverlap=None,
                nfft=None, detrend='constant', return_onesided=True, scaling='density',
                axis=-1, mode='psd'):
    """Compute a spectrogram with consecutive Fourier transforms (legacy
    function in SciPy, reproduced exactly).

    Parameters
    ----------
    x : array_like
        Time series (device array or anything ``gpuscipy_core.asarray``
        takes).
    fs : float, optional
        Sampling frequency. Default 1.0.
    window : str or tuple or array_like, optional
        Default ``('tukey_periodic', 0.25)``.
    nperseg : int, optional
        Segment length; default 256, or the input length (with SciPy's
        warning) when that is shorter.
    noverlap : int, optional
        Default ``nperseg // 8``.
    nfft, detrend, return_onesided, scaling, axis
        As in :func:`welch` (a ``detrend`` function receives all segments,
        ``(..., nseg, nperseg)`` moved as SciPy moves them).
    mode : {'psd', 'complex', 'magnitude', 'angle', 'phase'}, optional
        'phase' is the angle unwrapped along the frequency axis.

    Returns
    -------
    f : gpuscipy_core.ndarray
        Sample frequencies, float64.
    t : gpuscipy_core.ndarray
        Segment times, float64.
    Sxx : gpuscipy_core.ndarray
        Spectrogram; frequency axis at ``axis`` and time last. Real (float32
        or float64) except for mode 'complex'.

    Raises
    ------
    ValueError
        For an unknown mode, scaling or trend type, nperseg < 1,
        noverlap >= nperseg, nfft < nperseg (SciPy's messages); with
        ``detrend='linear'``, a segment holding an inf or NaN.
    """
    return _spectrogram_impl(_BE, x, fs, window, nperseg, noverlap, nfft, detrend,
                             return_onesided, scaling, axis, mode)


def _stft_impl(be, x, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
               boundary, padded, axis, scaling):
    if scaling == 'psd':
        scaling = 'density'
    elif scaling != 'spectrum':
        raise ValueError(f"Parameter {scaling=} not in ['spectrum', 'psd']!")
    return _spectral_helper(be, x, fs, window, nperseg, noverlap, nfft, detrend,
                            return_onesided, scaling, axis, 'scale', boundary=boundary,
                            padded=padded, level=4)


def stft(x, fs=1.0, window='hann_periodic', nperseg=256, noverlap=None, nfft=None,
         detrend=False, return_onesided=True, boundary='zeros', padded=True, axis=-1,
         scaling='spectrum'):
    r"""Compute the Short Time Fourier Transform (legacy function in SciPy,
    reproduced exactly).

    Parameters
    ----------
    x : array_like
        Time series (device array or anything ``gpuscipy_core.asarray``
        takes).
    fs, window, noverlap, nfft, detrend, return_onesided, axis
        As in :func:`spectrogram` (default window 'hann_periodic', overlap
        ``nperseg // 2``, no detrending).
    nperseg : int, optional
        Default 256.
    boundary : {'zeros', 'even', 'odd', 'constant', None}, optional
        Extension of ``nperseg // 2`` samples at both ends (read through the
        index map of the frames kernel, no copy).
    padded : bool, optional
        Zero pad the end so the segments cover the signal.
    scaling : {'spectrum', 'psd'}, optional

    Returns
    -------
    f, t : gpuscipy_core.ndarray
        Frequencies and segment times, float64.
    Zxx : gpuscipy_core.ndarray
        STFT (complex64 or complex128); frequency axis at ``axis``, time last.

    Raises
    ------
    ValueError
        For bad scaling, boundary, nperseg, noverlap, nfft, or an extension
        longer than the input allows (SciPy's messages).
    """
    return _stft_impl(_BE, x, fs, window, nperseg, noverlap, nfft, detrend,
                      return_onesided, boundary, padded, axis, scaling)


# ---------------------------------------------------------------------------
# istft
# ---------------------------------------------------------------------------

def _shape_text(shape):
    return "(" + ",".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _istft_impl(be, Zxx, fs, window, nperseg, noverlap, nfft, input_onesided, boundary,
                time_axis, freq_axis, scaling):
    Z = _asarray(be, Zxx)
    cdt = (numpy.zeros(1, Z.dtype) + 0j).dtype
    freq_axis = int(freq_axis)
    time_axis = int(time_axis)
    if Z.ndim < 2:
        raise ValueError('Input stft must be at least 2d!')
    if freq_axis == time_axis:
        raise ValueError('Must specify differing time and frequency axes!')
    nseg = Z.shape[time_axis]
    if input_onesided:
        n_default = 2 * (Z.shape[freq_axis] - 1)
    else:
        n_default = Z.shape[freq_axis]
    nperseg = n_default if nperseg is None else _positive_nperseg(nperseg)
    nfft_default = nperseg if input_onesided and nperseg == n_default + 1 else n_default
    nfft, noverlap, nstep = _fft_overlap(nfft, nfft_default, nperseg, noverlap)
    ndim = Z.ndim
    if time_axis != ndim - 1 or freq_axis != ndim - 2:
        if freq_axis < 0:
            freq_axis = ndim + freq_axis
        if time_axis < 0:
            time_axis = ndim + time_axis
        zouter = list(range(ndim))
        for ax in sorted([time_axis, freq_axis], reverse=True):
            zouter.pop(ax)
        Z = Z.transpose(zouter + [freq_axis, time_axis])
    wkey = None
    if isinstance(window, str) or type(window) is tuple:
        win = H.host_window(window, nperseg)
        wkey = H.window_key(window)
    else:
        win = H.host_array(window)
        if len(win.shape) != 1:
            raise ValueError('window must be 1-D')
        if win.shape[0] != nperseg:
            raise ValueError(f'window must have length of {nperseg}')

    outer = Z.shape[:-2]
    xdt = numpy.dtype(cdt.char.lower()) if input_onesided else cdt
    if nfft < nperseg:
        raise ValueError("operands could not be broadcast together with shapes "
                         f"{_shape_text(outer + (nfft,))} {_shape_text((nperseg,))} ")
    if numpy.result_type(win, xdt) != xdt:
        win = win.astype(xdt)
    _check_window_real(win)
    if scaling == 'spectrum':
        scale = win.sum()
    elif scaling == 'psd':
        scale = numpy.sqrt(fs * sum(win ** 2))
    else:
        raise ValueError(f"Parameter {scaling=} not in ['spectrum', 'psd']!")

    outputlength = nperseg + (nseg - 1) * nstep
    if boundary:
        k = nperseg // 2
        start = k
        lout = max(0, outputlength - 2 * k) if k > 0 else 0
    else:
        start, lout = 0, outputlength
    win2 = win ** 2
    if not H.nola_ok(win2, nstep, nseg, nperseg, start, start + lout):
        warnings.warn("NOLA condition failed, STFT may not be invertible."
                      + (" Possibly due to missing boundary" if not boundary else ""),
                      stacklevel=3)
    rdt = numpy.dtype(cdt.char.lower())
    B = prod(outer)
    nf = Z.shape[-2]
    zt = be.xp.ascontiguousarray(be.xp.swapaxes(Z, -1, -2))
    if zt.dtype != cdt:
        zt = zt.astype(cdt)
    zt = zt.reshape(B, nseg, nf)
    xs = be.irfft(zt, nfft) if input_onesided else be.ifft(zt, nfft)
    win_dev = H.device_copy(be, None if wkey is None else ("istft", wkey, nperseg),
                            lambda: numpy.real(win), rdt)
    x = be.ola(xs, win_dev, float(numpy.real(scale)), nperseg, nstep, start, lout)
    x = x.reshape(outer + (lout,))
    if x.ndim > 1:
        if time_axis != Z.ndim - 1:
            if freq_axis < time_axis:
                time_axis -= 1
            x = be.xp.moveaxis(x, -1, time_axis)
    time = numpy.arange(x.shape[0]) / float(fs)
    return _asarray(be, time), x


def istft(Zxx, fs=1.0, window='hann_periodic', nperseg=None, noverlap=None, nfft=None,
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2,
          scaling='spectrum'):
    r"""Perform the inverse Short Time Fourier transform (legacy function in
    SciPy, reproduced exactly).

    Parameters
    ----------
    Zxx : array_like
        STFT of the signal, at least 2-D (device array or anything
        ``gpuscipy_core.asarray`` takes).
    fs : float, optional
        Sampling frequency. Default 1.0.
    window : str or tuple or array_like, optional
        Default 'hann_periodic'; an array must have length nperseg.
    nperseg : int, optional
        Default: ``2 * (Zxx.shape[freq_axis] - 1)`` for one-sided input,
        else ``Zxx.shape[freq_axis]``.
    noverlap : int, optional
        Default ``nperseg // 2``.
    nfft : int, optional
        FFT length (>= nperseg).
    input_onesided : bool, optional
        Inverse real FFT (default) or inverse complex FFT.
    boundary : bool, optional
        Drop ``nperseg // 2`` samples at both ends (as ``stft``'s boundary
        extension added them).
    time_axis, freq_axis : int, optional
        Axes of segments and frequencies. Defaults -1 and -2.
    scaling : {'spectrum', 'psd'}, optional

    Returns
    -------
    t : gpuscipy_core.ndarray
        Output times, float64 (``arange(x.shape[0]) / fs``, as SciPy).
    x : gpuscipy_core.ndarray
        The signal: real (float32/float64) for one-sided input, else complex.

    Raises
    ------
    ValueError
        For fewer than 2 dimensions, equal axes, nperseg < 1,
        nfft < nperseg, noverlap >= nperseg, a bad window or scaling (SciPy's
        messages).

    Warns
    -----
    UserWarning
        "NOLA condition failed, STFT may not be invertible." when the summed
        squared window is <= 1e-10 at an output sample (SciPy warns; it does
        not raise).

    Notes
    -----
    Batched inverse FFT, then one overlap-add kernel: every output sample
    gathers its overlapping segments in segment order (the order of SciPy's
    loop) and divides by the summed squared window where that is > 1e-10.

    References
    ----------
    D. W. Griffin and J. S. Lim, "Signal estimation from modified short-time
    Fourier transform", IEEE TASSP 32(2), 236-243, 1984.
    """
    return _istft_impl(_BE, Zxx, fs, window, nperseg, noverlap, nfft, input_onesided,
                       boundary, time_axis, freq_axis, scaling)

