"""Sparse arrays on the GPU (``scipy.sparse``), in progress.

Built so far: the COO, CSR and CSC formats as ``*_array`` and ``*_matrix``
with SciPy's constructors (dense, sparse -- ours or SciPy's --, shape,
``(data, (row, col))``, ``(data, indices, indptr)``), ``.get()`` to SciPy,
conversions, canonical forms, arithmetic, comparisons, products (cuSPARSE
SpMV, SpMM, SpGEMM), indexing and assignment, reductions (sum, mean,
min/max, argmin/argmax, diagonal, count_nonzero), the construction functions
(eye, diags, random, kron, hstack/vstack/bmat/block_diag, tril/triu, find,
save_npz/load_npz) and, in :mod:`gpuscipy.sparse.linalg`, ``LinearOperator``
and ``cg``. Stored arrays are device arrays (:mod:`gpuscipy_core`).

Not yet: dia, bsr, lil, dok; most of ``linalg``; ``csgraph``.
"""

import importlib as _importlib

# The modules whose ``__all__`` make up the namespace (one per line).
_PARTS = [
    "_base",
    "_coo",
    "_compressed",
    "_construct",
    "_extract",
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

_SUBMODULES = ("linalg",)


def __getattr__(name):
    if name in _SUBMODULES:       # loaded on first use, as SciPy's
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
