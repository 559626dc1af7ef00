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

import json
from pathlib import Path

import pytest

from evaluator.isolation.trace import combine
from evaluator.pipeline.run import RunOutcome
from tests.isolation.test_home_in_jail import FOLDERS, HOME, _session, _trace
from tests.support import (
    agent_params,
    assert_contained_pass,
    run_skill_steps,
    write_skill_evals,
)

TRANSCRIPTS = (HOME / ".claude/projects", HOME / ".codex/sessions", HOME / ".gemini/tmp/*/chats")
SESSION = f"{HOME}/.claude/projects/-ws/5f1c.jsonl"
GEMINI_TMP = f"{HOME}/.gemini/tmp"

CLEARED = [
    ("list", f"{HOME}/.claude/projects"),  # `find ~/.claude/projects`: a violation on `main`
    ("read", SESSION),
    ("metadata", SESSION),
    ("path", f"{HOME}/.claude/projects/-ws"),  # `find ... -exec bash x.sh {} \;`'s operand
    ("list", f"{HOME}/.codex/sessions"),  # Codex's, and absent under Claude Code
    ("read", f"{GEMINI_TMP}/01/chats/session-2026-12-01T05-25-5f1c.jsonl"),  # Gemini CLI's
    ("list", f"{GEMINI_TMP}/01/chats/5f1c"),  # its sub-agents' chats
]
KEPT = [
    ("write", SESSION),  # a change of the evidence
    ("exec", SESSION),
    ("read", f"{HOME}/.claude/.claude.json"),  # the rest of the config folder
    ("read", f"{HOME}/.claude/shell-snapshots/snapshot-bash-1.sh"),
    ("list", f"{HOME}/.claude/skills"),
    ("read", f"{HOME}/.claude/projects-old/s.jsonl"),  # a look-alike of the folder's name
    ("read", f"{HOME}/.codex/sessions-old/r.jsonl"),
    # Gemini CLI's project folder beside the chats: its logs and shell history, its list.
    ("read", f"{GEMINI_TMP}/01/logs.json"),
    ("read", f"{GEMINI_TMP}/01/shell_history"),
    ("list", GEMINI_TMP),
    ("read", f"{GEMINI_TMP}/01/chats-old/session-1.jsonl"),
]
# Globs the shell matched below a listed folder (`ls ~/.gemini/tmp/*/chats/` lists `tmp`): a
# look at the chats only when every name it can match is in them.
GLOB_CLEARED = [
    ("list", GEMINI_TMP, "*/chats/"),
    ("read", GEMINI_TMP, "*/chats/session-*.jsonl"),
    ("metadata", f"{GEMINI_TMP}/01", "chats/session-*.jsonl"),
]
GLOB_KEPT = [
    ("read", GEMINI_TMP, "*/logs.json"),
    ("list", GEMINI_TMP, "*/c*"),  # may be another folder than `chats`
    ("read", GEMINI_TMP, "*"),
    ("read", GEMINI_TMP, "*/chats/../logs.json"),
    ("read", f"{HOME}/.gemini", "*/*/chats/x"),  # `tmp` or any other folder
]


# What the trace and the launch were, unless a test says otherwise: seen whole, nothing
# outside, in the jail.
JUDGED = (("complete", True), ("outside", False), ("jailed", True))


def _merged(kind: str, path: str, glob: str = "", **trace: bool) -> str:
    evidence, report = _session(kind, path, glob=glob)
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


@pytest.mark.parametrize("kind,path,glob", GLOB_CLEARED)
def test_a_glob_matching_only_transcripts_is_a_look_at_them(
    kind: str, path: str, glob: str
) -> None:
    assert _merged(kind, path, glob) == "contained"


@pytest.mark.parametrize("kind,path,glob", GLOB_KEPT)
def test_a_glob_that_may_match_more_still_counts(kind: str, path: str, glob: str) -> None:
    assert _merged(kind, path, glob) == "violation"


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
    _, record = assert_contained_pass(run_skill_steps(agent, evals, tmp_path, PROMPT, steps))
    # The looks were the trace's to judge: each said, none recorded as a violation.
    assert any("the CLI's transcripts" in d for d in record["trace_report"]["disagreements"])


GEMINI_NAME = "chat-notes"
GEMINI_PROMPT = "List my Gemini chat history into notes/chats.txt (chat-notes)."
GEMINI_SKILL_MD = (
    f"---\nname: {GEMINI_NAME}\ndescription: Lists the user's Gemini CLI chat history. Use when"
    " the user asks which chats they had.\n---\n\n# Chat notes\n\n"
    "1. `ls ~/.gemini/tmp/*/chats/`: one `session-*.jsonl` per chat.\n"
    "2. `wc -l ~/.gemini/tmp/*/chats/session-*.jsonl` to `notes/chats.txt`.\n"
)


def _gemini_skill_repo(root: Path) -> Path:
    return write_skill_evals(
        root,
        GEMINI_NAME,
        {"SKILL.md": GEMINI_SKILL_MD},
        [
            {
                "id": 1,
                "prompt": GEMINI_PROMPT,
                "expected_output": "notes/chats.txt lists this chat's transcript.",
                "assertions": [
                    {
                        "type": "command",
                        "command": "grep -q 'chats/session-' notes/chats.txt",
                        "expect_exit_code": 0,
                    }
                ],
            }
        ],
    )


def _gemini_run(tmp_path: Path, *extra: str) -> RunOutcome:
    evals = _gemini_skill_repo(tmp_path / "src")
    steps = [
        {"skill": GEMINI_NAME},
        {"cmd": "ls ~/.gemini/tmp/*/chats/"},
        *({"cmd": cmd} for cmd in extra),
        {
            "cmd": "mkdir -p notes && wc -l ~/.gemini/tmp/*/chats/session-*.jsonl > notes/chats.txt"
            " && cat notes/chats.txt"
        },
        {"final": "Written to notes/chats.txt."},
    ]
    return run_skill_steps("gemini", evals, tmp_path, GEMINI_PROMPT, steps)


@pytest.mark.gemini
def test_a_skill_listing_its_gemini_chats_runs_contained(tmp_path: Path) -> None:
    """On `main`: `blocked` (violation: `ls ~/.gemini/tmp/*/chats/`, a look at the attempt's own
    chat transcripts), though the trace saw each call inside."""
    _, record = assert_contained_pass(_gemini_run(tmp_path))
    assert any("the CLI's transcripts" in d for d in record["trace_report"]["disagreements"])


@pytest.mark.gemini
def test_a_read_of_the_rest_of_the_gemini_folder_still_counts(tmp_path: Path) -> None:
    """Gemini CLI keeps its shell history and logs beside the chats: a read of them is no look
    at the transcripts."""
    outcome = _gemini_run(tmp_path, "cat ~/.gemini/tmp/*/logs.json")
    attempt = outcome.run_dir.path / "case-artifacts/eval-1/attempts/attempt-01"
    record = json.loads((attempt / "attempt.json").read_text())
    assert record["isolation_report"]["verdict"] == "violation", record["isolation_report"]
    # Only the logs' read counts (the shell's listing of `tmp` for its glob, and the read); the
    # looks at the chats are cleared as in the test above.
    details = [v["detail"] for v in record["isolation_report"]["violations"]]
    assert details and all("/logs.json" in d for d in details), details
