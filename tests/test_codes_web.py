"""Invitation codes in the browser (web/codes.py): made by an owner, downloaded once as CSV, counted."""

from __future__ import annotations

import csv
import io

import pytest

from storage import audit, invitation_codes, responses
from surveys.submission import noisy_response
from tests.helpers.drivers import csrf_token_in
from tests.helpers.records import dump
from tests.helpers.sample_surveys import QUIZ_YAML, survey_in
from tests.helpers.survey_people import signed_in_as
from web.codes import MAX_CODES

pytestmark = pytest.mark.both_backends

PAGE = "/admin/surveys/quiz/codes"


@pytest.fixture
def invitation_only(surveys_dir):
    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML.replace("version: 1\n", "version: 1\ninvitation_only: true\n"))


def make_codes(session, count) -> object:
    token = csrf_token_in(session.client.get(PAGE).get_data(as_text=True))
    return session.client.post(PAGE, data={"csrf_token": token, "count": count})


def test_an_owner_makes_codes_downloads_them_once_and_sees_how_many_were_used(app, auth, db, invitation_only):
    auth.login()
    page = auth.client.get(PAGE).get_data(as_text=True)
    assert "<strong>0</strong> codes made" in page and "only once" in page
    made = make_codes(auth, "5")
    assert made.status_code == 200 and made.headers["Content-Disposition"] == 'attachment; filename="quiz-codes.csv"'
    rows = list(csv.DictReader(io.StringIO(made.get_data(as_text=True))))
    codes = [row["code"] for row in rows]
    assert len(set(codes)) == 5 and all(row["link"].endswith(f"/s/quiz?code={row['code']}") for row in rows)
    stored = repr(dump(app))
    assert not any(code in stored for code in codes)  # hashes only
    assert all(invitation_codes.invitation_code_is_valid(db, "quiz", code) for code in codes)
    answer = noisy_response(survey_in(app), {"cheated": "yes", "year": "first"}, "device")
    responses.store_response(db, answer, "key-1", "2026-11-22", invitation_code=codes[0])
    page = auth.client.get(PAGE).get_data(as_text=True)
    assert "<strong>5</strong> codes made, <strong>1</strong> used, 4 still unused" in page
    assert not any(code in page for code in codes)  # never shown again
    (entry,) = [e for e in audit.entries(db) if e.action == "codes-created"]
    assert (entry.actor, entry.survey_id, entry.detail) == ("researcher", "quiz", "5 codes")


@pytest.mark.parametrize("count", ["0", str(MAX_CODES + 1), "ten", "", "-3", "2.5"])
def test_a_number_of_codes_out_of_bounds_is_refused_and_nothing_is_made(app, auth, db, invitation_only, count):
    auth.login()
    refused = make_codes(auth, count)
    assert refused.status_code == 400
    assert f"whole number from 1 to {MAX_CODES:,}" in refused.get_data(as_text=True)
    assert invitation_codes.invitation_code_counts(db, "quiz") == (0, 0)


def test_a_survey_without_invitation_codes_makes_none(app, auth, db):
    auth.login()
    assert "takes no invitation codes" in auth.client.get(PAGE).get_data(as_text=True)
    refused = make_codes(auth, "3")
    assert refused.status_code == 400 and "invitation_only" in refused.get_data(as_text=True)
    assert invitation_codes.invitation_code_counts(db, "quiz") == (0, 0)


@pytest.mark.parametrize("role", ["viewer", "analyst"])
def test_only_an_owner_makes_codes(app, auth, db, invitation_only, role):
    other = signed_in_as(app, "someone", role)
    assert other.client.get(PAGE).status_code == 404
    token = csrf_token_in(other.client.get("/admin/").get_data(as_text=True))
    assert other.client.post(PAGE, data={"csrf_token": token, "count": "3"}).status_code == 404
    assert invitation_codes.invitation_code_counts(db, "quiz") == (0, 0)
    owner = signed_in_as(app, "owner", "owner")
    assert make_codes(owner, "3").status_code == 200
    assert invitation_codes.invitation_code_counts(db, "quiz") == (3, 0)


def test_making_codes_without_a_csrf_token_makes_none(app, auth, db, invitation_only):
    auth.login()
    for data in ({"count": "3"}, {"count": "3", "csrf_token": "junk"}):
        assert auth.client.post(PAGE, data=data).status_code == 400
    assert invitation_codes.invitation_code_counts(db, "quiz") == (0, 0)


def drawn(monkeypatch, *first):
    """Make the code generator's first draws ``first`` (a code starting with a formula character among them),
    then random ones."""
    import secrets
    import types

    queue = list(first)
    fake = types.SimpleNamespace(token_urlsafe=lambda n: queue.pop(0) if queue else secrets.token_urlsafe(n))
    monkeypatch.setattr(invitation_codes, "secrets", fake)


def test_no_code_starts_with_a_formula_character_and_each_is_as_typed(app, auth, db, invitation_only, monkeypatch):
    drawn(monkeypatch, "-1+2abcdefgh", "=cmd-abcdefg", "plain-code_1")
    auth.login()
    made = make_codes(auth, "2")
    text = made.get_data(as_text=True)
    rows = list(csv.DictReader(io.StringIO(text)))
    codes = [row["code"] for row in rows]
    assert codes[0] == "plain-code_1" and len(codes) == 2
    assert not any(cell.startswith(("=", "+", "-", "@", "'")) for row in rows for cell in row.values())
    assert all(
        invitation_codes.invitation_code_is_valid(db, "quiz", code) for code in codes
    )  # the hash of what is typed
    assert not invitation_codes.invitation_code_is_valid(db, "quiz", "-1+2abcdefgh")


def test_codes_create_prints_no_code_starting_with_a_formula_character(runner, db, monkeypatch):
    drawn(monkeypatch, "-1+2abcdefgh", "plain-code_1")
    codes = runner.invoke(args=["codes", "create", "quiz", "2"]).output.split()
    assert codes[0] == "plain-code_1" and not any(code.startswith("-") for code in codes)
    assert all(invitation_codes.invitation_code_is_valid(db, "quiz", code) for code in codes)
