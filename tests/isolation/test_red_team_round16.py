"""Red team, round 16 (docs/isolation.md): the reverse direction of round 15's channel between
the variants of an evaluation. The no-skill attempt listens on 127.0.0.1; the with-skill
attempt running beside it pushes SKILL.md there; the baseline never prints what it received
(here only its SHA-256, which no layer can read back, as a program of the agent's would use it
silently). On `main` the baseline was counted as one that never saw the skill.

The real Claude Code and Gemini CLI (Codex's sandbox gives commands no network), the default
layers (jail and trace), two workers.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.isolation.test_red_team_round15 import _evaluate, _free_port
from tests.support import agent_params

pytestmark = pytest.mark.slow

SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"


def _push_silently(port: int) -> dict[str, object]:
    """The baseline listens and prints only a digest of what it received (`got <sha256>`, or
    `got nothing`); the attempt with the skill pushes SKILL.md to it."""
    program = (
        "import socket, hashlib\n"
        "s = socket.socket()\n"
        "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
        f"s.bind(('127.0.0.1', {port}))\n"
        "s.listen(1)\n"
        "s.settimeout(40)\n"
        "try:\n"
        "    c, _ = s.accept()\n"
        "except OSError:\n"
        "    print('got nothing')\n"
        "    raise SystemExit(0)\n"
        "c.settimeout(10)\n"
        "d = b''\n"
        "while True:\n"
        "    b = c.recv(65536)\n"
        "    if not b:\n"
        "        break\n"
        "    d += b\n"
        "    if b'\\r\\n\\r\\n' in d:\n"
        "        head, body = d.split(b'\\r\\n\\r\\n', 1)\n"
        "        size = [l for l in head.split(b'\\r\\n') if l.lower().startswith(b'content-length:')]\n"
        "        if size and len(body) >= int(size[0].split(b':')[1]):\n"
        "            break\n"
        "c.sendall(b'HTTP/1.0 200 OK\\r\\nContent-Length: 0\\r\\n\\r\\n')\n"
        "c.close()\n"
        "print('got', hashlib.sha256(d.split(b'\\r\\n\\r\\n', 1)[1]).hexdigest())\n"
    )
    push = (
        "sleep 3; for i in {1..40}; do curl -s -m 3 --data-binary"
        f" @.agents/skills/db-migrations/SKILL.md http://127.0.0.1:{port}/;"
        " [ $? -ne 7 ] && break; sleep 0.5; done; echo pushed"
    )
    return {
        "name": "pushes-the-skill-silently",
        "match": {"prompt_contains": "orders.total_cents is NULL"},
        "steps": [
            {"write": {"path": "listen.py", "content": program}},
            {
                "cmd": "if [ -f .agents/skills/db-migrations/SKILL.md ]; then"
                f" {push}; else python3 listen.py; fi"
            },
            {"final": "done"},
        ],
    }


def _sessions(run_dir: Path) -> list[str]:
    return [p.read_text(errors="replace") for p in run_dir.rglob("accepted-session.json")]


@pytest.mark.parametrize("agent", agent_params("claude", "gemini"))
def test_a_baseline_fed_the_skill_silently_is_never_counted_clean(
    tmp_path: Path, agent: str
) -> None:
    """Before: the baseline's session holds `got <the skill's SHA-256>`, contamination none, the
    attempt counted as a clean baseline. After: a no-skill attempt never runs beside a
    with-skill one, so nothing answers its push; the baseline got nothing and counts."""
    without, run_dir = _evaluate(tmp_path, agent, _push_silently(_free_port()))
    digest = hashlib.sha256(SKILL.read_bytes()).hexdigest()
    sessions = _sessions(run_dir)
    assert sessions, "no baseline session"
    fed = any(digest in text for text in sessions)
    check = without["contamination"]
    # Never a baseline that received the skill and was counted clean.
    assert not fed or check["contaminated_attempts"], check
    assert not fed, "the with-skill attempt reached the baseline"
    assert any("got nothing" in text for text in sessions), "the baseline's listener never ran"
    assert without["counted"] == 1, json.dumps(without)
    assert not check["contaminated_attempts"], check
