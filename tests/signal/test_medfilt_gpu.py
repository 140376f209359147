"""GPU parity of medfilt, medfilt2d and order_filter against SciPy.

Every dtype SciPy accepts (integers of every width, float32, float64),
1-D windows 1, 3, 31, 49, 51, 101 (every kernel: network, ring, window),
2-D windows (3, 3), (5, 7), (11, 11), masks with holes, ranks 0, middle,
-1, even sizes and other errors as SciPy raises them, empty inputs,
size-1 axes, non-contiguous, transposed and negative-stride inputs, inf
(exact parity) and NaN (SciPy's value wherever a window holds no NaN; the
NumPy reference, NaN sorting last, everywhere). Selections are exact: no
tolerance. uint64 data stays below 2**63 (SciPy orders larger values as
negative; a documented difference).

GPUSCIPY_SIGNAL_EMULATE=1 runs this file on the CPU through the host
emulator of test_convolve_emulated (sizes marked ``big`` skipped).
"""

import os
import types
import warnings
import zlib

import numpy as np
import pytest
import scipy.signal as ss

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

DTYPES = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"]


def _gp():
    if EMULATE:
        return _NP
    import gpuscipy_core as gp
    return gp


def _sig():
    import gpuscipy.signal as gs
    return gs


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _data(rng, shape, dt):
    dt = np.dtype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = (0 if dt.kind == "u" else max(info.min, -1000)), min(info.max, 1000)
        return rng.integers(lo, hi, shape, endpoint=True).astype(dt)
    return (rng.standard_normal(shape) * 100).astype(dt)


def _same(got, want):
    assert isinstance(got, _gp().ndarray) or (EMULATE and isinstance(got, np.generic))
    got, want = np.asarray(_gp().asnumpy(got)), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                 want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


# ------------------------------------------------------------------ medfilt

@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n,ks", [(1000, 1), (1000, 3), (1000, 31), (1000, 49), (1000, 51),
                                  (1000, 101), (40, 101), (1, 31),
                                  pytest.param(1 << 20, 31, marks=big)])
def test_medfilt_1d(dt, n, ks):
    v = _data(_rng("m1", dt, n, ks), n, dt)
    _same(_quiet(lambda: _sig().medfilt(_gp().asarray(v), ks)),
          _quiet(lambda: ss.medfilt(v, ks)))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,ks", [((64, 70), [3, 3]), ((64, 70), [5, 7]),
                                      ((64, 70), [11, 11]), ((5, 300), [1, 31]),
                                      ((300, 5), [51, 1]), ((9, 10, 11), [3, 5, 3]),
                                      ((4, 5, 6, 7), 3)])
def test_medfilt_nd(dt, shape, ks):
    v = _data(_rng("mn", dt, shape), shape, dt)
    _same(_quiet(lambda: _sig().medfilt(_gp().asarray(v), ks)),
          _quiet(lambda: ss.medfilt(v, ks)))


# ------------------------------------------------------------------ medfilt2d

@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape,ks", [((64, 70), 3), ((64, 70), [5, 7]), ((64, 70), 11),
                                      ((70, 64), [1, 31]), ((7, 9), 11), ((1, 40), 3),
                                      ((40, 1), [5, 3]),
                                      pytest.param((1024, 1024), 5, marks=big),
                                      pytest.param((512, 512), 11, marks=big)])
def test_medfilt2d(dt, shape, ks):
    v = _data(_rng("m2", dt, shape, str(ks)), shape, dt)
    _same(_quiet(lambda: _sig().medfilt2d(_gp().asarray(v), ks)),
          _quiet(lambda: ss.medfilt2d(v, ks)))


def test_medfilt2d_errors_and_fallback():
    gp, gs = _gp(), _sig()
    x = np.arange(30.0).reshape(5, 6)
    for a, ks, exc, msg in ((x, 4, ValueError, "should be odd"),
                            (x, [3, 2], ValueError, "should be odd"),
                            (x[0], 3, ValueError, "too small depth"),
                            (x[None], 3, ValueError, "too deep"),
                            (x, [3], ValueError, "length two sequence"),
                            (x, [3.0, 3], TypeError, "Cannot cast"),
                            (x.astype(np.float16), 3, ValueError, "not supported by medfilt"),
                            (x.astype(bool), 3, ValueError, "not supported by medfilt")):
        with pytest.raises(exc, match=msg):
            ss.medfilt2d(a, ks)
        with pytest.raises(exc, match=msg):
            gs.medfilt2d(gp.asarray(a), ks)
    # other dtypes take medfilt: any ndim, its warning
    v = _data(_rng("fb"), (4, 5, 6), "i4")
    _same(gs.medfilt2d(gp.asarray(v), 3), ss.medfilt(v, 3))
    with pytest.warns(UserWarning, match="exceeds volume extent"):
        gs.medfilt2d(gp.asarray(x.astype(np.int32)), 7)


# ------------------------------------------------------------------ order_filter

def _domains(rng):
    holes = rng.random((5, 7)) < 0.5
    holes[2, 3] = True
    return [(np.ones((3, 3)), [0, 4, -1]), (holes, [0, int(holes.sum()) // 2, -1]),
            (np.ones((11, 11)), [0, 60, 119, -1]), (np.eye(3), [1]),
            (np.ones((1, 31)), [5, 15]), (np.ones((49, 1)), [30])]


@pytest.mark.parametrize("dt", DTYPES)
def test_order_filter_2d(dt):
    rng = _rng("of2", dt)
    v = _data(rng, (60, 50), dt)
    gv = _gp().asarray(v)
    for dom, ranks in _domains(rng):
        for r in ranks:
            _same(_sig().order_filter(gv, dom, r), ss.order_filter(v, dom, r))


@pytest.mark.parametrize("dt", ["i2", "u4", "i8", "f4", "f8"])
def test_order_filter_1d_and_3d(dt):
    rng = _rng("of13", dt)
    x = _data(rng, 700, dt)
    gx = _gp().asarray(x)
    for ks, r in ((1, 0), (3, 1), (31, 5), (49, 48), (51, 0), (101, 77)):
        _same(_sig().order_filter(gx, np.ones(ks), r), ss.order_filter(x, np.ones(ks), r))
    # a 1-D domain with zeros: SciPy's N-d path is the reference (its 1-D
    # path ignores the zeros for ranks other than the extremes)
    dom = np.array([1, 1, 0, 1, 0, 1, 1])
    for r in (0, 2, 4):
        _same(_sig().order_filter(gx, dom, r), ss.order_filter(x[None], dom[None], r)[0])
    v = _data(rng, (9, 10, 11), dt)
    m = rng.random((3, 3, 5)) < 0.6
    m[1, 1, 2] = True
    for r in (0, int(m.sum()) // 2, -1):
        _same(_sig().order_filter(_gp().asarray(v), m, r), ss.order_filter(v, m, r))


def test_order_filter_errors():
    gp, gs = _gp(), _sig()
    x = np.arange(30.0).reshape(5, 6)
    for dom, r, exc, msg in ((np.ones((2, 3)), 0, ValueError, "odd number"),
                             (np.ones(3), 0, RuntimeError, "must match"),
                             (np.ones((3, 3)), 9, RuntimeError, "rank not within"),
                             (np.ones((3, 3)), -10, RuntimeError, "rank not within"),
                             (np.zeros((3, 3)), 0, RuntimeError, "rank not within"),
                             (np.ones((3, 3)), 1.5, TypeError, "integer")):
        with pytest.raises(exc, match=msg):
            ss.order_filter(x, dom, r)
        with pytest.raises(exc, match=msg):
            gs.order_filter(gp.asarray(x), dom, r)
    for dt in (bool, np.float16, np.complex64):
        with pytest.raises(ValueError, match="not supported by order_filter"):
            ss.order_filter(x.astype(dt), np.ones((3, 3)), 0)
        with pytest.raises(ValueError, match="not supported by order_filter"):
            gs.order_filter(gp.asarray(x.astype(dt)), np.ones((3, 3)), 0)


# ------------------------------------------------------------------ layouts, edges

def test_strided_reversed_and_fortran():
    gp, gs = _gp(), _sig()
    rng = _rng("layout")
    base = _data(rng, (80, 90), "f8")
    gbase = gp.asarray(base)
    views = [(lambda a: a[::-2, 1::3]), (lambda a: a.T), (lambda a: a[:, ::-1]),
             (lambda a: a[5:60:3, ::-2])]
    for view in views:
        h, g = view(base), view(gbase)
        for ks in ([3, 3], [5, 7], [11, 11], [1, 31], [31, 1]):
            _same(_quiet(lambda: gs.medfilt(g, ks)), _quiet(lambda: ss.medfilt(h, ks)))
            _same(gs.medfilt2d(g, ks), _quiet(lambda: ss.medfilt2d(h, ks)))
        dom = rng.random((5, 5)) < 0.5
        dom[2, 2] = True
        _same(gs.order_filter(g, dom, 3), ss.order_filter(h, dom, 3))
    f = np.asfortranarray(base.astype(np.float32))
    _same(gs.medfilt2d(gp.asarray(f), 5), ss.medfilt2d(f, 5))
    x = _data(rng, 3000, "i8")
    gx = gp.asarray(x)
    _same(gs.medfilt(gx[::-3], 31), ss.medfilt(x[::-3], 31))
    _same(gs.medfilt(gx[7::2], 101), ss.medfilt(x[7::2], 101))


def test_empty_0d_and_size_one():
    gp, gs = _gp(), _sig()
    for shape in ((0,), (0, 5), (4, 0)):
        e = np.zeros(shape, np.float32)
        _same(_quiet(lambda: gs.medfilt(gp.asarray(e), 3)), _quiet(lambda: ss.medfilt(e, 3)))
        if len(shape) == 2:
            _same(gs.medfilt2d(gp.asarray(e), 3), ss.medfilt2d(e, 3))
        dom = np.ones((3,) * len(shape))
        _same(gs.order_filter(gp.asarray(e), dom, 1), ss.order_filter(e, dom, 1))
    one = np.array([7.5])
    _same(_quiet(lambda: gs.medfilt(gp.asarray(one), 31)),
          _quiet(lambda: ss.medfilt(one, 31)))
    _same(gs.order_filter(gp.asarray(np.float64(2.5)), np.ones(()), 0),
          ss.order_filter(np.float64(2.5), np.ones(()), 0))
    for shape in ((1, 64), (64, 1), (1, 1)):
        v = _data(_rng("s1", shape), shape, "f8")
        for ks in (3, [1, 31], [31, 1], 11):
            _same(gs.medfilt2d(gp.asarray(v), ks), ss.medfilt2d(v, ks))


@pytest.mark.parametrize("dt", ["f4", "f8"])
def test_nan_and_inf(dt):
    from gpuscipy.signal import _convolve_medfilt as M
    gp, gs = _gp(), _sig()
    rng = _rng("naninf", dt)
    v = _data(rng, (50, 60), dt)
    v.flat[rng.integers(v.size, size=40)] = np.inf
    v.flat[rng.integers(v.size, size=40)] = -np.inf
    inf_only = v.copy()
    v.flat[rng.integers(v.size, size=15)] = np.nan
    nan_pos = np.isnan(v)
    for ks in ([3, 3], [5, 7], [11, 11], [1, 31], [51, 1]):
        # inf: exact parity
        _same(gs.medfilt2d(gp.asarray(inf_only), ks), ss.medfilt2d(inf_only, ks))
        _same(_quiet(lambda: gs.medfilt(gp.asarray(inf_only), ks)),
              _quiet(lambda: ss.medfilt(inf_only, ks)))
        # NaN: the reference everywhere, SciPy where no window element is NaN
        m = np.ones(ks, bool)
        ref = M.model_order(v, m, m.size // 2)
        got = np.asarray(gp.asnumpy(gs.medfilt2d(gp.asarray(v), ks)))
        np.testing.assert_array_equal(got, ref)
        clean = M.model_order(nan_pos.astype(np.uint8), m, m.size - 1) == 0
        assert clean.any() and (~clean).any()
        want = _quiet(lambda: ss.medfilt(v, ks))
        np.testing.assert_array_equal(got[clean], want[clean])
        # ranks other than the extremes: SciPy's rank path (its minimum and
        # maximum filters can go wrong next to a NaN, outside its window)
        np.testing.assert_array_equal(
            np.asarray(gp.asnumpy(gs.order_filter(gp.asarray(v), m, 1)))[clean],
            ss.order_filter(v, m, 1)[clean])
        for r in (0, -1):
            np.testing.assert_array_equal(
                np.asarray(gp.asnumpy(gs.order_filter(gp.asarray(v), m, r))),
                M.model_order(v, m, r % m.size))
