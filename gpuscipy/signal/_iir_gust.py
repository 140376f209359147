"""``filtfilt(method='gust')``: Gustafsson's initial conditions, on the device.

F. Gustafsson, "Determining the initial states in forward-backward
filtering", IEEE Transactions on Signal Processing 44(4), 988-992, 1996.
The forward-backward and backward-forward outputs from zero state differ
by a linear function of the two unknown initial states; the states that
make the two orders agree in the least-squares sense give the output. The
observability matrix O (the zero-input response of each unit state), S
(the filter applied to the reversed O) and the least-squares solve
(``gpuscipy.linalg.lstsq``) all stay on the device; SciPy's steps and
dtypes are followed one by one (``gust_matrices`` builds the same matrices
with any ``lfilter``, so the CPU tests run it with SciPy's).
"""

import warnings

import numpy

import gpuscipy_core as gp

__all__ = ["gust_matrices", "filtfilt_gust"]


def gust_matrices(lfilter, xp, b, a, m, order, n):
    """``(M, W)`` of Gustafsson's method for an ``m``-sample window of an
    ``n``-sample signal: M = [S^R - O, O^R - S] and W = [S^R, O^R] (block
    diagonal when m < n). ``lfilter`` and ``xp`` are SciPy's and NumPy, or
    ours and gpuscipy_core."""
    zi = numpy.zeros(order)
    zi[0] = 1
    col = lfilter(b, a, xp.zeros(m), zi=zi)[0]
    if col.dtype.kind == "c":  # SciPy stores it in a float64 array
        warnings.warn("Casting complex values to real discards the imaginary part",
                      numpy.exceptions.ComplexWarning, stacklevel=3)
        col = col.real
    obs = xp.zeros((m, order))
    obs[:, 0] = col
    for k in range(1, order):
        obs[k:, k] = obs[:-k, 0]
    obsr = obs[::-1]
    s = lfilter(b, a, obsr, axis=0)
    sr = s[::-1]
    if m == n:
        M = xp.concatenate((sr - obs, obsr - s), axis=1)
        W = xp.concatenate((sr, obsr), axis=1)
    else:
        if s.dtype.kind == "c":
            warnings.warn("Casting complex values to real discards the imaginary part",
                          numpy.exceptions.ComplexWarning, stacklevel=3)
            s, sr = s.real, sr.real
        M = xp.zeros((2 * m, 2 * order))
        M[:m, :order] = sr - obs
        M[m:, order:] = obsr - s
        W = xp.zeros((2 * m, 2 * order))
        W[:m, :order] = sr
        W[m:, order:] = obsr
    return M, W


def filtfilt_gust(b, a, x, axis=-1, irlen=None, lfilter=None):
    """Forward-backward filtering with Gustafsson's initial conditions
    (``x`` a device array; ``lfilter`` the device lfilter)."""
    from gpuscipy.linalg import lstsq
    order = max(len(b), len(a)) - 1
    if order == 0:
        scale = (b[0] / a[0]) ** 2
        return scale * x
    x = gp.swapaxes(x, axis, x.ndim - 1)
    n = x.shape[-1]
    m = n if irlen is None or n <= 2 * irlen else irlen
    M, W = gust_matrices(lfilter, gp, b, a, m, order, n)
    y_f = lfilter(b, a, x)
    y_fb = lfilter(b, a, y_f[..., ::-1])[..., ::-1]
    y_b = lfilter(b, a, x[..., ::-1])[..., ::-1]
    y_bf = lfilter(b, a, y_b)
    delta = y_bf - y_fb
    if m != n:
        delta = gp.concatenate((delta[..., :m], delta[..., -m:]), axis=-1)
    if delta.ndim == 1:
        ic_opt = lstsq(M, delta)[0]
    else:
        delta2d = delta.reshape(-1, delta.shape[-1]).T
        ic_opt = lstsq(M, delta2d)[0].T
        ic_opt = ic_opt.reshape(delta.shape[:-1] + (M.shape[-1],))
    wic = gp.matmul(ic_opt, W.T)
    y_opt = y_fb.copy()
    if m == n:
        y_opt += wic
    else:
        y_opt[..., :m] += wic[..., :m]
        y_opt[..., -m:] += wic[..., -m:]
    return gp.swapaxes(y_opt, axis, x.ndim - 1)
