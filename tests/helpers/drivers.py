"""Driving the app through Flask's test client, as a browser without JavaScript would: a respondent's form and
pages, an admin signing in through the real form, and reading the fields and messages off a page."""

from __future__ import annotations

import re

from tests.helpers.sample_surveys import survey_in

#: Interface words that must not be left in English on a translated page (tests/test_translations.py,
#: tests/test_browser_languages.py) (the quiz's own texts are English:
#: none of these occurs in them).
ENGLISH_INTERFACE_WORDS = (
    "Your privacy",
    "How your answers are protected",
    "Please answer truthfully",
    "randomized before they are stored",
    "Your true answer is stored",
    "Two coins are flipped",
    "Whatever anyone believed",
    "differential privacy",
    "We store no name",
    "marks a question that needs an answer",
    "(optional)",
    "(required)",
    "No answer",
    "Not randomized",
    "Submit answers",
    "Skip to content",
    "Private surveys",
    "Researchers: sign in",
    "Thank you",
    "have been received",
    "What was stored",
    "These are the answers as stored",
    "chose it, not you",
    "(not randomized)",
    "See the surveys open on this site",
    "Your answers were not sent",
    "Please choose",
    "This browser",
    "You have already answered",
)


def wire_form(survey, answers: dict, device: bool = False) -> dict:
    """The answer fields a browser posts for ``answers`` (``{question: choice name}``), in form order.

    Every question is sent as its fixed-width wire value (``web.forms.wire_value``),
    an optional (or skip-logic) question left out as "no answer", under ``rr-<name>`` when
    ``device``. A value that is not a choice name and a key that is not a
    question are sent as given, for the tests of refusals.
    """
    from web.forms import may_be_blank, wire_value

    prefix = "rr-" if device else ""
    names = {q.name for q in survey.questions}
    fields = {}
    for q in survey.questions:
        if q.name in answers:
            value = answers[q.name]
            fields[prefix + q.name] = wire_value(q, value) if value in q.choice_names else value
        elif may_be_blank(q):
            fields[prefix + q.name] = wire_value(q, None)
    fields.update({prefix + key: value for key, value in answers.items() if key not in names})
    return fields


class Respondent:
    """Drives the survey form through the test client, as a browser without JavaScript would."""

    def __init__(self, client):
        self.client = client

    def open_form(self, survey_id: str = "quiz", **params) -> dict:
        page = self.client.get(f"/s/{survey_id}", query_string=params)
        assert page.status_code == 200, page.get_data(as_text=True)
        html = page.get_data(as_text=True)
        controls = {
            "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
            "submission_key": re.search(r'name="submission_key" type="hidden" value="([^"]+)"', html).group(1),
        }
        arm = re.search(r'name="arm" value="(.)"', html)  # a survey with groups or a control arm (surveys/arms.py)
        return controls | ({"arm": arm.group(1)} if arm else {})

    def submit(self, answers: dict, survey_id: str = "quiz", device: bool = False, controls=None):
        controls = controls if controls is not None else self.open_form(survey_id)
        data = dict(controls)
        if device:
            data["randomized_on"] = "device"
        data.update(wire_form(survey_in(self.client.application, survey_id), answers, device))
        return self.client.post(f"/s/{survey_id}", data=data)


def csrf_token_in(html: str) -> str:
    return re.search(r'name="csrf_token"(?: type="hidden")? value="([^"]+)"', html).group(1)


ADMIN_NAME = "researcher"


ADMIN_PASSWORD = "correct horse battery"


class AdminSession:
    """Signs in through the real form, CSRF token and all."""

    def __init__(self, client, app):
        self.client = client
        self.app = app

    def csrf_token(self, path: str = "/admin/login") -> str:
        return csrf_token_in(self.client.get(path).get_data(as_text=True))

    def login(self, name: str = ADMIN_NAME, password: str = ADMIN_PASSWORD):
        token = self.csrf_token()
        return self.client.post("/admin/login", data={"csrf_token": token, "name": name, "password": password})

    def logout(self):
        token = self.csrf_token("/admin/")
        return self.client.post("/admin/logout", data={"csrf_token": token})


MESSAGE = re.compile(r'<p class="message">(.*?)</p>|role="alert">(.*?)</|role="status">(.*?)</', re.S)


def message_of(response) -> str:
    """The sentence an error page shows (error, alert or notice), tags stripped."""
    html = response.get_data(as_text=True)
    texts = (re.sub(r"<[^>]+>", "", group).strip() for m in MESSAGE.finditer(html) for group in m.groups() if group)
    return " ".join(t for t in texts if t)


def carried(app, survey, token: str) -> dict:
    """The answers a page's signed token carries (``web.pages.unseal`` with the app's key)."""
    from web import pages

    with app.test_request_context():
        return pages.unseal(survey, token).answers


def controls_of(html: str) -> dict:
    """The hidden control fields of a page of a survey of several pages: CSRF token, submission key, token,
    and the arm when the survey has arms."""
    return {
        "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
        "submission_key": re.search(r'name="submission_key" type="hidden" value="([^"]+)"', html).group(1),
        "carried": re.search(r'name="carried" value="([^"]+)"', html).group(1),
        **dict(re.findall(r'name="(arm)" value="(.)"', html)),  # a survey with arms: the respondent's
    }


PAGE_INPUT = re.compile(
    r'<input type="(radio|hidden)" (?:id="[^"]*" )?name="([a-z][a-z0-9_]*)" value="([^"]*)"\s*(checked)?'
)


def post_page(
    client, survey, html: str, answers: dict, go: str = "next", device: bool = False, query: str = "", path: str = ""
):
    """Post the page ``html`` of ``survey`` as a browser would: its checked radios and hidden answer fields,
    with ``answers`` (``{question: choice name}``) chosen on top; a question with nothing checked is left out.
    ``path``: where the page posts, if not ``/s/<id>`` (the preview's address)."""
    from web.forms import wire_value

    names = {q.name for q in survey.questions}
    values = {
        name: value
        for kind, name, value, checked in PAGE_INPUT.findall(html)
        if name in names and (checked or kind == "hidden")
    }
    for name, choice in answers.items():
        values[name] = wire_value(survey.question(name), choice)
    prefix = "rr-" if device else ""
    fields = {**controls_of(html), "go": go, **{prefix + k: v for k, v in values.items()}}
    if device:
        fields["randomized_on"] = "device"
    return client.post(f"{path or f'/s/{survey.id}'}{query}", data=fields)


def position(survey, name: str, index) -> str:
    """A number's true answer as its list posts it: its grid position, zero-padded to the grid's width."""
    return str(index).zfill(len(str(survey.question(name).number.steps)))


def page_fields(survey, html: str, answers: dict, go: str = "next", device: bool = False) -> dict:
    """The fields a browser posts for one page of ``survey`` (numbers and check-all questions too): ``answers``
    maps each question of the page to its true answer (a choice name, a number's grid index, a check-all's bits;
    None: "Keep my earlier answer" or blank) or, with ``device``, to its noisy one (a number's output, the bits).
    """
    from web.forms import device_blank, wire_value

    fields = {**controls_of(html), "go": go}
    if device:
        fields["randomized_on"] = "device"
    for name, answer in answers.items():
        question = survey.question(name)
        if device:
            if question.number is not None and question.design is not None:
                fields[f"rr-{name}"] = device_blank(question) if answer is None else question.design.wire(answer)
            elif question.type == "select_multiple":
                fields[f"rr-{name}"] = device_blank(question) if answer is None else answer
            elif question.number is not None:  # a plain number: its grid position, as chosen
                answer = None if answer is None else position(survey, name, answer)
                fields[f"rr-{name}"] = wire_value(question, answer)
            else:
                fields[f"rr-{name}"] = wire_value(question, answer)
        elif question.type == "select_multiple":
            for index, bit in enumerate(answer or "0" * len(question.choices), start=1):
                fields[f"{name}.{index}"] = bit
            if f'name="{name}.keep"' in html:
                fields[f"{name}.keep"] = "1" if answer is None else "0"
        elif question.number is not None:
            fields[name] = wire_value(question, None if answer is None else position(survey, name, answer))
        else:
            fields[name] = wire_value(question, answer)
    return fields
