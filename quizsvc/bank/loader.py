"""Load and validate a content directory into an immutable ``Bank``.

Layout::

    content/
      <chapter-id>/
        chapter.yaml        # Chapter
        questions.yaml      # QuestionFile (any other *.yaml name works)
        drills.yaml

Loading is all-or-nothing: every file is read and validated, every problem is
collected as a ``ContentError`` (file, path, line, message), and if there is even
one, ``BankError`` is raised with all of them.  A service must never run on half a
bank, and an author fixing content wants the whole list at once, not one error per
run.  Bad content never raises anything but ``BankError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from pydantic import BaseModel, TypeAdapter, ValidationError

from engine.corpus import Corpus
from engine.trained import TrainedModel
from quizsvc.bank.files import (
    CHAPTER_FILE,
    chapter_directories,
    content_version,
    decode_text,
    is_question_file,
    read_content_files,
)
from quizsvc.bank.formulas import check_formulas
from quizsvc.bank.models import load_chapter_model, model_files
from quizsvc.bank.parsing import YamlDocument, locate, parse_yaml
from quizsvc.bank.problems import BankError, ContentError, ContentProblem
from quizsvc.bank.schema import Chapter, DrillQuestion, Question, QuestionFile
from quizsvc.bank.validation_errors import content_errors

DrillKinds = Mapping[str, type[BaseModel]]

# What a drill kind's params model finds in its validation context (``model_validate``'s
# ``context``): the chapter's corpus, None when it has no trained model; the model's heads.
TRAINED_CORPUS = "trained_corpus"
TRAINED_HEADS = "trained_heads"

_QUESTION_ADAPTER: TypeAdapter[Question] = TypeAdapter(Question)


@dataclass(frozen=True)
class SourceLocation:
    """Where a question is written, for messages such as ``content test`` failures."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Bank:
    """A fully validated question bank.  Immutable, so one instance can serve every request."""

    chapters: tuple[Chapter, ...]  # by (order, id)
    questions: Mapping[str, Question]  # by id, in chapter order then file order
    chapter_of: Mapping[str, str]  # question id -> chapter id
    source_of: Mapping[str, SourceLocation]  # question id -> where it is written
    # Drill question id -> its params validated by the kind's params model (defaults
    # filled in); the question itself keeps ``params`` exactly as authored.
    drill_params: Mapping[str, BaseModel]
    version: str  # see content_version(): the YAML files and the models' files
    # chapter id -> its trained model (``<chapter>/model/``) and the corpus it was trained on,
    # for the chapters that have one
    models: Mapping[str, TrainedModel] = field(default_factory=lambda: MappingProxyType({}))
    # chapter id -> the corpus its trained model was trained on (the same chapters)
    corpora: Mapping[str, Corpus] = field(default_factory=lambda: MappingProxyType({}))
    _chapters_by_id: Mapping[str, Chapter] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_id = MappingProxyType({chapter.id: chapter for chapter in self.chapters})
        object.__setattr__(self, "_chapters_by_id", by_id)

    def chapter(self, chapter_id: str) -> Chapter:
        """The chapter with this id; KeyError if there is none."""
        return self._chapters_by_id[chapter_id]

    def questions_in(self, chapter_id: str) -> tuple[Question, ...]:
        """The chapter's questions in authored order; KeyError for an unknown chapter."""
        self.chapter(chapter_id)
        return tuple(q for q in self.questions.values() if self.chapter_of[q.id] == chapter_id)


@dataclass
class _LoadedQuestion:
    question: Question
    chapter_id: str
    index: int  # position in its file's ``questions:`` list
    source: SourceLocation


def load_bank(directory: Path, drill_kinds: DrillKinds) -> Bank:
    """Read, validate and index every YAML file under ``directory``.

    ``drill_kinds`` maps each drill kind name to the pydantic model of its params;
    it is passed in so the bank stays independent of the drill implementations.
    Raises ``BankError`` listing every problem if anything at all is wrong.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise BankError(
            [
                ContentError.of(
                    ".", "", None, ContentProblem.CONTENT_DIR_NOT_FOUND, directory=directory
                )
            ]
        )

    errors: list[ContentError] = []
    files = read_content_files(directory, errors)
    documents: dict[str, YamlDocument] = {}
    for relative_path, raw in files.items():
        text = decode_text(relative_path, raw, errors)
        document = None if text is None else parse_yaml(relative_path, text, errors)
        if document is not None:
            documents[relative_path] = document

    chapters: list[Chapter] = []
    loaded: list[_LoadedQuestion] = []
    models: dict[str, TrainedModel] = {}
    corpora: dict[str, Corpus] = {}
    versioned = dict(files)
    for chapter_dir in chapter_directories(files):
        chapter = _load_chapter(chapter_dir, files, documents, errors)
        if chapter is not None:
            chapters.append(chapter)
        versioned |= model_files(directory, chapter_dir)
        loaded_model = load_chapter_model(directory, chapter_dir, errors)
        if loaded_model is not None:
            models[chapter_dir], corpora[chapter_dir] = loaded_model
        for relative_path in sorted(files):
            if is_question_file(relative_path, chapter_dir) and relative_path in documents:
                loaded.extend(_load_questions(documents[relative_path], chapter_dir, errors))

    _check_unique_chapter_orders(chapters, documents, errors)
    _check_unique_question_ids(loaded, documents, errors)
    drill_params = _validate_drill_params(loaded, documents, drill_kinds, models, corpora, errors)
    located = [(item.question, item.source.file, item.index) for item in loaded]
    check_formulas(chapters, located, documents, CHAPTER_FILE, errors)

    if errors:
        raise BankError(sorted(set(errors), key=_error_sort_key))

    chapters.sort(key=lambda chapter: (chapter.order, chapter.id))
    chapter_rank = {chapter.id: rank for rank, chapter in enumerate(chapters)}
    loaded.sort(key=lambda item: chapter_rank[item.chapter_id])  # stable: keeps file order
    return Bank(
        chapters=tuple(chapters),
        questions=MappingProxyType({item.question.id: item.question for item in loaded}),
        chapter_of=MappingProxyType({item.question.id: item.chapter_id for item in loaded}),
        source_of=MappingProxyType({item.question.id: item.source for item in loaded}),
        drill_params=MappingProxyType(drill_params),
        version=content_version(versioned),
        models=MappingProxyType(models),
        corpora=MappingProxyType(corpora),
    )


def _error_sort_key(error: ContentError) -> tuple[str, int, str, str]:
    return (error.file, error.line or 0, error.path, error.message)


def _top_level_is_mapping(document: YamlDocument, errors: list[ContentError]) -> bool:
    if isinstance(document.data, dict):
        return True
    code = {list: ContentProblem.TOP_LEVEL_LIST, str: ContentProblem.TOP_LEVEL_STRING}.get(
        type(document.data), ContentProblem.TOP_LEVEL_VALUE
    )
    errors.append(ContentError.of(document.file, "", document.root.start_mark.line + 1, code))
    return False


def _load_chapter(
    chapter_dir: str,
    files: Mapping[str, bytes],
    documents: Mapping[str, YamlDocument],
    errors: list[ContentError],
) -> Chapter | None:
    chapter_path = f"{chapter_dir}/{CHAPTER_FILE}"
    if not any(is_question_file(relative_path, chapter_dir) for relative_path in files):
        errors.append(
            ContentError.of(f"{chapter_dir}/", "", None, ContentProblem.NO_QUESTION_FILES)
        )
    if chapter_path not in files:
        errors.append(
            ContentError.of(
                chapter_path, "", None, ContentProblem.MISSING_CHAPTER_FILE, name=CHAPTER_FILE
            )
        )
        return None
    document = documents.get(chapter_path)
    if document is None or not _top_level_is_mapping(document, errors):
        return None
    try:
        chapter = Chapter.model_validate(document.data)
    except ValidationError as exc:
        errors.extend(content_errors(document, exc))
        return None
    if chapter.id != chapter_dir:
        path, line = locate(document.root, ("id",))
        errors.append(
            ContentError.of(
                chapter_path,
                path,
                line,
                ContentProblem.CHAPTER_ID_MISMATCH,
                id=chapter.id,
                directory=chapter_dir,
            )
        )
        return None
    return chapter


def _load_questions(
    document: YamlDocument, chapter_dir: str, errors: list[ContentError]
) -> list[_LoadedQuestion]:
    if not _top_level_is_mapping(document, errors):
        return []
    items: list[tuple[int, Question]]
    try:
        items = list(enumerate(QuestionFile.model_validate(document.data).questions))
    except ValidationError as exc:
        errors.extend(content_errors(document, exc))
        # Keep the valid questions of a partly bad file, so that duplicate ids and
        # drill params are checked for them too and the author sees every error now.
        failed = {
            error["loc"][1]
            for error in exc.errors()
            if len(error["loc"]) > 1 and error["loc"][0] == "questions"
        }
        raw_items = document.data.get("questions")
        if not isinstance(raw_items, list):
            return []
        items = [
            (index, _QUESTION_ADAPTER.validate_python(raw))
            for index, raw in enumerate(raw_items)
            if index not in failed
        ]
    loaded = []
    for index, question in items:
        _, line = locate(document.root, ("questions", index))
        source = SourceLocation(document.file, line)
        loaded.append(_LoadedQuestion(question, chapter_dir, index, source))
    return loaded


def _check_unique_question_ids(
    loaded: Sequence[_LoadedQuestion],
    documents: Mapping[str, YamlDocument],
    errors: list[ContentError],
) -> None:
    first: dict[str, SourceLocation] = {}
    for item in sorted(loaded, key=lambda item: (item.source.file, item.index)):
        question_id = item.question.id
        if question_id not in first:
            first[question_id] = item.source
            continue
        document = documents[item.source.file]
        path, line = locate(document.root, ("questions", item.index, "id"))
        errors.append(
            ContentError.of(
                item.source.file,
                path,
                line,
                ContentProblem.DUPLICATE_QUESTION_ID,
                id=question_id,
                first=str(first[question_id]),
            )
        )


def _check_unique_chapter_orders(
    chapters: Sequence[Chapter],
    documents: Mapping[str, YamlDocument],
    errors: list[ContentError],
) -> None:
    # Two chapters with the same order would be listed in an order nobody chose.
    first: dict[int, str] = {}
    for chapter in sorted(chapters, key=lambda chapter: chapter.id):
        if chapter.order not in first:
            first[chapter.order] = chapter.id
            continue
        chapter_path = f"{chapter.id}/{CHAPTER_FILE}"
        path, line = locate(documents[chapter_path].root, ("order",))
        errors.append(
            ContentError.of(
                chapter_path,
                path,
                line,
                ContentProblem.DUPLICATE_ORDER,
                order=chapter.order,
                chapter=first[chapter.order],
            )
        )


def _validate_drill_params(
    loaded: Sequence[_LoadedQuestion],
    documents: Mapping[str, YamlDocument],
    drill_kinds: DrillKinds,
    models: Mapping[str, TrainedModel],
    corpora: Mapping[str, Corpus],
    errors: list[ContentError],
) -> dict[str, BaseModel]:
    """Each drill's params validated by its kind's params model, which is told the
    chapter's trained model (TRAINED_CORPUS, TRAINED_HEADS): its corpus, or None for a
    chapter without one, and its heads."""
    validated: dict[str, BaseModel] = {}
    for item in loaded:
        question = item.question
        if not isinstance(question, DrillQuestion):
            continue
        document = documents[item.source.file]
        index = item.index
        params_model = drill_kinds.get(question.kind)
        if params_model is None:
            path, line = locate(document.root, ("questions", index, "kind"))
            known = ", ".join(sorted(drill_kinds)) or "(none)"
            errors.append(
                ContentError.of(
                    document.file,
                    path,
                    line,
                    ContentProblem.UNKNOWN_DRILL_KIND,
                    kind=question.kind,
                    known=known,
                )
            )
            continue
        try:
            model = models.get(item.chapter_id)
            context = {
                TRAINED_CORPUS: corpora.get(item.chapter_id),
                TRAINED_HEADS: None if model is None else model.config.n_heads,
            }
            validated[question.id] = params_model.model_validate(question.params, context=context)
        except ValidationError as exc:
            errors.extend(content_errors(document, exc, prefix=("questions", index, "params")))
    return validated
