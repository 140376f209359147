"""CPU tests of gpuscipy.fft: everything that needs no GPU.

* The DCT/DST recipes, normalisation factors and kernel formulas, run with
  the NumPy mirror of the kernels (``_reference.py``) against scipy.fft.
* Argument handling (shapes, axes, norms, dtypes, errors) against SciPy's.
* next_fast_len / prev_fast_len, roll blocks, launch configuration.
* The plan cache (LRU by count and bytes) over a fake cuFFT binding.
* uarray dispatch through scipy.fft.set_backend with a stand-in array type.
* NVRTC compilation of every DCT/DST kernel specialisation.
"""

import itertools

import numpy as np
import pytest
import scipy.fft as sfft

import gpuscipy.fft as gfft
from gpuscipy.fft import _helper, _plan, _realtransforms as rt

from . import _reference as ref

NORMS = ("backward", "ortho", "forward")
TYPES = (1, 2, 3, 4)
LENGTHS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 17, 30, 31, 64)


def _close(actual, expected, rtol=1e-12):
    scale = max(float(np.max(np.abs(expected))), 1e-300) if expected.size else 1.0
    np.testing.assert_allclose(actual, expected, rtol=0, atol=rtol * scale)


def _ref_r2r(forward, dst, x, type, axis, norm, orthogonalize):
    t, nrm, orth = rt.resolve(forward, type, norm, orthogonalize, x.dtype.kind == "c")
    return ref.r2r_axis(x, axis % x.ndim, t, dst, nrm, orth)


# ---------------------------------------------------------------------------
# DCT/DST recipes vs scipy.fft
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dst", [False, True], ids=["dct", "dst"])
@pytest.mark.parametrize("type", TYPES)
@pytest.mark.parametrize("forward", [True, False], ids=["fwd", "inv"])
def test_r2r_recipe_1d(dst, type, forward):
    rng = np.random.default_rng(type + 10 * dst + 100 * forward)
    name = ("" if forward else "i") + ("dst" if dst else "dct")
    sfun = getattr(sfft, name)
    for N in LENGTHS:
        if type == 1 and not dst and N == 1:
            continue
        x = rng.standard_normal((3, N))
        for norm in NORMS:
            for orth in (None, True, False):
                want = sfun(x, type=type, norm=norm, orthogonalize=orth)
                got = _ref_r2r(forward, dst, x, type, -1, norm, orth)
                _close(got, want)


@pytest.mark.parametrize("dst", [False, True], ids=["dct", "dst"])
@pytest.mark.parametrize("type", TYPES)
def test_r2r_recipe_inner_axis_and_complex(dst, type):
    """Non-last axis (inner > 1) and complex input (real view, inner doubled)."""
    rng = np.random.default_rng(7 * type + dst)
    sfun = sfft.dst if dst else sfft.dct
    for N in (2, 5, 8, 13):
        x = rng.standard_normal((2, N, 3))
        xc = x + 1j * rng.standard_normal((2, N, 3))
        for norm in NORMS:
            _close(_ref_r2r(True, dst, x, type, 1, norm, None),
                   sfun(x, type=type, axis=1, norm=norm))
            # SciPy ignores orthogonalize for complex input
            _close(_ref_r2r(True, dst, xc, type, 1, norm, False),
                   sfun(xc, type=type, axis=1, norm=norm, orthogonalize=False))
            _close(_ref_r2r(True, dst, xc, type, 0, norm, None),
                   sfun(xc, type=type, axis=0, norm=norm))


def test_r2r_dct1_length1_error_like_scipy():
    """A type-1 DCT of length 1 raises the installed SciPy's exception with
    its message (pocketfft and ducc word it differently); r2r_axis raises
    before touching the device, so a host array stands in."""
    want = _outcome(lambda: sfft.dct(np.ones((2, 1)), type=1))
    assert want[0] == "err"     # if SciPy ever computes it, revisit r2r_axis
    for norm, orth in (("backward", None), ("ortho", True), ("forward", False)):
        got = _outcome(lambda: rt.r2r_axis(np.ones((2, 1)), 1, 1, False, norm, orth))
        assert got == want, (got, want)
    # other types and DST-I of length 1 are fine in SciPy
    assert sfft.dst(np.ones(1), type=1).shape == (1,)
    assert sfft.dct(np.ones(1), type=2).shape == (1,)


@pytest.mark.parametrize("type", TYPES)
@pytest.mark.parametrize("dst", [False, True])
def test_recipe_buffers_consistent(type, dst):
    for N in range(1 if dst or type != 1 else 2, 40):
        r = rt.r2r_recipe(type, dst, N)
        if r.kind == "R2C":
            assert r.work_out == r.n // 2 + 1
            assert r.work_in == r.n
        elif r.kind == "C2R":
            assert r.work_in == r.n // 2 + 1 and r.work_out == r.n
        else:
            assert r.work_in == r.work_out == r.n and r.in_place
        assert r.pre in rt.KERNELS and r.post in rt.KERNELS


def test_recipe_bad_type():
    with pytest.raises(ValueError, match="invalid DCT type"):
        rt.r2r_recipe(5, False, 8)
    for t in (0, 5, -1, True):
        with pytest.raises(ValueError, match="invalid DCT type"):
            rt._check_type(t)


def test_single_point_factor_matches_scipy():
    for dst, t, norm, orth in itertools.product((False, True), TYPES, NORMS,
                                                (False, True)):
        if t == 1 and not dst:
            continue
        f = sfft.dst if dst else sfft.dct
        want = f(np.array([1.0]), type=t, norm=norm, orthogonalize=orth)[0]
        assert rt.single_point_factor(t, dst, norm, orth) == pytest.approx(want)


# ---------------------------------------------------------------------------
# Hermitian transforms: the compositions used by _basic
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("axes", [None, (0,), (1, 0), (0, 2), (-1,), (2, 1)])
@pytest.mark.parametrize("norm", NORMS)
def test_hermitian_compositions(axes, norm):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 5, 6)) + 1j * rng.standard_normal((4, 5, 6))
    r = rng.standard_normal((4, 5, 6))
    sw = _helper.swap_norm(norm)
    # hfftn = irfftn(conj x) with the swapped norm (what _c2rn computes)
    _close(sfft.irfftn(np.conj(x), axes=axes, norm=sw), sfft.hfftn(x, axes=axes, norm=norm))
    # ihfftn = conj(rfftn(x)) with the swapped norm (what _r2cn computes)
    _close(np.conj(sfft.rfftn(r, axes=axes, norm=sw)), sfft.ihfftn(r, axes=axes, norm=norm))
    # the sequential n-D path: C2C over axes[:-1], then C2R along the last
    ax = list(range(3)) if axes is None else [a % 3 for a in axes]
    s = [x.shape[a] for a in ax]
    s[-1] = 2 * (x.shape[ax[-1]] - 1)
    y = np.conj(x)
    for a in reversed(ax[:-1]):
        y = np.fft.ifft(y, axis=a) * y.shape[a]
    y = np.fft.irfft(y, s[-1], axis=ax[-1]) * s[-1]
    y = y * _helper.scale_factor(norm, int(np.prod(s)), True)
    _close(y, sfft.hfftn(x, axes=axes, norm=norm))


def test_scale_factor_matches_numpy():
    x = np.random.default_rng(0).standard_normal(12)
    raw_f = np.fft.fft(x)
    raw_i = np.fft.ifft(x) * 12
    for norm in NORMS:
        _close(raw_f * _helper.scale_factor(norm, 12, True), sfft.fft(x, norm=norm))
        _close(raw_i * _helper.scale_factor(norm, 12, False), sfft.ifft(x, norm=norm))


# ---------------------------------------------------------------------------
# argument handling vs SciPy
# ---------------------------------------------------------------------------

def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001
        return ("err", type(e), str(e))


ND_CASES = [
    ((4, 6), None, None), ((4, 6), (3,), None), ((4, 6), None, (0,)),
    ((4, 6), (2, 3), (1, 0)), ((4, 6), (-1, 3), None), ((2, 3, 4), (5, 6), None),
    ((4, 6), (2,), (0, 1)), ((4, 6), None, (0, 0)), ((4, 6), None, (2,)),
    ((4, 6), None, (-3,)), ((4, 6), (0, 3), None), ((4, 6), (2, 3, 4), None),
    ((4, 6), (None, 3), None), ((4, 6), None, (0.5,)), ((4, 6), 5, None),
    ((4, 6), None, -1), ((4, 6), (), ()), ((4, 0), None, None), ((4, 6), None, ()),
]


@pytest.mark.parametrize("shape,s,axes", ND_CASES)
def test_init_nd_shape_and_axes_like_scipy(shape, s, axes):
    """Our (shape, axes) resolution against SciPy's public fftn/rfftn (no
    SciPy private module: 1.18 replaced pocketfft): the same exception
    type and message, or the output shapes the resolved (s, axes) imply --
    rfftn's halved axis checks the order of the axes."""
    x = np.zeros(shape)
    want = _outcome(lambda: sfft.fftn(x, s=s, axes=axes).shape)
    got = _outcome(lambda: _helper.init_nd_shape_and_axes(shape, s, axes))
    if want[0] == "err":
        assert got[0] == "err" and got[1] is want[1] and got[2] == want[2], (got, want)
        return
    assert got[0] == "ok", (got, want)
    ss, ax = tuple(got[1][0]), list(got[1][1])
    assert len(ss) == len(ax)
    out = list(shape)
    for a, n in zip(ax, ss):
        out[a] = n
    assert tuple(out) == want[1]
    if ax:
        out[ax[-1]] = ss[-1] // 2 + 1
        assert tuple(out) == sfft.rfftn(x, s=s, axes=axes).shape


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward", "bad", 1, "Ortho"])
def test_check_norm_like_scipy(norm):
    want = _outcome(lambda: sfft.fft(np.ones(4), norm=norm))
    got = _outcome(lambda: _helper.check_norm(norm))
    assert want[0] == got[0]
    if want[0] == "err":
        assert got[1] is want[1] and got[2] == want[2]


@pytest.mark.parametrize("workers", [None, 1, 4, -1, 0, -10**6])
def test_check_workers_like_scipy(workers):
    want = _outcome(lambda: sfft.fft(np.ones(4), workers=workers))
    got = _outcome(lambda: _helper.check_workers(workers))
    assert want[0] == got[0]
    if want[0] == "err":
        assert got[1] is want[1] and got[2] == want[2]


@pytest.mark.parametrize("n", [None, 1, 5, 0, -3])
def test_check_n_like_scipy(n):
    want = _outcome(lambda: sfft.fft(np.ones(8), n=n))
    got = _outcome(lambda: _helper.check_n(n, 8))
    assert want[0] == got[0]
    if want[0] == "err":
        assert got[1] is want[1] and got[2] == want[2]


DTYPES = ["?", "b", "B", "h", "i", "q", "Q", "e", "f", "d", "F", "D"]


@pytest.mark.parametrize("dt", DTYPES)
def test_result_dtypes_like_scipy(dt):
    x = np.ones(8, dt)
    cd = _helper.compute_dtype(dt)
    assert sfft.fft(x).dtype == _helper.complex_of(cd)
    assert sfft.irfft(x).dtype == _helper.real_of(cd)
    assert sfft.hfft(x).dtype == _helper.real_of(cd)
    assert sfft.dct(x).dtype == cd
    if cd.kind == "c":
        with pytest.raises(TypeError, match="x must be a real sequence"):
            _helper.compute_dtype(dt, real_only=True)
        with pytest.raises(TypeError, match="x must be a real sequence"):
            sfft.rfft(x)
    else:
        assert sfft.rfft(x).dtype == _helper.complex_of(cd)


def test_check_plan_like_scipy():
    with pytest.raises(NotImplementedError) as e1:
        sfft.fft(np.ones(4), plan=object())
    with pytest.raises(NotImplementedError) as e2:
        _helper.check_plan(object())
    assert str(e1.value) == str(e2.value)
    _helper.check_plan(None)


def test_resolve_inverse_types_and_norms():
    assert rt.resolve(False, 2, None, None, False) == (3, "forward", False)
    assert rt.resolve(False, 3, "ortho", None, False) == (2, "ortho", True)
    assert rt.resolve(True, 4, "forward", True, False) == (4, "forward", True)
    assert rt.resolve(True, 2, "ortho", False, True) == (2, "ortho", True)
    with pytest.raises(ValueError, match="Invalid norm value"):
        rt.resolve(True, 2, "nope", None, False)


def _smooth(n):
    for p in (2, 3, 5, 7):
        while n % p == 0:
            n //= p
    return n == 1


def test_fast_len():
    for t in range(1, 2000):
        a, b = gfft.next_fast_len(t), gfft.prev_fast_len(t)
        assert _smooth(a) and a >= t and not any(_smooth(m) for m in range(t, a))
        assert _smooth(b) and b <= t and not any(_smooth(m) for m in range(b + 1, t + 1))
    assert gfft.next_fast_len(0) == 0 == gfft.prev_fast_len(0)
    # real transforms: the smallest even 7-smooth length (odd real lengths
    # of several rows run as complex transforms, twice the work)
    for t in range(1, 2000):
        a = gfft.next_fast_len(t, real=True)
        if t <= 6:
            assert a == t
        else:
            assert a % 2 == 0 and _smooth(a) and a >= t
            assert not any(_smooth(m) for m in range(t + t % 2, a, 2))
    big = 2**40 + 1
    assert _smooth(gfft.next_fast_len(big)) and gfft.next_fast_len(big) >= big
    assert _smooth(gfft.prev_fast_len(big)) and gfft.prev_fast_len(big) <= big
    for bad, exc in ((-1, ValueError), (2.5, TypeError), ("a", TypeError), (3.0, TypeError)):
        with pytest.raises(exc) as e1:
            sfft.next_fast_len(bad)
        with pytest.raises(exc) as e2:
            gfft.next_fast_len(bad)
        assert str(e1.value) == str(e2.value)
        with pytest.raises(exc):
            gfft.prev_fast_len(bad)


@pytest.mark.parametrize("shape,shifts", [
    ((7,), {0: 3}), ((8,), {0: -4}), ((3, 4), {0: 1, 1: 2}), ((3, 4, 5), {2: 7}),
    ((2, 3, 4), {0: 1, 1: 1, 2: 2}), ((), {}), ((0, 3), {1: 1})])
def test_roll_blocks(shape, shifts):
    x = np.arange(int(np.prod(shape)), dtype=float).reshape(shape)
    out = np.empty_like(x)
    for d, s in _helper.roll_blocks(shape, shifts):
        out[d] = x[s]
    want = np.roll(x, tuple(shifts.values()), tuple(shifts.keys())) if shifts else x
    np.testing.assert_array_equal(out, want)


def test_shift_matches_numpy_definition():
    for shape in ((5,), (4, 7), (3, 4, 5)):
        for axes in (None, 0, (-1,), (0, -1)):
            if axes is not None and max(np.atleast_1d(axes)) >= len(shape):
                continue
            ax = _helper._shift_axes(np.empty(shape), axes)
            x = np.arange(int(np.prod(shape))).reshape(shape)
            sh, ish = {}, {}
            for a in ax:            # repeated axes add up, as in numpy.roll
                sh[a] = sh.get(a, 0) + shape[a] // 2
                ish[a] = ish.get(a, 0) - shape[a] // 2
            out = np.empty_like(x)
            for d, s in _helper.roll_blocks(shape, sh):
                out[d] = x[s]
            np.testing.assert_array_equal(out, np.fft.fftshift(x, axes))
            for d, s in _helper.roll_blocks(shape, ish):
                out[d] = x[s]
            np.testing.assert_array_equal(out, np.fft.ifftshift(x, axes))


def test_launch_config():
    for items, rows in ((1, 1), (5, 10**6), (2**24, 1), (300, 70000), (2**23, 4096)):
        (gx, gy, gz), (bx, by, bz) = rt.launch_config(items, rows)
        assert 32 <= bx <= 256 and by == bz == gz == 1
        assert 1 <= gy <= 65535 and gx >= 1
        assert gx * gy <= max(1 << 22, gy)


# ---------------------------------------------------------------------------
# plan cache over a fake binding
# ---------------------------------------------------------------------------

class _FakeCufft:
    CUFFT_C2C, CUFFT_R2C, CUFFT_C2R = 0x29, 0x2a, 0x2c
    CUFFT_Z2Z, CUFFT_D2Z, CUFFT_Z2D = 0x69, 0x6a, 0x6c
    CUFFT_FORWARD, CUFFT_INVERSE = -1, 1

    def __init__(self, work=1000):
        self.next = 1
        self.live = set()
        self.calls = []
        self.work = work

    def cufftCreate(self):
        h = self.next
        self.next += 1
        self.live.add(h)
        return h

    def cufftDestroy(self, h):
        self.live.remove(h)

    def cufftSetAutoAllocation(self, h, v):
        self.calls.append(("auto", h, v))

    def cufftMakePlanMany64(self, h, rank, n, inembed, istride, idist, onembed,
                            ostride, odist, typ, batch):
        assert rank == len(n)
        self.calls.append(("make", h, tuple(n), inembed, istride, idist, onembed,
                           ostride, odist, typ, batch))
        return self.work

    def cufftSetStream(self, h, s):
        self.calls.append(("stream", h, s))

    def _exec(self, *args):
        self.calls.append(("exec",) + args)

    cufftExecC2C = cufftExecZ2Z = cufftExecR2C = cufftExecD2Z = _exec
    cufftExecC2R = cufftExecZ2D = _exec


@pytest.fixture
def fake_cufft(monkeypatch):
    fake = _FakeCufft()
    monkeypatch.setattr(_plan, "_cufft", fake)
    monkeypatch.setattr(_plan, "_ensure_context", lambda device: None)
    cache = _plan._Cache()
    monkeypatch.setattr(_plan, "plan_cache", cache)
    return fake, cache


def test_plan_cache_reuse_and_lru(fake_cufft):
    fake, cache = fake_cufft
    cache.set_limits(max_plans=3)
    p1 = _plan.get_plan((16,), "C2C", False, 4)
    assert _plan.get_plan((16,), "C2C", False, 4) is p1
    assert ("auto", p1.handle, 0) in fake.calls
    make = [c for c in fake.calls if c[0] == "make"]
    assert make == [("make", p1.handle, (16,), None, 1, 0, None, 1, 0, 0x29, 4)]
    p2 = _plan.get_plan((16,), "R2C", True, 4)
    assert [c for c in fake.calls if c[0] == "make"][-1][9] == 0x6a
    p3 = _plan.get_plan((8,), "C2R", False, 2, inembed=(5,), istride=3, idist=1,
                        onembed=(8,), ostride=3, odist=1)
    assert [c for c in fake.calls if c[0] == "make"][-1][3:9] == ([5], 3, 1, [8], 3, 1)
    _plan.get_plan((16,), "C2C", False, 4)          # p1 most recently used
    p4 = _plan.get_plan((32,), "C2C", False, 1)     # evicts p2 (least recent)
    info = cache.info()
    assert info["plans"] == 3 and info["hits"] == 2 and info["misses"] == 4
    assert p2.handle is None and p1.handle and p3.handle and p4.handle
    assert fake.live == {p1.handle, p3.handle, p4.handle}
    cache.clear()
    assert fake.live == set() and cache.info()["plans"] == 0


def test_plan_cache_byte_bound(fake_cufft):
    fake, cache = fake_cufft
    cache.set_limits(max_plans=100, max_bytes=2500)
    ps = [_plan.get_plan((n,), "C2C", False, 1) for n in (2, 3, 4)]
    assert cache.info()["plans"] == 2 and cache.info()["work_bytes"] == 2000
    assert ps[0].handle is None
    # a single plan above the byte bound is still kept (it is in use)
    fake.work = 10**6
    big = _plan.get_plan((5,), "C2C", False, 1)
    assert big.handle is not None and cache.info()["plans"] == 1
    with pytest.raises(ValueError):
        cache.set_limits(max_plans=0)


def test_plan_key_includes_stream_and_device(monkeypatch):
    from gpuscipy_core import cuda
    k0 = _plan.make_key((8,), "C2C", False, 1)
    monkeypatch.setattr(cuda, "get_current_stream_ptr", lambda: 1234)
    k1 = _plan.make_key((8,), "C2C", False, 1)
    assert k0 != k1 and k1.stream == 1234 and k0.device == k1.device


# ---------------------------------------------------------------------------
# uarray dispatch
# ---------------------------------------------------------------------------

class _FakeDeviceArray:
    pass


def test_ua_dispatch(monkeypatch):
    marker = _FakeDeviceArray()
    monkeypatch.setattr(_helper, "is_device_array",
                        lambda x: isinstance(x, _FakeDeviceArray))
    seen = []
    ns = dict(gfft._namespace)
    ns["fft"] = lambda *a, **k: seen.append(("fft", a, k)) or "gpu-result"
    ns["dctn"] = lambda *a, **k: seen.append(("dctn", a, k)) or "gpu-dctn"
    monkeypatch.setattr(gfft, "_namespace", ns)
    with sfft.set_backend(gfft):
        assert sfft.fft(marker, n=4) == "gpu-result"
        assert sfft.dctn(x=marker, type=3) == "gpu-dctn"
        host = sfft.fft(np.ones(4))            # host input falls through to SciPy
        assert isinstance(host, np.ndarray) and host[0] == 4
        assert isinstance(sfft.fftfreq(4), np.ndarray)
    assert seen[0][0] == "fft" and seen[0][2] == {"n": 4}
    assert seen[1][0] == "dctn" and seen[1][2]["type"] == 3
    assert gfft.__ua_domain__ == "numpy.scipy.fft"


def test_backend_wrappers():
    with gfft.set_workers(3):
        assert gfft.get_workers() == 3 == sfft.get_workers()
    with gfft.set_backend("scipy"):
        pass
    with gfft.skip_backend(gfft):
        pass
    with pytest.raises(ValueError):
        gfft.set_workers(0).__enter__()


def test_public_names_documented_and_homed():
    for name in gfft.__all__:
        obj = getattr(gfft, name)
        assert obj.__doc__, name
        assert obj.__module__ == "gpuscipy.fft", name
    assert sorted(gfft.__all__) == sorted(sfft.__all__)


def test_signatures_match_scipy():
    import inspect
    for name in sfft.__all__:
        assert inspect.signature(getattr(gfft, name)) == \
            inspect.signature(getattr(sfft, name)), name


def _fht_host(a, u, dln, offset, bias, inverse):
    """FFTLog on the host with the coefficients ``u`` (SciPy's definition of
    fht/ifht: bias factors, rfft, times u (or / conj(u)), irfft, reversal)."""
    n = a.shape[-1]
    j = np.arange(n) - (n - 1) / 2
    if bias:
        a = a * (np.exp(bias * (j * dln + offset)) if inverse
                 else np.exp(-bias * j * dln))
    A = np.fft.rfft(a)
    A = A / np.conj(u) if inverse else A * u
    A = np.fft.irfft(A, n)[::-1]
    if bias:
        A = A * (np.exp(bias * j * dln) if inverse
                 else np.exp(-bias * (j * dln + offset)))
    return A


def test_fht_coefficients_like_scipy():
    """Our FFTLog coefficients, used in SciPy's definition on the host, give
    the public scipy.fft.fht/ifht (no SciPy private module)."""
    rng = np.random.default_rng(3)
    for n, dln, mu, off, bias in ((8, 0.1, 0.5, 0.0, 0.0), (9, 0.05, -0.5, 0.3, 0.7),
                                  (64, 0.2, 2.0, -0.1, -1.2), (1, 0.1, 0.0, 0.0, 0.0),
                                  (33, 0.15, 1.0, 0.2, 0.0)):
        a = rng.standard_normal(n)
        for inv in (False, True):
            u = rt_fht_coeff(n, dln, mu, off, bias, inv)
            assert u.shape == (n // 2 + 1,) and u.dtype == np.complex128
            want = (sfft.ifht if inv else sfft.fht)(a, dln, mu, offset=off, bias=bias)
            _close(_fht_host(a, u, dln, off, bias, inv), want, rtol=1e-12)


def rt_fht_coeff(*args):
    from gpuscipy.fft._fftlog import fht_coefficients
    n, dln, mu, off, bias, inv = args
    return fht_coefficients(n, dln, mu, offset=off, bias=bias, inverse=inv)


def test_fhtoffset_like_scipy():
    for dln, mu, ini, bias in ((0.1, 2.0, 0.5, 0.0), (0.05, -0.5, 0.0, 0.3),
                               (0.3, 0.0, -1.0, -0.7)):
        assert gfft.fhtoffset(dln, mu, ini, bias) == pytest.approx(
            sfft.fhtoffset(dln, mu, initial=ini, bias=bias), rel=1e-14, abs=1e-15)


# ---------------------------------------------------------------------------
# NVRTC compile of every kernel specialisation (no GPU needed)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("op", rt.KERNELS)
def test_kernels_compile(op):
    from gpuscipy_core._kernel import compile_cubin
    for dtype, dst, unit in itertools.product((np.float32, np.float64), (False, True),
                                              (False, True)):
        src = rt.kernel_source(op, dtype, dst, unit)
        name = rt.kernel_name(op, dtype, dst, unit)
        assert 'extern "C" __global__' in src and name in src
        cubin = compile_cubin(src, name)
        assert len(cubin) > 0 and name.encode() in cubin


def test_kernel_source_golden():
    src = rt.kernel_source("dct2_pre", np.float64, True, True)
    tail = src[src.index('extern "C"'):]
    assert tail == (
        'extern "C" __global__ void __launch_bounds__(256)\n'
        "gsfft_dct2_pre_f64_dst_u(const double* src, double* dst, long long N, "
        "long long inner,\n"
        "       long long B, double scale, double e_pre, double e_post) {\n"
        "  gs_fft_r2r::dct2_pre<double, true, true>(src, dst, N, inner, B, scale, e_pre, "
        "e_post);\n}\n")
    with pytest.raises(ValueError):
        rt.kernel_source("nope", np.float32, False, False)


def test_items_per_row_cover_kernels():
    for op in rt.KERNELS:
        for N in (2, 3, 8, 9):
            assert rt._items_per_row(op, N) >= 1


def test_next_fast_len_table_matches_the_search():
    """The table lookup and the exact search agree (around every power of
    two, on random targets, across the table's limit)."""
    rng = np.random.default_rng(457)
    ts = list(range(7, 3000))
    ts += [(1 << k) + d for k in range(3, 45) for d in (-1, 0, 1)]
    ts += [int(v) for v in rng.integers(7, 1 << 42, 2000)]
    for t in ts:
        assert _helper.next_fast_len(t) == _helper._search_smooth(t), t
        half = -(-t // 2)
        want = 2 * (half if half <= 6 else _helper._search_smooth(half))
        assert _helper.next_fast_len(t, real=True) == want, t
