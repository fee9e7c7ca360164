"""surveys/versions.py: what a change of a number's grid means for the answers so far."""

from __future__ import annotations

from surveys.files import load_survey_text
from surveys.versions import describe_change

NUMBER_YAML = """\
id: grid
title: Grid
version: 1
questions:
  - {name: hours, type: decimal, label: Hours?, min: 0, max: 20, step: 0.5, mechanism: laplace}
"""


def test_a_new_grid_of_as_many_steps_is_a_new_version_that_says_so():
    """0 to 10 in quarter hours has the 40 steps of 0 to 20 in half hours, so the same design: the grid alone
    changes what a stored step means."""
    old = load_survey_text(NUMBER_YAML, "grid.yaml")
    new = load_survey_text(NUMBER_YAML.replace("max: 20, step: 0.5", "max: 10, step: 0.25"), "grid.yaml")
    assert old.question("hours").design == new.question("hours").design
    change = describe_change(old, new, old_has_answers=True)
    assert change.locked and change.new_version == 2 and change.redesigned == ("hours",)
    assert "“hours” changes its range, step or bins: the answers of version 1 are on the old grid" in " ".join(
        change.sentences
    )
