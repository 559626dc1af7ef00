"""A skill with `allowed-tools` in its front matter, and commands Claude Code runs itself when it
loads a skill (round 8, docs/real-repos.md: `agairola/life-skills`' `park-alerts`, whose
SKILL.md says `allowed-tools: Bash(uv run *), Read`, checks for `uv` with a pre-run
``!`command -v uv ...` `` and names its script by `${CLAUDE_SKILL_DIR}`).

Claude Code 2.1.197 asks before it loads a skill that grants tools; with nobody to ask (`-p`)
and `Skill` not among the run's allowed tools, it refused every such skill under the default
`acceptEdits`: the run's agent never read it and a trigger run saw no skill fire. Once it loads,
Claude Code runs the body's pre-run commands through its Bash tool and puts their output in the
body; the session records no call for them, so the trace's call for each was one "the session
does not record", and that disagreement kept the trace from vouching for the opaque commands
of the same attempt (`blocked`, unverifiable). Such a command is now recorded as the Skill call's
own, read from the folder the loaded body names, when the body no longer holds its text.

Our own skill; the real Claude Code with the default layers (jail and trace), and the parser over
a transcript of that shape with its look-alikes (a `!` that is no pre-run, a command the body
still holds, a Skill call that failed, a body naming no folder).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import normalize_session
from evaluator.pipeline.run import RunOptions
from evaluator.pipeline.triggers import TriggerOptions, TriggerRun
from tests.support import agent_or_skip, layers_or_skip, run_scripted_repo, scratch_dir

NAME = "trail-status"
PROMPT = "Is the Ridge trail open? Use the trail-status skill."
OTHER = "What is the capital of France?"
PRERUN = 'command -v python3 > /dev/null 2>&1 && echo "python3: found" || echo "python3: missing"'
BLOCK = "echo trails-ready"
STATUS = "import sys\nprint('Ridge: open' if 'Ridge' in sys.argv[1:] else 'unknown trail')\n"


def _skill_md(granted: bool = True) -> str:
    grant = "allowed-tools: Bash(python3 *), Read\n" if granted else ""
    return (
        f"---\nname: {NAME}\ndescription: Tells whether a hiking trail is open. Use when the user"
        f" asks about a trail.\n{grant}---\n\n# Trail status\n\n## Setup\n\n!`{PRERUN}`\n\n"
        f"```!\n{BLOCK}\n```\n\nNot run: a!`echo glued` and `echo plain`.\n\n## Use\n\n"
        '`python3 "${CLAUDE_SKILL_DIR}/scripts/status.py" TRAIL`\n'
    )


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "scripts").mkdir(parents=True)
    (skill / "evals").mkdir()
    (skill / "SKILL.md").write_text(_skill_md())
    (skill / "scripts/status.py").write_text(STATUS)
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "Ridge is open.",
                "must_have": ["Ridge: open"],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    (skill / "evals/trigger_evals.json").write_text(
        json.dumps(
            [{"query": PROMPT, "should_trigger": True}, {"query": OTHER, "should_trigger": False}]
        )
    )
    return skill / "evals/evals.json"


def _behaviors(root: Path, fires: list[dict[str, Any]], *, other: bool = True) -> Path:
    behaviors = root / "behaviors"
    behaviors.mkdir()
    answers = [("answers", OTHER, [])] if other else []
    for name, prompt, steps in (("fires", PROMPT, fires), *answers):
        body = {
            "name": name,
            "match": {"prompt_contains": prompt},
            "steps": [*steps, {"final": "Ridge: open."}],
        }
        (behaviors / f"{name}.yaml").write_text(json.dumps(body))
    return behaviors


@pytest.mark.claude
def test_a_skill_granting_tools_loads_and_its_prerun_commands_are_the_skill_call_s(
    tmp_path: Path,
) -> None:
    """On `main`: the Skill call refused (`Execute skill: trail-status`, in the result's
    `permission_denials`); with it loaded, `blocked` (unverifiable: the opaque `python3 -m`
    not vouched for, the trace's pre-run calls "which the session does not record")."""
    runner = agent_or_skip("claude")
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    status = f".claude/skills/{NAME}/scripts/status.py"
    steps = [
        {"skill": NAME},
        # opaque to the session layer: only a trace that agrees with the session vouches for it
        {"cmd": "python3 -m json.tool --help > /dev/null && echo json-ok"},
        {"cmd": f"python3 {status} Ridge"},
    ]
    behaviors = _behaviors(tmp_path, steps, other=False)
    outcome = run_scripted_repo(evals, None, behaviors, tmp_path / "runs", runner)  # type: ignore[arg-type]
    attempt = outcome.run_dir.path / "case-artifacts/eval-1/attempts/attempt-01"
    stream = (attempt / "agent-stdout.jsonl").read_text()
    assert "Launching skill: trail-status" in stream
    assert '"permission_denials":[]' in stream
    record = json.loads((attempt / "attempt.json").read_text())
    trace = record["trace_report"]
    assert trace["disagreements"] == [], trace
    assert record["isolation_report"]["verdict"] == "contained", record["isolation_report"]
    session = json.loads((attempt / "accepted-session.json").read_text())
    skill_call = next(
        r["call_id"]
        for r in session["records"]
        if r["kind"] == "tool_call" and r["tool"] == "Skill"
    )
    prerun = [
        r["command"]
        for r in session["records"]
        if r["kind"] == "command_observed" and r["call_id"] == skill_call
    ]
    assert sorted(prerun) == sorted([PRERUN, BLOCK])
    result = json.loads((outcome.run_dir.path / "case-results/eval-1.json").read_text())
    assert result["status"] == "pass", result


@pytest.mark.claude
def test_a_trigger_run_sees_a_skill_granting_tools_fire(tmp_path: Path) -> None:
    """On `main`: `MISSED`, recall 0 and `SUSPECT (nothing-fired)`: Claude Code refused the
    Skill call the agent made, which loaded nothing."""
    runner = agent_or_skip("claude")
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    behaviors = _behaviors(tmp_path, [{"skill": NAME}])
    with scratch_dir() as scratch:
        options = RunOptions(
            repo=evals,
            agent=runner,
            attempts=1,
            behaviors=behaviors,
            runs_dir=tmp_path / "runs",
            scratch_root=scratch,
            timeout_s=120,
        )
        outcome = TriggerRun(options, TriggerOptions()).execute()
    summary = json.loads((outcome.run_dir.path / "triggers.json").read_text())
    assert summary["over_prompts"]["recall"] == 1.0, summary["over_prompts"]
    assert summary["over_prompts"]["f1"] == 1.0, summary["over_prompts"]
    assert summary["suspect"] is None


def _transcript(root: Path, body: str, *, failed: bool = False) -> Path:
    """A Claude Code transcript of the shape 2.1.197 writes for a Skill call: the call, its
    result, then the loaded body as a meta message carrying the call's id."""
    cwd = str(root)
    common = {"sessionId": "s-1", "cwd": cwd, "version": "2.1.197", "timestamp": "t"}
    lines = [
        {
            **common,
            "type": "user",
            "parentUuid": None,
            "uuid": "u1",
            "message": {"role": "user", "content": PROMPT},
        },
        {
            **common,
            "type": "assistant",
            "parentUuid": "u1",
            "uuid": "a1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "call-1", "name": "Skill", "input": {"skill": NAME}}
                ],
            },
        },
        {
            **common,
            "type": "user",
            "parentUuid": "a1",
            "uuid": "u2",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "call-1",
                        "content": f"Execute skill: {NAME}"
                        if failed
                        else f"Launching skill: {NAME}",
                        "is_error": failed,
                    }
                ],
            },
        },
        {
            **common,
            "type": "user",
            "parentUuid": "u2",
            "uuid": "u3",
            "isMeta": True,
            "sourceToolUseID": "call-1",
            "message": {"role": "user", "content": [{"type": "text", "text": body}]},
        },
        {
            **common,
            "type": "assistant",
            "parentUuid": "u3",
            "uuid": "a2",
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [{"type": "text", "text": "Ridge: open."}],
                "stop_reason": "end_turn",
            },
        },
    ]
    path = root / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _loaded_body(folder: Path, *, ran: bool = True) -> str:
    """The body as Claude Code sends it: the folder named, `${CLAUDE_SKILL_DIR}` replaced, each
    pre-run command's text replaced by its output (when it ran)."""
    text = _skill_md().split("---\n", 2)[2]
    if ran:
        text = text.replace(f"!`{PRERUN}`", "python3: found")
        text = text.replace(f"```!\n{BLOCK}\n```", "trails-ready")
    text = text.replace("${CLAUDE_SKILL_DIR}", str(folder))
    return f"Base directory for this skill: {folder}\n\n{text}"


def _skill_commands(path: Path) -> list[str]:
    evidence = normalize_session(path)
    return [
        r.command or ""
        for r in evidence.of_kind("command_observed")
        if r.call_id == "call-1" and r.tool == "Skill"
    ]


def test_the_prerun_commands_of_a_loaded_skill_are_its_call_s(tmp_path: Path) -> None:
    folder = tmp_path / f".claude/skills/{NAME}"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(_skill_md())
    commands = _skill_commands(_transcript(tmp_path, _loaded_body(folder)))
    # `a!`echo glued`` (no space before the `!`) and a plain code span are no pre-run
    assert sorted(commands) == sorted([PRERUN, BLOCK])


def test_no_prerun_command_is_recorded_where_none_ran(tmp_path: Path) -> None:
    folder = tmp_path / f".claude/skills/{NAME}"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(_skill_md())
    # the body still holds the commands' text: Claude Code ran none (shell execution off)
    assert _skill_commands(_transcript(tmp_path, _loaded_body(folder, ran=False))) == []
    # a Skill call that failed loaded nothing, whatever meta message follows
    failed = tmp_path / "failed"
    (failed / NAME).mkdir(parents=True)
    (failed / NAME / "SKILL.md").write_text(_skill_md())
    body = _loaded_body(failed / NAME)
    assert _skill_commands(_transcript(failed, body, failed=True)) == []
    assert _skill_commands(_transcript(failed, body)) != []  # the same, loaded
    # a body naming no folder, or a folder without SKILL.md
    unnamed = tmp_path / "unnamed"
    unnamed.mkdir()
    body = _loaded_body(folder).split("\n", 1)[1]
    assert _skill_commands(_transcript(unnamed, body)) == []
    gone = tmp_path / "gone"
    gone.mkdir()
    assert _skill_commands(_transcript(gone, _loaded_body(gone / "nowhere"))) == []
    # a folder outside the session's workspace (and home) is never read
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _skill_commands(_transcript(elsewhere, _loaded_body(folder))) == []
