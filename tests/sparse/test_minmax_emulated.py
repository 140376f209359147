"""test_minmax_gpu.py's tests on the CPU through the host emulation of
``_emulate.py`` (NumPy for the device arrays, the kernels' NumPy mirrors)."""

import pytest

from . import _emulate
from . import test_minmax_gpu as G


@pytest.fixture(autouse=True)
def emulated(monkeypatch):
    gp = _emulate.install(monkeypatch)
    monkeypatch.setattr(G, "gp", gp)


for _name in dir(G):
    if _name.startswith("test_"):
        globals()[_name] = getattr(G, _name)
del _name
