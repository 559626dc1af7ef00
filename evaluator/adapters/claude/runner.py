"""`claude-code`: a fresh `claude -p` per attempt, stream-json out, prompt on stdin.

Per attempt the agent gets its own HOME, `CLAUDE_CONFIG_DIR` (where its transcripts go) and
`CLAUDE_CODE_TMPDIR`, a fixed `--session-id` and only the tools an evaluation needs. What else
could reach it is shut out or refused (docs/agents.md): user settings and memory live in the empty
config dir; bundled and managed-policy skills are switched off; CLAUDE.md files and `.claude/`
folders in a parent directory of the workspace (which Claude Code loads, and `--bare` would not
help: it drops the workspace's skills and the Agent tool too) make the attempt an environment
fault; the skills the CLI reports at start must be exactly the workspace's.
"""

from __future__ import annotations

import os
import re
import uuid
from pathlib import Path
from typing import Any

from evaluator.adapters.claude.binary import claude_version, find_claude
from evaluator.adapters.claude.final_message import recover_final_message
from evaluator.adapters.claude.stream import stream_events
from evaluator.agents.base import (
    PASSTHROUGH_ENV,
    AgentHandle,
    AgentRequest,
    AgentRunner,
    link_skill,
)
from evaluator.agents.key_proxy import KeyRoute
from evaluator.agents.launching import start_agent
from evaluator.credentials import SCRIPTED_API_KEY
from evaluator.errors import EnvironmentProblem, InputError
from evaluator.prompting import user_prompt_of

# The tools of an evaluated agent. Glob and Grep are not on by default in 2.1.197; `Agent` is
# what the init event calls `Task`.
TOOLS = "Bash,Read,Write,Edit,MultiEdit,NotebookEdit,Glob,Grep,Agent,Skill"
# `acceptEdits` keeps Read/Write/Edit inside the workspace (Claude Code refuses other paths) and
# `--allowedTools Bash` lets commands run, like codex's workspace-write: the jail and the
# isolation verdict judge what commands touch. `bypassPermissions` lets file tools reach outside
# too; as root it needs IS_SANDBOX=1, which this runner sets only then.
PERMISSION_MODES = ("acceptEdits", "bypassPermissions", "default", "dontAsk", "plan")
DEFAULT_PERMISSION_MODE = "acceptEdits"
ALLOWED_TOOLS = {"acceptEdits": "Bash,Glob,Grep,Skill"}
CREDENTIAL_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")
# Files and folders that Claude Code loads from every parent directory of its working directory.
ANCESTOR_CONTEXT = ("CLAUDE.md", "CLAUDE.local.md", ".claude")
SKILLS_DIR = Path(".claude/skills")
# A prompt Claude Code reads as a command (a skill's or its own): `/name`, then its arguments.
# A path (`/etc/hosts ...`) has a second `/` and is no command name.
_COMMAND = re.compile(r"/[A-Za-z0-9][\w:.-]*(?:\s|$)")


def command_prompt(prompt: str) -> tuple[str, str] | None:
    """A prompt that is a command, split into what the case wrote and the note the evaluator
    added. Claude Code passes all that follows `/name` to the command as its arguments (a
    skill's `$ARGUMENTS`, or `ARGUMENTS: ...` after its body), so the note is given as an
    appended system prompt instead and the command gets the case's words verbatim. None: not a
    command, or nothing was added."""
    user = user_prompt_of(prompt)
    if user == prompt or not _COMMAND.match(user):
        return None
    return user, prompt[len(user) :].strip()


def ancestor_context(workspace: Path) -> list[Path]:
    """Context files in the workspace's parent directories that Claude Code would load."""
    found = []
    for parent in workspace.resolve().parents:
        for name in ANCESTOR_CONTEXT:
            if (parent / name).exists():
                found.append(parent / name)
    return found


def anthropic_base_url(base_url: str) -> str:
    """Claude Code appends `/v1/messages` itself; our endpoints are given as `.../v1`."""
    return base_url.removesuffix("/").removesuffix("/v1")


class ClaudeCodeRunner(AgentRunner):
    name = "claude-code"
    evidence_mode = "claude-code-project-transcripts"
    credential_env = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
    credentials_hint = "set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN)"
    base_url_env = "ANTHROPIC_BASE_URL"
    announces_start = True  # stream-json: the `system` `init` event once it has started
    # A key or token in the environment (the only login a fresh config dir has) goes to the
    # Anthropic API unless ANTHROPIC_BASE_URL moves it (Bedrock and Vertex need variables the
    # runner does not pass through).
    default_endpoints = (("api-key", "https://api.anthropic.com"),)
    # Its Bash tool inherits its environment: the key stays with the proxy. Claude Code sends
    # ANTHROPIC_API_KEY as `x-api-key` and ANTHROPIC_AUTH_TOKEN as `Authorization: Bearer`.
    key_routing = KeyRoute(
        base_url_env="ANTHROPIC_BASE_URL",
        key_envs=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
        default_upstream="https://api.anthropic.com",
        key_headers=("x-api-key", "authorization"),
    )

    def __init__(self, binary: Path | None = None, permission_mode: str | None = None) -> None:
        self.binary = find_claude(binary)
        mode = permission_mode or DEFAULT_PERMISSION_MODE
        if mode not in PERMISSION_MODES:
            raise InputError(
                f"unknown permission mode {mode!r} (known: {', '.join(PERMISSION_MODES)})",
                field="--claude-permission-mode",
            )
        self.permission_mode = mode

    def version(self) -> str | None:
        return claude_version(self.binary)

    def prepare_workspace(self, workspace: Path, entry_skill: Path) -> None:
        """Links the skill into `.claude/skills/<name>`, where Claude Code discovers skills, and
        refuses a workspace whose parent directories hold context Claude Code would load."""
        leaking = ancestor_context(workspace)
        if leaking:
            raise EnvironmentProblem(
                "Claude Code would load context from outside the workspace: "
                + ", ".join(str(p) for p in leaking)
                + " (choose a --scratch-root without CLAUDE.md or .claude/ above it)"
            )
        link_skill(workspace, entry_skill, SKILLS_DIR)

    def stdin_prompt(self, request: AgentRequest) -> str:
        split = self.command_split(request)
        return split[0] if split is not None else request.prompt

    def command_split(self, request: AgentRequest) -> tuple[str, str] | None:
        """`command_prompt` of the request, for a runner whose prompt is the case's own (a
        launcher's child gets the prompt through a tool, where no command is read)."""
        return None if self.launches_child else command_prompt(request.prompt)

    def command(self, request: AgentRequest, session_id: str) -> list[str]:
        argv = [
            str(self.binary),
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--session-id",
            session_id,
            "--permission-mode",
            self.permission_mode,
            "--tools",
            TOOLS,
            "--setting-sources",
            "project,local",
        ]
        if self.permission_mode in ALLOWED_TOOLS:
            argv += ["--allowedTools", ALLOWED_TOOLS[self.permission_mode]]
        split = self.command_split(request)
        if split is not None:
            argv += ["--append-system-prompt", split[1]]
        if request.endpoint.model:
            argv += ["--model", request.endpoint.model]
        return argv

    def environment(
        self, request: AgentRequest, config: Path, home: Path, tmp: Path
    ) -> dict[str, str]:
        env = {k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ}
        env.setdefault("LANG", "C.UTF-8")
        env.update(
            {
                "HOME": str(home),
                "CLAUDE_CONFIG_DIR": str(config),
                "CLAUDE_CODE_TMPDIR": str(tmp),
                "TERM": "dumb",
                # No telemetry, update checks or title calls: the run stays on the endpoint.
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "CLAUDE_CODE_DISABLE_BUNDLED_SKILLS": "1",
                "CLAUDE_CODE_DISABLE_POLICY_SKILLS": "1",
                "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1",
            }
        )
        endpoint = request.endpoint
        if endpoint.scripted:
            env["ANTHROPIC_API_KEY"] = endpoint.api_key or SCRIPTED_API_KEY
            # A scripted server answers deterministically: retrying an error only hides it.
            env["CLAUDE_CODE_MAX_RETRIES"] = "0"
        else:
            key = endpoint.key_from_environment()
            if key:
                # Only the key named for this endpoint: the user's own Anthropic credentials
                # stay out of an agent talking to another gateway.
                env["ANTHROPIC_API_KEY"] = key
            else:
                env.update({k: os.environ[k] for k in CREDENTIAL_ENV if k in os.environ})
        if endpoint.base_url:
            env["ANTHROPIC_BASE_URL"] = anthropic_base_url(endpoint.base_url)
        if self.permission_mode == "bypassPermissions" and os.geteuid() == 0:
            # Claude Code refuses to bypass permissions as root unless told it is sandboxed.
            env["IS_SANDBOX"] = "1"
        env.update(request.env)
        return env

    def run(self, request: AgentRequest) -> AgentHandle:
        request.agent_dir.mkdir(parents=True, exist_ok=True)
        home, config = attempt_home(request.agent_dir), attempt_config(request.agent_dir)
        tmp = request.agent_dir / "tmp"
        for directory in (home, config, tmp):
            directory.mkdir(exist_ok=False)
        env = self.environment(request, config, home, tmp)
        with self.keys_held_back(request.endpoint, env) as (agent_env, _):
            handle = start_agent(
                self.name,
                request,
                self.command(request, str(uuid.uuid4())),
                agent_env,
                stdin_text=self.stdin_prompt(request),
                binary=self.binary,
                agent_home=config,
                home=home,
                adapter="claude",
                launched_child=self.launches_child,
                announces_start=self.announces_start,
                session_dirs=tuple(config / name for name in CLI_ENTRIES),
            )
        read_stream_events(handle.stdout_path, handle, workspace_skills(request.workspace))
        if handle.root_thread_id is not None and not handle.timed_out and not handle.killed:
            transcripts = sorted((config / "projects").glob(f"*/{handle.root_thread_id}.jsonl"))
            if len(transcripts) == 1:
                # Claude Code sometimes exits with its final answer still unwritten.
                recover_final_message(handle.stdout_path, transcripts[0], handle.ended_at)
        return handle


# What Claude Code itself writes in its config folder (2.1.197: the first six in every attempt;
# the others on users' machines): the session store, which no tool call may change. The rest
# of `~/.claude` is the attempt's home, as it was when the folder lay beside it: a skill that
# installs `~/.claude/commands/x.md` writes no evidence.
CLI_ENTRIES = (
    "projects",
    "sessions",
    "session-env",
    "shell-snapshots",
    "backups",
    ".claude.json",
    "todos",
    "file-history",
    "plans",
    "statsig",
    "debug",
    "ide",
)


def attempt_home(agent_dir: Path) -> Path:
    """The attempt's HOME."""
    return agent_dir / "home"


def attempt_config(agent_dir: Path) -> Path:
    """The attempt's `CLAUDE_CONFIG_DIR`: `~/.claude` of its HOME, where Claude Code keeps its
    config and transcripts for a user who sets none, so a skill that reads the default place
    (`~/.claude/projects/*/*.jsonl`, a session-history skill) finds this session as it would on
    the user's machine (real skills round 9). Its `skills/` then holds the skill's user-level
    link, as Gemini CLI's `~/.gemini` does; `--setting-sources project,local` keeps Claude Code
    from reading it."""
    return attempt_home(agent_dir) / ".claude"


def workspace_skills(workspace: Path) -> set[str]:
    directory = workspace / SKILLS_DIR
    if not directory.is_dir():
        return set()
    return {entry.name for entry in directory.iterdir() if (entry / "SKILL.md").is_file()}


def read_stream_events(stdout_path: Path, handle: AgentHandle, expected_skills: set[str]) -> None:
    """The session id (from `system/init`), the sub-agents the main agent spawned (the Agent
    tool's results name them), an error result, and skills that did not come from the workspace."""
    result: dict[str, Any] | None = None
    for event in stream_events(stdout_path):
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "init" and handle.root_thread_id is None:
            handle.root_thread_id = event.get("session_id")
            handle.reported_skills = [str(name) for name in event.get("skills") or []]
            extra = sorted(set(handle.reported_skills) - expected_skills)
            if extra and handle.error is None:
                handle.error = "skills from outside the workspace reached the agent: " + ", ".join(
                    extra
                )
        elif kind == "user" and event.get("parent_tool_use_id") is None:
            output = event.get("tool_use_result")
            agent_id = output.get("agentId") if isinstance(output, dict) else None
            if agent_id and agent_id not in handle.spawned_thread_ids:
                handle.spawned_thread_ids.append(str(agent_id))
        elif kind == "result":
            result = event
    if result is not None and result.get("is_error") and handle.error is None:
        detail = result.get("result") or "; ".join(map(str, result.get("errors") or []))
        handle.error = f"agent reported an error: {detail or result.get('subtype')}"
        # An API error turn: the model endpoint failed, not the skill.
        handle.stalled_on_model = bool(result.get("api_error_status"))
