"""The Alembic migrations produce exactly the models' schema, and go down and up again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Column, Integer, MetaData, String, Table, event, inspect

from quizsvc import store
from quizsvc.store import Base, StoreError, make_engine, make_session_factory, migrate

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # as in conftest.py


def schema_differences(engine, metadata=Base.metadata) -> list:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, metadata)


def check_constraints(engine) -> dict[str, set[str]]:
    inspector = inspect(engine)
    return {
        table: {c["name"] for c in inspector.get_check_constraints(table)}
        for table in Base.metadata.tables
    }


def model_check_constraints() -> dict[str, set[str]]:
    return {
        name: {c.name for c in table.constraints if c.__class__.__name__ == "CheckConstraint"}
        for name, table in Base.metadata.tables.items()
    }


def tables(engine) -> set[str]:
    return set(inspect(engine).get_table_names())


def test_every_migration_gives_the_models_schema_and_downgrades_to_nothing(empty_db_url):
    engine = make_engine(empty_db_url)
    try:
        migrate.upgrade(empty_db_url)
        assert tables(engine) == set(Base.metadata.tables) | {"alembic_version"}
        assert schema_differences(engine) == []
        assert check_constraints(engine) == model_check_constraints()
        assert migrate.is_up_to_date(engine)

        migrate.downgrade(empty_db_url, "base")
        assert tables(engine) == {"alembic_version"}
        assert migrate.current_revisions(engine) == ()
        assert not migrate.is_up_to_date(engine)

        migrate.upgrade(empty_db_url)
        assert schema_differences(engine) == []
        assert migrate.current_revisions(engine) == migrate.head_revisions()
    finally:
        engine.dispose()


def test_the_comparison_notices_a_schema_that_differs(empty_db_url):
    # The test above would be worthless if compare_metadata could not see a difference.
    engine = make_engine(empty_db_url)
    try:
        migrate.upgrade(empty_db_url)
        changed = MetaData()
        for table in Base.metadata.tables.values():
            table.to_metadata(changed)
        Table("extra", changed, Column("id", Integer, primary_key=True))
        changed.tables["users"].append_column(Column("nickname", String(20)))
        kinds = {diff[0] for diff in schema_differences(engine, changed)}
        assert {"add_table", "add_column"} <= kinds
    finally:
        engine.dispose()


def test_upgrading_twice_is_harmless(empty_db_url):
    migrate.upgrade(empty_db_url)
    migrate.upgrade(empty_db_url)
    engine = make_engine(empty_db_url)
    try:
        assert schema_differences(engine) == []
    finally:
        engine.dispose()


def test_the_migrations_are_found_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (migrate.migrations_dir() / "env.py").is_file()
    url = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    migrate.upgrade(url)
    engine = make_engine(url)
    try:
        assert migrate.is_up_to_date(engine)
    finally:
        engine.dispose()


def test_a_missing_migrations_directory_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("QUIZSVC_MIGRATIONS_DIR", str(tmp_path))
    with pytest.raises(StoreError, match="QUIZSVC_MIGRATIONS_DIR"):
        migrate.upgrade(f"sqlite:///{tmp_path / 'x.sqlite3'}")


def test_0002_counts_a_variant_once_its_downgrade_every_attempt_0006_drills_only(empty_db_url):
    migrate.upgrade(empty_db_url)
    engine = make_engine(empty_db_url)
    try:
        sessions = make_session_factory(engine)
        with sessions() as session:
            ada = store.create_user(session, name="ada", role="student", password="p" * 12).id
        variant = {
            "learner_id": ada,
            "kind": "score_row",
            "seed": 7,
            "params": {},
            "variant_json": {"format": 1},
            "content_version": "v1",
            "attempts_allowed": 3,
            "penalty": 0.1,
            "skill": "scores",
            "now": T0,
        }
        with sessions() as session:
            first = store.issue_variant(session, question_id="d-1", **variant).id
            second = store.issue_variant(session, question_id="d-2", **variant).id

        def submit(variant_id: int, raw_score: float, minute: int) -> None:
            with sessions() as session:
                store.record_submission(
                    session,
                    learner_id=ada,
                    variant_id=variant_id,
                    idempotency_key=f"{variant_id}-{minute}",
                    answer_text=str(raw_score),
                    parsed_value=[[raw_score]],
                    raw_score=raw_score,
                    cells=[],
                    now=T0 + timedelta(minutes=minute),
                )

        submit(first, 0.5, 0)
        with sessions() as session:
            store.record_quiz_answer(
                session,
                learner_id=ada,
                question_id="q",
                content_version="v1",
                idempotency_key="q",
                choices=["a"],
                score=1.0,
                skill="scores",
                now=T0 + timedelta(minutes=1),
            )
        submit(second, 0.0, 2)
        submit(first, 1.0, 3)  # its second attempt: 1.0 - 0.1 = 0.9

        def progress() -> tuple:
            with sessions() as session:
                [p] = store.progress_for(session, ada)
                return (p.attempts, p.best_score, p.last_score, p.mastery, p.last_activity)

        last_activity = T0 + timedelta(minutes=3)
        # drills only (0006), in the order first answered: first at its best 0.9, second 0.0
        # -> 0.45, 0.225; three submissions
        drills_only = (3, 0.9, 0.0, pytest.approx(0.225), last_activity)
        # items in the order first answered: first at its best 0.9, the answer 1.0, second 0.0
        # -> 0.45, 0.725, 0.3625; the newest item is second
        counted_once = (4, 1.0, 0.0, pytest.approx(0.3625), last_activity)
        # every attempt an item: 0.5, 1.0, 0.0, 0.9 -> 0.25, 0.625, 0.3125, 0.60625
        every_attempt = (4, 1.0, 0.9, pytest.approx(0.60625), last_activity)
        assert progress() == drills_only
        migrate.downgrade(empty_db_url, "0005")
        assert progress() == counted_once
        migrate.downgrade(empty_db_url, "0001")
        assert progress() == every_attempt
        migrate.upgrade(empty_db_url, "0005")
        assert progress() == counted_once
        migrate.upgrade(empty_db_url)
        assert progress() == drills_only
    finally:
        engine.dispose()


def review_queue_query(engine) -> tuple[str, object]:
    """The review queue's query (``answers_awaiting_review``) as the store sends it."""
    sent: list[tuple[str, object]] = []

    def capture(_conn, _cursor, statement, parameters, _context, _executemany):
        if "quiz_answers" in statement and not statement.startswith("EXPLAIN"):
            sent.append((statement, parameters))

    with make_session_factory(engine)() as session:
        event.listen(engine, "before_cursor_execute", capture)
        try:
            store.answers_awaiting_review(session)
        finally:
            event.remove(engine, "before_cursor_execute", capture)
    [query] = sent
    return query


def query_plan(engine, query: tuple[str, object]) -> str:
    """The query plan of ``query``, as text. On PostgreSQL sequential scans are priced out,
    as a table of a few rows would otherwise be read whole whatever its indexes; what
    matters is whether an index can serve."""
    statement, parameters = query
    with make_session_factory(engine)() as session:
        connection = session.connection()
        if engine.dialect.name == "postgresql":
            connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
        prefix = "EXPLAIN QUERY PLAN " if engine.dialect.name == "sqlite" else "EXPLAIN "
        rows = connection.exec_driver_sql(prefix + statement, parameters).all()
    return "\n".join(str(row[-1] if engine.dialect.name == "sqlite" else row[0]) for row in rows)


def test_0003_serves_the_review_queue_from_its_index_and_its_downgrade_drops_it(empty_db_url):
    migrate.upgrade(empty_db_url)
    engine = make_engine(empty_db_url)
    try:

        def indexes() -> set[str]:
            return {index["name"] for index in inspect(engine).get_indexes("quiz_answers")}

        query = review_queue_query(engine)
        plan = query_plan(engine, query)
        assert "ix_quiz_answers_awaiting_review" in indexes()
        assert "ix_quiz_answers_awaiting_review" in plan
        # read in queue order from the index: no sort of the waiting answers
        assert "TEMP B-TREE" not in plan and "Sort" not in plan

        migrate.downgrade(empty_db_url, "0002")
        engine.dispose()
        assert "ix_quiz_answers_awaiting_review" not in indexes()
        # the same query but for the columns later revisions add (0005, 0010), which are
        # selected, not searched or sorted by
        statement, parameters = query
        later = (", quiz_answers.raw_score", ", quiz_answers.late_penalty")
        assert all(column in statement for column in later)
        for column in later:
            statement = statement.replace(column, "")
        before_0005 = (statement, parameters)
        assert "ix_quiz_answers_awaiting_review" not in query_plan(engine, before_0005)

        migrate.upgrade(empty_db_url)
        engine.dispose()
        assert "ix_quiz_answers_awaiting_review" in query_plan(engine, review_queue_query(engine))
    finally:
        engine.dispose()


# Tables as a revision before the newest has them, written and read without the models
# (which hold the newest schema's columns).
users_table = sa.table(
    "users",
    sa.column("id", sa.Integer),
    sa.column("name", sa.String),
    sa.column("display_name", sa.String),
    sa.column("role", sa.String),
    sa.column("password_hash", sa.String),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
content_versions_table = sa.table(
    "content_versions",
    sa.column("id", sa.Integer),
    sa.column("version", sa.String),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
quiz_answers_table = sa.table(
    "quiz_answers",
    sa.column("id", sa.Integer),
    sa.column("learner_id", sa.Integer),
    sa.column("question_id", sa.String),
    sa.column("content_version_id", sa.Integer),
    sa.column("attempt", sa.Integer),
    sa.column("idempotency_key", sa.String),
    sa.column("choices", sa.JSON(none_as_null=True)),  # as the models store None
    sa.column("text", sa.Text),
    sa.column("score", sa.Float),
    sa.column("suggested_score", sa.Float),
    sa.column("skill", sa.String),
    sa.column("answered_at", sa.DateTime(timezone=True)),
)
reviews_table = sa.table(
    "open_answer_reviews",
    sa.column("answer_id", sa.Integer),
    sa.column("reviewer_id", sa.Integer),
    sa.column("confirmed_score", sa.Float),
    sa.column("comment", sa.Text),
    sa.column("reviewed_at", sa.DateTime(timezone=True)),
)


def insert_user(engine, name: str, role: str = "student") -> int:
    with engine.begin() as connection:
        return connection.execute(
            users_table.insert()
            .values(
                name=name,
                display_name=name,
                role=role,
                password_hash=store.hash_password("p" * 12),
                created_at=T0,
            )
            .returning(users_table.c.id)
        ).scalar_one()


def user_names(engine) -> list[str]:
    with engine.connect() as connection:
        return list(connection.scalars(sa.select(users_table.c.name).order_by("id")))


def columns(engine, table: str) -> set[str]:
    return {column["name"] for column in inspect(engine).get_columns(table)}


def test_0004_keeps_login_sessions_and_its_downgrade_drops_them_and_nothing_else(empty_db_url):
    migrate.upgrade(empty_db_url, "0003")
    engine = make_engine(empty_db_url)
    try:
        sessions = make_session_factory(engine)
        assert "login_sessions" not in tables(engine)
        ada = insert_user(engine, "ada")

        migrate.upgrade(empty_db_url)
        engine.dispose()
        assert migrate.current_revisions(engine) == migrate.head_revisions()
        with sessions() as session:
            token = store.begin_login_session(session, ada, now=T0)
        with sessions() as session:
            found = store.find_login_session(session, ada, token, now=T0)
            assert (found.user.name, found.ended_by) == ("ada", None)
        indexes = {index["name"] for index in inspect(engine).get_indexes("login_sessions")}
        assert "ix_login_sessions_user_id_created_at" in indexes

        migrate.downgrade(empty_db_url, "0003")
        engine.dispose()
        assert "login_sessions" not in tables(engine)
        assert user_names(engine) == ["ada"]

        # up again: an empty table, so the session begun before is no login any more
        migrate.upgrade(empty_db_url)
        engine.dispose()
        assert schema_differences(engine) == []
        with sessions() as session:
            assert store.find_login_session(session, ada, token, now=T0) is None
            assert store.authenticate(session, "ada", "p" * 12).id == ada
    finally:
        engine.dispose()


def test_0005_keeps_the_grader_s_score_of_every_answer_but_an_open_one(empty_db_url):
    migrate.upgrade(empty_db_url, "0004")
    engine = make_engine(empty_db_url)
    try:
        ada, teacher = insert_user(engine, "ada"), insert_user(engine, "teacher", "instructor")
        answer = {"learner_id": ada, "content_version_id": 1, "attempt": 1, "answered_at": T0}
        with engine.begin() as connection:
            connection.execute(content_versions_table.insert().values(version="v1", created_at=T0))
            rows = [
                {"question_id": "choice", "choices": ["A"], "text": None, "score": 0.5},
                {"question_id": "numeric", "choices": None, "text": "1.5", "score": 1.0},
                {"question_id": "reviewed", "choices": None, "text": "why", "score": 0.75},
                {"question_id": "waiting", "choices": None, "text": "why", "score": None},
            ]
            for row in rows:
                connection.execute(
                    quiz_answers_table.insert().values(
                        **answer, **row, idempotency_key=row["question_id"]
                    )
                )
            reviewed = connection.scalar(
                sa.select(quiz_answers_table.c.id).where(
                    quiz_answers_table.c.question_id == "reviewed"
                )
            )
            connection.execute(
                reviews_table.insert().values(
                    answer_id=reviewed, reviewer_id=teacher, confirmed_score=0.75,
                    comment="", reviewed_at=T0,
                )
            )  # fmt: skip

        migrate.upgrade(empty_db_url, "0005")
        engine.dispose()
        with engine.connect() as connection:
            raw = dict(
                connection.execute(sa.text("SELECT question_id, raw_score FROM quiz_answers")).all()
            )
        # every answer before was a first try: the grader's score is the score; an open
        # answer, reviewed or waiting, has none
        assert raw == {"choice": 0.5, "numeric": 1.0, "reviewed": None, "waiting": None}
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
            connection.execute(sa.text("UPDATE quiz_answers SET raw_score = 1.5"))

        migrate.downgrade(empty_db_url, "0004")
        engine.dispose()
        assert "raw_score" not in columns(engine, "quiz_answers")
        with engine.connect() as connection:
            assert (
                connection.scalar(sa.select(sa.func.count()).select_from(quiz_answers_table)) == 4
            )
    finally:
        engine.dispose()


def test_0006_deletes_a_skill_practised_by_quiz_answers_alone_and_its_downgrade_brings_it_back(
    empty_db_url,
):
    migrate.upgrade(empty_db_url, "0005")
    engine = make_engine(empty_db_url)
    try:
        ada = insert_user(engine, "ada")
        with engine.begin() as connection:
            connection.execute(content_versions_table.insert().values(version="v1", created_at=T0))
            for minute, score in enumerate([1.0, 0.5]):
                connection.execute(
                    quiz_answers_table.insert().values(
                        learner_id=ada, question_id=f"q{minute}", content_version_id=1,
                        attempt=1, idempotency_key=f"k{minute}", choices=["A"], score=score,
                        skill="cross_attention", answered_at=T0 + timedelta(minutes=minute),
                    )
                )  # fmt: skip
            # as the store counted them until 0006
            connection.execute(
                sa.text(
                    "INSERT INTO skill_progress (learner_id, skill, attempts, best_score, "
                    "last_score, mastery, last_activity) VALUES "
                    "(:ada, 'cross_attention', 2, 1.0, 0.5, 0.5, :at)"
                ),
                {"ada": ada, "at": T0 + timedelta(minutes=1)},
            )
        sessions = make_session_factory(engine)

        def progress() -> list[tuple]:
            with sessions() as session:
                return [
                    (p.skill, p.attempts, p.best_score, p.last_score, p.mastery, p.last_activity)
                    for p in store.progress_for(session, ada)
                ]

        quizzes_counted = [("cross_attention", 2, 1.0, 0.5, 0.5, T0 + timedelta(minutes=1))]
        assert progress() == quizzes_counted
        migrate.upgrade(empty_db_url, "0006")
        engine.dispose()
        assert progress() == []  # the Drills page's "not tried", now the Progress page's too
        migrate.downgrade(empty_db_url, "0005")
        engine.dispose()
        # 1.0 then 0.5 -> 0.5, 0.5
        assert progress() == quizzes_counted
    finally:
        engine.dispose()


def test_0007_keeps_a_user_s_language_and_its_downgrade_drops_only_that(empty_db_url):
    migrate.upgrade(empty_db_url, "0006")
    engine = make_engine(empty_db_url)
    try:
        ada = insert_user(engine, "ada")
        migrate.upgrade(empty_db_url, "0007")
        engine.dispose()
        language = sa.text("SELECT language FROM users WHERE id = :id").bindparams(id=ada)
        with engine.connect() as connection:
            assert connection.scalar(language) is None  # never chosen
        with engine.begin() as connection:
            connection.execute(sa.text("UPDATE users SET language = 'zh'"))
        with engine.connect() as connection:
            assert connection.scalar(language) == "zh"
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
            connection.execute(sa.text("UPDATE users SET language = 'fr'"))

        migrate.downgrade(empty_db_url, "0006")
        engine.dispose()
        assert "language" not in columns(engine, "users")
        assert user_names(engine) == ["ada"]
    finally:
        engine.dispose()


def test_0008_adds_the_shared_state_tables_and_its_downgrade_drops_only_them(empty_db_url):
    migrate.upgrade(empty_db_url, "0007")
    engine = make_engine(empty_db_url)
    shared = {"login_attempts", "content_loads", "content_workers"}
    try:
        before = tables(engine)
        assert not shared & before
        insert_user(engine, "ada")
        migrate.upgrade(empty_db_url, "0008")
        engine.dispose()
        assert tables(engine) == before | shared
        indexes = {index["name"] for index in inspect(engine).get_indexes("login_attempts")}
        assert indexes == {
            "ix_login_attempts_key_attempted_at",
            "ix_login_attempts_attempted_at",
        }
        sessions = make_session_factory(engine)
        limit = store.Counter("password:ada", (store.AttemptLimit(1, timedelta(minutes=10)),))
        with sessions() as session:
            assert store.count_attempt(session, limit, keep=timedelta(hours=1), now=T0) is None
            assert store.count_attempt(session, limit, keep=timedelta(hours=1), now=T0) is not None
            loaded = store.record_first_content_load(session, "v1", now=T0)
            store.record_served_content(session, "host:1", "v1", loaded.id, now=T0)
            assert store.latest_content_load(session) == loaded

        migrate.downgrade(empty_db_url, "0007")
        engine.dispose()
        assert tables(engine) == before
        assert user_names(engine) == ["ada"]
    finally:
        engine.dispose()


def test_0009_adds_the_deactivation_time_and_its_downgrade_drops_only_that(empty_db_url):
    migrate.upgrade(empty_db_url, "0008")
    engine = make_engine(empty_db_url)
    try:
        ada = insert_user(engine, "ada")
        migrate.upgrade(empty_db_url, "0009")
        engine.dispose()
        sessions = make_session_factory(engine)
        with sessions() as session:
            assert store.user_by_id(session, ada).deactivated_at is None  # active as before
        with sessions() as session:
            store.deactivate_student(session, ada, now=T0)
        with sessions() as session:
            assert store.user_by_id(session, ada).deactivated_at == T0

        migrate.downgrade(empty_db_url, "0008")
        engine.dispose()
        assert "deactivated_at" not in columns(engine, "users")
        assert user_names(engine) == ["ada"]
    finally:
        engine.dispose()


def test_0010_adds_the_lti_tables_and_its_downgrade_drops_only_them(empty_db_url):
    migrate.upgrade(empty_db_url, "0009")
    engine = make_engine(empty_db_url)
    lti = {
        "lti_platforms",
        "lti_tool_keys",
        "lti_accounts",
        "lti_launch_values",
        "lti_grade_links",
        "lti_grade_outbox",
    }
    try:
        before = tables(engine)
        assert not lti & before
        insert_user(engine, "ada")
        migrate.upgrade(empty_db_url, "0010")
        engine.dispose()
        assert tables(engine) == before | lti
        with make_session_factory(engine)() as session:
            found = store.lti.account_for_launch(
                session, issuer="https://lms", sub="1", role="student", display_name="Ada"
            )
            assert found.created
        migrate.downgrade(empty_db_url, "0009")
        engine.dispose()
        assert tables(engine) == before
        # the accounts stay, as plain accounts
        assert user_names(engine) == ["ada", found.user.name]
    finally:
        engine.dispose()


def test_0011_adds_quiz_starts_extensions_and_late_penalties_and_its_downgrade_drops_them(
    empty_db_url,
):
    migrate.upgrade(empty_db_url, "0010")
    engine = make_engine(empty_db_url)
    try:
        ada = insert_user(engine, "ada")
        with engine.begin() as connection:
            connection.execute(content_versions_table.insert().values(version="v1", created_at=T0))
            connection.execute(
                quiz_answers_table.insert().values(
                    learner_id=ada, content_version_id=1, attempt=1, answered_at=T0,
                    question_id="choice", choices=["A"], text=None, score=0.5,
                    idempotency_key="k",
                )
            )  # fmt: skip
        migrate.upgrade(empty_db_url, "0011")
        engine.dispose()
        # an answer recorded before was never late
        with engine.connect() as connection:
            penalties = connection.execute(sa.text("SELECT late_penalty FROM quiz_answers")).all()
        assert penalties == [(0.0,)]
        sessions = make_session_factory(engine)
        later = T0 + timedelta(days=3)
        with sessions() as session:
            assert store.start_quiz(session, ada, "ch", now=T0) == T0
        with sessions() as session:  # a second start keeps the first
            assert store.start_quiz(session, ada, "ch", now=later) == T0
        with sessions() as session:
            store.set_extension(
                session, learner_id=ada, chapter_id="ch", part="quiz", closes_at=later,
                extra_minutes=15, set_by=None, now=T0,
            )  # fmt: skip
        with sessions() as session:
            (extension,) = store.extensions_of(session, ada)
            assert (extension.closes_at, extension.extra_minutes) == (later, 15)
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
            connection.execute(sa.text("UPDATE deadline_extensions SET extra_minutes = -1"))

        migrate.downgrade(empty_db_url, "0010")
        engine.dispose()
        assert not {"quiz_starts", "deadline_extensions"} & tables(engine)
        assert "late_penalty" not in columns(engine, "quiz_answers")
        assert "late_penalty" not in columns(engine, "submissions")
        assert user_names(engine) == ["ada"]
        with engine.connect() as connection:
            assert connection.execute(sa.text("SELECT score FROM quiz_answers")).all() == [(0.5,)]
    finally:
        engine.dispose()
