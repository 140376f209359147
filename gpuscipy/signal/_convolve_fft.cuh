// Kernels around cuFFT for gpuscipy.signal: overlap-add blocks and the
// analytic-signal spectrum.
//
// Overlap-add along one axis (Crochiere & Rabiner 1983, ch. 3; Smith,
// "Spectral Audio Signal Processing", OLA): a signal of length L is cut into
// nb blocks of S = N - K + 1 samples, each zero-padded to N (pack); one
// batched real (or complex) FFT of the blocks, a product with the kernel's
// spectrum, one batched inverse FFT give each block's linear convolution
// (N = S + K - 1 points, no circular wrap); the overlap-add kernel sums, for
// each output sample m, the blocks j with 0 <= m - j*S < N.
//
// Layouts (all C order, element strides as kernel arguments):
//   pack: x (outer, L, inner) with strides (so, sl, si)  ->  P (outer, nb, N, inner)
//   ola:  y (outer, nb, N, inner) contiguous  ->  out (outer, Lout, inner),
//         out[b, n, i] = sum_j y[b, j, n + start - j*S, i]
//   analytic: X (outer, N/2+1, inner) rfft  ->  Z (outer, N, inner),
//         Z[k] = h[k] X[k] / N with h = 1, 2, ..., 2, (1 at N/2 for even N), 0 ...
#pragma once

#include "gpuscipy/types.cuh"

namespace gs_signal_fftconv {

// q = t * inner + i: the position t along the transformed axis and the
// inner index i of flat index q (inner == 1 known at compile time: INNER1)
template <bool INNER1>
__device__ __forceinline__ void split_inner(long long q, long long inner, long long& t,
                                            long long& i) {
  if constexpr (INNER1) {
    t = q;
    i = 0;
  } else {
    t = q / inner;
    i = q - t * inner;
  }
}

// grid: (ceil(N*inner / 256), min(outer*nb, 65535)); block 256.
template <class C, bool INNER1>
__device__ void pack(const C* __restrict__ x, long long L, long long so, long long sl,
                     long long si, C* __restrict__ p, long long nb, long long N,
                     long long S, long long inner, long long nrows) {
  const long long per_row = N * inner;
  const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= per_row) return;
  long long t, i;
  split_inner<INNER1>(q, inner, t, i);
  for (long long row = blockIdx.y; row < nrows; row += gridDim.y) {
    const long long b = row / nb, j = row - b * nb;
    const long long g = j * S + t;
    C v = C(0);
    if (t < S && g < L) v = x[b * so + g * sl + i * si];
    p[row * per_row + q] = v;
  }
}

// grid: (ceil(Lout*inner / 256), min(outer, 65535)); block 256.
template <class C, bool INNER1>
__device__ void ola(const C* __restrict__ y, long long nb, long long N, long long S,
                    long long inner, C* __restrict__ out, long long Lout, long long start,
                    long long outer) {
  const long long per_row = Lout * inner;
  const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= per_row) return;
  long long n, i;
  split_inner<INNER1>(q, inner, n, i);
  const long long m = n + start;
  long long jhi = m / S;
  if (jhi > nb - 1) jhi = nb - 1;
  long long jlo = m - N + 1 <= 0 ? 0 : (m - N + S) / S;
  for (long long b = blockIdx.y; b < outer; b += gridDim.y) {
    const C* yb = y + b * nb * N * inner + i;
    C acc = C(0);
    for (long long j = jlo; j <= jhi; ++j) acc += yb[(j * N + m - j * S) * inner];
    out[b * per_row + q] = acc;
  }
}

// grid: (ceil(N*inner / 256), min(outer, 65535)); block 256. C complex.
template <class C, bool INNER1>
__device__ void analytic(const C* __restrict__ X, C* __restrict__ Z, long long N,
                         long long inner, long long outer) {
  typedef typename C::value_type R;
  const long long half = N / 2 + 1;
  const long long per_row = N * inner;
  const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= per_row) return;
  long long k, i;
  split_inner<INNER1>(q, inner, k, i);
  R h = R(0);
  if (k == 0 || (N % 2 == 0 && k == N / 2)) h = R(1);
  else if (k < half) h = R(2);
  h = h / R(N);
  for (long long b = blockIdx.y; b < outer; b += gridDim.y) {
    C v = C(0);
    if (k < half) v = X[(b * half + k) * inner + i] * h;
    Z[b * per_row + q] = v;
  }
}

}  // namespace gs_signal_fftconv
