"""The strace log reader and the launch policy, on logs in strace 6.1's own output format.

Real codex runs under the tracer are in test_trace_jail.py; these pin the format corners a run
produces only by chance (a child's syscalls printed before its parent's clone returns, escapes,
a descriptor path with a comma).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from evaluator.adapters.codex.trace import RECOGNIZER as CODEX_CALLS
from evaluator.errors import EnvironmentProblem
from evaluator.evidence.records import SessionEvidence
from evaluator.isolation.allowlist import allowed
from evaluator.isolation.assess import IsolationReport
from evaluator.isolation.trace import RUNTIME_ALLOWLIST, TraceReport, combine
from evaluator.sandbox import STRACE_ENV, LaunchPolicy, parse_trace
from evaluator.sandbox.base import JailSpec
from evaluator.sandbox.bwrap import (
    LOCALE_DIR,
    BubblewrapJail,
    build_locale_archive,
    compiled_locales,
    locale_aliases,
)
from evaluator.sandbox.launch import (
    HOME_TOOLCHAINS,
    NO_JAIL_HOME_NOTE,
    choose_policy,
    path_tools,
)
from evaluator.sandbox.registry import get_jail
from evaluator.sandbox.strace_log import shell_script
from evaluator.sandbox.tracer import Tracer

WS = "/var/tmp/ws"
SANDBOX = "/var/tmp/agent/codex-home/tmp/arg0-linux/codex-arg0X/codex-linux-sandbox"
CODEX = "/opt/codex/node_modules/@openai/codex-linux-x64/bin/codex"

LOG = f"""\
10 execve("{CODEX}", ["{CODEX}", "exec"], 0x7ffe /* 7 vars */) = 0
10 openat(AT_FDCWD<{WS}>, "/etc/hostname", O_RDONLY|O_CLOEXEC) = 3</etc/hostname>
10 open("/var/tmp", O_RDWR|O_EXCL|O_CLOEXEC|O_TMPFILE, 0600) = 15</var/tmp/#1534>(deleted)
10 clone(child_stack=NULL, flags=CLONE_VM|CLONE_VFORK|SIGCHLD <unfinished ...>
11 execve("{SANDBOX}", ["{SANDBOX}", "--command-cwd", "{WS}"], 0x7ff /* 9 vars */ <unfinished ...>
10 <... clone resumed>)             = 11
11 <... execve resumed>)             = 0
11 clone(child_stack=NULL, flags=CLONE_NEWPID|SIGCHLD) = 1 /* 12 in strace's PID NS */
12 chdir("{WS}") = 0
12 execve("/bin/bash", ["/bin/bash", "-c", "cd .. \\"&&\\" cat a\\303\\251, b"], 0x7f /* 24 vars */) = 0
13 openat(AT_FDCWD</tmp/x,y>, "secret.txt", O_RDONLY) = -1 ENOENT (No such file or directory)
12 clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 2 /* 13 in strace's PID NS */
13 mkdir("sub", 0777) = 0
13 execve("/usr/bin/cat", ["cat"], 0x55 /* 26 vars */) = 0
13 openat(AT_FDCWD<{WS}>, "/dev/fd/63", O_RDONLY) = 3<pipe:[1234]>
12 rename("{WS}/a", "/var/tmp/outside/b") = 0
12 execve("/usr/bin/nope", ["nope"], 0x55 /* 26 vars */) = -1 ENOENT (No such file or directory)
10 clone(child_stack=NULL, flags=SIGCHLD) = 14
14 execve("{SANDBOX}", ["{SANDBOX}"], 0x7ff /* 9 vars */) = 0
14 execve("{CODEX}", ["{CODEX}", "--codex-run-as-fs-helper"], 0x7ff /* 2 vars */) = 0
14 open("/tmp/out/p.txt", O_WRONLY|O_CREAT|O_TRUNC|O_LARGEFILE|O_CLOEXEC, 0666) = 9</tmp/out/p.txt>
10 openat(AT_FDCWD<{WS}>, "/var/tmp/agent/codex-home/x.sqlite", O_RDWR|O_CREAT, 0644) = 5</var/tmp/agent/codex-home/x.sqlite>
10 mkdir("/var/tmp/elsewhere", 0777) = 0
10 +++ exited with 0 +++
"""


def test_tool_calls_their_subtrees_and_the_cli_writes() -> None:
    trace = parse_trace(LOG.splitlines(), CODEX_CALLS, start_cwd=WS, agent_dirs=("/var/tmp/agent",))
    assert trace.unparsed == 0
    shell, patch = trace.tool_calls
    assert shell.command == 'cd .. "&&" cat a\u00e9, b'
    assert (shell.tool, patch.tool) == ("shell", "apply_patch")
    seen = {(a.path, a.access, a.outcome) for a in shell.accesses}
    assert seen == {
        # pid 13 printed before its parent's clone returned: still the tool call's, and its
        # relative open resolved against the directory strace decoded.
        ("/tmp/x,y/secret.txt", "read", "failed"),
        # a relative mkdir resolved against the cwd inherited from the parent's chdir
        (f"{WS}/sub", "write", "ok"),
        (f"{WS}/a", "write", "ok"),
        ("/var/tmp/outside/b", "write", "ok"),
        ("/usr/bin/cat", "exec", "ok"),
    }  # not the sandbox's chdir before the shell started, nor the failed exec of a PATH search
    assert [(a.path, a.access) for a in patch.accesses] == [("/tmp/out/p.txt", "write")]
    # The CLI reading /etc/hostname is its own business; writing outside its home is kept.
    assert [(a.path, a.syscall) for a in trace.cli_writes] == [("/var/tmp/elsewhere", "mkdir")]


# strace 6.1's own lines for an exec by a thread other than the process's first (pid 12's thread
# 15; the result strace decodes after the pid change is its own), the first thread inside a call.
THREAD_EXEC_LOG = f"""\
10 execve("{CODEX}", ["{CODEX}", "exec"], 0x7ffe /* 7 vars */) = 0
10 clone(child_stack=NULL, flags=SIGCHLD) = 12
12 execve("/bin/bash", ["/bin/bash", "-c", "python3 x.py"], 0x7f /* 24 vars */) = 0
12 clone3({{flags=CLONE_VM|CLONE_FS|CLONE_THREAD, child_tid=0x7f}}, 88) = 15
12 wait4(-1,  <unfinished ...>
15 execve("/bin/sh", ["sh", "-c", "cat s"], 0x7f /* 4 vars */ <pid changed to 12 ...>
12 +++ superseded by execve in pid 15 +++
12 <... execve resumed>)             = -1 (errno 18446744073709551359)
12 openat(AT_FDCWD<{WS}>, "/var/tmp/outside/s", O_RDONLY) = 3</var/tmp/outside/s>
12 +++ exited with 0 +++
10 +++ exited with 0 +++
"""


def test_an_exec_by_a_thread_goes_on_as_its_process() -> None:
    """The lines of the exec and the process's life after it are the call's, whole: not two
    unreadable lines and a thread that never ended."""
    trace = parse_trace(
        THREAD_EXEC_LOG.splitlines(), _SHELL_CALLS, start_cwd=WS, agent_dirs=("/var/tmp/agent",)
    )
    assert trace.unparsed == 0
    (call,) = trace.tool_calls
    assert {e.path for e in call.execs} == {"/bin/sh"}
    assert ("/var/tmp/outside/s", "read", "ok") in {
        (a.path, a.access, a.outcome) for a in call.accesses
    }
    assert call.pids == {12, 15}
    # The first thread was inside a call when the exec ended it: that call is not known whole.
    assert trace.cut_short == {12: "wait4"}
    assert "wait4" in trace.incompleteness(call)


def test_shell_outside_the_sandbox_helper_is_the_cli_not_a_tool_call() -> None:
    log = f"""\
1 execve("{CODEX}", ["{CODEX}"], 0x1 /* 1 vars */) = 0
1 execve("/bin/bash", ["/bin/bash", "-c", "set -e; . snapshot"], 0x1 /* 1 vars */) = 0
1 openat(AT_FDCWD</>, "/etc/profile", O_RDONLY) = 3</etc/profile>
"""
    assert parse_trace(log.splitlines(), CODEX_CALLS).tool_calls == []


def test_a_tool_call_s_connections_and_name_lookups_are_kept_whatever_came_of_them() -> None:
    """The stop proof asks whether a check's processes tried the network at all: internet
    connections of both families, and a name service's socket, succeeded or failed; not the
    CLI's own, and not another Unix socket."""
    log = f"""\
10 execve("{CODEX}", ["{CODEX}", "exec"], 0x7ffe /* 7 vars */) = 0
10 connect(9<socket:[1]>, {{sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("127.0.0.1")}}, 16) = 0
10 clone(child_stack=NULL, flags=SIGCHLD) = 11
11 execve("{SANDBOX}", ["{SANDBOX}"], 0x7ff /* 9 vars */) = 0
11 execve("/bin/bash", ["/bin/bash", "-c", "pip download x"], 0x7f /* 24 vars */) = 0
11 connect(3<socket:[2]>, {{sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}}, 110) = -1 ENOENT (No such file or directory)
11 connect(3<socket:[3]>, {{sa_family=AF_UNIX, sun_path="/run/user/1/bus"}}, 110) = -1 ENOENT (No such file or directory)
11 connect(3<socket:[4]>, {{sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.255.255.53")}}, 16) = -1 ENETUNREACH (Network is unreachable)
11 connect(4<socket:[5]>, {{sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}}, 28) = -1 ENETUNREACH (Network is unreachable)
11 +++ exited with 1 +++
10 +++ exited with 0 +++
"""
    (call,) = parse_trace(log.splitlines(), CODEX_CALLS, start_cwd=WS).tool_calls
    assert [(c.peer, c.outcome) for c in call.connects] == [
        ("/var/run/nscd/socket", "failed"),
        ("10.255.255.53:53", "failed"),
        ("[2001:db8::1]:443", "failed"),
    ]


class _ShellCalls:
    """Every `sh -c SCRIPT` outside a call starts one."""

    helper_images: frozenset[str] = frozenset()
    cli_images: frozenset[str] = frozenset()

    def tool_call(self, image: str, argv: list[str], in_helper: bool) -> tuple[str, str] | None:
        script = shell_script(argv)
        return (script, "shell") if script is not None else None


_SHELL_CALLS = _ShellCalls()


def test_a_tool_call_s_network_sockets_and_seccomp_filters_are_kept() -> None:
    """A network socket made is a network attempt (a filter may refuse its `connect`); a
    seccomp filter set up, before a call (the sandbox helper's) or inside it (`prctl`), hides
    what it refuses, so the call's silence proves nothing. A Unix socket is no attempt."""
    log = f"""\
10 execve("{CODEX}", ["{CODEX}", "exec"], 0x7ffe /* 7 vars */) = 0
10 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC, IPPROTO_TCP) = 9<socket:[1]>
10 clone(child_stack=NULL, flags=SIGCHLD) = 11
11 execve("/bin/bash", ["/bin/bash", "-c", "python3 fetch.py"], 0x7f /* 24 vars */) = 0
11 socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0) = 3<socket:[2]>
11 socket(AF_INET6, SOCK_DGRAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = -1 EAFNOSUPPORT (Address family not supported by protocol)
11 +++ exited with 0 +++
10 clone(child_stack=NULL, flags=SIGCHLD) = 12
12 execve("/bin/bash", ["/bin/bash", "-c", "true"], 0x7f /* 24 vars */) = 0
12 prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, 0x7ffd) = 0
12 +++ exited with 0 +++
10 clone(child_stack=NULL, flags=SIGCHLD) = 13
13 prctl(PR_SET_NAME, "worker") = 0
13 execve("/bin/bash", ["/bin/bash", "-c", "ls"], 0x7f /* 24 vars */) = 0
13 +++ exited with 0 +++
10 clone(child_stack=NULL, flags=SIGCHLD) = 14
14 execve("{SANDBOX}", ["{SANDBOX}"], 0x7ff /* 9 vars */) = 0
14 seccomp(SECCOMP_SET_MODE_FILTER, 0, {{len=114, filter=0x7efb}}) = 0
14 execve("/bin/bash", ["/bin/bash", "-c", "make"], 0x7f /* 24 vars */) = 0
14 +++ exited with 0 +++
10 +++ exited with 0 +++
"""
    trace = parse_trace(log.splitlines(), _SHELL_CALLS, start_cwd=WS)
    fetch, own_filter, plain, sandboxed = trace.tool_calls
    assert trace.network_traced
    assert [(c.peer, c.outcome) for c in fetch.sockets] == [("AF_INET6", "failed")]
    assert (fetch.filtered, own_filter.filtered, plain.filtered) == (False, True, False)
    assert (plain.sockets, sandboxed.filtered) == ([], True)
    added = ("socket(", "seccomp(", "prctl(")  # a log written before these were traced
    older = [line for line in log.splitlines() if not any(call in line for call in added)]
    assert not parse_trace(older, _SHELL_CALLS, start_cwd=WS).network_traced


@pytest.mark.tracer_choice
def test_choose_policy_falls_back_or_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STRACE_ENV, "/nonexistent/strace")
    policy = choose_policy("none", "auto", (), tracer="strace")
    assert not policy.trace
    assert any(
        "trace: unavailable" in note and "/nonexistent/strace" in note for note in policy.notes
    )
    with pytest.raises(EnvironmentProblem, match="--trace on"):
        choose_policy("none", "on", (), tracer="strace")
    assert choose_policy("none", "off", ()).notes == (NO_JAIL_HOME_NOTE,)


def test_bwrap_argv_hides_then_binds_back(tmp_path: Path) -> None:
    home, source, tools = tmp_path / "home", tmp_path / "src", tmp_path / "home/.pyenv"
    for path in (home, source, tools / "shims"):
        path.mkdir(parents=True)
    jail = BubblewrapJail()
    jail.binary = "/usr/bin/bwrap"
    ws, agent = Path("/var/tmp/run/ws"), Path("/var/tmp/run/agent")
    argv = jail.wrap(
        ["codex", "exec"],
        JailSpec(
            workspace=ws,
            writable=(ws, agent),
            hidden=(home, source, tmp_path / "home/.pyenv/shims"),
            tools=tuple(path_tools(f"{tools / 'shims'}:/usr/bin", (home,))),
            private_tmp=(Path("/var/tmp"),),  # tmp_path itself is under /tmp
        ),
    )
    text = " ".join(argv)
    assert f"--tmpfs {home} " in text and f"--tmpfs {source} " in text
    assert "shims" not in text  # inside a directory already hidden: not mounted twice
    assert text.index(f"--ro-bind {tools} {tools}") > text.index(f"--tmpfs {home}")
    assert text.index(f"--bind {ws} {ws}") < text.index(f"--remount-ro {home}")
    assert "--unshare-net" not in argv  # the model server on 127.0.0.1 must stay reachable
    assert argv[-3:] == ["--", "codex", "exec"]


def test_locale_aliases_name_each_compiled_utf8_locale_as_programs_ask_for_it(
    tmp_path: Path,
) -> None:
    for name in ("C.utf8", "en_US.utf8", "en_US.UTF-8", "de_DE"):
        (tmp_path / name).mkdir()
    (tmp_path / "x.utf8").write_text("")  # not a compiled locale directory
    assert locale_aliases(tmp_path) == [("C.UTF-8", "C.utf8")]
    assert locale_aliases(tmp_path / "missing") == []


def test_in_the_jail_a_utf8_locale_is_found_at_the_first_try(tmp_path: Path) -> None:
    """`LANG=C.UTF-8` (what Codex gives every command) finds the compiled `C.utf8` files through
    the jail's alias, with no failed open under /usr/lib/locale, and the directory stays
    read-only."""
    why_not = get_jail("bwrap").unavailable() or Tracer().unavailable()
    if why_not or not locale_aliases():
        pytest.skip(f"no jail, tracer or aliased locale here: {why_not}")
    jail = BubblewrapJail()
    log = tmp_path / "trace.strace"
    script = f"cat /dev/null; touch {LOCALE_DIR}/x || echo refused"
    argv = jail.wrap(
        Tracer().wrap(["sh", "-c", script], log), JailSpec(workspace=tmp_path, writable=(tmp_path,))
    )
    done = subprocess.run(
        argv, capture_output=True, text=True, env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}
    )
    assert done.stdout.strip() == "refused"
    locale_lines = [line for line in log.read_text().splitlines() if str(LOCALE_DIR) in line]
    assert locale_lines  # cat did load its locale
    assert not [line for line in locale_lines if "ENOENT" in line and "locale-archive" not in line]


def test_in_the_jail_a_locale_is_read_from_one_archive(tmp_path: Path) -> None:
    """The jail's locale archive holds the host's compiled locales: a process that sets
    `LANG=C.UTF-8` maps the archive (one open) instead of opening the locale's files one by one,
    and gets the same locale (a UTF-8 character counted as one)."""
    why_not = get_jail("bwrap").unavailable() or Tracer().unavailable()
    if why_not or build_locale_archive(LOCALE_DIR) is None:
        pytest.skip(f"no jail, tracer or localedef here: {why_not}")
    log = tmp_path / "trace.strace"
    argv = BubblewrapJail().wrap(
        Tracer().wrap(["sh", "-c", "printf '\\303\\251' | wc -m"], log),
        JailSpec(workspace=tmp_path, writable=(tmp_path,)),
    )
    done = subprocess.run(
        argv, capture_output=True, text=True, env={"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}
    )
    assert done.stdout.strip() == "1", done.stderr
    opened = [line for line in log.read_text().splitlines() if str(LOCALE_DIR) in line]
    archive = [line for line in opened if "locale-archive" in line]
    assert archive and all("ENOENT" not in line for line in archive)
    assert not [line for line in opened if "/LC_" in line]  # no file of a locale opened alone


def test_the_locale_archive_holds_every_compiled_locale(tmp_path: Path) -> None:
    """`build_locale_archive` adds each compiled locale directory (one with `LC_CTYPE`), and
    gives up (None) where there is none."""
    compiled = compiled_locales()
    if shutil.which("localedef") is None or not compiled:
        pytest.skip("no localedef or no compiled locale here")
    archive = build_locale_archive(LOCALE_DIR)
    assert archive is not None
    listed = subprocess.run(
        ["localedef", "--list-archive", str(archive)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert set(listed) >= {path.name for path in compiled}
    (tmp_path / "C.utf8").mkdir()  # no LC_CTYPE: not a compiled locale
    assert compiled_locales(tmp_path) == []
    assert build_locale_archive(tmp_path) is None


def test_a_host_archive_that_holds_every_compiled_locale_is_used_as_it_is(
    tmp_path: Path,
) -> None:
    """A host archive (it may be hundreds of MB) is copied and added to only when a compiled
    locale directory is missing from it: one that holds them all serves the jail unchanged."""
    compiled = compiled_locales()
    if shutil.which("localedef") is None or not compiled:
        pytest.skip("no localedef or no compiled locale here")
    host = tmp_path / "locale"
    shutil.copytree(compiled[0], host / compiled[0].name)
    made = build_locale_archive(host)
    assert made is not None
    shutil.copyfile(made, host / "locale-archive")  # the host's archive now holds it
    assert build_locale_archive(host) is None
    shutil.copytree(compiled[0], host / "xx_XX.utf8")  # a compiled locale it does not hold
    extended = build_locale_archive(host)
    assert extended is not None
    listed = subprocess.run(
        ["localedef", "--list-archive", str(extended)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert {compiled[0].name, "xx_XX.utf8"} <= set(listed)


def test_path_tools_bind_back_the_deepest_hidden_directory(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "home/project"
    (project / ".venv/bin").mkdir(parents=True)
    (home / ".pyenv/shims").mkdir(parents=True)
    path = f"{project / '.venv/bin'}:{home / '.pyenv/shims'}:/usr/bin"
    assert path_tools(path, (home, project)) == [project / ".venv", home / ".pyenv"]


def test_trace_only_mode_counts_the_venv_under_the_source_workspace_as_a_tool_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the jail, the evaluator's venv inside the source workspace (first on PATH when
    activated) is where the agent's `python` runs from: one of its own directories, as the
    jail binds it back; nothing else of the source workspace is."""
    # A machine without toolchain managers (`home_toolchains`), whose data would be roots too.
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for variable, _ in HOME_TOOLCHAINS:
        monkeypatch.delenv(variable, raising=False)
    source = tmp_path / "source"
    (source / ".venv/bin").mkdir(parents=True)
    (source / "secrets").mkdir()
    policy = choose_policy("none", "auto", (source, tmp_path / "home"))
    binary = tmp_path / "cli/bin/codex"
    roots = policy.tool_roots(binary, {"PATH": f"{source / '.venv/bin'}:/usr/bin"})
    assert roots == (binary.parent, source / ".venv")


def test_launch_policy_without_jail_or_trace_leaves_the_argv_alone(tmp_path: Path) -> None:
    argv, trace = LaunchPolicy().wrap(["codex", "exec"], {}, tmp_path, tmp_path)
    assert (argv, trace) == (["codex", "exec"], None)


def _opaque_session() -> tuple[SessionEvidence, IsolationReport]:
    evidence = SessionEvidence(session_path="s.jsonl", complete=True)
    command = evidence.add("command_observed", 1, command="python3 -m tool", call_id="c1")
    evidence.opaque.append((command.id, "python3 -m tool: module not modelled"))
    report = IsolationReport(
        verdict="unverifiable",
        workspace="/ws",
        reliable_signals=1,
        opaque=list(evidence.opaque),
    )
    return evidence, report


@pytest.mark.parametrize(
    "jailed,matched,disagreements,expected",
    [
        (True, True, [], "contained"),
        (False, True, [], "unverifiable"),  # outside the jail a stat the trace missed could look
        (True, False, [], "unverifiable"),  # the trace never saw the opaque call
        (True, True, ["trace call 2 ran `x`, which the session does not record"], "unverifiable"),
    ],
)
def test_the_trace_vouches_for_opaque_calls_only_when_it_saw_them_whole_in_the_jail(
    jailed: bool, matched: bool, disagreements: list[str], expected: str
) -> None:
    evidence, report = _opaque_session()
    trace = TraceReport("contained", "1 traced tool call(s)", 1, disagreements=disagreements)
    if matched:
        trace.matched = {1: evidence.records[0].id}
        trace.complete_calls = {"c1": set()}  # matched, and every process of it ended
    assert combine(report, trace, evidence, jailed=jailed).verdict == expected
    violating = TraceReport("violation", "outside", 1, matched=dict(trace.matched))
    assert combine(report, violating, evidence, jailed=jailed).verdict == "violation"


def test_what_wget_and_curl_read_at_start_up_is_allowed() -> None:
    # Every `wget` opens /etc/wgetrc and, with curl, probes GnuTLS's configuration (strace of
    # the real programs on Debian 12): an honest fetch is no isolation violation.
    for path in ("/etc/wgetrc", "/etc/gnutls/config", "/etc/ldap/ldap.conf"):
        assert allowed(path, "read", RUNTIME_ALLOWLIST) is not None, path
        assert allowed(path, "write", RUNTIME_ALLOWLIST) is None, path


@pytest.mark.parametrize("program", ["curl", "wget"])
def test_every_system_file_a_real_fetcher_opens_to_start_is_a_runtime_read(
    program: str, tmp_path: Path
) -> None:
    """The real program, traced as the jail traces it: what it opens under `/etc` before it does
    anything (`--version`) must be allowed, or every honest fetch is a violation (curl's libldap
    reads `/etc/ldap/ldap.conf`: red team round 6)."""
    strace = Tracer().binary
    binary = shutil.which(program)
    if strace is None or binary is None:
        pytest.skip(f"strace or {program} is not installed here")
    log = tmp_path / "trace.log"
    subprocess.run(
        [strace, "-f", "-qq", "-e", "trace=open,openat", "-o", str(log), binary, "--version"],
        capture_output=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    opened = re.findall(
        r'open(?:at)?\((?:AT_FDCWD, )?"(/etc/[^"]+)", [^)]*\) = \d', log.read_text()
    )
    assert opened, "the trace shows no open of a system file at all"
    refused = [path for path in opened if allowed(path, "read", RUNTIME_ALLOWLIST) is None]
    assert refused == []
