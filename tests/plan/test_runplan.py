"""The run plan: one precedence rule for every setting, the manifest built from the plan."""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path

import pytest

from evaluator.artifacts.models import Manifest
from evaluator.errors import InputError
from evaluator.pipeline.runplan import (
    ManifestFacts,
    RunOptions,
    plan_manifest,
    resolve_run,
    setting,
)
from evaluator.plan import Selection, select_cases
from tests.support import demo_repo

CASE = "routing-add-column"
_repo = functools.cache(demo_repo)


def _selection(*, case_attempts: int | None = None, case_timeout: float | None = None) -> Selection:
    selection = select_cases(_repo(), "db-migrations", (), (CASE, "routing-rename-table"))
    first = selection.cases[0]
    changed = first.case.model_copy(update={"attempts": case_attempts, "timeout_s": case_timeout})
    selection.cases = [replace(first, case=changed), *selection.cases[1:]]
    return selection


def _options(**given: object) -> RunOptions:
    return RunOptions(repo=Path("agentic-evals"), **given)  # type: ignore[arg-type]


def test_the_rule_is_command_line_then_resumed_run_then_case_then_target_then_default() -> None:
    assert setting(1, 2, 3, 4, default=5) == 1
    assert setting(None, 2, 3, 4, default=5) == 2
    assert setting(None, None, 3, 4, default=5) == 3
    assert setting(None, None, None, 4, default=5) == 4
    assert setting(None, None, None, None, default=5) == 5


def test_target_defaults_then_case_then_command_line() -> None:
    plan = resolve_run(_options(), _selection(), "r1", None, default_workers=4)
    # the demo target's defaults: attempts 1, timeout 120
    assert (plan.attempts, plan.timeout_s, plan.workers, plan.agent) == (1, 120, 4, "codex-exec")
    assert plan.case_attempts == {} and not plan.timeout_explicit
    by_case = resolve_run(
        _options(), _selection(case_attempts=3, case_timeout=50), "r1", None, default_workers=4
    )
    assert by_case.attempts_for(CASE) == 3 and by_case.attempts_for("routing-rename-table") == 1
    first, second = _selection(case_timeout=50).cases
    assert by_case.timeout_for(first) == 50 and by_case.timeout_for(second) == 120
    given = resolve_run(
        _options(attempts=2, timeout_s=30, workers=1),
        _selection(case_attempts=3, case_timeout=50),
        "r1",
        None,
        default_workers=4,
    )
    assert given.attempts_for(CASE) == 2 and given.case_attempts == {}
    assert given.timeout_for(first) == 30 and given.timeout_explicit and given.workers == 1


def test_scripted_model_by_default_with_behaviors_only(tmp_path: Path) -> None:
    scripted = resolve_run(_options(behaviors=tmp_path), _selection(), "r", None, default_workers=1)
    assert scripted.model == "mock-model" and scripted.behaviors == tmp_path.resolve()
    real = resolve_run(_options(), _selection(), "r", None, default_workers=1)
    assert real.model is None and real.behaviors is None


def _facts() -> ManifestFacts:
    return ManifestFacts(
        repo=Path("repo"),
        source_workspace=Path("ws"),
        target_skill_path="skill.md",
        case_workspace_root=Path("scratch/workspaces"),
        evidence_mode="mode",
        agent_version="1.0",
        sandbox="none",
        trace="off",
        skill_hash="abc",
        source_commit=None,
    )


def _started(**fields: object) -> Manifest:
    plan = resolve_run(
        _options(**fields), _selection(case_attempts=3), "r1", None, default_workers=2
    )
    return plan_manifest(plan, _facts())


def test_a_resume_keeps_the_run_and_takes_a_new_timeout_or_workers() -> None:
    previous = _started(attempts=2, model="m1", timeout_s=40)
    assert previous.case_attempts == {} and previous.timeout_explicit
    plan = resolve_run(_options(workers=5), _selection(), "r1", previous, default_workers=2)
    assert (plan.attempts, plan.model, plan.timeout_s, plan.workers) == (2, "m1", 40, 5)
    assert plan.resumed and plan.timeout_explicit
    kept_k = _started()
    assert kept_k.case_attempts == {CASE: 3}
    again = resolve_run(_options(), _selection(), "r1", kept_k, default_workers=2)
    assert again.attempts_for(CASE) == 3  # the K fixed when the run started, not re-read
    with pytest.raises(InputError, match="resume keeps it"):
        resolve_run(_options(attempts=3), _selection(), "r1", previous, default_workers=2)


def test_the_manifest_comes_from_the_plan_for_runs_and_in_session_alike() -> None:
    plan = resolve_run(
        _options(base_url="https://user:secret@llm.example/v1", model="m", api_key_env="KEY"),
        _selection(),
        "r9",
        None,
        default_workers=3,
    )
    run = plan_manifest(plan, _facts())
    assert (run.run_id, run.resolved_case_ids, run.workers, run.timeout_s) == (
        "r9",
        [CASE, "routing-rename-table"],
        3,
        120,
    )
    assert run.model_base_url == "https://llm.example/v1" and run.model_key_env == "KEY"
    in_session = plan_manifest(plan, _facts(), in_session=True)
    assert in_session.run_state == "running" and in_session.timeout_s is None
    assert in_session.workers == 1 and in_session.resolved_case_ids == run.resolved_case_ids
