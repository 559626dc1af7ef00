"""Helpers for tests that run the real Codex CLI against the scripted model server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import get_runner
from evaluator.adapters.claude.binary import find_claude
from evaluator.adapters.codex.binary import find_codex
from evaluator.adapters.gemini.binary import find_gemini
from evaluator.agents import AgentHandle, AgentRequest, ModelEndpoint
from evaluator.errors import EnvironmentProblem
from evaluator.judge import CaseJudgement
from evaluator.modelserver import Behavior, BehaviorLibrary, ScriptedModelServer
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions, RunOutcome
from evaluator.plan import open_repo
from evaluator.prompting import agent_prompt
from evaluator.repo import EvalRepo, LoadedCase
from evaluator.sandbox import LaunchPolicy, Tracer
from evaluator.sandbox.launch import pick_tracer
from evaluator.sandbox.registry import get_jail
from evaluator.workspace import AttemptWorkspace, build_workspace
from evaluator.workspace.naming import attempt_folder
from tests.conftest import DEMO_REPO, ROOT, in_ci, require_tool_mark

SCRATCH_BASE = Path("/var/tmp/agentic-eval-tests")


def _cli_or_skip(name: str, find: Callable[[], Path]) -> Path:
    require_tool_mark(name)
    try:
        return find()
    except EnvironmentProblem as exc:
        if in_ci():
            pytest.fail(f"{name} is required in CI: {exc}")
        pytest.skip(str(exc))


def codex_or_skip() -> Path:
    return _cli_or_skip("codex", find_codex)


def claude_or_skip() -> Path:
    return _cli_or_skip("claude", find_claude)


def gemini_or_skip() -> Path:
    return _cli_or_skip("gemini", find_gemini)


# Each agent's runner, by the short name tests parametrise on.
RUNNERS = {"codex": "codex-exec", "claude": "claude-code", "gemini": "gemini-cli"}


def agent_or_skip(agent: str) -> str:
    """Skips a test (fails it in CI) unless `agent`'s CLI is here; the name of its runner."""
    {"codex": codex_or_skip, "claude": claude_or_skip, "gemini": gemini_or_skip}[agent]()
    return RUNNERS[agent]


# Which tracer the trace tests' own launch policies and runs use: `strace` or `ebpf` forces one
# (to run the suite's traced tests under each); unset, what a run's default (`--tracer auto`)
# picks here.
TRACER_UNDER_TEST_ENV = "AGENTIC_EVAL_TEST_TRACER"


def tracer_under_test() -> str:
    return os.environ.get(TRACER_UNDER_TEST_ENV) or pick_tracer()[0]


def layers_or_skip(*, trace: bool = False, jail: bool = False) -> None:
    """Skips a test whose launch needs the trace (strace) or the jail (bubblewrap) where it does
    not work; in CI, where ./dev setup installs both, fails it."""
    needed = [("strace", Tracer)] if trace else []
    if jail:
        needed.append(("bubblewrap", lambda: get_jail("bwrap")))
    for name, tool in needed:
        why_not = tool().unavailable()
        if why_not:
            if in_ci():
                pytest.fail(f"{name} is required in CI (./dev setup installs it): {why_not}")
            pytest.skip(f"no {name} here: {why_not}")


@contextmanager
def scratch_dir() -> Iterator[Path]:
    """A scratch directory outside /tmp (codex cannot run its sandbox with a home under /tmp)."""
    path = SCRATCH_BASE / uuid.uuid4().hex[:12]
    path.mkdir(parents=True)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def behavior(
    name: str, prompt_contains: str, steps: list[dict[str, Any]], **match: Any
) -> Behavior:
    return Behavior.model_validate(
        {"name": name, "match": {"prompt_contains": prompt_contains, **match}, "steps": steps}
    )


@contextmanager
def serving(*behaviors: Behavior, latency_s: float = 0.0) -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer(BehaviorLibrary(list(behaviors)), latency_s=latency_s) as server:
        yield server


def demo_repo() -> EvalRepo:
    return open_repo(DEMO_REPO, None)


def demo_case(case_id: str) -> tuple[EvalRepo, LoadedCase]:
    repo = demo_repo()
    target = repo.targets["db-migrations"]
    case = next(c for c in target.all_cases() if c.case_id == case_id)
    return repo, case


def run_attempt(
    scratch: Path,
    server: ScriptedModelServer,
    case_id: str,
    *,
    runner: str = "codex-exec",
    timeout_s: float = 60.0,
    attempt: int = 1,
    endpoint: ModelEndpoint | None = None,
    before_run: Callable[[Path], None] | None = None,
    launch: LaunchPolicy | None = None,
    options: dict[str, object] | None = None,
) -> tuple[AttemptWorkspace, AgentHandle]:
    """One real codex attempt on a demo case; `before_run` may plant files in the workspace."""
    repo, case = demo_case(case_id)
    target = repo.targets["db-migrations"]
    workspace = build_workspace(
        case_workspace_root=scratch / "workspaces",
        case=case,
        target=target,
        source_workspace=repo.source_workspace,
        attempt=attempt,
    )
    if before_run is not None:
        before_run(workspace.path)
    request = AgentRequest(
        workspace=workspace.path,
        agent_dir=attempt_folder(scratch / "agents", case_id, attempt),
        prompt=agent_prompt(case.case.input.user_prompt),
        endpoint=endpoint
        or ModelEndpoint(model="mock-model", base_url=server.base_url, scripted=True),
        timeout_s=timeout_s,
        env=workspace.env,
        launch=launch or LaunchPolicy(),
    )
    return workspace, get_runner(runner, options).run(request)


def rollout_files(codex_home: Path) -> list[Path]:
    return sorted((codex_home / "sessions").rglob("rollout-*.jsonl"))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def first_user_prompt(rollout: Path) -> str | None:
    for record in read_jsonl(rollout):
        payload = record.get("payload") or {}
        if payload.get("type") == "message" and payload.get("role") == "user":
            text = "".join(p.get("text", "") for p in payload.get("content", []))
            if not text.startswith(("<environment_context>", "<user_instructions>")):
                return text
    return None


@contextmanager
def attempt_spawning_two_helpers(
    runner: str = "codex-exec",
) -> Iterator[tuple[AttemptWorkspace, AgentHandle]]:
    """One real attempt on routing-add-column whose agent spawns two sub-agents (two children
    to tell apart), while its scratch space lasts."""
    root_steps: list[dict[str, Any]] = [
        {"spawn": {"message": "first helper task"}},
        {"spawn": {"message": "second helper task"}},
        {"final": "spawned two"},
    ]
    child_steps = [{"cmd": "pwd"}, {"final": "helped"}]
    with (
        scratch_dir() as scratch,
        serving(
            behavior("root", "default currency per account", root_steps, thread="root"),
            behavior("helper", "helper task", child_steps, thread="child"),
        ) as server,
    ):
        yield run_attempt(scratch, server, "routing-add-column", runner=runner)


def judgement_report(judgement: CaseJudgement) -> str:
    """`report.md` of a one-case run holding `judgement` (for tests of how verdicts read there)."""
    from evaluator.artifacts.models import CaseResult, Manifest
    from evaluator.artifacts.report import render_report

    result = CaseResult(
        case_id="c",
        workspace_root=None,
        thread_id=None,
        session_path=None,
        status=judgement.status,
        assertions=judgement.entries,
    )
    manifest = Manifest(
        run_id="r",
        target_id="t",
        suite_ids=[],
        target_skill_path="s",
        started_at="now",
        case_workspace_root="/w",
    )
    return render_report(manifest, [result])


def claude_tool_call_transcript(
    path: Path, workspace: Path, name: str, tool_input: dict[str, Any], result: str, error: bool
) -> Path:
    """A Claude Code transcript of one tool call, its result and a last answer: for unit tests of
    how one tool's record is read (what a real run records is proven by the agent tests)."""
    common = {"sessionId": "s1", "cwd": str(workspace), "version": "2.1.197"}
    use = {"type": "tool_use", "id": "toolu_1", "name": name, "input": tool_input}
    answer: dict[str, Any] = {"type": "tool_result", "tool_use_id": "toolu_1", "content": result}
    if error:
        answer["is_error"] = True
    lines: list[dict[str, Any]] = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "Go."}},
        {"type": "assistant", "uuid": "a1", "message": {"id": "m1", "content": [use]}},
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": [answer]}},
        {
            "type": "assistant",
            "uuid": "a2",
            "message": {"id": "m2", "content": [{"type": "text", "text": "Done."}]},
        },
    ]
    path.write_text("".join(json.dumps(common | line) + "\n" for line in lines))
    return path


def write_file(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_skill_evals(
    root: Path, name: str, files: dict[str, str], evals: list[dict[str, Any]]
) -> Path:
    """A skill folder `root/name` holding `files` (its SKILL.md among them, by relative path)
    and a skill-creator `evals/evals.json` of `evals`; the evals file's path."""
    for relative, text in files.items():
        write_file(root / name / relative, text)
    path = root / name / "evals/evals.json"
    write_file(path, json.dumps({"skill_name": name, "evals": evals}))
    return path


# A case of a checks-only suite: the scripted agent's steps, and each required entry's check.
ScriptedChecksCase = tuple[list[dict[str, Any]], list[dict[str, Any]]]
# The `docs` skill of the red team rounds' runs (`play_docs_skill`).
DOCS_SKILL = ".agents/skills/docs/SKILL.md"


def required_check(run_dir: Path, case: str) -> tuple[str, str, str]:
    """The first attempt's isolation, its one required entry's status (with whose doing a block
    is) and its first check's detail, for a suite written by `write_checks_suite`."""
    folder = run_dir / f"case-artifacts/{case}/attempts/attempt-01"
    attempt = json.loads((folder / "attempt.json").read_text())
    (entry,) = attempt["assertions"]
    check = entry["checks"][0]
    status = " ".join(filter(None, (entry["status"], check.get("blocked_by"))))
    return attempt["isolation"], status, check["detail"]


def write_checks_suite(
    repo: Path,
    target: tuple[str, str, str, list[str]],
    suite: str,
    cases: dict[str, ScriptedChecksCase],
    prompt: Callable[[str], str],
    behaviors: Path,
) -> None:
    """An eval repo with one target (`target`: its id, title, entry skill and roots) and one
    suite whose cases require one structured check per entry, and for each case the scripted
    behaviour that answers its prompt with the case's steps then "Done."."""
    scripted: dict[str, ScriptedCase] = {}
    for case, (steps, checks) in cases.items():
        required = [
            {
                "description": f"entry {n}",
                "evidence_scope": ["accepted-session.json"],
                "checks": [c],
            }
            for n, c in enumerate(checks)
        ]
        scripted[case] = ([*steps, {"final": "Done."}], {"required": required, "forbidden": []})
    write_scripted_suite(repo, target, suite, scripted, prompt, behaviors)


# A case of a scripted suite: the agent's steps (its final answer among them) and the case's
# `assert` block but its summary.
ScriptedCase = tuple[list[dict[str, Any]], dict[str, Any]]


def write_scripted_suite(
    repo: Path,
    target: tuple[str, str, str, list[str]],
    suite: str,
    cases: dict[str, ScriptedCase],
    prompt: Callable[[str], str],
    behaviors: Path,
) -> None:
    """An eval repo with one target (`target`: its id, title, entry skill and roots) and one
    suite of `cases`, and for each case the scripted behaviour answering its prompt (matched
    whole) with the case's steps."""
    target_id, title, entry_skill, roots = target
    folder = repo / "targets" / target_id
    write_file(
        folder / "target.yaml",
        json.dumps(
            {
                "target_id": target_id,
                "title": title,
                "entry_skill": entry_skill,
                "roots": roots,
                "default_suites": [suite],
                "suite_root": "cases",
                "allowed_statuses": ["pass", "fail", "blocked"],
            }
        ),
    )
    files = [f"targets/{target_id}/cases/{suite}/{case}.yaml" for case in cases]
    write_file(
        folder / "cases" / suite / "suite.yaml",
        json.dumps({"suite_id": suite, "title": suite, "cases": files}),
    )
    for case, (steps, assertions) in cases.items():
        text = prompt(case)
        write_file(
            folder / "cases" / suite / f"{case}.yaml",
            json.dumps(
                {
                    "case_id": case,
                    "title": case,
                    "input": {"user_prompt": text},
                    "assert": {"summary": case, **assertions},
                }
            ),
        )
        write_file(
            behaviors / f"{case}.yaml",
            json.dumps({"name": case, "match": {"prompt_equals": text}, "steps": steps}),
        )


def run_scripted(repo: Path, behaviors: Path, runs_dir: Path, **options: Any) -> RunOutcome:
    """`run` of an eval repo (or an `evals.json`) with scripted behaviours, in a scratch root of
    its own; `options`: any other `RunOptions` field (`agent`, `cases`, `sandbox`, ...)."""
    options.setdefault("tracer", tracer_under_test())
    with scratch_dir() as scratch:
        return Run(
            RunOptions(
                repo=repo, behaviors=behaviors, runs_dir=runs_dir, scratch_root=scratch, **options
            ),
            PlainProgress(),
        ).execute()


def run_scripted_repo(
    repo: Path, source: Path | None, behaviors: Path, runs_dir: Path, agent: str | None = None
) -> RunOutcome:
    """`run` of an eval repo's default suites with a skill source and scripted behaviours, in a
    scratch root of its own (`agent`: the runner's name; the default runner when None)."""
    options: dict[str, Any] = {"agent": agent} if agent is not None else {}
    return run_scripted(repo, behaviors, runs_dir, source_workspace=source, **options)


def play_docs_skill(
    tmp_path: Path,
    files: dict[str, str],
    runner: str,
    title: str,
    round_name: str,
    cases: dict[str, ScriptedChecksCase],
) -> Path:
    """A red team round's run of the real agent `runner` (the runner's name) on a `docs` skill
    made of `files` (workspace paths of `.agents/skills/docs/...` and their text, its SKILL.md
    among them), one checks suite of `cases`, each prompt naming the round: the run directory."""
    source = tmp_path / "source"
    for path, text in files.items():
        write_file(source / path, text)
    repo, behaviors = tmp_path / "repo", tmp_path / "behaviors"
    write_checks_suite(
        repo,
        ("docs", title, DOCS_SKILL, [".agents/skills/docs"]),
        title.lower().replace(" ", ""),
        cases,
        lambda case: f"Round {round_name}, {title}, case {case}.",
        behaviors,
    )
    return run_scripted_repo(repo, source, behaviors, tmp_path / "runs", runner).run_dir.path


def assert_contained_pass(
    outcome: RunOutcome, *, traced: bool = True, case: str = "eval-1"
) -> tuple[Path, dict[str, Any]]:
    """The case's first attempt was contained (by the trace too, when `traced`) and the case
    passed: the honest run of a real skill. Its folder and `attempt.json`."""
    attempt = outcome.run_dir.path / f"case-artifacts/{case}/attempts/attempt-01"
    record = json.loads((attempt / "attempt.json").read_text())
    assert record["isolation_report"]["verdict"] == "contained", record["isolation_report"]
    if traced:
        assert record["trace_report"]["verdict"] == "contained", record["trace_report"]
    result = json.loads((outcome.run_dir.path / f"case-results/{case}.json").read_text())
    assert result["status"] == "pass", result
    return attempt, record


def agent_params(*agents: str) -> list[Any]:
    """`pytest.param`s of agent names, each marked as the CLI it needs."""
    return [pytest.param(agent, marks=getattr(pytest.mark, agent)) for agent in agents]


def run_skill_steps(
    agent: str, evals: Path, root: Path, prompt: str, steps: list[dict[str, Any]]
) -> RunOutcome:
    """`run` of an evals file by the real `agent` with the jail and the trace (skipped where the
    CLI or either layer is missing), its one scripted behaviour `steps` answering `prompt`; the
    behaviours and runs under `root`."""
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    behaviors = one_behavior(root, "steps", prompt, steps)
    return run_scripted_repo(evals, None, behaviors, root / "runs", runner)


def run_command(repo: Path, runs: Path, scratch: Path | str, *args: str) -> list[str]:
    """`agentic-eval run` as a process of its own (one a test signals, kills or runs beside
    another) on `repo`, its run directories under `runs` and its scratch under `scratch`, then
    `args`."""
    evaluator = [sys.executable, "-m", "evaluator", "run"]
    return [
        *evaluator,
        "--repo",
        str(repo),
        "--runs-dir",
        str(runs),
        "--scratch-root",
        str(scratch),
        *args,
    ]


def one_behavior(root: Path, name: str, prompt: str, steps: list[dict[str, Any]]) -> Path:
    """A behaviours folder holding one scripted behaviour, matched by a piece of its prompt."""
    behaviors = root / "behaviors"
    behaviors.mkdir()
    (behaviors / f"{name}.yaml").write_text(
        json.dumps({"name": name, "match": {"prompt_contains": prompt}, "steps": steps})
    )
    return behaviors


def scripted_outcome(
    agent: str,
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    eval_repo: Callable[[Path], tuple[Path, Path, Path]],
) -> Iterator[RunOutcome]:
    """A module fixture's body: `eval_repo(root)` (repo, skill source, behaviours) run by the real
    `agent` with the jail and the trace, its scratch removed afterwards."""
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    root = tmp_path_factory.mktemp(f"{name}-{agent}")
    repo, source, behaviors = eval_repo(root)
    yield run_scripted_repo(repo, source, behaviors, root / "runs", runner)
    shutil.rmtree(root, ignore_errors=True)


def run_cli_with_judge(
    repo: Path, case: str, base_url: str, run_id: str, label: str, *judge: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """`agentic-eval run` of one case as a user with a real model runs it: the agent and the judge
    both reached at `base_url` as a provider endpoint (models `LABEL-agent` and `LABEL-judge`, a
    key in an environment variable of its own, no ambient OpenAI or Codex key), plus the judge
    options `judge`. The finished process and the run's directory."""
    key_env = f"{label.upper().replace('-', '_')}_JUDGE_KEY"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODEX_API"))}
    env[key_env] = f"{label}-test-key"
    runs = repo.parent / "runs"
    with scratch_dir() as scratch:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "evaluator",
                "run",
                "--repo",
                str(repo),
                "--case",
                case,
                *("--model", f"{label}-agent", "--base-url", base_url),
                *("--api-key-env", key_env, "--runs-dir", str(runs)),
                *("--scratch-root", str(scratch), "--run-id", run_id),
                *("--judge-model", f"{label}-judge", "--judge-base-url", base_url),
                *("--judge-api-key-env", key_env, *judge),
            ],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
            env=env,
            cwd=ROOT,
        )
    return done, runs / run_id
