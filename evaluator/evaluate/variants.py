"""The variants of an evaluation: what each one's workspaces hold, resolved before anything runs.

A variant is one of: the current skill (the source workspace as it is), no skill at all, a skill
directory or a SKILL.md file given by path, or a git revision of the source workspace (checked
out into a temporary worktree). The command line names two (`--baseline`, `--candidate`); an
upstream `evaluations/<mode>/<id>.yaml` names its own. Every problem is an `InputError` (one
line, exit 2) raised by `resolve_*` or `check_revision`, before any variant is materialised.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from evaluator.contract.models import Evaluation, Rubric
from evaluator.errors import InputError
from evaluator.evaluate.rubric import load_rubric
from evaluator.repo import EvalRepo, LoadedTarget, rubric_file
from evaluator.repo.candidate_skill import read_candidate_skill
from evaluator.repo.documents import Diagnostics, load_document
from evaluator.repo.skill_search import no_skill_here
from evaluator.safepath import contained

Kind = Literal["current", "none", "dir", "file", "rev", "reused"]
LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class VariantSpec:
    label: str
    kind: Kind
    source: str  # what the user wrote (`none`, a path, `rev:REF`, an evaluation's variant)
    path: Path | None = None  # `dir`, `file`; for `rev`: the skill dir inside the revision
    rev: str | None = None
    target_id: str | None = None  # the variant's own target (vendor comparisons)

    def describe(self) -> str:
        return {
            "current": "the current skill of the source workspace",
            "none": "no skill: the workspace holds none and the agent is given none",
            "dir": f"the skill directory {self.path}",
            "file": f"the entry skill file {self.path}",
            "rev": f"revision {self.rev} of the source workspace"
            + (f" ({self.path})" if self.path else ""),
            "reused": f"the finished run {self.path}, reused (not run again)",
        }[self.kind]


@dataclass(frozen=True)
class EvaluationPlan:
    """What to run: the variants (the first is the reference every other is compared with)."""

    eval_id: str | None
    mode: str
    title: str | None
    target_id: str | None
    suites: tuple[str, ...]
    variants: tuple[VariantSpec, ...]
    aa: bool = False
    rubric: Rubric | None = None  # rubric modes: every variant's judged attempts are scored


def parse_variant(text: str, label: str, *, candidate: bool = False) -> VariantSpec:
    """`none`, `current` (candidate only), `rev:REV`, or a path to a skill dir or SKILL.md."""
    if text == "none":
        if candidate:
            raise InputError(
                "the candidate cannot be `none`; use --baseline none", field="--candidate"
            )
        return VariantSpec(label, "none", text)
    if text == "current":
        return VariantSpec(label, "current", text)
    if text.startswith("rev:"):
        rev = text.removeprefix("rev:")
        if not rev:
            raise InputError("rev: needs a revision (rev:HEAD~1, rev:v1.2)", field=_flag(candidate))
        return VariantSpec(label, "rev", text, rev=rev)
    path = Path(text)
    if path.is_dir():
        if not (path / "SKILL.md").is_file():
            detail = no_skill_here(path).removeprefix("no SKILL.md in this folder")
            raise InputError(f"{path} holds no SKILL.md{detail}", field=_flag(candidate))
        return VariantSpec(label, "dir", text, path=path.resolve())
    if path.is_file():
        read_candidate_skill(path, _flag(candidate))  # refused here, before any run starts
        return VariantSpec(label, "file", text, path=path.resolve())
    first = "current" if candidate else "none"
    raise InputError(
        f"{text!r} is neither {first}, rev:REV nor an existing skill directory or SKILL.md file",
        field=_flag(candidate),
    )


def _flag(candidate: bool) -> str:
    return "--candidate" if candidate else "--baseline"


def command_line_plan(
    baseline: str,
    candidate: str | None,
    *,
    aa: bool,
    target: str | None,
    suites: tuple[str, ...],
    reuse: tuple[Path, bool] | None = None,
) -> EvaluationPlan:
    """`--baseline`/`--candidate`, or `--aa` (the candidate twice, to measure the noise);
    `reuse`: a finished run standing for the baseline, and whether it ran without the skill."""
    chosen = parse_variant(candidate or "current", "with_skill", candidate=True)
    if reuse is not None:
        path, no_skill = reuse
        label = "without_skill" if no_skill else "old_skill"
        base = VariantSpec(label, "reused", str(path), path=path.resolve())
        if not no_skill:
            chosen = VariantSpec("new_skill", chosen.kind, chosen.source, chosen.path, chosen.rev)
        return EvaluationPlan(None, "ab", None, target, suites, (base, chosen))
    if aa:
        variants = (
            VariantSpec("a1", chosen.kind, chosen.source, chosen.path, chosen.rev),
            VariantSpec("a2", chosen.kind, chosen.source, chosen.path, chosen.rev),
        )
        return EvaluationPlan(None, "aa", None, target, suites, variants, aa=True)
    base = parse_variant(baseline, "without_skill" if baseline == "none" else "old_skill")
    if base.kind != "none":
        chosen = VariantSpec("new_skill", chosen.kind, chosen.source, chosen.path, chosen.rev)
    return EvaluationPlan(None, "ab", None, target, suites, (base, chosen))


def evaluation_target(path: Path, repo: Path, *, lenient: bool) -> str | None:
    """The one target an evaluation file needs, so that only it is loaded (as `run --target`
    reads only its target: another target's missing skill must not stop it); None when it names
    several (a comparison of targets), none, one the repo does not hold, or cannot be read
    (`load_evaluation`, over the whole repo, then says why at the file's line)."""
    diagnostics = Diagnostics()
    loaded = load_document(path, "evaluation", diagnostics, lenient=lenient)
    if loaded is None or diagnostics.errors:
        return None
    evaluation: Evaluation = loaded.model
    named = {evaluation.target_id}
    named |= {v.target_id for v in (evaluation.variants or {}).values() if v.target_id}
    if evaluation.shared_cases is not None and evaluation.shared_cases.from_target:
        named.add(evaluation.shared_cases.from_target)
    named.discard(None)
    if len(named) != 1:
        return None
    (only,) = named
    # a target's directory is named by its id (validate checks it)
    return only if only and (repo / "targets" / only).is_dir() else None


def load_evaluation(path: Path, repo: EvalRepo) -> EvaluationPlan:
    """An upstream evaluation file, unchanged: `ab` (two versions of the skill) or `comparison`
    (each variant its own target's skill on shared cases), `subjective` (the current skill scored on
    a rubric). A `rubric` is loaded and checked here, before anything runs."""
    diagnostics = Diagnostics()
    loaded = load_document(path, "evaluation", diagnostics, lenient=repo.lenient)
    if diagnostics.errors:
        raise diagnostics.errors[0]
    if loaded is None:
        raise InputError("not an evaluation file", path=path)
    evaluation: Evaluation = loaded.model
    rubric = None
    if evaluation.rubric is not None:
        path_of_rubric = rubric_file(evaluation.rubric, repo.root)
        if not path_of_rubric.is_file():
            raise loaded.doc.error(("rubric",), f"rubric file not found: {path_of_rubric}")
        rubric = load_rubric(path_of_rubric, lenient=repo.lenient)
    if evaluation.mode == "subjective":
        return _subjective(evaluation, rubric, path, repo)
    if not evaluation.variants or len(evaluation.variants) < 2:
        raise InputError("an evaluation needs at least two variants", path=path, field="variants")
    target_id = evaluation.target_id
    suites = tuple(evaluation.suites)
    if evaluation.mode == "comparison" and evaluation.shared_cases is not None:
        target_id = evaluation.shared_cases.from_target or target_id
        suites = tuple(evaluation.shared_cases.suites) or suites
    if target_id is not None and target_id not in repo.targets:
        raise InputError(f"unknown target {target_id!r}", path=path, field="target_id")
    variants = []
    for key, variant in evaluation.variants.items():
        where = f"variants.{key}"
        label = variant.label if variant.label and LABEL.match(variant.label) else key
        if variant.target_id is not None and variant.target_id not in repo.targets:
            raise InputError(
                f"unknown target {variant.target_id!r}", path=path, field=f"{where}.target_id"
            )
        if variant.source_url:
            raise InputError(
                "variants fetched from a URL are not supported (no network): check the"
                " revision out and give skill_path/skill_ref",
                path=path,
                field=f"{where}.source_url",
            )
        skill_path = variant.skill_path
        if skill_path is None and variant.target_id is not None:
            other = repo.targets[variant.target_id]
            skill_path = _skill_dir(other.target.entry_skill)
        relative = Path(skill_path) if skill_path else None
        if variant.skill_ref:
            variants.append(
                VariantSpec(
                    label,
                    "rev",
                    f"{key}: {variant.skill_ref}",
                    relative,
                    variant.skill_ref,
                    variant.target_id,
                )
            )
        elif relative is not None:
            if not (repo.source_workspace / relative / "SKILL.md").is_file():
                raise loaded.doc.error(
                    ("variants", key, "skill_path"),
                    f"{relative} holds no SKILL.md in the source workspace {repo.source_workspace}",
                )
            variants.append(
                VariantSpec(
                    label,
                    "dir",
                    f"{key}: {skill_path}",
                    repo.source_workspace / relative,
                    None,
                    variant.target_id,
                )
            )
        else:
            variants.append(VariantSpec(label, "current", key, target_id=variant.target_id))
    labels = [v.label for v in variants]
    if len(set(labels)) != len(labels):
        raise loaded.doc.error(("variants",), "two variants share a label")
    return EvaluationPlan(
        evaluation.eval_id,
        evaluation.mode,
        evaluation.title,
        target_id,
        suites,
        tuple(variants),
        rubric=rubric,
    )


SUBJECTIVE_LABEL = "current"


def _subjective(
    evaluation: Evaluation, rubric: Rubric | None, path: Path, repo: EvalRepo
) -> EvaluationPlan:
    """A subjective evaluation scores the current skill on its rubric: one variant, no
    head-to-head (the public contract has none for this mode)."""
    if rubric is None:
        raise InputError("a subjective evaluation needs a rubric", path=path, field="rubric")
    if evaluation.variants:
        raise InputError(
            "a subjective evaluation scores the current skill; it takes no variants"
            " (use mode ab or comparison with a rubric)",
            path=path,
            field="variants",
        )
    if evaluation.target_id is not None and evaluation.target_id not in repo.targets:
        raise InputError(f"unknown target {evaluation.target_id!r}", path=path, field="target_id")
    variant = VariantSpec(SUBJECTIVE_LABEL, "current", "current")
    return EvaluationPlan(
        evaluation.eval_id,
        evaluation.mode,
        evaluation.title,
        evaluation.target_id,
        tuple(evaluation.suites),
        (variant,),
        rubric=rubric,
    )


def _skill_dir(entry_skill: str) -> str:
    path = Path(entry_skill)
    return str(path.parent if path.suffix else path)


def check_revision(source_workspace: Path, rev: str, where: str) -> str:
    """The commit `rev` names in the source workspace's git repository, or one line."""
    try:
        found = subprocess.run(
            [
                "git",
                "-C",
                str(source_workspace),
                "rev-parse",
                "--verify",
                "--quiet",
                f"{rev}^{{commit}}",
            ],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(f"cannot run git: {exc}", field=where) from None
    if found.returncode != 0:
        if "not a git repository" in found.stderr:
            raise InputError(
                f"rev:{rev} needs a git repository, and {source_workspace} is not in one",
                field=where,
            )
        raise InputError(f"revision {rev!r} does not exist in {source_workspace}", field=where)
    return found.stdout.strip()


def suite_drift(spec: VariantSpec, commit: str, repo: EvalRepo, target: LoadedTarget) -> str | None:
    """A note when revision `commit` holds other eval definitions than the ones judging it, or
    None. Every variant is judged with the current suite: a fixed yardstick, so that two
    versions of a skill are compared on the same tasks and criteria (a version's own suite
    would move the ruler with the thing measured). Said, not refused: the user should know."""
    definitions = target.path if target.skill_mount is not None else repo.root
    folder = definitions.parent if definitions.is_file() else definitions
    try:
        found = subprocess.run(
            ["git", "-C", str(folder), "diff", "--quiet", commit, "--", str(definitions.resolve())],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if found.returncode != 1:
        return None  # the same, or not in that repository: nothing to say
    return (
        f"{spec.label} ({spec.source}) is judged with the current {definitions.name}, which"
        f" differs from the one at that revision: every variant is measured with the same,"
        " current suite (a fixed yardstick), not with its own"
    )


@dataclass
class Materialized:
    """What a variant's run is given."""

    spec: VariantSpec
    source_workspace: Path
    skill_text: str | None = None
    no_skill: bool = False
    commit: str | None = None
    skill_dir: Path | None = None  # the variant's skill directory (None: no skill)
    reused: Path | None = None  # a finished run standing for this variant (--baseline-from)


def materialize(
    spec: VariantSpec, repo: EvalRepo, target: LoadedTarget, work: Path, stack: ExitStack
) -> Materialized:
    """The variant's source workspace (made under `work` when it is not the user's): a skill
    directory is laid where the target's entry skill lies; a revision is a git worktree."""
    source = repo.source_workspace
    skill_rel = _skill_dir(target.target.entry_skill)
    if spec.kind == "current":
        # A skill-creator suite's source workspace is its skill folder itself.
        mounted = target.skill_mount is not None
        return Materialized(spec, source, skill_dir=source if mounted else source / skill_rel)
    if spec.kind == "none":
        return Materialized(spec, source, no_skill=True)
    if spec.kind == "reused":
        return Materialized(spec, source, reused=spec.path)
    if spec.kind == "file":
        assert spec.path is not None
        text = read_candidate_skill(spec.path, spec.label)
        return Materialized(spec, source, skill_text=text, skill_dir=spec.path.parent)
    if target.skill_mount is not None:
        # An `evals.json` suite: its source workspace is the skill folder itself.
        return _materialize_mounted(spec, source, stack, work)
    if spec.kind == "dir":
        assert spec.path is not None
        return Materialized(
            spec, _laid_out(spec.path, source, target, work / spec.label), skill_dir=spec.path
        )
    assert spec.rev is not None
    commit = check_revision(source, spec.rev, spec.label)
    tree = _worktree(source, commit, work / f"{spec.label}-rev", stack)
    inside = tree / _prefix(source)
    skill_dir = inside / (spec.path or skill_rel)
    if not (skill_dir / "SKILL.md").is_file():
        raise InputError(f"revision {spec.rev} has no {spec.path or skill_rel}/SKILL.md")
    if spec.path is None or str(spec.path) == skill_rel:
        return Materialized(spec, inside, commit=commit, skill_dir=skill_dir)
    laid = _laid_out(skill_dir, source, target, work / spec.label)
    return Materialized(spec, laid, commit=commit, skill_dir=skill_dir)


def _materialize_mounted(
    spec: VariantSpec, skill: Path, stack: ExitStack, work: Path
) -> Materialized:
    """A variant of a skill-creator suite, whose source workspace is the skill folder: another
    skill directory is that variant's source workspace as it is, a revision the skill folder in
    a worktree of its repository (the other kinds are the same for every suite: `materialize`)."""
    if spec.kind == "dir":
        assert spec.path is not None
        return Materialized(spec, spec.path, skill_dir=spec.path)
    assert spec.rev is not None
    commit = check_revision(skill, spec.rev, spec.label)
    tree = _worktree(skill, commit, work / f"{spec.label}-rev", stack)
    inside = tree / _prefix(skill)
    if not (inside / "SKILL.md").is_file():
        raise InputError(f"revision {spec.rev} has no {_prefix(skill)}/SKILL.md")
    return Materialized(spec, inside, commit=commit, skill_dir=inside)


def _laid_out(skill: Path, source: Path, target: LoadedTarget, into: Path) -> Path:
    """A source workspace holding the target's skill paths, those under the entry skill's
    directory taken from `skill`, the others from the real source workspace."""
    skill_rel = Path(_skill_dir(target.target.entry_skill))
    for relative in target.target.copied_paths():
        rel = Path(relative)
        origin = (
            skill / rel.relative_to(skill_rel) if rel.is_relative_to(skill_rel) else source / rel
        )
        destination = contained(into, relative)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_dir():
            shutil.copytree(origin, destination, symlinks=False, dirs_exist_ok=True)
        elif origin.is_file():
            shutil.copy2(origin, destination)
        elif relative == target.target.entry_skill:
            raise InputError(f"{skill} has no {rel.name}")
        else:
            destination.mkdir(parents=True, exist_ok=True)  # this version has no such folder
    return into


def _prefix(source: Path) -> Path:
    """Where the source workspace lies inside its git repository."""
    found = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "--show-prefix"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return Path(found.stdout.strip() or ".")


def _worktree(source: Path, commit: str, into: Path, stack: ExitStack) -> Path:
    subprocess.run(
        ["git", "-C", str(source), "worktree", "add", "--detach", "--quiet", str(into), commit],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    def remove() -> None:
        subprocess.run(
            ["git", "-C", str(source), "worktree", "remove", "--force", str(into)],
            capture_output=True,
            check=False,
            timeout=120,
        )

    stack.callback(remove)
    return into
