"""Our SkillOpt adapter with the real `skillopt==0.2.0`, real Codex and scripted behaviours."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml
from skillopt.envs.base import EnvAdapter
from skillopt.evaluation.gate import evaluate_gate, select_gate_score
from skillopt.types import RolloutResult
from skillopt.utils import compute_score

from evaluator.integrations.items import case_item
from evaluator.integrations.skillopt import AgenticEvalAdapter, InfrastructureFailure, main
from evaluator.plan import open_repo, select_cases
from tests.conftest import ROOT
from tests.leaks import CODEX_KEY, leaks_in, model_server_process, write_leak_behaviour
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
BEHAVIORS = ROOT / "agentic-evals/targets/db-migrations/behaviors"
SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"


@pytest.fixture(autouse=True)
def _codex() -> None:
    codex_or_skip()


def items(*case_ids: str) -> list[dict[str, object]]:
    repo = open_repo(ROOT / "agentic-evals", None)
    selection = select_cases(repo, None, (), case_ids)
    return [case_item(repo, case) for case in selection.cases]


def test_skillopt_eval_only_runs_our_adapter_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with scratch_dir() as scratch:
        config = {
            "env": {
                "name": "agentic-eval",
                "repo": str(ROOT / "agentic-evals"),
                "suites": "routing",
                "behaviors": str(BEHAVIORS / "follows-skill"),
                "scratch_root": str(scratch),
                "out_root": str(out),
            }
        }
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
        main(["eval", "--config", str(tmp_path / "config.yaml"), "--skill", str(SKILL)])
    summary = json.loads((out / "eval_summary.json").read_text())
    assert (summary["n_items"], summary["hard"], summary["soft"]) == (3, 1.0, 1.0)
    splits = out / "_generated_splits/agentic-eval"
    manifest = json.loads((splits / "split_manifest.json").read_text())
    for split, count in manifest["counts"].items():
        assert count == len(json.loads((splits / split / "items.json").read_text()))
    talk = json.loads(
        (out / "predictions/routing__routing-add-column/conversation.json").read_text()
    )
    assert talk[0] == {
        "type": "tool_call",
        "cmd": "cat .agents/skills/db-migrations/SKILL.md",
        "obs": talk[0]["obs"],
    }
    assert "Step 1: route to exactly one reference" in talk[0]["obs"]
    assert talk[-1]["role"] == "system"
    assert talk[-1]["content"].startswith("[EVALUATION RESULT] case routing-add-column: pass")


def test_the_gate_accepts_a_fix_and_rejects_a_break(tmp_path: Path) -> None:
    text = SKILL.read_text()
    row = next(line for line in text.splitlines(True) if "references/add-column.md" in line)
    rule = "Never edit an existing migration file: migrations that have shipped are\nimmutable."
    protected = "\n<!-- SLOW_UPDATE_START -->\n  kept\r\n byte for byte\n<!-- SLOW_UPDATE_END -->\n"
    skills = {
        "broken": text.replace(row, ""),
        "fixed": text + protected,
        "harmful": text.replace(rule, ""),
    }
    batch = items("routing-add-column", "workflow-keeps-shipped-migrations")
    scores = {}
    with scratch_dir() as scratch:
        adapter = AgenticEvalAdapter(
            repo=str(ROOT / "agentic-evals"),
            behaviors=str(BEHAVIORS / "reads-skill"),
            scratch_root=str(scratch),
        )
        assert isinstance(adapter, EnvAdapter)
        for name, skill in skills.items():
            results = adapter.rollout(batch, skill, str(tmp_path / name))
            assert [RolloutResult.from_dict(r).id for r in results] == [i["id"] for i in batch]
            scores[name] = compute_score(results)
    assert scores == {"broken": (0.5, 0.5), "fixed": (1.0, 1.0), "harmful": (0.5, 0.5)}
    kept = next((tmp_path / "fixed/agentic-eval-runs").glob("*/candidate-skill.md"))
    assert kept.read_bytes() == skills["fixed"].encode()

    current = select_gate_score(*scores["broken"])
    fix = evaluate_gate("fixed", scores["fixed"][0], "broken", current, "broken", current, 0, 1)
    assert fix.action == "accept_new_best"
    brk = evaluate_gate(
        "harmful", scores["harmful"][0], "fixed", fix.current_score, "fixed", fix.best_score, 1, 2
    )
    assert brk.action == "reject"


def test_an_outage_raises_instead_of_scoring_zero(tmp_path: Path) -> None:
    behaviors = tmp_path / "b"
    behaviors.mkdir()
    (behaviors / "o.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "outage",
                "match": {"prompt_contains": "default currency per account"},
                "steps": [{"http_error": 503}],
            }
        )
    )
    with scratch_dir() as scratch:
        adapter = AgenticEvalAdapter(
            repo=str(ROOT / "agentic-evals"), behaviors=str(behaviors), scratch_root=str(scratch)
        )
        with pytest.raises(InfrastructureFailure, match="not a score"):
            adapter.rollout(items("routing-add-column"), SKILL.read_text(), str(tmp_path / "o"))


def test_the_command_ends_an_outage_or_bad_input_with_one_line_and_its_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m evaluator.integrations.skillopt eval` (docs/skillopt.md) printed SkillOpt's
    traceback and exited 1 for an outage and for a repo that does not exist."""
    behaviors = tmp_path / "b"
    behaviors.mkdir()
    (behaviors / "o.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "outage",
                "match": {"prompt_contains": "default currency per account"},
                "steps": [{"http_error": 503}],
            }
        )
    )
    with scratch_dir() as scratch:
        env = {
            "name": "agentic-eval",
            "repo": str(ROOT / "agentic-evals"),
            "suites": "routing",
            "behaviors": str(behaviors),
            "scratch_root": str(scratch),
            "out_root": str(tmp_path / "out"),
        }
        for name, repo, code, line in (
            ("outage", env["repo"], 3, "agentic-eval: case routing-"),
            ("bad-repo", str(tmp_path / "nope"), 2, f"agentic-eval: {tmp_path / 'nope'}: eval"),
        ):
            config = tmp_path / f"{name}.yaml"
            config.write_text(yaml.safe_dump({"env": {**env, "repo": repo}}))
            capsys.readouterr()
            with pytest.raises(SystemExit) as info:
                main(["eval", "--config", str(config), "--skill", str(SKILL)])
            assert info.value.code == code, name
            err = capsys.readouterr().err
            last = err.strip().splitlines()[-1]
            assert last.startswith(line), err
            assert "Traceback" not in err


def test_a_real_provider_endpoint_in_the_config_is_the_one_the_agent_reaches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SkillOpt hands the adapter only the `env.*` keys its constructor names: `base_url` and
    `api_key_env` vanished, and the agent went to the provider's default endpoint with whatever
    key the environment held (here none: exit 3, "a real model needs credentials"). The
    scripted server stands in for a gateway, with a real-looking key the agent prints every way
    it can; no file SkillOpt or we write may hold it."""
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GATEWAY_KEY", CODEX_KEY)
    write_leak_behaviour(tmp_path / "behaviors")
    splits = tmp_path / "splits"
    for split, chosen in (("train", []), ("val", items("routing-add-column")), ("test", [])):
        (splits / split).mkdir(parents=True)
        (splits / split / "items.json").write_text(json.dumps(chosen))
    out = tmp_path / "out"
    log = tmp_path / "server.jsonl"
    with (
        scratch_dir() as scratch,
        model_server_process(tmp_path / "behaviors", log) as base_url,
    ):
        config = {
            "model": {"target": "mock-model"},
            "env": {
                "name": "agentic-eval",
                "repo": str(ROOT / "agentic-evals"),
                "split_dir": str(splits),
                "scratch_root": str(scratch),
                "out_root": str(out),
                "base_url": base_url,
                "api_key_env": "GATEWAY_KEY",
            },
        }
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
        main(["eval", "--config", str(tmp_path / "config.yaml"), "--skill", str(SKILL)])
        requests = [json.loads(line) for line in log.read_text().splitlines()]
        assert leaks_in({"key": CODEX_KEY}, (out, scratch, tmp_path / "config.yaml")) == []
    # The agent's client sent the gateway's key to the gateway, as a provider's client does.
    fingerprint = "sha256:" + hashlib.sha256(CODEX_KEY.encode()).hexdigest()[:12]
    assert requests and all(r["credential"] == fingerprint for r in requests), requests
    assert not [r for r in requests if r["error"]]
    summary = json.loads((out / "eval_summary.json").read_text())
    assert summary["n_items"] == 1
    talk = json.loads(
        (out / "predictions/routing__routing-add-column/conversation.json").read_text()
    )
    # The agent's commands ran and their output (the key redacted) is what SkillOpt reads.
    assert talk[0]["type"] == "tool_call" and "GATEWAY_KEY" in talk[0]["cmd"]
