"""Build `case_workspace_root/<case folder>/attempt-NN/` (`naming.py`) and apply the case's setup
inside it."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.contract.models import CaseSetup
from evaluator.credentials import embedded_credentials, looks_secret
from evaluator.errors import EnvironmentProblem, InputError
from evaluator.repo import LoadedCase, LoadedTarget
from evaluator.safepath import contained, is_inside
from evaluator.workspace.git_setup import GitSetupFailed, build_history, stage_paths
from evaluator.workspace.naming import attempt_folder
from evaluator.workspace.paths import UnsafePath, safe_join
from evaluator.workspace.scratch import PRIVATE_EXEC, PRIVATE_FILE, make_tree_private

DOCS_INDEX_NAMES = ("docs.txt", "docs-index.txt", "docs_index.txt", "llms.txt")


@dataclass
class AttemptWorkspace:
    case_id: str
    attempt: int
    path: Path
    env: dict[str, str] = field(default_factory=dict)
    secret_env: set[str] = field(default_factory=set)
    mismatches: list[str] = field(default_factory=list)
    # Each file's sha256 before the agent ran (workspace-relative); None: not taken yet.
    baseline: dict[str, str] | None = None
    # The workspace's text files as the eval made them (relative path -> text), kept before the
    # agent ran for a run's check that needs them (`evaluate`'s contamination check); None: not
    # kept.
    texts_before: dict[str, str] | None = None
    # The links the evaluator made in the workspace's skills folders before the agent ran
    # (`.claude/skills/<name>` to the skill's folder at its source-workspace path: link path ->
    # the folder, both absolute): a path through one is also the skill's own path.
    skill_links: dict[str, str] = field(default_factory=dict)

    def secret_values(self) -> dict[str, str]:
        """Variables marked secret, and credentials embedded in any declared value (the
        password inside a `DATABASE_URL`), keyed by the name their redaction shows."""
        values = {name: self.env[name] for name in self.secret_env if self.env.get(name)}
        for name, value in self.env.items():
            for part, credential in embedded_credentials(value):
                values.setdefault(f"{name}:{part}", credential)
        return values


def attempt_dir(case_workspace_root: Path, case_id: str, attempt: int) -> Path:
    try:
        contained(case_workspace_root, case_id)  # the run directory still names it
    except UnsafePath as exc:
        raise InputError(f"case id cannot name a workspace: {exc}", field="case_id") from None
    return attempt_folder(case_workspace_root, case_id, attempt)


def build_workspace(
    *,
    case_workspace_root: Path,
    case: LoadedCase,
    target: LoadedTarget,
    source_workspace: Path,
    attempt: int,
    environ: Mapping[str, str] | None = None,
    entry_skill_text: str | None = None,
    with_skill: bool = True,
) -> AttemptWorkspace:
    """A fresh directory: never reused, so an existing one is an error, not something to clean.

    `entry_skill_text` replaces the entry skill's content in this workspace only (a candidate
    skill being scored); the source workspace is never written. `with_skill=False` copies no
    skill file at all (the no-skill baseline of `evaluate`)."""
    path = attempt_dir(case_workspace_root, case.case_id, attempt)
    if path.exists():
        raise EnvironmentProblem(f"workspace {path} already exists; attempts never reuse one")
    path.mkdir(parents=True)
    workspace = AttemptWorkspace(case_id=case.case_id, attempt=attempt, path=path.resolve())
    if with_skill:  # without: a no-skill baseline's workspace (fixtures and setup only)
        _copy_skill(target, source_workspace, workspace.path)
    if with_skill and entry_skill_text is not None:
        # Bytes, not text mode: protected regions of an optimiser's skill stay byte for byte.
        safe_join(workspace.path, target.target.entry_skill).write_bytes(
            entry_skill_text.encode("utf-8")
        )
    _apply_setup(case, target, workspace, os.environ if environ is None else environ)
    make_tree_private(workspace.path)
    return workspace


def _copy_skill(target: LoadedTarget, source_workspace: Path, workspace: Path) -> None:
    for relative in target.target.copied_paths():
        source = target.source_path(source_workspace, relative)
        destination = safe_join(workspace, relative)
        if not source.exists():
            raise InputError(
                f"skill path not found in the source workspace: {source}",
                path=target.path,
                field=(
                    "entry_skill"
                    if relative == target.target.entry_skill
                    else "roots"
                    if relative in target.target.roots
                    else "companion_skills"
                ),
            )
        try:
            _copy_regular(source, destination, target.source_root(source_workspace))
        except UnsafePath as exc:
            raise InputError(str(exc), path=target.path, field="roots") from None


def _copy_regular(source: Path, destination: Path, root: Path, *, inside: bool = False) -> None:
    """Copy only directories and regular files that are not symlinks and lie under `root`:
    a link (or a path resolving outside) would hand the agent a file from outside its workspace.
    `validate` rejects such sources first; this is the guard for every other caller. `inside`:
    `source` is an entry of a directory already proven under `root` (so, no symlink, it is)."""
    # One lstat says all three: a symlink, a regular file, a directory (neither is followed).
    try:
        info: os.stat_result | None = source.lstat()
    except OSError:
        info = None  # missing: refused below as neither a file nor a directory, as it was
    mode = info.st_mode if info is not None else 0
    if stat.S_ISLNK(mode) or not (inside or is_inside(source, root)):
        raise UnsafePath(f"{source} is a symlink or lies outside {root}")
    if not inside:  # an entry's parent is the directory this function just made
        destination.parent.mkdir(parents=True, exist_ok=True)
    if stat.S_ISREG(mode):
        assert info is not None
        _copy_file(source, destination, info)
        return
    if not stat.S_ISDIR(mode):
        raise UnsafePath(f"{source} is neither a regular file nor a directory")
    destination.mkdir(exist_ok=True)
    for child in sorted(source.iterdir()):
        _copy_regular(child, destination / child.name, root, inside=True)


COPY_CHUNK = 1024 * 1024


def _copy_file(source: Path, destination: Path, info: os.stat_result) -> None:
    """A regular file's bytes and times (`info`: its lstat), created with the mode the workspace's
    privacy pass gives it (0600, 0700 when executable). `shutil.copy2` asks about both files a
    dozen times and writes the source's mode, which that pass then rewrites: this is about a
    third of its system calls. A destination that exists already (a fixture copied over an
    earlier file, a directory to copy into) is left to `shutil.copy2`, as before."""
    wanted = PRIVATE_EXEC if info.st_mode & stat.S_IXUSR else PRIVATE_FILE
    try:
        out = os.open(destination, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, wanted)
    except FileExistsError:
        shutil.copy2(source, destination)
        return
    try:
        source_fd = os.open(source, os.O_RDONLY | os.O_CLOEXEC)
        try:
            while chunk := os.read(source_fd, COPY_CHUNK):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(out, view) :]
        finally:
            os.close(source_fd)
        os.utime(out, ns=(info.st_atime_ns, info.st_mtime_ns))
    finally:
        os.close(out)


def _docs_index(case: LoadedCase, target: LoadedTarget, workspace: Path) -> Path | None:
    explicit = case.case.setup.docs_index_path or target.target.docs_index
    if explicit:
        return safe_join(workspace, explicit)
    skill_dir = Path(target.target.entry_skill).parent
    found = [
        p for name in DOCS_INDEX_NAMES for p in (workspace / skill_dir).rglob(name) if p.is_file()
    ]
    return found[0] if len(found) == 1 else None


def _apply_setup(
    case: LoadedCase,
    target: LoadedTarget,
    workspace: AttemptWorkspace,
    environ: Mapping[str, str],
) -> None:
    setup: CaseSetup = case.case.setup
    root = workspace.path
    try:
        git_failed = False
        if setup.git is not None:
            # The history first: what the rest of setup writes is then a change to it.
            try:
                build_history(root, setup.git)
            except GitSetupFailed as exc:
                workspace.mismatches.append(str(exc))
                git_failed = True
        if setup.docs_index_present is False:
            index = _docs_index(case, target, root)
            if index is None:
                workspace.mismatches.append(
                    "docs_index_present: false, but no docs index is known"
                    " (set docs_index in target.yaml)"
                )
            elif index.exists():
                index.unlink()
        elif setup.docs_index_present is True:
            index = _docs_index(case, target, root)
            if index is None or not index.is_file():
                workspace.mismatches.append(
                    "docs_index_present: true, but the docs index is missing"
                )
        for relative in setup.remove_paths or []:
            victim = safe_join(root, relative)
            if victim.is_dir():
                shutil.rmtree(victim)
            elif victim.exists():
                victim.unlink()
        for item in setup.write_files or []:
            destination = safe_join(root, item.path)
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_text(item.content, encoding="utf-8")
        for fixture in setup.copy_fixtures or []:
            source = safe_join(target.fixtures_dir, fixture.source)
            destination = safe_join(root, fixture.target)
            _copy_regular(source, destination, target.fixtures_dir)
        if setup.git is not None and not git_failed:
            try:
                stage_paths(root, setup.git)
            except GitSetupFailed as exc:
                workspace.mismatches.append(str(exc))
    except UnsafePath as exc:
        raise InputError(str(exc), path=case.path, field="setup") from None
    for name in setup.env_vars_required or []:
        value = environ.get(name)
        if value:
            workspace.env[name] = value
        else:
            workspace.mismatches.append(f"env_vars_required: {name} is not set in the environment")
    workspace.env.update(setup.env or {})
    workspace.secret_env.update(setup.secret_env_vars or [])
    workspace.secret_env.update(n for n in setup.env_vars_required or [] if looks_secret(n))
    for key in sorted(setup.model_extra or {}):
        workspace.mismatches.append(f"setup key {key!r} is not understood by this evaluator")
