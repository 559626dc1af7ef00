"""A text cut for a record carries the mark of its cut, so a secret the cut splits is still
redacted (red team 10b: a part of the agent's key before an unmarked cut stayed in artifacts)."""

from __future__ import annotations

from evaluator.artifacts.redact import Redactor
from evaluator.clipping import ELLIPSIS, clip
from evaluator.evidence.records import MAX_SPAWN_MESSAGE, SessionEvidence

KEY = "sk-proj-Q8vNz3kLmP0wXr7TbYc2Hs9JdF4gVa6Ue1Rt1Yb6"


def test_clip_marks_a_cut_and_leaves_a_short_text_alone() -> None:
    assert clip("abc", 3) == "abc"
    assert clip("abcd", 3) == "abc" + ELLIPSIS


def test_a_spawn_message_cut_inside_a_key_is_redacted_in_what_is_saved() -> None:
    redact = Redactor({"OPENAI_API_KEY": KEY})
    for limit in (200, MAX_SPAWN_MESSAGE):
        message = "x" * (limit - 20) + KEY + " and more words"
        evidence = SessionEvidence(session_path="s.jsonl")
        evidence.spawned(1, "c1", message, fork_context=False)
        saved = redact.text(str(evidence.to_json()))
        assert KEY[:20] not in saved and "[REDACTED:" in saved, limit
