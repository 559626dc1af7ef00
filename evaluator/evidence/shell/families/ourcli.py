"""Our own CLI, as an evaluator agent runs it (the skill-eval skill)."""

from __future__ import annotations

from evaluator.evidence.shell.model import model
from evaluator.evidence.shell.registry import table

table(
    {
        # Operands are subcommands, ids and run directories; the paths it is told to use are
        # its options. What it touches by default (the scratch root, the user's agent home) only
        # the trace sees. An agent home is named by --agent-home (the adapters' short flags for
        # it are not modelled: the analysis cannot tell whether such a home is read or written).
        "agentic-eval": model(
            "text",
            long="--repo --source-workspace --runs-dir --case-workspace-root --scratch-root"
            " --behaviors --agent-home --workspace --skill --target --suite --case"
            " --run-id --resume --parent-thread --nickname --agent-id --attempts --workers"
            " --timeout --model --agent --judge --judge-model --judge-votes --split",
            roles={
                "--repo": "read",
                "--source-workspace": "read",
                "--behaviors": "read",
                "--skill": "read",
                "--agent-home": "write",
                "--runs-dir": "write",
                "--case-workspace-root": "write",
                "--scratch-root": "write",
                "--workspace": "write",
            },
        ),
    }
)
