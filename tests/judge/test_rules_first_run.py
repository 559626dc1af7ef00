"""Rules first, through `run` with a real Codex agent and the scripted model: an entry with one
compiled pass criterion (the add-column reference was read) and one no rule compiles (what the
answer explains). The agent that skips the reference fails the entry by rules, and the judge's
model server, which counts what it is asked, sees no request even when a judge model is
configured; the agent that reads it is `blocked: unclear-rule` with `--judge rules`, and the
model judge decides it when one is configured."""

from __future__ import annotations

import json
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
from tests.support import behavior, codex_or_skip, run_cli_with_judge, serving

pytestmark = [pytest.mark.codex, pytest.mark.slow]

CASE = "routing-add-column"
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"
READS = BEHAVIORS / "follows-skill" / f"{CASE}.yaml"
SKIPS = BEHAVIORS / "golden" / CASE / "routes-to-rename.yaml"  # reads rename-table.md instead
COMPILED = (
    "The accepted session evidence shows consultation of"
    " `.agents/skills/db-migrations/references/add-column.md`."
)
PROSE = "The final answer explains the rollback in plain words for a reviewer."


@dataclass
class Seen:
    """The judge's requests to the model server (those that carry the entry's prose)."""

    judge_requests: int = 0
    agent_requests: int = 0
    threads: set[str] = field(default_factory=set)


@contextmanager
def model_server(agent_behavior: Path) -> Iterator[tuple[str, Seen]]:
    # "not-met": a `met` must cite the records it relies on, which this script cannot know.
    verdict = {"final_json": {"verdict": "not-met", "rationale": "not explained", "refs": []}}
    agent = load_behavior_file(agent_behavior, adapter_names())
    seen = Seen()
    with serving(behavior("judge", PROSE, [verdict]), agent) as server:
        answer = server.answer

        def observe(body: dict[str, Any], headers: dict[str, str]) -> tuple[int, bytes, str]:
            if PROSE in json.dumps(body):
                seen.judge_requests += 1
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


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    codex_or_skip()
    copied = copy_demo(tmp_path_factory.mktemp("rules-first"))
    case_file = copied / f"targets/db-migrations/cases/routing/{CASE}.yaml"
    data = yaml.safe_load(case_file.read_text())
    required = data["assert"]["required"][0]
    required.pop("checks")
    required["pass_criteria"] = [COMPILED, PROSE]
    data.pop("golden", None)
    case_file.write_text(yaml.safe_dump(data, allow_unicode=True))
    return copied


def _run(repo: Path, agent_behavior: Path, run_id: str, *judge: str) -> tuple[dict[str, Any], Seen]:
    with model_server(agent_behavior) as (base_url, seen):
        done, run_dir = run_cli_with_judge(repo, CASE, base_url, run_id, "rules-first", *judge)
    assert done.returncode in (0, 1), done.stderr
    assert seen.agent_requests > 0  # the agent ran against this server
    result = json.loads((run_dir / f"case-results/{CASE}.json").read_text())
    [entry] = [a for a in result["assertions"] if a["entry_id"] == "required[0]"]
    return entry, seen


def test_the_agent_that_skips_the_compiled_file_fails_by_rules_without_a_model_request(
    repo: Path,
) -> None:
    for run_id, judge in (("skips-rules", ("--judge", "rules")), ("skips-auto", ())):
        entry, seen = _run(repo, SKIPS, run_id, *judge)
        assert (entry["status"], entry["decided_by"]) == ("fail", "rules"), run_id
        assert [p["sentence"] for p in entry["provenance"]] == [COMPILED]
        assert entry["checks"][0]["kind"] == "file_read"
        # A judge model was configured for "skips-auto"; the failure rules proved needed none.
        assert (seen.judge_requests, seen.threads) == (0, set()), run_id


def test_the_agent_that_reads_it_is_unclear_with_rules_and_decided_by_the_model(
    repo: Path,
) -> None:
    entry, seen = _run(repo, READS, "reads-rules", "--judge", "rules")
    assert (entry["status"], entry["decided_by"], entry["blocked_reason"]) == (
        "blocked",
        "unclear-rule",
        "unclear-rule",
    )
    assert f'pass_criteria "{COMPILED}" holds' in entry["notes"]
    assert seen.judge_requests == 0
    entry, seen = _run(repo, READS, "reads-model")
    assert (entry["status"], entry["decided_by"]) == ("fail", "model")
    assert entry["model"]["verdict"] == "not-met"
    assert seen.judge_requests > 0 and len(seen.threads) == 1
