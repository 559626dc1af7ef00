"""`claude-subagent`: a launcher session calls the Agent tool with the case prompt verbatim.

The main agent runs in the attempt workspace and only calls `Agent` with the prompt (Claude Code
2.1.197 runs it in the foreground and returns when it is done), then finishes; the sub-agent is
the agent under test. Whether its first user message equals the prompt is checked from its
transcript by the run stage, because only the transcript proves it.
"""

from __future__ import annotations

from evaluator.adapters.claude.runner import ClaudeCodeRunner
from evaluator.agents.base import AgentRequest
from evaluator.prompting import LAUNCHER_OPENING, launcher_prompt

LAUNCHER_HEAD = (
    f"{LAUNCHER_OPENING} Call the `Agent` tool exactly once,"
    " with `prompt` set to the text between the two marker lines below, byte for byte, markers"
    " excluded. When it returns, finish with one short line. Run no commands, read no files, and"
    " never add to, shorten or explain the prompt."
)


class ClaudeSubagentRunner(ClaudeCodeRunner):
    name = "claude-subagent"
    evidence_mode = "claude-code-project-transcripts (spawned sub-agent)"
    launches_child = True

    def stdin_prompt(self, request: AgentRequest) -> str:
        return launcher_prompt(request.prompt, LAUNCHER_HEAD)
