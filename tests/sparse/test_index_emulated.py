"""test_index_gpu.py's tests on the CPU through the host emulation of
``_emulate.py`` (NumPy for the device arrays, the kernels' NumPy mirrors)."""

from . import _emulate, test_index_gpu

globals().update(_emulate.twin(test_index_gpu))
