"""NVIDIA's math libraries, bound once for the whole project.

Modules
-------
cublas, cusolver, cufft, cusparse, curand, cudss
    Thin Cython bindings: each function under its exact C name
    (``cusolver.cusolverDnXgetrf(...)``), the enum constants under their C
    names (``cublas.CUBLAS_OP_N``). Importing ``gpuscipy_core.libs`` (or one of
    these modules) loads no shared library; the first call of a function
    loads its library with ``cuda.pathfinder`` and resolves the symbol.

Conventions
-----------
- Handles, descriptors, device and host pointers are Python ints; enums
  are ints; C scalars are Python ints/floats.
- Output scalars that the C API writes through a pointer (a created handle,
  a buffer or work size, a version, a host ``info``) are returned, a tuple
  in C order when there are several. Input integer arrays
  (``cufftMakePlanMany64``'s ``n``) take a Python sequence or None (NULL).
- Host-pointer-mode scalars (``alpha``, ``beta``) are host addresses, e.g.
  ``numpy.array(1.0).ctypes.data`` kept alive across the call.
- A status other than success raises a ``LibraryError`` subclass naming the
  library, the call and the status.

Handles
-------
get_handle(library)
    The handle of ``"cublas"``, ``"cusolver"``, ``"cusparse"`` or ``"cudss"``
    for the current device and thread, bound to the current stream.

Data types
----------
CUDA_R_16F, CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F, ... and
cuda_data_type(dtype).

Errors
------
LibraryError, CUBLASError, CUSOLVERError, CUFFTError, CUSPARSEError,
CURANDError, CUDSSError
"""

import importlib

from ._errors import (LibraryError, CUBLASError, CUSOLVERError, CUFFTError,
                      CUSPARSEError, CURANDError, CUDSSError)
from ._handles import get_handle
from ._loader import LibraryNotFoundError, SymbolNotFoundError
from ._types import (CUDA_R_16F, CUDA_C_16F, CUDA_R_16BF, CUDA_C_16BF, CUDA_R_32F,
                     CUDA_C_32F, CUDA_R_64F, CUDA_C_64F, CUDA_R_8I, CUDA_C_8I, CUDA_R_8U,
                     CUDA_C_8U, CUDA_R_16I, CUDA_C_16I, CUDA_R_16U, CUDA_C_16U, CUDA_R_32I,
                     CUDA_C_32I, CUDA_R_32U, CUDA_C_32U, CUDA_R_64I, CUDA_C_64I, CUDA_R_64U,
                     CUDA_C_64U, MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL, cuda_data_type)

_MODULES = ("cublas", "cusolver", "cufft", "cusparse", "curand", "cudss")

__all__ = ["cublas", "cusolver", "cufft", "cusparse", "curand", "cudss",
           "LibraryError", "CUBLASError", "CUSOLVERError", "CUFFTError",
           "CUSPARSEError", "CURANDError", "CUDSSError", "LibraryNotFoundError",
           "SymbolNotFoundError", "get_handle",
           "CUDA_R_16F", "CUDA_C_16F", "CUDA_R_16BF", "CUDA_C_16BF", "CUDA_R_32F",
           "CUDA_C_32F", "CUDA_R_64F", "CUDA_C_64F", "CUDA_R_8I", "CUDA_C_8I", "CUDA_R_8U",
           "CUDA_C_8U", "CUDA_R_16I", "CUDA_C_16I", "CUDA_R_16U", "CUDA_C_16U", "CUDA_R_32I",
           "CUDA_C_32I", "CUDA_R_32U", "CUDA_C_32U", "CUDA_R_64I", "CUDA_C_64I", "CUDA_R_64U",
           "CUDA_C_64U", "MAJOR_VERSION", "MINOR_VERSION", "PATCH_LEVEL", "cuda_data_type"]


from .._public import set_home as _set_home  # noqa: E402
_set_home(globals(), __name__)
del _set_home


def __getattr__(name):
    # The binding modules are imported on first access (they load no library
    # either way; this keeps ``import gpuscipy_core.libs`` cheap).
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_MODULES))
