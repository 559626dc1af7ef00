"""Checking a judge's answer before it counts.

A judge's reply is a claim like any other: it counts only when it is well formed and the records
it cites exist and can show what the assertion is about. What an assertion is about is read from
the author's text, not from the judge's answer, which could dodge the check.

A `met` must cite, when the assertion mentions
- consulting/reading/opening a file: when the session records tool outputs, a record of a call
  whose output showed the content of a file it names (any file, if it names none); otherwise a
  `file_read_observed` record with access `read`, of a file it names if it names one;
- an order ("before", "after", "first"): two or more records in the order they happened, and the
  paths it names in the order it names them;
- running a command: a `command_observed` or `tool_call` record; when it names files, a record
  about one of them (a command naming it, an access to it);
- the final answer, what the agent told the user: the `final_answer` record;
- always: at least one record of what the agent did (not only the session's start or end).

Every cited id must exist, whatever the verdict. A `met` that fails any rule becomes
`cannot-judge`; so does a reply that is not JSON or does not match the answer schema.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from evaluator.evidence.jsonl import loads
from evaluator.evidence.shell import analyze_command
from evaluator.evidence.shell.results import Invocation
from evaluator.grader.bundle import named_paths
from evaluator.grader.prompt import ANSWER_SCHEMA
from evaluator.judge.base import path_matches
from evaluator.judge.grading import GradeItem, GradeVerdict

CONSULTS = re.compile(
    r"\b(consult(s|ed|ing|ation)?|read(s|ing)?|opened|opens|opening|inspect(s|ed|ing|ion)?|"
    r"load(s|ed|ing)?|view(s|ed|ing)?|look(s|ed)? at)\b|读取|阅读|查看|打开|参考",
    re.IGNORECASE,
)
ORDERS = re.compile(
    r"\b(before|after|first|then|prior to|followed by|until)\b|之前|之后|先|首先", re.IGNORECASE
)
COMMANDS = re.compile(
    r"\b(command\w*|run|runs|ran|running|invok\w*|execut\w*)\b|命令|运行|执行", re.IGNORECASE
)
ANSWERS = re.compile(
    r"\b(final answer|answer(s|ed)?|repl(y|ies|ied)|respon(d|ds|ded|se)|tell(s|ing)?|told|"
    r"mention(s|ed)?|recommend(s|ed)?|ask(s|ed)? the user|says|explain(s|ed)?|summar\w*)\b|回答|答复|回复|告诉|说明",
    re.IGNORECASE,
)
# A claim that says a named file is written ("ran and wrote `out.json`", "wrote `gen.py` and
# ran it"): a write of it is part of what the claim is about.
WRITES = re.compile(
    r"\b(writ(e|es|ing|ten)|wrote|creat(e|es|ed|ing)|generat(e|es|ed|ing)|produc(e|es|ed|ing)|"
    r"sav(e|es|ed|ing))\b|写入|生成|创建",
    re.IGNORECASE,
)
CONTENT_KINDS = (
    "tool_call",
    "tool_result",
    "tool_workdir_observed",
    "command_observed",
    "file_read_observed",
    "file_write_observed",
    "final_answer",
)


@dataclass
class Verification:
    verdict: GradeVerdict  # after verification
    answered: GradeVerdict | None  # what the judge said, if it said anything well formed
    rationale: str
    refs: tuple[str, ...]
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _number(ref: str) -> int:
    return int(ref.split("-", 1)[1])


def _relative(path: str, workspace: str) -> str | None:
    root = workspace.rstrip("/")
    if path.startswith(root + "/"):
        return path[len(root) + 1 :]
    return None


def verify_answer(
    raw: str, item: GradeItem, records: dict[str, dict[str, Any]], workspace: str
) -> Verification:
    try:
        answer = loads(raw)
    except ValueError:
        return Verification("cannot-judge", None, "", (), ["the reply is not JSON"])
    errors = sorted(
        jsonschema.Draft202012Validator(ANSWER_SCHEMA).iter_errors(answer), key=lambda e: e.path
    )
    if errors:
        where = "/".join(str(p) for p in errors[0].absolute_path) or "(top)"
        return Verification(
            "cannot-judge",
            None,
            "",
            (),
            [f"the reply does not match the answer schema at {where}: {errors[0].message}"],
        )
    verdict: GradeVerdict = answer["verdict"]
    refs = tuple(answer["refs"])
    result = Verification(verdict, verdict, answer["rationale"], refs)
    missing = [ref for ref in refs if ref not in records]
    if missing:
        result.problems.append(f"cites records that do not exist: {', '.join(missing)}")
    elif verdict == "met":
        result.problems.extend(
            support_problems(item, [records[r] for r in refs], workspace, records)
        )
    if result.problems:
        result.verdict = "cannot-judge"
    return result


def _content_problems(
    item: GradeItem, cited: list[dict[str, Any]], records: dict[str, dict[str, Any]]
) -> list[str]:
    """A consultation claim on a session that records tool outputs holds only by a call whose
    output showed the content of a file it names (any file, if it names none): its output,
    command or read record may be cited. A read that showed nothing (`head -c 0 X`) is none."""
    assert item.shown is not None
    paths = named_paths([item])
    files = [p for p in item.shown if not paths or any(path_matches(p, q) for q in paths)]
    outputs = {ref for p in files for ref in item.shown[p]}
    calls = {str(records[ref].get("call_id")) for ref in outputs if ref in records}
    if any(r["id"] in outputs or str(r.get("call_id")) in calls for r in cited):
        return []
    named = f" of {', '.join(paths)}" if paths else ""
    return [
        f"a consultation claim needs a cited tool call whose output showed the content{named};"
        f" none of {', '.join(str(r['id']) for r in cited)} is one"
    ]


def support_problems(
    item: GradeItem,
    cited: list[dict[str, Any]],
    workspace: str,
    records: dict[str, dict[str, Any]],
) -> list[str]:
    text = item.text
    if not cited:
        return ["a `met` cites no record"]
    problems: list[str] = []
    if CONSULTS.search(text) and item.shown is not None:
        problems.extend(_content_problems(item, cited, records))
    elif CONSULTS.search(text):
        reads = [
            r for r in cited if r.get("kind") == "file_read_observed" and r.get("access") == "read"
        ]
        paths = named_paths([item])
        if paths:
            reads = [
                r
                for r in reads
                if (relative := _relative(str(r.get("path") or ""), workspace)) is not None
                and any(path_matches(relative, p) for p in paths)
            ]
        if not reads:
            named = f" of {', '.join(paths)}" if paths else ""
            problems.append(
                f"a consultation claim needs a cited `file_read_observed` record with access"
                f" `read`{named}; none of {', '.join(str(r['id']) for r in cited)} is one"
            )
    if ORDERS.search(text):
        numbers = [_number(str(r["id"])) for r in cited]
        if len(numbers) < 2:
            problems.append("an ordering claim needs at least two cited records")
        elif numbers != sorted(numbers) or len(set(numbers)) != len(numbers):
            problems.append(
                "an ordering claim must cite its records in the order they happened;"
                f" cited {', '.join(str(r['id']) for r in cited)}"
            )
        else:
            problems.extend(_named_order_problems(item, cited, workspace))
    if COMMANDS.search(text) and not any(
        r.get("kind") in ("command_observed", "tool_call") for r in cited
    ):
        problems.append("a command claim needs a cited `command_observed` or `tool_call` record")
    elif COMMANDS.search(text):
        # A claim that also speaks of reading keeps round 11's rule (a read of the file is
        # about it); a claim only of running needs a record of the run (red team 13).
        runs_only = not CONSULTS.search(text)
        problems.extend(_named_run_problems(item, cited, workspace, runs_only, records))
    if ANSWERS.search(text) and not any(r.get("kind") == "final_answer" for r in cited):
        problems.append("a claim about the final answer needs the cited `final_answer` record")
    if not any(r.get("kind") in CONTENT_KINDS for r in cited):
        problems.append("the cited records show nothing the agent did")
    return problems


# What separates the words of a command line (a path is one word of it).
_COMMAND_WORDS = re.compile(r"[\s'\"`;|&()<>=]+")


def _names(record: dict[str, Any], pattern: str, workspace: str) -> bool:
    """Whether a record is about a named path: an access to it, or a command with a word that
    is the path (or, run from its own folder, its file name)."""
    relative = _relative(str(record.get("path") or ""), workspace)
    if relative is not None and path_matches(relative, pattern):
        return True
    command = record.get("command")
    if not isinstance(command, str):
        return False
    name = pattern.rstrip("/").rsplit("/", 1)[-1]
    for word in _COMMAND_WORDS.split(command):
        word = (_relative(word, workspace) or word).removeprefix("./")
        if word and (path_matches(word, pattern) or path_matches(word, name)):
            return True
    return False


def _unmodelled(invocation: Invocation) -> bool:
    """Whether the shell analysis does not know what the invocation's program does with its
    words (`ruff src/app.py`, `make validate`): it may run any file it names."""
    return bool(analyze_command(shlex.join(invocation.words), "/").opaque)


@dataclass(frozen=True)
class _Writes:
    """What the attempt wrote, to tell a named file's run from a run of the agent's own file
    at its name: the session's records (a write record, a command whose shell analysis writes
    the file) and, per tool call, the trace's (`GradeItem.written`)."""

    records: dict[str, dict[str, Any]]
    traced: Mapping[str, frozenset[str]] | None
    workspace: str

    def before(self, path: str, record: dict[str, Any]) -> bool:
        """Whether the attempt wrote `path` (absolute) in the tool call of `record` or before."""
        number, call = _number(str(record["id"])), record.get("call_id")
        if (
            self.traced is not None
            and call is not None
            and path in self.traced.get(str(call), frozenset())
        ):
            return True
        for other in self.records.values():
            same = call is not None and other.get("call_id") == call
            if not same and _number(str(other["id"])) > number:
                continue
            if other.get("kind") == "file_write_observed" and other.get("path") == path:
                return True
            command = other.get("command")
            if isinstance(command, str) and any(
                a.kind == "write" and a.path == path
                for a in analyze_command(
                    command, str(other.get("workdir") or self.workspace)
                ).accesses
            ):
                return True
        return False


def _shows_run(
    record: dict[str, Any], pattern: str, workspace: str, writes: _Writes | None = None
) -> bool:
    """Whether a record shows a named file run (or written: "ran and wrote `out.json`"): an
    `exec` or write access of it, a command whose shell analysis runs it where it surely ran
    (not after `||`, in a branch), or one naming it to a program the analysis does not model.
    A command that only prints, lists or reads it (`echo scripts/validate.py`, `ls`, `cat`)
    runs nothing of it. `writes` (a claim that does not say the file is written): a write of
    the file is no run of it, and a run of a file the attempt wrote in that call or before is
    a run of the agent's own file, not the named one (red team 18: `printf ... >
    scripts/validate.py && python3 scripts/validate.py`)."""

    def own(path: str) -> bool:
        return writes is not None and writes.before(path, record)

    def named(path: str, tree: bool = False) -> bool:
        """`path` is the named one (a named folder holds it; a tree run holds the named one)."""
        relative = _relative(path, workspace)
        if relative is None:
            return False
        folder = pattern.rstrip("/")
        return (
            path_matches(relative, pattern)
            or (pattern.endswith("/") and (relative + "/").startswith(folder + "/"))
            or (tree and pattern.startswith(relative + "/"))
        )

    path = str(record.get("path") or "")
    if named(path):
        if record.get("access") == "exec":
            return not own(path)
        wrote = record.get("access") == "write" or record.get("kind") == "file_write_observed"
        return wrote and writes is None
    command = record.get("command")
    if not isinstance(command, str):
        return False
    analysis = analyze_command(command, str(record.get("workdir") or workspace))
    if any(
        not a.conditional
        and named(a.path)
        and ((a.kind == "exec" and not own(a.path)) or (a.kind == "write" and writes is None))
        for a in analysis.accesses
    ):
        return True
    # A folder of tests or a Makefile's targets (`pytest tests/`): the run carries no place in
    # the line, so it counts only in a line where nothing may go unrun.
    if not any(i.conditional for i in analysis.invocations) and any(
        run.tree and named(run.path, tree=True) for run in analysis.runs
    ):
        return True
    name = pattern.rstrip("/").rsplit("/", 1)[-1]
    workdir = str(record.get("workdir") or workspace).rstrip("/")
    return any(
        any(
            path_matches((_relative(w, workspace) or w).removeprefix("./"), p)
            and not own(w if w.startswith("/") else f"{workdir}/{w.removeprefix('./')}")
            for w in invocation.words[1:]
            for p in (pattern, name)
        )
        and _unmodelled(invocation)
        for invocation in analysis.invocations
        if not invocation.conditional
    )


def _named_run_problems(
    item: GradeItem,
    cited: list[dict[str, Any]],
    workspace: str,
    runs_only: bool = False,
    records: dict[str, dict[str, Any]] | None = None,
) -> list[str]:
    """A claim that something ran which names files (`scripts/validate.py`) holds only by a
    cited record about one of them: a command naming it, or an access to it. Any command was
    enough, so a judge swayed by the agent's words could cite `ls` for a script that never ran
    (red team, round 11). `runs_only` (the claim speaks of running, not of reading): the record
    must show the run (`_shows_run`), since a command naming the script only to print or list
    it (`echo scripts/validate.py # ran`) is as much the agent's words (red team 13)."""
    paths = named_paths([item])
    writes = (
        None
        if WRITES.search(item.text) or records is None
        else _Writes(records, item.written, workspace)
    )

    def about(record: dict[str, Any], pattern: str) -> bool:
        if runs_only:
            # A call that ran the attempt's own code inside its processes (a library it built,
            # preloaded) shows no run of a named file: that code may have ended it first.
            return str(record.get("call_id")) not in item.agents_code and _shows_run(
                record, pattern, workspace, writes
            )
        return _names(record, pattern, workspace)

    if not paths or any(about(r, p) for r in cited for p in paths):
        return []
    if not runs_only:
        what = "a command naming it, or of an access to it"
    elif writes is None:
        what = "a command that runs it, or of an `exec` or a write of it"
    else:
        what = "a command that runs it, or of its `exec`, not of a file the attempt wrote there"
    return [
        f"a claim about running {', '.join(f'`{p}`' for p in paths)} needs a cited record of"
        f" {what}; none of {', '.join(str(r['id']) for r in cited)} is one"
    ]


def _named_order_problems(
    item: GradeItem, cited: list[dict[str, Any]], workspace: str
) -> list[str]:
    """When the assertion names two or more paths ("`A` ... before ... `B/`"), the first cited
    record of each named path must come in the order the author named them."""
    paths = named_paths([item])
    if len(paths) < 2:
        return []
    firsts: list[tuple[str, int]] = []
    for pattern in paths:
        directory = pattern.rstrip("/") + "/*" if pattern.endswith("/") else pattern
        for record in cited:
            relative = _relative(str(record.get("path") or ""), workspace)
            if relative is not None and path_matches(relative, directory):
                firsts.append((pattern, _number(str(record["id"]))))
                break
        else:
            return [f"an ordering claim naming `{pattern}` cites no record of it"]
    numbers = [number for _, number in firsts]
    if numbers != sorted(numbers):
        order = ", ".join(f"`{p}` at msg-{n}" for p, n in firsts)
        return [f"the cited records do not show the named order: {order}"]
    return []
