"""Reading a content directory: which files are content, their bytes (each within a size
limit), and their text, with what a file that is not UTF-8 text most likely is instead."""

from __future__ import annotations

import codecs
import hashlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from quizsvc.bank.problems import ContentError, ContentProblem

CHAPTER_FILE = "chapter.yaml"
YAML_SUFFIX = ".yaml"
# Accepting both spellings would make ``chapter.yml`` a question file; it is reported.
_OTHER_YAML_SUFFIXES = (".yml",)

# The chapter's question file is 13 KB; PyYAML parses about 0.2 MB a second and needs about
# 100 times a file's size in memory, so a much larger file (a data dump, a wrong file) would
# hold a content reload, and the page that checks the files on disk, for minutes.
MAX_FILE_BYTES = 1_000_000


# --- files -----------------------------------------------------------------------------


def content_version(files: Mapping[str, bytes]) -> str:
    """sha256 over the files' relative paths and bytes, in sorted path order.

    Depends only on what is in the files, not on timestamps, the checkout location
    or directory listing order, so identical trees give identical versions on every
    machine.  Each part is length-prefixed so no two different trees can produce the
    same stream of bytes.
    """
    digest = hashlib.sha256()
    for relative_path in sorted(files):
        for part in (relative_path.encode("utf-8"), files[relative_path]):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return digest.hexdigest()


def read_content_files(directory: Path, errors: list[ContentError]) -> dict[str, bytes]:
    """Every YAML file in a chapter directory, keyed by its ``/``-separated relative path.

    Hidden files and directories (editor and VCS droppings) are skipped.  A YAML file
    anywhere else is reported: the author clearly meant it to be loaded.  So is a YAML
    name that is not a regular file (a directory, a broken or looping symlink, a FIFO).
    """
    files: dict[str, bytes] = {}
    for path in _entries_under(directory, errors):
        relative = path.relative_to(directory)
        relative_path = relative.as_posix()
        suffix = path.suffix.lower()  # X.YAML is meant as YAML too, and must be reported
        is_yaml_name = suffix == YAML_SUFFIX or suffix in _OTHER_YAML_SUFFIXES
        if not path.is_file():
            if is_yaml_name:
                code, params = _not_a_file(path)
                errors.append(ContentError.of(relative_path, "", None, code, **params))
            continue
        if is_yaml_name and path.suffix != YAML_SUFFIX:
            errors.append(
                ContentError.of(relative_path, "", None, ContentProblem.YML_SUFFIX, stem=path.stem)
            )
            continue
        if path.suffix != YAML_SUFFIX:
            continue
        if len(relative.parts) != 2:
            errors.append(
                ContentError.of(relative_path, "", None, ContentProblem.NOT_IN_CHAPTER_DIRECTORY)
            )
            continue
        try:
            with path.open("rb") as file:
                # one byte more than allowed tells a file at the limit from a larger one
                raw = file.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            errors.append(
                ContentError.of(
                    relative_path, "", None, ContentProblem.CANNOT_READ, reason=exc.strerror
                )
            )
            continue
        if len(raw) > MAX_FILE_BYTES:
            code, params = _too_large(path)
            errors.append(ContentError.of(relative_path, "", None, code, **params))
            continue
        files[relative_path] = raw
    if not files and not errors:
        errors.append(ContentError.of(".", "", None, ContentProblem.NO_CHAPTERS))
    return files


def _not_a_file(path: Path) -> tuple[ContentProblem, dict[str, Any]]:
    """Why ``path``, which is not a regular file (following symlinks), cannot be read."""
    try:
        status = path.stat()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        # A symlink to nothing, or a loop of symlinks.
        code = ContentProblem.BROKEN_SYMLINK if path.is_symlink() else ContentProblem.CANNOT_STAT
        return code, {"reason": reason}
    if stat.S_ISDIR(status.st_mode):
        return ContentProblem.DIRECTORY_NOT_FILE, {}
    return ContentProblem.NOT_REGULAR_FILE, {}


def _entries_under(directory: Path, errors: list[ContentError]) -> list[Path]:
    """Every entry under ``directory`` but hidden ones, sorted; symlinked directories are not
    entered. ``Path.rglob`` would skip a directory it may not list without a word, leaving a
    chapter out of a bank that loads "successfully"."""
    found: list[Path] = []

    def visit(folder: Path) -> None:
        try:
            with os.scandir(folder) as listing:
                entries = [entry for entry in listing if not entry.name.startswith(".")]
        except OSError as exc:
            relative = folder.relative_to(directory).as_posix()
            where = "." if relative == "." else f"{relative}/"
            reason = exc.strerror or str(exc)
            errors.append(
                ContentError.of(
                    where, "", None, ContentProblem.CANNOT_LIST_DIRECTORY, reason=reason
                )
            )
            return
        for entry in entries:
            path = Path(entry.path)
            found.append(path)
            if entry.is_dir(follow_symlinks=False):
                visit(path)

    visit(directory)
    return sorted(found)


def _too_large(path: Path) -> tuple[ContentProblem, dict[str, Any]]:
    limit = f"{MAX_FILE_BYTES / 1e6:g}"
    try:
        size = f"{path.stat().st_size / 1e6:.1f}"
    except OSError:
        return ContentProblem.FILE_TOO_LARGE_UNKNOWN_SIZE, {"max": limit}
    return ContentProblem.FILE_TOO_LARGE, {"size": size, "max": limit}


def chapter_directories(files: Mapping[str, bytes]) -> list[str]:
    return sorted({relative_path.split("/")[0] for relative_path in files})


def is_question_file(relative_path: str, chapter_dir: str) -> bool:
    directory, _, name = relative_path.partition("/")
    return directory == chapter_dir and name != CHAPTER_FILE


# --- text ------------------------------------------------------------------------------


def decode_text(file: str, raw: bytes, errors: list[ContentError]) -> str | None:
    """The file's text; None, with the reason added to ``errors``, if it is not UTF-8 text."""
    if problem := _not_a_text_file(file, raw):
        errors.append(problem)
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        errors.append(_not_utf8_error(file, raw, exc))
        return None


_UTF16_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_ZIP_SIGNATURE = b"PK\x03\x04"


def _not_a_text_file(file: str, raw: bytes) -> ContentError | None:
    """A ZIP archive or UTF-16 text, checked before decoding: both can be valid UTF-8 (an
    English UTF-16 file is ASCII with a 0 byte after each character)."""
    if raw.startswith(_ZIP_SIGNATURE):
        return ContentError.of(file, "", None, ContentProblem.ZIP_ARCHIVE)
    if raw.startswith(_UTF16_BOMS) or _looks_like_utf16(raw):
        # with a 0 byte in every character, counting b"\n" would give no line
        return ContentError.of(file, "", None, ContentProblem.UTF16)
    return None


def _not_utf8_error(file: str, raw: bytes, exc: UnicodeDecodeError) -> ContentError:
    """Say what the file most likely is, so the author knows how to save it instead."""
    line = raw.count(b"\n", 0, exc.start) + 1
    if b"\x00" in raw:
        return ContentError.of(file, "", line, ContentProblem.NUL_BYTES)
    try:
        raw.decode("gb18030")
    except UnicodeDecodeError:
        return ContentError.of(file, "", line, ContentProblem.NOT_UTF8)
    return ContentError.of(file, "", line, ContentProblem.GBK)


def _looks_like_utf16(raw: bytes) -> bool:
    """UTF-16 without a byte-order mark: YAML's ASCII keys and spaces are one 0 byte each."""
    head = raw[:1000]
    return len(head) >= 4 and max(head[0::2].count(0), head[1::2].count(0)) > len(head) // 4
