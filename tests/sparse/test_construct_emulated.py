"""test_construct_gpu.py's tests on the CPU through the host emulation of
``_emulate.py`` (NumPy for the device arrays; NumPy's ``Generator`` for
``gpuscipy_core.random``, which has the same ``choice``/``integers``/
``random`` calls)."""

from . import _emulate, test_construct_gpu

globals().update(_emulate.twin(test_construct_gpu))
