"""Array creation and host <-> device transfers against NumPy."""

import warnings

import numpy as np
import pytest

import gpuscipy_core as gp

from ._parity import (ALL_DTYPES, assert_parity, assert_raises_like, dtype_id,
                      random_array, with_specials)

pytestmark = pytest.mark.gpu

SHAPES = [(), 0, 5, (0,), (3, 4), (2, 0, 3), (2, 3, 4), [2, 2]]


def _layout_matches(g, h):
    """Same contiguity flags, and the same strides on every axis longer
    than 1 (other strides are arbitrary; NumPy 2 zeroes those of new empty
    arrays)."""
    assert g.flags.c_contiguous == h.flags.c_contiguous
    assert g.flags.f_contiguous == h.flags.f_contiguous
    if h.size:
        gs = [s for s, n in zip(g.strides, g.shape) if n > 1]
        hs = [s for s, n in zip(h.strides, h.shape) if n > 1]
        assert gs == hs, f"strides {g.strides} != NumPy's {h.strides}"


# ------------------------------------------------------------------ empty/zeros/ones/full

@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_empty_zeros_ones(dtype, shape, order):
    e = gp.empty(shape, dtype=dtype, order=order)
    he = np.empty(shape, dtype=dtype, order=order)
    assert e.shape == he.shape and e.dtype == he.dtype
    _layout_matches(e, he)
    for gfun, nfun in ((gp.zeros, np.zeros), (gp.ones, np.ones)):
        g = gfun(shape, dtype=dtype, order=order)
        h = nfun(shape, dtype=dtype, order=order)
        assert_parity(g, h, kind="exact")
        _layout_matches(g, h)


def test_default_dtype_is_float64():
    for f in (gp.empty, gp.zeros, gp.ones):
        assert f(3).dtype == np.float64
    assert gp.full(3, 1.0).dtype == np.float64


@pytest.mark.parametrize("f", [gp.empty, gp.zeros, gp.ones])
def test_bad_order(f):
    with pytest.raises(ValueError):
        f(3, order="X")


FILL_VALUES = [7, -3, 2.5, True, 1 + 2j, np.float32(1.25), np.int8(-5), np.uint64(2**63),
               np.float16(0.5), np.nan, -np.inf, 2**40]


@pytest.mark.parametrize("value", FILL_VALUES, ids=repr)
def test_full_infers_dtype_like_numpy(value):
    assert_parity(gp.full((2, 3), value), np.full((2, 3), value), kind="exact")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_full_with_dtype(dtype):
    for value in (0, 1, 5, True, 2.75):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h = np.full((4, 2), value, dtype=dtype, order="F")
        g = gp.full((4, 2), value, dtype=dtype, order="F")
        assert_parity(g, h, kind="exact")
        _layout_matches(g, h)


def test_full_errors_like_numpy():
    assert_raises_like(lambda: np.full(3, 300, dtype=np.int8),
                       lambda: gp.full(3, 300, dtype=np.int8))
    assert_raises_like(lambda: np.full(3, -1, dtype=np.uint32),
                       lambda: gp.full(3, -1, dtype=np.uint32))
    with pytest.raises(TypeError):
        gp.full(3, "a")  # NumPy makes a string array


def test_full_with_device_0d_value():
    v = gp.asarray(np.float32(4.5))
    g = gp.full((2, 2), v)
    assert_parity(g, np.full((2, 2), np.float32(4.5)))


LIKE_LAYOUTS = {
    "C": lambda a: a,
    "F": np.asfortranarray,
    "transposed": lambda a: a.T,
    "strided": lambda a: a[::2, ::-1],
}


def _like_source(layout, dtype=np.float32):
    h = random_array((4, 6), dtype, 1)
    if layout == "F":
        h = np.asfortranarray(h)
        return h, gp.asarray(h)
    view = LIKE_LAYOUTS[layout]
    return view(h), view(gp.asarray(h))


@pytest.mark.parametrize("order", ["K", "A", "C", "F"])
@pytest.mark.parametrize("layout", sorted(LIKE_LAYOUTS))
@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like", "full_like"])
def test_like_functions(name, layout, order):
    h, g = _like_source(layout)
    args = (7,) if name == "full_like" else ()
    hr = getattr(np, name)(h, *args, order=order)
    gr = getattr(gp, name)(g, *args, order=order)
    assert gr.shape == hr.shape and gr.dtype == hr.dtype
    if name != "empty_like":
        assert_parity(gr, hr, kind="exact")
    _layout_matches(gr, hr)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_like_functions_dtype_and_shape(dtype):
    h, g = _like_source("C")
    for name in ("zeros_like", "ones_like"):
        assert_parity(getattr(gp, name)(g, dtype=dtype), getattr(np, name)(h, dtype=dtype))
        assert_parity(getattr(gp, name)(g, dtype=dtype, shape=(2, 5)),
                      getattr(np, name)(h, dtype=dtype, shape=(2, 5)))
    assert_parity(gp.full_like(g, 3, dtype=dtype), np.full_like(h, 3, dtype=dtype))
    assert gp.empty_like(g, dtype=dtype).dtype == dtype


def test_full_like_casts_value_to_the_array_dtype():
    h = np.zeros(3, np.int32)
    g = gp.zeros(3, dtype=gp.int32)
    assert_parity(gp.full_like(g, 2.9), np.full_like(h, 2.9))
    assert_raises_like(lambda: np.full_like(np.zeros(2, np.uint8), -1),
                       lambda: gp.full_like(gp.zeros(2, dtype=gp.uint8), -1))


# ------------------------------------------------------------------ arange

ARANGE_CASES = [
    (5,), (0,), (-3,), (0, 10, 3), (10, 0, -2), (10, 0, -3), (-5, 5), (0, -5),
    (1.0, 2.0, 0.1), (-3, 3, 0.5), (0.5, 10.5), (2, 3.5, 0.25), (10, 1, -1.5),
    (0, 1, 1e-3), (np.int8(3),), (np.float32(0.5), 3), (0, 5.5), (2, 7.0),
    (1, 4, 0.5), (5.0,), (0, 10, np.int16(2)),
]


def _ramp_atol(dtype, *endpoints):
    """start + i*step may be fused on the GPU (one rounding instead of two):
    an absolute error of a few ulp of the largest endpoint, which a relative
    tolerance cannot absorb where the ramp crosses zero."""
    dt = np.dtype(dtype)
    if dt.kind not in "fc":
        return None
    scale = max([1.0] + [abs(complex(e)) for e in endpoints if e is not None])
    return 4 * float(np.finfo(dt).eps) * scale


@pytest.mark.parametrize("args", ARANGE_CASES, ids=repr)
def test_arange(args):
    h = np.arange(*args)
    stop = args[0] if len(args) == 1 else args[1]
    assert_parity(gp.arange(*args), h, atol=_ramp_atol(h.dtype, stop, args[0]))


ARANGE_DTYPE_CASES = [
    ((5,), np.float32), ((0, 10, 3), np.int16), ((10, 0, -2), np.int8),
    ((0, 5), np.uint8), ((0.0, 1.0, 0.125), np.float32), ((0, 4), np.complex64),
    ((0, 3, 0.5), np.float16), ((1, 100, 7), np.uint64), ((-4, 4), np.int64),
    ((0, 6), np.float64), ((0, 4), np.complex128), ((2**40, 2**40 + 5), np.int64),
]


@pytest.mark.parametrize("args,dtype", ARANGE_DTYPE_CASES,
                         ids=[f"{a}-{np.dtype(d).name}" for a, d in ARANGE_DTYPE_CASES])
def test_arange_dtype(args, dtype):
    assert_parity(gp.arange(*args, dtype=dtype), np.arange(*args, dtype=dtype),
                  atol=_ramp_atol(dtype, *args))


def test_arange_keyword_forms():
    assert_parity(gp.arange(2, 8, step=2), np.arange(2, 8, step=2))
    assert_parity(gp.arange(1, stop=4), np.arange(1, stop=4))


def test_arange_errors():
    assert_raises_like(lambda: np.arange(0, 5, 0), lambda: gp.arange(0, 5, 0))
    assert_raises_like(lambda: np.arange(0, 5, 0.0), lambda: gp.arange(0, 5, 0.0))


# ------------------------------------------------------------------ linspace / logspace

LINSPACE_CASES = [
    dict(start=0, stop=1, num=5), dict(start=0, stop=1, num=5, endpoint=False),
    dict(start=-2.5, stop=7, num=50), dict(start=3, stop=-3, num=7),
    dict(start=0, stop=1, num=0), dict(start=2, stop=5, num=1),
    dict(start=2, stop=5, num=1, endpoint=False), dict(start=0, stop=10, num=7, dtype=int),
    dict(start=-5, stop=5, num=6, dtype=np.int32), dict(start=0, stop=1, num=11,
                                                         dtype=np.float32),
    dict(start=0, stop=1 + 1j, num=5), dict(start=1e-3, stop=1e3, num=1000),
    dict(start=0, stop=100, num=9, dtype=np.uint8), dict(start=0, stop=2, num=5,
                                                          dtype=np.float16),
    dict(start=5, stop=5, num=4), dict(start=np.float32(0), stop=np.float32(1), num=3),
]


@pytest.mark.parametrize("kw", LINSPACE_CASES, ids=repr)
def test_linspace(kw):
    h = np.linspace(**kw)
    assert_parity(gp.linspace(**kw), h, atol=_ramp_atol(h.dtype, kw["start"], kw["stop"]))


@pytest.mark.parametrize("kw", [dict(start=0, stop=1, num=5), dict(start=0, stop=1, num=5,
                                                                     endpoint=False),
                                dict(start=2, stop=5, num=1), dict(start=0, stop=1, num=0),
                                dict(start=-1, stop=1, num=4, dtype=np.float32)], ids=repr)
def test_linspace_retstep(kw):
    g, gstep = gp.linspace(retstep=True, **kw)
    h, hstep = np.linspace(retstep=True, **kw)
    assert_parity(g, h, atol=_ramp_atol(h.dtype, kw["start"], kw["stop"]))
    if np.isnan(hstep):
        assert np.isnan(gstep)
    else:
        assert gstep == pytest.approx(hstep, rel=1e-15)


def test_linspace_errors():
    assert_raises_like(lambda: np.linspace(0, 1, -1), lambda: gp.linspace(0, 1, -1))
    assert_raises_like(lambda: np.linspace(0, 1, 2.5), lambda: gp.linspace(0, 1, 2.5))


LOGSPACE_CASES = [
    dict(start=0, stop=3, num=4), dict(start=0, stop=3, num=4, endpoint=False),
    dict(start=-2, stop=2, num=9, base=2), dict(start=0, stop=1, num=5, dtype=np.float32),
    dict(start=1, stop=10, num=10, base=np.e), dict(start=0, stop=0, num=0),
]


@pytest.mark.parametrize("kw", LOGSPACE_CASES, ids=repr)
def test_logspace(kw):
    assert_parity(gp.logspace(**kw), np.logspace(**kw), kind="transcendental")


# ------------------------------------------------------------------ eye / identity / diag

EYE_CASES = [dict(N=3), dict(N=3, M=4), dict(N=4, M=3, k=1), dict(N=4, k=-2),
             dict(N=3, k=5), dict(N=3, k=-5), dict(N=0), dict(N=1), dict(N=2, M=0),
             dict(N=5, dtype=int), dict(N=3, dtype=np.complex64),
             dict(N=4, M=6, k=2, dtype=np.bool_), dict(N=4, order="F"),
             dict(N=3, M=5, k=-1, order="F", dtype=np.float16)]


@pytest.mark.parametrize("kw", EYE_CASES, ids=repr)
def test_eye(kw):
    g, h = gp.eye(**kw), np.eye(**kw)
    assert_parity(g, h, kind="exact")
    _layout_matches(g, h)


@pytest.mark.parametrize("dtype", [None, np.bool_, np.int8, np.float32, np.complex128],
                         ids=str)
@pytest.mark.parametrize("n", [0, 1, 4])
def test_identity(n, dtype):
    kw = {} if dtype is None else {"dtype": dtype}
    assert_parity(gp.identity(n, **kw), np.identity(n, **kw), kind="exact")


@pytest.mark.parametrize("k", [-4, -2, -1, 0, 1, 3, 5])
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64, np.bool_], ids=dtype_id)
def test_diag_from_1d(dtype, k):
    h = random_array(4, dtype, 2)
    assert_parity(gp.diag(gp.asarray(h), k), np.diag(h, k), kind="exact")
    assert_parity(gp.diag(gp.asarray(h)[::-2], k), np.diag(h[::-2], k), kind="exact")


@pytest.mark.parametrize("k", [-5, -3, -1, 0, 1, 2, 4, 6])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (0, 3), (1, 1)], ids=str)
def test_diag_from_2d(shape, k):
    h = random_array(shape, np.float32, 3)
    g = gp.asarray(h)
    r = gp.diag(g, k)
    assert_parity(r, np.diag(h, k), kind="exact")
    # non-contiguous input
    assert_parity(gp.diag(g.T, k), np.diag(h.T, k), kind="exact")
    assert_parity(gp.diag(g[::-1, ::2], k), np.diag(h[::-1, ::2], k), kind="exact")


def test_diag_of_host_data_and_errors():
    assert_parity(gp.diag([1, 2, 3]), np.diag([1, 2, 3]))
    assert_raises_like(lambda: np.diag(np.zeros((2, 2, 2))),
                       lambda: gp.diag(gp.zeros((2, 2, 2))))
    assert_raises_like(lambda: np.diag(np.float64(1)), lambda: gp.diag(gp.asarray(1.0)))


# ------------------------------------------------------------------ array / asarray

LIST_CASES = [
    [1, 2, 3], [1.5, 2, 3], [True, False], [1, 2.5j], [[1, 2], [3, 4]], [[[1.0]]],
    [], [[]], [True, 2], [2**62, 1], [2**63, 1], [-1, 2**62], [1.0, np.nan, np.inf],
    [np.float32(1), np.float32(2)], [np.int8(1), 300],
]


@pytest.mark.parametrize("obj", LIST_CASES, ids=repr)
def test_array_from_lists(obj):
    assert_parity(gp.array(obj), np.array(obj), kind="exact")
    assert_parity(gp.asarray(obj), np.asarray(obj), kind="exact")


SCALAR_CASES = [0, -5, 2**40, 2**63, 1.5, True, 2 - 1j, np.float32(2.5), np.int16(-3),
                np.uint8(200), np.bool_(False), np.complex64(1j), np.float16(3)]


@pytest.mark.parametrize("obj", SCALAR_CASES, ids=repr)
def test_array_from_scalars(obj):
    g = gp.asarray(obj)
    assert g.shape == ()
    assert_parity(g, np.asarray(obj), kind="exact")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_array_from_numpy_every_dtype_and_layout(dtype):
    base = random_array((6, 8), dtype, 4)
    if np.dtype(dtype).kind in "fc":
        base = with_specials(base, 4)
    for h in (base, np.asfortranarray(base), base.T, base[::2, ::-3], base[::-1],
              base[:, 1], base[2:3, 4:5], base[:0]):
        g = gp.asarray(h)
        assert_parity(g, h, kind="exact")
        if h.flags.c_contiguous or h.flags.f_contiguous:
            _layout_matches(g, h)
        else:
            assert g.flags.c_contiguous


def test_array_from_numpy_0d_and_big_endian():
    assert_parity(gp.asarray(np.array(3.5)), np.array(3.5))
    h = np.arange(6, dtype=">i4").reshape(2, 3)
    g = gp.asarray(h)
    assert g.dtype == np.dtype("=i4")
    np.testing.assert_array_equal(gp.asnumpy(g), h)


ARRAY_DTYPE_CASES = [
    ([1, 2, 3], np.float32), ([1.7, -2.2], np.int32), ([1, 0, 2], bool),
    (np.arange(4), np.complex64), (np.linspace(0, 1, 5), np.float16), ([[1, 2]], "u2"),
]


@pytest.mark.parametrize("obj,dtype", ARRAY_DTYPE_CASES, ids=repr)
def test_array_dtype_argument(obj, dtype):
    assert_parity(gp.array(obj, dtype=dtype), np.array(obj, dtype=dtype), kind="exact")
    g = gp.asarray(obj)
    assert_parity(gp.array(g, dtype=dtype), np.array(obj).astype(dtype), kind="exact")
    assert_parity(gp.asarray(g, dtype=dtype), np.asarray(np.array(obj), dtype=dtype),
                  kind="exact")


def test_array_errors_like_numpy():
    assert_raises_like(lambda: np.array([1, 300], dtype=np.int8),
                       lambda: gp.array([1, 300], dtype=np.int8))
    assert_raises_like(lambda: np.array([[1], [1, 2]]), lambda: gp.array([[1], [1, 2]]))
    with pytest.raises(TypeError):
        gp.asarray(2**64)          # NumPy makes an object array
    with pytest.raises(TypeError):
        gp.asarray([1, "a"])
    with pytest.raises(TypeError):
        gp.asarray(object())


@pytest.mark.parametrize("ndmin", [0, 1, 2, 4])
def test_array_ndmin(ndmin):
    for obj in (5.0, [1, 2], [[1, 2, 3]]):
        assert_parity(gp.array(obj, ndmin=ndmin), np.array(obj, ndmin=ndmin))
        g = gp.asarray(obj)
        assert_parity(gp.array(g, ndmin=ndmin), np.array(np.asarray(obj), ndmin=ndmin))


@pytest.mark.parametrize("order", ["C", "F", "K", "A"])
def test_array_order(order):
    obj = [[1, 2, 3], [4, 5, 6]]
    g, h = gp.array(obj, order=order), np.array(obj, order=order)
    assert_parity(g, h)
    _layout_matches(g, h)
    hs = np.arange(12.0).reshape(3, 4).T
    gs = gp.asarray(hs)
    g2, h2 = gp.array(gs, order=order), np.array(hs, order=order)
    assert_parity(g2, h2)
    _layout_matches(g2, h2)


def test_array_copy_semantics():
    g = gp.arange(5.0)
    assert gp.asarray(g) is g
    assert gp.array(g, copy=False) is g
    assert gp.array(g, copy=None) is g
    c = gp.array(g)  # copy=True by default
    assert c is not g and c.data.mem is not g.data.mem
    c2 = gp.asarray(g, copy=True)
    assert c2.data.mem is not g.data.mem
    with pytest.raises(ValueError):
        gp.array(g, dtype=np.float32, copy=False)
    with pytest.raises(ValueError):
        gp.array(gp.zeros((3, 4))[:, ::2], order="C", copy=False)
    assert gp.asarray(g, dtype=np.float64) is g


@pytest.mark.parametrize("obj", [[1, 2], np.arange(3), 1.5, np.float32(1)], ids=repr)
def test_copy_false_with_host_data_raises_value_error(obj):
    with pytest.raises(ValueError):
        gp.array(obj, copy=False)
    with pytest.raises(ValueError):
        gp.asarray(obj, copy=False)


def test_asarray_of_host_data_always_copies_to_device():
    h = np.arange(4.0)
    g = gp.asarray(h)
    h[0] = 100
    assert float(g[0]) == 0.0


# ------------------------------------------------------------------ asnumpy

def test_asnumpy():
    h = random_array((3, 4), np.float64, 5)
    g = gp.asarray(h)
    r = gp.asnumpy(g)
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r, h)
    assert gp.asnumpy(h) is h or np.shares_memory(gp.asnumpy(h), h)
    np.testing.assert_array_equal(gp.asnumpy([1, 2]), np.array([1, 2]))
    out = np.empty((3, 4))
    assert gp.asnumpy(g, out=out) is out
    np.testing.assert_array_equal(out, h)
    np.testing.assert_array_equal(gp.asnumpy(g.T[::-1]), h.T[::-1])
    assert gp.asnumpy(gp.asarray(np.float32(2))).shape == ()


@pytest.mark.parametrize("order", ["C", "F"])
def test_asnumpy_order(order):
    h = np.asfortranarray(random_array((3, 4), np.float32, 6))
    r = gp.asnumpy(gp.asarray(h), order=order)
    np.testing.assert_array_equal(r, h)
    assert r.flags[f"{order}_CONTIGUOUS"]


# ------------------------------------------------------------------ contiguity

@pytest.mark.parametrize("layout", sorted(LIKE_LAYOUTS))
def test_ascontiguousarray_and_asfortranarray(layout):
    h, g = _like_source(layout, np.int64)
    for gfun, nfun in ((gp.ascontiguousarray, np.ascontiguousarray),
                       (gp.asfortranarray, np.asfortranarray)):
        gr, hr = gfun(g), nfun(h)
        assert_parity(gr, hr)
        _layout_matches(gr, hr)
        if np.shares_memory(hr, h):
            assert gr is g or gr.data.mem is g.data.mem
        else:
            assert gr.data.mem is not g.data.mem
    assert gp.ascontiguousarray(g, dtype=np.float32).dtype == np.float32
    assert_parity(gp.ascontiguousarray(g, dtype=np.float32),
                  np.ascontiguousarray(h, dtype=np.float32))


@pytest.mark.parametrize("obj", [3.0, [1, 2], np.arange(6).reshape(2, 3).T], ids=repr)
def test_ascontiguousarray_of_host_data_and_0d(obj):
    for gfun, nfun in ((gp.ascontiguousarray, np.ascontiguousarray),
                       (gp.asfortranarray, np.asfortranarray)):
        gr, hr = gfun(obj), nfun(obj)
        assert_parity(gr, hr)
        _layout_matches(gr, hr)


# ------------------------------------------------------------------ large transfers

_MB = 1 << 20


@pytest.mark.parametrize("nbytes", [100 * _MB, 100 * _MB + 3, 8 * _MB + 8, 16 * _MB - 2])
def test_large_transfer_round_trip(nbytes):
    # above 8 MiB copies go through the two 16 MiB pinned staging buffers
    rng = np.random.default_rng(nbytes)
    h = rng.integers(0, 256, size=nbytes, dtype=np.uint8)
    g = gp.asarray(h)
    back = gp.asnumpy(g)
    assert back.dtype == np.uint8 and back.shape == h.shape
    assert np.array_equal(back, h)
    # twice, to reuse the staging buffers
    g2 = gp.asarray(h[::-1].copy())
    assert np.array_equal(gp.asnumpy(g2), h[::-1])


def test_large_transfer_float_fortran_and_set_get_out():
    n = 12_800_000  # 102.4 MB
    h = np.asfortranarray(np.arange(n, dtype=np.float64).reshape(-1, 1000) * np.pi)
    g = gp.asarray(h)
    assert g.flags.f_contiguous
    out = np.empty_like(h)
    assert g.get(out=out) is out
    assert np.array_equal(out, h)
    g.set(h * 2)
    assert np.array_equal(gp.asnumpy(g), h * 2)
    # into pinned memory
    p = np.asarray(gp.cuda.alloc_pinned_memory(h.nbytes)).view(np.float64)
    p = p.reshape(h.shape, order="F")
    g.get(out=p)
    assert np.array_equal(p, h * 2)


def test_large_non_contiguous_transfer():
    h = np.arange(30 * _MB // 4, dtype=np.float32).reshape(-1, 64)
    g = gp.asarray(h[:, ::2])
    assert np.array_equal(gp.asnumpy(g), h[:, ::2])
    assert np.array_equal(gp.asnumpy(gp.asarray(h)[::3, ::-1]), h[::3, ::-1])
