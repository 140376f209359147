"""The mirror (gpuscipy/) is built on gpuscipy_core's public API only: what a
user could import. No GPU needed: the imports are read from the source
(function-level imports included), and each public name is resolved."""

import ast
import importlib
import importlib.util
import os

import pytest

import gpuscipy

ROOT = os.path.dirname(os.path.abspath(gpuscipy.__file__))   # checkout or installed


def _imports():
    """(file, line, module, name or None) of every import of gpuscipy_core."""
    out = []
    for dirpath, _, files in os.walk(ROOT):
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), path)
            rel = os.path.relpath(path, os.path.dirname(ROOT))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for a in node.names:
                        if a.name.split(".")[0] == "gpuscipy_core":
                            out.append((rel, node.lineno, a.name, None))
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                        and node.module.split(".")[0] == "gpuscipy_core":
                    for a in node.names:
                        out.append((rel, node.lineno, node.module, a.name))
    return out


IMPORTS = _imports()


def test_the_mirror_imports_the_core():
    assert len(IMPORTS) > 20     # the scan sees the imports (it cannot pass empty)


def test_no_private_module_or_name_of_the_core():
    bad = [f"{f}:{line}: {mod}" + (f" import {name}" if name else "")
           for f, line, mod, name in IMPORTS
           if any(p.startswith("_") for p in mod.split(".")[1:])
           or (name is not None and name.startswith("_"))]
    assert not bad, "gpuscipy/ uses gpuscipy_core internals:\n" + "\n".join(bad)


@pytest.mark.parametrize("mod,name", sorted({(m, n or "") for _, _, m, n in IMPORTS}),
                         ids=lambda v: str(v))
def test_every_imported_name_exists(mod, name):
    m = importlib.import_module(mod)
    if name and name != "*":
        assert hasattr(m, name) or importlib.util.find_spec(f"{mod}.{name}") is not None, \
            f"{mod} has no {name}"


PUBLIC = ["gpuscipy.fft", "gpuscipy.linalg", "gpuscipy.signal", "gpuscipy.signal.windows",
          "gpuscipy.datasets", "gpuscipy_core", "gpuscipy_core.kernel", "gpuscipy_core.cuda",
          "gpuscipy_core.lib", "gpuscipy_core.random", "gpuscipy_core.libs",
          "gpuscipy_core.config"]
# extension types and Cython functions cannot be given another __module__
FIXED = {"ndarray", "ufunc", "broadcast_shapes", "Memory", "MemoryPool", "PinnedMemory"}


@pytest.mark.parametrize("mod", PUBLIC)
def test_public_objects_report_a_public_module(mod):
    m = importlib.import_module(mod)
    names = getattr(m, "__all__", [])
    assert names
    bad = []
    for n in names:
        o = m.__dict__.get(n)      # not getattr: lazy submodules stay unloaded
        if o is None or not callable(o) or n in FIXED:
            continue
        home = getattr(o, "__module__", "") or ""
        if "._" in home and not home.startswith(("scipy.", "numpy")):
            bad.append(f"{n}: {home}")
    assert not bad, f"{mod}: " + ", ".join(bad)
