"""The interface catalog: every message in both languages, every key used exists."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from quizsvc.web.i18n import LANGUAGES, MESSAGES

WEB = Path(__file__).resolve().parents[2] / "quizsvc" / "web"


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_every_message_has_both_languages_with_the_same_placeholders(key):
    texts = MESSAGES[key]
    assert set(texts) == set(LANGUAGES), key
    assert all(texts[lang].strip() for lang in LANGUAGES), key
    assert placeholders(texts["zh"]) == placeholders(texts["en"]), key


def used_keys() -> set[tuple[str, str]]:
    found = set()
    for path in WEB.rglob("*"):
        if path.suffix not in {".html", ".py"}:
            continue
        text = path.read_text(encoding="utf-8")
        for key in re.findall(r"""\b(?:t|translate)\(\s*['"]([a-z0-9_]+)['"]""", text):
            found.add((str(path.relative_to(WEB)), key))
    return found


def test_every_key_the_templates_and_views_use_exists():
    used = used_keys()
    assert len(used) > 50  # the scan finds the uses
    missing = sorted((path, key) for path, key in used if key not in MESSAGES)
    assert missing == []


def test_every_message_is_used():
    used = {key for _, key in used_keys()}
    assert sorted(set(MESSAGES) - used) == []
