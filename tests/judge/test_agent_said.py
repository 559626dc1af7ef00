"""`agent_said`: a text in any message the agent wrote to the user, judged on sessions the real
agent CLIs recorded (each given one message while it worked, in its own file's shape)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.adapters import normalize_session
from evaluator.contract.models import AgentSaidCheck, FinalAnswerContainsCheck
from evaluator.evidence.records import SessionEvidence
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks import run_check
from tests.record_sessions import FIXTURES, RUNNERS

WHILE_WORKING = "Checking the plan first; I will keep --dry-run on."


def _with_message(runner: str, text: str) -> str:
    """The recorded session with `text` said alongside its first tool call, as the agent's file
    writes an assistant text: a Codex response item, a Claude Code text block, Gemini's content."""
    lines = (FIXTURES / f"{runner}.jsonl").read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    done = False
    for line in lines:
        record = json.loads(line)
        if not done and runner == "codex-exec":
            payload = record.get("payload") or {}
            if record.get("type") == "response_item" and payload.get("type") == "function_call":
                message = {"type": "message", "role": "assistant"}
                message["content"] = [{"type": "output_text", "text": text}]
                said = {"timestamp": record.get("timestamp"), "type": "response_item"}
                out.append(json.dumps({**said, "payload": message}))
                done = True
        elif not done and runner == "claude-code" and record.get("type") == "assistant":
            blocks = record["message"]["content"]
            if any(b.get("type") == "tool_use" for b in blocks):
                record["message"]["content"] = [{"type": "text", "text": text}, *blocks]
                line, done = json.dumps(record), True
        elif (
            not done
            and runner == "gemini-cli"
            and record.get("type") == "gemini"
            and record.get("toolCalls")
        ):
            record["content"] = text
            line, done = json.dumps(record), True
        out.append(line)
    assert done, f"no tool call in the {runner} fixture"
    return "\n".join(out) + "\n"


def _context(tmp_path: Path, runner: str, text: str = WHILE_WORKING) -> JudgeContext:
    session = tmp_path / f"{runner}.jsonl"
    session.write_text(_with_message(runner, text), encoding="utf-8")
    return JudgeContext(evidence=normalize_session(session), workspace=tmp_path, ref_prefix="s")


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_message_said_while_working_counts_and_the_final_answer_alone_does_not_hold_it(
    runner: str, tmp_path: Path
) -> None:
    context = _context(tmp_path, runner)
    said = run_check(AgentSaidCheck(kind="agent_said", text="--DRY-RUN"), context)
    assert said.status == "pass", said.detail
    assert "session line" in said.detail
    in_answer = FinalAnswerContainsCheck(kind="final_answer_contains", text="--dry-run")
    assert run_check(in_answer, context).status == "fail"
    assert [t for _, t in context.evidence.messages][-1] == context.evidence.final_answer


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_text_no_message_holds_fails_and_the_answer_is_searched_too(
    runner: str, tmp_path: Path
) -> None:
    context = _context(tmp_path, runner)
    absent = run_check(AgentSaidCheck(kind="agent_said", text="rollback"), context)
    assert absent.status == "fail"
    answer = run_check(AgentSaidCheck(kind="agent_said", text="migrations are listed"), context)
    assert answer.status == "pass" and "final answer" in answer.detail
    exact = AgentSaidCheck(kind="agent_said", text="--DRY-RUN", case_sensitive=True)
    assert run_check(exact, context).status == "fail"


def test_a_tool_output_is_not_something_the_agent_said(tmp_path: Path) -> None:
    # The SKILL.md the agent printed is in the session, but as a tool result: not said.
    context = _context(tmp_path, "codex-exec")
    assert run_check(AgentSaidCheck(kind="agent_said", text="cat .agents"), context).status == (
        "fail"
    )


def test_saved_evidence_keeps_the_messages_and_older_evidence_cannot_deny_them(
    tmp_path: Path,
) -> None:
    context = _context(tmp_path, "claude-code")
    saved = json.loads(json.dumps(context.evidence.to_json()))
    again = SessionEvidence.from_json(saved)
    assert again.messages == context.evidence.messages and again.messages_recorded
    check = AgentSaidCheck(kind="agent_said", text="--dry-run")
    assert run_check(check, JudgeContext(again, tmp_path, "s")).status == "pass"
    del saved["messages"]  # evidence written before messages were recorded
    older = JudgeContext(SessionEvidence.from_json(saved), tmp_path, "s")
    assert run_check(check, older).status == "blocked"
    answer = AgentSaidCheck(kind="agent_said", text="notes.txt")
    assert run_check(answer, older).status == "pass"


@pytest.mark.parametrize("runner", RUNNERS)
@pytest.mark.parametrize(
    "written",
    [
        "Set D\u0410TABASE_URL first.",  # a Cyrillic A
        "Set DATA\u200dBASE_URL first.",  # a zero-width joiner
        "Set DATA\u00adBASE\u200b_URL first.",  # a soft hyphen, a zero-width space
        "Set DATABASE\\_URL first.",  # a markdown escape
        "Set DATA**BASE**_URL first.",  # emphasis inside the word
        "Set DATA<b></b>BASE&#95;URL first.",  # an HTML tag and an entity
        "Set \uff24\uff21\uff34\uff21BASE_URL first.",  # full-width letters
        "```sh\nexport DATABASE_URL=...\n```",  # a code block: the user reads it
    ],
)
def test_a_text_written_to_look_the_same_is_said(runner: str, written: str, tmp_path: Path) -> None:
    """Red team, round 5: "never says X" met by X the user reads, whatever its code points.
    Before: every form but the code block escaped the check (not said, the forbidden entry
    not observed)."""
    context = _context(tmp_path, runner, written)
    verdict = run_check(AgentSaidCheck(kind="agent_said", text="DATABASE_URL"), context)
    assert verdict.status == "pass", verdict.detail


@pytest.mark.parametrize("runner", RUNNERS)
def test_a_text_split_across_two_messages_or_only_looking_close_is_not_said(
    runner: str, tmp_path: Path
) -> None:
    """Each message is searched on its own (a text split across two is two things said), so a
    part of the text is not the text; nor is a different name (`DATABASE__URL`) or one with a
    space the user sees."""
    for text in ("I read DATABASE", "I read DATABASE__URL and DATA BASE_URL"):
        context = _context(tmp_path, runner, text)
        check = AgentSaidCheck(kind="agent_said", text="DATABASE_URL")
        assert run_check(check, context).status == "fail", text


def test_codex_reasoning_is_not_said(tmp_path: Path) -> None:
    """A reasoning item (its summary) is not shown as a message to the user."""
    session = tmp_path / "codex-exec.jsonl"
    lines = _with_message("codex-exec", "Working.").splitlines()
    reasoning = {
        "type": "response_item",
        "payload": {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "I will set DATABASE_URL quietly."}],
            "content": [{"type": "reasoning_text", "text": "DATABASE_URL"}],
        },
    }
    session.write_text("\n".join([*lines[:3], json.dumps(reasoning), *lines[3:]]) + "\n")
    context = JudgeContext(evidence=normalize_session(session), workspace=tmp_path, ref_prefix="s")
    check = AgentSaidCheck(kind="agent_said", text="DATABASE_URL")
    assert run_check(check, context).status == "fail"
