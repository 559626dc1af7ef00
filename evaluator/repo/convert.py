"""`agentic-eval convert`: the agentic-evals YAML repo equivalent to a loaded `evals.json` suite,
for authors who move over. The loader already made the cases; this writes them as they are."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from evaluator.contract.models import CopyFixture, RepoConfig
from evaluator.errors import InputError
from evaluator.repo.loader import REPO_CONFIG_FILE, SUITE_FILE, TARGET_FILE
from evaluator.repo.model import EvalRepo, LoadedTarget

FIXTURES = "fixtures"
CASES = "cases"


def _yaml(model: BaseModel | dict[str, Any]) -> str:
    data = (
        model.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
        if isinstance(model, BaseModel)
        else model
    )
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _write(path: Path, text: str, written: list[Path]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    written.append(path)


def convert_repo(repo: EvalRepo, out: Path) -> list[Path]:
    """Writes `out/` (which must not exist or be empty): the repo config, the target, one suite
    per `case_set`, one case file per eval and the eval's `files` under the target's
    `fixtures/`. The skill itself is not copied: it belongs in the source workspace at the
    target's `entry_skill` path."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError("already exists and is not empty; choose another --out", path=out)
    written: list[Path] = []
    targets = list(repo.targets.values())
    config = RepoConfig(default_target=targets[0].target_id if len(targets) == 1 else None)
    _write(out / REPO_CONFIG_FILE, _yaml(config), written)
    for loaded in targets:
        _target(loaded, out / "targets" / loaded.target_id, written)
    return written


def _target(loaded: LoadedTarget, directory: Path, written: list[Path]) -> None:
    target = loaded.target.model_copy(update={"fixtures_root": None, "suite_root": CASES})
    _write(directory / TARGET_FILE, _yaml(target), written)
    if loaded.triggers is not None and target.trigger_suite is not None:
        # `trigger_suite` is relative to the target directory: the file it names goes there.
        destination = directory / target.trigger_suite
        shutil.copyfile(loaded.triggers.path, destination)
        written.append(destination)
    # A skill measured only by its trigger set has no suite; the folder still must exist.
    (directory / CASES).mkdir(parents=True, exist_ok=True)
    for suite_id, suite in loaded.suites.items():
        listed = []
        for case in suite.cases:
            relative = f"targets/{loaded.target_id}/{CASES}/{suite_id}/{case.case_id}.yaml"
            listed.append(relative)
            model = case.case
            copies = []
            for fixture in model.setup.copy_fixtures or []:
                source = loaded.fixtures_dir / fixture.source
                moved = f"{case.case_id}/{fixture.target}"
                destination = directory / FIXTURES / moved
                destination.parent.mkdir(parents=True, exist_ok=True)
                if source.is_dir():
                    shutil.copytree(source, destination, symlinks=False)
                else:
                    shutil.copyfile(source, destination)
                written.append(destination)
                copies.append(CopyFixture(source=moved, target=fixture.target))
            if copies:
                setup = model.setup.model_copy(update={"copy_fixtures": copies})
                model = model.model_copy(update={"setup": setup})
            if loaded.skill_mount is not None:
                # The skill folder was the source workspace; in the YAML repo it is mounted.
                at = loaded.skill_mount.at
                fixes = [f"{at}/{path}" for path in model.notes.likely_fix_files]
                notes = model.notes.model_copy(update={"likely_fix_files": fixes})
                model = model.model_copy(update={"notes": notes})
            _write(directory.parents[1] / relative, _yaml(model), written)
        suite_model = suite.suite.model_copy(update={"cases": listed})
        _write(directory / CASES / suite_id / SUITE_FILE, _yaml(suite_model), written)
