"""Iterative solvers (``scipy.sparse.linalg``): ``cg`` so far.

State stays on the device: the scalars of an iteration (``rho``, ``p.q``)
are 0-d device arrays consumed by fused updates (``_isolve_kernels``), and
the residual test ``||r|| < max(atol, rtol ||b||)`` is evaluated on the
device each iteration into a ``live`` flag that freezes the iterate once it
passes. The host reads that flag every ``CHECK_EVERY`` iterations (one
synchronisation), so a solve that converges at iteration i costs at most
``CHECK_EVERY - 1`` idle iterations and returns SciPy's ``x`` and ``info``.
With a ``callback`` the flag is read every iteration, so the callback runs
exactly as often as SciPy's.

Reference: M. R. Hestenes and E. Stiefel, "Methods of conjugate gradients
for solving linear systems", J. Res. NBS 49(6), 1952 (CG, preconditioned
as in Saad, *Iterative Methods for Sparse Linear Systems*, 2nd ed., Alg. 9.1).
"""

import numpy

import gpuscipy_core as gp

from . import _isolve_kernels as K
from .._sputils import to_device
from ._interface import IdentityOperator, aslinearoperator

__all__ = ["cg"]

CHECK_EVERY = 8


def _make_system(A, M, x0, b):
    """(A, M, x, b, postprocess) as SciPy's ``_make_system``: operators,
    device vectors in the solve dtype (float64 for integer inputs)."""
    A = aslinearoperator(A)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"expected square matrix, but got shape={A.shape}")
    N = A.shape[0]
    b = to_device(b, name="b")
    if not (b.shape == (N, 1) or b.shape == (N,)):
        raise ValueError(f"shapes of A {A.shape} and b {b.shape} are incompatible")
    if b.dtype.char not in "fdFD":
        b = b.astype(numpy.float64)
    dt = A.dtype if A.dtype is not None else b.dtype
    if dt.char not in "fdFD":
        dt = numpy.dtype(numpy.float64)
    dt = numpy.result_type(dt, b.dtype)
    b = gp.ascontiguousarray(b.astype(dt, copy=False).reshape(-1))
    if M is None:
        M = IdentityOperator(shape=A.shape, dtype=dt)
    else:
        M = aslinearoperator(M)
        if M.shape != A.shape:
            raise ValueError(f"matrix and preconditioner have different shapes "
                             f"{A.shape} and {M.shape}")
    if x0 is None:
        x = gp.zeros(N, dt)
    elif isinstance(x0, str):
        if x0 == "Mb":
            x = M.matvec(b).astype(dt).reshape(-1)
        else:
            raise ValueError(f"x0 must be an array or 'Mb', got {x0!r}")
    else:
        x = to_device(x0, name="x0")
        if not (x.shape == (N, 1) or x.shape == (N,)):
            raise ValueError(f"shapes of A {A.shape} and x0 {x.shape} are incompatible")
        x = gp.ascontiguousarray(x.astype(dt).reshape(-1))
    return A, M, x, b


def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None):
    """Solve ``A x = b`` by (preconditioned) conjugate gradients.

    Parameters
    ----------
    A : sparse array, dense device array or LinearOperator, shape (N, N)
        Hermitian positive definite.
    b : array, shape (N,) or (N, 1)
    x0 : array, shape (N,), or 'Mb', optional
        Starting guess (zeros by default).
    rtol, atol : float
        Stop when ``||r|| < max(atol, rtol * ||b||)``.
    maxiter : int, optional
        Default ``10 * N``.
    M : sparse array, dense array or LinearOperator, optional
        Approximates ``A^-1`` (applied to the residual).
    callback : callable(xk), optional
        Called after each iteration with the current iterate (a device array).

    Returns
    -------
    x : device array, shape (N,)
        In ``A``'s and ``b``'s common floating-point dtype.
    info : int
        0 converged; ``maxiter`` when it did not within ``maxiter`` iterations.

    Raises
    ------
    ValueError
        Non-square ``A``, incompatible shapes of ``b``, ``x0``, ``M``.
    """
    A, M, x, b = _make_system(A, M, x0, b)
    bnrm2 = float(gp.sqrt(gp.real(gp.vdot(b, b))))
    if bnrm2 == 0:
        return b, 0
    n = b.shape[0]
    if maxiter is None:
        maxiter = n * 10
    tol = max(float(atol), float(rtol) * bnrm2)
    dt = x.dtype
    r = b - A.matvec(x) if bool(gp.any(x != 0)) else b.copy()
    p = gp.zeros(n, dt)
    rho_old = gp.ones((), dt)
    every = 1 if callback is not None else CHECK_EVERY
    first = gp.asarray(numpy.array(True))
    not_first = gp.asarray(numpy.array(False))
    live = K.residual_live(r, tol)
    live_start = live          # the test at the start of the last iteration run
    for it in range(maxiter):
        if it % every == 0 and not bool(live):
            return x, 0
        live_start = live
        z = M.matvec(r)
        rho = gp.vdot(r, z)
        K.cg_direction(p, z, rho, rho_old, live, first if it == 0 else not_first)
        q = A.matvec(p)
        pq = gp.vdot(p, q)
        K.cg_step(x, r, p, q, rho, pq, live)
        rho_old = rho
        if callback is not None:
            callback(x)
        live = K.residual_live(r, tol) & live
    # SciPy tests at the start of each iteration only: a residual that passes
    # after the last one still returns maxiter
    if not bool(live_start):
        return x, 0
    return x, maxiter
