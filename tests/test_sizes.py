"""No size on the respondent path depends on an answer (TLS hides content, not length).

For every shipped example survey (``survey_files/*.yaml``) and every
combination of answers, "no answer" included for optional questions:

* the JavaScript-off request body, built from the radio values of the
  rendered form as a browser posts them, has one length;
* the device request body, built from the form's ``data-wire`` and
  ``data-no-answer`` attributes as ``static/randomize.js`` builds it, has one
  length (``tests/test_browser_respond.py`` checks real Chromium requests);
* the thank-you page has one length on both paths, over every combination
  of stored answers;
* the confirm page that seals the noisy answers has one length;
* the form re-rendered after a refused submission (one question left out, or
  an invalid value) keeps the other answers checked and has one length for
  every combination of them;
* on a survey of several pages, every page sent back (a later page refused,
  a page shown again after Back, the thank-you page) has one length for every
  combination of the earlier answers that skip logic reads;
* on a survey of two pages with numbers and a check-all-that-apply question, every request and every page sent
  back has one length whatever the true and the noisy values (their extremes).

The example surveys have no optional question, so the tests' quiz (one
optional question) is checked the same way. They are small (at most 96
combinations), so every combination is tried.
"""

from __future__ import annotations

import html
import itertools
import json
import re
from urllib.parse import urlencode

import pytest

from app import ROOT, create_app
from surveys.definition import Choice
from surveys.files import load_survey_file
from tests.helpers import drivers
from tests.helpers.sample_surveys import PAGED_NUMBERS_YAML, QUIZ_YAML, make_survey
from web.catalog import survey_or_404
from web.forms import NO_ANSWER_LABEL, parse_wire_value, reads_device_wire, wire_value

pytestmark = pytest.mark.both_backends

EXAMPLE_IDS = sorted(path.stem for path in (ROOT / "survey_files").glob("*.yaml"))
#: The examples of several pages, checked page by page (the one-page tests post one whole form).
PAGED_IDS = [i for i in EXAMPLE_IDS if "type: page_break" in (ROOT / "survey_files" / f"{i}.yaml").read_text()]
#: The examples have no optional question; the tests' quiz has one, for "No answer".
SURVEY_IDS = [*(i for i in EXAMPLE_IDS if i not in PAGED_IDS), "quiz"]
RADIO = re.compile(r'<input type="radio" (?:id="[^"]*" )?name="([^"]+)" value="([^"]*)"')
#: A number's list of values (its options follow up to ``</select>``).
SELECT = re.compile(r'<select id="[^"]*" name="([^"]+)".*?</select>', re.S)
OPTION = re.compile(r'<option value="([^"]*)"')
FIELDSET = re.compile(r'data-question="([^"]+)".*?data-wire=\'([^\']*)\' data-no-answer="([^"]*)"', re.S)


@pytest.fixture
def shipped_app(tmp_path):
    """The app serving the shipped example surveys and the tests' quiz, on a temporary database."""
    folder = tmp_path / "surveys"
    folder.mkdir()
    for path in (ROOT / "survey_files").glob("*.yaml"):
        (folder / path.name).write_text(path.read_text())
    (folder / "quiz.yaml").write_text(QUIZ_YAML)
    (folder / "paged-skips.yaml").write_text(PAGED_SKIPS_YAML)
    (folder / "paged-habits.yaml").write_text(PAGED_NUMBERS_YAML)
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "sizes.sqlite3"),
            "SURVEYS_DIR": str(folder),
            "SECRET_KEY": "sizes-secret-key",
            "RATELIMIT_SUBMISSIONS": "100000/600",
        }
    )


def open_form(client, survey_id: str) -> tuple[dict, str]:
    """The control fields, in form order, and the page."""
    page = client.get(f"/s/{survey_id}").get_data(as_text=True)
    controls = {
        "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', page).group(1),
        "submission_key": re.search(r'name="submission_key" type="hidden" value="([^"]+)"', page).group(1),
    }
    arm = re.search(r'name="arm" value="(.)"', page)  # a survey with groups or a control arm
    return controls | ({"arm": arm.group(1)} if arm else {}), page


def radio_values(page: str) -> dict[str, list[str]]:
    """Each question's radio values as the browser posts them, in form order (a check-all-that-apply question:
    one pair per option, ``<name>.<n>``); a number's list: its first, middle and last values (each of one
    width; every value would be too many combinations) and its blank one where it may be left unanswered (the
    browser does not post the required list's empty "Choose a number")."""
    values: dict[str, list[str]] = {}
    for name, value in RADIO.findall(page):
        values.setdefault(name, []).append(html.unescape(value))
    for match in SELECT.finditer(page):
        options = [html.unescape(v) for v in OPTION.findall(match.group(0)) if v]
        numbers = [v for v in options if v.strip()]
        values[match.group(1)] = sorted({numbers[0], numbers[len(numbers) // 2], numbers[-1]}) + [
            v for v in options if not v.strip()
        ]
    return values


def device_wires(survey, name: str) -> list[str]:
    """What randomize.js sends for a randomized number or a check-all-that-apply question: the design's wire
    value of its lowest output, 0 and its highest (one bit: 0 and 1), or every option unticked and ticked."""
    question = survey.question(name)
    design = question.design
    if question.number is not None:
        return [design.wire(output) for output in sorted({*getattr(design, "output_range", (0, 1)), 0})]
    return ["0" * len(question.choices), "1" * len(question.choices)]


def device_values(page: str) -> dict[str, list[str]]:
    """Each question's values as randomize.js sends them: data-wire, and data-no-answer when
    the question can be left unanswered (it has a "No answer" radio; the browser will not
    submit a required question left blank)."""
    optional = {name for name, values in radio_values(page).items() for v in values if not v.strip()}
    survey_id = re.search(r'data-survey="([^"]+)"', page).group(1)
    survey = SURVEYS.get(survey_id)
    values = {}
    for name, wire, blank in FIELDSET.findall(page):
        question = survey.question(name) if survey is not None else None
        if question is not None and reads_device_wire(question):
            values[name] = [*device_wires(survey, name), *([html.unescape(blank)] if name in optional else [])]
            continue
        values[name] = [*json.loads(html.unescape(wire)), *([html.unescape(blank)] if name in optional else [])]
    return values


#: The example surveys with numbers or check-all-that-apply questions, by id (their device values come from
#: their designs, which the page does not list).
SURVEYS = {
    path.stem: load_survey_file(path)
    for path in (ROOT / "survey_files").glob("*.yaml")
    if "type: integer" in path.read_text() or "type: select_multiple" in path.read_text()
}


def bodies(controls: dict, values: dict[str, list[str]], prefix: str = "", extra: dict | None = None):
    """Every combination of values, each as ``(fields, urlencoded body)``, fields in form order."""
    names = list(values)
    for combination in itertools.product(*values.values()):
        fields = {**controls, **(extra or {}), **{prefix + name: v for name, v in zip(names, combination)}}
        yield fields, urlencode(fields)


def test_the_examples_are_found():
    assert EXAMPLE_IDS == [
        "campus-life",
        "drug-use-crosswise",
        "exam-crosswise-extended",
        "exam-integrity",
        "research-integrity",
        "student-habits",
        "tax-honesty-lie-detector",
        "workplace-wellbeing",
    ]
    assert PAGED_IDS == ["campus-life"]


@pytest.mark.parametrize("survey_id", SURVEY_IDS)
def test_server_path_request_has_one_length_for_every_answer(shipped_app, survey_id):
    controls, page = open_form(shipped_app.test_client(), survey_id)
    values = radio_values(page)
    lengths = {len(body) for _, body in bodies(controls, values)}
    assert len(lengths) == 1, lengths
    assert {len(set(map(len, vs))) for vs in values.values()} == {1}  # each question: one width


@pytest.mark.parametrize("survey_id", SURVEY_IDS)
def test_device_request_has_one_length_for_every_answer(shipped_app, survey_id):
    controls, page = open_form(shipped_app.test_client(), survey_id)
    values = device_values(page)
    asked = {name.split(".")[0] for name in radio_values(page)}  # a check-all question's pairs: one name
    assert set(values) == asked  # every question is sent, always
    lengths = {len(body) for _, body in bodies(controls, values, "rr-", {"randomized_on": "device"})}
    assert len(lengths) == 1, lengths


def thank_you_lengths(app, survey_id: str, device: bool, language: str = "") -> dict[int, list[dict]]:
    """Thank-you page length -> the answer sets that gave it, over every combination (in the browser's
    ``language``, when given).

    One browser session answers again and again: a new submission key each time
    (24 characters, as the form's), the "answered" cookie dropped in between.
    """
    client = app.test_client()
    if language:
        client.environ_base["HTTP_ACCEPT_LANGUAGE"] = language
    controls, page = open_form(client, survey_id)
    values = device_values(page) if device else radio_values(page)
    extra = ("rr-", {"randomized_on": "device"}) if device else ()
    lengths: dict[int, list[dict]] = {}
    for index, (fields, _) in enumerate(bodies(controls, values, *extra)):
        fields["submission_key"] = f"size-test-{index:014d}"
        response = client.post(f"/s/{survey_id}", data=fields)
        assert response.status_code == 200 and 'id="what-stored"' in response.get_data(as_text=True)
        lengths.setdefault(len(response.get_data()), []).append(fields)
        client.delete_cookie(f"rr_done_{survey_id}", path=f"/s/{survey_id}")
    return lengths


@pytest.mark.parametrize("survey_id", SURVEY_IDS)
@pytest.mark.parametrize("device", [True, False], ids=["device", "server"])
def test_thank_you_page_has_one_length_for_every_stored_answer(shipped_app, monkeypatch, survey_id, device):
    # Server path: no noise, so that every combination of answers is also stored and shown.
    monkeypatch.setattr("web.respond.randomize_on_server", lambda survey, answers, arm="": dict(answers))
    lengths = thank_you_lengths(shipped_app, survey_id, device)
    assert len(lengths) == 1, {length: fields[:1] for length, fields in lengths.items()}


@pytest.mark.parametrize("language", ["fr", "es"])
@pytest.mark.parametrize("device", [True, False], ids=["device", "server"])
def test_a_translated_thank_you_page_has_one_length_for_every_stored_answer(shipped_app, monkeypatch, language, device):
    """In French and Spanish too ("Sans réponse" is padded like "No answer"; the quiz has an optional question)."""
    monkeypatch.setattr("web.respond.randomize_on_server", lambda survey, answers, arm="": dict(answers))
    lengths = thank_you_lengths(shipped_app, "quiz", device, language)
    assert len(lengths) == 1, {length: fields[:1] for length, fields in lengths.items()}


@pytest.mark.parametrize("survey_id", SURVEY_IDS)
def test_confirm_page_has_one_length_for_every_answer(shipped_app, survey_id):
    """The page reached with this browser's own expired token seals the noisy answers."""
    shipped_app.config["WTF_CSRF_TIME_LIMIT"] = -1  # every token expired at once
    client = shipped_app.test_client()
    controls, page = open_form(client, survey_id)
    lengths, tokens = set(), set()
    for fields, _ in bodies(controls, device_values(page), "rr-", {"randomized_on": "device"}):
        response = client.post(f"/s/{survey_id}", data=fields)
        assert response.status_code == 400 and 'name="sealed"' in response.get_data(as_text=True)
        text = re.sub(r'name="csrf_token" value="[^"]+"', "", response.get_data(as_text=True))  # fresh each time
        lengths.add(len(text.encode()))
        tokens.add(len(re.search(r'name="sealed" value="([^"]+)"', text).group(1)))
    assert len(lengths) == 1 and len(tokens) == 1, (lengths, tokens)


@pytest.mark.parametrize("survey_id", SURVEY_IDS)
@pytest.mark.parametrize("problem", ["left out", "invalid"])
def test_refused_form_has_one_length_for_every_combination_of_kept_answers(shipped_app, survey_id, problem):
    """JavaScript off, the first question left out (or sent with a value that is no choice): the form
    comes back with the other answers checked, each radio as long checked or not."""
    client = shipped_app.test_client()
    controls, page = open_form(client, survey_id)
    values = radio_values(page)
    first = next(iter(values))
    bad = {} if problem == "left out" else {first: "x" * len(values.pop(first)[0])}
    values.pop(first, None)
    lengths: dict[int, dict] = {}
    for fields, _ in bodies(controls, values, extra=bad):
        response = client.post(f"/s/{survey_id}", data=fields)
        html = response.get_data(as_text=True)
        assert response.status_code == 400 and 'class="question has-error"' in html
        kept = len(re.findall(r" (?:checked|selected) ", html))  # a radio checked, a number's value selected
        assert kept == len(values), html  # every kept answer is checked (or selected) again
        lengths.setdefault(len(response.get_data()), fields)
        assert_radios_as_long_checked_or_not(html)
    assert len(lengths) == 1, lengths


HIDDEN_ANSWER = re.compile(r'<input type="hidden" name="([a-z][a-z0-9_]*)" value="( *)">')
SKIPPED_FIELDSET = re.compile(r'data-question="([^"]+)"[^>]*data-no-answer="( *)" hidden>')


def page_values(page: str, device: bool) -> dict[str, list[str]]:
    """Each question of one page as the browser posts it: its radios (JavaScript off) or its wire values
    (device), and the one blank value of a question an earlier page's answer skips."""
    values = device_values(page) if device else radio_values(page)
    skipped = dict(SKIPPED_FIELDSET.findall(page)) if device else dict(HIDDEN_ANSWER.findall(page))
    return {**values, **{name: [blank] for name, blank in skipped.items()}}


def page_controls(page: str) -> dict:
    controls = {}
    controls["csrf_token"] = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    controls["submission_key"] = re.search(r'name="submission_key" type="hidden" value="([^"]+)"', page).group(1)
    controls["carried"] = re.search(r'name="carried" value="([^"]+)"', page).group(1)
    return controls


@pytest.mark.parametrize("survey_id", PAGED_IDS)
@pytest.mark.parametrize("device", [True, False], ids=["device", "server"])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_each_page_posts_one_length_whatever_the_answers_before_and_on_it(shipped_app, survey_id, device, language):
    """Every combination of answers on page 1 is posted; on every page 2 this reaches, every combination
    of its answers is built as the browser would post it: one length per page, one token length per page,
    in each language."""
    client = shipped_app.test_client()
    first = client.get(f"/s/{survey_id}?lang={language}").get_data(as_text=True)
    extra = {"randomized_on": "device"} if device else {}
    prefix = "rr-" if device else ""
    lengths = {1: set(), 2: set()}
    tokens = {1: {len(page_controls(first)["carried"])}, 2: set()}
    for fields, body in bodies({**page_controls(first), "go": "next"}, page_values(first, device), prefix, extra):
        lengths[1].add(len(body))
        second = client.post(f"/s/{survey_id}?lang={language}", data=fields).get_data(as_text=True)
        assert '<progress value="2" max="2">' in second, second
        tokens[2].add(len(page_controls(second)["carried"]))
        for _, body2 in bodies({**page_controls(second), "go": "next"}, page_values(second, device), prefix, extra):
            lengths[2].add(len(body2))
    assert all(len(found) == 1 for found in (*lengths.values(), *tokens.values())), (lengths, tokens)


#: Three pages in two languages whose later pages lean on earlier answers in each way a condition can: a
#: question asked on an earlier page's plain answer (first_exam, residence, help_given), one on an answer of
#: its own page (campus_help, decided by the device or left to the respondent), a page (3) whose only
#: randomized question a page-2 answer may skip (so that shown again it keeps no shown answer), and optional
#: plain answers read by conditions ("No answer" counts as unanswered).
PAGED_SKIPS_YAML = """\
id: paged-skips
languages: [en, fr]
title: {en: Skips across pages, fr: Sauts entre les pages}
version: 1
questions:
  - name: year
    type: select_one
    label: {en: Year of study, fr: "Année d'études"}
    choices:
      - {name: first, label: {en: first, fr: première}}
      - {name: second, label: {en: second, fr: deuxième}}
      - {name: third, label: {en: third, fr: troisième}}
    randomize: false
  - name: lied
    type: yes_no
    label: {en: "Have you lied to a professor?", fr: "Avez-vous menti à un professeur ?"}
    required: false
  - type: page_break
  - name: cheated
    type: yes_no
    label: {en: "Have you ever cheated on an exam?", fr: "Avez-vous déjà triché à un examen ?"}
  - name: first_exam
    type: yes_no
    label: {en: "Did you cheat in your very first exam?", fr: "Avez-vous triché à votre tout premier examen ?"}
    relevant: ${year} = 'first'
  - name: residence
    type: select_one
    label: {en: "Where do you live?", fr: "Où logez-vous ?"}
    choices:
      - {name: campus, label: {en: On campus, fr: Sur le campus}}
      - {name: home, label: {en: At home, fr: Chez moi}}
    randomize: false
    required: false
    relevant: ${year} != 'third'
  - name: campus_help
    type: yes_no
    label: {en: "Has a housemate written coursework for you?", fr: "Un colocataire a-t-il rédigé un devoir pour vous ?"}
    relevant: ${residence} = 'campus'
  - type: page_break
  - name: hours
    type: select_one
    label: {en: Hours of study a week, fr: Heures d'étude par semaine}
    choices:
      - {name: few, label: {en: under 10, fr: moins de 10}}
      - {name: many, label: {en: 10 or more, fr: 10 ou plus}}
    randomize: false
  - name: help_given
    type: yes_no
    label: {en: "Have you written coursework for a housemate?", fr: "Avez-vous rédigé un devoir pour un colocataire ?"}
    relevant: ${residence} = 'campus'
"""
#: Every survey of several pages checked page by page, with each of its languages.
PAGED_LANGUAGES = [
    pytest.param(survey_id, language, id=f"{survey_id}-{language}")
    for survey_id, text in [
        *((i, (ROOT / "survey_files" / f"{i}.yaml").read_text()) for i in PAGED_IDS),
        ("paged-skips", PAGED_SKIPS_YAML),
    ]
    for language in (make_survey(text).languages or ("en",))
]


def read_by_conditions(survey) -> list[str]:
    """The questions that some condition reads (``Condition.questions``), in name order."""
    return sorted({name for q in survey.questions if q.relevant is not None for name in q.relevant.questions()})


def read_by_skip_logic(survey) -> list[dict]:
    """Every combination of answers to the questions that a condition reads (:func:`read_by_conditions`),
    "No answer" included for an optional one; every other question is answered with its first choice."""
    read = read_by_conditions(survey)
    options = [[*survey.question(n).choice_names, *([None] if not survey.question(n).required else [])] for n in read]
    first = {q.name: q.choice_names[0] for q in survey.questions}
    return [first | dict(zip(read, combination)) for combination in itertools.product(*options)]


def page_post(survey, html: str, answers: dict, device: bool, go: str = "next", change: dict | None = None) -> dict:
    """The fields a browser posts for the page ``html``: each question of the page asked given ``answers``
    (skip logic) with its answer, each one skipped blank (as the hidden field, or the device, sends it);
    ``change``: fields replaced (a value, or None to leave the field out)."""
    skipped = survey.skipped({k: v for k, v in answers.items() if v is not None})
    number = int(re.search(r'<progress value="(\d+)"', html).group(1))
    prefix = "rr-" if device else ""
    fields = {**drivers.controls_of(html), "go": go, **({"randomized_on": "device"} if device else {})}
    for name in survey.page_names[number - 1]:
        fields[prefix + name] = wire_value(survey.question(name), None if name in skipped else answers[name])
    for name, value in (change or {}).items():
        fields.pop(prefix + name)
        if value is not None:
            fields[prefix + name] = value
    return fields


def page_lengths(app, survey, language: str, answers: dict, device: bool) -> dict[str, int]:
    """One respondent's way through ``survey`` with ``answers``: the length of every page it is sent
    (``"page 2"``), of the later pages refused (one asked question left out, or sent with a value
    that is no choice), of the page Back leads to from the last and of the pages after it, and of the
    thank-you page."""
    client, address = app.test_client(), f"/s/{survey.id}?lang={language}"
    html, lengths, went_back = client.get(address).get_data(as_text=True), {}, False
    while True:
        number = int(re.search(r'<progress value="(\d+)"', html).group(1))
        asked = [n for n in survey.page_names[number - 1] if survey.question(n).relevant is None]
        for problem in ("left out", "invalid") if number > 1 and asked and not went_back else ():
            value = None if problem == "left out" else "x" * len(wire_value(survey.question(asked[0]), None))
            refused = client.post(address, data=page_post(survey, html, answers, device, change={asked[0]: value}))
            assert refused.status_code == 400, refused.get_data(as_text=True)
            lengths[f"page {number} refused ({problem})"] = len(refused.get_data())
        if number == len(survey.page_names) and number > 1 and not went_back:
            back = client.post(address, data=page_post(survey, html, answers, device, "back"))
            html, went_back = back.get_data(as_text=True), True
            back_number = re.search(r'<progress value="(\d+)"', html).group(1)
            lengths[f"page {back_number} after Back"] = len(back.get_data())
            continue
        response = client.post(address, data=page_post(survey, html, answers, device))
        assert response.status_code == 200, response.get_data(as_text=True)
        html = response.get_data(as_text=True)
        if 'id="what-stored"' in html:
            lengths["thank-you page"] = len(response.get_data())
            return lengths
        shown = re.search(r'<progress value="(\d+)"', html).group(1)
        lengths[f"page {shown}{' after Back and Next' if went_back else ''}"] = len(response.get_data())


@pytest.mark.parametrize(("survey_id", "language"), PAGED_LANGUAGES)
@pytest.mark.parametrize("device", [True, False], ids=["device", "server"])
def test_each_page_has_one_length_whatever_the_earlier_answers_that_skip_logic_reads(
    shipped_app, survey_id, language, device
):
    """Every combination of the answers that conditions read is taken through the survey, by the device
    or without JavaScript, in each of its languages: each page (a later one refused, a page shown again
    after Back, the thank-you page) is as long whatever the combination. A page that is skipped whole is
    not sent at all; the pages that are sent must not tell which earlier answers were given."""
    with shipped_app.test_request_context():
        survey = survey_or_404(survey_id)
    found: dict[str, dict[int, dict]] = {}
    for answers in read_by_skip_logic(survey):
        read = {name: answers[name] for name in read_by_conditions(survey)}
        for page, length in page_lengths(shipped_app, survey, language, answers, device).items():
            found.setdefault(page, {}).setdefault(length, read)
    assert {"page 2", "page 2 refused (left out)", "page 2 refused (invalid)", "thank-you page"} <= set(found)
    assert all(len(by_length) == 1 for by_length in found.values()), {
        page: by_length for page, by_length in found.items() if len(by_length) > 1
    }


#: Issue 27's survey of two pages with numbers and a check-all question: [cheated, drinks, done] | [unpaid_hours,
#: age]. Each number's values: its lowest, middle and highest (true grid index, or the device's noisy output).
PAGED_NUMBERS = make_survey(PAGED_NUMBERS_YAML)


def extremes(name: str, device: bool) -> list:
    """A number's lowest, middle and highest true grid index, or (``device``) its lowest, zero and highest noisy
    output; a check-all's bits none, some and all ticked."""
    question = PAGED_NUMBERS.question(name)
    if question.type == "select_multiple":
        return ["000", "101", "111"]
    if device and question.design is not None:
        low, high = question.design.output_range
        return [low, 0, high]
    return [0, question.number.steps // 2, question.number.steps]


def to_extremes(survey, answers, arm=""):
    """The server's "noise" for the size test: a randomized number's lowest grid index to its lowest output,
    the middle to 0, the highest to its highest output (the widest and the narrowest outputs); the rest as
    given. Every noisy value the thank-you page may show is reached."""
    noisy = {}
    for name, value in answers.items():
        question = survey.question(name)
        if question.number is not None and question.design is not None:
            low, high = question.design.output_range
            index = int(value)
            value = str(low if index == 0 else high if index == question.number.steps else 0)
        noisy[name] = value
    return noisy


def numbers_walk(app, page1: dict, page2: dict, device: bool) -> dict[str, int]:
    """One respondent through ``paged-habits``: page 1, page 2 refused (unpaid_hours left blank), Back, page 1
    kept as it was, page 2 again, the thank-you page; the length of every page sent back and every request."""
    client, address, lengths = app.test_client(), "/s/paged-habits", {}

    def send(label: str, html: str, answers: dict, go: str = "next", status: int = 200) -> str:
        fields = drivers.page_fields(PAGED_NUMBERS, html, answers, go, device)
        lengths[f"request: {label}"] = len(urlencode(fields))
        response = client.post(address, data=fields)
        assert response.status_code == status, response.get_data(as_text=True)
        lengths[label] = len(response.get_data())
        return response.get_data(as_text=True)

    first = client.get(address).get_data(as_text=True)
    second = send("page 2", first, page1)
    send("page 2 refused (left out)", second, page2 | {"unpaid_hours": None}, status=400)
    again = send("page 1 after Back", second, page2, "back")
    assert 'name="done.keep"' in again or device
    second = send("page 2 after Back and Next", again, dict.fromkeys(page1))
    thanks = send("thank-you page", second, page2)
    assert 'id="what-stored"' in thanks
    return lengths


@pytest.mark.parametrize("device", [True, False], ids=["device", "server"])
def test_a_paged_survey_with_numbers_and_check_all_has_one_length_whatever_the_true_and_noisy_values(
    shipped_app, monkeypatch, device
):
    """Every combination of the first page's answers (yes/no, a number's extremes, ticks) and the second page's
    extremes, by the device (its noisy outputs) or without JavaScript (the true values, the server's outputs
    taken to their extremes): every request, every page sent back (page 2, refused, page 1 after Back with
    "Keep my earlier answer", page 2 again) and the thank-you page have one length each."""
    monkeypatch.setattr("web.pages.randomize_on_server", to_extremes)
    firsts = [
        {"cheated": cheated, "drinks": drinks, "done": done}
        for cheated in ("yes", "no")
        for drinks in extremes("drinks", device)
        for done in extremes("done", device)
    ]
    seconds = [{"unpaid_hours": hours, "age": age} for hours, age in zip(extremes("unpaid_hours", device), (0, 41, 83))]
    found: dict[str, dict[int, tuple]] = {}
    for page1, page2 in itertools.product(firsts, seconds):
        for label, length in numbers_walk(shipped_app, page1, page2, device).items():
            found.setdefault(label, {}).setdefault(length, (page1, page2))
    assert len(found) == 10, sorted(found)  # five pages sent back, five requests
    assert all(len(by_length) == 1 for by_length in found.values()), {
        label: by_length for label, by_length in found.items() if len(by_length) > 1
    }


RADIO_TAG = re.compile(r'<input type="radio"[^>]*name="([^"]+)"[^>]*>')


def assert_radios_as_long_checked_or_not(page: str) -> None:
    """Within a question every radio tag has one length, the checked one too: so the page's length
    cannot tell which answer is kept, nor whether an answer was kept at all."""
    tags: dict[str, set[int]] = {}
    for match in RADIO_TAG.finditer(page):
        tags.setdefault(match.group(1), set()).add(len(match.group(0).encode()))
    assert tags and all(len(found) == 1 for found in tags.values()), tags


# --------------------------------------------------------------------------
# The wire contract and the padded labels on their own.


def test_wire_values_are_padded_names_and_read_back():
    survey = make_survey()
    ai_use, lied, cheated = survey.question("ai_use"), survey.question("lied"), survey.question("cheated")
    assert wire_value(ai_use, "once") == "once     " and wire_value(ai_use, "sometimes") == "sometimes"
    assert wire_value(lied, None) == "   "
    assert parse_wire_value(ai_use, "once     ") == "once"
    assert parse_wire_value(lied, "   ") is None
    for question, value in [(ai_use, "once"), (cheated, "   "), (ai_use, "once    "), (ai_use, " once    ")]:
        with pytest.raises(ValueError, match=repr(value)):  # unpadded, "no answer" to a required question, ...
            parse_wire_value(question, value)
    with pytest.raises(ValueError, match="'maybe'"):
        wire_value(cheated, "maybe")


def test_names_with_dots_cannot_collide():
    """The loader allows "." in choice names, so padding with "." would make "a" and "a." one value."""
    import dataclasses

    question = dataclasses.replace(
        make_survey().question("dept"), choices=(Choice("a", "A"), Choice("a.", "A dot")), design=None, randomize=False
    )
    assert wire_value(question, "a") != wire_value(question, "a.")
    assert parse_wire_value(question, wire_value(question, "a")) == "a"


def test_padded_labels_have_one_length_in_utf8_bytes_after_escaping(app):
    from web.thanks import padded_label

    survey = make_survey(
        questions=[
            {
                "name": "dept",
                "type": "select_one",
                "label": "Department",
                "required": False,
                "randomize": False,
                "choices": [
                    {"name": "rd", "label": "R&D"},
                    {"name": "cafe", "label": "Café"},
                    {"name": "it", "label": "IT"},
                ],
            }
        ]
    )
    question = survey.question("dept")
    shown = [padded_label(question, name) for name in (*question.choice_names, None)]
    assert {len(str(text).encode("utf-8")) for text in shown} == {len(NO_ANSWER_LABEL)}
    assert [str(text).rstrip() for text in shown] == ["R&amp;D", "Café", "IT", NO_ANSWER_LABEL]
