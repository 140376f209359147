"""gpuscipy_core.config: every environment variable read in one module,
parsed one way (no GPU needed)."""

import os
import re

import pytest

from gpuscipy_core import config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
READ = re.compile(r"os\.environ\b|os\.getenv\b|getenv\(")


def _sources():
    for pkg in ("gpuscipy", "gpuscipy_core"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, pkg)):
            for f in files:
                if f.endswith((".py", ".pyx", ".pxd")):
                    yield os.path.join(dirpath, f)


def test_environment_read_only_in_config():
    readers = []
    n = 0
    for path in _sources():
        n += 1
        with open(path, encoding="utf-8") as fh:
            for i, line in enumerate(fh, 1):
                if READ.search(line.split("#")[0]):
                    readers.append(f"{os.path.relpath(path, ROOT)}:{i}: {line.strip()}")
    assert n > 50
    readers = [r for r in readers if not r.startswith(os.path.join("gpuscipy_core", "config.py"))]
    assert not readers, "environment read outside gpuscipy_core/config.py:\n" + "\n".join(readers)


def test_defaults_when_unset_or_empty(monkeypatch):
    for name in config.VARIABLES:
        monkeypatch.delenv(name, raising=False)
        assert config.value(name) == config.VARIABLES[name][0]
        monkeypatch.setenv(name, "   ")
        assert config.value(name) == config.VARIABLES[name][0]
    assert config.allocator() == "pool"
    assert config.batched_lu() == "v2"
    assert config.cache_dir() == os.path.expanduser("~/.cache/gpuscipy/kernels")
    assert config.cuda_roots() == ["/usr/local/cuda"]
    assert config.path_list("LD_LIBRARY_PATH") == []


def test_values_are_stripped_and_choices_case_insensitive(monkeypatch, tmp_path):
    monkeypatch.setenv("GPUSCIPY_CACHE_DIR", f"  {tmp_path}  ")
    assert config.cache_dir() == str(tmp_path)
    monkeypatch.setenv("GPUSCIPY_BATCHED_LU", " V1 ")
    assert config.batched_lu() == "v1"
    monkeypatch.setenv("GPUSCIPY_ALLOCATOR", "CUDA_MALLOC")
    assert config.allocator() == "cuda_malloc"


def test_bad_choice_names_the_variable(monkeypatch):
    monkeypatch.setenv("GPUSCIPY_BATCHED_LU", "v3")
    with pytest.raises(ValueError, match=r"GPUSCIPY_BATCHED_LU must be one of \('v1', 'v2'\), "
                                         r"got 'v3'"):
        config.batched_lu()
    with pytest.raises(KeyError):
        config.value("GPUSCIPY_NO_SUCH_VARIABLE")


def test_cuda_roots_order_and_duplicates(monkeypatch):
    monkeypatch.setenv("CUDA_PATH", "/opt/cuda-a")
    monkeypatch.setenv("CUDA_HOME", "/opt/cuda-a")
    assert config.cuda_roots() == ["/opt/cuda-a", "/usr/local/cuda"]
    monkeypatch.setenv("CUDA_HOME", "/opt/cuda-b")
    assert config.cuda_roots() == ["/opt/cuda-a", "/opt/cuda-b", "/usr/local/cuda"]
    monkeypatch.setenv("LD_LIBRARY_PATH", os.pathsep.join(["/x", "", "/y"]))
    assert config.path_list("LD_LIBRARY_PATH") == ["/x", "/y"]


def test_every_variable_is_documented():
    with open(os.path.join(ROOT, "docs", "configuration.md"), encoding="utf-8") as fh:
        page = fh.read()
    for name in config.VARIABLES:
        assert f"`{name}`" in page, name
