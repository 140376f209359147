"""Manipulation routines against NumPy: views stay views, copies match.

Kernel-source tests (remap, tril/triu, copyto bodies) run without a GPU; the
parity tests are marked ``gpu``.
"""

import numpy as np
import pytest

from gpuscipy_core._kernel._nvrtc import compile_cubin
from gpuscipy_core._kernel._elementwise_source import elementwise_source
from gpuscipy_core._routines import _indexing as I

from ._parity import ALL_DTYPES, assert_parity, assert_raises_like, dtype_id, random_array

gpu = pytest.mark.gpu


@pytest.mark.parametrize("spec", [(1, 1, True), (2, 2, True), (4, 3, False), (8, 4, True),
                                  (16, 2, True), (16, 6, False)], ids=str)
def test_remap_source_compiles(spec):
    name, src = I.remap_source(*spec)
    assert name.startswith("gs_remap_w")
    assert compile_cubin(src, name)


@pytest.mark.parametrize("dtype", ["?", "u2", "e", "f8", "c8"])
@pytest.mark.parametrize("lower", [True, False])
def test_tri_body_compiles(dtype, lower):
    from gpuscipy_core._elementwise import ctype
    dt = np.dtype(dtype)
    c = ctype(dt)
    cond = "c - r <= k" if lower else "c - r >= k"
    al = dt.itemsize if dt.kind == "c" else dt.alignment
    args = (("in", c, "x", dt.itemsize, al), ("scalar", "long long", "nr", 8, 8),
            ("scalar", "long long", "nc", 8, 8), ("scalar", "long long", "k", 8, 8),
            ("out", c, "y", dt.itemsize, al))
    body = (f"const long long c = (long long)(i % (I)nc); "
            f"const long long r = (long long)((i / (I)nc) % (I)nr); "
            f"y = ({cond}) ? x : gs::cast<{c}>(0);")
    for nd in (0, 3):
        name = f"t_tri_{dt.str[1:]}_{int(lower)}_{nd}"
        assert compile_cubin(elementwise_source(name, args, body, nd), name)


def _pair(shape, dtype=np.float64, seed=0):
    import gpuscipy_core as gp
    h = random_array(shape, dtype, seed)
    return h, gp.asarray(h)


@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_concatenate_and_stacks(dtype):
    import gpuscipy_core as gp
    hs = [random_array((2, 3), dtype, s) for s in range(3)]
    gs = [gp.asarray(h) for h in hs]
    for axis in (0, 1, -1, None):
        assert_parity(gp.concatenate(gs, axis), np.concatenate(hs, axis), kind="exact")
    assert_parity(gp.concatenate([gs[0][:, ::-1], gs[1].T.T]),
                  np.concatenate([hs[0][:, ::-1], hs[1]]), kind="exact")
    for f in ("stack", "hstack", "vstack", "dstack", "column_stack"):
        assert_parity(getattr(gp, f)(gs), getattr(np, f)(hs), kind="exact")
    assert_parity(gp.stack(gs, axis=2), np.stack(hs, axis=2), kind="exact")


@gpu
def test_concatenate_promotes_and_errors():
    import gpuscipy_core as gp
    a, b = np.arange(3, dtype=np.int8), np.arange(2.0)
    assert_parity(gp.concatenate([gp.asarray(a), gp.asarray(b)]), np.concatenate([a, b]))
    assert_parity(gp.concatenate([gp.asarray(a), gp.asarray(b)], dtype=np.float32),
                  np.concatenate([a, b], dtype=np.float32))
    cases = [
        lambda m, x: m.concatenate([]),
        lambda m, x: m.concatenate([x(np.float64(1)), x(np.float64(2))]),
        lambda m, x: m.concatenate([x(np.zeros((2, 2))), x(np.zeros(2))]),
        lambda m, x: m.concatenate([x(np.zeros((2, 2))), x(np.zeros((2, 3)))]),
        lambda m, x: m.concatenate([x(np.zeros(2)), x(np.zeros(2))], dtype=np.int64),
        lambda m, x: m.stack([x(np.zeros(2)), x(np.zeros(3))]),
        lambda m, x: m.split(x(np.zeros(5)), 2),
    ]
    for c in cases:
        assert_raises_like(lambda: c(np, np.asarray), lambda: c(gp, gp.asarray))


@gpu
def test_split_repeat_argument_errors_as_numpy():
    import gpuscipy_core as gp
    h = np.arange(4.0)
    cases = [
        (lambda m, x: m.split(x(h), 0), "modulo by zero"),
        (lambda m, x: m.array_split(x(h), "2"), "slice indices"),
        (lambda m, x: m.array_split(x(h), [1, 2.0]), "slice indices"),
        (lambda m, x: m.repeat(x(h), [[2]]), "maximum number of dimension"),
        (lambda m, x: m.repeat(x(h), [[2, 2, 2, 2]]), "maximum number of dimension"),
        (lambda m, x: m.repeat(x(h), x(np.array([[2]]))), "too deep"),
        (lambda m, x: m.repeat(x(h), x(np.array(2.0))), "safe"),
        (lambda m, x: m.repeat(x(h), 2 + 0j), None),
        (lambda m, x: m.repeat(x(h), [-1]), "negative"),
    ]
    for c, match in cases:
        assert_raises_like(lambda: c(np, np.asarray), lambda: c(gp, gp.asarray), match)
    g = gp.asarray(h)
    # Python counts convert element by element with int(), as NumPy does.
    for reps in (2.0, 2.7, "2", [2.0, 1, 0, 3], ["2", "1", "1", "1"], [True],
                 np.float32(2.5), [[2]][0]):
        assert_parity(gp.repeat(g, reps), np.repeat(h, reps), kind="exact")
    assert_parity(gp.array_split(g, [None, 2])[1], np.array_split(h, [None, 2])[1],
                  kind="exact")


@gpu
def test_split_family_returns_views():
    import gpuscipy_core as gp
    h, g = _pair((6, 4, 2))
    for f, arg in [("split", 3), ("split", [1, 4]), ("array_split", 4), ("hsplit", 2),
                   ("vsplit", [2]), ("dsplit", 2), ("array_split", [2, 10])]:
        rg, rh = getattr(gp, f)(g, arg), getattr(np, f)(h, arg)
        assert len(rg) == len(rh)
        for x, y in zip(rg, rh):
            assert_parity(x, y, kind="exact")
            assert x.base is g or x.size == 0


@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("mode,kw", [("constant", {}), ("constant", {"constant_values": ((1, 2), (3, 4))}),
                                     ("edge", {}), ("wrap", {}), ("reflect", {}),
                                     ("symmetric", {}), ("reflect", {"reflect_type": "odd"}),
                                     ("symmetric", {"reflect_type": "odd"}),
                                     ("linear_ramp", {"end_values": (5, -2)}),
                                     ("maximum", {})], ids=str)
def test_pad(dtype, mode, kw):
    import gpuscipy_core as gp
    if dtype.kind == "b" and (mode == "linear_ramp" or kw.get("reflect_type") == "odd"):
        pytest.skip("NumPy rejects arithmetic on bool here")
    h = random_array((4, 5), dtype, 7)
    g = gp.asarray(h)
    for pw in (1, (2, 3), ((0, 2), (3, 1))):
        tol = {} if mode != "linear_ramp" else {"kind": "arith"}
        r = gp.pad(g, pw, mode, **kw)
        e = np.pad(h, pw, mode, **kw)
        if mode == "linear_ramp" and dtype.kind in "fc":
            assert_parity(r, e, rtol=1e-2 if dtype.char in "e" else 1e-6, atol=1e-6)
        else:
            assert_parity(r, e, **({"kind": "exact"} if not tol else tol))
    if mode in ("reflect", "symmetric", "wrap") and "reflect_type" not in kw:
        assert_parity(gp.pad(g[::-1], 9, mode), np.pad(h[::-1], 9, mode), kind="exact")


@gpu
@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int64, np.float16, np.float32,
                                   np.float64, np.bool_], ids=dtype_id)
@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median"])
def test_pad_stat_modes_on_device(dtype, mode):
    # computed on the device axis by axis (NumPy's order: the statistic of a
    # later axis sees the pads of the earlier ones); integer mean/median round
    import gpuscipy_core as gp
    h = random_array((3, 4, 5), dtype, 11)
    if dtype == np.float64:
        h[1, 2, 3] = np.nan
    g = gp.asarray(h)
    # A float mean is summed in another order (and, for float16/float32, in a
    # wider type) than NumPy's pairwise sum: the rounding error of the sum is
    # bounded by a few ulps of max|x|, not of the (possibly cancelling) mean.
    tol = {}
    if mode == "mean" and np.dtype(dtype).kind == "f":
        finite = np.abs(h[np.isfinite(h)]).astype(np.float64)
        tol = dict(rtol=0, atol=8 * float(np.finfo(dtype).eps) * float(finite.max()))
    kind = "arith" if tol else "exact"
    for pw, sl in [(1, None), ((2, 3), 2), (((1, 0), (0, 2), (3, 1)), (1, 3)),
                   (7, ((2, 1), (1, 2), (4, 4))), (0, None)]:
        kw = {} if sl is None else {"stat_length": sl}
        assert_parity(gp.pad(g, pw, mode, **kw), np.pad(h, pw, mode, **kw), kind=kind,
                      **tol)
    assert_parity(gp.pad(g[::-1, :, ::2], 2, mode), np.pad(h[::-1, :, ::2], 2, mode),
                  kind=kind, **tol)
    if mode in ("maximum", "minimum"):
        assert_raises_like(lambda: np.pad(h, 1, mode, stat_length=0),
                           lambda: gp.pad(g, 1, mode, stat_length=0),
                           match="stat_length of 0")
    assert_raises_like(lambda: np.pad(h, 1, mode, stat_length=-1),
                       lambda: gp.pad(g, 1, mode, stat_length=-1), match="negative")


@gpu
@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.float32, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("mode", ["reflect", "symmetric"])
def test_pad_odd_reflection_wider_than_the_array(dtype, mode):
    # NumPy reflects period by period, each round on what is already padded
    import gpuscipy_core as gp
    h = random_array((4, 3), dtype, 12)
    g = gp.asarray(h)
    for pw in (9, (0, 11), ((13, 2), (5, 7)), ((1, 1), (0, 8))):
        assert_parity(gp.pad(g, pw, mode, reflect_type="odd"),
                      np.pad(h, pw, mode, reflect_type="odd"), kind="exact")
    h1 = random_array((1, 3), dtype, 13)
    assert_parity(gp.pad(gp.asarray(h1), 5, mode, reflect_type="odd"),
                  np.pad(h1, 5, mode, reflect_type="odd"), kind="exact")


@gpu
def test_pad_errors():
    import gpuscipy_core as gp
    h = np.zeros((2, 0))
    g = gp.asarray(h)
    assert_raises_like(lambda: np.pad(h, 1, "edge"), lambda: gp.pad(g, 1, "edge"))
    assert_raises_like(lambda: np.pad(h, -1), lambda: gp.pad(g, -1))
    assert_raises_like(lambda: np.pad(h, 1.5), lambda: gp.pad(g, 1.5))
    assert_raises_like(lambda: np.pad(h, 1, "foo"), lambda: gp.pad(g, 1, "foo"))
    assert_parity(gp.pad(g, 1), np.pad(h, 1))


@gpu
def test_view_routines_are_views():
    import gpuscipy_core as gp
    h, g = _pair((2, 3, 4), np.int32, 3)
    cases = [
        ("flip", (), {}), ("flip", (1,), {}), ("flip", ((0, 2),), {}),
        ("fliplr", (), {}), ("flipud", (), {}), ("rot90", (), {}), ("rot90", (2,), {}),
        ("rot90", (3, (1, 2)), {}), ("rot90", (-1,), {}),
        ("expand_dims", (0,), {}), ("expand_dims", ((1, -1),), {}),
        ("moveaxis", (0, -1), {}), ("moveaxis", ((0, 1), (2, 0)), {}),
        ("swapaxes", (0, 2), {}), ("transpose", (), {}), ("transpose", ((1, 0, 2),), {}),
        ("diagonal", (), {}), ("diagonal", (1, 1, 2), {}), ("diagonal", (-1, 2, 0), {}),
        ("broadcast_to", ((5, 2, 3, 4),), {}), ("reshape", ((4, 6),), {}),
        ("ravel", (), {}), ("squeeze", (), {}),
    ]
    for name, args, kw in cases:
        rg = getattr(gp, name)(g, *args, **kw)
        rh = getattr(np, name)(h, *args, **kw)
        assert_parity(rg, rh, kind="exact", err_msg=name)
        assert rg.base is g, name
    assert_parity(gp.broadcast_arrays(g, gp.asarray(np.arange(4))),
                  np.broadcast_arrays(h, np.arange(4)), kind="exact")
    assert_raises_like(lambda: np.broadcast_to(h, (3,)), lambda: gp.broadcast_to(g, (3,)),
                       match="could not be broadcast")
    assert_raises_like(lambda: np.diagonal(np.zeros(3)), lambda: gp.diagonal(gp.zeros(3)))
    assert_raises_like(lambda: np.rot90(h, axes=(0, 0)), lambda: gp.rot90(g, axes=(0, 0)))


@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_roll_repeat_tile(dtype):
    import gpuscipy_core as gp
    h = random_array((3, 4), dtype, 9)
    g = gp.asarray(h)
    for shift, axis in [(1, None), (-5, None), (2, 1), ((1, -2), (0, 1)), ((1, 1), (1, 1)),
                        (7, 0)]:
        assert_parity(gp.roll(g, shift, axis), np.roll(h, shift, axis), kind="exact")
    for reps, axis in [(2, None), (3, 0), (0, 1), ([1, 0, 2], 0), ([2, 1, 0, 3], 1)]:
        assert_parity(gp.repeat(g, reps, axis), np.repeat(h, reps, axis), kind="exact")
    assert_parity(g.repeat(2, axis=1), h.repeat(2, axis=1), kind="exact")
    for reps in (2, (2, 1), (1, 3), (2, 2, 2), 0):
        assert_parity(gp.tile(g, reps), np.tile(h, reps), kind="exact")
    assert_parity(gp.roll(g[::-1, ::-2], 1, 1), np.roll(h[::-1, ::-2], 1, 1), kind="exact")


@gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_tril_triu_trace(dtype):
    import gpuscipy_core as gp
    h = random_array((2, 4, 5), dtype, 11)
    g = gp.asarray(h)
    for k in (0, 1, -2, 9):
        assert_parity(gp.tril(g, k), np.tril(h, k), kind="exact")
        assert_parity(gp.triu(g[..., ::-1], k), np.triu(h[..., ::-1], k), kind="exact")
    assert_parity(gp.tril(g[0, 0]), np.tril(h[0, 0]), kind="exact")
    if dtype.kind != "b":
        assert_parity(gp.trace(g, 1, 1, 2), np.trace(h, 1, 1, 2))
        assert_parity(g[0].trace(), h[0].trace())


@gpu
def test_meshgrid_atleast_index_math_copyto():
    import gpuscipy_core as gp
    x, y, z = np.arange(3.0), np.arange(4), np.arange(2.0)
    gx, gy, gz = (gp.asarray(v) for v in (x, y, z))
    for kw in ({}, {"indexing": "ij"}, {"sparse": True}, {"copy": False}):
        assert_parity(gp.meshgrid(gx, gy, gz, **kw), np.meshgrid(x, y, z, **kw))
    for f in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for v in (np.float64(1), x, np.zeros((2, 3))):
            assert_parity(getattr(gp, f)(gp.asarray(v)), getattr(np, f)(v))
    mi = (np.array([0, 2, 1]), np.array([3, 0, 4]))
    for order in ("C", "F"):
        assert_parity(gp.ravel_multi_index(tuple(gp.asarray(m) for m in mi), (3, 5), order=order),
                      np.ravel_multi_index(mi, (3, 5), order=order))
        assert_parity(gp.unravel_index(gp.asarray([0, 7, 14]), (3, 5), order=order),
                      np.unravel_index([0, 7, 14], (3, 5), order=order))
    assert_raises_like(lambda: np.ravel_multi_index(([5],), (3,)),
                       lambda: gp.ravel_multi_index((gp.asarray([5]),), (3,)),
                       match="invalid entry")
    assert_raises_like(lambda: np.unravel_index([15], (3, 5)),
                       lambda: gp.unravel_index(gp.asarray([15]), (3, 5)),
                       match="out of bounds")
    dst_h, dst_g = np.zeros((2, 3)), gp.zeros((2, 3))
    np.copyto(dst_h, np.arange(3))
    gp.copyto(dst_g, gp.asarray(np.arange(3)))
    assert_parity(dst_g, dst_h)
    mask = np.array([[True, False, True], [False, True, False]])
    np.copyto(dst_h, 7.0, where=mask)
    gp.copyto(dst_g, 7.0, where=gp.asarray(mask))
    assert_parity(dst_g, dst_h)
    assert_raises_like(lambda: np.copyto(np.zeros(3, int), np.zeros(3)),
                       lambda: gp.copyto(gp.zeros(3, int), gp.zeros(3)), match="Cannot cast")
