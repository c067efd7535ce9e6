"""What a launch's claims mean to quizsvc: the account's role and language, the name shown,
and where the launch lands (a chapter's quiz or its drills), named in the custom claim that
Deep Linking put in the link (`deep_link_resource`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pylti1p3.deep_link_resource import DeepLinkResource

from quizsvc.bank import Bank

ROLES_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/roles"
CUSTOM_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/custom"
PRESENTATION_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/launch_presentation"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"

# The roles (system, institution or course ones, by the last term of their URI, or a bare
# name) whose users get an instructor's account; anyone else is a student.
INSTRUCTOR_ROLES = frozenset({"Instructor", "Administrator"})

TargetKind = Literal["quiz", "drills"]


def role_of(claims: Mapping[str, Any]) -> str:
    """ "instructor" if the roles claim names an Instructor or Administrator role, else
    "student". A sub-role (`.../membership/Instructor#TeachingAssistant`) is its own last term:
    a teaching assistant is a student here."""
    roles = claims.get(ROLES_CLAIM) or []
    for role in roles if isinstance(roles, list) else []:
        term = str(role).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
        if term in INSTRUCTOR_ROLES:
            return "instructor"
    return "student"


def language_of(claims: Mapping[str, Any]) -> str | None:
    """ "zh" or "en" from the launch's locale (`zh-CN`, `en_US`...), None for another one."""
    presentation = claims.get(PRESENTATION_CLAIM)
    locale = presentation.get("locale") if isinstance(presentation, dict) else None
    if not isinstance(locale, str):
        return None
    language = locale.replace("_", "-").split("-", 1)[0].lower()
    return language if language in ("zh", "en") else None


def display_name_of(claims: Mapping[str, Any]) -> str:
    name = claims.get("name")
    if not isinstance(name, str) or not name.strip():
        parts = [claims.get("given_name"), claims.get("family_name")]
        name = " ".join(p for p in parts if isinstance(p, str) and p.strip())
    return name.strip() if isinstance(name, str) else ""


@dataclass(frozen=True)
class Target:
    """Where a launch lands: a chapter's quiz (its questions) or its drills."""

    kind: TargetKind
    chapter_id: str

    @property
    def custom(self) -> dict[str, str]:
        """The custom parameters of a link to it (Deep Linking)."""
        return {self.kind: self.chapter_id}


def target_of(claims: Mapping[str, Any], bank: Bank) -> Target | None:
    """The launch's target from its custom claim (`quiz=<chapter>` or `drills=<chapter>`);
    with none, the first chapter's quiz; None for a chapter the bank does not have."""
    custom = claims.get(CUSTOM_CLAIM)
    custom = custom if isinstance(custom, dict) else {}
    for kind in ("quiz", "drills"):
        chapter_id = custom.get(kind)
        if chapter_id is not None:
            known = isinstance(chapter_id, str) and chapter_id in {c.id for c in bank.chapters}
            return Target(kind, chapter_id) if known else None  # type: ignore[arg-type]
    return Target("quiz", bank.chapters[0].id) if bank.chapters else None


def targets(bank: Bank) -> list[Target]:
    """What Deep Linking offers: each chapter's quiz and drills."""
    return [Target(kind, chapter.id) for chapter in bank.chapters for kind in ("quiz", "drills")]


def deep_link_resource(target: Target, launch_url: str, title: str) -> DeepLinkResource:
    resource = DeepLinkResource()
    resource.set_url(launch_url).set_title(title).set_custom_params(target.custom)
    return resource


@dataclass(frozen=True)
class GradeService:
    """The launch's AGS claim, when it lets the tool post scores to one line item."""

    lineitem: str
    scopes: list[str]


def grade_service_of(claims: Mapping[str, Any]) -> GradeService | None:
    endpoint = claims.get(AGS_CLAIM)
    if not isinstance(endpoint, dict):
        return None
    lineitem, scopes = endpoint.get("lineitem"), endpoint.get("scope")
    if not isinstance(lineitem, str) or not isinstance(scopes, list):
        return None
    if SCORE_SCOPE not in scopes:
        return None
    return GradeService(lineitem, [str(s) for s in scopes])
