"""Claude Code: `claude -p --output-format stream-json` per attempt with its own HOME and
CLAUDE_CONFIG_DIR, transcripts in `projects/<cwd>/<session>.jsonl`, the Messages API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from evaluator.adapters.base import AgentAdapter, AgentOptions
from evaluator.adapters.claude.binary import CLAUDE
from evaluator.adapters.claude.normalize import is_claude_transcript, normalize_claude_transcript
from evaluator.adapters.claude.runner import SKILLS_DIR
from evaluator.adapters.claude.tool_texts import read_tool_texts
from evaluator.agents.base import AgentRunner
from evaluator.evidence.content import ToolText
from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.tool_texts import OutputRefs
from evaluator.sessions.base import SessionStore


class ClaudeOptions(AgentOptions):
    bin: Path | None = None
    permission_mode: str | None = None


class ClaudeAdapter(AgentAdapter):
    name = "claude"
    label = "Claude Code"
    protocol = "messages"
    protocol_label = "Messages-API"
    cli = CLAUDE
    options_model = ClaudeOptions
    skill_dir = PurePosixPath(SKILLS_DIR.as_posix())
    discovery_dirs = (".claude/skills", "$AGENT_HOME/skills", "~/.claude/skills")
    trigger_signal = "a `Skill` tool use naming the skill"
    in_session = False

    def runner(self, name: str, options: AgentOptions) -> AgentRunner:
        from evaluator.adapters.claude.runner import ClaudeCodeRunner
        from evaluator.adapters.claude.subagent import ClaudeSubagentRunner

        assert isinstance(options, ClaudeOptions)
        runners = {"claude-code": ClaudeCodeRunner, "claude-subagent": ClaudeSubagentRunner}
        return runners[name](options.bin, options.permission_mode)

    def session_store(self, home: Path) -> SessionStore:
        from evaluator.adapters.claude.sessions import ClaudeSessionStore

        return ClaudeSessionStore(home)

    def recognizes_session(self, first_record: dict[str, object] | None) -> bool:
        return is_claude_transcript(first_record)

    def normalize(self, path: Path, *, home: str | None = None) -> SessionEvidence:
        return normalize_claude_transcript(path, home=home)

    def tool_texts(self, path: Path, refs: OutputRefs) -> Iterator[ToolText]:
        return read_tool_texts(path, refs)

    def in_flight_sessions(self, agent_dir: Path) -> list[Path]:
        transcripts = (agent_dir / "claude-config" / "projects").glob("*/*.jsonl")
        return sorted(transcripts, key=lambda p: p.stat().st_mtime, reverse=True)


ADAPTER = ClaudeAdapter()
