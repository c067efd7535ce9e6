"""The drill kinds by name, and ``generate_variant``."""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from pydantic import BaseModel, ValidationError

from quizsvc.drills import attention, embedding, gradient, multi_head, output, sublayers, trained
from quizsvc.drills import params as p
from quizsvc.drills.conventions import Conventions, ConventionsOf, Rounding, fixed
from quizsvc.drills.params import effective_weights
from quizsvc.drills.text import ROUNDING_NOISE, Draft
from quizsvc.drills.trained import ChapterModel
from quizsvc.drills.variant import Tensor, Variant, with_each_tensor
from quizsvc.grading import Tolerance

Generator = Callable[[np.random.Generator, BaseModel], Draft]
# A kind's generator on the chapter's trained model (``weights: trained``).
TrainedGenerator = Callable[[np.random.Generator, BaseModel, ChapterModel], Draft]


@dataclass(frozen=True)
class DrillKind:
    """A kind of randomized exercise.

    ``default_tolerance`` applies when a question sets none (a kind may tighten it for a
    variant whose answer is attention weights; ``Variant.tolerance`` is what applies).
    ``skill`` is the tag the kind trains, as used in ``tags:`` of the content.
    ``conventions`` gives, from a variant's params, the rounding its default tolerance is
    made for, and the rest a learner must know to answer (``quizsvc.drills.conventions``).
    """

    name: str
    params_model: type[BaseModel]
    default_tolerance: Tolerance
    skill: str
    build: Generator
    conventions: ConventionsOf
    all_or_nothing: bool = False
    trained: TrainedGenerator | None = None

    def generate(
        self, seed: int, params: BaseModel, chapter: ChapterModel | None = None
    ) -> Variant:
        """The variant for ``seed``: the same (seed, params, chapter model) always gives the
        same variant. ``chapter``: the chapter's trained model, for a kind that can work on
        it (``weights``); its params then record which weights the variant has."""
        if not isinstance(params, self.params_model):
            raise TypeError(
                f"params for drill kind {self.name!r} must be a {self.params_model.__name__},"
                f" got {type(params).__name__}"
            )
        rng = np.random.default_rng(seed)
        if self.trained is None:
            draft = self.build(rng, params)
        else:
            weights = effective_weights(params.weights, params.DEFAULT_WEIGHTS, chapter is not None)
            if weights == "trained":
                if chapter is None:
                    raise ValueError(
                        f"drill kind {self.name!r} with weights: trained needs a trained model"
                    )
                # the sizes the model sets, checked as the kind's params model checks them
                params = _validated_params(self, {**params.model_dump(), "weights": weights})
                draft = self.trained(rng, params, chapter)
            else:
                draft = self.build(rng, params)
            draft = dataclasses.replace(draft, choices={"weights": weights, **draft.choices})
        draft = _without_noise(draft)
        return Variant(
            kind=self.name,
            seed=seed,
            # With the seed's choices filled in, generate(seed, params) reproduces the variant:
            # every kind draws its open choices last, so fixing them shifts no other number.
            params={**params.model_dump(mode="json"), **draft.choices},
            prompt=draft.prompt,
            given=draft.given,
            answer=draft.answer,
            tolerance=draft.tolerance or self.default_tolerance,
            all_or_nothing=self.all_or_nothing,
            solution=draft.solution,
            heatmap=draft.heatmap,
            skill=self.skill,
        )


def _without_noise(draft: Draft) -> Draft:
    """The draft with float noise in its tensors set to the 0 it stands for, so a variant
    stores, and the API sends, 0 rather than 2.7755575615628914e-17 (the pages round either
    to 0, but JSON keeps every digit)."""

    def clean(tensor: Tensor) -> Tensor:
        noise = np.abs(tensor.values) < ROUNDING_NOISE
        if not noise.any():
            return tensor
        return dataclasses.replace(tensor, values=np.where(noise, 0.0, tensor.values))

    return with_each_tensor(draft, clean)


def _kind(
    name: str,
    params_model: type[BaseModel],
    build: Generator,
    skill: str,
    atol: float,
    conventions: Rounding | Conventions | ConventionsOf,
    all_or_nothing: bool = False,
    on_trained: TrainedGenerator | None = None,
) -> DrillKind:
    if isinstance(conventions, Rounding):
        conventions = Conventions(conventions)
    if isinstance(conventions, Conventions):
        conventions = fixed(conventions)
    return DrillKind(
        name,
        params_model,
        Tolerance(atol=atol),
        skill,
        build,
        conventions,
        all_or_nothing,
        on_trained,
    )


# The roundings the drills' prompts ask for: the chapter gives vectors, scores and losses to two
# decimals, attention weights and the results on the way to three.
TWO_DECIMALS = Rounding(answer=2)
TWO_AFTER_THREE = Rounding(answer=2, intermediate=3)
THREE_AFTER_THREE = Rounding(answer=3, intermediate=3)


# Default tolerances follow the precision the chapter works to: two decimals for vectors and
# scores (0.01), three for weights (0.005), and more where several rounded steps are chained.
# A learner who rounds every intermediate as the chapter's prompts say (three decimals) uses
# under 60% of them (tests/drills/test_drills_rounding.py).
DRILL_KINDS: Mapping[str, DrillKind] = MappingProxyType(
    {
        kind.name: kind
        for kind in (
            _kind(
                "embedding_positional",
                p.EmbeddingPositionalParams,
                embedding.embedding_positional,
                "positional_encoding",
                0.01,
                TWO_AFTER_THREE,
            ),
            _kind(
                "projection",
                p.ProjectionParams,
                attention.projection,
                "qkv",
                0.01,
                TWO_DECIMALS,
            ),
            _kind(
                "score_row", p.ScoreRowParams, attention.score_row, "scores", 0.01, TWO_AFTER_THREE
            ),
            _kind(
                "masked_score_row",
                p.MaskedScoreRowParams,
                attention.masked_score_row,
                "masking",
                0.01,
                Conventions(TWO_AFTER_THREE, masked_cell=-math.inf),
            ),
            _kind(
                "softmax_row",
                p.SoftmaxRowParams,
                attention.softmax_row,
                "softmax",
                0.005,
                THREE_AFTER_THREE,
            ),
            _kind(
                "masked_row",
                p.MaskedRowParams,
                attention.masked_row,
                "masking",
                0.005,
                Conventions(THREE_AFTER_THREE, masked_cell=0.0),
            ),
            _kind(
                "attention_output_row",
                p.AttentionOutputRowParams,
                attention.attention_output_row,
                "attention_output",
                0.01,
                TWO_DECIMALS,
            ),
            # Scaled with the size by multi_head.tolerance_for; this is its value at the defaults.
            # A head's scores can all be far below 0: e^x then needs a fourth decimal.
            _kind(
                "multi_head",
                p.MultiHeadParams,
                multi_head.multi_head,
                "multi_head",
                0.03,
                Rounding(answer=2, intermediate=3, exponentials=4),
                on_trained=trained.multi_head,
            ),
            _kind(
                "add_norm",
                p.AddNormParams,
                sublayers.add_norm,
                "add_norm",
                0.02,
                Conventions(TWO_AFTER_THREE, eps=sublayers.LAYER_NORM_EPS),
            ),
            _kind("ffn_row", p.FfnRowParams, sublayers.ffn_row, "ffn", 0.01, TWO_AFTER_THREE),
            _kind(
                "cross_attention_row",
                p.CrossAttentionRowParams,
                attention.cross_attention_row,
                "cross_attention",
                0.02,
                attention.cross_attention_conventions,
                on_trained=trained.cross_attention_row,
            ),
            _kind(
                "teacher_forcing_loss",
                p.TeacherForcingLossParams,
                output.teacher_forcing_loss,
                "teacher_forcing",
                0.01,
                TWO_AFTER_THREE,
            ),
            # ∂L/∂z = softmax(z) - y: probabilities less a target, to three decimals as weights.
            _kind(
                "logit_gradient",
                p.LogitGradientParams,
                gradient.logit_gradient,
                "teacher_forcing",
                0.005,
                THREE_AFTER_THREE,
            ),
            _kind(
                "greedy_next_token",
                p.GreedyNextTokenParams,
                output.greedy_next_token,
                "decoding",
                0.0,
                Rounding(answer=0),  # a token id
                all_or_nothing=True,
                on_trained=trained.greedy_next_token,
            ),
        )
    }
)


def drill_param_models() -> dict[str, type[BaseModel]]:
    """Each kind's params model by kind name: what ``quizsvc.bank.load_bank`` validates with."""
    return {name: kind.params_model for name, kind in DRILL_KINDS.items()}


def variant_conventions(variant: Variant) -> Conventions | None:
    """What a learner must know besides the numbers to answer ``variant``; None for a stored
    variant of a kind that no longer exists."""
    drill = DRILL_KINDS.get(variant.kind)
    return None if drill is None else drill.conventions(variant.params)


def generate_variant(
    kind: str,
    seed: int,
    params: Mapping[str, object] | BaseModel | None = None,
    chapter: ChapterModel | None = None,
) -> Variant:
    """The variant of ``kind`` for ``seed``; ``params`` as authored (a mapping), already
    validated (the kind's params model), or None for the kind's defaults. ``chapter``: the
    chapter's trained model and corpus, which the kinds with ``weights`` work on when the
    params say trained (or leave it to a kind whose default is trained).

    Raises ValueError for an unknown kind, a seed that is not a non-negative integer, or
    params the kind does not accept.
    """
    drill = DRILL_KINDS.get(kind)
    if drill is None:
        raise ValueError(f"unknown drill kind {kind!r}; known kinds: {', '.join(DRILL_KINDS)}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return drill.generate(int(seed), _validated_params(drill, params), chapter)


def _validated_params(drill: DrillKind, params: Mapping[str, object] | BaseModel | None):
    if params is None:
        return drill.params_model()
    if isinstance(params, drill.params_model):
        return params
    if isinstance(params, BaseModel):
        raise ValueError(
            f"params for drill kind {drill.name!r} must be a {drill.params_model.__name__},"
            f" got a {type(params).__name__}"
        )
    if not isinstance(params, Mapping):
        raise ValueError(f"params for drill kind {drill.name!r} must be a mapping, got {params!r}")
    try:
        return drill.params_model.model_validate(dict(params))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '<params>'}: {error['msg']}"
            for error in exc.errors()
        )
        raise ValueError(f"invalid params for drill kind {drill.name!r}: {problems}") from None
