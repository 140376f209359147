"""test_construct_gpu.py's tests on the CPU through the host emulation of
``_emulate.py`` (NumPy for the device arrays; NumPy's ``Generator`` for
``gpuscipy_core.random``, which has the same ``choice``/``integers``/
``random`` calls)."""

import types

import numpy as np
import pytest

from . import _emulate
from . import test_construct_gpu as G


@pytest.fixture(autouse=True)
def emulated(monkeypatch):
    from gpuscipy.sparse import _construct
    gp = _emulate.install(monkeypatch)
    monkeypatch.setattr(_construct, "gp", gp)
    monkeypatch.setattr(_construct, "_gprandom",
                        types.SimpleNamespace(Generator=np.random.Generator,
                                              default_rng=np.random.default_rng))
    monkeypatch.setattr(G, "gp", gp)


for _name in dir(G):
    if _name.startswith("test_"):
        globals()[_name] = getattr(G, _name)
del _name
