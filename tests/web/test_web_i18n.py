"""The interface's gettext catalogs: every msgid in both languages, exactly the msgids the
sources use, compiled as shipped; every skill and drill kind has its name; the drills' words
and the dates in the page's language."""

from __future__ import annotations

import io
import re
import string
from datetime import UTC, datetime

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

from quizsvc.drills import DRILL_KINDS, DRILL_TITLES, SKILL_NAMES
from quizsvc.web.catalogs import LANGUAGES, TRANSLATIONS, extract_catalog, po_path, read_catalog
from quizsvc.web.context import load_content
from quizsvc.web.i18n import format_day, format_when, tensor_word


@pytest.fixture(scope="module")
def extracted():
    """The messages the code uses, extracted as `make translations` does (seconds: once)."""
    return extract_catalog()


def catalog(language: str):
    return read_catalog(po_path(language))


def msgids(messages) -> set[tuple[str | None, str | tuple[str, ...]]]:
    return {(message.context, message.id) for message in messages if message.id}


def forms(text: str | tuple[str, ...]) -> tuple[str, ...]:
    return text if isinstance(text, tuple) else (text,)


def test_the_sources_use_messages(extracted):
    assert len(msgids(extracted)) > 400  # the extraction finds them


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_catalog_holds_exactly_the_messages_the_sources_use(language, extracted):
    """Re-extracted as `make translations` does: none missing, none left over."""
    in_catalog = msgids(catalog(language))
    in_sources = msgids(extracted)
    assert sorted(in_sources - in_catalog, key=str) == [], "missing: run make translations"
    assert sorted(in_catalog - in_sources, key=str) == [], "unused: run make translations"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated_and_none_is_fuzzy(language):
    messages = [message for message in catalog(language) if message.id]
    assert [m.id for m in messages if m.fuzzy] == []
    untranslated = [m.id for m in messages if not all(s.strip() for s in forms(m.string))]
    assert untranslated == []


def test_the_english_catalog_is_the_source_text():
    for message in catalog("en"):
        if message.id:
            assert message.string == message.id, message.id


def placeholders(text: str) -> set[str]:
    """%(name)s placeholders, or {name} fields for the domain's str.format templates."""
    named = set(re.findall(r"%\((\w+)\)", text))
    if named or "%" in text:
        return named
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_chinese_text_has_its_english_placeholders():
    for message in catalog("zh"):
        if not message.id:
            continue
        english = set().union(*(placeholders(text) for text in forms(message.id)))
        for text in forms(message.string):
            # a plural's count (num) may stay unsaid where Chinese needs no plural
            assert placeholders(text) == english, message.id


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalog_is_the_current_one(language):
    """The .mo shipped beside each .po is that .po compiled (`make translations`)."""
    path = po_path(language)
    with path.open("rb") as file:
        compiled = io.BytesIO()
        write_mo(compiled, read_po(file))
    assert path.with_suffix(".mo").read_bytes() == compiled.getvalue()


# --- the domain's names -----------------------------------------------------------------

CHINESE = Translations.load(str(TRANSLATIONS), ["zh"])


def content_tags() -> set[str]:
    bank = load_content(TRANSLATIONS.parents[2] / "content")
    return {tag for question in bank.questions.values() for tag in question.tags}


def test_every_skill_and_drill_kind_has_a_name_in_both_languages():
    skills = {kind.skill for kind in DRILL_KINDS.values()} | content_tags()
    assert skills <= set(SKILL_NAMES), sorted(skills - set(SKILL_NAMES))
    assert set(DRILL_KINDS) <= set(DRILL_TITLES), sorted(set(DRILL_KINDS) - set(DRILL_TITLES))
    for english in (*SKILL_NAMES.values(), *DRILL_TITLES.values()):
        assert english.strip()
        assert re.search("[\u4e00-\u9fff]", CHINESE.gettext(english)) or english == "Softmax"


# Tensor names and labels the drills write that read the same in Chinese: symbols, the
# paper's layer names, and the chapter's English tokens
SAME_IN_BOTH = {"AddNorm", "Concat", "CrossAttn", "LayerNorm", "MultiHead", "Sublayer(x)"}
SAME_IN_BOTH |= {"x + Sublayer(x)", "-ln p", "K_enc", "V_enc", "logits", "id", "love", "you"}
SAME_IN_BOTH |= {"<eos>", "<pad>", "softmax(z)"}


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
        ("zh", "pos 3 → <eos>", "位置 3 → <eos>"),  # a loss drill's row: what it predicts
        ("zh", "love", "love"),
        ("en", "scores", "scores"),
        ("en", "pos 2 爱", "pos 2 爱"),
    ],
)
def test_a_tensor_word_is_shown_in_the_page_language(app, lang, word, shown):
    with app.test_request_context(headers={"Accept-Language": lang}):
        assert tensor_word(word) == shown


@pytest.mark.parametrize(
    ("lang", "when", "day"),
    [
        ("en", "Mar 5, 2026, 09:07", "Mar 5, 2026"),
        ("zh", "2026年3月5日 09:07", "2026年3月5日"),
    ],
)
def test_a_time_is_written_as_the_page_language_writes_one_in_utc(app, lang, when, day):
    moment = datetime(2026, 3, 5, 9, 7, 59, tzinfo=UTC)
    with app.test_request_context(headers={"Accept-Language": lang}):
        assert format_when(moment) == when
        assert format_when(moment.replace(tzinfo=None)) == when  # a naive time is UTC
        assert format_day(moment) == day
