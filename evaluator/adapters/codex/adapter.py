"""Codex CLI: `codex exec --json` per attempt in a fresh CODEX_HOME, sessions in
`sessions/**/rollout-*.jsonl` indexed by `state_5.sqlite`, the Responses API."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from evaluator.adapters.base import AgentAdapter, AgentMarkers

# Each method imports what it drives: reading a session loads no runner, launcher or jail.
if TYPE_CHECKING:
    from evaluator.adapters.options import AgentOptions
    from evaluator.agents.base import AgentRunner, ModelEndpoint
    from evaluator.agents.npm_cli import PinnedCli
    from evaluator.evidence.content import ToolText
    from evaluator.evidence.records import SessionEvidence
    from evaluator.evidence.tool_texts import OutputRefs
    from evaluator.evidence.triggers import SkillSource, Trigger
    from evaluator.grader.base import JudgeBackend
    from evaluator.sandbox.strace_log import ToolCallRecognizer
    from evaluator.sessions.base import SessionStore

# The first record of every rollout format Codex has written (docs/codex-facts.md).
ROLLOUT_FIRST_TYPES = ("session_meta", "response_item", "event_msg", "turn_context")


class CodexAdapter(AgentAdapter):
    name = "codex"
    markers = AgentMarkers(
        words=("codex",),
        env_vars=("CODEX_HOME", "CODEX_THREAD_ID", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
        session_patterns=("rollout-", "state_5.sqlite", "auth.json", "session_meta"),
        tool_names=("exec_command", "shell_command", "spawn_agent", "write_stdin", "local_shell"),
    )
    label = "Codex CLI"
    protocol = "responses"
    protocol_label = "Responses-API"
    skill_dir = PurePosixPath(".agents/skills")
    discovery_dirs = (".agents/skills", "$AGENT_HOME/skills", "~/.agents/skills")
    # `$CODEX_HOME/skills` when CODEX_HOME is unset: not a place it lists skills from in an
    # attempt, whose CODEX_HOME is elsewhere. `~/.agents/skills`: read in every attempt (the
    # attempt's HOME), so the skill under test is listed under that root, one folder with the
    # workspace's (docs/agents.md, "The skill at its user-level path").
    user_skill_dirs = ("~/.codex/skills", "~/.agents/skills")
    transcript_dirs = ("~/.codex/sessions",)  # `rollout-*.jsonl` by date, `$CODEX_HOME/sessions`
    trigger_signal = "a read of the skill's SKILL.md whose body reached the agent"
    attempt_modules = tuple(
        f"evaluator.adapters.codex.{m}" for m in ("normalize", "sessions", "tool_texts", "trace")
    )
    in_session = True
    session_env = "CODEX_THREAD_ID"
    home_env = "CODEX_HOME"
    default_home = "~/.codex"

    def cli(self) -> PinnedCli | None:
        from evaluator.adapters.codex.binary import CODEX

        return CODEX

    def options_model(self) -> type[AgentOptions]:
        from evaluator.adapters.codex.options import CodexOptions

        return CodexOptions

    def runner(self, name: str, options: AgentOptions) -> AgentRunner:
        from evaluator.adapters.codex.options import CodexOptions
        from evaluator.adapters.codex.runner import CodexExecRunner
        from evaluator.adapters.codex.subagent import CodexSubagentRunner

        assert isinstance(options, CodexOptions)
        runners = {"codex-exec": CodexExecRunner, "codex-subagent": CodexSubagentRunner}
        return runners[name](options.bin)

    def check_login_dir(self, folder: Path) -> None:
        from evaluator.errors import InputError

        if not (folder / "auth.json").is_file():
            raise InputError(
                "no auth.json in this folder (log in there with `codex login`, or set"
                " OPENAI_API_KEY)",
                path=folder,
                field="--auth-from",
            )

    def judge_backend(self, endpoint: ModelEndpoint, options: AgentOptions) -> JudgeBackend:
        from evaluator.adapters.codex.judge import CodexJudgeBackend
        from evaluator.adapters.codex.options import CodexOptions

        assert isinstance(options, CodexOptions)
        return CodexJudgeBackend(endpoint, options.bin)

    def session_store(self, home: Path) -> SessionStore:
        from evaluator.adapters.codex.sessions import CodexSessionStore

        return CodexSessionStore(home)

    def recognizes_session(self, first_record: dict[str, object] | None) -> bool:
        if not first_record:
            return False
        return first_record.get("type") in ROLLOUT_FIRST_TYPES or (
            "id" in first_record and "timestamp" in first_record  # the oldest rollouts
        )

    def trace_recognizer(self) -> ToolCallRecognizer | None:
        from evaluator.adapters.codex.trace import RECOGNIZER

        return RECOGNIZER

    def normalize(
        self,
        path: Path,
        *,
        home: str | None = None,
        skill_links: Mapping[str, str] | None = None,
    ) -> SessionEvidence:
        from evaluator.adapters.codex.normalize import normalize_codex_rollout

        return normalize_codex_rollout(path, home=home, skill_links=skill_links)

    def tool_texts(self, path: Path, refs: OutputRefs) -> Iterator[ToolText]:
        from evaluator.adapters.codex.tool_texts import read_tool_texts

        return read_tool_texts(path, refs)

    def check_scratch(self, scratch: Path) -> None:
        from evaluator.adapters.codex.home import check_location

        check_location(scratch)

    def skill_triggers(
        self, evidence: SessionEvidence, session_path: Path | None, skills: list[SkillSource]
    ) -> list[Trigger]:
        from evaluator.evidence.skill_body import body_shown_triggers
        from evaluator.evidence.tool_texts import ToolTextSource

        # Codex has no skill tool: the body shown is its only signal.
        source = ToolTextSource(session_path, self.tool_texts) if session_path else None
        return body_shown_triggers(evidence, source, skills, only_signal=True)

    def in_flight_sessions(self, agent_dir: Path) -> list[Path]:
        from evaluator.adapters.codex.runner import attempt_codex_home

        sessions = (attempt_codex_home(agent_dir) / "sessions").rglob("rollout-*.jsonl")
        return sorted(sessions, key=lambda p: p.stat().st_mtime, reverse=True)


ADAPTER = CodexAdapter()
