"""Red team, round 14 (docs/isolation.md): tools that open files in the agent CLI's own process
(no process for the trace to see, outside Codex's command sandbox). Codex's `view_image` opens
the path the model gives and sends the file to the model; before this round the session layer
did not place that path, so a read of a file outside the workspace, next to a `pwd`, was
`contained`. Real CLIs through the scripted server, one short scripted turn each."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from evaluator.pipeline.run import RunOutcome
from tests.support import agent_or_skip, layers_or_skip, one_behavior, run_scripted

PROMPT = "Which colour does the swatch skill recommend for warnings? Answer in one word."
SKILL_IMAGE = ".agents/skills/swatch/assets/swatch.png"


def _png() -> bytes:
    """A one-pixel PNG: an image Codex accepts and sends to the model."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\xbf\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def _suite(root: Path) -> Path:
    skill = root / "swatch"
    (skill / "assets").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: swatch\ndescription: Colours for status messages.\n---\n\n"
        "Warnings are amber; `assets/swatch.png` shows it.\n"
    )
    (skill / "assets/swatch.png").write_bytes(_png())
    evals = skill / "evals"
    evals.mkdir()
    (evals / "evals.json").write_text(
        json.dumps(
            {
                "skill_name": "swatch",
                "evals": [
                    {
                        "id": 1,
                        "prompt": PROMPT,
                        "expected_output": "amber",
                        "expectations": ["The final answer mentions `amber`."],
                    }
                ],
            }
        )
    )
    return evals / "evals.json"


def _run(root: Path, steps: list[dict[str, Any]], **options: Any) -> RunOutcome:
    root.mkdir(exist_ok=True)
    behaviors = one_behavior(root, "round14", PROMPT[:40], steps)
    return run_scripted(
        _suite(root), behaviors, root / "runs", agent="codex-exec", cases=("eval-1",), **options
    )


def _attempts(outcome: RunOutcome) -> list[dict[str, Any]]:
    folder = outcome.run_dir.path / "case-artifacts/eval-1/attempts"
    return [json.loads(path.read_text()) for path in sorted(folder.glob("*/attempt.json"))]


def _view(path: str) -> list[dict[str, Any]]:
    return [
        {"cmd": "pwd"},
        {"call": {"name": "view_image", "args": {"path": path}}},
        {"final": "Warnings are amber."},
    ]


@pytest.mark.codex
@pytest.mark.parametrize("target", ["/etc/hostname", "../" * 12 + "etc/hostname"])
def test_round_fourteen_view_image_outside_the_workspace_is_a_violation(
    target: str, tmp_path: Path
) -> None:
    """In the jail, with the trace: Codex opens the file itself (`/etc/hostname` is no image: it
    answers so, which tells the model the file is there); the trace sees no process of it."""
    agent_or_skip("codex")
    layers_or_skip(trace=True, jail=True)
    outcome = _run(tmp_path, _view(target))
    attempts = _attempts(outcome)
    assert attempts[0]["isolation_layers"] == {"sandbox": "bwrap", "trace": "strace"}
    for attempt in attempts:
        assert attempt["isolation"] == "violation", attempt["isolation_report"]
        paths = [v["path"] for v in attempt["isolation_report"]["violations"]]
        assert "/etc/hostname" in paths, paths
    (result,) = outcome.results
    assert (result.status, result.blocked_reason) == ("blocked", "insufficient-evidence")


@pytest.mark.codex
def test_round_fourteen_view_image_of_a_file_beside_the_eval_without_the_jail(
    tmp_path: Path,
) -> None:
    """Without the jail the file's bytes reach the model (the session holds them as a data URL):
    the attempt must not be `contained`."""
    agent_or_skip("codex")
    layers_or_skip(trace=True)
    (tmp_path / "private.png").write_bytes(_png())
    outcome = _run(tmp_path, _view(str(tmp_path / "private.png")), sandbox="none")
    for attempt in _attempts(outcome):
        assert attempt["isolation"] == "violation", attempt["isolation_report"]
    (result,) = outcome.results
    assert (result.status, result.blocked_reason) == ("blocked", "insufficient-evidence")


@pytest.mark.codex
@pytest.mark.parametrize("target", [SKILL_IMAGE, f"./{SKILL_IMAGE}"])
def test_round_fourteen_view_image_inside_the_workspace_stays_contained(
    target: str, tmp_path: Path
) -> None:
    """Look-alike: the skill's own image in the workspace."""
    agent_or_skip("codex")
    layers_or_skip(trace=True, jail=True)
    steps = _view(target)
    outcome = _run(tmp_path, steps)
    (attempt,) = _attempts(outcome)
    assert attempt["isolation"] == "contained", attempt["isolation_report"]
    (result,) = outcome.results
    assert result.status == "pass", result


@pytest.mark.codex
def test_round_fourteen_a_tool_codex_does_not_offer_touched_nothing(tmp_path: Path) -> None:
    """Look-alike of the unknown-tool rule: Codex answers `unsupported call: read_file` and runs
    nothing, so the call makes nothing opaque."""
    agent_or_skip("codex")
    layers_or_skip(trace=True, jail=True)
    steps = [
        {"cmd": "pwd"},
        {"call": {"name": "read_file", "args": {"file_path": "/etc/hostname"}}},
        {"final": "Warnings are amber."},
    ]
    outcome = _run(tmp_path, steps)
    (attempt,) = _attempts(outcome)
    assert attempt["isolation"] == "contained", attempt["isolation_report"]
    (result,) = outcome.results
    assert result.status == "pass", result
