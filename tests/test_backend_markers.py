"""tests/conftest.py's backend markers: each test module whose tests build an app says on which backends they run
(``pytestmark = pytest.mark.both_backends``, or ``pytest.mark.sqlite_only(reason=...)``); a test's own marker
wins over its module's; a module that says nothing, or gives SQLite alone without its reason, is refused."""

from __future__ import annotations

pytest_plugins = ["pytester"]

USES_APP = "\n\ndef test_one(app):\n    assert app\n"

#: Test modules of every case, by name: their text.
MODULES = {
    "test_silent": "import pytest\n" + USES_APP,
    "test_no_reason": "import pytest\n\npytestmark = pytest.mark.sqlite_only\n" + USES_APP,
    "test_both": "import pytest\n\npytestmark = pytest.mark.both_backends\n" + USES_APP,
    "test_sqlite": "import pytest\n\npytestmark = pytest.mark.sqlite_only(reason='SQLite files')\n" + USES_APP,
    "test_page": "import pytest\n\npytestmark = [pytest.mark.browser, pytest.mark.sqlite_only(reason='a page')]\n"
    + USES_APP,
    "test_own": "import pytest\n\npytestmark = pytest.mark.sqlite_only(reason='SQLite files')\n"
    + USES_APP
    + "\n\n@pytest.mark.postgresql_only\ndef test_two(app):\n    assert app\n"
    + "\n\n@pytest.mark.both_backends\ndef test_three(fresh_db):\n    assert fresh_db\n"
    + "\n\ndef test_four():\n    pass\n",
    "test_mixed": "import pytest\n\npytestmark = pytest.mark.both_backends\n"
    + "\n\n@pytest.mark.sqlite_only\ndef test_one(app):\n    assert app\n",
}


def test_each_modules_marker_gives_its_tests_backends_and_a_module_without_one_is_refused(pytester):
    pytester.makeconftest("pytest_plugins = ['tests.conftest']\n")
    pytester.makeini("[pytest]\nmarkers =\n    browser: drives a real Chromium\n")
    pytester.makepyfile(**MODULES)
    result = pytester.runpytest_inprocess("--collect-only", "-q", "-p", "no:randomly", "-p", "no:cacheprovider")
    collected = {line for line in result.stdout.lines if "::" in line and " " not in line}
    assert collected == {
        "test_both.py::test_one[sqlite]",
        "test_both.py::test_one[postgresql]",
        "test_sqlite.py::test_one",
        "test_page.py::test_one",
        "test_own.py::test_one",
        "test_own.py::test_two[postgresql]",
        "test_own.py::test_three[sqlite]",
        "test_own.py::test_three[postgresql]",
        "test_own.py::test_four",
        "test_mixed.py::test_one",
    }
    output = result.stdout.str()
    assert "ERROR test_silent.py" in output and "test_silent.py::test_one uses an app: declare its backends" in output
    assert "ERROR test_no_reason.py" in output and "sqlite_only on a module needs its reason=" in output
    assert result.ret != 0
