"""The core's tests need none of the server's packages: collected with FastAPI, Starlette,
uvicorn, pydantic and psycopg made unimportable, the core test files import and pass."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE_TESTS = ("tests/test_state.py", "tests/test_rules_examples.py", "tests/test_records.py", "tests/test_cli.py")
BLOCK = """
import sys
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"fastapi", "starlette", "uvicorn", "pydantic", "psycopg", "redis"}:
            raise ImportError(f"{name} is blocked: the core must not need it")
sys.meta_path.insert(0, Blocked())
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def test_core_tests_run_without_the_server_packages() -> None:
    env = {**os.environ, "PYTEST_XDIST_AUTO_NUM_WORKERS": "1"}
    done = subprocess.run([sys.executable, "-c", BLOCK, "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-x", *CORE_TESTS], cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout
