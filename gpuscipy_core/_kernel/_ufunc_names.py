"""Which NumPy ufuncs the device headers implement, and for which loops.

``gpuscipy/ufuncs.cuh`` defines a device function ``gs::NAME`` for every name in
:data:`UFUNC_NAMES`, overloaded for each loop that :func:`supported_loops`
returns (NumPy's own loops of that ufunc, restricted to the 14 dtypes that
:func:`ctype` maps to C types).
"""

import numpy as np

__all__ = ["UFUNC_NAMES", "ALIASES", "DTYPES", "ctype", "canonical_name",
           "supported_loops"]

#: Every NumPy ufunc implemented in ``gpuscipy/ufuncs.cuh`` (NumPy attribute
#: names). Two-output ufuncs: divmod, modf, frexp.
UFUNC_NAMES = (
    # arithmetic
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder",
    "fmod", "divmod", "power", "float_power",
    "negative", "positive", "absolute", "fabs", "sign", "square",
    "reciprocal", "conjugate",
    # exponentials, logarithms, roots
    "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "logaddexp", "logaddexp2",
    # trigonometric and hyperbolic
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "hypot",
    "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
    "deg2rad", "rad2deg", "degrees", "radians",
    # rounding
    "floor", "ceil", "trunc", "rint",
    # comparisons, extrema
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "maximum", "minimum", "fmax", "fmin",
    # floating-point classification and manipulation
    "isnan", "isinf", "isfinite", "signbit", "copysign", "nextafter",
    "spacing", "ldexp", "frexp", "modf", "heaviside",
    # logical and bitwise
    "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
    "left_shift", "right_shift", "bitwise_count",
    # integer
    "gcd", "lcm",
)

#: NumPy 2 alias name -> canonical name in :data:`UFUNC_NAMES`. These are the
#: same ufunc objects in NumPy (``np.ALIAS is np.NAME``).
ALIASES = {
    "true_divide": "divide",
    "mod": "remainder",
    "conj": "conjugate",
    "abs": "absolute",
    "bitwise_not": "invert",
    "bitwise_invert": "invert",
    "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift",
    "pow": "power",
    "acos": "arccos",
    "asin": "arcsin",
    "atan": "arctan",
    "atan2": "arctan2",
    "acosh": "arccosh",
    "asinh": "arcsinh",
    "atanh": "arctanh",
}

_CTYPES = {
    "bool": "bool",
    "int8": "signed char",
    "uint8": "unsigned char",
    "int16": "short",
    "uint16": "unsigned short",
    "int32": "int",
    "uint32": "unsigned int",
    "int64": "long long",
    "uint64": "unsigned long long",
    "float16": "gs::half",
    "float32": "float",
    "float64": "double",
    "complex64": "gs::complex<float>",
    "complex128": "gs::complex<double>",
}

#: The 14 supported dtypes, in NumPy's type order.
DTYPES = tuple(np.dtype(name) for name in _CTYPES)


def _supported_dtype(dt):
    """The canonical supported dtype equal to ``dt``, or None."""
    if not isinstance(dt, np.dtype):
        try:
            dt = np.dtype(dt)
        except TypeError:
            return None
    if not dt.isnative or dt.names is not None or dt.subdtype is not None:
        return None
    if dt.name not in _CTYPES or dt.kind not in "biufc":
        return None
    return np.dtype(dt.name)


def ctype(dtype):
    """The C type name used in device code for ``dtype``.

    Raises
    ------
    TypeError
        For any dtype outside the 14 supported ones (object, strings,
        datetime, longdouble, structured, non-native byte order, ...).
    """
    try:
        return _ctype_memo[dtype]
    except (KeyError, TypeError):     # new, or unhashable
        pass
    dt = _supported_dtype(dtype)
    if dt is None:
        raise TypeError(f"dtype {dtype!r} is not supported in device code "
                        f"(supported: {', '.join(_CTYPES)})")
    name = _CTYPES[dt.name]
    if isinstance(dtype, np.dtype):
        # dtype objects only: their equality is exact (byte order, kind)
        _ctype_memo[dtype] = name
    return name


#: ctype() of the dtype objects seen (``dtype.name`` alone costs ~1 us of
#: Python; every launch of a routine asks a few times).
_ctype_memo = {}


def canonical_name(name):
    """The name in :data:`UFUNC_NAMES` for ``name`` or one of its aliases."""
    name = ALIASES.get(name, name)
    if name not in UFUNC_NAMES:
        raise ValueError(f"ufunc {name!r} is not implemented in device code")
    return name


_loop_cache = {}


def supported_loops(name):
    """NumPy's loops of ufunc ``name`` over the supported dtypes.

    Returns a list of ``(in_dtypes, out_dtypes)`` pairs, each a tuple of
    ``numpy.dtype``, in NumPy's loop order, without duplicates (NumPy lists
    some loops twice, and on Linux the 'l' and 'q' loops are the same).
    Aliases (``"abs"``, ``"true_divide"``, ...) are accepted.
    """
    name = canonical_name(name)
    loops = _loop_cache.get(name)
    if loops is None:
        uf = getattr(np, name)
        loops, seen = [], set()
        for sig in uf.types:
            ins, outs = sig.split("->")
            in_dts = tuple(_supported_dtype(c) for c in ins)
            out_dts = tuple(_supported_dtype(c) for c in outs)
            if any(dt is None for dt in in_dts + out_dts):
                continue
            key = (tuple(d.name for d in in_dts), tuple(d.name for d in out_dts))
            if key in seen:
                continue
            seen.add(key)
            loops.append((in_dts, out_dts))
        _loop_cache[name] = loops
    return list(loops)
