"""Array creation and host <-> device transfers (NumPy's creation API)."""

import operator

import numpy

from .._cuda._transfer import _copy_in
from .._ndarray import ndarray, normalize_dtype
from .._elementwise import copy_array, fill, run_elementwise

__all__ = ["empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
           "full_like", "arange", "linspace", "logspace", "eye", "identity", "diag",
           "array", "asarray", "asnumpy", "ascontiguousarray", "asfortranarray",
           "from_dlpack", "copy"]


def _order(order):
    if order not in ("C", "F", "c", "f"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    return order.upper()


def empty(shape, dtype=float, order="C"):
    """A new uninitialised array.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : data-type, default float64
    order : {'C', 'F'}

    Raises
    ------
    TypeError
        For dtypes gpuscipy does not support (object, strings, datetime).
    """
    return ndarray(shape, dtype, order=_order(order))


def zeros(shape, dtype=float, order="C"):
    """A new array of zeros."""
    a = empty(shape, dtype, order)
    fill(a, 0)
    return a


def ones(shape, dtype=float, order="C"):
    """A new array of ones."""
    a = empty(shape, dtype, order)
    fill(a, 1)
    return a


def full(shape, fill_value, dtype=None, order="C"):
    """A new array filled with ``fill_value`` (dtype inferred like NumPy)."""
    if dtype is None:
        if isinstance(fill_value, ndarray):
            dtype = fill_value.dtype
        else:
            dtype = numpy.asarray(fill_value).dtype
    a = empty(shape, dtype, order)
    a.fill(fill_value)
    return a


def _like_order(a, order):
    if order in ("K", "A", None):
        return "F" if a.flags.f_contiguous and not a.flags.c_contiguous else "C"
    return _order(order)


def empty_like(a, dtype=None, order="K", shape=None):
    """A new uninitialised array with the shape and dtype of ``a``."""
    return empty(a.shape if shape is None else shape,
                 a.dtype if dtype is None else dtype, _like_order(a, order))


def zeros_like(a, dtype=None, order="K", shape=None):
    out = empty_like(a, dtype, order, shape)
    fill(out, 0)
    return out


def ones_like(a, dtype=None, order="K", shape=None):
    out = empty_like(a, dtype, order, shape)
    fill(out, 1)
    return out


def full_like(a, fill_value, dtype=None, order="K", shape=None):
    out = empty_like(a, dtype, order, shape)
    out.fill(fill_value)
    return out


def arange(start, stop=None, step=1, dtype=None):
    """Evenly spaced values in ``[start, stop)`` (NumPy's ``arange``)."""
    if stop is None:
        start, stop = 0, start
    host_dtype = numpy.result_type(*[numpy.asarray(v) if isinstance(v, (int, float, complex))
                                     else v for v in (start, stop, step)]) \
        if dtype is None else normalize_dtype(dtype)
    host_dtype = normalize_dtype(host_dtype)
    if step == 0:
        raise ZeroDivisionError("step must not be zero")
    n = int(numpy.ceil((stop - start) / step)) if not isinstance(
        start + stop + step, complex) else 0
    n = max(n, 0)
    out = empty((n,), host_dtype)
    if n:
        # value = start + i * step computed in float64 (or int64), as NumPy does
        wide = numpy.dtype(numpy.float64) if host_dtype.kind in "fcb" or isinstance(
            start + step, float) else numpy.dtype(numpy.int64)
        if host_dtype.kind == "c":
            wide = numpy.dtype(numpy.complex128)
        _ramp(out, numpy.asarray(start, wide), numpy.asarray(step, wide), wide)
    return out


def _ramp(out, start, step, wide):
    from .._kernel._ufunc_names import ctype
    w = ctype(wide)
    run_elementwise(f"gs_ramp_{wide.str[1:]}_{out.dtype.str[1:]}",
                    (("scalar", wide, "a"), ("scalar", wide, "d"),
                     ("out", out.dtype, "y")),
                    f"y = gs::cast<{ctype(out.dtype)}>(a + ({w})(long long)i * d);",
                    [start.tobytes(), step.tobytes(), out], out.shape, False)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced samples over ``[start, stop]`` (scalar endpoints)."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if isinstance(start, ndarray) or isinstance(stop, ndarray):
        raise NotImplementedError("linspace with array endpoints is not supported")
    ref = numpy.linspace(start, stop, 2, endpoint=endpoint)
    calc = numpy.dtype(numpy.complex128 if ref.dtype.kind == "c" else numpy.float64)
    dt = ref.dtype if dtype is None else normalize_dtype(dtype)
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else numpy.nan
    out = empty((num,), calc)
    if num:
        from .._kernel._ufunc_names import ctype
        c = ctype(calc)
        # y[i] = start + i * step, with the last sample exactly ``stop``
        run_elementwise(f"gs_linspace_{calc.str[1:]}_{int(bool(endpoint and num > 1))}",
                        (("scalar", calc, "a"), ("scalar", calc, "d"),
                         ("scalar", calc, "b"), ("out", calc, "y")),
                        f"y = (i == _n - 1 && {int(bool(endpoint and num > 1))}) ? b : "
                        f"({c})(a + ({c})(double)i * d);",
                        [numpy.asarray(start, calc).tobytes(),
                         numpy.asarray(step if div > 0 else 0, calc).tobytes(),
                         numpy.asarray(stop, calc).tobytes(), out], out.shape, False)
    if dt.kind in "iu":
        from ._ufuncs import floor
        out = floor(out) if calc.kind == "f" else out
    if out.dtype != dt:
        out = out.astype(dt)
    if retstep:
        return out, step
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)``."""
    from ._ufuncs import power
    y = linspace(start, stop, num, endpoint)
    out = power(numpy.float64(base) if not isinstance(base, complex) else base, y)
    if dtype is not None:
        out = out.astype(dtype)
    return out


def eye(N, M=None, k=0, dtype=float, order="C"):
    """A 2-D array with ones on the ``k``-th diagonal."""
    M = N if M is None else M
    out = zeros((N, M), dtype, order)
    if k >= 0:
        d = out[:, k:] if k < M else out[:0, :0]
    else:
        d = out[-k:, :] if -k < N else out[:0, :0]
    n = min(d.shape) if d.ndim == 2 else 0
    if n:
        diag_view(d).fill(1)
    return out


def identity(n, dtype=float):
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype)


def diag_view(a):
    """View of the main diagonal of a 2-D array."""
    n = min(a.shape)
    return _as_strided(a, (n,), (a.strides[0] + a.strides[1],))


def _as_strided(a, shape, strides):
    from .._ndarray import _strided_view
    return _strided_view(a, tuple(shape), tuple(strides), a.ptr)


def diag(v, k=0):
    """Extract a diagonal of a 2-D array, or build a 2-D array from a 1-D one."""
    v = asarray(v)
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        out = zeros((n, n), v.dtype)
        d = out[:, k:] if k >= 0 else out[-k:, :]
        diag_view(d)[...] = v
        return out
    if v.ndim == 2:
        if k >= 0:
            d = v[:, k:] if k < v.shape[1] else v[:0, :0]
        else:
            d = v[-k:, :] if -k < v.shape[0] else v[:0, :0]
        return diag_view(d).copy()
    raise ValueError("Input must be 1- or 2-d.")


def _from_host(host):
    """Upload a NumPy array (any layout) to a new device array of the same layout."""
    dt = normalize_dtype(host.dtype)
    if host.dtype != dt:
        host = host.astype(dt)
    if host.flags.c_contiguous:
        out = empty(host.shape, dt, "C")
    elif host.flags.f_contiguous:
        out = empty(host.shape, dt, "F")
    else:
        host = numpy.ascontiguousarray(host)
        out = empty(host.shape, dt, "C")
    _copy_in(out.ptr, host, None)
    return out


def array(obj, dtype=None, copy=True, order="K", ndmin=0):
    """Create a device array from ``obj`` (NumPy semantics of ``copy``).

    Parameters
    ----------
    obj : array_like
        A device array, NumPy array, nested list, scalar, or an object with
        ``__cuda_array_interface__`` or ``__dlpack__``.
    dtype : data-type, optional
    copy : bool or None
        True always copies; None copies only when needed; False raises
        ``ValueError`` when a copy would be needed.
    order : {'K', 'A', 'C', 'F'}
    ndmin : int
        Prepend axes of length 1 up to this many dimensions.
    """
    dt = None if dtype is None else normalize_dtype(dtype)
    if not isinstance(obj, ndarray):
        if hasattr(obj, "__cuda_array_interface__"):
            from .._interop import from_cuda_array_interface
            obj = from_cuda_array_interface(obj)
        elif hasattr(obj, "__dlpack__") and not isinstance(obj, numpy.ndarray) \
                and getattr(obj, "__dlpack_device__", lambda: (1, 0))()[0] != 1:
            obj = from_dlpack(obj)
        else:
            if copy is False:
                raise ValueError("Unable to avoid copy while creating a device "
                                 "array from host data.")
            host = numpy.asarray(obj, dtype=dt, order=None if order == "K" else order)
            if host.dtype.byteorder == ">":
                host = host.astype(host.dtype.newbyteorder("="))
            if host.dtype.kind in "OSUVMm" or host.dtype.char not in "?bBhHiIlLqQefdFD":
                raise TypeError(f"dtype {host.dtype!r} is not supported by gpuscipy")
            if host.ndim < ndmin:
                host = host.reshape((1,) * (ndmin - host.ndim) + host.shape)
            return _from_host(host)
        copy = False if copy is None else copy
    a = obj
    need = (dt is not None and dt != a.dtype) or \
        (order == "C" and not a.flags.c_contiguous) or \
        (order == "F" and not a.flags.f_contiguous)
    if copy is False and need:
        raise ValueError("Unable to avoid copy while creating an array as requested.")
    if copy or need:
        a = copy_array(a, dt or a.dtype, order)
    if a.ndim < ndmin:
        a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
    return a


def asarray(a, dtype=None, order=None, copy=None):
    """Convert ``a`` to a device array, copying only when needed."""
    if isinstance(a, ndarray) and dtype is None and order is None and not copy:
        return a
    return array(a, dtype, copy=copy, order="K" if order is None else order)


def ascontiguousarray(a, dtype=None):
    """A C-contiguous device array (a copy only when needed)."""
    a = asarray(a, dtype)
    if a.ndim == 0:
        return a.reshape((1,))
    return a if a.flags.c_contiguous else copy_array(a, None, "C")


def asfortranarray(a, dtype=None):
    """An F-contiguous device array (a copy only when needed)."""
    a = asarray(a, dtype)
    if a.ndim == 0:
        return a.reshape((1,))
    return a if a.flags.f_contiguous else copy_array(a, None, "F")


def copy(a, order="K"):
    """A copy of ``a``."""
    return asarray(a).copy(order)


def asnumpy(a, stream=None, order="C", out=None):
    """Copy a device array to a NumPy array (anything else goes through
    ``numpy.asarray``)."""
    if isinstance(a, ndarray):
        h = a.get(stream=stream, out=out)
        if out is None and order in ("C", "F") and not h.flags[order + "_CONTIGUOUS"]:
            h = numpy.asarray(h, order=order)
        return h
    if hasattr(a, "__cuda_array_interface__"):
        from .._interop import from_cuda_array_interface
        return from_cuda_array_interface(a).get(stream=stream, out=out)
    return numpy.asarray(a, order=order)


def from_dlpack(x, *, device=None, copy=None):
    """A device array sharing memory with a DLPack producer (zero copy)."""
    from .._interop import from_dlpack as _f
    return _f(x, device=device, copy=copy)
