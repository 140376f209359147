"""Advanced indexing (getitem/setitem) and the index routines against NumPy.

The kernel-source tests (NVRTC compile of every gather/scatter variant
family) run without a GPU; the parity tests are marked ``gpu``.
"""

import numpy as np
import pytest

from gpuscipy_core._kernel._nvrtc import compile_cubin
from gpuscipy_core._kernel._elementwise_source import elementwise_source
from gpuscipy_core._routines import _indexing as I

from ._parity import (ALL_DTYPES, INTEGER_DTYPES, assert_parity, assert_raises_like,
                      dtype_id, random_array)

gpu = pytest.mark.gpu

# ------------------------------------------------------------ kernel sources

GATHER_VARIANTS = [
    # itemsize, index dtype, ndim, nidx, mode, index32
    (1, "i8", 1, 1, 0, True), (2, "i4", 2, 1, 1, True), (4, "u8", 3, 2, 2, True),
    (8, "i8", 2, 2, 0, False), (16, "u1", 4, 3, 0, True), (8, "?", 1, 1, 1, True),
    (4, "i2", 5, 1, 0, True), (16, "u4", 2, 1, 2, False), (1, "u2", 8, 4, 1, True),
]
SCATTER_VARIANTS = [v + (s,) for v in GATHER_VARIANTS[:6] for s in (False, True)]


@pytest.mark.parametrize("spec", GATHER_VARIANTS, ids=str)
def test_gather_source_compiles(spec):
    name, src = I.gather_source(*spec)
    assert name.startswith("gs_gather_w")
    assert compile_cubin(src, name)


@pytest.mark.parametrize("spec", SCATTER_VARIANTS, ids=str)
def test_scatter_source_compiles(spec):
    itemsize, idt, nd, ni, mode, i32, scalar = spec
    name, src = I.scatter_source(itemsize, idt, nd, ni, mode, scalar, i32)
    assert ("_s" in name.split("_k")[1]) == scalar
    assert compile_cubin(src, name)


def test_source_names_encode_the_spec():
    names = {I.gather_source(*v)[0] for v in GATHER_VARIANTS}
    assert len(names) == len(GATHER_VARIANTS)
    assert I.gather_source(8, "i8", 2, 1, 0)[0] == "gs_gather_w8_i8_d2_k1_raise"
    assert I.gather_source(8, "i8", 2, 1, 1, False)[0] == "gs_gather_w8_i8_d2_k1_wrap_i64"
    with pytest.raises(TypeError):
        I.gather_source(3, "i8", 1, 1, 0)


@pytest.mark.parametrize("dtype", ["?", "i1", "f8", "c16"])
def test_mask_assign_bodies_compile(dtype):
    from gpuscipy_core._elementwise import ctype
    dt = np.dtype(dtype)
    c = ctype(dt)
    for nd in (0, 2):
        args = (("in", "bool", "m", 1, 1), ("scalar", c, "v", dt.itemsize,
                                             dt.itemsize if dt.kind == "c" else dt.alignment),
                ("out", c, "y", dt.itemsize, dt.alignment))
        src = elementwise_source(f"t_maskset_{dt.str[1:]}_{nd}", args, "if (m) y = v;", nd)
        assert compile_cubin(src, f"t_maskset_{dt.str[1:]}_{nd}")
        args = (("in", "bool", "m", 1, 1), ("in", "double", "v", 8, 8),
                ("out", c, "y", dt.itemsize, dt.alignment))
        src = elementwise_source(f"t_masksetv_{dt.str[1:]}_{nd}", args,
                                 f"if (m) y = gs::cast<{c}>(v);", nd)
        assert compile_cubin(src, f"t_masksetv_{dt.str[1:]}_{nd}")


def test_params_packing_layout():
    # n, shape, base strides, other strides, idx strides, lens, axis strides,
    # ptrs, base, other, flag, 16 scalar bytes
    class Fake:
        ptr = 0x1000
    nd, n, blob = I._params((2, 3), 7, (24, 0), 9, (24, 8),
                            [(Fake(), (0, 8), 5, 16)], 11, b"\x01\x02")
    words = np.frombuffer(blob[:-16], np.int64)
    assert nd == 2 and n == 6
    assert list(words) == [6, 2, 3, 24, 0, 24, 8, 0, 8, 5, 16, 0x1000, 7, 9, 11]
    assert blob[-16:] == b"\x01\x02" + b"\0" * 14
    nd, n, blob = I._params((), 1, (), 2, (), [(Fake(), (), 4, 8)], 0)
    assert nd == 1 and n == 1
    assert list(np.frombuffer(blob[:-16], np.int64)) == [1, 1, 0, 0, 0, 4, 8, 0x1000,
                                                         1, 2, 0]


def test_pack_wraps_large_pointers():
    assert np.frombuffer(I._pack([2**64 - 1]), np.int64)[0] == -1


# ------------------------------------------------------------ parity (GPU)

H = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)

KEYS = [
    [0, 1], [[1, 0], [0, 1]], np.array([1, -1]), (slice(None), [2, 0, 2]),
    (Ellipsis, [4, 0]), ([0, 1], [2, 0]), ([0, 1], slice(None), [3, 3]),
    (0, slice(None), [1, 2]), (slice(None), 0, [1, 2]), ([1], None, [2]),
    (slice(None), [0, 1], None, [0, 1]), ([0, 1], Ellipsis, [0, 4]),
    (slice(None), [[0], [2]], [[1, 3]]), (np.array(1),), ([],), ([], []),
    (True,), (False,), (slice(None), True, [0, 1]),
    (np.array([True, False]),), (slice(None), np.array([True, False, True])),
    (np.ones((2, 3), bool),), (slice(None), H[0, :, :, 0] % 2 == 0),
    (slice(None, None, -1), [0, 2], slice(1, None, 2)),
    (np.array([0, 1], np.uint8), np.array([1, 2], np.int16)),
    ([-1, -2], [-3, 0], [-4, 3], [-5, 4]),
]


def _key_to_device(key, gp):
    def conv(k):
        if isinstance(k, np.ndarray) and k.ndim:
            return gp.asarray(k)
        return k
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


@gpu
@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("device_index", [False, True])
def test_advanced_getitem_matches_numpy(key, device_index):
    import gpuscipy_core as gp
    g = gp.asarray(H)
    k = _key_to_device(key, gp) if device_index else key
    assert_parity(g[k], H[key], kind="exact")


@gpu
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_advanced_getitem_negative_strides(key):
    import gpuscipy_core as gp
    h = H[::-1, :, ::-1].transpose(0, 1, 3, 2)[..., ::-1].copy().reshape(H.shape)
    base = np.arange(H.size * 2).reshape(2, 3, 4, 10)
    hv = base[::-1, ::-1, :, ::-2]
    gv = gp.asarray(base)[::-1, ::-1, :, ::-2]
    assert hv.shape == H.shape
    assert_parity(gv[key], hv[key], kind="exact")
    del h


@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_advanced_getitem_every_dtype(dtype):
    import gpuscipy_core as gp
    h = random_array((6, 5), dtype, 1)
    g = gp.asarray(h)
    for key in ([4, 0, 4], (slice(None), [1, -1]), ([[0, 1]], [[2], [3]]),
                h.real != 0 if dtype.kind == "c" else h != 0):
        assert_parity(g[key], h[key], kind="exact")
        assert_parity(g[gp.asarray(key) if isinstance(key, np.ndarray) else key],
                      h[key], kind="exact")


SET_CASES = [
    ([1, 0], 7), ([1, 0], np.arange(5)), ((slice(None), [2, 0]), -1),
    (([0, 1], [2, 0]), [5, 6, 7, 8, 9]), (([0, 1], [2, 0]), np.arange(40).reshape(2, 4, 5)), ((Ellipsis, [0]), np.arange(24).reshape(2, 3, 4, 1)),
    ((0, slice(None), [1, 2]), np.arange(2 * 3 * 5).reshape(2, 3, 5)),
    ((H % 3 == 0,), 0), ((H % 3 == 0,), np.arange((H % 3 == 0).sum())),
    ((H[:, :, 0, 0] > 3,), 9), ((np.array([True, False]),), np.ones((1, 3, 4, 5))),
    (([1], None, [2]), 3.7), ((True,), 4), (([-1, -2],), 1),
]


@gpu
@pytest.mark.parametrize("key,value", SET_CASES, ids=repr)
@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64, np.bool_],
                         ids=dtype_id)
def test_advanced_setitem_matches_numpy(key, value, dtype):
    import gpuscipy_core as gp
    h = H.astype(dtype)
    g = gp.asarray(h)
    h[key] = value
    g[key] = value
    assert_parity(g, h, kind="exact")
    # device key and device value
    h2 = H.astype(dtype)
    g2 = gp.asarray(h2)
    v = np.asarray(value)
    gval = gp.asarray(v) if v.ndim else value
    h2[key] = value
    g2[_key_to_device(key, gp)] = gval
    assert_parity(g2, h2, kind="exact")


@gpu
def test_setitem_repeated_indices_do_not_crash():
    import gpuscipy_core as gp
    g = gp.zeros(5)
    g[gp.asarray([1, 1, 1, 2])] = gp.asarray([1.0, 2.0, 3.0, 4.0])
    h = g.get()
    assert h[1] in (1.0, 2.0, 3.0) and h[2] == 4.0


@gpu
def test_augmented_assignment_through_fancy_index():
    import gpuscipy_core as gp
    h = np.arange(10.0)
    g = gp.asarray(h)
    h[[1, 3]] += 5
    g[[1, 3]] += 5
    assert_parity(g, h, kind="exact")


@gpu
def test_setitem_overlapping_value_is_safe():
    import gpuscipy_core as gp
    h = np.arange(10)
    g = gp.asarray(h)
    h[[0, 1, 2, 3]] = h[1:5]
    g[[0, 1, 2, 3]] = g[1:5]
    assert_parity(g, h, kind="exact")


GET_ERRORS = [
    [5], [-6], (slice(None), [9]), ([0], [0], [0], [0], [0]), np.array([1.0]),
    [1.0], ([0, 1], [0, 1, 2]), np.array([True, False, True]), "a",
    (Ellipsis, Ellipsis, [0]),
]


@gpu
@pytest.mark.parametrize("key", GET_ERRORS, ids=repr)
def test_advanced_index_errors(key):
    import gpuscipy_core as gp
    h = np.arange(15).reshape(5, 3)
    g = gp.asarray(h)
    np_exc, gp_exc = assert_raises_like(lambda: h[key], lambda: g[key])
    assert str(gp_exc) == str(np_exc)


@gpu
def test_device_index_out_of_bounds_reports_first_bad_index():
    import gpuscipy_core as gp
    h = np.arange(12).reshape(3, 4)
    g = gp.asarray(h)
    for key in (gp.asarray([0, 7, 9]), (slice(None), gp.asarray([1, -5])),
                (gp.asarray([0, 1]), gp.asarray([2, 4]))):
        hk = tuple(k.get() if isinstance(k, gp.ndarray) else k for k in key) \
            if isinstance(key, tuple) else key.get()
        np_exc, gp_exc = assert_raises_like(lambda: h[hk], lambda: g[key])
        assert str(gp_exc) == str(np_exc)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
        g[gp.asarray([3])] = 1
    # the device stays usable
    g[gp.asarray([2])] = 100
    assert g.get()[2, 0] == 100


@gpu
def test_setitem_value_errors():
    import gpuscipy_core as gp
    h = np.zeros(3, np.int8)
    g = gp.asarray(h)
    assert_raises_like(lambda: h.__setitem__([0, 1], [1, 2, 3]),
                       lambda: g.__setitem__([0, 1], [1, 2, 3]), match="shape mismatch")
    assert_raises_like(lambda: h.__setitem__([0], 300), lambda: g.__setitem__([0], 300))
    assert_raises_like(lambda: h.__setitem__(np.array([True, False, True]), 300),
                       lambda: g.__setitem__(gp.asarray([True, False, True]), 300))


# ------------------------------------------------------------ routines

@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_take(dtype, axis, mode):
    import gpuscipy_core as gp
    h = random_array((4, 5), dtype, 3)
    g = gp.asarray(h)
    idx = [[0, 3], [-1, 2]] if mode == "raise" else [[0, 7], [-9, 2]]
    assert_parity(gp.take(g, idx, axis=axis, mode=mode),
                  np.take(h, idx, axis=axis, mode=mode), kind="exact")
    assert_parity(g.take(gp.asarray(np.array(idx, np.int32)), axis=axis, mode=mode),
                  h.take(idx, axis=axis, mode=mode), kind="exact")
    assert_parity(gp.take(g[::-1, ::2], 1, axis=axis, mode=mode),
                  np.take(h[::-1, ::2], 1, axis=axis, mode=mode), kind="exact")


@gpu
def test_take_errors_and_out():
    import gpuscipy_core as gp
    h = np.arange(5.0)
    g = gp.asarray(h)
    for idx in ([7], gp.asarray([7])):
        assert_raises_like(lambda: np.take(h, [7]), lambda: gp.take(g, idx),
                           match="index 7 is out of bounds for axis 0 with size 5")
    assert_raises_like(lambda: np.take(h, [0], mode="foo"),
                       lambda: gp.take(g, [0], mode="foo"), match="clipmode")
    assert_raises_like(lambda: np.take(np.zeros(0), [1], mode="wrap"),
                       lambda: gp.take(gp.zeros(0), [1], mode="wrap"))
    out = gp.empty((2,), np.float64)
    r = gp.take(g, [4, 0], out=out)
    assert r is out
    assert_parity(out, np.take(h, [4, 0]), kind="exact")


@gpu
@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128, np.bool_],
                         ids=dtype_id)
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_put(dtype, mode):
    import gpuscipy_core as gp
    h = random_array((3, 4), dtype, 4)
    g = gp.asarray(h)
    ind = [0, 5, -1] if mode == "raise" else [0, 25, -13]
    for v in ([1, 0], 1, [1, 0, 1, 1]):
        np.put(h, ind, v, mode=mode)
        gp.put(g, ind, v, mode=mode)
        assert_parity(g, h, kind="exact")
    hv = h.T
    gv = g.T
    np.put(hv, [1, 2], [0, 1], mode=mode)
    gp.put(gv, [1, 2], [0, 1], mode=mode)
    assert_parity(gv, hv, kind="exact")
    assert_parity(g, h, kind="exact")


@gpu
def test_put_errors():
    import gpuscipy_core as gp
    assert_raises_like(lambda: np.put([1, 2], [0], 1), lambda: gp.put([1, 2], [0], 1))
    g = gp.arange(5)
    assert_raises_like(lambda: np.put(np.arange(5), [7], 1), lambda: gp.put(g, [7], 1),
                       match="index 7 is out of bounds")


@gpu
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_take_along_axis_and_put_along_axis(axis):
    import gpuscipy_core as gp
    h = random_array((4, 6), np.float32, 5)
    g = gp.asarray(h)
    if axis is None:
        idx = np.argsort(h, axis=None)[:5]
    else:
        idx = np.argsort(h, axis=axis)
        idx = idx[:2] if axis == 0 else idx[:, :3]
    assert_parity(gp.take_along_axis(g, gp.asarray(idx), axis=axis),
                  np.take_along_axis(h, idx, axis=axis), kind="exact")
    np.put_along_axis(h, idx, -1.0, axis=axis)
    gp.put_along_axis(g, gp.asarray(idx), -1.0, axis=axis)
    assert_parity(g, h, kind="exact")


@gpu
def test_take_along_axis_errors():
    import gpuscipy_core as gp
    h = np.zeros((2, 3))
    g = gp.asarray(h)
    assert_raises_like(lambda: np.take_along_axis(h, np.zeros(2, int), 1),
                       lambda: gp.take_along_axis(g, gp.zeros(2, int), 1),
                       match="same number of dimensions")
    assert_raises_like(lambda: np.take_along_axis(h, np.zeros((2, 2)), 1),
                       lambda: gp.take_along_axis(g, gp.zeros((2, 2)), 1),
                       match="integer array")


@gpu
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose(mode):
    import gpuscipy_core as gp
    choices = [np.arange(4), np.arange(4) * 10, np.full(4, -1.5)]
    a = np.array([0, 2, 1, 0]) if mode == "raise" else np.array([0, 5, -1, 3])
    r = gp.choose(gp.asarray(a), [gp.asarray(c) for c in choices], mode=mode)
    assert_parity(r, np.choose(a, choices, mode=mode), kind="exact")
    a2 = np.array([[0], [1]])
    assert_parity(gp.choose(gp.asarray(a2), [gp.asarray(c) for c in choices[:2]]),
                  np.choose(a2, choices[:2]), kind="exact")
    if mode == "raise":
        # the index must broadcast against the choices, else NumPy reports
        # the shape mismatch; negative entries are invalid in raise mode
        for bad in ([0, 5, 0, 0], [0, -1, 0, 0]):
            assert_raises_like(lambda: np.choose(bad, choices),
                               lambda: gp.choose(gp.asarray(bad),
                                                 [gp.asarray(c) for c in choices]),
                               match="invalid entry in choice array")
        assert_raises_like(lambda: np.choose([0, 1], choices),
                           lambda: gp.choose(gp.asarray([0, 1]),
                                             [gp.asarray(c) for c in choices]),
                           match="Mismatch is between arg 0 with shape")


@gpu
def test_index_builders():
    import gpuscipy_core as gp
    for n, k, m in [(4, 0, None), (4, 1, 6), (5, -2, 3), (0, 0, None)]:
        assert_parity(gp.tril_indices(n, k, m), np.tril_indices(n, k, m))
        assert_parity(gp.triu_indices(n, k, m), np.triu_indices(n, k, m))
    assert_parity(gp.diag_indices(3, 3), np.diag_indices(3, 3))
    for dims, dt in [((2, 3), int), ((4,), np.int32), ((2, 0, 3), float), ((), int)]:
        assert_parity(gp.indices(dims, dt), np.indices(dims, dt))
        assert_parity(gp.indices(dims, dt, sparse=True), np.indices(dims, dt, sparse=True))
    assert_parity(gp.ix_([0, 1], [2, 4, 3]), np.ix_([0, 1], [2, 4, 3]))
    assert_parity(gp.ix_(gp.asarray([True, False, True])), np.ix_([True, False, True]))
    h = np.arange(30).reshape(5, 6)
    assert_parity(gp.asarray(h)[gp.ix_([0, 3], [1, 5])], h[np.ix_([0, 3], [1, 5])])


@gpu
@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=dtype_id)
def test_every_index_dtype(dtype):
    import gpuscipy_core as gp
    h = np.arange(20.0).reshape(4, 5)
    idx = np.array([0, 3, 1], dtype)
    assert_parity(gp.asarray(h)[gp.asarray(idx)], h[idx], kind="exact")
    assert_parity(gp.take(gp.asarray(h), gp.asarray(idx), axis=1),
                  np.take(h, idx, axis=1), kind="exact")
