"""Small device kernels behind the solvers: LU permutations and unpacking,
the matrix 1-norm, and a batched tridiagonal solver.

Every ``*_source`` function is pure (no device access) and returns
``(source, name)``, so CI compiles each variant with NVRTC; the launchers
below it run them on the current stream.

Kernels
-------
``gs_lu_perm``
    LAPACK row interchanges (0-based ``ipiv``) -> the permutation ``perm``
    (``(P a)[i] = a[perm[i]]`` for ``P a = L U``) and its inverse. One block
    per matrix; the interchanges are applied in order by one thread (they
    are a sequential composition), in shared memory when the permutation
    fits (n <= 12288), then the block writes both arrays in parallel.
``gs_lu_unpack_*``
    One pass over (batch, n, n): L (unit lower, optionally with its rows
    gathered, which is ``lu(permute_l=True)``'s ``P L``), U, or the
    permutation matrix. Grid-stride loop, one element per thread.
``gs_colabs_*``
    Column sums of ``|a|`` for any strides (the 1-norm is their max), read
    once, without an ``n^2`` temporary: a 2-D grid of (column, row-chunk)
    threads, each summing 64 rows of one column (coalesced across columns
    of a C-ordered matrix) and adding into the column total atomically.
    ``uplo`` reads a Hermitian matrix from one triangle (|a_ij| = |a_ji|)
    or a triangular matrix from its triangle.
``gs_gtsv_*``
    Tridiagonal systems by Gaussian elimination with partial pivoting
    (LAPACK ?gttrf/?gttrs's algorithm: Golub & Van Loan, *Matrix
    Computations*, 4.3.5 and 4.5; the pivoting keeps it stable for
    non-diagonally-dominant matrices), one thread per (system, right-hand
    side): O(n) sequential work per thread, so it is fast for many systems
    and adequate for one system of moderate n. Singular (an exact zero
    pivot) -> ``info`` = 1-based index, as ?gttrf.
"""

import functools
import os

import numpy

from gpuscipy_core.kernel import read_source

from ._misc import LAPACK_CHARS, device_types

__all__ = ["perm_source", "unpack_source", "colabs_source", "gtsv_source",
           "lu_permutation", "lu_unpack", "col_abs_sums", "norm1", "gtsv"]

_PERM_SMEM_MAX = 48 * 1024 // 4
_COLABS_ROWS = 64
_BLOCK = 256            # perm, unpack, colabs
_GTSV_BLOCK = 128
_UNPACK_MODES = {"L": 0, "PL": 1, "U": 2, "P": 3}   # gs_linalg_solve::UNPACK_*
_CUH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_solve_kernels.cuh")


def _char(dtype):
    dt = numpy.dtype(dtype)
    if dt.char not in LAPACK_CHARS:
        raise TypeError(f"unsupported dtype {dt}")
    return dt.char


# ------------------------------------------------------------ sources

def perm_source():
    """``gs_lu_perm(ipiv, perm, inv, n, use_shared)``; grid = batch blocks."""
    name = "gs_lu_perm"
    src = f"""{read_source(_CUH)}
extern "C" __global__ void __launch_bounds__({_BLOCK})
{name}(const int* __restrict__ ipiv, int* __restrict__ perm, int* __restrict__ inv,
       long long n, int use_shared)
{{
  gs_linalg_solve::lu_perm(ipiv, perm, inv, n, use_shared);
}}
"""
    return src, name


@functools.lru_cache(maxsize=128)
def unpack_source(dtype, mode):
    """Unpack a packed LU stack. ``mode``: 'L' (unit lower), 'PL' (unit lower
    with rows gathered: ``out[s, i] = L[s, rows[s, i]]``), 'U' (upper), 'P'
    (the permutation matrix ``out[s, i, j] = (rows[s, i] == j)``, real dtype).

    Kernel args: ``(lu, rows, out, n, total)``."""
    c = _char(dtype)
    if mode not in _UNPACK_MODES:
        raise ValueError(f"unknown unpack mode {mode!r}")
    T, R = device_types(c)
    O = R if mode == "P" else T
    name = f"gs_lu_unpack_{c}_{mode}"
    src = f"""{read_source(_CUH)}
extern "C" __global__ void __launch_bounds__({_BLOCK})
{name}(const {T}* __restrict__ lu, const int* __restrict__ rows, {O}* __restrict__ out,
       long long n, long long total)
{{
  gs_linalg_solve::lu_unpack<{T}, {O}, {_UNPACK_MODES[mode]}>(lu, rows, out, n, total);
}}
"""
    return src, name


@functools.lru_cache(maxsize=128)
def colabs_source(dtype, uplo=0):
    """Column sums of ``|a|``. ``uplo``: 0 the whole matrix, 1 Hermitian from
    the lower triangle, 2 from the upper, 3 lower triangular (the strict
    upper part taken as zero), 4 upper triangular. Kernel args: ``(a, rs, cs, n,
    out)`` (strides in elements; ``out`` real, zeroed, length n); grid
    ``(ceil(n / 256), ceil(n / 64))``, block 256."""
    c = _char(dtype)
    if uplo not in (0, 1, 2, 3, 4):
        raise ValueError("uplo must be 0, 1, 2, 3 or 4")
    T, R = device_types(c)
    name = f"gs_colabs_{c}_{uplo}"
    src = f"""{read_source(_CUH)}
extern "C" __global__ void __launch_bounds__({_BLOCK})
{name}(const {T}* __restrict__ a, long long rs, long long cs, long long n,
       {R}* __restrict__ out)
{{
  gs_linalg_solve::colabs<{T}, {R}, {uplo}, {_COLABS_ROWS}>(a, rs, cs, n, out);
}}
"""
    return src, name


@functools.lru_cache(maxsize=128)
def gtsv_source(dtype, trans=0):
    """Batched tridiagonal solve with partial pivoting (?gttrf + ?gttrs).

    Kernel args: ``(dl, d, du, d_bs, b, b_bs, nrhs, x, work, info, n,
    nsys)``: ``dl``/``d``/``du`` the sub/main/super diagonals (length n
    each; ``dl[i]`` = a[i+1, i], ``du[i]`` = a[i, i+1], the last entries
    unused), ``d_bs`` their batch stride (elements, 0 broadcasts); ``b``
    (nsys, n, nrhs) C order with batch stride ``b_bs``; ``x`` the same
    shape, contiguous; ``work`` (nsys * nrhs, 5, n) scratch; ``info``
    (nsys,) int32 (written by the rhs-0 thread). ``trans``: 0 ``a x = b``,
    1 ``a^T x = b``, 2 ``a^H x = b``. One thread per (system, rhs).
    """
    c = _char(dtype)
    if trans not in (0, 1, 2):
        raise ValueError("trans must be 0, 1 or 2")
    T, R = device_types(c)
    name = f"gs_gtsv_{c}_t{trans}"
    src = f"""{read_source(_CUH)}
extern "C" __global__ void __launch_bounds__({_GTSV_BLOCK})
{name}(const {T}* __restrict__ dl, const {T}* __restrict__ d, const {T}* __restrict__ du,
       long long d_bs, const {T}* __restrict__ b, long long b_bs, int nrhs,
       {T}* __restrict__ x, {T}* __restrict__ work, int* __restrict__ info,
       long long n, long long nsys)
{{
  gs_linalg_solve::gtsv<{T}, {R}, {trans}>(dl, d, du, d_bs, b, b_bs, nrhs, x, work, info,
                                          n, nsys);
}}
"""
    return src, name


# ------------------------------------------------------------ launches

def _fn(source, name):
    from gpuscipy_core.kernel import get_function
    return get_function(source, name)


def _grid1(total, block=_BLOCK):
    return (max(1, min((int(total) + block - 1) // block, 65535 * 8)), 1, 1)


def lu_permutation(piv):
    """(batch, n) int32 0-based LAPACK pivots -> (perm, inv) int32 device
    arrays of the same shape: ``(P a)[i] = a[perm[i]]`` where ``P a = L U``,
    so ``a = L[inv] @ U``."""
    import gpuscipy_core as gp
    batch, n = piv.shape
    piv = gp.ascontiguousarray(piv.astype(numpy.int32, copy=False))
    perm = gp.empty((batch, n), numpy.int32)
    inv = gp.empty((batch, n), numpy.int32)
    if batch == 0 or n == 0:
        return perm, inv
    src, name = perm_source()
    use_shared = n <= _PERM_SMEM_MAX
    _fn(src, name)((batch, 1, 1), (_BLOCK, 1, 1),
                   (piv.ptr, perm.ptr, inv.ptr, numpy.int64(n), numpy.int32(use_shared)),
                   shared_mem=4 * n if use_shared else 0)
    return perm, inv


def lu_unpack(lu, mode, rows=None):
    """Unpack a C-contiguous (batch, n, n) packed LU (see ``unpack_source``)."""
    import gpuscipy_core as gp
    lu = gp.ascontiguousarray(lu)
    batch, n = lu.shape[0], lu.shape[-1]
    odt = numpy.dtype(lu.dtype.char.lower()) if mode == "P" else lu.dtype
    out = gp.empty(lu.shape, odt)
    total = batch * n * n
    if total == 0:
        return out
    src, name = unpack_source(lu.dtype, mode)
    r = 0
    if rows is not None:
        rows = gp.ascontiguousarray(rows.astype(numpy.int32, copy=False))
        r = rows.ptr
    _fn(src, name)(_grid1(total), (_BLOCK, 1, 1),
                   (lu.ptr, r, out.ptr, numpy.int64(n), numpy.int64(total)))
    return out


def col_abs_sums(a, uplo=0):
    """(n,) real device array: column sums of ``|a|`` for a square 2-D device
    array of any strides (``uplo`` as in ``colabs_source``)."""
    import gpuscipy_core as gp
    n = a.shape[-1]
    out = gp.zeros((n,), a.dtype.char.lower())
    if n == 0:
        return out
    src, name = colabs_source(a.dtype, uplo)
    rs, cs = a.strides[0] // a.itemsize, a.strides[1] // a.itemsize
    grid = ((n + _BLOCK - 1) // _BLOCK, (n + _COLABS_ROWS - 1) // _COLABS_ROWS, 1)
    _fn(src, name)(grid, (_BLOCK, 1, 1), (a.ptr, numpy.int64(rs), numpy.int64(cs),
                                          numpy.int64(n), out.ptr))
    return out


def norm1(a, uplo=0):
    """0-d device array ``||a||_1`` (max column sum of ``|a|``), no n^2 temporary."""
    return col_abs_sums(a, uplo).max()


def gtsv(dl, d, du, b, trans=0):
    """Solve tridiagonal systems on the device.

    Parameters
    ----------
    dl, d, du : (nsys, n) device arrays (batch stride may be 0)
        Sub-, main and super-diagonal; ``dl[:, i] = a[i+1, i]``,
        ``du[:, i] = a[i, i+1]`` (last entries ignored). Unit inner stride.
    b : (nsys, n, nrhs) device array, same dtype.

    Returns
    -------
    (x, info) : (nsys, n, nrhs) solution (undefined where singular) and
    (nsys,) int32 ?gttrf info (0, or the 1-based index of a zero pivot).
    """
    import gpuscipy_core as gp
    nsys, n = d.shape
    nrhs = b.shape[-1]
    dt = d.dtype
    info = gp.zeros((nsys,), numpy.int32)
    x = gp.empty((nsys, n, nrhs), dt)
    if nsys == 0 or n == 0 or nrhs == 0:
        return x, info
    bs = []
    for v in (dl, d, du):
        # n == 1: the inner stride is never used (a size-1 axis keeps any
        # stride, and ascontiguousarray does not normalise it)
        if n > 1 and v.strides[-1] != v.itemsize:
            raise ValueError("gtsv: diagonals need a unit inner stride")
        bs.append(0 if v.shape[0] == 1 else v.strides[0] // v.itemsize)
    if len(set(bs)) != 1:
        dl, d, du = (gp.ascontiguousarray(gp.broadcast_to(v, (nsys, n))) for v in (dl, d, du))
        bs = [n]
    if not (b.strides[-1] == b.itemsize and b.strides[-2] == nrhs * b.itemsize):
        b = gp.ascontiguousarray(b)
    b_bs = 0 if nsys == 1 else b.strides[0] // b.itemsize
    work = gp.empty((nsys * nrhs * 5 * n,), dt)
    src, name = gtsv_source(dt, trans)
    threads = nsys * nrhs
    grid = ((threads + _GTSV_BLOCK - 1) // _GTSV_BLOCK, 1, 1)
    _fn(src, name)(grid, (_GTSV_BLOCK, 1, 1),
                   (dl.ptr, d.ptr, du.ptr, numpy.int64(bs[0]), b.ptr, numpy.int64(b_bs),
                    numpy.int32(nrhs), x.ptr, work.ptr, info.ptr, numpy.int64(n),
                    numpy.int64(nsys)))
    return x, info
