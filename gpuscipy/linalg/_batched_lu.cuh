// Batched dense LU (partial pivoting) and Cholesky for small matrices:
// one warp per system, the matrix held in registers, one row per lane.
//
// LU: at step k the lanes whose row has not been a pivot yet ("active":
// current position > k) hold the trailing submatrix. The pivot is the active
// row with the largest |a_ik| (|re|+|im| for complex, as LAPACK's i?amax),
// ties going to the smallest current position, so the pivots and the LAPACK
// ipiv (``ipiv[k]`` = the position swapped with k) are LAPACK's. Rows are
// never moved: each lane keeps its current position ``pos`` and a swap is two
// integer updates. After the factorization the lane holding row ``i`` of A
// holds row ``pos`` of the packed L\U of P A = L U.
//
// Solves use the registers directly: A x = b by forward/back substitution
// with the pivot row broadcast by shuffles; A^T x = b and A^H x = b with warp
// sums over the column held across lanes. The reciprocal condition number in
// the 1-norm is estimated as LAPACK's ?gecon does (Hager 1984; Higham 1988,
// "FORTRAN codes for estimating the one-norm of a real or complex matrix",
// ACM TOMS 14: the ?lacn2 iteration plus the alternating-sign vector).
//
// Cholesky: lane i holds row i of the lower triangle; right-looking
// update (Golub & Van Loan, Matrix Computations, alg. 4.2.1).
//
// Matrices are read through a per-warp shared-memory tile (coalesced global
// reads, padded rows), row-major (C order), with a batch stride in elements
// (0 broadcasts one matrix over the batch).
#pragma once
#include <gpuscipy/types.cuh>

namespace gs_linalg_batched {

#define GS_FULL_MASK 0xffffffffu

template <class T> struct scalar_traits {
  typedef T real;
  static __device__ __forceinline__ T conj(T x) { return x; }
  static __device__ __forceinline__ real abs1(T x) { return fabs(x); }
  static __device__ __forceinline__ real abs(T x) { return fabs(x); }
  static __device__ __forceinline__ real re(T x) { return x; }
  static __device__ __forceinline__ T from_real(real x) { return x; }
  static __device__ __forceinline__ T shfl(T x, int src) { return __shfl_sync(GS_FULL_MASK, x, src); }
  static __device__ __forceinline__ T shfl_xor(T x, int m) { return __shfl_xor_sync(GS_FULL_MASK, x, m); }
  static __device__ __forceinline__ T sign(T x) { return x >= real(0) ? real(1) : real(-1); }
};

template <class R> struct scalar_traits<gs::complex<R>> {
  typedef gs::complex<R> T;
  typedef R real;
  static __device__ __forceinline__ T conj(T x) { return T(x.real(), -x.imag()); }
  static __device__ __forceinline__ real abs1(T x) { return fabs(x.real()) + fabs(x.imag()); }
  static __device__ __forceinline__ real abs(T x) { return hypot(x.real(), x.imag()); }
  static __device__ __forceinline__ real re(T x) { return x.real(); }
  static __device__ __forceinline__ T from_real(real x) { return T(x, real(0)); }
  static __device__ __forceinline__ T shfl(T x, int src) {
    return T(__shfl_sync(GS_FULL_MASK, x.real(), src), __shfl_sync(GS_FULL_MASK, x.imag(), src));
  }
  static __device__ __forceinline__ T shfl_xor(T x, int m) {
    return T(__shfl_xor_sync(GS_FULL_MASK, x.real(), m),
             __shfl_xor_sync(GS_FULL_MASK, x.imag(), m));
  }
  static __device__ __forceinline__ T sign(T x) {
    real a = abs(x);
    return a == real(0) ? T(real(1), real(0)) : T(x.real() / a, x.imag() / a);
  }
};

template <class T> __device__ __forceinline__ T warp_sum(T v) {
  typedef scalar_traits<T> S;
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v = v + S::shfl_xor(v, m);
  return v;
}

template <class R> __device__ __forceinline__ R warp_max(R v) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v = fmax(v, __shfl_xor_sync(GS_FULL_MASK, v, m));
  return v;
}

// Load one N x N matrix (row-major) into the warp's shared tile (row pitch
// N + 1), coalesced, then each lane < N takes its row into registers.
template <class T, int N>
__device__ __forceinline__ void load_rows(const T* __restrict__ a, T* tile, int lane, T (&r)[N]) {
  for (int e = lane; e < N * N; e += 32) tile[(e / N) * (N + 1) + (e % N)] = a[e];
  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) r[j] = lane < N ? tile[lane * (N + 1) + j] : T(0);
  __syncwarp();
}

// Each lane < N takes column ``lane`` (conjugated when CONJ) as its row:
// the rows of A^T (or A^H).
template <class T, int N, bool CONJ>
__device__ __forceinline__ void load_cols(const T* __restrict__ a, T* tile, int lane, T (&r)[N]) {
  typedef scalar_traits<T> S;
  for (int e = lane; e < N * N; e += 32) tile[(e / N) * (N + 1) + (e % N)] = a[e];
  __syncwarp();
#pragma unroll
  for (int j = 0; j < N; ++j) {
    T v = lane < N ? tile[j * (N + 1) + lane] : T(0);
    r[j] = CONJ ? S::conj(v) : v;
  }
  __syncwarp();
}

// In-register LU with partial pivoting. Returns LAPACK's info (0, or the
// 1-based index of the first exactly-zero pivot). ``pos`` ends as the row of
// the packed factor this lane holds; ``my_ipiv`` (lane k) is LAPACK's 0-based
// ipiv[k].
template <class T, int N>
__device__ __forceinline__ int lu_factor_warp(T (&r)[N], int lane, int& pos, int& my_ipiv) {
  typedef scalar_traits<T> S;
  typedef typename S::real R;
  int info = 0;
  pos = lane;
  my_ipiv = lane;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    R key = R(-1);
    if (lane < N && pos >= k) {
      key = S::abs1(r[k]);
      if (key != key) key = R(1) / R(0);  // NaN: a total order keeps lanes agreeing
    }
    int kp = pos;
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) {
      R ok = __shfl_xor_sync(GS_FULL_MASK, key, m);
      int op = __shfl_xor_sync(GS_FULL_MASK, kp, m);
      if (ok > key || (ok == key && op < kp)) { key = ok; kp = op; }
    }
    const int p = __ffs(__ballot_sync(GS_FULL_MASK, pos == kp)) - 1;  // pivot lane
    const T piv = S::shfl(r[k], p);
    const bool zero = (piv == T(0));
    if (zero && info == 0) info = k + 1;
    if (lane == k) my_ipiv = kp;
    if (pos == k) pos = kp;   // the row at position k moves to the pivot's place
    if (lane == p) pos = k;
    const bool active = lane < N && pos > k;
    T l = r[k];
    if (active && !zero) { l = r[k] / piv; r[k] = l; }
#pragma unroll
    for (int j = k + 1; j < N; ++j) {
      const T u = S::shfl(r[j], p);
      if (active) r[j] = r[j] - l * u;
    }
  }
  return info;
}

// x = A^-1 b. In: lane i holds b_i. Out: lane with pos k holds x_k.
template <class T, int N>
__device__ __forceinline__ T lu_solve_n(const T (&r)[N], int lane, int pos, T v) {
  typedef scalar_traits<T> S;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const int p = __ffs(__ballot_sync(GS_FULL_MASK, pos == k)) - 1;
    const T y = S::shfl(v, p);
    if (lane < N && pos > k) v = v - r[k] * y;
  }
#pragma unroll
  for (int k = N - 1; k >= 0; --k) {
    const int p = __ffs(__ballot_sync(GS_FULL_MASK, pos == k)) - 1;
    T q = v;
    if (pos == k) q = v / r[k];
    const T x = S::shfl(q, p);
    if (pos == k) v = x;
    else if (lane < N && pos < k) v = v - r[k] * x;
  }
  return v;
}

// z = A^-T c (CONJ: A^-H c). In: lane with pos k holds c_k. Out: lane i holds z_i.
template <class T, int N, bool CONJ>
__device__ __forceinline__ T lu_solve_t(const T (&r)[N], int lane, int pos, T v) {
  typedef scalar_traits<T> S;
#pragma unroll
  for (int k = 0; k < N; ++k) {       // U^T w = c
    const T ukk = CONJ ? S::conj(r[k]) : r[k];
    const T t = (lane < N && pos < k) ? ukk * v : T(0);
    const T s = warp_sum(t);
    if (pos == k) v = (v - s) / ukk;
  }
#pragma unroll
  for (int k = N - 1; k >= 0; --k) {  // L^T v = w (unit diagonal)
    const T lk = CONJ ? S::conj(r[k]) : r[k];
    const T t = (lane < N && pos > k) ? lk * v : T(0);
    const T s = warp_sum(t);
    if (pos == k) v = v - s;
  }
  return v;
}

// 1-norm reciprocal condition number from the factors (LAPACK ?gecon's
// estimate of ||A^-1||_1 by ?lacn2, all lanes agree on the result).
template <class T, int N>
__device__ __forceinline__ typename scalar_traits<T>::real
lu_rcond(const T (&r)[N], int lane, int pos, typename scalar_traits<T>::real anorm) {
  typedef scalar_traits<T> S;
  typedef typename S::real R;
  if (anorm == R(0)) return R(0);
  const bool live = lane < N;
  // One call site per solve (a small state machine), so the fully unrolled
  // substitutions are instantiated once each.
  T x = live ? S::from_real(R(1) / R(N)) : T(0);   // natural order
  R est = R(0);
  int jlast = -1;
  bool alt = false;
#pragma unroll 1
  for (int it = 0; it < 8; ++it) {
    const T y = lu_solve_n<T, N>(r, lane, pos, x);   // pivot order
    const R e = warp_sum(live ? S::abs(y) : R(0));
    if (alt) {   // alternating-sign vector (Higham 1988)
      const R e3 = R(2) * e / R(3 * N);
      if (e3 > est) est = e3;
      break;
    }
    bool done = false;
    if (it > 0 && !(e > est)) done = true;
    else est = e;
    if (!done && it < 5) {
      const T z = lu_solve_t<T, N, true>(r, lane, pos, live ? S::sign(y) : T(0));
      R best = live ? S::abs(z) : R(-1);
      int bj = lane;
#pragma unroll
      for (int m = 16; m > 0; m >>= 1) {
        R ob = __shfl_xor_sync(GS_FULL_MASK, best, m);
        int oj = __shfl_xor_sync(GS_FULL_MASK, bj, m);
        if (ob > best || (ob == best && oj < bj)) { best = ob; bj = oj; }
      }
      // z^T x with x = 1/n (first pass) or e_jlast
      const R zsum = warp_sum(live ? S::re(z) : R(0));
      const R zj = S::re(S::shfl(z, jlast < 0 ? 0 : jlast));
      const R ztx = it == 0 ? zsum / R(N) : zj;
      if (!(best > ztx) || bj == jlast) {
        done = true;
      } else {
        jlast = bj;
        x = (lane == bj) ? S::from_real(R(1)) : T(0);
      }
    } else {
      done = true;
    }
    if (done) {
      if (N == 1) break;
      alt = true;
      const R sg = (lane & 1) ? R(-1) : R(1);
      x = live ? S::from_real(sg * (R(1) + R(lane) / R(N > 1 ? N - 1 : 1))) : T(0);
    }
  }
  if (est != est) return est;
  if (est == R(0)) return R(0);
  return (R(1) / est) / anorm;
}


// ---------------------------------------------------------------------------
// Variant 2 (GPUSCIPY_BATCHED_LU=v2). Same factorization (pivots, ipiv and
// packed factor equal v1's), but:
//  * the pivot search is three warp reductions (redux.sync, sm_80+) instead
//    of a 5-level shuffle butterfly on (key, position) pairs;
//  * after the factorization the packed factor goes to the warp's shared
//    tile (row k = row k of L\U) with the lane of each position in a small
//    int table, so the row registers die and every solve is in broadcast
//    form: one shuffle per step for A x = b AND for A^T x = b (v1 needed a
//    5-shuffle warp sum per step for the transposed solves);
//  * the 1-norm of A is column sums over the tile (no warp sums);
//  * the condition estimate stops after the first Hager step (one solve
//    with A, one with A^H) when its lower bound max(||A^-1 x0||_1,
//    ||A^-H sign(y)||_inf) of ||A^-1||_1 already gives rcond >= 1e3 eps;
//    else it runs v1's full state machine (see lu_rcond_v2).

// LAPACK's pivot among the active lanes: the largest key (NaN counted as
// inf), ties to the smallest position. Returns that position.
template <class R>
__device__ __forceinline__ int pivot_pos_v2(R key, bool act, int pos) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned hi, lo;
  if (sizeof(R) == 8) {
    const unsigned long long bits = (unsigned long long)__double_as_longlong((double)key);
    hi = (unsigned)(bits >> 32);
    lo = (unsigned)bits;
  } else {
    hi = __float_as_uint((float)key);
    lo = 0u;
  }
  // key >= 0 here, so its bit pattern orders like the value; the top bit
  // puts every active lane above the inactive ones (0).
  hi = act ? (hi | 0x80000000u) : 0u;
  lo = act ? lo : 0u;
  const unsigned m1 = __reduce_max_sync(GS_FULL_MASK, hi);
  const unsigned m2 = __reduce_max_sync(GS_FULL_MASK, hi == m1 ? lo : 0u);
  const bool tied = hi == m1 && lo == m2;
  return (int)__reduce_min_sync(GS_FULL_MASK, tied ? (unsigned)pos : 0xffffffffu);
#else
  R k2 = act ? key : R(-1);
  int kp = pos;
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
    R ok = __shfl_xor_sync(GS_FULL_MASK, k2, m);
    int op = __shfl_xor_sync(GS_FULL_MASK, kp, m);
    if (ok > k2 || (ok == k2 && op < kp)) { k2 = ok; kp = op; }
  }
  return kp;
#endif
}

template <class T, int N>
__device__ __forceinline__ int lu_factor_warp_v2(T (&r)[N], int lane, int& pos, int& my_ipiv) {
  typedef scalar_traits<T> S;
  typedef typename S::real R;
  int info = 0;
  pos = lane;
  my_ipiv = lane;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const bool cand = lane < N && pos >= k;
    R key = S::abs1(r[k]);
    if (key != key) key = R(1) / R(0);
    const int kp = pivot_pos_v2<R>(key, cand, pos);
    const int p = __ffs(__ballot_sync(GS_FULL_MASK, pos == kp)) - 1;  // pivot lane
    const T piv = S::shfl(r[k], p);
    const bool zero = (piv == T(0));
    if (zero && info == 0) info = k + 1;
    if (lane == k) my_ipiv = kp;
    if (pos == k) pos = kp;
    if (lane == p) pos = k;
    const bool active = lane < N && pos > k;
    T l = r[k];
    if (active && !zero) { l = r[k] / piv; r[k] = l; }
#pragma unroll
    for (int j = k + 1; j < N; ++j) {
      const T u = S::shfl(r[j], p);
      if (active) r[j] = r[j] - l * u;
    }
  }
  return info;
}

// Solves on the packed factor in shared memory: f[k * (N + 1) + j] is entry
// (k, j) of L\U, lane_of[k] the lane whose position is k. Lane i works on
// index pos_i throughout (as in v1). RECIP: divide by the pivots through a
// reciprocal each lane takes once (the condition estimator only).
template <class T, int N, bool RECIP>
__device__ __forceinline__ T lu_solve_n_v2(const T* f, const int* lane_of, int lane, int pos, T v) {
  typedef scalar_traits<T> S;
  const bool live = lane < N;
  const int pr = live ? pos : 0;
  const T dg = f[pr * (N + 1) + pr];
  const T rd = RECIP ? S::from_real(typename S::real(1)) / dg : dg;
#pragma unroll
  for (int k = 0; k < N; ++k) {       // L y = P b
    const T y = S::shfl(v, lane_of[k]);
    if (live && pos > k) v = v - f[pr * (N + 1) + k] * y;
  }
#pragma unroll
  for (int k = N - 1; k >= 0; --k) {  // U x = y
    const T q = RECIP ? v * rd : v / dg;
    const T xk = S::shfl(q, lane_of[k]);
    if (pos == k) v = xk;
    else if (live && pos < k) v = v - f[pr * (N + 1) + k] * xk;
  }
  return v;
}

// A^T z = c (CONJ: A^H). In: lane with pos k holds c_k. Out: lane i holds z_i.
template <class T, int N, bool CONJ, bool RECIP>
__device__ __forceinline__ T lu_solve_t_v2(const T* f, const int* lane_of, int lane, int pos, T v) {
  typedef scalar_traits<T> S;
  const bool live = lane < N;
  const int pr = live ? pos : 0;
  const T d0 = f[pr * (N + 1) + pr];
  const T dg = CONJ ? S::conj(d0) : d0;
  const T rd = RECIP ? S::from_real(typename S::real(1)) / dg : dg;
#pragma unroll
  for (int k = 0; k < N; ++k) {       // U^T w = c: w_k final, then eliminated
    const T q = RECIP ? v * rd : v / dg;
    const T wk = S::shfl(q, lane_of[k]);
    if (pos == k) v = wk;
    else if (live && pos > k) {
      const T u = f[k * (N + 1) + pr];
      v = v - (CONJ ? S::conj(u) : u) * wk;
    }
  }
#pragma unroll
  for (int k = N - 1; k >= 0; --k) {  // L^T v = w (unit diagonal)
    const T vk = S::shfl(v, lane_of[k]);
    if (live && pos < k) {
      const T l = f[k * (N + 1) + pr];
      v = v - (CONJ ? S::conj(l) : l) * vk;
    }
  }
  return v;
}

// v1's estimator (LAPACK ?gecon / ?lacn2) on the shared factor, with an
// early exit after the first Hager step. With x0 = (1/n, ..., 1/n),
// y = A^-1 x0 and z = A^-H sign(y): est1 = ||y||_1 and ||z||_inf are lower
// bounds of ||A^-1||_1 (||z||_inf <= ||A^-1 e_j||_1 by convexity), and v1's
// final estimate is >= both (it keeps the maximum, and its second step
// evaluates ||A^-1 e_j||_1 at j = argmax |z_j| whenever |z_j| > z^H x0).
// So rcond_s = 1 / (anorm * max(est1, ||z||_inf)) >= v1's rcond. When
// rcond_s >= 1e3 eps it is returned (the caller's rcond < eps test then
// says "no warning"); otherwise the full iteration runs and the result is
// v1's (up to rounding).
template <class T, int N>
__device__ __forceinline__ typename scalar_traits<T>::real
lu_rcond_v2(const T* f, const int* lane_of, int lane, int pos,
            typename scalar_traits<T>::real anorm) {
  typedef scalar_traits<T> S;
  typedef typename S::real R;
  if (anorm == R(0)) return R(0);
  const R screen = R(1e3) * (sizeof(R) == 8 ? R(2.220446049250313e-16) : R(1.1920929e-07));
  const bool live = lane < N;
  T x = live ? S::from_real(R(1) / R(N)) : T(0);
  R est = R(0);
  int jlast = -1;
  bool alt = false;
#pragma unroll 1
  for (int it = 0; it < 8; ++it) {
    const T y = lu_solve_n_v2<T, N, true>(f, lane_of, lane, pos, x);
    const R e = warp_sum(live ? S::abs(y) : R(0));
    if (alt) {
      const R e3 = R(2) * e / R(3 * N);
      if (e3 > est) est = e3;
      break;
    }
    bool done = false;
    if (it > 0 && !(e > est)) done = true;
    else est = e;
    if (!done && it < 5) {
      const T z = lu_solve_t_v2<T, N, true, true>(f, lane_of, lane, pos, live ? S::sign(y) : T(0));
      R best = live ? S::abs(z) : R(-1);
      int bj = lane;
#pragma unroll
      for (int m = 16; m > 0; m >>= 1) {
        R ob = __shfl_xor_sync(GS_FULL_MASK, best, m);
        int oj = __shfl_xor_sync(GS_FULL_MASK, bj, m);
        if (ob > best || (ob == best && oj < bj)) { best = ob; bj = oj; }
      }
      if (it == 0) {   // the screen
        const R es = best > est ? best : est;
        if (es == es && es > R(0)) {
          const R rs = (R(1) / es) / anorm;
          if (rs >= screen) return rs;
        }
      }
      const R zsum = warp_sum(live ? S::re(z) : R(0));
      const R zj = S::re(S::shfl(z, jlast < 0 ? 0 : jlast));
      const R ztx = it == 0 ? zsum / R(N) : zj;
      if (!(best > ztx) || bj == jlast) {
        done = true;
      } else {
        jlast = bj;
        x = (lane == bj) ? S::from_real(R(1)) : T(0);
      }
    } else {
      done = true;
    }
    if (done) {
      if (N == 1) break;
      alt = true;
      const R sg = (lane & 1) ? R(-1) : R(1);
      x = live ? S::from_real(sg * (R(1) + R(lane) / R(N > 1 ? N - 1 : 1))) : T(0);
    }
  }
  if (est != est) return est;
  if (est == R(0)) return R(0);
  return (R(1) / est) / anorm;
}

}  // namespace gs_linalg_batched

// ---------------------------------------------------------------------------
// LU kernel. Flags (template): SOLVE (b given), INV (identity right-hand
// side), TRANS (0: A x = b, 1: A^T x = b, 2: A^H x = b), WANT_LU (packed
// factor + 0-based ipiv), WANT_DET, WANT_RCOND.
//   a: (batch, N, N) row-major, a_bs elements between matrices (0: broadcast)
//   b: (batch, N, nrhs) row-major, b_bs elements between systems
//   x: (batch, N, nrhs) row-major contiguous (also for INV: nrhs = N)
//   lu: (batch, N, N) row-major; ipiv: (batch, N) int32; det: (batch,)
//   info: (batch,) int32; rcond: (batch,) real
template <class T, int N, int WARPS, bool SOLVE, bool INV, int TRANS, bool WANT_LU,
          bool WANT_DET, bool WANT_RCOND>
__device__ __forceinline__ void batched_lu_body(
    const T* __restrict__ a, long long a_bs, const T* __restrict__ b, long long b_bs,
    int nrhs, T* __restrict__ x, T* __restrict__ lu, int* __restrict__ ipiv,
    T* __restrict__ det, int* __restrict__ info,
    typename gs_linalg_batched::scalar_traits<T>::real* __restrict__ rcond, long long batch) {
  using namespace gs_linalg_batched;
  typedef scalar_traits<T> S;
  typedef typename S::real R;
  extern __shared__ __align__(16) unsigned char gs_smem[];
  T* tile = reinterpret_cast<T*>(gs_smem) + (threadIdx.x / 32) * (N * (N + 1));
  const int lane = threadIdx.x % 32;
  const long long sys = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
  if (sys >= batch) return;   // whole warps only: blockDim.x = 32 * WARPS
  T r[N];
  load_rows<T, N>(a + sys * a_bs, tile, lane, r);
  R anorm = R(0);
  if (WANT_RCOND) {   // max column sum of |a| from the (still loaded) tile rows
    R cs = R(0);
#pragma unroll
    for (int j = 0; j < N; ++j) {
      R v = warp_sum(lane < N ? S::abs(r[j]) : R(0));
      if (lane == j) cs = v;
    }
    anorm = warp_max(lane < N ? cs : R(0));
    if (cs != cs) anorm = cs;
    anorm = __shfl_sync(GS_FULL_MASK, anorm, 0);
  }
  int pos, my_ipiv;
  const int inf = lu_factor_warp<T, N>(r, lane, pos, my_ipiv);
  if (lane == 0) info[sys] = inf;
  if (WANT_LU) {
    if (lane < N) {
      T* dst = lu + sys * (long long)(N * N) + (long long)pos * N;
#pragma unroll
      for (int j = 0; j < N; ++j) dst[j] = r[j];
      ipiv[sys * N + lane] = my_ipiv;
    }
  }
  if (WANT_DET) {
    // product of U's diagonal (lane with pos k holds u_kk at r[k]) and the
    // sign of the row interchanges
    T d = S::from_real(R(1));
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const int p = __ffs(__ballot_sync(GS_FULL_MASK, pos == k)) - 1;
      d = d * S::shfl(r[k], p);
    }
    const unsigned swaps = __ballot_sync(GS_FULL_MASK, lane < N && my_ipiv != lane);
    if (__popc(swaps) & 1) d = -d;
    if (lane == 0) det[sys] = d;
  }
  if (WANT_RCOND) {
    R rc = inf ? R(0) : lu_rcond<T, N>(r, lane, pos, anorm);
    if (lane == 0) rcond[sys] = rc;
  }
  if (SOLVE || INV) {
    if (inf) return;   // singular: the caller raises, x is not read
    const int ncol = INV ? N : nrhs;
    const T* bs = SOLVE ? b + sys * b_bs : nullptr;
    T* xs = x + sys * (long long)N * ncol;
    for (int c = 0; c < ncol; ++c) {
      if (TRANS == 0) {
        T v = T(0);
        if (lane < N) v = INV ? (lane == c ? S::from_real(R(1)) : T(0)) : bs[(long long)lane * nrhs + c];
        v = lu_solve_n<T, N>(r, lane, pos, v);
        if (lane < N) xs[(long long)pos * ncol + c] = v;
      } else {
        T v = T(0);
        if (lane < N) v = INV ? (pos == c ? S::from_real(R(1)) : T(0)) : bs[(long long)pos * nrhs + c];
        v = lu_solve_t<T, N, TRANS == 2>(r, lane, pos, v);
        if (lane < N) xs[(long long)lane * ncol + c] = v;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// LU kernel, variant 2 (same arguments and flags as batched_lu_body). Shared
// memory: WARPS tiles of N * (N + 1) T, then WARPS tables of 32 int.
template <class T, int N, int WARPS, bool SOLVE, bool INV, int TRANS, bool WANT_LU,
          bool WANT_DET, bool WANT_RCOND>
__device__ __forceinline__ void batched_lu_body_v2(
    const T* __restrict__ a, long long a_bs, const T* __restrict__ b, long long b_bs,
    int nrhs, T* __restrict__ x, T* __restrict__ lu, int* __restrict__ ipiv,
    T* __restrict__ det, int* __restrict__ info,
    typename gs_linalg_batched::scalar_traits<T>::real* __restrict__ rcond, long long batch) {
  using namespace gs_linalg_batched;
  typedef scalar_traits<T> S;
  typedef typename S::real R;
  extern __shared__ __align__(16) unsigned char gs_smem[];
  const int warp = threadIdx.x / 32;
  T* tile = reinterpret_cast<T*>(gs_smem) + warp * (N * (N + 1));
  int* lane_of = reinterpret_cast<int*>(gs_smem + sizeof(T) * WARPS * (N * (N + 1))) + warp * 32;
  const int lane = threadIdx.x % 32;
  const long long sys = (long long)blockIdx.x * WARPS + warp;
  if (sys >= batch) return;   // whole warps only: blockDim.x = 32 * WARPS
  int pos, my_ipiv, inf;
  R anorm = R(0);
  {
    T r[N];
    load_rows<T, N>(a + sys * a_bs, tile, lane, r);
    inf = lu_factor_warp_v2<T, N>(r, lane, pos, my_ipiv);
    if (WANT_RCOND) {   // column sums of |a| from the tile (still A)
      R cs = R(0);
      if (lane < N) {
#pragma unroll 8
        for (int i = 0; i < N; ++i) cs += S::abs(tile[i * (N + 1) + lane]);
      }
      const bool nan = __any_sync(GS_FULL_MASK, cs != cs);
      anorm = warp_max(cs);
      if (nan) anorm = R(0) / R(0) + anorm;   // NaN
    }
    __syncwarp();
    if (lane < N) {
#pragma unroll
      for (int j = 0; j < N; ++j) tile[pos * (N + 1) + j] = r[j];
      lane_of[pos] = lane;
    }
    __syncwarp();
  }
  if (lane == 0) info[sys] = inf;
  if (WANT_LU) {
    T* dst = lu + sys * (long long)(N * N);
    for (int e = lane; e < N * N; e += 32) dst[e] = tile[(e / N) * (N + 1) + (e % N)];
    if (lane < N) ipiv[sys * N + lane] = my_ipiv;
  }
  if (WANT_DET) {   // v1's order: u_00 u_11 ... then the interchange sign
    T d = S::from_real(R(1));
#pragma unroll
    for (int k = 0; k < N; ++k) d = d * tile[k * (N + 1) + k];
    const unsigned swaps = __ballot_sync(GS_FULL_MASK, lane < N && my_ipiv != lane);
    if (__popc(swaps) & 1) d = -d;
    if (lane == 0) det[sys] = d;
  }
  if (WANT_RCOND) {
    R rc = inf ? R(0) : lu_rcond_v2<T, N>(tile, lane_of, lane, pos, anorm);
    if (lane == 0) rcond[sys] = rc;
  }
  if (SOLVE || INV) {
    if (inf) return;
    const int ncol = INV ? N : nrhs;
    const T* bs = SOLVE ? b + sys * b_bs : nullptr;
    T* xs = x + sys * (long long)N * ncol;
    for (int c = 0; c < ncol; ++c) {
      if (TRANS == 0) {
        T v = T(0);
        if (lane < N) v = INV ? (lane == c ? S::from_real(R(1)) : T(0)) : bs[(long long)lane * nrhs + c];
        v = lu_solve_n_v2<T, N, false>(tile, lane_of, lane, pos, v);
        if (lane < N) xs[(long long)pos * ncol + c] = v;
      } else {
        T v = T(0);
        if (lane < N) v = INV ? (pos == c ? S::from_real(R(1)) : T(0)) : bs[(long long)pos * nrhs + c];
        v = lu_solve_t_v2<T, N, TRANS == 2, false>(tile, lane_of, lane, pos, v);
        if (lane < N) xs[(long long)lane * ncol + c] = v;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Cholesky kernel: factor (and optionally solve with) Hermitian positive
// definite matrices. UPPER: the matrix is given by its upper triangle and
// the factor returned is U (A = U^H U); else the lower triangle and L
// (A = L L^H). info[k] = LAPACK's (first non-positive leading minor, 1-based).
//   c: (batch, N, N) row-major factor output (zeros in the other triangle)
//   b, x: as in the LU kernel (SOLVE).
template <class T, int N, int WARPS, bool UPPER, bool WANT_FACTOR, bool SOLVE>
__device__ __forceinline__ void batched_cholesky_body(
    const T* __restrict__ a, long long a_bs, const T* __restrict__ b, long long b_bs,
    int nrhs, T* __restrict__ x, T* __restrict__ c, int* __restrict__ info, long long batch) {
  using namespace gs_linalg_batched;
  typedef scalar_traits<T> S;
  typedef typename S::real R;
  extern __shared__ __align__(16) unsigned char gs_smem[];
  T* tile = reinterpret_cast<T*>(gs_smem) + (threadIdx.x / 32) * (N * (N + 1));
  const int lane = threadIdx.x % 32;
  const long long sys = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
  if (sys >= batch) return;
  T r[N];   // row `lane` of the lower triangle of the Hermitian matrix
  if (UPPER) load_cols<T, N, true>(a + sys * a_bs, tile, lane, r);
  else load_rows<T, N>(a + sys * a_bs, tile, lane, r);
  int inf = 0;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if (inf == 0) {
      const R dkk = S::re(S::shfl(r[k], k));
      if (!(dkk > R(0))) {
        inf = k + 1;   // LAPACK stops here; the factor is left partial
      } else {
        const R d = sqrt(dkk);
        if (lane == k) r[k] = S::from_real(d);
        if (lane > k && lane < N) r[k] = r[k] / d;
#pragma unroll
        for (int j = k + 1; j < N; ++j) {
          const T ljk = S::shfl(r[k], j);
          if (lane >= j && lane < N) r[j] = r[j] - r[k] * S::conj(ljk);
        }
      }
    }
  }
  if (lane == 0) info[sys] = inf;
  if (WANT_FACTOR && lane < N) {
    T* dst = c + sys * (long long)(N * N);
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const T v = j <= lane ? r[j] : T(0);
      if (UPPER) dst[(long long)j * N + lane] = S::conj(v);   // U = L^H
      else dst[(long long)lane * N + j] = v;
    }
  }
  if (SOLVE) {
    if (inf) return;
    const T* bs = b + sys * b_bs;
    T* xs = x + sys * (long long)N * nrhs;
    for (int col = 0; col < nrhs; ++col) {
      T v = lane < N ? bs[(long long)lane * nrhs + col] : T(0);
#pragma unroll
      for (int k = 0; k < N; ++k) {      // L y = b
        if (lane == k) v = v / r[k];
        const T y = S::shfl(v, k);
        if (lane > k && lane < N) v = v - r[k] * y;
      }
#pragma unroll
      for (int k = N - 1; k >= 0; --k) {  // L^H x = y
        const T t = (lane > k && lane < N) ? S::conj(r[k]) * v : T(0);
        const T s = warp_sum(t);
        if (lane == k) v = (v - s) / S::conj(r[k]);
      }
      if (lane < N) xs[(long long)lane * nrhs + col] = v;
    }
  }
}

// ---------------------------------------------------------------------------
// Status of a batch, one block (blockDim.x <= 1024): out[0] any info > 0,
// out[1] any !(rcond >= eps) (NaN counts as ill-conditioned; rcond may be
// null), out[2] fin0 or fin1 false (device bools; null ones are skipped).
namespace gs_linalg_batched {
template <class R>
__device__ __forceinline__ void lu_status(const int* info, const R* rcond, long long n,
                                          R eps, const bool* fin0, const bool* fin1,
                                          int* out) {
  int bad_info = 0, bad_rc = 0;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    bad_info |= info[i] > 0;
    if (rcond) bad_rc |= !(rcond[i] >= eps);
  }
  bad_info = __syncthreads_or(bad_info);
  bad_rc = __syncthreads_or(bad_rc);
  if (threadIdx.x == 0) {
    out[0] = bad_info;
    out[1] = bad_rc;
    out[2] = (fin0 && !*fin0) || (fin1 && !*fin1);
  }
}
}  // namespace gs_linalg_batched
