"""`codex-subagent`: a launcher thread spawns the agent under test with the prompt verbatim.

The parent runs in the attempt workspace and only calls `spawn_agent` (fork_context false) with
the case prompt, waits and finishes; the child thread is the agent under test. Whether the
child's first user message really equals the prompt is checked from its session by the run
stage, because only the session proves it.
"""

from __future__ import annotations

from evaluator.adapters.codex.runner import CodexExecRunner
from evaluator.agents.base import AgentRequest
from evaluator.prompting import LAUNCHER_OPENING, launcher_prompt

LAUNCHER_HEAD = (
    f"{LAUNCHER_OPENING} Call the tool `spawn_agent`"
    " (namespace multi_agent_v1) exactly once, with fork_context false and with `message` set to"
    " the text between the two marker lines below, byte for byte, markers excluded. Then call"
    " `wait_agent` on the spawned agent until it has completed, and finish with one short line."
    " Run no commands, read no files, and never add to, shorten or explain the message."
)


class CodexSubagentRunner(CodexExecRunner):
    name = "codex-subagent"
    evidence_mode = "codex-local-session-store (spawned child)"
    launches_child = True

    def stdin_prompt(self, request: AgentRequest) -> str:
        return launcher_prompt(request.prompt, LAUNCHER_HEAD)
