"""Gemini CLI as the model judge's backend: `gemini --approval-mode plan --output-format json` in a
fresh GEMINI_CLI_HOME with our settings only, with the evidence bundle as its working root.

The judge gets what an evaluated Gemini CLI agent gets and nothing more: our settings file (also
as the system settings, so `/etc/gemini-cli/` is not read), the runner's environment allowlist and
credentials, and no foreign context (settings or `GEMINI.md` in the bundle or above it are
refused, as for an attempt). It can read the bundle but change nothing: plan mode (the CLI's
read-only mode) offers no shell tool and its policy denies `write_file` and `replace` everywhere
but `.md` plans, which it writes under the judge's own throwaway home, never the bundle (checked
with the real 0.61.0: docs/agents.md).

Gemini CLI cannot be given an output schema, so the schema is appended to the prompt and the
reply is the `response` text, read by the grader's verification like any other reply (a
malformed one is refused there). The one thing taken off is a single markdown fence around the
whole reply, which Gemini models add to JSON answers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from evaluator.adapters.gemini.runner import GeminiCliRunner, foreign_context, settings
from evaluator.agents.base import AgentRequest, ModelEndpoint
from evaluator.agents.process import run_process
from evaluator.grader.base import EndpointJudgeBackend, JudgeCall, JudgeReply

CONTEXT_FILE = "GEMINI.md"
_FENCED = re.compile(r"\A\s*```(?:json)?\s*\n(.*?)\n\s*```\s*\Z", re.S)


def schema_instructions(schema: dict[str, Any]) -> str:
    """What the prompt's "output schema" is, for a CLI that takes none."""
    return (
        "\n\nThe output schema (JSON Schema) your answer must match:\n"
        f"{json.dumps(schema, indent=1)}\n"
        "Reply with that JSON object only: no other text, no markdown.\n"
    )


def context_files(bundle: Path) -> list[Path]:
    """Context files anywhere in the bundle (a copied workspace file). In a trusted folder,
    which a headless run must be, the CLI puts every one below its working directory into the
    model's context as project instructions, at start and when a tool touches its directory,
    whatever the settings (`context.fileName` only adds names): the agent under test would be
    instructing its judge. Such a bundle is not judged by this CLI."""
    return sorted(bundle.rglob(CONTEXT_FILE))


def unfenced(text: str) -> str:
    found = _FENCED.match(text)
    return found.group(1) if found else text


class GeminiJudgeBackend(EndpointJudgeBackend):
    name = "gemini"

    def __init__(self, endpoint: ModelEndpoint, gemini_bin: Path | str | None = None) -> None:
        super().__init__(endpoint)
        # The runner's environment and credentials are the judge's: one allowlist for both.
        self.runner = GeminiCliRunner(Path(gemini_bin) if gemini_bin else None)

    def command(self, call: JudgeCall) -> list[str]:
        return [
            str(self.runner.binary),
            "--approval-mode",
            "plan",
            "--output-format",
            "json",
            "--model",
            self.model,
            "--prompt",
            call.prompt + schema_instructions(call.answer_schema),
        ]

    def settings(self) -> dict[str, Any]:
        """The runner's settings; against a scripted server, one attempt per request (it answers
        deterministically: the CLI's ten retries with backoff would only turn an error into a
        timeout)."""
        values = settings(self.model)
        if self.endpoint.scripted:
            values["general"] = {**values.get("general", {}), "maxAttempts": 1}
        return values

    def environment(
        self, call: JudgeCall, home: Path, settings_path: Path, tmp: Path
    ) -> dict[str, str]:
        request = AgentRequest(
            workspace=call.bundle,
            agent_dir=call.scratch,
            prompt=call.prompt,
            endpoint=self.endpoint,
            timeout_s=call.timeout_s,
        )
        return self.runner.environment(request, home, settings_path, tmp)

    def credentials(self) -> dict[str, str]:
        """What the judge's Gemini CLI is given to reach its model, for redaction."""
        return self.runner.credentials(self.endpoint)

    def default_endpoint(self) -> str | None:
        return self.runner.default_endpoint(self.endpoint)

    def ask(self, call: JudgeCall) -> JudgeReply:
        leaking = foreign_context(call.bundle) + context_files(call.bundle)
        if leaking:
            return JudgeReply(
                None,
                "Gemini CLI would load settings or context besides the evaluator's: "
                + ", ".join(str(p) for p in leaking),
            )
        call.scratch.mkdir(parents=True, exist_ok=True)
        home = call.scratch / "gemini-home"
        tmp = call.scratch / "tmp"
        settings_path = home / ".gemini" / "settings.json"
        try:
            settings_path.parent.mkdir(parents=True, exist_ok=False)
            tmp.mkdir(exist_ok=False)
            settings_path.write_text(json.dumps(self.settings(), indent=2) + "\n")
        except OSError as exc:
            return JudgeReply(None, f"judge home could not be created: {exc}")
        stdout_path = call.scratch / "stdout.json"
        env = self.environment(call, home, settings_path, tmp)
        # The judge reaches a real provider as the agent does: through the key proxy, the key
        # never in its environment.
        with self.runner.keys_held_back(self.endpoint, env) as (judge_env, _):
            outcome = run_process(
                self.command(call),
                cwd=call.bundle,
                env=judge_env,
                stdin_text="",
                stdout_path=stdout_path,
                stderr_path=call.scratch / "stderr.txt",
                timeout_s=call.timeout_s,
            )
        if outcome.timed_out:
            return JudgeReply(None, f"judge timed out after {call.timeout_s:g}s and was killed")
        if outcome.error:
            return JudgeReply(None, f"judge could not start: {outcome.error}")
        # The result object is printed on stdout; a failed run prints its error object last
        # on stderr instead, after the stack trace.
        result = _result(stdout_path) or _result(call.scratch / "stderr.txt")
        error = result.get("error") if result else None
        if error:
            detail = error.get("message") if isinstance(error, dict) else error
            return JudgeReply(None, f"judge reported an error: {detail}")
        if outcome.exit_code != 0:
            return JudgeReply(None, f"judge exited with code {outcome.exit_code}")
        response = result.get("response") if result else None
        if not isinstance(response, str):
            return JudgeReply(None, "judge gave no final message")
        return JudgeReply(unfenced(response))


def _result(path: Path) -> dict[str, Any] | None:
    """The object `--output-format json` prints (`response` and `stats`, or `error`): the last
    one in the file that starts a line and runs to its end."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").rstrip()
    except OSError:
        return None
    start = len(text)
    while start > 0:
        start = text.rfind("{", 0, start)
        if start < 0:
            return None
        if start == 0 or text[start - 1] == "\n":
            try:
                result = json.loads(text[start:])
            except ValueError:
                continue
            return result if isinstance(result, dict) else None
    return None
