"""The differencing attack of the founding material, played on the app (issue 28).

Without central noise, the sum before and after one person joins reveals that person: S(3) - S(2). Here an
attacker reads two releases of a survey's plain counts, one before and one after a single respondent answered,
and subtracts them. The difference is that person's contribution (1 if they are in the group, else 0) plus the
difference of two independent discrete Laplace noises, whose distribution is known exactly. The attacker's best
guess (the likelihood-ratio test) is right with the probability computed from that pmf, at most
``e^eps / (1 + e^eps)`` for a release of epsilon ``eps`` (a test of two neighbouring data sets under epsilon-DP,
Kairouz, Oh and Viswanath 2015, Theorem 2.1 with delta = 0); the same subtraction on the exact counts is right
every time. A second release is refused until ``min_new_answers`` new answers arrived.
"""

from __future__ import annotations

import math
import re
from datetime import date
from fractions import Fraction

import pytest

from analysis.central import count_scale, discrete_laplace_pmf, discrete_laplace_variance
from storage import queries, releases
from surveys.releases import make_release, plan_release, release_from_json
from tests.helpers.drivers import csrf_token_in, message_of
from tests.helpers.records import add_responses, many
from tests.helpers.sample_surveys import quiz_with_releases, survey_in
from tests.helpers.seeded import seeded_sampler
from web import release_data
from web.db import open_database

pytestmark = pytest.mark.sqlite_only(
    reason="the attack reads published figures; storing and refusing releases is tested on both backends in "
    "tests/test_releases_web.py"
)

#: Each release's epsilon; the attack's repetitions and their seeds (fixed before the run).
EPSILON = Fraction(1, 2)
REPETITIONS = 4000
#: The one respondent the attacker wants to learn about.
NEW_PERSON = {"cheated": "no", "ai_use": "never", "year": "first"}


@pytest.fixture
def surveys_dir(tmp_path):
    """``quiz``: one new answer is enough between releases (the attack's best case); ``strict``: 50."""
    folder = tmp_path / "surveys"
    folder.mkdir()
    (folder / "quiz.yaml").write_text(quiz_with_releases(epsilon="4", min_new_answers=1))
    strict = quiz_with_releases(epsilon="4", min_new_answers=50)
    (folder / "strict.yaml").write_text(strict.replace("id: quiz", "id: strict"))
    return folder


def publish(auth, survey_id: str, figures=("counts:year",)):
    path = f"/admin/surveys/{survey_id}/releases/new"
    token = csrf_token_in(auth.client.get(path).get_data(as_text=True))
    data = {"csrf_token": token, "action": "publish", "figure": list(figures), "epsilon": str(EPSILON)}
    return auth.client.post(path, data=data)


def published_count(release, label: str) -> int:
    """The noisy count the release published for the answer ``label`` (in brackets after its share)."""
    (row,) = [row for figure in release.figures for row in figure.rows if row.label == label]
    return int(re.search(r"\((\d+)\)$", row.value).group(1))


def difference_pmf(scale: Fraction) -> dict[int, float]:
    """The exact pmf of ``Z2 - Z1``, two independent discrete Laplace noises of ``scale``, on its support up
    to where both tails are below 1e-16."""
    reach = math.ceil(float(scale) * 40)
    single = {k: discrete_laplace_pmf(k, scale) for k in range(-reach, reach + 1)}
    return {d: math.fsum(p * single.get(k + d, 0.0) for k, p in single.items()) for d in range(-reach, reach + 1)}


def best_guess_success(pmf: dict[int, float]) -> float:
    """The chance the likelihood-ratio test is right, the person in the group or not equally likely: it says
    "in" when the difference ``D`` is likelier under ``1 + noise`` than under ``noise``."""
    return 0.5 * math.fsum(max(pmf.get(d, 0.0), pmf.get(d - 1, 0.0)) for d in range(min(pmf), max(pmf) + 2))


def guesses_in(difference: int, pmf: dict[int, float]) -> bool:
    return pmf.get(difference - 1, 0.0) > pmf.get(difference, 0.0)


def test_without_noise_the_difference_is_the_person(app, respondent):
    """The founding material's S(3) - S(2): the exact counts before and after give the new person away."""
    add_responses(app, many(20, 20))
    db = open_database(app)
    before = queries.tallies(db, "quiz")["year"]
    assert respondent.submit(NEW_PERSON).status_code in (200, 303)
    after = queries.tallies(db, "quiz")["year"]
    db.close()
    (design,) = after
    moved = {a: after[design].get(a, 0) - before[design].get(a, 0) for a in ("first", "second")}
    assert moved == {"first": 1, "second": 0}


def test_publish_add_one_respondent_publish_again_and_subtract(app, auth, respondent):
    """Through the app: two releases one respondent apart; their difference for "first" is the person's 1 plus
    noise, within the noise's own range; the exact answer is not in the releases."""
    auth.login()
    add_responses(app, many(20, 20))
    assert publish(auth, "quiz").status_code == 302
    assert respondent.submit(NEW_PERSON).status_code in (200, 303)
    assert publish(auth, "quiz").status_code == 302
    db = open_database(app)
    first, second = (release_from_json(r.body) for r in releases.releases_of(db, "quiz"))
    costs = releases.spent(db, "quiz")
    db.close()
    assert (first.answers, second.answers) == (40, 41)
    assert [c.epsilon for c in costs] == [0.5, 0.5]  # two releases pay twice: sequential composition
    difference = published_count(second, "first") - published_count(first, "first")
    scale = count_scale(EPSILON, 1)
    pmf = difference_pmf(scale)
    assert pmf.get(difference - 1, 0.0) > 1e-12, "the difference is not 1 + the computed noise"


def test_the_attacker_is_right_no_more_often_than_the_noise_allows(app, respondent):
    """Over many seeded repetitions of the two releases (the app's kept tallies, the domain's release code, a
    seeded sampler in place of ``secrets``), the attacker's best guess is right at the rate computed exactly
    from the pmf of the difference, which is at most e^eps / (1 + e^eps); the differences have mean 1 and the
    variance of two noises."""
    add_responses(app, many(20, 20))
    db = open_database(app)
    survey = survey_in(app, "quiz")
    plan = plan_release(survey, ["counts:year"], EPSILON)
    before = release_data.read_inputs(db, survey, plan.keys)
    assert respondent.submit(NEW_PERSON).status_code in (200, 303)
    after = release_data.read_inputs(db, survey, plan.keys)
    db.close()
    scale = count_scale(EPSILON, 1)
    pmf = difference_pmf(scale)
    exact = best_guess_success(pmf)
    bound = math.exp(EPSILON) / (1 + math.exp(EPSILON))
    assert 0.5 < exact <= bound
    differences = []
    for seed in range(REPETITIONS):
        one = make_release(survey, plan, before, seeded_sampler(2 * seed), date(2026, 11, 22))
        two = make_release(survey, plan, after, seeded_sampler(2 * seed + 1), date(2026, 11, 23))
        differences.append(published_count(two, "first") - published_count(one, "first"))
    right = sum(guesses_in(d, pmf) for d in differences) / REPETITIONS
    tolerance = 4 * math.sqrt(exact * (1 - exact) / REPETITIONS)
    assert abs(right - exact) < tolerance, (right, exact, bound)
    assert right < bound + tolerance
    variance = 2 * discrete_laplace_variance(scale)
    mean = sum(differences) / REPETITIONS
    assert abs(mean - 1) < 4 * math.sqrt(variance / REPETITIONS)
    spread = sum((d - mean) ** 2 for d in differences) / (REPETITIONS - 1)
    assert abs(spread / variance - 1) < 0.15


def test_the_second_release_is_refused_until_enough_new_answers_arrived(app, auth, respondent):
    auth.login()
    add_responses(app, many(30, 30), survey_id="strict")
    assert publish(auth, "strict").status_code == 302
    assert respondent.submit(NEW_PERSON, survey_id="strict").status_code in (200, 303)
    refused = publish(auth, "strict")
    assert refused.status_code == 400
    assert "There are only 1 new answer since the last release; a release needs at least 50" in message_of(refused)
    db = open_database(app)
    assert len(releases.releases_of(db, "strict")) == 1
    db.close()
