// Kernels of gpuscipy_core.random (instantiated and launched by _kernels.py).
//
// Every kernel walks a grid-stride loop over *units*; unit j of a call reads
// Philox block counter base + j (_philox.cuh) and writes a fixed set of
// outputs that depends on j only, so the values are a pure function of
// (key, counter base, output index), whatever grid or block size is launched.
//
// Kernels (templates, instantiated by NVRTC name expressions):
//   fill<Kind, T, VEC, U>   raw words, uniforms, normals (unit<Kind, T>)
//   integers<T>             bounded integers (Lemire, rejection retries)
//   choice_p<I>             weighted choice by inverse CDF
//   take_rows<W>            row gather in machine words of type W
//
// This file is text-included by the Python side after gpuscipy/core.cuh,
// gpuscipy/elementwise.cuh (gs::vec) and _philox.cuh (its text is part of
// every kernel's cache key); it includes nothing itself.
#pragma once

namespace gs {
namespace random {

typedef unsigned long long u64;

// The most threads a block of any kernel here has (__launch_bounds__);
// _kernels.py launches at most this many (_BLOCK). The constants here are
// enumerators, not constexpr variables, so no module carries them as globals.
enum : int { BLOCK = 256 };

// ---- distributions: the outputs of one unit ---------------------------
//
// unit<Kind, T>::fill(b, v) writes the PER outputs of the unit whose Philox
// block is b:
//
//   raw      unsigned int        4   w0, w1, w2, w3
//   raw      unsigned long long  2   (w1:w0), (w3:w2)
//   uniform  float               4   one word each (24 bits)
//   uniform  double              2   (w0, w1), (w2, w3)   (53 bits each)
//   normal   float               4   Box-Muller on (w0, w1) and (w2, w3)
//   normal   double              2   Box-Muller: radius (w0, w1), angle (w2, w3)

struct raw {};
struct uniform {};
struct normal {};

template <class Kind, class T> struct unit;

template <> struct unit<raw, unsigned int> {
  enum : int { PER = 4 };
  static GS_FI void fill(const philox::block4& b, gs::vec<unsigned int, PER>& v) {
    v.v[0] = b.w[0]; v.v[1] = b.w[1]; v.v[2] = b.w[2]; v.v[3] = b.w[3];
  }
};

// the same bytes as the unsigned int stream (little endian): first word low
template <> struct unit<raw, unsigned long long> {
  enum : int { PER = 2 };
  static GS_FI void fill(const philox::block4& b, gs::vec<unsigned long long, PER>& v) {
    v.v[0] = ((u64)b.w[1] << 32) | b.w[0];
    v.v[1] = ((u64)b.w[3] << 32) | b.w[2];
  }
};

template <> struct unit<uniform, float> {
  enum : int { PER = 4 };
  static GS_FI void fill(const philox::block4& b, gs::vec<float, PER>& v) {
    v.v[0] = philox::to_float(b.w[0]); v.v[1] = philox::to_float(b.w[1]);
    v.v[2] = philox::to_float(b.w[2]); v.v[3] = philox::to_float(b.w[3]);
  }
};

template <> struct unit<uniform, double> {
  enum : int { PER = 2 };
  static GS_FI void fill(const philox::block4& b, gs::vec<double, PER>& v) {
    v.v[0] = philox::to_double(b.w[0], b.w[1]);
    v.v[1] = philox::to_double(b.w[2], b.w[3]);
  }
};

// two Box-Muller pairs: (radius word, angle word) = (w0, w1), (w2, w3)
template <> struct unit<normal, float> {
  enum : int { PER = 4 };
  static GS_FI void fill(const philox::block4& b, gs::vec<float, PER>& v) {
    philox::normal_pair(b.w[0], b.w[1], v.v[0], v.v[1]);
    philox::normal_pair(b.w[2], b.w[3], v.v[2], v.v[3]);
  }
};

// one pair: radius from 52 bits of (w0, w1), angle from 53 bits of (w2, w3)
template <> struct unit<normal, double> {
  enum : int { PER = 2 };
  static GS_FI void fill(const philox::block4& b, gs::vec<double, PER>& v) {
    philox::normal_pair(b.w[0], b.w[1], b.w[2], b.w[3], v.v[0], v.v[1]);
  }
};

// ---- fixed-width streams ----------------------------------------------
//
// out[0 .. n) of unit<Kind, T>: unit j reads block (ctr_lo, ctr_hi) + j and
// writes outputs j * PER .. j * PER + PER - 1. A block walks tiles of
// U * blockDim.x units, thread t the units tile + t + k * blockDim.x
// (k < U), so each store instruction of a warp is one contiguous run and
// the key schedule is shared by the U interleaved Philox evaluations.
// VEC: out is 16-byte aligned; whole tiles then take a branch-free path
// (all Philox blocks first, then one aligned vector store per unit) and the
// last, partial tile checks every index.
template <class Kind, class T, bool VEC, int U>
__global__ void __launch_bounds__(BLOCK)
fill(T* __restrict__ out, long long n, u64 key, u64 ctr_lo, u64 ctr_hi) {
  typedef unit<Kind, T> D;
  constexpr int PER = D::PER;
  typedef gs::vec<T, PER> V;
  const long long units = (n + (PER - 1)) / PER;
  const long long full = n / PER;           // units with every output in range
  const long long tile = (long long)blockDim.x * U;
  const long long step = (long long)gridDim.x * tile;
  for (long long t0 = (long long)blockIdx.x * tile; t0 < units; t0 += step) {
    const long long j0 = t0 + threadIdx.x;
    if (VEC && t0 + tile <= full) {
      philox::block4 b[U];
#pragma unroll
      for (int u = 0; u < U; ++u)
        b[u] = philox::block_at(key, ctr_lo, ctr_hi, (u64)(j0 + (long long)u * blockDim.x));
#pragma unroll
      for (int u = 0; u < U; ++u) {
        V v;
        D::fill(b[u], v);
        *(V*)(out + (j0 + (long long)u * blockDim.x) * PER) = v;
      }
    } else {
      for (int u = 0; u < U; ++u) {
        const long long j = j0 + (long long)u * blockDim.x;
        if (j >= units) break;
        const philox::block4 b1 = philox::block_at(key, ctr_lo, ctr_hi, (u64)j);
        V v;
        D::fill(b1, v);
        const long long base = j * PER;
        if (VEC && base + PER <= n) {
          *(V*)(out + base) = v;
        } else {
#pragma unroll
          for (int k = 0; k < PER; ++k)
            if (base + k < n) out[base + k] = v.v[k];
        }
      }
    }
  }
}

// ---- bounded integers -------------------------------------------------
//
// out[i] = (T)(low + r), r uniform on [0, range) (range == 0 meaning 2^64),
// in 64-bit unsigned arithmetic (wrapping). Unit i reads block base + i: two
// 64-bit candidates (w1:w0), (w3:w2); when both are rejected (probability
// below (range / 2^64)^2), further blocks come from the same counter with
// the attempt number added to its top word (counters 2^96 apart, never
// reached by ordinary use).
template <class T>
__global__ void __launch_bounds__(BLOCK)
integers(T* __restrict__ out, long long n, u64 key, u64 ctr_lo, u64 ctr_hi,
         u64 low, u64 range) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    philox::block4 b = philox::block_at(key, ctr_lo, ctr_hi, (u64)i);
    u64 r = 0;
    bool ok = philox::lemire64(((u64)b.w[1] << 32) | b.w[0], range, r) ||
              philox::lemire64(((u64)b.w[3] << 32) | b.w[2], range, r);
    for (unsigned int attempt = 1; !ok; ++attempt) {
      philox::block4 c = philox::counter_at(ctr_lo, ctr_hi, (u64)i);
      c.w[3] += attempt;
      b = philox::philox4x32_10(c, (unsigned int)key, (unsigned int)(key >> 32));
      ok = philox::lemire64(((u64)b.w[1] << 32) | b.w[0], range, r) ||
           philox::lemire64(((u64)b.w[3] << 32) | b.w[2], range, r);
    }
    out[i] = (T)(low + r);
  }
}

// ---- weighted choice --------------------------------------------------
//
// out[i] (of index type I) is the first index j with cdf[j] > u * cdf[m - 1],
// u a 53-bit uniform (two per unit: value i reads block base + i / 2, words
// (w0, w1) when i is even, (w2, w3) when odd); when rounding leaves no such
// j, the last index of non-zero probability.
template <class I>
__global__ void __launch_bounds__(BLOCK)
choice_p(I* __restrict__ out, long long n, u64 key, u64 ctr_lo, u64 ctr_hi,
         const double* __restrict__ cdf, long long m) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const double total = cdf[m - 1];
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const philox::block4 b = philox::block_at(key, ctr_lo, ctr_hi, (u64)(i >> 1));
    const double u = (i & 1) ? philox::to_double(b.w[2], b.w[3])
                             : philox::to_double(b.w[0], b.w[1]);
    const double t = u * total;
    long long lo = 0, hi = m - 1;
    while (lo < hi) {
      const long long mid = lo + (hi - lo) / 2;
      if (cdf[mid] > t) hi = mid; else lo = mid + 1;
    }
    while (lo > 0 && !(cdf[lo] > cdf[lo - 1])) --lo;
    out[i] = (I)lo;
  }
}

// ---- row gather -------------------------------------------------------
//
// out[i, :] = src[idx[i], :] on C-contiguous rows of `words` machine words
// of type W (k rows out).
template <class W>
__global__ void __launch_bounds__(BLOCK)
take_rows(W* __restrict__ out, const W* __restrict__ src,
          const long long* __restrict__ idx, long long k, long long words) {
  const long long total = k * words;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += stride) {
    const long long i = t / words, w = t - i * words;
    out[t] = src[idx[i] * words + w];
  }
}

}  // namespace random
}  // namespace gs
