"""surveys/sample_design.py and the results page's design-weighted estimates (web/weights_data.py,
templates/admin/_sample_design.html), the estimates JSON and CSV and ``flask export estimates``."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from fractions import Fraction

import numpy as np
import pytest

from analysis import design_estimate, design_share
from surveys import results
from surveys.design_contract import question_design_key
from surveys.sample_design import design_results
from tests.helpers.records import add_responses
from tests.helpers.sample_surveys import QUIZ_YAML, SAMPLE_DESIGN_YAML, make_survey

pytestmark = pytest.mark.both_backends

DESIGN_YAML = SAMPLE_DESIGN_YAML
SURVEY = make_survey(DESIGN_YAML)
# Stored answers per class: cheated (yes, no) under two coins; lied (yes, no) under t = 2/3, a = b = 1/6.
CHEATED = {"c1": (9, 11), "c2": (4, 16), "c3": (14, 6), "c4": (10, 10)}
LIED = {"c1": (5, 15), "c2": (8, 12), "c3": (11, 9), "c4": (6, 14)}
# Stored answers per class to ai_use (never, once, sometimes, often) under the k-option design t = 1/2.
AI_OPTIONS = ("never", "once", "sometimes", "often")
AI_USE = {"c1": (8, 4, 5, 3), "c2": (3, 9, 4, 4), "c3": (6, 6, 2, 6), "c4": (10, 2, 5, 3)}


def _grouped(cheated, lied, ai_use=None):
    keys = {name: question_design_key(SURVEY.question(name)) for name in ("cheated", "lied", "ai_use")}
    grouped = {
        group: {
            "cheated": {keys["cheated"]: {"yes": cheated[group][0], "no": cheated[group][1]}},
            "lied": {keys["lied"]: {"yes": lied[group][0], "no": lied[group][1]}},
        }
        for group in cheated
    }
    for group, counts in (ai_use or {}).items():
        grouped.setdefault(group, {})["ai_use"] = {keys["ai_use"]: dict(zip(AI_OPTIONS, counts))}
    return grouped


def _expected(counts, t, a, b, **kwargs):
    return design_share(
        [y for y, _ in counts.values()],
        [y + n for y, n in counts.values()],
        [10, 10, 4, 4],
        ["arts", "arts", "science", "science"],
        True,
        [20, 20, 8, 8],
        400,
        t,
        a,
        b,
        **kwargs,
    )


def test_each_yes_no_share_is_weighted_by_its_clusters_strata_and_weights():
    grouped = _grouped(CHEATED, LIED) | {None: _grouped({"x": (3, 2)}, {"x": (1, 1)})["x"]}
    weighting = design_results(SURVEY, grouped)
    cheated, lied, *ai_use = weighting.rows
    expected = _expected(CHEATED, 0.5, 0.25, 0.25)
    assert cheated.share.hajek.estimate_raw == pytest.approx(expected.hajek.estimate_raw)
    assert cheated.share.hajek.variance == pytest.approx(expected.hajek.variance)
    assert cheated.share.horvitz_thompson.variance == pytest.approx(expected.horvitz_thompson.variance)
    assert cheated.n == 80 and cheated.share.totals.psus == 4 and cheated.share.totals.strata == 2
    sixth = Fraction(1, 6)
    assert lied.share.hajek.estimate_raw == pytest.approx(_expected(LIED, 4 * sixth, sixth, sixth).hajek.estimate_raw)
    assert [q.name for q in weighting.not_weighted] == ["method"]
    assert [(r.option.name, r.note) for r in ai_use] == [(o, "No answers yet.") for o in AI_OPTIONS]
    assert weighting.left_out == 5 and weighting.population_size == 400


def test_without_clusters_each_stratum_is_counted_from_its_two_kinds_of_answer():
    yaml = QUIZ_YAML.replace(
        "questions:\n",
        "sample_design:\n  strata: year\n  weights: {first: 2, second: 3, third: 3, fourth: 5}\n"
        "  variance: jackknife\nquestions:\n",
        1,
    )
    survey = make_survey(yaml)
    key = question_design_key(survey.question("cheated"))
    counts = {"first": (20, 30), "second": (15, 15), "third": (9, 21), "fourth": (12, 8)}
    grouped = {g: {"cheated": {key: {"yes": y, "no": n}}} for g, (y, n) in counts.items()}
    row = design_results(survey, grouped).rows[0]
    expected = design_share(
        [y for y, _ in counts.values()],
        [y + n for y, n in counts.values()],
        [2, 3, 3, 5],
        clustered=False,
        method="jackknife",
    )
    assert row.share.hajek.variance == pytest.approx(expected.hajek.variance)
    assert row.share.horvitz_thompson is None and row.share.totals.method == "jackknife"


def _units_one_by_one(option, clustered):
    """ai_use's ``option``: each respondent's weighted debiased indicator ``w (r - a) / t`` and weight, and the
    randomization's variance of it given that it was drawn (``w^2 Var(u)`` with ``u`` for the true answer), summed
    per class when ``clustered``, else one row per respondent with its class as its stratum."""
    t, a, b = 0.5, 0.125, 0.375
    weights = {"c1": 10, "c2": 10, "c3": 4, "c4": 4}
    units = []
    for group, counts in AI_USE.items():
        w = weights[group]
        for stored, count in zip(AI_OPTIONS, counts):
            for _ in range(count):
                u = ((stored == option) - a) / t
                within = w**2 * (u * (a + t) * b + (1 - u) * a * (1 - a)) / t**2
                units.append((group, w * u, w, within))
    if not clustered:
        return units
    return [(group, *(sum(unit[i] for unit in units if unit[0] == group) for i in (1, 2, 3))) for group in weights]


@pytest.mark.parametrize("method", ["linearization", "jackknife"])
def test_a_choice_questions_option_shares_are_its_respondents_debiased_indicators_weighted(method):
    # Each option of ai_use from the kept counts per class equals the design estimator run on each respondent's
    # own debiased indicator of that option (summed per class as a cluster; or, without clusters, each
    # respondent a PSU of its class's stratum), and the options' Hajek shares add up to 1.
    grouped = _grouped(CHEATED, LIED, AI_USE)
    clustered = [r for r in design_results(SURVEY, grouped).rows if r.question.name == "ai_use"]
    strata_yaml = DESIGN_YAML.replace(
        "  clusters: class\n  strata: {arts: [c1, c2], science: [c3, c4]}\n", "  strata: class\n"
    ).replace("  fpc: {arts: 20, science: 8}\n", f"  fpc: {{c1: 200, c2: 200, c3: 80, c4: 80}}\n  variance: {method}\n")
    unclustered = [r for r in design_results(make_survey(strata_yaml), grouped).rows if r.question.name == "ai_use"]
    assert [r.option.name for r in clustered] == list(AI_OPTIONS)
    for cluster_row, unit_row in zip(clustered, unclustered):
        groups, y, x, within = zip(*_units_one_by_one(cluster_row.option.name, True))
        strata = ["arts", "arts", "science", "science"]
        expected = design_estimate(y, x, strata, fpc=[20, 20, 8, 8], population_size=400, within=within)
        assert cluster_row.share.hajek.estimate_raw == pytest.approx(expected.ratio, rel=1e-12)
        assert cluster_row.share.hajek.variance == pytest.approx(expected.ratio_variance, rel=1e-10)
        assert cluster_row.share.horvitz_thompson.variance == pytest.approx(expected.ht_variance, rel=1e-10)
        groups, y, x, within = zip(*_units_one_by_one(unit_row.option.name, False))
        fpc = [{"c1": 200, "c2": 200, "c3": 80, "c4": 80}[g] for g in groups]
        expected = design_estimate(y, x, groups, fpc=fpc, population_size=400, method=method, within=within)
        assert unit_row.share.hajek.estimate_raw == pytest.approx(expected.ratio, rel=1e-12)
        assert unit_row.share.hajek.variance == pytest.approx(expected.ratio_variance, rel=1e-10)
        assert unit_row.share.totals.psus == 80 and unit_row.n == 80
    assert sum(r.share.hajek.estimate_raw for r in clustered) == pytest.approx(1.0, rel=1e-12)


def test_a_choice_options_unweighted_share_is_the_results_pages_and_a_matrix_design_is_not_weighted():
    grouped = _grouped(CHEATED, LIED, AI_USE)
    rows = {r.option.name: r for r in design_results(SURVEY, grouped).rows if r.question.name == "ai_use"}
    key = question_design_key(SURVEY.question("ai_use"))
    totals = {o: sum(c[j] for c in AI_USE.values()) for j, o in enumerate(AI_OPTIONS)}
    plain = results.compute_results(SURVEY, {"ai_use": {key: totals}}, 80).question("ai_use")
    for option in plain.options:
        hajek = rows[option.choice.name].share.hajek
        assert hajek.unweighted_estimate == pytest.approx(option.estimate_raw, rel=1e-12)
        assert hajek.unweighted_std_err == pytest.approx(option.std_err, rel=1e-12)
    method_key = question_design_key(SURVEY.question("method"))
    grouped["c1"]["method"] = {method_key: {"notes": 3, "phone": 1, "friend": 1}}
    assert [q.name for q in design_results(SURVEY, grouped).not_weighted] == ["method"]
    # ai_use's answers all stored while it was asked under a matrix: not read as k options, said so.
    matrix = make_survey(
        DESIGN_YAML.replace(
            "    design: {t: 1/2}\n",
            "    design: {matrix: [[1/2, 1/6, 1/6, 1/6], [1/6, 1/2, 1/6, 1/6], [1/6, 1/6, 1/2, 1/6],"
            " [1/6, 1/6, 1/6, 1/2]]}\n",
        )
    )
    for group in AI_USE:
        grouped[group]["ai_use"] = {
            question_design_key(matrix.question("ai_use")): dict(zip(AI_OPTIONS, AI_USE[group]))
        }
    notes = {r.note for r in design_results(SURVEY, grouped).rows if r.question.name == "ai_use"}
    assert notes == {"No design-weighted estimate: the answers came under a design that is not read as these options."}


def test_a_cluster_sample_of_one_choice_answers_covers_one_options_share_by_simulation():
    # 60 + 30 classes of 15 students in two faculties, each class with its own shares of three options
    # (Dirichlet: answers within a class are alike); each run draws 12 and 8 classes without replacement and
    # every student answers under the k-option design t = 1/2 (k = 3), through the kept tallies per class.
    # 1,000 seeded runs: the first option's Hajek and Horvitz-Thompson estimates unbiased within 4 Monte
    # Carlo standard errors, and their 95% Wald intervals' coverage within 4 binomial standard errors
    # sqrt(0.95 x 0.05 / 1,000) = 0.0069 of 0.95 (the simulation's own error: a true coverage of 95% fails
    # this one time in 15,000).
    rng = np.random.default_rng(2930)
    sizes, drawn, per_class, runs, options = (60, 30), (12, 8), 15, 1000, ("a", "b", "c")
    names = [[f"{f}{i}" for i in range(big)] for f, big in zip("xy", sizes)]
    truths = [
        np.array([rng.choice(3, per_class, p=p) for p in rng.dirichlet(alpha, big)])
        for big, alpha in zip(sizes, [(1, 2, 3), (4, 2, 1)])
    ]
    truth = sum((t == 0).sum() for t in truths) / (sum(sizes) * per_class)
    weights = ", ".join(f"{n}: {big / k}" for group, big, k in zip(names, sizes, drawn) for n in group)
    yaml = (
        "id: quiz\ntitle: Classes\nversion: 1\nintro: Randomized.\n"
        f"population_size: {sum(sizes) * per_class}\n"
        f"sample_design:\n  clusters: class\n  strata: {{x: [{', '.join(names[0])}], y: [{', '.join(names[1])}]}}\n"
        f"  weights: {{{weights}}}\n  fpc: {{x: {sizes[0]}, y: {sizes[1]}}}\nquestions:\n"
        "  - name: tool\n    type: select_one\n    label: Tool?\n    choices: [a, b, c]\n    design: {t: 1/2}\n"
        "  - name: class\n    type: select_one\n    label: Class\n"
        f"    choices: [{', '.join(names[0] + names[1])}]\n    randomize: false\n"
    )
    survey = make_survey(yaml)
    key = question_design_key(survey.question("tool"))
    estimates, covered = {"hajek": [], "ht": []}, {"hajek": 0, "ht": 0}
    for _ in range(runs):
        grouped = {}
        for population, group_names, n in zip(truths, names, drawn):
            for c in rng.choice(len(population), n, replace=False):
                true = population[c]
                stored = np.where(rng.random(per_class) < 0.5, true, rng.integers(0, 3, per_class))
                counts = np.bincount(stored, minlength=3)
                grouped[group_names[c]] = {"tool": {key: dict(zip(options, counts.tolist()))}}
        share = design_results(survey, grouped).rows[0].share
        for name, e in (("hajek", share.hajek), ("ht", share.horvitz_thompson)):
            estimates[name].append(e.estimate_raw)
            covered[name] += e.low <= truth <= e.high
    for name in ("hajek", "ht"):
        values = np.array(estimates[name])
        assert abs(values.mean() - truth) <= 4 * values.std() / math.sqrt(runs), name
        assert abs(covered[name] / runs - 0.95) <= 4 * math.sqrt(0.95 * 0.05 / runs), name


def test_a_stratum_with_one_cluster_is_named_and_a_second_design_gives_no_estimate():
    lonely = design_results(SURVEY, _grouped({k: CHEATED[k] for k in ("c1", "c2", "c3")}, LIED))
    assert "Stratum science has answers from one sampling unit only" in lonely.rows[0].note
    other = make_survey(
        DESIGN_YAML.replace(
            "label: Have you ever cheated on an exam?\n", "label: Cheated?\n    design: {t: 2/3, a: 1/6, b: 1/6}\n"
        )
    )
    grouped = _grouped(CHEATED, LIED)
    grouped["c4"]["cheated"] |= {question_design_key(other.question("cheated")): {"yes": 1, "no": 1}}
    row = design_results(SURVEY, grouped).rows[0]
    assert row.share is None and "several designs" in row.note
    assert design_results(SURVEY, {}).rows[0].note == "No answers yet."


def _answers():
    rows = []
    for group in CHEATED:
        yes, no = CHEATED[group]
        lied_yes, _ = LIED[group]
        ai_use = [option for option, count in zip(AI_OPTIONS, AI_USE[group]) for _ in range(count)]
        for i in range(yes + no):
            rows.append(
                {
                    "cheated": "yes" if i < yes else "no",
                    "lied": "yes" if i < lied_yes else "no",
                    "ai_use": ai_use[i],
                    "class": group,
                }
            )
    return rows


def _expected_option(option, **kwargs):
    """ai_use's ``option`` share: its counts under the design's option marginal (t = 1/2, a = 1/8, b = 3/8)."""
    j = AI_OPTIONS.index(option)
    counts = {group: (c[j], sum(c) - c[j]) for group, c in AI_USE.items()}
    return _expected(counts, Fraction(1, 2), Fraction(1, 8), Fraction(3, 8), **kwargs)


def test_the_results_page_shows_hajek_and_horvitz_thompson_with_their_design_effects(app, surveys_dir, auth):
    (surveys_dir / "quiz.yaml").write_text(DESIGN_YAML)
    add_responses(app, _answers() + [{"cheated": "yes", "lied": "no"}])  # one without a class: left out
    auth.login()
    page = auth.client.get("/admin/surveys/quiz").get_data(as_text=True)
    row = re.search(r'<tr id="weighted-cheated">(.*?)</tr>', page, re.S).group(1)
    expected = _expected(CHEATED, 0.5, 0.25, 0.25)
    assert re.search(r'class="weighted-estimate">([^<]+)<', row).group(1) == f"{expected.hajek.estimate * 100:.1f}%"
    assert re.search(r'class="ht-estimate">([^<]+)<', row).group(1) == (
        f"{expected.horvitz_thompson.estimate * 100:.1f}%"
    )
    assert f"{expected.hajek.design_effect:.2f}" in row
    assert "Design-weighted estimates" in page and "within 2 strata" in page
    assert "1 answer with no answer to Your class is left out" in page
    assert "(not weighted here: How did you cheat?)." in page
    option = re.search(r'<tr id="weighted-ai_use-sometimes">(.*?)</tr>', page, re.S).group(1)
    sometimes = _expected_option("sometimes")
    assert "How often have you used AI-written text as your own? (sometimes)" in option
    assert re.search(r'class="weighted-estimate">([^<]+)<', option).group(1) == f"{sometimes.hajek.estimate * 100:.1f}%"
    assert re.search(r'class="ht-std-err">([^<]+)<', option).group(1) == (
        f"{sometimes.horvitz_thompson.std_err * 100:.1f}%"
    )
    assert f"{sometimes.hajek.design_effect:.2f}" in option


def test_the_shipped_workplace_survey_weights_each_answer_by_its_departments_design_weight(app, auth):
    """survey_files/workplace-wellbeing.yaml: strata by department, each respondent a unit, design weights 10, 4,
    2, 2 and 3 (each department's employees over those invited) and 1,200 employees: the Hajek and
    Horvitz-Thompson shares of a two-coin question as computed by hand from each department's stored yeses."""
    from app import ROOT

    app.config["SURVEYS_DIR"] = str(ROOT / "survey_files")
    weights = {"operations": 10, "sales": 4, "finance": 2, "it": 2, "other": 3}
    answers = [
        {
            "harassment_witnessed": "yes" if i % (2 + d) == 0 else "no",
            "drug_use_at_work": "yes" if i % 4 == 0 else "no",
            "department": department,
        }
        for d, department in enumerate(weights)
        for i in range(12 + 4 * d)
    ]
    add_responses(app, answers, survey_id="workplace-wellbeing")
    auth.login()
    page = auth.client.get("/admin/surveys/workplace-wellbeing").get_data(as_text=True)
    totals = []  # (y, x) per department: w (yes - n/4) / (1/2) and w n, under two coins
    for department, weight in weights.items():
        stored = [a["harassment_witnessed"] for a in answers if a["department"] == department]
        totals.append((weight * (stored.count("yes") - len(stored) / 4) / 0.5, weight * len(stored)))
    hajek = sum(y for y, _ in totals) / sum(x for _, x in totals)
    horvitz_thompson = sum(y for y, _ in totals) / 1200
    assert "Design-weighted estimates" in page and "drawn within the strata of Which department do you work in?" in page
    row = re.search(r'<tr id="weighted-harassment_witnessed">(.*?)</tr>', page, re.S).group(1)
    assert re.search(r'class="weighted-estimate">([^<]+)<', row).group(1) == f"{hajek * 100:.1f}%"
    assert re.search(r'class="ht-estimate">([^<]+)<', row).group(1) == f"{horvitz_thompson * 100:.1f}%"


def test_the_estimates_json_csv_and_the_cli_export_carry_the_design_columns(app, surveys_dir, auth, runner):
    (surveys_dir / "quiz.yaml").write_text(DESIGN_YAML)
    add_responses(app, _answers())
    auth.login()
    expected = _expected(CHEATED, 0.5, 0.25, 0.25)
    document = auth.client.get("/admin/surveys/quiz/estimates.json").get_json()["weighted"]
    assert document["method"] == "design" and document["clusters"] == "class"
    row = next(r for r in document["rows"] if r["question"] == "cheated")
    assert row["weighted_estimate_raw"] == pytest.approx(expected.hajek.estimate_raw)
    assert row["ht_std_err"] == pytest.approx(expected.horvitz_thompson.std_err)
    assert row["psus"] == 4 and row["variance_method"] == "linearization"
    text = auth.client.get("/admin/surveys/quiz/estimates.csv").get_data(as_text=True)
    cheated = next(r for r in csv.DictReader(io.StringIO(text)) if r["question"] == "cheated")
    assert float(cheated["design_effect"]) == pytest.approx(expected.hajek.design_effect)
    assert float(cheated["ht_estimate_raw"]) == pytest.approx(expected.horvitz_thompson.estimate_raw)
    often = _expected_option("often")
    option = next(r for r in document["rows"] if (r["question"], r["option"]) == ("ai_use", "often"))
    assert option["weighted_estimate_raw"] == pytest.approx(often.hajek.estimate_raw)
    assert option["ht_std_err"] == pytest.approx(often.horvitz_thompson.std_err) and option["n"] == 80
    listed = next(r for r in csv.DictReader(io.StringIO(text)) if (r["question"], r["option"]) == ("ai_use", "often"))
    assert float(listed["weighted_std_err"]) == pytest.approx(often.hajek.std_err)
    assert float(listed["ht_design_effect"]) == pytest.approx(often.horvitz_thompson.design_effect)
    exported = json.loads(runner.invoke(args=["export", "estimates", "quiz", "--format", "json"]).output)
    option = next(r for r in exported["weighted"]["rows"] if (r["question"], r["option"]) == ("ai_use", "never"))
    assert option["design_effect"] == pytest.approx(_expected_option("never").hajek.design_effect)
    assert exported["weighted"]["rows"][0]["weighted_std_err"] == pytest.approx(expected.hajek.std_err)
    printed = runner.invoke(args=["export", "estimates", "quiz", "--format", "csv"]).output
    row = next(r for r in csv.DictReader(io.StringIO(printed)) if r["question"] == "cheated")
    assert float(row["ht_std_err"]) == pytest.approx(expected.horvitz_thompson.std_err)
    row = next(r for r in csv.DictReader(io.StringIO(printed)) if (r["question"], r["option"]) == ("ai_use", "once"))
    assert float(row["weighted_ci_high"]) == pytest.approx(_expected_option("once").hajek.high)
