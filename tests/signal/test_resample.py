"""Tests of gpuscipy.signal._resample (resample and resample_poly).

CPU:
- resample_poly: its host set-up (gcd, designed or given filter, SciPy's
  centring pad in closed form, the background rule that decides whether
  the kernel subtracts and adds the background itself) with the NumPy
  model of the upfirdn kernel, against ``scipy.signal.resample_poly`` for
  every padtype, several rates, windows and input dtypes: exact equality
  (the model does SciPy's arithmetic in SciPy's order).
- resample: its code run over NumPy and ``scipy.fft`` (the GPU runs the
  same function over gpuscipy_core and ``gpuscipy.fft``), against
  ``scipy.signal.resample``: exact equality, errors included.
- SciPy's errors for bad input (host inputs are checked before any copy
  to the device).

GPU (marked ``gpu``): both functions against SciPy. Tolerances: relative
to ``max|ref|`` (resample_poly: plus ``sum|h| * max|x|``, the bound on the
partial sums), 1e-12 for float64/complex128 and 2e-5 for float32/complex64:
the kernel fuses multiply-adds, cuFFT rounds differently from pocketfft.
"""

import math
import warnings

import numpy as np
import pytest
import scipy.fft as sfft
import scipy.signal as ss
from scipy.signal._upfirdn import _output_len

from gpuscipy.signal import _resample as R
from gpuscipy.signal import _upfirdn as U

PADTYPES = ["constant", "line", "mean", "median", "maximum", "minimum"] + [
    m for m in U.MODES if m not in ("constant", "line")]
RATES = [(3, 2), (2, 3), (1, 4), (5, 1), (7, 5), (4, 6), (10, 3)]
XDTYPES = ["d", "f", "F", "D", "h", "e", "?"]


def _signal(rng, n, dtype):
    x = rng.standard_normal(n) * 5
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(n)
    return x.astype(dtype) if dtype != "?" else x > 0


def _scipy_error(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001 - compare whatever SciPy raises
        return type(e), str(e)
    return None


# ------------------------------------------------------------------ CPU

@pytest.mark.parametrize("padtype", PADTYPES)
def test_model_resample_poly_matches_scipy(padtype):
    rng = np.random.default_rng(PADTYPES.index(padtype))
    windows = [("kaiser", 5.0), [1.0, 2.0, 3.0, 2.0, 1.0],
               np.arange(1, 8, dtype=np.float32), "hamming"]
    for up, down in RATES:
        for n in (1, 2, 7, 40):
            if n == 1 and padtype in ("reflect", "antireflect", "smooth"):
                continue   # SciPy reads past / divides by zero there
            for k, dt in enumerate(XDTYPES):
                x = _signal(rng, n, dt)
                window = windows[(n + k + up) % len(windows)]
                want = _scipy_error(lambda: ss.resample_poly(x, up, down, window=window,
                                                              padtype=padtype))
                if want is not None:   # bool - bool in the background padtypes
                    with pytest.raises(want[0]):
                        R.model_resample_poly(x, up, down, window=window, padtype=padtype)
                    continue
                ref = ss.resample_poly(x, up, down, window=window, padtype=padtype)
                out = R.model_resample_poly(x, up, down, window=window, padtype=padtype)
                assert out.dtype == ref.dtype
                np.testing.assert_array_equal(out, ref, err_msg=f"{up}/{down} {n} {dt}")


def test_model_resample_poly_cval_and_small_blocks():
    rng = np.random.default_rng(9)
    x = rng.standard_normal(50)
    for up, down in ((3, 2), (1, 5)):
        ref = ss.resample_poly(x, up, down, cval=2.5)
        h, half = R.design_filter(up, down, ("kaiser", 5.0), x.dtype)
        pre, total, start, n_out = R.centring(len(h), half, len(x), up, down)
        plan = U.launch_plan(1, 1, n_out, -(-total // up), up, down, 8, threads=8,
                             max_items=2)
        out = R.model_resample_poly(x, up, down, cval=2.5, plan=plan)
        np.testing.assert_array_equal(out, ref)


def test_centring_closed_form_is_scipys_loop():
    for n_in in (0, 1, 2, 5, 17):
        for up in range(1, 9):
            for down in range(1, 9):
                for lh in (0, 1, 2, 5, 21, 61):
                    half = (lh - 1) // 2
                    n_out = n_in * up
                    n_out = n_out // down + bool(n_out % down)
                    pre = down - half % down
                    remove = (half + pre) // down
                    post = 0
                    while _output_len(lh + pre + post, n_in, up, down) < n_out + remove:
                        post += 1
                    assert R.centring(lh, half, n_in, up, down) == (
                        pre, lh + pre + post, remove, n_out)


def test_design_filter_and_background_dtype():
    for dt in ("d", "f", "e", "F", "i", "?"):
        h, half = R.design_filter(3, 2, ("kaiser", 5.0), np.dtype(dt))
        want = ss.firwin(61, 1 / 3, window=("kaiser", 5.0))
        want = np.asarray(want, dtype=dt if np.dtype(dt).kind in "fc" else "d") * \
            np.array(3, dtype=dt if np.dtype(dt).kind in "fc" else "d")
        assert half == 30 and h.dtype == want.dtype and not h.flags.writeable
        np.testing.assert_array_equal(h, want)
        assert R.design_filter(3, 2, ("kaiser", 5.0), np.dtype(dt)) is R.design_filter(
            3, 2, ("kaiser", 5.0), np.dtype(dt))
    for pad in R.BACKGROUNDS:
        for dt in ("d", "f", "e", "F", "i1", "u2", "q"):
            x = np.arange(5).astype(dt)
            f = {"mean": np.mean, "median": np.median, "minimum": np.min,
                 "maximum": np.max}[pad]
            assert R.background_dtype(pad, x.dtype) == np.asarray(f(x)).dtype


BAD_POLY = [
    dict(up=2.5, down=1),
    dict(up=2, down=1.5),
    dict(up=0, down=1),
    dict(up=2, down=-1),
    dict(up="2", down=1),
    dict(up=None, down=1),
    dict(up=2, down=1, padtype="mean", cval=1.0),
    dict(up=2, down=1, padtype="foo"),
    dict(up=2, down=1, padtype="Constant"),
    dict(up=2, down=1, axis=1),
    dict(up=2, down=1, window=np.ones((3, 3))),
    dict(up=2, down=1, window=np.float64(2.0)),
    dict(up=2, down=1, window="foo"),
    dict(up=2, down=1, window=[1, 2, 3], cval="a"),
    dict(up=2, down=1, cval=1j),
    dict(up=2, down=1, x=np.ones(4, np.longdouble)),
]


@pytest.mark.parametrize("kw", BAD_POLY, ids=range(len(BAD_POLY)))
def test_resample_poly_errors_match_scipy(kw):
    kw = dict(kw)
    x = kw.pop("x", np.arange(6.0))
    want = _scipy_error(lambda: ss.resample_poly(x, **kw))
    assert want is not None
    with pytest.raises(want[0]) as info:
        R.resample_poly(x, **kw)
    assert str(info.value) == want[1]


@pytest.mark.parametrize("dtype", ["d", "f", "D", "i4", "e"])
def test_resample_impl_matches_scipy(dtype):
    rng = np.random.default_rng(0)
    windows = [None, "hann", ("kaiser", 3.0), lambda f: 1 - np.abs(f), "array"]
    for nx in (1, 2, 3, 4, 5, 8, 9, 16):
        for num in (1, 2, 3, 4, 5, 7, 8, 16, 17):
            for domain in ("time", "freq"):
                for window in windows:
                    x = rng.standard_normal(nx)
                    if dtype == "D":
                        x = x + 1j * rng.standard_normal(nx)
                    x = (x * 10).astype(dtype)
                    w = rng.random(nx) if isinstance(window, str) and window == "array" \
                        else window
                    want = _scipy_error(lambda: ss.resample(x, num, window=w,
                                                            domain=domain))
                    if want is not None:
                        with pytest.raises(want[0]) as info:
                            R.resample_impl(x, num, None, 0, w, domain, np, sfft)
                        assert str(info.value) == want[1]
                        continue
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        ref = ss.resample(x, num, window=w, domain=domain)
                        out = R.resample_impl(x, num, None, 0, w, domain, np, sfft)
                    assert out.dtype == ref.dtype
                    np.testing.assert_array_equal(out, ref)


def test_resample_impl_axes_and_t():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 6, 5))
    for axis in (0, 1, 2, -1):
        for num in (3, 8):
            for t in (np.arange(x.shape[axis], dtype=np.float32), [0, 2]):
                ref = ss.resample(x, num, axis=axis, t=t, window="hann")
                out = R.resample_impl(x, num, t, axis, "hann", "time", np, sfft)
                np.testing.assert_array_equal(out[0], ref[0])
                np.testing.assert_array_equal(out[1], ref[1])
                assert out[1].dtype == ref[1].dtype


BAD_RESAMPLE = [
    dict(num=3, domain="fr"),
    dict(num=0),
    dict(num=3, window=np.ones(5)),
    dict(num=3, window=[1, 1, 1, 1, 1, 1]),
    dict(num=3, window="foo"),
    dict(x=np.float64(1.0), num=3),
]


@pytest.mark.parametrize("kw", BAD_RESAMPLE, ids=range(len(BAD_RESAMPLE)))
def test_resample_errors_match_scipy(kw):
    kw = dict(kw)
    x = kw.pop("x", np.arange(6.0))
    want = _scipy_error(lambda: ss.resample(x, **kw))
    assert want is not None
    with pytest.raises(want[0]) as info:
        R.resample(x, **kw)
    assert str(info.value) == want[1]


def test_spectral_window_cached_readonly():
    w = R.spectral_window("hann", 16)
    assert w is R.spectral_window("hann", 16) and not w.flags.writeable
    np.testing.assert_array_equal(w, sfft.fftshift(ss.get_window("hann", 16)))


# ------------------------------------------------------------------ GPU

gpu = pytest.mark.gpu
TOL = {"f": 2e-5, "F": 2e-5, "d": 1e-12, "D": 1e-12}


def _close(out, ref, scale=0.0):
    assert out.dtype == ref.dtype and out.shape == ref.shape
    got = out.get()
    if ref.size == 0:
        return
    assert np.array_equal(np.isnan(got), np.isnan(ref))
    fin = np.isfinite(ref)
    s = float(np.max(np.abs(ref[fin]))) if fin.any() else 0.0
    err = float(np.max(np.abs(got[fin] - ref[fin]))) if fin.any() else 0.0
    assert err <= TOL[ref.dtype.char] * (s + scale + 1e-300), err


def _poly_scale(x, up, down):
    h, _ = R.design_filter(up // math.gcd(up, down), down // math.gcd(up, down),
                           ("kaiser", 5.0), np.float64)
    xf = np.abs(np.asarray(x, complex))
    return float(np.sum(np.abs(h))) * 2 * (float(xf.max()) if xf.size else 0.0)


@gpu
@pytest.mark.parametrize("padtype", PADTYPES)
@pytest.mark.parametrize("dtype", ["d", "f", "F", "D", "h", "e", "B"])
def test_gpu_resample_poly(padtype, dtype):
    import gpuscipy_core as gp
    rng = np.random.default_rng(0)
    for up, down in RATES:
        for n in (1, 2, 7, 300):
            if n == 1 and padtype in ("reflect", "antireflect", "smooth"):
                continue
            x = _signal(rng, n, dtype) if dtype != "B" else rng.integers(0, 255, n, "u1")
            ref = ss.resample_poly(x, up, down, padtype=padtype)
            out = R.resample_poly(gp.asarray(x), up, down, padtype=padtype)
            grow = 4 + 4 * 61 / n if padtype in ("line", "smooth", "antireflect") else 1
            _close(out, ref, _poly_scale(x, up, down) * grow)


@gpu
def test_gpu_resample_poly_axes_windows_batches():
    import gpuscipy_core as gp
    rng = np.random.default_rng(1)
    x = rng.standard_normal((50, 7, 33))
    for axis in (0, 1, 2, -1):
        for window in (("kaiser", 5.0), "hann", [1.0, 3.0, 1.0],
                       rng.standard_normal(11).astype("f")):
            for padtype in ("constant", "mean", "median", "wrap"):
                ref = ss.resample_poly(x, 3, 2, axis=axis, window=window, padtype=padtype)
                out = R.resample_poly(gp.asarray(x), 3, 2, axis=axis, window=window,
                                      padtype=padtype)
                _close(out, ref, _poly_scale(x, 3, 2) * 4)
    # non-contiguous, negative strides, a device window, NaN
    xv = x[::-2, :, ::3]
    ref = ss.resample_poly(xv, 5, 3, axis=2)
    _close(R.resample_poly(gp.asarray(x)[::-2, :, ::3], 5, 3, axis=2), ref,
           _poly_scale(x, 5, 3))
    w = rng.standard_normal(21)
    ref = ss.resample_poly(x, 2, 1, window=w)
    _close(R.resample_poly(gp.asarray(x), 2, 1, window=gp.asarray(w)), ref,
           float(np.sum(np.abs(w))) * 2 * np.abs(x).max())
    xn = x.copy()
    xn[3, 2, 1] = np.nan
    for padtype in ("constant", "median", "maximum"):
        ref = ss.resample_poly(xn, 3, 2, padtype=padtype)
        out = R.resample_poly(gp.asarray(xn), 3, 2, padtype=padtype)
        np.testing.assert_array_equal(np.isnan(out.get()), np.isnan(ref))
    # up == down: a copy, dtype kept
    xi = np.arange(10, dtype=np.int16)
    out = R.resample_poly(gp.asarray(xi), 4, 4)
    assert out.dtype == np.int16
    np.testing.assert_array_equal(out.get(), xi)


@gpu
def test_gpu_resample_poly_16m():
    # the benchmark's case (values checked on a 1M-sample prefix of work)
    import gpuscipy_core as gp
    rng = np.random.default_rng(2)
    x = rng.standard_normal(1 << 20)
    for dt in ("d", "f"):
        xd = x.astype(dt)
        ref = ss.resample_poly(xd, 3, 2)
        _close(R.resample_poly(gp.asarray(xd), 3, 2), ref, _poly_scale(xd, 3, 2))
    big = gp.asarray(rng.standard_normal(1 << 24))
    out = R.resample_poly(big, 3, 2)
    assert out.shape == (3 << 23,)
    head = ss.resample_poly(big[:4096].get(), 3, 2)
    np.testing.assert_allclose(out[:6000].get(), head[:6000], rtol=0, atol=1e-12 * 20)


@gpu
@pytest.mark.parametrize("dtype", ["d", "f", "D", "F", "i4", "e"])
def test_gpu_resample(dtype):
    import gpuscipy_core as gp
    rng = np.random.default_rng(3)
    for nx in (1, 2, 5, 8, 9, 64):
        for num in (1, 3, 4, 8, 17, 128):
            for window in (None, "hann", "array"):
                for domain in ("time", "freq"):
                    x = rng.standard_normal(nx)
                    if np.dtype(dtype).kind == "c":
                        x = x + 1j * rng.standard_normal(nx)
                    x = (x * 10).astype(dtype)
                    w = rng.random(nx) if window == "array" else window
                    wd = gp.asarray(w) if window == "array" else w
                    want = _scipy_error(lambda: ss.resample(x, num, window=w,
                                                            domain=domain))
                    if want is not None:   # in-place float ops on integer spectra
                        kind = TypeError if issubclass(want[0], TypeError) else want[0]
                        with pytest.raises(kind):
                            R.resample(gp.asarray(x), num, window=wd, domain=domain)
                        continue
                    ref = ss.resample(x, num, window=w, domain=domain)
                    out = R.resample(gp.asarray(x), num, window=wd, domain=domain)
                    if ref.dtype.char in "dD" and x.dtype.char in "fF":
                        # a float64 window promotes the result; we transform
                        # at that precision (as SciPy 1.18; 1.17 transforms
                        # in single precision first): the reference is SciPy
                        # on the same values in double precision
                        dbl = ss.resample(x.astype(ref.dtype), num, window=w,
                                          domain=domain)
                        assert dbl.dtype == ref.dtype
                        ref = dbl
                    _close(out, ref)


@gpu
def test_gpu_resample_axes_t_callable():
    import gpuscipy_core as gp
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 10, 7))
    for axis in (0, 1, 2, -1):
        ref, tr = ss.resample(x, 12, t=np.arange(x.shape[axis]) * 0.5, axis=axis)
        out, to = R.resample(gp.asarray(x), 12, t=np.arange(x.shape[axis]) * 0.5,
                             axis=axis)
        _close(out, ref)
        np.testing.assert_array_equal(to.get(), tr)
    ref = ss.resample(x[:, ::-1], 4, axis=1, window=lambda f: 1 - np.abs(f))
    out = R.resample(gp.asarray(x)[:, ::-1], 4, axis=1, window=lambda f: 1 - gp.abs(f))
    _close(out, ref)


@gpu
@pytest.mark.parametrize("dtype", ["f", "d"])
def test_gpu_nan_channel_stays_put(dtype):
    """A NaN in one channel of the FFT-based functions reaches no other
    channel, as in SciPy (cuFFT pairs the rows of odd-length real
    transforms; gpuscipy.fft keeps them apart): resample to and from odd
    lengths, hilbert, welch with an odd nperseg, fftconvolve."""
    import gpuscipy_core as gp
    from gpuscipy import signal as gs
    rng = np.random.default_rng(7)
    for n in (259, 1001):
        x = rng.standard_normal((6, n)).astype(dtype)
        x[2, n // 2] = np.nan
        k = rng.standard_normal((1, 31)).astype(dtype)
        calls = [("resample", (n + 7,), {"axis": -1}), ("resample", (n - 1,), {"axis": -1}),
                 ("hilbert", (), {}), ("welch", (), {"nperseg": 129}),
                 ("fftconvolve", (k,), {"axes": -1})]
        for name, args, kw in calls:
            ref = getattr(ss, name)(x, *args, **kw)
            dargs = tuple(gp.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
            out = getattr(gs, name)(gp.asarray(x), *dargs, **kw)
            if name == "welch":
                ref, out = ref[1], out[1]
            got = out.get()
            bad = ~np.isfinite(ref).all(axis=-1)
            np.testing.assert_array_equal(~np.isfinite(got).all(axis=-1), bad,
                                          err_msg=f"{name} n={n}: rows holding NaN")
            # the other rows as SciPy's (within a NaN row the FFT methods
            # may spread it differently: docs/signal-convolve.md)
            _close(gp.asarray(got[~bad]), ref[~bad])
