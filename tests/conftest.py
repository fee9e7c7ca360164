"""Shared fixtures: an app on a temporary database, clients, a live server, Chromium, a PostgreSQL cluster.

`make test` runs the suite on parallel workers (pytest-xdist, ``-n``); each worker is a test session of its own,
so each has its own session fixtures (its Chromium, its PostgreSQL cluster on a Unix socket in a folder of its
own) and every test its own ``tmp_path``, SQLite files and loopback ports (bound to port 0): no test shares
anything with a test on another worker."""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

import pytest
from argon2 import PasswordHasher, Type
from flask import Flask
from jinja2 import BytecodeCache

from app import create_app
from devtools import postgres_cluster
from tests.helpers.drivers import ADMIN_NAME, ADMIN_PASSWORD, AdminSession, Respondent
from tests.helpers.sample_surveys import QUIZ_YAML
from tests.helpers.servers import served

#: The browser the tests drive: Debian's chromium-headless-shell (`make test` installs it), Chromium 156's
#: headless build without the browser's user interface, which is what Playwright itself runs for headless tests.
#: Against the full /usr/bin/chromium in --headless=new mode, the browser tests took 388 -> 256 core-seconds and
#: 228 -> 162 s on two workers (all of tests/test_browser_*.py, back to back, docs/development.md).
DEFAULT_CHROMIUM = "/usr/bin/chromium-headless-shell"
#: Driven instead when the headless shell is missing (a machine that has the browser and could not install it).
FULL_CHROMIUM = "/usr/bin/chromium"

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: Only for the full browser (``RR_CHROMIUM=/usr/bin/chromium``): its new headless mode, and no address-bar
#: drop-down. Chromium 156 makes that drop-down (chrome://omnibox-popup.top-chrome/, two WebUI pages) for every
#: window, so for every browser context, in a renderer of its own that no test looks at: 0.5 s of a core each
#: (tests/test_browser_respond.py on two workers: Chromium's CPU 88 s -> 41 s). Playwright adds the features to
#: its own --disable-features list.
FULL_BROWSER_ARGS = ["--headless=new", "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A skipped browser test is a failure when the browser is required (CI)."""
    outcome = yield
    report = outcome.get_result()
    expected_failure = hasattr(report, "wasxfail")  # an xfail is reported as skipped: it is no skipped browser
    if (
        report.skipped
        and not expected_failure
        and item.get_closest_marker("browser")
        and os.environ.get("RR_REQUIRE_BROWSER")
    ):
        report.outcome = "failed"
        report.longrepr = f"browser test skipped but RR_REQUIRE_BROWSER is set: {report.longrepr}"


class SharedTemplateCode(BytecodeCache):
    """The compiled code of each template, kept in memory for every app the test session makes.

    Each app has a Jinja environment of its own, which compiles a template the first time a page uses it: 50 to
    100 ms of a core for the first page of each test, most of the cost of a test that renders one page. Every app
    of the suite has the same Jinja options, so one compilation serves them all; the code is kept under the
    template's name and file and used again only while the file's text is the same (Jinja's checksum), so a
    template changed on disk is compiled again. What a page shows is not changed: the same code runs."""

    def __init__(self):
        self.codes = {}

    def load_bytecode(self, bucket) -> None:
        bucket.code = self.codes.get((bucket.key, bucket.checksum))

    def dump_bytecode(self, bucket) -> None:
        self.codes[(bucket.key, bucket.checksum)] = bucket.code


@pytest.fixture(scope="session", autouse=True)
def shared_template_code():
    """Every Flask app made in this test session (by :func:`make_app` or by a test calling ``create_app``)
    compiles each template once for all of them (:class:`SharedTemplateCode`)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Flask, "jinja_options", {**Flask.jinja_options, "bytecode_cache": SharedTemplateCode()})
        yield


class SharedRouteBuilders:
    """The URL builders of every route, compiled once for every app the test session makes.

    Werkzeug writes and compiles two small Python functions per route when an app registers it (``url_for``'s
    builders): 20 to 30 ms of a core for the app's 79 routes, most of what ``create_app`` costs, paid by every
    test that makes an app. Each builder is a function of the route's text, its parsed parts, the names of its
    defaults and whether it appends unknown arguments, and takes the route itself as its first argument, so one
    compiled function serves every app's copy of the same route. A route with a default for one of its own
    variables (whose value Werkzeug writes into the code) is compiled each time. What a URL is built as is not
    changed: the same code runs."""

    def __init__(self, compile_builder):
        self.compile_builder = compile_builder
        self.builders = {}

    def builder(self, rule, append_unknown: bool = True):
        """``Rule._compile_builder``'s function for ``rule``, compiled the first time it is asked for."""
        defaults = rule.defaults or {}
        if any(is_dynamic and data in defaults for is_dynamic, data in rule._trace):
            return self.compile_builder(rule, append_unknown)
        key = (rule.rule, tuple(rule._trace), tuple(defaults), append_unknown)
        if key not in self.builders:
            self.builders[key] = self.compile_builder(rule, append_unknown)
        return self.builders[key]


@pytest.fixture(scope="session", autouse=True)
def shared_route_builders():
    """Every app made in this test session compiles each route's URL builders once for all of them
    (:class:`SharedRouteBuilders`)."""
    from werkzeug.routing.rules import Rule

    with pytest.MonkeyPatch.context() as patch:
        shared = SharedRouteBuilders(Rule._compile_builder)
        patch.setattr(Rule, "_compile_builder", lambda rule, append_unknown=True: shared.builder(rule, append_unknown))
        yield


@pytest.fixture
def surveys_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "surveys"
    folder.mkdir()
    (folder / "quiz.yaml").write_text(QUIZ_YAML)
    return folder


#: The markers that choose the backends of a test's ``app`` and ``fresh_db``, and the backends each gives.
#: A test module whose tests build an app declares one of the first two for all of them, on its first lines
#: (``pytestmark = pytest.mark.both_backends``, or ``pytest.mark.sqlite_only(reason=...)`` saying why one is
#: enough); a test may choose otherwise with a marker of its own (the closest marker wins).
BACKEND_MARKERS = {
    "both_backends": ("sqlite", "postgresql"),
    "sqlite_only": ("sqlite",),
    "postgresql_only": ("postgresql",),
}


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "both_backends: the test's (or, as pytestmark, the module's) app and fresh_db run on SQLite, then on "
        "PostgreSQL",
    )
    config.addinivalue_line(
        "markers",
        "sqlite_only(reason): the app and fresh_db on SQLite only: on a module, with the reason (a browser test of "
        "the page and its script, SQLite's own files); on a test of a both_backends module, a test of SQLite's own "
        "files (WAL, pages, the rate-limit file), whose PostgreSQL counterpart is in test_postgres*.py",
    )
    config.addinivalue_line(
        "markers",
        "postgresql_only: a test of what only PostgreSQL has (round trips to its server), once, in a module "
        "that runs on both backends",
    )


#: The markers of the tests a parallel run starts first, longest kind first: ``slow`` (tens of seconds each),
#: then ``browser`` (a few seconds each); every other test after them, in the order collected.
LONG_FIRST = ("slow", "browser")


def scheduled_first(item) -> int:
    """The rank of ``item`` in a parallel run's order (:data:`LONG_FIRST`): 0 for ``slow``, 1 for ``browser``,
    2 for the rest."""
    return next((rank for rank, name in enumerate(LONG_FIRST) if item.get_closest_marker(name)), len(LONG_FIRST))


def pytest_collection_modifyitems(config, items):
    """On ``make test``'s parallel workers (``--dist loadgroup``: each test is handed to the first idle worker, in
    this order), the long tests first, so the run ends on short ones that fill both workers instead of on one long
    test while the other worker waits (longest processing time first). Stable: a module's tests keep their order.
    A run in one process keeps pytest's order.

    Tests handed out one by one may run on both workers, so a module-scoped fixture may be made on each: the
    bench's quick run is one test for that reason (tests/test_bench.py). pytest-xdist's ``xdist_group`` cannot
    keep tests together here: it renames ``item._nodeid``, which pytest 9 no longer reads."""
    if not getattr(config.option, "loadgroup", False):  # what pytest-xdist sets on a worker of --dist loadgroup
        return
    items.sort(key=scheduled_first)


def module_backend_marker(module):
    """The backend marker a test module declares in ``pytestmark`` (:data:`BACKEND_MARKERS`), or None;
    a ``sqlite_only`` module without its reason is refused."""
    marks = getattr(module, "pytestmark", [])
    declared = [mark for mark in (marks if isinstance(marks, list) else [marks]) if mark.name in BACKEND_MARKERS]
    if len(declared) != 1:
        return None
    (mark,) = declared
    if mark.name == "sqlite_only" and not (mark.kwargs.get("reason") or mark.args):
        raise ValueError(f"{module.__name__}: pytest.mark.sqlite_only on a module needs its reason=")
    return mark


def pytest_generate_tests(metafunc):
    """Run each test that uses an app (``app_backend``) on the backends its closest marker of
    :data:`BACKEND_MARKERS` gives: its own, else its module's. A module whose tests build an app and that
    declares neither ``both_backends`` nor ``sqlite_only`` (with its reason) is a collection error, so no
    module is left on SQLite without a reason."""
    if "app_backend" not in metafunc.fixturenames:
        return
    module = Path(metafunc.module.__file__).name
    if module_backend_marker(metafunc.module) is None:
        raise ValueError(
            f"{module}::{metafunc.function.__name__} uses an app: declare its backends on the module's first "
            "lines, `pytestmark = pytest.mark.both_backends`, or, if one backend is enough, "
            '`pytestmark = pytest.mark.sqlite_only(reason="...")` with the reason'
        )
    marker = next(mark for mark in metafunc.definition.iter_markers() if mark.name in BACKEND_MARKERS)
    backends = BACKEND_MARKERS[marker.name]
    if len(backends) > 1 or backends == ("postgresql",):
        metafunc.parametrize("app_backend", list(backends), indirect=True)


@pytest.fixture
def app_backend(request) -> str:
    """The backend of the test's ``app`` and ``fresh_db``: SQLite unless its marker gives it another
    (:func:`pytest_generate_tests`)."""
    return getattr(request, "param", "sqlite")


@pytest.fixture
def app_database_url(app_backend: str, request) -> str | None:
    """The URL of the PostgreSQL database of the test's apps (the session's one, emptied after the test:
    :func:`postgres_app_url`), or None on SQLite."""
    return request.getfixturevalue("postgres_app_url") if app_backend == "postgresql" else None


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """A SQLite database with every migration applied and nothing else, made once per test session (so once per
    parallel worker) as the app makes one (``web.db.migrate_database``); closed, so its write-ahead log is
    folded into the file."""
    from web.db import migrate_database

    path = tmp_path_factory.mktemp("migrated") / "migrated.sqlite3"
    migrate_database(str(path))
    assert not path.with_name(f"{path.name}-wal").exists(), "the migrated database left a write-ahead log"
    return path


@pytest.fixture
def make_app(tmp_path: Path, surveys_dir: Path, app_database_url: str | None, migrated_sqlite: Path):
    """A function ``make_app(settings)``: an app on the test's backend (the SQLite file ``test.sqlite3``
    in ``tmp_path``, or :func:`app_database_url`), serving ``surveys_dir``, with ``settings`` on top;
    the PostgreSQL pools of every app it made are closed after the test.

    On SQLite the file starts as a copy of :func:`migrated_sqlite` (mode 0600 kept), so the app finds every
    migration applied, as a restarted server does, instead of applying them all again for each test (about
    40 ms on a quiet core, a minute of the suite); the migrations themselves are tested on new databases in
    tests/test_migrations.py and tests/test_storage.py. A second app of the test on the same file (two app
    servers) opens what the first one wrote."""
    from web.db import close_pools

    made = []
    default_database = tmp_path / "test.sqlite3"

    def make(settings: dict):
        config = {
            "TESTING": True,
            "DATABASE": str(default_database),
            "DATABASE_URL": app_database_url,
            "SURVEYS_DIR": str(surveys_dir),
            **settings,
        }
        if not config["DATABASE_URL"] and config["DATABASE"] == str(default_database) and not default_database.exists():
            shutil.copy(migrated_sqlite, default_database)
        app = create_app(config)
        made.append(app)
        return app

    yield make
    for app in made:
        close_pools(app)


@pytest.fixture
def app(make_app):
    return make_app(
        {
            "SECRET_KEY": "test-secret-key",
            "RATELIMIT_SUBMISSIONS": "100000/600",  # tests submit many times from one address
        }
    )


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def db(app):
    from web.db import open_database

    database = open_database(app)
    yield database
    database.close()


@pytest.fixture
def fresh_db(tmp_path, app_backend, request):
    """A migrated database on its own, without an app (on PostgreSQL in the second run of a test marked
    ``both_backends``)."""
    from storage import connection, migrations

    postgresql = app_backend == "postgresql"
    target = request.getfixturevalue("postgres_migrated_url") if postgresql else tmp_path / "fresh.sqlite3"
    database = connection.connect(target)
    migrations.migrate(database)
    yield database
    database.close()


@pytest.fixture
def umask_022():
    """The usual umask, under which files are created 0644 unless asked otherwise."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


@pytest.fixture
def respondent(client) -> Respondent:
    return Respondent(client)


@pytest.fixture
def live_server(app):
    """The app on a free loopback port, in a thread (:func:`tests.helpers.servers.served`); yields its base URL."""
    with served(app) as url:
        yield url


@pytest.fixture(scope="module")
def module_quiz_server(tmp_path_factory, migrated_sqlite: Path):
    """The quiz served by an app of the test module's own (a copy of :func:`migrated_sqlite`, served as
    :func:`live_server` serves), for the browser tests that only call the functions of the served page and
    share one page per module; yields its base URL."""
    folder = tmp_path_factory.mktemp("module-quiz")
    (folder / "surveys").mkdir()
    (folder / "surveys" / "quiz.yaml").write_text(QUIZ_YAML)
    shutil.copy(migrated_sqlite, folder / "test.sqlite3")
    config = {"TESTING": True, "SECRET_KEY": "module-secret-key", "DATABASE": str(folder / "test.sqlite3")}
    app = create_app({**config, "SURVEYS_DIR": str(folder / "surveys")})
    with served(app) as url:
        yield url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium: Playwright cannot download its own browser here."""
    path = os.environ.get("RR_CHROMIUM", DEFAULT_CHROMIUM)
    if path == DEFAULT_CHROMIUM and not os.path.exists(path) and os.path.exists(FULL_CHROMIUM):
        path = FULL_CHROMIUM
    if not os.path.exists(path):
        message = f"Chromium not found at {path}; run `make test`, which installs it"
        if os.environ.get("RR_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    args = CHROMIUM_ARGS if "headless-shell" in Path(path).name else CHROMIUM_ARGS + FULL_BROWSER_ARGS
    return {**browser_type_launch_args, "executable_path": path, "args": args}


#: Argon2 at its cheapest, for every account a test makes in its own process (:func:`cheap_password_hashing`): each
#: account made and each sign-in would otherwise spend a real hash (about 0.2 s of a core on a quiet machine).
CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1, type=Type.ID)
#: What an unknown name is checked against under :data:`CHEAP_HASHER` (the same cost as a known one's check).
CHEAP_DUMMY_HASH = CHEAP_HASHER.hash("not a real password, only for timing")


@pytest.fixture(autouse=True)
def cheap_password_hashing(request, monkeypatch):
    """Passwords hashed and checked with :data:`CHEAP_HASHER` in the test's own process, unknown names against
    :data:`CHEAP_DUMMY_HASH`, unless the test is marked ``real_password_hashing``: tests/test_accounts.py, which
    tests the real parameters, the rehash and the cost of a sign-in. Servers the tests start in processes of their
    own (gunicorn) hash with the real parameters."""
    if request.node.get_closest_marker("real_password_hashing"):
        return
    from storage import accounts

    monkeypatch.setattr(accounts, "HASHER", CHEAP_HASHER)
    monkeypatch.setattr(accounts, "_DUMMY_HASH", CHEAP_DUMMY_HASH)


@pytest.fixture
def admin_account(app):
    """The test researcher's account (:data:`ADMIN_NAME`), hashed with :data:`CHEAP_HASHER` as every test's
    accounts are (:func:`cheap_password_hashing`)."""
    from storage import accounts
    from web.db import open_database

    db = open_database(app)
    accounts.create_admin(db, ADMIN_NAME, ADMIN_PASSWORD)
    db.close()
    return ADMIN_NAME


@pytest.fixture
def auth(client, app, admin_account) -> AdminSession:
    return AdminSession(client, app)


# --------------------------------------------------------------------------
# PostgreSQL: one throwaway cluster per test session, an empty database per test.


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """A PostgreSQL cluster initialised in a temporary folder and started on a Unix socket there
    (:func:`devtools.postgres_cluster.start`, no durability), one per test session (so one per parallel
    worker); yields the URL of its ``postgres`` database and stops and deletes it at the end. A cluster that
    cannot start fails the run, it is never skipped."""
    try:
        cluster = postgres_cluster.start(postgres_cluster.SCRATCH_SETTINGS)
    except postgres_cluster.ClusterError as error:
        pytest.fail(str(error))
    try:
        yield cluster.url
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def durable_postgres() -> postgres_cluster.Cluster:
    """A cluster of the module's own that a test may kill with SIGKILL and restart
    (:data:`devtools.postgres_cluster.KILLABLE_SETTINGS`): every commit is written to the server's log before
    it is acknowledged, so a killed server loses nothing it acknowledged."""
    try:
        cluster = postgres_cluster.start(postgres_cluster.KILLABLE_SETTINGS)
    except postgres_cluster.ClusterError as error:
        pytest.fail(str(error))
    try:
        yield cluster
    finally:
        cluster.stop()


_database_numbers = itertools.count(1)


@pytest.fixture
def postgres_databases(postgres_server: str):
    """A function that creates a new, empty database on the session's cluster and returns its URL;
    every database it made is dropped after the test."""
    made = []

    def create(template: str | None = None) -> str:
        """A new database, empty, or a copy of the database ``template`` (a name we made) if given."""
        name = f"rr_test_{os.getpid()}_{next(_database_numbers)}"  # a name we made, not input
        if template is None:
            url = postgres_cluster.create_database(postgres_server, name)
        else:
            import psycopg

            with psycopg.connect(postgres_server, autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
            url = postgres_cluster.database_url(postgres_server, name)
        made.append(name)
        return url

    yield create
    postgres_cluster.drop_databases(postgres_server, made)


@pytest.fixture
def postgres_url(postgres_databases) -> str:
    """The URL of a new, empty database on the session's cluster, dropped after the test."""
    return postgres_databases()


@pytest.fixture(scope="session")
def postgres_migrated_template(postgres_server: str) -> str:
    """The name of a database on the session's cluster with every migration applied and nothing else, made once
    per test session (so once per parallel worker), no connection left to it: :func:`postgres_migrated_url` copies
    it (``CREATE DATABASE ... TEMPLATE``, about 0.1 s) where a new database and its migrations took 0.25 to 0.35 s.
    The migrations themselves run on new databases in tests/test_migrations.py and tests/test_storage.py."""
    from storage import connection, migrations

    name = f"rr_migrated_{os.getpid()}"  # a name we made, not input
    database = connection.connect(postgres_cluster.create_database(postgres_server, name))
    try:
        migrations.migrate(database)
    finally:
        database.close()
    return name


@pytest.fixture
def postgres_migrated_url(postgres_databases, postgres_migrated_template: str) -> str:
    """The URL of a new database on the session's cluster with every migration applied (a copy of
    :func:`postgres_migrated_template`), dropped after the test."""
    return postgres_databases(postgres_migrated_template)


@pytest.fixture(scope="session")
def postgres_app_database(postgres_server: str) -> str:
    """The URL of one migrated database on the session's cluster, for the ``app`` fixture's PostgreSQL
    runs (emptied after each test by :func:`postgres_app_url`)."""
    import psycopg

    from storage import postgres
    from web.db import migrate_database

    name = f"rr_app_{os.getpid()}"  # a name we made, not input
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}" TEMPLATE template0 STRATEGY FILE_COPY')
    url = postgres_server.replace("/postgres?", f"/{name}?")
    migrate_database(url)
    db = postgres.connect(url)
    try:
        filled = [table for table in _emptied_tables(db) if db.execute(f'SELECT 1 FROM "{table}" LIMIT 1').fetchone()]
    finally:
        db.close()
    assert not filled, f"the migrations left rows that emptying between tests would delete: {filled}"
    return url


def _emptied_tables(db) -> list[str]:
    """Every table but the record of applied migrations."""
    return [table for table in db.table_names() if table != "_migrations"]


@pytest.fixture
def postgres_app_url(postgres_server: str, postgres_app_database: str):
    """A migrated, empty PostgreSQL database for an app: the session's one, emptied at the end of the
    test (every connection to it ended, every table but ``_migrations`` that holds a row truncated), which
    takes a few milliseconds where a new database and its migrations take a second on a busy machine."""
    import psycopg

    from storage import postgres

    yield postgres_app_database
    name = postgres_app_database.split("/")[3].split("?")[0]
    with psycopg.connect(postgres_server, autocommit=True) as admin:  # connections a test left open
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [name],
        )
    db = postgres.connect(postgres_app_database)
    try:
        filled = _filled_tables(db, _emptied_tables(db))
        if filled:  # CASCADE: with the empty tables whose foreign keys point at them
            db.execute(f"TRUNCATE {', '.join(filled)} CASCADE")
    finally:
        db.close()


def _filled_tables(db, tables: list[str]) -> list[str]:
    """The quoted names of those of ``tables`` that hold a row, in one query: a test fills a few of the tables,
    and truncating only those takes milliseconds where truncating all of them takes 50 to 300 ms a test."""
    quoted = [f'"{table}"' for table in tables]  # names from the catalog, not input
    probes = " UNION ALL ".join(f"SELECT {i} WHERE EXISTS (SELECT 1 FROM {name})" for i, name in enumerate(quoted))
    return [quoted[i] for (i,) in db.execute(probes).fetchall()]


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request) -> str:
    """Each backend in turn: a test that takes it (or a fixture built on it) runs once on each."""
    return request.param


@pytest.fixture
def new_database(backend, tmp_path, request):
    """A function ``new_database(name)`` giving an empty database on the test's backend: the path of
    a new SQLite file ``<name>.sqlite3``, or the URL of a new PostgreSQL database."""
    if backend == "sqlite":
        return lambda name: tmp_path / f"{name}.sqlite3"
    create = request.getfixturevalue("postgres_databases")
    return lambda name: create()


@pytest.fixture
def backend_db(new_database, backend, request):
    """A migrated, empty database on each backend in turn: a SQLite file, then a PostgreSQL database (a copy of
    :func:`postgres_migrated_template`; ``migrate`` then finds nothing to apply)."""
    from storage import connection, migrations

    target = request.getfixturevalue("postgres_migrated_url") if backend == "postgresql" else new_database("fresh")
    database = connection.connect(target)
    migrations.migrate(database)
    yield database
    database.close()
