"""The README opens with the two set-up commands, its Python example runs, it names every
command, and docs/settings.md names every setting."""

import ast
import re
import shutil
import subprocess
from pathlib import Path

import click
import pytest

from quizsvc.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SETTINGS_DOC = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")


def test_readme_opens_with_the_two_setup_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()]
    assert commands == ["make run", "make test"]


@pytest.mark.slow  # the paper's model at full size
def test_the_engine_example_runs():
    code = re.search(r"```python\n(.*?)```", README, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["trace"]["decoder.1.cross_attn.weights"].shape == (1, 8, 3, 4)
    assert namespace["tokens"].shape[0] == 1 and 0 < namespace["tokens"].shape[1] <= 20
    assert namespace["loss"] > 0


def cli_commands() -> dict[str, click.Command]:
    """Every `quizsvc ...` command line, by its words ("quizsvc user create")."""
    found = {}

    def walk(command: click.Command, words: list[str]) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*words, name])
        else:
            found[" ".join(words)] = command

    walk(main, ["quizsvc"])
    return found


def readme_commands() -> list[str]:
    """The `quizsvc ...` spans of the README, as written."""
    return re.findall(r"`(quizsvc [^`]*)`", README)


def test_every_command_the_readme_names_exists_with_its_options():
    commands = cli_commands()
    for written in readme_commands():
        words = written.split()
        name = next(
            (n for n in sorted(commands, key=len, reverse=True) if written.startswith(n)), None
        )
        assert name, f"README names {written!r}, which the CLI does not have"
        known = {opt for param in commands[name].params for opt in getattr(param, "opts", [])}
        for option in (word for word in words if word.startswith("--")):
            assert option in known, (written, option)


def test_the_readme_names_every_command():
    named = {n for n in cli_commands() if any(w.startswith(n) for w in readme_commands())}
    assert named == set(cli_commands())


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize(
    "arguments, url", [([], "127.0.0.1:8000"), (["PORT=8031"], "127.0.0.1:8031")]
)
def test_make_run_serves_where_the_readme_says(arguments, url):
    """`make -n` prints the commands without running them."""
    planned = subprocess.run(
        ["make", "-n", "run", *arguments], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert f"--bind {url} " in planned
    assert f"http://{url}" in planned  # what it tells the user


# Where the code reads the environment, other than through quizsvc/settings.py.
ENVIRONMENT_READS = re.compile(r"os\.environ|getenv|environ\.get|from_prefixed_env|from_envvar")


def python_sources() -> list[Path]:
    return [*ROOT.glob("quizsvc/**/*.py"), *ROOT.glob("migrations/*.py")]


def settings_the_code_reads() -> set[str]:
    """Every string in the code that is a whole variable name (`QUIZSVC_...`, DATABASE_URL):
    found in the source, so a setting added there is checked here without being listed."""
    names = set()
    for path in python_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)
    return {name for name in names if re.fullmatch(r"QUIZSVC_[A-Z0-9_]+|DATABASE_URL", name)}


def test_only_the_settings_module_reads_the_environment():
    """So that the names found above are every setting there is."""
    readers = [
        str(path.relative_to(ROOT))
        for path in python_sources()
        if ENVIRONMENT_READS.search(path.read_text(encoding="utf-8"))
    ]
    assert readers == ["quizsvc/settings.py"]


def settings_table() -> str:
    """The first cells of docs/settings.md's table, where each variable is named."""
    rows = [line for line in SETTINGS_DOC.splitlines() if line.startswith("| `")]
    return "\n".join(row.split("|")[1] for row in rows)


def test_the_settings_doc_names_every_setting_the_code_reads():
    names = settings_the_code_reads()
    assert {"DATABASE_URL", "QUIZSVC_DATABASE_URL", "QUIZSVC_SECRET_KEY"} <= names
    table = settings_table()
    assert sorted(name for name in names if f"`{name}`" not in table) == []


def test_the_settings_table_names_no_setting_the_code_does_not_read():
    named = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", settings_table()))
    assert named and named <= settings_the_code_reads()
