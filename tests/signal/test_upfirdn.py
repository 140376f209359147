"""Tests of gpuscipy.signal._upfirdn (the polyphase upfirdn kernel).

CPU: the NumPy model of the kernel's blocked algorithm (tile geometry,
incremental phase stepping, tile loads through the extension-mode index
maps, SciPy's tap order and zero-padding skip) against
``scipy.signal.upfirdn`` for every mode, many (up, down, len(h), len(x))
including len(x) < len(h), length 0 and 1, several launch plans (tiny
blocks so that many tiles and the direct variant run), every input dtype,
NaN and inf. The model does SciPy's arithmetic in SciPy's order, so these
comparisons are exact (``array_equal``). Also: the pure helpers (layout,
launch plan, output length), SciPy's errors for bad input, and an NVRTC
compile of every kernel.

GPU (marked ``gpu``): the kernel against SciPy on random data and edge cases.
Tolerance: the GPU fuses each multiply-add (FMA) where SciPy rounds twice,
so each output may differ by a few ulp of its partial sums; the bound is
``TOL[dtype] * scale`` with ``scale = max|ref| + sum|h| * max|x_ext|``
(``max|x_ext|`` grows linearly with the distance for the extrapolating
modes 'smooth', 'line', 'antireflect'), TOL 1e-12 for float64/complex128
and 2e-5 for float32/complex64 (a few hundred ulp of float32 for the
filters of up to ~100 taps used here).
"""

import math
import os
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy_core.kernel import read_source
from gpuscipy.signal import _upfirdn as U
from tests.signal import _host_cuda as H  # absolute: this file also runs as a script

RATES = [(1, 1), (2, 1), (1, 2), (3, 2), (2, 3), (5, 1), (1, 7), (7, 3), (3, 8)]
HLENS = [1, 2, 5, 12, 30]
XLENS = [0, 1, 2, 3, 11, 40]
# (h dtype, x dtype): real, single, complex filter on real data, complex
DTYPE_PAIRS = [("d", "d"), ("f", "f"), ("F", "d"), ("D", "D")]
UNDEFINED_N1 = ("reflect", "antireflect", "smooth")   # SciPy crashes / reads past x


def _plans(out_len, hpp, up, down, itemsize):
    """The default plan and three small ones: many tiles of few outputs,
    two outputs per thread, and the direct variant."""
    return [None,
            U.launch_plan(1, 1, out_len, hpp, up, down, itemsize, threads=4),
            U.launch_plan(1, 1, out_len, hpp, up, down, itemsize, threads=8, max_items=2),
            U.launch_plan(1, 1, out_len, hpp, up, down, itemsize, threads=16,
                          smem_limit=0)]


def _data(rng, n, dtype, scale=10.0):
    x = rng.standard_normal(n) * scale
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(n) * scale
    return x.astype(dtype)


# ------------------------------------------------------------------ CPU

@pytest.mark.parametrize("mode", U.MODES)
def test_model_matches_scipy(mode):
    rng = np.random.default_rng(U.MODE_CODES[mode])
    code = U.MODE_CODES[mode]
    for (up, down) in RATES:
        for lh in HLENS:
            for n in XLENS:
                if (n == 0 and mode != "constant") or (n == 1 and mode in UNDEFINED_N1):
                    continue
                if U.output_len(lh, n, up, down) < 0:
                    continue   # SciPy's "negative dimensions" (test_errors_match_scipy)
                for k, (hd, xd) in enumerate(DTYPE_PAIRS):
                    h = _data(rng, lh, hd, 1.0)
                    x = _data(rng, n, xd)
                    cval = (1.5 if n % 2 else 0.0) if mode == "constant" else 0
                    ref = ss.upfirdn(h, x, up, down, mode=mode, cval=cval)
                    hpp = -(-lh // up)
                    plans = _plans(len(ref), hpp, up, down, ref.dtype.itemsize)
                    # all plans on a rotating subset keeps the test quick
                    for plan in (plans if (lh + n + k) % 3 == 0 else plans[:1]):
                        out = U.model_apply(x, h, up, down, code, cval, ref.dtype,
                                            plan=plan)
                        assert out.dtype == ref.dtype
                        np.testing.assert_array_equal(
                            out, ref, err_msg=f"{mode} {up}/{down} h{lh} x{n} {hd}{xd} {plan}")


@pytest.mark.parametrize("xdtype", ["?", "b", "B", "h", "H", "i", "I", "q", "Q", "e",
                                    "f", "d", "F", "D"])
def test_model_input_dtypes(xdtype):
    # every input dtype is cast to the compute dtype on load, as SciPy's
    # np.asarray(x, output_type)
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(23) * 20)
    if np.dtype(xdtype).kind == "c":
        x = x + 1j * rng.standard_normal(23)
    x = x.astype(xdtype) if xdtype != "?" else x > 0
    for h in (rng.standard_normal(9).astype("f"), rng.standard_normal(9),
              [1, 2, 3], (rng.standard_normal(4) + 1j).astype("F")):
        h = np.asarray(h)
        for mode in ("constant", "symmetric", "line"):
            ref = ss.upfirdn(h, x, 3, 2, mode=mode)
            dt = U.result_dtype(h.dtype, x.dtype)
            assert dt == ref.dtype
            out = U.model_apply(x, h, 3, 2, U.MODE_CODES[mode], 0, dt)
            np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("mode", U.MODES)
def test_model_nan_inf(mode):
    # NaN/inf samples next to the zero-padded taps give NaN as in SciPy,
    # and the left zero padding is skipped in 'constant' mode with cval 0
    rng = np.random.default_rng(11)
    for x in ([np.inf, 1, 1, 2], [1, 1, np.inf], [1, np.nan, 2, 3, 4],
              [-np.inf, 2, 3, np.inf]):
        x = np.asarray(x, float)
        for up, down in ((3, 1), (2, 3), (1, 1)):
            for h in ([1, 2, 3, 4], rng.standard_normal(7), [1, np.nan], [2, 0, np.inf]):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    ref = ss.upfirdn(h, x, up, down, mode=mode)
                    out = U.model_apply(x, h, up, down, U.MODE_CODES[mode], 0,
                                        np.float64)
                np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("mode", U.MODES)
def test_model_extension_far(mode):
    # many reflections/periods: indices far beyond both ends
    code = U.MODE_CODES[mode]
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 4, 7):
        if n == 1 and mode in UNDEFINED_N1 + ("line",):
            continue   # line: NaN slope, and every output takes a 0 * NaN tap
        x = rng.standard_normal(n)
        L = 6 * n + 5
        h = np.zeros(L)
        h[-1] = 1.0                       # y[k] = xe[k - (L-1)]
        ref = ss.upfirdn(h, x, mode=mode)
        xt = x.astype(np.float64)
        model = np.array([xt[k - (L - 1)] if 0 <= k - (L - 1) < n else
                          U.model_extend(xt, k - (L - 1), code, 0)
                          for k in range(len(ref))])
        # the taps multiply by 0 and 1 only, so the values are exact
        np.testing.assert_array_equal(model, ref)


def test_plan_empty_signal_axis_any_strides():
    # an empty signal axis among other axes: a plan for every view's strides
    # (a reversed or transposed empty view need not collapse; nothing is read)
    for shape, strides, axis in (((3, 3, 0), (-12, 4, 4), 2), ((2, 5, 0), (16, 32, 160), 2),
                                 ((0, 5, 2), (160, -32, 16), 0), ((4, 0), (0, 0), 1)):
        spec = U.plan_launch(shape, strides, 4, axis, 6, 3, 2, np.float64)
        assert spec.plan is not None and spec.layout is not None, (shape, strides)
        assert spec.shape[axis] == U.output_len(6, 0, 3, 2)
        assert spec.layout[0] * spec.layout[2] == math.prod(shape[:axis] + shape[axis + 1:])


def test_model_defined_where_scipy_is_not():
    # one sample: reflect/antireflect/smooth extend by that sample;
    # empty x: zeros in the non-constant modes, cval in 'constant'
    x = np.array([2.5])
    for mode in UNDEFINED_N1:
        out = U.model_apply(x, [1.0, 1.0, 1.0], 1, 1, U.MODE_CODES[mode], 0, np.float64)
        np.testing.assert_array_equal(out, [7.5, 7.5, 7.5])
    out = U.model_apply(x, [1.0, 1.0], 1, 1, U.MODE_CODES["line"], 0, np.float64)
    assert np.isnan(out).all()   # SciPy's 0/0 slope
    e = np.zeros(0)
    for mode in U.MODES:
        out = U.model_apply(e, [1.0, 2.0, 3.0], 1, 1, U.MODE_CODES[mode], 2.0,
                            np.float64)
        want = [12.0, 12.0] if mode == "constant" else [0.0, 0.0]
        np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(ss.upfirdn([1, 2, 3], e, cval=2.0), [12.0, 12.0])


def test_model_crop_prepad_background():
    # out_start/out_len, implicit leading zero taps and the background
    # subtract/add: the full result sliced, with (x - bg) filtered, + bg
    rng = np.random.default_rng(5)
    x = rng.standard_normal(37)
    h = rng.standard_normal(15)
    for up, down in ((3, 2), (1, 5), (4, 1)):
        hp = np.concatenate([np.zeros(4), h, np.zeros(3)])
        full = ss.upfirdn(hp, x - 0.75, up, down) + 0.75
        for start, length in ((0, len(full)), (3, min(10, len(full) - 3)),
                              (7, len(full) - 7)):
            for plan in (None, U.launch_plan(1, 1, length, -(-len(hp) // up), up, down, 8,
                                             threads=4)):
                out = U.model_apply(x, h, up, down, 0, 0, np.float64, h_pre=4,
                                    len_total=len(hp), out_start=start, out_len=length,
                                    bg_sub=0.75, bg_add=0.75, plan=plan)
                np.testing.assert_array_equal(out, full[start:start + length])


def test_output_len():
    for lh in (1, 2, 7):
        for n in (0, 1, 5):
            for up in (1, 3):
                for down in (1, 4):
                    want = -(-((n - 1) * up + lh) // down)
                    assert U.output_len(lh, n, up, down) == want


def _strided(shape, order, steps, flips, rng):
    base_shape = tuple(s * st for s, st in zip(shape, steps))
    a = rng.standard_normal(base_shape)
    if order == "F":
        a = np.asfortranarray(a)
    a = a[tuple(slice(None, None, st) for st in steps)]
    for ax in flips:
        a = np.flip(a, ax)
    return a


@pytest.mark.parametrize("order", ["C", "F"])
def test_layout(order):
    rng = np.random.default_rng(0)
    cases = [((5,), (1,), ()), ((4, 6), (1, 1), ()), ((4, 6), (2, 1), (0,)),
             ((3, 4, 5), (1, 1, 1), ()), ((3, 4, 5), (1, 2, 1), (2,)),
             ((3, 1, 5, 2), (1, 1, 1, 3), (1, 3)), ((2, 3, 4, 5), (1, 1, 2, 1), ())]
    for shape, steps, flips in cases:
        a = _strided(shape, order, steps, flips, rng)
        for axis in range(a.ndim):
            lay = U.layout(a.shape, a.strides, a.itemsize, axis)
            before = int(np.prod(a.shape[:axis]))
            after = int(np.prod(a.shape[axis + 1:]))
            want = np.ascontiguousarray(a).reshape(before, a.shape[axis], after)
            if lay is None:
                # only when NumPy cannot view it as (before, axis, after) either
                with pytest.raises(ValueError):
                    np.reshape(a, want.shape, copy=False)
                c = np.ascontiguousarray(a)
                assert U.layout(c.shape, c.strides, c.itemsize, axis) is not None
                continue
            P, N, Q, sP, sN, sQ = lay
            assert (P, N, Q) == want.shape
            got = np.lib.stride_tricks.as_strided(a, shape=(P, N, Q), strides=(sP, sN, sQ))
            np.testing.assert_array_equal(got, want)


def test_launch_plan():
    for Q in (1, 2, 3, 17, 32, 33, 1000):
        for up, down in ((3, 2), (1, 10), (10, 1), (1, 300)):
            for hpp in (1, 21, 201, 4000):
                for itemsize in (4, 8, 16):
                    for out_len in (1, 100, 10 ** 6):
                        p = U.launch_plan(3, Q, out_len, hpp, up, down, itemsize)
                        th = p.qt * p.ty
                        assert th == U.THREADS or (not p.direct and U.MIN_THREADS <= th
                                                   and U.THREADS % th == 0)
                        assert p.qt >= min(Q, 32, th)
                        assert p.grid[0] * p.ty * p.items >= out_len
                        assert (p.grid[0] - 1) * p.ty * p.items < out_len
                        assert 1 <= p.grid[1] <= U.MAX_GRID_Y
                        assert 1 <= p.items <= U.MAX_ITEMS
                        if not p.direct:
                            assert p.smem <= U.SMEM_LIMIT
                            assert p.smem == (up * hpp + p.span * p.qt) * itemsize
                            tile = p.ty * p.items
                            assert p.span >= -(-((tile - 1) * down) // up) + hpp
                            # shared offsets fit the kernel's int arithmetic
                            assert (tile - 1) * down + up < 2 ** 31
                        else:
                            assert p.smem == 0
    # lanes along the resampled axis when it is the unit-stride one
    assert U.launch_plan(1, 64, 1000, 21, 3, 2, 8, lanes_q=False).qt == 1
    # 16M float64 samples by 3/2: tiles of 2048 outputs, taps in shared memory
    p = U.launch_plan(1, 1, 24 * 2 ** 20, 21, 3, 2, 8)
    assert not p.direct and p.qt == 1 and p.items == U.MAX_ITEMS
    # a filter too long for shared memory: the direct variant
    assert U.launch_plan(1, 1, 1000, 20000, 1, 1, 8).direct
    # decimation by 60 with 121 taps: a 64-thread block's tile fits
    p = U.launch_plan(1, 1, 1000, 121, 1, 60, 8)
    assert not p.direct and p.qt * p.ty == 64 and p.items == 1


def _scipy_error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - compare whatever SciPy raises
        return type(e), str(e)
    return None


BAD_UPFIRDN = [
    dict(h=[], x=[1.0, 2.0]),
    dict(h=[[1.0, 2.0]], x=[1.0, 2.0]),
    dict(h=1.0, x=[1.0, 2.0]),
    dict(h=[1.0], x=[1.0, 2.0], up=0),
    dict(h=[1.0], x=[1.0, 2.0], down=0),
    dict(h=[1.0], x=[1.0, 2.0], up=None),
    dict(h=[1.0], x=[1.0, 2.0], up=2 + 0j),
    dict(h=[1.0, 2.0], x=[1.0, 2.0], mode="foo"),
    dict(h=[1.0, 2.0], x=[1.0, 2.0], mode=3),
    dict(h=[1.0, 2.0], x=[1.0, 2.0], axis=1),
    dict(h=[1.0, 2.0], x=[1.0, 2.0], axis=1.0),
    dict(h=[1.0, 2.0], x=np.float64(3.0)),
    dict(h=[1.0, 2.0], x=[1.0, 2.0], cval=1j),
    dict(h=[1.0, 2.0], x=[1.0, 2.0], cval="a"),
    dict(h=[1.0, 2.0], x=[1.0, 2.0], cval=None),
    dict(h=[1.0, 2.0], x=[1.0, 2.0], cval=np.array([2.0])),
    dict(h=[1.0, 2.0], x=[1j, 2.0], cval="a"),
    dict(h=[1.0, 2.0], x=np.ones(3, np.longdouble)),
    dict(h=[1.0, 2.0, 3.0], x=np.zeros(0), up=4),
]


@pytest.mark.parametrize("kw", BAD_UPFIRDN, ids=range(len(BAD_UPFIRDN)))
def test_errors_match_scipy(kw):
    # host inputs are validated before anything reaches the device
    want = _scipy_error(lambda: ss.upfirdn(**kw))
    assert want is not None
    with pytest.raises(want[0]) as info:
        U.upfirdn(**kw)
    assert str(info.value) == want[1]


def test_cval_scalar():
    assert U.cval_scalar(2, np.float32) == np.float32(2)
    assert U.cval_scalar(np.float32(1.5), np.complex128) == 1.5
    assert U.cval_scalar(1 + 2j, np.complex64) == np.complex64(1 + 2j)
    assert U.cval_scalar(True, np.float64) == 1.0
    assert type(U.cval_scalar(3, np.float32)) is np.float32


def test_kernel_source_is_pure_and_named():
    for d in "fdFD":
        src = U.kernel_source(d)
        assert src is U.kernel_source(np.dtype(d))
        for direct in (False, True):
            assert f"{U.kernel_name(d, direct)}(" in src
    assert U.kernel_name("d", False) == "gs_upfirdn_f64"
    assert U.kernel_name("F", True) == "gs_upfirdn_direct_c64"
    with pytest.raises(TypeError):
        U.kernel_source("i")


def test_kernel_args_match_signature():
    # the launcher packs Python ints as long long, NumPy scalars as their own
    # type: every argument must have the width of its parameter
    x = np.zeros((3, 40, 5))
    for d in "fdFD":
        src = U.kernel_source(d)
        params, _ = _kernel_params(src, U.kernel_name(d, False))
        kinds = [p.strip().rsplit(" ", 1)[0].strip() for p in params.split(",")]
        spec = U.plan_launch(x.shape, x.strides, x.itemsize, 1, 9, 3, 2, d, h_pre=2)
        args = U.kernel_args(spec, 1234, x.dtype, 5678, 9, 2, 3, 2, 9012, 0,
                             U.cval_scalar(0, d), 0, 0)
        assert len(args) == len(kinds)
        for kind, a in zip(kinds, args):
            if "*" in kind:
                assert type(a) is int
            elif kind == "long long":
                assert type(a) is int
            elif kind == "int":
                assert type(a) is np.int32
            else:
                assert isinstance(a, np.generic) and a.dtype == np.dtype(d), kind


def test_nvrtc_every_kernel():
    # four sources (one per compute dtype), each with the tiled and the
    # direct entry point; every input dtype is a runtime branch inside them
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as ex:
        cubins = list(ex.map(lambda d: compile_cubin(U.kernel_source(d), f"upfirdn_{d}"),
                             "fdFD"))
    assert all(cubins)


# ------------------------------------------------------------------ GPU

gpu = pytest.mark.gpu
TOL = {"f": 2e-5, "F": 2e-5, "d": 1e-12, "D": 1e-12}
EXTRAPOLATING = ("smooth", "line", "antireflect")


def _check(out, ref, h, x, mode="constant", cval=0):
    assert out.dtype == ref.dtype and out.shape == ref.shape
    got = out.get()
    if ref.size == 0:
        return
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    fin = np.isfinite(ref)
    np.testing.assert_array_equal(got[~fin & ~np.isnan(ref)], ref[~fin & ~np.isnan(ref)])
    xh = np.asarray(x)
    n = xh.shape[-1] if xh.ndim else 1
    xm = float(np.max(np.abs(xh[np.isfinite(xh)]))) if np.isfinite(xh).any() else 0.0
    grow = 2 + 4 * len(h) / max(n - 1, 1) if mode in EXTRAPOLATING else 1
    scale = (float(np.max(np.abs(ref[fin]))) if fin.any() else 0.0) \
        + float(np.sum(np.abs(h))) * max(xm * grow, abs(cval)) + 1e-300
    err = float(np.max(np.abs(got[fin] - ref[fin]))) if fin.any() else 0.0
    assert err <= TOL[ref.dtype.char] * scale, (err, scale)


@gpu
@pytest.mark.parametrize("mode", U.MODES)
@pytest.mark.parametrize("hd,xd", DTYPE_PAIRS)
def test_gpu_matches_scipy(mode, hd, xd):
    import gpuscipy_core as gp
    rng = np.random.default_rng(U.MODE_CODES[mode])
    for (up, down) in RATES:
        for lh in (1, 5, 30):
            for n in (0, 1, 2, 11, 300):
                if (n == 0 and mode != "constant") or (n == 1 and mode in UNDEFINED_N1):
                    continue
                if U.output_len(lh, n, up, down) < 0:
                    continue
                h = _data(rng, lh, hd, 1.0)
                x = _data(rng, n, xd)
                cval = 1.5 if mode == "constant" and n % 2 else 0
                ref = ss.upfirdn(h, x, up, down, mode=mode, cval=cval)
                out = U.upfirdn(h, gp.asarray(x), up, down, mode=mode, cval=cval)
                _check(out, ref, h, x, mode, cval)


@gpu
@pytest.mark.parametrize("xdtype", ["?", "b", "B", "h", "H", "i", "I", "q", "Q", "e",
                                    "f", "d", "F", "D"])
def test_gpu_input_dtypes(xdtype):
    import gpuscipy_core as gp
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 200)) * 20
    if np.dtype(xdtype).kind == "c":
        x = x + 1j * rng.standard_normal((3, 200))
    x = x.astype(xdtype) if xdtype != "?" else x > 0
    for h in (rng.standard_normal(9).astype("f"), rng.standard_normal(9), [1, 2, 3],
              (rng.standard_normal(4) + 1j).astype("F")):
        for mode in ("constant", "reflect", "line"):
            ref = ss.upfirdn(h, x, 3, 2, mode=mode)
            out = U.upfirdn(h, gp.asarray(x), 3, 2, mode=mode)
            _check(out, ref, np.asarray(h), x.astype(ref.dtype), mode)


@gpu
def test_gpu_axes_batches_strides():
    import gpuscipy_core as gp
    rng = np.random.default_rng(2)
    h = rng.standard_normal(13)
    base = rng.standard_normal((6, 70, 40))
    views = {
        "c": lambda a: a,
        "f": np.asfortranarray,
        "step": lambda a: a[::2, ::3, ::2],
        "neg": lambda a: a[::-1, :, ::-2],
        "swap": lambda a: a.transpose(2, 0, 1),
        "mixed": lambda a: a.transpose(1, 2, 0)[5:, ::-1],
    }
    for name, view in views.items():
        xh = view(base)
        xd = view(gp.asarray(base)) if name != "f" else gp.asarray(np.asfortranarray(base))
        for axis in range(-3, 3):
            for (up, down) in ((3, 2), (1, 4), (5, 1)):
                for mode in ("constant", "symmetric", "wrap"):
                    ref = ss.upfirdn(h, xh, up, down, axis=axis, mode=mode)
                    out = U.upfirdn(h, xd, up, down, axis=axis, mode=mode)
                    _check(out, ref, h, xh, mode)


@gpu
def test_gpu_many_channels_axis0():
    # (N, channels) along axis 0: lanes along the channels (coalesced)
    import gpuscipy_core as gp
    rng = np.random.default_rng(3)
    for C in (1, 2, 3, 31, 32, 33, 1030):
        x = rng.standard_normal((500, C)).astype("f")
        h = rng.standard_normal(31).astype("f")
        ref = ss.upfirdn(h, x, 2, 3, axis=0, mode="reflect")
        out = U.upfirdn(h, gp.asarray(x), 2, 3, axis=0, mode="reflect")
        _check(out, ref, h, x, "reflect")


@gpu
def test_gpu_direct_variant_and_device_h():
    import gpuscipy_core as gp
    rng = np.random.default_rng(4)
    x = rng.standard_normal(3000)
    h = rng.standard_normal(9000)          # taps > 48 KiB: direct variant
    assert U.launch_plan(1, 1, 10, 9000, 1, 1, 8).direct
    for mode in ("constant", "symmetric", "antireflect"):
        ref = ss.upfirdn(h, x, 1, 1, mode=mode)
        out = U.upfirdn(gp.asarray(h), gp.asarray(x), 1, 1, mode=mode)
        _check(out, ref, h, x, mode)
    h2 = rng.standard_normal(7)
    ref = ss.upfirdn(h2, x, 1, 40000)      # extreme down: direct variant
    _check(U.upfirdn(h2, gp.asarray(x), 1, 40000), ref, h2, x)


@gpu
def test_gpu_nan_inf_and_edges():
    import gpuscipy_core as gp
    for x in ([np.inf, 1, 1, 2], [1, np.nan, 2, 3, 4], [-np.inf, 2, 3, np.inf]):
        x = np.asarray(x, float)
        for h in ([1, 2, 3, 4], [2, 0, np.inf]):
            for mode in U.MODES:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    ref = ss.upfirdn(h, x, 3, 2, mode=mode)
                out = U.upfirdn(h, gp.asarray(x), 3, 2, mode=mode)
                np.testing.assert_array_equal(np.isnan(out.get()), np.isnan(ref))
    # empty batch, empty axis, one sample, signal shorter than the filter
    assert U.upfirdn([1, 2], gp.zeros((0, 5))).shape == (0, 6)
    out = U.upfirdn([1, 2, 3], gp.zeros(0), cval=2.0)
    np.testing.assert_array_equal(out.get(), [12.0, 12.0])
    h6 = np.arange(1.0, 7.0)
    for view, axis in ((gp.zeros((3, 3, 0))[::-1], 2), (gp.zeros((0, 5, 2)).T, 2),
                       (gp.zeros((2, 0, 3))[:, :, ::-1], 1)):
        ref = ss.upfirdn(h6, np.zeros(view.shape), 3, 2, axis=axis, cval=0.5)
        np.testing.assert_array_equal(U.upfirdn(h6, view, 3, 2, axis=axis, cval=0.5).get(),
                                      ref)
    np.testing.assert_array_equal(U.upfirdn([1.0, 1.0, 1.0], gp.asarray([2.5]),
                                            mode="reflect").get(), [7.5, 7.5, 7.5])
    x = np.arange(3.0)
    h = np.arange(1.0, 41.0)
    for mode in U.MODES:
        _check(U.upfirdn(h, gp.asarray(x), 2, 3, mode=mode),
               ss.upfirdn(h, x, 2, 3, mode=mode), h, x, mode)


@gpu
def test_gpu_large_resample_rate():
    # the benchmark's shape: 16M samples by 3/2 (both precisions)
    import gpuscipy_core as gp
    rng = np.random.default_rng(5)
    x = rng.standard_normal(1 << 24)
    h = ss.firwin(61, 1 / 3) * 3
    for dt in ("d", "f"):
        xd = x.astype(dt)
        ref = ss.upfirdn(h.astype(dt), xd, 3, 2)
        out = U.upfirdn(h.astype(dt), gp.asarray(xd), 3, 2)
        _check(out, ref, h, xd)


# ------------------------------------------------------- host emulation (CPU)
#
# The kernels' own CUDA source compiled as host C++ (g++, AddressSanitizer):
# one std::thread per CUDA thread, __syncthreads as a std::barrier, blocks run
# one after another, dynamic shared memory a heap buffer of exactly the
# planned size (so an out-of-bounds shared or global access aborts). The
# launches are built by the same plan_launch/kernel_args as on the GPU. Real
# dtypes are compared with SciPy exactly (no FMA contraction on the host,
# SciPy's summation order); complex ones within 1e-13 / 1e-5 of the scale
# (gs::complex multiplies with fma).

_SHIM = H.SHIM_BASE + r"""
#include <math.h>
#include <barrier>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
std::barrier<>* gs_emu_barrier;
unsigned char* gs_emu_smem;
inline void __syncthreads() { gs_emu_barrier->arrive_and_wait(); }
"""

_HARNESS = r"""
// A pool of worker threads, one per CUDA thread of the block, kept across
// launches of the same block size (thread creation would dominate).
namespace emu {
std::mutex mu;
std::condition_variable cv;
std::vector<std::thread> workers;
unsigned long generation = 0;
bool stopping = false;
std::function<void(unsigned)> job;
std::barrier<>* finished = nullptr;

std::barrier<>* block_barrier = nullptr;

void stop_pool() {
  { std::lock_guard<std::mutex> g(mu); stopping = true; ++generation; }
  cv.notify_all();
  for (auto& t : workers) t.join();
  workers.clear();
  stopping = false;
  delete finished;
  delete block_barrier;
  finished = block_barrier = nullptr;
}

// The barriers live as long as the pool: a worker may still be returning
// from the last phase's arrive_and_wait when the next launch starts.
void start_pool(unsigned n) {
  finished = new std::barrier<>(n + 1);
  block_barrier = new std::barrier<>(n);
  const unsigned long first = generation;   // jobs after this one are new
  for (unsigned tid = 0; tid < n; ++tid)
    workers.emplace_back([tid, first] {
      unsigned long seen = first;
      for (;;) {
        std::unique_lock<std::mutex> lk(mu);
        cv.wait(lk, [&] { return generation != seen; });
        seen = generation;
        if (stopping) return;
        lk.unlock();
        job(tid);
        finished->arrive_and_wait();
      }
    });
}
}  // namespace emu

static void emu_run(unsigned gx, unsigned gy, unsigned bx, unsigned by, size_t smem,
                    std::function<void()> body) {
  const unsigned n = bx * by;
  if (emu::workers.size() != n) {
    if (!emu::workers.empty()) emu::stop_pool();
    emu::start_pool(n);
  }
  blockDim = dim3{bx, by, 1};
  gridDim = dim3{gx, gy, 1};
  std::vector<unsigned char> shared(smem);
  gs_emu_smem = smem ? shared.data() : nullptr;
  std::barrier<>& bar = *emu::block_barrier;
  gs_emu_barrier = &bar;
  emu::job = [&](unsigned tid) {
    threadIdx = dim3{tid % bx, tid / bx, 1};
    for (unsigned y = 0; y < gy; ++y)
      for (unsigned x = 0; x < gx; ++x) {
        blockIdx = dim3{x, y, 1};
        body();
        bar.arrive_and_wait();   // the block is done with shared memory
      }
  };
  { std::lock_guard<std::mutex> g(emu::mu); ++emu::generation; }
  emu::cv.notify_all();
  emu::finished->arrive_and_wait();
}

extern "C" void emu_shutdown() { if (!emu::workers.empty()) emu::stop_pool(); }
"""

_SMEM_DECL = "extern __shared__ __align__(16) unsigned char gsufd_smem[];"


def _kernel_params(src, name):
    import re
    m = re.search(re.escape(name) + r"\((.*?)\)\s*\{", src, re.S)
    params = " ".join(m.group(1).split())
    names = [p.strip().split()[-1].lstrip("*") for p in params.split(",")]
    return params, names


def _emu_build(tmp):
    """Build the emulator library; returns its path."""
    inc = H.write_includes(os.path.join(tmp, "include"), prelude="")
    header = read_source(U._CUH)
    assert _SMEM_DECL in header
    parts = [_SHIM, header.replace(_SMEM_DECL, "unsigned char* gsufd_smem = gs_emu_smem;")]
    wrappers = [_HARNESS]
    for d in "fdFD":
        src = U.kernel_source(d)
        assert src.startswith(header)
        parts.append(src[len(header):])
        for direct in (False, True):
            name = U.kernel_name(d, direct)
            params, names = _kernel_params(src, name)
            wrappers.append(
                f'extern "C" void emu_{name}(unsigned gx, unsigned gy, unsigned bx, '
                f'unsigned by, size_t smem, {params}) {{\n'
                f'  emu_run(gx, gy, bx, by, smem, [=] {{ {name}({", ".join(names)}); }});\n}}\n')
    cpp = os.path.join(tmp, "upfirdn_emu.cpp")
    with open(cpp, "w") as f:
        f.write("".join(parts + wrappers))
    so = os.path.join(tmp, "upfirdn_emu.so")
    H.compile_libraries([(cpp, so)], inc, ["-O0", "-fsanitize=address",
                                           "-fno-omit-frame-pointer"])
    return so


def _emu_lib(so):
    import ctypes as C

    class CF(C.Structure):
        _fields_ = [("re", C.c_float), ("im", C.c_float)]

    class CD(C.Structure):
        _fields_ = [("re", C.c_double), ("im", C.c_double)]

    ctypes_of = {"int": C.c_int, "long long": C.c_longlong, "float": C.c_float,
                 "double": C.c_double, "gs::complex<float>": CF,
                 "gs::complex<double>": CD}
    lib = C.CDLL(so)
    fns = {"shutdown": lib.emu_shutdown}
    for d in "fdFD":
        src = U.kernel_source(d)
        for direct in (False, True):
            name = U.kernel_name(d, direct)
            params, _ = _kernel_params(src, name)
            types = [C.c_uint] * 4 + [C.c_size_t]
            for p in params.split(","):
                decl = p.strip().rsplit(" ", 1)[0]
                types.append(C.c_void_p if "*" in p else ctypes_of[decl.strip()])
            fn = getattr(lib, f"emu_{name}")
            fn.argtypes = types
            fn.restype = None
            fns[name] = (fn, types)
    return fns


def _emu_apply(fns, x, h, up, down, axis, mode, cval, dtype, bg_sub=None, bg_add=None,
               **kw):
    """U.apply on the host emulator (x, h, bg_*: NumPy arrays)."""
    dtype = np.dtype(dtype)
    plan_kw = {k: kw.pop(k) for k in ("threads", "smem_limit", "max_items") if k in kw}
    spec = U.plan_launch(x.shape, x.strides, x.itemsize, axis, len(h), up, down, dtype,
                         **kw, **plan_kw)
    if spec.plan is None and spec.layout is None and np.prod(spec.shape):
        x = np.ascontiguousarray(x)
        spec = U.plan_launch(x.shape, x.strides, x.itemsize, axis, len(h), up, down,
                             dtype, **kw, **plan_kw)
    if spec.plan is None:
        return np.empty(spec.shape, dtype)
    if spec.y_axis_last:
        y = np.moveaxis(np.full(x.shape[:axis] + x.shape[axis + 1:] + (spec.out_len,),
                                np.nan, dtype), -1, axis)
    else:
        y = np.full(spec.shape, np.nan, dtype)
    h = np.ascontiguousarray(h, dtype)
    ptr = lambda a: 0 if a is None else a.__array_interface__["data"][0]  # noqa: E731
    args = U.kernel_args(spec, ptr(x), x.dtype, ptr(h) if h.size else 0, len(h),
                         kw.get("h_pre", 0), up, down, ptr(y), mode, cval, ptr(bg_sub),
                         ptr(bg_add))
    fn, types = fns[U.kernel_name(dtype, spec.plan.direct)]
    conv = []
    for t, a in zip(types[5:], args):
        if hasattr(t, "_fields_"):
            conv.append(t(float(np.real(a)), float(np.imag(a))))
        else:
            conv.append(a.item() if isinstance(a, np.generic) else a)
    p = spec.plan
    fn(p.grid[0], p.grid[1], p.qt, p.ty, p.smem, *conv)
    return y


def _emu_cases(fns):
    """Every check the emulator runs; returns the number of launches."""
    rng = np.random.default_rng(0)
    count = 0

    def check(out, ref, what):
        assert out.shape == ref.shape and out.dtype == ref.dtype, what
        if ref.dtype.kind == "c":
            scale = float(np.max(np.abs(ref))) if ref.size else 0.0
            tol = 1e-13 if ref.dtype == np.complex128 else 1e-5
            np.testing.assert_allclose(out, ref, rtol=0, atol=tol * (scale + 1),
                                       err_msg=what)
        else:
            np.testing.assert_array_equal(out, ref, err_msg=what)

    # modes x rates x lengths x dtypes, blocks of 32 threads and direct
    for mode in U.MODES:
        code = U.MODE_CODES[mode]
        for up, down in ((1, 1), (3, 2), (2, 3), (1, 5), (7, 3)):
            for lh in (1, 4, 13):
                for n in (0, 1, 2, 9, 70):
                    if (n == 0 and mode != "constant") or (n == 1 and mode in UNDEFINED_N1):
                        continue
                    if U.output_len(lh, n, up, down) < 0:
                        continue
                    # one dtype pair per case, rotating through all four
                    for hd, xd in (DTYPE_PAIRS[(lh + n + up + code) % 4],):
                        h = _data(rng, lh, hd, 1.0)
                        x = _data(rng, n, xd)
                        cval = 1.5 if mode == "constant" and n % 2 else 0.0
                        ref = ss.upfirdn(h, x, up, down, mode=mode, cval=cval)
                        for pk in ({"threads": 8}, {"threads": 8, "smem_limit": 0}):
                            out = _emu_apply(fns, x, h, up, down, 0, code,
                                             U.cval_scalar(cval, ref.dtype), ref.dtype,
                                             **pk)
                            check(out, ref, f"{mode} {up}/{down} h{lh} x{n} {hd}{xd} {pk}")
                            count += 1
    # layouts: axes, batches, lanes along Q, F order (y axis-last),
    # negative and non-unit strides, non-collapsible (copied) views
    base = rng.standard_normal((5, 40, 6))
    views = [base, np.asfortranarray(base), base[::-1, ::3, ::-2],
             base.transpose(2, 0, 1), base.transpose(1, 2, 0)[::2, ::-1]]
    h = rng.standard_normal(7)
    for v in views:
        for axis in range(3):
            for up, down in ((3, 2), (1, 3)):
                for mode in ("constant", "reflect"):
                    ref = ss.upfirdn(h, v, up, down, axis=axis, mode=mode)
                    for pk in ({"threads": 32}, {"threads": 8, "smem_limit": 0}):
                        out = _emu_apply(fns, v, h, up, down, axis, U.MODE_CODES[mode],
                                         np.float64(0), np.float64, **pk)
                        check(out, ref, f"view {v.strides} axis {axis} {up}/{down} {pk}")
                        count += 1
    # input dtypes read in the kernel
    for xd in ("?", "b", "B", "h", "H", "i", "I", "q", "Q", "e", "f", "F"):
        x = (rng.standard_normal(50) * 20)
        x = x.astype(xd) if xd != "?" else x > 0
        for hd in ("f", "d", "D"):
            h = rng.standard_normal(6).astype(hd)
            ref = ss.upfirdn(h, x, 2, 3, mode="symmetric")
            out = _emu_apply(fns, x, h, 2, 3, 0, 1, U.cval_scalar(0, ref.dtype), ref.dtype,
                             threads=8)
            check(out, ref, f"x {xd} h {hd}")
            count += 1
    # resample_poly's crop, leading zero taps, background subtract/add
    x = rng.standard_normal((3, 60))
    h = rng.standard_normal(11)
    bg = np.array([0.5, -1.25, 2.0])
    for up, down in ((3, 2), (1, 4)):
        hp = np.concatenate([np.zeros(2), h, np.zeros(3)])
        full = ss.upfirdn(hp, x - bg[:, None], up, down) + bg[:, None]
        start, length = 5, full.shape[1] - 9
        for pk in ({"threads": 8}, {"threads": 8, "smem_limit": 0}, {}):
            out = _emu_apply(fns, x, h, up, down, 1, 0, np.float64(0), np.float64,
                             bg_sub=bg, bg_add=bg, h_pre=2, len_total=len(hp),
                             out_start=start, out_len=length, **pk)
            check(out, full[:, start:start + length], f"crop {up}/{down} {pk}")
            count += 1
    # where SciPy is undefined: the kernel does what the model defines
    for mode in U.MODES:
        for x in (np.array([2.5]), np.zeros(0)):
            h = np.array([1.0, 2.0, 3.0])
            want = U.model_apply(x, h, 1, 1, U.MODE_CODES[mode], 2.0, np.float64)
            for pk in ({"threads": 8}, {"threads": 8, "smem_limit": 0}):
                out = _emu_apply(fns, x, h, 1, 1, 0, U.MODE_CODES[mode], np.float64(2.0),
                                 np.float64, **pk)
                np.testing.assert_array_equal(out, want, err_msg=f"{mode} n={len(x)}")
                count += 1
    # an empty signal axis among other axes (every output is the extension
    # filtered: cval times the phase's tap sum), C order and views
    h = rng.standard_normal(6)
    for e, axis in ((np.zeros((3, 3, 0)), 2), (np.zeros((3, 3, 0))[::-1], 2),
                    (np.zeros((2, 5, 0)).T, 0), (np.zeros((0, 4)), 0),
                    (np.zeros((4, 0, 3)), 1)):
        for up, down in ((3, 1), (3, 2), (1, 1)):
            ref = ss.upfirdn(h, e, up, down, axis=axis, cval=0.5)
            for pk in ({"threads": 8}, {"threads": 8, "smem_limit": 0}):
                out = _emu_apply(fns, e, h, up, down, axis, 0, np.float64(0.5),
                                 np.float64, **pk)
                check(out, ref, f"empty axis {e.shape} {e.strides} {axis} {up}/{down}")
                count += 1
    # decimation by 60: the tiled variant on a halved block (64 threads)
    x = rng.standard_normal(3000)
    h = rng.standard_normal(121)
    assert U.launch_plan(1, 1, 50, 121, 1, 60, 8).ty == 64
    out = _emu_apply(fns, x, h, 1, 60, 0, 1, np.float64(0), np.float64)
    check(out, ss.upfirdn(h, x, 1, 60, mode="symmetric"), "decimation by 60")
    # full-size blocks (256 threads, 8 outputs each), one long run
    x = rng.standard_normal(5000)
    h = ss.firwin(61, 1 / 3) * 3
    out = _emu_apply(fns, x, h, 3, 2, 0, 0, np.float64(0), np.float64)
    check(out, ss.upfirdn(h, x, 3, 2), "256 threads")
    return count + 1


@pytest.fixture(scope="module")
def emulator(tmp_path_factory):
    import subprocess
    H.require_gxx("g++ not found: the host emulation of the kernels needs it")
    libasan = subprocess.run(["g++", "-print-file-name=libasan.so"], capture_output=True,
                             text=True).stdout.strip()
    if not os.path.isabs(libasan) or not os.path.exists(libasan):
        pytest.skip("libasan not found: the host emulation runs under AddressSanitizer")
    return _emu_build(str(tmp_path_factory.mktemp("emu"))), libasan


def test_emulated_kernels_match_scipy(emulator):
    # in a child process: the library is instrumented, so AddressSanitizer's
    # runtime must be loaded first (LD_PRELOAD)
    import subprocess
    import sys
    so, libasan = emulator
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(U.__file__))))
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, LD_PRELOAD=libasan, ASAN_OPTIONS="detect_leaks=0",
               PYTHONPATH=path)
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--emulate", so],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-8000:]
    assert "emulated launches:" in r.stdout


if __name__ == "__main__" and len(os.sys.argv) == 3 and os.sys.argv[1] == "--emulate":
    _fns = _emu_lib(os.sys.argv[2])
    try:
        print("emulated launches:", _emu_cases(_fns))
    finally:
        _fns["shutdown"]()
