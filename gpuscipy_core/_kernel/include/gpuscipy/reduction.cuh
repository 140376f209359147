// Device side of gpuscipy reductions (the host side is
// gpuscipy_core/_kernel/_reduction_kernel.py, the renderer _reduction_source.py).
//
// One canonical problem: M outputs, each the reduction of N inputs. The host
// moves the reduced axes last, collapses axes, and describes the layout in a
// `geometry` (byte strides): input k of output o, reduce index r lives at
//     in[k] + sum_d idx_o[d] * ostride_in[k][d] + sum_d idx_r[d] * rstride[k][d]
// where idx_o / idx_r are o / r unravelled over oshape / rshape (C order).
//
// A block of 256 threads holds O = 2^log_o output lanes and R = 256 / O
// reduce lanes. The host chooses the thread layout:
//   inner (the reduced axis is the fastest in memory): r_lane = t % R,
//       o_lane = t / R -- a block (R = 256) or a group of R lanes (a warp or
//       less, for short rows) per output, loads strided by thread along r;
//   outer (an output axis is the fastest): o_lane = t % O, r_lane = t / O --
//       consecutive threads take consecutive outputs (coalesced across
//       outputs), each looping over the reduced axis.
// Lanes of one output combine with warp shuffles, then through shared memory.
//
// Long reductions with few outputs are split across blocks (grid y): mode 1
// writes one partial per (output, block) in the accumulator type to `temp`;
// a second launch of the same kernel in mode 2 reduces the partials and
// applies the post-map. Mode 0 does everything in one launch.
//
// An OP (generated, see _reduction_source.py) provides:
//   typedef acc_t;                                    the reduce type
//   static acc_t identity();                          (when HAS_ID)
//   static acc_t reduce(const acc_t&, const acc_t&);  associative, commutative
//   template <class I> static acc_t load_map(const P&, const char* const* in,
//                                            const I* byte_off, long long j);
//   static acc_t map_value(const P&, const in0_t&, long long j);  (VEC > 1)
//   template <class I> static void store_post(const P&, const acc_t&,
//                                             char* const* out, const I* off,
//                                             long long n);
// `j` is the C-order index over the reduced axes (CuPy's `_J`); `n` is the
// number of elements reduced into each output. Outputs reach the post-map as
// gs::red::out_ref<T> (assignment converts with gs::cast).
//
// Limits: acc_t must be trivially copyable (it is shuffled as 4-byte words)
// and at most about 180 bytes (256 lanes of it are staged in 48 KiB of
// static shared memory); the reduce expression must be associative and
// commutative, since the combination order is not fixed.
//
// Accumulators for floating sums: float64 sums in gs::red::ksum, a float64
// value plus the sum of its additions' exact errors (Knuth's TwoSum;
// Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., sec.
// 4.3), both per thread and in the tree, so they carry about twice the
// working precision; float16/float32 sums accumulate in float64.
#pragma once
#include <gpuscipy/types.cuh>

namespace gs {
namespace red {

constexpr int kLogBlock = 8;
constexpr int kBlock = 1 << kLogBlock;
constexpr int kUnroll = 4;
// The vector-load loop (contiguous rows): GS_RED_VEC_UNROLL vectors in
// flight per thread, and one accumulator per vector lane (GS_RED_VEC_LANES
// 1) so consecutive adds do not wait on each other.
#ifndef GS_RED_VEC_UNROLL
#define GS_RED_VEC_UNROLL 4
#endif
#ifndef GS_RED_VEC_LANES
#define GS_RED_VEC_LANES 1
#endif
constexpr int kVecUnroll = GS_RED_VEC_UNROLL;

// ---------------------------------------------------------------------------
// Value helpers: NaN tests, orderings, bounds
// ---------------------------------------------------------------------------
template <class T> GS_FI bool is_nan(const T&) { return false; }  // bool, integers
GS_FI bool is_nan(float x) { return ::isnan(x); }
GS_FI bool is_nan(double x) { return ::isnan(x); }
GS_FI bool is_nan(half x) { return (x.bits & 0x7fffu) > 0x7c00u; }
template <class T> GS_FI bool is_nan(const complex<T>& z) { return ::isnan(z.re) || ::isnan(z.im); }
template <class T> GS_FI bool is_finite(const T&) { return true; }  // bool, integers
GS_FI bool is_finite(float x) { return ::isfinite(x); }
GS_FI bool is_finite(double x) { return ::isfinite(x); }
GS_FI bool is_finite(half x) { return (x.bits & 0x7c00u) != 0x7c00u; }
template <class T> GS_FI bool is_finite(const complex<T>& z) { return ::isfinite(z.re) && ::isfinite(z.im); }

// a < b; complex numbers are ordered lexicographically (NumPy's order).
template <class T> GS_FI bool lt(const T& a, const T& b) { return a < b; }
GS_FI bool lt(half a, half b) { return float(a) < float(b); }
template <class T> GS_FI bool lt(const complex<T>& a, const complex<T>& b) {
  return a.re < b.re || (a.re == b.re && a.im < b.im);
}

// The largest / smallest value of T (infinities for floating types).
template <class T> GS_FI T upper() {
  if constexpr (is_complex<T>::value) {
    typedef typename T::value_type R;
    return T(numeric_traits<R>::infinity(), numeric_traits<R>::infinity());
  } else if constexpr (is_floating<T>::value) {
    return numeric_traits<T>::infinity();
  } else {
    return numeric_traits<T>::max();
  }
}
template <class T> GS_FI T lower() {
  if constexpr (is_complex<T>::value) {
    typedef typename T::value_type R;
    return T(-numeric_traits<R>::infinity(), -numeric_traits<R>::infinity());
  } else if constexpr (is_floating<T>::value) {
    return -numeric_traits<T>::infinity();
  } else {
    return numeric_traits<T>::lowest();
  }
}
template <class T> GS_FI T nan() { return numeric_traits<T>::quiet_nan(); }

// ---------------------------------------------------------------------------
// Reduction operators
// ---------------------------------------------------------------------------
// minimum / maximum: NaN propagates (NumPy's minimum.reduce / maximum.reduce).
template <class T> GS_FI T min_op(const T& a, const T& b) {
  if (red::is_nan(a)) return a;
  if (red::is_nan(b)) return b;
  return red::lt(b, a) ? b : a;
}
template <class T> GS_FI T max_op(const T& a, const T& b) {
  if (red::is_nan(a)) return a;
  if (red::is_nan(b)) return b;
  return red::lt(a, b) ? b : a;
}
// fmin / fmax: NaN is skipped (NaN only when both are NaN).
template <class T> GS_FI T fmin_op(const T& a, const T& b) {
  if (red::is_nan(b)) return a;
  if (red::is_nan(a)) return b;
  return red::lt(b, a) ? b : a;
}
template <class T> GS_FI T fmax_op(const T& a, const T& b) {
  if (red::is_nan(b)) return a;
  if (red::is_nan(a)) return b;
  return red::lt(a, b) ? b : a;
}

// argmin / argmax: (value, index); the first NaN wins, ties go to the lower index.
template <class T> struct arg {
  T v;
  long long i;
};
template <class T> GS_FI arg<T> make_arg(const T& v, long long i) {
  arg<T> r;
  r.v = v;
  r.i = i;
  return r;
}
template <class T> GS_FI arg<T> argmin_op(const arg<T>& a, const arg<T>& b) {
  const bool an = red::is_nan(a.v), bn = red::is_nan(b.v);
  if (an || bn) {
    if (an && bn) return a.i <= b.i ? a : b;
    return an ? a : b;
  }
  if (red::lt(b.v, a.v)) return b;
  if (red::lt(a.v, b.v)) return a;
  return a.i <= b.i ? a : b;
}
template <class T> GS_FI arg<T> argmax_op(const arg<T>& a, const arg<T>& b) {
  const bool an = red::is_nan(a.v), bn = red::is_nan(b.v);
  if (an || bn) {
    if (an && bn) return a.i <= b.i ? a : b;
    return an ? a : b;
  }
  if (red::lt(a.v, b.v)) return b;
  if (red::lt(b.v, a.v)) return a;
  return a.i <= b.i ? a : b;
}

// Compensated float64 sum: value = hi + lo, where hi is the plain running
// sum and lo gathers the exact rounding error of every addition to hi
// (Knuth's TwoSum), summed plainly. No renormalisation and no finiteness
// test per addition (8 flops instead of 13 with both; the float64 sum of
// 2^27 elements is memory-bound again): lo's own rounding is of order
// (k u)^2 * sum|x| for chains of k additions, far below the result's last
// bit. Once hi is inf or NaN it stays so (lo may then be NaN), and
// acc_value returns hi alone.
struct ksum {
  double hi, lo;
};
GS_FI ksum make_ksum(double x) {
  ksum r;
  r.hi = x;
  r.lo = 0.0;
  return r;
}
GS_FI ksum acc_add(const ksum& a, const ksum& b) {
  const double s = a.hi + b.hi;  // TwoSum: s + e == a.hi + b.hi exactly
  const double bv = s - a.hi;
  const double e = (a.hi - (s - bv)) + (b.hi - bv);
  ksum r;
  r.hi = s;
  r.lo = (a.lo + b.lo) + e;
  return r;
}
GS_FI double acc_value(const ksum& a) { return ::isfinite(a.hi) ? a.hi + a.lo : a.hi; }

struct ksum_c {
  ksum re, im;
};
GS_FI ksum_c make_ksum(const complex<double>& z) {
  ksum_c r;
  r.re = make_ksum(z.re);
  r.im = make_ksum(z.im);
  return r;
}
GS_FI ksum_c acc_add(const ksum_c& a, const ksum_c& b) {
  ksum_c r;
  r.re = red::acc_add(a.re, b.re);
  r.im = red::acc_add(a.im, b.im);
  return r;
}
GS_FI complex<double> acc_value(const ksum_c& a) { return complex<double>(red::acc_value(a.re), red::acc_value(a.im)); }

// Plain sums and products; signed integers wrap modulo 2^64 (NumPy's result).
template <class T> GS_FI T acc_add(const T& a, const T& b) { return a + b; }
GS_FI long long acc_add(long long a, long long b) {
  return (long long)((unsigned long long)a + (unsigned long long)b);
}
template <class T> GS_FI T acc_mul(const T& a, const T& b) { return a * b; }
GS_FI long long acc_mul(long long a, long long b) {
  return (long long)((unsigned long long)a * (unsigned long long)b);
}
GS_FI double acc_value(double a) { return a; }
GS_FI complex<double> acc_value(const complex<double>& a) { return a; }

// (sum, count) for the NaN-skipping means.
template <class S> struct sum_count {
  S s;
  long long n;
};
template <class S> GS_FI sum_count<S> make_sum_count(const S& s, long long n) {
  sum_count<S> r;
  r.s = s;
  r.n = n;
  return r;
}
template <class S> GS_FI sum_count<S> acc_add(const sum_count<S>& a, const sum_count<S>& b) {
  return red::make_sum_count(red::acc_add(a.s, b.s), a.n + b.n);
}

// |x|^2 in float64 (the variance's squared deviation).
GS_FI double sq_abs(double x) { return x * x; }
GS_FI double sq_abs(const complex<double>& z) { return z.re * z.re + z.im * z.im; }

// Divisor of the variance: max(n - ddof, 0) (NumPy's rule).
GS_FI double dof(long long n, double ddof) {
  const double d = (double)n - ddof;
  return d > 0.0 ? d : 0.0;
}

// An output element as the post-map sees it: assigning any of the 14 types
// converts with NumPy's casting (gs::cast), so `y = a` works whatever the
// types of y and a (CuPy's post_map_expr style); reading gives the value.
template <class T> struct out_ref {
  T* p;
  template <class U> GS_FI out_ref& operator=(const U& v) {
    if constexpr (is_same<U, T>::value) {
      *p = v;
    } else {
      *p = cast<T>(v);
    }
    return *this;
  }
  template <class U> GS_FI out_ref& operator=(const out_ref<U>& v) { return *this = *v.p; }
  GS_FI out_ref& operator=(const out_ref& v) { return *this = *v.p; }
  GS_FI operator T() const { return *p; }
};

// ---------------------------------------------------------------------------
// Engine
// ---------------------------------------------------------------------------
// Layout of one launch (all fields 8 bytes; mirrored by the host).
template <int NIN, int NOUT, int OND, int RND>
struct geometry {
  const char* in[NIN];
  char* out[NOUT];
  char* temp;              // partials (acc_t), modes 1 and 2
  long long m;             // number of outputs
  long long n;             // reduce length of this launch (mode 2: partials)
  long long n_total;       // elements reduced into each output (post-map's _n)
  long long chunk;         // reduce elements per block along grid y (modes 0, 1)
  long long nsplit;        // number of chunks (partials per output)
  long long mode;          // 0: full, 1: partials, 2: combine partials
  long long log_o;         // log2 of output lanes per block
  long long inner;         // thread layout: 1 inner, 0 outer
  long long temp_ostride;  // partial index = o * temp_ostride + g * temp_gstride
  long long temp_gstride;
  long long oshape[OND];
  long long ostride_in[NIN][OND];
  long long ostride_out[NOUT][OND];
  long long rshape[RND];
  long long rstride[NIN][RND];
};

// N elements of T in one aligned 16-byte access.
template <class T, int N> struct alignas(sizeof(T) * N) rvec {
  T v[N];
};

// Per-thread state: the accumulator, plus a "has a value" flag when the
// operation has no identity.
template <class OP, bool HAS_ID> struct lane;
template <class OP> struct lane<OP, true> {
  typedef typename OP::acc_t A;
  A v;
  GS_FI void init() { v = OP::identity(); }
  GS_FI void add(const A& x) { v = OP::reduce(v, x); }
  GS_FI void merge(const lane& o) { v = OP::reduce(v, o.v); }
};
template <class OP> struct lane<OP, false> {
  typedef typename OP::acc_t A;
  A v;
  int ok;
  GS_FI void init() { ok = 0; }
  GS_FI void add(const A& x) {
    if (ok) {
      v = OP::reduce(v, x);
    } else {
      v = x;
      ok = 1;
    }
  }
  GS_FI void merge(const lane& o) {
    if (o.ok) add(o.v);
  }
};

// __shfl_xor_sync for any trivially copyable type, 4 bytes at a time.
template <class T> GS_FI T shfl_xor(const T& v, int mask) {
  constexpr int W = (int)((sizeof(T) + 3) / 4);
  int w[W];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int k = 0; k < W; ++k) w[k] = __shfl_xor_sync(0xffffffffu, w[k], mask);
  T r;
  memcpy(&r, w, sizeof(T));
  return r;
}

// Combine the lanes of each output: the thread with r_lane == 0 ends with the
// block's result. Every thread of the block must call this.
template <class L>
__device__ __forceinline__ void block_combine(L& st, int t, int log_o, bool inner, L* sm) {
  const int lr = kLogBlock - log_o;
  int count, step;
  if (inner) {
    const int nb = lr < 5 ? lr : 5;
    for (int b = 0; b < nb; ++b) st.merge(shfl_xor(st, 1 << b));
    count = lr > 5 ? 1 << (lr - 5) : 1;
    step = 32;
  } else {
    for (int b = log_o; b < 5; ++b) st.merge(shfl_xor(st, 1 << b));
    const int s = log_o > 5 ? log_o : 5;
    count = 1 << (kLogBlock - s);
    step = 1 << s;
  }
  if (count > 1) {
    sm[t] = st;
    __syncthreads();
    const int r_lane = inner ? (t & ((1 << lr) - 1)) : (t >> log_o);
    if (r_lane == 0) {
      for (int k = 1; k < count; ++k) st.merge(sm[t + k * step]);
    }
    __syncthreads();
  }
}

// Byte offsets of output `o` (unravelled over oshape) for NK arrays.
template <int NK, int OND, class I>
GS_FI void out_offsets(const long long (&shape)[OND], const long long (&stride)[NK][OND],
                       I o, I* off) {
#pragma unroll
  for (int k = 0; k < NK; ++k) off[k] = 0;
  I rem = o;
#pragma unroll
  for (int d = OND - 1; d >= 0; --d) {
    I c;
    if (d == 0) {
      c = rem;
    } else {
      const I len = (I)shape[d];
      c = rem % len;
      rem = rem / len;
    }
#pragma unroll
    for (int k = 0; k < NK; ++k) off[k] += c * (I)stride[k][d];
  }
}

// Byte offsets of reduce index r added to `base`.
template <int NIN, int RND, class I>
GS_FI void red_offsets(const long long (&shape)[RND], const long long (&stride)[NIN][RND],
                       const I* base, I r, I* off) {
  if constexpr (RND == 1) {
#pragma unroll
    for (int k = 0; k < NIN; ++k) off[k] = base[k] + r * (I)stride[k][0];
  } else {
#pragma unroll
    for (int k = 0; k < NIN; ++k) off[k] = base[k];
    I rem = r;
#pragma unroll
    for (int d = RND - 1; d >= 0; --d) {
      I c;
      if (d == 0) {
        c = rem;
      } else {
        const I len = (I)shape[d];
        c = rem % len;
        rem = rem / len;
      }
#pragma unroll
      for (int k = 0; k < NIN; ++k) off[k] += c * (I)stride[k][d];
    }
  }
}

template <class OP, class P, int NIN, int NOUT, int OND, int RND, class I, int VEC, bool HAS_ID>
__device__ __forceinline__ void reduce(const P& p) {
  typedef typename OP::acc_t A;
  typedef lane<OP, HAS_ID> L;
  __shared__ __align__(16) unsigned char smem[kBlock * sizeof(L)];
  L* sm = reinterpret_cast<L*>(smem);
  const geometry<NIN, NOUT, OND, RND>& g = p.g;

  const int t = (int)threadIdx.x;
  const int log_o = (int)g.log_o;
  const int lr = kLogBlock - log_o;
  const bool inner = g.inner != 0;
  const int r_lane = inner ? (t & ((1 << lr) - 1)) : (t >> log_o);
  const int o_lane = inner ? (t >> lr) : (t & ((1 << log_o) - 1));
  const I R = (I)1 << lr;
  const I O = (I)1 << log_o;
  const I M = (I)g.m;
  const int mode = (int)g.mode;
  I c0, c1;
  if (mode == 2) {
    c0 = 0;
    c1 = (I)g.nsplit;
  } else {
    c0 = (I)blockIdx.y * (I)g.chunk;
    c1 = c0 + (I)g.chunk;
    if (c1 > (I)g.n) c1 = (I)g.n;
  }

  for (I ob = (I)blockIdx.x * O; ob < M; ob += (I)gridDim.x * O) {
    const I o = ob + (I)o_lane;
    L st;
    st.init();
    if (o < M) {
      if (mode == 2) {
        const A* tp = reinterpret_cast<const A*>(g.temp);
        const I tos = (I)g.temp_ostride, tgs = (I)g.temp_gstride;
        for (I r = c0 + r_lane; r < c1; r += R) st.add(tp[o * tos + r * tgs]);
      } else {
        I base[NIN];
        out_offsets<NIN, OND, I>(g.oshape, g.ostride_in, o, base);
        I r = c0 + r_lane;
        if constexpr (VEC > 1) {
          // Contiguous rows, 16-byte aligned (host-checked): vector loads.
          typedef typename OP::in0_t T0;
          typedef rvec<T0, VEC> V;
          const V* vp = reinterpret_cast<const V*>(g.in[0] + base[0]) + c0 / VEC;
          const I nv = (c1 - c0) / VEC;
          constexpr int NA = GS_RED_VEC_LANES ? VEC : 1;
          L acc[NA];
#pragma unroll
          for (int k = 0; k < NA; ++k) acc[k].init();
          I v = r_lane;
          for (; v + (kVecUnroll - 1) * R < nv; v += kVecUnroll * R) {
            V buf[kVecUnroll];
#pragma unroll
            for (int u = 0; u < kVecUnroll; ++u) buf[u] = vp[v + u * R];
#pragma unroll
            for (int u = 0; u < kVecUnroll; ++u) {
#pragma unroll
              for (int k = 0; k < VEC; ++k) {
                acc[k % NA].add(OP::map_value(p, buf[u].v[k], (long long)(c0 + (v + u * R) * VEC + k)));
              }
            }
          }
          for (; v < nv; v += R) {
            const V x = vp[v];
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
              acc[k % NA].add(OP::map_value(p, x.v[k], (long long)(c0 + v * VEC + k)));
            }
          }
#pragma unroll
          for (int k = 0; k < NA; ++k) st.merge(acc[k]);
          r = c0 + nv * VEC + r_lane;
        } else {
          for (; r + (kUnroll - 1) * R < c1; r += kUnroll * R) {
            A buf[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
              I off[NIN];
              red_offsets<NIN, RND, I>(g.rshape, g.rstride, base, r + u * R, off);
              buf[u] = OP::load_map(p, g.in, off, (long long)(r + u * R));
            }
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) st.add(buf[u]);
          }
        }
        for (; r < c1; r += R) {
          I off[NIN];
          red_offsets<NIN, RND, I>(g.rshape, g.rstride, base, r, off);
          st.add(OP::load_map(p, g.in, off, (long long)r));
        }
      }
    }
    block_combine(st, t, log_o, inner, sm);
    if (r_lane == 0 && o < M) {
      if (mode == 1) {
        reinterpret_cast<A*>(g.temp)[o * (I)g.temp_ostride + (I)blockIdx.y * (I)g.temp_gstride] = st.v;
      } else {
        I off[NOUT];
        out_offsets<NOUT, OND, I>(g.oshape, g.ostride_out, o, off);
        OP::store_post(p, st.v, g.out, off, g.n_total);
      }
    }
  }
}

}  // namespace red
}  // namespace gs
