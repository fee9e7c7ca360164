"""Numbers and check-all-that-apply questions on a survey of several pages (web/pages.py, issue 27).

Each page's randomized number or check-all answer is randomized once where it arrives (the server with
:mod:`secrets` without JavaScript, the device otherwise) and only its noisy output is carried to the next page
in the signed token, as yes/no and choice answers are; a page shown again offers "Keep my earlier answer" for
them too. The survey: [cheated, drinks] | [unpaid_hours, done, age] (``PAGED_NUMBERS_YAML``).
"""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import drivers
from tests.helpers.drivers import controls_of
from tests.helpers.sample_surveys import PAGED_NUMBERS_YAML, make_survey
from web import pages
from web.forms import KEEP_LABEL

pytestmark = pytest.mark.both_backends

SURVEY = make_survey(PAGED_NUMBERS_YAML)
SURVEY_ID = "paged-habits"


@pytest.fixture
def habits(surveys_dir):
    (surveys_dir / f"{SURVEY_ID}.yaml").write_text(PAGED_NUMBERS_YAML)


def page_fields(html: str, answers: dict, go: str = "next", device: bool = False) -> dict:
    return drivers.page_fields(SURVEY, html, answers, go, device)


def carried(app, html: str) -> dict:
    with app.test_request_context():
        return pages.unseal(SURVEY, controls_of(html)["carried"]).answers


def stored(db) -> list[tuple[dict, str]]:
    rows = db.query("SELECT answers, randomized_on FROM responses")
    return [(json.loads(row["answers"]), row["randomized_on"]) for row in rows]


#: The server's "noise" in these tests: a randomized number's grid index plus 3, each bit flipped, yes and no
#: swapped; so a carried or stored true answer would show. Plain answers pass through, as the real randomizer's.
FLIP = {"yes": "no", "no": "yes", "0": "1", "1": "0"}


def shifted(survey, answers, arm=""):
    noisy = {}
    for name, value in answers.items():
        question = survey.question(name)
        if not question.randomize:
            noisy[name] = value
        elif question.number is not None:
            noisy[name] = str(int(value) + 3)
        else:
            noisy[name] = FLIP[value] if value in FLIP else "".join(FLIP[bit] for bit in value)
    return noisy


@pytest.fixture
def shifting(monkeypatch):
    monkeypatch.setattr(pages, "randomize_on_server", shifted)


def post(client, html: str, answers: dict, go: str = "next", device: bool = False):
    return client.post(f"/s/{SURVEY_ID}", data=page_fields(html, answers, go, device))


def first_page(client) -> str:
    return client.get(f"/s/{SURVEY_ID}").get_data(as_text=True)


def test_without_javascript_a_number_and_a_check_all_are_randomized_on_arrival_and_carried_noisy(
    habits, client, app, db, shifting
):
    response = post(client, first_page(client), {"cheated": "yes", "drinks": 7, "done": "101"})
    page2 = response.get_data(as_text=True)
    assert response.status_code == 200 and "Page 2 of 2" in page2, page2
    assert carried(app, page2) == {"cheated": "no", "drinks": "10", "done": "010", "unpaid_hours": None, "age": None}
    assert stored(db) == []
    final = post(client, page2, {"unpaid_hours": 5, "age": 4})
    assert final.status_code == 200 and 'id="what-stored"' in final.get_data(as_text=True)
    answers = {"cheated": "no", "drinks": "10", "done": "010", "unpaid_hours": "8", "age": "04"}
    assert stored(db) == [(answers, "server")]  # age is plain: its grid position, as given


def test_on_the_device_path_the_noisy_outputs_are_carried_and_stored_as_sent(habits, client, app, db):
    response = post(client, first_page(client), {"cheated": "no", "drinks": -4, "done": "011"}, device=True)
    page2 = response.get_data(as_text=True)
    assert response.status_code == 200 and carried(app, page2)["drinks"] == "-4", page2
    final = post(client, page2, {"unpaid_hours": 45, "age": 83}, device=True)
    assert final.status_code == 200 and 'id="what-stored"' in final.get_data(as_text=True)
    answers = {"cheated": "no", "drinks": "-4", "done": "011", "unpaid_hours": "45", "age": "83"}
    assert stored(db) == [(answers, "device")]


@pytest.mark.parametrize("device", [False, True], ids=["server", "device"])
def test_back_offers_to_keep_a_randomized_number_and_check_all_and_keeping_them_keeps_the_carried_outputs(
    habits, client, app, db, shifting, device
):
    sent = {"cheated": "yes", "drinks": 7 if not device else 12, "done": "100"}
    page2 = post(client, first_page(client), sent, device=device).get_data(as_text=True)
    back = post(client, page2, {"unpaid_hours": 2, "age": 0}, "back", device)
    again = back.get_data(as_text=True)
    assert back.status_code == 200 and "Page 1 of 2" in again, again
    assert re.search(r'<option value=" +" selected >' + re.escape(KEEP_LABEL), again)  # drinks: kept, not shown
    assert re.search(r'name="done.keep" value="1" [^>]*checked', again)  # done: kept, its pairs not shown
    kept = carried(app, again)
    assert kept["drinks"] == ("10" if not device else "12") and kept["done"] == ("011" if not device else "100")
    keep = {"cheated": None, "drinks": None, "done": None}
    forward = post(client, again, keep, device=device)
    page2 = forward.get_data(as_text=True)
    assert forward.status_code == 200 and "Page 2 of 2" in page2, page2
    assert {name: carried(app, page2)[name] for name in keep} == {name: kept[name] for name in keep}
    final = post(client, page2, {"unpaid_hours": 3, "age": 0}, device=device)
    assert final.status_code == 200, final.get_data(as_text=True)
    [(answers, _)] = stored(db)
    assert {name: answers[name] for name in keep} == {name: kept[name] for name in keep}


def test_a_new_answer_on_a_page_shown_again_replaces_the_carried_one(habits, client, app, db, shifting):
    page2 = post(client, first_page(client), {"cheated": "yes", "drinks": 7, "done": "100"}).get_data(as_text=True)
    again = post(client, page2, {"unpaid_hours": 1, "age": 0}, "back").get_data(as_text=True)
    page2 = post(client, again, {"cheated": None, "drinks": 20, "done": "111"}).get_data(as_text=True)
    assert carried(app, page2)["drinks"] == "23" and carried(app, page2)["done"] == "000"


@pytest.mark.parametrize("device", [False, True], ids=["server", "device"])
def test_a_required_number_left_blank_refuses_the_page_and_stores_nothing(habits, client, app, db, device):
    page2 = post(client, first_page(client), {"cheated": "yes", "drinks": 1, "done": "100"}, device=device)
    refused = post(client, page2.get_data(as_text=True), {"unpaid_hours": None, "age": 3}, device=device)
    html = refused.get_data(as_text=True)
    assert refused.status_code == 400 and 'class="question has-error"' in html and "Page 2 of 2" in html
    assert stored(db) == []


def test_back_from_a_page_whose_number_is_left_on_choose_a_number_is_accepted(habits, client, app, shifting):
    """A required number's list starts on "Choose a number", whose value is empty: Back (which the browser does
    not check) posts it so, and it is read as left blank, as an unchecked radio is."""
    page2 = post(client, first_page(client), {"cheated": "yes", "drinks": 7, "done": "100"}).get_data(as_text=True)
    fields = page_fields(page2, {"unpaid_hours": None, "age": None}, "back")
    fields |= {"unpaid_hours": "", "age": ""}
    back = client.post(f"/s/{SURVEY_ID}", data=fields)
    assert back.status_code == 200 and "Page 1 of 2" in back.get_data(as_text=True)
    assert carried(app, back.get_data(as_text=True))["drinks"] == "10"


#: Page 2's number is asked of first-years only, decided by page 1's plain answer; its yes/no of everyone.
CONDITIONAL_YAML = """\
id: paged-conditional
title: A number asked by an earlier page's answer
version: 1
questions:
  - name: year
    type: select_one
    label: Year
    choices: [first, second]
    randomize: false
  - type: page_break
  - name: cheated
    type: yes_no
    label: Cheated?
  - name: drinks
    type: integer
    label: On how many days?
    min: 0
    max: 30
    mechanism: laplace
    relevant: ${year} = 'first'
"""


def test_a_number_that_an_earlier_page_asks_starts_on_choose_a_number_and_the_page_is_as_long_either_way(
    surveys_dir, client
):
    """Asked (the earlier answer decides it): the list starts on an empty "Choose a number" and is required, so the
    browser cannot post its first value unchosen; skipped: sent hidden, "No answer" selected. The page is as long
    either way, so its length does not tell the earlier answer."""
    (surveys_dir / "paged-conditional.yaml").write_text(CONDITIONAL_YAML)
    survey = make_survey(CONDITIONAL_YAML)
    pages_sent = {}
    for year in ("first", "second"):
        first = client.get("/s/paged-conditional").get_data(as_text=True)
        response = client.post("/s/paged-conditional", data=drivers.page_fields(survey, first, {"year": year}))
        assert response.status_code == 200 and "Page 2 of 2" in response.get_data(as_text=True)
        pages_sent[year] = response.get_data(as_text=True)
    asked = re.search(r"<select[^>]*>.*?</select>", pages_sent["first"], re.S).group(0)
    assert re.search(r'<select[^>]*required>\s*<option value="" selected', asked), asked
    assert not re.search(r'<option value="\d+" selected', asked)
    assert len(pages_sent["first"].encode()) == len(pages_sent["second"].encode())
