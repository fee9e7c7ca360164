"""The results page's planning when a share always answers "no" (surveys/noncompliance_planning.py)."""

import pytest

pytestmark = pytest.mark.sqlite_only(reason="the planning figures come from the survey file alone, no stored count")

from analysis import noncompliance_plan, sample_size_for_half_width  # noqa: E402
from surveys.noncompliance import bias_text, yes_probabilities  # noqa: E402
from surveys.noncompliance_planning import noncompliance_planning  # noqa: E402
from tests.helpers.records import add_responses, many  # noqa: E402
from tests.helpers.sample_surveys import QUIZ_YAML, TWO_GROUP_YAML, make_survey, survey_in  # noqa: E402


def test_each_yes_no_question_gets_the_analysis_modules_figures_at_the_share():
    survey = make_survey(QUIZ_YAML)
    planning = noncompliance_planning(survey, 0.1, 0.05, 0.95)
    assert [row.question.name for row in planning.questions] == ["cheated", "lied"]  # not the choice question
    for row in planning.questions:
        thetas = yes_probabilities(row.question)
        assert row.plan == noncompliance_plan(*thetas, 0.1, 0.05, 0.95)
        assert row.compliant_n == sample_size_for_half_width(0.05, 0.95, *row.question.design.exact())
        assert row.bias_text == bias_text(row.plan)


def test_a_two_group_design_gets_no_figures_and_a_share_of_0_none_at_all():
    planning = noncompliance_planning(make_survey(TWO_GROUP_YAML), 0.2, 0.05, 0.95)
    assert [(row.question.name, row.plan, row.bias_text) for row in planning.questions] == [
        ("evaded", None, None),
        ("doped", None, None),
    ]
    assert all(row.compliant_n > 0 for row in planning.questions)
    assert noncompliance_planning(make_survey(QUIZ_YAML), 0.0, 0.05, 0.95) is None


def test_the_results_page_shows_each_questions_bias_and_answers_at_the_share(app, auth):
    add_responses(app, many(30, 20))
    auth.login()
    response = auth.client.get("/admin/surveys/quiz", query_string={"noncompliance": "10", "half_width": "5"})
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    for question in survey_in(app).randomized_questions[:2]:
        plan = noncompliance_plan(*yes_probabilities(question), 0.1, 0.05, 0.95)
        row = html.split(f'<tr id="noncompliance-{question.name}">')[1].split("</tr>")[0]
        assert f'<td class="noncompliance-bias">{bias_text(plan)}</td>' in row
        assert f'<td class="noncompliance-needed">{plan.needed_n:,}</td>' in row
    assert "If 10% of respondents always answer “no”" in html
    assert "those who do not comply always answer “no”, whatever the coins say" in html
    assert 'name="noncompliance" value="10"' in html


def test_the_worked_example_two_coins_at_10_percent(app, auth):
    """docs/researchers.md: two coins (theta1 = 3/4, theta0 = 1/4) at 10%: −5 to −15 points, 1,537 answers."""
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?noncompliance=10").get_data(as_text=True)
    row = html.split('<tr id="noncompliance-cheated">')[1].split("</tr>")[0]
    assert '<td class="noncompliance-bias">−5.0 to −15.0 points</td>' in row
    assert '<td class="noncompliance-needed">1,537</td>' in row


@pytest.mark.parametrize("typed", ["100", "-5", "ten", "1e1"])
def test_a_bad_share_is_shown_beside_its_field_and_the_default_used(app, auth, typed):
    auth.login()
    response = auth.client.get("/admin/surveys/quiz", query_string={"noncompliance": typed})
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "<h2>Estimates</h2>" in html and '<h2 id="planning">Planning</h2>' in html
    assert (
        '<span class="error field-error" id="error-noncompliance" role="alert">'
        "The share who always answer “no” must be a percentage from 0 to 99" in html
    )
    assert f"got “{typed}”" in html and f'name="noncompliance" value="{typed}"' in html  # kept in the field
    assert "noncompliance-bias" not in html  # the default, 0: no columns


@pytest.mark.parametrize("query", ["", "?noncompliance=", "?noncompliance=0"])
def test_a_share_of_0_shows_no_extra_columns(app, auth, query):
    auth.login()
    response = auth.client.get(f"/admin/surveys/quiz{query}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and '<h2 id="planning">Planning</h2>' in html
    assert 'name="noncompliance"' in html
    assert (
        "noncompliance-plan" not in html and "noncompliance-bias" not in html and "whatever the coins say," not in html
    )
