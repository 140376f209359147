"""Special and structured matrices of gpuscipy.linalg (``scipy.linalg``'s
``_special_matrices`` and friends), built on the device by index kernels.

Every constructor writes its output with one elementwise kernel over the
output's (batch, row, column) index: the kernel bodies are the rows of
``_BODIES`` (pure text, compiled with NVRTC by the CPU tests). Checks,
norms and solvers live in ``_structured.py``.
"""

import math
import operator
import warnings

import numpy

import gpuscipy_core as gp

from ._structured import (issymmetric, ishermitian, bandwidth, norm, matmul_toeplitz,
                          solve_toeplitz, solve_circulant)
from ._docs import fill_doc

__all__ = ["khatri_rao", "block_diag", "toeplitz", "hankel", "circulant", "companion",
           "convolution_matrix", "dft", "fiedler", "hadamard", "helmert", "hilbert",
           "invhilbert", "leslie", "pascal", "invpascal", "issymmetric", "ishermitian",
           "bandwidth", "norm", "matmul_toeplitz", "solve_toeplitz", "solve_circulant"]

# Device helpers shared by the bodies: exact binomials and (-1)^k.
_PREAMBLE = r"""
__device__ inline double gs_binom_f(long long m, long long k) {
  if (k < 0 || k > m) return 0.0;
  if (k > m - k) k = m - k;
  double r = 1.0;
  for (long long t = 1; t <= k; ++t) r = r * (double)(m - k + t) / (double)t;
  return r;
}
__device__ inline unsigned long long gs_gcd(unsigned long long a, unsigned long long b) {
  while (b) { const unsigned long long t = a % b; a = b; b = t; }
  return a;
}
// exact while the result fits in 64 bits: r * (m-k+t) / t with the gcd taken out
__device__ inline unsigned long long gs_binom_u(long long m, long long k) {
  if (k < 0 || k > m) return 0ull;
  if (k > m - k) k = m - k;
  unsigned long long r = 1ull;
  for (long long t = 1; t <= k; ++t) {
    const unsigned long long num = (unsigned long long)(m - k + t);
    const unsigned long long g = gs_gcd(r, (unsigned long long)t);
    r = (r / g) * (num / ((unsigned long long)t / g));
  }
  return r;
}
"""

# name -> (in_params, body); ``i`` is the flat output index, ``R``/``C`` the
# matrix shape (scalars), ``T`` the output type.
_BODIES = {
    "toeplitz": ("raw T c, raw T r, int64 R, int64 C",
                 "const long long q = (long long)i, b = q / (R * C), "
                 "ii = q / C % R, jj = q % C; "
                 "out = ii >= jj ? c[b * R + ii - jj] : r[b * C + jj - ii];"),
    "hankel": ("raw T c, raw T r, int64 R, int64 C",
               "const long long q = (long long)i, ii = q / C, jj = q % C; "
               "out = ii + jj < R ? c[ii + jj] : r[ii + jj - R + 1];"),
    "circulant": ("raw T c, int64 R, int64 C",
                  "const long long q = (long long)i, b = q / (R * C), "
                  "ii = q / C % R, jj = q % C; "
                  "out = c[b * R + (ii - jj + R) % R];"),
    "companion": ("raw T a, int64 R, int64 C",
                  "const long long q = (long long)i, b = q / (R * C), "
                  "ii = q / C % R, jj = q % C; const T* ab = a + b * (C + 1); "
                  "out = ii == 0 ? (T)(-ab[jj + 1]) / ab[0] : gs::cast<T>(ii == jj + 1 ? 1 : 0);"),
    "leslie": ("raw T f, raw T s, int64 R, int64 C",
               "const long long q = (long long)i, b = q / (R * C), "
               "ii = q / C % R, jj = q % C; "
               "out = ii == 0 ? f[b * C + jj] : (ii == jj + 1 ? s[b * (C - 1) + jj] : gs::cast<T>(0));"),
    "convolution": ("raw T a, int64 R, int64 C, int64 L, int64 off",
                    "const long long q = (long long)i, b = q / (R * C), "
                    "ii = q / C % R, jj = q % C, k = ii + off - jj; "
                    "out = (k >= 0 && k < L) ? a[b * L + k] : gs::cast<T>(0);"),
    "dft": ("int64 R, int64 C, float64 scale",
            "const long long q = (long long)i, ii = q / C, jj = q % C; "
            "const long long e = (long long)(((unsigned long long)ii * (unsigned long long)jj) "
            "% (unsigned long long)C); double s, co; "
            "sincospi(-2.0 * (double)e / (double)C, &s, &co); "
            "out = T(co * scale, s * scale);"),
    "hadamard": ("int64 R, int64 C",
                 "const long long q = (long long)i, ii = q / C, jj = q % C; "
                 "out = gs::cast<T>((__popcll((unsigned long long)(ii & jj)) & 1) ? -1 : 1);"),
    "helmert": ("int64 R, int64 C, int64 first",
                "const long long q = (long long)i, ii = q / C + first, jj = q % C; "
                "if (ii == 0) out = 1.0 / sqrt((double)C); "
                "else { const double d = sqrt((double)(ii * (ii + 1))); "
                "out = jj < ii ? 1.0 / d : (jj == ii ? -(double)ii / d : 0.0); }"),
    "hilbert": ("int64 R, int64 C",
                "const long long q = (long long)i, ii = q / C, jj = q % C; "
                "out = 1.0 / (1.0 + (double)(ii + jj));"),
    "invhilbert_f": ("int64 R, int64 C",
                     "const long long q = (long long)i, ii = q / C, jj = q % C, s = ii + jj, "
                     "n = C; const double v = (double)(s + 1) * gs_binom_f(n + ii, n - jj - 1) "
                     "* gs_binom_f(n + jj, n - ii - 1) * gs_binom_f(s, ii) * gs_binom_f(s, ii); "
                     "out = (s & 1) ? -v : v;"),
    "invhilbert_i": ("int64 R, int64 C",
                     "const long long q = (long long)i, ii = q / C, jj = q % C, s = ii + jj, "
                     "n = C; const unsigned long long b = gs_binom_u(s, ii); "
                     "const unsigned long long v = (unsigned long long)(s + 1) "
                     "* gs_binom_u(n + ii, n - jj - 1) * gs_binom_u(n + jj, n - ii - 1) * b * b; "
                     "out = (long long)((s & 1) ? 0ull - v : v);"),
    # kind: 0 symmetric, 1 lower, 2 upper; sign: (-1)^(i-j) applied (invpascal)
    "pascal_f": ("int64 R, int64 C, int64 kind, int64 sign",
                 "const long long q = (long long)i, ii = q / C, jj = q % C; "
                 "double v = kind == 0 ? gs_binom_f(ii + jj, ii) : "
                 "(kind == 1 ? gs_binom_f(ii, jj) : gs_binom_f(jj, ii)); "
                 "out = (sign && ((ii - jj) & 1)) ? -v : v;"),
    "pascal_u": ("int64 R, int64 C, int64 kind, int64 sign",
                 "const long long q = (long long)i, ii = q / C, jj = q % C; "
                 "unsigned long long v = kind == 0 ? gs_binom_u(ii + jj, ii) : "
                 "(kind == 1 ? gs_binom_u(ii, jj) : gs_binom_u(jj, ii)); "
                 "out = gs::cast<T>((sign && ((ii - jj) & 1)) ? 0ull - v : v);"),
    # symmetric inverse Pascal: (-1)^(i-j) sum_k C(i+k, k) C(i+k, i+k-j), j <= i
    "invpascal_f": ("int64 R, int64 C",
                    "const long long q = (long long)i; long long ii = q / C, jj = q % C; "
                    "if (jj > ii) { const long long t = ii; ii = jj; jj = t; } "
                    "double v = 0.0; for (long long k = 0; k < C - ii; ++k) "
                    "v += gs_binom_f(ii + k, k) * gs_binom_f(ii + k, ii + k - jj); "
                    "out = ((ii - jj) & 1) ? -v : v;"),
    "invpascal_i": ("int64 R, int64 C",
                    "const long long q = (long long)i; long long ii = q / C, jj = q % C; "
                    "if (jj > ii) { const long long t = ii; ii = jj; jj = t; } "
                    "unsigned long long v = 0ull; for (long long k = 0; k < C - ii; ++k) "
                    "v += gs_binom_u(ii + k, k) * gs_binom_u(ii + k, ii + k - jj); "
                    "out = (long long)(((ii - jj) & 1) ? 0ull - v : v);"),
}

_kernels = {}


def _kernel(name):
    k = _kernels.get(name)
    if k is None:
        in_params, body = _BODIES[name]
        k = _kernels[name] = gp.ElementwiseKernel(in_params, "T out", body,
                                                  name=f"gs_linalg_{name}",
                                                  preamble=_PREAMBLE)
    return k


def _build(name, shape, dtype, *args):
    """A new C-contiguous array of ``shape``/``dtype`` written by ``name``."""
    out = gp.empty(shape, dtype)
    if out.size:
        _kernel(name)(*args, out)
    return out


def _dev(x, dtype=None):
    """``x`` as a C-contiguous device array (of ``dtype``)."""
    a = gp.asarray(x)
    if dtype is not None and a.dtype != dtype:
        a = a.astype(dtype)
    return a if a.flags.c_contiguous else a.copy()


def _atleast_1d(x):
    a = gp.asarray(x)
    return a.reshape((1,)) if a.ndim == 0 else a


def _batched(x, batch, dtype):
    """``x`` (..., n) broadcast to ``batch + (n,)``, contiguous, of ``dtype``."""
    shape = tuple(batch) + (x.shape[-1],)
    if x.shape == shape and x.dtype == dtype and x.flags.c_contiguous:
        return x
    out = gp.empty(shape, dtype)
    out[...] = x
    return out


def _i64(v):
    return numpy.int64(v)


# ---------------------------------------------------------------- constructors

def toeplitz(c, r=None):
    """Toeplitz matrix with first column ``c`` and first row ``r``.

    Parameters
    ----------
    c : array_like, shape (..., M)
        First column (``c[..., 0]`` is the diagonal).
    r : array_like, shape (..., N), optional
        First row; default ``conj(c)``. ``r[..., 0]`` is ignored.

    Returns
    -------
    A : ndarray, shape (..., M, N), dtype ``result_type(c, r)``
        Batch dimensions of ``c`` and ``r`` broadcast (SciPy 1.17 rules).

    Raises
    ------
    ValueError
        The batch shapes of ``c`` and ``r`` do not broadcast.

    Notes
    -----
    ``A[..., i, j] = c[..., i - j]`` for ``i >= j``, else ``r[..., j - i]``:
    one elementwise kernel (``gs_linalg_toeplitz``) after at most one
    broadcasting copy of each input; nothing is read back.
    """
    c = _atleast_1d(c)
    r = c.conj() if r is None else _atleast_1d(r)
    dt = numpy.result_type(c.dtype, r.dtype)
    batch = numpy.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    m, n = c.shape[-1], r.shape[-1]
    cb, rb = _batched(c, batch, dt), _batched(r, batch, dt)
    return _build("toeplitz", batch + (m, n), dt, cb, rb, _i64(m), _i64(n))


def hankel(c, r=None):
    """Hankel matrix with first column ``c`` and last row ``r``.

    Parameters
    ----------
    c : array_like, shape (M,)
    r : array_like, shape (N,), optional
        Last row (``r[0]`` ignored); default zeros.

    Returns
    -------
    A : ndarray, shape (M, N)

    Raises
    ------
    TypeError
        ``c`` and ``r`` have no common dtype (``numpy.result_type``).

    Warns
    -----
    FutureWarning
        For N-d input (raveled, as SciPy 1.17 does).

    Notes
    -----
    ``A[i, j] = c[i + j]`` for ``i + j < M``, else ``r[i + j - M + 1]``: one
    elementwise kernel (``gs_linalg_hankel``); nothing is read back.
    """
    c = gp.asarray(c)
    r = gp.zeros_like(c) if r is None else gp.asarray(r)
    if c.ndim > 1 or r.ndim > 1:
        warnings.warn("Beginning in SciPy 1.19, multidimensional input will be treated "
                      "as a batch, not `ravel`ed. To preserve the existing behavior and "
                      "silence this warning, `ravel` arguments before passing them to "
                      "`hankel`.", FutureWarning, stacklevel=2)
    c, r = c.reshape(-1), r.reshape(-1)
    dt = numpy.result_type(c.dtype, r.dtype)
    m, n = c.shape[0], r.shape[0]
    return _build("hankel", (m, n), dt, _dev(c, dt), _dev(r, dt), _i64(m), _i64(n))


def circulant(c):
    """Circulant matrix whose first column is ``c``.

    Parameters
    ----------
    c : array_like, shape (..., N)
        First column; leading axes are a batch.

    Returns
    -------
    A : gpuscipy_core.ndarray, shape (..., N, N), dtype of ``c``
        ``A[..., i, j] = c[..., (i - j) % N]``.

    Raises
    ------
    ValueError
        ``c`` cannot be converted to a device array of a supported dtype
        (from ``gpuscipy_core.asarray``).

    Notes
    -----
    One elementwise kernel (``gs_linalg_circulant``) writes every entry; nothing is read back.
    """
    c = _atleast_1d(c)
    n = c.shape[-1]
    return _build("circulant", c.shape[:-1] + (n, n), c.dtype, _dev(c), _i64(n), _i64(n))


def companion(a):
    """Companion matrix of the polynomial with coefficients ``a``.

    Parameters
    ----------
    a : array_like, shape (..., N)
        Polynomial coefficients, highest power first; leading axes are a
        batch.

    Returns
    -------
    c : gpuscipy_core.ndarray, shape (..., N - 1, N - 1)
        First row ``-a[..., 1:] / a[..., 0]``, ones on the first
        subdiagonal; dtype ``result_type(a.dtype, 1.0)`` (float64 for
        integers).

    Raises
    ------
    ValueError
        ``N < 2`` or a leading coefficient ``a[..., 0]`` is zero.

    Notes
    -----
    The zero test of ``a[..., 0]`` is one device reduction and one scalar
    read back; then one elementwise kernel (``gs_linalg_companion``)
    writes the matrix.
    """
    a = _atleast_1d(a)
    n = a.shape[-1]
    if n < 2:
        raise ValueError("The length of `a` along the last axis must be at least 2.")
    if bool((a[..., 0] == 0).any()):
        raise ValueError("The first coefficient(s) of `a` (i.e. elements "
                         "of `a[..., 0]`) must not be zero.")
    dt = numpy.result_type(a.dtype, 1.0)
    return _build("companion", a.shape[:-1] + (n - 1, n - 1), dt, _dev(a, dt),
                  _i64(n - 1), _i64(n - 1))


def leslie(f, s):
    """Leslie matrix (age-structured population model).

    Parameters
    ----------
    f : array_like, shape (..., N)
        Fecundity coefficients (the first row).
    s : array_like, shape (..., N - 1)
        Survival coefficients (the first subdiagonal). Batch axes of ``f``
        and ``s`` broadcast.

    Returns
    -------
    L : gpuscipy_core.ndarray, shape (..., N, N)
        dtype ``result_type(f.dtype, s.dtype)``.

    Raises
    ------
    ValueError
        ``s`` is not one shorter than ``f`` along the last axis; ``s`` is
        empty.

    Notes
    -----
    One elementwise kernel (``gs_linalg_leslie``) writes every entry; nothing is read back.
    """
    f, s = _atleast_1d(f), _atleast_1d(s)
    if f.shape[-1] != s.shape[-1] + 1:
        raise ValueError("Incorrect lengths for f and s. The length of s along "
                         "the last axis must be one less than the length of f.")
    if s.shape[-1] == 0:
        raise ValueError("The length of s must be at least 1.")
    n = f.shape[-1]
    dt = numpy.result_type(f.dtype, s.dtype)
    batch = numpy.broadcast_shapes(f.shape[:-1], s.shape[:-1])
    return _build("leslie", batch + (n, n), dt, _batched(f, batch, dt),
                  _batched(s, batch, dt), _i64(n), _i64(n))


def convolution_matrix(a, n, mode="full"):
    """Matrix ``A`` with ``A @ v == numpy.convolve(a, v, mode)`` for ``v`` of length n.

    Parameters
    ----------
    a : array_like, shape (..., L)
        Kernel of the convolution; leading axes are a batch.
    n : int
        Length of the vectors ``v`` (number of columns).
    mode : {'full', 'valid', 'same'}, optional
        As ``numpy.convolve``.

    Returns
    -------
    A : gpuscipy_core.ndarray, shape (..., R, n), dtype of ``a``
        ``R`` is ``L + n - 1`` ('full'), ``max(n, L)`` ('same') or
        ``max(n, L) - min(n, L) + 1`` ('valid').

    Raises
    ------
    ValueError
        ``n <= 0``, empty ``a``, unknown ``mode``.

    Notes
    -----
    One elementwise kernel (``gs_linalg_convolution``) writes every entry; nothing is read back.
    """
    if n <= 0:
        raise ValueError("n must be a positive integer.")
    a = gp.asarray(a)
    if a.size == 0:
        raise ValueError("len(a) must be at least 1.")
    if mode not in ("full", "valid", "same"):
        raise ValueError("'mode' argument must be one of ('full', 'valid', 'same')")
    a = _atleast_1d(a)
    L = a.shape[-1]
    if mode == "full":
        rows, off = L + n - 1, 0
    elif mode == "same":
        trim = min(n, L) - 1
        rows, off = L + n - 1 - trim, trim // 2
    else:
        off = min(n, L) - 1
        rows = L + n - 1 - 2 * off
    return _build("convolution", a.shape[:-1] + (rows, n), a.dtype, _dev(a), _i64(rows),
                  _i64(n), _i64(L), _i64(off))


def dft(n, scale=None):
    """Discrete Fourier transform matrix ``exp(-2j pi i j / n)`` (complex128).

    Parameters
    ----------
    n : int
        Size of the matrix.
    scale : {None, "sqrtn", "n"}, optional
        Scale the matrix by ``1/sqrt(n)`` or ``1/n``. Default: no scaling.

    Returns
    -------
    m : gpuscipy_core.ndarray, shape (n, n), complex128

    Raises
    ------
    ValueError
        An unknown ``scale``; ``scale="sqrtn"`` with a negative ``n``.
    TypeError
        ``n`` is not a real number.

    Notes
    -----
    As in SciPy the matrix has ``len(numpy.arange(n))`` rows, so a negative
    ``n`` gives a 0x0 matrix and a float ``n`` is accepted. For an integral
    ``n`` the exponent ``i * j`` is reduced modulo ``n`` and evaluated with
    ``sincospi`` in one elementwise kernel, so every entry is within a few ulp
    (SciPy forms powers of ``exp(-2j pi i / n)``). A non-integral float ``n``
    (SciPy's ``ceil(n)`` rows over the period ``n``) is formed as
    ``exp(-2j pi i j / n)`` with the elementwise ``exp``.
    """
    if scale not in [None, "sqrtn", "n"]:
        raise ValueError("scale must be None, 'sqrtn', or 'n'; "
                         f"{scale!r} is not valid.")
    size = len(numpy.arange(n))  # SciPy's row count and its errors, on the host
    if scale == "sqrtn":
        d = math.sqrt(n)  # ValueError for a negative n, as SciPy
    else:
        d = n if scale == "n" else 1.0
    s = 1.0 / d if size else 1.0
    if float(n).is_integer():
        m = int(n)
        return _build("dft", (size, size), numpy.complex128, _i64(m), _i64(m),
                      numpy.float64(s))
    k = gp.arange(size, dtype=numpy.float64)
    out = gp.exp((k[:, None] * k[None, :]) * (-2j * math.pi / float(n)))
    if s != 1.0:
        out *= s
    return out


def fiedler(a):
    """Fiedler matrix ``F[i, j] = |a[i] - a[j]|``.

    Parameters
    ----------
    a : array_like, shape (..., N)
        Coefficients; leading axes are a batch.

    Returns
    -------
    F : gpuscipy_core.ndarray, shape (..., N, N)
        dtype of ``abs(a - a)`` (float64 (1, 1) zeros for one element and an
        empty float64 (0,) array for none, as SciPy).

    Raises
    ------
    TypeError
        ``a``'s dtype has no subtraction (bool).

    Notes
    -----
    A broadcast subtraction and ``abs`` (two elementwise launches); nothing
    is read back.
    """
    a = _atleast_1d(a)
    if a.size == 0:
        return gp.asarray(numpy.zeros((0,), numpy.float64))
    if a.size == 1:
        return gp.zeros((1, 1), numpy.float64)
    return gp.abs(a[..., :, None] - a[..., None, :])


def hadamard(n, dtype=int):
    """Sylvester's Hadamard matrix of order ``n`` (a power of 2).

    Parameters
    ----------
    n : int
        Order of the matrix; a power of 2.
    dtype : dtype, optional
        Data type of the result. Default ``int`` (int64).

    Returns
    -------
    H : gpuscipy_core.ndarray, shape (n, n)
        ``H[i, j] = (-1) ** popcount(i & j)`` (Sylvester's construction,
        J. J. Sylvester, Phil. Mag. 34, 1867).

    Raises
    ------
    ValueError
        ``n`` is not a positive power of 2 (a float equal to one, such as
        ``2.0``, is accepted, as in SciPy).

    Notes
    -----
    One elementwise kernel writes every entry from the bit count of
    ``i & j``; nothing is synchronised.
    """
    lg2 = int(math.log(n, 2)) if n >= 1 else 0
    if 2 ** lg2 != n:
        raise ValueError("n must be an positive integer, and n must be a power of 2")
    m = 2 ** lg2
    return _build("hadamard", (m, m), numpy.dtype(dtype), _i64(m), _i64(m))


def helmert(n, full=False):
    """Helmert matrix of order ``n``.

    Parameters
    ----------
    n : int
        Size of the array to create.
    full : bool, optional
        If True, return the full (n, n) orthogonal matrix; else the
        (n-1, n) submatrix without its first row. Default False.

    Returns
    -------
    M : gpuscipy_core.ndarray, shape (n, n) or (n-1, n), float64

    Raises
    ------
    IndexError
        ``n == 0`` (as SciPy).
    ValueError
        A negative ``n``.

    Notes
    -----
    Row 0 is ``1 / sqrt(n)``; row ``i > 0`` holds ``1 / sqrt(i (i + 1))`` in
    its first ``i`` columns and ``-i / sqrt(i (i + 1))`` on the diagonal
    (Lancaster, "The Helmert matrices", Amer. Math. Monthly 72, 1965). One
    elementwise kernel; nothing is read back.
    """
    if n == 0:
        raise IndexError("index 0 is out of bounds for axis 0 with size 0")
    first = 0 if full else 1
    return _build("helmert", (n - first, n), numpy.float64, _i64(n - first), _i64(n),
                  _i64(first))


@fill_doc
def hilbert(n):
    """Hilbert matrix ``H[i, j] = 1 / (i + j + 1)`` of order ``n``.

    Parameters
    ----------
    {n_order}

    Returns
    -------
    h : gpuscipy_core.ndarray, shape (n, n), float64

    Raises
    ------
    TypeError
        ``n`` is not an integer.

    Notes
    -----
    One elementwise kernel writes ``1 / (1 + i + j)``. A negative ``n``
    gives a 0x0 matrix, as in SciPy.
    """
    m = max(operator.index(n), 0)
    return _build("hilbert", (m, m), numpy.float64, _i64(m), _i64(m))


@fill_doc
def invhilbert(n, exact=False):
    """Inverse of the Hilbert matrix of order ``n``.

    Parameters
    ----------
    {n_order}
    exact : bool, optional
        Integer entries (int64) when True, else float64.

    Returns
    -------
    invh : gpuscipy_core.ndarray, shape (n, n), float64 or int64

    Raises
    ------
    ValueError
        ``exact=True`` with ``n > 14``; a negative ``n``.

    Notes
    -----
    Each entry from the closed form ``(-1)^(i+j) (i+j+1) C(n+i, n-j-1)
    C(n+j, n-i-1) C(i+j, i)^2`` (Choi, "Tricks or treats with the Hilbert
    matrix", Amer. Math. Monthly 90, 1983), binomials evaluated in floating
    point (``exact=False``) or in integers, by one elementwise kernel.

    Differences from SciPy: ``exact=True`` with ``n > 14`` needs Python
    integers (SciPy returns an object array) and raises ``ValueError``.
    """
    if exact:
        if n > 14:
            raise ValueError("invhilbert(n, exact=True) needs object arrays for n > 14, "
                             "which gpuscipy does not support; use exact=False")
        return _build("invhilbert_i", (n, n), numpy.int64, _i64(n), _i64(n))
    return _build("invhilbert_f", (n, n), numpy.float64, _i64(n), _i64(n))


_KINDS = {"symmetric": 0, "lower": 1, "upper": 2}


@fill_doc
def pascal(n, kind="symmetric", exact=True):
    """Pascal matrix of binomial coefficients.

    Parameters
    ----------
    {n_order}
    kind : {'symmetric', 'lower', 'upper'}, optional
        ``S[i, j] = C(i + j, i)``, its lower Cholesky factor
        ``L[i, j] = C(i, j)``, or ``L^T``.
    exact : bool, optional
        uint64 entries when True, else float64.

    Returns
    -------
    p : gpuscipy_core.ndarray, shape (n, n), uint64 or float64

    Raises
    ------
    ValueError
        A bad ``kind``; ``exact=True`` with ``n >= 35`` or a negative ``n``
        (``exact=False`` with a negative ``n`` gives 0x0, as SciPy).

    Notes
    -----
    One elementwise kernel evaluates each binomial coefficient directly
    (multiplicative formula); nothing is read back.

    Differences from SciPy: ``exact=True`` with ``n >= 35`` needs Python
    integers (SciPy returns an object array) and raises ``ValueError``.
    """
    if kind not in _KINDS:
        raise ValueError("kind must be 'symmetric', 'lower', or 'upper'")
    if exact:
        if n >= 35:
            raise ValueError("pascal(n, exact=True) needs object arrays for n >= 35, "
                             "which gpuscipy does not support; use exact=False")
        return _build("pascal_u", (n, n), numpy.uint64, _i64(n), _i64(n),
                      _i64(_KINDS[kind]), _i64(0))
    m = max(n, 0)  # SciPy's float path gives a 0x0 matrix for a negative n
    return _build("pascal_f", (m, m), numpy.float64, _i64(m), _i64(m),
                  _i64(_KINDS[kind]), _i64(0))


@fill_doc
def invpascal(n, kind="symmetric", exact=True):
    """Inverse of the Pascal matrix.

    Parameters
    ----------
    {n_order}
    kind : {'symmetric', 'lower', 'upper'}, optional
        Which Pascal matrix (see :func:`pascal`).
    exact : bool, optional
        int64 entries when True, else float64.

    Returns
    -------
    invp : gpuscipy_core.ndarray, shape (n, n), int64 or float64

    Raises
    ------
    ValueError
        A bad ``kind``; ``exact=True`` with ``n > 34``; a negative ``n``.

    Notes
    -----
    The triangular inverses are ``(-1)^(i-j) C(i, j)``; the symmetric
    inverse is ``inv(L)^T inv(L)``, each entry a signed sum of binomial
    products. One elementwise kernel; nothing is read back.

    Differences from SciPy: ``exact=True`` with ``n > 34`` needs Python
    integers (SciPy returns an object array) and raises ``ValueError``.
    """
    if kind not in _KINDS:
        raise ValueError("'kind' must be 'symmetric', 'lower' or 'upper'.")
    if exact and n > 34:
        raise ValueError("invpascal(n, exact=True) needs object arrays for n > 34, "
                         "which gpuscipy does not support; use exact=False")
    if kind == "symmetric":
        if exact:
            return _build("invpascal_i", (n, n), numpy.int64, _i64(n), _i64(n))
        return _build("invpascal_f", (n, n), numpy.float64, _i64(n), _i64(n))
    if exact:
        return _build("pascal_u", (n, n), numpy.int64, _i64(n), _i64(n),
                      _i64(_KINDS[kind]), _i64(1))
    return _build("pascal_f", (n, n), numpy.float64, _i64(n), _i64(n),
                  _i64(_KINDS[kind]), _i64(1))


def khatri_rao(a, b):
    """Khatri-Rao product: the column-wise Kronecker product.

    Parameters
    ----------
    a : gpuscipy_core.ndarray, shape (n, k)
    b : gpuscipy_core.ndarray, shape (m, k)

    Returns
    -------
    c : gpuscipy_core.ndarray, shape (n * m, k)
        ``c[:, j] = kron(a[:, j], b[:, j])``; dtype by NumPy's promotion.

    Raises
    ------
    ValueError
        ``a`` or ``b`` is not 2-D, or their column counts differ.

    Notes
    -----
    One broadcast elementwise product ``a[:, None, :] * b[None, :, :]``
    reshaped to ``(n * m, k)``; nothing is read back.
    """
    a, b = gp.asarray(a), gp.asarray(b)
    if not (a.ndim == 2 and b.ndim == 2):
        raise ValueError("The both arrays should be 2-dimensional.")
    if not a.shape[1] == b.shape[1]:
        raise ValueError("The number of columns for both arrays should be equal.")
    c = a[:, None, :] * b[None, :, :]
    return c.reshape((-1,) + c.shape[2:])


def block_diag(*arrs):
    """Block-diagonal matrix from the (batched) arrays ``arrs``.

    Parameters
    ----------
    *arrs : array_like, each of shape (..., M_k, N_k)
        The blocks in order along the diagonal. 0-d and 1-d inputs count as
        1x1 and 1xN blocks; batch axes broadcast.

    Returns
    -------
    D : gpuscipy_core.ndarray, shape (..., sum M_k, sum N_k)
        Zeros off the blocks; dtype ``result_type`` of all inputs.
        ``block_diag()`` is an empty (1, 0) float64 array, as SciPy.

    Raises
    ------
    ValueError
        The batch shapes do not broadcast.

    Notes
    -----
    One zero fill and one strided copy per non-empty block; nothing is
    read back.
    """
    if arrs == ():
        arrs = ([],)
    items = []
    for a in arrs:
        a = gp.asarray(a)
        if a.ndim < 2:
            a = a.reshape((1,) * (2 - a.ndim) + a.shape)
        items.append(a)
    batch = numpy.broadcast_shapes(*[a.shape[:-2] for a in items])
    dt = numpy.result_type(*[a.dtype for a in items])
    rows = sum(a.shape[-2] for a in items)
    cols = sum(a.shape[-1] for a in items)
    out = gp.zeros(batch + (rows, cols), dt)
    r = c = 0
    for a in items:
        rr, cc = a.shape[-2:]
        if rr and cc and out.size:
            out[..., r:r + rr, c:c + cc] = a
        r += rr
        c += cc
    return out


def _sources():
    """(name, source) of every constructor kernel for float64/complex128/int64
    outputs, as ``ElementwiseKernel.source`` renders them: what the CPU tests
    compile with NVRTC."""
    out = []
    for name, (in_params, _) in _BODIES.items():
        for dt in (numpy.float64, numpy.complex128, numpy.int64, numpy.uint64,
                   numpy.float32):
            dt = numpy.dtype(dt)
            if name == "dft" and dt.kind != "c":
                continue
            dts, scalars = [], []
            for pos, part in enumerate(in_params.split(",")):
                toks = part.split()
                dts.append(dt if toks[-2] == "T" else numpy.dtype(toks[-2]))
                if toks[0] != "raw":
                    scalars.append(pos)
            out.append(_kernel(name).source(*dts, dt, scalars=tuple(scalars)))
    return out
