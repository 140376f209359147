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
import types

import numpy as np

from gpuscipy_core.kernel import read_source
from gpuscipy.signal import _iir_kernels as K

from . import _host_cuda as H

SHIM = H.SHIM_BASE + r"""
#include <algorithm>
#include <barrier>
#include <thread>
using std::fma; using std::fabs; using std::fmax;
inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline thread_local std::barrier<>* emu_block_bar;
inline thread_local std::barrier<>* emu_warp_bar;
inline void __syncthreads() { emu_block_bar->arrive_and_wait(); }
inline void __syncwarp(unsigned = 0xffffffffu) { emu_warp_bar->arrive_and_wait(); }
template <class A> inline A min(A a, A b) { return b < a ? b : a; }
template <class A> inline A max(A a, A b) { return a < b ? b : a; }
namespace emu { alignas(16) inline char smem[1 << 20]; }
"""

LAUNCH = H.CALL + r"""
namespace emu {
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

host_types_header = H.host_types_header
available = H.available


class Emulator:
    """Compiled host versions of a set of kernel specs (``lazy``: specs
    launched but not listed are compiled when first used)."""

    def __init__(self, tmp, specs, jobs=2, lazy=False):
        self.tmp, self.lazy = tmp, lazy
        self.inc = H.write_includes(os.path.join(tmp, "inc"), SHIM)
        self.libs, self.where, self.dlls, self.launches = [], {}, [], []
        groups = [g for g in (specs[i::jobs] for i in range(jobs)) if g]
        self._build(groups)

    def _build(self, groups):
        header = read_source(K._CUH)
        host_header = (header.replace("extern __shared__ __align__(16) char smem_base[];",
                                      "char* smem_base = emu::smem;")
                             .replace("extern __shared__ __align__(16) char smem[];",
                                      "char* smem = emu::smem;"))
        assert "extern __shared__" not in host_header
        new = []
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
            new.append((path, lib, names))
        H.compile_libraries([(path, lib) for path, lib, _ in new], self.inc,
                            ["-O1", "-fno-fast-math", "-pthread"], tail=8000)
        for _, lib, names in new:
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
            argv, _keep = H.pack_args(args)
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
    m.multiply = _fn(np.multiply)
    m.cuda = types.SimpleNamespace(get_device_id=lambda: -1)
    return m


# ------------------------------------------------------------------ self-check

def test_emulator_inputs():
    """The shim's edits find what they replace (types.cuh's PTX, the
    kernels' dynamic shared memory) and every generated wrapper parses as a
    plain function once the CUDA keywords are macros."""
    text = host_types_header()
    assert "asm(" not in text
    header = read_source(K._CUH)
    assert header.count("extern __shared__ __align__(16) char smem_base[];") == 2
    assert header.count("extern __shared__ __align__(16) char smem[];") == 2
    src, name = K.kernel_source("fused", "sos", 2, np.dtype("d"), np.dtype("d"), True)
    assert re.search(r'extern "C" __global__ void __launch_bounds__\(\d+\)\n' + name, src)
