// Device code of gpuscipy.linalg's decompositions (see _decomp_kernels.py).
//
// All matrices are column-major (Fortran order, what cuSOLVER uses) with a
// leading dimension `lda`; element (i, j) is A[i + j * lda].
//
//   qrcp_start     2-norms of the columns of A (one block per column); the
//                  last block to finish then does the pivot step 0.
//   qrcp_step      step j of QR with column pivoting, one launch (one block
//                  per trailing column c > j): apply H_j^H to column c and
//                  recompute its remaining norm exactly (no norm downdating,
//                  so no cancellation issue); the last block to finish
//                  (threadfence + atomic counter, no grid-wide sync needed)
//                  then does the pivot step j + 1: pick the column of largest
//                  remaining norm (first on ties, as LAPACK's i?amax), swap
//                  it into place and build its Householder reflector the way
//                  LAPACK's xLARFG does (H = I - tau v v^H, v[0] = 1, beta
//                  real; v stored below the diagonal of its column).
//   eig_pairs      LAPACK's real eigenvector packing -> complex vectors.
//
// Reference: Golub & Van Loan, Matrix Computations (4th ed.), 5.4.2 (QR with
// column pivoting); LAPACK xGEQP3/xLARFG (Quintana-Orti, Sun, Bischof 1998).
#pragma once
#include <gpuscipy/types.cuh>

namespace gs_linalg_decomp {

template <class T> struct real_of { typedef T type; };
template <class T> struct real_of<gs::complex<T>> { typedef T type; };

__device__ __forceinline__ float abs2(float x) { return x * x; }
__device__ __forceinline__ double abs2(double x) { return x * x; }
template <class R> __device__ __forceinline__ R abs2(gs::complex<R> z) {
  return z.re * z.re + z.im * z.im;
}
__device__ __forceinline__ float conjg(float x) { return x; }
__device__ __forceinline__ double conjg(double x) { return x; }
template <class R> __device__ __forceinline__ gs::complex<R> conjg(gs::complex<R> z) {
  return gs::complex<R>(z.re, -z.im);
}
__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
template <class R>
__device__ __forceinline__ gs::complex<R> mul(gs::complex<R> a, gs::complex<R> b) {
  return gs::complex<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
__device__ __forceinline__ float sub(float a, float b) { return a - b; }
__device__ __forceinline__ double sub(double a, double b) { return a - b; }
template <class R>
__device__ __forceinline__ gs::complex<R> sub(gs::complex<R> a, gs::complex<R> b) {
  return gs::complex<R>(a.re - b.re, a.im - b.im);
}
__device__ __forceinline__ float re_of(float x) { return x; }
__device__ __forceinline__ double re_of(double x) { return x; }
template <class R> __device__ __forceinline__ R re_of(gs::complex<R> z) { return z.re; }
__device__ __forceinline__ float im_of(float) { return 0.0f; }
__device__ __forceinline__ double im_of(double) { return 0.0; }
template <class R> __device__ __forceinline__ R im_of(gs::complex<R> z) { return z.im; }
template <class T, class R> __device__ __forceinline__ T make(R re, R im);
template <> __device__ __forceinline__ float make<float, float>(float re, float) { return re; }
template <> __device__ __forceinline__ double make<double, double>(double re, double) { return re; }
template <> __device__ __forceinline__ gs::complex<float> make<gs::complex<float>, float>(float re, float im) {
  return gs::complex<float>(re, im);
}
template <> __device__ __forceinline__ gs::complex<double> make<gs::complex<double>, double>(double re, double im) {
  return gs::complex<double>(re, im);
}

// Sum of one value per thread over the block (blockDim.x a power of two
// <= 1024); every thread gets the total. `sh` holds blockDim.x values.
template <class R> __device__ R block_sum(R v, R* sh) {
  const int t = threadIdx.x;
  __syncthreads();          // sh may still be read by a previous call
  sh[t] = v;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) sh[t] += sh[t + s];
    __syncthreads();
  }
  R r = sh[0];
  return r;
}

template <class R> __device__ R block_max(R v, R* sh) {
  const int t = threadIdx.x;
  __syncthreads();
  sh[t] = v;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s && sh[t + s] > sh[t]) sh[t] = sh[t + s];
    __syncthreads();
  }
  R r = sh[0];
  return r;
}

// Loads that bypass L1 (global reads of data other blocks of the same launch
// wrote: L1 is not coherent between SMs).
__device__ __forceinline__ float ldcg(const float* p) { return __ldcg(p); }
__device__ __forceinline__ double ldcg(const double* p) { return __ldcg(p); }
__device__ __forceinline__ long long ldcg(const long long* p) { return __ldcg(p); }
template <class R> __device__ __forceinline__ gs::complex<R> ldcg(const gs::complex<R>* p) {
  const R* q = reinterpret_cast<const R*>(p);
  return gs::complex<R>(__ldcg(q), __ldcg(q + 1));
}

// Called by every thread of a block after its writes: true in the last block
// of the grid to get here (all other blocks' writes are then visible to it
// through ldcg). The last block resets the counter for the next launch.
__device__ __forceinline__ bool last_block(unsigned int* counter) {
  __shared__ int sh_last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned int prev = atomicAdd(counter, 1u);
    sh_last = prev == gridDim.x - 1;
    if (sh_last) *counter = 0u;   // nobody else touches it in this launch
  }
  __syncthreads();
  if (sh_last) __threadfence();
  return sh_last != 0;
}

// ---- pivot + reflector of step j (run by one block) --------------------------
template <class T>
__device__ void qrcp_pivot_body(T* A, long long lda, long long m, long long n, long long j,
                                typename real_of<T>::type* vn, long long* perm, T* tau) {
  typedef typename real_of<T>::type R;
  __shared__ R shr[1024];
  __shared__ long long shi[1024];
  __shared__ R sh_sr, sh_si;   // 1 / (alpha - beta)
  __shared__ int sh_trivial;
  const int t = threadIdx.x;
  // argmax of vn[j:n], first index on ties
  R best = -1;
  long long bi = n;
  for (long long c = j + t; c < n; c += blockDim.x) {
    R x = ldcg(vn + c);
    if (x > best) { best = x; bi = c; }
  }
  __syncthreads();
  shr[t] = best;
  shi[t] = bi;
  __syncthreads();
  for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
    if (t < s) {
      R o = shr[t + s];
      long long oi = shi[t + s];
      if (o > shr[t] || (o == shr[t] && oi < shi[t])) { shr[t] = o; shi[t] = oi; }
    }
    __syncthreads();
  }
  long long p = shi[0];
  if (p >= n) p = j;   // all norms NaN: keep the order
  __syncthreads();
  if (p != j) {
    T* cj = A + j * lda;
    T* cp = A + p * lda;
    for (long long i = t; i < m; i += blockDim.x) {
      T x = ldcg(cj + i);
      cj[i] = ldcg(cp + i);
      cp[i] = x;
    }
    if (t == 0) {
      R x = ldcg(vn + j); vn[j] = ldcg(vn + p); vn[p] = x;
      long long q = ldcg(perm + j); perm[j] = ldcg(perm + p); perm[p] = q;
    }
  }
  __syncthreads();
  // Householder reflector of x = A[j:m, j] (xLARFG); after the swap every
  // element of column j was last written by this thread (same i stride)
  T* col = A + j * lda;
  R mx = 0;
  for (long long i = j + 1 + t; i < m; i += blockDim.x) {
    R a = sqrt(abs2(ldcg(col + i)));
    mx = a > mx ? a : mx;
  }
  mx = block_max(mx, shr);
  R ss = 0;
  if (mx > 0) {
    for (long long i = j + 1 + t; i < m; i += blockDim.x) ss += abs2(ldcg(col + i)) / (mx * mx);
  }
  ss = block_sum(ss, shr);
  if (t == 0) {
    T alpha = ldcg(col + j);
    R xnorm = mx > 0 ? mx * sqrt(ss) : R(0);
    R ar = re_of(alpha), ai = im_of(alpha);
    if (xnorm == 0 && ai == 0) {
      tau[j] = make<T, R>(0, 0);
      sh_trivial = 1;
      sh_sr = 1;
      sh_si = 0;
    } else {
      R nrm = sqrt(ar * ar + ai * ai + xnorm * xnorm);
      R beta = ar >= 0 ? -nrm : nrm;
      tau[j] = make<T, R>((beta - ar) / beta, -ai / beta);
      // scale = 1 / (alpha - beta)
      R dr = ar - beta, di = ai;
      R den = dr * dr + di * di;
      sh_sr = dr / den;
      sh_si = -di / den;
      col[j] = make<T, R>(beta, 0);
      sh_trivial = 0;
    }
  }
  __syncthreads();
  if (!sh_trivial) {
    const T scale = make<T, R>(sh_sr, sh_si);
    for (long long i = j + 1 + t; i < m; i += blockDim.x) col[i] = mul(ldcg(col + i), scale);
  }
}

// ---- column norms, then pivot step 0 -----------------------------------------
template <class T>
__device__ void qrcp_start(T* A, long long lda, long long m, long long n,
                           typename real_of<T>::type* vn, long long* perm, T* tau,
                           unsigned int* counter) {
  typedef typename real_of<T>::type R;
  __shared__ R sh[1024];
  const long long c = blockIdx.x;
  const T* col = A + c * lda;
  R s = 0;
  for (long long i = threadIdx.x; i < m; i += blockDim.x) s += abs2(col[i]);
  s = block_sum(s, sh);
  if (threadIdx.x == 0) vn[c] = sqrt(s);
  if (last_block(counter)) qrcp_pivot_body<T>(A, lda, m, n, 0, vn, perm, tau);
}

// ---- step j: apply H_j^H to the trailing columns, new norms, pivot j + 1 -----
// k = min(m, n); launched with n - j - 1 blocks.
template <class T>
__device__ void qrcp_step(T* A, long long lda, long long m, long long n, long long j,
                          long long k, typename real_of<T>::type* vn, long long* perm,
                          T* tau, unsigned int* counter) {
  typedef typename real_of<T>::type R;
  __shared__ R sh[1024];
  const long long c = j + 1 + blockIdx.x;
  T* col = A + c * lda;
  const T* v = A + j * lda;          // reflector j: v[j] = 1 implied
  const T one = make<T, R>(1, 0);
  // w = v^H a_c
  R wr = 0, wi = 0;
  for (long long i = j + threadIdx.x; i < m; i += blockDim.x) {
    T p = mul(conjg(i == j ? one : v[i]), col[i]);
    wr += re_of(p);
    wi += im_of(p);
  }
  wr = block_sum(wr, sh);
  wi = block_sum(wi, sh);
  // a_c -= conj(tau) v w
  const T kk = mul(conjg(tau[j]), make<T, R>(wr, wi));
  R s = 0;
  for (long long i = j + threadIdx.x; i < m; i += blockDim.x) {
    T x = sub(col[i], mul(i == j ? one : v[i], kk));
    col[i] = x;
    if (i > j) s += abs2(x);
  }
  s = block_sum(s, sh);
  if (threadIdx.x == 0) vn[c] = sqrt(s);
  if (j + 1 < k && last_block(counter))
    qrcp_pivot_body<T>(A, lda, m, n, j + 1, vn, perm, tau);
}

// ---- complex eigenvectors from LAPACK's real packing -------------------------
// vr: n x n real (column-major, leading dimension n); wi: imaginary parts of
// the eigenvalues; out: n x n complex (column-major). Pairs: wi[j] > 0 marks
// the first column of a conjugate pair (v_j = vr_j + i vr_{j+1}).
template <class R>
__device__ void eig_pairs(const R* vr, const R* wi, gs::complex<R>* out, long long n) {
  const long long total = n * n;
  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long i = e % n, jj = e / n;
    const R w = wi[jj];
    R re, im;
    if (w > 0 && jj + 1 < n) {
      re = vr[i + jj * n];
      im = vr[i + (jj + 1) * n];
    } else if (w < 0 && jj > 0) {
      re = vr[i + (jj - 1) * n];
      im = -vr[i + jj * n];
    } else {
      re = vr[i + jj * n];
      im = 0;
    }
    out[e] = gs::complex<R>(re, im);
  }
}

}  // namespace gs_linalg_decomp
