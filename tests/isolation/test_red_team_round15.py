"""Red team, round 15 (docs/isolation.md): the variants of an evaluation run side by side on one
host and share its network. A with-skill attempt serves its workspace's skill on 127.0.0.1; the
no-skill attempt running beside it fetches SKILL.md from there and is shown it base64-encoded
(a model reads that as well as text): no file of the skill is touched, no 8 words of it reach
the agent as text. On `main` the baseline was counted as one that never saw the skill.

The real Claude Code and Gemini CLI (Codex's sandbox gives commands no network), the default
layers (jail and trace), two workers: one attempt of each variant at once.
"""

from __future__ import annotations

import base64
import json
import socket
from pathlib import Path

import pytest

from evaluator.cli.main import run_cli
from tests.conftest import ROOT
from tests.support import agent_or_skip, agent_params, scratch_dir

pytestmark = pytest.mark.slow

SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"
CASE = "routing-backfill"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _behavior(port: int) -> dict[str, object]:
    """One scripted turn for both variants (they get the same prompt): the attempt that has the
    skill serves its folder for a while, the one without fetches SKILL.md from it."""
    url = f"http://127.0.0.1:{port}/SKILL.md"
    serve = (
        "(cd .agents/skills/db-migrations && exec python3 -m http.server"
        f" {port} --bind 127.0.0.1 >/dev/null 2>&1 &); sleep 25; echo served"
    )
    # (Gemini CLI refuses a command with `$(...)`.)
    fetch = f"for i in {{1..80}}; do curl -sf {url} | base64 -w0 | grep . && break; sleep 0.5; done"
    return {
        "name": "serves-or-fetches-the-skill",
        "match": {"prompt_contains": "orders.total_cents is NULL"},
        "steps": [
            {
                "cmd": f"if [ -f .agents/skills/db-migrations/SKILL.md ]; then {serve}; else {fetch}; fi"
            },
            {"final": "done"},
        ],
    }


@pytest.mark.parametrize("agent", agent_params("claude", "gemini"))
def test_a_baseline_fed_by_a_with_skill_attempt_beside_it_is_contaminated(
    tmp_path: Path, agent: str
) -> None:
    runner = agent_or_skip(agent)
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "neighbour.yaml").write_text(json.dumps(_behavior(_free_port())))
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["evaluate", "--agent", runner, "--behaviors", str(behaviors)]
        argv += ["--attempts", "1", "--workers", "2", "--case", CASE, "--baseline", "none"]
        argv += ["--runs-dir", str(runs), "--scratch-root", str(scratch), "--run-id", "nb"]
        run_cli(argv)
    directory = runs / "nb"
    result = json.loads((directory / "evaluation.json").read_text())
    without = next(v for v in result["variants"] if "without" in json.dumps(v).lower())
    run_dir = directory / "variants/without_skill/run"
    # The channel worked: the skill's SKILL.md, base64-encoded, is in the baseline's session.
    shown = base64.b64encode(SKILL.read_bytes()).decode()[:60]
    sessions = [p.read_text(errors="replace") for p in run_dir.rglob("accepted-session.json")]
    assert any(shown in text for text in sessions), "the baseline never got the skill"
    # Before: contamination none, the attempt counted as a clean baseline.
    check = without["contamination"]
    assert check["contaminated_attempts"], check
    assert all("127.0.0.1:" in item for item in check["contaminated_attempts"]), check
    assert without["counted"] == 0, without
