"""Seat identity: secret seat tokens and invite codes (what a table's seats are: :mod:`binokel.server.settings`).

A seat token is the only thing that acts for a seat. It is made from :mod:`secrets`
(256 bits), given once to the browser (or terminal) that takes the seat, and stored
by the server only as its SHA-256 digest, so a copy of the database acts for nobody.
Invite codes are secrets too (stored hashed): a long one per open seat, for links,
and one short code per table, to read out loud, that fills the next free seat.

>>> token = new_token()
>>> len(token) >= 43 and digest(token) != token and digest(token) == digest(token)
True
>>> normal_code("k7qm-2xpa ") == normal_code("K7QM2XPA")
True
"""

from __future__ import annotations

import hashlib
import secrets

TOKEN_BYTES = 32
"""A seat token's entropy in bytes (256 bits; the issue asks for at least 128)."""
LINK_CODE_BYTES = 18
"""An open seat's invite code in links (144 bits)."""
SHORT_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
"""Letters and digits that cannot be mistaken for each other when read out loud (no 0/O, 1/I/L)."""
SHORT_LENGTH = 8
"""A table's short code: 8 characters of 31, about 40 bits; it expires and joins are rate-limited."""
MAX_TOKEN = 200
"""Longer token or code texts are refused before they are hashed."""


def new_token() -> str:
    """A fresh seat token (URL-safe text, 256 bits from :mod:`secrets`)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_link_code() -> str:
    """A fresh invite code for one open seat (goes into a link's fragment)."""
    return secrets.token_urlsafe(LINK_CODE_BYTES)


def new_short_code() -> str:
    """A fresh short code of the table, written ``ABCD-EFGH`` for people.

    >>> code = new_short_code()
    >>> len(code), code[4], set(code) - set(SHORT_ALPHABET) == {"-"}
    (9, '-', True)
    """
    letters = "".join(secrets.choice(SHORT_ALPHABET) for _ in range(SHORT_LENGTH))
    return f"{letters[:4]}-{letters[4:]}"


def normal_code(code: str) -> str:
    """A code as typed: the short code's dashes, spaces and case do not matter; a link code
    (longer, case-sensitive) is kept as it is."""
    squeezed = "".join(code.split()).replace("-", "")
    if len(squeezed) == SHORT_LENGTH and squeezed.upper().strip(SHORT_ALPHABET) == "":
        return squeezed.upper()
    return code.strip()


def digest(secret: str) -> str:
    """What the server stores of a token or code: its SHA-256, hex."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def is_well_formed(secret: object) -> bool:
    """Text of a plausible length (anything else is refused before any lookup)."""
    return isinstance(secret, str) and 0 < len(secret) <= MAX_TOKEN
