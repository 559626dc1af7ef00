"""Checks on the workspace as the agent left it: a file exists, a file contains a text, a file's
content matches a pattern."""

from __future__ import annotations

import glob
from collections.abc import Callable
from pathlib import Path

from evaluator.contract.models import (
    WorkspaceFileContainsCheck,
    WorkspaceFileExistsCheck,
    WorkspaceFileMatchesCheck,
)
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.patterns import compile_pattern


def _files(context: JudgeContext, pattern: str) -> list[str]:
    """Matching files as workspace paths (also when read from a restored snapshot)."""
    root = str(context.file_root)
    matches = glob.glob(str(context.file_root / pattern), recursive=True)
    named = [str(context.workspace) + m[len(root) :] for m in matches if m.startswith(root)]
    return sorted(m for m in named if context.relative(m) is not None)


def _write_refs(context: JudgeContext, pattern: str) -> list[str]:
    return [context.ref(r) for r in context.matching(context.writes(), pattern)]


def session_end(context: JudgeContext) -> list[str]:
    """The session's final answer: what a verdict on the workspace cites when no write of the
    agent touched the file (the session ended there without making it)."""
    return [context.ref(r) for r in context.evidence.of_kind("final_answer")[-1:]]


def _unavailable(kind: str) -> CheckVerdict:
    return blocked(kind, "the attempt workspace is no longer on disk")


@register_check("workspace_file_exists")
def exists(check: WorkspaceFileExistsCheck, context: JudgeContext) -> CheckVerdict:
    if not context.workspace_available:
        return _unavailable("workspace_file_exists")
    found = _files(context, check.path)
    refs = _write_refs(context, check.path)
    if found:
        names = ", ".join(context.relative(f) or f for f in found)
        return passed(
            "workspace_file_exists",
            f"workspace holds {names}",
            [
                *(refs or session_end(context)),
                *(f"workspace-files:{context.relative(f)}" for f in found),
            ],
        )
    return failed(
        "workspace_file_exists",
        f"no file matching {check.path} in the workspace",
        refs or session_end(context),
    )


@register_check("workspace_file_contains")
def contains(check: WorkspaceFileContainsCheck, context: JudgeContext) -> CheckVerdict:
    text = check.text

    def found(content: str) -> str | None:
        return text if text in content else None

    return _content_check("workspace_file_contains", check.path, repr(text), found, context)


@register_check("workspace_file_matches")
def matches(check: WorkspaceFileMatchesCheck, context: JudgeContext) -> CheckVerdict:
    pattern = compile_pattern(check.pattern)  # RE2: linear in the file, whatever the pattern
    return _content_check(
        "workspace_file_matches", check.path, f"/{check.pattern}/", pattern.search, context
    )


def _content_check(
    kind: str,
    glob: str,
    wanted: str,
    find: Callable[[str], str | None],
    context: JudgeContext,
) -> CheckVerdict:
    """Passes when a workspace file matching `glob` has content in which `find` finds what is
    `wanted`; blocked when a matching file's content was not kept; fails otherwise."""
    if not context.workspace_available:
        return _unavailable(kind)
    files = _files(context, glob)
    refs = _write_refs(context, glob)
    if not files:
        return failed(
            kind, f"no file matching {glob} in the workspace", refs or session_end(context)
        )
    unknown = []
    for path in files:
        if context.relative(path) in context.without_content:
            unknown.append(path)
            continue
        try:
            content = Path(context.on_disk(path)).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        shown = find(content)
        if shown is not None:
            rel = context.relative(path)
            what = wanted if shown == wanted.strip("'\"") else f"{wanted} ({shown!r})"
            return passed(
                kind,
                f"{rel} contains {what}",
                [*(refs or session_end(context)), f"workspace-files:{rel}"],
            )
    if unknown:
        names = ", ".join(context.relative(f) or f for f in unknown)
        return blocked(
            kind,
            f"the content of {names} was not kept in the workspace snapshot (size limits)",
            refs,
        )
    names = ", ".join(context.relative(f) or f for f in files)
    verb = "does" if len(files) == 1 else "do"
    return failed(kind, f"{names} {verb} not contain {wanted}", refs or session_end(context))
