"""Notifications (storage/events.py, web/notify.py): events on the dashboard, and e-mail through a local SMTP
server that each test starts itself (aiosmtpd)."""

from __future__ import annotations

import asyncio
import logging
import threading

import pytest
from aiosmtpd.controller import Controller

from storage import events, queries, responses, roles, survey_states
from surveys.submission import noisy_response
from tests.helpers.drivers import AdminSession, Respondent
from tests.helpers.records import add_responses, many
from tests.helpers.sample_surveys import QUIZ_YAML, survey_in
from tests.helpers.servers import free_port
from tests.helpers.survey_people import signed_in_as
from web.db import open_database
from web.notify import notifier

pytestmark = pytest.mark.both_backends

OWNER_ADDRESS = "researcher@example.org"


class Inbox:
    """An aiosmtpd handler keeping each message received; ``gate`` (set by default) holds each until set."""

    def __init__(self):
        self.messages: list = []
        self.gate = threading.Event()
        self.gate.set()

    async def handle_DATA(self, server, session, envelope):
        await asyncio.get_running_loop().run_in_executor(None, self.gate.wait, 30)
        self.messages.append(envelope)
        return "250 Message accepted for delivery"


@pytest.fixture
def inbox():
    """A local SMTP server on a free loopback port, stopped at the end of the test."""
    handler = Inbox()
    controller = Controller(handler, hostname="127.0.0.1", port=free_port())
    controller.start()
    handler.port = controller.port
    yield handler
    handler.gate.set()
    controller.stop()


def mailing_app(make_app, port: int):
    return make_app(
        {
            "SECRET_KEY": "k",
            "RATELIMIT_SUBMISSIONS": "100000/600",
            "SMTP_HOST": "127.0.0.1",
            "SMTP_PORT": str(port),
            "SMTP_TLS": "none",
            "SMTP_SENDER": "survey@example.org",
        }
    )


def make_owner_with_address(app, name: str = "researcher", address: str = OWNER_ADDRESS) -> None:
    db = open_database(app)
    roles.set_role(db, "quiz", name, "owner")
    events.set_email(db, name, address)
    db.close()


def test_an_export_of_responses_is_mailed_to_the_owners_who_gave_an_address(make_app, admin_account, inbox):
    app = mailing_app(make_app, inbox.port)
    make_owner_with_address(app)
    signed_in_as(app, "analyst", "analyst")
    make_owner_with_address(app, "analyst", "analyst@example.org")  # now an owner too, with an address
    session = AdminSession(app.test_client(), app)
    session.login()
    download = session.client.get("/admin/surveys/quiz/responses.csv")
    assert download.status_code == 200
    download.close()
    notifier(app).wait()
    (message,) = inbox.messages
    assert sorted(message.rcpt_tos) == ["analyst@example.org", OWNER_ADDRESS]
    text = message.content.decode()
    assert "Subject: [quiz] The responses were exported" in text and "responses.csv by researcher" in text
    assert "From: survey@example.org" in text
    dashboard = session.client.get("/admin/").get_data(as_text=True)
    assert "The responses were exported" in dashboard
    notifier(app).wait()
    assert len(inbox.messages) == 1  # each event once


def test_without_smtp_nothing_is_sent_and_the_dashboard_still_lists_the_event(app, auth, inbox, db):
    make_owner_with_address(app)
    auth.login()
    auth.client.get("/admin/surveys/quiz/responses.csv").close()
    assert [e.kind for e in events.recent(db, ["quiz"])] == ["export"]
    assert "The responses were exported" in auth.client.get("/admin/").get_data(as_text=True)
    assert inbox.messages == []


def test_a_burst_and_a_survey_that_closed_itself_are_events_its_people_see(app, auth, db):
    survey = survey_in(app)
    answer = noisy_response(survey, {"cheated": "yes", "year": "first"}, "device")
    responses.store_response(db, answer, "key-1", "2026-11-22", in_burst=True, burst_usual_rate=1.0)
    responses.store_response(db, answer, "key-2", "2026-11-22", in_burst=True, burst_usual_rate=1.0)
    assert survey_states.close_on_targets(db, "quiz")
    shown = [(e.kind, e.day) for e in events.recent(db, ["quiz"])]
    assert shown == [("closed-by-targets", events.today()), ("burst", "2026-11-22")]  # the burst once, on its day
    viewer = signed_in_as(app, "viewer", "viewer")
    page = viewer.client.get("/admin/").get_data(as_text=True)
    assert "Integrity warning: a burst of responses" in page and "The survey closed itself" in page
    stranger = signed_in_as(app, "stranger")
    assert "Integrity warning" not in stranger.client.get("/admin/").get_data(as_text=True)


TARGET_QUIZ = QUIZ_YAML.replace(
    "    label: Have you ever cheated on an exam?\n",
    "    label: Have you ever cheated on an exam?\n    design: {t: 9/10, a: 1/20, b: 1/20}\n",
) + ("targets:\n  - {question: cheated, margin: 0.2}\n")


def test_a_met_target_is_noted_after_an_answer_off_the_request(app, db, surveys_dir):
    (surveys_dir / "quiz.yaml").write_text(TARGET_QUIZ)
    add_responses(app, many(150, 150))  # stored directly: no answer went through the form yet
    assert events.recent(db, ["quiz"]) == []
    response = Respondent(app.test_client()).submit({"cheated": "yes", "ai_use": "never", "year": "first"})
    assert response.status_code == 200
    notifier(app).wait()
    (event,) = events.recent(db, ["quiz"])
    assert (event.kind, event.detail) == ("target-met", "cheated: margin 0.2 reached")
    Respondent(app.test_client()).submit({"cheated": "no", "ai_use": "never", "year": "first"})
    notifier(app).wait()
    assert len(events.recent(db, ["quiz"])) == 1  # noted once


def test_a_submission_does_not_wait_for_the_mail_server(make_app, admin_account, inbox):
    app = mailing_app(make_app, inbox.port)
    make_owner_with_address(app)
    db = open_database(app)
    events.note(db, "quiz", "burst:2026-11-22", "burst", "a test burst")
    inbox.gate.clear()  # the mail server holds every message until the answer is thanked
    response = Respondent(app.test_client()).submit({"cheated": "yes", "ai_use": "never", "year": "first"})
    assert response.status_code == 200 and "Thank you" in response.get_data(as_text=True)
    assert inbox.messages == []
    inbox.gate.set()
    notifier(app).wait()
    (message,) = inbox.messages
    assert "Integrity warning" in message.content.decode()
    assert queries.response_count(db, "quiz") == 1
    db.close()


def test_a_failing_mail_server_is_logged_and_never_fails_a_submission(make_app, admin_account, caplog):
    app = mailing_app(make_app, free_port())  # nothing listens there
    make_owner_with_address(app)
    db = open_database(app)
    events.note(db, "quiz", "burst:2026-11-22", "burst", "a test burst")
    with caplog.at_level(logging.ERROR, logger="web.notify"):
        response = Respondent(app.test_client()).submit({"cheated": "yes", "ai_use": "never", "year": "first"})
        notifier(app).wait()
    assert response.status_code == 200 and queries.response_count(db, "quiz") == 1
    (record,) = [r for r in caplog.records if r.name == "web.notify"]
    assert "mailing a burst event of survey quiz failed" in record.getMessage()
    assert OWNER_ADDRESS not in record.getMessage()
    db.close()


@pytest.mark.parametrize("settings", [{"SMTP_TLS": "maybe"}, {"SMTP_PORT": "smtp"}])
def test_mail_settings_the_mailer_cannot_use_are_refused_at_start(make_app, settings):
    with pytest.raises(ValueError, match="SMTP_"):
        make_app({"SECRET_KEY": "k", **settings})
