"""The chapter's data flow step by step (the page /worked-example and `make example`): its
one-head example with the numbers it prints (recomputed, its misprints marked), then what it
describes without numbers run by the engine's tiny model with seeded weights
(engine.chapter_model); or every step on the chapter's sentence with the trained toy model's
numbers (`trained_example_parts`)."""

from __future__ import annotations

import dataclasses
from functools import cache

from engine.chapter import Erratum, worked_example
from engine.chapter_model import chapter_model_run, sentence_run
from engine.trained import TrainedModel
from quizsvc.messages import N_
from quizsvc.worked_example.decoder import decoder_steps, greedy_steps
from quizsvc.worked_example.encoder import chapter_steps, encoder_steps, trained_input_steps
from quizsvc.worked_example.steps import (
    Heatmap,
    Matrix,
    Part,
    Source,
    Step,
    Text,
    format_matrix,
    shape_text,
    steps_text,
    symbol,
    text,
)

__all__ = [
    "Heatmap",
    "Matrix",
    "Part",
    "Source",
    "Step",
    "Text",
    "erratum_label",
    "format_matrix",
    "shape_text",
    "trained_example_parts",
    "worked_example_parts",
    "worked_example_text",
]


@cache
def worked_example_parts() -> tuple[Part, ...]:
    """Every step in the order the data flows, grouped as the encoder, the decoder in training
    and decoding at inference. (Computed once: nothing in it changes.)"""
    ex, run = worked_example(), chapter_model_run()
    return (
        Part(text(N_("Encoder: the source 我 爱 你")), (*chapter_steps(ex), *encoder_steps(run))),
        Part(text(N_("Decoder, trained with teacher forcing")), decoder_steps(run, ex)),
        Part(text(N_("Inference: greedy decoding")), greedy_steps(run)),
    )


def trained_example_parts(model: TrainedModel) -> tuple[Part, ...]:
    """The same steps with the trained model's numbers throughout: its embedding of 我 爱 你,
    its heads, its decoder and its greedy decoding (the chapter's numbers, and so its
    misprints, are not among them)."""
    run = sentence_run(model.params, model.config, model.source_vocab, model.target_vocab)
    trained = Source.TRAINED
    return (
        Part(
            text(N_("Encoder: the source 我 爱 你")),
            _without_large_weights((*trained_input_steps(run), *encoder_steps(run, trained))),
        ),
        Part(
            text(N_("Decoder, trained with teacher forcing")),
            _without_large_weights(decoder_steps(run, None, trained)),
        ),
        Part(text(N_("Inference: greedy decoding")), greedy_steps(run, trained)),
    )


# A learned weight matrix larger than this many numbers is not printed: nobody multiplies a
# 32 × 32 matrix by hand, and the trained model's 22 of them made the page 590 KB.
MAX_GIVEN_NUMBERS = 64


def _without_large_weights(steps: tuple[Step, ...]) -> tuple[Step, ...]:
    return tuple(
        dataclasses.replace(
            step,
            given=tuple(m for m in step.given if m.values.size <= MAX_GIVEN_NUMBERS),
        )
        for step in steps
    )


# engine.chapter names each printed quantity by its formula, which mostly reads the same in
# both languages; these are the ones with English words in them.
_ERRATUM_LABELS = {
    "weights": N_("A = softmax(scores)"),
    "output": N_("Output = A V"),
    "masked_weights": N_("weights after masking"),
}


def erratum_label(erratum: Erratum) -> Text:
    """The name of a misprinted quantity."""
    if erratum.quantity in _ERRATUM_LABELS:
        return text(_ERRATUM_LABELS[erratum.quantity])
    return symbol(erratum.label)


def worked_example_text() -> str:
    header = "Transformer by hand: the chapter's data flow, computed by the engine"
    footer = "Numbers that differ from the chapter's printed ones: docs/errata.md"
    return "\n".join([header, "", steps_text(list(worked_example_parts())), footer])
