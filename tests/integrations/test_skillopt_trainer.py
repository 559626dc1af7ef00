"""SkillOpt's own trainer (`skillopt==0.2.0` `scripts/train.py` + `ReflACTTrainer`) with our
adapter registered, real Codex and scripted agents that follow what SKILL.md says.

Only the optimiser's proposals are scripted (its reflect and merge need SkillOpt's LLM): step 1
proposes the fixed skill, step 2 a harmful one. Data loading, the baseline, the rollouts, the
score cache, the gate and the history are SkillOpt's real code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import skillopt.engine.trainer as trainer_module
import yaml

from evaluator.integrations import skillopt as adapter_module
from evaluator.integrations.items import case_item
from evaluator.plan import open_repo, select_cases
from tests.conftest import ROOT
from tests.support import codex_or_skip, scratch_dir

pytestmark = pytest.mark.codex
SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"
READS_SKILL = ROOT / "agentic-evals/targets/db-migrations/behaviors/reads-skill"
IMMUTABLE = "Never edit an existing migration file: migrations that have shipped are\nimmutable."


def test_skillopt_trainer_gate_accepts_a_fix_and_rejects_a_break(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_or_skip()
    text = SKILL.read_text()
    row = next(line for line in text.splitlines(True) if "references/add-column.md" in line)
    (tmp_path / "current.md").write_text(text.replace(row, ""))  # routes new columns wrong
    proposals = [text, text.replace(IMMUTABLE, "")]  # the fix, then a harmful edit

    def scripted_merge(current_skill: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {"skill_candidates": [{"new_skill": proposals.pop(0), "title": "scripted"}]}

    def scripted_reflect(self: Any, results: Any, skill: str, out_dir: str, **kw: Any) -> Any:
        # Non-empty, or SkillOpt skips the step; merge below decides the actual proposal.
        return [{"patch": {"skill_candidates": [{"new_skill": "x"}]}, "source_type": "failure"}]

    monkeypatch.setattr(trainer_module, "merge_patches", scripted_merge)
    monkeypatch.setattr(adapter_module.AgenticEvalAdapter, "reflect", scripted_reflect)

    repo = open_repo(ROOT / "agentic-evals", None)
    cases = ("routing-add-column", "workflow-keeps-shipped-migrations")
    items = [case_item(repo, c) for c in select_cases(repo, None, (), cases).cases]
    for split, chosen in (("train", items), ("val", items), ("test", [])):
        (tmp_path / "split" / split).mkdir(parents=True)
        (tmp_path / "split" / split / "items.json").write_text(json.dumps(chosen))
    out = tmp_path / "out"
    with scratch_dir() as scratch:
        config = {
            "model": {
                "optimizer_backend": "openai_chat",
                "target_backend": "openai_chat",
                "optimizer": "unused-scripted",
                "target": "unused-scripted",
            },
            "train": {"num_epochs": 2, "batch_size": 2, "accumulation": 1, "seed": 1},
            "gradient": {"minibatch_size": 2, "analyst_workers": 1, "merge_batch_size": 4},
            "optimizer": {
                "learning_rate": 4,
                "skill_update_mode": "full_rewrite_minibatch",
                "lr_control_mode": "scheduler",
            },
            "evaluation": {
                "use_gate": True,
                "gate_metric": "hard",
                "eval_test": False,
                "sel_env_num": 0,
                "test_env_num": 0,
            },
            "env": {
                "name": "agentic-eval",
                "skill_init": str(tmp_path / "current.md"),
                "out_root": str(out),
                "repo": str(ROOT / "agentic-evals"),
                "behaviors": str(READS_SKILL),
                "split_dir": str(tmp_path / "split"),
                "scratch_root": str(scratch),
            },
        }
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
        adapter_module.main(["train", "--config", str(tmp_path / "config.yaml")])
    history = json.loads((out / "history.json").read_text())
    assert [(h["action"], h["candidate_gate_score"]) for h in history] == [
        ("accept_new_best", 1.0),
        ("reject", 0.5),
    ]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["baseline_selection_hard"] == 0.5
    assert summary["best_selection_hard"] == 1.0
    assert (out / "best_skill.md").read_text().rstrip() == text.rstrip()
