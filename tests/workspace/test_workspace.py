"""Attempt workspaces: only the skill and declared fixtures, setup applied inside, never reused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluator.contract.models import CaseSetup
from evaluator.errors import EnvironmentProblem, InputError
from evaluator.plan import open_repo
from evaluator.workspace import AttemptWorkspace, UnsafePath, build_workspace, safe_join
from evaluator.workspace.naming import attempt_folder
from evaluator.workspace.provenance import skill_digest, source_commit
from tests.conftest import copy_demo
from tests.support import demo_case


def _build(
    tmp_path: Path,
    case_id: str,
    attempt: int = 1,
    environ: dict[str, str] | None = None,
    setup: dict[str, object] | None = None,
) -> AttemptWorkspace:
    """Builds a demo case's workspace; `setup` replaces the case's setup block."""
    repo, case = demo_case(case_id)
    if setup is not None:
        case.case.setup = CaseSetup.model_validate(setup)
    return build_workspace(
        case_workspace_root=tmp_path / "ws",
        case=case,
        target=repo.targets["db-migrations"],
        source_workspace=repo.source_workspace,
        attempt=attempt,
        environ=environ or {},
    )


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_workspace_holds_only_the_skill(tmp_path: Path) -> None:
    workspace = _build(tmp_path, "routing-add-column")
    assert workspace.path == attempt_folder(tmp_path / "ws", "routing-add-column", 1).resolve()
    skill = ".agents/skills/db-migrations"
    assert _tree(workspace.path) == sorted(
        [
            f"{skill}/SKILL.md",
            f"{skill}/references/add-column.md",
            f"{skill}/references/data-backfill.md",
            f"{skill}/references/docs.txt",
            f"{skill}/references/rename-table.md",
            f"{skill}/scripts/new_migration.py",
            f"{skill}/scripts/rebuild_docs_index.sh",
        ]
    )
    assert workspace.mismatches == []


def test_docs_index_present_false_removes_the_index(tmp_path: Path) -> None:
    workspace = _build(tmp_path, "bootstrap-missing-docs-index")
    assert not (workspace.path / ".agents/skills/db-migrations/references/docs.txt").exists()
    assert (workspace.path / ".agents/skills/db-migrations/references/add-column.md").exists()


def test_write_files_lands_inside(tmp_path: Path) -> None:
    workspace = _build(tmp_path, "workflow-keeps-shipped-migrations")
    assert "CREATE TABLE users" in (workspace.path / "migrations/0001_init.sql").read_text()


def test_required_env_vars_pass_through_or_become_mismatches(tmp_path: Path) -> None:
    missing = _build(tmp_path, "bootstrap-needs-database-url")
    assert missing.mismatches == ["env_vars_required: DATABASE_URL is not set in the environment"]
    present = _build(
        tmp_path, "bootstrap-needs-database-url", attempt=2, environ={"DATABASE_URL": "sqlite:///x"}
    )
    assert present.mismatches == []
    assert present.env == {"DATABASE_URL": "sqlite:///x"}


def test_unknown_setup_key_is_a_mismatch_not_a_crash(tmp_path: Path) -> None:
    workspace = _build(tmp_path, "routing-add-column", setup={"gpu_available": True})
    assert workspace.mismatches == ["setup key 'gpu_available' is not understood by this evaluator"]


def test_attempts_never_reuse_a_workspace(tmp_path: Path) -> None:
    first = _build(tmp_path, "routing-add-column", attempt=1)
    second = _build(tmp_path, "routing-add-column", attempt=2)
    assert first.path != second.path
    with pytest.raises(EnvironmentProblem, match="never reuse"):
        _build(tmp_path, "routing-add-column", attempt=1)


def test_setup_paths_cannot_escape(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "inner").mkdir(parents=True)
    os.symlink("/etc", root / "link")
    for bad in ["../x", "/etc/passwd", "~/x", "link/passwd", "inner/../../x"]:
        with pytest.raises(UnsafePath):
            safe_join(root, bad)
    assert safe_join(root, "inner/new.txt") == root / "inner/new.txt"


def test_escaping_setup_reports_the_case_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="must not contain"):
        _build(tmp_path, "routing-add-column", setup={"remove_paths": ["../../outside"]})


def test_the_skill_digest_is_what_every_workspace_got(tmp_path: Path) -> None:
    """Every file a workspace got counts (the roots too), the candidate text replaces the entry
    skill's, and a digest of the built workspace's skill files is the same value."""
    repo = open_repo(copy_demo(tmp_path / "source"), None)
    target = repo.targets["db-migrations"]
    source = repo.source_workspace
    original = skill_digest(target, source)
    workspace = _build(tmp_path, "routing-add-column")
    assert skill_digest(target, workspace.path) == original
    entry = source / target.target.entry_skill
    assert skill_digest(target, source, entry.read_text()) == original
    assert skill_digest(target, source, entry.read_text() + "\nedited\n") != original
    reference = next(p for p in (entry.parent / "references").iterdir() if p.is_file())
    reference.write_text(reference.read_text() + "\nedited\n")
    assert skill_digest(target, source) != original
    assert source_commit(source) is None  # a plain directory, not a git checkout


def test_copied_files_keep_bytes_and_times_and_are_private(tmp_path: Path) -> None:
    """The skill copy keeps each file's bytes and modification time, makes it 0600 (0700 when
    its source is executable), and a fixture copied over a file the skill put there replaces it."""
    repo = open_repo(copy_demo(tmp_path / "source"), None)
    target = repo.targets["db-migrations"]
    skill = repo.source_workspace / ".agents/skills/db-migrations"
    script = skill / "scripts/rebuild_docs_index.sh"
    script.chmod(0o755)
    (skill / "SKILL.md").chmod(0o644)
    os.utime(skill / "SKILL.md", ns=(1_000_000_000, 1_500_000_123))
    fixture = target.fixtures_dir / "over.md"
    fixture.parent.mkdir(parents=True, exist_ok=True)
    fixture.write_text("the fixture wins\n")
    case = next(c for c in target.all_cases() if c.case_id == "routing-add-column")
    over = {"source": "over.md", "target": ".agents/skills/db-migrations/references/add-column.md"}
    case.case.setup = CaseSetup.model_validate({"copy_fixtures": [over]})
    workspace = build_workspace(
        case_workspace_root=tmp_path / "ws",
        case=case,
        target=target,
        source_workspace=repo.source_workspace,
        attempt=1,
        environ={},
    )
    copied = workspace.path / ".agents/skills/db-migrations"
    for source in (p for p in skill.rglob("*") if p.is_file() and p.name != "add-column.md"):
        destination = copied / source.relative_to(skill)
        assert destination.read_bytes() == source.read_bytes()
        assert destination.stat().st_mtime_ns == source.stat().st_mtime_ns
    assert (copied / "SKILL.md").stat().st_mtime_ns == 1_500_000_123
    assert (copied / "SKILL.md").stat().st_mode & 0o777 == 0o600
    assert (copied / "scripts/rebuild_docs_index.sh").stat().st_mode & 0o777 == 0o700
    assert (copied / "references/add-column.md").read_text() == "the fixture wins\n"
    assert (copied / "references/add-column.md").stat().st_mode & 0o777 == 0o600


def test_an_agents_paths_are_the_scratch_root_plus_a_fixed_length() -> None:
    """Leftovers 14 (`workspace/naming.py`): whatever the ids (at most 128 characters each),
    an attempt's folders add the same number of characters to the scratch root, and the
    deepest nesting (an evaluation's variant run) adds `AGENT_PATH_EXTRA`; distinct ids get
    distinct folders."""
    from evaluator.workspace.naming import AGENT_PATH_EXTRA, AGENTS, digest_name, run_scratch

    root = Path("/var/tmp/agentic-eval")
    lengths = set()
    for size in (1, 6, 60, 128):
        name = ("c" * size)[:size]
        evaluation = run_scratch(root, "e" * size) / digest_name("without_skill" * 9)
        agent_dir = attempt_folder(run_scratch(evaluation, "r" * size) / AGENTS, name, 99)
        lengths.add(len(str(agent_dir)))
        assert name not in str(agent_dir).removeprefix(str(root)) or size == 1
    assert lengths == {len(str(root)) + AGENT_PATH_EXTRA}
    ids = [f"case-{n}" for n in range(2000)]
    assert len({digest_name(i) for i in ids}) == len(ids)


def test_only_a_scratch_naming_a_run_nobody_holds_is_unheld(tmp_path: Path) -> None:
    """`unheld_scratches`: the folders a run may sweep (the two-process case is
    `tests/pipeline/test_run_e2e.py`, with the kernel's locks)."""
    from evaluator.workspace.scratch import claim_scratch, unheld_scratches

    runs = {name: tmp_path / "runs" / name for name in ("dead", "live", "unknown", "mine")}
    for name, run_dir in runs.items():
        (tmp_path / "scratch" / name).mkdir(parents=True)
        claim_scratch(tmp_path / "scratch" / name, run_dir)
    (tmp_path / "scratch/kept").mkdir()  # --keep-scratch, or an older version's: no owner file
    (tmp_path / "scratch/relative").mkdir()
    (tmp_path / "scratch/relative.run").write_text("runs/dead\n")
    assert not any((tmp_path / "scratch/dead").iterdir())  # beside it: a mount point stays empty
    holders = {runs["dead"]: False, runs["live"]: True, runs["unknown"]: None}
    found = unheld_scratches(
        tmp_path / "scratch", tmp_path / "scratch/mine", lambda run: holders.get(run, False)
    )
    assert found == [(tmp_path / "scratch/dead", runs["dead"])]
