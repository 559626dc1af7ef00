"""How Gemini CLI's tool calls look in the strace log: `run_shell_command` runs each command as
`bash -c CMD` started by the CLI's node process (no sandbox helper); file tools run inside the
CLI itself, whose own accesses are its business, like Claude Code's."""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.sandbox.strace_log import shell_script


@dataclass(frozen=True)
class GeminiToolCalls:
    helper_images: frozenset[str] = frozenset()
    cli_images: frozenset[str] = frozenset()

    def tool_call(self, image: str, argv: list[str], in_helper: bool) -> tuple[str, str] | None:
        script = shell_script(argv)
        return (script, "shell") if script is not None else None


RECOGNIZER = GeminiToolCalls()
