"""`codex-subagent`: a launcher thread spawns the agent under test with the prompt verbatim.

The parent runs in the attempt workspace and only calls `spawn_agent` (fork_context false) with
the case prompt, waits and finishes; the child thread is the agent under test. Whether the
child's first user message really equals the prompt is checked from its session by the run
stage, because only the session proves it.
"""

from __future__ import annotations

from evaluator.adapters.codex.runner import CodexExecRunner
from evaluator.agents.base import AgentRequest
from evaluator.prompting import launcher_prompt


class CodexSubagentRunner(CodexExecRunner):
    name = "codex-subagent"
    evidence_mode = "codex-local-session-store (spawned child)"
    launches_child = True

    def stdin_prompt(self, request: AgentRequest) -> str:
        return launcher_prompt(request.prompt)
