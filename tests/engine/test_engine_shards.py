"""The forward pass split over the batch (`parallel_forward`): same logits as the naive
reference and the plain forward, on several threads with single-threaded BLAS, and errors as
if it ran whole."""

import os
import signal
import threading

import naive_transformer as naive
import numpy as np
import pytest
from threadpoolctl import threadpool_info

from engine import forward, init_params
from engine import shards as shards_module
from engine.shards import MIN_WORK_PER_SHARD, map_shards, parallel_forward, shard_count

# five sequences, padded differently, so that shards hold padding or none
SRC = np.array(
    [[3, 4, 5, 6, 7], [8, 9, 10, 0, 0], [4, 4, 4, 4, 4], [5, 6, 0, 0, 0], [9, 8, 7, 6, 5]]
)
TGT = np.array([[1, 3, 4, 5], [1, 6, 0, 0], [1, 2, 3, 0], [1, 7, 7, 7], [1, 8, 0, 0]])


def blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


@pytest.mark.parametrize("workers", [2, 3, 5, 9])
def test_sharded_forward_matches_the_naive_reference(small_config, workers):
    params = init_params(small_config, np.random.default_rng(7))
    logits = parallel_forward(SRC, TGT, params, small_config, workers=workers)
    assert logits.shape == (5, 4, small_config.tgt_vocab_size)
    for b in range(5):
        ref = naive.forward(SRC[b].tolist(), TGT[b].tolist(), params, small_config)
        np.testing.assert_allclose(logits[b], ref, rtol=1e-10, atol=1e-11)


def test_shards_run_on_separate_threads_with_single_threaded_blas():
    before = blas_threads()
    seen = []

    def record(rows):
        seen.append((threading.get_ident(), blas_threads(), rows.tolist()))
        return rows * 10

    out = map_shards(record, [np.arange(5)], 2)
    assert [o.tolist() for o in out] == [[0, 10, 20], [30, 40]]  # in order, first shard larger
    assert len({ident for ident, _, _ in seen}) == 2
    assert all(threads == [1] * len(before) for _, threads, _ in seen)
    assert sorted(rows for _, _, rows in seen) == [[0, 1, 2], [3, 4]]
    assert blas_threads() == before  # given back


def test_a_second_caller_runs_whole_while_a_sharded_run_holds_the_blas_setting():
    started, release = threading.Event(), threading.Event()
    calls = []

    def slow(rows):
        calls.append(("first", len(rows)))
        started.set()
        release.wait(5)
        return rows

    runner = threading.Thread(target=map_shards, args=(slow, [np.arange(4)], 2))
    runner.start()
    started.wait(5)
    try:
        out = map_shards(lambda rows: rows + 1, [np.arange(4)], 2)
    finally:
        release.set()
        runner.join(5)
    assert [o.tolist() for o in out] == [[1, 2, 3, 4]]  # one call, the whole batch


def test_concurrent_sharded_forwards_are_both_right(small_config):
    params = init_params(small_config, np.random.default_rng(8))
    expected = forward(SRC, TGT, params, small_config)
    results = [None, None]

    def run(i):
        results[i] = parallel_forward(SRC, TGT, params, small_config, workers=2)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for got in results:
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-13)


def test_an_error_in_a_later_shard_is_raised_as_by_the_whole_pass(small_config):
    params = init_params(small_config, np.random.default_rng(9))
    threads_before = blas_threads()
    bad = SRC.copy()
    bad[4, 1] = small_config.src_vocab_size  # only the last shard holds it
    with pytest.raises(ValueError, match=r"token id 11 is outside the vocabulary \[0, 11\)"):
        forward(bad, TGT, params, small_config)
    with pytest.raises(ValueError, match=r"token id 11 is outside the vocabulary \[0, 11\)"):
        parallel_forward(bad, TGT, params, small_config, workers=3)
    assert blas_threads() == threads_before
    np.testing.assert_allclose(  # the pool still serves
        parallel_forward(SRC, TGT, params, small_config, workers=3),
        forward(SRC, TGT, params, small_config),
        rtol=1e-12,
    )


@pytest.mark.parametrize("workers", [0, -1, True, 1.5, "2"])
def test_workers_must_be_a_positive_integer(small_config, small_params, workers):
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        parallel_forward(SRC, TGT, small_params, small_config, workers=workers)


@pytest.mark.parametrize("run", [forward, parallel_forward])
def test_source_and_target_batches_must_match(small_config, small_params, run):
    with pytest.raises(ValueError, match="source and target batches differ: 5 and 2"):
        run(SRC, TGT[:2], small_params, small_config)


def test_the_automatic_count_is_one_shard_per_core_for_large_batches(monkeypatch):
    monkeypatch.setattr(shards_module, "cpu_cores", lambda: 2)
    assert MIN_WORK_PER_SHARD == 16 * 1024
    assert shard_count(batch=8, positions_per_sequence=128, d_model=512, workers=None) == 2
    assert shard_count(batch=1, positions_per_sequence=4096, d_model=512, workers=None) == 1
    # two shards of 32 positions at d_model 512 have just enough work each; at 256, too little
    assert shard_count(batch=2, positions_per_sequence=32, d_model=512, workers=None) == 2
    assert shard_count(batch=2, positions_per_sequence=32, d_model=256, workers=None) == 1
    assert shard_count(batch=2, positions_per_sequence=10, d_model=8, workers=None) == 1
    monkeypatch.setattr(shards_module, "cpu_cores", lambda: 1)
    assert shard_count(batch=8, positions_per_sequence=128, d_model=512, workers=None) == 1
    assert shard_count(batch=8, positions_per_sequence=1, d_model=8, workers=4) == 4  # as asked
    assert shard_count(batch=3, positions_per_sequence=1, d_model=8, workers=4) == 3  # per sequence


def test_one_worker_runs_the_plain_forward_once_on_the_calling_thread(
    monkeypatch, small_config, small_params
):
    calls = []

    def plain_forward(src_ids, *rest):
        calls.append((threading.get_ident(), src_ids.shape[0]))
        return forward(src_ids, *rest)

    monkeypatch.setattr(shards_module, "forward", plain_forward)
    logits = parallel_forward(SRC, TGT, small_params, small_config, workers=1)
    assert calls == [(threading.get_ident(), 5)]
    np.testing.assert_array_equal(logits, forward(SRC, TGT, small_params, small_config))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_gets_its_own_pool(small_config, small_params):
    parallel_forward(SRC, TGT, small_params, small_config, workers=2)  # the parent's pool exists
    expected = forward(SRC, TGT, small_params, small_config)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its inherited pool has no threads; a split pass must still finish
        signal.alarm(30)  # a hang ends the child, and the parent reads no "ok"
        try:
            got = parallel_forward(SRC, TGT, small_params, small_config, workers=2)
            os.write(write, b"ok" if np.allclose(got, expected, rtol=1e-12) else b"wrong")
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        assert pipe.read() == b"ok"
    os.waitpid(pid, 0)


def test_the_pool_is_made_once_per_process_and_reused(small_config, small_params):
    src = np.tile(np.arange(3, 9), (4, 1))
    parallel_forward(src, src, small_params, small_config, workers=2)
    pool = shards_module._pool
    parallel_forward(src, src, small_params, small_config, workers=2)
    assert pool is not None and shards_module._pool is pool


def test_cores_are_the_ones_this_process_may_run_on(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0} if pid == 0 else {0, 1, 2})
    assert shards_module.cpu_cores() == 1
    monkeypatch.delattr(os, "sched_getaffinity")
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert shards_module.cpu_cores() == 3
    monkeypatch.setattr(os, "cpu_count", lambda: None)  # the platform cannot tell
    assert shards_module.cpu_cores() == 1


def test_one_worker_means_one_shard():
    assert shard_count(4, 10_000, 512, workers=1) == 1
