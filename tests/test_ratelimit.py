"""Tests of the fixed-window rate limiter."""

from __future__ import annotations

import multiprocessing

import pytest

from storage import ratelimit
from tests.helpers.records import frontend_waits


@pytest.fixture
def counts(new_database):
    """The rate-limit counts on each backend: the SQLite counts file, then a PostgreSQL database's tables."""
    conn = ratelimit.connect(new_database("r"))
    yield conn
    conn.close()


def test_window_fills_then_rolls_over(counts):
    conn = counts
    limit = ratelimit.Limit(2, 60)
    assert [ratelimit.hit(conn, "b", limit, 120.0).allowed for _ in range(3)] == [True, True, False]
    assert ratelimit.hit(conn, "b", limit, 150.0).retry_after == 31
    assert ratelimit.hit(conn, "b", limit, 180.0).allowed  # next window
    assert ratelimit.hit(conn, "other", limit, 180.0).allowed
    windows = {row[0] for row in conn.execute('SELECT "window" FROM window_hits WHERE bucket = ?', ["b"])}
    assert windows == {3}  # the old window was deleted


def test_every_write_deletes_what_has_run_out(counts):
    """Any write, whatever its bucket, deletes every count whose window has ended and every
    failure record past its lock and quiet time: no address hash outlives its use."""
    conn = counts
    ratelimit.hit(conn, "submit:aaa", ratelimit.Limit(5, 600), 100.0)
    ratelimit.hit(conn, "signin:bbb", ratelimit.Limit(5, 60), 100.0)
    ratelimit.record_signin_failure(conn, "name", "addr", 100.0)
    ratelimit.hit(conn, "other", ratelimit.Limit(5, 600), 601.0)  # both earlier windows are over
    assert [row[0] for row in conn.execute("SELECT bucket FROM window_hits")] == ["other"]
    ratelimit.record_signin_failure(conn, "name2", "addr", 100.0 + ratelimit.FAILURES_FORGOTTEN_SECONDS + 1)
    assert [row[0] for row in conn.execute("SELECT name_key FROM signin_failures")] == ["name2"]


def test_a_hit_on_the_sqlite_file_is_one_statement_but_the_first_of_each_second_deletes_what_ran_out(tmp_path):
    """Every submission counts its arrival inside the answers database's write lock: on the SQLite counts file
    a hit is one statement, and the windows that ran out are deleted by a connection's first hit of each
    second (one short transaction), so no address hash outlives its window by more than that second."""
    conn = ratelimit.connect(tmp_path / "r.sqlite3")
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    ratelimit.hit(conn, "old", ratelimit.Limit(5, 60), 100.0)
    assert [s.split()[0] for s in statements] == ["BEGIN", "DELETE", "INSERT", "COMMIT"]
    statements.clear()
    assert ratelimit.hit(conn, "old", ratelimit.Limit(5, 60), 100.9).count == 2
    assert [s.split()[0] for s in statements] == ["INSERT"]
    assert not conn.in_transaction
    ratelimit.hit(conn, "new", ratelimit.Limit(5, 60), 120.5)  # "old" ran out at 120: a new second deletes it
    assert [row[0] for row in conn.execute("SELECT bucket FROM window_hits")] == ["new"]
    statements.clear()
    ratelimit.hit(conn, "new", ratelimit.Limit(5, 60), 110.0)  # a clock that went back deletes at once too
    assert statements[0] == "BEGIN IMMEDIATE"
    conn.close()


def test_signin_failures_lock_per_name_and_address(counts):
    conn = counts
    for _ in range(ratelimit.FREE_FAILURES - 1):
        ratelimit.record_signin_failure(conn, "ana", "stranger", 1000.0)
    assert ratelimit.signin_lock(conn, "ana", "stranger", 1000.0) == 0
    assert ratelimit.record_signin_failure(conn, "ana", "stranger", 1000.0) == ratelimit.FREE_FAILURES
    assert ratelimit.signin_lock(conn, "ana", "stranger", 1000.0) == ratelimit.FIRST_LOCK_SECONDS + 1
    assert ratelimit.signin_lock(conn, "ana", "owner", 1000.0) == 0  # the owner elsewhere is not locked
    assert ratelimit.signin_lock(conn, "ana", "stranger", 1000.0 + ratelimit.FIRST_LOCK_SECONDS) == 0
    ratelimit.clear_signin_failures(conn, "ana")
    assert conn.execute("SELECT COUNT(*) FROM signin_failures").fetchone()[0] == 0


@pytest.mark.parametrize("failures, seconds", [(4, 0), (5, 30), (6, 60), (7, 120), (20, 900)])
def test_lock_doubles_up_to_fifteen_minutes(failures, seconds):
    assert ratelimit.lock_seconds(failures) == seconds


def test_exclusive_slots_bound_concurrent_holders(tmp_path):
    path = tmp_path / "slots"
    with (
        ratelimit.exclusive_slot(path, 2) as first,
        ratelimit.exclusive_slot(path, 2) as second,
        ratelimit.exclusive_slot(path, 2) as third,
    ):
        assert (first, second, third) == (True, True, False)
    with ratelimit.exclusive_slot(path, 2) as again:
        assert again  # released on leaving the block
    with pytest.raises(ValueError, match="got 0"), ratelimit.exclusive_slot(path, 0):
        pass


@pytest.mark.parametrize("text", ["300", "a/b", "0/60", "5/0", "1/2/3"])
def test_bad_limits_name_the_value(text):
    with pytest.raises(ValueError, match=repr(text)):
        ratelimit.Limit.parse(text)


def _hammer(path, hits, out):
    conn = ratelimit.connect(path)
    out.put(sum(ratelimit.hit(conn, "shared", ratelimit.Limit(50, 3600), 10.0).allowed for _ in range(hits)))
    conn.close()


def test_limit_holds_across_processes(new_database):
    """Four processes (on PostgreSQL: as from four app servers) hitting one bucket at once."""
    path = new_database("r")
    ratelimit.connect(path).close()
    out = multiprocessing.get_context("fork").Queue()
    workers = [multiprocessing.get_context("fork").Process(target=_hammer, args=(path, 30, out)) for _ in range(4)]
    for w in workers:
        w.start()
    allowed = sum(out.get(timeout=60) for _ in workers)
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


def test_a_hit_on_postgresql_is_one_round_trip(postgres_url, tmp_path):
    """Deleting what has run out and counting the hit: one statement, atomic in autocommit (was four waits:
    BEGIN, DELETE, the count, COMMIT). Every submission counts its arrival, so this is on its path."""
    conn = ratelimit.connect(postgres_url)
    ratelimit.hit(conn, "old", ratelimit.Limit(5, 60), 100.0)
    trace = tmp_path / "libpq.trace"
    with open(trace, "w") as sink:
        conn.conn.pgconn.trace(sink.fileno())
        verdict = ratelimit.hit(conn, "new", ratelimit.Limit(5, 60), 200.0)
        conn.conn.pgconn.untrace()
    assert verdict.allowed and verdict.count == 1
    assert [row[0] for row in conn.execute("SELECT bucket FROM window_hits")] == ["new"]  # "old" ran out
    assert frontend_waits(trace.read_text()) == 1
    conn.close()


@pytest.mark.parametrize(
    "address, network",
    [
        ("198.51.100.7", "198.51.100.0/24"),
        ("198.51.100.254", "198.51.100.0/24"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::1", "2001:db8:1:2::/64"),
        ("::ffff:198.51.100.7", "198.51.100.0/24"),  # an IPv4 client seen through an IPv6 socket
        ("fe80::1%eth0", "fe80::/64"),
    ],
)
def test_a_network_is_an_ipv4_slash_24_or_an_ipv6_slash_64(address, network):
    assert ratelimit.network_of(address) == network


@pytest.mark.parametrize("address", [None, "", "not an address", "198.51.100.7, 10.0.0.1", "1.2.3.4.5"])
def test_every_address_that_is_not_one_shares_a_single_network(address):
    """A garbled client address cannot become a budget of its own: every such value is one network."""
    assert ratelimit.network_of(address) == ratelimit.network_of("garbled") == ratelimit.UNKNOWN_NETWORK
