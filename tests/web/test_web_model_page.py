"""The page /model (the trained toy model: its size, loss curve, cross-attention and greedy
decoding) and the worked example's switch to the trained model's numbers."""

from __future__ import annotations

import re

import pytest


@pytest.fixture
def pages(browser_for) -> dict[str, str]:
    alice = browser_for("alice")
    pages = {}
    for lang in ("zh", "en"):
        alice.post(f"/lang/{lang}")
        for path in ("/model", "/worked-example?model=trained", "/worked-example"):
            page = alice.get(path)
            assert page.status_code == 200, (path, page.text[:500])
            pages[lang, path] = page.text
    return pages


def test_smoke(pages):
    open("/tmp/model_en.html", "w").write(pages["en", "/model"])
    open("/tmp/model_zh.html", "w").write(pages["zh", "/model"])
    open("/tmp/we_trained_en.html", "w").write(pages["en", "/worked-example?model=trained"])
