"""The kernels of CuPy's user guide ("User-Defined Kernels",
https://docs.cupy.dev/en/stable/user_guide/kernel.html), written here from
the guide's description, so that code ported from CuPy is known to compile
and run unchanged (issue 15, item 1).

Each kernel is checked twice:

* its NVRTC compile, on the CPU (no GPU; this is what CI runs): the source
  the kernel object renders (``ElementwiseKernel.source``, the
  ``ReductionKernel``'s bound ``Reduction.source``, the raw code) for the
  layouts a call can pick (contiguous, strided, 64-bit index);
* its result against NumPy on the GPU (``@pytest.mark.gpu``), on the guide's
  own inputs (their printed values) and on random data.

The guide's bodies carry no trailing ``;`` (CuPy adds it, and puts the
reduction expressions inside parentheses); the compile tests also assert
that the rendered source holds each body as one complete statement.

Not covered, because gpuscipy does not support them: the complex
``RawKernel`` (it includes ``<cupy/complex.cuh>``), texture memory, and
``RawModule``'s ``name_expressions`` (C++ template kernels).
"""

import math

import numpy as np
import pytest

from gpuscipy_core._kernel._nvrtc import compile_cubin
from gpuscipy_core._kernel._reduction_kernel import ReductionKernel
from gpuscipy_core._kernel._user_kernels import ElementwiseKernel, RawKernel, RawModule

from ._parity import assert_parity, dtype_id, random_array

gpu = pytest.mark.gpu


# ======================================================================
# The guide's kernels (constructing one needs no GPU)
# ======================================================================

def squared_diff():
    """The first example: (x - y)**2 on float32, broadcasting."""
    return ElementwiseKernel("float32 x, float32 y", "float32 z",
                             "z = (x - y) * (x - y)", "squared_diff")


def squared_diff_generic():
    """The type-placeholder version: T is bound from the arguments."""
    return ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)",
                             "squared_diff_generic")


def squared_diff_generic_multiline():
    """The version whose body declares a local of type T over two lines."""
    return ElementwiseKernel("T x, T y", "T z", """
        T diff = x - y;
        z = diff * diff;
    """, "squared_diff_generic")


def squared_diff_super_generic():
    """Three placeholders; Z is known only from an output passed in."""
    return ElementwiseKernel("X x, Y y", "Z z", "z = (x - y) * (x - y)",
                             "squared_diff_super_generic")


def add_reverse():
    """A raw argument indexed by hand with i and _ind.size()."""
    return ElementwiseKernel("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]",
                             "add_reverse")


def reverse_all_raw():
    """Every argument raw: the loop size comes from ``size=``, which sets
    _ind.size() (the guide's note on all-raw kernels)."""
    return ElementwiseKernel("raw T y", "raw T z", "z[i] = y[_ind.size() - i - 1]",
                             "reverse_all_raw")


def loop_size():
    """_ind.size() is the size after broadcasting."""
    return ElementwiseKernel("T x, T y", "int64 m", "m = _ind.size()", "loop_size")


def l2norm():
    """The ReductionKernel example: identity 0, map x*x, reduce a+b,
    post-map y = sqrt(a)."""
    return ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")


MY_ADD = r"""
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}
"""

# two kernels in one extern "C" block, their parameter lists continued with a
# backslash as in the guide; N is declared unsigned int and passed a Python int
SUM_AND_MULTIPLY = r"""
extern "C" {

__global__ void test_sum(const float* x1, const float* x2, float* y, \
                         unsigned int N)
{
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < N)
    {
        y[tid] = x1[tid] + x2[tid];
    }
}

__global__ void test_multiply(const float* x1, const float* x2, float* y, \
                              unsigned int N)
{
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < N)
    {
        y[tid] = x1[tid] * x2[tid];
    }
}

}"""


def my_add():
    return RawKernel(MY_ADD, "my_add")


def sum_and_multiply():
    return RawModule(code=SUM_AND_MULTIPLY)


# ======================================================================
# NVRTC compiles (no GPU)
# ======================================================================

# (id, kernel factory, dtypes as in the call, scalar input positions, the
# statement the rendered body must contain)
ELEMENTWISE_CASES = [
    ("squared_diff", squared_diff, ("f4", "f4"), (), "z = (x - y) * (x - y);"),
    ("squared_diff_scalar_y", squared_diff, ("f4", "f4"), (1,), "z = (x - y) * (x - y);"),
    ("squared_diff_out_given", squared_diff, ("f4", "f4", "f4"), (), "z = (x - y) * (x - y);"),
    ("generic_f8", squared_diff_generic, ("f8", "f8"), (), "z = (x - y) * (x - y);"),
    ("generic_i4", squared_diff_generic, ("i4", "i4"), (), "z = (x - y) * (x - y);"),
    ("generic_c16", squared_diff_generic, ("c16", "c16"), (), "z = (x - y) * (x - y);"),
    ("generic_multiline_f4", squared_diff_generic_multiline, ("f4", "f4"), (),
     "z = diff * diff;"),
    ("super_generic", squared_diff_super_generic, ("f4", "i2", "f8"), (),
     "z = (x - y) * (x - y);"),
    ("add_reverse", add_reverse, ("f8", "f8"), (), "z = x + y[_ind.size() - i - 1];"),
    ("reverse_all_raw", reverse_all_raw, ("f4", "f4"), (), "z[i] = y[_ind.size() - i - 1];"),
    ("loop_size", loop_size, ("f8", "f8"), (), "m = _ind.size();"),
]

LAYOUTS = [(0, True), (2, True), (3, False)]   # (ndim, index32): contiguous, strided


@pytest.mark.parametrize("case", ELEMENTWISE_CASES, ids=[c[0] for c in ELEMENTWISE_CASES])
def test_doc_elementwise_kernel_compiles(case):
    _, factory, dtypes, scalars, statement = case
    k = factory()
    for ndim, index32 in LAYOUTS:
        name, src = k.source(*dtypes, scalars=scalars, ndim=ndim, index32=index32)
        assert statement in src, f"the body is not one statement in:\n{src}"
        assert compile_cubin(src, name)


def test_doc_elementwise_super_generic_needs_the_output():
    with pytest.raises(TypeError, match="output 'z'"):
        squared_diff_super_generic().source("f4", "i2")


@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_doc_l2norm_compiles(dtype):
    dt = np.dtype(dtype)
    red = l2norm()._bind(["a"], [dt], [dt], {"T": dt})
    layouts = [(1, 1, True, 1), (2, 3, False, 1)] + ([(1, 1, True, 4)] if dtype == "f4"
                                                     else [(1, 1, True, 2)])
    for ond, rnd, index32, vec in layouts:
        src = red.source(ond, rnd, index32, vec)
        # CuPy's forms, completed: the map and reduce expressions in
        # parentheses, the post-map as a statement
        assert "acc_t(x * x)" in src and "acc_t(a + b)" in src
        assert "y = sqrt(a);" in src
        assert compile_cubin(src, red.spec(ond, rnd, index32, vec).name)


def test_doc_raw_kernel_compiles():
    k = my_add()
    cubin = compile_cubin(k.code, k.name, k.options)
    assert b"my_add" in cubin   # extern "C": the symbol is not mangled


def test_doc_raw_module_compiles_with_both_kernels():
    m = sum_and_multiply()
    cubin = compile_cubin(m.code, "sum_and_multiply", m.options)
    assert b"test_sum" in cubin and b"test_multiply" in cubin


# ======================================================================
# Results against NumPy (GPU)
# ======================================================================

def _gp():
    import gpuscipy_core as gp
    return gp


@gpu
def test_doc_squared_diff_on_the_guides_inputs():
    gp = _gp()
    k = squared_diff()
    hx = np.arange(10, dtype=np.float32).reshape(2, 5)
    hy = np.arange(5, dtype=np.float32)
    x, y = gp.asarray(hx), gp.asarray(hy)
    want = np.array([[0.0] * 5, [25.0] * 5], np.float32)   # the guide's printout
    assert_parity(k(x, y), want, kind="exact")
    want5 = np.array([[25, 16, 9, 4, 1], [0, 1, 4, 9, 16]], np.float32)
    assert_parity(k(x, 5), want5, kind="exact")
    z = gp.empty((2, 5), dtype=gp.float32)
    res = k(x, y, z)
    assert res is z
    assert_parity(z, want, kind="exact")


@gpu
@pytest.mark.parametrize("seed", [0, 1])
def test_doc_squared_diff_random_broadcast(seed):
    gp = _gp()
    hx = random_array((4, 1, 6), np.float32, seed)
    hy = random_array((5, 1), np.float32, seed + 10)
    # float32 operands of other dtypes are converted, as the signature says
    got = squared_diff()(gp.asarray(hx), gp.asarray(hy.astype(np.float64)))
    assert got.dtype == np.float32
    d = hx - hy
    assert_parity(got, d * d)


@gpu
@pytest.mark.parametrize("factory", [squared_diff_generic, squared_diff_generic_multiline],
                         ids=["one_line", "multiline"])
@pytest.mark.parametrize("dtype", ["f4", "f8", "i4", "i8", "u8", "c8", "c16"], ids=dtype_id)
def test_doc_squared_diff_generic(factory, dtype):
    gp = _gp()
    hx = random_array(257, dtype, 2)
    hy = random_array(257, dtype, 3)
    got = factory()(gp.asarray(hx), gp.asarray(hy))
    assert got.dtype == np.dtype(dtype)
    d = hx - hy
    assert_parity(got, d * d)


@gpu
def test_doc_squared_diff_super_generic_with_output():
    gp = _gp()
    k = squared_diff_super_generic()
    hx = random_array((3, 7), np.float32, 4)
    hy = random_array(7, np.int16, 5)
    z = gp.empty((3, 7), dtype=gp.float64)
    assert k(gp.asarray(hx), gp.asarray(hy), z) is z
    # C++: float - short is float, the square is float, stored as double
    d = hx - hy.astype(np.float32)
    assert_parity(z, (d * d).astype(np.float64), kind="exact")
    with pytest.raises(TypeError, match="output 'z'"):
        k(gp.asarray(hx), gp.asarray(hy))


@gpu
def test_doc_add_reverse():
    gp = _gp()
    k = add_reverse()
    hx = random_array(100, np.float64, 6)
    hy = random_array(100, np.float64, 7)
    assert_parity(k(gp.asarray(hx), gp.asarray(hy)), hx + hy[::-1], kind="exact")
    # y of any shape and strides: raw indexing is over its C-order elements;
    # _ind.size() is the loop size (12 here), i the C-order loop index
    hx2 = random_array((3, 4), np.float64, 8)
    hbig = random_array((4, 6), np.float64, 9)
    y = gp.asarray(hbig)[::-1, ::2]               # (4, 3), non-contiguous
    want = (hx2.ravel() + hbig[::-1, ::2].ravel()[::-1]).reshape(3, 4)
    assert_parity(k(gp.asarray(hx2), y), want, kind="exact")
    ht = random_array((3, 4), np.float64, 13)
    want = (hx2.ravel() + ht.T.ravel()[::-1]).reshape(3, 4)   # y F-contiguous
    assert_parity(k(gp.asarray(hx2), gp.asarray(ht).T), want, kind="exact")


@gpu
def test_doc_all_raw_kernel_takes_its_size_from_the_call():
    gp = _gp()
    k = reverse_all_raw()
    h = random_array(50, np.float32, 10)
    z = gp.zeros(50, dtype=gp.float32)
    k(gp.asarray(h), z, size=50)
    assert_parity(z, h[::-1], kind="exact")
    # a smaller size runs fewer iterations and _ind.size() follows it
    z = gp.zeros(50, dtype=gp.float32)
    k(gp.asarray(h), z, size=20)
    want = np.zeros(50, np.float32)
    want[:20] = h[:20][::-1]
    assert_parity(z, want, kind="exact")


@gpu
def test_doc_ind_size_is_the_broadcast_size():
    gp = _gp()
    m = loop_size()(gp.asarray(np.zeros((3, 1))), gp.asarray(np.zeros(4)))
    assert m.shape == (3, 4) and m.dtype == np.int64
    np.testing.assert_array_equal(gp.asnumpy(m), np.full((3, 4), 12))


@gpu
def test_doc_l2norm_on_the_guides_input():
    gp = _gp()
    hx = np.arange(10, dtype=np.float32).reshape(2, 5)
    got = l2norm()(gp.asarray(hx), axis=1)
    # 0+1+4+9+16 = 30 and 25+...+81 = 255 are exact in float32; sqrt is
    # correctly rounded on both sides (the guide prints 5.477226, 15.9687195)
    assert_parity(got, np.sqrt(np.array([30.0, 255.0], np.float32)), kind="exact")
    np.testing.assert_allclose(gp.asnumpy(got), [5.477226, 15.9687195], rtol=1e-7)


@gpu
@pytest.mark.parametrize("dtype", ["f4", "f8"], ids=dtype_id)
@pytest.mark.parametrize("axis", [0, 1, None])
def test_doc_l2norm_random(dtype, axis):
    # Error bound of the algorithm, whatever order the GPU sums in: n squares
    # each rounded (u, the unit roundoff, relative) and summed in any order
    # ((n - 1) u for positive terms) are within n u of the exact sum; the
    # square root halves that and adds its own rounding: (n / 2 + 1) u. The
    # reference (squares in float64, math.fsum: correctly rounded) is within
    # 2 u; one more u of slack for second-order terms: rtol = (n / 2 + 4) u.
    gp = _gp()
    h = random_array((7, 300), dtype, 11)
    got = l2norm()(gp.asarray(h), axis=axis)
    sq = h.astype(np.float64) ** 2
    if axis is None:
        exact = np.float64(math.fsum(sq.ravel()))
    else:
        rows = np.moveaxis(sq, axis, -1).reshape(-1, sq.shape[axis])
        exact = np.array([math.fsum(r) for r in rows])
    want = np.sqrt(exact).astype(dtype)
    assert got.dtype == np.dtype(dtype) and got.shape == want.shape
    n = h.size if axis is None else h.shape[axis]
    u = np.finfo(dtype).eps / 2
    np.testing.assert_allclose(gp.asnumpy(got), want, rtol=(n / 2 + 4) * u)


@gpu
def test_doc_raw_kernel_my_add():
    gp = _gp()
    h = np.arange(25, dtype=np.float32).reshape(5, 5)
    x1, x2 = gp.asarray(h), gp.asarray(h)
    y = gp.zeros((5, 5), dtype=gp.float32)
    k = my_add()
    k((5,), (5,), (x1, x2, y))   # grid, block and arguments, as in the guide
    assert_parity(y, h + h, kind="exact")
    attrs = k.attributes
    assert attrs["max_threads_per_block"] >= 25 and attrs["num_regs"] > 0


@gpu
def test_doc_raw_module_two_kernels():
    gp = _gp()
    m = sum_and_multiply()
    ker_sum = m.get_function("test_sum")
    ker_times = m.get_function("test_multiply")
    N = 10
    h1 = np.arange(N ** 2, dtype=np.float32).reshape(N, N)
    h2 = random_array((N, N), np.float32, 12)
    x1, x2 = gp.asarray(h1), gp.asarray(h2)
    y = gp.zeros((N, N), dtype=gp.float32)
    ker_sum((N,), (N,), (x1, x2, y, N ** 2))     # y = x1 + x2
    assert_parity(y, h1 + h2, kind="exact")
    ker_times((N,), (N,), (x1, x2, y, N ** 2))   # y = x1 * x2
    assert_parity(y, h1 * h2, kind="exact")
