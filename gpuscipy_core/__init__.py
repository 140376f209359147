"""gpuscipy_core: the GPU array core of gpuscipy (what NumPy is to SciPy).

Arrays
------
ndarray, asarray, array, asnumpy, ascontiguousarray, asfortranarray,
from_dlpack, copy

Creation
--------
empty, zeros, ones, full, empty_like, zeros_like, ones_like, full_like,
arange, linspace, logspace, eye, identity, diag

Elementwise
-----------
Every NumPy ufunc listed in ``gpuscipy_core.ufunc_names`` (add, subtract,
..., sin, exp, isnan, maximum, ...), plus where, clip, round/around, real,
imag, conj, angle. NumPy's type promotion (NEP 50) decides result dtypes.

Reductions
----------
sum, prod, min/amin, max/amax, argmin, argmax, mean, var, std, any, all,
nansum, nanprod, nanmean, nanmin, nanmax, nanvar, nanstd, count_nonzero, ptp

Kernels
-------
ElementwiseKernel, ReductionKernel, RawKernel, RawModule

Device
------
The ``cuda`` submodule: Device, Stream, Event, memory pool, pinned memory.
Importing gpuscipy_core never needs a GPU; the first device use does, and
raises ``RuntimeError`` when none is present.
"""

__version__ = "0.1.0"

import numpy as _numpy
from numpy import (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                   float16, float32, float64, complex64, complex128, dtype,
                   result_type, can_cast, promote_types, finfo, iinfo,
                   e, pi, inf, nan, newaxis)

from . import cuda
from ._cuda._device import is_available
from ._cuda._memory import get_default_memory_pool
from ._elementwise import broadcast_shapes, ufunc
from ._kernel._ufunc_names import UFUNC_NAMES as ufunc_names
from ._kernel._user_kernels import ElementwiseKernel, RawKernel, RawModule
from ._kernel._reduction_kernel import ReductionKernel
from ._ndarray import ndarray
from ._routines._creation import *  # noqa: F401,F403
from ._routines._creation import __all__ as _creation_all
from ._routines._math import *  # noqa: F401,F403
from ._routines._math import __all__ as _math_all
from ._routines._reduction import *  # noqa: F401,F403
from ._routines._reduction import __all__ as _reduction_all
from ._routines._ufuncs import *  # noqa: F401,F403
from ._routines._ufuncs import __all__ as _ufunc_all

bool = bool_  # noqa: A001  (NumPy 2 spells it numpy.bool)

__all__ = (["ndarray", "ufunc", "cuda", "is_available", "get_default_memory_pool",
            "broadcast_shapes", "ElementwiseKernel", "ReductionKernel", "RawKernel",
            "RawModule", "bool_", "bool", "int8", "int16", "int32", "int64",
            "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64",
            "complex64", "complex128", "dtype", "result_type", "can_cast",
            "promote_types", "finfo", "iinfo", "e", "pi", "inf", "nan", "newaxis"]
           + _creation_all + _math_all + _reduction_all + _ufunc_all)

# Public objects report their public home.
for _n in _creation_all + _math_all + _reduction_all:
    _o = globals().get(_n)
    if callable(_o) and getattr(_o, "__module__", "").startswith("gpuscipy_core._"):
        try:
            _o.__module__ = "gpuscipy_core"
        except (AttributeError, TypeError):
            pass
del _n, _o
