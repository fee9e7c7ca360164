"""The `make mutation` report: scores per module, and survivors checked against the list."""

from __future__ import annotations

import json

import pytest

from tests.mutation_report import EQUIVALENT, load_equivalent, load_results, report

RESULTS = {
    "analysis/privacy.py": {"analysis.privacy.x_f__mutmut_1": 1, "analysis.privacy.x_f__mutmut_2": 0},
    "surveys/protocol.py": {"surveys.protocol.x_g__mutmut_1": 1, "surveys.protocol.x_g__mutmut_2": 24},
}


def test_listed_survivor_passes_and_scores_are_per_module():
    lines, problems = report(RESULTS, {"analysis.privacy.x_f__mutmut_2": "same value"})
    assert problems == []
    assert any(line.split()[:4] == ["analysis/privacy.py", "1", "/", "2"] for line in lines)
    # A timeout (exit code 24) counts as caught.
    assert any(line.split()[:4] == ["surveys/protocol.py", "2", "/", "2"] for line in lines)
    assert lines[-1].split()[:4] == ["all", "3", "/", "4"]


def test_new_survivor_fails():
    _, problems = report(RESULTS, {})
    assert problems == ["new survivor (exit code 0): analysis.privacy.x_f__mutmut_2"]


def test_stale_entries_fail():
    equivalent = {
        "analysis.privacy.x_f__mutmut_2": "same value",
        "analysis.privacy.x_f__mutmut_1": "was equivalent",
        "analysis.privacy.x_gone__mutmut_9": "no longer exists",
    }
    _, problems = report(RESULTS, equivalent)
    assert problems == [
        "listed as equivalent but killed, remove it: analysis.privacy.x_f__mutmut_1",
        "listed as equivalent but no such mutant: analysis.privacy.x_gone__mutmut_9",
    ]


def test_a_listed_mutant_that_timed_out_is_not_called_stale():
    """A survivor can run past mutmut's time limit when the machine is busy or the run is paused (seen on
    2026-11-27: surveys.protocol.x_two_group_bit__mutmut_14 timed out twice, then survived alone); only a test
    that caught a listed mutant says the list is stale."""
    listed = {"surveys.protocol.x_g__mutmut_2": "same draw", "analysis.privacy.x_f__mutmut_2": "same value"}
    lines, problems = report(RESULTS, listed)
    assert problems == []
    assert lines[-1].split()[:4] == ["all", "3", "/", "4"]


def test_every_listed_mutant_has_a_reason(tmp_path):
    assert all(load_equivalent(EQUIVALENT).values())
    bad = tmp_path / "equivalent.txt"
    bad.write_text("# comment\nanalysis.privacy.x_f__mutmut_2\n")
    with pytest.raises(ValueError, match="equivalent.txt:2"):
        load_equivalent(bad)


def test_results_are_read_from_mutmut_meta_files(tmp_path):
    meta = tmp_path / "analysis" / "privacy.py.meta"
    meta.parent.mkdir()
    meta.write_text(json.dumps({"exit_code_by_key": RESULTS["analysis/privacy.py"]}))
    (tmp_path / "analysis" / "__init__.py.meta").write_text(json.dumps({"exit_code_by_key": {}}))
    assert load_results(tmp_path) == {"analysis/privacy.py": RESULTS["analysis/privacy.py"]}


def test_a_run_of_some_modules_checks_only_their_mutants():
    """``make mutation MUTATE='analysis.privacy*'``: the other modules' mutants (not run, no exit code) are
    neither scored nor called survivors, and their listed mutants are not called stale."""
    results = {
        "analysis/privacy.py": {"analysis.privacy.x_f__mutmut_1": 1, "analysis.privacy.x_f__mutmut_2": 0},
        "surveys/protocol.py": {"surveys.protocol.x_g__mutmut_1": None},
    }
    equivalent = {"analysis.privacy.x_f__mutmut_2": "same value", "surveys.protocol.x_g__mutmut_7": "elsewhere"}
    lines, problems = report(results, equivalent, ["analysis.privacy*"])
    assert problems == []
    assert [line.split()[0] for line in lines[1:]] == ["analysis/privacy.py", "all"]
    _, problems = report(results, {"analysis.privacy.x_gone__mutmut_3": "gone"}, ["analysis.privacy*"])
    assert problems == [
        "new survivor (exit code 0): analysis.privacy.x_f__mutmut_2",
        "listed as equivalent but no such mutant: analysis.privacy.x_gone__mutmut_3",
    ]


def test_a_mutant_the_run_did_not_reach_fails_a_whole_run():
    _, problems = report({"surveys/protocol.py": {"surveys.protocol.x_g__mutmut_1": None}}, {})
    assert problems == ["not run (mutmut stopped before it): surveys.protocol.x_g__mutmut_1"]
