"""A trained model as one `.npz` file: its weights, config, vocabularies, the hash of the corpus
it was trained on and its training log; and the loader that checks all of them.

`save_trained(path, result, corpus)` writes what `engine.training.train` returned.
`load_trained(path, corpus_hash=None)` reads it back as a `TrainedModel`, or raises
`TrainedModelError` (and nothing else) when the file is not a model the engine can run:

- not readable, or not an `.npz` (zip) archive;
- an array missing, or one it does not know;
- a config that is not valid JSON of a `TransformerConfig`, or that disagrees with the
  vocabularies' sizes;
- a weight whose shape is not the one the config gives it, or that is not finite;
- with `corpus_hash` given (`engine.corpus.corpus_hash` of the shipped corpus and vocabulary),
  a different recorded hash: the weights were trained on other data.

The caller decides what a refusal means (a service keeps the weights it has). Arrays, all
loaded without pickle:

    config          () str      the TransformerConfig's fields as JSON
    corpus_sha256   () str
    source_vocab    (V_src,) str, target_vocab (V_tgt,) str
    losses          (steps,) float64: the training loss of each step
    seed            () int64
    param/<name>    each weight, named by its path in TransformerParams
                    (param/encoder_layers.0.self_attn.w_q, param/w_out, ...)
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.config import TransformerConfig
from engine.params import TransformerParams, init_params

Array = np.ndarray

PARAM = "param/"
_META = ("config", "corpus_sha256", "source_vocab", "target_vocab", "losses", "seed")


class TrainedModelError(ValueError):
    """A trained-model file that is unreadable, incomplete, inconsistent, or trained on another
    corpus; the message names the file and what is wrong."""


@dataclass(frozen=True)
class TrainedModel:
    params: TransformerParams
    config: TransformerConfig
    source_vocab: tuple[str, ...]  # id -> token: <pad>, then the zh words
    target_vocab: tuple[str, ...]  # <pad>, <s>, <eos>, then the en words
    corpus_sha256: str
    losses: Array  # (steps,) the training log
    seed: int


def named_weights(params: TransformerParams, prefix: str = "") -> dict[str, Array]:
    """Every array of `params` by its dotted path (`encoder_layers.0.ffn.w_1`), None skipped."""
    named: dict[str, Array] = {}

    def visit(node: object, path: str) -> None:
        if node is None:
            return
        if isinstance(node, np.ndarray):
            named[path] = node
        elif dataclasses.is_dataclass(node):
            for f in dataclasses.fields(node):
                visit(getattr(node, f.name), f"{path}.{f.name}" if path else f.name)
        elif isinstance(node, list | tuple):
            for i, child in enumerate(node):
                visit(child, f"{path}.{i}")
        else:
            raise TypeError(f"not a parameter tree: {type(node).__name__} at {path}")

    visit(params, prefix)
    return named


def save_trained(
    path: str | Path,
    params: TransformerParams,
    config: TransformerConfig,
    source_vocab: tuple[str, ...],
    target_vocab: tuple[str, ...],
    corpus_sha256: str,
    losses: Array,
    seed: int,
) -> None:
    """Write the model to exactly `path` (no `.npz` appended), replacing a file there only
    once the new one is complete: a reader never sees half a model."""
    path = Path(path)
    arrays = {PARAM + name: w for name, w in named_weights(params).items()}
    with tempfile.NamedTemporaryFile(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
    ) as file:
        try:
            _write(file, config, source_vocab, target_vocab, corpus_sha256, losses, seed, arrays)
        except BaseException:
            file.close()
            os.unlink(file.name)
            raise
    os.chmod(file.name, 0o644)  # as a file written by open(), not the temporary file's 0o600
    os.replace(file.name, path)


def _write(file, config, source_vocab, target_vocab, corpus_sha256, losses, seed, arrays) -> None:
    np.savez_compressed(
        file,
        config=np.array(json.dumps(dataclasses.asdict(config), sort_keys=True)),
        corpus_sha256=np.array(corpus_sha256),
        source_vocab=np.array(source_vocab),
        target_vocab=np.array(target_vocab),
        losses=np.asarray(losses, dtype=np.float64),
        seed=np.array(seed, dtype=np.int64),
        **arrays,
    )


def load_trained(path: str | Path, corpus_hash: str | None = None) -> TrainedModel:
    """The model saved at `path`; `TrainedModelError` if it is not one (see the module's list).
    Give `corpus_hash` to also refuse a model trained on a corpus other than that one."""
    path = Path(path)
    arrays = _read_arrays(path)

    def fail(message: str) -> TrainedModelError:
        return TrainedModelError(f"{path}: {message}")

    missing = [name for name in _META if name not in arrays]
    if missing:
        raise fail(f"missing {', '.join(missing)}")
    config = _config(arrays["config"], fail)
    source_vocab, target_vocab = (_strings(arrays[n], n, fail) for n in _META[2:4])
    for name, vocab, size in (
        ("source_vocab", source_vocab, config.src_vocab_size),
        ("target_vocab", target_vocab, config.tgt_vocab_size),
    ):
        if len(vocab) != size:
            raise fail(f"{name} has {len(vocab)} tokens, the config {size}")
    recorded = str(_scalar(arrays["corpus_sha256"], "corpus_sha256", fail))
    if corpus_hash is not None and recorded != corpus_hash:
        raise fail(
            f"trained on another corpus (sha256 {recorded[:12]}…, the corpus is "
            f"{corpus_hash[:12]}…): train it again"
        )
    losses = arrays["losses"]
    if losses.ndim != 1 or losses.dtype.kind != "f":
        raise fail(f"losses must be a list of floats, got {losses.dtype} {losses.shape}")
    seed = _scalar(arrays["seed"], "seed", fail)
    params = _params(arrays, config, fail)
    return TrainedModel(params, config, source_vocab, target_vocab, recorded, losses, int(seed))


def _read_arrays(path: Path) -> dict[str, Array]:
    try:
        archive = np.load(path, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise TrainedModelError(f"{path}: not an .npz archive")
        with archive:
            return {name: archive[name] for name in archive.files}
    except TrainedModelError:
        raise
    except FileNotFoundError:
        raise TrainedModelError(f"{path}: no such file") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        # a truncated or corrupt archive, an object array (pickle refused), a bad .npy header
        raise TrainedModelError(f"{path}: not a readable .npz archive ({exc})") from None


def _scalar(array: Array, name: str, fail) -> object:
    if array.shape != ():
        raise fail(f"{name} must be a single value, got shape {array.shape}")
    return array.item()


def _strings(array: Array, name: str, fail) -> tuple[str, ...]:
    if array.ndim != 1 or array.dtype.kind != "U":
        raise fail(f"{name} must be a list of strings, got {array.dtype} {array.shape}")
    return tuple(str(s) for s in array)


def _config(array: Array, fail) -> TransformerConfig:
    text = _scalar(array, "config", fail)
    try:
        fields = json.loads(text) if isinstance(text, str) else None
    except json.JSONDecodeError as exc:
        raise fail(f"config is not JSON: {exc}") from None
    if not isinstance(fields, dict):
        raise fail("config must be a JSON object of TransformerConfig's fields")
    try:
        return TransformerConfig(**fields)
    except (TypeError, ValueError) as exc:
        raise fail(f"config is not a valid TransformerConfig: {exc}") from None


def _params(arrays: dict[str, Array], config: TransformerConfig, fail) -> TransformerParams:
    """The config's parameter tree (shapes from `init_params`) filled with the file's weights."""
    params = init_params(config, np.random.default_rng(0))
    expected = named_weights(params)
    stored = {name[len(PARAM) :] for name in arrays if name.startswith(PARAM)}
    extra = sorted(stored - set(expected)) + sorted(
        n for n in arrays if not n.startswith(PARAM) and n not in _META
    )
    if extra:
        raise fail(f"arrays the config has no place for: {', '.join(extra)}")
    missing = sorted(set(expected) - stored)
    if missing:
        raise fail(f"missing weights {', '.join(missing)}")
    for name, target in expected.items():
        weight = arrays[PARAM + name]
        if weight.shape != target.shape:
            raise fail(f"{name} has shape {weight.shape}, the config gives {target.shape}")
        if weight.dtype.kind != "f" or not np.all(np.isfinite(weight)):
            raise fail(f"{name} must hold finite floats, got {weight.dtype}")
        target[...] = weight  # keeps init_params' dtype and memory layout
    return params
