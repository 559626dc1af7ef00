"""The PATH an agent starts with in the jail (`LaunchPolicy.agent_env`)."""

from __future__ import annotations

from pathlib import Path

from evaluator.sandbox.launch import LaunchPolicy, visible_path

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


def test_only_the_jail_changes_the_agents_path(tmp_path: Path) -> None:
    env = {"PATH": "/tmp/checkout/.venv/bin:/usr/bin", "LANG": "C.UTF-8"}
    workspace, agent_dir = Path("/var/tmp/s/ws"), Path("/var/tmp/s/agent")
    binary = Path("/usr/bin/true")
    unjailed = LaunchPolicy(jail="none").agent_env(env, binary, workspace, agent_dir)
    assert unjailed == env  # without the jail the folder is there: the agent may use it
    jailed = LaunchPolicy(jail="bwrap").agent_env(env, binary, workspace, agent_dir)
    assert jailed == {"PATH": "/usr/bin", "LANG": "C.UTF-8"}
    assert env["PATH"] == "/tmp/checkout/.venv/bin:/usr/bin"  # the caller's dict is not changed
