"""gpuscipy: SciPy on NVIDIA GPUs.

The SciPy mirror modules (signal, sparse, special, ndimage, linalg, fft)
build on :mod:`gpuscipy_core`, the GPU array core.
"""

__version__ = "0.1.0"
