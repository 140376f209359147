"""The base of gpuscipy_core's GPU errors (no imports: every layer uses it).

``GPUError`` is the base of every error a GPU call of gpuscipy_core raises:
``cuda.CUDAError`` (the driver), ``cuda.NVRTCError`` (kernel compilation)
and ``libs.LibraryError`` (cuBLAS, cuSOLVER, cuFFT, cuSPARSE, cuRAND,
cuDSS). It is a ``RuntimeError``, as each of them was.
"""

__all__ = ["GPUError"]


class GPUError(RuntimeError):
    """Base of the errors of the CUDA driver, NVRTC and the vendor libraries.

    ``except gpuscipy_core.cuda.GPUError`` catches any of them; each is
    also a ``RuntimeError``.
    """
