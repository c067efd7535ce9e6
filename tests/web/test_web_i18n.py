"""The interface catalog: every message in both languages, every key used exists; every
rejection code, skill and drill kind has its text."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from quizsvc.drills import DRILL_KINDS
from quizsvc.grading import REJECTION_PARAMETERS, Rejection
from quizsvc.web.context import load_content
from quizsvc.web.i18n import (
    ANSWER_PROBLEMS_ZH,
    DRILL_TITLES,
    LANGUAGES,
    MESSAGES,
    SKILL_NAMES,
    tensor_word,
)

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
    # a key's _singular form is picked by translate() for count=1 wherever the key is used
    used |= {f"{key}_singular" for key in used}
    assert sorted(set(MESSAGES) - used) == []


def test_every_singular_form_has_its_plural_with_the_same_placeholders():
    singulars = [key for key in MESSAGES if key.endswith("_singular")]
    assert singulars  # the scan finds them
    for key in singulars:
        plural = key.removesuffix("_singular")
        assert plural in MESSAGES, key
        for lang in LANGUAGES:
            assert placeholders(MESSAGES[key][lang]) == placeholders(MESSAGES[plural][lang]), key


# --- catalogs keyed by the domain's names -----------------------------------------------


def test_every_rejection_code_has_a_chinese_text_with_exactly_its_parameters():
    """English is the grader's own message; Chinese is here, formatted with the rejection's
    parameters (so a missing or misnamed placeholder would raise on a learner's page)."""
    assert set(ANSWER_PROBLEMS_ZH) == {code.value for code in Rejection}
    for code in Rejection:
        text = ANSWER_PROBLEMS_ZH[code.value]
        assert text.strip(), code
        assert placeholders(text) == REJECTION_PARAMETERS[code], code


def content_tags() -> set[str]:
    bank = load_content(WEB.parents[1] / "content")
    return {tag for question in bank.questions.values() for tag in question.tags}


def test_every_skill_and_drill_kind_has_a_name_in_both_languages():
    skills = {kind.skill for kind in DRILL_KINDS.values()} | content_tags()
    assert skills <= set(SKILL_NAMES), sorted(skills - set(SKILL_NAMES))
    assert set(DRILL_KINDS) <= set(DRILL_TITLES), sorted(set(DRILL_KINDS) - set(DRILL_TITLES))
    for names in (*SKILL_NAMES.values(), *DRILL_TITLES.values()):
        assert set(names) == set(LANGUAGES)
        assert all(names[lang].strip() for lang in LANGUAGES), names


# Tensor names and labels the drills write that read the same in Chinese: symbols, the
# paper's layer names, and the chapter's English tokens
SAME_IN_BOTH = {"AddNorm", "Concat", "CrossAttn", "LayerNorm", "MultiHead", "Sublayer(x)"}
SAME_IN_BOTH |= {"x + Sublayer(x)", "-ln p", "K_enc", "V_enc", "logits", "id", "love", "you"}
SAME_IN_BOTH |= {"<eos>", "<pad>"}


def test_every_english_word_a_drill_shows_has_its_chinese(app):
    from quizsvc.drills.registry import generate_variant

    words = set()
    for kind in DRILL_KINDS:
        for seed in range(10):
            variant = generate_variant(kind, seed)
            tensors = [
                *variant.given,
                variant.answer,
                *(t for s in variant.solution for t in s.tensors),
            ]
            for tensor in tensors:
                words |= {tensor.name, *tensor.row_labels, *tensor.col_labels}
    english = {w for w in words if re.search("[a-z]{2}", w)}
    # "Output0", "q(love)", "pos 2 爱": an English word with an index or a token
    english = {w for w in english if not re.fullmatch(r"(Out|Output)\d|q\(\w+\)|\d+ <?\w+>?", w)}
    with app.test_request_context(headers={"Accept-Language": "zh"}):
        untranslated = sorted(w for w in english - SAME_IN_BOTH if tensor_word(w) == w)
    assert untranslated == [], untranslated


@pytest.mark.parametrize(
    ("lang", "word", "shown"),
    [
        ("zh", "scores", "分数"),
        ("zh", "pos 2 爱", "位置 2 爱"),
        ("zh", "pos 10", "位置 10"),
        ("zh", "love", "love"),
        ("en", "scores", "scores"),
        ("en", "pos 2 爱", "pos 2 爱"),
    ],
)
def test_a_tensor_word_is_shown_in_the_page_language(app, lang, word, shown):
    with app.test_request_context(headers={"Accept-Language": lang}):
        assert tensor_word(word) == shown
