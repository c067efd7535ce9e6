"""YAML snippets for self-test banks: one question each, as items of a ``questions:`` list."""

from __future__ import annotations


def numeric_question(question_id: str, answer: str, tolerance: str, extra: str = "") -> str:
    """One numeric question as a YAML list item (under ``questions:``)."""
    return (
        f"  - id: {question_id}\n"
        "    type: numeric\n"
        "    tags: [scores]\n"
        "    prompt: {zh: 算, en: Compute}\n"
        f"    answer: {answer}\n"
        f"    tolerance: {tolerance}\n"
        f"{extra}"
        "    explanation: {zh: 解, en: Because}\n"
    )


def drill_question(question_id: str, kind: str, extra: str = "") -> str:
    return (
        f"  - id: {question_id}\n"
        "    type: drill\n"
        f"    kind: {kind}\n"
        "    tags: [scores]\n"
        "    prompt: {zh: 算, en: Compute}\n"
        f"{extra}"
    )
