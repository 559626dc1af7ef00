"""The PATH an agent starts with in the jail (`LaunchPolicy.agent_env`), and the toolchain
managers' data it is pointed at (`home_toolchains`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.sandbox.launch import HOME_TOOLCHAINS, LaunchPolicy, home_toolchains, visible_path

PRIVATE = (Path("/tmp"), Path("/var/tmp"))


def test_entries_the_private_tmp_hides_leave_path_and_the_rest_stay() -> None:
    path = ":".join(
        [
            "/tmp/checkout/.venv/bin",  # hidden by the jail's private /tmp: dropped
            "/var/tmp/tools/bin",  # the same under /var/tmp
            "/tmp",  # the private directory itself
            "/tmpx/bin",  # a look-alike name, not below /tmp
            "/usr/local/bin",
            "bin",  # relative: names the workspace
            "",
            "/tmp/source/.venv/bin",  # bound back (a tool under a hidden source workspace)
            "/var/tmp/scratch/ws/node_modules/.bin",  # inside the workspace
        ]
    )
    bound = (Path("/tmp/source/.venv"), Path("/var/tmp/scratch/ws"))
    assert visible_path(path, PRIVATE, bound).split(":") == [
        "/tmpx/bin",
        "/usr/local/bin",
        "bin",
        "",
        "/tmp/source/.venv/bin",
        "/var/tmp/scratch/ws/node_modules/.bin",
    ]


def test_only_the_jail_changes_the_agents_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _machine_home(monkeypatch, tmp_path / "home")  # no toolchain manager on this machine
    env = {"PATH": "/tmp/checkout/.venv/bin:/usr/bin", "LANG": "C.UTF-8"}
    workspace, agent_dir = Path("/var/tmp/s/ws"), Path("/var/tmp/s/agent")
    binary = Path("/usr/bin/true")
    unjailed = LaunchPolicy(jail="none").agent_env(env, binary, workspace, agent_dir)
    assert unjailed == env  # without the jail the folder is there: the agent may use it
    jailed = LaunchPolicy(jail="bwrap").agent_env(env, binary, workspace, agent_dir)
    assert jailed == {"PATH": "/usr/bin", "LANG": "C.UTF-8"}
    assert env["PATH"] == "/tmp/checkout/.venv/bin:/usr/bin"  # the caller's dict is not changed


def test_in_the_jail_the_agents_own_tmpdir_is_the_private_tmp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """browser: Gemini CLI's TMPDIR, the attempt's own `tmp/`, was 74 characters in an
    evaluation's variant, and Chromium's socket under it went over the 107 bytes a Unix socket's
    name may hold. In the jail it is the attempt's private `/tmp`; outside it, as it was."""
    _machine_home(monkeypatch, tmp_path / "home")
    agent_dir = Path("/var/tmp/agentic-eval/0123456789/e/0123456789/a/0123456789/01")
    own = {"PATH": "/usr/bin", "TMPDIR": str(agent_dir / "tmp")}
    binary, workspace = Path("/usr/bin/true"), Path("/var/tmp/s/ws")
    jailed = LaunchPolicy(jail="bwrap")
    assert jailed.agent_env(own, binary, workspace, agent_dir)["TMPDIR"] == "/tmp"
    assert LaunchPolicy(jail="none").agent_env(own, binary, workspace, agent_dir) == own
    # Look-alikes kept: a TMPDIR the case sets elsewhere, a sibling named like the agent's
    # folder, and none at all (then programs take /tmp themselves).
    for tmpdir in ("/var/tmp/case-tmp", f"{agent_dir}x/tmp"):
        env = {"PATH": "/usr/bin", "TMPDIR": tmpdir}
        assert jailed.agent_env(env, binary, workspace, agent_dir)["TMPDIR"] == tmpdir
    assert "TMPDIR" not in jailed.agent_env({"PATH": "/usr/bin"}, binary, workspace, agent_dir)


def _machine_home(monkeypatch: pytest.MonkeyPatch, home: Path, *folders: str) -> Path:
    """The evaluator's home, holding the given folders; no manager variable set."""
    home.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        (home / folder).mkdir()
    monkeypatch.setenv("HOME", str(home))
    for variable, _ in HOME_TOOLCHAINS:
        monkeypatch.delenv(variable, raising=False)
    return home


@pytest.mark.parametrize("jail", ["bwrap", "none"])
def test_a_toolchain_manager_under_the_home_is_named_to_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jail: str
) -> None:
    """rustup's `cargo` proxy finds its toolchains under HOME, which is the attempt's own: the
    agent is told where the machine's are (jailed or not: HOME is the attempt's either way), and
    the jail binds them back read-only, as a command check's jail does."""
    home = _machine_home(monkeypatch, tmp_path / "home", ".rustup", ".cargo")
    env = {"PATH": f"{home}/.cargo/bin:/usr/bin", "HOME": "/attempt/home"}
    policy = LaunchPolicy(jail=jail)
    binary, workspace, agent_dir = Path("/usr/bin/true"), tmp_path / "ws", tmp_path / "agent"
    started = policy.agent_env(env, binary, workspace, agent_dir)
    assert started["RUSTUP_HOME"] == str(home / ".rustup")
    assert started["HOME"] == "/attempt/home" and "RUSTUP_HOME" not in env
    assert home / ".rustup" in policy.tool_roots(binary, env)
    # A case that names its own toolchains keeps them.
    own = {**env, "RUSTUP_HOME": "/opt/rust"}
    assert policy.agent_env(own, binary, workspace, agent_dir)["RUSTUP_HOME"] == "/opt/rust"


def test_only_managers_the_machine_has_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _machine_home(monkeypatch, tmp_path / "home", ".volta")
    (home / ".rustup").write_text("not a folder")  # a look-alike: nothing to bind
    (home / ".asdfx").mkdir()  # another name
    assert home_toolchains() == {"VOLTA_HOME": home / ".volta"}
    # The evaluator's own setting wins over the default folder; one that does not exist is none.
    elsewhere = tmp_path / "rustup"
    elsewhere.mkdir()
    monkeypatch.setenv("RUSTUP_HOME", str(elsewhere))
    monkeypatch.setenv("VOLTA_HOME", str(tmp_path / "missing"))
    assert home_toolchains() == {"RUSTUP_HOME": elsewhere}
    env = {"PATH": "/usr/bin"}
    started = LaunchPolicy(jail="none").agent_env(env, Path("/usr/bin/true"), home, home)
    assert started == {"PATH": "/usr/bin", "RUSTUP_HOME": str(elsewhere)}
