"""NumPy's ``numpy.lib`` counterparts that gpuscipy builds on.

``stride_tricks.as_strided``
    A view with any shape and byte strides (NumPy's signature).
``all_finite(a, sync=True)``
    ``bool(isfinite(a).all())`` in one pass and one read back: the
    ``check_finite`` test of every SciPy function.
"""

from . import stride_tricks
from .stride_tricks import as_strided
from .._routines._reduction import all_finite

__all__ = ["stride_tricks", "as_strided", "all_finite"]

all_finite.__module__ = __name__
