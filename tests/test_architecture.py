"""The import rules of docs/architecture.md, checked on the source."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(package: Path) -> dict[str, set[str]]:
    assert package.exists(), package
    found = {}
    for path in [package] if package.is_file() else package.rglob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
        found[str(path.relative_to(ROOT))] = names
    return found


def test_engine_imports_numpy_and_the_standard_library_only():
    # engine/shards.py sets the BLAS thread count, which NumPy has no call for
    extra = {"engine/shards.py": {"threadpoolctl"}}
    for path, names in imported_modules(ROOT / "engine").items():
        for name in names:
            top = name.split(".")[0]
            allowed = {"numpy", "engine"} | extra.get(path, set())
            assert top in allowed or top in _stdlib(), f"{path} imports {name}"


@pytest.mark.parametrize("package", ["grading", "bank", "drills", "store", "practice.py"])
def test_domain_modules_and_the_store_do_not_import_flask(package):
    for path, names in imported_modules(ROOT / "quizsvc" / package).items():
        for name in names:
            top = name.split(".")[0]
            assert top not in {"flask", "flask_login", "flask_wtf"}, (path, name)
            if package in {"grading", "bank", "drills"}:
                assert top not in {"sqlalchemy", "alembic"}, (path, name)
            upward = ("quizsvc.web", "quizsvc.cli", "quizsvc.practice")
            assert not name.startswith(upward), (path, name)
            if package != "store" and package != "practice.py":
                assert not name.startswith("quizsvc.store"), (path, name)


def test_the_bank_does_not_import_the_drills():
    for path, names in imported_modules(ROOT / "quizsvc" / "bank").items():
        assert not any(n.startswith("quizsvc.drills") for n in names), path


def _stdlib() -> frozenset[str]:
    import sys

    return frozenset(sys.stdlib_module_names) | {"__future__"}
