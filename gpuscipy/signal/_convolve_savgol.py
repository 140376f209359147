"""``savgol_filter`` on the GPU.

The smoothing (or differentiating) FIR filter is SciPy's
``savgol_coeffs`` (computed on the host). Filtering is the direct
correlation kernel along ``axis`` (``rows`` or ``cols`` of
``_convolve_direct``) with the ndimage extension of ``mode`` applied while
loading, in the data's precision. In 'interp' mode the interior is the
zero-filled filter and one more kernel (``_convolve_savgol.cuh``) overwrites
the ``window_length // 2`` outputs at each end with the least-squares
polynomial fits of the edge windows, as dot products with rows of a
host-computed matrix (:func:`edge_matrix`).
"""

import functools
import math
import os

import numpy

from gpuscipy_core.kernel import read_source

from . import _convolve_direct as D

__all__ = ["savgol_filter", "edge_matrix", "kernel_source", "variants",
           "model_savgol"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_MODES = {"mirror": "mirror", "constant": "fill", "nearest": "nearest", "wrap": "wrap",
          "interp": "fill"}


_CUH = os.path.join(_HERE, "_convolve_savgol.cuh")


@functools.lru_cache(maxsize=8)
def kernel_source(dtype):
    """``(source, name)`` of the edge kernel for float32 or float64."""
    dt = numpy.dtype(dtype)
    X = D._ctype(dt)
    name = f"gssavgol_edges_{dt.str[1:]}"
    return (read_source(_CUH) + f'\nextern "C" __global__ void __launch_bounds__(256)\n'
            f"{name}(const {X}* x, long long n, long long sb, long long sl,\n"
            f"    long long si, const double* E, long long wl, long long h, {X}* out,\n"
            f"    long long outer, long long inner) {{\n"
            f"  gs_signal_savgol::edges<{X}>(x, n, sb, sl, si, E, wl, h, out, outer, inner);\n}}\n",
            name)


def variants():
    return [numpy.dtype(numpy.float32), numpy.dtype(numpy.float64)]


@functools.lru_cache(maxsize=64)
def edge_matrix(window_length, polyorder, deriv, delta):
    """(2h, window_length) float64: row e < h gives the ``deriv``-th
    derivative (per ``delta**deriv``) at position e of the degree-
    ``polyorder`` least-squares fit to a window; row h + k the same at
    position window_length - h + k (h = window_length // 2).

    Computed in a Legendre basis on the window mapped to [-1, 1] (well
    conditioned; SciPy's ``savgol_coeffs(pos=...)`` loses accuracy at the
    edges of long windows with high orders)."""
    wl = int(window_length)
    h = wl // 2
    leg = numpy.polynomial.legendre
    if h == 0:
        return numpy.zeros((0, wl))
    t = numpy.arange(wl, dtype=numpy.float64)
    c = (wl - 1) / 2.0
    s = max(c, 1.0)
    V = leg.legvander((t - c) / s, polyorder)
    pinv = numpy.linalg.pinv(V)
    pos = numpy.concatenate([numpy.arange(h), wl - h + numpy.arange(h)]).astype(float)
    up = (pos - c) / s
    Dm = numpy.zeros((2 * h, polyorder + 1))
    for k in range(polyorder + 1):
        coef = numpy.zeros(polyorder + 1)
        coef[k] = 1.0
        dk = leg.legder(coef, deriv) if deriv else coef
        Dm[:, k] = leg.legval(up, dk) / s ** deriv
    return Dm @ pinv / (float(delta) ** deriv)


def _edges_finite(xp, x, axis, window_length):
    """Whether the first and last ``window_length`` samples along ``axis``
    (the 'interp' edge windows) hold no inf or NaN: one reduction per end."""
    n = x.shape[axis]
    lead = (slice(None),) * axis
    ends = (x[lead + (slice(0, window_length),)], x[lead + (slice(n - window_length, n),)])
    if xp is numpy:
        return all(bool(numpy.isfinite(e).all()) for e in ends)
    from gpuscipy_core.lib import all_finite
    return all(all_finite(e) for e in ends)


def _savgol(xp, x, window_length, polyorder, deriv, delta, axis, mode, cval):
    if mode not in ["mirror", "constant", "nearest", "interp", "wrap"]:
        raise ValueError("mode must be 'mirror', 'constant', 'nearest' "
                         "'wrap' or 'interp'.")
    x = xp.asarray(x)
    if x.dtype != numpy.float64 and x.dtype != numpy.float32:
        x = x.astype(numpy.float64)
    from scipy.signal import savgol_coeffs
    coeffs = savgol_coeffs(window_length, polyorder, deriv=deriv, delta=delta)
    n = x.shape[axis]
    axis = axis % x.ndim
    if mode == "interp" and window_length > n:
        raise ValueError("If mode is 'interp', window_length must be less "
                         "than or equal to the size of x.")
    if mode == "interp" and x.size and not _edges_finite(xp, x, axis, window_length):
        # SciPy fits the edge polynomials with a least-squares solver whose
        # finiteness check raises (even for window_length 1)
        raise ValueError("array must not contain infs or NaNs")
    K = coeffs.shape[0]
    wshape = [1] * x.ndim
    wshape[axis] = K
    w = xp.asarray(numpy.ascontiguousarray(coeffs[::-1]).reshape(wshape).astype(x.dtype))
    starts = [0] * x.ndim
    starts[axis] = -((K - 1) // 2)
    fill = 0.0 if mode == "interp" else float(cval)
    y = D.correlate(xp, x, w, x.shape, starts, x.dtype, ext=_MODES[mode], fill=fill)
    if mode != "interp" or y.size == 0:
        return y
    h = window_length // 2
    if h == 0:
        return y
    E = xp.asarray(edge_matrix(window_length, polyorder, deriv, delta))
    xs, sb, sl, si = D.axis_view(xp, x, axis)
    outer = math.prod(xs.shape[:axis])
    inner = math.prod(xs.shape[axis + 1:])
    src, name = kernel_source(x.dtype)
    grid = (max(1, -(-(2 * h * inner) // 256)), D._grid1(outer), 1)
    D.launch(src, name, grid, (256, 1, 1),
             (D.ptr(xs), n, sb, sl, si, D.ptr(E), int(window_length), h, D.ptr(y),
              outer, inner), 0)
    return y


def savgol_filter(x, window_length, polyorder, deriv=0, delta=1.0, axis=-1,
                  mode="interp", cval=0.0):
    """Apply a Savitzky-Golay filter to an array.

    Parameters
    ----------
    x : array_like
        Data; converted to float64 unless float32 or float64.
    window_length : int
        Length of the filter window (<= ``x.shape[axis]`` in 'interp' mode).
    polyorder : int
        Order of the fitted polynomials, less than ``window_length``.
    deriv : int, optional
        Order of the derivative to compute (default 0).
    delta : float, optional
        Sample spacing, used when ``deriv > 0`` (default 1.0).
    axis : int, optional
        Axis along which to filter (default -1).
    mode : {'interp', 'mirror', 'constant', 'nearest', 'wrap'}, optional
        Edge handling: polynomial fits of the edge windows (default), or
        ndimage's extensions of the signal.
    cval : float, optional
        Fill value of 'constant' mode.

    Returns
    -------
    y : gpuscipy_core.ndarray
        Filtered data, same shape, float32 for float32 input else float64.

    Raises
    ------
    ValueError
        A bad ``mode``, ``polyorder >= window_length`` (SciPy's
        ``savgol_coeffs`` messages), ``window_length > x.shape[axis]`` in
        'interp' mode, an inf or NaN among the first or last
        ``window_length`` samples of a line in 'interp' mode (SciPy's
        least-squares edge fit refuses them).

    Notes
    -----
    Coefficients from ``scipy.signal.savgol_coeffs`` on the host; the
    filter runs on the GPU in the data's precision (SciPy's ndimage filter
    accumulates float32 data in float64; the difference is rounding, about
    ``window_length`` float32 ulps). The 'interp' edge fits are dot
    products (in float64) with a matrix computed on the host in a Legendre
    basis (more accurate than SciPy's float32 ``polyfit`` for float32 data).

    References
    ----------
    .. [1] A. Savitzky and M. J. E. Golay, "Smoothing and differentiation of
           data by simplified least squares procedures", Analytical
           Chemistry 36(8), 1964.
    """
    return _savgol(D.device_xp(), x, window_length, polyorder, deriv, delta, axis,
                   mode, cval)


def model_savgol(x, window_length, polyorder, deriv=0, delta=1.0, mode="interp",
                 cval=0.0):
    """NumPy model (1-D): the correlation contract with the ndimage
    extension, then the edge matrix rows for 'interp'."""
    from scipy.signal import savgol_coeffs
    x = numpy.asarray(x, dtype=numpy.float64)
    c = savgol_coeffs(window_length, polyorder, deriv=deriv, delta=delta)
    K = len(c)
    y = D.model_correlate(x, c[::-1].copy(), x.shape, [-((K - 1) // 2)], numpy.float64,
                          ext=_MODES[mode], fill=0.0 if mode == "interp" else cval)
    if mode == "interp":
        h = window_length // 2
        if h:
            E = edge_matrix(window_length, polyorder, deriv, delta)
            n = len(x)
            y[:h] = E[:h] @ x[:window_length]
            y[n - h:] = E[h:] @ x[n - window_length:]
    return y
