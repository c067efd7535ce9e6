"""What a learner reads for a skill tag and a drill kind, and the English words among the
drills' tensor names and labels, in English; each is marked for the interface's translation
catalogs (``N_``), where its Chinese is."""

from __future__ import annotations

from quizsvc.messages import N_

# The skills the drills train and the chapter's questions are tagged with (`tags:` in the
# content, `DrillKind.skill`): what a learner reads instead of the tag.
SKILL_NAMES: dict[str, str] = {
    "embedding": N_("Embedding lookup"),
    "positional_encoding": N_("Positional encoding"),
    "qkv": N_("Q, K and V projections"),
    "scores": N_("Attention scores"),
    "softmax": N_("Softmax"),
    "masking": N_("Masking"),
    "attention_output": N_("Attention output"),
    "multi_head": N_("Multi-head attention"),
    "add_norm": N_("Add & Norm"),
    "ffn": N_("Feed-forward network"),
    "cross_attention": N_("Cross-attention"),
    "teacher_forcing": N_("Teacher forcing and the loss"),
    "decoding": N_("Decoding"),
}

# A drill's title, by its kind (`DRILL_KINDS`); the bank gives drills a prompt, not a title.
DRILL_TITLES: dict[str, str] = {
    "embedding_positional": N_("Embedding plus positional encoding: X' = X + PE"),
    "projection": N_("Projecting to Q, K or V"),
    "score_row": N_("One row of scaled attention scores"),
    "masked_score_row": N_("One row of scaled, masked attention scores"),
    "softmax_row": N_("The softmax of one row of scores"),
    "masked_row": N_("One row of masked attention weights"),
    "attention_output_row": N_("One token's attention output"),
    "multi_head": N_("The multi-head attention output"),
    "add_norm": N_("Add & Norm (residual + LayerNorm)"),
    "ffn_row": N_("The feed-forward network for one token"),
    "cross_attention_row": N_("Cross-attention for one position"),
    "teacher_forcing_loss": N_("The teacher-forcing cross-entropy loss"),
    "logit_gradient": N_("The loss gradient at the logits: softmax minus the target"),
    "greedy_next_token": N_("Greedy decoding: the next token"),
}

# The English words among the tensor names and row and column labels the drills write
# (symbols such as Q, W1, σ², x + Sublayer(x) and the tokens read the same in every language).
TENSOR_WORDS: frozenset[str] = frozenset(
    (
        N_("score"),
        N_("scores"),
        N_("scores1"),
        N_("scores2"),
        N_("scores3"),
        N_("masked scores"),
        N_("e^score"),
        N_("Σ e^score"),
        N_("weight"),
        N_("angle"),
        N_("ids"),
        N_("next token id"),
        N_("target"),
        N_("label"),
        N_("p(label)"),
        N_("decoder input"),
        N_("teacher forcing"),
        N_("Loss"),
        N_("hidden"),
        N_("pre-activation"),
        N_("centered"),
        N_("normalized"),
        N_("std"),
        N_("sum"),
    )
)
# A position's label: "pos 2", or with its token "pos 2 爱"
POSITION_LABEL = N_("pos {number}")
