"""The one translation catalogue: every sentence the terminal, the server and the web page
show, in German, English, French, Italian and Portuguese.

One JSON file per language (``binokel/i18n/{lang}.json``, package data): ``strings`` maps
a key to a template with ``{name}`` placeholders (Python ``str.format`` syntax, which
the page's ``i18n.js`` reads as well); ``cards`` names ranks and suits per deck;
``words`` are the terminal's input words; ``rules`` and ``glossary`` are the page's long
texts. The server sends the same files to the page (``GET /i18n/{lang}.json``).

Keys by prefix: ``error.{code}`` is the reason of a refusal (:class:`binokel.error.BinokelError`
carries the code and its params); ``terminal.*`` are the terminal's sentences; the
others are the page's. ``key.you`` is the second-person form of a sentence about a seat
("You bid 160"), used when that seat is the reader's.

>>> render("error.must_follow_suit", {"card": "AH", "suit": "S"}, "en")
'AH does not follow suit: S was led and must be followed'
>>> render("error.not_in_hand", {"seat": 0, "card": "AH"}, "de", you=True)
'Du hast AH nicht auf der Hand'
>>> render("no.such.key", {}, "fr")
'no.such.key'
"""

from __future__ import annotations

import json
import string
from functools import cache
from importlib.resources import files
from typing import Any

LANGUAGES = ("de", "en", "fr", "it", "pt")
FALLBACK = "en"


@cache
def catalogue(lang: str) -> dict[str, Any]:
    """The whole catalogue of ``lang`` (English for an unknown language), read once."""
    if lang not in LANGUAGES:
        lang = FALLBACK
    data: dict[str, Any] = json.loads(files(__name__).joinpath(f"{lang}.json").read_text("utf-8"))
    return data


def source(lang: str) -> bytes:
    """The catalogue file of ``lang`` as stored, for the page; KeyError if no such language."""
    if lang not in LANGUAGES:
        raise KeyError(lang)
    return files(__name__).joinpath(f"{lang}.json").read_bytes()


def template(key: str, lang: str) -> str | None:
    """The template of ``key`` in ``lang``, else in English, else None."""
    text = catalogue(lang)["strings"].get(key)
    if text is None:
        text = catalogue(FALLBACK)["strings"].get(key)
    return text if isinstance(text, str) else None


def render(key: str, params: dict[str, Any] | None = None, lang: str = FALLBACK, *, you: bool = False) -> str:
    """The sentence for ``key`` in ``lang`` with its params filled in (English where the
    language lacks it; the key itself if no language has it). ``you``: take the
    second-person form ``key.you`` where the language has one."""
    # No English second-person form stands in for another language's (as on the page).
    text = (catalogue(lang)["strings"].get(f"{key}.you") if you else None) or template(key, lang)
    if text is None:
        return key
    return text.format(**params) if params else text


def placeholders(text: str) -> set[str]:
    """The parameter names a template uses.

    >>> sorted(placeholders("{card} does not beat {best:>3}"))
    ['best', 'card']
    """
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(text) if name}


__all__ = ["FALLBACK", "LANGUAGES", "catalogue", "placeholders", "render", "source", "template"]
