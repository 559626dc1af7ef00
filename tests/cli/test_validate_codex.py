"""What `validate` promises about runs, checked with the real Codex CLI: `prompt_equals` matches
the prompt as the author wrote it, and the setup facts we accept as honoured (no network for
agent commands: `force_fetch_failure: true`, `network_mode: offline`) really hold."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_validate import run_cli
from tests.conftest import ROOT, copy_demo
from tests.support import (
    behavior,
    codex_or_skip,
    demo_case,
    read_jsonl,
    rollout_files,
    run_attempt,
    scratch_dir,
    serving,
)

pytestmark = pytest.mark.codex


@pytest.fixture(autouse=True)
def _codex() -> None:
    codex_or_skip()


def test_prompt_equals_matches_the_case_prompt_through_codex() -> None:
    _, case = demo_case("routing-rename-table")
    exact = behavior(
        "exact",
        "",
        [{"final": "matched by prompt_equals"}],
        prompt_equals=case.case.input.user_prompt,
    )
    exact.match.prompt_contains = None
    with scratch_dir() as scratch, serving(exact) as server:
        _, handle = run_attempt(scratch, server, "routing-rename-table")
    assert handle.error is None, handle.error
    assert handle.exit_code == 0


class _Counter(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []  # noqa: RUF012 (one server per test)

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"docs")

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def docs_server() -> Iterator[tuple[str, list[str]]]:
    _Counter.hits = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/docs.txt", _Counter.hits
    finally:
        server.shutdown()
        server.server_close()


def _outputs(codex_home: Path) -> str:
    texts = []
    for rollout in rollout_files(codex_home):
        for record in read_jsonl(rollout):
            payload = record.get("payload") or {}
            if payload.get("type") == "function_call_output":
                texts.append(str(payload.get("output")))
    return "\n".join(texts)


def test_live_fetches_from_agent_commands_fail(docs_server: tuple[str, list[str]]) -> None:
    """Why `force_fetch_failure: true` and `network_mode: offline` validate: even a loopback
    server the evaluator can reach is unreachable from the agent's commands."""
    url, hits = docs_server
    fetch = behavior(
        "fetch",
        "renaming the table",
        [
            {"cmd": f"curl -sS -m 5 {url} -o /dev/null; echo curl-exit=$?"},
            {"final": "fetched"},
        ],
    )
    with scratch_dir() as scratch, serving(fetch) as server:
        _, handle = run_attempt(scratch, server, "routing-rename-table")
        output = _outputs(handle.agent_home)
    assert handle.exit_code == 0, handle.error
    assert "curl-exit=" in output
    assert "curl-exit=0" not in output
    assert hits == []


def test_judge_after_an_author_mistake_is_a_located_error_and_allow_blocked_needs_a_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    behaviors = ROOT / "agentic-evals/targets/db-migrations/behaviors/follows-skill"
    with scratch_dir() as scratch:
        base = ["run", "--repo", str(repo), "--runs-dir", str(tmp_path / "runs")]
        base += ["--scratch-root", str(scratch), "--behaviors", str(behaviors)]
        code, _, err = run_cli(
            [*base, "--case", "bootstrap-needs-database-url", "--run-id", "b", "--allow-blocked"],
            capsys,
        )
        assert code == 1, err  # only a blocked case: --allow-blocked never turns that into 0
        code, _, err = run_cli([*base, "--case", "routing-add-column", "--run-id", "ok"], capsys)
        assert code == 0, err
    case = repo / "targets/db-migrations/cases/routing/routing-add-column.yaml"
    case.write_text(
        case.read_text().replace(
            '- kind: file_read\n          path: ".agents/skills/db-migrations/references/add-column.md"',
            '- {kind: command_ran, pattern: "new_migration(.py"}',
            1,
        )
    )
    code, _, err = run_cli(["judge", str(tmp_path / "runs/ok")], capsys)
    assert code == 2, err
    assert f"{case.resolve()}:" in err and "invalid regular expression" in err
    assert "internal error" not in err
