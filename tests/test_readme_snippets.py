"""The Python snippets of the researchers' guide's "Loading the noisy answers in R or Python"
(docs/researchers.md), run as written.

Each snippet opens a responses CSV by name; the test writes a tiny one with that name (the responses CSV's
columns, surveys/noisy_answers.py RESPONSE_COLUMNS, then the questions), runs the snippet in that folder and checks
its numbers against the design's formula worked by hand.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "researchers.md"
HEADER = "response_id,survey_version,design_id,randomized_on,arm,day"


def loading_section() -> str:
    return GUIDE.read_text().split("## Loading the noisy answers in R or Python", 1)[1].split("\n## ", 1)[0]


def python_snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", loading_section(), re.S)


def csv_text(question: str, answers: list[tuple[str, str]]) -> str:
    """A responses CSV with one question column: ``answers`` as ``(arm, answer)`` pairs."""
    lines = [f"{HEADER},{question}"]
    lines += [f"r{i},1,1,device,{arm},2026-11-22,{answer}" for i, (arm, answer) in enumerate(answers)]
    return "\n".join(lines) + "\n"


def check_warner(names: dict) -> None:
    """Warner p = 3/4, 6 yes of 10 (a blank and a direct-arm row left out): (0.6 - 1/4) / (3/4 - 1/4) = 0.7."""
    assert names["fit"].n == 10
    assert names["fit"].estimate == pytest.approx(0.7)
    assert names["fit"].std_err == pytest.approx((0.6 * 0.4 / 10) ** 0.5 / 0.5)


def check_k_options(names: dict) -> None:
    """k = 4, t = 1/2, counts 4, 2, 2, 2 of 10: (c/n - 1/8) / (1/2) = 0.55, 0.15, 0.15, 0.15."""
    assert list(names["fit"].estimate_projected) == pytest.approx([0.55, 0.15, 0.15, 0.15])


def check_matrix(names: dict) -> None:
    """P = [[3/4, 1/3], [1/4, 2/3]], 6 low of 10: 3/4 x + 1/3 (1 - x) = 3/5, so x = (3/5 - 1/3) / (5/12) = 16/25."""
    assert list(names["fit"].estimate_projected) == pytest.approx([float(Fraction(16, 25)), float(Fraction(9, 25))])


def check_two_group(names: dict) -> None:
    """Lie detector p = (1/3, 2/3), group yes rates 0.6 and 0.5: lambda_1 - lambda_2 = (1 - pi) / 3, so pi = 0.7, and
    0.5 = 0.7 t + 0.3 / 3 gives t = 4/7; the direct arm's 1 yes of 5 makes the difference 0.7 - 0.2 = 0.5."""
    fit, check = names["fit"], names["check"]
    assert (fit.yes, fit.n) == ((6, 5), (10, 10))
    assert fit.pi == pytest.approx(0.7) and fit.second == pytest.approx(4 / 7)
    assert check.difference == pytest.approx(0.5)


def group_rows(group: str, yes: int, n: int) -> list[tuple[str, str]]:
    return [(group, "yes")] * yes + [(group, "no")] * (n - yes)


#: For each CSV a snippet opens: its contents and the check of the snippet's numbers.
FILES = {
    "drug-use-crosswise-responses.csv": (
        csv_text("pills", [("", "yes")] * 6 + [("", "no")] * 4 + [("", ""), ("direct", "yes")]),
        check_warner,
    ),
    "exam-integrity-responses.csv": (
        csv_text("ai_use", [("", a) for a in ["never"] * 4 + ["once", "sometimes", "often"] * 2 + [""]]),
        check_k_options,
    ),
    "drinking-responses.csv": (csv_text("drink", [("", "low")] * 6 + [("", "high")] * 4), check_matrix),
    "tax-honesty-lie-detector-responses.csv": (
        csv_text("evaded", group_rows("1", 6, 10) + group_rows("2", 5, 10) + group_rows("direct", 1, 5)),
        check_two_group,
    ),
}


def test_the_loading_section_has_a_python_snippet_for_each_design_family():
    opened = [re.search(r'open\("([^"]+)"', snippet).group(1) for snippet in python_snippets()]
    assert sorted(opened) == sorted(FILES)


@pytest.mark.parametrize("snippet", python_snippets(), ids=lambda s: re.search(r'open\("([^"]+)"', s).group(1))
def test_every_python_snippet_of_the_loading_section_runs_and_gives_the_formula(snippet, tmp_path, monkeypatch):
    name = re.search(r'open\("([^"]+)"', snippet).group(1)
    text, check = FILES[name]
    (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    names: dict = {}
    exec(compile(snippet, f"docs/researchers.md snippet reading {name}", "exec"), names)  # noqa: S102 - our own guide
    check(names)
