// gpuscipy device types: gs::half, gs::complex<T>, gs::cast, gs::numeric_traits.
//
// This header is compiled by NVRTC with no include path but gpuscipy's own, so
// it includes nothing: the device math builtins (sinf, hypot, isnan, ...) are
// available without headers there.
//
// Conventions
//   * Every function is a device function; nothing here runs on the host.
//   * gs::half stores IEEE binary16 bits; arithmetic on it happens in float and
//     is rounded back to half (that is what NumPy does for float16).
//   * gs::complex<T> (T = float or double) has the layout {re, im} and alignment
//     2*sizeof(T), like NumPy's complex64 / complex128.
//   * The complex elementary functions follow C99/C11 Annex G for branch cuts
//     and special values, matching what NumPy gives on Linux (glibc).
#pragma once

#define GS_DEV __device__ inline
#define GS_FI __device__ __forceinline__

namespace gs {

// ---------------------------------------------------------------------------
// Minimal type traits (no <type_traits> available)
// ---------------------------------------------------------------------------
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;

template <bool B, class T, class F> struct conditional { typedef T type; };
template <class T, class F> struct conditional<false, T, F> { typedef F type; };
template <bool B, class T, class F> using conditional_t = typename conditional<B, T, F>::type;

template <class A, class B> struct is_same { static constexpr bool value = false; };
template <class A> struct is_same<A, A> { static constexpr bool value = true; };

struct half;
template <typename T> struct complex;

namespace detail {
template <class T> struct int_info { static constexpr bool is_int = false; static constexpr bool is_signed = false; };
#define GS_INT_INFO(T, S, U)                                                   \
  template <> struct int_info<T> {                                             \
    static constexpr bool is_int = true;                                       \
    static constexpr bool is_signed = S;                                       \
    typedef U unsigned_type;                                                   \
  };
GS_INT_INFO(char, ((char)-1) < 0, unsigned char)
GS_INT_INFO(signed char, true, unsigned char)
GS_INT_INFO(unsigned char, false, unsigned char)
GS_INT_INFO(short, true, unsigned short)
GS_INT_INFO(unsigned short, false, unsigned short)
GS_INT_INFO(int, true, unsigned int)
GS_INT_INFO(unsigned int, false, unsigned int)
GS_INT_INFO(long, true, unsigned long)
GS_INT_INFO(unsigned long, false, unsigned long)
GS_INT_INFO(long long, true, unsigned long long)
GS_INT_INFO(unsigned long long, false, unsigned long long)
#undef GS_INT_INFO
}  // namespace detail

// Integer types (bool excluded).
template <class T> struct is_integer { static constexpr bool value = detail::int_info<T>::is_int; };
template <class T> struct is_signed_integer {
  static constexpr bool value = detail::int_info<T>::is_int && detail::int_info<T>::is_signed;
};
template <class T> struct is_unsigned_integer {
  static constexpr bool value = detail::int_info<T>::is_int && !detail::int_info<T>::is_signed;
};
template <class T> struct is_bool { static constexpr bool value = is_same<T, bool>::value; };
template <class T> struct is_half { static constexpr bool value = is_same<T, half>::value; };
// float or double (not half)
template <class T> struct is_fp {
  static constexpr bool value = is_same<T, float>::value || is_same<T, double>::value;
};
// half, float or double
template <class T> struct is_floating { static constexpr bool value = is_fp<T>::value || is_half<T>::value; };
template <class T> struct is_complex { static constexpr bool value = false; };
template <class T> struct is_complex<complex<T>> { static constexpr bool value = true; };
// bool or integer
template <class T> struct is_int_or_bool {
  static constexpr bool value = is_integer<T>::value || is_bool<T>::value;
};

template <class T> using make_unsigned_t = typename detail::int_info<T>::unsigned_type;

namespace detail {
// Unsigned type at least as wide as int: arithmetic on it never promotes to a
// signed type, so it wraps modulo 2**n with no undefined behaviour.
template <class T> using wide_u = conditional_t<(sizeof(T) <= 4), unsigned int, unsigned long long>;
}  // namespace detail

// ---------------------------------------------------------------------------
// Real math wrappers: gs::m::NAME(float) -> NAMEf, gs::m::NAME(double) -> NAME.
// Qualified calls to these avoid any clash with gs's own overloads.
// ---------------------------------------------------------------------------
namespace m {
#define GS_M1(N)                                                               \
  GS_FI float N(float x) { return ::N##f(x); }                                 \
  GS_FI double N(double x) { return ::N(x); }
#define GS_M2(N)                                                               \
  GS_FI float N(float x, float y) { return ::N##f(x, y); }                     \
  GS_FI double N(double x, double y) { return ::N(x, y); }
GS_M1(sqrt) GS_M1(cbrt) GS_M1(exp) GS_M1(exp2) GS_M1(expm1) GS_M1(log)
GS_M1(log2) GS_M1(log10) GS_M1(log1p) GS_M1(sin) GS_M1(cos) GS_M1(tan)
GS_M1(asin) GS_M1(acos) GS_M1(atan) GS_M1(sinh) GS_M1(cosh) GS_M1(tanh)
GS_M1(asinh) GS_M1(acosh) GS_M1(atanh) GS_M1(fabs) GS_M1(floor) GS_M1(ceil)
GS_M1(trunc) GS_M1(rint)
GS_M2(atan2) GS_M2(copysign) GS_M2(fmod) GS_M2(pow)
GS_M2(nextafter) GS_M2(fmax) GS_M2(fmin)
GS_FI float hypot(float x, float y) { return ::hypotf(x, y); }
// The builtin double hypot can round up past DBL_MAX (hypot(DBL_MAX, 1) gives
// inf). This one is sqrt(fma(x, x, y*y)) with power-of-two scaling: within
// 1 ulp, exact when one argument is negligible, inf if either part is inf.
GS_DEV double hypot(double x, double y) {
  double ax = ::fabs(x), ay = ::fabs(y);
  if (::isinf(ax) || ::isinf(ay)) return __longlong_as_double(0x7ff0000000000000LL);
  if (::isnan(ax) || ::isnan(ay)) return ax + ay;
  if (ax < ay) { const double t = ax; ax = ay; ay = t; }
  double scale = 1.0;
  if (ax > 0x1p500) {
    ax *= 0x1p-600; ay *= 0x1p-600; scale = 0x1p600;
  } else if (ax < 0x1p-500) {
    ax *= 0x1p600; ay *= 0x1p600; scale = 0x1p-600;
  }
  return ::sqrt(::fma(ax, ax, ay * ay)) * scale;
}
GS_FI float fma(float a, float b, float c) { return ::fmaf(a, b, c); }
GS_FI double fma(double a, double b, double c) { return ::fma(a, b, c); }
#undef GS_M1
#undef GS_M2
GS_FI float ldexp(float x, int e) { return ::ldexpf(x, e); }
GS_FI double ldexp(double x, int e) { return ::ldexp(x, e); }
GS_FI float frexp(float x, int* e) { return ::frexpf(x, e); }
GS_FI double frexp(double x, int* e) { return ::frexp(x, e); }
GS_FI float modf(float x, float* i) { return ::modff(x, i); }
GS_FI double modf(double x, double* i) { return ::modf(x, i); }
GS_FI void sincos(float x, float* s, float* c) { ::sincosf(x, s, c); }
GS_FI void sincos(double x, double* s, double* c) { ::sincos(x, s, c); }
GS_FI bool isnan(float x) { return ::isnan(x); }
GS_FI bool isnan(double x) { return ::isnan(x); }
GS_FI bool isinf(float x) { return ::isinf(x); }
GS_FI bool isinf(double x) { return ::isinf(x); }
GS_FI bool isfinite(float x) { return ::isfinite(x); }
GS_FI bool isfinite(double x) { return ::isfinite(x); }
GS_FI bool signbit(float x) { return ::signbit(x); }
GS_FI bool signbit(double x) { return ::signbit(x); }
// Correctly rounded +, -, * that the compiler may not contract into an FMA:
// used where NumPy's result (two separate roundings) must be reproduced.
GS_FI float add_rn(float a, float b) { return __fadd_rn(a, b); }
GS_FI double add_rn(double a, double b) { return __dadd_rn(a, b); }
GS_FI float sub_rn(float a, float b) { return __fsub_rn(a, b); }
GS_FI double sub_rn(double a, double b) { return __dsub_rn(a, b); }
GS_FI float mul_rn(float a, float b) { return __fmul_rn(a, b); }
GS_FI double mul_rn(double a, double b) { return __dmul_rn(a, b); }
}  // namespace m

// Floating-point constants and thresholds used by the complex functions.
template <class T> struct fconst;
template <> struct fconst<float> {
  static constexpr float pi = 3.14159265358979323846f;
  static constexpr float pi_2 = 1.57079632679489661923f;
  static constexpr float pi_4 = 0.785398163397448309616f;
  static constexpr float ln2 = 0.693147180559945309417f;
  static constexpr float log2e = 1.44269504088896340736f;
  static constexpr float log10e = 0.434294481903251827651f;
  static constexpr float eps = 0x1p-23f;
  static constexpr float max = 0x1.fffffep127f;
  static constexpr float min_normal = 0x1p-126f;
  static constexpr float exp_big = 85.0f;      // above: exp(x) scaled to avoid spurious overflow
  static constexpr float tanh_big = 9.0f;      // above: tanh(x) == +-1 in float
  static constexpr float asym = 0x1p13f;       // above: asinh/acos/acosh use log(2z)
  static constexpr float atanh_big = 1e18f;    // above: atanh(z) ~ 1/z +- i pi/2
  static constexpr float atanh_tiny = 0x1p-60f;
  static constexpr float tiny_scale_up = 0x1p48f, tiny_scale_down = 0x1p-24f;
};
template <> struct fconst<double> {
  static constexpr double pi = 3.14159265358979323846;
  static constexpr double pi_2 = 1.57079632679489661923;
  static constexpr double pi_4 = 0.785398163397448309616;
  static constexpr double ln2 = 0.693147180559945309417;
  static constexpr double log2e = 1.44269504088896340736;
  static constexpr double log10e = 0.434294481903251827651;
  static constexpr double eps = 0x1p-52;
  static constexpr double max = 0x1.fffffffffffffp1023;
  static constexpr double min_normal = 0x1p-1022;
  static constexpr double exp_big = 705.0;
  static constexpr double tanh_big = 22.0;
  static constexpr double asym = 0x1p27;
  static constexpr double atanh_big = 1e150;
  static constexpr double atanh_tiny = 0x1p-500;
  static constexpr double tiny_scale_up = 0x1p108, tiny_scale_down = 0x1p-54;
};

// ---------------------------------------------------------------------------
// half
// ---------------------------------------------------------------------------
namespace detail {
GS_FI unsigned short float_to_half_bits(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
GS_FI unsigned short double_to_half_bits(double d) {
  unsigned short h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d));
  return h;
}
GS_FI float half_bits_to_float(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
}  // namespace detail

struct half {
  unsigned short bits;

  half() = default;
  GS_FI explicit half(float f) : bits(detail::float_to_half_bits(f)) {}
  GS_FI explicit half(double d) : bits(detail::double_to_half_bits(d)) {}
  GS_FI explicit half(bool b) : bits(b ? (unsigned short)0x3c00u : (unsigned short)0u) {}
  // Integers: through float for <= 32 bits (exact below 2**24, and anything
  // larger overflows half anyway), through double for 64-bit types.
  template <class I, enable_if_t<is_integer<I>::value, int> = 0>
  GS_FI explicit half(I i)
      : bits(sizeof(I) <= 4 ? detail::float_to_half_bits((float)i)
                            : detail::double_to_half_bits((double)i)) {}

  GS_FI static half from_bits(unsigned short b) { half h; h.bits = b; return h; }
  GS_FI operator float() const { return detail::half_bits_to_float(bits); }
  GS_FI float to_float() const { return detail::half_bits_to_float(bits); }

  // Arithmetic in float, rounded back to half.
  friend GS_FI half operator+(half a, half b) { return half(float(a) + float(b)); }
  friend GS_FI half operator-(half a, half b) { return half(float(a) - float(b)); }
  friend GS_FI half operator*(half a, half b) { return half(float(a) * float(b)); }
  friend GS_FI half operator/(half a, half b) { return half(float(a) / float(b)); }
  friend GS_FI half operator-(half a) { return from_bits((unsigned short)(a.bits ^ 0x8000u)); }
  friend GS_FI half operator+(half a) { return a; }
  GS_FI half& operator+=(half b) { return *this = *this + b; }
  GS_FI half& operator-=(half b) { return *this = *this - b; }
  GS_FI half& operator*=(half b) { return *this = *this * b; }
  GS_FI half& operator/=(half b) { return *this = *this / b; }
  friend GS_FI bool operator==(half a, half b) { return float(a) == float(b); }
  friend GS_FI bool operator!=(half a, half b) { return float(a) != float(b); }
  friend GS_FI bool operator<(half a, half b) { return float(a) < float(b); }
  friend GS_FI bool operator<=(half a, half b) { return float(a) <= float(b); }
  friend GS_FI bool operator>(half a, half b) { return float(a) > float(b); }
  friend GS_FI bool operator>=(half a, half b) { return float(a) >= float(b); }
};

// ---------------------------------------------------------------------------
// complex<T>
// ---------------------------------------------------------------------------
template <typename T>
struct alignas(2 * sizeof(T)) complex {
  typedef T value_type;
  T re, im;

  complex() = default;
  GS_FI constexpr complex(T r, T i = T(0)) : re(r), im(i) {}
  template <class U>
  GS_FI explicit constexpr complex(const complex<U>& o) : re(T(o.re)), im(T(o.im)) {}

  GS_FI constexpr T real() const { return re; }
  GS_FI constexpr T imag() const { return im; }

  friend GS_FI complex operator+(complex a) { return a; }
  friend GS_FI complex operator-(complex a) { return complex(-a.re, -a.im); }

  friend GS_FI complex operator+(complex a, complex b) { return complex(a.re + b.re, a.im + b.im); }
  friend GS_FI complex operator+(complex a, T b) { return complex(a.re + b, a.im); }
  friend GS_FI complex operator+(T a, complex b) { return complex(a + b.re, b.im); }

  friend GS_FI complex operator-(complex a, complex b) { return complex(a.re - b.re, a.im - b.im); }
  friend GS_FI complex operator-(complex a, T b) { return complex(a.re - b, a.im); }
  friend GS_FI complex operator-(T a, complex b) { return complex(a - b.re, -b.im); }

  // (a+bi)(c+di) = (ac - bd) + (ad + bc)i, rounded exactly as NumPy's SIMD
  // multiply loop on FMA-capable CPUs (x86-64 with AVX2/AVX-512, ARM64):
  // re = fma(a, c, -(b*d)), im = fma(a, d, b*c).
  friend GS_FI complex operator*(complex a, complex b) {
    return complex(m::fma(a.re, b.re, -m::mul_rn(a.im, b.im)),
                   m::fma(a.re, b.im, m::mul_rn(a.im, b.re)));
  }
  friend GS_FI complex operator*(complex a, T b) { return complex(m::mul_rn(a.re, b), m::mul_rn(a.im, b)); }
  friend GS_FI complex operator*(T a, complex b) { return complex(m::mul_rn(a, b.re), m::mul_rn(a, b.im)); }

  // Smith's algorithm (what NumPy's divide loop uses); x/0 gives inf/nan parts.
  friend GS_DEV complex operator/(complex a, complex b) {
    const T abr = m::fabs(b.re), abi = m::fabs(b.im);
    if (abr >= abi) {
      if (abr == T(0) && abi == T(0)) {
        return complex(a.re / abr, a.im / abr);
      }
      const T rat = b.im / b.re;
      const T scl = T(1) / (b.re + m::mul_rn(b.im, rat));
      return complex(m::mul_rn(a.re + m::mul_rn(a.im, rat), scl),
                     m::mul_rn(a.im - m::mul_rn(a.re, rat), scl));
    }
    const T rat = b.re / b.im;
    const T scl = T(1) / (b.im + m::mul_rn(b.re, rat));
    return complex(m::mul_rn(m::mul_rn(a.re, rat) + a.im, scl),
                   m::mul_rn(m::mul_rn(a.im, rat) - a.re, scl));
  }
  friend GS_FI complex operator/(complex a, T b) { return complex(a.re / b, a.im / b); }
  friend GS_FI complex operator/(T a, complex b) { return complex(a) / b; }

  GS_FI complex& operator+=(complex b) { return *this = *this + b; }
  GS_FI complex& operator-=(complex b) { return *this = *this - b; }
  GS_FI complex& operator*=(complex b) { return *this = *this * b; }
  GS_FI complex& operator/=(complex b) { return *this = *this / b; }
  GS_FI complex& operator+=(T b) { re += b; return *this; }
  GS_FI complex& operator-=(T b) { re -= b; return *this; }
  GS_FI complex& operator*=(T b) { re *= b; im *= b; return *this; }
  GS_FI complex& operator/=(T b) { re /= b; im /= b; return *this; }

  friend GS_FI bool operator==(complex a, complex b) { return a.re == b.re && a.im == b.im; }
  friend GS_FI bool operator!=(complex a, complex b) { return a.re != b.re || a.im != b.im; }
  friend GS_FI bool operator==(complex a, T b) { return a.re == b && a.im == T(0); }
  friend GS_FI bool operator!=(complex a, T b) { return a.re != b || a.im != T(0); }
  friend GS_FI bool operator==(T a, complex b) { return a == b.re && b.im == T(0); }
  friend GS_FI bool operator!=(T a, complex b) { return a != b.re || b.im != T(0); }
};

static_assert(sizeof(half) == 2, "gs::half must be 2 bytes");
static_assert(sizeof(complex<float>) == 8 && alignof(complex<float>) == 8, "complex64 layout");
static_assert(sizeof(complex<double>) == 16 && alignof(complex<double>) == 16, "complex128 layout");

template <class T> GS_FI T real(complex<T> z) { return z.re; }
template <class T> GS_FI T imag(complex<T> z) { return z.im; }
template <class T> GS_FI complex<T> conj(complex<T> z) { return complex<T>(z.re, -z.im); }
template <class T> GS_FI T abs(complex<T> z) { return m::hypot(z.re, z.im); }
template <class T> GS_FI T arg(complex<T> z) { return m::atan2(z.im, z.re); }

// ---------------------------------------------------------------------------
// Complex elementary functions
// ---------------------------------------------------------------------------
namespace detail {
// Multiplication by +-i, exactly (no 0*inf products).
template <class T> GS_FI complex<T> mul_i(complex<T> z) { return complex<T>(-z.im, z.re); }
template <class T> GS_FI complex<T> mul_neg_i(complex<T> z) { return complex<T>(z.im, -z.re); }

// log|z| without overflow or underflow; +inf if either part is infinite.
template <class T> GS_DEV T log_abs(T x, T y) {
  T ax = m::fabs(x), ay = m::fabs(y);
  if (m::isinf(ax)) return ax;  // +inf, even if the other part is nan
  if (m::isinf(ay)) return ay;
  if (ax < ay) { T t = ax; ax = ay; ay = t; }
  if (!(ax > T(0))) return m::log(ax + ay);  // 0 -> -inf; nan -> nan
  if (ax >= T(0.5) && ax <= T(2)) {
    // |z|^2 - 1 = (ax-1)(ax+1) + ay^2, accurate when |z| is close to 1
    return T(0.5) * m::log1p((ax - T(1)) * (ax + T(1)) + ay * ay);
  }
  const T r = ay / ax;
  return m::log(ax) + T(0.5) * m::log1p(r * r);
}
}  // namespace detail

template <class T> GS_DEV complex<T> exp(complex<T> z) {
  const T x = z.re, y = z.im;
  if (y == T(0)) return complex<T>(m::exp(x), y);
  if (m::isinf(x) && !m::isfinite(y)) {
    if (x > T(0)) return complex<T>(x, y - y);  // (+inf, nan)
    return complex<T>(T(0), T(0));             // exp(-inf + i{inf,nan}) = 0
  }
  T s, c;
  m::sincos(y, &s, &c);
  if (x > fconst<T>::exp_big) {
    const T e = m::exp(T(0.5) * x);
    return complex<T>((e * c) * e, (e * s) * e);
  }
  const T e = m::exp(x);
  return complex<T>(e * c, e * s);
}

template <class T> GS_DEV complex<T> log(complex<T> z) {
  return complex<T>(detail::log_abs(z.re, z.im), m::atan2(z.im, z.re));
}

template <class T> GS_DEV complex<T> log2(complex<T> z) {
  complex<T> l = log(z);
  return complex<T>(l.re * fconst<T>::log2e, l.im * fconst<T>::log2e);
}

template <class T> GS_DEV complex<T> log10(complex<T> z) {
  complex<T> l = log(z);
  return complex<T>(l.re * fconst<T>::log10e, l.im * fconst<T>::log10e);
}

// log(1 + z), accurate for small |z|.
template <class T> GS_DEV complex<T> log1p(complex<T> z) {
  const T x = z.re, y = z.im;
  const T ax = m::fabs(x), ay = m::fabs(y);
  const T im = m::atan2(y, x + T(1));
  if (ax < T(1) && ay < T(1)) {
    const T s = x * (T(2) + x) + y * y;  // |1+z|^2 - 1
    if (s > T(-0.5) && s < T(1)) return complex<T>(T(0.5) * m::log1p(s), im);
  }
  return complex<T>(detail::log_abs(x + T(1), y), im);
}

// exp(z) - 1 = expm1(x) cos(y) - 2 sin^2(y/2) + i exp(x) sin(y)
template <class T> GS_DEV complex<T> expm1(complex<T> z) {
  const T x = z.re, y = z.im;
  const T a = m::sin(T(0.5) * y);
  return complex<T>(m::expm1(x) * m::cos(y) - T(2) * a * a, m::exp(x) * m::sin(y));
}

// Principal square root (Kahan / C99 Annex G), with scaling against overflow
// and loss of precision in subnormals.
template <class T> GS_DEV complex<T> sqrt(complex<T> z) {
  T x = z.re, y = z.im;
  if (x == T(0) && y == T(0)) return complex<T>(T(0), y);
  if (m::isinf(y)) return complex<T>(m::fabs(y), y);
  if (m::isnan(x)) return complex<T>(x, x);
  if (m::isinf(x)) {
    if (x > T(0)) return complex<T>(x, m::isnan(y) ? y : m::copysign(T(0), y));
    return complex<T>(m::isnan(y) ? y : T(0), m::copysign(-x, y));
  }
  if (m::isnan(y)) return complex<T>(y, y);
  T scale = T(1);
  const T ax = m::fabs(x), ay = m::fabs(y);
  if (ax > fconst<T>::max * T(0.25) || ay > fconst<T>::max * T(0.25)) {
    x *= T(0.25); y *= T(0.25); scale = T(2);
  } else if (ax < T(4) * fconst<T>::min_normal && ay < T(4) * fconst<T>::min_normal) {
    x *= fconst<T>::tiny_scale_up; y *= fconst<T>::tiny_scale_up;
    scale = fconst<T>::tiny_scale_down;
  }
  const T t = m::sqrt((m::fabs(x) + m::hypot(x, y)) * T(0.5));
  if (x >= T(0)) return complex<T>(t * scale, (y / (T(2) * t)) * scale);
  return complex<T>((m::fabs(y) / (T(2) * t)) * scale, m::copysign(t, y) * scale);
}

namespace detail {
// C99 Annex G multiplication: recovers infinities where the plain formula
// gives nan+nanj (used in pow, as glibc's cpow does through __muldc3).
template <class T> GS_DEV complex<T> mul_annex_g(complex<T> z, complex<T> w) {
  T a = z.re, b = z.im, c = w.re, d = w.im;
  const T ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  T x = ac - bd, y = ad + bc;
  if (m::isnan(x) && m::isnan(y)) {
    bool recalc = false;
    if (m::isinf(a) || m::isinf(b)) {
      a = m::copysign(m::isinf(a) ? T(1) : T(0), a);
      b = m::copysign(m::isinf(b) ? T(1) : T(0), b);
      if (m::isnan(c)) c = m::copysign(T(0), c);
      if (m::isnan(d)) d = m::copysign(T(0), d);
      recalc = true;
    }
    if (m::isinf(c) || m::isinf(d)) {
      c = m::copysign(m::isinf(c) ? T(1) : T(0), c);
      d = m::copysign(m::isinf(d) ? T(1) : T(0), d);
      if (m::isnan(a)) a = m::copysign(T(0), a);
      if (m::isnan(b)) b = m::copysign(T(0), b);
      recalc = true;
    }
    if (!recalc && (m::isinf(ac) || m::isinf(bd) || m::isinf(ad) || m::isinf(bc))) {
      if (m::isnan(a)) a = m::copysign(T(0), a);
      if (m::isnan(b)) b = m::copysign(T(0), b);
      if (m::isnan(c)) c = m::copysign(T(0), c);
      if (m::isnan(d)) d = m::copysign(T(0), d);
      recalc = true;
    }
    if (recalc) {
      const T inf = T(1) / T(0);
      x = inf * (a * c - b * d);
      y = inf * (a * d + b * c);
    }
  }
  return complex<T>(x, y);
}
}  // namespace detail

// z**w with NumPy's rules: w == 0 -> 1; 0**w is 0 if Re w > 0, nan otherwise;
// small integer real w uses repeated multiplication (and 1/result for w < 0);
// otherwise exp(w log z).
template <class T> GS_DEV complex<T> pow(complex<T> a, complex<T> b) {
  const complex<T> one(T(1), T(0));
  if (b.re == T(0) && b.im == T(0)) return one;
  if (a.re == T(0) && a.im == T(0)) {
    if (b.re > T(0)) return complex<T>(T(0), T(0));
    const T nan = m::sqrt(T(-1));
    return complex<T>(nan, nan);
  }
  if (b.im == T(0) && b.re > T(-100) && b.re < T(100) && b.re == m::trunc(b.re)) {
    int n = (int)b.re;
    if (n == 1) return a;
    if (n == 2) return a * a;
    if (n == 3) return a * (a * a);
    if (n < 0) n = -n;
    complex<T> acc = one, p = a;
    for (int mask = 1;; mask <<= 1) {
      if (n & mask) acc = acc * p;
      if (n < (mask << 1)) break;
      p = p * p;
    }
    if (b.re < T(0)) acc = one / acc;
    return acc;
  }
  return exp(detail::mul_annex_g(b, log(a)));
}
template <class T> GS_DEV complex<T> pow(complex<T> a, T b) { return pow(a, complex<T>(b, T(0))); }
template <class T> GS_DEV complex<T> pow(T a, complex<T> b) { return pow(complex<T>(a, T(0)), b); }

// sinh(x + iy) = sinh x cos y + i cosh x sin y
template <class T> GS_DEV complex<T> sinh(complex<T> z) {
  const T x = z.re, y = z.im;
  if (y == T(0)) return complex<T>(m::sinh(x), y);
  if (!m::isfinite(y)) {
    if (x == T(0)) return complex<T>(x, y - y);
    if (m::isinf(x)) return complex<T>(m::fabs(x), y - y);
    return complex<T>(y - y, y - y);
  }
  T s, c;
  m::sincos(y, &s, &c);
  const T ax = m::fabs(x);
  if (ax > fconst<T>::exp_big) {
    const T e = m::exp(T(0.5) * ax), h = T(0.5) * e;
    return complex<T>(m::copysign(T(1), x) * ((h * c) * e), (h * s) * e);
  }
  return complex<T>(m::sinh(x) * c, m::cosh(x) * s);
}

// cosh(x + iy) = cosh x cos y + i sinh x sin y
template <class T> GS_DEV complex<T> cosh(complex<T> z) {
  const T x = z.re, y = z.im;
  if (y == T(0)) return complex<T>(m::cosh(x), m::isnan(x) ? y : m::copysign(T(1), x) * y);
  if (!m::isfinite(y)) {
    if (x == T(0)) return complex<T>(y - y, T(0));
    if (m::isinf(x)) return complex<T>(m::fabs(x), y - y);
    return complex<T>(y - y, y - y);
  }
  T s, c;
  m::sincos(y, &s, &c);
  const T ax = m::fabs(x);
  if (ax > fconst<T>::exp_big) {
    const T e = m::exp(T(0.5) * ax), h = T(0.5) * e;
    return complex<T>((h * c) * e, m::copysign(T(1), x) * ((h * s) * e));
  }
  return complex<T>(m::cosh(x) * c, m::sinh(x) * s);
}

// tanh: Kahan's formulation (stable for all finite x), C11 special values.
template <class T> GS_DEV complex<T> tanh(complex<T> z) {
  const T x = z.re, y = z.im;
  if (m::isnan(x)) return complex<T>(x, y == T(0) ? y : x);
  if (m::isinf(x)) {
    const T im = m::isfinite(y) ? m::sin(y) * m::cos(y) : T(0);
    return complex<T>(m::copysign(T(1), x), m::copysign(T(0), im));
  }
  if (!m::isfinite(y)) return complex<T>(x == T(0) ? x : y - y, y - y);
  if (y == T(0)) return complex<T>(m::tanh(x), y);
  if (m::fabs(x) > fconst<T>::tanh_big) {
    const T e = m::exp(-m::fabs(x));
    T s, c;
    m::sincos(y, &s, &c);
    return complex<T>(m::copysign(T(1), x), T(4) * s * c * e * e);
  }
  const T t = m::tan(y);
  const T beta = T(1) + t * t;
  const T s = m::sinh(x);
  const T rho = m::sqrt(T(1) + s * s);
  const T den = T(1) + beta * s * s;
  return complex<T>((beta * rho * s) / den, t / den);
}

template <class T> GS_DEV complex<T> sin(complex<T> z) {
  // glibc's choice among the sign-unspecified special values
  if (m::isinf(z.im) && !m::isfinite(z.re)) return complex<T>(z.re - z.re, m::fabs(z.im));
  return detail::mul_neg_i(sinh(detail::mul_i(z)));  // sin z = -i sinh(iz)
}
template <class T> GS_DEV complex<T> cos(complex<T> z) {
  return cosh(detail::mul_i(z));  // cos z = cosh(iz)
}
template <class T> GS_DEV complex<T> tan(complex<T> z) {
  return detail::mul_neg_i(tanh(detail::mul_i(z)));  // tan z = -i tanh(iz)
}

namespace detail {
// Kahan's arcsin for finite z of moderate size:
//   re = atan2(x, Re(sqrt(1-z) sqrt(1+z))),  im = asinh(Im(conj(sqrt(1-z)) sqrt(1+z)))
template <class T> GS_DEV complex<T> asin_core(complex<T> z) {
  const complex<T> sm = sqrt(complex<T>(T(1) - z.re, -z.im));
  const complex<T> sp = sqrt(complex<T>(T(1) + z.re, z.im));
  return complex<T>(m::atan2(z.re, sm.re * sp.re - sm.im * sp.im),
                    m::asinh(sm.re * sp.im - sm.im * sp.re));
}
// log(2z) for large |z|, computed without overflow.
template <class T> GS_DEV complex<T> log_2z(T x, T y) {
  return complex<T>(log_abs(x, y) + fconst<T>::ln2, m::atan2(y, x));
}
template <class T> GS_FI bool is_large(T x, T y) {
  return m::fabs(x) > fconst<T>::asym || m::fabs(y) > fconst<T>::asym;
}
}  // namespace detail

template <class T> GS_DEV complex<T> arcsinh(complex<T> z) {
  const T x = z.re, y = z.im;
  if (m::isnan(x) || m::isnan(y)) {
    if (m::isinf(x)) return complex<T>(x, y);            // (+-inf, nan)
    if (m::isinf(y)) return complex<T>(m::fabs(y), x);   // (inf, nan)
    if (y == T(0)) return complex<T>(x, y);              // (nan, +-0)
    return complex<T>(x + y, x + y);
  }
  if (detail::is_large(x, y)) {
    // asinh z ~ log(2z) for Re z >= 0; odd function otherwise
    if (m::signbit(x)) return -detail::log_2z(-x, -y);
    return detail::log_2z(x, y);
  }
  // asinh z = -i asin(iz)
  return detail::mul_neg_i(detail::asin_core(detail::mul_i(z)));
}

template <class T> GS_DEV complex<T> arcsin(complex<T> z) {
  // glibc's choice among the sign-unspecified special values
  if (m::isinf(z.re) && m::isnan(z.im)) return complex<T>(z.im, m::fabs(z.re));
  return detail::mul_neg_i(arcsinh(detail::mul_i(z)));  // asin z = -i asinh(iz)
}

template <class T> GS_DEV complex<T> arccos(complex<T> z) {
  const T x = z.re, y = z.im;
  if (m::isnan(x) || m::isnan(y)) {
    if (m::isinf(x)) return complex<T>(y, -m::fabs(x));   // (nan, -inf)
    if (m::isinf(y)) return complex<T>(x, -y);            // (nan, -+inf)
    if (x == T(0)) return complex<T>(fconst<T>::pi_2, y); // (pi/2, nan)
    return complex<T>(x + y, x + y);
  }
  if (detail::is_large(x, y)) {
    // acos z ~ |arg z| - i sign(Im z) log|2z|
    const complex<T> l = detail::log_2z(x, y);
    return complex<T>(m::fabs(l.im), -m::copysign(l.re, y));
  }
  // Kahan: re = 2 atan2(Re sqrt(1-z), Re sqrt(1+z)),
  //        im = asinh(Im(conj(sqrt(1+z)) sqrt(1-z)))
  const complex<T> sm = sqrt(complex<T>(T(1) - x, -y));
  const complex<T> sp = sqrt(complex<T>(T(1) + x, y));
  return complex<T>(T(2) * m::atan2(sm.re, sp.re), m::asinh(sp.re * sm.im - sp.im * sm.re));
}

template <class T> GS_DEV complex<T> arccosh(complex<T> z) {
  const T x = z.re, y = z.im;
  if (m::isnan(x) || m::isnan(y)) {
    if (m::isinf(x) || m::isinf(y)) {
      const T inf = m::fabs(m::isinf(x) ? x : y);
      return complex<T>(inf, x + y);                       // (inf, nan)
    }
    if (x == T(0)) return complex<T>(y, fconst<T>::pi_2);  // (nan, pi/2)
    return complex<T>(x + y, x + y);
  }
  if (detail::is_large(x, y)) return detail::log_2z(x, y);  // acosh z ~ log(2z)
  // Kahan: re = asinh(Re(conj(sqrt(z-1)) sqrt(z+1))), im = 2 atan2(Im sqrt(z-1), Re sqrt(z+1))
  const complex<T> sm = sqrt(complex<T>(x - T(1), y));
  const complex<T> sp = sqrt(complex<T>(x + T(1), y));
  return complex<T>(m::asinh(sm.re * sp.re + sm.im * sp.im), T(2) * m::atan2(sm.im, sp.re));
}

template <class T> GS_DEV complex<T> arctanh(complex<T> z) {
  T x = z.re, y = z.im;
  if (m::isinf(x) || m::isinf(y)) {
    return complex<T>(m::copysign(T(0), x), m::isnan(y) ? y : m::copysign(fconst<T>::pi_2, y));
  }
  if (m::isnan(x) || m::isnan(y)) {
    if (x == T(0)) return complex<T>(x, y);
    return complex<T>(x + y, x + y);
  }
  // atanh is odd: work with Re z >= 0, where 4x/|1-z|^2 >= 0 keeps log1p
  // accurate; negate the result at the end.
  const bool neg = m::signbit(x);
  if (neg) { x = -x; y = -y; }
  const T ay = m::fabs(y);
  T re, im;
  if (x > fconst<T>::atanh_big || ay > fconst<T>::atanh_big) {
    // atanh z = 1/z + i sign(y) pi/2 + O(|z|^-3)
    const T h = m::hypot(x, y);
    re = (x / h) / h;
    im = m::copysign(fconst<T>::pi_2, y);
  } else {
    const T omx = T(1) - x;
    if (m::fabs(omx) < fconst<T>::atanh_tiny && ay < fconst<T>::atanh_tiny) {
      // z next to 1: (log|1+z| - log|1-z|)/2 without underflow in |1-z|^2
      re = T(0.5) * (m::log(m::hypot(T(1) + x, y)) - m::log(m::hypot(omx, y)));
    } else {
      re = T(0.25) * m::log1p(T(4) * x / (omx * omx + y * y));
    }
    im = T(0.5) * m::atan2(T(2) * y, omx * (T(1) + x) - y * y);
  }
  return neg ? complex<T>(-re, -im) : complex<T>(re, im);
}

template <class T> GS_DEV complex<T> arctan(complex<T> z) {
  return detail::mul_neg_i(arctanh(detail::mul_i(z)));  // atan z = -i atanh(iz)
}

// ---------------------------------------------------------------------------
// numeric_traits
// ---------------------------------------------------------------------------
template <class T, class Enable = void> struct numeric_traits;

template <> struct numeric_traits<bool> {
  typedef bool real_type;
  static constexpr bool is_bool = true, is_integer = false, is_signed = false;
  static constexpr bool is_floating = false, is_complex = false;
  static constexpr int digits = 1;
  GS_FI static bool lowest() { return false; }
  GS_FI static bool max() { return true; }
};
template <class T> struct numeric_traits<T, enable_if_t<is_integer<T>::value>> {
  typedef T real_type;
  static constexpr bool is_bool = false, is_integer = true;
  static constexpr bool is_signed = is_signed_integer<T>::value;
  static constexpr bool is_floating = false, is_complex = false;
  static constexpr int digits = (int)sizeof(T) * 8 - (is_signed ? 1 : 0);
  GS_FI static T max() {
    typedef make_unsigned_t<T> U;
    return is_signed ? (T)((U)~(U)0 >> 1) : (T)(U)~(U)0;
  }
  GS_FI static T lowest() { return is_signed ? (T)(-max() - 1) : (T)0; }
};
template <> struct numeric_traits<half> {
  typedef half real_type;
  static constexpr bool is_bool = false, is_integer = false, is_signed = true;
  static constexpr bool is_floating = true, is_complex = false;
  static constexpr int digits = 11;
  GS_FI static half max() { return half::from_bits(0x7bffu); }
  GS_FI static half lowest() { return half::from_bits(0xfbffu); }
  GS_FI static half infinity() { return half::from_bits(0x7c00u); }
  GS_FI static half quiet_nan() { return half::from_bits(0x7e00u); }
  GS_FI static half epsilon() { return half::from_bits(0x1400u); }
};
template <> struct numeric_traits<float> {
  typedef float real_type;
  static constexpr bool is_bool = false, is_integer = false, is_signed = true;
  static constexpr bool is_floating = true, is_complex = false;
  static constexpr int digits = 24;
  GS_FI static float max() { return fconst<float>::max; }
  GS_FI static float lowest() { return -fconst<float>::max; }
  GS_FI static float infinity() { return __int_as_float(0x7f800000); }
  GS_FI static float quiet_nan() { return __int_as_float(0x7fc00000); }
  GS_FI static float epsilon() { return fconst<float>::eps; }
};
template <> struct numeric_traits<double> {
  typedef double real_type;
  static constexpr bool is_bool = false, is_integer = false, is_signed = true;
  static constexpr bool is_floating = true, is_complex = false;
  static constexpr int digits = 53;
  GS_FI static double max() { return fconst<double>::max; }
  GS_FI static double lowest() { return -fconst<double>::max; }
  GS_FI static double infinity() { return __longlong_as_double(0x7ff0000000000000LL); }
  GS_FI static double quiet_nan() { return __longlong_as_double(0x7ff8000000000000LL); }
  GS_FI static double epsilon() { return fconst<double>::eps; }
};
template <class T> struct numeric_traits<complex<T>> {
  typedef T real_type;
  static constexpr bool is_bool = false, is_integer = false, is_signed = true;
  static constexpr bool is_floating = false, is_complex = true;
  static constexpr int digits = numeric_traits<T>::digits;
  GS_FI static complex<T> quiet_nan() {
    return complex<T>(numeric_traits<T>::quiet_nan(), numeric_traits<T>::quiet_nan());
  }
};

// ---------------------------------------------------------------------------
// cast<To>(from): NumPy's casting semantics between the 14 types
// ---------------------------------------------------------------------------
namespace detail {
// x != 0 (NaN counts as true); complex: either part nonzero.
template <class T> GS_FI bool truth(T x) { return x != T(0); }
GS_FI bool truth(bool x) { return x; }
GS_FI bool truth(half x) { return (x.bits & 0x7fffu) != 0; }
template <class T> GS_FI bool truth(complex<T> z) { return z.re != T(0) || z.im != T(0); }

// float/double -> integer. C conversion; out-of-range values wrap the way
// x86 NumPy builds typically do (through a 64-bit conversion), NaN gives 0.
template <class To, class F> GS_FI To fp_to_int(F x) {
  if constexpr (sizeof(To) < 8) {
    return (To)(long long)x;
  } else if constexpr (is_signed_integer<To>::value) {
    return (To)x;
  } else {
    return x < F(0) ? (To)(long long)x : (To)x;
  }
}
}  // namespace detail

template <class To, class From> GS_DEV To cast(From x) {
  if constexpr (is_same<To, From>::value) {
    return x;
  } else if constexpr (is_complex<From>::value) {
    if constexpr (is_complex<To>::value) {
      typedef typename To::value_type R;
      return To(cast<R>(x.re), cast<R>(x.im));
    } else if constexpr (is_bool<To>::value) {
      return detail::truth(x);
    } else {
      return cast<To>(x.re);  // complex -> real drops the imaginary part
    }
  } else if constexpr (is_complex<To>::value) {
    typedef typename To::value_type R;
    return To(cast<R>(x), R(0));
  } else if constexpr (is_bool<To>::value) {
    return detail::truth(x);
  } else if constexpr (is_half<To>::value) {
    return half(x);
  } else if constexpr (is_half<From>::value) {
    return cast<To>(float(x));
  } else if constexpr (is_integer<To>::value && is_fp<From>::value) {
    return detail::fp_to_int<To>(x);
  } else {
    return (To)x;
  }
}

}  // namespace gs
