"""`quizsvc user`: users, their passwords and API tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from quizsvc.cli.common import (
    current_settings,
    fail,
    fail_on_database_errors,
    migrated_database,
)

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker


@click.group()
def user() -> None:
    """Create and list users (students and instructors), set passwords, issue API tokens."""


def _password_from_env_or_prompt() -> str:
    import getpass
    import warnings

    from quizsvc.store import validate_password

    password = current_settings().password
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
                fail(
                    "no terminal to ask for the password on: set $QUIZSVC_PASSWORD,"
                    " or run this in a terminal"
                )
    validate_password(password)
    return password


def _user_exists(sessions: sessionmaker[Session], name: str) -> bool:
    from quizsvc.store import begin_read_only
    from quizsvc.store.users import user_exists

    with sessions() as session:
        begin_read_only(session)
        return user_exists(session, name)


DEMO_USERS = (("demo-student", "student"), ("demo-instructor", "instructor"))


@user.command("demo")
def user_demo() -> None:
    """Create the demo student and instructor (or give them new passwords) and print them."""
    import secrets

    from quizsvc.store import create_user, make_session_factory, set_password
    from quizsvc.store.users import user_exists

    with migrated_database() as engine:
        sessions = make_session_factory(engine)
        for name, role in DEMO_USERS:
            password = secrets.token_urlsafe(9)
            with sessions() as session:
                if user_exists(session, name):
                    set_password(session, name, password)
                else:
                    create_user(session, name=name, role=role, password=password)
            click.echo(f"demo {role}: user {name}, password {password}")


@user.command("create")
@click.argument("name")
@click.option(
    "--role", required=True, type=click.Choice(["student", "instructor"]), help="The user's role."
)
@click.option("--display-name", help="Name shown to people (default: NAME).")
def user_create(name: str, role: str, display_name: str | None) -> None:
    """Create user NAME; the password comes from $QUIZSVC_PASSWORD or a hidden prompt."""
    from quizsvc.store import create_user, display_url, make_session_factory
    from quizsvc.store.users import validate_user_name

    with fail_on_database_errors():
        validate_user_name(name)
    with migrated_database() as engine:
        sessions = make_session_factory(engine)
        # Checked before asking for a password, and again (atomically) when creating.
        if _user_exists(sessions, name):
            fail(f"a user named {name!r} already exists")
        password = _password_from_env_or_prompt()
        with sessions() as session:
            created = create_user(
                session, name=name, role=role, password=password, display_name=display_name
            )
    click.echo(
        f"created {created.role} {created.name!r} (id {created.id}) in {display_url(engine.url)}"
    )


@user.command("password")
@click.argument("name")
def user_password(name: str) -> None:
    """Give user NAME a new password, from $QUIZSVC_PASSWORD or a hidden prompt.

    Every browser session NAME has open ends (their API token stays valid).
    """
    from quizsvc.store import make_session_factory, set_password

    with migrated_database() as engine:
        sessions = make_session_factory(engine)
        if not _user_exists(sessions, name):
            fail(f"no user named {name!r}")
        password = _password_from_env_or_prompt()
        with sessions() as session:
            set_password(session, name, password)
    click.echo(f"{name!r} has a new password; their browser sessions are signed out")


@user.command("list")
def user_list() -> None:
    """List every user: name, role, display name, created."""
    from quizsvc.store import begin_read_only, list_users, make_session_factory

    with migrated_database() as engine, make_session_factory(engine)() as session:
        begin_read_only(session)
        users = list_users(session)
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

    with migrated_database() as engine, make_session_factory(engine)() as session:
        token = issue_api_token(session, name)
    click.echo(token)
