"""Red team, round 13: a tool call that answered while its command went on (Claude Code's Bash
`run_in_background`, Gemini CLI's `is_background`) shows no run and no write by its text: the
command may have ended first, or been stopped with the attempt. Offline, without the trace (the
real CLIs with it: tests/isolation/test_red_team_round13.py)."""

from __future__ import annotations

from pathlib import Path

from evaluator.contract.models import FileWrittenCheck, ScriptRanCheck
from evaluator.evidence.builder import EvidenceBuilder
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks import run_check

SCRIPT = ".agents/skills/site-report/scripts/report.py"


def _statuses(tmp_path: Path, detached: bool) -> tuple[str, str]:
    (tmp_path / SCRIPT).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / SCRIPT).write_text("print('report')\n")
    (tmp_path / "summary.txt").write_text("done\n")
    builder = EvidenceBuilder(Path("session.jsonl"), None)
    builder.evidence.cwd = str(tmp_path)
    command = f"sleep 30; python3 {SCRIPT} out; echo done > summary.txt"
    builder.observe_command(1, None, "c1", "shell", command, None, "tool-call")
    (record,) = builder.evidence.of_kind("command_observed")
    record.exit_code = 0  # the call answered with exit 0 (Gemini CLI's, for a background one)
    if detached:
        builder.evidence.detached_calls.add("c1")
    context = JudgeContext(builder.evidence, tmp_path, "s")
    script = run_check(ScriptRanCheck(kind="script_ran", path=SCRIPT), context)
    written = run_check(FileWrittenCheck(kind="file_written", path="summary.txt"), context)
    return script.status, written.status


def test_a_call_left_running_shows_no_run_or_write_by_its_text(tmp_path: Path) -> None:
    assert _statuses(tmp_path, detached=True) == ("blocked", "blocked")


def test_the_same_command_that_ended_in_its_call_ran_and_wrote(tmp_path: Path) -> None:
    assert _statuses(tmp_path, detached=False) == ("pass", "pass")
