"""Run the IIR kernels of ``gpuscipy/signal/_iir.cuh`` on the CPU (the
emulator used by ``test_iir_emulated.py``, and a check of its inputs).

The generated kernel sources are compiled for the host by g++ (C++20) with a
shim: every CUDA thread is a ``std::thread``, ``__syncthreads`` and
``__syncwarp`` are ``std::barrier``s of the block and of its warp, blocks run
one after another, the dynamic shared memory is one static buffer, and the
core's ``types.cuh`` has its three PTX half conversions written in C++.
``-ffp-contract=off`` matches the kernels' ``-fmad=false``, so real-typed
results are bitwise those of a device without fused multiply-adds.

``Emulator.function`` stands in for ``_iir_kernels._function``;
``HostGP`` stands in for ``gpuscipy_core`` inside ``_iir`` (NumPy arrays with a
``ptr``), so the public functions run end to end on the host.
"""

import ctypes
import os
import re
import shutil
import subprocess
import types

import numpy as np

from gpuscipy.signal import _iir_kernels as K

_CORE = os.path.join(os.path.dirname(K.__file__), "..", "..", "gpuscipy_core", "_kernel",
                     "include", "gpuscipy", "types.cuh")

SHIM = r"""
#pragma once
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>
using std::isnan; using std::isinf; using std::isfinite; using std::signbit;
using std::fma; using std::fabs; using std::fmax;
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __noinline__
#define __restrict__
#define __align__(n) alignas(n)
#define __launch_bounds__(...)
struct dim3 { unsigned x, y, z; };
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline thread_local std::barrier<>* emu_block_bar;
inline thread_local std::barrier<>* emu_warp_bar;
inline void __syncthreads() { emu_block_bar->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_warp_bar->arrive_and_wait(); }
template <class A> inline A min(A a, A b) { return b < a ? b : a; }
template <class A> inline A max(A a, A b) { return a < b ? b : a; }
inline double __longlong_as_double(long long v) { double d; std::memcpy(&d, &v, 8); return d; }
inline long long __double_as_longlong(double v) { long long d; std::memcpy(&d, &v, 8); return d; }
inline float __int_as_float(int v) { float d; std::memcpy(&d, &v, 4); return d; }
inline float __uint_as_float(unsigned v) { float d; std::memcpy(&d, &v, 4); return d; }
inline unsigned __float_as_uint(float v) { unsigned d; std::memcpy(&d, &v, 4); return d; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dmul_rn(double a, double b) { return a * b; }
namespace emu { alignas(16) inline char smem[1 << 20]; }
"""

LAUNCH = r"""
namespace emu {
template <class... P, std::size_t... I>
void call(void (*k)(P...), void** argv, std::index_sequence<I...>) {
  k(*static_cast<std::remove_cv_t<std::remove_reference_t<P>>*>(argv[I])...);
}
template <class... P>
void launch(void (*k)(P...), void** argv, unsigned gx, unsigned bx) {
  gridDim = {gx, 1, 1};
  blockDim = {bx, 1, 1};
  for (unsigned b = 0; b < gx; ++b) {
    std::memset(smem, 0xcd, sizeof(smem));  // stale shared memory is garbage
    std::barrier<> block(bx);
    std::vector<std::barrier<>*> warps;
    for (unsigned w = 0; w < (bx + 31) / 32; ++w)
      warps.push_back(new std::barrier<>(std::min(32u, bx - 32 * w)));
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < bx; ++t)
      ts.emplace_back([&, t] {
        threadIdx = {t, 0, 0};
        blockIdx = {b, 0, 0};
        emu_block_bar = &block;
        emu_warp_bar = warps[t / 32];
        call(k, argv, std::index_sequence_for<P...>{});
        emu_warp_bar->arrive_and_drop();
        block.arrive_and_drop();
      });
    for (auto& th : ts) th.join();
    for (auto* w : warps) delete w;
  }
}
}  // namespace emu
"""


def host_types_header():
    """types.cuh with its PTX half conversions in C++."""
    with open(_CORE, encoding="utf-8") as f:
        text = f.read()
    subs = [(r'asm\("cvt\.rn\.f16\.f32 %0, %1;" : "=h"\(h\) : "f"\(f\)\);',
             "{ _Float16 q = (_Float16)f; std::memcpy(&h, &q, 2); }"),
            (r'asm\("cvt\.rn\.f16\.f64 %0, %1;" : "=h"\(h\) : "d"\(d\)\);',
             "{ _Float16 q = (_Float16)d; std::memcpy(&h, &q, 2); }"),
            (r'asm\("cvt\.f32\.f16 %0, %1;" : "=f"\(f\) : "h"\(h\)\);',
             "{ _Float16 q; std::memcpy(&q, &h, 2); f = (float)q; }")]
    for pat, rep in subs:
        text, n = re.subn(pat, lambda _m, r=rep: r, text)
        assert n == 1, f"types.cuh changed: {pat!r}"
    return '#include "shim.h"\n' + text


def available():
    return shutil.which("g++") is not None


class Emulator:
    """Compiled host versions of a set of kernel specs (``lazy``: specs
    launched but not listed are compiled when first used)."""

    def __init__(self, tmp, specs, jobs=2, lazy=False):
        self.tmp, self.lazy = tmp, lazy
        inc = os.path.join(tmp, "inc")
        self.inc = inc
        os.makedirs(os.path.join(inc, "gpuscipy"), exist_ok=True)
        with open(os.path.join(inc, "shim.h"), "w") as f:
            f.write(SHIM)
        with open(os.path.join(inc, "gpuscipy", "types.cuh"), "w") as f:
            f.write(host_types_header())
        self.libs, self.where, self.dlls, self.launches = [], {}, [], []
        groups = [g for g in (specs[i::jobs] for i in range(jobs)) if g]
        self._build(groups)

    def _build(self, groups):
        header = K._header()
        host_header = (header.replace("extern __shared__ __align__(16) char smem_base[];",
                                      "char* smem_base = emu::smem;")
                             .replace("extern __shared__ __align__(16) char smem[];",
                                      "char* smem = emu::smem;"))
        assert "extern __shared__" not in host_header
        procs, new = [], []
        for group in groups:
            k = len(self.libs)
            parts = ['#include "shim.h"', host_header, LAUNCH]
            names = []
            for spec in group:
                src, name = K.kernel_source(*spec)
                assert src.startswith(header)
                parts.append(src[len(header):])
                parts.append(f'extern "C" void emu_{name}(void** a, unsigned gx, unsigned bx)'
                             f" {{ emu::launch(&{name}, a, gx, bx); }}")
                names.append(name)
            path = os.path.join(self.tmp, f"iir{k}.cpp")
            with open(path, "w") as f:
                f.write("\n".join(parts))
            lib = os.path.join(self.tmp, f"iir{k}.so")
            self.libs.append(lib)
            new.append((lib, names))
            procs.append(subprocess.Popen(
                ["g++", "-std=c++20", "-O1", "-ffp-contract=off", "-fno-fast-math", "-fPIC",
                 "-shared", "-pthread", "-w", f"-I{self.inc}", path, "-o", lib],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
        for p in procs:
            out = p.communicate()[0]
            if p.returncode:
                raise RuntimeError(out.decode(errors="replace")[-8000:])
        for lib, names in new:
            self.dlls.append(ctypes.CDLL(lib))
            for name in names:
                self.where[name] = len(self.dlls) - 1

    def function(self, role, kind, order, tin, t, staged=False, fir_smem=True, nt=None):
        """Drop-in for ``_iir_kernels._function``."""
        if role == "fused":
            nt = nt or K.fused_threads(K.state_size(kind, order))
        name = K.kernel_name(role, kind, order, np.dtype(tin), np.dtype(t), bool(staged),
                             bool(fir_smem), nt)
        if name not in self.where:
            if not self.lazy:
                raise KeyError(f"kernel {name} was not compiled for the emulator")
            self._build([[(role, kind, order, np.dtype(tin), np.dtype(t), bool(staged),
                           bool(fir_smem), nt)]])
        fn = getattr(self.dlls[self.where[name]], "emu_" + name)

        def launch(grid, block, args, shared_mem=0, stream=None):
            assert shared_mem <= (1 << 20)
            keep, argv = [], (ctypes.c_void_p * len(args))()
            for i, a in enumerate(args):
                if isinstance(a, np.ndarray):
                    raw = np.int64(a.ctypes.data).tobytes()
                elif isinstance(a, bytes):
                    raw = a
                elif isinstance(a, np.generic):
                    raw = a.tobytes()
                elif isinstance(a, int):
                    raw = np.int64(a).tobytes()
                else:
                    raise TypeError(type(a))
                buf = np.zeros(len(raw) + 16, np.uint8)
                off = (-buf.ctypes.data) % 16
                buf[off:off + len(raw)] = np.frombuffer(raw, np.uint8)
                keep.append(buf)
                argv[i] = buf.ctypes.data + off
            g = grid[0] if isinstance(grid, tuple) else grid
            b = block[0] if isinstance(block, tuple) else block
            fn(argv, ctypes.c_uint(int(g)), ctypes.c_uint(int(b)))
            self.launches.append(name)

        return launch


# ------------------------------------------------------------ host gpuscipy_core

class HostArray(np.ndarray):
    """A NumPy array posing as a device array (``ptr``, ``get``)."""

    @property
    def ptr(self):
        return self.ctypes.data

    def get(self):
        return np.asarray(self).copy()


def _wrap(v):
    return v.view(HostArray) if isinstance(v, np.ndarray) else v


def _fn(f):
    return lambda *a, **k: _wrap(f(*a, **k))


def host_gp():
    """A stand-in for ``gpuscipy_core`` in ``_iir`` (what it calls)."""
    m = types.SimpleNamespace()
    m.ndarray = HostArray
    m.asarray = lambda v, dtype=None: _wrap(np.asarray(v, dtype=dtype))
    m.empty = _fn(np.empty)
    m.zeros = _fn(np.zeros)
    m.moveaxis = _fn(np.moveaxis)
    m.swapaxes = _fn(np.swapaxes)
    m.ascontiguousarray = _fn(np.ascontiguousarray)
    m.broadcast_to = _fn(np.broadcast_to)
    m.flip = _fn(np.flip)
    m.concatenate = _fn(np.concatenate)
    m.matmul = _fn(np.matmul)
    return m


# ------------------------------------------------------------------ self-check

def test_emulator_inputs():
    """The shim's edits find what they replace (types.cuh's PTX, the
    kernels' dynamic shared memory) and every generated wrapper parses as a
    plain function once the CUDA keywords are macros."""
    text = host_types_header()
    assert "asm(" not in text
    header = K._header()
    assert header.count("extern __shared__ __align__(16) char smem_base[];") == 2
    assert header.count("extern __shared__ __align__(16) char smem[];") == 2
    src, name = K.kernel_source("fused", "sos", 2, np.dtype("d"), np.dtype("d"), True)
    assert re.search(r'extern "C" __global__ void __launch_bounds__\(\d+\)\n' + name, src)
