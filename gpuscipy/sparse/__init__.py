"""Sparse arrays on the GPU (``scipy.sparse``): the first slice.

Built so far: the COO, CSR and CSC formats as ``*_array`` and ``*_matrix``
with SciPy's constructors (dense, sparse -- ours or SciPy's --, shape,
``(data, (row, col))``, ``(data, indices, indptr)``), ``.get()`` to SciPy,
conversions, ``sum_duplicates``, ``sort_indices``, ``eliminate_zeros``,
``has_canonical_format``, ``transpose``, scalar arithmetic, ``+``/``-`` of
sparse arrays, products with dense vectors and matrices (cuSPARSE SpMV and
SpMM), ``sum``, ``mean``, ``diagonal``, ``trace``, ``count_nonzero``,
``getnnz``. Stored arrays are device arrays (:mod:`gpuscipy_core`).

Not yet: dia, bsr, lil, dok; sparse @ sparse; elementwise sparse products;
indexing; construction functions (eye, diags, random, hstack, ...);
``linalg`` and ``csgraph``.
"""

from ._base import (SparseEfficiencyWarning, SparseFormatError, issparse, isspmatrix,
                    sparray, spmatrix)
from ._compressed import (csc_array, csc_matrix, csr_array, csr_matrix, isspmatrix_csc,
                          isspmatrix_csr)
from ._coo import coo_array, coo_matrix, isspmatrix_coo

__all__ = ["coo_array", "coo_matrix", "csr_array", "csr_matrix", "csc_array",
           "csc_matrix", "issparse", "isspmatrix", "isspmatrix_coo", "isspmatrix_csr",
           "isspmatrix_csc", "sparray", "spmatrix", "SparseEfficiencyWarning",
           "SparseFormatError"]

for _n in __all__:
    _o = globals()[_n]
    if getattr(_o, "__module__", "").startswith(__name__ + "._"):
        _o.__module__ = __name__
del _n, _o
