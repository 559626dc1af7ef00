"""Claude Code as the model judge's backend: `claude -p --output-format json --json-schema` in a
fresh HOME and CLAUDE_CONFIG_DIR, with the evidence bundle as its read-only working root.

The judge gets what an evaluated Claude Code agent gets and nothing more: an empty config dir
(no user settings, memory or skills), the runner's environment allowlist and credentials, and no
ancestor context (a CLAUDE.md above the bundle is refused, as for an attempt). It can read the
bundle but change nothing, twice over: only the read-only tools are offered (`--tools
Read,Glob,Grep`), and `--permission-mode plan` denies an edit or a command even when offered (both
checked with the real 2.1.197: a scripted Write and Bash end in `permission_denials`, no file is
created; docs/agents.md). `--json-schema` adds a `StructuredOutput` tool whose input the CLI checks
against the answer schema, asking again until the model calls it with a valid answer; the checked
answer comes back as `structured_output`. `--no-session-persistence` because the judge's own
session is not evidence; its reply is kept in the judge record instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evaluator.adapters.claude.runner import ClaudeCodeRunner, ancestor_context
from evaluator.agents.base import AgentRequest, ModelEndpoint
from evaluator.agents.process import run_process
from evaluator.grader.base import EndpointJudgeBackend, JudgeCall, JudgeReply

# What the judge may use: reading the bundle. No Bash, Write, Edit, Agent, Skill or web tools.
JUDGE_TOOLS = "Read,Glob,Grep"


class ClaudeJudgeBackend(EndpointJudgeBackend):
    name = "claude"

    def __init__(self, endpoint: ModelEndpoint, claude_bin: Path | str | None = None) -> None:
        super().__init__(endpoint)
        # The runner's environment and credentials are the judge's: one allowlist for both.
        self.runner = ClaudeCodeRunner(Path(claude_bin) if claude_bin else None)

    def command(self, call: JudgeCall) -> list[str]:
        return [
            str(self.runner.binary),
            "-p",
            "--output-format",
            "json",
            "--json-schema",
            json.dumps(call.answer_schema, separators=(",", ":")),
            "--permission-mode",
            "plan",
            "--tools",
            JUDGE_TOOLS,
            # No settings file at all (user, project or local: 2.1.197 parses "" as none).
            "--setting-sources",
            "",
            "--no-session-persistence",
            "--model",
            self.model,
        ]

    def environment(self, call: JudgeCall, config: Path, home: Path, tmp: Path) -> dict[str, str]:
        request = AgentRequest(
            workspace=call.bundle,
            agent_dir=call.scratch,
            prompt=call.prompt,
            endpoint=self.endpoint,
            timeout_s=call.timeout_s,
        )
        env = self.runner.environment(request, config, home, tmp)
        # No CLAUDE.md is loaded, from the bundle or below it: a copied workspace file is
        # evidence, never the judge's instructions.
        env["CLAUDE_CODE_DISABLE_CLAUDE_MDS"] = "1"
        return env

    def credentials(self) -> dict[str, str]:
        """What the judge's Claude Code is given to reach its model, for redaction."""
        return self.runner.credentials(self.endpoint)

    def default_endpoint(self) -> str | None:
        return self.runner.default_endpoint(self.endpoint)

    def ask(self, call: JudgeCall) -> JudgeReply:
        leaking = ancestor_context(call.bundle)
        if leaking:
            return JudgeReply(
                None,
                "Claude Code would load context from outside the judge's bundle: "
                + ", ".join(str(p) for p in leaking),
            )
        call.scratch.mkdir(parents=True, exist_ok=True)
        config, home, tmp = (call.scratch / name for name in ("claude-config", "home", "tmp"))
        try:
            for directory in (config, home, tmp):
                directory.mkdir(exist_ok=False)
        except OSError as exc:
            return JudgeReply(None, f"judge home could not be created: {exc}")
        stdout_path = call.scratch / "stdout.json"
        env = self.environment(call, config, home, tmp)
        # The judge reaches a real provider as the agent does: through the key proxy, the key
        # never in its environment.
        with self.runner.keys_held_back(self.endpoint, env) as (judge_env, _):
            outcome = run_process(
                self.command(call),
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
        result = _result(stdout_path)
        if result is None:
            return JudgeReply(
                None, f"judge exited with code {outcome.exit_code} and no result on stdout"
            )
        if result.get("is_error"):
            detail = result.get("result") or "; ".join(map(str, result.get("errors") or []))
            return JudgeReply(None, f"judge reported an error: {detail or result.get('subtype')}")
        if outcome.exit_code != 0:
            return JudgeReply(None, f"judge exited with code {outcome.exit_code}")
        structured = result.get("structured_output")
        if structured is not None:
            return JudgeReply(json.dumps(structured, ensure_ascii=False))
        # No checked answer: the model's text, which the grader's verification reads as any
        # other reply (and refuses unless it is the answer schema's JSON).
        text = result.get("result")
        if not isinstance(text, str):
            return JudgeReply(None, "judge gave no final message")
        return JudgeReply(text)


def _result(stdout_path: Path) -> dict[str, Any] | None:
    """The one result object `--output-format json` prints."""
    try:
        text = stdout_path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    try:
        result = json.loads(text)
    except ValueError:
        return None
    return result if isinstance(result, dict) else None
