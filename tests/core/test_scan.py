"""Scans and counting: NVRTC compile of every kernel variant (CPU), host
planning emulated in NumPy (CPU), and parity with NumPy (GPU).

Tolerances (floating scans). gpuscipy scans each thread's 16 (8, 4)
elements in the accumulator type (float32 for float16/float32 results,
complex64 for complex64, else the result's float64/complex128) and carries
thread, block and tile totals in float64/complex128; NumPy's loop
accumulates sequentially in the result precision, so results are not
bitwise NumPy's (for float16 NumPy's own error reaches several float16 ulps
of the running sum). The comparison is therefore against an exact-ish
reference (longdouble cumulative sums of the same values) with the bound
``|ours - ref| <= 2 * eps(result) * |ref| + (ITEMS + 4) * eps(acc) *
cumsum(|x|) + k * eps64 * cumsum(|x|)`` -- the final rounding, the
per-thread accumulator error and the float64 association error of a
length-k prefix. Weighted
bincount/histogram sums: float64 atomics, relative error below
``n * eps64`` of the sum of ``|weights|`` per bin.
"""

import numpy as np
import pytest

from gpuscipy_core._kernel._nvrtc import compile_cubin
from gpuscipy_core._routines import _scan_source as S

from ._parity import (ALL_DTYPES, INTEGER_DTYPES, assert_parity,
                      assert_raises_like, dtype_id, random_array, to_host)

SIZES = [1, 1023, 1024, 1025, 4095, 4096, 4097, 2**20 + 7]


def _default_comp(fname, dt):
    return np.dtype(getattr(np, fname)(np.ones(2, dt)).dtype)


# ------------------------------------------------------------- CPU: NVRTC

def _scan_specs():
    specs = []
    for dt in ALL_DTYPES:
        for fname, prod, nan in (("cumsum", False, False), ("cumprod", True, False),
                                 ("nancumsum", False, True), ("nancumprod", True, True)):
            comp = _default_comp(fname, dt)
            specs.append((dt, comp, comp, prod, nan and dt.kind in "fc"))
    # dtype= casts
    for comp in (np.dtype(np.bool_), np.dtype(np.int8), np.dtype(np.float16),
                 np.dtype(np.complex64)):
        specs.append((np.dtype(np.float64), comp, comp, False, False))
    return list(dict.fromkeys(specs))


def _compile_all(pairs):
    # a few translation units: the sources share one header
    nb = 4
    for b in range(nb):
        chunk = pairs[b::nb]
        if not chunk:
            continue
        body = "".join(src.replace("#include <gpuscipy/scan.cuh>\n", "")
                       .replace(" Op;", f" Op_{i};")
                       .replace("<Op>", f"<Op_{i}>").replace("<Op,", f"<Op_{i},")
                       for i, (_, src) in enumerate(chunk))
        assert compile_cubin("#include <gpuscipy/scan.cuh>\n" + body, f"scan_batch_{b}")


def test_scan_kernels_compile():
    pairs = []
    for spec in _scan_specs():
        name, src, _ = S.scan_rows_source(*spec)
        pairs.append((name, src))
        pairs.append(S.scan_lines_source(*spec))
    assert len(pairs) > 60
    _compile_all(pairs)


def test_counting_kernels_compile():
    pairs = []
    for dt in ALL_DTYPES:
        pairs.append(S.compact_source(dt, "index")[:2])
        pairs.append(S.compact_source(dt, "select", dt, dt)[:2])
        pairs.append(S.compact_source(np.dtype(np.bool_), "place", dt)[:2])
        pairs.append(S.gather_axis_source(dt))
    for xdt in [np.dtype(np.bool_)] + INTEGER_DTYPES[:4] + INTEGER_DTYPES[4:7]:
        for wdt in (None, np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.int64),
                    np.dtype(np.complex128)):
            for shared in (True, False):
                pairs.append(S.bincount_source(xdt, wdt, shared))
    for adt in ALL_DTYPES:
        if adt.kind == "c":
            continue
        cmp = np.dtype(np.float32) if adt == np.float16 else (
            np.dtype(np.uint8) if adt.kind == "b" else adt)
        for wdt in (None, np.dtype(np.float32), np.dtype(np.complex64)):
            pairs.append(S.histogram_source(adt, cmp, np.dtype(np.float64), wdt, True))
            pairs.append(S.histogram_source(adt, cmp, cmp, wdt, False))
        pairs.append(S.digitize_source(adt, cmp))
        pairs.append(S.digitize_source(adt, np.dtype(np.float64)))
    pairs = list(dict.fromkeys(pairs))
    for k in range(0, len(pairs), 40):
        src = "#include <gpuscipy/scan.cuh>\n" + "".join(
            s.replace("#include <gpuscipy/scan.cuh>\n", "") for _, s in pairs[k:k + 40])
        assert compile_cubin(src, f"count_batch_{k}")


def test_kernel_names_encode_spec():
    names = {S.scan_rows_source(*s)[0] for s in _scan_specs()}
    assert len(names) == len(_scan_specs())
    assert S.items_per_thread(np.float32) == 16
    assert S.items_per_thread(np.float64) == 8
    assert S.items_per_thread(np.complex128) == 4
    assert S.state_bytes(3, 8) == 16 + 3 * 16          # packed {status, value}
    assert S.state_bytes(3, 4) == 16 + 3 * 16
    assert S.state_bytes(3, 16) == 16 + 16 + 48 + 48   # wide: status + 2 slots


def test_accumulator_and_carry_types():
    assert S.accumulator(np.float32) == "float" and S.carry(np.float32) == "double"
    assert S.accumulator(np.float16) == "float" and S.carry(np.float16) == "double"
    assert S.accumulator(np.float64) == S.carry(np.float64) == "double"
    assert S.accumulator(np.complex64) == "gs::complex<float>"
    assert S.carry(np.complex64) == S.carry(np.complex128) == "gs::complex<double>"
    assert S.carry(np.int32) == "unsigned int" and S.carry(np.int64) == "unsigned long long"
    assert S.carry_size(np.complex64) == 16 and S.carry_size(np.float32) == 8
    name, src, _ = S.scan_rows_source(np.float32, np.float32, np.float32, False, False)
    assert "arith_op<float, float, float, double, float, false, false>" in src


@pytest.mark.parametrize("slot", [4, 8, 16])
def test_state_slots_are_16_byte_aligned(slot):
    # descriptors/slots hold up to 16-byte values: with a 256-byte aligned
    # base every one must be 16-byte aligned
    for ntiles in list(range(1, 70)) + [4095, 4096, 4097, 65536, 65537]:
        layout = S.state_layout(ntiles, slot)
        total = layout[-1]
        assert total == S.state_bytes(ntiles, slot) and total % 16 == 0
        if S.packed(slot):
            assert layout == (16, 16 + 16 * ntiles)
            continue
        status, agg, inc, _ = layout
        assert status == 16 and agg % 16 == 0 and inc % 16 == 0
        assert agg >= status + 4 * ntiles and inc >= agg + slot * ntiles
        assert total >= inc + slot * ntiles


def test_tile_state_layout_matches_header():
    # the offsets in state_layout mirror gs::scan::tile_state's constructors
    import pathlib
    import gpuscipy_core._kernel as K
    hdr = (pathlib.Path(K.__file__).parent / "include" / "gpuscipy" / "scan.cuh").read_text()
    assert "template <class A, bool PACKED = (sizeof(A) <= 8)> struct tile_state;" in hdr
    assert "desc = reinterpret_cast<unsigned long long*>(p + 16);" in hdr
    assert "st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" in hdr
    assert "ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" in hdr
    assert "desc + 2 * tile" in hdr
    assert "status = reinterpret_cast<int*>(p + 16);" in hdr
    assert "const long long sbytes = ((ntiles * 4 + 15) / 16) * 16;" in hdr
    assert "aggregate = reinterpret_cast<A*>(p + 16 + sbytes);" in hdr
    assert "abytes = ((ntiles * (long long)sizeof(A) + 15) / 16) * 16;" in hdr
    assert "inclusive = reinterpret_cast<A*>(p + 16 + sbytes + abytes);" in hdr
    assert "fence_acq_rel();   // release" in hdr and "__threadfence();" not in hdr
    assert "constexpr int W = kThreads;" in hdr   # the look-back window (model: LB_WINDOW)


def test_look_back_window_is_block_wide():
    # the wide window is what keeps the prefix chain off the critical path
    # (a 32-tile window cost 1.5 ms for 2^28 float32 on the H200)
    assert LB_WINDOW == S.THREADS == 256


def test_packed_descriptor_code_has_no_fences():
    # the float32 scan must publish/poll with single 16-byte accesses only
    name, src, _ = S.scan_rows_source(np.float32, np.float32, np.float32, False, False)
    import pathlib
    import gpuscipy_core._kernel as K
    hdr = (pathlib.Path(K.__file__).parent / "include" / "gpuscipy" / "scan.cuh").read_text()
    packed = hdr[hdr.index("template <class A> struct tile_state<A, true>"):
                 hdr.index("template <class A> struct tile_state<A, false>")]
    assert "fence" not in packed and "volatile int" not in packed
    assert S.packed(S.carry_size(np.float32)) and not S.packed(S.carry_size(np.complex128))
    assert "arith_op<float, float, float, double, float" in src


@pytest.mark.parametrize("dt,rng_,expect", [
    (np.uint8, (-3, 4), (0, 4, True)),
    (np.uint8, (-300, -200), (None, None, False)),
    (np.uint8, (300, 400), (None, None, False)),
    (np.int8, (-300, 400), (-128, 127, True)),
    (np.uint64, (-3, 2**70), (0, 2**64 - 1, True)),
    (np.int16, (-3, 4), (-3, 4, True)),
])
def test_histogram_keep_bounds_integer_ranges(dt, rng_, expect):
    # NumPy 2 compares integer data with out-of-range Python ints by value;
    # the bounds must clamp, not wrap (gpu1: uint8 with range=(-3, 4) gave
    # all-zero counts because -3 wrapped to 253)
    from gpuscipy_core._routines._scan import _keep_bounds
    dt = np.dtype(dt)
    rt = np.result_type(dt, *rng_)
    lo, hi, any_ = _keep_bounds(rng_[0], rng_[1], rt, rt)
    assert any_ == expect[2]
    if any_:
        assert (int(lo), int(hi)) == expect[:2]
        info = np.iinfo(dt)
        vals = np.array([info.min, info.max, 0, 3, 4, 5], dtype=dt)
        keep = (vals >= rng_[0]) & (vals <= rng_[1])
        np.testing.assert_array_equal((vals >= lo) & (vals <= hi), keep)


def test_histogram_keep_bounds_float16_rounds_like_numpy():
    from gpuscipy_core._routines._scan import _keep_bounds
    rt = np.result_type(np.float16, 0.1, 0.9)
    lo, hi, _ = _keep_bounds(0.1, 0.9, rt, np.dtype(np.float32))
    assert lo.dtype == np.float32 and lo == np.float32(np.float16(0.1))
    x = np.float16(0.0999755859375)
    assert (x >= 0.1) == (np.float32(x) >= lo)


# ------------------------------------------------- CPU: look-back emulation

LB_WINDOW = 256   # gs::scan::look_back: thread p of the block reads tile pred - p


def _look_back_round(status, values, pred, first, window):
    """One round of gs::scan::look_back: ``None`` while an X tile is nearer
    than the nearest P (the block polls again), else ``(sum, found_p)``:
    the values at window positions up to and including the nearest P (all
    of them when there is none)."""
    ss, vs = [], []
    for p in range(window):
        j = pred - p
        if j >= first:
            ss.append(status[j])
            vs.append(values[j][status[j]] if status[j] else None)
        else:
            ss.append(2)        # before the row: P with the identity
            vs.append(0.0)
    stop = next((p for p, st in enumerate(ss) if st == 2), window)
    if any(st == 0 for st in ss[:stop]):
        return None
    return sum(vs[: stop + 1]), stop < window


def _emulate_lookback(x, n_rows, n, tile, rng, window=LB_WINDOW):
    """Emulate gs::scan::scan_rows on the host with a random interleaving of
    the tiles' steps: tiles start in tile order (the atomic counter), a
    started tile publishes A (P for a row's first tile) at some later step,
    then runs look-back rounds -- a round that finds an X nearer than the
    nearest P is retried later, like the block's poll loop -- and publishes
    P. Each descriptor holds {status, value} as one unit (the packed
    16-byte descriptor), values[j][1] the aggregate, values[j][2] the
    inclusive prefix."""
    tpr = -(-n // tile)
    ntiles = n_rows * tpr
    status = [0] * ntiles
    values = [[None, 0.0, 0.0] for _ in range(ntiles)]
    out = np.zeros(n_rows * n)
    agg = []
    for t in range(ntiles):
        row, k = divmod(t, tpr)
        agg.append(x[row * n + k * tile: row * n + min(n, (k + 1) * tile)].sum())
    phase = [0] * ntiles      # 0 not started, 1 loaded, 2 looking back, 3 done
    run = [0.0] * ntiles
    pred = [t - 1 for t in range(ntiles)]
    started = 0
    while min(phase) < 3:
        cand = [t for t in range(started) if phase[t] < 3]
        if started < ntiles:
            cand.append(started)
        t = cand[rng.integers(len(cand))]
        row, k = divmod(t, tpr)
        if t == started:
            started += 1
            phase[t] = 1
        elif phase[t] == 1:
            if k == 0:
                values[t][2] = agg[t]
                status[t] = 2
                phase[t] = 3
            else:
                values[t][1] = agg[t]
                status[t] = 1
                phase[t] = 2
        else:
            r = _look_back_round(status, values, pred[t], t - k, window)
            if r is None:
                continue
            run[t] += r[0]
            if r[1]:
                values[t][2] = run[t] + agg[t]
                status[t] = 2
                phase[t] = 3
            else:
                pred[t] -= window
        if phase[t] == 3:
            lo = row * n + k * tile
            hi = row * n + min(n, (k + 1) * tile)
            out[lo:hi] = (run[t] if k else 0.0) + np.cumsum(x[lo:hi])
    return out


@pytest.mark.parametrize("rows,n,tile,window", [
    (1, 1, 8, 4), (1, 1000, 8, 4), (3, 257, 8, 4), (2, 4096, 16, 8),
    (5, 33 * 8 + 1, 8, 32), (1, 3000, 8, LB_WINDOW)])
def test_lookback_emulation(rows, n, tile, window):
    rng = np.random.default_rng(n + window)
    x = rng.integers(-5, 6, rows * n).astype(float)
    for _ in range(3):
        got = _emulate_lookback(x, rows, n, tile, rng, window)
        np.testing.assert_array_equal(got, np.cumsum(x.reshape(rows, n), axis=1).ravel())


def test_lookback_round_waits_only_for_nearer_x():
    status = [2, 0, 1, 2, 1]       # tile 1 is X but beyond the nearest P (3)
    values = [[None, 0, 1.0], [None, 0, 0], [None, 5.0, 0], [None, 0, 7.0],
              [None, 2.0, 0]]
    assert _look_back_round(status, values, 4, 0, 8) == (9.0, True)
    status[3] = 1
    values[3][1] = 4.0
    assert _look_back_round(status, values, 4, 0, 8) is None   # X at 1 is now nearer
    status[1] = 1
    values[1][1] = 3.0
    assert _look_back_round(status, values, 4, 0, 8) == (2 + 4 + 5 + 3 + 1.0, True)
    assert _look_back_round(status, values, 4, 0, 2) == (6.0, False)


# ------------------------------------------------------------- GPU parity

gpu = pytest.mark.gpu


def _acc_eps(res_dt):
    res_dt = np.dtype(res_dt)
    if res_dt.kind == "f" and res_dt.itemsize <= 4 or res_dt == np.complex64:
        return np.finfo(np.float32).eps
    return np.finfo(res_dt).eps


def _scan_tol_check(got, x, fname, res_dt, axis=-1):
    """See the module docstring for the bound (``axis``: scanned axis of
    ``x``; None flattens)."""
    got = np.asarray(got)
    if axis is None:
        x = x.reshape(-1)
        got = got.reshape(-1)
    else:
        x = np.moveaxis(x, axis, -1)
        got = np.moveaxis(got, axis, -1)
    ax = -1
    prod = "prod" in fname
    xx = x
    if fname.startswith("nan"):
        xx = np.where(np.isnan(x), 1 if prod else 0, x)
    ref_dt = np.clongdouble if res_dt.kind == "c" else np.longdouble
    xr = xx.astype(res_dt).astype(ref_dt)
    ref = np.cumprod(xr, axis=ax) if prod else np.cumsum(xr, axis=ax)
    eps = np.finfo(res_dt).eps
    items = S.items_per_thread(res_dt)
    if prod:
        np.testing.assert_allclose(got.astype(ref_dt), ref,
                                   rtol=2 * eps + (items + 4 + x.shape[-1]) * _acc_eps(res_dt))
        return
    k = np.arange(1, x.shape[-1] + 1)
    cabs = np.cumsum(np.abs(xr), axis=ax)
    bound = (2 * eps * np.abs(ref) + (items + 4) * _acc_eps(res_dt) * cabs
             + k * np.finfo(np.float64).eps * cabs + np.finfo(res_dt).tiny)
    err = np.abs(got.astype(ref_dt) - ref)
    bad = ~(err <= bound)
    assert not bad.any(), (f"{bad.sum()} prefixes out of bound; worst "
                           f"{np.max(err - bound)} at {np.argwhere(bad)[:5].tolist()}")


@gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dt", [np.dtype(np.float32), np.dtype(np.float64),
                                np.dtype(np.int32), np.dtype(np.uint8), np.dtype(np.bool_)],
                         ids=dtype_id)
def test_cumsum_1d_sizes(n, dt):
    import gpuscipy_core as gp
    h = random_array(n, dt, 1)
    r = gp.cumsum(gp.asarray(h))
    e = np.cumsum(h)
    if dt.kind in "biu":
        assert_parity(r, e)
    else:
        assert to_host(r).dtype == e.dtype
        _scan_tol_check(to_host(r), h, "cumsum", e.dtype)


@gpu
@pytest.mark.parametrize("fname", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=dtype_id)
def test_scans_every_dtype(fname, dt):
    import gpuscipy_core as gp
    h = random_array((3, 37), dt, 2, low=0.5 if "prod" in fname else None,
                     high=1.5 if "prod" in fname and dt.kind in "fc" else None)
    if fname.startswith("nan") and dt.kind in "fc":
        h.flat[5] = np.nan
    for axis in (None, 0, 1, -1):
        r = getattr(gp, fname)(gp.asarray(h), axis=axis)
        e = getattr(np, fname)(h, axis=axis)
        if dt.kind in "biu":
            assert_parity(r, e)
        else:
            # NumPy's float16 loop rounds every partial sum to float16, so
            # its error grows with the running sum (gpu1: 0.06 off at a sum
            # of 0.1 after partial sums of 32); compare with an exact-ish
            # reference instead, and check dtype/shape/NaN against NumPy's
            got = to_host(r)
            assert got.dtype == e.dtype and got.shape == e.shape
            np.testing.assert_array_equal(np.isnan(got), np.isnan(e))
            _scan_tol_check(got, h, fname, e.dtype, axis)


@gpu
@pytest.mark.parametrize("shape,axis", [((4, 1000), 0), ((1000, 4), 0), ((50, 300), 0),
                                        ((7, 5, 300), 1), ((2, 3, 4), 2),
                                        ((20000, 3), 1), ((3, 20000), 0),
                                        ((1, 9000), 1), ((9000, 1), 0)])
def test_cumsum_axes_layouts(shape, axis):
    import gpuscipy_core as gp
    h = random_array(shape, np.int64, 3)
    g = gp.asarray(h)
    assert_parity(gp.cumsum(g, axis=axis), np.cumsum(h, axis=axis))
    # non-contiguous and negative strides
    hv = h[..., ::-2] if h.shape[-1] > 1 else h[::-1]
    gv = g[..., ::-2] if h.shape[-1] > 1 else g[::-1]
    assert_parity(gp.cumsum(gv, axis=axis), np.cumsum(hv, axis=axis))
    assert_parity(gp.cumsum(g.T, axis=0), np.cumsum(h.T, axis=0))


@gpu
def test_cumsum_float_accuracy_large():
    import gpuscipy_core as gp
    h = random_array(2**20 + 7, np.float32, 4)
    _scan_tol_check(to_host(gp.cumsum(gp.asarray(h))), h, "cumsum", np.dtype(np.float32))
    h = random_array((3, 50000), np.float64, 5)
    _scan_tol_check(to_host(gp.cumsum(gp.asarray(h), axis=1)), h, "cumsum",
                    np.dtype(np.float64))


@gpu
def test_cumsum_dtype_out_and_edges():
    import gpuscipy_core as gp
    h = np.arange(10, dtype=np.int64) * 40
    g = gp.asarray(h)
    assert_parity(gp.cumsum(g, dtype=np.int8), np.cumsum(h, dtype=np.int8))
    assert_parity(gp.cumsum(g > 100, dtype=bool), np.cumsum(h > 100, dtype=bool))
    assert_parity(gp.cumprod(g > 100, dtype=bool), np.cumprod(h > 100, dtype=bool))
    o = gp.empty(10, np.float32)
    r = gp.cumsum(g, out=o)
    assert r is o
    assert_parity(o, np.cumsum(h).astype(np.float32))
    gg = gp.asarray(h.copy())
    gp.cumsum(gg, out=gg)   # in place
    assert_parity(gg, np.cumsum(h))
    assert_parity(gp.cumsum(gp.asarray(np.array(3.0))), np.cumsum(np.array(3.0)))
    assert_parity(gp.cumsum(gp.zeros((2, 0))), np.cumsum(np.zeros((2, 0))))
    assert_parity(gp.cumsum(gp.zeros((0, 3)), axis=1), np.cumsum(np.zeros((0, 3)), axis=1))
    f = np.array([1.0, np.inf, -np.inf, np.nan, 2.0])
    assert_parity(gp.cumsum(gp.asarray(f)), np.cumsum(f), kind="exact")
    assert_parity(gp.ndarray.cumsum(gp.asarray(h)), np.cumsum(h))


@gpu
def test_cumsum_bad_input():
    import gpuscipy_core as gp
    h = np.ones((2, 2))
    g = gp.asarray(h)
    assert_raises_like(lambda: np.cumsum(h, axis=2), lambda: gp.cumsum(g, axis=2))
    assert_raises_like(lambda: np.cumsum(np.array(2.0), axis=1),
                       lambda: gp.cumsum(gp.asarray(np.array(2.0)), axis=1))
    assert_raises_like(lambda: np.cumsum(h, out=np.empty(3)),
                       lambda: gp.cumsum(g, out=gp.empty(3)), match="wrong size")


@gpu
@pytest.mark.parametrize("dt", ALL_DTYPES, ids=dtype_id)
def test_diff_ediff1d(dt):
    import gpuscipy_core as gp
    h = random_array((4, 9), dt, 6)
    g = gp.asarray(h)
    for n, axis in ((1, -1), (2, 0), (3, 1), (0, 0)):
        if dt.kind == "b" or True:
            try:
                e = np.diff(h, n=n, axis=axis)
            except TypeError:
                continue
        assert_parity(gp.diff(g, n=n, axis=axis), e)
    if dt.kind != "b":
        assert_parity(gp.ediff1d(g), np.ediff1d(h))
        assert_parity(gp.ediff1d(g, to_begin=h[0, :2], to_end=h[1, :1]),
                      np.ediff1d(h, to_begin=h[0, :2], to_end=h[1, :1]))
        assert_parity(gp.diff(g, prepend=h[:, :1], append=0, axis=1),
                      np.diff(h, prepend=h[:, :1], append=0, axis=1))


@gpu
def test_diff_bad_input():
    import gpuscipy_core as gp
    assert_raises_like(lambda: np.diff(np.ones(3), n=-1), lambda: gp.diff(gp.ones(3), n=-1),
                       match="non-negative")
    assert_raises_like(lambda: np.diff(np.array(1.0)), lambda: gp.diff(gp.asarray(1.0)),
                       match="at least one dimensional")
    assert_raises_like(lambda: np.ediff1d(np.ones(3), to_end=[1.5j]),
                       lambda: gp.ediff1d(gp.ones(3), to_end=np.array([1.5j])))


@gpu
@pytest.mark.parametrize("n", [0, 1, 1025, 2**20 + 7])
@pytest.mark.parametrize("dt", [np.int64, np.int32, np.uint8, np.bool_])
def test_bincount(n, dt):
    import gpuscipy_core as gp
    rng = np.random.default_rng(7)
    h = rng.integers(0, 2 if dt == np.bool_ else 200, n).astype(dt)
    g = gp.asarray(h)
    assert_parity(gp.bincount(g), np.bincount(h))
    assert_parity(gp.bincount(g, minlength=300), np.bincount(h, minlength=300))
    w = rng.random(n)
    r = gp.bincount(g, weights=gp.asarray(w))
    e = np.bincount(h, weights=w)
    assert_parity(r, e, rtol=max(n, 1) * 2.2e-16, atol=1e-300)
    big = rng.integers(0, 50000, max(n, 1))
    assert_parity(gp.bincount(gp.asarray(big)), np.bincount(big))   # global atomics


@gpu
def test_bincount_bad_input():
    import gpuscipy_core as gp
    cases = [(np.array([1, -1]), {}), (np.array([1.0, 2.0]), {}), (np.ones((2, 2), int), {}),
             (np.array(1), {}), (np.array([1, 2]), {"minlength": -1}),
             (np.array([1, 2]), {"weights": np.ones(3)})]
    for h, kw in cases:
        kg = {k: (gp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        assert_raises_like(lambda: np.bincount(h, **kw),
                           lambda: gp.bincount(gp.asarray(h), **kg))


@gpu
@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64, np.int16, np.int64,
                                np.uint8], ids=lambda d: np.dtype(d).name)
def test_histogram(dt):
    import gpuscipy_core as gp
    h = random_array(5000, dt, 8)
    g = gp.asarray(h)
    for kw in ({}, {"bins": 7}, {"bins": 1}, {"range": (-3, 4)}, {"bins": 5, "range": (0.25, 0.75)},
               {"bins": np.array([-5.0, -1.0, 0.0, 0.5, 3.0, 3.0, 9.0])},
               {"bins": [1, 2, 3]}, {"density": True}, {"bins": 4, "density": True}):
        kg = {k: (list(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        hist, edges = gp.histogram(g, **kg)
        eh, ee = np.histogram(h, **kw)
        assert_parity(edges, ee)
        assert_parity(hist, eh, rtol=1e-12)
    w = random_array(5000, np.float32, 9)
    hist, _ = gp.histogram(g, bins=9, weights=gp.asarray(w))
    eh, _ = np.histogram(h, bins=9, weights=w)
    assert_parity(hist, eh, rtol=1e-4, atol=1e-3)
    assert_parity(gp.histogram_bin_edges(g, 6), np.histogram_bin_edges(h, 6))


@gpu
def test_histogram_nan_and_bad_input():
    import gpuscipy_core as gp
    h = np.array([1.0, np.nan, 2.0, 3.0])
    g = gp.asarray(h)
    assert_raises_like(lambda: np.histogram(h), lambda: gp.histogram(g), match="not finite")
    hist, _ = gp.histogram(g, range=(0, 4))
    assert_parity(hist, np.histogram(h, range=(0, 4))[0])
    hist, _ = gp.histogram(g, bins=[0.0, 2.0, 3.0])
    assert_parity(hist, np.histogram(h, bins=[0.0, 2.0, 3.0])[0])
    x = np.arange(4.0)
    gx = gp.asarray(x)
    for kw in ({"bins": 0}, {"range": (2, 1)}, {"bins": [3, 1, 2]}, {"bins": [[1, 2]]},
               {"weights": np.ones(3)}, {"range": (0, np.inf)}):
        kg = {k: (gp.asarray(v) if k == "weights" else v) for k, v in kw.items()}
        assert_raises_like(lambda: np.histogram(x, **kw), lambda: gp.histogram(gx, **kg))
    e, _ = np.histogram(np.zeros(0)), None
    r = gp.histogram(gp.zeros(0))
    assert_parity(r[0], e[0])
    assert_parity(r[1], e[1])


@gpu
@pytest.mark.parametrize("right", [False, True])
def test_digitize(right):
    import gpuscipy_core as gp
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.5, 3.0, 7.0, np.nan])
    for bins in (np.array([0.0, 1.0, 2.5, 3.0]), np.array([3.0, 2.5, 1.0, 0.0]),
                 np.array([1.0]), np.array([0, 1, 1, 2])):
        assert_parity(gp.digitize(gp.asarray(x), gp.asarray(bins), right=right),
                      np.digitize(x, bins, right=right))
    xi = np.arange(-3, 12).reshape(3, 5)
    assert_parity(gp.digitize(gp.asarray(xi), gp.asarray(np.array([0, 4, 8]))),
                  np.digitize(xi, [0, 4, 8]))
    assert_raises_like(lambda: np.digitize(x, [1.0, 0.0, 2.0]),
                       lambda: gp.digitize(gp.asarray(x), gp.asarray(np.array([1.0, 0.0, 2.0]))),
                       match="monoton")
    assert_raises_like(lambda: np.digitize(np.ones(2, complex), [1.0]),
                       lambda: gp.digitize(gp.ones(2, complex), gp.asarray(np.array([1.0]))))
