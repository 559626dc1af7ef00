"""The runner interface: a request in, a handle describing what the agent process did out."""

from __future__ import annotations

import dataclasses
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from evaluator.agents.key_proxy import KeyRoute, keys_held_back
from evaluator.credentials import MIN_CREDENTIAL_LENGTH, SecretSet, embedded_credentials
from evaluator.sandbox.launch import LaunchPolicy


@dataclass(frozen=True)
class ModelEndpoint:
    """Where the agent's model lives. `base_url=None` means the agent's own default provider;
    `model=None` means the agent's own default model. `api_key_env` names the variable of the
    evaluator's environment that holds the key for `base_url` (a local server or gateway);
    None means the agent's own credential variables."""

    model: str | None
    base_url: str | None = None
    api_key: str | None = None
    auth_from: Path | None = None
    scripted: bool = False
    api_key_env: str | None = None

    def key_from_environment(self) -> str | None:
        """The key `api_key` or `api_key_env` gives, if any."""
        if self.api_key:
            return self.api_key
        if self.api_key_env:
            return os.environ.get(self.api_key_env) or None
        return None


# Variables an agent may see from the evaluator's environment; everything else is dropped.
PASSTHROUGH_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME", "SHELL")


@dataclass(frozen=True)
class AgentRequest:
    workspace: Path
    agent_dir: Path
    prompt: str
    endpoint: ModelEndpoint
    timeout_s: float
    env: dict[str, str] = field(default_factory=dict)
    # Jail and tracer around the agent process; the default is neither.
    launch: LaunchPolicy = field(default_factory=LaunchPolicy)
    # The attempt's secrets: the launcher adds every secret of the environment it starts the
    # agent with, before the agent runs, so nothing the agent prints escapes redaction.
    secrets: SecretSet = field(default_factory=SecretSet)
    # Asked while the agent runs: once it holds, the agent is stopped (trigger-only attempts
    # end at the decision). None: the agent runs to its end or the timeout.
    stop_when: Callable[[], bool] | None = None
    # A descriptor that becomes readable once the agent is to be stopped: the wait sleeps on it
    # beside the agent's exit instead of asking `stop_when` every `STOP_POLL_S` (the trace
    # follower's, for the processes a traced agent left running). None: no such signal.
    stop_fd: int | None = None
    # The skill under test's folder in the workspace, which the runner also links at each of the
    # agent's user-level skills folders (`user_skill_dirs`, `~/...`: its adapter's) in the
    # attempt's home (`link_user_skill`); None: no skill (a no-skill variant), no link.
    skill: Path | None = None
    user_skill_dirs: tuple[str, ...] = ()
    # The target's companion skills' folders in the workspace (`Target.companion_skills`),
    # linked at the same user-level folders beside the skill, as a plugin installs them.
    companion_skills: tuple[Path, ...] = ()


@dataclass
class AgentHandle:
    """What happened to the agent process. Later stages turn faults into `blocked` reasons."""

    runner: str
    workspace: Path
    agent_home: Path  # where the agent's session store lives (CODEX_HOME, CLAUDE_CONFIG_DIR)
    stdout_path: Path
    stderr_path: Path
    started_at: float
    ended_at: float
    exit_code: int | None
    timed_out: bool = False
    killed: bool = False
    root_thread_id: str | None = None
    spawned_thread_ids: list[str] = field(default_factory=list)
    prompt: str = ""
    error: str | None = None
    # The agent's last event before it ended was an error from its model connection: killed
    # while it waited for an endpoint that never answered (a machine's fault, not the skill's).
    stalled_on_model: bool = False
    jail: str = "none"
    trace_path: Path | None = None  # the strace log, when the agent ran under the tracer
    tracer: str = "strace"  # which tracer wrote it (evaluator/sandbox/trace_registry.py)
    # Directories that are the agent's own (its homes; when traced, the tools it runs from), not
    # "outside".
    own_dirs: tuple[Path, ...] = ()
    # The jail's private /tmp and /var/tmp: what succeeded there touched only the attempt's own.
    private_dirs: tuple[Path, ...] = ()
    # What no attempt may reach (the jail hides it: the source workspace, the eval repo, the
    # user's home, the runs and the run's scratch): outside even below an allowed prefix.
    hidden_dirs: tuple[Path, ...] = ()
    # The jail gave the agent its own pid namespace: `/proc` lists only the attempt's processes.
    own_pid_namespace: bool = False
    # Where the CLI records its sessions (the evidence): the agent's own, but no tool call of it
    # may change them (a command that rewrites its session forges the evidence).
    session_dirs: tuple[Path, ...] = ()
    # Which adapter (adapters/registry.py) ran the agent: its session store reads `agent_home`.
    # And the HOME the agent had (`~` in its commands means this directory).
    adapter: str = ""
    home: Path | None = None
    # The agent under test is a child the runner's launcher spawned with the prompt verbatim:
    # its session is located as the root's child and its first user message must be the prompt.
    launched_child: bool = False
    # The skills the agent itself said it could use, where it says so (the clean-registry check
    # of trigger evaluation compares them with what was installed); None when it does not.
    reported_skills: list[str] | None = None
    # The request's `stop_when` held and the agent was stopped there, on purpose: no fault.
    stopped_early: bool = False
    # When that stop began (`time.monotonic()`); None when not stopped or not known.
    stopped_at: float | None = None
    # The links to the skill under test (and its companions) made in the attempt's home
    # (`link_user_skill`): the one place under the home that is the skills' own folders, and
    # which no tool call may change.
    # (link -> the skill's folder in the workspace, resolved).
    skill_links: dict[Path, Path] = field(default_factory=dict)

    @property
    def skill_link_paths(self) -> dict[str, str]:
        """`skill_links` as the evidence builder takes them (path strings)."""
        return {str(link): str(target) for link, target in self.skill_links.items()}

    @property
    def thread_ids(self) -> list[str]:
        return [t for t in [self.root_thread_id, *self.spawned_thread_ids] if t]

    @property
    def duration_s(self) -> float:
        return self.ended_at - self.started_at

    @property
    def fault(self) -> str | None:
        """Why the agent process did not end normally, or None."""
        if self.timed_out:
            detail = f" (last agent error: {self.error})" if self.error else ""
            return f"agent timed out and was killed after {self.duration_s:.1f}s{detail}"
        if self.stopped_early:
            return None  # stopped on purpose, once the attempt had seen what it needed
        if self.killed:
            return "agent process was killed"
        if self.error:
            return self.error
        if self.exit_code not in (0, None):
            return f"agent exited with code {self.exit_code}"
        return None


class AgentRunner(ABC):
    """One way of running an agent. Each belongs to an adapter (`evaluator/adapters/`), which
    maps the runner's name to it."""

    name: str
    evidence_mode: str
    # The runner launches the agent under test as a sub-agent (AgentHandle.launched_child).
    launches_child: bool = False
    # The CLI writes its first output once it has started (a stream's first event), so its
    # start-up can be paced by the start gate (`agents/start_gate.py`); a CLI silent until
    # its end would hold a gate's slot for the whole hold.
    announces_start: bool = False
    # A real model needs one of these variables set (or `--auth-from`); the hint says so.
    credential_env: tuple[str, ...] = ()
    credentials_hint: str = ""
    # The variable of the user's own environment that points the agent at another endpoint,
    # passed through when no `--base-url`/`--api-key-env` is given (checked before a run).
    base_url_env: str | None = None
    # Whether `--auth-from` (a Codex home's auth.json) logs this agent in.
    uses_auth_from: bool = False
    # Whether the agent's commands run without a network (Codex's workspace-write sandbox): the
    # cases' offline setup facts (`network_mode: offline`, ...) hold only then.
    commands_offline: bool = False
    # Where the agent's model is when no endpoint is given, by the kind of login it would use
    # (`login`): checked before a run as `--base-url` is. A login not listed goes ahead.
    default_endpoints: tuple[tuple[str, str], ...] = ()
    # Which variables name the agent's base URL and its keys, and where its requests carry a
    # key: with a real key the agent holds a placeholder and a loopback proxy adds the key
    # (`agents/key_proxy.py`). None: the agent gets its keys itself.
    key_routing: KeyRoute | None = None

    def credentials(self, endpoint: ModelEndpoint) -> dict[str, str]:
        """Every credential this runner passes through or copies in for `endpoint`, by the
        name its redaction shows. The scripted server's key is public and not listed."""
        if endpoint.scripted:
            return {}
        found: dict[str, str] = {}
        if endpoint.api_key_env:
            # Only that key is passed: the user's own provider keys stay out of the agent.
            found[endpoint.api_key_env] = os.environ.get(endpoint.api_key_env, "")
        else:
            found = {name: os.environ.get(name, "") for name in self.credential_env}
        # A value too short to be a real key (`local`) would erase ordinary words if redacted.
        found = {
            name: value for name, value in found.items() if len(value) >= MIN_CREDENTIAL_LENGTH
        }
        if endpoint.api_key:
            found["api_key"] = endpoint.api_key
        if endpoint.base_url:
            for part, credential in embedded_credentials(endpoint.base_url):
                found[f"base_url:{part}"] = credential
        return found

    def key_route(self, endpoint: ModelEndpoint) -> KeyRoute | None:
        """The key route for `endpoint` (`key_routing`, unless the runner's depends on it)."""
        return self.key_routing

    @contextmanager
    def keys_held_back(
        self, endpoint: ModelEndpoint, env: dict[str, str]
    ) -> Iterator[tuple[dict[str, str], ModelEndpoint]]:
        """The environment and endpoint to start this runner's CLI with, whatever it is started
        for (an attempt's agent, a model judge's call): with a real key on a routed endpoint,
        `env` holds placeholders and the key-adding proxy (`agents/key_proxy.py`) stands in for
        the upstream while the block lasts, named in the route's base-URL variable or, for a
        CLI that reads its base URL from a file, in the endpoint that file is written from."""
        route = self.key_route(endpoint)
        with keys_held_back(route, env, endpoint.scripted) as (held, proxy_url):
            if proxy_url is not None and route is not None and route.base_url_env is None:
                endpoint = dataclasses.replace(endpoint, base_url=proxy_url)
            yield held, endpoint

    def has_credentials(self, endpoint: ModelEndpoint) -> bool:
        """Whether a real model can be reached: a credential is set (or a login is copied in)."""
        names = (endpoint.api_key_env,) if endpoint.api_key_env else self.credential_env
        return (
            bool(endpoint.api_key)
            or any(os.environ.get(name) for name in names if name)
            or (self.uses_auth_from and endpoint.auth_from is not None)
        )

    def login(self, endpoint: ModelEndpoint) -> str | None:
        """The kind of login the agent would reach its default endpoint with (a key of
        `default_endpoints`), or None: another endpoint (`--base-url`, the scripted server, the
        user's `base_url_env`), no credential, or a login this cannot tell."""
        if endpoint.scripted or endpoint.base_url:
            return None
        if self.base_url_env and os.environ.get(self.base_url_env):
            return None  # the user's own endpoint, checked as such
        if self.uses_auth_from and endpoint.auth_from is not None:
            return None
        names = (endpoint.api_key_env,) if endpoint.api_key_env else self.credential_env
        return "api-key" if any(os.environ.get(name) for name in names if name) else None

    def default_endpoint(self, endpoint: ModelEndpoint) -> str | None:
        """The URL the agent would reach its model at for `endpoint`, when that is known."""
        kind = self.login(endpoint)
        return dict(self.default_endpoints).get(kind) if kind else None

    def prepare_workspace(self, workspace: Path, entry_skill: Path) -> None:
        """Makes the attempt workspace ready for this agent before its baseline is taken (e.g.
        the skill where the agent discovers skills). `entry_skill` is relative to `workspace`."""
        return None

    @abstractmethod
    def run(self, request: AgentRequest) -> AgentHandle:
        """Runs the agent to completion or timeout; never raises for agent faults."""

    @abstractmethod
    def version(self) -> str | None:
        """The agent CLI's version, for the manifest."""


def skill_folder(workspace: Path, entry_skill: Path) -> Path | None:
    """The folder of the skill `entry_skill` names (its folder or its SKILL.md) in the
    workspace, or None when the workspace has none (a no-skill variant)."""
    folder = workspace / entry_skill
    folder = folder if folder.is_dir() else folder.parent
    return folder if (folder / "SKILL.md").is_file() else None


def link_skill(workspace: Path, entry_skill: Path, skills_dir: Path) -> None:
    """Links the skill (`entry_skill` names its folder or its SKILL.md) into `skills_dir/<name>`,
    the workspace folder an agent discovers skills in, unless it already lies there: one copy of
    the files, so every check on the skill's own paths still holds."""
    skill = entry_skill if (workspace / entry_skill).is_dir() else entry_skill.parent
    if skill.parent == skills_dir or not (workspace / skill).is_dir():
        return  # where it is found already, or no skill at all (a no-skill baseline)
    link = workspace / skills_dir / skill.name
    if link.exists() or link.is_symlink():
        return  # a skill of that name is already there: the workspace's own
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(workspace / skill, link.parent))
    ignore_in_git(workspace, link.relative_to(workspace))


def link_user_skill(home: Path, skill: Path | None, user_dirs: tuple[str, ...]) -> dict[Path, Path]:
    """Links the skill under test (`skill`, its folder in the workspace) at each of the agent's
    user-level skills folders (`~/...` under `home`, the attempt's own fresh HOME), so that a
    skill's command naming where a user installs it (`bash ~/.<agent>/skills/<name>/x.sh`) runs
    the very files of the workspace's skill: one folder, reached by two paths. The links made,
    each with the folder it names."""
    if skill is None or not skill.is_dir():
        return {}  # no skill in this attempt (a no-skill variant): nothing at user level either
    made: dict[Path, Path] = {}
    for folder in user_dirs:
        link = home / folder.removeprefix("~/") / skill.name
        if link.exists() or link.is_symlink():
            continue  # the home was made empty for this attempt: never ours to replace
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(skill.resolve(), target_is_directory=True)
        made[link] = skill.resolve()
    return made


def ignore_in_git(workspace: Path, made: Path) -> None:
    """Keeps a path the evaluator made in a workspace that is a git repository out of git's
    view (`.git/info/exclude`, the repository's own untracked ignore list): the project's
    `git status` is then what the agent left, and an honest `git add -A` commits none of the
    evaluator's scaffolding. `made` is relative to the workspace. A `.git` that is not a plain
    directory (a worktree's pointer file, a link) or an ignore file reached through a link is
    left alone: the evaluator writes only inside the workspace's own repository."""
    git_dir = workspace / ".git"
    exclude = git_dir / "info" / "exclude"
    if git_dir.is_symlink() or not git_dir.is_dir():
        return
    if any(p.is_symlink() for p in (exclude.parent, exclude)) or (
        exclude.exists() and not exclude.is_file()
    ):
        return
    # Anchored at the top, glob characters escaped: this one path, nothing else.
    escaped = "".join("\\" + ch if ch in "*?[\\" else ch for ch in made.as_posix())
    line = f"/{escaped}"
    try:
        exclude.parent.mkdir(exist_ok=True)
        before = exclude.read_text(encoding="utf-8", errors="replace") if exclude.exists() else ""
        if line in before.splitlines():
            return
        separator = "" if not before or before.endswith("\n") else "\n"
        with exclude.open("a", encoding="utf-8") as handle:
            handle.write(f"{separator}{line}\n")
    except OSError:
        return  # git then shows the link, as before: nothing the run depends on
