"""The drills page's list: the drills in sections that follow the chapter's data flow, each
drill with where the learner stands on it (not tried, in progress, mastered)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from flask_babel import gettext, lazy_gettext, ngettext

from quizsvc import store
from quizsvc.web.i18n import skill_name
from quizsvc.web.render import format_whole_percent


@dataclass(frozen=True)
class DrillSection:
    """A step of the chapter's data flow and the skills (drill kinds' `skill`) it trains;
    ``title`` None: the name of its one skill."""

    key: str
    skills: tuple[str, ...]
    title: str | None = None

    def heading(self) -> str:
        return str(self.title) if self.title is not None else skill_name(self.skills[0])


# The list's sections in the chapter's order. A drill goes to the section of its skill, so a
# new kind of drill for a skill listed here is listed in its place with no change here.
DRILL_SECTIONS: tuple[DrillSection, ...] = (
    DrillSection(
        "embedding",
        ("embedding", "positional_encoding"),
        lazy_gettext("Embedding and positional encoding"),
    ),
    DrillSection("qkv", ("qkv",)),
    DrillSection(
        "attention-weights",
        ("scores", "masking", "softmax"),
        lazy_gettext("Scores, scaling, mask and softmax"),
    ),
    DrillSection("attention-output", ("attention_output",)),
    DrillSection("multi-head", ("multi_head",)),
    DrillSection("add-norm", ("add_norm",)),
    DrillSection("ffn", ("ffn",)),
    DrillSection("cross-attention", ("cross_attention",)),
    DrillSection("loss", ("teacher_forcing",)),
    DrillSection("decoding", ("decoding",)),
)
# where a drill of a skill no section lists goes (a tag added to the content later)
OTHER_SECTION = DrillSection("other", (), lazy_gettext("Other drills"))


class DrillState(StrEnum):
    NOT_TRIED = "not-tried"
    IN_PROGRESS = "in-progress"
    MASTERED = "mastered"


# A drill is mastered once a variant of it scores this much: right at the first attempt, or
# at the second after the default 10% penalty for retrying.
MASTERED_SCORE = 0.9


def drill_state(standing: store.DrillStanding | None) -> DrillState:
    if standing is None:
        return DrillState.NOT_TRIED
    if standing.best is not None and standing.best >= MASTERED_SCORE:
        return DrillState.MASTERED
    return DrillState.IN_PROGRESS


def state_label(state: DrillState) -> str:
    match state:
        case DrillState.NOT_TRIED:
            return gettext("Not tried")
        case DrillState.IN_PROGRESS:
            return gettext("In progress")
        case DrillState.MASTERED:
            return gettext("Mastered")


def drill_status(standing: store.DrillStanding | None) -> list[str]:
    """What the learner has done with a drill, as short phrases in the page's language:
    its unfinished variants (which Continue resumes), its finished ones, its best score.
    Nothing before a first variant (the state says "not tried")."""
    if standing is None:
        return []
    status = []
    if standing.unfinished:
        status.append(
            ngettext(
                "%(num)s unfinished variant, Continue opens it",
                "%(num)s unfinished variants, Continue opens the newest",
                standing.unfinished,
            )
        )
    if standing.finished:
        status.append(
            ngettext("%(num)s variant finished", "%(num)s variants finished", standing.finished)
        )
    if standing.best is not None:
        status.append(
            gettext(
                "best score %(score)s (each variant at its best attempt)",
                score=format_whole_percent(standing.best),
            )
        )
    return status


def sectioned(
    drills: Iterable[dict], sections: Sequence[DrillSection] = DRILL_SECTIONS
) -> list[dict]:
    """The drills (each a dict with its "skill_tag") under their sections, in the sections'
    order and, within one, in the order given; sections without a drill left out."""
    by_skill = {skill: section for section in sections for skill in section.skills}
    grouped: dict[str, list[dict]] = {}
    for drill in drills:
        section = by_skill.get(drill["skill_tag"], OTHER_SECTION)
        grouped.setdefault(section.key, []).append(drill)
    return [
        {"key": section.key, "heading": section.heading(), "drills": grouped[section.key]}
        for section in (*sections, OTHER_SECTION)
        if section.key in grouped
    ]
