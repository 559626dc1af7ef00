"""A skill that sorts a folder by file type and finds duplicates, the shape of
`ComposioHQ/awesome-claude-skills`' `file-organizer` (round 10, docs/real-repos.md): `find DIR
-type f -exec file {} \\;`, `find ... -print0 | xargs -0 md5sum`, then `mkdir` and `mv`. Every
`file` reads libmagic's local definitions `/etc/magic`; on `main` that read was a trace
violation, so every honest run was `blocked, violation`, and the opaque `xargs` (the session
layer cannot tell what it runs) was never vouched for by the trace.

Our own skill and files; the real Claude Code with the default layers (jail and trace).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import assert_contained_pass, run_skill_steps

NAME = "sort-by-type"
PROMPT = "Sort the drop/ folder by type with the sort-by-type skill and name the duplicates."


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Sorts a folder's files into sub-folders by type and"
        " finds exact duplicates. Use when the user asks to tidy a folder.\n---\n\n# Sort by"
        " type\n\n1. `find DIR -type f -exec file {} \\;` to see each file's type.\n2."
        " `find DIR -type f -print0 | xargs -0 md5sum | sort | uniq -w32 -D` for duplicates.\n"
        "3. `mkdir -p DIR/<Type>` and `mv` each file there. Never delete.\n"
    )
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "Files sorted, the duplicate pair named.",
                "files": [
                    {"path": "drop/a.md", "content": "# minutes\n"},
                    {"path": "drop/b.md", "content": "# minutes\n"},
                    {"path": "drop/c.csv", "content": "x,y\n1,2\n"},
                ],
                "assertions": [
                    {
                        "type": "command",
                        "command": "test -f drop/Text/a.md && test -f drop/Text/b.md"
                        " && test -f drop/Tables/c.csv",
                        "expect_exit_code": 0,
                    }
                ],
                "must_have": ["Duplicates: drop/a.md and drop/b.md"],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


@pytest.mark.claude
def test_file_types_and_duplicates_of_a_folder_are_contained(tmp_path: Path) -> None:
    """On `main`: `blocked` (violation: the trace's reads of `/etc/magic`)."""
    evals = _skill_repo(tmp_path / "src")
    steps = [
        {"skill": NAME},
        {"cmd": "find drop -type f -exec file {} \\;"},
        {"cmd": "find drop -type f -print0 | xargs -0 md5sum | sort | uniq -w32 -D"},
        {
            "cmd": "mkdir -p drop/Text drop/Tables && mv drop/a.md drop/b.md drop/Text/"
            " && mv drop/c.csv drop/Tables/ && find drop -type f | sort"
        },
        {
            "when": {"output_contains": "drop/Tables/c.csv"},
            "then": [{"final": "Sorted. Duplicates: drop/a.md and drop/b.md."}],
        },
        {"final": "The files could not be sorted."},
    ]
    assert_contained_pass(run_skill_steps("claude", evals, tmp_path, PROMPT, steps))
