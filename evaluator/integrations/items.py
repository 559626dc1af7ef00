"""One optimiser item per eval case, and SkillOpt's split-dir layout of our stable splits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator.artifacts.rundir import write_json
from evaluator.plan import Selection, case_split
from evaluator.repo import EvalRepo, LoadedCase
from evaluator.vocabulary import SPLITS

ITEM_FIELDS = [
    "id",
    "task_type",
    "target",
    "suite",
    "case",
    "split",
    "task_description",
    "reference_text",
]


def item_id(case: LoadedCase) -> str:
    # SkillOpt makes `predictions/<id>/` of it: no slash, so no nested directories.
    return f"{case.suite_id}__{case.case_id}"


def reference_text(case: LoadedCase) -> str:
    """What the case checks, for the optimiser's analyst only; the agent never sees it."""
    lines = [case.case.assertions.summary or ""] if case.case.assertions.summary else []
    for entry in case.case.assertions.required:
        lines.append(f"required: {entry.description}")
    for entry in case.case.assertions.forbidden:
        lines.append(f"forbidden: {entry.description}")
    return "\n".join(lines)


def case_item(repo: EvalRepo, case: LoadedCase) -> dict[str, Any]:
    return {
        "id": item_id(case),
        "task_type": case.suite_id,
        "target": case.target_id,
        "suite": case.suite_id,
        "case": case.case_id,
        "split": case_split(case, repo.config.splits),
        "task_description": case.case.input.user_prompt,
        "reference_text": reference_text(case),
    }


def export_split_dir(repo: EvalRepo, selection: Selection, out_dir: Path) -> dict[str, int]:
    """`out_dir/{train,val,test}/items.json` and `split_manifest.json`, SkillOpt's layout."""
    items = [case_item(repo, case) for case in selection.cases]
    counts: dict[str, int] = {}
    for split in SPLITS:
        chosen = [item for item in items if item["split"] == split]
        (out_dir / split).mkdir(parents=True, exist_ok=True)
        (out_dir / split / "items.json").write_text(
            json.dumps(chosen, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        counts[split] = len(chosen)
    settings = repo.config.splits
    write_json(
        out_dir / "split_manifest.json",
        {
            "manifest_type": "agentic-eval-splits",
            "benchmark": f"agentic-eval/{selection.target.target_id}",
            "counts": counts,
            "split_mode": "stable-hash",
            "split_seed": settings.seed,
            "val_fraction": settings.val_fraction,
            "test_fraction": settings.test_fraction,
            "source_repo": str(repo.root),
            "item_fields": ITEM_FIELDS,
            "notes": "a case's explicit `split:` wins; others hash <target>/<suite>/<case>",
        },
    )
    return counts
