"""A trigger run whose agent asked for the skill and whose CLI would not load it (round 8,
docs/real-repos.md: trailofbits' `git-cleanup`, whose front matter sets
`disable-model-invocation: true`; Claude Code answers the model's `Skill` call with an error and
loads only a user's `/git-cleanup`). The run rightly sees nothing fire; on `main` its suspect
flag said "no cause visible in the evidence", though the session holds the refusal. It now names
the CLI's answer. A call that only mentions the name inside a longer argument, or that loaded
the skill, is no such refusal.

Our own skill and sessions: the real Claude Code for the run, hand-made transcripts of the same
shape for the look-alikes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import normalize_session
from evaluator.evidence.triggers import refused_load
from evaluator.pipeline.run import RunOptions
from evaluator.pipeline.triggers import TriggerOptions, TriggerRun
from evaluator.triggers.metrics import AttemptOutcome, suspicion
from tests.support import agent_or_skip, layers_or_skip, scratch_dir

NAME = "prune-branches"
PROMPT = "Prune my merged local git branches."
OTHER = "What is the capital of France?"


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Deletes local git branches merged into main. Use when"
        " the user asks to prune branches.\ndisable-model-invocation: true\n---\n\n# Prune\n\n"
        "Run `git branch --merged main` and delete each branch but main with `git branch -d`.\n"
    )
    evals = {
        "skill_name": NAME,
        "evals": [{"id": 1, "prompt": PROMPT, "expected_output": "Pruned.", "must_have": ["x"]}],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    (skill / "evals/trigger_evals.json").write_text(
        json.dumps(
            [{"query": PROMPT, "should_trigger": True}, {"query": OTHER, "should_trigger": False}]
        )
    )
    return skill / "evals/evals.json"


@pytest.mark.claude
def test_a_skill_the_cli_will_not_load_is_named_as_the_cause(tmp_path: Path) -> None:
    runner = agent_or_skip("claude")
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    for name, prompt in (("asks", PROMPT), ("answers", OTHER)):
        steps: list[dict[str, Any]] = [{"skill": NAME}] if prompt == PROMPT else []
        body = {
            "name": name,
            "match": {"prompt_contains": prompt},
            "steps": [*steps, {"final": "ok"}],
        }
        (behaviors / f"{name}.yaml").write_text(json.dumps(body))
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
    run = outcome.run_dir.path
    summary = json.loads((run / "triggers.json").read_text())
    assert summary["over_prompts"]["recall"] == 0.0  # it did not fire: right
    assert summary["suspect"]["kind"] == "nothing-fired"
    causes = "\n".join(summary["suspect"]["causes"])
    assert "its CLI did not load it in 1 of 1 attempts" in causes, causes
    assert "disable-model-invocation" in causes, causes
    assert "no cause visible" not in causes
    observed = {
        json.loads(p.read_text())["prompt_id"]: json.loads(p.read_text())
        for p in run.glob("case-artifacts/*/attempts/attempt-01/trigger.json")
    }
    refusals = [o["refused"] for o in observed.values()]
    # the should-fire prompt's call was refused; the other prompt asked for nothing
    assert sorted(r is None for r in refusals) == [False, True], observed
    assert any(r and "disable-model-invocation" in r for r in refusals)


def _session(root: Path, calls: list[tuple[str, dict[str, Any], str, bool]]) -> Path:
    """A Claude Code transcript: each call (tool, input, answer, failed) and its result."""
    common = {"sessionId": "s-1", "cwd": str(root), "version": "2.1.197", "timestamp": "t"}
    lines: list[dict[str, Any]] = [
        {
            **common,
            "type": "user",
            "parentUuid": None,
            "uuid": "u0",
            "message": {"role": "user", "content": PROMPT},
        }
    ]
    for number, (tool, arguments, answer, failed) in enumerate(calls, start=1):
        lines.append(
            {
                **common,
                "type": "assistant",
                "parentUuid": lines[-1]["uuid"],
                "uuid": f"a{number}",
                "message": {
                    "id": f"m{number}",
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": f"c{number}", "name": tool, "input": arguments}
                    ],
                },
            }
        )
        lines.append(
            {
                **common,
                "type": "user",
                "parentUuid": f"a{number}",
                "uuid": f"u{number}",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"c{number}",
                            "content": answer,
                            "is_error": failed,
                        }
                    ],
                },
            }
        )
    path = root / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


REFUSAL = f"<tool_use_error>Skill {NAME} cannot be used with Skill tool due to x</tool_use_error>"


def test_the_answer_to_a_failed_call_for_the_skill_is_its_refusal(tmp_path: Path) -> None:
    path = _session(tmp_path, [("Skill", {"skill": NAME}, REFUSAL, True)])
    assert refused_load(normalize_session(path), NAME) == REFUSAL
    slash = tmp_path / "slash"
    slash.mkdir()
    path = _session(slash, [("Skill", {"skill": f"/{NAME}"}, "Execute skill: x", True)])
    assert refused_load(normalize_session(path), NAME) == "Execute skill: x"


def test_no_refusal_where_the_skill_loaded_or_was_not_asked_for_by_name(tmp_path: Path) -> None:
    cases = {
        "loaded": [("Skill", {"skill": NAME}, f"Launching skill: {NAME}", False)],
        # the name inside a longer argument: a command that failed, not a request for the skill
        "inside": [
            ("Bash", {"command": f"cat .claude/skills/{NAME}/SKILL.md"}, "Exit code 1", True)
        ],
        "another": [("Skill", {"skill": "other-skill"}, REFUSAL, True)],
    }
    for name, calls in cases.items():
        folder = tmp_path / name
        folder.mkdir()
        assert refused_load(normalize_session(_session(folder, calls)), NAME) is None, name


def test_the_suspect_flag_names_the_refusal_only_where_nothing_fired() -> None:
    refused = [AttemptOutcome("p", True, False, tool_calls=1, refused=REFUSAL)]
    found = suspicion([*refused, AttemptOutcome("n", False, False, tool_calls=0)])
    assert found is not None and found.kind == "nothing-fired"
    assert found.causes == [
        "the agent asked for the skill and its CLI did not load it in 1 of 1 attempts on prompts"
        f" that should fire: {REFUSAL!r}"
    ]
    # a prompt that should not fire, refused, is no cause of a miss
    found = suspicion(
        [
            AttemptOutcome("p", True, False, tool_calls=1),
            AttemptOutcome("n", False, False, tool_calls=1, refused=REFUSAL),
        ]
    )
    assert found is not None and found.causes[0].startswith("no cause visible")
