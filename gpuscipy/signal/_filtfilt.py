"""Zero-phase filtering: ``filtfilt`` and ``sosfiltfilt`` (SciPy's
signatures, padding, steady-state initial conditions and errors), two
passes of the GPU recurrences of ``_iir`` over an extended signal.

The common call (a float or complex device array filtered along its last
axis with padding) takes a lean route: the extension in one
launch, the steady states scaled by each row's end sample in one launch,
and each pass straight onto the filter kernels with the coefficients,
kernel parameters and device steady state cached by value, skipping the
public filters' checks and layout moves (which the arguments already
passed). Other calls run the public ``lfilter``/``sosfilt`` twice, as
SciPy does.
"""

import functools

import numpy

import gpuscipy_core as gp

from .._lazy import scipy_signal as _ss
from . import _iir
from . import _iir_kernels as K
from ._iir import (_device, _host, _key, _shape_of, _unkey, _validate_sos, lfilter,
                   sosfilt)

__all__ = ["filtfilt", "sosfiltfilt"]


@functools.lru_cache(maxsize=256)
def _steady_state_cached(kind, key):
    zi = (_ss.sosfilt_zi if kind == "sos" else _ss.lfilter_zi)(*_unkey(key))
    zi.setflags(write=False)
    return zi


def _steady_state(kind, *coefs):
    """SciPy's ``sosfilt_zi(sos)`` (``kind`` 'sos') or ``lfilter_zi(b, a)``
    of host coefficients, cached by value for small numeric filters: the
    host solve costs ~0.3 ms per call, more than the GPU passes of a
    100k-sample filtfilt. Errors are raised by SciPy and not cached."""
    if all(c.dtype.kind in "biufc" and c.size <= 6 * 64 for c in coefs):
        return _steady_state_cached(kind, _key(*coefs))
    return (_ss.sosfilt_zi if kind == "sos" else _ss.lfilter_zi)(*coefs)


_EXT_MODES = {"odd": 0, "even": 1, "constant": 2}
_EXT_BODY = """
const long long W = L + 2 * n;
const long long r = (long long)i / W;
const long long j = (long long)i - r * W;
const long long o = r * L;
if (j >= n && j < n + L) {
  y = x[o + j - n];
} else {
  const bool left = j < n;
  const T end = left ? x[o] : x[o + L - 1];
  if (mode == 2) {
    y = end;
  } else {
    const long long k = left ? o + n - j : o + L - 2 - (j - n - L);
    y = mode == 1 ? x[k] : (T)(end + end - x[k]);
  }
}
"""
_ext_kernel = []


def _extend_rows(x, n, mode):
    """The odd/even/constant extension by ``n`` samples of each row of the
    float or complex ``x`` (last axis), in one launch (a non-contiguous
    ``x`` is made C-contiguous first, by the kernel's raw argument)."""
    if not _ext_kernel:
        _ext_kernel.append(gp.ElementwiseKernel(
            "raw T x, int64 L, int64 n, int32 mode", "T y", _EXT_BODY,
            "gs_signal_extend_rows"))
    L = x.shape[-1]
    y = gp.empty(x.shape[:-1] + (L + 2 * n,), x.dtype)
    if y.size:
        _ext_kernel[0](x, numpy.int64(L), numpy.int64(n), numpy.int32(mode), y)
    return y


def _axis_slice(a, start=None, stop=None, step=None, axis=-1):
    idx = [slice(None)] * a.ndim
    idx[axis] = slice(start, stop, step)
    return a[tuple(idx)]


def _odd_ext(x, n, axis):
    left_end = _axis_slice(x, 0, 1, axis=axis)
    left = _axis_slice(x, n, 0, -1, axis=axis)
    right_end = _axis_slice(x, -1, None, axis=axis)
    right = _axis_slice(x, -2, -(n + 2), -1, axis=axis)
    return gp.concatenate((2 * left_end - left, x, 2 * right_end - right), axis=axis)


def _even_ext(x, n, axis):
    left = _axis_slice(x, n, 0, -1, axis=axis)
    right = _axis_slice(x, -2, -(n + 2), -1, axis=axis)
    return gp.concatenate((left, x, right), axis=axis)


def _const_ext(x, n, axis):
    shape = list(x.shape)
    shape[axis] = n
    left = gp.broadcast_to(_axis_slice(x, 0, 1, axis=axis), shape)
    right = gp.broadcast_to(_axis_slice(x, -1, None, axis=axis), shape)
    return gp.concatenate((left, x, right), axis=axis)


def _check_pad(padtype, padlen, x_shape, axis, ntaps):
    """SciPy's checks of the padding; returns the edge length."""
    if padtype not in ["even", "odd", "constant", None]:
        raise ValueError(f"Unknown value '{padtype}' given to padtype. "
                         "padtype must be 'even', 'odd', 'constant', or None.")
    if padtype is None:
        padlen = 0
    edge = ntaps * 3 if padlen is None else padlen
    if x_shape[axis] <= edge:
        raise ValueError("The length of the input vector x must be greater than "
                         f"padlen, which is {edge}.")
    return edge


def _extend(padtype, x, edge, axis):
    if padtype is not None and edge > 0:
        if axis in (-1, x.ndim - 1) and x.dtype.char in "fdFD" and x.flags.c_contiguous:
            return _extend_rows(x, edge, _EXT_MODES[padtype])
        return {"even": _even_ext, "odd": _odd_ext, "constant": _const_ext}[padtype](
            x, edge, axis)
    return x


# ---------------------------------------------------------------- the lean route

@functools.lru_cache(maxsize=256)
def _device_row(raw, dtype, device):
    """The flattened steady state (bytes ``raw`` of ``dtype``) on ``device``
    (read-only by convention: only scaled copies of it are used)."""
    return gp.asarray(numpy.frombuffer(raw, numpy.dtype(dtype)))


def _scaled_states(zrow, ends, dtype):
    """``zrow * ends``: (nch, D) C-contiguous states in ``dtype`` from the
    steady state (D,) and each row's end sample ``ends`` (nch, 1), as
    SciPy's ``zi * x0`` (the product in its own precision, then the cast)."""
    z = gp.multiply(zrow[None, :], ends)
    return z if z.dtype == dtype else z.astype(dtype)


def _lean_route(x, axis, padtype, edge, zi, coef_dtype, make_pass):
    """The zero-phase result by the lean route, or None where it does not
    apply. It applies to a non-empty float or complex device array, the
    last axis, an extension (a non-contiguous ``x``, such as the reversed
    view a previous filtfilt returns, is copied by the extension kernel's
    raw argument), a float or complex compute dtype, and a filter that
    ``make_pass(dtype)`` gives a ``one_pass(x, states)`` for."""
    if not (padtype is not None and edge > 0 and x.size > 0
            and (axis == -1 or axis == x.ndim - 1) and x.dtype.char in "fdFD"):
        return None
    # SciPy's result type: the filter's, with x and the states zi * x0
    dtype = numpy.result_type(coef_dtype, x.dtype, numpy.result_type(zi.dtype, x.dtype))
    one_pass = make_pass(dtype) if dtype.char in "fdFD" else None
    if one_pass is None:
        return None
    ext = _extend_rows(x, edge, _EXT_MODES[padtype])
    zrow = _device_row(zi.tobytes(), zi.dtype.str, gp.cuda.get_device_id())
    w = ext.shape[-1]
    nch = ext.size // w
    y = one_pass(ext, _scaled_states(zrow, ext.reshape(nch, w)[:, :1], dtype))
    yb = one_pass(y[..., ::-1],
                  _scaled_states(zrow, y.reshape(nch, w)[:, w - 1:], dtype))
    return yb[..., ::-1][..., edge:w - edge]


def _sos_pass(sos, n_sections, dtype):
    """``one_pass`` of sosfilt along the last axis from canonical states
    (None for no sections)."""
    if n_sections == 0:
        return None
    groups = _iir._sos_groups(sos, dtype)

    def run(x, z):
        plan = _iir._Plan(x, x.ndim - 1, dtype)
        for s0, s1, coefs, packed, zm in groups:
            if s0 > 0:  # the next group filters the output in place
                plan.x, plan.xm = plan.y, plan.ym
            K.filter_lines(
                "sos", s1 - s0, coefs, plan.x, plan.x.dtype, plan.xm, plan.y, plan.ym,
                zi=z.ptr + 2 * s0 * z.itemsize, zm=zm, zf=0, zf_stride=2 * n_sections,
                n=plan.n, nch=plan.nch, staged=plan.staged, packed=packed)
        return plan.result()
    return run


def _ba_pass(b, a, dtype):
    """``one_pass`` of lfilter along the last axis from canonical states,
    or None when lfilter would take another path (one ``a`` coefficient,
    ``a[0] == 0``, a state above ``K.DMAX``)."""
    d = max(len(a), len(b)) - 1
    if len(a) == 1 or a[0] == 0 or d > K.DMAX:
        return None
    coefs, packed = _iir._packed("ba", _key(b, a), dtype.str)

    def run(x, z):
        plan = _iir._Plan(x, x.ndim - 1, dtype)
        _iir._run_ba(coefs, d, plan, z, None, packed)
        return plan.result()
    return run


# ---------------------------------------------------------------- the general route

def _forward_backward(filt, ext, zi, edge, axis):
    """filtfilt's two passes of ``filt(x, axis=, zi=)`` over the extended
    input ``ext``: forward from ``zi`` times its first sample, backward from
    ``zi`` times the last output; then the ``edge`` extension cut off."""
    x0 = _axis_slice(ext, stop=1, axis=axis)
    y, _ = filt(ext, axis=axis, zi=zi * x0)
    y0 = _axis_slice(y, start=-1, axis=axis)
    y, _ = filt(gp.flip(y, axis=axis), axis=axis, zi=zi * y0)
    y = gp.flip(y, axis=axis)
    if edge > 0:
        y = _axis_slice(y, start=edge, stop=-edge, axis=axis)
    return y


def filtfilt(b, a, x, axis=-1, padtype="odd", padlen=None, method="pad", irlen=None):
    """Apply a digital filter forward and backward (zero phase).

    Parameters
    ----------
    b, a : array_like, 1-D
        Filter coefficients.
    x : array_like
        Data (device or host).
    axis : int, optional
        Axis along which to filter. Default -1.
    padtype : {'odd', 'even', 'constant', None}, optional
        Extension at both ends (method 'pad'). Default 'odd'.
    padlen : int or None, optional
        Samples of extension; default ``3 * max(len(a), len(b))``.
    method : {'pad', 'gust'}, optional
        'pad': extension and ``lfilter_zi`` initial conditions; 'gust':
        Gustafsson's initial conditions.
    irlen : int or None, optional
        'gust' only: length of the impulse response considered.

    Returns
    -------
    y : gpuscipy_core.ndarray
        The filtered output, shape of ``x``.

    Raises
    ------
    ValueError
        Bad ``padtype`` or ``method``; ``x.shape[axis] <= padlen``
        ("The length of the input vector x must be greater than padlen,
        which is N."); the errors of :func:`lfilter` and :func:`lfilter_zi`.

    Notes
    -----
    Two :func:`lfilter` passes on the device; the backward pass reads the
    forward output reversed (a view). 'gust' follows F. Gustafsson,
    "Determining the initial states in forward-backward filtering", IEEE
    Trans. Signal Processing 44(4), 1996; its least-squares problem is solved
    on the device (``gpuscipy.linalg.lstsq``).
    """
    b = numpy.atleast_1d(_host(b))
    a = numpy.atleast_1d(_host(a))
    if method not in ["pad", "gust"]:
        raise ValueError("method must be 'pad' or 'gust'.")
    if method == "gust":
        from ._iir_gust import filtfilt_gust
        return filtfilt_gust(b, a, _device(x), axis=axis, irlen=irlen, lfilter=lfilter)
    edge = _check_pad(padtype, padlen, _shape_of(x), axis, ntaps=max(len(a), len(b)))
    zi = _steady_state("ba", b, a)
    x = _device(x)
    y = _lean_route(x, axis, padtype, edge, zi, numpy.result_type(b.dtype, a.dtype),
                    lambda dtype: _ba_pass(b, a, dtype))
    if y is not None:
        return y
    ext = _extend(padtype, x, edge, axis)
    zi_shape = [1] * x.ndim
    zi_shape[axis] = zi.size
    zi = gp.asarray(numpy.reshape(zi, zi_shape))
    return _forward_backward(functools.partial(lfilter, b, a), ext, zi, edge, axis)


def sosfiltfilt(sos, x, axis=-1, padtype="odd", padlen=None):
    """A forward-backward filter with cascaded second-order sections.

    Parameters
    ----------
    sos : array_like, shape (n_sections, 6)
        Second-order sections.
    x : array_like
        Data (device or host).
    axis : int, optional
        Axis along which to filter. Default -1.
    padtype : {'odd', 'even', 'constant', None}, optional
        Extension at both ends. Default 'odd'.
    padlen : int or None, optional
        Samples of extension; default ``3 * (2 * n_sections + 1 - min(number
        of sections with b2 == 0, number with a2 == 0))`` (SciPy's).

    Returns
    -------
    y : gpuscipy_core.ndarray
        The filtered output, shape of ``x``.

    Raises
    ------
    ValueError
        As :func:`filtfilt` and :func:`sosfilt`.

    Notes
    -----
    Two :func:`sosfilt` passes from ``sosfilt_zi`` steady states, as SciPy.
    """
    sos, n_sections = _validate_sos(sos)
    x_shape = _shape_of(x)
    if len(x_shape) == 0:
        raise ValueError("x must be at least 1-D")
    ntaps = 2 * n_sections + 1
    ntaps -= min(int((sos[:, 2] == 0).sum()), int((sos[:, 5] == 0).sum()))
    edge = _check_pad(padtype, padlen, x_shape, axis, ntaps=ntaps)
    zi = _steady_state("sos", sos)
    x = _device(x)
    y = _lean_route(x, axis, padtype, edge, zi, sos.dtype,
                    lambda dtype: _sos_pass(sos, n_sections, dtype))
    if y is not None:
        return y
    ext = _extend(padtype, x, edge, axis)
    zi_shape = [1] * x.ndim
    zi_shape[axis] = 2
    zi = gp.asarray(zi.reshape([n_sections] + zi_shape))
    return _forward_backward(functools.partial(sosfilt, sos), ext, zi, edge, axis)
