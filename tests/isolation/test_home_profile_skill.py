"""A skill that keeps its user's profile in the home and tells WSL from Linux, the shape of
`evolv3-ai/vibe-skills`' `admin` (round 9, docs/real-repos.md): its scripts read
`~/.admin/.env`, test `grep -qi microsoft /proc/version`, write the profile under the home, and
log through a function another script defines (`source log.sh && log_event ...`, opaque to
the session layer, so only a trace that finds nothing outside vouches for it). On `main` the
kernel's version string was a trace violation, so every honest run was `blocked, violation`.

Our own skill; the real Claude Code with the default layers (jail and trace). (Codex's sandbox
keeps the home read-only: there the profile cannot be made, whatever the evaluator does.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import (
    agent_or_skip,
    assert_contained_pass,
    layers_or_skip,
    one_behavior,
    run_scripted_repo,
)

NAME = "box-profile"
PROMPT = "Create my box profile with the box-profile skill."
CHECK = """#!/usr/bin/env bash
set -eo pipefail
root="${BOX_ROOT:-$HOME/.box}"
if grep -qi microsoft /proc/version 2>/dev/null; then kind=wsl; else kind=linux; fi
if [[ -f "$root/profile.json" ]]; then exists=true; else exists=false; fi
echo "{\\"exists\\":$exists,\\"kind\\":\\"$kind\\"}"
"""
CREATE = """#!/usr/bin/env bash
set -eo pipefail
root="${BOX_ROOT:-$HOME/.box}"
grep -qi microsoft /proc/version 2>/dev/null && kind=wsl || kind=linux
mkdir -p "$root/logs"
printf 'BOX_ROOT=%s\\n' "$root" > "$root/.env"
printf '{"kind": "%s", "packages": "%s"}\\n' "$kind" "$1" > "$root/profile.json"
echo "profile created"
"""
LOG = """log_event() {
    printf '%s [%s] %s\\n' "$(date +%F)" "$2" "$1" >> "${BOX_ROOT:-$HOME/.box}/logs/events.log"
}
"""


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "scripts").mkdir(parents=True)
    (skill / "evals").mkdir()
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Keeps the user's machine profile. Use when the user"
        " asks to set up their profile.\n---\n\n# Box profile\n\n1. `scripts/check.sh`: if"
        ' `"exists":false`, run `scripts/create.sh PACKAGE_MANAGER`.\n2. Log it:'
        ' `source scripts/log.sh && log_event "MESSAGE" OK`.\n'
    )
    for name, text in (("check.sh", CHECK), ("create.sh", CREATE), ("log.sh", LOG)):
        (skill / "scripts" / name).write_text(text)
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "The profile was created.",
                "must_have": ['"exists":true'],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


@pytest.mark.claude
def test_a_profile_in_the_home_and_the_kernels_version_are_the_attempts_own(
    tmp_path: Path,
) -> None:
    """On `main`: `blocked` (violation: the trace's reads of `/proc/version`)."""
    runner = agent_or_skip("claude")
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    scripts = f".claude/skills/{NAME}/scripts"
    steps = [
        {"skill": NAME},
        {"cmd": f"bash {scripts}/check.sh"},
        {"cmd": f"bash {scripts}/create.sh apt"},
        {"cmd": f'source {scripts}/log.sh && log_event "profile created" OK'},
        {"cmd": f"bash {scripts}/check.sh"},
        {
            "when": {"output_contains": '{"exists":true,'},
            "then": [{"final": 'Done: "exists":true.'}],
        },
        {"final": "The profile could not be created."},
    ]
    behaviors = one_behavior(tmp_path, "profiles", PROMPT, steps)
    outcome = run_scripted_repo(evals, None, behaviors, tmp_path / "runs", runner)  # type: ignore[arg-type]
    assert_contained_pass(outcome)
