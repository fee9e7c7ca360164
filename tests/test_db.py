"""web/db.py: one kept connection per worker thread, clean at the start of every request."""

from __future__ import annotations

import threading

import pytest

from web.db import get_db

pytestmark = pytest.mark.sqlite_only(
    reason="web/db.py's kept SQLite connection per worker thread (PostgreSQL takes one from a pool)"
)


def test_requests_on_one_thread_share_one_connection(app):
    with app.test_request_context("/"):
        first = get_db()
    with app.test_request_context("/"):
        second = get_db()
    assert first is second
    assert first.execute("SELECT 1").fetchone() == (1,)  # still open after the first request ended


def test_each_thread_has_its_own_connection(app):
    with app.test_request_context("/"):
        here = get_db()
    there = []

    def other_thread():
        with app.test_request_context("/"):
            there.append(get_db())

    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join()
    assert there and there[0] is not here


def test_a_transaction_left_open_by_a_request_is_rolled_back_at_its_end(app):
    with app.test_request_context("/"):
        db = get_db()
        db.execute("CREATE TABLE scratch (x INTEGER)")
        db.conn.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO scratch VALUES (1)")
        assert db.conn.in_transaction
    assert not db.conn.in_transaction
    with app.test_request_context("/"):
        assert get_db().execute("SELECT COUNT(*) FROM scratch").fetchone() == (0,)
