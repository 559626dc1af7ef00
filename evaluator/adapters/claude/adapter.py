"""Claude Code: `claude -p --output-format stream-json` per attempt with its own HOME and
CLAUDE_CONFIG_DIR, transcripts in `projects/<cwd>/<session>.jsonl`, the Messages API."""

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


class ClaudeAdapter(AgentAdapter):
    name = "claude"
    markers = AgentMarkers(
        words=("claude",),
        env_vars=("CLAUDE_CONFIG_DIR", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
        session_patterns=("shell-snapshots", "sessionId", "toolUseId"),
        tool_names=("Bash", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Task", "Skill"),
    )
    label = "Claude Code"
    protocol = "messages"
    protocol_label = "Messages-API"
    skill_dir = PurePosixPath(".claude/skills")  # the runner links the skill in there
    discovery_dirs = (".claude/skills", "$AGENT_HOME/skills", "~/.claude/skills")
    # Not a place it lists skills from in an attempt: its user skills are read from
    # `$CLAUDE_CONFIG_DIR/skills`, and only with `userSettings` among the setting sources.
    user_skill_dirs = ("~/.claude/skills",)
    transcript_dirs = ("~/.claude/projects",)  # `$CLAUDE_CONFIG_DIR/projects` in an attempt
    trigger_signal = "a `Skill` tool use naming the skill, or the user's `/name` command loading it"
    attempt_modules = tuple(
        f"evaluator.adapters.claude.{m}" for m in ("normalize", "sessions", "tool_texts", "trace")
    )
    in_session = False
    home_env = "CLAUDE_CONFIG_DIR"
    default_home = "~/.claude"

    def cli(self) -> PinnedCli | None:
        from evaluator.adapters.claude.binary import CLAUDE

        return CLAUDE

    def options_model(self) -> type[AgentOptions]:
        from evaluator.adapters.claude.options import ClaudeOptions

        return ClaudeOptions

    def runner(self, name: str, options: AgentOptions) -> AgentRunner:
        from evaluator.adapters.claude.options import ClaudeOptions
        from evaluator.adapters.claude.runner import ClaudeCodeRunner
        from evaluator.adapters.claude.subagent import ClaudeSubagentRunner

        assert isinstance(options, ClaudeOptions)
        runners = {"claude-code": ClaudeCodeRunner, "claude-subagent": ClaudeSubagentRunner}
        return runners[name](options.bin, options.permission_mode)

    def judge_backend(self, endpoint: ModelEndpoint, options: AgentOptions) -> JudgeBackend:
        from evaluator.adapters.claude.judge import ClaudeJudgeBackend
        from evaluator.adapters.claude.options import ClaudeOptions

        assert isinstance(options, ClaudeOptions)
        return ClaudeJudgeBackend(endpoint, options.bin)

    def session_store(self, home: Path) -> SessionStore:
        from evaluator.adapters.claude.sessions import ClaudeSessionStore

        return ClaudeSessionStore(home)

    def recognizes_session(self, first_record: dict[str, object] | None) -> bool:
        # The transcript's first record is typed and carries a sessionId, or is a queue or
        # summary record (an untyped record with a sessionId is another agent's metadata).
        if not first_record:
            return False
        return ("sessionId" in first_record and "type" in first_record) or first_record.get(
            "type"
        ) in (
            "queue-operation",
            "summary",
        )

    def trace_recognizer(self) -> ToolCallRecognizer | None:
        from evaluator.adapters.claude.trace import RECOGNIZER

        return RECOGNIZER

    def normalize(
        self,
        path: Path,
        *,
        home: str | None = None,
        skill_links: Mapping[str, str] | None = None,
    ) -> SessionEvidence:
        from evaluator.adapters.claude.normalize import normalize_claude_transcript

        return normalize_claude_transcript(path, home=home, skill_links=skill_links)

    def tool_texts(self, path: Path, refs: OutputRefs) -> Iterator[ToolText]:
        from evaluator.adapters.claude.tool_texts import read_tool_texts

        return read_tool_texts(path, refs)

    def skill_name(self, folder: str, declared: str | None) -> str:
        # Claude Code 2.1.197 names a skill by its folder: the front matter's `name` is not
        # what its init event lists nor what its Skill tool takes (docs/agents.md).
        return folder

    def skill_triggers(
        self, evidence: SessionEvidence, session_path: Path | None, skills: list[SkillSource]
    ) -> list[Trigger]:
        from evaluator.adapters.claude.triggers import skill_triggers
        from evaluator.evidence.tool_texts import ToolTextSource

        source = ToolTextSource(session_path, self.tool_texts) if session_path else None
        return skill_triggers(evidence, source, skills)

    def in_flight_sessions(self, agent_dir: Path) -> list[Path]:
        from evaluator.adapters.claude.runner import attempt_config

        transcripts = (attempt_config(agent_dir) / "projects").glob("*/*.jsonl")
        return sorted(transcripts, key=lambda p: p.stat().st_mtime, reverse=True)


ADAPTER = ClaudeAdapter()
