""" "Consulted X" on real agent runs: the content tool outputs showed decides, for any tool.

Each case is one scripted agent that touches the skill's SKILL.md one way; its structured checks
say what must have reached the agent. Reads that show the content pass whatever printed it (tools
no command table models included); look-alikes that show nothing, or something else, fail. Run
through the real Codex CLI and, when installed, Claude Code.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.pipeline.run import RunOutcome
from tests.support import (
    agent_or_skip,
    run_scripted_repo,
    write_checks_suite,
    write_file,
)

SKILL = ".agents/skills/notes/SKILL.md"
ROUTING = ".agents/skills/notes/references/routing.md"
SKILL_TEXT = """\
---
name: notes
description: Keeps meeting notes tidy for the whole team.
---
# Notes

Start every note with the meeting date and the names of everyone present.
Keep one decision per bullet so that readers can find each decision quickly.

## Routing

Decisions about budgets go to the finance section of the shared notebook.
Decisions about hiring are filed under the people section and never elsewhere.

## Release

A note is released once the chair has approved it in the weekly review.
Released notes are read only and any change needs a new dated addendum.
"""
ROUTING_TEXT = """\
# Routing table

Budget questions are answered by the finance lead within two working days.
"""
WHOLE = {"kind": "file_read", "path": SKILL}
READS = "pass"
NO_READ = "fail"
# case: (steps, [(check, expected status of the entry)])
CASES: dict[str, tuple[list[dict[str, Any]], list[tuple[dict[str, Any], str]]]] = {
    # Tools that show the content, modelled by the command table or not.
    "sed-print": ([{"cmd": f"sed -n p {SKILL}"}], [(WHOLE, READS)]),
    # (`less` is left out: it opens `/etc/sysless` and `~/.lesskey`, outside the workspace, so
    # isolation blocks the attempt before anything is judged.)
    "numbered-lines": ([{"cmd": f"nl -ba {SKILL}"}], [(WHOLE, READS)]),
    "python-write": (
        [{"cmd": f"python3 -c 'import sys; sys.stdout.write(open(\"{SKILL}\").read())'"}],
        [(WHOLE, READS)],
    ),
    "perl-print": ([{"cmd": f"perl -ne print {SKILL}"}], [(WHOLE, READS)]),
    "cat-numbered": ([{"cmd": f"cat -n {SKILL}"}], [(WHOLE, READS)]),
    "grep-numbered": ([{"cmd": f"grep -n . {SKILL}"}], [(WHOLE, READS)]),
    "read-step": ([{"read": SKILL}], [({**WHOLE, "min_share": 1.0}, READS)]),
    # Claude: the `Skill` tool, whose body comes as Claude Code's own message after the call.
    "skill-tool": ([{"skill": "notes"}], [(WHOLE, READS)]),
    # Look-alikes: the file is touched, nothing of it (or something else) is shown.
    "head-zero-bytes": ([{"cmd": f"head -c 0 {SKILL}"}], [(WHOLE, NO_READ)]),
    "head-zero-lines": ([{"cmd": f"head -n 0 {SKILL}"}], [(WHOLE, NO_READ)]),
    "count-lines": ([{"cmd": f"wc -l {SKILL}"}], [(WHOLE, NO_READ)]),
    "checksum": ([{"cmd": f"sha256sum {SKILL}"}], [(WHOLE, NO_READ)]),
    "copy": ([{"cmd": f"cp {SKILL} copy.md"}], [(WHOLE, NO_READ)]),
    "discarded": ([{"cmd": f"cat {SKILL} > /dev/null"}], [(WHOLE, NO_READ)]),
    "replaced": ([{"cmd": f"cat {SKILL} | sed 's/[a-z]/x/g'"}], [(WHOLE, NO_READ)]),
    "own-version": (
        [
            {
                "cmd": "printf '%s\\n' 'My own words about notes that I typed myself just now.'"
                f" > {SKILL} && cat {SKILL}"
            }
        ],
        [(WHOLE, NO_READ)],
    ),
    # Text the agent typed itself is not the file, even when a tool prints it back.
    "echoes-known-text": (
        [
            {
                "cmd": "echo 'Decisions about budgets go to the finance section of the shared notebook.'"
            }
        ],
        [(WHOLE, NO_READ)],
    ),
    # Writing what it read afterwards does not undo the read.
    "reads-then-writes-the-same": (
        [
            {"cmd": f"cat {SKILL}"},
            {
                "cmd": "cat > digest.md <<'EOF'\nDecisions about budgets go to the finance"
                " section of the shared notebook.\nEOF"
            },
        ],
        [({**WHOLE, "min_share": 1.0}, READS)],
    ),
    # Partial reads are partial.
    "head-partial": (
        [{"cmd": f"head -n 8 {SKILL}"}],
        [
            (WHOLE, READS),
            ({**WHOLE, "min_share": 0.9}, NO_READ),
            ({**WHOLE, "section": "## Release"}, NO_READ),
        ],
    ),
    "section-only": (
        [{"cmd": f"sed -n '/^## Routing/,/^## Release/p' {SKILL}"}],
        [
            ({**WHOLE, "section": "## Routing", "min_share": 1.0}, READS),
            ({**WHOLE, "min_share": 1.0}, NO_READ),
        ],
    ),
    # Order: the first output that showed content, not the first command that named the file.
    "order": (
        [{"cmd": f"head -n 0 {SKILL} && cat {ROUTING}"}, {"cmd": f"cat {SKILL}"}],
        [({"kind": "read_before", "first": SKILL, "then": ROUTING}, NO_READ)],
    ),
    # Both asked for at once: neither was read before the other was asked for (red team 5;
    # the second order passed before, by the place in the one output).
    "two-files-at-once": (
        [{"cmd": f"cat {ROUTING} {SKILL}"}],
        [
            ({"kind": "read_before", "first": SKILL, "then": ROUTING}, NO_READ),
            ({"kind": "read_before", "first": ROUTING, "then": SKILL}, NO_READ),
        ],
    ),
}


def _eval_repo(root: Path) -> tuple[Path, Path, Path]:
    source = root / "source"
    write_file(source / SKILL, SKILL_TEXT)
    write_file(source / ROUTING, ROUTING_TEXT)
    repo = root / "agentic-evals"
    behaviors = root / "behaviors"
    write_checks_suite(
        repo,
        ("notes", "What reached the agent", SKILL, [".agents/skills/notes/references"]),
        "reads",
        {case: (steps, [c for c, _ in entries]) for case, (steps, entries) in CASES.items()},
        lambda case: f"Look after the team notes, case {case}.",
        behaviors,
    )
    return repo, source, behaviors


@pytest.fixture(
    scope="module",
    params=[
        pytest.param("codex", marks=pytest.mark.codex),
        pytest.param("claude", marks=pytest.mark.claude),
    ],
)
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunOutcome]:
    agent = str(request.param)
    runner = agent_or_skip(agent)
    root = tmp_path_factory.mktemp(f"consultation-{agent}")
    repo, source, behaviors = _eval_repo(root)
    result = run_scripted_repo(repo, source, behaviors, root / "runs", runner)
    yield result
    shutil.rmtree(root, ignore_errors=True)


def _entries(outcome: RunOutcome, case: str) -> list[dict[str, Any]]:
    path = outcome.run_dir.path / f"case-artifacts/{case}/attempts/attempt-01/attempt.json"
    attempt = json.loads(path.read_text())
    entries: list[dict[str, Any]] = attempt["assertions"] or []
    assert entries, f"{case} was not judged: {attempt['reason']}"
    return entries


@pytest.mark.parametrize("case", list(CASES))
def test_what_reached_the_agent_decides_consultation(outcome: RunOutcome, case: str) -> None:
    entries = _entries(outcome, case)
    expected = [status for _, status in CASES[case][1]]
    got = [e["status"] for e in entries]
    details = [e["checks"][0]["detail"] for e in entries]
    assert got == expected, details
    # Every session here records its tool outputs: the content decided, never the table.
    assert [e["checks"][0]["proof"] for e in entries] == ["content"] * len(entries), details
