"""test_products_gpu.py's tests on the CPU through the host emulation of
``_emulate.py`` (NumPy for the device arrays, SciPy for cuSPARSE's SpGEMM)."""

from . import _emulate, test_products_gpu

globals().update(_emulate.twin(test_products_gpu))
