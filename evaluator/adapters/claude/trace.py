"""How Claude Code's tool calls look in the strace log: its Bash tool has no sandbox helper; the
shells it runs for the agent are known by their script,
`source <shell snapshot> ... && eval '<command>' < /dev/null && pwd -P >| <cwd file>`. Other
shells it starts (its environment probe, the snapshot itself) are its own business, like the
CLI's reads."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from evaluator.sandbox.strace_log import shell_script

# What may close the quoted `eval` argument of a script the log cut short, tried in turn.
_CLOSERS = ("", "'", "\\'", '"', "'\"")


def bash_tool_command(script: str) -> str | None:
    """The command of a Bash tool call, from the script its shell runs. The wrapper's head makes
    it a tool call whatever follows: a script the log cut short (a command over its string
    limit) is one, its command the part kept (red team 14: before, such a call was taken for
    the CLI's own shell, its accesses never judged)."""
    if not script.startswith("source ") or "shell-snapshots/snapshot-" not in script:
        return None
    start = script.find(" && eval ")
    if start < 0:
        return None
    rest = script[start + len(" && eval ") :]
    for closer in _CLOSERS:
        try:
            words = shlex.split(rest + closer)
        except ValueError:
            continue
        return words[0] if words else ""
    return ""


@dataclass(frozen=True)
class ClaudeToolCalls:
    helper_images: frozenset[str] = frozenset()
    cli_images: frozenset[str] = frozenset()

    def tool_call(self, image: str, argv: list[str], in_helper: bool) -> tuple[str, str] | None:
        script = shell_script(argv)
        command = bash_tool_command(script) if script is not None else None
        return (command, "shell") if command is not None else None


RECOGNIZER = ClaudeToolCalls()
