"""The `quizsvc` command line."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NoReturn

import click

if TYPE_CHECKING:
    from quizsvc.bank import Bank, DrillKinds
    from quizsvc.settings import Settings


@click.group()
@click.pass_context
def main(context: click.Context) -> None:
    """quizsvc: quizzes and drills for 'Transformer by hand'.

    Settings come from the environment, read as the app reads them (docs/settings.md).
    """
    from quizsvc.settings import SettingsError, from_environment

    try:
        context.obj = from_environment()
    except SettingsError as exc:
        for problem in str(exc).splitlines():
            click.echo(f"error: {problem}", err=True)
        raise SystemExit(1) from None


def _settings() -> Settings:
    """The settings `main` read for this command."""
    return click.get_current_context().find_root().obj


@main.group()
def content() -> None:
    """Validate and self-test the question bank under content/."""


def default_content_dir() -> Path:
    """$QUIZSVC_CONTENT_DIR, as the web app reads it, else the repository's content/: so a
    report and the server it sits beside use the same bank."""
    return _settings().content_dir


def _drill_kinds() -> DrillKinds:
    """Each drill kind's params model, looked up only when a command needs them."""
    from quizsvc.drills import drill_param_models

    return drill_param_models()


def _bank_summary(bank: Bank, directory: Path) -> str:
    from quizsvc.bank import QUESTION_TYPES

    lines = [f"content OK: {directory}", f"version: {bank.version}"]
    lines.append(f"chapters: {len(bank.chapters)}")
    for chapter in bank.chapters:
        count = len(bank.questions_in(chapter.id))
        lines.append(f"  {chapter.id}: {chapter.title.en} ({count} questions)")
    by_type = {question_type: 0 for question_type in QUESTION_TYPES}
    for question in bank.questions.values():
        by_type[question.type] += 1
    counts = ", ".join(f"{question_type}: {n}" for question_type, n in by_type.items())
    lines.append(f"questions: {len(bank.questions)} ({counts})")
    return "\n".join(lines)


# The bank's folder, for the content commands: $QUIZSVC_CONTENT_DIR or content/ when omitted.
_content_dir_argument = click.argument(
    "directory",
    metavar="[DIR]",
    required=False,
    type=click.Path(path_type=Path, file_okay=False, exists=True),
)


@content.command("validate")
@_content_dir_argument
def validate_content(directory: Path | None) -> None:
    """Check every file of the question bank in DIR (default: $QUIZSVC_CONTENT_DIR, else the
    repository's content/).

    Prints each problem as FILE:LINE: PATH: MESSAGE and exits with status 1 if there
    is any; otherwise prints a summary of the bank.
    """
    directory = directory or default_content_dir()
    bank = _load_bank_or_exit(directory)
    click.echo(_bank_summary(bank, directory))


def _load_bank_or_exit(directory: Path) -> Bank:
    """The bank in ``directory``; if it does not load, print its errors and exit with 1."""
    from quizsvc.bank import BankError, load_bank

    try:
        return load_bank(directory, _drill_kinds())
    except BankError as exc:
        for error in exc.errors:
            click.echo(str(error))
        # The count goes to stderr so stdout stays one error per line for tools.
        click.echo(f"{len(exc.errors)} content error(s) in {directory}", err=True)
        raise SystemExit(1) from None


@content.command("test")
@_content_dir_argument
@click.option(
    "--seeds",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Seeds per drill question (0, 1, ..., N-1).",
)
def test_content(directory: Path | None, seeds: int) -> None:
    """Self-test every numeric and drill question of the bank in DIR (default:
    $QUIZSVC_CONTENT_DIR, else content/).

    The expected answer must grade 100%, an answer with a few cells off by a plausible
    mistake must lose exactly those cells, and malformed answers must be rejected; drills
    are tested for several seeds.  Prints one line per question (failures indented below
    it) and a summary; exits with status 1 if any check fails, or, listing its errors as
    `content validate` does, if the bank does not load.
    """
    from quizsvc.selftest import run_selftest

    directory = directory or default_content_dir()
    bank = _load_bank_or_exit(directory)
    report = run_selftest(bank, seeds=tuple(range(seeds)))
    width = max((len(question.question_id) for question in report.questions), default=0)
    for question in report.questions:
        what = question.question_type + (f" {question.kind}" if question.kind else "")
        count = len(question.seeds)
        seeds_text = f", {count} seed{'' if count == 1 else 's'}" if count else ""
        if question.passed:
            status = f"{len(question.checks)} checks{seeds_text}"
            click.echo(f"ok    {question.question_id:<{width}}  {what}: {status}")
        else:
            status = f"{len(question.failures)} of {len(question.checks)} checks failed"
            click.echo(
                f"FAIL  {question.question_id:<{width}}  {what} at {question.source}: {status}"
            )
            for check in question.failures:
                click.echo(f"      {check}")
        for note in question.notes:
            click.echo(f"      note: {note}")
    click.echo(f"content test: {report.summary()}")
    if not report.passed:
        raise SystemExit(1)


@main.command()
@click.option("--errata", is_flag=True, help="Print docs/errata.md instead (Markdown).")
def chapter(errata: bool) -> None:
    """Print the chapter's worked example, computed by the engine."""
    if errata:
        from engine.chapter import errata_markdown

        click.echo(errata_markdown(), nl=False)
    else:
        from quizsvc.worked_example import worked_example_text

        click.echo(worked_example_text())


# --- database and users -----------------------------------------------------------------


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    raise SystemExit(1)


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


@contextlib.contextmanager
def _fail_on_database_errors() -> Iterator[None]:
    """Turn the store's refusals (a database behind the migrations among them) and the database
    driver's errors (unreachable, cannot be opened, permission denied) into a one-line
    error naming the database."""
    from sqlalchemy.exc import DBAPIError

    from quizsvc.store import StoreError, database_url
    from quizsvc.store.db import describe_database

    try:
        yield
    except StoreError as exc:
        _fail(_first_line(exc))
    except DBAPIError as exc:
        # The driver's own message ("unable to open database file"), without
        # SQLAlchemy's statement and link, after the database it is about (its URL was
        # parsed before any connection, so database_url() cannot fail here).
        reason = _first_line(exc.orig if exc.orig is not None else exc)
        _fail(f"{describe_database(database_url())}: {reason}")


@main.group()
def db() -> None:
    """The database: DATABASE_URL, or instance/quizsvc.sqlite3 when it is unset."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True, help="Alembic revision to reach.")
def db_upgrade(revision: str) -> None:
    """Apply the Alembic migrations (creates the SQLite file and instance/ if missing)."""
    from quizsvc.store import database_url, display_url, make_engine, migrate

    with _fail_on_database_errors():
        url = database_url()
        migrate.upgrade(url, revision)
        engine = make_engine(url)
        try:
            current = ", ".join(migrate.current_revisions(engine)) or "base"
        finally:
            engine.dispose()
    click.echo(f"database {display_url(url)} is at revision {current}")


@main.group()
def user() -> None:
    """Create and list users (students and instructors), set passwords, issue API tokens."""


def _password_from_env_or_prompt() -> str:
    import getpass
    import warnings

    from quizsvc.store import validate_password

    password = _settings().password
    if password is None:
        with warnings.catch_warnings():
            # Without a terminal getpass warns, then falls back to reading stdin (where
            # click meets its end and prints only "Aborted!"): say what to do instead.
            warnings.simplefilter("error", getpass.GetPassWarning)
            try:
                password = click.prompt(
                    "Password",
                    hide_input=True,
                    confirmation_prompt=True,
                    default="",
                    show_default=False,
                )
            except getpass.GetPassWarning:
                _fail(
                    "no terminal to ask for the password on: set $QUIZSVC_PASSWORD,"
                    " or run this in a terminal"
                )
    validate_password(password)
    return password


DEMO_USERS = (("demo-student", "student"), ("demo-instructor", "instructor"))


@user.command("demo")
def user_demo() -> None:
    """Create the demo student and instructor (or give them new passwords) and print them."""
    import secrets

    from quizsvc.store import create_user, make_session_factory, set_password
    from quizsvc.store.migrate import require_up_to_date
    from quizsvc.store.users import user_exists

    with _fail_on_database_errors():
        engine = require_up_to_date()
        try:
            sessions = make_session_factory(engine)
            for name, role in DEMO_USERS:
                password = secrets.token_urlsafe(9)
                with sessions() as session:
                    if user_exists(session, name):
                        set_password(session, name, password)
                    else:
                        create_user(session, name=name, role=role, password=password)
                click.echo(f"demo {role}: user {name}, password {password}")
        finally:
            engine.dispose()


@user.command("create")
@click.argument("name")
@click.option(
    "--role", required=True, type=click.Choice(["student", "instructor"]), help="The user's role."
)
@click.option("--display-name", help="Name shown to people (default: NAME).")
def user_create(name: str, role: str, display_name: str | None) -> None:
    """Create user NAME; the password comes from $QUIZSVC_PASSWORD or a hidden prompt."""
    from quizsvc.store import (
        begin_read_only,
        create_user,
        display_url,
        make_session_factory,
    )
    from quizsvc.store.migrate import require_up_to_date
    from quizsvc.store.users import user_exists, validate_user_name

    with _fail_on_database_errors():
        validate_user_name(name)
        engine = require_up_to_date()
        try:
            sessions = make_session_factory(engine)
            # Checked before asking for a password, and again (atomically) when creating.
            with sessions() as session:
                begin_read_only(session)
                taken = user_exists(session, name)
            if taken:
                _fail(f"a user named {name!r} already exists")
            password = _password_from_env_or_prompt()
            with sessions() as session:
                created = create_user(
                    session, name=name, role=role, password=password, display_name=display_name
                )
        finally:
            engine.dispose()
    click.echo(
        f"created {created.role} {created.name!r} (id {created.id}) in {display_url(engine.url)}"
    )


@user.command("password")
@click.argument("name")
def user_password(name: str) -> None:
    """Give user NAME a new password, from $QUIZSVC_PASSWORD or a hidden prompt.

    Every browser session NAME has open ends (their API token stays valid).
    """
    from quizsvc.store import begin_read_only, make_session_factory, set_password
    from quizsvc.store.migrate import require_up_to_date
    from quizsvc.store.users import user_exists

    with _fail_on_database_errors():
        engine = require_up_to_date()
        try:
            sessions = make_session_factory(engine)
            with sessions() as session:
                begin_read_only(session)
                known = user_exists(session, name)
            if not known:
                _fail(f"no user named {name!r}")
            password = _password_from_env_or_prompt()
            with sessions() as session:
                set_password(session, name, password)
        finally:
            engine.dispose()
    click.echo(f"{name!r} has a new password; their browser sessions are signed out")


@user.command("list")
def user_list() -> None:
    """List every user: name, role, display name, created."""
    from quizsvc.store import begin_read_only, list_users, make_session_factory
    from quizsvc.store.migrate import require_up_to_date

    with _fail_on_database_errors():
        engine = require_up_to_date()
        try:
            with make_session_factory(engine)() as session:
                begin_read_only(session)
                users = list_users(session)
        finally:
            engine.dispose()
    if not users:
        click.echo("no users")
        return
    width = max(len(u.name) for u in users)
    for u in users:
        created = u.created_at.strftime("%Y-%m-%d %H:%M UTC")
        click.echo(f"{u.name:<{width}}  {u.role:<10}  {created}  {u.display_name}")


@user.command("token")
@click.argument("name")
def user_token(name: str) -> None:
    """Issue a new API token for user NAME and print it (only a digest is stored).

    The token replaces any earlier one of NAME's; send it as `Authorization: Bearer TOKEN`
    to the JSON API under /api (docs/api.md).
    """
    from quizsvc.store import issue_api_token, make_session_factory
    from quizsvc.store.migrate import require_up_to_date

    with _fail_on_database_errors():
        engine = require_up_to_date()
        try:
            with make_session_factory(engine)() as session:
                token = issue_api_token(session, name)
        finally:
            engine.dispose()
    click.echo(token)


# --- reports ------------------------------------------------------------------------------

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy.orm import Session


@main.group()
def report() -> None:
    """Instructor reports on the students' work (read-only; see quizsvc/reports/)."""


def _content_option(command: Callable) -> Callable:
    return click.option(
        "--content",
        "content_dir",
        type=click.Path(path_type=Path, file_okay=False, exists=True),
        help="The question bank's directory (default: $QUIZSVC_CONTENT_DIR, else the "
        "repository's content/).",
    )(command)


def _out_option(command: Callable) -> Callable:
    return click.option(
        "--out",
        metavar="FILE",
        default="-",
        show_default=True,
        help=(
            "Where to write: - for stdout; a file (replaced only once complete; through a"
            " symlink, its target); a FIFO or a character device (written as it goes)."
        ),
    )(command)


def _read_reports(work: Callable[[Session], None]) -> None:
    """Run ``work`` in a read-only session on DATABASE_URL (which must be migrated)."""
    from quizsvc.store import begin_read_only, make_session_factory
    from quizsvc.store.migrate import require_up_to_date

    with _fail_on_database_errors():
        engine = require_up_to_date()
        try:
            with make_session_factory(engine)() as session:
                begin_read_only(session)
                work(session)
        finally:
            engine.dispose()


@dataclass(frozen=True)
class _Output:
    """Where a report goes, decided by :func:`_output_for` before any work is done."""

    name: str  # as given with --out, for messages
    how: Literal["stdout", "stderr", "replace", "write-through"]
    path: Path | None = None  # the file to replace or the FIFO/device to write to


def _output_for(out: str) -> _Output:
    """How to write to ``out`` (``-`` is stdout); a one-line error if it cannot be written.

    - One of this process's own standard streams, by any name (``/dev/stdout``, or a file
      the shell redirected stdout to): written as that stream, so ``>>`` still appends.
    - A regular file or a new path: written under a temporary name and renamed over it
      once complete.  A symlink is followed: its target is replaced, the link stays.
    - A character device or a FIFO: opened and written in place; renaming a file over it
      would delete the node (``/dev/full``) or leave the reader waiting forever.
    - Anything else (a directory, a socket, a block device) is refused.
    """
    import stat
    import sys

    if out == "-":
        return _Output(out, "stdout")
    if not out:
        _fail("the output path is empty (give a file, or - for stdout)")
    try:
        status = os.stat(out)
    except FileNotFoundError:
        status = None  # a new file, or a symlink whose target does not exist yet
    except OSError as exc:
        _fail(f"cannot write {out}: {exc.strerror or exc}")
    if status is not None:
        for how, stream in (("stdout", sys.stdout), ("stderr", sys.stderr)):
            if _is_open_as(stream, status):
                return _Output(out, how)
        if stat.S_ISCHR(status.st_mode) or stat.S_ISFIFO(status.st_mode):
            return _Output(out, "write-through", Path(out))
        if stat.S_ISDIR(status.st_mode):
            _fail(f"cannot write {out}: it is a directory")
        if not stat.S_ISREG(status.st_mode):
            _fail(f"cannot write {out}: not a regular file, a FIFO or a character device")
    target = Path(os.path.realpath(out))
    if not target.parent.is_dir():
        _fail(f"cannot write {out}: there is no directory {target.parent}")
    return _Output(out, "replace", target)


def _is_open_as(stream: object, status: os.stat_result) -> bool:
    """True if ``stream`` (sys.stdout, say) is the file ``status`` describes."""
    try:
        own = os.fstat(stream.fileno())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):  # none, closed, or a buffer (CliRunner)
        return False
    return os.path.samestat(own, status)


def _write_chunks(output: _Output, chunks: Iterator[bytes]) -> None:
    """Write ``chunks`` to ``output`` (see :func:`_output_for`).

    A replaced file is written under a temporary name in its directory (mode 0600: it
    holds students' work) and renamed over the target only once complete, so a failed
    export never leaves a truncated file behind.  A reader that stops early (``| head``)
    ends the export quietly.  However it ends, the chunks (and so their database
    cursors) are closed here, while the session is still open.
    """
    try:
        if output.how in ("stdout", "stderr"):
            _write_standard_stream(output.how, chunks)
        elif output.how == "write-through":
            _write_through(output, chunks)
        else:
            _write_replacing(output, chunks)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


def _write_replacing(output: _Output, chunks: Iterator[bytes]) -> None:
    import tempfile

    assert output.path is not None
    target = output.path
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as exc:
        _fail(f"cannot write {output.name}: {exc.strerror or exc}")
    try:
        with os.fdopen(descriptor, "wb") as file:
            for chunk in chunks:
                file.write(chunk)
        os.replace(temporary, target)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        _fail(f"cannot write {output.name}: {exc.strerror or exc}")
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _write_through(output: _Output, chunks: Iterator[bytes]) -> None:
    assert output.path is not None
    try:
        # Neither O_CREAT nor O_TRUNC: if the node went away meanwhile, this fails rather
        # than leave a plain file in its place.
        descriptor = os.open(output.path, os.O_WRONLY | os.O_NOCTTY)
        with os.fdopen(descriptor, "wb") as file:
            for chunk in chunks:
                file.write(chunk)
    except OSError as exc:
        _fail(f"cannot write {output.name}: {exc.strerror or exc}")


def _write_standard_stream(name: Literal["stdout", "stderr"], chunks: Iterator[bytes]) -> None:
    import sys

    standard = sys.stdout if name == "stdout" else sys.stderr
    # Binary, and left open by the with statement (click's stdout is what CliRunner captures).
    binary = (
        click.open_file("-", "wb")
        if name == "stdout"
        else contextlib.nullcontext(sys.stderr.buffer)
    )
    try:
        with binary as stream:
            for chunk in chunks:
                stream.write(chunk)
            stream.flush()
    except BrokenPipeError:
        # Python's documented recipe: point the stream at devnull so that the
        # interpreter's last flush does not fail again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), standard.fileno())
        raise SystemExit(1) from None


@report.command("gradebook")
@_out_option
@_content_option
def report_gradebook(out: str, content_dir: Path | None) -> None:
    """Write the gradebook as CSV (UTF-8 with a BOM): one row per student, with the chapter
    questions' scores, each drill skill's mastery, the total and the last activity."""
    from quizsvc.reports import gradebook_csv_chunks

    output = _output_for(out)
    bank = _load_bank_or_exit(content_dir or default_content_dir())
    _read_reports(lambda session: _write_chunks(output, gradebook_csv_chunks(session, bank)))


@report.command("events")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["csv", "jsonl"]),
    default="csv",
    show_default=True,
    help="CSV (UTF-8 with a BOM) or JSON Lines.",
)
@_out_option
@_content_option
def report_events(output_format: str, out: str, content_dir: Path | None) -> None:
    """Write every drill submission and quiz answer of the students, one row each
    (streamed: any number of rows in constant memory)."""
    from quizsvc.reports import events_csv_chunks, events_jsonl_chunks

    output = _output_for(out)
    bank = _load_bank_or_exit(content_dir or default_content_dir())
    export = events_csv_chunks if output_format == "csv" else events_jsonl_chunks
    _read_reports(lambda session: _write_chunks(output, export(session, bank)))


@report.command("items")
@_content_option
def report_items(content_dir: Path | None) -> None:
    """Print each question's students, attempts, mean score, facility and discrimination
    index (Moodle's definitions; see quizsvc/reports/items.py)."""
    from quizsvc.reports import format_item_table, item_statistics

    bank = _load_bank_or_exit(content_dir or default_content_dir())
    _read_reports(lambda session: click.echo(format_item_table(item_statistics(session, bank))))
