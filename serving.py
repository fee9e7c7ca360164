"""What the servers write to their logs: no client address, no query string, no size, no time of day.

Used by ``gunicorn.conf.py`` (``logger_class``) in the gunicorn master, so it
imports nothing of the app: the workers import the app after the fork. The
development server's log (``flask run``) goes through the same
:func:`redact` (``web.logs``).

A log line next to a response could otherwise tie it to a person or a
moment: a client address (``Invalid request from ip=...``), a query string
(``?code=...`` carries an invitation code), a response size (with any size
leak, the answers in submission order) or a time of day.
"""

from __future__ import annotations

import ipaddress
import logging
import re

from gunicorn import glogging

#: The development server's prefix: ``<address> - - [<date and time>] ``.
_WERKZEUG_PREFIX = re.compile(r"^\S+ - - \[[^\]]*\] ", re.MULTILINE)
#: A query string: from a ``?`` right after a path or word to the next space or quote (not SQL's ``(?, ?)``).
_QUERY = re.compile(r"(?<=[\w/.%~-])\?[^\s\"']+")
#: A request-log line ``"GET /path HTTP/1.1" 200 1234``: the trailing size.
_REQUEST_LINE_SIZE = re.compile(r'^(".*" \S+) (?:\d+|-)$', re.MULTILINE)
_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w])")
_IPV6_CANDIDATE = re.compile(r"(?<![\w:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:%[\w.-]+)?")
_TIME_OF_DAY = re.compile(r"(?<!\d)\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?!\d)")
_LOG_DATE = re.compile(r"\b\d{1,2}/[A-Z][a-z]{2}/\d{4}\b")

ADDRESS = "<address>"
TIME = "<time>"


def _ipv6_or_text(match: re.Match) -> str:
    """An IPv6 address (``::1``, ``fe80::1%eth0``, ``2001:db8::1:``) becomes :data:`ADDRESS`."""
    text = match.group(0)
    core = text.rstrip(":")
    try:
        ipaddress.ip_address(core.split("%")[0])
    except ValueError:
        return text
    return ADDRESS + text[len(core) :]


def redact(message: str) -> str:
    """``message`` without client addresses, query strings, response sizes or times of day."""
    message = _WERKZEUG_PREFIX.sub("", message)
    message = _QUERY.sub("", message)
    message = _REQUEST_LINE_SIZE.sub(r"\1", message)
    message = _IPV4.sub(ADDRESS, message)
    message = _IPV6_CANDIDATE.sub(_ipv6_or_text, message)
    message = _TIME_OF_DAY.sub(TIME, message)
    return _LOG_DATE.sub(TIME, message)


class RedactingFormatter(logging.Formatter):
    """A formatter whose whole output (message, traceback) goes through :func:`redact`.

    Give it a format without ``%(asctime)s``.
    """

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class GunicornLogger(glogging.Logger):
    """Gunicorn's logger with no time in the error log and every line redacted.

    Gunicorn's default error format starts with ``%(asctime)s``, and it logs
    ``Invalid request from ip=<address>: ...`` and
    ``Error handling request <method> <uri with query>``.
    """

    error_fmt = "[%(process)d] [%(levelname)s] %(message)s"
    datefmt = None

    def setup(self, cfg) -> None:
        super().setup(cfg)
        for log, fmt in ((self.error_log, self.error_fmt), (self.access_log, self.access_fmt)):
            for handler in log.handlers:
                handler.setFormatter(RedactingFormatter(fmt))
