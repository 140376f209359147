"""gpuscipy.linalg special/structured matrices against scipy.linalg.

CPU: NVRTC compile of every constructor kernel and of the Levinson kernel,
and argument errors raised before device work. GPU: parity of values,
dtypes and shapes, batching, edge cases and errors.
"""

import warnings

import numpy as np
import pytest
import scipy.linalg as sl

import gpuscipy_core as gp
from gpuscipy import linalg as gl
from gpuscipy.linalg import _special_matrices as S, _structured as T

gpu = pytest.mark.gpu


def _cmp(got, want, rtol=1e-12, atol=0.0):
    g = gp.asnumpy(got) if isinstance(got, gp.ndarray) else np.asarray(got)
    w = np.asarray(want)
    assert g.dtype == w.dtype, f"dtype {g.dtype} != SciPy's {w.dtype}"
    assert g.shape == w.shape, f"shape {g.shape} != SciPy's {w.shape}"
    if w.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- CPU

@pytest.mark.parametrize("name,src", S._sources(), ids=[n for n, _ in S._sources()])
def test_constructor_kernels_compile(name, src):
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    compile_cubin(src, name)


@pytest.mark.parametrize("cplx", [False, True])
def test_levinson_kernel_compiles(cplx):
    from gpuscipy_core._kernel._nvrtc import compile_cubin
    compile_cubin(*T.levinson_source(cplx))


def test_public_names():
    for n in S.__all__:
        assert getattr(gl, n) is getattr(S, n)


CPU_ERRORS = [
    (lambda m: m.hadamard(3), ValueError, "power of 2"),
    (lambda m: m.hadamard(0), ValueError, "power of 2"),
    (lambda m: m.dft(3, "x"), ValueError, "scale must be None"),
    (lambda m: m.pascal(3, kind="x"), ValueError, "kind must be"),
    (lambda m: m.invpascal(3, kind="x"), ValueError, "'kind' must be"),
    (lambda m: m.convolution_matrix([1, 2], 0), ValueError, "n must be a positive"),
    (lambda m: m.helmert(0), IndexError, "out of bounds"),
    (lambda m: m.hadamard(3.0), ValueError, "power of 2"),
    (lambda m: m.hadamard(2.5), ValueError, "power of 2"),
    (lambda m: m.dft(-2, "sqrtn"), ValueError, "math domain error"),
    (lambda m: m.dft("2"), TypeError, r"arange\(\) not supported for inputs"),
    (lambda m: m.hilbert(2.0), TypeError, "integer"),  # "slice indices must be integers" / "as an integer"
]


@pytest.mark.parametrize("call,exc,match", CPU_ERRORS, ids=[m for _, _, m in CPU_ERRORS])
def test_errors_before_device(call, exc, match):
    with pytest.raises(exc, match=match):
        call(sl)
    with pytest.raises(exc, match=match):
        call(gl)


def test_exact_beyond_int64_raises():
    with pytest.raises(ValueError, match="object arrays"):
        gl.pascal(35)
    with pytest.raises(ValueError, match="object arrays"):
        gl.invhilbert(15, exact=True)
    with pytest.raises(ValueError, match="object arrays"):
        gl.invpascal(35)


_NORM_DTYPES = [np.float16, np.float32, np.float64, np.complex64, np.complex128,
                np.int64, np.int8, np.bool_]


def _norm_inputs(xp, m):
    """(label, array) over the ndims and layouts whose SciPy path differs; the
    same views of ``m`` for ``xp`` = numpy (``m`` on the host) or
    gpuscipy_core (``m`` on the device), so that layouts agree."""
    return [("1d", m[0]), ("1d-strided", m[0, ::2]), ("0d", m[0, 0].copy()),
            ("2d-C", m), ("2d-F", xp.asfortranarray(m)), ("2d-strided", m[:, ::2]),
            ("2d-row", m[:1]), ("2d-col", xp.ascontiguousarray(m[:, :1])),
            ("3d", m.reshape(2, 2, 5)), ("empty", m[:0])]


def _norm_matrix(dt):
    return (np.random.default_rng(3).standard_normal((4, 5)) * 3).astype(dt)


_NORM_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf, 0, 3, 0.5, 1.0, 2.0]
_NORM_AXES = [None, 0, -1, (0, 1), (1, 0)]


def _norm_cases(dt, device=False):
    """(label, host array, device array or None, ord, axis, keepdims)."""
    m = _norm_matrix(dt)
    hs = _norm_inputs(np, m)
    ds = _norm_inputs(gp, gp.asarray(m)) if device else [(lab, None) for lab, _ in hs]
    for (label, h), (_, d) in zip(hs, ds):
        if d is not None:
            assert d.shape == h.shape and d.flags.c_contiguous == h.flags.c_contiguous \
                and d.flags.f_contiguous == h.flags.f_contiguous, label
        for ord in _NORM_ORDS:
            for axis in _NORM_AXES:
                for keepdims in (False, True):
                    yield label, h, d, ord, axis, keepdims


@pytest.mark.parametrize("dt", _NORM_DTYPES, ids=lambda d: np.dtype(d).name)
def test_norm_dtype_model(dt):
    # scipy.linalg.norm's result dtype depends on its internal path (BLAS
    # nrm2 / LAPACK lange give a Python float, numpy.linalg.norm keeps the
    # precision). T._scipy_uses_blas must predict it for every combination.
    n_blas = 0
    for label, h, _, ord, axis, keepdims in _norm_cases(dt):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = np.asarray(sl.norm(h, ord, axis, keepdims)).dtype
            except Exception:
                continue
            try:
                plain = np.asarray(np.linalg.norm(h, ord, axis, keepdims)).dtype
            except Exception:
                plain = None
        blas = T._scipy_uses_blas(h, h, ord, axis, keepdims)
        n_blas += blas
        got = np.dtype(np.float64) if blas else plain
        assert got == want, (label, ord, axis, keepdims)
    if np.dtype(dt).char in "fdFD":
        assert n_blas > 0


# ---------------------------------------------------------------- GPU

rng = np.random.default_rng(0)


@gpu
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128,
                                np.int64, np.int8])
def test_toeplitz_hankel_circulant(dt):
    c = (rng.standard_normal(5) * 5).astype(dt)
    r = (rng.standard_normal(7) * 5).astype(dt)
    _cmp(gl.toeplitz(gp.asarray(c), gp.asarray(r)), sl.toeplitz(c, r))
    _cmp(gl.toeplitz(gp.asarray(c)), sl.toeplitz(c))
    _cmp(gl.hankel(gp.asarray(c), gp.asarray(r)), sl.hankel(c, r))
    _cmp(gl.hankel(gp.asarray(c)), sl.hankel(c))
    _cmp(gl.circulant(gp.asarray(c)), sl.circulant(c))
    cb = (rng.standard_normal((2, 3, 4)) * 5).astype(dt)
    _cmp(gl.circulant(gp.asarray(cb)), sl.circulant(cb))
    rb = (rng.standard_normal((3, 6)) * 5).astype(dt)
    _cmp(gl.toeplitz(gp.asarray(cb), gp.asarray(rb)), sl.toeplitz(cb, rb))


@gpu
def test_toeplitz_edges():
    _cmp(gl.toeplitz(gp.asarray(np.zeros(0))), sl.toeplitz(np.zeros(0)))
    _cmp(gl.toeplitz(3.0), sl.toeplitz(3.0))
    _cmp(gl.toeplitz([1, 2], [3.5, 4, 5]), sl.toeplitz([1, 2], [3.5, 4, 5]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        want = sl.hankel(np.ones((2, 2)))
    with pytest.warns(FutureWarning):
        got = gl.hankel(gp.ones((2, 2)))
    _cmp(got, want)


@gpu
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex128, np.int64])
def test_companion_leslie(dt):
    a = (rng.standard_normal(5) * 5 + 10).astype(dt)
    _cmp(gl.companion(gp.asarray(a)), sl.companion(a), rtol=1e-6)
    ab = (rng.standard_normal((2, 4)) + 10).astype(dt)
    _cmp(gl.companion(gp.asarray(ab)), sl.companion(ab), rtol=1e-6)
    with pytest.raises(ValueError, match="must not be zero"):
        gl.companion(gp.asarray(np.array([0.0, 1, 2])))
    with pytest.raises(ValueError, match="at least 2"):
        gl.companion(gp.asarray(np.array([1.0])))
    f = np.array([0.1, 2.0, 1.0, 0.1], dtype=dt if dt != np.int64 else np.float64)
    s = np.array([0.2, 0.8, 0.7])
    _cmp(gl.leslie(gp.asarray(f), gp.asarray(s)), sl.leslie(f, s))
    with pytest.raises(ValueError, match="Incorrect lengths"):
        gl.leslie([1.0, 2.0], [1.0, 2.0])


@gpu
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("la,n", [(5, 3), (3, 5), (4, 4), (1, 6)])
def test_convolution_matrix(mode, la, n):
    a = rng.standard_normal(la)
    _cmp(gl.convolution_matrix(gp.asarray(a), n, mode), sl.convolution_matrix(a, n, mode))


@gpu
@pytest.mark.parametrize("n", [1, 2, 5, 16, 33])
def test_dft_hilbert_helmert_hadamard_fiedler(n):
    for scale in (None, "sqrtn", "n"):
        _cmp(gl.dft(n, scale), sl.dft(n, scale), rtol=1e-11, atol=1e-13)
    _cmp(gl.hilbert(n), sl.hilbert(n))
    _cmp(gl.helmert(n), sl.helmert(n), rtol=1e-14)
    _cmp(gl.helmert(n, full=True), sl.helmert(n, full=True), rtol=1e-14)
    a = rng.standard_normal(n)
    _cmp(gl.fiedler(gp.asarray(a)), sl.fiedler(a))
    _cmp(gl.fiedler(gp.asarray(np.arange(n))), sl.fiedler(np.arange(n)))
    if n & (n - 1) == 0:
        for dt in (int, np.float32, np.complex64, np.int8):
            _cmp(gl.hadamard(n, dt), sl.hadamard(n, dt))


@gpu
def test_negative_and_float_orders_as_scipy():
    # SciPy builds these from numpy.arange(n): a negative n is a 0x0 matrix,
    # a float n is accepted where SciPy accepts it.
    for call in (lambda m: m.hilbert(-1), lambda m: m.hilbert(0), lambda m: m.dft(-1),
                 lambda m: m.dft(0), lambda m: m.dft(0, "n"), lambda m: m.dft(0, "sqrtn"),
                 lambda m: m.dft(-3, "n"), lambda m: m.pascal(-1, exact=False),
                 lambda m: m.pascal(-2, "lower", exact=False),
                 lambda m: m.hadamard(2.0), lambda m: m.hadamard(4.0, np.float32),
                 lambda m: m.hadamard(True), lambda m: m.dft(2.0), lambda m: m.dft(4.0, "n"),
                 lambda m: m.dft(True)):
        _cmp(call(gl), call(sl), rtol=1e-11, atol=1e-13)
    # A non-integral float: ceil(n) rows over the period n, as SciPy.
    for n, scale in [(2.5, None), (3.2, "sqrtn"), (0.5, "n")]:
        _cmp(gl.dft(n, scale), sl.dft(n, scale), rtol=1e-11, atol=1e-13)


@gpu
@pytest.mark.parametrize("n", [1, 3, 8, 14])
def test_invhilbert(n):
    _cmp(gl.invhilbert(n, exact=True), sl.invhilbert(n, exact=True))
    _cmp(gl.invhilbert(n), sl.invhilbert(n), rtol=1e-10)


@gpu
@pytest.mark.parametrize("kind", ["symmetric", "lower", "upper"])
@pytest.mark.parametrize("n", [1, 4, 20, 34])
def test_pascal_invpascal(kind, n):
    _cmp(gl.pascal(n, kind), sl.pascal(n, kind))
    _cmp(gl.pascal(n, kind, exact=False), sl.pascal(n, kind, exact=False), rtol=1e-13)
    _cmp(gl.invpascal(n, kind), sl.invpascal(n, kind))
    _cmp(gl.invpascal(n, kind, exact=False), sl.invpascal(n, kind, exact=False),
         rtol=1e-12)


@gpu
def test_khatri_rao_block_diag():
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal((2, 4)).astype(np.float32)
    _cmp(gl.khatri_rao(gp.asarray(a), gp.asarray(b)), sl.khatri_rao(a, b))
    with pytest.raises(ValueError, match="2-dimensional"):
        gl.khatri_rao(gp.ones(3), gp.ones((2, 3)))
    with pytest.raises(ValueError, match="number of columns"):
        gl.khatri_rao(gp.ones((2, 3)), gp.ones((2, 2)))
    args = ([1, 2], [[3]], 5, np.ones((0, 2)), np.arange(6).reshape(2, 3))
    _cmp(gl.block_diag(*[gp.asarray(np.asarray(x)) for x in args]), sl.block_diag(*args))
    _cmp(gl.block_diag(), sl.block_diag())
    bb = rng.standard_normal((2, 2, 2))
    _cmp(gl.block_diag(gp.asarray(bb), gp.asarray(np.eye(3))), sl.block_diag(bb, np.eye(3)))


@gpu
def test_symmetry_checks_and_bandwidth():
    a = rng.standard_normal((5, 5))
    s = a + a.T
    h = (a + 1j * a.T) + (a + 1j * a.T).conj().T
    for m in (a, s, h, s.astype(np.float32)):
        for kw in ({}, {"atol": 1e-12}, {"rtol": 1e-8}):
            assert gl.issymmetric(gp.asarray(m), **kw) == sl.issymmetric(m, **kw)
            assert gl.ishermitian(gp.asarray(m), **kw) == sl.ishermitian(m, **kw)
    nanm = np.array([[1.0, np.nan], [np.nan, 1.0]])
    assert gl.issymmetric(gp.asarray(nanm)) == sl.issymmetric(nanm)
    nand = np.array([[np.nan, 2.0], [2.0, 1.0]])
    assert gl.issymmetric(gp.asarray(nand)) == sl.issymmetric(nand)
    batch = np.stack([s, a])
    np.testing.assert_array_equal(gp.asnumpy(gl.issymmetric(gp.asarray(batch))),
                                  sl.issymmetric(batch))
    with pytest.raises(ValueError, match="square"):
        gl.issymmetric(gp.ones((2, 3)))
    with pytest.raises(ValueError, match="2D"):
        gl.issymmetric(gp.ones(3))
    for m in (np.triu(np.tril(a, 2), -1), np.zeros((3, 3)), np.eye(4), a[:3], np.tril(a)):
        assert gl.bandwidth(gp.asarray(m)) == sl.bandwidth(m)


@gpu
@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128,
                                np.int64])
def test_norm(dt):
    x = (rng.standard_normal((4, 5)) * 3).astype(dt)
    v = x[0]
    dx, dv = gp.asarray(x), gp.asarray(v)
    tol = 1e-5 if np.dtype(dt).char in "fF" else 1e-12
    for ord in (None, 1, -1, 2, -2, np.inf, -np.inf, 0, 3, 0.5):
        _cmp(gl.norm(dv, ord), np.asarray(sl.norm(v, ord)), rtol=tol)
    for ord in (None, "fro", 1, -1, np.inf, -np.inf):
        _cmp(gl.norm(dx, ord), np.asarray(sl.norm(x, ord)), rtol=tol)
        _cmp(gl.norm(dx, ord, keepdims=True), sl.norm(x, ord, keepdims=True), rtol=tol)
    _cmp(gl.norm(dx, axis=1), sl.norm(x, axis=1), rtol=tol)
    _cmp(gl.norm(dx, 1, axis=0, keepdims=True), sl.norm(x, 1, axis=0, keepdims=True),
         rtol=tol)
    with pytest.raises(ValueError):
        gl.norm(dx, "bad")
    with pytest.raises(ValueError):
        gl.norm(dv, "fro")
    if np.dtype(dt).kind == "f":
        bad = x.copy()
        bad[0, 0] = np.nan
        with pytest.raises(ValueError, match="infs or NaNs"):
            gl.norm(gp.asarray(bad))


@gpu
@pytest.mark.parametrize("dt", _NORM_DTYPES, ids=lambda d: np.dtype(d).name)
def test_norm_layouts_axes_dtypes(dt):
    # every (ndim, layout, ord, axis, keepdims) SciPy accepts, except the
    # singular-value orders (test_norm_spectral): values, shapes and dtypes.
    tol = {"e": 1e-2, "f": 2e-5, "F": 2e-5}.get(np.dtype(dt).char, 1e-12)
    for label, h, d, ord, axis, keepdims in _norm_cases(dt, device=True):
        if ord in (2, -2, "nuc") and (axis is None and h.ndim == 2
                                      or isinstance(axis, tuple)):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = sl.norm(h, ord, axis, keepdims)
            except Exception as e:
                with pytest.raises(type(e)):
                    gl.norm(d, ord, axis, keepdims)
                continue
            got = gl.norm(d, ord, axis, keepdims)
        try:
            _cmp(got, np.asarray(want), rtol=tol)
        except AssertionError as e:
            raise AssertionError(f"{label} ord={ord} axis={axis} keepdims={keepdims}: "
                                 f"{e}") from None


@gpu
def test_norm_spectral():
    x = rng.standard_normal((6, 4))
    for ord in (2, -2, "nuc"):
        _cmp(gl.norm(gp.asarray(x), ord), np.asarray(sl.norm(x, ord)), rtol=1e-10)


@gpu
@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("n,k", [(1, 1), (7, 1), (50, 3), (300, 2)])
def test_solve_toeplitz(cplx, n, k):
    c = rng.standard_normal(n)
    r = rng.standard_normal(n)
    c[0] = n + 5.0              # diagonally dominant: well conditioned
    if cplx:
        c = c + 1j * rng.standard_normal(n)
    b = rng.standard_normal((n, k)) if k > 1 else rng.standard_normal(n)
    _cmp(gl.solve_toeplitz((gp.asarray(c), gp.asarray(r)), gp.asarray(b)),
         sl.solve_toeplitz((c, r), b), rtol=1e-9, atol=1e-12)
    _cmp(gl.solve_toeplitz(gp.asarray(c), gp.asarray(b)), sl.solve_toeplitz(c, b),
         rtol=1e-9, atol=1e-12)


@gpu
def test_solve_toeplitz_errors():
    with pytest.raises(ValueError, match="Incompatible dimensions"):
        gl.solve_toeplitz(gp.ones(3), gp.ones(4))
    with pytest.raises(gl.LinAlgError):
        gl.solve_toeplitz(gp.asarray(np.array([0.0, 1.0])), gp.ones(2))
    with pytest.raises(ValueError, match="infs or NaNs"):
        gl.solve_toeplitz(gp.asarray(np.array([1.0, np.nan])), gp.ones(2))


@gpu
@pytest.mark.parametrize("m,n,k", [(5, 4, 1), (100, 80, 3), (3, 3, 2)])
def test_matmul_toeplitz(m, n, k):
    c, r = rng.standard_normal(m), rng.standard_normal(n)
    x = rng.standard_normal((n, k))
    _cmp(gl.matmul_toeplitz((gp.asarray(c), gp.asarray(r)), gp.asarray(x)),
         sl.matmul_toeplitz((c, r), x), rtol=1e-9, atol=1e-11)


@gpu
def test_solve_circulant():
    c = np.array([2.0, 2, 4])
    b = np.array([1.0, 2, 3])
    _cmp(gl.solve_circulant(gp.asarray(c), gp.asarray(b)), sl.solve_circulant(c, b),
         rtol=1e-12, atol=1e-14)
    cs = np.array([1.0, 1, 0, 0])       # singular
    with pytest.raises(gl.LinAlgError):
        gl.solve_circulant(gp.asarray(cs), gp.asarray(np.ones(4)))
    _cmp(gl.solve_circulant(gp.asarray(cs), gp.asarray(np.arange(4.0)), singular="lstsq"),
         sl.solve_circulant(cs, np.arange(4.0), singular="lstsq"), rtol=1e-10, atol=1e-12)
