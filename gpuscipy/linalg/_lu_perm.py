"""The row permutation of getrf's pivots, on the device.

``lu_perm(ipiv)``: getrf's 1-based int64 swap sequence as an int32 index
array, ``(P b)[i] = b[perm[i]]``, by one kernel (``_lu_perm.cuh``: one
thread applies the swaps to an index array in shared memory, ~0.1 ms at
n = 4096 on an H200). ``_solve_dense.getrs`` of one right-hand side is this
permutation (a gather or a scatter) and two cuBLAS trsm.

(Our one-launch-per-triangle getrs kernels, opt-in until 2026-12-03, were
slower than cuSOLVER's getrs, 2.06 against 1.23 ms for one right-hand side
at n = 4096, and are gone: docs/linalg.md says why and what a faster
triangular solve needs.)
"""

import os
import threading

import numpy

from gpuscipy_core.kernel import read_source

__all__ = ["MAX_N", "perm_source", "lu_perm", "lu_perm_cached", "model_perm"]

MAX_N = 8192            # the permutation kernel's shared index array
THREADS = 256
_HERE = os.path.dirname(os.path.abspath(__file__))


def perm_source():
    """``(source, name)`` of the swap-sequence-to-permutation kernel."""
    return read_source(os.path.join(_HERE, "_lu_perm.cuh")), "gs_lu_perm"


def lu_perm(ipiv):
    """int32 device permutation of getrf's 1-based int64 swap sequence:
    ``(P b)[i] = b[perm[i]]`` (one block; n <= MAX_N)."""
    import gpuscipy_core as gp
    from gpuscipy_core.kernel import get_function
    n = ipiv.shape[0]
    if n > MAX_N:
        raise ValueError(f"lu_perm: n must be <= {MAX_N}, got {n}")
    if numpy.dtype(ipiv.dtype) != numpy.int64:
        raise TypeError(f"lu_perm: ipiv must be int64, got {ipiv.dtype}")
    perm = gp.empty((n,), numpy.int32)
    if n:
        f = get_function(*perm_source())
        f((1, 1, 1), (THREADS, 1, 1), (ipiv.ptr, numpy.int32(n), perm.ptr))
    return perm


_last = threading.local()


def lu_perm_cached(ipiv):
    """``lu_perm(ipiv)``, reused while the same ``ipiv`` object comes back on
    the same stream (solve's three getrs calls share one factor; the
    permutation kernel is one thread's chain of n swaps, ~0.1 ms at
    n = 4096). getrf's pivots are never modified in place, and the cache
    holds ``ipiv`` so its identity cannot be reused."""
    from gpuscipy_core.cuda import get_current_stream_ptr
    stream = get_current_stream_ptr()
    hit = getattr(_last, "entry", None)
    if hit is not None and hit[0] is ipiv and hit[1] == stream:
        return hit[2]
    perm = lu_perm(ipiv)
    if stream == 0:
        # only the legacy stream's: a permutation allocated on a side stream
        # (solve's solution runs on one) and cached until exit was freed at
        # interpreter teardown on a stream already gone (SIGSEGV at exit)
        _last.entry = (ipiv, stream, perm)
    return perm



# ----------------------------------------------------------- NumPy model

def model_perm(ipiv):
    """NumPy model of ``gs_lu_perm`` (1-based ``ipiv``)."""
    p = numpy.arange(len(ipiv))
    for i, j in enumerate(numpy.asarray(ipiv) - 1):
        p[i], p[j] = p[j], p[i]
    return p
