"""Options shared by several commands, and the JSON/plain output helpers."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from evaluator.errors import InputError
from evaluator.vocabulary import JUDGE_MODES, SCRATCH_MEMORY_CHOICES, JudgeMode


class FiniteFloatRange(click.FloatRange):
    """A float range that refuses `inf` and `nan`: click's FloatRange takes both (`nan` fails
    no comparison), and `--timeout inf` then blocked every attempt with an OverflowError
    reported as the agent's tooling failing (the ninth new user's review)."""

    name = "float range"  # the help shows it as before

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


if TYPE_CHECKING:  # the judge's models are imported when a command judges, not at start-up
    from evaluator.judge import ModelGrader
    from evaluator.repo.model import EvalRepo

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_REPO = Path("agentic-evals")


def repo_options(func: F) -> F:
    func = click.option(
        "--source-workspace",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help="Directory holding .agents/skills/... (default: the repo's parent).",
    )(func)
    func = click.option(
        "--repo",
        type=click.Path(path_type=Path, file_okay=False),
        default=DEFAULT_REPO,
        show_default=True,
        help="The eval repo.",
    )(func)
    return func


class SkillPath(click.Path):
    """`--skill` is a folder for some commands and a candidate SKILL.md for others: the wrong
    kind says which one this command takes and where the other kind goes."""

    def __init__(self, *, folder: bool, hint: str) -> None:
        super().__init__(path_type=Path, exists=True, file_okay=not folder, dir_okay=folder)
        self.hint = hint

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            if Path(value).exists():  # the wrong kind, not a missing path
                from evaluator.repo.candidate_skill import PACKAGED, is_zip_archive

                if Path(value).is_file() and is_zip_archive(Path(value)):
                    self.fail(f"{value}: {PACKAGED}", param, ctx)
                self.fail(f"{exc.message.rstrip('.')}: {self.hint}", param, ctx)
            raise


SKILL_FOLDER = SkillPath(
    folder=True,
    hint="here --skill is the skill folder (holding SKILL.md); a candidate SKILL.md file goes"
    " to `score --skill FILE` or `evaluate --candidate FILE`",
)
SKILL_FILE = SkillPath(
    folder=False,
    hint="here --skill is a candidate SKILL.md file; a whole skill folder goes to"
    " `evaluate --candidate DIR` or `run --evals PATH --skill DIR`",
)


def evals_options(func: F) -> F:
    """`--evals`/`--skill`: a skill-creator `evals.json` read in place of an eval repo."""
    func = click.option(
        "--skill",
        type=SKILL_FOLDER,
        default=None,
        help="With --evals: the skill folder under test (default: the folder the file belongs to).",
    )(func)
    func = click.option(
        "--evals",
        type=click.Path(path_type=Path, exists=True),
        default=None,
        help="A skill-creator evals.json, or a skill folder holding evals/evals.json, read in"
        " place of --repo (nothing is converted or written beside it).",
    )(func)
    return func


def evals_only_option(func: F) -> F:
    """`--evals` alone, for commands whose `--skill` is a candidate SKILL.md (`score`): the skill
    folder is the one the file belongs to."""
    return click.option(
        "--evals",
        type=click.Path(path_type=Path, exists=True),
        default=None,
        help="A skill-creator evals.json, or a skill folder holding evals/evals.json, read in"
        " place of --repo (its skill is the folder the file belongs to).",
    )(func)


def evals_repo(
    repo: Path, source_workspace: Path | None, evals: Path | None, skill: Path | None
) -> tuple[Path, Path | None]:
    """The repo path and source workspace the loader gets: an `evals.json` goes where the repo
    goes, its skill folder where the source workspace goes (`repo.load_repo` tells them apart)."""
    if evals is None:
        if skill is not None:
            raise click.UsageError("--skill names the skill an --evals file tests: add --evals")
        return repo, source_workspace
    if source_workspace is not None:
        raise click.UsageError("--evals takes --skill, not --source-workspace")
    if repo != DEFAULT_REPO:
        raise click.UsageError("--evals replaces --repo: give one of them")
    return located_evals(evals, skill, "--evals")


def show_load_warnings(
    repo: Path,
    source_workspace: Path | None,
    target: str | None = None,
    *,
    lenient: bool = False,
    keep: Callable[[InputError], bool] = lambda _: True,
    candidate: Path | None = None,
) -> None:
    """Print on stderr the `warning:` lines `validate` gives for what a command is about to run,
    before it runs: an author who goes straight to `run` must still learn that no agent will
    list the skill, or that a `command` will need a network. Load errors are left to the
    command's own load, which stops on the first. A `candidate` SKILL.md (`score --skill`) goes
    into every workspace in place of the entry skill: it is checked as the entry skill is."""
    from evaluator.contract.skill_listing import unlisted_skill
    from evaluator.repo import load_repo

    loaded, diagnostics = load_repo(
        repo, source_workspace, lenient=lenient, target=target, default_target_only=True
    )
    if diagnostics.errors:
        return
    if loaded is not None:
        for problem in rule_path_warnings(loaded, target):
            diagnostics.warn(problem)
    if candidate is not None:
        from evaluator.repo.candidate_skill import read_candidate_skill

        read_candidate_skill(
            candidate, "--skill"
        )  # a packaged or binary file: one line, no warning
    if candidate is not None and (unlisted := unlisted_skill(candidate)) is not None:
        diagnostics.warn(unlisted)
    for warning in diagnostics.warnings:
        if keep(warning):
            click.echo(f"warning: {warning.render()}", err=True)


def rule_path_warnings(loaded: EvalRepo, target: str | None) -> list[InputError]:
    """Prose the rules compile to a read of a file no workspace can hold
    (`pipeline/rule_paths.py`), for the targets `target` selects (all when None)."""
    from evaluator.adapters import agent_names
    from evaluator.pipeline.rule_paths import rule_path_problems

    chosen = [t for t in loaded.targets.values() if target is None or t.target_id == target]
    return [
        problem
        for t in chosen
        for problem in rule_path_problems(t, loaded.source_workspace, tuple(agent_names()))
    ]


def located_evals(evals: Path, skill: Path | None, field: str | None) -> tuple[Path, Path | None]:
    """What a path given for an `evals.json` names, with the skill folder it tests (None: the
    loader finds it beside the file). A folder holding none is one located error naming the
    evals files near it."""
    held = (evals / "evals.json", evals / "evals" / "evals.json")
    if evals.is_dir() and not any(path.is_file() for path in held):
        kept_beside = repo_level_evals(evals)
        if kept_beside is not None:
            return kept_beside, skill or evals
        # Imported here: a command's --help loads no loader (tests/cli/test_startup.py).
        from evaluator.repo.evals_json import trigger_only_file

        queries = trigger_only_file(evals)
        if queries is not None:
            return queries, skill or (evals if (evals / "SKILL.md").is_file() else None)
        nearby = evals_files_near(evals)
        where = f"pass one to {field}" if field else "pass one"
        hint = f"; found {', '.join(nearby)}: {where}" if nearby else ""
        raise InputError(
            f"no evals.json here (nor evals/evals.json){hint}", path=evals, field=field
        )
    return evals, skill


def repo_level_evals(folder: Path) -> Path | None:
    """A skill folder whose evals the repo keeps beside it (`<repo>/evals/evals.json` next to
    `<repo>/<skill>/`), when that file names this skill (`skill_name`: the folder's name or its
    SKILL.md's `name:`); another skill's file, or one that cannot be read, is only named."""
    beside = folder.parent / "evals" / "evals.json"
    if not (folder / "SKILL.md").is_file() or not beside.is_file():
        return None
    try:
        data = json.loads(beside.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    named = data.get("skill_name") if isinstance(data, dict) else None
    if not isinstance(named, str):
        return None
    # Imported here: a command's --help loads no loader (tests/cli/test_startup.py).
    from evaluator.repo.evals_json import declared_name

    return beside if named in (folder.name, declared_name(folder)) else None


def evals_files_near(folder: Path, limit: int = 5) -> list[str]:
    """skill-creator's layouts around a folder holding none: a repo whose skills sit below it
    (`skills/<name>/evals/evals.json`, `<name>/evals/evals.json`), or a skill folder whose
    evals are kept at the repo level (`../evals/evals.json`). Shown as given paths."""
    patterns = ("*/evals/evals.json", "*/*/evals/evals.json", "evals/*/evals.json")
    found = [path for pattern in patterns for path in sorted(folder.glob(pattern))]
    beside = folder.parent / "evals" / "evals.json"
    if beside.is_file():
        found.insert(0, beside)
    return [str(path) for path in found[:limit]]


def lenient_option(func: F) -> F:
    return click.option(
        "--lenient",
        is_flag=True,
        help="Unknown keys (repos written for other evaluators) are warnings, not errors.",
    )(func)


def json_option(func: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")(func)


# Whether this command printed its JSON object: an error after that must not print a second.
_json_emitted = False


def enveloped(payload: dict[str, Any], code: int) -> dict[str, Any]:
    """Every `--json` object carries the same status keys as the error object: `ok` (the exit
    code is 0) and `exit_code` (docs/cli.md, "The envelope")."""
    if "ok" in payload and payload["ok"] != (code == 0):
        raise AssertionError(f"`ok` is {payload['ok']} but the exit code is {code}")
    return {**payload, "ok": code == 0, "exit_code": code}


def emit_json(payload: Any, code: int | None = None) -> None:
    """`payload` printed as one JSON object; an object (not `history`'s list) with the envelope
    of exit code `code`."""
    global _json_emitted
    if isinstance(payload, dict) and code is not None:
        payload = enveloped(payload, code)
    sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    _json_emitted = True


def emit_json_line(payload: dict[str, Any], code: int) -> None:
    """The object on one line (`score --json`, whose last line is the VERDICT line)."""
    global _json_emitted
    sys.stdout.write(json.dumps(enveloped(payload, code), ensure_ascii=False) + "\n")
    _json_emitted = True


def json_emitted() -> bool:
    return _json_emitted


def reset_json_emitted() -> None:
    global _json_emitted
    _json_emitted = False


def problem_json(problem: Exception) -> dict[str, object]:
    """One problem as `validate --json` lists it: located when it is an input error."""
    if isinstance(problem, InputError):
        return {
            "path": problem.path,
            "line": problem.line,
            "col": problem.col,
            "field": problem.field,
            "message": problem.message,
            "text": problem.render(),
        }
    text = problem.format_message() if isinstance(problem, click.ClickException) else str(problem)
    return {"path": None, "line": None, "col": None, "field": None, "message": text, "text": text}


def error_json(problem: Exception, exit_code: int) -> dict[str, object]:
    """What a command given `--json` prints when an error stops it (the one line on stderr is
    printed too): the shape of `validate --json`'s verdict."""
    return {"ok": False, "exit_code": exit_code, "errors": [problem_json(problem)]}


def judge_option(func: F) -> F:
    return click.option(
        "--judge",
        "judge_mode",
        type=click.Choice(JUDGE_MODES),
        default="auto",
        show_default=True,
        help="How prose assertions are judged: `rules` never calls a model; `auto` asks the"
        " model judge for what rules cannot decide when one is configured; `model` requires one.",
    )(func)


def resolve_grader(mode: JudgeMode, configured: ModelGrader | None) -> ModelGrader | None:
    """The grader the judge chain gets: the only thing `--judge` changes downstream."""
    if mode == "rules":
        return None
    if mode == "model" and configured is None:
        raise click.UsageError("--judge model needs a configured judge model; none is configured")
    return configured


def executor_options(func: F) -> F:
    """`--executor` and `--ray-address`: where a command's attempts run (docs/ray.md)."""
    from evaluator.execute import executor_names

    func = click.option(
        "--ray-address",
        default=None,
        help="Ray cluster to join with --executor ray (default: start one here).",
    )(func)
    return click.option(
        "--executor",
        type=click.Choice(executor_names()),
        default="local",
        help="Where attempts run: local (a pool here) or ray (Ray tasks; the ray extra).",
    )(func)


scratch_memory_option = click.option(
    "--scratch-memory",
    type=click.Choice(SCRATCH_MEMORY_CHOICES),
    default="auto",
    show_default=True,
    help="Keep the run's workspaces and agent homes on a tmpfs only the evaluator sees (auto:"
    " where it may mount one, as root, unless --keep-scratch or --resume; on: refuse to run"
    " otherwise; off: on disk under --scratch-root).",
)
