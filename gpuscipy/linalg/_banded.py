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

import numpy

from ._misc import LAPACK_CHARS, device_types

__all__ = ["MAX_KL", "gbsv_source", "gbsv"]

MAX_KL = 31
_WARPS = 4


@functools.lru_cache(maxsize=128)
def gbsv_source(dtype):
    """CUDA source of the banded LU solve for one dtype (pure). Returns
    ``(source, name)``. Kernel args: ``(ab, ab_bs, kl, ku, n, b, b_bs, nrhs,
    w, ipiv, x, info, nsys)``: ``ab`` (nsys, kl+ku+1, n) C order, SciPy's
    band storage (``ab[ku + i - j, j] = a[i, j]``), batch stride ``ab_bs``
    (elements, 0 broadcasts); ``b`` (nsys, n, nrhs) C order, batch stride
    ``b_bs``; ``w`` scratch (nsys, n, 2kl+ku+1); ``ipiv`` (nsys, n) int32;
    ``x`` (nsys, n, nrhs) output; ``info`` (nsys,) int32. Block: 128
    threads, one warp per system."""
    dt = numpy.dtype(dtype)
    if dt.char not in LAPACK_CHARS:
        raise TypeError(f"banded LU: unsupported dtype {dt}")
    T, R = device_types(dt)
    cplx = dt.char in "FD"
    abs1 = "(fabs(v.re) + fabs(v.im))" if cplx else "fabs(v)"
    name = f"gs_gbsv_{dt.char}"
    src = f"""#include <gpuscipy/types.cuh>

__device__ __forceinline__ {R} gs_gb_abs1({T} v) {{ return {abs1}; }}
// warp barrier that is also a compiler memory barrier: lanes exchange data
// through global memory, so no load may be reused across it (with
// __restrict__ pointers NVRTC otherwise forwards a pre-barrier load of x[j]
// past __syncwarp in the back substitution, giving lanes >= 1 a stale value)
__device__ __forceinline__ void gs_gb_sync() {{
  asm volatile("" ::: "memory");
  __syncwarp();
  asm volatile("" ::: "memory");
}}

extern "C" __global__ void __launch_bounds__({32 * _WARPS})
{name}(const {T}* __restrict__ ab_, long long ab_bs, int kl, int ku, long long n,
       const {T}* __restrict__ b_, long long b_bs, int nrhs, {T}* w_,
       int* ipiv_, {T}* x_, int* info_,
       long long nsys)
{{
  typedef {T} T;
  typedef {R} R;
  const unsigned FULL = 0xffffffffu;
  const int lane = threadIdx.x % 32;
  const long long s = (long long)blockIdx.x * {_WARPS} + threadIdx.x / 32;
  if (s >= nsys) return;   // whole warps only
  const int kv = kl + ku;
  const long long ldab = 2 * kl + ku + 1;
  const int rows = kl + ku + 1;
  const T* ab = ab_ + s * ab_bs;
  T* w = w_ + s * n * ldab;
  int* ipiv = ipiv_ + s * n;
  // load: w[j, kl + r] = ab[r, j]; the kl fill-in rows start at zero
  for (long long t = lane; t < n * ldab; t += 32) {{
    const long long j = t / ldab;
    const long long r = t % ldab - kl;
    w[t] = r >= 0 ? ab[r * n + j] : T(0);
  }}
  gs_gb_sync();
  int info = 0;
  long long ju = 0;
  for (long long j = 0; j < n; ++j) {{
    T* wj = w + j * ldab;
    const int km = (int)((n - 1 - j) < kl ? (n - 1 - j) : kl);
    R best = R(-1);
    int bi = 0;
    if (lane <= km) {{ best = gs_gb_abs1(wj[kv + lane]); bi = lane; }}
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {{
      const R ob = __shfl_xor_sync(FULL, best, o);
      const int oi = __shfl_xor_sync(FULL, bi, o);
      if (ob > best || (ob == best && oi < bi)) {{ best = ob; bi = oi; }}
    }}
    const int jp = bi;
    if (lane == 0) ipiv[j] = (int)(j + jp);
    gs_gb_sync();
    if (best != R(0)) {{
      const long long reach = j + ku + jp < n - 1 ? j + ku + jp : n - 1;
      ju = ju > reach ? ju : reach;
      if (jp != 0) {{
        for (long long c = j + lane; c <= ju; c += 32) {{
          T* wc = w + c * ldab + kv - c;
          const T t0 = wc[j];
          wc[j] = wc[j + jp];
          wc[j + jp] = t0;
        }}
        gs_gb_sync();
      }}
      T m = T(0);
      if (lane >= 1 && lane <= km) {{
        m = wj[kv + lane] / wj[kv];
        wj[kv + lane] = m;
      }}
      gs_gb_sync();
      if (lane >= 1 && lane <= km) {{
        for (long long c = j + 1; c <= ju; ++c) {{
          T* wc = w + c * ldab + kv - c;
          wc[j + lane] = wc[j + lane] - m * wc[j];
        }}
      }}
      gs_gb_sync();
    }} else if (info == 0) {{
      info = (int)j + 1;
    }}
  }}
  if (lane == 0) info_[s] = info;
  if (info) return;
  const T* b = b_ + s * b_bs;
  T* x = x_ + s * n * nrhs;
  for (long long t = lane; t < n * nrhs; t += 32) x[t] = b[t];
  gs_gb_sync();
  for (int c = 0; c < nrhs; ++c) {{
    // L^-1 P b (?gbtrs: interchange, then the column of multipliers)
    for (long long j = 0; j + 1 < n; ++j) {{
      const int km = (int)((n - 1 - j) < kl ? (n - 1 - j) : kl);
      if (km == 0) continue;
      const long long p = ipiv[j];
      if (lane == 0 && p != j) {{
        const T t0 = x[j * nrhs + c];
        x[j * nrhs + c] = x[p * nrhs + c];
        x[p * nrhs + c] = t0;
      }}
      gs_gb_sync();
      const T bj = x[j * nrhs + c];
      if (lane >= 1 && lane <= km)
        x[(j + lane) * nrhs + c] = x[(j + lane) * nrhs + c] - w[j * ldab + kv + lane] * bj;
      gs_gb_sync();
    }}
    // U^-1: U[i, j] = w[j, kv + i - j] for j - kv <= i <= j
    for (long long j = n - 1; j >= 0; --j) {{
      if (lane == 0) x[j * nrhs + c] = x[j * nrhs + c] / w[j * ldab + kv];
      gs_gb_sync();
      const T bj = x[j * nrhs + c];
      const long long lo = j - kv > 0 ? j - kv : 0;
      for (long long i = j - 1 - lane; i >= lo; i -= 32)
        x[i * nrhs + c] = x[i * nrhs + c] - w[j * ldab + kv + i - j] * bj;
      gs_gb_sync();
    }}
  }}
  (void)rows;
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
