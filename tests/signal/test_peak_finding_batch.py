"""Tests of gpuscipy.signal.find_peaks_batch and the batch stages behind
find_peaks (gpuscipy/signal/_peak_finding_batch.py, .cuh).

CPU:
- models: the distance rounds (``test_peak_finding.model_distance``)
  against SciPy, the tie flag (a flagged channel really can differ), the
  round cap;
- native: the real CUDA source of the block-synchronous kernels (distance,
  prominence and width rows, channel counts and offsets) compiled for the
  host by g++ (``_host_cuda``: every CUDA thread a ``std::thread``,
  ``__syncthreads*`` barriers), against the models and SciPy;
- emulated: ``find_peaks_batch`` end to end on the emulator of
  ``test_peak_finding`` (NumPy arrays for device arrays, Python models for
  the kernels), and on the hybrid that runs the native kernels where it can;
- NVRTC: every batch kernel is in the compiled module.

GPU (marked gpu): the same device tests, plus larger batches (ties that
send channels to the host, the ECG-like quantised batch, the demo's
per-channel thresholds).

Exactness: every channel's peaks and properties equal SciPy's find_peaks on
that channel, bit for bit (no tolerance).
"""

import ctypes
import math
import os
import warnings

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy.signal import _peak_finding as M
from gpuscipy.signal import _peak_finding_batch as B

from . import _host_cuda as H
from .test_peak_finding import (CASES, KINDS, PPW, Emulated, HostArray, _ecg_host, _signal,
                                assert_same, dev, emulate, model_distance)

gpu = pytest.mark.gpu
__all__ = ["dev"]     # the fixture, imported for the device tests


def _seed(key):
    import zlib
    return zlib.crc32(repr(key).encode())


# ------------------------------------------------------------ test data

def _batch(kinds, n, seed):
    """One channel per kind (``test_peak_finding._signal``)."""
    return np.stack([_signal(k, n, seed + i) for i, k in enumerate(kinds)])


def _scipy_batch(x, **kw):
    """SciPy's find_peaks per channel, as find_peaks_batch returns it."""
    shape = np.shape(x)
    x2 = np.asarray(x, np.float64).reshape(math.prod(shape[:-1]), shape[-1])
    per = []
    with warnings.catch_warnings(record=True) as wr:
        warnings.simplefilter("always")
        for c in range(x2.shape[0]):
            per.append(ss.find_peaks(x2[c], **{k: _channel_kw(v, c, x2.shape)
                                               for k, v in kw.items()}))
    return per, sorted({str(w.message) for w in wr if w.category is PPW})


def _channel_kw(v, c, shape):
    """A batch border as SciPy's for channel c (per-channel arrays become
    numbers, x-shaped arrays rows)."""
    def one(b):
        if isinstance(b, np.ndarray):
            if b.size == shape[0] and b.size != shape[0] * shape[1]:
                return float(b.reshape(-1)[c])
            if b.size == shape[0] * shape[1]:
                return b.reshape(shape)[c]
        return b
    if isinstance(v, tuple):
        return tuple(one(b) for b in v)
    return one(v)


def check_batch(dev, x_dev, x_host, ref_kw=None, **kw):
    """find_peaks_batch equals SciPy per channel: peaks, every property,
    dtypes, the offsets, the warnings (``ref_kw``: SciPy's arguments, when
    ``kw`` holds device arrays)."""
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        peaks, offsets, props = B.find_peaks_batch(x_dev, **kw)
    got_w = sorted({str(w.message) for w in wg if w.category is PPW})
    ref, ref_w = _scipy_batch(x_host, **(kw if ref_kw is None else ref_kw))
    assert isinstance(offsets, np.ndarray) and offsets.dtype == np.int64
    assert offsets.shape == (len(ref) + 1,) and offsets[0] == 0
    assert isinstance(peaks, dev.ndarray)
    p = dev.asnumpy(peaks)
    pr = {k: dev.asnumpy(v) for k, v in props.items()}
    assert p.shape == (offsets[-1],)
    for c, (rp, rprops) in enumerate(ref):
        a, b = offsets[c], offsets[c + 1]
        assert_same((p[a:b], {k: v[a:b] for k, v in pr.items()}), (rp, rprops))
    assert got_w == ref_w
    return offsets


# ------------------------------------------------------------------ models

@pytest.mark.parametrize("kind", ["normal", "int", "ecg", "steps", "zeros", "nan"])
@pytest.mark.parametrize("distance", [1, 2, 3.5, 25, 72, 400, 1e9])
def test_model_distance(kind, distance):
    """Unflagged channels are SciPy's selection; flagged ones are exactly
    those where some removed peak has no strictly higher kept neighbour."""
    x = _signal(kind, 6000, _seed((kind, distance)) % 1000)
    peaks = ss.find_peaks(x)[0]
    d = M.distance_samples(distance)
    keep, flag = model_distance(peaks, x[peaks], d, 1 << 30)
    ref = ss.find_peaks(x, distance=distance)[0]
    if not flag:
        np.testing.assert_array_equal(peaks[keep], ref)
    if kind == "normal":
        assert not flag           # no equal heights


def test_model_distance_flag_is_needed():
    """With equal heights in conflict, the position tie-break differs from
    SciPy's argsort order on some signal: the flag is what keeps the result
    exact."""
    differ = 0
    for seed in range(40):
        x = _signal("int", 3000, seed)
        peaks = ss.find_peaks(x)[0]
        keep, flag = model_distance(peaks, x[peaks], 7, 1 << 30)
        ref = ss.find_peaks(x, distance=7)[0]
        if not np.array_equal(peaks[keep], ref):
            assert flag
            differ += 1
    assert differ > 0


def test_model_distance_round_cap():
    """A staircase of rising peaks is one chain: a round per window."""
    t = np.arange(4000)
    x = t / 4000 + 0.5 * (t % 10 == 5)        # peaks every 10 samples, rising
    peaks = ss.find_peaks(x)[0]
    keep, flag = model_distance(peaks, x[peaks], 25, 8)
    assert flag
    keep, flag = model_distance(peaks, x[peaks], 25, 1000)
    assert not flag
    np.testing.assert_array_equal(peaks[keep], ss.find_peaks(x, distance=25)[0])


# ------------------------------------------------ native (host C++) kernels

SHIM = H.SHIM_BASE + r"""
#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstdlib>
#include <thread>
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline thread_local std::barrier<>* emu_block_bar;
namespace emu {
inline std::atomic<long long> red[2];
inline thread_local int phase = 0;
[[noreturn]] inline void unsupported() { std::abort(); }
}
inline void __syncthreads() { emu_block_bar->arrive_and_wait(); }
// two accumulators used alternately; thread 0 clears one after the barrier
// that ends its use (the next use is behind another barrier)
inline int __syncthreads_count(int p) {
  const int k = emu::phase;
  emu::phase ^= 1;
  if (p) emu::red[k].fetch_add(1);
  emu_block_bar->arrive_and_wait();
  const long long v = emu::red[k].load();
  emu_block_bar->arrive_and_wait();
  if (threadIdx.x == 0) emu::red[k].store(0);
  return (int)v;
}
inline int __syncthreads_or(int p) { return __syncthreads_count(p != 0) != 0; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}
inline unsigned long long atomicMax(unsigned long long* p, unsigned long long v) {
  unsigned long long o = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (o < v && !__atomic_compare_exchange_n(p, &o, v, false, __ATOMIC_SEQ_CST,
                                               __ATOMIC_SEQ_CST)) {}
  return o;
}
// warp primitives: not emulated (the kernels run here use none)
inline unsigned __activemask() { emu::unsupported(); }
inline unsigned __ballot_sync(unsigned, int) { emu::unsupported(); }
inline unsigned __reduce_add_sync(unsigned, unsigned) { emu::unsupported(); }
template <class T> T __shfl_down_sync(unsigned, T, int) { emu::unsupported(); }
inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __ffs(unsigned v) { return __builtin_ffs(v); }
"""

# declarations the peak headers need from the core's headers (the kernels
# run here use none of them)
SCAN_STUB = r"""
#pragma once
namespace gs { namespace scan {
constexpr int kThreads = 256;
constexpr int kWarps = 8;
enum : int { kStatusInvalid = 0, kStatusAggregate = 1, kStatusPrefix = 2 };
template <class In> struct count_op {};
template <class A> struct tile_state {
  unsigned long long* counter = nullptr;
  tile_state(void*, long long) { emu::unsupported(); }
  void publish(long long, const A&, int) {}
};
template <class Op, class A> A block_exclusive(A, A*, A&) { emu::unsupported(); }
template <class Op, class A, class St>
A look_back(const St&, long long, long long, unsigned int (&)[2 * kWarps], A (&)[kWarps]) {
  emu::unsupported();
}
template <class In, int ITEMS, int BYTES, class Act>
void compact(const In*, long long, long long, void*, const Act&) { emu::unsupported(); }
}}
"""
UFUNCS_STUB = "#pragma once\nnamespace gs {\n" + "".join(
    f"template <class T> bool {f}(const T&, const T&) {{ emu::unsupported(); }}\n"
    for f in ("greater", "less", "greater_equal", "less_equal", "equal", "not_equal")) + "}\n"

LAUNCH = H.CALL + r"""
namespace emu {
template <class... P>
void launch(void (*k)(P...), void** argv, unsigned gx, unsigned bx) {
  gridDim = {gx, 1, 1};
  blockDim = {bx, 1, 1};
  for (unsigned b = 0; b < gx; ++b) {
    std::barrier<> block(bx);
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < bx; ++t)
      ts.emplace_back([&, t] {
        threadIdx = {t, 0, 0};
        blockIdx = {b, 0, 0};
        emu_block_bar = &block;
        call(k, argv, std::index_sequence_for<P...>{});
        block.arrive_and_drop();
      });
    for (auto& th : ts) th.join();
  }
}
}  // namespace emu
"""

NATIVE = ("gs_peaks_distance", "gs_peaks_prominences_rows", "gs_peaks_widths_rows",
          "gs_peaks_channel_counts", "gs_peaks_channel_offsets")


class Native:
    """The kernels of ``NATIVE`` compiled for the host."""

    def __init__(self, tmp):
        inc = H.write_includes(os.path.join(tmp, "inc"), SHIM)
        for name, text in (("scan.cuh", SCAN_STUB), ("ufuncs.cuh", UFUNCS_STUB)):
            with open(os.path.join(inc, "gpuscipy", name), "w") as f:
                f.write(text)
        parts = ['#include "shim.h"', M.peaks_source(), LAUNCH]
        for name in NATIVE:
            parts.append(f'extern "C" void emu_{name}(void** a, unsigned gx, unsigned bx)'
                         f" {{ emu::launch(&{name}, a, gx, bx); }}")
        cpp, lib = os.path.join(tmp, "peaks.cpp"), os.path.join(tmp, "peaks.so")
        with open(cpp, "w") as f:
            f.write("\n".join(parts))
        H.compile_libraries([(cpp, lib)], inc, ["-O1", "-fno-fast-math", "-pthread"])
        self.lib = ctypes.CDLL(lib)
        self.launches = []

    def function(self, name):
        fn = getattr(self.lib, "emu_" + name)

        def launch(grid, block, args, shared_mem=0, stream=None):
            assert shared_mem == 0 and grid[1:] == (1, 1) and block[1:] == (1, 1)
            argv, _keep = H.pack_args(list(args))
            fn(argv, ctypes.c_uint(int(grid[0])), ctypes.c_uint(int(block[0])))
            self.launches.append(name)
        return launch


@pytest.fixture(scope="module")
def native(tmp_path_factory):
    H.require_gxx()
    return Native(str(tmp_path_factory.mktemp("peaks_native")))


@pytest.fixture
def hybrid(native, monkeypatch):
    """The emulator with the NATIVE kernels run from their CUDA source."""
    g = emulate(monkeypatch)
    for mod in (M, B):
        monkeypatch.setattr(mod, "_function", lambda source, name: native.function(name)
                            if name in NATIVE else Emulated(name))
    native.launches.clear()
    return g


def _candidates(x2, height=None):
    """SciPy's local maxima per channel: flat (channel, local index)."""
    ch, pk = [], []
    for c in range(x2.shape[0]):
        p = ss.find_peaks(x2[c], height=height)[0]
        ch.append(np.full(p.size, c))
        pk.append(p)
    return np.concatenate(ch).astype(np.int64), np.concatenate(pk).astype(np.int64)


def _run_distance(native, pos, h, offsets, d, max_rounds, threads):
    m = pos.size
    channels = 1 if offsets is None else offsets.size - 1
    st = np.full(m, 0x77, np.uint8)
    strict = np.full(m, 0x77, np.uint8)
    counts = np.full(channels, -1, np.int64)
    flags = np.full(channels, 0x77, np.uint8)
    status = np.zeros(2, np.uint64)
    native.function("gs_peaks_distance")(
        (channels, 1, 1), (threads, 1, 1),
        (pos, h, 0 if offsets is None else offsets, m, d, np.int32(max_rounds), st, strict,
         counts, flags, status))
    return st, counts, flags, status


@pytest.mark.parametrize("distance", [2, 7.5, 72, 1e9])
def test_native_distance(native, distance):
    kinds = ["normal", "int", "ecg", "steps", "zeros", "nan", "normal", "int"]
    x2 = _batch(kinds, 1500, 7)
    x2[6, ::50] = np.inf                      # inf heights
    ch, pk = _candidates(x2)
    flat = ch * x2.shape[1] + pk
    h = x2.reshape(-1)[flat]
    offsets = np.searchsorted(ch, np.arange(len(kinds) + 1)).astype(np.int64)
    d = M.distance_samples(distance)
    st, counts, flags, status = _run_distance(native, pk, h, offsets, d, B.MAX_ROUNDS, 256)
    assert set(np.unique(st)) <= {0, 1} or flags.any()
    flagged = 0
    for c in range(len(kinds)):
        a, b = offsets[c], offsets[c + 1]
        keep, flag = model_distance(pk[a:b], h[a:b], d, B.MAX_ROUNDS)
        assert flags[c] == flag, c
        flagged += flag
        if not flag:
            np.testing.assert_array_equal(st[a:b], keep)
            assert counts[c] == keep.sum()
            np.testing.assert_array_equal(pk[a:b][keep],
                                          ss.find_peaks(x2[c], distance=distance)[0])
    assert status[1] == flagged
    assert not flags[0]                       # noise: no equal heights


def test_native_distance_one_channel_large_block(native):
    x = _signal("normal", 20000, 3)
    pk = ss.find_peaks(x)[0]
    for d in (3, 40):
        st, counts, flags, status = _run_distance(native, pk, x[pk], None, d, B.MAX_ROUNDS,
                                                  B.DISTANCE_THREADS_LARGE)
        assert not flags[0] and status[1] == 0 and counts[0] == st.sum() == status[0]
        np.testing.assert_array_equal(pk[st.astype(bool)], ss.find_peaks(x, distance=d)[0])


def test_native_distance_round_cap(native):
    t = np.arange(3000)
    x = t / 3000 + 0.5 * (t % 10 == 5)
    pk = ss.find_peaks(x)[0]
    _, _, flags, status = _run_distance(native, pk, x[pk], None, 25, 4, 256)
    assert flags[0] == 1 and status[1] == 1
    st, _, flags, _ = _run_distance(native, pk, x[pk], None, 25, 1000, 256)
    assert flags[0] == 0
    np.testing.assert_array_equal(pk[st.astype(bool)], ss.find_peaks(x, distance=25)[0])


@pytest.mark.parametrize("nrow, wlen", [(5000, -1), (5000, 9), (5000, 301), (4096, -1),
                                        (4096, 1025), (6000, 2601)])
def test_native_prominence_width_rows(native, nrow, wlen):
    """Channel-local bases and interpolated ends, walks stopped at the
    channel's edges and crossing runs of whole tiles (2^8 samples), four
    summaries at a time: tile-aligned channels or not, windows that start
    inside a tile, plateaus as high as the peak."""
    kinds = ["ecg", "int", "nan", "steps"]
    x2 = _batch(kinds, nrow, 11 + nrow)
    x2[1, :3] = [9.0, 10.0, 9.0]              # high edges: walks must stop there
    x2[3, 1000:1600] = 2.0                    # a long plateau at a peak's height
    x2[3, 999] = x2[3, 1600] = 0.0
    x2[3, 2000:2003] = [0.0, 2.0, 0.0]
    ch, pk = _candidates(x2)
    m = pk.size
    xs = x2.reshape(-1).copy()
    tiles, _sm = _native_tiles(xs, x2.shape[1])
    pre = (np.arange(m) % 3 != 0).astype(np.uint8)
    prom = np.zeros((3, m), np.int64)
    keep = np.zeros(m, np.uint8)
    status = np.zeros(8, np.uint64)
    lo_c = np.array([0.5, 1.0, 0.2, 0.7])
    cond = B._pack(((lo_c.view(HostArray), 3), None))
    native.function("gs_peaks_prominences_rows")(
        *B._grid(m, M.PEAK_THREADS),
        (xs, x2.shape[1], pk, ch, m, wlen, tiles, pre, prom[0], prom[1], prom[2], cond, keep,
         status))
    wout = np.zeros((4, m), np.int64)
    wkeep = np.zeros(m, np.uint8)
    wcond = B._pack((2.0, None))
    native.function("gs_peaks_widths_rows")(
        *B._grid(m, M.PEAK_THREADS),
        (xs, x2.shape[1], pk, ch, m, 0.7, prom[0].view(np.float64), prom[1], prom[2], tiles,
         keep, wout, m, wcond, wkeep, status[4:]))
    wl = None if wlen < 0 else wlen
    for c in range(len(kinds)):
        sel = np.flatnonzero((ch == c) & (pre == 1))
        ref = ss.peak_prominences(x2[c], pk[sel], wlen=wl)
        np.testing.assert_array_equal(prom[0, sel].view(np.float64), ref[0])
        np.testing.assert_array_equal(prom[1, sel], ref[1])
        np.testing.assert_array_equal(prom[2, sel], ref[2])
        np.testing.assert_array_equal(keep[sel], ref[0] >= lo_c[c])
        kept = sel[keep[sel] == 1]
        r = np.flatnonzero(keep[sel] == 1)
        wref = ss.peak_widths(x2[c], pk[kept], 0.7, tuple(a[r] for a in ref))
        for k in range(4):
            np.testing.assert_array_equal(wout[k, kept].view(np.float64), wref[k])
        np.testing.assert_array_equal(wkeep[kept], wref[0] >= 2.0)
        assert not keep[np.flatnonzero((ch == c) & (pre == 0))].any()
    assert not wkeep[keep == 0].any()


def _native_tiles(xs, nrow):
    """Tile summaries as the batch stage makes them (the model)."""
    from .test_peak_finding import model_tile_summaries
    lg = M.tile_log2(nrow)
    mx, mn, il, ir = model_tile_summaries(xs, lg)
    sm = np.stack([mx.view(np.int64), mn.view(np.int64), il, ir]).astype(np.int64)
    import struct
    return struct.pack("<QQQQi4x", *(sm[i].ctypes.data for i in range(4)), lg), sm


def test_native_channel_counts_and_offsets(native):
    rng = np.random.default_rng(3)
    ch = np.sort(rng.choice([0, 1, 4, 5, 9], 3000)).astype(np.int64)
    offsets = np.zeros(11, np.int64)
    native.function("gs_peaks_channel_offsets")(*B._grid(ch.size + 1), (ch, ch.size, 10,
                                                                         offsets))
    np.testing.assert_array_equal(offsets, np.searchsorted(ch, np.arange(11)))
    keep = (rng.random(ch.size) < 0.4).astype(np.uint8)
    counts = np.full(10, -1, np.int64)
    native.function("gs_peaks_channel_counts")((10, 1, 1), (256, 1, 1),
                                               (keep, offsets, ch.size, counts))
    np.testing.assert_array_equal(counts, np.bincount(ch, keep, 10).astype(np.int64))
    native.function("gs_peaks_channel_counts")((10, 1, 1), (256, 1, 1),
                                               (0, offsets, ch.size, counts))
    np.testing.assert_array_equal(counts, np.bincount(ch, None, 10))


def test_nvrtc_batch_kernels():
    """Every kernel of the batch header is listed and in the cubin."""
    import re
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    text = open(os.path.join(os.path.dirname(M.__file__), "_peak_finding_batch.cuh")).read()
    names = re.findall(r"^GS_BATCH_KERNEL\w* (gs_\w+)\(", text, re.M)
    assert sorted(names) == sorted(NATIVE + ("gs_peaks_summaries_warp",))
    assert set(names) <= set(M.PEAK_KERNELS)
    cubin = compile_cubin(M.peaks_source(), "peaks")
    assert all(n.encode() in cubin for n in M.PEAK_KERNELS)


# ---------------------------------------------------- device tests

@pytest.mark.parametrize("case", range(len(CASES)))
def test_find_peaks_batch_device(dev, case):
    x = _batch(KINDS, 600, case)
    check_batch(dev, dev.asarray(x), x, **CASES[case])


@pytest.mark.parametrize("case", [0, 3, 9, 11, 12, 16, 19])
def test_find_peaks_batch_native(hybrid, case):
    x = _batch(KINDS + ["ecg", "int"], 700, 100 + case)
    check_batch(hybrid, hybrid.asarray(x), x, **CASES[case])


def test_find_peaks_batch_native_runs_native(hybrid, native):
    x = _batch(["ecg", "normal", "int"], 5000, 5)
    check_batch(hybrid, hybrid.asarray(x), x, height=0.1, distance=20, prominence=0.2,
                width=1)
    assert {"gs_peaks_distance", "gs_peaks_prominences_rows", "gs_peaks_widths_rows",
            "gs_peaks_channel_counts", "gs_peaks_channel_offsets"} <= set(native.launches)


def test_find_peaks_batch_per_channel_borders_device(dev):
    x = _batch(["ecg", "normal", "int", "ecg", "steps"], 900, 21)
    rng = np.random.default_rng(21)
    hc = rng.random(5)
    hs = rng.random(x.shape) * 2
    for kw in (dict(height=hc), dict(height=(hc, hc + 1)), dict(height=(None, hs)),
               dict(threshold=(0.01 * hc, None), distance=5),
               dict(prominence=(hc, 3 + hs), wlen=51),
               dict(plateau_size=(np.array([1, 1, 2, 1, 1]), None), width=(hc, None)),
               dict(height=hc, distance=30, prominence=0.5 * hc)):
        check_batch(dev, dev.asarray(x), x, **kw)
        # the same borders as device arrays
        dkw = {k: (tuple(dev.asarray(b) if isinstance(b, np.ndarray) else b for b in v)
                   if isinstance(v, tuple) else dev.asarray(v) if isinstance(v, np.ndarray)
                   else v) for k, v in kw.items()}
        check_batch(dev, dev.asarray(x), x, ref_kw=kw, **dkw)


def test_find_peaks_batch_shapes_device(dev):
    x = _signal("ecg", 3 * 4 * 500, 2).reshape(3, 4, 500)
    off = check_batch(dev, dev.asarray(x), x, height=0.2, distance=9, prominence=0.1)
    assert off.shape == (13,)
    hc = np.linspace(0.1, 0.5, 12).reshape(3, 4)           # x.shape[:-1]
    check_batch(dev, dev.asarray(x), x, height=hc)
    one = _signal("ecg", 800, 4)                            # 1-D: one channel
    check_batch(dev, dev.asarray(one), one, prominence=0.3, distance=12)
    for n in (0, 1, 2, 3):
        z = _batch(["int", "normal"], n, 1)
        off = check_batch(dev, dev.asarray(z), z, height=0, distance=2, prominence=0,
                          width=0)
        assert off.shape == (3,)
    empty = np.zeros((0, 50))
    peaks, off, props = B.find_peaks_batch(dev.asarray(empty), distance=3, prominence=1)
    assert peaks.shape == (0,) and off.tolist() == [0] and list(props) == [
        "prominences", "left_bases", "right_bases"]


def test_find_peaks_batch_edge_channels_device(dev):
    """Channels without peaks, all-NaN, a peak at every other sample, inf
    plateaus, peaks against a channel's edge (the neighbouring channel must
    not make or unmake them)."""
    n = 400
    t = np.arange(n)
    x = np.stack([np.zeros(n), np.full(n, np.nan), (t % 2).astype(float),
                  np.where(t % 37 < 3, np.inf, 0.0), np.r_[5.0, np.zeros(n - 2), 5.0],
                  np.r_[0.0, 9.0, np.zeros(n - 2)], np.r_[np.zeros(n - 2), 9.0, 0.0],
                  np.round(3 * np.sin(t / 9.0))])
    for kw in ({}, {"distance": 4}, {"prominence": 0}, {"height": 1, "width": 0.5},
               {"plateau_size": 1, "threshold": 0}, {"distance": 1e9, "prominence": 1}):
        check_batch(dev, dev.asarray(x), x, **kw)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64", "float16", "float32", "float64",
                                   "bool"])
def test_find_peaks_batch_dtypes_device(dev, dtype):
    x = (_batch(["int", "int", "steps"], 500, 3) * (1 if dtype == "bool" else 7))
    x = x.astype(dtype)
    check_batch(dev, dev.asarray(x), x, height=1, distance=3, prominence=1, width=1)
    check_batch(dev, x, x, threshold=0)              # host input


def test_find_peaks_batch_complex_device(dev):
    x = _batch(["int", "ecg"], 300, 8) + 1j
    with pytest.warns(np.exceptions.ComplexWarning):
        peaks, off, _ = B.find_peaks_batch(dev.asarray(x), distance=4)
    ref, _ = _scipy_batch(x.real, distance=4)
    np.testing.assert_array_equal(dev.asnumpy(peaks), np.concatenate([r[0] for r in ref]))


def test_find_peaks_batch_ties_go_to_the_host_device(dev, monkeypatch):
    """Quantised channels: equal heights in conflict flag channels, which
    the host redoes with argsort; the round cap does the same."""
    calls = []
    real = M.select_by_peak_distance

    def spy(*a):
        calls.append(a[0].size)
        return real(*a)
    monkeypatch.setattr(M, "select_by_peak_distance", spy)
    x = _batch(["int"] * 6 + ["normal"] * 2, 3000, 40)
    check_batch(dev, dev.asarray(x), x, distance=7)
    assert 0 < len(calls) <= 6
    calls.clear()
    check_batch(dev, dev.asarray(x), x, distance=7, prominence=1, width=1)
    assert 0 < len(calls) <= 6
    calls.clear()
    monkeypatch.setattr(B, "MAX_ROUNDS", 0)        # every contested channel
    check_batch(dev, dev.asarray(x), x, distance=7, prominence=1)
    assert len(calls) == 8
    calls.clear()
    check_batch(dev, dev.asarray(x[6]), x[6], distance=7)   # find_peaks-like, 1 channel
    assert len(calls) == 1


def test_find_peaks_batch_errors_device(dev):
    x = _batch(["int", "int"], 50, 0)
    d = dev.asarray(x)
    for kw, exc, match in [
            (dict(distance=0.5), ValueError, "`distance` must be greater or equal to 1"),
            (dict(prominence=1, wlen=1), ValueError, "`wlen` must be larger than 1, was 1"),
            (dict(width=1, rel_height=-1), ValueError, "`rel_height` must be greater"),
            (dict(height=np.zeros(3)), ValueError, r"lower interval border of `height`"),
            (dict(threshold=(0, np.zeros((2, 7)))), ValueError, "upper interval border"),
            (dict(prominence=np.zeros((3, 50))), ValueError, "x's shape"),
            (dict(height="a"), TypeError, "must be real")]:
        with pytest.raises(exc, match=match):
            B.find_peaks_batch(d, **kw)
    with pytest.raises(ValueError, match="at least one dimension"):
        B.find_peaks_batch(dev.asarray(np.array(3.0)))
    with pytest.raises(ValueError, match="at least one dimension"):
        B.find_peaks_batch(3.0)
    # SciPy's pair forms
    check_batch(dev, d, x, height=np.array([1.0, 4.0]))          # 2 channels: per channel
    check_batch(dev, d, x, height=(1, 4), threshold=[0, None])
    x3 = _batch(["int"] * 3, 50, 1)
    p, off, _ = B.find_peaks_batch(dev.asarray(x3), height=np.array([1.0, 4.0]))
    ref, _ = _scipy_batch(x3, height=(1.0, 4.0))                 # 3 channels: (min, max)
    np.testing.assert_array_equal(dev.asnumpy(p), np.concatenate([r[0] for r in ref]))


def test_find_peaks_batch_ecg_like_device(dev):
    """Quantised ECG-like channels with the demo's kind of per-channel
    thresholds (an order statistic per channel)."""
    channels = 64 if _is_gpu(dev) else 6
    rng = np.random.default_rng(9)
    x = np.stack([_signal("ecg", 7200, int(s)) for s in rng.integers(0, 1000, channels)])
    q = np.sort(x, axis=1)[:, int(0.99 * (x.shape[1] - 1))]
    check_batch(dev, dev.asarray(x), x, height=0.1 * q, distance=72, prominence=0.05 * q)


def _is_gpu(dev):
    return getattr(dev, "__name__", "") == "gpuscipy_core"


def test_find_peaks_agrees_with_batch_device(dev):
    """find_peaks is the batch stages on one channel."""
    x = _signal("ecg", 5000, 3)
    p, props = M.find_peaks(dev.asarray(x), height=0.3, distance=72, prominence=0.3)
    pb, off, propsb = B.find_peaks_batch(dev.asarray(x), height=0.3, distance=72,
                                         prominence=0.3)
    np.testing.assert_array_equal(dev.asnumpy(p), dev.asnumpy(pb))
    assert list(props) == list(propsb) and off.tolist() == [0, p.size]


# ------------------------------------------------------------ GPU only

@gpu
@pytest.mark.parametrize("kind", ["normal", "int", "nan", "ecg", "zeros"])
def test_find_peaks_batch_large_gpu(kind):
    import gpuscipy_core as gp
    rng = np.random.default_rng(_seed(kind))
    x = np.stack([_signal(kind, 20000, int(s)) for s in rng.integers(0, 10 ** 6, 48)])
    d = gp.asarray(x)
    for kw in ({}, {"height": 1, "distance": 50}, {"distance": 3, "prominence": 1, "width": 2},
               {"prominence": (0.5, None), "wlen": 2001}, {"plateau_size": 2, "threshold": 0},
               {"distance": 2000}):
        check_batch(gp, d, x, **kw)


@gpu
def test_find_peaks_batch_one_large_channel_gpu():
    """A single channel with many candidates: the 1024-thread block."""
    import gpuscipy_core as gp
    x = _signal("normal", 1 << 20, 5)
    for dist in (2, 100, 5000):
        check_batch(gp, gp.asarray(x), x, distance=dist)
        p, _ = M.find_peaks(gp.asarray(x), distance=dist)
        np.testing.assert_array_equal(gp.asnumpy(p), ss.find_peaks(x, distance=dist)[0])


@gpu
def test_find_peaks_batch_real_ecg_gpu():
    """The record shifted cyclically with gain, noise and quantisation: many
    channels with ties (the host path) and many without."""
    import gpuscipy_core as gp
    ecg = _ecg_host()
    rng = np.random.default_rng(208)
    channels = 256
    shift = rng.integers(0, ecg.size, channels)
    idx = (np.arange(ecg.size)[None, :] + shift[:, None]) % ecg.size
    x = ecg[idx] * rng.uniform(0.6, 1.4, (channels, 1)) \
        + 0.02 * rng.standard_normal((channels, ecg.size))
    x[::2] = np.round(x[::2] * 200) / 200                   # half quantised
    q = np.sort(x, axis=1)[:, int(0.99 * (ecg.size - 1))]
    check_batch(gp, gp.asarray(x), x, height=0.3 * q, distance=72, prominence=0.2 * q)


def test_demo_batch_detect_device(dev):
    """The ECG demo's batch step (gpuscipy side: find_peaks_batch with its
    per-channel thresholds) against its SciPy side, channel by channel."""
    from gpuscipy.demo.pipelines import ecg as E
    import gpuscipy.signal as gsig
    ecg = E.load_ecg()                       # host float64 whatever datasets returns
    channels = 16 if _is_gpu(dev) else 3
    plan = E.batch_plan(ecg.size, channels)
    batch = E.make_batch(np, ecg, plan.tables(), plan, np.arange(channels))
    cpu, design = E.Chain(ss, np, np.asarray), E.design(ss)
    clean = cpu.notch(cpu.baseline(batch, design["sos_hp"]), design["notch_ba"])
    qrs = cpu.bandpass(clean, design["sos_bp"])
    mwi = cpu.batch_convolve(cpu.square(cpu.batch_convolve(qrs, E.DERIVATIVE)), E.BOXCAR)
    ref_flat, ref_bounds = cpu.batch_detect(mwi)
    if _is_gpu(dev):
        g = E.Chain(gsig, dev, dev.asnumpy, joined_peaks=True)
        flat, bounds = g.batch_detect(dev.asarray(mwi))
    else:
        g = E.Chain(gsig, np, np.asarray, joined_peaks=True)   # the thresholds on the host
        flat, bounds = g.batch_detect(mwi)
    np.testing.assert_array_equal(bounds, ref_bounds)
    np.testing.assert_array_equal(dev.asnumpy(flat), ref_flat)
    assert 400 * channels < ref_flat.size < 600 * channels
