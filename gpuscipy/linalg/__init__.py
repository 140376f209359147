"""gpuscipy.linalg: ``scipy.linalg`` on the GPU.

SciPy's names, signatures, defaults and errors; inputs are device arrays (or
anything ``gpuscipy_core.asarray`` accepts) and results are device arrays.
Dense factorizations run on cuSOLVER and cuBLAS (``gpuscipy_core.libs``);
small batched systems on kernels of our own.

Solvers and factorizations (``_solvers``, ``_decomp_lu``, ``_decomp_cholesky``):
    solve, solve_triangular, solve_banded, solveh_banded, inv, det, lu,
    lu_factor, lu_solve, cholesky, cho_factor, cho_solve, cholesky_banded,
    cho_solve_banded
Decompositions and matrix functions (``_decomp``, ``_matfuncs``):
    qr, rq, svd, svdvals, eigh, eigvalsh, eigh_tridiagonal,
    eigvalsh_tridiagonal, eig, eigvals, lstsq, pinv, pinvh, expm,
    null_space, orth, polar, orthogonal_procrustes, subspace_angles
Special and structured matrices (``_special_matrices``, ``_structured``):
    khatri_rao, block_diag, toeplitz, hankel, circulant, companion,
    convolution_matrix, dft, fiedler, hadamard, helmert, hilbert, invhilbert,
    leslie, pascal, invpascal, issymmetric, ishermitian, bandwidth, norm,
    matmul_toeplitz, solve_toeplitz, solve_circulant
Errors: LinAlgError, LinAlgWarning (SciPy's own classes).
"""

from ._misc import LinAlgError, LinAlgWarning
from . import _solvers, _decomp, _special_matrices

__all__ = ["LinAlgError", "LinAlgWarning"]
for _m in (_solvers, _decomp, _special_matrices):
    for _n in _m.__all__:
        _o = globals()[_n] = getattr(_m, _n)
        __all__.append(_n)
        # public objects report their public home (SciPy's error classes keep theirs)
        if getattr(_o, "__module__", "").startswith(__name__ + "._"):
            _o.__module__ = __name__
del _m, _n, _o
