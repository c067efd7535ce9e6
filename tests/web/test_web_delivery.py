"""Static files under URLs that name their content, kept a year by the browser; text sent
gzipped to a browser that accepts it, and as it is to one that does not."""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

from quizsvc.web.delivery import StaticVersions

STATIC = Path(__file__).resolve().parents[2] / "quizsvc" / "web" / "static"
GZIP = {"Accept-Encoding": "gzip, deflate"}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def test_every_page_links_its_stylesheet_and_scripts_by_their_contents_digest(browser_for):
    page = browser_for("alice").get("/drills").text
    links = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert "/static/style.css?v=" + digest(STATIC / "style.css") in links
    assert "/static/drill.js?v=" + digest(STATIC / "drill.js") not in links  # not this page's
    assert all(re.fullmatch(r"/static/[\w.]+\.(css|js)\?v=[0-9a-f]{12}", link) for link in links)
    login_page = browser_for().get("/login").text
    assert "/static/style.css?v=" + digest(STATIC / "style.css") in login_page


def test_the_current_version_is_cached_for_a_year_an_old_one_is_revalidated(browser_for):
    visitor = browser_for()
    current = visitor.get("/static/style.css?v=" + digest(STATIC / "style.css"))
    assert current.status_code == 200
    assert current.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert current.data == (STATIC / "style.css").read_bytes()
    for stale in ("/static/style.css?v=000000000000", "/static/style.css"):
        response = visitor.get(stale)
        assert response.status_code == 200, stale
        assert "immutable" not in response.headers.get("Cache-Control", ""), stale
        assert "no-store" not in response.headers.get("Cache-Control", ""), stale
    assert visitor.get("/static/no-such.css?v=1").status_code == 404


def test_an_edited_file_gets_a_new_version_without_a_restart(tmp_path):
    (tmp_path / "style.css").write_text("body { color: black; }", encoding="utf-8")
    versions = StaticVersions(str(tmp_path))
    before = versions.version("style.css")
    assert before == digest(tmp_path / "style.css")
    (tmp_path / "style.css").write_text("body { color: navy; }", encoding="utf-8")
    after = versions.version("style.css")
    assert after == digest(tmp_path / "style.css") != before
    assert versions.version("missing.css") is None


def test_pages_scripts_and_stylesheets_are_gzipped_for_a_browser_that_accepts_it(browser_for):
    alice = browser_for("alice")
    plain = alice.get("/drills")
    zipped = alice.client.get("/drills", headers=GZIP)
    assert "Content-Encoding" not in plain.headers
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers["Vary"]
    assert len(zipped.data) < len(plain.data) / 3
    # the same page (but for the CSRF token each response signs anew)
    unzipped = gzip.decompress(zipped.data).decode()
    assert re.sub(r'value="[^"]+\.[^"]+"', "", unzipped) == re.sub(
        r'value="[^"]+\.[^"]+"', "", plain.text
    )
    assert int(zipped.headers["Content-Length"]) == len(zipped.data)

    stylesheet = alice.get("/static/style.css", headers=GZIP)
    assert stylesheet.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(stylesheet.data) == (STATIC / "style.css").read_bytes()
    etag = stylesheet.headers["ETag"]
    assert etag.startswith('W/"')  # other bytes than the file's: a weak validator
    again = alice.get("/static/style.css", headers={**GZIP, "If-None-Match": etag})
    assert again.status_code == 304

    script = alice.get("/static/drill.js", headers=GZIP)
    assert gzip.decompress(script.data) == (STATIC / "drill.js").read_bytes()


def test_what_is_not_worth_it_or_not_accepted_is_sent_as_it_is(browser_for):
    alice = browser_for("alice")
    refused = alice.get("/drills", headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert "Content-Encoding" not in refused.headers
    # a redirect's tiny body
    redirect = alice.get("/", headers=GZIP)
    assert redirect.status_code == 302 and "Content-Encoding" not in redirect.headers
    # the instructor's downloads are streamed as they are written: never held to compress
    download = browser_for("ines").get("/instructor/reports/gradebook.csv", headers=GZIP)
    assert download.status_code == 200 and "Content-Encoding" not in download.headers
