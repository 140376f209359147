// Levinson-Durbin solve of Toeplitz systems (gpuscipy.linalg._structured:
// solve_toeplitz; the recursion and its references are in levinson_source's
// docstring).
//
// levinson<T>: T double or gs::complex<double>. One block per right-hand
// side column (blockDim.x a power of two, <= 1024; 3 * blockDim.x values of
// dynamic shared memory) solves T x = y for the Toeplitz T[i, j] = t[i - j]
// (t[k] = c[k], t[-k] = r[k]); y and x (n, ldy) C order; work 4 n values per
// column (double-buffered forward and backward vectors); info[col] = k + 1
// when the leading (k+1) minor is singular.
#pragma once
#include <gpuscipy/core.cuh>

namespace gs_linalg_levinson {

__device__ inline bool iszero(const double& v) { return (v == 0.0); }
__device__ inline bool iszero(const gs::complex<double>& v) {
  return (v.re == 0.0 && v.im == 0.0);
}

// sum of three values over the block (blockDim.x a power of two, <= 1024)
template <class T>
__device__ inline void block_sum3(T& a, T& b, T& c, T* sh) {
  const int tid = threadIdx.x, nt = blockDim.x;
  sh[tid] = a; sh[nt + tid] = b; sh[2 * nt + tid] = c;
  __syncthreads();
  for (int s = nt / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sh[tid] = sh[tid] + sh[tid + s];
      sh[nt + tid] = sh[nt + tid] + sh[nt + tid + s];
      sh[2 * nt + tid] = sh[2 * nt + tid] + sh[2 * nt + tid + s];
    }
    __syncthreads();
  }
  a = sh[0]; b = sh[nt]; c = sh[2 * nt];
  __syncthreads();
}

template <class T>
__device__ __forceinline__ void levinson(const T* __restrict__ c, const T* __restrict__ r,
                                const T* __restrict__ y, T* __restrict__ x,
                                T* __restrict__ work, int* __restrict__ info,
                                long long n, long long ldy) {
  extern __shared__ unsigned char gs_smem[];
  T* sh = (T*)gs_smem;
  const long long col = blockIdx.x;
  const T* yc = y + col;            // y[i, col] = yc[i * ldy]
  T* xc = x + col;                  // x has the layout of y
  T* f0 = work + col * 4 * n;
  T* b0 = f0 + n;
  T* f1 = b0 + n;
  T* b1 = f1 + n;
  const int tid = threadIdx.x, nt = blockDim.x;
  if (iszero(c[0])) {
    if (tid == 0) info[col] = 1;
    return;
  }
  const T one = T(1.0);
  const T inv0 = one / c[0];
  if (tid == 0) {
    f0[0] = inv0; b0[0] = inv0; xc[0] = yc[0] * inv0;
  }
  __syncthreads();
  for (long long k = 1; k < n; ++k) {
    // errors of [f; 0], [0; b] and [x; 0] against row k / row 0
    T ef = T(0.0), eb = T(0.0), ex = T(0.0);
    for (long long i = tid; i < k; i += nt) {
      const T tk = c[k - i];        // T[k, i] = t[k - i]
      ef = ef + tk * f0[i];
      ex = ex + tk * xc[i * ldy];
      eb = eb + r[i + 1] * b0[i];   // T[0, i + 1] = t[-(i + 1)]
    }
    block_sum3(ef, eb, ex, sh);
    const T d = one - ef * eb;
    if (iszero(d)) {
      if (tid == 0) info[col] = (int)(k + 1);
      return;
    }
    const T invd = one / d;
    for (long long i = tid; i <= k; i += nt) {
      const T fi = i < k ? f0[i] : T(0.0);
      const T bm = i > 0 ? b0[i - 1] : T(0.0);
      f1[i] = (fi - ef * bm) * invd;
      b1[i] = (bm - eb * fi) * invd;
    }
    __syncthreads();
    const T g = yc[k * ldy] - ex;
    for (long long i = tid; i <= k; i += nt) {
      const T xi = i < k ? xc[i * ldy] : T(0.0);
      xc[i * ldy] = xi + g * b1[i];
    }
    __syncthreads();
    T* t0 = f0; f0 = f1; f1 = t0;
    t0 = b0; b0 = b1; b1 = t0;
  }
}

}  // namespace gs_linalg_levinson
