"""The trained model's file: saved and loaded back unchanged, and every kind of corrupt or
mismatched file refused with one exception naming the file and what is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine.config import TransformerConfig
from engine.corpus import corpus_hash
from engine.optim import leaves
from engine.params import init_params
from engine.train import CORPUS_FILE, MODEL_DIR, MODEL_FILE, VOCAB_FILE
from engine.trained import TrainedModelError, load_trained, named_weights, save_trained

SHIPPED = MODEL_DIR / MODEL_FILE


def shipped_arrays() -> dict[str, np.ndarray]:
    with np.load(SHIPPED) as archive:
        return {name: archive[name] for name in archive.files}


def write(tmp_path: Path, arrays: dict[str, np.ndarray]) -> Path:
    path = tmp_path / "model.npz"
    np.savez(path, **arrays)
    return path


def test_the_shipped_model_loads_against_the_shipped_corpus():
    model = load_trained(SHIPPED, corpus_hash(MODEL_DIR / CORPUS_FILE, MODEL_DIR / VOCAB_FILE))
    assert model.config.d_model == 32 and model.config.n_heads == 4
    assert model.source_vocab[:4] == ("<pad>", "我", "爱", "你")
    assert model.target_vocab[:6] == ("<pad>", "<s>", "<eos>", "I", "love", "you")
    assert model.seed == 0 and model.losses.ndim == 1
    assert 2_000 < SHIPPED.stat().st_size < 400_000


def test_saving_and_loading_gives_the_same_model(tmp_path):
    config = TransformerConfig(
        5, 7, d_model=8, n_heads=2, d_ff=6, n_encoder_layers=2, n_decoder_layers=1, final_norm=True
    )
    params = init_params(config, np.random.default_rng(3))
    source, target = ("<pad>", "a", "b", "c", "d"), ("<pad>", "<s>", "<eos>", "x", "y", "z", "w")
    path = tmp_path / "m.npz"
    save_trained(path, params, config, source, target, "ab" * 32, np.array([2.0, 1.0]), 7)
    model = load_trained(path, corpus_hash="ab" * 32)
    assert model.config == config
    assert (model.source_vocab, model.target_vocab) == (source, target)
    assert model.corpus_sha256 == "ab" * 32 and model.seed == 7
    np.testing.assert_array_equal(model.losses, [2.0, 1.0])
    # the same arrays in the same places (final norms, biases included)
    assert list(named_weights(model.params)) == list(named_weights(params))
    for loaded, saved in zip(leaves(model.params), leaves(params), strict=True):
        np.testing.assert_array_equal(loaded, saved)
        assert loaded.dtype == np.float64


def test_saving_writes_exactly_the_path_given_and_replaces_it_whole(tmp_path):
    model = load_trained(SHIPPED)
    path = tmp_path / "trained"  # no .npz: numpy would append one to a name
    path.write_bytes(b"an older model")
    args = (model.config, model.source_vocab, model.target_vocab, "0" * 64, model.losses, 0)
    save_trained(path, model.params, *args)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trained"]
    assert load_trained(path).corpus_sha256 == "0" * 64
    # a failed write leaves the file as it was and no temporary file behind
    with pytest.raises(ValueError, match="could not convert"):
        save_trained(path, model.params, *args[:4], ["not a loss"], 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trained"]
    assert load_trained(path).corpus_sha256 == "0" * 64


def refused(path: Path, message: str, **kwargs) -> None:
    with pytest.raises(TrainedModelError) as error:
        load_trained(path, **kwargs)
    assert str(error.value).startswith(f"{path}: "), str(error.value)
    assert message in str(error.value), str(error.value)


def test_a_missing_file_is_refused(tmp_path):
    refused(tmp_path / "none.npz", "no such file")


@pytest.mark.parametrize(
    "content",
    [b"not a zip archive at all", b"", SHIPPED.read_bytes()[:5000], SHIPPED.read_bytes()[:-100]],
    ids=["garbage", "empty", "truncated-start", "truncated-end"],
)
def test_an_unreadable_archive_is_refused(tmp_path, content):
    path = tmp_path / "model.npz"
    path.write_bytes(content)
    refused(path, "not a readable .npz archive")


def test_a_plain_npy_file_is_refused(tmp_path):
    path = tmp_path / "model.npy"
    np.save(path, np.zeros(3))
    refused(path, "not an .npz archive")


def test_a_pickled_array_is_refused_without_being_unpickled(tmp_path):
    arrays = shipped_arrays()
    arrays["seed"] = np.array([{"x": 1}], dtype=object)
    refused(write(tmp_path, arrays), "not a readable .npz archive")


@pytest.mark.parametrize("name", ["config", "corpus_sha256", "losses", "target_vocab"])
def test_a_missing_record_is_refused(tmp_path, name):
    arrays = shipped_arrays()
    del arrays[name]
    refused(write(tmp_path, arrays), f"missing {name}")


def test_a_missing_weight_is_refused(tmp_path):
    arrays = shipped_arrays()
    del arrays["param/decoder_layers.0.cross_attn.w_k"]
    refused(write(tmp_path, arrays), "missing weights decoder_layers.0.cross_attn.w_k")


def test_a_weight_the_config_has_no_place_for_is_refused(tmp_path):
    arrays = shipped_arrays()
    arrays["param/decoder_layers.1.cross_attn.w_k"] = np.zeros((32, 32))
    refused(write(tmp_path, arrays), "no place for: decoder_layers.1.cross_attn.w_k")


def test_a_weight_of_the_wrong_shape_is_refused(tmp_path):
    arrays = shipped_arrays()
    arrays["param/encoder_layers.0.ffn.w_1"] = arrays["param/encoder_layers.0.ffn.w_1"][:, :60]
    refused(
        write(tmp_path, arrays),
        "encoder_layers.0.ffn.w_1 has shape (32, 60), the config gives (32, 64)",
    )


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_weight_that_is_not_finite_is_refused(tmp_path, bad):
    arrays = shipped_arrays()
    arrays["param/w_out"] = arrays["param/w_out"].copy()
    arrays["param/w_out"][3, 4] = bad
    refused(write(tmp_path, arrays), "w_out must hold finite floats")


def with_config(**changes) -> dict[str, np.ndarray]:
    arrays = shipped_arrays()
    fields = json.loads(str(arrays["config"]))
    fields.update(changes)
    arrays["config"] = np.array(json.dumps(fields))
    return arrays


def test_a_config_that_is_not_json_is_refused(tmp_path):
    arrays = shipped_arrays()
    arrays["config"] = np.array("{d_model: 32")
    refused(write(tmp_path, arrays), "config is not JSON")


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"n_heads": 5}, "d_model (32) must be divisible by n_heads (5)"),
        ({"heads": 4}, "unexpected keyword argument 'heads'"),
        ({"dtype": "float16"}, "dtype must be one of"),
    ],
)
def test_an_invalid_config_is_refused(tmp_path, changes, message):
    refused(write(tmp_path, with_config(**changes)), "config is not a valid TransformerConfig: ")
    refused(write(tmp_path, with_config(**changes)), message)


def test_a_config_the_weights_do_not_fit_is_refused(tmp_path):
    refused(write(tmp_path, with_config(d_ff=128)), "the config gives (32, 128)")
    refused(write(tmp_path, with_config(n_decoder_layers=2)), "missing weights decoder_layers.1")


def test_a_config_the_vocabularies_do_not_fit_is_refused(tmp_path):
    arrays = with_config(tgt_vocab_size=30)
    refused(write(tmp_path, arrays), "target_vocab has 36 tokens, the config 30")


def test_a_model_trained_on_another_corpus_is_refused(tmp_path):
    arrays = shipped_arrays()
    arrays["corpus_sha256"] = np.array("0" * 64)
    path = write(tmp_path, arrays)
    shipped = corpus_hash(MODEL_DIR / CORPUS_FILE, MODEL_DIR / VOCAB_FILE)
    refused(path, "trained on another corpus", corpus_hash=shipped)
    assert load_trained(path).corpus_sha256 == "0" * 64  # without a hash to match: loads
