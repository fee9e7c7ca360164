"""The reserved form fields: one constant, and the page script names the same fields."""

from __future__ import annotations

import re
from pathlib import Path

from surveys.form_fields import ARM, CONTROL_FIELDS, COPIED_FIELDS, DEVICE_PREFIX, GO, RANDOMIZED_ON, SEALED

SCRIPT = Path(__file__).resolve().parent.parent / "static" / "randomize.js"


def script_text() -> str:
    return SCRIPT.read_text(encoding="utf-8")


def copied_fields_in(script: str) -> tuple[str, ...]:
    """The names in the ``[...].forEach`` that copies fields into the device post."""
    copying = r"\]\.forEach\(function \(name\) \{\s*var field = form\.elements"
    match = re.search(r"\[((?:\s*\"[^\"]*\"\s*,?)+)" + copying, script)
    assert match, "randomize.js no longer copies fields with [...].forEach: update this test with it"
    return tuple(re.findall(r'"([^"]*)"', match.group(1)))


def posted_names_in(script: str) -> tuple[list[str], list[str]]:
    """``hidden("name", ...)`` literal names, and the ``hidden("prefix-" + name, ...)`` prefixes."""
    literal = re.findall(r'hidden\("([^"]*)",', script)
    prefixes = re.findall(r'hidden\("([^"]*)" \+ name,', script)
    return literal, prefixes


def test_control_fields_are_the_copied_ones_plus_randomized_on_sealed_arm_and_go():
    expected = {"csrf_token", "submission_key", "invitation_code", "carried", "randomized_on", "sealed", "arm", "go"}
    assert expected == CONTROL_FIELDS
    assert set(COPIED_FIELDS) | {RANDOMIZED_ON, SEALED, ARM, GO} == CONTROL_FIELDS


def test_script_copies_exactly_the_copied_fields():
    assert copied_fields_in(script_text()) == COPIED_FIELDS


def test_script_posts_only_control_fields_and_prefixed_answers():
    literal, prefixes = posted_names_in(script_text())
    assert literal == [RANDOMIZED_ON, ARM, GO]
    assert prefixes == [f"{DEVICE_PREFIX}-"]


def test_the_checks_notice_a_renamed_field():
    """The parsers above see a change in the script (so the tests can fail)."""
    script = script_text()
    renamed = script.replace('"carried"]', '"carry"]').replace('"rr-" + name', '"noisy-" + name')
    assert copied_fields_in(renamed) != COPIED_FIELDS
    assert posted_names_in(renamed)[1] == ["noisy-"]
    moved = script.replace('hidden("randomized_on"', 'hidden("randomised_on"')
    assert posted_names_in(moved)[0] != [RANDOMIZED_ON]
