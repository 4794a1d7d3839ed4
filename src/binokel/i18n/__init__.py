"""The one translation catalogue: every sentence the terminal, the server and the web page
show, in German, English, French, Italian and Portuguese.

One JSON file per language (``binokel/i18n/{lang}.json``, package data): ``strings`` maps
a key to a template with ``{name}`` placeholders (Python ``str.format`` syntax, which
the page's ``i18n.js`` reads as well); ``cards`` names ranks and suits per deck;
``words`` are the terminal's input words; ``rules`` and ``glossary`` are the page's long
texts. The server sends the same files to the page (``GET /i18n/{lang}.json``).

A template may have plural forms: an object of CLDR plural categories (``"one"``,
``"other"``; ``"other"`` always) instead of a string, chosen by the param ``n`` (else
``count``) with the language's rule (:func:`plural_form`; the page uses ``Intl.PluralRules``,
which agrees on every category a catalogue uses).

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
>>> render("terminal.tricks_played", {"count": 1}, "en"), render("terminal.tricks_played", {"count": 0}, "fr")
('1 trick played.', '0 pli joué.')
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


TERMINAL_ONLY = "terminal."
"""The prefix of the terminal's own sentences: the page never shows them."""


@cache
def source(lang: str) -> bytes:
    """The catalogue of ``lang`` for the page: every string but the terminal's own (a sixth
    of the file, sent to every browser for nothing); KeyError if no such language."""
    if lang not in LANGUAGES:
        raise KeyError(lang)
    data = catalogue(lang)
    strings = {key: text for key, text in data["strings"].items() if not key.startswith(TERMINAL_ONLY)}
    return json.dumps({**data, "strings": strings}, ensure_ascii=False, separators=(",", ":")).encode()


PLURAL_FORMS = ("zero", "one", "two", "few", "many", "other")
"""The CLDR plural categories a template's forms may be named by."""


def plural_form(lang: str, n: Any) -> str:
    """The CLDR plural category of the count ``n`` in ``lang``: ``one`` or ``other`` (the
    five languages' rules for whole numbers below a million; French and Portuguese say
    "one" for 0 as well, CLDR's ``i = 0,1``).

    >>> [plural_form("en", n) for n in (0, 1, 2)], [plural_form("fr", n) for n in (0, 1, 2)]
    (['other', 'one', 'other'], ['one', 'one', 'other'])
    """
    try:
        count = float(n)
    except (TypeError, ValueError):
        return "other"
    if lang in ("fr", "pt"):
        return "one" if 0 <= count < 2 and count == int(count) else "other"
    return "one" if count == 1 else "other"


def _choose(value: Any, lang: str, params: dict[str, Any] | None) -> str | None:
    """A string template as it is, or the form of a plural template for the params' count."""
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, dict):
        count = (params or {}).get("n", (params or {}).get("count"))
        form = value.get(plural_form(lang, count)) if count is not None else None
        chosen = form if form is not None else value.get("other")
        return chosen if isinstance(chosen, str) else None
    return None


def template(key: str, lang: str, params: dict[str, Any] | None = None) -> str | None:
    """The template of ``key`` in ``lang``, else in English, else None (of a plural
    template, the form for the count in ``params``)."""
    text = catalogue(lang)["strings"].get(key)
    if text is None:
        return _choose(catalogue(FALLBACK)["strings"].get(key), FALLBACK, params)
    return _choose(text, lang, params)


def render(key: str, params: dict[str, Any] | None = None, lang: str = FALLBACK, *, you: bool = False) -> str:
    """The sentence for ``key`` in ``lang`` with its params filled in (English where the
    language lacks it; the key itself if no language has it). ``you``: take the
    second-person form ``key.you`` where the language has one."""
    # No English second-person form stands in for another language's (as on the page).
    text = (_choose(catalogue(lang)["strings"].get(f"{key}.you"), lang, params) if you else None) \
        or template(key, lang, params)
    if text is None:
        return key
    if not params:  # nothing to fill in, but a brace written twice is one brace, as format() has it
        return text.replace("{{", "{").replace("}}", "}")
    return text.format(**params)


def placeholders(text: str | dict[str, str]) -> set[str]:
    """The parameter names a template uses (all its forms' names, of a plural template).

    >>> sorted(placeholders("{card} does not beat {best:>3}"))
    ['best', 'card']
    >>> sorted(placeholders({"one": "one card", "other": "{n} cards"}))
    ['n']
    """
    if isinstance(text, dict):
        return set().union(*(placeholders(form) for form in text.values()))
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(text) if name}


__all__ = ["FALLBACK", "LANGUAGES", "PLURAL_FORMS", "catalogue", "placeholders", "plural_form", "render", "source",
           "template"]
