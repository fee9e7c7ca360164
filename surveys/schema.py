"""Check a survey file's contents (its parsed YAML) and build the :class:`~surveys.definition.Survey`.

A survey file uses the vocabulary of XLSForm and SurveyJS (``name``,
``type``, ``label``, ``choices``, ``required``) plus the privacy keys
``randomize``, ``design``, ``epsilon_budget`` and ``delta``::

    id: exam-integrity
    title: Exam integrity survey
    version: 1
    intro: Your answers are randomized before they leave your device.
    epsilon_budget: 5            # optional: refuse the file if it costs more
    max_responses_per_address_per_hour: 20   # optional: see below
    burst_ceiling_per_hour: 300              # optional: see below
    questions:
      - name: cheated
        type: yes_no             # two coins unless a design is given
        label: Have you ever cheated on an exam?
      - name: plagiarism
        type: yes_no
        label: Have you ever handed in someone else's work as your own?
        design: {t: 2/3, a: 1/6, b: 1/6}
      - name: year
        type: select_one
        label: Year of study
        choices: [first, second, third, fourth]
        randomize: false

Who is asking, shown on the form, and what comes after, shown on the
thank-you page (all optional)::

    organizer: Student Affairs research team, Example University
    contact: survey-team@example.org
    ethics_approval: Research Ethics Board, protocol REB-2026-014
    closing: Thank you. Results will be posted on the notice board in January.
    next_url: https://example.org/exam-survey-results   # or a path: /results

``max_responses_per_address_per_hour`` (optional, a whole number of 1 or
more) refuses a submission, with 429, once that many have come to this
survey from one client address within the clock hour. Without it only the
site-wide limit (``FLASK_RATELIMIT_SUBMISSIONS``) applies: a default low
enough to stop one client swinging a small survey would also refuse a
class or an office answering from one shared address, and the right number
depends on who answers.

``burst_ceiling_per_hour`` (optional, a whole number of 1 or more; 100 when
absent) is the number of responses in one clock hour that makes that hour a
burst whatever the survey's other hours (:mod:`analysis.bursts`): the answers
that arrive from there on in the hour are marked, and the researcher can set
them aside. Set it above the most answers expected in an hour (a class or a
mailing answering together).

``population_size`` (optional, a whole number of 1 or more) is the number of
people the respondents were drawn from, when that population is finite and
known (710 answers from a university's 10,777 students): the results then
add, for each one-design yes/no question, the standard error and interval
of a simple random sample without replacement of that many people
(:func:`analysis.estimate_finite_population`).

Margins of error to reach, and whether to stop there (optional; see
:class:`surveys.definition.Target` and :mod:`surveys.targets`)::

    targets:
      - {question: cheated, margin: 0.05}          # ±5 points, 95% unless confidence_level
      - {question: cheated, by: year, groups: [first, fourth], margin: 0.1}   # a difference
    close_when_targets_met: true

Several pages: a ``{type: page_break}`` entry among the questions starts a
new page (XLSForm's groups shown as pages, kept flat here)::

    questions:
      - {name: year, type: select_one, choices: [first, second], randomize: false, label: Year}
      - type: page_break
      - {name: cheated, type: yes_no, label: Have you ever cheated on an exam?}

Pages go with two-group designs and a direct-question control arm: the
respondent's arm is drawn once and carried from page to page (:mod:`web.pages`).

Skip logic: ``relevant:`` on a question (:mod:`surveys.conditions`), naming only
earlier questions with ``randomize: false``.

Every mistake in a file is collected as a :class:`Problem` naming the file,
the question and the field, and all of them are reported together
(:class:`SurveyFileError`), so a researcher fixes a file in one pass.
Reading the files themselves (YAML, the survey folder) is
:mod:`surveys.files`. This module checks the survey's own keys and what
spans its questions (the epsilon budget, the arms' shares); the rest is read by
one module each: the checks of single values and the problem report
:mod:`surveys.schema_checks`, the ``questions`` :mod:`surveys.schema_questions`
(a question's ``design`` :mod:`surveys.schema_designs` and
:mod:`surveys.schema_numbers`), skip logic :mod:`surveys.schema_conditions`,
page breaks :mod:`surveys.schema_pages`, ``languages``
:mod:`surveys.schema_languages`, the ``targets`` :mod:`surveys.schema_targets`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import date

from surveys.arms import arm_shares_problems
from surveys.definition import DEFAULT_BURST_CEILING, DEFAULT_DELTA, Question, Survey
from surveys.schema_anchor import parse_anchor
from surveys.schema_checks import (
    INVALID,
    Problem,
    Report,
    SurveyFileError,
    check_date,
    check_flag,
    check_keys,
    check_next_url,
    check_number,
    check_optional_positive_int,
    check_pattern,
    check_positive_int,
    check_text,
    describe,
)
from surveys.schema_conditions import check_conditions
from surveys.schema_extended_crosswise import parse_extended_crosswise
from surveys.schema_languages import LANGUAGE_PATTERN, localize, parse_languages
from surveys.schema_pages import parse_pages
from surveys.schema_questions import parse_questions
from surveys.schema_releases import parse_releases
from surveys.schema_sample_design import parse_sample_design
from surveys.schema_targets import (
    TARGET_KEYS,
    parse_close_when_targets_met,
    parse_targets,
    raw_question_names,
    written_question_names,
)
from surveys.schema_weights import parse_population_counts

__all__ = [
    "RESPONDENT_TEXT_KEYS",
    "SURVEY_ID_PATTERN",
    "SURVEY_KEYS",
    "TARGET_KEYS",
    "Problem",
    "SurveyFileError",
    "parse_survey",
]

SURVEY_ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
SURVEY_KEYS = (
    "id",
    "title",
    "version",
    "intro",
    "organizer",
    "contact",
    "ethics_approval",
    "closing",
    "next_url",
    "closed",
    "opens",
    "closes",
    "invitation_only",
    "epsilon_budget",
    "delta",
    "max_responses_per_address_per_hour",
    "burst_ceiling_per_hour",
    "population_size",
    "population_counts",
    "sample_design",
    "targets",
    "close_when_targets_met",
    "group_1_share",
    "direct_share",
    "languages",
    "releases",
    "questions",
)
#: The keys that say who is asking and what comes after: shown to the respondent, all optional text.
RESPONDENT_TEXT_KEYS = ("organizer", "contact", "ethics_approval", "closing")


def parse_survey(mapping: object, file_name: str) -> Survey:
    """Check a survey file's parsed YAML and build the :class:`Survey`.

    Every problem in the file is collected before raising, so one run lists
    them all.

    Raises
    ------
    SurveyFileError
        With every :class:`Problem` found.
    """
    report = Report(file_name)
    if mapping is None:
        raise SurveyFileError([Problem(file_name, None, None, "the file is empty")])
    if not isinstance(mapping, Mapping):
        message = f"the file must be a mapping of keys such as id, title and questions, got {describe(mapping)}"
        raise SurveyFileError([Problem(file_name, None, None, message)])
    check_keys(report, None, "", mapping, SURVEY_KEYS)
    languages = parse_languages(report, mapping.get("languages"))
    if not languages and mapping.get("languages") is not None:  # reported: read the texts in a usable code
        usable = [str(code) for code in (mapping.get("languages") or []) if LANGUAGE_PATTERN.fullmatch(str(code))]
        mapping = localize(None, mapping, usable[0], tuple(usable)) if usable else mapping
    if languages:
        translated = {
            lang: localize(report if lang == languages[0] else None, mapping, lang, languages) for lang in languages
        }
        mapping = translated[languages[0]]
    values = {
        "id": check_pattern(
            report,
            None,
            "id",
            mapping.get("id"),
            SURVEY_ID_PATTERN,
            "lower-case letters, digits and hyphens such as exam-integrity",
        ),
        "title": check_text(report, None, "title", mapping.get("title"), required=True),
        "version": check_positive_int(report, None, "version", mapping.get("version")),
        "intro": check_text(report, None, "intro", mapping.get("intro"), required=False),
        **{key: check_text(report, None, key, mapping.get(key), required=False) for key in RESPONDENT_TEXT_KEYS},
        "next_url": check_next_url(report, mapping.get("next_url")),
        "closed": check_flag(report, None, "closed", mapping.get("closed"), default=False),
        "invitation_only": check_flag(report, None, "invitation_only", mapping.get("invitation_only"), default=False),
        "opens": check_date(report, "opens", mapping.get("opens")),
        "closes": check_date(report, "closes", mapping.get("closes")),
        "epsilon_budget": None,
        "delta": DEFAULT_DELTA,
        "max_responses_per_address_per_hour": check_optional_positive_int(
            report,
            None,
            "max_responses_per_address_per_hour",
            mapping.get("max_responses_per_address_per_hour"),
        ),
        "burst_ceiling_per_hour": check_optional_positive_int(
            report, None, "burst_ceiling_per_hour", mapping.get("burst_ceiling_per_hour")
        ),
        "population_size": check_optional_positive_int(report, None, "population_size", mapping.get("population_size")),
        "release_policy": parse_releases(report, mapping.get("releases")),
        "questions": parse_questions(report, mapping.get("questions")),
    }
    values["questions"] = parse_extended_crosswise(report, mapping.get("questions"), values["questions"])
    if values["burst_ceiling_per_hour"] is None:
        values["burst_ceiling_per_hour"] = DEFAULT_BURST_CEILING
    # Both days are inclusive, so opens == closes is a one-day survey.
    dates = values["opens"], values["closes"]
    if all(isinstance(day, date) for day in dates) and dates[0] > dates[1]:
        report.add(None, "closes", f"closes {values['closes']} is before opens {values['opens']}")
    if mapping.get("epsilon_budget") is not None:
        values["epsilon_budget"] = check_number(
            report,
            None,
            "epsilon_budget",
            mapping["epsilon_budget"],
            low=0,
            high=math.inf,
            rule="a number above 0",
        )
    if mapping.get("delta") is not None:
        values["delta"] = check_number(
            report,
            None,
            "delta",
            mapping["delta"],
            low=0,
            high=1,
            rule="a number between 0 and 1 (exclusive), such as 0.000001",
        )
    _check_budget(report, values["epsilon_budget"], values["questions"])
    check_conditions(report, values["questions"], written_question_names(mapping))
    values["pages"] = parse_pages(report, mapping.get("questions"), values["questions"])
    values["targets"] = parse_targets(report, mapping.get("targets"), values["questions"], raw_question_names(mapping))
    values["close_when_targets_met"] = parse_close_when_targets_met(
        report, mapping.get("close_when_targets_met"), values["targets"]
    )
    values["population_counts"] = parse_population_counts(report, mapping.get("population_counts"), values["questions"])
    values["sample_design"] = parse_sample_design(
        report, mapping.get("sample_design"), values["questions"], mapping.get("population_counts")
    )
    values |= _arm_shares(report, mapping, values["questions"])
    values |= parse_anchor(report, mapping, values["questions"])
    if report.problems:
        raise SurveyFileError(report.problems)
    if not languages:
        return Survey(source=file_name, **values)
    others = tuple(
        (lang, replace(_translation(translated[lang], file_name, lang), languages=languages)) for lang in languages[1:]
    )
    return Survey(source=file_name, **values, languages=languages, language=languages[0], translations=others)


def _translation(mapping, file_name: str, language: str) -> Survey:
    """The survey in one more language; its problems (an empty text, say) name the language."""
    try:
        return replace(parse_survey({**mapping, "languages": None}, file_name), language=language)
    except SurveyFileError as error:
        problems = [replace(p, message=f"in {language}: {p.message}") for p in error.problems]
        raise SurveyFileError(problems) from None


def _arm_shares(report, mapping, questions) -> dict:
    """``group_1_share`` and ``direct_share`` (:mod:`surveys.arms`), each problem reported on its key."""
    if any(problem.question is not None for problem in report.problems):
        questions = INVALID  # a broken question may be the one the setting needs: check the values only
    shares, problems = arm_shares_problems(mapping.get("group_1_share"), mapping.get("direct_share"), questions)
    for key, message in problems:
        report.add(None, key, message)
    return shares


def _check_budget(report, budget, questions) -> None:
    """Refuse a survey whose per-respondent epsilon is over its budget.

    Only the questions that parsed are summed; a broken question can only
    add epsilon, so an overrun found here is real.
    """
    if not isinstance(budget, float) or not isinstance(questions, tuple):
        return
    randomized = [q for q in questions if isinstance(q, Question) and q.is_randomized]
    total = sum(q.design.epsilon for q in randomized)
    if total <= budget or math.isclose(total, budget, rel_tol=1e-12):
        return
    terms = " + ".join(f"{q.name} {q.design.epsilon:.3f}" for q in randomized)
    hint = "add noise to some questions (a smaller t), randomize fewer, or raise the budget"
    if math.isinf(total):
        hint = "a design with a = 0, b = 0 or t = 1 gives no differential privacy; " + hint
    message = f"the survey costs epsilon {total:.3f} per respondent ({terms}), over the budget {budget:g}; {hint}"
    report.add(None, "epsilon_budget", message)
