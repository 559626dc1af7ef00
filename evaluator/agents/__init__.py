"""Stage 4: run a fresh agent on the prompt in the attempt workspace.

Runners register themselves by name; importing this package imports every implementation.
"""

from evaluator.agents import claude_code, claude_subagent, codex_exec, codex_subagent
from evaluator.agents.base import (
    AgentHandle,
    AgentRequest,
    AgentRunner,
    ModelEndpoint,
    RunnerOptions,
)
from evaluator.agents.registry import get_runner, register_runner, runner_names

__all__ = [
    "AgentHandle",
    "AgentRequest",
    "AgentRunner",
    "ModelEndpoint",
    "RunnerOptions",
    "claude_code",
    "claude_subagent",
    "codex_exec",
    "codex_subagent",
    "get_runner",
    "register_runner",
    "runner_names",
]
