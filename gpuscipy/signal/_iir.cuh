// IIR filtering (lfilter, sosfilt) parallel over time and over channels.
//
// A filter is a linear recurrence on a state z of D values (SciPy's direct
// form II transposed state: D = order for lfilter, 2 per section for
// sosfilt):  y[t] = step(x[t], z).  With zero input the step is linear in
// z:  z <- A z.  Over a chunk of L samples the state map is affine:
//
//     z_out = A^L z_in + e,   e = the final state of the chunk run from
//                                 zero state (depends on x only).
//
// So the state entering chunk k obeys s_k = Phi s_{k-1} + e_{k-1} with the
// constant Phi = A^L: a linear recurrence on D-vectors, solved by a scan
// (Blelloch 1990) whose operator is (v, w) -> Phi^m v + w.  The kernels
// below (Nehab, Maximo, Lima & Hoppe 2011; Maleki & Burtscher 2018):
//
//   1. run every chunk from zero state, keeping only its final state e;
//   2. scan the e's per channel: the carried state s_k of every chunk;
//   3. run every chunk again from s_k, writing y.
//
// Step 3 is the correction of each chunk by its incoming state: instead of
// adding a zero-input response from a table (whose entries for poles near
// the unit circle are large and long, and lose float32 accuracy), the chunk
// is simply re-filtered from the right state, with the very arithmetic of
// SciPy's serial loop.  The only new rounding is in the carried states,
// which are scanned in double-double (see below) for every input type.
//
// Kernels:
//   gs_signal_iir::fused   one block per channel does 1-3: each thread one chunk,
//                  the scan across the block's threads in shared memory
//                  (Brent-Kung with the matrices Phi^(2^i)).
//   gs_signal_iir::states  step 1 for all (channel, chunk) pairs: e into a workspace.
//   gs_signal_iir::carry   step 2, one block per channel: each thread folds m
//                  consecutive e's (Horner with Phi), Brent-Kung over the
//                  threads (matrices Phi^(m 2^i)), then writes every chunk's
//                  incoming state over its e.
//   gs_signal_iir::apply   step 3 (with G = 1 chunk per channel it is the plain
//                  serial filter, one thread per channel).
//   gs_signal_iir::fir     lfilter with a = [a0]: a direct convolution.
//
// The matrices are built on the device from the coefficients: column j of A
// is one zero-input step from the unit state e_j, and A^L, Phi^m, ... come
// by binary powering in shared memory.  Nothing is uploaded per call: the
// coefficients travel as a kernel parameter.
//
// Layouts.  A line map gives the element offset of sample t of channel c:
//     (c / inner) * so + (c % inner) * si + t * st
// (any strides, negative included).  With |st| == 1 the chunk kernels stage
// x and y through shared memory per warp (STAGED): each round loads, for the
// warp's 32 chunks, the next LS samples of each (LS * sizeof(T) = 128 bytes,
// whole cache lines), lane l then filters row l.  Otherwise every thread
// reads its own samples (for channel-fastest layouts these reads coalesce
// across the warp).  zi is read through a state map (SciPy's layout, any
// strides); zf is written by channel rows (zf + c * zfs).  A carry whose
// matrices are too ill-conditioned falls back to the serial recursion
// (see "Health of the carry").
//
// Rounding: compile with -fmad=false, so real inputs get SciPy's own
// rounding inside a chunk (no fused multiply-adds; the expressions below
// are SciPy's, in SciPy's order).
#pragma once
#include <gpuscipy/types.cuh>

namespace gs_signal_iir {

// Phase timing for probes (tools/probes/iir_probe.py compiles with
// -DGSIIR_PROFILE and reads gsiir_prof back): thread 0 of block 0 stamps
// the global timer (ns) after a block barrier.  Off by default: no code.
#ifdef GSIIR_PROFILE
}  // namespace gs_signal_iir
extern "C" {
__device__ unsigned long long gsiir_prof[8];
}
namespace gs_signal_iir {
#define GSIIR_STAMP(i)                                                        \
  do {                                                                        \
    __syncthreads();                                                          \
    if (threadIdx.x == 0 && blockIdx.x == 0) {                                \
      unsigned long long t_;                                                  \
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t_));                  \
      gsiir_prof[i] = t_;                                                     \
    }                                                                         \
  } while (0)
#else
#define GSIIR_STAMP(i) \
  do {                 \
  } while (0)
#endif

using gs::complex;

// ------------------------------------------------------------ double-double
// The carry (transition matrices, their powers, the scan of chunk states)
// runs in double-double (~106 bits).  For filters with poles near the unit
// circle the powers of the state matrix have entries many orders above the
// states they act on; in double their products lose up to eps * |A^k|^2,
// far more than SciPy's own serial rounding, while in double-double the
// carried states come out as accurate as SciPy's (Dekker 1971; Hida, Li &
// Bailey 2001, "Algorithms for quad-double precision floating point
// arithmetic": two_sum, quick_two_sum, two_prod through fma, the IEEE add).

struct dd {
  double hi, lo;
  dd() = default;
  GS_FI constexpr dd(double h) : hi(h), lo(0.0) {}
  GS_FI constexpr dd(double h, double l) : hi(h), lo(l) {}
};

GS_FI dd quick_two_sum(double a, double b) {
  const double s = a + b;
  return dd(s, b - (s - a));
}
GS_FI dd two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  return dd(s, (a - (s - bb)) + (b - bb));
}
GS_FI dd operator+(dd a, dd b) {
  dd s = two_sum(a.hi, b.hi);
  const dd t = two_sum(a.lo, b.lo);
  s.lo += t.hi;
  s = quick_two_sum(s.hi, s.lo);
  s.lo += t.lo;
  return quick_two_sum(s.hi, s.lo);
}
GS_FI dd operator-(dd a) { return dd(-a.hi, -a.lo); }
GS_FI dd operator-(dd a, dd b) { return a + (-b); }
GS_FI dd operator*(dd a, dd b) {
  const double p = a.hi * b.hi;
  double e = fma(a.hi, b.hi, -p);
  e += a.hi * b.lo + a.lo * b.hi;
  return quick_two_sum(p, e);
}

struct cdd {
  dd re, im;
  cdd() = default;
  GS_FI constexpr cdd(double r) : re(r), im(0.0) {}
  GS_FI constexpr cdd(dd r, dd i) : re(r), im(i) {}
};
GS_FI cdd operator+(cdd a, cdd b) { return cdd(a.re + b.re, a.im + b.im); }
GS_FI cdd operator-(cdd a, cdd b) { return cdd(a.re - b.re, a.im - b.im); }
GS_FI cdd operator*(cdd a, cdd b) {
  return cdd(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

// Sums of products (the matrix products and mat-vecs of the carry) in
// compensated form (Ogita, Rump & Oishi, "Accurate sum and dot product",
// SIAM J. Sci. Comput. 26(6), 2005, Dot2, with double-double operands):
// the running sum s is a double, each step's exact rounding error of s + p
// (two_sum) and the product's low part go into a plain double c, and the
// pair is renormalised once at the end.  The dependency chain from one
// step to the next is one addition (s + p), and a step costs 14 double
// operations instead of the 29 of a double-double multiply and add, with
// an error of the order eps^2 sum |a_k b_k|, as the double-double sum's.
struct dacc {
  double s, c;
};
struct cacc {
  dacc re, im;
};
template <class C> struct acc_of { typedef dacc type; };
template <> struct acc_of<cdd> { typedef cacc type; };

GS_FI dacc acc_start(dd v) { return dacc{v.hi, v.lo}; }
GS_FI cacc acc_start(cdd v) { return cacc{acc_start(v.re), acc_start(v.im)}; }
// A += a b
GS_FI void acc_prod(dacc& A, dd a, dd b) {
  const double p = a.hi * b.hi;
  double e = fma(a.hi, b.hi, -p);  // exact
  e += a.hi * b.lo + a.lo * b.hi;
  const double s = A.s + p;
  const double bb = s - A.s;
  const double t = (A.s - (s - bb)) + (p - bb);
  A.s = s;
  A.c += t + e;
}
GS_FI void acc_prod(cacc& A, cdd a, cdd b) {
  acc_prod(A.re, a.re, b.re);
  acc_prod(A.re, -a.im, b.im);
  acc_prod(A.im, a.re, b.im);
  acc_prod(A.im, a.im, b.re);
}
GS_FI dd acc_done(dacc A) { return quick_two_sum(A.s, A.c); }
GS_FI cdd acc_done(cacc A) { return cdd(acc_done(A.re), acc_done(A.im)); }

template <class T> struct carry_of { typedef dd type; };
template <class R> struct carry_of<complex<R>> { typedef cdd type; };

// exact widening of a value of T, and the rounding back
template <class C, class T> GS_FI C widen(T v) { return C(double(v)); }
template <> GS_FI cdd widen<cdd, complex<float>>(complex<float> v) {
  return cdd(dd(double(v.re)), dd(double(v.im)));
}
template <> GS_FI cdd widen<cdd, complex<double>>(complex<double> v) {
  return cdd(dd(v.re), dd(v.im));
}
template <class T> GS_FI T narrow(dd v) { return T(v.hi); }
template <class T> GS_FI T narrow(cdd v) {
  typedef typename T::value_type R;
  return T(R(v.re.hi), R(v.im.hi));
}

// samples of T per 128-byte staging row
template <class T> struct stage_len { static constexpr int value = 128 / sizeof(T); };

template <class T> GS_FI T coef(double re, double) { return T(re); }
template <> GS_FI cdd coef<cdd>(double re, double im) { return cdd(dd(re), dd(im)); }
template <> GS_FI complex<float> coef<complex<float>>(double re, double im) {
  return complex<float>(float(re), float(im));
}
template <> GS_FI complex<double> coef<complex<double>>(double re, double im) {
  return complex<double>(re, im);
}

// Filter coefficients as a kernel parameter: NC values, real and imaginary
// parts as doubles (the host rounds them to T first, so T(re) is exact).
template <int NC> struct coef_pack {
  double re[NC];
  double im[NC];
};

// lfilter's direct form II transposed, order N, coefficients divided by
// a[0] (SciPy's lfilter.c loop).
template <class T, int N> struct ba_filter {
  typedef T value_type;
  static constexpr int D = N;
  // largest |entry| of a transition matrix product the carry trusts (see
  // "Health of the carry")
  static constexpr double LIMIT = 1e8;
  static constexpr int NC = 2 * (N + 1);
  T b[N + 1], a[N + 1];
  template <int P> GS_FI void load(const coef_pack<P>& p) {
#pragma unroll
    for (int i = 0; i <= N; ++i) {
      b[i] = coef<T>(p.re[i], p.im[i]);
      a[i] = coef<T>(p.re[N + 1 + i], p.im[N + 1 + i]);
    }
  }
  GS_FI T step(T x, T (&z)[D]) const {
    const T y = z[0] + b[0] * x;
#pragma unroll
    for (int i = 0; i + 1 < N; ++i) z[i] = z[i + 1] + x * b[i + 1] - y * a[i + 1];
    z[N - 1] = x * b[N] - y * a[N];
    return y;
  }
};

// sosfilt's cascade of S second-order sections (b0 b1 b2 a1 a2 each; a0 = 1),
// SciPy's _sosfilt loop.
template <class T, int S> struct sos_filter {
  typedef T value_type;
  static constexpr int D = 2 * S;
  static constexpr double LIMIT = 1.79769313486231570e308;  // finite
  static constexpr int NC = 5 * S;
  T c[5 * S];
  template <int P> GS_FI void load(const coef_pack<P>& p) {
#pragma unroll
    for (int i = 0; i < 5 * S; ++i) c[i] = coef<T>(p.re[i], p.im[i]);
  }
  GS_FI T step(T x, T (&z)[D]) const {
#pragma unroll
    for (int s = 0; s < S; ++s) {
      const T* q = c + 5 * s;
      const T y = q[0] * x + z[2 * s];
      z[2 * s] = q[1] * x - q[3] * y + z[2 * s + 1];
      z[2 * s + 1] = q[2] * x - q[4] * y;
      x = y;
    }
    return x;
  }
};

struct line_map {
  long long inner, so, si, st;
  GS_FI long long base(long long c) const {
    const long long o = c / inner;
    return o * so + (c - o * inner) * si;
  }
};

// state j of channel c: channel part as a line map, then
// (j / jg) * sjo + (j % jg) * sji (sosfilt: jg = 2, section and delay axes)
struct state_map {
  long long inner, so, si, jg, sjo, sji;
  GS_FI long long at(long long c, int j) const {
    const long long o = c / inner;
    return o * so + (c - o * inner) * si + (j / jg) * sjo + (j % jg) * sji;
  }
};

// ------------------------------------------------------------ small algebra
// D x D matrices are row-major in shared memory; all threads of the block
// take part in a matrix product (callers synchronise).

template <class C, int D> GS_DEV void mat_copy(C* out, const C* a) {
  for (int e = threadIdx.x; e < D * D; e += blockDim.x) out[e] = a[e];
}

GS_FI double mag(dd v) { return fabs(v.hi); }
GS_FI double mag(cdd v) { return fmax(fabs(v.re.hi), fabs(v.im.hi)); }

// out = a b (out distinct from a and b); compensated sums in k order from
// k = 0.  An entry above `limit` (or not finite) sets *bad.
template <class C, int D>
GS_DEV void mat_mul(C* out, const C* a, const C* b, double limit, int* bad) {
  for (int e = threadIdx.x; e < D * D; e += blockDim.x) {
    const int r = e / D, col = e - r * D;
    typename acc_of<C>::type A = acc_start(C(0.0));
    for (int k = 0; k < D; ++k) acc_prod(A, a[r * D + k], b[k * D + col]);
    const C s = acc_done(A);
    out[e] = s;
    if (!(mag(s) <= limit)) *bad = 1;
  }
}

// out = a^e, e >= 1, by binary powering (a is overwritten by its squares)
template <class C, int D>
GS_DEV void mat_pow(C* out, C* a, C* tmp, long long e, double limit, int* bad) {
  bool first = true;
  for (;;) {
    if (e & 1) {
      if (first) {
        mat_copy<C, D>(out, a);
        first = false;
      } else {
        mat_mul<C, D>(tmp, out, a, limit, bad);
        __syncthreads();
        mat_copy<C, D>(out, tmp);
      }
      __syncthreads();
    }
    e >>= 1;
    if (e == 0) break;
    mat_mul<C, D>(tmp, a, a, limit, bad);
    __syncthreads();
    mat_copy<C, D>(a, tmp);
    __syncthreads();
  }
}

// acc += m v (row r: acc[r] + m[r,0] v[0] + m[r,1] v[1] + ..., compensated)
// (rows interleaved for instruction-level parallelism: all of them for
// real D <= 8, fewer otherwise, which bounds the code size)
template <class C> __host__ __device__ constexpr int rows_ilp(int d) {
  return sizeof(C) > 16 ? 2 : (d <= 8 ? d : 4);
}
template <class C, int D> GS_FI void mat_vec_add(C (&acc)[D], const C* m, const C (&v)[D]) {
#pragma unroll(rows_ilp<C>(D))
  for (int r = 0; r < D; ++r) {
    typename acc_of<C>::type A = acc_start(acc[r]);
#pragma unroll
    for (int k = 0; k < D; ++k) acc_prod(A, m[r * D + k], v[k]);
    acc[r] = acc_done(A);
  }
}

// A: column j = one zero-input step from the unit state e_j
template <class FC> GS_DEV void step_matrix(typename FC::value_type* A, const FC& fc) {
  typedef typename FC::value_type C;
  constexpr int D = FC::D;
  for (int j = threadIdx.x; j < D; j += blockDim.x) {
    C z[D];
#pragma unroll
    for (int i = 0; i < D; ++i) z[i] = C(i == j ? 1.0 : 0.0);
    fc.step(C(0.0), z);
#pragma unroll
    for (int i = 0; i < D; ++i) A[i * D + j] = z[i];
  }
}

// Health of the carry.  The powers of the state matrix are formed by
// repeated squaring; a product whose entries are much larger than the
// states they act on (the transient growth of a companion matrix whose
// poles cluster near the unit circle) loses about eps * |entry|^2 of the
// states even in double-double.  For lfilter's companion form the entries
// measure that growth directly, and past LIMIT = 1e8 (eps_dd * LIMIT^2 ~
// 1e-16) the kernels carry the states by the serial recursion instead, one
// thread per channel: SciPy's own arithmetic, bitwise.  A cascade of
// sections has large entries from the gains between sections, which scale
// rows and columns and cost no accuracy (floating point is invariant under
// such scaling); its matrices are only required to be finite.

// Row r of one combine: buf[t] <- row . buf[t - off] + buf[t] (compensated
// sum in k order from the row's old value, as mat_vec_add); row is the
// matrix row, in registers (C[D]) or in shared memory (const C*).
template <class C, int D, class Row>
GS_FI void combine_row(C* buf, int t, int r, int off, const Row& row) {
  typename acc_of<C>::type A = acc_start(buf[t * D + r]);
#pragma unroll
  for (int k = 0; k < D; ++k) acc_prod(A, row[k], buf[(t - off) * D + k]);
  buf[t * D + r] = acc_done(A);
}

// One level of the scan: for the combines c = 0 .. ncomb - 1 at t = first
// + c step, buf[t] <- Mi buf[t - off] + buf[t].  The combines of a level
// touch disjoint rows (no t - off of one is the t of another), and each
// output row is its own task: the D rows of a combine go to D threads
// (row r = task mod D, combine_row).  One thread per combine would leave a level's few
// combines, each ~14 D^2 double operations long, serial in one warp: the
// upper levels of a 256-thread scan cost as much as the full ones.
template <class C, int D, int NT>
GS_FI void scan_level(C* buf, int ncomb, int first, int step, int off, const C* Mi) {
  const int tid = threadIdx.x;
  if (NT % D == 0) {  // each thread keeps one row: its matrix row in registers
    const int r = tid % D;
    int c = tid / D;
    if (c >= ncomb) return;
    C mr[D];
#pragma unroll
    for (int k = 0; k < D; ++k) mr[k] = Mi[r * D + k];
    for (; c < ncomb; c += NT / D) combine_row<C, D>(buf, first + c * step, r, off, mr);
  } else {
    for (int task = tid; task < ncomb * D; task += NT) {
      const int c = task / D, r = task - c * D;
      combine_row<C, D>(buf, first + c * step, r, off, Mi + r * D);
    }
  }
}

// Inclusive scan of v over the block's NT = 2^K threads with the operator
// (earlier, later) -> M_i earlier + later, M_i = Phi^(2^i) joining a segment
// to the 2^i elements before it (M = K matrices in shared memory, buf = NT
// * D values; on return buf holds every thread's inclusive value, v its
// own).  Brent & Kung's work-efficient order (Brent & Kung, IEEE Trans.
// Computers C-31(3), 1982; Blelloch 1990): an up-sweep builds the totals
// of aligned segments of 2, 4, ... elements, a down-sweep completes the
// others: ~2 NT operator applications in 2K - 1 levels, where Kogge-Stone
// makes NT K in K levels.  The operator, a D x D double-double mat-vec, is
// what costs, so fewer applications win over fewer levels.
template <class C, int D, int NT, int K>
GS_DEV void block_scan(C (&v)[D], C* buf, const C* M) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int j = 0; j < D; ++j) buf[tid * D + j] = v[j];
  __syncthreads();
#pragma unroll 1
  for (int i = 0; i < K; ++i) {  // up-sweep: t = (c + 1) 2^(i+1) - 1
    const int off = 1 << i;
    scan_level<C, D, NT>(buf, NT >> (i + 1), 2 * off - 1, 2 * off, off, M + i * D * D);
    __syncthreads();
  }
#pragma unroll 1
  for (int i = K - 2; i >= 0; --i) {  // down-sweep: t = (c + 1) 2^(i+1) - 1 + 2^i
    const int off = 1 << i;
    scan_level<C, D, NT>(buf, (NT >> (i + 1)) - 1, 3 * off - 1, 2 * off, off, M + i * D * D);
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < D; ++j) v[j] = buf[tid * D + j];
}

// A of the filter in double-double (C), entries above F::LIMIT (or not
// finite) set *bad; ends with the block synchronised.
template <class F, class FC, int P>
GS_DEV void checked_step_matrix(typename FC::value_type* A, const coef_pack<P>& p, int* bad) {
  {
    FC fc;
    fc.load(p);
    step_matrix<FC>(A, fc);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < FC::D * FC::D; i += blockDim.x)
    if (!(mag(A[i]) <= F::LIMIT)) *bad = 1;
}

// M_i = M_{i-1}^2 for i = 1 .. K-1 (the scan's matrices from M_0)
template <class C, int D, int K>
GS_DEV void square_levels(C* M, double limit, int* bad) {
  for (int i = 1; i < K; ++i) {
    mat_mul<C, D>(M + i * D * D, M + (i - 1) * D * D, M + (i - 1) * D * D, limit, bad);
    __syncthreads();
  }
}

// ------------------------------------------------------------ chunk runs

// One thread's chunk through its own loads (any strides).
template <bool WRITE, class F, class Tin>
GS_FI void run_direct(const F& f, typename F::value_type (&z)[F::D], const Tin* __restrict__ x,
                      long long xb, long long xst, typename F::value_type* __restrict__ y,
                      long long yb, long long yst, long long len) {
  typedef typename F::value_type T;
  const Tin* px = x + xb;
  T* py = y + yb;
  for (long long t = 0; t < len; ++t) {
    const T o = f.step(gs::cast<T>(px[t * xst]), z);
    if (WRITE) py[t * yst] = o;
  }
}

// A warp's 32 chunks staged through shared memory, LS samples per round.
// row info (this warp's 32 entries): x and y offsets of each chunk's first
// sample and its length; buf: 32 x (LS + 1) values of T.
template <bool WRITE, class F, class Tin>
GS_DEV void run_staged(const F& f, typename F::value_type (&z)[F::D],
                       typename F::value_type* buf, const long long* rxb, const long long* ryb,
                       const int* rlen, const Tin* __restrict__ x, long long xst,
                       typename F::value_type* __restrict__ y, long long yst, int L) {
  typedef typename F::value_type T;
  constexpr int LS = stage_len<T>::value;
  constexpr int W = LS + 1;
  const int lane = threadIdx.x & 31;
  const int my_len = rlen[lane];
  T* row = buf + lane * W;
  // Round r's LS loads are issued before round r - 1's steps (software
  // pipelining: their latency hides behind the filtering) and all before
  // the first shared store, which would otherwise order them one by one.
  T v[LS];
  auto fetch = [&](int r0) {
#pragma unroll
    for (int i = 0; i < LS; ++i) {
      const int e = i * 32 + lane, rr = e / LS, col = e % LS, t = r0 + col;
      v[i] = t < rlen[rr] ? gs::cast<T>(x[rxb[rr] + (long long)t * xst]) : T(0);
    }
  };
  fetch(0);
  for (int r0 = 0; r0 < L; r0 += LS) {
#pragma unroll
    for (int i = 0; i < LS; ++i) {
      const int e = i * 32 + lane;
      buf[(e / LS) * W + e % LS] = v[i];
    }
    __syncwarp();
    if (r0 + LS < L) fetch(r0 + LS);
    const int cnt = min(LS, my_len - r0);
#pragma unroll 4
    for (int j = 0; j < cnt; ++j) {
      const T o = f.step(row[j], z);
      if (WRITE) row[j] = o;
    }
    __syncwarp();
    if (WRITE) {
#pragma unroll
      for (int i = 0; i < LS; ++i) {
        const int e = i * 32 + lane, rr = e / LS, col = e % LS, t = r0 + col;
        if (t < rlen[rr]) y[ryb[rr] + (long long)t * yst] = buf[rr * W + col];
      }
      __syncwarp();
    }
  }
}

// ------------------------------------------------------------ shared memory

__host__ __device__ constexpr long long align16(long long b) { return (b + 15) / 16 * 16; }

template <class T> __host__ __device__ constexpr long long stage_bytes(int nt) {
  return align16((long long)nt * (stage_len<T>::value + 1) * sizeof(T));
}
__host__ __device__ constexpr long long rows_bytes(int nt) { return align16((long long)nt * 20); }

template <class F, class Tin, bool STAGED>
GS_FI void load_or_skip(bool write, const F& f, typename F::value_type (&z)[F::D], char* stage,
                        const long long* rxb, const long long* ryb, const int* rlen,
                        const Tin* x, long long xb, long long xst, typename F::value_type* y,
                        long long yb, long long yst, long long len, int L) {
  typedef typename F::value_type T;
  if constexpr (STAGED) {
    const int w = threadIdx.x >> 5;
    T* buf = reinterpret_cast<T*>(stage) + w * 32 * (stage_len<T>::value + 1);
    if (write)
      run_staged<true>(f, z, buf, rxb + 32 * w, ryb + 32 * w, rlen + 32 * w, x, xst, y, yst, L);
    else
      run_staged<false>(f, z, buf, rxb + 32 * w, ryb + 32 * w, rlen + 32 * w, x, xst, y, yst, L);
  } else {
    if (write)
      run_direct<true>(f, z, x, xb, xst, y, yb, yst, len);
    else
      run_direct<false>(f, z, x, xb, xst, y, yb, yst, len);
  }
}

template <class C, class T, int D>
GS_FI void load_state(C (&s)[D], const T* zi, const state_map& zm, long long c) {
#pragma unroll
  for (int j = 0; j < D; ++j) s[j] = zi ? widen<C>(zi[zm.at(c, j)]) : C(0.0);
}

// ------------------------------------------------------------ kernels

// Shared memory of fused: [flag, 16 bytes][matrices (K + 2) D^2 C | block
// vectors NT D C] aliased with [staging], then the row info (sizes:
// _iir_kernels.smem_bytes).
template <class F, class FC, class Tin, bool STAGED, int NT, int K, int P>
GS_DEV void fused(const coef_pack<P>& p, const Tin* __restrict__ x, line_map xm,
                  typename F::value_type* __restrict__ y, line_map ym,
                  const typename F::value_type* zi, state_map zm,
                  typename F::value_type* zf, long long zfs, long long n, int L) {
  typedef typename F::value_type T;
  typedef typename FC::value_type C;
  constexpr int D = F::D;
  constexpr int DD = D * D;
  extern __shared__ __align__(16) char smem_base[];
  int& bad = *reinterpret_cast<int*>(smem_base);  // carry health flag
  char* smem = smem_base + 16;
  C* M = reinterpret_cast<C*>(smem);  // M_0 .. M_{K-1}
  C* A = M + K * DD;
  C* tmp = A + DD;
  C* buf = reinterpret_cast<C*>(smem + align16((long long)(K + 2) * DD * sizeof(C)));
  char* stage = smem;
  constexpr long long scan = align16((long long)(K + 2) * DD * sizeof(C)) +
                             align16((long long)NT * D * sizeof(C));
  constexpr long long st_b = STAGED ? stage_bytes<T>(NT) : 0;
  long long* rxb = reinterpret_cast<long long*>(smem + (scan > st_b ? scan : st_b));
  long long* ryb = rxb + NT;
  int* rlen = reinterpret_cast<int*>(ryb + NT);

  const long long c = blockIdx.x;
  const int tid = threadIdx.x;
  GSIIR_STAMP(0);
  F f;
  f.load(p);
  const long long t0 = (long long)tid * L;
  const long long len = t0 < n ? (n - t0 < L ? n - t0 : L) : 0;
  const long long xb = xm.base(c) + t0 * xm.st, yb = ym.base(c) + t0 * ym.st;
  if constexpr (STAGED) {
    rxb[tid] = xb;
    ryb[tid] = yb;
    rlen[tid] = (int)len;
    __syncwarp();
  }
  // 1. this thread's chunk from zero state
  T z[D];
#pragma unroll
  for (int j = 0; j < D; ++j) z[j] = T(0);
  load_or_skip<F, Tin, STAGED>(false, f, z, stage, rxb, ryb, rlen, x, xb, xm.st, y, yb, ym.st,
                               len, L);
  if (tid == 0) bad = 0;
  __syncthreads();  // staging is reused for the matrices
  GSIIR_STAMP(1);
  // 2. M_i = (A^L)^(2^i)
  checked_step_matrix<F, FC>(A, p, &bad);
  mat_pow<C, D>(M, A, tmp, L, F::LIMIT, &bad);
  square_levels<C, D, K>(M, F::LIMIT, &bad);
  GSIIR_STAMP(2);
  C e[D], zc[D];
  if (bad) {  // serial: thread 0 filters the whole channel
    if (tid == 0) {
      load_state<C, T, D>(zc, zi, zm, c);
#pragma unroll
      for (int j = 0; j < D; ++j) z[j] = narrow<T>(zc[j]);
      run_direct<true>(f, z, x, xm.base(c), xm.st, y, ym.base(c), ym.st, n);
      if (zf) {
#pragma unroll
        for (int j = 0; j < D; ++j) zf[c * zfs + j] = z[j];
      }
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < D; ++j) e[j] = widen<C>(z[j]);
  load_state<C, T, D>(zc, zi, zm, c);
  if (tid == 0 && zi) mat_vec_add<C, D>(e, M, zc);  // chunk 0 starts from zi
  block_scan<C, D, NT, K>(e, buf, M);
  GSIIR_STAMP(3);
  // 3. again from the carried state
  if (tid > 0) {
#pragma unroll
    for (int j = 0; j < D; ++j) zc[j] = buf[(tid - 1) * D + j];
  }
  __syncthreads();  // buf and staging alias
#pragma unroll
  for (int j = 0; j < D; ++j) z[j] = narrow<T>(zc[j]);
  load_or_skip<F, Tin, STAGED>(true, f, z, stage, rxb, ryb, rlen, x, xb, xm.st, y, yb, ym.st,
                               len, L);
  if (zf && len > 0 && t0 + len == n) {
#pragma unroll
    for (int j = 0; j < D; ++j) zf[c * zfs + j] = z[j];
  }
  GSIIR_STAMP(4);
}

// (channel, chunk) of thread g: chunk-fastest for staged layouts (a warp's
// chunks are consecutive in memory), channel-fastest otherwise.
template <bool STAGED>
GS_FI void chunk_of(long long g, long long nch, long long G, long long& c, long long& k) {
  if (STAGED) {
    c = g / G;
    k = g - c * G;
  } else {
    k = g / nch;
    c = g - k * nch;
  }
}

// Shared memory of states/apply: [staging | row info] when STAGED.
template <class F, class Tin, bool STAGED, bool APPLY, int P>
GS_DEV void chunks(const coef_pack<P>& p, const Tin* __restrict__ x, line_map xm,
                   typename F::value_type* __restrict__ y, line_map ym,
                   typename carry_of<typename F::value_type>::type* ws,
                   const typename F::value_type* zi, state_map zm,
                   typename F::value_type* zf, long long zfs, long long n, long long nch,
                   long long G, int L) {
  typedef typename F::value_type T;
  typedef typename carry_of<T>::type C;
  constexpr int D = F::D;
  extern __shared__ __align__(16) char smem[];
  const int nt = blockDim.x;
  char* stage = smem;
  long long* rxb = reinterpret_cast<long long*>(smem + stage_bytes<T>(nt));
  long long* ryb = rxb + nt;
  int* rlen = reinterpret_cast<int*>(ryb + nt);

  const long long g = (long long)blockIdx.x * nt + threadIdx.x;
  long long c, k;
  chunk_of<STAGED>(g, nch, G, c, k);
  const bool valid = g < nch * G;
  const long long t0 = k * L;
  const long long len = valid && t0 < n ? (n - t0 < L ? n - t0 : L) : 0;
  const long long xb = valid ? xm.base(c) + t0 * xm.st : 0;
  const long long yb = valid ? ym.base(c) + t0 * ym.st : 0;
  if constexpr (STAGED) {
    rxb[threadIdx.x] = xb;
    ryb[threadIdx.x] = yb;
    rlen[threadIdx.x] = (int)len;
    __syncwarp();
  }
  F f;
  f.load(p);
  T z[D];
  if (APPLY) {
    C s[D];
    if (ws != nullptr && valid) {
#pragma unroll
      for (int j = 0; j < D; ++j) s[j] = ws[(c * G + k) * D + j];
    } else {
      load_state<C, T, D>(s, valid ? zi : nullptr, zm, c);
    }
#pragma unroll
    for (int j = 0; j < D; ++j) z[j] = narrow<T>(s[j]);
  } else {
#pragma unroll
    for (int j = 0; j < D; ++j) z[j] = T(0);
  }
  load_or_skip<F, Tin, STAGED>(APPLY, f, z, stage, rxb, ryb, rlen, x, xb, xm.st, y, yb, ym.st,
                               len, L);
  if (!valid) return;
  if (APPLY) {
    if (zf && k == G - 1) {
#pragma unroll
      for (int j = 0; j < D; ++j) zf[c * zfs + j] = z[j];
    }
  } else {
#pragma unroll
    for (int j = 0; j < D; ++j) ws[(c * G + k) * D + j] = widen<C>(z[j]);
  }
}

// Shared memory of carry: [flag, 16 bytes][(K + 4) D^2 C | NT D C].
// ws[c, k] (the zero-state final state of chunk k) becomes the state
// entering chunk k.  One block per segment of S consecutive chunks of a
// channel (S = G: one block per channel); thread j owns chunks
// [j m, (j + 1) m) of its segment.  The segment starts from
//   seg_in[c, b]   when seg_in is given (the walk of a segmented carry),
//   zero           when seg_out is given: then ws is only read, and the
//                  state after the segment's last chunk goes to
//                  seg_out[c, b] (the segment totals of a segmented carry),
//   zi[c]          otherwise (S = G).
// A segmented carry runs: totals (seg_out), this kernel with S = G over
// the totals as chunks of L S samples (the segments' incoming states, in
// place), walk (seg_in).  With L, S and m powers of two every matrix of the
// segment kernels is among the squarings of the middle one, so an unhealthy
// segment carry implies an unhealthy middle one, whose serial fallback
// then supplies exact segment starts.  If the carry is not healthy, thread
// 0 runs the serial recursion over the segment's samples instead and
// records the state at every chunk start (totals: nothing).
template <class F, class FC, class Tin, int NT, int K, int P>
GS_DEV void carry(const coef_pack<P>& p, const Tin* __restrict__ x, line_map xm,
                  typename FC::value_type* ws, const typename F::value_type* zi, state_map zm,
                  long long n, long long G, long long m, long long L, long long S,
                  const typename FC::value_type* seg_in, typename FC::value_type* seg_out) {
  typedef typename F::value_type T;
  typedef typename FC::value_type C;
  constexpr int D = FC::D;
  constexpr int DD = D * D;
  extern __shared__ __align__(16) char smem_base[];
  int& bad = *reinterpret_cast<int*>(smem_base);  // carry health flag
  char* smem = smem_base + 16;
  C* M = reinterpret_cast<C*>(smem);  // M_0 .. M_{K-1} = Phi^(m 2^i)
  C* Phi = M + K * DD;
  C* A = Phi + DD;
  C* tmp = A + DD;
  C* pw = tmp + DD;
  C* buf = reinterpret_cast<C*>(smem + align16((long long)(K + 4) * DD * sizeof(C)));
  const long long nb = (G + S - 1) / S;  // segments per channel
  const long long c = blockIdx.x / nb, b = blockIdx.x - c * nb;
  const long long k0 = b * S;                    // first chunk of the segment
  const long long Gs = G - k0 < S ? G - k0 : S;  // its chunks
  const int tid = threadIdx.x;
  GSIIR_STAMP(0);
  if (tid == 0) bad = 0;
  checked_step_matrix<F, FC>(A, p, &bad);
  mat_pow<C, D>(Phi, A, tmp, L, F::LIMIT, &bad);
  mat_copy<C, D>(pw, Phi);
  __syncthreads();
  mat_pow<C, D>(M, pw, tmp, m, F::LIMIT, &bad);
  square_levels<C, D, K>(M, F::LIMIT, &bad);
  GSIIR_STAMP(1);
  C* w = ws + (c * G + k0) * D;
  C zc[D];
  if (seg_in) {
#pragma unroll
    for (int j = 0; j < D; ++j) zc[j] = seg_in[(c * nb + b) * D + j];
  } else if (seg_out) {
#pragma unroll
    for (int j = 0; j < D; ++j) zc[j] = C(0.0);
  } else {
    load_state<C, T, D>(zc, zi, zm, c);
  }
  if (bad) {
    if (tid == 0 && !seg_out) {
      F f;
      f.load(p);
      T z[D];
#pragma unroll
      for (int j = 0; j < D; ++j) z[j] = narrow<T>(zc[j]);
      const long long xb = xm.base(c);
      for (long long k = 0; k < Gs; ++k) {
#pragma unroll
        for (int j = 0; j < D; ++j) w[k * D + j] = widen<C>(z[j]);
        const long long t0 = (k0 + k) * L;
        if (k + 1 < Gs) run_direct<false>(f, z, x, xb + t0 * xm.st, xm.st, (T*)nullptr, 0, 0, L);
      }
    }
    return;
  }
  const long long i0 = tid * m;
  const long long i1 = i0 + m < Gs ? i0 + m : Gs;
  C a[D];
#pragma unroll
  for (int j = 0; j < D; ++j) a[j] = tid == 0 ? zc[j] : C(0.0);
  for (long long i = i0; i < i1; ++i) {
    C v[D];
#pragma unroll
    for (int j = 0; j < D; ++j) v[j] = w[i * D + j];
    mat_vec_add<C, D>(v, Phi, a);
#pragma unroll
    for (int j = 0; j < D; ++j) a[j] = v[j];
  }
  GSIIR_STAMP(2);
  block_scan<C, D, NT, K>(a, buf, M);
  GSIIR_STAMP(3);
  if (tid > 0) {
#pragma unroll
    for (int j = 0; j < D; ++j) zc[j] = buf[(tid - 1) * D + j];
  }
  for (long long i = i0; i < i1; ++i) {
    C v[D];
#pragma unroll
    for (int j = 0; j < D; ++j) {
      v[j] = w[i * D + j];
      if (!seg_out) w[i * D + j] = zc[j];
    }
    mat_vec_add<C, D>(v, Phi, zc);
#pragma unroll
    for (int j = 0; j < D; ++j) zc[j] = v[j];
  }
  if (seg_out && i0 < Gs && i1 == Gs) {
#pragma unroll
    for (int j = 0; j < D; ++j) seg_out[(c * nb + b) * D + j] = zc[j];
  }
  GSIIR_STAMP(4);
}

// lfilter with a single a coefficient: out[t] = sum_k b[k] x[t - k] (+ zi[t]
// for t < N), t in [0, n + N) when zf is wanted (the tail is zf), else
// [0, n).  Blocks of NT outputs of one channel; with SMEM the block's x
// window and the taps sit in shared memory.
template <class Tin, class T, bool SMEM>
GS_DEV void fir(const T* __restrict__ taps, int N, const Tin* __restrict__ x, line_map xm,
                T* __restrict__ y, line_map ym, const T* zi, state_map zm, T* zf, long long n,
                long long nout, long long tiles) {
  extern __shared__ __align__(16) char smem[];
  const int nt = blockDim.x;
  const long long c = blockIdx.x / tiles;
  const long long t0 = (blockIdx.x - c * tiles) * nt;
  const long long t = t0 + threadIdx.x;
  const long long xb = xm.base(c);
  T s = T(0);
  if constexpr (SMEM) {
    T* tp = reinterpret_cast<T*>(smem);
    T* xs = tp + (N + 1);  // xs[i] = x[t0 - N + i], i < nt + N
    for (int i = threadIdx.x; i <= N; i += nt) tp[i] = taps[i];
    for (int i = threadIdx.x; i < nt + N; i += nt) {
      const long long u = t0 - N + i;
      xs[i] = (u >= 0 && u < n) ? gs::cast<T>(x[xb + u * xm.st]) : T(0);
    }
    __syncthreads();
    if (t >= nout) return;
    for (int k = 0; k <= N; ++k) s = s + tp[k] * xs[threadIdx.x + N - k];
  } else {
    if (t >= nout) return;
    for (int k = 0; k <= N; ++k) {
      const long long u = t - k;
      if (u >= 0 && u < n) s = s + taps[k] * gs::cast<T>(x[xb + u * xm.st]);
    }
  }
  if (zi && t < N) s = s + zi[zm.at(c, (int)t)];
  if (t < n)
    y[ym.base(c) + t * ym.st] = s;
  else if (zf)
    zf[c * N + (t - n)] = s;
}

}  // namespace gs_signal_iir
