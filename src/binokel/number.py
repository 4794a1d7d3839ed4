"""Reading the numbers of record notation and rule texts: the one place that knows how.

A number is written in ASCII digits only (``str.isdigit`` also accepts ``"²"`` and
``"¹⁶⁰"``, which ``int`` then refuses; ``int`` accepts Arabic-Indic and other digits we do
not write) and is short: a text longer than :data:`MAX_LENGTH` is refused before ``int``
would work on it (thousands of digits are slow to convert, and beyond 4,300 ``int``
refuses them with an error no reader should see). Every refusal is a
:class:`~binokel.error.NotationError` with a reason code.

>>> read_number(" 160 ", most=9_999_999_990, code="bad_call", text="'160'")
160
>>> read_number("¹⁶⁰", most=9_999_999_990, code="bad_call", text="'¹⁶⁰'")
Traceback (most recent call last):
...
binokel.error.NotationError: a call is a bid like '160' or 'pass', not '¹⁶⁰'
>>> read_number("1" * 5000, most=9_999_999_990, code="bad_call", text="...")
Traceback (most recent call last):
...
binokel.error.NotationError: the number 11111111111111111111… is too large (at most 9999999990)
"""

from __future__ import annotations

from typing import Any

from binokel.error import NotationError

MAX_LENGTH = 20
"""Characters of the longest number text read (leading zeros included)."""
SHOWN = 20
"""Characters of a refused text that an error message repeats."""
_DIGITS = frozenset("0123456789")


def is_number(text: str) -> bool:
    """Is ``text`` (spaces around it aside) a plain number of ASCII digits?

    >>> is_number("160"), is_number("²"), is_number("-10"), is_number("")
    (True, False, False, False)
    """
    word = text.strip()
    return bool(word) and _DIGITS.issuperset(word)


def small_number(text: str) -> int | None:
    """The value of ``text`` if it is a plain number of at most :data:`MAX_LENGTH` ASCII
    digits, else None (for front ends that try several readings of a word).

    >>> small_number("12"), small_number("²"), small_number("9" * 50)
    (12, None, None)
    """
    word = text.strip()
    return int(word) if is_number(word) and len(word) <= MAX_LENGTH else None


def read_number(text: str, /, *, most: int, code: str, **params: Any) -> int:
    """The value of ``text``, a number of ASCII digits from 0 to ``most``.

    Not a plain number: ``NotationError(code, **params)`` (the caller's own reason);
    a number above ``most`` or longer than :data:`MAX_LENGTH`: ``number_too_large``."""
    word = text.strip()
    if not is_number(word):
        raise NotationError(code, **params)
    if len(word) > MAX_LENGTH or int(word) > most:
        raise NotationError("number_too_large", value=shown(word), max=most)
    return int(word)


def shown(text: str) -> str:
    """A text as an error message repeats it: at most :data:`SHOWN` characters.

    >>> shown("12345"), shown("9" * 30)
    ('12345', '99999999999999999999…')
    """
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"
