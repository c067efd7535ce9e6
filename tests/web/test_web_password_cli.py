"""The command line refuses the most common passwords as the web forms do, and the demo
accounts' generated passwords are never among them."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from web_helpers import PASSWORD

from quizsvc import store
from quizsvc.cli import main
from quizsvc.store.users import is_common_password, user_exists

REFUSAL = "error: the password is one of the most common passwords"


def run(database_url: str, password: str, *args: str):
    environment = {"DATABASE_URL": database_url, "QUIZSVC_PASSWORD": password}
    return CliRunner().invoke(main, ["user", *args], env=environment)


@pytest.mark.parametrize("password", ["password1", "Password1", "iloveyou", "1q2w3e4r5t"])
def test_store_refuses_a_common_password_whatever_its_case(password):
    with pytest.raises(store.CommonPassword):
        store.validate_password(password)


@pytest.mark.parametrize("password", [PASSWORD, "long enough 1", "Zq8#vLw2pT"])
def test_store_takes_an_uncommon_password(password):
    assert store.validate_password(password) == password


def test_user_create_refuses_a_common_password_and_creates_nobody(database_url, sessions):
    refused = run(database_url, "qwerty123", "create", "zed", "--role", "student")
    assert refused.exit_code == 1
    assert REFUSAL in refused.output
    with sessions() as session:
        assert not user_exists(session, "zed")
    taken = run(database_url, "three unrelated words", "create", "zed", "--role", "student")
    assert taken.exit_code == 0, taken.output


def test_user_password_refuses_a_common_password_and_keeps_the_old_one(database_url, sessions):
    refused = run(database_url, "princess1", "password", "alice")
    assert refused.exit_code == 1
    assert REFUSAL in refused.output
    with sessions() as session:
        assert store.authenticate(session, "alice", PASSWORD) is not None


def test_demo_passwords_pass_the_check(database_url):
    for _ in range(5):  # new passwords each time
        result = run(database_url, "", "demo")
        assert result.exit_code == 0, result.output
        passwords = re.findall(r"password (\S+)", result.output)
        assert len(passwords) == 2
        for password in passwords:
            assert not is_common_password(password)
