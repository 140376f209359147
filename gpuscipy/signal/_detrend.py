"""scipy.signal.detrend on the GPU.

Method: the axis is moved last (a view; lines of a strided or
negative-stride array are read in place when its outer axes collapse to two
stride groups, else copied once). Each piece between breakpoints is fitted
by least squares in closed form from two moments, sum(x) and
sum((t - tbar) x), accumulated in double: mean = sum(x) / N,
slope = sum((t - tbar) x) / (N (N^2 - 1) / 12), residual
x - mean - slope (t - tbar). Lines whose pieces fit one block (8192
samples) take one fused kernel (moments, then residuals, one block per
line); longer pieces take two kernels (per-chunk moments, then residuals
with the piece's moments summed in chunk order), so one long line still
fills the GPU. 'constant' is the same with one piece and no slope.

The result is the projection SciPy's ``lstsq`` computes; values agree to
rounding (SciPy solves with an SVD in the data's precision).
"""

import numpy
from numpy.lib.array_utils import normalize_axis_index

from . import _spectral_host as H
from . import _spectral_kernels as _device
from ._spectral_kernels import line_layout

__all__ = ["detrend"]

_TYPES = ['linear', 'l', 'constant', 'c']

# The backend ``detrend`` runs on (the CPU tests swap in ``_spectral_models``).
_BE = _device


def _constant_dtype(dt):
    """dtype of ``data - mean(data)`` in NumPy (float16 stays float16)."""
    z = numpy.zeros(1, dt)
    return (z - numpy.mean(z)).dtype


def _bounds(bp, N):
    """The piece boundaries SciPy's detrend uses, with its errors."""
    bp = numpy.asarray(H.host_array(bp))
    bp = numpy.sort(numpy.unique(numpy.concatenate(numpy.atleast_1d(0, bp, N))))
    if numpy.any(bp > N):
        raise ValueError("Breakpoints must be less than length "
                         "of data along given axis.")
    out = []
    for m in range(len(bp) - 1):
        npts = bp[m + 1] - bp[m]
        if not isinstance(npts, (int, numpy.integer)):
            raise TypeError(f"'{type(npts).__module__}.{type(npts).__name__}' object "
                            "cannot be interpreted as an integer")
        rows = len(range(N)[slice(int(bp[m]), int(bp[m + 1]))])
        if rows != npts:
            raise ValueError("Shape mismatch: a and b should have the same number of "
                             f"rows ({npts} != {rows}).")
    for v in bp:
        out.append(int(v))
    return out


def _detrend_impl(be, data, axis, type, bp, overwrite_data):
    if type not in _TYPES:
        raise ValueError("Trend type must be 'linear' or 'constant'.")
    given = data
    if be.is_device:
        import gpuscipy_core as gp
        data = data if isinstance(data, gp.ndarray) else gp.asarray(data)
        resident = isinstance(given, gp.ndarray)
    else:
        data = numpy.asarray(data)
        resident = isinstance(given, numpy.ndarray)
    if data.size == 0:
        # no data: SciPy's own answer (shape, dtype, warnings, errors)
        from scipy.signal import detrend as sp_detrend
        bph = bp if numpy.isscalar(bp) else H.host_array(bp)
        r = sp_detrend(numpy.empty(data.shape, data.dtype), axis=axis, type=type, bp=bph,
                       overwrite_data=False)
        return be.asarray(r)
    dt = data.dtype
    if type in ('constant', 'c'):
        axis = normalize_axis_index(axis, data.ndim)
        out_dtype = _constant_dtype(dt)
        work = out_dtype if out_dtype.char in "fdFD" else numpy.dtype(numpy.float32)
        bounds = [0, data.shape[axis]]
        linear = False
    else:
        N = data.shape[axis]
        bounds = _bounds(bp, N)
        if axis < 0:
            axis = axis + data.ndim
        out_dtype = dt if dt.char in "dfDF" else numpy.dtype(numpy.float64)
        work = out_dtype
        linear = True
    if linear and not be.all_finite(data):
        # scipy.linalg.lstsq's check_finite, which SciPy's fit goes through
        raise ValueError("array must not contain infs or NaNs")
    xm = be.xp.moveaxis(data, axis, -1)
    if linear and overwrite_data and resident and dt == work:
        in_place = (not be.is_device
                    or line_layout(xm.shape, xm.strides, xm.itemsize) is not None)
        if in_place:
            be.detrend_lines(xm, bounds, True, out=xm)
        else:
            xm[...] = be.detrend_lines(xm, bounds, True)
        return data
    if xm.dtype != work:
        xm = xm.astype(work)
    y = be.detrend_lines(xm, bounds, linear)
    if y.dtype != out_dtype:
        y = y.astype(out_dtype)
    return be.xp.moveaxis(y, -1, axis)


def detrend(data, axis=-1, type='linear', bp=0, overwrite_data=False):
    """Remove linear or constant trend along axis from data.

    Parameters
    ----------
    data : array_like
        The input data (device array, or anything ``gpuscipy_core.asarray``
        takes), any layout (strided and negative-stride views are read in
        place).
    axis : int, optional
        The axis along which to detrend the data. Default -1.
    type : {'linear', 'constant'}, optional
        'linear' (default, also 'l'): the least-squares line of each piece
        between breakpoints is subtracted. 'constant' (also 'c'): the mean.
    bp : array_like of ints, optional
        Breakpoints (sample indices, host or device) between which separate
        lines are fitted; only for 'linear'.
    overwrite_data : bool, optional
        For 'linear' on a float32/float64/complex device array, write the
        result into ``data`` and return it (as SciPy may).

    Returns
    -------
    ret : gpuscipy_core.ndarray
        The detrended data, same shape. dtype: 'constant' as
        ``data - mean(data)`` in NumPy (integers and bool give float64,
        float16 stays float16); 'linear' keeps float32/float64/complex64/
        complex128 and gives float64 otherwise.

    Raises
    ------
    ValueError
        "Trend type must be 'linear' or 'constant'."; "Breakpoints must be
        less than length of data along given axis."; negative breakpoints
        (SciPy's lstsq shape-mismatch message); for 'linear', data holding
        inf or NaN ("array must not contain infs or NaNs", as SciPy's
        lstsq; one extra pass over the data and one device sync).
    TypeError
        Non-integer breakpoints (as SciPy).
    IndexError, numpy.exceptions.AxisError
        An axis out of range (as SciPy for each type).

    Notes
    -----
    Each piece of N samples is fitted in closed form from sum(x) and
    sum((t - tbar) x) accumulated in double (the least-squares line through
    t = 0..N-1 about its centre tbar = (N-1)/2); see the module notes for
    the kernels.

    References
    ----------
    Least squares for a line through equispaced points: e.g. Å. Björck,
    *Numerical Methods for Least Squares Problems*, SIAM, 1996, sec. 1.1.
    """
    return _detrend_impl(_BE, data, axis, type, bp, overwrite_data)
