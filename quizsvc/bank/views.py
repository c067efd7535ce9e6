"""What a learner may see of a question, rendered for one language.

``public_question`` is the only view meant for a learner who has not yet submitted:
it is built by naming the fields that may be shown (never by removing secret ones),
so a field added to the schema later stays hidden until someone decides otherwise.
"""

from __future__ import annotations

from typing import Any

from quizsvc.bank.markdown import render_markdown
from quizsvc.bank.numeric_answers import numeric_value_to_json
from quizsvc.bank.schema import (
    DrillQuestion,
    Lang,
    LocalizedText,
    MultipleChoiceQuestion,
    NumericQuestion,
    OpenQuestion,
    Question,
    SingleChoiceQuestion,
    Tolerance,
    localize,
    question_tries,
)


def _markdown_field(text: LocalizedText, lang: Lang, *, inline: bool = False) -> dict[str, str]:
    source = localize(text, lang)
    return {"markdown": source, "html": render_markdown(source, inline=inline)}


def _tolerance(tolerance: Tolerance) -> dict[str, float]:
    return {"atol": tolerance.atol, "rtol": tolerance.rtol}


def public_question(question: Question, lang: Lang) -> dict[str, Any]:
    """The learner-facing data of a question, safe to send before submission.

    Never contains the correct choice, choice scores, the numeric answer, the
    explanation, the reference answer or the rubric.  A numeric question does say
    the shape of its answer (so the UI can offer the right grid) and how close an
    answer must be; a drill's concrete numbers come from its generated instance.
    """
    view: dict[str, Any] = {
        "id": question.id,
        "type": question.type,
        "prompt": _markdown_field(question.prompt, lang),
        "tags": list(question.tags),
        "points": question.points,
    }
    if not isinstance(question, DrillQuestion):
        # stated before the first answer, as a drill's are
        view["attempts"], view["penalty"] = question_tries(question)
    match question:
        case SingleChoiceQuestion() | MultipleChoiceQuestion():
            view["choices"] = [
                {"id": choice.id, "text": _markdown_field(choice.text, lang, inline=True)}
                for choice in question.choices
            ]
        case NumericQuestion():
            view["answer_shape"] = list(question.answer_shape)
            view["tolerance"] = _tolerance(question.tolerance)
            view["all_or_nothing"] = question.all_or_nothing
        case DrillQuestion():
            view["kind"] = question.kind
            view["attempts"] = question.attempts
            view["penalty"] = question.penalty
            view["all_or_nothing"] = question.all_or_nothing
            view["tolerance"] = (
                None if question.tolerance is None else _tolerance(question.tolerance)
            )
        case OpenQuestion():
            pass
    return view


def solution_view(question: Question, lang: Lang) -> dict[str, Any]:
    """The answer key, for showing AFTER the learner has submitted.

    The public view plus the correct answer and its explanation.  For an open
    question the rubric's point descriptions are included, but not the phrases the
    grader looks for: those would teach learners to game the grader.
    """
    view = public_question(question, lang)
    match question:
        case SingleChoiceQuestion():
            view["correct"] = [question.correct]
            view["explanation"] = _markdown_field(question.explanation, lang)
        case MultipleChoiceQuestion():
            view["correct"] = list(question.correct_choice_ids)
            view["explanation"] = _markdown_field(question.explanation, lang)
        case NumericQuestion():
            view["answer"] = numeric_value_to_json(question.answer)
            view["explanation"] = _markdown_field(question.explanation, lang)
        case OpenQuestion():
            view["reference_answer"] = _markdown_field(question.reference_answer, lang)
            view["key_points"] = [
                {"key": point.key, "description": localize(point.description, lang)}
                for point in question.rubric
            ]
        case DrillQuestion():
            pass  # the worked solution belongs to the generated drill instance
    return view
