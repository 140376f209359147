"""test_linalg_gpu.py's tests on the CPU through the host emulation."""

from . import _emulate, test_linalg_gpu

globals().update(_emulate.twin(test_linalg_gpu))
