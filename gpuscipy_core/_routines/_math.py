"""Elementwise functions that are not plain ufuncs: where, clip, round,
real/imag/conj/angle."""

import builtins

import numpy

from .._elementwise import broadcast_shapes, result_order, run_elementwise
from .._kernel._ufunc_names import ctype
from .._ndarray import ndarray, normalize_dtype
from . import _ufuncs
from ._creation import asarray, empty

__all__ = ["where", "clip", "round", "around", "real", "imag", "conj", "angle"]


def _operand(x):
    """(dtype key for NumPy's promotion, device array or host scalar)."""
    if isinstance(x, ndarray):
        return x.dtype, x
    if type(x) in (int, float, complex, bool):
        return x, x   # NumPy's result_type treats Python scalars as weak
    if isinstance(x, numpy.generic):
        return x.dtype, x
    x = asarray(x)
    return x.dtype, x


def _spec_value(k, x, dt):
    nm = f"a{k}"
    if isinstance(x, ndarray):
        return ("in", x.dtype, nm), x, f"gs::cast<{ctype(dt)}>({nm})"
    return ("scalar", dt, nm), numpy.asarray(x, dtype=dt).tobytes(), nm


def where(condition, x=None, y=None):
    """``x`` where ``condition`` is true, else ``y``; with ``condition``
    alone, ``nonzero(condition)``.

    The result dtype is NumPy's ``result_type`` of ``x`` and ``y`` (NEP 50
    rules for Python scalars).

    Raises
    ------
    ValueError
        If only one of ``x`` and ``y`` is given, or (one-argument form) if
        ``condition`` is 0-d.
    """
    if x is None and y is None:
        from ._compaction import nonzero
        return nonzero(asarray(condition))
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    cond = asarray(condition)
    kx, x = _operand(x)
    ky, y = _operand(y)
    dt = normalize_dtype(numpy.result_type(kx, ky))
    arrays = [a for a in (cond, x, y) if isinstance(a, ndarray)]
    shape = broadcast_shapes(*[a.shape for a in arrays])
    out = empty(shape, dt, result_order(arrays))
    sx, vx, ex = _spec_value(1, x, dt)
    sy, vy, ey = _spec_value(2, y, dt)
    codes = "_".join("s" if not isinstance(v, ndarray) else v.dtype.str[1:]
                     for v in (x, y))
    run_elementwise(f"gs_where_{cond.dtype.str[1:]}_{codes}_{dt.str[1:]}",
                    (("in", cond.dtype, "c"), sx, sy, ("out", dt, "z")),
                    f"z = gs::cast<bool>(c) ? {ex} : {ey};",
                    [cond, vx, vy, out], shape, True)
    return out


_clip_dtypes = {}


def _clip_dtype(keys):
    """NumPy's result dtype of ``clip`` for operand dtypes / Python scalar
    types ``keys`` (memoised: ``resolve_dtypes`` costs ~10 us)."""
    dt = _clip_dtypes.get(keys)
    if dt is None:
        dts = numpy._core.umath.clip.resolve_dtypes(keys + (None,))
        dt = _clip_dtypes[keys] = normalize_dtype(dts[-1])
    return dt


def clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None, **kwargs):
    """Limit the values of ``a`` to ``[a_min, a_max]`` (NaN propagates, as in
    NumPy)."""
    if min is not None:
        a_min = min
    if max is not None:
        a_max = max
    a = asarray(a)
    if a_min is None and a_max is None:
        return _ufuncs.positive(a, out=out) if out is not None else a.copy()
    if a_min is None:
        return _ufuncs.minimum(a, a_max, out=out, **kwargs)
    if a_max is None:
        return _ufuncs.maximum(a, a_min, out=out, **kwargs)
    klo, lo = _operand(a_min)
    khi, hi = _operand(a_max)
    dt = _clip_dtype((a.dtype, _weak_key(klo), _weak_key(khi)))
    if dt.kind in "iu":
        # bounds outside the integer range clip nothing on that side (NumPy)
        if type(lo) is int:
            lo = _int_in_range(lo, dt)
        if type(hi) is int:
            hi = _int_in_range(hi, dt)
    lo_arr, hi_arr = isinstance(lo, ndarray), isinstance(hi, ndarray)
    if lo_arr or hi_arr:
        arrays = [v for v in (a, lo, hi) if isinstance(v, ndarray)]
        shape = broadcast_shapes(*[v.shape for v in arrays])
        order = result_order(arrays)
    else:
        shape, order = a.shape, result_order((a,))
    if out is None:
        out = empty(shape, dt, order)
    elif out.shape != shape:
        raise ValueError(f"non-broadcastable output operand with shape {out.shape} "
                         f"doesn't match the broadcast shape {shape}")
    prefix, specs, body = _clip_kernel(a.dtype, lo.dtype if lo_arr else None,
                                       hi.dtype if hi_arr else None, dt, out.dtype)
    vals = [a, lo if lo_arr else numpy.asarray(lo, dtype=dt).tobytes(),
            hi if hi_arr else numpy.asarray(hi, dtype=dt).tobytes(), out]
    run_elementwise(prefix, specs, body, vals, shape, True)
    return out


def _weak_key(k):
    """``_operand``'s dtype key with Python scalars as their types (the key
    of NumPy's weak promotion)."""
    t = type(k)
    if t is int or t is float or t is complex:
        return t
    if t is bool:
        return _BOOL
    return k


_BOOL = numpy.dtype(bool)
_int_ranges = {}


def _int_in_range(v, dt):
    r = _int_ranges.get(dt)
    if r is None:
        info = numpy.iinfo(dt)
        r = _int_ranges[dt] = (int(info.min), int(info.max))
    return builtins.min(builtins.max(v, r[0]), r[1])


_clip_kernels = {}


def _clip_kernel(adt, lodt, hidt, dt, odt):
    """(kernel-name prefix, specs, body) of clip for the operand dtypes
    (None: a host scalar of ``dt``), memoised per combination."""
    key = (adt, lodt, hidt, dt, odt)
    k = _clip_kernels.get(key)
    if k is None:
        specs, exprs, codes = [], [], []
        for j, v in enumerate((adt, lodt, hidt)):
            nm = f"a{j}"
            if v is None:
                specs.append(("scalar", dt, nm))
                exprs.append(nm)
                codes.append("s")
            else:
                specs.append(("in", v, nm))
                exprs.append(f"gs::cast<{ctype(dt)}>({nm})")
                codes.append(v.str[1:])
        specs.append(("out", odt, "z"))
        k = _clip_kernels[key] = (
            f"gs_clip_{'_'.join(codes)}_{dt.str[1:]}_{odt.str[1:]}", tuple(specs),
            f"z = gs::cast<{ctype(odt)}>(gs::clip({', '.join(exprs)}));")
    return k


def round(a, decimals=0, out=None):
    """Round to ``decimals`` decimals, halves to even (NumPy's ``round``)."""
    a = asarray(a)
    decimals = int(decimals)
    # NumPy decides the result dtype and the errors (e.g. bool with decimals < 0)
    rdt = normalize_dtype(numpy.round(numpy.zeros(1, a.dtype), decimals).dtype)
    if a.dtype.kind in "iu" and decimals >= 0:
        return a.astype(rdt) if out is None else _ufuncs.positive(a, out=out)
    if out is None:
        out = empty(a.shape, rdt, result_order([a]))
    run_elementwise(f"gs_round_{a.dtype.str[1:]}_{out.dtype.str[1:]}",
                    (("in", a.dtype, "x"), ("scalar", numpy.dtype(numpy.int32), "d"),
                     ("out", out.dtype, "z")),
                    f"z = gs::cast<{ctype(out.dtype)}>(gs::round_decimals(x, d));",
                    [a, numpy.int32(decimals).tobytes(), out], a.shape, True)
    return out


around = round


def real(val):
    """Real part (a view for complex arrays)."""
    return asarray(val).real


def imag(val):
    """Imaginary part (a view for complex arrays; zeros otherwise)."""
    return asarray(val).imag


def conj(x, out=None):
    """Complex conjugate, elementwise (``numpy.conjugate``)."""
    return _ufuncs.conjugate(x, out=out)


def angle(z, deg=False):
    """Angle of the complex argument (radians, or degrees with ``deg=True``)."""
    z = asarray(z)
    rdt = numpy.angle(numpy.zeros(1, z.dtype)).dtype   # NumPy decides
    rdt = normalize_dtype(rdt)
    out = empty(z.shape, rdt, result_order([z]))
    scale = "* (180.0 / 3.14159265358979323846)" if deg else ""
    run_elementwise(f"gs_angle_{z.dtype.str[1:]}_{rdt.str[1:]}_{int(deg)}",
                    (("in", z.dtype, "x"), ("out", rdt, "y")),
                    f"y = gs::cast<{ctype(rdt)}>((double)gs::cast<double>(gs::angle(x)) {scale});"
                    if deg else f"y = gs::cast<{ctype(rdt)}>(gs::angle(x));",
                    [z, out], z.shape, True)
    return out
