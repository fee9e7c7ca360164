"""Helpers shared by the tests, one module per concern; fixtures live in ``tests/conftest.py``.

- :mod:`tests.helpers.sample_surveys`: the tests' own surveys (YAML texts, hostile files) and surveys built from them;
- :mod:`tests.helpers.drivers`: a respondent and an admin driving the real forms through the test client, and
  reading fields and messages off a page;
- :mod:`tests.helpers.records`: seeding the database and reading back what it stored (dumps, stored bytes, traces);
- :mod:`tests.helpers.servers`: the app served by Werkzeug in a thread or by gunicorn, and respondents over HTTP;
- :mod:`tests.helpers.browser_steps`: Playwright steps of the browser tests;
- :mod:`tests.helpers.audit`: the empirical privacy audit of a randomizer.
- :mod:`tests.helpers.seeded`: the seeded central-noise sampler (reproducible release tests; never in the app).
- :mod:`tests.helpers.accessibility`: axe-core (pinned, fetched from npm, its hash checked) run in a Playwright page,
  and the screenshots and violations of a browser journey.
- :mod:`tests.helpers.workbooks`: XLSForm workbooks, from rows or from a survey file's mapping.

Test modules import helpers from these modules and never from each other.
"""
