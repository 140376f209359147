"""gpuscipy_core.config: every environment variable read in one module,
parsed one way (no GPU needed)."""

import importlib
import os
import re

import pytest

from gpuscipy_core import config

# the packages as imported (a source checkout or an installed wheel)
PACKAGES = [os.path.dirname(importlib.import_module(p).__file__)
            for p in ("gpuscipy", "gpuscipy_core")]
DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                    "docs", "configuration.md")
READ = re.compile(r"os\.environ\b|os\.getenv\b|getenv\(")


def _sources():
    for pkg in PACKAGES:
        for dirpath, _, files in os.walk(pkg):
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
                    readers.append((path, f"{path}:{i}: {line.strip()}"))
    assert n > 50
    config_py = os.path.join(PACKAGES[1], "config.py")
    readers = [r for path, r in readers if not os.path.samefile(path, config_py)]
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
    if not os.path.isfile(DOCS):
        pytest.skip("docs/ is not beside tests/")
    with open(DOCS, encoding="utf-8") as fh:
        page = fh.read()
    for name in config.VARIABLES:
        assert f"`{name}`" in page, name
