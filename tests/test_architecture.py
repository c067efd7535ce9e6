"""The import rules of docs/architecture.md, checked on the source."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(package: Path) -> dict[str, set[str]]:
    """Each file of `package` (or the one file) with the modules it imports (`imports_of`)."""
    assert package.exists(), package
    paths = [package] if package.is_file() else package.rglob("*.py")
    return {str(path.relative_to(ROOT)): imports_of(path) for path in paths}


def test_engine_imports_numpy_and_the_standard_library_only():
    # engine/shards.py sets the BLAS thread count, which NumPy has no call for; engine/train.py
    # is a command line with a progress bar
    extra = {"engine/shards.py": {"threadpoolctl"}, "engine/train.py": {"tqdm"}}
    for path, names in imported_modules(ROOT / "engine").items():
        for name in names:
            top = name.split(".")[0]
            allowed = {"numpy", "engine"} | extra.get(path, set())
            assert top in allowed or top in _stdlib(), f"{path} imports {name}"


def engine_import_graph() -> dict[str, set[str]]:
    """Each engine module (`engine.model`) with the engine modules it imports, including
    imports made only for type checking: a cycle there is a cycle all the same."""
    graph = {}
    for path, names in imported_modules(ROOT / "engine").items():
        module = path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        graph[module] = {name for name in names if name.startswith("engine.")}
    return graph


def import_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as the modules along it (the first again at the end), or None."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        for imported in sorted(graph.get(module, ())):
            if cycle := visit(imported, [*path, module]):
                return cycle
        done.add(module)
        return None

    for module in sorted(graph):
        if cycle := visit(module, []):
            return cycle
    return None


def test_engine_modules_import_each_other_without_a_cycle():
    cycle = import_cycle(engine_import_graph())
    assert cycle is None, " -> ".join(cycle)


def test_the_cycle_check_finds_a_cycle_and_only_a_cycle():
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert import_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None  # a diamond
    assert import_cycle({"a": {"b"}, "b": {"c"}, "c": {"b"}}) == ["b", "c", "b"]


def test_the_model_s_math_does_not_import_the_batch_shards():
    # engine.shards wraps the forward for speed; the modules of the math stay plain NumPy
    for module, imported in engine_import_graph().items():
        if module != "engine.shards":
            assert "engine.shards" not in imported, module


@pytest.mark.parametrize(
    "package", ["grading", "bank", "drills", "store", "practice.py", "quiz_standing.py"]
)
def test_domain_modules_and_the_store_do_not_import_flask(package):
    for path, names in imported_modules(ROOT / "quizsvc" / package).items():
        for name in names:
            top = name.split(".")[0]
            assert top not in {"flask", "flask_login", "flask_wtf"}, (path, name)
            if package in {"grading", "bank", "drills"}:
                assert top not in {"sqlalchemy", "alembic"}, (path, name)
            upward = ("quizsvc.web", "quizsvc.cli", "quizsvc.practice")
            assert not name.startswith(upward), (path, name)
            # the layer above the store: practice and the learner's standing on a chapter
            if package not in {"store", "practice.py", "quiz_standing.py"}:
                assert not name.startswith("quizsvc.store"), (path, name)


def test_the_bank_does_not_import_the_drills():
    for path, names in imported_modules(ROOT / "quizsvc" / "bank").items():
        assert not any(n.startswith("quizsvc.drills") for n in names), path


def _stdlib() -> frozenset[str]:
    import sys

    return frozenset(sys.stdlib_module_names) | {"__future__"}


# --- the module table of docs/architecture.md, checked against the imports -----------------

ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
# How the table names a library (its distribution's name) that is imported under another.
LIBRARY_NAMES = {
    "yaml": "PyYAML",
    "markdown_it": "markdown-it-py",
    "mdit_py_plugins": "mdit-py-plugins",
    "pydantic_core": "pydantic",
    "flask_login": "Flask-Login",
    "flask_wtf": "Flask-WTF",
    "flask_babel": "Flask-Babel",
    "jinja2": "Jinja",
}


def module_table() -> list[tuple[list[str], str, str]]:
    """The rows of "Modules and what each owns": (paths, owns, may import)."""
    rows = []
    for line in ARCHITECTURE.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            rows.append((re.findall(r"`([^`]+)`", cells[0]), cells[1], cells[2]))
    return rows


def imports_of(path: Path) -> set[str]:
    """Every module imported, `from quizsvc import store` as quizsvc.store."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            if node.module in {"quizsvc", "engine"}:
                names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def how_the_table_names(module: str) -> str | None:
    """`grading` for quizsvc.grading.numeric, `engine` for engine.layers, `PyYAML` for yaml;
    None for the standard library and the bare package names."""
    parts = module.split(".")
    if parts[0] == "quizsvc":
        return parts[1].removesuffix(".py") if len(parts) > 1 else None
    if parts[0] in _stdlib():
        return None
    return LIBRARY_NAMES.get(parts[0], parts[0])


def _names(cell: str) -> set[str]:
    """The words of a cell, lowercase; `quizsvc.grading` also as grading."""
    # a name may end in a digit (pylti1p3)
    words = {word.lower() for word in re.findall(r"[A-Za-z][\w.-]*[A-Za-z0-9]", cell)}
    return words | {word.rsplit(".", 1)[-1] for word in words}


def test_every_python_file_is_in_a_row_of_the_module_table():
    covered = [ROOT / path.rstrip("/") for paths, _, _ in module_table() for path in paths]
    for path in [*ROOT.glob("quizsvc/**/*.py"), *ROOT.glob("engine/*.py")]:
        if path != ROOT / "quizsvc" / "__init__.py":
            assert any(path == c or c in path.parents for c in covered), path


def test_the_table_names_every_module_of_the_engine():
    (owns,) = [owns for paths, owns, _ in module_table() if "engine/" in paths]
    for path in (ROOT / "engine").glob("*.py"):
        if path.stem != "__init__":
            assert f"`{path.stem}`" in owns, path


def test_the_web_app_s_table_names_each_of_its_modules_once():
    section = ARCHITECTURE.split("## The web app's modules", 1)[1].split("\n## ", 1)[0]
    named = [
        name
        for line in section.splitlines()
        if line.startswith("| `")
        for name in re.findall(r"`([^`]+)`", line.split("|")[1])
    ]
    web = ROOT / "quizsvc" / "web"
    modules = [p.stem for p in web.glob("*.py") if p.stem != "__init__"]
    folders = [f"{p.name}/" for p in web.iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert sorted(named) == sorted(modules + folders)


def test_each_row_names_everything_its_modules_import():
    """The "may import" column lists the libraries and the modules of quizsvc that a row's
    code imports; "everything above" allows whatever the rows above it allow."""
    allowed_above: set[str] = set()
    for paths, _, may_import in module_table():
        allowed = _names(may_import)
        if "everything above" in may_import:
            allowed |= allowed_above
        if "quizsvc" in allowed:  # the benchmarks: any module of quizsvc
            allowed |= {name for path in paths for name in _first_party_of(path)}
        own = tuple(_package_of(path) for path in paths)
        for path in paths:
            for file in _python_files(ROOT / path):
                for module in imports_of(file):
                    name = how_the_table_names(module)
                    if name is None or module.startswith(own):
                        continue
                    assert name.lower() in allowed, f"{file.relative_to(ROOT)} imports {module}"
        allowed_above |= allowed | {how_the_table_names(_package_of(path)) for path in paths}


def _python_files(path: Path) -> list[Path]:
    return [path] if path.is_file() else sorted(path.rglob("*.py"))


def _package_of(path: str) -> str:
    """The row's own modules, as imported: "quizsvc.store" for quizsvc/store/."""
    return path.rstrip("/").removesuffix(".py").replace("/", ".")


def _first_party_of(path: str) -> set[str]:
    return {
        name
        for file in _python_files(ROOT / path)
        for module in imports_of(file)
        if module.startswith("quizsvc.") and (name := how_the_table_names(module))
    }
