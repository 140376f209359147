// Small device kernels behind gpuscipy.linalg's solvers (_solve_kernels.py:
// what each computes, its grid and its references are in the docstring).
//
//   lu_perm              LAPACK row interchanges (0-based) -> the permutation
//                        and its inverse, one block per matrix
//   lu_unpack<T, O, M>   one pass over a packed (batch, n, n) LU: L, P L, U or
//                        the permutation matrix (UNPACK_* below)
//   colabs<T, R, U, ROWS> column sums of |a| (any strides), ROWS rows per
//                        thread; U: 0 the whole matrix, 1/2 Hermitian from the
//                        lower/upper triangle, 3/4 lower/upper triangular
//   gtsv<T, R, TRANS>    tridiagonal solve with partial pivoting (?gttrf +
//                        ?gttrs), one thread per (system, right-hand side);
//                        TRANS 0: A x = b, 1: A^T x = b, 2: A^H x = b
//
// T is the element type, R its real type, O the output type of lu_unpack
// (R for UNPACK_P, else T). The extern "C" entry points are rendered by
// _solve_kernels.py, which also sets the launch bounds.
#pragma once
#include <gpuscipy/types.cuh>

namespace gs_linalg_solve {

__device__ __forceinline__ float absval(float x) { return fabsf(x); }
__device__ __forceinline__ double absval(double x) { return fabs(x); }
template <class R> __device__ __forceinline__ R absval(gs::complex<R> z) { return gs::abs(z); }

// v when C is false (a reference to it), else its conjugate; a real v is
// its own conjugate (the A^H solve of a real A is the A^T solve)
template <bool C, class V>
__device__ __forceinline__ const V& conj_if(const V& v) { return v; }
template <bool C, class R>
__device__ __forceinline__ decltype(auto) conj_if(const gs::complex<R>& v) {
  if constexpr (C) return gs::complex<R>(v.re, -v.im);
  else return (v);
}

// ---------------------------------------------------------------- lu_perm
// ipiv, perm, inv: (batch, n) int32; grid = batch blocks. use_shared: the
// permutation is built in n ints of dynamic shared memory, else in perm.
__device__ __forceinline__ void lu_perm(
    const int* __restrict__ ipiv, int* __restrict__ perm, int* __restrict__ inv,
    long long n, int use_shared)
{
  extern __shared__ int gs_perm_smem[];
  const long long s = blockIdx.x;
  const int* ip = ipiv + s * n;
  int* pg = perm + s * n;
  int* iv = inv + s * n;
  int* p = use_shared ? gs_perm_smem : pg;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) p[i] = (int)i;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (long long i = 0; i < n; ++i) {
      const long long j = ip[i];
      if (j != i && j >= 0 && j < n) { const int t = p[i]; p[i] = p[j]; p[j] = t; }
    }
  }
  __syncthreads();
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    const int r = p[i];
    if (use_shared) pg[i] = r;
    iv[r] = (int)i;
  }
}

// -------------------------------------------------------------- lu_unpack
// UNPACK_L: unit lower; UNPACK_PL: unit lower with rows gathered (out[s, i]
// = L[s, rows[s, i]]); UNPACK_U: upper; UNPACK_P: the permutation matrix
// out[s, i, j] = (rows[s, i] == j). Grid-stride loop over total elements.
enum { UNPACK_L = 0, UNPACK_PL = 1, UNPACK_U = 2, UNPACK_P = 3 };

template <class T, class O, int MODE>
__device__ __forceinline__ void lu_unpack(
    const T* __restrict__ lu, const int* __restrict__ rows, O* __restrict__ out,
    long long n, long long total)
{
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {
    const long long j = t % n;
    const long long q = t / n;
    const long long i = q % n;
    const long long s = q / n;
    (void)s; (void)lu; (void)rows;
    if constexpr (MODE == UNPACK_L) {
      out[t] = i > j ? lu[t] : (i == j ? O(1) : O(0));
    } else if constexpr (MODE == UNPACK_PL) {
      const long long r = rows[s * n + i];
      out[t] = r > j ? lu[(s * n + r) * n + j] : (r == j ? O(1) : O(0));
    } else if constexpr (MODE == UNPACK_U) {
      out[t] = i <= j ? lu[t] : O(0);
    } else {
      static_assert(MODE == UNPACK_P, "unknown unpack mode");
      out[t] = (long long)rows[s * n + i] == j ? O(1) : O(0);
    }
  }
}

// ----------------------------------------------------------------- colabs
// a: (n, n), strides rs, cs (elements); out: (n,) real, zeroed. Grid
// (ceil(n / blockDim.x), ceil(n / ROWS)): thread j of block (., y) adds the
// sum of |a[i, j]| over rows y * ROWS .. + ROWS into out[j].
template <class T, class R, int UPLO, int ROWS>
__device__ __forceinline__ void colabs(
    const T* __restrict__ a, long long rs, long long cs, long long n, R* __restrict__ out)
{
  static_assert(UPLO >= 0 && UPLO <= 4, "uplo must be 0, 1, 2, 3 or 4");
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const long long i0 = (long long)blockIdx.y * ROWS;
  const long long i1 = i0 + ROWS < n ? i0 + ROWS : n;
  R acc = R(0);
  for (long long i = i0; i < i1; ++i) {
    if constexpr (UPLO == 0) {
      acc += absval(a[i * rs + j * cs]);
    } else if constexpr (UPLO == 1) {   // Hermitian: element (i, j) lives at (max, min)
      acc += absval((i >= j ? a[i * rs + j * cs] : a[j * rs + i * cs]));
    } else if constexpr (UPLO == 2) {
      acc += absval((i <= j ? a[i * rs + j * cs] : a[j * rs + i * cs]));
    } else if constexpr (UPLO == 3) {   // lower triangular: the strict upper part is zero
      acc += absval((i >= j ? a[i * rs + j * cs] : T(0)));
    } else {
      acc += absval((i <= j ? a[i * rs + j * cs] : T(0)));
    }
  }
  atomicAdd(out + j, acc);
}

// ------------------------------------------------------------------- gtsv
// dl, d, du: the sub/main/super diagonals (length n each, batch stride d_bs,
// 0 broadcasts; dl[i] = a[i+1, i], du[i] = a[i, i+1], the last entries
// unused); b (nsys, n, nrhs) C order, batch stride b_bs; x the same shape,
// contiguous; work (nsys * nrhs, 5, n) scratch; info (nsys,) int32, written
// by the rhs-0 thread (0, or the 1-based index of an exact zero pivot).
template <class T, class R, int TRANS>
__device__ __forceinline__ void gtsv(
    const T* __restrict__ dl_, const T* __restrict__ d_, const T* __restrict__ du_,
    long long d_bs, const T* __restrict__ b, long long b_bs, int nrhs,
    T* __restrict__ x, T* __restrict__ work, int* __restrict__ info,
    long long n, long long nsys)
{
  static_assert(TRANS >= 0 && TRANS <= 2, "trans must be 0, 1 or 2");
  constexpr bool CONJ = TRANS == 2;   // A^H: conjugate the factors
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nsys * nrhs) return;
  const long long s = t / nrhs;
  const int c = (int)(t % nrhs);
  const T* dl = dl_ + s * d_bs;
  const T* d = d_ + s * d_bs;
  const T* du = du_ + s * d_bs;
  // factor: P A = L U, U with two superdiagonals (u0, u1, u2), L unit lower
  // bidiagonal with multipliers l[i]; sw[i] = 1 where step i swapped rows
  // i and i+1 (?gttrf's ipiv). Each thread factors its own
  // copy (nrhs is small in practice; the factor is O(n)).
  T* u0 = work + t * 5 * n;
  T* u1 = u0 + n;
  T* u2 = u1 + n;
  T* l = u2 + n;
  T* sw = l + n;
  for (long long i = 0; i < n; ++i) {
    u0[i] = d[i];
    u1[i] = i + 1 < n ? du[i] : T(0);
    u2[i] = T(0);
  }
  for (long long i = 0; i < n - 1; ++i) {
    const T sub = dl[i];
    const R ap = absval(u0[i]), as = absval(sub);
    if (ap >= as) {   // no interchange (?gttrf's test)
      const T f = ap != R(0) ? sub / u0[i] : T(0);
      l[i] = f;
      u0[i + 1] = u0[i + 1] - f * u1[i];
      sw[i] = T(0);
    } else {   // interchange rows i and i+1
      const T f = u0[i] / sub;
      l[i] = f;
      u0[i] = sub;
      const T tmp = u1[i];
      u1[i] = u0[i + 1];
      u0[i + 1] = tmp - f * u0[i + 1];
      if (i + 1 < n - 1) {
        u2[i] = u1[i + 1];
        u1[i + 1] = -f * u1[i + 1];
      }
      sw[i] = T(1);
    }
  }
  int bad = 0;
  for (long long i = 0; i < n; ++i)
    if (absval(u0[i]) == R(0)) { bad = (int)i + 1; break; }
  if (c == 0) info[s] = bad;
  if (bad) return;
  const T* bs = b + s * b_bs;
  T* xs = x + s * n * nrhs;
  for (long long i = 0; i < n; ++i) xs[i * nrhs + c] = bs[i * nrhs + c];
  if constexpr (TRANS == 0) {
    // L^-1 P b
    for (long long i = 0; i < n - 1; ++i) {
      T bi = xs[i * nrhs + c], bn = xs[(i + 1) * nrhs + c];
      if (absval(sw[i]) != R(0)) { const T tmp = bi; bi = bn; bn = tmp; }
      xs[i * nrhs + c] = bi;
      xs[(i + 1) * nrhs + c] = bn - l[i] * bi;
    }
    // U^-1
    for (long long i = n - 1; i >= 0; --i) {
      T v = xs[i * nrhs + c];
      if (i + 1 < n) v = v - u1[i] * xs[(i + 1) * nrhs + c];
      if (i + 2 < n) v = v - u2[i] * xs[(i + 2) * nrhs + c];
      xs[i * nrhs + c] = v / u0[i];
    }
  } else {
    // A^T = U^T L^T P (P symmetric per step): solve U^T y = b, then L^T, P
    for (long long i = 0; i < n; ++i) {
      T v = xs[i * nrhs + c];
      if (i >= 1) v = v - conj_if<CONJ>(u1[i - 1]) * xs[(i - 1) * nrhs + c];
      if (i >= 2) v = v - conj_if<CONJ>(u2[i - 2]) * xs[(i - 2) * nrhs + c];
      xs[i * nrhs + c] = v / conj_if<CONJ>(u0[i]);
    }
    for (long long i = n - 2; i >= 0; --i) {
      T bi = xs[i * nrhs + c] - conj_if<CONJ>(l[i]) * xs[(i + 1) * nrhs + c];
      T bn = xs[(i + 1) * nrhs + c];
      if (absval(sw[i]) != R(0)) { const T tmp = bi; bi = bn; bn = tmp; }
      xs[i * nrhs + c] = bi;
      xs[(i + 1) * nrhs + c] = bn;
    }
  }
}

}  // namespace gs_linalg_solve
