"""Command-line commands: ``flask --app app surveys check`` and friends.

Every command here is listed in the README (checked by ``tests/test_docs.py``).
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path

import click
from flask import Flask, current_app
from flask.cli import AppGroup, with_appcontext

from analysis import INTERVAL_METHODS
from storage import (
    accounts,
    audit,
    connection,
    events,
    invitation_codes,
    kept_counts,
    queries,
    survey_states,
)
from storage import surveys as stored_surveys
from surveys import export, stats_files, xlsform
from surveys.design_sentences import epsilon_text
from surveys.files import SURVEY_FILE_SUFFIXES, load_catalog
from web import answer_package, gather, options
from web.catalog import get_catalog, survey_folders
from web.errors import database_unavailable, one_line
from web.limits import clear_signin_failures

surveys_cli = AppGroup("surveys", help="Check, open and close surveys.")
codes_cli = AppGroup("codes", help="Single-use invitation codes.")
admin_cli = AppGroup("admin", help="Admin accounts.")
export_cli = AppGroup("export", help="Export estimates and noisy responses.")
audit_cli = AppGroup("audit", help="The audit log.")


def _db():
    from web.db import get_db

    return get_db()


def _survey(survey_id: str):
    survey = get_catalog().get(survey_id)
    if survey is None:
        raise click.BadParameter(f"no loaded survey is called {survey_id!r}", param_hint="SURVEY_ID")
    return survey


@surveys_cli.command("check")
@click.argument("folder", required=False)
def check_command(folder: str | None) -> None:
    """Validate every survey file (of FOLDER, or of the folders the app imports); exit 1 if any has a problem."""
    folders = [Path(folder)] if folder else survey_folders(current_app.config)
    if not folders:
        click.echo("no survey folder: give FOLDER, or set SURVEYS_DIR (or EXAMPLE_SURVEYS)")
    problems = []
    for each in folders:
        catalog = load_catalog(each)
        for survey in catalog.surveys.values():
            click.echo(
                f"ok    {survey.source}: {survey.id} v{survey.version}, "
                f"{len(survey.questions)} question{'' if len(survey.questions) == 1 else 's'}, "
                f"epsilon {epsilon_text(survey.epsilon.basic)}"
            )
        problems.extend(catalog.problems)
    for problem in problems:
        click.echo(f"error {problem}", err=True)
    if problems:
        sys.exit(1)


@surveys_cli.command("import")
@click.argument("path", required=False, type=click.Path(exists=True))
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    help="An XLSForm workbook: the survey file to write (default: ID.yaml in the survey folder).",
)
@click.option("--force", is_flag=True, help="An XLSForm workbook: replace the survey file if it exists.")
def import_command(path: str | None, output: str | None, force: bool) -> None:
    """Import survey files into the database: PATH a survey file (.yaml) or a folder of them (default: the
    folders the app imports), each managed by its file; an XLSForm workbook (.xlsx) is first turned into a
    survey file. Exit 1 listing every problem."""
    if path and Path(path).suffix.lower() == ".xlsx":
        path = _survey_file_of_workbook(path, output, force)
    folders = [Path(path)] if path and Path(path).is_dir() else ([] if path else survey_folders(current_app.config))
    if path and not Path(path).is_dir():
        if Path(path).suffix.lower() not in SURVEY_FILE_SUFFIXES:
            click.echo(f"error {path}: a survey file ends in .yaml or .yml, a workbook in .xlsx", err=True)
            sys.exit(1)
        report = stored_surveys.import_files(_db(), [Path(path)])
        _print_import(report.saved, report.problems)
        return
    if not folders:
        click.echo("error no survey folder: give PATH, or set SURVEYS_DIR", err=True)
        sys.exit(1)
    saved = []
    for folder in folders:
        report = stored_surveys.import_folder(_db(), folder)
        saved.extend(report.saved)
        _print_import(report.saved, report.problems, exit_on_problem=False)
        if report.problems:
            sys.exit(1)
    if not saved:
        click.echo("every survey file is as stored: nothing imported")


def _print_import(saved, problems, exit_on_problem: bool = True) -> None:
    for result in saved:
        what = "new survey" if result.created else ("new version" if result.new_version else "changed")
        click.echo(f"imported {result.survey.source}: {result.survey_id} v{result.version} ({what})")
    for problem in problems:
        click.echo(f"error {problem}", err=True)
    if problems and exit_on_problem:
        sys.exit(1)


def _survey_file_of_workbook(workbook: str, output: str | None, force: bool) -> str:
    """Turn an XLSForm workbook into a survey file (``output``, or ID.yaml in ``SURVEYS_DIR``); its path."""
    try:
        imported = xlsform.import_workbook(workbook)
    except xlsform.XLSFormError as error:
        click.echo(f"error {error}", err=True)
        sys.exit(1)
    folder = current_app.config.get("SURVEYS_DIR")
    if not output and not folder:
        click.echo("error no survey folder (SURVEYS_DIR) to write the survey file to: give --output", err=True)
        sys.exit(1)
    target = Path(output) if output else Path(folder) / f"{imported.survey.id}.yaml"
    if target.exists() and not force:
        click.echo(f"error {target} exists; give --force to replace it or --output to write elsewhere", err=True)
        sys.exit(1)
    target.write_text(imported.yaml_text(), encoding="utf-8")
    survey = imported.survey
    click.echo(f"wrote {target}: {survey.id} v{survey.version}, {len(survey.questions)} questions")
    return str(target)


#: The one command that creates a researcher's account, as printed by ``surveys links``.
CREATE_ACCOUNT_COMMAND = ".venv/bin/flask --app app admin create NAME"


@surveys_cli.command("links")
@click.option("--base", default="http://127.0.0.1:5000", show_default=True, help="Address the app is served at.")
def links_command(base: str) -> None:
    """Print every survey's link, the researchers' sign-in link and how to create an account."""
    base = base.rstrip("/")
    catalog = get_catalog()
    click.echo("Surveys:")
    live = [survey for survey in catalog.surveys.values() if catalog.standing_of(survey.id).stage == "live"]
    for survey in live:
        code = "?code=CODE (invitation only)" if survey.invitation_only else ""
        click.echo(f"  {base}/s/{survey.id}{code}  {survey.title}")
    if not live:
        click.echo("  none yet: make one in the app, or import survey files (flask --app app surveys import FOLDER)")
    click.echo(f"Researchers sign in at {base}/admin/login")
    if not accounts.list_admins(_db()):
        click.echo(f"No researcher account yet; create one with:\n  {CREATE_ACCOUNT_COMMAND}")


@surveys_cli.command("close")
@click.argument("survey_id")
def close_command(survey_id: str) -> None:
    """Stop taking answers for SURVEY_ID (its results stay readable)."""
    survey_states.set_closed(_db(), _survey(survey_id).id, True)
    click.echo(f"{survey_id}: closed")


@surveys_cli.command("open")
@click.argument("survey_id")
def open_command(survey_id: str) -> None:
    """Take answers for SURVEY_ID (again; a draft is opened), within its file's dates."""
    survey = _survey(survey_id)
    if stored_surveys.survey_record(_db(), survey.id).stage != "live":
        stored_surveys.set_stage(_db(), survey.id, "live")
    survey_states.set_closed(_db(), survey.id, False)
    click.echo(f"{survey_id}: open")


@surveys_cli.command("recount-patterns")
@click.argument("survey_id")
@with_appcontext
def recount_patterns_command(survey_id: str) -> None:
    """Recount SURVEY_ID's kept pattern counts (the model's) from its stored responses; one short write."""
    _recount(survey_id, kept_counts.rebuild_pattern_tallies, "pattern")


@surveys_cli.command("recount-pairs")
@click.argument("survey_id")
@with_appcontext
def recount_pairs_command(survey_id: str) -> None:
    """Recount SURVEY_ID's kept pair counts (the correlation's) from its stored responses; one short write."""
    _recount(survey_id, kept_counts.rebuild_pair_tallies, "pair")


def _recount(survey_id: str, rebuild, kept: str) -> None:
    """Rebuild one kind of SURVEY_ID's kept counts with ``rebuild(db, survey_id)`` (refused for a survey with no
    stored responses) and say how many rows it counted."""
    db = _db()
    if not queries.design_records(db, survey_id):
        raise click.BadParameter(f"no responses are stored for a survey called {survey_id!r}", param_hint="SURVEY_ID")
    rows = rebuild(db, survey_id)
    click.echo(f"Recounted the {kept} counts of {survey_id}: {rows} rows, equal to the stored responses")


@codes_cli.command("create")
@click.argument("survey_id")
@click.argument("count", type=click.IntRange(1, 100_000))
def create_codes_command(survey_id: str, count: int) -> None:
    """Create COUNT single-use invitation codes for SURVEY_ID and print them."""
    codes = invitation_codes.add_invitation_codes(_db(), survey_id, count)
    audit.record(_db(), None, "codes-created", survey_id, f"{count} codes, on the command line")
    for code in codes:
        click.echo(code)


@audit_cli.command("purge")
@with_appcontext
def audit_purge_command() -> None:
    """Remove the audit log's entries older than AUDIT_LOG_DAYS days (run it daily, e.g. from cron)."""
    days = float(current_app.config["AUDIT_LOG_DAYS"])
    removed = audit.purge_older_than(_db(), days)
    click.echo(f"Removed {removed} audit log entries older than {days:g} days")


@admin_cli.command("email")
@click.argument("name")
@click.argument("address", required=False, default="")
@with_appcontext
def admin_email_command(name: str, address: str) -> None:
    """Set account NAME's e-mail ADDRESS for notifications (none given: remove it)."""
    try:
        events.set_email(_db(), name, address)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"{name} gets notifications at {address}" if address else f"{name} gets no notification e-mails")


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    return click.prompt("Password", hide_input=True, confirmation_prompt=True)


def _set_account(change, name: str, password_stdin: bool, done: str) -> None:
    """Run an account change with the password read; a ValueError becomes a clear CLI error."""
    try:
        change(_db(), name, _read_password(password_stdin))
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    click.echo(done)


@admin_cli.command("create")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
@click.option(
    "--researcher",
    is_flag=True,
    help="An ordinary account (sees only the surveys shared with it), not a site administrator.",
)
def admin_create_command(name: str, password_stdin: bool, researcher: bool) -> None:
    """Create the account NAME, a site administrator unless --researcher (asks for its password)."""

    def create(db, account: str, password: str) -> None:
        accounts.create_admin(db, account, password, site_admin=not researcher)

    kind = "researcher" if researcher else "site administrator"
    _set_account(create, name, password_stdin, f"Created {kind} {name}")
    audit.record(_db(), None, "account-created", detail=f"{name}, {kind}, on the command line")


@admin_cli.command("list")
def admin_list_command() -> None:
    """List the accounts, with their standing and live sessions."""
    for row in accounts.list_admins(_db()):
        standing = ("site administrator" if row["site_admin"] else "researcher") + (
            ", disabled" if row["disabled"] else ""
        )
        click.echo(f"{row['name']}\t{standing}\tsessions: {row['sessions']}")


@admin_cli.command("reset-password")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def admin_reset_command(name: str, password_stdin: bool) -> None:
    """Set a new password for NAME, sign it out everywhere and lift any sign-in lock."""
    _set_account(accounts.set_password, name, password_stdin, f"Password changed for {name}; every session ended")
    audit.record(_db(), None, "password-changed", detail=f"{name}, on the command line")
    clear_signin_failures(name)


@admin_cli.command("sign-out-everywhere")
@click.argument("name")
def admin_sign_out_everywhere_command(name: str) -> None:
    """End every session of NAME at once (a lost laptop, a leaked cookie)."""
    try:
        ended = accounts.end_all_sessions(_db(), name)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    audit.record(_db(), None, "sessions-ended", detail=f"{name}: {ended}, on the command line")
    click.echo(f"Signed {name} out of {ended} session{'s' if ended != 1 else ''}")


class ConfidenceLevel(click.ParamType):
    """``--level``, checked by :func:`web.options.confidence_level`."""

    name = "level"

    def convert(self, value, param, ctx) -> float:
        try:
            return options.confidence_level(str(value))
        except ValueError as error:
            self.fail(str(error), param, ctx)


#: ``--level``, ``--output`` and a table's ``--format``: the options the export commands share.
LEVEL_OPTION = click.option(
    "--level",
    type=ConfidenceLevel(),
    default="0.95",
    show_default=True,
    help=f"Confidence level, from 0.5 to {options.MAX_CONFIDENCE_LEVEL}.",
)
OUTPUT_OPTION = click.option(
    "--output", "-o", type=click.Path(dir_okay=False), help="File to write (default: standard output)."
)
TABLE_FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(["json", "csv"]), default="json", show_default=True
)


def _open_output(output: str | None):
    return click.open_file(output or "-", "w", encoding="utf-8", lazy=False)


def _write_table(fmt: str, output: str | None, as_csv, as_json) -> None:
    """Write an export table to ``output``: ``as_csv()`` for ``--format csv``, else ``as_json()`` (stamped now by
    :mod:`web.gather`) as indented JSON."""
    body = as_csv() if fmt == "csv" else json.dumps(as_json(), indent=2) + "\n"
    with _open_output(output) as handle:
        handle.write(body)


@export_cli.command("estimates")
@click.argument("survey_id")
@TABLE_FORMAT_OPTION
@click.option("--method", type=click.Choice(INTERVAL_METHODS), default="wilson", show_default=True)
@LEVEL_OPTION
@OUTPUT_OPTION
def export_estimates_command(survey_id: str, fmt: str, method: str, level: float, output: str | None) -> None:
    """Debiased estimates for SURVEY_ID, one row per question (and option)."""
    survey = _survey(survey_id)
    _write_table(
        fmt,
        output,
        lambda: gather.estimates_csv(_db(), survey, method, level),
        lambda: gather.estimates_json(_db(), survey, method, level),
    )


@export_cli.command("design-fit")
@click.argument("survey_id")
@click.option("--method", type=click.Choice(INTERVAL_METHODS), default="wilson", show_default=True)
@LEVEL_OPTION
@OUTPUT_OPTION
def export_design_fit_command(survey_id: str, method: str, level: float, output: str | None) -> None:
    """The fit checks of SURVEY_ID as JSON: two-group compliance tests, the careless share and corrected shares."""
    survey = _survey(survey_id)
    _write_table("json", output, None, lambda: gather.design_fit_json(_db(), survey, method, level))


@export_cli.command("responses")
@click.argument("survey_id")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "sav", "dta", "r"]),
    default="csv",
    show_default=True,
    help="csv (streamed), sav (SPSS), dta (Stata), or r (an R script that reads the CSV with factor labels).",
)
@OUTPUT_OPTION
def export_responses_command(survey_id: str, fmt: str, output: str | None) -> None:
    """The noisy answers of SURVEY_ID as CSV (streamed), SPSS or Stata files, or an R script for the CSV."""
    survey = _survey(survey_id)
    if fmt in ("sav", "dta"):
        if output is None:
            raise click.UsageError(f"--format {fmt} writes a binary file: give it with --output")
        Path(output).write_bytes(answer_package.statistics_file(_db(), survey, fmt))
        return
    with _open_output(output) as handle:
        if fmt == "r":
            handle.write(stats_files.r_script(survey, export.responses_csv_name(survey)))
            return
        for chunk in answer_package.responses_csv(_db(), survey):
            handle.write(chunk)


@export_cli.command("codebook")
@click.argument("survey_id")
@OUTPUT_OPTION
def export_codebook_command(survey_id: str, output: str | None) -> None:
    """The codebook (columns, choices, designs) for SURVEY_ID's responses CSV."""
    survey = _survey(survey_id)
    with _open_output(output) as handle:
        json.dump(answer_package.codebook(_db(), survey), handle, indent=2)
        handle.write("\n")


@click.command("backup")
@click.argument("path", type=click.Path(dir_okay=False, writable=True))
@with_appcontext
def backup_command(path: str) -> None:
    """Write a rebuilt copy of the database to PATH while the app keeps running (VACUUM INTO; pg_dump on PostgreSQL)."""
    from web.db import database_target

    try:
        count = connection.backup(database_target(current_app), path)
    except RuntimeError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Backed up {count} responses to {path}")


@click.command("compact")
@with_appcontext
def compact_command() -> None:
    """Rebuild the database in key order and empty its write-ahead log (removes arrival order);
    on PostgreSQL, CLUSTER every table USING its primary key."""
    db = _db()
    try:
        count = connection.rebuild(db)
    except RuntimeError as error:
        raise click.ClickException(f"{error}; run compact again") from None
    if connection.is_postgres(db):
        click.echo(f"Clustered every table by its primary key: {count} responses, rows now in key order")
    else:
        click.echo(f"Rebuilt {current_app.config['DATABASE']}: {count} responses, write-ahead log emptied")


def init_app(app: Flask) -> None:
    for group in (surveys_cli, codes_cli, admin_cli, export_cli, audit_cli):
        app.cli.add_command(group)
    app.cli.add_command(backup_command)
    app.cli.add_command(compact_command)


def say_when_the_database_is_unavailable(command: click.Command) -> None:
    """Make ``command`` (and every command of a group) end with "Error: the database cannot be used: <its
    reason>" and status 1 when the database cannot be reached or written (:func:`web.errors.database_unavailable`),
    not with a traceback (tests/test_cli.py::test_a_command_without_its_database_says_so_in_one_line).
    Idempotent: the command objects outlive each app that registers them."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            say_when_the_database_is_unavailable(sub)
        return
    callback = command.callback
    if callback is None or getattr(callback, "says_when_unavailable", False):
        return

    @functools.wraps(callback)
    def guarded(*args, **kwargs):
        try:
            return callback(*args, **kwargs)
        except Exception as error:
            if not database_unavailable(error):
                raise
            raise click.ClickException(f"the database cannot be used: {one_line(error)}") from None

    guarded.says_when_unavailable = True
    command.callback = guarded


@export_cli.command("model")
@click.argument("survey_id")
@click.option("--outcome", required=True, help="The randomized yes/no question modelled.")
@click.option("--predictor", "predictors", multiple=True, required=True, help="A question that is not randomized.")
@click.option(
    "--reference",
    "references",
    multiple=True,
    help="A predictor's reference level, as question:choice (a plain number's bin: question:b01).",
)
@TABLE_FORMAT_OPTION
@LEVEL_OPTION
@OUTPUT_OPTION
def export_model_command(
    survey_id: str, outcome: str, predictors: tuple, references: tuple, fmt: str, level: float, output: str | None
) -> None:
    """Logistic regression of OUTCOME on the predictors for SURVEY_ID, fitted from the kept counts."""
    survey = _survey(survey_id)
    try:
        choice = options.model_choice(survey, outcome, list(predictors), list(references))
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    _write_table(
        fmt,
        output,
        lambda: gather.model_csv(_db(), survey, choice, level),
        lambda: gather.model_json(_db(), survey, choice, level),
    )


@export_cli.command("correlation")
@click.argument("survey_id")
@click.option("--first", required=True, help="A randomized yes/no question (one of the first ten, one design).")
@click.option("--second", required=True, help="Another randomized yes/no question.")
@TABLE_FORMAT_OPTION
@LEVEL_OPTION
@OUTPUT_OPTION
def export_correlation_command(survey_id: str, first: str, second: str, fmt: str, level: float, output: str | None):
    """The correlation of two randomized yes/no answers of SURVEY_ID, as the results page shows it: the joint
    shares of the true answers, phi, the odds ratio, the likelihood-ratio test of independence."""
    survey = _survey(survey_id)
    try:
        pair = options.pair_choice(survey, first, second)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    _write_table(
        fmt,
        output,
        lambda: gather.correlation_csv(_db(), survey, pair, level),
        lambda: gather.correlation_json(_db(), survey, pair, level),
    )
