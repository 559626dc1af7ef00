"""Consultation checks on hand-written Codex rollouts: which proof decides, and how."""

from __future__ import annotations

import base64
import codecs
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import normalize_session, tool_text_source
from evaluator.cli.main import main
from evaluator.contract.models import Case, FileReadCheck, ReadBeforeCheck
from evaluator.evidence.tool_texts import argument_strings
from evaluator.judge import JudgeContext
from evaluator.judge.checks import run_check
from evaluator.judge.verdict import CheckVerdict
from tests.judge.test_consultation_agents import _eval_repo as consultation_repo

SKILL = ".agents/skills/s/SKILL.md"
REF = ".agents/skills/s/references/r.md"
SKILL_TEXT = "# Skill\n\n" + "".join(
    f"Step {n} of the procedure says to check the ledger before closing the books.\n"
    for n in range(1, 61)
)
REF_TEXT = "# Reference\n\nLedgers are kept for seven years in the basement archive room.\n"


def _rollout(
    path: Path,
    workspace: Path,
    calls: list[tuple[str, str | None]],
    exits: dict[int, int] | None = None,
) -> Path:
    """A Codex rollout: one exec_command per (command, output); output None records none.
    `exits`: call index -> its exit code (else 0)."""
    lines: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"id": "t1", "cwd": str(workspace)}},
        {
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": "Close the books."},
        },
    ]
    for n, (command, output) in enumerate(calls):
        arguments = json.dumps({"cmd": command, "workdir": str(workspace)})
        lines.append(
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": arguments,
                    "call_id": f"c{n}",
                },
            }
        )
        if output is not None:
            text = f"Process exited with code {(exits or {}).get(n, 0)}\nOutput:\n{output}"
            lines.append(
                {
                    "type": "response_item",
                    "payload": {"type": "function_call_output", "call_id": f"c{n}", "output": text},
                }
            )
    lines.append({"type": "event_msg", "payload": {"type": "task_complete"}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _workspace(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    for relative, text in ((SKILL, SKILL_TEXT), (REF, REF_TEXT)):
        (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
        (workspace / relative).write_text(text)
    return workspace


def _check(
    tmp_path: Path,
    calls: list[tuple[str, str | None]],
    check: FileReadCheck | ReadBeforeCheck,
    *,
    with_file: bool = True,
    workspace_available: bool = True,
) -> CheckVerdict:
    return run_check(check, _context(tmp_path, calls, with_file, workspace_available))


def _context(
    tmp_path: Path,
    calls: list[tuple[str, str | None]],
    with_file: bool = True,
    workspace_available: bool = True,
    exits: dict[int, int] | None = None,
) -> JudgeContext:
    workspace = _workspace(tmp_path)
    session = _rollout(tmp_path / "rollout.jsonl", workspace, calls, exits)
    return JudgeContext(
        evidence=normalize_session(session),
        workspace=workspace,
        ref_prefix="s.json",
        workspace_available=workspace_available,
        session_texts=tool_text_source(session) if with_file else None,
    )


def _read(**options: Any) -> FileReadCheck:
    return FileReadCheck(kind="file_read", path=SKILL, **options)


def test_content_decides_when_the_session_records_outputs(tmp_path: Path) -> None:
    verdict = _check(tmp_path, [(f"cat {SKILL}", SKILL_TEXT)], _read(min_share=1.0))
    assert (verdict.status, verdict.proof) == ("pass", "content")
    assert verdict.evidence and verdict.evidence[0].startswith("s.json#msg-")


def test_a_read_the_table_counts_that_showed_nothing_fails(tmp_path: Path) -> None:
    verdict = _check(tmp_path, [(f"head -c 0 {SKILL}", "")], _read())
    assert (verdict.status, verdict.proof) == ("fail", "content")
    assert "was touched (read) but its content never reached the agent" in verdict.detail


def test_the_whole_output_is_read_from_the_session_file_not_the_excerpt(tmp_path: Path) -> None:
    # The record keeps 2000 characters of the output: the tail of the file is past them.
    calls = [(f"cat {SKILL}", SKILL_TEXT)]
    whole = _check(tmp_path / "a", calls, _read(min_share=1.0))
    assert whole.status == "pass"
    excerpt = _check(tmp_path / "b", calls, _read(min_share=1.0), with_file=False)
    assert (excerpt.status, excerpt.proof) == ("blocked", "content")
    assert "excerpts" in excerpt.detail
    assert _check(tmp_path / "c", calls, _read(), with_file=False).status == "pass"


def test_the_table_decides_only_when_the_session_records_no_outputs(tmp_path: Path) -> None:
    verdict = _check(tmp_path, [(f"cat {SKILL}", None)], _read())
    assert (verdict.status, verdict.proof) == ("pass", "commands")
    assert "records no tool outputs" in verdict.detail
    # The table cannot tell how much a command showed.
    share = _check(tmp_path / "b", [(f"cat {SKILL}", None)], _read(min_share=0.5))
    assert (share.status, share.proof) == ("blocked", "commands")


def test_a_workspace_that_is_gone_leaves_it_to_the_table(tmp_path: Path) -> None:
    verdict = _check(tmp_path, [(f"cat {SKILL}", "")], _read(), workspace_available=False)
    assert (verdict.status, verdict.proof) == ("pass", "commands")


def test_a_section_is_judged_on_its_own_lines(tmp_path: Path) -> None:
    text = REF_TEXT + "\n## Keeping\n\nBoxes are labelled with the year and the auditor name.\n"
    calls = [(f"sed -n '/## Keeping/,$p' {REF}", "\n".join(text.splitlines()[4:]))]
    workspace = _workspace(tmp_path)
    (workspace / REF).write_text(text)
    session = _rollout(tmp_path / "rollout.jsonl", workspace, calls)
    context = JudgeContext(
        normalize_session(session), workspace, "s.json", session_texts=tool_text_source(session)
    )
    keeping = FileReadCheck(kind="file_read", path=REF, section="## Keeping", min_share=1.0)
    assert run_check(keeping, context).status == "pass"
    whole = FileReadCheck(kind="file_read", path=REF, min_share=1.0)
    assert run_check(whole, context).status == "fail"
    missing = FileReadCheck(kind="file_read", path=REF, section="## Nowhere")
    assert "has no section" in run_check(missing, context).detail


def test_read_before_uses_the_first_output_that_showed_content(tmp_path: Path) -> None:
    calls: list[tuple[str, str | None]] = [
        (f"head -n 0 {SKILL} && cat {REF}", REF_TEXT),
        (f"cat {SKILL}", SKILL_TEXT),
    ]
    check = ReadBeforeCheck(kind="read_before", first=SKILL, then=REF)
    verdict = _check(tmp_path, calls, check)
    assert (verdict.status, verdict.proof) == ("fail", "content")
    # The command table alone would have said SKILL.md came first.
    table = _check(tmp_path / "b", [(c, None) for c, _ in calls], check)
    assert (table.status, table.proof) == ("pass", "commands")


@pytest.mark.parametrize("together", ["one turn", "one command"])
def test_reads_asked_for_together_are_not_one_before_the_other(
    tmp_path: Path, together: str
) -> None:
    """The agent asked for the reference before SKILL.md's content reached it: two calls of one
    turn (both outputs after both calls), or `cat SKILL.md REF` (red team, round 5; before: pass
    by the outputs' order). Asked for one after the other, the order holds."""
    check = ReadBeforeCheck(kind="read_before", first=SKILL, then=REF)
    workspace = _workspace(tmp_path)
    if together == "one turn":
        session = _rollout(
            tmp_path / "rollout.jsonl",
            workspace,
            [(f"cat {SKILL}", SKILL_TEXT), (f"cat {REF}", REF_TEXT)],
        )
        lines = session.read_text().splitlines(keepends=True)
        # meta, prompt, call 0, output 0, call 1, output 1, end -> both calls, then both outputs
        session.write_text("".join([*lines[:3], lines[4], lines[3], lines[5], lines[6]]))
    else:
        session = _rollout(
            tmp_path / "rollout.jsonl", workspace, [(f"cat {SKILL} {REF}", SKILL_TEXT + REF_TEXT)]
        )
    context = JudgeContext(
        evidence=normalize_session(session),
        workspace=workspace,
        ref_prefix="s.json",
        session_texts=tool_text_source(session),
    )
    verdict = run_check(check, context)
    assert (verdict.status, verdict.proof) == ("fail", "content"), verdict.detail
    assert "asked for at once" in verdict.detail
    apart = [(f"cat {SKILL}", SKILL_TEXT), (f"cat {REF}", REF_TEXT)]
    assert _check(tmp_path / "b", apart, check).status == "pass"


def test_validate_refuses_a_section_no_file_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, source, _ = consultation_repo(tmp_path)
    case = repo / "targets/notes/cases/reads/section-only.yaml"
    data = json.loads(case.read_text())
    data["assert"]["required"][0]["checks"][0]["section"] = "## Routng"
    case.write_text(json.dumps(data))
    with pytest.raises(SystemExit) as exit_info:
        main(["validate", "--repo", str(repo), "--source-workspace", str(source)])
    assert exit_info.value.code == 2
    assert "has a section '## Routng'" in capsys.readouterr().err
    data["assert"]["required"][0]["checks"][0]["section"] = "Routing"  # any level
    case.write_text(json.dumps(data))
    with pytest.raises(SystemExit) as exit_info:
        main(["validate", "--repo", str(repo), "--source-workspace", str(source)])
    assert exit_info.value.code == 0, capsys.readouterr().err


def test_tool_arguments_nested_without_end_are_read_without_recursion() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert list(argument_strings(deep)) == [deep]
    nested = {"cmd": "cat a", "x": ["b", {"c": "d"}], "j": json.dumps({"k": "v"})}
    assert list(argument_strings(nested)) == ["cat a", "b", "d", "v"]


def test_a_file_content_cannot_compare_is_left_to_the_table(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    (workspace / "logo.bin").write_bytes(b"\x89PNG\0\0binary")
    session = _rollout(tmp_path / "rollout.jsonl", workspace, [("cat logo.bin", "\ufffdPNG")])
    context = JudgeContext(
        normalize_session(session), workspace, "s.json", session_texts=tool_text_source(session)
    )
    verdict = run_check(FileReadCheck(kind="file_read", path="logo.bin"), context)
    assert (verdict.status, verdict.proof) == ("pass", "commands")
    assert "cannot be compared" in verdict.detail


def _claude_transcript(path: Path, workspace: Path, skill_message: bool) -> Path:
    """A Claude Code transcript calling the `Skill` tool: its result only says the skill is
    launching; the body comes after, as the meta message Claude Code sends for the call."""
    common = {"sessionId": "s1", "cwd": str(workspace), "version": "2.1.197"}
    prompt = {"role": "user", "content": "Close the books."}
    use = {"type": "tool_use", "id": "toolu_1", "name": "Skill", "input": {"skill": "s"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Launching skill: s"}
    body = f"Base directory for this skill: {workspace}/.claude/skills/s\n\n{SKILL_TEXT}"
    lines: list[dict[str, Any]] = [
        {"type": "user", "parentUuid": None, "uuid": "u1", "message": prompt},
        {
            "type": "assistant",
            "parentUuid": "u1",
            "uuid": "a1",
            "message": {"id": "m1", "role": "assistant", "content": [use]},
        },
        {
            "type": "user",
            "parentUuid": "a1",
            "uuid": "u2",
            "message": {"role": "user", "content": [result]},
            "toolUseResult": {"success": True, "commandName": "s"},
        },
    ]
    if skill_message:
        lines.append(
            {
                "type": "user",
                "parentUuid": "u2",
                "uuid": "u3",
                "isMeta": True,
                "sourceToolUseID": "toolu_1",
                "message": {"role": "user", "content": [{"type": "text", "text": body}]},
            }
        )
    final = {"type": "text", "text": "Closed."}
    lines.append(
        {
            "type": "assistant",
            "parentUuid": "u3",
            "uuid": "a2",
            "message": {"id": "m2", "role": "assistant", "content": [final]},
        }
    )
    path.write_text("".join(json.dumps(common | line) + "\n" for line in lines))
    return path


@pytest.mark.parametrize("skill_message", [True, False])
def test_the_claude_skill_tools_message_is_content_that_reached_the_agent(
    tmp_path: Path, skill_message: bool
) -> None:
    workspace = _workspace(tmp_path)
    session = _claude_transcript(tmp_path / "s1.jsonl", workspace, skill_message)
    context = JudgeContext(
        evidence=normalize_session(session),
        workspace=workspace,
        ref_prefix="s.json",
        session_texts=tool_text_source(session),
    )
    verdict = run_check(_read(min_share=1.0), context)
    assert verdict.proof == "content"
    assert verdict.status == ("pass" if skill_message else "fail")
    if skill_message:  # cited by the Skill call's own records
        assert verdict.evidence and all(e.startswith("s.json#msg-") for e in verdict.evidence)


def _judged(tmp_path: Path, calls: list[tuple[str, str | None]], command: str) -> Any:
    from evaluator.contract.models import Case
    from evaluator.judge import judge_case

    context = _context(tmp_path, calls)
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {
                "required": [
                    {
                        "description": "d",
                        "checks": [{"kind": "command_ran", "pattern": command}],
                    }
                ]
            },
        }
    )
    return judge_case(case, context)


def test_a_failed_case_says_which_files_reached_the_agent(tmp_path: Path) -> None:
    calls = [
        (f"head -c 0 {REF}", ""),  # touched, showed nothing
        (f"sed -n 1,30p {SKILL}", "\n".join(SKILL_TEXT.splitlines()[:30])),
        (f"cat {REF}", REF_TEXT),
    ]
    judgement = _judged(tmp_path, calls, "make")
    assert judgement.status == "fail"
    assert [f.path for f in judgement.shown] == [SKILL, REF]  # in the order it saw them
    assert 0.4 < judgement.shown[0].share < 0.5 and judgement.shown[1].share == 1.0
    assert judgement.shown[0].first.startswith("s.json#msg-")


def test_a_passing_case_does_not_pay_for_the_account(tmp_path: Path) -> None:
    judgement = _judged(tmp_path, [(f"cat {SKILL}", SKILL_TEXT)], "cat")
    assert (judgement.status, judgement.shown) == ("pass", None)


@pytest.mark.parametrize(
    "command,status",
    [
        # typed text, encoded so that it is not the words: decoded, it shows no file
        ("echo {b64} | base64 -d", "fail"),
        ("printf '%s' {b64} | base64 --decode", "fail"),
        # a command that touched the file shows it, whatever it prints around it
        (f"base64 {SKILL} | base64 -d", "pass"),
    ],
)
def test_an_output_of_a_command_that_touched_no_file_is_no_read(
    tmp_path: Path, command: str, status: str
) -> None:
    """Red team (docs/isolation.md): the body typed as base64 and decoded passed file_read."""
    encoded = base64.b64encode(SKILL_TEXT.encode()).decode()
    verdict = _check(tmp_path, [(command.format(b64=encoded), SKILL_TEXT)], _read())
    assert verdict.status == status, verdict.detail


@pytest.mark.parametrize(
    "setup,command,status",
    [
        # red team, round 2: the typed text went through a file the agent wrote itself
        ("echo {b64} > e.b64", "base64 -d e.b64", "fail"),
        (None, "echo {b64} > e.b64 && base64 -d e.b64", "fail"),
        ("echo {b64} > e.b64", "cp e.b64 f.b64 && base64 -d < f.b64", "fail"),
        ("echo {b64} > e.b64", "base64 -d e.b64 > d.txt && cat d.txt", "fail"),
        ("printf '%s' '{rot13}' > r.txt", "tr 'A-Za-z' 'N-ZA-Mn-za-m' < r.txt", "fail"),
        ("echo {hex} > h.txt", "xxd -r -p h.txt", "fail"),
        ("python3 -c \"open('q.b64', 'w').write('{b64}')\"", "base64 -d q.b64", "fail"),
        # or beside an access that shows no file's content
        (None, "cd .agents && echo {b64} | base64 -d", "fail"),
        (None, "ls; echo {b64} | base64 -d 2>/dev/null", "fail"),
        # look-alikes: the file itself, or a copy of it, was read
        ("cp " + SKILL + " c.md", "cat c.md", "pass"),
        ("base64 " + SKILL + " > e.b64", "base64 -d e.b64", "pass"),
        ("echo {b64} > e.b64", "base64 -d e.b64; cat " + SKILL, "pass"),
    ],
)
def test_text_the_agent_wrote_into_a_file_is_its_own(
    tmp_path: Path, setup: str | None, command: str, status: str
) -> None:
    """Red team, round 2: typed text decoded from a file the agent itself wrote passed file_read."""
    values = {
        "b64": base64.b64encode(SKILL_TEXT.encode()).decode(),
        "rot13": codecs.encode(SKILL_TEXT, "rot13"),
        "hex": SKILL_TEXT.encode().hex(),
    }
    calls: list[tuple[str, str | None]] = []
    if setup is not None:
        calls.append((setup.format(**values), ""))
    calls.append((command.format(**values), SKILL_TEXT))
    verdict = _check(tmp_path, calls, _read())
    assert verdict.status == status, verdict.detail


@pytest.mark.parametrize(
    "command,status",
    [
        # red team, round 4: typed text decoded beside a read of another file
        (f"cat {REF}; echo {{b64}} | base64 -d", "fail"),
        (f"head -1 {REF} && echo {{b64}} | base64 -d", "fail"),
        (f"echo {{b64}} | base64 -d | diff - {REF}", "fail"),
        (f"echo {{b64}} | base64 -d | cat - {REF}", "fail"),
        # look-alikes: the call read the file itself, its folder, or through a glob
        (f"cat {REF}; cat {SKILL}", "pass"),
        ("cat .agents/skills/s/*.md", "pass"),
        ("grep -r Step .agents/skills/s", "pass"),
        # a program the call ran may read anything: the output still counts
        (f"cat {REF}; sh .agents/skills/s/run.sh", "pass"),
    ],
)
def test_an_output_shows_only_the_files_its_command_read(
    tmp_path: Path, command: str, status: str
) -> None:
    """Red team, round 4: a command that read one file and printed SKILL.md's words typed as
    base64 and decoded passed `file_read` of SKILL.md: it showed only the file it read."""
    encoded = base64.b64encode(SKILL_TEXT.encode()).decode()
    output = REF_TEXT + SKILL_TEXT
    verdict = _check(tmp_path, [(command.format(b64=encoded), output)], _read())
    assert verdict.status == status, verdict.detail


def test_a_call_the_trace_saw_whole_shows_only_the_files_it_opened(tmp_path: Path) -> None:
    """Red team, round 4: a program run beside the typed body (the skill's own script) leaves
    the table unable to narrow the output, since a program may read anything; the trace, when
    it saw the call whole, knows what it opened."""
    from evaluator.evidence.traced import TracedCall

    encoded = base64.b64encode(SKILL_TEXT.encode()).decode()
    command = f"python3 .agents/skills/s/tool.py; echo {encoded} | base64 -d"
    context = _context(tmp_path, [(command, SKILL_TEXT)])
    workspace = context.workspace
    assert run_check(_read(), context).status == "pass"  # evidence only: it may have read it
    for complete, opened, status in (
        (True, {f"{workspace}/.agents/skills/s/tool.py"}, "fail"),
        (True, {f"{workspace}/.agents/skills/s/tool.py", f"{workspace}/{SKILL}"}, "pass"),
        (False, {f"{workspace}/.agents/skills/s/tool.py"}, "pass"),  # not seen whole
    ):
        context = _context(tmp_path, [(command, SKILL_TEXT)])
        context.traced_calls = {"c0": TracedCall("c0", complete, (), frozenset(opened))}
        assert run_check(_read(), context).status == status, (complete, opened)


def _forbidden_read(tmp_path: Path, calls: list[tuple[str, str | None]]) -> Any:
    from evaluator.judge import judge_case

    return judge_case(_never_reads_ref(), _context(tmp_path, calls))


@pytest.mark.parametrize(
    "command,output,status",
    [
        # red team, round 4: the forbidden file's content handed to the agent transformed
        (f"ls; base64 {REF}", base64.b64encode(REF_TEXT.encode()).decode(), "fail"),
        (f"ls; rev {REF}", "\n".join(line[::-1] for line in REF_TEXT.splitlines()), "fail"),
        (f"ls; tr a-z n-za-m < {REF}", codecs.encode(REF_TEXT, "rot13"), "fail"),
        (f"ls; cat {REF}", REF_TEXT, "fail"),
        # compressed, then encoded (the analysis recorded no read of it at all)
        (f"ls; gzip -c {REF} | base64", base64.b64encode(gzip.compress(b"x")).decode(), "fail"),
        # look-alikes: touched without showing anything, or never touched
        (f"ls; wc -l {REF}", "3\n", "pass"),
        (f"ls; md5sum {REF}", f"0123456789abcdef0123456789abcdef  {REF}\n", "pass"),
        (f"ls; gzip -c {REF} > r.gz", "", "pass"),
        (f"ls; cat {REF} > /dev/null", "", "pass"),
        ("ls", ".agents\n", "pass"),
    ],
    ids=[
        "base64",
        "rev",
        "rot13",
        "cat",
        "gzip",
        "wc",
        "md5sum",
        "gzip-to-file",
        "discarded",
        "untouched",
    ],
)
def test_a_forbidden_read_handed_over_transformed_is_observed(
    tmp_path: Path, command: str, output: str, status: str
) -> None:
    """Red team, round 4: `base64 FILE` of a forbidden file passed the case (no word window in
    the output), though a model reads base64, reversed or rot13 text as well as the original."""
    judgement = _forbidden_read(tmp_path, [(command, output)])
    assert judgement.status == status, [e.notes for e in judgement.entries]


@pytest.mark.parametrize(
    ("copy", "status"),
    [(f"ls; cp {REF} n.md", "fail"), (f"ls; cat {REF} > n.md", "fail"), ("ls > n.md", "pass")],
    ids=["cp", "redirected", "own-listing"],
)
def test_a_forbidden_read_through_a_copy_is_observed(
    tmp_path: Path, copy: str, status: str
) -> None:
    """Red team, round 9: the forbidden file copied by one call and the copy printed by the
    next passed the case: the output was held to the copy, the one file its call read. A file
    the session wrote holds what its writer read."""
    from evaluator.judge import judge_case

    context = _context(tmp_path, [(copy, ""), ("cat n.md", REF_TEXT)])
    (context.workspace / "n.md").write_text(REF_TEXT)
    judgement = judge_case(_never_reads_ref(), context)
    assert judgement.status == status, [e.notes for e in judgement.entries]


@pytest.mark.parametrize(
    ("writer", "complete", "status"),
    [
        (f"ls; cat {REF} > n.md", True, "fail"),
        (f'ls; python3 -c \'import shutil; shutil.copy("{REF}", "n.md")\'', True, "fail"),
        ("ls; python3 w.py", False, "fail"),  # not seen whole: n.md may hold anything
        ("ls; echo {b64} | base64 -d > n.md", True, "pass"),  # typed: its own text
    ],
    ids=["redirected", "program", "unseen-writer", "typed"],
)
def test_a_traced_call_shows_what_the_files_it_read_were_given(
    tmp_path: Path, writer: str, complete: bool, status: str
) -> None:
    """Red team, round 9: a call the trace saw whole is held to the files it opened, and
    `cat n.md` opened only `n.md`, which an earlier call had filled with the forbidden file:
    "never reads" passed. A file an earlier call wrote holds what that call used."""
    from evaluator.evidence.traced import TracedCall
    from evaluator.judge import judge_case

    encoded = base64.b64encode(REF_TEXT.encode()).decode()
    context = _context(tmp_path, [(writer.format(b64=encoded), ""), ("cat n.md", REF_TEXT)])
    workspace = context.workspace
    (workspace / "n.md").write_text(REF_TEXT)
    copy = f"{workspace}/n.md"
    # what the writer's processes used: the forbidden file too, unless it typed the text
    first = {copy} if "base64" in writer else {copy, f"{workspace}/{REF}"}
    context.traced_calls = {
        "c0": TracedCall("c0", complete, (), frozenset(first), written=frozenset({copy})),
        "c1": TracedCall("c1", True, (), frozenset({copy})),
    }
    judgement = judge_case(_never_reads_ref(), context)
    assert judgement.status == status, [e.notes for e in judgement.entries]


@pytest.mark.parametrize(
    ("command", "exit_code", "present", "status"),
    [
        (f"ls; cat {REF} missing.md", 1, True, "fail"),
        (f"ls; cat {REF}", 0, True, "fail"),
        ("ls; cat missing.md", 1, True, "pass"),
        # the file is not there (a no-skill variant): the failed read showed nothing
        (f"ls; cat {REF}", 1, False, "pass"),
    ],
    ids=["then-a-missing-file", "alone", "only-the-missing-file", "not-there"],
)
def test_a_forbidden_read_the_table_decides_counts_when_only_its_command_failed(
    tmp_path: Path, command: str, exit_code: int, present: bool, status: str
) -> None:
    """The table decides a file whose content cannot be compared (not text). `cat F missing.md`
    prints F, then fails on the other file (exit 1): no read for a required entry, but for a
    forbidden one a read, or an agent could hide any read behind a missing file. A file that is
    not in the workspace at all showed nothing to a read that failed."""
    from evaluator.judge import judge_case

    output = "\x00\x01 binary \x02\ncat: missing.md: No such file or directory\n"
    context = _context(tmp_path, [(command, output)], exits={0: exit_code})
    if present:
        (context.workspace / REF).write_bytes(b"\x00\x01 binary \x02\n")
    else:
        (context.workspace / REF).unlink()
    judgement = judge_case(_never_reads_ref(), context)
    assert judgement.status == status, [e.notes for e in judgement.entries]
    (forbidden,) = [e for e in judgement.entries if e.polarity == "forbidden"]
    assert forbidden.checks[0].proof == "commands"
    if not present:
        return
    required = run_check(FileReadCheck(kind="file_read", path=REF), context)
    assert required.status == ("pass" if exit_code == 0 else "fail"), required.detail


def _never_reads_ref() -> Case:
    """A case that passes when the agent ran `ls` and never read REF."""
    return Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {
                "required": [
                    {"description": "ran", "checks": [{"kind": "command_ran", "pattern": "ls"}]}
                ],
                "forbidden": [
                    {"description": "read", "checks": [{"kind": "file_read", "path": REF}]}
                ],
            },
        }
    )
