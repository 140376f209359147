// Banded LU with partial pivoting, one warp per system (gpuscipy.linalg._banded:
// the algorithm, the layout of the work array and the references are in its
// docstring). LAPACK's ?gbtf2 factorization, then ?gbtrs's solve.
//
// gbsv<T, R, WARPS>: T the element type, R its real type, WARPS the warps of
// a block (blockDim.x = 32 * WARPS, one system per warp). Arguments: ab
// (nsys, kl+ku+1, n) C order, SciPy's band storage (ab[ku + i - j, j] =
// a[i, j]), batch stride ab_bs (elements, 0 broadcasts); b (nsys, n, nrhs)
// C order, batch stride b_bs; w scratch (nsys, n, 2kl+ku+1); ipiv (nsys, n)
// int32; x (nsys, n, nrhs) output; info (nsys,) int32. Requires kl <= 31.
#pragma once
#include <gpuscipy/types.cuh>

namespace gs_linalg_banded {

// LAPACK's i?amax measure: |v| for a real, |re| + |im| for a complex
__device__ __forceinline__ float abs1(float v) { return fabs(v); }
__device__ __forceinline__ double abs1(double v) { return fabs(v); }
template <class R> __device__ __forceinline__ R abs1(gs::complex<R> v) {
  return (fabs(v.re) + fabs(v.im));
}

// warp barrier that is also a compiler memory barrier: lanes exchange data
// through global memory, so no load may be reused across it (with
// __restrict__ pointers NVRTC otherwise forwards a pre-barrier load of x[j]
// past __syncwarp in the back substitution, giving lanes >= 1 a stale value)
__device__ __forceinline__ void warp_sync() {
  asm volatile("" ::: "memory");
  __syncwarp();
  asm volatile("" ::: "memory");
}

// The written arrays (w_, ipiv_, x_, info_) are deliberately not __restrict__
// (see warp_sync).
template <class T, class R, int WARPS>
__device__ __forceinline__ void gbsv(
    const T* __restrict__ ab_, long long ab_bs, int kl, int ku, long long n,
    const T* __restrict__ b_, long long b_bs, int nrhs, T* w_,
    int* ipiv_, T* x_, int* info_,
    long long nsys)
{
  const unsigned FULL = 0xffffffffu;
  const int lane = threadIdx.x % 32;
  const long long s = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
  if (s >= nsys) return;   // whole warps only
  const int kv = kl + ku;
  const long long ldab = 2 * kl + ku + 1;
  const int rows = kl + ku + 1;
  const T* ab = ab_ + s * ab_bs;
  T* w = w_ + s * n * ldab;
  int* ipiv = ipiv_ + s * n;
  // load: w[j, kl + r] = ab[r, j]; the kl fill-in rows start at zero
  for (long long t = lane; t < n * ldab; t += 32) {
    const long long j = t / ldab;
    const long long r = t % ldab - kl;
    w[t] = r >= 0 ? ab[r * n + j] : T(0);
  }
  warp_sync();
  int info = 0;
  long long ju = 0;
  for (long long j = 0; j < n; ++j) {
    T* wj = w + j * ldab;
    const int km = (int)((n - 1 - j) < kl ? (n - 1 - j) : kl);
    R best = R(-1);
    int bi = 0;
    if (lane <= km) { best = abs1(wj[kv + lane]); bi = lane; }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      const R ob = __shfl_xor_sync(FULL, best, o);
      const int oi = __shfl_xor_sync(FULL, bi, o);
      if (ob > best || (ob == best && oi < bi)) { best = ob; bi = oi; }
    }
    const int jp = bi;
    if (lane == 0) ipiv[j] = (int)(j + jp);
    warp_sync();
    if (best != R(0)) {
      const long long reach = j + ku + jp < n - 1 ? j + ku + jp : n - 1;
      ju = ju > reach ? ju : reach;
      if (jp != 0) {
        for (long long c = j + lane; c <= ju; c += 32) {
          T* wc = w + c * ldab + kv - c;
          const T t0 = wc[j];
          wc[j] = wc[j + jp];
          wc[j + jp] = t0;
        }
        warp_sync();
      }
      T m = T(0);
      if (lane >= 1 && lane <= km) {
        m = wj[kv + lane] / wj[kv];
        wj[kv + lane] = m;
      }
      warp_sync();
      if (lane >= 1 && lane <= km) {
        for (long long c = j + 1; c <= ju; ++c) {
          T* wc = w + c * ldab + kv - c;
          wc[j + lane] = wc[j + lane] - m * wc[j];
        }
      }
      warp_sync();
    } else if (info == 0) {
      info = (int)j + 1;
    }
  }
  if (lane == 0) info_[s] = info;
  if (info) return;
  const T* b = b_ + s * b_bs;
  T* x = x_ + s * n * nrhs;
  for (long long t = lane; t < n * nrhs; t += 32) x[t] = b[t];
  warp_sync();
  for (int c = 0; c < nrhs; ++c) {
    // L^-1 P b (?gbtrs: interchange, then the column of multipliers)
    for (long long j = 0; j + 1 < n; ++j) {
      const int km = (int)((n - 1 - j) < kl ? (n - 1 - j) : kl);
      if (km == 0) continue;
      const long long p = ipiv[j];
      if (lane == 0 && p != j) {
        const T t0 = x[j * nrhs + c];
        x[j * nrhs + c] = x[p * nrhs + c];
        x[p * nrhs + c] = t0;
      }
      warp_sync();
      const T bj = x[j * nrhs + c];
      if (lane >= 1 && lane <= km)
        x[(j + lane) * nrhs + c] = x[(j + lane) * nrhs + c] - w[j * ldab + kv + lane] * bj;
      warp_sync();
    }
    // U^-1: U[i, j] = w[j, kv + i - j] for j - kv <= i <= j
    for (long long j = n - 1; j >= 0; --j) {
      if (lane == 0) x[j * nrhs + c] = x[j * nrhs + c] / w[j * ldab + kv];
      warp_sync();
      const T bj = x[j * nrhs + c];
      const long long lo = j - kv > 0 ? j - kv : 0;
      for (long long i = j - 1 - lane; i >= lo; i -= 32)
        x[i * nrhs + c] = x[i * nrhs + c] - w[j * ldab + kv + i - j] * bj;
      warp_sync();
    }
  }
  (void)rows;
}

}  // namespace gs_linalg_banded
