"""The README's Python example runs as written (on a GPU)."""

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_an_example():
    assert _python_blocks(), "README.md lost its Python example"


@pytest.mark.gpu
def test_readme_example_runs(capsys):
    for block in _python_blocks():
        exec(compile(block, str(README), "exec"), {})
    assert capsys.readouterr().out.strip()
