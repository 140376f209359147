"""Reductions against NumPy (GPU).

Tolerances (``RTOL``), per result dtype, for floating sums, means and
moments: gpuscipy accumulates float16/float32 in float64 and float64 in a
compensated pair, so its result is compared with a float64 (complex128)
reference computed by NumPy from the same values: float16 1e-3, float32 and
complex64 1e-5, float64 and complex128 1e-12 relative, with an absolute floor
of ``rtol * sum(|x|)`` (the scale of the rounding errors of any summation,
so cancelling sums are not judged by a relative test). Everything else
(integer results, min/max/argmin/argmax, any/all, count_nonzero, ptp,
products of integers) must match NumPy exactly.
"""

import math
import warnings

import numpy as np
import pytest

import gpuscipy_core as gp

from ._parity import (ALL_DTYPES, assert_parity, assert_raises_like, dtype_id,
                      random_array, with_specials)

pytestmark = pytest.mark.gpu

RTOL = {"e": 1e-3, "f": 1e-5, "d": 1e-12, "F": 1e-5, "D": 1e-12}

# function -> how its result is compared ("exact", "sum", "prod", "moment")
FUNCS = {
    "sum": "sum", "prod": "prod", "nansum": "sum", "nanprod": "prod",
    "min": "exact", "max": "exact", "amin": "exact", "amax": "exact",
    "nanmin": "exact", "nanmax": "exact", "argmin": "exact", "argmax": "exact",
    "any": "exact", "all": "exact", "count_nonzero": "exact", "ptp": "exact",
    "mean": "sum", "nanmean": "sum", "var": "moment", "std": "moment",
    "nanvar": "moment", "nanstd": "moment",
}

AXES = [None, 0, -1, (0, 1), (1, 0)]


def _data(shape, dt, kind, seed=0):
    if kind == "prod":
        if dt.kind == "b":
            return random_array(shape, dt, seed)
        if dt.kind in "iu":
            return random_array(shape, dt, seed, low=-2 if dt.kind == "i" else 0, high=3)
        h = random_array(shape, dt, seed, low=0.6, high=1.4)
        if dt.kind == "c":  # |z| near 1 so that long products stay in range
            h = (h.real + 1j * (h.imag - 1.0) * 0.5).astype(dt)
        return h
    return random_array(shape, dt, seed)


def _numpy(fname, h, kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return getattr(np, fname)(h, **kwargs)


def _finite_max(x):
    x = np.abs(np.asarray(x))
    x = x[np.isfinite(x)]
    return float(x.max()) if x.size else 0.0


def _compare(fname, got, h, kwargs, err_msg=""):
    """Check ``got`` (gpuscipy's ``fname(h, **kwargs)``) against NumPy: the
    dtype, shape and NaN positions always; the values exactly, or (floating
    sums, means, moments, products) against a float64/complex128 reference
    within ``RTOL``."""
    kind = FUNCS[fname]
    want = _numpy(fname, h, kwargs)
    rdt = np.asarray(want).dtype
    if kind == "exact" or rdt.kind in "biu" or (kind == "prod" and h.dtype.kind in "biu"
                                                 and kwargs.get("dtype") is None):
        assert_parity(got, want, kind="exact", err_msg=err_msg)
        return
    src_kind = h.dtype.kind if kind == "moment" else rdt.kind
    high = np.complex128 if src_kind == "c" else np.float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hp = h.astype(high)
    kw = {k: v for k, v in kwargs.items() if k != "dtype"}
    ref = np.asarray(_numpy(fname, hp, kw))
    rtol = RTOL[rdt.char]
    if kind == "sum":
        atol = rtol * _finite_max(_numpy(fname, np.abs(hp), kw))
    elif kind == "moment":
        atol = rtol * _finite_max(ref)
    else:  # products: results below the normal range may flush differently
        atol = float(np.finfo(rdt).tiny) if rdt.kind in "fc" else 0.0
    # dtype, shape, NaN and inf positions
    assert_parity(got, want, rtol=1.0, atol=np.inf, err_msg=err_msg)
    got_h = gp.asnumpy(got).astype(ref.dtype)
    parts = ("real", "imag") if ref.dtype.kind == "c" else ("real",)
    for part in parts:  # complex: per component (infinities compare per part)
        np.testing.assert_allclose(getattr(got_h, part), getattr(ref, part), rtol=rtol,
                                   atol=atol, equal_nan=True, err_msg=err_msg)


def _call(fname, x, kwargs):
    return getattr(gp, fname)(x, **kwargs)


def _parity_case(fname, h, d, kwargs):
    try:
        _numpy(fname, h, kwargs)
    except Exception:
        assert_raises_like(lambda: _numpy_raise(fname, h, kwargs),
                           lambda: _call(fname, d, kwargs))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = _call(fname, d, kwargs)
    _compare(fname, got, h, kwargs, err_msg=f"{fname}({h.dtype}, {kwargs})")


def _numpy_raise(fname, h, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(np, fname)(h, **kwargs)


# ------------------------------------------------------------ broad parity

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("fname", list(FUNCS))
def test_parity_axes(fname, dt):
    h = _data((13, 70), dt, FUNCS[fname])
    d = gp.asarray(h)
    for axis in AXES:
        _parity_case(fname, h, d, {"axis": axis})
    _parity_case(fname, h, d, {"axis": 0, "keepdims": True})
    _parity_case(fname, h, d, {"axis": None, "keepdims": True})


# layouts: non-contiguous, negative strides, transposes, 3-D, 0-d, size-1 axes
LAYOUT_FUNCS = ["sum", "max", "argmin", "argmax", "mean", "var", "any", "nanmax"]
LAYOUT_DTYPES = [np.dtype(c) for c in "?bqefdD"]
VIEWS = {
    "neg": lambda a: a[::-2],
    "T": lambda a: a.T,
    "negT": lambda a: a[::-1, ::-3].T,
    "3d": lambda a: a.reshape(7, 6, 10),
    "3dperm": lambda a: a.reshape(7, 6, 10).transpose(2, 0, 1),
    "3dneg": lambda a: a.reshape(7, 6, 10)[::-1, :, ::-2],
    "size1": lambda a: a.reshape(1, 42, 1, 10),
    "col": lambda a: a[:, 3:4],
}


@pytest.mark.parametrize("dt", LAYOUT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("fname", LAYOUT_FUNCS)
def test_parity_layouts(fname, view, dt):
    h0 = _data((42, 10), dt, FUNCS[fname], seed=1)
    h = VIEWS[view](h0)
    d = VIEWS[view](gp.asarray(h0))
    assert d.shape == h.shape and d.strides == h.strides
    axes = [None] + list(range(-h.ndim, h.ndim))
    if h.ndim >= 3 and not fname.startswith("arg"):
        axes += [(0, 2), (1, 2), (-1, 0)]
    for axis in axes:
        _parity_case(fname, h, d, {"axis": axis})
    if not fname.startswith("arg"):
        _parity_case(fname, h, d, {"axis": tuple(range(h.ndim))[1:], "keepdims": True})


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("fname", list(FUNCS))
def test_zero_dim(fname, dt):
    h = np.asarray(_data((1,), dt, FUNCS[fname])[0])
    d = gp.asarray(h)
    assert d.shape == ()
    _parity_case(fname, h, d, {})
    _parity_case(fname, h, d, {"axis": None, "keepdims": True})
    _parity_case(fname, h, d, {"axis": 0})


# ------------------------------------------------------------ empty

EMPTY_OK = ["sum", "prod", "nansum", "nanprod", "any", "all", "count_nonzero"]
EMPTY_RAISE = {"min": "minimum", "max": "maximum", "amin": "minimum",
               "amax": "maximum", "nanmin": "fmin", "nanmax": "fmax",
               "ptp": "maximum"}


@pytest.mark.parametrize("dt", [np.dtype(c) for c in "?iQefdD"], ids=dtype_id)
@pytest.mark.parametrize("shape,axis", [((0,), None), ((0, 3), 0), ((0, 3), 1),
                                        ((3, 0), 1), ((3, 0), None), ((2, 0, 4), (0, 1))])
def test_empty(shape, axis, dt):
    h = np.zeros(shape, dt)
    d = gp.asarray(h)
    for fname in EMPTY_OK:
        _parity_case(fname, h, d, {"axis": axis})
    n = int(np.prod([shape[a] for a in np.atleast_1d(
        np.arange(len(shape)) if axis is None else axis)]))
    for fname, ufunc in EMPTY_RAISE.items():
        if n == 0:
            assert_raises_like(lambda: _numpy_raise(fname, h, {"axis": axis}),
                               lambda: _call(fname, d, {"axis": axis}),
                               match=f"zero-size array to reduction operation {ufunc} "
                                     "which has no identity")
        else:
            _parity_case(fname, h, d, {"axis": axis})
    for fname in ("argmin", "argmax"):
        if isinstance(axis, tuple):
            continue
        if n == 0:
            assert_raises_like(lambda: _numpy_raise(fname, h, {"axis": axis}),
                               lambda: _call(fname, d, {"axis": axis}),
                               match=f"attempt to get {fname} of an empty sequence")
        else:
            _parity_case(fname, h, d, {"axis": axis})
    for fname in ("mean", "var", "std", "nanmean", "nanvar", "nanstd"):
        if n == 0:
            with pytest.warns(RuntimeWarning):
                got = _call(fname, d, {"axis": axis})
            _compare(fname, got, h, {"axis": axis})
        else:
            _parity_case(fname, h, d, {"axis": axis})


# ------------------------------------------------------------ NaN and inf

@pytest.mark.parametrize("dt", [np.dtype(c) for c in "efdFD"], ids=dtype_id)
@pytest.mark.parametrize("fname", ["sum", "prod", "nansum", "nanprod", "mean", "nanmean",
                                   "var", "nanvar", "nanstd", "min", "max", "nanmin",
                                   "nanmax", "argmin", "argmax", "any", "all",
                                   "count_nonzero"])
def test_nan_inf(fname, dt):
    if dt.kind == "c" and fname in ("prod", "nanprod"):
        pytest.skip("complex products with inf give order-dependent NaN parts")
    h = with_specials(_data((9, 30), dt, FUNCS[fname], seed=3), rng=4, fraction=0.05)
    d = gp.asarray(h)
    for axis in (None, 0, 1):
        kwargs = {"axis": axis}
        if dt.kind == "c" and fname in ("min", "max"):
            # NumPy may return any NaN-containing value: compare NaN-ness
            want = _numpy(fname, h, kwargs)
            got = gp.asnumpy(_call(fname, d, kwargs))
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
            ok = ~np.isnan(want)
            np.testing.assert_array_equal(got[ok], np.asarray(want)[ok])
            continue
        _parity_case(fname, h, d, kwargs)


@pytest.mark.parametrize("dt", [np.dtype(c) for c in "efdFD"], ids=dtype_id)
def test_argmax_first_nan(dt):
    h = np.array([1, 5, np.nan, 7, np.nan, -1], dt)
    d = gp.asarray(h)
    for fname in ("argmin", "argmax"):
        assert int(_call(fname, d, {})) == 2
    h2 = np.tile(h, (3, 1))
    h2[1, 1] = np.nan
    _parity_case("argmax", h2, gp.asarray(h2), {"axis": 1})
    _parity_case("argmin", h2.T.copy(), gp.asarray(h2.T.copy()), {"axis": 0})


def test_all_nan_slice_warns():
    h = np.array([[np.nan, np.nan], [1.0, np.nan]])
    d = gp.asarray(h)
    for fname in ("nanmin", "nanmax"):
        with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
            got = _call(fname, d, {"axis": 1})
        assert_parity(got, _numpy(fname, h, {"axis": 1}), kind="exact")
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = gp.nanmean(d, axis=1)
    assert_parity(got, _numpy("nanmean", h, {"axis": 1}), kind="exact")
    for fname in ("nanvar", "nanstd"):
        with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
            got = _call(fname, d, {"axis": 1})
        assert_parity(got, _numpy(fname, h, {"axis": 1}), kind="exact")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gp.nanmin(gp.asarray(np.array([np.nan, 1.0])))
        gp.nanmean(gp.asarray(np.array([np.nan, 1.0])))


def test_mean_of_empty_warns():
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        r = gp.mean(gp.asarray(np.zeros((0,), np.float32)))
    assert np.isnan(gp.asnumpy(r)) and r.dtype == np.float32
    with pytest.warns(RuntimeWarning, match="Degrees of freedom <= 0"):
        gp.var(gp.asarray(np.ones(3)), ddof=3)


def test_complex_minmax_lexicographic():
    h = np.array([1 + 5j, 1 + 2j, 3 - 1j, 3 - 4j, 0 + 9j, 3 - 4j], np.complex64)
    d = gp.asarray(h)
    for fname in ("min", "max", "argmin", "argmax", "ptp"):
        _parity_case(fname, h, d, {})


# ------------------------------------------------------------ dtype= and out=

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("fname", ["sum", "prod", "mean", "nansum"])
def test_dtype_argument(fname, dt):
    h = _data((6, 20), dt, FUNCS[fname], seed=5)
    d = gp.asarray(h)
    for target in ("f8", "i8", "c16"):
        if fname == "mean" and target == "i8":
            target = "f4"
        _parity_case(fname, h, d, {"axis": 1, "dtype": np.dtype(target)})


@pytest.mark.parametrize("dt", [np.dtype(c) for c in "bfdD"], ids=dtype_id)
def test_var_std_ddof_dtype(dt):
    h = _data((12, 9), dt, "moment", seed=6)
    d = gp.asarray(h)
    for fname in ("var", "std", "nanvar", "nanstd"):
        for ddof in (0, 1, 2.5):
            _parity_case(fname, h, d, {"axis": 0, "ddof": ddof})
        if dt.kind != "c":
            _parity_case(fname, h, d, {"axis": 1, "dtype": np.float32})


@pytest.mark.parametrize("fname,out_dt", [
    ("sum", "f8"), ("sum", "i4"), ("sum", "f2"), ("prod", "c16"), ("max", "i8"),
    ("min", "f8"), ("argmax", "i4"), ("argmin", "i8"), ("mean", "f8"),
    ("mean", "c8"), ("any", "i8"), ("all", "?"), ("std", "f4"), ("nansum", "f8"),
])
def test_out_argument(fname, out_dt):
    h = _data((8, 16), np.dtype("f4"), FUNCS[fname], seed=7)
    d = gp.asarray(h)
    want = np.zeros(16, out_dt)
    _numpy(fname, h, {"axis": 0, "out": want})
    out = gp.asarray(np.zeros(16, out_dt))
    r = _call(fname, d, {"axis": 0, "out": out})
    assert r is out
    _compare_out(fname, out, want)
    # non-contiguous out
    base = gp.asarray(np.zeros(32, out_dt))
    r = _call(fname, d, {"axis": 0, "out": base[::2]})
    _compare_out(fname, base[::2], want)
    # keepdims shape for out
    outk = gp.asarray(np.zeros((1, 16), out_dt))
    _call(fname, d, {"axis": 0, "out": outk, "keepdims": True})
    _compare_out(fname, outk.reshape(16), want)
    # wrong shape
    bad = gp.asarray(np.zeros(8, out_dt))
    with pytest.raises(ValueError):
        _call(fname, d, {"axis": 0, "out": bad})


def _compare_out(fname, got, want):
    g = gp.asnumpy(got)
    assert g.dtype == want.dtype
    if want.dtype.kind in "biu":
        if FUNCS[fname] == "exact":
            np.testing.assert_array_equal(g, want)
        else:  # float -> int casts of sums may round differently by one
            np.testing.assert_allclose(g, want, atol=1)
    else:  # sums of 8 values in [-10, 10): absolute floor from that scale
        r = RTOL[want.dtype.char] * 10
        np.testing.assert_allclose(g, want, rtol=r, atol=r * 80)


def test_out_overlapping_input():
    h = _data((4, 5), np.dtype("f8"), "sum")
    d = gp.asarray(h)
    want = h.sum(axis=0)
    gp.sum(d, axis=0, out=d[0])
    np.testing.assert_allclose(gp.asnumpy(d[0]), want, rtol=1e-12)
    np.testing.assert_array_equal(gp.asnumpy(d[1:]), h[1:])


# ------------------------------------------------------------ argument errors

def test_axis_errors():
    h = np.ones((2, 3))
    d = gp.asarray(h)
    for kwargs in ({"axis": 2}, {"axis": -3}, {"axis": (0, 0)}, {"axis": 1.0}):
        assert_raises_like(lambda: np.sum(h, **kwargs), lambda: gp.sum(d, **kwargs))
    assert_raises_like(lambda: np.argmax(h, axis=(0, 1)),
                       lambda: gp.argmax(d, axis=(0, 1)))
    assert_raises_like(lambda: np.ptp(np.ones(3, bool)),
                       lambda: gp.ptp(gp.asarray(np.ones(3, bool))))


# ------------------------------------------------------------ methods

def test_ndarray_methods():
    h = _data((5, 8), np.dtype("f8"), "sum", seed=9)
    d = gp.asarray(h)
    cases = [("sum", {}), ("sum", {"axis": 0}), ("prod", {"axis": 1}), ("min", {}),
             ("max", {"axis": 1, "keepdims": True}), ("argmin", {}),
             ("argmax", {"axis": 1}), ("argmax", {"axis": 0, "keepdims": True}),
             ("mean", {"axis": 0}), ("var", {"ddof": 1}), ("std", {"axis": 1}),
             ("any", {"axis": 0}), ("all", {})]
    for name, kwargs in cases:
        want = getattr(h, name)(**kwargs)
        got = getattr(d, name)(**kwargs)
        assert_parity(got, want, rtol=1e-12, atol=1e-12, err_msg=f"{name}{kwargs}")


# ------------------------------------------------------------ accuracy, size

def test_float32_sum_accuracy_at_least_numpys():
    n = 1 << 24
    h = np.full(n, 0.1, np.float32)
    exact = n * float(np.float32(0.1))
    ours = float(gp.asnumpy(gp.sum(gp.asarray(h))))
    theirs = float(h.sum())
    assert abs(ours - exact) <= abs(theirs - exact)
    assert abs(ours - exact) <= 0.5 * np.spacing(np.float32(exact))


@pytest.mark.parametrize("n", [1000, 1 << 20])
def test_float64_sum_is_compensated(n):
    rng = np.random.default_rng(n)
    h = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)
    h[::7] = -h[1::7][:h[::7].size]  # cancellation
    exact = math.fsum(h)
    ours = float(gp.asnumpy(gp.sum(gp.asarray(h))))
    assert abs(ours - exact) <= 2 * np.spacing(abs(exact))
    assert abs(ours - exact) <= abs(float(h.sum()) - exact) + np.spacing(abs(exact))


@pytest.mark.parametrize("shape,axis", [((1 << 22,), None), ((3, 1 << 20), 1),
                                        ((1 << 20, 3), 0), ((1 << 16, 64), 0),
                                        ((1 << 21, 2), None)])
def test_long_reductions_split_over_blocks(shape, axis):
    rng = np.random.default_rng(11)
    h = rng.uniform(-1, 1, size=shape).astype(np.float32)
    flat = h.reshape(-1)
    flat[-5] = 7.0      # the maximum, late in the array (past the first chunks)
    flat[-3] = -7.0
    d = gp.asarray(h)
    _compare("sum", gp.sum(d, axis=axis), h, {"axis": axis})
    _compare("mean", gp.mean(d, axis=axis), h, {"axis": axis})
    _compare("var", gp.var(d, axis=axis), h, {"axis": axis})
    for fname in ("argmax", "argmin", "max", "min"):
        _compare(fname, _call(fname, d, {"axis": axis}), h, {"axis": axis})
    hi = (h * 1000).astype(np.int64)
    _compare("sum", gp.sum(gp.asarray(hi), axis=axis), hi, {"axis": axis})


def test_repeated_calls_reuse_plans():
    h = _data((64, 33), np.dtype("f4"), "sum")
    d = gp.asarray(h)
    for _ in range(3):
        _compare("sum", gp.sum(d, axis=1), h, {"axis": 1})
        _compare("sum", gp.sum(d[:, 1:], axis=1), h[:, 1:], {"axis": 1})


# ------------------------------------------------------------ ReductionKernel

def test_reduction_kernel_l2norm():
    k = gp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    h = _data((10, 40), np.dtype("f4"), "sum")
    d = gp.asarray(h)
    np.testing.assert_allclose(gp.asnumpy(k(d, axis=1)),
                               np.sqrt((h.astype(np.float64) ** 2).sum(1)), rtol=1e-5)
    r = k(d)
    assert r.shape == () and r.dtype == np.float32
    r = k(d, axis=0, keepdims=True)
    assert r.shape == (1, 40)
    out = gp.asarray(np.zeros(10, np.float32))
    assert k(d, axis=1, out=out) is out
    hd = h.astype(np.float64)
    np.testing.assert_allclose(gp.asnumpy(k(gp.asarray(hd))),
                               np.sqrt((hd ** 2).sum()), rtol=1e-12)
    # float16 and complex64 outputs: assignments convert (gs::red::out_ref)
    hh = (h / 10).astype(np.float16)
    r = k(gp.asarray(hh), axis=1)
    assert r.dtype == np.float16
    np.testing.assert_allclose(gp.asnumpy(r).astype(np.float64),
                               np.sqrt((hh.astype(np.float64) ** 2).sum(1)), rtol=3e-2)
    csum = gp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "csum")
    hc = _data((5, 30), np.dtype("c8"), "sum")
    np.testing.assert_allclose(gp.asnumpy(csum(gp.asarray(hc), axis=1)),
                               hc.astype(np.complex128).sum(1), rtol=1e-5, atol=1e-4)


def test_reduction_kernel_two_inputs_scalars_raw():
    dot = gp.ReductionKernel("T x, T y", "T z", "x * y", "a + b", "z = a", "0", "dot",
                             reduce_type="double")
    hx = _data((6, 50), np.dtype("f4"), "sum", seed=1)
    hy = _data((50,), np.dtype("f4"), "sum", seed=2)
    got = dot(gp.asarray(hx), gp.asarray(hy), axis=1)
    np.testing.assert_allclose(gp.asnumpy(got), hx.astype(np.float64) @ hy, rtol=1e-5,
                               atol=1e-4)
    scaled = gp.ReductionKernel("T x, T w, raw T t", "T z", "x * w + t[1]", "a + b",
                                "z = a / _n", "0", "scaled_mean")
    ht = np.array([0.0, 0.5], np.float32)
    got = scaled(gp.asarray(hx), 2.0, gp.asarray(ht), axis=0)
    np.testing.assert_allclose(gp.asnumpy(got), (hx * 2 + 0.5).mean(0), rtol=1e-5)


def test_reduction_kernel_no_identity_and_index():
    kmax = gp.ReductionKernel("T x", "T y", "x", "a > b ? a : b", "y = a", None, "mymax")
    h = _data((7, 300), np.dtype("i4"), "sum", seed=3)
    d = gp.asarray(h)
    np.testing.assert_array_equal(gp.asnumpy(kmax(d, axis=1)), h.max(1))
    np.testing.assert_array_equal(gp.asnumpy(kmax(d, axis=0)), h.max(0))
    with pytest.raises(ValueError):
        kmax(gp.asarray(np.zeros((0, 3), np.int32)), axis=0)
    karg = gp.ReductionKernel(
        "T x", "int64 i", "pair{(double)x, _J}",
        "(b.v < a.v || (b.v == a.v && b.j < a.j)) ? b : a", "i = a.j", None, "myargmin",
        reduce_type="pair", preamble="struct pair { double v; long long j; };")
    np.testing.assert_array_equal(gp.asnumpy(karg(d, axis=1)), h.argmin(1))
    np.testing.assert_array_equal(gp.asnumpy(karg(d.T, axis=0)), h.argmin(1))
    big = np.random.default_rng(5).permutation(1 << 20).astype(np.int32)
    assert int(karg(gp.asarray(big))) == int(big.argmin())


def test_reduction_kernel_two_outputs():
    k = gp.ReductionKernel("T x", "T lo, T hi", "mm{x, x}",
                           "mm{a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi}",
                           "lo = a.lo; hi = a.hi", None, "minmax", reduce_type="mm",
                           preamble="struct mm { float lo, hi; };")
    h = _data((9, 100), np.dtype("f4"), "sum", seed=4)
    lo, hi = k(gp.asarray(h), axis=1)
    np.testing.assert_array_equal(gp.asnumpy(lo), h.min(1))
    np.testing.assert_array_equal(gp.asnumpy(hi), h.max(1))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=dtype_id)
def test_all_finite(dt):
    # the fused isfinite-all used by linalg's check_finite: one special value
    # anywhere (either component of a complex), views, empty
    from gpuscipy_core._routines._reduction import all_finite
    dt = np.dtype(dt)
    rng = np.random.default_rng(5)
    h = random_array((37, 129), dt, rng)
    assert all_finite(gp.asarray(h)) is True
    assert all_finite(gp.empty((0, 3), dt)) is True
    if dt.kind not in "fc":
        return
    for val in (np.nan, np.inf, -np.inf):
        for pos in ((0, 0), (36, 128), (17, 64)):
            for imag in ((False, True) if dt.kind == "c" else (False,)):
                g = h.copy()
                g[pos] = complex(g[pos].real, val) if imag else val
                d = gp.asarray(g)
                assert all_finite(d) is False
                assert all_finite(d[::-2, 1::3]) is bool(np.isfinite(g[::-2, 1::3]).all())
                assert all_finite(d.T) is False
