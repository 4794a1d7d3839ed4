"""The compiled core (setup.py): active where it was built, and identical to pure Python.

The modules of ``binokel.COMPILED_MODULES`` are plain Python that the install also
compiles with Cython; ``BINOKEL_PURE=1`` makes binokel import the .py files instead.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader
from pathlib import Path

import pytest

import binokel
from binokel.ai.solver import search_core
from binokel.cli import main

HERE = Path(__file__).parent
PACKAGE = Path(binokel.__file__).parent
PURE = os.environ.get("BINOKEL_PURE", "") not in ("", "0")


def built_modules() -> list[str]:
    """The modules with a compiled file next to their .py (what the build made)."""
    return [name for name in binokel.COMPILED_MODULES
            if any((PACKAGE / (name.replace(".", "/") + suffix)).exists() for suffix in EXTENSION_SUFFIXES)]


def run_python(code: list[str], pure: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "BINOKEL_PURE"}
    if pure:
        env["BINOKEL_PURE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE.parent), str(HERE), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, *code], capture_output=True, text=True, env=env, timeout=300, check=True)


def test_the_built_modules_are_the_ones_imported() -> None:
    """Every module the build compiled runs compiled (unless BINOKEL_PURE), and no other."""
    expected = [] if PURE else built_modules()
    assert list(binokel.compiled()) == expected
    for name in binokel.COMPILED_MODULES:
        module = importlib.import_module(f"binokel.{name}")
        assert isinstance(module.__loader__, ExtensionFileLoader) is (name in expected), name


@pytest.mark.skipif(not os.environ.get("BINOKEL_EXPECT_COMPILED") or PURE,
                    reason="BINOKEL_EXPECT_COMPILED is not set (scripts/test sets it where a C compiler works)")
def test_a_machine_with_a_compiler_runs_the_whole_core_compiled() -> None:
    assert binokel.compiled() == binokel.COMPILED_MODULES


def test_version_says_which_core_runs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"binokel {binokel.__version__} (")
    if binokel.compiled():
        assert "compiled core: " + ", ".join(binokel.compiled()) in line
    else:
        assert "(pure Python" in line
    assert line.endswith("; solver search in C)" if search_core() == "C" else ")")


def test_binokel_pure_imports_the_python_sources() -> None:
    out = run_python(["-c", "import binokel, binokel.state as s, binokel.ai.solver as v; "
                            "print(binokel.compiled(), s.__file__, v.search_core())"], pure=True)
    assert out.stdout.split() == ["()", str(PACKAGE / "state.py"), "Python"]


@pytest.mark.skipif(not built_modules(), reason="nothing compiled: the same code runs both ways")
def test_compiled_and_pure_python_behave_identically() -> None:
    """Random playouts of every rule set (every state's legal actions, hands, scores...) and
    open-card solves give the same results compiled and interpreted."""
    compiled = json.loads(run_python([str(HERE / "compiled_support.py"), "6"], pure=False).stdout)
    pure = json.loads(run_python([str(HERE / "compiled_support.py"), "6"], pure=True).stdout)
    assert compiled["compiled"] == built_modules() and pure["compiled"] == []
    assert len(compiled["deals"]) >= 6 * 9
    assert compiled["deals"] == pure["deals"]
    assert compiled["solves"] == pure["solves"]
    assert sum(s[2] is not None for s in pure["solves"]) >= 20  # enough positions were solved
