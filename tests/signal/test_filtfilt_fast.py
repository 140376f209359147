"""filtfilt / sosfiltfilt host-path pieces: the cached steady states and the
one-launch row extension (odd, even, constant)."""

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy_core._kernel._nvrtc import compile_cubin
from gpuscipy.signal import _filtfilt as FF


@pytest.mark.parametrize("kind", ["sos", "ba"])
def test_steady_state_is_scipys_and_cached(kind):
    designs = [ss.butter(4, 0.1, output="sos" if kind == "sos" else "ba"),
               ss.cheby1(3, 1, [0.1, 0.3], "bandpass", output="sos" if kind == "sos" else "ba"),
               ss.butter(2, 0.4, output="sos" if kind == "sos" else "ba")]
    FF._steady_state_cached.cache_clear()
    for rep in range(2):
        for d in designs:
            coefs = (np.asarray(d),) if kind == "sos" else tuple(np.asarray(c) for c in d)
            got = FF._steady_state(kind, *coefs)
            want = ss.sosfilt_zi(*coefs) if kind == "sos" else ss.lfilter_zi(*coefs)
            np.testing.assert_array_equal(got, want)
            assert got.dtype == want.dtype
    info = FF._steady_state_cached.cache_info()
    assert info.misses == len(designs) and info.hits == len(designs)


def test_steady_state_errors_are_scipys():
    with pytest.raises(ValueError) as want:
        ss.lfilter_zi(np.ones((2, 2)), np.array([1.0]))
    with pytest.raises(ValueError) as got:
        FF._steady_state("ba", np.ones((2, 2)), np.array([1.0]))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", ["f4", "f8", "c8", "c16"])
def test_extension_kernel_compiles(dtype):
    import gpuscipy_core as gp
    k = gp.ElementwiseKernel("raw T x, int64 L, int64 n, int32 mode", "T y",
                             FF._EXT_BODY, "gs_signal_extend_rows")
    for ndim, index32 in [(0, True), (0, False)]:
        name, src = k.source(dtype, "i8", "i8", "i4", dtype, scalars=(1, 2, 3),
                             ndim=ndim, index32=index32)
        assert compile_cubin(src, name)


def _extension_model(x, n, padtype):
    if padtype == "odd":
        return ss._arraytools.odd_ext(x, n, axis=-1)
    if padtype == "even":
        return ss._arraytools.even_ext(x, n, axis=-1)
    return ss._arraytools.const_ext(x, n, axis=-1)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["f4", "f8", "c8", "c16"])
@pytest.mark.parametrize("padtype", ["odd", "even", "constant"])
@pytest.mark.parametrize("shape", [(20,), (3, 17), (2, 2, 9)])
def test_extension_rows_equal_scipys(dtype, padtype, shape):
    import gpuscipy_core as gp
    rng = np.random.default_rng(sum(map(ord, dtype + padtype)) + len(shape))
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    x = x.astype(dtype)
    x[..., 3] = np.inf            # non-finite samples are copied, not mixed in
    for n in (1, 4, shape[-1] - 1):
        got = gp.asnumpy(FF._extend(padtype, gp.asarray(x), n, -1))
        want = _extension_model(x, n, padtype)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["f4", "f8", "c16"])
@pytest.mark.parametrize("padtype", ["odd", "even", "constant", None])
def test_filtfilt_repeated_calls_match_scipy(dtype, padtype):
    import gpuscipy_core as gp
    from gpuscipy import signal as gs
    rng = np.random.default_rng(31 + len(str(padtype)))
    x = rng.standard_normal((3, 500)).astype(dtype)
    sos = ss.butter(4, 0.05, output="sos")
    b, a = ss.iirnotch(0.2, 10)
    tol = 2e-4 if dtype == "f4" else 1e-11
    for _ in range(2):          # the second call hits the steady-state cache
        for g, want in ((gs.sosfiltfilt(sos, gp.asarray(x), padtype=padtype),
                         ss.sosfiltfilt(sos, x, padtype=padtype)),
                        (gs.filtfilt(b, a, gp.asarray(x), padtype=padtype),
                         ss.filtfilt(b, a, x, padtype=padtype)),
                        (gs.filtfilt(b, a, gp.asarray(x), axis=0, padtype=padtype, padlen=2),
                         ss.filtfilt(b, a, x, axis=0, padtype=padtype, padlen=2))):
            got = gp.asnumpy(g)
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


def test_spectrum_product_kernel_compiles():
    from gpuscipy.signal import _convolve_fft as F
    for dtype in ("c8", "c16"):
        name, src = F.product_kernel().source(dtype, dtype, dtype, scalars=(1,))
        assert compile_cubin(src, name)


@pytest.mark.gpu
@pytest.mark.parametrize("xdt,cdt", [("f8", "f8"), ("f4", "f8"), ("f4", "f4"),
                                     ("c16", "f8"), ("c8", "f4")])
@pytest.mark.parametrize("shape", [(700,), (3, 400), (2, 2, 300)])
def test_lean_route_matches_scipy_and_the_general_route(xdt, cdt, shape):
    # the lean route (last axis, padded; contiguous or a reversed view, as
    # a previous filtfilt returns) against SciPy and against the general
    # route (the same data moved to axis 0)
    import gpuscipy_core as gp
    from gpuscipy import signal as gs
    rng = np.random.default_rng(len(shape) * 7 + len(xdt + cdt))
    x = rng.standard_normal(shape)
    if xdt[0] == "c":
        x = x + 1j * rng.standard_normal(shape)
    x = x.astype(xdt)
    sos = ss.butter(3, [0.05, 0.3], "bandpass", output="sos").astype(cdt)
    b, a = (c.astype(cdt) for c in ss.iirnotch(0.1, 20))
    tol = 2e-4 if np.dtype(xdt).char in "fF" and cdt == "f4" else 1e-10
    xr = np.ascontiguousarray(x[..., ::-1])
    front = np.ascontiguousarray(np.moveaxis(x, -1, 0)[..., None])
    for padtype in ("odd", "even", "constant"):
        for f, args, kw in ((gs.sosfiltfilt, (sos,), {}), (gs.filtfilt, (b, a), {"padlen": 25})):
            want = getattr(ss, f.__name__)(*args, x, padtype=padtype, **kw)
            scale = np.abs(want).max()
            general = np.moveaxis(gp.asnumpy(f(*args, gp.asarray(front), axis=0,
                                               padtype=padtype, **kw))[..., 0], 0, -1)
            for xin in (gp.asarray(x), gp.asarray(xr)[..., ::-1]):
                got = gp.asnumpy(f(*args, xin, padtype=padtype, **kw))
                assert got.dtype == want.dtype == general.dtype
                assert got.shape == want.shape == general.shape
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)
                np.testing.assert_allclose(got, general, rtol=tol, atol=tol * scale)
