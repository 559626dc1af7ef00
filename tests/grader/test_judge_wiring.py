"""The judge options reach the judge through the command line: `--judge rules` never calls a
model, and `--judge-model` / `--judge-votes` are what the judge's model server sees, for `run`
and for `judge` (a real Codex agent run, then real `codex exec` judges against a scripted
judge server that counts what it is asked)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from evaluator.adapters import adapter_names
from evaluator.modelserver.behaviors import load_behavior_file
from tests.conftest import ROOT, copy_demo
from tests.support import behavior, codex_or_skip, scratch_dir, serving

pytestmark = [pytest.mark.codex, pytest.mark.slow]

CASE = "routing-add-column"
# No rule compiles this (a judgement of meaning): only a model can decide it.
PROSE = "The final answer explains the rollback in plain words for a reviewer."
KEY_ENV = "WIRING_JUDGE_KEY"


@dataclass
class Seen:
    """What the judge asked the model server: the model each of its requests named, and its
    threads (one per judge session). The agent asks the same server: its requests do not
    carry the assertion's text and are not counted."""

    models: list[str] = field(default_factory=list)
    threads: set[str] = field(default_factory=set)
    agent_requests: int = 0


@contextmanager
def model_server() -> Iterator[tuple[str, Seen]]:
    """One loopback server for the agent (through `--base-url`, the real provider path) and for
    the judge (through `--judge-base-url`)."""
    verdict = {"final_json": {"verdict": "not-met", "rationale": "r", "refs": []}}
    agent = load_behavior_file(
        ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill" / f"{CASE}.yaml",
        adapter_names(),
    )
    seen = Seen()
    with serving(behavior("judge", PROSE, [verdict]), agent) as server:
        answer = server.answer

        def observe(body: dict[str, Any], headers: dict[str, str]) -> tuple[int, bytes, str]:
            if PROSE in json.dumps(body):
                seen.models.append(str(body.get("model")))
            else:
                seen.agent_requests += 1
            return answer(body, headers)

        server.answer = observe  # type: ignore[method-assign]
        try:
            yield server.base_url, seen
        finally:
            seen.threads = {
                r.thread_id for r in server.records if r.thread_id and r.behavior == "judge"
            }


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODEX_API"))}
    env[KEY_ENV] = "wiring-test-key"
    return subprocess.run(
        [sys.executable, "-m", "evaluator", *args],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env=env,
        cwd=ROOT,
    )


def _judge_options(base_url: str, *extra: str) -> list[str]:
    return [
        "--judge-model",
        "wiring-judge-model",
        "--judge-base-url",
        base_url,
        "--judge-api-key-env",
        KEY_ENV,
        *extra,
    ]


def _entry(run_dir: Path) -> dict[str, Any]:
    result = json.loads((run_dir / f"case-results/{CASE}.json").read_text())
    [entry] = [a for a in result["assertions"] if a["summary"] == PROSE]
    return dict(entry)


@dataclass
class Setup:
    repo: Path
    runs: Path
    scratch: Path


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    codex_or_skip()
    repo = copy_demo(tmp_path_factory.mktemp("wiring"))
    case_file = repo / f"targets/db-migrations/cases/routing/{CASE}.yaml"
    data = yaml.safe_load(case_file.read_text())
    data["assert"]["required"].append({"description": PROSE})
    data.pop("golden", None)
    case_file.write_text(yaml.safe_dump(data, allow_unicode=True))
    with scratch_dir() as scratch:
        yield Setup(repo, repo.parent / "runs", scratch)


def _run(setup: Setup, base_url: str, run_id: str, *judge: str) -> subprocess.CompletedProcess[str]:
    return _cli(
        "run",
        "--repo",
        str(setup.repo),
        "--case",
        CASE,
        "--model",
        "wiring-agent-model",
        "--base-url",
        base_url,
        "--api-key-env",
        KEY_ENV,
        "--runs-dir",
        str(setup.runs),
        "--scratch-root",
        str(setup.scratch),
        "--run-id",
        run_id,
        *judge,
    )


def test_judge_rules_never_calls_a_model_in_run_or_judge(setup: Setup) -> None:
    with model_server() as (base_url, seen):
        done = _run(setup, base_url, "rules", "--judge", "rules", *_judge_options(base_url))
        assert done.returncode == 1, done.stderr  # the prose entry stays unclear
        entry = _entry(setup.runs / "rules")
        assert (entry["status"], entry["decided_by"]) == ("blocked", "unclear-rule")
        again = _cli(
            "judge", str(setup.runs / "rules"), "--judge", "rules", *_judge_options(base_url)
        )
        assert again.returncode == 1, again.stderr
    assert seen.agent_requests > 0  # the agent did run against the same server
    assert seen.models == [] and seen.threads == set()


def test_judge_model_and_votes_reach_the_judge_from_run(setup: Setup) -> None:
    with model_server() as (base_url, seen):
        done = _run(setup, base_url, "votes", *_judge_options(base_url, "--judge-votes", "3"))
        assert done.returncode in (0, 1), done.stderr
    entry = _entry(setup.runs / "votes")
    assert entry["decided_by"] == "model"
    # Three votes: three judge sessions, each asking the named model.
    assert len(seen.threads) == 3
    assert seen.models and set(seen.models) == {"wiring-judge-model"}


def test_judge_model_and_votes_reach_the_judge_from_judge(setup: Setup) -> None:
    run_dir = setup.runs / "rejudged"
    with model_server() as (base_url, seen):
        first = _run(setup, base_url, "rejudged", "--judge", "rules", *_judge_options(base_url))
        assert first.returncode == 1, first.stderr
        assert seen.models == []
        done = _cli("judge", str(run_dir), *_judge_options(base_url, "--judge-votes", "1"))
        assert done.returncode in (0, 1), done.stderr
    assert _entry(run_dir)["decided_by"] == "model"
    assert len(seen.threads) == 1
    assert seen.models and set(seen.models) == {"wiring-judge-model"}
