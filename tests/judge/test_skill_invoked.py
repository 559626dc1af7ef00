"""`skill_invoked` and the prose that compiles to it ("The db-migrations skill is invoked"):
decided by the agent's own trigger signal, the one `agentic-eval triggers` reads, on what each
real CLI records (the recorded sessions of `test_trigger_signals.py`, edited), wired as a run
and a re-judge wire it (`pipeline/skill_watch.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import agent_names, get_adapter
from evaluator.contract.models import AssertionEntry, Case
from evaluator.evidence.triggers import Trigger, TriggerUndecidable
from evaluator.judge import JudgeContext, judge_case
from evaluator.judge.base import SkillTriggers
from evaluator.judge.criteria import compile_entry
from evaluator.judge.skill_vocabulary import skill_vocabulary
from evaluator.pipeline.skill_watch import target_skill_triggers
from evaluator.plan import open_repo
from tests.conftest import ROOT
from tests.triggers.test_trigger_signals import (
    FRONT_MATTER,
    SKILL_PATH,
    SKILL_TEXT,
    claude_session,
    codex_session,
)

DEMO = ROOT / "agentic-evals"


def _judged(check: dict[str, Any], adapter_name: str, path: Path) -> str:
    repo = open_repo(DEMO, None, target="db-migrations")
    target = repo.targets["db-migrations"]
    adapter = get_adapter(adapter_name)
    evidence = adapter.normalize(path)
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": [{"description": "d", "checks": [check]}]},
        }
    )
    context = JudgeContext(
        evidence=evidence,
        workspace=Path("/ws"),
        ref_prefix="e.json",
        workspace_available=False,
        skill_triggers=target_skill_triggers(
            adapter, target, repo.source_workspace, evidence, path
        ),
    )
    return judge_case(case, context).entries[0].status


FIRED = {"kind": "skill_invoked", "skill": "db-migrations"}
NOT_FIRED = {"not": FIRED}


@pytest.mark.parametrize(
    ("cmd", "output", "expected"),
    [
        (f"cat {SKILL_PATH}", SKILL_TEXT, "pass"),
        ("ls .agents/skills", "db-migrations\npdf-tools\n", "fail"),
        (f"head -n 4 {SKILL_PATH}", FRONT_MATTER, "fail"),
        (f"cat {SKILL_PATH} > /dev/null", "", "fail"),
    ],
    ids=["cat", "ls", "front-matter", "silent-cat"],
)
def test_codex_the_skill_is_invoked_when_its_body_reached_the_agent(
    tmp_path: Path, cmd: str, output: str, expected: str
) -> None:
    path = codex_session(tmp_path, cmd, output)
    assert _judged(FIRED, "codex", path) == expected
    assert _judged(NOT_FIRED, "codex", path) == ("fail" if expected == "pass" else "pass")


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ({"name": "Skill", "input": {"skill": "db-migrations"}}, "pass"),
        ({"name": "Skill", "input": {"skill": "/db-migrations"}}, "pass"),
        ({"name": "Skill", "input": {"skill": "pdf-tools"}}, "fail"),
        # Claude Code's signal is its Skill tool, as for `agentic-eval triggers`
        ({"name": "Bash", "input": {"command": f"ls {SKILL_PATH}"}}, "fail"),
    ],
    ids=["skill-tool", "slash-name", "other-skill", "no-skill-tool"],
)
def test_claude_the_skill_is_invoked_by_its_skill_tool(
    tmp_path: Path, call: dict[str, Any], expected: str
) -> None:
    path = claude_session(tmp_path, call, "Launching skill")
    assert _judged(FIRED, "claude", path) == expected


def test_what_no_trigger_signal_can_tell_is_blocked(tmp_path: Path) -> None:
    path = claude_session(tmp_path, {"name": "Skill", "input": {"skill": "db-migrations"}}, "ok")
    # only the target skill is watched: another skill's firing is not known
    assert _judged({"kind": "skill_invoked", "skill": "pdf-tools"}, "claude", path) == "blocked"
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": [{"description": "d", "checks": [FIRED]}]},
        }
    )
    evidence = get_adapter("claude").normalize(path)
    bare = JudgeContext(evidence=evidence, workspace=Path("/ws"), ref_prefix="e.json")
    assert judge_case(case, bare).entries[0].status == "blocked"  # no reader: no skill, no agent

    def undecidable() -> list[Trigger]:
        raise TriggerUndecidable("the session records no tool outputs")

    context = JudgeContext(
        evidence=evidence,
        workspace=Path("/ws"),
        ref_prefix="e.json",
        skill_triggers=SkillTriggers("db-migrations", undecidable),
    )
    assert judge_case(case, context).entries[0].status == "blocked"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The db-migrations skill is invoked", "pass"),
        ("The `db-migrations` skill is loaded.", "pass"),
        ("The agent uses the db-migrations skill.", "pass"),
        ("The db-migrations skill is NOT invoked", "fail"),
        ("The agent does not invoke the db-migrations skill.", "fail"),
    ],
)
def test_prose_naming_the_target_skill_compiles_and_is_judged(
    tmp_path: Path, sentence: str, expected: str
) -> None:
    vocabulary = skill_vocabulary(DEMO.parent / SKILL_PATH, agent_names())
    compiled = compile_entry(AssertionEntry(description=sentence), "required", vocabulary)
    assert compiled is not None and len(compiled.checks) == 1
    check = compiled.checks[0].model_dump(mode="json", by_alias=True, exclude_none=True)
    path = codex_session(tmp_path, f"cat {SKILL_PATH}", SKILL_TEXT)
    assert _judged(check, "codex", path) == expected
