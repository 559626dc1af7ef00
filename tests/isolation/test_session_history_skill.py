"""A skill that reads the agent's own session history where a user's CLI keeps it (real skills,
round 13: `bmh8993/zcc-marketplace`'s `history-insight`, whose SKILL.md has the agent run `find
~/.claude/projects -name "*.jsonl" -type f` and its `extract-session.sh` on each file).

The attempt's `~/.claude` is Claude Code's config folder (round 9) and its `~/.codex` Codex's, so
the running session is there for such a skill to read. On `main` the session layer kept every
access in the agents' own folders a violation, so the honest `find ~/.claude/projects` the
SKILL.md prints was `blocked, violation`, while the same find through a computed path
(`~/.claude/projects/"$enc"`) was opaque, vouched for by the trace, and contained: one access, two
verdicts by its spelling. Now a look (a read, a listing) at an agent's transcripts (the adapters'
`transcript_dirs`) in a call the trace saw whole is the trace's to judge, in the jail only, where
they hold this attempt's session at most (another agent's do not exist). A change there, the rest
of the agents' folders and every case the trace cannot vouch for stay violations. Offline over
reports of that shape and its look-alikes, and with the real Claude Code and Codex.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.isolation.trace import combine
from tests.isolation.test_home_in_jail import FOLDERS, HOME, _session, _trace
from tests.support import (
    agent_or_skip,
    agent_params,
    assert_contained_pass,
    layers_or_skip,
    one_behavior,
    run_scripted_repo,
    write_skill_evals,
)

TRANSCRIPTS = (HOME / ".claude/projects", HOME / ".codex/sessions")
SESSION = f"{HOME}/.claude/projects/-ws/5f1c.jsonl"

CLEARED = [
    ("list", f"{HOME}/.claude/projects"),  # `find ~/.claude/projects`: a violation on `main`
    ("read", SESSION),
    ("metadata", SESSION),
    ("path", f"{HOME}/.claude/projects/-ws"),  # `find ... -exec bash x.sh {} \;`'s operand
    ("list", f"{HOME}/.codex/sessions"),  # Codex's, and absent under Claude Code
]
KEPT = [
    ("write", SESSION),  # a change of the evidence
    ("exec", SESSION),
    ("read", f"{HOME}/.claude/.claude.json"),  # the rest of the config folder
    ("read", f"{HOME}/.claude/shell-snapshots/snapshot-bash-1.sh"),
    ("list", f"{HOME}/.claude/skills"),
    ("read", f"{HOME}/.claude/projects-old/s.jsonl"),  # a look-alike of the folder's name
    ("read", f"{HOME}/.gemini/tmp/p/chats/session-1.json"),  # an agent's, not declared
]


# What the trace and the launch were, unless a test says otherwise: seen whole, nothing
# outside, in the jail.
JUDGED = (("complete", True), ("outside", False), ("jailed", True))


def _merged(kind: str, path: str, **trace: bool) -> str:
    evidence, report = _session(kind, path)
    complete, outside, jailed = (trace.get(k, d) for k, d in JUDGED)
    merged = combine(
        report,
        _trace(complete, outside),
        evidence,
        jailed=jailed,
        home=HOME,
        agent_folders=FOLDERS,
        transcripts=TRANSCRIPTS,
    )
    return merged.verdict


@pytest.mark.parametrize("kind,path", CLEARED)
def test_a_look_at_the_transcripts_is_the_traces_to_judge(kind: str, path: str) -> None:
    assert _merged(kind, path) == "contained"


@pytest.mark.parametrize("kind,path", KEPT)
def test_a_change_and_the_rest_of_the_agents_folders_still_count(kind: str, path: str) -> None:
    assert _merged(kind, path) == "violation"


@pytest.mark.parametrize(
    "trace", [{"complete": False}, {"outside": True}, {"jailed": False}], ids=str
)
def test_a_look_the_trace_cannot_vouch_for_still_counts(trace: dict[str, bool]) -> None:
    assert _merged("read", SESSION, **trace) == "violation"


def test_without_declared_transcripts_a_look_still_counts() -> None:
    evidence, report = _session("list", f"{HOME}/.claude/projects")
    merged = combine(
        report, _trace(True, False), evidence, jailed=True, home=HOME, agent_folders=FOLDERS
    )
    assert merged.verdict == "violation"


NAME = "session-notes"
PROMPT = "Summarise all my agent sessions into notes/sessions.md (session-notes)."
# Where Claude Code and Codex keep a user's transcripts: under either agent one of them is its
# own (this attempt's session), the other does not exist in its home.
PLACES = "~/.claude/projects ~/.codex/sessions"
EXTRACT = """#!/bin/bash
# One transcript: its path and how many records it holds.
printf '{"file": "%s", "records": %d}\\n' "$1" "$(wc -l < "$1")"
"""


SKILL_MD = (
    f"---\nname: {NAME}\ndescription: Summarises the user's agent session history. Use when the"
    " user asks what was done in past sessions.\n---\n\n# Session notes\n\n"
    f"1. `find {PLACES} -name '*.jsonl' -type f` (one of them may not exist).\n"
    "2. `scripts/extract.sh <transcript>` on each; the counts to `notes/`.\n"
)
CHECK = "jq -s -e 'map(.records) | add >= 1' notes/sessions.json && grep -q 'Records:' notes/sessions.md"


def _skill_repo(root: Path) -> Path:
    return write_skill_evals(
        root,
        NAME,
        {"SKILL.md": SKILL_MD, "scripts/extract.sh": EXTRACT},
        [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "notes/sessions.md counts this session's records.",
                "assertions": [{"type": "command", "command": CHECK, "expect_exit_code": 0}],
            }
        ],
    )


@pytest.mark.parametrize("agent", agent_params("claude", "codex"))
def test_a_skill_reading_the_session_history_runs_contained(agent: str, tmp_path: Path) -> None:
    """On `main`: `blocked` (violation: the `find ~/.claude/projects ~/.codex/sessions` the
    SKILL.md prints, a listing of the attempt's own transcripts and of another agent's absent
    folder), though the trace saw each call inside."""
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    extract = f"{'.claude' if agent == 'claude' else '.agents'}/skills/{NAME}/scripts/extract.sh"
    steps = [
        {"skill": NAME},
        {"cmd": f"find {PLACES} -name '*.jsonl' -type f"},
        {
            "cmd": f"mkdir -p notes; find {PLACES} -name '*.jsonl' -type f -exec bash {extract}"
            " {} \\; 2>/dev/null > notes/sessions.json; jq -s -r"
            " '\"Records: \\(map(.records) | add)\"' notes/sessions.json > notes/sessions.md;"
            " cat notes/sessions.md"
        },
        {
            "when": {"output_contains": "Records: "},
            "then": [{"final": "Written to notes/sessions.md."}],
        },
        {"final": "No session history found."},
    ]
    behaviors = one_behavior(tmp_path, "history", PROMPT, steps)
    outcome = run_scripted_repo(evals, None, behaviors, tmp_path / "runs", runner)  # type: ignore[arg-type]
    _, record = assert_contained_pass(outcome)
    # The looks were the trace's to judge: each said, none recorded as a violation.
    assert any("the CLI's transcripts" in d for d in record["trace_report"]["disagreements"])
