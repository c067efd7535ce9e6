"""Tests for the rubric-based score suggestion on free-text answers."""

from __future__ import annotations

import dataclasses

import pytest

from quizsvc.grading import (
    PhraseMatch,
    RubricPoint,
    RubricSuggestion,
    score_of_points,
    suggest_open_score,
)

RUBRIC = (
    RubricPoint("scale", 1.0, ("除以根号d_k", "divide by sqrt(d_k)", "√d_k")),
    RubricPoint("softmax", 2.0, ("softmax",)),
    RubricPoint("weights", 1.0, ("注意力权重", "attention weights")),
)


@pytest.mark.parametrize(
    ("answer", "found", "score"),
    [
        ("We divide by sqrt(d_k), then apply Softmax.", ("scale", "softmax"), 0.75),
        ("先除以根号d_k，再做softmax，得到注意力权重。", ("scale", "softmax", "weights"), 1.0),
        ("Scores / √d_k give the ATTENTION WEIGHTS", ("scale", "weights"), 0.5),
        ("用ｓｏｆｔｍａｘ归一化", ("softmax",), 0.5),  # full-width letters
        ("ＳＯＦＴＭＡＸ", ("softmax",), 0.5),
        ("除以根号ｄ＿ｋ", ("scale",), 0.25),  # full-width letters and underscore
        ("the attention\n   weights", ("weights",), 0.25),  # whitespace runs
        ("the attention\u3000weights", ("weights",), 0.25),  # ideographic space
        ("soft max", (), 0.0),  # whitespace is collapsed, not removed
        ("I multiplied Q by K.", (), 0.0),
        ("", (), 0.0),
    ],
)
def test_found_points_and_score(answer: str, found: tuple[str, ...], score: float) -> None:
    suggestion = suggest_open_score(answer, RUBRIC)
    assert suggestion.found == found
    assert suggestion.score == score
    assert suggestion.max_score == 1.0


def test_found_keys_follow_rubric_order_not_text_order() -> None:
    suggestion = suggest_open_score("注意力权重 comes from softmax", RUBRIC)
    assert suggestion.found == ("softmax", "weights")


def test_weights_are_reported() -> None:
    suggestion = suggest_open_score("softmax", RUBRIC)
    assert (suggestion.found_weight, suggestion.total_weight) == (2.0, 4.0)


def test_phrases_in_the_rubric_are_normalised_too() -> None:
    rubric = [RubricPoint("softmax", 1.0, ("ＳｏｆｔＭａｘ",)), RubricPoint("gap", 1.0, ("a   b",))]
    assert suggest_open_score("softmax, A\tB", rubric).found == ("softmax", "gap")


def test_casefold_matches_beyond_ascii() -> None:
    rubric = [RubricPoint("street", 1.0, ("straße",))]
    assert suggest_open_score("STRASSE", rubric).score == 1.0


def test_combining_accents_match_precomposed_letters() -> None:
    rubric = [RubricPoint("cafe", 1.0, ("café",))]
    text = "un cafe\u0301 noir"
    suggestion = suggest_open_score(text, rubric)
    assert suggestion.found == ("cafe",)
    start, end = suggestion.highlight_spans[0]
    assert text[start:end] == "cafe\u0301"


def test_matches_locate_phrases_in_the_original_text() -> None:
    text = "Use softmax. 再用ｓｏｆｔｍａｘ. Attention  weights"
    suggestion = suggest_open_score(text, RUBRIC)
    assert suggestion.matches == (
        PhraseMatch("softmax", "softmax", 4, 11),
        PhraseMatch("softmax", "softmax", 15, 22),
        PhraseMatch("weights", "attention weights", 24, 42),
    )
    assert [text[m.start : m.end] for m in suggestion.matches] == [
        "softmax",
        "ｓｏｆｔｍａｘ",
        "Attention  weights",
    ]


def test_highlight_spans_merge_overlapping_matches() -> None:
    rubric = [
        RubricPoint("attention", 1.0, ("attention",)),
        RubricPoint("weights", 1.0, ("attention weights", "weights")),
    ]
    text = "the attention weights sum to 1; weights"
    suggestion = suggest_open_score(text, rubric)
    assert suggestion.highlight_spans == ((4, 21), (32, 39))


def test_highlight_spans_join_matches_that_touch() -> None:
    rubric = [RubricPoint("first", 1.0, ("abc",)), RubricPoint("second", 1.0, ("def",))]
    assert suggest_open_score("abcdef abc", rubric).highlight_spans == ((0, 6), (7, 10))


def test_a_phrase_match_is_frozen_and_hashable() -> None:
    [match] = suggest_open_score("softmax", RUBRIC).matches
    assert hash(match) == hash(PhraseMatch("softmax", "softmax", 0, 7))
    with pytest.raises(dataclasses.FrozenInstanceError):
        match.start = 1  # type: ignore[misc]


@pytest.mark.parametrize("answer", [None, b"softmax", ["softmax"]])
def test_the_answer_must_be_text(answer: object) -> None:
    with pytest.raises(TypeError, match="answer text must be a string"):
        suggest_open_score(answer, RUBRIC)  # type: ignore[arg-type]


def test_suggestion_is_frozen() -> None:
    suggestion = suggest_open_score("softmax", RUBRIC)
    assert isinstance(suggestion, RubricSuggestion)
    with pytest.raises(dataclasses.FrozenInstanceError):
        suggestion.score = 1.0  # type: ignore[misc]


def test_phrases_given_as_a_list_become_a_tuple() -> None:
    point = RubricPoint("k", 1, ["a", "b"])  # type: ignore[arg-type]
    assert point.phrases == ("a", "b")
    assert point.weight == 1.0 and type(point.weight) is float
    assert hash(point) == hash(RubricPoint("k", 1.0, ("a", "b")))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"key": "", "weight": 1.0, "phrases": ("a",)}, ValueError),
        ({"key": "k", "weight": 0.0, "phrases": ("a",)}, ValueError),
        ({"key": "k", "weight": -1.0, "phrases": ("a",)}, ValueError),
        ({"key": "k", "weight": float("nan"), "phrases": ("a",)}, ValueError),
        ({"key": "k", "weight": "1", "phrases": ("a",)}, TypeError),
        ({"key": "k", "weight": True, "phrases": ("a",)}, TypeError),
        ({"key": "k", "weight": 1.0, "phrases": ()}, ValueError),
        ({"key": "k", "weight": 1.0, "phrases": ("a", "  ")}, ValueError),
        ({"key": "k", "weight": 1.0, "phrases": "softmax"}, TypeError),
    ],
)
def test_invalid_rubric_points(kwargs: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        RubricPoint(**kwargs)  # type: ignore[arg-type]


def test_rubric_must_not_be_empty() -> None:
    with pytest.raises(ValueError):
        suggest_open_score("softmax", [])


def test_rubric_keys_must_be_unique() -> None:
    duplicate = [RubricPoint("k", 1.0, ("a",)), RubricPoint("k", 1.0, ("b",))]
    with pytest.raises(ValueError):
        suggest_open_score("a", duplicate)


# --- a grader's ticked points -------------------------------------------------------------

TICKABLE = [
    RubricPoint("a", 2, ("alpha",)),
    RubricPoint("b", 1, ("beta",)),
    RubricPoint("c", 1, ("gamma",)),
]


@pytest.mark.parametrize(
    ("ticked", "score"),
    [
        ([], 0.0),
        (["a"], 0.5),  # 2 of 4
        (["b", "c"], 0.5),
        (["c", "a"], 0.75),  # in any order
        (["a", "a", "b"], 0.75),  # a key sent twice counts once
        (["a", "b", "c"], 1.0),
    ],
)
def test_ticked_points_score_their_share_of_the_weights(ticked, score):
    assert score_of_points(TICKABLE, ticked) == score


def test_a_ticked_key_the_rubric_lacks_is_refused_by_name():
    with pytest.raises(ValueError, match="no rubric point 'd'"):
        score_of_points(TICKABLE, ["a", "d"])
    with pytest.raises(ValueError, match="rubric has no points"):
        score_of_points([], [])
