"""cuSPARSE's generic API for the compressed formats: SpMV, SpMM, SpGEMM,
csr2csc.

Descriptors are made per call and destroyed at its end (they only wrap
pointers; creating one is a host call of ~1 us); work buffers come from the
core's pool. Scalars ``alpha``/``beta`` are host values (cuSPARSE's default
pointer mode). The handle is the calling thread's, bound to the current
stream (``gpuscipy_core.libs.get_handle``). Reference: NVIDIA, *cuSPARSE
Library* (generic API: cusparseSpMV, cusparseSpMM, cusparseSpGEMM,
cusparseCsr2cscEx2).
"""

import contextlib

import numpy

import gpuscipy_core as gp
from gpuscipy_core import libs

__all__ = ["spmv", "spmm", "spgemm", "csr2csc", "value_type"]

_VALUE = {"f": "CUDA_R_32F", "d": "CUDA_R_64F", "F": "CUDA_C_32F", "D": "CUDA_C_64F"}


def value_type(dtype):
    """cudaDataType of a floating-point dtype (``TypeError`` otherwise)."""
    try:
        return getattr(libs, _VALUE[numpy.dtype(dtype).char])
    except KeyError:
        raise TypeError(f"cuSPARSE has no {numpy.dtype(dtype)} values here") from None


def _index_type(dtype):
    s = libs.cusparse
    return s.CUSPARSE_INDEX_64I if numpy.dtype(dtype).itemsize == 8 else s.CUSPARSE_INDEX_32I


@contextlib.contextmanager
def _csr(data, indptr, indices, M, N):
    s = libs.cusparse
    it = _index_type(indptr.dtype)
    mat = s.cusparseCreateCsr(M, N, data.shape[0], indptr.ptr, indices.ptr, data.ptr,
                              it, it, s.CUSPARSE_INDEX_BASE_ZERO, value_type(data.dtype))
    try:
        yield mat
    finally:
        s.cusparseDestroySpMat(mat)


def _buffer(nbytes):
    return gp.empty(max(int(nbytes), 1), numpy.uint8)


def spmv(data, indptr, indices, M, N, x, transpose=False):
    """``A @ x`` for the CSR structure ``A`` (M x N) or ``A.T @ x``
    (``transpose``); ``data`` and ``x`` of one floating-point dtype."""
    s = libs.cusparse
    x = gp.ascontiguousarray(x)
    out_len = N if transpose else M
    y = gp.empty(out_len, data.dtype)
    if out_len == 0:
        return y
    if data.shape[0] == 0 or x.shape[0] == 0:
        y[...] = 0
        return y
    vt = value_type(data.dtype)
    op = s.CUSPARSE_OPERATION_TRANSPOSE if transpose else s.CUSPARSE_OPERATION_NON_TRANSPOSE
    one, zero = numpy.ones(1, data.dtype), numpy.zeros(1, data.dtype)
    h = libs.get_handle("cusparse")
    with _csr(data, indptr, indices, M, N) as mat:
        vx = s.cusparseCreateDnVec(x.shape[0], x.ptr, vt)
        vy = s.cusparseCreateDnVec(out_len, y.ptr, vt)
        try:
            size = s.cusparseSpMV_bufferSize(h, op, one.ctypes.data, mat, vx, zero.ctypes.data,
                                             vy, vt, s.CUSPARSE_SPMV_ALG_DEFAULT)
            buf = _buffer(size)
            s.cusparseSpMV(h, op, one.ctypes.data, mat, vx, zero.ctypes.data, vy, vt,
                           s.CUSPARSE_SPMV_ALG_DEFAULT, buf.ptr)
        finally:
            s.cusparseDestroyDnVec(vx)
            s.cusparseDestroyDnVec(vy)
    return y


def spmm(data, indptr, indices, M, N, b, transpose=False):
    """``A @ b`` (or ``A.T @ b``) for the CSR structure ``A`` (M x N) and a
    dense 2-D ``b`` of ``data``'s floating-point dtype; row-major result."""
    s = libs.cusparse
    b = gp.ascontiguousarray(b)
    k = b.shape[1]
    rows = N if transpose else M
    c = gp.empty((rows, k), data.dtype)
    if rows == 0 or k == 0:
        return c
    if data.shape[0] == 0 or b.shape[0] == 0:
        c[...] = 0
        return c
    vt = value_type(data.dtype)
    op = s.CUSPARSE_OPERATION_TRANSPOSE if transpose else s.CUSPARSE_OPERATION_NON_TRANSPOSE
    nop = s.CUSPARSE_OPERATION_NON_TRANSPOSE
    one, zero = numpy.ones(1, data.dtype), numpy.zeros(1, data.dtype)
    h = libs.get_handle("cusparse")
    with _csr(data, indptr, indices, M, N) as mat:
        mb = s.cusparseCreateDnMat(b.shape[0], k, k, b.ptr, vt, s.CUSPARSE_ORDER_ROW)
        mc = s.cusparseCreateDnMat(rows, k, k, c.ptr, vt, s.CUSPARSE_ORDER_ROW)
        try:
            size = s.cusparseSpMM_bufferSize(h, op, nop, one.ctypes.data, mat, mb,
                                             zero.ctypes.data, mc, vt,
                                             s.CUSPARSE_SPMM_ALG_DEFAULT)
            buf = _buffer(size)
            s.cusparseSpMM(h, op, nop, one.ctypes.data, mat, mb, zero.ctypes.data, mc, vt,
                           s.CUSPARSE_SPMM_ALG_DEFAULT, buf.ptr)
        finally:
            s.cusparseDestroyDnMat(mb)
            s.cusparseDestroyDnMat(mc)
    return c


def csr2csc(data, indptr, indices, M, N):
    """The CSC arrays ``(data, indices, indptr)`` of the CSR structure
    (M x N): cuSPARSE's stable transpose (indices sorted within each column
    when they were within each row; duplicates kept). int32 indices only
    (cuSPARSE's), int64 ones through a sort."""
    s = libs.cusparse
    nnz = data.shape[0]
    if indptr.dtype != numpy.int32 or indices.dtype != numpy.int32:
        raise TypeError("csr2csc: int32 indices only")
    cval = gp.empty(nnz, data.dtype)
    cptr = gp.empty(N + 1, numpy.int32)
    cind = gp.empty(nnz, numpy.int32)
    vt = value_type(data.dtype)
    h = libs.get_handle("cusparse")
    args = (h, M, N, nnz, data.ptr, indptr.ptr, indices.ptr, cval.ptr, cptr.ptr, cind.ptr,
            vt, s.CUSPARSE_ACTION_NUMERIC, s.CUSPARSE_INDEX_BASE_ZERO,
            s.CUSPARSE_CSR2CSC_ALG1)
    size = s.cusparseCsr2cscEx2_bufferSize(*args)
    buf = _buffer(size)
    s.cusparseCsr2cscEx2(*args, buf.ptr)
    return cval, cind, cptr


def spgemm(a_csr_parts, b_csr_parts):
    """CSR ``(data, indices, indptr)`` of ``C = A @ B`` by cuSPARSE's SpGEMM
    (``CUSPARSE_SPGEMM_DEFAULT``). ``a_csr_parts``: ``(data, indices, indptr,
    (M, K))`` of A (int32 indices, compact: ``len(data)`` is nnz), likewise B
    (K x N); one floating-point dtype. cuSPARSE's protocol: workEstimation
    and compute each called twice (the first call sizes the buffer), the
    size of C read with SpMatGetSize, C's arrays set with CsrSetPointers and
    filled by SpGEMM_copy. Entries that cancel to zero are kept and the
    order of C's indices within a row is cuSPARSE's (the caller sorts)."""
    s = libs.cusparse
    ad, ai, ap, (M, K) = a_csr_parts
    bd, bi, bp, (K2, N) = b_csr_parts
    if K != K2:
        raise ValueError("dimension mismatch")
    dt = numpy.dtype(ad.dtype)
    if bd.dtype != dt:
        raise TypeError("spgemm: A and B must have one value dtype")
    for a in (ai, ap, bi, bp):
        if a.dtype != numpy.int32:
            raise TypeError("spgemm: int32 indices only")
    vt = value_type(dt)
    cptr = gp.zeros(M + 1, numpy.int32)
    if M == 0 or N == 0 or ad.shape[0] == 0 or bd.shape[0] == 0:
        return gp.empty(0, dt), gp.empty(0, numpy.int32), cptr
    nop = s.CUSPARSE_OPERATION_NON_TRANSPOSE
    alg = s.CUSPARSE_SPGEMM_DEFAULT
    one, zero = numpy.ones(1, dt), numpy.zeros(1, dt)
    h = libs.get_handle("cusparse")
    it = s.CUSPARSE_INDEX_32I
    desc = s.cusparseSpGEMM_createDescr()
    try:
        with _csr(ad, ap, ai, M, K) as ma, _csr(bd, bp, bi, K, N) as mb:
            mc = s.cusparseCreateCsr(M, N, 0, cptr.ptr, 0, 0, it, it,
                                     s.CUSPARSE_INDEX_BASE_ZERO, vt)
            try:
                args = (h, nop, nop, one.ctypes.data, ma, mb, zero.ctypes.data, mc, vt, alg,
                        desc)
                size1 = s.cusparseSpGEMM_workEstimation(*args, 0, 0)
                buf1 = _buffer(size1)
                s.cusparseSpGEMM_workEstimation(*args, size1, buf1.ptr)
                size2 = s.cusparseSpGEMM_compute(*args, 0, 0)
                buf2 = _buffer(size2)
                s.cusparseSpGEMM_compute(*args, size2, buf2.ptr)
                _, _, nnz = s.cusparseSpMatGetSize(mc)
                cind = gp.empty(int(nnz), numpy.int32)
                cval = gp.empty(int(nnz), dt)
                s.cusparseCsrSetPointers(mc, cptr.ptr, cind.ptr, cval.ptr)
                s.cusparseSpGEMM_copy(*args)
                del buf1, buf2
            finally:
                s.cusparseDestroySpMat(mc)
    finally:
        s.cusparseSpGEMM_destroyDescr(desc)
    return cval, cind, cptr
