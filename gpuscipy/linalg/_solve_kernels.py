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

import numpy

from ._misc import LAPACK_CHARS, device_types

__all__ = ["perm_source", "unpack_source", "colabs_source", "gtsv_source",
           "lu_permutation", "lu_unpack", "col_abs_sums", "norm1", "gtsv"]

_PERM_SMEM_MAX = 48 * 1024 // 4
_COLABS_ROWS = 64

_PRELUDE = r"""
#include <gpuscipy/types.cuh>
namespace gs_linalg_solve {
__device__ __forceinline__ float absval(float x) { return fabsf(x); }
__device__ __forceinline__ double absval(double x) { return fabs(x); }
template <class R> __device__ __forceinline__ R absval(gs::complex<R> z) { return gs::abs(z); }
}
"""


def _char(dtype):
    dt = numpy.dtype(dtype)
    if dt.char not in LAPACK_CHARS:
        raise TypeError(f"unsupported dtype {dt}")
    return dt.char


# ------------------------------------------------------------ sources

def perm_source():
    """``gs_lu_perm(ipiv, perm, inv, n, use_shared)``; grid = batch blocks."""
    name = "gs_lu_perm"
    src = r"""
extern "C" __global__ void __launch_bounds__(256)
gs_lu_perm(const int* __restrict__ ipiv, int* __restrict__ perm, int* __restrict__ inv,
           long long n, int use_shared)
{
  extern __shared__ int gs_perm_smem[];
  const long long s = blockIdx.x;
  const int* ip = ipiv + s * n;
  int* pg = perm + s * n;
  int* iv = inv + s * n;
  int* p = use_shared ? gs_perm_smem : pg;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) p[i] = (int)i;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (long long i = 0; i < n; ++i) {
      const long long j = ip[i];
      if (j != i && j >= 0 && j < n) { const int t = p[i]; p[i] = p[j]; p[j] = t; }
    }
  }
  __syncthreads();
  for (long long i = threadIdx.x; i < n; i += blockDim.x) {
    const int r = p[i];
    if (use_shared) pg[i] = r;
    iv[r] = (int)i;
  }
}
"""
    return src, name


@functools.lru_cache(maxsize=128)
def unpack_source(dtype, mode):
    """Unpack a packed LU stack. ``mode``: 'L' (unit lower), 'PL' (unit lower
    with rows gathered: ``out[s, i] = L[s, rows[s, i]]``), 'U' (upper), 'P'
    (the permutation matrix ``out[s, i, j] = (rows[s, i] == j)``, real dtype).

    Kernel args: ``(lu, rows, out, n, total)``."""
    c = _char(dtype)
    if mode not in ("L", "PL", "U", "P"):
        raise ValueError(f"unknown unpack mode {mode!r}")
    T, R = device_types(c)
    O = R if mode == "P" else T
    name = f"gs_lu_unpack_{c}_{mode}"
    if mode == "L":
        body = "out[t] = i > j ? lu[t] : (i == j ? O(1) : O(0));"
    elif mode == "PL":
        body = ("const long long r = rows[s * n + i];\n"
                "    out[t] = r > j ? lu[(s * n + r) * n + j] : (r == j ? O(1) : O(0));")
    elif mode == "U":
        body = "out[t] = i <= j ? lu[t] : O(0);"
    else:
        body = "out[t] = (long long)rows[s * n + i] == j ? O(1) : O(0);"
    src = f"""{_PRELUDE}
extern "C" __global__ void __launch_bounds__(256)
{name}(const {T}* __restrict__ lu, const int* __restrict__ rows, {O}* __restrict__ out,
       long long n, long long total)
{{
  typedef {O} O;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (long long)gridDim.x * blockDim.x) {{
    const long long j = t % n;
    const long long q = t / n;
    const long long i = q % n;
    const long long s = q / n;
    (void)s; (void)lu; (void)rows;
    {body}
  }}
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
    if uplo == 0:
        idx = "a[i * rs + j * cs]"
    elif uplo == 1:   # element (i, j) of the Hermitian matrix lives at (max, min)
        idx = "(i >= j ? a[i * rs + j * cs] : a[j * rs + i * cs])"
    elif uplo == 2:
        idx = "(i <= j ? a[i * rs + j * cs] : a[j * rs + i * cs])"
    elif uplo == 3:   # lower triangular: the strict upper part is zero
        idx = f"(i >= j ? a[i * rs + j * cs] : {T}(0))"
    else:
        idx = f"(i <= j ? a[i * rs + j * cs] : {T}(0))"
    src = f"""{_PRELUDE}
extern "C" __global__ void __launch_bounds__(256)
{name}(const {T}* __restrict__ a, long long rs, long long cs, long long n,
       {R}* __restrict__ out)
{{
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const long long i0 = (long long)blockIdx.y * {_COLABS_ROWS};
  const long long i1 = i0 + {_COLABS_ROWS} < n ? i0 + {_COLABS_ROWS} : n;
  {R} acc = {R}(0);
  for (long long i = i0; i < i1; ++i) acc += gs_linalg_solve::absval({idx});
  atomicAdd(out + j, acc);
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
    conj = "gs_solve_conj" if (trans == 2 and c in "FD") else ""
    src = f"""{_PRELUDE}
template <class V> __device__ __forceinline__ V gs_solve_conj(V v) {{ return V(v.re, -v.im); }}

extern "C" __global__ void __launch_bounds__(128)
{name}(const {T}* __restrict__ dl_, const {T}* __restrict__ d_, const {T}* __restrict__ du_,
       long long d_bs, const {T}* __restrict__ b, long long b_bs, int nrhs,
       {T}* __restrict__ x, {T}* __restrict__ work, int* __restrict__ info,
       long long n, long long nsys)
{{
  typedef {T} T;
  typedef {R} R;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nsys * nrhs) return;
  const long long s = t / nrhs;
  const int c = (int)(t % nrhs);
  const T* dl = dl_ + s * d_bs;
  const T* d = d_ + s * d_bs;
  const T* du = du_ + s * d_bs;
  // factor: P A = L U, U with two superdiagonals (u0, u1, u2), L unit lower
  // bidiagonal with multipliers l[i]; sw[i] = 1 where step i swapped rows
  // i and i+1 (?gttrf's ipiv). Each thread factors its own
  // copy (nrhs is small in practice; the factor is O(n)).
  T* u0 = work + t * 5 * n;
  T* u1 = u0 + n;
  T* u2 = u1 + n;
  T* l = u2 + n;
  T* sw = l + n;
  for (long long i = 0; i < n; ++i) {{
    u0[i] = d[i];
    u1[i] = i + 1 < n ? du[i] : T(0);
    u2[i] = T(0);
  }}
  for (long long i = 0; i < n - 1; ++i) {{
    const T sub = dl[i];
    const R ap = gs_linalg_solve::absval(u0[i]), as = gs_linalg_solve::absval(sub);
    if (ap >= as) {{   // no interchange (?gttrf's test)
      const T f = ap != R(0) ? sub / u0[i] : T(0);
      l[i] = f;
      u0[i + 1] = u0[i + 1] - f * u1[i];
      sw[i] = T(0);
    }} else {{   // interchange rows i and i+1
      const T f = u0[i] / sub;
      l[i] = f;
      u0[i] = sub;
      const T tmp = u1[i];
      u1[i] = u0[i + 1];
      u0[i + 1] = tmp - f * u0[i + 1];
      if (i + 1 < n - 1) {{
        u2[i] = u1[i + 1];
        u1[i + 1] = -f * u1[i + 1];
      }}
      sw[i] = T(1);
    }}
  }}
  int bad = 0;
  for (long long i = 0; i < n; ++i)
    if (gs_linalg_solve::absval(u0[i]) == R(0)) {{ bad = (int)i + 1; break; }}
  if (c == 0) info[s] = bad;
  if (bad) return;
  const T* bs = b + s * b_bs;
  T* xs = x + s * n * nrhs;
  for (long long i = 0; i < n; ++i) xs[i * nrhs + c] = bs[i * nrhs + c];
  if ({trans} == 0) {{
    // L^-1 P b
    for (long long i = 0; i < n - 1; ++i) {{
      T bi = xs[i * nrhs + c], bn = xs[(i + 1) * nrhs + c];
      if (gs_linalg_solve::absval(sw[i]) != R(0)) {{ const T tmp = bi; bi = bn; bn = tmp; }}
      xs[i * nrhs + c] = bi;
      xs[(i + 1) * nrhs + c] = bn - l[i] * bi;
    }}
    // U^-1
    for (long long i = n - 1; i >= 0; --i) {{
      T v = xs[i * nrhs + c];
      if (i + 1 < n) v = v - u1[i] * xs[(i + 1) * nrhs + c];
      if (i + 2 < n) v = v - u2[i] * xs[(i + 2) * nrhs + c];
      xs[i * nrhs + c] = v / u0[i];
    }}
  }} else {{
    // A^T = U^T L^T P (P symmetric per step): solve U^T y = b, then L^T, P
    for (long long i = 0; i < n; ++i) {{
      T v = xs[i * nrhs + c];
      if (i >= 1) v = v - {conj}(u1[i - 1]) * xs[(i - 1) * nrhs + c];
      if (i >= 2) v = v - {conj}(u2[i - 2]) * xs[(i - 2) * nrhs + c];
      xs[i * nrhs + c] = v / {conj}(u0[i]);
    }}
    for (long long i = n - 2; i >= 0; --i) {{
      T bi = xs[i * nrhs + c] - {conj}(l[i]) * xs[(i + 1) * nrhs + c];
      T bn = xs[(i + 1) * nrhs + c];
      if (gs_linalg_solve::absval(sw[i]) != R(0)) {{ const T tmp = bi; bi = bn; bn = tmp; }}
      xs[i * nrhs + c] = bi;
      xs[(i + 1) * nrhs + c] = bn;
    }}
  }}
}}
"""
    return src, name


# ------------------------------------------------------------ launches

def _fn(source, name):
    from gpuscipy_core.kernel import get_function
    return get_function(source, name)


def _grid1(total, block=256):
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
    _fn(src, name)((batch, 1, 1), (256, 1, 1),
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
    _fn(src, name)(_grid1(total), (256, 1, 1),
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
    grid = ((n + 255) // 256, (n + _COLABS_ROWS - 1) // _COLABS_ROWS, 1)
    _fn(src, name)(grid, (256, 1, 1), (a.ptr, numpy.int64(rs), numpy.int64(cs),
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
    _fn(src, name)(((threads + 127) // 128, 1, 1), (128, 1, 1),
                   (dl.ptr, d.ptr, du.ptr, numpy.int64(bs[0]), b.ptr, numpy.int64(b_bs),
                    numpy.int32(nrhs), x.ptr, work.ptr, info.ptr, numpy.int64(n),
                    numpy.int64(nsys)))
    return x, info
