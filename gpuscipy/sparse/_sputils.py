"""Shared rules of gpuscipy.sparse: supported dtypes, index dtypes, shapes.

The rules are SciPy's (``scipy.sparse._sputils``), written for device
arrays: value dtypes bool, the integers, float32/64 and complex64/128 (no
long double on the GPU); index arrays int32 unless a size or an index
needs int64.
"""

import operator

import numpy

import gpuscipy_core as gp

__all__ = ["SUPPORTED_DTYPES", "getdtype", "upcast", "get_index_dtype", "check_shape",
           "isshape", "isscalarlike", "isdense", "isintlike", "to_device",
           "INT32_MAX"]

INT32_MAX = int(numpy.iinfo(numpy.int32).max)

SUPPORTED_DTYPES = tuple(numpy.dtype(c) for c in
                         ("?", "b", "B", "h", "H", "i", "I", "l", "L", "q", "Q",
                          "f", "d", "F", "D"))
_SUPPORTED_NAMES = ", ".join(sorted({d.name for d in SUPPORTED_DTYPES}))


def getdtype(dtype, a=None, default=None):
    """The value dtype of a new sparse array: ``dtype``, else ``a``'s, else
    ``default``. ``ValueError`` for a dtype the GPU formats do not hold
    (float16, long double, object, ...), as SciPy for its own set."""
    if dtype is None:
        if a is not None and hasattr(a, "dtype"):
            dt = numpy.dtype(a.dtype)
        elif default is not None:
            dt = numpy.dtype(default)
        else:
            raise TypeError("could not interpret data type")
    else:
        dt = numpy.dtype(dtype)
    if dt not in SUPPORTED_DTYPES:
        raise ValueError(f"gpuscipy.sparse does not support dtype {dt.name}. "
                         f"The only supported types are: {_SUPPORTED_NAMES}.")
    return dt


def upcast(*dtypes):
    """The smallest supported dtype that holds every one of ``dtypes``
    (``TypeError`` when there is none, as SciPy)."""
    dt = numpy.result_type(*[numpy.dtype(d) for d in dtypes])
    if dt in SUPPORTED_DTYPES:
        return dt
    for cand in SUPPORTED_DTYPES:
        if numpy.can_cast(dt, cand):
            return cand
    raise TypeError(f"no supported conversion for types: {dtypes!r}")


def get_index_dtype(arrays=(), maxval=None, check_contents=False):
    """int32 when every index array is int32-sized and ``maxval`` (the
    largest value an index will hold: a dimension, nnz) fits, else int64.

    ``check_contents``: an int64 array whose values fit int32 does not force
    int64 (one device min/max reduction each; SciPy does the same on host).
    """
    limit = INT32_MAX
    if maxval is not None and int(maxval) > limit:
        return numpy.dtype(numpy.int64)
    for a in arrays:
        if a is None:
            continue
        dt = numpy.dtype(a.dtype)
        if dt == numpy.int32 or (dt.kind in "iu" and dt.itemsize < 4):
            continue
        if dt.kind not in "iu":
            continue
        if check_contents and a.size:
            lo, hi = int(a.min()), int(a.max())
            if -limit - 1 <= lo and hi <= limit:
                continue
        elif check_contents:
            continue
        return numpy.dtype(numpy.int64)
    return numpy.dtype(numpy.int32)


def isscalarlike(x):
    """A Python or NumPy scalar, or a 0-d array (host or device)."""
    return numpy.isscalar(x) or (hasattr(x, "ndim") and hasattr(x, "shape")
                                 and x.ndim == 0 and not _is_sparse(x))


def isintlike(x):
    """An integer, or a value equal to one (``operator.index`` works)."""
    if getattr(x, "ndim", 0) != 0:
        return False
    try:
        operator.index(x)
    except (TypeError, ValueError):
        try:
            return bool(int(x) == x)
        except (TypeError, ValueError):
            return False
    return True


def isshape(x, nonneg=False):
    """A tuple of two ints (``nonneg``: both >= 0)."""
    if not isinstance(x, tuple) or len(x) != 2:
        return False
    if not all(isintlike(v) and not isinstance(v, (bool, numpy.bool_)) for v in x):
        return False
    return not nonneg or all(int(v) >= 0 for v in x)


def isdense(x):
    """A host ndarray or a device array (not sparse)."""
    return isinstance(x, (numpy.ndarray, gp.ndarray))


def check_shape(shape):
    """``shape`` as a tuple of two non-negative ints (``ValueError`` /
    ``TypeError`` as SciPy; only 2-D shapes are supported)."""
    try:
        shape = tuple(operator.index(v) for v in shape)
    except TypeError:
        raise TypeError("shape must be a tuple of integers") from None
    if len(shape) != 2:
        raise ValueError(f"gpuscipy.sparse supports 2-D shapes only, got {shape}")
    if any(v < 0 for v in shape):
        raise ValueError("'shape' elements cannot be negative")
    return shape


def _is_sparse(x):
    from ._base import _spbase
    return isinstance(x, _spbase)


def to_device(a, dtype=None, name="array"):
    """``a`` (host or device, any array-like) as a device array of
    ``dtype`` (no copy when it already is one)."""
    if isinstance(a, gp.ndarray):
        return a if dtype is None or a.dtype == dtype else a.astype(dtype)
    h = numpy.asarray(a, dtype=dtype)
    if h.dtype == object:
        raise TypeError(f"{name}: cannot convert an object array")
    return gp.asarray(h)
