"""Tests of gpuscipy.signal's spectral analysis (``_spectral``).

CPU:
* NVRTC compiles every spectral kernel variant (two translation units).
* Pure launch decisions: line layouts of strided/negative-stride/broadcast
  views, frames group, chunking of the mean over segments.
* NumPy models of the kernels' algorithms against SciPy: the frame index
  map with boundary extension (SciPy's ``_arraytools`` extensions), frames
  (detrend + window) against SciPy's sliding windows, the radix-select
  median against ``numpy.median``, the median bias, ``numpy.unwrap``, the
  overlap-add normaliser and the NOLA test against SciPy's loops.
* Every public function end to end on the model backend (``_spectral._BE``
  swapped for ``_spectral_models``) against scipy.signal on the case table:
  values, dtypes, shapes, SciPy's warnings and SciPy's exceptions.

GPU (``gpu`` marker): the same case table on the device with device inputs
(contiguous, strided, reversed, transposed views), kernel-level checks of
frames / median / power_mean against the models (including the paths that
small cases do not reach: the median of columns too long for shared memory,
many chunks), and device-array callables for ``detrend``.

Tolerances, relative to the largest magnitude of SciPy's output:
float64/complex128 1e-12 (the model: the same FFT as SciPy, summation order
differs); float32/complex64 3e-5 (SciPy computes single-precision input in
double, we compute it in single). Coherence in single precision 2e-4 (a
ratio of three estimates). Angles on the GPU are compared as magnitude-
weighted phasors, since a bin whose value is rounding noise (the DC bin of a
mean-removed segment) has an arbitrary angle in either implementation.
"""

import os
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy_core.kernel import read_source
from gpuscipy.signal import _spectral as S
from gpuscipy.signal import _spectral_host as H
from gpuscipy.signal import _spectral_kernels as K
from gpuscipy.signal import _spectral_models as M

TOL = {"f": 3e-5, "F": 3e-5, "d": 1e-12, "D": 1e-12}
SPECTRAL_FAMILIES = ("frames", "power_partial", "power_final", "tr_op", "median", "unwrap",
                     "ola")


# ------------------------------------------------------------------ helpers

def _signal(shape, dtype="d", seed=0):
    rng = np.random.default_rng(seed)
    n = shape[-1]
    t = np.arange(n)
    x = rng.standard_normal(shape) + 0.5 * np.sin(0.07 * t) + 0.002 * t
    dt = np.dtype(dtype)
    if dt.kind == "c":
        x = x + 1j * (rng.standard_normal(shape) + 0.3 * np.cos(0.11 * t))
    elif dt.kind in "iu":
        x = np.round(x * 20)
    elif dt.kind == "b":
        x = x > 0
    return np.asarray(x).astype(dt)


VIEWS = {
    "c": lambda a: a,
    "strided": lambda a: a[..., ::2],
    "reversed": lambda a: a[..., ::-1],
    "T": lambda a: a.T,
}


def _base_shape(shape, view):
    if view == "strided":
        return shape[:-1] + (2 * shape[-1],)
    if view == "T":
        return shape[::-1]
    return shape


class Inp:
    """An input: shape (after the view), dtype, seed, view."""

    def __init__(self, shape, dtype="d", seed=0, view="c"):
        self.shape, self.dtype, self.seed, self.view = tuple(shape), dtype, seed, view

    def host(self):
        base = _signal(_base_shape(self.shape, self.view), self.dtype, self.seed)
        return VIEWS[self.view](base)

    def device(self):
        import gpuscipy_core as gp
        base = _signal(_base_shape(self.shape, self.view), self.dtype, self.seed)
        return VIEWS[self.view](gp.asarray(base))


SAME = "same"   # a second input that is the first object (x is y)

# (id, function, inputs, kwargs)
CASES = [
    ("welch-default", "welch", [Inp((3000,))], {}),
    ("welch-short", "welch", [Inp((100,))], {}),
    ("welch-n1", "welch", [Inp((1,))], {}),
    ("welch-n2", "welch", [Inp((2,))], dict(nperseg=2)),
    ("welch-linear", "welch", [Inp((2000,))],
     dict(nperseg=100, noverlap=30, nfft=130, detrend='linear', scaling='spectrum')),
    ("welch-odd-nfft", "welch", [Inp((2000,))], dict(nperseg=101, nfft=101)),
    ("welch-median-even", "welch", [Inp((1024,))], dict(nperseg=64, average='median')),
    ("welch-median-odd", "welch", [Inp((1056,))], dict(nperseg=64, average='median')),
    ("welch-median-nan", "welch", [Inp((1024,))], dict(nperseg=64, average='median',
                                                        nan_at=100)),
    ("welch-nan", "welch", [Inp((1024,))], dict(nperseg=64, nan_at=700)),
    # a linear trend is fitted by lstsq, which raises on a segment holding NaN;
    # a NaN in the tail no segment reaches is not seen
    ("err-welch-linear-nan", "welch", [Inp((1000,))],
     dict(nperseg=64, detrend='linear', nan_at=500)),
    ("welch-linear-nan-tail", "welch", [Inp((1000,))],
     dict(nperseg=64, detrend='linear', nan_at=995)),
    ("err-csd-linear-nan", "csd", [Inp((640,)), Inp((640,), seed=1)],
     dict(nperseg=64, detrend='linear', nan_at=300)),
    ("err-spectrogram-linear-nan", "spectrogram", [Inp((2000,))],
     dict(nperseg=60, detrend='linear', nan_at=100)),
    ("welch-twosided", "welch", [Inp((1000,))], dict(nperseg=64, return_onesided=False)),
    ("welch-nodetrend", "welch", [Inp((1000,))], dict(nperseg=64, detrend=False)),
    ("welch-detrend-none", "welch", [Inp((1000,))], dict(nperseg=64, detrend=None)),
    ("welch-detrend-c", "welch", [Inp((1000,))], dict(nperseg=64, detrend='c')),
    ("welch-window-array", "welch", [Inp((1000,))], dict(window=np.hamming(80))),
    ("welch-window-tuple", "welch", [Inp((1000,))], dict(window=('tukey', 0.3), nperseg=90)),
    ("welch-noverlap-neg", "welch", [Inp((1000,))], dict(nperseg=64, noverlap=-10)),
    ("welch-noverlap-max", "welch", [Inp((300,))], dict(nperseg=64, noverlap=63)),
    ("welch-fs", "welch", [Inp((1000,))], dict(nperseg=64, fs=48000.0)),
    ("welch-2d-axis0", "welch", [Inp((500, 3))], dict(nperseg=64, axis=0)),
    ("welch-2d-T", "welch", [Inp((3, 500), view="T")], dict(nperseg=64, axis=0)),
    ("welch-3d-axis1", "welch", [Inp((2, 400, 3))], dict(nperseg=50, axis=1)),
    ("welch-batch-strided", "welch", [Inp((4, 600), view="strided")], dict(nperseg=64)),
    ("welch-reversed", "welch", [Inp((4, 600), view="reversed")], dict(nperseg=64)),
    ("welch-f32", "welch", [Inp((2000,), "f")], dict(nperseg=128)),
    ("welch-f32-median", "welch", [Inp((2000,), "f")], dict(nperseg=128, average='median')),
    ("welch-i16", "welch", [Inp((2000,), "h")], dict(nperseg=128)),
    ("welch-i64", "welch", [Inp((2000,), "q")], dict(nperseg=128)),
    ("welch-bool", "welch", [Inp((2000,), "?")], dict(nperseg=128)),
    ("welch-c128", "welch", [Inp((1000,), "D")], dict(nperseg=64)),
    ("welch-c64", "welch", [Inp((1000,), "F")], dict(nperseg=64)),
    ("welch-empty", "welch", [Inp((3, 0))], {}),
    ("err-noverlap", "welch", [Inp((100,))], dict(nperseg=16, noverlap=16)),
    ("err-nfft", "welch", [Inp((100,))], dict(nperseg=16, nfft=8)),
    ("err-window-name", "welch", [Inp((100,))], dict(nperseg=16, window='foo')),
    ("err-scaling", "welch", [Inp((100,))], dict(nperseg=16, scaling='foo')),
    ("err-average", "welch", [Inp((100,))], dict(nperseg=16, average='foo')),
    ("avg-one-segment", "welch", [Inp((100,))], dict(nperseg=100, average='foo')),
    ("err-detrend-true", "welch", [Inp((100,))], dict(nperseg=16, detrend=True)),
    ("err-detrend-name", "welch", [Inp((100,))], dict(nperseg=16, detrend='foo')),
    ("err-nperseg0", "welch", [Inp((100,))], dict(nperseg=0)),
    ("err-win-long", "welch", [Inp((100,))], dict(window=np.ones(200))),
    ("err-win-2d", "welch", [Inp((100,))], dict(window=np.ones((2, 3)))),
    ("err-win-nan", "welch", [Inp((100,))], dict(window=np.array([1, np.nan, 1.0]))),
    ("err-win-mismatch", "welch", [Inp((100,))], dict(window=np.ones(60), nperseg=50)),
    ("err-win-half", "welch", [Inp((20,))], dict(window=np.ones(50))),
    ("err-fs", "welch", [Inp((100,))], dict(nperseg=16, fs=-1.0)),
    ("csd", "csd", [Inp((2000,)), Inp((2000,), seed=1)], dict(nperseg=128)),
    ("csd-same", "csd", [Inp((2000,)), SAME], dict(nperseg=128)),
    ("csd-median", "csd", [Inp((2000,)), Inp((2000,), seed=1)],
     dict(nperseg=128, average='median')),
    ("csd-bcast", "csd", [Inp((3, 700)), Inp((700,), seed=1)], dict(nperseg=64)),
    ("csd-bcast-2", "csd", [Inp((3, 1, 700)), Inp((4, 700), seed=1)], dict(nperseg=64)),
    ("csd-lengths", "csd", [Inp((500,)), Inp((640,), seed=1)], dict(nperseg=64)),
    ("csd-lengths-2", "csd", [Inp((640,)), Inp((500,), seed=1)], dict(nperseg=64)),
    ("csd-xcomplex", "csd", [Inp((640,), "D"), Inp((640,), seed=1)], dict(nperseg=64)),
    ("csd-ycomplex-twosided", "csd", [Inp((640,)), Inp((640,), "D", seed=1)],
     dict(nperseg=64, return_onesided=False)),
    ("csd-f32-f64", "csd", [Inp((640,), "f"), Inp((640,), seed=1)], dict(nperseg=64)),
    ("csd-f32", "csd", [Inp((640,), "f"), Inp((640,), "f", seed=1)], dict(nperseg=64)),
    ("csd-linear-axis0", "csd", [Inp((640, 2)), Inp((640, 2), seed=1)],
     dict(nperseg=64, axis=0, detrend='linear')),
    ("err-csd-ycomplex", "csd", [Inp((640,)), Inp((640,), "D", seed=1)], dict(nperseg=64)),
    ("err-csd-bcast", "csd", [Inp((3, 640)), Inp((2, 640), seed=1)], dict(nperseg=64)),
    ("csd-empty", "csd", [Inp((3, 64)), Inp((0,), seed=1)], dict(nperseg=16)),
    ("coherence", "coherence", [Inp((3000,)), Inp((3000,), seed=1)], dict(nperseg=128)),
    ("coherence-f32", "coherence", [Inp((3000,), "f"), Inp((3000,), "f", seed=1)],
     dict(nperseg=128)),
    ("coherence-2d", "coherence", [Inp((2, 1500)), Inp((2, 1500), seed=1)],
     dict(nperseg=100, noverlap=20)),
    ("coherence-nodetrend", "coherence", [Inp((1500,)), Inp((1500,), seed=1)],
     dict(nperseg=100, detrend=False)),
    ("periodogram", "periodogram", [Inp((1000,))], {}),
    ("periodogram-nfft-short", "periodogram", [Inp((1000,))], dict(nfft=600)),
    ("periodogram-nfft-long", "periodogram", [Inp((1000,))], dict(nfft=1500)),
    ("periodogram-win-none", "periodogram", [Inp((1000,))], dict(window=None)),
    ("periodogram-hann-spectrum", "periodogram", [Inp((1001,))],
     dict(window='hann', scaling='spectrum', detrend='linear')),
    ("periodogram-2d", "periodogram", [Inp((300, 4))], dict(axis=0)),
    ("periodogram-f32", "periodogram", [Inp((1000,), "f")], {}),
    ("periodogram-c", "periodogram", [Inp((1000,), "D")], {}),
    ("err-periodogram-win", "periodogram", [Inp((100,))], dict(window=np.ones(5))),
    ("periodogram-empty", "periodogram", [Inp((0,))], {}),
    ("spectrogram", "spectrogram", [Inp((3000,))], {}),
    ("spectrogram-short", "spectrogram", [Inp((100,))], {}),
    ("spectrogram-complex", "spectrogram", [Inp((2000,))], dict(nperseg=64, mode='complex')),
    ("spectrogram-magnitude", "spectrogram", [Inp((2000,))],
     dict(nperseg=64, mode='magnitude', scaling='spectrum')),
    ("spectrogram-angle", "spectrogram", [Inp((2000,))],
     dict(nperseg=64, mode='angle', detrend=False)),
    ("spectrogram-phase", "spectrogram", [Inp((2000,))],
     dict(nperseg=64, mode='phase', detrend=False)),
    ("spectrogram-linear-nfft", "spectrogram", [Inp((2000,))],
     dict(nperseg=60, nfft=100, detrend='linear', noverlap=20)),
    ("spectrogram-cinput", "spectrogram", [Inp((1000,), "D")], dict(nperseg=64)),
    ("spectrogram-twosided", "spectrogram", [Inp((1000,))],
     dict(nperseg=64, return_onesided=False)),
    ("spectrogram-axis0", "spectrogram", [Inp((800, 3))], dict(nperseg=64, axis=0)),
    ("spectrogram-3d", "spectrogram", [Inp((2, 3, 700), view="reversed")],
     dict(nperseg=64, axis=-1, mode='magnitude')),
    ("spectrogram-f32", "spectrogram", [Inp((2000,), "f")], dict(nperseg=128)),
    ("spectrogram-f32-complex", "spectrogram", [Inp((2000,), "f")],
     dict(nperseg=128, mode='complex')),
    ("err-spectrogram-mode", "spectrogram", [Inp((100,))], dict(mode='foo')),
    ("err-spectrogram-scaling", "spectrogram", [Inp((100,))], dict(nperseg=16, scaling='x')),
    ("err-spectrogram-trend", "spectrogram", [Inp((100,))], dict(nperseg=16, detrend='x')),
    ("spectrogram-empty", "spectrogram", [Inp((0,))], {}),
    ("stft", "stft", [Inp((3000,))], {}),
    ("stft-short", "stft", [Inp((100,))], {}),
    ("stft-n1", "stft", [Inp((1,))], dict(nperseg=1)),
    ("stft-even", "stft", [Inp((997,))], dict(nperseg=64, boundary='even')),
    ("stft-odd", "stft", [Inp((997,))], dict(nperseg=64, boundary='odd')),
    ("stft-constant", "stft", [Inp((997,))], dict(nperseg=64, boundary='constant')),
    ("stft-none-unpadded", "stft", [Inp((997,))],
     dict(nperseg=64, boundary=None, padded=False)),
    ("stft-psd-linear", "stft", [Inp((997,))],
     dict(nperseg=65, nfft=80, scaling='psd', detrend='linear', noverlap=40)),
    ("stft-complex", "stft", [Inp((800,), "D")], dict(nperseg=64)),
    ("stft-twosided", "stft", [Inp((800,))], dict(nperseg=64, return_onesided=False)),
    ("stft-axis0", "stft", [Inp((500, 3))], dict(nperseg=32, axis=0)),
    ("stft-f32", "stft", [Inp((900,), "f")], dict(nperseg=64)),
    ("stft-c64", "stft", [Inp((900,), "F")], dict(nperseg=64)),
    ("stft-int", "stft", [Inp((900,), "i")], dict(nperseg=64, boundary='odd')),
    ("err-stft-even-long", "stft", [Inp((5,))], dict(nperseg=16, boundary='even')),
    ("err-stft-boundary", "stft", [Inp((100,))], dict(nperseg=16, boundary='foo')),
    ("err-stft-scaling", "stft", [Inp((100,))], dict(nperseg=16, scaling='density')),
]

# istft cases: (id, kwargs for stft, kwargs for istft, dtype, shape)
ISTFT_CASES = [
    ("default", dict(nperseg=64), {}, "d", (1000,)),
    ("odd-nperseg", dict(nperseg=63), dict(nperseg=63), "d", (1000,)),
    ("nfft", dict(nperseg=60, nfft=80), dict(nperseg=60, nfft=80), "d", (1000,)),
    ("noverlap", dict(nperseg=64, noverlap=48), dict(nperseg=64, noverlap=48), "d", (999,)),
    ("no-boundary", dict(nperseg=64, boundary=None), dict(boundary=False), "d", (1000,)),
    ("psd", dict(nperseg=64, scaling='psd'), dict(scaling='psd'), "d", (1000,)),
    ("twosided", dict(nperseg=64, return_onesided=False), dict(input_onesided=False),
     "D", (1000,)),
    ("c64", dict(nperseg=64, return_onesided=False), dict(input_onesided=False), "F",
     (1000,)),
    ("f32", dict(nperseg=64), {}, "f", (1000,)),
    ("batch", dict(nperseg=64), {}, "d", (3, 500)),
    ("axes", dict(nperseg=64, axis=0), dict(time_axis=-1, freq_axis=0), "d", (500, 2)),
    ("axes-swapped", dict(nperseg=32), dict(time_axis=0, freq_axis=1, transpose=True),
     "d", (400,)),
    ("window-array", dict(nperseg=64, window=np.hanning(64)),
     dict(window=np.hanning(64)), "d", (1000,)),
    ("nola-fail", dict(nperseg=16),
     dict(window=np.r_[np.zeros(8), np.ones(8)], noverlap=4), "d", (300,)),
    ("nola-fail-noboundary", dict(nperseg=16, boundary=None),
     dict(window=np.r_[np.zeros(8), np.ones(8)], noverlap=4, boundary=False), "d", (300,)),
    ("boxcar", dict(nperseg=16), dict(window='boxcar', noverlap=0), "d", (300,)),
    ("nperseg1", None, dict(nperseg=1, noverlap=0), "D", (1, 5)),
    ("err-1d", None, {}, "D", (5,)),
    ("err-axes", dict(nperseg=16), dict(time_axis=0, freq_axis=0), "d", (300,)),
    ("err-nfft", dict(nperseg=16), dict(nperseg=30), "d", (300,)),
    ("err-window", dict(nperseg=16), dict(window=np.ones(7)), "d", (300,)),
    ("err-scaling", dict(nperseg=16), dict(scaling='foo'), "d", (300,)),
]


def _call(module, fn, args, kwargs):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            out, err = getattr(module, fn)(*args, **kwargs), None
        except Exception as e:  # noqa: BLE001 - compared with SciPy's
            out, err = None, e
    msgs = [(w.category, str(w.message)) for w in rec if issubclass(w.category, UserWarning)]
    return out, err, msgs


def _host(a, device):
    if device:
        import gpuscipy_core as gp
        assert isinstance(a, gp.ndarray), type(a)
        return gp.asnumpy(a)
    assert isinstance(a, np.ndarray), type(a)
    return a


def _close(ours, ref, tol, phasor=False):
    assert ours.shape == ref.shape, (ours.shape, ref.shape)
    assert ours.dtype == ref.dtype, (ours.dtype, ref.dtype)
    if ref.size == 0:
        return
    nan = np.isnan(ref)
    np.testing.assert_array_equal(np.isnan(ours), nan)
    if nan.all():
        return
    o, r = ours[~nan], ref[~nan]
    if phasor:
        o, r = np.exp(1j * o), np.exp(1j * r)
    scale = max(np.abs(r).max(), 1e-300)
    err = np.abs(o - r).max() / scale
    assert err <= tol, f"relative error {err:.3g} > {tol:g}"


def _compare(ours, ref, device, tol=None, phasor_from=None):
    out, err, msgs = ours
    rout, rerr, rmsgs = ref
    if rerr is not None:
        assert err is not None, f"SciPy raised {rerr!r}, we returned"
        assert type(err) is type(rerr), (err, rerr)
        assert str(err) == str(rerr)
        return
    if err is not None:
        raise err
    assert msgs == rmsgs
    assert isinstance(out, tuple) and len(out) == len(rout)
    for k, (o, r) in enumerate(zip(out, rout)):
        o = _host(o, device)
        t = tol if tol is not None else TOL.get(r.dtype.char, 1e-12)
        _close(o, r, t, phasor=(phasor_from is not None and k >= phasor_from))


def _materialise(inputs, nan_at, device):
    host, dev = [], []
    for inp in inputs:
        if inp is SAME:
            host.append(host[0])
            dev.append(dev[0])
            continue
        h = inp.host()
        if nan_at is not None:
            h = h.copy()
            h[..., nan_at] = np.nan
        host.append(h)
        if device:
            import gpuscipy_core as gp
            if nan_at is not None:
                dev.append(gp.asarray(h))
            else:
                dev.append(inp.device())
        else:
            dev.append(h.copy() if inp.view == "c" else inp.host())
            if nan_at is not None:
                dev[-1] = h.copy()
    return host, dev


def _case_tol(fn, inputs, kwargs):
    # SciPy detrends float32 segments in float32 even when the output is
    # double (csd of float32 and float64): any single-precision input sets
    # the single-precision tolerance
    single = any(i is not SAME and np.dtype(i.dtype).char in "fF" for i in inputs)
    if fn == "coherence" and single:
        return 2e-4
    return TOL["f"] if single else None


@pytest.fixture(params=["model", pytest.param("gpu", marks=pytest.mark.gpu)])
def backend(request, monkeypatch):
    if request.param == "model":
        monkeypatch.setattr(S, "_BE", M)
    return request.param


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_parity(case, backend):
    _, fn, inputs, kwargs = case
    kwargs = dict(kwargs)
    nan_at = kwargs.pop("nan_at", None)
    device = backend == "gpu"
    host, dev = _materialise(inputs, nan_at, device)
    ref = _call(ss, fn, host, kwargs)
    ours = _call(S, fn, dev, kwargs)
    # angles on the GPU: compared as phasors (a column of 'phase' may also
    # start 2 pi apart when its first angle sits on the branch cut)
    phasor = 2 if (device and kwargs.get("mode") in ("angle", "phase")) else None
    if device and fn == "coherence" and kwargs.get("detrend", "constant") is not False \
            and ours[1] is None:
        # the DC bin of mean-removed segments is rounding noise in Pxx, Pyy
        # and Pxy alike, so its coherence is a ratio of noise: not compared
        ours = ((ours[0][0], ours[0][1][..., 1:]),) + ours[1:]
        ref = ((ref[0][0], ref[0][1][..., 1:]),) + ref[1:]
    _compare(ours, ref, device, _case_tol(fn, inputs, kwargs), phasor_from=phasor)


@pytest.mark.parametrize("case", ISTFT_CASES, ids=[c[0] for c in ISTFT_CASES])
def test_istft_parity(case, backend):
    _, skw, ikw, dtype, shape = case
    ikw = dict(ikw)
    transpose = ikw.pop("transpose", False)
    device = backend == "gpu"
    if skw is None:
        Z = _signal(shape, dtype)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Z = ss.stft(_signal(shape, dtype), **skw)[2]
    if transpose:
        Z = np.ascontiguousarray(Z.T)
    ref = _call(ss, "istft", [Z], ikw)
    if device:
        import gpuscipy_core as gp
        Zd = gp.asarray(Z)
    else:
        Zd = Z.copy()
    ours = _call(S, "istft", [Zd], ikw)
    _compare(ours, ref, device)


# ------------------------------------------------------------------ CPU: kernels

def test_nvrtc_every_variant():
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    header = read_source(K._CUH)
    specs = [v for v in K.variants() if v[0] in SPECTRAL_FAMILIES]
    assert {v[0] for v in specs} == set(SPECTRAL_FAMILIES)

    def unit(prec):
        parts = [header]
        for fam, spec in specs:
            if spec[0].lower() != prec:
                continue
            src, name = K.kernel_source(fam, *spec)
            assert src.startswith(header) and f"void __launch_bounds__(256)\n{name}(" in src
            parts.append(src[len(header):])
        return compile_cubin("".join(parts), f"spectral_{prec}")

    workers = max(1, min(2, os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as ex:
        assert all(ex.map(unit, "fd"))


def test_kernel_source_spec():
    src, name = K.kernel_source("frames", "f", "F", 1)
    assert name == "gssig_frames_fF_d1"
    assert "gs_signal_spectral::frames<float, gs::complex<float>, 1>" in src
    assert K.kernel_source("frames", "f", "F", 1) is K.kernel_source("frames", "f", "F", 1)
    src, name = K.kernel_source("tr_op", "D", K.OPS["magnitude"])
    assert "tr_op<gs::complex<double>, double, 3>" in src
    for bad in [("frames", "F", "f", 0), ("frames", "f", "D", 0), ("frames", "d", "d", 3),
                ("median", "F"), ("power_final", "f", True), ("nope", "f")]:
        with pytest.raises(ValueError):
            K.kernel_source(*bad)
    names = [K.kernel_source(f, *s)[1] for f, s in K.variants()]
    assert len(names) == len(set(names))


def _line_gather(a, lay):
    """Gather a's lines through the (so, si, ninner, sk) element offsets,
    reading raw memory from the lowest-addressed element."""
    so, si, ninner, sk = lay
    flip = tuple(slice(None, None, -1) if s < 0 else slice(None) for s in a.strides)
    low = a[flip]
    lo_elem = (a.__array_interface__["data"][0] - low.__array_interface__["data"][0]) \
        // a.itemsize
    span = sum((d - 1) * abs(s) for d, s in zip(a.shape, a.strides)) // a.itemsize + 1
    flat = np.lib.stride_tricks.as_strided(low, shape=(span,), strides=(a.itemsize,))
    B = int(np.prod(a.shape[:-1]))
    b = np.arange(B)[:, None]
    i = np.arange(a.shape[-1])[None, :]
    off = (b // ninner) * so + (b % ninner) * si + i * sk + lo_elem
    return flat[off]


@pytest.mark.parametrize("make", [
    lambda: np.arange(24.0).reshape(2, 3, 4),
    lambda: np.arange(48.0).reshape(2, 3, 8)[:, :, ::2],
    lambda: np.arange(48.0).reshape(4, 3, 4)[::-2, ::-1, ::-1],
    lambda: np.arange(60.0).reshape(3, 4, 5).transpose(2, 0, 1),
    lambda: np.broadcast_to(np.arange(5.0), (3, 5)),
    lambda: np.broadcast_to(np.arange(10.0).reshape(2, 1, 5), (2, 3, 5)),
    lambda: np.arange(7.0),
    lambda: np.arange(30.0).reshape(5, 6)[:, 1:4],
    lambda: np.arange(120.0).reshape(2, 3, 4, 5).transpose(0, 2, 1, 3),
], ids=range(9))
def test_line_layout(make):
    a = make()
    lay = K.line_layout(a.shape, a.strides, a.itemsize)
    if lay is None:
        # only genuinely three-group outer layouts may refuse
        assert a.ndim >= 4
        return
    np.testing.assert_array_equal(_line_gather(a, lay), a.reshape(-1, a.shape[-1]))


def test_launch_decisions():
    assert [K.frames_group(n) for n in (1, 32, 33, 64, 100, 256, 4096)] == \
        [32, 32, 64, 64, 128, 256, 256]
    for B, nseg, nf in [(1, 8191, 2049), (1, 1, 5), (1024, 127, 129), (7, 3, 1)]:
        chunk, nchunks = K.power_chunks(B, nseg, nf)
        assert 1 <= nchunks <= nseg and chunk * nchunks >= nseg > chunk * (nchunks - 1)
    assert K.power_chunks(1, 8191, 2049)[1] > 50      # fills the GPU
    assert K.median_cap(np.float64) == 12288


@pytest.mark.parametrize("bmode,name", [(0, "zero_ext"), (1, "even_ext"), (2, "odd_ext"),
                                        (3, "const_ext")])
@pytest.mark.parametrize("n,ext,pad", [(10, 4, 3), (5, 4, 0), (9, 1, 2), (2, 1, 0)])
def test_fetch_index_matches_scipy_extensions(bmode, name, n, ext, pad):
    from scipy.signal import _arraytools
    x = _signal((2, n))
    ref = getattr(_arraytools, name)(x, ext, axis=-1)
    ref = np.concatenate([ref, np.zeros((2, pad))], -1)
    j = np.arange(ref.shape[-1])
    fr = M.frames(x, ext, ext, bmode, 1, ref.shape[-1], 1, 1, None, 0, x.dtype)
    np.testing.assert_array_equal(fr.reshape(2, -1), ref)
    idx, kind = M.fetch_index(j, n, ext, ext, bmode)
    assert (kind[ext + n + ext:] == 0).all() and (kind[ext:ext + n] == 1).all()
    np.testing.assert_array_equal(idx[ext:ext + n], np.arange(n))


@pytest.mark.parametrize("detrend", [0, 1, 2])
@pytest.mark.parametrize("dtype", ["d", "D", "f"])
@pytest.mark.parametrize("nperseg,hop,nfft", [(16, 8, 16), (15, 4, 20), (1, 1, 1), (7, 9, 8)])
def test_frames_model_matches_scipy_segments(detrend, dtype, nperseg, hop, nfft):
    x = _signal((3, 200), dtype)
    nseg = (200 - nperseg) // hop + 1
    win = np.hanning(nperseg + 2)[1:-1].astype(dtype.lower())
    fr = M.frames(x, 0, 0, 0, hop, nseg, nperseg, nfft, win, detrend,
                  dtype if dtype.isupper() else dtype)
    seg = np.lib.stride_tricks.sliding_window_view(x, nperseg, axis=-1)[:, ::hop]
    seg = seg.astype(np.complex128 if dtype.isupper() else np.float64)
    if detrend:
        seg = ss.detrend(seg, axis=-1, type='constant' if detrend == 1 else 'linear')
    ref = np.zeros((3 * nseg, nfft), seg.dtype)
    ref[:, :nperseg] = (seg * win).reshape(-1, nperseg)
    tol = 1e-5 if dtype == "f" else 1e-12
    np.testing.assert_allclose(fr, ref, atol=tol * np.abs(x).max() * 4)


@pytest.mark.parametrize("dtype", ["f", "d"])
@pytest.mark.parametrize("n", [1, 2, 3, 10, 255, 256, 1001])
def test_radix_select_median(dtype, n):
    rng = np.random.default_rng(n)
    v = rng.standard_normal((6, n)).astype(dtype)
    v[1] = np.round(v[1])                 # ties
    v[2] = -np.abs(v[2])                  # all negative
    v[3, ::2] = 0.0
    v[3, 1::2] = -0.0                     # signed zeros
    v[4, 0] = np.inf
    v[5, -1] = np.nan
    P = v.reshape(2, 3, n)
    out = M.median(P, 1.0)
    ref = np.median(v, axis=1).reshape(2, 3)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))
    np.testing.assert_allclose(out[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-6)
    for k in range(0, n, max(1, n // 7)):
        np.testing.assert_array_equal(M.select_kth(v[:5], k), np.sort(v[:5], 1)[:, k])
    c = (v[:4] + 1j * v[:4][::-1]).reshape(1, 4, n)
    oc = M.median(c, 2.5)
    np.testing.assert_allclose(oc.ravel(), (np.median(v[:4], 1) + 1j * np.median(v[:4][::-1], 1))
                               / 2.5, rtol=1e-6)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 10, 11, 1000, 1001])
def test_median_bias(n):
    from scipy.signal._spectral_py import _median_bias
    assert H.median_bias(n) == _median_bias(n)


@pytest.mark.parametrize("dtype", ["f", "d"])
def test_unwrap_model_is_numpy_unwrap(dtype):
    rng = np.random.default_rng(3)
    p = (np.cumsum(rng.standard_normal((2, 50, 7)) * 2.5, axis=1)).astype(dtype)
    p = np.angle(np.exp(1j * p)).astype(dtype)
    p[0, 5, 0] = np.pi                     # boundary-ambiguous steps
    p[0, 6, 0] = 0.0
    ref = np.unwrap(p, axis=1)
    out = M.unwrap(p.copy())
    np.testing.assert_array_equal(out, ref)


def _scipy_norm(win, nstep, nseg, nperseg):
    length = nperseg + (nseg - 1) * nstep
    norm = np.zeros(length, win.dtype)
    for ii in range(nseg):
        norm[ii * nstep:ii * nstep + nperseg] += win ** 2
    return norm


@pytest.mark.parametrize("nperseg,noverlap,nseg", [(16, 8, 10), (16, 12, 30), (15, 7, 5),
                                                   (16, 0, 4), (8, 7, 40), (5, 2, 1)])
@pytest.mark.parametrize("kind", ["hann", "zeros-head", "gap", "boxcar"])
@pytest.mark.parametrize("dtype", ["f", "d"])
def test_istft_norm_and_nola(nperseg, noverlap, nseg, kind, dtype):
    win = {"hann": ss.get_window('hann', nperseg),
           "zeros-head": np.r_[np.zeros(nperseg // 2), np.ones(nperseg - nperseg // 2)],
           "gap": np.r_[np.ones(2), np.zeros(nperseg - 4), np.ones(2)],
           "boxcar": np.ones(nperseg)}[kind].astype(dtype)
    nstep = nperseg - noverlap
    ref = _scipy_norm(win, nstep, nseg, nperseg)
    t = np.arange(len(ref))
    np.testing.assert_array_equal(H.istft_norm(win ** 2, nstep, nseg, nperseg, t), ref)
    for start, stop in [(0, len(ref)), (nperseg // 2, len(ref) - nperseg // 2), (3, 4)]:
        expect = bool(np.all(ref[start:stop] > np.dtype(dtype).type(1e-10)))
        assert H.nola_ok(win ** 2, nstep, nseg, nperseg, start, stop) == expect


@pytest.mark.parametrize("dtype", ["d", "D", "f"])
def test_ola_model_matches_scipy_loop(dtype):
    nperseg, nstep, nseg, nfft = 16, 6, 9, 20
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((2, nseg, nfft))
    if dtype == "D":
        xs = xs + 1j * rng.standard_normal((2, nseg, nfft))
    xs = xs.astype(dtype)
    win = ss.get_window('hann', nperseg).astype(dtype.lower())
    scale = win.sum()
    length = nperseg + (nseg - 1) * nstep
    x = np.zeros((2, length), xs.dtype)
    sub = xs[..., :nperseg] * scale
    for ii in range(nseg):
        x[:, ii * nstep:ii * nstep + nperseg] += sub[:, ii] * win
    norm = _scipy_norm(win, nstep, nseg, nperseg)
    ref = x / np.where(norm > 1e-10, norm, 1.0)
    out = M.ola(xs, win, scale, nperseg, nstep, 3, length - 6)
    np.testing.assert_allclose(out, ref[:, 3:length - 3], rtol=2e-6 if dtype == "f" else 1e-14)


def test_window_caches():
    a = H.host_window('hann_periodic', 64)
    assert a is H.host_window('hann_periodic', 64) and not a.flags.writeable
    assert H.host_window(('tukey', [0.5][0]), 10) is H.host_window(('tukey', 0.5), 10)
    assert H.window_key(np.ones(3)) is None
    s1 = H.stft_plan(a, H.window_key('hann_periodic'), 32, 1.0, 'onesided', 64, 'psd')
    assert s1 is H.stft_plan(a, H.window_key('hann_periodic'), 32, 1.0, 'onesided', 64, 'psd')
    assert s1 is not H.stft_plan(a, H.window_key('hann_periodic'), 32, 2.0, 'onesided', 64,
                                 'psd')


def test_callable_detrend_receives_all_segments(monkeypatch):
    monkeypatch.setattr(S, "_BE", M)
    seen = []

    def dt(d):
        seen.append(d.shape)
        return d - d.mean(-1, keepdims=True)

    x = _signal((2, 500))
    f, p = S.welch(x, nperseg=64, detrend=dt)
    assert seen == [(2, 14, 64)]
    np.testing.assert_allclose(p, ss.welch(x, nperseg=64, detrend='constant')[1], rtol=1e-12)
    seen.clear()
    f, t, s = S.spectrogram(x.T, nperseg=64, detrend=dt, axis=0)
    ref = ss.spectrogram(x.T, nperseg=64, detrend=dt, axis=0)[2]
    np.testing.assert_allclose(s, ref, rtol=1e-12)


# ------------------------------------------------------------------ GPU: kernel level

gpu = pytest.mark.gpu


@gpu
@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("detrend", [0, 1, 2])
@pytest.mark.parametrize("view", ["c", "strided", "reversed", "T"])
def test_gpu_frames_kernel(dtype, detrend, view):
    import gpuscipy_core as gp
    inp = Inp((3, 300), dtype, view=view)
    xh, xd = inp.host(), inp.device()
    win = np.hanning(40).astype(dtype.lower())
    for pre, post, bmode in [(0, 0, 0), (20, 20, 1), (20, 20, 2), (20, 20, 3), (20, 20, 0)]:
        nseg = (300 + pre + post - 40) // 17 + 1
        to = dtype if dtype.isupper() else dtype.upper()
        ref = M.frames(xh, pre, post, bmode, 17, nseg, 40, 48, win, detrend, to)
        out = K.frames(xd, pre, post, bmode, 17, nseg, 40, 48, gp.asarray(win), detrend, to)
        tol = 1e-5 if dtype in "fF" else 1e-13
        np.testing.assert_allclose(gp.asnumpy(out), ref, atol=tol * np.abs(ref).max())


@gpu
@pytest.mark.parametrize("dtype", ["f", "d"])
@pytest.mark.parametrize("nseg", [1, 2, 7, 4096, 12288, 12289, 30001])
def test_gpu_median_kernel(dtype, nseg):
    import gpuscipy_core as gp
    rng = np.random.default_rng(nseg)
    P = rng.standard_normal((2, 3, nseg)).astype(dtype)
    P[0, 0] = np.round(P[0, 0])
    P[1, 2, nseg // 2] = np.nan
    out = gp.asnumpy(K.median(gp.asarray(P), 1.5))
    np.testing.assert_array_equal(out, M.median(P, 1.5))
    Pc = (P + 1j * P[::-1]).astype(dtype.upper())
    np.testing.assert_array_equal(gp.asnumpy(K.median(gp.asarray(Pc), 1.5)), M.median(Pc, 1.5))


@gpu
@pytest.mark.parametrize("cross", [False, True])
@pytest.mark.parametrize("B,nseg,nf", [(1, 8191, 2049), (3, 1, 5), (64, 40, 257)])
def test_gpu_power_mean_kernel(cross, B, nseg, nf):
    import gpuscipy_core as gp
    rng = np.random.default_rng(0)
    X = (rng.standard_normal((B * nseg, nf)) + 1j * rng.standard_normal((B * nseg, nf)))
    Y = X[::-1].copy() if cross else None
    out_dtype = np.complex128 if cross else np.float64
    ref = M.power_mean(X, Y, B, nseg, nf, 1, nf - 1, out_dtype)
    out = K.power_mean(gp.asarray(X), None if Y is None else gp.asarray(Y), B, nseg, nf, 1,
                       nf - 1, out_dtype)
    np.testing.assert_allclose(gp.asnumpy(out), ref, rtol=1e-12)


@gpu
def test_gpu_welch_large_against_scipy():
    import gpuscipy_core as gp
    x = _signal((1 << 22,))
    f, p = S.welch(gp.asarray(x), nperseg=4096)
    rf, rp = ss.welch(x, nperseg=4096)
    np.testing.assert_allclose(gp.asnumpy(f), rf)
    np.testing.assert_allclose(gp.asnumpy(p), rp, rtol=1e-10, atol=1e-12 * rp.max())


@gpu
def test_gpu_callable_detrend_gets_device_arrays():
    import gpuscipy_core as gp
    seen = []

    def dt(d):
        seen.append(type(d))
        return d - d.mean(axis=-1, keepdims=True)

    x = _signal((1000,))
    _, p = S.welch(gp.asarray(x), nperseg=64, detrend=dt)
    assert seen == [gp.ndarray]
    np.testing.assert_allclose(gp.asnumpy(p), ss.welch(x, nperseg=64)[1], rtol=1e-12)


@gpu
def test_gpu_repeated_call_uses_cached_window():
    import gpuscipy_core as gp
    x = gp.asarray(_signal((5000,)))
    S.welch(x, nperseg=256)
    n = len(H._dev_cache)
    S.welch(x, nperseg=256)
    assert len(H._dev_cache) == n
