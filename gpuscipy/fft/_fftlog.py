"""Fast Hankel transform (FFTLog, Hamilton 2000): fht, ifht, fhtoffset.

The transform is a real FFT, a multiplication by the FFTLog kernel
coefficients u_m, an inverse real FFT and a reversal (SciPy's definition).
The coefficients involve the gamma function of complex argument; they are
computed on the host with :func:`scipy.special.loggamma` (n/2+1 values,
cheap next to the transforms) and copied to the device once per call; the
transforms and the bias factors run on the GPU.

Reference: A. J. S. Hamilton, "Uncorrelated modes of the non-linear power
spectrum", MNRAS 312, 257-284, 2000 (Appendix B, FFTLog).
"""

import warnings

import numpy

from . import _helper as h
from ._basic import irfft, rfft
from ._docs import fill_doc

__all__ = ["fht", "ifht", "fhtoffset"]

_LN_2 = float(numpy.log(2.0))


def fht_coefficients(n, dln, mu, offset=0.0, bias=0.0, inverse=False,
                     stacklevel=3):
    """The FFTLog kernel u_m, m = 0..n//2, as a complex128 NumPy array.

    u_m = 2**(q + 2i y_m) (kr)**(-2i y_m) Gamma((mu+1+q)/2 + i y_m)
          / Gamma((mu+1-q)/2 - i y_m),  y_m = pi m / (n dln)

    with q the bias and ln(kr) the offset (Hamilton 2000, eq. 163), computed
    through log-gamma; the Nyquist term is made real for even n.
    ``stacklevel`` is that of the singular-transform warnings.
    """
    from scipy.special import loggamma, poch
    q, lnkr = bias, offset
    xp = (mu + 1 + q) / 2
    xm = (mu + 1 - q) / 2
    y = numpy.linspace(0, numpy.pi * (n // 2) / (n * dln), n // 2 + 1)
    lg_p = loggamma(xp + 1j * y)
    lg_m = loggamma(xm + 1j * y)
    logu = (lg_p.real - lg_m.real + _LN_2 * q) + 1j * (
        lg_p.imag + lg_m.imag + 2 * y * (_LN_2 - lnkr))
    with numpy.errstate(over="ignore", invalid="ignore"):
        u = numpy.exp(logu)
    if n % 2 == 0:
        u.imag[-1] = 0
    if not numpy.isfinite(u[0]):
        # the gamma ratio at y = 0 by the Pochhammer symbol
        u[0] = 2 ** q * poch(xm, xp - xm)
    if numpy.isinf(u[0]) and not inverse:
        warnings.warn("singular transform; consider changing the bias",
                      stacklevel=stacklevel)
        u[0] = 0
    elif u[0] == 0 and inverse:
        warnings.warn("singular inverse transform; consider changing the bias",
                      stacklevel=stacklevel)
        u[0] = numpy.inf
    return u


def _bias_factor(n, dln, sign, bias, offset):
    """exp(sign * bias * ((j - j_c) dln + offset)) on the device (float64)."""
    import gpuscipy_core as gp
    j = numpy.arange(n, dtype=numpy.float64)
    j_c = (n - 1) / 2
    return gp.asarray(numpy.exp(sign * bias * ((j - j_c) * dln + offset)))


def _fhtq(a, u, inverse):
    """rfft, times u (or divided by conj u), irfft, reversed (last axis)."""
    import gpuscipy_core as gp
    n = a.shape[-1]
    A = rfft(a, axis=-1)
    ud = gp.asarray(numpy.conj(u) if inverse else u)
    if inverse:
        gp.divide(A, ud, out=A)
    else:
        gp.multiply(A, ud, out=A)
    r = irfft(A, n, axis=-1)
    return r[..., ::-1]


def _fht(x, name, dln, mu, offset, bias, inverse):
    """fht (``inverse`` False) or ifht of the device array ``x`` (argument
    ``name``): bias, FFTLog convolution, unbias (SciPy's definition)."""
    x = h.as_device(x, name)
    if x.dtype.kind == "c":
        raise TypeError("x must be a real sequence")
    n = x.shape[-1]
    if bias != 0:
        if inverse:
            x = x * _bias_factor(n, dln, 1, bias, offset)
        else:
            x = x * _bias_factor(n, dln, -1, bias, 0.0)
    # stacklevel 4: the singular-transform warning points at the caller
    # of fht/ifht
    u = fht_coefficients(n, dln, mu, offset=offset, bias=bias,
                         inverse=inverse, stacklevel=4)
    y = _fhtq(x, u, inverse)
    if bias == 0:
        return y.copy()
    if inverse:
        return y / _bias_factor(n, dln, -1, bias, 0.0)
    return y * _bias_factor(n, dln, -1, bias, offset)


@fill_doc
def fht(a, dln, mu, offset=0.0, bias=0.0):
    """Compute the fast Hankel transform.

    The discrete Hankel transform of a periodic sequence sampled at
    logarithmically spaced points, by the FFTLog algorithm [1]_; it
    approximates ``A(k) = integral_0^inf a(r) J_mu(k r) k dr`` (``J_mu``
    the Bessel function of order ``mu``).

    Parameters
    ----------
    a : array_like, shape (..., n)
        Real input: the values ``a(r_j)`` at ``r_j = r_c * exp((j - j_c) *
        dln)``, ``j_c = (n - 1)/2``, taken as periodic. The transform runs
        along the last axis, for every index of the others. Device arrays
        are used where they are, other array_likes are copied to the
        current device first.
    {dln}
    {mu}
    {offset}
    {bias}

    Returns
    -------
    A : gpuscipy_core.ndarray, shape (..., n)
        The transform at ``k_j = k_c * exp((j - j_c) * dln)`` with ``k_c * r_c
        = exp(offset)``: a new C-contiguous real array of the shape of
        ``a``. float64, except float32 for float16 and float32 input when
        ``bias`` is 0 (the bias factors are float64).

    Raises
    ------
    TypeError
        ``a`` cannot be read as an array of numbers, or is complex ("x
        must be a real sequence").
    IndexError
        ``a`` is 0-d.
    ZeroDivisionError
        {raises_zero_dln}
    ValueError
        {raises_value_fht_empty}

    Warns
    -----
    UserWarning
        "singular transform; consider changing the bias": the kernel
        coefficient of frequency zero is infinite for this ``mu`` and
        ``bias``; it is replaced by 0.

    See Also
    --------
    ifht : The inverse transform.
    fhtoffset : The offset that gives the least ringing.
    scipy.fft.fht : The CPU function this mirrors.

    Notes
    -----
    {notes_fftlog}

    References
    ----------
    {references_fftlog}

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.fft
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft

    ``r**(mu + 1) * exp(-r**2 / 2)`` has the Hankel transform
    ``k**(mu + 1) * exp(-k**2 / 2)``; sample it on 128 logarithmic points:

    >>> mu, n, dln = 0.0, 128, 0.1
    >>> r = np.exp((np.arange(n) - (n - 1) / 2) * dln)
    >>> offset = fft.fhtoffset(dln, mu)
    >>> k = np.exp(offset) / r[::-1]
    >>> a = gp.asarray(r**(mu + 1) * np.exp(-r**2 / 2))  # doctest: +SKIP
    >>> A = fft.fht(a, dln, mu, offset=offset)  # doctest: +SKIP
    >>> A.shape, A.dtype  # doctest: +SKIP
    ((128,), dtype('float64'))
    >>> exact = k**(mu + 1) * np.exp(-k**2 / 2)
    >>> bool(np.allclose(gp.asnumpy(A), exact, atol=2e-3))  # doctest: +SKIP
    True
    """
    return _fht(a, "a", dln, mu, offset, bias, False)


@fill_doc
def ifht(A, dln, mu, offset=0.0, bias=0.0):
    """Compute the inverse fast Hankel transform.

    The inverse of :func:`fht` for the same ``dln``, ``mu``, ``offset`` and
    ``bias``; it approximates ``a(r) = integral_0^inf A(k) J_mu(k r) r
    dk`` on logarithmically spaced points (FFTLog [1]_).

    Parameters
    ----------
    A : array_like, shape (..., n)
        Real input: the values ``A(k_j)`` at ``k_j = k_c * exp((j - j_c) *
        dln)``, ``j_c = (n - 1)/2``, taken as periodic. The transform runs
        along the last axis, for every index of the others. Device arrays
        are used where they are, other array_likes are copied to the
        current device first.
    {dln}
    {mu}
    {offset}
    {bias}

    Returns
    -------
    a : gpuscipy_core.ndarray, shape (..., n)
        The inverse transform at ``r_j = r_c * exp((j - j_c) * dln)`` with
        ``k_c * r_c = exp(offset)``: a new C-contiguous real array of the
        shape of ``A``. float64, except float32 for float16 and float32
        input when ``bias`` is 0 (the bias factors are float64).

    Raises
    ------
    TypeError
        ``A`` cannot be read as an array of numbers, or is complex ("x
        must be a real sequence").
    IndexError
        ``A`` is 0-d.
    ZeroDivisionError
        {raises_zero_dln}
    ValueError
        {raises_value_fht_empty}

    Warns
    -----
    UserWarning
        "singular inverse transform; consider changing the bias": the
        kernel coefficient of frequency zero is 0 for this ``mu`` and
        ``bias``; it is replaced by infinity.

    See Also
    --------
    fht : The forward transform.
    fhtoffset : The offset that gives the least ringing.
    scipy.fft.ifht : The CPU function this mirrors.

    Notes
    -----
    {notes_fftlog}
    The inverse divides by the conjugate coefficients, and reverses the
    bias factors.

    References
    ----------
    {references_fftlog}

    Examples
    --------
    >>> import numpy as np
    >>> import gpuscipy_core as gp
    >>> import gpuscipy.fft as fft
    >>> n, dln, mu, bias = 64, 0.05, 0.5, 0.3
    >>> r = np.exp((np.arange(n) - (n - 1) / 2) * dln)
    >>> a = r**1.5 * np.exp(-r)
    >>> offset = fft.fhtoffset(dln, mu, bias=bias)
    >>> A = fft.fht(gp.asarray(a), dln, mu, offset=offset, bias=bias)  # doctest: +SKIP
    >>> back = fft.ifht(A, dln, mu, offset=offset, bias=bias)  # doctest: +SKIP
    >>> np.allclose(gp.asnumpy(back), a)  # doctest: +SKIP
    True
    """
    return _fht(A, "A", dln, mu, offset, bias, True)


@fill_doc
def fhtoffset(dln, mu, initial=0.0, bias=0.0):
    """Return the optimal offset for a fast Hankel transform.

    The offset closest to ``initial`` that fulfils the low-ringing
    condition of Hamilton [1]_ for :func:`fht` and :func:`ifht` with
    spacing ``dln``, order ``mu`` and bias ``bias``. Computed on the host.

    Parameters
    ----------
    {dln}
    {mu}
    initial : float, optional
        Initial value for the offset; the result is the closest value that
        fulfils the low-ringing condition. Default 0.
    {bias}

    Returns
    -------
    offset : float
        The offset (a NumPy float64 scalar on the host), to be passed as
        ``offset`` to :func:`fht` or :func:`ifht`.

    Raises
    ------
    ZeroDivisionError
        ``dln`` is a Python number equal to 0.
    TypeError
        An argument is not a number.

    See Also
    --------
    fht : The fast Hankel transform.
    ifht : The inverse fast Hankel transform.
    scipy.fft.fhtoffset : The CPU function this mirrors.

    Notes
    -----
    With ``q = bias``, ``x+- = (mu + 1 +- q) / 2`` and ``y = pi / (2 dln)``
    (the frequency of the Nyquist term of the FFTLog kernel), the phase of
    that kernel coefficient (see :func:`fht`) is ``pi * t`` with

    ``t = (ln 2 - offset) / dln + (Im lnGamma(x+ + iy) + Im lnGamma(x- + iy)) / pi``.

    The low-ringing condition asks for this coefficient to be real, i.e.
    ``t`` an integer; the returned offset is ``initial + (t - round(t)) dln``
    with ``t`` evaluated at ``initial``, the nearest such value. Two
    evaluations of :func:`scipy.special.loggamma` on the host; no device
    work. Same definition as :func:`scipy.fft.fhtoffset`.

    References
    ----------
    {references_fftlog}

    Examples
    --------
    >>> import gpuscipy.fft as fft
    >>> off = fft.fhtoffset(0.1, mu=0.5, initial=0.3)
    >>> round(float(off), 6)
    0.272357
    """
    from scipy.special import loggamma
    lnkr, q = initial, bias
    xp = (mu + 1 + q) / 2
    xm = (mu + 1 - q) / 2
    y = numpy.pi / (2 * dln)
    zp = loggamma(xp + 1j * y)
    zm = loggamma(xm + 1j * y)
    arg = (_LN_2 - lnkr) / dln + (zp.imag + zm.imag) / numpy.pi
    return lnkr + (arg - numpy.round(arg)) * dln
