"""The core's lowest layers import nothing above them (docs/architecture.md):
``_errors`` and ``config`` no gpuscipy_core module; ``_cuda`` only ``_cuda``,
``_errors`` and ``config``. Read from the source (function-level imports
included); no GPU needed."""

import ast
import os
import re

import pytest

import gpuscipy_core

CORE = os.path.dirname(os.path.abspath(gpuscipy_core.__file__))   # checkout or installed


def _targets(path):
    """gpuscipy_core-relative module names ``path`` imports ("_cuda._device",
    "config", ...)."""
    pkg = os.path.relpath(os.path.dirname(path), os.path.dirname(CORE)).replace(os.sep, ".")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    names = []
    if path.endswith(".py"):
        for node in ast.walk(ast.parse(text, path)):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = pkg.split(".")
                    base = base[:len(base) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                    names += [mod] if node.module else [f"{mod}.{a.name}" for a in node.names]
                else:
                    names.append(node.module or "")
            elif isinstance(node, ast.Import):
                names += [a.name for a in node.names]
    else:   # .pyx / .pxd: imports and cimports by regular expression
        for m in re.finditer(r"^\s*(?:from\s+(\S+)\s+c?import\s+([\w, ]+)|c?import\s+(\S+))",
                             text, re.M):
            mod = m.group(1) or m.group(3)
            if mod.startswith("."):
                dots = len(mod) - len(mod.lstrip("."))
                base = pkg.split(".")[:len(pkg.split(".")) - dots + 1]
                rest = mod.lstrip(".")
                if not rest:   # from .. import a, b
                    names += [".".join(base + [a.strip()]) for a in m.group(2).split(",")]
                    continue
                mod = ".".join(base + [rest])
            names.append(mod)
    return [n[len("gpuscipy_core."):] for n in names if n.startswith("gpuscipy_core.")]


def _files(sub):
    d = os.path.join(CORE, sub)
    if os.path.isfile(d):
        return [d]
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith((".py", ".pyx", ".pxd")))


@pytest.mark.parametrize("sub,allowed", [
    ("_errors.py", ()),
    ("config.py", ()),
    ("_public.py", ()),
    ("_cuda", ("_cuda", "_errors", "config")),
])
def test_layer_imports_only_below(sub, allowed):
    files = _files(sub)
    assert files
    bad = [f"{os.path.relpath(f, CORE)} imports gpuscipy_core.{t}"
           for f in files for t in _targets(f)
           if t.split(".")[0] not in allowed]
    assert not bad, "\n".join(bad)


def test_scanner_sees_relative_and_cython_imports(tmp_path):
    # the scanner itself: it must see the imports it is meant to forbid
    cu = _files("_cuda")
    seen = {t for f in cu for t in _targets(f)}
    assert "_cuda._errors" in seen and "_errors" in seen
    pyx = [f for f in cu if f.endswith(".pyx")]
    if pyx:        # a source checkout (an installed wheel has no .pyx)
        assert "config" in {t for f in pyx for t in _targets(f)}
