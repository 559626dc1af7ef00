"""How Gemini CLI's tool calls look in the strace log: `run_shell_command` has no sandbox helper;
the CLI's node process runs each command as `bash -c` of a wrapper that records background jobs,

    shopt -u promptvars nullglob extglob nocaseglob dotglob; _bgpids_file=<tmp>/bgpids.tmp
    (
      trap 'jobs -p > "$_bgpids_file"' EXIT
    <command>
    )
    __code=$?
    exit $__code

and the command is what lies between the trap and the closing parenthesis. File tools run inside
the CLI itself, whose own accesses are its business, like Claude Code's."""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluator.sandbox.strace_log import shell_script

_WRAPPER = re.compile(
    r"\Ashopt -u [^\n]*; _bgpids_file=[^\n]*\n\(\n  trap '[^\n]*' EXIT\n(.*)\n\)\n"
    r"__code=\$\?\nexit \$__code\Z",
    re.S,
)


# The wrapper's head: a script the log cut short (a command over its string limit) keeps it.
_HEAD = re.compile(r"\Ashopt -u [^\n]*; _bgpids_file=[^\n]*\n\(\n  trap '[^\n]*' EXIT\n")


def shell_tool_command(script: str) -> str | None:
    """The command of a `run_shell_command` call, from the script its shell runs; of a script
    cut short, the part of the command kept (red team 14: before, such a call was taken for the
    CLI's own shell, its accesses never judged)."""
    match = _WRAPPER.match(script)
    if match:
        return match.group(1)
    head = _HEAD.match(script)
    return script[head.end() :] if head else None


@dataclass(frozen=True)
class GeminiToolCalls:
    helper_images: frozenset[str] = frozenset()
    cli_images: frozenset[str] = frozenset()

    def tool_call(self, image: str, argv: list[str], in_helper: bool) -> tuple[str, str] | None:
        script = shell_script(argv)
        command = shell_tool_command(script) if script is not None else None
        return (command, "shell") if command is not None else None


RECOGNIZER = GeminiToolCalls()
