"""The results page's "How well does the design fit?" section (templates/admin/_design_fit.html), from stored
answers: the careless share of an anchor and the corrected share beside the uncorrected one."""

import pytest

from storage import responses
from surveys.submission import noisy_response
from tests.helpers.records import add_responses, campus_life_answers
from tests.helpers.sample_surveys import ANCHORED_YAML, survey_in
from web.db import open_database

pytestmark = pytest.mark.both_backends


@pytest.fixture
def anchored(surveys_dir):
    (surveys_dir / "anchored.yaml").write_text(ANCHORED_YAML)
    return surveys_dir


def _store(app, counts):
    survey = survey_in(app, "anchored")
    db = open_database(app)
    for (half, cheated), count in counts.items():
        for i in range(count):
            answers = {"half": half, "cheated": cheated}
            responses.store_response(
                db, noisy_response(survey, answers, "device"), f"fit-{half}-{cheated}-{i}", "2026-11-20"
            )
    db.close()


def test_the_page_shows_the_careless_share_and_the_corrected_share(anchored, app, auth):
    """40 of 100 stored yes to the anchor read 0.30 through two coins: 40% careless; "cheated" (34 of 100,
    reading 0.18) is corrected to 30.0%, shown beside its uncorrected 18.0%, with the assumption."""
    _store(app, {("yes", "yes"): 34, ("yes", "no"): 6, ("no", "no"): 60})
    auth.login()
    page = auth.client.get("/admin/surveys/anchored").get_data(as_text=True)
    assert "How well does the design fit?" in page
    assert "among those who answer “no” whatever the truth" in page and "40.0%" in page
    row = page[page.index('<table id="careless-corrected">') :]
    row = row[: row.index("</table>")]
    assert "Did you cheat?" in row and "18.0%" in row and "30.0%" in row
    assert "careless answering is the same on every question" in page


def test_a_survey_without_checks_shows_no_section(app, auth):
    auth.login()
    assert "How well does the design fit?" not in auth.client.get("/admin/surveys/quiz").get_data(as_text=True)


def test_the_json_export_gives_the_share_and_the_corrected_rows(anchored, app, auth):
    _store(app, {("yes", "yes"): 34, ("yes", "no"): 6, ("no", "no"): 60})
    auth.login()
    body = auth.client.get("/admin/surveys/anchored/design_fit.json?level=0.9").get_json()
    careless = body["careless"]
    assert careless["anchor"] == "half" and careless["known_prevalence"] == 0.5
    assert careless["careless_share"]["estimate"] == pytest.approx(0.4)
    assert careless["careless_share"]["confidence_level"] == 0.9
    (row,) = careless["corrected"]
    assert row["question"] == "cheated" and row["corrected"] == pytest.approx(0.3)
    assert row["uncorrected"] == pytest.approx(0.18) and body["two_group"] == []
    assert "same on every question" in careless["assumption"]


def test_the_json_export_refuses_a_bad_level(anchored, app, auth):
    auth.login()
    response = auth.client.get("/admin/surveys/anchored/design_fit.json?level=2")
    assert response.status_code == 400


def test_the_cli_writes_the_design_fit_json(anchored, app, runner, tmp_path):
    import json

    _store(app, {("yes", "yes"): 34, ("yes", "no"): 6, ("no", "no"): 60})
    out = tmp_path / "fit.json"
    result = runner.invoke(args=["export", "design-fit", "anchored", "--level", "0.9", "-o", str(out)])
    assert result.exit_code == 0, result.output
    careless = json.loads(out.read_text())["careless"]
    assert careless["careless_share"]["estimate"] == pytest.approx(0.4)
    assert careless["corrected"][0]["corrected"] == pytest.approx(0.3)


def test_the_shipped_campus_life_survey_measures_careless_answering_with_its_birthday_anchor(app, auth):
    """survey_files/campus-life.yaml's anchor (birth_half, known share 0.496, two coins): the careless share it
    gives is the one computed by hand, and both other yes/no questions are corrected for it."""
    from app import ROOT

    app.config["SURVEYS_DIR"] = str(ROOT / "survey_files")
    answers = campus_life_answers()
    add_responses(app, answers, survey_id="campus-life")
    auth.login()
    page = auth.client.get("/admin/surveys/campus-life").get_data(as_text=True)
    estimate = ([a["birth_half"] for a in answers].count("yes") / len(answers) - 0.25) / 0.5
    careless = (0.496 - estimate) / 0.496
    assert "“Is your birthday in the first half of the year, January to June?” is truly yes for 49.6% of people" in page
    assert f"its estimate puts {careless * 100:.1f}% of respondents" in page
    table = page[page.index('<table id="careless-corrected">') :]
    table = table[: table.index("</table>")]
    assert "Have you ever cheated on an exam?" in table
    assert "Have you ever taken something from a housemate without asking?" in table
