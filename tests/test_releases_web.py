"""Tests of storage.releases and web.releases: releases stored once, the budget check and the insert in one
transaction (two publishers cannot overspend), the publishing form, the ledger and the public pages."""

from __future__ import annotations

import threading

import pytest

from analysis.central import PrivacyCost
from storage import audit, releases
from storage.connection import immediate_transaction
from web.db import open_database

pytestmark = pytest.mark.both_backends


def note(actor: str = "ada") -> audit.Note:
    return audit.Note(actor, "release-published", "quiz", "test")


def test_a_stored_release_is_read_back_by_its_token_and_its_survey(db):
    with immediate_transaction(db):
        first = releases.add_release(db, "quiz", '{"a": 1}', "tok-1", 0.5, 0.0, 0.0, 60, made_on="2026-01-02")
        second = releases.add_release(db, "quiz", '{"a": 2}', "tok-2", 0.25, 1e-6, 0.01, 120, made_by="ada")
        releases.add_release(db, "other", "{}", "tok-3", 1.0, 0.0, 0.0, 10)
    assert (first.number, second.number) == (1, 2)
    assert releases.release_by_token(db, "tok-1") == first
    assert releases.release_by_token(db, "tok-2").body == '{"a": 2}'
    assert releases.release_by_token(db, "nope") is None
    assert [r.token for r in releases.releases_of(db, "quiz")] == ["tok-1", "tok-2"]
    assert releases.spent(db, "quiz") == [PrivacyCost(0.5, 0.0, 0.0), PrivacyCost(0.25, 1e-6, 0.01)]
    assert releases.answers_at_last(db, "quiz") == 120
    assert releases.answers_at_last(db, "none") is None
    assert releases.spent(db, "none") == []


@pytest.mark.parametrize("field", ["epsilon", "delta", "rho", "answers"])
def test_a_negative_cost_or_count_is_refused(db, field):
    values = {"epsilon": 0.5, "delta": 0.0, "rho": 0.0, "answers": 1, field: -1}
    with pytest.raises(ValueError, match=field):
        releases.add_release(db, "quiz", "{}", "t", **values)
    assert releases.releases_of(db, "quiz") == []


def test_tokens_are_random_and_unguessable():
    tokens = {releases.new_token() for _ in range(200)}
    assert len(tokens) == 200
    assert all(len(token) == 22 for token in tokens)


def test_a_refused_check_writes_nothing_not_even_the_audit_entry(db):
    def refuse(spent, last):
        raise ValueError("over budget")

    with pytest.raises(ValueError, match="over budget"):
        releases.publish(db, "quiz", refuse, "{}", PrivacyCost(0.5), 60, note())
    assert releases.releases_of(db, "quiz") == []
    assert audit.entries(db) == []


def test_publish_passes_the_spent_costs_and_last_answers_to_the_check_and_audits(db):
    seen = []
    check = lambda spent, last: seen.append((spent, last))  # noqa: E731
    first = releases.publish(db, "quiz", check, "{}", PrivacyCost(0.5), 60, note(), made_on="2026-03-01")
    releases.publish(db, "quiz", check, "{}", PrivacyCost(0.25, 1e-7, 0.002), 130, note())
    assert seen == [([], None), ([PrivacyCost(0.5)], 60)]
    assert first.made_on == "2026-03-01" and first.made_by == "ada" and not first.listed
    assert [e.action for e in audit.entries(db)] == ["release-published"] * 2


def test_two_owners_publishing_at_once_cannot_overspend(app, db):
    """The first publisher holds its transaction between its check and its insert; the second waits (it does
    not enter its check until the first commits), then sees the first's cost and is refused."""
    budget = 1.0
    first_inside, let_first_go = threading.Event(), threading.Event()
    second_inside = threading.Event()
    outcomes: dict[str, object] = {}

    def within_budget(spent, cost):
        if sum(c.epsilon for c in spent) + cost > budget + 1e-12:
            raise ValueError(f"over budget: spent {sum(c.epsilon for c in spent)}")

    def first_check(spent, last):
        within_budget(spent, 0.75)
        first_inside.set()
        let_first_go.wait(20)

    def second_check(spent, last):
        second_inside.set()
        within_budget(spent, 0.75)

    def run(name, check):
        own = open_database(app)
        try:
            outcomes[name] = releases.publish(own, "quiz", check, "{}", PrivacyCost(0.75), 100, note(name))
        except Exception as error:  # noqa: BLE001 - the outcome is what the test reads
            outcomes[name] = error
        finally:
            own.close()

    first = threading.Thread(target=run, args=("first", first_check))
    first.start()
    assert first_inside.wait(20)
    second = threading.Thread(target=run, args=("second", second_check))
    second.start()
    entered_early = second_inside.wait(0.5)
    let_first_go.set()
    first.join(20)
    second.join(20)
    assert not entered_early, "the second publisher read the budget while the first was still publishing"
    assert isinstance(outcomes["first"], releases.StoredRelease)
    assert isinstance(outcomes["second"], ValueError) and "over budget: spent 0.75" in str(outcomes["second"])
    assert releases.spent(db, "quiz") == [PrivacyCost(0.75)]
