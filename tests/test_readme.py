"""The README opens with the two set-up commands, and its Python example runs."""

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_two_setup_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()]
    assert commands == ["make run", "make test"]


def test_the_engine_example_runs():
    code = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["trace"]["decoder.1.cross_attn.weights"].shape == (1, 8, 3, 4)
    assert namespace["tokens"].shape[0] == 1 and 0 < namespace["tokens"].shape[1] <= 20
    assert namespace["loss"] > 0
