"""A command line longer than the strace log keeps (`-s`, STRING_LIMIT) is printed cut short,
`"..."...`: the Claude Code and Gemini CLI wrappers are then known by their head, the call's
command is the part kept, and it is matched to the session's call by that prefix (red team 14,
docs/isolation.md). Before, the wrapper did not parse, and the shell was taken for the CLI's own,
its accesses never judged."""

from __future__ import annotations

import pytest

from evaluator.adapters.claude.trace import RECOGNIZER as CLAUDE_CALLS
from evaluator.adapters.claude.trace import bash_tool_command
from evaluator.adapters.gemini.trace import RECOGNIZER as GEMINI_CALLS
from evaluator.adapters.gemini.trace import shell_tool_command
from evaluator.evidence.records import SessionEvidence
from evaluator.isolation.trace import _match
from evaluator.sandbox import parse_trace
from evaluator.sandbox.strace_log import ToolCallRecognizer

WS = "/var/tmp/ws"
HOME = "/var/tmp/agent/home"
SNAPSHOT = f"{HOME}/.claude/shell-snapshots/snapshot-bash-1-x.sh"
CLAUDE = (
    f"source {SNAPSHOT} 2>/dev/null || true && shopt -u extglob 2>/dev/null || true"
    " && eval 'python3 - <<'\\''EOF'\\''\n# xxxx\nprint(1)\nEOF' < /dev/null && pwd -P >| /tmp/c"
)
GEMINI = (
    "shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=/tmp/g/bgpids.tmp\n"
    "(\n  trap 'jobs -p > \"$_bgpids_file\"' EXIT\npython3 - <<'EOF'\n# xxxx\nprint(1)\nEOF\n)\n"
    "__code=$?\nexit $__code"
)
COMMAND = "python3 - <<'EOF'\n# xxxx\nprint(1)\nEOF"


def _c(text: str) -> str:
    """`text` as strace prints a string (without its quotes)."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _log(script: str, keep: int | None) -> list[str]:
    """A log of the CLI starting `bash -c SCRIPT`, the script cut after `keep` characters (as
    strace's `-s` cuts it), whose process then writes a file of the home."""
    shown = f'"{_c(script)}"' if keep is None else f'"{_c(script[:keep])}"...'
    return [
        '10 execve("/usr/bin/node", ["node", "cli.js"], 0x7 /* 3 vars */) = 0',
        "10 clone(child_stack=NULL, flags=SIGCHLD) = 11",
        f'11 execve("/bin/bash", ["/bin/bash", "-c", {shown}], 0x7 /* 3 vars */) = 0',
        f'11 openat(AT_FDCWD<{WS}>, "{HOME}/.claude/projects/p/s.jsonl", O_WRONLY|O_TRUNC)'
        f" = 3<{HOME}/.claude/projects/p/s.jsonl>",
        "11 +++ exited with 0 +++",
    ]


CASES = [
    pytest.param(CLAUDE, CLAUDE_CALLS, id="claude"),
    pytest.param(GEMINI, GEMINI_CALLS, id="gemini"),
]


@pytest.mark.parametrize(("script", "recognizer"), CASES)
def test_a_wrapper_cut_short_is_a_tool_call_with_the_part_kept(
    script: str, recognizer: ToolCallRecognizer
) -> None:
    keep = script.index("# xxxx") + 4  # inside the command, as a long one is cut
    (call,) = parse_trace(_log(script, keep), recognizer, start_cwd=WS).tool_calls
    assert call.cut
    assert COMMAND.startswith(call.command) and call.command.startswith("python3 - <<'EOF'")
    assert [a.path for a in call.accesses if a.access == "write"] == [
        f"{HOME}/.claude/projects/p/s.jsonl"
    ]
    # The whole script: the whole command, not cut.
    (whole,) = parse_trace(_log(script, None), recognizer, start_cwd=WS).tool_calls
    assert (whole.command, whole.cut) == (COMMAND, False)


@pytest.mark.parametrize(("script", "recognizer"), CASES)
def test_a_shell_of_the_cli_itself_stays_the_clis(
    script: str, recognizer: ToolCallRecognizer
) -> None:
    """Look-alike: a shell without the wrapper's head, cut or whole, is the CLI's own."""
    other = "echo snapshot; " + "x" * 100
    assert parse_trace(_log(other, 40), recognizer, start_cwd=WS).tool_calls == []
    assert parse_trace(_log(other, None), recognizer, start_cwd=WS).tool_calls == []


def test_the_parsers_take_the_head_of_a_cut_wrapper() -> None:
    assert bash_tool_command(CLAUDE) == COMMAND
    cut = CLAUDE[: CLAUDE.index("print(1)")]
    assert bash_tool_command(cut) == "python3 - <<'EOF'\n# xxxx\n"
    assert bash_tool_command("source /x && eval 'ls'") is None  # no snapshot: not the wrapper
    assert shell_tool_command(GEMINI) == COMMAND
    assert shell_tool_command(GEMINI[: GEMINI.index("print(1)")]) == "python3 - <<'EOF'\n# xxxx\n"
    assert shell_tool_command("shopt -u promptvars; echo x") is None


def test_a_cut_command_matches_the_session_command_it_begins() -> None:
    keep = CLAUDE.index("# xxxx") + 4
    trace = parse_trace(_log(CLAUDE, keep), CLAUDE_CALLS, start_cwd=WS)
    evidence = SessionEvidence(session_path="s.jsonl")
    other = evidence.add("command_observed", 2, call_id="c1", command="python3 - <<'EOF'\nprint(2)")
    ours = evidence.add("command_observed", 3, call_id="c2", command=COMMAND)
    matched, unseen = _match(trace.tool_calls, evidence)
    assert matched == {1: ours} and unseen == [other]
    # A whole command is matched only by its exact text.
    trace = parse_trace(_log(CLAUDE, None), CLAUDE_CALLS, start_cwd=WS)
    evidence = SessionEvidence(session_path="s.jsonl")
    evidence.add("command_observed", 2, call_id="c1", command=COMMAND + "\necho more")
    assert _match(trace.tool_calls, evidence)[0] == {}
