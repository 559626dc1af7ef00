"""Skills that name their user-level install path (`bash ~/.claude/skills/<name>/scripts/x.sh`),
followed literally by an honest agent, on the real pinned CLIs under the default layers (jail and
trace): the attempt's own fresh home holds the skill under test at the agent's user-level skills
path, a link to the workspace's skill folder, so the literal command runs the same files and the
attempt is contained (docs/isolation.md, "The skill at its user-level path"). Anything else under
the home is still outside, and a no-skill variant's home has no copy.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.pipeline.run import RunOutcome
from tests.support import (
    agent_or_skip,
    agent_params,
    layers_or_skip,
    run_scripted,
    tracer_under_test,
)

SKILL = ".agents/skills/site-report"
# Where each agent's users install a skill: what public skills write in their commands.
USER_LEVEL = {
    "codex": "~/.codex/skills/site-report",
    "claude": "~/.claude/skills/site-report",
    "gemini": "~/.gemini/skills/site-report",
}
# The user-level folder the open skills standard names, which Codex CLI and Gemini CLI both list
# skills from (Claude Code does not: there it is an ordinary folder of the home).
AGENTS_LEVEL = "~/.agents/skills/site-report"
READS_AGENTS_LEVEL = {"codex": True, "claude": False, "gemini": True}
FILES = {
    "SKILL.md": """\
        ---
        name: site-report
        description: Writes a short report about the site.
        ---
        Run `bash ~/.claude/skills/site-report/scripts/prepare.sh`, then
        `python3 ~/.claude/skills/site-report/scripts/report.py OUT_DIR`.
        """,
    "references/defaults.txt": "heading: Site report\n",
    "scripts/prepare.sh": """\
        #!/usr/bin/env bash
        set -e
        here="$(cd "$(dirname "$0")" && pwd)"
        test -f "$here/../references/defaults.txt"
        echo "prepared"
        """,
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
PROBE = "probe"
AGENTS_PROBE = "probe-agents"
# What the probe prints: whether the skill is at its user-level path in the attempt's home.
PRESENT, ABSENT = "USER-LEVEL-SKILL-PRESENT", "USER-LEVEL-SKILL-ABSENT"


def _steps(agent: str) -> dict[str, list[dict[str, Any]]]:
    home = USER_LEVEL[agent]
    return {
        # The honest literal agent: every command as the skill writes it.
        "literal": [
            {"cmd": f"cat {home}/SKILL.md"},
            {"cmd": f"bash {home}/scripts/prepare.sh"},
            {"cmd": f"python3 {home}/scripts/report.py out"},
            {"final": "The report is in out/report.txt."},
        ],
        # The same, then a look at the home around the skill: outside, as before.
        "home-listing": [
            {"cmd": f"python3 {home}/scripts/report.py out"},
            {"cmd": f"ls -a {home}/.."},
            {"final": "The report is in out/report.txt."},
        ],
        # Writes through the user-level path land in the workspace's skill folder: judged as a
        # write there is (inside), as the same write by its workspace path is.
        "writes-through": [
            {"cmd": f"python3 {home}/scripts/report.py out"},
            {"cmd": f"echo note > {home}/notes.txt"},
            {"cmd": f"echo note > {SKILL}/notes-2.txt"},
            {"final": "The report is in out/report.txt."},
        ],
        # Points the link at another folder, reads through it, puts it back: a change of the
        # link itself, a violation (judged after the run, the path leads into the skill again).
        "relinks": [
            {"cmd": f"python3 {home}/scripts/report.py out"},
            {"cmd": f"ln -sfn /etc {home} && cat {home}/hostname"},
            {"cmd": f'ln -sfn "$PWD/{SKILL}" {home}'},
            {"final": "The report is in out/report.txt."},
        ],
        # The same from a program the shell analysis does not follow: the trace sees the link
        # change.
        "relinks-in-a-program": [
            {"cmd": f"python3 {home}/scripts/report.py out"},
            {
                "cmd": "python3 -c 'import os, sys; p = os.path.expanduser(sys.argv[1]);"
                ' t = os.readlink(p); os.unlink(p); os.symlink("/etc", p);'
                ' print(open(p + "/hostname").read()); os.unlink(p); os.symlink(t, p)\''
                f" {home}"
            },
            {"final": "The report is in out/report.txt."},
        ],
        PROBE: [
            {"cmd": f"test -e {home}/SKILL.md && echo {PRESENT} || echo {ABSENT}"},
            {"final": "Checked."},
        ],
        # The same literal agent, by the open standard's user-level path.
        "literal-agents": [
            {"cmd": f"cat {AGENTS_LEVEL}/SKILL.md"},
            {"cmd": f"bash {AGENTS_LEVEL}/scripts/prepare.sh"},
            {"cmd": f"python3 {AGENTS_LEVEL}/scripts/report.py out"},
            {"final": "The report is in out/report.txt."},
        ],
        "agents-listing": [
            {"cmd": f"python3 {AGENTS_LEVEL}/scripts/report.py out"},
            {"cmd": f"ls -a {AGENTS_LEVEL}/.."},
            {"final": "The report is in out/report.txt."},
        ],
        AGENTS_PROBE: [
            {"cmd": f"test -e {AGENTS_LEVEL}/SKILL.md && echo {PRESENT} || echo {ABSENT}"},
            {"final": "Checked."},
        ],
    }


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
          summary: "the report script ran"
          required:
            - description: "The report script ran."
              pass_criteria:
                - "The accepted session shows a command invoking `scripts/report.py`."
              evidence_scope: ["accepted-session.json"]
          forbidden: []
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
        title: "A skill that names its user-level install path"
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


def _outcome(
    agent: str, tmp_path_factory: pytest.TempPathFactory, *, no_skill: bool
) -> Iterator[RunOutcome]:
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    root = tmp_path_factory.mktemp(f"user-level-{agent}")
    repo, source, behaviors = _eval_repo(root, agent)
    yield run_scripted(
        repo,
        behaviors,
        root / "runs",
        source_workspace=source,
        agent=runner,
        no_skill=no_skill,
    )


@pytest.fixture(scope="module", params=agent_params("codex", "claude", "gemini"))
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, RunOutcome]]:
    for outcome in _outcome(str(request.param), tmp_path_factory, no_skill=False):
        yield str(request.param), outcome


def _attempt(outcome: RunOutcome, case: str, number: int = 1) -> dict[str, Any]:
    path = (
        outcome.run_dir.path / f"case-artifacts/{case}/attempts/attempt-{number:02d}/attempt.json"
    )
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _result(outcome: RunOutcome, case: str) -> Any:
    (result,) = [r for r in outcome.results if r.case_id == case]
    return result


def _outputs(outcome: RunOutcome, case: str) -> str:
    """Every tool output the accepted sessions of the case's attempts recorded, as one text."""
    folder = outcome.run_dir.path / f"case-artifacts/{case}/attempts"
    return "\n".join(p.read_text() for p in sorted(folder.glob("*/accepted-session.json")))


def test_the_honest_literal_agent_passes_contained(outcome: tuple[str, RunOutcome]) -> None:
    _, run = outcome
    attempt = _attempt(run, "literal")
    assert attempt["isolation_layers"] == {"sandbox": "bwrap", "trace": tracer_under_test()}
    report = attempt["isolation_report"]
    assert attempt["isolation"] == "contained", (report["reason"], report["violations"])
    assert attempt["trace_report"]["verdict"] == "contained", attempt["trace_report"]
    result = _result(run, "literal")
    assert result.status == "pass", result
    # The script ran from the skill's own files: it wrote its report into the workspace.
    workspace = run.run_dir.path / "case-artifacts/literal/attempts/attempt-01/workspace/files"
    assert (workspace / "out/report.txt").read_text().startswith("Site report")


def test_another_path_under_the_home_is_still_outside(outcome: tuple[str, RunOutcome]) -> None:
    _, run = outcome
    attempt = _attempt(run, "home-listing")
    assert attempt["isolation"] == "violation"
    paths = [v["path"] for v in attempt["isolation_report"]["violations"]]
    assert any(p.endswith("/skills") for p in paths), paths
    # Only the listing: the report script through the same path was the skill's.
    assert not any("report.py" in p for p in paths), paths
    result = _result(run, "home-listing")
    assert (result.status, result.blocked_reason) == ("blocked", "insufficient-evidence")


def test_writes_through_the_user_level_path_are_writes_into_the_skill(
    outcome: tuple[str, RunOutcome],
) -> None:
    agent, run = outcome
    attempt = _attempt(run, "writes-through")
    report = attempt["isolation_report"]
    assert attempt["isolation"] == "contained", (report["reason"], report["violations"])
    result = _result(run, "writes-through")
    assert result.status == "pass", result
    files = run.run_dir.path / "case-artifacts/writes-through/attempts/attempt-01/workspace/files"
    written = {p.name for p in (files / SKILL).glob("notes*.txt")}
    # What each CLI lets through: Claude Code refuses a write under `~/.claude/` ("a sensitive
    # file"); Codex's own sandbox keeps `.codex/` and `.agents/` read-only, by either path;
    # Gemini CLI writes both, into the workspace's skill folder.
    expected = {
        "codex": set(),
        "claude": {"notes-2.txt"},
        "gemini": {"notes.txt", "notes-2.txt"},
    }
    assert written == expected[agent]


@pytest.mark.parametrize("case", ["relinks", "relinks-in-a-program"])
def test_a_change_of_the_link_itself_is_a_violation(
    outcome: tuple[str, RunOutcome], case: str
) -> None:
    _, run = outcome
    attempt = _attempt(run, case)
    report = attempt["isolation_report"]
    assert attempt["isolation"] == "violation", (report["reason"], report["violations"])
    details = [v["detail"] for v in report["violations"]]
    assert any("link at its user-level path" in d for d in details), details
    result = _result(run, case)
    assert (result.status, result.blocked_reason) == ("blocked", "insufficient-evidence")


def test_the_probe_finds_the_skill_at_its_user_level_path(outcome: tuple[str, RunOutcome]) -> None:
    _, run = outcome
    outputs = _outputs(run, PROBE)
    assert PRESENT in outputs and ABSENT not in outputs.replace(f"echo {ABSENT}", "")


def test_the_shared_user_level_path_is_the_skill_where_the_cli_reads_it(
    outcome: tuple[str, RunOutcome],
) -> None:
    """`~/.agents/skills/<name>`: where Codex CLI and Gemini CLI list a user's skills, so a skill
    written for them names it. There the literal agent passes contained, as at the agent's own
    folder; for Claude Code, which does not read it, it is a folder of the home like any other
    (no link: the literal agent is outside). A look around it is outside for every agent."""
    agent, run = outcome
    attempt = _attempt(run, "literal-agents")
    report = attempt["isolation_report"]
    if READS_AGENTS_LEVEL[agent]:
        assert attempt["isolation"] == "contained", (report["reason"], report["violations"])
        assert attempt["trace_report"]["verdict"] == "contained", attempt["trace_report"]
        assert _result(run, "literal-agents").status == "pass"
        files = run.run_dir.path / "case-artifacts/literal-agents/attempts/attempt-01"
        report_text = (files / "workspace/files/out/report.txt").read_text()
        assert report_text.startswith("Site report")
    else:
        assert attempt["isolation"] == "violation", report
        assert _result(run, "literal-agents").status == "blocked"
    listing = _attempt(run, "agents-listing")
    assert listing["isolation"] == "violation", listing["isolation_report"]
    probe = _outputs(run, AGENTS_PROBE)
    shown = PRESENT if READS_AGENTS_LEVEL[agent] else ABSENT
    hidden = ABSENT if READS_AGENTS_LEVEL[agent] else PRESENT
    assert shown in probe.replace(f"echo {shown}", "")
    assert hidden not in probe.replace(f"echo {hidden}", "")


@pytest.mark.parametrize("agent", agent_params("codex", "claude", "gemini"))
def test_a_no_skill_variant_has_no_user_level_copy(
    agent: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    for run in _outcome(agent, tmp_path_factory, no_skill=True):
        for probe in (PROBE, AGENTS_PROBE):
            outputs = _outputs(run, probe)
            assert ABSENT in outputs.replace(f"echo {ABSENT}", "")
            assert PRESENT not in outputs.replace(f"echo {PRESENT}", "")
