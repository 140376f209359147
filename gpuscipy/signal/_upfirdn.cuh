// Polyphase upsample / FIR filter / downsample (scipy.signal.upfirdn) on the
// GPU, one launch per call, every output computed straight from the input
// samples and one phase of the filter (no zero-stuffed intermediate).
//
// Definition (SciPy's, Vaidyanathan 1993, fig. 4.3-8d; Crochiere & Rabiner
// 1983, ch. 3): with the filter h zero-padded to hpp*up taps
// (hpp = ceil(len_h / up)), output n of the upsample-filter-downsample chain
// is, with xi = floor(n*down / up) and phase ph = n*down mod up,
//
//     y[n] = sum_{m=0}^{hpp-1} xe[xi - hpp + 1 + m] * h[(hpp - 1 - m)*up + ph]
//
// summed in that order of m (oldest sample first, SciPy's order), where xe is
// x extended beyond its ends by the signal-extension mode. The padded zero
// taps are multiplied like the others (a NaN or inf sample next to them gives
// NaN, as in SciPy). SciPy's one shortcut is kept: in 'constant' mode with
// cval == 0, taps left of x[0] are skipped while xi < len_x.
//
// Layout: x is read as (P, N, Q) with byte strides (sP, sN, sQ) (any
// strides, negative included; the resampled axis is the middle one) and any
// of the 14 element types (a runtime code; cast to T on load, so one kernel
// per output type T serves every input dtype); y is (P, out_len, Q) with
// element strides (ysP, ysN, ysQ) (C order, or the resampled axis innermost
// when that is x's unit-stride axis) and holds outputs out_start ..
// out_start + out_len - 1 of the full upfirdn result (resample_poly crops
// by out_start).
// The filter is passed as stored: h[0 .. len_h-1] preceded by h_pre implicit
// zero taps (resample_poly's centring pad), so the effective filter has
// h_pre + len_h (+ trailing zeros up to hpp*up) taps.
//
// Block = (QT lanes along Q) x (TY rows along the output axis), QT*TY = 256.
// Each block owns TY*items consecutive outputs [n0, n_end) of QT signals:
//   1. the polyphase taps go to shared memory once, flipped per phase:
//      s_h[ph*hpp + m] = h_eff[(hpp-1-m)*up + ph];
//   2. per group of QT signals, the input samples base .. last that those
//      outputs read (base = floor(n0*down/up) - hpp + 1) are loaded into a
//      shared tile s_x[(j - base)*QT + lane], coalesced (lanes along Q when
//      Q's stride is the smaller, else QT = 1 and rows along N), cast to T,
//      background subtracted,
//      and out-of-range indices mapped by the extension mode (no padded
//      copy of x exists anywhere);
//   3. each thread computes `items` outputs n = n0 + ty + k*TY, stepping
//      (xi, ph) incrementally (no division per output), and writes them
//      coalesced.
// The direct variant (a second entry point; used when the tile or the taps
// would not fit in shared memory: very long filters or extreme rates) reads
// taps and samples from global memory with the same index arithmetic.
//
// Extension modes (SciPy's enum numbers and formulas, idx < 0 or >= n):
// constant, symmetric, edge, smooth, wrap, reflect, antisymmetric,
// antireflect, line. Where SciPy's formulas are undefined (they divide by
// zero or read past the signal), defined values are used instead: n == 0
// extends by 0 (non-constant modes); n == 1 extends reflect, antireflect
// and smooth by x[0] (numpy.pad's answer); line on n == 1 gives NaN, as
// SciPy computes it (0/0 slope).
//
// background: resample_poly's padtype 'mean'/'median'/'minimum'/'maximum'
// subtracts one value per signal before filtering and adds it back after;
// bg_sub (subtracted from every sample read) and bg_add (added to every
// output) are per-signal arrays of P*Q values, or null.
#pragma once
#include <gpuscipy/types.cuh>

namespace gs_signal_upfirdn {

enum Mode : int {
  CONSTANT = 0, SYMMETRIC = 1, EDGE = 2, SMOOTH = 3, WRAP = 4,
  REFLECT = 5, ANTISYMMETRIC = 6, ANTIREFLECT = 7, LINE = 8
};

// The 14 element types an input may have, by a runtime code (the order of
// _upfirdn.py's DTYPE_CODES): inputs of any dtype are read and cast to T in
// the kernel, so one kernel per output type T serves them all.
enum Code : int {
  B1 = 0, I8 = 1, U8 = 2, I16 = 3, U16 = 4, I32 = 5, U32 = 6, I64 = 7, U64 = 8,
  F16 = 9, F32 = 10, F64 = 11, C64 = 12, C128 = 13
};

template <class T, class TX>
GS_FI T load_as(const char* p) { return gs::cast<T>(*reinterpret_cast<const TX*>(p)); }

// *p (of element type `code`) cast to T.
template <class T>
__device__ __forceinline__ T load_inline(const char* p, int code) {
  switch (code) {
    case B1: return load_as<T, bool>(p);
    case I8: return load_as<T, signed char>(p);
    case U8: return load_as<T, unsigned char>(p);
    case I16: return load_as<T, short>(p);
    case U16: return load_as<T, unsigned short>(p);
    case I32: return load_as<T, int>(p);
    case U32: return load_as<T, unsigned int>(p);
    case I64: return load_as<T, long long>(p);
    case U64: return load_as<T, unsigned long long>(p);
    case F16: return load_as<T, gs::half>(p);
    case F32: return load_as<T, float>(p);
    case F64: return load_as<T, double>(p);
    case C64: return load_as<T, gs::complex<float>>(p);
    default: return load_as<T, gs::complex<double>>(p);
  }
}

// The same, out of line: what the extension modes use (the tiled kernel's
// loads of samples inside x are typed; see fill_inside).
template <class T>
__device__ __noinline__ T load(const char* p, int code) {
  return load_inline<T>(p, code);
}

// One signal along the resampled axis, read as T with its background
// subtracted (x - bg, computed in T).
template <class T>
struct Signal {
  const char* p;  // element 0
  long long s;    // byte stride along the axis
  long long n;    // length
  T bg;
  int code;       // element type
  GS_FI T at(long long j) const { return load<T>(p + j * s, code) - bg; }
};

template <class T> struct real_of { typedef T type; };
template <class R> struct real_of<gs::complex<R>> { typedef R type; };

// An index as the real type of T: SciPy's extension formulas multiply and
// divide by C integers, which act on both parts of a complex value
// separately (component-wise, not a complex division).
template <class T>
GS_FI typename real_of<T>::type num(long long v) {
  return (typename real_of<T>::type)v;
}

// x extended to the left (j < 0), SciPy's _extend_left.
template <class T>
__device__ __noinline__ T extend_left(const Signal<T>& x, long long j, int mode, T cval) {
  const long long n = x.n;
  if (mode == CONSTANT) return cval;
  if (n == 0) return T(0);
  switch (mode) {
    case SYMMETRIC: {
      if (-j < n) return x.at(-j - 1);
      const long long r = (-j - 1) % (2 * n);
      return r < n ? x.at(r) : x.at(n - 1 - (r - n));
    }
    case REFLECT: {
      if (n == 1) return x.at(0);
      if (-j < n - 1) return x.at(-j);
      const long long r = (-j - 1) % (2 * (n - 1));
      return r < n - 1 ? x.at(r + 1) : x.at(n - 2 - (r - (n - 1)));
    }
    case WRAP: {
      const long long r = (-j - 1) % n;
      return x.at(n - r - 1);
    }
    case SMOOTH: {
      if (n == 1) return x.at(0);
      const T x0 = x.at(0);
      return x0 + num<T>(j) * (x.at(1) - x0);
    }
    case LINE: {
      const T x0 = x.at(0);
      const T slope = (x.at(n - 1) - x0) / num<T>(n - 1);
      return x0 + num<T>(j) * slope;
    }
    case ANTISYMMETRIC: {
      if (-j < n) return -x.at(-j - 1);
      const long long r = (-j - 1) % (2 * n);
      return r < n ? -x.at(r) : x.at(n - 1 - (r - n));
    }
    case ANTIREFLECT: {
      if (n == 1) return x.at(0);
      const T x0 = x.at(0);
      if (-j < n) return x0 - (x.at(-j) - x0);
      const T le = x0 + (x0 - x.at(n - 1)) * num<T>((-j - 1) / (n - 1));
      const long long r = (-j - 1) % (2 * (n - 1));
      return r < n - 1 ? le - (x.at(r + 1) - x0)
                       : le - (x.at(n - 1) - x.at(n - 2 - (r - (n - 1))));
    }
    default:  // EDGE
      return x.at(0);
  }
}

// x extended to the right (j >= n), SciPy's _extend_right.
template <class T>
__device__ __noinline__ T extend_right(const Signal<T>& x, long long j, int mode, T cval) {
  const long long n = x.n;
  if (mode == CONSTANT) return cval;
  if (n == 0) return T(0);
  switch (mode) {
    case SYMMETRIC: {
      if (j < 2 * n) return x.at(n - 1 - (j - n));
      const long long r = j % (2 * n);
      return r < n ? x.at(r) : x.at(n - 1 - (r - n));
    }
    case REFLECT: {
      if (n == 1) return x.at(0);
      if (j < 2 * n - 1) return x.at(n - 2 - (j - n));
      const long long r = j % (2 * (n - 1));
      return r < n - 1 ? x.at(r) : x.at(n - 1 - (r - (n - 1)));
    }
    case WRAP:
      return x.at(j % n);
    case SMOOTH: {
      if (n == 1) return x.at(0);
      const T xl = x.at(n - 1);
      return xl + num<T>(j - n + 1) * (xl - x.at(n - 2));
    }
    case LINE: {
      const T xl = x.at(n - 1);
      const T slope = (xl - x.at(0)) / num<T>(n - 1);
      return xl + num<T>(j - n + 1) * slope;
    }
    case ANTISYMMETRIC: {
      if (j < 2 * n) return -x.at(n - 1 - (j - n));
      const long long r = j % (2 * n);
      return r < n ? x.at(r) : -x.at(n - 1 - (r - n));
    }
    case ANTIREFLECT: {
      if (n == 1) return x.at(0);
      const T xl = x.at(n - 1);
      if (j < 2 * n - 1) return xl - (x.at(n - 2 - (j - n)) - xl);
      const T re = xl + (xl - x.at(0)) * num<T>(j / (n - 1) - 1);
      const long long r = j % (2 * (n - 1));
      return r < n - 1 ? re + (x.at(r) - x.at(0))
                       : re + (xl - x.at(n - 1 - (r - (n - 1))));
    }
    default:  // EDGE
      return x.at(n - 1);
  }
}

// Tap m of phase ph of the effective (centring-padded, zero-extended) filter.
template <class T>
GS_FI T tap(const T* h, long long len_h, long long h_pre, long long up,
            long long hpp, long long ph, long long m) {
  const long long i = (hpp - 1 - m) * up + ph - h_pre;
  return (i >= 0 && i < len_h) ? h[i] : T(0);
}

// The arguments of a launch.
template <class T>
struct Args {
  const char* x;             // element [0, 0, 0]
  int code;                  // x's element type
  long long P, N, Q;         // x read as (P, N, Q)
  long long sP, sN, sQ;      // byte strides
  const T* h;                // the stored taps (contiguous)
  long long len_h, h_pre, hpp, up, down;
  T* y;                      // (P, out_len, Q), element strides ysP, ysN, ysQ
  long long ysP, ysN, ysQ;
  long long out_start, out_len;
  int mode, zpad, items;
  T cval;
  const T* bg_sub;           // P*Q values or null
  const T* bg_add;           // P*Q values or null
};

// a / b for a >= 0, b > 0, in 32-bit arithmetic when both fit (a 64-bit
// division is a ~70-instruction subroutine on the GPU).
GS_FI long long udiv(long long a, long long b) {
  if ((((unsigned long long)a | (unsigned long long)b) >> 31) == 0)
    return (long long)((unsigned)a / (unsigned)b);
  return a / b;
}

// Geometry of the output tile of this block along the resampled axis:
// outputs [n0, n_end), xb = floor(n0*down/up) = r0-remainder, the tile of
// samples [base, base + cnt) with base = xb - hpp + 1.
struct Tile {
  long long n0, n_end, xb, r0, base, cnt;
};

template <class T>
__device__ __forceinline__ Tile tile_of(const Args<T>& a) {
  Tile t;
  const long long tile_out = (long long)blockDim.y * a.items;
  t.n0 = a.out_start + (long long)blockIdx.x * tile_out;
  const long long end = a.out_start + a.out_len;
  t.n_end = t.n0 + tile_out < end ? t.n0 + tile_out : end;
  const long long prod = t.n0 * a.down;
  t.xb = udiv(prod, a.up);
  t.r0 = prod - t.xb * a.up;
  t.base = t.xb - (a.hpp - 1);
  // floor((n_end-1)*down/up) - base + 1
  t.cnt = udiv((t.n_end - 1 - t.n0) * a.down + t.r0, a.up) + a.hpp;
  return t;
}

// First output of this thread, n = n0 + ty, as (n, xi, ph) with
// xi = floor(n*down/up), ph = n*down mod up; later outputs step by TY.
struct Start {
  long long n, xi, ph, step_x, step_ph;
};

template <class T>
__device__ __forceinline__ Start start_of(const Args<T>& a, const Tile& t) {
  Start s;
  s.n = t.n0 + threadIdx.y;
  const long long off = t.r0 + (long long)threadIdx.y * a.down;  // n*down - xb*up
  const long long dx = udiv(off, a.up);
  s.xi = t.xb + dx;
  s.ph = off - dx * a.up;
  const long long step = (long long)blockDim.y * a.down;
  s.step_x = udiv(step, a.up);
  s.step_ph = step - s.step_x * a.up;
  return s;
}

// Tile entries [lo, hi) of one lane (samples base + i, all inside x), read
// as TX: the switch on the element type is made once, outside the loop.
template <class T, class TX>
__device__ void fill_inside(const Signal<T>& sig, T* s_x, long long base, long long lo,
                            long long hi) {
  const int QT = blockDim.x, TY = blockDim.y;
  const char* p = sig.p + base * sig.s;
  for (long long i = lo + threadIdx.y; i < hi; i += TY)
    s_x[i * QT + threadIdx.x] = load_as<T, TX>(p + i * sig.s) - sig.bg;
}

// The tile of one lane: samples base .. base + cnt - 1, the ones outside x
// through the extension mode (the tile's first and last blocks only).
template <class T>
__device__ void fill(const Signal<T>& sig, T* s_x, long long base, long long cnt, int mode,
                     T cval) {
  const int QT = blockDim.x, TY = blockDim.y;
  long long lo = -base, hi = sig.n - base;  // tile entries inside x
  lo = lo < 0 ? 0 : (lo > cnt ? cnt : lo);
  hi = hi > cnt ? cnt : (hi < lo ? lo : hi);
  switch (sig.code) {
    case B1: fill_inside<T, bool>(sig, s_x, base, lo, hi); break;
    case I8: fill_inside<T, signed char>(sig, s_x, base, lo, hi); break;
    case U8: fill_inside<T, unsigned char>(sig, s_x, base, lo, hi); break;
    case I16: fill_inside<T, short>(sig, s_x, base, lo, hi); break;
    case U16: fill_inside<T, unsigned short>(sig, s_x, base, lo, hi); break;
    case I32: fill_inside<T, int>(sig, s_x, base, lo, hi); break;
    case U32: fill_inside<T, unsigned int>(sig, s_x, base, lo, hi); break;
    case I64: fill_inside<T, long long>(sig, s_x, base, lo, hi); break;
    case U64: fill_inside<T, unsigned long long>(sig, s_x, base, lo, hi); break;
    case F16: fill_inside<T, gs::half>(sig, s_x, base, lo, hi); break;
    case F32: fill_inside<T, float>(sig, s_x, base, lo, hi); break;
    case F64: fill_inside<T, double>(sig, s_x, base, lo, hi); break;
    case C64: fill_inside<T, gs::complex<float>>(sig, s_x, base, lo, hi); break;
    default: fill_inside<T, gs::complex<double>>(sig, s_x, base, lo, hi); break;
  }
  for (long long i = threadIdx.y; i < lo; i += TY)
    s_x[i * QT + threadIdx.x] = extend_left(sig, base + i, mode, cval);
  for (long long i = hi + threadIdx.y; i < cnt; i += TY)
    s_x[i * QT + threadIdx.x] = extend_right(sig, base + i, mode, cval);
}

template <class T>
__device__ __forceinline__ Signal<T> signal_of(const Args<T>& a, long long p, long long q,
                                               bool qok) {
  Signal<T> sig;
  sig.p = a.x + p * a.sP + (qok ? q : 0) * a.sQ;
  sig.s = a.sN;
  sig.n = a.N;
  sig.bg = (a.bg_sub && qok) ? a.bg_sub[p * a.Q + q] : T(0);
  sig.code = a.code;
  return sig;
}

template <class T>
__device__ void upfirdn_tiled(const Args<T>& a) {
  extern __shared__ __align__(16) unsigned char gsufd_smem[];
  T* s_h = reinterpret_cast<T*>(gsufd_smem);
  T* s_x = s_h + a.up * a.hpp;
  const int QT = blockDim.x, TY = blockDim.y;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * QT + tx, nthr = QT * TY;
  const int ntaps = (int)(a.up * a.hpp), ihpp = (int)a.hpp;  // < 48 KiB of taps
  for (int i = tid; i < ntaps; i += nthr) {
    const int ph = i / ihpp;
    s_h[i] = tap(a.h, a.len_h, a.h_pre, a.up, a.hpp, ph, i - ph * ihpp);
  }
  const Tile t = tile_of(a);
  const long long qtiles = (a.Q + QT - 1) / QT;
  const long long rows = a.P * qtiles;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
    const long long p = udiv(r, qtiles);
    const long long q = (r - p * qtiles) * QT + tx;
    const bool qok = q < a.Q;
    const Signal<T> sig = signal_of(a, p, q, qok);
    __syncthreads();  // the taps are in; the previous group is done with s_x
    if (qok) {
      fill(sig, s_x, t.base, t.cnt, a.mode, a.cval);
    } else {
      for (long long i = ty; i < t.cnt; i += TY) s_x[i * QT + tx] = T(0);
    }
    __syncthreads();
    if (qok) {
      // shared-memory offsets fit int: the tile and the taps fit 48 KiB
      const T badd = a.bg_add ? a.bg_add[p * a.Q + q] : T(0);
      const Start st = start_of(a, t);
      const int hpp = (int)a.hpp, up = (int)a.up;
      const int step_x = (int)st.step_x, step_ph = (int)st.step_ph;
      int local = (int)(st.xi - t.xb);  // tile index of xe[xi - hpp + 1]
      int ph = (int)st.ph;
      long long n = st.n;
      T* yrow = a.y + p * a.ysP + q * a.ysQ + (n - a.out_start) * a.ysN;
      const long long ystep = (long long)TY * a.ysN;
      for (int k = 0; k < a.items && n < t.n_end; ++k) {
        int m0 = 0;
        const long long xi = t.xb + local;
        if (a.zpad && xi < a.N && xi < a.hpp - 1) m0 = (int)(a.hpp - 1 - xi);
        const T* xp = s_x + local * QT + tx;
        const T* hp = s_h + ph * hpp;
        T acc = T(0);
        for (int m = m0; m < hpp; ++m) acc += xp[m * QT] * hp[m];
        *yrow = acc + badd;
        yrow += ystep;
        n += TY;
        local += step_x;
        ph += step_ph;
        if (ph >= up) {
          ph -= up;
          local += 1;
        }
      }
    }
  }
}

// The direct variant: taps and samples from global memory, each sample
// cast from its runtime element type (a uniform branch per tap; this
// variant serves only filters or rates whose tile does not fit in shared
// memory).
template <class T>
__device__ void upfirdn_direct(const Args<T>& a) {
  const int QT = blockDim.x, tx = threadIdx.x;
  const Tile t = tile_of(a);
  const long long qtiles = (a.Q + QT - 1) / QT;
  const long long rows = a.P * qtiles;
  const long long ystep = (long long)blockDim.y * a.ysN;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
    const long long p = udiv(r, qtiles);
    const long long q = (r - p * qtiles) * QT + tx;
    if (q >= a.Q) continue;
    const Signal<T> sig = signal_of(a, p, q, true);
    const T badd = a.bg_add ? a.bg_add[p * a.Q + q] : T(0);
    Start st = start_of(a, t);
    T* yrow = a.y + p * a.ysP + q * a.ysQ + (st.n - a.out_start) * a.ysN;
    for (int k = 0; k < a.items && st.n < t.n_end; ++k) {
      long long m0 = 0;
      if (a.zpad && st.xi < a.N && st.xi < a.hpp - 1) m0 = a.hpp - 1 - st.xi;
      T acc = T(0);
      for (long long m = m0; m < a.hpp; ++m) {
        const long long j = st.xi - a.hpp + 1 + m;
        const T v = j < 0     ? extend_left(sig, j, a.mode, a.cval)
                  : j >= a.N ? extend_right(sig, j, a.mode, a.cval)
                             : load_inline<T>(sig.p + j * sig.s, sig.code) - sig.bg;
        acc += v * tap(a.h, a.len_h, a.h_pre, a.up, a.hpp, st.ph, m);
      }
      *yrow = acc + badd;
      yrow += ystep;
      st.n += blockDim.y;
      st.xi += st.step_x;
      st.ph += st.step_ph;
      if (st.ph >= a.up) {
        st.ph -= a.up;
        st.xi += 1;
      }
    }
  }
}

}  // namespace gs_signal_upfirdn
