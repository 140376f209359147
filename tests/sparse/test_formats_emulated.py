"""test_formats_gpu.py's tests on the CPU through the host emulation of
``_emulate.py`` (NumPy for the device arrays, the kernel's NumPy mirror,
SciPy for cuSPARSE)."""

from . import _emulate, test_formats_gpu

globals().update(_emulate.twin(test_formats_gpu))
