"""The pipeline registry: modules register factories, the CLI finds them.

A pipeline module in ``gpuscipy.demo.pipelines`` registers a factory::

    from gpuscipy.demo import Pipeline, register

    @register("ndimage", title="Image filters on a 4096 x 4096 photograph")
    def build(options):
        return Pipeline(...)

:func:`discover` imports every submodule of the ``pipelines`` package (with
``pkgutil``), so a new module joins the demo without an edit to the frame.
A module that fails to import is reported, not fatal: the other pipelines
still run. Factories import heavy dependencies (``gpuscipy.signal``, data
sets) inside the factory, so registration never needs a GPU.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import traceback
from dataclasses import dataclass
from typing import Callable

__all__ = ["Entry", "register", "unregister", "discover", "entries", "get"]

_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_ENTRIES: dict[str, "Entry"] = {}


@dataclass(frozen=True)
class Entry:
    """A registered pipeline: its name, factory and catalogue text."""

    name: str
    factory: Callable
    title: str
    order: int
    module: str


def register(name: str, *, title: str = "", order: int = 100):
    """Register the decorated factory ``f(options) -> Pipeline`` as ``name``.

    Parameters
    ----------
    name : str
        Lower-case identifier used by ``--only`` (letters, digits, ``-``,
        ``_``).
    title : str
        One line for ``--list``.
    order : int
        Pipelines run by increasing order, then name.

    Raises
    ------
    ValueError
        If the name is malformed or taken by a factory of another module.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"pipeline name {name!r} must match {_NAME.pattern}")

    def decorate(factory):
        module = getattr(factory, "__module__", "?")
        old = _ENTRIES.get(name)
        if old is not None and old.module != module:
            raise ValueError(f"pipeline {name!r} is already registered by "
                             f"{old.module}")
        _ENTRIES[name] = Entry(name, factory, title, int(order), module)
        return factory

    return decorate


def unregister(name: str) -> None:
    """Remove a pipeline (tests register throw-away ones)."""
    _ENTRIES.pop(name, None)


def discover(package: str = "gpuscipy.demo.pipelines") -> dict[str, str]:
    """Import every submodule of ``package``; return ``{module: error}``.

    Modules whose name starts with ``_`` are skipped. The error text is the
    exception's last traceback line.
    """
    pkg = importlib.import_module(package)
    errors: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        modname = f"{package}.{info.name}"
        try:
            importlib.import_module(modname)
        except Exception as exc:  # a broken pipeline must not stop the others
            errors[modname] = "".join(
                traceback.format_exception_only(type(exc), exc)).strip()
    return errors


def entries() -> list[Entry]:
    """Registered pipelines in run order."""
    return sorted(_ENTRIES.values(), key=lambda e: (e.order, e.name))


def get(name: str) -> Entry:
    """The entry called ``name`` (KeyError if none)."""
    return _ENTRIES[name]
