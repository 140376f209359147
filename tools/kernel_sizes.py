"""Code size and register spills of gpuscipy's hand-written kernels, without a GPU.

    python tools/kernel_sizes.py

Compiles a representative specialisation of each kernel family with NVRTC
(``--ptxas-options=-v``, sm_90) and prints its cubin size and any spill
ptxas reports. A kernel whose serial steps are fully unrolled into
straight-line code of 100 KB or more runs each instruction cold from L2 when
few warps walk it once (the tournament LU panel measured 2-4 us per
elimination step that way): large sizes here are leads for GPU profiling.
"""

import os
import sys

import numpy

from cuda.bindings import nvrtc

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ptxas_report(source, arch="sm_90"):
    """``(cubin bytes, ptxas -v log lines)`` of ``source``."""
    from gpuscipy_core._kernel._nvrtc import include_dir
    opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17",
            f"-I{include_dir()}".encode(), b"--ptxas-options=-v"]
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"k.cu", 0, [], [])
    try:
        err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        lines = log.decode(errors="replace").splitlines()
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError("\n".join(lines[-20:]))
        _, csize = nvrtc.nvrtcGetCUBINSize(prog)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    return csize, lines


def _families():
    from gpuscipy.linalg import _batched_lu, _banded, _decomp_kernels
    from gpuscipy.fft import _realtransforms
    for dt in "dD":
        for v in ("v1", "v2"):
            yield (f"batched_lu {dt} n=32 {v} solve+rcond",
                   _batched_lu.lu_source(dt, 32, True, False, 0, False, False, True, v))
        yield f"batched_cholesky {dt} n=32", _batched_lu.cholesky_source(dt, 32, False, True, True)
        yield f"gbsv {dt}", _banded.gbsv_source(dt)
    for k in _decomp_kernels.KERNELS:
        yield f"decomp {k} float64", _decomp_kernels.kernel_source(k, "float64")
    for op in _realtransforms.KERNELS:
        yield (f"fft {op} float64",
               (_realtransforms.kernel_source(op, numpy.float64, False, True),
                _realtransforms.kernel_name(op, numpy.float64, False, True)))


def main():
    print(f"{'kernel':44s} {'cubin':>9s}  spills")
    for label, (src, name) in _families():
        size, lines = ptxas_report(src)
        spills = [ln.strip() for ln in lines if "spill" in ln and " 0 bytes spill stores" not in ln]
        print(f"{label:44s} {size:9d}  {spills[0] if spills else '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
