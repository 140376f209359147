"""Linear filtering along one axis: ``lfilter``, ``sosfilt`` and their
helpers (``lfiltic``, ``lfilter_zi``, ``sosfilt_zi``), with SciPy's
signatures, dtypes, state layouts and errors (``filtfilt`` and
``sosfiltfilt`` are in ``_filtfilt``).

The recurrences run on the GPU parallel over time and over channels (chunk
states, a scan of the carried states, a re-run of every chunk from its
state: ``_iir.cuh``, ``_iir_kernels.py``); ``lfilter`` with a single ``a``
coefficient is a direct convolution. The tiny host computations of SciPy
(``lfilter_zi``, ``sosfilt_zi``, ``lfiltic``, the coefficient checks) run on
the host and return device arrays.
"""

import functools
import math
import operator

import numpy

import gpuscipy_core as gp

from .._lazy import scipy_signal as _ss
from . import _iir_kernels as K

__all__ = ["lfilter", "lfiltic", "lfilter_zi", "sosfilt", "sosfilt_zi"]

_COMPUTE = "fdFD"          # dtypes the kernels compute in
_SCIPY_OK = "fdgFDGO"      # dtypes SciPy's filters accept
_SERIAL_DMAX = 64          # largest state filtered serially (see lfilter)
_SOS_GROUP = K.DMAX // 2   # sections per kernel pass


# ---------------------------------------------------------------- helpers

def _host(v):
    """Coefficients as a NumPy array (device arrays are read back once)."""
    if isinstance(v, gp.ndarray):
        return v.get()
    if hasattr(v, "__cuda_array_interface__"):
        return gp.asarray(v).get()
    return numpy.asarray(v)


def _dtype_of(v):
    """The dtype of a device array, or of ``numpy.asarray(v)``."""
    if isinstance(v, gp.ndarray):
        return v.dtype
    if hasattr(v, "__cuda_array_interface__"):
        return numpy.dtype(v.__cuda_array_interface__["typestr"])
    return numpy.asarray(v).dtype


def _shape_of(v):
    """The shape of a device array, or of ``numpy.asarray(v)`` (no copy to
    the device: the checks run before any transfer)."""
    if isinstance(v, gp.ndarray):
        return v.shape
    if hasattr(v, "__cuda_array_interface__"):
        return tuple(v.__cuda_array_interface__["shape"])
    return numpy.shape(v)


def _device(v, dtype=None):
    """``v`` on the device (``dtype``: cast)."""
    if not isinstance(v, gp.ndarray):
        h = numpy.asarray(v) if not hasattr(v, "__cuda_array_interface__") else None
        if h is not None and dtype is not None:
            h = h.astype(dtype)
        v = gp.asarray(v if h is None else h)
    if dtype is not None and v.dtype != dtype:
        v = v.astype(dtype)
    return v


def _compute_dtype(dt, fir=False, sos=False):
    """Check SciPy's dtype rule and map to a kernel dtype."""
    dt = numpy.dtype(dt)
    if dt.char not in _SCIPY_OK or (dt.char == "O" and not (fir or sos)):
        if fir:
            raise NotImplementedError("Parameter's dtypes produced result type "
                                      f"'{dt}', which is not supported!")
        raise NotImplementedError(f"input type '{dt}' not supported"
                                  + ("" if sos else "\n"))
    if dt.char not in _COMPUTE:
        raise TypeError(f"dtype {dt} is not supported on the GPU (float32, float64, "
                        "complex64 and complex128 are)")
    return dt


def _elements(arr):
    return tuple(s // arr.itemsize for s in arr.strides)


def _collapse(shape, strides):
    """(count, stride) of dims that index like one C-ordered dim, or None."""
    dims = [(n, s) for n, s in zip(shape, strides) if n != 1]
    count = math.prod(shape)
    if not dims:
        return count, 0
    for (n0, s0), (n1, s1) in zip(dims, dims[1:]):
        if s0 != s1 * n1:
            return None
    return count, dims[-1][1]


def _lines(x, axis):
    """:class:`~._iir_kernels.Lines` of ``x`` along ``axis`` (None when its
    other axes do not fold into two strides)."""
    st = _elements(x)
    if len(st) == 1:
        return K.Lines(1, 0, 0, st[0])
    outer = _collapse(x.shape[:axis], st[:axis])
    inner = _collapse(x.shape[axis + 1:], st[axis + 1:])
    if outer is None or inner is None:
        return None
    return K.Lines(max(inner[0], 1), outer[1], inner[1], st[axis])


def _canonical_states(z, dtype):
    """Canonical states: a C-contiguous device array ``(channels, D)`` of
    ``dtype`` (z is already moved to (..., D) or (..., S, 2))."""
    z = _device(z)
    if z.dtype != dtype:
        z = z.astype(dtype)
    return gp.ascontiguousarray(z)


def _states_map(d):
    return K.States(1, d, 0, d, 0, 1)


class _Plan:
    """Where x is read and y written: the (possibly copied) input, its
    line map, the output and its map, and how to give y SciPy's shape."""

    def __init__(self, x, axis, dtype):
        n = x.shape[axis]
        batch = x.shape[:axis] + x.shape[axis + 1:]
        self.n, self.batch, self.nch = n, batch, math.prod(batch)
        lines = _lines(x, axis)
        if lines is not None and abs(lines.st) != 1 and not (
                abs(lines.si) == 1 and lines.inner >= 32):
            lines = None            # neither time- nor channel-contiguous
        if lines is None:  # one copy to time-contiguous lines
            x = gp.ascontiguousarray(gp.moveaxis(x, axis, -1))
            lines = K.Lines(1, n, 0, 1)
        self.x, self.xm = x, lines
        self.staged = abs(lines.st) == 1
        if self.staged:
            self.y = gp.empty(batch + (n,), dtype)
            self.ym = K.Lines(1, n, 0, 1)
        else:  # channels fastest: y C-ordered like x
            self.y = gp.empty(x.shape, dtype)
            inner = lines.inner
            self.ym = K.Lines(inner, n * inner, 1, inner)
        self.axis = axis

    def result(self):
        if self.staged and self.axis != len(self.batch):
            return gp.moveaxis(self.y, -1, self.axis)
        return self.y


def _normalize_axis_c(axis, ndim):
    """SciPy's C filter: ``ValueError('selected axis is out of range')``."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError("selected axis is out of range")
    return axis % ndim


# ---------------------------------------------------------------- lfilter

def _key(*arrays):
    """A hashable value of small host arrays (for the coefficient cache)."""
    return tuple((v.tobytes(), v.dtype.str, v.shape) for v in arrays)


def _unkey(key):
    return [numpy.frombuffer(raw, numpy.dtype(dt)).reshape(shape) for raw, dt, shape in key]


@functools.lru_cache(maxsize=256)
def _packed(kind, key, dtype):
    """(coefficients in ``dtype``, kernel-parameter bytes) of ``_key(sos)``
    or ``_key(b, a)``, cached by value: a repeated call with the same
    filter skips this host work."""
    dtype = numpy.dtype(dtype)
    if kind == "sos":
        sos, = _unkey(key)
        c = sos.astype(dtype)[:, [0, 1, 2, 4, 5]].ravel()
    else:
        b, a = _unkey(key)
        c = _ba_coefs(b, a, dtype)
    c.setflags(write=False)
    return c, K.pack(kind, c)


def _ba_coefs(b, a, dtype):
    """[b, a] padded to one length and divided by a[0], in ``dtype``
    (SciPy's normalisation: the division in the compute precision)."""
    n = max(len(a), len(b))
    bb = numpy.zeros(n, dtype)
    aa = numpy.zeros(n, dtype)
    bb[:len(b)] = b.astype(dtype)
    aa[:len(a)] = a.astype(dtype)
    with numpy.errstate(all="ignore"):
        a0 = aa[0]
        return numpy.concatenate([bb / a0, aa / a0])


def _check_lfilter_zi(zi_shape, x_shape, axis, d, fir):
    """SciPy's checks of lfilter's ``zi`` (its two paths word for word);
    returns the expected shape (``zi`` broadcasts to it)."""
    nd, zd = len(x_shape), len(zi_shape)
    expected = list(x_shape)
    expected[axis] = d
    expected = tuple(expected)
    if fir:
        if zd != nd:
            raise ValueError("Dimensions of parameters x and zi must match, but "
                             f"x.ndim={nd}, zi.ndim={zd}!")
    else:
        if zd > nd:
            raise ValueError("object too deep for desired array")
        if zd < nd:
            raise ValueError("object of too small depth for desired array")
    if tuple(zi_shape) != expected:
        ok = all(zs == es or (k != axis and zs == 1)
                 for k, (zs, es) in enumerate(zip(zi_shape, expected)))
        if not ok:
            if fir:
                raise ValueError("Unexpected shape for parameter zi: expected "
                                 f"{expected}, found {tuple(zi_shape)}.")
            if nd == 1:
                raise ValueError(f"Unexpected shape for zi: expected ({expected[0]},), "
                                 f"found ({zi_shape[0]},).")
            raise ValueError("Unexpected shape for zi:  expected ("
                             + ",".join(map(str, expected)) + "), found ("
                             + ",".join(map(str, zi_shape)) + ").")
    return expected


def _lfilter_zi_layout(zi, expected, axis, dtype):
    """``zi`` on the device in ``dtype``, broadcast to ``expected`` and moved
    to (..., D)."""
    zi = _device(zi, dtype)
    if zi.shape != expected:
        zi = gp.broadcast_to(zi, expected)
    return gp.moveaxis(zi, axis, -1)


def _fir_empty_errors(shape, axis):
    """SciPy's single-``a`` path (numpy.apply_along_axis + convolve)
    refuses empty input."""
    if math.prod(shape) == 0:
        if any(s == 0 for k, s in enumerate(shape) if k != axis):
            raise ValueError("Cannot apply_along_axis when any iteration dimensions "
                             "are 0")
        raise ValueError("v cannot be empty")


def _lfilter_fir(b, a, x, axis, zi):
    """lfilter with one ``a`` coefficient (SciPy's convolution path, its
    checks in its order)."""
    shape = x.shape if isinstance(x, gp.ndarray) else numpy.shape(x)
    nd = len(shape)
    if nd == 0:
        raise ValueError("x must be at least 1-D")
    d = len(b) - 1
    dts = [b.dtype, a.dtype, _dtype_of(x)]
    if zi is not None:
        # SciPy indexes a list of the shape: out-of-range axes IndexError
        if not -nd <= operator.index(axis) < nd:
            raise IndexError("list assignment index out of range")
        axis = operator.index(axis) % nd
        dts.append(_dtype_of(zi))
        expected = _check_lfilter_zi(_shape_of(zi), shape, axis, d, fir=True)
    dtype = _compute_dtype(numpy.result_type(*dts), fir=True)
    if zi is None:
        axis = operator.index(axis)
        if not -nd <= axis < nd:
            raise numpy.exceptions.AxisError(axis, nd)
        axis %= nd
    _fir_empty_errors(shape, axis)
    x = _device(x)
    if zi is not None:
        zi = _lfilter_zi_layout(zi, expected, axis, dtype)
    with numpy.errstate(all="ignore"):
        taps = b.astype(dtype) / a.astype(dtype)[0]
    plan = _Plan(x, axis, dtype)
    zf = None
    if zi is not None:
        zf = gp.empty(plan.batch + (d,), dtype)
    K.fir_lines(gp.asarray(taps), plan.x, plan.x.dtype, plan.xm, plan.y, plan.ym,
                zi=0 if zi is None else _canonical_states(zi, dtype), zm=_states_map(d),
                zf=0 if zf is None else zf, n=plan.n, nch=plan.nch)
    y = plan.result()
    if zf is None:
        return y
    return y, gp.moveaxis(zf, -1, axis)


def _run_ba(coefs, d, plan, zi_c, zf, packed=None):
    """DF2T of order ``d`` over the plan (zi_c, zf: canonical arrays or None)."""
    K.filter_lines("ba", d, coefs, plan.x, plan.x.dtype, plan.xm, plan.y, plan.ym,
                   zi=0 if zi_c is None else zi_c, zm=_states_map(d),
                   zf=0 if zf is None else zf, n=plan.n, nch=plan.nch,
                   staged=plan.staged, packed=packed)


def _lfilter_split(coefs, d, plan, zi_c, zf, dtype):
    """A state above DMAX: the numerator as a convolution (with zi), then
    the all-pole part 1/a from zero state. The DF2T state is
    zf[i] = sum_{k>i} (b[k] x[n+i-k] - a[k] y[n+i-k]) (+ zi[n+i] while
    n+i < d): the convolution's tail plus the all-pole filter's own zf."""
    b, a = coefs[:d + 1], coefs[d + 1:]
    nz = numpy.flatnonzero(a[1:])
    na = int(nz[-1]) + 1 if nz.size else 0
    if na > _SERIAL_DMAX:
        raise NotImplementedError(f"lfilter: a denominator of order {na} > "
                                  f"{_SERIAL_DMAX} is not supported on the GPU")
    zf2 = None if zf is None else zf.reshape(plan.nch, d)
    taps = gp.asarray(b)
    if na == 0:  # a = [1, 0, ...]: a convolution
        K.fir_lines(taps, plan.x, plan.x.dtype, plan.xm, plan.y, plan.ym,
                    zi=0 if zi_c is None else zi_c, zm=_states_map(d),
                    zf=0 if zf2 is None else zf2, n=plan.n, nch=plan.nch)
        return
    u = gp.empty((plan.nch, plan.n), dtype)
    um = K.Lines(1, plan.n, 0, 1)
    K.fir_lines(taps, plan.x, plan.x.dtype, plan.xm, u, um,
                zi=0 if zi_c is None else zi_c, zm=_states_map(d),
                zf=0 if zf2 is None else zf2, n=plan.n, nch=plan.nch)
    ap = numpy.zeros(2 * (na + 1), dtype)
    ap[0] = 1
    ap[na + 1:] = a[:na + 1]
    zpa = gp.empty((plan.nch, na), dtype) if zf is not None else None
    K.filter_lines("ba", na, ap, u, dtype, um, plan.y, plan.ym,
                   zf=0 if zpa is None else zpa, n=plan.n, nch=plan.nch,
                   staged=plan.staged, serial=na > K.DMAX)
    if zf2 is not None:
        zf2[:, :na] += zpa


def lfilter(b, a, x, axis=-1, zi=None):
    """Filter data along one dimension with an IIR or FIR filter.

    The direct form II transposed recurrence of SciPy::

        a[0] y[n] = b[0] x[n] + ... + b[M] x[n-M] - a[1] y[n-1] - ... - a[N] y[n-N]

    computed on the GPU in parallel over time and over the other axes.

    Parameters
    ----------
    b, a : array_like, 1-D
        Numerator and denominator coefficients (host or device arrays;
        device ones are read back on every call, a synchronising copy).
        ``a[0]`` must be nonzero when
        ``len(a) > 1``; the coefficients are divided by ``a[0]``.
    x : array_like
        N-D input (any strides, any axis).
    axis : int, optional
        Axis along which to filter. Default -1.
    zi : array_like, optional
        Initial delay values, shape of ``x`` with ``x.shape[axis]`` replaced
        by ``max(len(a), len(b)) - 1`` (axes of length 1 broadcast). None:
        initial rest.

    Returns
    -------
    y : gpuscipy_core.ndarray
        Output, shape of ``x``; dtype ``numpy.result_type(b, a, x[, zi])``.
    zf : gpuscipy_core.ndarray
        Only with ``zi``: final delay values, the layout of ``zi``.

    Raises
    ------
    ValueError
        ``b`` or ``a`` not a non-empty 1-D array; ``a[0] == 0`` (with
        ``len(a) > 1``); ``x`` 0-D; axis out of range; ``zi`` of the wrong
        shape; empty ``x`` with ``len(a) == 1`` (as SciPy).
    NotImplementedError
        A result type SciPy refuses (integers, bool, float16, strings).
    TypeError
        ``longdouble``/``object`` results (SciPy computes them; the GPU does
        not).

    Notes
    -----
    Chunks of the signal are filtered from zero state in parallel, the
    carried states are scanned across chunks with the chunk's transition
    matrix (in double-double), and each chunk is filtered again from its
    incoming state, with SciPy's arithmetic: Blelloch 1990, "Prefix sums and
    their applications"; Nehab, Maximo, Lima & Hoppe 2011, "GPU-efficient
    recursive filtering and summed-area tables"; Maleki & Burtscher 2018,
    "Automatic hierarchical parallelization of linear recurrences". Results
    agree with SciPy's to its own rounding error (``tests/signal``); when
    the transition matrices are too ill-conditioned for the scan (poles of a
    high-order ``ba`` filter clustered at the unit circle) a channel is
    filtered serially, SciPy's loop bit for bit.

    Differences from SciPy: object and long double data are not supported;
    a state larger than 16 is filtered as a convolution followed by the
    all-pole part (same values to rounding), and denominators of order above
    64 raise ``NotImplementedError``; with an empty filter axis ``zf`` is
    ``zi`` (SciPy returns uninitialised memory).
    """
    b = numpy.atleast_1d(_host(b))
    a = numpy.atleast_1d(_host(a))
    if not (b.ndim == 1 and b.size > 0):
        raise ValueError(f"Parameter b is not a non-empty 1d array, since {b.shape=}!")
    if not (a.ndim == 1 and a.size > 0):
        raise ValueError(f"Parameter a is not a non-empty 1d array, since {a.shape=}!")
    if len(a) == 1:
        return _lfilter_fir(b, a, x, axis, zi)
    nd = x.ndim if isinstance(x, gp.ndarray) else numpy.ndim(x)
    axis = _normalize_axis_c(axis, nd)
    dts = [b.dtype, a.dtype, _dtype_of(x)] + ([_dtype_of(zi)] if zi is not None else [])
    # SciPy's C filter names a non-numeric x's own type
    dtype = _compute_dtype(dts[2] if dts[2].kind not in "biufc" else numpy.result_type(*dts))
    if a[0] == 0:
        raise ValueError("BUG: filter coefficient a[0] == 0 not supported yet")
    d = max(len(a), len(b)) - 1
    if zi is not None:
        expected = _check_lfilter_zi(_shape_of(zi), _shape_of(x), axis, d, fir=False)
    x = _device(x)
    if zi is not None:
        zi = _lfilter_zi_layout(zi, expected, axis, dtype)
    coefs, packed = _packed("ba", _key(b, a), dtype.str)
    plan = _Plan(x, axis, dtype) if x.size else None
    zf = gp.empty(x.shape[:axis] + x.shape[axis + 1:] + (d,), dtype) \
        if zi is not None else None
    if plan is None:  # empty: y empty, zf = zi
        y = gp.empty(x.shape, dtype)
        if zf is not None and zf.size:
            zf[...] = zi
        return y if zf is None else (y, gp.moveaxis(zf, -1, axis))
    zi_c = None if zi is None else _canonical_states(zi, dtype)
    if d <= K.DMAX:
        _run_ba(coefs, d, plan, zi_c, zf, packed)
    else:
        _lfilter_split(coefs, d, plan, zi_c, zf, dtype)
    y = plan.result()
    return y if zf is None else (y, gp.moveaxis(zf, -1, axis))


def lfiltic(b, a, y, x=None):
    """Initial conditions for ``lfilter`` from past outputs and inputs.

    ``y = [y[-1], y[-2], ..., y[-N]]``, ``x = [x[-1], ..., x[-M]]``
    (zero-padded when short); returns ``zi`` of length ``max(M, N)``, the
    state of the direct form II transposed filter. A tiny computation:
    SciPy's on the host, returned as a device array.

    Parameters
    ----------
    b, a : array_like, 1-D
        Filter coefficients.
    y : array_like
        Past outputs, most recent first.
    x : array_like, optional
        Past inputs, most recent first (zeros if None).

    Returns
    -------
    zi : gpuscipy_core.ndarray, 1-D
        dtype of ``numpy.result_type(b, a, y[, x])``, float64 for
        integer/bool types.

    Raises
    ------
    ValueError
        As SciPy (``a`` empty or ``a[0] == 0``, coefficients not 1-D).
    """
    args = [_host(b), _host(a), _host(y)] + ([] if x is None else [_host(x)])
    return gp.asarray(_ss.lfiltic(*args))


def lfilter_zi(b, a):
    """Initial state of ``lfilter`` for the steady state of the step response.

    ``lfilter(b, a, ones, zi=lfilter_zi(b, a) * 1)`` starts in steady state
    (used by ``filtfilt``). SciPy's small linear solve on the host,
    returned as a device array.

    Parameters
    ----------
    b, a : array_like, 1-D
        Filter coefficients (leading zeros of ``a`` are dropped).

    Returns
    -------
    zi : gpuscipy_core.ndarray, shape (max(len(a), len(b)) - 1,)

    Raises
    ------
    ValueError
        As the installed SciPy (coefficients not 1-D, ``a`` all zeros; SciPy
        1.17 also refuses a length-1 filter, 1.18 returns an empty ``zi``).
    """
    return gp.asarray(_ss.lfilter_zi(_host(b), _host(a)))


# ---------------------------------------------------------------- sosfilt

def _validate_sos(sos):
    """SciPy's checks of ``sos``: (the 2-D host array, its sections)."""
    sos = numpy.asarray(_host(sos))
    if sos.dtype.kind in "biufc" and sos.size <= 6 * 64:
        return _validated_sos(_key(sos))
    return _check_sos(sos)


@functools.lru_cache(maxsize=256)
def _validated_sos(key):
    """:func:`_check_sos` of ``_key(sos)``, cached by value (a repeated
    call with the same filter skips the checks; errors are not cached)."""
    sos, n_sections = _check_sos(_unkey(key)[0])
    sos.setflags(write=False)
    return sos, n_sections


def _check_sos(sos):
    if sos.ndim < 2:
        sos = sos.reshape((1,) * (2 - sos.ndim) + sos.shape)
    if sos.ndim != 2:
        raise ValueError("sos array must be 2D")
    n_sections, m = sos.shape
    if m != 6:
        raise ValueError("sos array must be shape (n_sections, 6)")
    if not (sos[:, 3] == 1).all():
        raise ValueError("sos[:, 3] should be all ones")
    return sos, n_sections


def _sos_states_shape(x_shape, axis, n_sections):
    shape = list(x_shape)
    shape[axis] = 2  # IndexError for an axis out of range, as SciPy
    return tuple([n_sections] + shape)


def sosfilt(sos, x, axis=-1, zi=None):
    """Filter data along one dimension with cascaded second-order sections.

    SciPy's loop (each section in direct form II transposed, the output of
    one the input of the next) on the GPU, parallel over time and over the
    other axes; the sections of a chunk run in sequence inside one kernel
    (up to 8 sections per pass).

    Parameters
    ----------
    sos : array_like, shape (n_sections, 6)
        ``[b0, b1, b2, a0, a1, a2]`` per section, ``a0 == 1`` (host or device;
        device ones are read back on every call, a synchronising copy: pass
        host coefficients for many small calls).
    x : array_like
        N-D input (any strides, any axis).
    axis : int, optional
        Axis along which to filter. Default -1.
    zi : array_like, optional
        Initial delays, shape ``(n_sections, ..., 2, ...)`` where
        ``..., 2, ...`` is the shape of ``x`` with ``x.shape[axis]``
        replaced by 2. None: initial rest.

    Returns
    -------
    y : gpuscipy_core.ndarray
        Output, shape of ``x``, dtype ``numpy.result_type(sos, x[, zi])``.
    zf : gpuscipy_core.ndarray
        Only with ``zi``: final delays, the shape of ``zi``.

    Raises
    ------
    ValueError
        ``x`` 0-D; ``sos`` not 2-D, not ``(n, 6)``, ``a0 != 1``; ``zi`` of the
        wrong shape; zero sections or an empty filter axis (as SciPy).
    IndexError
        ``axis`` out of range (as SciPy).
    NotImplementedError
        A result type SciPy refuses.
    TypeError
        ``longdouble``/``object`` results.

    Notes
    -----
    Algorithm and references: :func:`lfilter`. The cascade's carried state
    is the 2 delays of every section (SciPy's ``zi`` meaning at the chunk
    boundaries).
    """
    x_shape = tuple(_shape_of(x))
    if len(x_shape) == 0:
        raise ValueError("x must be at least 1-D")
    sos, n_sections = _validate_sos(sos)
    zshape = _sos_states_shape(x_shape, axis, n_sections)
    dts = [sos.dtype, _dtype_of(x)] + ([_dtype_of(zi)] if zi is not None else [])
    dtype = _compute_dtype(numpy.result_type(*dts), sos=True)
    if zi is not None:
        if tuple(_shape_of(zi)) != zshape:
            raise ValueError(
                f"Invalid zi shape. With axis={axis!r}, an input with shape "
                f"{tuple(x_shape)!r}, and an sos array with {n_sections} sections, zi "
                f"must have shape {zshape!r}, got {tuple(_shape_of(zi))!r}.")
    nd = len(x_shape)
    axis = axis % nd
    if n_sections == 0 or math.prod(x_shape) == 0:
        # SciPy reshapes to (-1, n) and (-1, n_sections, 2): the same errors
        moved = tuple(s for k, s in enumerate(x_shape) if k != axis) + (x_shape[axis],)
        numpy.empty(moved, numpy.uint8).reshape((-1, moved[-1]))
        numpy.empty(moved[:-1] + (n_sections, 2), numpy.uint8).reshape((-1, n_sections, 2))
    x = _device(x)
    if zi is not None:
        zi = _device(zi, dtype)
    batch = x.shape[:axis] + x.shape[axis + 1:]
    zf = gp.empty(batch + (n_sections, 2), dtype) if zi is not None else None
    if x.size == 0:
        y = gp.empty(x.shape, dtype)
        if zf is not None and zf.size:
            zf[...] = gp.moveaxis(zi, (0, axis + 1), (-2, -1))
    else:
        zi_c = None
        if zi is not None:
            zi_c = _canonical_states(gp.moveaxis(zi, (0, axis + 1), (-2, -1)), dtype)
            zi_c = zi_c.reshape(math.prod(batch), 2 * n_sections)
        zf_c = None if zf is None else zf.reshape(math.prod(batch), 2 * n_sections)
        plan = _Plan(x, axis, dtype)
        for s0, s1, coefs, packed, zm in _sos_groups(sos, dtype):
            if s0 > 0:  # the next group filters the output in place
                plan.x, plan.xm = plan.y, plan.ym
            K.filter_lines(
                "sos", s1 - s0, coefs, plan.x, plan.x.dtype, plan.xm, plan.y, plan.ym,
                zi=0 if zi_c is None else zi_c.ptr + 2 * s0 * zi_c.itemsize, zm=zm,
                zf=0 if zf_c is None else zf_c.ptr + 2 * s0 * zf_c.itemsize,
                zf_stride=2 * n_sections, n=plan.n, nch=plan.nch, staged=plan.staged,
                packed=packed)
        y = plan.result()
    if zf is None:
        return y
    return y, gp.moveaxis(zf, (-2, -1), (0, axis + 1))


def _sos_groups(sos, dtype):
    """(s0, s1, coefficients, kernel-parameter bytes, state map) of each
    group of at most ``_SOS_GROUP`` sections of the validated ``sos`` in
    the compute ``dtype``."""
    return _sos_groups_of(_key(sos), dtype.str)


@functools.lru_cache(maxsize=256)
def _sos_groups_of(key, dtype):
    sos, = _unkey(key)
    n_sections = sos.shape[0]
    groups = []
    for s0 in range(0, n_sections, _SOS_GROUP):
        s1 = min(n_sections, s0 + _SOS_GROUP)
        coefs, packed = _packed("sos", _key(sos[s0:s1]), dtype)
        groups.append((s0, s1, coefs, packed,
                       K.States(1, 2 * n_sections, 0, 2 * (s1 - s0), 0, 1)))
    return tuple(groups)


def sosfilt_zi(sos):
    """Initial delays of ``sosfilt`` for the steady state of the step response.

    SciPy's small host computation, returned as a device array.

    Parameters
    ----------
    sos : array_like, shape (n_sections, 6)

    Returns
    -------
    zi : gpuscipy_core.ndarray, shape (n_sections, 2)

    Raises
    ------
    ValueError
        ``sos`` not of shape (n_sections, 6).
    """
    return gp.asarray(_ss.sosfilt_zi(_host(sos)))
