"""`codex-exec`: `codex exec --json` in the attempt workspace, prompt on stdin, fresh CODEX_HOME."""

from __future__ import annotations

import json
import os
from pathlib import Path

from evaluator.adapters.codex.binary import codex_version, find_codex, native_start
from evaluator.adapters.codex.home import (
    BASE_URL_ENV,
    KEY_ENV,
    auth_file_key,
    auth_file_login,
    codex_key_env,
    create_codex_home,
    login_secrets,
)
from evaluator.adapters.codex.home_seed import codex_home_seed, seed_codex_home
from evaluator.agents.base import (
    PASSTHROUGH_ENV,
    AgentHandle,
    AgentRequest,
    AgentRunner,
    ModelEndpoint,
    link_skill,
)
from evaluator.agents.key_proxy import KeyRoute
from evaluator.agents.launching import start_agent
from evaluator.credentials import SCRIPTED_API_KEY
from evaluator.evidence.jsonl import JSON_DECODER, MAY_NEST_DEEP

CREDENTIAL_ENV = (*KEY_ENV, BASE_URL_ENV)
# The one variable `codex exec` 0.169.0 takes the built-in OpenAI provider's key from: with only
# OPENAI_API_KEY set its requests carried no key at all (docs/agents.md).
BUILT_IN_KEY_ENV = "CODEX_API_KEY"
# Where Codex discovers a repository's skills.
SKILLS_DIR = Path(".agents/skills")


def endpoint_credentials(endpoint: ModelEndpoint) -> dict[str, str]:
    """The credential variables codex gets for `endpoint` (the agent and the model judge alike)."""
    if endpoint.scripted:
        return {"OPENAI_API_KEY": endpoint.api_key or SCRIPTED_API_KEY}
    # With a key variable named, only that key is passed: the user's own OpenAI key stays out.
    env = (
        {}
        if endpoint.api_key_env
        else {k: os.environ[k] for k in CREDENTIAL_ENV if k in os.environ}
    )
    key = endpoint.key_from_environment()
    if key:
        env[codex_key_env(endpoint)] = key
    if not endpoint.base_url and endpoint.auth_from is None:
        # The built-in provider reads its key from CODEX_API_KEY only. (Beside a login copied
        # in with --auth-from the key stays where it was: which of the two Codex takes is the
        # user's set-up, not ours to change.)
        built_in_key = env.get(BUILT_IN_KEY_ENV) or env.get(codex_key_env(endpoint))
        if built_in_key:
            env[BUILT_IN_KEY_ENV] = built_in_key
    if lifted := auth_file_key(endpoint):
        # An API-key login: its key, not its file, so that the key broker can hold it.
        env[BUILT_IN_KEY_ENV] = lifted
    return env


class CodexExecRunner(AgentRunner):
    name = "codex-exec"
    evidence_mode = "codex-local-session-store"
    credential_env = KEY_ENV
    uses_auth_from = True
    commands_offline = True
    announces_start = True  # `--json`: `thread.started` once it has started
    credentials_hint = (
        "set OPENAI_API_KEY, or pass --auth-from CODEX_HOME (a folder holding auth.json)"
    )
    # Copy Codex's start-up files into the fresh home (home_seed.py); off only to measure it.
    seed_home = True
    # Codex 0.169.0 ignores the variable itself; the runner writes it into the attempt's
    # config as `openai_base_url`, the built-in OpenAI provider's base URL (`create_codex_home`).
    base_url_env = BASE_URL_ENV
    # A key goes to the OpenAI API, a ChatGPT login (`--auth-from`) to ChatGPT's Codex backend.
    default_endpoints = (
        ("api-key", "https://api.openai.com/v1"),
        ("chatgpt", "https://chatgpt.com/backend-api/codex"),
    )

    def __init__(self, binary: Path | None = None) -> None:
        self.binary = find_codex(binary)

    def version(self) -> str | None:
        return codex_version(self.binary)

    def command(self, workspace: Path) -> list[str]:
        return [
            str(native_start(self.binary).executable),
            "exec",
            "--json",
            "--skip-git-repo-check",
            "-C",
            str(workspace),
            "-s",
            "workspace-write",
        ]

    def prepare_workspace(self, workspace: Path, entry_skill: Path) -> None:
        """Links a skill kept outside `.agents/skills/` in there, where Codex discovers
        workspace skills (it follows the link: docs/agents.md)."""
        link_skill(workspace, entry_skill, SKILLS_DIR)

    def stdin_prompt(self, request: AgentRequest) -> str:
        return request.prompt

    def environment(self, request: AgentRequest, codex_home: Path, home: Path) -> dict[str, str]:
        env = {k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ}
        env.setdefault("LANG", "C.UTF-8")
        env["HOME"] = str(home)
        env["CODEX_HOME"] = str(codex_home)
        env["TERM"] = "dumb"
        env.update(native_start(self.binary).env)
        env.update(endpoint_credentials(request.endpoint))
        env.update(request.env)
        return env

    def credentials(self, endpoint: ModelEndpoint) -> dict[str, str]:
        return {**super().credentials(endpoint), **login_secrets(endpoint)}

    def login(self, endpoint: ModelEndpoint) -> str | None:
        """A key in the environment, or the login of the auth.json `--auth-from` copies in;
        both at once: which one Codex takes is not told here."""
        if endpoint.auth_from is None or endpoint.scripted or endpoint.base_url:
            return super().login(endpoint)
        if os.environ.get(BASE_URL_ENV):
            return None  # the user's own endpoint, checked as such
        if any(os.environ.get(name) for name in self.credential_env):
            return None
        return auth_file_login(endpoint.auth_from / "auth.json")

    def key_route(self, endpoint: ModelEndpoint) -> KeyRoute | None:
        """The key stays with the proxy and the variable holds the placeholder: Codex's shell
        leaves `*KEY*` variables out of commands, but the CLI's own environment is readable
        from them (`/proc/<pid>/environ`). A custom endpoint's provider entry (written into the
        attempt's home) names the proxy as its base URL; the built-in OpenAI provider (a key
        without --base-url) is given it as `openai_base_url`, the proxy forwarding to
        `OPENAI_BASE_URL` or the OpenAI API. A ChatGPT login is not routed (docs/security.md)."""
        if endpoint.scripted:
            return None
        if endpoint.base_url:
            return KeyRoute(
                base_url_env=None,
                key_envs=(codex_key_env(endpoint),),
                default_upstream=endpoint.base_url,
                key_headers=("authorization",),
            )
        return KeyRoute(
            base_url_env=BASE_URL_ENV,
            key_envs=tuple(dict.fromkeys((codex_key_env(endpoint), *self.credential_env))),
            default_upstream=dict(self.default_endpoints)["api-key"],
            key_headers=("authorization",),
        )

    def has_credentials(self, endpoint: ModelEndpoint) -> bool:
        if endpoint.base_url and not endpoint.scripted:
            # A custom endpoint is reached with the one variable its provider entry names.
            return bool(os.environ.get(codex_key_env(endpoint)))
        return super().has_credentials(endpoint)

    def run(self, request: AgentRequest) -> AgentHandle:
        request.agent_dir.mkdir(parents=True, exist_ok=True)
        home = attempt_home(request.agent_dir)
        home.mkdir(exist_ok=True)
        codex_home = attempt_codex_home(request.agent_dir)
        env = self.environment(request, codex_home, home)
        with self.keys_held_back(request.endpoint, env) as (agent_env, endpoint):
            # The provider entry, or the built-in provider's base URL, names the proxy when
            # there is one (it forwards to the endpoint's own URL, path and all).
            create_codex_home(codex_home, endpoint, agent_env)
            # What Codex would write into the empty home itself, written before it starts
            # (home_seed.py): its migrated, empty databases.
            seed = codex_home_seed(self.binary, self.version()) if self.seed_home else None
            if seed is not None:
                seed_codex_home(codex_home, seed)
            handle = start_agent(
                self.name,
                request,
                self.command(request.workspace),
                agent_env,
                stdin_text=self.stdin_prompt(request),
                binary=self.binary,
                agent_home=codex_home,
                home=home,
                adapter="codex",
                launched_child=self.launches_child,
                announces_start=self.announces_start,
            )
        read_exec_events(handle.stdout_path, handle)
        return handle


def attempt_home(agent_dir: Path) -> Path:
    """The attempt's HOME."""
    return agent_dir / "home"


def attempt_codex_home(agent_dir: Path) -> Path:
    """The attempt's `CODEX_HOME`: `~/.codex` of its HOME, where Codex keeps its config,
    sessions and user skills for a user who sets none, so a skill that reads the default place
    (`~/.codex/sessions/**/rollout-*.jsonl`, a session-history skill) finds this session as it
    would on the user's machine (docs/agents.md, "Codex's home at `~/.codex`")."""
    return attempt_home(agent_dir) / ".codex"


def endpoint_error_message(message: str) -> str:
    """Codex passes the model endpoint's error body on as its message, JSON and all (after a
    status line or not): the body's own `error.message` reads better, whatever precedes it."""
    start = message.find("{")
    if start < 0:
        return message
    try:
        body = json.loads(message[start:])
    except (ValueError, RecursionError):  # the endpoint's text, not ours: any shape may come
        return message
    error = body.get("error") if isinstance(body, dict) else None
    inner = error.get("message") if isinstance(error, dict) else None
    if not isinstance(inner, str) or not inner:
        return message
    return f"{message[:start]}{inner}"


def read_exec_events(stdout_path: Path, handle: AgentHandle) -> None:
    """Thread ids and error items from the `--json` stream (root thread only, by design of codex)."""
    try:
        lines = stdout_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    last_kind = None
    # An `error` event is also a notice the CLI recovers from (`Reconnecting... 2/5` after a
    # dropped stream, then the same turn completes over HTTPS): only one no completed turn
    # followed is the agent's error. A failed turn always is.
    failed: str | None = None
    unrecovered: str | None = None
    for line in lines:
        try:  # json.loads, by msgspec where it agrees (evidence/jsonl.py), in this frame
            if line.count("[") + line.count("{") >= MAY_NEST_DEEP:
                event = json.loads(line)
            else:
                try:
                    event = JSON_DECODER.decode(line)
                except ValueError:
                    event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        last_kind = kind
        if kind == "thread.started" and handle.root_thread_id is None:
            handle.root_thread_id = event.get("thread_id")
        elif kind == "item.completed":
            item = event.get("item") or {}
            if item.get("type") == "collab_tool_call" and item.get("tool") == "spawn_agent":
                for thread_id in item.get("receiver_thread_ids") or []:
                    if thread_id not in handle.spawned_thread_ids:
                        handle.spawned_thread_ids.append(thread_id)
        elif kind == "turn.completed":
            unrecovered = None
        elif kind in ("turn.failed", "error"):
            message = event.get("message") or (event.get("error") or {}).get("message")
            shown = endpoint_error_message(message) if isinstance(message, str) else message
            reported = f"agent reported an error: {shown}" if message else None
            if kind == "turn.failed":
                failed = failed or reported
            else:
                unrecovered = unrecovered or reported
    handle.error = failed or unrecovered
    # Codex reports each reconnect to an unreachable endpoint as an `error` event and never
    # exits (docs/codex-facts.md): a kill right after one means it was still waiting for it.
    handle.stalled_on_model = last_kind == "error" and handle.error is not None
