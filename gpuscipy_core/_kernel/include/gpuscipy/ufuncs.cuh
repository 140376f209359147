// gpuscipy device ufuncs: one gs::NAME per NumPy ufunc, overloaded for every
// NumPy loop of that ufunc over our 14 dtypes (see _ufunc_names.py).
//
// Each function takes the loop's input C types by value and returns the loop's
// output C type; ufuncs with two outputs (divmod, modf, frexp) have the form
//   void gs::NAME(inputs..., Out0& out0, Out1& out1).
// Semantics follow NumPy 2 (x86-64 Linux builds where NumPy leaves them to the
// platform). float16 is computed in float and rounded back to half.
//
// Type groups used below: bool; integers (signed char .. unsigned long long);
// "fp" = float, double; half; complex<float>, complex<double>.
#pragma once

#include <gpuscipy/types.cuh>

namespace gs {

namespace detail {
template <class T, class R = T> using if_int = enable_if_t<is_integer<T>::value, R>;
template <class T, class R = T> using if_fp = enable_if_t<is_fp<T>::value, R>;
template <class T, class R = T> using if_ib = enable_if_t<is_int_or_bool<T>::value, R>;
template <class T, class R = T> using if_real = enable_if_t<is_int_or_bool<T>::value || is_fp<T>::value, R>;
template <class T, class R = T> using if_noncomplex = enable_if_t<!is_complex<T>::value, R>;

template <class T> GS_FI T wrap_add(T a, T b) { return (T)((wide_u<T>)a + (wide_u<T>)b); }
template <class T> GS_FI T wrap_sub(T a, T b) { return (T)((wide_u<T>)a - (wide_u<T>)b); }
template <class T> GS_FI T wrap_mul(T a, T b) { return (T)((wide_u<T>)a * (wide_u<T>)b); }
template <class T> GS_FI T wrap_neg(T a) { return (T)((wide_u<T>)0 - (wide_u<T>)a); }
// |a| as the unsigned type of the same width (|INT_MIN| representable)
template <class T> GS_FI make_unsigned_t<T> uabs(T a) {
  typedef make_unsigned_t<T> U;
  if constexpr (is_signed_integer<T>::value) {
    return a < 0 ? (U)((wide_u<T>)0 - (wide_u<T>)a) : (U)a;
  } else {
    return (U)a;
  }
}
GS_FI half half_nan() { return half::from_bits(0x7e00u); }
template <class T> GS_FI T qnan() { return numeric_traits<T>::quiet_nan(); }
}  // namespace detail

// Real unary functions on float/double (builtin) and half (computed in float).
// Complex versions, where NumPy has them, are templates in types.cuh or below.
#define GS_REAL_UNARY(NAME, FN)                                                \
  template <class T> GS_FI detail::if_fp<T> NAME(T x) { return m::FN(x); }     \
  GS_FI half NAME(half x) { return half(m::FN(float(x))); }
#define GS_REAL_BINARY(NAME, FN)                                               \
  template <class T> GS_FI detail::if_fp<T> NAME(T x, T y) { return m::FN(x, y); } \
  GS_FI half NAME(half x, half y) { return half(m::FN(float(x), float(y))); }

// ===========================================================================
// add, subtract, multiply, divide
// ===========================================================================
GS_FI bool add(bool a, bool b) { return a || b; }
template <class T> GS_FI detail::if_int<T> add(T a, T b) { return detail::wrap_add(a, b); }
template <class T> GS_FI detail::if_fp<T> add(T a, T b) { return m::add_rn(a, b); }
GS_FI half add(half a, half b) { return a + b; }
template <class T> GS_FI complex<T> add(complex<T> a, complex<T> b) {
  return complex<T>(m::add_rn(a.re, b.re), m::add_rn(a.im, b.im));
}

template <class T> GS_FI detail::if_int<T> subtract(T a, T b) { return detail::wrap_sub(a, b); }
template <class T> GS_FI detail::if_fp<T> subtract(T a, T b) { return m::sub_rn(a, b); }
GS_FI half subtract(half a, half b) { return a - b; }
template <class T> GS_FI complex<T> subtract(complex<T> a, complex<T> b) {
  return complex<T>(m::sub_rn(a.re, b.re), m::sub_rn(a.im, b.im));
}

GS_FI bool multiply(bool a, bool b) { return a && b; }
template <class T> GS_FI detail::if_int<T> multiply(T a, T b) { return detail::wrap_mul(a, b); }
template <class T> GS_FI detail::if_fp<T> multiply(T a, T b) { return m::mul_rn(a, b); }
GS_FI half multiply(half a, half b) { return a * b; }
template <class T> GS_FI complex<T> multiply(complex<T> a, complex<T> b) { return a * b; }

template <class T> GS_FI detail::if_fp<T> divide(T a, T b) { return a / b; }
GS_FI half divide(half a, half b) { return a / b; }
template <class T> GS_FI complex<T> divide(complex<T> a, complex<T> b) { return a / b; }

// ===========================================================================
// floor_divide, remainder, fmod, divmod
// ===========================================================================
namespace detail {
// Python-style divmod for floats (the algorithm of NumPy's npy_divmod): the
// remainder has the sign of b, the quotient is floor(a/b) snapped to the
// nearest integer so that a == q*b + r as closely as possible.
template <class T> GS_DEV T float_divmod(T a, T b, T& mod) {
  T r = m::fmod(a, b);
  if (b == T(0)) {
    mod = r;  // nan
    return a / b;
  }
  T q = (a - r) / b;
  if (r != T(0)) {
    if ((b < T(0)) != (r < T(0))) {
      r += b;
      q -= T(1);
    }
  } else {
    r = m::copysign(T(0), b);
  }
  T fq;
  if (q != T(0)) {
    fq = m::floor(q);
    if (q - fq > T(0.5)) fq += T(1);
  } else {
    fq = m::copysign(T(0), a / b);
  }
  mod = r;
  return fq;
}

// Integer divmod with Python semantics; division by zero gives (0, 0) and
// MIN // -1 wraps to MIN (remainder 0), as NumPy does.
template <class T> GS_DEV void int_divmod(T a, T b, T& q, T& r) {
  if (b == 0) {
    q = 0; r = 0;
    return;
  }
  if constexpr (is_signed_integer<T>::value) {
    if (b == -1) {
      q = wrap_neg(a); r = 0;
      return;
    }
    T qq = (T)(a / b);
    T rr = (T)(a - qq * b);
    if (rr != 0 && ((rr < 0) != (b < 0))) {
      qq = (T)(qq - 1);
      rr = (T)(rr + b);
    }
    q = qq; r = rr;
  } else {
    q = (T)(a / b);
    r = (T)(a % b);
  }
}
}  // namespace detail

template <class T> GS_DEV detail::if_int<T> floor_divide(T a, T b) {
  T q, r;
  detail::int_divmod(a, b, q, r);
  return q;
}
template <class T> GS_DEV detail::if_fp<T> floor_divide(T a, T b) {
  if (b == T(0)) return a / b;
  T r;
  return detail::float_divmod(a, b, r);
}
GS_DEV half floor_divide(half a, half b) { return half(floor_divide(float(a), float(b))); }

template <class T> GS_DEV detail::if_int<T> remainder(T a, T b) {
  T q, r;
  detail::int_divmod(a, b, q, r);
  return r;
}
template <class T> GS_DEV detail::if_fp<T> remainder(T a, T b) {
  if (b == T(0)) return m::fmod(a, b);
  T r;
  detail::float_divmod(a, b, r);
  return r;
}
GS_DEV half remainder(half a, half b) { return half(remainder(float(a), float(b))); }

// C fmod (sign of the dividend); integer x % 0 -> 0
template <class T> GS_FI detail::if_int<T> fmod(T a, T b) {
  if (b == 0) return 0;
  if constexpr (is_signed_integer<T>::value) {
    if (b == -1) return 0;
  }
  return (T)(a % b);
}
GS_REAL_BINARY(fmod, fmod)

template <class T> GS_DEV detail::if_int<T, void> divmod(T a, T b, T& q, T& r) {
  detail::int_divmod(a, b, q, r);
}
template <class T> GS_DEV detail::if_fp<T, void> divmod(T a, T b, T& q, T& r) {
  q = detail::float_divmod(a, b, r);
}
GS_DEV void divmod(half a, half b, half& q, half& r) {
  float fr;
  float fq = detail::float_divmod(float(a), float(b), fr);
  q = half(fq);
  r = half(fr);
}

// ===========================================================================
// power, float_power
// ===========================================================================
// Integer power by repeated squaring, wrapping like NumPy. A negative exponent
// is an error in NumPy (raised on the host); here it gives 0.
template <class T> GS_DEV detail::if_int<T> power(T a, T b) {
  if constexpr (is_signed_integer<T>::value) {
    if (b < 0) return 0;
  }
  typedef detail::wide_u<T> W;
  W result = 1, base = (W)a;
  unsigned long long e = (unsigned long long)b;
  while (e != 0) {
    if (e & 1ull) result *= base;
    e >>= 1;
    if (e != 0) base *= base;
  }
  return (T)result;
}
GS_REAL_BINARY(power, pow)
template <class T> GS_DEV complex<T> power(complex<T> a, complex<T> b) { return pow(a, b); }

template <class T> GS_FI detail::if_fp<T> float_power(T a, T b) { return m::pow(a, b); }
template <class T> GS_DEV complex<T> float_power(complex<T> a, complex<T> b) { return pow(a, b); }

// ===========================================================================
// negative, positive, absolute, fabs, sign, square, reciprocal, conjugate
// ===========================================================================
template <class T> GS_FI detail::if_int<T> negative(T a) { return detail::wrap_neg(a); }
template <class T> GS_FI detail::if_fp<T> negative(T a) { return -a; }
GS_FI half negative(half a) { return -a; }
template <class T> GS_FI complex<T> negative(complex<T> a) { return -a; }

template <class T> GS_FI detail::if_int<T> positive(T a) { return a; }
template <class T> GS_FI detail::if_fp<T> positive(T a) { return a; }
GS_FI half positive(half a) { return a; }
template <class T> GS_FI complex<T> positive(complex<T> a) { return a; }

GS_FI bool absolute(bool a) { return a; }
template <class T> GS_FI detail::if_int<T> absolute(T a) { return (T)detail::uabs(a); }
template <class T> GS_FI detail::if_fp<T> absolute(T a) { return m::fabs(a); }
GS_FI half absolute(half a) { return half::from_bits((unsigned short)(a.bits & 0x7fffu)); }
template <class T> GS_FI T absolute(complex<T> a) { return m::hypot(a.re, a.im); }

// gs::abs for every type (complex: types.cuh), same as absolute
template <class T> GS_FI auto abs(T a) -> detail::if_noncomplex<T, decltype(absolute(a))> {
  return absolute(a);
}

template <class T> GS_FI detail::if_fp<T> fabs(T a) { return m::fabs(a); }
GS_FI half fabs(half a) { return half::from_bits((unsigned short)(a.bits & 0x7fffu)); }

template <class T> GS_FI detail::if_int<T> sign(T a) {
  if constexpr (is_signed_integer<T>::value) {
    return (T)((a > 0) - (a < 0));
  } else {
    return (T)(a > 0);
  }
}
// sign(+-0) = +0, sign(nan) = nan
template <class T> GS_FI detail::if_fp<T> sign(T a) {
  return a > T(0) ? T(1) : (a < T(0) ? T(-1) : (a == T(0) ? T(0) : a));
}
GS_FI half sign(half a) {
  const float f = float(a);
  return f > 0.0f ? half(1.0f) : (f < 0.0f ? half(-1.0f) : (f == 0.0f ? half(0.0f) : a));
}
// NumPy 2: z/|z|, 0 for 0; an infinite part gives +-1 in that part (nan if both
// parts are infinite); any other nan gives nan+nanj.
template <class T> GS_DEV complex<T> sign(complex<T> z) {
  const T x = z.re, y = z.im;
  const T nan = detail::qnan<T>();
  if (m::isinf(x)) {
    if (m::isinf(y)) return complex<T>(nan, nan);
    return complex<T>(x > T(0) ? T(1) : T(-1), T(0));
  }
  if (m::isinf(y)) return complex<T>(T(0), y > T(0) ? T(1) : T(-1));
  const T a = m::hypot(x, y);
  if (m::isnan(a)) return complex<T>(nan, nan);
  if (a == T(0)) return complex<T>(T(0), T(0));
  return complex<T>(x / a, y / a);
}

template <class T> GS_FI detail::if_int<T> square(T a) { return detail::wrap_mul(a, a); }
template <class T> GS_FI detail::if_fp<T> square(T a) { return m::mul_rn(a, a); }
GS_FI half square(half a) { return a * a; }
template <class T> GS_FI complex<T> square(complex<T> a) { return a * a; }

// Integer reciprocal: 1/x in integer division (so 0 unless x is +-1); 1/0 -> 0.
template <class T> GS_FI detail::if_int<T> reciprocal(T a) {
  if (a == 0) return 0;
  return (T)(1 / a);
}
template <class T> GS_FI detail::if_fp<T> reciprocal(T a) { return T(1) / a; }
GS_FI half reciprocal(half a) { return half(1.0f / float(a)); }
template <class T> GS_DEV complex<T> reciprocal(complex<T> z) {
  if (m::fabs(z.im) <= m::fabs(z.re)) {
    const T r = z.im / z.re;
    const T d = z.re + m::mul_rn(z.im, r);
    return complex<T>(T(1) / d, -r / d);
  }
  const T r = z.re / z.im;
  const T d = m::mul_rn(z.re, r) + z.im;
  return complex<T>(r / d, T(-1) / d);
}

template <class T> GS_FI detail::if_int<T> conjugate(T a) { return a; }
template <class T> GS_FI detail::if_fp<T> conjugate(T a) { return a; }
GS_FI half conjugate(half a) { return a; }
template <class T> GS_FI complex<T> conjugate(complex<T> a) { return conj(a); }

// ===========================================================================
// exponentials, logarithms, roots, trigonometric and hyperbolic functions
// ===========================================================================
GS_REAL_UNARY(sqrt, sqrt)
GS_REAL_UNARY(cbrt, cbrt)
GS_REAL_UNARY(exp, exp)
GS_REAL_UNARY(exp2, exp2)
GS_REAL_UNARY(expm1, expm1)
GS_REAL_UNARY(log, log)
GS_REAL_UNARY(log2, log2)
GS_REAL_UNARY(log10, log10)
GS_REAL_UNARY(log1p, log1p)
GS_REAL_UNARY(sin, sin)
GS_REAL_UNARY(cos, cos)
GS_REAL_UNARY(tan, tan)
GS_REAL_UNARY(arcsin, asin)
GS_REAL_UNARY(arccos, acos)
GS_REAL_UNARY(arctan, atan)
GS_REAL_UNARY(sinh, sinh)
GS_REAL_UNARY(cosh, cosh)
GS_REAL_UNARY(tanh, tanh)
GS_REAL_UNARY(arcsinh, asinh)
GS_REAL_UNARY(arccosh, acosh)
GS_REAL_UNARY(arctanh, atanh)
// exp2(z) = exp(z ln 2)
template <class T> GS_DEV complex<T> exp2(complex<T> z) { return exp(z * fconst<T>::ln2); }

GS_REAL_BINARY(arctan2, atan2)
GS_REAL_BINARY(hypot, hypot)

template <class T> GS_FI detail::if_fp<T> deg2rad(T x) { return x * (fconst<T>::pi / T(180)); }
GS_FI half deg2rad(half x) { return half(float(x) * (fconst<float>::pi / 180.0f)); }
template <class T> GS_FI detail::if_fp<T> rad2deg(T x) { return x * (T(180) / fconst<T>::pi); }
GS_FI half rad2deg(half x) { return half(float(x) * (180.0f / fconst<float>::pi)); }
template <class T> GS_FI detail::if_fp<T> radians(T x) { return deg2rad(x); }
GS_FI half radians(half x) { return deg2rad(x); }
template <class T> GS_FI detail::if_fp<T> degrees(T x) { return rad2deg(x); }
GS_FI half degrees(half x) { return rad2deg(x); }

// ===========================================================================
// rounding
// ===========================================================================
template <class T> GS_FI detail::if_ib<T> floor(T a) { return a; }
template <class T> GS_FI detail::if_ib<T> ceil(T a) { return a; }
template <class T> GS_FI detail::if_ib<T> trunc(T a) { return a; }
GS_REAL_UNARY(floor, floor)
GS_REAL_UNARY(ceil, ceil)
GS_REAL_UNARY(trunc, trunc)
GS_REAL_UNARY(rint, rint)  // round half to even
template <class T> GS_FI complex<T> rint(complex<T> z) {
  return complex<T>(m::rint(z.re), m::rint(z.im));
}

// ===========================================================================
// comparisons (complex: lexicographic, with NumPy's NaN rules)
// ===========================================================================
#define GS_COMPARISON(NAME, OP)                                                \
  template <class T> GS_FI detail::if_real<T, bool> NAME(T a, T b) { return a OP b; } \
  GS_FI bool NAME(half a, half b) { return float(a) OP float(b); }
GS_COMPARISON(equal, ==)
GS_COMPARISON(not_equal, !=)
GS_COMPARISON(less, <)
GS_COMPARISON(less_equal, <=)
GS_COMPARISON(greater, >)
GS_COMPARISON(greater_equal, >=)
#undef GS_COMPARISON

template <class T> GS_FI bool equal(complex<T> a, complex<T> b) { return a.re == b.re && a.im == b.im; }
template <class T> GS_FI bool not_equal(complex<T> a, complex<T> b) { return a.re != b.re || a.im != b.im; }
// a < b if Re a < Re b (and neither imaginary part is nan), or the real parts
// are equal and Im a < Im b; likewise for the others.
template <class T> GS_FI bool less(complex<T> a, complex<T> b) {
  return (a.re < b.re && !m::isnan(a.im) && !m::isnan(b.im)) || (a.re == b.re && a.im < b.im);
}
template <class T> GS_FI bool less_equal(complex<T> a, complex<T> b) {
  return (a.re < b.re && !m::isnan(a.im) && !m::isnan(b.im)) || (a.re == b.re && a.im <= b.im);
}
template <class T> GS_FI bool greater(complex<T> a, complex<T> b) {
  return (a.re > b.re && !m::isnan(a.im) && !m::isnan(b.im)) || (a.re == b.re && a.im > b.im);
}
template <class T> GS_FI bool greater_equal(complex<T> a, complex<T> b) {
  return (a.re > b.re && !m::isnan(a.im) && !m::isnan(b.im)) || (a.re == b.re && a.im >= b.im);
}

// int64 vs uint64 (NumPy's 'qQ->?' and 'Qq->?' loops): exact comparison.
GS_FI bool equal(long long a, unsigned long long b) { return a >= 0 && (unsigned long long)a == b; }
GS_FI bool equal(unsigned long long a, long long b) { return b >= 0 && a == (unsigned long long)b; }
GS_FI bool not_equal(long long a, unsigned long long b) { return !equal(a, b); }
GS_FI bool not_equal(unsigned long long a, long long b) { return !equal(a, b); }
GS_FI bool less(long long a, unsigned long long b) { return a < 0 || (unsigned long long)a < b; }
GS_FI bool less(unsigned long long a, long long b) { return b >= 0 && a < (unsigned long long)b; }
GS_FI bool less_equal(long long a, unsigned long long b) { return a < 0 || (unsigned long long)a <= b; }
GS_FI bool less_equal(unsigned long long a, long long b) { return b >= 0 && a <= (unsigned long long)b; }
GS_FI bool greater(long long a, unsigned long long b) { return less(b, a); }
GS_FI bool greater(unsigned long long a, long long b) { return less(b, a); }
GS_FI bool greater_equal(long long a, unsigned long long b) { return less_equal(b, a); }
GS_FI bool greater_equal(unsigned long long a, long long b) { return less_equal(b, a); }

// ===========================================================================
// maximum, minimum (NaN propagates), fmax, fmin (NaN ignored)
// ===========================================================================
GS_FI bool maximum(bool a, bool b) { return a || b; }
GS_FI bool minimum(bool a, bool b) { return a && b; }
GS_FI bool fmax(bool a, bool b) { return a || b; }
GS_FI bool fmin(bool a, bool b) { return a && b; }
template <class T> GS_FI detail::if_int<T> maximum(T a, T b) { return a > b ? a : b; }
template <class T> GS_FI detail::if_int<T> minimum(T a, T b) { return a < b ? a : b; }
template <class T> GS_FI detail::if_int<T> fmax(T a, T b) { return a > b ? a : b; }
template <class T> GS_FI detail::if_int<T> fmin(T a, T b) { return a < b ? a : b; }
// float/double: on ties (+0 vs -0) NumPy's loops return the second argument.
template <class T> GS_FI detail::if_fp<T> maximum(T a, T b) { return (a > b || m::isnan(a)) ? a : b; }
template <class T> GS_FI detail::if_fp<T> minimum(T a, T b) { return (a < b || m::isnan(a)) ? a : b; }
template <class T> GS_FI detail::if_fp<T> fmax(T a, T b) { return (a > b || m::isnan(b)) ? a : b; }
template <class T> GS_FI detail::if_fp<T> fmin(T a, T b) { return (a < b || m::isnan(b)) ? a : b; }
// half: NumPy's half loops return the first argument on ties.
GS_FI half maximum(half a, half b) {
  return (float(a) >= float(b) || m::isnan(float(a))) ? a : b;
}
GS_FI half minimum(half a, half b) {
  return (float(a) <= float(b) || m::isnan(float(a))) ? a : b;
}
GS_FI half fmax(half a, half b) { return (float(a) >= float(b) || m::isnan(float(b))) ? a : b; }
GS_FI half fmin(half a, half b) { return (float(a) <= float(b) || m::isnan(float(b))) ? a : b; }
template <class T> GS_FI complex<T> maximum(complex<T> a, complex<T> b) {
  return (m::isnan(a.re) || m::isnan(a.im) || greater_equal(a, b)) ? a : b;
}
template <class T> GS_FI complex<T> minimum(complex<T> a, complex<T> b) {
  return (m::isnan(a.re) || m::isnan(a.im) || less_equal(a, b)) ? a : b;
}
template <class T> GS_FI complex<T> fmax(complex<T> a, complex<T> b) {
  return (m::isnan(b.re) || m::isnan(b.im) || greater_equal(a, b)) ? a : b;
}
template <class T> GS_FI complex<T> fmin(complex<T> a, complex<T> b) {
  return (m::isnan(b.re) || m::isnan(b.im) || less_equal(a, b)) ? a : b;
}

// ===========================================================================
// isnan, isinf, isfinite, signbit
// ===========================================================================
template <class T> GS_FI detail::if_ib<T, bool> isnan(T) { return false; }
template <class T> GS_FI detail::if_ib<T, bool> isinf(T) { return false; }
template <class T> GS_FI detail::if_ib<T, bool> isfinite(T) { return true; }
template <class T> GS_FI detail::if_fp<T, bool> isnan(T x) { return m::isnan(x); }
template <class T> GS_FI detail::if_fp<T, bool> isinf(T x) { return m::isinf(x); }
template <class T> GS_FI detail::if_fp<T, bool> isfinite(T x) { return m::isfinite(x); }
GS_FI bool isnan(half x) { return (x.bits & 0x7fffu) > 0x7c00u; }
GS_FI bool isinf(half x) { return (x.bits & 0x7fffu) == 0x7c00u; }
GS_FI bool isfinite(half x) { return (x.bits & 0x7c00u) != 0x7c00u; }
template <class T> GS_FI bool isnan(complex<T> z) { return m::isnan(z.re) || m::isnan(z.im); }
template <class T> GS_FI bool isinf(complex<T> z) { return m::isinf(z.re) || m::isinf(z.im); }
template <class T> GS_FI bool isfinite(complex<T> z) { return m::isfinite(z.re) && m::isfinite(z.im); }
template <class T> GS_FI detail::if_fp<T, bool> signbit(T x) { return m::signbit(x); }
GS_FI bool signbit(half x) { return (x.bits & 0x8000u) != 0; }

// ===========================================================================
// logical_and, logical_or, logical_xor, logical_not (any type -> bool)
// ===========================================================================
template <class T> GS_FI bool logical_and(T a, T b) { return detail::truth(a) && detail::truth(b); }
template <class T> GS_FI bool logical_or(T a, T b) { return detail::truth(a) || detail::truth(b); }
template <class T> GS_FI bool logical_xor(T a, T b) { return detail::truth(a) != detail::truth(b); }
template <class T> GS_FI bool logical_not(T a) { return !detail::truth(a); }

// ===========================================================================
// bitwise_and, bitwise_or, bitwise_xor, invert, left_shift, right_shift,
// bitwise_count
// ===========================================================================
GS_FI bool bitwise_and(bool a, bool b) { return a && b; }
GS_FI bool bitwise_or(bool a, bool b) { return a || b; }
GS_FI bool bitwise_xor(bool a, bool b) { return a != b; }
GS_FI bool invert(bool a) { return !a; }
template <class T> GS_FI detail::if_int<T> bitwise_and(T a, T b) { return (T)(a & b); }
template <class T> GS_FI detail::if_int<T> bitwise_or(T a, T b) { return (T)(a | b); }
template <class T> GS_FI detail::if_int<T> bitwise_xor(T a, T b) { return (T)(a ^ b); }
template <class T> GS_FI detail::if_int<T> invert(T a) { return (T)~a; }
// Shift counts outside [0, bit width) give 0 (left) or 0 / -1 (right, by sign).
template <class T> GS_FI detail::if_int<T> left_shift(T a, T b) {
  if ((unsigned long long)b < sizeof(T) * 8) return (T)((detail::wide_u<T>)a << b);
  return 0;
}
template <class T> GS_FI detail::if_int<T> right_shift(T a, T b) {
  if ((unsigned long long)b < sizeof(T) * 8) return (T)(a >> b);
  if constexpr (is_signed_integer<T>::value) {
    return a < 0 ? (T)-1 : (T)0;
  } else {
    return 0;
  }
}
// number of 1 bits in |a|
template <class T> GS_FI detail::if_int<T, unsigned char> bitwise_count(T a) {
  const make_unsigned_t<T> u = detail::uabs(a);
  if constexpr (sizeof(T) <= 4) {
    return (unsigned char)__popc((unsigned int)u);
  } else {
    return (unsigned char)__popcll((unsigned long long)u);
  }
}

// ===========================================================================
// copysign, nextafter, spacing, ldexp, frexp, modf
// ===========================================================================
template <class T> GS_FI detail::if_fp<T> copysign(T a, T b) { return m::copysign(a, b); }
GS_FI half copysign(half a, half b) {
  return half::from_bits((unsigned short)((a.bits & 0x7fffu) | (b.bits & 0x8000u)));
}

template <class T> GS_FI detail::if_fp<T> nextafter(T x, T y) { return m::nextafter(x, y); }
// half: bit stepping; like C (and NumPy >= 2.5) it returns y when x == y.
GS_DEV half nextafter(half x, half y) {
  const float fx = float(x), fy = float(y);
  if (m::isnan(fx) || m::isnan(fy)) return detail::half_nan();
  if (fx == fy) return y;
  if (fx == 0.0f) return half::from_bits((unsigned short)((y.bits & 0x8000u) | 1u));
  const bool away_from_zero = (fy > fx) == (fx > 0.0f);
  return half::from_bits((unsigned short)(away_from_zero ? x.bits + 1u : x.bits - 1u));
}

// float/double: distance to the next value away from zero (signed like x;
// spacing(+-0) is the smallest positive subnormal); nan for inf and nan.
template <class T> GS_FI detail::if_fp<T> spacing(T x) {
  if (m::isinf(x)) return detail::qnan<T>();
  const T inf = numeric_traits<T>::infinity();
  return x < T(0) ? m::nextafter(x, -inf) - x : m::nextafter(x, inf) - x;
}
// half (NumPy's npy_half_spacing): distance to the next half toward +inf.
GS_DEV half spacing(half h) {
  const unsigned short b = h.bits;
  if ((b & 0x7c00u) == 0x7c00u) return detail::half_nan();
  unsigned short nb;
  if (b == 0x8000u) nb = 0x0001u;              // -0 -> smallest positive subnormal
  else if (b & 0x8000u) nb = (unsigned short)(b - 1u);  // negative: toward zero
  else nb = (unsigned short)(b + 1u);          // positive: away from zero
  return half(float(half::from_bits(nb)) - float(h));
}

template <class T> GS_FI detail::if_fp<T> ldexp(T x, int e) { return m::ldexp(x, e); }
template <class T> GS_FI detail::if_fp<T> ldexp(T x, long long e) {
  const int ei = e > 2147483647LL ? 2147483647 : (e < -2147483647LL - 1 ? (-2147483647 - 1) : (int)e);
  return m::ldexp(x, ei);
}
GS_FI half ldexp(half x, int e) { return half(m::ldexp(float(x), e)); }
GS_FI half ldexp(half x, long long e) { return half(ldexp(float(x), e)); }

template <class T> GS_FI detail::if_fp<T, void> frexp(T x, T& mantissa, int& exponent) {
  mantissa = m::frexp(x, &exponent);
}
GS_FI void frexp(half x, half& mantissa, int& exponent) {
  mantissa = half(m::frexp(float(x), &exponent));
}

// outputs: (fractional part, integral part)
template <class T> GS_FI detail::if_fp<T, void> modf(T x, T& frac, T& integral) {
  frac = m::modf(x, &integral);
}
GS_FI void modf(half x, half& frac, half& integral) {
  float ip;
  frac = half(m::modf(float(x), &ip));
  integral = half(ip);
}

// ===========================================================================
// heaviside, logaddexp, logaddexp2
// ===========================================================================
template <class T> GS_FI detail::if_fp<T> heaviside(T x, T h0) {
  if (m::isnan(x)) return detail::qnan<T>();
  if (x == T(0)) return h0;
  return x < T(0) ? T(0) : T(1);
}
GS_FI half heaviside(half x, half h0) {
  const float f = float(x);
  if (m::isnan(f)) return detail::half_nan();
  if (f == 0.0f) return h0;
  return half(f < 0.0f ? 0.0f : 1.0f);
}

template <class T> GS_DEV detail::if_fp<T> logaddexp(T x, T y) {
  if (x == y) return x + fconst<T>::ln2;  // also inf + inf without nan
  const T d = x - y;
  if (d > T(0)) return x + m::log1p(m::exp(-d));
  if (d <= T(0)) return y + m::log1p(m::exp(d));
  return d;  // nan
}
GS_DEV half logaddexp(half x, half y) { return half(logaddexp(float(x), float(y))); }

template <class T> GS_DEV detail::if_fp<T> logaddexp2(T x, T y) {
  if (x == y) return x + T(1);
  const T d = x - y;
  if (d > T(0)) return x + m::mul_rn(fconst<T>::log2e, m::log1p(m::exp2(-d)));
  if (d <= T(0)) return y + m::mul_rn(fconst<T>::log2e, m::log1p(m::exp2(d)));
  return d;  // nan
}
GS_DEV half logaddexp2(half x, half y) { return half(logaddexp2(float(x), float(y))); }

// ===========================================================================
// gcd, lcm (on |a|, |b|; results wrap into the signed type like NumPy)
// ===========================================================================
namespace detail {
template <class U> GS_DEV U gcd_u(U a, U b) {
  while (b != 0) {
    const U t = (U)(a % b);
    a = b;
    b = t;
  }
  return a;
}
}  // namespace detail
template <class T> GS_DEV detail::if_int<T> gcd(T a, T b) {
  return (T)detail::gcd_u(detail::uabs(a), detail::uabs(b));
}
template <class T> GS_DEV detail::if_int<T> lcm(T a, T b) {
  typedef make_unsigned_t<T> U;
  const U x = detail::uabs(a), y = detail::uabs(b);
  const U g = detail::gcd_u(x, y);
  if (g == 0) return 0;
  return (T)(U)((detail::wide_u<T>)(x / g) * (detail::wide_u<T>)y);
}

#undef GS_REAL_UNARY
#undef GS_REAL_BINARY

// ===========================================================================
// Helpers that are not ufuncs
// ===========================================================================
namespace detail {
template <class T> struct angle_result { typedef double type; };
template <> struct angle_result<signed char> { typedef half type; };
template <> struct angle_result<unsigned char> { typedef half type; };
template <> struct angle_result<char> { typedef half type; };
template <> struct angle_result<short> { typedef float type; };
template <> struct angle_result<unsigned short> { typedef float type; };
}  // namespace detail

// np.angle (radians). Real input: atan2(0, x), i.e. pi for x < 0 or x == -0.
// Integer input gives NumPy's result type (float16 for 8-bit, float32 for
// 16-bit, float64 otherwise and for bool).
template <class T> GS_FI T angle(complex<T> z) { return m::atan2(z.im, z.re); }
template <class T> GS_FI detail::if_fp<T> angle(T x) { return m::atan2(T(0), x); }
GS_FI half angle(half x) { return half(m::atan2(0.0f, float(x))); }
GS_FI double angle(bool) { return 0.0; }
template <class T> GS_FI detail::if_int<T, typename detail::angle_result<T>::type> angle(T x) {
  typedef typename detail::angle_result<T>::type R;
  return x < 0 ? R(fconst<double>::pi) : R(0.0);
}

// real / imag of any type (complex versions are in types.cuh)
template <class T> GS_FI detail::if_noncomplex<T> real(T x) { return x; }
template <class T> GS_FI detail::if_noncomplex<T> imag(T) { return cast<T>(0); }

// numpy.round(x, decimals): rint(x * 10**d) / 10**d, or for d < 0
// rint(x / 10**-d) * 10**-d, each operation in x's own precision (10**d is a
// double rounded to that precision). Integers: unchanged for d >= 0, computed
// in double for d < 0. bool gives double (NumPy's result type). Complex:
// real and imaginary parts separately.
namespace detail {
GS_DEV double power_of_ten(int n) {
  if (n > 400) n = 400;  // inf long before
  double r = 1.0;
  for (int i = 0; i < n; ++i) r *= 10.0;
  return r;
}
}  // namespace detail
template <class T> GS_DEV detail::if_fp<T> round_decimals(T x, int decimals) {
  if (decimals >= 0) {
    const T f = (T)detail::power_of_ten(decimals);
    return m::rint(x * f) / f;
  }
  const T f = (T)detail::power_of_ten(decimals < -400 ? 400 : -decimals);
  return m::rint(x / f) * f;
}
GS_DEV half round_decimals(half x, int decimals) {
  const bool neg = decimals < 0;
  const half f = half(detail::power_of_ten(neg ? (decimals < -400 ? 400 : -decimals) : decimals));
  half t = neg ? x / f : x * f;
  t = half(m::rint(float(t)));
  return neg ? t * f : t / f;
}
template <class T> GS_DEV detail::if_int<T> round_decimals(T x, int decimals) {
  if (decimals >= 0) return x;
  const double f = detail::power_of_ten(decimals < -400 ? 400 : -decimals);
  return cast<T>(m::rint((double)x / f) * f);
}
GS_DEV double round_decimals(bool x, int decimals) { return round_decimals(x ? 1.0 : 0.0, decimals); }
template <class T> GS_DEV complex<T> round_decimals(complex<T> z, int decimals) {
  return complex<T>(round_decimals(z.re, decimals), round_decimals(z.im, decimals));
}

// numpy.clip = minimum(maximum(x, lo), hi), NaN propagating.
template <class T> GS_FI T clip(T x, T lo, T hi) { return minimum(maximum(x, lo), hi); }

// |x|^2 in x's real type.
GS_FI bool abs2(bool x) { return x; }
template <class T> GS_FI detail::if_int<T> abs2(T x) { return detail::wrap_mul(x, x); }
template <class T> GS_FI detail::if_fp<T> abs2(T x) { return x * x; }
GS_FI half abs2(half x) { return x * x; }
template <class T> GS_FI T abs2(complex<T> z) { return z.re * z.re + z.im * z.im; }

// NaN test for any type (false for bool and integers).
template <class T> GS_FI bool isnan_any(T x) { return isnan(x); }

}  // namespace gs
