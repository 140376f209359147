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

import importlib as _importlib

# The modules whose ``__all__`` make up the namespace (one per line).
_PARTS = [
    "_base",
    "_coo",
    "_compressed",
]

__all__ = []
for _p in _PARTS:
    _m = _importlib.import_module(f"{__name__}.{_p}")
    for _n in _m.__all__:
        _o = globals()[_n] = getattr(_m, _n)
        __all__.append(_n)
        if getattr(_o, "__module__", "").startswith(__name__ + "._"):
            _o.__module__ = __name__
del _p, _m, _n, _o
