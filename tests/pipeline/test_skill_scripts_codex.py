"""A skill that ships and runs its own scripts, as public skills do, on real Codex runs.

"A command invoking `scripts/tool.py`" holds only when the script really ran (`python3 -m
scripts.tool` from the skill's directory counts; `cat scripts/tool.py` does not), and a module
run the session analysis cannot follow is vouched for by the access trace.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.pipeline.run import RunOutcome
from tests.conftest import in_ci
from tests.support import codex_or_skip, run_scripted_repo, tracer_under_test

pytestmark = pytest.mark.codex

SKILL = ".agents/skills/packager"
PROMPTS = {
    "runs-as-module": "Package the report as a module run, please.",
    "runs-by-path": "Package the report by its path, please.",
    "only-reads-it": "Package the report after reading the tool, please.",
    "runs-a-missing-path": "Package the report from the workspace root, please.",
}
STEPS = {
    "runs-as-module": [
        {"cmd": f"cat {SKILL}/SKILL.md"},
        {"cmd": f"cd {SKILL} && python3 -m scripts.tool ../../../out"},
    ],
    "runs-by-path": [
        {"cmd": f"cat {SKILL}/SKILL.md"},
        {"cmd": f"python3 {SKILL}/scripts/tool.py out"},
    ],
    "only-reads-it": [
        {"cmd": f"cat {SKILL}/SKILL.md"},
        {"cmd": f"cat {SKILL}/scripts/tool.py"},
    ],
    # The skill's relative `scripts/tool.py`, run where there is no such file: nothing ran.
    "runs-a-missing-path": [
        {"cmd": f"cat {SKILL}/SKILL.md"},
        {"cmd": "python3 scripts/tool.py out"},
    ],
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def _eval_repo(root: Path) -> tuple[Path, Path, Path]:
    source = root / "source"
    _write(source / SKILL / "SKILL.md", "---\nname: packager\n---\nRun scripts/tool.py.\n")
    _write(source / SKILL / "scripts/__init__.py", "")
    _write(
        source / SKILL / "scripts/tool.py",
        """
        import pathlib, sys
        out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "out")
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.zip").write_text("packed")
        print("packed into", out)
        """,
    )
    repo = root / "agentic-evals"
    target = repo / "targets/packager"
    _write(
        target / "target.yaml",
        f"""
        target_id: "packager"
        title: "A skill that runs its own script"
        entry_skill: "{SKILL}/SKILL.md"
        roots: ["{SKILL}/scripts"]
        default_suites: ["use"]
        suite_root: "cases"
        allowed_statuses: ["pass", "fail", "blocked"]
        """,
    )
    cases = [f"targets/packager/cases/use/{case}.yaml" for case in PROMPTS]
    _write(
        target / "cases/use/suite.yaml",
        'suite_id: "use"\ntitle: "use"\ncases:\n' + "".join(f'  - "{c}"\n' for c in cases),
    )
    behaviors = root / "behaviors"
    for case, prompt in PROMPTS.items():
        _write(
            target / f"cases/use/{case}.yaml",
            f"""
            case_id: "{case}"
            title: "{case}"
            input: {{user_prompt: "{prompt}"}}
            assert:
              summary: "the packaging script ran"
              required:
                - description: "The packaging script ran."
                  pass_criteria:
                    - "The accepted session shows a command invoking `scripts/tool.py`."
                  evidence_scope: ["accepted-session.json"]
              forbidden: []
            """,
        )
        steps = [*STEPS[case], {"final": "Done."}]
        (behaviors / f"{case}.yaml").parent.mkdir(parents=True, exist_ok=True)
        (behaviors / f"{case}.yaml").write_text(
            json.dumps({"name": case, "match": {"prompt_contains": prompt}, "steps": steps})
        )
    return repo, source, behaviors


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunOutcome]:
    codex_or_skip()
    root = tmp_path_factory.mktemp("skill-scripts")
    repo, source, behaviors = _eval_repo(root)
    result = run_scripted_repo(repo, source, behaviors, root / "runs")
    yield result
    shutil.rmtree(root, ignore_errors=True)


def _attempt(outcome: RunOutcome, case: str) -> dict[str, object]:
    path = outcome.run_dir.path / f"case-artifacts/{case}/attempts/attempt-01/attempt.json"
    data: dict[str, object] = json.loads(path.read_text())
    return data


def test_running_the_script_by_path_or_as_a_module_counts(outcome: RunOutcome) -> None:
    statuses = {r.case_id: r.status for r in outcome.results}
    assert statuses["runs-by-path"] == "pass"
    assert statuses["runs-as-module"] == "pass"
    entry = next(r for r in outcome.results if r.case_id == "runs-as-module").assertions[0]
    assert entry.decided_by == "rules"
    assert entry.checks[0].kind == "script_ran"


def test_reading_the_script_is_not_running_it(outcome: RunOutcome) -> None:
    result = next(r for r in outcome.results if r.case_id == "only-reads-it")
    assert result.status == "fail"
    detail = result.assertions[0].checks[0].detail
    assert "never executed" in detail and "cat " in detail


def test_running_a_path_where_the_script_is_not_is_not_running_it(outcome: RunOutcome) -> None:
    result = next(r for r in outcome.results if r.case_id == "runs-a-missing-path")
    assert result.status == "fail"
    assert "no such file: nothing ran" in result.assertions[0].checks[0].detail


def test_the_trace_vouches_for_a_module_run_the_session_analysis_cannot_follow(
    outcome: RunOutcome,
) -> None:
    attempt = _attempt(outcome, "runs-as-module")
    report = attempt["isolation_report"]
    assert isinstance(report, dict)
    assert report["opaque"], "python -m of the skill's own module is opaque to the text analysis"
    layers = attempt["isolation_layers"]
    assert isinstance(layers, dict)
    if in_ci():
        assert layers == {"sandbox": "bwrap", "trace": tracer_under_test()}, "CI installs both"
    if not (layers["trace"] != "off" and layers["sandbox"] == "bwrap"):
        # Without the jail the trace's blind spot (stat-family calls) could hide a look outside.
        assert attempt["isolation"] == "unverifiable"
        return
    assert attempt["isolation"] == "contained", report["reason"]
    assert "the trace saw whole in the jail" in str(report["reason"])
