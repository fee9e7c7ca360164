"""The kept pair counts of two randomized yes/no answers (storage) and the pair's correlation (surveys/correlation.py).

Storage on both backends (``backend_db``): the write path keeps what a recount from the stored responses finds, the
repair and the migration's own backfill rebuild exactly that, and clearing a survey empties them. The domain: which
pairs are kept, the chosen pair, and the figures equal :func:`analysis.correlate` on the kept table.
"""

from __future__ import annotations

import itertools

import pytest

from analysis import correlate
from storage import connection, kept_counts, migrations, responses
from storage import surveys as stored_surveys
from surveys import correlation
from surveys.arms import arm_choices
from surveys.submission import noisy_response, randomize_on_server
from tests.helpers.sample_surveys import make_survey

PAIRS_SURVEY = """\
id: pairs
title: Pairs
version: 1
direct_share: 1/4
questions:
  - {name: cheated, type: yes_no, label: Cheated}
  - {name: year, type: select_one, label: Year, choices: [first, second], randomize: false}
  - {name: lied, type: yes_no, label: Lied, required: false, design: {t: 2/3, a: 1/6, b: 1/6}}
  - {name: evaded, type: yes_no, label: Evaded, design: {model: stochastic_lie_detector, p1: 1/3, p2: 2/3}}
  - {name: copied, type: yes_no, label: Copied, design: {model: warner, p: 3/4}}
  - {name: asked, type: yes_no, label: Asked, randomize: false}
"""


def store_pairs(db, survey, count: int, prefix: str = "p", day: str = "2026-11-26") -> None:
    """``count`` responses in every arm, with answers left out now and then, through the write path."""
    arms = arm_choices(survey.group_1_share is not None, survey.direct_share is not None)
    for i in range(count):
        truth = {"cheated": "yes" if i % 3 else "no", "year": ("first", "second")[i % 2], "asked": "no"}
        truth |= {"evaded": "no", "copied": "yes" if i % 3 else "no"}
        if i % 4:
            truth["lied"] = "yes" if i % 5 else "no"
        arm = arms[i % len(arms)]
        noisy = randomize_on_server(survey, truth, arm)
        responses.store_response(db, noisy_response(survey, noisy, "server", arm), f"{prefix}-{i:06d}", day)


def kept_rows(db, survey_id: str = "pairs") -> dict[tuple, int]:
    return kept_counts._kept_pair_rows(db, survey_id)


def test_the_pairs_kept_are_every_pair_of_the_one_design_yes_no_questions():
    survey = make_survey(PAIRS_SURVEY)
    assert [q.name for q in correlation.pair_questions(survey)] == ["cheated", "lied", "copied"]
    assert correlation.kept_pairs(survey) == (("cheated", "lied"), ("cheated", "copied"), ("lied", "copied"))


def test_only_the_first_ten_yes_no_questions_have_their_pairs_kept():
    lines = "".join(f"  - {{name: q{i:02d}, type: yes_no, label: Q{i}}}\n" for i in range(12))
    survey = make_survey(f"id: many\ntitle: Many\nversion: 1\nquestions:\n{lines}")
    names = [f"q{i:02d}" for i in range(correlation.MAX_PAIR_QUESTIONS)]
    assert correlation.kept_pairs(survey) == tuple(itertools.combinations(names, 2))
    assert [q.name for q in correlation.left_out_questions(survey)] == ["q10", "q11"]


def test_kept_pair_counts_equal_a_recount_and_the_repair_rebuilds_them(backend_db):
    survey = make_survey(PAIRS_SURVEY)
    store_pairs(backend_db, survey, 60)
    kept = kept_rows(backend_db)
    assert kept == kept_counts._scan_pair_tallies(backend_db, "pairs")
    # One row per respondent who answered both: every respondent answered cheated and copied.
    assert sum(c for (first, second, *_), c in kept.items() if (first, second) == ("cheated", "copied")) == 60
    assert sum(c for (first, second, *_), c in kept.items() if (first, second) == ("cheated", "lied")) == 45
    assert {first for first, *_ in kept} == {"cheated", "lied"}  # no two-group or plain question
    assert any('"direct"' in key[2] for key in kept)  # the direct arm under its own keys
    backend_db.execute("UPDATE pair_tallies SET count = count + 2 WHERE question_a = 'lied'")
    backend_db.execute("DELETE FROM pair_tallies WHERE question_a = 'cheated' AND answer_a = 'yes'")
    assert kept_rows(backend_db) != kept
    assert kept_counts.rebuild_pair_tallies(backend_db, "pairs") == len(kept)
    assert kept_rows(backend_db) == kept


def test_the_migration_backfills_the_pair_counts_of_responses_stored_before_it(backend_db):
    survey = make_survey(PAIRS_SURVEY)
    store_pairs(backend_db, survey, 40)
    kept = kept_rows(backend_db)
    with connection.immediate_transaction(backend_db):
        backend_db.execute("DROP TABLE pair_tallies")
        table = "_migrations" if connection.is_postgres(backend_db) else "_sqlite_migrations"
        backend_db.execute(f"DELETE FROM {table} WHERE name = 'm018_pair_tallies'")
    assert migrations.migrate(backend_db) == ["m018_pair_tallies"]
    assert kept_rows(backend_db) == kept


def test_clearing_a_surveys_answers_empties_its_pair_counts(backend_db):
    survey = make_survey(PAIRS_SURVEY)
    store_pairs(backend_db, survey, 10)
    assert kept_rows(backend_db)
    assert "pair_tallies" in stored_surveys.ANSWER_TABLES
    stored_surveys._delete_answers(backend_db, "pairs")
    assert kept_rows(backend_db) == {}


def test_the_pairs_figures_are_analysis_correlate_on_the_current_designs_table(backend_db):
    survey = make_survey(PAIRS_SURVEY)
    store_pairs(backend_db, survey, 80)
    first, second = correlation.choose_pair(survey, "copied", "cheated")
    assert (first.name, second.name) == ("cheated", "copied")  # the survey's order
    tallies = kept_counts.pair_tallies(backend_db, "pairs", "cheated", "copied")
    result = correlation.pair_correlation(first, second, tallies, 0.9)
    current = tallies[(correlation.question_design_key(first), correlation.question_design_key(second))]
    table = [[current.get((a, b), 0) for b in ("yes", "no")] for a in ("yes", "no")]
    assert result.correlation == correlate(table, first.design, second.design, 0.9)
    direct = sum(
        c for (first_key, _), by_answer in tallies.items() if '"direct"' in first_key for c in by_answer.values()
    )
    assert result.n + result.left_out == 80 and result.left_out == direct > 0  # the direct arm's are left out
    assert "independently" in result.assumption


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        ("cheated", "evaded", "'evaded' is not a randomized yes/no question"),
        ("year", "cheated", "'year' is not"),
        ("nothing", None, "'nothing' is not"),
        ("lied", "lied", "twice"),
    ],
)
def test_a_bad_pair_is_refused_naming_it(first, second, message):
    with pytest.raises(ValueError, match=message):
        correlation.choose_pair(make_survey(PAIRS_SURVEY), first, second)


def test_with_no_names_the_first_two_questions_are_chosen_and_no_answers_give_no_figures():
    survey = make_survey(PAIRS_SURVEY)
    first, second = correlation.choose_pair(survey, None, None)
    assert (first.name, second.name) == ("cheated", "lied")
    empty = correlation.pair_correlation(first, second, {}, 0.95)
    assert empty.correlation is None and empty.n == 0


def test_the_counts_of_some_days_are_what_those_days_added_to_the_kept_counts(backend_db):
    """What the results page subtracts for an excluded day (:func:`storage.kept_counts.pair_tallies_on_days`)."""
    survey = make_survey(PAIRS_SURVEY)
    store_pairs(backend_db, survey, 30, "d1", "2026-11-24")
    before = kept_counts.pair_tallies(backend_db, "pairs", "cheated", "copied")
    store_pairs(backend_db, survey, 21, "d2", "2026-11-25")
    after = kept_counts.pair_tallies(backend_db, "pairs", "cheated", "copied")
    on_day = kept_counts.pair_tallies_on_days(backend_db, "pairs", "cheated", "copied", ["2026-11-25"])
    added = {
        key: {answers: count - before.get(key, {}).get(answers, 0) for answers, count in by_answers.items()}
        for key, by_answers in after.items()
    }
    assert on_day == {key: {a: c for a, c in by_answers.items() if c} for key, by_answers in added.items()}
    assert sum(sum(by_answers.values()) for by_answers in on_day.values()) == 21
    assert kept_counts.pair_tallies_on_days(backend_db, "pairs", "cheated", "copied", ["2026-11-25"], True) == {}
