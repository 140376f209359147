"""decimate: an anti-aliasing filter, then every q-th sample."""

import operator

import numpy

__all__ = ["decimate"]


def _filter_for(ftype, n, q, dt):
    """('fir', b, None) or ('iir', sos, None) or ('ba', b, a) on the host,
    the coefficients in the result dtype ``dt`` as SciPy casts them."""
    import scipy.signal as ss
    if isinstance(ftype, str) and ftype == "fir":
        if n is None:
            n = 20 * q                       # a sinc cut off at 10 q on each side
        return "fir", ss.firwin(n + 1, 1.0 / q, window="hamming").astype(dt), None
    if isinstance(ftype, str) and ftype == "iir":
        sos = ss.cheby1(8 if n is None else n, 0.05, 0.8 / q, output="sos")
        return "iir", sos.astype(dt), None
    if isinstance(ftype, ss.dlti):
        zpk = ftype._as_zpk()
        if zpk.poles.shape[0] == 0:
            tf = ftype._as_tf()
            return "fir", numpy.asarray(tf.num / tf.den), None
        if numpy.iscomplex(zpk.poles).any() or numpy.iscomplex(zpk.gain):
            tf = ftype._as_tf()       # SciPy filters these as (b, a), not sections
            return "ba", numpy.asarray(tf.num), numpy.asarray(tf.den)
        sos = ss.zpk2sos(zpk.zeros, zpk.poles, zpk.gain)
        return "iir", numpy.asarray(sos, dtype=dt), None
    raise ValueError("invalid ftype")


def decimate(x, q, n=None, ftype="iir", axis=-1, zero_phase=True):
    """Downsample ``x`` by ``q`` after an anti-aliasing low-pass filter.

    Parameters
    ----------
    x : array_like (device or host), any shape
        The signal; integer, bool and float16 input is filtered in float64,
        float32/float64/complex in its own dtype.
    q : int
        Downsampling factor (an integer >= 1; SciPy recommends calling
        several times for q > 13).
    n : int, optional
        Filter order: default 8 for 'iir' (a Chebyshev type I, 0.05 dB
        ripple, cutoff 0.8/q of Nyquist) and 20 q for 'fir' (a Hamming
        windowed sinc of n + 1 taps, cutoff 1/q).
    ftype : {'iir', 'fir'} or scipy.signal.dlti, optional
        Filter family, or a discrete-time system to use as the filter.
    axis : int, optional
        Axis to decimate. Default -1.
    zero_phase : bool, optional
        True (default): filter forward and backward (``sosfiltfilt``, or
        ``resample_poly`` for FIR) so the output has no phase shift; False:
        a causal filter (``sosfilt``/``lfilter``, or ``upfirdn`` for FIR).

    Returns
    -------
    y : gpuscipy_core.ndarray
        The decimated signal: ``x``'s shape with ``ceil(N / q)`` samples
        along ``axis``.

    Raises
    ------
    TypeError
        ``q`` or ``n`` is not an integer.
    ValueError
        An invalid ``ftype``; the filters' own errors (e.g. a signal shorter
        than ``sosfiltfilt``'s padding).

    Notes
    -----
    The filters are designed on the host (SciPy); the filtering runs on the
    GPU: FIR through the polyphase ``upfirdn``/``resample_poly`` (only the
    kept outputs are computed), IIR through the blocked recurrence of
    ``sosfilt``/``sosfiltfilt``, whose every q-th sample is kept.
    (Crochiere & Rabiner, Multirate Digital Signal Processing, 1983.)
    """
    import gpuscipy_core as gp
    from ._filtfilt import filtfilt, sosfiltfilt
    from ._iir import lfilter, sosfilt
    from ._resample import resample_poly
    from ._upfirdn import upfirdn

    x = gp.asarray(x)
    q = operator.index(q)
    if n is not None:
        n = operator.index(n)
    dt = x.dtype
    if dt.kind not in "fc" or dt == numpy.float16:
        dt = numpy.dtype(numpy.float64)
    kind, c1, c2 = _filter_for(ftype, n, q, dt)
    ax = axis % x.ndim if x.ndim else axis
    sl = [slice(None)] * x.ndim
    if kind == "fir":
        if zero_phase:
            return resample_poly(x, 1, q, axis=axis, window=c1)
        n_out = -(-x.shape[ax] // q)
        y = upfirdn(c1, x, up=1, down=q, axis=axis)
        sl[ax] = slice(None, n_out)
        return y[tuple(sl)]
    if kind == "iir":
        y = sosfiltfilt(c1, x, axis=axis) if zero_phase else sosfilt(c1, x, axis=axis)
    else:
        y = filtfilt(c1, c2, x, axis=axis) if zero_phase else lfilter(c1, c2, x, axis=axis)
    sl[ax] = slice(None, None, q)
    return y[tuple(sl)]
