"""The IIR kernels executed on the CPU (``test_iir_emulator``: g++, one thread per
CUDA thread, barriers for ``__syncthreads``/``__syncwarp``).

- Kernel level: ``filter_lines`` / ``fir_lines`` launches against the NumPy
  model, bitwise for real dtypes (the emulator and the model round alike:
  no contraction, the same double-double operations), for every plan
  (serial, fused with 256 and 64 threads, scan), staged and strided
  layouts, negative strides, zi/zf, the health fallback (bitwise SciPy).
- End to end: the public functions of ``_iir`` with ``gpuscipy_core``
  replaced by NumPy (``HostGP``) and the kernels by the emulator, against
  scipy.signal: any axis, strides, zi broadcasting, dtype promotion,
  section groups, the convolution + all-pole split, filtfilt/sosfiltfilt.

Tolerances: bitwise where the path is SciPy's serial loop or the model's
blocked algorithm (real types); otherwise ``test_iir.check_blocked`` (16 x
SciPy's own rounding error + 64 eps |y|max against a higher-precision
reference), or rtol 1e-12 / 1e-5 (double / single precision) for the
convolution path, whose summation order differs from numpy.convolve.
Skipped without g++ (C++20).
"""

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy.signal import _filtfilt as FF
from gpuscipy.signal import _iir as G
from gpuscipy.signal import _iir_kernels as K
from gpuscipy.signal import _iir_model as M

from . import test_iir_emulator as E
from .test_iir import _ba_refs, ba_coefs, check_blocked, sos_coefs

f8, f4, c16, c8, i16 = (np.dtype(t) for t in ("float64", "float32", "complex128",
                                             "complex64", "int16"))


def _trio(kind, order, tin, t, direct=True):
    """fused (256, 64) + the scan trio (+ strided) for one filter."""
    s = [("fused", kind, order, tin, t, True, True, 256),
         ("fused", kind, order, tin, t, True, True, 64),
         ("states", kind, order, tin, t, True, True, None),
         ("carry", kind, order, tin, t, False, True, None),
         ("apply", kind, order, tin, t, True, True, None)]
    if direct:
        s += [("states", kind, order, tin, t, False, True, None),
              ("apply", kind, order, tin, t, False, True, None)]
    return s


KERNEL_SPECS = sorted(set(
    _trio("sos", 2, f8, f8) + _trio("ba", 6, f8, f8, False)
    + [("fused", "ba", 3, f8, f8, True, True, 256), ("apply", "ba", 3, f8, f8, True, True, None)]
    + _trio("sos", 2, f4, f4, False)
    + [("fused", "sos", 2, f8, c16, True, True, 256),
       ("fused", "sos", 2, c8, c8, True, True, 256),
       ("fused", "sos", 2, i16, f8, True, True, 256),
       ("fir", "ba", 0, f8, f8, False, True, None), ("fir", "ba", 0, f8, f8, False, False, None)]),
    key=str)

# what the end-to-end tests (-m slow) launch besides
API_SPECS = sorted(set(KERNEL_SPECS) | set(_trio("ba", 3, f8, f8)) | {
    ("apply", "sos", 2, f8, c16, True, True, None), ("apply", "sos", 2, c8, c8, True, True, None),
    ("apply", "sos", 2, i16, f8, True, True, None), ("fused", "ba", 3, i16, f8, True, True, 256),
    ("fused", "ba", 1, f4, f4, True, True, 256),
    ("fused", "sos", 1, f8, f8, True, True, 256), ("apply", "sos", 1, f8, f8, True, True, None),
    ("apply", "sos", 1, f8, f8, False, True, None),
    ("fused", "ba", 1, f8, f8, True, True, 256), ("apply", "ba", 1, f8, f8, True, True, None),
    ("apply", "ba", 1, f8, f8, False, True, None), ("apply", "ba", 2, f8, f8, True, True, None),
    ("fir", "ba", 0, f4, f4, False, True, None), ("fir", "ba", 0, i16, f8, False, True, None),
    ("fir", "ba", 0, f8, c16, False, True, None)}, key=str)


def _emulator(tmp_path_factory, specs):
    if not E.available():
        pytest.skip("g++ is not available for the kernel emulator")
    try:
        return E.Emulator(str(tmp_path_factory.mktemp("iir_emu")), specs)
    except RuntimeError as err:
        if "barrier" in str(err):
            pytest.skip("g++ without C++20 <barrier>")
        raise


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    return _emulator(tmp_path_factory, KERNEL_SPECS)


@pytest.fixture(scope="module")
def emu_api(tmp_path_factory):
    return _emulator(tmp_path_factory, API_SPECS)


def _use(emu, monkeypatch):
    monkeypatch.setattr(K, "_function", emu.function)
    monkeypatch.setattr(K, "_workspace", lambda nbytes: np.zeros(nbytes // 8))
    emu.launches.clear()
    return emu


@pytest.fixture
def kern(emu, monkeypatch):
    """Kernels run by the emulator, workspaces in host memory."""
    return _use(emu, monkeypatch)


@pytest.fixture
def host(emu_api, monkeypatch):
    """The public functions end to end on the host (``-m slow``: compiling
    and running them all takes about a minute on two cores)."""
    fake = E.host_gp()
    monkeypatch.setattr(G, "gp", fake)
    monkeypatch.setattr(FF, "gp", fake)
    # the one-launch row extension is an ElementwiseKernel (no emulator):
    # SciPy's extensions stand in for it
    monkeypatch.setattr(FF, "_extend_rows", lambda x, n, mode: E._wrap(
        [ss._arraytools.odd_ext, ss._arraytools.even_ext,
         ss._arraytools.const_ext][mode](np.asarray(x), n, axis=-1)))
    return _use(emu_api, monkeypatch)


def _canonical(x):
    return K.Lines(1, x.shape[1], 0, 1)


def _launch(kind, order, c, x, zi=None):
    nch, n = x.shape
    d = K.state_size(kind, order)
    y = np.zeros_like(x, dtype=c.dtype)
    zf = np.zeros((nch, d), c.dtype)
    path = K.filter_lines(kind, order, c, x, x.dtype, _canonical(x), y, _canonical(y),
                          zi=0 if zi is None else zi, zm=K.States(1, d, 0, d, 0, 1), zf=zf,
                          n=n, nch=nch, staged=True)
    return path, y, zf


# ------------------------------------------------------------------ kernel level

_SOS = ("sos", 2, ss.butter(4, 0.05, output="sos"))
_BA = ("ba", 3, ss.cheby1(3, 1, 0.1))


@pytest.mark.parametrize("kind,order,filt,nch,n,path", [
    _SOS + (3, 40, "serial"), _SOS + (2, 3000, "fused"), _SOS + (9, 1500, "fused"),
    _SOS + (2, 20000, "scan"), _BA + (3, 40, "serial"), _BA + (2, 3000, "fused")])
@pytest.mark.parametrize("dtype", [f8])
def test_kernels_equal_model(kern, monkeypatch, kind, order, filt, nch, n, path, dtype):
    """(9, 1500): enough channels for the 64-thread fused kernel (the
    thresholds lowered to 8 here)."""
    monkeypatch.setattr(K, "FUSED_MAX_N", 4096)
    monkeypatch.setattr(K, "FUSED_MIN_CHANNELS", 8)
    monkeypatch.setattr(K, "FUSED_SMALL_BLOCKS", 8)
    if (nch, n) == (9, 1500):
        assert K.plan(nch, n, K.state_size(kind, order), True).nt == 64
    rng = np.random.default_rng(n + nch)
    c, o = sos_coefs(filt, dtype) if kind == "sos" else ba_coefs(*filt, dtype)
    d = K.state_size(kind, o)
    x = rng.standard_normal((nch, n)).astype(dtype)
    zi = rng.standard_normal((nch, d)).astype(dtype)
    got, y, zf = _launch(kind, o, c, x, zi)
    assert got == path
    ym, zfm = M.model_filter(kind, o, c, x, zi)
    np.testing.assert_array_equal(y, ym)
    np.testing.assert_array_equal(zf, zfm)


def test_kernels_single_and_complex(kern):
    """float32 (fused and scan), complex64, complex coefficients on real x,
    int16 input (fused plans): model (real: bitwise) and SciPy (complex:
    check_blocked)."""
    rng = np.random.default_rng(11)
    sos = ss.cheby2(4, 40, 0.2, output="sos")
    c, s = sos_coefs(sos, f4)
    for n in (3000, 40000):
        x = rng.standard_normal((2, n)).astype(f4)
        zi = rng.standard_normal((2, 4)).astype(f4)
        _, y, zf = _launch("sos", s, c, x, zi)
        ym, zfm = M.model_filter("sos", s, c, x, zi)
        np.testing.assert_array_equal(y, ym)
        np.testing.assert_array_equal(zf, zfm)
    x = (rng.standard_normal((2, 2500)) + 1j * rng.standard_normal((2, 2500))).astype(c8)
    c8s, _ = sos_coefs(sos, c8)
    _, y, _ = _launch("sos", s, c8s, x)
    check_blocked(y, ss.sosfilt(sos.astype(c8), x), ss.sosfilt(sos.astype("G"), x.astype("G")))
    csos = sos.astype(c16) * np.exp(0.3j)
    csos[:, 3] = 1
    x = rng.standard_normal((2, 2500))
    cc, _ = sos_coefs(csos, c16)
    _, y, _ = _launch("sos", s, cc, x)
    check_blocked(y, ss.sosfilt(csos, x), ss.sosfilt(csos.astype("G"), x.astype("g")))
    xi = rng.integers(-1000, 1000, (2, 2500)).astype(i16)
    cd, _ = sos_coefs(sos, f8)
    _, y, _ = _launch("sos", s, cd, xi)
    np.testing.assert_array_equal(y, M.model_filter("sos", s, cd, xi.astype(f8))[0])


def test_kernels_strided_layouts(kern):
    """Channels fastest (x (n, 40), axis 0), read backwards; output written
    channel-fastest; serial and scan plans."""
    rng = np.random.default_rng(5)
    sos = ss.butter(4, 0.1, output="sos")
    c, s = sos_coefs(sos, f8)
    for n in (30, 900):
        base = rng.standard_normal((n, 40))
        x = base[::-1]
        zi = rng.standard_normal((40, 4))
        y = np.zeros((n, 40))
        zf = np.zeros((40, 4))
        path = K.filter_lines("sos", s, c, x, f8, K.Lines(40, 0, 1, -40), y,
                              K.Lines(40, 0, 1, 40), zi=zi, zm=K.States(1, 4, 0, 4, 0, 1),
                              zf=zf, n=n, nch=40, staged=False)
        assert path == ("serial" if n <= K.SERIAL_MAX_N else "scan")
        ref, zref = ss.sosfilt(sos, x, axis=0, zi=zi.reshape(40, 2, 2).transpose(1, 2, 0))
        ym, zfm = M.model_filter("sos", s, c, np.ascontiguousarray(x.T), zi, staged=False)
        np.testing.assert_array_equal(y, ym.T)
        np.testing.assert_array_equal(zf, zfm)
        np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("nch,n", [(2, 3000), (2, 30000)])
def test_kernels_health_fallback_is_scipy(kern, nch, n):
    """butter(6, 0.003) in ba form: the carry refuses its matrices; the fused
    and the carry kernels filter serially: SciPy's result, bitwise."""
    b, a = ss.butter(6, 0.003)
    c, d = ba_coefs(b, a, f8)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((nch, n))
    zi = rng.standard_normal((nch, d))
    path, y, zf = _launch("ba", d, c, x, zi)
    assert path == ("fused" if n <= K.FUSED_MAX_N else "scan")
    ref, zref = ss.lfilter(b, a, x, zi=zi)
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(zf, zref)


def _segmented(monkeypatch):
    """Plans with a segmented carry: L = 32 for 2 x 20000 samples (625
    chunks), segments of 256 chunks (m = 1), so 3 segments per channel."""
    monkeypatch.setattr(K, "SEGMENTED_CARRY", True)
    monkeypatch.setattr(K, "SEG_CHUNK_THREADS", 2 * 20000 // 32)
    monkeypatch.setattr(K, "SEG_M", 1)


@pytest.mark.parametrize("kind,order,filt", [_SOS, ("ba", 6, ss.butter(6, 0.2))])
def test_segmented_carry_equals_model(kern, monkeypatch, kind, order, filt):
    """Segment totals, the carry of the totals, the segments' walks: bitwise
    the model, and the one-block carry's result to rounding (healthy
    matrices at both levels)."""
    _segmented(monkeypatch)
    rng = np.random.default_rng(7)
    c, o = sos_coefs(filt, f8) if kind == "sos" else ba_coefs(*filt, f8)
    d = K.state_size(kind, o)
    x = rng.standard_normal((2, 20000))
    zi = rng.standard_normal((2, d))
    p = K.plan(2, 20000, d, True)
    assert (p.path, p.L, p.G, p.S) == ("scan", 32, 625, 256)
    got, y, zf = _launch(kind, o, c, x, zi)
    assert got == "scan"
    ym, zfm = M.model_filter(kind, o, c, x, zi)
    np.testing.assert_array_equal(y, ym)
    np.testing.assert_array_equal(zf, zfm)
    yw, _ = M.model_scan(kind, o, c, x, zi, L=32, nt=p.nt)   # one carry block
    scale = np.abs(yw).max()
    np.testing.assert_allclose(y, yw, rtol=0, atol=1e-12 * scale)


def test_segmented_carry_health_fallback_is_scipy(kern, monkeypatch):
    """butter(6, 0.003) in ba form with a segmented carry: every carry
    kernel refuses its matrices and filters serially: SciPy, bitwise."""
    _segmented(monkeypatch)
    b, a = ss.butter(6, 0.003)
    c, d = ba_coefs(b, a, f8)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 20000))
    zi = rng.standard_normal((2, d))
    assert K.plan(2, 20000, d, True).S == 256
    path, y, zf = _launch("ba", d, c, x, zi)
    ref, zref = ss.lfilter(b, a, x, zi=zi)
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(zf, zref)


@pytest.mark.parametrize("n", [1, 3, 7, 600])
@pytest.mark.parametrize("smem", [True, False])
def test_fir_kernel(kern, monkeypatch, n, smem):
    if not smem:
        monkeypatch.setattr(K, "FIR_SMEM_MAX", 0)
    rng = np.random.default_rng(n)
    b = rng.standard_normal(6)
    x = rng.standard_normal((3, n))
    zi = rng.standard_normal((3, 5))
    y = np.zeros((3, n))
    zf = np.zeros((3, 5))
    K.fir_lines(b, x, f8, _canonical(x), y, _canonical(y), zi=zi,
                zm=K.States(1, 5, 0, 5, 0, 1), zf=zf, n=n, nch=3)
    ref, zref = ss.lfilter(b, [1.0], x, zi=zi)
    np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(zf, zref, rtol=1e-12, atol=1e-13)


# ------------------------------------------------------------------ end to end (-m slow)

@pytest.mark.slow
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_lfilter_axes_and_zi(host, axis):
    rng = np.random.default_rng(axis + 7)
    b, a = ss.cheby1(3, 1, 0.1)
    x = rng.standard_normal((3, 4, 200))
    zshape = list(x.shape)
    zshape[axis] = 3
    zi = rng.standard_normal(zshape)
    y, zf = G.lfilter(b, a, x, axis=axis, zi=zi)
    ref, zref = ss.lfilter(b, a, x, axis=axis, zi=zi)
    assert y.shape == ref.shape and zf.shape == zref.shape and y.dtype == ref.dtype
    np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(zf, zref, rtol=1e-12, atol=1e-12)
    # zi broadcast along singleton axes (SciPy's C path allows it)
    zb = np.take(zi, [0], axis=(axis + 1) % 3)
    np.testing.assert_allclose(G.lfilter(b, a, x, axis=axis, zi=zb)[0],
                               ss.lfilter(b, a, x, axis=axis, zi=zb)[0], rtol=1e-12,
                               atol=1e-12)


@pytest.mark.slow
def test_lfilter_strides_and_dtypes(host):
    rng = np.random.default_rng(3)
    b, a = ss.cheby1(3, 1, 0.1)
    base = rng.standard_normal((6, 500))
    for x in (base[::-2, ::-1], base[:, ::3], base.T[::-1], base[2]):
        axis = -1 if x.ndim == 1 or x.shape[-1] > 100 else 0
        np.testing.assert_allclose(G.lfilter(b, a, x, axis=axis),
                                   ss.lfilter(b, a, x, axis=axis), rtol=1e-12, atol=1e-12)
    xi = rng.integers(-50, 50, (3, 400)).astype(np.int16)
    y = G.lfilter(b, a, xi)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y, ss.lfilter(b, a, xi), rtol=1e-12, atol=1e-12)
    bf, af = (v.astype(np.float32) for v in ss.butter(1, 0.3))
    x32 = rng.standard_normal((2, 300)).astype(np.float32)
    y = G.lfilter(bf, af, x32)
    assert y.dtype == np.float32
    check_blocked(y, ss.lfilter(bf, af, x32), ss.lfilter(bf.astype("d"), af.astype("d"),
                                                         x32.astype("d")))


@pytest.mark.slow
def test_sosfilt_axes_groups_and_complex(host, monkeypatch):
    rng = np.random.default_rng(4)
    sos = ss.butter(4, 0.05, output="sos")
    x = rng.standard_normal((3, 5, 150))
    for axis in (0, 1, 2):
        zshape = [2] + list(x.shape)
        zshape[axis + 1] = 2
        zi = rng.standard_normal(zshape)
        y, zf = G.sosfilt(sos, x, axis=axis, zi=zi)
        ref, zref = ss.sosfilt(sos, x, axis=axis, zi=zi)
        assert zf.shape == zref.shape
        np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(zf, zref, rtol=1e-12, atol=1e-12)
    # one section per pass: the cascade split into groups, zi/zf per group
    monkeypatch.setattr(G, "_SOS_GROUP", 1)
    sos3 = ss.ellip(6, 0.5, 60, 0.2, output="sos")
    zi = rng.standard_normal((3, 5, 2))
    xg = rng.standard_normal((5, 700))
    y, zf = G.sosfilt(sos3, xg, zi=zi)
    ref, zref = ss.sosfilt(sos3, xg, zi=zi)
    np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(zf, zref, rtol=1e-12, atol=1e-12)
    monkeypatch.setattr(G, "_SOS_GROUP", K.DMAX // 2)
    csos = sos.astype(complex) * np.exp(0.2j)
    csos[:, 3] = 1
    y = G.sosfilt(csos, x[0])
    assert y.dtype == np.complex128
    check_blocked(y, ss.sosfilt(csos, x[0]), ss.sosfilt(csos.astype("G"), x[0].astype("g")))


@pytest.mark.slow
def test_lfilter_split_and_fir(host, monkeypatch):
    """State above DMAX: convolution + all-pole (DMAX lowered to 2 here so
    small kernels cover it; the all-pole part parallel, then serial)."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 300))
    monkeypatch.setattr(K, "DMAX", 2)
    b = rng.standard_normal(5)
    for a in ([2.0, -0.9], [1.0, -0.5, 0.3, 0.1], [1.0, 0.0, 0.0]):
        zi = rng.standard_normal((2, 4))
        y, zf = G.lfilter(b, a, x, zi=zi)
        ref, zref = ss.lfilter(b, a, x, zi=zi)
        np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(zf, zref, rtol=1e-12, atol=1e-12)
    monkeypatch.setattr(K, "DMAX", 16)
    xt = x.T
    for xx, zi in ((x, None), (x[:, :3], rng.standard_normal((2, 4))),
                   (xt, rng.standard_normal((4, 2)))):
        axis = 0 if xx is xt else -1
        got = G.lfilter(b, [1.5], xx, axis=axis, zi=zi)
        ref = ss.lfilter(b, [1.5], xx, axis=axis, zi=zi)
        for g, r in zip(got if zi is not None else [got], ref if zi is not None else [ref]):
            np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-12)
    xi = rng.integers(-9, 9, (2, 50)).astype(np.int16)
    np.testing.assert_allclose(G.lfilter(b, [2.0], xi), ss.lfilter(b, [2.0], xi), rtol=1e-12)


@pytest.mark.slow
def test_empty_inputs(host):
    """Nothing to filter: zf = zi (SciPy's C filter returns uninitialised
    memory there, so zf is checked against zi, not SciPy)."""
    b, a = ss.butter(2, 0.2)
    zi = np.arange(6.0).reshape(3, 2)
    y, zf = G.lfilter(b, a, np.ones((3, 0)), zi=zi)
    ref, _ = ss.lfilter(b, a, np.ones((3, 0)), zi=zi)
    assert y.shape == ref.shape and y.dtype == ref.dtype
    np.testing.assert_array_equal(zf, zi)
    assert G.lfilter(b, a, np.ones((0, 5))).shape == (0, 5)
    assert G.sosfilt(ss.butter(2, 0.2, output="sos"), np.ones((0, 5))).shape == (0, 5)


@pytest.mark.slow
@pytest.mark.parametrize("padtype,padlen", [("odd", None), ("even", 7), ("constant", 3),
                                            (None, None)])
def test_filtfilt_and_sosfiltfilt(host, padtype, padlen):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 400))
    b, a = ss.cheby1(3, 1, 0.1)
    np.testing.assert_allclose(FF.filtfilt(b, a, x, padtype=padtype, padlen=padlen),
                               ss.filtfilt(b, a, x, padtype=padtype, padlen=padlen),
                               rtol=1e-11, atol=1e-12)
    sos = ss.butter(4, 0.05, output="sos")
    np.testing.assert_allclose(FF.sosfiltfilt(sos, x.T, axis=0, padtype=padtype, padlen=padlen),
                               ss.sosfiltfilt(sos, x.T, axis=0, padtype=padtype,
                                              padlen=padlen), rtol=1e-11, atol=1e-12)
    y32 = FF.sosfiltfilt(sos.astype(np.float32), x.astype(np.float32))
    assert y32.dtype == np.float32
    np.testing.assert_allclose(y32, ss.sosfiltfilt(sos.astype(np.float32),
                                                   x.astype(np.float32)), rtol=1e-4,
                               atol=1e-5)


@pytest.mark.slow
def test_ill_conditioned_lfilter_end_to_end_is_scipy(host):
    b, a = ss.butter(6, 0.003)
    x = np.random.default_rng(2).standard_normal((2, 5000))
    np.testing.assert_array_equal(G.lfilter(b, a, x), ss.lfilter(b, a, x))


@pytest.mark.slow
def test_blocked_lfilter_accuracy_end_to_end(host, monkeypatch):
    """A long channel through the scan plan against SciPy and a long-double
    reference (check_blocked)."""
    monkeypatch.setattr(K, "FUSED_MAX_N", 1000)
    b, a = ss.cheby1(3, 1, 0.1)
    rng = np.random.default_rng(9)
    x = rng.standard_normal((1, 50000))
    zi = rng.standard_normal((1, 3))
    y, zf = G.lfilter(b, a, x, zi=zi)
    (ref, zref), (ref_hp, zref_hp) = _ba_refs(b, a, x, zi, "d")
    check_blocked(y, ref, ref_hp)
    check_blocked(zf, zref, zref_hp)
