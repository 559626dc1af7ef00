"""Other tools' formats written from our verdicts: skill-creator's grading.json and benchmark.json,
Harbor's ATIF v1.7 trajectory.json (on sessions the real agent CLIs recorded, sub-agents
included), and redaction of everything they write."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from evaluator.artifacts.models import (
    AssertionResult,
    AttemptFile,
    CaseResult,
    CheckVerdict,
    Manifest,
)
from evaluator.artifacts.rundir import RunDir, write_json
from evaluator.cli.main import run_cli
from evaluator.errors import InputError
from evaluator.evidence.records import SessionEvidence
from evaluator.interop import export_trajectories, write_run_outputs
from evaluator.interop.atif import build_trajectory, nest, read_session
from evaluator.interop.atif_model import Trajectory
from evaluator.interop.benchmark import Configuration, check_labels, write_benchmark
from evaluator.interop.runs import redactor
from evaluator.interop.skill_creator import eval_id_of
from tests.conftest import ROOT

RECORDED = ROOT / "tests/fixtures/recorded"
SUBAGENTS = RECORDED / "subagents"
RUNNERS = ("codex-exec", "claude-code")

# skill-creator's references/schemas.md and scripts/aggregate_benchmark.py, key for key.
GRADING_KEYS = {"expectations", "summary", "execution_metrics", "timing"}
GRADING_OPTIONAL = {"claims", "user_notes_summary", "eval_feedback"}
EXPECTATION_KEYS = {"text", "passed", "evidence"}
SUMMARY_KEYS = {"passed", "failed", "total", "pass_rate"}
METRICS_KEYS = {
    "tool_calls",
    "total_tool_calls",
    "total_steps",
    "errors_encountered",
    "output_chars",
    "transcript_chars",
}
TIMING_KEYS = {"executor_duration_seconds", "grader_duration_seconds", "total_duration_seconds"}
BENCHMARK_KEYS = {"metadata", "runs", "run_summary", "notes"}
METADATA_KEYS = {
    "skill_name",
    "skill_path",
    "executor_model",
    "analyzer_model",
    "timestamp",
    "evals_run",
    "runs_per_configuration",
}
RUN_KEYS = {
    "eval_id",
    "eval_name",
    "configuration",
    "run_number",
    "result",
    "expectations",
    "notes",
}
RESULT_KEYS = {
    "pass_rate",
    "passed",
    "failed",
    "total",
    "time_seconds",
    "tokens",
    "tool_calls",
    "errors",
}
STAT_KEYS = {"mean", "stddev", "min", "max"}


# --- ATIF on recorded sessions -------------------------------------------------------------


def _recorded_tree(runner: str) -> tuple[Any, list[Path]]:
    directory = SUBAGENTS / runner
    children = sorted(p for p in directory.glob("*.jsonl") if p.name != "root.jsonl")
    root = read_session(directory / "root.jsonl", "root.json", runner)
    return nest(root, [read_session(p, p.name) for p in children]), children


def _calls(evidence: SessionEvidence) -> list[tuple[str, str]]:
    return [
        (str(r["call_id"]), str(r["tool"]))
        for r in evidence.iter_records()
        if r["kind"] == "tool_call"
    ]


def _trajectory_calls(trajectory: Trajectory) -> list[tuple[str, str]]:
    return [
        (call.tool_call_id, call.function_name)
        for step in trajectory.steps
        for call in step.tool_calls or []
    ]


def _results(trajectory: Trajectory) -> dict[str, Any]:
    return {
        result.source_call_id: result
        for step in trajectory.steps
        for result in (step.observation.results if step.observation else [])
        if result.source_call_id
    }


@pytest.mark.parametrize("runner", RUNNERS)
def test_atif_round_trips_a_recorded_session_with_its_sub_agents(runner: str) -> None:
    session, children = _recorded_tree(runner)
    trajectory = build_trajectory(session, "mock-model")
    written = json.dumps(trajectory.to_json_dict())
    back = Trajectory.model_validate_json(written)
    assert back == trajectory  # read back, the same trajectory
    assert back.schema_version == "ATIF-v1.7"
    evidence = session.evidence
    # the prompt as the agent received it, every tool call in order, the final answer
    assert back.steps[0].source == "user" and back.steps[0].message == evidence.first_user_message
    assert _trajectory_calls(back) == _calls(evidence)
    assert back.steps[-1].message == evidence.final_answer
    outputs = {
        str(r["call_id"]): r["text"] for r in evidence.iter_records() if r["kind"] == "tool_result"
    }
    assert {k: r.content for k, r in _results(back).items()} == outputs
    # both helpers are embedded, each referenced from the observation of the call that spawned it
    assert len(evidence.spawns) == 2 == len(children)
    embedded = {t.trajectory_id: t for t in back.subagent_trajectories or []}
    assert set(embedded) == {s.child_id for s in evidence.spawns}
    results = _results(back)
    for spawn in evidence.spawns:
        refs = results[spawn.call_id].subagent_trajectory_ref
        assert refs is not None and [r.trajectory_id for r in refs] == [spawn.child_id]
        child = next(c for c in session.children if c.trajectory_id == spawn.child_id)
        assert child.evidence.first_user_message is not None
        assert spawn.message in child.evidence.first_user_message
        assert _trajectory_calls(embedded[spawn.child_id]) == _calls(child.evidence)
        assert embedded[spawn.child_id].steps[0].message == child.evidence.first_user_message
    usage = evidence.token_usage or {}
    metrics = back.final_metrics
    assert metrics is not None and metrics.total_completion_tokens == usage["output_tokens"]
    assert metrics.total_steps == len(back.steps)


def test_atif_reads_the_plain_recorded_sessions_of_both_agents() -> None:
    for runner in RUNNERS:
        session = read_session(RECORDED / f"{runner}.jsonl", "x.json", runner)
        trajectory = build_trajectory(session)
        assert not trajectory.subagent_trajectories
        assert trajectory.agent.version in ("0.169.0", "2.1.197")
        (patch_or_write,) = [
            call
            for step in trajectory.steps
            for call in step.tool_calls or []
            if call.function_name in ("apply_patch", "Write")
        ]
        assert "notes.txt" in json.dumps(patch_or_write.arguments)


def _minimal(**steps: Any) -> dict[str, Any]:
    return {
        "schema_version": "ATIF-v1.7",
        "agent": {"name": "a", "version": "1"},
        "steps": [{"step_id": 1, "source": "user", "message": "hi"}],
        **steps,
    }


@pytest.mark.parametrize(
    "change,why",
    [
        ({"steps": [{"step_id": 2, "source": "user", "message": "x"}]}, "expected 1"),
        (
            {"steps": [{"step_id": 1, "source": "user", "message": "x", "metrics": {}}]},
            "only valid on an agent step",
        ),
        (
            {
                "steps": [
                    {
                        "step_id": 1,
                        "source": "agent",
                        "message": "",
                        "observation": {"results": [{"source_call_id": "nope"}]},
                    }
                ]
            },
            "not one of its tool_calls",
        ),
        (
            {
                "steps": [
                    {
                        "step_id": 1,
                        "source": "agent",
                        "message": "",
                        "observation": {
                            "results": [{"subagent_trajectory_ref": [{"session_id": "s"}]}]
                        },
                    }
                ]
            },
            "trajectory_id or trajectory_path",
        ),
        (
            {
                "steps": [
                    {
                        "step_id": 1,
                        "source": "agent",
                        "message": "",
                        "observation": {
                            "results": [{"subagent_trajectory_ref": [{"trajectory_id": "gone"}]}]
                        },
                    }
                ]
            },
            "not in subagent_trajectories",
        ),
        (
            {
                "subagent_trajectories": [
                    {
                        "schema_version": "ATIF-v1.7",
                        "agent": {"name": "a", "version": "1"},
                        "steps": [],
                    }
                ]
            },
            "has no trajectory_id",
        ),
        ({"schema_version": "ATIF-v2.0"}, "schema_version"),
        ({"surprise": 1}, "Extra inputs are not permitted"),
        ({"agent": {"name": "a"}}, "version"),
    ],
)
def test_the_atif_model_refuses_what_the_specification_forbids(
    change: dict[str, Any], why: str
) -> None:
    assert Trajectory.model_validate(_minimal()).steps[0].message == "hi"
    with pytest.raises(ValidationError, match=why):
        Trajectory.model_validate(_minimal(**change))


# --- a run directory, from the recorded sessions ---------------------------------------------


def _entry(summary: str, status: str, polarity: str = "required", **more: Any) -> AssertionResult:
    return AssertionResult.model_validate(
        {"summary": summary, "status": status, "polarity": polarity, **more}
    )


def make_run(
    runs: Path,
    run_id: str,
    runner: str,
    statuses: dict[str, list[str]],
    final_answer: str | None = None,
) -> RunDir:
    """A finished run whose every attempt recorded the runner's spawning session: per case, one
    attempt per status in `statuses[case]` (`pass`, `fail` or `blocked`)."""
    run_dir = RunDir(runs / run_id)
    source = SUBAGENTS / runner
    manifest = Manifest(
        run_id=run_id,
        target_id="db-migrations",
        suite_ids=["routing"],
        target_skill_path=".agents/skills/db-migrations/SKILL.md",
        started_at="2026-11-25T16:00:00Z",
        case_workspace_root="/scratch/workspaces",
        resolved_case_ids=list(statuses),
        agent=runner,
        model="mock-model",
        attempts=max(len(v) for v in statuses.values()),
        run_state="completed",
    )
    run_dir.path.mkdir(parents=True)
    run_dir.write_manifest(manifest)
    for case_id, attempt_statuses in statuses.items():
        records = []
        for number, status in enumerate(attempt_statuses, start=1):
            directory = run_dir.attempt_artifacts(case_id, number)
            directory.mkdir(parents=True)
            text = (source / "root.jsonl").read_text()
            if final_answer is not None:
                text = text.replace("spawned two", final_answer)
            (directory / "accepted-session.jsonl").write_text(text)
            for child in source.glob("*.jsonl"):
                if child.name != "root.jsonl":
                    (directory / "subagent-sessions").mkdir(exist_ok=True)
                    shutil.copy(child, directory / "subagent-sessions" / child.name)
            ref = f"{run_dir.attempt_ref_prefix(case_id, number)}#msg-3"
            entries = [
                _entry(
                    "The skill was read.",
                    "pass" if status == "pass" else "fail",
                    decided_by="checks",
                    evidence=[ref],
                    checks=[
                        CheckVerdict(kind="file_read", status="pass", detail="read", evidence=[ref])
                    ],
                ),
                _entry("A table was dropped.", "pass", "forbidden", decided_by="checks"),
            ]
            if status == "blocked":
                entries.append(
                    _entry(
                        "The answer is friendly.",
                        "blocked",
                        decided_by="unclear-rule",
                        blocked_reason="unclear-rule",
                    )
                )
            record = AttemptFile(
                attempt=number,
                workspace_root=f"/scratch/workspaces/{case_id}/attempt-{number:02d}",
                valid=True,
                status=status,
                blocked_reason="unclear-rule" if status == "blocked" else None,
                isolation="contained",
                duration_s=2.0 * number,
                tokens={"input": 1000, "output": 100, "total": 1100 * number},
                assertions=entries,
            )
            write_json(directory / "attempt.json", record)
            records.append(record)
        case = CaseResult(
            case_id=case_id,
            workspace_root=None,
            thread_id=None,
            session_path=None,
            status="pass" if "pass" in attempt_statuses else "fail",
            title=f"Case {case_id}",
            assertions=records[0].assertions or [],
            attempts=records,
        )
        run_dir.write_case_result(case)
    return run_dir


def _json(path: Path, kind: str | None = None) -> Any:
    """A written file, checked against our committed JSON Schema of its format when `kind`
    names one (plain jsonschema, independent of the pydantic models that wrote it)."""
    data = json.loads(path.read_text())
    if kind is not None:
        schema = json.loads((ROOT / f"schemas/{kind}.schema.json").read_text())
        jsonschema.Draft202012Validator(schema).validate(data)
    return data


def test_every_judged_attempt_gets_a_grading_with_skill_creators_exact_fields(
    tmp_path: Path,
) -> None:
    run_dir = make_run(tmp_path, "r", "codex-exec", {"add-column": ["pass", "fail", "blocked"]})
    written = write_run_outputs(run_dir, run_dir.read_manifest())
    assert written.problems == []
    root = run_dir.path / "skill-creator/eval-add-column"
    # attempts 1 and 2 were judged pass and fail; the blocked third counts in no pass rate
    assert sorted(p.parent.name for p in root.glob("with_skill/run-*/grading.json")) == [
        "run-1",
        "run-2",
    ]
    for number, rate in ((1, 1.0), (2, 0.5)):
        grading = _json(root / f"with_skill/run-{number}/grading.json", "skill-creator-grading")
        assert GRADING_KEYS <= set(grading) <= GRADING_KEYS | GRADING_OPTIONAL
        assert set(grading["summary"]) == SUMMARY_KEYS
        assert set(grading["execution_metrics"]) == METRICS_KEYS
        assert set(grading["timing"]) == TIMING_KEYS
        assert grading["summary"] == {
            "passed": int(rate * 2),
            "failed": 2 - int(rate * 2),
            "total": 2,
            "pass_rate": rate,
        }
        for item in grading["expectations"]:
            assert set(item) == EXPECTATION_KEYS
            # every evidence string cites the attempt's session
            assert (
                f"case-artifacts/add-column/attempts/attempt-{number:02d}/accepted-session.json"
                in item["evidence"]
            )
        texts = [e["text"] for e in grading["expectations"]]
        assert texts == ["The skill was read.", "Forbidden: A table was dropped."]
        # the root's two spawns and each helper's command, over every session of the attempt
        metrics = grading["execution_metrics"]
        recorded = sum(
            len(_calls(read_session(p, p.name).evidence))
            for p in (SUBAGENTS / "codex-exec").glob("*.jsonl")
        )
        assert metrics["total_tool_calls"] == sum(metrics["tool_calls"].values()) == recorded
        assert metrics["tool_calls"]["multi_agent_v1.spawn_agent"] == 2
        assert grading["timing"]["executor_duration_seconds"] == 2.0 * number
    metadata = _json(root / "eval_metadata.json")
    assert metadata["eval_id"] == "add-column"
    assert metadata["prompt"].startswith("I want to store a default currency per account.")
    assert "only workspace" not in metadata["prompt"]  # the case prompt, without our note
    # every attempt with a session has its trajectory, sub-agents embedded
    for number in (1, 2, 3):
        path = run_dir.attempt_artifacts("add-column", number) / "trajectory.json"
        trajectory = Trajectory.model_validate(_json(path, "atif-trajectory"))
        assert len(trajectory.subagent_trajectories or []) == 2


def test_rewriting_the_reports_drops_a_grading_whose_attempt_is_no_longer_judged(
    tmp_path: Path,
) -> None:
    run_dir = make_run(tmp_path, "r", "codex-exec", {"c": ["pass"]})
    grading = run_dir.path / "skill-creator/eval-c/with_skill/run-1/grading.json"
    write_run_outputs(run_dir, run_dir.read_manifest())
    assert grading.is_file()
    path = run_dir.attempt_artifacts("c", 1) / "attempt.json"
    record = AttemptFile.model_validate_json(path.read_text())
    write_json(
        path, record.model_copy(update={"status": "blocked", "blocked_reason": "environment"})
    )
    assert run_cli(["report", str(run_dir.path)]) == 0  # as after `judge` re-judged it
    assert not grading.exists()
    assert (run_dir.attempt_artifacts("c", 1) / "trajectory.json").is_file()


def test_unclear_rule_entries_become_eval_feedback(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, "r", "claude-code", {"c": ["fail"]})
    directory = run_dir.attempt_artifacts("c", 1)
    record = AttemptFile.model_validate_json((directory / "attempt.json").read_text())
    assert record.assertions is not None
    record.assertions.append(
        _entry("Tone is kind.", "blocked", decided_by="unclear-rule", blocked_reason="unclear-rule")
    )
    write_json(directory / "attempt.json", record)
    write_run_outputs(run_dir, run_dir.read_manifest())
    grading = _json(run_dir.path / "skill-creator/eval-c/with_skill/run-1/grading.json")
    assert grading["summary"]["total"] == 3 and grading["summary"]["passed"] == 1
    assert [s["assertion"] for s in grading["eval_feedback"]["suggestions"]] == ["Tone is kind."]


def test_numbered_case_ids_are_skill_creators_eval_numbers() -> None:
    assert eval_id_of("3") == 3 and eval_id_of("eval-12") == 12
    assert eval_id_of("routing-add-column") == "routing-add-column"


# --- benchmark ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "labels,runs_order",
    [
        (["new", "old"], "new-first"),
        (["old", "new"], "old-first"),
        (["candidate", "baseline"], "new-first"),  # sorted, `baseline` would come first
        (["with_skill", "without_skill"], "new-first"),
    ],
)
def test_benchmark_deltas_are_new_minus_old_whatever_the_order(
    tmp_path: Path, labels: list[str], runs_order: str
) -> None:
    better = make_run(tmp_path, "better", "codex-exec", {"a": ["pass", "pass"], "b": ["pass"]})
    worse = make_run(tmp_path, "worse", "claude-code", {"a": ["fail", "pass"], "b": ["fail"]})
    new_label, old_label = labels if runs_order == "new-first" else labels[::-1]
    dirs = {new_label: better, old_label: worse}
    configurations = [Configuration(label, dirs[label]) for label in labels]
    baseline = check_labels(labels, 2, old_label if labels == ["old", "new"] else None)
    assert baseline == old_label
    out = tmp_path / "bench"
    benchmark = write_benchmark(configurations, baseline, out, redactor())
    data = _json(out / "benchmark.json", "skill-creator-benchmark")
    assert set(data) == BENCHMARK_KEYS
    assert set(data["metadata"]) == METADATA_KEYS
    assert list(data["run_summary"]) == [new_label, old_label, "delta"]
    for run in data["runs"]:
        assert set(run) == RUN_KEYS and set(run["result"]) == RESULT_KEYS
    for label in (new_label, old_label):
        assert set(data["run_summary"][label]) == {"pass_rate", "time_seconds", "tokens"}
        assert set(data["run_summary"][label]["pass_rate"]) == STAT_KEYS
    # better: 3 attempts at 1.0; worse: 0.5, 1.0, 0.5 -> means 1.0 and 0.6667
    assert data["run_summary"]["delta"]["pass_rate"] == "+0.33"
    # tokens: better 1100, 2200, 1100; worse the same: no difference
    assert data["run_summary"]["delta"]["tokens"] == "+0"
    assert benchmark.metadata.skill_name == "db-migrations"
    markdown = (out / "benchmark.md").read_text()
    title = {"new": "New", "old": "Old", "candidate": "Candidate", "baseline": "Baseline"}
    title |= {"with_skill": "With Skill", "without_skill": "Without Skill"}
    assert f"| Metric | {title[new_label]} | {title[old_label]} | Delta |" in markdown
    # Its Pass Rate (worse: 67%, a share of expectations) beside our case pass rate (1 of 3
    # attempts passed) read as a contradiction: the page says which it is.
    assert "Pass Rate is skill-creator's: the share of a run's expectations that passed" in (
        markdown
    )
    # skill-creator's own tools can aggregate the directory again
    assert (out / f"eval-a/{new_label}/run-2/grading.json").is_file()
    assert (out / f"eval-b/{old_label}/run-1/grading.json").is_file()


def test_benchmark_labels_are_checked_before_anything_is_written(tmp_path: Path) -> None:
    run_a = make_run(tmp_path, "a", "codex-exec", {"a": ["pass"]})
    run_b = make_run(tmp_path, "b", "codex-exec", {"a": ["fail"]})
    cases = [
        ["--labels", "one"],
        ["--labels", "x,x"],
        ["--labels", "x,../y"],
        ["--labels", "x,y", "--baseline", "z"],
    ]
    for extra in cases:
        out = tmp_path / "out"
        code = run_cli(
            ["export", "benchmark", str(run_a.path), str(run_b.path), "--out", str(out), *extra]
        )
        assert code == 2, extra
        assert not out.exists()
    out = tmp_path / "ok"
    assert (
        run_cli(["export", "benchmark", str(run_a.path), str(run_b.path), "--out", str(out)]) == 0
    )
    delta = _json(out / "benchmark.json")["run_summary"]["delta"]
    assert delta["pass_rate"] == "+0.50"  # with_skill (run a: 2 of 2) minus without_skill (1 of 2)


def test_export_atif_writes_every_attempts_trajectory_elsewhere(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, "r", "claude-code", {"c": ["pass", "fail"]})
    out = tmp_path / "atif"
    assert run_cli(["export", "atif", str(run_dir.path), "--out", str(out)]) == 0
    files = sorted(out.rglob("trajectory.json"))
    assert [p.relative_to(out).as_posix() for p in files] == [
        "c/attempt-01/trajectory.json",
        "c/attempt-02/trajectory.json",
    ]
    for path in files:
        trajectory = Trajectory.model_validate_json(path.read_text())
        assert trajectory.agent.name == "claude-code"
        assert len(trajectory.subagent_trajectories or []) == 2
        assert {t.agent.name for t in trajectory.subagent_trajectories or []} == {"claude-code"}


def test_an_unconvertible_session_is_named_and_the_other_attempts_still_export(
    tmp_path: Path,
) -> None:
    run_dir = make_run(tmp_path, "r", "codex-exec", {"c": ["pass", "pass"]})
    (run_dir.attempt_artifacts("c", 2) / "subagent-sessions" / "broken.jsonl").mkdir()
    written = write_run_outputs(run_dir, run_dir.read_manifest())
    assert [p.parent.name for p in written.trajectories] == ["attempt-01"]
    (problem,) = written.problems
    assert problem.startswith("case-artifacts/c/attempts/attempt-02/attempt.json: no trajectory:")
    # its grading is still written: the verdicts do not depend on the conversion
    assert len(written.gradings) == 2
    assert run_cli(["export", "atif", str(run_dir.path)]) == 2


# --- secrets ----------------------------------------------------------------------------------


def test_no_credential_reaches_the_exports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-fake-0123456789abcdefghij"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    runs = tmp_path / "runs"
    # the key in the agent's answer (a session the run did not redact, as an older run may hold)
    new = make_run(runs, "new", "codex-exec", {"c": ["pass"]}, final_answer=f"my key is {key}")
    old = make_run(runs, "old", "codex-exec", {"c": ["fail"]}, final_answer=f"my key is {key}")
    directory = new.attempt_artifacts("c", 1)
    record = AttemptFile.model_validate_json((directory / "attempt.json").read_text())
    assert record.assertions is not None
    record.assertions[0].notes += [f"saw {key}", "and judge-secret-value-42"]
    write_json(directory / "attempt.json", record)
    # the run's own secrets, as the pipeline passes them
    write_run_outputs(new, new.read_manifest(), {"JUDGE_TOKEN": "judge-secret-value-42"})
    export_trajectories(old, tmp_path / "atif")
    assert (
        run_cli(["export", "benchmark", str(new.path), str(old.path), "--out", str(tmp_path / "b")])
        == 0
    )
    written = [
        *new.path.rglob("trajectory.json"),
        *new.path.rglob("grading.json"),
        *(tmp_path / "atif").rglob("*.json"),
        *(tmp_path / "b").rglob("*.*"),
    ]
    assert len(written) >= 6
    for path in written:
        text = path.read_text()
        assert key not in text, path
        assert path.stat().st_mode & 0o077 == 0, path
        # the run's secrets are known where the run writes (the commands know the environment's)
        if path.is_relative_to(new.path):
            assert "judge-secret-value-42" not in text, path
    final = _json(directory / "trajectory.json")["steps"][-1]["message"]
    assert final == "my key is [REDACTED:OPENAI_API_KEY]"


def test_a_run_with_no_judged_attempt_is_refused_not_scored_zero(tmp_path: Path) -> None:
    judged = make_run(tmp_path, "judged", "codex-exec", {"a": ["pass"]})
    blocked = make_run(tmp_path, "blocked", "codex-exec", {"a": ["blocked"]})
    configurations = [Configuration("new", judged), Configuration("old", blocked)]
    with pytest.raises(InputError, match="`old` has no judged attempt to benchmark"):
        write_benchmark(configurations, "old", tmp_path / "bench", redactor())
    assert not (tmp_path / "bench").exists()
