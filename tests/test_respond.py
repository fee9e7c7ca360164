"""Request tests of the respondent pages: form, both submission paths, refusals."""

from __future__ import annotations

import functools
import html as html_module
import io
import itertools
import json
import math
import re
import sqlite3
from urllib.parse import urlencode

import pytest
from babel.messages.pofile import read_po

from analysis import TWO_COIN
from app import ROOT
from storage import burst_days, queries, responses, survey_states
from surveys import protocol
from surveys.design_contract import question_design_key
from surveys.files import load_survey_file
from surveys.results import group_counts
from surveys.targets import target_progress
from tests.helpers.drivers import Respondent, post_page
from tests.helpers.sample_surveys import DIRECT_NUMBERS_YAML, QUIZ_YAML, SKIP_YAML, make_survey, survey_in
from web import gather

pytestmark = pytest.mark.both_backends

ANSWERS = {"cheated": "yes", "lied": "no", "ai_use": "sometimes", "year": "second"}


def stored_rows(db):
    return list(db.query("SELECT * FROM responses"))


def row_count(db) -> int:
    return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def summary_and_details(html: str) -> tuple[str, str]:
    """The form page's text before the first question, outside the <details>; and the <details>."""
    before = html[html.index("<main") : html.index('<fieldset class="question')]
    details = re.search(r"<details.*?</details>", before, re.S).group(0)
    return before.replace(details, ""), details


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_form_explains_the_protection(client):
    html = client.get("/s/quiz").get_data(as_text=True)
    summary, details = summary_and_details(html)
    assert "plausible deniability" in details
    # Epsilon: ln 3 (two coins) + ln 5 (die: (2/3+1/6)/(1/6) = 5) + ln 5 (k=4, t=1/2: (5/8)/(1/8) = 5), in the details.
    assert f"ε = {math.log(3) + 2 * math.log(5):.2f}" in details
    assert "by at most a factor of 75" in text_of(details)  # e^epsilon = 3 * 5 * 5
    assert "ε" not in summary and "epsilon" not in summary.lower()
    assert "Not protected" in summary and "Year of study" in summary
    assert "Please answer truthfully" in summary
    assert 'for="q-cheated-1"' in html and 'id="q-cheated-1"' in html


def test_questions_with_the_same_design_share_one_explanation_item(client, surveys_dir):
    """The details list each distinct design once, with every question it applies to, in form order."""
    extra = "  - name: copied\n    type: yes_no\n    label: Have you copied homework?\n"
    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML.replace("  - name: lied", extra + "  - name: lied"))
    details = summary_and_details(client.get("/s/quiz").get_data(as_text=True))[1]
    items = re.findall(r"<li>(.*?)</li>", details, re.S)
    assert len(items) == 3  # two coins (cheated, copied), the die (lied), k = 4 (ai_use)
    assert re.findall(r"<strong>(.*?)</strong>", items[0]) == [
        "Have you ever cheated on an exam?",
        "Have you copied homework?",
    ]
    assert text_of(items[0]).count("Two coins are flipped in secret") == 1
    assert re.findall(r"<strong>(.*?)</strong>", items[1]) == ["Have you lied to a professor?"]


def test_the_guessing_rate_is_given_only_with_its_prior(client):
    """75% / 83.3% is the best guess only for someone who thought yes and no equally likely;
    the prior-free guarantee is the odds factor e^epsilon (3 for two coins)."""
    details = text_of(summary_and_details(client.get("/s/quiz").get_data(as_text=True))[1])
    assert "right at most 75% of the time (50% would be a blind guess)" not in details
    for factor, rate, prior, blind in [
        ("3", "75%", "yes and no equally likely", "50%"),
        ("5", "83.3%", "yes and no equally likely", "50%"),
        ("5", "62.5%", "all 4 options equally likely", "25%"),
    ]:
        assert "Whatever anyone believed about you before, your stored answer changes their odds of " in details
        assert (
            f"by at most a factor of {factor}. If they thought {prior} for you, a guess from your stored answer "
            f"is right at most {rate} of the time (a blind guess: {blind})." in details
        )
    assert details.count("Whatever anyone believed about you before") == 3


def test_without_javascript_the_form_does_not_claim_the_device_randomizes(client):
    """The page as served is the JavaScript-off page: every sentence placing the coins on the device is
    hidden until static/randomize.js shows it, and the shown text says the server randomizes."""
    html = client.get("/s/quiz").get_data(as_text=True)
    assert "on your device" in html  # the device wording is there, for the script to show ...
    shown = re.sub(r'<(p|span)[^>]*data-mode="device" hidden>.*?</\1>', "", html, flags=re.S)
    assert "device" not in text_of(shown[shown.index("<main") :])  # ... and only there
    assert (
        "JavaScript is off, so this form sends your true answers; the server randomizes them at once and stores "
        "only the randomized ones."
    ) in text_of(shown)


def test_the_form_says_the_browser_keeps_its_noisy_answers_and_a_cookie(client):
    details = text_of(summary_and_details(client.get("/s/quiz").get_data(as_text=True))[1])
    assert "This browser keeps the randomized answers it sent (in its local storage) and a cookie" in details
    assert "answering many times cannot average the randomness away" in details


def test_who_runs_the_survey_is_shown_on_the_form(client, surveys_dir):
    from tests.helpers.sample_surveys import QUIZ_YAML

    (surveys_dir / "quiz.yaml").write_text(
        QUIZ_YAML + "organizer: The Integrity Lab\ncontact: lab@example.org\nethics_approval: REB-2026-014\n"
    )
    summary, _ = summary_and_details(client.get("/s/quiz").get_data(as_text=True))
    assert "Run by The Integrity Lab." in summary and "REB-2026-014" in summary
    assert '<a href="mailto:lab@example.org">lab@example.org</a>' in summary


def test_the_shipped_surveys_say_who_runs_them(app, client):
    app.config["SURVEYS_DIR"] = str(__import__("app").ROOT / "survey_files")
    for survey_id in ("exam-integrity", "workplace-wellbeing"):
        summary, _ = summary_and_details(client.get(f"/s/{survey_id}").get_data(as_text=True))
        assert "Run by" in summary and "Contact:" in summary and "Ethics approval:" in summary


def test_index_does_not_say_every_answer_is_randomized_when_some_are_not(client):
    html = text_of(client.get("/").get_data(as_text=True))
    assert "every answer" not in html.lower().replace("(every answer randomized)", "")
    assert "Test quiz (3 of 4 answers randomized)" in html


def test_unknown_survey_is_404_with_a_message(client):
    response = client.get("/s/nope")
    assert response.status_code == 404
    assert "There is no survey called “nope”" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "extra, status, text",
    [
        ("closed: true\n", 410, "This survey is closed"),
        ("closes: 2001-01-01\n", 410, "This survey is closed"),
        ("opens: 2999-01-01\n", 403, "not open yet"),
    ],
)
def test_closed_or_unopened_survey_refuses_answers(client, surveys_dir, respondent, extra, status, text):
    from tests.helpers.sample_surveys import QUIZ_YAML

    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML.replace("version: 1\n", "version: 1\n" + extra))
    assert client.get("/s/quiz").status_code == status
    response = respondent.submit(ANSWERS, controls={"csrf_token": "x", "submission_key": "k" * 20})
    assert response.status_code == status
    assert text in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "body, content_type",
    [
        (b"not a form", "application/json"),  # 415 on an open survey
        (b"x" * (128 * 1024), "application/x-www-form-urlencoded"),  # 413 on an open survey
        (b"\xff\xfe=1", "application/x-www-form-urlencoded"),  # 400 on an open survey
    ],
)
def test_a_closed_survey_says_it_is_closed_before_it_judges_the_body(client, surveys_dir, body, content_type):
    """The body is read before the survey's state is looked up (the key it carries is looked up with it),
    but the closed page still comes first, whatever the body."""
    from tests.helpers.sample_surveys import QUIZ_YAML

    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML.replace("version: 1\n", "version: 1\nclosed: true\n"))
    response = client.post("/s/quiz", data=body, content_type=content_type)
    assert response.status_code == 410
    assert "This survey is closed" in response.get_data(as_text=True)


@pytest.mark.parametrize("device", [True, False], ids=["device", "server"])
def test_a_good_form_to_a_survey_closed_since_it_was_opened_is_refused_in_its_transaction(respondent, db, device):
    """A good form and token from a fresh browser: the survey's state is read in the answer's own
    transaction (web.respond.state_can_wait). Closed by its owner after the form was opened, it answers
    the closed page and leaves nothing: no answer, no claimed key, no counted hour. Opened again, the
    same form is stored."""
    controls = respondent.open_form()
    survey_states.set_closed(db, "quiz", True)
    refused = respondent.submit(ANSWERS, controls=controls, device=device)
    assert refused.status_code == 410 and "This survey is closed" in refused.get_data(as_text=True)
    assert stored_rows(db) == [] and not responses.submission_key_exists(db, controls["submission_key"])
    assert burst_days.hour_histogram(db, "quiz") == []
    survey_states.set_closed(db, "quiz", False)
    assert respondent.submit(ANSWERS, controls=controls, device=device).status_code == 200
    assert len(stored_rows(db)) == 1 and burst_days.hour_histogram(db, "quiz") == [(1, 1)]


def test_server_path_stores_noisy_answers_marked_server(respondent, db):
    response = respondent.submit(ANSWERS)
    assert response.status_code == 200, response.get_data(as_text=True)
    (row,) = stored_rows(db)
    assert row["randomized_on"] == "server"
    assert row["survey_id"] == "quiz" and row["survey_version"] == 1
    assert len(row["day"]) == 10  # YYYY-MM-DD, nothing finer
    answers = json.loads(row["answers"])
    assert answers["cheated"] in {"yes", "no"} and answers["ai_use"] in {"never", "once", "sometimes", "often"}
    assert answers["year"] == "second"  # not randomized
    design = json.loads(db.execute("SELECT questions FROM designs WHERE id = ?", [row["design_id"]]).fetchone()[0])
    assert design["lied"]["design"] == {"kind": "forced_response", "t": "2/3", "a": "1/6", "b": "1/6"}


def test_server_path_really_randomizes(respondent, db, monkeypatch):
    """Coins forced to heads-heads: every yes/no is stored as yes, whatever the truth."""
    monkeypatch.setattr(protocol.secrets, "randbits", lambda k: 1)
    respondent.submit({**ANSWERS, "cheated": "no"})
    assert json.loads(stored_rows(db)[0]["answers"])["cheated"] == "yes"


def test_device_path_stores_answers_as_sent(respondent, db):
    noisy = {"cheated": "no", "ai_use": "often", "year": "first"}
    response = respondent.submit(noisy, device=True)
    assert response.status_code == 200, response.get_data(as_text=True)
    (row,) = stored_rows(db)
    assert row["randomized_on"] == "device"
    assert json.loads(row["answers"]) == noisy


def test_thanks_page_shows_what_was_stored(respondent):
    html = respondent.submit({"cheated": "no", "ai_use": "often", "year": "first"}, device=True).get_data(as_text=True)
    assert "What was stored" in html and "often" in html


def test_thanks_page_says_a_differing_answer_was_chosen_by_the_randomizer_the_designs_use(respondent, surveys_dir):
    """The quiz draws with two coins, a die and a random option: "a random draw chose it"; a survey of two-coin
    questions only: "the coins"; a crosswise question alone draws nothing: no such sentence."""
    html = text_of(respondent.submit(ANSWERS).get_data(as_text=True))
    assert "Where a stored answer differs from the one you chose, a random draw chose it, not you" in html
    assert "coins" not in html
    coins_only = QUIZ_YAML.replace("id: quiz", "id: coins").split("  - name: lied")[0]
    (surveys_dir / "coins.yaml").write_text(coins_only)
    (surveys_dir / "crossonly.yaml").write_text(CROSSWISE_ONLY_YAML)
    html = text_of(respondent.submit({"cheated": "yes"}, "coins").get_data(as_text=True))
    assert "Where a stored answer differs from the one you chose, the coins chose it, not you" in html
    answers = {"cannabis": "yes", "year": "first", "faculty": "arts"}
    html = text_of(respondent.submit(answers, "crossonly").get_data(as_text=True))
    assert "What was stored" in html and "chose it" not in html


def test_thanks_page_offers_the_survey_files_closing_text_and_link(client, surveys_dir, respondent):
    from tests.helpers.sample_surveys import QUIZ_YAML

    (surveys_dir / "quiz.yaml").write_text(
        QUIZ_YAML + "closing: Results in January.\nnext_url: https://example.org/r\n"
    )
    html = respondent.submit(ANSWERS).get_data(as_text=True)
    assert "Results in January." in html and '<a href="https://example.org/r">Continue</a>' in html


def test_thanks_page_without_a_next_url_links_to_the_open_surveys(respondent):
    html = respondent.submit(ANSWERS).get_data(as_text=True)
    assert '<p class="next"><a href="/">See the surveys open on this site</a></p>' in html


def back_links(html: str) -> list[str]:
    main = html[html.index("<main") : html.index("</main>")]
    return re.findall(r'<a href="([^"]+)"', main)


@pytest.mark.parametrize("extra", ["closed: true\n", "opens: 2999-01-01\n", "invitation_only: true\n"])
def test_refusal_pages_do_not_link_back_to_themselves(client, surveys_dir, extra):
    from tests.helpers.sample_surveys import QUIZ_YAML

    (surveys_dir / "quiz.yaml").write_text(QUIZ_YAML + extra)
    response = client.get("/s/quiz")
    assert response.status_code in (403, 410)
    assert "/s/quiz" not in back_links(response.get_data(as_text=True))
    assert "/" in back_links(response.get_data(as_text=True))


def test_already_answered_page_does_not_link_back_to_itself(respondent):
    respondent.submit(ANSWERS)
    response = respondent.client.get("/s/quiz")
    assert response.status_code == 409
    assert back_links(response.get_data(as_text=True)) == ["/"]


def test_tallies_follow_the_stored_rows(client, app, db):
    from tests.helpers.drivers import Respondent

    for value in ["yes", "yes", "no"]:
        Respondent(app.test_client()).submit({"cheated": value, "ai_use": "once", "year": "third"}, device=True)
    tallies = queries.tallies(db, "quiz")
    (by_answer,) = tallies["cheated"].values()
    assert by_answer == {"yes": 2, "no": 1}
    assert queries.response_count(db, "quiz") == 3


@pytest.mark.parametrize(
    "answers, device, message",
    [
        ({"lied": "no", "ai_use": "once", "year": "first"}, False, "Please choose an answer to this question."),
        ({**ANSWERS, "cheated": "maybe"}, False, "Not a valid choice"),
        ({**ANSWERS, "year": "fifth"}, True, "Not a valid choice"),
        ({**ANSWERS, "salary": "high"}, False, "“salary” is not a question"),
        ({**ANSWERS, "rr-cheated": "yes"}, False, "“rr-cheated” is not a question"),
    ],
)
def test_bad_answers_are_refused_and_nothing_is_stored(respondent, db, answers, device, message):
    response = respondent.submit(answers, device=device)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert html.count(message) == 1  # one message per problem
    assert 'id="survey-form"' in html  # the form again, not a dead end
    assert row_count(db) == 0


def fieldset_of(html: str, name: str) -> str:
    return re.search(rf'<fieldset[^>]*data-question="{name}".*?</fieldset>', html, re.S).group(0)


def checked_values(html: str, name: str) -> list[str]:
    return re.findall(r'value="([^"]*)"\s+checked', fieldset_of(html, name))


@pytest.mark.parametrize(
    "answers, wrong, message",
    [
        ({"lied": "no", "ai_use": "once", "year": "first"}, "cheated", "Please choose an answer to this question."),
        ({"cheated": "maybe", "lied": "no", "ai_use": "once", "year": "first"}, "cheated", "Not a valid choice."),
    ],
)
def test_a_refused_form_comes_back_with_the_error_next_to_its_question_and_the_answers_kept(
    respondent, db, answers, wrong, message
):
    """JavaScript off (or the script blocked): the server names each problem beside its question and
    checks the respondent's answers again, so nothing is lost."""
    html = respondent.submit(answers).get_data(as_text=True)
    fieldset = fieldset_of(html, wrong)
    assert 'class="question has-error"' in fieldset and message in fieldset and html.count(message) == 1
    assert checked_values(html, wrong) == []
    assert [v.strip() for v in checked_values(html, "lied")] == ["no"]
    assert [v.strip() for v in checked_values(html, "ai_use")] == ["once"]
    assert [v.strip() for v in checked_values(html, "year")] == ["first"]
    for other in ("lied", "ai_use", "year"):
        assert "has-error" not in fieldset_of(html, other)
    assert row_count(db) == 0


def test_two_problems_give_two_messages_each_by_its_question(respondent):
    html = respondent.submit({"cheated": "maybe", "year": "first"}).get_data(as_text=True)
    assert "Not a valid choice." in fieldset_of(html, "cheated")
    assert "Please choose an answer to this question." in fieldset_of(html, "ai_use")
    assert html.count("Not a valid choice.") == 1 and html.count("Please choose an answer to this question.") == 1


def test_the_refused_form_can_be_corrected_and_sent(respondent, db):
    html = respondent.submit({"lied": "no", "ai_use": "once", "year": "first"}).get_data(as_text=True)
    controls = {
        "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
        "submission_key": re.search(r'name="submission_key" type="hidden" value="([^"]+)"', html).group(1),
    }
    assert respondent.submit(ANSWERS, controls=controls).status_code == 200
    assert row_count(db) == 1


def test_device_answers_are_not_shown_back_as_if_chosen(respondent):
    """The device path posts noisy answers: a refused one shows its errors but checks nothing."""
    html = respondent.submit({**ANSWERS, "year": "fifth"}, device=True).get_data(as_text=True)
    assert "Not a valid choice." in fieldset_of(html, "year")
    assert all(checked_values(html, name) == [] for name in ("cheated", "ai_use", "year"))


def test_true_answer_names_beside_device_answers_are_refused(respondent, db):
    controls = respondent.open_form()
    response = respondent.client.post(
        "/s/quiz",
        data={
            **controls,
            "randomized_on": "device",
            "rr-cheated": "no",
            "rr-ai_use": "once",
            "rr-year": "first",
            "cheated": "yes",
        },
    )
    assert response.status_code == 400
    assert "“cheated” is not a question" in response.get_data(as_text=True)
    assert row_count(db) == 0


def test_repeated_field_is_refused(respondent, db):
    controls = respondent.open_form()
    from werkzeug.datastructures import MultiDict

    fields = [*controls.items(), ("cheated", "yes"), ("cheated", "no"), ("ai_use", "once"), ("year", "first")]
    response = respondent.client.post("/s/quiz", data=MultiDict(fields))
    assert response.status_code == 400
    assert "sent more than once" in response.get_data(as_text=True)
    assert row_count(db) == 0


def test_bad_randomized_on_is_refused(respondent, db):
    controls = respondent.open_form()
    response = respondent.client.post("/s/quiz", data={**controls, **ANSWERS, "randomized_on": "moon"})
    assert response.status_code == 400 and "randomized_on" in response.get_data(as_text=True)
    assert row_count(db) == 0


def test_oversize_body_is_413_with_a_message(client, db):
    response = client.post("/s/quiz", data={"cheated": "x" * 200_000})
    assert response.status_code == 413
    assert "too large" in response.get_data(as_text=True).lower()
    assert row_count(db) == 0


def form_body(respondent, answers=ANSWERS) -> bytes:
    """A complete, valid urlencoded submission from a freshly opened form."""
    from tests.helpers.drivers import wire_form
    from tests.helpers.sample_surveys import survey_in

    fields = {**respondent.open_form(), **wire_form(survey_in(respondent.client.application), answers)}
    return urlencode(fields).encode()


@pytest.mark.parametrize(
    "content_type, body, status, message",
    [
        ("application/json", b'{"cheated": "yes"}', 415, "not as application/json"),
        ("text/plain", b"cheated=yes", 415, "not as text/plain"),
        (None, b"cheated=yes", 415, "not as no content type"),
        ("application/x-www-form-urlencoded", b"cheated=\xff\xfe", 400, "not valid UTF-8"),
        (
            "multipart/form-data; boundary=x",
            b'--x\r\nContent-Disposition: form-data; name="cheated"\r\n\r\n\xff\r\n--x--\r\n',
            400,
            "not valid UTF-8",
        ),
    ],
)
def test_a_body_that_is_not_a_readable_form_is_refused_saying_why(respondent, db, content_type, body, status, message):
    respondent.open_form()
    headers = {"Content-Type": content_type} if content_type else {}
    response = respondent.client.post("/s/quiz", data=body, headers=headers)
    text = response.get_data(as_text=True)
    assert response.status_code == status, text
    assert message in text and "Please answer" not in text
    assert row_count(db) == 0


def test_invalid_utf8_beside_valid_answers_is_refused(respondent, db):
    response = respondent.client.post(
        "/s/quiz", data=form_body(respondent) + b"&note=\xc3", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 400 and "not valid UTF-8" in response.get_data(as_text=True)
    assert row_count(db) == 0


def post_chunked(respondent, body: bytes, terminated: bool = True):
    """Post ``body`` without a Content-Length, as a server that de-chunks the body
    (``wsgi.input_terminated``, as Gunicorn and Werkzeug's server set) hands it on."""
    return respondent.client.post(
        "/s/quiz",
        input_stream=io.BytesIO(body),
        content_type="application/x-www-form-urlencoded",
        headers={"Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True} if terminated else {},
    )


def test_chunked_body_within_the_limit_is_read_whole(respondent, db):
    response = post_chunked(respondent, form_body(respondent))
    assert response.status_code == 200, response.get_data(as_text=True)
    assert row_count(db) == 1


@pytest.mark.parametrize("size", [64 * 1024 + 1, 200_000])
def test_chunked_body_over_the_limit_is_413_not_cut(respondent, db, size):
    body = form_body(respondent)
    response = post_chunked(respondent, body + b"&note=" + b"x" * (size - len(body) - 6))
    assert response.status_code == 413
    assert "too large" in response.get_data(as_text=True)
    assert row_count(db) == 0


def test_chunked_body_of_exactly_the_limit_is_not_refused_as_too_large(respondent, db):
    body = form_body(respondent)
    response = post_chunked(respondent, body + b"&note=" + b"x" * (64 * 1024 - len(body) - 6))
    assert response.status_code == 400 and "“note” is not a question" in response.get_data(as_text=True)


def test_chunked_body_the_server_cannot_read_is_411(respondent, db):
    response = post_chunked(respondent, form_body(respondent), terminated=False)
    assert response.status_code == 411 and "Content-Length" in response.get_data(as_text=True)
    assert row_count(db) == 0


def test_chunked_body_over_the_limit_is_413_through_a_real_server(live_server, app, db):
    """Werkzeug's own server de-chunks the body; the 413 must survive that too."""
    import requests

    from tests.helpers.drivers import wire_form
    from tests.helpers.sample_surveys import survey_in

    session = requests.Session()
    page = session.get(f"{live_server}/s/quiz", timeout=10).text
    controls = {
        "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', page).group(1),
        "submission_key": re.search(r'name="submission_key" type="hidden" value="([^"]+)"', page).group(1),
    }
    body = urlencode({**controls, **wire_form(survey_in(app), ANSWERS)}).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    over = session.post(
        f"{live_server}/s/quiz", data=iter([body, b"&note=" + b"x" * 70_000]), headers=headers, timeout=10
    )
    assert over.request.headers.get("Transfer-Encoding") == "chunked"
    assert over.status_code == 413 and "too large" in over.text
    assert row_count(db) == 0
    within = session.post(f"{live_server}/s/quiz", data=iter([body[:10], body[10:]]), headers=headers, timeout=10)
    assert within.status_code == 200 and row_count(db) == 1


def test_missing_csrf_token_is_refused(respondent, db):
    controls = respondent.open_form()
    del controls["csrf_token"]
    response = respondent.submit(ANSWERS, controls=controls)
    assert response.status_code == 400
    assert "CSRF token is missing" in response.get_data(as_text=True)
    assert row_count(db) == 0


def test_wrong_csrf_token_is_refused(respondent, db):
    controls = respondent.open_form()
    response = respondent.submit(ANSWERS, controls={**controls, "csrf_token": "forged"})
    assert response.status_code == 400
    assert row_count(db) == 0


def test_expired_token_keeps_the_randomized_answers_for_one_more_click(app, respondent, db):
    controls = respondent.open_form()
    app.config["WTF_CSRF_TIME_LIMIT"] = -1  # every token is past its limit at once
    first = respondent.submit({"cheated": "no", "ai_use": "often", "year": "first"}, device=True, controls=controls)
    html = first.get_data(as_text=True)
    assert first.status_code == 400 and "open for a long time" in html
    assert row_count(db) == 0
    app.config["WTF_CSRF_TIME_LIMIT"] = 3600
    import re

    sealed = re.search(r'name="sealed" value="([^"]+)"', html).group(1)
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    second = respondent.client.post("/s/quiz", data={"csrf_token": token, "sealed": sealed})
    assert second.status_code == 200, second.get_data(as_text=True)
    (row,) = stored_rows(db)
    assert row["randomized_on"] == "device"
    assert json.loads(row["answers"]) == {"cheated": "no", "ai_use": "often", "year": "first"}


def test_tampered_sealed_answers_are_refused(respondent, db):
    controls = respondent.open_form()
    response = respondent.client.post("/s/quiz", data={"csrf_token": controls["csrf_token"], "sealed": "abc.def"})
    assert response.status_code == 400 and "altered" in response.get_data(as_text=True)
    assert row_count(db) == 0


def test_double_submission_is_stored_once(respondent, db):
    controls = respondent.open_form()
    first = respondent.submit(ANSWERS, controls=controls)
    second = respondent.submit(ANSWERS, controls=controls)
    assert first.status_code == 200 and second.status_code == 200
    assert row_count(db) == 1


def test_retake_from_the_same_browser_is_refused(respondent, db):
    controls = respondent.open_form()
    assert respondent.submit(ANSWERS, controls=controls).status_code == 200
    assert respondent.client.get("/s/quiz").status_code == 409
    again = respondent.submit(ANSWERS, controls={**controls, "submission_key": "n" * 24})
    assert again.status_code == 409
    assert "already answered" in again.get_data(as_text=True)
    assert row_count(db) == 1


def test_done_cookie_carries_no_answer(respondent):
    response = respondent.submit(ANSWERS)
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("rr_done_quiz=1;")
    assert "HttpOnly" in cookie


@pytest.mark.sqlite_only(
    reason="the server randomizer's stored share; storing through the form on PostgreSQL is checked by the others"
)
@pytest.mark.slow
def test_many_truthful_yes_answers_are_stored_as_about_three_quarters_yes(app, db):
    """n = 400 truthful yes through the server path: stored yes ~ Binomial(400, 3/4),
    mean 300, sd sqrt(400 * 3/4 * 1/4) = 8.66; 4.5 sd either side fails by chance
    with probability < 1e-5."""
    from tests.helpers.drivers import Respondent

    n = 400
    for _ in range(n):
        Respondent(app.test_client()).submit({"cheated": "yes", "ai_use": "never", "year": "first"})
    (by_answer,) = queries.tallies(db, "quiz")["cheated"].values()
    sd = math.sqrt(n * 0.75 * 0.25)
    assert abs(by_answer["yes"] - 0.75 * n) < 4.5 * sd
    assert by_answer["yes"] + by_answer.get("no", 0) == n


def test_someone_elses_expired_token_gets_no_confirm_page(app, db):
    """A cross-site post carrying the attacker's own (expired) token must not reach the
    one-more-click page in the victim's browser: the token is not the victim's."""
    from tests.helpers.drivers import Respondent

    attacker, victim = Respondent(app.test_client()), Respondent(app.test_client())
    attacker_controls = attacker.open_form()
    victim.open_form()
    app.config["WTF_CSRF_TIME_LIMIT"] = -1  # the attacker's token is expired
    response = victim.submit(
        {"cheated": "yes", "ai_use": "often", "year": "first"}, device=True, controls=attacker_controls
    )
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and "could not be verified" in html and "sealed" not in html
    assert row_count(db) == 0


def test_the_design_attribute_keeps_its_json_quotes_and_escapes_what_a_single_quote_needs(client):
    """The design key in ``data-design`` is read by randomize.js: the same JSON, with ``"`` kept as is
    (five bytes each as ``&#34;``), and ``'``, ``&``, ``<``, ``>`` escaped so the attribute cannot end early."""
    from web.templating import single_quoted_attribute

    html = client.get("/s/quiz").get_data(as_text=True)
    assert 'data-design=\'{"choices":["yes","no"]' in html and "&#34;" not in html
    assert single_quoted_attribute("""{"a":"x' onclick='y" <&>}""") == ('{"a":"x&#39; onclick=&#39;y" &lt;&amp;&gt;}')


# -- a survey that closes itself once its targets are met -------------------------------------------

#: The quiz with a near-direct design for ``cheated`` (t = 0.9), so that a margin of ±20 points at 95%
#: takes some 40-70 answers, and the switch that closes it then.
SELF_CLOSING_QUIZ = QUIZ_YAML.replace(
    "    label: Have you ever cheated on an exam?\n",
    "    label: Have you ever cheated on an exam?\n    design: {t: 9/10, a: 1/20, b: 1/20}\n",
) + ("targets:\n  - {question: cheated, margin: 0.2}\nclose_when_targets_met: true\n")


def test_a_survey_closes_itself_once_every_target_is_met_and_later_respondents_see_the_closed_page(
    app, surveys_dir, db, auth
):
    (surveys_dir / "quiz.yaml").write_text(SELF_CLOSING_QUIZ)
    late = Respondent(app.test_client())
    late_form = late.open_form()  # opened while the survey is open, sent after it closed
    thanked = 0
    for i in range(400):
        response = Respondent(app.test_client()).submit(
            {"cheated": "yes" if i % 2 else "no", "ai_use": "never", "year": "first"}
        )
        assert response.status_code == 200 and "Thank you" in response.get_data(as_text=True)
        thanked += 1
        if app.test_client().get("/s/quiz").status_code == 410:
            break
    else:
        pytest.fail("the survey never closed itself")
    # The number is random (the server draws from secrets): 2,000 simulated runs of the same design closed
    # after 68-71 answers, far inside this range. Two coins would need several hundred; a fixed sample, 30.
    assert 20 < thanked < 200
    assert queries.response_count(db, "quiz") == thanked  # every thanked answer stored, none after
    with app.app_context():
        survey = survey_in(app)
        (progress,) = target_progress(survey, queries.tallies(db, "quiz"), {})
    assert progress.met and progress.n == thanked
    closed = late.submit({"cheated": "yes", "ai_use": "never", "year": "first"}, controls=late_form)
    assert closed.status_code == 410 and "This survey is closed" in closed.get_data(as_text=True)
    page = app.test_client().get("/s/quiz")
    assert page.status_code == 410 and "This survey is closed" in page.get_data(as_text=True)
    assert queries.response_count(db, "quiz") == thanked
    auth.login()
    dashboard = auth.client.get("/admin/").get_data(as_text=True)
    assert "every target met: closed itself" in dashboard


def test_the_survey_stays_open_while_a_target_is_not_met(app, surveys_dir, db):
    (surveys_dir / "quiz.yaml").write_text(SELF_CLOSING_QUIZ.replace("margin: 0.2", "margin: 0.01"))
    for i in range(30):
        Respondent(app.test_client()).submit({"cheated": "yes" if i % 2 else "no", "ai_use": "never", "year": "first"})
    assert app.test_client().get("/s/quiz").status_code == 200
    assert queries.response_count(db, "quiz") == 30


def test_a_survey_reopened_by_hand_stays_open_with_its_targets_met(app, surveys_dir, db):
    (surveys_dir / "quiz.yaml").write_text(SELF_CLOSING_QUIZ.replace("margin: 0.2", "margin: 0.9"))
    assert (
        Respondent(app.test_client()).submit({"cheated": "yes", "ai_use": "never", "year": "first"}).status_code == 200
    )
    assert app.test_client().get("/s/quiz").status_code == 410  # one answer meets a ±90-point target
    survey_states.set_closed(db, "quiz", False)  # the admin's Open button
    assert (
        Respondent(app.test_client()).submit({"cheated": "no", "ai_use": "never", "year": "first"}).status_code == 200
    )
    assert app.test_client().get("/s/quiz").status_code == 200


#: A lie detector whose groups differ a lot (p = 1/10, 9/10: the prevalence is 1 - 1.25 (lambda_1 - lambda_2)), with a
#: margin of ±40 points: its sequence gets there after some 216 answers in the worst case, 112 at the rates
#: (0.95, 0.55) that half true yeses give (analysis.two_group_sample_size_for_sequence). A margin of 1/2 or more
#: would be met at once: the sequence is clipped to [0, 1].
SELF_CLOSING_LIE_DETECTOR = """\
id: liedetector
title: Lie detector
version: 1
questions:
  - name: evaded
    type: yes_no
    label: I have evaded taxes.
    design: {model: stochastic_lie_detector, p1: 1/10, p2: 9/10}
targets:
  - {question: evaded, margin: 0.4}
close_when_targets_met: true
"""


def test_a_two_group_survey_closes_itself_once_its_prevalence_sequence_is_narrow_enough(app, surveys_dir, db):
    """Answered without JavaScript: the server draws each respondent's group and randomizes; the survey stays open
    while the prevalence's confidence sequence is wider than the margin and closes at the first answer after
    which it is not."""
    (surveys_dir / "liedetector.yaml").write_text(SELF_CLOSING_LIE_DETECTOR)
    survey = survey_in(app, "liedetector")
    thanked = 0
    for i in range(600):
        response = Respondent(app.test_client()).submit({"evaded": "yes" if i % 2 else "no"}, "liedetector")
        assert response.status_code == 200 and "Thank you" in response.get_data(as_text=True)
        thanked += 1
        (progress,) = target_progress(survey, queries.tallies(db, "liedetector"), {})
        is_open = app.test_client().get("/s/liedetector").status_code == 200
        assert is_open is not progress.met, (thanked, progress)
        if not is_open:
            break
    else:
        pytest.fail("the survey never closed itself")
    # How many answers it takes is random (the server's draws come from `secrets`): a fixed range such as
    # 40-400 failed once at 38. What must hold is checked above at every answer: open exactly while unmet.
    assert thanked > 1 and progress.n == thanked == queries.response_count(db, "liedetector")
    _, per_group, ignored = group_counts(survey.question("evaded"), queries.tallies(db, "liedetector")["evaded"])
    assert progress.half_width <= 0.4 and min(per_group) >= 2 and sum(per_group) == thanked and not ignored


def test_a_failed_target_check_still_thanks_the_stored_answer(app, surveys_dir, db, monkeypatch):
    (surveys_dir / "quiz.yaml").write_text(SELF_CLOSING_QUIZ)

    def busy(db, survey):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(gather, "close_if_targets_met", busy)
    response = Respondent(app.test_client()).submit({"cheated": "yes", "ai_use": "never", "year": "first"})
    assert response.status_code == 200 and "Thank you" in response.get_data(as_text=True)
    assert queries.response_count(db, "quiz") == 1


# --------------------------------------------------------------------------
# One-parameter yes/no designs on the form and through the server path.

BINARY_YAML = """\
id: binary
title: Binary designs
version: 1
questions:
  - name: cannabis
    type: yes_no
    label: I used cannabis.
    design: {model: crosswise, q: 1/4, innocuous: "My mother's birthday is in January, February or March."}
  - name: pills
    type: yes_no
    label: I took someone else's pills.
    design: {model: warner, p: 3/4}
"""


@pytest.fixture
def binary_survey(surveys_dir):
    (surveys_dir / "binary.yaml").write_text(BINARY_YAML)
    return "binary"


def test_crosswise_form_shows_both_statements_and_the_paired_options(client, binary_survey):
    html = client.get(f"/s/{binary_survey}").get_data(as_text=True)
    assert "Second statement: “My mother&#39;s birthday is in January, February or March.”" in html
    assert "Both “yes” or both “no”" in html and "Exactly one “yes”" in html
    assert "Your true answer is stored 75% of the time; otherwise its opposite is stored" in html


def test_server_path_stores_a_crosswise_answer_as_given_and_randomizes_warner(app, db, binary_survey, monkeypatch):
    """Crosswise draws nothing (the respondent did the mixing); Warner draws u = 3 of [0, 4): u >= pD with p = 3/4,
    so the negation is answered and a true "yes" is stored as "no"."""
    draws = []

    def fake_randbelow(n):
        draws.append(n)
        return n - 1

    monkeypatch.setattr(protocol.secrets, "randbelow", fake_randbelow)
    for truth in ("no", "yes"):
        respondent = Respondent(app.test_client())  # a second browser: one response per browser
        response = respondent.submit({"cannabis": truth, "pills": "yes"}, survey_id=binary_survey)
        assert response.status_code == 200, response.get_data(as_text=True)
        stored = [json.loads(row["answers"]) for row in stored_rows(db)]
        assert {"cannabis": truth, "pills": "no"} in stored
    assert draws == [4, 4]


# --------------------------------------------------------------------------
# Two-group designs and the direct-question control arm (surveys/arms.py).

GROUPS_YAML = """\
id: groups
title: Two groups
version: 1
direct_share: 1/5
questions:
  - name: evaded
    type: yes_no
    label: I have evaded taxes.
    design: {model: stochastic_lie_detector, p1: 1/3, p2: 2/3}
  - name: region
    type: select_one
    label: Region
    choices: [north, south]
    randomize: false
"""


@pytest.fixture
def groups_survey(surveys_dir):
    (surveys_dir / "groups.yaml").write_text(GROUPS_YAML)
    return "groups"


def key_with(design: dict) -> str:
    return json.dumps(
        {"choices": ["yes", "no"], "design": design, "type": "yes_no"}, sort_keys=True, separators=(",", ":")
    )


SLD_RECORD = {"kind": "stochastic_lie_detector", "p1": "1/3", "p2": "2/3"}


@pytest.mark.parametrize(("drawn", "wire", "stored"), [("2", "2", "yes"), ("direct", "d", "no")])
def test_server_path_draws_the_arm_with_the_form_and_stores_it_with_the_answers(
    app, db, groups_survey, monkeypatch, drawn, wire, stored
):
    """The arm is drawn when the form is shown (so a direct respondent is told before answering), posted back in
    one character, stored in ``responses.arm`` and written into the tally key. Group 2 randomizes: a true "no" with
    u = 0 of [0, 3) is stored "yes" (u < theta0 D = (1 - p2) 3 = 1); the direct arm stores the "no" as given."""
    monkeypatch.setattr("web.answering.draw_arm", lambda group, direct: drawn)
    monkeypatch.setattr(protocol.secrets, "randbelow", lambda n: 0)  # u = 0: below every threshold
    respondent = Respondent(app.test_client())
    html = app.test_client().get(f"/s/{groups_survey}").get_data(as_text=True)
    assert f'name="arm" value="{wire}"' in html
    assert ('id="direct-arm-note" role="status" hidden>' in html) == (drawn != "direct")
    response = respondent.submit({"evaded": "no", "region": "north"}, survey_id=groups_survey)
    assert response.status_code == 200, response.get_data(as_text=True)
    (row,) = stored_rows(db)
    assert row["arm"] == drawn and row["randomized_on"] == "server"
    assert json.loads(row["answers"]) == {"evaded": stored, "region": "north"}
    design = SLD_RECORD | {"group": "2"} if drawn == "2" else {"kind": "direct"}
    assert queries.tallies(db, groups_survey)["evaded"] == {key_with(design): {stored: 1}}


def test_device_path_stores_the_posted_arm_and_draws_nothing_on_the_server(app, db, groups_survey, monkeypatch):
    respondent = Respondent(app.test_client())
    controls = respondent.open_form(groups_survey) | {"arm": "1"}
    monkeypatch.setattr(protocol.secrets, "randbelow", lambda n: pytest.fail("the server drew for a device answer"))
    response = respondent.submit({"evaded": "yes", "region": "south"}, groups_survey, device=True, controls=controls)
    assert response.status_code == 200, response.get_data(as_text=True)
    (row,) = stored_rows(db)
    assert (row["arm"], row["randomized_on"]) == ("1", "device")
    assert queries.tallies(db, groups_survey)["evaded"] == {key_with(SLD_RECORD | {"group": "1"}): {"yes": 1}}


@pytest.mark.parametrize("arm", ["n", "x", "direct", None])
def test_an_arm_the_survey_does_not_have_is_refused_and_nothing_stored(app, db, groups_survey, arm):
    respondent = Respondent(app.test_client())
    controls = {k: v for k, v in respondent.open_form(groups_survey).items() if k != "arm"}
    controls |= {} if arm is None else {"arm": arm}
    response = respondent.submit({"evaded": "yes", "region": "south"}, groups_survey, controls=controls)
    assert response.status_code == 400
    assert "group is not one this survey has" in response.get_data(as_text=True)
    assert row_count(db) == 0


def test_the_form_explains_the_lie_detector_and_says_it_has_no_epsilon_guarantee(client, groups_survey):
    html = client.get(f"/s/{groups_survey}").get_data(as_text=True)
    assert "You are put at random in one of two groups. If your true answer is yes, “yes” is stored." in html
    assert "no epsilon guarantee: one answer fully reveals" in html
    assert "About 20% of respondents, chosen at random, are asked the same questions" in html


def test_the_direct_arm_asks_yes_no_directly_but_randomizes_a_number_and_the_form_says_so(
    app, db, surveys_dir, monkeypatch
):
    """In the direct-question arm the yes/no answer is stored as given, while the number is randomized as in any
    arm (one bit: 0 or 1, never the true position 20) and tallied under the key of the other arm; the form's
    summary and its note to a direct respondent say that numbers stay randomized."""
    (surveys_dir / "direct-numbers.yaml").write_text(DIRECT_NUMBERS_YAML)
    monkeypatch.setattr("web.answering.draw_arm", lambda group, direct: "direct")
    html = app.test_client().get("/s/direct-numbers").get_data(as_text=True)
    assert 'id="direct-arm-note" role="status"       >' in html
    assert "<strong>nothing is randomized</strong> except the numbers" in html
    assert "for them nothing is randomized except the numbers" in html
    response = Respondent(app.test_client()).submit({"cheated": "yes", "drinks": "20"}, survey_id="direct-numbers")
    assert response.status_code == 200, response.get_data(as_text=True)
    (row,) = stored_rows(db)
    answers = json.loads(row["answers"])
    assert row["arm"] == "direct" and answers["cheated"] == "yes" and answers["drinks"] in ("0", "1")
    survey = make_survey(DIRECT_NUMBERS_YAML)
    assert list(queries.tallies(db, "direct-numbers")["drinks"]) == [question_design_key(survey.question("drinks"))]


def test_server_path_draws_a_matrix_answer_from_the_true_options_column(app, db, surveys_dir, monkeypatch):
    """Column "never" of [[3/4, 1/3], [1/4, 2/3]] with u = 3 of [0, 4): 3 is not below 3/4 D = 3, so the second
    option is stored; the form explains the design."""
    (surveys_dir / "matrix.yaml").write_text(
        QUIZ_YAML.replace("id: quiz", "id: matrix")
        .replace("    choices: [never, once, sometimes, often]\n    design: {t: 1/2}\n", "")
        .replace(
            "    label: How often have you used AI-written text as your own?\n",
            "    label: How often have you used AI-written text as your own?\n    choices: [never, often]\n"
            "    design: {matrix: [[3/4, 1/3], [1/4, 2/3]]}\n",
        )
    )
    html = app.test_client().get("/s/matrix").get_data(as_text=True)
    assert "Your true answer is stored with a chance that depends on it (75%, 66.7% for the options in order)" in html
    monkeypatch.setattr(protocol.secrets, "randbelow", lambda n: n - 1)
    response = Respondent(app.test_client()).submit({"cheated": "no", "ai_use": "never", "year": "first"}, "matrix")
    assert response.status_code == 200, response.get_data(as_text=True)
    (row,) = stored_rows(db)
    assert json.loads(row["answers"])["ai_use"] == "often"


# -- skip logic ------------------------------------------------------------------------------------------------


@pytest.fixture
def skip_quiz(surveys_dir):
    (surveys_dir / "quiz.yaml").write_text(SKIP_YAML)


SKIPPING = {**ANSWERS, "year": "second", "first_exam": "yes", "residence": "campus", "campus_help": "yes"}


@pytest.mark.parametrize("device", [False, True])
def test_an_answer_to_a_question_not_asked_is_ignored_not_stored(skip_quiz, respondent, db, device):
    response = respondent.submit(SKIPPING, device=device)
    assert response.status_code == 200, response.get_data(as_text=True)
    (row,) = stored_rows(db)
    stored = json.loads(row["answers"])
    assert set(stored) == {"cheated", "lied", "ai_use", "year"}


@pytest.mark.parametrize("device", [False, True])
def test_questions_asked_by_their_condition_are_stored(skip_quiz, respondent, db, device):
    response = respondent.submit({**SKIPPING, "year": "first"}, device=device)
    assert response.status_code == 200, response.get_data(as_text=True)
    stored = json.loads(stored_rows(db)[0]["answers"])
    assert {"first_exam", "residence", "campus_help"} <= set(stored) and stored["residence"] == "campus"


def test_a_required_question_asked_but_left_blank_is_refused_by_its_question(skip_quiz, respondent, db):
    answers = {k: v for k, v in SKIPPING.items() if k != "campus_help"}
    response = respondent.submit({**answers, "year": "first"})
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    field = re.search(r'<fieldset[^>]*data-question="campus_help".*?</fieldset>', html, re.S).group(0)
    assert "applies to you given your earlier answers" in field
    assert row_count(db) == 0


def test_a_question_with_a_condition_says_when_it_is_asked_and_posts_blank_by_default(skip_quiz, client):
    html = client.get("/s/quiz").get_data(as_text=True)
    field = re.search(r'<fieldset[^>]*data-question="campus_help".*?</fieldset>', html, re.S).group(0)
    assert """data-relevant='["=", "residence", "campus"]'""" in field
    assert "Only if “Where do you live?” is “On campus”." in field
    assert re.search(r'value="   "\s+checked', field) and " required" not in field


def test_optional_questions_are_marked_and_the_required_marker_is_explained(client):
    html = client.get("/s/quiz").get_data(as_text=True)
    legends = dict(re.findall(r'data-question="([^"]+)".*?<legend>(.*?)</legend>', html, re.S))
    assert "(optional)" in legends["lied"] and "(optional)" not in legends["cheated"]
    assert '<span class="req"' in legends["cheated"]
    assert "marks a question that needs an answer" in text_of(html)


# -- languages -------------------------------------------------------------------------------------------------


@pytest.fixture
def bilingual(surveys_dir):
    text = (__import__("app").ROOT / "survey_files" / "campus-life.yaml").read_text()
    (surveys_dir / "campus-life.yaml").write_text(text)


@pytest.mark.parametrize(
    ("query", "accept", "title"),
    [
        ("", "fr-CA,fr;q=0.9,en;q=0.5", "Enquête sur la vie étudiante"),
        ("", "de", "Campus life survey"),  # no French or English preferred: the file's first language
        ("?lang=en", "fr", "Campus life survey"),  # the chooser beats the browser
        ("?lang=fr", "", "Enquête sur la vie étudiante"),
    ],
)
def test_the_language_is_the_chosen_one_else_the_browsers_else_the_first(bilingual, client, query, accept, title):
    html = client.get(f"/s/campus-life{query}", headers={"Accept-Language": accept}).get_data(as_text=True)
    assert f"<h1>{title}</h1>" in html
    assert 'href="/s/campus-life?lang=fr"' in html and 'href="/s/campus-life?lang=en"' in html  # the chooser
    language = "fr" if "Enquête" in title else "en"
    assert f'action="/s/campus-life?lang={language}"' in html  # the next page stays in it


def test_stored_answers_do_not_depend_on_the_language(bilingual, client, db):
    import re as regex

    def answer(language: str) -> None:
        page = client.get(f"/s/campus-life?lang={language}").get_data(as_text=True)
        fields = {
            "csrf_token": regex.search(r'name="csrf_token" value="([^"]+)"', page).group(1),
            "submission_key": f"language-test-{language}-0000000",
            "carried": regex.search(r'name="carried" value="([^"]+)"', page).group(1),
            "go": "next",
            "randomized_on": "device",
            "rr-year": "first",
            "rr-housing": "campus   ",
        }
        page2 = client.post(f"/s/campus-life?lang={language}", data=fields).get_data(as_text=True)
        fields["carried"] = regex.search(r'name="carried" value="([^"]+)"', page2).group(1)
        fields.update({"rr-cheated": "yes", "rr-housemate_theft": "no ", "rr-birth_half": "yes"})
        del fields["rr-year"], fields["rr-housing"]
        thanks = client.post(f"/s/campus-life?lang={language}", data=fields)
        assert thanks.status_code == 200, thanks.get_data(as_text=True)
        client.delete_cookie("rr_done_campus-life", path="/s/campus-life")

    answer("en")
    answer("fr")
    rows = list(db.query("SELECT answers, design_id FROM responses"))
    assert len(rows) == 2 and rows[0] == rows[1]
    assert json.loads(rows[0]["answers"]) == {
        "year": "first",
        "housing": "campus",
        "cheated": "yes",
        "housemate_theft": "no",
        "birth_half": "yes",
    }


def test_the_confirm_page_after_an_expired_form_keeps_the_language(bilingual, app, client):
    app.config["WTF_CSRF_TIME_LIMIT"] = -1  # every token expired at once
    page = client.get("/s/campus-life?lang=fr").get_data(as_text=True)
    fields = {
        "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', page).group(1),
        "submission_key": "language-confirm-000000000",
        "carried": re.search(r'name="carried" value="([^"]+)"', page).group(1),
        "go": "next",
        "randomized_on": "device",
        "rr-year": "first",
        "rr-housing": "elsewhere",
    }
    page2 = client.post("/s/campus-life?lang=fr", data=fields).get_data(as_text=True)
    fields["carried"] = re.search(r'name="carried" value="([^"]+)"', page2).group(1)
    fields.update({"rr-cheated": "yes", "rr-housemate_theft": "   ", "rr-birth_half": "no "})
    del fields["rr-year"], fields["rr-housing"]
    confirm = client.post("/s/campus-life?lang=fr", data=fields)
    assert confirm.status_code == 400 and 'action="/s/campus-life?lang=fr"' in confirm.get_data(as_text=True)


# --------------------------------------------------------------------------
# The privacy wording, from what each question's design does (issue 23, points 6 to 8).

#: Issue 23's new survey: a crosswise question (nothing drawn), one two-coin question and two plain ones.
CROSSWISE_MIX_YAML = """\
id: mix
title: Crosswise survey
version: 1
intro: Four questions.
questions:
  - name: cannabis
    type: yes_no
    label: I have used cannabis in the past 12 months.
    design: {model: crosswise, q: 1/4, innocuous: "My mother's birthday is in January, February or March."}
  - name: copied
    type: yes_no
    label: Have you copied homework?
  - name: year
    type: select_one
    label: Year of study
    choices: [first, second]
    randomize: false
  - name: faculty
    type: select_one
    label: Faculty
    choices: [arts, science]
    randomize: false
"""
#: The same without the two-coin question: nothing is drawn anywhere, so no coins.
CROSSWISE_ONLY_YAML = CROSSWISE_MIX_YAML.replace("id: mix", "id: crossonly").replace(
    "  - name: copied\n    type: yes_no\n    label: Have you copied homework?\n", ""
)
#: Two pages: the plain questions first, then the crosswise and the two-coin ones.
_MIX_QUESTIONS = CROSSWISE_MIX_YAML.split("questions:\n")[1]
_PROTECTED, _PLAIN = _MIX_QUESTIONS.split("  - name: year\n")
PLAIN_PAGE_FIRST_YAML = (
    "id: plainfirst\ntitle: Plain page first\nversion: 1\nintro: Two pages.\nquestions:\n"
    + "  - name: year\n"
    + _PLAIN
    + "  - type: page_break\n"
    + _PROTECTED
)
NEW_SURVEYS = {"mix": CROSSWISE_MIX_YAML, "crossonly": CROSSWISE_ONLY_YAML, "plainfirst": PLAIN_PAGE_FIRST_YAML}

#: The summary's first line, by how many answers are drawn and whether some stored answer proves something.
DRAWN_LINES = {
    ("all", False): "Your answers are randomized before they are stored: sometimes a random answer is stored instead "
    "of yours, so no stored answer proves what you said.",
    ("all", True): "Your answers are randomized before they are stored: sometimes a random answer is stored instead "
    "of yours.",
    ("one", False): "One of your %(total)s answers is randomized before it is stored: sometimes a random answer is "
    "stored instead of yours, so no stored answer proves what you said.",
    ("one", True): "One of your %(total)s answers is randomized before it is stored: sometimes a random answer is "
    "stored instead of yours.",
    ("some", False): "%(randomized)s of your %(total)s answers are randomized before they are stored: sometimes a "
    "random answer is stored instead of yours, so no stored answer proves what you said.",
    ("some", True): "%(randomized)s of your %(total)s answers are randomized before they are stored: sometimes a "
    "random answer is stored instead of yours.",
}
#: "No stored answer proves what you said", as each catalogue words it.
#: The same when a drawn answer is a number or a check-all-that-apply question (noise added, or bit by bit).
DRAWN_HOW_LINES = {
    ("all", False): "Your answers are randomized before they are stored (each question says how), so no stored "
    "answer proves what you said.",
    ("all", True): "Your answers are randomized before they are stored (each question says how).",
    ("one", False): "One of your %(total)s answers is randomized before it is stored (the question says how), so no "
    "stored answer proves what you said.",
    ("one", True): "One of your %(total)s answers is randomized before it is stored (the question says how).",
    ("some", False): "%(randomized)s of your %(total)s answers are randomized before they are stored (each question "
    "says how), so no stored answer proves what you said.",
    ("some", True): "%(randomized)s of your %(total)s answers are randomized before they are stored (each question "
    "says how).",
}
NO_PROOF = {
    "en": "no stored answer proves what you said",
    "fr": "aucune réponse enregistrée ne prouve ce que vous avez dit",
    "es": "ninguna respuesta guardada prueba lo que usted dijo",
}
COIN_WORDS = {"en": "coin", "fr": "pièce", "es": "moneda"}
COINS_ON_DEVICE = "The coins are flipped on your device: your true answers to the randomized questions never leave it."
TRUTHFULLY = {
    "coins": "Please answer truthfully: the coins protect you.",
    "other": "Please answer truthfully: the random draws protect you.",
}
PAGE_NOTE_ALL = "Your answers will be randomized on this device before they are sent."
PAGE_NOTE_SOME = (
    "Your answers to the randomized questions on this page will be randomized on this device before they are sent; "
    "the others are sent as you give them."
)
#: What a stored yes/no answer with an infinite likelihood ratio proves, by (stored, true answer).
PROOFS = {
    ("no", "no"): "a stored “no” proves that your true answer is no.",
    ("yes", "yes"): "a stored “yes” proves that your true answer is yes.",
    ("yes", "no"): "a stored “yes” proves that your true answer is no.",
    ("no", "yes"): "a stored “no” proves that your true answer is yes.",
}
#: A paired design's proofs (the stored answer is a choice of the pair, such as "“No” to both").
PAIRED_PROOFS = {
    "no": "the answer %(stored)s proves that your true answer to the first statement is no.",
    "yes": "the answer %(stored)s proves that your true answer to the first statement is yes.",
}
DEVICE_ONLY = re.compile(r'<(span|p)\b[^>]*data-mode="device"[^>]*>.*?</\1>', re.S)
SERVER_ONLY = re.compile(r'<(span|p)\b[^>]*data-mode="server"[^>]*>.*?</\1>', re.S)
SHOWN_QUESTION = re.compile(r'<fieldset class="question[^"]*" data-question="([^"]+)" data-type=')


@functools.cache
def catalogue(language: str) -> dict[str, str]:
    """``{msgid: msgstr}`` of the catalogue of ``language`` (``translations/``)."""
    with (ROOT / "translations" / language / "LC_MESSAGES" / "messages.po").open("rb") as file:
        return {m.id: m.string for m in read_po(file) if m.id}


def translate(msgid: str, language: str) -> str:
    """``msgid`` as the catalogue of ``language`` words it (English: itself), its white space (French's no-break
    spaces included) collapsed as :func:`text_of` collapses the page's."""
    return " ".join((msgid if language == "en" else catalogue(language)[msgid]).split())


def as_seen(html: str, javascript: bool) -> str:
    """The page's text as a browser shows it with JavaScript on (the device wording) or off (the server's)."""
    return html_module.unescape(text_of((SERVER_ONLY if javascript else DEVICE_ONLY).sub(" ", html)))


def is_drawn(q) -> bool:
    """Whether a randomizer draws the stored answer: a design that analysis/ says software randomizes."""
    return q.design is not None and getattr(q.design, "randomized_by_software", True)


def has_infinite_epsilon(q) -> bool:
    return q.design is not None and math.isinf(q.design.epsilon)


def yes_no_proofs(design) -> list[tuple[str, str]]:
    """(stored, true) pairs whose likelihood ratio is infinite, from analysis/'s theta1 and theta0 (a two-group
    design's rates with nobody cheating, in each group)."""
    if hasattr(design, "rates"):
        honest = 0.0 if design.kind == "cheater_detection" else 1.0
        thetas = list(zip(design.rates(1.0, honest), design.rates(0.0, 0.0)))
    else:
        thetas = [tuple(float(p) for p in design.yes_probabilities())]
    found = []
    for theta1, theta0 in thetas:
        for stored, given_yes, given_no in (("yes", theta1, theta0), ("no", 1 - theta1, 1 - theta0)):
            if (given_yes == 0) != (given_no == 0):
                found.append((stored, "yes" if given_yes else "no"))
    return found


def check_summary(html: str, questions, language: str) -> None:
    """The summary and details of a form page against the designs of ``questions``, JavaScript on and off."""
    drawn = [q for q in questions if is_drawn(q)]
    revealing = [q for q in questions if has_infinite_epsilon(q)]
    protecting = [q for q in drawn if q not in revealing]
    count = "all" if len(drawn) == len(questions) else "one" if len(drawn) == 1 else "some"
    numbers = {"randomized": len(drawn), "total": len(questions)}
    noisy = any(q.type in ("integer", "decimal", "select_multiple") for q in drawn)
    lines = {
        key: translate(text, language) % numbers for key, text in (DRAWN_HOW_LINES if noisy else DRAWN_LINES).items()
    }
    coins = any(q.design == TWO_COIN for q in questions)
    summary, details = summary_and_details(html)
    for javascript in (True, False):
        said, explained, page = (as_seen(part, javascript) for part in (summary, details, html))
        assert [key for key, line in lines.items() if line in said] == ([(count, bool(revealing))] if drawn else [])
        assert (NO_PROOF[language] in page) == bool(drawn and not revealing)
        for q in revealing:
            assert q.type == "yes_no", "extend the test to this design"
            for stored, truth in yes_no_proofs(q.design):
                if is_drawn(q):
                    proof = translate(PROOFS[(stored, truth)], language)
                else:  # a paired design (triangular): the stored answer is one of the pair's choices
                    label = q.choices[q.choice_names.index(stored)].label  # the product's words for the pair
                    label = label if language == "en" else catalogue(language)[label]
                    proof = " ".join((translate(PAIRED_PROOFS[truth], language) % {"stored": label}).split())
                assert proof in said and proof in explained and q.label in said
        assert (COIN_WORDS[language] in page.lower()) == coins
        on_device = translate(COINS_ON_DEVICE, language) in page
        assert on_device == (javascript and bool(drawn) and all(q.design == TWO_COIN for q in drawn))
        truthfully = {key: translate(text, language) in said for key, text in TRUTHFULLY.items()}
        all_coins = bool(protecting) and all(q.design == TWO_COIN for q in protecting)
        assert truthfully == {"coins": all_coins, "other": bool(protecting) and not all_coins}


def check_page_note(html: str, survey, language: str) -> None:
    """The note under a page's questions with JavaScript on: only where a shown question is drawn."""
    shown = [survey.question(name) for name in SHOWN_QUESTION.findall(html)]
    drawn = [q for q in shown if is_drawn(q)]
    notes = {note: translate(note, language) in as_seen(html, True) for note in (PAGE_NOTE_ALL, PAGE_NOTE_SOME)}
    assert notes == {PAGE_NOTE_ALL: len(drawn) == len(shown), PAGE_NOTE_SOME: 0 < len(drawn) < len(shown)}
    assert not any(translate(note, language) in as_seen(html, False) for note in notes)


def walked_pages(client, survey, query: str) -> list[str]:
    """The form's first page and, for a survey of several, every second page that some first-page answers reach."""
    first = client.get(f"/s/{survey.id}{query}").get_data(as_text=True)
    if not survey.pages:
        return [first]
    asked = [survey.question(name) for name in survey.pages[0]]
    later = []
    for choices in itertools.product(*(q.choice_names for q in asked)):
        answers = dict(zip((q.name for q in asked), choices))
        later.append(post_page(client, survey, first, answers, query=query).get_data(as_text=True))
    return [first, *later]


SHIPPED_IDS = sorted(path.stem for path in (ROOT / "survey_files").glob("*.yaml"))


@pytest.mark.parametrize("language", ["en", "fr", "es"])
@pytest.mark.parametrize("survey_id", [*SHIPPED_IDS, *NEW_SURVEYS])
def test_every_privacy_sentence_is_true_of_the_designs_in_every_language(app, client, surveys_dir, survey_id, language):
    """Every shipped survey and issue 23's new ones, JavaScript on and off, each interface language: the count of
    randomized answers, "no stored answer proves", what a revealing answer proves, coins, the device sentence,
    "please answer truthfully" and the note under each page, each against the designs' own properties."""
    if survey_id in NEW_SURVEYS:
        (surveys_dir / f"{survey_id}.yaml").write_text(NEW_SURVEYS[survey_id])
    else:
        app.config["SURVEYS_DIR"] = str(ROOT / "survey_files")
    survey = load_survey_file(
        (surveys_dir if survey_id in NEW_SURVEYS else ROOT / "survey_files") / f"{survey_id}.yaml"
    )
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = language
    query = f"?lang={language}" if language in survey.languages else ""
    interface = "en" if survey.languages and language not in survey.languages else language
    survey = survey.in_language(language)
    pages = walked_pages(client, survey, query)
    check_summary(pages[0], survey.questions, interface)
    for html in pages:
        check_page_note(html, survey, interface)


def test_a_crosswise_question_is_not_counted_as_randomized_and_no_coins_are_named_without_coins(client, surveys_dir):
    """Issue 23, point 6: "2 of your 4 answers are randomized ... The coins are flipped on your device" counted
    the crosswise question; "Please answer truthfully: the coins protect you" stood where no question has coins."""
    (surveys_dir / "mix.yaml").write_text(CROSSWISE_MIX_YAML)
    (surveys_dir / "crossonly.yaml").write_text(CROSSWISE_ONLY_YAML)
    mix = as_seen(summary_and_details(client.get("/s/mix").get_data(as_text=True))[0], True)
    assert "2 of your 4 answers" not in mix and "One of your 4 answers is randomized" in mix
    assert "“I have used cannabis in the past 12 months.”: nothing is randomized there" in mix
    alone = client.get("/s/crossonly").get_data(as_text=True)
    assert "randomized before" not in as_seen(alone, True) and "coin" not in as_seen(alone, True).lower()
    assert "Please answer truthfully" not in as_seen(alone, False)


def test_no_device_randomization_note_under_a_page_of_plain_questions(client, surveys_dir):
    """Issue 23, point 7: "Your answers will be randomized on this device before they are sent" stood under a page
    whose questions are all plain (and under a form whose only protected question is crosswise)."""
    (surveys_dir / "plainfirst.yaml").write_text(PLAIN_PAGE_FIRST_YAML)
    (surveys_dir / "crossonly.yaml").write_text(CROSSWISE_ONLY_YAML)
    for survey_id in ("plainfirst", "crossonly"):
        html = client.get(f"/s/{survey_id}").get_data(as_text=True)
        assert "randomized on this device" not in as_seen(html, True), survey_id


def test_the_lie_detector_is_never_summarised_as_protecting_every_answer(app, client):
    """Issue 23, point 8: a stored "no" of the stochastic lie detector proves a true "no", so neither the summary,
    the details nor the start page may say that no stored answer proves anything; all three say what it proves."""
    app.config["SURVEYS_DIR"] = str(ROOT / "survey_files")
    summary, details = summary_and_details(client.get("/s/tax-honesty-lie-detector").get_data(as_text=True))
    proof = "a stored “no” proves that your true answer is no"
    for javascript in (True, False):
        said = as_seen(summary, javascript)
        assert "no stored answer proves" not in said and proof in said, said
        assert "no stored answer proves" not in as_seen(details, javascript) and proof in as_seen(details, javascript)
    start = text_of(client.get("/").get_data(as_text=True))
    assert "no stored answer" not in start and "proves anything" not in start
    assert (
        "Tax honesty survey (1 of 2 answers randomized; some stored answers reveal something about the true one)"
        in (start)
    )


def test_a_plain_number_is_named_as_not_protected(app, client):
    """A plain number (stored as given, like a plain choice) is listed under "Not protected" before the first
    question; the randomized number and check-all-that-apply question are not."""
    app.config["SURVEYS_DIR"] = str(ROOT / "survey_files")
    page = client.get("/s/student-habits").get_data(as_text=True)
    warning = re.search(r'<li class="warning"><strong>Not protected:</strong>(.*?)</li>', page, re.S).group(1)
    assert "“Your age”" in warning and "is stored exactly as you answer" in warning
    assert "drink" not in warning and "Which of these" not in warning
