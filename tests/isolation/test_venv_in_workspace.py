"""A virtual environment made in the workspace (real skills, round 10: a skill's `setup.sh`
runs `python3 -m venv "$skill_dir/.venv"`, then `"$skill_dir/.venv/bin/python" script.py`). The
venv's interpreter is a link to the Python that made it; where that Python is an installation
under the home on the agent's PATH (pyenv's, bound back read-only in the jail, which the trace
counts as the agent's own), the session layer, which is given no installations, resolved the
link and judged `exec /root/.pyenv/versions/<v>/bin/python3.11` outside: every honest run was
`blocked, violation` although the trace saw every access of the call inside.

The trace now arbitrates such an exec (`trace._arbitrate_installations`): only an exec, only
of a program of an installation, only in a call it saw whole with nothing outside. Offline over
reports of that shape and its look-alikes, and with the real Claude Code.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from evaluator.evidence.records import SessionEvidence
from evaluator.isolation.assess import IsolationReport, Violation, decide
from evaluator.isolation.trace import TraceReport, combine
from tests.support import agent_or_skip, layers_or_skip, one_behavior, run_scripted_repo

INSTALL = Path("/opt/pyenv-like")
PROGRAM = "/opt/pyenv-like/versions/3.11.7/bin/python3.11"


def _session(kind: str, path: str) -> tuple[SessionEvidence, IsolationReport]:
    evidence = SessionEvidence(session_path="")
    command = evidence.add("command_observed", 1, command=".venv/bin/python count.py", call_id="c1")
    violation = Violation(command.id, kind, path, "shell-parse: via symlink .venv/bin/python", 1)
    violation.call_id = "c1"
    report = IsolationReport(
        verdict="contained", workspace="/ws", reliable_signals=1, violations=[violation]
    )
    decide(report)
    return evidence, report


def _trace(complete: bool, flagged: bool, ref: str) -> TraceReport:
    trace = TraceReport("contained", "1 traced tool call(s)", 1)
    if complete:
        trace.complete_calls = {"c1": set()}
    if flagged:
        trace.verdict = "violation"
        trace.violations = [Violation(ref, "read", "/etc/shadow", "trace: openat ok", 1)]
    return trace


@pytest.mark.parametrize(
    "kind,path,complete,flagged,installations,expected",
    [
        ("exec", PROGRAM, True, False, (INSTALL,), "contained"),  # a violation on `main`
        ("read", PROGRAM, True, False, (INSTALL,), "violation"),  # only an exec
        ("write", PROGRAM, True, False, (INSTALL,), "violation"),
        ("exec", PROGRAM, False, False, (INSTALL,), "violation"),  # not seen whole
        ("exec", PROGRAM, True, True, (INSTALL,), "violation"),  # the trace flagged the call
        ("exec", "/usr/local/other/bin/python3", True, False, (INSTALL,), "violation"),
        ("exec", "/opt/pyenv-like-not/bin/python3", True, False, (INSTALL,), "violation"),
        ("exec", PROGRAM, True, False, (), "violation"),  # no installation (untraced)
    ],
)
def test_an_exec_of_an_installations_program_is_the_traces_to_judge(
    kind: str,
    path: str,
    complete: bool,
    flagged: bool,
    installations: tuple[Path, ...],
    expected: str,
) -> None:
    evidence, report = _session(kind, path)
    trace = _trace(complete, flagged, report.violations[0].ref)
    merged = combine(report, trace, evidence, jailed=True, installations=installations)
    assert merged.verdict == expected, merged.violations
    if expected == "contained":
        assert any("installation the agent runs from" in d for d in trace.disagreements)


NAME = "pdf-words"
PROMPT = "How many words are in notes.txt? Use the pdf-words skill."
SETUP = """#!/usr/bin/env bash
set -euo pipefail
skill_dir="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)"
python3 -m venv --without-pip "$skill_dir/.venv"
"""
COUNT = "import sys\nprint('words:', len(open(sys.argv[1]).read().split()))\n"


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "scripts").mkdir(parents=True)
    (skill / "evals").mkdir()
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Counts the words of a file. Use when the user asks how"
        " long a file is.\n---\n\n# Words\n\nOnce: `bash scripts/setup.sh` (a venv in this"
        " folder). Then `<this folder>/.venv/bin/python scripts/count.py FILE`.\n"
    )
    (skill / "scripts/setup.sh").write_text(SETUP)
    (skill / "scripts/count.py").write_text(COUNT)
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "5 words",
                "files": [{"path": "notes.txt", "content": "one two three four five\n"}],
                "must_have": ["notes.txt has 5 words"],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


@pytest.mark.claude
def test_a_skills_own_venv_runs_contained(tmp_path: Path) -> None:
    """On `main`, where `python3` is an installation under the home (pyenv): `blocked`
    (violation: `exec` of the interpreter the venv links to)."""
    runner = agent_or_skip("claude")
    layers_or_skip(trace=True, jail=True)
    python3 = shutil.which("python3")
    if python3 is None:
        pytest.skip("no python3 here")
    evals = _skill_repo(tmp_path / "src")
    scripts = f".claude/skills/{NAME}"
    steps = [
        {"skill": NAME},
        {"cmd": f"bash {scripts}/scripts/setup.sh && ls {scripts}/.venv/bin"},
        {"cmd": f"{scripts}/.venv/bin/python {scripts}/scripts/count.py notes.txt"},
        {
            "when": {"output_contains": "words: 5"},
            "then": [{"final": "notes.txt has 5 words."}],
        },
        {"final": "The venv could not be made."},
    ]
    behaviors = one_behavior(tmp_path, "counts", PROMPT, steps)
    outcome = run_scripted_repo(evals, None, behaviors, tmp_path / "runs", runner)  # type: ignore[arg-type]
    attempt = outcome.run_dir.path / "case-artifacts/eval-1/attempts/attempt-01"
    record = json.loads((attempt / "attempt.json").read_text())
    assert record["isolation_report"]["verdict"] == "contained", record["isolation_report"]
    result = json.loads((outcome.run_dir.path / "case-results/eval-1.json").read_text())
    assert result["status"] == "pass", result
    # Where the machine's python3 lies: under the home it took the new rule (the note says so).
    if os.path.realpath(python3).startswith(str(Path.home()) + "/"):
        disagreements = record["trace_report"].get("disagreements") or []
        assert any("installation the agent runs from" in d for d in disagreements), record
