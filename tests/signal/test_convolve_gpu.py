"""GPU parity tests of the convolution family against SciPy.

convolve, correlate (every method), fftconvolve, oaconvolve,
choose_conv_method, correlation_lags, convolve2d, correlate2d, hilbert,
medfilt, savgol_filter: values, dtypes, shapes and errors, on random data
and edge cases (length 1, shorter than the filter, empty, 0-d, NaN,
non-contiguous and negative strides, any axis, batches, every dtype SciPy
accepts).

Tolerances, relative to the largest magnitude of SciPy's result:
* direct method, float64/complex128: 1e-12 (the same sums in another
  order); float32/complex64: 2e-6 * sqrt(terms); float16: 2e-3 (computed
  in float32, rounded once, as NumPy); integers and bool: exact;
* FFT methods: 1e-11 (float64) and 2e-5 (float32) - cuFFT and pocketFFT
  round differently, and overlap-add blocks are transformed at other
  lengths than one padded transform;
* medfilt: exact (a selection); savgol float64 1e-10, float32 2e-4 (SciPy
  filters float32 data in float64 and fits its edges in float32).
"""

import os
import types
import warnings

import numpy as np
import pytest
import scipy.signal as ss

from ._convolve_checks import close
from ._convolve_checks import data as _data
from ._convolve_checks import tol_direct as _tol_direct

# GPUSCIPY_SIGNAL_EMULATE=1 runs this file on the CPU: NumPy arrays for the
# device, the kernels through test_convolve_emulated's host emulator, and
# scipy.fft for cuFFT (a check of the tests themselves; sizes marked `big`
# are skipped there).
EMULATE = os.environ.get("GPUSCIPY_SIGNAL_EMULATE") == "1"
pytestmark = [] if EMULATE else [pytest.mark.gpu]
big = pytest.mark.skipif(EMULATE, reason="too large for the host emulator")
_NP = types.SimpleNamespace(asarray=np.asarray, asnumpy=np.asarray, ndarray=np.ndarray)

if EMULATE:
    from tests.signal.test_convolve_emulated import emu  # noqa: F401 (fixture)

    @pytest.fixture(autouse=True)
    def _emulated(emu, monkeypatch):  # noqa: F811
        from gpuscipy.signal import _convolve_direct as D
        monkeypatch.setattr(D, "launch", emu)
        monkeypatch.setattr(D, "device_xp", lambda: np)


def _gp():
    if EMULATE:
        return _NP
    import gpuscipy_core as gp
    return gp


def _sig():
    from gpuscipy.signal import _convolve
    return _convolve


def _host(x):
    return _gp().asnumpy(x) if isinstance(x, _gp().ndarray) else np.asarray(x)


def _close(got, want, rtol=1e-12):
    assert isinstance(got, _gp().ndarray) or (EMULATE and isinstance(got, np.generic)), \
        type(got)
    close(_host(got), want, rtol)


def _tol_fft(dt):
    return 2e-5 if np.dtype(dt).char in "efF" else 1e-11


DTYPES = ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "e", "f4", "f8", "c8",
          "c16"]
SHAPES_1D = [(1, 1), (5, 3), (3, 5), (100, 7), (7, 100), (4000, 511), (1000, 1000),
             (64, 1)]


# ------------------------------------------------------------ convolve/correlate

@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n1,n2", SHAPES_1D)
@pytest.mark.parametrize("method", ["direct", "fft", "auto"])
@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_convolve_correlate_1d(dt, n1, n2, method, name):
    rng = np.random.default_rng(n1 * 3 + n2)
    a, b = _data(rng, n1, dt), _data(rng, n2, dt)
    f, g = getattr(ss, name), getattr(_sig(), name)
    for mode in ("full", "same", "valid"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = f(a, b, mode, method=method)
                if dt == "?" and method == "fft":
                    # SciPy casts the unrounded float result to bool (round-off
                    # makes some zeros True); ours rounds first: the exact result
                    want = f(a.astype(int), b.astype(int), mode, method="direct") != 0
            except ValueError as e:
                with pytest.raises(ValueError, match=str(e)):
                    g(_gp().asarray(a), _gp().asarray(b), mode, method)
                continue
        got = g(_gp().asarray(a), _gp().asarray(b), mode, method)
        if method == "direct":
            tol = _tol_direct(dt, min(n1, n2))
        elif np.dtype(dt).kind in "biu":
            tol = 0
        else:
            tol = max(_tol_fft(dt), _tol_direct(dt, min(n1, n2)))
        _close(got, want, tol)


ND = [((6, 300), (1, 25)), ((300, 5), (25, 1)), ((300, 40), (25, 1)),
      ((4, 300, 12), (1, 9, 1)), ((70, 90), (5, 7)), ((3, 40, 50), (1, 40, 3)),
      ((20, 30), (35, 40)), ((6, 7, 8), (3, 2, 4)), ((2, 3, 4, 5), (2, 2, 1, 3)),
      pytest.param((512, 512), (3, 3), marks=big), ((64, 64), (31, 31))]


@pytest.mark.parametrize("dt", ["f8", "f4", "c16", "i2", "u1"])
@pytest.mark.parametrize("s1,s2", ND)
@pytest.mark.parametrize("method", ["direct", "fft", "auto"])
def test_convolve_nd(dt, s1, s2, method):
    rng = np.random.default_rng(sum(s1) + sum(s2))
    a, b = _data(rng, s1, dt), _data(rng, s2, dt)
    for mode in ("full", "same", "valid"):
        for name in ("convolve", "correlate"):
            f, g = getattr(ss, name), getattr(_sig(), name)
            try:
                want = f(a, b, mode, method=method)
            except ValueError as e:
                with pytest.raises(ValueError, match=str(e)):
                    g(_gp().asarray(a), _gp().asarray(b), mode, method)
                continue
            got = g(_gp().asarray(a), _gp().asarray(b), mode, method)
            tol = _tol_direct(dt, b.size) if method == "direct" else (
                0 if np.dtype(dt).kind in "iu" else _tol_fft(dt))
            _close(got, want, tol)


def test_strided_and_host_inputs():
    gp = _gp()
    rng = np.random.default_rng(1)
    x = rng.standard_normal(5000)
    h = rng.standard_normal(60) + 1j * rng.standard_normal(60)
    xd, hd = gp.asarray(x), gp.asarray(h)
    for xs, xh in ((xd[::-1], x[::-1]), (xd[::3], x[::3]), (xd[10:4000:7][::-1],
                                                            x[10:4000:7][::-1])):
        for hs, hh in ((hd, h), (hd[::-2], h[::-2])):
            for method in ("direct", "fft"):
                _close(_sig().correlate(xs, hs, "same", method),
                       ss.correlate(xh, hh, "same", method), 1e-11)
                _close(_sig().convolve(hs, xs, "full", method),
                       ss.convolve(hh, xh, "full", method), 1e-11)
    # NumPy arrays and lists are accepted (copied to the device)
    _close(_sig().convolve(x[:50], [1.0, 2.0, 3.0]), ss.convolve(x[:50], [1.0, 2.0, 3.0]))
    m = rng.standard_normal((40, 30))
    _close(_sig().convolve2d(m.T, m[:5, :3]), ss.convolve2d(m.T, m[:5, :3]))


@pytest.mark.parametrize("dt", ["f4", "f8"])
def test_fft_real_1d_views_and_repeated_calls(dt):
    # the 1-D real route pads each input in one launch (reversed and strided
    # views read in place) and scales the spectrum product; repeated calls
    # reuse the memoised plan and method
    gp = _gp()
    rng = np.random.default_rng(17)
    x = rng.standard_normal(6000).astype(dt)
    h = rng.standard_normal(900).astype(dt)
    xd, hd = gp.asarray(x), gp.asarray(h)
    tol = max(_tol_fft(dt), _tol_direct(dt, 300))
    for _ in range(2):
        for xs, xh in ((xd, x), (xd[::-1], x[::-1]), (xd[5:5000:3], x[5:5000:3])):
            for hs, hh in ((hd, h), (hd[::-2], h[::-2])):
                for mode in ("full", "same", "valid"):
                    for name in ("correlate", "convolve"):
                        got = getattr(_sig(), name)(xs, hs, mode, "fft")
                        want = getattr(ss, name)(xh, hh, mode, method="fft")
                        assert _host(got).dtype == want.dtype
                        _close(got, want, tol)
                    _close(_sig().fftconvolve(hs, xs, mode),
                           ss.fftconvolve(hh, xh, mode), tol)
    # integer inputs through the FFT: rounded, then cast (exact)
    xi = rng.integers(-50, 50, 3000).astype(np.int16)
    hi = rng.integers(-50, 50, 400).astype(np.int16)
    got = _sig().correlate(gp.asarray(xi), gp.asarray(hi), "same", "fft")
    want = ss.correlate(xi, hi, "same", method="direct")
    assert _host(got).dtype == want.dtype
    np.testing.assert_array_equal(_host(got), want)


def test_nan_inf_propagation_direct():
    x = np.arange(20.0)
    x[5] = np.nan
    x[12] = np.inf
    h = np.array([1.0, -2.0, 0.5])
    for name in ("convolve", "correlate"):
        _close(getattr(_sig(), name)(_gp().asarray(x), _gp().asarray(h), "same", "direct"),
               getattr(ss, name)(x, h, "same", method="direct"))


def test_zero_d_and_empty():
    gp = _gp()
    _close(_sig().convolve(gp.asarray(np.float32(3)), gp.asarray(np.int8(2))),
           ss.convolve(np.float32(3), np.int8(2)))
    _close(_sig().correlate(gp.asarray(2.0), gp.asarray(1 + 2j)), ss.correlate(2.0, 1 + 2j))
    _close(_sig().fftconvolve(gp.asarray(np.ones(0)), gp.asarray(np.ones(3))),
           ss.fftconvolve(np.ones(0), np.ones(3)))
    for method, exc in (("direct", ValueError), ("fft", IndexError), ("auto", ValueError)):
        with pytest.raises(exc):
            _sig().convolve(gp.asarray(np.ones(0)), gp.asarray(np.ones(3)), "full", method)
    _close(_sig().convolve(gp.asarray(np.ones((0, 2))), gp.asarray(np.ones((3, 3))),
                           "same", "direct"),
           ss.convolve(np.ones((0, 2)), np.ones((3, 3)), "same", method="direct"))


# ------------------------------------------------------------ FFT methods

@pytest.mark.parametrize("dt", ["f4", "f8", "c8", "c16", "i4", "?", "e"])
@pytest.mark.parametrize("s1,s2,axes", [((20000,), (101,), None), ((101,), (20000,), None),
                                        ((5000,), (2400,), None), ((3000,), (3000,), None),
                                        ((3, 5000), (1, 64), None), ((3, 5000), (3, 64), [1]),
                                        ((200, 300), (9, 11), None),
                                        ((200, 30), (9, 1), [0]),
                                        ((5, 4000, 3), (5, 33, 1), [1]),
                                        ((40, 50, 60), (3, 4, 5), None)])
@pytest.mark.parametrize("name", ["fftconvolve", "oaconvolve"])
def test_fft_methods(dt, s1, s2, axes, name):
    rng = np.random.default_rng(sum(s1))
    a, b = _data(rng, s1, dt), _data(rng, s2, dt)
    f, g = getattr(ss, name), getattr(_sig(), name)
    for mode in ("full", "same", "valid"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = f(a, b, mode, axes)
            except ValueError as e:
                with pytest.raises(ValueError, match=str(e)):
                    g(_gp().asarray(a), _gp().asarray(b), mode, axes)
                continue
        got = g(_gp().asarray(a), _gp().asarray(b), mode, axes)
        _close(got, want, _tol_fft(want.dtype) * (10 if dt == "e" else 1))


@big
def test_benchmark_case_fftconvolve_16m():
    """The benchmark case (16M x 511 float32), checked against float64."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(1 << 24).astype(np.float32)
    h = rng.standard_normal(511).astype(np.float32)
    got = _host(_sig().fftconvolve(_gp().asarray(x), _gp().asarray(h)))
    idx = rng.integers(0, got.size, 2000)
    xp = np.concatenate([np.zeros(510), x.astype(np.float64), np.zeros(510)])
    want = np.array([np.dot(xp[i:i + 511], h[::-1].astype(np.float64)) for i in idx])
    assert got.dtype == np.float32 and got.shape == ((1 << 24) + 510,)
    assert np.max(np.abs(got[idx] - want)) <= 2e-5 * np.sqrt(511) * np.max(np.abs(want))


# ------------------------------------------------------------ choose / lags

def test_choose_conv_method():
    gp = _gp()
    x = gp.asarray(np.ones(1 << 20, np.float32))
    assert _sig().choose_conv_method(x, gp.asarray(np.ones(15, np.float32))) == "direct"
    assert _sig().choose_conv_method(x, gp.asarray(np.ones(2047, np.float32))) == "fft"
    b = gp.asarray(np.ones(100, bool))
    assert _sig().choose_conv_method(b, b) == "direct"
    big = gp.asarray(np.full(1 << 16, 2 ** 30, np.int64))
    assert _sig().choose_conv_method(big, big) == "direct"      # beyond 2**52: exact
    method, times = _sig().choose_conv_method(x, gp.asarray(np.ones(511, np.float32)),
                                              measure=True)
    assert method in ("fft", "direct") and set(times) == {"fft", "direct"}
    assert all(t > 0 for t in times.values())
    assert method == min(times, key=times.get)
    with pytest.raises(ValueError, match="not mode=foo"):
        _sig().choose_conv_method(x, x, mode="foo")


@pytest.mark.parametrize("n1,n2", [(5, 3), (3, 5), (4, 4), (1, 7), (10, 1)])
def test_correlation_lags(n1, n2):
    for mode in ("full", "same", "valid"):
        _close(_sig().correlation_lags(n1, n2, mode), ss.correlation_lags(n1, n2, mode))
    with pytest.raises(ValueError, match="Mode x is invalid"):
        _sig().correlation_lags(n1, n2, "x")


# ------------------------------------------------------------ 2-D

@pytest.mark.parametrize("dt", ["f8", "f4", "c8", "c16", "i2", "u1", "i8"])
@pytest.mark.parametrize("boundary", ["fill", "wrap", "symm"])
@pytest.mark.parametrize("s1,s2", [((20, 30), (5, 7)), ((4, 5), (9, 11)),
                                   ((37, 70), (40, 3)), ((1, 50), (3, 1)),
                                   ((6, 6), (1, 1)), ((60, 20), (2, 18)),
                                   pytest.param((1024, 1024), (5, 5), marks=big)])
@pytest.mark.parametrize("name", ["convolve2d", "correlate2d"])
def test_convolve2d(dt, boundary, s1, s2, name):
    rng = np.random.default_rng(sum(s1) * 7 + sum(s2))
    a, b = _data(rng, s1, dt), _data(rng, s2, dt)
    f, g = getattr(ss, name), getattr(_sig(), name)
    for mode in ("full", "same", "valid"):
        for fill in (0, 3):
            try:
                want = f(a, b, mode, boundary, fill)
            except ValueError as e:
                with pytest.raises(ValueError, match=str(e)):
                    g(_gp().asarray(a), _gp().asarray(b), mode, boundary, fill)
                continue
            got = g(_gp().asarray(a), _gp().asarray(b), mode, boundary, fill)
            _close(got, want, _tol_direct(dt, b.size))


def test_convolve2d_errors():
    gp = _gp()
    x = gp.asarray(np.ones((3, 3)))
    with pytest.raises(ValueError, match="must both be 2-D"):
        _sig().convolve2d(x, x[0])
    with pytest.raises(ValueError, match="Acceptable boundary flags"):
        _sig().correlate2d(x, x, boundary="foo")
    with pytest.raises(ValueError, match="not available for this type"):
        _sig().convolve2d(gp.asarray(np.ones((3, 3), bool)), gp.asarray(np.ones((2, 2), bool)))
    with pytest.raises(ValueError, match="could not cast `fillvalue`"):
        with pytest.warns(np.exceptions.ComplexWarning):
            _sig().convolve2d(x, x, fillvalue=1j)


# ------------------------------------------------------------ hilbert

@pytest.mark.parametrize("dt", ["f8", "f4", "i2", "e"])
@pytest.mark.parametrize("shape,N,axis", [((4, 33), None, -1), ((4, 33), 40, -1),
                                          ((4, 33), 17, -1), ((4, 33), None, 0),
                                          ((5, 6, 7), 9, 1), ((1,), None, -1),
                                          pytest.param((1 << 20,), None, -1, marks=big)])
def test_hilbert(dt, shape, N, axis):
    rng = np.random.default_rng(1)
    x = _data(rng, shape, dt)
    _close(_sig().hilbert(_gp().asarray(x), N, axis), ss.hilbert(x, N, axis),
           _tol_fft(dt) * (10 if dt == "e" else 1))


def test_hilbert_errors():
    gp = _gp()
    with pytest.raises(ValueError, match="x must be real."):
        _sig().hilbert(gp.asarray(np.ones(4) + 1j))
    with pytest.raises(ValueError, match="N must be positive."):
        _sig().hilbert(gp.asarray(np.ones(4)), 0)


# ------------------------------------------------------------ medfilt

@pytest.mark.parametrize("dt", ["f8", "f4", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"])
@pytest.mark.parametrize("shape,ks", [((500,), 5), ((500,), 51), ((300,), 101),
                                      ((40, 50), 3), ((40, 50), [7, 7]), ((30, 20), [9, 9]),
                                      ((10, 12, 14), 3), ((9, 10, 11), [5, 3, 3]),
                                      ((4, 5, 6, 7), 3), ((3,), 5), ((6, 7), [1, 3]),
                                      pytest.param((1024, 1024), 5, marks=big),
                                      pytest.param((1 << 20,), 11, marks=big)])
def test_medfilt(dt, shape, ks):
    rng = np.random.default_rng(len(shape))
    v = _data(rng, shape, dt) if dt[0] != "f" else (rng.standard_normal(shape) * 50
                                                    ).astype(dt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ss.medfilt(v, ks)
        got = _sig().medfilt(_gp().asarray(v), ks)
    _close(got, want)


def test_medfilt_strided_and_errors():
    gp = _gp()
    rng = np.random.default_rng(3)
    v = rng.standard_normal((60, 80))
    _close(_sig().medfilt(gp.asarray(v)[::-2, 1::3], [3, 5]),
           ss.medfilt(v[::-2, 1::3], [3, 5]))
    with pytest.raises(ValueError, match="should be odd"):
        _sig().medfilt(gp.asarray(v), 4)
    with pytest.raises(ValueError, match="not supported by medfilt"):
        _sig().medfilt(gp.asarray(v.astype(np.float16)))
    with pytest.warns(UserWarning, match="exceeds volume extent"):
        _sig().medfilt(gp.asarray(v[:2]), 5)


# ------------------------------------------------------------ savgol

@pytest.mark.parametrize("mode", ["interp", "mirror", "constant", "nearest", "wrap"])
@pytest.mark.parametrize("wl,po,deriv", [(11, 3, 0), (10, 4, 1), (7, 2, 2), (1, 0, 0),
                                         (5, 4, 5), (31, 5, 0), (101, 3, 1)])
def test_savgol_filter(mode, wl, po, deriv):
    rng = np.random.default_rng(wl)
    x = rng.standard_normal((3, 400))
    for axis, data in ((-1, x), (0, x.T.copy()), (1, x[:, ::-1]), (0, x.T[:, :1])):
        want = ss.savgol_filter(data, wl, po, deriv, 0.5, axis, mode, 0.7)
        _close(_sig().savgol_filter(_gp().asarray(data), wl, po, deriv, 0.5, axis, mode,
                                    0.7), want, 1e-10)
    x32 = x.astype(np.float32)
    want = ss.savgol_filter(x32, wl, po, deriv, 0.5, -1, mode, 0.7)
    _close(_sig().savgol_filter(_gp().asarray(x32), wl, po, deriv, 0.5, -1, mode, 0.7),
           want, 2e-4)
    xi = rng.integers(-9, 9, (2, 300))
    _close(_sig().savgol_filter(_gp().asarray(xi), wl, po, deriv, mode=mode),
           ss.savgol_filter(xi, wl, po, deriv, mode=mode), 1e-10)


def test_savgol_errors():
    gp = _gp()
    x = gp.asarray(np.ones(10))
    with pytest.raises(ValueError, match="mode must be"):
        _sig().savgol_filter(x, 5, 2, mode="x")
    with pytest.raises(ValueError, match="polyorder must be less than window_length"):
        _sig().savgol_filter(x, 5, 5)
    with pytest.raises(ValueError, match="must be less than or equal to the size of x"):
        _sig().savgol_filter(x, 11, 2)


def test_savgol_nonfinite():
    gp = _gp()
    v = np.arange(40.0).reshape(2, 20).T.copy()           # lines along axis 0
    v[-3, 1] = np.nan                                     # in the last edge window
    for view in (v, v[::-1]):
        with pytest.raises(ValueError, match="must not contain infs or NaNs"):
            _sig().savgol_filter(gp.asarray(view), 5, 2, axis=0)
    _close(_sig().savgol_filter(gp.asarray(v), 5, 2, axis=0, mode="mirror"),
           ss.savgol_filter(v, 5, 2, axis=0, mode="mirror"))
    w = np.arange(30.0)
    w[5], w[15] = np.inf, np.nan                          # interior: only spreads
    got = _host(_sig().savgol_filter(gp.asarray(w), 5, 2))
    want = ss.savgol_filter(w, 5, 2)
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    ok = np.isfinite(want)
    close(got[ok], want[ok], 1e-12)
