"""The survey the benchmark uses: ten questions, nine randomized (yes/no and
select_one) and one plain select_one (``stress``) that break-downs group by.

The bench posts hundreds of answers a second, a flood by the burst rule's
measure (:mod:`analysis.bursts`: 100 an hour by default). So that its
submissions are the product's ordinary ones, which the floor is measured
against, the survey's ``burst_ceiling_per_hour`` is set out of reach; the
same survey under the default ceiling (:data:`FLOOD_SURVEY_ID`), whose
answers are marked as a burst from the hour's 100th on, measures what the
marks add.

Written into a temporary surveys folder and loaded with the product's own
loader, so its design keys and fingerprint are exactly the ones the app uses.
"""

from __future__ import annotations

from pathlib import Path

from storage import connection
from surveys.definition import Survey
from surveys.files import load_survey_file

SURVEY_ID = "bench-survey"
#: The same survey with the default burst ceiling: every answer after the hour's 100th is marked.
FLOOD_SURVEY_ID = "bench-flood"
#: Out of any bench's reach: none of ``SURVEY_ID``'s answers is judged a burst.
UNREACHED_CEILING = 1_000_000_000
#: Past hours of :data:`UNREACHED_CEILING` answers each that :func:`seed_usual_traffic` gives ``SURVEY_ID``: more
#: than the clock hours any run of the bench spans, so that the median of the other hours stays one of them.
USUAL_HOURS = 3

#: Six yes/no questions (two coins or forced response), three randomized
#: select_one and one plain select_one.
SURVEY_YAML = (
    (
        f"id: {SURVEY_ID}\n"
        "title: Student life survey (benchmark)\n"
        "version: 1\n"
        f"burst_ceiling_per_hour: {UNREACHED_CEILING}\n"
    )
    + """\
intro: |
  Your answers are randomized on your device before they are sent.

  Taking part is voluntary; you can stop at any time.
questions:
  - name: cheated
    type: yes_no
    label: Have you ever cheated on an exam?
    hint: Your device flips two coins in secret before sending an answer.
  - name: plagiarism
    type: yes_no
    label: Have you ever handed in someone else's work as your own?
    hint: Your device rolls a die in secret before sending an answer.
    design: {t: 2/3, a: 1/6, b: 1/6}
  - name: drugs
    type: yes_no
    label: Have you used a study drug without a prescription this year?
    design: {t: 3/4, a: 1/8, b: 1/8}
  - name: fake_excuse
    type: yes_no
    label: Have you given a false excuse to get a deadline extension?
  - name: shared_answers
    type: yes_no
    label: Have you shared answers to a take-home exam?
    design: {t: 2/3, a: 1/6, b: 1/6}
  - name: skipped
    type: yes_no
    label: Have you skipped a compulsory practical and signed in anyway?
  - name: ai_use
    type: select_one
    label: How often have you submitted AI-written work as your own?
    choices: [never, once, a_few_times, often]
    design: {t: 1/2}
  - name: sleep
    type: select_one
    label: How many nights a week do you sleep less than six hours?
    choices: [none, one_or_two, three_or_four, five_or_more]
    design: {t: 2/3}
  - name: work_hours
    type: select_one
    label: How many hours a week do you work for pay during term?
    choices: [none, under_10, 10_to_20, over_20]
    design: {t: 1/2}
  - name: stress
    type: select_one
    label: How would you describe your stress level this term?
    choices: [low, moderate, high]
    randomize: false
"""
)


def _write(folder: Path, survey_id: str, text: str) -> Survey:
    """Write ``text`` into ``folder`` as ``survey_id``'s file and load it as the app would."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{survey_id}.yaml"
    path.write_text(text, encoding="utf-8")
    return load_survey_file(path)


def write_survey(folder: Path) -> Survey:
    """Write the benchmark survey into ``folder`` and load it as the app would."""
    return _write(folder, SURVEY_ID, SURVEY_YAML)


def seed_usual_traffic(db) -> None:
    """Give ``SURVEY_ID`` a usual rate out of any bench's reach: :data:`USUAL_HOURS` past hours of
    :data:`UNREACHED_CEILING` answers in its hour histogram (the shape of traffic the burst rule learns from;
    no answer is stored).

    The ceiling alone does not keep the bench's answers ordinary: a run that crosses a clock hour judges the
    new hour against the hours before it (:mod:`analysis.bursts`: the median of the other hours, and a Poisson
    threshold a few hundred answers above it), so from about the last hour's count on every submission was
    marked as a burst, which the floor never is (2026-11-28, bench/README). With these hours the median stays
    at :data:`UNREACHED_CEILING`; the submissions do the same work as before (the rule is worked out once an
    hour, each answer compared with its threshold)."""
    with connection.immediate_transaction(db):
        db.execute(
            "INSERT INTO hour_histograms (survey_id, responses, hours) VALUES (?, ?, ?)",
            [SURVEY_ID, UNREACHED_CEILING, USUAL_HOURS],
        )


def flood_survey_yaml() -> str:
    """:data:`SURVEY_YAML` as :data:`FLOOD_SURVEY_ID`, under the default burst ceiling."""
    return SURVEY_YAML.replace(f"id: {SURVEY_ID}\n", f"id: {FLOOD_SURVEY_ID}\n").replace(
        f"burst_ceiling_per_hour: {UNREACHED_CEILING}\n", ""
    )


def write_flood_survey(folder: Path) -> Survey:
    """Write :func:`flood_survey_yaml` into ``folder`` beside the benchmark survey and load it."""
    return _write(folder, FLOOD_SURVEY_ID, flood_survey_yaml())


NUMBERS_SURVEY_ID = "bench-numbers"

#: The numbers benchmark's survey (issue 27): a randomized integer under the one-bit bounded design, a decimal
#: under the discrete Laplace mechanism, a randomized check-all-that-apply question and a plain number, as in
#: ``survey_files/student-habits.yaml``.
NUMBERS_SURVEY_YAML = """\
id: bench-numbers
title: Student habits survey (benchmark)
version: 1
intro: Numbers are sent with noise added on your device; each option of the last question as a randomized yes or no.
questions:
  - name: drinks
    type: integer
    label: In the past month, on how many days did you drink more than five glasses of alcohol?
    min: 0
    max: 30
    epsilon: 1.0
    mechanism: bounded
    bins: [1, 5, 10]
  - name: unpaid_hours
    type: decimal
    label: In the past month, how many hours of work did you claim but not do?
    min: 0
    max: 20
    step: 0.5
    epsilon: 3.5
    mechanism: laplace
    bins: [0.5, 2, 5]
  - name: done
    type: select_multiple
    label: Which of these have you done this term? Answer yes or no for each.
    choices:
      - {name: copied, label: Copied homework from another student}
      - {name: fake_excuse, label: Gave a false excuse for a late assignment}
      - {name: ghostwriter, label: Paid someone to write an assignment}
    epsilon: 2
  - name: age
    type: integer
    label: Your age
    randomize: false
    min: 16
    max: 99
    bins: [20, 25, 30]
"""


def write_numbers_survey(folder: Path) -> Survey:
    """Write the numbers benchmark's survey into ``folder`` and load it as the app would."""
    return _write(folder, NUMBERS_SURVEY_ID, NUMBERS_SURVEY_YAML)
