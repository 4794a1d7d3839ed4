"""The errors of binokel: all are ``ValueError``, so callers may catch broadly.

- :class:`NotationError` — text that does not name a card, suit, action or rule set.
- :class:`IllegalActionError` — a well-formed action that is not legal here.
- :class:`RecordError` — a record that is malformed or breaks the rules; ``at`` names
  the first offending entry, e.g. ``"tricks[3][1]"``.
"""

from __future__ import annotations


class BinokelError(ValueError):
    """Base class of every error this library raises on bad input."""


class NotationError(BinokelError):
    """Text that cannot be read as a card, suit, action, rule set or option."""


class IllegalActionError(BinokelError):
    """An action that the rules do not allow in this state."""


class RecordError(BinokelError):
    """A record that cannot be replayed; ``at`` is the path of the offending entry."""

    def __init__(self, message: str, at: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.at = at

    def __str__(self) -> str:
        return f"{self.at}: {self.message}" if self.at else self.message
