"""Filter design: SciPy designs on the host, the coefficients go to the device.

Designing a filter is a few hundred floating-point operations on arrays of
tens of coefficients (polynomial roots, bilinear transforms, window
products); the GPU has nothing to add and SciPy is the reference, so every
function here calls ``scipy.signal`` on the host and returns its arrays as
:class:`gpuscipy_core.ndarray` (Python scalars, such as a ``zpk`` gain,
stay scalars). Array arguments may be device arrays; they are copied to the
host first. Errors are SciPy's own.
"""

import numpy

__all__ = ["butter", "cheby1", "cheby2", "ellip", "bessel", "iirfilter",
           "iirnotch", "iirpeak", "firwin", "firwin2", "sos2tf", "tf2sos",
           "zpk2sos"]


def _host(v):
    """A device array (or a list/tuple holding some) as NumPy; others as given."""
    if hasattr(v, "__cuda_array_interface__") and hasattr(v, "get"):
        return v.get()
    if isinstance(v, (list, tuple)):
        return type(v)(_host(e) for e in v)
    return v


def _device(v):
    """SciPy's result with every ndarray moved to the device."""
    if isinstance(v, numpy.ndarray):
        import gpuscipy_core as gp
        return gp.asarray(v)
    if isinstance(v, tuple):
        return tuple(_device(e) for e in v)
    return v


def _design_in(module, name, *args, **kwargs):
    """``module.name(*args, **kwargs)`` on host copies of the arguments, with
    the array results moved to the device."""
    f = getattr(module, name)
    return _device(f(*(_host(a) for a in args),
                     **{k: _host(v) for k, v in kwargs.items()}))


def _design(name, *args, **kwargs):
    import scipy.signal
    return _design_in(scipy.signal, name, *args, **kwargs)


_IIR_RETURNS = """
    Returns
    -------
    b, a : gpuscipy_core.ndarray, shape (N + 1,) (or (2N + 1,) for band filters)
        Numerator and denominator polynomials (``output='ba'``), float64.
    z, p, k : gpuscipy_core.ndarray, gpuscipy_core.ndarray, float
        Zeros, poles (complex128) and gain (``output='zpk'``).
    sos : gpuscipy_core.ndarray, shape (n_sections, 6)
        Second-order sections (``output='sos'``), float64; the form
        :func:`gpuscipy.signal.sosfilt` takes.

    Raises
    ------
    ValueError
        SciPy's errors: critical frequencies outside (0, 1) (or (0, fs/2)
        with ``fs``), a band type with one frequency, an unknown ``btype``
        or ``output``.

    Notes
    -----
    Designed on the host by ``scipy.signal`` ({ref}); only the result is
    moved to the device.
"""

_WN = """    Wn : float or sequence of two floats
        Critical frequency (or band edges): a fraction of the Nyquist
        frequency, or in the units of ``fs`` when ``fs`` is given (Hz for a
        sampling rate in Hz); rad/s for analog filters.
"""

_COMMON = """    btype : {'lowpass', 'highpass', 'bandpass', 'bandstop'}, optional
        Filter type. Default 'lowpass'.
    analog : bool, optional
        Design an analog filter (s-plane) instead of a digital one.
    output : {'ba', 'zpk', 'sos'}, optional
        Form of the result. Default 'ba'; 'sos' is the numerically safe form
        for filtering.
    fs : float, optional
        Sampling frequency of the digital system (the unit of ``Wn``).
"""


def butter(N, Wn, btype="low", analog=False, output="ba", fs=None):
    return _design("butter", N, Wn, btype=btype, analog=analog, output=output, fs=fs)


butter.__doc__ = f"""Butterworth filter design (maximally flat passband).

    Parameters
    ----------
    N : int
        Filter order.
{_WN}{_COMMON}{_IIR_RETURNS.format(ref="Butterworth 1930; Oppenheim & Schafer, "
                                    "Discrete-Time Signal Processing, 3rd ed., 7.1")}"""


def cheby1(N, rp, Wn, btype="low", analog=False, output="ba", fs=None):
    return _design("cheby1", N, rp, Wn, btype=btype, analog=analog, output=output, fs=fs)


cheby1.__doc__ = f"""Chebyshev type I filter design (equiripple passband).

    Parameters
    ----------
    N : int
        Filter order.
    rp : float
        Maximum passband ripple, in dB (positive).
{_WN}{_COMMON}{_IIR_RETURNS.format(ref="Parks & Burrus, Digital Filter Design, 1987, ch. 7")}"""


def cheby2(N, rs, Wn, btype="low", analog=False, output="ba", fs=None):
    return _design("cheby2", N, rs, Wn, btype=btype, analog=analog, output=output, fs=fs)


cheby2.__doc__ = f"""Chebyshev type II filter design (equiripple stopband).

    Parameters
    ----------
    N : int
        Filter order.
    rs : float
        Minimum stopband attenuation, in dB (positive).
{_WN}{_COMMON}{_IIR_RETURNS.format(ref="Parks & Burrus, Digital Filter Design, 1987, ch. 7")}"""


def ellip(N, rp, rs, Wn, btype="low", analog=False, output="ba", fs=None):
    return _design("ellip", N, rp, rs, Wn, btype=btype, analog=analog, output=output,
                   fs=fs)


ellip.__doc__ = f"""Elliptic (Cauer) filter design (equiripple pass- and stopband).

    Parameters
    ----------
    N : int
        Filter order.
    rp : float
        Maximum passband ripple, in dB.
    rs : float
        Minimum stopband attenuation, in dB.
{_WN}{_COMMON}{_IIR_RETURNS.format(ref="Orfanidis, Lecture notes on elliptic filter "
                                    "design, 2006")}"""


def bessel(N, Wn, btype="low", analog=False, output="ba", norm="phase", fs=None):
    return _design("bessel", N, Wn, btype=btype, analog=analog, output=output,
                   norm=norm, fs=fs)


bessel.__doc__ = f"""Bessel/Thomson filter design (maximally flat group delay).

    Parameters
    ----------
    N : int
        Filter order.
{_WN}{_COMMON}    norm : {{'phase', 'delay', 'mag'}}, optional
        Frequency normalization of ``Wn`` (SciPy's meanings). Default 'phase'.
{_IIR_RETURNS.format(ref="Thomson 1949; Bond, Computing the Bessel filter "
                     "poles, 2003")}"""


def iirfilter(N, Wn, rp=None, rs=None, btype="band", analog=False, ftype="butter",
              output="ba", fs=None):
    return _design("iirfilter", N, Wn, rp=rp, rs=rs, btype=btype, analog=analog,
                   ftype=ftype, output=output, fs=fs)


iirfilter.__doc__ = f"""IIR filter design for a given order and filter family.

    Parameters
    ----------
    N : int
        Filter order.
{_WN}    rp, rs : float, optional
        Passband ripple and stopband attenuation in dB (Chebyshev and
        elliptic families).
    btype : {{'bandpass', 'lowpass', 'highpass', 'bandstop'}}, optional
        Filter type. Default 'band'.
    analog : bool, optional
        Design an analog filter.
    ftype : {{'butter', 'cheby1', 'cheby2', 'ellip', 'bessel'}}, optional
        Filter family. Default 'butter'.
    output : {{'ba', 'zpk', 'sos'}}, optional
        Form of the result.
    fs : float, optional
        Sampling frequency of the digital system.
{_IIR_RETURNS.format(ref="analog prototype, frequency transform and bilinear "
                     "transform, Oppenheim & Schafer 7.1")}"""


_NOTCH = """{what}

    Parameters
    ----------
    w0 : float
        Frequency to {verb}, in the units of ``fs`` (a fraction of the
        Nyquist frequency when ``fs`` is 2, the default).
    Q : float
        Quality factor: ``w0`` over the -3 dB bandwidth.
    fs : float, optional
        Sampling frequency. Default 2.0.

    Returns
    -------
    b, a : gpuscipy_core.ndarray, shape (3,)
        Numerator and denominator of the second-order IIR filter, float64.

    Raises
    ------
    ValueError
        ``w0`` outside (0, fs/2) (SciPy's message).

    Notes
    -----
    Designed on the host by ``scipy.signal`` (Sophocles J. Orfanidis,
    Introduction to Signal Processing, 1996, 11.3).
"""


def iirnotch(w0, Q, fs=2.0):
    return _design("iirnotch", w0, Q, fs=fs)


iirnotch.__doc__ = _NOTCH.format(what="Second-order IIR notch (band-stop) filter.",
                                 verb="remove")


def iirpeak(w0, Q, fs=2.0):
    return _design("iirpeak", w0, Q, fs=fs)


iirpeak.__doc__ = _NOTCH.format(what="Second-order IIR peak (resonator) filter.",
                                verb="keep")


def firwin(numtaps, cutoff, *, width=None, window="hamming", pass_zero=True,
           scale=True, fs=None):
    """FIR filter design by the window method.

    Parameters
    ----------
    numtaps : int
        Length of the filter (odd for a passband at the Nyquist frequency).
    cutoff : float or 1-D array_like
        Cutoff frequencies in the units of ``fs`` (fractions of Nyquist by
        default), increasing, within (0, fs/2).
    width : float, optional
        Transition width for a Kaiser window (overrides ``window``).
    window : str or tuple, optional
        Window (:func:`gpuscipy.signal.get_window`'s names). Default 'hamming'.
    pass_zero : {True, False, 'bandpass', 'lowpass', 'highpass', 'bandstop'}, optional
        Whether the frequency 0 is in a passband.
    scale : bool, optional
        Scale the response to unity gain at the centre of the first
        passband.
    fs : float, optional
        Sampling frequency.

    Returns
    -------
    h : gpuscipy_core.ndarray, shape (numtaps,)
        Filter coefficients, float64.

    Raises
    ------
    ValueError
        SciPy's errors: cutoffs out of range or not increasing, an even
        ``numtaps`` with a passband at Nyquist.

    Notes
    -----
    Designed on the host by ``scipy.signal`` (the window method: Oppenheim
    & Schafer, 7.5).
    """
    return _design("firwin", numtaps, cutoff, width=width, window=window,
                   pass_zero=pass_zero, scale=scale, fs=fs)


def firwin2(numtaps, freq, gain, *, nfreqs=None, window="hamming",
            antisymmetric=False, fs=None):
    """FIR filter design by frequency sampling and a window.

    Parameters
    ----------
    numtaps : int
        Number of taps.
    freq : 1-D array_like
        Frequency points, non-decreasing from 0 to ``fs/2`` (1 by default).
    gain : 1-D array_like, same length as ``freq``
        Desired gain at each frequency point.
    nfreqs : int, optional
        Size of the interpolation grid (default: the next power of two above
        ``numtaps``, plus 1).
    window : str, tuple or None, optional
        Window applied to the impulse response. Default 'hamming'.
    antisymmetric : bool, optional
        Design an antisymmetric (type III/IV) filter.
    fs : float, optional
        Sampling frequency.

    Returns
    -------
    taps : gpuscipy_core.ndarray, shape (numtaps,)
        Filter coefficients, float64.

    Raises
    ------
    ValueError
        SciPy's errors (mismatched lengths, frequencies out of order or
        range, a gain that the filter type cannot have).

    Notes
    -----
    Designed on the host by ``scipy.signal`` (frequency sampling: Oppenheim
    & Schafer, 7.6; Ifeachor & Jervis, Digital Signal Processing, 2002).
    """
    return _design("firwin2", numtaps, freq, gain, nfreqs=nfreqs, window=window,
                   antisymmetric=antisymmetric, fs=fs)


def sos2tf(sos):
    """Transfer function (b, a) of a cascade of second-order sections.

    Parameters
    ----------
    sos : array_like, shape (n_sections, 6)
        Second-order sections, each ``[b0, b1, b2, a0, a1, a2]``.

    Returns
    -------
    b, a : gpuscipy_core.ndarray, shape (2 n_sections + 1,)
        Numerator and denominator polynomials.

    Raises
    ------
    ValueError
        ``sos`` is not of shape (n_sections, 6).

    Notes
    -----
    Computed on the host by ``scipy.signal`` (polynomial products).
    """
    return _design("sos2tf", sos)


def tf2sos(b, a, pairing=None, *, analog=False):
    """Second-order sections of a transfer function.

    Parameters
    ----------
    b, a : array_like, 1-D
        Numerator and denominator polynomials.
    pairing : {None, 'nearest', 'keep_odd', 'minimal'}, optional
        How poles and zeros are paired into sections (SciPy's rules).
    analog : bool, optional
        The system is analog.

    Returns
    -------
    sos : gpuscipy_core.ndarray, shape (n_sections, 6)
        Second-order sections, float64 (complex128 for complex systems).

    Raises
    ------
    ValueError
        SciPy's errors (an invalid ``pairing``).

    Notes
    -----
    Computed on the host by ``scipy.signal`` (roots, then ``zpk2sos``).
    """
    return _design("tf2sos", b, a, pairing=pairing, analog=analog)


def zpk2sos(z, p, k, pairing=None, *, analog=False):
    """Second-order sections of a zeros, poles, gain system.

    Parameters
    ----------
    z, p : array_like, 1-D
        Zeros and poles (complex ones in conjugate pairs).
    k : float
        System gain.
    pairing : {None, 'nearest', 'keep_odd', 'minimal'}, optional
        How poles and zeros are paired into sections.
    analog : bool, optional
        The system is analog.

    Returns
    -------
    sos : gpuscipy_core.ndarray, shape (n_sections, 6)
        Second-order sections, float64.

    Raises
    ------
    ValueError
        SciPy's errors (unpaired complex roots, more zeros than poles for an
        analog system).

    Notes
    -----
    Computed on the host by ``scipy.signal`` (pairing as in Oppenheim &
    Schafer 6.3.3: the poles closest to the unit circle paired first).
    """
    return _design("zpk2sos", z, p, k, pairing=pairing, analog=analog)
