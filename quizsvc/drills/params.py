"""The settings an author may give a drill in ``params:``, one pydantic model per kind.

Every field has a default (the chapter's sizes: n = 3 tokens, d_model = 4, one head of
d_k = 4, a six-word vocabulary), so ``params: {}`` is always valid.  Sizes are kept small
enough to compute by hand.  Unknown keys are errors, and integers must be written as
integers (``strict``): YAML's ``yes`` or ``"3"`` is a mistake, not a size.

A field that is ``None`` by default (``position``, ``head``, ``which``: ``random``) is
drawn from the seed, so learners get different positions; setting it fixes it.
Positions and token indices count from 0 as in the chapter; heads count from 1 as in the
chapter's "Head 1", "Head 2".
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from quizsvc.messages import N_

MAX_TOKENS = 4


class ParamsProblem(StrEnum):
    """Why a drill kind refuses its params beyond a field's own type and range: a stable code
    an interface can translate, as ``quizsvc.bank.ContentProblem`` is for the rest of a file."""

    NOT_EVEN = "params_not_even"
    NOT_BELOW = "params_not_below"
    NO_FUTURE_TO_MASK = "params_no_future_to_mask"
    HEADS_DO_NOT_DIVIDE_WIDTH = "params_heads_do_not_divide_width"
    HEAD_WITHOUT_HEAD_OUTPUT = "params_head_without_head_output"
    HEAD_ABOVE_HEADS = "params_head_above_heads"
    POSITION_WITHOUT_POSITION_REDUCTION = "params_position_without_position_reduction"
    POSITION_BEYOND_DECODER = "params_position_beyond_decoder"
    GENERATED_BEYOND_VOCABULARY = "params_generated_beyond_vocabulary"
    NO_TRAINED_MODEL = "params_no_trained_model"
    SIZE_WITH_TRAINED_WEIGHTS = "params_size_with_trained_weights"
    ONLY_WITH_TRAINED_WEIGHTS = "params_only_with_trained_weights"
    SENTENCE_BEYOND_CORPUS = "params_sentence_beyond_corpus"
    PART_WITH_TRAINED_WEIGHTS = "params_part_with_trained_weights"


# The English the CLI prints, formatted with the problem's parameters; the loader appends the
# offending value, " (got 5)".
PARAMS_MESSAGES: dict[ParamsProblem, str] = {
    ParamsProblem.NOT_EVEN: N_("{name} must be even (2, 4 or 6)"),
    ParamsProblem.NOT_BELOW: N_("{name} must be less than {bound_name} = {bound}"),
    ParamsProblem.NO_FUTURE_TO_MASK: N_(
        "position must be less than n - 1 = {limit}: the last row has no future position to mask"
    ),
    ParamsProblem.HEADS_DO_NOT_DIVIDE_WIDTH: N_("d_model = {d_model} must be divisible by n_heads"),
    ParamsProblem.HEAD_WITHOUT_HEAD_OUTPUT: N_(
        "head is only used with part: head_output (the projection uses all)"
    ),
    ParamsProblem.HEAD_ABOVE_HEADS: N_(
        "head counts from 1 and must be at most n_heads = {n_heads}"
    ),
    ParamsProblem.POSITION_WITHOUT_POSITION_REDUCTION: N_(
        "position is only used with reduction: position, not {reduction}"
    ),
    ParamsProblem.POSITION_BEYOND_DECODER: N_(
        "position must be at most target_length = {target_length} (the "
        "decoder input has target_length + 1 positions)"
    ),
    ParamsProblem.GENERATED_BEYOND_VOCABULARY: N_(
        "generated must be at most vocab_size - 3 = {limit}: the words "
        "generated so far (I, love, you) must be in the vocabulary"
    ),
    ParamsProblem.NO_TRAINED_MODEL: N_(
        "weights: trained needs the chapter's trained model (model/ beside its drills), and "
        "this chapter has none; write weights: random"
    ),
    ParamsProblem.SIZE_WITH_TRAINED_WEIGHTS: N_(
        "{name} is set by the trained model with weights: trained; leave it out"
    ),
    ParamsProblem.ONLY_WITH_TRAINED_WEIGHTS: N_(
        "{name} is only used with weights: trained (it picks a sentence, position or head "
        "of the trained model)"
    ),
    ParamsProblem.SENTENCE_BEYOND_CORPUS: N_(
        "sentence counts the corpus's pairs from 0 and must be less than {count}"
    ),
    ParamsProblem.PART_WITH_TRAINED_WEIGHTS: N_(
        "part: {part} is not available with weights: trained (the trained model's W_O is "
        "too large to work by hand); use part: head_output"
    ),
}


def _error(code: ParamsProblem, **params: Any) -> PydanticCustomError:
    # A custom error carries the message as is (a plain ValueError would be reported with
    # pydantic's "Value error, " prefix in front of it), and its code and parameters, which
    # the bank's loader passes on for a translation.
    message = PARAMS_MESSAGES[code].format(**params)
    return PydanticCustomError(
        "drill_params", "{message}", {"message": message, "code": code, "params": params}
    )


def _tokens(default: int = 3) -> int:
    return Field(default=default, ge=2, le=MAX_TOKENS, strict=True)


def _width(default: int = 4) -> int:
    return Field(default=default, ge=2, le=6, strict=True)


def _optional_index() -> int | None:
    return Field(default=None, ge=0, strict=True)


def _even(name: str) -> Any:
    """The validator of a model's field ``name`` that must be even."""

    def check(cls: type, value: int) -> int:
        if value % 2:
            raise _error(ParamsProblem.NOT_EVEN, name=name)
        return value

    return field_validator(name)(check)


def _position_below(bound_field: str) -> Any:
    """The validator of a model's ``position``, which indexes something of the size of its
    field ``bound_field``. The bound is only checked when it validated itself (it is then in
    ``info.data``)."""

    def check(cls: type, value: int | None, info: ValidationInfo) -> int | None:
        bound = info.data.get(bound_field)
        if value is not None and bound is not None and value >= bound:
            raise _error(
                ParamsProblem.NOT_BELOW, name="position", bound_name=bound_field, bound=bound
            )
        return value

    return field_validator("position")(check)


def _require_a_future(position: int | None, info: ValidationInfo) -> int | None:
    """A masked row's position must leave a future position (j > position) to mask."""
    n = info.data.get("n")
    if position is not None and n is not None and position >= n - 1:
        raise _error(ParamsProblem.NO_FUTURE_TO_MASK, limit=n - 1)
    return position


class DrillParams(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# The numbers a drill works on: "trained", from the chapter's trained model on a sentence of
# its corpus; "random", drawn from the seed at hand-sized values. Left out (None), the kind's
# default: trained for the kinds whose point the trained model shows, when the chapter has one
# (``quizsvc.drills.registry``, docs/authoring.md).
Weights = Literal["trained", "random"] | None

# What the bank's loader tells a params model in ``model_validate``'s context (the same keys
# as quizsvc.bank.loader's): the chapter's corpus (``engine.corpus.Corpus``) when it ships a
# trained model, else None, and the model's heads. Without the keys (params validated outside
# a bank) nothing is checked against a model.
TRAINED_CORPUS = "trained_corpus"
TRAINED_HEADS = "trained_heads"


def _weights_field() -> Any:
    return Field(default=None)


def _sentence_field() -> Any:
    # Which pair of the trained model's corpus, counted from 0 (0: the chapter's 我 爱 你).
    return Field(default=None, ge=0, strict=True)


def effective_weights(weights: str | None, default: str, has_model: bool) -> str:
    """The weights a drill works on: as authored, else the kind's ``default`` where the
    chapter has a trained model, else random."""
    if weights is not None:
        return weights
    return default if has_model else "random"


def _trained(model: Any, info: ValidationInfo) -> bool:
    """Whether ``model``'s drill works on trained weights, as far as validation can tell."""
    context = info.context or {}
    has_model = context.get(TRAINED_CORPUS) is not None
    return effective_weights(model.weights, model.DEFAULT_WEIGHTS, has_model) == "trained"


def _check_trained(
    model: Any, sizes: tuple[str, ...], trained_only: tuple[str, ...], info: ValidationInfo
) -> None:
    """A drill's ``weights`` against its other params and the chapter: with trained weights
    the model sets the ``sizes`` (one that differs from its default is refused), and the
    chapter must have a corpus holding ``sentence``; with random weights, the
    ``trained_only`` params mean nothing. Where the weights are left to the kind's default,
    they are only known with the chapter (the loader's context)."""
    context = info.context or {}
    if TRAINED_CORPUS in context:
        corpus = context[TRAINED_CORPUS]
        weights = effective_weights(model.weights, model.DEFAULT_WEIGHTS, corpus is not None)
        if weights == "trained" and corpus is None:
            raise _error(ParamsProblem.NO_TRAINED_MODEL)
        sentence = getattr(model, "sentence", None)
        if weights == "trained" and sentence is not None and sentence >= len(corpus.pairs):
            raise _error(ParamsProblem.SENTENCE_BEYOND_CORPUS, count=len(corpus.pairs))
        head, n_heads = getattr(model, "head", None), context.get(TRAINED_HEADS)
        if weights == "trained" and head is not None and n_heads and head > n_heads:
            raise _error(ParamsProblem.HEAD_ABOVE_HEADS, n_heads=n_heads)
    else:
        weights = model.weights
    fields = type(model).model_fields
    if weights == "trained":
        for name in sizes:
            if getattr(model, name) != fields[name].default:
                raise _error(ParamsProblem.SIZE_WITH_TRAINED_WEIGHTS, name=name)
    elif weights == "random":
        for name in trained_only:
            if getattr(model, name) is not None:
                raise _error(ParamsProblem.ONLY_WITH_TRAINED_WEIGHTS, name=name)


class EmbeddingPositionalParams(DrillParams):
    vocab_size: int = Field(default=6, ge=4, le=8, strict=True)
    n: int = _tokens()  # tokens in the sentence
    d_model: int = _width()  # even: PE pairs sin and cos dimensions
    position: int | None = _optional_index()  # which token's X' is asked

    _even_width = _even("d_model")

    _position_in_sentence = _position_below("n")


class ProjectionParams(DrillParams):
    n: int = _tokens()
    d_model: int = _width()
    # Which projection to ask for; "random" draws one of the three from the seed.
    which: Literal["q", "k", "v", "random"] = "random"


class ScoreRowParams(DrillParams):
    n: int = _tokens()
    d_model: int = _width()  # d_k = d_model (one head); 4 makes √d_k = 2 as in the chapter
    position: int | None = _optional_index()  # whose query row

    _position_in_sentence = _position_below("n")


class SoftmaxRowParams(DrillParams):
    n: int = _tokens()


class MaskedRowParams(DrillParams):
    n: int = _tokens()
    # The decoder position i whose row is masked; when open, drawn from 1 .. n-2 (0 for
    # n = 2): position 0 only sees itself, and the last row has no future to mask.
    position: int | None = _optional_index()

    @field_validator("position")
    @classmethod
    def _position_with_a_future(cls, value: int | None, info: ValidationInfo) -> int | None:
        return _require_a_future(value, info)


class MaskedScoreRowParams(DrillParams):
    n: int = _tokens()
    d_model: int = _width()  # d_k = d_model (one head)
    # The decoder position whose row is masked, as for MaskedRowParams.
    position: int | None = _optional_index()

    @field_validator("position")
    @classmethod
    def _position_with_a_future(cls, value: int | None, info: ValidationInfo) -> int | None:
        return _require_a_future(value, info)


class AttentionOutputRowParams(DrillParams):
    n: int = _tokens()
    d_model: int = _width()
    position: int | None = _optional_index()  # whose weight row

    _position_in_sentence = _position_below("n")


class MultiHeadParams(DrillParams):
    DEFAULT_WEIGHTS: ClassVar[str] = "random"

    weights: Weights = _weights_field()
    n: int = _tokens()
    d_model: int = _width()  # even, and divisible by n_heads
    n_heads: int = Field(default=2, ge=1, le=3, strict=True)
    # head_output: one head's output (n × d_k); concat_projection: the whole multi-head
    # output Concat(head_1, ..., head_h) W_o (n × d_model).
    part: Literal["head_output", "concat_projection"] = "concat_projection"
    head: int | None = Field(default=None, ge=1, strict=True)  # 1-based; for head_output
    # With trained weights: the sentence and the decoder position whose query the heads take.
    sentence: int | None = _sentence_field()
    position: int | None = _optional_index()

    _even_width = _even("d_model")

    @model_validator(mode="after")
    def _fits_the_weights(self, info: ValidationInfo) -> MultiHeadParams:
        _check_trained(self, ("n", "d_model", "n_heads"), ("sentence", "position"), info)
        if _trained(self, info) and self.part != "head_output":
            raise _error(ParamsProblem.PART_WITH_TRAINED_WEIGHTS, part=self.part)
        return self

    @field_validator("n_heads")
    @classmethod
    def _heads_divide_width(cls, value: int, info: ValidationInfo) -> int:
        d_model = info.data.get("d_model")
        if d_model is not None and d_model % value:
            raise _error(ParamsProblem.HEADS_DO_NOT_DIVIDE_WIDTH, d_model=d_model)
        return value

    @field_validator("head")
    @classmethod
    def _head_exists(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and info.data.get("part") == "concat_projection":
            raise _error(ParamsProblem.HEAD_WITHOUT_HEAD_OUTPUT)
        n_heads = info.data.get("n_heads")
        trained = info.data.get("weights") == "trained" or (
            info.data.get("weights") is None and (info.context or {}).get(TRAINED_CORPUS)
        )
        # the trained model's heads: _check_trained
        if value is not None and n_heads is not None and value > n_heads and not trained:
            raise _error(ParamsProblem.HEAD_ABOVE_HEADS, n_heads=n_heads)
        return value


class AddNormParams(DrillParams):
    d_model: int = _width()


class FfnRowParams(DrillParams):
    d_model: int = _width()
    d_ff: int = Field(default=4, ge=2, le=8, strict=True)


class CrossAttentionRowParams(DrillParams):
    DEFAULT_WEIGHTS: ClassVar[str] = "trained"

    weights: Weights = _weights_field()
    n: int = _tokens()  # source (encoder) tokens: the keys and values
    target_length: int = _tokens(default=4)  # decoder tokens: <s> I love you
    d_model: int = _width()
    position: int | None = _optional_index()  # the decoder position asking the query
    # output: the cross-attention output row (weights · V); weights: the weight row.
    part: Literal["output", "weights"] = "output"
    # With trained weights: which head of the cross-attention (from 1; open: one of the heads
    # whose largest weight falls on the word the heads' average picks) and which sentence.
    head: int | None = Field(default=None, ge=1, strict=True)
    sentence: int | None = _sentence_field()

    _position_in_target = _position_below("target_length")

    @model_validator(mode="after")
    def _fits_the_weights(self, info: ValidationInfo) -> CrossAttentionRowParams:
        _check_trained(self, ("n", "target_length", "d_model"), ("head", "sentence"), info)
        return self


class TeacherForcingLossParams(DrillParams):
    # <pad>, <s>, <eos> and at least two words.
    vocab_size: int = Field(default=6, ge=5, le=8, strict=True)
    # Target words; the decoder sees <s> + target (target_length + 1 positions).
    target_length: int = Field(default=3, ge=1, le=MAX_TOKENS - 1, strict=True)
    # mean: the loss over all positions, as the engine (and PyTorch) computes it;
    # sum: the chapter's "sum of every position's error"; position: one position's loss.
    reduction: Literal["mean", "sum", "position"] = "mean"
    position: int | None = _optional_index()  # for reduction = position; 0 .. target_length

    @field_validator("position")
    @classmethod
    def _position_in_decoder(cls, value: int | None, info: ValidationInfo) -> int | None:
        reduction = info.data.get("reduction")
        if value is not None and reduction is not None and reduction != "position":
            raise _error(ParamsProblem.POSITION_WITHOUT_POSITION_REDUCTION, reduction=reduction)
        target_length = info.data.get("target_length")
        if value is not None and target_length is not None and value > target_length:
            raise _error(ParamsProblem.POSITION_BEYOND_DECODER, target_length=target_length)
        return value


class LogitGradientParams(DrillParams):
    # <pad>, <s>, <eos> and one to three words: a softmax of four to six logits by hand.
    vocab_size: int = Field(default=6, ge=4, le=6, strict=True)
    # The paper's ε_ls (0.1 there); 0: a one-hot target. engine.backward.smoothed_targets
    # spreads ε evenly over all vocab_size tokens, so 0.1 at vocab_size 5 gives 0.02 and 0.92.
    label_smoothing: float = Field(default=0.0, ge=0.0, lt=1.0, strict=True)
    # The token id the position is to predict: <eos> (2) or a word, drawn from the seed when open.
    target: int | None = Field(default=None, ge=2, strict=True)

    @field_validator("target")
    @classmethod
    def _target_in_vocabulary(cls, value: int | None, info: ValidationInfo) -> int | None:
        vocab_size = info.data.get("vocab_size")
        if value is not None and vocab_size is not None and value >= vocab_size:
            raise _error(
                ParamsProblem.NOT_BELOW, name="target", bound_name="vocab_size", bound=vocab_size
            )
        return value


class GreedyNextTokenParams(DrillParams):
    DEFAULT_WEIGHTS: ClassVar[str] = "trained"

    weights: Weights = _weights_field()
    # The tokens shown; with trained weights, those the model scores highest.
    vocab_size: int = Field(default=6, ge=4, le=8, strict=True)
    generated: int = Field(default=2, ge=0, le=3, strict=True)  # tokens after <s> so far
    sentence: int | None = _sentence_field()

    @model_validator(mode="after")
    def _fits_the_weights(self, info: ValidationInfo) -> GreedyNextTokenParams:
        _check_trained(self, (), ("sentence",), info)
        return self

    @field_validator("generated")
    @classmethod
    def _generated_words_in_vocabulary(cls, value: int, info: ValidationInfo) -> int:
        # The prompt names the words generated so far, "I love you" up to `generated`: ids 3,
        # 4, 5 after <pad>, <s> and <eos>. A learner must find each among the given columns.
        vocab_size = info.data.get("vocab_size")
        # trained weights show the model's own candidates, whatever the words so far
        if info.data.get("weights") == "trained":
            return value
        if vocab_size is not None and value > vocab_size - 3:
            raise _error(ParamsProblem.GENERATED_BEYOND_VOCABULARY, limit=vocab_size - 3)
        return value
