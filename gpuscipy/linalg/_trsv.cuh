// Triangular solves with a few right-hand sides, one launch each, and the
// row permutation of an LU factor.
//
// cuSOLVER's getrs (and cuBLAS trsm/trsv) are latency-bound for one
// right-hand side at n ~ 4096 (1.3-1.5 ms on an H200 for 67 MB of factor):
// they walk the diagonal in many launches. Here one launch solves
// M x = b, M (n x n) triangular, by blocks of BS rows:
//
//   * every block takes a ticket (atomic counter) and handles block row r =
//     ticket (forward, M lower) or nblk-1-ticket (backward, M upper), so a
//     block only ever waits for blocks that started before it (no deadlock
//     whatever the residency);
//   * for each earlier block column c it loads the BS x BS tile M(r, c) into
//     shared memory, waits for block c's flag, reads x_c and accumulates
//     M(r, c) x_c (each thread: one row, BS/Q columns, Q = 256/BS groups);
//   * it sums the Q partial sums, subtracts them from b_r, solves the
//     diagonal tile by substitution in one warp (shuffles, no barriers),
//     writes x_r, fences, and raises its flag.
//
// M is read from a stored LU/triangular factor ``a`` (column-major, lda):
// TRANS 0: M(i, j) = a[i + j lda]; 1: a[j + i lda]; 2: conj(a[j + i lda]).
// b may be gathered (b_row = b[gather[row]]) and the solution scattered
// (out[scatter[row]] = x_row); the published, unpermuted x lives in ``xs``
// (n x NRHS, column-major, ld n), which the next solve can read as its b.
//
// The block substitution is LAPACK's column-oriented order within a tile;
// across tiles the sums are regrouped (blocked), so results agree with
// LAPACK's to rounding, not bitwise.
//
// References: the decoupled look-back of Merrill & Garland, "Single-pass
// parallel prefix scan with decoupled look-back" (NVIDIA TR, 2016), applied
// to blocked forward/back substitution (Golub & Van Loan, 4th ed., 3.1).
#pragma once
#include <gpuscipy/types.cuh>

namespace gstrsv {

constexpr int THREADS = 256;

__device__ __forceinline__ float conj_v(float x) { return x; }
__device__ __forceinline__ double conj_v(double x) { return x; }
template <class R>
__device__ __forceinline__ gs::complex<R> conj_v(gs::complex<R> z) {
  return gs::complex<R>(z.re, -z.im);
}

__device__ __forceinline__ float shfl_v(float x, int src) {
  return __shfl_sync(0xffffffffu, x, src);
}
__device__ __forceinline__ double shfl_v(double x, int src) {
  return __shfl_sync(0xffffffffu, x, src);
}
template <class R>
__device__ __forceinline__ gs::complex<R> shfl_v(gs::complex<R> z, int src) {
  return gs::complex<R>(shfl_v(z.re, src), shfl_v(z.im, src));
}

// L2 loads (bypass L1): x_c was written by another block.
__device__ __forceinline__ float ld_l2(const float* p) { return __ldcg(p); }
__device__ __forceinline__ double ld_l2(const double* p) { return __ldcg(p); }
template <class R>
__device__ __forceinline__ gs::complex<R> ld_l2(const gs::complex<R>* p) {
  const R* q = reinterpret_cast<const R*>(p);
  return gs::complex<R>(__ldcg(q), __ldcg(q + 1));
}

// tile(ii, jj) = M(r0 + ii, c0 + jj), zero outside the matrix. The thread ->
// element map follows the stored layout so global reads coalesce.
template <class T, int BS, int TRANS>
__device__ __forceinline__ void load_tile(const T* __restrict__ a, long long lda, int n,
                                          int r0, int c0, T (*tile)[BS + 1]) {
  for (int e = threadIdx.x; e < BS * BS; e += THREADS) {
    const int ii = TRANS == 0 ? e % BS : e / BS;
    const int jj = TRANS == 0 ? e / BS : e % BS;
    const int row = r0 + ii, col = c0 + jj;
    T v = T(0);
    if (row < n && col < n) {
      v = TRANS == 0 ? a[row + (long long)col * lda] : a[col + (long long)row * lda];
      if (TRANS == 2) v = conj_v(v);
    }
    tile[ii][jj] = v;
  }
}

template <class T, int BS, int NRHS, bool LOWER, int TRANS, bool UNIT>
__device__ __forceinline__ void trsv_body(
    const T* __restrict__ a, long long lda, int n,
    const T* __restrict__ b, long long ldb, const int* __restrict__ gather,
    T* xs, T* __restrict__ out, long long ldo, const int* __restrict__ scatter,
    int* flags, int* ticket) {
  constexpr int Q = THREADS / BS;     // column groups per tile
  constexpr int JW = BS / Q;          // columns per group
  constexpr int RPL = BS / 32;        // rows per lane in the substitution
  __shared__ T tile[BS][BS + 1];
  __shared__ T xsh[BS][NRHS];
  __shared__ T part[Q][BS][NRHS];
  __shared__ int s_ticket;

  const int tid = threadIdx.x;
  const int nblk = (n + BS - 1) / BS;
  if (tid == 0) s_ticket = atomicAdd(ticket, 1);
  __syncthreads();
  const int t = s_ticket;
  const int r = LOWER ? t : nblk - 1 - t;
  const int r0 = r * BS;
  const int i = tid % BS, q = tid / BS;

  T acc[NRHS];
#pragma unroll
  for (int k = 0; k < NRHS; ++k) acc[k] = T(0);

  for (int s = 0; s < t; ++s) {
    const int c = LOWER ? s : nblk - 1 - s;
    const int c0 = c * BS;
    load_tile<T, BS, TRANS>(a, lda, n, r0, c0, tile);   // independent of x_c
    if (tid == 0) {
      while (*(volatile int*)(flags + c) == 0) {
      }
      __threadfence();
    }
    __syncthreads();
    for (int e = tid; e < BS * NRHS; e += THREADS) {
      const int jj = e % BS, k = e / BS, col = c0 + jj;
      xsh[jj][k] = col < n ? ld_l2(xs + col + (long long)k * n) : T(0);
    }
    __syncthreads();
#pragma unroll 8
    for (int jj = q * JW; jj < (q + 1) * JW; ++jj) {
      const T m = tile[i][jj];
#pragma unroll
      for (int k = 0; k < NRHS; ++k) acc[k] += m * xsh[jj][k];
    }
    __syncthreads();
  }
#pragma unroll
  for (int k = 0; k < NRHS; ++k) part[q][i][k] = acc[k];
  load_tile<T, BS, TRANS>(a, lda, n, r0, r0, tile);
  __syncthreads();

  if (tid < 32) {
    T v[RPL][NRHS];
#pragma unroll
    for (int u = 0; u < RPL; ++u) {
      const int ii = tid + 32 * u, row = r0 + ii;
#pragma unroll
      for (int k = 0; k < NRHS; ++k) {
        T sum = part[0][ii][k];
#pragma unroll
        for (int qq = 1; qq < Q; ++qq) sum += part[qq][ii][k];
        const T bv = row < n ? b[(gather ? gather[row] : row) + (long long)k * ldb] : T(0);
        v[u][k] = bv - sum;
      }
    }
    static_assert(RPL == 1 || RPL == 2, "BS must be 32 or 64");
#pragma unroll 1
    for (int step = 0; step < BS; ++step) {
      const int j = LOWER ? step : BS - 1 - step;
      const int owner = j % 32;
      const bool hi = RPL == 2 && j >= 32;  // which of the lane's rows is j
      const bool valid = r0 + j < n;      // padding rows solve to 0
      const T d = tile[j][j];
      T xj[NRHS];
#pragma unroll
      for (int k = 0; k < NRHS; ++k) {
        T val = hi ? v[RPL - 1][k] : v[0][k];
        if (!UNIT && valid) val = val / d;
        val = shfl_v(val, owner);
        xj[k] = valid ? val : T(0);
      }
#pragma unroll
      for (int u = 0; u < RPL; ++u) {
        const int ii = tid + 32 * u;
        if (ii == j) {
#pragma unroll
          for (int k = 0; k < NRHS; ++k) v[u][k] = xj[k];
        } else if (LOWER ? ii > j : ii < j) {
          const T m = tile[ii][j];
#pragma unroll
          for (int k = 0; k < NRHS; ++k) v[u][k] -= m * xj[k];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < RPL; ++u) {
      const int row = r0 + tid + 32 * u;
      if (row < n) {
#pragma unroll
        for (int k = 0; k < NRHS; ++k) {
          xs[row + (long long)k * n] = v[u][k];
          if (out) out[(scatter ? scatter[row] : row) + (long long)k * ldo] = v[u][k];
        }
      }
    }
    __syncwarp();
    if (tid == 0) {
      __threadfence();
      atomicExch(flags + r, 1);
    }
  }
}

}  // namespace gstrsv

// The permutation of LAPACK's 1-based swap sequence ipiv (row i swapped with
// ipiv[i] - 1, in order): (P b)[i] = b[perm[i]]. One block; the swaps are
// applied by one thread to an index array in shared memory (n <= 8192).
extern "C" __global__ void __launch_bounds__(256)
gs_lu_perm(const long long* __restrict__ ipiv, int n, int* __restrict__ perm) {
  constexpr int CHUNK = 2048;
  __shared__ int p[8192];
  __shared__ int ch[CHUNK];
  for (int i = threadIdx.x; i < n; i += blockDim.x) p[i] = i;
  for (int base = 0; base < n; base += CHUNK) {
    const int m = min(CHUNK, n - base);
    __syncthreads();
    for (int e = threadIdx.x; e < m; e += blockDim.x) ch[e] = (int)(ipiv[base + e] - 1);
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int e = 0; e < m; ++e) {
        const int i = base + e, j = ch[e];
        if ((unsigned)j < (unsigned)n && j != i) {   // a bad pivot is ignored, not written
          const int tmp = p[i];
          p[i] = p[j];
          p[j] = tmp;
        }
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) perm[i] = p[i];
}
