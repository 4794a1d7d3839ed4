"""The errors of binokel: all are ``ValueError``, so callers may catch broadly.

- :class:`NotationError` — text that does not name a card, suit, action or rule set.
- :class:`IllegalActionError` — a well-formed action that is not legal here.
- :class:`SummaryError` — a deal summary (a score pad's entry) that cannot be; the
  param ``field`` names the offending entry, e.g. ``"card_points[2]"``.
- :class:`RecordError` — a record that is malformed or breaks the rules; ``at`` names
  the first offending entry, e.g. ``"tricks[3][1]"``.

Every error is a reason ``code`` with ``params`` (plain JSON values); its text, in any
of the five languages, comes from the one catalogue :mod:`binokel.i18n`, and
``str(error)`` is the English text.

>>> error = IllegalActionError("must_follow_suit", card="AH", suit="S")
>>> error.code, error.params
('must_follow_suit', {'card': 'AH', 'suit': 'S'})
>>> str(error)
'AH does not follow suit: S was led and must be followed'
>>> error.render("de")
'AH bedient nicht: S wurde ausgespielt und muss bedient werden'
"""

from __future__ import annotations

from typing import Any

from binokel.i18n import render


class BinokelError(ValueError):
    """Base class of every error this library raises on bad input: a reason ``code``
    (a key of the catalogue's ``error.*`` strings) and its ``params``."""

    def __init__(self, code: str, /, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The English reason, without the place (``at``) of a record error."""
        return render(f"error.{self.code}", self.params, "en")

    def render(self, lang: str) -> str:
        """The reason in ``lang`` (English where the catalogue lacks it)."""
        return render(f"error.{self.code}", self.params, lang)

    def to_json(self) -> dict[str, Any]:
        """The code and params, as sent to the browser."""
        return {"code": self.code, "params": self.params}

    def __reduce__(self) -> Any:
        # Errors cross process boundaries (tournament workers): rebuild from code + params.
        return (_rebuild, (type(self), self.code, self.params, getattr(self, "at", None)))


def _rebuild(cls: type[BinokelError], code: str, params: dict[str, Any], at: str | None) -> BinokelError:
    error = cls(code, **params)
    if at is not None:
        error.at = at  # type: ignore[attr-defined]
    return error


class NotationError(BinokelError):
    """Text that cannot be read as a card, suit, action, rule set or option."""


class IllegalActionError(BinokelError):
    """An action that the rules do not allow in this state."""


class SummaryError(BinokelError):
    """A deal summary (a score pad's entry) that cannot be: its ``field`` param names the
    offending entry, e.g. ``"melds[1]"``."""


class RecordError(BinokelError):
    """A record that cannot be replayed; ``at`` is the path of the offending entry."""

    def __init__(self, code: str, at: str | None = None, /, **params: Any) -> None:
        self.at = at
        super().__init__(code, **params)

    def __str__(self) -> str:
        return f"{self.at}: {self.message}" if self.at else self.message
