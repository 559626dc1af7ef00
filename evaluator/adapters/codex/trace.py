"""How Codex's tool calls look in the strace log: each runs as
`codex-linux-sandbox ... -- /bin/bash -c CMD`, and a patch as
`codex-linux-sandbox ... -- codex --codex-run-as-fs-helper` (docs/isolation.md)."""

from __future__ import annotations

from dataclasses import dataclass

from evaluator.sandbox.strace_log import PATCH_CALL, shell_script

SANDBOX_HELPER = "codex-linux-sandbox"
CLI_BINARY = "codex"
FILE_HELPER_FLAG = "--codex-run-as-fs-helper"


@dataclass(frozen=True)
class CodexToolCalls:
    helper_images: frozenset[str] = frozenset({SANDBOX_HELPER})
    # Codex applies some patches in its own process: its writes outside its home are kept.
    cli_images: frozenset[str] = frozenset({CLI_BINARY})

    def tool_call(self, image: str, argv: list[str], in_helper: bool) -> tuple[str, str] | None:
        if not in_helper:
            return None  # the CLI's own shells (its environment probes), not the agent's calls
        script = shell_script(argv)
        if script is not None:
            return script, "shell"
        if image == CLI_BINARY and FILE_HELPER_FLAG in argv:
            return "", PATCH_CALL
        return None


RECOGNIZER = CodexToolCalls()
