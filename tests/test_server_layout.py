"""The server stays readable: ``server/table.py`` is a short class around its
collaborators, no function of the server package is longer than a screen, and the table's
collaborators are used by the hall and the app without knowing either."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parent.parent / "src" / "binokel" / "server"
TABLE_AND_COLLABORATORS = ("table.py", "replication.py", "runner.py", "attendance.py", "chat.py", "hint.py",
                           "message.py", "channel.py")
MOST_TABLE_LINES = 400
MOST_FUNCTION_LINES = 60


def _functions(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(f"{path.name}:{node.lineno} {node.name}", (node.end_lineno or node.lineno) - node.lineno + 1)
            for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]


def test_the_table_module_is_short() -> None:
    lines = len((SERVER / "table.py").read_text(encoding="utf-8").splitlines())
    assert lines < MOST_TABLE_LINES, f"server/table.py has {lines} lines"


def test_no_function_of_the_table_or_its_collaborators_is_longer_than_a_screen() -> None:
    functions = {module: _functions(SERVER / module) for module in TABLE_AND_COLLABORATORS}
    assert all(functions.values())  # each module read, with its functions
    long = [(name, lines) for found in functions.values() for name, lines in found if lines > MOST_FUNCTION_LINES]
    assert not long, long


def test_no_function_of_the_server_is_longer_than_a_screen() -> None:
    modules = sorted(SERVER.glob("*.py"))
    assert {path.name for path in modules} >= {"app.py", "club.py", "pad.py", "transport.py", "__init__.py"}
    long = [(name, lines) for path in modules for name, lines in _functions(path) if lines > MOST_FUNCTION_LINES]
    assert not long, long


def test_the_table_and_its_collaborators_know_neither_the_hall_nor_the_app() -> None:
    for module in TABLE_AND_COLLABORATORS:
        tree = ast.parse((SERVER / module).read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        assert not imported & {"binokel.server.hall", "binokel.server.app"}, module
