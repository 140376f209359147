"""GPU tests of cuDSS through gpuscipy_core.libs.cudss, for 0.7.x and 1.0.x.

Real analysis, factorization and solve of small sparse systems compared with
scipy.sparse.linalg.spsolve; configuration round trips through the version
dispatch. Skipped when cuDSS is not installed.
"""

import ctypes

import numpy
import pytest

import gpuscipy_core as gs
from gpuscipy_core import libs
from gpuscipy_core.libs import _loader

pytestmark = pytest.mark.gpu

sp = pytest.importorskip("scipy.sparse")
spla = pytest.importorskip("scipy.sparse.linalg")


@pytest.fixture(scope="module")
def d():
    try:
        _loader.load("cudss")
    except libs.LibraryNotFoundError as e:
        pytest.skip(f"cuDSS is not installed: {e}")
    from gpuscipy_core.libs import cudss
    print("cuDSS", cudss.library_version(), _loader.library_path("cudss"))
    return cudss


def _ptr(a):
    return a.__cuda_array_interface__["data"][0]


def _solve(d, a, b, mtype, mview, dtype, config=()):
    """cuDSS solve of CSR ``a`` (SciPy) with dense ``b`` (n or n x k)."""
    n = a.shape[0]
    h = libs.get_handle("cudss")
    cfg = d.cudssConfigCreate()
    data = d.cudssDataCreate(h)
    keep = []
    for param, value in config:
        v = numpy.array(value, numpy.int32)
        keep.append(v)
        d.cudssConfigSet(cfg, param, v.ctypes.data, v.nbytes)
    a = a.tocsr()
    a.sort_indices()
    indptr = gs.asarray(a.indptr.astype(numpy.int32))
    indices = gs.asarray(a.indices.astype(numpy.int32))
    vals = gs.asarray(a.data.astype(dtype))
    nrhs = 1 if b.ndim == 1 else b.shape[1]
    # Column-major n x nrhs: a C-contiguous nrhs x n array.
    db = gs.asarray(numpy.ascontiguousarray(b.astype(dtype).T))
    dx = gs.zeros(db.shape, dtype)
    vt = libs.cuda_data_type(dtype)
    mats = []
    try:
        ma = d.cudssMatrixCreateCsr(n, n, a.nnz, _ptr(indptr), 0, _ptr(indices), _ptr(vals),
                                    libs.CUDA_R_32I, libs.CUDA_R_32I, vt, mtype, mview,
                                    d.CUDSS_BASE_ZERO)
        mats.append(ma)
        mb = d.cudssMatrixCreateDn(n, nrhs, n, _ptr(db), vt, d.CUDSS_LAYOUT_COL_MAJOR)
        mats.append(mb)
        mx = d.cudssMatrixCreateDn(n, nrhs, n, _ptr(dx), vt, d.CUDSS_LAYOUT_COL_MAJOR)
        mats.append(mx)
        d.cudssExecute(h, d.CUDSS_PHASE_ANALYSIS, cfg, data, ma, mx, mb)
        d.cudssExecute(h, d.CUDSS_PHASE_FACTORIZATION, cfg, data, ma, mx, mb)
        d.cudssExecute(h, d.CUDSS_PHASE_SOLVE, cfg, data, ma, mx, mb)
        info = numpy.zeros(1, numpy.int32)
        written = d.cudssDataGet(h, data, d.CUDSS_DATA_INFO, info.ctypes.data, info.nbytes)
        assert written == 4 and info[0] == 0, f"CUDSS_DATA_INFO = {info[0]}"
        return gs.asnumpy(dx).T
    finally:
        for m in mats:
            d.cudssMatrixDestroy(m)
        d.cudssDataDestroy(h, data)
        d.cudssConfigDestroy(cfg)


def _spd(n, seed):
    rng = numpy.random.default_rng(seed)
    m = sp.random(n, n, density=0.15, random_state=rng)
    return (m @ m.T + sp.eye(n) * n).tocsr()


def test_version_is_supported(d):
    v = d.library_version()
    assert v >= (0, 7), v
    path = _loader.library_path("cudss") or ""
    if path.endswith(".so.0"):
        assert v[0] == 0, (v, path)
    elif path.endswith(".so.1"):
        assert v[0] == 1, (v, path)


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32])
def test_spd_lower_triangle(d, dtype):
    n = 40
    a = _spd(n, 1)
    b = numpy.random.default_rng(2).standard_normal((n, 3))
    x = _solve(d, sp.tril(a), b, d.CUDSS_MTYPE_SPD, d.CUDSS_MVIEW_LOWER, dtype)
    ref = spla.spsolve(a.tocsc(), b)
    tol = 1e-10 if dtype == numpy.float64 else 1e-4
    numpy.testing.assert_allclose(x, ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.complex128])
def test_general(d, dtype):
    n = 50
    rng = numpy.random.default_rng(3)
    a = sp.random(n, n, density=0.1, random_state=rng, dtype=numpy.float64) + sp.eye(n) * 4
    if dtype == numpy.complex128:
        a = a + 1j * sp.random(n, n, density=0.05, random_state=rng)
    a = a.tocsr()
    b = rng.standard_normal(n).astype(dtype)
    x = _solve(d, a, b, d.CUDSS_MTYPE_GENERAL, d.CUDSS_MVIEW_FULL, dtype)
    numpy.testing.assert_allclose(x, spla.spsolve(a.tocsc(), b), rtol=1e-10, atol=1e-12)


def test_general_with_settings_translated(d):
    # Settings whose numbering differs in 0.7 (pivoting, matching, reordering).
    n = 30
    rng = numpy.random.default_rng(5)
    a = (sp.random(n, n, density=0.2, random_state=rng) + sp.eye(n) * 3).tocsr()
    b = rng.standard_normal(n)
    config = [(d.CUDSS_CONFIG_PIVOT_TYPE, d.CUDSS_PIVOT_AUTO),
              (d.CUDSS_CONFIG_MATCHING_ALG, d.CUDSS_MATCHING_ALG_AUTO),
              (d.CUDSS_CONFIG_REORDERING_ALG, d.CUDSS_REORDERING_ALG_DEFAULT),
              (d.CUDSS_CONFIG_IR_N_STEPS, 1)]
    x = _solve(d, a, b, d.CUDSS_MTYPE_GENERAL, d.CUDSS_MVIEW_FULL, numpy.float64, config)
    numpy.testing.assert_allclose(x, spla.spsolve(a.tocsc(), b), rtol=1e-10, atol=1e-12)


def test_config_round_trip(d):
    cfg = d.cudssConfigCreate()
    try:
        v = ctypes.c_int(0)
        for param, value in [(d.CUDSS_CONFIG_IR_N_STEPS, 2),
                             (d.CUDSS_CONFIG_PIVOT_TYPE, d.CUDSS_PIVOT_NONE),
                             (d.CUDSS_CONFIG_MATCHING_ALG, d.CUDSS_MATCHING_ALG_NONE),
                             (d.CUDSS_CONFIG_REORDERING_ALG, d.CUDSS_REORDERING_ALG_AMD),
                             (d.CUDSS_CONFIG_DETERMINISTIC_MODE, 1)]:
            v.value = value
            d.cudssConfigSet(cfg, param, ctypes.addressof(v), 4)
            v.value = -7
            assert d.cudssConfigGet(cfg, param, ctypes.addressof(v), 4) == 4
            assert v.value == value, param
        v.value = 1
        if d.library_version() < (0, 8):
            with pytest.raises(d.CUDSSVersionError, match="CUDSS_CONFIG_DOWNCAST_FACTORS"):
                d.cudssConfigSet(cfg, d.CUDSS_CONFIG_DOWNCAST_FACTORS, ctypes.addressof(v), 4)
        else:
            d.cudssConfigSet(cfg, d.CUDSS_CONFIG_DOWNCAST_FACTORS, ctypes.addressof(v), 4)
        with pytest.raises(libs.CUDSSError, match="CUDSS_STATUS_INVALID_VALUE"):
            d.cudssConfigSet(cfg, d.CUDSS_CONFIG_IR_N_STEPS, ctypes.addressof(v), 8)
    finally:
        d.cudssConfigDestroy(cfg)


def test_int64_offsets(d):
    # 1.0: int64 row offsets with int32 column indices; 0.7: a clear error.
    n = 6
    a = _spd(n, 7)
    ip = gs.asarray(a.indptr.astype(numpy.int64))
    ix = gs.asarray(a.indices.astype(numpy.int32))
    vals = gs.asarray(a.data)
    args = (n, n, a.nnz, _ptr(ip), 0, _ptr(ix), _ptr(vals), libs.CUDA_R_64I, libs.CUDA_R_32I,
            libs.CUDA_R_64F, d.CUDSS_MTYPE_GENERAL, d.CUDSS_MVIEW_FULL, d.CUDSS_BASE_ZERO)
    if d.library_version() < (0, 8):
        with pytest.raises(d.CUDSSVersionError, match="offsetType"):
            d.cudssMatrixCreateCsr(*args)
    else:
        d.cudssMatrixDestroy(d.cudssMatrixCreateCsr(*args))
