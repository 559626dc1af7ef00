"""The adapter contract: everything the evaluator needs to know about one agent, in one place.

An adapter owns its agent's runners (how the CLI is started), where its skills are placed and
discovered, its session store and session format, its credentials, its typed options and the
scripted-model protocol it speaks. The pipeline, the CLI and the reports hold an adapter and
never an agent's name (docs/architecture.md, "Adapters").
"""

from __future__ import annotations

import importlib
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, ClassVar

from evaluator.errors import InputError

if TYPE_CHECKING:  # reading a session needs none of the runner's machinery
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


@dataclass(frozen=True)
class AgentMarkers:
    """What names this agent, so that nothing outside its adapter (and the scripted model
    server, tests and docs) can: `tests/test_architecture.py` looks for these."""

    words: tuple[str, ...]  # its name as a word, in any identifier or string
    env_vars: tuple[str, ...] = ()  # the variables it reads
    session_patterns: tuple[str, ...] = ()  # names of its session and login files
    tool_names: tuple[str, ...] = ()  # its tools, as its sessions record them


class AgentAdapter(ABC):
    """One agent. Subclasses declare data as class attributes and implement the methods."""

    name: ClassVar[str]  # the registry key, and what manifests and reports call the agent
    markers: ClassVar[AgentMarkers]
    label: ClassVar[str]  # for people: "Codex CLI"
    # The scripted model server's protocol module this agent speaks (`modelserver/`).
    protocol: ClassVar[str]
    protocol_label: ClassVar[str]
    # Where the skill under test goes in the attempt workspace, and every folder from which the
    # agent discovers skills: relative to the workspace, `~/...` under the HOME it is given,
    # `$AGENT_HOME/...` under its own home (CODEX_HOME, CLAUDE_CONFIG_DIR).
    skill_dir: ClassVar[PurePosixPath]
    discovery_dirs: ClassVar[tuple[str, ...]]
    # Where this agent's users install a skill, `~/...` under the HOME: what public skills name
    # in their own commands (`bash ~/.claude/skills/<name>/scripts/x.sh`). The runner links the
    # skill under test there in the attempt's own home, to the workspace's skill folder
    # (docs/isolation.md, "The skill at its user-level path"); none: no link.
    user_skill_dirs: ClassVar[tuple[str, ...]] = ()
    # Where this agent keeps the transcripts of its users' sessions, `~/...` under the HOME
    # (inside its own folder there): the history a session-history skill reads. In the jail the
    # HOME is the attempt's fresh one, so they hold this attempt's session at most: a look there
    # is the trace's to judge (`trace._arbitrate_home`), a change never.
    transcript_dirs: ClassVar[tuple[str, ...]] = ()
    # The most direct trace of a skill firing in this agent's session (trigger evaluation).
    trigger_signal: ClassVar[str]
    # The modules this adapter's methods import to read and judge an attempt's session (its
    # store, normaliser, tool texts, trace recogniser): `preload` imports them before a run's
    # first attempt, so that attempt does not pay for them.
    attempt_modules: ClassVar[tuple[str, ...]] = ()
    # Whether an evaluator agent of this kind can spawn attempts in its own session
    # (`attempt new` / `attempt collect`), and the variable the agent sets for the commands it
    # runs that names its own session (the default parent of the attempts it spawns).
    in_session: ClassVar[bool] = False
    session_env: ClassVar[str | None] = None
    # The user's own agent home: the variable that relocates it, and where it is otherwise.
    home_env: ClassVar[str | None] = None
    default_home: ClassVar[str | None] = None

    def preload(self) -> None:
        """Imports `attempt_modules` (once per process; each is imported on first use anyway)."""
        for module in self.attempt_modules:
            importlib.import_module(module)

    def options_model(self) -> type[AgentOptions]:
        """This adapter's options model (its short flags are declared where it is registered)."""
        from evaluator.adapters.options import AgentOptions

        return AgentOptions

    def options(self, raw: Mapping[str, object]) -> AgentOptions:
        """`raw` (from `--agent-option` and the aliases) as this adapter's typed options."""
        from evaluator.adapters.options import parse_options

        return parse_options(self.options_model(), raw, self.name)

    def cli(self) -> PinnedCli | None:
        """The pinned CLI `setup-agents` installs, if the agent is one."""
        return None

    @abstractmethod
    def runner(self, name: str, options: AgentOptions) -> AgentRunner:
        """The runner `name` (one of the runner names registered for this adapter), ready to
        run: a missing CLI is an EnvironmentProblem here."""

    @abstractmethod
    def session_store(self, home: Path) -> SessionStore:
        """The store that reads sessions under the agent home the runner reported."""

    @abstractmethod
    def recognizes_session(self, first_record: dict[str, object] | None) -> bool:
        """Whether a session file whose first record is this was written by this agent. Asked
        only of a file no runner of ours recorded (`session inspect FILE`, an imported session):
        it must accept no other agent's file, since a file two adapters accept is refused."""

    @abstractmethod
    def normalize(
        self,
        path: Path,
        *,
        home: str | None = None,
        skill_links: Mapping[str, str] | None = None,
    ) -> SessionEvidence:
        """The session file as agent-neutral evidence records. `home`: the HOME the agent had;
        `skill_links`: the links the runner made to the skill under test in it (link path ->
        the skill's folder in the workspace, `agents/base.py` `link_user_skill`)."""

    def check_login_dir(self, folder: Path) -> None:
        """Refuses a `--auth-from` folder this agent cannot copy its login from."""
        raise InputError(f"{self.label} does not take a login folder", field="--auth-from")

    def judge_backend(self, endpoint: ModelEndpoint, options: AgentOptions) -> JudgeBackend:
        """This agent's CLI as the model judge's backend, asking `endpoint`'s model."""
        raise InputError(f"{self.label} cannot be the model judge", field="--judge-model")

    def trace_recognizer(self) -> ToolCallRecognizer | None:
        """How this agent's tool calls look in the access trace; None when no one has taught
        the trace (its verdict is then `unverifiable`: the log cannot be attributed)."""
        return None

    def user_home(self) -> Path:
        """The user's own agent home (`home_env`, else `default_home`)."""
        if self.home_env and os.environ.get(self.home_env):
            return Path(os.environ[self.home_env])
        if self.default_home is None:
            raise InputError(f"{self.label} has no agent home", field="--agent-home")
        return Path(self.default_home).expanduser()

    def skill_name(self, folder: str, declared: str | None) -> str:
        """The name this agent lists and invokes the skill in the folder named `folder` by,
        `declared` being its SKILL.md front matter's `name` (None without one). By default the
        declared name as written, else the folder's: Codex CLI's rule (docs/agents.md, "How
        each agent names a skill")."""
        return declared if declared else folder

    def home_skill_dir(self, home: Path) -> Path:
        """Where the agent discovers skills under the agent home `home`."""
        for folder in self.discovery_dirs:
            if folder.startswith("$AGENT_HOME/"):
                return home / folder.removeprefix("$AGENT_HOME/")
        raise InputError(f"{self.label} finds no skills in its home", field="--agent-home")

    def live_home(self) -> Path:
        """The user's own agent home, whose session store in-session attempts are found in."""
        if not self.in_session:
            raise InputError(f"{self.label} has no in-session mode")
        return self.user_home()

    def tool_texts(self, path: Path, refs: OutputRefs) -> Iterator[ToolText]:
        """Every tool input and output of the session file `path`, whole, in session order
        (what `evidence/content.py` compares); none when the format records no outputs."""
        return iter(())

    def check_scratch(self, scratch: Path) -> None:
        """Refuses a scratch directory this agent cannot run in (EnvironmentProblem)."""
        return None

    def skill_triggers(
        self, evidence: SessionEvidence, session_path: Path | None, skills: list[SkillSource]
    ) -> list[Trigger]:
        """Which of `skills` fired in the session, each once (its first firing), from this
        agent's `trigger_signal`; `session_path` is the raw session file when it is kept (whole
        tool outputs), else the records' excerpts decide."""
        raise InputError(f"{self.label} has no trigger signal", field="--agent")

    def in_flight_sessions(self, agent_dir: Path) -> list[Path]:
        """Session files an attempt stopped mid-run left under its agent directory, newest
        first (kept as `interrupted-session.jsonl`)."""
        return []

    def decision_watch(
        self, agent_dir: Path, skills: list[SkillSource], *, pace: float = 4.0
    ) -> Callable[[], bool]:
        """A condition asked while the agent runs (`AgentRequest.stop_when`): it holds once the
        session the agent is writing under `agent_dir` shows one of `skills` fired, by the same
        signal `skill_triggers` reads afterwards, so the attempt stops with its evidence on disk.
        The session is read again only when it grew, and never sooner than `pace` times the last
        read took (a long session of an agent that fires nothing must not eat a core); a
        half-written one decides nothing yet."""
        seen: dict[Path, int] = {}
        next_read = 0.0

        def decided() -> bool:
            nonlocal next_read
            if time.monotonic() < next_read:
                return False
            for path in self.in_flight_sessions(agent_dir)[:1]:
                started = time.monotonic()
                try:
                    size = path.stat().st_size
                    if seen.get(path) == size:
                        return False
                    seen[path] = size
                    return bool(self.skill_triggers(self.normalize(path), path, skills))
                except Exception:  # mid-write: the next look decides
                    return False
                finally:
                    next_read = time.monotonic() + pace * (time.monotonic() - started)
            return False

        return decided
