// Device code of gpuscipy.signal's spectral analysis (periodogram, welch,
// csd, coherence, spectrogram, stft, istft) and detrend.
//
// Data layout conventions
//   * A "line" is one 1-D signal along the analysed axis. Line b of an input
//     starts at element  (b / ninner) * so + (b % ninner) * si  and its
//     samples are sk elements apart (all strides in elements, any sign), so
//     the outer axes of a strided view collapse to at most two groups
//     without a copy (_spectral_kernels.line_layout decides).
//   * Segments (frames) of a line start every `hop` samples; the frame
//     buffer written by `frames` is C-contiguous (rows = B * nseg, nfft),
//     row = b * nseg + s, which is what one batched cuFFT plan reads.
//   * After the FFT, X is (B, nseg, nf) complex, frequency contiguous.
//
// Kernels (each a template below, instantiated by _spectral_kernels.py):
//   frames      fetch (boundary extension and zero padding folded in), per
//               segment detrend (none / mean / least-squares line), window,
//               zero pad to nfft: one pass that writes the FFT input.
//   power_partial / power_final
//               mean over segments of |X|^2 or Y conj(X): partial sums over
//               chunks of segments (frequency across threads, coalesced),
//               then a fixed-order sum of the chunks with the one-sided
//               doubling and 1/nseg. Deterministic (no atomics).
//   tr_op       32x32 shared-memory tile transpose (B, nseg, nf) ->
//               (B, nf, nseg) with an elementwise operation: power, cross
//               product, scaling, magnitude, angle.
//   median_cols median of each column by radix selection (8-bit digits,
//               MSB first, warp-private shared histograms), the column kept
//               in shared memory when it fits.
//   unwrap_cols numpy.unwrap along the frequency axis, one thread per column.
//   ola         inverse STFT overlap-add as a gather: each output sample sums
//               its overlapping segments in segment order and divides by the
//               summed squared window (the NOLA normaliser).
//   detrend_*   scipy.signal.detrend along lines: one block per line when the
//               line is short (fused), else per-chunk partial sums and an
//               apply pass (deterministic).
//
// Sums (means, least-squares moments, power averages) accumulate in double
// (complex<double>) for every input precision.
//
// Least-squares line on a piece of N samples, t = 0..N-1, tbar = (N-1)/2:
//   mean = sum(x) / N, slope = sum((t - tbar) x) / (N (N^2 - 1) / 12),
//   residual = x - mean - slope (t - tbar)   (slope = 0 for N = 1).
// This is the projection SciPy's lstsq computes, in closed form.
#pragma once

#include <gpuscipy/types.cuh>

namespace gs_signal_spectral {

constexpr int THREADS = 256;
typedef long long i64;

template <class T> struct real_of { typedef T type; };
template <class T> struct real_of<gs::complex<T>> { typedef T type; };
template <class T> struct acc_of { typedef double type; };
template <class T> struct acc_of<gs::complex<T>> { typedef gs::complex<double> type; };

GS_FI double sq_abs(float v) { return double(v) * double(v); }
GS_FI double sq_abs(double v) { return v * v; }
template <class T> GS_FI double sq_abs(gs::complex<T> v) {
  const double a = v.re, b = v.im;
  return a * a + b * b;
}

// Sum of v over aligned groups of G threads (G a power of two, 32..256);
// every thread of the block must call it. Returns the group's sum.
template <class A>
GS_DEV A group_sum(A v, A* sh, int G) {
  const int t = threadIdx.x;
  sh[t] = v;
  __syncthreads();
  for (int off = G >> 1; off > 0; off >>= 1) {
    if ((t & (G - 1)) < off) sh[t] = sh[t] + sh[t + off];
    __syncthreads();
  }
  const A r = sh[t & ~(G - 1)];
  __syncthreads();
  return r;
}

template <class T> GS_FI T twice_minus(T e, T v) { return (e + e) - v; }

// Sample j of the extended line: `pre` samples of boundary extension, the n
// samples of the line, `post` samples of extension, then zeros.
// bmode: 0 zeros, 1 even (mirror without the edge), 2 odd (2 edge - mirror),
// 3 constant (edge value) -- scipy.signal._arraytools' zero/even/odd/const_ext.
template <class T>
GS_DEV T fetch(const T* x, i64 base, i64 sk, i64 n, i64 pre, i64 post, int bmode, i64 j) {
  const i64 i = j - pre;
  if (i >= 0 && i < n) return x[base + i * sk];
  if (i < 0) {
    if (bmode == 0) return T(0);
    const T e = x[base];
    if (bmode == 3) return e;
    const T v = x[base + (-i) * sk];
    return bmode == 1 ? v : twice_minus(e, v);
  }
  const i64 r = i - n;
  if (r >= post || bmode == 0) return T(0);
  const T e = x[base + (n - 1) * sk];
  if (bmode == 3) return e;
  const T v = x[base + (n - 2 - r) * sk];
  return bmode == 1 ? v : twice_minus(e, v);
}

// ---------------------------------------------------------------------------
// frames: detrend + window + zero pad, written as the FFT input
// ---------------------------------------------------------------------------
// DETREND: 0 none, 1 constant, 2 linear. win may be null (no window).
// Launch: THREADS threads, ceil(rows / (THREADS / G)) blocks; G threads per
// segment row.
template <class T, class TO, int DETREND>
GS_DEV void frames(const T* __restrict__ x, i64 so, i64 si, i64 ninner, i64 sk, i64 n,
                   i64 pre, i64 post, int bmode, i64 hop, i64 nseg, i64 rows,
                   i64 nperseg, i64 nfft, const typename real_of<T>::type* __restrict__ win,
                   TO* __restrict__ out, int G) {
  typedef typename acc_of<T>::type A;
  __shared__ A sh[THREADS];
  const int lane = threadIdx.x & (G - 1);
  const i64 row = (i64)blockIdx.x * (THREADS / G) + threadIdx.x / G;
  const bool valid = row < rows;
  const i64 b = valid ? row / nseg : 0;
  const i64 s = valid ? row - b * nseg : 0;
  const i64 base = (b / ninner) * so + (b % ninner) * si;
  const i64 j0 = s * hop;
  const double tbar = 0.5 * double(nperseg - 1);
  A mean = A(0), slope = A(0);
  if (DETREND != 0) {
    A s0 = A(0), s1 = A(0);
    if (valid) {
      for (i64 k = lane; k < nperseg; k += G) {
        const A v = A(fetch(x, base, sk, n, pre, post, bmode, j0 + k));
        s0 += v;
        if (DETREND == 2) s1 += v * (double(k) - tbar);
      }
    }
    s0 = group_sum(s0, sh, G);
    mean = s0 / double(nperseg);
    if (DETREND == 2) {
      s1 = group_sum(s1, sh, G);
      const double np = double(nperseg);
      if (nperseg > 1) slope = s1 / (np * (np * np - 1.0) / 12.0);
    }
  }
  if (!valid) return;
  TO* o = out + row * nfft;
  for (i64 k = lane; k < nfft; k += G) {
    TO r = TO(0);
    if (k < nperseg) {
      T v = fetch(x, base, sk, n, pre, post, bmode, j0 + k);
      if (DETREND == 1) v = T(A(v) - mean);
      if (DETREND == 2) v = T(A(v) - mean - slope * (double(k) - tbar));
      if (win != nullptr) v = v * win[k];
      r = TO(v);
    }
    o[k] = r;
  }
}

// ---------------------------------------------------------------------------
// mean over segments
// ---------------------------------------------------------------------------
// Grid: nfb * nchunks * B blocks of THREADS (nfb = ceil(nf / THREADS)).
// CROSS: P = Y conj(X) (scipy.signal.csd's Pxy), else |X|^2.
template <class C, bool CROSS>
GS_DEV void power_partial(const C* __restrict__ X, const C* __restrict__ Y, i64 nseg, i64 nf,
                          i64 chunk, i64 nchunks, i64 nfb,
                          gs::conditional_t<CROSS, gs::complex<double>, double>* __restrict__ part) {
  typedef gs::conditional_t<CROSS, gs::complex<double>, double> P;
  const i64 bid = blockIdx.x;
  const i64 fb = bid % nfb;
  const i64 rest = bid / nfb;
  const i64 c = rest % nchunks;
  const i64 b = rest / nchunks;
  const i64 f = fb * THREADS + threadIdx.x;
  if (f >= nf) return;
  const i64 s0 = c * chunk;
  const i64 s1 = s0 + chunk < nseg ? s0 + chunk : nseg;
  P acc = P(0);
  for (i64 s = s0; s < s1; ++s) {
    const i64 at = (b * nseg + s) * nf + f;
    if constexpr (CROSS) {
      const C xv = X[at], yv = Y[at];
      const double xr = xv.re, xi = xv.im, yr = yv.re, yi = yv.im;
      acc += gs::complex<double>(yr * xr + yi * xi, yi * xr - yr * xi);
    } else {
      acc += sq_abs(X[at]);
    }
  }
  part[(b * nchunks + c) * nf + f] = acc;
}

// One thread per output (b, f): sum of the chunks in order, doubled on
// [dlo, dhi), divided by nseg.
template <class P, class OUT>
GS_DEV void power_final(const P* __restrict__ part, i64 nchunks, i64 nf, i64 total, i64 nseg,
                        i64 dlo, i64 dhi, OUT* __restrict__ out) {
  const i64 idx = (i64)blockIdx.x * THREADS + threadIdx.x;
  if (idx >= total) return;
  const i64 b = idx / nf;
  const i64 f = idx - b * nf;
  P acc = P(0);
  const P* p = part + b * nchunks * nf + f;
  for (i64 c = 0; c < nchunks; ++c) acc += p[c * nf];
  if (f >= dlo && f < dhi) acc = acc * 2.0;
  acc = acc / double(nseg);
  out[idx] = OUT(acc);
}

// ---------------------------------------------------------------------------
// tiled transpose with an operation
// ---------------------------------------------------------------------------
// OP: 0 power (|X|^2 scale, doubled on [dlo, dhi)), 1 cross (Y conj(X) scale,
// doubled), 2 scale (X scale), 3 magnitude |X scale|, 4 angle arg(X scale).
// Block (32, 8); grid ntiles = B * nts * ntf blocks.
template <class C, class OUT, int OP>
GS_DEV void tr_op(const C* __restrict__ X, const C* __restrict__ Y, i64 nseg, i64 nf, i64 ntf,
                  i64 nts, typename real_of<C>::type scale, i64 dlo, i64 dhi,
                  OUT* __restrict__ out) {
  __shared__ OUT tile[32][33];
  const i64 bid = blockIdx.x;
  const i64 tf = bid % ntf;
  const i64 rest = bid / ntf;
  const i64 ts = rest % nts;
  const i64 b = rest / nts;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const i64 f0 = tf * 32, s0 = ts * 32;
  for (int i = 0; i < 32; i += 8) {
    const i64 s = s0 + ty + i, f = f0 + tx;
    if (s < nseg && f < nf) {
      const i64 at = (b * nseg + s) * nf + f;
      const C xv = X[at];
      const bool dbl = f >= dlo && f < dhi;
      OUT v;
      if constexpr (OP == 0) {
        double p = sq_abs(xv) * double(scale);
        if (dbl) p *= 2.0;
        v = OUT(p);
      } else if constexpr (OP == 1) {
        const C yv = Y[at];
        const double xr = xv.re, xi = xv.im, yr = yv.re, yi = yv.im;
        gs::complex<double> p(yr * xr + yi * xi, yi * xr - yr * xi);
        p = p * double(scale);
        if (dbl) p = p * 2.0;
        v = OUT(p);
      } else {
        const C z = xv * scale;
        if constexpr (OP == 2) v = z;
        else if constexpr (OP == 3) v = gs::m::hypot(z.re, z.im);
        else v = gs::m::atan2(z.im, z.re);
      }
      tile[ty + i][tx] = v;
    }
  }
  __syncthreads();
  for (int i = 0; i < 32; i += 8) {
    const i64 f = f0 + ty + i, s = s0 + tx;
    if (s < nseg && f < nf) out[(b * nf + f) * nseg + s] = tile[tx][ty + i];
  }
}

// ---------------------------------------------------------------------------
// median of columns by radix selection
// ---------------------------------------------------------------------------
template <class R> struct key_of;
template <> struct key_of<float> {
  typedef unsigned int type;
  static GS_FI float nan() { return __int_as_float(0x7fc00000); }
  static GS_FI unsigned int enc(float v) {
    const unsigned int u = __float_as_uint(v);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  }
  static GS_FI float dec(unsigned int k) {
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
  }
};
template <> struct key_of<double> {
  typedef unsigned long long type;
  static GS_FI double nan() { return __longlong_as_double(0x7ff8000000000000LL); }
  static GS_FI unsigned long long enc(double v) {
    const unsigned long long u = (unsigned long long)__double_as_longlong(v);
    return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
  }
  static GS_FI double dec(unsigned long long k) {
    return __longlong_as_double((long long)((k >> 63) ? (k & 0x7fffffffffffffffull) : ~k));
  }
};

// Inclusive prefix sum of v over the block's THREADS threads.
GS_DEV unsigned int block_incl_scan(unsigned int v, unsigned int* warp_tot) {
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned int u = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += u;
  }
  if (lane == 31) warp_tot[w] = v;
  __syncthreads();
  unsigned int add = 0;
  for (int i = 0; i < w; ++i) add += warp_tot[i];
  __syncthreads();
  return v + add;
}

// The key of the k-th smallest (0-based) of the n values of a column:
// MSB-first 8-bit digits; each pass counts the digits of the keys that
// match the prefix chosen so far (one private histogram per warp), scans the
// 256 counts and keeps the bin that holds rank k.
template <class R>
GS_DEV typename key_of<R>::type select_kth(const R* c, i64 es, const typename key_of<R>::type* keys,
                                           bool use_sh, i64 n, unsigned long long k,
                                           unsigned int (*hist)[256], unsigned int* warp_tot,
                                           unsigned long long* sel) {
  typedef typename key_of<R>::type K;
  K prefix = 0, mask = 0;
  const int w = threadIdx.x >> 5;
  for (int shift = 8 * (int)sizeof(K) - 8; shift >= 0; shift -= 8) {
    for (int i = 0; i < THREADS / 32; ++i) hist[i][threadIdx.x] = 0u;
    __syncthreads();
    for (i64 i = threadIdx.x; i < n; i += THREADS) {
      const K key = use_sh ? keys[i] : key_of<R>::enc(c[i * es]);
      if ((key & mask) == prefix) atomicAdd(&hist[w][(unsigned int)(key >> shift) & 255u], 1u);
    }
    __syncthreads();
    unsigned int h = 0;
    for (int i = 0; i < THREADS / 32; ++i) h += hist[i][threadIdx.x];
    const unsigned int incl = block_incl_scan(h, warp_tot);
    if ((unsigned long long)incl > k && (unsigned long long)(incl - h) <= k) {
      sel[0] = (unsigned long long)threadIdx.x;
      sel[1] = (unsigned long long)(incl - h);
    }
    __syncthreads();
    prefix |= K(sel[0]) << shift;
    mask |= K(255) << shift;
    k -= sel[1];
    __syncthreads();
  }
  return prefix;
}

// out[col * out_stride] = median(column) / bias (NaN if the column holds a
// NaN, as numpy.median). Column col: in[col * col_stride + i * es], i < n.
// Keys are kept in dynamic shared memory when n <= cap.
// Launch: THREADS threads, grid-stride over columns.
template <class R>
GS_DEV void median_cols(const R* __restrict__ in, i64 n, i64 col_stride, i64 es, i64 ncols,
                        R* __restrict__ out, i64 out_stride, R bias, i64 cap) {
  typedef typename key_of<R>::type K;
  extern __shared__ __align__(16) unsigned char gssig_dyn[];
  K* keys = reinterpret_cast<K*>(gssig_dyn);
  __shared__ unsigned int hist[THREADS / 32][256];
  __shared__ unsigned int warp_tot[THREADS / 32];
  __shared__ unsigned long long sel[2];
  const bool use_sh = n <= cap;
  for (i64 col = blockIdx.x; col < ncols; col += gridDim.x) {
    const R* c = in + col * col_stride;
    int nan_here = 0;
    for (i64 i = threadIdx.x; i < n; i += THREADS) {
      const R v = c[i * es];
      nan_here |= gs::m::isnan(v) ? 1 : 0;
      if (use_sh) keys[i] = key_of<R>::enc(v);
    }
    const int any_nan = __syncthreads_or(nan_here);
    if (any_nan) {
      if (threadIdx.x == 0) out[col * out_stride] = key_of<R>::nan();
      __syncthreads();
      continue;
    }
    const unsigned long long k1 = (unsigned long long)((n - 1) / 2);
    const R v1 = key_of<R>::dec(select_kth<R>(c, es, keys, use_sh, n, k1, hist, warp_tot, sel));
    R med = v1;
    if (n % 2 == 0) {
      const R v2 = key_of<R>::dec(
          select_kth<R>(c, es, keys, use_sh, n, k1 + 1, hist, warp_tot, sel));
      med = (v1 + v2) / R(2);
    }
    if (threadIdx.x == 0) out[col * out_stride] = med / bias;
    __syncthreads();
  }
}

// ---------------------------------------------------------------------------
// numpy.unwrap along the frequency axis of (B, nf, nseg)
// ---------------------------------------------------------------------------
template <class R> GS_FI R np_mod(R a, R b) {
  // numpy's floating remainder: the sign of the divisor
  R m = gs::m::fmod(a, b);
  if (m != R(0)) {
    if ((b < R(0)) != (m < R(0))) m += b;
  } else {
    m = gs::m::copysign(R(0), b);
  }
  return m;
}

template <class R>
GS_DEV void unwrap_cols(R* p, i64 nf, i64 nseg, i64 ncols) {
  const i64 col = (i64)blockIdx.x * THREADS + threadIdx.x;
  if (col >= ncols) return;
  const i64 b = col / nseg;
  const i64 s = col - b * nseg;
  R* q = p + b * nf * nseg + s;
  const R pi = R(3.141592653589793), period = R(6.283185307179586);
  R prev = q[0];
  R cum = R(0);
  for (i64 f = 1; f < nf; ++f) {
    const R cur = q[f * nseg];
    const R dd = cur - prev;
    R ddmod = np_mod<R>(dd + pi, period) - pi;
    if (ddmod == -pi && dd > R(0)) ddmod = pi;
    R corr = ddmod - dd;
    if (gs::m::fabs(dd) < pi) corr = R(0);
    cum += corr;
    q[f * nseg] = cur + cum;
    prev = cur;
  }
}

// ---------------------------------------------------------------------------
// inverse STFT: overlap-add as a gather
// ---------------------------------------------------------------------------
GS_FI float mul_r(float a, float b) { return gs::m::mul_rn(a, b); }
GS_FI double mul_r(double a, double b) { return gs::m::mul_rn(a, b); }
template <class R> GS_FI gs::complex<R> mul_r(gs::complex<R> a, R b) { return a * b; }
GS_FI float add_r(float a, float b) { return gs::m::add_rn(a, b); }
GS_FI double add_r(double a, double b) { return gs::m::add_rn(a, b); }
template <class R> GS_FI gs::complex<R> add_r(gs::complex<R> a, gs::complex<R> b) {
  return gs::complex<R>(gs::m::add_rn(a.re, b.re), gs::m::add_rn(a.im, b.im));
}

// out[b, jj] (jj < lout) = sum_p (xs[b, p, k] scale) win[k] / norm, k = j - p nstep,
// j = start + jj, p ascending; norm = sum_p win[k]^2, replaced by 1 where
// <= 1e-10 (scipy.signal.istft). xs rows are row_len long (nfft).
template <class T>
GS_DEV void ola(const T* __restrict__ xs, i64 nseg, i64 row_len, i64 nperseg, i64 nstep,
                const typename real_of<T>::type* __restrict__ win,
                typename real_of<T>::type scale, i64 start, i64 lout, i64 total,
                T* __restrict__ out) {
  typedef typename real_of<T>::type R;
  const i64 idx = (i64)blockIdx.x * THREADS + threadIdx.x;
  if (idx >= total) return;
  const i64 b = idx / lout;
  const i64 j = start + (idx - b * lout);
  i64 p_hi = j / nstep;
  if (p_hi > nseg - 1) p_hi = nseg - 1;
  const i64 lo_num = j - nperseg + 1;
  const i64 p_lo = lo_num <= 0 ? 0 : (lo_num + nstep - 1) / nstep;
  T acc = T(0);
  R norm = R(0);
  const T* row = xs + b * nseg * row_len;
  for (i64 p = p_lo; p <= p_hi; ++p) {
    const i64 k = j - p * nstep;
    const R w = win[k];
    acc = add_r(acc, mul_r(mul_r(row[p * row_len + k], scale), w));
    norm = add_r(norm, mul_r(w, w));
  }
  out[idx] = norm > R(1e-10) ? acc / norm : acc;
}

// ---------------------------------------------------------------------------
// detrend along lines
// ---------------------------------------------------------------------------
// Pieces: bp[0] = 0 < bp[1] < ... < bp[npieces] = N (the breakpoints);
// chunked kernels: piece m owns chunks cfirst[m] .. cfirst[m+1]-1 of CH
// samples; C = cfirst[npieces] chunks per line; part is (L, C, 2).

template <class T, bool LINEAR>
GS_DEV void piece_moments(const T* x, i64 xb, i64 xsk, i64 lo, i64 hi, i64 plo, double tbar,
                          typename acc_of<T>::type& s0, typename acc_of<T>::type& s1) {
  typedef typename acc_of<T>::type A;
  for (i64 i = lo + threadIdx.x; i < hi; i += THREADS) {
    const A v = A(x[xb + i * xsk]);
    s0 += v;
    if (LINEAR) s1 += v * (double(i - plo) - tbar);
  }
}

template <class T, bool LINEAR>
GS_DEV void piece_apply(const T* x, i64 xb, i64 xsk, T* y, i64 yb, i64 ysk, i64 lo, i64 hi,
                        i64 plo, double tbar, typename acc_of<T>::type mean,
                        typename acc_of<T>::type slope) {
  typedef typename acc_of<T>::type A;
  for (i64 i = lo + threadIdx.x; i < hi; i += THREADS) {
    const A v = A(x[xb + i * xsk]);
    A r = v - mean;
    if (LINEAR) r = r - slope * (double(i - plo) - tbar);
    y[yb + i * ysk] = T(r);
  }
}

template <class A>
GS_FI void line_fit(A s0, A s1, i64 npts, bool linear, A& mean, A& slope) {
  const double np = double(npts);
  mean = s0 / np;
  slope = A(0);
  if (linear && npts > 1) slope = s1 / (np * (np * np - 1.0) / 12.0);
}

template <class T, bool LINEAR>
GS_DEV void detrend_fused(const T* x, i64 xso, i64 xsi, i64 ninner, i64 xsk, T* y, i64 yso,
                          i64 ysi, i64 ysk, i64 L, const i64* __restrict__ bp, i64 npieces) {
  typedef typename acc_of<T>::type A;
  __shared__ A sh[THREADS];
  for (i64 line = blockIdx.x; line < L; line += gridDim.x) {
    const i64 xb = (line / ninner) * xso + (line % ninner) * xsi;
    const i64 yb = (line / ninner) * yso + (line % ninner) * ysi;
    for (i64 m = 0; m < npieces; ++m) {
      const i64 lo = bp[m], hi = bp[m + 1];
      const double tbar = 0.5 * double(hi - lo - 1);
      A s0 = A(0), s1 = A(0);
      piece_moments<T, LINEAR>(x, xb, xsk, lo, hi, lo, tbar, s0, s1);
      s0 = group_sum(s0, sh, THREADS);
      if (LINEAR) s1 = group_sum(s1, sh, THREADS);
      A mean, slope;
      line_fit(s0, s1, hi - lo, LINEAR, mean, slope);
      piece_apply<T, LINEAR>(x, xb, xsk, y, yb, ysk, lo, hi, lo, tbar, mean, slope);
      __syncthreads();
    }
  }
}

GS_FI i64 piece_of_chunk(const i64* cfirst, i64 npieces, i64 q) {
  i64 lo = 0, hi = npieces;  // cfirst[lo] <= q < cfirst[hi]
  while (hi - lo > 1) {
    const i64 mid = (lo + hi) >> 1;
    if (cfirst[mid] <= q) lo = mid; else hi = mid;
  }
  return lo;
}

// The chunk of this block: its line, its index q among the line's chunks,
// its piece m, the piece's bounds [plo, phi), the chunk's [lo, hi) and the
// piece's mean time tbar (chunks of CH samples, C per line).
struct chunk_span {
  i64 line, q, m, plo, phi, lo, hi;
  double tbar;
};
GS_FI chunk_span block_chunk(const i64* __restrict__ bp, const i64* __restrict__ cfirst,
                             i64 npieces, i64 C, i64 CH) {
  chunk_span c;
  c.line = (i64)blockIdx.x / C;
  c.q = (i64)blockIdx.x - c.line * C;
  c.m = piece_of_chunk(cfirst, npieces, c.q);
  c.plo = bp[c.m];
  c.phi = bp[c.m + 1];
  c.lo = c.plo + (c.q - cfirst[c.m]) * CH;
  c.hi = c.lo + CH < c.phi ? c.lo + CH : c.phi;
  c.tbar = 0.5 * double(c.phi - c.plo - 1);
  return c;
}

template <class T, bool LINEAR>
GS_DEV void detrend_partial(const T* x, i64 xso, i64 xsi, i64 ninner, i64 xsk, i64 L,
                            const i64* __restrict__ bp, const i64* __restrict__ cfirst,
                            i64 npieces, i64 C, i64 CH, typename acc_of<T>::type* part) {
  typedef typename acc_of<T>::type A;
  __shared__ A sh[THREADS];
  const chunk_span k = block_chunk(bp, cfirst, npieces, C, CH);
  const i64 xb = (k.line / ninner) * xso + (k.line % ninner) * xsi;
  A s0 = A(0), s1 = A(0);
  piece_moments<T, LINEAR>(x, xb, xsk, k.lo, k.hi, k.plo, k.tbar, s0, s1);
  s0 = group_sum(s0, sh, THREADS);
  if (LINEAR) s1 = group_sum(s1, sh, THREADS);
  if (threadIdx.x == 0) {
    part[(k.line * C + k.q) * 2] = s0;
    part[(k.line * C + k.q) * 2 + 1] = s1;
  }
}

template <class T, bool LINEAR>
GS_DEV void detrend_apply(const T* x, i64 xso, i64 xsi, i64 ninner, i64 xsk, T* y, i64 yso,
                          i64 ysi, i64 ysk, i64 L, const i64* __restrict__ bp,
                          const i64* __restrict__ cfirst, i64 npieces, i64 C, i64 CH,
                          const typename acc_of<T>::type* part) {
  typedef typename acc_of<T>::type A;
  const chunk_span k = block_chunk(bp, cfirst, npieces, C, CH);
  A s0 = A(0), s1 = A(0);
  for (i64 c = cfirst[k.m]; c < cfirst[k.m + 1]; ++c) {
    s0 += part[(k.line * C + c) * 2];
    s1 += part[(k.line * C + c) * 2 + 1];
  }
  A mean, slope;
  line_fit(s0, s1, k.phi - k.plo, LINEAR, mean, slope);
  const i64 xb = (k.line / ninner) * xso + (k.line % ninner) * xsi;
  const i64 yb = (k.line / ninner) * yso + (k.line % ninner) * ysi;
  piece_apply<T, LINEAR>(x, xb, xsk, y, yb, ysk, k.lo, k.hi, k.plo, k.tbar, mean, slope);
}

}  // namespace gs_signal_spectral
