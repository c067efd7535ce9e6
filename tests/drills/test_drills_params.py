"""Params models, generate_variant's errors, and the chapter's drills.yaml with the real kinds."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from quizsvc.bank import DrillQuestion, load_bank
from quizsvc.drills import DRILL_KINDS, drill_param_models, generate_variant

REPO_CONTENT_DIR = Path(__file__).resolve().parents[2] / "content"


def test_drill_param_models_names_every_kind(real_drill_kinds: tuple[str, ...]) -> None:
    models = drill_param_models()
    assert set(models) == set(real_drill_kinds) == set(DRILL_KINDS)
    for name, model in models.items():
        kind = DRILL_KINDS[name]
        assert kind.name == name and kind.params_model is model
        assert issubclass(model, BaseModel)
        assert model.model_config.get("extra") == "forbid"
        model()  # every field has a default
        assert kind.skill and kind.default_tolerance.atol >= 0


def test_the_defaults_are_the_chapters_sizes() -> None:
    for name, model in drill_param_models().items():
        defaults = model().model_dump()
        if "n" in defaults:
            assert defaults["n"] == 3, name
        if "d_model" in defaults:
            assert defaults["d_model"] == 4, name
        if "vocab_size" in defaults:
            assert defaults["vocab_size"] == 6, name  # 我 爱 你 I love you


@pytest.mark.parametrize(
    ("kind", "params", "field"),
    [
        ("embedding_positional", {"n": 4, "position": 3}, "position"),
        ("score_row", {"position": 2}, "position"),
        ("masked_row", {"n": 4, "position": 2}, "position"),
        ("masked_score_row", {"n": 4, "position": 0}, "position"),
        ("attention_output_row", {"position": 1}, "position"),
        ("multi_head", {"part": "head_output", "head": 1}, "head"),
        ("cross_attention_row", {"position": 3}, "position"),
        ("teacher_forcing_loss", {"reduction": "position", "position": 2}, "position"),
    ],
)
def test_a_position_or_head_that_passes_its_checks_is_kept(kind, params, field) -> None:
    assert getattr(drill_param_models()[kind].model_validate(params), field) == params[field]


def test_params_cannot_be_changed_once_validated() -> None:
    params = drill_param_models()["projection"]()
    with pytest.raises(ValidationError, match="frozen"):
        params.n = 4


REJECTED = [
    ("projection", {"size": 3}, "size", "Extra inputs"),
    ("projection", {"n": 5}, "n", "less than or equal to 4"),
    ("projection", {"n": 1}, "n", "greater than or equal to 2"),
    ("projection", {"d_model": 7}, "d_model", "less than or equal to 6"),
    ("projection", {"n": "3"}, "n", "valid integer"),
    ("projection", {"n": True}, "n", "valid integer"),
    ("projection", {"which": "o"}, "which", "'q', 'k', 'v' or 'random'"),
    ("embedding_positional", {"d_model": 3}, "d_model", "d_model must be even"),
    ("embedding_positional", {"n": 2, "position": 2}, "position", "less than n = 2"),
    ("embedding_positional", {"vocab_size": 3}, "vocab_size", "greater than or equal to 4"),
    ("score_row", {"position": -1}, "position", "greater than or equal to 0"),
    ("score_row", {"position": 3}, "position", "less than n = 3"),
    ("masked_row", {"n": 4, "position": 4}, "position", "less than n - 1 = 3"),
    ("masked_row", {"n": 4, "position": 3}, "position", "no future position to mask"),
    ("masked_row", {"n": 2, "position": 1}, "position", "less than n - 1 = 1"),
    ("masked_score_row", {"n": 4, "position": 3}, "position", "no future position to mask"),
    ("masked_score_row", {"d_model": 7}, "d_model", "less than or equal to 6"),
    ("attention_output_row", {"position": 3}, "position", "less than n = 3"),
    ("multi_head", {"d_model": 4, "n_heads": 3}, "n_heads", "divisible by n_heads"),
    ("multi_head", {"d_model": 5, "n_heads": 1}, "d_model", "must be even"),
    ("multi_head", {"part": "head_output", "head": 3}, "head", "at most n_heads = 2"),
    ("multi_head", {"head": 0}, "head", "greater than or equal to 1"),
    ("multi_head", {"head": 1}, "head", "only used with part: head_output"),
    ("multi_head", {"part": "concat"}, "part", "head_output"),
    ("ffn_row", {"d_ff": 9}, "d_ff", "less than or equal to 8"),
    ("cross_attention_row", {"target_length": 2, "position": 2}, "position", "target_length"),
    ("cross_attention_row", {"part": "scores"}, "part", "'output' or 'weights'"),
    ("teacher_forcing_loss", {"target_length": 4}, "target_length", "less than or equal to 3"),
    (
        "teacher_forcing_loss",
        {"target_length": 2, "reduction": "position", "position": 3},
        "position",
        "at most",
    ),
    (
        "teacher_forcing_loss",
        {"reduction": "mean", "position": 1},
        "position",
        "only used with reduction: position",
    ),
    ("teacher_forcing_loss", {"reduction": "max"}, "reduction", "'mean', 'sum' or"),
    ("teacher_forcing_loss", {"vocab_size": 4}, "vocab_size", "greater than or equal to 5"),
    ("greedy_next_token", {"vocab_size": 9}, "vocab_size", "less than or equal to 8"),
    # the prompt's "<s> I love" needs "love", id 4: a vocabulary of 4 ends at "I", id 3
    (
        "greedy_next_token",
        {"vocab_size": 4, "generated": 2},
        "generated",
        "at most vocab_size - 3 = 1",
    ),
    (
        "greedy_next_token",
        {"vocab_size": 5, "generated": 3},
        "generated",
        "at most vocab_size - 3 = 2",
    ),
    ("add_norm", {"n": 3}, "n", "Extra inputs"),
    # integers written as integers, each kind of field
    ("projection", {"d_model": "4"}, "d_model", "valid integer"),
    ("projection", {"d_model": 4.0}, "d_model", "valid integer"),
    ("score_row", {"position": "1"}, "position", "valid integer"),
    ("embedding_positional", {"vocab_size": "6"}, "vocab_size", "valid integer"),
    ("multi_head", {"n_heads": "2"}, "n_heads", "valid integer"),
    ("multi_head", {"part": "head_output", "head": "1"}, "head", "valid integer"),
    ("ffn_row", {"d_ff": "4"}, "d_ff", "valid integer"),
    ("teacher_forcing_loss", {"vocab_size": "6"}, "vocab_size", "valid integer"),
    ("teacher_forcing_loss", {"target_length": True}, "target_length", "valid integer"),
    ("greedy_next_token", {"generated": "1"}, "generated", "valid integer"),
    ("greedy_next_token", {"vocab_size": "6"}, "vocab_size", "valid integer"),
    # the upper bounds that keep a drill small enough to compute by hand
    ("embedding_positional", {"vocab_size": 9}, "vocab_size", "less than or equal to 8"),
    ("multi_head", {"n_heads": 4}, "n_heads", "less than or equal to 3"),
    ("teacher_forcing_loss", {"vocab_size": 9}, "vocab_size", "less than or equal to 8"),
    ("greedy_next_token", {"generated": 4}, "generated", "less than or equal to 3"),
]


@pytest.mark.parametrize(("kind", "params", "field", "message"), REJECTED)
def test_params_models_reject_bad_values(kind, params, field, message) -> None:
    with pytest.raises(ValidationError) as caught:
        drill_param_models()[kind].model_validate(params)
    errors = caught.value.errors()
    assert [error["loc"] for error in errors] == [(field,)]
    assert message in errors[0]["msg"]
    # The cross-field checks carry their message as is, without "Value error, ".
    assert not errors[0]["msg"].startswith("Value error")


@pytest.mark.parametrize(("kind", "params", "field", "message"), REJECTED)
def test_generate_variant_turns_bad_params_into_a_clear_value_error(
    kind, params, field, message
) -> None:
    with pytest.raises(ValueError, match=rf"invalid params for drill kind '{kind}': {field}: "):
        generate_variant(kind, 0, params)


def test_generate_variant_rejects_an_unknown_kind_naming_the_known_ones() -> None:
    message = r"unknown drill kind 'softmax'; known kinds: .*softmax_row"
    with pytest.raises(ValueError, match=message):
        generate_variant("softmax", 0)


@pytest.mark.parametrize("seed", [-1, True, 1.0, "1", None])
def test_generate_variant_rejects_a_seed_that_is_not_a_non_negative_integer(seed) -> None:
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        generate_variant("softmax_row", seed)  # type: ignore[arg-type]


def test_generate_variant_accepts_params_as_mapping_model_or_none() -> None:
    model = drill_param_models()["softmax_row"]
    as_mapping = generate_variant("softmax_row", 9, {"n": 4})
    as_model = generate_variant("softmax_row", 9, model(n=4))
    assert as_mapping == as_model
    assert generate_variant("softmax_row", 9) == generate_variant("softmax_row", 9, {})
    with pytest.raises(ValueError, match="must be a SoftmaxRowParams, got a ScoreRowParams"):
        generate_variant("softmax_row", 9, drill_param_models()["score_row"]())
    with pytest.raises(ValueError, match="must be a mapping"):
        generate_variant("softmax_row", 9, [("n", 4)])  # type: ignore[arg-type]


def test_drill_kind_generate_requires_its_own_params_model() -> None:
    kind = DRILL_KINDS["add_norm"]
    with pytest.raises(TypeError, match="AddNormParams"):
        kind.generate(0, drill_param_models()["ffn_row"]())
    assert kind.generate(0, kind.params_model()) == generate_variant("add_norm", 0)


def test_the_chapters_drills_load_with_the_real_kinds_and_generate(
    real_drill_kinds: tuple[str, ...],
) -> None:
    bank = load_bank(REPO_CONTENT_DIR, drill_param_models())
    drills = [q for q in bank.questions.values() if isinstance(q, DrillQuestion)]
    assert sorted(q.kind for q in drills) == sorted(real_drill_kinds)
    for question in drills:
        params = bank.drill_params[question.id]
        assert isinstance(params, DRILL_KINDS[question.kind].params_model)
        variant = generate_variant(question.kind, 0, params)
        assert variant.kind == question.kind
        # The kind trains a skill the question is tagged with.
        assert variant.skill in question.tags, (question.id, variant.skill, question.tags)


def test_a_bad_params_key_in_content_is_reported_where_it_is_written(tmp_path: Path) -> None:
    from quizsvc.bank import BankError

    chapter = tmp_path / "ch"
    chapter.mkdir()
    (chapter / "chapter.yaml").write_text("id: ch\norder: 1\ntitle: {zh: 章, en: Ch}\n")
    (chapter / "d.yaml").write_text(
        "questions:\n"
        "  - id: d1\n"
        "    type: drill\n"
        "    kind: multi_head\n"
        "    tags: [multi_head]\n"
        "    prompt: {zh: 算, en: Compute}\n"
        "    params:\n"
        "      d_model: 4\n"
        "      n_heads: 3\n"
    )
    with pytest.raises(BankError) as caught:
        load_bank(tmp_path, drill_param_models())
    assert [str(error) for error in caught.value.errors] == [
        "ch/d.yaml:9: questions[0].params.n_heads: d_model = 4 must be divisible by n_heads (got 3)"
    ]
