"""The convolution family's CUDA kernels, executed on the CPU.

The kernels of ``gpuscipy/signal/_convolve_*.cuh`` are compiled for the host
by g++ with a small shim: blocks run one after another; in kernels with
barriers each CUDA thread is a fiber (``ucontext``) and ``__syncthreads``
returns to a scheduler that runs every thread up to its next barrier, round
after round; kernels without barriers run their threads serially; dynamic
shared memory is one static buffer; the core's ``types.cuh`` is used with
its three PTX half conversions written for the host. The signal module's drivers then run
unchanged on NumPy arrays (``xp=numpy``, scipy.fft for cuFFT) with
``_convolve_direct.launch`` replaced by the emulator, and the results are
compared with SciPy. This checks the kernels' index arithmetic, tiling,
chunking, barriers and the drivers' layouts without a GPU; the GPU tests
(``test_convolve_gpu.py``) check the same against the device.

The kernels never use warp intrinsics or atomics, so the emulation is
faithful up to floating-point contraction (g++ -ffp-contract=off here).
Skipped when g++ (C++20) is not available.
"""

import ctypes
import os
import warnings

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy_core.kernel import read_source
from gpuscipy.signal import _convolve as C
from gpuscipy.signal import _convolve_direct as D
from gpuscipy.signal import _convolve_fft as F
from gpuscipy.signal import _convolve_medfilt as M
from gpuscipy.signal import _convolve_savgol as S

from . import _host_cuda as H
from ._convolve_checks import close as _close
from ._convolve_checks import data as _data
from ._convolve_checks import tol_direct as _tol

SHIM = H.SHIM_BASE + r"""
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <tuple>
inline dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline void (*emu_sync)() = nullptr;
inline void __syncthreads() {
  if (!emu_sync) { std::fprintf(stderr, "emulator: __syncthreads in a kernel run serially\n"); std::abort(); }
  emu_sync();
}
"""

LAUNCHER = H.CALL + r"""
#include <functional>
#include <ucontext.h>
namespace emu {
// Kernels without barriers: every CUDA thread in turn on the calling thread.
template <class... P>
void launch_serial(void (*k)(P...), void** argv, unsigned gx, unsigned gy, unsigned gz,
                   unsigned bx, unsigned by, unsigned bz) {
  gridDim = {gx, gy, gz};
  blockDim = {bx, by, bz};
  for (unsigned z = 0; z < gz; ++z)
    for (unsigned y = 0; y < gy; ++y)
      for (unsigned x = 0; x < gx; ++x)
        for (unsigned t = 0; t < bx * by * bz; ++t) {
          blockIdx = {x, y, z};
          threadIdx = {t % bx, (t / bx) % by, t / (bx * by)};
          call(k, argv, std::index_sequence_for<P...>{});
        }
}
// Kernels with barriers: each CUDA thread of a block is a fiber (ucontext);
// the scheduler runs every live fiber up to its next __syncthreads (or its
// end), round after round, so no thread passes a barrier before all have
// reached it. Threads that return drop out. Blocks run one after another.
struct Fiber {
  ucontext_t ctx;
  std::vector<char> stack;
  unsigned t;
  bool done;
};
inline ucontext_t sched;
inline Fiber* current = nullptr;
inline std::function<void()> body;
inline void trampoline() {
  body();
  current->done = true;
  swapcontext(&current->ctx, &sched);
}
inline void fiber_sync() { swapcontext(&current->ctx, &sched); }
template <class... P>
void launch(void (*k)(P...), void** argv, unsigned gx, unsigned gy, unsigned gz,
            unsigned bx, unsigned by, unsigned bz) {
  gridDim = {gx, gy, gz};
  blockDim = {bx, by, bz};
  const unsigned nt = bx * by * bz;
  static std::vector<Fiber> pool;             // stacks allocated once
  if (pool.size() < nt) {
    pool.resize(nt);
    for (auto& f : pool)
      if (f.stack.empty()) f.stack.resize(1 << 16);
  }
  Fiber* fibers = pool.data();
  body = [&] { call(k, argv, std::index_sequence_for<P...>{}); };
  emu_sync = fiber_sync;
  for (unsigned z = 0; z < gz; ++z)
    for (unsigned y = 0; y < gy; ++y)
      for (unsigned x = 0; x < gx; ++x) {
        blockIdx = {x, y, z};
        for (unsigned t = 0; t < nt; ++t) {
          Fiber& f = fibers[t];
          f.t = t;
          f.done = false;
          getcontext(&f.ctx);
          f.ctx.uc_stack.ss_sp = f.stack.data();
          f.ctx.uc_stack.ss_size = f.stack.size();
          f.ctx.uc_link = nullptr;
          makecontext(&f.ctx, trampoline, 0);
        }
        for (bool live = true; live;) {
          live = false;
          for (unsigned t = 0; t < nt; ++t) {
            Fiber& f = fibers[t];
            if (f.done) continue;
            threadIdx = {f.t % bx, (f.t / bx) % by, f.t / (bx * by)};
            current = &f;
            swapcontext(&sched, &f.ctx);
            live = live || !f.done;
          }
        }
      }
  emu_sync = nullptr;
}
}  // namespace emu
"""


def _strip_header(source, header):
    assert source.startswith(header)
    return source[len(header):]


def _all_kernels():
    """(header, [(wrapper text, name)]) per kernel family: every variant."""
    fams = []
    dh = D.header()
    fams.append((dh, [(_strip_header(*[D.kernel_source(*v)[0], dh]),
                       D.kernel_source(*v)[1]) for v in D.variants()]))
    fh = read_source(F._CUH)
    fams.append((fh, [(_strip_header(F.kernel_source(*v)[0], fh), F.kernel_source(*v)[1])
                      for v in F.variants()]))
    mh = read_source(M._CUH)
    fams.append((mh, [(_strip_header(M.kernel_source(*v)[0], mh), M.kernel_source(*v)[1])
                      for v in M.variants()]))
    sh = read_source(S._CUH)
    fams.append((sh, [(_strip_header(S.kernel_source(v)[0], sh), S.kernel_source(v)[1])
                      for v in S.variants()]))
    return fams


class Emulator:
    def __init__(self, libs):
        self.fns = {}
        for lib in libs:
            self.fns[lib] = ctypes.CDLL(lib)
        self.names = {}
        self.launches = []

    def add(self, name, lib):
        self.names[name] = lib

    def __call__(self, source, name, grid, block, args, shared):
        fn = getattr(self.fns[self.names[name]], "emu_" + name)
        argv, _keep = H.pack_args(args)
        assert shared <= (1 << 20)
        fn(argv, *[ctypes.c_uint(int(v)) for v in grid], *[ctypes.c_uint(int(v))
                                                            for v in block])
        self.launches.append(name)


# kernels that call __syncthreads (fibers); the others run serially (a stray
# barrier there aborts with a message)
_BARRIER_KERNELS = ("gsconv_rows", "gsconv_cols", "gsconv_tile2")


def _compile(tmp, fams):
    inc = H.write_includes(os.path.join(tmp, "inc"), SHIM)
    jobs, names = [], {}
    for k, (header, kernels) in enumerate(fams):
        src = ['#include "shim.h"', header, LAUNCHER]
        if "gsconv_smem" in header:
            src.append("namespace gs_signal_conv {\n"
                       "alignas(16) unsigned char gsconv_smem[1 << 20];\n}")
        for text, name in kernels:
            src.append(text)
            how = "launch" if name.startswith(_BARRIER_KERNELS) else "launch_serial"
            src.append(f'extern "C" void emu_{name}(void** a, unsigned gx, unsigned gy, '
                       f"unsigned gz, unsigned bx, unsigned by, unsigned bz) {{ "
                       f"emu::{how}(&{name}, a, gx, gy, gz, bx, by, bz); }}")
            names[name] = k
        path = os.path.join(tmp, f"fam{k}.cpp")
        with open(path, "w") as f:
            f.write("\n".join(src))
        jobs.append((path, os.path.join(tmp, f"fam{k}.so")))
    H.compile_libraries(jobs, inc, ["-O0"])
    libs = [lib for _, lib in jobs]
    emu = Emulator(libs)
    for name, k in names.items():
        emu.add(name, libs[k])
    return emu


@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    H.require_gxx("g++ not available for the kernel emulator")
    try:
        e = _compile(str(tmp_path_factory.mktemp("emu")), _all_kernels())
    except RuntimeError as err:
        if "ucontext" in str(err) and "No such file" in str(err):
            pytest.skip("no <ucontext.h> for the kernel emulator")
        raise
    return e


@pytest.fixture
def run(emu, monkeypatch):
    monkeypatch.setattr(D, "launch", emu)
    emu.launches.clear()
    return emu


# ---------------------------------------------------------------- helpers

# ---------------------------------------------------------------- direct

DIRECT_1D = [(3000, 37), (3000, 700), (37, 3000), (2049, 1), (5, 5), (1, 1), (4, 9),
             (6000, 1500)]


@pytest.mark.parametrize("n1,n2", DIRECT_1D)
@pytest.mark.parametrize("corr", [False, True])
def test_direct_1d(run, n1, n2, corr):
    rng = np.random.default_rng(n1 + n2)
    f = ss.correlate if corr else ss.convolve
    ours = C._correlate if corr else C._convolve
    for dt in ("f8", "c16", "f4"):
        a, b = _data(rng, n1, dt), _data(rng, n2, dt)
        for mode in ("full", "same", "valid"):
            _close(ours(np, a, b, mode, "direct"), f(a, b, mode, method="direct"),
                   _tol(dt, min(n1, n2)))
    assert run.launches and all(n.startswith("gsconv_rows") for n in run.launches)


@pytest.mark.parametrize("dt", ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8",
                                "e", "f4", "c8"])
def test_direct_dtypes(run, dt):
    """Integers wrap exactly as NumPy's (int8 * int8 sums overflow), bool is
    OR of ANDs, float16 is computed in float32 and rounded once."""
    rng = np.random.default_rng(len(dt))
    a, b = _data(rng, 400, dt), _data(rng, 23, dt)
    if dt in ("u8", "i8"):
        a = a * np.array(2 ** 40, dt)    # products beyond 2**64 wrap
    for mode in ("full", "same", "valid"):
        for corr, f, ours in ((False, ss.convolve, C._convolve),
                              (True, ss.correlate, C._correlate)):
            _close(ours(np, a, b, mode, "direct"), f(a, b, mode, method="direct"),
                   _tol(dt, 23))


def test_direct_mixed_dtypes(run):
    rng = np.random.default_rng(7)
    for d1, d2 in (("i1", "f4"), ("u1", "i1"), ("?", "i2"), ("f4", "c16"), ("i8", "f4"),
                   ("u8", "i1")):
        a, b = _data(rng, (6, 50), d1), _data(rng, (3, 4), d2)
        for corr, f, ours in ((False, ss.convolve, C._convolve),
                              (True, ss.correlate, C._correlate)):
            want = f(a, b, "full", method="direct")
            _close(ours(np, a, b, "full", "direct"), want, _tol(want.dtype, 12))


def test_direct_strided_inputs(run):
    """Negative and non-unit strides are read in place (no copies)."""
    rng = np.random.default_rng(8)
    x = _data(rng, 5000, "f8")
    h = _data(rng, 60, "c16")
    for a in (x[::-1], x[::3], x[10:4000:7][::-1]):
        for b in (h, h[::-2]):
            for corr, f, ours in ((False, ss.convolve, C._convolve),
                                  (True, ss.correlate, C._correlate)):
                _close(ours(np, a, b, "same", "direct"), f(a, b, "same", method="direct"))
                _close(ours(np, b, a, "full", "direct"), f(b, a, "full", method="direct"))


BATCHED = [((7, 300), (1, 25), "rows"), ((300, 5), (25, 1), "rows"),     # moved last
           ((300, 40), (25, 1), "cols"), ((4, 300, 12), (1, 9, 1), "cols"),
           ((70, 90), (5, 7), "tile2"), ((3, 40, 50), (1, 40, 3), "tile2"),
           ((20, 30), (35, 40), "tile2"), ((6, 7, 8), (3, 2, 4), "nd"),
           ((2, 3, 4, 5), (2, 2, 1, 3), "nd")]


@pytest.mark.parametrize("s1,s2,kind", BATCHED)
def test_direct_nd_kernels(run, s1, s2, kind):
    rng = np.random.default_rng(sum(s1) + sum(s2))
    for dt in ("f8", "c16", "i4"):
        a, b = _data(rng, s1, dt), _data(rng, s2, dt)
        for mode in ("full", "same", "valid"):
            for corr, f, ours in ((False, ss.convolve, C._convolve),
                                  (True, ss.correlate, C._correlate)):
                kind_, want = "ok", None
                try:
                    want = f(a, b, mode, method="direct")
                except ValueError:
                    kind_ = "err"
                if kind_ == "err":
                    with pytest.raises(ValueError):
                        ours(np, a, b, mode, "direct")
                    continue
                run.launches.clear()
                _close(ours(np, a, b, mode, "direct"), want, _tol(dt, b.size))
                assert any(n.startswith(f"gsconv_{kind}") for n in run.launches), \
                    run.launches


@pytest.mark.parametrize("boundary", ["fill", "wrap", "symm"])
@pytest.mark.parametrize("s1,s2", [((20, 30), (5, 7)), ((4, 5), (9, 11)),
                                   ((37, 70), (40, 3)), ((1, 50), (3, 1)),
                                   ((6, 6), (1, 1)), ((60, 20), (2, 18))])
def test_convolve2d(run, boundary, s1, s2):
    rng = np.random.default_rng(sum(s1) * 7 + sum(s2))
    for dt in ("f8", "c8", "i2"):
        a, b = _data(rng, s1, dt), _data(rng, s2, dt)
        for mode in ("full", "same", "valid"):
            for corr, f in ((False, ss.convolve2d), (True, ss.correlate2d)):
                try:
                    want = f(a, b, mode, boundary, 3)
                except ValueError:
                    with pytest.raises(ValueError):
                        C._conv2d(np, a, b, mode, boundary, 3, corr)
                    continue
                got = C._conv2d(np, a, b, mode, boundary, 3, corr)
                _close(got, want, _tol(dt, b.size))


def test_correlate2d_valid_swapped(run):
    rng = np.random.default_rng(2)
    a, b = _data(rng, (4, 5), "c16"), _data(rng, (30, 40), "c16")
    _close(C._conv2d(np, a, b, "valid", "fill", 0, True), ss.correlate2d(a, b, "valid"))
    _close(C._conv2d(np, a, b, "valid", "fill", 0, False), ss.convolve2d(a, b, "valid"))


def test_empty_outputs(run):
    a = np.ones((0, 3))
    _close(C._convolve(np, a, np.ones((2, 2)), "same", "direct"),
           ss.convolve(a, np.ones((2, 2)), "same", method="direct"))
    _close(C._conv2d(np, a, np.ones((2, 2)), "full", "fill", 2.0, False),
           ss.convolve2d(a, np.ones((2, 2)), "full", "fill", 2.0))
    _close(C._conv2d(np, np.ones((3, 4)), np.ones((3, 0)), "full", "fill", 1.0, False),
           ss.convolve2d(np.ones((3, 4)), np.ones((3, 0)), "full", "fill", 1.0))


# ---------------------------------------------------------------- FFT

@pytest.mark.parametrize("n1,n2", [(9000, 101), (101, 9000), (5000, 2400), (3000, 3000),
                                   (4097, 2), (1000, 1)])
def test_fft_1d(run, n1, n2):
    rng = np.random.default_rng(n1 + 3 * n2)
    for dt in ("f8", "c16", "f4"):
        a, b = _data(rng, n1, dt), _data(rng, n2, dt)
        for mode in ("full", "same", "valid"):
            want = ss.fftconvolve(a, b, mode)
            tol = 1e-11 if dt != "f4" else 2e-5
            _close(C._fftconvolve(np, a, b, mode, None), want, tol)
            _close(C._fftconvolve(np, a, b, mode, None, force_oa=True),
                   ss.oaconvolve(a, b, mode), tol)


def test_oa_kernels_run(run):
    rng = np.random.default_rng(0)
    a, b = _data(rng, 9000, "f8"), _data(rng, 101, "f8")
    C._fftconvolve(np, a, b, "same", None, force_oa=True)
    assert run.launches == ["gsfftconv_pack_f8_i1", "gsfftconv_ola_f8_i1"]


@pytest.mark.parametrize("s1,s2,axes", [((3, 5000), (1, 64), None), ((3, 5000), (3, 64), [1]),
                                        ((200, 300), (9, 11), None),
                                        ((200, 30), (9, 1), [0]), ((5, 4000, 3), (5, 33, 1),
                                                                   [1]),
                                        ((40, 50, 60), (3, 4, 5), None)])
def test_fft_nd(run, s1, s2, axes):
    rng = np.random.default_rng(sum(s1))
    for dt in ("f8", "c16"):
        a, b = _data(rng, s1, dt), _data(rng, s2, dt)
        for mode in ("full", "same", "valid"):
            try:
                want = ss.oaconvolve(a, b, mode, axes=axes)
            except ValueError:
                continue
            _close(C._fftconvolve(np, a, b, mode, axes, force_oa=True), want, 1e-11)
            _close(C._fftconvolve(np, a, b, mode, axes), ss.fftconvolve(a, b, mode, axes),
                   1e-11)


@pytest.mark.parametrize("dt", ["i4", "u1", "?", "e", "i8"])
def test_convolve_fft_rounds_integers(run, dt):
    rng = np.random.default_rng(4)
    a, b = _data(rng, 9000, dt), _data(rng, 300, dt)
    want = ss.convolve(a, b, "full", method="direct")
    _close(C._convolve(np, a, b, "full", "fft"), want, 2e-3 if dt == "e" else 0)


@pytest.mark.parametrize("shape,N,axis", [((4, 33), None, -1), ((4, 33), 40, -1),
                                          ((4, 33), 17, -1), ((4, 33), None, 0),
                                          ((5, 6, 7), 9, 1), ((1,), None, -1)])
def test_hilbert(run, shape, N, axis):
    rng = np.random.default_rng(1)
    for dt in ("f8", "f4", "i2"):
        x = _data(rng, shape, dt)
        _close(C._hilbert(np, x, N, axis), ss.hilbert(x, N, axis),
               1e-12 if dt != "f4" else 1e-5)


# ---------------------------------------------------------------- medfilt

@pytest.mark.parametrize("shape,ks", [((500,), 5), ((500,), 51), ((300,), 101),
                                      ((40, 50), 3), ((40, 50), [7, 7]), ((30, 20), [9, 9]),
                                      ((10, 12, 14), 3), ((9, 10, 11), [5, 3, 3]),
                                      ((4, 5, 6, 7), 3), ((3,), 5), ((6, 7), [1, 3])])
def test_medfilt(run, shape, ks):
    rng = np.random.default_rng(len(shape))
    for dt in ("f8", "f4", "i1", "u2", "i4", "u4", "i8", "u8"):
        v = _data(rng, shape, dt) if dt[0] != "f" else (rng.standard_normal(shape) * 50
                                                        ).astype(dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = ss.medfilt(v, ks)
            got = M._medfilt(np, v, ks)
        _close(got, want)


def test_medfilt_nan_sorts_last(run):
    x = np.array([1.0, np.nan, 3, 2, 5, np.nan, np.nan, 0, 4])
    got = M._medfilt(np, x, 3)
    np.testing.assert_array_equal(got, M.model_medfilt(x, [3]))
    got = M._medfilt(np, x.astype(np.float32), 5)
    np.testing.assert_array_equal(got, M.model_medfilt(x.astype(np.float32), [5]))


def test_medfilt_uint64_high_values(run):
    """Unsigned order for values >= 2**63 (SciPy compares them as signed)."""
    v = np.array([1, 2 ** 64 - 1, 5, 2 ** 63, 7], np.uint64)
    np.testing.assert_array_equal(M._medfilt(np, v, 3), M.model_medfilt(v, [3]))


# ---------------------------------------------------------------- savgol

@pytest.mark.parametrize("mode", ["interp", "mirror", "constant", "nearest", "wrap"])
@pytest.mark.parametrize("wl,po,deriv", [(11, 3, 0), (10, 4, 1), (7, 2, 2), (1, 0, 0),
                                         (5, 4, 5), (31, 5, 0)])
def test_savgol(run, mode, wl, po, deriv):
    rng = np.random.default_rng(wl)
    x = rng.standard_normal((3, 64))
    for axis, data in ((-1, x), (0, x.T.copy()), (1, x[:, ::-1])):
        want = ss.savgol_filter(data, wl, po, deriv, 0.5, axis, mode, 0.7)
        _close(S._savgol(np, data, wl, po, deriv, 0.5, axis, mode, 0.7), want, 1e-10)
    x32 = x.astype(np.float32)
    want = ss.savgol_filter(x32, wl, po, deriv, 0.5, -1, mode, 0.7)
    # float32: SciPy filters in float64 and fits the edges in float32
    _close(S._savgol(np, x32, wl, po, deriv, 0.5, -1, mode, 0.7), want, 2e-4)
    big = rng.standard_normal((40, 3))        # inner extent >= 8: the cols kernel
    want = ss.savgol_filter(big, min(wl, 40), min(po, 3), deriv, 1.0, 0, mode)
    _close(S._savgol(np, big, min(wl, 40), min(po, 3), deriv, 1.0, 0, mode, 0.0), want,
           1e-10)


def test_grid_stride_loops(run, monkeypatch):
    """Grids capped at 2 blocks per y/z extent and 3 grid-stride blocks: every
    kernel's grid-stride loop covers the rest."""
    monkeypatch.setattr(D, "GRID_YZ", 2)
    monkeypatch.setattr(D, "GRID_X", 3)
    rng = np.random.default_rng(11)
    x, h = _data(rng, (5, 400), "f8"), _data(rng, (1, 30), "f8")
    _close(C._convolve(np, x, h, "same", "direct"), ss.convolve(x, h, "same", "direct"))
    xc = _data(rng, (5, 300, 70), "c16")
    hc = _data(rng, (1, 9, 1), "c16")
    _close(C._correlate(np, xc, hc, "full", "direct"), ss.correlate(xc, hc, "full", "direct"))
    m, k = _data(rng, (4, 150, 40), "f4"), _data(rng, (1, 3, 5), "f4")
    _close(C._convolve(np, m, k, "full", "direct"), ss.convolve(m, k, "full", "direct"),
           1e-5)
    v, w = _data(rng, (6, 7, 8), "f8"), _data(rng, (3, 2, 4), "f8")
    _close(C._convolve(np, v, w, "full", "direct"), ss.convolve(v, w, "full", "direct"))
    a, b = _data(rng, (4, 3000), "f8"), _data(rng, (1, 40), "f8")
    _close(C._fftconvolve(np, a, b, "same", None, force_oa=True), ss.oaconvolve(a, b, "same"))
    _close(C._hilbert(np, a, None, -1), ss.hilbert(a))
    med = (rng.standard_normal((30, 20)) * 9).astype(np.float32)
    _close(M._medfilt(np, med, 5), ss.medfilt(med, 5))
    _close(M._medfilt(np, med.astype(np.float64), [11, 9]), ss.medfilt(med.astype(float),
                                                                        [11, 9]))
    sg = rng.standard_normal((7, 50))
    _close(S._savgol(np, sg, 9, 3, 1, 1.0, -1, "interp", 0.0),
           ss.savgol_filter(sg, 9, 3, 1), 1e-10)
