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


def test_a_numbers_new_epsilon_says_the_earlier_answers_are_left_out_not_pooled():
    """A number's results read only the answers under its current design (surveys/kinds/number.py): the sentence
    shown before saving must not promise a pooled estimate."""
    old = load_survey_text(NUMBER_YAML, "grid.yaml")
    new = load_survey_text(NUMBER_YAML.replace("mechanism: laplace", "mechanism: laplace, epsilon: 2"), "grid.yaml")
    said = " ".join(describe_change(old, new, old_has_answers=True).sentences)
    assert "from the answers under the new design only" in said
    assert "pooled, weighted by their precision" not in said
