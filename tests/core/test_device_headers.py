"""Compile-only checks of the device headers (gpuscipy/types.cuh, ufuncs.cuh).

Needs NVRTC (cuda-bindings) but no GPU. For every ufunc in UFUNC_NAMES and every
NumPy loop of it over our 14 dtypes, a kernel reads inputs of the loop's C
types, calls gs::NAME and stores into outputs of the loop's output types; a
static_assert pins the return type exactly. All loops of one ufunc share one
translation unit (one NVRTC compile per ufunc).
"""

import importlib
import importlib.util
import os

import numpy as np
import pytest

pytest.importorskip("cuda.bindings.nvrtc")

_KERNEL_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                           os.pardir, "gpuscipy_core", "_kernel")


def _load(modname):
    """gpuscipy_core._kernel.<modname>, or the file itself if the package
    cannot be imported (e.g. not built)."""
    try:
        return importlib.import_module(f"gpuscipy_core._kernel.{modname}")
    except Exception:
        path = os.path.join(_KERNEL_DIR, modname + ".py")
        spec = importlib.util.spec_from_file_location(f"_gs_test_{modname}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod


_nvrtc = _load("_nvrtc")
_names = _load("_ufunc_names")
ctype = _names.ctype

_PRELUDE = """\
#include <gpuscipy/ufuncs.cuh>
template <class A, class B> struct gs_test_same { static constexpr bool value = false; };
template <class A> struct gs_test_same<A, A> { static constexpr bool value = true; };
#define GS_EXPECT_TYPE(EXPR, TYPE, WHAT) \\
  static_assert(gs_test_same<decltype(EXPR), TYPE>::value, WHAT ": wrong type")
"""


def _compile(source, name):
    return _nvrtc.compile_cubin(source, name)


def _sig(ins, outs):
    return "".join(d.char for d in ins) + "->" + "".join(d.char for d in outs)


def _loop_kernel(name, idx, ins, outs):
    cin = [ctype(d) for d in ins]
    cout = [ctype(d) for d in outs]
    params = [f"const {t}* __restrict__ in{i}" for i, t in enumerate(cin)]
    params += [f"{t}* __restrict__ out{j}" for j, t in enumerate(cout)]
    what = f'"gs::{name} loop {_sig(ins, outs)}"'
    lines = [f'extern "C" __global__ void gs_test_{name}_{idx}({", ".join(params)}) {{',
             "  const unsigned int k = threadIdx.x;"]
    lines += [f"  {t} x{i} = in{i}[k];" for i, t in enumerate(cin)]
    args = ", ".join(f"x{i}" for i in range(len(cin)))
    if len(cout) == 1:
        call = f"gs::{name}({args})"
        lines.append(f"  GS_EXPECT_TYPE({call}, {cout[0]}, {what});")
        lines.append(f"  {cout[0]} r0 = {call};")
        lines.append("  out0[k] = r0;")
    else:
        lines += [f"  {t} r{j};" for j, t in enumerate(cout)]
        outs_args = ", ".join(f"r{j}" for j in range(len(cout)))
        call = f"gs::{name}({args}, {outs_args})"
        lines.append(f"  GS_EXPECT_TYPE({call}, void, {what});")
        lines.append(f"  {call};")
        lines += [f"  out{j}[k] = r{j};" for j in range(len(cout))]
    lines.append("}")
    return "\n".join(lines)


def _ufunc_source(name):
    loops = _names.supported_loops(name)
    kernels = [_loop_kernel(name, i, ins, outs) for i, (ins, outs) in enumerate(loops)]
    return _PRELUDE + "\n".join(kernels) + "\n", len(loops)


@pytest.mark.parametrize("name", _names.UFUNC_NAMES)
def test_ufunc_loops_compile(name):
    source, nloops = _ufunc_source(name)
    assert nloops > 0, f"no supported loops for {name}"
    cubin = _compile(source, f"test_{name}")
    assert len(cubin) > 0


def test_cast_all_pairs_compile():
    lines = [_PRELUDE]
    for i, src in enumerate(_names.DTYPES):
        cs = ctype(src)
        params = [f"const {cs}* __restrict__ in"]
        body = []
        for j, dst in enumerate(_names.DTYPES):
            cd = ctype(dst)
            params.append(f"{cd}* __restrict__ out{j}")
            what = f'"gs::cast<{cd}>({cs})"'
            body.append(f"  GS_EXPECT_TYPE(gs::cast<{cd}>(x), {cd}, {what});")
            body.append(f"  {{ {cd} r = gs::cast<{cd}>(x); out{j}[k] = r; }}")
        lines.append(f'extern "C" __global__ void gs_test_cast_from_{i}({", ".join(params)}) {{')
        lines.append("  const unsigned int k = threadIdx.x;")
        lines.append(f"  {cs} x = in[k];")
        lines += body
        lines.append("}")
    _compile("\n".join(lines) + "\n", "test_cast")


_COMPLEX_OPS = """
#define CHECK(EXPR, TYPE) GS_EXPECT_TYPE(EXPR, TYPE, #EXPR)
static_assert(__is_trivially_copyable(gs::half), "half trivially copyable");
static_assert(__is_trivially_copyable(gs::complex<float>), "complex64 trivially copyable");
static_assert(__is_trivially_copyable(gs::complex<double>), "complex128 trivially copyable");
static_assert(__is_trivial(gs::complex<double>) && __is_trivial(gs::half), "trivial (usable in __shared__)");
static_assert(alignof(gs::complex<double>) == 16 && sizeof(gs::complex<double>) == 16, "complex128");
static_assert(alignof(gs::complex<float>) == 8 && sizeof(gs::complex<float>) == 8, "complex64");
static_assert(sizeof(gs::half) == 2 && alignof(gs::half) == 2, "half");
static_assert(gs::is_integer<long long>::value && !gs::is_integer<bool>::value, "traits");

template <class T> __device__ void complex_ops(const gs::complex<T>* in, const T* r, gs::complex<T>* out,
                                               T* rout, bool* bout) {
  typedef gs::complex<T> C;
  const unsigned int k = threadIdx.x;
  C a = in[2 * k], b = in[2 * k + 1];
  T s = r[k];
  __shared__ C shared_buf[32];  // trivial type: allowed in shared memory
  shared_buf[k % 32] = a;
  a = shared_buf[(k + 1) % 32];
  CHECK(a + b, C); CHECK(a - b, C); CHECK(a * b, C); CHECK(a / b, C);
  CHECK(a + s, C); CHECK(a - s, C); CHECK(a * s, C); CHECK(a / s, C);
  CHECK(s + a, C); CHECK(s - a, C); CHECK(s * a, C); CHECK(s / a, C);
  CHECK(-a, C); CHECK(+a, C);
  CHECK(a == b, bool); CHECK(a != b, bool); CHECK(a == s, bool); CHECK(s != a, bool);
  CHECK(a + 1, C); CHECK(2 * a, C); CHECK(a == 0, bool);
  C c = a;
  c += b; c -= b; c *= b; c /= b; c += s; c -= s; c *= s; c /= s;
  CHECK(gs::real(a), T); CHECK(gs::imag(a), T); CHECK(gs::conj(a), C);
  CHECK(gs::abs(a), T); CHECK(gs::arg(a), T);
  CHECK(gs::pow(a, b), C); CHECK(gs::pow(a, s), C);
  C z = a * b + (a - b) / b + c;
  z += gs::exp(a) + gs::log(a) + gs::log2(a) + gs::log10(a) + gs::log1p(a) + gs::expm1(a);
  z += gs::sqrt(a) + gs::pow(a, b) + gs::pow(a, s);
  z += gs::sin(a) + gs::cos(a) + gs::tan(a) + gs::sinh(a) + gs::cosh(a) + gs::tanh(a);
  z += gs::arcsin(a) + gs::arccos(a) + gs::arctan(a);
  z += gs::arcsinh(a) + gs::arccosh(a) + gs::arctanh(a);
  z += C(gs::real(a), gs::imag(b)) + gs::conj(b);
  out[k] = z;
  rout[k] = gs::abs(a) + gs::arg(b) + gs::real(z) + gs::imag(z);
  bout[k] = (a == b) || (a != b) || (a == s) || (s == a) || (a != s) || (s != a);
}

extern "C" __global__ void gs_test_complex64_ops(const gs::complex<float>* in, const float* r,
                                                 gs::complex<float>* out, float* rout, bool* bout) {
  complex_ops<float>(in, r, out, rout, bout);
}
extern "C" __global__ void gs_test_complex128_ops(const gs::complex<double>* in, const double* r,
                                                  gs::complex<double>* out, double* rout, bool* bout) {
  complex_ops<double>(in, r, out, rout, bout);
}
extern "C" __global__ void gs_test_complex_conversions(const gs::complex<float>* a, const gs::complex<double>* b,
                                                       gs::complex<float>* oa, gs::complex<double>* ob) {
  const unsigned int k = threadIdx.x;
  gs::complex<double> widened(a[k]);
  gs::complex<float> narrowed(b[k]);
  gs::complex<double> from_real = 2.0;
  gs::complex<float> from_int = 3;
  oa[k] = narrowed + from_int;
  ob[k] = widened + from_real;
}
extern "C" __global__ void gs_test_half_ops(const gs::half* in, gs::half* out, float* fout, double* dout,
                                           bool* bout) {
  typedef gs::half H;
  const unsigned int k = threadIdx.x;
  H a = in[2 * k], b = in[2 * k + 1];
  CHECK(a + b, H); CHECK(a - b, H); CHECK(a * b, H); CHECK(a / b, H); CHECK(-a, H); CHECK(+a, H);
  CHECK(a < b, bool); CHECK(a <= b, bool); CHECK(a > b, bool); CHECK(a >= b, bool);
  CHECK(a == b, bool); CHECK(a != b, bool);
  H c = a; c += b; c -= b; c *= b; c /= b;
  __shared__ H shared_buf[32];
  shared_buf[k % 32] = c;
  c = shared_buf[(k + 3) % 32];
  float f = a;           // implicit widening to float
  double d = b;          // and to double
  H from_f(1.5f), from_d(2.5), from_i(3), from_ll(4LL), from_u(5u), from_b(true);
  out[k] = c + from_f + from_d + from_i + from_ll + from_u + from_b + H::from_bits(0x3c00u);
  fout[k] = f + a.to_float() + gs::numeric_traits<H>::max();
  dout[k] = d + gs::numeric_traits<double>::infinity() + gs::numeric_traits<long long>::max();
  bout[k] = a < b || a == b || a == 0.0f;
}
"""


def test_complex_and_half_operators_compile():
    _compile(_PRELUDE + _COMPLEX_OPS, "test_complex_ops")


# helper -> {input dtype name: expected output C type}; default: same type
def _helper_expected(helper, dt):
    t = ctype(dt)
    real_of_complex = {"complex64": "float", "complex128": "double"}
    if helper in ("real", "imag", "abs2", "angle", "abs") and dt.kind == "c":
        return real_of_complex[dt.name]
    if helper == "angle":
        return {"bool": "double", "int8": "gs::half", "uint8": "gs::half",
                "int16": "float", "uint16": "float"}.get(
                    dt.name, "double" if dt.kind in "iu" else t)
    if helper == "round_decimals" and dt.kind == "b":
        return "double"
    if helper == "isnan_any":
        return "bool"
    return t


def test_helpers_compile():
    lines = [_PRELUDE]
    for i, dt in enumerate(_names.DTYPES):
        t = ctype(dt)
        body = []
        params = [f"const {t}* __restrict__ in", "const int* __restrict__ dec"]
        calls = {
            "angle": "gs::angle(x)",
            "real": "gs::real(x)",
            "imag": "gs::imag(x)",
            "round_decimals": "gs::round_decimals(x, d)",
            "clip": "gs::clip(x, lo, hi)",
            "abs2": "gs::abs2(x)",
            "isnan_any": "gs::isnan_any(x)",
            "abs": "gs::abs(x)",
        }
        for j, (helper, call) in enumerate(calls.items()):
            out_t = _helper_expected(helper, dt)
            params.append(f"{out_t}* __restrict__ out{j}")
            body.append(f'  GS_EXPECT_TYPE({call}, {out_t}, "{call} for {t}");')
            body.append(f"  {{ {out_t} r = {call}; out{j}[k] = r; }}")
        lines.append(f'extern "C" __global__ void gs_test_helpers_{i}({", ".join(params)}) {{')
        lines.append("  const unsigned int k = threadIdx.x;")
        lines.append(f"  {t} x = in[3 * k], lo = in[3 * k + 1], hi = in[3 * k + 2];")
        lines.append("  int d = dec[k];")
        lines += body
        lines.append("}")
    _compile("\n".join(lines) + "\n", "test_helpers")


def test_compile_error_is_reported():
    # a wrong return type must fail to compile (the mechanism the loop tests rely on)
    source = _PRELUDE + (
        'extern "C" __global__ void k(const float* a, double* o) {\n'
        '  GS_EXPECT_TYPE(gs::sqrt(a[0]), double, "sqrt(float) is float");\n'
        "  o[0] = gs::sqrt(a[0]);\n}\n")
    with pytest.raises(_nvrtc.NVRTCError, match="wrong type"):
        _compile(source, "test_expected_failure")


# ---------------------------------------------------------------------------
# _ufunc_names (pure Python)
# ---------------------------------------------------------------------------

_EXPECTED_CTYPES = {
    np.bool_: "bool", np.int8: "signed char", np.uint8: "unsigned char",
    np.int16: "short", np.uint16: "unsigned short", np.int32: "int",
    np.uint32: "unsigned int", np.int64: "long long",
    np.uint64: "unsigned long long", np.float16: "gs::half",
    np.float32: "float", np.float64: "double",
    np.complex64: "gs::complex<float>", np.complex128: "gs::complex<double>",
}


def test_ctype_supported():
    assert len(_names.DTYPES) == 14
    for t, c in _EXPECTED_CTYPES.items():
        assert ctype(np.dtype(t)) == c
        assert ctype(t) == c
    assert ctype(np.dtype("l")) == ctype(np.dtype("q")) == "long long"
    assert ctype("=i4") == "int"


@pytest.mark.parametrize("bad", ["O", "U3", "S2", "M8[s]", "m8[ns]", np.longdouble,
                                 np.clongdouble, ">i4" if np.little_endian else "<i4",
                                 [("a", "i4")], "V8"])
def test_ctype_unsupported(bad):
    dt = np.dtype(bad)
    with pytest.raises(TypeError, match="not supported"):
        ctype(dt)
    with pytest.raises(TypeError) as exc:
        ctype(bad)
    assert repr(bad) in str(exc.value)


def test_aliases_are_numpy_aliases():
    for alias, name in _names.ALIASES.items():
        assert name in _names.UFUNC_NAMES
        if hasattr(np, alias):
            assert getattr(np, alias) is getattr(np, name), alias
    # every NumPy alias of an implemented ufunc is listed
    for attr in dir(np):
        obj = getattr(np, attr)
        if isinstance(obj, np.ufunc) and attr != obj.__name__ and obj.__name__ in _names.UFUNC_NAMES:
            assert _names.ALIASES.get(attr) == obj.__name__, attr
    assert _names.supported_loops("true_divide") == _names.supported_loops("divide")


def test_names_are_ufuncs():
    assert len(set(_names.UFUNC_NAMES)) == len(_names.UFUNC_NAMES)
    for name in _names.UFUNC_NAMES:
        assert isinstance(getattr(np, name), np.ufunc), name
        assert getattr(np, name).__name__ == name
    with pytest.raises(ValueError):
        _names.supported_loops("matmul")


def test_supported_loops_shape():
    supported = {dt.name for dt in _names.DTYPES}
    for name in _names.UFUNC_NAMES:
        uf = getattr(np, name)
        loops = _names.supported_loops(name)
        assert loops, name
        keys = set()
        for ins, outs in loops:
            assert len(ins) == uf.nin and len(outs) == uf.nout
            assert all(isinstance(d, np.dtype) and d.name in supported for d in ins + outs)
            keys.add((tuple(d.name for d in ins), tuple(d.name for d in outs)))
        assert len(keys) == len(loops), f"duplicate loops for {name}"
    f64 = np.dtype(np.float64)
    i32 = np.dtype(np.int32)
    assert ((f64,), (f64, i32)) in _names.supported_loops("frexp")
    assert ((f64, np.dtype(np.int64)), (f64,)) in _names.supported_loops("ldexp")
    assert ((np.dtype(np.int64), np.dtype(np.uint64)), (np.dtype(np.bool_),)) in \
        _names.supported_loops("less")
    assert [l for l in _names.supported_loops("sqrt") if l[0] == (f64,)] == [((f64,), (f64,))]
