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
:mod:`surveys.files`. The checks of single values and the problem report are
:mod:`surveys.schema_checks`; a question's ``design`` is
:mod:`surveys.schema_designs`; the ``targets`` are :mod:`surveys.schema_targets`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import date

from surveys.arms import arm_shares_problems
from surveys.conditions import ConditionError, parse_condition
from surveys.definition import (
    DEFAULT_BURST_CEILING,
    DEFAULT_DELTA,
    PAIRED_STATEMENT_CHOICES,
    QUESTION_TYPES,
    SELECT_ONE,
    YES_NO,
    YES_NO_CHOICES,
    Choice,
    Question,
    Survey,
)
from surveys.design_contract import NUMBER_TYPES, QUESTION_NAME_PATTERN
from surveys.form_fields import CONTROL_FIELDS
from surveys.schema_anchor import ANCHOR_KEYS, parse_anchor
from surveys.schema_checks import (
    INVALID,
    YAML_BOOLEAN_HINT,
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
from surveys.schema_designs import parse_design
from surveys.schema_numbers import (
    EPSILON_KEY,
    MULTIPLE_KEYS,
    NUMBER_KEYS,
    check_multiple_choices,
    misplaced_keys,
    parse_number_design,
    parse_range,
)
from surveys.schema_releases import parse_releases
from surveys.schema_targets import (
    TARGET_KEYS,
    parse_close_when_targets_met,
    parse_targets,
    raw_question_names,
    written_question_names,
)
from surveys.schema_weights import parse_population_counts

__all__ = [
    "CHOICE_KEYS",
    "CHOICE_NAME_PATTERN",
    "LANGUAGE_PATTERN",
    "PAGE_BREAK",
    "QUESTION_KEYS",
    "QUESTION_NAME_PATTERN",
    "RESPONDENT_TEXT_KEYS",
    "SURVEY_ID_PATTERN",
    "SURVEY_KEYS",
    "TARGET_KEYS",
    "Problem",
    "SurveyFileError",
    "parse_survey",
]

SURVEY_ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")
CHOICE_NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")

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
QUESTION_KEYS = (
    "name",
    "type",
    "label",
    "hint",
    "required",
    "randomize",
    "choices",
    "design",
    "relevant",
    *NUMBER_KEYS,
    EPSILON_KEY,
    *MULTIPLE_KEYS,
    *ANCHOR_KEYS,
)
CHOICE_KEYS = ("name", "label")


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
    languages = _languages(report, mapping.get("languages"))
    if not languages and mapping.get("languages") is not None:  # reported: read the texts in a usable code
        usable = [str(code) for code in (mapping.get("languages") or []) if LANGUAGE_PATTERN.fullmatch(str(code))]
        mapping = _localize(None, mapping, usable[0], tuple(usable)) if usable else mapping
    if languages:
        translated = {
            lang: _localize(report if lang == languages[0] else None, mapping, lang, languages) for lang in languages
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
        "questions": _questions(report, mapping.get("questions")),
        "release_policy": parse_releases(report, mapping.get("releases")),
    }
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
    _check_conditions(report, values["questions"], written_question_names(mapping))
    values["pages"] = _pages(report, mapping.get("questions"), values["questions"])
    values["targets"] = parse_targets(report, mapping.get("targets"), values["questions"], raw_question_names(mapping))
    values["close_when_targets_met"] = parse_close_when_targets_met(
        report, mapping.get("close_when_targets_met"), values["targets"]
    )
    values["population_counts"] = parse_population_counts(report, mapping.get("population_counts"), values["questions"])
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


# -- languages: a text in several languages is a mapping {en: ..., fr: ...} ------------------------

LANGUAGE_PATTERN = re.compile(r"[a-z]{2,3}(-[A-Z]{2})?")


def _languages(report, value) -> tuple[str, ...]:
    """The file's languages (``languages: [en, fr]``, the default first); ``()`` when absent."""
    if value is None:
        return ()
    rule = "a list of at least two language codes such as [en, fr], the default first"
    codes = tuple(str(code) for code in value) if isinstance(value, list) else ()
    bad = any(not LANGUAGE_PATTERN.fullmatch(code) for code in codes) or len(set(codes)) != len(codes)
    if len(codes) < 2 or bad:
        report.add(None, "languages", f"must be {rule} (each once), got {describe(value)}")
        return ()
    return codes


def _is_translated(value, languages) -> bool:
    """A mapping whose keys are all language codes, one at least of the file: one text in several languages."""
    if not isinstance(value, Mapping) or not value:
        return False
    return all(LANGUAGE_PATTERN.fullmatch(str(key)) for key in value) and any(str(key) in languages for key in value)


def _localize(report, value, language: str, languages: tuple[str, ...], path: str = ""):
    """``value`` with every ``{en: ..., fr: ...}`` text replaced by its ``language`` text. With
    ``report``, a text that lacks a language is a problem naming where it is."""
    if _is_translated(value, languages):
        missing = [lang for lang in languages if lang not in value]
        unknown = [str(key) for key in value if str(key) not in languages]
        if report is not None and (missing or unknown):
            problem = f"not given in {', '.join(missing)}" if missing else f"in {', '.join(unknown)}, not in languages"
            report.add(None, path or None, f"the text is {problem}; give it in each of {', '.join(languages)}")
        return value.get(language, value.get(languages[0], next(iter(value.values()))))
    if isinstance(value, Mapping):
        return {
            key: _localize(report, item, language, languages, f"{path}.{key}".lstrip("."))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_localize(report, item, language, languages, f"{path}[{n}]") for n, item in enumerate(value, start=1)]
    return value


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


def _questions(report, value):
    """The tuple of questions; ``INVALID`` entries are dropped after reporting."""
    if value is None:
        return report.add(None, "questions", "is required: a list of questions")
    if not isinstance(value, list):
        return report.add(None, "questions", f"must be a list of questions, got {describe(value)}")
    if not value:
        return report.add(None, "questions", "the list is empty; a survey needs at least one question")
    questions = []
    first_position: dict[str, int] = {}
    for position, entry in enumerate(value, start=1):
        if _is_page_break(entry):
            continue
        question = _question(report, position, entry)
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if isinstance(name, str) and QUESTION_NAME_PATTERN.fullmatch(name):
            if name in first_position:
                message = (
                    f"question #{position} has the same name as question #{first_position[name]}; names must be unique"
                )
                report.add(name, "name", message)
                continue
            first_position[name] = position
        if isinstance(question, Question):
            questions.append(question)
    return tuple(questions)


#: The entry of ``questions`` that starts a new page; its only other key is an optional ``label`` (not shown yet).
PAGE_BREAK = "page_break"


def _is_page_break(entry) -> bool:
    return isinstance(entry, Mapping) and entry.get("type") == PAGE_BREAK


def _pages(report, value, questions) -> tuple[tuple[str, ...], ...]:
    """The question names of each page, split at ``{type: page_break}`` entries; ``()`` without any.

    A break must stand between two questions: first, last or twice in a row it would make an empty page.
    """
    if not isinstance(value, list) or not any(_is_page_break(entry) for entry in value):
        return ()
    valid = {q.name for q in questions} if isinstance(questions, tuple) else set()
    pages: list[list[str]] = [[]]
    for position, entry in enumerate(value, start=1):
        if not _is_page_break(entry):
            name = entry.get("name") if isinstance(entry, Mapping) else None
            pages[-1].append(name if name in valid else None)
            continue
        check_keys(report, f"#{position}", "", entry, ("type",))
        if not pages[-1] or position == len(value):
            report.add(f"#{position}", "type", "a page_break must stand between two questions (no empty page)")
        pages.append([])
    return tuple(tuple(name for name in page if name) for page in pages if page)


def _question(report, position: int, entry):
    if not isinstance(entry, Mapping):
        message = f"each question must be a mapping with name, type and label, got {describe(entry)}"
        return report.add(f"#{position}", None, message)
    raw_name = entry.get("name")
    where = raw_name if isinstance(raw_name, str) and raw_name else f"#{position}"
    check_keys(report, where, "", entry, QUESTION_KEYS)
    rule = "a lower-case letter then lower-case letters, digits or _, such as cheated_once"
    name = check_pattern(report, where, "name", raw_name, QUESTION_NAME_PATTERN, rule)
    if isinstance(name, str) and name in CONTROL_FIELDS:
        name = report.add(where, "name", f"{name!r} is used by the form itself; choose another name")
    qtype = entry.get("type")
    if qtype is None:
        qtype = report.add(where, "type", f"is required: one of {', '.join(QUESTION_TYPES)}")
    elif qtype not in QUESTION_TYPES:
        message = f"unknown type {qtype!r}; use one of {', '.join(QUESTION_TYPES)}"
        qtype = report.add(where, "type", message)
    label = check_text(report, where, "label", entry.get("label"), required=True)
    hint = check_text(report, where, "hint", entry.get("hint"), required=False)
    required = check_flag(report, where, "required", entry.get("required"), default=True)
    randomize = check_flag(report, where, "randomize", entry.get("randomize"), default=True)
    choices = check_multiple_choices(report, where, qtype, _choices(report, where, qtype, entry.get("choices")))
    misplaced_keys(report, where, qtype, entry)
    number = parse_range(report, where, qtype, entry)
    if qtype in (YES_NO, SELECT_ONE):
        design = parse_design(report, where, qtype, randomize, entry.get("design"), choices)
    else:
        design = parse_number_design(report, where, qtype, randomize, entry, number, choices)
    innocuous = _innocuous(report, where, design, entry.get("design"))
    relevant = _relevant(report, where, entry.get("relevant"))
    parts = (name, qtype, label, hint, required, randomize, choices, design, innocuous, relevant, number)
    if any(part is INVALID for part in parts):
        return INVALID
    choices = PAIRED_STATEMENT_CHOICES.get(getattr(design, "kind", None), choices)
    return Question(name, qtype, label, hint, required, randomize, choices, design, innocuous, relevant, number)


def _relevant(report, where, value):
    """The skip-logic condition as written (:mod:`surveys.conditions`); what it may name is checked later."""
    if value is None:
        return None
    try:
        return parse_condition(value)
    except ConditionError as error:
        return report.add(where, "relevant", str(error))


def _check_conditions(report, questions, written: list[str]) -> None:
    """Each condition names only earlier questions that are not randomized, and only their choices.

    The privacy rule: whether a question is shown must not depend on a
    randomized question's true answer, or showing it (or the page's length)
    would reveal that answer; and a condition decided by later answers could
    not be applied while answering. ``written`` is every question name of the
    file in order, valid or not (a broken question is reported once, by itself).
    """
    if not isinstance(questions, tuple):
        return
    before: dict[str, Question] = {}
    for q in questions:
        for compare in q.relevant.comparisons() if q.relevant is not None else ():
            problem = _comparison_problem(q, compare, before, written)
            if problem:
                report.add(q.name, "relevant", problem)
        before[q.name] = q


def _comparison_problem(question: Question, compare, before: dict, written: list[str]) -> str | None:
    """Why ``compare`` may not appear in ``question``'s condition, or None."""
    name = compare.question
    if name not in before:
        if name not in written:
            return f"there is no question called {name!r}"
        if written.index(name) >= written.index(question.name):
            return f"{name!r} is not before this question; a condition may name only earlier questions"
        return None  # an earlier question that is broken, reported by itself
    if before[name].is_randomized:
        return (
            f"{name!r} is randomized; a condition may name only questions with randomize: false, "
            f"because whether a question is shown would otherwise reveal the true answer to {name!r}"
        )
    if compare.value not in before[name].choice_names:
        return f"{compare.value!r} is not an answer to {name!r}; its answers are {', '.join(before[name].choice_names)}"
    return None


def _innocuous(report, where, design, value):
    """The innocuous statement of a crosswise or triangular design (required there, refused elsewhere)."""
    if design is INVALID or not isinstance(value, Mapping):
        return ""
    kind = getattr(design, "kind", None)
    if kind not in PAIRED_STATEMENT_CHOICES:
        return ""
    if value.get("innocuous") is None:
        message = (
            f"is required for a {kind} design: the innocuous statement shown beside the question, whose "
            f"“yes” share is q, such as “My mother's birthday is in January, February or March.” (q: 1/4)"
        )
        return report.add(where, "design.innocuous", message)
    return check_text(report, where, "design.innocuous", value.get("innocuous"), required=True)


def _choices(report, where, qtype, value):
    if qtype is INVALID:
        return INVALID
    if qtype == YES_NO:
        if value is not None:
            message = "a yes_no question has the choices yes and no already; remove choices or use type select_one"
            return report.add(where, "choices", message)
        return YES_NO_CHOICES
    if qtype in NUMBER_TYPES:
        if value is not None:
            return report.add(where, "choices", f"an {qtype} question has no choices; give min and max")
        return ()
    if value is None:
        message = f"a {qtype} question needs choices: a list of at least 2 options"
        return report.add(where, "choices", message)
    if not isinstance(value, list):
        return report.add(where, "choices", f"must be a list of options, got {describe(value)}")
    if len(value) < 2:
        return report.add(where, "choices", f"needs at least 2 options, got {len(value)}")
    choices = []
    first_position: dict[str, int] = {}
    for position, entry in enumerate(value, start=1):
        choice = _choice(report, where, position, entry)
        if choice is INVALID:
            continue
        if choice.name in first_position:
            message = (
                f"choice {position} has the name {choice.name!r} of choice "
                f"{first_position[choice.name]}; names must be unique"
            )
            report.add(where, "choices", message)
            continue
        first_position[choice.name] = position
        choices.append(choice)
    return tuple(choices) if len(choices) == len(value) else INVALID


def _choice(report, where, position: int, entry):
    rule = (
        "a letter or digit, then letters, digits, _ . or - (at most 63), such as "
        "a_few_times; for a longer label write {name: a_few_times, label: A few times}"
    )
    if isinstance(entry, int) and not isinstance(entry, bool):
        entry = str(entry)
    if isinstance(entry, str):
        if not CHOICE_NAME_PATTERN.fullmatch(entry):
            return report.add(where, "choices", f"choice {position} {entry!r}: a name must be {rule}")
        return Choice(entry, entry)
    if isinstance(entry, Mapping):
        before = len(report.problems)
        check_keys(report, where, "choices.", entry, CHOICE_KEYS)
        name = entry.get("name")
        if name is None or not isinstance(name, str) or not CHOICE_NAME_PATTERN.fullmatch(name):
            report.add(where, "choices", f"choice {position}: name must be {rule}, got {describe(name)}")
        label = entry.get("label")
        if not isinstance(label, str) or not label.strip():
            message = f"choice {position}: label must be non-empty text, got {describe(label)}"
            report.add(where, "choices", message)
        if len(report.problems) > before:
            return INVALID
        return Choice(name, label.strip())
    hint = f"; {YAML_BOOLEAN_HINT}" if isinstance(entry, bool) else ""
    message = f"choice {position} must be text or a mapping {{name:, label:}}, got {describe(entry)}{hint}"
    return report.add(where, "choices", message)
