// Pre- and post-processing kernels of the DCT/DST types 1-4 on cuFFT.
//
// Every transform is one FFT between two of these passes (see
// _realtransforms.py for the plan of each type):
//   type 2: Makhoul's reordering v = [x0, x2, x4, ..., x5, x3, x1], an N-point
//           real FFT (or, for even N, an N/2-point complex FFT of v read as
//           complex pairs, with the real-FFT split fused into the post pass),
//           then y[k] = 2 Re(exp(-i pi k / 2N) V[k]).
//   type 3: the inverse of type 2: V[k] = exp(i pi k / 2N) (X[k] - i X[N-k]),
//           an N-point complex-to-real FFT, then the inverse reordering.
//   type 4: even N: z[n] = (x[2n] + i x[N-1-2n]) exp(-i pi (4n+1) / 4N), an
//           N/2-point complex FFT, c[k] = Z[k] exp(-i pi k / N),
//           y[2k] = 2 Re c, y[N-1-2k] = -2 Im c;
//           odd N: a 2N-point complex FFT of x[n] exp(-i pi n / 2N) (zero
//           padded), y[k] = 2 Re(exp(-i pi (2k+1) / 4N) U[k]).
//   type 1: the even (DCT) or odd (DST) extension of length 2(N-1) resp.
//           2(N+1) and a real FFT.
//   DST types 2-4 are DCTs of the sign-alternated or reversed input with
//   the output reversed or sign-alternated; those index maps are folded in.
//
// Layout: the input x is C-contiguous of logical shape (outer, N, inner) with
// the transform along the middle axis; row b = o*inner + i. The FFT buffers
// hold B = outer*inner contiguous rows. A complex input is passed as its real
// view with inner doubled (real and imaginary parts transformed separately,
// as SciPy does).
//
// Launch: blockIdx.y strides over rows, blockIdx.x/threadIdx.x over the
// items of a row (no 64-bit division per element). UNIT = (inner == 1).
//
// References: J. Makhoul, "A fast cosine transform in one and two
// dimensions", IEEE TASSP 28(1), 1980; Z. Wang, "Fast algorithms for the
// discrete W transform and for the discrete Fourier transform", IEEE TASSP
// 32(4), 1984 (type 4 through a half-length complex FFT).
#pragma once

namespace gs_fft_r2r {

template <class T> struct alignas(2 * sizeof(T)) cx { T re, im; };

__device__ __forceinline__ void sincospi_(float a, float* s, float* c) { ::sincospif(a, s, c); }
__device__ __forceinline__ void sincospi_(double a, double* s, double* c) { ::sincospi(a, s, c); }

// exp(-i pi num / den) = (c, s)
template <class T>
__device__ __forceinline__ void expm(long long num, long long den, T& c, T& s) {
  T sn, cs;
  sincospi_((T)num / (T)den, &sn, &cs);
  c = cs;
  s = -sn;
}

// (a + ib)(c + id)
template <class T>
__device__ __forceinline__ cx<T> cmul(cx<T> a, T c, T d) {
  cx<T> r;
  r.re = a.re * c - a.im * d;
  r.im = a.re * d + a.im * c;
  return r;
}

#define GSFFT_ROWS(B)                                                              \
  for (long long b = blockIdx.y; b < (B); b += gridDim.y)
#define GSFFT_ITEMS(j, count)                                                      \
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < (count); \
       j += (long long)blockDim.x * gridDim.x)

// First element of row b of the (outer, N, inner) array and its stride.
template <bool UNIT>
__device__ __forceinline__ long long row_base(long long b, long long N, long long inner) {
  if (UNIT) return b * N;
  const long long o = b / inner;
  return o * N * inner + (b - o * inner);
}

// ----------------------------------------------------------------- type 2
// v[j] = x[2j], v[N-1-j] = +-x[2j+1]   (j < ceil(N/2); DST: odd samples negated)
template <class T, bool DST, bool UNIT>
__device__ void dct2_pre(const T* __restrict__ x, T* __restrict__ v, long long N,
                         long long inner, long long B, T, T, T) {
  const long long h = (N + 1) / 2;
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    const T* xr = x + row_base<UNIT>(b, N, inner);
    T* vr = v + b * N;
    GSFFT_ITEMS(j, h) {
      vr[j] = xr[2 * j * st];
      if (2 * j + 1 < N) {
        const T o = xr[(2 * j + 1) * st];
        vr[N - 1 - j] = DST ? -o : o;
      }
    }
  }
}

// Writes y[k] = 2 Re(t V) and y[N-k] = -2 Im(t V) (k > 0, N-k != k), with
// t = exp(-i pi k / 2N) given as (c, s); DST: output index reversed.
template <class T, bool DST>
__device__ __forceinline__ void dct2_emit(T* yr, long long st, long long N, long long k,
                                          cx<T> V, T c, T s, T scale, T e0) {
  const cx<T> P = cmul(V, c, s);
  const T a = 2 * P.re * scale * (k == 0 ? e0 : (T)1);
  yr[(DST ? N - 1 - k : k) * st] = a;
  if (k > 0 && N - k != k) {
    const T bb = -2 * P.im * scale;
    yr[(DST ? k - 1 : N - k) * st] = bb;
  }
}

// From the N-point real FFT V (rows of N/2+1): thread k in [0, N/2] writes
// y[k] and y[N-k]. y[0] (DST: y[N-1]) gets the orthogonalisation factor e0.
template <class T, bool DST, bool UNIT>
__device__ void dct2_post_r2c(const T* __restrict__ Vraw, T* __restrict__ y, long long N,
                              long long inner, long long B, T scale, T, T e0) {
  const cx<T>* V = reinterpret_cast<const cx<T>*>(Vraw);
  const long long h = N / 2 + 1;
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    T* yr = y + row_base<UNIT>(b, N, inner);
    const cx<T>* Vr = V + b * h;
    GSFFT_ITEMS(k, h) {
      T c, s;
      expm<T>(k, 2 * N, c, s);
      dct2_emit<T, DST>(yr, st, N, k, Vr[k], c, s, scale, e0);
    }
  }
}

// From the M = N/2 point complex FFT Z of v read as pairs (even N >= 4): the
// real-FFT split V[k] = E[k] + W^k O[k] fused with the DCT twiddle. Thread k
// in [0, M/2] handles k and M-k, reading Z[k] and Z[(M-k) mod M] once.
// One sincospi per thread: t = exp(-i pi k / 2N), W^k = t^4,
// t_{M-k} = exp(-i pi / 4) conj(t), W^{M-k} = -conj(W^k).
template <class T, bool DST, bool UNIT>
__device__ void dct2_post_c2c(const T* __restrict__ Zraw, T* __restrict__ y, long long N,
                              long long inner, long long B, T scale, T, T e0) {
  const cx<T>* Z = reinterpret_cast<const cx<T>*>(Zraw);
  const long long M = N / 2;
  const long long st = UNIT ? 1 : inner;
  const T r2 = (T)0.70710678118654752440;  // cos(pi/4)
  GSFFT_ROWS(B) {
    T* yr = y + row_base<UNIT>(b, N, inner);
    const cx<T>* Zr = Z + b * M;
    GSFFT_ITEMS(k, M / 2 + 1) {
      const long long j = k == 0 ? 0 : M - k;
      const cx<T> zk = Zr[k], zj = Zr[j];
      T tc, ts;
      expm<T>(k, 2 * N, tc, ts);
      const T t2c = tc * tc - ts * ts, t2s = 2 * tc * ts;      // t^2
      const T wc = t2c * t2c - t2s * t2s, ws = 2 * t2c * t2s;  // t^4 = W^k
      {
        // V[k]: E = (zk + conj zj)/2, O = (zk - conj zj)/(2i)
        const T er = (zk.re + zj.re) * (T)0.5, ei = (zk.im - zj.im) * (T)0.5;
        const T orr = (zk.im + zj.im) * (T)0.5, oi = -(zk.re - zj.re) * (T)0.5;
        cx<T> V;
        V.re = er + orr * wc - oi * ws;
        V.im = ei + orr * ws + oi * wc;
        dct2_emit<T, DST>(yr, st, N, k, V, tc, ts, scale, e0);
      }
      const long long kk = M - k;
      if (kk != k) {
        // V[M-k]: E = (zj + conj zk)/2, O = (zj - conj zk)/(2i), W = -conj(W^k)
        const T er = (zj.re + zk.re) * (T)0.5, ei = (zj.im - zk.im) * (T)0.5;
        const T orr = (zj.im + zk.im) * (T)0.5, oi = -(zj.re - zk.re) * (T)0.5;
        const T vc = -wc, vs = ws;
        cx<T> V;
        V.re = er + orr * vc - oi * vs;
        V.im = ei + orr * vs + oi * vc;
        // exp(-i pi/4) conj(t) = r2 (1 - i)(tc - i ts)
        const T uc = r2 * (tc - ts), us = -r2 * (tc + ts);
        dct2_emit<T, DST>(yr, st, N, kk, V, uc, us, scale, e0);
      }
    }
  }
}

// ----------------------------------------------------------------- type 3
// V[k] = exp(i pi k / 2N) (X[k] - i X[N-k]), k in [0, N/2], X[N] = 0;
// X = x (DCT) or x reversed (DST); X[0] gets e0, everything the scale.
template <class T, bool DST, bool UNIT>
__device__ __forceinline__ T load_x3(const T* xr, long long st, long long N, long long m,
                                     T e0) {
  const T v = xr[(DST ? N - 1 - m : m) * st];
  return m == 0 ? v * e0 : v;
}

template <class T, bool DST, bool UNIT>
__device__ void dct3_pre(const T* __restrict__ x, T* __restrict__ Vraw, long long N,
                         long long inner, long long B, T scale, T e0, T) {
  cx<T>* V = reinterpret_cast<cx<T>*>(Vraw);
  const long long h = N / 2 + 1;
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    const T* xr = x + row_base<UNIT>(b, N, inner);
    cx<T>* Vr = V + b * h;
    GSFFT_ITEMS(k, h) {
      const T a = load_x3<T, DST, UNIT>(xr, st, N, k, e0) * scale;
      const T bb = k == 0 ? (T)0 : load_x3<T, DST, UNIT>(xr, st, N, N - k, e0) * scale;
      T c, s;
      expm<T>(k, 2 * N, c, s);  // exp(-i..); we need exp(+i..) = (c, -s)
      s = -s;
      cx<T> r;
      r.re = c * a + s * bb;
      r.im = s * a - c * bb;
      Vr[k] = r;
    }
  }
}

// y[2n] = v[n], y[2n+1] = v[N-1-n] (DST: odd outputs negated)
template <class T, bool DST, bool UNIT>
__device__ void dct3_post(const T* __restrict__ v, T* __restrict__ y, long long N,
                          long long inner, long long B, T, T, T) {
  const long long h = (N + 1) / 2;
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    T* yr = y + row_base<UNIT>(b, N, inner);
    const T* vr = v + b * N;
    GSFFT_ITEMS(n, h) {
      yr[2 * n * st] = vr[n];
      if (2 * n + 1 < N) {
        const T o = vr[N - 1 - n];
        yr[(2 * n + 1) * st] = DST ? -o : o;
      }
    }
  }
}

// ----------------------------------------------------------------- type 4
template <class T, bool DST>
__device__ __forceinline__ T load_x4(const T* xr, long long st, long long N, long long m) {
  return xr[(DST ? N - 1 - m : m) * st];
}

// even N: z[n] = (X[2n] + i X[N-1-2n]) exp(-i pi (4n+1) / 4N) * scale
template <class T, bool DST, bool UNIT>
__device__ void dct4e_pre(const T* __restrict__ x, T* __restrict__ zraw, long long N,
                          long long inner, long long B, T scale, T, T) {
  cx<T>* z = reinterpret_cast<cx<T>*>(zraw);
  const long long M = N / 2;
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    const T* xr = x + row_base<UNIT>(b, N, inner);
    cx<T>* zr = z + b * M;
    GSFFT_ITEMS(n, M) {
      cx<T> a;
      a.re = load_x4<T, DST>(xr, st, N, 2 * n) * scale;
      a.im = load_x4<T, DST>(xr, st, N, N - 1 - 2 * n) * scale;
      T c, s;
      expm<T>(4 * n + 1, 4 * N, c, s);
      zr[n] = cmul(a, c, s);
    }
  }
}

// c = Z[n] exp(-i pi n / N); y[2n] = 2 Re c, y[N-1-2n] = -2 Im c (DST: odd
// outputs negated; N-1-2n is odd)
template <class T, bool DST, bool UNIT>
__device__ void dct4e_post(const T* __restrict__ Zraw, T* __restrict__ y, long long N,
                           long long inner, long long B, T, T, T) {
  const cx<T>* Z = reinterpret_cast<const cx<T>*>(Zraw);
  const long long M = N / 2;
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    T* yr = y + row_base<UNIT>(b, N, inner);
    const cx<T>* Zr = Z + b * M;
    GSFFT_ITEMS(n, M) {
      T c, s;
      expm<T>(n, N, c, s);
      const cx<T> r = cmul(Zr[n], c, s);
      yr[2 * n * st] = 2 * r.re;
      yr[(N - 1 - 2 * n) * st] = DST ? 2 * r.im : -2 * r.im;
    }
  }
}

// odd N: u[n] = X[n] exp(-i pi n / 2N) * scale for n < N, 0 for N <= n < 2N
template <class T, bool DST, bool UNIT>
__device__ void dct4o_pre(const T* __restrict__ x, T* __restrict__ uraw, long long N,
                          long long inner, long long B, T scale, T, T) {
  cx<T>* u = reinterpret_cast<cx<T>*>(uraw);
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    const T* xr = x + row_base<UNIT>(b, N, inner);
    cx<T>* ur = u + b * 2 * N;
    GSFFT_ITEMS(n, 2 * N) {
      cx<T> r;
      if (n < N) {
        const T a = load_x4<T, DST>(xr, st, N, n) * scale;
        T c, s;
        expm<T>(n, 2 * N, c, s);
        r.re = a * c;
        r.im = a * s;
      } else {
        r.re = 0;
        r.im = 0;
      }
      ur[n] = r;
    }
  }
}

// y[k] = 2 Re(exp(-i pi (2k+1) / 4N) U[k]) (DST: odd outputs negated)
template <class T, bool DST, bool UNIT>
__device__ void dct4o_post(const T* __restrict__ Uraw, T* __restrict__ y, long long N,
                           long long inner, long long B, T, T, T) {
  const cx<T>* U = reinterpret_cast<const cx<T>*>(Uraw);
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    T* yr = y + row_base<UNIT>(b, N, inner);
    const cx<T>* Ur = U + b * 2 * N;
    GSFFT_ITEMS(k, N) {
      T c, s;
      expm<T>(2 * k + 1, 4 * N, c, s);
      const T r = 2 * (Ur[k].re * c - Ur[k].im * s);
      yr[k * st] = (DST && (k & 1)) ? -r : r;
    }
  }
}

// ----------------------------------------------------------------- type 1
// DCT-I: e[j] = x[j] (j < N), x[L-j] (j >= N), L = 2(N-1); x[0], x[N-1] get e0
template <class T, bool DST, bool UNIT>
__device__ void dct1_pre(const T* __restrict__ x, T* __restrict__ e, long long N,
                         long long inner, long long B, T scale, T e0, T) {
  const long long L = 2 * (N - 1);
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    const T* xr = x + row_base<UNIT>(b, N, inner);
    T* er = e + b * L;
    GSFFT_ITEMS(j, L) {
      const long long m = j < N ? j : L - j;
      const T v = xr[m * st] * scale;
      er[j] = (m == 0 || m == N - 1) ? v * e0 : v;
    }
  }
}

// y[k] = Re E[k] (rows of N = L/2+1); y[0], y[N-1] get e1
template <class T, bool DST, bool UNIT>
__device__ void dct1_post(const T* __restrict__ Eraw, T* __restrict__ y, long long N,
                          long long inner, long long B, T, T, T e1) {
  const cx<T>* E = reinterpret_cast<const cx<T>*>(Eraw);
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    T* yr = y + row_base<UNIT>(b, N, inner);
    const cx<T>* Er = E + b * N;
    GSFFT_ITEMS(k, N) {
      const T v = Er[k].re;
      yr[k * st] = (k == 0 || k == N - 1) ? v * e1 : v;
    }
  }
}

// DST-I: L = 2(N+1), e = [0, x0..x_{N-1}, 0, -x_{N-1}..-x0]
template <class T, bool DST, bool UNIT>
__device__ void dst1_pre(const T* __restrict__ x, T* __restrict__ e, long long N,
                         long long inner, long long B, T scale, T, T) {
  const long long L = 2 * (N + 1);
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    const T* xr = x + row_base<UNIT>(b, N, inner);
    T* er = e + b * L;
    GSFFT_ITEMS(j, L) {
      T v;
      if (j == 0 || j == N + 1)
        v = 0;
      else if (j <= N)
        v = xr[(j - 1) * st] * scale;
      else
        v = -xr[(L - j - 1) * st] * scale;
      er[j] = v;
    }
  }
}

// y[k] = -Im E[k+1] (rows of N+2)
template <class T, bool DST, bool UNIT>
__device__ void dst1_post(const T* __restrict__ Eraw, T* __restrict__ y, long long N,
                          long long inner, long long B, T, T, T) {
  const cx<T>* E = reinterpret_cast<const cx<T>*>(Eraw);
  const long long st = UNIT ? 1 : inner;
  GSFFT_ROWS(B) {
    T* yr = y + row_base<UNIT>(b, N, inner);
    const cx<T>* Er = E + b * (N + 2);
    GSFFT_ITEMS(k, N) { yr[k * st] = -Er[k + 1].im; }
  }
}

#undef GSFFT_ROWS
#undef GSFFT_ITEMS

}  // namespace gs_fft_r2r
