"""Red team, round 13: the target's script swapped for the agent's own program by a program
whose writes the shell analysis cannot place, then run by the script's path. The trace's writes
of each earlier tool call decide that what ran there is not the target's (offline; the real
CLIs: tests/isolation/test_red_team_round13.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.contract.models import CommandRanCheck, ScriptRanCheck
from evaluator.evidence.builder import EvidenceBuilder
from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.traced import ExecutedProgram, TracedCall
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks import run_check

SCRIPT = ".agents/skills/site-report/scripts/report.py"
COMMANDS = ("python3 swap.py", f"python3 {SCRIPT} out")


def _session(workspace: Path, *commands: str) -> SessionEvidence:
    builder = EvidenceBuilder(Path("session.jsonl"), None)
    builder.evidence.cwd = str(workspace)
    for index, command in enumerate(commands, 1):
        builder.observe_command(index, None, f"c{index}", "shell", command, None, "tool-call")
    return builder.evidence


def _verdicts(tmp_path: Path, written: dict[str, list[str]]) -> tuple[str, str]:
    """`script_ran` and `command_ran` of the script, the trace showing `written` per call id
    (workspace-relative paths) and every call seen whole."""
    (tmp_path / SCRIPT).parent.mkdir(parents=True)
    (tmp_path / SCRIPT).write_text("print('report')\n")
    calls = {
        call_id: TracedCall(call_id, True, written=frozenset(f"{tmp_path}/{p}" for p in paths))
        for call_id, paths in written.items()
    }
    context = JudgeContext(_session(tmp_path, *COMMANDS), tmp_path, "s", traced_calls=calls)
    script = run_check(ScriptRanCheck(kind="script_ran", path=SCRIPT), context)
    command = run_check(CommandRanCheck(kind="command_ran", pattern=r"report\.py"), context)
    return script.status, command.status


@pytest.mark.parametrize(
    "swapped",
    [
        [SCRIPT],  # written in place (renamed away first, or not)
        [".agents/skills/site-report/scripts"],  # its folder made again
        [".agents/skills/site-report"],  # the skill's folder renamed into its name
    ],
)
def test_a_script_an_earlier_call_swapped_is_not_the_targets(
    tmp_path: Path, swapped: list[str]
) -> None:
    assert _verdicts(tmp_path, {"c1": swapped, "c2": []}) == ("fail", "fail")


def test_a_write_beside_the_script_or_none_leaves_the_run_the_targets(tmp_path: Path) -> None:
    beside = [".agents/skills/site-report/scripts/notes.txt", "out/report.txt", "swap.py"]
    assert _verdicts(tmp_path, {"c1": beside, "c2": ["out/report.txt"]}) == ("pass", "pass")


def test_a_swap_in_the_call_that_ran_it_leaves_the_run_undecided(tmp_path: Path) -> None:
    """The trace keeps no order of a call's writes against its runs: the script run in the
    call that wrote it may have been the target's, or the swap."""
    script, command = _verdicts(tmp_path, {"c1": [], "c2": [SCRIPT]})
    assert (script, command) == ("blocked", "blocked")


def test_without_the_trace_nothing_changes(tmp_path: Path) -> None:
    (tmp_path / SCRIPT).parent.mkdir(parents=True)
    (tmp_path / SCRIPT).write_text("print('report')\n")
    context = JudgeContext(_session(tmp_path, *COMMANDS), tmp_path, "s")
    assert run_check(ScriptRanCheck(kind="script_ran", path=SCRIPT), context).status == "pass"


def test_a_file_the_eval_did_not_provide_is_judged_as_before(tmp_path: Path) -> None:
    """`npm install` writes `node_modules/.bin/jest`, a later call runs it: no target's file
    was swapped (the baseline, the workspace before the agent, does not hold it)."""
    jest = "node_modules/.bin/jest"
    (tmp_path / jest).parent.mkdir(parents=True)
    (tmp_path / jest).write_text("#!/usr/bin/env node\n")
    calls = {
        "c1": TracedCall("c1", True, written=frozenset({f"{tmp_path}/{jest}"})),
        "c2": TracedCall("c2", True),
    }
    evidence = _session(tmp_path, "npm install", f"./{jest} --ci")
    context = JudgeContext(evidence, tmp_path, "s", traced_calls=calls, baseline={})
    assert run_check(CommandRanCheck(kind="command_ran", pattern="jest"), context).status == "pass"
    # The same file as one the eval provided: swapped before its run.
    provided = JudgeContext(evidence, tmp_path, "s", traced_calls=calls, baseline={jest: "x"})
    assert run_check(CommandRanCheck(kind="command_ran", pattern="jest"), provided).status == "fail"


def test_a_swapped_script_run_by_a_launcher_the_text_does_not_show_is_not_the_targets(
    tmp_path: Path,
) -> None:
    """The launcher's run of the script is seen only by the trace (a process of the call);
    the script an earlier call swapped is the agent's program there too."""
    (tmp_path / SCRIPT).parent.mkdir(parents=True)
    (tmp_path / SCRIPT).write_text("print('report')\n")
    launched = ExecutedProgram(
        "/usr/bin/python3", ("python3", SCRIPT, "out"), str(tmp_path), 0, None, 10, 12
    )

    def status(swapped: bool) -> str:
        written = frozenset({f"{tmp_path}/{SCRIPT}"}) if swapped else frozenset()
        calls = {
            "c1": TracedCall("c1", True, written=written),
            "c2": TracedCall("c2", True, (launched,)),
        }
        evidence = _session(tmp_path, "python3 swap.py", "python3 launch.py")
        context = JudgeContext(evidence, tmp_path, "s", traced_calls=calls)
        check = CommandRanCheck(kind="command_ran", pattern=r"report\.py")
        return run_check(check, context).status

    assert status(swapped=False) == "pass"
    assert status(swapped=True) == "fail"
