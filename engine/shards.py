"""The forward pass, faster: the batch split over the CPU cores, each core running
`engine.forward` whole for its own sequences. Opt in with `parallel_forward`; the model's
modules know nothing of it.

Why: NumPy runs softmax, LayerNorm, biases and residuals on one core, and a BLAS product split
over two threads leaves half of its output in the other core's cache, where that one core then
has to fetch it. Giving each core its own shard of the batch (the whole pass on one thread,
BLAS single-threaded meanwhile) keeps each core's rows in its own cache and runs the elementwise
work on every core at once; the products lose nothing, each core multiplying its own rows.
docs/performance.md has the measurements (`make bench`).

The BLAS thread count is process-wide (set through threadpoolctl), so one sharded run holds it
at a time; a second caller meanwhile runs unsharded on its own thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np
from threadpoolctl import ThreadpoolController

from engine.config import TransformerConfig
from engine.model import as_batches, forward
from engine.params import TransformerParams

Array = np.ndarray

# A shard needs at least this much work (its positions, source + target, times d_model) to
# pay for its thread hand-off. Measured with 2 shards against the whole batch: 32 positions
# each at d_model 512 ran 2.2x faster, 16 at 512 even, 32 at d_model 256 1.4x slower.
MIN_WORK_PER_SHARD = 16 * 1024

_run_lock = threading.Lock()
_setup_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_blas: ThreadpoolController | None = None
_pool_pid: int | None = None


def parallel_forward(
    src_ids: Array,
    tgt_ids: Array,
    params: TransformerParams,
    config: TransformerConfig,
    workers: int | None = None,
) -> Array:
    """`forward`'s logits (b, t, tgt_vocab), its batch split into shards run at once.

    `workers` sets the number of shards (1: the batch whole, on the calling thread); by default
    one per core, as long as each shard keeps MIN_WORK_PER_SHARD.
    """
    src_ids, tgt_ids = as_batches(src_ids, tgt_ids)  # (b, m), (b, t)
    positions = src_ids.shape[1] + tgt_ids.shape[1]
    count = shard_count(src_ids.shape[0], positions, config.d_model, workers)
    shards = map_shards(
        lambda src, tgt: forward(src, tgt, params, config), (src_ids, tgt_ids), count
    )
    return shards[0] if len(shards) == 1 else np.concatenate(shards)


def cpu_cores() -> int:
    """The cores this process may run on (its affinity, where the platform tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def shard_count(batch: int, positions_per_sequence: int, d_model: int, workers: int | None) -> int:
    """How many shards to split a batch into: `workers` if given (at most one per sequence),
    else one per core as long as each shard keeps MIN_WORK_PER_SHARD."""
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        return max(1, min(workers, batch))
    by_size = batch * positions_per_sequence * d_model // MIN_WORK_PER_SHARD
    return max(1, min(cpu_cores(), batch, by_size))


def map_shards(fn: Callable[..., Array], batched: Sequence[Array], count: int) -> list[Array]:
    """fn applied to `count` consecutive slices of the batch (axis 0 of every array in
    `batched`), in order: all but the first on pool threads, the first on the caller's."""
    if count <= 1 or not _run_lock.acquire(blocking=False):
        return [fn(*batched)]
    try:
        shards = list(zip(*(np.array_split(a, count) for a in batched), strict=True))
        pool, blas = _resources()
        with blas.limit(limits=1, user_api="blas"):
            others = [pool.submit(fn, *shard) for shard in shards[1:]]
            try:
                first = fn(*shards[0])
            finally:
                wait(others)  # none may still run once the BLAS threads are given back
            return [first, *(future.result() for future in others)]
    finally:
        _run_lock.release()


def _resources() -> tuple[ThreadPoolExecutor, ThreadpoolController]:
    global _pool, _blas, _pool_pid
    with _setup_lock:
        # a forked child (a preloading server's worker) inherits the pool but not its threads
        if _pool is None or _pool_pid != os.getpid():
            _pool = ThreadPoolExecutor(max(1, cpu_cores() - 1), thread_name_prefix="engine-shard")
            _blas = ThreadpoolController()
            _pool_pid = os.getpid()
        return _pool, _blas
