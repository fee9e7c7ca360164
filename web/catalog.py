"""The survey catalog, reloaded when the surveys folder changes.

A researcher drops a file in the folder and the survey is there on the next
request; a broken file is reported (log and admin page) and skipped.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable
from datetime import UTC, date, datetime

from flask import abort, current_app

from storage import responses
from surveys.definition import Survey
from surveys.files import SurveyCatalog, load_catalog
from web.db import get_db

_lock = threading.Lock()


def _folder_signature(folder: str) -> tuple:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return ("missing",)
    return tuple((e.name, e.stat().st_mtime_ns, e.stat().st_size) for e in entries if e.is_file())


def get_catalog() -> SurveyCatalog:
    """The current catalog; reloaded only if a file was added, changed or removed."""
    folder = current_app.config["SURVEYS_DIR"]
    cache = current_app.extensions.setdefault("rr_catalog", {})
    signature = _folder_signature(folder)
    with _lock:
        if cache.get("signature") != signature:
            cache["catalog"] = load_catalog(folder)
            cache["signature"] = signature
        return cache["catalog"]


def today() -> date:
    """Today in UTC: the only time stored with an answer, at day precision."""
    return datetime.now(UTC).date()


def state_on(survey: Survey, closed_override: bool | None, day: date) -> str:
    """``open``, ``closed`` or ``not yet open`` on ``day``: the file's dates, with the
    admin's open/close choice (if any, :func:`storage.responses.closed_override`)
    in place of the file's ``closed`` flag."""
    if closed_override is not None:
        survey = dataclasses.replace(survey, closed=closed_override)
    return survey.state(day)


def survey_state(survey: Survey) -> str:
    """The survey's state today (:func:`state_on`), read from the request's connection."""
    return state_on(survey, responses.closed_override(get_db(), survey.id), today())


def survey_state_and_key_seen(survey: Survey, key: str | None) -> tuple[str, bool]:
    """:func:`survey_state` and whether submission ``key`` was stored already, read in one query
    (:func:`storage.responses.closed_override_and_key_seen`)."""
    return send_survey_state_and_key_seen(survey, key)()


def send_survey_state_and_key_seen(survey: Survey, key: str | None) -> Callable[[], tuple[str, bool]]:
    """:func:`survey_state_and_key_seen`, sent now and read when the returned function is called (in a
    pipeline, :func:`storage.connection.pipeline`, with the statements sent beside it)."""
    pending = responses.send_closed_override_and_key_seen(get_db(), survey.id, key)

    def read() -> tuple[str, bool]:
        closed, seen = pending()
        return state_on(survey, closed, today()), seen

    return read


def survey_or_404(survey_id: str) -> Survey:
    survey = get_catalog().get(survey_id)
    if survey is None:
        abort(404, description=f"There is no survey called “{survey_id}”.")
    return survey
