"""No variant hands the learner its answer among the given tensors (the web API's secrecy test
draws random seeds and once drew ffn_row's seed 661, whose answer was b2 itself)."""

import pytest

from quizsvc.drills.registry import DRILL_KINDS, generate_variant


def answer_among_given(kind: str, seed: int) -> str | None:
    variant = generate_variant(kind, seed)
    answer = variant.answer.to_json()["values"]
    return next((g.name for g in variant.given if g.to_json()["values"] == answer), None)


@pytest.mark.slow  # hundreds of variants of each kind
@pytest.mark.parametrize("kind", sorted(DRILL_KINDS))
def test_no_variant_gives_its_answer_away(kind):
    assert [s for s in range(300) if answer_among_given(kind, s)] == []


def test_an_ffn_row_whose_second_layer_adds_nothing_is_redrawn():
    # seed 661 drew x W1 + b1 = [1e-17, -0.2, -0.2, -0.8]: no unit really active, FFN(x) = b2
    assert answer_among_given("ffn_row", 661) is None
    hidden = generate_variant("ffn_row", 661).solution[1].tensors[0].values
    assert (hidden > 1e-9).any()
