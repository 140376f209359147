"""Sparse linear algebra (``scipy.sparse.linalg``), in progress:
``LinearOperator``, ``aslinearoperator``, ``cg``."""

from ._interface import LinearOperator, aslinearoperator
from ._isolve import cg

__all__ = ["LinearOperator", "aslinearoperator", "cg"]

for _n in __all__:
    _o = globals()[_n]
    if getattr(_o, "__module__", "").startswith(__name__ + "._"):
        _o.__module__ = __name__
del _n, _o
