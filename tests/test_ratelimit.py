"""Tests of the fixed-window rate limiter."""

from __future__ import annotations

import multiprocessing

import pytest

from surveys import ratelimit


def test_window_fills_then_rolls_over(tmp_path):
    conn = ratelimit.connect(tmp_path / "r.sqlite3")
    limit = ratelimit.Limit(2, 60)
    assert [ratelimit.hit(conn, "b", limit, 120.0).allowed for _ in range(3)] == [True, True, False]
    assert ratelimit.hit(conn, "b", limit, 150.0).retry_after == 31
    assert ratelimit.hit(conn, "b", limit, 180.0).allowed  # next window
    assert ratelimit.hit(conn, "other", limit, 180.0).allowed
    windows = {row[0] for row in conn.execute("SELECT window FROM hits WHERE bucket = 'b'")}
    assert windows == {3}  # the old window was deleted


@pytest.mark.parametrize("text", ["300", "a/b", "0/60", "5/0", "1/2/3"])
def test_bad_limits_name_the_value(text):
    with pytest.raises(ValueError, match=repr(text)):
        ratelimit.Limit.parse(text)


def _hammer(path, hits, out):
    conn = ratelimit.connect(path)
    out.put(sum(ratelimit.hit(conn, "shared", ratelimit.Limit(50, 3600), 10.0).allowed for _ in range(hits)))


def test_limit_holds_across_processes(tmp_path):
    path = tmp_path / "r.sqlite3"
    ratelimit.connect(path).close()
    out = multiprocessing.get_context("fork").Queue()
    workers = [multiprocessing.get_context("fork").Process(target=_hammer, args=(path, 30, out)) for _ in range(4)]
    for w in workers:
        w.start()
    allowed = sum(out.get(timeout=30) for _ in workers)
    for w in workers:
        w.join(timeout=30)
    assert allowed == 50  # 120 hits from 4 processes, exactly the limit let through


def test_counts_file_is_private_and_deleted_windows_are_zeroed(tmp_path, umask_022):
    import os

    conn = ratelimit.connect(tmp_path / "r.sqlite3")
    ratelimit.hit(conn, "b", ratelimit.Limit(2, 60), 120.0)
    names = ("r.sqlite3", "r.sqlite3-wal", "r.sqlite3-shm")
    assert {name: os.stat(tmp_path / name).st_mode & 0o777 for name in names} == dict.fromkeys(names, 0o600)
    assert conn.execute("PRAGMA secure_delete").fetchone()[0] == 1
