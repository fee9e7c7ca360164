"""The tests' own surveys (so the shipped examples can change freely): their YAML texts, hostile survey files,
and the parsed surveys and tallies built from them."""

from __future__ import annotations

#: A survey written for the tests, so the shipped examples can change freely.
QUIZ_YAML = """\
id: quiz
title: Test quiz
version: 1
intro: Answers are randomized.
questions:
  - name: cheated
    type: yes_no
    label: Have you ever cheated on an exam?
  - name: lied
    type: yes_no
    label: Have you lied to a professor?
    required: false
    design: {t: 2/3, a: 1/6, b: 1/6}
  - name: ai_use
    type: select_one
    label: How often have you used AI-written text as your own?
    choices: [never, once, sometimes, often]
    design: {t: 1/2}
  - name: year
    type: select_one
    label: Year of study
    choices: [first, second, third, fourth]
    randomize: false
"""


#: The quiz with skip logic: two questions asked only of first-years, one only of those living on campus.
SKIP_YAML = (
    QUIZ_YAML
    + """\
  - name: first_exam
    type: yes_no
    label: Did you cheat in your very first exam?
    relevant: ${year} = 'first'
  - name: residence
    type: select_one
    label: Where do you live?
    choices: [{name: campus, label: On campus}, {name: home, label: At home}]
    randomize: false
    relevant: ${year} = 'first'
  - name: campus_help
    type: yes_no
    label: Have you had a housemate write coursework for you?
    relevant: ${residence} = 'campus'
"""
)


#: The skip-logic quiz on three pages: [cheated, lied] | [ai_use, year, first_exam] | [residence, campus_help].
#: first_exam and campus_help depend on a question of their own page, residence on one of an earlier page.
PAGED_YAML = (
    SKIP_YAML.replace("  - name: ai_use\n", "  - type: page_break\n  - name: ai_use\n")
    .replace("  - name: residence\n", "  - type: page_break\n  - name: residence\n")
    .replace("id: quiz\n", "id: paged\n")
)


#: Issue 23's survey of two pages: page 2 asks managers two more required questions (skip logic decided by page 1),
#: one randomized (two coins) and one plain.
MANAGERS_YAML = """\
id: managers
title: Team survey
version: 1
intro: Two short pages.
questions:
  - name: role
    type: select_one
    label: Your role
    choices: [{name: manager, label: Manager}, {name: staff, label: Staff}]
    randomize: false
  - type: page_break
  - name: overtime
    type: yes_no
    label: Have you worked unpaid overtime this month?
  - name: pressured
    type: yes_no
    label: Have you pressured someone to work unpaid overtime?
    relevant: ${role} = 'manager'
  - name: team
    type: select_one
    label: How large is your team?
    choices: [{name: small, label: Under ten}, {name: large, label: Ten or more}]
    randomize: false
    relevant: ${role} = 'manager'
"""


#: The paged quiz in English and French, question for question (same names, choices and conditions as
#: :data:`PAGED_YAML`), for the browser test of a respondent choosing a language.
PAGED_TWO_LANGUAGES_YAML = """\
id: paged2
languages: [en, fr]
title: {en: Test quiz on three pages, fr: Questionnaire de test en trois pages}
version: 1
intro: {en: Answers are randomized., fr: Les réponses sont tirées au sort.}
questions:
  - name: cheated
    type: yes_no
    label: {en: "Have you ever cheated on an exam?", fr: "Avez-vous déjà triché à un examen ?"}
  - name: lied
    type: yes_no
    label: {en: "Have you lied to a professor?", fr: "Avez-vous menti à un professeur ?"}
    required: false
    design: {t: 2/3, a: 1/6, b: 1/6}
  - type: page_break
  - name: ai_use
    type: select_one
    label:
      en: How often have you used AI-written text as your own?
      fr: Avez-vous rendu un texte écrit par une IA ?
    choices:
      - {name: never, label: {en: never, fr: jamais}}
      - {name: once, label: {en: once, fr: une fois}}
      - {name: sometimes, label: {en: sometimes, fr: parfois}}
      - {name: often, label: {en: often, fr: souvent}}
    design: {t: 1/2}
  - name: year
    type: select_one
    label: {en: Year of study, fr: "Année d'études"}
    choices:
      - {name: first, label: {en: first, fr: première}}
      - {name: second, label: {en: second, fr: deuxième}}
      - {name: third, label: {en: third, fr: troisième}}
      - {name: fourth, label: {en: fourth, fr: quatrième}}
    randomize: false
  - name: first_exam
    type: yes_no
    label: {en: "Did you cheat in your very first exam?", fr: "Avez-vous triché à votre tout premier examen ?"}
    relevant: ${year} = 'first'
  - type: page_break
  - name: residence
    type: select_one
    label: {en: "Where do you live?", fr: "Où logez-vous ?"}
    choices:
      - {name: campus, label: {en: On campus, fr: Sur le campus}}
      - {name: home, label: {en: At home, fr: Chez moi}}
    randomize: false
    relevant: ${year} = 'first'
  - name: campus_help
    type: yes_no
    label:
      en: Have you had a housemate write coursework for you?
      fr: Un colocataire a-t-il rédigé un devoir pour vous ?
    relevant: ${residence} = 'campus'
"""


#: Two pages: a two-group design on the first (stochastic lie detector), a plain question and a two-coin one on
#: the second; and a direct-question control arm (tests/test_pages.py, tests/test_browser_pages.py). Every
#: denominator is 4, so the browser tests' fixed draw (2^32 - 5) is never rejected by randomBelow.
PAGED_ARMS_YAML = """\
id: armed
title: Armed
version: 1
direct_share: 1/4
questions:
  - name: evaded
    type: yes_no
    label: Evaded?
    design: {model: stochastic_lie_detector, p1: 1/4, p2: 3/4}
  - type: page_break
  - name: year
    type: select_one
    label: Year
    choices: [first, second]
    randomize: false
  - name: cheated
    type: yes_no
    label: Cheated?
"""


#: A survey for the results and export tests: a plain question with labelled choices.
DEPT_SURVEY_YAML = (
    QUIZ_YAML.replace("intro: Answers are randomized.\n", "")
    .replace("  - name: year\n", "  - name: dept\n")
    .replace(
        "    label: Year of study\n    choices: [first, second, third, fourth]\n",
        "    label: Department\n"
        "    choices: [{name: arts, label: Arts}, {name: science, label: Science}, {name: law, label: Law}]\n",
    )
)


#: Issue 24's hostile survey files. A 10 KB file of lists nested 5,000 deep (RecursionError in PyYAML's composer).
DEEP_YAML = "id: deep\ntitle: Deep\nversion: 1\nquestions: " + "[" * 5000 + "]" * 5000 + "\n"


#: "Billion laughs": nine lists of nine aliases of the list before, 9**9 strings once expanded, in 400 bytes.
ALIAS_BOMB_YAML = (
    "id: laughs\nversion: 1\nquestions:\n"
    + '  - &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n'
    + "".join(f"  - &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True))
    + "title: *i\n"
)


def make_survey(text: str = DEPT_SURVEY_YAML, **changes):
    """Parse a survey from YAML text, with top-level keys replaced by ``changes``."""
    import yaml

    from surveys.schema import parse_survey

    mapping = yaml.safe_load(text)
    mapping.update(changes)
    return parse_survey(mapping, "quiz.yaml")


def survey_in(app, survey_id: str = "quiz"):
    """The app's loaded survey ``survey_id``."""
    from web.catalog import get_catalog

    with app.app_context():
        return get_catalog().surveys[survey_id]


def model_survey(plain_questions: int = 2, choices: int = 3):
    """A survey with two randomized yes/no questions and ``plain_questions`` plain ones of ``choices`` each."""
    from surveys.schema import parse_survey

    plain = [
        {
            "name": f"p{index}",
            "type": "select_one",
            "label": f"P{index}",
            "choices": [f"c{c}" for c in range(choices)],
            "randomize": False,
            "required": False,
        }
        for index in range(plain_questions)
    ]
    questions = [
        {"name": "cheated", "type": "yes_no", "label": "Cheated?"},
        {
            "name": "lied",
            "type": "yes_no",
            "label": "Lied?",
            "required": False,
            "design": {"t": "2/3", "a": "1/6", "b": "1/6"},
        },
        *plain,
    ]
    return parse_survey({"id": "m", "title": "M", "version": 1, "questions": questions}, "m.yaml")


#: A survey with both two-group designs and a direct-question control arm (surveys/arms.py).
TWO_GROUP_YAML = """\
id: twogroup
title: Two-group designs
version: 1
direct_share: 1/5
questions:
  - name: evaded
    type: yes_no
    label: I have evaded taxes.
    design: {model: stochastic_lie_detector, p1: 1/3, p2: 2/3}
  - name: doped
    type: yes_no
    label: I have used doping.
    design: {model: cheater_detection, p1: 1/4, p2: 3/5}
  - name: region
    type: select_one
    label: Region
    choices: [north, south]
    randomize: false
"""


def two_group_tallies(survey, counts: dict) -> dict:
    """Tallies ``{question: {design key: {answer: count}}}`` from ``{question: {arm: (yes, no)}}``."""
    from surveys.design_contract import question_design_key

    return {
        name: {
            question_design_key(survey.question(name), arm): {"yes": yes, "no": no} for arm, (yes, no) in by_arm.items()
        }
        for name, by_arm in counts.items()
    }


#: RRTCS's real survey (Cobo, Rueda and Arcos 2021, vignette "Application of Horvitz model to a real survey"):
#: 710 of 10,777 students, the unrelated-question design with p = 1/2 and the innocuous share q = 1/12 of
#: "copied"; 328 stored yes give the printed estimate 0.8406103 and variance 0.001389716.
RRTCS_SURVEY_YAML = """\
id: rrtcs
title: RRTCS real survey
version: 1
population_size: 10777
questions:
  - name: copied
    type: yes_no
    label: I have copied in an exam.
    design: {model: unrelated_question, p: 1/2, q: 1/12}
  - name: year
    type: select_one
    label: Year
    choices: [first, second]
    randomize: false
"""


#: The k-option design with t = 1/2, k = 4 written as a misclassification matrix (each option forced with 1/8),
#: in place of a question's ``design: {t: 1/2}`` line: ``text.replace(K_OPTION_DESIGN_LINE, K_OPTION_AS_MATRIX)``.
K_OPTION_DESIGN_LINE = "    design: {t: 1/2}\n"


K_OPTION_AS_MATRIX = (
    "    design:\n      matrix: [[5/8, 1/8, 1/8, 1/8], [1/8, 5/8, 1/8, 1/8],"
    " [1/8, 1/8, 5/8, 1/8], [1/8, 1/8, 1/8, 5/8]]\n"
)


#: Issue 27's numbers and check-all-that-apply questions on two pages: a yes/no, a randomized integer and a
#: randomized check-all-that-apply question on the first; a randomized decimal and a plain integer on the second
#: (tests/test_pages_numbers.py, tests/test_sizes.py, tests/test_browser_numbers.py).
PAGED_NUMBERS_YAML = """\
id: paged-habits
title: Habits over two pages
version: 1
questions:
  - name: cheated
    type: yes_no
    label: Have you ever cheated on an exam?
  - name: drinks
    type: integer
    label: On how many days did you drink more than five glasses?
    min: 0
    max: 30
    mechanism: laplace
  - name: done
    type: select_multiple
    label: Which of these have you done this term?
    choices:
      - {name: copied, label: Copied homework}
      - {name: fake_excuse, label: Gave a false excuse}
      - {name: ghostwriter, label: Paid a ghostwriter}
    epsilon: 2
  - type: page_break
  - name: unpaid_hours
    type: decimal
    label: How many hours of work did you claim but not do?
    min: 0
    max: 20
    step: 0.5
    epsilon: 3.5
    mechanism: laplace
  - name: age
    type: integer
    label: Your age
    randomize: false
    min: 16
    max: 99
"""


#: A direct-question control arm beside a yes/no and a randomized number (one bit: stored 0 or 1, never a true
#: position), which stays randomized in that arm (tests/test_respond.py, tests/test_browser_numbers.py).
DIRECT_NUMBERS_YAML = """\
id: direct-numbers
title: Direct arm beside a number
version: 1
direct_share: 1/4
questions:
  - name: cheated
    type: yes_no
    label: Cheated?
  - name: drinks
    type: integer
    label: How many days?
    min: 0
    max: 30
    mechanism: bounded
"""


def quiz_with_releases(epsilon: str = "1", min_new_answers: int = 5, delta: str = "0", rows_per_person: int = 1) -> str:
    """The quiz with a ``releases:`` key (issue 28): the budget, the answers needed between releases, the rows
    one person may give."""
    return QUIZ_YAML + (
        f"releases:\n  budget: {{epsilon: {epsilon}, delta: {delta}}}\n"
        f"  min_new_answers: {min_new_answers}\n  rows_per_person: {rows_per_person}\n"
    )


#: A survey with an anchor question of known prevalence 1/2 (surveys/schema_anchor.py) and one other yes/no question.
ANCHORED_YAML = """\
id: anchored
title: Anchored
version: 1
questions:
  - name: half
    type: yes_no
    label: Is your birthday in the first half of the year?
    known_prevalence: 1/2
  - name: cheated
    type: yes_no
    label: Did you cheat?
"""


#: The quiz drawn class by class (tests/test_sample_design.py, tests/test_browser_sample_design.py): four classes
#: in two faculties with their design weights and fpc, N = 400; a plain ``class`` question names the cluster, and
#: a one-choice question under a misclassification matrix (``method``) is not design-weighted.
SAMPLE_DESIGN_YAML = (
    QUIZ_YAML.replace(
        "questions:\n",
        "population_size: 400\nsample_design:\n  clusters: class\n"
        "  strata: {arts: [c1, c2], science: [c3, c4]}\n  weights: {c1: 10, c2: 10, c3: 4, c4: 4}\n"
        "  fpc: {arts: 20, science: 8}\nquestions:\n",
        1,
    )
    + "  - name: class\n    type: select_one\n    label: Your class\n"
    "    choices: [c1, c2, c3, c4]\n    randomize: false\n"
    "  - name: method\n    type: select_one\n    label: How did you cheat?\n    required: false\n"
    "    choices: [notes, phone, friend]\n"
    "    design: {matrix: [[3/5, 1/10, 1/5], [1/4, 7/10, 1/5], [3/20, 1/5, 3/5]]}\n"
)


#: An extended crosswise question (tests/test_extended_crosswise_survey.py, tests/test_browser_extended_crosswise.py).
ECWM_FIRST = "My mother's birthday is in January, February or March."
ECWM_SECOND = "My mother's birthday is between April and December."
ECWM_YAML = f"""
id: ecwm
title: Cannabis
version: 1
questions:
  - name: cannabis
    type: yes_no
    label: I have used cannabis in the past 12 months.
    design:
      model: crosswise
      q: 1/4
      innocuous: "{ECWM_FIRST}"
      extended:
        innocuous: "{ECWM_SECOND}"
"""
