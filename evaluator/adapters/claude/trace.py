"""How Claude Code's tool calls look in the strace log: its Bash tool has no sandbox helper; the
shells it runs for the agent are known by their script,
`source <shell snapshot> ... && eval '<command>' < /dev/null && pwd -P >| <cwd file>`. Other
shells it starts (its environment probe, the snapshot itself) are its own business, like the
CLI's reads."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from evaluator.sandbox.strace_log import shell_script


def bash_tool_command(script: str) -> str | None:
    """The command of a Bash tool call, from the script its shell runs."""
    if not script.startswith("source ") or "shell-snapshots/snapshot-" not in script:
        return None
    start = script.find(" && eval ")
    if start < 0:
        return None
    try:
        words = shlex.split(script[start + len(" && eval ") :])
    except ValueError:
        return None
    return words[0] if words else None


@dataclass(frozen=True)
class ClaudeToolCalls:
    helper_images: frozenset[str] = frozenset()
    cli_images: frozenset[str] = frozenset()

    def tool_call(self, image: str, argv: list[str], in_helper: bool) -> tuple[str, str] | None:
        script = shell_script(argv)
        command = bash_tool_command(script) if script is not None else None
        return (command, "shell") if command is not None else None


RECOGNIZER = ClaudeToolCalls()
