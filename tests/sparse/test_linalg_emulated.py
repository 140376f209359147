"""test_linalg_gpu.py's tests on the CPU through the host emulation."""

import pytest

from . import _emulate
from . import test_linalg_gpu as G


@pytest.fixture(autouse=True)
def emulated(monkeypatch):
    _emulate.install(monkeypatch)
    gp = _emulate.install_linalg(monkeypatch)
    monkeypatch.setattr(G, "gp", gp)


for _name in dir(G):
    if _name.startswith("test_"):
        globals()[_name] = getattr(G, _name)
del _name
