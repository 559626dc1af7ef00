"""A fresh CODEX_HOME per attempt: our config only, so no user AGENTS.md, skills or config leak.

It must not live under /tmp: codex then refuses to create its helper binaries and every
sandboxed command fails (docs/codex-facts.md).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from evaluator.agents.base import ModelEndpoint
from evaluator.credentials import auth_file_secrets
from evaluator.errors import EnvironmentProblem

PROVIDER_ID = "agentic-eval"
AUTH_FILES = ("auth.json",)
# The user's variable for the built-in OpenAI provider's base URL (Codex itself ignores it).
BASE_URL_ENV = "OPENAI_BASE_URL"
# The variables a user's key is read from.
KEY_ENV = ("OPENAI_API_KEY", "CODEX_API_KEY")


def _toml_string(value: str) -> str:
    return json.dumps(value)


@functools.cache
def _catalog_text(model: str) -> str:
    """The catalog file of every home made for `model` (read and written once per process)."""
    return json.dumps(catalog_entry(model), indent=1)


def catalog_entry(model: str) -> dict[str, object]:
    raw = resources.files("evaluator.data").joinpath("model-catalog-entry.json").read_text()
    entry: dict[str, object] = json.loads(raw)["models"][0]
    entry["slug"] = model
    entry["display_name"] = model
    return {"models": [entry]}


def user_codex_home() -> Path:
    """The live Codex home: `$CODEX_HOME` (Codex also sets it for the commands it runs), else
    `~/.codex`."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def check_location(path: Path) -> None:
    resolved = path.resolve()
    if resolved == Path("/tmp") or Path("/tmp") in resolved.parents:
        raise EnvironmentProblem(
            f"agent home {resolved} is under /tmp, where codex cannot start its sandbox;"
            " use a scratch root elsewhere (e.g. /var/tmp)"
        )


def codex_key_env(endpoint: ModelEndpoint) -> str:
    """The variable codex reads the key of a custom endpoint from."""
    return endpoint.api_key_env or "OPENAI_API_KEY"


def auth_file_login(path: Path) -> str | None:
    """The login a Codex auth.json holds: "chatgpt" (its tokens), "api-key" (its key), or
    None when it holds both, neither, or cannot be read (its own `auth_mode` decides first)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    mode = {"chatgpt": "chatgpt", "apikey": "api-key"}.get(str(data.get("auth_mode")))
    if mode is not None:
        return mode
    tokens, key = bool(data.get("tokens")), bool(data.get("OPENAI_API_KEY"))
    if tokens != key:
        return "chatgpt" if tokens else "api-key"
    return None


def auth_file_key(endpoint: ModelEndpoint) -> str | None:
    """The key of an `--auth-from` login that is an API key, when nothing else decides the
    login (no key variable set, no endpoint of our own): the key broker holds it as
    CODEX_API_KEY instead of the copied auth.json, which any tool call could read from the
    attempt's home. None for a ChatGPT login (its tokens are refreshed by the CLI itself)."""
    if endpoint.auth_from is None or endpoint.base_url or endpoint.scripted:
        return None
    names = (endpoint.api_key_env,) if endpoint.api_key_env else KEY_ENV
    if any(os.environ.get(name) for name in names if name):
        return None
    path = endpoint.auth_from / "auth.json"
    if auth_file_login(path) != "api-key":
        return None
    try:
        key = json.loads(path.read_text(encoding="utf-8")).get("OPENAI_API_KEY")
    except (OSError, ValueError, RecursionError, AttributeError):
        return None
    return key if isinstance(key, str) and key else None


def login_secrets(endpoint: ModelEndpoint) -> dict[str, str]:
    """The credentials inside the login files `create_codex_home` copies from `--auth-from`."""
    if endpoint.auth_from is None:
        return {}
    found: dict[str, str] = {}
    for name in AUTH_FILES:
        found.update(auth_file_secrets(endpoint.auth_from / name, name))
    return found


HOUSEKEEPING_FEATURES = (
    "plugins",
    "remote_plugin",
    "plugin_sharing",
    "apps",
    "shell_snapshot",
    "daemon_auto_start",
    "in_app_updates",
    "skill_mcp_dependency_install",
)


def create_codex_home(home: Path, endpoint: ModelEndpoint, env: Mapping[str, str]) -> Path:
    """The attempt's Codex home: its config (the model, its provider, no housekeeping) and
    the login `--auth-from` copies in. `env` is the CLI's environment: without a provider
    entry of ours, its `OPENAI_BASE_URL` (the user's, or the key proxy's) becomes the built-in
    OpenAI provider's `openai_base_url`, which Codex reads where it ignores the variable."""
    check_location(home)
    home.mkdir(parents=True, exist_ok=False)
    lines = [
        # `bash -lc` sources the user's profile, which leaks their shell set-up into commands.
        "allow_login_shell = false",
        "check_for_update_on_startup = false",
    ]
    if endpoint.model:
        lines.insert(0, f"model = {_toml_string(endpoint.model)}")
    if not endpoint.base_url and env.get(BASE_URL_ENV):
        lines.append(f"openai_base_url = {_toml_string(env[BASE_URL_ENV])}")
    if endpoint.base_url:
        if not endpoint.model:
            raise ValueError("a custom model endpoint needs a model name")
        catalog = home / "model-catalog.json"
        catalog.write_text(_catalog_text(endpoint.model), encoding="utf-8")
        lines += [
            f"model_provider = {_toml_string(PROVIDER_ID)}",
            f"model_catalog_json = {_toml_string(str(catalog))}",
            "",
            f"[model_providers.{PROVIDER_ID}]",
            f"name = {_toml_string('agentic-eval model endpoint')}",
            f"base_url = {_toml_string(endpoint.base_url)}",
            'wire_api = "responses"',
            *([] if endpoint.scripted else [f"env_key = {_toml_string(codex_key_env(endpoint))}"]),
            # A scripted server answers deterministically: retrying an error only hides it.
            f"request_max_retries = {0 if endpoint.scripted else 2}",
            f"stream_max_retries = {0 if endpoint.scripted else 2}",
        ]
    # Housekeeping that is no part of an attempt: syncing the plugin marketplace (a `git
    # ls-remote` to github.com), snapshotting the user's login shell, a background daemon that
    # could outlive the attempt, in-app updates, installing a skill's MCP dependencies from the
    # network. The tools the model may call stay as they are. (Last: a table ends the top level.)
    lines += ["", "[features]", *(f"{name} = false" for name in HOUSEKEEPING_FEATURES)]
    (home / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    # An API-key login reaches Codex through the key broker instead (`auth_file_key`).
    if endpoint.auth_from is not None and auth_file_key(endpoint) is None:
        for name in AUTH_FILES:
            source = endpoint.auth_from / name
            if source.is_file():
                shutil.copy2(source, home / name)
    return home
