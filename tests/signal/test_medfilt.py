"""CPU tests of the rank-selection kernels: medfilt, medfilt2d, order_filter
(gpuscipy/signal/_convolve_medfilt.py/.cuh, _order_filter.py).

* Host rules against the installed SciPy: every error (type and message)
  of order_filter and medfilt2d, rank normalisation, medfilt2d's fallback
  to medfilt for dtypes other than uint8/float32/float64 (drivers run with
  NumPy arrays; the kernel launch replaced where only the rules are tested).
* The plan: which kernel takes which window, rank and dtype.
* NumPy models: ``model_order`` (the reference: gather and sort) against
  SciPy's order_filter, medfilt and medfilt2d; ``model_sliding`` (the ring
  and window kernels' algorithm on the keys: bitwise or refined first
  output, refinement from the previous answer) against ``model_order``,
  with the ring's property that every step after a run's first takes one
  pass.
* The CUDA kernels on the host emulator of test_convolve_emulated (g++):
  every kind forced (net, ring, window 3-D and N-d), every kernel dtype,
  masks with holes, ranks 0, middle, -1, run lengths and first-output
  methods, strided and reversed inputs, NaN and inf, grid-stride loops.
* NVRTC: the ring kernels keep everything in registers and their rings in
  48 KiB of static shared memory (every variant's compile is
  test_convolve's test_every_kernel_variant_compiles).

Tolerances: none; selections are exact (NaN compared as NaN).
"""

import math
import re
import warnings
import zlib

import numpy as np
import pytest
import scipy.signal as ss

from gpuscipy_core.kernel import read_source
from gpuscipy.signal import _convolve_direct as D
from gpuscipy.signal import _convolve_medfilt as M
from gpuscipy.signal import _order_filter as O

from .test_convolve_emulated import emu, run  # noqa: F401 (fixtures)

KERNEL_DTYPES = ["i4", "u4", "i8", "u8", "f4", "f8"]
ALL_DTYPES = ["i1", "u1", "i2", "u2"] + KERNEL_DTYPES


def _rng(*key):
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _data(rng, shape, dt):
    dt = np.dtype(dt)
    if dt.kind in "iu":
        lo = 0 if dt.kind == "u" else -40
        return rng.integers(lo, 40, shape).astype(dt)      # ties are common
    return (rng.standard_normal(shape) * 10).astype(dt)


def _err(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - compared with SciPy's
        return type(e), str(e)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape,
                                                                 want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------- host rules

X = np.arange(25.0).reshape(5, 5)


@pytest.mark.parametrize("label,a,domain,rank", [
    ("even domain", X, np.ones((2, 3)), 0),
    ("even before dtype", X.astype(bool), np.ones((2, 3)), 0),
    ("bool", X.astype(bool), np.ones((3, 3)), 0),
    ("float16", X.astype(np.float16), np.ones((3, 3)), 0),
    ("complex", X + 1j, np.ones((3, 3)), 0),
    ("longdouble", X.astype(np.longdouble), np.ones((3, 3)), 0),
    ("ndim", X, np.ones(3), 0),
    ("ndim 3", X, np.ones((3, 3, 3)), 0),
    ("rank k", X, np.ones((3, 3)), 9),
    ("rank -k-1", X, np.ones((3, 3)), -10),
    ("empty domain", X, np.zeros((3, 3)), 0),
    ("rank float", X, np.ones((3, 3)), 1.0),
    ("0-d a, 1-d domain", np.float64(2), np.ones(1), 0),
])
def test_order_filter_errors_match_scipy(label, a, domain, rank, monkeypatch):
    monkeypatch.setattr(M, "run_order", lambda *a, **k: pytest.fail("launched"))
    want = _err(lambda: ss.order_filter(a, domain, rank))
    got = _err(lambda: O._order_filter(np, a, domain, rank))
    assert want[0] != "ok", label
    assert got == want, label


@pytest.mark.parametrize("rank,want", [(0, 0), (4, 4), (-1, 8), (-9, 0), (True, 1),
                                       (np.int64(3), 3)])
def test_order_filter_rank_normalised(rank, want, monkeypatch):
    seen = {}

    def fake(xp, a, mask, r, **kw):
        seen.update(rank=r, mask=mask)
        return a
    monkeypatch.setattr(M, "run_order", fake)
    O._order_filter(np, X, np.ones((3, 3)), rank)
    assert seen["rank"] == want
    # nonzero entries select, NaN and negative ones included (as SciPy's bool cast)
    O._order_filter(np, X, np.array([[0, np.nan, 0], [-2, 1, 0], [0, 0, 0.5]]), 0)
    np.testing.assert_array_equal(seen["mask"], [[0, 1, 0], [1, 1, 0], [0, 0, 1]])


@pytest.mark.parametrize("label,a,ks", [
    ("even", X, 4), ("even list", X, [3, 4]), ("even third", X, [3, 3, 4]),
    ("1-d f8", np.arange(5.0), 3), ("3-d f8", np.ones((3, 3, 3)), 3),
    ("0-d f8", np.float64(3), 3), ("1-d f4 len-1", np.ones(5, np.float32), [3]),
    ("len 1", X, [3]), ("float sizes", X, [3.0, 3]), ("uint64 sizes", X, np.array([3, 3],
                                                                              np.uint64)),
    ("bool", X.astype(bool), 3), ("float16", X.astype(np.float16), 3),
    ("complex", X + 1j, 3), ("i4 even", X.astype(np.int32), 2),
    ("i4 wrong length", X.astype(np.int32), [3, 3, 3]),
])
def test_medfilt2d_errors_match_scipy(label, a, ks, monkeypatch):
    monkeypatch.setattr(M, "run_order", lambda *a, **k: pytest.fail("launched"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _err(lambda: ss.medfilt2d(a, ks))
        got = _err(lambda: O._medfilt2d(np, a, ks))
    assert want[0] != "ok", label
    assert got == want, label


def test_medfilt2d_paths_and_warnings(monkeypatch):
    calls = []
    monkeypatch.setattr(M, "run", lambda xp, v, ks: calls.append((v.dtype, list(ks))) or v)
    for dt in ("u1", "f4", "f8"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")     # the C path never warns
            O._medfilt2d(np, X.astype(dt), 7)
    O._medfilt2d(np, X, [3, 1, 7])            # extra sizes ignored (checked odd)
    O._medfilt2d(np, X, None)
    O._medfilt2d(np, X, True)
    assert calls == [(np.dtype("u1"), [7, 7]), (np.dtype("f4"), [7, 7]),
                     (np.dtype("f8"), [7, 7]), (np.dtype("f8"), [3, 1]),
                     (np.dtype("f8"), [3, 3]), (np.dtype("f8"), [1, 1])]
    calls.clear()
    # other dtypes: medfilt, any ndim, its warning
    with pytest.warns(UserWarning, match="kernel_size exceeds volume extent"):
        O._medfilt2d(np, X.astype(np.int32), 7)
    O._medfilt2d(np, np.ones((3, 4, 5), np.int16), 3)
    assert calls == [(np.dtype("i4"), [7, 7]), (np.dtype("i2"), [3, 3, 3])]
    with pytest.raises(ValueError, match="negative dimensions"):
        O._medfilt2d(np, X, -1)


# ------------------------------------------------------------- the plan

@pytest.mark.parametrize("shape,wshape,full,rank,dt,want", [
    ((1000,), (31,), True, 15, "f8", ("sel3", 47)),
    ((1000,), (47,), True, 23, "f8", ("sel3", 47)),
    ((1000,), (49,), True, 24, "f8", ("sel3", 191)),
    ((1000,), (49,), True, 24, "f4", ("net", 49)),
    ((1000,), (95,), True, 47, "f4", ("sel3", 95)),
    ((1000,), (101,), True, 50, "f4", ("sel3", 383)),
    ((1000,), (385,), True, 192, "f4", ("sel3", 0)),
    ((10, 1000), (1, 51), True, 25, "i4", ("sel3", 95)),
    ((1000, 10), (51, 1), True, 25, "i8", ("sel3", 191)),
    ((64, 64), (5, 5), True, 12, "f4", ("net", 25)),
    ((64, 64), (5, 5), True, 3, "f4", ("small", 4)),    # the 4 smallest kept
    ((64, 64), (5, 5), True, 21, "f4", ("small", 4)),   # the 4 largest kept
    ((64, 64), (5, 5), True, 9, "f4", ("net", 49)),     # rank 9 placed at 49 // 2
    ((64, 64), (5, 5), True, 0, "f8", ("small", 1)),
    ((64, 64), (5, 5), True, 7, "f8", ("small", 8)),
    ((64, 64), (5, 5), True, 8, "f8", ("sel3", 0)),     # 64-bit: no network of 49
    ((64, 64), (3, 3), True, 4, "f4", ("net", 9)),      # a network without padding
    ((64, 64), (3, 5), True, 7, "f4", ("small", 8)),
    ((1000,), (31,), True, 3, "f4", ("sel3", 95)),      # one axis: no small kernel
    ((1000,), (31,), True, 30, "f8", ("small", 1)),     # ... unless one key is kept
    ((64, 64), (11, 11), True, 120, "f4", ("small", 1)),
    ((64, 64), (5, 5), False, 12, "f4", ("sel3", 0)),
    ((64, 64), (11, 11), True, 60, "f4", ("sel3", 0)),
    ((4, 5, 6, 7), (3, 3, 3, 3), True, 40, "f4", ("sel", 0)),
    ((4, 5, 6, 7), (1, 1, 1, 3), True, 1, "f4", ("sel", 0)),
])
def test_plan_order(shape, wshape, full, rank, dt, want):
    assert M.plan_order(shape, wshape, full, rank, np.dtype(dt)) == want


@pytest.mark.parametrize("shape,wshape,want", [
    ((4096, 4096), (11, 11), 0), ((4096, 4096), (1, 11), 1), ((4096, 8), (11, 11), 1),
    ((1 << 20,), (31,), 0), ((8, 9, 40), (3, 5, 3), 1), ((8, 9, 40), (5, 3, 3), 0),
    ((1, 500), (3, 3), 1), ((500, 1), (3, 3), 0),
])
def test_slide_axis(shape, wshape, want):
    assert M.slide_axis(shape, wshape) == want


# ------------------------------------------------------------- models

@pytest.mark.parametrize("shape,domain_shape", [((30,), (7,)), ((12, 15), (3, 5)),
                                                ((9, 10), (5, 5)), ((6, 7, 8), (3, 1, 3))])
@pytest.mark.parametrize("dt", ["f8", "f4", "i4", "u2", "i8"])
def test_model_order_matches_scipy(shape, domain_shape, dt):
    rng = _rng(shape, domain_shape, dt)
    v = _data(rng, shape, dt)
    dom = rng.random(domain_shape) < 0.7
    dom.flat[dom.size // 2] = True
    k = int(dom.sum())
    for rank in sorted({0, k // 2, k - 1, int(rng.integers(k))}):
        # SciPy's 1-D path ignores the domain's zeros: its N-d path is the reference
        want = ss.order_filter(v[None], dom[None], rank)[0] if v.ndim == 1 else \
            ss.order_filter(v, dom, rank)
        _same(M.model_order(v, dom, rank), want)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ks = [s | 1 for s in domain_shape]
        _same(M.model_order(v, np.ones(ks), math.prod(ks) // 2), ss.medfilt(v, ks))
        if v.ndim == 2:
            _same(M.model_order(v, np.ones(ks), math.prod(ks) // 2), ss.medfilt2d(v, ks))


def test_scipy_1d_order_filter_ignores_domain_zeros():
    """The documented difference: SciPy's 1-D order_filter drops the mask for
    ranks other than the extremes; ours (and SciPy's N-d path) keep it."""
    x = np.array([5.0, 1, 4, 2, 8, 7, 3, 6, 0, 9])
    dom = np.array([1, 1, 0, 1, 1])
    masked = ss.order_filter(x[None], dom[None], 1)[0]
    _same(M.model_order(x, dom, 1), masked)
    if np.array_equal(ss.order_filter(x, dom, 1), masked):
        pytest.skip("this SciPy keeps the mask in 1-D: the difference is gone")


MODEL_CASES = [
    # shape, mask (None: box), wshape, axis, run
    ((200,), None, (31,), 0, 16),
    ((200,), None, (31,), 0, 7),
    ((90,), None, (91,), 0, 16),          # windows longer than the volume
    ((7, 60), None, (1, 15), 1, 16),
    ((60, 7), None, (15, 1), 0, 5),
    ((40, 37), None, (11, 11), 0, 16),
    ((40, 37), None, (5, 7), 1, 16),
    ((12, 11, 10), None, (3, 5, 3), 1, 4),
    ((50, 40), "random", (7, 5), 0, 16),
    ((300,), "random", (21,), 0, 32),
]


@pytest.mark.parametrize("shape,mask,wshape,axis,run_", MODEL_CASES)
@pytest.mark.parametrize("dt", ["f8", "f4", "i4", "u8"])
@pytest.mark.parametrize("init", [0, 1, 2])
def test_model_sliding_matches_reference(shape, mask, wshape, axis, run_, dt, init):
    rng = _rng(shape, mask, wshape, dt, init)
    v = _data(rng, shape, dt)
    if dt[0] == "f":
        v.flat[rng.integers(v.size, size=3)] = [np.nan, np.inf, -np.inf]
    m = np.ones(wshape, bool) if mask is None else rng.random(wshape) < 0.6
    m.flat[m.size // 2] = True
    k = int(m.sum())
    for rank in sorted({0, k // 2, k - 1}):
        keys, passes = M.model_sliding(v, m, rank, axis, run_, init)
        _same(keys, M._keys(M.model_order(v, m, rank)))
        first = (np.arange(shape[axis]) % run_ == 0).reshape(
            [-1 if d == axis else 1 for d in range(v.ndim)])
        steps = passes[np.broadcast_to(~first, passes.shape)]
        assert steps.min() >= 1
        if mask is None and sum(w > 1 for w in wshape) <= 1:
            # the ring's property: one key in, one out, one pass
            assert steps.max() == 1


def test_keys_order_like_numpy_sort():
    v = np.array([np.nan, -np.inf, -1.5, -0.0, 0.0, 1e-300, 2.0, np.inf, -np.nan])
    for dt in ("f4", "f8"):
        k = M._keys(v.astype(dt))
        o = k[1:-1]
        assert np.all(o[1:] >= o[:-1])
        assert k[0] == k[-1] == np.iinfo(k.dtype).max     # every NaN: the largest key
    for dt in ("i1", "i8", "u4"):
        info = np.iinfo(dt)
        w = np.array([info.min, info.min + 1, info.max // 2, info.max - 1, info.max], dt)
        kw = M._keys(w)
        assert np.all(kw[1:] > kw[:-1])


# ------------------------------------------------------------- kernels (emulated)

FORCED = [
    # shape, mask kind, wshape, force
    ((300,), "box", (31,), ("sel3", "ring")),
    ((300,), "box", (31,), ("sel3", 0)),
    ((300,), "box", (5,), ("net", 9)),
    ((97,), "box", (101,), ("sel3", "ring")),
    ((6, 50), "box", (1, 21), ("sel3", "ring")),
    ((50, 6), "box", (21, 1), ("sel3", "ring")),
    ((40, 33), "box", (11, 11), ("sel3", 0)),
    ((40, 33), "holes", (5, 7), ("sel3", 0)),
    ((20, 21), "box", (3, 3), ("net", 25)),
    ((20, 21), "box", (3, 3), ("small", 8)),
    ((20, 21), "box", (5, 5), ("small", 1)),
    ((9, 10, 11), "box", (3, 3, 3), ("small", 2)),
    ((300,), "box", (7,), ("small", 4)),
    ((1, 40), "box", (3, 3), ("small", 8)),
    ((9, 10, 11), "holes", (3, 3, 5), ("sel3", 0)),
    ((9, 10, 11), "box", (3, 1, 5), ("sel", 0)),
    ((3, 4, 5, 6), "holes", (3, 3, 1, 3), ("sel", 0)),
    ((1, 40), "box", (3, 3), ("sel3", 0)),
    ((40, 1), "box", (3, 3), ("sel3", 0)),
    ((1,), "box", (1,), ("sel3", "ring")),
]


def _force(force, dt, k, rank):
    kind, kp = force
    if kp == "ring":
        kp = next(b for b, _ in M._rings(M._canon(dt)) if b >= k)
    if kind == "net" and not (k <= kp and 0 <= kp // 2 - rank <= kp - k):
        return None
    if kind == "net" and kp not in M._buckets(M._canon(dt)):
        return None
    if kind == "small" and min(rank + 1, k - rank) > kp:
        return None
    return kind, kp


@pytest.mark.parametrize("shape,maskkind,wshape,force", FORCED)
@pytest.mark.parametrize("dt", ALL_DTYPES)
def test_kernels_forced(run, shape, maskkind, wshape, force, dt):
    rng = _rng(shape, maskkind, wshape, force, dt)
    v = _data(rng, shape, dt)
    m = np.ones(wshape, bool) if maskkind == "box" else rng.random(wshape) < 0.6
    m.flat[m.size // 2] = True
    k = int(m.sum())
    for rank in sorted({0, k // 2, k - 1}):
        f = _force(force, np.dtype(dt if dt[1] in "48" else dt[0] + "4"), k, rank)
        if f is None:
            continue
        for run_, init in ((None, 0), (3, 1), (5, 2)):
            if f[0] == "net" and run_ is not None:
                continue
            run.launches.clear()
            got = M.run_order(np, v, None if maskkind == "box" else m, rank,
                              wshape=wshape, force=f, run=run_, init=init)
            _same(got, M.model_order(v, m, rank))
            prefix = ("gsmed_ring" if f[0] == "sel3" and f[1] else
                      "gsmed_net" if f[0] == "net" else
                      "gsmed_small" if f[0] == "small" else f"gsmed_{f[0]}_")
            assert run.launches and all(n.startswith(prefix) for n in run.launches)


@pytest.mark.parametrize("dt", ["f4", "f8"])
def test_kernels_nan_inf(run, dt):
    rng = _rng("nan", dt)
    v = _data(rng, (40, 30), dt)
    v.flat[rng.integers(v.size, size=60)] = np.nan
    v.flat[rng.integers(v.size, size=30)] = np.inf
    v.flat[rng.integers(v.size, size=30)] = -np.inf
    v[3, 4] = -0.0
    for wshape, force in (((1, 31), ("sel3", "ring")), ((7, 7), ("sel3", 0)),
                          ((3, 3), ("net", 9)), ((3, 3), ("sel", 0))):
        m = np.ones(wshape, bool)
        k = m.size
        for rank in (0, k // 2, k - 1):
            f = _force(force, np.dtype(dt), k, rank)
            if f is None:
                continue
            _same(M.run_order(np, v, None, rank, wshape=wshape, force=f),
                  M.model_order(v, m, rank))


def test_kernels_strided_and_reversed(run):
    rng = _rng("strides")
    base = _data(rng, (60, 80), "f8")
    for view in (base[::-2, 1::3], base.T, base[:, ::-1], np.asfortranarray(base)[5:40]):
        for wshape, mask in (((1, 9), None), ((9, 1), None), ((5, 3), None),
                             ((5, 5), rng.random((5, 5)) < 0.5)):
            m = np.ones(wshape, bool) if mask is None else mask | (np.arange(25).reshape(
                5, 5) == 12)
            for rank in (0, int(m.sum()) // 2):
                want = M.model_order(view, m, rank)
                _same(M.run_order(np, view, m if mask is not None else None, rank,
                                  wshape=wshape), want)
                _same(M.run_order(np, view, m, rank, force=("sel3", 0), run=4), want)


def test_public_functions_emulated(run):
    rng = _rng("public")
    for dt in ALL_DTYPES:
        img = _data(rng, (33, 40), dt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for ks in (3, [5, 7], 11, [1, 31], [51, 1]):
                _same(O._medfilt2d(np, img, ks), ss.medfilt2d(img, ks))
                _same(M._medfilt(np, img, ks), ss.medfilt(img, ks))
        for dom, rank in ((np.ones((3, 3)), 4), (np.eye(3), 0), (np.eye(5)[::-1], -1),
                          (rng.random((5, 7)) < 0.5, 2), (np.ones((1, 31)), 7)):
            _same(O._order_filter(np, img, dom, rank), ss.order_filter(img, dom, rank))
    sig = _data(rng, 500, "f8")
    for ks in (1, 3, 31, 49, 51, 101):
        _same(M._medfilt(np, sig, ks), ss.medfilt(sig, ks))
        _same(O._order_filter(np, sig, np.ones(ks), ks // 3), ss.order_filter(
            sig, np.ones(ks), ks // 3))
    assert O._order_filter(np, np.float64(2.5), np.ones(()), 0).shape == ()
    _same(O._order_filter(np, np.zeros((0, 4)), np.ones((3, 3)), 1), np.zeros((0, 4)))
    _same(O._medfilt2d(np, np.zeros((0, 4), np.float32), 3), np.zeros((0, 4), np.float32))


def test_grid_stride_loops(run, monkeypatch):
    monkeypatch.setattr(D, "GRID_X", 2)
    rng = _rng("grid")
    v = _data(rng, (700,), "f4")
    img = _data(rng, (30, 41), "i8")
    for f in (("sel3", 95), ("sel3", 0), ("sel", 0)):
        _same(M.run_order(np, v, None, 20, wshape=(41,), force=f, run=8),
              M.model_order(v, np.ones(41), 20))
    _same(M.run_order(np, img, None, 40, wshape=(9, 9), run=4), M.model_order(
        img, np.ones((9, 9)), 40))
    _same(M.run_order(np, v, None, 4, wshape=(9,)), M.model_order(v, np.ones(9), 4))


# ------------------------------------------------------------- NVRTC

def test_ring_kernels_register_only():
    from .test_convolve import _compile_with_report
    vs = [v for v in M.variants() if v[0] == "sel3" and v[2]]
    assert len(vs) == 2 * len(M.DTYPES)
    header = read_source(M._CUH)
    src = header + "\n".join(M.kernel_source(*v)[0][len(header):] for v in vs)
    log = _compile_with_report(src, "rings")
    frames = re.findall(r"Function properties for (\w+)\s*\n\s*ptxas\s*\.\s*(\d+) bytes "
                        r"stack frame", log)
    assert len(frames) == len(vs)
    assert all(int(b) == 0 for _, b in frames), frames
    smem = [int(s) for s in re.findall(r"(\d+) bytes smem", log)]
    assert len(smem) == len(vs) and max(smem) <= 48 * 1024
