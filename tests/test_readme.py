"""Every Python example in README.md runs, and its printed claims hold."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, capsys):
    exec(compile(BLOCKS[index], f"README.md[{index}]", "exec"), {})
    out = capsys.readouterr().out
    if index == 0:  # the comments in the first example state its output
        assert "[0 2 1]" in out
        assert "[False  True  True]" in out
        assert "'x': ('max', 'min', 'null_count')" in out
        assert "may be TRUE" in out
