"""Claude Code and Gemini CLI as the model judge (`--judge-agent`), with the real binaries: one
real agent run of that agent per agent (`--judge rules`: the prose entry stays unclear and no
model is asked), then `agentic-eval judge` on it with that agent's CLI judging against scripted
judge behaviours. A verified verdict decides the entry no rule decides; an invented citation is
refused; the judge's attempts to write are refused; the judge's key reaches no artifact."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from evaluator.adapters import get_adapter
from evaluator.agents import ModelEndpoint
from evaluator.grader.base import JudgeCall
from evaluator.grader.prompt import ANSWER_SCHEMA
from tests.conftest import ROOT, copy_demo
from tests.support import behavior, claude_or_skip, gemini_or_skip, scratch_dir, serving

CASE = "routing-add-column"
# No rule compiles this (a judgement of meaning): only a model can decide it.
PROSE = "The final answer explains the rollback in plain words for a reviewer."
AGENT_BEHAVIOR = (
    ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill" / f"{CASE}.yaml"
)
KEY_ENV = "JUDGE_AGENT_TEST_KEY"
KEY = "judge-agent-secret-7f3c9a1e5b"


@dataclass(frozen=True)
class Agent:
    adapter: str
    runner: str
    find: Callable[[], Path]


AGENTS = {
    "claude": Agent("claude", "claude-code", claude_or_skip),
    "gemini": Agent("gemini", "gemini-cli", gemini_or_skip),
}


@dataclass
class Saved:
    agent: Agent
    run_dir: Path
    scratch: Path
    root: Path
    final_answer: str  # the id of the run's final-answer record

    def probes(self) -> list[Path]:
        """Files a judge behaviour tries to create (outside the bundle, so that they outlive it)."""
        return [self.root / "judge-wrote-this.txt", self.root / "judge-ran-this.txt"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "GEMINI_"))}
    env[KEY_ENV] = KEY
    return subprocess.run(
        [sys.executable, "-m", "evaluator", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=env,
        cwd=ROOT,
    )


def _entry(run_dir: Path) -> dict[str, Any]:
    result = json.loads((run_dir / f"case-results/{CASE}.json").read_text())
    [entry] = [a for a in result["assertions"] if a["summary"] == PROSE]
    return dict(entry)


def _judge_steps(saved: Saved, *refs: str, rationale: str = "It says how.") -> list[dict[str, Any]]:
    """A judge that first tries to change things (its read-only mode must refuse both), then
    answers `met` citing `refs`."""
    wrote, ran = saved.probes()
    return [
        {"write": {"path": str(wrote), "content": "tampered\n"}},
        {"cmd": f"touch {ran}"},
        {"final_json": {"verdict": "met", "rationale": rationale, "refs": list(refs)}},
    ]


def _behaviors(folder: Path, steps: list[dict[str, Any]]) -> Path:
    folder.mkdir()
    judge = {"name": "judge", "match": {"prompt_contains": PROSE}, "steps": steps}
    (folder / "judge.yaml").write_text(yaml.safe_dump(judge))
    return folder


@pytest.fixture(
    scope="module",
    params=[
        pytest.param("claude", marks=pytest.mark.claude),
        pytest.param("gemini", marks=pytest.mark.gemini),
    ],
)
def saved(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Saved]:
    agent = AGENTS[request.param]
    agent.find()
    root = tmp_path_factory.mktemp(f"judge-{agent.adapter}")
    repo = copy_demo(root)
    case_file = repo / f"targets/db-migrations/cases/routing/{CASE}.yaml"
    data = yaml.safe_load(case_file.read_text())
    data["assert"]["required"].append({"description": PROSE})
    data.pop("golden", None)
    case_file.write_text(yaml.safe_dump(data, allow_unicode=True))
    behaviors = root / "behaviors"
    behaviors.mkdir()
    (behaviors / AGENT_BEHAVIOR.name).write_text(AGENT_BEHAVIOR.read_text())
    with scratch_dir() as scratch:
        runs = root / "runs"
        done = _cli(
            "run",
            "--repo",
            str(repo),
            "--case",
            CASE,
            "--agent",
            agent.runner,
            "--behaviors",
            str(behaviors),
            "--runs-dir",
            str(runs),
            "--scratch-root",
            str(scratch),
            "--run-id",
            "saved",
            "--judge",
            "rules",
            "--judge-agent",
            agent.adapter,
            "--judge-model",
            "never-asked",
        )
        assert done.returncode == 1, done.stderr  # the prose entry stays unclear
        run_dir = runs / "saved"
        session = run_dir / f"case-artifacts/{CASE}/accepted-session.json"
        records = json.loads(session.read_text())["records"]
        [final] = [r["id"] for r in records if r["kind"] == "final_answer"]
        yield Saved(agent, run_dir, scratch, root, final)


def _judge(saved: Saved, *args: str) -> subprocess.CompletedProcess[str]:
    return _cli("judge", str(saved.run_dir), "--scratch-root", str(saved.scratch), *args)


def test_judge_rules_never_asks_the_judge_agent(saved: Saved, tmp_path: Path) -> None:
    entry = _entry(saved.run_dir)
    assert (entry["status"], entry["decided_by"]) == ("blocked", "unclear-rule")
    behaviors = _behaviors(tmp_path / "b", _judge_steps(saved, saved.final_answer))
    again = _judge(
        saved,
        "--judge",
        "rules",
        "--judge-agent",
        saved.agent.runner,
        "--judge-model",
        "rules-model",
        "--behaviors",
        str(behaviors),
    )
    assert again.returncode == 1, again.stderr
    assert _entry(saved.run_dir)["decided_by"] == "unclear-rule"
    assert not list(saved.run_dir.glob("case-artifacts/**/judge/*.json"))


def test_the_judge_agent_decides_an_entry_no_rule_decides(saved: Saved, tmp_path: Path) -> None:
    behaviors = _behaviors(tmp_path / "b", _judge_steps(saved, saved.final_answer))
    done = _judge(
        saved,
        "--judge-agent",
        saved.agent.runner,  # a runner name names its adapter
        "--judge-model",
        "met-model",
        "--behaviors",
        str(behaviors),
    )
    assert done.returncode in (0, 1), done.stderr
    entry = _entry(saved.run_dir)
    assert (entry["status"], entry["decided_by"]) == ("pass", "model"), entry
    [record_path] = saved.run_dir.glob("case-artifacts/**/judge/*.json")
    record = json.loads(record_path.read_text())
    assert (record["backend"], record["model"], record["verdict"]) == (
        saved.agent.adapter,
        "met-model",
        "met",
    )
    assert json.loads(record["votes"][0]["raw_reply"])["refs"] == [saved.final_answer]
    # The judge tried to write a file and to run a command before answering: both refused.
    assert [p for p in saved.probes() if p.exists()] == []


def test_an_invented_citation_is_refused_and_the_key_reaches_no_artifact(saved: Saved) -> None:
    """Through a gateway (`--judge-base-url`, `--judge-api-key-env`): the judge's key is the one
    credential its CLI gets, and the server sees it; no file of the run holds it."""
    # A judge that repeats its key: the reply is kept in the judge record, redacted.
    steps = _judge_steps(saved, "msg-9999", rationale=f"My key is {KEY}.")
    with serving(behavior("judge", PROSE, steps)) as server:
        done = _judge(
            saved,
            "--judge-agent",
            saved.agent.adapter,
            "--judge-model",
            "invented-model",
            "--judge-base-url",
            server.base_url,
            "--judge-api-key-env",
            KEY_ENV,
        )
        played = [r.behavior for r in server.records]
    assert done.returncode == 1, done.stderr
    assert "judge" in played
    entry = _entry(saved.run_dir)
    assert (entry["status"], entry["decided_by"]) == ("blocked", "model"), entry
    result = json.loads((saved.run_dir / f"case-results/{CASE}.json").read_text())
    assert (result["status"], result["blocked_reason"]) == ("blocked", "insufficient-evidence")
    records = [
        json.loads(p.read_text()) for p in saved.run_dir.glob("case-artifacts/**/judge/*.json")
    ]
    [vote] = [r["votes"][0] for r in records if r["model"] == "invented-model"]
    assert vote["verification"]["answered"] == "met" and vote["verification"]["ok"] is False
    assert any("msg-9999" in problem for problem in vote["verification"]["problems"])
    leaked = [p for p in saved.run_dir.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaked == []


@pytest.mark.parametrize(
    "adapter",
    [
        pytest.param("claude", marks=pytest.mark.claude),
        pytest.param("gemini", marks=pytest.mark.gemini),
    ],
)
def test_a_model_outage_is_the_judges_reported_error_not_a_timeout(
    adapter: str, tmp_path: Path
) -> None:
    AGENTS[adapter].find()
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "session.json").write_text("{}")
    with serving(behavior("judge", "judge this", [{"http_error": 500}])) as server:
        endpoint = ModelEndpoint(model="m", base_url=server.base_url, scripted=True)
        backend = get_adapter(adapter).judge_backend(endpoint, get_adapter(adapter).options({}))
        reply = backend.ask(JudgeCall("judge this", ANSWER_SCHEMA, bundle, tmp_path / "s", 120))
    assert reply.raw is None
    assert reply.error is not None and "scripted HTTP 500" in reply.error, reply.error
