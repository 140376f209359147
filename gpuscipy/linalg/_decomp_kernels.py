"""Kernels of gpuscipy.linalg's decompositions: source generation and launch.

The device code lives in ``_decomp_kernels.cuh``; this module only names a
specialisation (kernel, dtype) and renders the ``extern "C"`` entry point.
Source generation is pure (no device access), so the tests compile every
variant with NVRTC on a machine without a GPU.

Kernels
-------
qrcp_start, qrcp_step
    Householder QR with column pivoting, one column per step (BLAS-2, the
    algorithm of LAPACK's xGEQP2 with exact recomputation of the partial
    column norms instead of xLAQP2's downdating), ONE launch per column:
    the launch of step j applies reflector j to the trailing columns (one
    block per column) and recomputes their norms, and its last block to
    finish (threadfence + atomic counter) picks pivot j + 1, swaps it in and
    builds reflector j + 1. Used by ``qr(..., pivoting=True)``: cuSOLVER has
    no geqp3.
eig_pairs
    LAPACK's packed real eigenvectors (conjugate pairs in two real columns)
    to complex eigenvectors, as ``scipy.linalg.eig`` returns them.
"""

import functools
import os

import numpy

from gpuscipy_core.kernel import read_source

from ._misc import device_types

__all__ = ["kernel_source", "KERNELS", "DTYPES", "qrcp", "eig_pairs"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_CUH = os.path.join(_HERE, "_decomp_kernels.cuh")


DTYPES = ("float32", "float64", "complex64", "complex128")

# kernel -> (parameter list, call of the device template); {T}: element
# type, {R}: its real type.
KERNELS = {
    "qrcp_start": ("{T}* A, long long lda, long long m, long long n, {R}* vn, "
                   "long long* perm, {T}* tau, unsigned int* counter",
                   "gs_linalg_decomp::qrcp_start<{T}>(A, lda, m, n, vn, perm, tau, counter);"),
    "qrcp_step": ("{T}* A, long long lda, long long m, long long n, long long j, "
                  "long long k, {R}* vn, long long* perm, {T}* tau, unsigned int* counter",
                  "gs_linalg_decomp::qrcp_step<{T}>(A, lda, m, n, j, k, vn, perm, tau, counter);"),
    "eig_pairs": ("const {R}* vr, const {R}* wi, gs::complex<{R}>* out, long long n",
                  "gs_linalg_decomp::eig_pairs<{R}>(vr, wi, out, n);"),
}


def _header():
    return read_source(_CUH).replace("#pragma once\n", "")


def kernel_name(kernel, dtype):
    """``gs_linalg_<kernel>_<dtype>`` (the name says the specialisation)."""
    return f"gs_linalg_{kernel}_{numpy.dtype(dtype).name}"


@functools.lru_cache(maxsize=128)
def kernel_source(kernel, dtype):
    """CUDA C++ source of one specialisation: ``(source, name)``. Pure."""
    dt = numpy.dtype(dtype).name
    if kernel == "eig_pairs" and dt not in ("float32", "float64"):
        raise ValueError("eig_pairs takes the real dtype")
    params, call = KERNELS[kernel]
    name = kernel_name(kernel, dt)
    T, R = device_types(dt)
    src = (_header() + "\n"
           f'extern "C" __global__ void {name}({params.format(T=T, R=R)}) {{\n'
           f"  {call.format(T=T, R=R)}\n}}\n")
    return src, name


def _function(kernel, dtype):
    from gpuscipy_core.kernel import get_function
    src, name = kernel_source(kernel, dtype)
    return get_function(src, name, ("-std=c++17",))


def qrcp(a):
    """Householder QR with column pivoting of the F-ordered matrix ``a`` in place.

    Parameters
    ----------
    a : ndarray, (m, n), F-contiguous, float32/64 or complex64/128
        Overwritten with R (upper triangle) and the reflectors (below), the
        layout of LAPACK's xGEQP3 (and cuSOLVER's geqrf).

    Returns
    -------
    tau : ndarray, (min(m, n),), a.dtype
    perm : ndarray, (n,), int64
        0-based column permutation: ``A[:, perm] = Q R``.
    """
    import gpuscipy_core as gp
    m, n = a.shape
    k = min(m, n)
    dt = a.dtype
    rdt = numpy.dtype(dt.char.lower())
    tau = gp.zeros((k,), dt)
    perm = gp.arange(n, dtype=numpy.int64)
    if k == 0:
        return tau, perm
    lda = max(1, a.strides[1] // a.itemsize)
    vn = gp.empty((n,), rdt)
    counter = gp.zeros((1,), numpy.uint32)    # reset by the kernels after use
    threads = 256
    _function("qrcp_start", dt)((n, 1, 1), (threads, 1, 1),
                                (a, lda, m, n, vn, perm, tau, counter))
    step = _function("qrcp_step", dt)
    for j in range(k):
        if n - j - 1 > 0:
            step((n - j - 1, 1, 1), (threads, 1, 1),
                 (a, lda, m, n, j, k, vn, perm, tau, counter))
    return tau, perm


def eig_pairs(vr, wi):
    """Complex eigenvectors from LAPACK's real packing.

    ``vr``: (n, n) real, F-contiguous; ``wi``: (n,) imaginary parts of the
    eigenvalues. Returns an F-ordered complex (n, n) array.
    """
    import gpuscipy_core as gp
    n = vr.shape[0]
    cdt = numpy.dtype(numpy.complex64 if vr.dtype == numpy.float32 else numpy.complex128)
    out = gp.empty((n, n), cdt, order="F")
    if n:
        blocks = min(4096, (n * n + 255) // 256)
        _function("eig_pairs", vr.dtype)((blocks, 1, 1), (256, 1, 1), (vr, wi, out, n))
    return out
