// Philox4x32-10 and the conversions of its bits into numbers.
//
// Philox4x32-10 is the counter-based generator of Salmon, Moraes, Dror &
// Shaw, "Parallel random numbers: as easy as 1, 2, 3" (SC11, 2011): a
// 128-bit counter is enciphered under a 64-bit key by ten rounds of two
// 32x32->64-bit multiplications; the four 32-bit words of the result are
// the random output for that counter. Nothing is carried from one counter
// to the next, so any thread can compute block j of the stream directly.
//
// Layout of a stream (see gpuscipy_core/random/_kernels.py):
//   * the stream state is (key, counter base); block j of a call uses the
//     counter base + j (128-bit addition), and a call advances the base by
//     the number of blocks it used;
//   * one block yields four 32-bit words w0..w3: four float32 values, two
//     float64 values (words (w0, w1) and (w2, w3)), or two 64-bit words.
//
// This file is text-included by the Python side, before _kernels.cuh (the
// kernel templates of gs::random), into the one source of every kernel of
// gpuscipy_core.random (its content is therefore part of every kernel's
// cache key); it includes nothing and relies on gpuscipy/core.cuh having
// been included before.
#pragma once

namespace gs {
namespace philox {

struct block4 {
  unsigned int w[4];
};

// One Philox round: two multiplications, the key mixed into the high halves.
GS_FI block4 round(const block4& c, unsigned int k0, unsigned int k1) {
  const unsigned int M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  const unsigned int hi0 = __umulhi(M0, c.w[0]), lo0 = M0 * c.w[0];
  const unsigned int hi1 = __umulhi(M1, c.w[2]), lo1 = M1 * c.w[2];
  block4 r;
  r.w[0] = hi1 ^ c.w[1] ^ k0;
  r.w[1] = lo1;
  r.w[2] = hi0 ^ c.w[3] ^ k1;
  r.w[3] = lo0;
  return r;
}

// Philox4x32 with 10 rounds; the key is bumped by the Weyl constants
// (golden ratio and sqrt(3) - 1, scaled to 32 bits) before rounds 2..10.
GS_FI block4 philox4x32_10(block4 c, unsigned int k0, unsigned int k1) {
  const unsigned int W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  c = round(c, k0, k1);
#pragma unroll
  for (int r = 1; r < 10; ++r) {
    k0 += W0;
    k1 += W1;
    c = round(c, k0, k1);
  }
  return c;
}

// The counter (ctr_lo, ctr_hi) + j as four words, least significant first.
GS_FI block4 counter_at(unsigned long long ctr_lo, unsigned long long ctr_hi,
                        unsigned long long j) {
  const unsigned long long lo = ctr_lo + j;
  const unsigned long long hi = ctr_hi + (lo < j ? 1ull : 0ull);
  block4 c;
  c.w[0] = (unsigned int)lo;
  c.w[1] = (unsigned int)(lo >> 32);
  c.w[2] = (unsigned int)hi;
  c.w[3] = (unsigned int)(hi >> 32);
  return c;
}

// Block j of the stream (key, counter base).
GS_FI block4 block_at(unsigned long long key, unsigned long long ctr_lo,
                      unsigned long long ctr_hi, unsigned long long j) {
  return philox4x32_10(counter_at(ctr_lo, ctr_hi, j), (unsigned int)key,
                       (unsigned int)(key >> 32));
}

// ---- bits -> numbers --------------------------------------------------

// A float in [0, 1) from the top 24 bits of a word (every value is k * 2^-24).
GS_FI float to_float(unsigned int x) { return (float)(x >> 8) * 0x1p-24f; }

// A double in [0, 1) from 53 bits of two words (every value is k * 2^-53).
GS_FI double to_double(unsigned int a, unsigned int b) {
  return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * 0x1p-53;
}

// ---- Box-Muller -------------------------------------------------------
//
// z0 = r cos(theta), z1 = r sin(theta) with r = sqrt(-2 ln u) and
// theta = 2 pi v (G. E. P. Box and M. E. Muller, Ann. Math. Statist. 29(2),
// 1958), from two words: u from the first, v from the second. The library
// functions (logf, sqrtf, sincospif) spend most of their instructions on
// argument ranges that cannot occur here (0, denormals, inf, NaN, huge
// angles); these versions are straight-line code for the arguments that do:
//
//   * u = k 2^-n with k odd (the low bit of the n-bit integer forced to 1),
//     so 0 < u < 1 and r > 0 always: no log(0), no sqrt(0) (and no 1 - u);
//   * v is an integer number of 2^-n turns: the quadrant comes from its two
//     top bits and the angle inside the octant, |a| <= pi/4, is an exact
//     integer times a constant -- no floating-point range reduction;
//   * the logarithm reduces u = m 2^e with m in [2/3, 4/3) and a minimax
//     polynomial in f = m - 1; sine and cosine are minimax polynomials on
//     [-pi/4, pi/4] (coefficients fitted for this file; float64 ones are the
//     fdlibm/Cephes kernels).
//
// float32 (n = 24 for u, 24 bits of angle): measured on all 2^23 values of u
// and all 2^24 angles, -2 ln u is within 1.05 ulp, sin and cos within 2 ulp
// (8.5e-8 absolute); z is within ~4 ulp of the exact transform of the same
// (u, v). Tails are cut at sqrt(-2 ln 2^-24) = 5.77 (mass 8e-9 lost, as with
// any 24-bit uniform). The fast intrinsics __logf / __sinf were
// rejected: __logf's absolute error (2^-21.4 near u = 1) makes -2 ln u
// negative for u near 1 (NaN after sqrt), and __sinf's 2^-21.4 error is 8x
// the one here.
// float64 (n = 53 for u, 53 bits of angle): log() and sqrt() of the library
// (within 1 ulp), sine/cosine within ~1 ulp; tails cut at
// sqrt(-2 ln 2^-53) = 8.57.

// -2 ln(u), u = ((a >> 8) | 1) 2^-24, in [1.19e-7, 33.27].
GS_FI float minus2log_u24(unsigned int a) {
  const float x = (float)((a >> 8) | 1u);        // odd integer < 2^24: exact
  const int i = __float_as_int(x);
  const int eb = (i - 0x3f2aaaab) & (int)0xff800000;  // exponent e * 2^23
  const float m = __int_as_float(i - eb);        // x = m 2^e, m in [2/3, 4/3)
  const float f = m - 1.0f;                      // exact (Sterbenz)
  const float fe = (float)(eb - (24 << 23));     // (e - 24) 2^23, exact
  // -2 ln(1 + f) = -2 f + f^2 P(f), P minimax on [-1/3, 1/3] (8 terms)
  float p = -0x1.1f427ap-2f;
  p = fmaf(f, p, 0x1.3b2846p-2f);
  p = fmaf(f, p, -0x1.1ea258p-2f);
  p = fmaf(f, p, 0x1.5032eap-2f);
  p = fmaf(f, p, -0x1.99d428p-2f);
  p = fmaf(f, p, 0x1.001480p-1f);
  p = fmaf(f, p, -0x1.5554fap-1f);
  p = fmaf(f, p, 0x1.ffffd6p-1f);
  const float g = fmaf(f * f, p, fmaf(m, -2.0f, 2.0f));
  // + (e - 24) (-2 ln 2), the constant split in two floats (times 2^-23)
  return fmaf(fe, -0x1.62e430p-23f, fmaf(fe, 0x1.05c610p-51f, g));
}

// sin and cos of 2 pi (b & ~0xff) 2^-32.
GS_FI void sincos_turn24(unsigned int b, float& s, float& c) {
  // (int)(k << 2) = 4 (k - q 2^30), q the nearest quadrant: |a| <= pi/4
  const float a = (float)(int)((b & 0xffffff00u) << 2) * 0x1.921fb6p-32f;
  const float z = a * a;
  float ps = fmaf(z, -0x1.9943e0p-13f, 0x1.11073ap-7f);
  ps = fmaf(z, ps, -0x1.555546p-3f);
  const float sa = fmaf(z * a, ps, a);
  float pc = fmaf(z, 0x1.99eb9cp-16f, -0x1.6c0c34p-10f);
  pc = fmaf(z, pc, 0x1.55554ap-5f);
  pc = fmaf(z, pc, -0.5f);
  const float ca = fmaf(z, pc, 1.0f);
  // quadrant q = (b + 2^29) >> 30: swap on q & 1, sin negated on q & 2,
  // cos negated on (q + 1) & 2 -- the sign bits are bit 31 of b + 2^29 and
  // of b + 3 2^29.
  const unsigned int k1 = b + 0x20000000u;
  const bool swap = (k1 & 0x40000000u) != 0;
  s = __uint_as_float(__float_as_uint(swap ? ca : sa) ^ (k1 & 0x80000000u));
  c = __uint_as_float(__float_as_uint(swap ? sa : ca) ^ ((b + 0x60000000u) & 0x80000000u));
}

GS_FI void normal_pair(unsigned int a, unsigned int b, float& z0, float& z1) {
  const float r2 = minus2log_u24(a);
  const float y = rsqrtf(r2);
  float r = r2 * y;
  r = fmaf(fmaf(-r, r, r2), 0.5f * y, r);        // one Newton step on sqrt
  float s, c;
  sincos_turn24(b, s, c);
  z0 = r * c;
  z1 = r * s;
}

// -2 ln(u), u = (2K + 1) 2^-53 with K the 52 bits (a_hi >> 12 : a_lo).
GS_FI double minus2log_u52(unsigned int a_lo, unsigned int a_hi) {
  const double k = __hiloint2double(0x43300000 | (a_hi >> 12), (int)a_lo) - 0x1p52;
  // u = (2K + 1) 2^-53 exactly; log(u) keeps its relative accuracy near u = 1
  return -2.0 * log(fma(k, 0x1p-52, 0x1p-53));
}

// sin and cos of 2 pi k 2^-64, k = (b_hi : b_lo) with its low 11 bits dropped.
GS_FI void sincos_turn64(unsigned int b_lo, unsigned int b_hi, double& s, double& c) {
  // y = (k - q 2^62) >> 11, |y| <= 2^50, exactly converted through the
  // 1.5 2^52 shift; a = y pi 2^-52 in [-pi/4, pi/4]
  const unsigned long long k = ((unsigned long long)b_hi << 32) | b_lo;
  const long long y = (long long)(k << 2) >> 13;
  const double a = ((double)y) * 0x1.921fb54442d18p-51;
  const double z = a * a;
  // fdlibm __kernel_sin / __kernel_cos coefficients (|a| <= pi/4, < 1 ulp)
  double r = fma(z, 1.58969099521155010221e-10, -2.50507602534068634195e-08);
  r = fma(z, r, 2.75573137070700676789e-06);
  r = fma(z, r, -1.98412698298579493134e-04);
  r = fma(z, r, 8.33333333332248946124e-03);
  r = fma(z, r, -1.66666666666666324348e-01);
  const double sa = fma(z * a, r, a);
  double q = fma(z, -1.13596475577881948265e-11, 2.08757232129817482790e-09);
  q = fma(z, q, -2.75573143513906633035e-07);
  q = fma(z, q, 2.48015872894767294178e-05);
  q = fma(z, q, -1.38888888888741095749e-03);
  q = fma(z, q, 4.16666666666666019037e-02);
  const double hz = 0.5 * z;
  const double w = 1.0 - hz;
  const double ca = w + (((1.0 - w) - hz) + (z * z) * q);
  const unsigned int k1 = b_hi + 0x20000000u;
  const bool swap = (k1 & 0x40000000u) != 0;
  const double s0 = swap ? ca : sa, c0 = swap ? sa : ca;
  s = __hiloint2double(__double2hiint(s0) ^ (int)(k1 & 0x80000000u), __double2loint(s0));
  c = __hiloint2double(__double2hiint(c0) ^ (int)((b_hi + 0x60000000u) & 0x80000000u),
                       __double2loint(c0));
}

GS_FI void normal_pair(unsigned int a0, unsigned int a1, unsigned int b0,
                       unsigned int b1, double& z0, double& z1) {
  const double r = sqrt(minus2log_u52(a0, a1));
  double s, c;
  sincos_turn64(b0, b1, s, c);
  z0 = r * c;
  z1 = r * s;
}

// Lemire's nearly divisionless method ("Fast random integer generation in
// an interval", ACM TOMACS 29(1), 2019) on 64-bit words: the high word of
// x * range is uniform on [0, range) once the candidates whose low word
// falls below (2^64 - range) mod range are rejected. Returns false on
// rejection. range == 0 stands for 2^64 (x itself is the answer).
GS_FI bool lemire64(unsigned long long x, unsigned long long range,
                    unsigned long long& out) {
  if (range == 0) {
    out = x;
    return true;
  }
  const unsigned long long lo = x * range;
  if (lo < range) {
    const unsigned long long t = (0ull - range) % range;
    if (lo < t) return false;
  }
  out = __umul64hi(x, range);
  return true;
}

}  // namespace philox
}  // namespace gs
