"""Tensors of token ids say so, and their JSON holds integers: a client reads an id as the
whole number it is, never as 4.0."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from quizsvc.drills import Tensor, Variant, generate_variant


def tensors_of(variant: Variant) -> list[Tensor]:
    return [
        *variant.given,
        variant.answer,
        *(tensor for step in variant.solution for tensor in step.tensors),
    ]


def id_tensors(variant: Variant) -> dict[str, Tensor]:
    return {tensor.name: tensor for tensor in tensors_of(variant) if tensor.token_ids}


@pytest.mark.parametrize(
    ("kind", "names"),
    [
        ("embedding_positional", {"ids"}),
        ("teacher_forcing_loss", {"target", "teacher forcing"}),
        ("greedy_next_token", {"next token id"}),
        ("score_row", set()),
        ("multi_head", set()),
    ],
)
def test_the_tensors_of_token_ids_are_marked(kind, names) -> None:
    for seed in range(5):
        assert set(id_tensors(generate_variant(kind, seed))) == names


@pytest.mark.parametrize("kind", ["embedding_positional", "teacher_forcing_loss"])
def test_token_ids_are_json_integers_and_other_numbers_floats(kind) -> None:
    variant = generate_variant(kind, 3)
    record = json.loads(json.dumps(variant.to_json(), allow_nan=False))
    given = {tensor["name"]: tensor for tensor in record["given"]}
    for name, tensor in given.items():
        cells = [value for row in tensor["values"] for value in row]
        if tensor["token_ids"]:
            assert all(type(value) is int for value in cells), name
        else:
            assert all(type(value) is float for value in cells), name
        [original] = [t for t in variant.given if t.name == name]
        assert cells == original.values.ravel().tolist(), name  # the same numbers
    assert any(tensor["token_ids"] for tensor in given.values())


def test_a_generated_next_token_is_an_integer_in_json() -> None:
    variant = generate_variant("greedy_next_token", 8)
    logits = variant.given[0].values[0]
    record = json.loads(json.dumps(variant.to_json(), allow_nan=False))
    [[chosen]] = record["answer"]["values"]
    assert type(chosen) is int and chosen == int(np.argmax(logits))
    [last_step_answer] = [
        tensor for tensor in record["solution"][-1]["tensors"] if tensor["token_ids"]
    ]
    assert last_step_answer["values"] == [[chosen]]


def test_teacher_forcing_ids_are_the_target_and_the_decoder_input_shifted_by_one() -> None:
    variant = generate_variant("teacher_forcing_loss", 2, {"target_length": 3})
    record = variant.to_json()
    [target] = [t["values"] for t in record["given"] if t["name"] == "target"]
    [sequences] = [
        t["values"]
        for s in record["solution"]
        for t in s["tensors"]
        if t["name"] == "teacher forcing"
    ]
    bos, eos = 1, 2
    assert sequences == [[bos, *target[0]], [*target[0], eos]]
    assert all(type(value) is int for row in sequences for value in row)


def test_ids_survive_the_record_and_a_record_without_the_mark_reads_as_numbers() -> None:
    variant = generate_variant("embedding_positional", 4)
    record = json.loads(json.dumps(variant.to_json()))
    assert Variant.from_json(record) == variant
    # a record written before tensors were marked: the same numbers, as floats
    older = copy.deepcopy(record)
    for tensor in older["given"]:
        del tensor["token_ids"]
    rebuilt = Variant.from_json(older)
    assert not any(tensor.token_ids for tensor in rebuilt.given)
    assert np.array_equal(rebuilt.given[1].values, variant.given[1].values)
    assert rebuilt.given[1] != variant.given[1]  # marked and unmarked tensors differ


def test_a_record_s_mark_must_be_a_boolean() -> None:
    record = generate_variant("embedding_positional", 4).to_json()
    record["given"][1]["token_ids"] = "yes"
    with pytest.raises(ValueError, match="token_ids must be true or false"):
        Variant.from_json(record)


@pytest.mark.parametrize("value", [1.5, -1.0, np.inf])
def test_a_tensor_of_token_ids_holds_only_whole_numbers_from_0(value) -> None:
    with pytest.raises(ValueError, match="no id"):
        Tensor("ids", np.array([[3.0, value]]), ("ids",), ("pos 0", "pos 1"), token_ids=True)
    assert not Tensor("v", np.array([[3.0, value]]), ("v",), ("a", "b")).token_ids


def test_marked_and_unmarked_tensors_of_the_same_ids_hash_apart() -> None:
    values = np.array([[3.0, 4.0]])
    marked = Tensor("ids", values, ("ids",), ("a", "b"), token_ids=True)
    plain = Tensor("ids", values, ("ids",), ("a", "b"))
    assert marked != plain and hash(marked) != hash(plain)
    assert marked.to_json()["values"] == [[3, 4]] and plain.to_json()["values"] == [[3.0, 4.0]]
