"""The app served by gunicorn with several worker processes, as `make run` serves it, for the
tests of state the workers share; and a small HTTP client for it (the standard library's, a
cookie jar per client, the CSRF token carried like a browser's forms)."""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

GUNICORN = Path(sys.executable).with_name("gunicorn")
# the settings `make run` serves with (gunicorn reads this file from the working directory)
GUNICORN_CONFIG = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"
# the access log: the worker's pid, the request's path and query, the status
ACCESS_FORMAT = "%(p)s %(U)s?%(q)s %(s)s"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Served:
    base: str
    access_log: Path
    error_log: Path
    process: subprocess.Popen

    def worker_pids(self) -> set[int]:
        text = self.error_log.read_text(encoding="utf-8", errors="replace")
        return {int(pid) for pid in re.findall(r"Booting worker with pid: (\d+)", text)}

    def served_by(self, expecting: Collection[str] = (), timeout: float = 10) -> dict[str, int]:
        """Each logged request's path and query -> the pid of the worker that served it;
        once the log has every target `expecting` names (a worker logs a request after it
        sent the response, so a client can have its answer before the line is written)."""
        deadline = time.monotonic() + timeout
        while True:
            served = {}
            for line in self.access_log.read_text(encoding="utf-8").splitlines():
                pid, target, _status = line.split(" ")
                served[target] = int(pid.strip("<>"))  # gunicorn writes it as <pid>
            if set(expecting) <= served.keys() or time.monotonic() > deadline:
                return served
            time.sleep(0.05)


@contextmanager
def serve(
    tmp_path: Path,
    database_url: str,
    content_dir: Path,
    *,
    workers: int = 4,
    threads: int = 2,
    secret_key: str | None = "multi-worker test secret",
) -> Iterator[Served]:
    """gunicorn serving create_app() on a free port of 127.0.0.1 until the block ends, once
    every worker answers; with `secret_key=None`, in development without a key."""
    port = free_port()
    logs = tmp_path / f"gunicorn-{port}"
    logs.mkdir()
    access_log, error_log = logs / "access.log", logs / "error.log"
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("QUIZSVC_") and name != "DATABASE_URL"
    }
    environment |= {
        "QUIZSVC_DATABASE_URL": database_url,
        "QUIZSVC_CONTENT_DIR": str(content_dir),
    }
    environment |= (
        {"QUIZSVC_SECRET_KEY": secret_key} if secret_key else {"QUIZSVC_DEVELOPMENT": "true"}
    )
    process = subprocess.Popen(
        [
            str(GUNICORN),
            *("--config", str(GUNICORN_CONFIG)),
            *("--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads)),
            *("--access-logfile", str(access_log), "--access-logformat", ACCESS_FORMAT),
            *("--error-logfile", str(error_log)),
            "quizsvc.web:create_app()",
        ],
        env=environment,
        cwd=tmp_path,
    )
    served = Served(f"http://127.0.0.1:{port}", access_log, error_log, process)
    try:
        _wait_for_workers(served, workers)
        yield served
    finally:
        served.process.send_signal(signal.SIGTERM)
        try:
            served.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            served.process.kill()
            served.process.wait()


def _wait_for_workers(served: Served, workers: int, timeout: float = 90) -> None:
    """Until every worker has answered a request (gunicorn's log names the pid of each)."""
    deadline = time.monotonic() + timeout
    probe = 0
    while time.monotonic() < deadline:
        if served.process.poll() is not None:
            raise RuntimeError(f"gunicorn exited: {served.error_log.read_text()}")
        batch = [f"/ping-{probe + i}" for i in range(2 * workers)]
        probe += len(batch)
        in_parallel([lambda path=path: status_of(served.base + path) for path in batch])
        if served.access_log.exists() and len(set(served.served_by().values())) >= workers:
            return
        time.sleep(0.2)
    raise RuntimeError(f"not every worker answered: {served.error_log.read_text()}")


def in_parallel(calls: list) -> list:
    """Run the calls at once, each on a thread of its own; their results, in order."""
    results: list = [None] * len(calls)
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(calls))

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = calls[index]()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    if errors:
        raise errors[0]
    return results


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:  # not listening yet
        return 0


@dataclass
class Reply:
    status: int
    text: str
    headers: dict[str, str]


class Client:
    """A browser of its own: a cookie jar, the CSRF token of the last page, no redirects."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.token = ""

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect()
        )

    def request(
        self, path: str, data: dict | None = None, headers: dict[str, str] | None = None
    ) -> Reply:
        body = None
        if data is not None:
            body = urllib.parse.urlencode({"csrf_token": self.token, **data}).encode()
        request = urllib.request.Request(self.base + path, data=body, headers=headers or {})
        try:
            with self.opener.open(request, timeout=60) as response:
                reply = Reply(response.status, response.read().decode(), dict(response.headers))
        except urllib.error.HTTPError as error:
            reply = Reply(error.code, error.read().decode(), dict(error.headers))
        if match := re.search(r'name="csrf_token" value="([^"]+)"', reply.text):
            self.token = match.group(1)
        return reply

    def login(self, name: str, password: str) -> Reply:
        self.request("/login")
        return self.request("/login", {"name": name, "password": password})
