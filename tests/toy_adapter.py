"""A minimal adapter defined in the tests: a toy agent (tests/fixtures/toy_agent/agent.py) with
its own runner, session store and session format. `test_adapters.py` registers it with one line
and runs a case through it, so nothing outside an adapter may know an agent."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath

from evaluator.adapters.base import AgentAdapter, AgentMarkers
from evaluator.adapters.options import AgentOptions
from evaluator.agents.base import PASSTHROUGH_ENV, AgentHandle, AgentRequest, AgentRunner
from evaluator.agents.launching import start_agent
from evaluator.evidence.builder import EvidenceBuilder
from evaluator.evidence.content import ToolText
from evaluator.evidence.jsonl import ReadStats
from evaluator.evidence.records import SessionEvidence
from evaluator.evidence.tool_texts import OutputRefs
from evaluator.sessions.base import ChildQuery, LocateResult, SessionRef, SessionStore

AGENT = Path(__file__).parent / "fixtures/toy_agent/agent.py"


class ToyRunner(AgentRunner):
    name = "toy-agent"
    evidence_mode = "toy-sessions"

    def version(self) -> str | None:
        return "0.1"

    def run(self, request: AgentRequest) -> AgentHandle:
        home = request.agent_dir / "toy-home"
        home.mkdir(parents=True)
        env = {k: os.environ[k] for k in PASSTHROUGH_ENV if k in os.environ}
        env.update({"HOME": str(home), "TOY_HOME": str(home), **request.env})
        handle = start_agent(
            self.name,
            request,
            [sys.executable, str(AGENT)],
            env,
            stdin_text=request.prompt,
            binary=Path(sys.executable),
            agent_home=home,
            home=home,
            adapter="toy",
            launched_child=False,
        )
        lines = handle.stdout_path.read_text().splitlines()
        handle.root_thread_id = json.loads(lines[-1])["thread"] if lines else None
        return handle


class ToyStore(SessionStore):
    name = "toy"

    def __init__(self, home: Path) -> None:
        self.home = home

    def locate_thread(self, thread_id: str) -> LocateResult:
        path = self.home / "sessions" / f"{thread_id}.jsonl"
        if not path.is_file():
            return LocateResult("not-found", reason=f"no {path.name}")
        return LocateResult("found", [SessionRef(thread_id, path)], method="toy-file")

    def locate_child(self, query: ChildQuery) -> LocateResult:
        return LocateResult("not-found", reason="the toy agent spawns no children")

    def descendants(self, thread_id: str) -> list[SessionRef]:
        return []


class ToyAdapter(AgentAdapter):
    name = "toy"
    markers = AgentMarkers(words=("toy",), env_vars=("TOY_HOME",))
    label = "Toy agent"
    protocol = "none"
    protocol_label = "no"
    skill_dir = PurePosixPath(".agents/skills")
    discovery_dirs = (".agents/skills",)
    trigger_signal = "none"

    def runner(self, name: str, options: AgentOptions) -> AgentRunner:
        return ToyRunner()

    def session_store(self, home: Path) -> SessionStore:
        return ToyStore(home)

    def recognizes_session(self, first_record: dict[str, object] | None) -> bool:
        return bool(first_record) and first_record.get("type") == "toy_start"  # type: ignore[union-attr]

    def tool_texts(self, path: Path, refs: OutputRefs) -> Iterator[ToolText]:
        for number, text in enumerate(path.read_text().splitlines(), 1):
            record = json.loads(text)
            if record["type"] == "toy_command":
                yield ToolText("input", number, record["command"])
                ref = refs.get((number, record["call"]))
                yield ToolText("output", number, record["output"], ref)

    def normalize(
        self,
        path: Path,
        *,
        home: str | None = None,
        skill_links: Mapping[str, str] | None = None,
    ) -> SessionEvidence:
        normalizer = EvidenceBuilder(path, home)
        evidence = normalizer.evidence
        stats = ReadStats()
        for number, text in enumerate(path.read_text().splitlines(), 1):
            stats.lines = number
            record = json.loads(text)
            if record["type"] == "toy_start":
                evidence.thread_id, evidence.cwd = record["thread"], record["cwd"]
                evidence.cli_version = record["version"]
                evidence.add("session_start", number, path=evidence.cwd, detail="toy session")
            elif record["type"] == "toy_command":
                evidence.add("tool_call", number, call_id=record["call"], tool="shell")
                call = normalizer.observe_command(
                    number,
                    None,
                    record["call"],
                    "shell",
                    record["command"],
                    record["cwd"],
                    "record-cwd",
                )
                call.exit_code = record["exit"]
                evidence.call_outcomes[record["call"]] = "ok" if record["exit"] == 0 else "failed"
                evidence.add(
                    "tool_result", number, call_id=record["call"], text=record["output"][:200]
                )
            elif record["type"] == "toy_final":
                evidence.final_answer = record["text"]
                evidence.add("final_answer", number, text=record["text"], source="toy")
                evidence.complete = True
        return normalizer.finish(stats)


ADAPTER = ToyAdapter()


class GreedyAdapter(ToyAdapter):
    """An adapter whose session check accepts any file at all: registered beside the others,
    it makes every content sniff ambiguous, so a run that still reads its sessions proves the
    pipeline asks the runner's own adapter (`tests/adapters/test_adapters.py`)."""

    name = "greedy"
    label = "Greedy agent"

    def recognizes_session(self, first_record: dict[str, object] | None) -> bool:
        return True

    def normalize(
        self,
        path: Path,
        *,
        home: str | None = None,
        skill_links: Mapping[str, str] | None = None,
    ) -> SessionEvidence:
        raise AssertionError(f"the greedy adapter was asked to read {path}, which it never wrote")

    def tool_texts(self, path: Path, refs: OutputRefs) -> Iterator[ToolText]:
        raise AssertionError(f"the greedy adapter was asked to read {path}, which it never wrote")


GREEDY = GreedyAdapter()
