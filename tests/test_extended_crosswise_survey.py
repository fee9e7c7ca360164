"""An extended crosswise question in a survey: each group's design key (group 2's ``q`` read as ``1 - q``), the
arms' shares, the form showing each group its own second statement at the same length, the answer stored as
given under the group's key, and the estimate from the kept tallies equal to the extended crosswise model's."""

import json
from fractions import Fraction

import pytest

from analysis import estimate_extended_crosswise
from storage import queries
from surveys.design_contract import question_design_key
from surveys.kinds import kind_of
from surveys.schema import SurveyFileError, parse_survey
from tests.helpers.drivers import Respondent
from tests.helpers.sample_surveys import ECWM_FIRST as FIRST
from tests.helpers.sample_surveys import ECWM_SECOND as SECOND
from tests.helpers.sample_surveys import ECWM_YAML

pytestmark = pytest.mark.both_backends


def _mapping(**more):
    import yaml

    return yaml.safe_load(ECWM_YAML) | more


def _question():
    return parse_survey(_mapping(), "ecwm.yaml").questions[0]


def _design(key: str) -> dict:
    return json.loads(key)["design"]


def test_group_2_is_keyed_as_a_crosswise_design_with_one_minus_q():
    question = _question()
    assert _design(question_design_key(question, "1"))["q"] == "1/4"
    assert _design(question_design_key(question, "2"))["q"] == "3/4"
    assert question_design_key(question, "1") == question_design_key(question)
    assert all(json.loads(question_design_key(question, arm))["extended"] for arm in ("", "1", "2"))


def test_the_survey_splits_into_two_groups_and_refuses_a_direct_arm():
    assert parse_survey(_mapping(), "ecwm.yaml").group_1_share == Fraction(1, 2)
    assert parse_survey(_mapping(group_1_share="2/5"), "ecwm.yaml").group_1_share == Fraction(2, 5)
    with pytest.raises(SurveyFileError) as raised:
        parse_survey(_mapping(direct_share="1/5"), "ecwm.yaml")
    (problem,) = raised.value.problems
    assert problem.field == "direct_share" and "extended crosswise question (cannabis)" in problem.message


def test_the_estimate_from_both_groups_tallies_is_the_extended_crosswise_models():
    question = _question()
    by_design = {question_design_key(question, "1"): {"yes": 150, "no": 50}}
    by_design[question_design_key(question, "2")] = {"yes": 90, "no": 110}
    result = kind_of(question).compute(question, by_design, 0.95, "wilson")
    reference = estimate_extended_crosswise(150, 200, 90, 200, Fraction(1, 4))
    assert result.n == 400
    assert result.estimate == pytest.approx(reference.estimate, abs=1e-12)
    assert result.std_err == pytest.approx(reference.std_err, rel=1e-9)
    assert (result.ci.low, result.ci.high) == pytest.approx((reference.ci.low, reference.ci.high), rel=1e-9)


@pytest.fixture
def ecwm_survey(surveys_dir):
    (surveys_dir / "ecwm.yaml").write_text(ECWM_YAML)
    return "ecwm"


@pytest.mark.parametrize(("drawn", "shown", "hidden_text"), [("1", FIRST, SECOND), ("2", SECOND, FIRST)])
def test_server_path_shows_the_groups_statement_and_stores_the_answer_under_its_key(
    app, db, ecwm_survey, monkeypatch, drawn, shown, hidden_text
):
    monkeypatch.setattr("web.answering.draw_arm", lambda group, direct: drawn)
    respondent = Respondent(app.test_client())
    html = app.test_client().get(f"/s/{ecwm_survey}").get_data(as_text=True)
    assert f'name="arm" value="{drawn}"' in html
    visible = [p for p in html.split("<p ") if 'class="second-statement"' in p and " hidden>" not in p]
    assert len(visible) == 1 and shown.replace("'", "&#39;") in visible[0]
    assert hidden_text.replace("'", "&#39;") in html  # both are sent: the page does not depend on the arm
    response = respondent.submit({"cannabis": "yes"}, survey_id=ecwm_survey)
    assert response.status_code == 200, response.get_data(as_text=True)
    (row,) = list(db.query("SELECT * FROM responses"))
    assert row["arm"] == drawn and json.loads(row["answers"]) == {"cannabis": "yes"}
    question = parse_survey(_mapping(), "ecwm.yaml").questions[0]
    assert queries.tallies(db, ecwm_survey)["cannabis"] == {question_design_key(question, drawn): {"yes": 1}}


def test_the_protection_sentence_names_both_statements_and_their_shares():
    from surveys.design_sentences import design_sentence

    sentence = design_sentence(_question())
    assert f"“{FIRST}” (true for about 25% of people) or “{SECOND}” (true for about 75%)" in sentence


def test_the_form_is_as_long_whatever_the_group(app, ecwm_survey, monkeypatch):
    lengths = set()
    for drawn in ("1", "2"):
        monkeypatch.setattr("web.answering.draw_arm", lambda group, direct, drawn=drawn: drawn)
        with app.test_client() as client:
            html = client.get(f"/s/{ecwm_survey}").get_data(as_text=True)
        lengths.add(len(html) - len(html.split('name="csrf_token" value="')[1].split('"')[0]))
    assert len(lengths) == 1, lengths


def _store(app, counts):
    """``counts``: ``{(group, answer): how many}`` stored as device answers of the ECWM survey."""
    from storage import responses
    from surveys.submission import noisy_response
    from tests.helpers.sample_surveys import survey_in
    from web.db import open_database

    survey = survey_in(app, "ecwm")
    db = open_database(app)
    for (group, answer), count in counts.items():
        for i in range(count):
            response = noisy_response(survey, {"cannabis": answer}, "device", group)
            responses.store_response(db, response, f"ecwm-{group}-{answer}-{i}", "2026-11-27")
    db.close()


#: Group 1: 30 of 40 "same"; group 2: 18 of 40. Pooled rate of group 1's "same" (30 + 22) / 80 = 0.65: pi = 0.2.
CARELESS = {("1", "yes"): 30, ("1", "no"): 10, ("2", "yes"): 18, ("2", "no"): 22}


def test_the_check_reads_each_groups_counts_from_the_results():
    from surveys.design_fit import design_fit, design_fit_record
    from surveys.results import compute_results

    survey = parse_survey(_mapping(), "ecwm.yaml")
    question = survey.questions[0]
    by_design = {question_design_key(question, "1"): {"yes": 30, "no": 10}}
    by_design[question_design_key(question, "2")] = {"yes": 18, "no": 22}
    results = compute_results(survey, {"cannabis": by_design}, 80)
    (check,) = design_fit(survey, results, None, None).extended_crosswise
    assert (check.counts.same, check.counts.n) == ((30, 18), (40, 40))
    reference = estimate_extended_crosswise(30, 40, 18, 40, Fraction(1, 4))
    assert check.estimate == reference
    assert check.estimate.estimate == pytest.approx(0.2)
    assert f"G² = {reference.fit.likelihood_ratio.statistic:.2f}, 1 degree of freedom" in check.sentence
    (record,) = design_fit_record(design_fit(survey, results, None, None))["extended_crosswise"]
    assert record["same"] == [30, 18] and record["likelihood_ratio"]["df"] == 1


def test_a_crosswise_question_without_groups_has_no_check():
    from surveys.design_fit import design_fit
    from surveys.results import compute_results

    mapping = _mapping()
    del mapping["questions"][0]["design"]["extended"]
    survey = parse_survey(mapping, "ecwm.yaml")
    key = question_design_key(survey.questions[0])
    results = compute_results(survey, {"cannabis": {key: {"yes": 30, "no": 10}}}, 40)
    assert design_fit(survey, results, None, None).extended_crosswise == ()


def test_the_results_page_and_the_json_show_the_check(app, auth, ecwm_survey):
    _store(app, CARELESS)
    auth.login()
    page = auth.client.get("/admin/surveys/ecwm").get_data(as_text=True)
    section = page[page.index("How well does the design fit?") :]
    assert "group 1 answered “same” 30 times in 40 and group 2 18 times in 40" in section
    assert "1 degree of freedom" in section
    body = auth.client.get("/admin/surveys/ecwm/design_fit.json").get_json()
    (record,) = body["extended_crosswise"]
    assert record["n"] == [40, 40] and record["estimate"] == pytest.approx(0.2)


def test_the_pooled_groups_are_one_extended_crosswise_design_not_several():
    """Both groups' tallies: labelled and said to be the extended crosswise model's two groups, without the
    "several designs" flag; one group alone says so; a plain crosswise version beside them is several designs."""
    question = _question()
    group_1, group_2 = question_design_key(question, "1"), question_design_key(question, "2")
    compute = kind_of(question).compute
    both = compute(question, {group_1: {"yes": 150, "no": 50}, group_2: {"yes": 90, "no": 110}}, 0.95, "wilson")
    assert both.design_label.startswith("extended crosswise (q=1/4 in group 1, 3/4 in group 2")
    assert both.design_label.endswith("pooled over its 2 groups") and "several designs" not in both.flags
    assert "the answers of its two random groups" in both.sentence
    alone = compute(question, {group_2: {"yes": 90, "no": 110}}, 0.95, "wilson")
    assert alone.design_label.endswith("only group 2 has answers yet") and "only group 2" in alone.sentence
    plain = json.dumps({k: v for k, v in json.loads(group_1).items() if k != "extended"}, sort_keys=True)
    mixed = compute(question, {group_1: {"yes": 150, "no": 50}, plain: {"yes": 30, "no": 10}}, 0.95, "wilson")
    assert "several designs" in mixed.flags and mixed.design_label == "pooled over 2 designs"


def test_the_results_row_says_it_pools_the_two_groups(app, auth, ecwm_survey):
    _store(app, CARELESS)
    auth.login()
    page = auth.client.get("/admin/surveys/ecwm").get_data(as_text=True)
    row = page[page.index('<th scope="row">I have used cannabis') :].split('<tr class="sentence">')[0]
    assert "extended crosswise (q=1/4 in group 1, 3/4 in group 2" in row and "pooled over its 2 groups" in row
    assert '<span class="flag">several designs</span>' not in page
    assert "the answers of its two random groups (each read its own second statement) are pooled" in page
    assert "Per group:" in page and "group 2, crosswise (innocuous yes share q=3/4" in page
    assert "union over 2 groups" in row and "union over 2 designs" not in page


def test_the_codebook_says_how_to_read_each_arm_and_names_both_statements():
    from surveys.noisy_answers import codebook, how_to_analyse

    survey = parse_survey(_mapping(), "ecwm.yaml")
    question = survey.questions[0]
    note = how_to_analyse(question, question.design)
    assert "rows with arm 2 the second (true with 1 - q = 3/4)" in note
    assert "pi_hat = (mean(s) - 0.75) / (-0.5)" in note  # (0.65 - 0.75) / -0.5 = 0.2 for the counts above
    assert 'model = "Crosswise", p = 0.25) and with arm == "2" and p = 0.75' in note
    (column,) = [c for c in codebook(survey, [], [])["columns"] if c["name"] == "cannabis"]
    assert (column["innocuous"], column["second_innocuous"]) == (FIRST, SECOND)
