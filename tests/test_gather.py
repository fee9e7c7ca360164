"""Tests of web.gather: each admin page and export goes down to storage once and comes back once.

A view parses its options, makes exactly one call into :mod:`web.gather` and
renders; that call reads everything inside one read snapshot. The checks
count, during one request, the calls into ``web.gather``, the read snapshots
opened, and every call to a function of ``storage.queries`` and
``storage.responses`` (and ``storage.survey_states``, ``storage.burst_days``, ``storage.day_exclusions``) with whether
a snapshot was open.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
from datetime import date

import pytest

from storage import burst_days, connection, day_exclusions, queries, responses, survey_states
from surveys.submission import noisy_response
from tests.helpers.sample_surveys import QUIZ_YAML, survey_in
from web import answer_package, gather
from web.db import open_database
from web.options import ResultsOptions

pytestmark = pytest.mark.both_backends

#: Every admin page and export that reads stored data, with the one gather function it calls.
VIEWS = [
    ("/admin/", "dashboard"),
    ("/admin/surveys/quiz?by=year&method=wald&level=0.9&half_width=0.1", "results_page"),
    ("/admin/surveys/quiz?by=year&first=second&second=first", "results_page"),
    ("/admin/surveys/quiz/estimates.json?method=clopper-pearson", "estimates_json"),
    ("/admin/surveys/quiz/estimates.csv", "estimates_csv"),
    ("/admin/surveys/quiz/design_fit.json", "design_fit_json"),
    ("/admin/surveys/quiz/responses.csv", "responses_csv"),
    ("/admin/surveys/quiz/codebook.json", "codebook"),
    ("/admin/surveys/quiz/responses.sav", "statistics_file"),
    ("/admin/surveys/quiz/responses.dta", "statistics_file"),
    ("/admin/surveys/quiz/breakdown.csv?by=year", "breakdown_csv"),
    ("/admin/surveys/quiz/breakdown.json?by=year&method=wald", "breakdown_json"),
    ("/admin/surveys/quiz/correlation.json?pair_first=lied&pair_second=cheated&level=0.9", "correlation_json"),
    ("/admin/surveys/quiz/correlation.csv?pair_first=cheated&pair_second=lied", "correlation_csv"),
]


def store(app, answers: dict, count: int, day: str) -> None:
    survey = survey_in(app)
    db = open_database(app)
    for i in range(count):
        responses.store_response(db, noisy_response(survey, answers, "device"), f"gather-{day}-{answers}-{i}", day)
    db.close()


@pytest.fixture
def stored(app):
    """Responses on two days, one of them excluded, so every read of a page has something to read."""
    store(app, {"cheated": "yes", "lied": "no", "ai_use": "often", "year": "first"}, 6, "2026-11-20")
    store(app, {"cheated": "no", "lied": "yes", "ai_use": "never", "year": "second"}, 4, "2026-11-21")
    db = open_database(app)
    day_exclusions.exclude_day(db, "quiz", "2026-11-21")
    db.close()
    return app


@dataclasses.dataclass
class Trip:
    """What one request did: gather calls, snapshots opened, storage reads ``(name, inside a snapshot)``."""

    gather_calls: list = dataclasses.field(default_factory=list)
    snapshots: int = 0
    open_snapshots: int = 0
    reads: list = dataclasses.field(default_factory=list)
    in_gather: int = 0


def watch(monkeypatch) -> Trip:
    """Wrap the functions of web.gather and web.answer_package, ``read_snapshot`` and every function of
    storage.queries, storage.responses, storage.survey_states, storage.burst_days and storage.day_exclusions."""
    trip = Trip()

    def counted(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if not trip.in_gather:  # calls from views, not gather's calls to itself
                trip.gather_calls.append(function.__name__)
            trip.in_gather += 1
            try:
                return function(*args, **kwargs)
            finally:
                trip.in_gather -= 1

        return wrapper

    for module in (gather, answer_package):  # the noisy-answer package's reads live beside gather's
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ == module.__name__ and not name.startswith("_"):
                monkeypatch.setattr(module, name, counted(function))

    real_snapshot = connection.read_snapshot

    @contextlib.contextmanager
    def snapshot(db):
        trip.snapshots += 1
        trip.open_snapshots += 1
        try:
            with real_snapshot(db) as inside:
                yield inside
        finally:
            trip.open_snapshots -= 1

    monkeypatch.setattr(connection, "read_snapshot", snapshot)

    def read(name, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            trip.reads.append((name, trip.open_snapshots > 0))
            return function(*args, **kwargs)

        return wrapper

    for module in (queries, responses, survey_states, burst_days, day_exclusions):
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ == module.__name__:
                monkeypatch.setattr(module, name, read(f"{module.__name__}.{name}", function))
    return trip


def test_each_admin_view_makes_one_gather_call_reading_in_one_snapshot(stored, auth, subtests):
    """Each view a subtest on one signed-in client, watched on its own (its wrappers undone after it)."""
    auth.login()
    for url, gatherer in VIEWS:
        with subtests.test(url=url), pytest.MonkeyPatch.context() as monkeypatch:
            trip = watch(monkeypatch)
            response = auth.client.get(url)
            body = response.get_data()  # a streamed export reads while it is sent
            assert response.status_code == 200, body[:300]
            assert trip.gather_calls == [gatherer]
            assert trip.snapshots == 1
            assert trip.reads, "the page read nothing from storage.queries, storage.responses or storage.survey_states"
            assert [name for name, in_snapshot in trip.reads if not in_snapshot] == []


def test_the_results_page_reads_its_break_down_and_state_in_the_same_snapshot(stored, auth, monkeypatch):
    auth.login()
    trip = watch(monkeypatch)
    assert auth.client.get("/admin/surveys/quiz?by=year").status_code == 200
    names = {name.rpartition(".")[2] for name, _ in trip.reads}
    assert {
        "tallies",
        "daily_tallies_on_days",
        "group_tallies",
        "group_tallies_on_days",
        "excluded_days",
        "closed_override",
        "response_count",
    } <= names
    assert trip.snapshots == 1


def test_results_page_gathers_what_the_separate_functions_give(stored):
    """The page's figures are those of stored_results and stored_breakdown, with differences and planning."""
    survey = survey_in(stored)
    db = open_database(stored)
    try:
        chosen = ResultsOptions(method="wald", level=0.9, half_width=0.1, by="year")
        page = gather.results_page(db, survey, chosen, date(2026, 11, 22))
        assert page.results == gather.stored_results(db, survey, 0.9, "wald")
        assert page.breakdown == gather.stored_breakdown(db, survey, "year", 0.9, "wald")
    finally:
        db.close()
    assert page.results.response_count == 6  # the excluded day's 4 are out
    assert page.state == "open"
    assert page.planning is not None and page.planning.half_width == 0.1 and page.planning.response_count == 6
    # Only "first" has answers once 2026-11-21 is excluded: no pair to compare.
    assert page.differences == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        page.state = "closed"


TARGETS_YAML = (
    "targets:\n"
    "  - {question: cheated, margin: 0.6}\n"
    "  - {question: cheated, by: year, groups: [first, second], margin: 0.99}\n"
    "close_when_targets_met: true\n"
)


def test_the_dashboard_measures_each_target_without_the_excluded_days(stored, surveys_dir):
    from surveys.files import load_catalog
    from surveys.targets import target_progress

    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML + TARGETS_YAML)
    catalog = load_catalog(str(surveys_dir))
    db = open_database(stored)
    (row,) = gather.dashboard(db, catalog, date(2026, 11, 22)).rows
    kept_day = ["2026-11-20"]  # 2026-11-21 is excluded
    expected = target_progress(
        catalog.surveys["quiz"],
        queries.tallies_on_days(db, "quiz", kept_day),
        {"year": queries.group_tallies_on_days(db, "quiz", "year", kept_day)},
    )
    assert row.targets == expected
    assert [item.n for item in row.targets] == [6, 6]
    assert row.targets[1].half_width is None  # no answers from the second year once 2026-11-21 is left out
    assert not row.targets_met
    db.close()


def test_closing_on_targets_reads_in_one_snapshot_and_closes_once(stored, surveys_dir, monkeypatch):
    from surveys.files import load_catalog

    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML + TARGETS_YAML.replace("  - {question: cheated, by", "  # by"))
    survey = load_catalog(str(surveys_dir)).surveys["quiz"]
    db = open_database(stored)
    trip = watch(monkeypatch)
    assert gather.close_if_targets_met(db, survey) is True
    assert trip.snapshots == 1
    assert [name for name, in_snapshot in trip.reads if not in_snapshot] == ["storage.survey_states.close_on_targets"]
    assert survey_states.closed_override(db, "quiz") is True
    assert gather.close_if_targets_met(db, survey) is False  # closed already: nothing computed, nothing written
    assert gather.close_if_targets_met(db, dataclasses.replace(survey, close_when_targets_met=False)) is False
    db.close()
