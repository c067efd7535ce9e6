"""What a drill kind produces: a variant with its prompt, given tensors, answer and solution.

A variant is stored with the learner's attempt (``Variant.to_json``) and rebuilt from that
record (``Variant.from_json``) without running any drill code, so an attempt keeps showing
the numbers the learner saw even after the generators change.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from quizsvc.grading import Tolerance

LANGUAGES = ("zh", "en")

_WithTensors = TypeVar("_WithTensors")  # a Variant, or a drill's draft of one

# Bumped when the JSON layout changes so that older code would misread it; from_json refuses
# layouts it does not know. A key added with a default (a tensor's token_ids) keeps the format.
JSON_FORMAT = 1


@dataclass(frozen=True, eq=False)
class Tensor:
    """A named 2-D table of numbers with a label for every row and column.

    ``values`` is a read-only float64 copy; ±inf is allowed (masked scores), NaN is not.
    ``token_ids``: the values are token ids, whole numbers from 0, which JSON writes as
    integers.
    """

    name: str
    values: np.ndarray
    row_labels: tuple[str, ...]
    col_labels: tuple[str, ...]
    token_ids: bool = False

    def __post_init__(self) -> None:
        # "+ 0.0" turns -0.0 into 0.0: equal tensors must hash equal, and a learner should
        # never be shown "-0".
        values = np.array(self.values, dtype=np.float64) + 0.0
        if values.ndim != 2:
            raise ValueError(f"tensor {self.name!r} must be 2-D, got shape {values.shape}")
        if np.isnan(values).any():
            raise ValueError(f"tensor {self.name!r} contains NaN")
        values.setflags(write=False)
        object.__setattr__(self, "values", values)
        row_labels = tuple(str(label) for label in self.row_labels)
        col_labels = tuple(str(label) for label in self.col_labels)
        if len(row_labels) != values.shape[0] or len(col_labels) != values.shape[1]:
            raise ValueError(
                f"tensor {self.name!r} of shape {values.shape} has {len(row_labels)} row labels"
                f" and {len(col_labels)} column labels"
            )
        object.__setattr__(self, "row_labels", row_labels)
        object.__setattr__(self, "col_labels", col_labels)
        if self.token_ids and not (
            np.isfinite(values).all() and (values >= 0).all() and (values == np.round(values)).all()
        ):
            raise ValueError(f"tensor {self.name!r} of token ids holds a value that is no id")

    @property
    def shape(self) -> tuple[int, int]:
        rows, cols = self.values.shape
        return (rows, cols)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tensor):
            return NotImplemented
        return (
            self.name == other.name
            and self.row_labels == other.row_labels
            and self.col_labels == other.col_labels
            and self.token_ids == other.token_ids
            and self.values.shape == other.values.shape
            and bool(np.array_equal(self.values, other.values))
        )

    def __hash__(self) -> int:
        return hash(
            (self.name, self.row_labels, self.col_labels, self.token_ids, self.values.tobytes())
        )

    def to_json(self) -> dict[str, Any]:
        write = int if self.token_ids else number_to_json
        return {
            "name": self.name,
            "values": [[write(value) for value in row] for row in self.values.tolist()],
            "row_labels": list(self.row_labels),
            "col_labels": list(self.col_labels),
            "token_ids": self.token_ids,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tensor:
        _require_keys(data, ("name", "values", "row_labels", "col_labels"), "tensor")
        rows = data["values"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise ValueError("tensor values must be a list of rows")
        values = [[_number_from_json(value) for value in row] for row in rows]
        widths = {len(row) for row in values}
        if len(widths) > 1:
            raise ValueError(f"tensor {data['name']!r} has rows of different lengths")
        shape = (len(values), widths.pop() if widths else 0)
        token_ids = data.get("token_ids", False)  # absent from the records written before it
        if not isinstance(token_ids, bool):
            raise ValueError(f"tensor token_ids must be true or false, got {token_ids!r}")
        return cls(
            name=str(data["name"]),
            values=np.array(values, dtype=np.float64).reshape(shape),
            row_labels=tuple(data["row_labels"]),
            col_labels=tuple(data["col_labels"]),
            token_ids=token_ids,
        )


@dataclass(frozen=True)
class Step:
    """One step of a worked solution: a title, an explanation (Markdown) and its tensors."""

    title: dict[str, str]
    text: dict[str, str]
    tensors: tuple[Tensor, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", _localized(self.title, "step title"))
        object.__setattr__(self, "text", _localized(self.text, "step text"))
        object.__setattr__(self, "tensors", _tensors(self.tensors, "step"))

    def to_json(self) -> dict[str, Any]:
        return {
            "title": dict(self.title),
            "text": dict(self.text),
            "tensors": [tensor.to_json() for tensor in self.tensors],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Step:
        _require_keys(data, ("title", "text", "tensors"), "step")
        return cls(
            title=data["title"],
            text=data["text"],
            tensors=tuple(Tensor.from_json(tensor) for tensor in data["tensors"]),
        )


@dataclass(frozen=True)
class Variant:
    """One generated exercise: everything needed to show, grade and explain it.

    ``answer`` is the expected answer as a 2-D tensor; its shape is the input grid a UI
    draws and what ``quizsvc.grading.grade_numeric`` compares against.  ``params`` holds
    every setting of the kind as JSON values: defaults included, and the choices the seed
    made filled in (a ``position`` left open, ``which: random``), so that
    ``generate_variant(kind, seed, variant.params)`` reproduces the variant.
    """

    kind: str
    seed: int
    params: dict[str, Any]
    prompt: dict[str, str]
    given: tuple[Tensor, ...]
    answer: Tensor
    tolerance: Tolerance
    all_or_nothing: bool
    solution: tuple[Step, ...]
    heatmap: Tensor | None
    skill: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(self, "prompt", _localized(self.prompt, "prompt"))
        object.__setattr__(self, "given", _tensors(self.given, "given"))
        object.__setattr__(self, "solution", tuple(self.solution))
        if not isinstance(self.answer, Tensor):
            raise TypeError(f"answer must be a Tensor, got {type(self.answer).__name__}")
        if not isinstance(self.tolerance, Tolerance):
            raise TypeError(f"tolerance must be a Tolerance, got {self.tolerance!r}")
        if self.heatmap is not None and not isinstance(self.heatmap, Tensor):
            raise TypeError(f"heatmap must be a Tensor or None, got {self.heatmap!r}")
        if not all(isinstance(step, Step) for step in self.solution):
            raise TypeError("solution must hold Step objects")

    def with_scoring(self, tolerance: Tolerance | None, all_or_nothing: bool) -> Variant:
        """The variant graded as a question asks: its own tolerance if it sets one, and
        all-or-nothing if either the question or the kind says so."""
        return dataclasses.replace(
            self,
            tolerance=self.tolerance if tolerance is None else tolerance,
            all_or_nothing=self.all_or_nothing or all_or_nothing,
        )

    def to_json(self) -> dict[str, Any]:
        """A dict that ``json.dumps(..., allow_nan=False)`` accepts: ±inf become "inf"/"-inf"."""
        return {
            "format": JSON_FORMAT,
            "kind": self.kind,
            "seed": self.seed,
            "params": dict(self.params),
            "prompt": dict(self.prompt),
            "given": [tensor.to_json() for tensor in self.given],
            "answer": self.answer.to_json(),
            "tolerance": {"atol": self.tolerance.atol, "rtol": self.tolerance.rtol},
            "all_or_nothing": self.all_or_nothing,
            "solution": [step.to_json() for step in self.solution],
            "heatmap": None if self.heatmap is None else self.heatmap.to_json(),
            "skill": self.skill,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Variant:
        """Rebuild a stored variant exactly; ValueError if the record is not one."""
        keys = (
            "format",
            "kind",
            "seed",
            "params",
            "prompt",
            "given",
            "answer",
            "tolerance",
            "all_or_nothing",
            "solution",
            "heatmap",
            "skill",
        )
        _require_keys(data, keys, "variant")
        if data["format"] != JSON_FORMAT:
            raise ValueError(f"unknown variant format {data['format']!r}; expected {JSON_FORMAT}")
        tolerance = data["tolerance"]
        _require_keys(tolerance, ("atol", "rtol"), "tolerance")
        heatmap = data["heatmap"]
        return cls(
            kind=str(data["kind"]),
            seed=int(data["seed"]),
            params=dict(data["params"]),
            prompt=data["prompt"],
            given=tuple(Tensor.from_json(tensor) for tensor in data["given"]),
            answer=Tensor.from_json(data["answer"]),
            tolerance=Tolerance(atol=tolerance["atol"], rtol=tolerance["rtol"]),
            all_or_nothing=bool(data["all_or_nothing"]),
            solution=tuple(Step.from_json(step) for step in data["solution"]),
            heatmap=None if heatmap is None else Tensor.from_json(heatmap),
            skill=str(data["skill"]),
        )


def with_each_tensor(item: _WithTensors, change: Callable[[Tensor], Tensor]) -> _WithTensors:
    """``item`` (a Variant, or a drill's draft of one) with ``change`` applied to every tensor
    it holds: the given ones, the answer, each solution step's and the heatmap."""
    return dataclasses.replace(
        item,
        given=tuple(change(t) for t in item.given),
        answer=change(item.answer),
        solution=tuple(
            dataclasses.replace(step, tensors=tuple(change(t) for t in step.tensors))
            for step in item.solution
        ),
        heatmap=None if item.heatmap is None else change(item.heatmap),
    )


def _localized(text: Mapping[str, str], what: str) -> dict[str, str]:
    if not isinstance(text, Mapping) or set(text) != set(LANGUAGES):
        raise ValueError(f"{what} must have exactly the languages {LANGUAGES}, got {text!r}")
    return {lang: str(text[lang]) for lang in LANGUAGES}


def _tensors(tensors: Sequence[Tensor], what: str) -> tuple[Tensor, ...]:
    tensors = tuple(tensors)
    if not all(isinstance(tensor, Tensor) for tensor in tensors):
        raise TypeError(f"{what} tensors must be Tensor objects")
    return tensors


def _require_keys(data: object, keys: Sequence[str], what: str) -> None:
    if not isinstance(data, Mapping):
        raise ValueError(f"{what} must be a mapping, got {type(data).__name__}")
    missing = [key for key in keys if key not in data]
    if missing:
        raise ValueError(f"{what} is missing {', '.join(missing)}")


def number_to_json(value: float) -> float | str:
    """A number as JSON holds it: ±inf as the strings "inf" and "-inf"."""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def _number_from_json(value: object) -> float:
    if value in ("inf", "-inf"):
        return math.inf if value == "inf" else -math.inf
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number or 'inf'/'-inf', got {value!r}")
    return float(value)
