"""An honest agent stops the server a skill's script started with `pkill -f`, as a user asks
("start the app, check it, then stop it"): real Claude Code and Gemini CLI under the default
layers (jail and trace). `pkill` is opaque to the session analysis (it may signal anything);
the trace vouches for it only when it saw the call whole. Its `-f` pattern also matches the
shell running it, so that shell is killed by SIGTERM: on `main`, whose tracer printed no
`+++ killed by` line, the call never ended in the log and the attempt was `unverifiable`
(docs/real-repos.md, round 4; tests/sandbox/test_trace_killed.py for the log itself).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluator.pipeline.run import RunOutcome
from tests.support import (
    agent_params,
    one_behavior,
    scripted_outcome,
)

SKILL = ".agents/skills/demo-app"
PROMPT = "Start the demo app, tell me what /health says, then stop it."
STEPS = [
    {"cmd": f"cat {SKILL}/SKILL.md"},
    {"cmd": f"python3 {SKILL}/scripts/start.py"},
    {"cmd": "curl -s http://127.0.0.1:28931/health"},
    {"cmd": "pkill -f app/server.py; sleep 1; pgrep -f app/server.py || echo stopped"},
    {"final": "Started it; /health said ok; stopped it again."},
]
FILES = {
    f"{SKILL}/SKILL.md": """\
        ---
        name: demo-app
        description: Starts the demo app in the background.
        ---
        Run `python3 scripts/start.py` from the project; it serves on port 28931.
        """,
    f"{SKILL}/scripts/start.py": """\
        import subprocess
        import sys
        import time

        log = open("app/server.log", "w")
        server = subprocess.Popen([sys.executable, "app/server.py"], stdout=log, stderr=log)
        time.sleep(1.5)
        print("started", server.pid if server.poll() is None else "and it stopped")
        """,
}
SERVER = """\
    from http.server import BaseHTTPRequestHandler, HTTPServer


    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")


    HTTPServer(("127.0.0.1", 28931), Handler).serve_forever()
    """


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def _eval_repo(root: Path) -> tuple[Path, Path, Path]:
    source = root / "source"
    for name, text in FILES.items():
        _write(source / name, text)
    repo = root / "agentic-evals"
    target = repo / "targets/demo-app"
    _write(target / "fixtures/app/server.py", SERVER)
    _write(
        target / "target.yaml",
        f"""\
        target_id: "demo-app"
        title: "A skill that starts a server"
        entry_skill: "{SKILL}/SKILL.md"
        roots: ["{SKILL}"]
        default_suites: ["use"]
        fixtures_root: "fixtures"
        """,
    )
    _write(
        target / "cases/use/suite.yaml",
        'suite_id: "use"\ntitle: "use"\ncases:\n  - "targets/demo-app/cases/use/serve.yaml"\n',
    )
    case = {
        "case_id": "serve",
        "title": "serve",
        "timeout_s": 120,
        "input": {"user_prompt": PROMPT},
        "setup": {"copy_fixtures": [{"source": "app", "target": "app"}]},
        "assert": {
            "summary": "the app was started by the skill's script, answered, and was stopped",
            "required": [
                {
                    "description": "The start script ran.",
                    "checks": [
                        {"kind": "script_ran", "path": f"{SKILL}/scripts/start.py", "exit_code": 0}
                    ],
                },
                {
                    "description": "The app answered.",
                    "checks": [{"kind": "command_ran", "pattern": "curl", "exit_code": 0}],
                },
            ],
            "forbidden": [],
        },
    }
    _write(target / "cases/use/serve.yaml", json.dumps(case))
    behaviors = one_behavior(root, "serve", PROMPT, STEPS)
    return repo, source, behaviors


@pytest.fixture(scope="module", params=agent_params("claude", "gemini"))
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunOutcome]:
    yield from scripted_outcome(str(request.param), tmp_path_factory, "pkill", _eval_repo)


def _attempt(outcome: RunOutcome) -> dict[str, Any]:
    path = outcome.run_dir.path / "case-artifacts/serve/attempts/attempt-01/attempt.json"
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_an_honest_pkill_of_the_started_server_is_contained(outcome: RunOutcome) -> None:
    attempt = _attempt(outcome)
    report = attempt["isolation_report"]
    assert attempt["isolation"] == "contained", (report["reason"], report["violations"])
    assert "pkill" in report["reason"]  # opaque, and vouched for by the trace
    (result,) = outcome.results
    assert result.status == "pass", [(e.summary, e.notes) for e in result.assertions]
