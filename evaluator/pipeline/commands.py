"""The runner of `command` checks: the author's shell text, after the agent, in the attempt's
workspace and inside the same jail as its agent (hidden: the source workspace, the home, runs
and other attempts), with a bounded time, a plain environment and a fresh, empty home."""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from evaluator.agents.process import run_process
from evaluator.judge.base import CheckAccess, CheckExec, CommandOutcome, CommandTrace
from evaluator.sandbox import LaunchPolicy
from evaluator.sandbox.base import JailSpec
from evaluator.sandbox.launch import home_toolchains, path_tools, pick_tracer
from evaluator.sandbox.registry import get_jail
from evaluator.sandbox.strace_log import read_trace, shell_script
from evaluator.sandbox.trace_registry import get_tracer

SHELL = "/bin/sh"  # what skill-creator's harnesses run a command string with (shell=True)
OUTPUT_BYTES = 256 * 1024  # of each stream, from its end: a command may print without bound


@dataclass(frozen=True)
class JailedCommands:
    launch: LaunchPolicy

    def __call__(self, command: str, workspace: Path, timeout_s: float) -> CommandOutcome:
        with tempfile.TemporaryDirectory(prefix="agentic-eval-check-") as scratch:
            # The home is new and empty, never the workspace: there, the agent's files would
            # be the check's user configuration (Python's user site and its `usercustomize`,
            # `~/.npmrc`, `~/.gitconfig`, Gradle's `init.d`, Maven's `settings.xml`) and
            # could change what the author's command does without being part of the work.
            home = Path(scratch) / "home"
            home.mkdir()
            argv = [SHELL, "-c", command]
            where = "no jail"
            path = check_path(os.environ.get("PATH", "/usr/bin:/bin"))
            toolchains = home_toolchains()
            if self.launch.jail != "none":
                # What the agent's jail binds back, the check's does too: the installations on
                # PATH under a hidden directory (cargo in ~/.cargo, pyenv), read-only, and the
                # toolchain managers' data (rustup's toolchains), or `cargo` would be missing here
                # though the machine has it.
                tools = path_tools(path, (*self.launch.hidden, Path.home()))
                spec = JailSpec(
                    workspace=workspace,
                    writable=(workspace, home),
                    hidden=self.launch.hidden,
                    tools=(*tools, *toolchains.values()),
                )
                argv = get_jail(self.launch.jail).wrap(argv, spec)
                where = f"{self.launch.jail} jail"
            env = {
                "PATH": path,
                "HOME": str(home),
                "LANG": "C.UTF-8",
                # Python reads and writes its compiled modules under the check's own home, never
                # a `__pycache__` of the workspace: there, a `.pyc` the agent left (an unchecked
                # hash-based one loads without its source) would run instead of the author's
                # test file, which stays untouched. pytest's assertion rewriting follows it.
                "PYTHONPYCACHEPREFIX": str(home / ".pycache"),
                **jvm_build_homes(home),
                **{name: str(found) for name, found in toolchains.items()},
            }
            untraced = self.untraced(argv)
            out, err = Path(scratch) / "out", Path(scratch) / "err"
            log = Path(scratch) / "check.strace"
            if untraced is None:
                # The run's tracer, outside the jail: its log (in the evaluator's /tmp, which the
                # jail replaces with its own) is out of reach of every process it traces. The
                # eBPF loader begins its log at the check's shell; strace at the jail, whose own
                # process belongs to no call (`_CheckShell`).
                argv = get_tracer(self.launch.tracer).wrap(argv, log, SHELL)
            done = run_process(
                argv,
                cwd=workspace,
                env=env,
                stdin_text="",
                stdout_path=out,
                stderr_path=err,
                timeout_s=timeout_s,
            )
            output = _tail(out) + _tail(err)
            trace = _check_trace(log, workspace) if untraced is None else None
        if done.error is not None:
            return CommandOutcome(None, output, where, error=done.error)
        if done.timed_out:
            return CommandOutcome(None, output, where, timed_out=True)
        if untraced is None and trace is None:
            untraced = "the access trace of the command is missing"
        return CommandOutcome(done.exit_code, output, where, trace=trace, untraced=untraced)

    def untraced(self, argv: list[str]) -> str | None:
        """Why the command runs without an access trace the judge can trust, or None."""
        if not self.launch.trace:
            return "the run's access trace is off (--trace off, or no tracer works here)"
        if self.launch.jail == "none":
            return "no jail: the trace's log would be within reach of the command's processes"
        if os.stat(argv[0]).st_mode & stat.S_ISUID:
            return f"{argv[0]} is set-uid: strace cannot trace it"
        return None


class _CheckShell:
    """The check's own `sh -c COMMAND` is the one "tool call" of its trace: every process below
    it belongs to it; the jail's own process (bwrap) to nobody."""

    helper_images: frozenset[str] = frozenset()
    cli_images: frozenset[str] = frozenset()

    def tool_call(self, image: str, argv: list[str], in_helper: bool) -> tuple[str, str] | None:
        script = shell_script(argv)
        return (script, "shell") if script is not None else None


def _check_trace(log: Path, workspace: Path) -> CommandTrace | None:
    if not log.is_file():
        return None
    observed = read_trace(log, _CheckShell(), start_cwd=str(workspace))
    if not observed.tool_calls:
        return None
    call = observed.tool_calls[0]
    return CommandTrace(
        execs=tuple(CheckExec(run.path, run.argv) for run in call.execs),
        accesses=tuple(
            CheckAccess(a.path, a.access, a.outcome == "ok", a.line, a.image) for a in call.accesses
        ),
        complete=len(observed.tool_calls) == 1 and observed.complete(call),
        network=tuple(dict.fromkeys(connect.peer for connect in call.connects)),
    )


def check_path(path: str) -> str:
    """The check's PATH: the evaluator's absolute entries only. An empty or relative entry
    (`.`, `bin`, `node_modules/.bin`) is looked up from the workspace, so a program the agent
    put there under the name of the author's tool (`pytest`, `jest`) would run in its place;
    the author names the workspace's own programs by path (`./node_modules/.bin/jest`)."""
    kept = [entry for entry in path.split(os.pathsep) if os.path.isabs(entry)]
    return os.pathsep.join(dict.fromkeys(kept)) or "/usr/bin:/bin"


def jvm_build_homes(home: Path) -> dict[str, str]:
    """Maven and Gradle keep their caches under the JVM's `user.home`, which comes from the
    password database, not `HOME`: in the jail that is the user's hidden, read-only home, where
    every build would fail (`Could not create local repository at /root/.m2/repository`) for
    any agent. Both are pointed at the check's own home instead."""
    return {"MAVEN_OPTS": f"-Duser.home={home}", "GRADLE_USER_HOME": str(home / ".gradle")}


def _tail(path: Path) -> str:
    with path.open("rb") as stream:
        size = stream.seek(0, os.SEEK_END)
        stream.seek(max(0, size - OUTPUT_BYTES))
        return stream.read().decode("utf-8", errors="replace")


def rejudge_commands(jail: str | None, hidden: tuple[Path, ...]) -> JailedCommands:
    """For judging a finished run again: the jail its agents ran in, when it still works here
    (the check's record says which confined it)."""
    tracer = pick_tracer()[0]
    traced = get_tracer(tracer).unavailable() is None
    if jail and jail != "none" and get_jail(jail).unavailable() is None:
        return JailedCommands(LaunchPolicy(jail=jail, trace=traced, hidden=hidden, tracer=tracer))
    return JailedCommands(LaunchPolicy(trace=traced, tracer=tracer))
