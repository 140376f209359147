"""GPU parity tests of gpuscipy.fft against scipy.fft.

Tolerances are relative to the largest magnitude of SciPy's result
(an FFT spreads rounding errors over the whole output): float32/complex64
3e-6 * log2(n) (cuFFT and pocketfft both have O(eps log n) error), float64
1e-13 * log2(n) -- well within the "1e-5 / 1e-12" of DESIGN.md.
"""

import math

import numpy as np
import pytest
import scipy.fft as sfft

import gpuscipy.fft as gfft

from ..core._parity import random_array

pytestmark = pytest.mark.gpu

NORMS = (None, "backward", "ortho", "forward")
REAL_DTYPES = ("f2", "f4", "f8", "i4", "u1", "?")
ALL_DTYPES = REAL_DTYPES + ("c8", "c16")


def _gp():
    import gpuscipy_core as gp
    return gp


def _tol(dtype, n):
    lg = max(1.0, math.log2(max(n, 2)))
    return (3e-6 if np.dtype(dtype).char in "fF" else 1e-13) * lg


def _cmp(got, want, n=None, err=""):
    gp = _gp()
    assert isinstance(got, gp.ndarray), f"{err}: got {type(got).__name__}"
    host = gp.asnumpy(got)
    want = np.asarray(want)
    assert host.dtype == want.dtype, f"{err}: dtype {host.dtype} != {want.dtype}"
    assert host.shape == want.shape, f"{err}: shape {host.shape} != {want.shape}"
    assert got.flags.c_contiguous, f"{err}: result not C-contiguous"
    if want.size == 0:
        return
    n = want.size if n is None else n
    scale = float(np.max(np.abs(want)))
    if not np.isfinite(scale):
        np.testing.assert_array_equal(np.isnan(host), np.isnan(want), err_msg=err)
        return
    np.testing.assert_allclose(host, want, rtol=0,
                               atol=_tol(want.dtype, n) * max(scale, 1e-30),
                               err_msg=err)


def _same(gfun, sfun, xh, *args, tol_n=None, **kw):
    """Call both; same exception type (and message) or matching results."""
    gp = _gp()
    xd = gp.asarray(xh)
    try:
        want = sfun(xh, *args, **kw)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as info:
            gfun(xd, *args, **kw)
        if isinstance(e, (ValueError, TypeError)):
            assert str(info.value) == str(e), (str(info.value), str(e))
        return None
    got = gfun(xd, *args, **kw)
    _cmp(got, want, tol_n, f"{sfun.__name__}{args}{kw} on {xh.dtype}{xh.shape}")
    # the input is left alone
    np.testing.assert_array_equal(gp.asnumpy(xd), xh)
    return got


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "fc":
        return random_array(shape, dtype, rng, low=-1, high=1)
    return random_array(shape, dtype, rng)


# ---------------------------------------------------------------------------
# 1-D FFTs
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("norm", NORMS)
def test_c2c_1d(name, dtype, norm):
    g, s = getattr(gfft, name), getattr(sfft, name)
    for shape, n, axis in (((16,), None, -1), ((15,), None, 0), ((4, 12), 7, -1),
                           ((4, 12), 20, 1), ((6, 5, 3), None, 1), ((6, 5, 3), 8, 0),
                           ((3, 4, 12), None, 1), ((1,), None, -1), ((97,), None, -1)):
        _same(g, s, _data(shape, dtype), n=n, axis=axis, norm=norm)


@pytest.mark.parametrize("name", ["rfft", "ihfft"])
@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("norm", NORMS)
def test_r2c_1d(name, dtype, norm):
    g, s = getattr(gfft, name), getattr(sfft, name)
    for shape, n, axis in (((16,), None, -1), ((15,), None, 0), ((4, 12), 7, -1),
                           ((4, 12), 20, 0), ((6, 5, 3), None, 1), ((12, 5, 3), 9, 1),
                           ((2,), None, -1), ((1,), None, -1)):
        _same(g, s, _data(shape, dtype), n=n, axis=axis, norm=norm)


@pytest.mark.parametrize("name", ["irfft", "hfft"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("norm", NORMS)
def test_c2r_1d(name, dtype, norm):
    g, s = getattr(gfft, name), getattr(sfft, name)
    for shape, n, axis in (((9,), None, -1), ((9,), 16, -1), ((9,), 17, -1),
                           ((4, 7), 5, -1), ((4, 7), None, 0), ((6, 5, 3), 8, 1),
                           ((12, 5, 3), None, 1), ((2,), None, -1), ((5,), 1, -1),
                           ((5,), 0, -1), ((5,), -1, -1), ((5,), -3, -1)):
        _same(g, s, _data(shape, dtype), n=n, axis=axis, norm=norm)


# ---------------------------------------------------------------------------
# n-D FFTs
# ---------------------------------------------------------------------------

ND_CASES = [
    ((8, 6), None, None), ((8, 6), (5, 4), None), ((4, 5, 6), None, None),
    ((4, 5, 6), None, (0,)), ((4, 5, 6), None, (1, 0)), ((4, 5, 6), (3, 8), (0, 2)),
    ((4, 5, 6), None, (-1, -2)), ((2, 3, 4, 5), None, None), ((2, 3, 4, 5), None, (1, 2)),
    ((3, 4), (-1, 6), None), ((12, 10, 3), None, (0, 1)), ((4, 1), None, None),
]


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "hfftn",
                                  "ihfftn"])
@pytest.mark.parametrize("dtype", ["f4", "f8", "c8", "c16", "i8"])
@pytest.mark.parametrize("norm", NORMS)
def test_nd(name, dtype, norm):
    g, s = getattr(gfft, name), getattr(sfft, name)
    for shape, sz, axes in ND_CASES:
        _same(g, s, _data(shape, dtype), s=sz, axes=axes, norm=norm)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"])
def test_2d(name):
    g, s = getattr(gfft, name), getattr(sfft, name)
    for dtype in ("f4", "c16"):
        for shape, sz in (((6, 8), None), ((3, 6, 8), (4, 5)), ((5, 7), (8, 8))):
            _same(g, s, _data(shape, dtype), s=sz)


def test_fftn_no_axes_returns_input():
    gp = _gp()
    x = gp.asarray(_data((3, 4), "f4"))
    assert gfft.fftn(x, axes=()) is x
    assert gfft.dctn(x, axes=()) is x
    with pytest.raises(ValueError, match="at least 1 axis must be transformed"):
        gfft.rfftn(x, axes=())


# ---------------------------------------------------------------------------
# layouts
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "dct", "dst"])
def test_noncontiguous_inputs(name):
    gp = _gp()
    g, s = getattr(gfft, name), getattr(sfft, name)
    dt = "c8" if name in ("fft", "irfft") else "f8"
    base = _data((10, 12), dt)
    db = gp.asarray(base)
    views = [(base.T, db.T), (base[::-1], db[::-1]), (base[:, ::-2], db[:, ::-2]),
             (base[1:7, 2:11], db[1:7, 2:11])]
    for hv, dv in views:
        for axis in (0, -1):
            want = s(hv, axis=axis)
            _cmp(g(dv, axis=axis), want, err=f"{name} view axis={axis}")


def test_strided_batch_paths():
    """inner > 1 with few (strided plan, looped) and many (transpose) outer rows."""
    for shape in ((3, 64, 33), (40, 16, 5), (1, 7, 9), (9, 5, 2)):
        for dtype in ("f4", "c16"):
            xh = _data(shape, dtype)
            _same(gfft.fft, sfft.fft, xh, axis=1)
            if dtype == "f4":
                _same(gfft.rfft, sfft.rfft, xh, axis=1)
                _same(gfft.irfft, sfft.irfft, xh, axis=1)
                _same(gfft.dct, sfft.dct, xh, axis=1)


def test_real_transforms_keep_cufft_alignment():
    """cuFFT needs both pointers of an R2C/C2R execution aligned to the
    complex type (else CUFFT_INVALID_VALUE, seen on the H200): real views
    starting at an odd element, and the looped strided layout whose real
    block per leading index is odd (5 * 3 reals)."""
    gp = _gp()
    for dt in ("f4", "f8"):
        base = _data((9, 7), dt)
        db = gp.asarray(base)
        flat_h, flat_d = base.reshape(-1), db.reshape(-1)
        views = [(base[1:], db[1:]), (flat_h[1:], flat_d[1:]),
                 (flat_h[3:-2], flat_d[3:-2])]
        for hv, dv in views:
            assert dv.flags.c_contiguous
            err = f"{dt} view of shape {hv.shape}"
            _cmp(gfft.rfft(dv), sfft.rfft(hv), err=err)
            _cmp(gfft.ihfft(dv), sfft.ihfft(hv), err=err)
            _cmp(gfft.rfftn(dv), sfft.rfftn(hv), err=err)
            if hv.ndim == 2:
                _cmp(gfft.rfft(dv, axis=0), sfft.rfft(hv, axis=0), err=err)
                _cmp(gfft.rfft2(dv, s=(8, 6)), sfft.rfft2(hv, s=(8, 6)), err=err)
            # irfft/hfft write a real output; their input is complex
            _cmp(gfft.irfft(dv), sfft.irfft(hv), err=err)
        for shape, n, axis in (((3, 5, 3), None, 1), ((2, 7, 1, 3), None, 1),
                               ((3, 5, 3), 9, 1), ((5, 3), None, 0)):
            _same(gfft.rfft, sfft.rfft, _data(shape, dt), n=n, axis=axis)
            _same(gfft.ihfft, sfft.ihfft, _data(shape, dt), n=n, axis=axis)
    for shape, n, axis in (((3, 4, 3), 5, 1), ((2, 4, 1, 3), 7, 1), ((3, 4, 3), 6, 1)):
        for dt in ("c8", "c16"):
            _same(gfft.irfft, sfft.irfft, _data(shape, dt), n=n, axis=axis)
            _same(gfft.hfft, sfft.hfft, _data(shape, dt), n=n, axis=axis)


def test_empty_and_size_one():
    gp = _gp()
    for shape, axis in (((0, 4), -1), ((4, 0), 0), ((3, 0, 2), 1)):
        _same(gfft.fft, sfft.fft, np.zeros(shape), axis=axis)
        _same(gfft.rfft, sfft.rfft, np.zeros(shape), axis=axis)
        _same(gfft.dct, sfft.dct, np.zeros(shape), axis=axis)
    # an empty array with a length-1 DCT-I axis: SciPy returns it (the
    # length-1 DCT-I error is only for data)
    for shape, axis in (((3, 1, 0), 1), ((0, 1), 1), ((1, 0), 0)):
        for dt in ("f8", "c8"):
            _same(gfft.dct, sfft.dct, np.zeros(shape, dt), type=1, axis=axis)
            _same(gfft.idct, sfft.idct, np.zeros(shape, dt), type=1, axis=axis)
            _same(gfft.dctn, sfft.dctn, np.zeros(shape, dt), type=1, axes=(axis,))
    for shape in ((1,), (4, 1), (1, 4)):
        _same(gfft.fft, sfft.fft, _data(shape, "c8"))
        _same(gfft.dct, sfft.dct, _data(shape, "f8"), axis=0)
    with pytest.raises(IndexError):
        gfft.fft(gp.asarray(np.array(1.0)))


# ---------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------

def test_errors_like_scipy():
    x = _data((4, 6), "f8")
    xc = _data((4, 6), "c16")
    for g, s, xh, kw in (
            (gfft.fft, sfft.fft, x, dict(n=0)), (gfft.fft, sfft.fft, x, dict(n=-2)),
            (gfft.fft, sfft.fft, x, dict(norm="bad")),
            (gfft.fft, sfft.fft, x, dict(axis=2)),
            (gfft.fft, sfft.fft, x, dict(workers=0)),
            (gfft.rfft, sfft.rfft, xc, {}), (gfft.ihfft, sfft.ihfft, xc, {}),
            (gfft.rfftn, sfft.rfftn, xc, {}),
            (gfft.fftn, sfft.fftn, x, dict(s=(2,), axes=(0, 1))),
            (gfft.fftn, sfft.fftn, x, dict(axes=(0, 0))),
            (gfft.fftn, sfft.fftn, x, dict(s=(0, 3))),
            (gfft.fftn, sfft.fftn, x, dict(s=(2, 3, 4))),
            (gfft.fft2, sfft.fft2, x[0], {}),
            (gfft.irfft, sfft.irfft, x[:, :1], {}),
            (gfft.dct, sfft.dct, x, dict(type=5)), (gfft.dct, sfft.dct, x, dict(type=0)),
            (gfft.idst, sfft.idst, x, dict(type=7)),
            (gfft.dct, sfft.dct, x, dict(n=0)), (gfft.dct, sfft.dct, x, dict(norm="x")),
            (gfft.dctn, sfft.dctn, np.zeros((0, 3)), {}),
            (gfft.dct, sfft.dct, x[:, :1], dict(type=1))):
        _same(g, s, xh, **kw)
    gp = _gp()
    with pytest.raises(NotImplementedError):
        gfft.fft(gp.asarray(x), plan=object())
    # host input is copied to the device, as in gpuscipy.signal and linalg
    for host in (x, x.tolist()):
        got = gfft.fft(host)
        assert isinstance(got, gp.ndarray)
        np.testing.assert_allclose(gp.asnumpy(got), sfft.fft(x), rtol=1e-12, atol=1e-12)
    got = gfft.rfft2(x.astype(np.float32))
    assert isinstance(got, gp.ndarray) and got.dtype == np.complex64
    with pytest.raises(TypeError, match="x must be an array_like of numbers"):
        gfft.fft(object())


# ---------------------------------------------------------------------------
# DCT / DST
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["dct", "idct", "dst", "idst"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", NORMS)
def test_r2r_1d(name, type, norm):
    g, s = getattr(gfft, name), getattr(sfft, name)
    for dtype in ("f4", "f8", "c8", "i2"):
        for shape, n, axis in (((16,), None, -1), ((15,), None, -1), ((2,), None, -1),
                               ((1,), None, -1), ((3, 10), None, -1), ((3, 10), 7, -1),
                               ((3, 10), 12, 0), ((5, 9, 4), None, 1), ((64,), None, 0)):
            for orth in (None, False, True):
                _same(g, s, _data(shape, dtype, seed=type), type=type, n=n,
                      axis=axis, norm=norm, orthogonalize=orth)


@pytest.mark.parametrize("name", ["dctn", "idctn", "dstn", "idstn"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_r2r_nd(name, type):
    g, s = getattr(gfft, name), getattr(sfft, name)
    for dtype in ("f4", "f8", "c16"):
        for shape, sz, axes in (((6, 8), None, None), ((4, 5, 6), None, (0, 2)),
                                ((4, 5, 6), (3, 7), None), ((5, 6), None, (-1,))):
            for norm in NORMS:
                _same(g, s, _data(shape, dtype), type=type, s=sz, axes=axes, norm=norm)


def test_dct2_large_even_and_odd():
    for n in (2**16, 2**16 + 1, 3 * 5 * 7 * 11 * 2):
        for dtype in ("f4", "f8"):
            _same(gfft.dct, sfft.dct, _data((n,), dtype), n=None)
            _same(gfft.idct, sfft.idct, _data((n,), dtype), n=None)


# ---------------------------------------------------------------------------
# FHT, helpers
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("bias", [0.0, 0.6, -0.4])
@pytest.mark.parametrize("dtype", ["f4", "f8", "i4"])
def test_fht(bias, dtype):
    for n in (16, 17):
        xh = np.abs(_data((3, n), dtype)) + (1 if dtype == "i4" else 0)
        for mu, offset in ((0.5, 0.0), (1.5, 0.2)):
            _same(gfft.fht, sfft.fht, xh, 0.1, mu, offset=offset, bias=bias)
            _same(gfft.ifht, sfft.ifht, xh, 0.1, mu, offset=offset, bias=bias)


def test_freq_and_shift():
    gp = _gp()
    for n, d in ((8, 1.0), (9, 0.25), (1, 2.0)):
        _cmp(gfft.fftfreq(n, d), sfft.fftfreq(n, d))
        _cmp(gfft.rfftfreq(n, d), sfft.rfftfreq(n, d))
    for shape in ((7,), (4, 5), (3, 4, 5), (6, 1)):
        xh = _data(shape, "f4")
        xd = gp.asarray(xh)
        for axes in (None, 0, (-1,), (0, -1)):
            for g, s in ((gfft.fftshift, sfft.fftshift), (gfft.ifftshift, sfft.ifftshift)):
                np.testing.assert_array_equal(gp.asnumpy(g(xd, axes)), s(xh, axes))


# ---------------------------------------------------------------------------
# backend dispatch, plan cache, streams
# ---------------------------------------------------------------------------

def test_scipy_backend_dispatch():
    gp = _gp()
    xh = _data((4, 16), "c8")
    xd = gp.asarray(xh)
    with sfft.set_backend(gfft):
        y = sfft.fft(xd, axis=0)
        z = sfft.dctn(xd.real.copy(), type=3)
        host = sfft.fft(xh)
    assert isinstance(y, gp.ndarray) and isinstance(z, gp.ndarray)
    assert isinstance(host, np.ndarray)
    _cmp(y, sfft.fft(xh, axis=0))
    _cmp(z, sfft.dctn(xh.real, type=3))


def test_plan_cache_reuse_and_eviction():
    gp = _gp()
    cache = gfft.plan_cache
    old = cache.info()
    try:
        cache.clear()
        xh = _data((64,), "c8")
        x = gp.asarray(xh)
        gfft.fft(x)
        gfft.fft(x)
        info = cache.info()
        assert info["plans"] == 1 and info["hits"] >= old["hits"] + 1
        cache.set_limits(max_plans=2)
        for n in (32, 48, 80, 96):
            _same(gfft.fft, sfft.fft, _data((n,), "c8"))
        assert cache.info()["plans"] == 2
        _same(gfft.fft, sfft.fft, xh)        # re-created after eviction
    finally:
        cache.set_limits(max_plans=old["max_plans"], max_bytes=old["max_bytes"])


def test_repeated_calls_take_the_remembered_route():
    """A call repeated with the same arguments skips the checks (_FAST);
    its answers must stay SciPy's whatever changes between calls: the
    norm, n, the axis, the dtype, a transposed or odd-offset view, and
    plans evicted from the cache meanwhile."""
    from gpuscipy.fft import _basic
    gp = _gp()
    _basic._FAST.clear()
    cases = []
    for dt in ("f4", "f8", "c8", "c16"):
        for shape in ((5,), (3, 8), (4, 100), (2, 3, 10), (6, 7)):
            for kw in ({}, dict(norm="ortho"), dict(norm="forward"), dict(n=12),
                       dict(axis=0), dict(n=shape[-1]), dict(axis=-1)):
                cases.append((dt, shape, kw))
    for rep in range(2):
        for dt, shape, kw in cases:
            xh = _data(shape, dt, seed=len(cases))
            _same(gfft.fft, sfft.fft, xh, **kw)
            _same(gfft.ifft, sfft.ifft, xh, **kw)
            if np.dtype(dt).kind == "f":
                _same(gfft.rfft, sfft.rfft, xh, **kw)
        if rep == 0:
            assert _basic._FAST, "no call took the simple route"
            gfft.plan_cache.clear()   # remembered plan keys must be re-created
    # a view at an odd element offset of a real array: the R2C input must be
    # realigned on every call, also on a remembered route
    xh = _data((129,), "f4")
    x = gp.asarray(xh)[1:].reshape(2, 64)
    want = sfft.rfft(xh[1:].reshape(2, 64))
    for _ in range(2):
        _cmp(gfft.rfft(x), want)
    # the same shape from another dtype or stream is another route
    x8h = xh[1:].reshape(2, 64).astype("f8")
    x8 = gp.asarray(x8h)
    for _ in range(2):
        _cmp(gfft.rfft(x8), sfft.rfft(x8h))
    if hasattr(gp, "cuda"):          # the emulated core has no streams
        with gp.cuda.Stream() as st:
            y = gfft.rfft(x8)
            st.synchronize()
        _cmp(y, sfft.rfft(x8h))


def test_non_default_stream():
    gp = _gp()
    xh = _data((8, 64), "f4")
    with gp.cuda.Stream() as s:
        x = gp.asarray(xh)
        y = gfft.rfft(x)
        z = gfft.dct(x)
        s.synchronize()
    _cmp(y, sfft.rfft(xh))
    _cmp(z, sfft.dct(xh))
    assert any(k.stream != 0 for k in gfft.plan_cache.info()["keys"])


def test_irfft_does_not_touch_input_and_overwrite_x_accepted():
    gp = _gp()
    xh = _data((4, 9), "c16")
    x = gp.asarray(xh)
    gfft.irfft(x, overwrite_x=True)
    gfft.irfftn(x)
    gfft.hfft(x)
    np.testing.assert_array_equal(gp.asnumpy(x), xh)


# ---------------------------------------------------------------------------
# rows stay apart (cuFFT pairs the rows of odd-length real transforms)
# ---------------------------------------------------------------------------

def _row_mask(a, axes):
    """Per row (the indices of the axes not transformed): whether it holds
    a non-finite value."""
    a = np.asarray(a)
    return ~np.isfinite(a).all(axis=tuple(ax % a.ndim for ax in axes))


def _rows_like_scipy(got, want, axes, err):
    host = _gp().asnumpy(got)
    assert host.shape == want.shape and host.dtype == want.dtype, err
    np.testing.assert_array_equal(_row_mask(host, axes), _row_mask(want, axes),
                                  err_msg=f"{err}: rows holding inf/NaN")
    fin = np.isfinite(want)
    scale = float(np.max(np.abs(want[fin])))
    n = max(want.shape[ax] for ax in axes)
    np.testing.assert_allclose(host[fin], want[fin], rtol=0,
                               atol=_tol(want.dtype, n) * scale, err_msg=err)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_rows_stay_apart(bad, dtype):
    """cuFFT computes a batch of odd-length real transforms two rows at a
    time (seen on the H200 for lengths 259 and 1001 with CuPy as well: a
    NaN in row 0 made row 1 NaN). SciPy transforms every row on its own:
    an inf/NaN must reach no other row, whatever the path (trailing axis,
    strided loop, transpose, planes of a 2-D transform, DCT/DST)."""
    gp = _gp()
    cdt = np.result_type(dtype, np.complex64)
    one_d = [("rfft", {}), ("ihfft", {}), ("irfft", {}), ("hfft", {}),
             ("dct", {"type": 2}), ("dct", {"type": 3}), ("dst", {"type": 2}),
             ("idct", {"type": 2})]
    for n in (33, 259, 1001):
        for shape, axis in (((5, n), -1), ((n, 4), 0), ((3, n, 2), 1), ((12, n, 3), 1)):
            for name, kw in one_d:
                c2r = name in ("irfft", "hfft")
                xshape = list(shape)
                if c2r:
                    xshape[axis] = n // 2 + 1
                xh = _data(tuple(xshape), cdt if c2r else dtype)
                idx = [1] * len(xshape)
                idx[axis] = xshape[axis] // 3
                xh[tuple(idx)] = bad
                kw = dict(kw, axis=axis)
                if c2r:
                    kw["n"] = n
                want = getattr(sfft, name)(xh, **kw)
                got = getattr(gfft, name)(gp.asarray(xh), **kw)
                _rows_like_scipy(got, want, (axis,), f"{name}{kw} {xh.dtype}{xh.shape}")
        # planes of 2-D transforms, an odd last length
        xh = _data((3, 5, n), dtype)
        xh[1, 2, 7] = bad
        for name, kw in (("rfft2", {}), ("rfftn", {"axes": (1, 2)})):
            _rows_like_scipy(getattr(gfft, name)(gp.asarray(xh), **kw),
                             getattr(sfft, name)(xh, **kw), (1, 2), f"{name} {dtype}")
        ch = _data((3, 5, n // 2 + 1), cdt)
        ch[1, 2, 7] = bad
        _rows_like_scipy(gfft.irfft2(gp.asarray(ch), s=(5, n)),
                         sfft.irfft2(ch, s=(5, n)), (1, 2), f"irfft2 {cdt}")
