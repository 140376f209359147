"""Checks, norms and structured solvers of gpuscipy.linalg: issymmetric,
ishermitian, bandwidth, norm, matmul_toeplitz, solve_toeplitz,
solve_circulant."""

import functools
import os

import numpy

import gpuscipy_core as gp
from gpuscipy_core.kernel import read_source

from ._misc import LinAlgError, check_finite_array
from ._docs import fill_doc

__all__ = ["issymmetric", "ishermitian", "bandwidth", "norm", "matmul_toeplitz",
           "solve_toeplitz", "solve_circulant", "levinson_source"]

_CUH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_structured.cuh")


# ---------------------------------------------------------------- checks

def _square_2d(a):
    a = gp.asarray(a)
    if a.ndim < 2:
        raise ValueError("Input array must be a 2D NumPy array.")
    if a.shape[-1] != a.shape[-2]:
        raise ValueError("Input array must be square.")
    return a


def _sym_check(a, atol, rtol, herm):
    a = _square_2d(a)
    at = a.swapaxes(-1, -2)
    if herm:
        at = at.conj()
    if atol is None and rtol is None:
        eq = a == at
        if not herm:
            # the diagonal is not scanned (a NaN there is ignored)
            n = a.shape[-1]
            eye = gp.eye(n, dtype=bool)
            eq = eq | eye
    else:
        atol = 0.0 if atol is None else float(atol)
        rtol = 0.0 if rtol is None else float(rtol)
        eq = gp.abs(a - at) <= atol + rtol * gp.abs(at)
    res = eq.all(axis=(-2, -1))
    return bool(res) if a.ndim == 2 else res


def issymmetric(a, atol=None, rtol=None):
    """Whether the square (stack of) matrices ``a`` equals its transpose.

    Parameters
    ----------
    a : array_like, shape (..., N, N)
        Square matrix or stack.
    atol, rtol : float, optional
        Tolerances. Without them the off-diagonal entries are compared
        exactly (the diagonal is not scanned); with either,
        ``|a - a.T| <= atol + rtol * |a.T|`` must hold everywhere (a missing
        one counts as 0).

    Returns
    -------
    sym : bool or gpuscipy_core.ndarray of bool, shape (...)
        A Python bool for a 2-D ``a`` (one read back), else a boolean
        device array over the batch.

    Raises
    ------
    ValueError
        ``a.ndim < 2`` or non-square.

    Notes
    -----
    Elementwise comparison of ``a`` with its transposed view and one
    ``all`` reduction over the last two axes; no copy of ``a``.
    """
    return _sym_check(a, atol, rtol, False)


def ishermitian(a, atol=None, rtol=None):
    """Whether the square (stack of) matrices ``a`` equals its conjugate transpose.

    Parameters
    ----------
    a : array_like, shape (..., N, N)
        Square matrix or stack.
    atol, rtol : float, optional
        Tolerances. Without them every entry (the diagonal included, whose
        imaginary part must be zero) is compared exactly; with either,
        ``|a - a^H| <= atol + rtol * |a^H|`` must hold everywhere.

    Returns
    -------
    herm : bool or gpuscipy_core.ndarray of bool, shape (...)
        A Python bool for a 2-D ``a`` (one read back), else a boolean
        device array over the batch.

    Raises
    ------
    ValueError
        ``a.ndim < 2`` or non-square.

    Notes
    -----
    Elementwise comparison of ``a`` with its conjugated transposed view and
    one ``all`` reduction over the last two axes.
    """
    return _sym_check(a, atol, rtol, True)


def bandwidth(a):
    """Lower and upper bandwidth of a (stack of) 2-D arrays.

    Parameters
    ----------
    a : array_like, shape (..., M, N)
        Matrix or stack; need not be square.

    Returns
    -------
    lu, uu : int, or gpuscipy_core.ndarray of int64, shape (...)
        The largest ``i - j`` and ``j - i`` over the nonzero entries (0 when
        there are none). Python ints for a 2-D ``a`` (two read backs),
        device arrays over the batch otherwise.

    Raises
    ------
    ValueError
        ``a.ndim < 2``.

    Notes
    -----
    Two masked max-reductions over the index difference ``i - j``.
    """
    a = gp.asarray(a)
    if a.ndim < 2:
        raise ValueError("Input array must be a 2D NumPy array.")
    m, n = a.shape[-2:]
    if a.size == 0:
        z = (0, 0)
        return z if a.ndim == 2 else tuple(gp.zeros(a.shape[:-2], numpy.int64)
                                           for _ in range(2))
    d = (gp.arange(m, dtype=numpy.int64)[:, None]
         - gp.arange(n, dtype=numpy.int64)[None, :])
    nz = a != 0
    lower = gp.where(nz, d, 0).max(axis=(-2, -1))
    upper = gp.where(nz, -d, 0).max(axis=(-2, -1))
    if a.ndim == 2:
        return int(lower), int(upper)
    return lower, upper


# ---------------------------------------------------------------- norm

@fill_doc
def norm(a, ord=None, axis=None, keepdims=False, check_finite=True):
    """Matrix or vector norm (NumPy's definitions, as ``scipy.linalg.norm``).

    Parameters
    ----------
    a : array_like
        Input. With ``axis=None`` it must be 1-D or 2-D unless ``ord`` is
        None (then the 2-norm of the flattened array).
    ord : {None, 'fro', 'nuc', inf, -inf, int, float}, optional
        Vector orders: None/2, inf, -inf, 0 (count of nonzeros), 1, any
        real p. Matrix orders: None/'fro', 'nuc', inf, -inf, 1, -1, 2, -2.
    axis : int or 2-tuple of ints, optional
        Vector norms along one axis, matrix norms over two.
    keepdims : bool, optional
        Keep the reduced axes with size one.
    {check_finite}

    Returns
    -------
    n : gpuscipy_core.ndarray
        Real (float of ``a``'s precision; float64 where SciPy's BLAS/LAPACK
        shortcut gives a Python float). A 0-d device array where SciPy
        returns a scalar.

    Raises
    ------
    ValueError
        Non-finite input with ``check_finite``; invalid order; improper
        number of dimensions; duplicate axes.
    TypeError
        ``axis`` is not None, an integer or a tuple of integers.
    numpy.exceptions.AxisError
        An axis out of range.

    Notes
    -----
    Elementwise ``abs``/square and device reductions (sum, max, min); the
    orders 2, -2 and 'nuc' take the singular values from :func:`svdvals`
    (cuSOLVER ``cusolverDnXgesvd``). An empty input is answered by the
    installed SciPy on a host array of the same shape (no data moves).

    Differences from SciPy: the result stays on the device (0-d array, not
    a Python float).
    """
    x = gp.asarray(a)
    if check_finite:
        check_finite_array(x)
    if x.size == 0:
        return _norm_empty(x, ord, axis, keepdims)
    if _scipy_uses_blas(a, x, ord, axis, keepdims):
        # SciPy answers through BLAS nrm2 / LAPACK lange here, which return a
        # Python float: the result is float64 even for float32/complex64.
        return _norm(x, ord, axis, keepdims).astype(numpy.float64)
    return _norm(x, ord, axis, keepdims)


def _norm_empty(x, ord, axis, keepdims):
    """``norm`` of a size-0 input: the installed SciPy's answer.

    Which empty reductions give 0 (or inf) and which raise "zero-size array
    to reduction operation" changed between NumPy releases (numpy#28343:
    max-based orders return 0; later releases also cover some min-based
    orders), so the empty case is not modelled: the same call runs on a
    host array of the same shape and dtype (no data, no device work) and its
    value, or exception, is the answer.
    """
    h = numpy.empty(x.shape, x.dtype)
    try:
        from scipy.linalg import norm as host_norm
    except ImportError:                              # pragma: no cover
        host_norm = numpy.linalg.norm
    return gp.asarray(numpy.asarray(host_norm(h, ord, axis, keepdims)))


def _scipy_uses_blas(a, x, ord, axis, keepdims):
    """Whether ``scipy.linalg.norm`` (1.17) takes its BLAS/LAPACK shortcut.

    The result dtype of ``scipy.linalg.norm`` depends on its internal path
    (checked empirically against the installed SciPy for every dtype, order
    and layout, see tests/linalg/test_special_matrices.py::test_norm_dtype):
    for a non-empty float32/float64/complex64/complex128 input with
    ``axis=None`` and ``keepdims=False`` it calls

    * BLAS ``?nrm2`` for a 1-D input with ``ord`` None or 2, and
    * LAPACK ``?lange`` for a 2-D input with ``ord`` 1 or inf when the
      array (or its transpose) is Fortran-contiguous but not C-contiguous
      (``numpy.isfortran``), i.e. a C- or F-ordered matrix with both
      dimensions > 1 -- not a strided view, not a single row/column;

    both return a Python float, hence float64. Every other case goes to
    ``numpy.linalg.norm``, whose result keeps the input's real precision
    (float32 for float32/complex64, float16 for float16, float64 for
    integers and bool). The layout is the caller's: taken from ``a`` when
    it has NumPy-style flags (a NumPy or device array), else from ``x``
    (what ``numpy.asarray`` of a list gives: C order).
    """
    if x.size == 0 or x.dtype.char not in "fdFD" or axis is not None or keepdims:
        return False
    if x.ndim == 1:
        return ord is None or (not isinstance(ord, str) and ord == 2)
    if x.ndim != 2 or isinstance(ord, str) or not (ord == 1 or ord == numpy.inf):
        return False
    flags = getattr(a, "flags", None)
    if flags is None or not hasattr(flags, "c_contiguous"):
        flags = x.flags
    c, f = bool(flags.c_contiguous), bool(flags.f_contiguous)
    # numpy.isfortran(a) is (f and not c); numpy.isfortran(a.T) is (c and not f)
    return c != f


def _norm(x, ord, axis, keepdims):
    if x.dtype.kind not in "fc":
        x = x.astype(numpy.float64)
    nd = x.ndim
    if axis is None:
        if ord is None:
            r = gp.sqrt(_sq_abs(x.reshape(-1)).sum())
            return r.reshape((1,) * nd) if keepdims else r
        if nd == 1:
            axis = (0,)
        elif nd == 2:
            axis = (0, 1)
        else:
            raise ValueError("Improper number of dimensions to norm.")
    elif not isinstance(axis, tuple):
        try:
            axis = (int(axis),)
        except TypeError:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") \
                from None
    if len(axis) == 1:
        ax = axis[0] % nd if -nd <= axis[0] < nd else None
        if ax is None:
            raise numpy.exceptions.AxisError(axis[0], nd)
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        if ord == numpy.inf:
            return gp.abs(x).max(axis=ax, keepdims=keepdims)
        if ord == -numpy.inf:
            return gp.abs(x).min(axis=ax, keepdims=keepdims)
        if ord == 0:
            return (x != 0).astype(x.real.dtype).sum(axis=ax, keepdims=keepdims)
        if ord == 1:
            return gp.abs(x).sum(axis=ax, keepdims=keepdims)
        if ord is None or ord == 2:
            return gp.sqrt(_sq_abs(x).sum(axis=ax, keepdims=keepdims))
        ordf = float(ord)
        s = (gp.abs(x) ** ordf).sum(axis=ax, keepdims=keepdims)
        return s ** (1.0 / ordf)
    if len(axis) == 2:
        r0, c0 = axis
        if not (-nd <= r0 < nd and -nd <= c0 < nd):
            raise numpy.exceptions.AxisError(r0 if not -nd <= r0 < nd else c0, nd)
        row, col = r0 % nd, c0 % nd
        if row == col:
            raise ValueError("Duplicate axes given.")
        if ord == 2 or ord == -2 or ord == "nuc":
            from ._decomp import svdvals
            moved = gp.moveaxis(x, (row, col), (-2, -1))
            s = svdvals(moved)
            if ord == 2:
                res = s.max(axis=-1)
            elif ord == -2:
                res = s.min(axis=-1)
            else:
                res = s.sum(axis=-1)
        elif ord == 1:
            c = col - 1 if col > row else col
            res = gp.abs(x).sum(axis=row).max(axis=c)
        elif ord == -1:
            c = col - 1 if col > row else col
            res = gp.abs(x).sum(axis=row).min(axis=c)
        elif ord == numpy.inf:
            rr = row - 1 if row > col else row
            res = gp.abs(x).sum(axis=col).max(axis=rr)
        elif ord == -numpy.inf:
            rr = row - 1 if row > col else row
            res = gp.abs(x).sum(axis=col).min(axis=rr)
        elif ord in (None, "fro", "f"):
            res = gp.sqrt(_sq_abs(x).sum(axis=axis))
        else:
            raise ValueError("Invalid norm order for matrices.")
        if keepdims:
            shape = list(x.shape)
            shape[row] = 1
            shape[col] = 1
            res = res.reshape(tuple(shape))
        return res
    raise ValueError("Improper number of dimensions to norm.")


def _sq_abs(x):
    if x.dtype.kind == "c":
        return x.real * x.real + x.imag * x.imag
    return x * x


# ---------------------------------------------------------------- Toeplitz

def _toeplitz_vectors(c_or_cr, b, check_finite, name):
    """``(c, r, b, dt)`` of a Toeplitz operation: the first column and row
    as 1-D device arrays (``r = conj(c)`` when only ``c`` is given) and
    ``b``, all cast to ``dt`` (float64, or complex128 when any is complex:
    SciPy's rule). ``b`` is not reshaped.

    Raises
    ------
    ValueError
        ``b`` is None; non-finite values with ``check_finite``.
    NotImplementedError
        ``c`` or ``r`` with more than one dimension (SciPy >= 1.16 treats
        them as a batch; this port does not batch them yet, and flattening
        them would solve a different system).
    """
    if isinstance(c_or_cr, tuple):
        c, r = c_or_cr
        c, r = gp.asarray(c), gp.asarray(r)
    else:
        c = gp.asarray(c_or_cr)
        r = c.conj()
    if b is None:
        raise ValueError("`b` must be an array, not None.")
    b = gp.asarray(b)
    if c.ndim > 1 or r.ndim > 1:
        raise NotImplementedError(f"{name}: batched (more than 1-D) c or r "
                                  "are not supported")
    if check_finite:
        for v in (c, r, b):
            check_finite_array(v)
    cplx = any(v.dtype.kind == "c" for v in (c, r, b))
    dt = numpy.dtype(numpy.complex128 if cplx else numpy.float64)
    return c.reshape(-1).astype(dt), r.reshape(-1).astype(dt), b.astype(dt), dt


def _toeplitz_args(c_or_cr, b, check_finite, keep_b_shape):
    c, r, b, dt = _toeplitz_vectors(c_or_cr, b, check_finite, "solve_toeplitz")
    b_shape = b.shape
    if r.shape[0] != c.shape[0] or b.shape[0] != r.shape[0]:
        raise ValueError("Incompatible dimensions.")
    if b.ndim == 1 and not keep_b_shape:
        b = b.reshape(-1, 1)
    elif b.ndim != 1:
        b = b.reshape(b.shape[0], -1 if b.size > 0 else 0)
    return r, c, b, dt, b_shape


@functools.lru_cache(maxsize=4)
def levinson_source(complex_):
    """Source and name of the Levinson-Durbin kernel (float64 or complex128):
    ``_structured.cuh`` and an ``extern "C"`` wrapper of
    ``gs_linalg_levinson::levinson<T>``.

    One thread block per right-hand side column solves ``T x = y`` for the
    Toeplitz ``T[i, j] = t[i - j]`` (``t[k] = c[k]``, ``t[-k] = r[k]``) by
    Levinson's recursion with forward/backward vectors (N. Levinson, J.
    Math. Phys. 25, 1947; the nonsymmetric form as in Golub & Van Loan,
    *Matrix Computations*, 4th ed., sec. 4.7): O(N^2) work, N sequential
    steps of three block reductions each. ``work`` holds 4 N values per
    block (double-buffered forward and backward vectors). ``info[col]`` is
    set to ``k + 1`` when the leading k+1 minor is singular.
    """
    t = "gs::complex<double>" if complex_ else "double"
    name = "gs_levinson_" + ("z" if complex_ else "d")
    src = f"""{read_source(_CUH)}
extern "C" __global__ void {name}(const {t}* __restrict__ c, const {t}* __restrict__ r,
                                 const {t}* __restrict__ y, {t}* __restrict__ x,
                                 {t}* __restrict__ work, int* __restrict__ info,
                                 long long n, long long ldy) {{
  gs_linalg_levinson::levinson<{t}>(c, r, y, x, work, info, n, ldy);
}}
"""
    return src, name


_LEVINSON_THREADS = 256


@fill_doc
def solve_toeplitz(c_or_cr, b, check_finite=True):
    """Solve ``T x = b`` for a Toeplitz ``T`` by Levinson-Durbin recursion.

    Parameters
    ----------
    c_or_cr : array_like or tuple (c, r)
        First column ``c`` (and first row ``r``; default ``conj(c)``).
    b : (M,) or (M, K) array_like
    {check_finite}

    Returns
    -------
    x : (M,) or (M, K) ndarray, float64 or complex128 (SciPy's rule)

    Raises
    ------
    ValueError
        Incompatible dimensions; non-finite input with ``check_finite``.
    LinAlgError
        A leading principal minor is singular ("Singular principal minor").

    Notes
    -----
    O(M^2) per right-hand side, sequential in M: one thread block per
    column of ``b`` (columns solved concurrently). Levinson's recursion is
    not stable for ill-conditioned or indefinite matrices, like SciPy's.
    """
    r, c, b, dt, b_shape = _toeplitz_args(c_or_cr, b, check_finite, True)
    n = c.shape[0]
    if b.size == 0:
        return gp.empty(b_shape, dt)
    b2 = b.reshape(n, -1)
    k = b2.shape[1]
    y = b2 if b2.flags.c_contiguous else b2.copy()
    x = gp.empty((n, k), dt)
    work = gp.empty((k * 4 * n,), dt)
    info = gp.zeros((k,), numpy.int32)
    from gpuscipy_core.kernel import get_function
    src, name = levinson_source(dt.kind == "c")
    f = get_function(src, name)
    threads = _LEVINSON_THREADS
    c = c if c.flags.c_contiguous else c.copy()
    r = r if r.flags.c_contiguous else r.copy()
    f((k, 1, 1), (threads, 1, 1), (c, r, y, x, work, info, n, k),
      shared_mem=3 * threads * dt.itemsize)
    if bool((info != 0).any()):
        raise LinAlgError("Singular principal minor")
    return x.reshape(b_shape)


@fill_doc
def matmul_toeplitz(c_or_cr, x, check_finite=False, workers=None):
    """``toeplitz(c, r) @ x`` without forming the matrix (FFT of length M+N-1).

    Parameters
    ----------
    c_or_cr : array_like or tuple (c, r)
        First column (M,) and first row (N,).
    x : (N,) or (N, K) array_like
    {check_finite}
    workers : int, optional
        Accepted for SciPy compatibility.

    Returns
    -------
    T @ x : (M,) or (M, K) ndarray

    Raises
    ------
    ValueError
        ``x``'s first dimension differs from the length of ``r``; inf or
        NaN with ``check_finite``.

    Notes
    -----
    The product is a linear convolution of ``[c, r[:0:-1]]`` embedded in a
    circulant of size M+N-1, evaluated with ``gpuscipy.fft`` (real FFTs for
    real input), as SciPy does. For M+N-1 <= 64 the explicit matrix and a
    matrix product are used instead.
    """
    c, r, x, dt = _toeplitz_vectors(c_or_cr, x, check_finite, "matmul_toeplitz")
    if x.shape[0] != r.shape[0]:
        raise ValueError("Incompatible dimensions.")
    x_shape = x.shape
    x2 = x.reshape(x.shape[0], -1) if x.ndim != 1 else x.reshape(-1, 1)
    m, n = c.shape[0], r.shape[0]
    k = x2.shape[1]
    if x2.size == 0 or m == 0:
        return gp.zeros((m,) + x_shape[1:], dt)
    L = m + n - 1
    if L <= 64:
        from ._special_matrices import toeplitz
        out = gp.matmul(toeplitz(c, r), x2)
    else:
        from gpuscipy import fft
        emb = gp.zeros((L,), dt)
        emb[:m] = c
        if n > 1:
            emb[m:] = r[:0:-1]
        xp = gp.zeros((L, k), dt)
        xp[:n] = x2
        if dt.kind == "c":
            out = fft.ifft(fft.fft(emb)[:, None] * fft.fft(xp, axis=0), axis=0)[:m]
        else:
            out = fft.irfft(fft.rfft(emb)[:, None] * fft.rfft(xp, axis=0), n=L,
                            axis=0)[:m]
    return out.reshape((m,) + x_shape[1:])


def solve_circulant(c, b, singular="raise", tol=None, caxis=-1, baxis=0, outaxis=0):
    """Solve ``C x = b`` for a circulant ``C`` with first column ``c`` by FFT.

    Parameters
    ----------
    c : array_like, shape (..., N) along ``caxis``
        First column(s) of the circulant matrix.
    b : array_like, N along ``baxis``
        Right-hand side(s).
    singular : {'raise', 'lstsq'}, optional
        For a near-singular ``C`` (an eigenvalue ``|fft(c)| <= tol``):
        raise ``LinAlgError`` ('raise'), or zero those components and
        return the least-squares solution ('lstsq'); any other value skips
        the check.
    tol : float, optional
        Singularity threshold; default ``max|fft(c)| * N * eps``.
    caxis, baxis, outaxis : int, optional
        Axis of ``c`` holding the column, axis of ``b`` holding the
        right-hand side, and axis of the result holding the solution.

    Returns
    -------
    x : gpuscipy_core.ndarray
        Solution; complex128/complex64 when ``c`` or ``b`` is complex, else
        the real part (float of the FFT's precision).

    Raises
    ------
    ValueError
        Incompatible shapes.
    LinAlgError
        Near-singular matrix with ``singular='raise'``.

    Notes
    -----
    A circulant matrix is diagonalised by the DFT, so ``x = ifft(fft(b) /
    fft(c))`` along the circulant axis (Golub & Van Loan, *Matrix
    Computations*, 4th ed., sec. 4.8), with ``gpuscipy.fft`` (cuFFT). The
    near-singularity test reads one bool back (one synchronisation).
    """
    from gpuscipy import fft
    c = gp.asarray(c)
    b = gp.asarray(b)
    nc = c.shape[caxis]
    if b.shape[baxis] != nc:
        raise ValueError(f"Shapes of c {c.shape} and b {b.shape} are incompatible")
    cm = gp.moveaxis(c, caxis, -1)
    bm = gp.moveaxis(b, baxis, -1)
    fc = fft.fft(cm, axis=-1)
    abs_fc = gp.abs(fc)
    if tol is None:
        tol = abs_fc.max(axis=-1) * nc * numpy.finfo(numpy.float64).eps
        if tol.shape != ():
            tol = tol.reshape(tol.shape + (1,))
    near_zeros = abs_fc <= tol
    is_near_singular = bool(near_zeros.any())
    if is_near_singular:
        if singular == "raise":
            raise LinAlgError("near singular circulant matrix.")
        fc = gp.where(near_zeros, 1, fc)
    fb = fft.fft(bm, axis=-1)
    q = fb / fc
    if is_near_singular and singular == "lstsq":
        q = gp.where(near_zeros, 0, q)
    x = fft.ifft(q, axis=-1)
    if not (c.dtype.kind == "c" or b.dtype.kind == "c"):
        x = x.real
    return gp.moveaxis(x, -1, outaxis)

