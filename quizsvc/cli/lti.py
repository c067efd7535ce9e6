"""`quizsvc lti`: the LMS platforms that may launch quizsvc (LTI 1.3), the tool's key pair, the
URLs an LMS administrator enters, and grade passback's retries (docs/lti.md)."""

from __future__ import annotations

import click

from quizsvc.cli.common import fail, migrated_database


@click.group()
def lti() -> None:
    """Register LMS platforms (LTI 1.3), make the tool's key, post pending grades."""


@lti.command("add-platform")
@click.option("--issuer", required=True, help="The platform's issuer (iss), e.g. its URL.")
@click.option("--client-id", required=True, help="The client id the platform gave quizsvc.")
@click.option(
    "--deployment-id",
    "deployment_ids",
    required=True,
    multiple=True,
    help="A deployment id the platform launches from (repeat for several).",
)
@click.option("--auth-login-url", required=True, help="The platform's OIDC login endpoint.")
@click.option("--auth-token-url", required=True, help="The platform's OAuth2 token endpoint.")
@click.option("--key-set-url", required=True, help="The platform's public key set (JWKS).")
@click.option("--auth-audience", help="The token endpoint's audience, if not its URL.")
def add_platform(
    issuer: str,
    client_id: str,
    deployment_ids: tuple[str, ...],
    auth_login_url: str,
    auth_token_url: str,
    key_set_url: str,
    auth_audience: str | None,
) -> None:
    """Register a platform (or update the one with this issuer and client id). The tool's
    key pair is made at the first registration."""
    from quizsvc.lti.keys import generate_key
    from quizsvc.store import make_session_factory
    from quizsvc.store.lti import InvalidPlatform, add_platform, tool_keys

    with migrated_database() as engine, make_session_factory(engine)() as session:
        try:
            platform, created = add_platform(
                session,
                issuer=issuer,
                client_id=client_id,
                deployment_ids=list(deployment_ids),
                auth_login_url=auth_login_url,
                auth_token_url=auth_token_url,
                key_set_url=key_set_url,
                auth_audience=auth_audience,
            )
        except (InvalidPlatform, ValueError) as exc:
            fail(str(exc))
        platform_id = platform.id
        made_key = not tool_keys(session)
        if made_key:
            generate_key(session)
    verb = "registered" if created else "updated"
    click.echo(f"{verb} platform {platform_id}: {issuer} (client id {client_id})")
    if made_key:
        click.echo("made the tool's key pair (served at /lti/jwks)")


@lti.command("platforms")
def platforms() -> None:
    """List the registered platforms."""
    from quizsvc.store import begin_read_only, make_session_factory
    from quizsvc.store.lti import list_platforms

    with migrated_database() as engine, make_session_factory(engine)() as session:
        begin_read_only(session)
        found = list_platforms(session)
    if not found:
        click.echo("no platforms")
    for p in found:
        click.echo(f"{p.id}  {p.issuer}  client id {p.client_id}")
        click.echo(f"    deployments: {', '.join(p.deployment_ids)}")
        click.echo(f"    login: {p.auth_login_url}")
        click.echo(f"    token: {p.auth_token_url}")
        click.echo(f"    key set: {p.key_set_url}")


@lti.command("generate-key")
def generate_key_command() -> None:
    """Make a new key pair for the tool: it signs from now on; the older keys stay in the
    JWKS, so what they signed can still be checked."""
    from quizsvc.lti.keys import generate_key
    from quizsvc.store import make_session_factory

    with migrated_database() as engine, make_session_factory(engine)() as session:
        key = generate_key(session)
    click.echo(f"made key {key.kid}")


@lti.command("urls")
@click.argument("base_url")
def urls(base_url: str) -> None:
    """The URLs an LMS administrator enters for quizsvc served at BASE_URL."""
    base = base_url.rstrip("/")
    if not base.startswith(("http://", "https://")):
        fail(f"{base_url!r} is not an http(s) URL")
    click.echo(f"OIDC login initiation URL: {base}/lti/login")
    click.echo(f"Launch / redirect URL:     {base}/lti/launch")
    click.echo(f"Deep linking URL:          {base}/lti/launch")
    click.echo(f"Public keyset (JWKS) URL:  {base}/lti/jwks")


@lti.command("flush-grades")
def flush_grades_command() -> None:
    """Post the chapter totals waiting in the outbox to the LMS (those the web app could not
    post at once); run it from cron to retry."""
    from quizsvc.cli.common import current_settings
    from quizsvc.cli.content import load_bank_or_exit
    from quizsvc.lti.grades import flush_grades
    from quizsvc.store import make_session_factory

    bank = load_bank_or_exit(current_settings().content_dir)
    with migrated_database() as engine, make_session_factory(engine)() as session:
        result = flush_grades(session, bank)
    click.echo(f"posted {result.posted} total(s); {result.failed} learner(s) left to retry")
    if result.failed:
        raise SystemExit(1)
