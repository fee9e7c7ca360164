"""Bulk generation of stored responses, exactly as the app would have stored them.

The rows are not composed here: every distinct response the generator uses
(a pool of random answer sets, each randomized on the device or on the
server) is first stored once by the product itself
(:func:`storage.responses.store_response`) in a scratch database, and read
back with all its columns. Bulk rows are copies of these templates with a
fresh id and day, so any column the product derives from the answers (the
JSON, a ready CSV line, ...) is the product's own. Rows then go straight
into the benchmark database with ``executemany`` in large transactions,
with the journal and fsyncs off (generation only; the benchmarks open the
file with :func:`storage.connection.connect`). The ``tallies``,
``group_tallies``, ``pattern_tallies`` (the model's), ``daily_counts`` and ``daily_tallies``
rows are the exact aggregates of what was inserted,
computed in Python, so the database is what the app would have built one
submission at a time.

Response ids are 32 hex digits like the app's, but led by a counter so that
inserts append to the ``WITHOUT ROWID`` b-tree (fast generation). Reads are
unaffected: a scan visits rows in id order whatever the ids are.
"""

from __future__ import annotations

import datetime as dt
import secrets
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from analysis.numeric_design import BoundedDesign, DiscreteLaplaceDesign
from storage import connection, migrations, postgres, responses
from surveys.definition import NUMBER_TYPES, SELECT_MULTIPLE, Question, Survey
from surveys.submission import NoisyResponse, noisy_response

#: Distinct answer sets drawn from; rows pick one at random.
POOL_SIZE = 4096
#: Rows per transaction and per ``executemany``.
BATCH_ROWS = 500_000
#: Days the responses are spread over.
DAYS = 120
FIRST_DAY = dt.date(2026, 1, 5)
#: Share of responses randomized on the device (the rest: JavaScript off).
DEVICE_SHARE = 0.9
RANDOMIZED_ON = ("device", "server")


def create_database(path: Path | str) -> None:
    """Create the product schema in a new file (or an empty PostgreSQL database, given its URL), as
    ``flask init-db`` does."""
    db = connection.connect(path)
    try:
        migrations.migrate(db)
    finally:
        db.close()


def grow_and_measure(generator, sizes, measure_at, say, growing: str, measuring: str) -> list:
    """Grow ``generator`` through ``sizes`` (rising) and call ``measure_at(rows, seconds the growing took)`` at
    each; ``say`` is told ``growing`` and then ``measuring``, each formatted with ``rows``."""
    timings = []
    for rows in sorted(sizes):
        say(growing.format(rows=rows))
        start = time.perf_counter()
        generator.grow_to(rows)
        generated = time.perf_counter() - start
        say(measuring.format(rows=rows))
        timings.append(measure_at(rows, generated))
    return timings


def _answer_pool(survey: Survey, rng: np.random.Generator, size: int) -> list[dict[str, str]]:
    """``size`` answer sets, one stored answer per question, with uneven shares: a choice drawn from
    random weights; a number's or a check-all question's output drawn from its design
    (:func:`_number_outputs`, :func:`_ticks_outputs`)."""
    columns = {}
    for question in survey.questions:
        if question.type in NUMBER_TYPES:
            columns[question.name] = _number_outputs(question, rng, size)
        elif question.type == SELECT_MULTIPLE:
            columns[question.name] = _ticks_outputs(question, rng, size)
        else:
            names = question.choice_names
            weights = rng.dirichlet(np.full(len(names), 2.0))
            picked = rng.choice(len(names), size=size, p=weights)
            columns[question.name] = [names[k] for k in picked.tolist()]
    return [{q.name: columns[q.name][i] for q in survey.questions} for i in range(size)]


def _number_outputs(question: Question, rng: np.random.Generator, size: int) -> list[str]:
    """Stored outputs of a number: true grid indices from a random beta shape, then the design's output (the
    index plus discrete Laplace noise, clamped, as the difference of two geometric draws; or the one bit), or
    a plain number's index zero-padded as the form posts it."""
    steps = question.number.steps
    shape = rng.uniform(0.5, 3.0, size=2)
    truth = np.rint(rng.beta(shape[0], shape[1], size=size) * steps).astype(np.int64)
    design = question.design
    if isinstance(design, DiscreteLaplaceDesign):
        failures = rng.geometric(1 - design.ratio, size=(2, size)) - 1  # P(j) proportional to r^j
        outputs = np.clip(truth + failures[0] - failures[1], *design.output_range)
    elif isinstance(design, BoundedDesign):
        ones = np.array([float(design.one_probability(k)) for k in truth.tolist()])
        outputs = (rng.random(size) < ones).astype(np.int64)
    else:
        return [str(k).zfill(len(str(steps))) for k in truth.tolist()]
    return [str(y) for y in outputs.tolist()]


def _ticks_outputs(question: Question, rng: np.random.Generator, size: int) -> list[str]:
    """Stored bits of a check-all-that-apply question: each option ticked with its own random share, then each
    bit sent as 1 with ``p`` if ticked, ``q`` if not (plain: as ticked)."""
    options = len(question.choices)
    ticked = rng.random((size, options)) < rng.uniform(0.05, 0.6, size=options)
    design = question.design
    sent = (
        ticked if design is None else rng.random((size, options)) < np.where(ticked, float(design.p), float(design.q))
    )
    return ["".join("1" if bit else "0" for bit in row) for row in sent.tolist()]


@dataclass(frozen=True)
class Templates:
    """Rows as the product stores them: ``rows[on][pick]`` is a full ``responses`` row."""

    columns: tuple[str, ...]
    rows: dict[str, list[tuple]]
    designs: list[tuple]
    design_columns: tuple[str, ...]


def store_templates(scratch: Path, survey: Survey, pool: list[dict[str, str]]) -> Templates:
    """Store each answer set once per ``randomized_on`` through the product; read the rows back.

    Each template is stored with ``day`` set to a tag naming it, so it can
    be found again; the tag is replaced by a real day when copied.
    """
    create_database(scratch)
    db = connection.connect(scratch)
    try:
        db.execute("PRAGMA synchronous = OFF")  # scratch data only
        for on in RANDOMIZED_ON:
            for pick, answers in enumerate(pool):
                response = noisy_response(survey, answers, on)
                responses.store_response(db, response, secrets.token_urlsafe(18), f"{on}:{pick}")
        cursor = db.conn.execute("SELECT * FROM responses")
        columns = tuple(d[0] for d in cursor.description)
        day = columns.index("day")
        rows: dict[str, list] = {on: [None] * len(pool) for on in RANDOMIZED_ON}
        for row in cursor.fetchall():
            on, pick = row[day].split(":")
            rows[on][int(pick)] = row
        designs = db.conn.execute("SELECT * FROM designs")
        design_columns = tuple(d[0] for d in designs.description)
        return Templates(columns, rows, designs.fetchall(), design_columns)
    finally:
        db.close()


@dataclass
class Generator:
    """Appends responses to one survey; call :meth:`grow_to` with rising totals."""

    path: Path
    survey: Survey
    seed: int = 20260901
    rows: int = 0
    #: Distinct answer sets stored through the product (0: :data:`POOL_SIZE`).
    pool_size: int = 0
    rng: np.random.Generator = field(init=False)
    pool: list[dict[str, str]] = field(init=False)
    responses: list[NoisyResponse] = field(init=False)
    templates: Templates = field(init=False)

    def __post_init__(self) -> None:
        self.pool_size = self.pool_size or POOL_SIZE
        self.rng = np.random.default_rng(self.seed)
        self.pool = _answer_pool(self.survey, self.rng, self.pool_size)
        self.responses = [noisy_response(self.survey, answers, "server") for answers in self.pool]
        self.templates = store_templates(
            self.path.with_name(self.path.stem + "-templates.sqlite3"), self.survey, self.pool
        )
        self.days = [(FIRST_DAY + dt.timedelta(days=k)).isoformat() for k in range(DAYS)]

    def grow_to(self, total: int) -> None:
        """Insert rows until the survey has ``total`` responses."""
        conn = self._bulk_connection()
        try:
            self._insert_designs(conn)
            while self.rows < total:
                self._insert_batch(conn, min(BATCH_ROWS, total - self.rows))
        finally:
            self._end_bulk(conn)

    def _end_bulk(self, conn) -> None:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.close()

    def _bulk_connection(self) -> sqlite3.Connection:
        conn = sqlite3.connect(str(self.path), isolation_level=None)
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -262144")  # 256 MiB
        return conn

    def _insert_designs(self, conn: sqlite3.Connection) -> None:
        columns = self.templates.design_columns
        conn.executemany(
            f"INSERT INTO designs ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            " ON CONFLICT (id) DO NOTHING",
            self.templates.designs,
        )  # column names read from the product's own table

    def _insert_batch(self, conn: sqlite3.Connection, count: int) -> None:
        picks = self.rng.integers(0, self.pool_size, size=count)
        days = self.rng.integers(0, DAYS, size=count)
        device = self.rng.random(count) < DEVICE_SHARE
        suffixes = self.rng.integers(0, 2**63, size=count)
        conn.execute("BEGIN")
        self._insert_rows(conn, self._rows(picks.tolist(), days.tolist(), device.tolist(), suffixes.tolist()))
        self._add_tallies(conn, picks)
        self._add_group_tallies(conn, picks)
        self._add_pattern_tallies(conn, picks)
        self._add_daily_counts(conn, days)
        self._add_daily_tallies(conn, picks, days)
        conn.execute("COMMIT")
        self.rows += count

    def _insert_rows(self, conn: sqlite3.Connection, rows) -> None:
        columns = self.templates.columns
        conn.executemany(
            f"INSERT INTO responses ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows
        )  # column names read from the product's own table

    def _rows(self, picks, days, device, suffixes):
        """Template rows with a fresh id and day."""
        columns = self.templates.columns
        id_at, day_at = columns.index("id"), columns.index("day")
        on_device, on_server = self.templates.rows["device"], self.templates.rows["server"]
        day_names, start = self.days, self.rows
        for i, (pick, day, is_device, suffix) in enumerate(zip(picks, days, device, suffixes)):
            row = list((on_device if is_device else on_server)[pick])
            row[id_at], row[day_at] = f"{start + i:016x}{suffix:016x}", day_names[day]
            yield row

    def _kept_counts(self, picks: np.ndarray, rows_of) -> dict[tuple, int]:
        """``{row key: count}`` over the rows ``rows_of(response)`` yields for each picked template (``(key...,
        add)``: 1 for an answer, a number's output and its square for its sums), as the product adds them
        one response at a time; a key any picked template has is kept even if its count is 0 (a sum of zeros)."""
        counts: dict[tuple, int] = {}
        for pick, times in enumerate(np.bincount(picks, minlength=self.pool_size).tolist()):
            if times:
                for *key, add in rows_of(self.responses[pick]):
                    counts[tuple(key)] = counts.get(tuple(key), 0) + times * add
        return counts

    def _add_tallies(self, conn: sqlite3.Connection, picks: np.ndarray) -> None:
        counts = self._kept_counts(picks, _tally_rows)
        conn.executemany(
            "INSERT INTO tallies (survey_id, question, design, answer, count) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (survey_id, question, design, answer) DO UPDATE SET count = tallies.count + excluded.count",
            [(self.survey.id, *key, n) for key, n in counts.items()],
        )

    def _add_group_tallies(self, conn: sqlite3.Connection, picks: np.ndarray) -> None:
        """The break-down tallies the product keeps per plain question, for these rows."""
        counts = self._kept_counts(picks, _group_rows)
        conn.executemany(
            "INSERT INTO group_tallies (survey_id, by_question, by_answer, question, design, answer, count)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (survey_id, by_question, by_answer, question, design, answer)"
            " DO UPDATE SET count = group_tallies.count + excluded.count",
            [(self.survey.id, *key, n) for key, n in counts.items()],
        )

    def _add_pattern_tallies(self, conn: sqlite3.Connection, picks: np.ndarray) -> None:
        """The model's counts the product keeps per yes/no outcome and pattern of plain answers, for these rows."""
        counts = self._kept_counts(picks, _pattern_rows)
        conn.executemany(
            "INSERT INTO pattern_tallies (survey_id, outcome, design, pattern, answer, count)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (survey_id, outcome, design, pattern, answer)"
            " DO UPDATE SET count = pattern_tallies.count + excluded.count",
            [(self.survey.id, *key, n) for key, n in counts.items()],
        )

    def _add_daily_counts(self, conn: sqlite3.Connection, days: np.ndarray) -> None:
        conn.executemany(
            "INSERT INTO daily_counts (survey_id, day, count) VALUES (?, ?, ?)"
            " ON CONFLICT (survey_id, day) DO UPDATE SET count = daily_counts.count + excluded.count",
            [(self.survey.id, self.days[k], n) for k, n in enumerate(np.bincount(days, minlength=DAYS).tolist()) if n],
        )

    def _add_daily_tallies(self, conn: sqlite3.Connection, picks: np.ndarray, days: np.ndarray) -> None:
        """The per-day tallies the product keeps (m009), for these rows: what the estimate over time reads."""
        per_day_pick = np.bincount(days * self.pool_size + picks, minlength=DAYS * self.pool_size).reshape(
            DAYS, self.pool_size
        )
        keys = sorted({tuple(row[:-1]) for response in self.responses for row in _tally_rows(response)})
        column = {key: k for k, key in enumerate(keys)}
        adds = np.zeros((self.pool_size, len(keys)), dtype=np.int64)  # pool entry -> what it adds to each kept row
        present = np.zeros((self.pool_size, len(keys)), dtype=np.int64)  # pool entry -> 1 where it has that row
        for pick, response in enumerate(self.responses):
            for *key, add in _tally_rows(response):
                adds[pick, column[tuple(key)]] = add
                present[pick, column[tuple(key)]] = 1
        rows = []
        for day, per_key, seen in zip(range(DAYS), (per_day_pick @ adds).tolist(), (per_day_pick @ present).tolist()):
            rows += [(self.survey.id, self.days[day], *key, n) for key, n, s in zip(keys, per_key, seen) if s]
        conn.executemany(
            "INSERT INTO daily_tallies (survey_id, day, question, design, answer, count) VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (survey_id, day, question, design, answer)"
            " DO UPDATE SET count = daily_tallies.count + excluded.count",
            rows,
        )


def _tally_rows(response: NoisyResponse):
    """``(question, design, answer, add)`` for each kept tally row of one response, as
    :func:`storage.responses._insert_responses` adds them."""
    designs = response.question_designs
    return [(name, designs[name], key, add) for name in response.answers for key, add in response.kept_rows(name)]


def _group_rows(response: NoisyResponse):
    """``(by, group, question, design, answer, add)`` for each kept break-down row of one response."""
    rows = _tally_rows(response)
    return [(by, response.answers.get(by, responses.NO_ANSWER), *row) for by in response.plain for row in rows]


def _pattern_rows(response: NoisyResponse):
    """``(outcome, design, pattern, answer, add)`` for each kept pattern row of one response."""
    pattern, designs = response.pattern(), response.question_designs
    return [
        (outcome, designs[outcome], pattern, key, add)
        for outcome in response.pattern_outcomes
        if outcome in response.answers
        for key, add in response.kept_rows(outcome)
    ]


class PostgresBulk:
    """The calls :class:`Generator` makes on a bulk SQLite connection, on a psycopg connection:
    ``?`` statements, ``BEGIN`` / ``COMMIT``, and the responses written with ``COPY ... FROM STDIN``."""

    def __init__(self, url: str):
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)
        self.conn.execute("SET synchronous_commit = off")  # generation only: one flush at the end

    def execute(self, sql: str, params=None):
        return self.conn.execute(postgres.placeholders(sql), params)

    def executemany(self, sql: str, rows) -> None:
        with self.conn.cursor() as cursor:
            cursor.executemany(postgres.placeholders(sql), list(rows))

    def copy_rows(self, table: str, columns: tuple[str, ...], rows) -> None:
        with self.conn.cursor() as cursor, cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)  # table and column names: the product's own

    def close(self) -> None:
        self.conn.execute("VACUUM ANALYZE")  # what autovacuum would do by the time anyone reads them
        self.conn.close()


@dataclass
class PostgresGenerator(Generator):
    """:class:`Generator` writing into the PostgreSQL database at ``url`` (``path`` names the scratch
    templates file only): the same rows, from the same seed, and the same kept tallies; the responses
    through ``COPY``."""

    url: str = ""

    def _bulk_connection(self) -> PostgresBulk:
        return PostgresBulk(self.url)

    def _insert_rows(self, conn: PostgresBulk, rows) -> None:
        conn.copy_rows("responses", self.templates.columns, rows)

    def _end_bulk(self, conn: PostgresBulk) -> None:
        conn.close()
