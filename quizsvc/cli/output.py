"""Where a report is written: stdout, a file replaced only once complete, or a FIFO or
character device written as it goes."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import click

from quizsvc.cli.common import fail


@dataclass(frozen=True)
class Output:
    """Where a report goes, decided by :func:`output_for` before any work is done."""

    name: str  # as given with --out, for messages
    how: Literal["stdout", "stderr", "replace", "write-through"]
    path: Path | None = None  # the file to replace or the FIFO/device to write to


def output_for(out: str) -> Output:
    """How to write to ``out`` (``-`` is stdout); a one-line error if it cannot be written.

    - One of this process's own standard streams, by any name (``/dev/stdout``, or a file
      the shell redirected stdout to): written as that stream, so ``>>`` still appends.
    - A regular file or a new path: written under a temporary name and renamed over it
      once complete.  A symlink is followed: its target is replaced, the link stays.
    - A character device or a FIFO: opened and written in place; renaming a file over it
      would delete the node (``/dev/full``) or leave the reader waiting forever.
    - Anything else (a directory, a socket, a block device) is refused.
    """
    import stat
    import sys

    if out == "-":
        return Output(out, "stdout")
    if not out:
        fail("the output path is empty (give a file, or - for stdout)")
    try:
        status = os.stat(out)
    except FileNotFoundError:
        status = None  # a new file, or a symlink whose target does not exist yet
    except OSError as exc:
        fail(f"cannot write {out}: {exc.strerror or exc}")
    if status is not None:
        for how, stream in (("stdout", sys.stdout), ("stderr", sys.stderr)):
            if _is_open_as(stream, status):
                return Output(out, how)
        if stat.S_ISCHR(status.st_mode) or stat.S_ISFIFO(status.st_mode):
            return Output(out, "write-through", Path(out))
        if stat.S_ISDIR(status.st_mode):
            fail(f"cannot write {out}: it is a directory")
        if not stat.S_ISREG(status.st_mode):
            fail(f"cannot write {out}: not a regular file, a FIFO or a character device")
    target = Path(os.path.realpath(out))
    if not target.parent.is_dir():
        fail(f"cannot write {out}: there is no directory {target.parent}")
    return Output(out, "replace", target)


def _is_open_as(stream: object, status: os.stat_result) -> bool:
    """True if ``stream`` (sys.stdout, say) is the file ``status`` describes."""
    try:
        own = os.fstat(stream.fileno())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):  # none, closed, or a buffer (CliRunner)
        return False
    return os.path.samestat(own, status)


def write_chunks(output: Output, chunks: Iterator[bytes]) -> None:
    """Write ``chunks`` to ``output`` (see :func:`output_for`).

    A replaced file is written under a temporary name in its directory (mode 0600: it
    holds students' work) and renamed over the target only once complete, so a failed
    export never leaves a truncated file behind.  A reader that stops early (``| head``)
    ends the export quietly.  However it ends, the chunks (and so their database
    cursors) are closed here, while the session is still open.
    """
    try:
        if output.how in ("stdout", "stderr"):
            _write_standard_stream(output.how, chunks)
        elif output.how == "write-through":
            _write_through(output, chunks)
        else:
            _write_replacing(output, chunks)
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


def _write_replacing(output: Output, chunks: Iterator[bytes]) -> None:
    import tempfile

    assert output.path is not None
    target = output.path
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as exc:
        fail(f"cannot write {output.name}: {exc.strerror or exc}")
    try:
        with os.fdopen(descriptor, "wb") as file:
            for chunk in chunks:
                file.write(chunk)
        os.replace(temporary, target)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        fail(f"cannot write {output.name}: {exc.strerror or exc}")
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _write_through(output: Output, chunks: Iterator[bytes]) -> None:
    assert output.path is not None
    try:
        # Neither O_CREAT nor O_TRUNC: if the node went away meanwhile, this fails rather
        # than leave a plain file in its place.
        descriptor = os.open(output.path, os.O_WRONLY | os.O_NOCTTY)
        with os.fdopen(descriptor, "wb") as file:
            for chunk in chunks:
                file.write(chunk)
    except OSError as exc:
        fail(f"cannot write {output.name}: {exc.strerror or exc}")


def _write_standard_stream(name: Literal["stdout", "stderr"], chunks: Iterator[bytes]) -> None:
    import sys

    standard = sys.stdout if name == "stdout" else sys.stderr
    # Binary, and left open by the with statement (click's stdout is what CliRunner captures).
    binary = (
        click.open_file("-", "wb")
        if name == "stdout"
        else contextlib.nullcontext(sys.stderr.buffer)
    )
    try:
        with binary as stream:
            for chunk in chunks:
                stream.write(chunk)
            stream.flush()
    except BrokenPipeError:
        # Python's documented recipe: point the stream at devnull so that the
        # interpreter's last flush does not fail again.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), standard.fileno())
        raise SystemExit(1) from None
