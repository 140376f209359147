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
// This file is text-included into generated kernels by the Python side (its
// content is therefore part of every kernel's cache key); it includes
// nothing and relies on gpuscipy/core.cuh having been included before.
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

// Box-Muller: two uniforms in [0, 1) -> two independent standard normals.
// 1 - u1 lies in (0, 1], so the logarithm is finite; sincospi avoids the
// rounding of 2*pi*u2. The largest magnitude reachable is
// sqrt(-2 ln 2^-24) = 5.77 in float32 and sqrt(-2 ln 2^-53) = 8.57 in float64.
GS_FI void box_muller(float u1, float u2, float& z0, float& z1) {
  const float r = sqrtf(-2.0f * logf(1.0f - u1));
  float s, c;
  sincospif(2.0f * u2, &s, &c);
  z0 = r * c;
  z1 = r * s;
}
GS_FI void box_muller(double u1, double u2, double& z0, double& z1) {
  const double r = sqrt(-2.0 * log(1.0 - u1));
  double s, c;
  sincospi(2.0 * u2, &s, &c);
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
