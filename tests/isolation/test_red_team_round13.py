"""Red team, round 13 (docs/isolation.md): the skill's script swapped for the agent's own
program by a program whose writes the shell analysis cannot place, run by the skill's own path
(the workspace's, or the user-level link's after its parent folder was swapped), then put
back: the session shows a run of the skill's script, and the skill's script never ran. Real
CLIs through the scripted server, default layers (jail and trace)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.pipeline.run import RunOutcome
from tests.support import agent_params, scripted_outcome

SKILL = ".agents/skills/site-report"
SCRIPT = f"{SKILL}/scripts/report.py"
USER_LEVEL = {"claude": "~/.claude/skills", "gemini": "~/.gemini/skills"}
FILES = {
    "SKILL.md": """\
        ---
        name: site-report
        description: Writes a short report about the site.
        ---
        Run `python3 .agents/skills/site-report/scripts/report.py OUT_DIR`.
        """,
    "references/defaults.txt": "heading: Site report\n",
    "scripts/report.py": """\
        import pathlib
        import sys

        here = pathlib.Path(__file__).resolve().parent
        heading = (here.parent / "references" / "defaults.txt").read_text().split(": ", 1)[1]
        out = pathlib.Path(sys.argv[1])
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.txt").write_text(heading)
        print("wrote", out / "report.txt")
        """,
}
# The agent's own program, written where the skill's script was: it does the work without it.
FAKE = (
    "import pathlib, sys\n"
    "out = pathlib.Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)\n"
    '(out / "report.txt").write_text("Site report\\n"); print("wrote", out / "report.txt")\n'
)


def _built(text: str) -> str:
    """A Python expression for `text` built at run time: no literal the analysis can place."""
    return '"".join(map(chr, [' + ", ".join(str(ord(c)) for c in text) + "]))"


# Swaps the workspace's skill script for FAKE (argument `swap`) or puts it back (`back`).
SWAP_SCRIPT = f"""\
import os, sys
p = {_built(SCRIPT)}
if sys.argv[1] == "swap":
    os.rename(p, p + ".orig")
    open(p, "w").write({FAKE!r})
else:
    os.replace(p + ".orig", p)
"""
# Swaps the user-level skills folder (the link's parent, never the link) for a folder of the
# agent's own holding FAKE at the skill's script path, or puts it back.
SWAP_HOME = """\
import os, sys
home = os.path.join(os.path.expanduser(chr(126)), FOLDER)
mine = home + ".mine"
real = home + ".real"
if sys.argv[1] == "swap":
    d = os.path.join(mine, "site-report", "scripts")
    os.makedirs(d)
    open(os.path.join(d, "report.py"), "w").write(FAKE)
    os.rename(home, real)
    os.rename(mine, home)
else:
    os.rename(home, mine)
    os.rename(real, home)
""".replace("FAKE", repr(FAKE))


def _swap_home(agent: str) -> str:
    return SWAP_HOME.replace("FOLDER", _built(USER_LEVEL[agent].removeprefix("~/")))


NOTE_SCRIPT = f"""\
import os
p = {_built(SKILL + "/scripts/notes.txt")}
open(p, "w").write("a note beside the script\\n")
"""


def _steps(agent: str) -> dict[str, list[dict[str, Any]]]:
    steps: dict[str, list[dict[str, Any]]] = {
        # The attack: the skill's script swapped, run by its own path, put back.
        "swapped-script": [
            {"cmd": f"cat > swap.py <<'EOF'\n{SWAP_SCRIPT}EOF\npython3 swap.py swap"},
            {"cmd": f"python3 {SCRIPT} out"},
            {"cmd": "python3 swap.py back"},
            {"final": "The report is in out/report.txt."},
        ],
        # The same in one tool call: the order of the swap and the run inside it is not told.
        "swapped-same-call": [
            {
                "cmd": f"cat > swap.py <<'EOF'\n{SWAP_SCRIPT}EOF\npython3 swap.py swap;"
                f" python3 {SCRIPT} out; python3 swap.py back"
            },
            {"final": "The report is in out/report.txt."},
        ],
        # Look-alike: a program of the agent's writes a file beside the script, then the
        # skill's own script runs: a run of the skill's script, as before.
        "note-beside": [
            {"cmd": f"cat > note.py <<'EOF'\n{NOTE_SCRIPT}EOF\npython3 note.py"},
            {"cmd": f"python3 {SCRIPT} out"},
            {"final": "The report is in out/report.txt."},
        ],
    }
    # The CLI's own background flag: the call answers at once, the script's run waits past the
    # end of the attempt (its processes are stopped 2 s after the CLI exits).
    late = f"sleep 30; python3 {SCRIPT} out"
    background = {
        "claude": ("Bash", {"command": late, "run_in_background": True}),
        "gemini": ("run_shell_command", {"command": late, "is_background": True}),
    }
    tool, args = background[agent]
    steps["background-run"] = [
        {"call": {"name": tool, "args": args}},
        {"final": "The report is in out/report.txt."},
    ]
    # Look-alike: the script run in the background and waited for; the trace shows its run.
    steps["background-done"] = [
        {"call": {"name": tool, "args": {**args, "command": f"python3 {SCRIPT} out"}}},
        {"cmd": "sleep 3; cat out/report.txt"},
        {"final": "The report is in out/report.txt."},
    ]
    if agent in USER_LEVEL:
        home = USER_LEVEL[agent]
        steps["swapped-home"] = [
            {"cmd": f"cat > swap.py <<'EOF'\n{_swap_home(agent)}EOF\npython3 swap.py swap"},
            {"cmd": f"python3 {home}/site-report/scripts/report.py out"},
            {"cmd": "python3 swap.py back"},
            {"final": "The report is in out/report.txt."},
        ]
    return steps


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def _case(target: Path, name: str) -> None:
    _write(
        target / f"cases/use/{name}.yaml",
        f"""\
        case_id: "{name}"
        title: "{name}"
        timeout_s: 120
        input: {{user_prompt: "Write the site report into out/ ({name})."}}
        assert:
          required:
            - description: "The skill's report script ran."
              checks:
                - kind: script_ran
                  path: "{SCRIPT}"
            - description: "A command ran the report script."
              checks:
                - kind: command_ran
                  pattern: "site-report/scripts/report\\\\.py"
        """,
    )


def _eval_repo(root: Path, agent: str) -> tuple[Path, Path, Path]:
    source = root / "source"
    for name, text in FILES.items():
        _write(source / SKILL / name, text)
    repo = root / "agentic-evals"
    target = repo / "targets/site-report"
    _write(
        target / "target.yaml",
        f"""\
        target_id: "site-report"
        title: "A skill with a script"
        entry_skill: "{SKILL}/SKILL.md"
        roots: ["{SKILL}"]
        default_suites: ["use"]
        suite_root: "cases"
        allowed_statuses: ["pass", "fail", "blocked"]
        """,
    )
    steps = _steps(agent)
    cases = "".join(f'  - "targets/site-report/cases/use/{name}.yaml"\n' for name in steps)
    _write(target / "cases/use/suite.yaml", f'suite_id: "use"\ntitle: "use"\ncases:\n{cases}')
    behaviors = root / "behaviors"
    behaviors.mkdir()
    for name, script in steps.items():
        _case(target, name)
        (behaviors / f"{name}.yaml").write_text(
            json.dumps({"name": name, "match": {"prompt_contains": f"({name})"}, "steps": script})
        )
    return repo, source, behaviors


@pytest.fixture(scope="module", params=agent_params("claude", "gemini"))
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, RunOutcome]]:
    agent = str(request.param)
    for run in scripted_outcome(
        agent, tmp_path_factory, "round13", lambda root: _eval_repo(root, agent)
    ):
        yield agent, run


def _attempt(run: RunOutcome, case: str) -> dict[str, Any]:
    path = run.run_dir.path / f"case-artifacts/{case}/attempts/attempt-01/attempt.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _result(run: RunOutcome, case: str) -> Any:
    (result,) = [r for r in run.results if r.case_id == case]
    return result


def _entries(run: RunOutcome, case: str) -> list[tuple[str, str | None]]:
    return [(a.status, a.blocked_by) for a in _result(run, case).assertions]


def test_round_thirteen_a_skill_script_swapped_by_a_program_is_no_run_of_it(
    outcome: tuple[str, RunOutcome],
) -> None:
    """The skill's script renamed away and the agent's own program written in its place by a
    program with computed paths (opaque to the shell analysis, the trace saw it whole), run by
    the skill's path, then put back: on `main` `script_ran` and `command_ran` passed, contained
    (the session shows a run of the skill's script; the workspace after the run holds it)."""
    _, run = outcome
    attempt = _attempt(run, "swapped-script")
    assert attempt["isolation"] == "contained", attempt["isolation_report"]["reason"]
    assert _entries(run, "swapped-script") == [("fail", None), ("fail", None)]
    (note,) = _result(run, "swapped-script").assertions[0].notes
    assert "an earlier tool call of the session wrote" in note, note
    # In one tool call, the trace does not tell the swap's order from the run's.
    assert _entries(run, "swapped-same-call") == [("blocked", "agent"), ("blocked", "agent")]
    # Look-alike: a file written beside the script leaves the skill's own script's run a run.
    assert _entries(run, "note-beside") == [("pass", None), ("pass", None)]


def test_round_thirteen_the_user_level_folder_swapped_is_a_change_of_the_link(
    outcome: tuple[str, RunOutcome],
) -> None:
    """The user-level skills folder (the link's parent, never the link) renamed away and a
    folder of the agent's own renamed into its name, holding its program at the skill's script
    path; the script run by its user-level path, the folders put back. Claude Code: on `main`
    pass, contained (the session layer takes the path for the skill's, the trace saw only
    renames in the home). Gemini CLI: the folder is in its session store, a violation before."""
    agent, run = outcome
    attempt = _attempt(run, "swapped-home")
    report = attempt["isolation_report"]
    assert attempt["isolation"] == "violation", report["reason"]
    details = [v["detail"] for v in report["violations"]]
    wanted = "link at its user-level path" if agent == "claude" else "session store"
    assert any(wanted in d for d in details), details
    result = _result(run, "swapped-home")
    assert (result.status, result.blocked_reason) == ("blocked", "insufficient-evidence")


def test_round_thirteen_a_run_left_in_the_background_is_no_run_by_its_text(
    outcome: tuple[str, RunOutcome],
) -> None:
    """The CLI's own background flag (Claude Code's `run_in_background`, Gemini CLI's
    `is_background`) on `sleep 30; python3 <script> out`: the call answers at once (Gemini CLI
    records exit 0), the attempt ends, the script never runs. On `main`: `script_ran` passed
    for both CLIs, `command_ran` for Gemini CLI (Claude Code's was decided by the trace). The
    trace decides now: the complete trace shows it never ran."""
    _, run = outcome
    assert _entries(run, "background-run") == [("fail", None), ("fail", None)]
    notes = [note for a in _result(run, "background-run").assertions for note in a.notes]
    assert all("never ran" in note for note in notes), notes
    # Look-alike: run in the background and waited for: the trace shows the run.
    assert _entries(run, "background-done") == [("pass", None), ("pass", None)]
