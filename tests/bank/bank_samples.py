"""A question file several bank test modules write (as ``ch/<name>.yaml``): valid as it is.

Lines of OPEN_QUESTION: 1 questions, 2 id, 3 type, 4 tags, 5 prompt, 6 reference_answer,
7 rubric, 8-11 its one rubric point.
"""

OPEN_QUESTION = """\
questions:
  - id: o1
    type: open
    tags: [multi_head]
    prompt: {zh: 为什么, en: Why}
    reference_answer: {zh: 因为, en: Because}
    rubric:
      - key: heads
        weight: 1
        description: {zh: 头, en: heads}
        phrases: {zh: [头], en: [head]}
"""
