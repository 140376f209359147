"""Linear solvers and LU/Cholesky factorizations (``scipy.linalg``'s API).

Single matrices run on cuSOLVER (getrf/getrs, potrf/potrs) and cuBLAS
(trsm); stacks of small matrices (n <= 32) on a kernel of our own, one warp
per system (``_batched_lu``); larger stacks loop over cuSOLVER calls.

Differences from SciPy
----------------------
* ``assume_a`` 'sym'/'her' build the full matrix from the ``lower``/upper
  triangle (as ?sysv/?hesv read it) and solve by LU with partial pivoting
  instead of Bunch-Kaufman: the same solution within rounding, the same
  errors for exactly singular matrices, the warning from the LU estimate.
  'banded' (and None: no structure detection) solve by LU.
* 'diagonal': an elementwise divide (zero on the diagonal -> LinAlgError;
  SciPy's min|d|/max|d| < eps warning). 'upper/lower triangular': an exact
  zero on the diagonal -> LinAlgError, then trsm (or the warp LU kernel for
  stacks of n <= 32). 'tridiagonal': a device Gaussian elimination with
  partial pivoting (?gtsv's algorithm, ``_solve_kernels``). 'pos':
  Cholesky.
* The reciprocal condition number behind the ill-conditioning
  ``LinAlgWarning`` (every structure but 'banded', as SciPy 1.17) is an
  estimate (Hager/Higham, see ``_solve_dense``) where LAPACK uses ?gecon /
  ?pocon / ?trcon / ?gtcon: the same estimator family, so matrices near the
  eps threshold may warn differently.
* ``solve_banded``: tridiagonal kernel for l == u == 1, a banded LU with
  partial pivoting (one warp per system, ``_banded``) for l <= 31, dense LU
  above. ``solveh_banded``, ``cholesky_banded``, ``cho_solve_banded``
  expand the band to dense (O(n^2) memory, capped: MemoryError past
  ``_DENSE_BAND_LIMIT`` bytes).
"""

import functools
import warnings

import numpy

import gpuscipy_core as gp
from gpuscipy_core.lib import all_finite, as_strided

from ._misc import (LinAlgError, LinAlgWarning, lapack_dtype, asarray_validated,
                    check_finite_array)
from . import _batched_lu as _bl
from . import _solve_kernels as _sk
from . import _banded
from ._docs import fill_doc

__all__ = ["solve", "solve_triangular", "solve_banded", "solveh_banded", "inv",
           "det", "lu", "lu_factor", "lu_solve", "cholesky", "cho_factor",
           "cho_solve", "cholesky_banded", "cho_solve_banded"]

_STRUCTURE = {None: "gen", "general": "gen", "gen": "gen", "diagonal": "diag",
              "tridiagonal": "tri", "upper triangular": "upper",
              "lower triangular": "lower", "pos": "pos", "positive definite": "pos",
              "sym": "sym", "symmetric": "sym", "her": "her", "hermitian": "her",
              "banded": "gen"}


@functools.lru_cache(maxsize=128)
def _scipy_b_vectors(func):
    """Whether the installed SciPy's ``func`` ('solve', 'lu_solve',
    'cho_solve') reads a ``b`` of shape (batch, n) against a stack of
    (batch, n, n) matrices as a batch of vectors. SciPy 1.17 does not (a
    ``b`` with ndim >= 2 has two core dimensions, so that ``b`` is refused);
    a newer SciPy may. Probed once on 2x2 host arrays (microseconds)."""
    try:
        import scipy.linalg as sl
        a = numpy.repeat(numpy.eye(2)[None], 3, axis=0)
        b = numpy.ones((3, 2))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if func == "solve":
                r = sl.solve(a, b)
            elif func == "lu_solve":
                r = sl.lu_solve((a, numpy.tile(numpy.arange(2, dtype=numpy.int32), (3, 1))), b)
            else:
                r = sl.cho_solve((a, False), b)
        return numpy.shape(r) == (3, 2)
    except Exception:
        return False


def _b_as_vectors(func, mat, b1, n):
    """True when ``b1`` (ndim >= 2) must be read as a batch of vectors: the
    matrix reading is incompatible (``b1.shape[-2] != n``), the vector one is
    (``b1.shape[-1] == n``), the left side is stacked, and the installed
    SciPy does the same (``_scipy_b_vectors``)."""
    return (b1.ndim >= 2 and mat.ndim >= 3 and b1.shape[-2] != n and b1.shape[-1] == n
            and _scipy_b_vectors(func))


def _dense():
    from . import _solve_dense
    return _solve_dense


def _singular(info_host, single_message=False):
    bad = [int(i) for i in numpy.flatnonzero(numpy.asarray(info_host).reshape(-1) > 0)]
    if bad:
        if single_message:
            raise LinAlgError("A singular matrix detected.")
        raise LinAlgError(f"A singular matrix detected: slice(s) {bad} are singular.")


def _warn_rcond(rcond_host, dtype, shown=None):
    """LinAlgWarning, SciPy's message, for the slices with rcond < eps
    (``shown``: the values the message prints, default rcond)."""
    eps = numpy.finfo(dtype).eps
    rc = numpy.asarray(rcond_host).reshape(-1)
    sh = rc if shown is None else numpy.asarray(shown).reshape(-1)
    bad = numpy.flatnonzero(~(rc >= eps))     # vectorised: batches of 1e4+
    ill = [f"slice {i} has rcond = {float(sh[i])}" for i in bad]
    if ill:
        warnings.warn(f"An ill-conditioned matrix detected: {','.join(ill)}.",
                      LinAlgWarning, stacklevel=3)


def _band_mask(a, lower, upper):
    """``a`` with entries outside the band (lower, upper) set to zero."""
    n, m = a.shape[-2], a.shape[-1]
    i = gp.arange(n).reshape((n, 1))
    j = gp.arange(m).reshape((1, m))
    keep = ((j - i) <= upper) & ((i - j) <= lower)
    return gp.where(keep, a, 0).astype(a.dtype)


def _broadcast(x, shape):
    """A stride-0 view of ``x`` broadcast to ``shape`` (no copy)."""
    if x.shape == tuple(shape):
        return x
    nd = len(shape)
    xs = (1,) * (nd - x.ndim) + x.shape
    st = (0,) * (nd - x.ndim) + x.strides
    strides = tuple(0 if (d == 1 and s != 1) else t for d, s, t in zip(xs, shape, st))
    return as_strided(x, tuple(shape), strides)


def _stack(x, core):
    """(..., *core) -> (batch, *core), a view when the layout allows."""
    batch = int(numpy.prod(x.shape[:-len(core)], dtype=numpy.int64))
    try:
        return x.reshape((batch,) + tuple(core))
    except Exception:
        return gp.ascontiguousarray(x).reshape((batch,) + tuple(core))


# ------------------------------------------------------------------ solve

def _solve_general(a, b, transposed, want_rcond=True):
    """One n x n system by LU on cuSOLVER. ``b`` is (n, k). Returns (x, info, rcond)."""
    d = _dense()
    n, k = a.shape[0], b.shape[1]
    m = a.astype(a.dtype, order="C", copy=True)   # read as Fortran: m = a^T
    ipiv, info = d.getrf(m)
    # solving with a: getrs(m, OP_T); with a^T: getrs(m, OP_N)
    main = d.OP_N if transposed else d.OP_T
    extra = 2 if want_rcond else 0
    xw = gp.empty((n, k + extra), a.dtype, order="F")
    xw[:, :k] = b
    if want_rcond:
        xw[:, k:] = d.estimator_vectors(n, a.dtype)
        # the estimator's two vectors and the solution at once, one column
        # per stream: a latency-bound triangular solve of one column costs
        # as much as of three. The estimator works on M = (L U)^-T, whose
        # 1-norm is ||a^-1||_1 (a^-1 = P^T M), so its solves skip the
        # permutation (lu_solve_noperm); the solution (whose permutation is
        # a ~0.1-0.2 ms chain) is joined only at the end, overlapping the
        # estimator's later stages.
        pending = d.concurrent([lambda: d.lu_solve_noperm(m, xw[:, k:k + 1], d.OP_T),
                                lambda: d.lu_solve_noperm(m, xw[:, k + 1:], d.OP_T),
                                lambda: d.getrs(m, ipiv, xw[:, :k], main)], join=2)
    else:
        d.getrs(m, ipiv, xw, main)
    rcond = None
    if want_rcond:
        def solve_n(v):
            return d.lu_solve_noperm(m, v, d.OP_T)

        def solve_h(v):   # M^H v = conj((L U)^-1 conj(v))
            if v.dtype.kind == "c":
                return gp.conj(d.lu_solve_noperm(m, gp.conj(v).copy(order="F"), d.OP_N))
            return d.lu_solve_noperm(m, v, d.OP_N)

        anorm = _sk.norm1(a)
        rcond = d.rcond_from_lu(anorm, xw[:, k:], solve_n, solve_h)
        d.wait_for(pending)
    return xw[:, :k], info, rcond


@fill_doc
def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a=None, transposed=False):
    """Solve ``a @ x = b`` for ``x`` (``scipy.linalg.solve``).

    Parameters
    ----------
    a : (..., N, N) array_like
    b : (..., N, NRHS) or (N,) array_like
    lower : bool
        Triangle read when ``assume_a`` is 'pos', 'sym' or 'her' (the other
        triangle is ignored, as SciPy).
    {overwrite_a}
    {overwrite_b}
    {check_finite}
    assume_a : str, optional
        'gen', 'sym', 'her', 'pos', 'diagonal', 'tridiagonal', 'banded',
        'upper triangular', 'lower triangular' (and the long spellings).
    transposed : bool
        Solve ``a.T @ x = b`` (real ``a`` only).

    Returns
    -------
    {returns_x_solve}

    Raises
    ------
    ValueError, LinAlgError, NotImplementedError; warns ``LinAlgWarning``
    for ill-conditioned ``a`` (rcond below the dtype's eps; for 'diagonal'
    min|d|/max|d|, as SciPy). See the module notes for the algorithm used
    for each ``assume_a``.

    Notes
    -----
    'gen' and 'sym'/'her': LU with partial pivoting and a 1-norm condition
    estimate (one warp per system in ``_batched_lu.cuh`` for N <= 32, else
    cuSOLVER ``cusolverDnXgetrf``/``Xgetrs``); 'pos': Cholesky (warp kernel
    or ``cusolverDnXpotrf``/``Xpotrs``); triangular: cuBLAS ``?trsm``;
    'diagonal': an elementwise divide; 'banded': the general LU;
    'tridiagonal': see the module notes. The ``info``/``rcond`` results are read back once per
    call.

    References
    ----------
    LU with partial pivoting: Golub & Van Loan, *Matrix Computations*, 3.4.
    Condition estimate: Higham 1988 (ACM TOMS 14).
    """
    structure = _STRUCTURE.get(assume_a, "unknown") if isinstance(assume_a, (str, type(None))) \
        else "unknown"
    if structure == "unknown":
        raise ValueError(f"{assume_a} is not a recognized matrix structure")
    a1 = asarray_validated(a, False)
    b1 = asarray_validated(b, False, "b")
    # SciPy checks finiteness before anything else. The check of the inputs
    # as given is deferred: into the status read back of the warp LU path,
    # otherwise to just before the first error or device work (``finite``).
    inputs = (a1, b1) if check_finite else ()

    def finite():
        nonlocal inputs
        for x, name in zip(inputs, ("a", "b")):
            check_finite_array(x, name)
        inputs = ()

    if a1.ndim < 2:
        a1 = a1.reshape((1,) * (2 - a1.ndim) + a1.shape)
    if b1.ndim == 0:
        b1 = b1.reshape((1,))
    dt = lapack_dtype(a1.dtype, b1.dtype)
    if a1.shape[-1] != a1.shape[-2]:
        finite()
        raise ValueError(f"Expected square matrix, got a1.shape={a1.shape}")
    if dt.kind == "c" and transposed:
        finite()
        raise NotImplementedError("scipy.linalg.solve can currently not solve a^T x = b "
                                  "or a^H x = b for complex matrices.")
    b_is_1d = b1.ndim == 1 or _b_as_vectors("solve", a1, b1, a1.shape[-1])
    if b_is_1d:
        b1 = b1.reshape(b1.shape + (1,))
    a_is_scalar = a1.size == 1
    if b1.shape[-2] != a1.shape[-1] and not a_is_scalar:
        finite()
        raise ValueError(f"incompatible shapes: a1.shape={a1.shape} and b1.shape={b1.shape}")
    try:
        batch = numpy.broadcast_shapes(a1.shape[:-2], b1.shape[:-2])
    except ValueError:
        finite()
        raise
    a1 = _broadcast(a1, batch + a1.shape[-2:])
    b1 = _broadcast(b1, batch + b1.shape[-2:])
    if a1.size == 0 or b1.size == 0:
        x = gp.empty(b1.shape, dt)
        return x[..., 0] if b_is_1d else x
    if structure != "gen" or a1.shape[-1] > _bl.MAX_N or a_is_scalar:
        finite()
    pending, inputs = inputs, ()       # left: folded into the warp LU's status
    a1 = a1.astype(dt, copy=False)
    b1 = b1.astype(dt, copy=False)
    if a_is_scalar:
        if float(gp.abs(a1).max()) == 0:
            raise LinAlgError("A singular matrix detected.")
        out = b1 / a1
        return out[..., 0] if b_is_1d else out
    if structure == "diag":
        x = _solve_diag(a1, b1)
    elif structure in ("upper", "lower"):
        x = _solve_tri(a1, b1, structure == "lower", transposed)
    elif structure == "tri":
        x = _solve_tridiag(a1, b1, transposed)
    elif structure in ("sym", "her"):
        x = _solve_any(_hermitian_from(a1, lower, structure == "her"), b1, "gen", lower,
                       transposed)
    else:
        x = _solve_any(a1, b1, structure, lower, transposed, pending)
    return x[..., 0] if b_is_1d else x


def _diag_of(a1, offset=0):
    """Strided view (no copy) of the ``offset`` diagonal of every matrix of
    a (..., n, n) device array: shape (..., n - |offset|)."""
    n = a1.shape[-1]
    rs, cs = a1.strides[-2], a1.strides[-1]
    start = a1[..., :, offset:] if offset >= 0 else a1[..., -offset:, :]
    return as_strided(start, a1.shape[:-2] + (n - abs(offset),), a1.strides[:-2] + (rs + cs,))


def _hermitian_from(a1, lower, herm):
    """The symmetric (Hermitian when ``herm``) matrix given by one triangle of
    ``a1``, as SciPy's ?sysv/?hesv read it (the real part of the diagonal
    for Hermitian)."""
    n = a1.shape[-1]
    i = gp.arange(n).reshape((n, 1))
    j = gp.arange(n).reshape((1, n))
    other = a1.swapaxes(-1, -2)
    cplx = a1.dtype.kind == "c"
    if herm and cplx:
        other = gp.conj(other)
    full = gp.where((i >= j) if lower else (i <= j), a1, other)
    if herm and cplx:
        full = gp.where(i == j, full.real, full)
    return full.astype(a1.dtype, copy=False)


def _solve_diag(a1, b1):
    """Diagonal systems: an elementwise divide. Singular (an exact zero on
    the diagonal) -> LinAlgError; SciPy's warning when min|d| / max|d| < eps
    (its message shows max|d| / min|d|)."""
    dg = _diag_of(a1)
    x = b1 / dg.reshape(dg.shape + (1,))
    ad = gp.abs(dg)
    mn = ad.min(axis=-1)
    mx = ad.max(axis=-1)
    stats = gp.stack([mn.reshape(-1), mx.reshape(-1)]).get()   # one read back
    mn_h, mx_h = stats[0], stats[1]
    _singular((mn_h == 0).astype(numpy.int32))
    with numpy.errstate(divide="ignore", over="ignore", invalid="ignore"):
        _warn_rcond(mn_h / mx_h, a1.dtype, shown=mx_h / mn_h)
    return x.astype(a1.dtype, copy=False)


def _tri_solver(a_s, lower, dt):
    """``solve(v, op)``: ``op(a_s) x = v`` in place in the F-ordered ``v`` with
    cuBLAS trsm, for one triangular matrix. A C-ordered ``a_s`` is used as
    ``a_s^T`` in Fortran order (no copy); otherwise one F-ordered copy."""
    d = _dense()
    flip = a_s.dtype == dt and a_s.flags.c_contiguous
    m = a_s if flip else a_s.astype(dt, order="F", copy=False)
    low = (not lower) if flip else lower

    def solve(v, op):
        if not flip:
            return d.trsm(m, v, low, op)
        if op == 0:
            return d.trsm(m, v, low, d.OP_T)
        if op == 1 or v.dtype.kind != "c":
            return d.trsm(m, v, low, d.OP_N)
        w = gp.conj(v).copy(order="F")   # a^H = conj(m): m conj(x) = conj(v)
        d.trsm(m, w, low, d.OP_N)
        v[...] = gp.conj(w)
        return v
    return solve


def _solve_tri(a1, b1, lower, transposed):
    """Triangular systems (only the ``lower``/upper triangle is read). An
    exact zero on the diagonal -> LinAlgError as SciPy (?trtrs); the
    ill-conditioning warning from a 1-norm condition estimate (SciPy:
    ?trcon). Stacks of small matrices: the warp-per-system LU kernel on the
    masked matrix (its pivoting leaves a triangular matrix's solution
    unchanged up to rounding); otherwise trsm per matrix."""
    n, k = a1.shape[-1], b1.shape[-1]
    batch = a1.shape[:-2]
    dt = a1.dtype
    _singular((_diag_of(a1) == 0).any(axis=-1).reshape(-1).astype(numpy.int32).get())
    if n <= _bl.MAX_N:
        masked = _band_mask(a1, n if lower else 0, 0 if lower else n)
        return _solve_any(masked, b1, "gen", False, transposed)
    d = _dense()
    a3, b3 = _stack(a1, (n, n)), _stack(b1, (n, k))
    out = gp.empty((a3.shape[0], n, k), dt)
    rconds = []
    for s in range(a3.shape[0]):
        ts = _tri_solver(a3[s], lower, dt)
        x = b3[s].astype(dt, order="F", copy=True)
        ts(x, 1 if transposed else 0)
        out[s] = x
        y = ts(d.estimator_vectors(n, dt), 0)
        rconds.append(d.rcond_from_lu(_sk.norm1(a3[s], 3 if lower else 4), y,
                                      lambda v, ts=ts: ts(v, 0), lambda v, ts=ts: ts(v, 2)))
    _warn_rcond(gp.stack([r.reshape(1) for r in rconds]).get(), dt)
    return out.reshape(batch + (n, k))


def _tridiagonals(a1):
    """(dl, d, du) of a (..., n, n) stack as (B, n) contiguous arrays
    (``dl[:, i] = a[i+1, i]``, ``du[:, i] = a[i, i+1]``, last entries 0)."""
    n = a1.shape[-1]
    batch = a1.shape[:-2]
    d = gp.ascontiguousarray(_diag_of(a1)).reshape((-1, n))
    dl = gp.zeros(batch + (n,), a1.dtype)
    du = gp.zeros(batch + (n,), a1.dtype)
    if n > 1:
        dl[..., :n - 1] = _diag_of(a1, -1)
        du[..., :n - 1] = _diag_of(a1, 1)
    return dl.reshape((-1, n)), d, du.reshape((-1, n))


def _rcond_tridiag(dl, d, du):
    """(B,) reciprocal 1-norm condition estimates of tridiagonal matrices:
    the estimator of ``_solve_dense.rcond_from_lu`` (Hager/Higham), batched,
    with the tridiagonal solver (three extra O(n) solves per system)."""
    B, n = d.shape
    dt = d.dtype
    sk, dn = _sk, _dense()
    col = gp.abs(d)
    if n > 1:
        col[:, 1:] += gp.abs(du[:, :n - 1])
        col[:, :n - 1] += gp.abs(dl[:, :n - 1])
    anorm = col.max(axis=1)
    v = gp.ascontiguousarray(dn.estimator_vectors(n, dt))
    y, _ = sk.gtsv(dl, d, du, gp.broadcast_to(v, (B, n, 2)), 0)
    est1 = gp.abs(y[:, :, 0]).sum(axis=1)
    est3 = gp.abs(y[:, :, 1]).sum(axis=1) * (2.0 / (3 * n))
    sg = gp.ascontiguousarray(dn._sign(y[:, :, 0])).reshape((B, n, 1))
    z, _ = sk.gtsv(dl, d, du, sg, 2)
    j = gp.abs(z[:, :, 0]).argmax(axis=1)
    e = (gp.arange(n).reshape((1, n)) == j.reshape((B, 1))).astype(dt).reshape((B, n, 1))
    y2, _ = sk.gtsv(dl, d, du, e, 0)
    est2 = gp.abs(y2[:, :, 0]).sum(axis=1)
    est = gp.maximum(gp.maximum(est1, est2), est3)
    rc = gp.where(anorm == 0, 0.0, 1.0 / (est * anorm))
    return gp.where(est == 0, 0.0, rc).astype(dt.char.lower())


def _solve_tridiag(a1, b1, transposed):
    """Tridiagonal systems (entries off the three diagonals are ignored, as
    SciPy's ?gtsv path does): Gaussian elimination with partial pivoting on
    the device (``_solve_kernels.gtsv``), O(n) per system; singular (exact
    zero pivot) -> LinAlgError; ill-conditioned -> LinAlgWarning (SciPy:
    ?gtcon)."""
    n, k = a1.shape[-1], b1.shape[-1]
    batch = a1.shape[:-2]
    dl, d, du = _tridiagonals(a1)
    b3 = _stack(b1, (n, k))
    x, info = _sk.gtsv(dl, d, du, b3, 1 if transposed else 0)
    rc = _rcond_tridiag(dl, d, du)
    info_h, rc_h = info.get(), rc.get()
    _singular(info_h)
    _warn_rcond(rc_h, a1.dtype)
    return x.reshape(batch + (n, k))


def _solve_any(a1, b1, structure, lower, transposed, check=()):
    """General (LU) or 'pos' (Cholesky) systems. ``check``: the inputs as
    given whose finiteness is still to be checked (warp LU path only)."""
    n, k = a1.shape[-1], b1.shape[-1]
    batch = a1.shape[:-2]
    dt = a1.dtype
    if structure == "pos":
        return _solve_pos(a1, b1, lower)
    if n <= _bl.MAX_N:
        fin = [all_finite(x, sync=False) for x in check]
        a3, b3 = _stack(a1, (n, n)), _stack(b1, (n, k))
        res = _bl.batched_lu(a3, b3, trans=1 if transposed else 0, want_rcond=True)
        # one 12-byte read back: [any singular, any rcond < eps, any input
        # not finite]; info/rcond only come back when a flag is set
        st = _bl.lu_status(res["info"], res["rcond"], dt, fin).get()
        if st[2]:
            raise ValueError("array must not contain infs or NaNs")
        if st[0]:
            _singular(res["info"].get())
        if st[1]:
            _warn_rcond(res["rcond"].get(), dt)
        return res["x"].reshape(batch + (n, k))
    a3, b3 = _stack(a1, (n, n)), _stack(b1, (n, k))
    out = gp.empty((a3.shape[0], n, k), dt)
    infos, rconds = [], []
    for i in range(a3.shape[0]):
        x, info, rc = _solve_general(a3[i], b3[i], transposed)
        out[i] = x
        infos.append(info.reshape(1))
        rconds.append(rc.reshape(1))
    _singular(gp.concatenate(infos).get())   # one read back for the stack
    _warn_rcond(gp.concatenate(rconds).get(), dt)
    return out.reshape(batch + (n, k))


def _solve_pos(a1, b1, lower):
    """Hermitian positive definite systems by Cholesky (only the ``lower``/
    upper triangle is read). Not positive definite -> LinAlgError;
    ill-conditioned -> LinAlgWarning as SciPy 1.17 (?pocon): the 1-norm
    estimate of the Hermitian matrix, from the warp LU kernel for stacks of
    small matrices, else the Hager/Higham estimator with potrs solves."""
    n, k = a1.shape[-1], b1.shape[-1]
    batch = a1.shape[:-2]
    dt = a1.dtype
    if n <= _bl.MAX_N:
        res = _bl.batched_cholesky(_stack(a1, (n, n)), _stack(b1, (n, k)),
                                   upper=not lower, want_factor=False)
        full = _stack(_hermitian_from(a1, lower, True), (n, n))
        rc = _bl.batched_lu(full, want_rcond=True)["rcond"]
        _singular(res["info"].get())
        _warn_rcond(rc.get(), dt)
        return res["x"].reshape(batch + (n, k))
    d = _dense()
    a3, b3 = _stack(a1, (n, n)), _stack(b1, (n, k))
    out = gp.empty((a3.shape[0], n, k), dt)
    infos, rconds = [], []
    for i in range(a3.shape[0]):
        _, info, sol = _potrf_lower_path(a3[i], lower)
        infos.append(info.reshape(1))
        out[i] = sol(b3[i].astype(dt, order="F", copy=True))
        y = sol(d.estimator_vectors(n, dt))
        rconds.append(d.rcond_from_lu(_sk.norm1(a3[i], 1 if lower else 2), y, sol, sol)
                      .reshape(1))
    _singular(gp.concatenate(infos).get())
    _warn_rcond(gp.concatenate(rconds).get(), dt)
    return out.reshape(batch + (n, k))


# --------------------------------------------------------- triangular

@fill_doc
def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True):
    """Solve ``a x = b`` for ``x``, with ``a`` triangular.

    Parameters
    ----------
    a : array_like, shape (..., M, M)
        Triangular matrix (or stack); only the triangle named by ``lower``
        is read.
    b : array_like, shape (..., M) or (..., M, K)
        Right-hand side; batch axes broadcast against ``a``'s.
    trans : {0, 1, 2, 'N', 'T', 'C'}, optional
        Solve ``a x = b`` (0, 'N'), ``a^T x = b`` (1, 'T') or
        ``a^H x = b`` (2, 'C').
    lower : bool, optional
        Use the lower triangle of ``a`` (default: upper).
    unit_diagonal : bool, optional
        Take the diagonal of ``a`` to be ones; it is not read.
    {overwrite_b}
    {check_finite}

    Returns
    -------
    {returns_x_solve}

    Raises
    ------
    ValueError
        ``a`` is not a (stack of) square matrices; the shapes of ``a`` and
        ``b`` do not match; a bad ``trans``; inf or NaN with
        ``check_finite``.
    LinAlgError
        A zero on the diagonal of ``a`` (not checked with
        ``unit_diagonal``): "singular matrix: resolution failed at diagonal
        i", as SciPy.

    Notes
    -----
    Runs cuBLAS ``?trsm`` (``cublasStrsm``/``Dtrsm``/``Ctrsm``/``Ztrsm``),
    one call per matrix of a stack, on the current stream. A C-ordered
    ``a`` is passed as its Fortran-ordered transpose with the triangle and
    the operation flipped (no copy); ``trans=2`` of such a matrix solves
    ``conj(a) conj(x) = conj(b)``. The zero-diagonal check reads one boolean
    per diagonal entry back to the host (one synchronisation).
    """
    a1 = asarray_validated(a, check_finite)
    b1 = asarray_validated(b, check_finite, "b")
    if a1.ndim < 2 or a1.shape[-1] != a1.shape[-2]:
        raise ValueError("expected square matrix")
    if b1.ndim == 0 or a1.shape[-1] != b1.shape[-2 if b1.ndim > 1 else -1]:
        raise ValueError(f"shapes of a {a1.shape} and b {b1.shape} are incompatible")
    trans = {"N": 0, "T": 1, "C": 2}.get(trans, trans)
    if trans not in (0, 1, 2):
        raise ValueError("Incorrect trans value")
    dt = lapack_dtype(a1.dtype, b1.dtype)
    n = a1.shape[-1]
    b_is_1d = b1.ndim == 1
    if b_is_1d:
        b1 = b1.reshape(b1.shape + (1,))
    if a1.ndim > 2 or b1.ndim > 2:
        batch = numpy.broadcast_shapes(a1.shape[:-2], b1.shape[:-2])
    else:
        batch = ()
    k = b1.shape[-1]
    if n == 0 or k == 0:
        x = gp.empty(batch + (n, k), dt)
        return x[..., 0] if b_is_1d else x
    a3 = _stack(_broadcast(a1, batch + (n, n)), (n, n))
    b3 = _stack(_broadcast(b1, batch + (n, k)), (n, k))
    if not unit_diagonal:
        diag = gp.ascontiguousarray(a3).reshape((-1, n * n))[:, ::n + 1]
        zero = (diag == 0).get()
        if zero.any():
            i = int(numpy.flatnonzero(zero.any(axis=0))[0])
            raise LinAlgError(f"singular matrix: resolution failed at diagonal {i}")
    d = _dense()
    out = gp.empty((a3.shape[0], n, k), dt)
    for s in range(a3.shape[0]):
        # a C-ordered a is a^T in Fortran order: flip triangle and op
        ac = a3[s].astype(dt, order="C", copy=False)
        if ac.flags.c_contiguous:
            m, low, op = ac, not lower, (1 if trans == 0 else 0)
            if trans == 2:   # a^H = conj(m); solve m conj(x) = conj(b)
                x = gp.conj(b3[s].astype(dt)).copy(order="F")
                d.trsm(m, x, low, d.OP_N, unit_diagonal)
                out[s] = gp.conj(x)
                continue
        else:
            m, low, op = ac.copy(order="F"), lower, trans
        x = b3[s].astype(dt, order="F", copy=True)
        d.trsm(m, x, low, op, unit_diagonal)
        out[s] = x
    x = out.reshape(batch + (n, k))
    return x[..., 0] if b_is_1d else x


# ----------------------------------------------------------------- LU

def _lu_batched(a1):
    """LU of a (..., n, n) stack: returns (lu (..., n, n), piv int32 0-based, info)."""
    n = a1.shape[-1]
    batch = a1.shape[:-2]
    a3 = _stack(a1, (n, n))
    if 1 <= n <= _bl.MAX_N:
        res = _bl.batched_lu(a3, want_lu=True)
        return (res["lu"].reshape(batch + (n, n)), res["ipiv"].reshape(batch + (n,)),
                res["info"])
    d = _dense()
    lus = gp.empty((a3.shape[0], n, n), a1.dtype)
    pivs = gp.empty((a3.shape[0], n), numpy.int32)
    infos = gp.empty((a3.shape[0],), numpy.int32)
    for i in range(a3.shape[0]):
        m = a3[i].astype(a1.dtype, order="F", copy=True)
        ipiv, info = d.getrf(m)
        lus[i] = m
        pivs[i] = (ipiv - 1).astype(numpy.int32)
        infos[i:i + 1] = info
    return lus.reshape(batch + (n, n)), pivs.reshape(batch + (n,)), infos


@fill_doc
def lu_factor(a, overwrite_a=False, check_finite=True):
    """LU decomposition with partial pivoting, packed for ``lu_solve``.

    Parameters
    ----------
    {a_square}
    {overwrite_a}
    {check_finite}

    Returns
    -------
    lu : gpuscipy_core.ndarray, shape (..., M, M)
        ``U`` in the upper triangle and the unit lower triangular ``L``
        below the diagonal (its ones not stored); float32, float64,
        complex64 or complex128 (integers and bool give float64).
    piv : gpuscipy_core.ndarray, shape (..., M), int32
        0-based row interchanges: row ``i`` was swapped with row
        ``piv[i]`` (LAPACK's ``ipiv`` minus one, as SciPy).

    Raises
    ------
    {raises_square}

    Warns
    -----
    LinAlgWarning
        An exact zero on the diagonal of ``U`` ("Diagonal number i is
        exactly zero. Singular matrix."), as SciPy.

    Notes
    -----
    Gaussian elimination with partial pivoting (Golub & Van Loan, *Matrix
    Computations*, 4th ed., alg. 3.4.1). For ``M <= 32`` one warp factors
    each matrix of the stack in one launch (``_batched_lu.cuh``); larger
    matrices run cuSOLVER ``cusolverDnXgetrf``, one call per matrix. The
    ``info`` array is read back once (one synchronisation) to issue the
    warning.
    """
    a1 = asarray_validated(a, check_finite)
    if a1.ndim < 2 or a1.shape[-1] != a1.shape[-2]:
        raise ValueError("expected square matrix")
    dt = lapack_dtype(a1.dtype)
    a1 = a1.astype(dt, copy=False)
    if a1.size == 0:
        return gp.empty(a1.shape, dt), gp.empty(a1.shape[:-1], numpy.int32)
    lu_, piv, info = _lu_batched(a1)
    info_h = info.get().reshape(-1)
    if (info_h > 0).any():
        i = int(info_h[info_h > 0][0])
        warnings.warn(f"Diagonal number {i} is exactly zero. Singular matrix.",
                      LinAlgWarning, stacklevel=2)
    return lu_, piv


def _rhs_columns(b3, dt):
    """(B, n, k) right-hand sides -> an F-ordered (n, B*k) work array whose
    column ``s*k + c`` is ``b3[s, :, c]`` (one copy), and the inverse view."""
    B, n, k = b3.shape
    t = b3.swapaxes(1, 2).astype(dt, order="C", copy=True)   # (B, k, n), C order
    work = t.reshape((B * k, n)).T   # F-contiguous (n, B*k)

    def back():
        return t.reshape((B, k, n)).swapaxes(1, 2)
    return work, back


def _batched_solve(name, fac, fac_core, extra, b1, n, dt, solve_one):
    """Solve with a stacked factor as SciPy's ``_apply_over_batch`` does.

    ``fac``: the factor with ``fac_core`` core dims; ``extra``: a second
    per-matrix array with one core dim (LU pivots) or None; ``b1``: core
    (n,) when 1-D else (n, k). ``solve_one(fac2, extra1, x)`` solves in
    place in the F-ordered (n, m) ``x``. Returns None when nothing is
    batched (the caller handles the plain 2-D case)."""
    b_core = 2 if b1.ndim >= 2 else 1
    shapes = [fac.shape[:-fac_core], b1.shape[:-b_core]]
    if extra is not None:
        shapes.insert(1, extra.shape[:-1])
    if not any(shapes):
        return None
    batch = tuple(numpy.broadcast_shapes(*shapes))
    if int(numpy.prod(batch, dtype=numpy.int64)) == 0:
        raise ValueError(f"`{name}` does not support zero-size batches.")
    b2 = b1 if b_core == 2 else b1.reshape(b1.shape + (1,))
    k = b2.shape[-1]
    out_shape = batch + ((n, k) if b_core == 2 else (n,))
    if n == 0 or k == 0:
        return gp.empty(out_shape, dt)
    shared = not shapes[0] and (extra is None or not shapes[1])
    b3 = _stack(_broadcast(b2, batch + (n, k)), (n, k))
    if shared:   # one factor: all right-hand sides as the columns of one solve
        work, back = _rhs_columns(b3, dt)
        solve_one(fac.astype(dt, order="F", copy=False), extra, work)
        return back().reshape(out_shape)
    f3 = _stack(_broadcast(fac, batch + fac.shape[-2:]), fac.shape[-2:])
    e2 = None if extra is None else _stack(_broadcast(extra, batch + (n,)), (n,))
    out = gp.empty((f3.shape[0], n, k), dt)
    for s in range(f3.shape[0]):
        x = b3[s].astype(dt, order="F", copy=True)
        solve_one(f3[s].astype(dt, order="F", copy=False),
                  None if e2 is None else e2[s], x)
        out[s] = x
    return out.reshape(out_shape)


@fill_doc
def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` from ``lu_factor``'s output (``scipy.linalg.lu_solve``).

    Parameters
    ----------
    lu_and_piv : ((..., N, N) array, (..., N) int array)
        ``lu_factor``'s packed factor and 0-based pivots; stacked factors
        broadcast against ``b``'s batch dimensions as in SciPy.
    b : (..., N) or (..., N, K) array
        Right-hand sides (2-D core when ``b.ndim >= 2``).
    trans : {0, 1, 2}
        0 ``a x = b``, 1 ``a^T x = b``, 2 ``a^H x = b``.
    {check_finite}
        Only ``b`` is checked (SciPy does not check ``lu`` either).

    Returns
    -------
    {returns_x_solve}

    Raises
    ------
    ValueError
        ``lu`` not square; a bad ``trans``; ``lu`` and ``b`` of mismatched
        shapes; a zero-size batch; inf or NaN in ``b`` with
        ``check_finite``.

    Notes
    -----
    cuSOLVER getrs. With one factor (2-D ``lu``) and a stack of ``b`` the
    right-hand sides become the columns of a single getrs; a stack of
    factors runs one getrs per matrix.
    """
    lu_, piv = lu_and_piv
    lu1 = gp.asarray(lu_)
    b1 = asarray_validated(b, check_finite, "b")
    piv1 = gp.asarray(piv)
    if lu1.ndim < 2 or lu1.shape[-1] != lu1.shape[-2]:
        raise ValueError("expected square matrix")
    if trans not in (0, 1, 2):
        raise ValueError("trans must be 0, 1 or 2")
    if _b_as_vectors("lu_solve", lu1, b1, lu1.shape[-1]):
        x = lu_solve((lu1, piv1), b1.reshape(b1.shape + (1,)), trans=trans,
                     check_finite=False)
        return x[..., 0]
    if b1.ndim == 0 or lu1.shape[-2] != b1.shape[-2 if b1.ndim > 1 else 0]:
        raise ValueError(f"Shapes of lu {lu1.shape[-2:]} and b "
                         f"{b1.shape[-2:] if b1.ndim > 1 else b1.shape} are incompatible")
    dt = lapack_dtype(lu1.dtype, b1.dtype)
    n = lu1.shape[-1]
    d = _dense()

    def one(m, p, x):
        d.getrs(m, (p.astype(numpy.int64) + 1), x, trans)

    x = _batched_solve("_lu_solve", lu1, 2, piv1, b1, n, dt, one)
    if x is not None:
        return x
    b_is_1d = b1.ndim == 1
    if b_is_1d:
        b1 = b1.reshape((n, 1))
    k = b1.shape[-1]
    if n == 0 or k == 0:
        x = gp.empty(b1.shape, dt)
        return x[..., 0] if b_is_1d else x
    x = b1.astype(dt, order="F", copy=True)
    one(lu1.astype(dt, order="F", copy=False), piv1, x)
    return x[:, 0] if b_is_1d else x


@fill_doc
def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """LU decomposition with partial pivoting, ``a = p @ l @ u``.

    Parameters
    ----------
    {a_square}
    permute_l : bool, optional
        Return ``p @ l`` in place of ``p`` and ``l``.
    {overwrite_a}
    {check_finite}
    p_indices : bool, optional
        Return the permutation as row indices ``perm`` (``a = l[perm] @ u``)
        in place of the matrix ``p``.

    Returns
    -------
    p : gpuscipy_core.ndarray, shape (..., M, M)
        Permutation matrix, real of ``l``'s precision (without
        ``permute_l`` and ``p_indices``).
    perm : gpuscipy_core.ndarray, shape (..., M), int32
        Row indices (with ``p_indices``; int64 for ``M == 1``, as SciPy).
    l : gpuscipy_core.ndarray, shape (..., M, M)
        Unit lower triangular factor.
    pl : gpuscipy_core.ndarray, shape (..., M, M)
        ``p @ l`` (with ``permute_l``; then only ``(pl, u)`` is returned).
    u : gpuscipy_core.ndarray, shape (..., M, M)
        Upper triangular factor. ``l``, ``pl`` and ``u`` are float32,
        float64, complex64 or complex128 (integers and bool give float64).

    Raises
    ------
    ValueError
        ``a`` has fewer than 2 dimensions; inf or NaN with
        ``check_finite``.
    NotImplementedError
        ``a`` is not square (SciPy supports rectangular ``a``).

    Notes
    -----
    Factors as :func:`lu_factor` (one warp per matrix for ``M <= 32``,
    else cuSOLVER ``cusolverDnXgetrf``; Golub & Van Loan, *Matrix
    Computations*, 4th ed., alg. 3.4.1), then turns the interchanges into a
    permutation and unpacks ``l``, ``u`` and ``p`` with elementwise kernels
    on the device; nothing is read back.

    Differences from SciPy: rectangular matrices are not supported.
    """
    a1 = asarray_validated(a, check_finite)
    if a1.ndim < 2:
        raise ValueError("The input array must be at least two-dimensional.")
    dt = lapack_dtype(a1.dtype)
    a1 = a1.astype(dt, copy=False)
    m, n = a1.shape[-2], a1.shape[-1]
    if m != n:
        raise NotImplementedError("gpuscipy.linalg.lu: rectangular matrices are not "
                                  "supported yet")
    batch = a1.shape[:-2]
    if a1.size == 0:
        z = gp.empty(a1.shape, dt)
        if permute_l:
            return z, gp.empty(a1.shape, dt)
        first = (gp.empty(batch + (m,), numpy.int32) if p_indices
                 else gp.empty(a1.shape, dt.char.lower()))
        return first, z, gp.empty(a1.shape, dt)
    if n == 1:   # SciPy's scalar case: P = ones_like(a), p_indices int64
        ones = gp.ones(a1.shape, dt)
        if permute_l:
            return ones, a1.copy()
        first = gp.zeros(batch + (1,), numpy.int64) if p_indices else gp.ones(a1.shape, dt)
        return first, ones, a1.copy()
    lu_, piv, _ = _lu_batched(a1)
    lu3, piv3 = _stack(lu_, (n, n)), _stack(piv, (n,))
    # interchanges -> permutation on the device; (P a)[i] = a[perm[i]] and
    # a = l[inv] @ u
    perm, inv = _sk.lu_permutation(piv3)
    up = _sk.lu_unpack(lu3, "U").reshape(a1.shape)
    if permute_l:
        return _sk.lu_unpack(lu3, "PL", inv).reshape(a1.shape), up
    low = _sk.lu_unpack(lu3, "L").reshape(a1.shape)
    if p_indices:
        return inv.reshape(batch + (n,)), low, up
    return _sk.lu_unpack(lu3, "P", inv).reshape(a1.shape), low, up


# ------------------------------------------------------------ inv, det

@fill_doc
def inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    """Inverse of a square matrix or of each matrix of a stack.

    Parameters
    ----------
    {a_square}
    {overwrite_a}
    {check_finite}
    assume_a : str, optional
        Accepted for SciPy compatibility and ignored: every matrix is
        inverted by the general LU.
    lower : bool, optional
        Accepted for SciPy compatibility and ignored.

    Returns
    -------
    ainv : gpuscipy_core.ndarray, shape (..., M, M)
        float32, float64, complex64 or complex128 (integers and bool give
        float64).

    Raises
    ------
    {raises_square}
    LinAlgError
        An exactly singular matrix ("A singular matrix detected", naming
        the singular slices of a stack).

    Warns
    -----
    LinAlgWarning
        An ill-conditioned matrix (reciprocal 1-norm condition estimate
        below machine epsilon), as SciPy.

    Notes
    -----
    LU with partial pivoting (Golub & Van Loan, *Matrix Computations*, 4th
    ed., alg. 3.4.1) and the 1-norm condition estimate of Higham (ACM TOMS
    14(4), 1988; LAPACK's ``?gecon``). For ``M <= 32`` one warp per matrix
    factors, inverts and estimates in one launch (``_batched_lu.cuh``);
    larger matrices run cuSOLVER ``cusolverDnXgetrf`` and
    ``cusolverDnXgetrs`` against the identity, one matrix at a time, and
    take ``||A^-1||_1`` from the computed inverse itself (no estimate, so
    rcond is at most LAPACK's estimated value; the warning can come for
    matrices whose estimate lies just above eps). The ``info`` and
    ``rcond`` arrays are read back once each.

    Differences from SciPy: ``assume_a`` and ``lower`` do not select a
    structured inverse.
    """
    a1 = asarray_validated(a, False)
    if a1.ndim < 2 or a1.shape[-1] != a1.shape[-2]:
        raise ValueError("Expected at least ndim=2, got a1.ndim=%d" % a1.ndim
                         if a1.ndim < 2 else
                         f"Expected square matrix, got a1.shape={a1.shape}")
    dt = lapack_dtype(a1.dtype)
    n = a1.shape[-1]
    if n <= _bl.MAX_N or a1.size == 0:
        if check_finite:
            check_finite_array(a1, "a")
        a1 = a1.astype(dt, copy=False)
        if a1.size == 0:
            return gp.empty(a1.shape, dt)
        res = _bl.batched_lu(_stack(a1, (n, n)), inv=True, want_rcond=True)
        _singular(res["info"].get())
        _warn_rcond(res["rcond"].get(), dt)
        return res["x"].reshape(a1.shape)
    a3 = _stack(a1.astype(dt, copy=False), (n, n))
    out = gp.empty(a3.shape, dt)
    status = gp.empty((a3.shape[0], 3), numpy.float64)
    for i in range(a3.shape[0]):
        _inv_general(a3[i], out[i], status[i])
    st = status.get()                # the one read back, for the whole stack
    if check_finite and not numpy.isfinite(st[:, 1]).all():
        # an inf or NaN makes ||a||_1 non-finite; so can finite entries
        # whose column sums overflow, which the exact check lets through
        check_finite_array(a1, "a")
    _singular(st[:, 0])
    _warn_rcond(st[:, 2].astype(dt.char.lower()), dt)
    return out.reshape(a1.shape)


@functools.lru_cache(maxsize=1)
def _inv_status_kernel():
    """``st = [info, ||a||_1, rcond]`` (float64) of one inverse in one
    launch; rcond in the real dtype R as ``1 / (||a||_1 ||a^-1||_1)``, 0
    when either norm is 0."""
    return gp.ElementwiseKernel(
        "int32 info, R anorm, R ainv", "raw float64 st",
        "st[0] = info; st[1] = anorm;"
        " st[2] = (anorm == (R)0 || ainv == (R)0) ? (R)0 : (R)1 / (anorm * ainv)",
        "gs_linalg_inv_status")


def _inv_general(a, out, status):
    """``out[...] = a^-1`` for one n x n matrix (C-contiguous ``out``) by
    cuSOLVER LU, and ``status[:] = [info, ||a||_1, rcond]`` on the device.

    The C-ordered copy of ``a`` is ``a^T`` read column-major; ``getrs``
    without transposition then solves ``a^T X = I`` in ``out`` read
    column-major, so ``out`` read row-major is ``X^T = a^-1``: no
    transposed solve and no transposing copy. The condition number needs no
    estimator: ``||a^-1||_1`` is the largest column sum of the computed
    inverse (exact up to rounding, where LAPACK's ?gecon estimates a lower
    bound of it with two more solves). ``||a||_1`` doubles as the finite
    check (``inv`` reads it with the rest once everything is queued, so the
    GPU never waits for the host between the check and the factorization).
    """
    d = _dense()
    n = a.shape[0]
    m = a.astype(a.dtype, order="C", copy=True)
    ipiv, info = d.getrf(m)
    out.fill(0)
    out.reshape(-1)[::n + 1] = 1
    d.getrs(m, ipiv, out.T, d.OP_N)
    _inv_status_kernel()(info.reshape(()), _sk.norm1(a), _sk.norm1(out), status)


@fill_doc
def det(a, overwrite_a=False, check_finite=True):
    """Determinant of a square matrix or of each matrix of a stack.

    Parameters
    ----------
    {a_square}
    {overwrite_a}
    {check_finite}

    Returns
    -------
    det : gpuscipy_core.ndarray, shape (...)
        float32, float64, complex64 or complex128 (integers and bool give
        float64); a 0-d device array for one matrix (SciPy returns a
        Python scalar there). ``M == 0`` gives ones.

    Raises
    ------
    {raises_square}

    Notes
    -----
    The product of ``U``'s diagonal from LU with partial pivoting, negated
    when the number of row interchanges is odd (Golub & Van Loan, *Matrix
    Computations*, 4th ed., sec. 3.4). For ``M <= 32`` one warp per matrix
    factors and forms the product in one launch (``_batched_lu.cuh``);
    larger matrices run cuSOLVER ``cusolverDnXgetrf`` and a device
    reduction. Nothing is read back; a singular matrix gives 0.

    Differences from SciPy: the result stays on the device (0-d array, not
    a Python float).
    """
    a1 = asarray_validated(a, check_finite)
    if a1.ndim < 2:
        raise ValueError("The input array must be at least two-dimensional.")
    if a1.shape[-1] != a1.shape[-2]:
        raise ValueError("Last 2 dimensions of the array must be square but received "
                         f"shape {a1.shape}.")
    dt = lapack_dtype(a1.dtype)
    a1 = a1.astype(dt, copy=False)
    n = a1.shape[-1]
    batch = a1.shape[:-2]
    if n == 0:
        return gp.ones(batch, dt)
    if 0 in batch:
        return gp.empty(batch, dt)
    if n <= _bl.MAX_N:
        res = _bl.batched_lu(_stack(a1, (n, n)), want_det=True)
        return res["det"].reshape(batch)
    lu_, piv, _ = _lu_batched(a1)
    lu3, piv3 = _stack(lu_, (n, n)), _stack(piv, (n,))
    diag = gp.ascontiguousarray(lu3).reshape((-1, n * n))[:, ::n + 1]
    d = diag.prod(axis=1)
    swaps = (piv3 != gp.arange(n, dtype=numpy.int32)).sum(axis=1)
    d = gp.where(swaps % 2 == 1, -d, d).astype(dt)
    return d.reshape(batch)


# ------------------------------------------------------------ Cholesky

def _cholesky(a1, lower):
    n = a1.shape[-1]
    batch = a1.shape[:-2]
    if 1 <= n <= _bl.MAX_N:
        res = _bl.batched_cholesky(_stack(a1, (n, n)), upper=not lower)
        return res["c"].reshape(a1.shape), res["info"]
    a3 = _stack(a1, (n, n))
    out = gp.empty(a3.shape, a1.dtype)
    infos = gp.empty((a3.shape[0],), numpy.int32)
    i_ = gp.arange(n).reshape(n, 1)
    j_ = gp.arange(n).reshape(1, n)
    keep = (i_ >= j_) if lower else (i_ <= j_)
    for s in range(a3.shape[0]):
        f, infos[s:s + 1], _ = _potrf_lower_path(a3[s], lower)
        # f is L of a (lower), or L of a^T read row-major, which is U of a
        out[s] = gp.where(keep, f if lower else f.T, 0)
    return out.reshape(batch + (n, n)), infos


def _potrf_lower_path(a2, lower):
    """Cholesky of the Hermitian (n, n) ``a2`` (triangle ``lower`` read)
    through cuSOLVER's lower-triangle potrf only.

    For ``lower=False`` the row-major copy of ``a2``, read column-major, is
    ``a2^T``, whose lower triangle is ``a2``'s upper one: ``a2^T = L L^H``
    gives ``a2 = U^H U`` with ``U = L^T`` (no transposing copy) and
    ``a2 x = b`` becomes ``a2^T conj(x) = conj(b)``. Returns ``(f, info,
    solve)``: ``f`` the F-ordered lower factor (of ``a2`` or ``a2^T``),
    cuSOLVER's info, and ``solve(v)`` solving ``a2 x = v`` in place in the
    F-ordered ``v``.
    """
    d = _dense()
    if lower:
        f = a2.astype(a2.dtype, order="F", copy=True)
    else:
        f = a2.astype(a2.dtype, order="C", copy=True).T
    info = d.potrf(f, True)
    if lower or a2.dtype.kind != "c":
        def solve(v):
            return d.potrs(f, v, True)
    else:
        def solve(v):
            gp.conjugate(v, out=v)
            d.potrs(f, v, True)
            return gp.conjugate(v, out=v)
    return f, info, solve


def _chol_check(info):
    info_h = info.get().reshape(-1)
    bad = info_h[info_h > 0]
    if bad.size:
        raise LinAlgError(f"{int(bad[0])}-th leading minor of the array is not "
                          "positive definite")


@fill_doc
def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """Cholesky factor of a Hermitian positive definite matrix (or stack).

    ``U`` with ``a = U^H U`` (default) or ``L`` with ``a = L L^H``.

    Parameters
    ----------
    a : array_like, shape (..., M, M)
        Hermitian positive definite matrix or stack; only the triangle
        named by ``lower`` is read.
    lower : bool, optional
        Return the lower factor ``L`` (default: the upper ``U``).
    {overwrite_a}
    {check_finite}

    Returns
    -------
    c : gpuscipy_core.ndarray, shape (..., M, M)
        The triangular factor, zeros in the other triangle; float32,
        float64, complex64 or complex128 (integers and bool give float64).

    Raises
    ------
    {raises_square}
    LinAlgError
        A matrix is not positive definite ("k-th leading minor of the
        array is not positive definite", as SciPy).

    Notes
    -----
    Cholesky factorization (Golub & Van Loan, *Matrix Computations*, 4th
    ed., alg. 4.2.1). For ``M <= 32`` one warp per matrix factors the whole
    stack in one launch (``_batched_lu.cuh``); larger matrices run cuSOLVER
    ``cusolverDnXpotrf``, one call per matrix. The ``info`` array is read
    back once (one synchronisation).
    """
    a1 = asarray_validated(a, check_finite)
    if a1.ndim < 2 or a1.shape[-1] != a1.shape[-2]:
        raise ValueError(f"Input array is expected to be square but has the shape: "
                         f"{a1.shape[-2:] if a1.ndim >= 2 else a1.shape}.")
    dt = lapack_dtype(a1.dtype)
    a1 = a1.astype(dt, copy=False)
    if a1.size == 0:
        return gp.empty(a1.shape, dt)
    c, info = _cholesky(a1, lower)
    _chol_check(info)
    return c


@fill_doc
def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """Cholesky factor of a Hermitian positive definite matrix, for ``cho_solve``.

    Parameters
    ----------
    a : array_like, shape (..., M, M)
        Hermitian positive definite matrix or stack; only the triangle
        named by ``lower`` is read.
    lower : bool, optional
        Compute the lower factor (default: upper).
    {overwrite_a}
    {check_finite}

    Returns
    -------
    c : gpuscipy_core.ndarray, shape (..., M, M)
        The factor, as :func:`cholesky` returns it.
    lower : bool
        The ``lower`` argument, to pass on to :func:`cho_solve`.

    Raises
    ------
    {raises_square}
    LinAlgError
        A matrix is not positive definite.

    Notes
    -----
    Calls :func:`cholesky` (one warp per matrix for ``M <= 32``, else
    cuSOLVER ``cusolverDnXpotrf``).

    Differences from SciPy: the other triangle of ``c`` holds zeros (SciPy
    leaves whatever was in ``a`` there).
    """
    return cholesky(a, lower=lower, check_finite=check_finite), lower


@fill_doc
def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` with ``cho_factor``'s output (``scipy.linalg.cho_solve``).

    Parameters
    ----------
    c_and_lower : ((..., N, N) array, bool)
        The Cholesky factor (only its ``lower``/upper triangle is read) and
        which triangle; stacked factors broadcast against ``b``'s batch
        dimensions as in SciPy.
    b : (..., N) or (..., N, K) array

    Returns
    -------
    {returns_x_solve}

    Raises
    ------
    ValueError: non-square factor, incompatible shapes, non-finite input,
    zero-size batch.

    Notes
    -----
    cuSOLVER potrs; one factor with a stack of ``b`` is one potrs over all
    the right-hand sides as columns.
    """
    c, lower = c_and_lower
    c1 = asarray_validated(c, check_finite, "c")
    b1 = asarray_validated(b, check_finite, "b")
    if c1.ndim < 2 or c1.shape[-1] != c1.shape[-2]:
        raise ValueError("The factored matrix c is not square.")
    if _b_as_vectors("cho_solve", c1, b1, c1.shape[-1]):
        x = cho_solve((c1, lower), b1.reshape(b1.shape + (1,)), check_finite=False)
        return x[..., 0]
    if b1.ndim == 0 or c1.shape[-1] != b1.shape[-2 if b1.ndim > 1 else 0]:
        raise ValueError(f"incompatible dimensions ({c1.shape[-2:]} and "
                         f"{b1.shape[-2:] if b1.ndim > 1 else b1.shape})")
    dt = lapack_dtype(c1.dtype, b1.dtype)
    n = c1.shape[-1]
    d = _dense()

    def one(m, _, x):
        d.potrs(m, x, lower)

    x = _batched_solve("_cho_solve", c1, 2, None, b1, n, dt, one)
    if x is not None:
        return x
    if c1.size == 0 or b1.size == 0:
        return gp.empty(b1.shape, dt)
    x = b1.astype(dt, order="F", copy=True)
    one(c1.astype(dt, order="F", copy=False), None, x)
    return x


# ------------------------------------------------------------- banded

def _over_batch(name, arrays, cores, f):
    """SciPy's ``_apply_over_batch`` on the device: broadcast the batch
    dimensions, call ``f`` per slice, stack."""
    batch = tuple(numpy.broadcast_shapes(*[x.shape[:x.ndim - c] for x, c in zip(arrays, cores)]))
    if int(numpy.prod(batch, dtype=numpy.int64)) == 0:
        raise ValueError(f"`{name}` does not support zero-size batches.")
    full = [_broadcast(x, batch + x.shape[x.ndim - c:]) for x, c in zip(arrays, cores)]
    outs = [f(*[x[idx] for x in full]) for idx in numpy.ndindex(*batch)]
    return gp.stack(outs).reshape(batch + outs[0].shape)


def _banded_to_dense(ab, lower_bw, upper_bw, n):
    """Dense (n, n) matrix of LAPACK band storage ``ab[u + i - j, j] = a[i, j]``."""
    rows = lower_bw + upper_bw + 1
    i = gp.arange(n).reshape(n, 1)
    j = gp.arange(n).reshape(1, n)
    out = gp.zeros((n, n), ab.dtype)
    abh = ab  # gather row by row of the band (rows <= bandwidth; O(rows) launches)
    for r in range(rows):
        dgn = upper_bw - r   # j - i
        if -n < dgn < n:
            if dgn >= 0:
                length = n - dgn
                src = abh[r, dgn:dgn + length]
                _diag_view(out, dgn)[...] = src
            else:
                length = n + dgn
                src = abh[r, :length]
                _diag_view(out, dgn)[...] = src
    del i, j
    return out


def _diag_view(x, k):
    n = x.shape[0]
    step = x.strides[0] + x.strides[1]
    if k >= 0:
        return as_strided(x[:, k:], (n - k,), (step,))
    return as_strided(x[-k:, :], (n + k,), (step,))


@fill_doc
def solve_banded(l_and_u, ab, b, overwrite_ab=False, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` with ``a`` banded (``scipy.linalg.solve_banded``).

    Parameters
    ----------
    (l, u) : (int, int)
        Number of non-zero lower and upper diagonals.
    ab : (..., l + u + 1, M) array
        The band, ``ab[u + i - j, j] == a[i, j]``.
    b : (..., M) or (..., M, K) array

    Returns
    -------
    {returns_x_solve}

    Raises
    ------
    ValueError for shapes; LinAlgError("singular matrix") for an exact zero
    pivot (SciPy's ?gbsv/?gtsv info).

    Notes
    -----
    ``l == u == 1``: the tridiagonal solver (``_solve_kernels.gtsv``, as
    SciPy uses ?gtsv); ``l <= 31``: a banded LU with partial pivoting, one
    warp per system (``_banded``, ?gbsv's algorithm), O(M (l + u)) memory;
    wider bands: expanded to dense and LU on cuSOLVER (capped, see
    ``_dense_band_check``). No condition warning, as SciPy.
    """
    a1 = asarray_validated(ab, check_finite, "ab")
    b1 = asarray_validated(b, check_finite, "b")
    (nlower, nupper) = l_and_u
    nlower, nupper = int(nlower), int(nupper)
    if a1.ndim < 2:
        raise ValueError("shapes of ab and b are not compatible.")
    b_core = 2 if b1.ndim >= 2 else 1
    if b1.ndim == 0 or a1.shape[-1] != b1.shape[-b_core]:
        raise ValueError("shapes of ab and b are not compatible.")
    if nlower + nupper + 1 != a1.shape[-2]:
        raise ValueError(f"invalid values for the number of lower and upper "
                         f"diagonals: l+u+1 ({nlower + nupper + 1}) does not equal "
                         f"ab.shape[0] ({a1.shape[-2]})")
    dt = lapack_dtype(a1.dtype, b1.dtype)
    n = a1.shape[-1]
    batch = tuple(numpy.broadcast_shapes(a1.shape[:-2], b1.shape[:-b_core]))
    if batch and int(numpy.prod(batch, dtype=numpy.int64)) == 0:
        raise ValueError("`_solve_banded` does not support zero-size batches.")
    b2 = b1 if b_core == 2 else b1.reshape(b1.shape + (1,))
    k = b2.shape[-1]
    out_shape = batch + ((n, k) if b_core == 2 else (n,))
    if b1.size == 0:
        return gp.empty(out_shape, dt)
    a1 = a1.astype(dt, copy=False)
    b2 = b2.astype(dt, copy=False)
    if n == 1:   # SciPy divides by the diagonal entry (no singular check)
        return (b2 / a1[..., nupper:nupper + 1, :]).reshape(out_shape).astype(dt, copy=False)
    a3 = _stack(_broadcast(a1, batch + a1.shape[-2:]), a1.shape[-2:])
    b3 = _stack(_broadcast(b2, batch + (n, k)), (n, k))
    if nlower == nupper == 1:
        du = gp.zeros(a3.shape[:1] + (n,), dt)
        du[:, :n - 1] = a3[:, 0, 1:]
        dl = gp.zeros(a3.shape[:1] + (n,), dt)
        dl[:, :n - 1] = a3[:, 2, :n - 1]
        x, info = _sk.gtsv(dl, gp.ascontiguousarray(a3[:, 1, :]), du, b3, 0)
    elif nlower <= _banded.MAX_KL:
        x, info = _banded.gbsv(a3, nlower, nupper, b3)
    else:
        _dense_band_check("solve_banded", n, a3.shape[0], dt)
        dense = gp.stack([_banded_to_dense(a3[s], nlower, nupper, n)
                          for s in range(a3.shape[0])])
        lu3, piv3, info = _lu_batched(dense)
        x = gp.empty((a3.shape[0], n, k), dt)
        d = _dense()
        for s in range(a3.shape[0]):
            xs = b3[s].astype(dt, order="F", copy=True)
            d.getrs(lu3[s].astype(dt, order="F", copy=False),
                    piv3[s].astype(numpy.int64) + 1, xs, d.OP_N)
            x[s] = xs
    if (info.get() > 0).any():
        raise LinAlgError("singular matrix")
    return x.reshape(out_shape)


_DENSE_BAND_LIMIT = 1 << 31


def _dense_band_check(name, n, nmat, dt):
    """MemoryError when the dense expansion of a wide band would pass
    ``_DENSE_BAND_LIMIT`` bytes (the banded kernels need l <= 31)."""
    nbytes = int(nmat) * n * n * numpy.dtype(dt).itemsize
    if nbytes > _DENSE_BAND_LIMIT:
        raise MemoryError(
            f"gpuscipy.linalg.{name}: this band is solved by expanding it to "
            f"{nmat} dense {n}x{n} matrices ({nbytes} bytes), above the "
            f"{_DENSE_BAND_LIMIT}-byte limit of that route; use fewer/narrower "
            f"bands (the banded kernel needs at most {_banded.MAX_KL} lower "
            f"diagonals) or a sparse solver.")


def _hband_dense(a3, lower, name):
    """Dense (B, n, n) Hermitian-band matrices (one triangle filled) of a
    (B, u + 1, n) stack in SciPy's ?pbtrf storage, within the size cap."""
    n = a3.shape[-1]
    u = a3.shape[-2] - 1
    _dense_band_check(name, n, a3.shape[0], a3.dtype)
    lo, up = (u, 0) if lower else (0, u)
    return gp.stack([_banded_to_dense(a3[s], lo, up, n) for s in range(a3.shape[0])])


@fill_doc
def solveh_banded(ab, b, overwrite_ab=False, overwrite_b=False, lower=False,
                  check_finite=True):
    """Solve ``a x = b`` with ``a`` Hermitian positive definite banded
    (``scipy.linalg.solveh_banded``).

    Parameters
    ----------
    ab : (..., u + 1, M) array
        SciPy's storage: upper ``ab[u + i - j, j] == a[i, j]`` (i <= j) or,
        with ``lower``, ``ab[i - j, j] == a[i, j]`` (i >= j).
    b : (..., M) or (..., M, K) array

    Returns
    -------
    {returns_x_solve}

    Raises
    ------
    ValueError for shapes; LinAlgError("%dth leading minor not positive
    definite") as SciPy; MemoryError past the dense-expansion cap.

    Notes
    -----
    The band is expanded to dense and factored by Cholesky (the warp kernel
    for M <= 32, cuSOLVER potrf/potrs otherwise): O(M^2) memory, capped at
    ``_DENSE_BAND_LIMIT`` bytes. No condition warning, as SciPy.
    """
    a1 = asarray_validated(ab, check_finite, "ab")
    b1 = asarray_validated(b, check_finite, "b")
    if a1.ndim < 2:
        raise ValueError("shapes of ab and b are not compatible.")
    b_core = 2 if b1.ndim >= 2 else 1
    if b1.ndim == 0 or a1.shape[-1] != b1.shape[-b_core]:
        raise ValueError("shapes of ab and b are not compatible.")
    dt = lapack_dtype(a1.dtype, b1.dtype)
    n = a1.shape[-1]
    batch = tuple(numpy.broadcast_shapes(a1.shape[:-2], b1.shape[:-b_core]))
    if batch and int(numpy.prod(batch, dtype=numpy.int64)) == 0:
        raise ValueError("`solveh_banded` does not support zero-size batches.")
    out_shape = batch + b1.shape[-b_core:]
    if b1.size == 0:
        return gp.empty(out_shape, dt)
    a3 = _stack(_broadcast(a1.astype(dt, copy=False), batch + a1.shape[-2:]), a1.shape[-2:])
    dense = _hband_dense(a3, lower, "solveh_banded")
    c, info = _cholesky(dense, lower)
    info_h = info.get().reshape(-1)
    if (info_h > 0).any():
        raise LinAlgError(f"{int(info_h[info_h > 0][0])}th leading minor not positive "
                          "definite")
    b2 = b1.astype(dt, copy=False)
    x = cho_solve((c.reshape(batch + (n, n)), lower), b2, check_finite=False)
    return x.reshape(out_shape)


@fill_doc
def cholesky_banded(ab, overwrite_ab=False, lower=False, check_finite=True):
    """Cholesky factor of a Hermitian positive definite banded matrix.

    Parameters
    ----------
    ab : array_like, shape (..., u + 1, M)
        The matrix in LAPACK upper band storage, ``ab[u + i - j, j] ==
        a[i, j]`` for ``i <= j`` (or, with ``lower``, ``ab[i - j, j] ==
        a[i, j]`` for ``i >= j``). Leading axes are a batch.
    overwrite_ab : bool, optional
        Accepted for SciPy compatibility; ``ab`` is never overwritten.
    lower : bool, optional
        ``ab`` holds the lower band (default: upper).
    {check_finite}

    Returns
    -------
    cb : gpuscipy_core.ndarray, shape of ``ab``
        The factor ``U`` (``a = U^H U``) or ``L`` (``a = L L^H``) in the
        same band storage; float32, float64, complex64 or complex128. The
        corner of the storage outside the matrix keeps ``ab``'s values, as
        LAPACK's ``?pbtrf``.

    Raises
    ------
    ValueError
        ``ab`` has fewer than 2 dimensions; inf or NaN with
        ``check_finite``; a zero-size batch.
    LinAlgError
        The matrix is not positive definite ("k-th leading minor not
        positive definite").
    MemoryError
        The dense expansion (below) would not fit in device memory.

    Notes
    -----
    The band is expanded to a dense Hermitian matrix on the device and
    factored as in :func:`cholesky` (one warp for ``M <= 32``, else
    cuSOLVER ``cusolverDnXpotrf``); the band of the factor is then copied
    back into band storage. The ``info`` array is read back once.

    Differences from SciPy: memory and time are those of the dense
    ``M x M`` factorization, not ``O(M u)`` as LAPACK's ``?pbtrf``.
    """
    a1 = asarray_validated(ab, check_finite, "ab")
    dt = lapack_dtype(a1.dtype)
    a1 = a1.astype(dt, copy=False)
    if a1.ndim > 2:   # SciPy's batching: one factorization per band
        return _over_batch("cholesky_banded", [a1], [2],
                           lambda x: cholesky_banded(x, lower=lower, check_finite=False))
    if a1.ndim < 2:
        raise ValueError("expected a 2-D band (u + 1, M)")
    if a1.size == 0:
        return gp.empty(a1.shape, dt)
    n = a1.shape[-1]
    u = a1.shape[0] - 1
    _dense_band_check("cholesky_banded", n, 1, dt)
    dense = _banded_to_dense(a1, u, 0, n) if lower else _banded_to_dense(a1, 0, u, n)
    c, info = _cholesky(dense, lower)
    info_h = info.get().reshape(-1)
    if (info_h > 0).any():
        raise LinAlgError(f"{int(info_h[info_h > 0][0])}-th leading minor not "
                          "positive definite")
    # SciPy returns ?pbtrf's array: the corner outside the matrix (upper:
    # ab[r, :u - r]; lower: ab[r, n - r:]) keeps the input's values
    out = a1.copy()
    for r in range(u + 1):
        dgn = (r - u) if not lower else -r   # j - i for upper rows, i - j lower
        if lower:
            length = n - r
            out[r, :length] = _diag_view(c, -r)
        else:
            length = n + dgn
            out[r, -dgn:] = _diag_view(c, -dgn)
        del length
    return out


@fill_doc
def cho_solve_banded(cb_and_lower, b, overwrite_b=False, check_finite=True):
    """Solve ``a x = b`` given the banded Cholesky factor of ``a``.

    Parameters
    ----------
    cb_and_lower : tuple (cb, lower)
        ``cb``, shape (..., u + 1, M): :func:`cholesky_banded`'s factor in
        band storage; ``lower``: whether it is the lower factor.
    b : array_like, shape (..., M) or (..., M, K)
        Right-hand side.
    {overwrite_b}
    {check_finite}

    Returns
    -------
    {returns_x_solve}

    Raises
    ------
    ValueError
        ``cb`` and ``b`` do not match in ``M``; inf or NaN with
        ``check_finite``; a zero-size batch.
    MemoryError
        The dense expansion of the factor would not fit in device memory.

    Notes
    -----
    The factor is expanded to a dense triangular matrix on the device and
    the system solved as in :func:`cho_solve` (cuSOLVER
    ``cusolverDnXpotrs``). Leading axes are handled as SciPy's batching,
    one solve per slice.

    Differences from SciPy: memory and time are those of the dense
    ``M x M`` solve, not ``O(M u)`` as LAPACK's ``?pbtrs``.
    """
    cb, lower = cb_and_lower
    c1 = asarray_validated(cb, check_finite, "cb")
    b1 = asarray_validated(b, check_finite, "b")
    b_core = 2 if b1.ndim >= 2 else 1
    if c1.ndim > 2 or b1.ndim > b_core:   # SciPy's batching: one solve per slice
        return _over_batch("_cho_solve_banded", [c1, b1], [2, b_core],
                           lambda c_, b_: cho_solve_banded((c_, lower), b_,
                                                           check_finite=False))
    if c1.shape[-1] != b1.shape[0]:
        raise ValueError("shapes of cb and b are not compatible.")
    dt = lapack_dtype(c1.dtype, b1.dtype)
    n = c1.shape[-1]
    if b1.size == 0:
        return gp.empty(b1.shape, dt)
    u = c1.shape[0] - 1
    c1 = c1.astype(dt, copy=False)
    _dense_band_check("cho_solve_banded", n, 1, dt)
    c = _banded_to_dense(c1, u, 0, n) if lower else _banded_to_dense(c1, 0, u, n)
    return cho_solve((gp.ascontiguousarray(c), lower), b1.astype(dt), check_finite=False)
