// Direct (sum-of-products) correlation kernels of gpuscipy.signal.
//
// Every kernel computes, for each output position o (per axis),
//
//     out[o] = sum_j  ext(x)[o + s + j] * w[j]
//
// where x is the signal (any strides, element type X, read with an optional
// complex conjugation), w the weights (contiguous, accumulator type A: the
// Python side has already reversed/conjugated them as convolve/correlate
// need), s the start offset of the mode ('full'/'same'/'valid' or an ndimage
// origin) and ext() the boundary extension of x (zero/constant fill, wrap,
// symmetric, mirror, nearest; a run-time argument evaluated while loading,
// outside the multiply-add loops). The Python side instantiates X = A = O
// with A one of unsigned int / unsigned long long (integer and bool results:
// sums modulo 2^n, NumPy's integer results after the cast back), float,
// double, complex<float>, complex<double>; the templates allow X, O to differ.
//
// Kernels (all use only dynamic shared memory, and every thread reaches
// every barrier):
//   rows  - 1-D along contiguous-ish rows: a block computes BLOCK*R outputs
//           of one row; the input tile and a chunk of KC weights sit in
//           shared memory; each thread keeps R consecutive outputs and a
//           sliding register window of R inputs, so each shared load feeds
//           R/2 multiply-adds. Tile indices are skewed (i + i/32) so the
//           stride-R reads of a warp hit distinct banks.
//   cols  - 1-D along a strided axis of an (outer, L, inner) layout: lanes
//           take consecutive inner indices (coalesced), each thread R
//           consecutive outputs along L with a sliding window.
//   tile2 - 2-D: a block computes a 32 x (8*RY) output tile from a shared
//           input tile and a KCH x KCW chunk of weights; each thread keeps RY
//           outputs of one column and slides a window down the column.
//   nd    - generic N-d (ndim <= GSCONV_MAXDIM): one thread per output, zero
//           fill only (what N-d convolve/correlate need).
#pragma once

#include "gpuscipy/types.cuh"

#define GSCONV_MAXDIM 8

namespace gs_signal_conv {

enum { EXT_FILL = 0, EXT_WRAP = 1, EXT_SYMM = 2, EXT_MIRROR = 3, EXT_NEAREST = 4 };

// Source index of position g of a length-n axis under extension ext, or -1
// for "use the fill value". n >= 1 except for EXT_FILL (any n >= 0).
//   wrap    ... a b c | a b c | a b c ...      (period n)
//   symm    ... c b a | a b c | c b a ...      (period 2n, edge repeated;
//                                               scipy.signal 'symm',
//                                               ndimage 'reflect')
//   mirror  ... d c b | a b c d | c b a ...    (period 2n-2, ndimage 'mirror')
//   nearest ... a a a | a b c | c c c ...
GS_FI long long ext_index(long long g, long long n, int ext) {
  if (g >= 0 && g < n) return g;
  switch (ext) {
    case EXT_WRAP: {
      const long long r = g % n;
      return r < 0 ? r + n : r;
    }
    case EXT_SYMM: {
      const long long p = 2 * n;
      long long r = g % p;
      if (r < 0) r += p;
      return r < n ? r : p - 1 - r;
    }
    case EXT_MIRROR: {
      if (n == 1) return 0;
      const long long p = 2 * n - 2;
      long long r = g % p;
      if (r < 0) r += p;
      return r < n ? r : p - r;
    }
    case EXT_NEAREST:
      return g < 0 ? 0 : n - 1;
    default:
      return -1;
  }
}

// acc + w * x in the accumulator type.
GS_FI unsigned int mac(unsigned int acc, unsigned int w, unsigned int x) { return acc + w * x; }
GS_FI unsigned long long mac(unsigned long long acc, unsigned long long w,
                             unsigned long long x) {
  return acc + w * x;
}
GS_FI float mac(float acc, float w, float x) { return gs::m::fma(w, x, acc); }
GS_FI double mac(double acc, double w, double x) { return gs::m::fma(w, x, acc); }
template <class T>
GS_FI gs::complex<T> mac(gs::complex<T> acc, gs::complex<T> w, gs::complex<T> x) {
  return gs::complex<T>(gs::m::fma(w.re, x.re, gs::m::fma(-w.im, x.im, acc.re)),
                        gs::m::fma(w.re, x.im, gs::m::fma(w.im, x.re, acc.im)));
}

// x converted to the accumulator type, conjugated first when CONJ (complex X).
template <class A, bool CONJ, class X>
GS_FI A load_as(X v) {
  if constexpr (CONJ && gs::is_complex<X>::value) {
    return gs::cast<A>(gs::conj(v));
  } else {
    return gs::cast<A>(v);
  }
}

GS_FI int skew(int i) { return i + (i >> 5); }

// Dynamic shared memory, aligned for complex<double>.
extern __shared__ __align__(16) unsigned char gsconv_smem[];

// ---------------------------------------------------------------------------
// rows: out[row, o] = sum_{j<K} ext(x[row, :])[o + s + j] * w[j]
//   x element (row, i) at x[row * sx_row + i * sx]; out rows contiguous.
//   grid: (ceil(Lout / (BLOCK*R)), min(rows, 65535)); block: BLOCK.
//   shared: (skew(BLOCK*R + KC) + 1 + KC) elements of A.
// ---------------------------------------------------------------------------
template <class X, class A, class O, int R, int BLOCK, int KC, bool CONJX>
__device__ void rows(const X* __restrict__ x, long long L, long long sx_row, long long sx,
                     const A* __restrict__ w, long long K, O* __restrict__ out,
                     long long Lout, long long s, long long nrows, A fill, int ext) {
  constexpr int TO = BLOCK * R;
  constexpr int XS = TO + KC;
  A* xs = reinterpret_cast<A*>(gsconv_smem);
  A* ws = xs + skew(XS) + 1;
  const int t = threadIdx.x;
  const long long o0 = (long long)blockIdx.x * TO;
  for (long long row = blockIdx.y; row < nrows; row += gridDim.y) {
    const X* xr = x + row * sx_row;
    A acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = A(0);
    for (long long c0 = 0; c0 < K; c0 += KC) {
      const int kc = (int)((K - c0) < KC ? (K - c0) : KC);
      __syncthreads();
      const long long g0 = o0 + s + c0;
      for (int i = t; i < TO + kc; i += BLOCK) {
        const long long g = ext_index(g0 + i, L, ext);
        xs[skew(i)] = g < 0 ? fill : load_as<A, CONJX>(xr[g * sx]);
      }
      for (int i = t; i < kc; i += BLOCK) ws[i] = w[c0 + i];
      __syncthreads();
      const int base = t * R;
      A win[R];
#pragma unroll
      for (int r = 0; r < R; ++r) win[r] = xs[skew(base + r)];
      int k0 = 0;
      for (; k0 + R <= kc; k0 += R) {
        A nxt[R];
#pragma unroll
        for (int j = 0; j < R; ++j) nxt[j] = xs[skew(base + k0 + R + j)];
#pragma unroll
        for (int j = 0; j < R; ++j) {
          const A wj = ws[k0 + j];
#pragma unroll
          for (int r = 0; r < R; ++r) {
            acc[r] = mac(acc[r], wj, (r + j < R) ? win[r + j] : nxt[r + j - R]);
          }
        }
#pragma unroll
        for (int j = 0; j < R; ++j) win[j] = nxt[j];
      }
      for (; k0 < kc; ++k0) {
        const A wj = ws[k0];
#pragma unroll
        for (int r = 0; r < R; ++r) acc[r] = mac(acc[r], wj, xs[skew(base + k0 + r)]);
      }
    }
    // stage the R consecutive outputs of each thread, then write coalesced
    __syncthreads();
#pragma unroll
    for (int r = 0; r < R; ++r) xs[skew(t * R + r)] = acc[r];
    __syncthreads();
    O* orow = out + row * Lout;
    for (int i = t; i < TO; i += BLOCK) {
      const long long o = o0 + i;
      if (o < Lout) orow[o] = gs::cast<O>(xs[skew(i)]);
    }
  }
}

// ---------------------------------------------------------------------------
// cols: out[b, o, i] = sum_{j<K} ext(x[b, :, i])[o + s + j] * w[j]
//   x element (b, l, i) at x[b * sb + l * sl + i * si]; out (outer, Lout,
//   inner) contiguous. block (32, 8); thread (tx, ty) takes outputs
//   (blockIdx.x*8 + ty)*R + [0, R) of inner index 32*c + tx for the inner
//   chunks c = blockIdx.y, blockIdx.y + gridDim.y, ...
//   grid: (ceil(Lout/(8R)), min(ceil(inner/32), 65535), min(outer, 65535)).
//   shared: KC elements of A.
// ---------------------------------------------------------------------------
template <class X, class A, class O, int R, int KC, bool CONJX>
__device__ void cols(const X* __restrict__ x, long long L, long long sb, long long sl,
                     long long si, const A* __restrict__ w, long long K,
                     O* __restrict__ out, long long Lout, long long s, long long outer,
                     long long inner, A fill, int ext) {
  A* ws = reinterpret_cast<A*>(gsconv_smem);
  const int tid = threadIdx.y * 32 + threadIdx.x;
  const long long oo = ((long long)blockIdx.x * 8 + threadIdx.y) * R;
  for (long long ic = blockIdx.y; ic * 32 < inner; ic += gridDim.y) {
    const long long i = ic * 32 + threadIdx.x;
    const bool active = i < inner;
    for (long long b = blockIdx.z; b < outer; b += gridDim.z) {
      const X* xb = x + b * sb + (active ? i : 0) * si;
      A acc[R];
#pragma unroll
      for (int r = 0; r < R; ++r) acc[r] = A(0);
      for (long long c0 = 0; c0 < K; c0 += KC) {
        const int kc = (int)((K - c0) < KC ? (K - c0) : KC);
        __syncthreads();
        for (int j = tid; j < kc; j += 256) ws[j] = w[c0 + j];
        __syncthreads();
        if (active) {
          const long long g0 = oo + s + c0;
          A win[R];
#pragma unroll
          for (int r = 0; r < R; ++r) {
            const long long g = ext_index(g0 + r, L, ext);
            win[r] = g < 0 ? fill : load_as<A, CONJX>(xb[g * sl]);
          }
          for (int j = 0; j < kc; ++j) {
            const A wj = ws[j];
#pragma unroll
            for (int r = 0; r < R; ++r) acc[r] = mac(acc[r], wj, win[r]);
#pragma unroll
            for (int r = 0; r + 1 < R; ++r) win[r] = win[r + 1];
            const long long g = ext_index(g0 + j + R, L, ext);
            win[R - 1] = g < 0 ? fill : load_as<A, CONJX>(xb[g * sl]);
          }
        }
      }
      if (active) {
        O* ob = out + b * Lout * inner + i;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          if (oo + r < Lout) ob[(oo + r) * inner] = gs::cast<O>(acc[r]);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// tile2: out[b, oh, ow] = sum_{kh<KH, kw<KW} ext(x[b])[oh + sh + kh, ow + sw + kw] * w[kh, kw]
//   x element (b, h, v) at x[b * sb + h * sxh + v * sxw]; w (KH, KW)
//   contiguous; out (B, Ho, Wo) contiguous. The same extension on both axes.
//   block (32, 8); a block computes 32 columns x 8*RY rows (row tiles
//   blockIdx.y, blockIdx.y + gridDim.y, ...).
//   grid: (ceil(Wo/32), min(ceil(Ho/(8 RY)), 65535), min(B, 65535)).
//   shared: (8 RY + KCH) * (32 + KCW) + KCH * KCW elements of A.
// ---------------------------------------------------------------------------
template <class X, class A, class O, int RY, int KCH, int KCW, bool CONJX>
__device__ void tile2(const X* __restrict__ x, long long H, long long W, long long sb,
                      long long sxh, long long sxw, const A* __restrict__ w, long long KH,
                      long long KW, O* __restrict__ out, long long Ho, long long Wo,
                      long long sh, long long sw, long long B, A fill, int ext) {
  constexpr int TH = 8 * RY;
  constexpr int PW = 32 + KCW;           // row pitch of the input tile
  A* xs = reinterpret_cast<A*>(gsconv_smem);
  A* ws = xs + (TH + KCH) * PW;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * 32 + tx;
  const long long ow0 = (long long)blockIdx.x * 32;
  for (long long hb = blockIdx.y; hb * TH < Ho; hb += gridDim.y) {
    const long long oh0 = hb * TH;
    for (long long b = blockIdx.z; b < B; b += gridDim.z) {
      const X* xb = x + b * sb;
      A acc[RY];
#pragma unroll
      for (int r = 0; r < RY; ++r) acc[r] = A(0);
      for (long long ch = 0; ch < KH; ch += KCH) {
        const int kch = (int)((KH - ch) < KCH ? (KH - ch) : KCH);
        for (long long cw = 0; cw < KW; cw += KCW) {
          const int kcw = (int)((KW - cw) < KCW ? (KW - cw) : KCW);
          __syncthreads();
          const int rows_in = TH + kch, cols_in = 32 + kcw - 1;
          for (int e = tid; e < rows_in * cols_in; e += 256) {
            const int rr = e / cols_in, cc = e - rr * cols_in;
            const long long gh = ext_index(oh0 + sh + ch + rr, H, ext);
            const long long gw = ext_index(ow0 + sw + cw + cc, W, ext);
            xs[rr * PW + cc] =
                (gh < 0 || gw < 0) ? fill : load_as<A, CONJX>(xb[gh * sxh + gw * sxw]);
          }
          for (int e = tid; e < kch * kcw; e += 256) {
            const int rr = e / kcw, cc = e - rr * kcw;
            ws[rr * KCW + cc] = w[(ch + rr) * KW + cw + cc];
          }
          __syncthreads();
          for (int kx = 0; kx < kcw; ++kx) {
            const A* col = xs + (ty * RY) * PW + tx + kx;
            A win[RY];
#pragma unroll
            for (int r = 0; r < RY; ++r) win[r] = col[r * PW];
#pragma unroll 4
            for (int ky = 0; ky < kch; ++ky) {
              const A wk = ws[ky * KCW + kx];
#pragma unroll
              for (int r = 0; r < RY; ++r) acc[r] = mac(acc[r], wk, win[r]);
#pragma unroll
              for (int r = 0; r + 1 < RY; ++r) win[r] = win[r + 1];
              win[RY - 1] = col[(RY + ky) * PW];
            }
          }
        }
      }
      const long long ow = ow0 + tx;
      if (ow < Wo) {
        O* ob = out + b * Ho * Wo;
#pragma unroll
        for (int r = 0; r < RY; ++r) {
          const long long oh = oh0 + ty * RY + r;
          if (oh < Ho) ob[oh * Wo + ow] = gs::cast<O>(acc[r]);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// nd: generic N-d, zero fill. out (C order, shape oshape) ;
//   out[o] = sum_k x[o + start + k] * w[k] over in-range positions only.
// ---------------------------------------------------------------------------
struct NdParams {
  long long ndim;
  long long xshape[GSCONV_MAXDIM];
  long long xstride[GSCONV_MAXDIM];   // elements
  long long wshape[GSCONV_MAXDIM];
  long long oshape[GSCONV_MAXDIM];
  long long start[GSCONV_MAXDIM];
};

template <class X, class A, class O, bool CONJX>
__device__ void nd(const X* __restrict__ x, const A* __restrict__ w, O* __restrict__ out,
                   long long total, long long wsize, NdParams p) {
  const int n = (int)p.ndim;
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total;
       o += (long long)gridDim.x * blockDim.x) {
    long long pos[GSCONV_MAXDIM], k[GSCONV_MAXDIM];
    long long rem = o;
    for (int d = n - 1; d >= 0; --d) {
      const long long od = rem % p.oshape[d];
      rem /= p.oshape[d];
      pos[d] = od + p.start[d];
      k[d] = 0;
    }
    A acc = A(0);
    for (long long wi = 0; wi < wsize; ++wi) {
      bool inside = true;
      long long off = 0;
      for (int d = 0; d < n; ++d) {
        const long long g = pos[d] + k[d];
        inside = inside && g >= 0 && g < p.xshape[d];
        off += g * p.xstride[d];
      }
      if (inside) acc = mac(acc, w[wi], load_as<A, CONJX>(x[off]));
      for (int d = n - 1; d >= 0; --d) {   // odometer over the weights
        if (++k[d] < p.wshape[d]) break;
        k[d] = 0;
      }
    }
    out[o] = gs::cast<O>(acc);
  }
}

}  // namespace gs_signal_conv
