"""The translation catalogs as files: where they are, what the sources ask of them.

`make translations` runs `pybabel extract`, `update` and `compile` on them, and between the
last two `python -m quizsvc.web.catalogs`, which gives the English catalog its texts (English
is the source language: each msgstr is its msgid). tests/web/test_web_i18n.py extracts the
msgids here, as pybabel does, to compare them with the catalogs.
"""

from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = Path(__file__).with_name("translations")
LANGUAGES = ("zh", "en")
# N_ marks the domain's English templates (the code formats them with str.format);
# lazy_gettext the forms' messages, declared before any request has a language
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "lazy_gettext": None}


def po_path(language: str) -> Path:
    return TRANSLATIONS / language / "LC_MESSAGES" / "messages.po"


def read_catalog(path: Path) -> Catalog:
    with path.open("rb") as file:
        return read_po(file)


def extract_catalog() -> Catalog:
    """Every message the sources use, as `pybabel extract -F babel.cfg -k N_ -k lazy_gettext`
    finds them."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as file:
        method_map, options_map = parse_mapping_cfg(file)
    catalog = Catalog()
    for filename, lineno, message, comments, context in extract_from_dir(
        ROOT, method_map, options_map, KEYWORDS
    ):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def fill_english() -> None:
    """The English catalog's msgstrs: its msgids, each plural form its own."""
    path = po_path("en")
    catalog = read_catalog(path)
    for message in catalog:
        if message.id:
            message.string = message.id
            message.flags.discard("fuzzy")
    with path.open("wb") as file:
        write_po(file, catalog, omit_header=False, ignore_obsolete=True)


if __name__ == "__main__":
    fill_english()
