"""Stream compaction (nonzero, argwhere, flatnonzero, extract, compress,
place, where(cond)): parity with NumPy on the GPU, exact (indices and
copied values). Kernel compilation is covered by test_scan.py."""

import numpy as np
import pytest

from ._parity import ALL_DTYPES, assert_parity, assert_raises_like, dtype_id, random_array

pytestmark = pytest.mark.gpu

SIZES = [1, 1023, 1024, 1025, 4097, 2**20 + 7]


@pytest.mark.parametrize("n", SIZES)
def test_nonzero_1d_sizes(n):
    import gpuscipy_core as gp
    rng = np.random.default_rng(n)
    for p in (0.0, 0.01, 0.5, 1.0):
        h = rng.random(n) < p
        assert_parity(gp.nonzero(gp.asarray(h)), np.nonzero(h))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=dtype_id)
def test_nonzero_every_dtype(dt):
    import gpuscipy_core as gp
    h = random_array((5, 7, 3), dt, 1, low=-1, high=2)
    if dt.kind in "fc":
        h.flat[3] = np.nan
        h.flat[4] = -0.0
    g = gp.asarray(h)
    r = gp.nonzero(g)
    assert isinstance(r, tuple) and len(r) == 3
    assert_parity(r, np.nonzero(h))
    assert_parity(gp.argwhere(g), np.argwhere(h))
    assert_parity(gp.flatnonzero(g), np.flatnonzero(h))
    assert_parity(gp.where(g), np.where(h))
    assert_parity(g.nonzero(), h.nonzero())


@pytest.mark.parametrize("view", ["T", "neg", "step", "empty", "size1"])
def test_nonzero_layouts(view):
    import gpuscipy_core as gp
    h = random_array((6, 9), np.int16, 2, low=-1, high=2)
    g = gp.asarray(h)
    pick = {"T": lambda a: a.T, "neg": lambda a: a[::-1, ::-2], "step": lambda a: a[:, 1::3],
            "empty": lambda a: a[:0], "size1": lambda a: a[2:3, 4:5]}[view]
    assert_parity(gp.nonzero(pick(g)), np.nonzero(pick(h)))
    assert_parity(gp.argwhere(pick(g)), np.argwhere(pick(h)))


def test_nonzero_0d_and_argwhere_0d():
    import gpuscipy_core as gp
    assert_raises_like(lambda: np.nonzero(np.array(1)), lambda: gp.nonzero(gp.asarray(1)),
                       match="0d arrays")
    for v in (0, 1):
        assert_parity(gp.argwhere(gp.asarray(v)), np.argwhere(np.array(v)))
        assert_parity(gp.flatnonzero(gp.asarray(v)), np.flatnonzero(np.array(v)))


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=dtype_id)
def test_extract_compress_place(dt):
    import gpuscipy_core as gp
    h = random_array((4, 5), dt, 3)
    c = random_array((4, 5), np.bool_, 4)
    g, gc = gp.asarray(h), gp.asarray(c)
    assert_parity(gp.extract(gc, g), np.extract(c, h))
    assert_parity(gp.extract(gc[:2], g), np.extract(c[:2], h))
    cond = np.array([True, False, True, True])
    for axis in (None, 0, 1, -1):
        cc = cond if axis in (0,) else np.array([True, False, True])
        assert_parity(gp.compress(gp.asarray(cc), g, axis=axis), np.compress(cc, h, axis=axis))
    assert_parity(g.compress(gp.asarray(cond), axis=0), h.compress(cond, axis=0))
    o = gp.empty((2, 5), dt)
    r = gp.compress(gp.asarray(np.array([False, True, True])), g, axis=0, out=o)
    assert r is o
    assert_parity(o, np.compress([False, True, True], h, axis=0))
    hp, gpl = h.copy(), gp.asarray(h.copy())
    vals = random_array(3, dt, 5)
    np.place(hp, c, vals)
    gp.place(gpl, gc, gp.asarray(vals))
    assert_parity(gpl, hp)
    # non-contiguous target
    hp2, gp2 = h.copy(), gp.asarray(h.copy())
    np.place(hp2.T, c.T, vals)
    gp.place(gp2.T, gc.T, gp.asarray(vals))
    assert_parity(gp2, hp2)


@pytest.mark.parametrize("n", [1025, 2**20 + 7])
def test_extract_large(n):
    import gpuscipy_core as gp
    rng = np.random.default_rng(9)
    h = rng.random(n).astype(np.float32)
    assert_parity(gp.extract(gp.asarray(h > 0.3), gp.asarray(h)), np.extract(h > 0.3, h),
                  kind="exact")


def test_compaction_bad_input():
    import gpuscipy_core as gp
    a = np.arange(3)
    g = gp.asarray(a)
    assert_raises_like(lambda: np.compress([False, False, False, True], a),
                       lambda: gp.compress(gp.asarray(np.array([False, False, False, True])), g),
                       match="out of bounds")
    assert_raises_like(lambda: np.compress([[True]], a),
                       lambda: gp.compress(gp.asarray(np.array([[True]])), g), match="1-d")
    assert_raises_like(lambda: np.extract([0, 0, 0, 1], a),
                       lambda: gp.extract(gp.asarray(np.array([0, 0, 0, 1])), g),
                       match="out of bounds")
    assert_raises_like(lambda: np.place(a.copy(), [True, False], [1]),
                       lambda: gp.place(g, gp.asarray(np.array([True, False])), [1]),
                       match="same size")
    assert_raises_like(lambda: np.place(a.copy(), [True, False, False], []),
                       lambda: gp.place(g, gp.asarray(np.array([True, False, False])),
                                        gp.zeros(0, a.dtype)), match="empty")
    assert_raises_like(lambda: np.place([1, 2], [True, False], [1]),
                       lambda: gp.place([1, 2], [True, False], [1]), match="argument 1")
