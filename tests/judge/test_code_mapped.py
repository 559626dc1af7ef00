"""Red team, round 19: code the attempt wrote, mapped into a program of the machine
(`LD_PRELOAD=$PWD/e.so python3 x.py`, a `dlopen`, a memfd) ran inside that process, so
neither the command's text nor the process's exit shows what ran (offline; the real CLIs:
tests/isolation/test_red_team_round19.py; both tracers: tests/sandbox/test_ebpf_trace.py)."""

from __future__ import annotations

from pathlib import Path

from evaluator.contract.models import CommandRanCheck, ScriptRanCheck, UrlFetchedCheck
from evaluator.evidence.builder import EvidenceBuilder
from evaluator.evidence.records import SessionEvidence
from evaluator.isolation.trace import traced_calls
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks import run_check
from evaluator.sandbox.strace_log import ObservedTrace, ToolCallTrace, TracedAccess, TracedExec

SCRIPT = "scripts/check.py"
LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6"
COMMANDS = ("gcc -shared -fPIC -o e.so e.c", f"LD_PRELOAD=$PWD/e.so python3 {SCRIPT}")


def _session(workspace: Path, *commands: str) -> SessionEvidence:
    builder = EvidenceBuilder(Path("session.jsonl"), None)
    builder.evidence.cwd = str(workspace)
    for index, command in enumerate(commands, 1):
        record = builder.observe_command(index, None, f"c{index}", "shell", command, None, "tool")
        record.exit_code = 0  # as the session shows it: the call exited 0
    return builder.evidence


def _trace(
    workspace: Path, mapped: tuple[tuple[int, str], ...], commands: tuple[str, str]
) -> ObservedTrace:
    """Two calls: the first writes `e.so`; in the second, shell 20 starts 21 (`python3
    scripts/check.py`, exit 0), which starts 22 (`cat`, exit 0), and 23 (`true`, exit 0), a
    sibling of 21. `mapped`: (process, file) mapped as code."""
    first = ToolCallTrace(0, 10, commands[0], 1, pids={10})
    first.accesses.append(TracedAccess(f"{workspace}/e.so", "write", "ok", "openat", 10, 2))
    second = ToolCallTrace(1, 20, commands[1], 3, pids={20, 21, 22, 23})
    second.parents.update({21: 20, 22: 21, 23: 20})
    ws = str(workspace)
    second.execs.append(TracedExec(21, "/usr/bin/python3", ("python3", SCRIPT), ws, 4))
    second.execs.append(TracedExec(22, "/usr/bin/cat", ("cat", "x"), ws, 6))
    second.execs.append(TracedExec(23, "/usr/bin/true", ("true",), ws, 7))
    for line, (pid, path) in enumerate(mapped, 8):
        second.code_map(TracedAccess(path, "read", "ok", "mmap", pid, line))
    trace = ObservedTrace(tool_calls=[first, second], exited={10, 20, 21, 22, 23})
    trace.endings.update({pid: (0, None) for pid in (10, 20, 21, 22, 23)})
    return trace


def _context(workspace: Path, mapped: tuple[tuple[int, str], ...]) -> JudgeContext:
    (workspace / SCRIPT).parent.mkdir(parents=True, exist_ok=True)
    (workspace / SCRIPT).write_text("import sys\nsys.exit(1)\n")
    evidence = _session(workspace, *COMMANDS)
    calls = traced_calls(_trace(workspace, mapped, COMMANDS), evidence)
    return JudgeContext(evidence, workspace, "s", traced_calls=calls)


def test_a_process_that_mapped_the_attempts_code_proves_nothing_by_its_end(
    tmp_path: Path,
) -> None:
    """The library's constructor `_exit(0)`s python3: its exit (and the call's) is no proof,
    for it and the processes it started; a sibling keeps its own. The machine's libraries are
    no one's code."""
    evidence = _session(tmp_path, *COMMANDS)
    lib = f"{tmp_path}/e.so"
    calls = traced_calls(_trace(tmp_path, ((21, lib), (21, LIBC), (23, LIBC)), COMMANDS), evidence)
    assert calls["c2"].agents_code == (lib,)
    ends = {p.argv[0]: (p.exit_code, p.agents_code) for p in calls["c2"].programs}
    assert ends == {"python3": (None, (lib,)), "cat": (None, (lib,)), "true": (0, ())}
    # Code in no file (a memfd) is the attempt's too; the machine's library alone is no one's.
    calls = traced_calls(_trace(tmp_path, ((21, "/memfd:code"),), COMMANDS), evidence)
    assert calls["c2"].agents_code == ("/memfd:code",)
    calls = traced_calls(_trace(tmp_path, ((21, LIBC),), COMMANDS), evidence)
    assert calls["c2"].agents_code == ()


def test_a_run_of_the_skills_script_under_the_attempts_library_is_no_pass(tmp_path: Path) -> None:
    """Before: pass ("ran with exit code 0": the text called the run sure, the call exited 0).
    After: blocked, the agent's."""
    context = _context(tmp_path, ((21, f"{tmp_path}/e.so"),))
    for check in (
        ScriptRanCheck(kind="script_ran", path=SCRIPT, exit_code=0),
        CommandRanCheck(kind="command_ran", pattern=r"check\.py", exit_code=0),
    ):
        verdict = run_check(check, context)
        assert (verdict.status, verdict.blocked_by) == ("blocked", "agent"), verdict.detail
        assert "ran code the attempt wrote" in verdict.detail


def test_the_same_run_mapping_only_the_machines_libraries_passes(tmp_path: Path) -> None:
    """Look-alike: the honest run, python3 mapping libc only, exit 0."""
    context = _context(tmp_path, ((21, LIBC),))
    for check in (
        ScriptRanCheck(kind="script_ran", path=SCRIPT, exit_code=0),
        CommandRanCheck(kind="command_ran", pattern=r"check\.py", exit_code=0),
    ):
        verdict = run_check(check, context)
        assert verdict.status == "pass", verdict.detail


def test_a_fetch_under_the_attempts_library_is_not_sure(tmp_path: Path) -> None:
    """`LD_PRELOAD=./e.so curl URL`: the library may end curl before it sends anything."""
    url = "https://example.com/data.json"
    commands = (COMMANDS[0], f"LD_PRELOAD=$PWD/e.so curl -s {url}")
    evidence = _session(tmp_path, *commands)
    trace = _trace(tmp_path, ((21, f"{tmp_path}/e.so"),), commands)
    call = trace.tool_calls[1]
    call.execs[0] = TracedExec(21, "/usr/bin/curl", ("curl", "-s", url), str(tmp_path), 4)
    context = JudgeContext(evidence, tmp_path, "s", traced_calls=traced_calls(trace, evidence))
    verdict = run_check(UrlFetchedCheck(kind="url_fetched", url=url), context)
    assert verdict.status != "pass", verdict.detail
    # Look-alike: the same fetch mapping only the machine's libraries.
    call.code_maps.clear()
    call.code_map(TracedAccess(LIBC, "read", "ok", "mmap", 21, 8))
    context = JudgeContext(evidence, tmp_path, "s", traced_calls=traced_calls(trace, evidence))
    assert run_check(UrlFetchedCheck(kind="url_fetched", url=url), context).status == "pass"
