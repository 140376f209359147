"""GPU tests of the vendor library layer: symbols, handles, streams, one real call each."""

import threading

import numpy
import pytest

import gpuscipy_core as gs
from gpuscipy_core import libs
from gpuscipy_core.libs import _generate, _loader

pytestmark = pytest.mark.gpu


def _require(lib):
    try:
        _loader.load(lib)
    except libs.LibraryNotFoundError as e:
        if lib == "cudss":
            pytest.skip(f"cuDSS is not installed: {e}")
        raise


@pytest.mark.parametrize("lib", _generate.LIBRARIES)
def test_every_symbol_resolves(lib):
    _require(lib)
    missing = [f.name for f in _generate.parse(lib).functions
               if not _loader._raw_symbol(lib, f.name)]
    assert not missing, f"{lib} {_loader.library_version(lib)} lacks {missing}"


@pytest.mark.parametrize("lib", ["cublas", "cusolver", "cusparse", "cudss"])
def test_handle_per_thread_and_stream(lib):
    _require(lib)
    h = libs.get_handle(lib)
    assert h and libs.get_handle(lib) == h
    other = []
    t = threading.Thread(target=lambda: other.append(libs.get_handle(lib)))
    t.start()
    t.join()
    assert other and other[0] != h
    s = gs.cuda.Stream()
    with s:
        assert libs.get_handle(lib) == h
        if lib == "cublas":
            assert libs.cublas.cublasGetStream_v2(h) == s.ptr
        elif lib == "cusolver":
            assert libs.cusolver.cusolverDnGetStream(h) == s.ptr
        elif lib == "cusparse":
            assert libs.cusparse.cusparseGetStream(h) == s.ptr
    libs.get_handle(lib)
    if lib == "cublas":
        assert libs.cublas.cublasGetStream_v2(h) == 0


def _gemm(h, a, b):
    m, k = a.shape
    n = b.shape[1]
    c = gs.empty((m, n), numpy.float64)
    one, zero = numpy.array(1.0), numpy.array(0.0)
    # row-major C = A B  <=>  column-major C^T = B^T A^T
    libs.cublas.cublasDgemm_v2(h, libs.cublas.CUBLAS_OP_N, libs.cublas.CUBLAS_OP_N, n, m, k,
                               one.ctypes.data, _ptr(b), n, _ptr(a), k, zero.ctypes.data,
                               _ptr(c), n)
    return c


def _ptr(x):
    return x.__cuda_array_interface__["data"][0]


def test_cublas_gemm_and_error_recovery():
    rng = numpy.random.default_rng(0)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((3, 4))
    h = libs.get_handle("cublas")
    da, db = gs.asarray(a), gs.asarray(b)
    numpy.testing.assert_allclose(gs.asnumpy(_gemm(h, da, db)), a @ b, rtol=1e-12)
    one = numpy.array(1.0)
    with pytest.raises(libs.CUBLASError, match="CUBLAS_STATUS_INVALID_VALUE"):
        libs.cublas.cublasDgemm_v2(h, 0, 0, -1, 4, 3, one.ctypes.data, _ptr(db), 4,
                                   _ptr(da), 3, one.ctypes.data, 0, 4)
    numpy.testing.assert_allclose(gs.asnumpy(_gemm(h, da, db)), a @ b, rtol=1e-12)
    assert libs.cublas.cublasGetVersion_v2(h) > 0


def test_cusolver_getrf_getrs_solve_and_error_recovery():
    c = libs.cusolver
    rng = numpy.random.default_rng(1)
    n = 6
    a = rng.standard_normal((n, n)) + n * numpy.eye(n)
    b = rng.standard_normal(n)
    h = libs.get_handle("cusolver")
    params = c.cusolverDnCreateParams()
    try:
        da = gs.asarray(a.T.copy())          # column-major A
        db = gs.asarray(b)
        ipiv = gs.empty(n, numpy.int64)
        info = gs.zeros(1, numpy.int32)
        dev, host = c.cusolverDnXgetrf_bufferSize(h, params, n, n, libs.CUDA_R_64F, _ptr(da), n,
                                                  libs.CUDA_R_64F)
        work = gs.empty(max(dev, 1), numpy.uint8)
        hwork = numpy.empty(max(host, 1), numpy.uint8)
        c.cusolverDnXgetrf(h, params, n, n, libs.CUDA_R_64F, _ptr(da), n, _ptr(ipiv),
                           libs.CUDA_R_64F, _ptr(work), dev, hwork.ctypes.data, host, _ptr(info))
        c.cusolverDnXgetrs(h, params, c.CUBLAS_OP_N, n, 1, libs.CUDA_R_64F, _ptr(da), n,
                           _ptr(ipiv), libs.CUDA_R_64F, _ptr(db), n, _ptr(info))
        assert int(gs.asnumpy(info)[0]) == 0
        numpy.testing.assert_allclose(gs.asnumpy(db), numpy.linalg.solve(a, b), rtol=1e-10)
        # A failing call must raise CUSOLVERError with the status in the
        # message and leave the handle usable. Which bad arguments a given
        # cuSOLVER release rejects varies (13.0's Xgetrf_bufferSize accepts
        # m = -1), so try documented invalid inputs, none of which can touch
        # memory outside the 6x6 buffer, and require at least one to fail.
        scratch = gs.asarray(a.T.copy())
        bad = [
            ("cusolverDnXgetrf_bufferSize", lambda: c.cusolverDnXgetrf_bufferSize(
                h, params, n, n, libs.CUDA_R_64F, _ptr(scratch), 1, libs.CUDA_R_64F)),
            ("cusolverDnDgetrf_bufferSize", lambda: c.cusolverDnDgetrf_bufferSize(
                h, -1, n, _ptr(scratch), n)),
            ("cusolverDnDpotrf_bufferSize", lambda: c.cusolverDnDpotrf_bufferSize(
                h, 12345, n, _ptr(scratch), n)),
            # lda = 1 < m: if it were not checked, a 6x6 factorization with
            # lda 1 reads/writes elements 0..10 only (in bounds)
            ("cusolverDnXgetrf", lambda: c.cusolverDnXgetrf(
                h, params, n, n, libs.CUDA_R_64F, _ptr(scratch), 1, _ptr(ipiv),
                libs.CUDA_R_64F, _ptr(work), dev, hwork.ctypes.data, host, _ptr(info))),
        ]
        raised = []
        for call, fn in bad:
            try:
                fn()
            except libs.CUSOLVERError as e:
                assert e.library == "cusolver" and e.call == call and e.status != 0
                assert getattr(c, e.status_name) == e.status      # a known status
                assert str(e) == f"{call} failed: {e.status_name} ({e.status})", str(e)
                raised.append((call, e.status_name))
        assert raised, "no invalid cuSOLVER call was rejected"
        gs.cuda.get_current_stream().synchronize()
        # the handle still works: the same query and a fresh solve
        assert c.cusolverDnXgetrf_bufferSize(h, params, n, n, libs.CUDA_R_64F, _ptr(da), n,
                                             libs.CUDA_R_64F) == (dev, host)
        da = gs.asarray(a.T.copy())
        db = gs.asarray(b)
        info = gs.zeros(1, numpy.int32)
        c.cusolverDnXgetrf(h, params, n, n, libs.CUDA_R_64F, _ptr(da), n, _ptr(ipiv),
                           libs.CUDA_R_64F, _ptr(work), dev, hwork.ctypes.data, host, _ptr(info))
        c.cusolverDnXgetrs(h, params, c.CUBLAS_OP_N, n, 1, libs.CUDA_R_64F, _ptr(da), n,
                           _ptr(ipiv), libs.CUDA_R_64F, _ptr(db), n, _ptr(info))
        assert int(gs.asnumpy(info)[0]) == 0
        numpy.testing.assert_allclose(gs.asnumpy(db), numpy.linalg.solve(a, b), rtol=1e-10)
    finally:
        c.cusolverDnDestroyParams(params)


def test_cufft_round_trip():
    f = libs.cufft
    rng = numpy.random.default_rng(2)
    x = (rng.standard_normal((3, 16)) + 1j * rng.standard_normal((3, 16))).astype(numpy.complex128)
    plan = f.cufftCreate()
    try:
        ws = f.cufftMakePlanMany64(plan, 1, [16], None, 1, 16, None, 1, 16, f.CUFFT_Z2Z, 3)
        assert ws >= 0
        f.cufftSetStream(plan, gs.cuda.get_current_stream().ptr)
        dx = gs.asarray(x)
        dy = gs.empty_like(dx)
        f.cufftExecZ2Z(plan, _ptr(dx), _ptr(dy), f.CUFFT_FORWARD)
        numpy.testing.assert_allclose(gs.asnumpy(dy), numpy.fft.fft(x, axis=-1), atol=1e-12)
        f.cufftExecZ2Z(plan, _ptr(dy), _ptr(dx), f.CUFFT_INVERSE)
        numpy.testing.assert_allclose(gs.asnumpy(dx) / 16, x, atol=1e-12)
        with pytest.raises(libs.CUFFTError):
            f.cufftMakePlanMany64(plan, 1, [0], None, 1, 16, None, 1, 16, f.CUFFT_Z2Z, 3)
    finally:
        f.cufftDestroy(plan)
    assert f.cufftGetVersion() > 0


def test_cusparse_csr_spmv():
    sp = pytest.importorskip("scipy.sparse")
    s = libs.cusparse
    a = sp.random(7, 5, density=0.4, format="csr", random_state=3, dtype=numpy.float64)
    x = numpy.arange(5, dtype=numpy.float64) + 1
    h = libs.get_handle("cusparse")
    indptr, indices = gs.asarray(a.indptr.astype(numpy.int32)), gs.asarray(a.indices.astype(numpy.int32))
    data, dx, dy = gs.asarray(a.data), gs.asarray(x), gs.zeros(7, numpy.float64)
    mat = s.cusparseCreateCsr(7, 5, a.nnz, _ptr(indptr), _ptr(indices), _ptr(data),
                              s.CUSPARSE_INDEX_32I, s.CUSPARSE_INDEX_32I,
                              s.CUSPARSE_INDEX_BASE_ZERO, libs.CUDA_R_64F)
    vx = s.cusparseCreateDnVec(5, _ptr(dx), libs.CUDA_R_64F)
    vy = s.cusparseCreateDnVec(7, _ptr(dy), libs.CUDA_R_64F)
    try:
        assert s.cusparseSpMatGetSize(mat) == (7, 5, a.nnz)
        one, zero = numpy.array(1.0), numpy.array(0.0)
        size = s.cusparseSpMV_bufferSize(h, s.CUSPARSE_OPERATION_NON_TRANSPOSE, one.ctypes.data,
                                         mat, vx, zero.ctypes.data, vy, libs.CUDA_R_64F,
                                         s.CUSPARSE_SPMV_ALG_DEFAULT)
        buf = gs.empty(max(size, 1), numpy.uint8)
        s.cusparseSpMV(h, s.CUSPARSE_OPERATION_NON_TRANSPOSE, one.ctypes.data, mat, vx,
                       zero.ctypes.data, vy, libs.CUDA_R_64F, s.CUSPARSE_SPMV_ALG_DEFAULT,
                       _ptr(buf))
        numpy.testing.assert_allclose(gs.asnumpy(dy), a @ x, rtol=1e-12)
    finally:
        s.cusparseDestroyDnVec(vx)
        s.cusparseDestroyDnVec(vy)
        s.cusparseDestroySpMat(mat)


def test_curand_statistics():
    r = libs.curand
    g = r.curandCreateGenerator(r.CURAND_RNG_PSEUDO_PHILOX4_32_10)
    try:
        r.curandSetStream(g, gs.cuda.get_current_stream().ptr)
        r.curandSetPseudoRandomGeneratorSeed(g, 1234)
        u = gs.empty(1 << 16, numpy.float64)
        r.curandGenerateUniformDouble(g, _ptr(u), u.size)
        z = gs.empty(1 << 16, numpy.float32)
        r.curandGenerateNormal(g, _ptr(z), z.size, 2.0, 3.0)
        hu, hz = gs.asnumpy(u), gs.asnumpy(z)
        assert 0 < hu.min() and hu.max() <= 1 and abs(hu.mean() - 0.5) < 0.01
        assert abs(hz.mean() - 2.0) < 0.05 and abs(hz.std() - 3.0) < 0.05
        # (an odd count for curandGenerateNormal is no error case: the cuRAND
        # of CUDA 13 accepts it for Philox, the binding passes n unchanged)
        r.curandGenerateNormal(g, _ptr(z), 3, 0.0, 1.0)
        assert numpy.isfinite(gs.asnumpy(z[:3])).all()
        r.curandGenerateUniformDouble(g, _ptr(u), 8)
    finally:
        r.curandDestroyGenerator(g)
    # documented errors: an invalid generator type, and seeding a
    # quasi-random generator (CURAND_STATUS_TYPE_ERROR for both)
    with pytest.raises(libs.CURANDError, match=r"^curandCreateGenerator failed: "
                                               r"CURAND_STATUS_TYPE_ERROR \(103\)$"):
        r.curandCreateGenerator(12345)
    q = r.curandCreateGenerator(r.CURAND_RNG_QUASI_SOBOL32)
    try:
        r.curandSetStream(q, gs.cuda.get_current_stream().ptr)
        with pytest.raises(libs.CURANDError, match=r"^curandSetPseudoRandomGeneratorSeed "
                                                   r"failed: CURAND_STATUS_TYPE_ERROR"):
            r.curandSetPseudoRandomGeneratorSeed(q, 1)
        v = gs.empty(64, numpy.float32)
        r.curandGenerateUniform(q, _ptr(v), v.size)       # still usable
        hv = gs.asnumpy(v)
        assert 0 < hv.min() and hv.max() <= 1 and abs(hv.mean() - 0.5) < 0.05
    finally:
        r.curandDestroyGenerator(q)


def test_cudss_solve():
    _require("cudss")
    sp = pytest.importorskip("scipy.sparse")
    d = libs.cudss
    n = 8
    a = (sp.random(n, n, density=0.3, random_state=4) + sp.eye(n) * n).tocsr()
    b = numpy.arange(n, dtype=numpy.float64)
    h = libs.get_handle("cudss")
    cfg, data = d.cudssConfigCreate(), d.cudssDataCreate(h)
    indptr, indices = gs.asarray(a.indptr.astype(numpy.int32)), gs.asarray(a.indices.astype(numpy.int32))
    vals, db, dx = gs.asarray(a.data), gs.asarray(b), gs.zeros(n, numpy.float64)
    ma = d.cudssMatrixCreateCsr(n, n, a.nnz, _ptr(indptr), 0, _ptr(indices), _ptr(vals),
                                libs.CUDA_R_32I, libs.CUDA_R_32I, libs.CUDA_R_64F,
                                d.CUDSS_MTYPE_GENERAL, d.CUDSS_MVIEW_FULL, d.CUDSS_BASE_ZERO)
    mb = d.cudssMatrixCreateDn(n, 1, n, _ptr(db), libs.CUDA_R_64F, d.CUDSS_LAYOUT_COL_MAJOR)
    mx = d.cudssMatrixCreateDn(n, 1, n, _ptr(dx), libs.CUDA_R_64F, d.CUDSS_LAYOUT_COL_MAJOR)
    try:
        for phase in (d.CUDSS_PHASE_ANALYSIS, d.CUDSS_PHASE_FACTORIZATION, d.CUDSS_PHASE_SOLVE):
            d.cudssExecute(h, phase, cfg, data, ma, mx, mb)
        numpy.testing.assert_allclose(gs.asnumpy(dx), sp.linalg.spsolve(a.tocsc(), b), rtol=1e-10)
    finally:
        for m in (ma, mb, mx):
            d.cudssMatrixDestroy(m)
        d.cudssDataDestroy(h, data)
        d.cudssConfigDestroy(cfg)
