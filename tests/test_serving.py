"""Slow and malformed requests against the production server (``gunicorn.conf.py``, ``serving.py``).

A client that sends its headers and never its body must not hold a worker,
and a malformed body (a bad chunk size, a body cut short) is a 400 that says
what is wrong, never a 500 with a traceback in the error log. The server is
the real gunicorn on loopback (:class:`tests.helpers.servers.Server`); every wait is
bounded.
"""

from __future__ import annotations

import runpy
import socket
import time

import pytest
import requests
from gunicorn.http.errors import InvalidChunkSize
from werkzeug.exceptions import HTTPException

from app import ROOT
from serving import READ_TIMEOUT_SECONDS, DeadlineSocket, GuardedBody, ReadTimeout, read_timeout
from storage import connection
from tests.helpers.servers import Client, Server

pytestmark = pytest.mark.both_backends

#: The read timeout of the servers started here (seconds), short to keep the tests short.
TEST_READ_TIMEOUT = 2
FORM_HEADERS = b"POST /s/quiz HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
#: Headers with a Content-Length and no body after them.
HEADERS_ONLY = FORM_HEADERS + b"Content-Length: 100\r\n\r\n"


def configured_threads() -> int:
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))["threads"]


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def open_slow(port: int, count: int, data: bytes = HEADERS_ONLY) -> list[socket.socket]:
    """``count`` connections that each send ``data`` and nothing more."""
    connections = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(data)
        connections.append(sock)
    return connections


def reply(sock: socket.socket, seconds: float) -> bytes:
    """Everything the server sends on ``sock`` until it closes it (at most ``seconds`` of waiting)."""
    sock.settimeout(seconds)
    chunks = []
    with sock:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def timed_get(url: str) -> float:
    """Seconds an honest ``GET /`` takes to be answered 200."""
    start = time.monotonic()
    response = requests.get(f"{url}/", timeout=10)
    assert response.status_code == 200
    return time.monotonic() - start


# --------------------------------------------------------------------------
# The pieces.


@pytest.mark.parametrize("text, seconds", [("", READ_TIMEOUT_SECONDS), ("2.5", 2.5), ("30", 30.0)])
def test_read_timeout_comes_from_rr_read_timeout(text, seconds):
    assert read_timeout({"RR_READ_TIMEOUT": text}) == seconds


@pytest.mark.parametrize("text", ["0", "-1", "ten", "inf", "nan"])
def test_a_read_timeout_that_is_not_a_positive_number_is_refused_naming_it(text):
    with pytest.raises(ValueError, match=f"RR_READ_TIMEOUT must be a positive number of seconds, not '{text}'"):
        read_timeout({"RR_READ_TIMEOUT": text})


@pytest.fixture
def connected():
    """A connected pair of sockets: a server end as a :class:`DeadlineSocket` of 0.3 s, and a client end."""
    server, client = socket.socketpair()
    server = DeadlineSocket.adopt(server, 0.3)
    with server, client:
        yield server, client


def test_a_read_that_never_comes_ends_at_the_deadline(connected):
    server, _ = connected
    start = time.monotonic()
    with pytest.raises(ReadTimeout, match="did not arrive within 0.3 seconds"):
        server.recv(100)
    assert 0.25 < time.monotonic() - start < 3
    assert server.gettimeout() is None  # blocking again, for gunicorn's writes


def test_the_deadline_counts_from_the_first_read_so_a_trickle_ends_too(connected):
    server, client = connected
    client.sendall(b"POST")
    assert server.recv(100) == b"POST"
    time.sleep(0.35)  # past the deadline; the client still sends, a byte at a time
    client.sendall(b" ")
    with pytest.raises(ReadTimeout):
        server.recv(100)


def test_a_shorter_timeout_of_gunicorns_own_is_kept_and_a_non_blocking_read_does_not_wait(connected):
    server, _ = connected
    server.settimeout(0.05)  # as gunicorn's drain of an unread body sets it
    with pytest.raises(TimeoutError) as raised:
        server.recv(100)
    assert not isinstance(raised.value, ReadTimeout) and server.gettimeout() == 0.05
    server.setblocking(False)
    with pytest.raises(BlockingIOError):
        server.recv(100)


class _Body:
    """A stand-in for gunicorn's body: gives ``data`` once, or raises ``error``."""

    def __init__(self, data: bytes = b"", error: Exception | None = None):
        self.data, self.error = data, error

    def read(self, size=None) -> bytes:
        if self.error:
            raise self.error
        data, self.data = self.data, b""
        return data

    readline = read


@pytest.mark.parametrize(
    "body, length, status, message",
    [
        (_Body(error=InvalidChunkSize(b"zz")), None, 400, "a chunk size is not a hexadecimal number"),
        (_Body(error=ReadTimeout(2)), None, 408, "did not arrive within 2 seconds"),
        (_Body(b"a=1"), 100, 400, "it ended before it was complete"),
    ],
)
def test_a_guarded_body_turns_gunicorns_errors_into_http_errors(body, length, status, message):
    guarded = GuardedBody(body, length)
    with pytest.raises(HTTPException) as raised:
        while guarded.read(65536):
            pass
    assert raised.value.code == status and message in raised.value.description


def test_a_guarded_body_of_its_full_length_reads_as_it_is():
    guarded = GuardedBody(_Body(b"a=1&b=2"), 7)
    assert guarded.read(65536) == b"a=1&b=2" and guarded.read(65536) == b""


# --------------------------------------------------------------------------
# The real server.


@pytest.mark.slow
def test_bodies_that_never_come_do_not_hold_the_workers(tmp_path):
    """As many clients as the server has threads, less one, send their headers and never their body: an
    honest request is answered at once, and each of them gets a 408 at the read timeout. Twice as many as it
    has threads: the honest request waits for threads to free, about two read timeouts. A client whose
    headers never end is cut off at the read timeout too, with no answer."""
    server = Server(tmp_path)
    server.env["RR_READ_TIMEOUT"] = str(TEST_READ_TIMEOUT)
    slots = server.workers * configured_threads()
    try:
        url = server.start()
        slow = open_slow(port_of(url), slots - 2)
        slow_headers = open_slow(port_of(url), 1, FORM_HEADERS)
        time.sleep(0.5)  # the workers take the slow connections before the honest one comes
        assert timed_get(url) < 2
        for sock in slow:
            answer = reply(sock, TEST_READ_TIMEOUT + 10)
            assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive within 2 seconds" in answer
        assert reply(slow_headers[0], TEST_READ_TIMEOUT + 10) == b""

        slow = open_slow(port_of(url), 2 * slots)
        time.sleep(0.5)
        assert timed_get(url) < 3 * TEST_READ_TIMEOUT + 2
        assert all(reply(sock, 3 * TEST_READ_TIMEOUT + 10).startswith(b"HTTP/1.1 408") for sock in slow)
    finally:
        server.stop()
    log = server.log.read_text()
    assert "Traceback" not in log and '" 500' not in log
    assert log.count('"POST /s/quiz" 408') == 3 * slots - 2


#: Malformed request bodies and transfer encodings: (what, request, whether the client then closes its
#: sending side, what the 400 says).
MALFORMED = [
    (
        "a chunk size that is not hexadecimal",
        FORM_HEADERS + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
        False,
        "The request body is malformed: a chunk size is not a hexadecimal number.",
    ),
    (
        "a chunk without its CRLF",
        FORM_HEADERS + b"Transfer-Encoding: chunked\r\n\r\n3\r\nabcXY0\r\n\r\n",
        False,
        "The request body is malformed: a chunk does not end with CRLF.",
    ),
    (
        "a malformed chunk extension",
        FORM_HEADERS + b"Transfer-Encoding: chunked\r\n\r\n3;=x\r\nabc\r\n0\r\n\r\n",
        False,
        "The request body is malformed: a chunk extension is malformed.",
    ),
    (
        "a malformed trailer",
        FORM_HEADERS + b"Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nno colon\r\n\r\n",
        False,
        "The request body is malformed: its trailer is malformed.",
    ),
    (
        "a chunked body cut short",
        FORM_HEADERS + b"Transfer-Encoding: chunked\r\n\r\n10\r\nabc",
        True,
        "The request body is malformed: it ended before it was complete.",
    ),
    (
        "a body shorter than its Content-Length",
        FORM_HEADERS + b"Content-Length: 100\r\n\r\nabc",
        True,
        "The request body is malformed: it ended before it was complete.",
    ),
    (
        "chunked and a Content-Length",
        FORM_HEADERS + b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        False,
        "Invalid HTTP Header: &#x27;CONTENT-LENGTH&#x27;",
    ),
    (
        "chunked twice",
        FORM_HEADERS + b"Transfer-Encoding: chunked, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        False,
        "Invalid HTTP Header: &#x27;TRANSFER-ENCODING&#x27;",
    ),
    (
        "two Content-Lengths",
        FORM_HEADERS + b"Content-Length: 3\r\nContent-Length: 4\r\n\r\nabc",
        False,
        "Invalid HTTP Header: &#x27;CONTENT-LENGTH&#x27;",
    ),
]


@pytest.mark.slow
def test_malformed_bodies_are_400_with_a_message_no_traceback_and_nothing_stored(tmp_path, app_database_url):
    server = Server(tmp_path)
    server.workers = 1  # every request goes to a worker like any other: one boots in a third of the time
    if app_database_url:
        server.env["FLASK_DATABASE_URL"] = app_database_url
    answers = {}
    try:
        url = server.start()
        for what, request, close_sending, _ in MALFORMED:
            with socket.create_connection(("127.0.0.1", port_of(url)), timeout=10) as sock:
                sock.sendall(request)
                if close_sending:
                    sock.shutdown(socket.SHUT_WR)
                answers[what] = reply(sock, 10).decode()
        client = Client(url)  # and then a good submission, stored
        client.submit("serving-test-key-0001")
        assert client.acknowledged == ["serving-test-key-0001"]
    finally:
        server.stop()
    for what, _, _, message in MALFORMED:
        assert answers[what].startswith("HTTP/1.1 400") and message in answers[what], (what, answers[what])
    log = server.log.read_text()
    assert "Traceback" not in log and '" 500' not in log, log
    database = connection.connect(app_database_url or server.database)
    try:
        assert database.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 1
    finally:
        database.close()
