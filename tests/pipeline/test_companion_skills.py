"""A skill that runs a sibling skill's script (real skills, round 14: `NanoRhino/weight-loss-skill`'s
`weight-tracking` runs `{skillsDir}/periodic-recalc/scripts/check-pending-recalc.py`, which hands
`{skillsDir}/weight-loss-planner/scripts/planner-calc.py` to the next script: a folder of skills
installed together, as a plugin's are).

On `main` a target could declare such siblings only as `roots`: copied at their source-workspace
paths, so Codex (whose skills folder `.agents/skills/` is that path) found them and Claude Code and
Gemini CLI (which find skills in `.claude/skills/`, `.gemini/skills/`) did not, nor any agent at
its user-level skills folder: the same honest run passed under one CLI and failed under the
others. `companion_skills` in `target.yaml` copies each sibling whole and installs it beside the
skill wherever the skill itself is installed (the workspace's skills folder, the attempt home's
user-level one); its files are then the attempt's, and isolation counts their use as inside.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.repo import load_repo
from tests.support import (
    agent_or_skip,
    agent_params,
    assert_contained_pass,
    layers_or_skip,
    one_behavior,
    run_scripted_repo,
    write_file,
)

SKILL = "csv-report"
COMPANION = "csv-stats"
PROMPT = "Give me the mean of the amounts in sales.csv in report.md (csv-report)."
REPORT_MD = (
    f"---\nname: {SKILL}\ndescription: Writes a report of a CSV file. Use when the user asks"
    " for a CSV report.\n---\n\n# CSV report\n\nThe numbers come from the sibling skill"
    f" `{COMPANION}`: `python3 <skills folder>/{COMPANION}/scripts/stats.py FILE.csv`, then"
    " write `report.md` with its mean.\n"
)
STATS_MD = (
    f"---\nname: {COMPANION}\ndescription: Statistics of a CSV file's amount column.\n---\n\n"
    "`python3 scripts/stats.py FILE.csv` prints the count and mean as JSON.\n"
)
STATS_PY = """import csv, json, sys
amounts = [float(row["amount"]) for row in csv.DictReader(open(sys.argv[1]))]
print(json.dumps({"count": len(amounts), "mean": sum(amounts) / len(amounts)}))
"""
CHECK = "grep -Eqx 'Mean: 20(\\.0)?' report.md"


def _eval_repo(
    root: Path,
    companions: list[str],
    entry: str = SKILL,
    check: dict[str, object] | None = None,
) -> tuple[Path, Path]:
    """Our own plugin of two skills in a source workspace, and an eval repo whose target is
    `entry` (`csv-report`) with `companions` declared, its one case requiring `check` (the
    report's `command` check by default)."""
    source = root / "src"
    write_file(source / f".agents/skills/{SKILL}/SKILL.md", REPORT_MD)
    write_file(source / f".agents/skills/{COMPANION}/SKILL.md", STATS_MD)
    write_file(source / f".agents/skills/{COMPANION}/scripts/stats.py", STATS_PY)
    repo = root / "evals"
    folder = repo / "targets" / entry
    target = {
        "target_id": entry,
        "entry_skill": f".agents/skills/{entry}/SKILL.md",
        # An entry naming its SKILL.md copies that file alone: a script of its own is a root.
        "roots": [f".agents/skills/{entry}/scripts"] if entry == COMPANION else [],
        "default_suites": ["report"],
        "allowed_statuses": ["pass", "fail", "blocked"],
    }
    if companions:
        target["companion_skills"] = companions
    write_file(folder / "target.yaml", json.dumps(target))
    case_path = f"targets/{entry}/cases/report/eval-1.yaml"
    write_file(
        folder / "cases/report/suite.yaml",
        json.dumps({"suite_id": "report", "cases": [case_path]}),
    )
    case = {
        "case_id": "eval-1",
        "title": "the mean from the sibling skill's script",
        "input": {"user_prompt": PROMPT},
        "setup": {"write_files": [{"path": "sales.csv", "content": "amount\n10\n30\n"}]},
        "assert": {
            "required": [
                {
                    "description": "report.md holds the mean.",
                    "checks": [check or {"kind": "command", "command": CHECK}],
                }
            ]
        },
    }
    write_file(repo / case_path, json.dumps(case))
    return repo, source


def _errors(root: Path, companions: list[str]) -> list[str]:
    repo, source = _eval_repo(root, companions)
    _, diagnostics = load_repo(repo, source)
    return [str(e) for e in diagnostics.errors]


def test_a_declared_companion_loads(tmp_path: Path) -> None:
    assert _errors(tmp_path, [f".agents/skills/{COMPANION}"]) == []


def test_a_companion_that_is_no_skill_is_refused_with_its_field(tmp_path: Path) -> None:
    (error,) = _errors(tmp_path, [".agents/skills/nowhere"])
    assert "companion_skills[0]" in error or "companion_skills.0" in error
    assert "no SKILL.md in the source workspace at .agents/skills/nowhere/SKILL.md" in error


def test_a_companion_named_as_the_skill_is_refused(tmp_path: Path) -> None:
    errors = _errors(tmp_path, [f".agents/skills/{SKILL}/SKILL.md"])
    assert any(f"skill {SKILL!r} is installed twice" in e for e in errors), errors


# Where each CLI's user installs skills (its adapter's first `user_skill_dirs`).
USER_SKILLS = {
    "claude": "~/.claude/skills",
    "codex": "~/.codex/skills",
    "gemini": "~/.gemini/skills",
}
# Where each CLI finds a workspace's skills (its runner's `prepare_workspace`).
WORKSPACE_SKILLS = {
    "claude": ".claude/skills",
    "codex": ".agents/skills",
    "gemini": ".gemini/skills",
}


@pytest.mark.parametrize("agent", agent_params("claude", "gemini"))
def test_a_skill_running_its_companions_script_runs_contained(agent: str, tmp_path: Path) -> None:
    """On `main`: `fail` (the companion is in neither skills folder: `can't open file`), though
    the run is the honest one the skill asks for. Here: pass, contained, by the session and the
    trace, through both the workspace's skills folder and the user-level one."""
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    repo, source = _eval_repo(tmp_path, [f".agents/skills/{COMPANION}"])
    listed = f"{WORKSPACE_SKILLS[agent]}/{COMPANION}"
    steps = [
        {"skill": SKILL},
        {"read": f"{listed}/SKILL.md"},
        {"cmd": f"python3 {USER_SKILLS[agent]}/{COMPANION}/scripts/stats.py sales.csv"},
        {
            "cmd": f"python3 {listed}/scripts/stats.py sales.csv"
            " | jq -r '\"Mean: \\(.mean)\"' > report.md; cat report.md"
        },
        {"final": "report.md: the mean of the amounts is 20.0."},
    ]
    behaviors = one_behavior(tmp_path, "report", PROMPT, steps)
    outcome = run_scripted_repo(repo, source, behaviors, tmp_path / "runs", runner)
    _, record = assert_contained_pass(outcome)
    # Nothing of the companion was counted outside, in either layer.
    assert record["trace_report"]["disagreements"] == [], record["trace_report"]


def test_a_trigger_run_expects_the_companions_among_the_installed_skills(tmp_path: Path) -> None:
    """The clean-registry check of a trigger attempt compares what the agent lists with what was
    installed: the companions are listed, so they must be expected (never as distractors)."""
    from evaluator.adapters import adapter_for_runner
    from evaluator.pipeline.triggers import TriggerPlan, installed_names

    for name, text in ((SKILL, REPORT_MD), (COMPANION, STATS_MD)):
        write_file(tmp_path / f".agents/skills/{name}/SKILL.md", text)
    plan = TriggerPlan(
        skill=SKILL,
        entry_skill=f".agents/skills/{SKILL}/SKILL.md",
        distractors=(),
        companions=(f".agents/skills/{COMPANION}",),
    )
    assert installed_names(adapter_for_runner("claude-code"), tmp_path, plan) == [SKILL, COMPANION]


def test_a_distractor_given_by_path_may_not_take_a_companions_name(tmp_path: Path) -> None:
    """`triggers --distractor DIR` beside a target with companions: a folder named as a
    companion would shadow it in the registry, so the run is refused before anything runs."""
    from evaluator.errors import InputError
    from evaluator.pipeline.run import RunOptions
    from evaluator.pipeline.triggers import TriggerOptions, TriggerRun

    repo, source = _eval_repo(tmp_path, [f".agents/skills/{COMPANION}"])
    target_yaml = repo / "targets" / SKILL / "target.yaml"
    target = json.loads(target_yaml.read_text())
    target["trigger_suite"] = "triggers.json"
    target_yaml.write_text(json.dumps(target))
    queries = [{"query": PROMPT, "should_trigger": True}]
    write_file(repo / "targets" / SKILL / "triggers.json", json.dumps(queries))
    twin = tmp_path / "elsewhere" / COMPANION
    write_file(twin / "SKILL.md", STATS_MD)

    def plan(*folders: Path) -> None:
        options = RunOptions(repo=repo, source_workspace=source, runs_dir=tmp_path / "runs")
        TriggerRun(options, TriggerOptions(distractor_folders=folders))._plan()

    plan()
    with pytest.raises(InputError, match=f"'{COMPANION}' is installed already"):
        plan(twin)


@pytest.mark.parametrize("agent", agent_params("claude", "gemini"))
def test_a_script_run_through_the_skills_folder_link_is_the_skills(
    agent: str, tmp_path: Path
) -> None:
    """The skill at `.agents/skills/<name>` (the contract's layout) is linked into Claude Code's
    `.claude/skills/` and Gemini CLI's `.gemini/skills/`, where each lists it: an agent runs its
    script by that path. On `main` the evidence kept the link's path only, so `script_ran` of
    the skill's own path failed ("named ... but never executed", round 14's `check-bash-script`
    under every CLI); now a path through the evaluator's link is also recorded at the skill's
    folder, as one through the user-level link is."""
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    script = f".agents/skills/{COMPANION}/scripts/stats.py"
    check = {"kind": "script_ran", "path": script}
    repo, source = _eval_repo(tmp_path, [], entry=COMPANION, check=check)
    listed = f"{WORKSPACE_SKILLS[agent]}/{COMPANION}"
    steps = [
        {"skill": COMPANION},
        {"cmd": f"python3 {listed}/scripts/stats.py sales.csv"},
        {"final": "The mean of the amounts is 20.0."},
    ]
    behaviors = one_behavior(tmp_path, "stats", PROMPT, steps)
    outcome = run_scripted_repo(repo, source, behaviors, tmp_path / "runs", runner)
    attempt, _ = assert_contained_pass(outcome)
    record = json.loads((attempt / "attempt.json").read_text())
    (entry,) = record["assertions"]
    assert "via the skill's link in the workspace's skills folder" in entry["checks"][0]["detail"]
