"""Tests of storage/surveys.py: surveys kept in the database, every version kept and locked once answered."""

from __future__ import annotations

import pytest

from storage import (
    connection,
    day_exclusions,
    events,
    invitation_codes,
    queries,
    releases,
    responses,
    roles,
    survey_states,
    tokens,
)
from storage import surveys as store
from surveys.results import compute_results
from surveys.schema import SurveyFileError
from surveys.submission import noisy_response
from surveys.versions import describe_change
from tests.helpers.sample_surveys import QUIZ_YAML

pytestmark = pytest.mark.both_backends

#: The quiz with ``lied`` under another design (t = 3/4): its questions differ.
REDESIGNED = QUIZ_YAML.replace("design: {t: 2/3, a: 1/6, b: 1/6}", "design: {t: 3/4, a: 1/8, b: 1/8}")
#: The quiz with another title only.
REWORDED = QUIZ_YAML.replace("title: Test quiz", "title: Test quiz, reworded")
OTHER_YAML = QUIZ_YAML.replace("id: quiz", "id: other")
#: Another survey whose questions differ too (each survey has design records of its own since m016).
OTHER_DESIGN_YAML = OTHER_YAML.replace("choices: [first, second, third, fourth]", "choices: [first, later]")


def save(db, text=QUIZ_YAML, managed_by=None, name="quiz.yaml"):
    return store.save_version(db, text, source_name=name, managed_by=managed_by, actor="ann")


def answer(db, survey, key: str, cheated: str = "yes") -> None:
    response = noisy_response(survey, {"cheated": cheated, "lied": "no", "year": "first"}, "server")
    assert responses.store_submission(db, response, key, "2026-11-22", arrivals=1) == responses.Outcome.STORED


def table_names(db) -> list[str]:
    return [table for table in db.table_names() if not table.startswith("_")]


def columns(db, table: str) -> list[str]:
    if connection.is_postgres(db):
        return db.column_names(table)
    return [column.name for column in db[table].columns]


def rows_naming(db, survey_id: str) -> dict[str, int]:
    """Per table of the schema, the rows whose survey column names ``survey_id``."""
    found = {}
    for table in table_names(db):
        column = "id" if table == "surveys" else "survey_id"
        if column in columns(db, table):
            found[table] = db.execute(f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", [survey_id]).fetchone()[0]
    return found


def test_a_survey_saved_in_the_app_is_a_draft_and_a_file_is_live(backend_db):
    made = save(backend_db)
    assert made.created and made.version == 1 and made.survey.id == "quiz"
    assert store.survey_record(backend_db, "quiz").stage == "draft"
    assert store.survey_record(backend_db, "quiz").opened_at is None
    save(backend_db, OTHER_YAML, managed_by="other.yaml", name="other.yaml")
    other = store.survey_record(backend_db, "other")
    assert other.stage == "live" and other.managed_by == "other.yaml" and other.opened_at is not None


def test_a_text_the_validator_refuses_changes_nothing(backend_db):
    save(backend_db)
    before = store.latest_generation(backend_db)
    with pytest.raises(SurveyFileError) as refused:
        save(backend_db, QUIZ_YAML.replace("t: 2/3", "t: 7/3"))
    assert any(problem.question == "lied" for problem in refused.value.problems)
    assert [v.source for v in store.versions(backend_db, "quiz")] == [QUIZ_YAML]
    assert store.latest_generation(backend_db) == before


def test_without_answers_a_change_replaces_the_version_and_every_save_is_logged(backend_db):
    save(backend_db)
    start = store.latest_generation(backend_db)
    changed = save(backend_db, REDESIGNED)
    assert (changed.version, changed.new_version, changed.change.locked) == (1, False, False)
    assert [v.source for v in store.versions(backend_db, "quiz")] == [REDESIGNED]
    assert save(backend_db, REDESIGNED).unchanged
    assert store.changes_since(backend_db, start) == (start + 1, ("quiz",))


def test_a_change_of_design_after_answers_makes_a_new_version_and_old_answers_keep_their_design(backend_db):
    first = save(backend_db).survey
    for i in range(30):
        answer(backend_db, first, f"key-{i:04d}")
    assert store.has_answers(backend_db, "quiz", 1) and not store.has_answers(backend_db, "quiz", 2)
    saved = save(backend_db, REDESIGNED)
    assert (saved.version, saved.new_version, saved.change.locked) == (2, True, True)
    assert saved.change.redesigned == ("lied",)
    assert saved.survey.version == 2 and store.survey_record(backend_db, "quiz").current_version == 2
    assert [v.source for v in store.versions(backend_db, "quiz")] == [QUIZ_YAML, REDESIGNED]
    (definition,) = store.current_definitions(backend_db)
    assert store.definition_survey(definition) == saved.survey
    answer(backend_db, saved.survey, "key-new")
    tallies = queries.tallies(backend_db, "quiz")
    assert len(tallies["lied"]) == 2  # the answers of each version, kept under the design they were drawn with
    results = compute_results(saved.survey, tallies, queries.response_count(backend_db, "quiz"))
    result = {r.question.name: r for r in results.questions}["lied"]
    assert result.n == 31 and result.pooled


def test_a_change_of_wording_after_answers_stays_in_the_version(backend_db):
    first = save(backend_db).survey
    answer(backend_db, first, "key-1")
    saved = save(backend_db, REWORDED)
    assert (saved.version, saved.change.locked, saved.change.questions_changed) == (1, False, False)
    assert saved.survey.title == "Test quiz, reworded"


def test_a_survey_file_cannot_change_the_design_of_a_version_with_answers(backend_db):
    first = save(backend_db, managed_by="quiz.yaml").survey
    answer(backend_db, first, "key-1")
    with pytest.raises(SurveyFileError) as refused:
        save(backend_db, REDESIGNED, managed_by="quiz.yaml")
    (problem,) = refused.value.problems
    assert problem.field == "version"
    assert problem.message == "version 1 has answers: raise `version:` to change its questions or designs"
    assert [v.source for v in store.versions(backend_db, "quiz")] == [QUIZ_YAML]
    raised = save(backend_db, REDESIGNED.replace("version: 1", "version: 2"), managed_by="quiz.yaml")
    assert raised.version == 2 and raised.new_version
    assert [v.version for v in store.versions(backend_db, "quiz")] == [1, 2]


def test_a_file_cannot_take_an_id_the_app_or_another_file_manages_and_the_app_cannot_edit_a_file(backend_db):
    save(backend_db)
    with pytest.raises(SurveyFileError, match="already used by a survey made in the app"):
        save(backend_db, managed_by="quiz.yaml")
    save(backend_db, OTHER_YAML, managed_by="other.yaml", name="other.yaml")
    with pytest.raises(SurveyFileError, match="already used by the survey file other.yaml"):
        save(backend_db, OTHER_YAML, managed_by="copy.yaml", name="copy.yaml")
    with pytest.raises(ValueError, match="managed by its survey file other.yaml"):
        save(backend_db, OTHER_YAML)


def test_stage_and_listing(backend_db):
    save(backend_db)
    assert store.set_listed(backend_db, "quiz", False).listed is False
    opened = store.set_stage(backend_db, "quiz", "live", now=100.0)
    assert (opened.stage, opened.opened_at) == ("live", 100.0)
    assert store.set_stage(backend_db, "quiz", "archived").opened_at == 100.0
    with pytest.raises(ValueError, match="'gone'"):
        store.set_stage(backend_db, "quiz", "gone")
    with pytest.raises(ValueError, match="no survey called 'nope'"):
        store.set_listed(backend_db, "nope", True)


def test_clear_answers_only_before_opening(backend_db):
    survey = save(backend_db).survey
    answer(backend_db, survey, "key-1")
    store.clear_answers(backend_db, "quiz")
    assert {table: n for table, n in rows_naming(backend_db, "quiz").items() if n} == {
        "surveys": 1,
        "survey_versions": 1,
        "catalog_changes": 1,
    }
    store.set_stage(backend_db, "quiz", "live")
    answer(backend_db, survey, "key-2")
    with pytest.raises(ValueError, match="has been opened"):
        store.clear_answers(backend_db, "quiz")
    assert queries.response_count(backend_db, "quiz") == 1


def test_delete_removes_every_row_of_the_survey_in_every_table_and_nothing_of_another(backend_db):
    backend_db.execute("INSERT INTO admins (name, password_hash) VALUES ('ann', 'x')")
    for text, name in ((QUIZ_YAML, "quiz"), (OTHER_DESIGN_YAML, "other")):
        survey = save(backend_db, text).survey
        for i in range(3):
            answer(backend_db, survey, f"{name}-{i}")
        roles.set_role(backend_db, name, "ann", "owner")
        invitation_codes.add_invitation_codes(backend_db, name, 2)
        survey_states.set_closed(backend_db, name, False)
        day_exclusions.exclude_day(backend_db, name, "2026-11-22")
        store.set_stage(backend_db, name, "live")
        backend_db.execute("INSERT INTO bursts (survey_id, day, peak) VALUES (?, '2026-11-22', 500)", [name])
        backend_db.execute(
            "INSERT INTO pair_tallies (survey_id, question_a, question_b, design_a, design_b, answer_a, answer_b,"
            " count) VALUES (?, 'p', 'q', 'k', 'k', 'yes', 'no', 1)",
            [name],
        )
        backend_db.execute(
            "INSERT INTO burst_tallies (survey_id, day, question, design, answer, count)"
            " VALUES (?, 'd', 'q', 'k', 'yes', 1)",
            [name],
        )
        events.add(backend_db, name, "export:1", "export", "responses.csv by ann")
        tokens.create(backend_db, name, "a reader", "ann")
        releases.add_release(backend_db, name, "{}", f"release-of-{name}", 0.5, 0.0, 0.0, 3)
    save(backend_db, REDESIGNED)
    other_before = rows_naming(backend_db, "other")
    quiz_before = rows_naming(backend_db, "quiz")
    holding = {table for table, n in quiz_before.items() if n}
    assert holding >= set(store.ANSWER_TABLES) | {table for table, _ in store.DEFINITION_TABLES}  # all it deletes
    store.delete_survey(backend_db, "quiz")
    left = {table: n for table, n in rows_naming(backend_db, "quiz").items() if n}
    assert set(left) == set(store.KEPT_AFTER_DELETE) - {"audit_log"}
    assert rows_naming(backend_db, "other") == other_before
    assert store.survey_record(backend_db, "quiz") is None
    with pytest.raises(ValueError, match="no survey called 'quiz'"):
        store.delete_survey(backend_db, "quiz")


def test_two_surveys_asking_the_same_questions_keep_their_own_design_records_through_a_delete(backend_db):
    quiz, other = save(backend_db).survey, save(backend_db, OTHER_YAML).survey
    answer(backend_db, quiz, "quiz-1")
    answer(backend_db, other, "other-1")
    assert rows_naming(backend_db, "other")["designs"] == rows_naming(backend_db, "quiz")["designs"] == 1
    store.delete_survey(backend_db, "quiz")
    assert rows_naming(backend_db, "quiz")["designs"] == 0
    assert [version for _, version, _ in queries.design_records(backend_db, "other")] == [1]


def test_every_table_naming_a_survey_is_emptied_by_delete_or_kept_for_a_reason(backend_db):
    naming = {table for table in table_names(backend_db) if "survey_id" in columns(backend_db, table)} | {"surveys"}
    deleted = set(store.ANSWER_TABLES) | {table for table, _ in store.DEFINITION_TABLES} | {"survey_roles"}
    assert naming == deleted | set(store.KEPT_AFTER_DELETE)


def test_describe_change_says_what_a_new_version_means_for_the_estimates(backend_db):
    old = save(backend_db).survey
    new = store.with_version(save(backend_db, REDESIGNED.replace("id: quiz", "id: quiz")).survey, 1)
    change = describe_change(old, new, old_has_answers=True)
    assert change.locked and change.new_version == 2
    text = " ".join(change.sentences)
    assert "saving makes version 2" in text and "pooled" in text and "Epsilon per respondent" in text
    assert not describe_change(old, new, old_has_answers=False).locked
    assert describe_change(old, old, old_has_answers=True).sentences[0].startswith("The questions and designs are")


def test_create_only_refuses_an_id_already_stored_inside_the_save(backend_db):
    first = store.save_version(
        backend_db, QUIZ_YAML, source_name="quiz.yaml", managed_by=None, actor="ann", create_only=True
    )
    assert first.created
    before = store.latest_generation(backend_db)
    with pytest.raises(SurveyFileError, match="there is already a survey called 'quiz'"):
        store.save_version(
            backend_db, REWORDED, source_name="quiz.yaml", managed_by=None, actor="bob", create_only=True, owner="bob"
        )
    assert [version.source for version in store.versions(backend_db, "quiz")] == [QUIZ_YAML]
    assert store.latest_generation(backend_db) == before and roles.people_of(backend_db, "quiz") == []


def test_a_new_survey_its_owner_and_its_audit_entry_are_one_commit(backend_db, monkeypatch):
    from storage import accounts, audit

    accounts.create_admin(backend_db, "ann", "a long enough password")
    note = audit.Note("ann", "survey-created", "quiz")
    store.save_version(backend_db, QUIZ_YAML, source_name="q", managed_by=None, actor="ann", owner="ann", note=note)
    assert roles.people_of(backend_db, "quiz") == [("ann", "owner")]
    assert [entry.action for entry in audit.entries(backend_db)] == ["survey-created"]


def failing_audit(monkeypatch):
    """Make the audit log's next write fail, after the change it records was written."""
    import types

    from storage import audit

    def fail(_size):
        raise RuntimeError("injected failure")

    monkeypatch.setattr(audit, "secrets", types.SimpleNamespace(token_hex=fail))


@pytest.mark.parametrize(
    ("change", "action"),
    [
        (lambda db, note: store.delete_survey(db, "quiz", note=note), "survey-deleted"),
        (lambda db, note: store.set_stage(db, "quiz", "archived", closed=True, note=note), "survey-state"),
        (lambda db, note: store.open_survey(db, "quiz", note=note), "survey-state"),
        (lambda db, note: store.set_listed(db, "quiz", False, note=note), "survey-state"),
        (lambda db, note: store.clear_answers(db, "quiz", note=note), "test-answers-cleared"),
        (lambda db, note: survey_states.set_closed(db, "quiz", True, note=note), "survey-state"),
        (lambda db, note: roles.set_role(db, "quiz", "ann", "viewer", note=note), "role-changed"),
        (lambda db, note: roles.remove_role(db, "quiz", "ann", note=note), "role-changed"),
    ],
)
def test_a_failure_after_the_change_rolls_back_the_change_and_its_audit_entry(backend_db, monkeypatch, change, action):
    from storage import accounts, audit

    accounts.create_admin(backend_db, "ann", "a long enough password")
    save(backend_db)
    roles.set_role(backend_db, "quiz", "ann", "analyst")
    before = (
        rows_naming(backend_db, "quiz"),
        store.survey_record(backend_db, "quiz"),
        store.latest_generation(backend_db),
    )
    failing_audit(monkeypatch)
    with pytest.raises(RuntimeError, match="injected failure"):
        change(backend_db, audit.Note("ann", action, "quiz"))
    after = (
        rows_naming(backend_db, "quiz"),
        store.survey_record(backend_db, "quiz"),
        store.latest_generation(backend_db),
    )
    assert after == before and roles.role_of(backend_db, "quiz", "ann") == "analyst"
    assert audit.entries(backend_db) == []
    monkeypatch.undo()
    change(backend_db, audit.Note("ann", action, "quiz"))
    assert [entry.action for entry in audit.entries(backend_db)] == [action]
