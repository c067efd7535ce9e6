"""Users: hashed passwords, validation, duplicates."""

from __future__ import annotations

import pytest
from werkzeug.security import generate_password_hash

from quizsvc.store import (
    DuplicateUser,
    InvalidPassword,
    InvalidUser,
    WrongPassword,
    authenticate,
    change_password,
    create_user,
    issue_api_token,
    list_users,
    set_language,
    set_password,
    user_by_api_token,
    user_by_id,
    users,
    verify_password,
)


@pytest.fixture
def real_password_hashes(monkeypatch) -> None:
    """Werkzeug's real default hash, for the tests of hashing itself; the others here get
    the cheap ones every test does (tests/cheap_hashes.py), which run the same code."""
    monkeypatch.setattr(users, "generate_password_hash", generate_password_hash)


def test_a_user_is_stored_with_a_salted_hash_not_the_password(session, real_password_hashes):
    user = create_user(
        session, name="ada", role="instructor", password="analytical engine", display_name="Ada"
    )
    session.expire_all()
    assert (user.name, user.role, user.display_name) == ("ada", "instructor", "Ada")
    assert "analytical engine" not in user.password_hash
    assert user.password_hash.startswith(("scrypt:", "pbkdf2:"))
    assert verify_password(user.password_hash, "analytical engine")
    assert not verify_password(user.password_hash, "analytical engin")
    assert user.created_at.tzinfo is not None
    other = create_user(session, name="bob", role="student", password="analytical engine")
    assert other.password_hash != user.password_hash  # salted
    assert other.display_name == "bob"


def test_authenticate(session, real_password_hashes):
    create_user(session, name="ada", role="student", password="analytical engine")
    assert authenticate(session, "ada", "analytical engine").name == "ada"
    assert authenticate(session, "ada", "wrong password") is None
    assert authenticate(session, "nobody", "analytical engine") is None


def test_duplicate_names_are_refused(session):
    create_user(session, name="ada", role="student", password="analytical engine")
    with pytest.raises(DuplicateUser, match="already exists"):
        create_user(session, name="ada", role="instructor", password="another password")
    assert [u.role for u in list_users(session)] == ["student"]


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("", "empty"),
        ("short", "too short"),
        ("1234567", "too short"),
        (" " * 8, "only spaces"),
        ("\t \n" * 4, "only spaces"),
    ],
)
def test_empty_short_and_blank_passwords_are_refused(session, password, message):
    with pytest.raises(InvalidPassword, match=message):
        create_user(session, name="ada", role="student", password=password)
    assert list_users(session) == []


@pytest.mark.parametrize("name", ["", "Ada", "ada lovelace", "-ada", "a" * 65, "ada/1"])
def test_bad_names_are_refused(session, name):
    with pytest.raises(InvalidUser, match="invalid user name"):
        create_user(session, name=name, role="student", password="analytical engine")


def test_bad_roles_are_refused(session):
    with pytest.raises(InvalidUser, match="invalid role"):
        create_user(session, name="ada", role="admin", password="analytical engine")


def test_users_are_listed_by_name(session, add_user):
    for name in ("carol", "ada", "bob"):
        add_user(name)
    assert [u.name for u in list_users(session)] == ["ada", "bob", "carol"]


def test_users_of_one_role_are_listed_by_name(session, add_user):
    for name, role in (("dora", "instructor"), ("carol", "student"), ("ada", "instructor")):
        add_user(name, role)
    assert [u.name for u in list_users(session, role="instructor")] == ["ada", "dora"]
    assert [u.name for u in list_users(session, role="student")] == ["carol"]


def test_a_user_changes_their_own_password_only_with_the_current_one(session):
    ada = create_user(session, name="ada", role="student", password="analytical engine")
    with pytest.raises(WrongPassword, match="the current password is wrong"):
        change_password(session, ada.id, "difference engine", "a new password")
    with pytest.raises(InvalidPassword, match="too short"):
        change_password(session, ada.id, "analytical engine", "short")
    session.expire_all()
    assert authenticate(session, "ada", "analytical engine") is not None

    assert change_password(session, ada.id, "analytical engine", "a new password").id == ada.id
    session.expire_all()
    assert authenticate(session, "ada", "analytical engine") is None
    assert authenticate(session, "ada", "a new password").name == "ada"
    with pytest.raises(InvalidUser, match="no user with id"):
        change_password(session, ada.id + 1000, "a new password", "another password")


@pytest.mark.parametrize("display_name", ["Bo\x00b", "lone \ud800"])
def test_a_display_name_no_database_can_store_is_refused(session, display_name):
    with pytest.raises(InvalidUser, match="the display name contains"):
        create_user(
            session, name="bob", role="student", password="long enough", display_name=display_name
        )
    assert list_users(session) == []


def test_a_login_name_no_database_can_store_names_nobody(session):
    create_user(session, name="ada", role="student", password="analytical engine")
    assert authenticate(session, "ada\x00", "analytical engine") is None


def test_display_names_have_1_to_200_characters_after_trimming(session):
    ada = create_user(
        session, name="ada", role="student", password="long enough", display_name=" A" + "a" * 199
    )
    assert ada.display_name == "A" + "a" * 199
    for display_name in ("b" * 201, "   ", ""):
        with pytest.raises(InvalidUser, match="1 to 200 characters"):
            create_user(
                session, name="bob", role="student", password="long enough",
                display_name=display_name,
            )  # fmt: skip
    assert [u.name for u in list_users(session)] == ["ada"]


def test_passwords_have_at_most_1024_characters(session):
    create_user(session, name="ada", role="student", password="p" * 1024)
    assert authenticate(session, "ada", "p" * 1024).name == "ada"
    with pytest.raises(InvalidPassword, match="longer than 1024"):
        create_user(session, name="bob", role="student", password="p" * 1025)
    assert [u.name for u in list_users(session)] == ["ada"]


def test_a_password_that_is_not_a_string_or_a_missing_hash_never_verifies(session):
    ada = create_user(session, name="ada", role="student", password="analytical engine")
    assert verify_password(ada.password_hash, "analytical engine") is True
    assert verify_password(ada.password_hash, None) is False
    assert verify_password(ada.password_hash, b"analytical engine") is False
    assert verify_password("", "analytical engine") is False
    assert verify_password(None, "analytical engine") is False


def test_an_api_token_finds_its_user_until_a_new_one_replaces_it(session):
    create_user(session, name="ada", role="student", password="analytical engine")
    create_user(session, name="bob", role="student", password="analytical engine")
    first = issue_api_token(session, "ada")
    assert len(first) >= 43 and first != issue_api_token(session, "bob")
    assert user_by_api_token(session, first).name == "ada"
    second = issue_api_token(session, "ada")
    assert user_by_api_token(session, second).name == "ada"
    assert user_by_api_token(session, first) is None
    assert user_by_api_token(session, "") is None
    assert user_by_api_token(session, second + "x") is None
    assert first not in {u.api_token_hash for u in list_users(session)}  # only a digest
    with pytest.raises(InvalidUser, match="no user named 'nobody'"):
        issue_api_token(session, "nobody")


def test_an_administrator_sets_a_password_without_the_old_one(session):
    create_user(session, name="ada", role="student", password="analytical engine")
    set_password(session, "ada", "difference engine")
    session.expire_all()
    assert authenticate(session, "ada", "analytical engine") is None
    assert authenticate(session, "ada", "difference engine").name == "ada"
    with pytest.raises(InvalidPassword, match="too short"):
        set_password(session, "ada", "short")
    with pytest.raises(InvalidUser, match="no user named 'nobody'"):
        set_password(session, "nobody", "long enough")
    session.expire_all()
    assert authenticate(session, "ada", "difference engine").name == "ada"


def test_a_user_by_id(session):
    ada = create_user(session, name="ada", role="student", password="analytical engine")
    assert user_by_id(session, ada.id).name == "ada"
    assert user_by_id(session, ada.id + 1) is None


def test_a_user_s_language_is_none_until_chosen_and_only_zh_or_en(session, add_user):
    ada = add_user("ada")
    assert user_by_id(session, ada).language is None
    set_language(session, ada, "zh")
    set_language(session, ada, "en")
    session.expire_all()
    assert user_by_id(session, ada).language == "en"
    with pytest.raises(ValueError, match="language must be one of zh, en, got 'fr'"):
        set_language(session, ada, "fr")
    with pytest.raises(InvalidUser, match="no user with id 999"):
        set_language(session, 999, "zh")
    session.rollback()
    assert user_by_id(session, ada).language == "en"
