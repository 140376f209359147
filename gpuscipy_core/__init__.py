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

Indexing
--------
Advanced indexing (integer arrays, boolean masks, mixed with slices), take,
put, take_along_axis, put_along_axis, choose, nonzero, argwhere,
flatnonzero, where(cond), compress, extract, place, indices, ix_,
diag_indices, tril_indices, triu_indices, ravel_multi_index, unravel_index

Manipulation
------------
concatenate, stack, hstack, vstack, dstack, column_stack, split,
array_split, hsplit, vsplit, dsplit, pad, flip, fliplr, flipud, roll, rot90,
repeat, tile, expand_dims, squeeze, moveaxis, swapaxes, transpose, reshape,
ravel, broadcast_to, broadcast_arrays, diagonal, trace, tril, triu,
meshgrid, atleast_1d/2d/3d, copyto

Scans, sorting, counting
------------------------
cumsum, cumprod, nancumsum, nancumprod, diff, ediff1d, sort, argsort,
partition, argpartition, searchsorted, unique, lexsort, sort_complex,
bincount, histogram, histogram_bin_edges, digitize

Products (cuBLAS)
-----------------
matmul (``@``), dot, vdot, inner, outer, tensordot, einsum, kron

Random
------
``random.default_rng(seed)`` -> ``random.Generator`` on Philox4x32-10

Vendor libraries
----------------
``libs``: cuBLAS, cuSOLVER, cuFFT, cuSPARSE, cuRAND and cuDSS bindings and
per-thread handles (see docs/libs.md)

Kernels
-------
ElementwiseKernel, ReductionKernel, RawKernel, RawModule; the ``kernel``
submodule adds what gpuscipy's own modules use (``get_function``,
``launch``, ``read_source``, ``ctype``, ``device_limits``, the kernel cache)

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

from . import cuda, kernel
from ._cuda._device import is_available
from ._cuda._memory import get_default_memory_pool
from ._elementwise import broadcast_shapes, ufunc
from ._kernel._ufunc_names import UFUNC_NAMES as ufunc_names
from ._kernel._user_kernels import ElementwiseKernel, RawKernel, RawModule
from ._kernel._reduction_kernel import ReductionKernel
from ._ndarray import ndarray
from ._routines import _creation, _math, _reduction, _ufuncs
from ._routines import _indexing, _manipulation, _sorting, _scan, _compaction, _linalg
from . import random  # noqa: E402  (the Generator API)
from . import lib  # noqa: E402  (as_strided, all_finite)

_ROUTINE_MODULES = (_creation, _math, _reduction, _ufuncs, _indexing, _manipulation,
                    _sorting, _scan, _compaction, _linalg)
_routine_all = []
for _m in _ROUTINE_MODULES:
    for _n in _m.__all__:
        globals()[_n] = getattr(_m, _n)
    _routine_all += list(_m.__all__)
del _m

bool = bool_  # noqa: A001  (NumPy 2 spells it numpy.bool)

__all__ = (["ndarray", "ufunc", "cuda", "kernel", "is_available", "get_default_memory_pool",
            "broadcast_shapes", "ElementwiseKernel", "ReductionKernel", "RawKernel",
            "RawModule", "bool_", "bool", "int8", "int16", "int32", "int64",
            "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64",
            "complex64", "complex128", "dtype", "result_type", "can_cast",
            "promote_types", "finfo", "iinfo", "e", "pi", "inf", "nan", "newaxis",
            "random", "libs", "lib"]
           + _routine_all)

# Public objects report their public home.
from ._public import set_home as _set_home  # noqa: E402
_set_home(globals(), __name__)
del _set_home


def __getattr__(name):
    # ``gpuscipy_core.libs`` loads vendor libraries only when first used.
    if name == "libs":
        import importlib
        return importlib.import_module("gpuscipy_core.libs")
    raise AttributeError(f"module 'gpuscipy_core' has no attribute {name!r}")
