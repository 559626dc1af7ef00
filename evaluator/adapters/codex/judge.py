"""Codex as the model judge's backend: `codex exec --output-schema` in a fresh CODEX_HOME, with the evidence
bundle as its read-only working root.

The judge is an agent too, so it gets what the evaluated agent gets and nothing more: a home with
our config only, an allowlisted environment, and a sandbox in which it can read the bundle
(`-s read-only`) but change nothing. `--ephemeral` because the judge's own session is not
evidence; its reply is kept in the judge record instead.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from evaluator.adapters.codex.binary import codex_version, find_codex, native_start
from evaluator.adapters.codex.home import create_codex_home, login_secrets
from evaluator.adapters.codex.home_seed import codex_home_seed, seed_codex_home
from evaluator.adapters.codex.runner import CodexExecRunner, endpoint_credentials
from evaluator.agents.base import PASSTHROUGH_ENV, ModelEndpoint
from evaluator.agents.process import run_process
from evaluator.credentials import SCRIPTED_API_KEY, embedded_credentials, looks_secret
from evaluator.grader.base import EndpointJudgeBackend, JudgeCall, JudgeReply


class CodexJudgeBackend(EndpointJudgeBackend):
    name = "codex"

    def __init__(self, endpoint: ModelEndpoint, codex_bin: Path | str | None = None) -> None:
        super().__init__(endpoint)
        self.binary = find_codex(codex_bin)
        # The runner's key route is the judge's: one seam for both (`keys_held_back`).
        self.runner = CodexExecRunner(self.binary)

    def command(self, call: JudgeCall, schema_path: Path, last_message: Path) -> list[str]:
        return [
            str(native_start(self.binary).executable),
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--ephemeral",
            "-C",
            str(call.bundle),
            "-s",
            "read-only",
            "--output-schema",
            str(schema_path),
            "-o",
            str(last_message),
        ]

    def environment(self, codex_home: Path, home: Path) -> dict[str, str]:
        env = {k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ}
        env.setdefault("LANG", "C.UTF-8")
        env.update({"HOME": str(home), "CODEX_HOME": str(codex_home), "TERM": "dumb"})
        env.update(native_start(self.binary).env)
        env.update(endpoint_credentials(self.endpoint))
        return env

    def credentials(self) -> dict[str, str]:
        """What the judge's codex is given to log in, for redaction."""
        found = {
            name: value
            for name, value in endpoint_credentials(self.endpoint).items()
            if looks_secret(name) and value != SCRIPTED_API_KEY
        }
        if self.endpoint.base_url:
            for part, credential in embedded_credentials(self.endpoint.base_url):
                found[f"base_url:{part}"] = credential
        return {**found, **login_secrets(self.endpoint)}

    def default_endpoint(self) -> str | None:
        # The judge logs in as the agent does (endpoint_credentials, the copied auth.json).
        return CodexExecRunner(self.binary).default_endpoint(self.endpoint)

    def ask(self, call: JudgeCall) -> JudgeReply:
        call.scratch.mkdir(parents=True, exist_ok=True)
        codex_home = call.scratch / "codex-home"
        home = call.scratch / "home"
        home.mkdir(exist_ok=True)
        schema_path = call.scratch / "answer-schema.json"
        schema_path.write_text(json.dumps(call.answer_schema, indent=1), encoding="utf-8")
        last_message = call.scratch / "last-message.txt"
        stdout_path = call.scratch / "stdout.jsonl"
        env = self.environment(codex_home, home)
        # The judge reaches a real provider as the agent does: through the key proxy, the key
        # never in its environment (its provider entry, or `openai_base_url`, names the proxy).
        with self.runner.keys_held_back(self.endpoint, env) as (judge_env, endpoint):
            try:
                create_codex_home(codex_home, endpoint, judge_env)
            except OSError as exc:
                return JudgeReply(None, f"judge home could not be created: {exc}")
            # The judge's home is as fresh as an agent's: the same start-up files (home_seed.py).
            seed = codex_home_seed(self.binary, codex_version(self.binary))
            if seed is not None:
                seed_codex_home(codex_home, seed)
            outcome = run_process(
                self.command(call, schema_path, last_message),
                cwd=call.bundle,
                env=judge_env,
                stdin_text=call.prompt,
                stdout_path=stdout_path,
                stderr_path=call.scratch / "stderr.txt",
                timeout_s=call.timeout_s,
            )
        if outcome.timed_out:
            return JudgeReply(None, f"judge timed out after {call.timeout_s:g}s and was killed")
        if outcome.error:
            return JudgeReply(None, f"judge could not start: {outcome.error}")
        reported = _reported_error(stdout_path)
        if outcome.exit_code != 0:
            why = f": {reported}" if reported else ""
            return JudgeReply(None, f"judge exited with code {outcome.exit_code}{why}")
        if not last_message.is_file():
            return JudgeReply(
                None, f"judge gave no final message{': ' + reported if reported else ''}"
            )
        return JudgeReply(last_message.read_text(encoding="utf-8", errors="replace"))


def _reported_error(stdout_path: Path) -> str | None:
    """The first error codex reported on its `--json` stream (a model outage shows up here)."""
    try:
        lines = stdout_path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict) or event.get("type") not in ("turn.failed", "error"):
            continue
        message = event.get("message") or (event.get("error") or {}).get("message")
        if message:
            return str(message)
    return None
