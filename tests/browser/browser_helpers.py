"""Helpers the browser tests share."""

from __future__ import annotations

import re

PASSWORD = "correct horse battery"  # every user the browser tests create


def login(page, name: str) -> None:
    """Log in through the form and wait for the start page: the chapter for a learner, the
    overview for an instructor."""
    page.goto("/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(re.compile(r"/chapters/transformer-by-hand$|/instructor/$"))
