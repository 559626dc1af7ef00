"""Each adapter's trigger signal on what its real CLI records (the recorded sessions, edited):
Codex fires a skill when its SKILL.md body reaches the agent, Claude Code on a `Skill` tool
use; listing the skills folder, printing the front matter or naming the file is no trigger."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import get_adapter
from evaluator.evidence.triggers import SkillSource, Trigger
from tests.conftest import ROOT

RECORDED = Path(__file__).parents[1] / "fixtures" / "recorded"
SKILL_PATH = ".agents/skills/db-migrations/SKILL.md"
SKILL_TEXT = (ROOT / SKILL_PATH).read_text(encoding="utf-8")
DISTRACTOR_TEXT = """---
name: pdf-tools
description: Fill, merge and split PDF files.
---

# pdf-tools

Open the PDF with the bundled script before you change anything, then write the merged file
next to the original so that nothing the user had is ever overwritten by this skill.
"""
SKILLS = [
    SkillSource("db-migrations", SKILL_PATH, SKILL_TEXT),
    SkillSource("pdf-tools", ".agents/skills/pdf-tools/SKILL.md", DISTRACTOR_TEXT),
]
FRONT_MATTER = SKILL_TEXT.split("\n---\n", 1)[0] + "\n---\n"


def _lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (RECORDED / name).read_text().splitlines()]


def _write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def codex_session(tmp_path: Path, first_cmd: str, first_output: str) -> Path:
    """The recorded Codex rollout whose first call (`cat SKILL.md`, line 10) ran `first_cmd`
    and printed `first_output` (line 13); the third call (`ls migrations`, line 20) becomes a
    `cat` of the distractor's SKILL.md and prints it."""
    records = _lines("codex-exec.jsonl")
    records[9]["payload"]["arguments"] = json.dumps({"cmd": first_cmd})
    distractor = json.dumps({"cmd": "cat .agents/skills/pdf-tools/SKILL.md"})
    records[19]["payload"]["arguments"] = distractor
    head = records[12]["payload"]["output"].split("Output:\n", 1)[0]
    records[12]["payload"]["output"] = head + "Output:\n" + first_output
    third = records[22]["payload"]["output"].split("Output:\n", 1)[0]
    records[22]["payload"]["output"] = third + "Output:\n" + DISTRACTOR_TEXT
    return _write(tmp_path, records)


def codex_triggers(path: Path, *, whole_outputs: bool = True) -> list[Trigger]:
    adapter = get_adapter("codex")
    evidence = adapter.normalize(path)
    return adapter.skill_triggers(evidence, path if whole_outputs else None, SKILLS)


def test_codex_the_recorded_read_of_skill_md_is_a_trigger_on_the_first_call() -> None:
    adapter = get_adapter("codex")
    path = RECORDED / "codex-exec.jsonl"
    evidence = adapter.normalize(path)
    (trigger,) = adapter.skill_triggers(evidence, path, SKILLS)
    assert (trigger.skill, trigger.call, trigger.first) == ("db-migrations", 1, True)
    records = {r["id"]: r for r in evidence.iter_records()}
    assert records[trigger.record]["kind"] == "tool_result"
    assert records[str(trigger.call_record)]["kind"] == "tool_call"
    assert "cat .agents/skills/db-migrations/SKILL.md" in records[str(trigger.call_record)]["text"]


def test_codex_which_skill_fired_and_when(tmp_path: Path) -> None:
    path = codex_session(tmp_path, f"cat {SKILL_PATH}", SKILL_TEXT)
    found = {t.skill: t.call for t in codex_triggers(path)}
    assert found == {"db-migrations": 1, "pdf-tools": 3}


@pytest.mark.parametrize(
    ("cmd", "output"),
    [
        ("ls .agents/skills", "db-migrations\npdf-tools\n"),
        (
            "find .agents/skills -name SKILL.md",
            f"{SKILL_PATH}\n.agents/skills/pdf-tools/SKILL.md\n",
        ),
        (f"head -n 4 {SKILL_PATH}", FRONT_MATTER),
        (f"sed -n '1,/^---$/p' {SKILL_PATH}", FRONT_MATTER),
        (f"wc -l {SKILL_PATH}", f"{SKILL_TEXT.count(chr(10))} {SKILL_PATH}\n"),
        (f"cat {SKILL_PATH} > /dev/null", ""),
        (f"grep -c step {SKILL_PATH}", "4\n"),
    ],
    ids=["ls", "find", "front-matter-head", "front-matter-sed", "wc", "silent-cat", "grep-count"],
)
def test_codex_what_does_not_show_the_body_is_no_trigger(
    tmp_path: Path, cmd: str, output: str
) -> None:
    path = codex_session(tmp_path, cmd, output)
    assert [t.skill for t in codex_triggers(path)] == ["pdf-tools"]


@pytest.mark.parametrize(
    "cmd",
    [
        "echo {b64} | base64 -d",
        "cat migrations/README.md; echo {b64} | base64 -d",
        "printf '%s' {b64} > s.b64 && base64 -d s.b64",
    ],
    ids=["decoded", "beside-another-read", "own-file"],
)
def test_codex_the_body_typed_and_decoded_is_no_trigger(tmp_path: Path, cmd: str) -> None:
    """Red team, round 4: SKILL.md's body typed as base64 and decoded (alone, beside a read of
    another file, through a file the agent wrote) fired the skill though it never loaded."""
    encoded = base64.b64encode(SKILL_TEXT.encode()).decode()
    path = codex_session(tmp_path, cmd.format(b64=encoded), SKILL_TEXT)
    assert [t.skill for t in codex_triggers(path)] == ["pdf-tools"]


@pytest.mark.parametrize(
    ("copy", "read", "fired"),
    [
        (f"cp {SKILL_PATH} n.md", "cat n.md", True),
        ("cp -r .agents/skills/db-migrations notes", "cat notes/SKILL.md", True),
        (f"mkdir x && cat {SKILL_PATH} > x/n.md", "cat x/n.md", True),
        (f"tee n.md < {SKILL_PATH} > /dev/null", "grep -r . n.md", True),
        # text the agent typed into the file stays its own (round 2)
        ("echo {b64} > n.b64", "base64 -d n.b64", False),
    ],
    ids=["cp", "cp-r", "redirected", "tee", "typed"],
)
def test_codex_the_body_read_through_a_copy_is_a_trigger(
    tmp_path: Path, copy: str, read: str, fired: bool
) -> None:
    """Red team, round 9: SKILL.md copied by one call and the copy printed by a later one: the
    body reached the agent, but the later output was held to the files its call read, the copy
    alone, and the skill never fired (a trigger prompt that should not fire then counted as
    right). A file the session wrote may hold what its writer read."""
    encoded = base64.b64encode(SKILL_TEXT.encode()).decode()
    records = _lines("codex-exec.jsonl")
    records[9]["payload"]["arguments"] = json.dumps({"cmd": copy.format(b64=encoded)})
    head = records[12]["payload"]["output"].split("Output:\n", 1)[0]
    records[12]["payload"]["output"] = head + "Output:\n"
    records[19]["payload"]["arguments"] = json.dumps({"cmd": read})
    third = records[22]["payload"]["output"].split("Output:\n", 1)[0]
    records[22]["payload"]["output"] = third + "Output:\n" + SKILL_TEXT
    triggers = codex_triggers(_write(tmp_path, records))
    assert [(t.skill, t.call) for t in triggers] == ([("db-migrations", 3)] if fired else [])


def test_codex_a_partial_body_read_is_a_trigger(tmp_path: Path) -> None:
    body = SKILL_TEXT.split("\n---\n", 1)[1]
    shown = "\n".join(body.strip().splitlines()[:6]) + "\n"
    path = codex_session(tmp_path, f"sed -n '5,12p' {SKILL_PATH}", shown)
    triggers = {t.skill: t for t in codex_triggers(path)}
    assert triggers["db-migrations"].call == 1
    assert "SKILL.md body shown" in str(triggers["db-migrations"].detail)


def test_codex_without_the_session_file_the_excerpts_decide(tmp_path: Path) -> None:
    path = codex_session(tmp_path, f"cat {SKILL_PATH}", SKILL_TEXT)
    assert {t.skill for t in codex_triggers(path, whole_outputs=False)} == {
        "db-migrations",
        "pdf-tools",
    }


def claude_session(tmp_path: Path, first_call: dict[str, Any], result: str, **extra: Any) -> Path:
    """The recorded Claude Code transcript whose first tool use (line 5) is `first_call`,
    answered by `result` (line 6)."""
    records = _lines("claude-code.jsonl")
    block = records[4]["message"]["content"][0]
    block["name"], block["input"] = first_call["name"], first_call["input"]
    answer = records[5]["message"]["content"][0]
    answer["content"] = result
    answer.update(extra)
    return _write(tmp_path, records)


def claude_triggers(path: Path) -> list[Trigger]:
    adapter = get_adapter("claude")
    return adapter.skill_triggers(adapter.normalize(path), path, SKILLS)


def test_claude_a_skill_tool_use_naming_the_skill_is_a_trigger(tmp_path: Path) -> None:
    path = claude_session(
        tmp_path, {"name": "Skill", "input": {"skill": "db-migrations"}}, "Launching skill"
    )
    (trigger,) = claude_triggers(path)
    assert (trigger.skill, trigger.call, trigger.first) == ("db-migrations", 1, True)
    evidence = get_adapter("claude").normalize(path)
    record = {r["id"]: r for r in evidence.iter_records()}[trigger.record]
    assert (record["kind"], record["tool"]) == ("tool_call", "Skill")


def test_claude_a_slash_name_and_the_other_skill(tmp_path: Path) -> None:
    path = claude_session(tmp_path, {"name": "Skill", "input": {"skill": "/pdf-tools"}}, "ok")
    assert [(t.skill, t.call) for t in claude_triggers(path)] == [("pdf-tools", 1)]


@pytest.mark.parametrize(
    "call",
    [
        {"name": "Bash", "input": {"command": f"cat {SKILL_PATH}"}},
        {"name": "Read", "input": {"file_path": SKILL_PATH}},
    ],
    ids=["bash-cat", "read"],
)
def test_claude_the_body_shown_is_a_trigger(tmp_path: Path, call: dict[str, Any]) -> None:
    """Red team 20: the skill's instructions reached the agent without its Skill tool (before:
    no trigger, so a read on a should-not-fire prompt counted as right)."""
    (trigger,) = claude_triggers(claude_session(tmp_path, call, SKILL_TEXT))
    assert (trigger.skill, trigger.call) == ("db-migrations", 1)
    assert trigger.detail.startswith("SKILL.md body shown")


@pytest.mark.parametrize(
    ("call", "result", "extra"),
    [
        ({"name": "Bash", "input": {"command": f"head -n 4 {SKILL_PATH}"}}, FRONT_MATTER, {}),
        ({"name": "Bash", "input": {"command": "ls .claude/skills"}}, "db-migrations\n", {}),
        ({"name": "Skill", "input": {"skill": "unknown-skill"}}, "Unknown skill", {}),
        (
            {"name": "Skill", "input": {"skill": "db-migrations"}},
            "Unknown skill: db-migrations",
            {"is_error": True},
        ),
    ],
    ids=["front-matter", "ls", "other-name", "failed-skill-call"],
)
def test_claude_no_skill_tool_use_no_trigger(
    tmp_path: Path, call: dict[str, Any], result: str, extra: dict[str, Any]
) -> None:
    assert claude_triggers(claude_session(tmp_path, call, result, **extra)) == []


def test_claude_the_recorded_read_of_skill_md_is_a_trigger() -> None:
    """It reads SKILL.md with Bash, without the Skill tool: the body reached the agent, a
    trigger on that call, cited at its output (red team 20: before, none)."""
    (trigger,) = claude_triggers(RECORDED / "claude-code.jsonl")
    assert (trigger.skill, trigger.call, trigger.record, trigger.call_record) == (
        "db-migrations",
        1,
        "msg-3",
        "msg-2",
    )
