"""Resolve an eval repo on disk into targets, suites and cases, collecting every problem."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from evaluator.contract.models import (
    PATTERN_FIELDS,
    AllOfCheck,
    AnyOfCheck,
    Evaluation,
    FileReadCheck,
    Needs,
    NotCheck,
    ReadBeforeCheck,
    RepoConfig,
    Suite,
    WorkspaceEnvValueCheck,
    leaf_checks,
)
from evaluator.contract.paths import path_matches
from evaluator.contract.sections import section_lines
from evaluator.contract.skill_listing import unlisted_skill
from evaluator.errors import InputError
from evaluator.patterns import pattern_problem
from evaluator.repo.documents import Diagnostics, Loaded, load_document
from evaluator.repo.evals_json import evals_file, load_evals_json
from evaluator.repo.model import EvalRepo, LoadedCase, LoadedSuite, LoadedTarget
from evaluator.repo.triggers import load_trigger_set
from evaluator.safepath import UnsafePath, contained, is_inside, relative_problem
from evaluator.yamlsource import PathKey, YamlDocument

REPO_CONFIG_FILE = "agentic-eval.yaml"
TARGET_FILE = "target.yaml"
SUITE_FILE = "suite.yaml"
DEFERRED_DIR = "deferred-cases"  # upstream: cases kept, validated and listed, run when asked
DEFERRED_SUITE = "deferred"  # the suite of case files directly under deferred-cases/


safe_relative = relative_problem
_inside = is_inside


def load_repo(
    repo: Path,
    source_workspace: Path | None = None,
    *,
    lenient: bool = False,
    target: str | None = None,
    default_target_only: bool = False,
) -> tuple[EvalRepo | None, Diagnostics]:
    """Every problem of the repo, or with `target` of that target only (what a run of it
    needs): other targets, rubrics and evaluations are then not read at all.
    `default_target_only` reads only the config's `default_target` when no target is given.

    `repo` may also name a skill-creator `evals.json` (or a skill folder holding
    `evals/evals.json`); `source_workspace` is then the skill folder it tests, if given."""
    evals = evals_file(repo)
    if evals is not None:
        return load_evals_json(evals, source_workspace)
    loaded, diagnostics = _load_repo(
        repo,
        source_workspace,
        lenient=lenient,
        target=target,
        default_target_only=default_target_only,
    )
    if source_workspace is None and loaded is not None and _skills_inside_repo(loaded):
        # Upstream's own CI copies the skill into the eval repo's `.agents/skills/`: the repo is
        # then its own source workspace, as `--source-workspace REPO` would say.
        inside, diagnostics = _load_repo(
            repo,
            loaded.root,
            lenient=lenient,
            target=target,
            default_target_only=default_target_only,
        )
        if inside is not None:
            inside.source_workspace_explicit = False
        return inside, diagnostics
    return loaded, diagnostics


def _skills_inside_repo(repo: EvalRepo) -> bool:
    """Whether every loaded target's entry skill is a file inside the eval repo and none is one
    in the repo's parent (the default source workspace)."""
    entries = [loaded.target.entry_skill for loaded in repo.targets.values()]
    return bool(entries) and all(
        (repo.root / entry).is_file() and not (repo.source_workspace / entry).is_file()
        for entry in entries
    )


def _load_repo(
    repo: Path,
    source_workspace: Path | None,
    *,
    lenient: bool,
    target: str | None,
    default_target_only: bool,
) -> tuple[EvalRepo | None, Diagnostics]:
    diagnostics = Diagnostics()
    if not repo.is_dir():
        diagnostics.error(InputError("eval repo directory not found", path=repo))
        return None, diagnostics
    root = repo.resolve()
    config = RepoConfig()
    config_path = root / REPO_CONFIG_FILE
    if config_path.exists():
        loaded = load_document(config_path, "repo-config", diagnostics, lenient=lenient)
        if loaded is not None:
            config = loaded.model
            if config.behaviors is not None:
                diagnostics.error(
                    loaded.doc.key_error(
                        ("behaviors",),
                        "behaviours are chosen per run, never by the repo:"
                        " pass `run --behaviors DIR` (and `validate --behaviors DIR`)",
                    )
                )
    if target is None and default_target_only:
        target = config.default_target
    workspace = (source_workspace or root.parent).resolve()
    result = EvalRepo(
        root=root,
        source_workspace=workspace,
        source_workspace_explicit=source_workspace is not None,
        config=config,
        lenient=lenient,
    )
    targets_dir = root / "targets"
    if not targets_dir.is_dir():
        diagnostics.error(InputError("no targets/ directory in the eval repo", path=root))
        return result, diagnostics
    target_dirs = sorted(p for p in targets_dir.iterdir() if p.is_dir())
    if target is not None:
        # Target ids equal their directory names (checked below), so one directory is enough.
        known = [p.name for p in target_dirs]
        target_dirs = [p for p in target_dirs if p.name == target]
        if not target_dirs:
            diagnostics.error(
                InputError(
                    f"unknown target {target!r} (known: {', '.join(known)})", field="--target"
                )
            )
            return result, diagnostics
    for target_dir in target_dirs:
        loaded_target = _load_target(target_dir, result, diagnostics)
        if loaded_target is not None:
            if loaded_target.target_id in result.targets:
                diagnostics.error(
                    loaded_target.doc_error(
                        "target_id", f"duplicate target id {loaded_target.target_id!r}"
                    )
                )
                continue
            result.targets[loaded_target.target_id] = loaded_target.loaded
    if not result.targets and not diagnostics.errors:
        diagnostics.error(InputError("no targets found under targets/", path=targets_dir))
    if target is not None:
        _check_duplicate_case_ids(result, diagnostics)
        return result, diagnostics
    # A default target whose directory exists but did not load has its own errors already.
    loaded_or_broken = {*result.targets, *(p.name for p in target_dirs)}
    if config.default_target and config.default_target not in loaded_or_broken:
        diagnostics.error(
            InputError(
                f"default target {config.default_target!r} does not exist",
                path=config_path,
                field="default_target",
            )
        )
    _check_duplicate_case_ids(result, diagnostics)
    _load_rubrics_and_evaluations(result, diagnostics)
    return result, diagnostics


def rubric_file(reference: str, root: Path) -> Path:
    """An evaluation's `rubric`: a path in the eval repo (`rubrics/x.yaml`, as upstream writes
    it) or a rubric id (`x`, read from `rubrics/x.yaml`)."""
    if reference.endswith((".yaml", ".yml")) or "/" in reference:
        return root / reference
    return root / "rubrics" / f"{reference}.yaml"


def _load_rubrics_and_evaluations(repo: EvalRepo, diagnostics: Diagnostics) -> None:
    """Rubric-mode files are validated now; the modes that run them come later."""
    for path in sorted((repo.root / "rubrics").glob("*.y*ml")):
        load_document(path, "rubric", diagnostics, lenient=repo.lenient)
    for path in sorted((repo.root / "evaluations").glob("*/*.y*ml")):
        loaded = load_document(path, "evaluation", diagnostics, lenient=repo.lenient)
        if loaded is None:
            continue
        evaluation = loaded.model
        if evaluation.mode != path.parent.name:
            diagnostics.warn(
                loaded.doc.error(("mode",), f"differs from the directory name {path.parent.name!r}")
            )
        if evaluation.rubric and not rubric_file(evaluation.rubric, repo.root).is_file():
            diagnostics.error(
                loaded.doc.error(("rubric",), f"rubric file not found: {evaluation.rubric}")
            )
        if evaluation.target_id and evaluation.target_id not in repo.targets:
            diagnostics.error(
                loaded.doc.error(("target_id",), f"unknown target {evaluation.target_id!r}")
            )
        _check_evaluation_suites(repo, loaded, diagnostics)


def _check_evaluation_suites(
    repo: EvalRepo, loaded: Loaded[Evaluation], diagnostics: Diagnostics
) -> None:
    """Each suite an evaluation names exists in the target it runs: caught by `validate`, at the
    evaluation's own line, not when the comparison is planned."""
    evaluation = loaded.model
    named: list[tuple[PathKey, str | None, list[str]]] = [
        (("suites",), evaluation.target_id, evaluation.suites)
    ]
    if evaluation.shared_cases is not None:
        shared = evaluation.shared_cases
        named.append(
            (("shared_cases", "suites"), shared.from_target or evaluation.target_id, shared.suites)
        )
    for field, target_id, suites in named:
        target = repo.targets.get(target_id or repo.default_target_id or "")
        if target is None:
            continue  # an unknown target is reported on its own
        known = {**target.deferred, **target.suites}
        for index, suite_id in enumerate(suites):
            if suite_id not in known:
                diagnostics.error(
                    loaded.doc.error(
                        (*field, index),
                        f"unknown suite {suite_id!r} in target {target.target_id!r}"
                        f" (known: {', '.join(sorted(known)) or 'none'})",
                    )
                )


class _TargetLoad:
    def __init__(self, loaded: LoadedTarget, doc: YamlDocument) -> None:
        self.loaded = loaded
        self.doc = doc

    @property
    def target_id(self) -> str:
        return self.loaded.target_id

    def doc_error(self, field: str, message: str) -> InputError:
        return self.doc.error((field,), message)


def _load_target(target_dir: Path, repo: EvalRepo, diagnostics: Diagnostics) -> _TargetLoad | None:
    path = target_dir / TARGET_FILE
    if not path.exists():
        diagnostics.warn(
            InputError("target directory has no target.yaml; skipped", path=target_dir)
        )
        return None
    loaded = load_document(path, "target", diagnostics, lenient=repo.lenient)
    if loaded is None:
        return None
    target = loaded.model
    doc = loaded.doc
    if target.target_id != target_dir.name:
        # `--target T` finds a target by its directory: the two names must agree.
        diagnostics.error(
            doc.error(
                ("target_id",),
                f"{target.target_id!r} differs from its directory name {target_dir.name!r}",
            )
        )
    skill_problem = False
    skill_paths: list[tuple[tuple[str | int, ...], str]] = [(("entry_skill",), target.entry_skill)]
    skill_paths += [(("roots", i), root) for i, root in enumerate(target.roots)]
    # A companion is copied whole, as a root is: the same checks, on its folder.
    skill_paths += [
        (("companion_skills", i), folder) for i, folder in enumerate(target.companion_folders())
    ]
    for field_key, value in skill_paths:
        why = safe_relative(value)
        if why:
            diagnostics.error(doc.error(field_key, f"{value!r} {why}"))
            skill_problem = True
    workspace_known = repo.source_workspace_explicit or _holds_skill_folder(
        repo.source_workspace, target.entry_skill
    )
    result = LoadedTarget(target=target, path=path)
    if workspace_known and not skill_problem:
        entry = repo.source_workspace / target.entry_skill
        if not entry.is_file():
            diagnostics.error(
                doc.error(
                    ("entry_skill",), f"skill file not found in the source workspace: {entry}"
                )
            )
        elif entry.name.lower() == "skill.md" and (unlisted := unlisted_skill(entry)) is not None:
            diagnostics.warn(unlisted)
        for index, root in enumerate(target.roots):
            if not (repo.source_workspace / root).exists():
                diagnostics.error(
                    doc.error(("roots", index), f"not found in the source workspace: {root}")
                )
        for index, folder in enumerate(target.companion_folders()):
            if not (repo.source_workspace / folder / "SKILL.md").is_file():
                diagnostics.error(
                    doc.error(
                        ("companion_skills", index),
                        f"no SKILL.md in the source workspace at {folder}/SKILL.md",
                    )
                )
        files: list[str] = []
        for field_key, value in skill_paths:
            found = _regular_files(repo.source_workspace, value)
            if isinstance(found, str):
                diagnostics.error(doc.error(field_key, found))
            else:
                files += found
        result.skill_files = sorted(set(files))
    if target.docs_index is not None and relative_problem(target.docs_index):
        diagnostics.error(
            doc.error(
                ("docs_index",), f"{target.docs_index!r} {relative_problem(target.docs_index)}"
            )
        )
    if target.fixtures_root is not None and relative_problem(target.fixtures_root):
        diagnostics.error(
            doc.error(
                ("fixtures_root",),
                f"{target.fixtures_root!r} {relative_problem(target.fixtures_root)}"
                " (fixtures live under the target directory)",
            )
        )
    _check_trigger_fields(result, doc, repo, workspace_known and not skill_problem, diagnostics)
    suite_root = target_dir / target.suite_root
    if safe_relative(target.suite_root):
        diagnostics.error(doc.error(("suite_root",), f"{safe_relative(target.suite_root)}"))
        return _TargetLoad(result, doc)
    if not suite_root.is_dir():
        diagnostics.error(doc.error(("suite_root",), f"suite directory not found: {suite_root}"))
        return _TargetLoad(result, doc)
    for suite_dir in sorted(p for p in suite_root.iterdir() if p.is_dir()):
        suite = _load_suite(suite_dir, result, repo, diagnostics)
        if suite is not None:
            result.suites[suite.suite_id] = suite
    _load_deferred(target_dir / DEFERRED_DIR, result, repo)
    for index, suite_id in enumerate(target.default_suites):
        if suite_id not in result.suites:
            diagnostics.error(
                doc.error(
                    ("default_suites", index), f"suite {suite_id!r} not found in {suite_root}"
                )
            )
    return _TargetLoad(result, doc)


def _load_deferred(root: Path, target: LoadedTarget, repo: EvalRepo) -> None:
    """`deferred-cases/`: suite folders as under `cases/`, or case files directly inside (the
    suite `deferred`), never part of a default selection. Upstream keeps drafts there, so their
    problems are listed with them (validate, explain), not reported as the repo's: a case with
    one is not loaded and cannot be asked for."""
    if not root.is_dir():
        return
    own = Diagnostics()
    _load_deferred_cases(root, target, repo, own)
    target.deferred_problems = [*own.errors, *own.warnings]


def _load_deferred_cases(
    root: Path, target: LoadedTarget, repo: EvalRepo, diagnostics: Diagnostics
) -> None:
    for suite_dir in sorted(p for p in root.iterdir() if p.is_dir()):
        suite = _load_suite(suite_dir, target, repo, diagnostics)
        if suite is not None:
            target.deferred[suite.suite_id] = suite
    loose = sorted(p for p in root.glob("*.y*ml") if p.is_file())
    if not loose:
        return
    suite = LoadedSuite(
        suite=Suite(
            suite_id=DEFERRED_SUITE,
            title="deferred cases",
            cases=[p.relative_to(repo.root).as_posix() for p in loose],
        ),
        path=root,
    )
    for case_path in loose:
        case_doc = load_document(case_path, "case", diagnostics, lenient=repo.lenient)
        if case_doc is None:
            continue
        case = LoadedCase(
            case=case_doc.model,
            path=case_path,
            doc=case_doc.doc,
            suite_id=DEFERRED_SUITE,
            target_id=target.target_id,
            needs=Needs().merged(target.target.needs, case_doc.model.needs),
        )
        _check_case(case, target, diagnostics, repo.source_workspace)
        suite.cases.append(case)
    target.deferred.setdefault(DEFERRED_SUITE, suite)


def _load_suite(
    suite_dir: Path, target: LoadedTarget, repo: EvalRepo, diagnostics: Diagnostics
) -> LoadedSuite | None:
    path = suite_dir / SUITE_FILE
    if not path.exists():
        if any(suite_dir.glob("*.yaml")):
            diagnostics.warn(
                InputError("case directory has no suite.yaml; skipped", path=suite_dir)
            )
        return None
    loaded = load_document(path, "suite", diagnostics, lenient=repo.lenient)
    if loaded is None:
        return None
    suite = loaded.model
    doc = loaded.doc
    if suite.suite_id != suite_dir.name:
        diagnostics.warn(
            doc.error(("suite_id",), f"differs from the directory name {suite_dir.name!r}")
        )
    result = LoadedSuite(suite=suite, path=path)
    target_dir = target.directory
    listed: set[Path] = set()
    for index, rel in enumerate(suite.cases):
        key = ("cases", index)
        if PurePosixPath(rel).is_absolute():
            diagnostics.error(
                doc.error(key, f"case path {rel!r} must be relative to the eval repo")
            )
            continue
        case_path = repo.root / rel
        if not _inside(case_path, repo.root):
            diagnostics.error(doc.error(key, f"case path {rel!r} escapes the eval repo"))
            continue
        if not _inside(case_path, target_dir):
            diagnostics.error(
                doc.error(
                    key, f"case path {rel!r} is outside its target targets/{target.target_id}/"
                )
            )
            continue
        if not case_path.exists():
            diagnostics.error(doc.error(key, f"case file not found: {rel}"))
            continue
        listed.add(case_path.resolve())
        case_doc = load_document(case_path, "case", diagnostics, lenient=repo.lenient)
        if case_doc is None:
            continue
        case = LoadedCase(
            case=case_doc.model,
            path=case_path,
            doc=case_doc.doc,
            suite_id=suite.suite_id,
            target_id=target.target_id,
            needs=Needs().merged(target.target.needs, suite.needs, case_doc.model.needs),
        )
        _check_case(case, target, diagnostics, repo.source_workspace)
        result.cases.append(case)
    for stray in sorted(suite_dir.glob("*.yaml")):
        if stray.name != SUITE_FILE and stray.resolve() not in listed:
            diagnostics.warn(
                InputError(f"case file not listed in {SUITE_FILE}; it never runs", path=stray)
            )
    return result


def _check_case(
    case: LoadedCase, target: LoadedTarget, diagnostics: Diagnostics, source_workspace: Path
) -> None:
    doc = case.doc
    model = case.case
    if model.case_id != case.path.stem:
        diagnostics.warn(doc.error(("case_id",), f"differs from the file name {case.path.name!r}"))
    if not model.assertions.required and not model.assertions.forbidden:
        diagnostics.warn(doc.error(("assert",), "no required or forbidden assertions"))
    setup = model.setup
    for field_name in ("remove_paths",):
        for index, value in enumerate(getattr(setup, field_name) or []):
            why = safe_relative(value)
            if why:
                diagnostics.error(doc.error(("setup", field_name, index), f"{value!r} {why}"))
    for index, item in enumerate(setup.write_files or []):
        why = safe_relative(item.path)
        if why:
            diagnostics.error(
                doc.error(("setup", "write_files", index, "path"), f"{item.path!r} {why}")
            )
    for index, fixture in enumerate(setup.copy_fixtures or []):
        for part in ("source", "target"):
            value = getattr(fixture, part)
            why = safe_relative(value)
            if why:
                diagnostics.error(
                    doc.error(("setup", "copy_fixtures", index, part), f"{value!r} {why}")
                )
            elif part == "source" and not (target.fixtures_dir / value).exists():
                diagnostics.error(
                    doc.error(
                        ("setup", "copy_fixtures", index, part),
                        f"fixture not found: {target.fixtures_dir / value}",
                    )
                )
            elif part == "source":
                found = _regular_files(target.directory, str(target.fixtures_dir / value))
                if isinstance(found, str):
                    diagnostics.error(doc.error(("setup", "copy_fixtures", index, part), found))
    if setup.git is not None:
        _check_git_setup(case, target, diagnostics)
    if setup.docs_index_path is not None and safe_relative(setup.docs_index_path):
        diagnostics.error(
            doc.error(("setup", "docs_index_path"), f"{safe_relative(setup.docs_index_path)}")
        )
    _check_network_facts(case, diagnostics)
    _check_patterns(case, diagnostics)
    _check_variables(case, diagnostics)
    if target.skill_files is not None:
        _check_paths_exist(case, target, diagnostics)
        _check_sections_exist(case, target, diagnostics, source_workspace)
    allowed = target.target.allowed_statuses
    for required in ("pass", "fail"):
        if required not in allowed:
            diagnostics.warn(
                InputError(
                    f"allowed_statuses lacks {required!r}; such results are reported as blocked",
                    path=target.path,
                    field="allowed_statuses",
                )
            )
            break


def _git_path_problem(value: str) -> str | None:
    why = safe_relative(value)
    if why is None and PurePosixPath(value.removeprefix("./")).parts[:1] == (".git",):
        why = "must not name the repository's own .git folder"
    return why


def _check_git_setup(case: LoadedCase, target: LoadedTarget, diagnostics: Diagnostics) -> None:
    """`setup.git`: every path inside the workspace and outside `.git`, and each staged path one
    the setup makes, commits or removes (else `git add` would fail in every attempt)."""
    doc = case.doc
    git = case.case.setup.git
    assert git is not None
    for number, commit in enumerate(git.commits):
        for index, item in enumerate(commit.files):
            why = _git_path_problem(item.path)
            if why:
                where = ("setup", "git", "commits", number, "files", index, "path")
                diagnostics.error(doc.error(where, f"{item.path!r} {why}"))
    made = set(workspace_files(case, target)) | {
        r.rstrip("/").removeprefix("./") for r in case.case.setup.remove_paths or []
    }
    for index, path in enumerate(git.stage):
        why = _git_path_problem(path)
        wanted = path.rstrip("/").removeprefix("./")
        if (
            why is None
            and wanted not in ("", ".")
            and not any(m == wanted or m.startswith(wanted + "/") for m in made)
        ):
            why = "is no path the setup writes, commits, copies or removes"
        if why:
            diagnostics.error(doc.error(("setup", "git", "stage", index), f"{path!r} {why}"))


def _check_duplicate_case_ids(repo: EvalRepo, diagnostics: Diagnostics) -> None:
    for target in repo.targets.values():
        seen: dict[str, LoadedCase] = {}
        for case in [*target.all_cases(), *target.deferred_cases()]:
            first = seen.get(case.case_id)
            if first is None:
                seen[case.case_id] = case
            elif first.path.resolve() == case.path.resolve():
                diagnostics.error(
                    case.doc.error(
                        ("case_id",),
                        f"case {case.case_id!r} is listed by suites {first.suite_id!r}"
                        f" and {case.suite_id!r}",
                    )
                )
            else:
                line, _ = first.doc.position(("case_id",))
                diagnostics.error(
                    case.doc.error(
                        ("case_id",),
                        f"duplicate case id {case.case_id!r} (first in {first.path}:{line})",
                    )
                )


def _regular_files(root: Path, relative: str) -> list[str] | str:
    """The regular files `relative` holds under `root` (itself if a file), as root-relative
    posix paths; or why it cannot be copied into a workspace: a symlink anywhere on the way or
    inside (it would hand the agent a file from outside), or a special file."""
    try:
        start = contained(root, relative) if not Path(relative).is_absolute() else Path(relative)
    except UnsafePath as exc:
        return str(exc)
    if start.is_symlink():
        return f"{start} is a symlink; symlinks are never copied into a workspace"
    if not is_inside(start, root):
        return f"{start} lies outside {root}"
    if not start.exists():
        return []
    if start.is_file():
        return [start.relative_to(root).as_posix()]
    files: list[str] = []
    for path in sorted(start.rglob("*")):
        if path.is_symlink():
            return f"{relative!r} holds the symlink {path}; symlinks are never copied"
        if path.is_file():
            files.append(path.relative_to(root).as_posix())
        elif not path.is_dir():
            return f"{relative!r} holds {path}, which is not a regular file"
    return files


def _entries(case: LoadedCase) -> list[tuple[PathKey, object]]:
    assertions = case.case.assertions
    return [
        (("assert", polarity, i, "checks", j), check)
        for polarity, entries in (
            ("required", assertions.required),
            ("forbidden", assertions.forbidden),
        )
        for i, entry in enumerate(entries)
        for j, check in enumerate(entry.checks)
    ]


def _keyed_leaves(key: PathKey, check: object) -> list[tuple[PathKey, object]]:
    """The leaf checks under `check` with the key of each in the case file (`not`, `any_of` and
    `all_of` unwrapped), so an error inside an operator names its own line."""
    if isinstance(check, NotCheck):
        return _keyed_leaves((*key, "not"), check.operand)
    if isinstance(check, AnyOfCheck | AllOfCheck):
        name = "any_of" if isinstance(check, AnyOfCheck) else "all_of"
        return [
            leaf
            for index, operand in enumerate(check.operands)
            for leaf in _keyed_leaves((*key, name, index), operand)
        ]
    return [(key, check)]


def _check_patterns(case: LoadedCase, diagnostics: Diagnostics) -> None:
    """Check regexes compile now (with RE2, the engine the judge uses), not after the agent ran."""
    for entry_key, check in _entries(case):
        for key, leaf in _keyed_leaves(entry_key, check):
            for name in PATTERN_FIELDS.get(getattr(leaf, "kind", ""), ()):
                value = getattr(leaf, name)
                why = pattern_problem(value) if value is not None else None
                if why:
                    diagnostics.error(case.doc.error((*key, name), why))


def _check_variables(case: LoadedCase, diagnostics: Diagnostics) -> None:
    """A `workspace_env_value` check searches for a value only the case's setup gives: a variable
    it does not declare has none, and the check could never be decided."""
    declared = case.case.setup.declared_variables()
    for key, check in _entries(case):
        for leaf in leaf_checks([check]):  # type: ignore[list-item]
            if isinstance(leaf, WorkspaceEnvValueCheck) and leaf.variable not in declared:
                diagnostics.error(
                    case.doc.error(
                        key,
                        f"variable {leaf.variable!r} is not declared by the case's setup"
                        " (`env_vars_required` or `env`)",
                    )
                )


def workspace_files(case: LoadedCase, target: LoadedTarget) -> list[str]:
    """Every file an attempt workspace of this case can start with: the skill's files, then
    setup's removals, written files and fixtures (the agent may add more; checks on reads
    name files that exist before it starts)."""
    setup = case.case.setup
    files = set(target.skill_files or [])
    for commit in setup.git.commits if setup.git else []:
        files.update(item.path.removeprefix("./") for item in commit.files)
    for removed in setup.remove_paths or []:
        prefix = removed.rstrip("/").removeprefix("./")
        files = {f for f in files if f != prefix and not f.startswith(prefix + "/")}
    files.update(item.path.removeprefix("./") for item in setup.write_files or [])
    for fixture in setup.copy_fixtures or []:
        source = target.fixtures_dir / fixture.source
        if source.is_dir():
            for path in source.rglob("*"):
                if path.is_file():
                    relative = path.relative_to(source).as_posix()
                    files.add(f"{fixture.target.rstrip('/')}/{relative}")
        else:
            files.add(fixture.target.removeprefix("./"))
    return sorted(files)


def linked_path_hint(pattern: str, target: LoadedTarget, files: list[str]) -> str:
    """For a read path through the link an attempt makes to a skill kept elsewhere (`.agents/
    skills/x/a.md` for a skill in `skills/x/`): the skill's own path, which a read check names,
    since a read is judged by the file it reaches. Empty for any other path."""
    entry = PurePosixPath(target.target.entry_skill)
    folder = entry.parent if entry.name == "SKILL.md" else entry
    # An agent's skills folder is a hidden folder's `skills/` (each adapter's `skill_dir`).
    found = re.match(rf"(\.[\w-]+/skills)/{re.escape(folder.name)}/", pattern)
    if found is None or folder.parent.as_posix() == found[1]:
        return ""
    link = found[0]
    own = f"{folder.as_posix()}/{pattern[len(link) :]}"
    if not any(path_matches(f, own) for f in files):
        return ""
    return (
        f"; `{link}` is a link each attempt makes to the skill's own folder"
        f" `{folder.as_posix()}/`, and a read is judged by the file it reaches: name {own!r}"
    )


def _check_paths_exist(case: LoadedCase, target: LoadedTarget, diagnostics: Diagnostics) -> None:
    """A read check whose path matches no file the workspace can hold never fires: a required
    `read_before` would pass vacuously and a forbidden read would never be observed."""
    files: list[str] | None = None
    for key, check in _entries(case):
        fields: list[tuple[str, str]] = []
        if isinstance(check, FileReadCheck):
            fields = [("path", check.path)]
        elif isinstance(check, ReadBeforeCheck):
            fields = [("first", check.first), ("then", check.then)]
        for name, pattern in fields:
            files = workspace_files(case, target) if files is None else files
            if not any(path_matches(f, pattern) for f in files):
                diagnostics.error(
                    case.doc.error(
                        (*key, name),
                        f"{pattern!r} matches no file the workspace can contain"
                        " (the skill's entry_skill and roots, setup files and fixtures)"
                        + linked_path_hint(pattern, target, files),
                    )
                )


def _check_sections_exist(
    case: LoadedCase, target: LoadedTarget, diagnostics: Diagnostics, source_workspace: Path
) -> None:
    """A `file_read` `section` that no matching file has can never be shown: the check would
    fail (or, forbidden, never fire) whatever the agent does. Fixture files are not read here."""
    written = {w.path.removeprefix("./"): w.content for w in case.case.setup.write_files or []}
    skill = set(target.skill_files or [])
    files: list[str] | None = None
    for key, check in _entries(case):
        if not isinstance(check, FileReadCheck) or check.section is None:
            continue
        files = workspace_files(case, target) if files is None else files
        texts: list[str] = []
        for name in (f for f in files if path_matches(f, check.path)):
            if name in written:
                texts.append(written[name])
            elif name in skill:
                try:
                    texts.append((source_workspace / name).read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError):
                    texts = []
                    break
            else:
                texts = []  # a fixture's text: not known here
                break
        if texts and all(section_lines(text, check.section) is None for text in texts):
            diagnostics.error(
                case.doc.error(
                    (*key, "section"),
                    f"no file matching {check.path!r} has a section {check.section!r}",
                )
            )


def _check_network_facts(case: LoadedCase, diagnostics: Diagnostics) -> None:
    """Agent commands never reach a network (Codex's workspace-write sandbox), so a case may
    only state facts that hold without one."""
    setup = case.case.setup
    unreachable = "agent commands never have network access in this evaluator"
    if setup.network_mode in ("restricted", "online"):
        diagnostics.error(
            case.doc.error(
                ("setup", "network_mode"),
                f"{setup.network_mode!r} cannot be honoured: {unreachable} (use 'offline')",
            )
        )
    if setup.force_fetch_failure is False:
        diagnostics.error(
            case.doc.error(
                ("setup", "force_fetch_failure"),
                f"false cannot be honoured: {unreachable}, so every live fetch fails",
            )
        )
    if setup.sample_repo_available is True:
        diagnostics.error(
            case.doc.error(
                ("setup", "sample_repo_available"),
                f"true cannot be honoured: {unreachable}; copy the sample in with copy_fixtures",
            )
        )


def skill_folder(relative: str) -> PurePosixPath:
    """A skill's folder from its folder or its `SKILL.md` path (its name is the folder's)."""
    path = PurePosixPath(relative)
    return path.parent if path.name == "SKILL.md" else path


def _holds_skill_folder(source_workspace: Path, entry_skill: str) -> bool:
    """Whether the default source workspace (the repo's parent) is the skill's project: it holds
    `.agents/`, or the top folder of the target's `entry_skill` (`skills/` for `skills/x/SKILL.md`,
    as `init` writes it). An upstream repo cloned without its skill holds neither, and is not
    checked against files it never had."""
    top = Path(entry_skill).parts[0] if Path(entry_skill).parts else ""
    return (source_workspace / ".agents").is_dir() or bool(
        top and top not in (".", "..") and (source_workspace / top).exists()
    )


def _claim_name(
    names: dict[str, PathKey],
    name: str,
    key: PathKey,
    doc: YamlDocument,
    diagnostics: Diagnostics,
) -> bool:
    """Records that `key` installs a skill called `name`; False (and an error) when another
    installed skill already has that name, since one copy would shadow the other."""
    if name in names:
        diagnostics.error(
            doc.error(
                key,
                f"skill {name!r} is installed twice (also {'.'.join(map(str, names[name]))}):"
                " one copy would shadow the other",
            )
        )
        return False
    names[name] = key
    return True


def _check_trigger_fields(
    target: LoadedTarget,
    doc: YamlDocument,
    repo: EvalRepo,
    workspace_known: bool,
    diagnostics: Diagnostics,
) -> None:
    """`trigger_suite` loads (in any shape `repo/triggers.py` reads) and each companion and
    distractor skill is a skill of the source workspace whose name no other installed skill
    has."""
    model = target.target
    if model.trigger_suite is not None:
        why = relative_problem(model.trigger_suite)
        if why:
            diagnostics.error(doc.error(("trigger_suite",), f"{model.trigger_suite!r} {why}"))
        elif not (target.directory / model.trigger_suite).is_file():
            diagnostics.error(
                doc.error(
                    ("trigger_suite",),
                    f"trigger suite not found: {target.directory / model.trigger_suite}",
                )
            )
        else:
            try:
                target.triggers = load_trigger_set(target.directory / model.trigger_suite)
            except InputError as exc:
                diagnostics.error(exc)
            entry = skill_folder(model.entry_skill).name
            named = target.triggers.skill if target.triggers else None
            if named is not None and named != entry:
                diagnostics.warn(
                    doc.error(
                        ("trigger_suite",),
                        f"the trigger set is about skill {named!r}, not the entry skill {entry!r}",
                    )
                )
    names: dict[str, PathKey] = {skill_folder(model.entry_skill).name: ("entry_skill",)}
    for index, folder in enumerate(model.companion_folders()):
        key: PathKey = ("companion_skills", index)
        _claim_name(names, PurePosixPath(folder).name, key, doc, diagnostics)
    for index, value in enumerate(model.distractor_skills):
        key = ("distractor_skills", index)
        why = relative_problem(value)
        if why:
            diagnostics.error(doc.error(key, f"{value!r} {why}"))
            continue
        if not _claim_name(names, skill_folder(value).name, key, doc, diagnostics):
            continue
        if workspace_known:
            skill_md = repo.source_workspace / skill_folder(value) / "SKILL.md"
            if not skill_md.is_file():
                diagnostics.error(
                    doc.error(key, f"no SKILL.md in the source workspace at {skill_md}")
                )
