"""Randomized numeric drills: a drill kind turns (seed, params) into a ``Variant``.

Pure domain code: imports the engine, NumPy, pydantic and the grading core's
``Tolerance``; no web framework, no database, no question bank.  Every variant's answer
and worked solution come from a real engine computation on the small hand-friendly
numbers the learner is given, and the same (kind, seed, params) always gives the same
variant.

    from quizsvc.drills import generate_variant
    variant = generate_variant("score_row", seed=7, params={"n": 3})
"""

from quizsvc.drills.conventions import Conventions, Rounding
from quizsvc.drills.names import DRILL_TITLES, POSITION_LABEL, SKILL_NAMES, TENSOR_WORDS
from quizsvc.drills.params import PARAMS_MESSAGES, ParamsProblem
from quizsvc.drills.registry import (
    DRILL_KINDS,
    DrillKind,
    drill_param_models,
    generate_variant,
    variant_conventions,
)
from quizsvc.drills.variant import Step, Tensor, Variant, number_to_json, with_each_tensor

__all__ = [
    "DRILL_KINDS",
    "DRILL_TITLES",
    "PARAMS_MESSAGES",
    "POSITION_LABEL",
    "SKILL_NAMES",
    "TENSOR_WORDS",
    "Conventions",
    "DrillKind",
    "ParamsProblem",
    "Rounding",
    "Step",
    "Tensor",
    "Variant",
    "drill_param_models",
    "generate_variant",
    "number_to_json",
    "variant_conventions",
    "with_each_tensor",
]
