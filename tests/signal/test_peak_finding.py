"""Tests of gpuscipy.signal._peak_finding (find_peaks and friends).

CPU: NumPy models of the kernels' algorithms -- the per-sample peak test
with the fused plateau/height/threshold conditions, the host distance
selection (the production code itself), the tiled prominence and width
walks (small tiles, so the tile skipping runs on short signals) and the
capped shift loop of argrelextrema -- against SciPy on random data with
ties, plateaus, NaN and inf, on ECG-like signals and on the real ECG;
argument handling and errors against SciPy's; NVRTC compiles of every
kernel variant.

GPU (marked gpu): every public function and property against SciPy on the
same inputs, dtypes, layouts and edge cases, errors and warnings, the ECG
R-peak chain and a batch of channels processed one by one.

Tolerance: none. SciPy computes in float64 with the same comparisons and
the same rounded operations as the kernels (no FMA contraction), so peak
indices, bases, edges and every float property are compared exactly.
"""

import ctypes
import functools
import os
import re
import struct
import types
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy_core.kernel import read_source
from gpuscipy.signal import _peak_finding as M
from gpuscipy.signal import _peak_finding_batch as B

gpu = pytest.mark.gpu
PPW = M.PeakPropertyWarning

# ------------------------------------------------------------ NumPy models
# Models of the kernels (see _peak_finding.cuh); the CPU tests check them
# against SciPy, the GPU tests check the kernels against SciPy directly.


def model_local_maxima(x):
    """``starts_peak`` for every sample: ``(left, right)`` plateau edges."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    if n < 3:
        return np.empty(0, np.intp), np.empty(0, np.intp)
    left = np.flatnonzero(x[:-2] < x[1:-1]) + 1          # rising edges, 1..n-2
    change = np.flatnonzero(~(x[1:] == x[:-1])) + 1     # NaN always changes
    pos = np.searchsorted(change, left, "right")
    j = np.full(left.shape, n - 1)
    has = pos < change.size
    j[has] = np.minimum(change[pos[has]], n - 1)
    ok = x[j] < x[left]
    return left[ok], j[ok] - 1


def _within(b, at, v):
    keep = np.ones(np.shape(v), bool)
    if b is None:
        return keep
    for side, bound in enumerate(b):
        if bound is None:
            continue
        lim = np.asarray(bound, np.float64).reshape(-1)[at] \
            if isinstance(bound, np.ndarray) else bound
        keep &= (lim <= v) if side == 0 else (v <= lim)
    return keep


def model_tile_summaries(x, lg):
    """``tile_summaries``: max, min (NaN if the tile has a NaN), last and
    first argmin per tile of 2^lg samples."""
    b = 1 << lg
    nt = -(-x.size // b)
    mx, mn = np.empty(nt), np.empty(nt)
    il, ir = np.full(nt, -1), np.full(nt, -1)
    for t in range(nt):
        seg = x[t * b:(t + 1) * b]
        nan = np.isnan(seg)
        good = seg[~nan]
        mx[t], mn[t] = -np.inf, np.inf
        if good.size:
            at = np.flatnonzero(seg == good.min()) + t * b
            il[t], ir[t] = at[-1], at[0]
            mx[t], mn[t] = good.max(), good.min()
        if nan.any():
            mx[t] = mn[t] = np.nan
    return mx, mn, il, ir


def model_prominences(x, peaks, wlen=-1, lg=None, summaries=None, lo=None, hi=None):
    """The ``prominences`` kernel: per peak, walks left and right, crossing
    whole tiles whose max is <= the peak (tiles of 2^lg samples; their
    summaries computed here unless given). ``lo``, ``hi``: per peak, the
    first and last sample of its channel (default: the whole signal)."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    s = summaries if summaries is not None else model_tile_summaries(x, lg) if lg else None
    b = 1 << (lg or 0)
    mask = b - 1
    prom = np.empty(len(peaks))
    lbs, rbs = np.empty(len(peaks), np.intp), np.empty(len(peaks), np.intp)
    for p, peak in enumerate(peaks):
        if not 0 <= peak <= n - 1:
            raise ValueError(f"peak {peak} is not a valid index for `x`")
        i_min, i_max = (0, n - 1) if lo is None else (lo[p], hi[p])
        if wlen >= 2:
            i_min, i_max = max(peak - wlen // 2, i_min), min(peak + wlen // 2, i_max)
        xp = x[peak]
        found = []
        for step in (-1, 1):
            best, base, i = xp, peak, peak
            while i_min <= i <= i_max:
                edge = mask if step < 0 else 0
                inside = (i - mask >= i_min) if step < 0 else (i + mask <= i_max)
                if s is not None and (i & mask) == edge and inside and s[0][i >> lg] <= xp:
                    j = s[2 if step < 0 else 3][i >> lg]
                    if x[j] < best:
                        best, base = x[j], j
                    i += step * b
                    continue
                if not x[i] <= xp:
                    break
                if x[i] < best:
                    best, base = x[i], i
                i += step
            found.append((best, base))
        (lmin, lbs[p]), (rmin, rbs[p]) = found
        prom[p] = xp - (rmin if rmin > lmin else lmin)
    return prom, lbs, rbs


def model_widths(x, peaks, rel_height, prominences, left_bases, right_bases, lg=None,
                 summaries=None, base=None):
    """The ``widths`` kernel: walks towards the bases while samples are above
    the reference height, crossing tiles whose min is above it. ``base``:
    per peak, the first sample of its channel (the ends are local to it)."""
    x = np.asarray(x, dtype=np.float64)
    s = summaries if summaries is not None else model_tile_summaries(x, lg) if lg else None
    b = 1 << (lg or 0)
    mask = b - 1
    out = tuple(np.empty(len(peaks)) for _ in range(4))
    for p, peak in enumerate(peaks):
        i_min, i_max = left_bases[p], right_bases[p]
        if not 0 <= i_min <= peak <= i_max < x.size:
            raise ValueError(f"prominence data is invalid for peak {peak}")
        h = x[peak] - prominences[p] * rel_height
        ends = []
        for step, bound in ((-1, i_min), (1, i_max)):
            i = peak
            while (bound < i) if step < 0 else (i < bound):
                edge = mask if step < 0 else 0
                inside = (i - mask > bound) if step < 0 else (i + mask < bound)
                if s is not None and (i & mask) == edge and inside and h < s[1][i >> lg]:
                    i += step * b
                    continue
                if not h < x[i]:
                    break
                i += step
            ip = float(i - (0 if base is None else base[p]))
            if x[i] < h:
                ip -= step * ((h - x[i]) / (x[i - step] - x[i]))
            ends.append(ip)
        out[0][p] = ends[1] - ends[0]
        out[1][p], out[2][p], out[3][p] = h, ends[0], ends[1]
    return out


def model_fused(x, plateau, height, threshold):
    """``keep_peak``: plateau edges of every local maximum and whether it
    meets the fused conditions (each None or SciPy's (lo, hi) pair)."""
    left, right = model_local_maxima(x)
    peaks = (left + right) // 2
    keep = _within(plateau, peaks, right - left + 1.0)
    keep &= _within(height, peaks, x[peaks])
    if threshold is not None and (threshold[0] is not None or threshold[1] is not None):
        lt, rt = x[peaks] - x[peaks - 1], x[peaks] - x[peaks + 1]
        keep &= ~(np.isnan(lt) | np.isnan(rt))
        with np.errstate(invalid="ignore"):
            keep &= _within((threshold[0], None), peaks, np.minimum(lt, rt))
            keep &= _within((None, threshold[1]), peaks, np.maximum(lt, rt))
    return left, right, keep


def model_distance(pos, h, d, max_rounds):
    """``select_by_distance`` on one channel: ``(keep, flagged)``.

    Rounds: every undecided peak that outranks (height, then position) all
    peaks not yet removed within its window is kept and removes its window.
    Flagged: more than ``max_rounds`` rounds, or a removed peak with no kept
    neighbour of strictly greater height within ``d``."""
    pos = np.asarray(pos, np.int64)
    h = np.asarray(h, np.float64)
    m = pos.size
    st = np.full(m, 2, np.uint8)
    if m == 0:
        return np.zeros(0, bool), False
    gaps = np.diff(pos) < d
    contested = np.zeros(m, bool)
    contested[:-1] |= gaps
    contested[1:] |= gaps
    st[~contested] = 1
    lo = np.searchsorted(pos, pos - d, "right")
    hi = np.searchsorted(pos, pos + d, "left")
    rank = np.empty(m, np.int64)
    rank[np.lexsort((np.arange(m), h))] = np.arange(m)   # -0.0 ties 0.0
    rounds = 0
    while (st == 2).any():
        if rounds == max_rounds:
            return st == 1, True
        active = np.where(st == 0, -1, rank)
        root = (st == 2) & (M._window_max(active, lo, hi) == rank)
        cover = (np.bincount(lo[root], minlength=m + 1)
                 - np.bincount(hi[root], minlength=m + 1))
        st[np.cumsum(cover[:m]) > 0] = 0
        st[root] = 1
        rounds += 1
    kept = np.flatnonzero(st == 1)
    removed = np.flatnonzero(st == 0)
    j = np.searchsorted(pos[kept], pos[removed])      # kept neighbours: j - 1, j
    strict = np.zeros(removed.size, bool)
    for k in (j - 1, j):
        ok = (k >= 0) & (k < kept.size)
        kk = kept[np.clip(k, 0, max(kept.size - 1, 0))] if kept.size else removed
        near = ok & (np.abs(pos[kk] - pos[removed]) < d) & (h[kk] > h[removed])
        strict |= near
    return st == 1, bool(removed.size and not strict.all())


def model_find_peaks(x, height=None, threshold=None, distance=None, prominence=None,
                     width=None, wlen=None, rel_height=0.5, plateau_size=None, lg=None):
    """find_peaks' GPU pipeline on the host: fused per-peak conditions, the
    host distance selection, tiled prominence and width walks, compactions."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    bounds = [None if c is None else M._condition(c, n)
              for c in (plateau_size, height, threshold)]
    left, right, keep = model_fused(x, *bounds)
    peaks = (left + right) // 2
    props = {}
    if plateau_size is not None:
        props.update(plateau_sizes=right - left + 1, left_edges=left, right_edges=right)
    if height is not None:
        props["peak_heights"] = x[peaks]
    if threshold is not None:
        props.update(left_thresholds=x[peaks] - x[peaks - 1],
                     right_thresholds=x[peaks] - x[peaks + 1])
    peaks = peaks[keep]
    props = {k: v[keep] for k, v in props.items()}
    if distance is not None:
        keep = M.select_by_peak_distance(peaks, x[peaks], distance)
        peaks = peaks[keep]
        props = {k: v[keep] for k, v in props.items()}
    if prominence is not None or width is not None:
        wl = M._wlen_as_expected(wlen)
        props.update(zip(("prominences", "left_bases", "right_bases"),
                         model_prominences(x, peaks, wl, lg)))
        if prominence is not None:
            keep = _within(M._condition(prominence, n), peaks, props["prominences"])
            peaks = peaks[keep]
            props = {k: v[keep] for k, v in props.items()}
    if width is not None:
        props.update(zip(("widths", "width_heights", "left_ips", "right_ips"),
                         model_widths(x, peaks, M._rel_height(rel_height),
                                      props["prominences"], props["left_bases"],
                                      props["right_bases"], lg)))
        keep = _within(M._condition(width, n), peaks, props["widths"])
        peaks = peaks[keep]
        props = {k: v[keep] for k, v in props.items()}
    return peaks, props


def model_relextrema(data, comparator, axis=0, order=1, mode="clip"):
    """The relextrema kernel: shifts 1..min(order, n), clipped or wrapped."""
    data = np.asarray(data)
    ax = axis % data.ndim
    n = data.shape[ax]
    v = np.moveaxis(data, ax, -1)
    out = np.ones(v.shape, bool)
    idx = np.arange(n)
    for s in range(1, min(order, max(n, 1)) + 1):
        if mode == "wrap":
            ip, im = (idx + s) % n, (idx - s) % n
        else:
            ip, im = np.minimum(idx + s, n - 1), np.maximum(idx - s, 0)
        out &= comparator(v, v[..., ip]) & comparator(v, v[..., im])
    return np.moveaxis(out, -1, ax)


# ------------------------------------------------------------- test data

def _signal(kind, n, seed):
    rng = np.random.default_rng(seed)
    if kind == "int":          # many ties and plateaus
        return rng.integers(0, 6, n).astype(np.float64)
    if kind == "steps":        # long plateaus, some at the edges
        return np.repeat(rng.integers(0, 4, n // 5 + 1), 5)[:n].astype(np.float64)
    if kind == "normal":
        return rng.standard_normal(n)
    if kind == "nan":
        x = rng.integers(0, 6, n).astype(np.float64)
        x[rng.random(n) < 0.08] = np.nan
        x[rng.random(n) < 0.03] = np.inf
        x[rng.random(n) < 0.03] = -np.inf
        return x
    if kind == "zeros":        # signed zeros and ties
        return rng.choice([-1.0, -0.0, 0.0, 1.0], n)
    if kind == "ecg":          # quantised like an ADC, 360 Hz pulses
        return _ecg_like(n, rng)
    raise ValueError(kind)


def _ecg_like(n, rng, fs=360.0):
    t = np.arange(n) / fs
    x = 0.1 * np.sin(2 * np.pi * 0.3 * t)
    for beat in np.arange(0.3, t[-1] if n else 0, 0.8 + 0.05 * rng.standard_normal()):
        x += 1.2 * np.exp(-((t - beat) / 0.012) ** 2)
        x -= 0.2 * np.exp(-((t - beat - 0.05) / 0.02) ** 2)
        x += 0.25 * np.exp(-((t - beat - 0.25) / 0.05) ** 2)
    x += 0.03 * rng.standard_normal(n)
    return np.round(x * 200) / 200              # 200 ADC counts per mV


KINDS = ["int", "steps", "normal", "nan", "zeros", "ecg"]

# find_peaks conditions, one table for the CPU model and the GPU kernels
CASES = [
    {},
    {"plateau_size": 1},
    {"plateau_size": (2, 4)},
    {"height": 2},
    {"height": (None, 3)},
    {"threshold": 1},
    {"threshold": (0, 2)},
    {"threshold": (None, None)},
    {"distance": 1},
    {"distance": 3},
    {"distance": 7.5},
    {"distance": 40},
    {"prominence": 1},
    {"prominence": (0.5, 3), "wlen": 9},
    {"prominence": 0, "wlen": 4.2},
    {"width": 1},
    {"width": (0.5, 6), "rel_height": 1.0},
    {"width": 0, "rel_height": 0.0},
    {"width": 2, "prominence": 1, "wlen": 31},
    {"height": 1, "threshold": 0.5, "distance": 5, "prominence": 0.5, "width": 1,
     "plateau_size": (1, None), "wlen": 25, "rel_height": 0.75},
]


def _arrays_for(case, n, seed):
    """The case with x-sized array borders in place of some scalars."""
    rng = np.random.default_rng(seed)
    out = dict(case)
    if "height" in case:
        out["height"] = (rng.random(n) * 3, None)
    if "prominence" in case:
        out["prominence"] = (None, 2 + rng.random(n))
    return out


def assert_same(got, ref):
    """Peaks and properties identical (order of keys, dtypes, values)."""
    p, props = got
    rp, rprops = ref
    np.testing.assert_array_equal(np.asarray(p), rp)
    assert np.asarray(p).dtype == rp.dtype
    assert list(props) == list(rprops)
    for k in rprops:
        a = np.asarray(props[k])
        assert a.dtype == rprops[k].dtype, k
        np.testing.assert_array_equal(a, rprops[k], err_msg=k)


def _quiet(f, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PPW)
        return f(*a, **k)


# ------------------------------------------------------------------ CPU

@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 57, 600])
def test_model_local_maxima(kind, n):
    x = _signal(kind, n, n)
    left, right = model_local_maxima(x)
    peaks, props = ss.find_peaks(x, plateau_size=(None, None))
    np.testing.assert_array_equal((left + right) // 2, peaks)
    np.testing.assert_array_equal(left, props["left_edges"])
    np.testing.assert_array_equal(right, props["right_edges"])


def test_model_local_maxima_edge_cases():
    for x in ([1, 2, 2], [2, 2, 1], [0, 1, 1, 1, 0], [0, 1, 1, 2, 0], [1, 1, 1, 1],
              [0, np.nan, 0], [0, 1, np.nan], [np.nan, 1, 0], [0, np.inf, np.inf, 0],
              [0, 1, 1, 1, 1, 0, 5, 5, 4], [-0.0, 0.0, -0.0]):
        x = np.asarray(x, float)
        left, right = model_local_maxima(x)
        np.testing.assert_array_equal((left + right) // 2, ss.find_peaks(x)[0], err_msg=str(x))


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("lg", [None, 2, 3])
def test_model_find_peaks(case, kind, lg):
    x = _signal(kind, 400, case)
    assert_same(_quiet(model_find_peaks, x, lg=lg, **CASES[case]),
                _quiet(ss.find_peaks, x, **CASES[case]))


@pytest.mark.parametrize("case", [3, 4, 12, 13, 19])
def test_model_find_peaks_array_borders(case):
    x = _signal("ecg", 900, case)
    kw = _arrays_for(CASES[case], x.size, case)
    assert_same(_quiet(model_find_peaks, x, lg=3, **kw), _quiet(ss.find_peaks, x, **kw))


@pytest.mark.parametrize("kind", ["int", "nan", "zeros", "ecg", "normal"])
@pytest.mark.parametrize("wlen", [None, 2, 3, 7.5, 60])
@pytest.mark.parametrize("lg", [None, 1, 3, 5])
def test_model_prominences_and_widths(kind, wlen, lg):
    x = _signal(kind, 700, 11)
    peaks = ss.find_peaks(x)[0]
    # any index is allowed, also non-peaks and the ends
    peaks = np.unique(np.concatenate([peaks, [0, 5, x.size - 1]]))
    wl = M._wlen_as_expected(wlen)
    ref = _quiet(ss.peak_prominences, x, peaks, wlen=wlen)
    got = model_prominences(x, peaks, wl, lg)
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)
    for rel in (0.0, 0.5, 1.0, 2.5):
        np.testing.assert_array_equal(
            model_widths(x, peaks, rel, *ref, lg), _quiet(ss.peak_widths, x, peaks, rel, ref))


def test_model_tile_summaries_ties_and_nan():
    x = np.array([3, 1, 2, 1, np.nan, 0, 0, 5, -0.0, 0.0, 0.0, -0.0])
    mx, mn, il, ir = model_tile_summaries(x, 2)
    np.testing.assert_array_equal(mx, [3, np.nan, 0.0])
    np.testing.assert_array_equal(il, [3, 6, 11])
    np.testing.assert_array_equal(ir, [1, 5, 8])


@pytest.mark.parametrize("kind", ["int", "ecg", "steps"])
@pytest.mark.parametrize("distance", [1, 2, 3.5, 10, 150, 1e9, 2.0 ** 62, 2.0 ** 63,
                                      np.inf, np.nan])
def test_distance_selection(kind, distance):
    x = _signal(kind, 6000, 3)
    peaks = ss.find_peaks(x)[0]
    keep = M.select_by_peak_distance(peaks, x[peaks], distance)
    ref = ss.find_peaks(x, distance=distance)[0] if not distance < 1 else peaks
    np.testing.assert_array_equal(peaks[keep], ref)


@pytest.mark.parametrize("kind", ["rounds", "chain", "dense"])
@pytest.mark.parametrize("probe", [None, 256])
def test_distance_selection_regimes(kind, probe, monkeypatch):
    """Vectorised rounds that decide everything, a tie chain that sends all
    peaks to the sequential pass (equal heights ranked by NumPy's argsort),
    and a mix; the probe as round 1, or on a stretch of the signal."""
    if probe:
        monkeypatch.setattr(M, "_PROBE", probe)
    rng = np.random.default_rng(5)
    n = 60000
    if kind == "rounds":
        x = rng.standard_normal(n)
    elif kind == "chain":
        x = np.tile([0.0, 1.0], n // 2)            # all peaks of equal height
    else:
        x = np.round(np.linspace(0, 3, n) + 0.3 * rng.standard_normal(n), 1)
    peaks = ss.find_peaks(x)[0]
    for d in (3, 25, 400):
        keep = M.select_by_peak_distance(peaks, x[peaks], d)
        np.testing.assert_array_equal(peaks[keep], ss.find_peaks(x, distance=d)[0])


def test_window_max():
    rng = np.random.default_rng(0)
    v = rng.integers(0, 1000, 300)
    lo = np.sort(rng.integers(0, 300, 300))
    hi = np.minimum(np.maximum(lo + 1, lo + rng.integers(1, 80, 300)), 300)
    ref = np.array([v[a:b].max() for a, b in zip(lo, hi)])
    np.testing.assert_array_equal(M._window_max(v, lo, hi), ref)


@pytest.mark.parametrize("cmp", [np.greater, np.less, np.greater_equal, np.less_equal,
                                 np.equal, np.not_equal])
@pytest.mark.parametrize("shape, axis", [((50,), 0), ((7, 40), 1), ((40, 3), 0),
                                         ((3, 9, 4), -2), ((3, 0), 1), ((2, 3), 0)])
@pytest.mark.parametrize("order", [1, 3, 60])
@pytest.mark.parametrize("mode", ["clip", "wrap"])
def test_model_relextrema(cmp, shape, axis, order, mode):
    rng = np.random.default_rng(order)
    data = rng.integers(0, 4, shape).astype(float)
    if data.size:
        data.flat[::7] = np.nan
    ref = ss.argrelextrema(data, cmp, axis=axis, order=order, mode=mode)
    got = np.nonzero(model_relextrema(data, cmp, axis, order, mode))
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)


def test_argument_helpers():
    assert M._wlen_as_expected(None) == -1
    assert M._wlen_as_expected(2.1) == 3 and M._wlen_as_expected(np.float32(2.5)) == 2
    assert M._wlen_as_expected(np.float64(2.5)) == 3 and M._wlen_as_expected(4) == 4
    for bad in (1, 0.5, -3, np.int64(1)):
        with pytest.raises(ValueError, match=f"`wlen` must be larger than 1, was {bad}"):
            M._wlen_as_expected(bad)
    with pytest.raises(OverflowError):
        M._wlen_as_expected(np.inf)
    with pytest.raises(ValueError, match="`rel_height` must be greater or equal to 0.0"):
        M._rel_height(-0.1)
    with pytest.raises(TypeError):
        M._rel_height("0.5")
    x = np.zeros(5)
    assert M._condition(3, 5) == (3.0, None)
    assert M._condition((None, 2), 5) == (None, 2.0)
    assert M._condition(np.array([1, 4]), 5) == (1.0, 4.0)     # unpacked, like SciPy
    lo, hi = M._condition(x, 5)
    assert lo is x and hi is None
    lo, hi = M._condition(np.vstack([x, x + 1]), 5)
    assert lo.shape == (5,) and hi.shape == (5,)
    with pytest.raises(ValueError, match="array size of lower interval border must match x"):
        M._condition(np.zeros(4), 5)
    with pytest.raises(ValueError, match="array size of upper interval border must match x"):
        M._condition((1, np.zeros(4)), 5)
    with pytest.raises(ValueError, match="array size of lower"):
        M._condition(np.array(3.0), 5)     # a 0-d ndarray, as SciPy
    with pytest.raises(ValueError, match="broadcast"):
        M._condition([1, 2, 3], 5)
    assert [M._take_mode(m) for m in ("clip", "wrap", "raise", 0, 1, None)] == \
        ["clip", "wrap", "raise", "clip", "wrap", "raise"]
    with pytest.raises(ValueError, match="clipmode must be one of"):
        M._take_mode("foo")


def test_struct_layouts():
    assert len(M._pack_bound(None)) == 40
    assert struct.unpack("<QQddii", M._pack_bound((1.5, None)))[2:] == (1.5, 0.0, 1, 0)
    assert M.tile_log2(4095) is None and M.tile_log2(1 << 12) == 8 and M.tile_log2(108000) == 8
    assert M.tile_log2(1 << 24) == 12 and M.tile_log2(1 << 40) == 14


def test_signatures_are_scipys():
    import inspect
    for name in ("find_peaks", "peak_prominences", "peak_widths", "argrelmin",
                 "argrelmax", "argrelextrema"):
        assert (inspect.signature(getattr(M, name))
                == inspect.signature(getattr(ss, name))), name
        assert "Returns" in getattr(M, name).__doc__
    assert issubclass(PPW, RuntimeWarning)


def test_x_checks_on_host():
    with pytest.raises(ValueError, match="`x` must be a 1-D array"):
        M.find_peaks(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="`x` must be a 1-D array"):
        M.peak_prominences(3.0, [0])
    with pytest.raises(TypeError, match="cannot safely cast `peaks`"):
        M._peaks_as_expected(np.array([1.0]))
    with pytest.raises(ValueError, match="`peaks` must be a 1-D array"):
        M._peaks_as_expected([[1]])


def test_nvrtc_every_kernel():
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    from gpuscipy_core._kernel._ufunc_names import DTYPES
    src = M.peaks_source()
    for name in M.PEAK_KERNELS:
        assert f" {name}(" in src
    header = read_source(M._CUH)
    rel = [header]
    for dt in DTYPES:
        s, name = M.relextrema_source(dt)
        assert s.startswith(header) and name in s
        rel.append(s[len(header):])
    units = [(src, "peaks"), ("".join(rel), "relextrema")]
    with ThreadPoolExecutor(max(1, min(2, os.cpu_count() or 1))) as ex:
        assert all(ex.map(lambda u: compile_cubin(*u), units))


def _ecg_host():
    try:
        from gpuscipy.datasets import electrocardiogram
        return electrocardiogram()
    except (ImportError, OSError, KeyError) as e:      # dataset not packaged yet
        pytest.skip(f"gpuscipy.datasets.electrocardiogram unavailable: {e}")


def _pan_tompkins(ecg, fs=360):
    """A Pan-Tompkins-like chain on the host: 5-15 Hz band-pass, derivative,
    squaring, 150 ms moving-window integration."""
    sos = ss.butter(2, [5, 15], btype="bandpass", fs=fs, output="sos")
    y = ss.sosfiltfilt(sos, ecg)
    y = np.gradient(y) ** 2
    w = int(0.15 * fs)
    return np.convolve(y, np.ones(w) / w, mode="same")


R_PEAK_ARGS = dict(distance=72, prominence=0.3)
RELEX_DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                "uint64", "float16", "float32", "float64", "complex64", "complex128"]


def test_model_real_ecg():
    ecg = _ecg_host()
    for lg in (None, 8):
        assert_same(_quiet(model_find_peaks, ecg, height=0.3, lg=lg, **R_PEAK_ARGS),
                    _quiet(ss.find_peaks, ecg, height=0.3, **R_PEAK_ARGS))
    y = _pan_tompkins(ecg)
    kw = dict(height=0.3 * y.max(), distance=72, prominence=0.1 * y.max())
    assert_same(model_find_peaks(y, lg=10, **kw), ss.find_peaks(y, **kw))


# ------------------------------------------------------- kernel emulator
# The device tests below run twice: on the GPU (marked gpu) and on the CPU
# with ``gpuscipy_core`` replaced by NumPy arrays (``HostArray``: real host
# memory, so the pointers packed into the kernels' structs are real) and
# every kernel by a Python emulator built on the models above. The
# emulator decodes each launch by the kernel's C signature parsed from the
# generated source (pointer / long long / int / double / struct size: a
# Python int passed where the kernel takes an int, or a struct of the
# wrong size, fails here), checks the launch geometry and the zeroed
# look-back state, and reads and writes through the pointers. It tests the
# host side -- argument handling, row layouts, compactions, status words,
# warnings, errors -- not the CUDA code (the models and NVRTC do that here,
# the GPU runs do it for real).

class HostArray(np.ndarray):
    """A NumPy array standing in for a device array."""

    @property
    def ptr(self):
        return self.__array_interface__["data"][0]

    def get(self, *args, **kwargs):
        return np.array(self)


def _h(a):
    return np.asarray(a).view(HostArray)


def _garbage(shape, dtype=float):
    """``empty``: filled with a byte pattern, so reading what no kernel wrote
    shows up."""
    a = np.empty(shape, dtype)
    a.reshape(-1).view(np.uint8)[:] = 0x55
    return _h(a)


def host_gp():
    """What ``_peak_finding`` calls of ``gpuscipy_core``, on NumPy."""
    g = types.SimpleNamespace(ndarray=HostArray)
    g.asarray = lambda a, dtype=None: _h(np.asarray(a, dtype=dtype))
    g.ascontiguousarray = lambda a, dtype=None: _h(np.ascontiguousarray(a, dtype=dtype))
    g.empty = _garbage
    g.zeros = lambda shape, dtype=float: _h(np.zeros(shape, dtype))
    g.ones = lambda shape, dtype=float: _h(np.ones(shape, dtype))
    g.arange = lambda *a: _h(np.arange(*a))
    g.take = lambda a, i, axis=None, mode="raise": _h(np.take(np.asarray(a), np.asarray(i),
                                                              axis=axis, mode=mode))
    g.nonzero = lambda a: tuple(_h(i) for i in np.nonzero(np.asarray(a)))
    g.asnumpy = lambda a: np.array(a)
    return g


_STRUCTS = {"gs_signal_peaks::conds_t": 120, "gs_signal_peaks::bound_t": 40,
            "gs_signal_peaks::tiles_t": 40,
            "gs_signal_peaks::rows_t": 128}


@functools.lru_cache(maxsize=None)
def _signatures():
    text = M.peaks_source() + "".join(M.relextrema_source(dt)[0] for dt in RELEX_DTYPES)
    sigs = {}
    for name, params in re.findall(r"\b(gs_\w+)\(([^)]*)\)\s*\{", text):
        kinds = []
        for p in params.split(","):
            t = p.strip().rsplit(" ", 1)[0].replace("const ", "").strip()
            kinds.append("ptr" if "*" in t else _STRUCTS.get(t, t))
        sigs[name] = kinds
    return sigs


def _decode(name, args):
    kinds = _signatures()[name]
    assert len(args) == len(kinds), (name, len(args), len(kinds))
    out = []
    for i, (k, a) in enumerate(zip(kinds, args)):
        where = f"{name} argument {i}"
        if k == "ptr":
            assert isinstance(a, HostArray) or (type(a) is int and a == 0), where
            out.append(a.ptr if isinstance(a, HostArray) else 0)
        elif k == "long long":
            assert type(a) is int or type(a) is np.int64, (where, type(a))
            out.append(int(a))
        elif k == "int":
            assert type(a) is np.int32, (where, type(a))
            out.append(int(a))
        elif k == "double":
            assert type(a) is float or type(a) is np.float64, (where, type(a))
            out.append(float(a))
        else:
            assert isinstance(a, bytes) and len(a) == k, (where, k)
            out.append(a)
    return out


def _mem(addr, dtype, count):
    dtype = np.dtype(dtype)
    assert addr or not count, "null pointer dereference"
    if not count:
        return np.empty(0, dtype)
    return np.frombuffer((ctypes.c_char * (count * dtype.itemsize)).from_address(addr), dtype)


class PerChannel:
    """A per-channel border (``bound_t`` kind 3) read by the emulator."""

    def __init__(self, values):
        self.values = values


def _bound(raw, n, channels=1):
    lo_p, hi_p, lo, hi, has_lo, has_hi = struct.unpack("<QQddii", raw)

    def part(has, v, p):
        assert has in (0, 1, 2, 3)
        if has == 3:
            return PerChannel(_mem(p, np.float64, channels).copy())
        return None if has == 0 else v if has == 1 else _mem(p, np.float64, n).copy()
    return part(has_lo, lo, lo_p), part(has_hi, hi, hi_p)


def _channel_bound(b, c, nrow):
    """Channel c's view of a batch border: per-sample rows sliced,
    per-channel values picked."""
    if b is None:
        return None

    def one(v):
        if isinstance(v, PerChannel):
            return float(v.values[c])
        if isinstance(v, np.ndarray):
            return v[c * nrow:(c + 1) * nrow]
        return v
    return one(b[0]), one(b[1])


def _within_at(b, flat, chan, v, nrow):
    """``within`` for candidates at flat indices of channels ``chan``."""
    keep = np.ones(np.shape(v), bool)
    if b is None:
        return keep
    for side, bound in enumerate(b):
        if bound is None:
            continue
        lim = (bound.values[chan] if isinstance(bound, PerChannel)
               else bound[flat] if isinstance(bound, np.ndarray) else bound)
        keep &= (lim <= v) if side == 0 else (v <= lim)
    return keep


def model_candidates(x, nrow, plateau, height, threshold):
    """``keep_peak`` over the channels of a flat (channels * nrow) signal:
    channel, local left and right edges of the candidates, in flat order."""
    chans, lefts, rights = [], [], []
    for c in range(x.size // nrow):
        left, right, keep = model_fused(x[c * nrow:(c + 1) * nrow],
                                        *(_channel_bound(b, c, nrow)
                                          for b in (plateau, height, threshold)))
        chans.append(np.full(int(keep.sum()), c))
        lefts.append(left[keep])
        rights.append(right[keep])
    if not chans:
        return (np.zeros(0, np.int64),) * 3
    return (np.concatenate(chans).astype(np.int64), np.concatenate(lefts).astype(np.int64),
            np.concatenate(rights).astype(np.int64))


def _tiles(raw, n):
    mx, mn, il, ir, lg = struct.unpack("<QQQQi4x", raw)
    if not mx:
        return None, None
    assert lg == M.tile_log2(n)
    nt = -(-n // (1 << lg))
    s = (_mem(mx, np.float64, nt), _mem(mn, np.float64, nt), _mem(il, np.int64, nt),
         _mem(ir, np.int64, nt))
    return lg, s


def _emu_count(grid, block, x, n, nrow, c, total):
    assert grid[0] == -(-n // M.TILE) and block[0] == M.THREADS
    assert nrow >= 3 and n % nrow == 0
    xs = _mem(x, np.float64, n)
    conds = [_bound(c[40 * i:40 * i + 40], n, n // nrow) for i in range(3)]
    chan, _, _ = model_candidates(xs, nrow, *conds)
    _mem(total, np.uint64, 1)[0] += np.uint64(chan.size)


def _emu_write(grid, block, x, n, nrow, c, ntiles, state, out, cap, r_h, r_p, r_t, r_c):
    assert grid[0] == ntiles == -(-n // M.TILE) and block[0] == M.THREADS
    assert state % 16 == 0, "look-back descriptors must be 16-byte aligned"
    assert not _mem(state, np.int64, 2 + 2 * ntiles).any(), "look-back state not zeroed"
    assert (r_c >= 0) == (n > nrow)
    xs = _mem(x, np.float64, n)
    conds = [_bound(c[40 * i:40 * i + 40], n, n // nrow) for i in range(3)]
    chan, left, right = model_candidates(xs, nrow, *conds)
    mid = (left + right) // 2
    flat = chan * nrow + mid
    assert mid.size == cap
    rows = max(1, r_h + 1, r_p + 3, r_t + 2, r_c + 1)
    o = _mem(out, np.int64, rows * cap).reshape(rows, cap)
    o[0] = mid
    if r_c >= 0:
        o[r_c] = chan
    if r_h >= 0:
        o[r_h] = xs[flat].view(np.int64)
    if r_p >= 0:
        o[r_p], o[r_p + 1], o[r_p + 2] = right - left + 1, left, right
    if r_t >= 0:
        with np.errstate(invalid="ignore"):
            o[r_t] = (xs[flat] - xs[flat - 1]).view(np.int64)
            o[r_t + 1] = (xs[flat] - xs[flat + 1]).view(np.int64)


def _channels_of(offsets, m, channels):
    """Candidate ranges [a, b) per channel (offsets null: one channel)."""
    if not offsets:
        assert channels == 1
        return np.array([0, m])
    off = _mem(offsets, np.int64, channels + 1).copy()
    assert off[0] == 0 and off[-1] == m and (np.diff(off) >= 0).all()
    return off


def _emu_distance(grid, block, pos, h, offsets, m, d, max_rounds, st, strict, counts, flags,
                  status):
    assert block[0] in (256, 1024) and m > 1 and d >= 1 and max_rounds >= 0
    channels = grid[0]
    off = _channels_of(offsets, m, channels)
    ps, hs = _mem(pos, np.int64, m), _mem(h, np.float64, m)
    keep_all = _mem(st, np.uint8, m)
    _mem(strict, np.uint8, m)[:] = 0x55           # scratch
    stw = _mem(status, np.uint64, 2)
    for c in range(channels):
        a, b = off[c], off[c + 1]
        assert (np.diff(ps[a:b]) > 0).all()
        keep, flag = model_distance(ps[a:b], hs[a:b], d, max_rounds)
        keep_all[a:b] = keep
        if counts:
            _mem(counts, np.int64, channels)[c] = keep.sum()
        if flags:
            _mem(flags, np.uint8, channels)[c] = flag
        stw[0] += np.uint64(keep.sum())
        stw[1] += np.uint64(flag)


def _batch_signal(x, nrow, chan, m):
    """The flat signal behind a batch stage: channels up to the last one
    a candidate names."""
    channels = int(_mem(chan, np.int64, m).max()) + 1 if chan else 1
    return _mem(x, np.float64, channels * nrow), channels


def _batch_tiles(raw, nrow, n):
    mx, mn, il, ir, lg = struct.unpack("<QQQQi4x", raw)
    if not mx:
        assert M.tile_log2(nrow) is None
        return None, None
    assert lg == M.tile_log2(nrow)
    nt = -(-n // (1 << lg))
    s = (_mem(mx, np.float64, nt), _mem(mn, np.float64, nt), _mem(il, np.int64, nt),
         _mem(ir, np.int64, nt))
    return lg, s


def _emu_prominences_rows(grid, block, x, nrow, peaks, chan, m, wlen, tiles, pre, prom, lb,
                          rb, cond, keep, status):
    assert grid[0] * block[0] >= m > 0 and block[0] == M.PEAK_THREADS
    xs, channels = _batch_signal(x, nrow, chan, m)
    lg, s = _batch_tiles(tiles, nrow, xs.size)
    ch = _mem(chan, np.int64, m) if chan else np.zeros(m, np.int64)
    pk = _mem(peaks, np.int64, m)
    pr, lbs, rbs = _mem(prom, np.float64, m), _mem(lb, np.int64, m), _mem(rb, np.int64, m)
    kp = _mem(keep, np.uint8, m) if keep else None
    todo = _mem(pre, np.uint8, m) != 0 if pre else np.ones(m, bool)
    b = _bound(cond, xs.size, channels)
    st = _mem(status, np.uint64, 4)
    for p in np.flatnonzero(todo):
        base = ch[p] * nrow
        peak = base + pk[p]
        with np.errstate(invalid="ignore"):
            (pr[p],), (lbs[p],), (rbs[p],) = model_prominences(
                xs, [peak], wlen, lg, s, lo=[base], hi=[base + nrow - 1])
        lbs[p] -= base
        rbs[p] -= base
        st[2] |= np.uint64(pr[p] == 0)
    if kp is not None:
        flat = ch * nrow + pk
        kp[:] = todo & _within_at(b, flat, ch, np.where(todo, pr, 0), nrow)


def _emu_widths_rows(grid, block, x, nrow, peaks, chan, m, rel, prom, lb, rb, tiles, pre, out,
                     cap, cond, keep, status):
    assert grid[0] * block[0] >= m > 0 and cap == m and block[0] == M.PEAK_THREADS
    xs, channels = _batch_signal(x, nrow, chan, m)
    lg, s = _batch_tiles(tiles, nrow, xs.size)
    ch = _mem(chan, np.int64, m) if chan else np.zeros(m, np.int64)
    pk = _mem(peaks, np.int64, m)
    pr, lbs, rbs = _mem(prom, np.float64, m), _mem(lb, np.int64, m), _mem(rb, np.int64, m)
    o = _mem(out, np.float64, 4 * cap).reshape(4, cap)
    todo = _mem(pre, np.uint8, m) != 0 if pre else np.ones(m, bool)
    b = _bound(cond, xs.size, channels)
    st = _mem(status, np.uint64, 4)
    for p in np.flatnonzero(todo):
        base = ch[p] * nrow
        with np.errstate(invalid="ignore", divide="ignore"):
            w = model_widths(xs, [base + pk[p]], rel, pr[p:p + 1], [base + lbs[p]],
                             [base + rbs[p]], lg, s, base=[base])
        o[:, p] = [w[0][0], w[1][0], w[2][0], w[3][0]]
        st[3] |= np.uint64(o[0, p] == 0)
    kp = _mem(keep, np.uint8, m)
    kp[:] = todo & _within_at(b, ch * nrow + pk, ch, np.where(todo, o[0], 0), nrow)


def _emu_channel_counts(grid, block, keep, offsets, m, counts):
    channels = grid[0]
    off = _channels_of(offsets, m, channels)
    k = _mem(keep, np.uint8, m) != 0 if keep else np.ones(m, bool)
    cs = np.concatenate([[0], np.cumsum(k)])
    _mem(counts, np.int64, channels)[:] = cs[off[1:]] - cs[off[:-1]]


def _emu_channel_offsets(grid, block, chan, m, channels, offsets):
    assert grid[0] * block[0] >= m + 1 and channels > 1
    ch = _mem(chan, np.int64, m)
    assert (np.diff(ch) >= 0).all() and ch.min() >= 0 and ch.max() < channels
    _mem(offsets, np.int64, channels + 1)[:] = np.searchsorted(ch, np.arange(channels + 1))


def _emu_summaries_warp(grid, block, x, n, lg, ntiles, sm):
    assert grid[0] * block[0] >= 32 * ntiles and ntiles == -(-n // (1 << lg)) and 8 <= lg <= 10
    mx, mn, il, ir = model_tile_summaries(_mem(x, np.float64, n).copy(), lg)
    s = _mem(sm, np.int64, 4 * ntiles).reshape(4, ntiles)
    s[0], s[1], s[2], s[3] = mx.view(np.int64), mn.view(np.int64), il, ir


def _emu_compact(grid, block, flags, m, ntiles, state, src, nrows, dst, cap):
    assert grid[0] == ntiles == -(-m // M.COMPACT_TILE) and block[0] == M.THREADS
    assert state % 16 == 0, "look-back descriptors must be 16-byte aligned"
    assert not _mem(state, np.int64, 2 + 2 * ntiles).any(), "look-back state not zeroed"
    keep = _mem(flags, np.uint8, m) != 0
    ptrs = struct.unpack(f"<{M.MAX_ROWS}Q", src)
    assert 1 <= nrows <= M.MAX_ROWS and all(ptrs[:nrows]) and not any(ptrs[nrows:])
    k = int(keep.sum())
    assert k <= cap
    d = _mem(dst, np.int64, nrows * cap).reshape(nrows, cap)
    for r in range(nrows):
        d[r, :k] = _mem(ptrs[r], np.int64, m)[keep]


def _emu_summaries(grid, block, x, n, lg, ntiles, sm):
    # lg from the signal's length, or (a batch) from its channels' length
    assert grid[0] == ntiles == -(-n // (1 << lg)) and 8 <= lg <= M.tile_log2(n)
    mx, mn, il, ir = model_tile_summaries(_mem(x, np.float64, n).copy(), lg)
    s = _mem(sm, np.int64, 4 * ntiles).reshape(4, ntiles)
    s[0], s[1], s[2], s[3] = mx.view(np.int64), mn.view(np.int64), il, ir


def _emu_prominences(grid, block, x, n, peaks, m, wlen, tiles, prom, lb, rb, cond, keep,
                     status):
    assert grid[0] * block[0] >= m > 0
    xs, pk = _mem(x, np.float64, n), _mem(peaks, np.int64, m)
    lg, s = _tiles(tiles, n)
    st = _mem(status, np.uint64, 4)
    pr, lbs, rbs = _mem(prom, np.float64, m), _mem(lb, np.int64, m), _mem(rb, np.int64, m)
    b = _bound(cond, n)
    kp = _mem(keep, np.uint8, m) if keep else None
    for p, peak in enumerate(pk):
        if not 0 <= peak < n:
            st[1] = max(int(st[1]), m - p)
            continue
        with np.errstate(invalid="ignore"):
            (pr[p],), (lbs[p],), (rbs[p],) = model_prominences(xs, [peak], wlen, lg, s)
        st[2] |= np.uint64(pr[p] == 0)
        if kp is not None:
            kp[p] = _within(b, peak, pr[p])
            st[0] += np.uint64(kp[p])


def _emu_widths(grid, block, x, n, peaks, m, rel, prom, lb, rb, tiles, out, cap, cond, keep,
                status):
    assert grid[0] * block[0] >= m > 0 and cap == m
    xs, pk = _mem(x, np.float64, n), _mem(peaks, np.int64, m)
    lg, s = _tiles(tiles, n)
    st = _mem(status, np.uint64, 4)
    pr, lbs, rbs = _mem(prom, np.float64, m), _mem(lb, np.int64, m), _mem(rb, np.int64, m)
    o = _mem(out, np.float64, 4 * cap).reshape(4, cap)
    b = _bound(cond, n)
    kp = _mem(keep, np.uint8, m) if keep else None
    for p, peak in enumerate(pk):
        if not 0 <= lbs[p] <= peak <= rbs[p] < n:
            st[1] = max(int(st[1]), m - p)
            continue
        with np.errstate(invalid="ignore", divide="ignore"):
            w = model_widths(xs, [peak], rel, pr[p:p + 1], lbs[p:p + 1], rbs[p:p + 1], lg, s)
        o[:, p] = [w[0][0], w[1][0], w[2][0], w[3][0]]
        st[3] |= np.uint64(o[0, p] == 0)
        if kp is not None:
            kp[p] = _within(b, peak, o[0, p])
            st[0] += np.uint64(kp[p])


_COMPARE = [np.greater, np.less, np.greater_equal, np.less_equal, np.equal, np.not_equal]


def _emu_relextrema(dtype, grid, block, x, out, outer, n, inner, order, cmp, wrap):
    assert 0 < order <= max(n, 1) and cmp in range(6) and wrap in (0, 1)
    total = outer * n * inner
    data = _mem(x, dtype, total).reshape(outer, n, inner)
    mask = model_relextrema(data, _COMPARE[cmp], 1, order, "wrap" if wrap else "clip")
    _mem(out, np.bool_, total)[:] = mask.reshape(-1)


class Emulated:
    """A kernel launched on the emulator."""

    calls = []

    def __init__(self, name):
        assert name in _signatures(), name
        self.name = name

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        assert len(grid) == 3 and len(block) == 3 and shared_mem == 0
        assert 1 <= grid[0] < 2 ** 31 and grid[1] == grid[2] == 1
        assert block[0] in (M.THREADS, M.PEAK_THREADS, B.DISTANCE_THREADS_LARGE)
        assert block[1] == block[2] == 1
        vals = _decode(self.name, args)
        Emulated.calls.append(self.name)
        if self.name.startswith("gs_relextrema_"):
            return _emu_relextrema(np.dtype(self.name[len("gs_relextrema_"):]), grid, block,
                                   *vals)
        return globals()["_emu_" + self.name[len("gs_peaks_"):]](grid, block, *vals)


@pytest.fixture(params=["emulated", pytest.param("gpu", marks=gpu)])
def dev(request, monkeypatch):
    """The array module the device tests use: the GPU's, or the emulation."""
    if request.param == "gpu":
        import gpuscipy_core as gp
        return gp
    return emulate(monkeypatch)


def emulate(monkeypatch):
    """Run _peak_finding and _peak_finding_batch on the emulator."""
    g = host_gp()
    for mod in (M, B):
        monkeypatch.setattr(mod, "gp", g)
        monkeypatch.setattr(mod, "_function", lambda source, name: Emulated(name))
    Emulated.calls.clear()
    return g


@pytest.fixture
def gpu_dev():
    import gpuscipy_core as gp
    return gp


def test_emulator_parses_every_kernel():
    sigs = _signatures()
    assert set(M.PEAK_KERNELS) <= set(sigs)
    assert sigs["gs_peaks_write"] == ["ptr", "long long", "long long", 120, "long long", "ptr",
                                      "ptr", "long long", "int", "int", "int", "int"]
    assert sigs["gs_peaks_distance"] == ["ptr", "ptr", "ptr", "long long", "long long", "int",
                                         "ptr", "ptr", "ptr", "ptr", "ptr"]
    assert sigs["gs_relextrema_float64"][-2:] == ["int", "int"]


# ---------------------------------------------------- device tests

def _same(dev, x_dev, x_host, **kw):
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        p, props = M.find_peaks(x_dev, **kw)
    with warnings.catch_warnings(record=True) as wr:
        warnings.simplefilter("always")
        ref = ss.find_peaks(x_host, **kw)
    assert isinstance(p, dev.ndarray) and all(isinstance(v, dev.ndarray) for v in props.values())
    assert_same((dev.asnumpy(p), {k: dev.asnumpy(v) for k, v in props.items()}), ref)
    assert sorted(str(w.message) for w in wg if w.category is PPW) == \
        sorted(str(w.message) for w in wr if w.category is PPW)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("kind", KINDS)
def test_find_peaks_device(dev, case, kind):
    x = _signal(kind, 600, case)
    _same(dev, dev.asarray(x), x, **CASES[case])


@pytest.mark.parametrize("case", [3, 4, 12, 13, 19])
@pytest.mark.parametrize("border_on_device", [False, True])
def test_find_peaks_array_borders_device(dev, case, border_on_device):
    x = _signal("ecg", 1500, case)
    kw = _arrays_for(CASES[case], x.size, case)
    ref = _quiet(ss.find_peaks, x, **kw)
    if border_on_device:
        kw = {k: (tuple(dev.asarray(b) if isinstance(b, np.ndarray) else b for b in v)
                  if isinstance(v, tuple) else v) for k, v in kw.items()}
    p, props = _quiet(M.find_peaks, dev.asarray(x), **kw)
    assert_same((dev.asnumpy(p), {k: dev.asnumpy(v) for k, v in props.items()}), ref)
    if border_on_device and "height" in kw:   # a (2, n) device array: rows as borders
        lo = _arrays_for(CASES[case], x.size, case)["height"][0]
        both = np.stack([lo, lo + 1])
        p, _ = _quiet(M.find_peaks, dev.asarray(x), height=dev.asarray(both))
        np.testing.assert_array_equal(dev.asnumpy(p), ss.find_peaks(x, height=both)[0])


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "uint64", "float16",
                                   "float32", "float64", "bool"])
def test_find_peaks_dtypes_device(dev, dtype):
    x = (_signal("int", 800, 3) * (1 if dtype == "bool" else 7)).astype(dtype)
    _same(dev, dev.asarray(x), x, height=1, prominence=1, width=1, threshold=0)
    _same(dev, x, x, height=1)           # host input, moved by find_peaks


def test_find_peaks_complex_warns_device(dev):
    x = _signal("int", 500, 4) + 1j
    with pytest.warns(np.exceptions.ComplexWarning):
        p, _ = M.find_peaks(dev.asarray(x))
    with pytest.warns(np.exceptions.ComplexWarning):
        ref, _ = ss.find_peaks(x)
    np.testing.assert_array_equal(dev.asnumpy(p), ref)


def test_find_peaks_layouts_device(dev):
    x = _signal("ecg", 1601, 2)
    d = dev.asarray(x)
    _same(dev, d[::2], x[::2], prominence=0.1, width=1)
    _same(dev, d[::-1], x[::-1], prominence=0.1, distance=30)
    both = np.stack([x, x])
    _same(dev, dev.asarray(both)[:, 5], both[:, 5])
    _same(dev, dev.asarray(both)[1], x, height=0.1)


@pytest.mark.parametrize("x", [[], [1.0], [1.0, 2.0], [1.0, 1.0, 1.0], [0, 1, 1],
                               [1, 1, 0], [0, 2, 2, 2, 0], [0, np.nan, 0], [np.nan] * 5,
                               [0, 1, 0], [0, np.inf, np.inf, 0]])
def test_find_peaks_edge_cases_device(dev, x):
    x = np.asarray(x, np.float64)
    for kw in ({}, {"height": 0, "threshold": 0, "plateau_size": 1}, {"distance": 2},
               {"prominence": 0, "width": 0}, CASES[-1]):
        _same(dev, dev.asarray(x), x, **kw)


def test_find_peaks_errors_device(dev):
    x = _signal("int", 50, 0)
    for call, exc, match in [
            (dict(distance=0.5), ValueError, "`distance` must be greater or equal to 1"),
            (dict(prominence=1, wlen=1), ValueError, "`wlen` must be larger than 1, was 1"),
            (dict(width=1, wlen=0.5), ValueError, "`wlen` must be larger than 1, was 0.5"),
            (dict(width=1, rel_height=-1), ValueError, "`rel_height` must be greater"),
            (dict(height=np.zeros(3)), ValueError, "lower interval border must match x"),
            (dict(threshold=(0, np.zeros(3))), ValueError, "upper interval border"),
            (dict(prominence=np.zeros(4)), ValueError, "lower interval border")]:
        with pytest.raises(exc, match=match):
            ss.find_peaks(x, **call)
        with pytest.raises(exc, match=match):
            M.find_peaks(dev.asarray(x), **call)
    with pytest.raises(ValueError, match="`x` must be a 1-D array"):
        M.find_peaks(dev.asarray(np.zeros((3, 3))))
    M.find_peaks(dev.asarray(x), rel_height=-1)          # unused without width, as in SciPy
    M.find_peaks(dev.asarray(x), wlen=0)                 # unused without prominence/width


@pytest.mark.parametrize("kind", ["int", "nan", "zeros", "ecg"])
@pytest.mark.parametrize("wlen", [None, 7.5])
@pytest.mark.parametrize("n", [700, 20000])
def test_prominences_widths_device(dev, kind, wlen, n):
    """n = 20000 >= 2^12: tile summaries in the walks."""
    x = _signal(kind, n, 12)
    peaks = ss.find_peaks(x)[0]
    peaks = np.unique(np.concatenate([peaks, [0, 5, x.size - 1]]))
    if n > 1000 and dev.ndarray is HostArray:
        peaks = peaks[::25]                 # keep the emulated run short
    with warnings.catch_warnings(record=True) as wr:
        warnings.simplefilter("always")
        ref = ss.peak_prominences(x, peaks, wlen=wlen)
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        got = M.peak_prominences(dev.asarray(x), dev.asarray(peaks), wlen=wlen)
    assert [str(w.message) for w in wg] == [str(w.message) for w in wr]
    for a, b in zip(got, ref):
        assert dev.asnumpy(a).dtype == b.dtype
        np.testing.assert_array_equal(dev.asnumpy(a), b)
    for rel in (0.0, 0.5, 1.0):
        r = _quiet(ss.peak_widths, x, peaks, rel, ref)
        g = _quiet(M.peak_widths, dev.asarray(x), peaks, rel, tuple(dev.asarray(a) for a in ref))
        g2 = _quiet(M.peak_widths, dev.asarray(x), dev.asarray(peaks), rel, wlen=wlen)
        for a, a2, b in zip(g, g2, r):
            np.testing.assert_array_equal(dev.asnumpy(a), b)
            np.testing.assert_array_equal(dev.asnumpy(a2), b)


def test_prominence_width_errors_device(dev):
    x = np.array([0, 1, 0, 2, 2, 0, 3, 1, 1, 0.0])
    for peaks in ([3, 20], [-1], dev.asarray(np.array([1, 12]))):
        with pytest.raises(ValueError, match="is not a valid index for `x`"):
            M.peak_prominences(dev.asarray(x), peaks)
    with pytest.raises(ValueError, match="peak 20 is not a valid index"):
        M.peak_prominences(x, [3, 20, 30])
    with pytest.raises(TypeError, match="cannot safely cast"):
        M.peak_prominences(x, dev.asarray(np.array([1.0])))
    with pytest.raises(ValueError, match="`peaks` must be a 1-D array"):
        M.peak_prominences(x, 1)
    for data, exc, match in [
            ((np.array([1.]), np.array([2]), np.array([2])), ValueError,
             "prominence data is invalid for peak 1"),
            ((np.array([1., 2]), np.array([0, 0]), np.array([2, 2])), ValueError,
             "must have the same shape as `peaks`"),
            ((np.array([1.]), np.array([0], np.int32), np.array([2])), ValueError,
             "dtype mismatch"),
            ((np.array([1.]), np.array([0])), TypeError, "6 positional arguments"),
            (([1.], [0], [2]), TypeError, "bytes-like")]:
        with pytest.raises(exc, match=match):
            ss.peak_widths(x, [1], prominence_data=data)
        with pytest.raises(exc, match=match):
            M.peak_widths(dev.asarray(x), [1], prominence_data=data)
    with pytest.raises(ValueError, match="`rel_height` must be greater"):
        M.peak_widths(dev.asarray(x), [1], rel_height=-1)
    with pytest.warns(PPW, match="some peaks have a prominence of 0"):
        M.peak_prominences(x, [0])
    with pytest.warns(PPW, match="some peaks have a width of 0"):
        M.peak_widths(x, [1], prominence_data=(np.array([0.]), np.array([0]), np.array([2])))
    for empty in ([], np.array([], np.float64), dev.asarray(np.zeros(0, np.float32))):
        got = M.peak_prominences(x, empty)
        assert [dev.asnumpy(a).dtype for a in got] == [np.float64, np.intp, np.intp]
        assert all(a.size == 0 for a in M.peak_widths(x, empty))


RELEX_SHAPES = [((300,), 0), ((17, 40), 1), ((40, 3), 0), ((3, 9, 4), -2), ((3, 0), 1)]


@pytest.mark.parametrize("dtype", RELEX_DTYPES)
@pytest.mark.parametrize("shape, axis", RELEX_SHAPES)
def test_argrelextrema_device(dev, dtype, shape, axis):
    rng = np.random.default_rng(1)
    data = rng.integers(0, 4, shape).astype(dtype)
    if np.dtype(dtype).kind == "c":
        data = data + 1j * rng.integers(0, 2, shape)
    if np.dtype(dtype).kind in "fc" and data.size:
        data.flat[::11] = np.nan
    for f, g in ((M.argrelmax, ss.argrelmax), (M.argrelmin, ss.argrelmin)):
        for order, mode in ((1, "clip"), (2, "wrap"), (5, "clip"), (500, "wrap")):
            got = f(dev.asarray(data), axis=axis, order=order, mode=mode)
            ref = g(data, axis=axis, order=order, mode=mode)
            assert len(got) == len(ref)
            for a, b in zip(got, ref):
                assert dev.asnumpy(a).dtype == np.intp
                np.testing.assert_array_equal(dev.asnumpy(a), b)
    for cmp in (np.greater_equal, np.less_equal, np.equal, np.not_equal,
                lambda a, b: a > b):
        got = M.argrelextrema(dev.asarray(data), cmp, axis=axis, order=2)
        ref = ss.argrelextrema(data, cmp, axis=axis, order=2)
        for a, b in zip(got, ref):
            np.testing.assert_array_equal(dev.asnumpy(a), b)


def test_argrelextrema_layouts_and_errors_device(dev):
    data = np.random.default_rng(2).standard_normal((30, 20))
    d = dev.asarray(data)
    for view, host in ((d[::-1, ::3], data[::-1, ::3]), (d.T, data.T)):
        for ax in (0, 1):
            for a, b in zip(M.argrelmax(view, axis=ax, order=2),
                            ss.argrelmax(host, axis=ax, order=2)):
                np.testing.assert_array_equal(dev.asnumpy(a), b)
    for kw, exc, match in [(dict(order=0), ValueError, "Order must be an int >= 1"),
                           (dict(order=1.5), ValueError, "Order must be an int >= 1"),
                           (dict(order=2.0), TypeError, "cannot be interpreted"),
                           (dict(axis=2), IndexError, "tuple index out of range"),
                           (dict(mode="raise"), IndexError, "out of bounds for axis 0"),
                           (dict(mode="foo"), ValueError, "clipmode")]:
        with pytest.raises(exc, match=match):
            ss.argrelmax(data, **kw)
        with pytest.raises(exc, match=match):
            M.argrelmax(d, **kw)
    with pytest.raises(IndexError):
        M.argrelmax(dev.asarray(np.array(3.0)))
    # host input (SciPy needs an ndarray; gpuscipy moves lists too)
    np.testing.assert_array_equal(dev.asnumpy(M.argrelmax([1, 3, 2])[0]), [1])


def test_ecg_r_peaks_device(dev):
    """The demo: R-peaks of the real ECG, raw and after a Pan-Tompkins-like
    chain run by SciPy, identical to SciPy's."""
    ecg = _ecg_host()
    _same(dev, dev.asarray(ecg), ecg, height=0.3, **R_PEAK_ARGS)
    y = _pan_tompkins(ecg)
    kw = dict(height=0.3 * y.max(), distance=72, prominence=0.1 * y.max())
    _same(dev, dev.asarray(y), y, **kw)
    p, _ = M.find_peaks(dev.asarray(y), **kw)
    assert 300 < p.size < 700          # ~ heart beats in 5 minutes


def test_ecg_batch_channel_by_channel_device(dev):
    """A batch of channels (the ECG with per-channel gain and noise, on the
    device as one (channels, n) array) processed one channel at a time."""
    ecg = _ecg_host()[:3600]                     # 10 s per channel
    rng = np.random.default_rng(0)
    channels = 4096 if dev.ndarray is not HostArray else 8
    gain = 1 + 0.1 * rng.standard_normal((channels, 1))
    batch = np.round(ecg[None, :] * gain * 200
                     + 4 * rng.standard_normal((channels, ecg.size))) / 200
    d = dev.asarray(batch)
    for c in range(channels):
        p, props = M.find_peaks(d[c], height=0.3, distance=72, prominence=0.3)
        rp, rprops = ss.find_peaks(batch[c], height=0.3, distance=72, prominence=0.3)
        np.testing.assert_array_equal(dev.asnumpy(p), rp)
        np.testing.assert_array_equal(dev.asnumpy(props["prominences"]), rprops["prominences"])
        np.testing.assert_array_equal(dev.asnumpy(props["peak_heights"]), rprops["peak_heights"])


# ------------------------------------------------------ GPU only (large)

@gpu
@pytest.mark.parametrize("n", [1 << 14, (1 << 20) + 77])
@pytest.mark.parametrize("kind", ["normal", "int", "nan", "ecg"])
def test_find_peaks_large_gpu(gpu_dev, n, kind):
    """Many maxima tiles (look-back over many predecessors), large summary
    tiles. On the quantised kinds a sixth of the peaks share the global
    maximum and SciPy's own walks cross the whole signal (211 s for the
    reference of 2^20 'int' samples), so there the unbounded walk is checked
    at 2^14 and the 2^20 signal gets a window of 8 tiles each side."""
    x = _signal(kind, n, 1)
    walk = {"prominence": 1, "width": 2}
    if kind in ("int", "ecg") and n > (1 << 14):
        walk["wlen"] = 8193
    for kw in ({}, {"height": 1, "distance": 50}, walk,
               {"prominence": (0.5, None), "wlen": 2001}, {"plateau_size": 2, "threshold": 0}):
        _same(gpu_dev, gpu_dev.asarray(x), x, **kw)


@gpu
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("kind", KINDS)
def test_find_peaks_medium_gpu(gpu_dev, case, kind):
    x = _signal(kind, 50000, case)
    _same(gpu_dev, gpu_dev.asarray(x), x, **CASES[case])
