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


@pytest.mark.claude
@pytest.mark.parametrize(
    ("names", "fires"),
    [
        pytest.param(["db-migrations\ufeff"], True, id="padded: launched"),
        pytest.param(["/ db-migrations", "DB-Migrations"], False, id="look-alikes: refused"),
    ],
)
def test_a_padded_skill_name_on_a_should_not_fire_prompt_fired(
    tmp_path: Path, names: list[str], fires: bool
) -> None:
    """A should-not-fire prompt; the agent calls `Skill` with the skill's name padded with
    U+FEFF, which JavaScript's `trim` removes and Python's `strip` keeps. Claude Code launched
    the skill; on `main` the signal took the name for another skill's: not fired, the prompt
    counted as right. Look-alikes Claude Code refuses do not fire, before and after."""
    from tests.triggers.test_trigger_run_agents import _observations, trigger_run

    agent_or_skip("claude")
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    steps: list[dict[str, object]] = [
        {"call": {"name": "Skill", "args": {"skill": name}}} for name in names
    ]
    (behaviors / "chart.yaml").write_text(
        json.dumps(
            {
                "name": "padded-skill-name",
                "match": {"prompt_contains": "quarterly revenue chart"},
                "steps": [*steps, {"final": "Done."}],
            }
        )
    )
    triggers = tmp_path / "one.yaml"
    triggers.write_text(
        'trigger_suite_id: "one"\nskill: "db-migrations"\ncases:\n'
        '  - {id: "chart", prompt: "Draw the quarterly revenue chart as an SVG.",'
        " expect_trigger: false}\n"
    )
    with scratch_dir() as scratch:
        run, data = trigger_run(
            scratch, "claude", "good", attempts=1, trigger_file=triggers, behaviors=behaviors
        )
        (seen,) = _observations(run)
        sessions = [p.read_text() for p in run.rglob("accepted-session.json")]
    launched = any("Launching skill: db-migrations" in text for text in sessions)
    assert launched is fires  # what Claude Code did
    assert seen["fired"] is fires, json.dumps(seen)
    (prompt,) = data["prompts"]
    assert prompt["triggered"] is fires, prompt
