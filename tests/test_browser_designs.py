"""Playwright: a survey using every design of issue 11, answered in Chromium with JavaScript on and off.

Every request the browser makes is captured. The device's and the server's random sources are both
replaced by one fixed 32-bit word ``w`` (``crypto.getRandomValues`` fills every word with ``w``, so the
page's ``randomBelow(n)`` is ``w mod n``; the server's ``secrets.randbelow(n)`` in the randomizer modules
returns ``w mod n`` too), so each randomized answer is known in advance, and the true answers below are
chosen so that every software-randomized answer differs from the truth: a request or a row that carried
a true answer would be seen. Crosswise and triangular are not randomized and are sent as given.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import expect

from tests.helpers.browser_steps import BROWSER_ONLY_ON_SQLITE
from tests.helpers.sample_surveys import TWO_GROUP_YAML

pytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason=BROWSER_ONLY_ON_SQLITE)]

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"

#: One question per one-group design. Its draws all read the word 35: 35 mod 2 = 1 (two coins: heads,
#: heads: "yes"), mod 4 = 3 (Warner p = 3/4: the negation; k options: not truthful, option 4), mod 12 = 11
#: (unrelated question, theta1 = 3/4: a true yes stored no), mod 3 = 2 (Kuk k1 = 2/3: a black card for a
#: true yes), mod 5 = 0 (Mangat p = 4/5, theta0 = 1/5: a true no stored yes), mod 20 = 15 (the matrix's
#: column "low" has cumulative shares 12, 17, 20 of 20: reported "middle").
DESIGNS_YAML = """\
id: designs
title: Every design
version: 1
questions:
  - name: forced
    type: yes_no
    label: I have cheated on an exam.
  - name: warner
    type: yes_no
    label: I have driven after drinking.
    design: {model: warner, p: 3/4}
  - name: unrelated
    type: yes_no
    label: I have shoplifted.
    design: {model: unrelated_question, p: 2/3, q: 1/4}
  - name: kuk
    type: yes_no
    label: I have copied homework.
    design: {model: kuk, k1: 2/3, k2: 1/3}
  - name: mangat
    type: yes_no
    label: I have lied on a CV.
    design: {model: mangat, p: 4/5}
  - name: crosswise
    type: yes_no
    label: I have used cannabis this year.
    design: {model: crosswise, q: 1/4, innocuous: "My mother's birthday is in January, February or March."}
  - name: triangular
    type: yes_no
    label: I have taken someone else's pills.
    design: {model: triangular, q: 1/4, innocuous: "My father's birthday is in January, February or March."}
  - name: koption
    type: select_one
    label: How often have you used AI-written text as your own?
    choices: [never, once, sometimes, often]
    design: {t: 1/2}
  - name: matrix
    type: select_one
    label: How much did you drink last week?
    choices: [low, middle, high]
    design:
      matrix: [[3/5, 1/10, 1/5], [1/4, 7/10, 1/5], [3/20, 1/5, 3/5]]
"""
DESIGNS_WORD = 35
#: The true answers (choice names) and, with every draw reading :data:`DESIGNS_WORD`, the stored ones.
DESIGNS_TRUTH = {
    "forced": "no",
    "warner": "yes",
    "unrelated": "yes",
    "kuk": "yes",
    "mangat": "no",
    "crosswise": "no",
    "triangular": "yes",
    "koption": "never",
    "matrix": "low",
}
DESIGNS_NOISY = {
    "forced": "yes",
    "warner": "no",
    "unrelated": "no",
    "kuk": "no",
    "mangat": "yes",
    "crosswise": "no",
    "triangular": "yes",
    "koption": "often",
    "matrix": "middle",
}
NOT_RANDOMIZED = {"crosswise", "triangular"}

#: The two-group survey of tests/helpers/ (stochastic lie detector, cheater detection, a plain question,
#: direct share 1/5, group 1 share 1/2). The word 12: the arm's draws are 12 mod 10 = 2 (not below 2 of 10:
#: not direct; below 5 of 10: group 1); then 12 mod 3 = 0 (lie detector, group 1: a true no is stored yes
#: below theta0 = 2/3) and 12 mod 4 = 0 (cheater detection, group 1: below theta0 = 1/4). The word 0 puts
#: the respondent in the direct arm (0 mod 10 is below 2 of 10), where nothing is randomized.
TWO_GROUP_WORD = 12
DIRECT_WORD = 0
TWO_GROUP_TRUTH = {"evaded": "no", "doped": "no", "region": "south"}
TWO_GROUP_NOISY = {"evaded": "yes", "doped": "yes", "region": "south"}


def fixed_word_script(word: int) -> str:
    """An init script making every word of ``crypto.getRandomValues`` equal ``word`` (below every rejection limit)."""
    return f"crypto.getRandomValues = function (array) {{ array.fill({word}); return array; }};"


def fix_server_draws(monkeypatch, word: int) -> None:
    """The server's randomizers (two coins, one-parameter, k options, two groups, the arm, the matrix) read ``word``."""
    import surveys.arms
    import surveys.matrix
    import surveys.protocol

    fixed = SimpleNamespace(randbelow=lambda n: word % n, randbits=lambda k: word & ((1 << k) - 1))
    for module in (surveys.protocol, surveys.matrix, surveys.arms):
        monkeypatch.setattr(module, "secrets", fixed)


@pytest.fixture
def designs_server(surveys_dir, live_server):
    """The live server with the every-design and the two-group surveys in its folder."""
    (surveys_dir / "designs.yaml").write_text(DESIGNS_YAML)
    (surveys_dir / "twogroup.yaml").write_text(TWO_GROUP_YAML)
    return live_server


def survey_of(app, survey_id: str):
    from surveys.files import load_catalog

    return load_catalog(app.config["SURVEYS_DIR"]).get(survey_id)


def answer(page, survey, truths: dict) -> None:
    """Check each question's true choice through its visible label (the option in the choice's place)."""
    for question, choice in truths.items():
        fieldset = page.locator(f"fieldset[data-question={question}]")
        radio = fieldset.locator("input[type=radio]").nth(survey.question(question).choice_names.index(choice))
        label = page.locator(f"label[for={radio.get_attribute('id')}]").inner_text().strip()
        fieldset.get_by_label(label, exact=True).check()


def recorded_requests(page) -> list:
    """Every request the page makes from now on (method, URL, body)."""
    requests = []
    page.on("request", lambda request: requests.append(request))
    return requests


def submit(page):
    with page.expect_request(lambda r: r.method == "POST") as request_info:
        page.get_by_role("button", name="Submit answers").click()
    page.wait_for_load_state()
    return request_info.value


def sent_answers(survey, request) -> dict[str, str]:
    """The randomized answers (``rr-NAME``) a request carries, as choice names."""
    from web.forms import parse_wire_value

    fields = parse_qsl(request.post_data or "", keep_blank_values=True)
    return {
        name[3:]: parse_wire_value(survey.question(name[3:]), value) for name, value in fields if name.startswith("rr-")
    }


def stored_rows(app) -> list[dict]:
    import json

    from web.db import open_database

    db = open_database(app)
    try:
        return [dict(row, answers=json.loads(row["answers"])) for row in db.query("SELECT * FROM responses")]
    finally:
        db.close()


def plain_fields(request, survey) -> set[str]:
    """The names of a request's fields that are questions' own (true-answer) inputs."""
    names = {question.name for question in survey.questions}
    return {name for name, _ in parse_qsl(request.post_data or "", keep_blank_values=True)} & names


def assert_no_true_answer_in_urls(requests, truths: dict) -> None:
    for request in requests:
        query = dict(parse_qsl(urlsplit(request.url).query))
        assert not set(query) & set(truths), request.url


def test_every_design_leaves_the_device_randomized(browser, designs_server, app):
    """JavaScript on: the one POST carries only the ``rr-`` answers, each software-randomized one different
    from the truth (as the fixed word decides), crosswise and triangular as given; no question's own input
    and no answer in any URL; the stored row holds the same answers."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(fixed_word_script(DESIGNS_WORD))
    requests = recorded_requests(page)
    page.goto(f"{designs_server}/s/designs")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "designs-form-js.png"), full_page=True)  # for review
    for family, questions in SCREENSHOT_FAMILIES.items():
        shoot_family(page, family, questions, "js")
    answer(page, survey_of(app, "designs"), DESIGNS_TRUTH)
    request = submit(page)
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    survey = survey_of(app, "designs")
    posts = [r for r in requests if r.method == "POST"]
    assert posts == [request]
    assert plain_fields(request, survey) == set()
    assert sent_answers(survey, request) == DESIGNS_NOISY
    for name, truth in DESIGNS_TRUTH.items():
        assert (DESIGNS_NOISY[name] == truth) == (name in NOT_RANDOMIZED), name
    assert_no_true_answer_in_urls(requests, DESIGNS_TRUTH)
    (row,) = stored_rows(app)
    assert row["answers"] == DESIGNS_NOISY and row["randomized_on"] == "device"
    context.close()


def test_every_design_is_randomized_by_the_server_without_javascript(browser, designs_server, app, monkeypatch):
    """JavaScript off: the form posts the true answers (and says so); the server draws with the same fixed
    word and stores the same noisy answers as the device would, never the true ones."""
    fix_server_draws(monkeypatch, DESIGNS_WORD)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    requests = recorded_requests(page)
    page.goto(f"{designs_server}/s/designs")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "designs-form-no-js.png"), full_page=True)  # for review
    for family, questions in SCREENSHOT_FAMILIES.items():
        shoot_family(page, family, questions, "no-js")
    answer(page, survey_of(app, "designs"), DESIGNS_TRUTH)
    request = submit(page)
    expect(page.get_by_role("heading", name="Thank you")).to_be_visible()
    survey = survey_of(app, "designs")
    assert plain_fields(request, survey) == set(DESIGNS_TRUTH) and sent_answers(survey, request) == {}
    assert_no_true_answer_in_urls(requests, DESIGNS_TRUTH)
    (row,) = stored_rows(app)
    assert row["answers"] == DESIGNS_NOISY and row["randomized_on"] == "server"
    context.close()


def test_two_group_designs_leave_the_device_randomized_in_the_drawn_group(browser, designs_server, app):
    """JavaScript on, every draw 12: the device draws group 1 and sends each true "no" as "yes", with the
    group as one character; the stored row has the group and the same answers."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(fixed_word_script(TWO_GROUP_WORD))
    requests = recorded_requests(page)
    page.goto(f"{designs_server}/s/twogroup")
    expect(page.locator("#direct-arm-note")).not_to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "designs-two-group-js.png"), full_page=True)  # for review
    answer(page, survey_of(app, "twogroup"), TWO_GROUP_TRUTH)
    request = submit(page)
    survey = survey_of(app, "twogroup")
    assert [r for r in requests if r.method == "POST"] == [request]
    assert plain_fields(request, survey) == set()
    assert sent_answers(survey, request) == TWO_GROUP_NOISY
    assert dict(parse_qsl(request.post_data))["arm"] == "1"
    assert_no_true_answer_in_urls(requests, TWO_GROUP_TRUTH)
    (row,) = stored_rows(app)
    assert (row["arm"], row["randomized_on"], row["answers"]) == ("1", "device", TWO_GROUP_NOISY)
    context.close()


def test_two_group_designs_are_randomized_by_the_server_without_javascript(browser, designs_server, app, monkeypatch):
    """JavaScript off, the server's draws all 12: the server draws group 1 with the form, the form posts it
    back with the true answers, and the stored answers are the group's noisy ones."""
    fix_server_draws(monkeypatch, TWO_GROUP_WORD)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{designs_server}/s/twogroup")
    assert page.locator("input[name=arm]").get_attribute("value") == "1"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "designs-two-group-no-js.png"), full_page=True)  # for review
    answer(page, survey_of(app, "twogroup"), TWO_GROUP_TRUTH)
    request = submit(page)
    assert plain_fields(request, survey_of(app, "twogroup")) == set(TWO_GROUP_TRUTH)
    (row,) = stored_rows(app)
    assert (row["arm"], row["randomized_on"], row["answers"]) == ("1", "server", TWO_GROUP_NOISY)
    context.close()


def test_the_direct_arm_sends_the_answers_as_given_and_says_so(browser, designs_server, app):
    """Every draw 0: the device draws the direct-question arm, the form says nothing is randomized, and the
    answers leave as given (the control arm's purpose)."""
    context = browser.new_context()
    page = context.new_page()
    page.add_init_script(fixed_word_script(DIRECT_WORD))
    page.goto(f"{designs_server}/s/twogroup")
    assert "nothing is randomized" in page.locator("#direct-arm-note").inner_text()
    page.screenshot(path=str(ARTIFACTS / "designs-direct-arm-js.png"), full_page=True)  # for review
    answer(page, survey_of(app, "twogroup"), TWO_GROUP_TRUTH)
    request = submit(page)
    assert sent_answers(survey_of(app, "twogroup"), request) == TWO_GROUP_TRUTH
    assert dict(parse_qsl(request.post_data))["arm"] == "d"
    (row,) = stored_rows(app)
    assert (row["arm"], row["answers"]) == ("direct", TWO_GROUP_TRUTH)
    context.close()


#: The design families of the screenshots, with their questions in the every-design survey.
SCREENSHOT_FAMILIES = {
    "one-parameter": ["forced", "warner", "unrelated", "kuk", "mangat"],
    "crosswise-triangular": ["crosswise", "triangular"],
    "matrix": ["koption", "matrix"],
}


def shoot_family(page, family: str, questions: list[str], mode: str) -> None:
    """A screenshot of the family's questions (from the first fieldset's top to the last's bottom)."""
    boxes = [page.locator(f"fieldset[data-question={name}]").bounding_box() for name in questions]
    top = min(box["y"] for box in boxes)
    bottom = max(box["y"] + box["height"] for box in boxes)
    left = min(box["x"] for box in boxes)
    right = max(box["x"] + box["width"] for box in boxes)
    clip = {"x": left, "y": top, "width": right - left, "height": bottom - top}
    page.screenshot(path=str(ARTIFACTS / f"designs-{family}-{mode}.png"), clip=clip, full_page=True)
