"""Tests of the command-line commands."""

from __future__ import annotations

from surveys import storage


def test_surveys_check_passes_on_good_files(runner):
    result = runner.invoke(args=["surveys", "check"])
    assert result.exit_code == 0, result.output
    assert "ok    quiz.yaml: quiz v1" in result.output


def test_surveys_check_fails_and_names_the_problem(runner, surveys_dir):
    (surveys_dir / "broken.yaml").write_text(
        "id: broken\ntitle: B\nversion: 1\nquestions:\n  - name: q\n    type: essay\n    label: Q\n"
    )
    result = runner.invoke(args=["surveys", "check"])
    assert result.exit_code == 1
    assert "broken.yaml" in result.output and "question 'q'" in result.output and "'type'" in result.output
    assert "ok    quiz.yaml" in result.output  # the good file is still reported as loading


def test_shipped_examples_pass_the_check(runner):
    from app import ROOT

    result = runner.invoke(args=["surveys", "check", str(ROOT / "survey_files")])
    assert result.exit_code == 0, result.output
    assert "exam-integrity" in result.output and "workplace-wellbeing" in result.output


def test_init_db_is_idempotent(runner):
    result = runner.invoke(args=["init-db"])
    assert result.exit_code == 0 and "up to date" in result.output  # create_app migrated already


def test_codes_create_prints_usable_codes(runner, app):
    result = runner.invoke(args=["codes", "create", "quiz", "3"])
    assert result.exit_code == 0, result.output
    codes = result.output.split()
    assert len(codes) == 3 and len(set(codes)) == 3
    db = storage.connect(app.config["DATABASE"])
    assert all(storage.invitation_code_is_valid(db, "quiz", code) for code in codes)


def test_codes_create_rejects_a_bad_count(runner):
    result = runner.invoke(args=["codes", "create", "quiz", "0"])
    assert result.exit_code == 2 and "0" in result.output
