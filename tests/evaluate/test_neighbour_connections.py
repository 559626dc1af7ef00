"""A no-skill attempt's tool call that connects to this machine on a port no process of the
attempt bound reached a process beside it, such as a with-skill attempt of the same evaluation
serving the skill (red team 15, docs/isolation.md; the real agents in
tests/isolation/test_red_team_round15.py). The rule over strace-format logs: what counts, and
the look-alikes that must not (its own server, a refused probe, a remote address)."""

from __future__ import annotations

import socket

import pytest

from evaluator.adapters.claude.trace import RECOGNIZER
from evaluator.isolation.contamination import listening_ports, neighbour_connections, this_host
from evaluator.sandbox import parse_trace

WS = "/var/tmp/ws"
SNAPSHOT = "/var/tmp/agent/home/.claude/shell-snapshots/snapshot-bash-1-x.sh"


def _v4(port: int, host: str) -> str:
    return f'{{sa_family=AF_INET, sin_port=htons({port}), sin_addr=inet_addr("{host}")}}, 16'


def _v6(port: int, host: str) -> str:
    return (
        f"{{sa_family=AF_INET6, sin6_port=htons({port}), sin6_flowinfo=htonl(0),"
        f' inet_pton(AF_INET6, "{host}", &sin6_addr), sin6_scope_id=0}}, 28'
    )


def _log(*calls: list[str]) -> list[str]:
    """The CLI starting one Claude Code Bash call per list of syscall lines (its pid's)."""
    lines = ['10 execve("/usr/bin/node", ["node", "cli.js"], 0x7 /* 3 vars */) = 0']
    for n, body in enumerate(calls):
        pid = 11 + n
        script = f"source {SNAPSHOT} 2>/dev/null || true && eval 'python3 c{n}.py' < /dev/null"
        lines.append(f"10 clone(child_stack=NULL, flags=SIGCHLD) = {pid}")
        lines.append(
            f'{pid} execve("/bin/bash", ["/bin/bash", "-c", "{script}"], 0x7 /* 3 vars */) = 0'
        )
        lines += [f"{pid} {line}" for line in body]
        lines.append(f"{pid} +++ exited with 0 +++")
    return lines


REFUSED = "= -1 ECONNREFUSED (Connection refused)"
PENDING = "= -1 EINPROGRESS (Operation now in progress)"


@pytest.mark.parametrize(
    ("calls", "peers"),
    [
        pytest.param([[f"connect(3, {_v4(8765, '127.0.0.1')}) = 0"]], ["127.0.0.1:8765"], id="ok"),
        pytest.param(
            [[f"connect(3, {_v4(8765, '127.0.0.1')}) {PENDING}"]],
            ["127.0.0.1:8765"],
            id="non-blocking, as curl's",
        ),
        pytest.param([[f"connect(3, {_v6(8765, '::1')}) = 0"]], ["[::1]:8765"], id="v6"),
        pytest.param(
            [[f"connect(3, {_v6(8765, '::ffff:127.0.0.2')}) = 0"]],
            ["[::ffff:127.0.0.2]:8765"],
            id="v4-mapped",
        ),
        pytest.param([[f"connect(3, {_v4(8765, '0.0.0.0')}) = 0"]], ["0.0.0.0:8765"], id="any"),
        pytest.param(
            [
                [f"bind(3, {_v4(9000, '127.0.0.1')}) = 0"],
                [f"connect(4, {_v4(8765, '127.0.0.1')}) = 0"],
            ],
            ["127.0.0.1:8765"],
            id="another port than its own",
        ),
        # Look-alikes: its own server (bound by number, in this call or an earlier one, on any
        # address), a probe nothing answered, an address of another machine.
        pytest.param(
            [
                [f"bind(3, {_v4(8765, '0.0.0.0')}) = 0"],
                [f"connect(4, {_v4(8765, '127.0.0.1')}) = 0"],
            ],
            [],
            id="own server",
        ),
        pytest.param(
            [[f"bind(3, {_v6(8765, '::')}) = 0", f"connect(4, {_v6(8765, '::1')}) = 0"]],
            [],
            id="own server v6",
        ),
        pytest.param([[f"connect(3, {_v4(8765, '127.0.0.1')}) {REFUSED}"]], [], id="refused"),
        pytest.param([[f"connect(3, {_v4(443, '93.184.216.34')}) = 0"]], [], id="remote"),
        pytest.param(
            [
                [
                    f"bind(3, {_v4(8765, '127.0.0.1')}) = -1 EADDRINUSE (Address already in use)",
                    f"connect(4, {_v4(8765, '127.0.0.1')}) = 0",
                ]
            ],
            ["127.0.0.1:8765"],
            id="its bind failed: the port was another's",
        ),
    ],
)
def test_a_connection_to_this_machine_on_a_port_the_attempt_did_not_bind(
    calls: list[list[str]], peers: list[str]
) -> None:
    trace = parse_trace(_log(*calls), RECOGNIZER, start_cwd=WS)
    found = list(neighbour_connections(trace))
    assert [f.path for f in found] == peers
    for finding in found:
        assert finding.layer == "trace" and finding.reached
        assert "no process of the attempt bound" in finding.detail
        assert "python3 c" in finding.detail  # the call's command


def test_a_port_the_kernel_chose_is_said_so() -> None:
    """A server of the attempt's own on port 0 may be what answered; the log does not show
    which port the kernel gave it, so the connection still counts, and the finding says why."""
    calls = [[f"bind(3, {_v4(0, '127.0.0.1')}) = 0", f"connect(4, {_v4(41234, '127.0.0.1')}) = 0"]]
    (finding,) = neighbour_connections(parse_trace(_log(*calls), RECOGNIZER, start_cwd=WS))
    assert "a port the kernel chose" in finding.detail


def test_this_host() -> None:
    assert all(this_host(h) for h in ("127.0.0.1", "127.3.4.5", "[::1]", "0.0.0.0", "[::]"))
    assert not any(this_host(h) for h in ("93.184.216.34", "[2001:db8::1]", "localhost", ""))


def test_a_service_the_machine_had_before_the_evaluation_is_not_a_neighbour() -> None:
    """A port that was listening before the evaluation's attempts began (a database a case
    needs) is the machine's own: a baseline's connection to it is no contamination; another
    port of the same host still is."""
    calls = [
        [f"connect(3, {_v4(5432, '127.0.0.1')}) = 0", f"connect(4, {_v4(8765, '127.0.0.1')}) = 0"]
    ]
    trace = parse_trace(_log(*calls), RECOGNIZER, start_cwd=WS)
    assert [f.path for f in neighbour_connections(trace, frozenset({5432}))] == ["127.0.0.1:8765"]


@pytest.mark.parametrize("family", [socket.AF_INET, socket.AF_INET6])
def test_listening_ports_reads_the_kernel_tables(family: socket.AddressFamily) -> None:
    with socket.socket(family, socket.SOCK_STREAM) as server:
        server.bind(("::1" if family == socket.AF_INET6 else "127.0.0.1", 0))
        port = server.getsockname()[1]
        assert port not in listening_ports()  # bound, not yet listening
        server.listen()
        assert port in listening_ports()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as datagrams:
        datagrams.bind(("127.0.0.1", 0))
        assert datagrams.getsockname()[1] in listening_ports()
