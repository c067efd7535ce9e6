"""What running several workers, on several hosts behind a reverse proxy, relies on: one
development key for every worker, HSTS, the proxies' headers believed only when configured,
the load balancer's health check."""

from __future__ import annotations

import multiprocessing
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from quizsvc.web import development_secret_key


def _development_key_in(directory: str) -> str:
    return development_secret_key(Path(directory))


def test_the_development_key_is_one_for_racing_processes_and_random_per_directory(tmp_path):
    # eight processes start at once, as gunicorn's workers do: the first to link its key
    # into place wins and every one reads that key
    with ProcessPoolExecutor(8, mp_context=multiprocessing.get_context("fork")) as pool:
        keys = set(pool.map(_development_key_in, [str(tmp_path / "a")] * 8))
    [key] = keys
    assert re.fullmatch(r"[0-9a-f]{64}", key)
    assert sorted(path.name for path in (tmp_path / "a").iterdir()) == ["development_secret_key"]
    assert (tmp_path / "a" / "development_secret_key").stat().st_mode & 0o777 == 0o600
    assert development_secret_key(tmp_path / "a") == key  # kept: a restart signs alike
    assert development_secret_key(tmp_path / "b") != key  # random, never fixed
