"""Does the database file's layout reveal the order in which responses arrived?

The ids are random, so the b-trees keep rows in random-id order; but inside
a page SQLite writes each new cell into the free space below the others, so
cell byte offsets can follow arrival until the page is rebuilt. These tests
read the raw pages of every b-tree that holds response ids (the table and
its indexes), measure that signal, and check that :func:`connection.rebuild`
and :func:`connection.backup` remove it.

The statistic, per b-tree: on each leaf page, sort the cells by byte offset
and count adjacent pairs in which the cell at the lower offset arrived
later (SQLite fills a page's free space from the end downwards, so that is
the direction arrival order shows in). If offsets carry no arrival order,
the arrival ranks within a page are a uniformly random permutation of its n
cells (ids are random, so which rows share a page is independent of when
they came), and the count is the number of descents of a random
permutation: mean (n - 1) / 2, variance (n + 1) / 12 (the Eulerian
distribution; e.g. Bona, *Combinatorics of Permutations*, 2012, ch. 1).
Pages are independent given their rows, so the b-tree's z score adds these
up. A check fails at |z| > Z = 4.5; with at most 6 such checks in a test,
a false failure has probability below 6 x 6.8e-6 = 4e-5.

The share of *all* same-page pairs in arrival order (the review's figure)
is printed too; its spread under no order is harder to bound and, with a
weak signal, it separates less: measured over 15 runs of 240 responses it
averaged 52% in the table and 56-59% in the indexes.
"""

from __future__ import annotations

import itertools
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from storage import connection, migrations, responses
from surveys import submission

pytestmark = pytest.mark.sqlite_only(
    reason="SQLite's page layout and write-ahead log, and compact and backup rebuilding them"
)

RESPONSES = 240
Z = 4.5

#: Bytes taken by a record value of each serial type below 12 (SQLite file format, 2.1).
_FIXED_SIZES = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8, 8: 0, 9: 0}
_INDEX_LEAF, _INDEX_INTERIOR = 0x0A, 0x02


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    """SQLite's big-endian varint at ``buf[i]``: (value, next index)."""
    value = 0
    for k in range(8):
        byte = buf[i + k]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, i + k + 1
    return (value << 8) | buf[i + 8], i + 9


def _record_texts(page: bytes, offset: int) -> list[str]:
    """The text values of the record in the index b-tree cell at ``offset``
    (interior cells start with a 4-byte child page number, skipped by the caller)."""
    _, start = _varint(page, offset)  # payload size (our records fit on the page)
    header_size, i = _varint(page, start)
    body, texts = start + header_size, []
    while i < start + header_size:
        serial, i = _varint(page, i)
        size = _FIXED_SIZES[serial] if serial < 12 else (serial - 12) // 2
        if serial >= 13 and serial % 2:
            texts.append(page[body : body + size].decode())
        body += size
    return texts


@dataclass(frozen=True)
class Cell:
    offset: int
    texts: list[str]


def pages_of(path: Path, btree: str, kinds=("leaf",)) -> list[list[Cell]]:
    """The cells of each page of ``btree`` (as ``dbstat`` names it), read from the raw file."""
    conn = sqlite3.connect(path)
    try:
        pages = conn.execute("SELECT pageno, pgsize, pagetype FROM dbstat WHERE name = ?", [btree]).fetchall()
    finally:
        conn.close()
    data = path.read_bytes()
    result = []
    for pageno, size, _ in [page for page in pages if page[2] in kinds]:
        page = data[(pageno - 1) * size : pageno * size]
        head = 100 if pageno == 1 else 0
        kind = page[head]
        assert kind in (_INDEX_LEAF, _INDEX_INTERIOR), f"{btree} page {pageno} is not an index b-tree page"
        pointers = head + (8 if kind == _INDEX_LEAF else 12)
        count = int.from_bytes(page[head + 3 : head + 5], "big")
        offsets = [int.from_bytes(page[pointers + 2 * c : pointers + 2 * c + 2], "big") for c in range(count)]
        skip = 0 if kind == _INDEX_LEAF else 4
        result.append([Cell(offset, _record_texts(page, offset + skip)) for offset in offsets])
    return result


def id_btrees(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [name for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE tbl_name = 'responses'")]
    finally:
        conn.close()


@dataclass(frozen=True)
class OrderSignal:
    """How far one b-tree's cell offsets follow arrival."""

    btree: str
    cells: int
    descent_share: float  # adjacent cells (by offset) with the lower one arriving later
    z: float  # of the descent count against no order
    pair_share: float  # all same-page pairs with the lower offset arriving later


def order_signal(path: Path, btree: str, arrival: dict[str, int]) -> OrderSignal | None:
    descents = adjacent = cells = pairs = in_order = 0
    mean = variance = 0.0
    for page in pages_of(path, btree):
        ranks = [arrival[next(t for t in cell.texts if t in arrival)] for cell in sorted(page, key=lambda c: c.offset)]
        n = len(ranks)
        cells += n
        if n < 2:
            continue
        descents += sum(lower > higher for lower, higher in zip(ranks, ranks[1:]))
        adjacent += n - 1
        mean += (n - 1) / 2
        variance += (n + 1) / 12
        for lower, higher in itertools.combinations(ranks, 2):
            pairs += 1
            in_order += lower > higher
    if not adjacent:
        return None  # an empty b-tree (the partial index of rows without an answer line)
    return OrderSignal(btree, cells, descents / adjacent, (descents - mean) / math.sqrt(variance), in_order / pairs)


def signals(path: Path, arrival: dict[str, int], label: str) -> list[OrderSignal]:
    found = [s for s in (order_signal(path, name, arrival) for name in id_btrees(path)) if s is not None]
    for s in found:
        print(
            f"{label:>14} {s.btree:<18} cells {s.cells:4d}  adjacent in order {s.descent_share:.3f}"
            f" (z {s.z:+.1f})  all pairs in order {s.pair_share:.3f}"
        )
    return found


def survey_response() -> submission.NoisyResponse:
    names = ("cheated", "lied", "ai_use", "year")
    return submission.NoisyResponse(
        survey_id="quiz",
        survey_version=1,
        design_id="fp1",
        design_record="{}",
        answers={"cheated": "yes", "lied": "no", "ai_use": "once", "year": "first"},
        question_designs=dict.fromkeys(names, "d1"),
        randomized_on="device",
        columns=names,
        plain=("year",),
        groups={"year": "first"},
    )


def database_path(db) -> Path:
    return Path(db.execute("PRAGMA database_list").fetchone()[2])


def store_in_order(db, monkeypatch) -> dict[str, int]:
    """Store RESPONSES responses one after another; return each id's arrival rank."""
    arrival: dict[str, int] = {}
    random_id = responses.new_response_id

    def recorded_id() -> str:
        new_id = random_id()  # still secrets.token_hex
        arrival[new_id] = len(arrival)
        return new_id

    monkeypatch.setattr(responses, "new_response_id", recorded_id)
    for number in range(RESPONSES):
        assert responses.store_response(db, survey_response(), f"key-{number}", "2026-11-22")
    monkeypatch.setattr(responses, "new_response_id", random_id)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file, as a reader of it sees them
    assert len(arrival) == RESPONSES
    return arrival


@pytest.fixture
def arrived(fresh_db, monkeypatch) -> dict[str, int]:
    return store_in_order(fresh_db, monkeypatch)


def test_pages_follow_arrival_until_rebuild(fresh_db, arrived):
    path = database_path(fresh_db)
    before = signals(path, arrived, "before rebuild")
    assert max(s.z for s in before) > Z, "the measurement should see the order left by sequential inserts"
    assert connection.rebuild(fresh_db) == RESPONSES
    after = signals(path, arrived, "after rebuild")
    assert {s.btree for s in after} == {s.btree for s in before}
    assert all(abs(s.z) < Z for s in after), after
    assert Path(f"{path}-wal").stat().st_size == 0  # no older page image left in the log


def test_backup_is_a_rebuilt_copy_without_arrival_order(fresh_db, arrived, tmp_path):
    live = signals(database_path(fresh_db), arrived, "live")
    copy = tmp_path / "copy.sqlite3"
    assert connection.backup(database_path(fresh_db), copy) == RESPONSES
    backed_up = signals(copy, arrived, "backup")
    assert max(s.z for s in live) > Z  # the live file has the order, the copy must not
    assert {s.btree for s in backed_up} == {s.btree for s in live}
    assert all(abs(s.z) < Z for s in backed_up), backed_up
    header = copy.read_bytes()[:100]
    assert (header[18], header[19]) == (1, 1)  # rollback journal, not WAL: the file alone is the backup
    assert not Path(f"{copy}-wal").exists() and not Path(f"{copy}-shm").exists()
    assert not Path(f"{copy}.partial").exists()


def raw_and_live_copies(path: Path, ids) -> tuple[dict[str, int], dict[str, int]]:
    """How often each id's bytes occur in the file, and in live cells of the b-trees."""
    data = path.read_bytes()
    raw = {i: data.count(i.encode()) for i in ids}
    live = dict.fromkeys(ids, 0)
    for btree in id_btrees(path):
        for page in pages_of(path, btree, kinds=("leaf", "internal")):
            for cell in page:
                for text in cell.texts:
                    if text in live:
                        live[text] += 1
    return raw, live


def stale_copies(path: Path, ids) -> int:
    raw, live = raw_and_live_copies(path, ids)
    return sum(raw.values()) - sum(live.values())


def test_moved_cells_leave_no_stale_copies(fresh_db, arrived, tmp_path, monkeypatch):
    """``secure_delete``: the space a page split frees is zeroed, so the file
    holds each id only in live cells, not in leftovers of older layouts.

    Debian's SQLite is built with secure delete on by default, other builds
    are not; ``connect`` sets it either way. The control database, written
    with it turned off, shows that the count sees leftovers when they exist.
    """
    assert fresh_db.execute("PRAGMA secure_delete").fetchone()[0] == 1
    control = connection.connect(tmp_path / "control.sqlite3")
    migrations.migrate(control)
    control.execute("PRAGMA secure_delete = OFF")
    control_stale = stale_copies(tmp_path / "control.sqlite3", store_in_order(control, monkeypatch))
    control.close()
    stale = stale_copies(database_path(fresh_db), arrived)
    copy = tmp_path / "copy.sqlite3"
    connection.backup(database_path(fresh_db), copy)
    copy_stale = stale_copies(copy, arrived)
    print(f"stale id copies: {stale} (secure_delete on), {control_stale} (off), {copy_stale} (backup)")
    assert control_stale > 0
    assert stale == 0 and copy_stale == 0
