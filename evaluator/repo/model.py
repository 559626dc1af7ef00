"""The loaded eval repo: targets, suites and cases with the files they came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from evaluator.contract.models import Case, Needs, RepoConfig, Suite, Target
from evaluator.errors import InputError
from evaluator.repo.triggers import TriggerSet
from evaluator.yamlsource import PathKey, YamlDocument


@dataclass
class LoadedCase:
    case: Case
    path: Path
    doc: YamlDocument
    suite_id: str
    target_id: str
    # What an attempt needs from the machine: the case's own `needs` with its suite's and its
    # target's (the loader adds them up).
    needs: Needs = field(default_factory=Needs)
    # Where the case sits in a file holding many (an evals.json's `evals[i]`); () for a case
    # file of its own. `doc.data` is the case's own mapping either way.
    at: PathKey = ()

    @property
    def case_id(self) -> str:
        return self.case.case_id


@dataclass
class LoadedSuite:
    suite: Suite
    path: Path
    cases: list[LoadedCase] = field(default_factory=list)

    @property
    def suite_id(self) -> str:
        return self.suite.suite_id


@dataclass(frozen=True)
class SkillMount:
    """A skill kept outside any source workspace (a skill-creator `evals.json` suite): the
    workspace folder it is copied to (where the agent discovers skills) and its real folder."""

    at: str
    origin: Path


@dataclass
class LoadedTarget:
    target: Target
    path: Path
    suites: dict[str, LoadedSuite] = field(default_factory=dict)
    # The cases `trigger_suite` names, loaded (None without one, or when it does not load).
    triggers: TriggerSet | None = None
    # Source-workspace-relative regular files of entry_skill and roots; None when the source
    # workspace is unknown (then paths in checks cannot be verified).
    skill_files: list[str] | None = None
    skill_mount: SkillMount | None = None
    # Upstream's `deferred-cases/`: loaded and validated, run only when asked for.
    deferred: dict[str, LoadedSuite] = field(default_factory=dict)
    deferred_problems: list[InputError] = field(default_factory=list)  # drafts that cannot run

    @property
    def target_id(self) -> str:
        return self.target.target_id

    @property
    def directory(self) -> Path:
        return self.path.parent

    def all_cases(self) -> list[LoadedCase]:
        return [case for suite in self.suites.values() for case in suite.cases]

    def deferred_cases(self) -> list[LoadedCase]:
        return [case for suite in self.deferred.values() for case in suite.cases]

    def source_path(self, source_workspace: Path, relative: str) -> Path:
        """Where a workspace path of the skill (`entry_skill`, a root) is read from: the source
        workspace, or the mounted skill's real folder."""
        mount = self.skill_mount
        if mount is not None:
            inside = PurePosixPath(relative)
            at = PurePosixPath(mount.at)
            if inside == at or at in inside.parents:
                return mount.origin.joinpath(*inside.relative_to(at).parts)
        return source_workspace / relative

    def entry_skill_path(self, source_workspace: Path) -> Path:
        """The target's entry `SKILL.md` as it is read from the source (a mounted skill's own
        folder for a skill-creator suite)."""
        return self.source_path(source_workspace, self.target.entry_skill)

    def source_root(self, source_workspace: Path) -> Path:
        """The directory the skill's files must lie under (no symlink may lead out of it)."""
        return self.skill_mount.origin if self.skill_mount is not None else source_workspace

    @property
    def fixtures_dir(self) -> Path:
        return self.directory / (self.target.fixtures_root or "fixtures")


@dataclass
class EvalRepo:
    root: Path
    source_workspace: Path
    source_workspace_explicit: bool
    config: RepoConfig
    lenient: bool = False
    targets: dict[str, LoadedTarget] = field(default_factory=dict)

    @property
    def default_target_id(self) -> str | None:
        if self.config.default_target:
            return self.config.default_target
        if len(self.targets) == 1:
            return next(iter(self.targets))
        return None
