"""Starting one agent CLI process for an attempt: wrapped by the run's jail and tracer, in its own
process group with the timeout (process.py), its output captured, described by an AgentHandle.
Every runner starts its CLI through here; only the argv, environment and stdin differ."""

from __future__ import annotations

import os
import time
from pathlib import Path

from evaluator.agents.base import AgentHandle, AgentRequest, link_user_skill
from evaluator.agents.process import (
    NOT_STARTED,
    LeftBehind,
    ProcessOutcome,
    run_process,
    start_problem,
)
from evaluator.agents.start_gate import agent_start_gate

STDOUT = "stdout.jsonl"
STDERR = "stderr.txt"


def start_agent(
    runner: str,
    request: AgentRequest,
    argv: list[str],
    env: dict[str, str],
    *,
    stdin_text: str,
    binary: Path,
    agent_home: Path,
    home: Path,
    adapter: str,
    launched_child: bool,
    session_dirs: tuple[Path, ...] | None = None,
    announces_start: bool = False,
) -> AgentHandle:
    """`session_dirs`: where the CLI records its sessions, when not the whole `agent_home`. The
    request's skill is linked at its user-level folders under `home` before the agent starts
    (`link_user_skill`). `announces_start`: the CLI writes its first output once started, so
    it starts through the agents' start gate (`AgentRunner.announces_start`)."""
    skill_links = link_user_skill(home, request.skill, request.user_skill_dirs)
    for companion in request.companion_skills:
        skill_links |= link_user_skill(home, companion, request.user_skill_dirs)
    request.secrets.add_environment(env)
    env = request.launch.agent_env(env, binary, request.workspace, request.agent_dir)
    stdout_path = request.agent_dir / STDOUT
    stderr_path = request.agent_dir / STDERR
    problem = start_problem(Path(argv[0]), env.get("PATH", os.defpath))
    if problem is not None:
        # Found at the start (the binary changed since the run began): no process, no exit
        # code, and the attempt is blocked as the machine's fault, never the skill's.
        stdout_path.write_bytes(b"")
        stderr_path.write_bytes(b"")
        now = time.time()
        outcome = ProcessOutcome(None, False, False, now, now, f"{NOT_STARTED}: {problem}")
        trace_path = None
    else:
        wrapped, trace_path = request.launch.wrap(argv, env, request.workspace, request.agent_dir)
        outcome = run_process(
            wrapped,
            cwd=request.workspace,
            env=env,
            stdin_text=stdin_text,
            stdout_path=stdout_path,
            stderr_path=stderr_path,
            timeout_s=request.timeout_s,
            stop_when=request.stop_when,
            stop_fd=request.stop_fd,
            start_gate=agent_start_gate() if announces_start else None,
            # What a tool call left running in the workspace or with the attempt's HOME.
            left=LeftBehind(str(request.workspace), _attempt_home(env, request.agent_dir)),
        )
    return AgentHandle(
        runner=runner,
        workspace=request.workspace,
        agent_home=agent_home,
        stdout_path=stdout_path,
        stderr_path=stderr_path,
        started_at=outcome.started_at,
        ended_at=outcome.ended_at,
        exit_code=outcome.exit_code,
        timed_out=outcome.timed_out,
        killed=outcome.killed,
        prompt=request.prompt,
        error=outcome.error,
        jail=request.launch.jail,
        trace_path=trace_path,
        tracer=request.launch.tracer,
        # The installations the agent runs from count as its own only in the trace's verdict,
        # their one reader: an untraced attempt does not resolve them (PATH, the CLI).
        own_dirs=(
            request.agent_dir,
            *(request.launch.tool_roots(binary, env) if trace_path is not None else ()),
        ),
        private_dirs=request.launch.private_dirs(),
        hidden_dirs=request.launch.hidden,
        own_pid_namespace=request.launch.own_pid_namespace(),
        session_dirs=(agent_home,) if session_dirs is None else session_dirs,
        adapter=adapter,
        home=home,
        launched_child=launched_child,
        stopped_early=outcome.stopped,
        stopped_at=outcome.stopped_at,
        skill_links=skill_links,
    )


def _attempt_home(env: dict[str, str], agent_dir: Path) -> str | None:
    """The agent's HOME when it is the attempt's own (under its agent directory, as every runner
    makes it): a HOME shared with other processes (the user's) must never mark them as the
    attempt's leftovers to kill."""
    home = env.get("HOME")
    if home is None or not Path(home).resolve().is_relative_to(agent_dir.resolve()):
        return None
    return home
