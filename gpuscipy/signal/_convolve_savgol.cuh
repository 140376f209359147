// Savitzky-Golay 'interp' edges of gpuscipy.signal.savgol_filter.
//
// The first and last window_length // 2 outputs along the axis are the
// values (or derivatives) at those positions of the least-squares
// polynomial fitted to the first / last window_length samples. The fit is
// linear in the samples, so each edge output is a dot product of one row of
// the host-computed matrix E (2h rows of wl coefficients: h left positions,
// then h right positions) with the edge window.
//
// Layout: x (outer, n, inner) with element strides (sb, sl, si); out
// (outer, n, inner) contiguous. One thread per (edge output, inner index);
// grid (ceil(2h * inner / 256), min(outer, 65535)), block 256.
#pragma once

#include "gpuscipy/types.cuh"

namespace gs_signal_savgol {

template <class X>
__device__ void edges(const X* __restrict__ x, long long n, long long sb, long long sl,
                      long long si, const double* __restrict__ E, long long wl,
                      long long h, X* __restrict__ out, long long outer, long long inner) {
  const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= 2 * h * inner) return;
  const long long e = q / inner, i = q - e * inner;
  const long long pos = e < h ? e : n - h + (e - h);
  const long long w0 = e < h ? 0 : n - wl;
  const double* row = E + e * wl;
  for (long long b = blockIdx.y; b < outer; b += gridDim.y) {
    const X* xb = x + b * sb + i * si + w0 * sl;
    double acc = 0.0;
    for (long long j = 0; j < wl; ++j) acc = fma(row[j], (double)xb[j * sl], acc);
    out[(b * n + pos) * inner + i] = (X)acc;
  }
}

}  // namespace gs_signal_savgol
