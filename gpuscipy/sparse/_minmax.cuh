// Segment extremes of gpuscipy.sparse (_minmax.py).
//
// segment_extreme<T, I, OP>: for every segment s, the extreme of
// v[ptr[s] .. ptr[s+1]) and the position (absolute entry index) of its first
// occurrence; pos[s] = -1 for an empty segment (out[s] is then left as is).
// One thread per segment, entries in stored order (as segment_sum).
// OP: 0 minimum, 1 maximum (NaN propagates: the first NaN wins, NumPy's
// argmin/argmax rule), 2 fmin, 3 fmax (NaN ignored unless all are NaN).
// Complex values order lexicographically (real, then imaginary), a complex
// value is NaN when either part is, as NumPy.
#pragma once

namespace gs_sparse_minmax {

template <class T> __device__ __forceinline__ bool is_nan(T) { return false; }
__device__ __forceinline__ bool is_nan(float x) { return ::isnan(x); }
__device__ __forceinline__ bool is_nan(double x) { return ::isnan(x); }
template <class R> __device__ __forceinline__ bool is_nan(gs::complex<R> x) {
  return ::isnan(x.re) || ::isnan(x.im);
}

template <class T> __device__ __forceinline__ bool lt(T a, T b) { return a < b; }
template <class R> __device__ __forceinline__ bool lt(gs::complex<R> a, gs::complex<R> b) {
  return a.re < b.re || (a.re == b.re && a.im < b.im);
}

// true when candidate x replaces the current extreme b (first occurrence kept)
template <int OP, class T> __device__ __forceinline__ bool better(T x, T b) {
  const bool xn = is_nan(x), bn = is_nan(b);
  if (OP == 0 || OP == 1) {
    if (bn) return false;
    if (xn) return true;
  } else {
    if (xn) return false;
    if (bn) return true;
  }
  return (OP == 0 || OP == 2) ? lt(x, b) : lt(b, x);
}

template <class T, class I, int OP>
__global__ void __launch_bounds__(256)
segment_extreme(const T* __restrict__ v, const I* __restrict__ ptr, long long nseg,
                T* __restrict__ out, long long* __restrict__ pos) {
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < nseg;
       s += (long long)gridDim.x * blockDim.x) {
    const long long e0 = (long long)ptr[s], e1 = (long long)ptr[s + 1];
    if (e1 <= e0) {
      pos[s] = -1;
      continue;
    }
    T best = v[e0];
    long long at = e0;
    for (long long e = e0 + 1; e < e1; ++e) {
      const T x = v[e];
      if (better<OP>(x, best)) {
        best = x;
        at = e;
      }
    }
    out[s] = best;
    pos[s] = at;
  }
}

}  // namespace gs_sparse_minmax
