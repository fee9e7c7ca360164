"""Notifications: the events of a survey (:mod:`storage.events`) checked and e-mailed off the request path.

A stored answer, an export or anything else that may have made an event puts
a job on this process's queue (:func:`after_answer`, :func:`after_event`);
one daemon thread works through it with its own database connection:

* after an answer to a survey with targets, it checks which targets are met
  (at most once a minute per survey and process) and notes each once;
* when ``SMTP_HOST`` is set, it sends each event not mailed yet to the
  survey's owners that gave an e-mail address, one message per event.

The respondent's request only puts a job on the queue: a slow or failing mail
server never slows or fails a submission; errors are logged (with the survey's
id, never an answer or an address of a respondent) and not raised.

Mail goes through the standard library's :mod:`smtplib` and
:mod:`email.message`: a message is sent from this thread, outside any request,
so a Flask extension's app-bound mailer would add nothing but a dependency.
"""

from __future__ import annotations

import logging
import os
import queue
import smtplib
import ssl
import threading
import time
from email.message import EmailMessage

from flask import Flask

from storage import events
from web import gather
from web.catalog import get_catalog
from web.db import open_database

logger = logging.getLogger(__name__)

#: Seconds between two checks of one survey's targets by one process.
TARGET_CHECK_SECONDS = 60
#: The ways ``SMTP_TLS`` may be set.
TLS_MODES = ("starttls", "ssl", "none")
#: Seconds a mail server may take to answer.
SMTP_TIMEOUT = 10


def check_settings(app: Flask) -> None:
    """Refuse an ``SMTP_TLS`` or ``SMTP_PORT`` the mailer cannot use (at start, not at the first event)."""
    if app.config["SMTP_TLS"] not in TLS_MODES:
        raise ValueError(f"SMTP_TLS must be one of {', '.join(TLS_MODES)}, not {app.config['SMTP_TLS']!r}")
    try:
        app.config["SMTP_PORT"] = int(app.config["SMTP_PORT"])
    except (TypeError, ValueError):
        raise ValueError(f"SMTP_PORT must be a port number, not {app.config['SMTP_PORT']!r}") from None


def mail_configured(app: Flask) -> bool:
    return bool(app.config.get("SMTP_HOST"))


class Notifier:
    """This process's queue of jobs and the thread that does them (started on the first job, again after a fork)."""

    def __init__(self, app: Flask):
        self.app = app
        self.jobs: queue.Queue = queue.Queue()
        self.thread: threading.Thread | None = None
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.checked: dict[str, float] = {}
        self.db = None

    def put(self, job: tuple) -> None:
        with self.lock:
            if self.pid != os.getpid():  # a forked worker: the parent's thread and connection are not its own
                self.jobs, self.thread, self.pid, self.db = queue.Queue(), None, os.getpid(), None
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="rr-notify", daemon=True)
                self.thread.start()
        self.jobs.put(job)

    def wait(self) -> None:
        """Until every job put so far is done (tests)."""
        self.jobs.join()

    def _run(self) -> None:
        jobs = self.jobs
        while True:
            job = jobs.get()
            try:
                with self.app.app_context():
                    self._do(job)
            except Exception:  # noqa: BLE001 - a notification never takes the app down
                logger.exception("notifications: %s failed", job[0])
            finally:
                if jobs.empty():
                    self._close()
                jobs.task_done()

    def _close(self) -> None:
        """Close the thread's connection when it has nothing more to do (kept while jobs wait)."""
        if self.db is not None:
            self.db.close()
            self.db = None

    def _do(self, job: tuple) -> None:
        """One job, on the thread's own connection (kept while jobs wait, opened again after an error)."""
        check = job[0] == "answer" and bool(job[1].targets) and self._due(job[1].id)
        if not (check or mail_configured(self.app)):
            return
        if self.db is None:
            self.db = open_database(self.app)
        try:
            if check:
                self._check_targets(self.db, job[1])
            if mail_configured(self.app):
                send_unmailed(self.app, self.db)
        except Exception:
            self._close()
            raise

    def _due(self, survey_id: str) -> bool:
        """Whether ``survey_id``'s targets were last checked :data:`TARGET_CHECK_SECONDS` ago or more (noted now)."""
        now = time.monotonic()
        if now - self.checked.get(survey_id, -TARGET_CHECK_SECONDS) < TARGET_CHECK_SECONDS:
            return False
        self.checked[survey_id] = now
        return True

    def _check_targets(self, db, survey) -> None:
        for item in gather.met_targets(db, survey):
            target = item.target
            subject = target.question if not target.by else f"{target.question} by {target.by}"
            events.note(
                db, survey.id, f"target:{subject}", "target-met", f"{subject}: margin {target.margin:g} reached"
            )


def notifier(app: Flask) -> Notifier:
    return app.extensions["rr_notifier"]


def after_answer(app: Flask, survey) -> None:
    """A stored answer: check the targets and mail what happened, off the request path."""
    if survey.targets or mail_configured(app):
        notifier(app).put(("answer", survey))


def after_event(app: Flask) -> None:
    """An event was noted in this request: mail it, off the request path."""
    if mail_configured(app):
        notifier(app).put(("mail",))


def send_unmailed(app: Flask, db) -> int:
    """Send each event not mailed yet to its survey's owners' addresses; the number of messages sent."""
    if db.execute("SELECT 1 FROM events WHERE mailed = 0 LIMIT 1").fetchone() is None:
        return 0
    sent = 0
    catalog = get_catalog()
    for event in events.claim_unmailed(db):
        recipients = events.owner_addresses(db, event.survey_id)
        if not recipients:
            continue
        survey = catalog.get(event.survey_id)
        try:
            send_mail(app.config, recipients, message_of(event, survey.title if survey else event.survey_id))
            sent += 1
        except (OSError, smtplib.SMTPException) as error:
            logger.error(
                "notifications: mailing a %s event of survey %s failed: %s", event.kind, event.survey_id, error
            )
    return sent


def message_of(event: events.Event, title: str) -> tuple[str, str]:
    """``(subject, body)`` of the e-mail telling of ``event``."""
    subject = f"[{event.survey_id}] {event.title}"
    body = f"{event.title}.\n\nSurvey: {title} ({event.survey_id})\nDay (UTC): {event.day}\n"
    if event.detail:
        body += f"What: {event.detail}\n"
    body += "\nYou receive this as an owner of the survey. The dashboard lists every event.\n"
    return subject, body


def send_mail(config, recipients: list[str], subject_and_body: tuple[str, str]) -> None:
    """One message to ``recipients`` through the configured server (``SMTP_*`` settings)."""
    subject, body = subject_and_body
    message = EmailMessage()
    message["From"] = config["SMTP_SENDER"]
    message["To"] = ", ".join(recipients)
    message["Subject"] = subject
    message.set_content(body)
    tls = config["SMTP_TLS"]
    host, port = config["SMTP_HOST"], int(config["SMTP_PORT"])
    if tls == "ssl":
        smtp = smtplib.SMTP_SSL(host, port, timeout=SMTP_TIMEOUT, context=ssl.create_default_context())
    else:
        smtp = smtplib.SMTP(host, port, timeout=SMTP_TIMEOUT)
    with smtp:
        if tls == "starttls":
            smtp.starttls(context=ssl.create_default_context())
        if config.get("SMTP_USER"):
            smtp.login(config["SMTP_USER"], config.get("SMTP_PASSWORD") or "")
        smtp.send_message(message)


def init_app(app: Flask) -> None:
    check_settings(app)
    app.extensions["rr_notifier"] = Notifier(app)
