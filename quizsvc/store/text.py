"""What text the store can hold: every database takes any string except these."""

from __future__ import annotations

UNSTORABLE_TEXT = {
    "nul": "contains a NUL character (\\u0000)",
    "lone_surrogate": "contains a lone surrogate (\\ud800-\\udfff), which is not text",
}


def unstorable_text(text: str) -> str | None:
    """Why no database can store ``text`` as it is (a key of ``UNSTORABLE_TEXT``), or None.

    PostgreSQL refuses NUL in a text column (SQLite would store it), and a lone surrogate
    (half of a UTF-16 pair, which JSON's \\ud800 escapes can make) has no UTF-8 form.
    """
    if "\x00" in text:
        return "nul"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "lone_surrogate"
    return None
