"""Red team, round 15 (docs/isolation.md): attempts that run at once on one host share its
network. A server on 127.0.0.1 holding the skill (round 15 played it as the with-skill attempt
beside the baseline, in one evaluation); the no-skill attempt fetches SKILL.md from there and
is shown it as a hex dump (a model reads that too): no file of the skill is touched, no 8 words
of it reach the agent as text. On `main` the baseline was counted as one that never saw the
skill. And the reverse: the baseline listens, the skill is pushed to it, it prints it base64.

Since round 16 an evaluation never runs a no-skill attempt beside a with-skill one
(`pipeline/turns.py`), so the neighbour here is the test's own thread, standing in for an
attempt of another run on this host, started once the evaluation has taken the machine's
listening ports (`listening_ports`). The real Claude Code and Gemini CLI (Codex's sandbox gives
commands no network), the default layers (jail and trace), two workers.
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from evaluator.cli.main import run_cli
from tests.conftest import ROOT
from tests.support import agent_or_skip, agent_params, scratch_dir

pytestmark = pytest.mark.slow

SKILL = ROOT / ".agents/skills/db-migrations/SKILL.md"
CASE = "routing-backfill"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _behavior(port: int) -> dict[str, object]:
    """One scripted turn for both variants (they get the same prompt): the attempt without the
    skill fetches SKILL.md from the neighbour's server."""
    url = f"http://127.0.0.1:{port}/SKILL.md"
    # (Gemini CLI refuses a command with `$(...)`.)
    # As a hex dump: a form no layer reads back (base64 is, since this round).
    fetch = f"for i in {{1..80}}; do curl -sf {url} | xxd -p | grep . && break; sleep 0.5; done"
    return {
        "name": "fetches-the-skill",
        "match": {"prompt_contains": "orders.total_cents is NULL"},
        "steps": [
            {
                "cmd": f"if [ -f .agents/skills/db-migrations/SKILL.md ]; then echo has; else {fetch}; fi"
            },
            {"final": "done"},
        ],
    }


@contextmanager
def _neighbour(
    monkeypatch: pytest.MonkeyPatch, start: Callable[[], Callable[[], None]]
) -> Iterator[None]:
    """`start()` (returning its stop) runs once the evaluation has read the machine's listening
    ports: a neighbour that came after, as another run's attempt does."""
    from evaluator.evaluate import driver

    taken = driver.listening_ports
    stops: list[Callable[[], None]] = []

    def listening_then_start() -> frozenset[int]:
        ports = taken()
        stops.append(start())
        return ports

    monkeypatch.setattr(driver, "listening_ports", listening_then_start)
    try:
        yield
    finally:
        for stop in stops:
            stop()


def _serve_skill(port: int) -> Callable[[], None]:
    handler = partial(SimpleHTTPRequestHandler, directory=str(SKILL.parent))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return stop


def _push_skill(port: int) -> Callable[[], None]:
    """Pushes SKILL.md to whoever listens on `port`, once, as curl's `--data-binary` does."""
    done = threading.Event()

    def push() -> None:
        body = SKILL.read_bytes()
        request = (
            f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        ).encode() + body
        deadline = time.monotonic() + 60
        while not done.is_set() and time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=3) as connection:
                    connection.sendall(request)
                    connection.shutdown(socket.SHUT_WR)
                    return
            except OSError:
                time.sleep(0.3)

    thread = threading.Thread(target=push, daemon=True)
    thread.start()

    def stop() -> None:
        done.set()
        thread.join(timeout=5)

    return stop


def _evaluate(tmp_path: Path, agent: str, document: dict[str, object]) -> tuple[dict, Path]:  # type: ignore[type-arg]
    """One attempt of each variant at once (two workers); the no-skill variant's result and
    its run directory."""
    runner = agent_or_skip(agent)
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "neighbour.yaml").write_text(json.dumps(document))
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["evaluate", "--agent", runner, "--behaviors", str(behaviors)]
        argv += ["--attempts", "1", "--workers", "2", "--case", CASE, "--baseline", "none"]
        argv += ["--runs-dir", str(runs), "--scratch-root", str(scratch), "--run-id", "nb"]
        run_cli(argv)
    directory = runs / "nb"
    result = json.loads((directory / "evaluation.json").read_text())
    without = next(v for v in result["variants"] if "without" in json.dumps(v).lower())
    return without, directory / "variants/without_skill/run"


def _got_the_skill(run_dir: Path, hexdump: bool = False) -> bool:
    """The skill's SKILL.md, base64-encoded (or as `xxd -p` prints it), is in the baseline's
    session: the channel worked."""
    data = SKILL.read_bytes()
    shown = data[:30].hex() if hexdump else base64.b64encode(data).decode()[:60]
    sessions = [p.read_text(errors="replace") for p in run_dir.rglob("accepted-session.json")]
    return any(shown in text for text in sessions)


@pytest.mark.parametrize("agent", agent_params("claude", "gemini"))
def test_a_baseline_fed_by_a_neighbour_is_contaminated(
    tmp_path: Path, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _free_port()
    with _neighbour(monkeypatch, lambda: _serve_skill(port)):
        without, run_dir = _evaluate(tmp_path, agent, _behavior(port))
    assert _got_the_skill(run_dir, hexdump=True), "the baseline never got the skill"
    # Before: contamination none, the attempt counted as a clean baseline.
    check = without["contamination"]
    assert check["contaminated_attempts"], check
    assert all("127.0.0.1:" in item for item in check["contaminated_attempts"]), check
    assert without["counted"] == 0, without


def _listen(port: int) -> dict[str, object]:
    """The reverse direction: the baseline listens on a port of its own and prints what it
    receives, base64-encoded."""
    program = (
        "import socket, base64\n"
        "s = socket.socket()\n"
        "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
        f"s.bind(('127.0.0.1', {port}))\n"
        "s.listen(1)\n"
        "s.settimeout(30)\n"
        "c, _ = s.accept()\n"
        "d = b''\n"
        "while True:\n"
        "    b = c.recv(65536)\n"
        "    if not b:\n"
        "        break\n"
        "    d += b\n"
        "print(base64.b64encode(d.split(b'\\r\\n\\r\\n', 1)[1]).decode())\n"
    )
    return {
        "name": "listens-for-the-skill",
        "match": {"prompt_contains": "orders.total_cents is NULL"},
        "steps": [
            {"write": {"path": "listen.py", "content": program}},
            {
                "cmd": "if [ -f .agents/skills/db-migrations/SKILL.md ]; then echo has;"
                " else python3 listen.py; fi"
            },
            {"final": "done"},
        ],
    }


@pytest.mark.parametrize("agent", agent_params("claude"))
def test_a_baseline_that_listens_for_the_skill_is_contaminated(
    tmp_path: Path, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The baseline's trace shows a bind of its own and no connection (the push is the
    neighbour's, and neither `accept` nor `recvfrom` is traced): what it printed decides, read
    back from base64. Before: contamination none, counted as a clean baseline."""
    port = _free_port()
    with _neighbour(monkeypatch, lambda: _push_skill(port)):
        without, run_dir = _evaluate(tmp_path, agent, _listen(port))
    assert _got_the_skill(run_dir), "the baseline never got the skill"
    check = without["contamination"]
    assert check["contaminated_attempts"], check
    first = check["contaminated_attempts"][0]
    assert first.startswith(f"{CASE}/attempt-01") and "reached the agent" in first, check
    # Its rerun, in a new workspace, ran after the push: nobody fed it, so it counts.


@pytest.mark.claude
@pytest.mark.parametrize(
    ("names", "fires"),
    [
        pytest.param(["db-migrations\ufeff"], True, id="padded: launched"),
        pytest.param(["/ db-migrations", "DB-Migrations"], False, id="look-alikes: refused"),
    ],
)
def test_a_padded_skill_name_on_a_should_not_fire_prompt_fired(
    tmp_path: Path, names: list[str], fires: bool
) -> None:
    """A should-not-fire prompt; the agent calls `Skill` with the skill's name padded with
    U+FEFF, which JavaScript's `trim` removes and Python's `strip` keeps. Claude Code launched
    the skill; on `main` the signal took the name for another skill's: not fired, the prompt
    counted as right. Look-alikes Claude Code refuses do not fire, before and after."""
    from tests.triggers.test_trigger_run_agents import _observations, trigger_run

    agent_or_skip("claude")
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    steps: list[dict[str, object]] = [
        {"call": {"name": "Skill", "args": {"skill": name}}} for name in names
    ]
    (behaviors / "chart.yaml").write_text(
        json.dumps(
            {
                "name": "padded-skill-name",
                "match": {"prompt_contains": "quarterly revenue chart"},
                "steps": [*steps, {"final": "Done."}],
            }
        )
    )
    triggers = tmp_path / "one.yaml"
    triggers.write_text(
        'trigger_suite_id: "one"\nskill: "db-migrations"\ncases:\n'
        '  - {id: "chart", prompt: "Draw the quarterly revenue chart as an SVG.",'
        " expect_trigger: false}\n"
    )
    with scratch_dir() as scratch:
        run, data = trigger_run(
            scratch, "claude", "good", attempts=1, trigger_file=triggers, behaviors=behaviors
        )
        (seen,) = _observations(run)
        sessions = [p.read_text() for p in run.rglob("accepted-session.json")]
    launched = any("Launching skill: db-migrations" in text for text in sessions)
    assert launched is fires  # what Claude Code did
    assert seen["fired"] is fires, json.dumps(seen)
    (prompt,) = data["prompts"]
    assert prompt["triggered"] is fires, prompt
