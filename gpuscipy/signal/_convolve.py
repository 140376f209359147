"""Convolution and correlation on the GPU (``scipy.signal``'s names).

``convolve``, ``correlate``, ``fftconvolve``, ``oaconvolve``,
``choose_conv_method``, ``correlation_lags``, ``convolve2d``,
``correlate2d`` and ``hilbert`` live here; ``medfilt`` and
``savgol_filter`` in ``_convolve_medfilt`` and ``_convolve_savgol`` (all
re-exported). Methods, costs and differences: docs/signal-convolve.md.

The implementations take an array namespace ``xp`` (gpuscipy_core for the
public functions) so that the CPU tests can run the same code with NumPy
arrays and host-emulated kernels.
"""

import functools
import math

import numpy

from . import _convolve_direct as D
from . import _convolve_fft as F
from . import _convolve_plan as P
from ._convolve_medfilt import medfilt
from ._convolve_savgol import savgol_filter

__all__ = ["convolve", "correlate", "fftconvolve", "oaconvolve", "choose_conv_method",
           "correlation_lags", "convolve2d", "correlate2d", "hilbert", "medfilt",
           "savgol_filter"]


def _next_fast_len(xp):
    return F._fft(xp).next_fast_len


def _reverse(x):
    return x[(slice(None, None, -1),) * x.ndim]


def _conj(xp, x):
    return xp.conj(x) if x.dtype.kind == "c" else x


# ---------------------------------------------------------------------------
# direct method
# ---------------------------------------------------------------------------

def direct_plan(s1, s2, mode, corr):
    """How the direct method maps onto the kernels' correlation contract.

    The full convolution of p = in1 and q (= in2 for convolve, in2 reversed
    and conjugated for correlate) is taken with the larger operand as the
    signal and the other, reversed, as the weights; 'same'/'valid' are
    windows of it (``_convolve_plan.region``). Returns a dict: ``sig``
    ('in1' or 'in2'), ``sig_flip`` (read the signal reversed and
    conjugated), ``w_flip``/``w_conj`` (how the weights come from the other
    input), ``out_shape`` and ``starts``.
    """
    n1, n2 = math.prod(s1), math.prod(s2)
    reg = [P.region(mode, a, b) for a, b in zip(s1, s2)]
    if n2 > n1:
        plan = dict(sig="in2", sig_flip=corr, w_flip=True, w_conj=False, kw=s1)
    else:
        plan = dict(sig="in1", sig_flip=False, w_flip=not corr, w_conj=corr, kw=s2)
    plan["out_shape"] = tuple(n for n, _ in reg)
    plan["starts"] = [st - (k - 1) for (_, st), k in zip(reg, plan.pop("kw"))]
    return plan


def _direct_operands(in1, in2, mode, corr, conj_w):
    """:func:`direct_plan` applied to the inputs: ``(res, acc, plan, sig, w,
    conj)`` with ``w`` reversed as planned and, when planned, conjugated by
    ``conj_w``; ``conj`` is whether the kernels read ``sig`` conjugated."""
    res = P.direct_result_dtype(in1.dtype, in2.dtype)
    acc = P.acc_dtype(res)
    plan = direct_plan(in1.shape, in2.shape, mode, corr)
    sig, other = (in1, in2) if plan["sig"] == "in1" else (in2, in1)
    conj = False
    if plan["sig_flip"]:
        sig = _reverse(sig)
        conj = sig.dtype.kind == "c"
    w = _reverse(other) if plan["w_flip"] else other
    if plan["w_conj"]:
        w = conj_w(w)
    return res, acc, plan, sig, w, conj


def direct(xp, in1, in2, mode, corr):
    """SciPy's direct method (after its checks and its 'valid' swap), by
    :func:`direct_plan`."""
    res, acc, plan, sig, w, conj = _direct_operands(in1, in2, mode, corr,
                                                    lambda v: _conj(xp, v))
    w = xp.ascontiguousarray(w.astype(acc))
    return D.correlate(xp, sig, w, plan["out_shape"], plan["starts"], res, conj=conj)


def model_direct(in1, in2, mode, corr):
    """NumPy model of :func:`direct`: the same plan, the kernels' contract
    evaluated by ``_convolve_direct.model_correlate``."""
    in1, in2 = numpy.asarray(in1), numpy.asarray(in2)
    res, acc, plan, sig, w, conj = _direct_operands(in1, in2, mode, corr, numpy.conj)
    out = D.model_correlate(sig.astype(acc), w.astype(acc), plan["out_shape"],
                            plan["starts"], acc, conj=conj)
    return (out != 0) if res.kind == "b" else out.astype(res)


def _direct_checked(xp, in1, in2, mode, corr, np_shapes):
    """The direct method with SciPy's dtype and empty-input behaviour."""
    res = P.direct_result_dtype(in1.dtype, in2.dtype)
    if res.char in "?e" and not P.np_conv_ok(*np_shapes, mode):
        raise ValueError("Unsupported type")
    if in1.size == 0 or in2.size == 0:
        err = P.empty_error(corr, "direct", mode, in1.shape, in2.shape)
        if err is not None:
            raise err
        return xp.empty(in1.shape, res)
    return direct(xp, in1, in2, mode, corr)


# ---------------------------------------------------------------------------
# FFT method
# ---------------------------------------------------------------------------

def _fftconvolve(xp, in1, in2, mode, axes, force_oa=False, out_dtype=None,
                 round_=False):
    in1 = xp.asarray(in1)
    in2 = xp.asarray(in2)
    if in1.ndim == in2.ndim == 0:
        return in1 * in2
    if in1.ndim != in2.ndim:
        raise ValueError(P.MSG_DIM)
    if in1.size == 0 or in2.size == 0:
        return xp.asarray(numpy.array([]))
    swap, axes = P.init_freq_conv_axes(in1.shape, in2.shape, mode, axes)
    if swap:
        in1, in2 = in2, in1
    P.check_mode(mode, P.MSG_MODE_FFT)
    if not axes:
        ret = in1 * in2
        reg = F._out_region(mode, in1.shape, in2.shape, [])
        return F._crop(xp, ret, [slice(st, st + n) for n, st in reg], 1.0, out_dtype,
                       round_)
    return F.fft_convolve(xp, in1, in2, mode, axes, force_oa=force_oa,
                          out_dtype=out_dtype, round_=round_)


def fftconvolve(in1, in2, mode="full", axes=None):
    """Convolve two N-dimensional arrays using FFT.

    Parameters
    ----------
    in1 : array_like
        First input (a device array or anything ``gpuscipy_core.asarray``
        takes).
    in2 : array_like
        Second input, with the same number of dimensions as ``in1``.
    mode : {'full', 'valid', 'same'}, optional
        Output size: the full discrete linear convolution (default), only
        the points that do not rely on zero-padding (one input must be at
        least as large as the other in every convolved dimension), or the
        size of ``in1`` centred on the full output.
    axes : int or array_like of ints or None, optional
        Axes over which to convolve (default all). The other axes must be
        equal or of length 1 in one input (broadcast).

    Returns
    -------
    out : gpuscipy_core.ndarray
        float32/complex64 when both inputs are float16/float32/complex64,
        else float64/complex128 (bool and integers compute in float64);
        complex when either input is complex. An empty input gives an empty
        float64 array; two 0-d inputs their product.

    Raises
    ------
    ValueError
        Different dimensionality, a bad ``mode`` or ``axes``, incompatible
        shapes on the non-convolved axes, or 'valid' mode with neither
        input at least as large as the other.

    Notes
    -----
    SciPy's definition (products of the spectra of the zero-padded inputs)
    computed with cuFFT. When one input is much longer than the other along
    an axis, the cost model may compute the same convolution by overlap-add
    blocks (as :func:`oaconvolve`), which on a GPU is usually faster than one
    transform of the full length (fewer passes over memory); results agree
    to rounding.

    References
    ----------
    .. [1] R. E. Crochiere and L. R. Rabiner, *Multirate Digital Signal
           Processing*, Prentice-Hall, 1983 (overlap-add).
    """
    return _fftconvolve(D.device_xp(), in1, in2, mode, axes)


def oaconvolve(in1, in2, mode="full", axes=None):
    """Convolve two N-dimensional arrays using the overlap-add method.

    Parameters
    ----------
    in1, in2 : array_like
        Inputs of the same number of dimensions.
    mode : {'full', 'valid', 'same'}, optional
        As in :func:`fftconvolve`.
    axes : int or array_like of ints or None, optional
        Axes over which to convolve (default all).

    Returns
    -------
    out : gpuscipy_core.ndarray
        As in :func:`fftconvolve` (the same dtype rules).

    Raises
    ------
    ValueError
        As :func:`fftconvolve`.

    Notes
    -----
    The longer input is cut, along the axis where the inputs' lengths differ
    most, into blocks of N - K + 1 samples (N a power of two chosen by the
    cost model, K the other input's length), zero-padded to N in one
    kernel; one batched FFT, a product with the other input's spectrum, one
    batched inverse FFT and one overlap-add kernel follow. Other convolved
    axes are transformed at full length. Where no axis allows blocks (equal
    shapes, a length ratio below 2), this is :func:`fftconvolve`, as in
    SciPy.

    References
    ----------
    .. [1] R. E. Crochiere and L. R. Rabiner, *Multirate Digital Signal
           Processing*, Prentice-Hall, 1983.
    .. [2] J. O. Smith, *Spectral Audio Signal Processing*, W3K Publishing,
           2011 (overlap-add).
    """
    xp = D.device_xp()
    a1 = xp.asarray(in1)
    a2 = xp.asarray(in2)
    if (a1.ndim == a2.ndim and a1.ndim and a1.size and a2.size
            and a1.shape == a2.shape):
        return _fftconvolve(xp, a1, a2, mode, axes)
    return _fftconvolve(xp, a1, a2, mode, axes, force_oa=True)


# ---------------------------------------------------------------------------
# convolve / correlate
# ---------------------------------------------------------------------------

def _convolve(xp, in1, in2, mode, method):
    volume = xp.asarray(in1)
    kernel = xp.asarray(in2)
    if volume.ndim == kernel.ndim == 0:
        return volume * kernel
    if volume.ndim != kernel.ndim:
        raise ValueError(P.MSG_DIM_CONVOLVE)
    if P.inputs_swap_needed(mode, volume.shape, kernel.shape):
        volume, kernel = kernel, volume
    if isinstance(method, str) and method == "auto":
        method = _choose(xp, volume, kernel, mode)
    if isinstance(method, str) and method == "fft":
        res = P.direct_result_dtype(volume.dtype, kernel.dtype)
        if volume.size == 0 or kernel.size == 0:
            raise P.empty_error(False, "fft", mode, volume.shape, kernel.shape)
        return _fftconvolve(xp, volume, kernel, mode, None, out_dtype=res,
                            round_=res.kind in "biu")
    if isinstance(method, str) and method == "direct":
        P.check_mode(mode, P.MSG_MODE)
        return _direct_checked(xp, volume, kernel, mode, False,
                               (volume.shape, kernel.shape))
    raise ValueError(P.MSG_METHOD)


def _correlate(xp, in1, in2, mode, method):
    in1 = xp.asarray(in1)
    in2 = xp.asarray(in2)
    if in1.ndim == in2.ndim == 0:
        return in1 * _conj(xp, in2)
    if in1.ndim != in2.ndim:
        raise ValueError(P.MSG_DIM)
    P.check_mode(mode, P.MSG_MODE)
    if isinstance(method, str) and method in ("fft", "auto"):
        return _convolve(xp, in1, _conj(xp, _reverse(in2)), mode, method)
    if isinstance(method, str) and method == "direct":
        P.inputs_swap_needed(mode, in1.shape, in2.shape)    # SciPy's 'valid' check
        return _direct_checked(xp, in1, in2, mode, True, (in1.shape, in2.shape))
    raise ValueError(P.MSG_METHOD)


def convolve(in1, in2, mode="full", method="auto"):
    """Convolve two N-dimensional arrays.

    Parameters
    ----------
    in1 : array_like
        First input.
    in2 : array_like
        Second input, with the same number of dimensions as ``in1``.
    mode : {'full', 'valid', 'same'}, optional
        Output size (see :func:`fftconvolve`).
    method : {'auto', 'direct', 'fft'}, optional
        'direct' sums products (the definition); 'fft' calls
        :func:`fftconvolve`; 'auto' (default) takes the one
        :func:`choose_conv_method` predicts faster on the GPU.

    Returns
    -------
    out : gpuscipy_core.ndarray
        Of NumPy's ``result_type(in1, in2)`` for every method (the FFT
        result of integer inputs is rounded, then cast). Integer results of
        the direct method are exact (sums modulo 2**n, as NumPy's).

    Raises
    ------
    ValueError
        Different dimensionality, a bad ``mode`` or ``method``, 'valid' mode
        with neither input at least as large as the other in every
        dimension, "Unsupported type" (SciPy's N-d direct method has no
        bool or float16 loop), empty inputs as SciPy rejects them.
    IndexError
        ``method='fft'`` with an empty input (as SciPy).

    Notes
    -----
    Direct kernels: 1-D rows with the input tile and weights in shared
    memory and a register window of consecutive outputs per thread; a
    strided-axis variant; a 2-D tiled kernel; a generic N-d kernel.
    SciPy's ``RuntimeWarning`` for FFT results starting with NaN/inf is not
    issued (it would cost a device-to-host synchronisation).
    """
    return _convolve(D.device_xp(), in1, in2, mode, method)


def correlate(in1, in2, mode="full", method="auto"):
    """Cross-correlate two N-dimensional arrays.

    ``z[k] = sum_l in1[l] * conj(in2[l - k + N - 1])`` (per axis, N the
    extent of ``in2``), the full output windowed by ``mode``.

    Parameters
    ----------
    in1, in2 : array_like
        Inputs of the same number of dimensions.
    mode : {'full', 'valid', 'same'}, optional
        Output size (see :func:`fftconvolve`).
    method : {'auto', 'direct', 'fft'}, optional
        As in :func:`convolve` ('fft' and 'auto' convolve with ``in2``
        reversed and conjugated).

    Returns
    -------
    out : gpuscipy_core.ndarray
        Of ``result_type(in1, in2)``.

    Raises
    ------
    ValueError, IndexError
        As :func:`convolve`.
    """
    return _correlate(D.device_xp(), in1, in2, mode, method)


# ---------------------------------------------------------------------------
# choose_conv_method
# ---------------------------------------------------------------------------

# the cost model's pick is a pure function of shapes, mode, dtypes and the
# fast-length rule: memoised
_choose_method = functools.lru_cache(maxsize=512)(P.choose_method)


def _choose(xp, volume, kernel, mode):
    if volume.ndim == 0 or volume.size == 0 or kernel.size == 0:
        return "direct"
    if not (volume.dtype.kind == "b" and kernel.dtype.kind == "b"):
        P.check_mode(mode, P.MSG_MODE_CHOOSE.format(mode))
    method = _choose_method(volume.shape, kernel.shape, mode, volume.dtype,
                            kernel.dtype, _next_fast_len(xp))
    if method == "fft" and (volume.dtype.kind in "ui" or kernel.dtype.kind in "ui"):
        # SciPy's exactness check: the largest possible sum must fit a
        # float64 mantissa (one device read back, only when FFT is chosen)
        mv = int(xp.max(xp.abs(volume))) * int(xp.max(xp.abs(kernel)))
        mv *= int(min(volume.size, kernel.size))
        if mv > 2 ** numpy.finfo(numpy.float64).nmant - 1:
            return "direct"
    return method


def _timeit(xp, f):
    """Best of three device times (seconds) of ``f()`` after a warm-up,
    measured with CUDA events on the current stream."""
    f()
    if xp is numpy:
        import time
        best = math.inf
        for _ in range(3):
            t = time.perf_counter()
            f()
            best = min(best, time.perf_counter() - t)
        return best
    from gpuscipy_core.cuda import Event
    start, end = Event(), Event()
    best = math.inf
    for _ in range(3):
        start.record()
        f()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1000.0)
    return best


def choose_conv_method(in1, in2, mode="full", measure=False):
    """Find the fastest convolution/correlation method on the GPU.

    Parameters
    ----------
    in1, in2 : array_like
        The arguments of the convolution.
    mode : {'full', 'valid', 'same'}, optional
        Output size.
    measure : bool, optional
        If True, run and time ``convolve`` with both methods on the device
        (CUDA events, best of three after a warm-up) and return the faster
        with the times.

    Returns
    -------
    method : str
        'direct' or 'fft'.
    times : dict, optional
        Seconds per method (``measure=True`` only).

    Raises
    ------
    ValueError
        A bad ``mode`` ("Acceptable mode flags are ..., not mode=...").

    Notes
    -----
    The default prediction is a GPU cost model (``_convolve_plan.CostModel``,
    docs/signal-convolve.md): the direct kernels are compute-bound at a
    multiply-add rate per dtype (scaled for the 2-D and N-d kernels), the
    FFT method memory-bound at a number of passes per transform, with the
    better of one padded transform and overlap-add blocks. As SciPy: bool
    inputs take 'direct', and integer inputs take 'direct' when the largest
    possible sum exceeds 2**52 (checked on the device only when 'fft' is
    predicted, one read back).
    """
    xp = D.device_xp()
    volume = xp.asarray(in1)
    kernel = xp.asarray(in2)
    if measure:
        times = {}
        for method in ("fft", "direct"):
            times[method] = _timeit(xp, lambda m=method: _convolve(xp, volume, kernel,
                                                                  mode, m))
        return ("fft" if times["fft"] < times["direct"] else "direct"), times
    return _choose(xp, volume, kernel, mode)


def correlation_lags(in1_len, in2_len, mode="full"):
    """Lag indices of a 1-D cross-correlation.

    Parameters
    ----------
    in1_len, in2_len : int
        Lengths of the first and second inputs.
    mode : {'full', 'valid', 'same'}, optional
        As in :func:`correlate`.

    Returns
    -------
    lags : gpuscipy_core.ndarray
        int64 lags (a device array, like every result of this module; SciPy
        returns a NumPy array). Computed with integer arithmetic on the host.

    Raises
    ------
    ValueError
        ``Mode {mode} is invalid``.
    """
    return D.device_xp().asarray(_lags(in1_len, in2_len, mode))


def _lags(in1_len, in2_len, mode):
    if mode == "full":
        return numpy.arange(-in2_len + 1, in1_len)
    if mode == "same":
        lags = numpy.arange(-in2_len + 1, in1_len)
        mid = lags.size // 2
        bound = in1_len // 2
        if in1_len % 2 == 0:
            return lags[(mid - bound):(mid + bound)]
        return lags[(mid - bound):(mid + bound) + 1]
    if mode == "valid":
        bound = in1_len - in2_len
        if bound >= 0:
            return numpy.arange(bound + 1)
        return numpy.arange(bound, 1)
    raise ValueError(f"Mode {mode} is invalid")


# ---------------------------------------------------------------------------
# convolve2d / correlate2d
# ---------------------------------------------------------------------------

def _conv2d(xp, in1, in2, mode, boundary, fillvalue, corr):
    name = "correlate2d" if corr else "convolve2d"
    in1 = xp.asarray(in1)
    in2 = xp.asarray(in2)
    if not in1.ndim == in2.ndim == 2:
        raise ValueError(f"{name} inputs must both be 2-D arrays")
    swapped = P.inputs_swap_needed(mode, in1.shape, in2.shape)
    if swapped:
        in1, in2 = in2, in1
    P.check_mode(mode, P.MSG_MODE)
    try:
        ext = P.BOUNDARIES[boundary]
    except (KeyError, TypeError):
        raise ValueError(P.MSG_BOUNDARY) from None
    res = P.direct_result_dtype(in1.dtype, in2.dtype)
    fill = 0
    if ext == "fill":
        fill = P.fill_value(fillvalue, res)
    if boundary == "reflect":
        raise ValueError("Incorrect boundary value.")
    if res.char in "?e":
        raise ValueError("convolve2d not available for this type.")
    if ext != "fill" and in1.size == 0:
        raise ValueError(f"{name}: boundary {boundary!r} needs a non-empty in1")
    acc = P.acc_dtype(res)
    (M, N), (K, L) = in1.shape, in2.shape
    if corr:
        reg = [P.region(mode, M, K, K // 2), P.region(mode, N, L, L // 2)]
        w = _conj(xp, in2)
    else:
        reg = [P.region(mode, M, K), P.region(mode, N, L)]
        w = _reverse(in2)
    w = xp.ascontiguousarray(w.astype(acc))
    starts = [reg[0][1] - (K - 1), reg[1][1] - (L - 1)]
    out = D.correlate(xp, in1, w, (reg[0][0], reg[1][0]), starts, res, ext=ext,
                      fill=fill, force2d=True)
    if corr and swapped:
        out = out[::-1, ::-1]
    return out


def convolve2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """Convolve two 2-dimensional arrays.

    Parameters
    ----------
    in1, in2 : array_like
        2-D inputs.
    mode : {'full', 'valid', 'same'}, optional
        Output size ('same' centres ``in1``'s shape in the full output).
    boundary : {'fill', 'wrap', 'symm'}, optional
        Extension of ``in1`` beyond its edges: ``fillvalue`` (also 'pad'),
        circular ('wrap', 'circular'), mirror-symmetric with the edge
        repeated ('symm', 'symmetric').
    fillvalue : scalar, optional
        Value of the 'fill' extension (default 0), cast to the result dtype
        as SciPy does.

    Returns
    -------
    out : gpuscipy_core.ndarray
        2-D, of ``result_type(in1, in2)``.

    Raises
    ------
    ValueError
        Inputs not 2-D, bad ``mode``/``boundary``, 'valid' mode with
        neither input at least as large as the other, a bool or float16
        result ("convolve2d not available for this type."), a bad
        ``fillvalue`` (SciPy's messages), 'wrap'/'symm' of an empty ``in1``
        (SciPy divides by zero there).

    Notes
    -----
    The 2-D tiled kernel: each block computes a 32 x 64 (4-byte types)
    output tile from an input tile (with the boundary extension applied
    while loading) and a chunk of up to 32 x 32 weights in shared memory.
    """
    return _conv2d(D.device_xp(), in1, in2, mode, boundary, fillvalue, False)


def correlate2d(in1, in2, mode="full", boundary="fill", fillvalue=0):
    """Cross-correlate two 2-dimensional arrays.

    Parameters and errors as :func:`convolve2d`. 'same' mode centres like
    SciPy's ``correlate2d`` (which, for even ``in2`` extents, differs by one
    sample from :func:`correlate`); in 'valid' mode with ``in2`` the larger
    input, the result is SciPy's: the correlation of ``in2`` with ``in1``
    reversed in both axes (a reversed view).

    Returns
    -------
    out : gpuscipy_core.ndarray
        2-D, of ``result_type(in1, in2)``.
    """
    return _conv2d(D.device_xp(), in1, in2, mode, boundary, fillvalue, True)


# ---------------------------------------------------------------------------
# hilbert
# ---------------------------------------------------------------------------

def _hilbert(xp, x, N, axis):
    x = xp.asarray(x)
    if x.dtype.kind == "c":
        raise ValueError("x must be real.")
    if N is None:
        N = x.shape[axis]
    if N <= 0:
        raise ValueError("N must be positive.")
    return F.analytic_signal(xp, x, N, axis)


def hilbert(x, N=None, axis=-1):
    """Compute the analytic signal, using the Hilbert transform.

    Parameters
    ----------
    x : array_like
        Real signal.
    N : int, optional
        Number of Fourier components (default ``x.shape[axis]``); ``x`` is
        cut or zero-padded to it.
    axis : int, optional
        Axis along which to transform (default -1).

    Returns
    -------
    xa : gpuscipy_core.ndarray
        Complex analytic signal (complex64 for float16/float32 input, else
        complex128), N points along ``axis``.

    Raises
    ------
    ValueError
        Complex ``x`` ("x must be real."), ``N <= 0``.

    Notes
    -----
    One real FFT (half the work of SciPy's complex one), one kernel writing
    the one-sided spectrum (DC and the Nyquist bin of even N kept, positive
    frequencies doubled, negative zeroed, 1/N folded in) and one complex
    inverse FFT.

    References
    ----------
    .. [1] S. L. Marple, "Computing the discrete-time analytic signal via
           FFT", IEEE Trans. Signal Processing 47(9), 1999.
    """
    return _hilbert(D.device_xp(), x, N, axis)
