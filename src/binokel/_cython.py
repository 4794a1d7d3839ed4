"""What the core uses of Cython's pure-Python mode, for an interpreter without Cython.

A compiled module reads ``cython.locals(...)`` and the C type names at compile time
(Cython's own ``import cython``); interpreted, the decorators change nothing and the
type names are plain ``int``. The core imports this module only when Cython is absent::

    if TYPE_CHECKING:
        from binokel import _cython as cython
    else:
        try:
            import cython
        except ImportError:
            from binokel import _cython as cython
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

compiled = False
"""True only inside a compiled module (Cython's own value)."""

# C integer types: plain Python ints when interpreted (the values stay within 64 bits).
int = int
uint = int
longlong = int
ulonglong = int
bint = bool


def locals(**types: object) -> Callable[[F], F]:
    """``@cython.locals(x=cython.int)``: C types of a function's locals when compiled."""
    return lambda function: function


def inline(function: F) -> F:
    return function


def cfunc(function: F) -> F:
    return function


def ccall(function: F) -> F:
    return function
