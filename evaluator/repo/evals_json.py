"""Anthropic skill-creator `evals/evals.json` suites, read as they are into the repo model.

No conversion step and nothing written: the skill the file belongs to becomes one target whose
skill is mounted at `.agents/skills/<name>/` in every workspace, each eval a case (`prompt`
verbatim, `files` copied in at the same relative paths), prose expectations assertion entries
for the judge chain and typed assertion objects exact checks. Every shape seen in public repos
is known (see docs/coming-from-skill-creator.md); any other key is an error naming it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import ValidationError

from evaluator.contract.models import (
    AnyOfCheck,
    AssertionEntry,
    Case,
    CaseAssertions,
    CaseInput,
    CaseNotes,
    CaseSetup,
    Check,
    CommandCheck,
    CommandRanCheck,
    CopyFixture,
    FinalAnswerMatchesCheck,
    Needs,
    NotCheck,
    RepoConfig,
    Suite,
    Target,
    WorkspaceFileContainsCheck,
    WorkspaceFileExistsCheck,
    WorkspaceFileMatchesCheck,
    WriteFile,
)
from evaluator.contract.parse import did_you_mean, type_name, unknown_key_message
from evaluator.contract.skill_listing import unlisted_skill
from evaluator.contract.titles import prompt_title
from evaluator.errors import InputError
from evaluator.patterns import pattern_problem
from evaluator.repo.documents import Diagnostics
from evaluator.repo.model import EvalRepo, LoadedCase, LoadedSuite, LoadedTarget, SkillMount
from evaluator.repo.skill_search import no_skill_here, skills_below
from evaluator.repo.triggers import load_trigger_set, wrapped_queries
from evaluator.safepath import relative_problem
from evaluator.vocabulary import SPLITS
from evaluator.yamlsource import MAX_CHARS, PathKey, YamlDocument, load_yaml, read_text

EVALS_FILE = "evals.json"
# skill-creator keeps a skill's trigger queries beside its evals, under either spelling.
TRIGGER_FILES = ("trigger-evals.json", "trigger_evals.json")
SKILL_FILE = "SKILL.md"
OUTPUT_DIR = "{{output_dir}}"
DEFAULT_SUITE = "evals"
SKILLS_DIR = ".agents/skills"

# `needs` (ours, top level or per eval): what the machine must offer, as a case's `needs`.
TOP_KEYS = ("skill_name", "evals", "schema_version", "version", "name", "description", "needs")
TEXT_TOP_KEYS = tuple(key for key in TOP_KEYS if key != "needs")
EVAL_KEYS = (
    "id",
    "name",
    "description",
    "prompt",
    "expected_output",
    "files",
    "expectations",
    "assertions",
    "references",
    "case_set",
    "needs",
    "split",  # ours: the eval's train/val/test split (docs/coming-from-skill-creator.md)
    # variants seen in public repos (docs/coming-from-skill-creator.md, "Variants")
    "expect",
    "fail",
    "category",
    "must_have",
    "must_not_have",
    "manual_review_expected",
    "eval_name",
)
# Where a `must_have` / `must_not_have` pattern is looked for: the final answer and every
# workspace file (hidden folders, the skill's among them, are not matched by `**`).
ANY_FILE = "**/*"
# The flags the authors' own pattern harnesses search with (Python's MULTILINE | DOTALL |
# IGNORECASE), in RE2's inline form.
PATTERN_FLAGS = "(?ims)"
ASSERTION_KEYS = (
    "id",
    "type",
    "description",
    "text",
    "path",
    "contains",
    "command",
    "expect_exit_code",
    "pattern",
    "patterns",
)
# Typed assertions whose regular expression is searched in what the agent produced (`content`:
# the final answer or a file it left, as `must_have`) or did (`behavior`: a command it ran, or
# its final answer), seen in public suites (docs/coming-from-skill-creator.md, "Variants").
PATTERN_TYPES = (
    "content_contains",
    "content_not_contains",
    "behavior_contains",
    "behavior_not_contains",
    "ordered_content",
)
ASSERTION_TYPES = (
    "file_exists",
    "file_not_exists",
    "file_contains",
    "file_not_contains",
    "command",
    *PATTERN_TYPES,
)
INLINE_FILE_KEYS = ("path", "content")
# A `files` object without `content` names a file to copy, with a note on why it is there.
FILE_NOTE_KEYS = ("purpose", "description")
_NOT_ID = re.compile(r"[^A-Za-z0-9._-]+")


def evals_file(path: Path) -> Path | None:
    """The `evals.json` a command-line path names, or None when it names an eval repo: the file
    itself, or a skill folder (any folder without `targets/`) holding `evals/evals.json`."""
    if path.is_file() or path.suffix == ".json":
        return path
    if path.is_dir() and not (path / "targets").is_dir():
        for candidate in (path / "evals" / EVALS_FILE, path / EVALS_FILE):
            if candidate.is_file():
                return candidate
        return trigger_only_file(path)
    return None


def trigger_only_file(folder: Path) -> Path | None:
    """A skill folder (or the repo holding it) that keeps skill-creator trigger queries but no
    `evals.json` (many public skills measure only their description): the trigger file, read as
    a target without cases. Its skill is found as an evals.json's is (`_skill_folder`)."""
    found = [
        folder / "evals" / name for name in TRIGGER_FILES if (folder / "evals" / name).is_file()
    ]
    if (folder / SKILL_FILE).is_file():
        found += [folder / name for name in TRIGGER_FILES if (folder / name).is_file()]
    return found[0] if found else None


@dataclass
class _Source:
    """The parsed file, with PyYAML's positions when it can read the JSON (it nearly always can)."""

    path: Path
    data: Any
    positions: YamlDocument
    # Where the evals list sits: under `evals`, or the whole file when it is a bare list.
    evals_at: PathKey = ("evals",)

    def error(self, key: PathKey, message: str) -> InputError:
        return self.positions.error(key, message)

    def key_error(self, key: PathKey, message: str) -> InputError:
        return self.positions.key_error(key, message)


def load_evals_json(path: Path, skill: Path | None = None) -> tuple[EvalRepo | None, Diagnostics]:
    """One target from a skill-creator `evals.json`; `skill` overrides which folder is tested."""
    diagnostics = Diagnostics()
    try:
        source = _parse(path.absolute())
    except InputError as exc:
        diagnostics.error(exc)
        return None, diagnostics
    data = source.data
    trigger_only = source.path.name in TRIGGER_FILES and _is_trigger_set(data)
    if trigger_only:
        # A skill's trigger queries without evals: the target has no cases, only its trigger
        # set (`triggers --evals`); commands that run cases say so (`plan.select_cases`).
        evals: object = []
        skill_name = data.get("skill_name") if isinstance(data, dict) else None
        skill_name = skill_name if isinstance(skill_name, str) else None
    elif (
        isinstance(data, list)
        and data
        and all(isinstance(item, dict) for item in data)
        and not _is_trigger_set(data)
    ):
        # A bare list of evals (no `skill_name`): the skill is the one the file belongs to.
        source.evals_at = ()
        evals = data
        skill_name = None
    elif not isinstance(data, dict) or ("evals" not in data and _is_trigger_set(data)):
        trigger_set = _is_trigger_set(data)
        hint = (
            " (this is a trigger set: run it with `agentic-eval triggers --triggers FILE`)"
            if trigger_set
            else ""
        )
        diagnostics.error(source.error((), f"expected a JSON object with an `evals` list{hint}"))
        return None, diagnostics
    elif "evals" not in data:
        # Another tool's file under the same name (`test_cases`, `cases`, ...): one line saying
        # so, not a line per key of a format this loader never claimed to read.
        keys = ", ".join(map(str, list(data)[:6])) + (", ..." if len(data) > 6 else "")
        diagnostics.error(
            source.error(
                (),
                f"not a skill-creator evals file: no `evals` list (its keys: {keys or 'none'});"
                " skill-creator's is {skill_name, evals: [{id, prompt, expectations}]}",
            )
        )
        return None, diagnostics
    else:
        for key in data:
            if key in TOP_KEYS:
                continue
            # `needs` holds an object: a text is no near miss of it (`notes`).
            known = TEXT_TOP_KEYS if isinstance(data[key], str) else TOP_KEYS
            problem = source.key_error((key,), unknown_key_message(str(key), known))
            if isinstance(data[key], str) and not did_you_mean(str(key), known):
                # A text beside the evals (`notes`, `_comment`) is the author's note: it holds
                # no eval and no criterion, so it is said and left out, never a refusal.
                diagnostics.warn(source.key_error((key,), f"{problem.message}: a note, ignored"))
            else:
                diagnostics.error(problem)
        evals = data.get("evals")
        if not isinstance(evals, list) or not evals:
            diagnostics.error(source.error(("evals",), "expected a non-empty list of evals"))
            return None, diagnostics
        skill_name = data.get("skill_name")
        if skill_name is not None and not isinstance(skill_name, str):
            diagnostics.error(source.error(("skill_name",), "expected a string"))
            skill_name = None
    assert isinstance(evals, list)
    if (
        evals
        and all(isinstance(item, dict) and "prompt" not in item for item in evals)
        and any(key not in EVAL_KEYS for item in evals for key in item)
    ):
        # Another harness's inputs under an evals name (a script's `type`, `target`, `inputs`):
        # nothing here is a task for an agent, so one line says so rather than a line per key.
        foreign = sorted({str(key) for item in evals for key in item if key not in EVAL_KEYS})
        shown = ", ".join(foreign[:8]) + (", ..." if len(foreign) > 8 else "")
        diagnostics.error(
            source.error(
                (*source.evals_at, 0),
                f"not a skill-creator evals file: no eval has a `prompt`, the task sent to the"
                f" agent (its evals hold another harness's keys: {shown})",
            )
        )
        return None, diagnostics
    skill_dir = _skill_folder(source.path, skill, skill_name, diagnostics)
    if skill_dir is None:
        return None, diagnostics
    # Where `files` may come from: the skill folder and the evals file's side of the repo.
    workspace = Path(os.path.commonpath([skill_dir, source.path.parent.resolve()]))
    declared = declared_name(skill_dir)
    name = mount_folder(declared, skill_name, skill_dir.name)
    unlisted = unlisted_skill(skill_dir / SKILL_FILE)
    if unlisted is not None:
        diagnostics.warn(unlisted)
    if skill_name and declared and skill_name not in (declared, name):
        # The target is named after `skill_name`, the agent finds the skill by its own name: a
        # stale or copied skill_name makes history and reports speak of a skill that is not run.
        diagnostics.warn(
            source.error(
                ("skill_name",),
                f"{skill_name!r} is not the name the SKILL.md of {skill_dir} declares"
                f" ({declared!r}); that skill is the one under test",
            )
        )
    mount = f"{SKILLS_DIR}/{name}"
    roots = [
        f"{mount}/{child.name}"
        for child in sorted(skill_dir.iterdir())
        if child.name != SKILL_FILE
        and not child.name.startswith(".git")
        and not (child == source.path.resolve() or child in source.path.resolve().parents)
    ]
    trigger_file = source.path if trigger_only else _trigger_file(source.path, diagnostics)
    stated = data.get("needs") if isinstance(data, dict) and not trigger_only else None
    file_needs = _needs(source, ("needs",), stated, diagnostics)
    target = Target(
        needs=file_needs,
        target_id=_identifier(skill_name or declared or skill_dir.name),
        entry_skill=f"{mount}/{SKILL_FILE}",
        roots=roots,
        title=f"skill-creator evals of {skill_name or declared or skill_dir.name}",
        fixtures_root=os.path.relpath(workspace, source.path.parent),
        trigger_suite=trigger_file.name if trigger_file else None,
    )
    loaded_target = LoadedTarget(
        target=target,
        path=source.path,
        skill_mount=SkillMount(at=mount, origin=skill_dir),
    )
    if trigger_file is not None:
        try:
            loaded_target.triggers = load_trigger_set(trigger_file)
        except InputError as exc:
            diagnostics.error(exc)
        named = loaded_target.triggers.skill if loaded_target.triggers else None
        if named is not None and named not in (name, declared):
            diagnostics.warn(
                InputError(
                    f"the trigger set is about skill {named!r}, not the skill under test {name!r}",
                    path=trigger_file,
                )
            )
    loaded_target.skill_files = _skill_files(skill_dir, mount, roots)
    seen: dict[str, int] = {}
    skill_files_named: list[tuple[PathKey, str]] = []
    for index, item in enumerate(evals):
        case = _case(source, index, item, workspace, skill_dir, diagnostics, skill_files_named)
        if case is None:
            continue
        case.needs = Needs().merged(file_needs, case.case.needs)
        if case.case_id in seen:
            diagnostics.error(
                source.error(
                    (*source.evals_at, index, "id"),
                    f"duplicate eval id (case {case.case_id!r} is also evals[{seen[case.case_id]}])",
                )
            )
            continue
        seen[case.case_id] = index
        case_set, grouped_by = _case_set(item)
        suite = loaded_target.suites.get(case_set)
        if suite is None:
            suite = LoadedSuite(
                suite=Suite(
                    suite_id=case_set,
                    title=(
                        f"{grouped_by} {case_set}"
                        if grouped_by and case_set != DEFAULT_SUITE
                        else None
                    ),
                    cases=[],
                ),
                path=source.path,
            )
            loaded_target.suites[case_set] = suite
        case.suite_id = case_set
        case.target_id = target.target_id
        # A suite lists case files; here every case is an entry of this one file.
        suite.suite.cases.append(f"{source.path.name}#evals[{index}]")
        suite.cases.append(case)
    if skill_files_named:
        # Said once for the file: the authors list the skill's own documents the expected
        # output rests on, on every eval alike.
        names = sorted({ref for _, ref in skill_files_named})
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        diagnostics.warn(
            source.error(
                skill_files_named[0][0],
                f"`files` names files of the skill itself that no prompt names ({shown}):"
                f" not copied into the workspace, where the agent has the skill at {mount}/;"
                " read as the cases' references",
            )
        )
    target.default_suites = list(loaded_target.suites)
    # The skill folder is the source workspace (what a run records and a re-judge passes back
    # as the skill); the jail hides it and the evals file's folder (the repo root) alike.
    repo = EvalRepo(
        root=source.path.parent,
        source_workspace=skill_dir,
        source_workspace_explicit=True,
        config=RepoConfig(default_target=target.target_id),
        targets={target.target_id: loaded_target},
    )
    return repo, diagnostics


def _is_trigger_set(data: object) -> bool:
    """skill-creator's trigger queries (`[{query, should_trigger}]`, or the
    `should_trigger`/`should_not_trigger` lists) given where an evals.json is expected."""
    if isinstance(data, list):
        return bool(data) and all(isinstance(i, dict) and "query" in i for i in data)
    return isinstance(data, dict) and (
        "should_trigger" in data
        or "should_not_trigger" in data
        or wrapped_queries(data) is not None
    )


def _trigger_file(evals: Path, diagnostics: Diagnostics) -> Path | None:
    """skill-creator's trigger queries beside `evals.json`, if it keeps any; both spellings at
    once is an error (which one would run?)."""
    found = [evals.parent / name for name in TRIGGER_FILES if (evals.parent / name).is_file()]
    if len(found) > 1:
        diagnostics.error(
            InputError(
                f"two trigger sets beside {EVALS_FILE}: {found[0].name} and {found[1].name};"
                " keep one (or give one to `triggers --triggers`)",
                path=found[1],
            )
        )
        return None
    return found[0] if found else None


def _parse(path: Path) -> _Source:
    text = read_text(path)
    if len(text) > MAX_CHARS:
        raise InputError(f"file is larger than {MAX_CHARS} characters", path=path, line=1, col=1)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"invalid JSON: {exc.msg}", path=path, line=exc.lineno, col=exc.colno
        ) from None
    except RecursionError:
        raise InputError("invalid JSON: nested too deeply", path=path) from None
    try:
        positions = load_yaml(path)  # JSON is YAML: its parser gives each key a line
        positions.data = data
    except InputError:
        positions = YamlDocument(path=path, data=data)
    return _Source(path=path, data=data, positions=positions)


def _skill_folder(
    evals: Path, skill: Path | None, skill_name: str | None, diagnostics: Diagnostics
) -> Path | None:
    """The folder the file belongs to: `<skill>/evals/evals.json`, a repo-level `evals/` beside
    `<skill_name>/`, `misc/evals/<skill>/`, or the folder holding the file; else `--skill`."""
    if skill is not None:
        if not (skill / SKILL_FILE).is_file():
            diagnostics.error(
                InputError(no_skill_here(skill, skill_name), path=skill, field="--skill")
            )
            return None
        return skill.resolve()
    here = evals.parent
    # A name is looked up as one folder name only: `skill_name` is data, never a path.
    names = [n for n in (skill_name, here.name) if n and "/" not in n and not n.startswith(".")]
    candidates = [here, here.parent]
    for base in (here.parent, here.parent.parent, here.parent.parent.parent):
        for name in names:
            candidates += [base / name, base / "skills" / name, base / SKILLS_DIR / name]
    for candidate in candidates:
        if (candidate / SKILL_FILE).is_file():
            return candidate.resolve()
    siblings = [p for p in here.parent.iterdir() if (p / SKILL_FILE).is_file()]
    if len(siblings) == 1:
        return siblings[0].resolve()
    named = _skills_named(here.parent, skill_name) if skill_name else []
    if len(named) == 1:
        return named[0].resolve()
    found = (
        f"; several skills are named {skill_name!r}:"
        f" {', '.join(str(p.relative_to(here.parent)) for p in named)}"
        if named
        else f" or named {skill_name!r}"
    )
    diagnostics.error(
        InputError(
            f"cannot tell which skill folder this file tests (no SKILL.md beside it{found});"
            " pass --skill DIR",
            path=evals,
        )
    )
    return None


def _skills_named(repo: Path, name: str) -> list[Path]:
    """Skill folders below `repo` whose folder or SKILL.md `name:` is `name` (`.agents/skills/`
    was looked at by name already)."""
    return [p for p in skills_below(repo) if name in (p.name, declared_name(p))]


def declared_name(skill_dir: Path) -> str | None:
    """The `name:` of SKILL.md's front matter: agents find the skill under that name."""
    try:
        text = (skill_dir / SKILL_FILE).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if not text.startswith("---"):
        return None
    front = text[3:].split("\n---", 1)[0]
    found = re.search(r"^name:\s*['\"]?([^'\"\n]+?)['\"]?\s*$", front, re.MULTILINE)
    return found.group(1) if found else None


def _skill_files(skill_dir: Path, mount: str, roots: list[str]) -> list[str]:
    files = [f"{mount}/{SKILL_FILE}"]
    for root in roots:
        real = skill_dir / PurePosixPath(root).name
        if real.is_file() and not real.is_symlink():
            files.append(root)
        elif real.is_dir():
            for path in sorted(real.rglob("*")):
                if path.is_file() and not path.is_symlink():
                    files.append(f"{mount}/{path.relative_to(skill_dir).as_posix()}")
    return sorted(files)


# A skill name as the Agent Skills format gives it, which is also its folder's name.
_PLAIN_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")


def mount_folder(declared: str | None, skill_name: str | None, folder: str) -> str:
    """The folder the skill is copied to under the skills folder: its front matter's `name`
    when that is a plain skill name (lowercase letters, digits, `-`, `_`, `.`), else the name of
    the folder it is kept in, as its author keeps it (a `name: Changelog Entry` is a title, not
    a folder: the skill's own paths name its folder, `changelog-entry/scripts/`). Each agent
    then names it by its own rule (`AgentAdapter.skill_name`, docs/agents.md)."""
    if declared and _PLAIN_NAME.fullmatch(declared):
        return declared
    if not declared and skill_name:
        return _identifier(skill_name)
    if _identifier(folder) == folder:
        return folder
    return _identifier(declared or skill_name or folder)


def _identifier(value: object) -> str:
    text = _NOT_ID.sub("-", str(value)).strip("-.") or "x"
    return text if text[0].isalnum() else f"x{text}"


def _case_set(item: dict[str, Any]) -> tuple[str, str | None]:
    """The suite and the key naming it: `case_set`, else the eval's `category` (a grouping
    authors run apart); without either the suite `evals`."""
    for key in ("case_set", "category"):
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return _identifier(value), key
    return DEFAULT_SUITE, None


def _case(
    source: _Source,
    index: int,
    item: object,
    workspace: Path,
    skill_dir: Path,
    diagnostics: Diagnostics,
    skill_files_named: list[tuple[PathKey, str]],
) -> LoadedCase | None:
    at: PathKey = (*source.evals_at, index)
    if not isinstance(item, dict):
        diagnostics.error(source.error(at, "expected an object (an eval)"))
        return None
    problems = len(diagnostics.errors)
    for key in item:
        if key not in EVAL_KEYS:
            diagnostics.error(
                source.key_error((*at, key), unknown_key_message(str(key), EVAL_KEYS))
            )
    prompt = item.get("prompt")
    if "prompt" not in item:
        diagnostics.error(source.error((*at, "prompt"), "required: the prompt sent to the agent"))
    elif not isinstance(prompt, str):
        diagnostics.error(
            source.error(
                (*at, "prompt"),
                f"expected a string (the prompt sent to the agent), got {type_name(prompt)}",
            )
        )
    elif not prompt.strip():
        diagnostics.error(source.error((*at, "prompt"), "empty: the prompt sent to the agent"))
    identifier = item.get("id", index)
    if isinstance(identifier, bool) or not isinstance(identifier, (int, str)):
        diagnostics.error(source.error((*at, "id"), "expected an integer or a string"))
    expected = item.get("expected_output")
    if expected is not None and not isinstance(expected, str):
        diagnostics.error(source.error((*at, "expected_output"), "expected a string"))
    entries: list[AssertionEntry] = []
    forbidden: list[AssertionEntry] = []
    for key in ("category", "case_set"):
        if key in item and not isinstance(item[key], str):
            diagnostics.error(source.error((*at, key), "expected a string"))
    split = next((s for s in SPLITS if s == item.get("split")), None)
    if "split" in item and split is None:
        allowed = ", ".join(SPLITS)
        got = json.dumps(item["split"])
        diagnostics.error(source.error((*at, "split"), f"expected one of {allowed}, got {got}"))
    if "manual_review_expected" in item and not isinstance(item["manual_review_expected"], bool):
        diagnostics.error(source.error((*at, "manual_review_expected"), "expected true or false"))
    for key in ("name", "eval_name"):
        if key in item and not isinstance(item[key], str):
            diagnostics.error(source.error((*at, key), "expected a string"))
    skill_refs: list[str] = []
    setup = _files(
        source,
        (*at, "files"),
        item.get("files"),
        workspace,
        skill_dir,
        prompt if isinstance(prompt, str) else "",
        skill_refs,
        diagnostics,
    )
    given = _given_paths(setup)
    for list_key in ("expectations", "assertions", "expect"):
        values = item.get(list_key)
        if values is None:
            continue
        if not isinstance(values, list):
            diagnostics.error(source.error((*at, list_key), "expected a list"))
            continue
        for number, value in enumerate(values):
            entry = _entry(source, (*at, list_key, number), value, given, diagnostics)
            if entry is not None:
                entries.append(entry)
    for text in _strings(source, (*at, "fail"), item.get("fail"), diagnostics):
        # What must not happen, in prose: a forbidden entry whose fail signal is the sentence.
        forbidden.append(AssertionEntry(description=text, fail_signals=[text]))
    for key, required in (("must_have", True), ("must_not_have", False)):
        for number, text in enumerate(_strings(source, (*at, key), item.get(key), diagnostics)):
            entry = _pattern_entry(source, (*at, key, number), text, required, given, diagnostics)
            (entries if required else forbidden).append(entry)
    references = item.get("references") or []
    if not isinstance(references, list) or not all(isinstance(r, str) for r in references):
        diagnostics.error(source.error((*at, "references"), "expected a list of strings"))
        references = []
    needs = _needs(source, (*at, "needs"), item.get("needs"), diagnostics)
    references = [*references, *skill_refs]
    skill_files_named += [((*at, "files"), ref) for ref in skill_refs]
    if len(diagnostics.errors) > problems or setup is None:
        return None
    if not entries and not forbidden:
        diagnostics.warn(
            source.error(
                at,
                "no `expectations` or `assertions`: nothing to judge, so this eval is blocked"
                " (unclear-rule) whatever the agent does; `expected_output` is never graded",
            )
        )
    assert isinstance(prompt, str)
    # `eval_name` (public suites' spelling of `name`) titles the case as `name` does.
    name = item.get("name") or item.get("eval_name")
    title = name if isinstance(name, str) and name else prompt_title(prompt)
    try:
        case = Case(
            case_id=f"eval-{_identifier(identifier)}",
            title=title,
            input=CaseInput(user_prompt=prompt),
            setup=setup,
            assertions=CaseAssertions(required=entries, forbidden=forbidden),
            # Source-workspace paths, and the skill folder is the source workspace: where the
            # report's suggested fixes point (the references the eval names, else SKILL.md).
            notes=CaseNotes(
                likely_fix_files=[r.split("#", 1)[0] for r in references if r] or [SKILL_FILE]
            ),
            expected_output=expected,
            needs=needs,
            split=split,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        diagnostics.error(source.error(at, f"{'.'.join(map(str, first['loc']))}: {first['msg']}"))
        return None
    line, col = source.positions.position(at)
    # The file's positions, so a later check can name a sentence of this eval at its own line
    # (`LoadedCase.at`); a key of our case shape, which the file does not have, falls back to
    # the eval's own place.
    doc = YamlDocument(
        path=source.path,
        data=item,
        positions={**source.positions.positions, (): (line, col)},
        key_positions=source.positions.key_positions,
    )
    return LoadedCase(case=case, path=source.path, doc=doc, suite_id="", target_id="", at=at)


def _needs(source: _Source, at: PathKey, value: object, diagnostics: Diagnostics) -> Needs | None:
    """A `needs` object (`{"programs": [...], "python": [...]}`), as a case's; None when absent
    or wrong (the error is reported)."""
    if value is None:
        return None
    try:
        return Needs.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        diagnostics.error(source.error(at, f"{where + ': ' if where else ''}{first['msg']}"))
        return None


def _strings(source: _Source, at: PathKey, value: object, diagnostics: Diagnostics) -> list[str]:
    """A list of non-empty strings (`fail`, `must_have`, ...); anything else is an error."""
    if value is None:
        return []
    if not isinstance(value, list):
        diagnostics.error(source.error(at, "expected a list of strings"))
        return []
    found = []
    for number, text in enumerate(value):
        if not isinstance(text, str) or not text.strip():
            diagnostics.error(source.error((*at, number), "expected a non-empty string"))
            continue
        found.append(text)
    return found


def _given_paths(setup: CaseSetup | None) -> list[str]:
    """The workspace paths the case itself puts there: what the agent was given, not wrote."""
    if setup is None:
        return []
    return [
        *(copy.target or copy.source for copy in setup.copy_fixtures or []),
        *(write.path for write in setup.write_files or []),
    ]


def _pattern_entry(
    source: _Source,
    at: PathKey,
    text: str,
    required: bool,
    given: list[str],
    diagnostics: Diagnostics,
) -> AssertionEntry:
    """A `must_have` / `must_not_have` regular expression, searched as the authors' harnesses
    search it: in the final answer and in the files of the workspace the case did not give
    (case-insensitive, `.` across lines). A pattern RE2 cannot compile (a backreference) is
    searched as plain text, as those harnesses fall back to."""
    pattern = _searched(source, at, text, diagnostics)
    note = f"evals.json {'must_have' if required else 'must_not_have'} pattern"
    anywhere = _in_content(pattern, given, note)
    # A forbidden entry is "observed" when its checks hold: both read as the same sentence.
    description = f"the final answer or a file the agent left matches /{text}/"
    return AssertionEntry(description=description, checks=[anywhere])


def _searched(source: _Source, at: PathKey, text: str, diagnostics: Diagnostics) -> str:
    """A pattern of a public suite as its authors' harnesses search it (case-insensitive, `.`
    across lines); one RE2 cannot compile (a backreference) is searched as plain text."""
    pattern = PATTERN_FLAGS + text
    if pattern_problem(pattern) is None:
        return pattern
    diagnostics.warn(
        source.error(at, f"not a regular expression RE2 accepts; searched as plain text: {text}")
    )
    return PATTERN_FLAGS + re.escape(text)


def _in_content(pattern: str, given: list[str], note: str) -> AnyOfCheck:
    """`pattern` in the final answer or in a workspace file the case did not give."""
    return AnyOfCheck.model_validate(
        {
            "any_of": [
                FinalAnswerMatchesCheck(kind="final_answer_matches", pattern=pattern),
                WorkspaceFileMatchesCheck(
                    kind="workspace_file_matches", path=ANY_FILE, pattern=pattern, exclude=given
                ),
            ],
            "note": note,
        }
    )


def _pattern_assertion(
    source: _Source,
    at: PathKey,
    kind: str,
    value: dict[str, Any],
    given: list[str],
    note: str,
    diagnostics: Diagnostics,
) -> Check | None:
    """A `content_*`, `behavior_*` or `ordered_content` assertion: its `pattern` (or, in order,
    its `patterns`) searched in the final answer or a file the agent left (`content`), or in a
    command it ran or its final answer (`behavior`); `_not_` is the check's negation."""
    if kind == "ordered_content":
        parts = value.get("patterns")
        if (
            not isinstance(parts, list)
            or len(parts) < 2
            or not all(isinstance(p, str) and p for p in parts)
        ):
            diagnostics.error(
                source.error((*at, "patterns"), "expected a list of two or more patterns")
            )
            return None
        # each pattern after the one before it, in one text (the answer, or one file)
        searched = [
            _searched(source, (*at, "patterns", n), part, diagnostics).removeprefix(PATTERN_FLAGS)
            for n, part in enumerate(parts)
        ]
        joined = PATTERN_FLAGS + ".*?".join(f"(?:{part})" for part in searched)
        return _in_content(joined, given, note)
    text = value.get("pattern")
    if not isinstance(text, str) or not text:
        diagnostics.error(
            source.error((*at, "pattern"), f"a {kind} assertion needs a non-empty `pattern`")
        )
        return None
    pattern = _searched(source, (*at, "pattern"), text, diagnostics)
    found: Check
    if kind.startswith("content_"):
        found = _in_content(pattern, given, note)
    else:
        found = AnyOfCheck.model_validate(
            {
                "any_of": [
                    CommandRanCheck(kind="command_ran", pattern=pattern),
                    FinalAnswerMatchesCheck(kind="final_answer_matches", pattern=pattern),
                ],
                "note": note,
            }
        )
    if kind.endswith("_not_contains"):
        return NotCheck.model_validate({"not": found, "note": note})
    return found


def _entry(
    source: _Source, at: PathKey, value: object, given: list[str], diagnostics: Diagnostics
) -> AssertionEntry | None:
    """A prose string goes to the judge chain as written; a typed object becomes its check."""
    if isinstance(value, str):
        if not value.strip():
            diagnostics.error(source.error(at, "an expectation must not be empty"))
            return None
        return AssertionEntry(description=value, pass_criteria=[value])
    if not isinstance(value, dict):
        diagnostics.error(source.error(at, "expected a string or an assertion object"))
        return None
    for key in value:
        if key not in ASSERTION_KEYS:
            diagnostics.error(
                source.key_error((*at, key), unknown_key_message(str(key), ASSERTION_KEYS))
            )
            return None
    kind = value.get("type")
    if kind is None and isinstance(value.get("text"), str):
        text = value["text"]  # `{text}`: a prose expectation written as an object
        return AssertionEntry(description=text, pass_criteria=[text])
    if kind not in ASSERTION_TYPES:
        diagnostics.error(
            source.error(
                (*at, "type"), f"must be one of {', '.join(ASSERTION_TYPES)} (got {kind!r})"
            )
        )
        return None
    note = f"evals.json {kind} assertion" + (f" {value['id']}" if "id" in value else "")
    check = (
        _pattern_assertion(source, at, kind, value, given, note, diagnostics)
        if kind in PATTERN_TYPES
        else _check(source, at, kind, value, note, diagnostics)
    )
    if check is None:
        return None
    description = value.get("description") or value.get("text") or _describe(kind, value)
    return AssertionEntry(description=str(description), checks=[check])


# A package install or a build that fetches dependencies inside a `command` assertion: it needs
# a network for what is not installed, which a machine without one (or Codex's sandbox) lacks.
_PACKAGE_INSTALL = re.compile(
    r"\b(?:pip3?|npm|pnpm|yarn|uv pip|poetry) (?:install|add|ci)\b"
    # a build tool where a command starts (not `grep mvn pom.xml`), a path to it included
    r"|(?:^|[;&|(])\s*(?:\S*/)?(?:mvnw?|gradlew?|cargo|go)(?: -\S+)*"
    r" (?:package|install|verify|compile|test|build|run|check|fetch|get|mod download|mod tidy)\b"
)


# The shell's control operators: a simple command starts after each.
_CONTROL_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")", ";;", "|&"})
# Reserved words after which a command starts.
_LEADING_WORDS = frozenset({"!", "if", "then", "else", "elif", "while", "until", "do", "{", "time"})
# Words a shell runs itself: never looked up on PATH.
_SHELL_WORDS = frozenset(
    {"cd", "echo", "exit", "export", "set", "test", "[", "true", "false", ":", ".", "source"}
    | {"fi", "for", "done", "case", "esac", "in", "read", "printf", "eval", "exec", "unset"}
    | {"shift", "return", "}"}
)


def missing_programs(command: str) -> list[str]:
    """The programs a `command` assertion starts that this machine's PATH lacks (the check
    then finds them missing too): each simple command's first word that is not the shell's own,
    an assignment or a path (a path is a file the agent should have written)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return []  # an unbalanced quote: no guess
    missing: list[str] = []
    at_start = True
    for token in tokens:
        if token in _CONTROL_OPERATORS:
            at_start = True
            continue
        if not at_start or re.fullmatch(r"[A-Za-z_]\w*=.*", token) or token in _LEADING_WORDS:
            continue
        at_start = False
        if token in _SHELL_WORDS or token in missing or not re.fullmatch(r"[\w.+-]+", token):
            continue  # the shell's own, already named, a path or a placeholder
        if shutil.which(token) is None:
            missing.append(token)
    return missing


def _check(
    source: _Source,
    at: PathKey,
    kind: str,
    value: dict[str, Any],
    note: str,
    diagnostics: Diagnostics,
) -> Check | None:
    def text(key: str) -> str | None:
        found = value.get(key)
        if found is not None and not isinstance(found, str):
            diagnostics.error(
                source.error((*at, key), f"expected a string, got {type_name(found)}")
            )
            return None
        if not found:
            diagnostics.error(
                source.error((*at, key), f"a {kind} assertion needs a non-empty `{key}`")
            )
            return None
        return found

    if kind == "command":
        command = text("command")
        code = value.get("expect_exit_code", 0)
        if isinstance(code, bool) or not isinstance(code, int):
            diagnostics.error(source.error((*at, "expect_exit_code"), "expected an integer"))
            return None
        for program in missing_programs(command or ""):
            diagnostics.warn(
                source.error(
                    (*at, "command"),
                    f"`{program}` is not installed on this machine: the check will be blocked"
                    " (environment), not passed",
                )
            )
        installer = _PACKAGE_INSTALL.search(command or "")
        if installer is not None:
            diagnostics.warn(
                source.error(
                    (*at, "command"),
                    f"`{installer.group(0).lstrip(';&|( ')}` needs a network for what is not"
                    " installed here: on a machine without one the check is blocked"
                    " (environment), not passed",
                )
            )
        return (
            CommandCheck(kind="command", command=command, expect_exit_code=code, note=note)
            if command
            else None
        )
    raw = text("path")
    if raw is None:
        return None
    path = raw.removeprefix(OUTPUT_DIR).lstrip("/") or "."
    why = relative_problem(path)
    if why:
        diagnostics.error(source.error((*at, "path"), f"{raw!r} {why}"))
        return None
    negated = kind in ("file_not_exists", "file_not_contains")
    inner = None if negated else note
    if kind in ("file_exists", "file_not_exists"):
        exists = WorkspaceFileExistsCheck(kind="workspace_file_exists", path=path, note=inner)
        return NotCheck.model_validate({"not": exists, "note": note}) if negated else exists
    contains = text("contains")
    if contains is None:
        return None
    has = WorkspaceFileContainsCheck(
        kind="workspace_file_contains", path=path, text=contains, note=inner
    )
    return NotCheck.model_validate({"not": has, "note": note}) if negated else has


def _describe(kind: str, value: dict[str, Any]) -> str:
    if kind in PATTERN_TYPES:
        where = "a command or the final answer" if kind.startswith("behavior") else "the output"
        if kind == "ordered_content":
            return f"the output matches {', then '.join(map(str, value.get('patterns') or []))}"
        negated = " does not match" if kind.endswith("_not_contains") else " matches"
        return f"{where}{negated} /{value.get('pattern')}/"
    return {
        "file_exists": f"{value.get('path')} exists",
        "file_not_exists": f"{value.get('path')} does not exist",
        "file_contains": f"{value.get('path')} contains {value.get('contains')!r}",
        "file_not_contains": f"{value.get('path')} does not contain {value.get('contains')!r}",
        "command": f"`{value.get('command')}` exits {value.get('expect_exit_code', 0)}",
    }[kind]


def _files(
    source: _Source,
    at: PathKey,
    value: object,
    workspace: Path,
    skill_dir: Path,
    prompt: str,
    skill_refs: list[str],
    diagnostics: Diagnostics,
) -> CaseSetup | None:
    """`files`: paths relative to the skill folder (skill-creator's rule; else to the evals
    file's folder, else its parent), copied to the same relative paths; `{path, content}`
    objects are written as given. A file of the skill itself (outside the evals folder: its
    SKILL.md, a reference) that the prompt does not name is not copied: it is a document the
    expected output rests on, which every workspace holds already in the skill and a no-skill
    variant must not get; it is added to `skill_refs`, the case's references. One the prompt
    names ("read the local SKILL.md") is the task's input and is copied."""
    if value is None:
        return CaseSetup()
    if not isinstance(value, list):
        diagnostics.error(source.error(at, "expected a list of paths"))
        return None
    copies: list[CopyFixture] = []
    writes: list[WriteFile] = []
    for number, item in enumerate(value):
        where = (*at, number)
        if isinstance(item, dict) and "content" not in item and isinstance(item.get("path"), str):
            # `{path, purpose}`: a file of the repo to copy, with a note on what it is for
            unknown = [key for key in item if key not in ("path", *FILE_NOTE_KEYS)]
            if unknown:
                diagnostics.error(
                    source.key_error(
                        (*where, unknown[0]),
                        unknown_key_message(str(unknown[0]), ("path", "content", *FILE_NOTE_KEYS)),
                    )
                )
                return None
            item = item["path"]
        if isinstance(item, dict):
            for key in item:
                if key not in (*INLINE_FILE_KEYS, *FILE_NOTE_KEYS):
                    diagnostics.error(
                        source.key_error(
                            (*where, key), unknown_key_message(str(key), INLINE_FILE_KEYS)
                        )
                    )
                    return None
            path, content = item.get("path"), item.get("content", "")
            if not isinstance(path, str) or not isinstance(content, str):
                key, found = ("path", path) if not isinstance(path, str) else ("content", content)
                problem = (
                    "required field is missing"
                    if key not in item
                    else f"expected a string, got {type_name(found)}"
                )
                diagnostics.error(source.error((*where, key), problem))
                return None
            why = relative_problem(path)
            if why:
                diagnostics.error(source.error((*where, "path"), f"{path!r} {why}"))
                return None
            writes.append(WriteFile(path=path, content=content))
            continue
        if not isinstance(item, str):
            diagnostics.error(source.error(where, "expected a path or a `{path, content}` object"))
            return None
        why = relative_problem(item)
        if why:
            diagnostics.error(source.error(where, f"{item!r} {why}"))
            return None
        bases = (skill_dir, source.path.parent.resolve(), source.path.parent.resolve().parent)
        found = next((b / item for b in bases if (b / item).exists()), None)
        below = PurePosixPath(item).parts[1:]
        if found is None and below and (workspace.joinpath(*below)).exists():
            # Written from the folder holding the repo (`sysml/evals/x` where the repo is
            # checked out as `sysml/`): its first folder is the repo's own, under another name.
            # The prompt names the path as written, so the file is placed there.
            found = workspace.joinpath(*below)
            diagnostics.warn(
                source.error(
                    where,
                    f"{item}: found as {'/'.join(below)} (its first folder read as this repo's"
                    " own, checked out under another name); placed at the path as written",
                )
            )
        if found is None or not (
            found.resolve() == workspace or workspace in found.resolve().parents
        ):
            diagnostics.error(
                source.error(where, f"file not found beside the skill or the evals file: {item}")
            )
            return None
        odd = _not_plain(found)
        if odd is not None:
            diagnostics.error(
                source.error(where, f"{item}: {odd} (only regular files and folders are copied)")
            )
            return None
        real = found.resolve()
        evals_folder = source.path.parent.resolve()
        named = item in prompt or PurePosixPath(item).name in prompt
        if skill_dir in real.parents and evals_folder not in (real, *real.parents) and not named:
            skill_refs.append(real.relative_to(skill_dir).as_posix())
            continue
        relative = real.relative_to(workspace).as_posix()
        copies.append(CopyFixture(source=relative, target=item))
    return CaseSetup(copy_fixtures=copies or None, write_files=writes or None)


def _not_plain(path: Path) -> str | None:
    """What in a `files` entry the workspace builder would refuse to copy (a FIFO, a socket, a
    device, a symlink inside a folder), said at `validate` rather than when a run builds its
    first workspace; None when it is all regular files and folders."""
    found = path.resolve()
    if found.is_dir():
        for directory, subdirs, names in os.walk(found):
            for name in sorted([*subdirs, *names]):
                entry = Path(directory) / name
                mode = entry.lstat().st_mode
                if stat.S_ISLNK(mode):
                    return f"{entry.relative_to(found).as_posix()} inside it is a symlink"
                if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    return f"{entry.relative_to(found).as_posix()} inside it is not a regular file"
        return None
    if not stat.S_ISREG(found.stat().st_mode):
        return "not a regular file (a FIFO, a socket or a device)"
    return None
