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


_DOC_FHT = """
    Parameters
    ----------
    {inp} : gpuscipy_core.ndarray (..., n)
        Real periodic input array, uniformly logarithmically spaced. For
        multidimensional input, the transform is performed over the last
        axis. Integer and float16 input compute in float64/float32 as in
        SciPy.
    dln : float
        Uniform logarithmic spacing of the input array.
    mu : float
        Order of the Hankel transform, any positive or negative real number.
    offset : float, optional
        Offset of the uniform logarithmic spacing of the output array.
    bias : float, optional
        Exponent of power law bias, any positive or negative real number.

    Returns
    -------
    {out} : gpuscipy_core.ndarray (..., n)
        The transformed output array, which is real, periodic, uniformly
        logarithmically spaced, and of the same shape as the input array.

    Raises
    ------
    TypeError
        Complex input, or ``{inp}`` is not a device array.
    IndexError
        0-d input.

    Notes
    -----
    Same definition as :func:`scipy.fft.{name}`. The kernel coefficients
    are computed on the host (scipy.special.loggamma), the FFTs on the GPU.

    References
    ----------
    .. [1] Hamilton A. J. S., 2000, MNRAS, 312, 257 (astro-ph/9905191)
"""


def fht(a, dln, mu, offset=0.0, bias=0.0):
    """Compute the fast Hankel transform.

    Computes the discrete Hankel transform of a logarithmically spaced
    periodic sequence using the FFTLog algorithm.
    """
    return _fht(a, "a", dln, mu, offset, bias, False)


def ifht(A, dln, mu, offset=0.0, bias=0.0):
    """Compute the inverse fast Hankel transform.

    Computes the discrete inverse Hankel transform of a logarithmically
    spaced periodic sequence. This is the inverse operation to :func:`fht`.
    """
    return _fht(A, "A", dln, mu, offset, bias, True)


fht.__doc__ += _DOC_FHT.format(inp="a", out="A", name="fht")
ifht.__doc__ += _DOC_FHT.format(inp="A", out="a", name="ifht")


def fhtoffset(dln, mu, initial=0.0, bias=0.0):
    """Return optimal offset for a fast Hankel transform.

    Returns an offset close to `initial` that fulfils the low-ringing
    condition of Hamilton (2000) for the fast Hankel transform `fht` with
    logarithmic spacing `dln`, order `mu` and bias `bias`. Computed on the
    host (a scalar).

    Parameters
    ----------
    dln : float
        Uniform logarithmic spacing of the transform.
    mu : float
        Order of the Hankel transform, any positive or negative real number.
    initial : float, optional
        Initial value for the offset. Returns the closest value that fulfils
        the low-ringing condition.
    bias : float, optional
        Exponent of power law bias, any positive or negative real number.

    Returns
    -------
    offset : float
        Optimal offset of the uniform logarithmic spacing of the transform
        that fulfils a low-ringing condition (a NumPy float64 scalar on
        the host).

    Raises
    ------
    ZeroDivisionError
        ``dln`` is zero (a Python number).
    TypeError
        A non-numeric argument.

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
    .. [1] Hamilton A. J. S., 2000, MNRAS, 312, 257 (astro-ph/9905191)
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
