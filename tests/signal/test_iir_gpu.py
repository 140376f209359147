"""GPU parity of gpuscipy.signal's IIR filtering with scipy.signal.

Every test is marked ``gpu``. Inputs go to the device with
``gpuscipy_core.asarray``; results come back with ``.get()``.

Tolerances (module docstring of ``test_iir``): paths that run SciPy's serial
loop (n <= 64, the health fallback) must equal SciPy bitwise for real types
(same expressions and order, no fused multiply-adds); blocked paths are
checked with ``check_blocked`` (within 16 x SciPy's own rounding error +
64 eps |y|max of a higher-precision reference); the convolution path (one
``a`` coefficient, or a state above 16 split into convolution + all-pole)
with rtol 1e-12 (double) / 2e-5 (single precision), its summation order
differing from numpy.convolve.
"""

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy.signal import _filtfilt as FF
from gpuscipy.signal import _iir as G
from gpuscipy.signal import _iir_kernels as K

from .test_iir import check_blocked, high_precision

pytestmark = pytest.mark.gpu

RTOL = {"f": 2e-5, "d": 1e-12, "F": 2e-5, "D": 1e-12}


def _gp():
    import gpuscipy_core as gp
    return gp


def dev(a):
    return _gp().asarray(np.asarray(a))


def host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _data(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    elif np.dtype(dtype).kind in "iub":
        x = rng.integers(-20, 20, shape)
    return x.astype(dtype)


def _ba_check(b, a, x, y, zi=None, zf=None, axis=-1):
    """y (and zf) against SciPy with the blocked tolerance."""
    ref = ss.lfilter(b, a, x, axis=axis, zi=zi)
    dt = np.result_type(np.asarray(b), np.asarray(a), x, *([] if zi is None else [zi]))
    hp = high_precision(dt)
    ref_hp = ss.lfilter(np.asarray(b).astype(dt).astype(hp), np.asarray(a).astype(dt).astype(hp),
                        x.astype(hp), axis=axis, zi=None if zi is None else zi.astype(hp))
    if zi is None:
        ref, ref_hp = (ref,), (ref_hp,)
        got = (y,)
    else:
        got = (y, zf)
    for g, r, rh in zip(got, ref, ref_hp):
        g = host(g)
        assert g.shape == r.shape and g.dtype == r.dtype
        check_blocked(g, r, rh)


# ------------------------------------------------------------------ lfilter

@pytest.mark.parametrize("xdt", ["int16", "bool", "float32", "float64", "complex64",
                                 "complex128"])
@pytest.mark.parametrize("cdt", ["float32", "float64", "complex128"])
def test_lfilter_dtypes(xdt, cdt):
    rng = np.random.default_rng(1)
    b, a = (v.astype(cdt) for v in ss.cheby1(4, 1, 0.2))
    if np.dtype(cdt).kind == "c":
        b = b * np.exp(0.4j)
    x = _data(rng, (3, 5000), xdt)
    zi = _data(rng, (3, 4), cdt)
    y, zf = G.lfilter(dev(b), a, dev(x), zi=dev(zi))
    _ba_check(b, a, x, y, zi, zf)


@pytest.mark.parametrize("n", [1, 2, 5, 64, 65, 1000, 16384, 16385, 200_000])
@pytest.mark.parametrize("order", [1, 2, 4, 8])
def test_lfilter_lengths_and_orders(n, order):
    """Shorter than the filter, serial (n <= 64: bitwise), fused, scan."""
    rng = np.random.default_rng(n + order)
    b, a = ss.butter(order, 0.15)
    x = rng.standard_normal((2, n))
    zi = rng.standard_normal((2, order))
    y, zf = G.lfilter(b, a, dev(x), zi=dev(zi))
    if n <= K.SERIAL_MAX_N:
        ref, zref = ss.lfilter(b, a, x, zi=zi)
        np.testing.assert_array_equal(host(y), ref)
        np.testing.assert_array_equal(host(zf), zref)
    else:
        _ba_check(b, a, x, y, zi, zf)


def test_lfilter_one_million_order_4():
    """The benchmark shape: 1M float64 samples, order 4 (scan plan)."""
    rng = np.random.default_rng(3)
    b, a = ss.butter(4, 0.1)
    x = rng.standard_normal(1 << 20)
    _ba_check(b, a, x, G.lfilter(b, a, dev(x)))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_lfilter_axes_strides_zi_broadcast(axis):
    """C order, negative and non-unit strides, F order; zi with singleton
    axes (SciPy broadcasts them)."""
    rng = np.random.default_rng(axis + 10)
    b, a = ss.ellip(3, 0.5, 40, 0.2)
    base = rng.standard_normal((6, 40, 300))
    views = [(base, dev(base)),
             (base[::-1, ::2, ::-3], dev(base)[::-1, ::2, ::-3]),
             (np.asfortranarray(base), _gp().asfortranarray(dev(base)))]
    for x_h, x_d in views:
        zshape = list(x_h.shape)
        zshape[axis] = 3
        zi = rng.standard_normal(zshape)
        y, zf = G.lfilter(b, a, x_d, axis=axis, zi=dev(zi))
        _ba_check(b, a, x_h, y, zi, zf, axis=axis)
        zb = np.take(zi, [0], axis=(axis + 1) % 3)
        y, zf = G.lfilter(b, a, x_d, axis=axis, zi=zb)
        _ba_check(b, a, x_h, y, np.broadcast_to(zb, zi.shape).copy(), zf, axis=axis)


def test_lfilter_zf_round_trip_with_scipy():
    """zf in SciPy's layout: our zf continues in SciPy and SciPy's in ours."""
    rng = np.random.default_rng(4)
    b, a = ss.butter(5, 0.1)
    x = rng.standard_normal((3, 4000))
    zi = ss.lfilter_zi(b, a)[None, :] * x[:, :1]
    y1, zf1 = G.lfilter(b, a, dev(x[:, :2000]), zi=dev(zi))
    y2, _ = ss.lfilter(b, a, x[:, 2000:], zi=host(zf1))
    _, zf_s = ss.lfilter(b, a, x[:, :2000], zi=zi)
    y3, _ = G.lfilter(b, a, dev(x[:, 2000:]), zi=dev(zf_s))
    ref = ss.lfilter(b, a, x, zi=zi)[0]
    check_blocked(np.concatenate([host(y1), y2], axis=1), ref,
                  ss.lfilter(b.astype("g"), a.astype("g"), x.astype("g"), zi=zi.astype("g"))[0])
    np.testing.assert_allclose(host(y3), ref[:, 2000:], rtol=1e-10, atol=1e-12)


def test_lfilter_nan_and_empty():
    rng = np.random.default_rng(5)
    b, a = ss.butter(3, 0.2)
    x = rng.standard_normal((2, 50_000))
    x[1, 30_000] = np.nan
    y = host(G.lfilter(b, a, dev(x)))
    ref = ss.lfilter(b, a, x)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(ref))
    check_blocked(y[0], ref[0], ss.lfilter(b.astype("g"), a.astype("g"), x[0].astype("g")))
    # nothing to filter: zf = zi (SciPy returns uninitialised memory here)
    zi = np.arange(9.0).reshape(3, 3)
    y, zf = G.lfilter(b, a, dev(np.ones((3, 0))), zi=dev(zi))
    assert y.shape == (3, 0)
    np.testing.assert_array_equal(host(zf), zi)
    assert G.lfilter(b, a, dev(np.ones((0, 7)))).shape == (0, 7)


def test_lfilter_ill_conditioned_is_scipy_bitwise():
    """butter(8, 0.01) in ba form: the carry falls back to SciPy's loop."""
    b, a = ss.butter(8, 0.01)
    rng = np.random.default_rng(6)
    for n in (5000, 100_000):
        x = rng.standard_normal((2, n))
        np.testing.assert_array_equal(host(G.lfilter(b, a, dev(x))), ss.lfilter(b, a, x))


def _stable_a(order, rng, radius=0.8):
    """2 * (a monic polynomial with random roots of modulus <= radius)."""
    k = order // 2
    r = radius * np.sqrt(rng.uniform(0, 1, k)) * np.exp(1j * rng.uniform(0, np.pi, k))
    roots = np.r_[r, r.conj(), rng.uniform(-radius, radius, order - 2 * k)]
    return 2 * np.real(np.poly(roots))


@pytest.mark.parametrize("nb,na", [(1, 1), (31, 1), (2000, 1), (7000, 1), (40, 3),
                                   (40, 21)])
def test_lfilter_fir_and_split(nb, na):
    """One a coefficient (convolution kernel, with shared memory and, for
    7000 taps, without), and states above 16 (convolution + all-pole: the
    all-pole part scanned for order 2, serial for order 20)."""
    rng = np.random.default_rng(nb + na)
    b = rng.standard_normal(nb)
    a = _stable_a(na - 1, rng) if na > 1 else np.array([2.0])
    for n in (7, 5000):
        x = rng.standard_normal((2, n))
        d = max(nb, na) - 1
        zi = rng.standard_normal((2, d))
        y, zf = G.lfilter(b, a, dev(x), zi=dev(zi))
        ref, zref = ss.lfilter(b, a, x, zi=zi)
        scale = np.abs(ref).max()
        np.testing.assert_allclose(host(y), ref, rtol=1e-10, atol=1e-12 * scale)
        np.testing.assert_allclose(host(zf), zref, rtol=1e-10, atol=1e-12 * scale)


def test_lfilter_fir_dtypes_and_axis():
    rng = np.random.default_rng(8)
    b = rng.standard_normal(9).astype(np.float32)
    x = rng.standard_normal((300, 6)).astype(np.float32)
    y = G.lfilter(b, [1.0], dev(x), axis=0)
    ref = ss.lfilter(b, [1.0], x, axis=0)
    assert y.dtype == ref.dtype
    np.testing.assert_allclose(host(y), ref, rtol=RTOL["d"], atol=1e-12)
    y = G.lfilter(b, np.float32([2.0]), dev(x), axis=0)
    np.testing.assert_allclose(host(y), ss.lfilter(b, np.float32([2.0]), x, axis=0),
                               rtol=RTOL["f"], atol=1e-5)


# ------------------------------------------------------------------ sosfilt

@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("n", [3, 64, 4096, 16385, 1 << 20])
def test_sosfilt_lengths_dtypes(dtype, n):
    rng = np.random.default_rng(n)
    sos = ss.butter(8, 0.05, output="sos").astype(dtype)
    x = _data(rng, (1, n), dtype)
    zi = _data(rng, (4, 1, 2), dtype)
    y, zf = G.sosfilt(dev(sos), dev(x), zi=dev(zi))
    ref, zref = ss.sosfilt(sos, x, zi=zi)
    hp = high_precision(ref.dtype)
    ref_hp, zref_hp = ss.sosfilt(sos.astype(hp), x.astype(hp), zi=zi.astype(hp))
    assert host(y).dtype == ref.dtype and zf.shape == zref.shape
    check_blocked(host(y), ref, ref_hp)
    check_blocked(host(zf), zref, zref_hp)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("nch,n", [(1, 1 << 20), (3, 300_001)])
def test_segmented_carry(monkeypatch, dtype, nch, n):
    """The opt-in segmented carry (several carry blocks per channel) on the
    device: sosfilt and lfilter with zi against SciPy."""
    monkeypatch.setattr(K, "SEGMENTED_CARRY", True)
    rng = np.random.default_rng(n + nch)
    sos = ss.butter(8, 0.05, output="sos").astype(dtype)
    assert K.plan(nch, n, 8, True).S > 0
    x = _data(rng, (nch, n), dtype)
    zi = _data(rng, (4, nch, 2), dtype)
    y, zf = G.sosfilt(dev(sos), dev(x), zi=dev(zi))
    ref, zref = ss.sosfilt(sos, x, zi=zi)
    hp = high_precision(ref.dtype)
    ref_hp, zref_hp = ss.sosfilt(sos.astype(hp), x.astype(hp), zi=zi.astype(hp))
    check_blocked(host(y), ref, ref_hp)
    check_blocked(host(zf), zref, zref_hp)
    b, a = ss.butter(4, 0.1)
    zi = _data(rng, (nch, 4), dtype)
    y, zf = G.lfilter(b, a, dev(x), zi=dev(zi))
    _ba_check(b, a, x, y, zi=zi, zf=zf)


def test_sosfilt_many_channels():
    """1024 x 65536 float64, order 8 (fused plan, 64 threads per channel)."""
    rng = np.random.default_rng(9)
    sos = ss.butter(8, 0.1, output="sos")
    x = rng.standard_normal((1024, 65536))
    y = host(G.sosfilt(sos, dev(x)))
    rows = [0, 511, 1023]
    check_blocked(y[rows], ss.sosfilt(sos, x[rows]),
                  ss.sosfilt(sos.astype("g"), x[rows].astype("g")))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_sosfilt_axes_strides_zi(axis):
    rng = np.random.default_rng(axis)
    sos = ss.cheby2(6, 40, 0.3, output="sos")
    x = rng.standard_normal((5, 70, 40))
    xv = x[::-1, :, ::2]
    zshape = [3] + list(xv.shape)
    zshape[axis + 1] = 2
    zi = rng.standard_normal(zshape)
    y, zf = G.sosfilt(sos, dev(x)[::-1, :, ::2], axis=axis, zi=dev(zi))
    ref, zref = ss.sosfilt(sos, xv, axis=axis, zi=zi)
    ref_hp, zref_hp = ss.sosfilt(sos.astype("g"), xv.astype("g"), axis=axis,
                                 zi=zi.astype("g"))
    check_blocked(host(y), ref, ref_hp)
    check_blocked(host(zf), zref, zref_hp)
    # zf goes back to SciPy
    ss.sosfilt(sos, xv, axis=axis, zi=host(zf))


def test_sosfilt_many_sections_and_poles_near_the_unit_circle():
    """20 sections (three passes of at most 8) and cheby1(6, 0.002)."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 100_000))
    for sos in (ss.butter(40, 0.2, output="sos"), ss.cheby1(6, 1, 0.002, output="sos")):
        zi = rng.standard_normal((sos.shape[0], 2, 2))
        y, zf = G.sosfilt(sos, dev(x), zi=dev(zi))
        ref, zref = ss.sosfilt(sos, x, zi=zi)
        ref_hp, zref_hp = ss.sosfilt(sos.astype("g"), x.astype("g"), zi=zi.astype("g"))
        check_blocked(host(y), ref, ref_hp)
        check_blocked(host(zf), zref, zref_hp)


def test_sosfilt_small_input_is_one_launch(monkeypatch):
    """4096 samples: one kernel (the fused plan) and no workspace."""
    calls = []
    real = K._function

    def counting(*args, **kw):
        f = real(*args, **kw)
        calls.append(args[0])
        return f

    monkeypatch.setattr(K, "_function", counting)
    sos = ss.butter(8, 0.1, output="sos")
    x = dev(np.random.default_rng(0).standard_normal(4096))
    G.sosfilt(sos, x)
    assert calls == ["fused"]


# ------------------------------------------------------------------ helpers and filtfilt

def test_zi_helpers_are_scipy():
    b, a = ss.cheby1(4, 1, 0.3)
    np.testing.assert_array_equal(host(G.lfilter_zi(b, a)), ss.lfilter_zi(b, a))
    np.testing.assert_array_equal(host(G.lfiltic(b, a, [1.0, 0.5], [0.2])),
                                  ss.lfiltic(b, a, [1.0, 0.5], [0.2]))
    sos = ss.butter(6, 0.2, output="sos")
    np.testing.assert_array_equal(host(G.sosfilt_zi(dev(sos))), ss.sosfilt_zi(sos))


@pytest.mark.parametrize("padtype,padlen", [("odd", None), ("even", 10), ("constant", 0),
                                            (None, None)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_filtfilt_pad(padtype, padlen, dtype):
    rng = np.random.default_rng(13)
    b, a = ss.butter(4, 0.1)
    x = _data(rng, (3, 3000), dtype)
    y = FF.filtfilt(b, a, dev(x), padtype=padtype, padlen=padlen)
    ref = ss.filtfilt(b, a, x, padtype=padtype, padlen=padlen)
    assert y.shape == ref.shape and host(y).dtype == ref.dtype
    np.testing.assert_allclose(host(y), ref, rtol=1e-9, atol=1e-11 * np.abs(ref).max())
    sos = ss.butter(4, 0.1, output="sos")
    y = FF.sosfiltfilt(sos, dev(x.T), axis=0, padtype=padtype, padlen=padlen)
    ref = ss.sosfiltfilt(sos, x.T, axis=0, padtype=padtype, padlen=padlen)
    np.testing.assert_allclose(host(y), ref, rtol=1e-9, atol=1e-11 * np.abs(ref).max())


@pytest.mark.parametrize("irlen", [None, 60])
def test_filtfilt_gust(irlen):
    rng = np.random.default_rng(14)
    b, a = ss.cheby1(3, 1, 0.2)
    for x in (rng.standard_normal(500), rng.standard_normal((4, 300)).T):
        axis = 0 if x.ndim == 2 else -1
        y = FF.filtfilt(b, a, dev(np.ascontiguousarray(x)), axis=axis, method="gust",
                       irlen=irlen)
        ref = ss.filtfilt(b, a, x, axis=axis, method="gust", irlen=irlen)
        np.testing.assert_allclose(host(y), ref, rtol=1e-9, atol=1e-11)
