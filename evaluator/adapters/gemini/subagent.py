"""`gemini-subagent`: a launcher session calls `invoke_agent` with the case prompt verbatim.

The main agent runs in the attempt workspace and only asks Gemini CLI's built-in `generalist`
sub-agent (every tool; the prompt is its whole task) to do the task, then finishes; the
sub-agent is the agent under test. `invoke_agent` returns when the sub-agent has called
`complete_task`. Whether its first user message equals the prompt is checked from its session
by the run stage, because only the session proves it.
"""

from __future__ import annotations

from evaluator.adapters.gemini.runner import GeminiCliRunner
from evaluator.agents.base import AgentRequest
from evaluator.prompting import LAUNCHER_OPENING, launcher_prompt

LAUNCHER_HEAD = (
    f"{LAUNCHER_OPENING} Call the `invoke_agent` tool exactly once, with `agent_name` set to"
    " `generalist` and `prompt` set to the text between the two marker lines below, byte for"
    " byte, markers excluded. When it returns, finish with one short line. Run no commands, read"
    " no files, and never add to, shorten or explain the prompt."
)


class GeminiSubagentRunner(GeminiCliRunner):
    name = "gemini-subagent"
    evidence_mode = "gemini-cli-chat-sessions (invoked sub-agent)"
    launches_child = True

    def agent_prompt(self, request: AgentRequest) -> str:
        return launcher_prompt(request.prompt, LAUNCHER_HEAD)
