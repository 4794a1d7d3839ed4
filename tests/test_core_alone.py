"""The core's tests need none of the server's packages: with FastAPI, Starlette, uvicorn,
pydantic, psycopg and redis made unimportable in every process (the tests' own and each
``binokel`` command they start), the core test files import and pass."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE_TESTS = ("tests/test_state.py", "tests/test_rules_examples.py", "tests/test_records.py", "tests/test_cli.py")
SERVER_PACKAGES = ("fastapi", "starlette", "uvicorn", "pydantic", "psycopg", "redis")
# Python imports ``sitecustomize`` at start-up from the path: put first on PYTHONPATH, the block
# reaches the commands test_cli.py starts too, not only the pytest process.
BLOCK = f"""
import sys
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {set(SERVER_PACKAGES)!r}:
            raise ImportError(f"{{name}} is blocked: the core must not need it")
sys.meta_path.insert(0, Blocked())
"""


def blocked_env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "sitecustomize.py").write_text(BLOCK)
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "PYTEST_XDIST_AUTO_NUM_WORKERS": "1"}


def test_the_block_reaches_every_process(tmp_path: Path) -> None:
    env = blocked_env(tmp_path)
    for package in SERVER_PACKAGES:
        done = subprocess.run([sys.executable, "-c", f"import {package}"], cwd=ROOT, capture_output=True, text=True,
                              timeout=60, env=env)
        assert done.returncode != 0 and "blocked: the core must not need it" in done.stderr, (package, done.stderr)


def test_core_tests_run_without_the_server_packages(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-x",
                           *CORE_TESTS],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, env=blocked_env(tmp_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " skipped" not in done.stdout, done.stdout[-500:]
