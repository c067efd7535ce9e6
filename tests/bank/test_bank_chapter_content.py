"""The chapter's own content under content/ loads and says what the chapter says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from quizsvc import practice
from quizsvc.bank import (
    Bank,
    DrillQuestion,
    LocalizedText,
    MultipleChoiceQuestion,
    OpenQuestion,
    SingleChoiceQuestion,
    load_bank,
)
from quizsvc.grading import suggest_open_score

REPO_CONTENT_DIR = Path(__file__).resolve().parents[2] / "content"
CHAPTER_ID = "transformer-by-hand"


# How the chapter prints each formula the content writes in LaTeX (between dollar signs):
# a text with its formulas printed so is the chapter's own.
CHAPTER_NOTATION = {
    r"\sqrt{d_k}": "√d_k",
    "d_k": "d_k",
    "d_k=64": "d_k=64",
    r"-\infty": "-∞",
    "j > i": "j > i",
    "W_q": "Wq",
    "W_k": "Wk",
    "W_v": "Wv",
    r"Q = X \times W_q": "Q = X × Wq",
    r"K = X \times W_k": "K = X × Wk",
    r"V = X \times W_v": "V = X × Wv",
    "Q = K = V = X": "Q = K = V = X",
}


def as_printed(text: str) -> str:
    """``text`` with each formula as the chapter prints it (KeyError for one it does not)."""
    return re.sub(r"\$([^$]+)\$", lambda m: CHAPTER_NOTATION[m[1]], text)


# 章节测试 1-4, copied from the chapter: prompt, then options A-D.
CHAPTER_TESTS = {
    "qkv-origin": (
        "Q、K、V 是从哪里算出来的？",
        [
            "直接从 Embedding 矩阵查表得到",
            "Q = X × Wq, K = X × Wk, V = X × Wv，其中 Wq/Wk/Wv 是可训练参数",
            "Q、K、V 是固定的常数",
            "Q = K = V = X（输入本身）",
        ],
    ),
    "scaling-by-sqrt-dk": (
        "Self-Attention 中 Softmax 之前为什么要除以 √d_k？",
        [
            "为了把数值映射到 [0, 1] 区间",
            "防止点积值过大导致 Softmax 梯度消失",
            "为了让 Attention Weights 变成对称矩阵",
            "为了减少计算量",
        ],
    ),
    "masked-self-attention": (
        "Masked Self-Attention 和普通 Self-Attention 的区别是什么？",
        [
            "Masked 版本不计算 V",
            'Masked 版本在 Softmax 前把未来位置的分数设为 -∞，使模型无法"偷看"后面的 token',
            "Masked 版本只用在 Encoder 中",
            "两者完全相同",
        ],
    ),
    "cross-attention-sources": (
        "Cross-Attention 中 Q、K、V 分别来自哪里？",
        [
            "Q、K、V 都来自 Encoder",
            "Q 来自 Decoder，K 和 V 来自 Encoder",
            "Q、K、V 都来自 Decoder",
            "Q 来自 Encoder，K 和 V 来自 Decoder",
        ],
    ),
}

# The first sentence of each 参考答案, without its opening "答案：B。": each learner sees the
# choices in an order of their own, lettered A, B, C, ... down the page, so the chapter's
# letter would name another choice (the one departure from its text; docs/authoring.md).
EXPLANATION_OPENINGS = {
    "qkv-origin": "Q、K、V 是通过输入 X 分别乘以三个可训练的权重矩阵 Wq、Wk、Wv 得到的。",
    "scaling-by-sqrt-dk": "当 d_k 很大时（实际中 d_k=64 或更大），Q 和 K 的点积值会很大。",
    "masked-self-attention": "Masked Self-Attention 在计算 Attention Weights 时，",
    "cross-attention-sources": "Cross-Attention 中，Q（查询）来自 Decoder 的上一层输出，",
}

# A choice named by a letter in a text shown beside the choices: "答案：B", "选 C", "选项 A",
# "(B)", "Answer: B", "the answer is C", "option D", "choice A".
_ZH_LETTER = r"(?:答案|选项|选择|选)\s*(?:是|为)?\s*[：:]?\s*[（(]?\s*([A-Z])(?![A-Za-z])"
_EN_LETTER = (
    r"(?i:\b(?:answers?|options?|choices?)\b)(?:\s+(?:is|are))?\s*[:：]?\s*[(（]?\s*"
    r"([A-Z])(?![A-Za-z])"
)
_BARE_LETTER = r"^\s*(?:[(（]([A-Z])[)）]|([A-Z])\s*[.。:：])"  # "B." or "(B)" opening the text


def letters_named(text: str, letters: set[str]) -> list[str]:
    """The choice letters (of ``letters``) that ``text`` names as an answer or an option."""
    found = []
    for pattern in (_ZH_LETTER, _EN_LETTER, _BARE_LETTER):
        for match in re.finditer(pattern, text):
            if match.group(match.lastindex) in letters:
                found.append(match.group(match.lastindex))
    return found


def test_the_letter_finder_finds_a_named_choice_and_nothing_else() -> None:
    abcd = {"A", "B", "C", "D"}
    for text in (
        "答案：B。Q、K、V",
        "应选 C",
        "选项（A）不对",
        "Answer: B. Q, K",
        "B. because",
        "the answer is D",
        "Option A is wrong",
        "(C) since",
        "choices A and B",
    ):
        assert letters_named(text, abcd), text
    for text in (
        "Q、K、V 是通过输入 X",
        "A mask keeps it",
        "Q, K and V all come from",
        "Wq/Wk/Wv",
        "the correct answer (the target)",
        "答案至少举出一种",
    ):
        assert not letters_named(text, abcd), text


def test_no_explanation_of_a_choice_question_names_a_choice_by_its_letter(bank: Bank) -> None:
    """The page letters the choices in each learner's own order: a letter in the explanation
    (the chapter's "答案：B。") would name another choice than the one meant."""
    checked = 0
    for question in bank.questions.values():
        if not isinstance(question, SingleChoiceQuestion | MultipleChoiceQuestion):
            continue
        # every letter a learner's page may show, and the ids the content names choices by
        letters = {chr(ord("A") + n) for n in range(len(question.choices))}
        letters |= {choice.id for choice in question.choices}
        for lang in ("zh", "en"):
            named = letters_named(getattr(question.explanation, lang), letters)
            assert not named, (question.id, lang, named)
            checked += 1
    assert checked == 8  # the chapter's four tests, in both languages


class NoParams(BaseModel):
    # The content uses no params keys at all: every kind's defaults are the chapter's sizes.
    model_config = {"extra": "forbid"}


@pytest.fixture(scope="module")
def bank(real_drill_kinds: tuple[str, ...]) -> Bank:
    return load_bank(REPO_CONTENT_DIR, dict.fromkeys(real_drill_kinds, NoParams))


def test_one_chapter_with_the_chapter_title(bank: Bank) -> None:
    assert [chapter.id for chapter in bank.chapters] == [CHAPTER_ID]
    title = bank.chapter(CHAPTER_ID).title
    assert title.zh == "Transformer 手动计算：从 Attention 到 Encoder-Decoder 完整数据流"
    assert title.en.startswith("Transformer by Hand")


def test_question_counts_by_type(bank: Bank) -> None:
    types = [question.type for question in bank.questions_in(CHAPTER_ID)]
    assert sorted(types) == sorted(["single_choice"] * 4 + ["open"] * 2 + ["drill"] * 14)
    assert set(bank.chapter_of.values()) == {CHAPTER_ID}


@pytest.mark.parametrize("question_id", sorted(CHAPTER_TESTS))
def test_single_choice_questions_are_the_chapter_tests(bank: Bank, question_id: str) -> None:
    question = bank.questions[question_id]
    assert isinstance(question, SingleChoiceQuestion)
    prompt, options = CHAPTER_TESTS[question_id]
    assert as_printed(question.prompt.zh) == prompt
    assert [choice.id for choice in question.choices] == ["A", "B", "C", "D"]
    assert [as_printed(choice.text.zh) for choice in question.choices] == options
    assert question.correct == "B"
    assert as_printed(question.explanation.zh).startswith(EXPLANATION_OPENINGS[question_id])
    assert not question.explanation.en.startswith("Answer")


def test_open_questions_carry_the_reference_answers_and_rubrics(bank: Bank) -> None:
    forcing = bank.questions["teacher-forcing-vs-autoregressive"]
    heads = bank.questions["why-multi-head"]
    assert isinstance(forcing, OpenQuestion)
    assert isinstance(heads, OpenQuestion)
    assert forcing.prompt.zh == "训练时的 Teacher Forcing 和推理时的 Auto-Regressive 有什么区别？"
    assert heads.prompt.zh == "为什么 Multi-Head Attention 需要多个头？"
    assert forcing.reference_answer.zh.endswith(
        "核心差异：训练用真实答案（快），推理用自己的预测（慢）。"
    )
    assert heads.reference_answer.zh.startswith(
        '一个 Attention 头只能学到一种"关系模式"（比如主谓关系）。'
    )
    # the contrast the chapter draws (section 8.1), and how its loss adds up the positions
    assert [point.key for point in forcing.rubric] == [
        "teacher-forcing-feeds-truth",
        "parallel-training",
        "per-position-losses-combined",
        "autoregressive-inference",
        "sequential-inference-is-slow",
        "mask-prevents-peeking",
    ]
    # section 5: one pattern per head, several angles, own weights, concatenation and Wo
    assert [point.key for point in heads.rubric] == [
        "one-pattern-per-head",
        "several-perspectives",
        "independent-projections",
        "concatenate-outputs",
    ]
    for question in (forcing, heads):
        assert sum(point.weight for point in question.rubric) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("question_id", "answer", "suggested"),
    [
        # restating the question's own terms earns nothing
        (
            "teacher-forcing-vs-autoregressive",
            "Teacher Forcing 是训练时用的，Auto-Regressive 是推理时用的。",
            0.0,
        ),
        (
            "teacher-forcing-vs-autoregressive",
            "Teacher forcing is used in training and auto-regressive generation in inference.",
            0.0,
        ),
        # the ideas in other words: truth fed in (0.2), one pass (0.2), own tokens (0.2)
        (
            "teacher-forcing-vs-autoregressive",
            "In training the decoder gets the reference translation shifted right and computes "
            "every position in one go; at inference it feeds each generated token back.",
            0.6,
        ),
        (
            "teacher-forcing-vs-autoregressive",
            "训练时把标注好的译文整体喂给 Decoder，一遍算出所有位置；"
            "推理时一步一步地把模型生成的词接到输入后面。",
            0.6,
        ),
        # how the positions' losses combine (0.2), and what step-by-step inference costs (0.1)
        (
            "teacher-forcing-vs-autoregressive",
            "The loss is the cross-entropy at every position, summed over the sentence; "
            "generating N tokens needs N forward passes, one after the other.",
            0.3,
        ),
        (
            "teacher-forcing-vs-autoregressive",
            "每个位置算一个交叉熵，再把所有位置的误差加起来；推理要 N 次前向传播，一次接一次。",
            0.3,
        ),
        # the paper's wording: different representation subspaces (0.35)
        (
            "why-multi-head",
            "Heads attend to information from different representation subspaces.",
            0.35,
        ),
        ("why-multi-head", "不同的头关注不同的表示子空间。", 0.35),
    ],
)
def test_open_rubrics_credit_ideas_not_the_question_s_own_terms(
    bank: Bank, question_id, answer, suggested
) -> None:
    question = bank.questions[question_id]
    score = suggest_open_score(answer, practice.rubric_points(question)).score
    assert score == pytest.approx(suggested)


@pytest.mark.parametrize("question_id", ["teacher-forcing-vs-autoregressive", "why-multi-head"])
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_reference_answers_earn_the_full_suggestion(bank: Bank, question_id, lang) -> None:
    question = bank.questions[question_id]
    answer = getattr(question.reference_answer, lang)
    assert suggest_open_score(answer, practice.rubric_points(question)).score == pytest.approx(1.0)


def test_one_drill_per_real_kind(bank: Bank, real_drill_kinds: tuple[str, ...]) -> None:
    drills = [q for q in bank.questions.values() if isinstance(q, DrillQuestion)]
    assert sorted(drill.kind for drill in drills) == sorted(real_drill_kinds)
    # kinds whose tolerance depends on their params choose it per variant
    chosen_by_the_kind = {"multi_head", "cross_attention_row", "teacher_forcing_loss"}
    for drill in drills:
        assert drill.params == {}
        assert (drill.tolerance is None) == (drill.kind in chosen_by_the_kind), drill.id
        assert drill.tags
        assert isinstance(bank.drill_params[drill.id], NoParams)


def test_greedy_decoding_drill_is_exact_and_single_try(bank: Bank) -> None:
    drill = bank.questions["drill-greedy-next-token"]
    assert isinstance(drill, DrillQuestion)
    assert (drill.attempts, drill.all_or_nothing) == (1, True)
    assert drill.tolerance is not None and drill.tolerance.atol == 0


def _localized_texts(value: object) -> list[LocalizedText]:
    if isinstance(value, LocalizedText):
        return [value]
    if isinstance(value, BaseModel):
        return [
            t for name in type(value).model_fields for t in _localized_texts(getattr(value, name))
        ]
    if isinstance(value, tuple | list):
        return [t for item in value for t in _localized_texts(item)]
    return []


def test_every_text_has_chinese_and_english(bank: Bank) -> None:
    texts = _localized_texts(list(bank.chapters)) + _localized_texts(list(bank.questions.values()))
    # 20 prompts + 16 choice texts + 4 explanations + 2 reference answers
    # + 10 rubric descriptions (6 + 4) + chapter title and intro.
    assert len(texts) == 20 + 16 + 4 + 2 + 10 + 2
    for text in texts:
        assert text.zh.strip() and text.en.strip()
        assert text.zh != text.en


def test_every_question_says_where_it_is_written(bank: Bank) -> None:
    assert str(bank.source_of["qkv-origin"]) == f"{CHAPTER_ID}/questions.yaml:4"
    assert bank.source_of["drill-projection"].file == f"{CHAPTER_ID}/drills.yaml"


# A formula written as the chapter prints it, outside dollar signs: a square root, a
# transpose, a subscript, Greek letters or infinity in the prose (code shows what to type:
# `-∞`), or an equation in code.
PLAIN_NOTATION = re.compile(r"√|\^T|\bd_k\b|\bd_model\b|[σμεγβΣ∞]")
CODE_FORMULA = re.compile(r"`[^`]*[=×/][^`]*`")


def test_the_formulas_of_prompts_choices_and_explanations_are_latex(bank: Bank) -> None:
    from quizsvc.bank.formulas import markdown_texts

    checked = 0
    for question in bank.questions.values():
        for location, text in markdown_texts(question):
            if location == ("reference_answer",):
                continue  # the chapter's model answer, whose words the rubric's phrases match
            for lang in ("zh", "en"):
                prose = re.sub(r"\$\$.+?\$\$|\$[^$]+\$", "", getattr(text, lang), flags=re.S)
                assert not CODE_FORMULA.findall(prose), (question.id, location, lang, prose)
                prose = re.sub(r"`[^`]*`", "", prose)
                assert not PLAIN_NOTATION.findall(prose), (question.id, location, lang, prose)
                checked += 1
    assert checked == 2 * (20 + 16 + 4)
    drill_prompts = [q.prompt.en for q in bank.questions.values() if isinstance(q, DrillQuestion)]
    assert sum("$" in prompt for prompt in drill_prompts) >= 12  # all but greedy decoding's
