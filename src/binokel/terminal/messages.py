"""Every string ``binokel play`` prints, from the one catalogue :mod:`binokel.i18n`
(its ``terminal.*`` keys, the option meanings and rule set descriptions the page shows
too, and the reasons of refusals, ``error.*``).

>>> Messages("de")("bids", name="Ben", bid=160)
'Ben reizt 160.'
>>> Messages("xx")("passes", name="Ben")
'Ben passes.'
"""

from __future__ import annotations

from typing import Any

from binokel.error import BinokelError
from binokel.i18n import FALLBACK, LANGUAGES, catalogue, render, template

__all__ = ["LANGUAGES", "Messages"]


class Messages:
    """The terminal's sentences in one language, called as ``t(key, **arguments)``;
    English where the language lacks a key."""

    def __init__(self, lang: str = FALLBACK) -> None:
        self.lang = lang if lang in LANGUAGES else FALLBACK
        english: dict[str, list[str]] = catalogue(FALLBACK)["words"]
        words = {key: list(value) for key, value in english.items()}
        for key, value in catalogue(self.lang)["words"].items():
            if self.lang != FALLBACK:
                words[key] = [*value, *words.get(key, [])]
        self.words: dict[str, list[str]] = words

    def __call__(self, key: str, **args: Any) -> str:
        return render(f"terminal.{key}", args, self.lang)

    def option(self, name: str, meaning: str) -> str:
        """The meaning of a rule option in this language (``meaning`` if the catalogue lacks it)."""
        return template(f"meaning.{name}", self.lang) or meaning

    def rule_set(self, name: str, description: str) -> str:
        """The description of a rule set in this language (``description`` if the catalogue lacks it)."""
        return template(f"ruleset_about.{name}", self.lang) or description

    def reason(self, error: BinokelError, seat: int | None = None) -> str:
        """Why the core refused, in this language; second person where it names ``seat``."""
        you = seat is not None and error.params.get("seat") == seat
        return render(f"error.{error.code}", error.params, self.lang, you=you)
