"""Structured checks: one module per kind, registered with `@register_check`."""

from evaluator.judge.checks import (
    agent_said,
    command,
    command_ran,
    env_value,
    file_read,
    file_written,
    final_answer,
    logic,
    ran_before,
    read_before,
    script_ran,
    skill_invoked,
    subagents,
    url_fetched,
    workspace_files,
)
from evaluator.judge.checks.attempt_sessions import run_check
from evaluator.judge.checks.registry import CHECKS, register_check

__all__ = [
    "CHECKS",
    "agent_said",
    "command",
    "command_ran",
    "env_value",
    "file_read",
    "file_written",
    "final_answer",
    "logic",
    "ran_before",
    "read_before",
    "register_check",
    "run_check",
    "script_ran",
    "skill_invoked",
    "subagents",
    "url_fetched",
    "workspace_files",
]
