"""The loader's check of the formulas in the content's Markdown texts: each must convert to
MathML, or the author hears where it is (file, path and line) before any page shows it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from quizsvc.bank.markdown import formula_problems
from quizsvc.bank.parsing import YamlDocument, locate_text_line
from quizsvc.bank.problems import ContentError, ContentProblem
from quizsvc.bank.schema import LANGUAGES, Chapter, LocalizedText, Question

Location = tuple[str | int, ...]

# The fields rendered as Markdown (the schema marks them); a choice's text is one too.
_MARKDOWN_FIELDS = ("prompt", "explanation", "reference_answer")


def markdown_texts(question: Question) -> Iterator[tuple[Location, LocalizedText]]:
    """Each Markdown text of a question, located relative to the question."""
    for name in _MARKDOWN_FIELDS:
        text = getattr(question, name, None)
        if isinstance(text, LocalizedText):
            yield (name,), text
    for index, choice in enumerate(getattr(question, "choices", ())):
        yield ("choices", index, "text"), choice.text


def check_formulas(
    chapters: Sequence[Chapter],
    questions: Sequence[tuple[Question, str, int]],
    documents: Mapping[str, YamlDocument],
    chapter_file: str,
    errors: list[ContentError],
) -> None:
    """Report every formula that does not convert, in chapters' intros and in questions
    (each given with its file and its index in the file's ``questions:``)."""
    for chapter in chapters:
        if chapter.intro is not None:
            document = documents[f"{chapter.id}/{chapter_file}"]
            _check_text(document, ("intro",), chapter.intro, errors)
    for question, file, index in questions:
        for location, text in markdown_texts(question):
            _check_text(documents[file], ("questions", index, *location), text, errors)


def _check_text(
    document: YamlDocument, location: Location, text: LocalizedText, errors: list[ContentError]
) -> None:
    for lang in LANGUAGES:
        for problem in formula_problems(getattr(text, lang)):
            path, line = locate_text_line(document.root, (*location, lang), problem.line)
            errors.append(
                ContentError.of(
                    document.file,
                    path,
                    line,
                    ContentProblem.BAD_FORMULA,
                    tex=problem.tex,
                    reason=problem.reason,
                )
            )
