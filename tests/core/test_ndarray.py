"""gpuscipy_core.ndarray against numpy.ndarray: attributes, views, indexing,
assignment, copies, casts, reshapes, host transfers, scalars, repr, errors.

Strides of size-0 arrays are not compared: any value is valid there and
NumPy 2 itself zeroes them for new arrays but keeps them for slices.
"""

import operator
import warnings

import numpy as np
import pytest

import gpuscipy_core as gp

from ._parity import (ALL_DTYPES, assert_parity, assert_raises_like, dtype_id,
                      random_array, with_specials)

pytestmark = pytest.mark.gpu

SHAPES = [(), (0,), (1,), (7,), (3, 4), (2, 3, 4), (2, 0, 3), (1, 1, 5), (2, 1, 3, 2)]


def _pair(shape, dtype=np.float64, seed=0, order="C", **kw):
    h = random_array(shape, dtype, seed, order=order, **kw)
    return h, gp.asarray(h)


def _offset(view, base):
    return view.ptr - base.ptr


def _np_offset(view, base):
    return view.__array_interface__["data"][0] - base.__array_interface__["data"][0]


def _same_strides(g, h):
    if h.size:
        assert g.strides == h.strides, f"strides {g.strides} != NumPy's {h.strides}"


# ------------------------------------------------------------------ attributes

@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_attributes(dtype, shape):
    h, g = _pair(shape, dtype)
    assert isinstance(g, gp.ndarray)
    assert g.shape == h.shape
    _same_strides(g, h)
    assert g.ndim == h.ndim
    assert g.size == h.size and isinstance(g.size, int)
    assert g.itemsize == h.itemsize
    assert g.nbytes == h.nbytes
    assert g.dtype == h.dtype
    assert g.flags.c_contiguous == h.flags.c_contiguous
    assert g.flags.f_contiguous == h.flags.f_contiguous
    assert g.flags["C_CONTIGUOUS"] == h.flags["C_CONTIGUOUS"]
    assert g.flags["F_CONTIGUOUS"] == h.flags["F_CONTIGUOUS"]
    assert g.flags.owndata is True
    assert g.base is None
    assert g.device == gp.cuda.Device(0)
    assert g.T.shape == h.T.shape
    _same_strides(g.T, h.T)
    assert g.T.base is g
    if g.ndim:
        assert len(g) == len(h)
    else:
        with pytest.raises(TypeError):
            len(g)
    assert_parity(g, h, kind="exact")


@pytest.mark.parametrize("order", ["C", "F"])
def test_attributes_fortran_order(order):
    h = np.asarray(random_array((3, 4, 5), np.float32, 1), order=order)
    g = gp.asarray(h)
    assert g.strides == h.strides
    assert g.flags.c_contiguous == h.flags.c_contiguous
    assert g.flags.f_contiguous == h.flags.f_contiguous
    assert_parity(g, h, kind="exact")


def test_flags_of_views():
    h, g = _pair((4, 6))
    for key in [(slice(None), slice(None, None, 2)), (slice(1, 3),), (0,),
                (slice(None), 0), (slice(None, None, -1),)]:
        hv, gv = h[key], g[key]
        assert gv.flags.c_contiguous == hv.flags.c_contiguous, key
        assert gv.flags.f_contiguous == hv.flags.f_contiguous, key
        assert gv.flags.owndata is False
        assert gv.base is g
    assert g.flags["OWNDATA"] is True
    with pytest.raises(KeyError):
        g.flags["NO_SUCH_FLAG"]


def test_base_of_view_of_view_is_the_owner():
    g = gp.arange(24.0).reshape(4, 6)
    owner = g.base
    assert owner is not None  # reshape of a new array is a view of it
    v = g[1:][:, ::2].T
    assert v.base is owner
    a = gp.arange(5.0)
    assert a[1:][1:].base is a


def test_ptr_and_data():
    g = gp.arange(10.0)
    v = g[3:]
    assert v.ptr == g.ptr + 3 * 8
    assert v.data.ptr == v.ptr
    assert int(g.data) == g.ptr
    assert v.data.mem is g.data.mem


def test_mT_and_swapaxes():
    h, g = _pair((2, 3, 4))
    assert_parity(g.mT, h.mT, kind="exact")
    assert g.mT.strides == h.mT.strides
    assert_parity(g.swapaxes(0, 2), h.swapaxes(0, 2), kind="exact")
    assert g.swapaxes(-1, 0).strides == h.swapaxes(-1, 0).strides
    with pytest.raises(ValueError):
        gp.arange(3).mT


def test_real_imag_attributes():
    h, g = _pair((3, 4), np.complex64)
    assert_parity(g.real, h.real, kind="exact")
    assert_parity(g.imag, h.imag, kind="exact")
    assert g.real.strides == h.real.strides
    assert g.imag.base is g
    hr, gr = _pair((5,), np.int16)
    assert_parity(gr.real, hr.real, kind="exact")
    assert_parity(gr.imag, hr.imag, kind="exact")


# ------------------------------------------------------------------ indexing

INDEX_CASES = [
    ((7,), 0), ((7,), -1), ((7,), 6), ((7,), -7),
    ((7,), slice(None)), ((7,), slice(1, 5)), ((7,), slice(None, None, -1)),
    ((7,), slice(5, 0, -2)), ((7,), slice(-3, None)), ((7,), slice(10, 20)),
    ((7,), slice(None, None, 3)), ((7,), slice(-100, 100)), ((7,), None),
    ((7,), Ellipsis), ((7,), (Ellipsis, None)), ((7,), (None, slice(None, None, -1))),
    ((7,), np.int64(3)), ((7,), np.uint8(2)), ((7,), slice(np.int32(1), np.int64(6), 2)),
    ((3, 4), 1), ((3, 4), -1), ((3, 4), (1, 2)), ((3, 4), (-1, -4)),
    ((3, 4), (slice(None), 1)), ((3, 4), (slice(None, None, -1), slice(1, None, 2))),
    ((3, 4), (Ellipsis, 0)), ((3, 4), (0, Ellipsis)), ((3, 4), (None, 1, None)),
    ((3, 4), (slice(None), None, slice(None, None, -2))), ((3, 4), ()),
    ((3, 4), (Ellipsis, None)), ((3, 4), (slice(2, 0, -1), Ellipsis, slice(3, None))),
    ((2, 3, 4), (1, Ellipsis, 2)), ((2, 3, 4), (Ellipsis, slice(None, None, -1))),
    ((2, 3, 4), (slice(None, None, -1), None, 0, slice(1, 3))),
    ((2, 3, 4), (-1, -1, -1)), ((2, 3, 4), (None, Ellipsis, None)),
    ((2, 3, 4), (slice(None), slice(None, None, -1), slice(None, None, -1))),
    ((2, 3, 4), (1, slice(None), None, -2)),
    ((), ()), ((), Ellipsis), ((), None), ((), (None, Ellipsis, None)),
    ((0, 3), slice(None)), ((0, 3), (slice(None), 1)), ((0, 3), (Ellipsis, None)),
    ((2, 0), (1,)), ((2, 0), (slice(None, None, -1), slice(None))),
]


@pytest.mark.parametrize("shape,key", INDEX_CASES, ids=[f"{s}-{k!r}" for s, k in INDEX_CASES])
def test_basic_indexing_matches_numpy(shape, key):
    h, g = _pair(shape, np.float64, 3)
    hv, gv = h[key], g[key]
    hv_arr = np.asarray(hv)
    assert isinstance(gv, gp.ndarray)
    assert gv.shape == hv_arr.shape
    assert_parity(gv, hv_arr, kind="exact", check_type=False)
    if isinstance(hv, np.ndarray):
        _same_strides(gv, hv)
        assert gv.base is g
        if hv.size:
            assert _offset(gv, g) == _np_offset(hv, h)
        assert gv.flags.c_contiguous == hv.flags.c_contiguous
        assert gv.flags.f_contiguous == hv.flags.f_contiguous


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_indexing_every_dtype(dtype):
    h, g = _pair((4, 5), dtype, 4)
    for key in [(1, 2), (slice(None, None, -1), 3), (Ellipsis, slice(None, None, -2)),
                (None, slice(1, 3))]:
        assert_parity(g[key], np.asarray(h[key]), kind="exact", check_type=False)


def test_indexing_a_view_of_a_transposed_array():
    h, g = _pair((5, 6), np.int32, 5)
    hv, gv = h.T[::2, ::-1][1:], g.T[::2, ::-1][1:]
    assert gv.strides == hv.strides
    assert _offset(gv, g) == _np_offset(hv, h)
    assert_parity(gv, hv)


def test_iteration():
    h, g = _pair((3, 2), np.int64, 6)
    rows = list(g)
    assert len(rows) == 3
    for r, hr in zip(rows, h):
        assert_parity(r, hr)
    with pytest.raises(TypeError):
        iter(gp.asarray(np.float64(1.0))).__next__()


INDEX_ERRORS = [
    ((5,), 5), ((5,), -6), ((3, 4), (0, 4)), ((3, 4), (-4, 0)), ((3, 4), (0, 0, 0)),
    ((3, 4), (Ellipsis, Ellipsis)), ((), 0), ((5,), 1.0), ((5,), "a"),
    ((0,), 0), ((3, 4), (None, 1, 2, 3)),
]


@pytest.mark.parametrize("shape,key", INDEX_ERRORS, ids=[f"{s}-{k!r}" for s, k in INDEX_ERRORS])
def test_index_errors(shape, key):
    h, g = _pair(shape, np.float64, 7)
    np_exc, gp_exc = assert_raises_like(lambda: h[key], lambda: g[key])


def test_index_error_messages():
    h, g = _pair((3, 4))
    for key in [(5,), (0, 7), (1, 2, 3)]:
        np_exc, gp_exc = assert_raises_like(lambda: h[key], lambda: g[key])
        assert str(gp_exc) == str(np_exc)


def test_device_works_after_index_errors():
    g = gp.arange(5)
    with pytest.raises(IndexError):
        g[10]
    with pytest.raises(IndexError):
        g[10] = 1
    g[1] = 100
    np.testing.assert_array_equal(gp.asnumpy(g), [0, 100, 2, 3, 4])


# ------------------------------------------------------------------ setitem

def _value(kind, shape, dtype, seed):
    h = random_array(shape, dtype, seed)
    if kind == "device":
        return h, gp.asarray(h)
    if kind == "host":
        return h, h
    if kind == "list":
        return h, h.tolist()
    raise AssertionError(kind)


SETITEM_CASES = [
    # (shape, key, value shape)
    ((7,), 2, ()),
    ((7,), slice(None, None, -1), (7,)),
    ((7,), slice(1, 6, 2), (3,)),
    ((7,), slice(1, 6, 2), (1,)),
    ((3, 4), (slice(None), 1), ()),
    ((3, 4), (slice(None), 1), (3,)),
    ((3, 4), Ellipsis, (4,)),
    ((3, 4), Ellipsis, (3, 1)),
    ((3, 4), (slice(None, None, 2), slice(None, None, -1)), (2, 4)),
    ((3, 4), (slice(None, None, 2), slice(None, None, -1)), (1, 4)),
    ((2, 3, 4), (None, 1), (3, 4)),
    ((2, 3, 4), (Ellipsis, 0), (2, 1)),
    ((2, 3, 4), (slice(None), slice(None, None, -1), slice(1, 3)), (2, 3, 2)),
    ((), (), ()),
    ((), Ellipsis, ()),
    ((0, 3), slice(None), (3,)),
]


@pytest.mark.parametrize("kind", ["device", "host", "list"])
@pytest.mark.parametrize("shape,key,vshape", SETITEM_CASES,
                         ids=[f"{s}-{k!r}-{v}" for s, k, v in SETITEM_CASES])
def test_setitem_arrays(shape, key, vshape, kind):
    h, g = _pair(shape, np.float32, 8)
    hv, v = _value(kind, vshape, np.float32, 9)
    h[key] = hv
    g[key] = v
    assert_parity(g, h, kind="exact")


def test_setitem_non_contiguous_values():
    h, g = _pair((4, 5), np.float64, 8)
    hv = random_array((5, 4), np.float64, 9)
    h[...] = hv.T
    g[...] = gp.asarray(hv).T
    assert_parity(g, h, kind="exact")
    h[::2, ::-1] = hv.T[1::2, ::-1]       # host value, non-contiguous
    g[::2, ::-1] = hv.T[1::2, ::-1]
    assert_parity(g, h, kind="exact")


SCALARS = [0, 1, -3, 7.25, -0.5, True, False, 2 + 3j, np.float32(1.5), np.int8(-4),
           np.uint16(65535), np.nan, np.inf, np.bool_(True), np.float32(np.nan),
           np.complex64(1 - 1j)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_setitem_scalars(dtype):
    for value in SCALARS:
        h, g = _pair((3, 4), dtype, 10)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                h[1, ::2] = value
                h[(0, 2)] = value
        except (ValueError, OverflowError, TypeError) as e:
            with pytest.raises(type(e)):
                g[1, ::2] = value
                g[(0, 2)] = value
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g[1, ::2] = value
            g[(0, 2)] = value
        assert_parity(g, h, kind="exact", err_msg=f"value {value!r}")


@pytest.mark.parametrize("src", ALL_DTYPES, ids=dtype_id)
def test_setitem_casts_device_values(src):
    # every source dtype into float64 and int64 destinations
    hv = random_array((4,), src, 11, low=0, high=50)
    for dst in (np.float64, np.int64, np.complex64, np.bool_):
        h, g = _pair((2, 4), dst, 12)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h[1] = hv
            g[1] = gp.asarray(hv)
        assert_parity(g, h, kind="exact")


def test_setitem_overlapping_self_assignment():
    h, g = _pair((10,), np.int64, 13)
    h[1:] = h[:-1]
    g[1:] = g[:-1]
    assert_parity(g, h)
    h2, g2 = _pair((6, 6), np.float64, 14)
    h2[...] = h2.T
    g2[...] = g2.T
    assert_parity(g2, h2)
    h3, g3 = _pair((8,), np.float64, 15)
    h3[::-1] = h3
    g3[::-1] = g3
    assert_parity(g3, h3)


def test_setitem_broadcast_error_matches_numpy():
    h, g = _pair((3,))
    np_exc, gp_exc = assert_raises_like(lambda: h.__setitem__(slice(0, 2), np.ones(3)),
                                        lambda: g.__setitem__(slice(0, 2), gp.ones(3)))
    assert str(gp_exc) == str(np_exc)


def test_setitem_out_of_range_python_int_raises_overflow_error():
    h = np.zeros(3, np.int8)
    g = gp.zeros(3, dtype=gp.int8)
    assert_raises_like(lambda: h.__setitem__(0, 300), lambda: g.__setitem__(0, 300))
    assert_raises_like(lambda: h.__setitem__(0, np.nan), lambda: g.__setitem__(0, np.nan))
    assert_raises_like(lambda: h.__setitem__(0, np.inf), lambda: g.__setitem__(0, np.inf))


def test_setitem_0d_device_value_broadcasts():
    h, g = _pair((2, 3), np.float64, 16)
    h[:, 1] = np.float64(4.5)
    g[:, 1] = gp.asarray(np.float64(4.5))
    assert_parity(g, h)


# ------------------------------------------------------------------ copies

# name -> view taken the same way of the host and of the device array
LAYOUT_VIEWS = {
    "C": lambda a: a,
    "F": None,  # a Fortran-ordered array (uploaded as such)
    "transposed": lambda a: a.T,
    "reversed": lambda a: a[::-1, ::-1],
    "strided": lambda a: a[::2, 1::3],
    "transposed_strided": lambda a: a.T[::2, ::-1],
}
LAYOUTS = sorted(LAYOUT_VIEWS)


def _layout(name, h):
    """(host array, device array with the same values and layout)"""
    if name == "F":
        hh = np.asfortranarray(h)
        return hh, gp.asarray(hh)
    view = LAYOUT_VIEWS[name]
    return view(h), view(gp.asarray(h))


@pytest.mark.parametrize("order", ["C", "F", "A"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.float32, np.float64,
                                   np.complex128], ids=dtype_id)
def test_copy_orders(dtype, layout, order):
    hh, gg = _layout(layout, random_array((6, 8), dtype, 17))
    hc, gc = hh.copy(order), gg.copy(order)
    assert_parity(gc, hc, kind="exact")
    assert gc.strides == hc.strides
    assert gc.flags.owndata and gc.base is None
    assert gc.data.mem is not gg.data.mem


@pytest.mark.parametrize("layout", LAYOUTS)
def test_copy_order_k_keeps_the_layout(layout):
    hh, gg = _layout(layout, random_array((6, 8), np.float64, 18))
    hc, gc = hh.copy("K"), gg.copy("K")
    assert_parity(gc, hc, kind="exact")
    assert gc.strides == hc.strides


def test_copy_default_order_is_c_and_copy_function():
    hh, gg = _layout("F", random_array((3, 5), np.int32, 19))
    assert gg.copy().flags.c_contiguous
    assert_parity(gp.copy(gg), np.copy(hh))
    assert gp.copy(gg).strides == np.copy(hh).strides  # np.copy's order is 'K'


def test_copy_is_independent():
    g = gp.arange(5.0)
    c = g.copy()
    g[0] = 100
    assert float(c[0]) == 0.0


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)], ids=str)
def test_copy_0d_and_empty(shape):
    h, g = _pair(shape, np.complex64, 20)
    assert_parity(g.copy(), h.copy(), kind="exact")
    assert_parity(g.copy("F"), h.copy("F"), kind="exact")


# ------------------------------------------------------------------ astype

def _astype_input(src, dst, seed):
    """Random values whose conversion src -> dst NumPy defines (no NaN/inf or
    out-of-range values into integers; specials everywhere else)."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src.kind in "fc" and dst.kind in "iu":
        if dst.kind == "u":
            hi = min(200, int(np.iinfo(dst).max))
            return random_array(64, src, seed, low=0, high=hi)
        lim = min(100, int(np.iinfo(dst).max))
        return random_array(64, src, seed, low=-lim, high=lim)
    if src.kind in "iu":
        return random_array(64, src, seed, full_range=True)
    h = random_array(64, src, seed, low=-1e3, high=1e3)
    return with_specials(h, seed)


@pytest.mark.parametrize("dst", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("src", ALL_DTYPES, ids=dtype_id)
def test_astype_matrix(src, dst):
    h = _astype_input(src, dst, 21)
    g = gp.asarray(h)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ComplexWarning, overflow to inf
        expected = h.astype(dst)
    assert_parity(g.astype(dst), expected, kind="exact")
    # non-contiguous source, F-ordered result
    h2 = np.stack([h, h[::-1]])[:, ::3]
    g2 = gp.asarray(np.stack([h, h[::-1]]))[:, ::3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected2 = h2.astype(dst, order="F")
    r2 = g2.astype(dst, order="F")
    assert_parity(r2, expected2, kind="exact")
    assert r2.flags.f_contiguous


def test_astype_copy_false_and_casting():
    g = gp.arange(6.0).reshape(2, 3)
    assert g.astype(np.float64, copy=False) is g
    assert g.astype(np.float64) is not g
    assert g.astype(np.float32, copy=False) is not g
    h = np.arange(6.0).reshape(2, 3)
    np_exc, gp_exc = assert_raises_like(lambda: h.astype(np.int32, casting="safe"),
                                        lambda: g.astype(np.int32, casting="safe"))
    assert "safe" in str(gp_exc)
    assert_parity(g.astype(np.float32, casting="same_kind"),
                  h.astype(np.float32, casting="same_kind"))


@pytest.mark.parametrize("bad", [object, "U3", "S2", "M8[s]", "m8[ns]", np.longdouble,
                                 np.clongdouble, ">f8", [("a", "i4")]],
                         ids=["object", "U3", "S2", "M8", "m8", "longdouble",
                              "clongdouble", "big_endian", "structured"])
def test_unsupported_dtypes_raise_type_error_naming_the_dtype(bad):
    dt = np.dtype(bad)
    names = (repr(dt), str(dt), dt.name)
    for make in (lambda: gp.empty(3, dtype=bad), lambda: gp.zeros((2, 2), dtype=bad),
                 lambda: gp.arange(3).astype(bad), lambda: gp.ndarray((2,), dtype=bad)):
        with pytest.raises(TypeError) as info:
            make()
        assert any(n in str(info.value) for n in names), str(info.value)


@pytest.mark.parametrize("host", [np.array(["ab", "c"]), np.array([1, "a"], dtype=object),
                                  np.array(["2020-01-01"], dtype="M8[D]"),
                                  np.ones(2, dtype=np.longdouble)],
                         ids=["str", "object", "datetime", "longdouble"])
def test_unsupported_host_arrays_raise_type_error(host):
    with pytest.raises(TypeError) as info:
        gp.asarray(host)
    assert repr(host.dtype) in str(info.value) or str(host.dtype) in str(info.value)


# ------------------------------------------------------------------ reshape

RESHAPES = [
    ((3, 4), (4, 3)), ((3, 4), (12,)), ((3, 4), (-1,)), ((3, 4), (2, -1)),
    ((3, 4), (2, 3, 2)), ((3, 4), (1, 12, 1)), ((2, 3, 4), (6, 4)), ((2, 3, 4), (2, 12)),
    ((2, 3, 4), (-1, 2)), ((12,), (3, 1, 4)), ((), (1,)), ((1,), ()), ((1, 1), ()),
    ((0, 3), (3, 0)), ((0, 3), (-1, 3)), ((0,), (0, 5)), ((5,), (5,)),
]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape,new", RESHAPES, ids=[f"{s}->{n}" for s, n in RESHAPES])
def test_reshape_contiguous_is_a_view(shape, new, order):
    h, g = _pair(shape, np.float64, 22)
    hr, gr = h.reshape(new, order=order), g.reshape(new, order=order)
    assert_parity(gr, hr, kind="exact")
    _same_strides(gr, hr)
    if np.shares_memory(hr, h) and h.size:
        assert gr.data.mem is g.data.mem
        assert gr.ptr == g.ptr
        assert gr.base is g


def test_reshape_argument_forms():
    h, g = _pair((2, 6), np.int32, 23)
    assert_parity(g.reshape(3, 4), h.reshape(3, 4))
    assert_parity(g.reshape((3, 4)), h.reshape((3, 4)))
    assert_parity(g.reshape([4, 3]), h.reshape([4, 3]))
    assert_parity(g.reshape(12), h.reshape(12))
    assert_parity(g.reshape(np.int64(12)), h.reshape(np.int64(12)))


NONCONTIG_RESHAPES = [
    ("transposed", (6, 8), (48,)), ("transposed", (6, 8), (4, 12)),
    ("strided", (6, 8), (-1,)), ("reversed", (6, 8), (8, 6)),
    ("transposed_strided", (6, 8), (2, 12)),
]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("layout,shape,new", NONCONTIG_RESHAPES,
                         ids=[f"{l}-{n}" for l, _, n in NONCONTIG_RESHAPES])
def test_reshape_non_contiguous_copies_when_needed(layout, shape, new, order):
    hh, gg = _layout(layout, random_array(shape, np.float32, 24))
    hr, gr = hh.reshape(new, order=order), gg.reshape(new, order=order)
    assert_parity(gr, hr, kind="exact")
    if np.shares_memory(hr, hh):
        assert gr.data.mem is gg.data.mem
        assert gr.strides == hr.strides
    else:
        assert gr.data.mem is not gg.data.mem


def test_reshape_view_when_strides_allow():
    # a column slice of a C array can be split without a copy
    h, g = _pair((4, 6), np.float64, 25)
    hv, gv = h[:, :4].reshape(4, 2, 2), g[:, :4].reshape(4, 2, 2)
    assert np.shares_memory(hv, h)
    assert gv.data.mem is g.data.mem
    assert gv.strides == hv.strides
    assert_parity(gv, hv)


RESHAPE_ERRORS = [
    ((3, 4), (5, 3)), ((3, 4), (-1, -1)), ((3, 4), (-1, 5)),
    ((3, 4), (0, -1)), ((0,), (-1, 0)), ((3, 4), (2.5, 4)), ((3, 4), ("3", 4)),
]


@pytest.mark.parametrize("shape,new", RESHAPE_ERRORS, ids=[f"{s}->{n}" for s, n in RESHAPE_ERRORS])
def test_reshape_errors(shape, new):
    h, g = _pair(shape)
    assert_raises_like(lambda: h.reshape(new), lambda: g.reshape(new))


def test_reshape_error_message_matches_numpy():
    # (shapes with -1: NumPy's message drops the unknown axis, "(5)"; not pinned)
    h, g = _pair((3, 4))
    for new in [(5, 3), (7,), (2, 2, 2)]:
        np_exc, gp_exc = assert_raises_like(lambda: h.reshape(new), lambda: g.reshape(new))
        assert str(gp_exc) == str(np_exc)


def test_reshape_bad_order():
    g = gp.arange(4)
    with pytest.raises(ValueError):
        g.reshape(2, 2, order="X")


def test_shape_setter():
    h, g = _pair((3, 4), np.int64, 26)
    g.shape = (4, 3)
    h.shape = (4, 3)
    assert_parity(g, h)
    assert g.strides == h.strides
    ht, gt = h.T, g.T
    np_exc, gp_exc = assert_raises_like(lambda: setattr(ht, "shape", (12,)),
                                        lambda: setattr(gt, "shape", (12,)))
    assert isinstance(gp_exc, AttributeError)
    assert gt.shape == (3, 4)


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_ravel(layout, order):
    hh, gg = _layout(layout, random_array((6, 8), np.int16, 27))
    hr, gr = hh.ravel(order), gg.ravel(order)
    assert_parity(gr, hr, kind="exact")
    assert (gr.data.mem is gg.data.mem) == np.shares_memory(hr, hh)


def test_flatten_is_a_copy():
    h, g = _pair((3, 4), np.float64, 28)
    for order in ("C", "F"):
        f = g.flatten(order)
        assert_parity(f, h.flatten(order))
        assert f.data.mem is not g.data.mem


@pytest.mark.parametrize("shape,axis", [((1, 3, 1), None), ((1, 3, 1), 0), ((1, 3, 1), (0, 2)),
                                        ((1, 3, 1), -1), ((), None), ((1,), 0)])
def test_squeeze(shape, axis):
    h, g = _pair(shape, np.float32, 29)
    assert_parity(g.squeeze(axis), h.squeeze(axis))
    h2, g2 = _pair((1, 3), np.float32, 29)
    assert_raises_like(lambda: h2.squeeze(1), lambda: g2.squeeze(1))


# ------------------------------------------------------------------ transpose

TRANSPOSES = [((2, 3, 4), ()), ((2, 3, 4), ((1, 0, 2),)), ((2, 3, 4), (1, 0, 2)),
              ((2, 3, 4), ((-1, 0, 1),)), ((2, 3, 4), (None,)), ((5,), ()), ((), ()),
              ((3, 4), ((1, 0),)), ((2, 0, 3), ())]


@pytest.mark.parametrize("shape,axes", TRANSPOSES, ids=[f"{s}-{a}" for s, a in TRANSPOSES])
def test_transpose(shape, axes):
    h, g = _pair(shape, np.complex64, 30)
    ht, gt = h.transpose(*axes), g.transpose(*axes)
    assert_parity(gt, ht, kind="exact")
    _same_strides(gt, ht)
    assert gt.base is g


@pytest.mark.parametrize("axes", [(0, 0, 1), (0, 1), (0, 1, 3), (0, 1, 2, 3), (0, 1, -4)])
def test_transpose_errors(axes):
    h, g = _pair((2, 3, 4))
    assert_raises_like(lambda: h.transpose(axes), lambda: g.transpose(axes))


# ------------------------------------------------------------------ get / set

@pytest.mark.parametrize("layout", LAYOUTS)
def test_get(layout):
    hh, gg = _layout(layout, random_array((6, 8), np.float64, 31))
    out = gg.get()
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, hh)
    assert gp.asnumpy(gg).dtype == hh.dtype


def test_get_into_out():
    h, g = _pair((4, 5), np.float32, 32)
    out = np.empty((4, 5), np.float32)
    assert g.get(out=out) is out
    np.testing.assert_array_equal(out, h)
    outf = np.empty((4, 5), np.float32, order="F")
    assert g.get(out=outf) is outf
    np.testing.assert_array_equal(outf, h)
    with pytest.raises(ValueError):
        g.get(out=np.empty((5, 4), np.float32))
    with pytest.raises(ValueError):
        g.get(out=np.empty((4, 5), np.float64))


def test_set():
    h, g = _pair((4, 5), np.int32, 33)
    new = random_array((4, 5), np.int32, 34)
    g.set(new)
    assert_parity(g, new)
    # from a non-contiguous host array and a different dtype
    src = random_array((5, 4), np.int64, 35, low=-50, high=50).T
    g.set(src)
    assert_parity(g, src.astype(np.int32))
    # into a non-contiguous view: only the view changes
    g2 = gp.zeros((4, 6), dtype=gp.int32)
    g2[:, ::2].set(np.ones((4, 3), np.int32))
    expected = np.zeros((4, 6), np.int32)
    expected[:, ::2] = 1
    assert_parity(g2, expected)
    with pytest.raises(ValueError, match="shape"):
        g.set(np.zeros((5, 4)))


def test_tolist_and_item():
    h, g = _pair((2, 3), np.int16, 36)
    assert g.tolist() == h.tolist()
    assert g.item(4) == h.item(4)
    assert gp.asarray(np.float32(2.5)).item() == 2.5
    assert_raises_like(lambda: h.item(), lambda: g.item())


# ------------------------------------------------------------------ fill

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_fill(dtype):
    for shape in [(), (0,), (5,), (3, 4)]:
        for value in (0, 1, True, 3.75, -2):
            h = np.empty(shape, dtype)
            g = gp.empty(shape, dtype=dtype)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    h.fill(value)
            except (OverflowError, ValueError, TypeError) as e:
                with pytest.raises(type(e)):
                    g.fill(value)
                continue
            g.fill(value)
            assert_parity(g, h, kind="exact", err_msg=f"fill({value!r}) {shape}")


def test_fill_view_only_touches_the_view():
    h, g = _pair((4, 6), np.float64, 37)
    h[::2, 1::2].fill(-1.5)
    g[::2, 1::2].fill(-1.5)
    assert_parity(g, h, kind="exact")
    h.T[::-1].fill(2)
    g.T[::-1].fill(2)
    assert_parity(g, h, kind="exact")


def test_fill_errors_like_numpy():
    h = np.zeros(3, np.int8)
    g = gp.zeros(3, dtype=gp.int8)
    assert_raises_like(lambda: h.fill(300), lambda: g.fill(300))
    assert_raises_like(lambda: h.fill(np.nan), lambda: g.fill(np.nan))
    hu, gu = np.zeros(2, np.uint8), gp.zeros(2, dtype=gp.uint8)
    assert_raises_like(lambda: hu.fill(-1), lambda: gu.fill(-1))
    # fill with a 0-d device array
    g2 = gp.zeros(4)
    g2.fill(gp.asarray(np.float64(3.0)))
    np.testing.assert_array_equal(gp.asnumpy(g2), np.full(4, 3.0))
    with pytest.raises(ValueError):
        g2.fill(gp.ones(2))


# ------------------------------------------------------------------ repr

REPR_SHAPES = [(), (0,), (5,), (2, 3), (2, 0), (1, 2, 2)]


@pytest.mark.parametrize("shape", REPR_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_repr_and_str_equal_numpy(dtype, shape):
    h, g = _pair(shape, dtype, 38)
    assert repr(g) == repr(h)
    assert str(g) == str(h)


def test_repr_with_specials_and_views():
    h = with_specials(random_array((3, 5), np.float64, 39), 39)
    g = gp.asarray(h)
    assert repr(g) == repr(h)
    assert repr(g.T[::-1]) == repr(h.T[::-1])
    assert f"{gp.asarray(np.float64(1.5)):.3f}" == "1.500"


# ------------------------------------------------------------------ host conversion

def test_implicit_numpy_conversion_raises_type_error_mentioning_asnumpy():
    g = gp.arange(3.0)
    for f in (np.asarray, np.array, lambda x: np.asarray(x, dtype=np.float32)):
        with pytest.raises(TypeError, match="asnumpy"):
            f(g)
    with pytest.raises(TypeError, match="asnumpy"):
        g.__array__()
    with pytest.raises(TypeError, match="asnumpy"):
        g.__array__(np.float64, copy=True)


SCALAR_CONVERSIONS = [(bool, 0), (bool, 2.5), (int, -7), (int, 3.9), (float, 2.5),
                      (float, 3), (complex, 1 + 2j), (complex, 4)]


@pytest.mark.parametrize("shape", [(), (1,), (1, 1)], ids=str)
@pytest.mark.parametrize("conv,value", SCALAR_CONVERSIONS,
                         ids=[f"{c.__name__}-{v!r}" for c, v in SCALAR_CONVERSIONS])
def test_scalar_conversion_of_size_1_arrays(conv, value, shape):
    h = np.full(shape, value)
    g = gp.asarray(h)
    try:
        conv(h)
    except TypeError:
        # NumPy >= 2.? converts only 0-d arrays to int/float/complex
        assert_raises_like(lambda: conv(h), lambda: conv(g))
        return
    res = conv(g)
    assert type(res) is conv
    assert res == conv(h)


@pytest.mark.parametrize("conv", [bool, int, float, complex])
@pytest.mark.parametrize("shape", [(2,), (0,), (2, 2)], ids=str)
def test_scalar_conversion_errors(conv, shape):
    h = np.ones(shape)
    g = gp.asarray(h)
    assert_raises_like(lambda: conv(h), lambda: conv(g))


def test_operator_index():
    assert operator.index(gp.asarray(np.int32(3))) == 3
    assert [10, 20, 30, 40][gp.asarray(np.int64(2))] == 30
    for bad in (gp.asarray(np.float64(3)), gp.asarray(np.array([3]))):
        with pytest.raises(TypeError):
            operator.index(bad)


# ------------------------------------------------------------------ constructor / shapes

def test_ndarray_constructor():
    g = gp.ndarray((2, 3), dtype=np.float32)
    assert g.shape == (2, 3) and g.dtype == np.float32 and g.flags.c_contiguous
    gf = gp.ndarray((2, 3), dtype=np.int8, order="F")
    assert gf.flags.f_contiguous and gf.strides == (1, 2)
    assert gp.ndarray(4).shape == (4,)
    assert gp.ndarray(4).dtype == np.float64
    g.fill(1)
    v = gp.ndarray((3,), dtype=np.float32, memptr=g.data.mem, strides=(8,))
    np.testing.assert_array_equal(gp.asnumpy(v), np.ones(3, np.float32))
    with pytest.raises(ValueError):
        gp.ndarray((2,), strides=(8,))
    with pytest.raises(ValueError):
        gp.ndarray((2,), order="X")


@pytest.mark.parametrize("bad", [-1, (2, -3), (-1,)])
def test_negative_dimensions(bad):
    np_exc, gp_exc = assert_raises_like(lambda: np.empty(bad), lambda: gp.empty(bad))
    assert str(gp_exc) == str(np_exc)


@pytest.mark.parametrize("bad", [2.5, (2, 2.0), "3", None, (2, None)])
def test_non_integer_shapes(bad):
    assert_raises_like(lambda: np.empty(bad), lambda: gp.empty(bad))


@pytest.mark.parametrize("dtype,expected", [(int, np.int64), (float, np.float64),
                                            (complex, np.complex128), (bool, np.bool_),
                                            ("f4", np.float32), ("int16", np.int16),
                                            (np.dtype("u8"), np.uint64), (None, np.float64),
                                            ("e", np.float16), ("<c8", np.complex64)])
def test_dtype_spellings(dtype, expected):
    assert gp.empty(2, dtype=dtype).dtype == np.dtype(expected)


def test_pickle_round_trip():
    import pickle
    h, g = _pair((3, 4), np.float32, 40)
    g2 = pickle.loads(pickle.dumps(g))
    assert isinstance(g2, gp.ndarray)
    assert_parity(g2, h)


def test_array_namespace_and_dlpack_device():
    g = gp.arange(3)
    assert g.__array_namespace__() is gp
    assert g.__dlpack_device__() == (2, 0)
    with pytest.raises(TypeError):
        hash(g)
