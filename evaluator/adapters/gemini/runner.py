"""`gemini-cli`: a fresh `gemini --yolo --prompt` per attempt, stream-json out.

Per attempt the agent gets its own HOME and `GEMINI_CLI_HOME` (where `settings.json` and the
session store `.gemini/tmp/<project>/chats/` live), a fixed `--session-id`, and our settings
only: the API-key login pointed at the endpoint, no usage statistics, telemetry or update checks
(a traced run made no connection but to the endpoint: docs/agents.md), and no `.env` file of the
workspace or its parents read into the CLI's environment (a project's `.env` fixture set
`GEMINI_MODEL` until `advanced.ignoreLocalEnv`). Headless runs need the workspace trusted
(`GEMINI_CLI_TRUST_WORKSPACE`; untrusted: exit 55), and a trusted workspace's
`.gemini/settings.json` is merged over the user's settings, ours, and its `.gemini/.env` is read
whatever the settings say. The one layer above the workspace's, the system settings, is read
only from a root-owned file in a root-owned chain no group or other can write (which an attempt
home is not), so nothing of ours can outrank them: such a workspace, and context files
(`GEMINI.md`, `.gemini/`) in its parent directories, make the attempt an environment fault.
The system settings path (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`, and with it the system defaults
beside it) points at our file, so that `/etc/gemini-cli/` is not read.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from evaluator.adapters.gemini.binary import find_gemini, gemini_version
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
from evaluator.errors import EnvironmentProblem

SKILLS_DIR = Path(".gemini/skills")
CREDENTIAL_ENV = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
# What Gemini CLI loads from the parent directories of its working directory.
ANCESTOR_CONTEXT = ("GEMINI.md", ".gemini")
# What Gemini CLI reads from a trusted workspace over our settings and environment.
WORKSPACE_OVERRIDES = (Path(".gemini/settings.json"), Path(".gemini/.env"))


def foreign_context(workspace: Path) -> list[Path]:
    """Settings and context files that would reach the agent besides ours: the workspace's own
    settings and environment file, and context in its parent directories."""
    found = [workspace / rel for rel in WORKSPACE_OVERRIDES if (workspace / rel).exists()]
    for parent in workspace.resolve().parents:
        found += [parent / name for name in ANCESTOR_CONTEXT if (parent / name).exists()]
    return found


def settings(model: str | None) -> dict[str, Any]:
    """Our settings, the only ones the agent reads."""
    values: dict[str, Any] = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        # A `.env` of the workspace (a project's own file) or its parents is not the agent's
        # environment: only the home's, which is ours and holds none.
        "advanced": {"ignoreLocalEnv": True},
    }
    if model:
        values["model"] = {"name": model}
    return values


def gemini_base_url(base_url: str) -> str:
    """Gemini CLI appends `/v1beta/models/...` itself; our endpoints are given as `.../v1`."""
    return base_url.removesuffix("/").removesuffix("/v1")


class GeminiCliRunner(AgentRunner):
    name = "gemini-cli"
    evidence_mode = "gemini-cli-chat-sessions"
    credential_env = CREDENTIAL_ENV
    announces_start = True  # stream-json: the `init` event once it has started
    credentials_hint = "set GEMINI_API_KEY"
    # Our settings select the key login (`gemini-api-key`), which goes to the Gemini API;
    # GOOGLE_GEMINI_BASE_URL is set only from --base-url (the user's own is not passed).
    default_endpoints = (("api-key", "https://generativelanguage.googleapis.com/"),)
    # Its shell tool inherits its environment: the key stays with the proxy. The Gemini API
    # takes the key as `x-goog-api-key` (what 0.61.0 sends) or `?key=`.
    key_routing = KeyRoute(
        base_url_env="GOOGLE_GEMINI_BASE_URL",
        key_envs=CREDENTIAL_ENV,
        default_upstream="https://generativelanguage.googleapis.com",
        key_headers=("x-goog-api-key",),
        key_params=("key",),
    )

    def __init__(self, binary: Path | None = None) -> None:
        self.binary = find_gemini(binary)

    def version(self) -> str | None:
        return gemini_version(self.binary)

    def prepare_workspace(self, workspace: Path, entry_skill: Path) -> None:
        """Links the skill into `.gemini/skills/<name>`, where Gemini CLI discovers workspace
        skills, and refuses a workspace whose settings or parents' context would reach it."""
        leaking = foreign_context(workspace)
        if leaking:
            raise EnvironmentProblem(
                "Gemini CLI would load settings or context besides the evaluator's: "
                + ", ".join(str(p) for p in leaking)
                + " (remove the workspace's .gemini/settings.json and .gemini/.env, or choose a"
                " --scratch-root without GEMINI.md or .gemini/ above it)"
            )
        link_skill(workspace, entry_skill, SKILLS_DIR)

    def agent_prompt(self, request: AgentRequest) -> str:
        """What the CLI is asked: the case prompt itself (a launcher asks for a sub-agent)."""
        return request.prompt

    def command(self, request: AgentRequest, session_id: str) -> list[str]:
        argv = [
            str(self.binary),
            "--yolo",
            "--output-format",
            "stream-json",
            "--session-id",
            session_id,
            "--prompt",
            self.agent_prompt(request),
        ]
        if request.endpoint.model:
            argv += ["--model", request.endpoint.model]
        return argv

    def environment(
        self, request: AgentRequest, home: Path, settings_path: Path, tmp: Path
    ) -> dict[str, str]:
        env = {k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ}
        env.setdefault("LANG", "C.UTF-8")
        env.update(
            {
                "HOME": str(home),
                "GEMINI_CLI_HOME": str(home),
                "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(settings_path),
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
                # One process: the CLI otherwise relaunches itself under a larger heap.
                "GEMINI_CLI_NO_RELAUNCH": "true",
                # Its shell tool's wrapper files go here, inside the agent's own directory.
                "TMPDIR": str(tmp),
                "TERM": "dumb",
                "NO_COLOR": "1",
            }
        )
        endpoint = request.endpoint
        if endpoint.scripted:
            env["GEMINI_API_KEY"] = endpoint.api_key or SCRIPTED_API_KEY
        else:
            key = endpoint.key_from_environment()
            if key:
                env["GEMINI_API_KEY"] = key
            else:
                env.update({k: os.environ[k] for k in CREDENTIAL_ENV if k in os.environ})
        if endpoint.base_url:
            env["GOOGLE_GEMINI_BASE_URL"] = gemini_base_url(endpoint.base_url)
        env.update(request.env)
        return env

    def run(self, request: AgentRequest) -> AgentHandle:
        request.agent_dir.mkdir(parents=True, exist_ok=True)
        home = request.agent_dir / "gemini-home"
        (home / ".gemini").mkdir(parents=True, exist_ok=False)
        settings_path = home / ".gemini" / "settings.json"
        settings_path.write_text(json.dumps(settings(request.endpoint.model), indent=2) + "\n")
        tmp = request.agent_dir / "tmp"
        tmp.mkdir(exist_ok=False)
        env = self.environment(request, home, settings_path, tmp)
        session_id = str(uuid.uuid4())
        with self.keys_held_back(request.endpoint, env) as (agent_env, _):
            handle = start_agent(
                self.name,
                request,
                self.command(request, session_id),
                agent_env,
                stdin_text="",
                binary=self.binary,
                agent_home=home,
                home=home,
                adapter="gemini",
                launched_child=self.launches_child,
                announces_start=self.announces_start,
                # Its home is the agent's HOME too (tools write caches there): only `.gemini`
                # holds the sessions.
                session_dirs=(home / ".gemini",),
            )
        handle.root_thread_id = session_id
        read_stream_events(handle.stdout_path, handle)
        return handle


def read_stream_events(stdout_path: Path, handle: AgentHandle) -> None:
    """The session id the CLI reports (`init`) and an error result."""
    try:
        lines = stdout_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        if kind == "init" and event.get("session_id"):
            handle.root_thread_id = str(event["session_id"])
        elif kind == "error" and handle.error is None:
            handle.error = f"agent reported an error: {event.get('message') or event}"
        elif kind == "result" and event.get("status") == "error" and handle.error is None:
            error = event.get("error")
            detail = error.get("message") if isinstance(error, dict) else error
            handle.error = f"agent reported an error: {detail or 'result status error'}"
            handle.stalled_on_model = True
