"""Every route declares who it admits (web/permissions.py), read from the app's own route table."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.sqlite_only(reason="the route table and its rules are the same on both backends")

RULES = {"public", "signed-in", "site-admin", "token"} | {f"survey:{role}" for role in ("viewer", "analyst", "owner")}


def test_every_route_declares_who_it_admits(app):
    undeclared = [
        rule.rule
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static" and getattr(app.view_functions[rule.endpoint], "access", None) not in RULES
    ]
    assert undeclared == []


def test_every_route_with_a_survey_id_admits_by_a_role_on_that_survey(app):
    loose = [
        rule.rule
        for rule in app.url_map.iter_rules()
        if "survey_id" in rule.arguments
        and rule.rule.startswith("/admin")
        and not app.view_functions[rule.endpoint].access.startswith("survey:")
    ]
    assert loose == []
