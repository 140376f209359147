"""The GPU parity tests of test_fft_gpu.py, run on the CPU against a host
emulation of the device layer (``_fakegpu.py``: NumPy-backed arrays with
real addresses, cuFFT emulated on raw pointers from the plan layouts, the
DCT/DST kernels replaced by their NumPy mirrors).

This exercises everything above the device: argument handling, padding,
plan layouts (basic, strided, looped, transposed), n-D composition,
normalisation, private copies for C2R, DCT/DST buffers and recipes, FHT,
shifts and the uarray backend. What it cannot check -- the CUDA kernels
themselves, the real cuFFT binding, streams -- the GPU run of
test_fft_gpu.py does.
"""

import sys

import numpy as np
import pytest
import scipy.fft as sfft

import gpuscipy.fft as gfft
from gpuscipy_core._cuda import _device, _stream
from gpuscipy.fft import _plan, _realtransforms as rt

from . import _fakegpu
from . import test_fft_gpu as G


# imported for real before gpuscipy_core is swapped for the fake (the plan
# keys read the current device and stream from them)
assert _device and _stream


@pytest.fixture
def fake(monkeypatch):
    core = _fakegpu.make_fake_core()
    monkeypatch.setitem(sys.modules, "gpuscipy_core", core)
    cufft = _fakegpu.FakeCufft()
    monkeypatch.setattr(_plan, "_cufft", cufft)
    monkeypatch.setattr(_plan, "_ensure_context", lambda device: None)
    cache = _plan._Cache()
    monkeypatch.setattr(_plan, "plan_cache", cache)
    monkeypatch.setattr(gfft, "plan_cache", cache)
    monkeypatch.setattr(rt, "_launch", _fakegpu.fake_launch)
    return cufft


@pytest.mark.parametrize("name", ["fft", "ifft"])
@pytest.mark.parametrize("dtype", ["f2", "f4", "i4", "c8", "c16"])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_c2c_1d(fake, name, dtype, norm):
    G.test_c2c_1d(name, dtype, norm)


@pytest.mark.parametrize("name", ["rfft", "ihfft"])
@pytest.mark.parametrize("dtype", ["f4", "f8", "?"])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_r2c_1d(fake, name, dtype, norm):
    G.test_r2c_1d(name, dtype, norm)


@pytest.mark.parametrize("name", ["irfft", "hfft"])
@pytest.mark.parametrize("dtype", ["f8", "c8", "c16"])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_c2r_1d(fake, name, dtype, norm):
    G.test_c2r_1d(name, dtype, norm)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
@pytest.mark.parametrize("dtype", ["f4", "c16"])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_nd(fake, name, dtype, norm):
    G.test_nd(name, dtype, norm)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"])
def test_2d(fake, name):
    G.test_2d(name)


@pytest.mark.parametrize("name", ["dct", "idct", "dst", "idst"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
def test_r2r_1d(fake, name, type, norm):
    G.test_r2r_1d(name, type, norm)


@pytest.mark.parametrize("name", ["dctn", "idctn", "dstn", "idstn"])
@pytest.mark.parametrize("type", [1, 2, 3, 4])
def test_r2r_nd(fake, name, type):
    G.test_r2r_nd(name, type)


@pytest.mark.parametrize("test", [
    "test_fftn_no_axes_returns_input", "test_strided_batch_paths",
    "test_real_transforms_keep_cufft_alignment",
    "test_empty_and_size_one", "test_errors_like_scipy", "test_freq_and_shift",
    "test_scipy_backend_dispatch", "test_irfft_does_not_touch_input_and_overwrite_x_accepted",
    "test_plan_cache_reuse_and_eviction", "test_repeated_calls_take_the_remembered_route"])
def test_misc(fake, test):
    getattr(G, test)()


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "dct", "dst"])
def test_noncontiguous_inputs(fake, name):
    G.test_noncontiguous_inputs(name)


@pytest.mark.parametrize("bias", [0.0, 0.6])
@pytest.mark.parametrize("dtype", ["f4", "f8", "i4"])
def test_fht(fake, bias, dtype):
    G.test_fht(bias, dtype)


def test_plans_are_reused_and_layouts_used(fake):
    """The bar cases are one cuFFT call on the input itself; a non-last axis
    with few leading indices uses the strided layout."""
    x = _fakegpu.FakeArray(np.ones(1 << 10, np.complex64))
    gfft.fft(x)
    gfft.fft(x)
    assert fake.execs == 2 and len(fake.plans) == 1
    (p,) = fake.plans.values()
    assert p["inembed"] is None and p["batch"] == 1 and p["n"] == (1024,)
    v = _fakegpu.FakeArray(np.ones((16, 16, 16), np.float32))
    gfft.rfftn(v)
    assert fake.execs == 3 and any(q["n"] == (16, 16, 16) for q in fake.plans.values())
    w = _fakegpu.FakeArray(np.ones((2, 8, 5), np.complex128))
    gfft.fft(w, axis=1)
    q = [q for q in fake.plans.values() if q["inembed"] is not None][0]
    assert (q["istride"], q["idist"], q["batch"]) == (5, 1, 5) and fake.execs == 5
    assert all(q["auto"] == 0 and q["stream"] == 0 for q in fake.plans.values())


def test_dct2_large_even_uses_half_length_c2c(fake):
    xh = np.random.default_rng(0).standard_normal(4096)
    G._same(gfft.dct, sfft.dct, xh)
    assert any(q["n"] == (2048,) and q["typ"] == fake.CUFFT_Z2Z
               for q in fake.plans.values())


@pytest.mark.parametrize("bad", [np.nan, np.inf])
@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_rows_stay_apart(fake, bad, dtype):
    G.test_rows_stay_apart(bad, dtype)


def test_fake_cufft_pairs_odd_real_rows(fake):
    """The emulation lets a NaN reach the partner row of an odd-length real
    transform, as cuFFT does, so test_rows_stay_apart can fail; a direct
    batched R2C shows it and gpuscipy.fft.rfft does not."""
    x = np.random.default_rng(0).standard_normal((4, 9))
    x[0, 3] = np.nan
    a = _fakegpu.FakeArray(x.copy())
    out = _fakegpu.FakeArray(np.empty((4, 5), np.complex128))
    _plan.execute(_plan.get_plan((9,), "R2C", True, 4), a.ptr, out.ptr)
    assert np.isnan(out._a).any(axis=1).tolist() == [True, True, False, False]
    got = gfft.rfft(_fakegpu.FakeArray(x)).__dict__["_a"]
    assert np.isnan(got).any(axis=1).tolist() == [True, False, False, False]
    np.testing.assert_allclose(got[1:], np.fft.rfft(x[1:]), atol=1e-12)
