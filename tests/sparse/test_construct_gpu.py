"""gpuscipy.sparse's construction functions against SciPy: eye/identity,
diags/spdiags, random, kron/kronsum, hstack/vstack/bmat/block_array,
block_diag, find/tril/triu, save_npz/load_npz.

Where SciPy returns DIA (eye, diags, spdiags with ``format=None``) or BSR
(kron of a half-full operand) ours is CSR (docs/sparse.md); everything
else -- class, dtype, shape, stored entries -- is compared with SciPy's.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import gpuscipy.sparse as gs
import gpuscipy_core as gp

pytestmark = pytest.mark.gpu


def _np(x):
    return gp.asnumpy(x) if isinstance(x, gp.ndarray) else np.asarray(x)


def _class_name(ref):
    name = type(ref).__name__
    for f in ("dia", "bsr"):
        name = name.replace(f + "_", "csr_")
    return name


def _check(got, ref, entries=True):
    """Same class (DIA/BSR -> CSR), shape, dtype, dense values; ``entries``:
    also the same stored entries (nnz, and the stored arrays for COO/CSR/CSC
    when SciPy's format is ours)."""
    assert type(got).__name__ == _class_name(ref), (type(got), type(ref))
    assert got.shape == ref.shape
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    np.testing.assert_array_equal(_np(got.toarray()), ref.toarray())
    if not entries:
        return
    if ref.format in ("dia", "bsr"):
        ref = ref.tocsr()
        ref.eliminate_zeros()
        if got.format == "csr":
            got_nnz = int(np.count_nonzero(_np(got.data[:got.nnz])))
            assert got_nnz == ref.nnz
        return
    assert got.nnz == ref.nnz
    if ref.format == "coo":
        np.testing.assert_array_equal(_np(got.row), ref.row)
        np.testing.assert_array_equal(_np(got.col), ref.col)
        np.testing.assert_array_equal(_np(got.data), ref.data)
    else:
        np.testing.assert_array_equal(_np(got.indptr), ref.indptr)
        np.testing.assert_array_equal(_np(got.indices)[:got.nnz], ref.indices[:ref.nnz])
        np.testing.assert_array_equal(_np(got.data)[:got.nnz], ref.data[:ref.nnz])


def _rand(m, n, density, dtype, seed, fmt="coo", array=True):
    rng = np.random.default_rng(seed)
    a = sp.random_array((m, n), density=density, rng=rng, format="coo")
    dt = np.dtype(dtype)
    if dt.kind == "b":
        data = rng.integers(0, 2, a.nnz).astype(bool)
    elif dt.kind in "iu":
        data = rng.integers(0, 50, a.nnz).astype(dt)
    elif dt.kind == "c":
        data = (rng.standard_normal(a.nnz) + 1j * rng.standard_normal(a.nnz)).astype(dt)
    else:
        data = rng.standard_normal(a.nnz).astype(dt)
    h = sp.coo_array((data, (a.row, a.col)), shape=(m, n)).asformat(fmt)
    return h if array else sp.coo_matrix(h).asformat(fmt)


def _ours(h):
    return getattr(gs, f"{h.format}_{'array' if isinstance(h, sp.sparray) else 'matrix'}")(h)


def _with_dups(m, n, nnz, seed, array=True):
    rng = np.random.default_rng(seed)
    h = sp.coo_array((rng.integers(-2, 3, nnz).astype("f8"),
                      (rng.integers(0, m, nnz), rng.integers(0, n, nnz))), shape=(m, n))
    return h if array else sp.coo_matrix(h)


# ---------------------------------------------------------------- eye

EYE_CASES = [(0, 0, 0), (1, 1, 0), (4, 4, 0), (3, 4, 1), (4, 3, -2), (3, 5, 4),
             (2, 3, 3), (2, 3, -2), (5, 5, -1)]


@pytest.mark.parametrize("m,n,k", EYE_CASES)
@pytest.mark.parametrize("fmt", [None, "csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", ["f8", "i1", "?", "c8"])
def test_eye(m, n, k, fmt, dtype):
    _check(gs.eye(m, n, k=k, dtype=dtype, format=fmt),
           sp.eye(m, n, k=k, dtype=dtype, format=fmt), entries=fmt != "coo")
    _check(gs.eye_array(m, n, k=k, dtype=dtype, format=fmt),
           sp.eye_array(m, n, k=k, dtype=dtype, format=fmt), entries=fmt != "coo")
    if m == n and k == 0:
        _check(gs.identity(n, dtype=dtype, format=fmt),
               sp.identity(n, dtype=dtype, format=fmt))


def test_eye_defaults_and_errors():
    _check(gs.eye(3), sp.eye(3))
    _check(gs.identity(3), sp.identity(3))
    _check(gs.eye_array(3, 2), sp.eye_array(3, 2))
    with pytest.raises(ValueError, match="out of bounds"):
        gs.eye(3, k=-4)
    with pytest.raises(ValueError):
        gs.eye(-1)
    with pytest.raises(ValueError, match="unknown"):
        gs.eye(3, format="xyz")
    with pytest.raises(NotImplementedError):
        gs.eye(3, format="dia")
    with pytest.raises(ValueError):
        gs.eye(3, dtype="f2")


# ---------------------------------------------------------------- diags

DIAG_CASES = [
    (([1.0, 2.0, 3.0],), dict()),
    (([[1, 2, 3], [4, 5]],), dict(offsets=[0, 1])),
    (([[1], [2]],), dict(offsets=[0, -1], shape=(4, 5))),
    (([[1, 2, 3, 4, 5, 6], [7, 8, 9, 10]],), dict(offsets=[0, 2], shape=(3, 5))),
    (([[0, 1, 0], [2, 0]],), dict(offsets=[0, -1])),
    (([[1 + 2j, 3], [4]],), dict(offsets=[1, -1], shape=(2, 3))),
    (([[1, 2], [3, 4, 5]],), dict(offsets=[-3, 0], shape=(5, 3))),
    (([],), dict()),
    (([[1, 2, 3]],), dict(offsets=[0], shape=(0, 0))),
]


@pytest.mark.parametrize("args,kw", DIAG_CASES)
@pytest.mark.parametrize("fmt", [None, "csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", ["default", None, "f4", "i8"])
def test_diags(args, kw, fmt, dtype):
    kw = dict(kw, format=fmt)
    if dtype != "default":
        kw["dtype"] = dtype
    if kw.get("shape") == (0, 0):
        kw["offsets"] = [0]
    for ours, ref in ((gs.diags_array, sp.diags_array), (gs.diags, sp.diags)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            try:
                want = ref(*args, **kw)
            except Exception as e:       # noqa: BLE001 -- the same error expected
                with pytest.raises(type(e)):
                    ours(*args, **kw)
                continue
            got = ours(*args, **kw)
        _check(got, want)


def test_diags_device_input_and_warning():
    d = [gp.asarray(np.arange(1, 5)), gp.asarray(np.array([7, 8, 9]))]
    with pytest.warns(FutureWarning, match="cast"):
        got = gs.diags_array(d, offsets=gp.asarray(np.array([0, 1])))
    with pytest.warns(FutureWarning):
        want = sp.diags_array([np.arange(1, 5), [7, 8, 9]], offsets=[0, 1])
    _check(got, want)
    got = gs.diags(d, offsets=[0, -1], dtype=None)
    _check(got, sp.diags([np.arange(1, 5), [7, 8, 9]], offsets=[0, -1], dtype=None))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gs.diags_array([np.ones(3)], offsets=[0])      # float input: no warning


def test_diags_errors():
    with pytest.raises(ValueError, match="Different number"):
        gs.diags_array([[1, 2], [3]], offsets=[0])
    with pytest.raises(ValueError, match="Different number"):
        gs.diags_array([[1, 2], [3]], offsets=0)
    with pytest.raises(ValueError, match="out of bounds"):
        gs.diags_array([[1, 2, 3], [1, 2]], offsets=[0, 5])
    with pytest.raises(ValueError, match="duplicate"):
        gs.diags_array([[1, 2, 3], [1]], offsets=[0, 0])
    with pytest.raises(ValueError, match="does not agree"):
        gs.diags_array([[1, 2, 3], [1, 2]], offsets=[0, 1], shape=(4, 4))
    with pytest.raises(TypeError):
        gs.diags_array([True, False])           # numpy.common_type of bool
    with pytest.raises(ValueError):
        gs.diags_array([1.0, 2.0], dtype="f2")


SPDIAGS_CASES = [
    (np.array([[1, 2, 3, 4]]), [0], None, None),
    (np.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]), [0, -1, 2], 4, 4),
    (np.array([[1.5, 2, 3], [4, 5, 6]]), [1, -3], 5, 3),
    (np.array([[1, 0, 3], [0, 5, 6]]), [0, 1], (2, 6), None),
    (np.array([[1, 2, 3]]), [7], 3, 3),
]


@pytest.mark.parametrize("data,offs,m,n", SPDIAGS_CASES)
@pytest.mark.parametrize("fmt", [None, "csr", "csc", "coo"])
def test_spdiags(data, offs, m, n, fmt):
    _check(gs.spdiags(data, offs, m, n, format=fmt), sp.spdiags(data, offs, m, n, format=fmt))
    _check(gs.spdiags(gp.asarray(data), offs, m, n, format=fmt),
           sp.spdiags(data, offs, m, n, format=fmt))


def test_spdiags_errors():
    with pytest.raises(ValueError, match="duplicate"):
        gs.spdiags(np.ones((2, 3)), [0, 0], 3, 3)
    with pytest.raises(ValueError, match="does not match"):
        gs.spdiags(np.ones((2, 3)), [0], 3, 3)


# ---------------------------------------------------------------- random

@pytest.mark.parametrize("shape,density", [((0, 0), 0.5), ((1, 1), 1.0), ((5, 5), 0.33),
                                           ((30, 20), 0.1), ((7, 40), 1.0),
                                           ((20, 30), 0.0)])
@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
@pytest.mark.parametrize("dtype", [None, "f4", "i2", "u8", "?", "c16"])
def test_random_array(shape, density, fmt, dtype):
    a = gs.random_array(shape, density=density, format=fmt, dtype=dtype, rng=1)
    ref = sp.random_array(shape, density=density, format=fmt, dtype=dtype, rng=1)
    assert type(a).__name__ == type(ref).__name__
    assert a.shape == ref.shape and a.dtype == ref.dtype and a.nnz == ref.nnz
    c = a.tocsr()                      # duplicates would merge here
    assert c.nnz == ref.nnz
    d = _np(a.data)
    if np.dtype(a.dtype).kind == "f":
        assert np.all((d >= 0) & (d < 1))
    if a.format == "coo" and a.nnz:
        assert a.row.dtype == ref.row.dtype
    m = gs.random(*shape, density=density, format=fmt, dtype=dtype, rng=2)
    mref = sp.random(*shape, density=density, format=fmt, dtype=dtype, rng=2)
    assert type(m).__name__ == type(mref).__name__
    assert m.dtype == mref.dtype and m.nnz == mref.nnz and m.tocsr().nnz == mref.nnz


def test_random_reproducible_and_rng_kinds():
    a = gs.random_array((40, 50), density=0.2, rng=7)
    b = gs.random_array((40, 50), density=0.2, rng=7)
    np.testing.assert_array_equal(_np(a.toarray()), _np(b.toarray()))
    c = gs.random_array((40, 50), density=0.2, rng=np.random.default_rng(3))
    d = gs.random_array((40, 50), density=0.2, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(_np(c.toarray()), _np(d.toarray()))
    e = gs.random(40, 50, density=0.2, random_state=np.random.RandomState(5))
    assert e.nnz == 400
    np.random.seed(11)
    f = gs.rand(10, 10, density=0.5)
    np.random.seed(11)
    g = gs.rand(10, 10, density=0.5)
    np.testing.assert_array_equal(_np(f.toarray()), _np(g.toarray()))
    with pytest.raises(TypeError, match="multiple values"):
        gs.random(3, 3, rng=1, random_state=1)
    with pytest.raises(ValueError, match="density"):
        gs.random(3, 3, density=1.5)
    with pytest.raises(ValueError, match="density"):
        gs.random_array((3, 3), density=-0.1)
    with pytest.raises(ValueError):
        gs.random_array((3, 3), density=0.5, dtype="f2")
    with pytest.raises(ValueError, match="unknown"):
        gs.random_array((3, 3), density=0.5, format="xyz")


def test_random_samplers():
    a = gs.random_array((6, 7), density=0.5, rng=0, data_sampler=lambda size: np.arange(size))
    ref = sp.random_array((6, 7), density=0.5, rng=0, data_sampler=lambda size: np.arange(size))
    assert a.dtype == ref.dtype
    np.testing.assert_array_equal(np.sort(_np(a.data)), np.sort(ref.data))
    b = gs.random(6, 7, density=0.5, rng=0, dtype="f4", data_rvs=lambda n: np.ones(n))
    assert b.dtype == np.float32 and np.all(_np(b.data) == 1)
    dev = gp.random.default_rng(4) if hasattr(gp, "random") else np.random.default_rng(4)
    c = gs.random_array((6, 7), density=0.5, data_sampler=dev.standard_normal)
    assert c.nnz == 21 and c.dtype == np.float64
    i = gs.random_array((20, 20), density=0.5, dtype="i1", rng=3)
    vals = _np(i.data)
    assert vals.min() >= -128 and vals.max() < 127
    z = gs.random_array((10, 10), density=0.3, dtype="c8", rng=3)
    zv = _np(z.data)
    assert np.all((zv.real >= 0) & (zv.real < 1) & (zv.imag >= 0) & (zv.imag < 1))


@pytest.mark.parametrize("shape,density", [((3000, 2000), 1e-3), ((100000, 3), 0.05),
                                           ((2048, 2048), 0.3)])
def test_random_positions_distinct(shape, density):
    a = gs.random_array(shape, density=density, rng=9, format="coo")
    k = int(round(density * shape[0] * shape[1]))
    assert a.nnz == k
    row, col = _np(a.row).astype(np.int64), _np(a.col).astype(np.int64)
    assert row.min() >= 0 and row.max() < shape[0] and col.min() >= 0 and col.max() < shape[1]
    assert np.unique(row * shape[1] + col).size == k
    # roughly uniform over the rows (a loose check of the sampler)
    if k >= 5000:
        half = np.count_nonzero(row < shape[0] // 2) / k
        assert 0.45 < half < 0.55


# ---------------------------------------------------------------- kron

@pytest.mark.parametrize("sa,sb,da,db", [((3, 4), (2, 5), 0.4, 0.3), ((1, 1), (3, 3), 1.0, 0.2),
                                         ((4, 2), (2, 2), 0.5, 1.0), ((0, 3), (2, 2), 0.5, 0.5),
                                         ((3, 3), (2, 2), 0.0, 0.5), ((5, 6), (1, 7), 0.3, 0.3)])
@pytest.mark.parametrize("fmt", [None, "coo", "csr", "csc"])
@pytest.mark.parametrize("dtypes", [("f8", "f8"), ("i1", "f4"), ("?", "?"), ("c8", "i4")])
@pytest.mark.parametrize("array", [True, False])
def test_kron(sa, sb, da, db, fmt, dtypes, array):
    A = _rand(*sa, da, dtypes[0], 1, "csr", array)
    B = _rand(*sb, db, dtypes[1], 2, "coo", array)
    want = sp.kron(A, B, format=fmt)
    _check(gs.kron(_ours(A), _ours(B), format=fmt), want)
    _check(gs.kron(A, _ours(B), format=fmt), want)


def test_kron_dense_and_mixed_interface():
    a = np.array([[1, 0], [2, 3]])
    b = np.array([[0, 4, 0]])
    _check(gs.kron(a, b), sp.kron(a, b))
    _check(gs.kron(gp.asarray(a), b), sp.kron(a, b))
    _check(gs.kron(gs.csr_array(a), gs.coo_matrix(b)),
           sp.kron(sp.csr_array(a), sp.coo_matrix(b)))
    _check(gs.kron(np.ones((2, 2)), np.ones((2, 2))),
           sp.kron(np.ones((2, 2)), np.ones((2, 2))), entries=False)
    with pytest.raises(NotImplementedError):
        gs.kron(a, b, format="bsr")


@pytest.mark.parametrize("na,nb", [(3, 4), (1, 1), (0, 2), (5, 1)])
@pytest.mark.parametrize("fmt", [None, "csr", "coo"])
@pytest.mark.parametrize("dtypes", [("f8", "f8"), ("i4", "f4"), ("i2", "i2")])
def test_kronsum(na, nb, fmt, dtypes):
    A = _rand(na, na, 0.5, dtypes[0], 3)
    B = _rand(nb, nb, 0.5, dtypes[1], 4, array=False)
    _check(gs.kronsum(_ours(A), _ours(B), format=fmt), sp.kronsum(A, B, format=fmt),
           entries=fmt != "coo")
    Am, Bm = sp.coo_matrix(A), B
    _check(gs.kronsum(_ours(Am), _ours(Bm), format=fmt), sp.kronsum(Am, Bm, format=fmt),
           entries=fmt != "coo")


def test_kronsum_cancellation_and_errors():
    a = _with_dups(3, 3, 12, 5)
    _check(gs.kronsum(_ours(a), _ours(a)), sp.kronsum(a, a))
    i = sp.eye_array(3, format="csr")
    _check(gs.kronsum(_ours(i), _ours(-i)), sp.kronsum(i, -i))
    with pytest.raises(ValueError, match="A is not square"):
        gs.kronsum(gs.eye(2, 3), gs.eye(2))
    with pytest.raises(ValueError, match="B is not square"):
        gs.kronsum(gs.eye(2), gs.eye(2, 3))


# ---------------------------------------------------------------- blocks

def _grid_of(fmts, dtypes, heights, widths, array=True, seed=0):
    grid = []
    for i, h in enumerate(heights):
        row = []
        for j, w in enumerate(widths):
            f = fmts[(i + j) % len(fmts)]
            if f is None:
                row.append(None)
            else:
                row.append(_rand(h, w, 0.4, dtypes[(i * 7 + j) % len(dtypes)],
                                 seed + 10 * i + j, f, array))
        grid.append(row)
    return grid


def _ours_grid(grid):
    return [[None if b is None else _ours(b) for b in r] for r in grid]


GRIDS = [
    (["csr"], ["f8"], [3, 2], [4, 1]),
    (["csc"], ["f8", "i4"], [3, 2, 1], [4, 5]),
    (["csr", "coo"], ["f8"], [3, 2], [4, 3]),
    (["csr", None], ["f4", "i2"], [3, 2], [2, 2]),
    (["coo", "csc", None], ["c8", "?", "u1"], [1, 4, 2], [3, 3, 1]),
    (["csr"], ["f8"], [0, 3], [2, 0]),
    (["csc"], ["f8"], [0], [0]),
    (["csr"], ["i8"], [1], [1]),
]


@pytest.mark.parametrize("fmts,dtypes,heights,widths", GRIDS)
@pytest.mark.parametrize("fmt", [None, "csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", [None, "c16"])
def test_bmat_block_array(fmts, dtypes, heights, widths, fmt, dtype):
    grid = _grid_of(fmts, dtypes, heights, widths)
    if all(b is None for r in grid for b in r):
        return
    _check(gs.block_array(_ours_grid(grid), format=fmt, dtype=dtype),
           sp.block_array(grid, format=fmt, dtype=dtype))
    _check(gs.bmat(_ours_grid(grid), format=fmt, dtype=dtype),
           sp.bmat(grid, format=fmt, dtype=dtype))
    mgrid = _grid_of(fmts, dtypes, heights, widths, array=False)
    _check(gs.bmat(_ours_grid(mgrid), format=fmt, dtype=dtype),
           sp.bmat(mgrid, format=fmt, dtype=dtype))
    # SciPy's objects as blocks: the same result
    _check(gs.bmat(grid, format=fmt, dtype=dtype), sp.bmat(grid, format=fmt, dtype=dtype))


@pytest.mark.parametrize("fmts", [["csr"], ["csc"], ["coo", "csr"], ["csc", "csr"]])
@pytest.mark.parametrize("fmt", [None, "csr", "csc", "coo"])
@pytest.mark.parametrize("array", [True, False])
def test_hstack_vstack(fmts, fmt, array):
    hs = [_rand(4, w, 0.4, "f8", w, fmts[w % len(fmts)], array) for w in (3, 1, 0, 5)]
    _check(gs.hstack([_ours(b) for b in hs], format=fmt), sp.hstack(hs, format=fmt))
    vs = [_rand(h, 4, 0.4, "i4", h, fmts[h % len(fmts)], array) for h in (2, 0, 3, 1)]
    _check(gs.vstack([_ours(b) for b in vs], format=fmt, dtype="f4"),
           sp.vstack(vs, format=fmt, dtype="f4"))


def test_stack_unsorted_and_duplicates_keep_structure():
    a = sp.csr_array((np.array([1.0, 2, 3]), np.array([2, 0, 2]), np.array([0, 3, 3])),
                     shape=(2, 3))
    b = sp.csr_array(np.array([[0, 5.0], [6, 0]]))
    _check(gs.hstack([_ours(a), _ours(b)]), sp.hstack([a, b]))
    _check(gs.vstack([_ours(a), _ours(a)]), sp.vstack([a, a]))


def test_stack_interfaces_and_dense_blocks():
    a = sp.csr_array(np.eye(2))
    m = sp.csr_matrix(np.eye(2))
    _check(gs.vstack([_ours(a), _ours(m)]), sp.vstack([a, m]))
    _check(gs.hstack([_ours(m), _ours(m)]), sp.hstack([m, m]))
    dense = np.arange(4.0).reshape(2, 2)
    _check(gs.bmat([[_ours(a), dense]]), sp.bmat([[a, dense]]))
    _check(gs.bmat([[_ours(a), gp.asarray(dense)]]), sp.bmat([[a, dense]]))
    _check(gs.bmat([[None, None], [None, None]]), sp.bmat([[None, None], [None, None]]))
    _check(gs.block_array([[None, _ours(a)], [_ours(m), None]]),
           sp.block_array([[None, a], [m, None]]))


def test_stack_errors():
    a = gs.csr_array(np.eye(2))
    with pytest.raises(ValueError, match="Mismatching dimensions along axis 0"):
        gs.hstack([a, gs.csr_array((1, 3))])
    with pytest.raises(ValueError, match="incompatible dimensions for axis 1"):
        gs.vstack([a, gs.csr_array((1, 3))])
    with pytest.raises(ValueError, match="Mismatching dimensions along axis 1"):
        gs.vstack([gs.csc_array((1, 2)), gs.csc_array((1, 3))])
    with pytest.raises(ValueError, match=r"blocks\[0,:\] has incompatible row"):
        gs.bmat([[a, gs.coo_array((3, 3))]])
    with pytest.raises(ValueError, match=r"blocks\[:,0\] has incompatible column"):
        gs.bmat([[a], [gs.coo_array((3, 3))]])
    with pytest.raises(ValueError, match="blocks must be 2-D"):
        gs.bmat([a, a])
    with pytest.raises(ValueError, match="blocks must be 2-D"):
        gs.vstack([])
    with pytest.raises(IndexError):
        gs.hstack([])
    with pytest.raises(NotImplementedError):
        gs.hstack([a, a], format="lil")


@pytest.mark.parametrize("fmt", [None, "csr", "csc", "coo"])
@pytest.mark.parametrize("dtype", [None, "f4"])
def test_block_diag(fmt, dtype):
    A = _rand(3, 2, 0.5, "i4", 1)
    Bm = _rand(1, 4, 0.5, "f8", 2, "csr", array=False)
    dense = np.array([[0, 1.5], [2, 0]])
    mats = [A, dense, [[1, 0, 3]], 7, Bm, sp.csr_array((0, 2))]
    ours = [_ours(A), dense, [[1, 0, 3]], 7, _ours(Bm), gs.csr_array((0, 2))]
    _check(gs.block_diag(ours, format=fmt, dtype=dtype), sp.block_diag(mats, format=fmt,
                                                                       dtype=dtype))
    ours[1] = gp.asarray(dense)
    _check(gs.block_diag(ours, format=fmt, dtype=dtype), sp.block_diag(mats, format=fmt,
                                                                       dtype=dtype))
    mm = [sp.coo_matrix(A), Bm]
    _check(gs.block_diag([_ours(x) for x in mm], format=fmt),
           sp.block_diag(mm, format=fmt))
    with pytest.raises(ValueError):
        gs.block_diag([])


# ---------------------------------------------------------------- extract

@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (6, 9), (9, 6)])
@pytest.mark.parametrize("src", ["coo", "csr", "csc", "dense"])
def test_find(shape, src):
    h = _with_dups(*shape, 3 * max(shape), 1) if shape[0] and shape[1] else \
        sp.coo_array(shape)
    a = gp.asarray(h.toarray()) if src == "dense" else _ours(h.asformat(src))
    r, c, v = gs.find(a)
    # the reference of our stored arrays (SciPy keeps int64 indices from int64 input)
    rr, cc, vv = sp.find(h.toarray() if src == "dense" else a.get())
    np.testing.assert_array_equal(_np(r), rr)
    np.testing.assert_array_equal(_np(c), cc)
    np.testing.assert_array_equal(_np(v), vv)
    assert _np(r).dtype == rr.dtype and _np(v).dtype == vv.dtype


@pytest.mark.parametrize("k", [0, 1, -2, 10, -10])
@pytest.mark.parametrize("fmt", [None, "csr", "csc", "coo"])
@pytest.mark.parametrize("src", ["coo", "csr", "csc", "dense", "matrix"])
def test_tril_triu(k, fmt, src):
    h = _with_dups(7, 5, 30, 2)
    if src == "dense":
        x, ref_x = gp.asarray(h.toarray()), h.toarray()
    elif src == "matrix":
        ref_x = sp.csr_matrix(h)
        x = _ours(ref_x)
    else:
        ref_x = h.asformat(src)
        x = _ours(ref_x)
    _check(gs.tril(x, k=k, format=fmt), sp.tril(ref_x, k=k, format=fmt))
    _check(gs.triu(x, k=k, format=fmt), sp.triu(ref_x, k=k, format=fmt))


def test_save_load_npz(tmp_path):
    for i, h in enumerate([_rand(5, 6, 0.4, "f4", 1, "csr"),
                           _rand(5, 6, 0.4, "i8", 2, "csc", array=False),
                           _rand(4, 4, 0.5, "c16", 3, "coo")]):
        f = tmp_path / f"a{i}.npz"
        gs.save_npz(f, _ours(h), compressed=bool(i % 2))
        back = sp.load_npz(f)
        assert type(back) is type(h)
        np.testing.assert_array_equal(back.toarray(), h.toarray())
        got = gs.load_npz(f)
        assert type(got).__name__ == type(h).__name__
        np.testing.assert_array_equal(_np(got.toarray()), h.toarray())
    f = tmp_path / "dia.npz"
    sp.save_npz(f, sp.eye(4, k=1))
    got = gs.load_npz(f)
    assert type(got).__name__ == "csr_matrix"
    np.testing.assert_array_equal(_np(got.toarray()), np.eye(4, k=1))
    gs.save_npz(tmp_path / "s.npz", sp.eye_array(3, format="csr"))     # a SciPy object
    np.testing.assert_array_equal(_np(gs.load_npz(tmp_path / "s.npz").toarray()), np.eye(3))
