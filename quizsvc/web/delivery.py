"""How responses travel: static files under versioned URLs and cached for a year, text
compressed with gzip for a browser that accepts it."""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

from flask import Flask, Response, request

# A URL that names its file's content (`?v=`, a digest of the bytes) never changes meaning:
# the browser keeps it a year without asking again, and an edited file gets a new URL.
CACHED_FOR_A_YEAR = "public, max-age=31536000, immutable"
VERSION_ARG = "v"
_VERSION_CHARS = 12  # of the SHA-256 digest's hex: plenty to tell one edit from the next

# Smaller bodies gain too little for the work (and a gzip header costs 20 bytes).
MIN_COMPRESSED_BYTES = 1024
_COMPRESSIBLE = frozenset(
    ("application/json", "application/javascript", "text/javascript", "image/svg+xml")
)


class StaticVersions:
    """The version of each static file, recomputed when the file changes (its size or
    modification time), so an edited stylesheet is served under a new URL without a
    restart."""

    def __init__(self, folder: str) -> None:
        self.folder = Path(folder)
        self._known: dict[str, tuple[tuple[int, int], str]] = {}

    def version(self, filename: str) -> str | None:
        """None for a file that is not there (url_for then builds the plain URL, and the
        request gets its 404)."""
        path = self.folder / filename
        try:
            stat = os.stat(path)
        except OSError:
            return None
        key = (stat.st_size, stat.st_mtime_ns)
        known = self._known.get(filename)
        if known is None or known[0] != key:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()[:_VERSION_CHARS]
            known = self._known[filename] = (key, digest)
        return known[1]


def init_app(app: Flask) -> None:
    versions = StaticVersions(app.static_folder)

    @app.url_defaults
    def version_static_urls(endpoint: str, values: dict) -> None:
        # every url_for('static', filename=...) in the templates gets the file's version
        if endpoint == "static" and VERSION_ARG not in values and "filename" in values:
            version = versions.version(values["filename"])
            if version is not None:
                values[VERSION_ARG] = version

    @app.after_request
    def cache_versioned_static_files(response: Response) -> Response:
        # only the current version is kept for long: an old URL (a page cached from before
        # an edit) gets today's file, revalidated as Flask serves it, not kept a year
        if (
            request.endpoint == "static"
            and response.status_code == 200
            and request.args.get(VERSION_ARG) is not None
            and request.args.get(VERSION_ARG) == versions.version(request.view_args["filename"])
        ):
            response.headers["Cache-Control"] = CACHED_FOR_A_YEAR
        return response

    # create_app calls this before anything else registers an after_request function, and
    # Flask runs them in reverse: compression comes last, on the body as it is sent
    app.after_request(compress)


def compressible(response: Response) -> bool:
    mimetype = response.mimetype or ""
    return (
        mimetype.startswith("text/")
        or mimetype in _COMPRESSIBLE
        or mimetype.endswith(("+json", "+xml"))
    )


def compress(response: Response) -> Response:
    """The body gzipped when the browser accepts gzip and it is worth it.

    Pages carry the session's CSRF token beside text taken from the request (the language
    form's `next`), the mix that BREACH reads through the compressed size. The session
    cookies are SameSite=Lax, so a foreign site's requests carry no session, and only
    top-level navigations could: far too few for that attack's thousands of guesses."""
    if (
        response.status_code < 200
        or response.status_code in (204, 206, 304)
        # a generator's chunks are sent as they are made; a static file is an iterable too
        # (direct passthrough), one small enough to read at once
        or (response.is_streamed and not response.direct_passthrough)
        or "Content-Encoding" in response.headers
        or "Content-Range" in response.headers
        or not compressible(response)
        or request.accept_encodings["gzip"] <= 0
    ):
        return response
    response.vary.add("Accept-Encoding")
    response.direct_passthrough = False  # a static file: read it into the body
    body = response.get_data()
    if len(body) < MIN_COMPRESSED_BYTES:
        return response
    response.set_data(gzip.compress(body, compresslevel=6, mtime=0))
    response.headers["Content-Encoding"] = "gzip"
    # the same content in other bytes: a weak validator, which If-None-Match still matches
    etag, weak = response.get_etag()
    if etag and not weak:
        response.set_etag(etag, weak=True)
    return response
