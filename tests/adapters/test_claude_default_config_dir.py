"""A skill that reads Claude Code's session history where a user's Claude Code keeps it,
`~/.claude/projects/<project>/<session>.jsonl`, the shape of `evolv3-ai/vibe-skills`'
`session-scout` (round 9, docs/real-repos.md), which looks there and not at `CLAUDE_CONFIG_DIR`.

On `main` the attempt's `CLAUDE_CONFIG_DIR` was a folder beside its HOME, so `~/.claude/projects`
was empty: the skill found no session, not even the one running it, and an honest run failed.
The attempt's config folder is now `~/.claude` of its HOME, where a user's is.

Our own skill; the real Claude Code with the default layers (jail and trace).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.adapters.claude.runner import attempt_config, attempt_home
from tests.support import agent_or_skip, layers_or_skip, one_behavior, run_scripted_repo

NAME = "recent-sessions"
PROMPT = "List my recent Claude Code sessions with the recent-sessions skill."
LIST = """#!/usr/bin/env bash
# The user's Claude Code history, at its default place (the variable is not looked at).
shopt -s nullglob
found=("$HOME"/.claude/projects/*/*.jsonl)
echo "sessions: ${#found[@]}"
for f in "${found[@]}"; do basename "$f" .jsonl; done
"""


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "scripts").mkdir(parents=True)
    (skill / "evals").mkdir()
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Lists the user's recent Claude Code sessions. Use when"
        " the user asks for their session history.\n---\n\n# Recent sessions\n\n"
        "Run `bash scripts/list.sh` and report what it prints.\n"
    )
    (skill / "scripts/list.sh").write_text(LIST)
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "At least this session.",
                "must_have": ["sessions: [1-9]"],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


def test_the_config_folder_is_the_homes_dot_claude(tmp_path: Path) -> None:
    assert attempt_config(tmp_path) == attempt_home(tmp_path) / ".claude"


@pytest.mark.claude
def test_a_skill_reading_the_default_history_finds_the_running_session(tmp_path: Path) -> None:
    """On `main`: `fail` ("sessions: 0"), contained."""
    runner = agent_or_skip("claude")
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    steps = [
        {"skill": NAME},
        {"cmd": f"bash .claude/skills/{NAME}/scripts/list.sh"},
        {
            "when": {"output_contains": "sessions: 0"},
            "then": [{"final": "No Claude Code session found: sessions: 0."}],
        },
        {"final": "Found them: sessions: 1 (this one)."},
    ]
    behaviors = one_behavior(tmp_path, "lists", PROMPT, steps)
    outcome = run_scripted_repo(evals, None, behaviors, tmp_path / "runs", runner)  # type: ignore[arg-type]
    attempt = outcome.run_dir.path / "case-artifacts/eval-1/attempts/attempt-01"
    record = json.loads((attempt / "attempt.json").read_text())
    assert record["isolation_report"]["verdict"] == "contained", record["isolation_report"]
    session = json.loads((attempt / "accepted-session.json").read_text())
    listed = [r["text"] for r in session["records"] if r["kind"] == "tool_result"]
    assert any(session["session_id"] in text for text in listed), listed
    result = json.loads((outcome.run_dir.path / "case-results/eval-1.json").read_text())
    assert result["status"] == "pass", result


HOME = "/var/tmp/agent/home"
WS = "/var/tmp/agent/ws"


def _written(path: str) -> str:
    """The verdict of one Codex-shaped tool call (the recogniser is not what is tested) that
    opens `path` for writing, with Claude Code's store as its runner gives it."""
    from evaluator.adapters.claude.runner import CLI_ENTRIES
    from evaluator.adapters.codex.trace import RECOGNIZER
    from evaluator.evidence import SessionEvidence
    from evaluator.isolation import assess_isolation
    from evaluator.isolation.trace import assess_trace
    from evaluator.sandbox import parse_trace

    sandbox = "/var/tmp/agent/codex-home/tmp/arg0/codex-linux-sandbox"
    log = [
        '10 execve("/opt/codex/bin/codex", ["codex", "exec"], 0x7ffe /* 7 vars */) = 0',
        "10 clone(child_stack=NULL, flags=CLONE_VM|CLONE_VFORK|SIGCHLD) = 11",
        f'11 execve("{sandbox}", ["{sandbox}", "--command-cwd", "{WS}"], 0x7f /* 9 vars */) = 0',
        "11 clone(child_stack=NULL, flags=CLONE_NEWPID|SIGCHLD) = 1 /* 12 in strace's PID NS */",
        f'12 chdir("{WS}") = 0',
        '12 execve("/bin/bash", ["/bin/bash", "-c", "bash install.sh"], 0x7f /* 24 vars */) = 0',
        f'12 openat(AT_FDCWD<{WS}>, "{path}", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3<{path}>',
    ]
    trace = parse_trace(log, RECOGNIZER, start_cwd=WS)
    evidence = SessionEvidence(session_path="s.jsonl", complete=True)
    evidence.add("command_observed", 1, command="bash install.sh", call_id="c1")
    clean = assess_isolation(evidence, Path(WS), record_violations=False)
    config = Path(HOME) / ".claude"
    report = assess_trace(
        trace,
        evidence,
        clean,
        Path(WS),
        (Path(HOME),),
        (Path("/tmp"), Path("/var/tmp/agent/tmp")),
        session_dirs=tuple(config / name for name in CLI_ENTRIES),
        own_pid_namespace=True,
    )
    return report.verdict


@pytest.mark.parametrize(
    "path,verdict",
    [
        # what the CLI writes there: the evidence, as when the folder lay beside the home
        (f"{HOME}/.claude/projects/p/s.jsonl", "violation"),
        (f"{HOME}/.claude/.claude.json", "violation"),
        (f"{HOME}/.claude/shell-snapshots/snapshot-bash-1.sh", "violation"),
        # what a skill installs for its user: the attempt's home, as before
        (f"{HOME}/.claude/commands/release.md", "contained"),
        (f"{HOME}/.claude/settings.local.json", "contained"),
    ],
)
def test_the_store_is_what_the_cli_writes_in_its_config_folder(path: str, verdict: str) -> None:
    assert _written(path) == verdict
