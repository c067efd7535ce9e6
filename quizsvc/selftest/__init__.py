"""Self-test of the question bank, in the spirit of PrairieLearn's element tests.

For every numeric question (once) and every drill (for several seeds) the answer key is put
through the real grader the way a learner's typed answer would be:

- ``expected``: the expected answer, typed at full precision, grades 100%;
- ``perturbed``: the same answer with a few cells off by a plausible mistake grades below
  100%, with exactly those cells marked wrong;
- ``tolerance``: every cell's accepted interval is well inside a plausible mistake, so a
  tolerance so loose that mistakes pass is reported even for cells not perturbed;
- ``malformed``: an answer of the wrong shape, and one that is not a number, are rejected
  (``AnswerRejected``) rather than graded;
- for drills, ``generate`` (the kind produces a variant, each formula of whose prompt and
  worked solution renders), and ``stored`` (the variant
  survives its JSON record and is reproduced from its seed and recorded params).

For every open question, ``reference (zh)`` and ``reference (en)``: the reference answer in
that language makes every rubric point, as the review queue's suggestion finds them. A point
none of whose phrases occurs in the model answer has a misspelt or missing phrase, and the
queue would suggest less than 100% for a right answer.

A *plausible mistake* does not depend on the question's tolerance (otherwise a huge
tolerance would only make the perturbation huge too): it is 0.1 or 10% of the value,
whichever is larger, i.e. a wrong first decimal of a value of the chapter's size.
Infinite cells (masked scores) are perturbed to 0, the classic mistake there.
"""

from quizsvc.selftest.findings import (
    CHECK_NAMES,
    FINDING_MESSAGES,
    Check,
    CheckName,
    Finding,
    Problem,
    QuestionReport,
    SelfTestReport,
    check_text,
    points_text,
)
from quizsvc.selftest.runner import (
    DEFAULT_SEEDS,
    answer_text,
    check_answer_key,
    plausible_mistake,
    run_selftest,
)

__all__ = [
    "CHECK_NAMES",
    "DEFAULT_SEEDS",
    "FINDING_MESSAGES",
    "Check",
    "CheckName",
    "Finding",
    "Problem",
    "QuestionReport",
    "SelfTestReport",
    "answer_text",
    "check_answer_key",
    "check_text",
    "plausible_mistake",
    "points_text",
    "run_selftest",
]
