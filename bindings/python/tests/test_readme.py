"""The README's Python examples, run as written (its shell examples run in
crates/abbe-cli/tests/readme.rs)."""

from __future__ import annotations

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", README.read_text(), re.M | re.S)


def test_readme_python_examples_run() -> None:
    blocks = python_blocks()
    assert blocks, "README has no ```python block"
    for block in blocks:
        exec(compile(block, f"{README}:python", "exec"), {})
