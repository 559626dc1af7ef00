"""Gemini CLI: `gemini --yolo --prompt` per attempt with its own GEMINI_CLI_HOME, sessions in
`.gemini/tmp/<project>/chats/session-*.jsonl` (a sub-agent's in `chats/<parent id>/`), the Gemini
API (`generateContent`)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from evaluator.adapters.base import AgentAdapter, AgentMarkers
from evaluator.errors import InputError

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

# What Gemini CLI's skill loader replaces in a skill's declared name.
_UNSAFE_IN_NAME = re.compile(r'[:\\/<>*?"|]')


class GeminiAdapter(AgentAdapter):
    name = "gemini"
    markers = AgentMarkers(
        words=("gemini",),
        env_vars=("GEMINI_CLI_HOME", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"),
        session_patterns=("projectHash", "toolCalls"),
        # Only its distinctive tools: `replace`, `read_file` and `glob` are ordinary words.
        tool_names=("run_shell_command", "grep_search", "activate_skill", "invoke_agent"),
    )
    label = "Gemini CLI"
    protocol = "gemini"
    protocol_label = "Gemini-API"
    skill_dir = PurePosixPath(".gemini/skills")  # the runner links the skill in there
    # Gemini CLI 0.61.0 also discovers `.agents/skills` (in the workspace and its home), and a
    # skill there overrides a same-name one in `.gemini/skills` (`SkillManager.discoverSkills`).
    discovery_dirs = (
        ".gemini/skills",
        ".agents/skills",
        "$AGENT_HOME/.gemini/skills",
        "$AGENT_HOME/.agents/skills",
        "~/.gemini/skills",
        "~/.agents/skills",
    )
    # Listed by the CLI too: the workspace's copy wins by name (after a "Skill conflict
    # detected" warning), and both are one folder.
    user_skill_dirs = ("~/.gemini/skills", "~/.agents/skills")
    # Its chats only, one folder per project (`sessions.py`): the project's folder also keeps
    # its shell history and logs (`shell_history`, `logs.json`), which are no transcripts.
    transcript_dirs = ("~/.gemini/tmp/*/chats",)
    trigger_signal = "an `activate_skill` tool call naming the skill"
    attempt_modules = tuple(
        f"evaluator.adapters.gemini.{m}" for m in ("normalize", "sessions", "tool_texts", "trace")
    )
    in_session = False
    home_env = "GEMINI_CLI_HOME"
    default_home = "~"

    def cli(self) -> PinnedCli | None:
        from evaluator.adapters.gemini.binary import GEMINI

        return GEMINI

    def options_model(self) -> type[AgentOptions]:
        from evaluator.adapters.gemini.options import GeminiOptions

        return GeminiOptions

    def runner(self, name: str, options: AgentOptions) -> AgentRunner:
        from evaluator.adapters.gemini.options import GeminiOptions
        from evaluator.adapters.gemini.runner import GeminiCliRunner
        from evaluator.adapters.gemini.subagent import GeminiSubagentRunner

        assert isinstance(options, GeminiOptions)
        runners = {"gemini-cli": GeminiCliRunner, "gemini-subagent": GeminiSubagentRunner}
        if name not in runners:
            raise InputError(f"unknown {self.label} runner {name!r}", field="--agent")
        return runners[name](options.bin)

    def judge_backend(self, endpoint: ModelEndpoint, options: AgentOptions) -> JudgeBackend:
        from evaluator.adapters.gemini.judge import GeminiJudgeBackend
        from evaluator.adapters.gemini.options import GeminiOptions

        assert isinstance(options, GeminiOptions)
        return GeminiJudgeBackend(endpoint, options.bin)

    def session_store(self, home: Path) -> SessionStore:
        from evaluator.adapters.gemini.sessions import GeminiSessionStore

        return GeminiSessionStore(home)

    def recognizes_session(self, first_record: dict[str, object] | None) -> bool:
        # The first record is the session's untyped metadata: its id and the project's hash
        # (Claude Code's records carry a sessionId too, but always with a `type`).
        if not first_record:
            return False
        return (
            "projectHash" in first_record
            and "sessionId" in first_record
            and "type" not in first_record
        )

    def trace_recognizer(self) -> ToolCallRecognizer | None:
        from evaluator.adapters.gemini.trace import RECOGNIZER

        return RECOGNIZER

    def normalize(
        self,
        path: Path,
        *,
        home: str | None = None,
        skill_links: Mapping[str, str] | None = None,
    ) -> SessionEvidence:
        from evaluator.adapters.gemini.normalize import normalize_gemini_session

        return normalize_gemini_session(path, home=home, skill_links=skill_links)

    def tool_texts(self, path: Path, refs: OutputRefs) -> Iterator[ToolText]:
        from evaluator.adapters.gemini.tool_texts import read_tool_texts

        return read_tool_texts(path, refs)

    def skill_name(self, folder: str, declared: str | None) -> str:
        # Gemini CLI 0.61.0 names a skill by its front matter's `name`, each of `:\/<>*?"|`
        # made a `-` (its skill loader); the folder's name plays no part (docs/agents.md).
        return _UNSAFE_IN_NAME.sub("-", declared) if declared else folder

    def skill_triggers(
        self, evidence: SessionEvidence, session_path: Path | None, skills: list[SkillSource]
    ) -> list[Trigger]:
        from evaluator.adapters.gemini.triggers import skill_triggers
        from evaluator.evidence.tool_texts import ToolTextSource

        source = ToolTextSource(session_path, self.tool_texts) if session_path else None
        return skill_triggers(evidence, source, skills)

    def in_flight_sessions(self, agent_dir: Path) -> list[Path]:
        from evaluator.adapters.gemini.sessions import session_files

        return session_files(agent_dir / "gemini-home")


ADAPTER = GeminiAdapter()
