"""Tests of the command-line commands."""

from __future__ import annotations

import time

import pytest

from storage import connection, invitation_codes, kept_counts, postgres, queries, responses, survey_states
from tests.helpers.sample_surveys import ALIAS_BOMB_YAML, DEEP_YAML
from web.db import open_database

pytestmark = pytest.mark.both_backends


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


def test_surveys_check_refuses_hostile_files_at_once_naming_each_limit(runner, surveys_dir):
    (surveys_dir / "deep.yaml").write_text(DEEP_YAML)
    (surveys_dir / "laughs.yaml").write_text(ALIAS_BOMB_YAML)
    started = time.monotonic()
    result = runner.invoke(args=["surveys", "check"])
    assert time.monotonic() - started < 5
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    errors = [line for line in result.output.splitlines() if line.startswith("error ")]
    assert len(errors) == 2, result.output
    assert "deep.yaml: nested more than 20 levels deep" in errors[0] and "MAX_YAML_DEPTH is 20" in errors[0]
    assert "laughs.yaml: more than 50,000 values" in errors[1] and "MAX_YAML_NODES is 50,000" in errors[1]
    assert "ok    quiz.yaml" in result.output and "Traceback" not in result.output


def test_shipped_examples_pass_the_check(runner):
    from app import ROOT

    result = runner.invoke(args=["surveys", "check", str(ROOT / "survey_files")])
    assert result.exit_code == 0, result.output
    assert "exam-integrity" in result.output and "workplace-wellbeing" in result.output
    assert "drug-use-crosswise" in result.output and "research-integrity" in result.output
    assert "exam-crosswise-extended v1, 1 question, epsilon 1.10" in result.output
    assert "drug-use-crosswise v1, 2 questions, epsilon 2.20" in result.output


def test_init_db_is_idempotent(runner):
    result = runner.invoke(args=["init-db"])
    assert result.exit_code == 0 and "up to date" in result.output  # create_app migrated already


def test_codes_create_prints_usable_codes(runner, db):
    result = runner.invoke(args=["codes", "create", "quiz", "3"])
    assert result.exit_code == 0, result.output
    codes = result.output.split()
    assert len(codes) == 3 and len(set(codes)) == 3
    assert all(invitation_codes.invitation_code_is_valid(db, "quiz", code) for code in codes)


def test_codes_create_rejects_a_bad_count(runner):
    result = runner.invoke(args=["codes", "create", "quiz", "0"])
    assert result.exit_code == 2 and "0" in result.output


def test_admin_create_with_password_on_stdin_then_list_and_reset(runner, db):
    from storage import accounts

    result = runner.invoke(args=["admin", "create", "ana", "--password-stdin"], input="a long enough password\n")
    assert result.exit_code == 0, result.output
    assert "ana" in runner.invoke(args=["admin", "list"]).output
    result = runner.invoke(args=["admin", "reset-password", "ana", "--password-stdin"], input="another long password\n")
    assert result.exit_code == 0, result.output
    assert accounts.sign_in(db, "ana", "another long password") is True


def test_admin_create_prompts_for_the_password(runner):
    result = runner.invoke(args=["admin", "create", "bob"], input="a long enough password\na long enough password\n")
    assert result.exit_code == 0, result.output
    assert "Created site administrator bob" in result.output


def test_admin_create_makes_a_site_administrator_and_researcher_an_ordinary_account(runner, db):
    from storage import roles

    for args in (["root"], ["ana", "--researcher"]):
        result = runner.invoke(args=["admin", "create", *args, "--password-stdin"], input="a long enough password\n")
        assert result.exit_code == 0, result.output
    assert "Created researcher ana" in result.output
    assert roles.is_site_admin(db, "root") and not roles.is_site_admin(db, "ana")


def test_admin_create_refuses_a_short_password(runner):
    result = runner.invoke(args=["admin", "create", "ana", "--password-stdin"], input="short\n")
    assert result.exit_code == 1 and "at least 12 characters" in result.output


def test_close_and_open_by_cli(runner, app, db):
    assert runner.invoke(args=["surveys", "close", "quiz"]).exit_code == 0
    assert survey_states.closed_override(db, "quiz") is True
    assert app.test_client().get("/s/quiz").status_code == 410
    assert runner.invoke(args=["surveys", "open", "quiz"]).exit_code == 0
    assert app.test_client().get("/s/quiz").status_code == 200
    assert runner.invoke(args=["surveys", "close", "nope"]).exit_code == 2


def _seed(app, n=10):
    from tests.helpers.records import add_responses, many

    add_responses(app, many(n // 2, n - n // 2))


def test_export_estimates_json_and_csv(runner, app, tmp_path):
    import csv
    import json

    _seed(app)
    data = json.loads(runner.invoke(args=["export", "estimates", "quiz", "--format", "json"]).output)
    assert data["survey_id"] == "quiz" and data["response_count"] == 10
    assert any(row["question"] == "cheated" for row in data["rows"])
    out = tmp_path / "e.csv"
    result = runner.invoke(args=["export", "estimates", "quiz", "--format", "csv", "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert rows[0]["question"] == "cheated" and rows[0]["n"] == "10"


def test_export_responses_and_codebook(runner, app, tmp_path):
    import csv
    import json

    _seed(app)
    out = tmp_path / "r.csv"
    assert runner.invoke(args=["export", "responses", "quiz", "-o", str(out)]).exit_code == 0
    assert len(list(csv.DictReader(out.read_text().splitlines()))) == 10
    codebook = json.loads(runner.invoke(args=["export", "codebook", "quiz"]).output)
    assert "cheated" in json.dumps(codebook)


@pytest.mark.sqlite_only  # PostgreSQL: tests/test_postgres.py, pg_dump
def test_backup_writes_a_checked_rebuilt_copy(runner, app, tmp_path):
    _seed(app)
    copy = tmp_path / "copy.sqlite3"
    result = runner.invoke(args=["backup", str(copy)])
    assert result.exit_code == 0, result.output
    assert "Backed up 10 responses" in result.output
    assert copy.read_bytes()[18:20] == b"\x01\x01"  # rollback journal: the file alone restores
    assert not copy.with_name("copy.sqlite3-wal").exists()


@pytest.mark.sqlite_only  # PostgreSQL: tests/test_postgres_servers.py, CLUSTER
def test_compact_rebuilds_and_empties_the_log(runner, app):
    from pathlib import Path

    db = connection.connect(app.config["DATABASE"])  # held open, so the log is not checkpointed away at each close
    _seed(app)
    wal = Path(app.config["DATABASE"] + "-wal")
    assert wal.stat().st_size > 0
    result = runner.invoke(args=["compact"])
    assert result.exit_code == 0, result.output
    assert "10 responses, write-ahead log emptied" in result.output
    assert wal.stat().st_size == 0
    assert queries.response_count(db, "quiz") == 10
    db.close()


def test_files_the_app_creates_are_private(tmp_path, surveys_dir, umask_022, monkeypatch):
    """Answers database, rate-limit database, their -wal and -shm, the secret key and a backup: all 0600."""
    import os

    import app as app_module
    from tests.helpers.drivers import Respondent

    monkeypatch.setattr(app_module, "ROOT", tmp_path)  # the instance folder (secret_key) under tmp_path
    data = tmp_path / "data"
    data.mkdir()
    application = app_module.create_app(
        {
            "TESTING": True,
            "DATABASE": str(data / "answers.sqlite3"),
            "SURVEYS_DIR": str(surveys_dir),
        }
    )
    keep_open = connection.connect(data / "answers.sqlite3")  # so the -wal and -shm files stay to be seen
    respondent = Respondent(application.test_client())
    assert respondent.submit({"cheated": "yes", "ai_use": "never", "year": "first"}).status_code == 200
    from storage import ratelimit

    limits = ratelimit.connect(data / "answers-ratelimit.sqlite3")
    result = application.test_cli_runner().invoke(args=["backup", str(data / "backup.sqlite3")])
    assert result.exit_code == 0, result.output
    files = [
        *(
            data / f"{stem}.sqlite3{suffix}"
            for stem in ("answers", "answers-ratelimit")
            for suffix in ("", "-wal", "-shm")
        ),
        data / "backup.sqlite3",
        tmp_path / "instance" / "secret_key",
    ]
    modes = {str(path.relative_to(tmp_path)): os.stat(path).st_mode & 0o777 for path in files}
    assert modes == dict.fromkeys(modes, 0o600)
    keep_open.close()
    limits.close()


def test_export_estimates_refuses_a_level_whose_quantile_is_infinite(runner, app):
    _seed(app)
    for level in ["0.9999999999999999", "nan", "inf", "abc"]:
        result = runner.invoke(args=["export", "estimates", "quiz", "--level", level])
        assert result.exit_code == 2, (level, result.output)
        assert f"got “{level}”" in result.output and "Traceback" not in result.output
    assert runner.invoke(args=["export", "estimates", "quiz", "--level", "0.999999"]).exit_code == 0


def test_surveys_links_prints_the_links_and_the_account_command(runner):
    result = runner.invoke(args=["surveys", "links", "--base", "http://127.0.0.1:8000/"])
    assert result.exit_code == 0, result.output
    assert "http://127.0.0.1:8000/s/quiz  Test quiz" in result.output
    assert "Researchers sign in at http://127.0.0.1:8000/admin/login" in result.output
    assert "create one with:\n  .venv/bin/flask --app app admin create NAME" in result.output


def test_surveys_links_leaves_out_the_account_command_once_there_is_one(runner, admin_account):
    assert "admin create" not in runner.invoke(args=["surveys", "links"]).output


def test_make_run_prints_the_links_before_serving():
    from app import ROOT

    recipe = (ROOT / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert recipe.index("surveys links --base http://$(HOST):$(PORT)") < recipe.index("flask --app app run")


def test_export_model_writes_the_fit_the_page_shows(app, runner):
    import json as json_module

    from tests.helpers.records import add_responses, model_answers

    add_responses(app, model_answers())
    result = runner.invoke(
        args=["export", "model", "quiz", "--outcome", "cheated", "--predictor", "year", "--reference", "year:second"]
    )
    assert result.exit_code == 0, result.output
    body = json_module.loads(result.output)
    assert body["n"] == 400 and body["message"] is None
    assert [row["name"] for row in body["rows"] if row["kind"] == "lr_test"] == ["Year of study", "model"]
    refused = runner.invoke(args=["export", "model", "quiz", "--outcome", "year", "--predictor", "year"])
    assert refused.exit_code == 2 and "randomized yes/no question" in refused.output


def test_surveys_recount_patterns_makes_the_kept_counts_equal_a_recount(app, runner):
    from tests.helpers.records import add_responses, model_answers

    add_responses(app, model_answers(90))
    db = open_database(app)
    kept = kept_counts.pattern_tallies(db, "quiz", "cheated")
    db.execute("UPDATE pattern_tallies SET count = count * 3")
    db.close()
    result = runner.invoke(args=["surveys", "recount-patterns", "quiz"])
    assert result.exit_code == 0, result.output
    assert "Recounted the pattern counts of quiz" in result.output
    db = open_database(app)
    assert kept_counts.pattern_tallies(db, "quiz", "cheated") == kept
    assert sum(sum(a.values()) for by in kept.values() for a in by.values()) == 90
    db.close()
    refused = runner.invoke(args=["surveys", "recount-patterns", "nope"])
    assert refused.exit_code == 2 and "no responses are stored" in refused.output


def test_surveys_import_keeps_files_and_folders_in_the_database_and_refuses_a_locked_change(app, runner, tmp_path):
    from storage import surveys as stored_surveys
    from tests.helpers.sample_surveys import QUIZ_YAML

    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "other.yaml").write_text(QUIZ_YAML.replace("id: quiz", "id: other"))
    result = runner.invoke(args=["surveys", "import", str(folder)])
    assert result.exit_code == 0, result.output
    assert "imported other.yaml: other v1 (new survey)" in result.output
    assert "nothing imported" in runner.invoke(args=["surveys", "import", str(folder)]).output
    db = open_database(app)
    try:
        assert stored_surveys.survey_record(db, "other").managed_by == "other.yaml"
        responses.store_submission(db, _quiz_response(db, "other"), "key-1", "2026-11-22")
    finally:
        db.close()
    (folder / "other.yaml").write_text(
        QUIZ_YAML.replace("id: quiz", "id: other").replace("t: 2/3, a: 1/6, b: 1/6", "t: 3/4, a: 1/8, b: 1/8")
    )
    refused = runner.invoke(args=["surveys", "import", str(folder / "other.yaml")])
    assert refused.exit_code == 1
    assert "version 1 has answers: raise `version:` to change its questions or designs" in refused.output
    wrong = tmp_path / "notes.txt"
    wrong.write_text("x")
    assert runner.invoke(args=["surveys", "import", str(wrong)]).exit_code == 1


def _quiz_response(db, survey_id: str):
    from storage import surveys as stored_surveys
    from surveys.submission import noisy_response

    (definition,) = stored_surveys.current_definitions(db, [survey_id])
    return noisy_response(stored_surveys.definition_survey(definition), {"cheated": "yes"}, "server")


def test_codes_create_is_written_in_the_audit_log_without_the_codes(runner, db):
    from storage import audit

    result = runner.invoke(args=["codes", "create", "quiz", "2"])
    (entry,) = [e for e in audit.entries(db) if e.action == "codes-created"]
    assert (entry.actor, entry.survey_id, entry.detail) == (None, "quiz", "2 codes, on the command line")
    assert not any(code in entry.detail for code in result.output.split())


def test_admin_email_sets_and_removes_the_address_for_notifications(runner, db, admin_account):
    from storage import events, roles

    roles.set_role(db, "quiz", admin_account, "owner")
    assert runner.invoke(args=["admin", "email", admin_account, "r@example.org"]).exit_code == 0
    assert events.owner_addresses(db, "quiz") == ["r@example.org"]
    refused = runner.invoke(args=["admin", "email", admin_account, "not an address"])
    assert refused.exit_code == 1 and "not an e-mail address" in refused.output
    assert runner.invoke(args=["admin", "email", "nobody", "n@example.org"]).exit_code == 1
    assert runner.invoke(args=["admin", "email", admin_account]).exit_code == 0
    assert events.owner_addresses(db, "quiz") == []


@pytest.mark.sqlite_only(reason="the database URL is one no server answers, whatever the backend")
@pytest.mark.parametrize("args", [["init-db"], ["admin", "create", "someone"], ["surveys", "check"], ["backup", "x"]])
def test_a_command_without_its_database_says_so_in_one_line(make_app, tmp_path, args, monkeypatch):
    monkeypatch.setattr(postgres, "WAIT_SECONDS", 0.5)  # the pool's wait for a connection that never comes
    app = make_app({"SECRET_KEY": "k", "DATABASE_URL": f"postgresql://rr@/postgres?host={tmp_path}&port=5432"})
    result = app.test_cli_runner().invoke(args=args)
    if args == ["surveys", "check"]:  # reads the survey files only: no database needed
        assert result.exit_code == 0, result.output
        return
    assert result.exit_code == 1, result.output
    assert "Error: the database cannot be used: " in result.output and "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)  # click's error exit, not an exception of ours
