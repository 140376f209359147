// Large dense LU with partial pivoting by tournament (CALU / TSLU).
//
// Grigori, Demmel & Xiang, "CALU: a communication optimal LU factorization
// algorithm", SIMAX 32(4), 2011.  One panel of NB columns is factored by ONE
// launch of lu_panel_body:
//
//   1. every block loads a chunk of R rows (one row per thread, in
//      registers) and runs GEPP on it, producing <= w candidate rows;
//   2. candidate lists meet in a tree of fan-in F = R / NB: the last block of
//      a group to finish (atomic counter) runs GEPP on the ORIGINAL rows of
//      its children's candidates; the last block of the root group factors
//      the final w pivot rows: L11\U11, ipiv (LAPACK's swap sequence), info;
//   3. the root publishes U11 and the row moves and raises a flag; every block
//      (all are resident: each has already arrived once, so the flag wait
//      cannot deadlock) then writes L21 = A21 U11^-1 for the rows of its chunk
//      that neither move nor pivot; the root itself writes the top w rows and
//      the displaced top rows.
//
// lu_swap_trsm_body applies the panel's row moves to every other column and,
// right of the panel, U12 = L11^-1 A12 (one thread per column).  The trailing
// update A22 -= L21 U12 is a cuBLAS GEMM.
//
// Row values are never modified before the root has read every row it needs:
// the tree phase only reads A; writes happen after the flag, to disjoint rows.
#pragma once
#include <gpuscipy/types.cuh>

namespace gslu {

template <class T> struct real_of { typedef T type; };
template <class R> struct real_of<gs::complex<R>> { typedef R type; };

template <class T> __device__ __forceinline__ T zero_v() { return T(0); }

__device__ __forceinline__ float cabs1(float x) { return fabsf(x); }
__device__ __forceinline__ double cabs1(double x) { return fabs(x); }
template <class R>
__device__ __forceinline__ R cabs1(gs::complex<R> z) { return fabs(z.re) + fabs(z.im); }

__device__ __forceinline__ bool is_zero(float x) { return x == 0.0f; }
__device__ __forceinline__ bool is_zero(double x) { return x == 0.0; }
template <class R>
__device__ __forceinline__ bool is_zero(gs::complex<R> z) { return z.re == R(0) && z.im == R(0); }

// Workspace layout (int32 words), shared by both kernels of one getrf call.
//   [0]                 flag (generation of the last finished panel)
//   [1]                 number of displaced rows
//   [8 .. 8+NB)         pivot rows (panel-relative), in pivot order
//   [8+NB .. 8+2NB)     displaced rows: source (panel-relative, < w)
//   [8+2NB .. 8+3NB)    displaced rows: destination
//   [8+3NB .. +NLEV*P)  arrival counters, per (level, node); zero between uses
//   then                candidate lists: (level, node) -> NB row indices, and
//                       candidate counts (level, node)
struct Layout {
  int nb, p0;
  static constexpr int NLEV = 6;
  __device__ int* flag(int* w) const { return w; }
  __device__ int* ndisp(int* w) const { return w + 1; }
  __device__ int* piv(int* w) const { return w + 8; }
  __device__ int* dsrc(int* w) const { return w + 8 + nb; }
  __device__ int* ddst(int* w) const { return w + 8 + 2 * nb; }
  __device__ int* counter(int* w, int lev, int node) const {
    return w + 8 + 3 * nb + lev * p0 + node;
  }
  __device__ int* cand(int* w, int lev, int node) const {
    return w + 8 + 3 * nb + NLEV * p0 + (lev * p0 + node) * nb;
  }
  __device__ int* ccount(int* w, int lev, int node) const {
    return w + 8 + 3 * nb + NLEV * p0 + NLEV * p0 * nb + lev * p0 + node;
  }
};

__device__ __forceinline__ int ld_cg(const int* p) { return __ldcg(p); }
template <class T> __device__ __forceinline__ T ld_cg_t(const T* p) {
  return *(const volatile T*)p;
}
template <class R>
__device__ __forceinline__ gs::complex<R> ld_cg_t(const gs::complex<R>* p) {
  const volatile R* q = (const volatile R*)p;
  return gs::complex<R>(q[0], q[1]);
}

// Read a[j] (pick) or write a[j] = v (put) for a runtime j without dynamic
// register indexing, which would put the array in local memory: a select
// chain over the unrolled indices. Loops over j stay rolled, so the code is
// a small hot loop: fully unrolled NB-step loops were tens to hundreds of
// KB of straight-line code run once per panel, fetched cold from L2
// (measured ~2-4 us per step on an H200).
template <class T, int NB>
__device__ __forceinline__ T pick(const T (&a)[NB], int j) {
  T v = a[0];
#pragma unroll
  for (int c = 1; c < NB; ++c) if (c == j) v = a[c];
  return v;
}
template <class T, int NB>
__device__ __forceinline__ void put(T (&a)[NB], int j, T v) {
#pragma unroll
  for (int c = 0; c < NB; ++c) if (c == j) a[c] = v;
}

// Block-wide GEPP of the rows held one per thread (alive = has a row).
// pos = the row's position in the stack (ties go to the smaller position).
// On return my_step = the step at which my row became pivot (-1: never);
// chosen[0..count) in smem lists the stack positions in pivot order;
// returns count; *zero_step = first step with a zero pivot (-1: none).
template <class T, int NB, int R>
__device__ int block_gepp(T (&a)[NB], bool alive, int pos, int w, int& my_step,
                          T* slot, typename real_of<T>::type* skey, int* spos,
                          int* chosen, int* zero_step) {
  typedef typename real_of<T>::type Real;
  constexpr int W = R / 32;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  my_step = -1;
  int count = 0;
  int first_zero = -1;
#pragma unroll 1
  for (int j = 0; j < w; ++j) {
    {
      const int par = j & 1;
      Real key = Real(-1);
      const T aj = pick(a, j);
      if (alive) {
        key = cabs1(aj);
        if (key != key) key = Real(__int_as_float(0x7f800000));
      }
      int kp = alive ? pos : 0x7fffffff;
      Real bk = key;
      int bp = kp;
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) {
        Real ok = __shfl_xor_sync(0xffffffffu, bk, off);
        int op = __shfl_xor_sync(0xffffffffu, bp, off);
        if (ok > bk || (ok == bk && op < bp)) { bk = ok; bp = op; }
      }
      if (alive && bp == kp) {  // the warp's winner publishes its row
        T* s = slot + (par * W + warp) * NB;
#pragma unroll
        for (int c = 0; c < NB; ++c) s[c] = a[c];
      }
      if (lane == 0) { skey[par * W + warp] = bk; spos[par * W + warp] = bp; }
      __syncthreads();
      Real gk = skey[par * W];
      int gp = spos[par * W], gw = 0;
#pragma unroll
      for (int q = 1; q < W; ++q) {
        Real ok = skey[par * W + q];
        int op = spos[par * W + q];
        if (ok > gk || (ok == gk && op < gp)) { gk = ok; gp = op; gw = q; }
      }
      if (gk >= Real(0)) {  // else no row left: every thread skips the rest
        const T* prow = slot + (par * W + gw) * NB;
        if (threadIdx.x == 0) chosen[j] = gp;
        count = j + 1;
        if (alive && pos == gp) { alive = false; my_step = j; }
        T pj = prow[j];
        if (is_zero(pj)) {
          if (first_zero < 0) first_zero = j;
        } else if (alive) {
          T l = aj / pj;
          put(a, j, l);
#pragma unroll
          for (int c = 1; c < NB; ++c) if (c > j) a[c] -= l * prow[c];
        }
      }
    }
  }
  *zero_step = first_zero;
  return count;
}

// x := x U^-1 for the row x (U upper triangular w x w in smem, row-major NB);
// a zero diagonal leaves x[j] undivided (LAPACK's getf2 convention).
template <class T, int NB>
__device__ __forceinline__ void row_times_uinv(T (&x)[NB], const T* u, int w) {
#pragma unroll 1
  for (int j = 0; j < w; ++j) {
    const T d = u[j * NB + j];
    T xj = pick(x, j);
    if (!is_zero(d)) xj = xj / d;
    put(x, j, xj);
#pragma unroll
    for (int c = 1; c < NB; ++c) if (c > j) x[c] -= xj * u[j * NB + c];
  }
}

// One panel: A points at the panel's top-left element (row k0, column k0),
// m = n - k0 rows, w <= NB columns.  p0 = ceil(m / R) blocks.
template <class T, int NB, int R>
__device__ void lu_panel_body(T* __restrict__ A, long long lda, int m, int w,
                              long long k0, int gen, int* __restrict__ ws,
                              T* __restrict__ u_ws, long long* __restrict__ ipiv,
                              int* __restrict__ info) {
  constexpr int F = R / NB;
  constexpr int W = R / 32;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* slot = reinterpret_cast<T*>(smem_raw);                 // 2*W*NB
  T* u11 = slot + 2 * W * NB;                                // NB*NB
  typedef typename real_of<T>::type Real;
  Real* skey = reinterpret_cast<Real*>(u11 + NB * NB);       // 2*W
  int* spos = reinterpret_cast<int*>(skey + 2 * W);          // 2*W
  int* chosen = spos + 2 * W;                                // NB
  int* rows = chosen + NB;                                   // R
  int* misc = rows + R;                                      // 8
  int* spiv = misc + 8;                                      // NB
  int* pos_small = spiv + NB;                                // NB
  int* row_at = pos_small + NB;                              // NB
  int* cnts = row_at + NB;                                   // 32
  int* pref = cnts + 32;                                     // 32

  const int p0 = (m + R - 1) / R;
  Layout L{NB, p0};
  const int tid = threadIdx.x;
  const int b = blockIdx.x;

  int lev = 0, node = b, nodes = p0;
  int nrows = min(R, m - b * R);
  rows[tid] = tid < nrows ? b * R + tid : -1;
  T a[NB];
  int my_step = -1;
  bool root = false;
  int zero_step = -1;
  __syncthreads();
  for (;;) {
    const int r = rows[tid];
    const bool alive = r >= 0;
#pragma unroll
    for (int c = 0; c < NB; ++c) a[c] = (alive && c < w) ? A[r + c * lda] : zero_v<T>();
    int cnt = block_gepp<T, NB, R>(a, alive, tid, w, my_step, slot, skey, spos, chosen,
                                   &zero_step);
    __syncthreads();
    if (nodes == 1) { root = true; break; }
    // publish the candidates (panel-relative rows) of this node
    int* cl = L.cand(ws, lev, node);
    if (tid < cnt) cl[tid] = rows[chosen[tid]];
    if (tid == 0) *L.ccount(ws, lev, node) = cnt;
    __threadfence();
    __syncthreads();
    const int parent = node / F;
    const int first = parent * F;
    const int nchild = min(F, nodes - first);
    if (tid == 0) {
      int* ctr = L.counter(ws, lev + 1, parent);
      int old = atomicAdd(ctr, 1);
      misc[0] = (old == nchild - 1);
      if (old == nchild - 1) *ctr = 0;  // reset for the next panel
    }
    __syncthreads();
    if (!misc[0]) break;
    __threadfence();
    // gather the children's candidate lists, in child order
    if (tid < nchild) cnts[tid] = ld_cg(L.ccount(ws, lev, first + tid));
    __syncthreads();
    if (tid == 0) {
      int off = 0;
      for (int q = 0; q < nchild; ++q) { pref[q] = off; off += cnts[q]; }
      misc[1] = off;
    }
    __syncthreads();
    {
      const int q = tid / NB, k = tid % NB;
      if (q < nchild && k < cnts[q]) rows[pref[q] + k] = ld_cg(L.cand(ws, lev, first + q) + k);
    }
    __syncthreads();
    const int tot = misc[1];
    if (tid >= tot) rows[tid] = -1;
    __syncthreads();
    lev += 1;
    node = parent;
    nodes = (nodes + F - 1) / F;
  }

  if (root) {
    // my row (if chosen at step i) is row i of L11\U11
    if (my_step >= 0) {
#pragma unroll
      for (int c = 0; c < NB; ++c) u11[my_step * NB + c] = a[c];
    }
    if (tid < w) spiv[tid] = rows[chosen[tid]];
    __syncthreads();
    if (tid == 0) {
      // LAPACK's swap sequence: at step i swap position i with the current
      // position of pivot row spiv[i].  Only rows < w are ever displaced.
      for (int x = 0; x < w; ++x) { pos_small[x] = x; row_at[x] = x; }
      for (int i = 0; i < w; ++i) {
        const int rr = spiv[i];
        const int q = rr < w ? pos_small[rr] : rr;
        ipiv[k0 + i] = k0 + q + 1;
        const int x = row_at[i];
        if (q < w) row_at[q] = x;
        pos_small[x] = q;
        row_at[i] = rr;
        if (rr < w) pos_small[rr] = i;
      }
      int nd = 0;
      for (int x = 0; x < w; ++x) {
        if (pos_small[x] >= w) {
          L.dsrc(ws)[nd] = x;
          L.ddst(ws)[nd] = pos_small[x];
          ++nd;
        }
      }
      *L.ndisp(ws) = nd;
      misc[2] = nd;
      for (int i = 0; i < w; ++i) L.piv(ws)[i] = spiv[i];
      if (zero_step >= 0 && *info == 0) *info = (int)(k0 + zero_step + 1);
    }
    __syncthreads();
    // displaced top rows: L21 = row U11^-1, written at their destination
    T x[NB];
    int dst = -1;
    if (tid < misc[2]) {
      const int src = L.dsrc(ws)[tid];
      dst = L.ddst(ws)[tid];
#pragma unroll
      for (int c = 0; c < NB; ++c) x[c] = c < w ? A[src + c * lda] : zero_v<T>();
      row_times_uinv<T, NB>(x, u11, w);
    }
    __syncthreads();  // every read of the top rows precedes the writes below
    if (dst >= 0) {
#pragma unroll
      for (int c = 0; c < NB; ++c) if (c < w) A[dst + c * lda] = x[c];
    }
    if (my_step >= 0) {
#pragma unroll
      for (int c = 0; c < NB; ++c) if (c < w) A[my_step + c * lda] = a[c];
    }
#pragma unroll
    for (int c = 0; c < NB; ++c) if (my_step >= 0) u_ws[my_step * NB + c] = a[c];
    __threadfence();
    __syncthreads();
    if (tid == 0) atomicExch(L.flag(ws), gen);
  } else {
    if (tid == 0) {
      while (atomicAdd(L.flag(ws), 0) != gen) __nanosleep(64);
    }
    __syncthreads();
    __threadfence();
    for (int t = tid; t < NB * NB; t += R) u11[t] = ld_cg_t(u_ws + t);
    if (tid < w) spiv[tid] = ld_cg(L.piv(ws) + tid);
    __syncthreads();
  }
  // L21 = A21 U11^-1 for the rows of my chunk that neither pivot nor move
  // (rows < w are the root's: pivots or displaced).
  const int r = b * R + tid;
  if (r < m && r >= w) {
    bool is_piv = false;
    for (int i = 0; i < w; ++i) is_piv |= (spiv[i] == r);
    if (!is_piv) {
      T x[NB];
#pragma unroll
      for (int c = 0; c < NB; ++c) x[c] = c < w ? A[r + c * lda] : zero_v<T>();
      row_times_uinv<T, NB>(x, u11, w);
#pragma unroll
      for (int c = 0; c < NB; ++c) if (c < w) A[r + c * lda] = x[c];
    }
  }
}

// Row moves of one panel on every column outside it, and U12 = L11^-1 A12 on
// the columns right of it.  One thread per column; A points at A[0, 0].
template <class T, int NB>
__device__ void lu_swap_trsm_body(T* __restrict__ A, long long lda, int n, int k0, int w,
                                  const int* __restrict__ ws) {
  __shared__ T l11[NB * NB];
  __shared__ int spiv[NB], sdsrc[NB], sddst[NB];
  __shared__ int snd;
  const int tid = threadIdx.x;
  for (int t = tid; t < NB * NB; t += blockDim.x) {
    const int i = t / NB, j = t % NB;
    l11[t] = (i < w && j < w) ? A[(long long)(k0 + i) + (long long)(k0 + j) * lda]
                              : zero_v<T>();
  }
  if (tid < NB) {
    spiv[tid] = tid < w ? ws[8 + tid] : 0;
    sdsrc[tid] = ws[8 + NB + tid];
    sddst[tid] = ws[8 + 2 * NB + tid];
  }
  if (tid == 0) snd = ws[1];
  __syncthreads();
  const long long t = (long long)blockIdx.x * blockDim.x + tid;
  if (t >= (long long)n - w) return;
  const long long c = t < k0 ? t : t + w;
  T* col = A + c * lda + k0;
  T v[NB];
#pragma unroll
  for (int i = 0; i < NB; ++i) v[i] = i < w ? col[spiv[i]] : zero_v<T>();
  const int nd = snd;
  for (int q = 0; q < nd; ++q) col[sddst[q]] = col[sdsrc[q]];
  if (c >= k0 + w) {
#pragma unroll 1
    for (int j = 0; j < w; ++j) {
      const T vj = pick(v, j);
#pragma unroll
      for (int i = 1; i < NB; ++i) if (i > j) v[i] -= l11[i * NB + j] * vj;
    }
  }
#pragma unroll
  for (int i = 0; i < NB; ++i) if (i < w) col[i] = v[i];
}

}  // namespace gslu
