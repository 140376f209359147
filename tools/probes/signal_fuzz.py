"""Random parity sweep of gpuscipy.signal (and the gpuscipy.fft transforms
under it) against SciPy (needs a GPU).

Draws random cases (function, dtype, shape, axis, a strided or reversed
view, parameters), runs them with NumPy input through SciPy and with the
same view on the device through gpuscipy, and records every disagreement:
a value error above the tolerance, a different dtype or shape, or one side
raising where the other does not (or raising another exception type).

    python tools/probes/signal_fuzz.py [--seconds 120] [--seed 0] [--out DIR]
    python tools/probes/signal_fuzz.py --self-check --seconds 30   # no GPU
    python tools/probes/signal_fuzz.py --only fft convolve         # some families
                                  (replay a seed with the same --only)

Each case prints one line on a disagreement, with the seed that replays it
(``--replay SEED``). Tolerances, relative to the largest magnitude of SciPy's
result: 1e-9 for double precision, 2e-3 for single (SciPy computes many
single-precision inputs in double; recursive filters amplify the rounding).
A probe, not a test: the suite's parity tests state the real tolerances.
"""

import argparse
import json
import os
import sys
import time
import traceback
import warnings

import numpy as np
import scipy.fft as sfft
import scipy.signal as ss


class _HostSide:
    """--self-check: SciPy on both sides (checks the probe without a GPU)."""
    asarray = staticmethod(np.asarray)


gp = gs = gfft = None                   # bound in main()

DTYPES = ["int16", "int32", "int64", "float32", "float64", "complex64", "complex128"]
TOL = {"f": 2e-3, "F": 2e-3, "d": 1e-9, "D": 1e-9}


def _pick(rng, options):
    """One of ``options`` (any objects: rng.choice would make an array of them)."""
    return options[int(rng.integers(len(options)))]


def _data(rng, shape, dtype):
    x = rng.standard_normal(shape) + 0.3 * np.sin(0.05 * np.arange(shape[-1] if shape else 1))
    dt = np.dtype(dtype)
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    elif dt.kind in "iu":
        x = np.round(x * 30)
    x = np.asarray(x).astype(dt)
    if rng.random() < 0.05 and dt.kind in "fc" and x.size:
        x.flat[rng.integers(x.size)] = np.nan
    return x


def _view(rng, x):
    """Host array and the same view of a device copy (strided/reversed/transposed)."""
    kind = rng.choice(["c", "step", "rev", "T"]) if x.ndim else "c"
    if kind == "c":
        return x, gp.asarray(x), kind
    if kind == "T" and x.ndim >= 2:
        return x.T, gp.asarray(x).T, kind
    ax = int(rng.integers(x.ndim))
    sl = [slice(None)] * x.ndim
    sl[ax] = slice(None, None, 2) if kind == "step" else slice(None, None, -1)
    sl = tuple(sl)
    return x[sl], gp.asarray(x)[sl], kind


def _shape(rng, ndim=None, nmax=300):
    ndim = int(rng.integers(1, 4)) if ndim is None else ndim
    shape = [int(rng.choice([1, 2, 3, 5])) for _ in range(ndim)]
    shape[int(rng.integers(ndim))] = int(rng.choice([0, 1, 2, 7, 33, nmax, 1000]))
    return tuple(shape)


def _ba(rng, dtype=None):
    order = int(rng.integers(1, 6))
    b, a = ss.butter(order, float(rng.uniform(0.05, 0.9)),
                     btype=str(rng.choice(["low", "high"])))
    if rng.random() < 0.2:
        a = a * 2.0
    return b, a


def _sos(rng):
    order = int(rng.integers(1, 9))
    return ss.butter(order, float(rng.uniform(0.05, 0.9)), output="sos")


# --------------------------------------------------------------- the cases
# Each returns (name, scipy_call, gpu_call) where the calls take the module
# (scipy.signal or gpuscipy.signal) and the input (NumPy or device view).

def case_lfilter(rng):
    x = _data(rng, _shape(rng), rng.choice(DTYPES))
    b, a = _ba(rng)
    axis = int(rng.integers(-x.ndim, x.ndim))
    zi = None
    if rng.random() < 0.4 and min(x.shape) >= 2:    # SciPy's zf of no samples: garbage
        zshape = list(x.shape)
        zshape[axis] = max(len(a), len(b)) - 1
        zi = rng.standard_normal(zshape)
    desc = f"lfilter order {len(a) - 1} axis {axis} zi {zi is not None}"
    def call(m, xx, to):
        return m.lfilter(to(b), to(a), xx, axis=axis, zi=None if zi is None else to(zi))
    return desc, x, call


def case_sosfilt(rng):
    x = _data(rng, _shape(rng), rng.choice(DTYPES))
    sos = _sos(rng)
    axis = int(rng.integers(-x.ndim, x.ndim))
    zi = None
    if rng.random() < 0.4:
        zshape = [sos.shape[0]] + list(x.shape)
        zshape[axis if axis < 0 else axis + 1] = 2
        zi = rng.standard_normal(zshape)
    desc = f"sosfilt {sos.shape[0]} sections axis {axis} zi {zi is not None}"
    def call(m, xx, to):
        return m.sosfilt(to(sos), xx, axis=axis, zi=None if zi is None else to(zi))
    return desc, x, call


def case_filtfilt(rng):
    x = _data(rng, _shape(rng, nmax=400), rng.choice(DTYPES))
    b, a = _ba(rng)
    axis = int(rng.integers(-x.ndim, x.ndim))
    padtype = _pick(rng, ["odd", "even", "constant", None])
    method = "gust" if rng.random() < 0.2 else "pad"
    padlen = None if rng.random() < 0.7 else int(rng.integers(0, 20))
    desc = f"filtfilt axis {axis} padtype {padtype} padlen {padlen} method {method}"
    def call(m, xx, to):
        return m.filtfilt(to(b), to(a), xx, axis=axis, padtype=padtype, padlen=padlen,
                          method=method)
    return desc, x, call


def case_sosfiltfilt(rng):
    x = _data(rng, _shape(rng, nmax=400), rng.choice(DTYPES))
    sos = _sos(rng)
    axis = int(rng.integers(-x.ndim, x.ndim))
    padtype = _pick(rng, ["odd", "even", "constant", None])
    padlen = None if rng.random() < 0.7 else int(rng.integers(0, 20))
    desc = f"sosfiltfilt axis {axis} padtype {padtype} padlen {padlen}"
    def call(m, xx, to):
        return m.sosfiltfilt(to(sos), xx, axis=axis, padtype=padtype, padlen=padlen)
    return desc, x, call


def case_convolve(rng):
    nd = int(rng.integers(1, 3))
    dt = rng.choice(DTYPES)
    x = _data(rng, _shape(rng, nd, nmax=500), dt)
    k = _data(rng, _shape(rng, nd, nmax=40), rng.choice([dt, "float64", "float32"]))
    fn = rng.choice(["convolve", "correlate", "fftconvolve", "oaconvolve"])
    mode = rng.choice(["full", "same", "valid"])
    extra = {}
    if fn in ("convolve", "correlate"):
        extra["method"] = rng.choice(["auto", "direct", "fft"])
    desc = f"{fn} mode {mode} {extra} kernel {k.shape} {k.dtype}"
    def call(m, xx, to):
        return getattr(m, fn)(xx, to(k), mode=mode, **extra)
    return desc, x, call


def case_convolve2d(rng):
    dt = rng.choice(DTYPES)
    x = _data(rng, _shape(rng, 2, nmax=60), dt)
    k = _data(rng, tuple(int(v) for v in rng.integers(0, 8, size=2)), dt)
    fn = rng.choice(["convolve2d", "correlate2d"])
    mode = rng.choice(["full", "same", "valid"])
    boundary = rng.choice(["fill", "wrap", "symm"])
    if x.size == 0 or k.size == 0:
        boundary = "fill"                   # SciPy 1.17 dies of SIGFPE on 'wrap'
    fillvalue = float(rng.choice([0, 1.5]))
    desc = f"{fn} mode {mode} boundary {boundary} fill {fillvalue} kernel {k.shape}"
    def call(m, xx, to):
        return getattr(m, fn)(xx, to(k), mode=mode, boundary=boundary, fillvalue=fillvalue)
    return desc, x, call


def case_resample_poly(rng):
    x = _data(rng, _shape(rng, nmax=500), rng.choice(DTYPES))
    up, down = int(rng.integers(1, 8)), int(rng.integers(1, 8))
    axis = int(rng.integers(-x.ndim, x.ndim))
    padtype = rng.choice(["constant", "mean", "median", "line", "edge", "maximum",
                          "minimum", "antisymmetric", "symmetric", "reflect", "wrap"])
    if min(x.shape) < 4:                    # as in case_upfirdn
        padtype = "constant"
    desc = f"resample_poly {up}/{down} axis {axis} padtype {padtype}"
    def call(m, xx, to):
        return m.resample_poly(xx, up, down, axis=axis, padtype=padtype)
    return desc, x, call


def case_upfirdn(rng):
    x = _data(rng, _shape(rng, nmax=300), rng.choice(DTYPES))
    h = rng.standard_normal(int(rng.integers(1, 20)))
    up, down = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    axis = int(rng.integers(-x.ndim, x.ndim))
    mode = rng.choice(["constant", "symmetric", "reflect", "edge", "wrap", "antisymmetric",
                       "antireflect", "line", "smooth"])
    if min(x.shape) < 4:                    # (any axis after a view)
        mode = "constant"                   # SciPy 1.17 dies of SIGFPE or reads garbage
    desc = f"upfirdn {up}/{down} taps {h.size} axis {axis} mode {mode}"
    def call(m, xx, to):
        return m.upfirdn(to(h), xx, up, down, axis=axis, mode=mode, cval=0.5)
    return desc, x, call


def case_resample(rng):
    x = _data(rng, _shape(rng, nmax=200), rng.choice(DTYPES))
    num = int(rng.integers(1, 400))
    axis = int(rng.integers(-x.ndim, x.ndim))
    window = _pick(rng, [None, "hann", ("kaiser", 5.0)])
    desc = f"resample num {num} axis {axis} window {window}"
    def call(m, xx, to):
        return m.resample(xx, num, axis=axis, window=window)
    return desc, x, call


def case_decimate(rng):
    x = _data(rng, _shape(rng, nmax=600), rng.choice(["float32", "float64", "complex128"]))
    q = int(rng.integers(2, 6))
    ftype = rng.choice(["iir", "fir"])
    zero_phase = bool(rng.random() < 0.5)
    axis = int(rng.integers(-x.ndim, x.ndim))
    desc = f"decimate q {q} {ftype} zero_phase {zero_phase} axis {axis}"
    def call(m, xx, to):
        return m.decimate(xx, q, ftype=ftype, zero_phase=zero_phase, axis=axis)
    return desc, x, call


def case_hilbert_detrend(rng):
    x = _data(rng, _shape(rng, nmax=300), rng.choice(DTYPES))
    axis = int(rng.integers(-x.ndim, x.ndim))
    if rng.random() < 0.5:
        N = None if rng.random() < 0.7 else int(rng.integers(1, 400))
        desc = f"hilbert N {N} axis {axis}"
        def call(m, xx, to):
            return m.hilbert(xx, N=N, axis=axis)
    else:
        typ = rng.choice(["linear", "constant"])
        n = x.shape[axis]
        bp = 0 if rng.random() < 0.6 or n < 3 else sorted(
            {int(v) for v in rng.integers(1, n, size=2)})
        desc = f"detrend {typ} bp {bp} axis {axis}"
        def call(m, xx, to):
            return m.detrend(xx, axis=axis, type=typ, bp=bp)
    return desc, x, call


def case_spectral(rng):
    x = _data(rng, _shape(rng, nmax=1000), rng.choice(DTYPES))
    axis = int(rng.integers(-x.ndim, x.ndim))
    fn = rng.choice(["welch", "periodogram", "csd", "coherence", "spectrogram", "stft"])
    kw = {}
    n = x.shape[axis]
    if fn != "periodogram":
        kw["nperseg"] = int(_pick(rng, [8, 16, 64, 256]))
        if rng.random() < 0.5:
            kw["noverlap"] = int(rng.integers(0, kw["nperseg"]))
    kw["window"] = _pick(rng, ["hann", "boxcar", ("tukey", 0.3)]) if fn != "periodogram" else \
        _pick(rng, ["boxcar", "hann"])
    kw["detrend"] = _pick(rng, ["constant", "linear", False]) if fn != "stft" else False
    if kw["detrend"] == "linear" and min(x.shape) < 6:
        kw["detrend"] = "constant"          # SciPy's lstsq on < 3 samples: LAPACK noise
    if fn in ("welch", "csd"):
        kw["average"] = rng.choice(["mean", "median"])
    if fn in ("welch", "periodogram", "csd", "spectrogram"):
        kw["scaling"] = rng.choice(["density", "spectrum"])
        if x.dtype.kind != "c":
            kw["return_onesided"] = bool(rng.random() < 0.7)
    if fn == "spectrogram":
        kw["mode"] = rng.choice(["psd", "complex", "magnitude", "angle", "phase"])
        if kw["mode"] in ("angle", "phase"):
            kw["mode"] = "magnitude"       # phases of noise bins are compared poorly
    if fn == "stft":
        kw.pop("detrend")
        kw["boundary"] = _pick(rng, ["zeros", "even", "odd", "constant", None])
        kw["padded"] = bool(rng.random() < 0.7)
    fs = float(rng.choice([1.0, 360.0]))
    desc = f"{fn} axis {axis} n {n} {kw}"
    # y has the view's shape (drawn when called, the same on both sides):
    # SciPy's csd fails on some broadcasts of different lengths
    two = fn in ("csd", "coherence")
    yseed, ydt = int(rng.integers(1 << 31)), str(rng.choice(["float64", "float32"]))
    # the DC bin of detrended segments is rounding noise: its coherence is a
    # ratio of noise in both libraries, so it is left out
    drop_dc = fn == "coherence" and kw["detrend"] is not False

    def call(m, xx, to):
        args = (to(_data(np.random.default_rng(yseed), tuple(xx.shape), ydt)),) if two else ()
        out = getattr(m, fn)(xx, *args, fs=fs, axis=axis, **kw)
        if drop_dc:
            f, c = out
            ax = axis % c.ndim
            out = (f[1:], c[(slice(None),) * ax + (slice(1, None),)])
        return out
    return desc, x, call


def case_peaks(rng):
    n = int(rng.choice([0, 1, 3, 50, 500]))
    x = np.round(_data(rng, (n,), "float64") * rng.choice([1, 4]), int(rng.integers(0, 3)))
    kw = {}
    for k, lo, hi in (("height", -1, 1), ("threshold", 0, 0.5), ("prominence", 0, 1.5),
                      ("width", 0, 3)):
        if rng.random() < 0.4:
            kw[k] = float(rng.uniform(lo, hi)) if rng.random() < 0.7 else (
                float(rng.uniform(lo, hi)), None)
    if rng.random() < 0.4:
        kw["distance"] = float(rng.choice([1, 2, 5.5, 20]))
    if rng.random() < 0.2:
        kw["plateau_size"] = int(rng.integers(1, 3))
    if rng.random() < 0.3:
        kw["wlen"] = int(rng.integers(3, 30))
    if rng.random() < 0.2 and "width" in kw:
        kw["rel_height"] = float(rng.uniform(0.1, 1))
    desc = f"find_peaks n {n} {kw}"
    def call(m, xx, to):
        p, props = m.find_peaks(xx, **kw)
        return (p,) + tuple(props[k] for k in sorted(props))
    return desc, x, call


def case_argrel_medfilt_savgol(rng):
    kind = rng.choice(["argrelmax", "argrelmin", "medfilt", "savgol"])
    x = _data(rng, _shape(rng, nmax=200), rng.choice(DTYPES))
    axis = int(rng.integers(-x.ndim, x.ndim))
    if kind in ("argrelmax", "argrelmin"):
        x = np.round(x.real if x.dtype.kind == "c" else x)
        order = int(rng.integers(1, 4))
        mode = rng.choice(["clip", "wrap"])
        desc = f"{kind} order {order} mode {mode} axis {axis}"
        def call(m, xx, to):
            return getattr(m, kind)(xx, axis=axis, order=order, mode=mode)
    elif kind == "medfilt":
        ks = [int(rng.choice([1, 3, 5])) for _ in range(x.ndim)]
        x = x.real.copy() if x.dtype.kind == "c" else x
        desc = f"medfilt kernel {ks}"
        def call(m, xx, to):
            return m.medfilt(xx, ks)
    else:
        wl = int(rng.choice([3, 5, 7, 11]))
        po = int(rng.integers(0, wl))
        deriv = int(rng.integers(0, 3))
        mode = rng.choice(["mirror", "constant", "nearest", "wrap", "interp"])
        desc = f"savgol wl {wl} po {po} deriv {deriv} mode {mode} axis {axis}"
        def call(m, xx, to):
            return m.savgol_filter(xx, wl, po, deriv=deriv, delta=0.5, axis=axis, mode=mode,
                                   cval=0.25)
    return desc, x, call


_FFT_NAMES = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "rfftn", "irfftn",
              "dct", "idct", "dst", "idst", "dctn"]
_REAL_ONLY = ("rfft", "ihfft", "rfftn")


def case_fft(rng):
    """gpuscipy.fft itself (the transforms under the signal functions)."""
    name = _pick(rng, _FFT_NAMES)
    x = _data(rng, _shape(rng), _pick(rng, DTYPES[:5] if name in _REAL_ONLY else DTYPES))
    kw = {"norm": _pick(rng, [None, "ortho", "forward"])}
    if name.endswith("n"):
        k = int(rng.integers(1, x.ndim + 1))
        kw["axes"] = tuple(int(a) for a in rng.permutation(x.ndim)[:k])
        if rng.random() < 0.3:
            kw["s"] = [int(rng.integers(1, 40)) for _ in kw["axes"]]
    else:
        kw["axis"] = int(rng.integers(-x.ndim, x.ndim))
        if rng.random() < 0.4:
            kw["n"] = int(rng.integers(1, 80))
    if name.startswith(("dct", "idct", "dst", "idst")):
        kw["type"] = int(rng.integers(1, 5))
    desc = f"fft.{name} {kw}"
    def call(m, xx, to):
        return getattr(sfft if m is ss else gfft, name)(xx, **kw)
    return desc, x, call


FFT_CASES = (case_convolve, case_resample, case_spectral, case_hilbert_detrend, case_fft)
CASES = [case_lfilter, case_sosfilt, case_filtfilt, case_sosfiltfilt, case_convolve,
         case_convolve2d, case_resample_poly, case_upfirdn, case_resample, case_decimate,
         case_hilbert_detrend, case_spectral, case_peaks, case_argrel_medfilt_savgol, case_fft]


# ------------------------------------------------------------ comparison

def _host(v):
    if isinstance(v, (tuple, list)):
        return tuple(_host(u) for u in v)
    if hasattr(v, "get") and not isinstance(v, dict):
        return np.asarray(v.get())
    return v


def _tolerance(inputs):
    """The tolerance of the least precise floating input (SciPy transforms a
    single-precision operand in single precision even beside a double one)."""
    chars = [a.dtype.char for a in inputs if a.dtype.kind in "fc"]
    return max([TOL.get(c, 1e-9) for c in chars] or [1e-9])


def _compare(ref, got, inputs, fft_like):
    """'' when they agree, else a description of the first difference.

    The error is relative to the largest finite magnitude of SciPy's result
    or of the inputs (a result that is all rounding noise, such as a line
    removed from two samples, is compared with the data's scale). For the
    FFT-based functions a NaN spreads over a whole transform, so SciPy may
    have NaN where ours is finite (a different transform length), not the
    reverse."""
    if isinstance(ref, tuple):
        if not isinstance(got, tuple) or len(got) != len(ref):
            return f"structure: {type(ref).__name__}[{len(ref)}] vs {type(got).__name__}"
        for i, (r, g) in enumerate(zip(ref, got)):
            d = _compare(r, g, inputs, fft_like)
            if d:
                return f"[{i}] {d}"
        return ""
    r, g = np.asarray(ref), np.asarray(got)
    if r.shape != g.shape:
        return f"shape {r.shape} vs {g.shape}"
    if r.dtype != g.dtype:
        dmsg = f"dtype {r.dtype} vs {g.dtype}"
    else:
        dmsg = ""
    if r.size == 0:
        return dmsg
    if r.dtype.kind in "iub" or g.dtype.kind in "iub":
        bad = int(np.count_nonzero(r != g))
        return (f"{bad} of {r.size} differ; " + dmsg) if bad else dmsg
    fin_r, fin_g = np.isfinite(r), np.isfinite(g)
    nonfin_ok = np.array_equal(r[~fin_r & ~fin_g], g[~fin_r & ~fin_g], equal_nan=True)
    if fft_like and np.isnan(r).any():
        pattern_ok = not (fin_r & ~fin_g).any()
    else:
        pattern_ok = np.array_equal(fin_r, fin_g)
    if not (pattern_ok and nonfin_ok):
        return (f"non-finite pattern differs ({int((~fin_r).sum())} vs "
                f"{int((~fin_g).sum())}); " + dmsg)
    both = fin_r & fin_g
    if not both.any():
        return dmsg
    mags = [float(np.max(np.abs(r[both])))]
    mags += [float(np.max(np.abs(a[np.isfinite(a)]), initial=0.0)) for a in inputs
             if a.dtype.kind in "iufc" and a.size]
    scale = max(mags) or 1.0
    common = np.result_type(r.dtype, g.dtype)
    err = float(np.max(np.abs(r[both].astype(common) - g[both].astype(common))))
    tol = _tolerance(inputs + [r, g])
    if not np.isfinite(err) or err > tol * scale:
        return f"error {err / scale:.2e} rel (tol {tol:.0e}); " + dmsg
    return dmsg


def run_case(seed, cases=CASES):
    rng = np.random.default_rng(seed)
    maker = cases[int(rng.integers(len(cases)))]
    desc, x, call = maker(rng)
    xh, xd, view = _view(rng, x)
    desc = f"{desc} | x {x.dtype} {xh.shape} view {view}"
    inputs = [np.asarray(xh)]

    def keep(v):
        inputs.append(np.asarray(v))
        return v

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ref = _host(call(ss, xh, keep))
            ref_exc = None
        except Exception as e:          # noqa: BLE001 - SciPy's error is the reference
            ref, ref_exc = None, e
        try:
            got = _host(call(gs, xd, gp.asarray))
            got_exc = None
        except Exception as e:          # noqa: BLE001
            got, got_exc = None, e
    if ref_exc is not None or got_exc is not None:
        if ref_exc is not None and got_exc is not None:
            if type(ref_exc) is type(got_exc) or isinstance(got_exc, type(ref_exc)):
                return desc, ""
            return desc, f"exception {type(ref_exc).__name__}({ref_exc}) vs " \
                         f"{type(got_exc).__name__}({got_exc})"
        if ref_exc is not None:
            return desc, f"SciPy raised {type(ref_exc).__name__}({ref_exc}); we returned"
        tb = "".join(traceback.format_exception(got_exc)[-3:]).strip().replace("\n", " | ")
        return desc, f"we raised {type(got_exc).__name__}({got_exc}); SciPy returned | {tb[:400]}"
    return desc, _compare(ref, got, inputs, maker in FFT_CASES)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--replay", type=int, nargs="*")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--only", nargs="*", metavar="FAMILY",
                    help="only these families (case_<FAMILY>, e.g. fft convolve)")
    ap.add_argument("--self-check", action="store_true",
                    help="SciPy against itself, with no GPU: must find nothing")
    args = ap.parse_args()
    global gp, gs, gfft
    if args.self_check:
        gp, gs = _HostSide, ss
    else:
        import gpuscipy_core as gp          # noqa: PLC0415 - needs a GPU
        import gpuscipy.fft as gfft         # noqa: PLC0415
        import gpuscipy.signal as gs        # noqa: PLC0415
    seeds = args.replay if args.replay else None
    cases = [c for c in CASES if not args.only or c.__name__[5:] in args.only]
    t_end = time.time() + args.seconds
    n = 0
    found = []
    seed = args.seed
    trace = os.path.join(args.out, "signal_fuzz.current")
    while (seeds is None and time.time() < t_end) or (seeds is not None and n < len(seeds)):
        s = seeds[n] if seeds is not None else seed
        seed += 1
        n += 1
        with open(trace, "w") as f:          # names the case a crash kills
            f.write(f"{s}\n")
        try:
            desc, diff = run_case(s, cases)
        except Exception as e:          # noqa: BLE001 - a harness error, not a finding
            desc, diff = "harness", f"harness error {type(e).__name__}: {e}"
        if diff:
            found.append({"seed": s, "case": desc, "diff": diff})
            print(f"seed {s}: {desc}\n    {diff}", flush=True)
    print(f"{n} cases, {len(found)} disagreements")
    with open(os.path.join(args.out, "signal_fuzz.json"), "w") as f:
        json.dump({"cases": n, "found": found}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
