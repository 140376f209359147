"""Tests of gpuscipy.signal's IIR filtering (``_iir``, ``_iir_kernels``,
``_iir_model``, ``_iir_gust``) that need no GPU.

- The NumPy model of the blocked algorithm (chunks from zero state, the
  double-double scan of the carried states, the re-run of every chunk)
  against scipy.signal: lfilter orders 1..8 and sosfilt 1..4 sections (plus
  the 16-state limit), poles near the unit circle, float32/float64/complex,
  with and without zi, for the three plans (serial, fused, scan).
- The model's serial arithmetic is SciPy's bit for bit (same expressions,
  same order, no fused multiply-adds).
- The double-double arithmetic against exact rationals.
- SciPy's errors for bad input (type and message), checked before any
  transfer to the device.
- Gustafsson's matrices with SciPy's lfilter reproduce filtfilt(method='gust').
- NVRTC compiles of the kernel variants (every role, layout and compute
  dtype; every input dtype; every state size; the rest with -m slow).

Tolerance (model and kernels vs SciPy): the carried states are rounded to
the compute dtype at chunk starts where SciPy's serial loop has its own
rounding; both are compared with a reference in higher precision (SciPy in
long double for float64 and complex128; in float64 for float32 and
complex64) and the blocked result must be within ``4 x SciPy's own error +
floor`` of it, floor = 64 eps |y|max. For filters whose transition powers are
too ill-conditioned for the scan (Health), the kernels run SciPy's serial
loop and must match SciPy exactly (real types).
"""

import os
import zlib
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import numpy as np
import pytest
import scipy.signal as ss

import gpuscipy.signal as GS
from gpuscipy_core.kernel import read_source
from gpuscipy.signal import _iir as G
from gpuscipy.signal import _iir_gust as GU
from gpuscipy.signal import _iir_kernels as K
from gpuscipy.signal import _iir_model as M

# ------------------------------------------------------------------ helpers


def ba_coefs(b, a, dtype):
    """The kernels' packed [b, a] (normalised, padded) in ``dtype``."""
    return G._ba_coefs(np.atleast_1d(b), np.atleast_1d(a), np.dtype(dtype)), \
        max(len(np.atleast_1d(a)), len(np.atleast_1d(b))) - 1


def sos_coefs(sos, dtype):
    sos = np.asarray(sos)
    return sos.astype(dtype)[:, [0, 1, 2, 4, 5]].ravel(), sos.shape[0]


def high_precision(dtype):
    """The dtype of the reference: long double above single precision."""
    return {"f": "d", "F": "D", "d": "g", "D": "G"}[np.dtype(dtype).char]


def check_blocked(y, ref_dt, ref_hp, eps_mult=64):
    """``y`` (blocked) is within 16 x (SciPy's error) + 64 eps |y|max of the
    high-precision reference."""
    ref_hp = np.asarray(ref_hp).astype(np.complex256 if np.iscomplexobj(ref_hp)
                                       else np.float128)
    scale = float(np.abs(ref_hp).max()) or 1.0
    eps = np.finfo(y.dtype).eps
    own = float(np.abs(ref_dt - ref_hp).max())
    err = float(np.abs(y - ref_hp).max())
    assert err <= 16 * own + eps_mult * eps * scale, (err, own, scale)


FILTERS_BA = [
    ("butter1", ss.butter(1, 0.2)),
    ("cheby1_2", ss.cheby1(2, 1, 0.05)),
    ("butter3_near", ss.butter(3, 0.01)),
    ("ellip4", ss.ellip(4, 0.5, 60, 0.1)),
    ("butter4_near", ss.butter(4, 0.003)),
    ("bessel5", ss.bessel(5, 0.2)),
    ("butter6_hp", ss.butter(6, 0.3, "highpass")),
    ("cheby2_7", ss.cheby2(7, 40, 0.3)),
    ("butter8", ss.butter(8, 0.1)),
    ("pole_0.9999", ([1.0], [1.0, -0.9999])),
    ("resonator", ([1.0, 0, -1], [1.0, -2 * 0.9995 * np.cos(0.01), 0.9995 ** 2])),
    ("fir_like", ([0.2, 0.3, 0.5, 0.1], [1.0, 0.0, 0.0])),
    ("long_b", (np.hanning(9)[1:-1], [2.0, -0.5])),
]

FILTERS_SOS = [
    ("butter2", ss.butter(2, 0.1, output="sos")),
    ("cheby1_6_near", ss.cheby1(6, 1, 0.002, output="sos")),
    ("ellip8", ss.ellip(8, 0.5, 80, 0.01, output="sos")),
    ("butter16", ss.butter(16, 0.05, output="sos")),
]


def _case_seed(*parts):
    """A seed fixed by the case's name (``hash`` of a str changes with every
    process's PYTHONHASHSEED, which made a failure unrepeatable)."""
    return zlib.crc32("/".join(parts).encode())


def _signal(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


# ------------------------------------------------------------------ model vs SciPy

@pytest.mark.parametrize("dtype", ["f", "d"])
@pytest.mark.parametrize("name,ba", FILTERS_BA[:9], ids=[f[0] for f in FILTERS_BA[:9]])
def test_model_serial_is_scipy_bitwise(name, ba, dtype):
    b, a = ba
    rng = np.random.default_rng(1)
    c, n = ba_coefs(b, a, dtype)
    x = _signal(rng, (3, 300), dtype)
    zi = _signal(rng, (3, n), dtype)
    y, zf = M.model_serial("ba", n, c, x, zi)
    ref, zref = ss.lfilter(np.asarray(b, dtype), np.asarray(a, dtype), x, zi=zi)
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(zf, zref)


@pytest.mark.parametrize("dtype", ["f", "d"])
def test_model_serial_sos_is_scipy_bitwise(dtype):
    sos = ss.ellip(8, 0.5, 80, 0.01, output="sos").astype(dtype)
    c, s = sos_coefs(sos, dtype)
    rng = np.random.default_rng(2)
    x = _signal(rng, (2, 400), dtype)
    zi = _signal(rng, (2, 2 * s), dtype)
    y, zf = M.model_serial("sos", s, c, x, zi)
    ref, zref = ss.sosfilt(sos, x, zi=zi.reshape(2, s, 2).transpose(1, 0, 2))
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(zf, zref.transpose(1, 0, 2).reshape(2, 2 * s))


def _ba_refs(b, a, x, zi, dtype):
    hp = high_precision(dtype)
    ref = ss.lfilter(np.asarray(b, dtype), np.asarray(a, dtype), x, zi=zi)
    b_hp = np.asarray(b, dtype).astype(hp)
    a_hp = np.asarray(a, dtype).astype(hp)
    ref_hp = ss.lfilter(b_hp, a_hp, x.astype(hp), zi=zi.astype(hp))
    return ref, ref_hp


MODEL_PATHS = [("fused", dict(nt=64)), ("scan", dict(L=16, nt=32)),
               ("scan", dict(L=64, nt=32))]


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("path,kw", MODEL_PATHS, ids=lambda v: str(v))
@pytest.mark.parametrize("name,ba", FILTERS_BA, ids=[f[0] for f in FILTERS_BA])
def test_model_lfilter_matches_scipy(name, ba, path, kw, dtype):
    b, a = ba
    rng = np.random.default_rng(_case_seed(name, path, dtype))
    c, n = ba_coefs(b, a, dtype)
    if n > K.DMAX:
        pytest.skip("state above DMAX: convolution + all-pole split")
    x = _signal(rng, (2, 1500), dtype)
    zi = _signal(rng, (2, n), dtype)
    model = M.model_fused if path == "fused" else M.model_scan
    y, zf = model("ba", n, c, x, zi, **kw)
    (ref, zref), (ref_hp, zref_hp) = _ba_refs(b, a, x, zi, dtype)
    assert y.dtype == ref.dtype and zf.dtype == zref.dtype
    check_blocked(y, ref, ref_hp)
    check_blocked(zf, zref, zref_hp)


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("path,kw", MODEL_PATHS, ids=lambda v: str(v))
@pytest.mark.parametrize("name,sos", FILTERS_SOS[:3], ids=[f[0] for f in FILTERS_SOS[:3]])
def test_model_sosfilt_matches_scipy(name, sos, path, kw, dtype):
    rng = np.random.default_rng(_case_seed(name, path, dtype))
    c, s = sos_coefs(sos, dtype)
    x = _signal(rng, (2, 1200), dtype)
    zi = _signal(rng, (2, 2 * s), dtype)
    model = M.model_fused if path == "fused" else M.model_scan
    y, zf = model("sos", s, c, x, zi, **kw)
    hp = high_precision(dtype)
    zi_s = zi.reshape(2, s, 2).transpose(1, 0, 2)
    ref, zref = ss.sosfilt(sos.astype(dtype), x, zi=zi_s)
    ref_hp, zref_hp = ss.sosfilt(sos.astype(dtype).astype(hp), x.astype(hp),
                                 zi=zi_s.astype(hp))
    check_blocked(y, ref, ref_hp)
    zc = lambda z: z.transpose(1, 0, 2).reshape(2, 2 * s)  # noqa: E731
    check_blocked(zf, zc(zref), zc(zref_hp))


def test_model_16_states():
    """The largest scanned state: butter(16) as 8 sections, ba of order 16."""
    rng = np.random.default_rng(5)
    sos = FILTERS_SOS[3][1][:8]
    c, s = sos_coefs(sos, "d")
    x = rng.standard_normal((1, 3000))
    y, _ = M.model_scan("sos", s, c, x, L=32, nt=32)
    check_blocked(y, ss.sosfilt(sos, x), ss.sosfilt(sos.astype("g"), x.astype("g")))
    b, a = ss.cheby2(16, 60, 0.4)
    c, n = ba_coefs(b, a, "d")
    y, _ = M.model_fused("ba", n, c, x, nt=32)
    check_blocked(y, ss.lfilter(b, a, x), ss.lfilter(b.astype("g"), a.astype("g"),
                                                     x.astype("g")))


@pytest.mark.parametrize("n", [1, 2, 7, 33, 64, 65, 257])
def test_model_short_and_ragged(n):
    """Signals shorter than a chunk, than the filter, and last chunks of any
    length: the fused and scan models against SciPy (float64)."""
    rng = np.random.default_rng(n)
    b, a = ss.cheby1(5, 1, 0.2)
    c, d = ba_coefs(b, a, "d")
    x = rng.standard_normal((2, n))
    zi = rng.standard_normal((2, d))
    (ref, zref), (ref_hp, zref_hp) = _ba_refs(b, a, x, zi, "d")
    for y, zf in (M.model_fused("ba", d, c, x, zi, nt=32),
                  M.model_scan("ba", d, c, x, zi, L=4, nt=32),
                  M.model_filter("ba", d, c, x, zi)):
        check_blocked(y, ref, ref_hp)
        check_blocked(zf, zref, zref_hp)


def test_model_nan_propagates_forward_only():
    b, a = ss.butter(3, 0.2)
    c, d = ba_coefs(b, a, "d")
    x = np.random.default_rng(0).standard_normal((1, 2000))
    x[0, 900] = np.nan
    ref = ss.lfilter(b, a, x)
    for y, _ in (M.model_fused("ba", d, c, x, nt=64), M.model_scan("ba", d, c, x, L=32, nt=32)):
        np.testing.assert_array_equal(np.isnan(y), np.isnan(ref))
        np.testing.assert_allclose(y[0, :900], ref[0, :900], rtol=1e-12, atol=1e-13)


# ------------------------------------------------------------------ health of the carry

ILL = [("butter8_0.01", ss.butter(8, 0.01)), ("butter6_0.003", ss.butter(6, 0.003)),
       ("cheby1_6_0.002", ss.cheby1(6, 1, 0.002))]


@pytest.mark.parametrize("name,ba", ILL, ids=[f[0] for f in ILL])
def test_ill_conditioned_ba_falls_back_to_scipy(name, ba):
    """Clustered poles: the transition powers exceed LIMIT, the kernels run
    SciPy's serial loop (the model says so; the result is SciPy's, bitwise)."""
    b, a = ba
    c, d = ba_coefs(b, a, "d")
    x = np.random.default_rng(3).standard_normal((2, 4000))
    health = M.Health("ba")
    m0 = M.mat_pow(health.check(M.step_matrix("ba", d, M.widen(c))), 16, health)
    M._levels(m0, 8, health)
    assert health.bad
    ref = ss.lfilter(b, a, x)
    for y, _ in (M.model_fused("ba", d, c, x, nt=256), M.model_scan("ba", d, c, x, L=64)):
        np.testing.assert_array_equal(y, ref)


def test_healthy_filters_stay_parallel():
    """The realistic ones (order 4 down to 0.003, order 8 at 0.1, every sos
    design above, even with entries of 1e26) keep the scan."""
    for b, a in (ss.butter(4, 0.003), ss.butter(8, 0.1), ss.ellip(4, 0.5, 60, 0.01)):
        c, d = ba_coefs(b, a, "d")
        h = M.Health("ba")
        m = M.mat_pow(h.check(M.step_matrix("ba", d, M.widen(c))), 64, h)
        M._levels(m, 8, h)
        assert not h.bad
    for _, sos in FILTERS_SOS:
        c, s = sos_coefs(sos[:8], "d")
        h = M.Health("sos")
        m = M.mat_pow(h.check(M.step_matrix("sos", s, M.widen(c))), 64, h)
        M._levels(m, 8, h)
        assert not h.bad


def test_double_double_is_exact_to_106_bits():
    rng = np.random.default_rng(7)
    def normalized(hi):
        return M.DD(hi, hi * rng.uniform(-1, 1, hi.shape) * 2.0 ** -54)
    a = normalized(rng.standard_normal(50))
    b = normalized(rng.standard_normal(50) * 1e3)
    # error bounds: product 2^-102 |exact|, sum 2^-104 (|p| + |q|)
    for op, f, bound in ((lambda u, v: u * v, lambda p, q: p * q, lambda p, q, e: abs(e)),
                         (lambda u, v: u + v, lambda p, q: p + q,
                          lambda p, q, e: 4 * (abs(p) + abs(q))),
                         (lambda u, v: u - v, lambda p, q: p - q,
                          lambda p, q, e: 4 * (abs(p) + abs(q)))):
        r = op(a, b)
        for i in range(50):
            p = Fraction(float(a.hi[i])) + Fraction(float(a.lo[i]))
            q = Fraction(float(b.hi[i])) + Fraction(float(b.lo[i]))
            exact = f(p, q)
            got = Fraction(float(r.hi[i])) + Fraction(float(r.lo[i]))
            assert abs(got - exact) <= bound(p, q, exact) * Fraction(2) ** -102
    c = M.CDD(M.DD([1.5]), M.DD([-2.0])) * M.CDD(M.DD([0.25]), M.DD([4.0]))
    assert (c.re.hi[0], c.im.hi[0]) == (1.5 * 0.25 + 8.0, 6.0 - 0.5)


# ------------------------------------------------------------------ plans and kernels (host side)

def test_plan_choices():
    assert K.plan(1, 50, 8, True).path == "serial"
    assert K.plan(1 << 16, 10 ** 4, 8, True).path == "serial"
    p = K.plan(1, 4096, 8, True)
    assert p.path == "fused" and p.nt == 128 and p.L * p.nt >= 4096
    assert K.plan(1, 4096, 4, True).nt == 256
    assert K.plan(1024, 65536, 8, True) == K.Plan("fused", 1024, 64, 64)
    p = K.plan(1, 1 << 20, 8, True)
    assert p.path == "scan" and p.L * p.G >= 1 << 20 and p.nt == 256
    assert K.plan(4, 1 << 20, 8, False).path == "scan"
    assert K.plan(4, 5000, 16, True).nt == 128
    assert K.scan_chunk(1 << 24, 8) <= K.SCAN_L_MAX


def test_smem_fits():
    """Every plan's shared memory fits an H100/H200 block (227 KiB)."""
    for d, kind, order in ((2, "sos", 1), (8, "sos", 4), (16, "sos", 8), (16, "ba", 16)):
        for t in "fdFD":
            for nt in K.FUSED_NTS:
                assert K.smem_bytes("fused", kind, order, t, True, nt=nt) <= 227 * 1024
            assert K.smem_bytes("carry", kind, order, t, nt=K.carry_threads(d)) <= 227 * 1024
            assert K.smem_bytes("apply", kind, order, t, True, nt=K.CHUNK_THREADS) < 48 * 1024


def test_pack_layout():
    c = np.array([1.5, -2.0 + 0.5j])
    raw = K.pack("ba", c)
    np.testing.assert_array_equal(np.frombuffer(raw, np.float64), [1.5, -2.0, 0.0, 0.5])
    assert K.pack("sos", np.array([1.0, 2.0], np.float32)) == \
        np.array([1.0, 2.0, 0.0, 0.0]).tobytes()


def test_kernel_source_names_and_errors():
    src, name = K.kernel_source("fused", "sos", 4, np.dtype("int16"), np.dtype("float32"),
                                True, True, 64)
    assert name == "gsiir_fused_sos4_int16_float32_staged_nt64" and name in src
    assert "gs_signal_iir::coef_pack<20>" in src
    with pytest.raises(ValueError):
        K.kernel_source("nope", "sos", 4, np.dtype("d"), np.dtype("d"))
    with pytest.raises(TypeError):
        K.kernel_source("apply", "sos", 4, np.dtype("d"), np.dtype("int32"))
    with pytest.raises(ValueError):
        K.kernel_source("fused", "sos", 4, np.dtype("d"), np.dtype("d"), True, True, 48)
    with pytest.raises(ValueError):
        K.filter_lines("sos", 9, np.zeros(45), 0, "d", K.Lines(1, 1, 0, 1), 0,
                       K.Lines(1, 1, 0, 1), n=10, nch=1)


# ------------------------------------------------------------------ NVRTC compiles

_T = ["float32", "float64", "complex64", "complex128"]
_TIN = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
        "float16", "float32", "float64", "complex64", "complex128"]


def _variants(full=False):
    """Kernel specs. Default: every role and layout the launches use for
    float64 and complex64 (one ba, one sos section), the double-double
    paths (fused, carry) for float32 and complex128, every input dtype
    (apply), the states 2 and 16 of both kinds (apply), every fused block
    size, both fir variants for every compute dtype and a few input dtypes.
    ``full`` (-m slow): every role x layout x compute dtype x state size."""
    v = set()
    for t in _T:
        kind = "ba" if t in ("float32", "complex64") else "sos"
        order = 1
        v.add(("fused", kind, order, t, t, True, True, None))
        v.add(("carry", kind, order, t, t, False, True, None))
        if t in ("float64", "complex64"):
            for st in (True, False):
                v.add(("states", kind, order, t, t, st, True, None))
                v.add(("apply", kind, order, t, t, st, True, None))
        v.add(("fir", "ba", 0, t, t, False, True, None))
        v.add(("fir", "ba", 0, t, t, False, False, None))
    for tin in _TIN:
        v.add(("apply", "ba", 1, tin, "float64", True, True, None))
    for tin in ("bool", "int64", "float16", "complex128"):
        v.add(("fir", "ba", 0, tin, "complex64", False, True, None))
    for nt in K.FUSED_NTS:
        v.add(("fused", "ba", 1, "float32", "float32", True, True, nt))
    for kind, order in (("ba", 2), ("ba", K.DMAX), ("sos", 2), ("sos", K.DMAX // 2)):
        v.add(("apply", kind, order, "float64", "float64", True, True, None))
    if full:
        orders = [("ba", n) for n in range(1, K.DMAX + 1)] + \
            [("sos", s) for s in range(1, K.DMAX // 2 + 1)]
        for kind, order in orders:
            for t in _T:
                v.add(("carry", kind, order, t, t, False, True, None))
                v.add(("fused", kind, order, t, t, True, True, None))
                for role in ("states", "apply"):
                    for st in (True, False):
                        v.add((role, kind, order, t, t, st, True, None))
        for nt in K.FUSED_NTS:
            v.add(("fused", "ba", 4, "complex128", "complex128", True, True, nt))
    return sorted(v, key=str)


def _compile_all(variants, per_unit=8):
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    header = read_source(K._CUH)
    parts = {}
    for spec in variants:
        role, kind, order, tin, t, st, fs, nt = spec
        src, name = K.kernel_source(role, kind, order, np.dtype(tin), np.dtype(t), st, fs, nt)
        assert src.startswith(header) and name in src
        parts[name] = src[len(header):]
    parts = list(parts.values())
    # several wrappers per translation unit (one NVRTC call each)
    units = [parts[i::max(1, len(parts) // per_unit)]
             for i in range(max(1, len(parts) // per_unit))]

    def unit(item):
        k, body = item
        return bool(compile_cubin(header + "".join(body), f"iir_unit{k}", K.OPTIONS))

    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as ex:
        assert all(ex.map(unit, enumerate(units)))


def test_nvrtc_compiles_kernel_variants():
    _compile_all(_variants())


@pytest.mark.slow
def test_nvrtc_compiles_every_state_size_dtype_and_role():
    _compile_all(_variants(full=True))


# ------------------------------------------------------------------ errors (host checks)

def _outcome(f, *args, **kw):
    try:
        f(*args, **kw)
    except Exception as e:  # noqa: BLE001 - compare with SciPy's
        return type(e), str(e)
    return None


_X = np.ones((3, 10))
ERROR_CASES = [
    ("lfilter", ([1, 2, 3], [0, 1], _X), {}),
    ("lfilter", ([1, 2], [1, .5], _X), {"zi": np.zeros((3, 3))}),
    ("lfilter", ([1, 2], [1, .5], _X), {"zi": np.zeros((2,))}),
    ("lfilter", ([1, 2], [1, .5], _X), {"zi": np.zeros((1, 2, 1))}),
    ("lfilter", ([1, 2], [1, .5], np.ones(5)), {"zi": np.zeros((3,))}),
    ("lfilter", ([1, 2, 3, 4], [1, .5], _X), {"zi": np.zeros((3, 1))}),
    ("lfilter", ([1, 2], [1], _X), {"zi": np.zeros((3, 3))}),
    ("lfilter", ([1, 2], [1], _X), {"zi": np.zeros((2,))}),
    ("lfilter", ([1, 2], [1], _X), {"axis": 3}),
    ("lfilter", ([1, 2], [1], _X), {"axis": 3, "zi": np.zeros((3, 1))}),
    ("lfilter", ([1, 2], [1, 1], _X), {"axis": 3}),
    ("lfilter", ([1, 2], [1, 1], _X), {"axis": -3}),
    ("lfilter", ([1, 2], [1, 1], np.arange(4)), {}),
    ("lfilter", ([1, 2], [1], np.arange(4)), {}),
    ("lfilter", (np.array([1, 2], "e"), np.array([1, 1], "e"), np.ones(4, "e")), {}),
    ("lfilter", (np.array([1, 2], "e"), np.array([1], "e"), np.ones(4, "e")), {}),
    ("lfilter", ([1, 2], [1, 1], np.ones(4, bool)), {}),
    ("lfilter", ([[1, 2]], [1, 1.], _X), {}),
    ("lfilter", ([], [1, 1.], _X), {}),
    ("lfilter", ([1], [], _X), {}),
    ("lfilter", ([1, 2], [1], np.ones((3, 0))), {}),
    ("lfilter", ([1, 2], [1], np.ones((0, 3))), {}),
    ("lfilter", ([1, 2], [1., 2], 1.0), {}),
    ("lfilter", ([1, 2], [1.], 1.0), {}),
    ("lfilter", ([1, 2], [1, 1.], np.array(["a"])), {}),
    ("lfilter", ([1, 2], [1, 1.], np.ones(3)), {"zi": 0.0}),
    ("sosfilt", (np.ones((2, 5)), _X), {}),
    ("sosfilt", (np.ones((1, 2, 6)), _X), {}),
    ("sosfilt", ([[1, 0, 0, 2, 0, 0]], _X), {}),
    ("sosfilt", ([[1, 0, 0, 1, 0, 0]], _X), {"zi": np.zeros((1, 3, 3))}),
    ("sosfilt", ([[1, 0, 0, 1, 0, 0]], _X), {"zi": np.zeros((1, 1, 2))}),
    ("sosfilt", ([[1, 0, 0, 1, 0, 0]], _X), {"axis": 2}),
    ("sosfilt", ([[1, 0, 0, 1, 0, 0]], _X), {"axis": -3}),
    ("sosfilt", ([[1, 0, 0, 1, 0, 0]], np.ones((3, 0))), {}),
    ("sosfilt", (np.zeros((0, 6)), _X), {}),
    ("sosfilt", ([[1, 0, 0, 1, 0, 0]], 1.0), {}),
    ("sosfilt", ([[1, 0, 0, 1, 0, 0]], np.arange(3)), {}),
    ("sosfilt", (np.array([[1, 0, 0, 1, 0, 0]], "e"), np.ones(3, "e")), {}),
    ("filtfilt", ([1, 2, 3], [1, .5], np.ones(9)), {}),
    ("filtfilt", ([1, 2, 3], [1, .5], np.ones(19)), {"padlen": 19}),
    ("filtfilt", ([1, 2, 3], [1, .5], np.ones(19)), {"padtype": "x"}),
    ("filtfilt", ([1, 2, 3], [1, .5], np.ones(19)), {"method": "x"}),
    ("filtfilt", ([1], [1], np.ones(19)), {}),
    ("filtfilt", ([1, 2, 3], [1, .5], np.ones(19)), {"axis": 2}),
    ("filtfilt", ([1, 2, 3], [1, .5], np.ones(0)), {"padtype": None}),
    ("sosfiltfilt", ([[1, 2, 1, 1, .5, .1]], np.ones(9)), {}),
    ("sosfiltfilt", ([[1, 2, 0, 1, .5, 0]], np.ones(6)), {}),
    ("sosfiltfilt", ([[1, 2, 1, 1, .5, .1]], 1.0), {}),
    ("sosfiltfilt", ([[1, 2, 1, 1, .5, .1]], np.ones(19)), {"padtype": "y"}),
    ("sosfiltfilt", (np.ones((1, 5)), np.ones(19)), {}),
    ("lfiltic", ([1, 2], [0, 1], [1.]), {}),
    ("lfiltic", ([1, 2], [], [1.]), {}),
    ("lfilter_zi", ([1], [1]), {}),
    ("lfilter_zi", ([[1, 2]], [1, 2]), {}),
    ("sosfilt_zi", ([1, 2, 3],), {}),
]


@pytest.mark.parametrize("name,args,kw", ERROR_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(ERROR_CASES)])
def test_errors_match_scipy(name, args, kw):
    ref = _outcome(getattr(ss, name), *args, **kw)
    if ref is None:
        # SciPy versions differ on a few cases (1.18 accepts a length-1
        # filter in lfilter_zi and filtfilt; 1.17 refuses it): then we must
        # accept it too and give the installed SciPy's answer.
        import gpuscipy_core as gp
        if not gp.is_available():
            pytest.skip("the installed SciPy accepts this case; comparing "
                        "the answers needs a GPU")
        want = np.asarray(getattr(ss, name)(*args, **kw))
        got = getattr(GS, name)(*args, **kw).get()
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
        return
    assert _outcome(getattr(GS, name), *args, **kw) == ref


def test_long_double_is_refused():
    with pytest.raises(TypeError, match="not supported on the GPU"):
        G.lfilter(np.array([1, 2], "g"), [1, 0.5], np.ones(4))
    with pytest.raises(TypeError, match="not supported on the GPU"):
        G.sosfilt(np.array([[1, 0, 0, 1, 0, 0]], "g"), np.ones(4))


@pytest.mark.parametrize("kind,order,filt", [
    ("sos", 4, ss.butter(8, 0.05, output="sos")), ("ba", 4, ss.cheby1(4, 1, 0.2))])
def test_model_segmented_carry(kind, order, filt):
    """The segmented carry (totals, middle carry, walks) against SciPy in
    the blocked tolerance, with and without zi, complete and partial last
    segments."""
    rng = np.random.default_rng(11)
    if kind == "sos":
        c, o = sos_coefs(filt, "d")
    else:
        c, o = ba_coefs(*filt, "d")
    d = K.state_size(kind, o)
    for n in (20000, 16384 + 8192):
        x = rng.standard_normal((2, n))
        zi = rng.standard_normal((2, d))
        y, zf = M.model_scan(kind, o, c, x, zi, L=32, nt=256, S=256)
        if kind == "sos":
            z3 = zi.reshape(2, o, 2).transpose(1, 0, 2)
            ref, _ = ss.sosfilt(filt, x, zi=z3)
            hp, zhp = ss.sosfilt(filt.astype("g"), x.astype("g"), zi=z3.astype("g"))
            zhp = zhp.transpose(1, 0, 2).reshape(2, d)
        else:
            ref, _ = ss.lfilter(*filt, x, zi=zi)
            hp, zhp = ss.lfilter(filt[0].astype("g"), filt[1].astype("g"), x.astype("g"),
                                 zi=zi.astype("g"))
        check_blocked(y, ref, hp)
        np.testing.assert_allclose(zf, zhp.astype("d"), rtol=1e-10, atol=1e-10 * np.abs(hp).max())


def test_model_segmented_carry_middle_fallback(monkeypatch):
    """Healthy segment matrices, an unhealthy middle carry (its higher
    powers cross the limit): segment starts by the serial recursion, walks
    by the segments' scan."""
    b, a = ss.butter(2, 0.00005)
    c, o = ba_coefs(b, a, "d")
    cc = M.widen(c)
    monkeypatch.setitem(M.LIMITS, "ba", 2600.0)
    assert not M._carry_matrices("ba", o, cc, 32, 1, 256)[2].bad
    assert M._carry_matrices("ba", o, cc, 32 * 256, 1, 256)[2].bad
    rng = np.random.default_rng(12)
    x = rng.standard_normal((2, 20000))
    zi = rng.standard_normal((2, o))
    y, _ = M.model_scan("ba", o, c, x, zi, L=32, nt=256, S=256)
    ref, _ = ss.lfilter(b, a, x, zi=zi)
    hp, _ = ss.lfilter(b.astype("g"), a.astype("g"), x.astype("g"), zi=zi.astype("g"))
    check_blocked(y, ref, hp)
    ys, _ = M.model_serial("ba", o, c, x, zi)
    assert not np.array_equal(y, ys)  # the walks ran blocked, not serially


# ------------------------------------------------------------------ Gustafsson

@pytest.mark.parametrize("n,irlen", [(40, None), (300, 50), (300, 150), (300, 200)])
def test_gust_matrices_reproduce_scipy(n, irlen):
    import scipy.linalg as sl
    b, a = ss.cheby1(4, 1, 0.15)
    order = 4
    rng = np.random.default_rng(n)
    x = rng.standard_normal((3, n))
    m = n if irlen is None or n <= 2 * irlen else irlen
    Mm, W = GU.gust_matrices(ss.lfilter, np, b, a, m, order, n)
    y_f = ss.lfilter(b, a, x)
    y_fb = ss.lfilter(b, a, y_f[..., ::-1])[..., ::-1]
    y_b = ss.lfilter(b, a, x[..., ::-1])[..., ::-1]
    d = ss.lfilter(b, a, y_b) - y_fb
    if m != n:
        d = np.concatenate((d[..., :m], d[..., -m:]), axis=-1)
    wic = sl.lstsq(Mm, d.T)[0].T @ W.T
    y = y_fb.copy()
    if m == n:
        y += wic
    else:
        y[..., :m] += wic[..., :m]
        y[..., -m:] += wic[..., -m:]
    np.testing.assert_allclose(y, ss.filtfilt(b, a, x, method="gust", irlen=irlen),
                               rtol=1e-12, atol=1e-12)
