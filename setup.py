"""The optional compiled core: Cython compiles some of binokel's own .py modules.

Everything else about the package is in pyproject.toml. The modules listed in
``COMPILED`` are plain Python (one source of truth); when Cython imports and a C
compiler works, each is also compiled to an extension module, which Python's import
system prefers to the .py next to it (in a wheel and in an editable install alike).
Without Cython or a compiler, or with ``BINOKEL_PURE=1``, nothing is compiled and
the package is the same pure Python. A failed compilation never fails the install.

One module is C of its own: ``binokel._solve`` (``src/binokel/_solve.c``), the open-card
solver's search, which needs only a C compiler (see binokel/ai/solver.py).
"""

from __future__ import annotations

import ast
import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext



def _compiled_modules() -> tuple[str, ...]:
    """binokel.COMPILED_MODULES, read from the source (the package is not importable yet):
    the hot paths, profiled with bench/engine.py and bench/solve.py."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src", "binokel", "__init__.py")
    with open(path, encoding="utf-8") as file:
        tree = ast.parse(file.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "COMPILED_MODULES" for t in node.targets):
            return tuple(ast.literal_eval(node.value))
    raise RuntimeError("binokel.COMPILED_MODULES not found")


COMPILED = _compiled_modules()
C_SEARCH = ("binokel._solve", os.path.join("src", "binokel", "_solve.c"))
"""The solver's search in C: built wherever a C compiler works, Cython or not."""


def _say(text: str) -> None:
    print(f"binokel: {text}", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """build_ext that warns and goes on in pure Python when a module does not compile."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - no compiler, broken toolchain: stay pure Python
            _say(f"compiled core not built ({error}); using pure Python")

    def build_extension(self, ext: object) -> None:
        try:
            super().build_extension(ext)  # type: ignore[arg-type]
        except Exception as error:  # noqa: BLE001 - as above, one module at a time
            _say(f"{getattr(ext, 'name', ext)} not compiled ({error}); it stays pure Python")


def extensions() -> list[object]:
    if os.environ.get("BINOKEL_PURE", "") not in ("", "0"):
        _say("BINOKEL_PURE is set: pure Python, nothing compiled")
        return []
    from setuptools import Extension

    search = Extension(C_SEARCH[0], [C_SEARCH[1]], extra_compile_args=["-O3"] if os.name == "posix" else [])
    try:
        from Cython.Build import cythonize
    except ImportError:
        _say("Cython is not installed: the core stays pure Python (the solver's C search is built)")
        return [search]
    modules = [Extension(f"binokel.{name}", [os.path.join("src", "binokel", *name.split(".")) + ".py"])
               for name in COMPILED]
    try:
        return [search, *cythonize(
            modules, quiet=True, language_level=3,
            compiler_directives={
                # Annotations stay Python types: the compiled modules must behave exactly like
                # the interpreted ones (an `int` annotation as a C long would overflow on masks).
                "annotation_typing": False,
                "binding": True, "embedsignature": True, "always_allow_keywords": True,
            })]
    except Exception as error:  # noqa: BLE001 - a Cython error: stay pure Python
        _say(f"Cython could not translate the core ({error}); using pure Python")
        return [search]


def stale_modules() -> list[str]:
    """The compiled modules older than their .py, and, where some are built in place, the
    ones that are not (added since): scripts/test rebuilds them in place."""
    from importlib.machinery import EXTENSION_SUFFIXES

    stale, missing, built_any = [], [], False
    here = os.path.dirname(os.path.abspath(__file__))
    sources = {name: os.path.join(here, "src", "binokel", *name.split(".")) + ".py" for name in COMPILED}
    sources[C_SEARCH[0].partition(".")[2]] = os.path.join(here, C_SEARCH[1])
    for name, source in sources.items():
        stem = os.path.splitext(source)[0]
        built = [stem + suffix for suffix in EXTENSION_SUFFIXES if os.path.exists(stem + suffix)]
        if not built:
            missing.append(name)
            continue
        built_any = True
        if os.path.getmtime(source) > os.path.getmtime(built[0]):
            stale.append(name)
    return stale + (missing if built_any else [])


if __name__ == "__main__" and sys.argv[1:] == ["--check-built"]:
    # scripts/test: exit status 1 when a compiled module is older than its source.
    sys.exit(1 if stale_modules() else 0)

setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
