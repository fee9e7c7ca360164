"""Defending a survey's integrity: the per-address hourly limit, hour histogram and
the burst warning, and days excluded from the estimates (pages and exports)."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import sqlite3
import time
from datetime import date

import pytest

from analysis.bursts import MIN_BURST_COUNT, hour_threshold
from storage import burst_days, connection, day_exclusions, migrations, queries, responses
from storage.connection import DUMP_WITHOUT_DATA
from surveys import results
from surveys.files import load_catalog
from surveys.schema import SurveyFileError
from surveys.submission import noisy_response
from surveys.wording import table_percent as pct
from tests.helpers.drivers import Respondent, csrf_token_in
from tests.helpers.sample_surveys import QUIZ_YAML, make_survey
from web import gather
from web.db import open_database
from web.limits import Arrival, BurstRules
from web.options import ResultsOptions, model_choice

pytestmark = pytest.mark.both_backends

LIMIT_KEY = "max_responses_per_address_per_hour"
ANSWERS = {"cheated": "yes", "ai_use": "once", "year": "first"}
HONEST_DAY, FLOOD_DAY = "2026-11-20", "2026-11-21"


def with_limit(surveys_dir, limit: int) -> None:
    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML.replace("version: 1\n", f"version: 1\n{LIMIT_KEY}: {limit}\n"))


def rate_limit_rows(app, sql: str) -> list[tuple]:
    """Rows of the rate-limit counts: the SQLite rate-limit file, or the PostgreSQL database's unlogged tables."""
    if app.config.get("DATABASE_URL"):
        db = open_database(app)
        try:
            return [tuple(row) for row in db.execute(sql).fetchall()]
        finally:
            db.close()
    conn = sqlite3.connect(app.config["RATELIMIT_DATABASE"])
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def quiz(app):
    return load_catalog(app.config["SURVEYS_DIR"]).get("quiz")


def store(db, survey, answers_list, day: str, hour: int = 12, prefix: str = "k") -> None:
    """Store noisy answers directly, as the submission path would, all in one clock hour
    (``hour`` only names the submission keys and the hour's burst rule in memory: no hour is stored)."""
    clock_hour, rules = date.fromisoformat(day).toordinal() * 24 + hour, BurstRules()
    for i, answers in enumerate(answers_list):
        burst = rules.burst_of(db, survey.id, Arrival(i + 1, clock_hour), survey.burst_ceiling_per_hour)
        responses.store_response(
            db,
            noisy_response(survey, answers, "device"),
            f"{prefix}-{day}-{hour}-{i:06d}",
            day,
            hour_count=i + 1,
            in_burst=burst is not None,
            burst_usual_rate=None if burst is None else burst.usual_rate,
        )


def honest(n: int) -> list[dict]:
    """n varied answers: cheated yes on every third, all four ai_use options, two years."""
    return [
        {
            "cheated": "yes" if i % 3 == 0 else "no",
            "ai_use": ["never", "once", "sometimes", "often"][i % 4],
            "year": ["first", "second"][i % 2],
        }
        for i in range(n)
    ]


def forged(n: int) -> list[dict]:
    return [{"cheated": "yes", "ai_use": "often", "year": "first"} for _ in range(n)]


# --------------------------------------------------------------------------
# The survey-file key.


def test_the_limit_key_is_read_and_absent_means_none():
    assert make_survey(**{LIMIT_KEY: 20}).max_responses_per_address_per_hour == 20
    assert make_survey().max_responses_per_address_per_hour is None


@pytest.mark.parametrize("value", [0, -3, 2.5, "20", True, [20]])
def test_a_bad_limit_is_reported_with_its_file_and_field(value):
    with pytest.raises(SurveyFileError) as caught:
        make_survey(**{LIMIT_KEY: value})
    [problem] = caught.value.problems
    assert (problem.file, problem.question, problem.field) == ("quiz.yaml", None, LIMIT_KEY)
    assert problem.message.startswith("must be a whole number of 1 or more, got ")


# --------------------------------------------------------------------------
# The per-survey, per-address, per-hour limit.


def submit_from_fresh_browsers(app, count: int, address: str = "127.0.0.1") -> list[int]:
    """One new browser (no cookie) per submission, all from ``address``, device path with chosen values."""
    statuses = []
    for _ in range(count):
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = address
        statuses.append(
            Respondent(client).submit({"cheated": "yes", "ai_use": "often", "year": "first"}, device=True).status_code
        )
    return statuses


def test_one_address_clearing_its_cookie_is_capped_per_hour(app, surveys_dir, db):
    """The review's attack: forged device answers from one address, a fresh cookie each time."""
    with_limit(surveys_dir, 20)
    statuses = submit_from_fresh_browsers(app, 25)
    assert statuses == [200] * 20 + [429] * 5
    assert queries.response_count(db, "quiz") == 20


def test_the_refusal_says_why_and_when_to_retry_and_stores_nothing(app, surveys_dir, db):
    with_limit(surveys_dir, 1)
    assert submit_from_fresh_browsers(app, 1) == [200]
    before = queries.tallies(db, "quiz")
    response = Respondent(app.test_client()).submit(ANSWERS)
    assert response.status_code == 429
    assert 0 < int(response.headers["Retry-After"]) <= 3601
    text = response.get_data(as_text=True)
    assert "at most 1 response an hour from one network address" in text
    assert f"try again in {response.headers['Retry-After']} seconds" in text
    assert queries.response_count(db, "quiz") == 1 and queries.tallies(db, "quiz") == before


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("fr", "Cette enquête accepte au plus 1 réponse par heure depuis une même adresse réseau"),
        ("es", "Esta encuesta acepta como máximo 1 respuesta por hora desde una misma dirección de red"),
    ],
)
def test_the_refusal_is_in_the_respondents_language(app, surveys_dir, language, sentence):
    with_limit(surveys_dir, 1)
    assert submit_from_fresh_browsers(app, 1) == [200]
    client = app.test_client()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = language
    response = Respondent(client).submit(ANSWERS)
    assert response.status_code == 429
    text = html.unescape(response.get_data(as_text=True))
    assert sentence in text and f"{response.headers['Retry-After']} " in text and "network address" not in text


def test_the_limit_is_per_address_and_per_survey(app, surveys_dir, db):
    with_limit(surveys_dir, 2)
    (surveys_dir / "other.yaml").write_text(QUIZ_YAML.replace("id: quiz", "id: other"))
    assert submit_from_fresh_browsers(app, 3) == [200, 200, 429]
    assert submit_from_fresh_browsers(app, 2, address="192.0.2.7") == [200, 200]  # another address
    other = Respondent(app.test_client()).submit(ANSWERS, survey_id="other")  # no key: site-wide limit only
    assert other.status_code == 200


def test_without_the_key_only_the_site_wide_limit_applies(app, db):
    assert submit_from_fresh_browsers(app, 30) == [200] * 30


def test_the_limit_bucket_is_a_keyed_hash_of_the_address(app, surveys_dir):
    with_limit(surveys_dir, 5)
    submit_from_fresh_browsers(app, 1, address="198.51.100.23")
    buckets = [bucket for (bucket,) in rate_limit_rows(app, "SELECT bucket FROM window_hits")]
    assert any(bucket.startswith("survey:quiz:") for bucket in buckets)
    assert not any("198.51.100.23" in bucket for bucket in buckets)


def test_the_limit_is_off_with_rate_limits_switched_off(app, surveys_dir):
    with_limit(surveys_dir, 1)
    app.config["RATELIMIT_ENABLED"] = False
    assert submit_from_fresh_browsers(app, 3) == [200, 200, 200]


# --------------------------------------------------------------------------
# The hour histogram: the shape of the traffic, with no time in it.


def test_each_hour_moves_up_the_histogram(app, db):
    survey = quiz(app)
    store(db, survey, honest(2), HONEST_DAY, hour=9)
    store(db, survey, honest(1), HONEST_DAY, hour=10)
    store(db, survey, honest(2), HONEST_DAY, hour=11)
    assert burst_days.hour_histogram(db, "quiz") == [(1, 1), (2, 2)]


def test_a_count_whose_row_below_has_no_hour_adds_its_hour_and_takes_none(app, db):
    """The move's ``EXISTS`` guard (:data:`storage.responses.MOVE_HOUR`): a count whose row below holds no hour
    (the rate-limit file's counts lost mid-hour) adds its hour and takes none, and no row goes below zero."""
    survey = quiz(app)
    store(db, survey, honest(3), HONEST_DAY, hour=9)
    store(db, survey, honest(1), HONEST_DAY, hour=10)
    responses.store_response(db, noisy_response(survey, ANSWERS, "device"), "gap-key-000000", HONEST_DAY, hour_count=6)
    assert burst_days.hour_histogram(db, "quiz") == [(1, 1), (3, 1), (6, 1)]
    assert db.execute("SELECT min(hours) FROM hour_histograms").fetchone()[0] >= 0


def test_submissions_are_counted_per_clock_hour_in_the_rate_limit_file_only(app, db):
    before = int(time.time() // 3600)
    for _ in range(2):
        assert Respondent(app.test_client()).submit(ANSWERS).status_code == 200
    same_hour = int(time.time() // 3600) == before
    assert burst_days.hour_histogram(db, "quiz") == ([(2, 1)] if same_hour else [(1, 2)])
    buckets = dict(rate_limit_rows(app, "SELECT bucket, count FROM window_hits WHERE bucket LIKE 'arrivals:%'"))
    assert buckets.get("arrivals:quiz") == (2 if same_hour else 1)


def test_a_repeated_submission_key_is_not_counted_twice(app, db):
    survey = quiz(app)
    response = noisy_response(survey, ANSWERS, "device")
    assert responses.store_response(db, response, "same-key-000000", HONEST_DAY, hour_count=1)
    assert not responses.store_response(db, response, "same-key-000000", HONEST_DAY, hour_count=2)
    assert burst_days.hour_histogram(db, "quiz") == [(1, 1)]


TIME_WORDS = ("hour", "time", "minute", "second", "at", "when", "stamp")
#: Tables of what administrators do, with the time they did it, and no column that an answer, a response or a
#: respondent could be joined on: who signed in, who edited or exported a survey (storage/audit.py).
#: The survey definitions too (storage/surveys.py): when a version was saved, when a survey was first opened,
#: when the catalogue changed; no answer, response or respondent in them.
ADMINISTRATION_TABLES = {"audit_log", "surveys", "survey_versions", "catalog_changes"}


def columns_of(db, table: str) -> list[str]:
    return db.column_names(table) if connection.is_postgres(db) else [column.name for column in db[table].columns]


def test_no_table_of_the_answers_database_holds_a_time_finer_than_the_day(db):
    for table in db.table_names():
        if table in ("_sqlite_migrations", "_migrations"):  # when the schema changed: nothing to do with answers
            continue
        if table in DUMP_WITHOUT_DATA:  # PostgreSQL's rate-limit counts: windows, no answer
            continue
        if table in ADMINISTRATION_TABLES:
            assert not {"answers", "answer", "response_id", "address"} & set(columns_of(db, table)), table
            continue
        for column in columns_of(db, table):
            assert not any(word == part for part in column.split("_") for word in TIME_WORDS), (table, column)
    assert columns_of(db, "hour_histograms") == ["survey_id", "responses", "hours"]
    assert columns_of(db, "bursts") == ["survey_id", "day", "peak", "usual_rate", "marked", "set_aside"]


@pytest.mark.parametrize("hour_count", [0, -1, 1.5, True])
def test_a_bad_hour_count_is_refused_and_nothing_is_stored(app, db, hour_count):
    with pytest.raises(ValueError, match="hour_count must be an integer >= 1"):
        responses.store_response(
            db, noisy_response(quiz(app), ANSWERS, "device"), "bad-hour-000000", HONEST_DAY, hour_count=hour_count
        )
    assert queries.response_count(db, "quiz") == 0 and burst_days.hour_histogram(db, "quiz") == []


# --------------------------------------------------------------------------
# The burst warning on the dashboard.


def test_the_dashboard_warns_of_a_burst_with_a_button_to_exclude_its_day(app, db, auth):
    survey = quiz(app)
    for hour in range(24):
        store(db, survey, honest(2), HONEST_DAY, hour=hour)
    store(db, survey, forged(60), FLOOD_DAY, hour=14, prefix="f")
    auth.login()
    page = auth.client.get("/admin/").get_data(as_text=True)
    assert "1 burst day" in page and "<h2>Bursts</h2>" in page
    assert f'<th scope="row">{FLOOD_DAY}</th>' in page and "<td>60</td>" in page and "<td>2</td>" in page
    assert f'<th scope="row">{HONEST_DAY}</th>' not in page
    assert 'action="/admin/surveys/quiz/excluded-days"' in page and f'name="day" value="{FLOOD_DAY}"' in page
    assert f"Exclude {FLOOD_DAY} from the estimates" in page
    marked = 60 - hour_threshold(2.0, survey.burst_ceiling_per_hour) + 1  # from the threshold on
    assert f"Set aside the {marked} marked answers of {FLOOD_DAY}" in page and f"<td>{marked}</td>" in page


def test_no_warning_for_ordinary_traffic(app, db, auth):
    survey = quiz(app)
    for hour in range(24):
        store(db, survey, honest(2 + hour % 3), HONEST_DAY, hour=hour)
    auth.login()
    page = auth.client.get("/admin/").get_data(as_text=True)
    assert "Bursts" not in page and "burst day" not in page


def test_a_burst_through_the_form_reads_the_hour_histogram_once_an_hour(app, db, auth, monkeypatch):
    """Submissions through the view: the hour's rule is read once (not per answer), the flood is still
    noted from the threshold on, and a new clock hour works the rule out again."""
    from web import limits

    survey, reads = quiz(app), []
    for hour in range(24):
        store(db, survey, honest(2), HONEST_DAY, hour=hour)
    real_histogram = burst_days.judged_hour_histogram
    monkeypatch.setattr(limits.burst_days, "judged_hour_histogram", lambda *a: reads.append(1) or real_histogram(*a))
    clock = [1_800_000_000.0]  # whole hours since the epoch: 500,000
    monkeypatch.setattr(limits.time, "time", lambda: clock[0])
    statuses = submit_from_fresh_browsers(app, 40)
    assert statuses == [200] * 40 and len(reads) == 1  # counts 10..40 of one hour: one read
    clock[0] += 3600
    assert submit_from_fresh_browsers(app, MIN_BURST_COUNT) == [200] * MIN_BURST_COUNT and len(reads) == 2
    rows = [tuple(row) for row in db.execute("SELECT peak, usual_rate FROM bursts").fetchall()]
    assert rows == [(40, 2.0)]  # 40 on a usual 2 an hour; P(X >= 10 | 2) = 4.6e-5: not a burst at 10


@pytest.mark.postgresql_only
def test_a_rule_worked_out_while_answers_of_the_hour_commit_never_takes_the_hour_for_another(app, db):
    """On PostgreSQL an answer's count is read at the start of its transaction without a lock, and answers
    committed since then move its hour up the histogram. The hour's rule must still leave that hour out:
    judged at 10 with 12 answers of the hour committed, the survey has no other active hour, so no usual
    rate and (with no ceiling) no burst, at 10 or at 500. Before, the hour was left out at 10 - 1 = 9, where
    the histogram did not hold it, so it became a usual hour of 12 (threshold 36 at alpha 1e-6), and this
    process marked every later answer of the hour: the bench's PostgreSQL submissions, one worker in five."""
    survey = quiz(app)
    arrivals = responses.Arrivals(db, "arrivals:quiz", time.time())
    for i, answers in enumerate(honest(12)):
        response = noisy_response(survey, answers, "device")
        stored = responses.store_submission(db, response, f"race-{i:06d}", HONEST_DAY, arrivals=arrivals)
        assert stored is responses.Outcome.STORED
    assert burst_days.hour_histogram(db, "quiz") == [(12, 1)]
    assert burst_days.judged_hour_histogram(db, "quiz", arrivals, 10) == ([(12, 1)], 12)
    rules = BurstRules()
    assert rules.burst_of(db, "quiz", Arrival(10, arrivals.hour, arrivals)) is None
    assert rules.burst_of(db, "quiz", Arrival(500, arrivals.hour, arrivals)) is None


# --------------------------------------------------------------------------
# Excluding days: the estimates are the tallies minus those days'.


@pytest.fixture
def flooded(app, db):
    """100 honest responses on one day and 50 forged yeses on the next."""
    survey = quiz(app)
    store(db, survey, honest(100), HONEST_DAY)
    store(db, survey, forged(50), FLOOD_DAY, prefix="f")
    return survey


@pytest.fixture
def honest_only(app, tmp_path):
    """The same 100 honest responses alone, in a database of their own."""
    database = connection.connect(tmp_path / "honest.sqlite3")
    migrations.migrate(database)
    store(database, quiz(app), honest(100), HONEST_DAY)
    yield database
    database.close()


def test_excluding_a_day_gives_the_estimates_without_its_responses(flooded, db, honest_only):
    assert gather.stored_results(db, flooded).question("cheated").yes_count == 34 + 50
    assert day_exclusions.exclude_day(db, "quiz", FLOOD_DAY)
    without = gather.stored_results(db, flooded)
    alone = gather.stored_results(honest_only, flooded)
    assert without.questions == alone.questions
    assert without.response_count == 100
    assert results.plan(flooded, without.response_count) == results.plan(flooded, alone.response_count)
    assert without.excluded == results.Exclusion((FLOOD_DAY,), 50)


def test_including_the_day_again_restores_every_response(flooded, db):
    everything = gather.stored_results(db, flooded)
    day_exclusions.exclude_day(db, "quiz", FLOOD_DAY)
    assert day_exclusions.include_day(db, "quiz", FLOOD_DAY)
    assert gather.stored_results(db, flooded) == everything
    assert not day_exclusions.include_day(db, "quiz", FLOOD_DAY)  # not excluded: nothing changes


def test_break_downs_leave_the_excluded_days_out_too(flooded, db, honest_only):
    day_exclusions.exclude_day(db, "quiz", FLOOD_DAY)
    without = gather.stored_breakdown(db, flooded, "year")
    alone = gather.stored_breakdown(honest_only, flooded, "year")
    assert without.groups == alone.groups and without.excluded.days == (FLOOD_DAY,)


@pytest.mark.sqlite_only  # SQLite's statement trace
def test_the_excluded_days_are_read_by_index_not_by_scanning_the_survey(flooded, db):
    day_exclusions.exclude_day(db, "quiz", FLOOD_DAY)
    statements = []
    db.conn.set_trace_callback(statements.append)
    gather.stored_results(db, flooded)
    gather.stored_breakdown(db, flooded, "year")
    db.conn.set_trace_callback(None)
    reading_responses = [sql for sql in statements if "FROM responses" in sql]
    # the estimates subtract the day's kept per-day tallies (no response read); the break-down reads by index
    assert len(reading_responses) == 1
    assert any("FROM daily_tallies" in sql for sql in statements)
    for sql in reading_responses:
        plan = " ".join(row[3] for row in db.execute("EXPLAIN QUERY PLAN " + sql).fetchall())
        assert "USING INDEX responses_day (survey_id=? AND day=?)" in plan, plan


@pytest.mark.sqlite_only  # SQLite's statement trace
def test_nothing_is_read_from_responses_when_no_day_is_excluded(flooded, db):
    statements = []
    db.conn.set_trace_callback(statements.append)
    gather.stored_results(db, flooded)
    db.conn.set_trace_callback(None)
    assert not [sql for sql in statements if "FROM responses" in sql]


def test_subtracting_tallies_drops_zeros_and_refuses_more_than_there_is():
    total = {"q": {"d": {"yes": 3, "no": 2}}}
    assert results.subtract_tallies(total, {"q": {"d": {"yes": 1, "no": 2}}}) == {"q": {"d": {"yes": 2}}}
    with pytest.raises(ValueError, match="cannot remove more answers 'yes' to 'q' than 3"):
        results.subtract_tallies(total, {"q": {"d": {"yes": 4}}})
    with pytest.raises(ValueError, match="never tallied"):
        results.subtract_tallies(total, {"q": {"other": {"yes": 1}}})


@pytest.mark.parametrize("day", ["2026-13-01", "2026-02-30", "21/11/2026", "", "2026-11-21' OR 1=1"])
def test_a_bad_day_is_refused_by_name(db, day):
    with pytest.raises(ValueError, match="day must be a date written YYYY-MM-DD"):
        day_exclusions.exclude_day(db, "quiz", day)
    assert day_exclusions.excluded_days(db, "quiz") == []


# --------------------------------------------------------------------------
# Excluding days from the admin pages, and what the pages and exports say.


def post_day(auth, action: str, day: str, token: str | None = "page", next_path: str = "/admin/surveys/quiz"):
    data = {"day": day, "next": next_path}
    if token == "page":
        data["csrf_token"] = csrf_token_in(auth.client.get("/admin/surveys/quiz").get_data(as_text=True))
    return auth.client.post(f"/admin/surveys/quiz/{action}", data=data)


def test_an_admin_excludes_a_day_and_the_results_page_says_so(flooded, db, auth):
    auth.login()
    response = post_day(auth, "excluded-days", FLOOD_DAY)
    assert response.status_code == 302 and response.headers["Location"] == "/admin/surveys/quiz"
    assert day_exclusions.excluded_days(db, "quiz") == [(FLOOD_DAY, 50)]
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "100 responses in the estimates" in page
    assert f"50 responses of\n {FLOOD_DAY} (UTC) were excluded by an admin" in page
    assert f"Include {FLOOD_DAY} again" in page and 'action="/admin/surveys/quiz/included-days"' in page
    assert "With the 100 answers to it in the estimates" in page
    assert post_day(auth, "included-days", FLOOD_DAY).status_code == 302
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert (
        "excluded by an admin" not in page
        and "150 responses" in page
        and day_exclusions.excluded_days(db, "quiz") == []
    )


def test_the_dashboard_shows_an_excluded_burst_day_with_a_button_to_include_it(app, db, auth):
    survey = quiz(app)
    for hour in range(24):
        store(db, survey, honest(2), HONEST_DAY, hour=hour)
    store(db, survey, forged(60), FLOOD_DAY, hour=14, prefix="f")
    auth.login()
    assert post_day(auth, "excluded-days", FLOOD_DAY, next_path="/admin/").headers["Location"] == "/admin/"
    page = auth.client.get("/admin/").get_data(as_text=True)
    assert f"{FLOOD_DAY} is excluded." in page and f"Include {FLOOD_DAY} again" in page


def read_csv(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))


def test_the_exports_reflect_the_exclusion_and_name_it(flooded, db, auth):
    day_exclusions.exclude_day(db, "quiz", FLOOD_DAY)
    auth.login()
    document = auth.client.get("/admin/surveys/quiz/estimates.json").get_json()
    assert document["response_count"] == 100
    assert document["excluded"] == {"days": [FLOOD_DAY], "response_count": 50}
    cheated = next(row for row in document["rows"] if row["question"] == "cheated")
    assert cheated["n"] == 100 and cheated["yes_count"] == 34
    rows = read_csv(auth.client.get("/admin/surveys/quiz/estimates.csv"))
    assert {(row["excluded_days"], row["excluded_responses"]) for row in rows} == {(FLOOD_DAY, "50")}
    assert next(row for row in rows if row["question"] == "cheated")["yes_count"] == "34"
    exported = read_csv(auth.client.get("/admin/surveys/quiz/responses.csv"))
    assert len(exported) == 150 and sum(row["day"] == FLOOD_DAY for row in exported) == 50
    codebook = auth.client.get("/admin/surveys/quiz/codebook.json").get_json()
    [entry] = codebook["excluded_days"]
    assert (entry["day"], entry["responses"]) == (FLOOD_DAY, 50) and "still rows of the responses CSV" in entry["note"]


def test_the_command_line_estimates_leave_the_excluded_day_out(flooded, db, runner):
    day_exclusions.exclude_day(db, "quiz", FLOOD_DAY)
    result = runner.invoke(args=["export", "estimates", "quiz", "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["response_count"] == 100 and document["excluded"]["days"] == [FLOOD_DAY]


def test_excluding_without_a_csrf_token_changes_nothing(flooded, db, auth):
    auth.login()
    response = post_day(auth, "excluded-days", FLOOD_DAY, token=None)
    assert response.status_code == 400 and "could not be verified" in response.get_data(as_text=True)
    assert day_exclusions.excluded_days(db, "quiz") == []
    day_exclusions.exclude_day(db, "quiz", FLOOD_DAY)
    assert post_day(auth, "included-days", FLOOD_DAY, token=None).status_code == 400
    assert day_exclusions.excluded_days(db, "quiz") == [(FLOOD_DAY, 50)]


@pytest.mark.parametrize(
    "day, message",
    [
        ("21/11/2026", "The day must be a date written YYYY-MM-DD"),
        ("2026-11-25", "has no responses on 2026-11-25; there is nothing to exclude"),
    ],
)
def test_excluding_a_bad_or_empty_day_is_a_400_with_a_message(flooded, db, auth, day, message):
    auth.login()
    response = post_day(auth, "excluded-days", day)
    assert response.status_code == 400 and message in response.get_data(as_text=True)
    assert day_exclusions.excluded_days(db, "quiz") == []


# --------------------------------------------------------------------------
# Floods: a burst flagged from the first hour, its answers marked, set aside or kept.


def ceiling_of(app) -> int:
    return quiz(app).burst_ceiling_per_hour


def test_a_flood_in_a_surveys_first_active_hour_is_flagged_and_its_answers_marked(app, db):
    """320 forged in the survey's first hour: no other hour to compare with, so the ceiling flags it; the
    answers from the ceiling on are marked."""
    ceiling = ceiling_of(app)
    store(db, quiz(app), forged(320), FLOOD_DAY, hour=0, prefix="f")
    marked = 320 - ceiling + 1
    assert burst_days.bursts(db, "quiz") == [burst_days.BurstDay(FLOOD_DAY, 320, None, marked, False)]
    assert db.execute("SELECT COUNT(*) FROM responses WHERE burst = 1").fetchone()[0] == marked
    assert queries.burst_tallies_on_days(db, "quiz", [FLOOD_DAY])["cheated"] == {
        key: {"yes": marked} for key in queries.tallies(db, "quiz")["cheated"]
    }


def test_a_flood_through_the_form_in_the_first_hour_is_marked_from_the_surveys_own_ceiling(
    app, surveys_dir, db, monkeypatch
):
    from web import limits

    (surveys_dir / "quiz.yaml").write_text(
        QUIZ_YAML.replace("version: 1\n", "version: 1\nburst_ceiling_per_hour: 12\n")
    )
    monkeypatch.setattr(limits.time, "time", lambda: 1_800_000_000.0)  # one clock hour throughout
    assert submit_from_fresh_browsers(app, 15) == [200] * 15
    [burst] = burst_days.bursts(db, "quiz")
    assert (burst.peak, burst.usual_rate, burst.marked, burst.set_aside) == (15, None, 4, False)
    assert db.execute("SELECT COUNT(*) FROM responses WHERE burst = 1").fetchone()[0] == 4


def flood_day_traffic(db, survey, flood: int) -> None:
    """A usual 2 an hour on HONEST_DAY; on FLOOD_DAY 3 an hour for ten hours, ``flood`` forged yeses in hour 14,
    then 3 honest answers in hour 18 (after the flood, not flagged)."""
    for hour in range(24):
        store(db, survey, honest(2), HONEST_DAY, hour=hour)
    for hour in range(10):
        store(db, survey, honest(3), FLOOD_DAY, hour=hour)
    store(db, survey, forged(flood), FLOOD_DAY, hour=14, prefix="f")
    store(db, survey, honest(3), FLOOD_DAY, hour=18, prefix="late")


@pytest.fixture
def burst_day(app, db):
    """The flood day's traffic with 300 forged in hour 14; returns (survey, the hour's threshold)."""
    survey = quiz(app)
    flood_day_traffic(db, survey, 300)
    return survey, hour_threshold(2.0, survey.burst_ceiling_per_hour)  # the usual rate: the median hour has 2


@pytest.fixture
def unmarked_only(app, tmp_path, burst_day):
    """The same traffic with only the flood's unmarked answers (those before its threshold), in a database
    of its own."""
    database = connection.connect(tmp_path / "unmarked.sqlite3")
    migrations.migrate(database)
    flood_day_traffic(database, quiz(app), burst_day[1] - 1)
    yield database
    database.close()


def test_answers_arriving_during_the_flagged_burst_are_marked_and_no_others(burst_day, db):
    survey, threshold = burst_day
    marked = 300 - threshold + 1
    assert burst_days.bursts(db, "quiz") == [burst_days.BurstDay(FLOOD_DAY, 300, 2.0, marked, False)]
    rows = db.execute("SELECT day, answers FROM responses WHERE burst = 1").fetchall()
    assert len(rows) == marked and {(day, json.loads(a)["ai_use"]) for day, a in rows} == {(FLOOD_DAY, "often")}


def test_setting_the_marked_answers_aside_leaves_the_days_honest_answers_in(burst_day, db, unmarked_only):
    survey, threshold = burst_day
    everything = gather.stored_results(db, survey)
    assert burst_days.set_burst_aside(db, "quiz", FLOOD_DAY, True)
    assert not burst_days.set_burst_aside(db, "quiz", FLOOD_DAY, True)  # set aside already: nothing changes
    without = gather.stored_results(db, survey)
    alone = gather.stored_results(unmarked_only, survey)
    assert without.questions == alone.questions and without.response_count == alone.response_count
    assert without.response_count == 48 + 33 + threshold - 1  # every honest answer of both days stays in
    assert without.excluded == results.Exclusion((), 0, (FLOOD_DAY,), 300 - threshold + 1)
    assert (
        gather.stored_breakdown(db, survey, "year").groups
        == gather.stored_breakdown(unmarked_only, survey, "year").groups
    )
    assert burst_days.set_burst_aside(db, "quiz", FLOOD_DAY, False)
    assert gather.stored_results(db, survey) == everything


def test_an_excluded_day_takes_its_marked_answers_with_it_once(burst_day, db):
    survey, _ = burst_day
    burst_days.set_burst_aside(db, "quiz", FLOOD_DAY, True)
    day_exclusions.exclude_day(db, "quiz", FLOOD_DAY)
    result = gather.stored_results(db, survey)
    assert result.response_count == 48 and result.excluded.set_aside_days == ()


def test_the_results_page_shows_the_estimates_with_and_without_the_marked_answers(burst_day, db, auth):
    survey, threshold = burst_day
    marked = 300 - threshold + 1
    everything = gather.stored_results(db, survey)
    auth.login()
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "Bursts and marked answers" in page and f"Set aside the {marked} marked answers of {FLOOD_DAY}" in page
    response = post_day(auth, "set-aside-bursts", FLOOD_DAY)
    assert response.status_code == 302 and burst_days.bursts(db, "quiz")[0].set_aside
    without = gather.stored_results(db, survey)
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert f"Keep the {marked} marked answers of {FLOOD_DAY}" in page
    counts = f"({everything.response_count} responses) and without them ({without.response_count})"
    assert f"with the {marked} marked answers {counts}" in page
    row = re.search(
        r"<th scope=\"row\">Have you ever cheated on an exam\?</th>\s*<td>(.*?)</td>\s*<td>(.*?)</td>", page
    )
    cheated = [r.question("cheated") for r in (everything, without)]
    assert row.groups() == tuple(f"{pct(c.estimate)} [{pct(c.ci.low)}, {pct(c.ci.high)}]" for c in cheated)
    assert cheated[0].estimate > cheated[1].estimate
    assert f"{without.response_count} responses in the estimates" in page
    assert (
        post_day(auth, "kept-bursts", FLOOD_DAY).status_code == 302 and not burst_days.bursts(db, "quiz")[0].set_aside
    )


def test_the_results_page_says_what_the_defences_catch_and_offers_the_remedies(app, surveys_dir, auth):
    auth.login()
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "<strong>Invitation codes</strong>: off. This is the one defence that holds against many addresses" in page
    assert "flask --app app codes create quiz COUNT" in page
    assert "<strong>A limit per address</strong>: not set" in page and "not a client that changes address" in page
    assert (
        "It cannot catch a flood spread thin" in page
        and "from the survey's first hour (its ceiling:\n   100 an hour)" in page
    )
    with_limit(surveys_dir, 20)
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert "<strong>A limit per address</strong>: 20 answers an hour from one network address" in page


def test_setting_aside_without_a_csrf_token_or_with_a_bad_day_changes_nothing(burst_day, db, auth):
    auth.login()
    assert post_day(auth, "set-aside-bursts", FLOOD_DAY, token=None).status_code == 400
    assert post_day(auth, "set-aside-bursts", "21/11/2026").status_code == 400
    assert not burst_days.bursts(db, "quiz")[0].set_aside


def test_the_timeline_model_and_break_down_of_the_page_leave_the_set_aside_answers_out(burst_day, db, unmarked_only):
    survey, _ = burst_day
    burst_days.set_burst_aside(db, "quiz", FLOOD_DAY, True)
    chosen = ResultsOptions(by="year", model=model_choice(survey, "cheated", ["year"], []))
    page, alone = (gather.results_page(d, survey, chosen, date(2026, 11, 22)) for d in (db, unmarked_only))
    assert page.timelines == alone.timelines and page.breakdown.groups == alone.breakdown.groups
    assert page.model is not None and page.model == alone.model and page.planning == alone.planning
    assert page.results.questions == alone.results.questions and alone.flood_comparison is None
    assert page.flood_comparison.without_count == alone.results.response_count


def test_rotating_addresses_pass_the_per_address_limit_but_not_the_burst_flag(app, surveys_dir, db, monkeypatch):
    """Four addresses, each within a limit of 5 an hour: all 20 answers are stored, and those from the survey's
    ceiling of 12 on are marked, whatever address they came from."""
    from web import limits

    yaml = QUIZ_YAML.replace("version: 1\n", f"version: 1\n{LIMIT_KEY}: 5\nburst_ceiling_per_hour: 12\n")
    (surveys_dir / "quiz.yaml").write_text(yaml)
    monkeypatch.setattr(limits.time, "time", lambda: 1_800_000_000.0)  # one clock hour throughout
    statuses = [status for i in range(4) for status in submit_from_fresh_browsers(app, 5, f"10.0.0.{i + 1}")]
    assert statuses == [200] * 20 and queries.response_count(db, "quiz") == 20
    assert submit_from_fresh_browsers(app, 1, "10.0.0.1") == [429]  # the limit does hold for one address
    [burst] = burst_days.bursts(db, "quiz")
    assert (burst.peak, burst.marked) == (20, 20 - 12 + 1)
