"""Fused vector updates of the Krylov solvers (``gpuscipy_core.kernel``'s
``ElementwiseKernel``): the scalars of an iteration stay on the device (0-d
arrays read by every thread) and a ``live`` flag freezes the iterate once
the residual test has passed, so that the host needs to look only every few
iterations."""

import functools

import gpuscipy_core as gp
from gpuscipy_core.kernel import ElementwiseKernel

__all__ = ["cg_direction", "cg_step", "residual_live"]


@functools.lru_cache(maxsize=None)
def _direction():
    # p = z on the first iteration, z + (rho / rho_old) p after; frozen when not live
    return ElementwiseKernel(
        "T z, raw T rho, raw T rho_old, raw bool live, raw bool first", "T p",
        "if (live[0]) { p = first[0] ? z : z + (rho[0] / rho_old[0]) * p; }",
        "gs_sparse_cg_direction")


@functools.lru_cache(maxsize=None)
def _step():
    # x += alpha p, r -= alpha q with alpha = rho / (p . q); frozen when not live
    return ElementwiseKernel(
        "T p, T q, raw T rho, raw T pq, raw bool live", "T x, T r",
        "if (live[0]) { const T a = rho[0] / pq[0]; x = x + a * p; r = r - a * q; }",
        "gs_sparse_cg_step")


def cg_direction(p, z, rho, rho_old, live, first):
    """Update the search direction ``p`` in place."""
    _direction()(z, rho, rho_old, live, first, p)


def cg_step(x, r, p, q, rho, pq, live):
    """Update the iterate ``x`` and residual ``r`` in place."""
    _step()(p, q, rho, pq, live, x, r)


def residual_live(r, tol):
    """0-d device bool: ``not (||r|| < tol)`` (NaN keeps iterating, as SciPy)."""
    return ~(gp.sqrt(gp.real(gp.vdot(r, r))) < tol)
