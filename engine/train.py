"""`python -m engine.train`: train the chapter's toy model on the shipped corpus and save it.

    python -m engine.train [--seed 0] [--steps 300] [--corpus DIR] [--out FILE]

DIR holds corpus.tsv and vocab.json (`engine.corpus`); the model is written to FILE
(`engine.trained`), by default DIR/model.npz, which is the model the project ships.
`quizsvc model train` runs the same. A bad corpus is reported as `error: file:line: ...` with
exit status 1.
"""

from __future__ import annotations

import argparse
import errno
import sys
import time
from pathlib import Path

from tqdm import tqdm

from engine.corpus import CorpusError, read_corpus
from engine.trained import save_trained
from engine.training import SEED, STEPS, TrainingResult, labels_per_step, train

# The repository's content/transformer-by-hand/model/ (an editable install, as the service's
# default content directory).
MODEL_DIR = Path(__file__).resolve().parents[1] / "content" / "transformer-by-hand" / "model"
CORPUS_FILE = "corpus.tsv"
VOCAB_FILE = "vocab.json"
MODEL_FILE = "model.npz"


def train_and_save(
    corpus_dir: str | Path = MODEL_DIR,
    out: str | Path | None = None,
    seed: int = SEED,
    steps: int = STEPS,
    progress: bool = True,
) -> TrainingResult:
    """Train on corpus_dir's corpus (`CorpusError` if it is bad) and save the model to `out`
    (default corpus_dir/model.npz), with a progress bar on stderr unless `progress` is False."""
    corpus_dir = Path(corpus_dir)
    out = Path(out) if out is not None else corpus_dir / MODEL_FILE
    corpus = read_corpus(corpus_dir / CORPUS_FILE, corpus_dir / VOCAB_FILE)
    if not out.parent.is_dir():  # before training, not after
        raise FileNotFoundError(errno.ENOENT, "no such folder", str(out.parent))
    with tqdm(total=steps, unit="step", disable=not progress, file=sys.stderr) as bar:
        start = time.perf_counter()
        tokens = labels_per_step(corpus)

        def on_step(step: int, loss: float) -> None:
            rate = tokens * step / max(time.perf_counter() - start, 1e-9)
            bar.set_postfix_str(f"loss {loss:.4f}, {rate:,.0f} tokens/s", refresh=False)
            bar.update(1)

        result = train(corpus, steps=steps, seed=seed, on_step=on_step)
    save_trained(
        out,
        result.params,
        result.config,
        corpus.vocab.source,
        corpus.vocab.target,
        corpus.sha256,
        result.losses,
        seed,
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine.train", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"initial weights' seed ({SEED})")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"training steps ({STEPS})")
    parser.add_argument(
        "--corpus", type=Path, default=MODEL_DIR, help="folder of corpus.tsv and vocab.json"
    )
    parser.add_argument("--out", type=Path, default=None, help="the .npz to write")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    out = args.out if args.out is not None else args.corpus / MODEL_FILE
    try:
        result = train_and_save(args.corpus, out, args.seed, args.steps, not args.quiet)
    except CorpusError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: {out}: cannot write: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(summary(result, out))
    return 0


def summary(result: TrainingResult, out: str | Path) -> str:
    return (
        f"trained {len(result.losses)} steps in {result.seconds:.1f} s, "
        f"final loss {result.losses[-1]:.6f}: {out}"
    )


if __name__ == "__main__":
    sys.exit(main())
