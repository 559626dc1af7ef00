"""The SkillOpt adapter's splits, checked before anything runs (no agent needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evaluator.errors import InputError
from evaluator.integrations.skillopt import AgenticEvalAdapter, check_env_keys, main
from tests.conftest import ROOT, copy_demo

SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"


def test_a_selection_without_val_cases_is_refused_not_scored_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The seventh new user's three evals all hashed to `train`: SkillOpt's `eval --split
    valid_seen` printed `hard=0.0000 soft=0.0000 (n=0)` and exited 0, and its trainer would
    gate every candidate on no case (each a 0.0 tie, each rejected)."""
    repo = copy_demo(tmp_path / "src")
    (repo / "agentic-eval.yaml").write_text(
        "default_target: db-migrations\nsplits: {val_fraction: 0}\n"
    )
    config = tmp_path / "config.yaml"
    env = {"name": "agentic-eval", "repo": str(repo), "out_root": str(tmp_path / "out")}
    config.write_text(yaml.safe_dump({"env": env}))
    skill = tmp_path / "src/.agents/skills/db-migrations/SKILL.md"
    with pytest.raises(SystemExit) as info:
        main(["eval", "--config", str(config), "--skill", str(skill), "--split", "valid_seen"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    head = f"agentic-eval: {repo}: val: SkillOpt's selection split holds no case"
    assert last.startswith(f"{head} (train 10, val 0, test 0)"), err
    assert "`split: val`" in last and "splits.val_fraction" in last
    assert not (tmp_path / "out/eval_summary.json").exists()


def test_a_selection_with_val_cases_sets_up_as_before(tmp_path: Path) -> None:
    repo = copy_demo(tmp_path / "src")
    adapter = AgenticEvalAdapter(repo=str(repo))
    adapter.setup({"out_root": str(tmp_path / "out")})
    assert len(adapter.dataloader.val_items) == 5


def test_a_split_dir_without_val_items_is_named(tmp_path: Path) -> None:
    repo = copy_demo(tmp_path / "src")
    for split in ("train", "val", "test"):
        (tmp_path / "split" / split).mkdir(parents=True)
        (tmp_path / "split" / split / "items.json").write_text("[]")
    adapter = AgenticEvalAdapter(repo=str(repo), split_dir=str(tmp_path / "split"))
    with pytest.raises(InputError, match="holds no case") as info:
        adapter.setup({"out_root": str(tmp_path / "out"), "split_dir": str(tmp_path / "split")})
    assert info.value.path == str(tmp_path / "split")


@pytest.mark.parametrize("command", ["eval", "train"])
def test_a_config_key_the_adapter_does_not_take_is_refused_not_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """SkillOpt hands the adapter only the `env.*` keys its constructor names: `attempts: 3`
    (the CLI's `--attempts`) ran one attempt per case, exit 0, and the gate decided on one."""
    config = tmp_path / "config.yaml"
    out = tmp_path / "out"
    config.write_text(
        "env:\n"
        "  name: agentic-eval\n"
        f"  repo: {ROOT / 'agentic-evals'}\n"
        "  attempts: 3\n"
        f"  out_root: {out}\n"
    )
    with pytest.raises(SystemExit) as info:
        main([command, "--config", str(config), "--skill", str(SKILL)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"agentic-eval: {config}:4:3: env.attempts: "), err
    assert "did you mean `attempts_k`?" in last and "base_url" in last
    assert not out.exists()


def test_the_documented_config_names_only_keys_the_adapter_takes() -> None:
    check_env_keys(ROOT / "docs/skillopt/agentic-eval.yaml")
    keys = yaml.safe_load((ROOT / "docs/skillopt/agentic-eval.yaml").read_text())["env"]
    assert {"attempts_k", "exec_timeout", "min_coverage"} <= set(keys)
