"""Errors of the vendor library layer: a failing call names library, call and status."""

from .._errors import GPUError

__all__ = ["LibraryError", "CUBLASError", "CUSOLVERError", "CUFFTError",
           "CUSPARSEError", "CURANDError", "CUDSSError", "STATUS_NAMES",
           "raise_status"]


def _names(prefix, pairs):
    return {value: prefix + name for name, value in pairs}


# Status enums of each library (values from the vendor headers; checked
# against them by tests/libs/test_prototypes.py when the headers are present).
STATUS_NAMES = {
    "cublas": _names("CUBLAS_STATUS_", [
        ("SUCCESS", 0), ("NOT_INITIALIZED", 1), ("ALLOC_FAILED", 3),
        ("INVALID_VALUE", 7), ("ARCH_MISMATCH", 8), ("MAPPING_ERROR", 11),
        ("EXECUTION_FAILED", 13), ("INTERNAL_ERROR", 14), ("NOT_SUPPORTED", 15),
        ("LICENSE_ERROR", 16)]),
    "cusolver": _names("CUSOLVER_STATUS_", [
        ("SUCCESS", 0), ("NOT_INITIALIZED", 1), ("ALLOC_FAILED", 2),
        ("INVALID_VALUE", 3), ("ARCH_MISMATCH", 4), ("MAPPING_ERROR", 5),
        ("EXECUTION_FAILED", 6), ("INTERNAL_ERROR", 7),
        ("MATRIX_TYPE_NOT_SUPPORTED", 8), ("NOT_SUPPORTED", 9), ("ZERO_PIVOT", 10),
        ("INVALID_LICENSE", 11), ("IRS_PARAMS_NOT_INITIALIZED", 12),
        ("IRS_PARAMS_INVALID", 13), ("IRS_PARAMS_INVALID_PREC", 14),
        ("IRS_PARAMS_INVALID_REFINE", 15), ("IRS_PARAMS_INVALID_MAXITER", 16),
        ("IRS_INTERNAL_ERROR", 20), ("IRS_NOT_SUPPORTED", 21),
        ("IRS_OUT_OF_RANGE", 22), ("IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES", 23),
        ("IRS_INFOS_NOT_INITIALIZED", 25), ("IRS_INFOS_NOT_DESTROYED", 26),
        ("IRS_MATRIX_SINGULAR", 30), ("INVALID_WORKSPACE", 31)]),
    "cufft": _names("CUFFT_", [
        ("SUCCESS", 0), ("INVALID_PLAN", 1), ("ALLOC_FAILED", 2),
        ("INVALID_TYPE", 3), ("INVALID_VALUE", 4), ("INTERNAL_ERROR", 5),
        ("EXEC_FAILED", 6), ("SETUP_FAILED", 7), ("INVALID_SIZE", 8),
        ("UNALIGNED_DATA", 9), ("INVALID_DEVICE", 11), ("NO_WORKSPACE", 13),
        ("NOT_IMPLEMENTED", 14), ("NOT_SUPPORTED", 16),
        ("MISSING_DEPENDENCY", 17), ("NVRTC_FAILURE", 18),
        ("NVJITLINK_FAILURE", 19), ("NVSHMEM_FAILURE", 20)]),
    "cusparse": _names("CUSPARSE_STATUS_", [
        ("SUCCESS", 0), ("NOT_INITIALIZED", 1), ("ALLOC_FAILED", 2),
        ("INVALID_VALUE", 3), ("ARCH_MISMATCH", 4), ("MAPPING_ERROR", 5),
        ("EXECUTION_FAILED", 6), ("INTERNAL_ERROR", 7),
        ("MATRIX_TYPE_NOT_SUPPORTED", 8), ("ZERO_PIVOT", 9), ("NOT_SUPPORTED", 10),
        ("INSUFFICIENT_RESOURCES", 11)]),
    "curand": _names("CURAND_STATUS_", [
        ("SUCCESS", 0), ("VERSION_MISMATCH", 100), ("NOT_INITIALIZED", 101),
        ("ALLOCATION_FAILED", 102), ("TYPE_ERROR", 103), ("OUT_OF_RANGE", 104),
        ("LENGTH_NOT_MULTIPLE", 105), ("DOUBLE_PRECISION_REQUIRED", 106),
        ("LAUNCH_FAILURE", 201), ("PREEXISTING_FAILURE", 202),
        ("INITIALIZATION_FAILED", 203), ("ARCH_MISMATCH", 204),
        ("INTERNAL_ERROR", 999)]),
    "cudss": _names("CUDSS_STATUS_", [
        ("SUCCESS", 0), ("NOT_INITIALIZED", 1), ("ALLOC_FAILED", 2),
        ("INVALID_VALUE", 3), ("NOT_SUPPORTED", 4), ("EXECUTION_FAILED", 5),
        ("INTERNAL_ERROR", 6), ("IR_FAILED", 7)]),
}


class LibraryError(GPUError):
    """A vendor library call returned a status other than success.

    Attributes
    ----------
    library : str
        ``"cublas"``, ``"cusolver"``, ``"cufft"``, ``"cusparse"``,
        ``"curand"`` or ``"cudss"``.
    call : str
        The C function, e.g. ``"cusolverDnXgetrf"``.
    status : int
        The status value the function returned.
    status_name : str
        The library's name of the status, e.g. ``"CUSOLVER_STATUS_INVALID_VALUE"``.
    """

    library = None

    def __init__(self, call, status, library=None):
        if library is not None:
            self.library = library
        self.call = call
        self.status = int(status)
        names = STATUS_NAMES.get(self.library, {})
        self.status_name = names.get(self.status,
                                     f"{(self.library or 'library').upper()}_STATUS_UNKNOWN")
        super().__init__(f"{call} failed: {self.status_name} ({self.status})")

    def __reduce__(self):
        return (type(self), (self.call, self.status, self.library))


class CUBLASError(LibraryError):
    """A cuBLAS call failed."""
    library = "cublas"


class CUSOLVERError(LibraryError):
    """A cuSOLVER call failed."""
    library = "cusolver"


class CUFFTError(LibraryError):
    """A cuFFT call failed."""
    library = "cufft"


class CUSPARSEError(LibraryError):
    """A cuSPARSE call failed."""
    library = "cusparse"


class CURANDError(LibraryError):
    """A cuRAND call failed."""
    library = "curand"


class CUDSSError(LibraryError):
    """A cuDSS call failed."""
    library = "cudss"


_CLASSES = {c.library: c for c in (CUBLASError, CUSOLVERError, CUFFTError,
                                   CUSPARSEError, CURANDError, CUDSSError)}


def raise_status(library, call, status):
    """Raise the error class of ``library`` for ``call`` returning ``status``."""
    raise _CLASSES[library](call, status)
