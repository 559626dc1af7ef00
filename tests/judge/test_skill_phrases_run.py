"""Issue 23's two skill forms through `run` with a real Codex agent and the scripted model: the
target skill's SKILL.md is the invented `mailbox` skill (`tests/fixtures/skills/mailbox`), and
one case holds "... a date-windowed threads query (--since) rather than all-time counts" and
"searched across all folders, not just one". Rules pass the agent that ran only windowed
queries and a search of every folder, and fail the one that ran only all-time counts, without a
request to the judge's model; the agent that ran both queries is left to the model judge (one
request), or `blocked: unclear-rule` with `--judge rules`."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT, copy_demo
from tests.support import behavior, codex_or_skip, run_cli_with_judge, serving

pytestmark = [pytest.mark.codex, pytest.mark.slow]

CASE = "routing-add-column"
SKILL = ".agents/skills/db-migrations"
SCRIPT = f"python3 {SKILL}/scripts/mail.py"
WINDOWED = "The skill used a date-windowed threads query (--since) rather than all-time counts."
ALL_FOLDERS = "The skill searched across all folders, not just one."
PROMPT = "default currency per account"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    codex_or_skip()
    copied = copy_demo(tmp_path_factory.mktemp("skill-phrases"))
    skill = copied.parent / SKILL
    mailbox = ROOT / "tests/fixtures/skills/mailbox"
    shutil.copy(mailbox / "SKILL.md", skill / "SKILL.md")
    shutil.copy(mailbox / "scripts/mail.py", skill / "scripts/mail.py")
    case_file = copied / f"targets/db-migrations/cases/routing/{CASE}.yaml"
    data = yaml.safe_load(case_file.read_text())
    data["assert"] = {
        "summary": "The skill's own commands, as its SKILL.md names them.",
        "required": [{"description": WINDOWED}, {"description": ALL_FOLDERS}],
    }
    data.pop("golden", None)
    case_file.write_text(yaml.safe_dump(data, allow_unicode=True))
    return copied


@contextmanager
def model_server(commands: list[str]) -> Iterator[tuple[str, list[int]]]:
    """The agent runs `commands` then answers; the judge answers "not-met" and is counted."""
    steps: list[dict[str, Any]] = [{"cmd": c} for c in commands] + [{"final": "Done."}]
    agent = behavior("agent", PROMPT, steps)
    not_met = {
        "final_json": {"verdict": "not-met", "rationale": "all-time counts used", "refs": []}
    }
    judge = behavior("judge", WINDOWED, [not_met])
    judged = [0]
    with serving(judge, agent) as server:
        answer = server.answer

        def observe(body: dict[str, Any], headers: dict[str, str]) -> tuple[int, bytes, str]:
            if WINDOWED in json.dumps(body):
                judged[0] += 1
            return answer(body, headers)

        server.answer = observe  # type: ignore[method-assign]
        yield server.base_url, judged


def _run(repo: Path, commands: list[str], run_id: str, *judge: str) -> tuple[list[Any], int]:
    with model_server(commands) as (base_url, judged):
        done, run_dir = run_cli_with_judge(repo, CASE, base_url, run_id, "skill-phrases", *judge)
    assert done.returncode in (0, 1), done.stderr
    result = json.loads((run_dir / f"case-results/{CASE}.json").read_text())
    verdicts = [(a["status"], a["decided_by"]) for a in result["assertions"]]
    return verdicts, judged[0]


def test_windowed_queries_and_a_search_of_every_folder_pass_by_rules(repo: Path) -> None:
    commands = [f"{SCRIPT} threads --since 2026-01-01", f"{SCRIPT} search -q invoice"]
    verdicts, judged = _run(repo, commands, "windowed")
    assert verdicts == [("pass", "rules"), ("pass", "rules")]
    assert judged == 0


def test_all_time_counts_and_one_folder_fail_by_rules(repo: Path) -> None:
    commands = [f"{SCRIPT} threads", f"{SCRIPT} search -q invoice --folder=inbox"]
    verdicts, judged = _run(repo, commands, "all-time")
    assert verdicts == [("fail", "rules"), ("fail", "rules")]
    assert judged == 0


def test_both_queries_go_to_the_model_or_stay_unclear(repo: Path) -> None:
    commands = [f"{SCRIPT} threads", f"{SCRIPT} threads --since 2026-01-01"]
    verdicts, judged = _run(repo, commands, "both-rules", "--judge", "rules")
    assert verdicts[0] == ("blocked", "unclear-rule")
    assert judged == 0
    verdicts, judged = _run(repo, commands, "both-model")
    assert verdicts[0] == ("fail", "model")
    assert judged > 0
