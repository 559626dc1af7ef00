"""`file_read`: the agent saw a file's content (path or glob, workspace-relative).

When the session records tool outputs, the content they showed decides (`judge/consultation.py`),
whatever tool printed it; a share of the file or one section can be asked for. The table of what
each command reads decides only for a session without outputs, or a file whose content cannot be
compared. The verdict's `proof` says which did.
"""

from __future__ import annotations

from evaluator.contract.models import FileReadCheck
from evaluator.contract.sections import section_lines
from evaluator.evidence.content import Shown
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.registry import register_check
from evaluator.judge.consultation import Consultation, consultation, first_writes
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed

KIND = "file_read"
# The sources of the reads the shell analysis finds in a command or a script the session wrote
# (`evidence/builder.py`), whose outcome is their command's.
COMMAND_ANALYSIS = frozenset({"shell-parse", "script-content"})


@register_check(KIND)
def file_read(check: FileReadCheck, context: JudgeContext) -> CheckVerdict:
    shown = consultation(context)
    if shown is None:
        return _by_commands(check, context, "the session records no tool outputs")
    comparable, unknown = shown.matching(check.path)
    if not comparable:
        why = (
            f"the content of {', '.join(unknown)} cannot be compared"
            if unknown
            else f"no file matching {check.path} is in the workspace to compare outputs with"
        )
        return _by_commands(check, context, why, present=bool(unknown))
    verdict = _by_content(check, context, shown, comparable)
    if verdict.status == "pass" or not unknown:
        return verdict
    table = _by_commands(check, context, f"the content of {', '.join(unknown)} cannot be compared")
    return table if table.status == "pass" else verdict


def _wanted(check: FileReadCheck) -> str:
    scope = f"section {check.section!r} of {check.path}" if check.section else check.path
    if check.min_share is None:
        return scope
    return f"{check.min_share:.0%} of {scope}"


def _by_content(
    check: FileReadCheck, context: JudgeContext, shown: Consultation, files: list[Shown]
) -> CheckVerdict:
    notes: list[str] = []
    for file in files:
        lines = None
        if check.section is not None:
            lines = section_lines(shown.texts[file.path], check.section)
            if lines is None:
                notes.append(f"{file.path} has no section {check.section!r}")
                continue
        share = file.share(lines)
        enough = (
            share >= check.min_share
            if check.min_share is not None
            else (file.reached if lines is None else share > 0)
        )
        if enough:
            where = f" ({check.section})" if check.section else ""
            return _content(
                passed(
                    KIND,
                    f"{file.path}{where} reached the agent: {share:.0%} of its lines shown,"
                    f" first in {file.first.ref if file.first else '?'}",
                    shown.cite(context, file.refs, check.path),
                )
            )
        if file.reached:
            notes.append(f"{file.path}: {share:.0%} of the lines asked for reached the agent")
        elif file.withheld:
            notes.append(f"{file.path}: {file.withheld}")
    touched = context.matching(context.evidence.of_kind("file_read_observed"), check.path)
    refs = [ref for file in files for ref in shown.cite(context, file.refs, check.path)]
    refs += [context.ref(r) for r in touched]
    if shown.cut:
        return _content(
            blocked(
                KIND,
                f"{_wanted(check)} not seen in the outputs kept, which are excerpts"
                " (the session file is gone)",
                refs,
            )
        )
    if notes:
        detail = f"{_wanted(check)} did not reach the agent: {'; '.join(notes)}"
    elif touched:
        # Touching a file (`head -c 0`, `wc -l`, a copy) showed none of its content.
        accesses = ", ".join(sorted({r.access or "?" for r in touched}))
        detail = f"{check.path} was touched ({accesses}) but its content never reached the agent"
    else:
        detail = f"no read of {check.path} was observed"
    verdict = _content(failed(KIND, detail, refs))
    verdict._unrecognised_reads = _unrecognised_reads(check, context)
    return verdict


def _unrecognised_reads(check: FileReadCheck, context: JudgeContext) -> list[str]:
    """The table's reads of the file (commands whose output carries its content, by the
    table) before the agent first wrote it: their output reached the agent, transformed."""
    written = first_writes(context)
    return [
        context.ref(record)
        for record in context.matching(context.reads(), check.path)
        if record.path is None
        or record.line < written.get(context.relative(record.path) or "", record.line + 1)
    ]


def _content(verdict: CheckVerdict) -> CheckVerdict:
    return verdict.model_copy(update={"proof": "content"})


def _by_commands(
    check: FileReadCheck, context: JudgeContext, why: str, *, present: bool = False
) -> CheckVerdict:
    """`present`: a matching file is in the workspace, its content not comparable (not text)."""
    verdict = _command_table(check, context, why, present)
    return verdict.model_copy(update={"proof": "commands"})


def _command_table(
    check: FileReadCheck, context: JudgeContext, why: str, present: bool
) -> CheckVerdict:
    every = context.matching(context.reads(), check.path)
    # A read whose command failed (`cat: x: No such file or directory`, exit 1) showed nothing:
    # the table may only count the ones that took, or whose outcome is not known.
    hits = [r for r in every if context.outcome(r) != "failed"]
    if every and not hits:
        verdict = failed(
            KIND,
            f"{check.path}: the read by {every[0].detail or every[0].source} failed, so none of"
            f" its content reached the agent ({why})",
            [context.ref(r) for r in every],
        )
        if present:
            # A command's read of a file that is there, failed by the command's exit code,
            # which is the whole command's: `cat F missing.md` prints F, then fails on the other
            # file. No read for a required entry; for a forbidden one, still a read (a read
            # tool's own result is the file's). A file that is not there showed nothing.
            verdict._unrecognised_reads = [
                context.ref(r) for r in every if r.source in COMMAND_ANALYSIS
            ]
        return verdict
    if hits:
        refs = [context.ref(r) for r in hits]
        if check.min_share is not None or check.section is not None:
            # A command that reads a file may show any part of it: the table cannot tell which.
            return blocked(
                KIND,
                f"{check.path} read by {hits[0].detail or hits[0].source}, but {why}: how much"
                " of it was shown cannot be told",
                refs,
            )
        return passed(
            KIND, f"{check.path} read by {hits[0].detail or hits[0].source} ({why})", refs
        )
    touched = context.matching(context.evidence.of_kind("file_read_observed"), check.path)
    if touched:
        # Touching a file (`stat`, `wc -l`, a listing) never showed its content to the agent.
        accesses = ", ".join(sorted({r.access or "?" for r in touched}))
        return failed(
            KIND,
            f"{check.path} was touched ({accesses}) but its content never reached the agent",
            [context.ref(r) for r in touched],
        )
    return failed(KIND, f"no read of {check.path} was observed")
