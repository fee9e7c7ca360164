"""Signed tokens of noisy answers, one sealer for the whole app.

Two tokens carry (already randomized) answers through the respondent's
browser and back: the confirm page's (:func:`seal_answers`, when a form's
CSRF token expired) and the token of a survey of several pages
(:func:`web.pages.seal`). Both are :func:`seal`: every question of the survey
as its fixed-width wire value (:func:`web.forms.stored_wire`) with the
survey's id and version, signed with the app's secret key under a salt of
their own, and never compressed (:class:`UncompressedSerializer`), so that a
token's length never depends on an answer. :func:`unseal` refuses a token
that was altered or belongs to another survey or version.
"""

from __future__ import annotations

from flask import current_app
from flask_babel import gettext
from itsdangerous import BadSignature, Serializer, URLSafeSerializer
from itsdangerous.encoding import base64_encode

from surveys.arms import ARM_WIRE
from surveys.definition import Survey
from web.forms import SubmissionError, read_arm, read_stored_wire, stored_wire


class UncompressedSerializer(URLSafeSerializer):
    """itsdangerous' URL-safe signed serializer without its zlib step: compression
    would make the token's length depend on the (noisy) answers it carries."""

    def dump_payload(self, obj) -> bytes:
        return base64_encode(Serializer.dump_payload(self, obj))


#: The salt of the confirm page's token (:func:`seal_answers`).
CONFIRM_SALT = "sealed-noisy-answers"


class TokenAltered(ValueError):
    """The token's signature does not hold: it was altered, or signed with another key or salt."""


class TokenOfAnotherSurvey(ValueError):
    """The token is signed but belongs to another survey or version."""


def sealer(salt: str) -> URLSafeSerializer:
    """The app's one sealer: :class:`UncompressedSerializer` under the secret key and ``salt``."""
    return UncompressedSerializer(current_app.config["SECRET_KEY"], salt=salt)


def seal(survey: Survey, salt: str, answers: dict, **fields) -> str:
    """The signed token of ``answers`` (every question of ``survey`` as its fixed-width wire value,
    a missing one blank) with the survey's id and version and ``fields``."""
    payload = {
        "survey": [survey.id, survey.version],
        "answers": {q.name: stored_wire(q, answers.get(q.name)) for q in survey.questions},
        **fields,
    }
    return sealer(salt).dumps(payload)


def unseal(survey: Survey, salt: str, token: str) -> dict:
    """The payload of a :func:`seal` token of ``survey``; :class:`TokenAltered` or
    :class:`TokenOfAnotherSurvey` if it cannot be trusted for it."""
    try:
        payload = sealer(salt).loads(token)
    except BadSignature:
        raise TokenAltered(salt) from None
    if not isinstance(payload, dict) or payload.get("survey") != [survey.id, survey.version]:
        raise TokenOfAnotherSurvey(survey.id)
    return payload


def seal_answers(survey: Survey, noisy: dict[str, str], randomized_on: str, key: str, code: str, arm: str = "") -> str:
    """The signed token of the confirm page; every question as its fixed-width wire value."""
    return seal(survey, CONFIRM_SALT, noisy, randomized_on=randomized_on, key=key, code=code, arm=ARM_WIRE[arm])


def read_sealed(survey: Survey, token: str) -> tuple[dict[str, str], str, str, str, str]:
    """``(noisy answers, randomized_on, submission key, invitation code, arm)`` of a confirm page's token;
    :class:`~web.forms.SubmissionError` if it was altered, is another survey's or is out of date."""
    try:
        sealed = unseal(survey, CONFIRM_SALT, token)
    except TokenAltered:
        raise SubmissionError([gettext("The confirmation form was altered; please reload the survey.")]) from None
    except TokenOfAnotherSurvey:
        raise SubmissionError([gettext("The confirmation form belongs to another survey or version.")]) from None
    try:
        answers = {q.name: read_stored_wire(q, sealed["answers"][q.name]) for q in survey.questions}
    except (KeyError, TypeError, ValueError):
        raise SubmissionError([gettext("The confirmation form is out of date; please reload the survey.")]) from None
    noisy = {name: answer for name, answer in answers.items() if answer is not None}
    return (
        noisy,
        sealed["randomized_on"],
        sealed["key"],
        sealed.get("code", ""),
        read_arm(survey, sealed.get("arm", "n")),
    )
