// Median filter of gpuscipy.signal.medfilt: zero-padded N-d windows.
//
// Values are mapped to unsigned keys whose integer order is the value order
// (floats: sign-magnitude flip, every NaN mapped to the largest key, i.e.
// NumPy's sort order; signed integers: sign bit flipped), so both paths
// compare integers only.
//
//   net: windows of K <= KP values, KP in {3, 9, 25, 49}: the window's
//        keys and (KP - K)/2 copies each of the smallest and the largest key
//        sit in registers (the median of the padded set is the median of the
//        window); Batcher's odd-even merge network for KP inputs, generated at
//        compile time (constexpr), sorts them and the middle key is the answer.
//        The compiler drops every comparator the middle element does not
//        depend on.
//   sel: any K: bitwise selection of the rank-K/2 key (one pass over the
//        window per key bit, counting keys <= a candidate), no extra memory;
//        a variant with a 3-D window walk in registers and a generic N-d one.
//   The net and 3-D sel kernels take up to three dims (Params3).
#pragma once

#include "gpuscipy/types.cuh"

#define GSMED_MAXDIM 8

namespace gsmed {

struct Params {
  long long ndim;
  long long shape[GSMED_MAXDIM];
  long long stride[GSMED_MAXDIM];    // elements
  long long ksize[GSMED_MAXDIM];
};

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

// net: grid-stride over the outputs; block 128. ksz = window size <= KP, odd.
template <class T, int KP>
__device__ void median_net(const T* __restrict__ x, T* __restrict__ out, long long total,
                           long long ksz, Params3 p) {
  typedef typename Key<T>::type U;
  const long long pad = (KP - ksz) / 2;
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
        v[i] = (i - ksz < pad) ? U(0) : ~U(0);
      }
    }
    sort_network<KP>(v);
    out[o] = Key<T>::back(v[KP / 2]);
  }
}

// sel (up to 3 dims): the smallest key m with #{window keys <= m} > ksz/2,
// decided bit by bit from the top (one pass over the window per bit).
template <class T>
__device__ void median_select3(const T* __restrict__ x, T* __restrict__ out,
                               long long total, long long ksz, Params3 p) {
  typedef typename Key<T>::type U;
  constexpr int BITS = 8 * sizeof(U);
  const long long rank = ksz / 2;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (long long)gridDim.x * blockDim.x) {
    long long lo[3];
    window3(o, p, lo);
    U result = 0;
    for (int b = BITS - 1; b >= 0; --b) {
      const U hi = result | ((U(1) << b) - U(1));   // bit b clear, lower bits set
      long long cnt = 0;
      for (long long k0 = 0; k0 < p.ksize[0]; ++k0)
        for (long long k1 = 0; k1 < p.ksize[1]; ++k1)
          for (long long k2 = 0; k2 < p.ksize[2]; ++k2)
            cnt += key3<T>(x, p, lo, k0, k1, k2) <= hi;
      if (cnt <= rank) result |= U(1) << b;
    }
    out[o] = Key<T>::back(result);
  }
}

// sel (any ndim <= GSMED_MAXDIM): as median_select3 with an odometer.
template <class T>
__device__ void median_select(const T* __restrict__ x, T* __restrict__ out,
                              long long total, long long ksz, Params p) {
  typedef typename Key<T>::type U;
  constexpr int BITS = 8 * sizeof(U);
  const long long rank = ksz / 2;
  const int n = (int)p.ndim;
  const U zero = Key<T>::of(T(0));
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (long long)gridDim.x * blockDim.x) {
    long long lo[GSMED_MAXDIM];
    long long r = o;
    for (int d = n - 1; d >= 0; --d) {
      lo[d] = r % p.shape[d] - p.ksize[d] / 2;
      r /= p.shape[d];
    }
    U result = 0;
    for (int b = BITS - 1; b >= 0; --b) {
      const U hi = result | ((U(1) << b) - U(1));
      long long cnt = 0;
      long long k[GSMED_MAXDIM];
      for (int d = 0; d < n; ++d) k[d] = 0;
      for (long long e = 0; e < ksz; ++e) {
        bool inside = true;
        long long off = 0;
        for (int d = 0; d < n; ++d) {
          const long long g = lo[d] + k[d];
          inside = inside && g >= 0 && g < p.shape[d];
          off += g * p.stride[d];
        }
        cnt += (inside ? Key<T>::of(x[off]) : zero) <= hi;
        for (int d = n - 1; d >= 0; --d) {
          if (++k[d] < p.ksize[d]) break;
          k[d] = 0;
        }
      }
      if (cnt <= rank) result |= U(1) << b;
    }
    out[o] = Key<T>::back(result);
  }
}

}  // namespace gsmed
