"""The API reference builds from the docstrings without a warning (scripts/api_docs.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("pdoc", reason="pdoc comes with the test extras")


def test_api_reference_builds_without_warnings(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "api_docs.py"), str(tmp_path)],
                          capture_output=True, text=True, timeout=300, env={**os.environ})
    assert done.returncode == 0, done.stderr
    assert "Warn" not in done.stderr, done.stderr
    pages = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.html")}
    for module in ("card", "rules", "state", "view", "score", "record", "table", "ai", "tournament"):
        assert f"binokel/{module}.html" in pages
    state = (tmp_path / "binokel" / "state.html").read_text()
    assert "legal_actions" in state  # the docstrings' content is in it
