"""The layers import one way only (README "Architecture"; STYLE.md "Our layering").

Every module under ``analysis/``, ``surveys/``, ``storage/`` and ``web/`` is
read with :mod:`ast`, imports inside functions included, and each imported
top-level package is checked against what its layer may not import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: What each layer may not import (top-level package names).
FORBIDDEN = {
    "analysis": {"flask", "werkzeug", "wtforms", "sqlite3", "sqlite_utils", "psycopg", "surveys", "storage", "web"},
    "surveys": {"flask", "werkzeug", "wtforms", "sqlite3", "sqlite_utils", "storage", "web"},
    "storage": {"flask", "werkzeug", "wtforms", "web"},
}
LAYERS = ("analysis", "surveys", "storage", "web")


def imported_packages(source: str) -> set[str]:
    """The top-level package of every ``import`` and absolute ``from ... import``, anywhere in ``source``."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def violations(root: Path = ROOT) -> list[str]:
    """``"module imports package"`` for every import that crosses a layer the wrong way."""
    found = []
    for layer, forbidden in FORBIDDEN.items():
        for path in sorted((root / layer).rglob("*.py")):
            for package in sorted(imported_packages(path.read_text(encoding="utf-8")) & forbidden):
                found.append(f"{path.relative_to(root)} imports {package}")
    return found


def test_every_layer_exists_and_has_modules():
    for layer in LAYERS:
        assert list((ROOT / layer).glob("*.py")), f"{layer}/ has no modules"


def test_no_layer_imports_against_the_direction():
    assert violations() == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import flask", {"flask"}),
        ("from sqlite_utils import Database", {"sqlite_utils"}),
        ("import storage.queries as q", {"storage"}),
        ("def f():\n    from storage import queries\n", {"storage"}),
        ("class C:\n    def m(self):\n        import web.db\n", {"web"}),
        ("from . import sibling", set()),
    ],
)
def test_imports_are_found_wherever_they_are_written(source, expected):
    assert imported_packages(source) == expected


def test_a_hidden_import_is_reported(tmp_path):
    (tmp_path / "surveys").mkdir()
    (tmp_path / "surveys" / "results.py").write_text("def stored():\n    from storage import queries\n")
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "estimate.py").write_text("import numpy\nimport sqlite3\n")
    assert violations(tmp_path) == ["analysis/estimate.py imports sqlite3", "surveys/results.py imports storage"]


def test_test_modules_import_shared_helpers_only_from_the_helper_module():
    """Helpers live in tests/helpers/; no test module (nor conftest) imports another test module."""
    import ast

    wrong = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            wrong += [
                f"{path.name} imports {name}"
                for name in names
                if name.startswith("tests.")
                and name.split(".")[:2] != ["tests", "helpers"]
                and name != "tests.mutation_report"
            ]
    assert wrong == []


def imported_modules(source: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``source`` imports, anywhere (``if TYPE_CHECKING:`` and functions included):
    ``from a.b import c`` names ``a.b.c`` when that is a module, else ``a.b``."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                module = f"{node.module}.{alias.name}"
                names.add(module if module in known else node.module)
    return {name for name in names if name in known}


def import_circles(root: Path = ROOT) -> list[list[str]]:
    """Every circle of modules of the layers that import each other (a depth-first search of the import graph)."""
    paths = {
        ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): path
        for layer in LAYERS
        for path in sorted((root / layer).rglob("*.py"))
    }
    graph = {
        name: imported_modules(path.read_text(encoding="utf-8"), set(paths)) - {name} for name, path in paths.items()
    }
    circles, state = [], {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for other in sorted(graph[name]):
            if state.get(other) == "open":
                circles.append(trail[trail.index(other) :] + [name, other] if other in trail else [name, other])
            elif other not in state:
                visit(other, [*trail, name])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [])
    return circles


def test_no_two_modules_import_each_other_even_for_type_checking():
    """An import kept for type checking alone still ties two modules into one: none is left."""
    assert import_circles() == []


def test_a_circle_through_a_type_checking_import_is_found(tmp_path):
    (tmp_path / "surveys").mkdir()
    (tmp_path / "surveys" / "a.py").write_text("from surveys.b import thing\n")
    (tmp_path / "surveys" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import surveys.a\n"
    )
    assert import_circles(tmp_path) == [["surveys.a", "surveys.b", "surveys.a"]]
