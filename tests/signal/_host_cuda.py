"""What the signal tests' host emulators of CUDA kernels share.

Three harnesses run the kernels' own CUDA source on the CPU: g++ compiles it
as host C++ with a shim in which the CUDA keywords are macros and the few
intrinsics the kernels use are plain C++; each harness then adds its own way
of running the CUDA threads of a block (``test_convolve_emulated``: fibers
for ``__syncthreads``; ``test_iir_emulator``: one ``std::thread`` per CUDA
thread with ``std::barrier``s; ``test_upfirdn``: a thread pool under
AddressSanitizer). This module holds the common part:

- ``SHIM_BASE``: the keyword macros, ``dim3`` and the intrinsics;
- ``host_types_header``: the core's ``types.cuh`` with its three PTX half
  conversions written with ``_Float16``;
- ``write_includes``: an include folder with ``shim.h`` and that header;
- ``CALL``: ``emu::call``, which calls a kernel on a ``void**`` argument list;
- ``pack_args``: that argument list from Python values;
- ``compile_libraries``: parallel g++ builds of shared libraries;
- ``require_gxx``: skip (with the reason) where g++ is not installed.

``-ffp-contract=off`` matches the kernels' ``-fmad=false``. ``-fno-gnu-unique``
keeps each library's ``inline`` globals (``threadIdx``, ...) its own: as GNU
unique symbols they would bind across libraries loaded into one process, so
a later harness would use an earlier one's (differently declared) variables.
"""

import ctypes
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from gpuscipy_core._kernel._nvrtc import include_dir

SHIM_BASE = r"""
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>
using std::isnan; using std::isinf; using std::isfinite; using std::signbit;
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __noinline__
#define __restrict__
#define __shared__
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
struct dim3 { unsigned x = 1, y = 1, z = 1; };
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
"""

CALL = r"""
namespace emu {
// a kernel called with its parameters read from argv (one pointer each)
template <class... P, std::size_t... I>
void call(void (*k)(P...), void** argv, std::index_sequence<I...>) {
  k(*static_cast<std::remove_cv_t<std::remove_reference_t<P>>*>(argv[I])...);
}
}  // namespace emu
"""

# types.cuh converts float16 with PTX; on the host, _Float16 does it
_HALF_HOST = [
    (r'asm\("cvt\.rn\.f16\.f32 %0, %1;" : "=h"\(h\) : "f"\(f\)\);',
     "{ _Float16 t_ = (_Float16)f; std::memcpy(&h, &t_, 2); }"),
    (r'asm\("cvt\.rn\.f16\.f64 %0, %1;" : "=h"\(h\) : "d"\(d\)\);',
     "{ _Float16 t_ = (_Float16)d; std::memcpy(&h, &t_, 2); }"),
    (r'asm\("cvt\.f32\.f16 %0, %1;" : "=f"\(f\) : "h"\(h\)\);',
     "{ _Float16 t_; std::memcpy(&t_, &h, 2); f = (float)t_; }"),
]

FLAGS = ("-std=c++20", "-ffp-contract=off", "-fno-gnu-unique", "-fPIC", "-shared", "-w")


def host_types_header(prelude='#include "shim.h"\n'):
    """The core's types.cuh with its three PTX half conversions in C++,
    after ``prelude``."""
    with open(os.path.join(include_dir(), "gpuscipy", "types.cuh"), encoding="utf-8") as f:
        text = f.read()
    for pat, rep in _HALF_HOST:
        text, n = re.subn(pat, lambda _m, r=rep: r, text)
        assert n == 1, f"types.cuh changed: update the emulators' {pat!r}"
    return prelude + text


def write_includes(inc, shim=None, prelude='#include "shim.h"\n'):
    """Write ``inc/gpuscipy/types.cuh`` (host version) and, given ``shim``,
    ``inc/shim.h``; return ``inc``."""
    os.makedirs(os.path.join(inc, "gpuscipy"), exist_ok=True)
    if shim is not None:
        with open(os.path.join(inc, "shim.h"), "w") as f:
            f.write(shim)
    with open(os.path.join(inc, "gpuscipy", "types.cuh"), "w") as f:
        f.write(host_types_header(prelude))
    return inc


def compile_libraries(jobs, inc, flags=(), tail=6000):
    """Build shared libraries with g++, all at once: ``jobs`` is a list of
    (C++ file, library); ``flags`` come after the common ones. Raises
    RuntimeError with the end of the compiler's output on a failure."""
    procs = [subprocess.Popen(["g++", *FLAGS, *flags, f"-I{inc}", cpp, "-o", lib],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
             for cpp, lib in jobs]
    errors = []
    for p in procs:
        out = p.communicate()[0]
        if p.returncode:
            errors.append(out.decode(errors="replace")[-tail:])
    if errors:
        raise RuntimeError(errors[0])


def available():
    return shutil.which("g++") is not None


def require_gxx(reason="g++ not available for the kernel emulator"):
    if not available():
        pytest.skip(reason)


def pack_args(args):
    """``(argv, keep)``: a ``void*[]`` pointing at each argument's bytes in
    16-byte aligned, zero-padded buffers (``keep`` holds them alive). NumPy
    arrays pass their data pointer; NumPy scalars and bytes their bytes; Python
    bools one byte, ints int64, floats float64."""
    keep, argv = [], (ctypes.c_void_p * len(args))()
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            raw = np.int64(a.ctypes.data).tobytes()
        elif isinstance(a, bytes):
            raw = a
        elif isinstance(a, np.generic):
            raw = a.tobytes()
        elif isinstance(a, bool):
            raw = np.bool_(a).tobytes()
        elif isinstance(a, int):
            raw = np.int64(a).tobytes()
        elif isinstance(a, float):
            raw = np.float64(a).tobytes()
        else:
            raise TypeError(type(a))
        buf = np.zeros(len(raw) + 32, np.uint8)
        off = (-buf.ctypes.data) % 16
        buf[off:off + len(raw)] = np.frombuffer(raw, np.uint8)
        keep.append(buf)
        argv[i] = buf.ctypes.data + off
    return argv, keep
