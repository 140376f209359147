"""CPU tests of the convolution family (gpuscipy/signal/_convolve*.py).

* Host rules against the installed SciPy: result dtypes of every method,
  mode windows and the 'valid' swap, fillvalue conversion, empty inputs,
  axes errors, correlation_lags, argument errors (through the drivers run
  with NumPy arrays: every error is raised before any kernel launch).
* NumPy models of the GPU algorithms against SciPy: the direct method's
  plan with the kernels' correlation contract, the rows kernel's tiling
  (tiles, weight chunks, register groups, skewed shared index), overlap-add
  (block layout, overlap-add kernel indices), the analytic signal, the
  sorting networks and windows of medfilt, the Savitzky-Golay edge matrix.
* NVRTC compiles of every kernel variant (one program per family, two
  threads), with ptxas' report checked for the register-only kernels
  (no stack frame: the unrolled register arrays stayed in registers).

Tolerances: float64 models that add in another order than SciPy 1e-12
relative to the largest magnitude of the result; float32 1e-5 (x the
number of terms where stated); integer and bool results exact.
"""

import inspect
import math
import re
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy_core.kernel import read_source
from gpuscipy.signal import _convolve as C
from gpuscipy.signal import _convolve_direct as D
from gpuscipy.signal import _convolve_fft as F
from gpuscipy.signal import _convolve_medfilt as M
from gpuscipy.signal import _convolve_plan as P
from gpuscipy.signal import _convolve_savgol as S

from ._convolve_checks import close as _close

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
          np.int64, np.uint64, np.float16, np.float32, np.float64, np.complex64,
          np.complex128]


def _err(fn):
    """(type, message) of what fn raises, or ('ok', result)."""
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - compared with SciPy's
        return type(e), str(e)


# ------------------------------------------------------------- public API

PUBLIC = ["convolve", "correlate", "fftconvolve", "oaconvolve", "choose_conv_method",
          "correlation_lags", "convolve2d", "correlate2d", "hilbert", "medfilt",
          "savgol_filter"]


@pytest.mark.parametrize("name", PUBLIC)
def test_signature_matches_scipy(name):
    assert name in C.__all__
    ours = inspect.signature(getattr(C, name))
    theirs = inspect.signature(getattr(ss, name))
    assert list(ours.parameters) == list(theirs.parameters)
    for p in theirs.parameters.values():
        assert ours.parameters[p.name].default == p.default, p.name
    doc = getattr(C, name).__doc__
    assert "Returns" in doc and "Parameters" in doc


# ------------------------------------------------------------- dtype rules

def test_direct_result_dtypes_match_scipy():
    """Every dtype pair, 1-D direct (NumPy's loops) and 2-D direct (SciPy's
    N-d code, which refuses bool and float16 results)."""
    for a in DTYPES:
        for b in DTYPES:
            x, y = np.ones(4, a), np.ones(3, b)
            want = ss.convolve(x, y, method="direct").dtype
            assert P.direct_result_dtype(a, b) == want
            kind, got = _err(lambda: ss.convolve(x.reshape(2, 2), y[:2].reshape(1, 2),
                                                 method="direct"))
            supported = P.direct_result_dtype(a, b).char not in "?e"
            assert (kind == "ok") == supported, (a, b, got)
            if not supported:
                assert got == "Unsupported type"
                assert not P.np_conv_ok((2, 2), (1, 2), "full")


def test_fft_result_dtypes_match_scipy():
    for a in DTYPES:
        for b in DTYPES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = ss.fftconvolve(np.ones(5, a), np.ones(3, b)).dtype
            real, cplx = P.fft_dtypes(a, b)
            got = np.dtype(np.complex64 if real == np.float32 else np.complex128) \
                if cplx else real
            assert got == want, (a, b)


def test_acc_dtypes():
    for dt in DTYPES:
        acc = P.acc_dtype(dt)
        assert acc in D.KERNEL_DTYPES
        if np.dtype(dt).kind in "biu":
            assert acc.kind == "u" and acc.itemsize >= np.dtype(dt).itemsize


@pytest.mark.parametrize("n1,n2", [(1, 1), (5, 3), (3, 5), (4, 4), (6, 3), (3, 6),
                                   (7, 2), (2, 8), (10, 1)])
def test_region_matches_scipy_windows(n1, n2):
    """'same' and 'valid' are the centred windows of the full result."""
    rng = np.random.default_rng(n1 * 10 + n2)
    x, y = rng.standard_normal(n1), rng.standard_normal(n2)
    full = ss.convolve(x, y, "full", method="direct")
    for mode in P.MODES:
        n, st = P.region(mode, n1, n2)
        _close(ss.convolve(x, y, mode, method="direct"), full[st:st + n])
        _close(ss.correlate(x, y, mode, method="direct"),
               ss.correlate(x, y, "full", method="direct")[st:st + n])


def test_valid_swap_rule():
    assert P.inputs_swap_needed("valid", (3, 4), (5, 6))
    assert not P.inputs_swap_needed("valid", (5, 6), (3, 4))
    assert not P.inputs_swap_needed("same", (3, 4), (5, 6))
    with pytest.raises(ValueError, match=re.escape(P.MSG_VALID)):
        P.inputs_swap_needed("valid", (3, 7), (5, 6))
    kind, msg = _err(lambda: ss.convolve(np.ones((3, 7)), np.ones((5, 6)), "valid"))
    assert (kind, msg) == (ValueError, P.MSG_VALID)


FILLS = [3, -1, 2.5, 300, np.float32(2), np.array([7]), np.array([[1.5]]), True, 1j,
         np.uint8(5), 2 ** 70, [1, 2], "a", None, np.array(2.0)]


@pytest.mark.parametrize("dt", [np.uint8, np.int8, np.int16, np.int64, np.uint64,
                                np.float32, np.float64, np.complex64, np.complex128])
def test_fill_value_matches_scipy(dt):
    x = np.arange(4).reshape(2, 2).astype(dt)
    for fv in FILLS:
        with warnings.catch_warnings(record=True) as wref:
            warnings.simplefilter("always")
            kind, ref = _err(lambda: ss.convolve2d(x, x, fillvalue=fv))
        with warnings.catch_warnings(record=True) as wgot:
            warnings.simplefilter("always")
            gkind, got = _err(lambda: P.fill_value(fv, dt))
        if kind == "ok":
            assert gkind == "ok", (fv, got)
            # the fill only shows in 'same'/'full' outside: compare the value
            probe = ss.convolve2d(np.zeros((1, 1), dt), np.ones((2, 2), dt), fillvalue=fv)
            assert probe.ravel()[0] == np.asarray(got, dt) * 3 or (
                np.isnan(got) and np.isnan(probe.ravel()[0])), (fv, got, probe)
        else:
            assert (gkind, got) == (kind, ref), fv
        cw = np.exceptions.ComplexWarning
        assert any(w.category is cw for w in wgot) == any(w.category is cw for w in wref)


def _empty_behaviour(f, a, b, mode, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kind, r = _err(lambda: f(np.ones(a), np.ones(b), mode=mode, method=method))
    return ("ok", r.shape) if kind == "ok" else (kind, r)


@pytest.mark.parametrize("a,b", [((0,), (3,)), ((3,), (0,)), ((0,), (0,)),
                                 ((0, 2), (3, 3)), ((3, 3), (0, 2))])
@pytest.mark.parametrize("corr", [False, True])
def test_empty_inputs(a, b, corr):
    """1-D: SciPy's (NumPy's) messages; method='fft': SciPy's IndexError;
    N-d: 'same' with in1 empty gives an empty array, else ValueError (SciPy
    raises unrelated broadcasting errors or returns garbage there)."""
    f = ss.correlate if corr else ss.convolve
    for method in ("direct", "fft", "auto"):
        for mode in P.MODES:
            ref = _empty_behaviour(f, a, b, mode, method)
            # correlate's 'auto' is convolve's (with in2 reversed)
            err = P.empty_error(corr and method == "direct",
                                "direct" if method == "auto" else method, mode, a, b)
            if len(a) == 1 or method == "fft":
                if ref[0] == "ok":
                    assert err is None and ref[1] == a
                else:
                    assert (type(err), str(err)) == ref, (method, mode)
            elif err is None:
                assert ref == ("ok", a)
            else:
                assert isinstance(err, ValueError)


AXES_ERRORS = [([], "when provided, axes cannot be empty"),
               (5, "axes exceeds dimensionality of input"),
               ([0, 0], "all axes must be unique"),
               (1.5, "axes must be a scalar or iterable of integers")]


@pytest.mark.parametrize("axes,msg", AXES_ERRORS)
def test_fft_axes_errors(axes, msg):
    x = np.ones((3, 3))
    assert _err(lambda: ss.fftconvolve(x, x, axes=axes)) == (ValueError, msg)
    assert _err(lambda: C._fftconvolve(np, x, x, "full", axes)) == (ValueError, msg)


def test_fft_axes_shapes():
    x = np.ones((3, 3))
    ref = _err(lambda: ss.fftconvolve(x, x[:2], axes=1))
    assert _err(lambda: C._fftconvolve(np, x, x[:2], "full", 1)) == ref
    assert P.init_freq_conv_axes((3, 3), (1, 3), "full", [1]) == (False, [1])
    assert P.init_freq_conv_axes((3, 1), (3, 3), "valid", None) == (False, [0])
    assert P.init_freq_conv_axes((2, 5), (3, 5), "valid", None) == (True, [0, 1])
    assert P.init_freq_conv_axes((2, 5), (1, 3), "valid", None) == (False, [1])


@pytest.mark.parametrize("n1", range(0, 9))
@pytest.mark.parametrize("n2", range(0, 9))
def test_correlation_lags(n1, n2):
    for mode in P.MODES:
        k, want = _err(lambda: ss.correlation_lags(n1, n2, mode))
        g, got = _err(lambda: C._lags(n1, n2, mode))
        assert k == g
        if k == "ok":
            np.testing.assert_array_equal(got, want)
            assert got.dtype == want.dtype
    assert _err(lambda: C._lags(3, 2, "x")) == _err(lambda: ss.correlation_lags(3, 2, "x"))


# ------------------------------------------------ argument errors (drivers)

X2 = np.arange(9.0).reshape(3, 3)

ERROR_CASES = [
    ("convolve", lambda m, xp: m(xp, X2, X2[0], "full", "auto")),
    ("correlate", lambda m, xp: m(xp, X2, X2[0], "full", "auto")),
    ("convolve", lambda m, xp: m(xp, X2, X2, "foo", "auto")),
    ("convolve", lambda m, xp: m(xp, X2, X2, "foo", "direct")),
    ("convolve", lambda m, xp: m(xp, X2, X2, "full", "foo")),
    ("correlate", lambda m, xp: m(xp, X2, X2, "foo", "auto")),
    ("correlate", lambda m, xp: m(xp, X2, X2, "full", "foo")),
    ("correlate", lambda m, xp: m(xp, X2, X2, "foo", "foo")),
    ("convolve", lambda m, xp: m(xp, X2[:2], X2[:, :2], "valid", "direct")),
    ("correlate", lambda m, xp: m(xp, X2[:2], X2[:, :2], "valid", "fft")),
    ("correlate", lambda m, xp: m(xp, X2[:2], X2[:, :2], "valid", "direct")),
    ("convolve", lambda m, xp: m(xp, X2.astype(bool), X2.astype(bool), "full", "direct")),
    ("convolve", lambda m, xp: m(xp, X2.astype(np.float16), X2.astype(np.float16), "full",
                                 "direct")),
    ("correlate", lambda m, xp: m(xp, X2.astype(bool), X2[:1].astype(bool), "full",
                                  "direct")),
    ("correlate", lambda m, xp: m(xp, X2[0].astype(bool), X2[:, :2].ravel().astype(bool),
                                  "same", "direct")),
]

SCIPY = {"convolve": lambda xp, a, b, mode, method: ss.convolve(a, b, mode, method),
         "correlate": lambda xp, a, b, mode, method: ss.correlate(a, b, mode, method)}
OURS = {"convolve": C._convolve, "correlate": C._correlate}


@pytest.mark.parametrize("k", range(len(ERROR_CASES)))
def test_errors_match_scipy(k):
    name, call = ERROR_CASES[k]
    want = _err(lambda: call(SCIPY[name], None))
    got = _err(lambda: call(OURS[name], np))
    assert want[0] != "ok"
    assert got == want


def test_conv2d_errors_match_scipy():
    x = np.arange(12.0).reshape(3, 4)
    cases = [dict(in2=x[0]), dict(mode="foo"), dict(boundary="foo"),
             dict(boundary="reflect"), dict(fillvalue=[1, 2]),
             dict(in1=x.astype(bool), in2=x.astype(bool)),
             dict(in1=x.astype(np.float16), in2=x.astype(np.float16)),
             dict(in2=np.ones((2, 6)), mode="valid"),
             dict(in1=x.astype(bool), in2=x.astype(bool), fillvalue=[1, 2]),
             dict(mode="foo", boundary="bar"), dict(fillvalue=1j)]
    for case in cases:
        kw = dict(case)
        a, b = kw.pop("in1", x), kw.pop("in2", x)
        for corr, f in ((False, ss.convolve2d), (True, ss.correlate2d)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = _err(lambda: f(a, b, **kw))
                got = _err(lambda: C._conv2d(np, a, b, kw.get("mode", "full"),
                                             kw.get("boundary", "fill"),
                                             kw.get("fillvalue", 0), corr))
            assert want[0] != "ok"
            assert got == want, case


def _nonfinite_edges():
    """(x, window_length, axis) with an inf or NaN inside an edge window."""
    out = []
    for pos, bad, wl in ((0, np.nan, 1), (4, np.inf, 5), (-5, -np.inf, 5), (-1, np.nan, 3)):
        v = np.arange(20.0)
        v[pos] = bad
        out.append((v, wl, -1))
    m = np.ones((20, 3))
    m[-2, 1] = np.nan
    out.append((m, 5, 0))
    return out


def test_hilbert_medfilt_savgol_errors():
    x = np.arange(10.0)
    for call_ss, call_ours in [
        (lambda: ss.hilbert(x + 1j), lambda: C._hilbert(np, x + 1j, None, -1)),
        (lambda: ss.hilbert(x, 0), lambda: C._hilbert(np, x, 0, -1)),
        (lambda: ss.hilbert(x, -3), lambda: C._hilbert(np, x, -3, -1)),
        (lambda: ss.medfilt(x, 4), lambda: M._medfilt(np, x, 4)),
        (lambda: ss.medfilt(x.astype(bool)), lambda: M._medfilt(np, x.astype(bool), None)),
        (lambda: ss.medfilt(x.astype(np.float16)),
         lambda: M._medfilt(np, x.astype(np.float16), None)),
        (lambda: ss.medfilt(x + 1j), lambda: M._medfilt(np, x + 1j, None)),
        (lambda: ss.medfilt(x, [3, 3]), lambda: M._medfilt(np, x, [3, 3])),
        (lambda: ss.medfilt(x, 3.0), lambda: M._medfilt(np, x, 3.0)),
        (lambda: ss.savgol_filter(x, 5, 2, mode="x"),
         lambda: S._savgol(np, x, 5, 2, 0, 1.0, -1, "x", 0.0)),
        (lambda: ss.savgol_filter(x, 5, 5), lambda: S._savgol(np, x, 5, 5, 0, 1.0, -1,
                                                              "interp", 0.0)),
        (lambda: ss.savgol_filter(x, 11, 2), lambda: S._savgol(np, x, 11, 2, 0, 1.0, -1,
                                                               "interp", 0.0)),
    ] + [
        # a non-finite sample in an 'interp' edge window (first or last
        # window_length samples of any line; window_length 1 too)
        (lambda v=v, wl=wl, ax=ax: ss.savgol_filter(v, wl, 0, axis=ax),
         lambda v=v, wl=wl, ax=ax: S._savgol(np, v, wl, 0, 0, 1.0, ax, "interp", 0.0))
        for v, wl, ax in _nonfinite_edges()
    ]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = _err(call_ss)
            got = _err(call_ours)
        assert want[0] != "ok"
        assert got == want


def test_medfilt_warns_like_scipy(monkeypatch):
    monkeypatch.setattr(M, "run", lambda xp, v, ks: ks)
    with pytest.warns(UserWarning, match="kernel_size exceeds volume extent"):
        assert M._medfilt(np, np.arange(3.0), 5) == [5]
    assert M._medfilt(np, np.ones((4, 5), np.int8), [3, 5]) == [3, 5]
    with pytest.warns(UserWarning):
        assert M._medfilt(np, np.float64(2.0), None) == [3]     # 0-d: one sample


def test_choose_mode_error():
    x = np.ones(10)
    want = _err(lambda: ss.choose_conv_method(x, x, mode="foo"))
    assert _err(lambda: C._choose(np, x, x, "foo")) == want


# ------------------------------------------------------------ cost model

def test_cost_model_choices():
    """The choices the H200 figures call for (docs/signal-convolve.md)."""
    from scipy.fft import next_fast_len
    f4 = np.float32
    plan = P.fft_plan((1 << 24,), (511,), [0], np.dtype(f4), False, next_fast_len)
    assert plan[0] == "oa" and plan[2] >= 2 * 511 - 1
    assert P.choose_method((1 << 24,), (511,), "full", f4, f4, next_fast_len) == "fft"
    assert P.choose_method((1 << 24,), (31,), "full", f4, f4, next_fast_len) == "direct"
    assert P.choose_method((4096, 4096), (3, 3), "same", f4, f4, next_fast_len) == "direct"
    assert P.choose_method((4096, 4096), (63, 63), "same", f4, f4, next_fast_len) == "fft"
    assert P.choose_method((1000,), (1000,), "full", f4, f4, next_fast_len) == "direct"
    assert P.choose_method((8,), (8,), "full", bool, bool, next_fast_len) == "direct"
    assert P.fft_plan((4096,), (4096,), [0], np.dtype(f4), False, next_fast_len)[0] == \
        "single"


# ------------------------------------------------------------ NumPy models

@pytest.mark.parametrize("seed", range(6))
def test_model_direct_matches_scipy(seed):
    rng = np.random.default_rng(seed)
    for _ in range(30):
        nd = int(rng.integers(1, 4))
        s1 = tuple(int(v) for v in rng.integers(1, 7, nd))
        s2 = tuple(int(v) for v in rng.integers(1, 7, nd))
        dt = np.dtype(rng.choice(["f8", "c16", "i2", "i1", "u1", "?", "f4", "u8"]))
        a = (rng.standard_normal(s1) * 40).astype(dt)
        b = (rng.standard_normal(s2) * 40).astype(dt)
        if dt.kind == "c":
            a = a + 1j * rng.standard_normal(s1)
            b = b - 2j * rng.standard_normal(s2)
        if dt == "u8":
            a, b = np.abs(a), np.abs(b)
        for mode in P.MODES:
            for corr, f in ((False, ss.convolve), (True, ss.correlate)):
                kind, ref = _err(lambda: f(a, b, mode, method="direct"))
                if kind != "ok":
                    continue
                _close(C.model_direct(a, b, mode, corr), ref,
                       1e-5 * math.prod(s2) if dt == "f4" else 1e-12)


@pytest.mark.parametrize("acc", ["f4", "f8", "c16", "u4"])
@pytest.mark.parametrize("L,K,s", [(5000, 1500, -1499), (3000, 37, -18), (100, 2100, -5),
                                   (2049, 1, 0), (70, 300, -299)])
def test_model_rows_tiling(acc, L, K, s):
    """The rows kernel's blocking (tiles, chunks of KC weights, groups of R
    taps with the sliding window, the skewed tile) equals the contract."""
    rng = np.random.default_rng(L + K)
    acc = np.dtype(acc)
    x = (rng.standard_normal(L) * 20).astype(acc)
    w = (rng.standard_normal(K) * 20).astype(acc)
    lout = L + K - 1
    for ext in ("fill", "wrap", "mirror"):
        got = D.model_rows_tiled(x, w, lout, s, acc, ext, fill=1)
        want = D.model_correlate(x, w, (lout,), [s], acc, ext=ext, fill=1)
        if acc.kind == "u":
            np.testing.assert_array_equal(got, want)
        else:
            _close(got, want, 1e-4 if acc == np.float32 else 1e-12)


def test_model_correlate_extensions_match_ndimage_and_convolve2d():
    from scipy.ndimage import convolve1d
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 9):
        for k in (1, 2, 3, 8, 23):
            x, c = rng.standard_normal(n), rng.standard_normal(k)
            for mode, ext in (("wrap", "wrap"), ("mirror", "mirror"),
                              ("nearest", "nearest"), ("reflect", "symm"),
                              ("constant", "fill")):
                want = convolve1d(x, c, mode=mode, cval=1.5)
                got = D.model_correlate(x, c[::-1].copy(), (n,), [-((k - 1) // 2)],
                                        np.float64, ext=ext, fill=1.5)
                _close(got, want)
    a = rng.standard_normal((4, 5))
    b = rng.standard_normal((3, 7))
    for bd, ext in (("wrap", "wrap"), ("symm", "symm"), ("fill", "fill")):
        for mode in P.MODES[:2]:
            reg = [P.region(mode, 4, 3), P.region(mode, 5, 7)]
            got = D.model_correlate(a, b[::-1, ::-1].copy(), [r[0] for r in reg],
                                    [reg[0][1] - 2, reg[1][1] - 6], np.float64,
                                    ext=ext, fill=2.0)
            _close(got, ss.convolve2d(a, b, mode, bd, 2.0))


@pytest.mark.parametrize("L,K,N", [(1000, 37, 128), (1000, 37, 64), (257, 128, 256),
                                   (5000, 511, 4096), (4097, 2, 4), (300, 100, 512)])
def test_model_overlap_add(L, K, N):
    rng = np.random.default_rng(L)
    x, h = rng.standard_normal(L), rng.standard_normal(K)
    for mode in P.MODES:
        _close(F.model_oa(x, h, N, mode), ss.convolve(x, h, mode, method="direct"), 1e-11)
    S_, nb = F.oa_layout(L, K, N)
    assert S_ == N - K + 1 and (nb - 1) * S_ < L <= nb * S_


def test_model_analytic_matches_scipy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 16))
    for N in (16, 17, 1, 2, 31, 40):
        for axis in (-1, 0):
            n = N if axis == -1 else min(N, 5)
            _close(F.model_analytic(x, n, axis), ss.hilbert(x, n, axis))


@pytest.mark.parametrize("n", range(1, 50))
def test_sorting_networks_sort(n):
    rng = np.random.default_rng(n)
    net = M.network(n)
    for _ in range(30):
        a = rng.integers(0, 4, n)
        b = a.copy()
        for i, j in net:
            if b[j] < b[i]:
                b[i], b[j] = b[j], b[i]
        np.testing.assert_array_equal(b, np.sort(a))


@pytest.mark.parametrize("shape,ks,kinds", [
    ((50,), [5], ("net", "net")), ((30,), [31], ("sel3", "net")),
    ((40,), [51], ("sel3", "sel3")), ((12, 15), [3, 5], ("small", "small")),
    ((9, 10), [7, 7], ("sel3", "net")), ((6, 7, 8), [3, 3, 3], ("sel3", "net")),
    ((5, 6, 7), [1, 5, 3], ("small", "small")), ((3, 4, 5, 6), [3, 1, 3, 3], ("sel", "sel")),
    ((5,), [9], ("net", "net"))])
def test_model_medfilt_matches_scipy(shape, ks, kinds):
    """The emulated kernels equal SciPy; ``kinds`` is the kernel the planner
    picks for 8- and 4-byte keys (networks hold up to 25 eight-byte or 49
    four-byte keys; multi-axis windows of 15 keep 8 extremes; more than 3
    axes take the generic kernel)."""
    rng = np.random.default_rng(len(shape))
    for dt in ("f8", "f4", "i4", "u4", "i8"):
        v = (rng.standard_normal(shape) * 30).astype(dt)
        if dt[0] == "u":
            v = np.abs(v)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = ss.medfilt(v, ks)
        got = M.model_medfilt(v, ks)
        np.testing.assert_array_equal(got, want)
        assert M.plan(shape, ks, dt)[0] == kinds[dt[1] != "8"]


def test_savgol_edge_matrix_exact():
    """A case where SciPy's own savgol_coeffs(pos=...) is off by 100%: the
    Legendre-basis matrix agrees with exact rational interpolation."""
    sympy = pytest.importorskip("sympy")
    rng = np.random.default_rng(5)
    wl, po, deriv = 14, 13, 2
    x = rng.standard_normal(wl)
    t = sympy.symbols("t")
    pts = [(i, sympy.Rational(float(x[i])).limit_denominator(10 ** 15)) for i in range(wl)]
    d = sympy.diff(sympy.interpolate(pts, t), t, deriv)
    exact = np.array([float(d.subs(t, i)) for i in range(wl // 2)])
    got = S.edge_matrix(wl, po, deriv, 1.0)[:wl // 2] @ x
    _close(got, exact, 1e-7)


@pytest.mark.parametrize("mode", ["interp", "mirror", "constant", "nearest", "wrap"])
def test_model_savgol_matches_scipy(mode):
    rng = np.random.default_rng(1)
    for wl, po, dv, n in ((5, 2, 0, 20), (11, 3, 1, 40), (10, 4, 2, 10), (7, 0, 0, 7),
                          (9, 6, 3, 50), (4, 1, 0, 3), (1, 0, 0, 4), (8, 7, 0, 30)):
        if mode == "interp" and wl > n:
            continue
        x = rng.standard_normal(n)
        _close(S.model_savgol(x, wl, po, dv, 0.7, mode, 0.3),
               ss.savgol_filter(x, wl, po, dv, 0.7, mode=mode, cval=0.3), 1e-9)


# ------------------------------------------------------------ NVRTC compiles

def _families():
    out = []
    by_kind = {}
    for v in D.variants():
        by_kind.setdefault(v[0], []).append(D.kernel_wrapper(*v))
    for kind, wrappers in by_kind.items():
        out.append((f"direct_{kind}", D.header(), wrappers, kind != "nd"))
    fh = read_source(F._CUH)
    out.append(("fft", fh, [F.kernel_source(*v)[0][len(fh):] for v in F.variants()],
                False))
    mh = read_source(M._CUH)
    for kind in ("net", "small", "sel3", "sel"):
        vs = [v for v in M.variants() if v[0] == kind]
        out.append((f"medfilt_{kind}", mh,
                    [M.kernel_source(*v)[0][len(mh):] for v in vs], kind == "net"))
    sh = read_source(S._CUH)
    out.append(("savgol", sh, [S.kernel_source(v)[0][len(sh):] for v in S.variants()],
                False))
    return out


def _compile_with_report(source, name):
    """NVRTC with compile_cubin's options plus ptxas' report; returns the log."""
    from cuda.bindings import nvrtc

    from gpuscipy_core._kernel._nvrtc import NVRTCError, include_dir
    opts = [b"--gpu-architecture=sm_90", b"-std=c++17",
            f"-I{include_dir()}".encode(), b"--ptxas-options=-v"]
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), f"{name}.cu".encode(), 0, [],
                                         [])
    try:
        err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        log = log.decode(errors="replace")
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise NVRTCError(name, log, source)
        return log
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def test_every_kernel_variant_compiles():
    """Every variant of every family in one NVRTC program per family; the
    tiled and network kernels must keep their unrolled arrays (outputs,
    windows, sorting keys) in registers."""
    fams = _families()
    names = sum(len(w) for _, _, w, _ in fams)
    assert names == (len(D.variants()) + len(F.variants()) + len(M.variants())
                     + len(S.variants()))

    def build(fam):
        name, header, wrappers, register_only = fam
        log = _compile_with_report(header + "\n" + "\n".join(wrappers), name)
        frames = re.findall(r"Function properties for (\w+)\s*\n\s*ptxas\s*\.\s*(\d+) "
                            r"bytes stack frame", log)
        return name, register_only, dict(frames), len(wrappers)

    with ThreadPoolExecutor(2) as ex:
        results = list(ex.map(build, fams))
    for name, register_only, frames, count in results:
        assert len(frames) == count, (name, frames)
        if register_only:
            # a spilled register array would take at least 64 bytes (a few
            # bytes of ordinary spills are ptxas' choice, e.g. net49)
            assert all(int(v) < 64 for v in frames.values()), (name, frames)


def test_kernel_sources_are_pure():
    v = D.variants()[0]
    assert D.kernel_source(*v) == D.kernel_source(*v)
    src, name = D.kernel_source(*v)
    assert name in src and src.startswith(D.header())
    with pytest.raises(ValueError):
        M.kernel_source("net", np.float64, 49)     # 64-bit keys stop at 25
    with pytest.raises(ValueError):
        F.kernel_source("analytic", np.float32, True)
