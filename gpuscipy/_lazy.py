"""Modules imported on first attribute access.

``scipy.signal`` takes most of a second to import (it pulls in
``scipy.stats``, ``scipy.optimize`` and the array-API backends); gpuscipy
needs it only for host-side helpers (filter design, windows, steady-state
``zi``), so those modules reach it through :class:`LazyModule` and
``import gpuscipy.signal`` does not pay for it.
"""

import importlib

__all__ = ["LazyModule", "scipy_signal"]


class LazyModule:
    """Stands for the module ``name``; imports it at the first attribute
    access and forwards every attribute to it."""

    __slots__ = ("_name", "_module")

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attr):
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self):
        state = "imported" if self._module is not None else "not imported yet"
        return f"<LazyModule {self._name!r} ({state})>"


scipy_signal = LazyModule("scipy.signal")
