"""`script_ran`'s `command` must cover the script's own word (docs/file-reference.md,
`tool\\.py\\s+stats`). A pattern that names only an argument (`post`) is not met by the run
that gave it, and the fail says why rather than that no command matched: a real skill's author
wrote `command: post` for `node scripts/analyze.mjs post "$(cat draft.txt)"` and read "never by
a command matching /post/" beside that very command (docs/real-repos.md, round 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.contract.models import Case
from evaluator.evidence import SessionEvidence
from evaluator.judge import JudgeContext, judge_case


def _evidence(command: str) -> SessionEvidence:
    evidence = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
    evidence.add("command_observed", 3, command=command, workdir="/ws", exit_code=0, call_id="c1")
    evidence.add(
        "file_read_observed",
        3,
        path="/ws/s/analyze.mjs",
        access="exec",
        source="shell-parse",
        call_id="c1",
    )
    evidence.add("final_answer", 5, text="done")
    return evidence


def _judged(command: str, pattern: str) -> tuple[str, str]:
    check = {"kind": "script_ran", "path": "s/analyze.mjs", "command": pattern}
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": [{"description": "d", "checks": [check]}], "forbidden": []},
        }
    )
    context = JudgeContext(
        evidence=_evidence(command),
        workspace=Path("/ws"),
        ref_prefix="e.json",
        workspace_available=False,
    )
    (entry,) = judge_case(case, context).entries
    return entry.status, entry.checks[0].detail


RUN = 'node s/analyze.mjs post "$(cat draft.txt)"'


def test_an_argument_alone_fails_and_says_the_match_must_cover_the_script() -> None:
    status, detail = _judged(RUN, "post")
    assert status == "fail"
    assert "only beside the script" in detail and "cover the script's own word" in detail


@pytest.mark.parametrize(
    "command,pattern,expected,beside",
    [
        (RUN, r"analyze\.mjs\s+post", "pass", False),  # covering the script: met
        (RUN, r"analyze\.mjs\s+voice", "fail", False),  # not in the command at all
        (RUN, "voice", "fail", False),
        # Another command on the line names the word: no run with it, and not "beside" either.
        ("node s/analyze.mjs trends; echo post", "post", "fail", False),
    ],
)
def test_look_alikes(command: str, pattern: str, expected: str, beside: bool) -> None:
    status, detail = _judged(command, pattern)
    assert (status, "only beside the script" in detail) == (expected, beside), detail
