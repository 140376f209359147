"""matmul, dot, vdot, inner, outer, tensordot, einsum, kron against NumPy.

CPU (no GPU needed): the integer/bool kernel compiles with NVRTC for every
dtype; the cuBLAS argument plan (ops, leading dimensions, operand swap) is
checked by emulating column-major GEMM with NumPy on the same buffers for
every layout pair; the batch-stride rule; einsum's subscript parser and its
error messages against NumPy's.

GPU (marked ``gpu``): values, dtypes and shapes against NumPy for every
dtype (cuBLAS path and integer kernel run the same tests), batched
broadcasting, 1-D promotion, empty and k=0, non-contiguous and negative
strides, ``out=``/``dtype=``/``@=``, and NumPy's exceptions for bad input.
Float tolerances: a k-term dot product in float32 carries ~k ulp of
rounding in either library (different summation orders), so ``rtol`` is
scaled by k; float16 accumulates in float32 on both sides and is rounded
once (rtol 2e-3).
"""

import itertools

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

from gpuscipy_core._kernel._nvrtc import compile_cubin
from gpuscipy_core._routines import _einsum as E
from gpuscipy_core._routines import _linalg as L

from ._parity import ALL_DTYPES, assert_parity, assert_raises_like, dtype_id, random_array

gpu = pytest.mark.gpu

INT_KERNEL_DTYPES = ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]


# ================================================================ CPU

@pytest.mark.parametrize("dtype", INT_KERNEL_DTYPES)
def test_int_kernel_compiles(dtype):
    src, name = L.int_matmul_source(dtype)
    assert name == f"gs_matmul_{np.dtype(dtype).name}"
    assert compile_cubin(src, name)


def test_int_kernel_source_rejects_inexact():
    with pytest.raises(TypeError):
        L.int_matmul_source(np.float32)


def _matrix(base, rows, cols, kind, it, rng):
    """A rows x cols view into ``base`` (1-D) with layout ``kind``; element
    offset random. Returns (view, (sr, sc) in bytes)."""
    off = int(rng.integers(0, 3))
    if kind == "C":
        st = (max(cols, 1) * it, it)
    elif kind == "F":
        st = (it, max(rows, 1) * it)
    elif kind == "Cpad":
        st = ((cols + 3) * it, it)
    elif kind == "Fpad":
        st = (it, (rows + 2) * it)
    elif kind == "step":
        st = (2 * cols * it, 2 * it)
    else:
        raise AssertionError(kind)
    v = as_strided(base[off:], shape=(rows, cols), strides=st)
    return v, st, off


def _emulate(plan, a_base, a_off, b_base, b_off, c_base, c_off, it):
    """Column-major GEMM as cuBLAS defines it, on the raw buffers."""
    swap, opx, opy, mm, nn, kk, ldx, ldy, ldc = plan
    (xb, xo), (yb, yo) = ((b_base, b_off), (a_base, a_off)) if swap else \
        ((a_base, a_off), (b_base, b_off))

    def stored(buf, off, rows, cols, ld):
        return as_strided(buf[off:], shape=(rows, cols), strides=(it, ld * it))

    x = stored(xb, xo, mm, kk, ldx) if opx == "N" else stored(xb, xo, kk, mm, ldx).T
    y = stored(yb, yo, kk, nn, ldy) if opy == "N" else stored(yb, yo, nn, kk, ldy).T
    # cuBLAS's documented requirements on the leading dimensions
    assert ldx >= max(1, mm if opx == "N" else kk)
    assert ldy >= max(1, kk if opy == "N" else nn)
    assert ldc >= max(1, mm)
    c = as_strided(c_base[c_off:], shape=(mm, nn), strides=(it, ldc * it))
    c[...] = x @ y


KINDS = ["C", "F", "Cpad", "Fpad", "step"]


@pytest.mark.parametrize("shape", [(3, 4, 5), (1, 4, 5), (3, 1, 5), (3, 4, 1), (1, 1, 1),
                                   (5, 1, 1), (1, 6, 1), (1, 1, 7)], ids=str)
def test_gemm_plan_matches_numpy(shape):
    m, k, n = shape
    rng = np.random.default_rng(0)
    it = 8
    for ka, kb, kc in itertools.product(KINDS, KINDS, KINDS[:4]):
        size = 4 * (m + 3) * (k + 3) * (n + 3) + 8
        a_base = rng.standard_normal(size)
        b_base = rng.standard_normal(size)
        c_base = np.full(size, np.nan)
        a, sa, ao = _matrix(a_base, m, k, ka, it, rng)
        b, sb, bo = _matrix(b_base, k, n, kb, it, rng)
        c, sc, co = _matrix(c_base, m, n, kc, it, rng)
        la = L.layout_of(m, k, *sa, it)
        lb = L.layout_of(k, n, *sb, it)
        lc = L.layout_of(m, n, *sc, it)
        assert lc is not None
        if ka == "step" and m > 1 and k > 1:
            assert la is None
        if kb == "step" and k > 1 and n > 1:
            assert lb is None
        if la is None or lb is None:
            continue   # the engine copies these operands first
        plan = L.gemm_plan(m, n, k, la, lb, lc)
        _emulate(plan, a_base, ao, b_base, bo, c_base, co, it)
        np.testing.assert_allclose(c, a @ b, rtol=1e-13, atol=1e-13,
                                   err_msg=f"layouts {ka} {kb} {kc} plan {plan}")


@pytest.mark.parametrize("case", [
    # rows, cols, sr, sc (bytes, itemsize 4), expected
    (3, 4, 16, 4, ("R", 4)),
    (3, 4, 4, 12, ("C", 3)),
    (3, 4, 32, 4, ("R", 8)),
    (3, 4, 8, 8, None),           # neither stride is the element size
    (3, 4, -16, 4, None),          # negative row stride
    (3, 4, 16, -4, None),
    (3, 4, 0, 4, None),            # broadcast rows
    (1, 4, 0, 4, ("R", 4)),        # one row: its stride is irrelevant
    (3, 1, 4, 0, ("R", 1)),
    (1, 4, 4, 8, ("C", 2)),        # a strided row vector as a 1 x k column-major
    (3, 4, 6, 4, None),            # not a multiple of the item size
], ids=str)
def test_layout_of(case):
    rows, cols, sr, sc, expected = case
    assert L.layout_of(rows, cols, sr, sc, 4) == expected


@pytest.mark.parametrize("case", [
    ((), (), 0),
    ((5,), (24,), 24),
    ((5,), (0,), 0),
    ((2, 3), (72, 24), 24),
    ((2, 3), (0, 24), None),
    ((2, 3), (24, 0), None),
    ((2, 1, 3), (72, 999, 24), 24),
    ((1, 1), (5, 7), 0),
    ((4,), (-8,), None),
], ids=str)
def test_uniform_stride(case):
    shape, strides, expected = case
    assert L._uniform_stride(shape, strides) == expected


EINSUM_PARSE = [
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ba", [(2, 3)]),
    ("Ab,bA", [(2, 3), (3, 2)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("...ij,...jk", [(5, 2, 3), (3, 4)]),
    ("i...,i...->...", [(2, 3, 4), (2, 1, 4)]),
    ("i,i", [(3,), (3,)]),
    ("...", [()]),
    ("ij->", [(2, 3)]),
    ("i j , j k -> i k", [(2, 3), (3, 4)]),
]


def _labels_to_str(labels, nell):
    # ellipsis labels as their position among the broadcast dims
    return [lab if isinstance(lab, str) else f"E{nell - lab[1]}" for lab in labels]


@pytest.mark.parametrize("subs, shapes", EINSUM_PARSE, ids=[c[0] for c in EINSUM_PARSE])
def test_einsum_parse_output_rank(subs, shapes):
    inputs, output = E._parse_einsum(subs, shapes)
    assert [len(x) for x in inputs] == [len(s) for s in shapes]
    expected = np.einsum(subs, *[np.ones(s) for s in shapes])
    assert len(output) == np.ndim(expected)
    # implicit outputs are sorted letters after the broadcast dims
    if "->" not in subs:
        letters = [lab for lab in output if isinstance(lab, str)]
        assert letters == sorted(letters)


EINSUM_BAD = [
    ("ijk", [(2, 3)]),
    ("ij", [(2, 3, 4)]),
    ("ij,ij->ii", [(2, 3), (2, 3)]),
    ("ij->k", [(2, 3)]),
    ("ij", [(2, 3), (2, 3)]),
    ("ij,jk", [(2, 3)]),
    ("i$", [(2, 3)]),
    ("...i->i", [(2, 3)]),
    ("i.j", [(2, 3)]),
    ("ij->i->j", [(2, 3)]),
    ("ij-k", [(2, 3)]),
]


@pytest.mark.parametrize("subs, shapes", EINSUM_BAD, ids=[c[0] for c in EINSUM_BAD])
def test_einsum_parse_errors_like_numpy(subs, shapes):
    with pytest.raises(Exception) as np_info:
        np.einsum(subs, *[np.ones(s) for s in shapes])
    with pytest.raises(type(np_info.value)) as info:
        E._parse_einsum(subs, shapes)
    # the same first words as NumPy's message
    assert str(info.value).split()[:3] == str(np_info.value).split()[:3], \
        (str(info.value), str(np_info.value))


def test_einsum_sublist_form():
    s, ops = E._einsum_args("x", [1])
    assert s == "x"
    s, ops = E._einsum_args(10, [[0, 1], 20, [1, 2], [0, 2]])
    assert s == "ab,bc->ac" and ops == [10, 20]
    s, ops = E._einsum_args(10, [[Ellipsis, 0], 20, [0, Ellipsis]])
    assert s == "...a,a..." and ops == [10, 20]
    with pytest.raises(ValueError):
        E._einsum_args(10, [[0, 52]])


# ---------------------------------------------------------------- emulated device
#
# The whole Python path of every function (argument checks, layouts, casts,
# batching, overlap handling, the cuBLAS and kernel argument lists) runs on
# the CPU: device arrays are NumPy arrays with a ``ptr``, and the cuBLAS
# entry points and the integer kernel are replaced by NumPy emulations that
# read and write raw memory exactly as the real calls define it.

class _HostArray(np.ndarray):
    """A NumPy array standing in for a device array."""

    @property
    def ptr(self):
        return self.__array_interface__["data"][0]


def _h(x):
    return np.asarray(x).view(_HostArray)


def _raw(ptr, dt, rows, cols, ld, stride, batch):
    """(batch, rows, cols) column-major matrices at ``ptr`` (elements)."""
    import ctypes
    it = dt.itemsize
    lo = min(0, (batch - 1) * stride)
    hi = max(0, (batch - 1) * stride) + (cols - 1) * ld + rows
    buf = np.frombuffer((ctypes.c_char * ((hi - lo) * it)).from_address(ptr + lo * it), dt)
    return as_strided(buf[-lo:], (batch, rows, cols), (stride * it, it, ld * it))


def _scalar(ptr, dt):
    import ctypes
    return np.frombuffer((ctypes.c_char * dt.itemsize).from_address(ptr), dt)[0]


CALLS = []


def _fake_gemm(dt, compute=None, batched=True, ex=False):
    dt = np.dtype(dt)

    def f(h, ta, tb, m, n, k, alpha, A, *rest):
        from gpuscipy_core.libs import cublas
        from gpuscipy_core import libs as libs_types
        assert h == 12345
        if ex:
            types = (0, 4, 9) if batched else (0, 3, 7)
            assert all(rest[i] == libs_types.CUDA_R_16F for i in types)
            rest = [r for i, r in enumerate(rest) if i not in types]   # drop types
            assert rest[-2:] == [cublas.CUBLAS_COMPUTE_32F, cublas.CUBLAS_GEMM_DEFAULT]
            rest = rest[:-2]   # drop computeType, algo
        if batched:
            lda, sa, B, ldb, sb, beta, C, ldc, sc, count = rest
        else:
            lda, B, ldb, beta, C, ldc = rest
            sa = sb = sc = 0
            count = 1
        N = cublas.CUBLAS_OP_N
        assert lda >= max(1, m if ta == N else k)
        assert ldb >= max(1, k if tb == N else n)
        assert ldc >= max(1, m)
        x = _raw(A, dt, m, k, lda, sa, count) if ta == N else \
            _raw(A, dt, k, m, lda, sa, count).transpose(0, 2, 1)
        y = _raw(B, dt, k, n, ldb, sb, count) if tb == N else \
            _raw(B, dt, n, k, ldb, sb, count).transpose(0, 2, 1)
        c = _raw(C, dt, m, n, ldc, sc, count)
        cdt = np.dtype(compute or dt)
        a_ = _scalar(alpha, cdt)
        assert _scalar(beta, cdt) == 0
        c[...] = (a_ * (x.astype(cdt) @ y.astype(cdt))).astype(dt)
        CALLS.append(("gemm", dt.char, count))
    return f


class _FakeKernel:
    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        a, b, c, m, n, k, batch, *st = args
        assert block == (16, 16, 1) and grid[1] <= 65535 and grid[2] <= 65535
        it = c.itemsize
        av = as_strided(a, (batch, m, k), tuple(s * it for s in st[0:3]))
        bv = as_strided(b, (batch, k, n), tuple(s * it for s in st[3:6]))
        cv = as_strided(c, (batch, m, n), tuple(s * it for s in st[6:9]))
        wide = av.astype(np.int64).astype(np.uint64) @ bv.astype(np.int64).astype(np.uint64)
        cv[...] = (wide != 0) if c.dtype == np.bool_ else wide.astype(c.dtype)
        CALLS.append(("kernel", c.dtype.char, batch))


@pytest.fixture
def emulated(monkeypatch):
    """Run _linalg on host arrays with emulated cuBLAS and kernel."""
    from gpuscipy_core import libs
    from gpuscipy_core.libs import cublas
    from gpuscipy_core._kernel import _module
    from gpuscipy_core._routines import _math, _reduction
    monkeypatch.setattr(L, "ndarray", _HostArray)
    monkeypatch.setattr(L, "_strided_view",
                        lambda a, shape, strides, ptr: _h(as_strided(a, shape, strides)))
    monkeypatch.setattr(L, "_empty", lambda shape, dt: np.empty(shape, dt).view(_HostArray))
    monkeypatch.setattr(L, "_fill", lambda x, v: x.fill(v))
    monkeypatch.setattr(L, "_asarray", lambda x: x if isinstance(x, _HostArray) else _h(x))
    monkeypatch.setattr(L, "_multiply",
                        lambda a, b, out=None: _h(np.multiply(a, b, out=out)))
    monkeypatch.setattr(_math, "conj", lambda x, out=None: _h(np.conj(x)))
    monkeypatch.setattr(_reduction, "sum",
                        lambda x, axis=None, dtype=None: _h(np.sum(x, axis=axis, dtype=dtype)))
    monkeypatch.setattr(_reduction, "any", lambda x, axis=None: _h(np.any(x, axis=axis)))
    monkeypatch.setattr(libs, "get_handle", lambda name: 12345)
    for ch, t in zip("SDCZ", "fdFD"):
        monkeypatch.setattr(cublas, f"cublas{ch}gemm_v2", _fake_gemm(t, batched=False))
        monkeypatch.setattr(cublas, f"cublas{ch}gemmStridedBatched", _fake_gemm(t))
    monkeypatch.setattr(cublas, "cublasGemmEx", _fake_gemm("e", "f", False, True))
    monkeypatch.setattr(cublas, "cublasGemmStridedBatchedEx", _fake_gemm("e", "f", True, True))
    monkeypatch.setattr(_module, "get_function", lambda src, name, options=(): _FakeKernel())
    CALLS.clear()
    yield CALLS


def _emu_tol(dt, k):
    dt = np.dtype(dt)
    if dt.kind in "biu":
        return {}
    return {"e": dict(rtol=2e-3, atol=2e-3 * k), "f": dict(rtol=1e-5, atol=1e-5 * k),
            "F": dict(rtol=1e-5, atol=1e-5 * k)}.get(dt.char, dict(rtol=1e-12, atol=1e-12 * k))


def _cmp(got, want, **tol):
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, **tol)


def _views(h):
    """Layouts of one host array: name -> view builder (same values)."""
    def transposed(x):
        return np.ascontiguousarray(np.swapaxes(x, -1, -2)).swapaxes(-1, -2) \
            if x.ndim >= 2 else x

    def step(x):
        if x.ndim >= 2:
            return np.repeat(np.repeat(x, 2, axis=-1), 2, axis=-2)[..., ::2, ::2]
        return np.repeat(x, 2)[::2]

    return {
        "C": lambda x: x,
        "T": transposed,
        "slice": lambda x: np.pad(x, [(0, 0)] * (x.ndim - 1) + [(0, 3)])[..., :x.shape[-1]],
        "neg": lambda x: np.flip(np.flip(x, -1).copy(), -1),
        "step": step,
    }


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", [
    ((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 3)), ((3, 4), (4,)), ((2, 3, 4), (4, 5)),
    ((4,), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((0, 4), (4, 3)), ((3, 0), (0, 5)),
    ((1, 1), (1, 1)), ((17, 33), (33, 9))], ids=str)
def test_emulated_matmul(emulated, shapes, dtype):
    ha, hb = _rand(shapes[0], dtype, 1), _rand(shapes[1], dtype, 2)
    with np.errstate(all="ignore"):
        want = np.matmul(ha, hb)
    for va, vb in [("C", "C"), ("T", "slice"), ("step", "neg"), ("slice", "T")]:
        xa, xb = _views(ha)[va](_h(ha)), _views(hb)[vb](_h(hb))
        np.testing.assert_array_equal(xa, ha)
        np.testing.assert_array_equal(xb, hb)
        _cmp(L.matmul(xa, xb), want, **_emu_tol(dtype, ha.shape[-1]))


def test_emulated_matmul_paths(emulated):
    """Which call runs: one strided-batched call for a uniform batch,
    split calls otherwise, the kernel for integers."""
    ha, hb = _rand((6, 3, 4), "f8", 3), _rand((4, 5), "f8", 4)
    _cmp(L.matmul(_h(ha), _h(hb)), ha @ hb, rtol=1e-12)
    assert emulated[-1] == ("gemm", "d", 6)
    emulated.clear()
    # non-uniform batch: (3, 2) batch of a transposed-batch operand
    hc = _rand((3, 2, 4, 5), "c16", 5)
    xc = _h(np.ascontiguousarray(hc.transpose(1, 0, 2, 3))).transpose(1, 0, 2, 3)
    hd = _rand((2, 5, 3), "c16", 6)
    _cmp(L.matmul(xc, _h(hd)), hc @ hd, rtol=1e-12)
    assert emulated == [("gemm", "D", 2)] * 3
    emulated.clear()
    _cmp(L.matmul(_h(ha.astype("i2")), _h(hb.astype("i2"))),
         ha.astype("i2") @ hb.astype("i2"))
    assert emulated == [("kernel", "h", 6)]


@pytest.mark.parametrize("pair", [("f4", "f8"), ("i1", "u1"), ("?", "i4"), ("i8", "f4"),
                                  ("c8", "f8"), ("e", "f4"), ("u8", "i8"), ("?", "?")],
                         ids=str)
def test_emulated_mixed_dtypes_and_dtype_arg(emulated, pair):
    ha, hb = _rand((3, 5), pair[0], 3), _rand((5, 2), pair[1], 4)
    want = np.matmul(ha, hb)
    _cmp(L.matmul(_h(ha), _h(hb)), want, **_emu_tol(want.dtype, 5))
    want = np.matmul(ha, hb, dtype="c16")
    _cmp(L.matmul(_h(ha), _h(hb), dtype="c16"), want, **_emu_tol("c16", 5))


def test_emulated_operator(emulated):
    ha, hb = _rand((3, 4), "f8", 1), _rand((4, 2), "f8", 2)
    _cmp(L._matmul_operator(_h(ha), hb, False), ha @ hb, rtol=1e-12)
    _cmp(L._matmul_operator(_h(hb), ha, True), ha @ hb, rtol=1e-12)
    _cmp(L._matmul_operator(_h(ha), hb.tolist(), False), ha @ hb, rtol=1e-12)
    for bad in ("x", object(), np.array(["a"]), ["a", "b"], None):
        assert L._matmul_operator(_h(ha), bad, False) is NotImplemented
        assert L._matmul_operator(_h(ha), bad, True) is NotImplemented
    with pytest.raises(ValueError, match="does not have enough dimensions"):
        L._matmul_operator(_h(ha), 2.0, False)


@pytest.mark.parametrize("dtype", ["f8", "i4", "c8"])
def test_emulated_out_alias_and_cast(emulated, dtype):
    ha, hb = _rand((4, 4), dtype, 7), _rand((4, 4), dtype, 8)
    xa = _h(ha.copy())
    r = L.matmul(xa, _h(hb), out=xa)          # a @= b
    assert r is xa
    _cmp(xa, ha @ hb, **_emu_tol(dtype, 4))
    out = _h(np.zeros((4, 4), "c16")).T
    assert L.matmul(_h(ha), _h(hb), out=out) is out
    _cmp(out, (ha @ hb).astype("c16"), **_emu_tol(dtype, 4))
    with pytest.raises(TypeError, match="output"):
        L.matmul(_h(ha), _h(hb), out=_h(np.zeros((4, 4), "?")))
    with pytest.raises(ValueError, match="core dimension 1"):
        L.matmul(_h(ha), _h(hb), out=_h(np.zeros((4, 5), dtype)))


@pytest.mark.parametrize("shapes", [((), (3, 3)), ((2, 3), (4, 5)), ((2, 2, 3), (3, 3, 2)),
                                    ((3,), (4,))], ids=str)
def test_emulated_matmul_errors(emulated, shapes):
    ha, hb = np.ones(shapes[0]), np.ones(shapes[1])
    npe, gpe = assert_raises_like(lambda: np.matmul(ha, hb),
                                  lambda: L.matmul(_h(ha), _h(hb)))
    assert str(gpe) == str(npe)


@pytest.mark.parametrize("dtype", ["f8", "c16", "i2", "?", "f4"])
@pytest.mark.parametrize("shapes", [((), (3,)), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 3)),
                                    ((3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)),
                                    ((3, 4), (2, 4, 5)), ((0, 4), (3, 4, 2))], ids=str)
def test_emulated_dot(emulated, shapes, dtype):
    ha, hb = _rand(shapes[0], dtype, 20), _rand(shapes[1], dtype, 21)
    with np.errstate(all="ignore"):
        want = np.dot(ha, hb)
    _cmp(L.dot(_h(ha), _h(hb)), want, **_emu_tol(dtype, 4))
    if len(shapes[1]) >= 3:
        out = _h(np.empty(want.shape, want.dtype))
        assert L.dot(_h(ha), _h(hb), out=out) is out
        _cmp(out, want, **_emu_tol(dtype, 4))


def test_emulated_dot_errors(emulated):
    for sa, sb in [((2, 3), (4, 5)), ((3,), (4,)), ((2, 3), (4,)), ((2, 3), (2, 4, 3))]:
        npe, gpe = assert_raises_like(lambda: np.dot(np.ones(sa), np.ones(sb)),
                                      lambda: L.dot(_h(np.ones(sa)), _h(np.ones(sb))))
        assert str(gpe) == str(npe)
    with pytest.raises(ValueError, match="output array is not acceptable"):
        L.dot(_h(np.ones((2, 3))), _h(np.ones((3, 4))), out=_h(np.ones((4, 2))).T)


@pytest.mark.parametrize("dtype", ["f8", "c16", "i4", "?"])
def test_emulated_vdot_inner_outer_kron_tensordot(emulated, dtype):
    ha, hb = _rand((3, 4), dtype, 24), _rand((12,), dtype, 25)
    tol = _emu_tol(dtype, 12)
    _cmp(L.vdot(_h(ha).T, _h(hb)), np.vdot(ha.T, hb), **tol)
    hc = _rand((5, 4), dtype, 26)
    _cmp(L.inner(_h(ha), _h(hc)), np.inner(ha, hc), **tol)
    _cmp(L.inner(_h(ha[0]), _h(hc[1])), np.inner(ha[0], hc[1]), **tol)
    _cmp(L.outer(_h(ha), _h(hb)), np.outer(ha, hb), **tol)
    _cmp(L.kron(_h(ha), _h(hb)), np.kron(ha, hb), **tol)
    _cmp(L.kron(_h(ha[0, 0]), _h(hb)), np.kron(ha[0, 0], hb), **tol)
    for sa, sb, axes in TENSORDOT_CASES:
        x, y = _rand(sa, dtype, 30), _rand(sb, dtype, 31)
        _cmp(L.tensordot(_h(x), _h(y), axes), np.tensordot(x, y, axes),
             **_emu_tol(dtype, 20))


@pytest.mark.parametrize("dtype", ["f8", "c16", "i1", "?"])
def test_emulated_einsum(emulated, dtype):
    for subs, shapes in EINSUM_CASES:
        hs = [_rand(sh, dtype, 40 + i) for i, sh in enumerate(shapes)]
        with np.errstate(all="ignore"):
            want = np.asarray(np.einsum(subs, *hs))
        got = L.einsum(subs, *[_h(x) for x in hs])
        try:
            _cmp(got, want, **_emu_tol(dtype, 60))
        except AssertionError as e:
            raise AssertionError(f"{subs} {shapes}: {e}") from None


def test_emulated_einsum_dtype_and_out(emulated):
    ha, hb = _rand((3, 4), "f4", 52), _rand((4, 2), "f4", 53)
    _cmp(L.einsum("ij,jk->ik", _h(ha), _h(hb), dtype="f8"),
         np.einsum("ij,jk->ik", ha, hb, dtype="f8"), rtol=1e-12)
    out = _h(np.empty((3, 2), "f8"))
    assert L.einsum("ij,jk->ik", _h(ha), _h(hb), out=out) is out
    with pytest.raises(TypeError):
        L.einsum("ij,jk", _h(ha.astype("f8")), _h(hb), dtype="f4")
    _cmp(L.einsum(_h(ha), [0, 1], _h(hb), [1, 2], [2, 0]),
         np.einsum(ha, [0, 1], hb, [1, 2], [2, 0]), rtol=1e-5)


# ================================================================ GPU

def _gp():
    import gpuscipy_core as gp
    return gp


def _tol(dtype, k):
    dt = np.dtype(dtype)
    if dt.kind in "biu":
        return {}
    eps = {"e": 2e-3, "f": 2e-6, "F": 2e-6, "d": 4e-15, "D": 4e-15}[dt.char]
    if dt.char == "e":
        return {"rtol": 2e-3, "atol": 2e-3 * max(k, 1)}
    # inputs in [-10, 10): |terms| <= 100, so an absolute floor of k*100*eps
    return {"rtol": eps * max(k, 1), "atol": eps * 100 * max(k, 1)}


def _rand(shape, dtype, seed):
    dt = np.dtype(dtype)
    if dt.kind == "f" or dt.kind == "c":
        return random_array(shape, dt, seed, low=-2, high=2)
    if dt.kind in "iu":
        # full range: products and sums wrap around, as in NumPy
        return random_array(shape, dt, seed, full_range=True)
    return random_array(shape, dt, seed)


def _check_matmul(ha, hb, **kw):
    gp = _gp()
    with np.errstate(all="ignore"):
        expected = np.matmul(ha, hb)
    r = gp.matmul(gp.asarray(ha), gp.asarray(hb), **kw)
    k = ha.shape[-1]
    assert_parity(r, expected, **_tol(expected.dtype, k))
    return r


MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((1, 1), (1, 1)),
    ((17, 33), (33, 9)),          # not multiples of the integer kernel's tile
    ((4,), (4,)),                 # 1-D x 1-D -> 0-d
    ((4,), (4, 3)),
    ((3, 4), (4,)),
    ((2, 3, 4), (4, 5)),          # batch x matrix
    ((4,), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),    # batch broadcasting both ways
    ((0, 4), (4, 3)),             # empty
    ((3, 0), (0, 5)),             # k = 0: zeros
    ((2, 0, 3), (3, 4)),          # empty batch
    ((3, 4), (4, 0)),
]


@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_parity(shapes, dtype):
    _check_matmul(_rand(shapes[0], dtype, 1), _rand(shapes[1], dtype, 2))


@gpu
@pytest.mark.parametrize("pair", [("f4", "f8"), ("i1", "u1"), ("?", "i4"), ("i8", "f4"),
                                  ("c8", "f8"), ("e", "f4"), ("u8", "i8")], ids=str)
def test_matmul_mixed_dtypes(pair):
    _check_matmul(_rand((3, 5), pair[0], 3), _rand((5, 2), pair[1], 4))


@gpu
@pytest.mark.parametrize("dtype", ["f4", "f8", "c8", "c16", "e", "i4", "?"])
@pytest.mark.parametrize("layout", ["T", "TT", "slice", "neg", "stepcol", "broadcast0"])
def test_matmul_layouts(dtype, layout):
    """Views the cuBLAS plan reads in place (transposes, padded rows) and
    ones it must copy (negative strides, step in both axes)."""
    gp = _gp()
    ha = _rand((6, 10), dtype, 5)
    hb = _rand((10, 7), dtype, 6)
    ga, gb = gp.asarray(ha), gp.asarray(hb)
    if layout == "T":
        pa, pb = ha.T.copy().T, hb
        xa, xb = gp.asarray(ha.T.copy()).T, gb
    elif layout == "TT":
        pa, pb = ha.T.copy().T, hb.T.copy().T
        xa, xb = gp.asarray(ha.T.copy()).T, gp.asarray(hb.T.copy()).T
    elif layout == "slice":
        pa, pb = ha[1:5, 2:9], hb[2:9, 1:4]
        xa, xb = ga[1:5, 2:9], gb[2:9, 1:4]
    elif layout == "neg":
        pa, pb = ha[::-1, ::-1], hb[::-1]
        xa, xb = ga[::-1, ::-1], gb[::-1]
    elif layout == "stepcol":
        pa, pb = ha[::2, ::2], hb[::2, ::3]
        xa, xb = ga[::2, ::2], gb[::2, ::3]
    else:
        pa = np.broadcast_to(ha[None], (3, 6, 10))
        pb = hb[None, :, :]
        xa = gp.broadcast_to(ga[None], (3, 6, 10))
        xb = gb[None, :, :]
    with np.errstate(all="ignore"):
        expected = pa @ pb
    assert_parity(xa @ xb, expected, **_tol(expected.dtype, pa.shape[-1]))


@gpu
def test_matmul_non_uniform_batch_strides():
    """A batch whose operands have no single batch stride is split."""
    gp = _gp()
    ha = _rand((3, 1, 4, 5), "f8", 7)
    hb = _rand((1, 2, 5, 3), "f8", 8)
    ga = gp.asarray(np.ascontiguousarray(ha.transpose(1, 0, 2, 3))).transpose(1, 0, 2, 3)
    assert_parity(gp.matmul(ga, gp.asarray(hb)), ha @ hb, rtol=1e-13)
    hc = _rand((4, 3, 5, 6), "f8", 9)[:, ::2]          # batch stride not uniform
    hd = _rand((4, 2, 6, 3), "i4", 10)
    gc = gp.asarray(_rand((4, 3, 5, 6), "f8", 9))[:, ::2]
    assert_parity(gp.matmul(gc, gp.asarray(hd)), hc @ hd, rtol=1e-13)


@gpu
def test_matmul_batched_large_f64():
    """Many small matrices (the strided-batched call)."""
    _check_matmul(_rand((300, 8, 8), "f8", 11), _rand((300, 8, 8), "f8", 12))
    _check_matmul(_rand((70000, 2, 2), "i2", 11), _rand((70000, 2, 2), "i2", 12))


@gpu
@pytest.mark.parametrize("dtype", ["f8", "i4"])
def test_matmul_out_and_dtype(dtype):
    gp = _gp()
    ha, hb = _rand((3, 4), dtype, 13), _rand((4, 5), dtype, 14)
    ga, gb = gp.asarray(ha), gp.asarray(hb)
    out = gp.empty((3, 5), dtype)
    assert gp.matmul(ga, gb, out=out) is out
    assert_parity(out, ha @ hb, rtol=1e-13)
    # out of another dtype (cast), out as a non-contiguous view
    out2 = gp.zeros((5, 3), "c16").T
    assert gp.matmul(ga, gb, out=out2) is out2
    assert_parity(out2, np.matmul(ha, hb).astype("c16"), rtol=1e-13)
    r = gp.matmul(ga, gb, dtype="f4", casting="unsafe")
    assert_parity(r, np.matmul(ha, hb, dtype="f4", casting="unsafe"), rtol=1e-5, atol=1e-3)
    r = gp.matmul(ga, gb, out=(gp.empty((3, 5), dtype),))
    assert_parity(r, ha @ hb, rtol=1e-13)


@gpu
def test_matmul_in_place_operator_aliases_safely():
    gp = _gp()
    ha, hb = _rand((4, 4), "f8", 15), _rand((4, 4), "f8", 16)
    ga = gp.asarray(ha)
    before = ga
    ga @= gp.asarray(hb)
    assert ga is before
    assert_parity(ga, ha @ hb, rtol=1e-13)
    g2 = gp.asarray(ha)
    gp.matmul(g2, g2, out=g2)
    assert_parity(g2, ha @ ha, rtol=1e-13)


@gpu
def test_matmul_operators():
    gp = _gp()
    ha, hb = _rand((3, 4), "f8", 17), _rand((4, 2), "f8", 18)
    ga = gp.asarray(ha)
    assert_parity(ga @ gp.asarray(hb), ha @ hb, rtol=1e-13)
    assert_parity(ga @ hb, ha @ hb, rtol=1e-13)            # NumPy operand on the right
    # the reflected operator (what Python calls for ``numpy_array @ ga`` when
    # NumPy defers)
    assert_parity(ga.T.__rmatmul__(hb.T), hb.T @ ha.T, rtol=1e-13)
    assert ga.__rmatmul__("x") is NotImplemented
    assert ga.__matmul__(object()) is NotImplemented
    with pytest.raises(TypeError):
        ga @ "x"
    with pytest.raises(TypeError):
        "x" @ ga
    with pytest.raises(ValueError):
        ga @ 2.0


@gpu
@pytest.mark.parametrize("shapes", [((), (3, 3)), ((3, 4), ()), ((2, 3), (4, 5)),
                                    ((2, 2, 3), (3, 3, 2)), ((3,), (4,)), ((3,), (4, 2))],
                         ids=str)
def test_matmul_errors_like_numpy(shapes):
    gp = _gp()
    ha, hb = np.ones(shapes[0]), np.ones(shapes[1])
    npe, gpe = assert_raises_like(lambda: np.matmul(ha, hb),
                                  lambda: gp.matmul(gp.asarray(ha), gp.asarray(hb)))
    assert str(gpe).split(":")[0] == str(npe).split(":")[0]


@gpu
def test_matmul_out_and_casting_errors():
    gp = _gp()
    ha, hb = np.ones((2, 3)), np.ones((3, 4))
    ga, gb = gp.asarray(ha), gp.asarray(hb)
    assert_raises_like(lambda: np.matmul(ha, hb, out=np.ones((2, 4), np.int64)),
                       lambda: gp.matmul(ga, gb, out=gp.ones((2, 4), np.int64)),
                       match="Cannot cast ufunc 'matmul' output")
    assert_raises_like(lambda: np.matmul(ha, hb, out=np.ones((2, 5))),
                       lambda: gp.matmul(ga, gb, out=gp.ones((2, 5))),
                       match="core dimension 1")
    assert_raises_like(lambda: np.matmul(ha, hb, dtype=np.int64),
                       lambda: gp.matmul(ga, gb, dtype=np.int64),
                       match="input 0")


@gpu
def test_matmul_special_values():
    gp = _gp()
    ha = np.array([[1.0, np.inf], [np.nan, 2.0]])
    hb = np.array([[1.0, 0.0], [2.0, 3.0]])
    assert_parity(gp.matmul(gp.asarray(ha), gp.asarray(hb)), ha @ hb)


# ---------------------------------------------------------------- dot & co

DOT_SHAPES = [((), (3,)), ((3,), ()), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 3)),
              ((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)),
              ((3, 4), (2, 4, 5)), ((0, 4), (3, 4, 2)), ((3, 0), (0, 2))]


@gpu
@pytest.mark.parametrize("dtype", ["f4", "f8", "c16", "i2", "?", "e"])
@pytest.mark.parametrize("shapes", DOT_SHAPES, ids=str)
def test_dot_parity(shapes, dtype):
    gp = _gp()
    ha, hb = _rand(shapes[0], dtype, 20), _rand(shapes[1], dtype, 21)
    with np.errstate(all="ignore"):
        expected = np.dot(ha, hb)
    k = ha.shape[-1] if ha.ndim else 1
    assert_parity(gp.dot(gp.asarray(ha), gp.asarray(hb)), expected, **_tol(dtype, k))
    if ha.ndim:
        assert_parity(gp.asarray(ha).dot(gp.asarray(hb)), expected, **_tol(dtype, k))


@gpu
def test_dot_out_and_errors():
    gp = _gp()
    ha, hb = _rand((2, 3, 4), "f8", 22), _rand((5, 4, 6), "f8", 23)
    out = gp.empty((2, 3, 5, 6))
    assert gp.dot(gp.asarray(ha), gp.asarray(hb), out=out) is out
    assert_parity(out, np.dot(ha, hb), rtol=1e-13)
    ga, gb = gp.asarray(np.ones((2, 3))), gp.asarray(np.ones((3, 4)))
    for bad in (gp.empty((2, 4), "f4"), gp.empty((4, 2)).T, gp.empty((2, 5))):
        with pytest.raises(ValueError, match="output array is not acceptable"):
            gp.dot(ga, gb, out=bad)
    for sa, sb in [((2, 3), (4, 5)), ((3,), (4,)), ((2, 3), (4,)), ((2, 3), (2, 4, 3))]:
        npe, gpe = assert_raises_like(lambda: np.dot(np.ones(sa), np.ones(sb)),
                                      lambda: gp.dot(gp.ones(sa), gp.ones(sb)))
        assert str(gpe) == str(npe)


@gpu
@pytest.mark.parametrize("dtype", ["f8", "c8", "c16", "i4", "?"])
def test_vdot(dtype):
    gp = _gp()
    ha, hb = _rand((3, 4), dtype, 24), _rand((12,), dtype, 25)
    ga = gp.asarray(ha)
    assert_parity(gp.vdot(ga, gp.asarray(hb)), np.asarray(np.vdot(ha, hb)), **_tol(dtype, 12))
    # non-contiguous first operand: flattened in C order, conjugated
    assert_parity(gp.vdot(ga.T, gp.asarray(hb)), np.asarray(np.vdot(ha.T, hb)),
                  **_tol(dtype, 12))
    assert_raises_like(lambda: np.vdot(ha, hb[:5]), lambda: gp.vdot(ga, gp.asarray(hb[:5])))


@gpu
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (4, 3)), ((2, 3, 4), (5, 4)),
                                    ((), (2, 3)), ((0, 3), (2, 3))], ids=str)
@pytest.mark.parametrize("dtype", ["f8", "c8", "i8"])
def test_inner(shapes, dtype):
    gp = _gp()
    ha, hb = _rand(shapes[0], dtype, 26), _rand(shapes[1], dtype, 27)
    k = ha.shape[-1] if ha.ndim else 1
    assert_parity(gp.inner(gp.asarray(ha), gp.asarray(hb)), np.asarray(np.inner(ha, hb)),
                  **_tol(dtype, k))


@gpu
def test_inner_error():
    gp = _gp()
    npe, gpe = assert_raises_like(lambda: np.inner(np.ones((2, 3)), np.ones((4, 5))),
                                  lambda: gp.inner(gp.ones((2, 3)), gp.ones((4, 5))))
    assert str(gpe) == str(npe)


@gpu
@pytest.mark.parametrize("dtype", ["f4", "c16", "u1", "?"])
def test_outer(dtype):
    gp = _gp()
    ha, hb = _rand((2, 3), dtype, 28), _rand((4,), dtype, 29)
    with np.errstate(all="ignore"):
        expected = np.outer(ha, hb)
    assert_parity(gp.outer(gp.asarray(ha), gp.asarray(hb)), expected)
    out = gp.empty((6, 4), expected.dtype)
    assert gp.outer(gp.asarray(ha), gp.asarray(hb), out=out) is out
    assert_parity(out, expected)


TENSORDOT_CASES = [((3, 4, 5), (4, 5, 2), 2), ((3, 4), (4, 5), 1), ((3, 4), (5,), 0),
                   ((3, 4, 5), (5, 3, 2), ([0, 2], [1, 0])), ((2, 3), (3, 2), ([1], [0])),
                   ((2, 3), (3, 2), (1, 0)), ((2, 3, 4), (4, 3, 2), ([-1, -2], [0, 1])),
                   ((0, 3), (3, 2), 1)]


@gpu
@pytest.mark.parametrize("case", TENSORDOT_CASES, ids=str)
@pytest.mark.parametrize("dtype", ["f8", "c16", "i4"])
def test_tensordot(case, dtype):
    gp = _gp()
    sa, sb, axes = case
    ha, hb = _rand(sa, dtype, 30), _rand(sb, dtype, 31)
    expected = np.tensordot(ha, hb, axes)
    assert_parity(gp.tensordot(gp.asarray(ha), gp.asarray(hb), axes), expected,
                  **_tol(dtype, 20))


@gpu
def test_tensordot_errors():
    gp = _gp()
    for sa, sb, axes in [((2, 3), (4, 5), 2), ((2, 3), (4, 5), ([1], [0])),
                         ((2, 3), (3, 5), ([1, 0], [0]))]:
        assert_raises_like(lambda: np.tensordot(np.ones(sa), np.ones(sb), axes),
                           lambda: gp.tensordot(gp.ones(sa), gp.ones(sb), axes),
                           match="shape-mismatch for sum")


@gpu
@pytest.mark.parametrize("shapes", [((2, 3), (4, 5)), ((2,), (3, 4)), ((2, 2, 2), (3,)),
                                    ((), (3,)), ((0, 2), (2, 2))], ids=str)
@pytest.mark.parametrize("dtype", ["f8", "i4", "c8", "?"])
def test_kron(shapes, dtype):
    gp = _gp()
    ha, hb = _rand(shapes[0], dtype, 32), _rand(shapes[1], dtype, 33)
    assert_parity(gp.kron(gp.asarray(ha), gp.asarray(hb)), np.asarray(np.kron(ha, hb)))


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("ji,jk->ki", [(4, 3), (4, 5)]),
    ("i,i", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,ij->", [(3, 4), (3, 4)]),
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("iij->ji", [(3, 3, 2)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...i,...i", [(2, 3), (4, 1, 3)]),
    ("ij,j->i", [(3, 1), (4,)]),                 # size-1 label broadcasts
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ijk,kl,jl->i", [(2, 3, 4), (4, 5), (3, 5)]),
    ("i,i,i->", [(4,), (4,), (4,)]),
    ("ab,cd->abcd", [(2, 3), (4, 1)]),
    ("i,->i", [(3,), ()]),
    ("...", [()]),
    ("ij,jk->ik", [(0, 3), (3, 2)]),
    ("ij,jk->ik", [(2, 0), (0, 3)]),
    ("aab,bc->ac", [(3, 3, 4), (4, 2)]),
]


@gpu
@pytest.mark.parametrize("dtype", ["f8", "f4", "c16", "i4", "i1", "?"])
@pytest.mark.parametrize("case", EINSUM_CASES, ids=[c[0] + str(c[1]) for c in EINSUM_CASES])
def test_einsum(case, dtype):
    gp = _gp()
    subs, shapes = case
    hs = [_rand(s, dtype, 40 + i) for i, s in enumerate(shapes)]
    with np.errstate(all="ignore"):
        expected = np.asarray(np.einsum(subs, *hs))
    r = gp.einsum(subs, *[gp.asarray(h) for h in hs])
    assert_parity(r, expected, **_tol(dtype, 60))


@gpu
def test_einsum_non_contiguous_and_sublists():
    gp = _gp()
    ha = _rand((6, 8), "f8", 50)
    hb = _rand((8, 5), "c16", 51)
    ga, gb = gp.asarray(ha), gp.asarray(hb)
    assert_parity(gp.einsum("ij,jk->ki", ga[::2, ::-1], gb[::-1]),
                  np.einsum("ij,jk->ki", ha[::2, ::-1], hb[::-1]), rtol=1e-13)
    assert_parity(gp.einsum(ga, [0, 1], gb, [1, 2], [2, 0]),
                  np.einsum(ha, [0, 1], hb, [1, 2], [2, 0]), rtol=1e-13)


@gpu
def test_einsum_dtype_out_casting():
    gp = _gp()
    ha, hb = _rand((3, 4), "f4", 52), _rand((4, 2), "f4", 53)
    ga, gb = gp.asarray(ha), gp.asarray(hb)
    r = gp.einsum("ij,jk->ik", ga, gb, dtype="f8")
    assert_parity(r, np.einsum("ij,jk->ik", ha, hb, dtype="f8"), rtol=1e-12)
    out = gp.empty((3, 2), "f8")
    assert gp.einsum("ij,jk->ik", ga, gb, out=out) is out
    assert_parity(out, np.einsum("ij,jk->ik", ha, hb).astype("f8"), rtol=1e-6)
    assert_raises_like(lambda: np.einsum("ij,jk", ha.astype("f8"), hb, dtype="f4"),
                       lambda: gp.einsum("ij,jk", ga.astype("f8"), gb, dtype="f4"))
    assert_raises_like(lambda: np.einsum("ij,jk", ha, hb, out=np.empty((3, 3))),
                       lambda: gp.einsum("ij,jk", ga, gb, out=gp.empty((3, 3))))


@gpu
@pytest.mark.parametrize("subs, shapes", EINSUM_BAD + [("i,i", [(3,), (4,)]),
                                                       ("ii", [(2, 3)])],
                         ids=[c[0] for c in EINSUM_BAD] + ["i,i-mismatch", "ii-mismatch"])
def test_einsum_errors_like_numpy(subs, shapes):
    gp = _gp()
    assert_raises_like(lambda: np.einsum(subs, *[np.ones(s) for s in shapes]),
                       lambda: gp.einsum(subs, *[gp.ones(s) for s in shapes]))


@gpu
def test_numpy_functions_dispatch():
    """``numpy.matmul``/``numpy.dot``/``numpy.einsum`` on device arrays stay on
    the device when the array protocol forwards them."""
    gp = _gp()
    ha, hb = _rand((3, 4), "f8", 60), _rand((4, 2), "f8", 61)
    ga, gb = gp.asarray(ha), gp.asarray(hb)
    for f in (np.matmul, np.dot):
        try:
            r = f(ga, gb)
        except TypeError:
            pytest.skip("NumPy dispatch of this function is not wired")
        assert_parity(r, f(ha, hb), rtol=1e-13)
