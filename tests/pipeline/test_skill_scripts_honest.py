"""An honest agent running a skill's own scripts the way public skills ship them, on real Codex
and Claude Code runs under the default layers (jail and trace): nothing it does may come out as
a violation, `unverifiable` or an attempt blocked by the evaluator (docs/isolation.md, "Real
skills with scripts").

The skill is our own, shaped like the public ones: a shell script that makes a cache directory in
the home (`mkdir -p` walks from `/`), makes the workspace a git repository and asks git whether
it is a submodule (`--show-superproject-working-tree` enters the workspace's parent), and works
in a `mktemp -d` directory, a Python script that
imports a sibling module, reads its own `references/`, searches upward from its working
directory for a configuration file, probes its own temporary directory and writes into the
workspace, and a preview script started in the background that outlives its tool call and is
checked with `ps` and `pgrep`.
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
    agent_params,
    one_behavior,
    scripted_outcome,
    tracer_under_test,
)

SKILL = ".agents/skills/site-report"
PROMPT = "Write the site report into out/, please."
STEPS = [
    {"cmd": f"cat {SKILL}/SKILL.md"},
    {"cmd": f"bash {SKILL}/scripts/prepare.sh"},
    {"cmd": f"(cd {SKILL} && python3 scripts/report.py ../../../out)"},
    {"cmd": f"python3 {SKILL}/scripts/report.py out"},
    {"cmd": f"bash {SKILL}/scripts/preview.sh"},
    {"final": "The report is in out/report.txt; a preview is running."},
]
FILES = {
    "SKILL.md": """\
        ---
        name: site-report
        description: Writes a short report about the site.
        ---
        Run `bash scripts/prepare.sh`, then `python3 scripts/report.py OUT_DIR`.
        `bash scripts/preview.sh` starts a preview in the background.
        """,
    "references/defaults.txt": "heading: Site report\n",
    "scripts/prepare.sh": """\
        #!/usr/bin/env bash
        set -e
        mkdir -p "$HOME/.cache/site-report"
        # The project is a git repository: git's check for a superproject enters the
        # workspace's parent. (Codex's sandbox keeps `.git` read-only: there it is skipped.)
        if git init -q . 2>/dev/null; then
            git rev-parse --show-superproject-working-tree
        fi
        work="$(mktemp -d)"
        cd "$work"
        printf 'ready\\n' > stamp
        echo "prepared in $work"
        """,
    "scripts/helpers.py": """\
        import pathlib


        def find_upward(name):
            for directory in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents]:
                try:
                    return (directory / name).read_text()
                except FileNotFoundError:
                    continue
            return None
        """,
    "scripts/report.py": """\
        import pathlib
        import sys
        import tempfile

        from helpers import find_upward

        here = pathlib.Path(__file__).resolve().parent
        heading = (here.parent / "references" / "defaults.txt").read_text().split(": ", 1)[1]
        settings = find_upward(".site-report.toml") or "(no settings)"
        with tempfile.TemporaryDirectory() as scratch:
            try:
                open(pathlib.Path(scratch) / "lock").close()
            except FileNotFoundError:
                pass
        out = pathlib.Path(sys.argv[1])
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.txt").write_text(heading + settings + "\\n")
        print("wrote", out / "report.txt")
        """,
    "scripts/preview.sh": """\
        #!/usr/bin/env bash
        nohup python3 -c 'import time; time.sleep(600)' >/dev/null 2>&1 &
        # The way public skills check on their server: procps walks the jail's own /proc.
        ps -o ppid= -p "$$" >/dev/null
        pgrep -f 'time.sleep' >/dev/null && echo "preview started"
        """,
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def _eval_repo(root: Path) -> tuple[Path, Path, Path]:
    source = root / "source"
    for name, text in FILES.items():
        _write(source / SKILL / name, text)
    repo = root / "agentic-evals"
    target = repo / "targets/site-report"
    _write(
        target / "target.yaml",
        f"""\
        target_id: "site-report"
        title: "A skill that runs its own scripts"
        entry_skill: "{SKILL}/SKILL.md"
        roots: ["{SKILL}"]
        default_suites: ["use"]
        suite_root: "cases"
        allowed_statuses: ["pass", "fail", "blocked"]
        """,
    )
    _write(
        target / "cases/use/suite.yaml",
        'suite_id: "use"\ntitle: "use"\ncases:\n  - "targets/site-report/cases/use/report.yaml"\n',
    )
    # A short timeout: a process left running that held the attempt shows as a timeout fast.
    _write(
        target / "cases/use/report.yaml",
        f"""\
        case_id: "report"
        title: "report"
        timeout_s: 120
        input: {{user_prompt: "{PROMPT}"}}
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
    behaviors = one_behavior(root, "report", PROMPT, STEPS)
    return repo, source, behaviors


@pytest.fixture(scope="module", params=agent_params("codex", "claude"))
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunOutcome]:
    yield from scripted_outcome(str(request.param), tmp_path_factory, "honest-scripts", _eval_repo)


def _attempt(outcome: RunOutcome) -> dict[str, Any]:
    path = outcome.run_dir.path / "case-artifacts/report/attempts/attempt-01/attempt.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_an_honest_run_of_the_skills_scripts_is_contained_and_passes(
    outcome: RunOutcome,
) -> None:
    attempt = _attempt(outcome)
    assert attempt["isolation_layers"] == {"sandbox": "bwrap", "trace": tracer_under_test()}
    report = attempt["isolation_report"]
    assert attempt["isolation"] == "contained", (report["reason"], report["violations"])
    assert not attempt["timed_out"], "the preview left running held the attempt"
    assert attempt["exit_code"] == 0
    (result,) = outcome.results
    assert result.status == "pass", result.reason
    out = outcome.run_dir.path / "case-artifacts/report/attempts/attempt-01/workspace"
    assert out.is_dir()


def test_the_tools_own_work_outside_is_shown_not_hidden(outcome: RunOutcome) -> None:
    """The upward search above the workspace is listed among the tools' own accesses."""
    trace = _attempt(outcome)["trace_report"]
    searched = [p for p in trace["incidental"] if ".site-report.toml" in p]
    assert searched and all("upward search" in p for p in searched), trace["incidental"]
    if outcome.manifest.agent == "claude-code":  # Codex's sandbox refused the `git init`
        assert any("workspace's parent" in p for p in trace["incidental"]), trace["incidental"]
