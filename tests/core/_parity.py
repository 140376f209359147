"""The parity helper of the core tests: compare a gpuscipy_core result with
NumPy's, and make random inputs.

Tolerances (``TOLERANCES``) are per result dtype and per kind of operation:

* ``"exact"``: bool and integer results, and anything that must be bit-exact
  (copies, casts, indexing): no tolerance at all.
* ``"arith"``: correctly rounded IEEE operations (+, -, *, /, sqrt) agree
  bit for bit with NumPy; the slack covers FMA contraction and float16
  double rounding: float16 1e-3, float32 2e-6 (about 16 ulp), float64 4e-15
  (about 18 ulp). Complex results use the same figures on ``|z|`` (a fused
  ``a*c - b*d`` may differ in the last bits of a cancelling component).
* ``"transcendental"``: CUDA's libdevice is within 1-4 ulp and NumPy's SIMD
  loops within 1-4 ulp of the true value, so results may differ by up to ~8
  ulp: float16 2e-3, float32 4e-6, float64 1e-14; complex functions
  (several real ops each) 2e-5 / 1e-13.

Integer/bool dtypes are always compared exactly whatever ``kind`` says.
"""

import numpy as np
import pytest

__all__ = ["ALL_DTYPES", "BOOL_DTYPES", "INT_DTYPES", "UINT_DTYPES",
           "SIGNED_DTYPES", "INTEGER_DTYPES", "FLOAT_DTYPES", "COMPLEX_DTYPES",
           "INEXACT_DTYPES", "TOLERANCES", "tolerance", "assert_parity",
           "assert_raises_like", "assert_same_outcome", "to_host", "random_array", "random_pair",
           "with_specials", "dtype_id"]

BOOL_DTYPES = [np.dtype(np.bool_)]
SIGNED_DTYPES = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]
INT_DTYPES = SIGNED_DTYPES
UINT_DTYPES = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]
INTEGER_DTYPES = SIGNED_DTYPES + UINT_DTYPES
FLOAT_DTYPES = [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
COMPLEX_DTYPES = [np.dtype(t) for t in (np.complex64, np.complex128)]
INEXACT_DTYPES = FLOAT_DTYPES + COMPLEX_DTYPES
ALL_DTYPES = BOOL_DTYPES + INTEGER_DTYPES + INEXACT_DTYPES


def dtype_id(dt):
    """A readable pytest id for a dtype (``float32``)."""
    return np.dtype(dt).name


# kind -> dtype char -> (rtol, atol)
TOLERANCES = {
    "exact": {c: (0.0, 0.0) for c in "efdFD"},
    "arith": {"e": (1e-3, 0.0), "f": (2e-6, 0.0), "d": (4e-15, 0.0),
              "F": (2e-6, 0.0), "D": (4e-15, 0.0)},
    "transcendental": {"e": (2e-3, 0.0), "f": (4e-6, 0.0), "d": (1e-14, 0.0),
                       "F": (2e-5, 0.0), "D": (1e-13, 0.0)},
}


def tolerance(dtype, kind="arith"):
    """``(rtol, atol)`` for results of ``dtype`` from an operation of ``kind``."""
    dt = np.dtype(dtype)
    if dt.kind in "biu":
        return 0.0, 0.0
    return TOLERANCES[kind][dt.char]


def to_host(x):
    """A NumPy copy of a gpuscipy_core array (anything else: ``numpy.asarray``)."""
    import gpuscipy_core as gp
    if isinstance(x, gp.ndarray):
        return gp.asnumpy(x)
    return np.asarray(x)


def _check_nan(actual, expected, msg):
    if actual.dtype.kind == "c":
        for part in ("real", "imag"):
            a, e = getattr(actual, part), getattr(expected, part)
            np.testing.assert_array_equal(
                np.isnan(a), np.isnan(e),
                err_msg=f"{msg}NaN positions of the {part} parts differ")
    elif actual.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected),
                                      err_msg=f"{msg}NaN positions differ")


def _ulp_floor(dt):
    # An absolute floor of a few units in the smallest normal number, so that
    # results that underflow to subnormals on one side and zero on the other
    # (flush-to-zero differences) do not fail a relative comparison.
    if dt.kind in "fc":
        return float(np.finfo(dt).tiny) * 4
    return 0.0


def assert_parity(gpu_result, numpy_result, rtol=None, atol=None, *,
                  kind="arith", check_dtype=True, check_type=True, err_msg=""):
    """Assert that a gpuscipy_core result matches NumPy's.

    Checks, in order: the result is a device array (when NumPy's is an array
    or NumPy scalar; gpuscipy returns 0-d arrays where NumPy returns scalars),
    the dtype, the shape, the NaN positions (per component for complex), the
    infinities (position and sign) and the values within
    ``tolerance(dtype, kind)`` unless ``rtol``/``atol`` are given.

    Tuples (ufuncs with two outputs) are compared element by element.
    """
    import gpuscipy_core as gp
    if isinstance(numpy_result, tuple):
        assert isinstance(gpu_result, tuple), \
            f"{err_msg}expected a tuple, got {type(gpu_result).__name__}"
        assert len(gpu_result) == len(numpy_result), err_msg
        for g, n in zip(gpu_result, numpy_result):
            assert_parity(g, n, rtol, atol, kind=kind, check_dtype=check_dtype,
                          check_type=check_type, err_msg=err_msg)
        return
    msg = f"{err_msg}: " if err_msg else ""
    if check_type and isinstance(numpy_result, (np.ndarray, np.generic)):
        assert isinstance(gpu_result, gp.ndarray), \
            f"{msg}expected a gpuscipy_core.ndarray, got {type(gpu_result).__name__}"
    actual = to_host(gpu_result)
    expected = np.asarray(numpy_result)
    if check_dtype:
        assert actual.dtype == expected.dtype, \
            f"{msg}dtype {actual.dtype} != NumPy's {expected.dtype}"
    assert actual.shape == expected.shape, \
        f"{msg}shape {actual.shape} != NumPy's {expected.shape}"
    dt = expected.dtype
    if dt.kind in "biu?" or (kind == "exact" and rtol is None and atol is None):
        if dt.kind in "fc":
            # bit-exact up to NaN payloads
            _check_nan(actual, expected, msg)
            np.testing.assert_array_equal(actual, expected, err_msg=msg)
        else:
            np.testing.assert_array_equal(actual, expected.astype(actual.dtype)
                                          if not check_dtype else expected,
                                          err_msg=msg)
        return
    r, a = tolerance(dt, kind)
    rtol = r if rtol is None else rtol
    atol = max(a, _ulp_floor(dt)) if atol is None else atol
    if actual.dtype != dt:
        actual = actual.astype(np.result_type(actual.dtype, dt))
    _check_nan(actual, expected, msg)
    with np.errstate(all="ignore"):
        if dt.kind == "c":
            # infinities per component; the rest on |difference|
            for part in ("real", "imag"):
                ap, ep = getattr(actual, part), getattr(expected, part)
                inf = np.isinf(ep)
                np.testing.assert_array_equal(np.isinf(ap), inf,
                                              err_msg=f"{msg}inf positions of "
                                                      f"the {part} parts differ")
                np.testing.assert_array_equal(ap[inf], ep[inf], err_msg=msg)
            finite = np.isfinite(expected.real) & np.isfinite(expected.imag)
            finite &= np.isfinite(actual.real) & np.isfinite(actual.imag)
            e = expected[finite].astype(np.complex128)
            g = actual[finite].astype(np.complex128)
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=msg)
        else:
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol,
                                       equal_nan=True, err_msg=msg)


def _public_type(exc_type):
    """The first built-in exception class in ``exc_type``'s MRO (NumPy's
    ``AxisError`` -> ``ValueError``, ``UFuncTypeError`` -> ``TypeError``)."""
    for t in exc_type.__mro__:
        if t.__module__ == "builtins":
            return t
    return exc_type


def assert_raises_like(np_call, gp_call, match=None):
    """Assert that ``gp_call()`` raises what ``np_call()`` raises.

    The gpuscipy exception must be an instance of the first built-in class
    of NumPy's exception (NumPy's private subclasses such as
    ``UFuncTypeError`` count as their built-in base). ``match`` is a regex
    searched in gpuscipy's message. Returns ``(numpy_exc, gpuscipy_exc)``.
    """
    with pytest.raises(Exception) as np_info:
        np_call()
    expected = _public_type(type(np_info.value))
    with pytest.raises(Exception) as gp_info:
        gp_call()
    assert isinstance(gp_info.value, expected), (
        f"NumPy raised {type(np_info.value).__name__}({np_info.value}); "
        f"gpuscipy raised {type(gp_info.value).__name__}({gp_info.value})")
    if match is not None:
        gp_info.match(match)
    return np_info.value, gp_info.value


def assert_same_outcome(np_call, gp_call, **parity_kw):
    """Call NumPy; when it raises, assert gpuscipy raises alike
    (:func:`assert_raises_like`), else compare results with
    :func:`assert_parity` (NumPy's warnings are silenced). Returns NumPy's
    result, or None when it raised."""
    import warnings
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            expected = np_call()
    except Exception:
        assert_raises_like(np_call, gp_call)
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        result = gp_call()
    assert_parity(result, expected, **parity_kw)
    return expected


# ------------------------------------------------------------------ data

def _rng(rng):
    if rng is None or isinstance(rng, (int, np.integer)):
        return np.random.default_rng(rng)
    return rng


def _int_bounds(dt, low, high, full_range):
    info = np.iinfo(dt)
    if full_range:
        lo, hi = int(info.min), int(info.max) + 1
    else:
        lo = -100 if dt.kind == "i" else 0
        hi = 100 if dt.kind == "i" else 200
    if low is not None:
        lo = int(low)
    if high is not None:
        hi = int(high)
    return max(lo, int(info.min)), min(hi, int(info.max) + 1)


def random_array(shape, dtype, rng=None, *, low=None, high=None, nonzero=False,
                 full_range=False, order="C"):
    """A random NumPy array of ``dtype`` that is never all zeros.

    Parameters
    ----------
    low, high : number, optional
        Value range (integers: ``[low, high)``; floats: ``[low, high)``;
        complex: both parts in ``[low, high)``). Defaults: signed ints
        [-100, 100), unsigned [0, 200), floats/complex [-10, 10).
    nonzero : bool
        No element is zero (for divisors).
    full_range : bool
        Integers over the whole range of the dtype.
    """
    rng = _rng(rng)
    dt = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "b":
        flat = rng.random(n) < 0.5
        if n:
            flat[0] = True
        if n > 1:
            flat[1] = False
        if nonzero:
            flat[:] = True
    elif dt.kind in "iu":
        lo, hi = _int_bounds(dt, low, high, full_range)
        flat = rng.integers(lo, hi, size=n, dtype=dt, endpoint=False)
        if nonzero and n:
            zero = flat == 0
            flat[zero] = 1 if hi > 1 else -1
        if n and not flat.any():
            flat[0] = 1 if hi > 1 else -1
    else:
        rdt = np.dtype(dt.char.lower()) if dt.kind == "c" else dt
        lo = -10.0 if low is None else float(low)
        hi = 10.0 if high is None else float(high)
        def part():
            return rng.uniform(lo, hi, size=n).astype(rdt)
        flat = part() if dt.kind == "f" else (part() + 1j * part()).astype(dt)
        if nonzero and n:
            flat[flat == 0] = 1
        if n and not flat.any():
            flat[0] = 1
    out = flat.astype(dt).reshape(shape)
    return np.asarray(out, order=order) if order == "F" else out


SPECIALS = (np.nan, np.inf, -np.inf, 0.0, -0.0)


def with_specials(a, rng=None, fraction=0.15):
    """A copy of float/complex ``a`` with NaN, +-inf and signed zeros
    sprinkled in (each special appears at least once when ``a.size >= 10``;
    complex arrays get them in either or both parts)."""
    a = np.array(a, copy=True)
    if a.dtype.kind not in "fc" or a.size == 0:
        return a
    rng = _rng(rng)
    flat = a.reshape(-1)
    k = max(int(a.size * fraction), min(len(SPECIALS), a.size))
    idx = rng.choice(a.size, size=k, replace=False)
    for j, i in enumerate(idx):
        v = SPECIALS[j % len(SPECIALS)]
        if a.dtype.kind == "c":
            where = j // len(SPECIALS) % 3
            re, im = flat[i].real, flat[i].imag
            if where == 0:
                flat[i] = complex(v, im)
            elif where == 1:
                flat[i] = complex(re, v)
            else:
                flat[i] = complex(v, v)
        else:
            flat[i] = v
    return a


def random_pair(shape, dtype, rng=None, **kwargs):
    """``(numpy_array, device_array)`` holding the same random values."""
    import gpuscipy_core as gp
    h = random_array(shape, dtype, rng, **kwargs)
    return h, gp.asarray(h)
