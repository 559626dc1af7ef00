"""How an agent process is launched: inside which jail, and whether under the tracer.

The run decides the policy once (`choose_policy`), the runner applies it to its argv per attempt
(`LaunchPolicy.wrap`). Order: the jail outermost, strace inside it, then the agent CLI, so the
trace also records what the jail stopped (an attempted escape fails with ENOENT but is still
visible) and sees the jail's pid namespace. A tracer that must run outside the jail (the eBPF
loader: root) wraps the jail instead, and begins its log at the agent CLI's exec.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from evaluator.errors import EnvironmentProblem
from evaluator.sandbox.base import JailSpec
from evaluator.sandbox.follow import TraceFollower
from evaluator.sandbox.registry import get_jail
from evaluator.sandbox.strace_log import ToolCallRecognizer
from evaluator.sandbox.trace_base import TraceBackend
from evaluator.sandbox.trace_registry import (
    AUTO_TRACER,
    DEFAULT_TRACER,
    FALLBACK_TRACER,
    get_tracer,
    tracers_by_preference,
)

TraceMode = Literal["auto", "on", "off"]
TRACE_FILE = "trace.strace"
DEFAULT_JAIL = "bwrap"


@dataclass(frozen=True)
class LaunchPolicy:
    jail: str = "none"
    trace: bool = False
    hidden: tuple[Path, ...] = ()
    tracer: str = FALLBACK_TRACER  # resolved: never `auto` (choose_policy picks)
    notes: tuple[str, ...] = field(default=())

    def wrap(
        self, argv: list[str], env: dict[str, str], workspace: Path, agent_dir: Path
    ) -> tuple[list[str], Path | None]:
        """The argv to run, and the trace file it will write (None when not traced)."""
        out = list(argv)
        jailed = self.jail != "none"
        if jailed:
            # The CLI may live under a hidden directory (the project's .tools/ in the source
            # workspace): run it by its real path and bind its installation back read-only.
            out[0] = os.path.realpath(argv[0])
        trace_path = agent_dir / TRACE_FILE if self.trace else None
        tracer: TraceBackend | None = get_tracer(self.tracer) if self.trace else None
        start = out[0]
        if tracer is not None and trace_path is not None and not tracer.outside_jail:
            # Inside the jail: strace then sees the jail's pid namespace, whose /proc lists only
            # the agent's processes, so mapping pids across codex's own namespaces stays cheap.
            out = tracer.wrap(out, trace_path, start)
        if jailed:
            tools = self.tool_roots(Path(argv[0]), env)
            if tracer is not None and not tracer.outside_jail:
                tools = (*tools, *tracer.tool_roots())
            spec = JailSpec(
                workspace=workspace,
                writable=(workspace, agent_dir),
                hidden=self.hidden,
                tools=tools,
            )
            out = get_jail(self.jail).wrap(out, spec)
        if tracer is not None and trace_path is not None and tracer.outside_jail:
            out = tracer.wrap(out, trace_path, start)
        return out, trace_path

    def follow_trace(
        self,
        workspace: Path,
        agent_dir: Path,
        recognizer: ToolCallRecognizer | None,
        redact: Callable[[str], str] | None = None,
    ) -> TraceFollower | None:
        """Starts reading the attempt's trace (the file `wrap` names) while the agent runs, and
        keeping a compressed, redacted copy beside the agent's directory, out of the agent's
        reach (the directory itself is writable in the jail). None when it is not traced. The
        caller must `finish()` it after the agent exits. Without the agent's `recognizer` the log
        is only kept (the verdict reads it as unusable)."""
        if not self.trace:
            return None
        return TraceFollower(
            agent_dir / TRACE_FILE,
            recognizer,
            start_cwd=str(workspace),
            agent_dirs=(str(agent_dir),),
            keep=agent_dir.with_name(f"{agent_dir.name}.{TRACE_FILE}.gz"),
            redact=redact,
        )

    def agent_env(
        self, env: dict[str, str], binary: Path, workspace: Path, agent_dir: Path
    ) -> dict[str, str]:
        """The environment the agent starts with: in the jail, PATH loses the entries that lie in
        the jail's private /tmp or /var/tmp and that nothing binds back (a venv activated from a
        checkout under /tmp). They name nothing in the jail, yet every PATH search (`#!/usr/bin/env
        python3`, a pyenv shim) would try them, and a failed exec there is, for the trace, a
        reach for a program the jail hid: a violation the agent never made.

        Jailed or not, the agent's HOME is the attempt's own, so a toolchain manager that finds
        its toolchains under HOME (rustup's `cargo` proxy) is pointed at the machine's
        (`home_toolchains`), as the command checks are: otherwise `cargo` on PATH answers "no
        default is configured" to the agent though the machine has it."""
        env = {**{name: str(found) for name, found in home_toolchains().items()}, **env}
        if self.jail == "none":
            return env
        tmpdir = env.get("TMPDIR")
        if tmpdir is not None and _inside(Path(tmpdir), agent_dir):
            # A runner's TMPDIR in the agent's own directory (Gemini CLI's, for its shell
            # wrapper's files) is as long as the scratch layout makes it (74 characters in an
            # evaluation's variant), and a Unix socket's path holds at most 107 bytes: Chromium's
            # `SingletonSocket` under it failed ("Socket path too long"). In the jail `/tmp` is
            # the attempt's own empty tmpfs, as private and as short as a path can be. A TMPDIR
            # the case sets elsewhere is the case's.
            env = {**env, "TMPDIR": str(JailSpec(Path("/"), ()).private_tmp[0])}
        if "PATH" not in env:
            return env
        bound = (workspace, agent_dir, *self.tool_roots(binary, env))
        return {**env, "PATH": visible_path(env["PATH"], self.private_dirs(), bound)}

    def own_pid_namespace(self) -> bool:
        """The agent's `/proc` lists only the attempt's own processes (see `Jail`)."""
        return self.jail != "none" and get_jail(self.jail).own_pid_namespace

    def private_dirs(self) -> tuple[Path, ...]:
        """Directories the jail replaces with the attempt's own empty tmpfs (none unjailed)."""
        if self.jail == "none":
            return ()
        return (*JailSpec(Path("/"), ()).private_tmp, *get_jail(self.jail).private_devices)

    def tool_roots(self, binary: Path, env: dict[str, str]) -> tuple[Path, ...]:
        """Installations the agent runs from: the CLI's, and those on PATH under the user's home
        or a hidden directory (pyenv shims read their interpreter from there)."""
        hidden = (*self.hidden, Path.home())
        return (
            install_root(Path(os.path.realpath(binary))),
            *path_tools(env.get("PATH", ""), hidden),
            *home_toolchains().values(),
        )


# Toolchain managers whose proxies on PATH find their toolchains under HOME unless a variable
# says where: rustup (`~/.cargo/bin/cargo` reads `~/.rustup`), asdf's shims, volta's.
HOME_TOOLCHAINS = (("RUSTUP_HOME", ".rustup"), ("ASDF_DATA_DIR", ".asdf"), ("VOLTA_HOME", ".volta"))


def home_toolchains() -> dict[str, Path]:
    """The machine's toolchain managers' data, by the variable that names it: the evaluator's own
    setting, else the folder in its home, when that exists. An agent's or a check's HOME is the
    attempt's own, so these are bound back read-only and named to it."""
    found: dict[str, Path] = {}
    for variable, folder in HOME_TOOLCHAINS:
        configured = os.environ.get(variable)
        place = Path(configured) if configured else Path.home() / folder
        if place.is_dir():
            found[variable] = place
    return found


def install_root(binary: Path) -> Path:
    """An npm-installed CLI needs its whole node_modules (the native binary is a sibling package)."""
    for parent in binary.parents:
        if parent.name == "node_modules":
            return parent
    return binary.parent


def path_tools(path_value: str, hidden: tuple[Path, ...]) -> list[Path]:
    """Installations on PATH that live under a hidden directory (pyenv, cargo in the user's home):
    the first directory below the hidden one, so shims find their interpreters."""
    tools: list[Path] = []
    # Resolved paths as strings: a directory lies below a root when it starts with root + "/"
    # (every path starts with "/" + "", for the root "/").
    roots = [os.path.realpath(h).rstrip("/") + "/" for h in hidden]
    for entry in path_value.split(os.pathsep):
        if not entry:
            continue
        real = os.path.realpath(entry)
        holders = [root for root in roots if real.startswith(root) and len(real) > len(root)]
        if holders:
            # The deepest hidden directory: a venv inside the hidden source workspace binds back
            # the venv, never the whole workspace through the home that contains it.
            root = max(holders, key=len)
            tools.append(Path(root) / real[len(root) :].split("/")[0])
    return tools


def visible_path(path_value: str, private: tuple[Path, ...], bound: tuple[Path, ...]) -> str:
    """`path_value` without its absolute entries below a `private` directory and outside every
    `bound` one (compared resolved, as the jail mounts them). Relative and empty entries stay:
    they name the workspace."""

    def below(real: str, places: tuple[Path, ...]) -> bool:
        return any(
            real == place or real.startswith(place.rstrip("/") + "/")
            for place in (os.path.realpath(p) for p in places)
        )

    kept = [
        entry
        for entry in path_value.split(os.pathsep)
        if not os.path.isabs(entry)
        or not below(os.path.realpath(entry), private)
        or below(os.path.realpath(entry), bound)
    ]
    return os.pathsep.join(kept)


def choose_policy(
    sandbox: str | None,
    trace: TraceMode,
    hidden: tuple[Path, ...],
    tracer: str = DEFAULT_TRACER,
) -> LaunchPolicy:
    """`sandbox=None` means bwrap where it works; `trace="auto"` means the tracer where it works;
    `tracer="auto"` the most preferred tracer that can run (eBPF where it loads, else strace),
    with the choice and its reason in a note. An explicit choice that cannot work is an
    environment error, never a silent downgrade; a named tracer that cannot work falls back to
    strace with a note under `--trace auto` (the trace stays on), and is refused under `on`."""
    notes: list[str] = []
    jail = sandbox or DEFAULT_JAIL
    why_not = get_jail(jail).unavailable()
    if why_not is not None:
        if sandbox is not None:
            raise EnvironmentProblem(f"--sandbox {jail}: {why_not}")
        notes.append(f"sandbox: none ({why_not}); isolation rests on evidence and trace only")
        jail = "none"
    traced = False
    if tracer == AUTO_TRACER:
        tracer = FALLBACK_TRACER
        if trace != "off":
            tracer, note = pick_tracer()
            notes.append(note)
    backend = get_tracer(tracer)
    if trace != "off" and tracer != FALLBACK_TRACER:
        why_not = backend.unavailable()
        if why_not is not None:
            if trace == "on":
                raise EnvironmentProblem(f"--tracer {tracer}: {why_not}")
            notes.append(f"tracer: {FALLBACK_TRACER} ({tracer} is unavailable: {why_not})")
            tracer, backend = FALLBACK_TRACER, get_tracer(FALLBACK_TRACER)
    if trace != "off":
        why_not = backend.unavailable()
        if why_not is None:
            traced = True
        elif trace == "on":
            raise EnvironmentProblem(f"--trace on: {why_not}")
        else:
            notes.append(
                f"trace: unavailable ({why_not}); isolation rests on the session evidence alone"
            )
    if jail == "none":
        notes.append(NO_JAIL_HOME_NOTE)
    return LaunchPolicy(jail=jail, trace=traced, hidden=hidden, tracer=tracer, notes=tuple(notes))


def pick_tracer() -> tuple[str, str]:
    """`--tracer auto`: the first tracer by preference that can run here, and the manifest's
    note saying which and why (the preferred ones' reasons when they cannot). None can: the
    fallback, whose own reason the trace's note then gives."""
    passed: list[str] = []
    for name in tracers_by_preference():
        why_not = get_tracer(name).unavailable()
        if why_not is None:
            why = "; ".join(passed) if passed else "it can run here"
            return name, f"tracer: {name} (--tracer {AUTO_TRACER}: {why})"
        passed.append(f"{name} cannot: {why_not}")
    return FALLBACK_TRACER, f"tracer: {FALLBACK_TRACER} (--tracer {AUTO_TRACER}: none can run here)"


# Without the jail the per-attempt HOME is only an environment variable: tools that look the home
# up in the password database (sqlite3's ~/.sqliterc, ssh) reach the invoking user's own files.
NO_JAIL_HOME_NOTE = (
    "sandbox: none: tools that look the home directory up in the password database rather than"
    " in HOME (sqlite3, ssh, ...) can reach the invoking user's home; the jail hides it"
)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents
