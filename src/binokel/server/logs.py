"""The server's logs: one line per event, as text or as JSON, and no tracebacks for client mistakes.

``binokel serve --log-format json`` writes each event as one JSON object per line
(``{"time", "level", "logger", "message", ...}`` plus the event's own fields, such as
``event``, ``code``, ``game``, ``client``), ready for a log collector; the default is
one plain text line per event. A traceback is logged only for a bug of the server: what
a client does wrong (a frame that is not UTF-8, a socket closed in the middle of a
message, malformed JSON) is answered or closed quietly (:class:`QuietClientErrors`).

>>> import json, logging
>>> record = logging.LogRecord("binokel.server", logging.INFO, __file__, 1, "dropped %s", ("x",), None)
>>> record.event = "dropped"
>>> line = json.loads(JsonFormatter().format(record))
>>> line["level"], line["logger"], line["message"], line["event"]
('info', 'binokel.server', 'dropped x', 'dropped')
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(name)s %(levelname)s %(message)s"
STANDARD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
"""The attributes every log record has: the rest are an event's own fields (``extra=``)."""
CLIENT_MISTAKES = (
    "invalid utf-8", "invalid continuation byte", "invalid start byte", "unexpected end of data",
    "connectionclosed", "connection closed", "connectionreseterror", "brokenpipeerror",
    "incompleteread", "no close frame", "message too big", "payloadtoobig", "clientdisconnect",
)
"""Words of the exceptions uvicorn and websockets log when a client breaks the protocol or
goes away: nothing the server can fix, so no traceback."""


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the event's fields, and the
    exception (type and message only for a client's; the traceback for a bug)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in STANDARD_FIELDS and not key.startswith("_"):
                line[key] = value if isinstance(value, (str, int, float, bool, type(None))) else str(value)
        if record.exc_info and record.exc_info[1] is not None:
            line["error"] = f"{type(record.exc_info[1]).__name__}: {record.exc_info[1]}"
            line["traceback"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


class QuietClientErrors(logging.Filter):
    """Turn the transport's tracebacks for a client's own mistakes into one short line.

    uvicorn logs "Exception in ASGI application" (or a websockets protocol error) with a
    traceback when a client sends a frame that is not UTF-8 or vanishes mid-message; the
    server has already closed that socket with the right code (1007, 1006)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is None:
            return True
        chain: list[str] = [str(record.msg).lower()]
        while error is not None and len(chain) < 10:
            chain.append(f"{type(error).__name__} {error}".lower())
            error = error.__cause__ or error.__context__
        if any(word in link for link in chain for word in CLIENT_MISTAKES):
            record.msg = "client error: %s"
            record.args = (chain[1][:200],)
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.__dict__["event"] = "client_error"
            return logging.getLogger(record.name).isEnabledFor(logging.INFO)
        return True


def configure(log_format: str = "text", level: int = logging.WARNING) -> None:
    """Set up the server's logging: ``binokel.*``, ``uvicorn.*``, in ``log_format``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    handler.addFilter(QuietClientErrors())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.propagate = True  # through the one handler above, and its filter
    quiet_client_errors()


def quiet_client_errors() -> None:
    """Filter the loggers of uvicorn and websockets (once): a client's mistakes, one short
    line at level INFO instead of a traceback (see :class:`QuietClientErrors`). The app
    does this itself, however it is served."""
    for name in ("uvicorn.error", "websockets", "websockets.server", "websockets.protocol"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, QuietClientErrors) for f in logger.filters):
            logger.addFilter(QuietClientErrors())
