"""Seeding an app's database with answers as the submission path stores them, and reading back what it stored:
dumps to compare before and after, every stored byte to search, round trips in a PostgreSQL trace."""

from __future__ import annotations

from pathlib import Path

from storage import queries, responses
from storage.connection import DUMP_WITHOUT_DATA
from surveys.submission import noisy_response
from web.db import open_database


def add_responses(app, answers_list, randomized_on="device", day="2026-11-22", survey_id="quiz"):
    """Store noisy answers directly, as the submission path would, on ``day``, under the survey ``survey_id`` as
    the app serves it (its catalogue, which imports a survey file changed since it last looked), all in one
    transaction (:func:`storage.responses.store_responses`)."""
    from web.catalog import get_catalog

    with app.app_context():
        survey = get_catalog().get(survey_id)
    suffix = "" if day == "2026-11-22" else f"-{day}"
    seeded = [
        (noisy_response(survey, answers, randomized_on), f"seed-{i:08d}-{len(answers_list):06d}{suffix}")
        for i, answers in enumerate(answers_list)
    ]
    db = open_database(app)
    try:
        responses.store_responses(db, seeded, day)
    finally:
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


def campus_life_answers(n: int = 120) -> list[dict]:
    """``n`` answers to the shipped survey_files/campus-life.yaml in a fixed pattern: a third in first year (3 in 5
    of them say they cheated, 1 in 5 of the later years), half in student housing (who alone answer
    housemate_theft), 3 in 7 born between January and June."""
    rows = []
    for i in range(n):
        first = i % 3 == 0
        row = {
            "year": "first" if first else "later",
            "housing": "campus" if i % 2 else "elsewhere",
            "cheated": "yes" if i % 5 < (3 if first else 1) else "no",
            "birth_half": "yes" if i % 7 < 3 else "no",
        }
        if row["housing"] == "campus":
            row["housemate_theft"] = "yes" if i % 4 == 1 else "no"
        rows.append(row)
    return rows


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


def stored_count(app, survey_id: str = "quiz") -> int:
    """How many responses to ``survey_id`` the database of ``app`` holds (either backend)."""
    db = open_database(app)
    try:
        return queries.response_count(db, survey_id)
    finally:
        db.close()


def stored_answers(app) -> list[dict]:
    """Every stored response's answers (the database of ``app``, on either backend)."""
    import json

    db = open_database(app)
    try:
        return [json.loads(row["answers"]) for row in db.query("SELECT answers FROM responses")]
    finally:
        db.close()


def stored_arms(app) -> list[str]:
    """Every stored response's arm (the database of ``app``, on either backend)."""
    db = open_database(app)
    try:
        return [row["arm"] for row in db.query("SELECT arm FROM responses")]
    finally:
        db.close()


def frontend_waits(trace: str) -> int:
    """Round trips in a libpq protocol trace (``PGconn.trace``): the times the client turned from sending
    messages (``F``) to reading the server's (``B``), as it does only to wait for an answer."""
    directions = [fields[1] for fields in (line.split("\t") for line in trace.splitlines()) if len(fields) > 3]
    return sum(1 for sent, read in zip(directions, directions[1:]) if (sent, read) == ("F", "B"))
