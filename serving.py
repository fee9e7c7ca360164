"""Production serving with gunicorn: what the servers write to their logs, and how long a client may take
to send its request.

Logs: no client address, no query string, no size, no time of day. Used by
``gunicorn.conf.py`` (``logger_class``, ``worker_class``, its request hooks)
in the gunicorn master, so it imports nothing of the app: the workers import
the app after the fork. The development server's log (``flask run``) goes
through the same :func:`redact` (``web.logs``).

A log line next to a response could otherwise tie it to a person or a
moment: a client address (``Invalid request from ip=...``), a query string
(``?code=...`` carries an invitation code), a response size (with any size
leak, the answers in submission order) or a time of day.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import socket
import time

from gunicorn import glogging
from gunicorn.http import errors
from gunicorn.workers import gthread
from werkzeug.exceptions import BadRequest, RequestTimeout

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


# --------------------------------------------------------------------------
# Slow and malformed requests.

#: Seconds a client has to send its whole request (line, headers and body) once the server starts
#: reading it; ``RR_READ_TIMEOUT`` overrides it.
READ_TIMEOUT_SECONDS = 10.0


def read_timeout(environ=os.environ) -> float:
    """``RR_READ_TIMEOUT`` as a positive number of seconds, else :data:`READ_TIMEOUT_SECONDS`."""
    text = environ.get("RR_READ_TIMEOUT", "")
    if not text:
        return READ_TIMEOUT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise ValueError(f"RR_READ_TIMEOUT must be a positive number of seconds, not {text!r}")
    return seconds


class ReadTimeout(errors.NoMoreData):
    """The client did not send its request within the read timeout.

    A :class:`gunicorn.http.errors.NoMoreData`, so that gunicorn treats a
    request line or headers that never arrive as a client gone (the
    connection is closed, a debug line at most); a body that never arrives
    is answered 408 by :class:`GuardedBody`.
    """

    def __init__(self, seconds: float):
        super().__init__()
        self.seconds = seconds

    def __str__(self) -> str:
        return f"the request did not arrive within {self.seconds:g} seconds"


class DeadlineSocket(socket.socket):
    """A client connection whose reads all end by one deadline, :attr:`seconds` after the first.

    Gunicorn reads a request with blocking ``recv`` calls and no timeout:
    a client that sends its headers and never its body (or sends it a byte
    at a time) holds the thread that reads it for as long as it likes. Here
    each blocking ``recv`` waits at most until the deadline, then raises
    :class:`ReadTimeout`. A shorter timeout of gunicorn's own (its drain of an
    unread body) is left as it is; a non-blocking ``recv`` does not wait.
    """

    seconds: float
    deadline: float | None

    @classmethod
    def adopt(cls, sock: socket.socket, seconds: float) -> DeadlineSocket:
        """``sock`` as a :class:`DeadlineSocket` (the same connection; ``sock`` itself is detached)."""
        timeout = sock.gettimeout()
        adopted = cls(sock.family, sock.type, sock.proto, fileno=sock.detach())
        adopted.settimeout(timeout)
        adopted.seconds, adopted.deadline = seconds, None
        return adopted

    def recv(self, bufsize: int, flags: int = 0) -> bytes:
        previous = self.gettimeout()
        if previous == 0.0:
            return super().recv(bufsize, flags)
        if self.deadline is None:
            self.deadline = time.monotonic() + self.seconds
        remaining = self.deadline - time.monotonic()
        if previous is not None and previous < remaining:
            return super().recv(bufsize, flags)
        if remaining <= 0:
            raise ReadTimeout(self.seconds)
        self.settimeout(remaining)
        try:
            return super().recv(bufsize, flags)
        except TimeoutError:
            raise ReadTimeout(self.seconds) from None
        finally:
            self.settimeout(previous)


class ThreadWorker(gthread.ThreadWorker):
    """Gunicorn's threaded worker with a deadline on every connection's reads (:class:`DeadlineSocket`)."""

    def init_process(self) -> None:
        self.read_timeout = read_timeout()
        super().init_process()

    def enqueue_req(self, conn) -> None:
        if not isinstance(conn.sock, DeadlineSocket):
            conn.sock = DeadlineSocket.adopt(conn.sock, self.read_timeout)
        super().enqueue_req(conn)


#: Gunicorn's errors in a request body, each a client's mistake, and what the 400 says (never the bytes sent).
BODY_ERRORS = {
    errors.InvalidChunkSize: "a chunk size is not a hexadecimal number",
    errors.ChunkMissingTerminator: "a chunk does not end with CRLF",
    errors.InvalidChunkExtension: "a chunk extension is malformed",
    errors.InvalidHeader: "its trailer is malformed",
    errors.LimitRequestHeaders: "its trailer is too large",
    errors.NoMoreData: "it ended before it was complete",
    errors.ParseException: "it could not be parsed",
}


class GuardedBody:
    """A request body (``wsgi.input``) whose client errors are HTTP errors the app answers.

    Gunicorn parses a chunked body only as the app reads it, so a bad chunk
    size surfaced in the app as gunicorn's ``InvalidChunkSize``: a 500 and a
    traceback in the error log. Here a malformed body is a 400 that says so,
    and a body that does not arrive in time (:class:`ReadTimeout`) a 408;
    Flask renders either as an error page and logs no traceback. A body that
    ends before its ``Content-Length`` (the client closed the connection) is
    a 400 too: gunicorn hands the app the bytes that came, and a form cut
    short must not be read as a shorter form.
    """

    def __init__(self, body, length: int | None = None):
        self.body = body
        self.length = length
        self.received = 0

    def _guarded(self, read, size):
        try:
            data = read(size)
        except ReadTimeout as error:
            raise RequestTimeout(f"The request body did not arrive within {error.seconds:g} seconds.") from None
        except (errors.ParseException, errors.NoMoreData) as error:
            raise BadRequest(f"The request body is malformed: {body_error(error)}.") from None
        self.received += len(data)
        if not data and size != 0 and self.length is not None and self.received < self.length:
            raise BadRequest(f"The request body is malformed: {BODY_ERRORS[errors.NoMoreData]}.")
        return data

    def read(self, size=None) -> bytes:
        return self._guarded(self.body.read, size)

    def readline(self, size=None) -> bytes:
        return self._guarded(self.body.readline, size)

    def readlines(self, size=None) -> list[bytes]:
        lines = []
        while line := self.readline():
            lines.append(line)
        return lines

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


def body_error(error: Exception) -> str:
    """What :data:`BODY_ERRORS` says of ``error``, by its closest class."""
    return next(text for kind, text in BODY_ERRORS.items() if isinstance(error, kind))


def guard_body(worker, req) -> None:
    """Gunicorn's ``pre_request`` hook: the app reads the body through :class:`GuardedBody`."""
    length = next((int(value) for name, value in req.headers if name == "CONTENT-LENGTH"), None)
    req.body = GuardedBody(req.body, length)


def unguard_body(worker, req, environ, resp) -> None:
    """Gunicorn's ``post_request`` hook: gunicorn's own body back, for it to drain or close."""
    if isinstance(req.body, GuardedBody):
        req.body = req.body.body
