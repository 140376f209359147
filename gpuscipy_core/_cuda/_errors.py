"""Errors of the CUDA layer: every failing driver call names itself."""

from cuda.bindings import driver

from .._errors import GPUError

__all__ = ["GPUError", "CUDAError", "check"]


class CUDAError(GPUError):
    """A CUDA driver call failed.

    Attributes
    ----------
    call : str
        The driver function, e.g. ``"cuMemAllocFromPoolAsync"``.
    status : int
        The ``CUresult`` value.
    name : str
        CUDA's name of the error, e.g. ``"CUDA_ERROR_OUT_OF_MEMORY"``.
    """

    def __init__(self, call, status):
        self.call = call
        self.status = int(status)
        try:
            self.name = driver.CUresult(self.status).name
        except ValueError:
            self.name = f"CUresult {self.status}"
        err, text = driver.cuGetErrorString(self.status)
        text = text.decode() if err == driver.CUresult.CUDA_SUCCESS and text else ""
        super().__init__(f"{call} failed: {self.name}" + (f" ({text})" if text else ""))


def check(result, call):
    """Unwrap a ``cuda.bindings.driver`` result tuple, raising CUDAError.

    Returns None, the single value, or a tuple of values.
    """
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        raise CUDAError(call, err)
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]
