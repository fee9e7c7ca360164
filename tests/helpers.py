"""Helpers shared by the tests: the test surveys, a respondent and an admin driving the real
forms, seeding and dumping the database, reading messages off a page, a gunicorn server for the
reliability and log tests, and the privacy audit of a randomizer.

Fixtures live in ``conftest.py``; test modules import helpers from here and never from each other.

The privacy audit
-----------------
The empirical privacy audit shared by the server and browser randomizer tests.

For every pair of true answers (x, x') and every report r, the likelihood
ratio P[r | x] / P[r | x'] is bounded from below by (one-sided
Clopper-Pearson lower bound of P[r | x]) / (one-sided upper bound of
P[r | x']). If that lower bound exceeds e^epsilon, the randomizer leaks more
than its design allows. Each observed rate's two-sided interval must also
contain the design's value.

Family confidence 99.9% by Bonferroni: with m bounds in all, each is taken
at level 1 - 0.001 / m, so a correct randomizer fails with probability at
most 0.1%.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from itertools import permutations
from pathlib import Path

import requests
from scipy.stats import beta
from werkzeug.serving import make_server

from app import ROOT
from storage import responses
from storage.connection import DUMP_WITHOUT_DATA
from surveys import protocol
from surveys.files import load_catalog
from surveys.submission import noisy_response
from web.db import open_database

#: Why a browser test runs on SQLite only (``pytest.mark.sqlite_only(reason=...)``): what it checks is the page and
#: its script; the server's side of every request it makes runs on both backends in tests without a browser.
BROWSER_ONLY_ON_SQLITE = (
    "a browser test checks the page and its script in Chromium; what the server does with the requests is "
    "tested on both backends without a browser (test_respond.py, test_pages.py, test_security.py)"
)
N_DRAWS = 100_000
FAMILY_ALPHA = 0.001


def clopper_pearson_lower(successes: int, n: int, alpha: float) -> float:
    """One-sided exact lower bound at level 1 - alpha (Clopper and Pearson 1934)."""
    return 0.0 if successes == 0 else float(beta.ppf(alpha, successes, n - successes + 1))


def clopper_pearson_upper(successes: int, n: int, alpha: float) -> float:
    """One-sided exact upper bound at level 1 - alpha."""
    return 1.0 if successes == n else float(beta.ppf(1 - alpha, successes + 1, n - successes))


def audit(counts: dict, n: int, epsilon: float, expected: dict) -> list[str]:
    """Return the audit's failures; ``counts[x][r]`` = times report r was seen for truth x.

    ``expected[x][r]`` is the design's P[r | x].
    """
    truths = list(counts)
    reports = sorted({r for x in truths for r in expected[x]})
    ratio_bounds = len(list(permutations(truths, 2))) * len(reports) * 2
    rate_checks = len(truths) * len(reports) * 2
    per_bound = FAMILY_ALPHA / (ratio_bounds + rate_checks)
    failures = []
    for x, other in permutations(truths, 2):
        for r in reports:
            lower = clopper_pearson_lower(counts[x][r], n, per_bound)
            upper = clopper_pearson_upper(counts[other][r], n, per_bound)
            if upper == 0 or lower / upper > math.exp(epsilon):
                failures.append(f"P[{r}|{x}]/P[{r}|{other}] >= {lower / upper:.4f} > e^eps")
    for x in truths:
        for r in reports:
            lower = clopper_pearson_lower(counts[x][r], n, per_bound)
            upper = clopper_pearson_upper(counts[x][r], n, per_bound)
            if not lower <= expected[x][r] <= upper:
                failures.append(f"P[{r}|{x}] in [{lower:.4f}, {upper:.4f}] misses {expected[x][r]}")
    return failures


def yes_no_expected(design):
    """The design's P[r | x] for a true yes or no, from its own two yes-probabilities."""
    theta1, theta0 = (float(p) for p in design.yes_probabilities())
    return {
        protocol.YES: {protocol.YES: theta1, protocol.NO: 1 - theta1},
        protocol.NO: {protocol.YES: theta0, protocol.NO: 1 - theta0},
    }


def multiple_choice_expected(design, choices):
    """The design's P[r | x] for every true option x and report r, from its own t and k."""
    t, q = float(design.t), float(design.uniform_share)
    return {x: {r: (t if r == x else 0) + q for r in choices} for x in choices}


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


#: Interface words that must not be left in English on a translated page (tests/test_translations.py,
#: tests/test_browser_languages.py) (the quiz's own texts are English:
#: none of these occurs in them).
ENGLISH_INTERFACE_WORDS = (
    "Your privacy",
    "How your answers are protected",
    "Please answer truthfully",
    "randomized before they are stored",
    "Your true answer is stored",
    "Two coins are flipped",
    "Whatever anyone believed",
    "differential privacy",
    "We store no name",
    "marks a question that needs an answer",
    "(optional)",
    "(required)",
    "No answer",
    "Not randomized",
    "Submit answers",
    "Skip to content",
    "Private surveys",
    "Researchers: sign in",
    "Thank you",
    "have been received",
    "What was stored",
    "These are the answers as stored",
    "chose it, not you",
    "(not randomized)",
    "See the surveys open on this site",
    "Your answers were not sent",
    "Please choose",
    "This browser",
    "You have already answered",
)
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


def wire_form(survey, answers: dict, device: bool = False) -> dict:
    """The answer fields a browser posts for ``answers`` (``{question: choice name}``), in form order.

    Every question is sent as its fixed-width wire value (``web.forms.wire_value``),
    an optional (or skip-logic) question left out as "no answer", under ``rr-<name>`` when
    ``device``. A value that is not a choice name and a key that is not a
    question are sent as given, for the tests of refusals.
    """
    from web.forms import may_be_blank, wire_value

    prefix = "rr-" if device else ""
    names = {q.name for q in survey.questions}
    fields = {}
    for q in survey.questions:
        if q.name in answers:
            value = answers[q.name]
            fields[prefix + q.name] = wire_value(q, value) if value in q.choice_names else value
        elif may_be_blank(q):
            fields[prefix + q.name] = wire_value(q, None)
    fields.update({prefix + key: value for key, value in answers.items() if key not in names})
    return fields


def survey_in(app, survey_id: str = "quiz"):
    """The app's loaded survey ``survey_id``."""
    from web.catalog import get_catalog

    with app.app_context():
        return get_catalog().surveys[survey_id]


class Respondent:
    """Drives the survey form through the test client, as a browser without JavaScript would."""

    def __init__(self, client):
        self.client = client

    def open_form(self, survey_id: str = "quiz", **params) -> dict:
        page = self.client.get(f"/s/{survey_id}", query_string=params)
        assert page.status_code == 200, page.get_data(as_text=True)
        html = page.get_data(as_text=True)
        controls = {
            "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
            "submission_key": re.search(r'name="submission_key" type="hidden" value="([^"]+)"', html).group(1),
        }
        arm = re.search(r'name="arm" value="(.)"', html)  # a survey with groups or a control arm (surveys/arms.py)
        return controls | ({"arm": arm.group(1)} if arm else {})

    def submit(self, answers: dict, survey_id: str = "quiz", device: bool = False, controls=None):
        controls = controls if controls is not None else self.open_form(survey_id)
        data = dict(controls)
        if device:
            data["randomized_on"] = "device"
        data.update(wire_form(survey_in(self.client.application, survey_id), answers, device))
        return self.client.post(f"/s/{survey_id}", data=data)


def csrf_token_in(html: str) -> str:
    return re.search(r'name="csrf_token"(?: type="hidden")? value="([^"]+)"', html).group(1)


ADMIN_NAME = "researcher"


ADMIN_PASSWORD = "correct horse battery"


class AdminSession:
    """Signs in through the real form, CSRF token and all."""

    def __init__(self, client, app):
        self.client = client
        self.app = app

    def csrf_token(self, path: str = "/admin/login") -> str:
        return csrf_token_in(self.client.get(path).get_data(as_text=True))

    def login(self, name: str = ADMIN_NAME, password: str = ADMIN_PASSWORD):
        token = self.csrf_token()
        return self.client.post("/admin/login", data={"csrf_token": token, "name": name, "password": password})

    def logout(self):
        token = self.csrf_token("/admin/")
        return self.client.post("/admin/logout", data={"csrf_token": token})


def add_responses(app, answers_list, randomized_on="device", day="2026-11-22"):
    """Store noisy answers directly, as the submission path would, on ``day``."""
    survey = load_catalog(app.config["SURVEYS_DIR"]).get("quiz")
    db = open_database(app)
    for i, answers in enumerate(answers_list):
        key = f"seed-{i:08d}-{len(answers_list):06d}"
        key = key if day == "2026-11-22" else f"{key}-{day}"
        responses.store_response(db, noisy_response(survey, answers, randomized_on), key, day)
    db.close()


def many(n_yes: int, n_no: int):
    years = ["first", "second"]
    return [
        {
            "cheated": "yes" if i < n_yes else "no",
            "ai_use": ["never", "once", "sometimes", "often"][i % 4],
            "year": years[i % 2],
        }
        for i in range(n_yes + n_no)
    ]


def dump(app) -> dict[str, list[tuple]]:
    """Every row of every table, sorted: equal dumps mean an unchanged database. The rate-limit counts
    are left out, as on SQLite, where they are in a file of their own (on PostgreSQL, in the same database)."""
    db = open_database(app)
    try:
        return dump_database(db)
    finally:
        db.close()


def dump_database(db) -> dict[str, list[tuple]]:
    """:func:`dump` read through an open connection (a test that dumps after every request keeps one:
    a new PostgreSQL connection costs ten times the reading)."""
    return {
        table: sorted(map(tuple, db.execute(f'SELECT * FROM "{table}"').fetchall()), key=repr)
        for table in db.table_names()
        if table not in DUMP_WITHOUT_DATA
    }


def stored_bytes(app) -> bytes:
    """Everything ``app`` has stored, to search for what must not be there. On SQLite: the bytes of the
    database file and of the rate-limit file, each with its WAL (both files must exist). On PostgreSQL:
    every row of every table of the app's database, the rate-limit counts included, as text."""
    if not app.config.get("DATABASE_URL"):
        files = [Path(app.config["DATABASE"]), Path(app.config["RATELIMIT_DATABASE"])]
        return b"".join(
            path.read_bytes() + b"".join(extra.read_bytes() for extra in path.parent.glob(path.name + "-*"))
            for path in files
        )
    db = open_database(app)
    try:
        return "\n".join(
            text
            for table in db.table_names()  # names from the catalog, not input
            for (text,) in db.execute(f'SELECT CAST("{table}" AS TEXT) FROM "{table}"').fetchall()
        ).encode()
    finally:
        db.close()


MESSAGE = re.compile(r'<p class="message">(.*?)</p>|role="alert">(.*?)</|role="status">(.*?)</', re.S)


def message_of(response) -> str:
    """The sentence an error page shows (error, alert or notice), tags stripped."""
    html = response.get_data(as_text=True)
    texts = (re.sub(r"<[^>]+>", "", group).strip() for m in MESSAGE.finditer(html) for group in m.groups() if group)
    return " ".join(t for t in texts if t)


WORKERS = 3


ANSWERS = {
    **wire_form(make_survey(QUIZ_YAML), {"cheated": "yes", "ai_use": "once", "year": "first"}, device=True),
    "randomized_on": "device",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """Gunicorn in its own process group, so a test can SIGKILL all of it."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.database = tmp_path / "load.sqlite3"
        surveys = tmp_path / "surveys"
        surveys.mkdir(exist_ok=True)
        (surveys / "quiz.yaml").write_text(QUIZ_YAML)
        self.env = {
            **os.environ,
            "FLASK_DATABASE": str(self.database),
            "FLASK_SURVEYS_DIR": str(surveys),
            "FLASK_SECRET_KEY": "reliability-test-key",
            "FLASK_RATELIMIT_ENABLED": "false",
        }
        self.log = tmp_path / "server.log"
        self.process = None
        self.workers = WORKERS

    def start(self) -> str:
        port = free_port()
        with self.log.open("ab") as log:  # the child keeps its own copy of the descriptor
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "-c",
                    "gunicorn.conf.py",
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    str(self.workers),
                    "app:create_app()",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.url}/s/quiz", timeout=10).status_code == 200:
                    return self.url
            except requests.RequestException:  # not listening yet, or slow on a busy machine
                time.sleep(0.1)
            if self.process.poll() is not None:
                break
        self.stop()
        raise AssertionError(f"gunicorn did not answer within 30 s:\n{self.log.read_text()}")

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


@contextlib.contextmanager
def served(app) -> Iterator[str]:
    """``app`` served by Werkzeug's threaded server on a free loopback port, in a thread; yields its base URL.

    The port is bound when ``make_server`` returns, so no wait. The server looks for the request to stop
    every 20 ms instead of socketserver's default 0.5 s, which every browser test spent at teardown."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class Client:
    """One respondent machine: gets a CSRF token once, then submits with fresh keys."""

    def __init__(self, url: str):
        self.url = url
        self.session = requests.Session()
        html = self.session.get(f"{url}/s/quiz", timeout=10).text
        self.token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
        self.acknowledged: list[str] = []
        self.statuses: list[int] = []
        self.errors = 0

    def submit(self, key: str) -> None:
        self.session.cookies.pop("rr_done_quiz", None)
        try:
            response = self.session.post(
                f"{self.url}/s/quiz", data={**ANSWERS, "csrf_token": self.token, "submission_key": key}, timeout=30
            )
        except requests.RequestException:
            self.errors += 1  # no answer: not acknowledged, may or may not be stored
            return
        self.statuses.append(response.status_code)
        if response.status_code == 200 and "Thank you" in response.text:
            self.acknowledged.append(key)

    def run(self, rounds: int, stop: threading.Event) -> None:
        for _ in range(rounds):
            if stop.is_set():
                return
            key = secrets.token_urlsafe(18)
            self.submit(key)
            if self.acknowledged and self.acknowledged[-1] == key and len(self.acknowledged) % 3 == 0:
                self.submit(key)  # a retry of a stored submission: answered, not stored again


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


def store_model_answers(db, survey, count: int, seed: int = 3) -> None:
    import numpy as np

    from surveys.submission import noisy_response

    rng = np.random.default_rng(seed)  # test data only, not a privacy path
    for i in range(count):
        noisy = {"cheated": str(rng.choice(["yes", "no"]))}
        if rng.random() < 0.7:
            noisy["lied"] = str(rng.choice(["yes", "no"]))
        for q in survey.plain_questions:
            if rng.random() < 0.9:
                noisy[q.name] = str(rng.choice(q.choice_names))
        responses.store_response(db, noisy_response(survey, noisy, "server"), f"model-key-{seed}-{i:06d}", "2026-11-22")


def model_answers(count: int = 400) -> list[dict]:
    """Noisy answers whose stored yes share differs by year (first 35%, second 60%, third 45%)."""
    shares = {"first": 0.35, "second": 0.6, "third": 0.45}
    answers = []
    for i in range(count):
        year = ["first", "second", "third"][i % 3]
        answers.append({"cheated": "yes" if (i // 3) % 20 < shares[year] * 20 else "no", "year": year})
    return answers


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


def sign_in(page, live_server: str) -> None:
    """Sign the Playwright ``page`` in as the test researcher (the ``admin_account`` fixture's)."""
    page.goto(f"{live_server}/admin/")
    page.get_by_label("Account").fill(ADMIN_NAME)
    page.get_by_label("Password").fill(ADMIN_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{live_server}/admin/")


def fill_in(page, answers: dict) -> None:
    """Check, in a Playwright page, the option labelled ``answers[question]`` of each question."""
    for name, label in answers.items():
        page.locator(f"fieldset[data-question={name}]").get_by_label(label, exact=True).check()


def press(page, name: str) -> None:
    """Click the button named ``name`` and wait for the page it loads."""
    page.get_by_role("button", name=name, exact=True).click()
    page.wait_for_load_state()


def carried(app, survey, token: str) -> dict:
    """The answers a page's signed token carries (``web.pages.unseal`` with the app's key)."""
    from web import pages

    with app.test_request_context():
        return pages.unseal(survey, token).answers


def check_requests(app, survey, posts: list[str], device: bool, true: dict, noisy: dict) -> None:
    """No posted form carries a true randomized answer: not in its token (answers of earlier pages), and,
    on the device path, not in its answers either (JavaScript off, a page's own answers are sent true).

    ``true``: the randomized questions' true answers; ``noisy``: what the fixed randomizer makes of them.
    """
    assert posts, "no request was seen"
    from urllib.parse import parse_qsl

    from web.forms import parse_wire_value

    for body in posts:
        fields = dict(parse_qsl(body, keep_blank_values=True))
        if "carried" in fields:
            for name, value in carried(app, survey, fields["carried"]).items():
                assert value is None or name not in true or value == noisy[name], (name, value)
        if device:
            for key, value in fields.items():
                name = key.removeprefix("rr-")
                if key.startswith("rr-") and name in true:
                    assert parse_wire_value(survey.question(name), value, blank_ok=True) in (None, noisy[name])
            assert not any(key in true for key in fields)  # never a true answer under a question's own name


def stored_answers(app) -> list[dict]:
    """Every stored response's answers (the database of ``app``, on either backend)."""
    import json

    db = open_database(app)
    try:
        return [json.loads(row["answers"]) for row in db.query("SELECT answers FROM responses")]
    finally:
        db.close()


def controls_of(html: str) -> dict:
    """The hidden control fields of a page of a survey of several pages: CSRF token, submission key, token,
    and the arm when the survey has arms."""
    return {
        "csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
        "submission_key": re.search(r'name="submission_key" type="hidden" value="([^"]+)"', html).group(1),
        "carried": re.search(r'name="carried" value="([^"]+)"', html).group(1),
        **dict(re.findall(r'name="(arm)" value="(.)"', html)),  # a survey with arms: the respondent's
    }


PAGE_INPUT = re.compile(
    r'<input type="(radio|hidden)" (?:id="[^"]*" )?name="([a-z][a-z0-9_]*)" value="([^"]*)"\s*(checked)?'
)


def post_page(
    client, survey, html: str, answers: dict, go: str = "next", device: bool = False, query: str = "", path: str = ""
):
    """Post the page ``html`` of ``survey`` as a browser would: its checked radios and hidden answer fields,
    with ``answers`` (``{question: choice name}``) chosen on top; a question with nothing checked is left out.
    ``path``: where the page posts, if not ``/s/<id>`` (the preview's address)."""
    from web.forms import wire_value

    names = {q.name for q in survey.questions}
    values = {
        name: value
        for kind, name, value, checked in PAGE_INPUT.findall(html)
        if name in names and (checked or kind == "hidden")
    }
    for name, choice in answers.items():
        values[name] = wire_value(survey.question(name), choice)
    prefix = "rr-" if device else ""
    fields = {**controls_of(html), "go": go, **{prefix + k: v for k, v in values.items()}}
    if device:
        fields["randomized_on"] = "device"
    return client.post(f"{path or f'/s/{survey.id}'}{query}", data=fields)


def stored_arms(app) -> list[str]:
    """Every stored response's arm (the database of ``app``, on either backend)."""
    db = open_database(app)
    try:
        return [row["arm"] for row in db.query("SELECT arm FROM responses")]
    finally:
        db.close()


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


def frontend_waits(trace: str) -> int:
    """Round trips in a libpq protocol trace (``PGconn.trace``): the times the client turned from sending
    messages (``F``) to reading the server's (``B``), as it does only to wait for an answer."""
    directions = [fields[1] for fields in (line.split("\t") for line in trace.splitlines()) if len(fields) > 3]
    return sum(1 for sent, read in zip(directions, directions[1:]) if (sent, read) == ("F", "B"))
