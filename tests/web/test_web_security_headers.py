"""The security headers every response carries: a Content-Security-Policy that runs only the
site's own scripts and refuses framing, nosniff, X-Frame-Options and a Referrer-Policy.

That the policy breaks no page is checked in a real browser
(tests/browser/test_browser_security_headers.py).
"""

from __future__ import annotations

HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


def policy(response) -> dict[str, list[str]]:
    """The Content-Security-Policy header as {directive: [sources]} (one header, not two:
    a browser would enforce both)."""
    [header] = response.headers.getlist("Content-Security-Policy")
    directives: dict[str, list[str]] = {}
    for part in header.split(";"):
        name, *sources = part.split()
        assert name not in directives, f"{name} twice"
        directives[name] = sources
    return directives


def assert_secured(response, where: str) -> None:
    for name, value in HEADERS.items():
        assert response.headers.getlist(name) == [value], (where, name)
    directives = policy(response)
    assert directives["default-src"] == ["'none'"], where
    # the site's own files only: no inline script or style, no eval, no other host
    assert directives["script-src"] == ["'self'"], where
    assert directives["style-src"] == ["'self'"], where
    # the tab's icon is a data: URI (base.html); images otherwise only from the site
    assert sorted(directives["img-src"]) == ["'self'", "data:"], where
    assert directives["frame-ancestors"] == ["'none'"], where
    assert directives["form-action"] == ["'self'"], where
    assert directives["base-uri"] == ["'none'"], where


def test_pages_redirects_and_errors_carry_the_security_headers(browser_for):
    visitor = browser_for()
    assert_secured(visitor.get("/login"), "the login page")
    assert_secured(visitor.get("/progress"), "a redirect to the login page")
    assert_secured(visitor.get("/static/drill.js"), "a static file")
    assert_secured(visitor.client.post("/login", data={}), "a CSRF failure")

    alice = browser_for("alice")
    assert_secured(alice.get("/chapters/transformer-by-hand"), "the chapter page")
    not_found = alice.get("/no-such-page")
    assert not_found.status_code == 404
    assert_secured(not_found, "a 404 page")
    too_large = alice.post("/drills/drill-score-row/variants", {"pasted": "1" * 300_000})
    assert too_large.status_code == 413
    assert_secured(too_large, "a 413 page")


def test_api_answers_and_downloads_carry_the_security_headers(browser_for):
    alice = browser_for("alice")
    response = alice.get("/api/progress")
    assert response.status_code == 200
    assert_secured(response, "an API answer")
    unauthorized = browser_for().get("/api/progress")
    assert unauthorized.status_code == 401
    assert_secured(unauthorized, "an API error")

    ines = browser_for("ines")
    download = ines.get("/instructor/reports/gradebook.csv")
    assert download.status_code == 200
    assert_secured(download, "a CSV download")


def test_no_page_is_kept_in_a_cache_but_static_files_are(browser_for):
    """After a logout, the browser's Back button must not show the last user's work from its
    cache (nor a cached CSRF token); static files are everyone's and may be cached."""
    alice = browser_for("alice")
    for path in ("/progress", "/chapters/transformer-by-hand", "/drills"):
        response = alice.get(path)
        assert response.status_code == 200, path
        assert "no-store" in response.headers["Cache-Control"], path
    assert "no-store" in browser_for().get("/login").headers["Cache-Control"]
    script = alice.get("/static/drill.js")
    assert script.status_code == 200
    assert "no-store" not in script.headers.get("Cache-Control", "")
