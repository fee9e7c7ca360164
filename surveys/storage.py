"""Storage of noisy answers in SQLite, through sqlite-utils.

Takes a :class:`sqlite_utils.Database`; knows nothing of Flask.

What is stored, and what is not:

* ``responses`` holds one row per respondent: a random id (the table is
  ``WITHOUT ROWID``, so there is no sequential rowid; rows are kept in the
  order of their random ids), the survey id and version, the noisy answers
  as JSON, the id of the design record they were randomized with, where they
  were randomized (``device`` or ``server``) and the day. No address, user
  agent, time of day, referrer or true answer exists anywhere in the schema.
* ``designs`` records every question's design and choices for a survey
  version, keyed by the survey's design fingerprint, so a later change of
  design never corrupts old data.
* ``tallies`` keeps, per question, design and noisy answer, a running
  count, updated in the same transaction as the row it counts: results are
  read from it without scanning every response.
* ``submission_keys`` and ``used_invitation_codes`` are kept apart from the
  answers, with no column that links them to a response.
* ``hour_histograms`` keeps, per survey, how many clock hours had 1, 2, 3,
  ... responses: no hour, no day, no link to a response, only the shape of
  the traffic the burst warning compares an hour with. The hour a response
  came in is counted only in the rate-limit file, for that hour alone.
* ``bursts`` records the days with an hour far above a survey's usual rate
  (the day, the most responses in one hour, the usual rate): a day is
  already stored with each response, so no time is added.
* ``excluded_days`` lists the days an admin left out of the estimates; the
  responses of those days stay stored (and exported).

Every write is one short ``BEGIN IMMEDIATE`` transaction: the write lock is
taken up front, so concurrent writers queue on the busy timeout instead of
failing with "database is locked" when a read transaction tries to upgrade.

What the file's layout still says about arrival order, and what removes it:

* Inside a b-tree page the cell pointers are in key (random id) order, but
  SQLite writes each new cell into the page's free space below the others,
  so until the page is next rebuilt the cells' byte offsets follow arrival
  (a later row at a lower offset). That is a weak signal in ``responses``
  and a stronger one in its indexes (``tests/test_row_order.py`` measures
  it). The write-ahead log holds the page images of recent commits in
  commit order (an automatic checkpoint copies them into the file but does
  not erase them; they are overwritten as the log is reused): there the
  order of the latest commits is plain.
* :func:`rebuild` (``flask --app app compact``) removes both: ``VACUUM``
  rewrites every table and index in key order, so the file becomes a
  function of the stored rows alone, and ``wal_checkpoint(TRUNCATE)`` empties
  the log. Rows stored after it carry the weak order again until the next
  rebuild: run it daily (cron) and after closing a survey.
* :func:`backup` writes a rebuilt copy (``VACUUM INTO``), never the live
  layout, in rollback-journal mode with no log beside it.
* ``secure_delete`` is on: space freed when a page split moves cells (and
  deleted rows, as in the rate-limit file) is zeroed. Without it, stale
  copies of moved cells stay in the page's free space and record earlier
  layouts (``tests/test_row_order.py``).
* Database files, their ``-wal`` and ``-shm`` files and backups are created
  with mode 0600 (:func:`create_private_file`; SQLite gives ``-wal`` and
  ``-shm`` the database file's mode). An existing file keeps its mode.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import sqlite3
from collections import defaultdict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import sqlite_utils
from sqlite_utils import Migrations

#: How long a write waits for the lock before giving up ("database is locked"); the web
#: layer then answers 503 with Retry-After. Well below gunicorn's 30 s worker timeout.
BUSY_TIMEOUT_SECONDS = 5
RANDOMIZED_ON = ("device", "server")

migrations = Migrations("rr-survey")


@migrations()
def m001_initial(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE responses (
            id TEXT PRIMARY KEY,
            survey_id TEXT NOT NULL,
            survey_version INTEGER NOT NULL,
            design_id TEXT NOT NULL REFERENCES designs(id),
            randomized_on TEXT NOT NULL CHECK (randomized_on IN ('device', 'server')),
            day TEXT NOT NULL,
            answers TEXT NOT NULL
        ) WITHOUT ROWID
        """
    )
    db.execute("CREATE INDEX responses_survey ON responses (survey_id)")
    db.execute(
        """
        CREATE TABLE designs (
            id TEXT PRIMARY KEY,
            survey_id TEXT NOT NULL,
            survey_version INTEGER NOT NULL,
            questions TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE tallies (
            survey_id TEXT NOT NULL,
            question TEXT NOT NULL,
            design TEXT NOT NULL,
            answer TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (survey_id, question, design, answer)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        """
        CREATE TABLE daily_counts (
            survey_id TEXT NOT NULL,
            day TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (survey_id, day)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        "CREATE TABLE submission_keys (key TEXT PRIMARY KEY, survey_id TEXT NOT NULL) WITHOUT ROWID"
    )
    db.execute(
        """
        CREATE TABLE invitation_codes (
            survey_id TEXT NOT NULL,
            code_hash TEXT NOT NULL,
            used INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (survey_id, code_hash)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        "CREATE TABLE survey_states (survey_id TEXT PRIMARY KEY, closed INTEGER NOT NULL)"
    )


@migrations()
def m002_admins(db: sqlite_utils.Database) -> None:
    db.execute(
        """
        CREATE TABLE admins (
            name TEXT PRIMARY KEY,
            password_hash TEXT NOT NULL,
            failed_logins INTEGER NOT NULL DEFAULT 0,
            locked_until REAL NOT NULL DEFAULT 0
        )
        """
    )


@migrations()
def m003_answer_lines(db: sqlite_utils.Database) -> None:
    """Each response's answers also as a ready CSV fragment, in the order of
    its design's ``columns``, so the export streams without parsing JSON."""
    db.execute("ALTER TABLE designs ADD COLUMN columns TEXT")
    db.execute("ALTER TABLE responses ADD COLUMN answer_line TEXT")


@migrations()
def m004_export_indexes(db: sqlite_utils.Database) -> None:
    """Let the export find the few rows without a ready answer line by index."""
    db.execute("CREATE INDEX responses_design ON responses (survey_id, design_id)")
    db.execute("CREATE INDEX responses_without_line ON responses (survey_id) WHERE answer_line IS NULL")


@migrations()
def m005_group_tallies(db: sqlite_utils.Database) -> None:
    """Running tallies per group of each non-randomized question, so that
    break-downs are read, not recounted; filled from the stored responses."""
    db.execute(
        """
        CREATE TABLE group_tallies (
            survey_id TEXT NOT NULL,
            by_question TEXT NOT NULL,
            by_answer TEXT NOT NULL,
            question TEXT NOT NULL,
            design TEXT NOT NULL,
            answer TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (survey_id, by_question, by_answer, question, design, answer)
        ) WITHOUT ROWID
        """
    )
    rebuild_group_tallies(db)


@migrations()
def m006_admin_sessions(db: sqlite_utils.Database) -> None:
    """Server-side admin sessions (only the token's hash is stored), so that
    signing out or a new password ends a session at once. Failed sign-ins are
    counted per account and address in the rate-limit file now, so the
    per-account columns go."""
    db.execute(
        """
        CREATE TABLE admin_sessions (
            token_hash TEXT PRIMARY KEY,
            name TEXT NOT NULL REFERENCES admins(name) ON DELETE CASCADE,
            expires REAL NOT NULL
        ) WITHOUT ROWID
        """
    )
    db.execute("CREATE INDEX admin_sessions_name ON admin_sessions (name)")
    db.execute("ALTER TABLE admins DROP COLUMN failed_logins")
    db.execute("ALTER TABLE admins DROP COLUMN locked_until")


@migrations()
def m007_bursts_and_excluded_days(db: sqlite_utils.Database) -> None:
    """The histogram of responses per clock hour (no time in it), the days
    with a burst, the days an admin excluded from the estimates, and an index
    to count those days' responses without scanning the others."""
    db.execute(
        """
        CREATE TABLE hour_histograms (
            survey_id TEXT NOT NULL,
            responses INTEGER NOT NULL,
            hours INTEGER NOT NULL,
            PRIMARY KEY (survey_id, responses)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        """
        CREATE TABLE bursts (
            survey_id TEXT NOT NULL,
            day TEXT NOT NULL,
            peak INTEGER NOT NULL,
            usual_rate REAL NOT NULL,
            PRIMARY KEY (survey_id, day)
        ) WITHOUT ROWID
        """
    )
    db.execute(
        "CREATE TABLE excluded_days (survey_id TEXT NOT NULL, day TEXT NOT NULL,"
        " PRIMARY KEY (survey_id, day)) WITHOUT ROWID"
    )
    db.execute("CREATE INDEX responses_day ON responses (survey_id, day)")


def create_private_file(path: str | Path) -> Path:
    """Create ``path`` empty with mode 0600 (whatever the umask) if it does
    not exist, so that SQLite opens a file only its owner can read; an
    existing file is left as it is."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path


def connect(path: str | Path) -> sqlite_utils.Database:
    """Open the database file (created 0600) with WAL, a busy timeout, full
    durability and ``secure_delete`` (freed space zeroed)."""
    conn = sqlite3.connect(str(create_private_file(path)), timeout=BUSY_TIMEOUT_SECONDS)
    db = sqlite_utils.Database(conn)
    db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_SECONDS * 1000}")
    db.execute("PRAGMA secure_delete = ON")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute("PRAGMA foreign_keys = ON")
    return db


def migrate(db: sqlite_utils.Database) -> list[str]:
    """Apply pending migrations; return the names applied."""
    with immediate_transaction(db):  # one worker at a time; the others then find nothing pending
        pending = [m.name for m in migrations.pending(db)]
        migrations.apply(db)
    return pending


def needs_migration(db: sqlite_utils.Database) -> bool:
    return bool(migrations.pending(db))


@contextmanager
def immediate_transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any exception."""
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.rollback()
        raise
    db.conn.execute("COMMIT")


@dataclass(frozen=True)
class NoisyResponse:
    """One respondent's randomized answers, ready to store.

    ``answers`` maps question name to the noisy (or, for non-randomized
    questions, plain) answer; ``designs`` maps question name to the design
    key it was randomized with (see ``Survey``'s design records);
    ``columns`` is the survey's question order and ``plain`` names its
    non-randomized questions (the break-down groups).
    """

    survey_id: str
    survey_version: int
    design_id: str
    design_record: str
    answers: Mapping[str, str]
    question_designs: Mapping[str, str]
    randomized_on: str
    columns: tuple[str, ...] = ()
    plain: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.randomized_on not in RANDOMIZED_ON:
            raise ValueError(f"randomized_on must be one of {RANDOMIZED_ON}, got {self.randomized_on!r}")

    def answer_line(self) -> str | None:
        """The answers in ``columns`` order as a CSV fragment (empty where
        unanswered), or None when a value would need CSV quoting."""
        values = [self.answers.get(name, "") for name in self.columns]
        if not self.columns or any(_NEEDS_QUOTING.search(value) for value in values):
            return None
        return ",".join(values)


_NEEDS_QUOTING = re.compile(r'[,"\r\n]')


def new_response_id() -> str:
    """A random, unguessable, non-sequential id."""
    return secrets.token_hex(16)


def submission_key_exists(db: sqlite_utils.Database, key: str) -> bool:
    return bool(db.execute("SELECT 1 FROM submission_keys WHERE key = ?", [key]).fetchone())


def hash_code(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


class InvitationCodeError(Exception):
    """The invitation code is unknown or was used already."""


def store_response(
    db: sqlite_utils.Database,
    response: NoisyResponse,
    submission_key: str,
    day: str,
    invitation_code: str | None = None,
    *,
    hour_count: int | None = None,
) -> bool:
    """Store one response in one transaction; return False if the key was seen.

    A repeated ``submission_key`` (a double click, a retry) stores nothing and
    returns False: the caller answers it as a success. An invitation code is
    marked used in the same transaction, with no link to the response row.
    ``hour_count`` (the responses of this clock hour, this one included,
    counted by the caller outside this database) moves one hour up the
    survey's hour histogram: from ``hour_count - 1`` responses to
    ``hour_count``. Nothing records which hour.
    """
    with immediate_transaction(db):
        try:
            db.execute(
                "INSERT INTO submission_keys (key, survey_id) VALUES (?, ?)",
                [submission_key, response.survey_id],
            )
        except sqlite3.IntegrityError:
            return False
        if invitation_code is not None:
            _use_invitation_code(db, response.survey_id, invitation_code)
        _insert_response(db, response, day)
        if hour_count is not None:
            _count_hour(db, response.survey_id, hour_count)
    return True


def _use_invitation_code(db: sqlite_utils.Database, survey_id: str, code: str) -> None:
    cursor = db.execute(
        "UPDATE invitation_codes SET used = 1 WHERE survey_id = ? AND code_hash = ? AND used = 0",
        [survey_id, hash_code(code)],
    )
    if cursor.rowcount != 1:
        raise InvitationCodeError(code)


def _insert_response(db: sqlite_utils.Database, response: NoisyResponse, day: str) -> None:
    db.execute(
        "INSERT OR IGNORE INTO designs (id, survey_id, survey_version, questions, columns) VALUES (?, ?, ?, ?, ?)",
        [response.design_id, response.survey_id, response.survey_version, response.design_record,
         json.dumps(list(response.columns))],
    )
    db.execute(
        "INSERT INTO responses (id, survey_id, survey_version, design_id, randomized_on, day, answers, answer_line)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            new_response_id(),
            response.survey_id,
            response.survey_version,
            response.design_id,
            response.randomized_on,
            day,
            json.dumps(dict(response.answers), sort_keys=True),
            response.answer_line(),
        ],
    )
    db.conn.executemany(
        "INSERT INTO tallies (survey_id, question, design, answer, count) VALUES (?, ?, ?, ?, 1)"
        " ON CONFLICT DO UPDATE SET count = count + 1",
        [
            (response.survey_id, name, response.question_designs[name], answer)
            for name, answer in response.answers.items()
        ],
    )
    db.conn.executemany(
        "INSERT INTO group_tallies (survey_id, by_question, by_answer, question, design, answer, count)"
        " VALUES (?, ?, ?, ?, ?, ?, 1) ON CONFLICT DO UPDATE SET count = count + 1",
        [
            (response.survey_id, by, response.answers.get(by, NO_ANSWER), name, response.question_designs[name], answer)
            for by in response.plain
            for name, answer in response.answers.items()
        ],
    )
    db.execute(
        "INSERT INTO daily_counts (survey_id, day, count) VALUES (?, ?, 1)"
        " ON CONFLICT DO UPDATE SET count = count + 1",
        [response.survey_id, day],
    )


def _count_hour(db: sqlite_utils.Database, survey_id: str, hour_count: int) -> None:
    """Move one hour of the histogram from ``hour_count - 1`` responses to ``hour_count``."""
    if isinstance(hour_count, bool) or not isinstance(hour_count, int) or hour_count < 1:
        raise ValueError(f"hour_count must be an integer >= 1, got hour_count={hour_count!r}")
    db.execute(
        "UPDATE hour_histograms SET hours = hours - 1 WHERE survey_id = ? AND responses = ? AND hours > 0",
        [survey_id, hour_count - 1],
    )
    db.execute(
        "INSERT INTO hour_histograms (survey_id, responses, hours) VALUES (?, ?, 1)"
        " ON CONFLICT DO UPDATE SET hours = hours + 1",
        [survey_id, hour_count],
    )


def add_invitation_codes(db: sqlite_utils.Database, survey_id: str, count: int) -> list[str]:
    """Create ``count`` new single-use codes; only their hashes are stored."""
    if count < 1:
        raise ValueError(f"count must be >= 1, got {count}")
    codes = [secrets.token_urlsafe(9) for _ in range(count)]
    with immediate_transaction(db):
        db.conn.executemany(
            "INSERT INTO invitation_codes (survey_id, code_hash) VALUES (?, ?)",
            [(survey_id, hash_code(code)) for code in codes],
        )
    return codes


def invitation_code_is_valid(db: sqlite_utils.Database, survey_id: str, code: str) -> bool:
    row = db.execute(
        "SELECT used FROM invitation_codes WHERE survey_id = ? AND code_hash = ?",
        [survey_id, hash_code(code)],
    ).fetchone()
    return row is not None and row[0] == 0


def response_count(db: sqlite_utils.Database, survey_id: str) -> int:
    row = db.execute(
        "SELECT COALESCE(SUM(count), 0) FROM daily_counts WHERE survey_id = ?", [survey_id]
    ).fetchone()
    return int(row[0])


def daily_counts(db: sqlite_utils.Database, survey_id: str) -> list[tuple[str, int]]:
    return [
        (day, count)
        for day, count in db.execute(
            "SELECT day, count FROM daily_counts WHERE survey_id = ? ORDER BY day", [survey_id]
        ).fetchall()
    ]


def tallies(db: sqlite_utils.Database, survey_id: str) -> dict[str, dict[str, dict[str, int]]]:
    """``{question: {design key: {answer: count}}}`` from the running tallies."""
    result: dict = defaultdict(lambda: defaultdict(dict))
    for question, design, answer, count in db.execute(
        "SELECT question, design, answer, count FROM tallies WHERE survey_id = ?", [survey_id]
    ).fetchall():
        result[question][design][answer] = count
    return {q: dict(by_design) for q, by_design in result.items()}


def set_closed(db: sqlite_utils.Database, survey_id: str, closed: bool) -> None:
    with immediate_transaction(db):
        db.execute(
            "INSERT INTO survey_states (survey_id, closed) VALUES (?, ?)"
            " ON CONFLICT DO UPDATE SET closed = excluded.closed",
            [survey_id, int(closed)],
        )


def closed_override(db: sqlite_utils.Database, survey_id: str) -> bool | None:
    """The admin's open/closed choice for a survey, or None if never set."""
    row = db.execute("SELECT closed FROM survey_states WHERE survey_id = ?", [survey_id]).fetchone()
    return None if row is None else bool(row[0])


def hour_histogram(db: sqlite_utils.Database, survey_id: str) -> list[tuple[int, int]]:
    """``(responses in a clock hour, number of such hours)`` for the survey's active hours."""
    return [
        (responses, hours)
        for responses, hours in db.execute(
            "SELECT responses, hours FROM hour_histograms WHERE survey_id = ? AND hours > 0 ORDER BY responses",
            [survey_id],
        ).fetchall()
    ]


def record_burst(db: sqlite_utils.Database, survey_id: str, day: str, peak: int, usual_rate: float) -> None:
    """Note that ``day`` had an hour with ``peak`` responses against a usual ``usual_rate``
    (the largest peak of the day is kept)."""
    with immediate_transaction(db):
        db.execute(
            "INSERT INTO bursts (survey_id, day, peak, usual_rate) VALUES (?, ?, ?, ?)"
            " ON CONFLICT DO UPDATE SET usual_rate = CASE WHEN excluded.peak > peak THEN excluded.usual_rate"
            " ELSE usual_rate END, peak = max(peak, excluded.peak)",
            [survey_id, check_day(day), peak, usual_rate],
        )


def bursts(db: sqlite_utils.Database, survey_id: str) -> list[tuple[str, int, float]]:
    """``(day, most responses in one hour, usual rate per hour)`` for each day with a burst, in order."""
    return [
        (day, peak, usual)
        for day, peak, usual in db.execute(
            "SELECT day, peak, usual_rate FROM bursts WHERE survey_id = ? ORDER BY day", [survey_id]
        ).fetchall()
    ]


# --------------------------------------------------------------------------
# Days excluded from the estimates (the responses stay stored).


def check_day(day: str) -> str:
    """``day`` if it is an ISO date ``YYYY-MM-DD``, the form responses are stored with."""
    try:
        if isinstance(day, str) and _ISO_DAY.fullmatch(day):
            date.fromisoformat(day)  # ValueError for 2026-02-30
            return day
    except ValueError:
        pass
    raise ValueError(f"day must be a date written YYYY-MM-DD, got {day!r}")


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def exclude_day(db: sqlite_utils.Database, survey_id: str, day: str) -> bool:
    """Leave ``day``'s responses out of the estimates; False if it was excluded already."""
    with immediate_transaction(db):
        cursor = db.execute(
            "INSERT OR IGNORE INTO excluded_days (survey_id, day) VALUES (?, ?)", [survey_id, check_day(day)]
        )
    return cursor.rowcount == 1


def include_day(db: sqlite_utils.Database, survey_id: str, day: str) -> bool:
    """Count ``day``'s responses in the estimates again; False if it was not excluded."""
    with immediate_transaction(db):
        cursor = db.execute(
            "DELETE FROM excluded_days WHERE survey_id = ? AND day = ?", [survey_id, check_day(day)]
        )
    return cursor.rowcount == 1


def excluded_days(db: sqlite_utils.Database, survey_id: str) -> list[tuple[str, int]]:
    """``(day, responses stored that day)`` for every excluded day of the survey, in order."""
    return [
        (day, count)
        for day, count in db.execute(
            "SELECT e.day, COALESCE(d.count, 0) FROM excluded_days AS e"
            " LEFT JOIN daily_counts AS d ON d.survey_id = e.survey_id AND d.day = e.day"
            " WHERE e.survey_id = ? ORDER BY e.day",
            [survey_id],
        ).fetchall()
    ]


def responses_on_day(db: sqlite_utils.Database, survey_id: str, day: str) -> int:
    row = db.execute(
        "SELECT count FROM daily_counts WHERE survey_id = ? AND day = ?", [survey_id, check_day(day)]
    ).fetchone()
    return 0 if row is None else int(row[0])


def tallies_on_days(db: sqlite_utils.Database, survey_id: str, days: list[str]) -> dict[str, dict[str, dict[str, int]]]:
    """The shape of :func:`tallies`, counted over the responses of ``days`` only.

    Read through the ``(survey_id, day)`` index: the cost grows with those
    days' responses, not with the survey's. The design keys are rebuilt from
    the ``designs`` records as in :func:`rebuild_group_tallies`.
    """
    rows = db.execute(
        "SELECT r.design_id, a.key, a.value, COUNT(*) FROM responses AS r INDEXED BY responses_day,"
        " json_each(r.answers) AS a WHERE r.survey_id = ? AND r.day IN (SELECT value FROM json_each(?))"
        " GROUP BY r.design_id, a.key, a.value",
        [survey_id, json.dumps([check_day(day) for day in days])],
    ).fetchall()
    keys = _design_keys(db, survey_id)
    result: dict = defaultdict(lambda: defaultdict(dict))
    for design_id, question, answer, count in rows:
        key = keys.get((design_id, question))
        if key is not None:
            by_answer = result[question][key]
            by_answer[answer] = by_answer.get(answer, 0) + count
    return {q: {k: dict(v) for k, v in by_design.items()} for q, by_design in result.items()}


def group_tallies_on_days(
    db: sqlite_utils.Database, survey_id: str, by: str, days: list[str]
) -> dict[str | None, dict[str, dict[str, dict[str, int]]]]:
    """The shape of :func:`group_tallies`, counted over the responses of ``days`` only (by index)."""
    return _scan_group_tallies(db, survey_id, by, days=days)


# --------------------------------------------------------------------------
# Read-only queries for results and exports.

_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyz")
_NAME_CHARACTERS = _NAME_START | frozenset("0123456789_")


def _check_question_name(name: str) -> str:
    """``name`` if it is a question name as the loader accepts them (``[a-z][a-z0-9_]*``).

    Checked again before a name goes into a JSON path (as a parameter), so
    that the path can only ever name one top-level key.
    """
    if not isinstance(name, str) or not name or name[0] not in _NAME_START or not set(name) <= _NAME_CHARACTERS:
        raise ValueError(f"question name must be a lower-case letter then a-z, 0-9 or _, got {name!r}")
    return name


def _canonical(record: object) -> str:
    """The JSON text :func:`surveys.submission.question_design_key` produces for ``record``."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


def design_records(db: sqlite_utils.Database, survey_id: str) -> list[tuple[str, int, dict]]:
    """Every stored design record of a survey: ``(design id, survey version, {question: record})``.

    Each record is ``{"type", "choices", "design"}`` as in the design key;
    ordered by version, then id.
    """
    return [
        (design_id, version, json.loads(questions))
        for design_id, version, questions in db.execute(
            "SELECT id, survey_version, questions FROM designs WHERE survey_id = ?"
            " ORDER BY survey_version, id",
            [survey_id],
        ).fetchall()
    ]


#: ``by_answer`` of respondents who left the break-down question unanswered
#: (no choice name is empty).
NO_ANSWER = ""


def group_tallies(
    db: sqlite_utils.Database, survey_id: str, by: str
) -> dict[str | None, dict[str, dict[str, dict[str, int]]]]:
    """Tallies split by the answer to the non-randomized question ``by``.

    Returns ``{answer to by: {question: {design key: {answer: count}}}}``,
    the shape of :func:`tallies` per group; respondents who left ``by``
    unanswered are under ``None``. Read from the running ``group_tallies``,
    kept in the same transaction as each response, so it costs the same at
    ten responses or ten million.
    """
    result: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for group, question, design, answer, count in db.execute(
        "SELECT by_answer, question, design, answer, count FROM group_tallies"
        " WHERE survey_id = ? AND by_question = ?",
        [survey_id, _check_question_name(by)],
    ).fetchall():
        result[None if group == NO_ANSWER else group][question][design][answer] = count
    return {
        group: {q: {k: dict(v) for k, v in by_design.items()} for q, by_design in per_question.items()}
        for group, per_question in result.items()
    }


def rebuild_group_tallies(db: sqlite_utils.Database) -> None:
    """Recount ``group_tallies`` from the stored responses (the migration that
    adds the table, and a repair). A question is a break-down group where a
    stored design record has it non-randomized."""
    db.execute("DELETE FROM group_tallies")
    for (survey_id,) in db.execute("SELECT DISTINCT survey_id FROM designs").fetchall():
        plain = sorted({
            name for _, _, questions in design_records(db, survey_id)
            for name, record in questions.items() if record.get("design") is None
        })
        for by in plain:
            rows = [
                (survey_id, by, NO_ANSWER if group is None else group, question, design, answer, count)
                for group, per_question in _scan_group_tallies(db, survey_id, by).items()
                for question, by_design in per_question.items()
                for design, by_answer in by_design.items()
                for answer, count in by_answer.items()
            ]
            db.conn.executemany("INSERT INTO group_tallies VALUES (?, ?, ?, ?, ?, ?, ?)", rows)


def _scan_group_tallies(
    db: sqlite_utils.Database, survey_id: str, by: str, days: list[str] | None = None
) -> dict[str | None, dict[str, dict[str, dict[str, int]]]]:
    """Tallies split by the stored answer to question ``by``, counted afresh.

    Returns ``{answer to by: {question: {design key: {answer: count}}}}``,
    the shape of :func:`tallies` per group; respondents who left ``by``
    unanswered are under ``None``. Counted by SQL over ``responses``; the
    design keys are rebuilt, canonically, from the ``designs`` records the
    responses point to (one JSON parse per design record, none per response).
    With ``days``, only the responses of those days are counted, by index.
    """
    _check_question_name(by)
    params = [by, survey_id]
    on_days = ""
    if days is not None:
        on_days = " AND r.day IN (SELECT value FROM json_each(?))"
        params.append(json.dumps([check_day(day) for day in days]))
    rows = db.execute(
        "SELECT json_extract(r.answers, '$.' || ?) AS grp, r.design_id, a.key, a.value, COUNT(*)"
        " FROM responses AS r, json_each(r.answers) AS a WHERE r.survey_id = ?" + on_days
        + " GROUP BY grp, r.design_id, a.key, a.value",
        params,
    ).fetchall()
    keys = _design_keys(db, survey_id)
    result: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for group, design_id, question, answer, count in rows:
        key = keys.get((design_id, question))
        if key is not None:
            by_answer = result[group][question][key]
            by_answer[answer] = by_answer.get(answer, 0) + count
    return {
        group: {q: {k: dict(v) for k, v in by_design.items()} for q, by_design in per_question.items()}
        for group, per_question in result.items()
    }


def _design_keys(db: sqlite_utils.Database, survey_id: str) -> dict[tuple[str, str], str]:
    """``{(design id, question): design key}`` for every stored design record of the survey."""
    return {
        (design_id, name): _canonical(record)
        for design_id, _, questions in design_records(db, survey_id)
        for name, record in questions.items()
    }


#: Responses whose stored ``answer_line`` is in the order of the given columns.
_LINE_READY = (
    "answer_line IS NOT NULL AND design_id IN (SELECT id FROM designs WHERE survey_id = ? AND columns = ?)"
)


def response_line_chunks(
    db: sqlite_utils.Database, survey_id: str, question_names: list[str], batch_rows: int
) -> Iterator[str]:
    """Ready CSV text, ``batch_rows`` lines a chunk, for the responses stored
    with exactly these question columns.

    SQLite joins each row's stored fields and answer line, and the lines of a
    whole batch, so Python handles one string per batch, not per row. Batches
    follow the (survey_id, id) index by keyset (``id > last``); within a
    batch the order is SQLite's. Run it inside :func:`read_snapshot` for one
    consistent copy.
    """
    sql = (
        "SELECT group_concat(line, char(13, 10)), max(id) FROM ("
        " SELECT id, id || ',' || survey_version || ',' || design_id || ',' || randomized_on || ',' || day"
        " || ',' || answer_line AS line FROM responses INDEXED BY responses_survey"  # (survey_id, id)
        " WHERE survey_id = ? AND id > ? AND " + _LINE_READY + " ORDER BY id LIMIT ?)"
    )
    order, last = json.dumps(list(question_names)), ""
    while True:
        text, last = db.conn.execute(sql, [survey_id, last, survey_id, order, batch_rows]).fetchone()
        if text is None:
            return
        yield text + "\r\n"


@contextmanager
def read_snapshot(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One read transaction: every query inside sees the same committed state
    (WAL readers never block the writers)."""
    db.conn.execute("BEGIN")
    try:
        yield db
    finally:
        if db.conn.in_transaction:
            db.conn.execute("COMMIT")


def response_rows(db: sqlite_utils.Database, survey_id: str, question_names: list[str]) -> sqlite3.Cursor:
    """A cursor over the other responses (older designs, or stored before
    answer lines existed), ordered by id, for streaming out.

    Columns: id, survey_version, design_id, randomized_on, day, then the
    answer to each of ``question_names`` (NULL if unanswered), extracted by
    SQLite so that the caller parses no JSON. Fetch from it in batches.
    """
    columns = "".join(", json_extract(answers, '$.' || ?)" for _ in question_names)
    params = [_check_question_name(name) for name in question_names]
    select = f"SELECT id, survey_version, design_id, randomized_on, day{columns} FROM responses"  # placeholders only
    others = "SELECT id FROM designs WHERE survey_id = ? AND columns IS NOT ?"
    order = json.dumps(list(question_names))
    # Two indexed parts (other designs; rows without a line), so the many
    # ready rows are never scanned here.
    return db.conn.execute(
        f"{select} WHERE survey_id = ? AND design_id IN ({others})"
        f" UNION ALL {select} WHERE survey_id = ? AND answer_line IS NULL AND design_id NOT IN ({others})"
        " ORDER BY id",
        [*params, survey_id, survey_id, order, *params, survey_id, survey_id, order],
    )


def rebuild(db: sqlite_utils.Database) -> int:
    """Rewrite the database in key order and empty the write-ahead log; return the responses kept.

    ``VACUUM`` rebuilds every table and index from the rows alone, which
    removes the weak arrival order left in page layouts (see the module
    notes); ``wal_checkpoint(TRUNCATE)`` then copies the rebuilt pages into
    the file and truncates the log, so no older page image stays in it.
    Writers wait for the rebuild on the busy timeout; run it when the
    survey is quiet. Raises RuntimeError if a reader kept the log from
    being emptied (run it again).
    """
    db.execute("VACUUM")
    busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        raise RuntimeError("the database was rebuilt but a reader kept the write-ahead log from being emptied")
    (count,) = db.execute("SELECT COUNT(*) FROM responses").fetchone()
    return count


def backup(source: str | Path, target: str | Path) -> int:
    """Write a rebuilt copy of the database online; return the responses copied.

    ``VACUUM INTO`` reads one consistent snapshot (one read transaction: WAL
    readers do not block writers) and writes it in key order, so the copy
    carries no arrival order, in rollback-journal mode with no ``-wal`` or
    ``-shm`` file. The copy is written to a file beside ``target``, created
    0600, checked with ``PRAGMA integrity_check``, then renamed into place,
    so ``target`` is never half-written.
    """
    target = Path(target)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        _write_rebuilt_copy(source, create_private_file(partial))
        count = _check_copy(partial)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(target)
    return count


def _write_rebuilt_copy(source: str | Path, partial: Path) -> None:
    src = sqlite3.connect(str(source), timeout=BUSY_TIMEOUT_SECONDS)
    try:
        src.execute("PRAGMA secure_delete = ON")
        src.execute("VACUUM INTO ?", [str(partial)])
    finally:
        src.close()


def _check_copy(partial: Path) -> int:
    """Check the copy's integrity and journal mode; return its responses."""
    dst = sqlite3.connect(str(partial))
    try:
        (mode,) = dst.execute("PRAGMA journal_mode").fetchone()
        if mode == "wal":
            raise RuntimeError(f"the backup {partial} is in WAL mode; it would need its -wal file")
        (ok,) = dst.execute("PRAGMA integrity_check").fetchone()
        if ok != "ok":
            raise RuntimeError(f"backup failed its integrity check: {ok}")
        (count,) = dst.execute("SELECT COUNT(*) FROM responses").fetchone()
    finally:
        dst.close()
    return count
