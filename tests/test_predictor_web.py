"""The results page's panel "A randomized answer as a predictor" (web/predictor_data.py, _predictor.html)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.both_backends


def _expected(app, predictor, outcome):
    """The domain's fit from the kept group tallies, read apart from the page."""
    from storage import queries
    from surveys.files import load_catalog
    from surveys.predictor_model import PredictorChoice, fit_predictor_model
    from web.db import open_database

    survey = load_catalog(app.config["SURVEYS_DIR"]).get("quiz")
    db = open_database(app)
    grouped = queries.group_tallies(db, "quiz", outcome)
    db.close()
    return fit_predictor_model(survey, PredictorChoice(predictor, outcome), grouped)


def test_the_panel_fits_the_chosen_pair_from_the_kept_group_tallies(app, auth):
    from surveys import wording
    from surveys.predictor_model import ASSUMPTIONS
    from tests.helpers.records import add_responses, model_answers

    add_responses(app, model_answers())
    auth.login()
    page = auth.client.get("/admin/surveys/quiz?predictor=cheated&predictor_outcome=year")
    html = page.get_data(as_text=True)
    assert page.status_code == 200, html[-2000:]
    expected = _expected(app, "cheated", "year")
    fit = expected.fit
    assert fit is not None and fit.n == 400 and fit.outcomes == ("first", "second", "third")
    assert 'id="predictor-model"' in html and ASSUMPTIONS in html
    for eq in fit.equations:
        effect = eq.effect
        sentence = (
            f"Those with a true yes have {wording.ratio_text(effect.odds_ratio)} times the odds of answering "
            f"“{expected.label(eq.outcome)}” rather than “first” (95% interval "
        )
        assert sentence in html
        assert f"{wording.ratio_text(effect.odds_ratio_low)} – {wording.ratio_text(effect.odds_ratio_high)}" in html
        assert f"{effect.std_err:.3f}" in html
    assert "fourth" in html and "no one answered fourth" in html  # the level no one gave, said


def test_the_panel_without_a_choice_offers_the_questions(app, auth):
    auth.login()
    html = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    assert '<h2 id="predictor">' in html and 'name="predictor"' in html and 'value="lied"' in html
    assert 'id="predictor-model"' not in html


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("predictor=nope&predictor_outcome=year", "The randomized answer must be a yes/no question"),
        ("predictor=ai_use&predictor_outcome=year", "The randomized answer must be a yes/no question"),
        ("predictor=cheated&predictor_outcome=lied", "The outcome must be a question asked plainly"),
        ("predictor=cheated", "The outcome must be a question asked plainly"),
    ],
)
def test_a_bad_choice_is_a_400_with_its_message(app, auth, query, message):
    auth.login()
    page = auth.client.get(f"/admin/surveys/quiz?{query}")
    html = page.get_data(as_text=True)
    assert page.status_code == 400 and message in html and 'id="error-predictor"' in html
    assert 'id="predictor-model"' not in html


def test_too_few_answers_say_so(app, auth):
    from tests.helpers.records import add_responses, model_answers

    add_responses(app, model_answers(9))
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?predictor=cheated&predictor_outcome=year").get_data(as_text=True)
    assert "Too few answers for the model yet (9; it needs 20)." in html


def test_the_exports_give_the_panel_s_table(app, auth):
    import csv
    import io

    from surveys.predictor_model import PREDICTOR_COLUMNS, predictor_rows
    from tests.helpers.records import add_responses, model_answers

    add_responses(app, model_answers())
    auth.login()
    html = auth.client.get("/admin/surveys/quiz?predictor=cheated&predictor_outcome=year").get_data(as_text=True)
    assert "/admin/surveys/quiz/predictor.csv?predictor=cheated&amp;predictor_outcome=year" in html
    expected = _expected(app, "cheated", "year")
    body = auth.client.get("/admin/surveys/quiz/predictor.csv?predictor=cheated&predictor_outcome=year")
    assert body.status_code == 200
    rows = list(csv.DictReader(io.StringIO(body.get_data(as_text=True))))
    assert tuple(rows[0]) == PREDICTOR_COLUMNS
    assert [r["kind"] for r in rows] == ["prevalence", "intercept", "effect", "intercept", "effect"]
    for got, want in zip(rows, predictor_rows(expected), strict=True):
        assert float(got["estimate"]) == pytest.approx(want["estimate"], rel=1e-12)
        assert float(got["std_err"]) == pytest.approx(want["std_err"], rel=1e-12)
    data = auth.client.get("/admin/surveys/quiz/predictor.json?predictor=cheated&predictor_outcome=year").get_json()
    assert data["n"] == 400 and data["levels"] == ["first", "second", "third"] and data["dropped"] == ["fourth"]
    effect = next(r for r in data["rows"] if r["kind"] == "effect" and r["outcome"] == "second")
    assert effect["odds_ratio"] == pytest.approx(expected.fit.equations[0].effect.odds_ratio)
    bad = auth.client.get("/admin/surveys/quiz/predictor.json?predictor=year&predictor_outcome=year")
    assert bad.status_code == 400 and "The randomized answer must be a yes/no question" in bad.get_data(as_text=True)
