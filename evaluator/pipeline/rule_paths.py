"""Compiled prose that names a file no workspace can hold: a located `validate` warning.

`checks:` whose read path matches no file the workspace can contain are refused by the loader
(`repo/loader.py`, `_check_paths_exist`). A sentence the rules compile ("Shows consultation of
`references/doc-blueprint.md`", one letter off) becomes the same check, so a required entry
fails and a forbidden or "never" one holds whatever the agent does; only the run's report
showed it, after the run. The sentences are compiled here as the run's judge compiles them
(the target skill's vocabulary), and each read of a path that matches nothing is named."""

from __future__ import annotations

from pathlib import Path

from evaluator.contract.models import (
    AllOfCheck,
    AnyOfCheck,
    Check,
    FileReadCheck,
    NotCheck,
    ReadBeforeCheck,
)
from evaluator.contract.paths import path_matches
from evaluator.errors import InputError
from evaluator.judge.chain import plan_entries
from evaluator.judge.skill_vocabulary import skill_vocabulary
from evaluator.repo.loader import linked_path_hint, workspace_files
from evaluator.repo.model import LoadedCase, LoadedTarget
from evaluator.yamlsource import PathKey


def _read_paths(check: Check) -> list[str]:
    """The paths the check's reads name; an `any_of` is left out, since one alternative that
    names no file does not make the others vacuous."""
    if isinstance(check, FileReadCheck):
        return [check.path]
    if isinstance(check, ReadBeforeCheck):
        return [check.first, check.then]
    if isinstance(check, NotCheck):
        return _read_paths(check.operand)
    if isinstance(check, AllOfCheck):
        return [path for operand in check.operands for path in _read_paths(operand)]
    if isinstance(check, AnyOfCheck):
        return []
    return []


def rule_path_problems(
    target: LoadedTarget, source_workspace: Path, agents: tuple[str, ...]
) -> list[InputError]:
    """One warning per compiled sentence whose read names a path no workspace file matches."""
    if target.skill_files is None:
        return []
    vocabulary = skill_vocabulary(target.entry_skill_path(source_workspace), agents)
    problems: list[InputError] = []
    for case in target.all_cases():
        files: list[str] | None = None
        for plan in plan_entries(case.case, False, vocabulary):
            if plan.pending.entry.checks:
                continue
            for provenance in plan.provenance:
                for check in provenance.checks:
                    for path in _read_paths(check):
                        files = workspace_files(case, target) if files is None else files
                        if any(path_matches(f, path) for f in files):
                            continue
                        problems.append(
                            _located(
                                case,
                                plan.pending.entry_id,
                                provenance.role,
                                provenance.sentence,
                                path,
                                linked_path_hint(path, target, files),
                            )
                        )
    return problems


def _located(
    case: LoadedCase, entry_id: str, role: str, sentence: str, path: str, hint: str
) -> InputError:
    polarity, _, rest = entry_id.partition("[")
    index = int(rest.rstrip("]"))
    entry = getattr(case.case.assertions, polarity)[index]
    key: PathKey = ("assert", polarity, index, role)
    if role in ("pass_criteria", "fail_signals"):
        sentences = getattr(entry, role)
        key = (*key, sentences.index(sentence)) if sentence in sentences else key
    message = (
        f"{sentence!r} compiles to a read of {path!r}, which matches no file the workspace can"
        " contain (the skill's files, setup files and fixtures): a required entry fails and a"
        " forbidden or negated one holds, whatever the agent does" + hint
    )
    if case.at:
        # A case of a file holding many (an evals.json): the sentence where the file has it.
        return case.doc.error(_sentence_key(case, sentence), f"{case.case_id}: {message}")
    return case.doc.error(key, message)


def _sentence_key(case: LoadedCase, sentence: str) -> PathKey:
    """The place of `sentence` among the eval's own lists (`expectations`, `fail`, ...), else
    the eval itself."""
    item = case.doc.data
    if isinstance(item, dict):
        for name, value in item.items():
            if isinstance(value, list) and sentence in value:
                return (*case.at, name, value.index(sentence))
    return case.at
