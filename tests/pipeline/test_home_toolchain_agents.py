"""A skill that runs the machine's Rust toolchain (`cargo fmt`, `cargo clippy`), the shape of
`zixian-cai/hwgc-soft`'s `rust` skill (round 7, docs/real-repos.md). rustup's `cargo` on PATH is
a proxy that finds its toolchains under HOME, and the agent's HOME is the attempt's own: on
`main` every agent's `cargo` answered "no default is configured" (Codex's: "could not create home
directory ... Read-only file system"), so an honest run failed where a user's would pass. The
agent is now pointed at the machine's toolchains, bound back read-only in the jail.

Our own small crate and skill, the real Codex CLI, Claude Code and Gemini CLI with the default
layers (jail and trace). Skipped where this machine has no rustup toolchains.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evaluator.sandbox.launch import home_toolchains
from tests.support import (
    agent_or_skip,
    agent_params,
    assert_contained_pass,
    layers_or_skip,
    run_scripted_repo,
)

NAME = "rust-tidy"
PROMPT = "Tidy the tally crate with the rust-tidy skill."
MESSY = "pub fn add(a:i32,b:i32)->i32{\n    return a+b;\n}\n"
FORMATTED = "pub fn add(a: i32, b: i32) -> i32 {"


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "evals/files/src").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Formats and lints Rust crates. Use when the user asks"
        " to tidy Rust code.\n---\n\n# Rust tidy\n\nRun `cargo fmt`, then `cargo clippy` and fix"
        " what it flags.\n"
    )
    (skill / "evals/files/Cargo.toml").write_text(
        '[package]\nname = "tally"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n'
    )
    (skill / "evals/files/src/lib.rs").write_text(MESSY)
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "src/lib.rs formatted, clippy clean.",
                "files": ["evals/files/Cargo.toml", "evals/files/src/lib.rs"],
                "assertions": [
                    # only rustfmt writes this line: the agent never edits the file itself
                    {
                        "type": "file_contains",
                        "path": "evals/files/src/lib.rs",
                        "contains": FORMATTED,
                    },
                    {"type": "command", "command": "cd evals/files && cargo fmt --check"},
                ],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


def _behaviors(root: Path, agent: str) -> Path:
    load: dict[str, Any] = (
        {"call": {"name": "activate_skill", "args": {"name": NAME}}}
        if agent == "gemini"
        else {"skill": NAME}
    )
    steps = [
        load,
        {"cmd": "cd evals/files && cargo fmt && cargo clippy -q 2>&1 | tail -15"},
        {"final": "I ran cargo fmt (src/lib.rs reformatted) and cargo clippy."},
    ]
    behaviors = root / "behaviors"
    behaviors.mkdir()
    body = {"name": "tidies", "match": {"prompt_contains": PROMPT}, "steps": steps}
    (behaviors / "tidies.yaml").write_text(json.dumps(body))
    return behaviors


@pytest.mark.parametrize("agent", agent_params("codex", "claude", "gemini"))
def test_the_machines_rust_toolchain_runs_for_the_agent(agent: str, tmp_path: Path) -> None:
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    if "RUSTUP_HOME" not in home_toolchains() or shutil.which("cargo") is None:
        pytest.skip("no rustup toolchains on this machine")
    evals = _skill_repo(tmp_path / "src")
    behaviors = _behaviors(tmp_path, agent)
    outcome = run_scripted_repo(evals, None, behaviors, tmp_path / "runs", runner)  # type: ignore[arg-type]
    assert_contained_pass(outcome, traced=False)
