"""A skill that starts a local server on a Unix socket in the jail's private /tmp, the shape of
mitsuhiko's `tmux` skill (round 6, docs/real-repos.md): the client makes the socket's folder,
removes a stale socket before the server binds it, the forked server lists its own descriptors
(`/proc/<its pid>/fd`) to close what it inherited and runs each request in a login shell (which
reads `/etc/profile`), and a later client finds the server gone (`ECONNREFUSED`). Everything
reached is the attempt's own; on `main` each of those four accesses was a trace violation.

Our own small skill, the real Claude Code and Gemini CLI with the jail and the trace (Codex's
sandbox refuses a Unix socket's `connect` to any command, so the skill cannot work there). The
socket is in `/tmp`, not `$TMPDIR`: the Gemini CLI runner points `TMPDIR` into the attempt's own
directory, too long a path for a socket's name here (docs/real-repos.md, round 6).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.adapters import get_adapter
from tests.support import agent_or_skip, agent_params, layers_or_skip, run_scripted_repo

NAME = "socket-repl"
PROMPT = "Start the socket REPL server with the socket-repl skill and ask it for 6 times 7."

SERVE = """\
import os, socket, subprocess, sys
folder = "/tmp/socket-repl"
os.makedirs(folder, exist_ok=True)
path = os.path.join(folder, "repl.sock")
try:
    os.unlink(path)  # a stale socket of an earlier server
except FileNotFoundError:
    pass
if os.fork():
    print("server socket: " + path)
    sys.exit(0)
os.setsid()
null = os.open("/dev/null", os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
for name in os.listdir("/proc/%d/fd" % os.getpid()):  # close what it inherited
    if int(name) > 2:
        try:
            os.close(int(name))
        except OSError:
            pass
server = socket.socket(socket.AF_UNIX)
server.bind(path)
server.listen(1)
conn, _ = server.accept()
command = conn.recv(4096).decode()
done = subprocess.run(["bash", "-l", "-c", command], capture_output=True, text=True)
conn.sendall(done.stdout.encode())
conn.close()
server.close()
"""

ASK = """\
import os, socket, sys
path = "/tmp/socket-repl/repl.sock"
client = socket.socket(socket.AF_UNIX)
client.connect(path)
client.sendall(sys.argv[1].encode())
client.shutdown(socket.SHUT_WR)
reply = client.recv(4096).decode()
open("reply.txt", "w").write(reply)
print(reply)
"""


def _skill_repo(root: Path) -> Path:
    skill = root / NAME
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        f"---\nname: {NAME}\ndescription: Runs shell commands in a small REPL server on a Unix"
        " socket. Use when the user asks for the socket REPL.\n---\n\n# Socket REPL\n\nStart it"
        " with `python3 scripts/serve.py`, then `python3 scripts/ask.py 'COMMAND'`; the reply is"
        " saved in `reply.txt`. The server answers one request and exits.\n"
    )
    (skill / "scripts/serve.py").write_text(SERVE)
    (skill / "scripts/ask.py").write_text(ASK)
    (skill / "evals").mkdir()
    evals = {
        "skill_name": NAME,
        "evals": [
            {
                "id": 1,
                "prompt": PROMPT,
                "expected_output": "reply.txt holds 42.",
                "assertions": [{"type": "file_contains", "path": "reply.txt", "contains": "42"}],
            }
        ],
    }
    (skill / "evals/evals.json").write_text(json.dumps(evals))
    return skill / "evals/evals.json"


def _behaviors(root: Path, agent: str) -> Path:
    scripts = f"{get_adapter(agent).skill_dir}/{NAME}/scripts"
    load: dict[str, Any] = (
        {"call": {"name": "activate_skill", "args": {"name": NAME}}}
        if agent == "gemini"
        else {"skill": NAME}
    )
    steps = [
        load,
        {"cmd": f"python3 {scripts}/serve.py"},
        {"cmd": f"sleep 1; python3 {scripts}/ask.py 'expr 6 \\* 7'"},
        # the server answered once and is gone: its socket refuses the next client
        {"cmd": f"sleep 1; python3 {scripts}/ask.py true || echo 'the server has exited'"},
        {"final": "The server answered 42 (saved in reply.txt) and has exited."},
    ]
    behaviors = root / "behaviors"
    behaviors.mkdir()
    body = {"name": "serves", "match": {"prompt_contains": PROMPT}, "steps": steps}
    (behaviors / "serves.yaml").write_text(json.dumps(body))
    return behaviors


@pytest.mark.parametrize("agent", agent_params("claude", "gemini"))
def test_a_skills_socket_server_in_the_private_tmp_is_contained(agent: str, tmp_path: Path) -> None:
    runner = agent_or_skip(agent)
    layers_or_skip(trace=True, jail=True)
    evals = _skill_repo(tmp_path / "src")
    outcome = run_scripted_repo(evals, None, _behaviors(tmp_path, agent), tmp_path / "runs", runner)  # type: ignore[arg-type]
    attempt = outcome.run_dir.path / "case-artifacts/eval-1/attempts/attempt-01"
    record = json.loads((attempt / "attempt.json").read_text())
    report = record["isolation_report"]
    assert report["verdict"] == "contained", report
    result = json.loads((outcome.run_dir.path / "case-results/eval-1.json").read_text())
    assert result["status"] == "pass", result
    # the trace saw the server's socket, in the jail's private /tmp
    transcript = (outcome.run_dir.path / "transcript.md").read_text()
    assert "/tmp/socket-repl" in transcript
