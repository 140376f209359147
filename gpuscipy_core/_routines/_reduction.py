"""Reductions with NumPy's semantics.

``sum``, ``prod``, ``min``/``amin``, ``max``/``amax``, ``argmin``,
``argmax``, ``mean``, ``var``, ``std``, ``any``, ``all``, ``nansum``,
``nanprod``, ``nanmean``, ``nanmin``, ``nanmax``, ``nanvar``, ``nanstd``,
``count_nonzero`` and ``ptp``.

Every function is a table of C expressions run by the one reduction engine
(:class:`gpuscipy_core._kernel._reduction_kernel.Reduction`, which also runs
user ``ReductionKernel`` objects). Result dtypes come from NumPy itself
(the NumPy function applied to a two-element host array of the same dtype),
never from rules written here.

Accuracy
--------
Floating sums (``sum``, ``mean``, ``var``, ``std`` and the ``nan``
versions) never accumulate in the input precision: float16 and float32
values are summed in float64, float64 values in a compensated float64 pair
(TwoSum, so roughly 106 bits), complex numbers per component the same way;
the per-thread partial sums are combined in the same type. The error is
therefore below NumPy's pairwise summation for every size. ``var`` and
``std`` are two-pass (mean first, then the sum of squared deviations), as
NumPy computes them, with the mean kept in float64. Integer sums and
products wrap modulo 2**64 like NumPy's.

Differences from NumPy
----------------------
Reductions to a single value return 0-d device arrays, not NumPy scalars.
``initial=`` and ``where=`` are not supported. Results of float16/float32
sums can differ from NumPy's in the last bit because they are more
accurate.

References
----------
N. J. Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
SIAM 2002, ch. 4 (summation) -- TwoSum/compensated summation.
"""

import functools
import operator
import struct
import warnings

import numpy

from .._kernel._reduction_kernel import get_reduction, normalize_axes
from .._kernel._ufunc_names import ctype
from .._ndarray import ndarray, normalize_dtype
from ._creation import asarray as _asarray

__all__ = ["sum", "prod", "min", "max", "amin", "amax", "argmin", "argmax", "mean",
           "var", "std", "any", "all", "nansum", "nanprod", "nanmean", "nanmin",
           "nanmax", "nanvar", "nanstd", "count_nonzero", "ptp"]

_F8 = numpy.dtype(numpy.float64)
_F4 = numpy.dtype(numpy.float32)
_F2 = numpy.dtype(numpy.float16)
_C16 = numpy.dtype(numpy.complex128)
_I8 = numpy.dtype(numpy.int64)
_BOOL = numpy.dtype(numpy.bool_)
_INDEX_MAX = "9223372036854775807LL"


# ---------------------------------------------------------------- helpers

def _out(out):
    if out is None:
        return None
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry")
        out = out[0]
        if out is None:
            return None
    if not isinstance(out, ndarray):
        raise TypeError("output must be a gpuscipy_core.ndarray")
    return out


def _dtype(dtype):
    if dtype is None:
        return None
    return normalize_dtype(dtype)


def _code(dt):
    return dt.str[1:]


def _size(shape, axes):
    n = 1
    for d in axes:
        n *= shape[d]
    return n


@functools.lru_cache(maxsize=None)
def _numpy_result(fname, dt, dtype=None):
    """The dtype NumPy's ``fname`` returns for input ``dt`` (and ``dtype=``)."""
    x = numpy.ones(2, dt)
    f = getattr(numpy, fname)
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        r = f(x) if dtype is None else f(x, dtype=dtype)
    return numpy.dtype(r.dtype)


def _check_dtype(fname, dt, dtype):
    """NumPy's errors for an unsupported (input, dtype=) pair, and the result
    dtype."""
    return normalize_dtype(_numpy_result(fname, dt, dtype))


def _run(red, arrays, out, axes, keepdims, scalars=(), nout=1):
    outs = [out] + [None] * (nout - 1)
    res = red.run(arrays, scalars, outs, arrays[0].shape, axes, bool(keepdims))
    return res[0] if nout == 1 else res


# ------------------------------------------------- accumulation tables

def _sum_parts(op, comp):
    """(acc type, map from x, identity, reduce, value-in-C) of a sum or
    product computed in dtype ``comp``."""
    c = ctype(comp)
    k = comp.kind
    is_sum = op == "sum"
    if k in "biu":
        if k == "i":
            conv = f"(unsigned long long)(long long)gs::cast<{c}>(x)"
        else:
            conv = f"(unsigned long long)gs::cast<{c}>(x)"
        return ("unsigned long long", conv, "0ull" if is_sum else "1ull",
                "a + b" if is_sum else "a * b", f"(({c})a)")
    if k == "f":
        if is_sum and comp.itemsize == 8:
            return ("gs::red::ksum", "gs::red::make_ksum(gs::cast<double>(x))",
                    "gs::red::make_ksum(0.0)", "gs::red::acc_add(a, b)",
                    "gs::red::acc_value(a)")
        return ("double", f"gs::cast<double>(gs::cast<{c}>(x))",
                "0.0" if is_sum else "1.0", "a + b" if is_sum else "a * b",
                "gs::red::acc_value(a)")
    cd = "gs::complex<double>"
    if is_sum and comp.itemsize == 16:
        return ("gs::red::ksum_c", f"gs::red::make_ksum(gs::cast<{cd}>(x))",
                f"gs::red::make_ksum({cd}(0.0, 0.0))", "gs::red::acc_add(a, b)",
                "gs::red::acc_value(a)")
    return (cd, f"gs::cast<{cd}>(gs::cast<{c}>(x))",
            f"{cd}(0.0, 0.0)" if is_sum else f"{cd}(1.0, 0.0)",
            "a + b" if is_sum else "a * b", "gs::red::acc_value(a)")


@functools.lru_cache(maxsize=None)
def _sum_kernel(op, in_dt, comp, out_dt, nan_skip):
    acc, conv, ident, red, val = _sum_parts(op, comp)
    if nan_skip:
        conv = (f"(gs::red::is_nan(x) ? static_cast<{acc}>({ident}) : "
                f"static_cast<{acc}>({conv}))")
    post = f"y = gs::cast<{ctype(out_dt)}>(gs::cast<{ctype(comp)}>({val}))"
    name = ("nan" if nan_skip else "") + op
    return get_reduction(
        f"gs_{name}_{_code(in_dt)}_{_code(comp)}_{_code(out_dt)}",
        ((ctype(in_dt), "x"),), ((out_dt, "y"),), (), (), acc, conv, red, post,
        ident, op_name="add" if op == "sum" else "multiply")


def _mean_value(comp, val):
    """C expression of sum / _n from the accumulated value ``val``."""
    if comp.kind in "biu":
        return f"((double){val} / (double)_n)"
    if comp.kind == "c":
        # NumPy divides by the count as a complex number (n + 0j): the same
        # complex division, so inf/NaN components propagate as in NumPy
        return f"gs::divide({val}, gs::complex<double>((double)_n, 0.0))"
    return f"({val} / (double)_n)"


@functools.lru_cache(maxsize=None)
def _mean_kernel(in_dt, comp, res, out_dt):
    acc, conv, ident, red, val = _sum_parts("sum", comp)
    post = (f"y = gs::cast<{ctype(out_dt)}>(gs::cast<{ctype(res)}>("
            f"{_mean_value(comp, val)}))")
    return get_reduction(
        f"gs_mean_{_code(in_dt)}_{_code(comp)}_{_code(res)}_{_code(out_dt)}",
        ((ctype(in_dt), "x"),), ((out_dt, "y"),), (), (), acc, conv, red, post,
        ident, op_name="add")


@functools.lru_cache(maxsize=None)
def _nanmean_kernel(in_dt, comp, res, out_dt):
    """Mean over the non-NaN values; second output: their count."""
    acc, conv, ident, _, _ = _sum_parts("sum", comp)
    pair = f"gs::red::sum_count<{acc}>"
    conv = (f"(gs::red::is_nan(x) ? gs::red::make_sum_count(static_cast<{acc}>({ident}), 0LL)"
            f" : gs::red::make_sum_count(static_cast<{acc}>({conv}), 1LL))")
    value = ("gs::divide(gs::red::acc_value(a.s), gs::complex<double>((double)a.n, 0.0))"
             if comp.kind == "c" else "gs::red::acc_value(a.s) / (double)a.n")
    post = (f"y = gs::cast<{ctype(out_dt)}>(gs::cast<{ctype(res)}>({value})); "
            "cnt = a.n")
    return get_reduction(
        f"gs_nanmean_{_code(in_dt)}_{_code(comp)}_{_code(res)}_{_code(out_dt)}",
        ((ctype(in_dt), "x"),), ((out_dt, "y"), (_I8, "cnt")), (), (), pair, conv,
        "gs::red::acc_add(a, b)", post,
        f"gs::red::make_sum_count(static_cast<{acc}>({ident}), 0LL)", op_name="add")


@functools.lru_cache(maxsize=None)
def _deviation_kernel(fname, in_dt, comp, mean_dt, res, out_dt, nan_skip):
    """Second pass of var/std: sum of |x - mean|^2 over (non-NaN) x, divided
    by max(count - ddof, 0); with nan_skip, second output: the count."""
    d = ctype(mean_dt)
    dev = (f"gs::red::make_ksum(gs::red::sq_abs(gs::cast<{d}>(gs::cast<{ctype(comp)}>(x))"
           " - m))")
    root = "gs::m::sqrt" if fname.endswith("std") else ""
    oc, rc = ctype(out_dt), ctype(res)
    if nan_skip:
        acc = "gs::red::sum_count<gs::red::ksum>"
        conv = ("(gs::red::is_nan(x) ? gs::red::make_sum_count(gs::red::make_ksum(0.0), 0LL)"
                f" : gs::red::make_sum_count({dev}, 1LL))")
        ident = "gs::red::make_sum_count(gs::red::make_ksum(0.0), 0LL)"
        post = ("const double _d = (double)a.n - ddof; "
                f"y = gs::cast<{oc}>(gs::cast<{rc}>(_d > 0.0 ? "
                f"{root}(gs::red::acc_value(a.s) / _d) : gs::red::nan<double>())); "
                "cnt = a.n")
        outputs = ((out_dt, "y"), (_I8, "cnt"))
    else:
        acc = "gs::red::ksum"
        conv = dev
        ident = "gs::red::make_ksum(0.0)"
        post = (f"y = gs::cast<{oc}>(gs::cast<{rc}>({root}(gs::red::acc_value(a) / "
                "gs::red::dof(_n, ddof))))")
        outputs = ((out_dt, "y"),)
    return get_reduction(
        f"gs_{fname}_{_code(in_dt)}_{_code(comp)}_{_code(res)}_{_code(out_dt)}",
        ((ctype(in_dt), "x"), (d, "m")), outputs, (("double", "ddof", 8, 8),), (),
        acc, conv, "gs::red::acc_add(a, b)", post, ident, op_name="add")


@functools.lru_cache(maxsize=None)
def _extremum_kernel(op, in_dt, out_dt):
    """min, max (NaN propagates), fmin, fmax (NaN skipped)."""
    c = ctype(in_dt)
    ident = {"min": f"gs::red::upper<{c}>()", "max": f"gs::red::lower<{c}>()"}
    if in_dt.kind in "fc":
        ident["fmin"] = ident["fmax"] = f"gs::red::nan<{c}>()"
    else:
        ident["fmin"], ident["fmax"] = ident["min"], ident["max"]
    return get_reduction(
        f"gs_{op}_{_code(in_dt)}_{_code(out_dt)}", ((c, "x"),), ((out_dt, "y"),),
        (), (), c, "x", f"gs::red::{op}_op(a, b)", f"y = gs::cast<{ctype(out_dt)}>(a)",
        ident[op], op_name={"min": "minimum", "max": "maximum"}.get(op, op))


@functools.lru_cache(maxsize=None)
def _arg_kernel(op, in_dt, out_dt):
    c = ctype(in_dt)
    bound = "upper" if op == "argmin" else "lower"
    return get_reduction(
        f"gs_{op}_{_code(in_dt)}_{_code(out_dt)}", ((c, "x"),), ((out_dt, "y"),),
        (), (), f"gs::red::arg<{c}>", "gs::red::make_arg(x, _J)",
        f"gs::red::{op}_op(a, b)", f"y = gs::cast<{ctype(out_dt)}>(a.i)",
        f"gs::red::make_arg(gs::red::{bound}<{c}>(), {_INDEX_MAX})", ordered=True,
        op_name=op)


@functools.lru_cache(maxsize=None)
def _logical_kernel(op, in_dt, out_dt):
    """any, all, count_nonzero, and the flag reductions used for warnings."""
    c = ctype(in_dt)
    if op == "any":
        parts = ("bool", "gs::cast<bool>(x)", "a || b", "false")
    elif op == "all":
        parts = ("bool", "gs::cast<bool>(x)", "a && b", "true")
    elif op == "count_nonzero":
        parts = ("long long", "(long long)gs::cast<bool>(x)", "a + b", "0LL")
    elif op == "any_nan":
        parts = ("bool", "gs::red::is_nan(x)", "a || b", "false")
    elif op == "all_finite":
        parts = ("bool", "gs::red::is_finite(x)", "a && b", "true")
    else:  # any_le: any(x <= limit)
        parts = ("bool", "(double)x <= limit", "a || b", "false")
    scalars = (("double", "limit", 8, 8),) if op == "any_le" else ()
    acc, conv, red, ident = parts
    return get_reduction(
        f"gs_{op}_{_code(in_dt)}_{_code(out_dt)}", ((c, "x"),), ((out_dt, "y"),),
        scalars, (), acc, conv, red, f"y = gs::cast<{ctype(out_dt)}>(a)", ident,
        op_name={"any": "logical_or", "all": "logical_and"}.get(op, "add"))


def _flag(op, x, limit=None):
    """bool(any(isnan(x))), bool(all(isfinite(x))) or bool(any(x <= limit)):
    one fused reduction (no temporary) and a device sync."""
    red = _logical_kernel(op, x.dtype, _BOOL)
    scalars = () if limit is None else (struct.pack("<d", float(limit)),)
    r = _run(red, [x], None, tuple(range(x.ndim)), False, scalars)
    return bool(r)


# ---------------------------------------------------------------- sums

def _sum_prod(op, a, axis, dtype, out, keepdims, nan):
    a = _asarray(a)
    out = _out(out)
    dtype = _dtype(dtype)
    axes = normalize_axes(axis, a.ndim, True)
    fname = ("nan" if nan else "") + op
    res = _check_dtype(fname, a.dtype, dtype)
    comp = dtype if dtype is not None else _out_loop(a.dtype, out, res)
    out_dt = out.dtype if out is not None else res
    red = _sum_kernel(op, a.dtype, comp, out_dt, nan and a.dtype.kind in "fc")
    return _run(red, [a], out, axes, keepdims)


def sum(a, axis=None, dtype=None, out=None, keepdims=False):
    """Sum of array elements over the given axes.

    Parameters
    ----------
    a : ndarray
        Input array.
    axis : None, int or tuple of ints
        Axes to sum over; None sums all elements.
    dtype : data-type, optional
        Type in which the sum is computed and returned (default: NumPy's,
        e.g. int64 for small integers, uint64 for unsigned, the input's for
        floats).
    out : ndarray, optional
        Output of the result's shape (cast unsafely to its dtype).
    keepdims : bool
        Keep reduced axes as axes of length one.

    Returns
    -------
    ndarray
        The sum (0-d for a full reduction). The sum of an empty array is 0.
    """
    return _sum_prod("sum", a, axis, dtype, out, keepdims, False)


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """Product of array elements over the given axes (see :func:`sum` for
    the parameters). The product of an empty array is 1."""
    return _sum_prod("prod", a, axis, dtype, out, keepdims, False)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    """Sum treating NaN as zero (see :func:`sum`)."""
    return _sum_prod("sum", a, axis, dtype, out, keepdims, True)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    """Product treating NaN as one (see :func:`sum`)."""
    return _sum_prod("prod", a, axis, dtype, out, keepdims, True)


# ---------------------------------------------------------------- extrema

def _extremum(op, ufunc_name, a, axis, out, keepdims):
    a = _asarray(a)
    out = _out(out)
    axes = normalize_axes(axis, a.ndim, True)
    if _size(a.shape, axes) == 0:
        raise ValueError(f"zero-size array to reduction operation {ufunc_name} "
                         "which has no identity")
    out_dt = out.dtype if out is not None else a.dtype
    return _run(_extremum_kernel(op, a.dtype, out_dt), [a], out, axes, keepdims)


def min(a, axis=None, out=None, keepdims=False):
    """Minimum over the given axes; NaN propagates (complex: lexicographic
    order). Raises ``ValueError`` for an empty reduction."""
    return _extremum("min", "minimum", a, axis, out, keepdims)


def max(a, axis=None, out=None, keepdims=False):
    """Maximum over the given axes; NaN propagates (complex: lexicographic
    order). Raises ``ValueError`` for an empty reduction."""
    return _extremum("max", "maximum", a, axis, out, keepdims)


amin = min
amax = max


def _nan_extremum(op, a, axis, out, keepdims):
    a = _asarray(a)
    r = _extremum(op, op, a, axis, out, keepdims)
    if a.dtype.kind in "fc" and r.size and _flag("any_nan", r):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
    return r


def nanmin(a, axis=None, out=None, keepdims=False):
    """Minimum ignoring NaN; an all-NaN slice gives NaN and a
    ``RuntimeWarning`` (this check synchronises with the device)."""
    return _nan_extremum("fmin", a, axis, out, keepdims)


def nanmax(a, axis=None, out=None, keepdims=False):
    """Maximum ignoring NaN; an all-NaN slice gives NaN and a
    ``RuntimeWarning`` (this check synchronises with the device)."""
    return _nan_extremum("fmax", a, axis, out, keepdims)


def _arg(op, a, axis, out, keepdims):
    a = _asarray(a)
    out = _out(out)
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        axes = normalize_axes(operator.index(axis), a.ndim, True)
    if _size(a.shape, axes) == 0:
        raise ValueError(f"attempt to get {op} of an empty sequence")
    out_dt = out.dtype if out is not None else _I8
    return _run(_arg_kernel(op, a.dtype, out_dt), [a], out, axes, keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the minimum (the flattened, C-order index when ``axis`` is
    None); the first occurrence wins, and the first NaN if there is one."""
    return _arg("argmin", a, axis, out, keepdims)


def argmax(a, axis=None, out=None, *, keepdims=False):
    """Index of the maximum (the flattened, C-order index when ``axis`` is
    None); the first occurrence wins, and the first NaN if there is one."""
    return _arg("argmax", a, axis, out, keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    """Range of values (maximum - minimum) over the given axes."""
    a = _asarray(a)
    out = _out(out)
    mx = max(a, axis, None, keepdims)
    mn = min(a, axis, None, keepdims)
    from ._ufuncs import subtract
    return subtract(mx, mn, out=out)


# ---------------------------------------------------------------- logical

def _logical(op, a, axis, out, keepdims):
    a = _asarray(a)
    out = _out(out)
    axes = normalize_axes(axis, a.ndim, True)
    out_dt = out.dtype if out is not None else _BOOL
    return _run(_logical_kernel(op, a.dtype, out_dt), [a], out, axes, keepdims)


def any(a, axis=None, out=None, keepdims=False):
    """Whether any element along the axes is nonzero (NaN counts as true)."""
    return _logical("any", a, axis, out, keepdims)


def all(a, axis=None, out=None, keepdims=False):
    """Whether all elements along the axes are nonzero (NaN counts as true)."""
    return _logical("all", a, axis, out, keepdims)


def all_finite(a, sync=True):
    """``bool(isfinite(a).all())`` in one pass over ``a`` (no boolean
    temporary) and one device sync; True for integer, bool and empty ``a``.

    With ``sync=False`` nothing is read back: the result is a 0-d device
    bool array, or None where ``a`` cannot hold inf or NaN (empty, integer,
    bool), for a caller that folds it into a later read back.
    """
    a = _asarray(a)
    if a.size == 0 or a.dtype.kind not in "fc":
        return True if sync else None
    if sync:
        return _flag("all_finite", a)
    return _run(_logical_kernel("all_finite", a.dtype, _BOOL), [a], None,
                tuple(range(a.ndim)), False)


def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of nonzero elements along the axes (int64; a 0-d array when
    ``axis`` is None)."""
    a = _asarray(a)
    axes = normalize_axes(axis, a.ndim, True)
    return _run(_logical_kernel("count_nonzero", a.dtype, _I8), [a], None, axes,
                keepdims)


# ---------------------------------------------------------------- moments

def _out_loop(a_dt, out, res):
    """NumPy's reduction loop with ``out=``: the output's dtype when the input
    casts to it safely, otherwise the default result dtype (then cast)."""
    if out is not None and numpy.can_cast(a_dt, out.dtype, "safe"):
        return out.dtype
    return res


def _mean_comp(a_dt, dtype, out):
    if dtype is not None:
        return dtype
    if a_dt.kind in "biu":
        return _F8
    if a_dt == _F2:
        return _F4
    return out.dtype if out is not None else a_dt


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Arithmetic mean over the given axes (float64 for integer input; the
    sum accumulates as in :func:`sum`). The mean of an empty slice is NaN,
    with a ``RuntimeWarning``."""
    a = _asarray(a)
    out = _out(out)
    dtype = _dtype(dtype)
    axes = normalize_axes(axis, a.ndim)
    res = _check_dtype("mean", a.dtype, dtype)
    comp = _mean_comp(a.dtype, dtype, out)
    if _size(a.shape, axes) == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
    out_dt = out.dtype if out is not None else res
    if dtype is None:
        res = _out_loop(res, out, res)   # NumPy sums into out, then divides there
    return _run(_mean_kernel(a.dtype, comp, res, out_dt), [a], out, axes, keepdims)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    """Mean ignoring NaN; an all-NaN slice gives NaN and a ``RuntimeWarning``
    (this check synchronises with the device)."""
    a = _asarray(a)
    if a.dtype.kind not in "fc":
        return mean(a, axis, dtype, out, keepdims)
    out = _out(out)
    dtype = _dtype(dtype)
    axes = normalize_axes(axis, a.ndim, True)
    res = _check_dtype("nanmean", a.dtype, dtype)
    comp = _mean_comp(a.dtype, dtype, out)
    out_dt = out.dtype if out is not None else res
    r, cnt = _run(_nanmean_kernel(a.dtype, comp, res, out_dt), [a], out, axes,
                  keepdims, nout=2)
    if cnt.size and _flag("any_le", cnt, 0):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    return r


def _moment(fname, a, axis, dtype, out, ddof, keepdims, nan):
    a = _asarray(a)
    nan = nan and a.dtype.kind in "fc"
    out = _out(out)
    dtype = _dtype(dtype)
    axes = normalize_axes(axis, a.ndim, nan)
    base = fname[3:] if fname.startswith("nan") else fname
    res = _check_dtype(base, a.dtype, dtype)
    comp = dtype if dtype is not None else (_F8 if a.dtype.kind in "biu" else a.dtype)
    mean_dt = _C16 if comp.kind == "c" else _F8
    out_dt = out.dtype if out is not None else res
    ddof = float(ddof)
    if not nan and _size(a.shape, axes) - ddof <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning,
                      stacklevel=3)
    if nan:
        m, _ = _run(_nanmean_kernel(a.dtype, comp, mean_dt, mean_dt), [a], None,
                    axes, True, nout=2)
    else:
        m = _run(_mean_kernel(a.dtype, comp, mean_dt, mean_dt), [a], None, axes, True)
    red = _deviation_kernel(("nan" if nan else "") + base, a.dtype, comp, mean_dt,
                            res, out_dt, nan)
    scalars = (struct.pack("<d", ddof),)
    if not nan:
        return _run(red, [a, m], out, axes, keepdims, scalars)
    r, cnt = _run(red, [a, m], out, axes, keepdims, scalars, nout=2)
    if cnt.size and _flag("any_le", cnt, ddof):
        warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning,
                      stacklevel=3)
    return r


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance over the given axes: ``sum(|x - mean|**2) / (n - ddof)``
    (real for complex input), computed in two passes in float64. With
    ``n - ddof <= 0`` the result is NaN or inf, with a ``RuntimeWarning``."""
    return _moment("var", a, axis, dtype, out, ddof, keepdims, False)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Standard deviation: the square root of :func:`var`."""
    return _moment("std", a, axis, dtype, out, ddof, keepdims, False)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Variance ignoring NaN; slices with ``count - ddof <= 0`` give NaN and a
    ``RuntimeWarning`` (this check synchronises with the device)."""
    return _moment("nanvar", a, axis, dtype, out, ddof, keepdims, True)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """Standard deviation ignoring NaN: the square root of :func:`nanvar`."""
    return _moment("nanstd", a, axis, dtype, out, ddof, keepdims, True)



def _builtin_reductions(dt, casts=False):
    """Every reduction the functions above build for input dtype ``dt`` with
    default arguments (what the NVRTC tests compile); with ``casts``, only
    ``sum`` with a few ``dtype=`` casts instead. Builds nothing on the
    device."""
    dt = numpy.dtype(dt)
    if casts:
        return [_sum_kernel("sum", dt, comp, comp, False)
                for comp in (_BOOL, numpy.dtype(numpy.int8), _F2,
                             numpy.dtype(numpy.complex64))]
    fc = dt.kind in "fc"
    out = []
    for op in ("sum", "prod"):
        res = _numpy_result(op, dt)
        out.append(_sum_kernel(op, dt, res, res, False))
        if fc:
            out.append(_sum_kernel(op, dt, res, res, True))
    for op in ("min", "max", "fmin", "fmax"):
        out.append(_extremum_kernel(op, dt, dt))
    for op in ("argmin", "argmax"):
        out.append(_arg_kernel(op, dt, _I8))
    for op in ("any", "all"):
        out.append(_logical_kernel(op, dt, _BOOL))
    out.append(_logical_kernel("count_nonzero", dt, _I8))
    res = _numpy_result("mean", dt)
    comp = _mean_comp(dt, None, None)
    out.append(_mean_kernel(dt, comp, res, res))
    if fc:
        out.append(_logical_kernel("any_nan", dt, _BOOL))
        out.append(_logical_kernel("all_finite", dt, _BOOL))
        out.append(_nanmean_kernel(dt, comp, res, res))
    comp = _F8 if dt.kind in "biu" else dt
    mean_dt = _C16 if comp.kind == "c" else _F8
    res = _numpy_result("var", dt)
    out.append(_mean_kernel(dt, comp, mean_dt, mean_dt))
    for name in ("var", "std"):
        out.append(_deviation_kernel(name, dt, comp, mean_dt, res, res, False))
    if fc:
        out.append(_nanmean_kernel(dt, comp, mean_dt, mean_dt))
        for name in ("nanvar", "nanstd"):
            out.append(_deviation_kernel(name, dt, comp, mean_dt, res, res, True))
    if dt == _I8:
        out.append(_logical_kernel("any_le", dt, _BOOL))
    return list({r.prefix: r for r in out}.values())
