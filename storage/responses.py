"""The write path: responses, submission keys, invitation codes, and the
survey-level state the traffic leaves (the arrival count, the hour histogram,
burst marks). Their reads are :mod:`storage.burst_days`; the open/closed state
is :mod:`storage.survey_states`.

Takes a :class:`sqlite_utils.Database` and plain values (a
:class:`surveys.submission.NoisyResponse` to store); knows nothing of Flask.
Every write is one short ``BEGIN IMMEDIATE`` transaction: the write lock is
taken up front, so concurrent writers queue on the busy timeout instead of
failing with "database is locked" when a read transaction tries to upgrade.
The SQL is the same on PostgreSQL (``INSERT ... ON CONFLICT`` with the
conflict target named, as PostgreSQL requires); there each write is one
``BEGIN`` ... ``COMMIT`` (:func:`storage.connection.immediate_transaction`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

import sqlite_utils

from storage import events, ratelimit
from storage.connection import is_postgres, pipelined_transaction
from storage.day_exclusions import check_day
from storage.invitation_codes import hash_code
from storage.survey_states import closed_choice, send_closed_override
from surveys.correlation import pair_rows

if TYPE_CHECKING:
    from surveys.submission import NoisyResponse

#: ``by_answer`` of respondents who left the break-down question unanswered
#: (no choice name is empty).
NO_ANSWER = ""


def new_response_id() -> str:
    """A random, unguessable, non-sequential id."""
    return secrets.token_hex(16)


def submission_key_exists(db: sqlite_utils.Database, key: str) -> bool:
    return bool(db.execute("SELECT 1 FROM submission_keys WHERE key = ?", [key]).fetchone())


class InvitationCodeError(Exception):
    """The invitation code is unknown or was used already."""


class Outcome(Enum):
    """What :func:`store_submission` did: stored the answer, or nothing (a repeated key, a refused code)."""

    STORED = "stored"
    REPEAT = "repeat"
    CODE_REFUSED = "code refused"
    REFUSED = "refused by the caller"


class BurstMark(Protocol):
    """A burst verdict: the hour is flagged, judged against ``usual_rate`` (None: by the survey's ceiling)."""

    usual_rate: float | None


#: ``burst_of(db, hour_count)``: the verdict on an answer arriving at ``hour_count`` (None: no burst).
BurstOf = Callable[[sqlite_utils.Database, "int | None"], "BurstMark | None"]

#: One clock hour, the window of an arrival count.
HOUR_SECONDS = 3600


@dataclass(frozen=True)
class Arrivals:
    """Where a stored answer's arrival is counted: ``conn``, the rate-limit connection (on PostgreSQL the
    answers database itself, so the count joins the transaction), in ``bucket``, at ``now`` (seconds)."""

    conn: object
    bucket: str
    now: float

    @property
    def hour(self) -> int:
        """The clock hour (hours since the epoch) of ``now``: kept in memory only, never stored."""
        return int(self.now // HOUR_SECONDS)


class _NotStored(Exception):
    """Raised inside the transaction to roll it back; carries the :class:`Outcome`."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.value)
        self.outcome = outcome


def store_submission(
    db: sqlite_utils.Database,
    response: NoisyResponse,
    submission_key: str,
    day: str,
    invitation_code: str | None = None,
    *,
    arrivals: Arrivals | int | None = None,
    burst_of: BurstOf | None = None,
    refuse: Callable[[bool | None], bool] | None = None,
) -> Outcome:
    """Everything a stored answer needs, in one transaction; say what happened.

    The write-side counterpart of the read service (:mod:`web.gather`): it
    claims ``submission_key`` (exactly once: a double click or a retry stores
    nothing the second time), uses ``invitation_code`` (None: the survey takes
    no codes), counts the answer's arrival in its clock hour (``arrivals``;
    a number: counted by the caller already; None: not counted), asks ``burst_of`` about that count, and stores the
    answer with its kept tallies, its hour in the histogram and, in a burst,
    its marks. ``refuse`` (None: nothing to ask) is asked first, with the
    admin's open/closed choice for the survey (:func:`closed_override`),
    read in the same round trip as the key: True rolls everything back
    (:attr:`Outcome.REFUSED`: the caller's survey does not take answers).
    A repeated key or a refused code rolls everything back:
    nothing is stored, used or counted. No time or address is stored next to
    the answer: the arrival is counted in the rate-limit tables, in a bucket
    deleted when its hour is over, and the hour lives in memory only.

    On PostgreSQL two round trips: the key, the code and a read of the
    hour's arrival count so far travel with the ``BEGIN`` (the rate-limit
    tables are in this database, ``arrivals.conn is db``) and are read
    together, the key's claim, the survey's state and the count in one
    statement (:func:`_send_first_reads`); the writes travel with the ``COMMIT``, the arrival count and
    the hour histogram last (:func:`_count_arrival_and_hour`), so the hour's
    count row, which every answer to the survey updates, is locked only for
    the end of the transaction and not while the app works between the two
    round trips. The burst rule judges the answer at the count read first
    plus one: the count it gets, with no other answer in flight; at most one
    per concurrent submission less. On SQLite the arrival is counted in the
    rate-limit file once the key and the code are accepted (the transaction
    holds the database's write lock throughout, so the counts are exact).
    """
    try:
        with pipelined_transaction(db):
            claimed, closed, counted = _send_first_reads(db, response.survey_id, submission_key, refuse, arrivals)
            used = None if invitation_code is None else _use_invitation_code(db, response.survey_id, invitation_code)
            if closed is not None and refuse(closed()):
                raise _NotStored(Outcome.REFUSED)
            if not claimed():
                raise _NotStored(Outcome.REPEAT)
            if used is not None and len(used.fetchall()) != 1:
                raise _NotStored(Outcome.CODE_REFUSED)
            hour_count = counted()
            burst = None if burst_of is None else burst_of(db, hour_count)
            _write_answer(db, response, day, hour_count, burst)
            _count_arrival(db, response.survey_id, arrivals, hour_count)
    except _NotStored as refused:
        return refused.outcome
    return Outcome.STORED


#: Claim a submission key: a second writer of the same key waits for the first to commit, then inserts nothing.
CLAIM_KEY = "INSERT INTO submission_keys (key, survey_id) VALUES (?, ?) ON CONFLICT (key) DO NOTHING RETURNING 1"


def _send_first_reads(
    db: sqlite_utils.Database,
    survey_id: str,
    submission_key: str,
    refuse: Callable[[bool | None], bool] | None,
    arrivals: Arrivals | int | None,
) -> tuple[Callable[[], bool], Callable[[], bool | None] | None, Callable[[], int | None]]:
    """Send the transaction's first statements; return ``(claimed, closed, counted)``, each read when called:
    whether the key was claimed now, the admin's open/closed choice (None when ``refuse`` is None: not asked)
    and the count to judge the answer at.

    When the rate-limit tables are in this database (PostgreSQL: ``arrivals.conn is db``), the count is the
    hour's so far plus one, read without locking its row (counted later, :func:`_count_arrival`), in the one
    statement that claims the key and reads the survey's state (a data-modifying ``WITH``: the same reads in
    the same round trip, a third of psycopg's work). On SQLite the key's claim returns the survey's state
    (:func:`_claim_and_read_state`), and the arrival is counted on the rate-limit connection when read
    (:func:`_send_arrival`)."""
    counted_here = counted_in(db, arrivals)
    if not is_postgres(db) and refuse is not None:
        return (*_claim_and_read_state(db, survey_id, submission_key), _send_arrival(arrivals))
    if not (is_postgres(db) and (refuse is not None or counted_here)):
        cursor = db.execute(CLAIM_KEY, [submission_key, survey_id])
        return lambda: bool(cursor.fetchall()), None, _send_arrival(arrivals)
    columns, params = ["EXISTS (SELECT 1 FROM claimed)"], [submission_key, survey_id]
    if refuse is not None:
        columns.append("(SELECT closed FROM survey_states WHERE survey_id = ?)")
        params.append(survey_id)
    if counted_here:
        columns.append('(SELECT count FROM window_hits WHERE bucket = ? AND "window" = ?)')
        params += [arrivals.bucket, arrivals.hour]
    row = _read_once(db.execute(f"WITH claimed AS ({CLAIM_KEY}) SELECT {', '.join(columns)}", params).fetchone)
    closed = None if refuse is None else (lambda: closed_choice(row()[1]))
    counted = (lambda: (row()[-1] or 0) + 1) if counted_here else _send_arrival(arrivals)
    return lambda: bool(row()[0]), closed, counted


def _read_once(read: Callable[[], tuple]) -> Callable[[], tuple]:
    """``read``, called on the first call only and its row kept for the others."""
    kept: list[tuple] = []

    def once() -> tuple:
        if not kept:
            kept.append(read())
        return kept[0]

    return once


def _claim_and_read_state(
    db: sqlite_utils.Database, survey_id: str, submission_key: str
) -> tuple[Callable[[], bool], Callable[[], bool | None]]:
    """SQLite: ``(claimed, closed)`` of :func:`_send_first_reads` from one statement, the admin's open/closed
    choice returned by the key's claim; read apart only for a key claimed already (the claim returns no row),
    where the state still decides between refusing the answer and thanking a repeat."""
    rows = db.execute(
        CLAIM_KEY + ", (SELECT closed FROM survey_states WHERE survey_id = ?)", [submission_key, survey_id, survey_id]
    ).fetchall()
    if not rows:
        return (lambda: False), send_closed_override(db, survey_id)
    closed = closed_choice(rows[0][1])
    return (lambda: True), (lambda: closed)


def counted_in(db: sqlite_utils.Database, arrivals: Arrivals | int | None) -> bool:
    """Whether ``arrivals`` are counted in ``db`` itself (PostgreSQL: the rate-limit tables are in the answers
    database, so the count joins the answer's transaction); else in the rate-limit file, by the caller, or not."""
    return isinstance(arrivals, Arrivals) and arrivals.conn is db


def _send_arrival(arrivals: Arrivals | int | None) -> Callable[[], int | None]:
    """The count to judge the answer at, counted on the rate-limit connection when read (once the key and the
    code are accepted); a number or None: as given."""
    if not isinstance(arrivals, Arrivals):
        return lambda: arrivals
    return lambda: ratelimit.hit(arrivals.conn, arrivals.bucket, ARRIVAL_LIMIT, arrivals.now).count


#: The arrival count's window: one clock hour, with no limit on the count.
ARRIVAL_LIMIT = ratelimit.Limit(2**62, HOUR_SECONDS)


def _count_arrival(
    db: sqlite_utils.Database, survey_id: str, arrivals: Arrivals | int | None, hour_count: int | None
) -> None:
    """The stored answer's hour in the histogram: in the same statement as its arrival count when the
    rate-limit tables are in this database (:func:`_count_arrival_and_hour`), else at ``hour_count``, counted
    already (None: not counted)."""
    if counted_in(db, arrivals):
        _count_arrival_and_hour(db, survey_id, arrivals)
    elif hour_count is not None:
        _count_hour(db, survey_id, hour_count)


#: Count one arrival in its hour's bucket (the rate limiter's own count, every window that is over deleted
#: first as it deletes them) and move one hour of the histogram from the count before to the count after.
COUNT_ARRIVAL_AND_HOUR = (
    "WITH expired AS (DELETE FROM window_hits WHERE expires <= ?),"
    f" hit AS ({ratelimit.COUNT_HIT}),"
    " down AS (UPDATE hour_histograms SET hours = hour_histograms.hours - 1 FROM hit"
    " WHERE hour_histograms.survey_id = ? AND hour_histograms.responses = hit.count - 1"
    " AND hour_histograms.hours > 0)"
    " INSERT INTO hour_histograms (survey_id, responses, hours) SELECT ?, count, 1 FROM hit"
    " ON CONFLICT (survey_id, responses) DO UPDATE SET hours = hour_histograms.hours + 1"
)


def _count_arrival_and_hour(db: sqlite_utils.Database, survey_id: str, arrivals: Arrivals) -> None:
    """One statement (PostgreSQL's data-modifying ``WITH``): count the arrival in ``arrivals.bucket`` and move
    one hour of the survey's histogram up to the new count, as :func:`_count_hour` does. Sent last before the
    ``COMMIT``: the count's row is locked from here to the end of the transaction, which orders the answers'
    counts as they commit, so the histogram moves through every count once. A statement of its own, after the
    day's count: its snapshot is then taken once the answer before it has committed (every answer waits for
    the day's count row), so it sees that answer's row at ``count - 1``. Sent as ``WITH`` queries ahead of the
    day's count instead, it waited for that row inside its own statement, missed the row and left stray hours
    (tests/test_storage.py::test_concurrent_answers_that_share_no_tally_still_move_the_histogram_through_each_count)."""
    window_end = (arrivals.hour + 1) * HOUR_SECONDS
    db.execute(
        COUNT_ARRIVAL_AND_HOUR,
        [arrivals.now, arrivals.bucket, arrivals.hour, window_end, survey_id, survey_id],
    )


def _write_answer(
    db: sqlite_utils.Database, response: NoisyResponse, day: str, hour_count: int | None, burst: BurstMark | None
) -> None:
    """The answer, its kept tallies and, in a burst, its marks and its day (``hour_count``: the hour's peak)."""
    _insert_responses(db, [(response, burst is not None)], day)
    if burst is not None:
        _add_burst_answer(db, response, day, hour_count or 0, burst.usual_rate)


@dataclass(frozen=True)
class _Given:
    """A burst verdict given by the caller of :func:`store_response`."""

    usual_rate: float | None


def store_response(
    db: sqlite_utils.Database,
    response: NoisyResponse,
    submission_key: str,
    day: str,
    invitation_code: str | None = None,
    *,
    hour_count: int | None = None,
    in_burst: bool = False,
    burst_usual_rate: float | None = None,
) -> bool:
    """:func:`store_submission` with the hour's count and the burst verdict decided by the caller (loaders,
    tests); False if the key was seen, :class:`InvitationCodeError` if the code is unknown or used.

    ``hour_count`` (this clock hour's responses with this one, counted outside this database) moves one
    hour of the histogram up; ``in_burst`` marks the answer (``burst_usual_rate``: the rate it was judged
    against). Nothing records which hour.
    """
    burst = _Given(burst_usual_rate) if in_burst else None
    outcome = store_submission(
        db, response, submission_key, day, invitation_code, arrivals=hour_count, burst_of=lambda _db, _count: burst
    )
    if outcome is Outcome.CODE_REFUSED:
        raise InvitationCodeError(invitation_code)
    return outcome is Outcome.STORED


def store_responses(db: sqlite_utils.Database, answers: Iterable[tuple[NoisyResponse, str]], day: str) -> int:
    """Many answers in one transaction, each stored as :func:`store_response` stores it with no hour count and
    no burst mark (a loader's or a test seeder's answers: none arrived through the form, so no arrival is
    counted); an answer whose key is stored already, or came earlier in ``answers``, is skipped. The number
    stored. All or nothing: an error rolls every answer back.

    The keys are claimed in one multi-row insert (``ON CONFLICT DO NOTHING RETURNING``: the keys it
    inserted), the rows go in by multi-row inserts and each kept count is added once with its sum over the
    batch, so a batch costs a few statements per table whatever its size (on PostgreSQL one round trip for
    the keys and one for the writes with the ``COMMIT``), where :func:`store_response` costs about ten
    statements and two round trips an answer."""
    batch = list(answers)
    with pipelined_transaction(db):
        claimed = _claim_keys(db, [(key, response.survey_id) for response, key in batch])
        stored = []
        for response, key in batch:
            if key in claimed:
                claimed.discard(key)  # a key given twice: its first answer only
                stored.append((response, False))
        _insert_responses(db, stored, day)
    return len(stored)


def _claim_keys(db: sqlite_utils.Database, keys: list[tuple[str, str]]) -> set[str]:
    """Insert the ``(submission key, survey id)`` pairs not stored yet, ``ROWS_PER_UPSERT`` a statement; the keys
    inserted (each once, however often it was given)."""
    claimed: set[str] = set()
    for start in range(0, len(keys), ROWS_PER_UPSERT):
        chunk = keys[start : start + ROWS_PER_UPSERT]
        rows = db.execute(
            f"INSERT INTO submission_keys (key, survey_id) VALUES {', '.join(['(?, ?)'] * len(chunk))}"
            " ON CONFLICT (key) DO NOTHING RETURNING key",
            [value for pair in chunk for value in pair],
        ).fetchall()
        claimed.update(row[0] for row in rows)
    return claimed


def _use_invitation_code(db: sqlite_utils.Database, survey_id: str, code: str):
    """Mark ``code`` used; the cursor's one row says it was unused (RETURNING: rows a pipeline waits for)."""
    return db.execute(
        "UPDATE invitation_codes SET used = 1 WHERE survey_id = ? AND code_hash = ? AND used = 0 RETURNING 1",
        [survey_id, hash_code(code)],
    )


def _add_burst_answer(
    db: sqlite_utils.Database, response: NoisyResponse, day: str, peak: int, usual_rate: float | None
) -> None:
    """Keep the marked answer's tallies apart (``burst_tallies``) and note its day in ``bursts``."""
    survey_id, designs = response.survey_id, response.question_designs
    _add_counts(
        db,
        "burst_tallies",
        ("survey_id", "day", "question", "design", "answer"),
        [
            (survey_id, day, name, designs[name], key, add)
            for name in response.answers
            for key, add in response.kept_rows(name)
        ],
    )
    _upsert_burst(db, survey_id, day, peak, usual_rate)
    events.send_add(db, survey_id, f"burst:{day}", "burst", "an hour far above the usual rate", day)


def _insert_responses(db: sqlite_utils.Database, stored: list[tuple[NoisyResponse, bool]], day: str) -> None:
    """Each ``(answer, in a burst)``: its design record, its row and its kept counts, summed over the answers
    when there are several, so that each kept-count table takes one upsert (a few for many distinct rows)
    however many answers there are."""
    _insert_designs(db, [response for response, _ in stored])
    _insert_response_rows(db, stored, day)
    if len(stored) == 1:  # a submission: its own rows are distinct keys already
        kept = _kept_count_rows(stored[0][0], day)
    else:
        kept = _summed_kept_count_rows([response for response, _ in stored], day)
    for (table, key), rows in kept.items():
        _add_counts(db, table, key, rows)


def _insert_designs(db: sqlite_utils.Database, stored: list[NoisyResponse]) -> None:
    """The design record of each answer's design, once (a design stored already is kept as it is)."""
    designs = {response.design_id: response for response in stored}
    for response in designs.values():
        db.execute(
            "INSERT INTO designs (id, survey_id, survey_version, questions, columns) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (id) DO NOTHING",
            [
                response.design_id,
                response.survey_id,
                response.survey_version,
                response.design_record,
                json.dumps(list(response.columns)),
            ],
        )


#: The columns of a stored answer's row, in the order :func:`_insert_response_rows` gives them.
RESPONSE_COLUMNS = "id, survey_id, survey_version, design_id, randomized_on, day, answers, answer_line, arm, burst"


def _insert_response_rows(db: sqlite_utils.Database, stored: list[tuple[NoisyResponse, bool]], day: str) -> None:
    """One row per ``(answer, in a burst)``, each under a new random id, ``ROWS_PER_UPSERT // 10`` a statement."""
    per_statement = max(1, ROWS_PER_UPSERT // 10)  # ten values a row
    for start in range(0, len(stored), per_statement):
        chunk = stored[start : start + per_statement]
        db.execute(
            f"INSERT INTO responses ({RESPONSE_COLUMNS}) VALUES "
            + ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * len(chunk)),
            [
                value
                for response, in_burst in chunk
                for value in (
                    new_response_id(),
                    response.survey_id,
                    response.survey_version,
                    response.design_id,
                    response.randomized_on,
                    day,
                    json.dumps(dict(response.answers), sort_keys=True),
                    response.answer_line(),
                    response.arm,
                    int(bool(in_burst)),
                )
            ],
        )


#: A kept-count table and its key columns.
KeptTable = tuple[str, tuple[str, ...]]


def _kept_count_rows(response: NoisyResponse, day: str) -> dict[KeptTable, list[tuple]]:
    """What one answer adds to each kept-count table: rows of its key columns' values and the amount to add
    (see :func:`_add_counts`)."""
    survey_id, designs = response.survey_id, response.question_designs
    kept = {name: response.kept_rows(name) for name in response.answers}
    pattern = response.pattern()
    return {
        ("tallies", ("survey_id", "question", "design", "answer")): [
            (survey_id, name, designs[name], key, add) for name, rows in kept.items() for key, add in rows
        ],
        ("group_tallies", ("survey_id", "by_question", "by_answer", "question", "design", "answer")): [
            (survey_id, by, NO_ANSWER if group is None else group, name, designs[name], key, add)
            for by, group in response.groups.items()
            for name, rows in kept.items()
            for key, add in rows
        ],
        ("pattern_tallies", ("survey_id", "outcome", "design", "pattern", "answer")): [
            (survey_id, outcome, designs[outcome], pattern, key, add)
            for outcome in response.pattern_outcomes
            if outcome in response.answers
            for key, add in kept[outcome]
        ],
        (
            "pair_tallies",
            ("survey_id", "question_a", "question_b", "design_a", "design_b", "answer_a", "answer_b"),
        ): [(survey_id, *row, 1) for row in pair_rows(response.pairs, response.answers, designs)],
        ("daily_counts", ("survey_id", "day")): [(survey_id, day, 1)],
        ("daily_tallies", ("survey_id", "day", "question", "design", "answer")): [
            (survey_id, day, name, designs[name], key, add) for name, rows in kept.items() for key, add in rows
        ],
    }


def _summed_kept_count_rows(stored: list[NoisyResponse], day: str) -> dict[KeptTable, list[tuple]]:
    """:func:`_kept_count_rows` of every answer of ``stored``, the amounts of equal keys added up."""
    summed: dict[KeptTable, dict[tuple, float]] = {}
    for response in stored:
        for table, rows in _kept_count_rows(response, day).items():
            into = summed.setdefault(table, {})
            for *key_values, add in rows:
                into[tuple(key_values)] = into.get(tuple(key_values), 0) + add
    return {table: [(*key_values, total) for key_values, total in rows.items()] for table, rows in summed.items()}


#: Most rows one kept-count upsert carries (SQLite allows 32,766 parameters a statement; a survey's
#: break-down tallies are its plain questions times its questions, a few hundred rows at most).
ROWS_PER_UPSERT = 500


def _add_counts(db: sqlite_utils.Database, table: str, key: tuple[str, ...], rows: list[tuple]) -> None:
    """Add to the ``count`` of each row of the kept-count ``table`` whose ``key`` columns hold one of ``rows``
    the row's last value (1 for an answer's count; a number's output and its square for the kept sums of
    :data:`surveys.design_contract.SUM_KEYS`; a new row starts at it), in one multi-row
    ``INSERT ... ON CONFLICT DO UPDATE`` a table (one statement instead of one per answer: fewer
    statements to run, and one round trip's worth on PostgreSQL). ``rows`` of one call are distinct keys: a
    statement may update each row only once.

    The leading key columns that hold the same value on every row (the survey, the day) are sent once, not
    once a row (:func:`_shared_columns`), so that most of a submission's upserts carry at most 50 parameters, which
    psycopg converts once per statement text and keeps. It converts a statement with more every time: a survey's
    pair counts can carry more (106 for the bench survey's 15 pairs, about 0.1 ms an answer; bench/README.md)."""
    for start in range(0, len(rows), ROWS_PER_UPSERT):
        chunk = rows[start : start + ROWS_PER_UPSERT]
        shared = _shared_columns(chunk, len(key))
        db.execute(
            _add_counts_sql(table, key, shared, len(chunk)),
            [*chunk[0][:shared], *(value for row in chunk for value in row[shared:])],
        )


def _shared_columns(rows: list[tuple], key_length: int) -> int:
    """How many leading key columns hold one value on every row of ``rows`` (0 for a single row: its
    values go in as they are)."""
    if len(rows) < 2:
        return 0
    first, shared = rows[0], 0
    while shared < key_length and all(row[shared] == first[shared] for row in rows):
        shared += 1
    return shared


@lru_cache(maxsize=256)
def _add_counts_sql(table: str, key: tuple[str, ...], shared: int, row_count: int) -> str:
    """The SQL of :func:`_add_counts` for ``row_count`` rows whose first ``shared`` key columns are sent once
    (``table`` and ``key`` are this module's names). With shared columns the rows come from a ``VALUES`` list
    (columns ``column1``, ``column2``, ... on both backends) selected beside the shared values; the ``WHERE
    true`` is SQLite's rule for an upsert from a ``SELECT`` (it would read ``ON CONFLICT`` as a join's ``ON``)."""
    columns, conflict = f"{', '.join(key)}, count", f" ON CONFLICT ({', '.join(key)})"
    update = f" DO UPDATE SET count = {table}.count + excluded.count"
    values = ", ".join(["(" + ", ".join("?" for _ in range(len(key) + 1 - shared)) + ")"] * row_count)
    if not shared:
        return f"INSERT INTO {table} ({columns}) VALUES {values}{conflict}{update}"
    selected = ", ".join(["?"] * shared + [f"v.column{i}" for i in range(1, len(key) + 2 - shared)])
    return f"INSERT INTO {table} ({columns}) SELECT {selected} FROM (VALUES {values}) AS v WHERE true{conflict}{update}"


#: Move one hour of a survey's histogram from ``count - 1`` responses to ``count`` in one statement: the row at
#: ``count`` gains the hour (inserted with it if new), and the row at ``count - 1`` gives it up only when it
#: has an hour to give (the first answer of an hour has none). The two rows are different keys, so the one
#: the ``EXISTS`` reads is never the one this statement inserts.
MOVE_HOUR = (
    "INSERT INTO hour_histograms (survey_id, responses, hours)"
    " SELECT ?, v.column1, v.column2 FROM (VALUES (?, 1), (?, -1)) AS v"
    " WHERE v.column2 > 0 OR EXISTS (SELECT 1 FROM hour_histograms AS h"
    " WHERE h.survey_id = ? AND h.responses = v.column1 AND h.hours > 0)"
    " ON CONFLICT (survey_id, responses) DO UPDATE SET hours = hour_histograms.hours + excluded.hours"
)


def _count_hour(db: sqlite_utils.Database, survey_id: str, hour_count: int) -> None:
    """Move one hour of the histogram from ``hour_count - 1`` responses to ``hour_count`` (:data:`MOVE_HOUR`:
    one statement, where an ``UPDATE`` and an upsert took two trips inside the write lock)."""
    if isinstance(hour_count, bool) or not isinstance(hour_count, int) or hour_count < 1:
        raise ValueError(f"hour_count must be an integer >= 1, got hour_count={hour_count!r}")
    db.execute(MOVE_HOUR, [survey_id, hour_count, hour_count - 1, survey_id])


def _upsert_burst(db: sqlite_utils.Database, survey_id: str, day: str, peak: int, usual_rate: float | None) -> None:
    """One more marked answer on ``day``; the peak and its usual rate kept from the highest count."""
    db.execute(
        "INSERT INTO bursts (survey_id, day, peak, usual_rate, marked) VALUES (?, ?, ?, ?, 1)"
        " ON CONFLICT (survey_id, day) DO UPDATE SET usual_rate = CASE WHEN excluded.peak > bursts.peak"
        " THEN excluded.usual_rate ELSE bursts.usual_rate END,"
        " peak = CASE WHEN excluded.peak > bursts.peak THEN excluded.peak ELSE bursts.peak END,"
        " marked = bursts.marked + 1",
        [survey_id, check_day(day), peak, usual_rate],
    )


# --------------------------------------------------------------------------
