"""Writes the API reference of the library to a folder (HTML from the docstrings, with pdoc).

    .venv/bin/python scripts/api_docs.py [OUT]     # default: docs/api/ (not kept in git)

Documents the pure core, the computer opponents and the tournament harness: what a program
that uses binokel as a library imports. pdoc comes with the test extras. Exits 1 if pdoc
warned about anything (tests/test_api_docs.py keeps the reference free of warnings).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

MODULES = ("binokel", "binokel.card", "binokel.rules", "binokel.meld", "binokel.action", "binokel.trick",
           "binokel.state", "binokel.score", "binokel.game", "binokel.record", "binokel.table",
           "binokel.error", "binokel.number", "binokel.ai", "binokel.tournament")
# binokel.view is documented through the package (its `view` function has the module's name).


def main(argv: list[str]) -> int:
    # The reference reads the .py sources: a compiled core module has no source for pdoc to find.
    os.environ["BINOKEL_PURE"] = "1"
    import pdoc  # a test extra, needed only here

    out = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "docs" / "api"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*MODULES, output_directory=out)
    for warning in caught:
        print(f"api docs: {warning.message}", file=sys.stderr)
    print(f"API reference written to {out}/index.html", file=sys.stderr)
    return 1 if caught else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
