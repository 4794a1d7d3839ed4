"""binokel — the Swabian trick-and-meld card game, as a pure-Python rules library.

The core (cards, rules, melds, actions, state, view, score, record, game) imports no
I/O library; the computer opponents, the server, the web page and the command line
are built around it.

The hot paths (:data:`COMPILED_MODULES`) are plain Python modules that the install also
compiles with Cython when it can (see setup.py); :func:`compiled` says which compiled
modules this interpreter runs. ``BINOKEL_PURE=1`` in the environment makes binokel
import the .py modules even where compiled ones exist (``BINOKEL_PURE=state,meld``: those modules only).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec, PathFinder
from importlib.util import spec_from_file_location
from types import ModuleType

COMPILED_MODULES = ("card", "trick", "meld", "score", "state", "ai.fast", "ai.solver")
"""The modules the install compiles when Cython and a C compiler are there (setup.py reads this)."""

_PURE_SETTING = os.environ.get("BINOKEL_PURE", "").strip()
# BINOKEL_PURE=1: every module interpreted; BINOKEL_PURE=meld,state: those (to measure one module's gain).
_PURE = frozenset(COMPILED_MODULES if _PURE_SETTING in ("1", "yes", "true") else
                  (n.strip() for n in _PURE_SETTING.split(",") if n.strip() not in ("", "0")))
_STALE_SLACK = 2.0  # seconds: an install writes a module's .py and .so moments apart, in either order


class _SourceWhenPure:
    """A meta path finder for binokel's own modules: where an extension module would be
    imported, import the .py next to it instead when ``BINOKEL_PURE`` is set, or when the
    .py was edited after the build (a stale .so would silently run old code)."""

    @classmethod
    def find_spec(cls, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if not name.startswith("binokel.") or name.partition(".")[2] not in COMPILED_MODULES:
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is None or not isinstance(spec.loader, ExtensionFileLoader) or spec.origin is None:
            return None  # not compiled here: the ordinary finders import the .py
        source = _source_of(spec.origin)
        if source is None:
            return None
        if name.partition(".")[2] not in _PURE:
            if os.path.getmtime(source) <= os.path.getmtime(spec.origin) + _STALE_SLACK:
                return spec
            warnings.warn(f"{name}: {os.path.basename(source)} is newer than its compiled module; importing the "
                          f".py (rebuild with: python setup.py build_ext --inplace)", RuntimeWarning, stacklevel=2)
        return spec_from_file_location(name, source, submodule_search_locations=None)


def _source_of(extension: str) -> str | None:
    for suffix in EXTENSION_SUFFIXES:
        if extension.endswith(suffix):
            source = extension[:-len(suffix)] + ".py"
            return source if os.path.exists(source) else None
    return None


if not any(finder is _SourceWhenPure for finder in sys.meta_path):
    sys.meta_path.insert(0, _SourceWhenPure)


def compiled() -> tuple[str, ...]:
    """The modules of :data:`COMPILED_MODULES` that run compiled in this interpreter
    (empty in pure Python: no compiler at install, or ``BINOKEL_PURE=1``).

    >>> set(compiled()) <= set(COMPILED_MODULES)
    True
    """
    import importlib

    names = []
    for name in COMPILED_MODULES:
        module = importlib.import_module(f"binokel.{name}")
        if isinstance(getattr(module, "__loader__", None), ExtensionFileLoader):
            names.append(name)
    return tuple(names)


from binokel.action import Action, ActionKind  # noqa: E402 - after the finder, which the core's imports use
from binokel.card import CARDS, Card, Hand, Rank, Suit  # noqa: E402
from binokel.error import BinokelError, IllegalActionError, NotationError, RecordError  # noqa: E402
from binokel.meld import Meld, find_melds, meld_total  # noqa: E402
from binokel.rules import RULE_SETS, Rules  # noqa: E402
from binokel.state import Outcome, Phase, State  # noqa: E402
from binokel.trick import Trick  # noqa: E402
from binokel.view import SeatView, view  # noqa: E402

__all__ = [
    "Action", "ActionKind", "CARDS", "Card", "Hand", "Rank", "Suit", "BinokelError", "IllegalActionError",
    "NotationError", "RecordError", "Meld", "find_melds", "meld_total", "RULE_SETS", "Rules", "Outcome",
    "Phase", "State", "Trick", "SeatView", "view", "COMPILED_MODULES", "compiled",
]
__version__ = "0.1.0"
