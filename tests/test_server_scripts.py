"""``scripts/serve`` and ``scripts/venv``: the first start says what it does.

The scripts are copied into a temporary tree with a fake ``python`` (given by ``PYTHON``)
that makes the virtualenv and "installs" instantly, so nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAKE_PYTHON = """#!/bin/sh
# A stand-in python: "-m venv DIR" makes DIR/bin/python (this script); anything else succeeds.
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0
fi
echo "fake python $*" >> "$FAKE_LOG"
exit 0
"""

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def tree(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    for name in ("venv", "serve"):
        shutil.copy(ROOT / "scripts" / name, root / "scripts" / name)
    (root / "pyproject.toml").write_text("[project]\nname = 'binokel'\n")
    fake = tmp_path / "python"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    env = {**os.environ, "PYTHON": str(fake), "FAKE_LOG": str(tmp_path / "log")}
    return root, env


def test_first_install_says_so_before_it_starts(tmp_path: Path) -> None:
    root, env = tree(tmp_path)
    first = subprocess.run(["bash", str(root / "scripts" / "venv"), "serve"], check=False, env=env,
                           capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    said = first.stdout + first.stderr
    assert "nstall" in said and "minute" in said, f"nothing said before a long install: {said!r}"
    assert "pip install" in (tmp_path / "log").read_text()
    # Everything in place: the second run is silent.
    again = subprocess.run(["bash", str(root / "scripts" / "venv"), "serve"], check=False, env=env,
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and again.stdout + again.stderr == ""
