"""Banded LU with partial pivoting on the device (LAPACK ?gbsv's algorithm).

One warp per system, for any number of systems. The band is worked on in
LAPACK's ?gbtrf layout with ``kl`` extra rows for the fill-in, stored per
column: ``w[s, j, kv + i - j] = a[i, j]`` with ``kv = kl + ku`` and
``ldab = 2 kl + ku + 1`` (a column's band is contiguous). Step ``j`` of the
factorization (unblocked ?gbtf2):

* pivot: the largest ``|re| + |im|`` (LAPACK's i?amax) of the ``km + 1 <=
  kl + 1 <= 32`` candidates of column ``j``, one per lane, ties to the
  first; its 0-based row is ``ipiv[j]``; an exact zero sets ``info``
  (1-based, the first one) and the step is skipped, as ?gbtf2;
* swap rows ``j`` and the pivot row over columns ``j..ju`` (lanes over
  columns), ``ju`` the last column the U rows reach so far;
* multipliers (lane ``r`` holds row ``j + r``), then the rank-1 update of
  the ``km x (ju - j)`` window, each lane its own row.

The solve (?gbtrs, no transpose) then runs per right-hand side with the
lanes over the band: forward with the interchanges and the multipliers,
back substitution with U's ``kv`` superdiagonals. O(n (kl + ku)) memory
instead of the dense O(n^2); the steps are sequential, so one system of
very large n is latency bound (about a microsecond per column).

Requires ``kl <= 31`` (the candidates of a column must fit a warp); any
``ku``. Reference: LAPACK ?gbtf2/?gbtrs (Anderson et al., *LAPACK Users'
Guide*, 3rd ed.); Golub & Van Loan, *Matrix Computations*, 4.3.5.
"""

import functools
import os

import numpy

from gpuscipy_core.kernel import read_source

from ._misc import LAPACK_CHARS, device_types

__all__ = ["MAX_KL", "gbsv_source", "gbsv"]

MAX_KL = 31
_WARPS = 4
_CUH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_banded.cuh")


@functools.lru_cache(maxsize=128)
def gbsv_source(dtype):
    """CUDA source of the banded LU solve for one dtype (pure). Returns
    ``(source, name)``: ``_banded.cuh`` and an ``extern "C"`` wrapper that
    instantiates ``gs_linalg_banded::gbsv<T, R, WARPS>``. Kernel args: ``(ab,
    ab_bs, kl, ku, n, b, b_bs, nrhs, w, ipiv, x, info, nsys)``: ``ab`` (nsys,
    kl+ku+1, n) C order, SciPy's band storage (``ab[ku + i - j, j] = a[i,
    j]``), batch stride ``ab_bs`` (elements, 0 broadcasts); ``b`` (nsys, n,
    nrhs) C order, batch stride ``b_bs``; ``w`` scratch (nsys, n, 2kl+ku+1);
    ``ipiv`` (nsys, n) int32; ``x`` (nsys, n, nrhs) output; ``info``
    (nsys,) int32. Block: 128 threads, one warp per system."""
    dt = numpy.dtype(dtype)
    if dt.char not in LAPACK_CHARS:
        raise TypeError(f"banded LU: unsupported dtype {dt}")
    T, R = device_types(dt)
    name = f"gs_gbsv_{dt.char}"
    # the written arrays are not __restrict__ (see warp_sync in the .cuh)
    src = f"""{read_source(_CUH)}
extern "C" __global__ void __launch_bounds__({32 * _WARPS})
{name}(const {T}* __restrict__ ab, long long ab_bs, int kl, int ku, long long n,
       const {T}* __restrict__ b, long long b_bs, int nrhs, {T}* w,
       int* ipiv, {T}* x, int* info, long long nsys)
{{
  gs_linalg_banded::gbsv<{T}, {R}, {_WARPS}>(ab, ab_bs, kl, ku, n, b, b_bs, nrhs, w,
                                            ipiv, x, info, nsys);
}}
"""
    return src, name


def gbsv(ab, kl, ku, b):
    """Solve banded systems on the device.

    Parameters
    ----------
    ab : (nsys, kl + ku + 1, n) device array (batch stride may be 0)
        SciPy's band storage.
    kl, ku : int
        Sub- and super-diagonals, ``kl <= MAX_KL``.
    b : (nsys, n, nrhs) device array, same dtype.

    Returns
    -------
    (x, info) : (nsys, n, nrhs) solution (undefined where singular) and
    (nsys,) int32 ?gbtrf info.
    """
    import gpuscipy_core as gp
    from gpuscipy_core.kernel import get_function
    if not 0 <= kl <= MAX_KL or ku < 0:
        raise ValueError(f"banded LU: need 0 <= kl <= {MAX_KL} and ku >= 0")
    nsys, rows, n = ab.shape
    nrhs = b.shape[-1]
    dt = ab.dtype
    info = gp.zeros((nsys,), numpy.int32)
    x = gp.empty((nsys, n, nrhs), dt)
    if nsys == 0 or n == 0:
        return x, info

    def prep(v):
        inner = v.strides[-1] == v.itemsize and v.strides[-2] == v.shape[-1] * v.itemsize
        if not inner:
            v = gp.ascontiguousarray(v)
        return v, (0 if v.shape[0] == 1 or v.strides[0] == 0 else v.strides[0] // v.itemsize)

    ab, ab_bs = prep(ab)
    b, b_bs = prep(b)
    ldab = 2 * kl + ku + 1
    w = gp.empty((nsys * n * ldab,), dt)
    ipiv = gp.empty((nsys, n), numpy.int32)
    src, name = gbsv_source(dt)
    f = get_function(src, name)
    grid = ((nsys + _WARPS - 1) // _WARPS, 1, 1)
    f(grid, (32 * _WARPS, 1, 1),
      (ab.ptr, numpy.int64(ab_bs), numpy.int32(kl), numpy.int32(ku), numpy.int64(n),
       b.ptr, numpy.int64(b_bs), numpy.int32(nrhs), w.ptr, ipiv.ptr, x.ptr, info.ptr,
       numpy.int64(nsys)))
    return x, info
