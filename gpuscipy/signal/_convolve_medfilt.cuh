// Rank selection of gpuscipy.signal.medfilt, medfilt2d and order_filter:
// zero-padded N-d windows (a box, or the nonzero entries of a domain mask),
// the rank-r key of each window.
//
// Values are mapped to unsigned keys whose integer order is the value order
// (floats: sign-magnitude flip, every NaN mapped to the largest key, i.e.
// NumPy's sort order; signed integers: sign bit flipped), so every kernel
// compares integers only.
//
//   net:  box windows of K <= KP values, KP in {3, 9, 25, 49}: the window's
//         keys and KP - K padding keys (KP/2 - r of the smallest key, the rest
//         of the largest, so that the rank-r key of the window sits at KP/2)
//         in registers; Batcher's odd-even merge network for KP inputs,
//         generated at compile time (constexpr), sorts them. The compiler
//         drops every comparator the middle element does not depend on.
//   small: box windows whose rank lies within M of either end: the M
//         smallest (or largest) keys sorted in registers (``select_small``).
//   ring: box windows spanning one axis, K <= KP: each thread slides over a
//         run of consecutive outputs along that axis, its window in a ring of
//         K keys in its own slice of shared memory (no sharing, no barrier).
//         Each step replaces one key, which moves the rank of any key by at
//         most one: one pass over the ring, counting keys below and equal to
//         the previous answer g and finding the nearest keys above and below
//         it, gives the new answer (``refine``).
//   window: any domain mask (an offset list), any ndim: each thread slides
//         over a run along one axis (lanes along the innermost axis, so the
//         window reads coalesce); the first output of a run by a bitwise
//         selection (or refinement from the centre key), the next ones by
//         refinement from the previous answer, one pass per distinct key the
//         rank moves by. Runs whose windows stay inside the volume read with
//         no bounds checks.
#pragma once

#include "gpuscipy/types.cuh"

#define GSMED_MAXDIM 8

namespace gs_signal_medfilt {

// ---- keys ------------------------------------------------------------------
template <class T> struct Key;
#define GSMED_SIGNED(T, U, BIAS)                                                  \
  template <> struct Key<T> {                                                     \
    typedef U type;                                                               \
    GS_FI static U of(T v) { return (U)(v) ^ (U)(BIAS); }                         \
    GS_FI static T back(U k) { return (T)(k ^ (U)(BIAS)); }                       \
  };
#define GSMED_UNSIGNED(T, U)                                                      \
  template <> struct Key<T> {                                                     \
    typedef U type;                                                               \
    GS_FI static U of(T v) { return (U)v; }                                       \
    GS_FI static T back(U k) { return (T)k; }                                     \
  };
GSMED_SIGNED(signed char, unsigned int, 0x80000000u)
GSMED_SIGNED(short, unsigned int, 0x80000000u)
GSMED_SIGNED(int, unsigned int, 0x80000000u)
GSMED_SIGNED(long long, unsigned long long, 0x8000000000000000ull)
GSMED_UNSIGNED(unsigned char, unsigned int)
GSMED_UNSIGNED(unsigned short, unsigned int)
GSMED_UNSIGNED(unsigned int, unsigned int)
GSMED_UNSIGNED(unsigned long long, unsigned long long)
#undef GSMED_SIGNED
#undef GSMED_UNSIGNED

template <> struct Key<float> {
  typedef unsigned int type;
  GS_FI static unsigned int of(float v) {
    if (v != v) return 0xffffffffu;
    const unsigned int u = __float_as_uint(v);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  }
  GS_FI static float back(unsigned int k) {
    if (k == 0xffffffffu) return __uint_as_float(0x7fc00000u);
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
  }
};
template <> struct Key<double> {
  typedef unsigned long long type;
  GS_FI static unsigned long long of(double v) {
    if (v != v) return 0xffffffffffffffffull;
    const unsigned long long u = (unsigned long long)__double_as_longlong(v);
    return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
  }
  GS_FI static double back(unsigned long long k) {
    if (k == 0xffffffffffffffffull) return __longlong_as_double(0x7ff8000000000000ll);
    return __longlong_as_double(
        (long long)((k & 0x8000000000000000ull) ? (k & 0x7fffffffffffffffull) : ~k));
  }
};

// ---- Batcher's odd-even merge network for N inputs (any N) -----------------
template <int N>
struct Net {
  __host__ __device__ static constexpr int count() {
    int c = 0;
    for (int p = 1; p < N; p <<= 1)
      for (int k = p; k >= 1; k >>= 1)
        for (int j = k % p; j <= N - 1 - k; j += 2 * k)
          for (int i = 0; i <= ((k - 1) < (N - j - k - 1) ? (k - 1) : (N - j - k - 1)); ++i)
            if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) ++c;
    return c;
  }
  static constexpr int C = count() > 0 ? count() : 1;
  short a[C], b[C];
  __host__ __device__ constexpr Net() : a(), b() {
    int c = 0;
    for (int p = 1; p < N; p <<= 1)
      for (int k = p; k >= 1; k >>= 1)
        for (int j = k % p; j <= N - 1 - k; j += 2 * k)
          for (int i = 0; i <= ((k - 1) < (N - j - k - 1) ? (k - 1) : (N - j - k - 1)); ++i)
            if ((i + j) / (2 * p) == (i + j + k) / (2 * p)) {
              a[c] = (short)(i + j);
              b[c] = (short)(i + j + k);
              ++c;
            }
  }
};

template <int N, class K>
GS_FI void sort_network(K (&v)[N]) {
  constexpr Net<N> net{};
  constexpr int C = Net<N>::count();
#pragma unroll
  for (int c = 0; c < C; ++c) {
    const K x = v[net.a[c]], y = v[net.b[c]];
    v[net.a[c]] = x < y ? x : y;
    v[net.b[c]] = x < y ? y : x;
  }
}

// Up to three dims (missing leading dims have extent 1 and window 1).
struct Params3 {
  long long shape[3];
  long long stride[3];   // elements
  long long ksize[3];
};

// The window of output o: its first position per dim.
GS_FI void window3(long long o, const Params3& p, long long (&lo)[3]) {
  const long long c2 = o % p.shape[2];
  o /= p.shape[2];
  const long long c1 = o % p.shape[1];
  const long long c0 = o / p.shape[1];
  lo[0] = c0 - p.ksize[0] / 2;
  lo[1] = c1 - p.ksize[1] / 2;
  lo[2] = c2 - p.ksize[2] / 2;
}

// Key of the window element at (lo + k), the key of 0 outside the input.
template <class T>
GS_FI typename Key<T>::type key3(const T* __restrict__ x, const Params3& p,
                                 const long long (&lo)[3], long long k0, long long k1,
                                 long long k2) {
  const long long g0 = lo[0] + k0, g1 = lo[1] + k1, g2 = lo[2] + k2;
  const bool inside = g0 >= 0 && g0 < p.shape[0] && g1 >= 0 && g1 < p.shape[1] &&
                      g2 >= 0 && g2 < p.shape[2];
  return inside ? Key<T>::of(x[g0 * p.stride[0] + g1 * p.stride[1] + g2 * p.stride[2]])
                : Key<T>::of(T(0));
}

GS_FI void advance3(const Params3& p, long long& k0, long long& k1, long long& k2) {
  if (++k2 == p.ksize[2]) {
    k2 = 0;
    if (++k1 == p.ksize[1]) {
      k1 = 0;
      ++k0;
    }
  }
}

// net: grid-stride over the outputs; block 128. ksz = window size <= KP;
// rank < ksz with 0 <= KP/2 - rank <= KP - ksz (the host checks).
template <class T, int KP>
__device__ void median_net(const T* __restrict__ x, T* __restrict__ out, long long total,
                           long long ksz, long long rank, Params3 p) {
  typedef typename Key<T>::type U;
  const long long lo_pad = KP / 2 - rank;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (long long)gridDim.x * blockDim.x) {
    long long lo[3];
    window3(o, p, lo);
    long long k0 = 0, k1 = 0, k2 = 0;
    U v[KP];
#pragma unroll
    for (int i = 0; i < KP; ++i) {
      if (i < ksz) {
        v[i] = key3<T>(x, p, lo, k0, k1, k2);
        advance3(p, k0, k1, k2);
      } else {
        v[i] = (i - ksz < lo_pad) ? U(0) : ~U(0);
      }
    }
    sort_network<KP>(v);
    out[o] = Key<T>::back(v[KP / 2]);
  }
}

// small: box windows of any size over <= 3 axes when the rank is near either
// end, m = min(rank + 1, ksz - rank) <= M: the m smallest keys (of the keys
// complemented when the rank is near the top, `flip`) kept sorted in
// registers, each window key bubbled through them: ksz * M compare-exchanges
// (a 5 x 5 window at rank 3 takes 100 where the 49-input network, whose
// padding is known only at run time, keeps several hundred). block 128.
template <int M, class U>
GS_FI void bubble(U (&s)[M], U v) {
#pragma unroll
  for (int j = 0; j < M; ++j) {
    const U a = s[j];
    s[j] = v < a ? v : a;
    v = v < a ? a : v;
  }
}

template <class T, int M>
__device__ void select_small(const T* __restrict__ x, T* __restrict__ out, long long total,
                             long long ksz, long long rank, long long flip, Params3 p) {
  typedef typename Key<T>::type U;
  const U f = flip ? ~U(0) : U(0);
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (long long)gridDim.x * blockDim.x) {
    long long lo[3];
    window3(o, p, lo);
    U s[M];
#pragma unroll
    for (int j = 0; j < M; ++j) s[j] = ~U(0);
    bool inside = true;
#pragma unroll
    for (int d = 0; d < 3; ++d) inside = inside && lo[d] >= 0 && lo[d] + p.ksize[d] <= p.shape[d];
    if (inside) {   // no bounds checks: rows of the box from one corner pointer
      const T* q0 = x + lo[0] * p.stride[0] + lo[1] * p.stride[1] + lo[2] * p.stride[2];
      for (long long i0 = 0; i0 < p.ksize[0]; ++i0)
        for (long long i1 = 0; i1 < p.ksize[1]; ++i1) {
          const T* q = q0 + i0 * p.stride[0] + i1 * p.stride[1];
          for (long long i2 = 0; i2 < p.ksize[2]; ++i2) bubble<M>(s, Key<T>::of(q[i2 * p.stride[2]]) ^ f);
        }
    } else {
      long long k0 = 0, k1 = 0, k2 = 0;
      for (long long i = 0; i < ksz; ++i) {
        bubble<M>(s, key3<T>(x, p, lo, k0, k1, k2) ^ f);
        advance3(p, k0, k1, k2);
      }
    }
    U r = s[0];
#pragma unroll
    for (int j = 1; j < M; ++j) r = (j == rank) ? s[j] : r;
    out[o] = Key<T>::back(r ^ f);
  }
}

// ---- sliding selection (ring and window kernels) ---------------------------

struct SelParams {
  long long ndim;
  long long shape[GSMED_MAXDIM];    // volume = output shape
  long long stride[GSMED_MAXDIM];   // input strides, elements
  long long ostride[GSMED_MAXDIM];  // output strides, elements
  long long half[GSMED_MAXDIM];     // window centre: ksize // 2
  long long tshape[GSMED_MAXDIM];   // thread grid: shape, runs along axis
  long long axis;                   // the axis the runs slide along
  long long run;                    // outputs per run
  long long threads;                // prod(tshape)
  long long k;                      // keys per window
  long long rank;                   // 0 <= rank < k
  long long init;                   // first output: 0 auto, 1 bitwise, 2 refine
  long long row;                    // box windows: keys per row of the last axis, else 0
};

// One refinement pass over a window: keys below g, keys equal to g, and the
// nearest keys above and below g as unsigned distances (x - g - 1 wraps to
// values larger than any distance of a key above g when x <= g; likewise
// g - 1 - x), so plain minima find them.
template <class U>
struct Refine {
  int lt, eq;
  U up, dn;
  GS_FI void reset() {
    lt = 0;
    eq = 0;
    up = ~U(0);
    dn = ~U(0);
  }
  GS_FI void add(U x, U g) {
    lt += x < g;
    eq += x == g;
    const U a = x - g - U(1), b = g - U(1) - x;
    up = a < up ? a : up;
    dn = b < dn ? b : dn;
  }
  // true when the rank-r key is g, or is the neighbour g moves to.
  GS_FI bool step(int r, U& g) const {
    if (r < lt) {
      g = g - U(1) - dn;
      return r + 1 == lt;
    }
    if (r >= lt + eq) {
      g = g + U(1) + up;
      return r == lt + eq;
    }
    return true;
  }
};

// Window visitors call op(key) on every key of a window; ops accumulate.
// (Functors, not lambdas: some NVRTC versions take generic lambdas in device
// code for host functions.)
template <class U>
struct RefineOp {
  Refine<U> st;
  U g;
  GS_FI void operator()(U x) { st.add(x, g); }
};

template <class U>
struct CountLE {
  U hi;
  int cnt;
  GS_FI void operator()(U x) { cnt += x <= hi; }
};

// The rank-r key of a window by refinement from g (one pass per distinct key
// between g and the answer).
template <class U, class V>
GS_FI U refine_from(U g, int r, const V& visit) {
  for (;;) {
    RefineOp<U> op;
    op.st.reset();
    op.g = g;
    visit(op);
    if (op.st.step(r, g)) return g;
  }
}

// The rank-r key by bitwise selection: the smallest m with #{keys <= m} > r,
// decided bit by bit from the top (one pass per key bit).
template <class U, class V>
GS_FI U bitwise_select(int r, const V& visit) {
  constexpr int BITS = 8 * sizeof(U);
  U result = 0;
  for (int b = BITS - 1; b >= 0; --b) {
    CountLE<U> op;
    op.hi = result | ((U(1) << b) - U(1));   // bit b clear, lower bits set
    op.cnt = 0;
    visit(op);
    if (op.cnt <= r) result |= U(1) << b;
  }
  return result;
}

template <class U, class V>
GS_FI U first_select(const SelParams& p, U centre, const V& visit) {
  constexpr long long BITS = 8 * sizeof(U);
  const bool bitwise = p.init == 1 || (p.init == 0 && p.k > 2 * BITS);
  return bitwise ? bitwise_select<U>((int)p.rank, visit)
                 : refine_from<U>(centre, (int)p.rank, visit);
}

// The ring: key j at my[j * BLOCK].
template <class U, int BLOCK>
struct RingWindow {
  const U* my;
  int k;
  template <class F>
  GS_FI void operator()(F& f) const {
    for (int j = 0; j < k; ++j) f(my[j * BLOCK]);
  }
};

// A window inside the volume: keys at x[base + off[e]].
template <class T>
struct FastWindow {
  const T* x;
  const long long* off;
  long long base;
  int k;
  template <class F>
  GS_FI void operator()(F& f) const {
    for (int e = 0; e < k; ++e) f(Key<T>::of(x[base + off[e]]));
  }
};

// A box window inside the volume, row by row: rows start at x[base + off[e]]
// for e = 0, w, 2w, ... and hold w keys sl apart (one offset load per row, not
// per key).
template <class T>
struct BoxWindow {
  const T* x;
  const long long* off;
  long long base, sl;
  int k, w;
  template <class F>
  GS_FI void operator()(F& f) const {
    for (int e = 0; e < k; e += w) {
      const T* row = x + base + off[e];
      for (int j = 0; j < w; ++j) f(Key<T>::of(row[j * sl]));
    }
  }
};

// A window crossing the volume's edges: lo[d] its first position along d,
// coord[e * nd + d] the positions of the mask's elements in it; the key of 0
// outside.
template <class T, int ND>
struct CheckedWindow {
  const T* x;
  const long long* off;
  const int* coord;
  const long long* shape;
  long long lo[ND];
  long long base;
  int k, nd;
  typename Key<T>::type zero;
  template <class F>
  GS_FI void operator()(F& f) const {
    for (int e = 0; e < k; ++e) {
      bool in = true;
#pragma unroll
      for (int d = 0; d < ND; ++d) {
        if (d >= nd) break;
        const long long q = lo[d] + coord[e * nd + d];
        in = in && q >= 0 && q < shape[d];
      }
      f(in ? Key<T>::of(x[base + off[e]]) : zero);
    }
  }
};

// Coordinates of thread t in the thread grid (ndim <= ND); c[axis] is its
// run. Unrolled loops keep every index static (no local copy of p).
template <int ND>
GS_FI void thread_coords(long long t, const SelParams& p, long long (&c)[ND]) {
#pragma unroll
  for (int d = ND - 1; d >= 0; --d) {
    if (d < p.ndim) {
      c[d] = t % p.tshape[d];
      t /= p.tshape[d];
    } else {
      c[d] = 0;
    }
  }
}

// half window, extent and strides of the slide axis (static indices).
template <int ND>
GS_FI void axis_params(const SelParams& p, long long& h, long long& n, long long& sx,
                       long long& so) {
  h = n = sx = so = 0;
#pragma unroll
  for (int d = 0; d < ND; ++d)
    if (d == p.axis) {
      h = p.half[d];
      n = p.shape[d];
      sx = p.stride[d];
      so = p.ostride[d];
    }
}

// ring: box windows along p.axis only (k = 2 * half[axis] + 1 <= KP), up to
// three dims.
template <class T, int KP, int BLOCK>
__device__ void select_ring(const T* __restrict__ x, T* __restrict__ out, SelParams p) {
  typedef typename Key<T>::type U;
  __shared__ U ring[KP * BLOCK];
  U* const my = ring + threadIdx.x;   // key j at my[j * BLOCK]
  const int k = (int)p.k, r = (int)p.rank, a = (int)p.axis;
  long long h, n, sx, so;
  axis_params<3>(p, h, n, sx, so);
  const U zero = Key<T>::of(T(0));
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < p.threads;
       t += (long long)gridDim.x * blockDim.x) {
    long long c[3];
    thread_coords<3>(t, p, c);
    long long ib = 0, ob = 0, ca = 0;
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      if (d >= p.ndim) break;
      if (d != a) {
        ib += c[d] * p.stride[d];
        ob += c[d] * p.ostride[d];
      } else {
        ca = c[d];
      }
    }
    const long long s0 = ca * p.run;
    const long long s1 = s0 + p.run < n ? s0 + p.run : n;
    for (int j = 0; j < k; ++j) {
      const long long q = s0 - h + j;
      my[j * BLOCK] = (q >= 0 && q < n) ? Key<T>::of(x[ib + q * sx]) : zero;
    }
    RingWindow<U, BLOCK> visit;
    visit.my = my;
    visit.k = k;
    U g = first_select<U>(p, my[h * BLOCK], visit);
    out[ob + s0 * so] = Key<T>::back(g);
    int head = 0;   // the oldest key's slot
    for (long long s = s0 + 1; s < s1; ++s) {
      const long long q = s + h;
      my[head * BLOCK] = (q < n) ? Key<T>::of(x[ib + q * sx]) : zero;
      head = head + 1 == k ? 0 : head + 1;
      g = refine_from<U>(g, r, visit);
      out[ob + s * so] = Key<T>::back(g);
    }
  }
}

// window: any mask, ndim <= ND. off[e]: input offset of mask element e from
// the window's first corner; coord[e * ndim + d]: its position in the window
// along d.
template <class T, int ND>
__device__ void select_window(const T* __restrict__ x, T* __restrict__ out,
                              const long long* __restrict__ off,
                              const int* __restrict__ coord, SelParams p) {
  typedef typename Key<T>::type U;
  const int k = (int)p.k, r = (int)p.rank, a = (int)p.axis, nd = (int)p.ndim;
  long long h, n, sx, so;
  axis_params<ND>(p, h, n, sx, so);
  const U zero = Key<T>::of(T(0));
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < p.threads;
       t += (long long)gridDim.x * blockDim.x) {
    long long c[ND];
    thread_coords<ND>(t, p, c);
    long long ca = 0;
#pragma unroll
    for (int d = 0; d < ND; ++d)
      if (d == a) ca = c[d];
    const long long s0 = ca * p.run;
    const long long s1 = s0 + p.run < n ? s0 + p.run : n;
    long long ib = 0, ob = 0, cb = 0;   // cb: centre offset, for the first guess
    bool inside = s0 - h >= 0 && s1 - 1 + h < n;
#pragma unroll
    for (int d = 0; d < ND; ++d) {
      if (d >= nd) break;
      if (d == a) {
        ib -= h * sx;
        continue;
      }
      ib += (c[d] - p.half[d]) * p.stride[d];
      cb += c[d] * p.stride[d];
      ob += c[d] * p.ostride[d];
      inside = inside && c[d] - p.half[d] >= 0 && c[d] + p.half[d] < p.shape[d];
    }
    FastWindow<T> fast;
    fast.x = x;
    fast.off = off;
    fast.k = k;
    BoxWindow<T> box;
    box.x = x;
    box.off = off;
    box.k = k;
    box.w = (int)p.row;
    box.sl = 0;
#pragma unroll
    for (int d = 0; d < ND; ++d)
      if (d == nd - 1) box.sl = p.stride[d];
    const bool rows = p.row > 0;
    CheckedWindow<T, ND> checked;
    checked.x = x;
    checked.off = off;
    checked.coord = coord;
    checked.shape = p.shape;
    checked.k = k;
    checked.nd = nd;
    checked.zero = zero;
#pragma unroll
    for (int d = 0; d < ND; ++d) checked.lo[d] = d < nd ? c[d] - p.half[d] : 0;
    U g = 0;
    for (long long s = s0; s < s1; ++s) {
      const long long base = ib + s * sx;
      fast.base = box.base = checked.base = base;
#pragma unroll
      for (int d = 0; d < ND; ++d)
        if (d == a) checked.lo[d] = s - h;
      if (s == s0) {
        const U centre = Key<T>::of(x[cb + s * sx]);
        g = !inside ? first_select<U>(p, centre, checked)
            : rows  ? first_select<U>(p, centre, box)
                    : first_select<U>(p, centre, fast);
      } else {
        g = !inside ? refine_from<U>(g, r, checked)
            : rows  ? refine_from<U>(g, r, box)
                    : refine_from<U>(g, r, fast);
      }
      out[ob + s * so] = Key<T>::back(g);
    }
  }
}

}  // namespace gs_signal_medfilt
