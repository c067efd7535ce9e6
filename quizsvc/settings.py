"""Every setting quizsvc reads from the environment, read and checked here and nowhere else:
the app (`quizsvc.web.create_app`), the `quizsvc` command and Alembic's `migrations/env.py`
all get them from this module, so they cannot disagree about which database or which bank.

Precedence: a value passed to `create_app(config)` (tests, a program embedding the app),
else the environment, else the default. An empty variable counts as unset (but for
QUIZSVC_PASSWORD: an empty password is refused, not replaced by a prompt).
`DATABASE_URL` and `QUIZSVC_DATABASE_URL` are one setting under two names (hosting platforms
set the first): either will do, and if both are set they must be the same URL.

A value that does not read as its setting is an error (`SettingsError`, naming the variable,
the value and what it accepts) and so is a `QUIZSVC_` variable that is no setting (a
misspelt one would otherwise be ignored without a word): nothing falls back to a default.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from limits import RateLimitItem, parse_many
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

# The repository's content/, next to the quizsvc package (an editable install).
REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CONTENT_DIR = REPO_ROOT / "content"
DEFAULT_SESSION_LIFETIME_SECONDS = 31 * 24 * 3600  # Flask's own default, 31 days
DEFAULT_LOGIN_ATTEMPT_LIMITS = "10 per 10 minutes"
# Per client address, over every name: generous, since a class behind one school's NAT shares
# an address; a password sprayer still gets no more than this from one address.
DEFAULT_LOGIN_ADDRESS_ATTEMPT_LIMITS = "50 per 10 minutes"

PREFIX = "QUIZSVC_"
DATABASE_URL_NAMES = ("DATABASE_URL", "QUIZSVC_DATABASE_URL")

# What a database URL looks like, for the message about one that does not parse.
URL_FORM = (
    "dialect+driver://user:password@host:port/database"
    " (e.g. sqlite:///path/to/quizsvc.sqlite3 or postgresql://user@host/quizsvc)"
)
BOOLEAN = "true or false (also yes/no, on/off, 1/0; any case)"
RATE_LIMITS = (
    "a rate limit such as '10 per 10 minutes', or several separated by ';' "
    "(the `limits` library's notation)"
)


FRAME_ANCESTORS = "origins such as https://lms.example.edu, separated by spaces"
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")


def parse_origins(text: str) -> tuple[str, ...]:
    """The origins of a space-separated list (`https://lms.example.edu https://x.org:8443`);
    ValueError naming what it accepts for anything else."""
    origins = tuple(text.split())
    if not all(_ORIGIN.fullmatch(origin) for origin in origins):
        raise ValueError(f"{text!r} is not {FRAME_ANCESTORS}")
    return origins


class SettingsError(ValueError):
    """The environment holds a setting that cannot be used; the message names each one."""


def parse_rate_limits(text: str) -> tuple[RateLimitItem, ...]:
    """ValueError for text that is not one or more rate limits ("10 per fortnight")."""
    try:
        items = tuple(parse_many(text))
    except ValueError:
        items = ()
    if not items:
        raise ValueError(f"{text!r} is not {RATE_LIMITS}")
    return items


class Settings(BaseModel):
    """The settings, each under the name of its environment variable (`validation_alias`)
    and with what it accepts (`description`, quoted by `SettingsError`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # from DATABASE_URL or QUIZSVC_DATABASE_URL, read and checked by database_url_from
    database_url: str | None = Field(None, validation_alias="DATABASE_URL", repr=False)
    secret_key: str | None = Field(
        None, validation_alias="QUIZSVC_SECRET_KEY", description="any text", repr=False
    )
    development: bool = Field(False, validation_alias="QUIZSVC_DEVELOPMENT", description=BOOLEAN)
    content_dir: Path = Field(
        DEFAULT_CONTENT_DIR,
        validation_alias="QUIZSVC_CONTENT_DIR",
        description="the path of an existing directory",
    )
    registration_open: bool = Field(
        False, validation_alias="QUIZSVC_REGISTRATION_OPEN", description=BOOLEAN
    )
    session_cookie_secure: bool = Field(
        False, validation_alias="QUIZSVC_SESSION_COOKIE_SECURE", description=BOOLEAN
    )
    hsts: bool = Field(False, validation_alias="QUIZSVC_HSTS", description=BOOLEAN)
    lti_frame_ancestors: str | None = Field(
        None,
        validation_alias="QUIZSVC_LTI_FRAME_ANCESTORS",
        description=FRAME_ANCESTORS,
    )
    permanent_session_lifetime: int = Field(
        DEFAULT_SESSION_LIFETIME_SECONDS,
        gt=0,
        validation_alias="QUIZSVC_PERMANENT_SESSION_LIFETIME",
        description="a whole number of seconds, 1 or more",
    )
    login_attempt_limits: str = Field(
        DEFAULT_LOGIN_ATTEMPT_LIMITS,
        validation_alias="QUIZSVC_LOGIN_ATTEMPT_LIMITS",
        description=RATE_LIMITS,
    )
    login_address_attempt_limits: str = Field(
        DEFAULT_LOGIN_ADDRESS_ATTEMPT_LIMITS,
        validation_alias="QUIZSVC_LOGIN_ADDRESS_ATTEMPT_LIMITS",
        description=RATE_LIMITS,
    )
    trusted_proxies: int = Field(
        0,
        ge=0,
        validation_alias="QUIZSVC_TRUSTED_PROXIES",
        description="a whole number of proxies, 0 (none, the default) or more",
    )
    # read by the store through migrations_dir_from, which Alembic's env.py runs under too;
    # a field too, so that the variable is a known setting and not refused as a misspelling
    migrations_dir: Path | None = Field(
        None,
        validation_alias="QUIZSVC_MIGRATIONS_DIR",
        description="the path of the repository's migrations/ directory",
    )
    # read by `quizsvc user create` and `quizsvc user password` only, instead of a prompt
    password: str | None = Field(
        None, validation_alias="QUIZSVC_PASSWORD", description="any text", repr=False
    )

    @field_validator("lti_frame_ancestors")
    @classmethod
    def _origins(cls, text: str | None) -> str | None:
        if text is not None:
            parse_origins(text)
        return text

    @field_validator("content_dir")
    @classmethod
    def _an_existing_directory(cls, path: Path) -> Path:
        if not path.is_dir():
            raise ValueError("not a directory")
        return path

    @field_validator("login_attempt_limits", "login_address_attempt_limits")
    @classmethod
    def _rate_limits(cls, text: str) -> str:
        parse_rate_limits(text)
        return text

    def flask_config(self) -> dict[str, Any]:
        """The settings the web app keeps in its Flask config, under its keys."""
        config: dict[str, Any] = {
            "DATABASE_URL": self.database_url,
            "DEVELOPMENT": self.development,
            "CONTENT_DIR": str(self.content_dir),
            "REGISTRATION_OPEN": self.registration_open,
            "SESSION_COOKIE_SECURE": self.session_cookie_secure,
            "HSTS": self.hsts,
            "LTI_FRAME_ANCESTORS": parse_origins(self.lti_frame_ancestors or ""),
            "PERMANENT_SESSION_LIFETIME": timedelta(seconds=self.permanent_session_lifetime),
            "LOGIN_ATTEMPT_LIMITS": self.login_attempt_limits,
            "LOGIN_ADDRESS_ATTEMPT_LIMITS": self.login_address_attempt_limits,
            "TRUSTED_PROXIES": self.trusted_proxies,
        }
        if self.secret_key is not None:
            config["SECRET_KEY"] = self.secret_key
        return config


def _set(environ: Mapping[str, str], name: str) -> str | None:
    """The variable's value, None when it is unset or blank; secrets exactly as given."""
    value = environ.get(name)
    if name == "QUIZSVC_PASSWORD":
        return value  # an empty password is refused as a password, not taken for no password
    if value is None or not value.strip():
        return None
    return value if name == "QUIZSVC_SECRET_KEY" else value.strip()


def _environment(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    import os

    return os.environ if environ is None else environ


def database_url_from(environ: Mapping[str, str] | None = None) -> str | None:
    """The database URL DATABASE_URL or QUIZSVC_DATABASE_URL names, None for neither.

    SettingsError if the two name different URLs, or if the URL does not parse (the message
    never quotes it: it may hold a password)."""
    environ = _environment(environ)
    given = {name: value for name in DATABASE_URL_NAMES if (value := _set(environ, name))}
    if len(set(given.values())) > 1:
        raise SettingsError(
            "DATABASE_URL and QUIZSVC_DATABASE_URL are both set, to different URLs: they are"
            " one setting, so set only one of them (or both to the same URL)"
        )
    if not given:
        return None
    name, url = next(iter(given.items()))
    try:
        make_url(url)
    except (ArgumentError, ValueError):
        raise SettingsError(f"{name} is not a database URL of the form {URL_FORM}") from None
    return url


def migrations_dir_from(environ: Mapping[str, str] | None = None) -> Path | None:
    """QUIZSVC_MIGRATIONS_DIR as an absolute path, None when unset (the store checks that
    Alembic's environment is there)."""
    value = _set(_environment(environ), "QUIZSVC_MIGRATIONS_DIR")
    return Path(value).expanduser().resolve() if value else None


def from_environment(environ: Mapping[str, str] | None = None) -> Settings:
    """All settings from `environ` (default: the process's), or SettingsError listing every
    variable that is wrong, one a line."""
    environ = _environment(environ)
    raw = {
        name: value
        for name in environ
        if name.startswith(PREFIX) and name not in DATABASE_URL_NAMES
        if (value := _set(environ, name)) is not None
    }
    problems = []
    try:
        raw["DATABASE_URL"] = database_url_from(environ)
    except SettingsError as exc:
        problems.append(str(exc))
    try:
        settings = Settings.model_validate(raw)
    except ValidationError as exc:
        problems += [_problem(error) for error in exc.errors()]
    if problems:
        raise SettingsError("\n".join(problems))
    return settings


def _problem(error: Any) -> str:
    name = str(error["loc"][0])
    if error["type"] == "extra_forbidden":
        return f"{name} is not a setting of quizsvc (they are: {', '.join(variable_names())})"
    field = next(f for f in Settings.model_fields.values() if f.validation_alias == name)
    shown = f"={error['input']!r}" if field.repr else ""
    return f"{name}{shown} is not accepted: use {field.description}"


def variable_names() -> list[str]:
    """Every environment variable quizsvc reads, sorted."""
    aliases = {str(field.validation_alias) for field in Settings.model_fields.values()}
    return sorted(aliases | set(DATABASE_URL_NAMES))
