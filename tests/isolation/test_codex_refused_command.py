"""A command Codex's exec policy refuses before starting it (`rm -rf` of an intermediate folder,
as round 12's `openai-doc` asks: "delete intermediate files when done"). Codex answers
`exec_command failed: CreateProcess { message: "Rejected(... rm -f style commands are not
permitted ...)" }`: nothing ran, so the trace has no process of it. On `main` that command was
"in the session but no process in the trace ran it", a disagreement, so the trace vouched for
no opaque call of the attempt (here `node -e`): an honest pass was `blocked` (unverifiable).

Our own skill and files; the real Codex CLI with the default layers (jail and trace).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support import agent_or_skip, assert_contained_pass, layers_or_skip, run_scripted

NAME = "tally-notes"
PROMPT = "Tally the words of notes.txt into out/count.txt (tally-notes), then clean up."


def _evals(root: Path) -> Path:
    skill = root / NAME
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Counts the words of a text file with node. Use when"
        " the user asks for a word count.\n---\n\n# Tally\n\n1. Work in `tmp/tally/`.\n2. Count"
        " with `node -e` and write `out/count.txt`.\n3. Delete `tmp/tally/` when done.\n"
    )
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "out/count.txt holds 5.",
                "files": [{"path": "notes.txt", "content": "ship the cart on friday\n"}],
                "assertions": [
                    {
                        "type": "command",
                        "command": "grep -qx 5 out/count.txt",
                        "expect_exit_code": 0,
                    }
                ],
            }
        ],
    }
    path = skill / "evals/evals.json"
    path.write_text(json.dumps(evals))
    return path


STEPS = [
    {"skill": NAME},
    {"cmd": "mkdir -p tmp/tally out && cp notes.txt tmp/tally/in.txt"},
    {
        "cmd": 'node -e \'const fs = require("fs"); const t = fs.readFileSync("tmp/tally/in.txt",'
        ' "utf8"); fs.writeFileSync("out/count.txt", t.split(/\\s+/).filter(Boolean).length'
        ' + "\\n")\' && cat out/count.txt'
    },
    {"cmd": "rm -rf tmp/tally"},
    {"final": "Counted 5 words into out/count.txt."},
]


@pytest.mark.codex
def test_a_command_codex_refused_leaves_the_trace_in_agreement(tmp_path: Path) -> None:
    """On `main`: `blocked` (unverifiable: `node -e` opaque, the refused `rm -rf` unseen)."""
    runner = agent_or_skip("codex")
    layers_or_skip(trace=True, jail=True)
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "tally.yaml").write_text(
        json.dumps({"name": "tally", "match": {"prompt_contains": "tally-notes"}, "steps": STEPS})
    )
    outcome = run_scripted(_evals(tmp_path / "src"), behaviors, tmp_path / "runs", agent=runner)
    attempt, record = assert_contained_pass(outcome)
    session = (attempt / "accepted-session.jsonl").read_text()
    # the refusal is Codex's own: without it this test shows nothing
    assert "exec_command failed: CreateProcess" in session and "Rejected(" in session
    assert record["trace_report"]["disagreements"] == []


def _rollout(tmp_path: Path, output: str, command: str = "rm -rf tmp/tally") -> Path:
    def line(kind: str, payload: dict[str, object]) -> str:
        return json.dumps(
            {"timestamp": "2026-11-30T23:45:00.000Z", "type": kind, "payload": payload}
        )

    call = {"cmd": command}
    lines = [
        line("session_meta", {"id": "p", "cwd": "/ws", "cli_version": "0.169.0", "source": "exec"}),
        line(
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps(call),
                "call_id": "c1",
            },
        ),
        line("response_item", {"type": "function_call_output", "call_id": "c1", "output": output}),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


REFUSED = (
    'exec_command failed: CreateProcess { message: "Rejected(\\"`/bin/bash -c \\\\\\"rm -rf'
    ' tmp/tally\\\\\\"` rejected: rm -f style commands are not permitted. Use a safer'
    ' approach\\")" }'
)


@pytest.mark.parametrize(
    "output,refused",
    [
        (REFUSED, True),  # the shape of the real 0.169.0 answer (above)
        # look-alikes: the command ran and printed the words; another spawn failure
        ("Chunk ID: 1\nProcess exited with code 0\nOutput:\n" + REFUSED, False),
        ('exec_command failed: CreateProcess { message: "No such file or directory" }', False),
    ],
)
def test_only_a_refusal_before_the_start_is_a_denied_call(
    tmp_path: Path, output: str, refused: bool
) -> None:
    from evaluator.adapters.codex.normalize import normalize_codex_rollout
    from evaluator.isolation.trace import _match

    evidence = normalize_codex_rollout(_rollout(tmp_path, output))
    assert bool(evidence.of_kind("tool_denied")) is refused
    _, unseen = _match([], evidence)
    assert [r.command for r in unseen] == ([] if refused else ["rm -rf tmp/tally"])


@pytest.mark.parametrize("output,refused", [(REFUSED, True), ("Chunk ID: 1\nOutput:\n", False)])
def test_a_refused_commands_paths_are_no_accesses(
    tmp_path: Path, output: str, refused: bool
) -> None:
    """Round 20: a command Codex refused still had its paths counted by the session layer (the
    normaliser records them at the call): `rm -rf ../shared-cache` refused was a violation."""
    from evaluator.adapters.codex.normalize import normalize_codex_rollout
    from evaluator.isolation.assess import assess_isolation

    path = _rollout(
        tmp_path, output.replace("tmp/tally", "../shared-cache"), "rm -rf ../shared-cache"
    )
    evidence = normalize_codex_rollout(path)
    assert any(r.path == "/shared-cache" for r in evidence.of_kind("file_write_observed"))
    report = assess_isolation(evidence, Path("/ws"))
    assert [v.path for v in report.violations] == ([] if refused else ["/shared-cache"])
