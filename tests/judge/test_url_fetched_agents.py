""" "Fetched `URL`" on real agent runs: a scripted agent fetches a page the test serves on
127.0.0.1 (or only names its URL), and `url_fetched` decides from what the agent's own session
recorded. Run through the real Codex CLI and, when installed, Claude Code."""

from __future__ import annotations

import gzip
import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from evaluator.adapters import adapter_for_runner
from evaluator.artifacts.trace_files import saved_trace
from evaluator.pipeline.run import RunOutcome
from evaluator.sandbox.strace_log import parse_trace
from evaluator.vocabulary import NAME_SERVICE_SOCKETS
from tests.support import (
    RUNNERS,
    agent_or_skip,
    run_scripted_repo,
    write_checks_suite,
    write_file,
)

SKILL = ".agents/skills/docs/SKILL.md"
SKILL_TEXT = """\
---
name: docs
description: Answers questions about the widget API from its documentation.
---
# Docs

Read the bundled reference before fetching the live documentation page from the server.
"""
PATH = "/guide/tokens"
_SEARCH = {"type": "search", "query": "widget token expiry site:127.0.0.1"}


class _Page(BaseHTTPRequestHandler):
    """The live documentation page; every request is counted, for the test to see it came."""

    requests: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Page.requests.append(self.path)
        body = b"Tokens expire after one hour; renew them before they expire.\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _cases(url: str) -> dict[str, tuple[list[dict[str, Any]], list[tuple[dict[str, Any], str]]]]:
    """case: (steps, [(check, expected status of its required entry)])."""
    page = {"kind": "url_fetched", "url": url}
    host = {"kind": "url_fetched", "host": "127.0.0.1"}
    other = {"kind": "url_fetched", "host": "docs.example.com"}
    before = {**host, "before_read": SKILL}
    return {
        "curl": (
            [{"cmd": f"curl -sS {url}"}],
            [(page, "pass"), (host, "pass"), (other, "fail"), ({"not": other}, "pass")],
        ),
        # (`wget` is left out: it reads `/etc/wgetrc`, outside the workspace, so isolation
        # blocks the attempt before anything is judged; tests/judge/test_url_fetched.py has it.)
        "fetch-then-read": (
            [{"cmd": f"curl -sS {url}"}, {"cmd": f"cat {SKILL}"}],
            [(before, "pass")],
        ),
        "read-then-fetch": (
            [{"cmd": f"cat {SKILL}"}, {"cmd": f"curl -sS {url}"}],
            [(before, "fail"), (page, "pass")],
        ),
        # Look-alikes: the URL is only named, never requested.
        "echoed": ([{"cmd": f"echo {url}"}], [(page, "fail"), ({"not": host}, "pass")]),
        "written-to-a-file": (
            [{"cmd": f"echo 'curl -sS {url}' > fetch-later.txt"}],
            [(page, "fail")],
        ),
        "in-a-comment": ([{"cmd": f"ls # curl -sS {url}"}], [(page, "fail")]),
        # A web tool the agent was not given (the runners offer none): refused, nothing fetched.
        "web-tool-not-offered": (
            [{"call": {"name": "WebFetch", "args": {"url": url, "prompt": "Summarise it."}}}],
            [(page, "fail")],
        ),
        # Gemini CLI's own web tool, which takes its URLs in the prompt (the others have no such
        # tool). It runs, and skips a loopback host ("[Blocked Host]"): a fetch tried.
        "web-fetch-tool": (
            [{"call": {"name": "web_fetch", "args": {"prompt": f"Summarise {url} please."}}}],
            [(page, "pass if gemini-cli else fail")],
        ),
        # A fetch from code no record shows: its absence cannot be proven either way.
        "python": (
            [{"cmd": f"python3 -c 'import urllib.request as u; u.urlopen(\"{url}\").read()'"}],
            [(page, "blocked"), ({"not": page}, "blocked")],
        ),
        # Codex's own web search, which the model service runs (the scripted one streams its
        # item): a search naming the host leaves a forbidden fetch open (the agent's block); a
        # page it opened is a fetch. The others have no such tool: refused, nothing fetched.
        "web-search": (
            [{"call": {"name": "web_search", "args": {"action": _SEARCH}}}],
            [
                (page, "blocked if codex-exec else fail"),
                ({"not": host}, "blocked if codex-exec else pass"),
            ],
        ),
        "web-search-opened": (
            [
                {"call": {"name": "web_search", "args": {"action": _SEARCH}}},
                {
                    "call": {
                        "name": "web_search",
                        "args": {"action": {"type": "open_page", "url": url}},
                    }
                },
            ],
            [
                (page, "pass if codex-exec else fail"),
                ({"not": host}, "fail if codex-exec else pass"),
            ],
        ),
        # Code that tried no network, seen whole by the trace: it fetched nothing. Not under
        # Codex, whose sandbox's seccomp filter would hide a refused `socket()` from the trace.
        "code-without-network": (
            [{"cmd": "python3 -c 'print(sum(range(10)))'"}],
            [
                (page, "blocked if codex-exec else fail"),
                ({"not": page}, "blocked if codex-exec else pass"),
            ],
        ),
    }


def _eval_repo(root: Path, url: str) -> tuple[Path, Path, Path]:
    source = root / "source"
    write_file(source / SKILL, SKILL_TEXT)
    repo = root / "agentic-evals"
    behaviors = root / "behaviors"
    write_checks_suite(
        repo,
        ("docs", "What the agent fetched", SKILL, []),
        "fetches",
        {case: (steps, [c for c, _ in entries]) for case, (steps, entries) in _cases(url).items()},
        lambda case: f"Look up the widget token rules, case {case}.",
        behaviors,
    )
    return repo, source, behaviors


@pytest.fixture(scope="module")
def page_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{PATH}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(
    scope="module",
    params=[
        pytest.param("codex", marks=pytest.mark.codex),
        pytest.param("claude", marks=pytest.mark.claude),
        pytest.param("gemini", marks=pytest.mark.gemini),
    ],
)
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, page_url: str
) -> Iterator[RunOutcome]:
    agent = str(request.param)
    runner = agent_or_skip(agent)
    root = tmp_path_factory.mktemp(f"fetches-{agent}")
    repo, source, behaviors = _eval_repo(root, page_url)
    _Page.requests.clear()
    result = run_scripted_repo(repo, source, behaviors, root / "runs", runner)
    yield result
    shutil.rmtree(root, ignore_errors=True)


def _by_agent(status: str, agent: str) -> str:
    """ "pass if gemini-cli else fail": a status that depends on the agent's tools."""
    chosen, rest = status.split(" if ")
    name, other = rest.split(" else ")
    return chosen if agent == name else other


def _entries(outcome: RunOutcome, case: str) -> list[dict[str, Any]]:

    path = outcome.run_dir.path / f"case-artifacts/{case}/attempts/attempt-01/attempt.json"
    attempt = json.loads(path.read_text())
    entries: list[dict[str, Any]] = attempt["assertions"] or []
    assert entries, f"{case} was not judged: {attempt['reason']}"
    return entries


def _code_call_unseen(outcome: RunOutcome, case: str) -> str:
    """Why the attempt's saved trace cannot show that the inline code fetched nothing (empty:
    it shows it). The code makes no network attempt: only a trace that missed part of the call
    (on a loaded machine) may leave the proof out, never a connection or a socket."""
    attempt = outcome.run_dir.path / f"case-artifacts/{case}/attempts/attempt-01"
    recognizer = adapter_for_runner(str(outcome.manifest.agent)).trace_recognizer()
    assert recognizer is not None
    with gzip.open(saved_trace(attempt), "rt", errors="surrogateescape") as log:
        trace = parse_trace(log, recognizer)
    calls = [c for c in trace.tool_calls if "sum(range(10))" in c.command]
    assert len(calls) == 1, [c.command for c in trace.tool_calls]
    # A user lookup through nscd's socket (bash without `$SHELL`, as in CI) fetches nothing.
    reached = [c for c in calls[0].connects if c.peer not in NAME_SERVICE_SOCKETS]
    assert not reached and not calls[0].sockets, (reached, calls[0].sockets)
    if calls[0].filtered or not trace.network_traced:
        return "cannot show its network calls"
    return "did not see it whole" if trace.incompleteness(calls[0]) else ""


@pytest.mark.parametrize("case", list(_cases("http://127.0.0.1:1/x")))
def test_what_the_agent_fetched_decides(outcome: RunOutcome, page_url: str, case: str) -> None:
    entries = _entries(outcome, case)
    agent = str(outcome.manifest.agent)
    expected = [
        status if " if " not in status else _by_agent(status, agent)
        for _, status in _cases(page_url)[case][1]
    ]
    got = [e["status"] for e in entries]
    details = [e["checks"][0]["detail"] for e in entries]
    if case == "code-without-network" and agent != "codex-exec":
        unseen = _code_call_unseen(outcome, case)
        if unseen:
            # The verdict follows what the trace saw, and says why the proof is missing.
            assert got == ["blocked", "blocked"], details
            assert all(unseen in detail for detail in details), details
            return
    assert got == expected, details


def test_only_the_fetches_reached_the_server(outcome: RunOutcome) -> None:
    # curl (3 cases) and python's urlopen at most: no look-alike sent a request, nor did a web
    # tool (Claude Code does not offer one; Gemini CLI's `web_fetch` ran, but skips a loopback
    # host: "[Blocked Host]", a fetch tried as much as a curl that cannot connect). Codex's
    # `workspace-write` sandbox has no network, so its requests never leave; Claude Code and
    # Gemini CLI run commands without one, and all four arrive.
    assert _Page.requests.count(PATH) == len(_Page.requests) <= 4, _Page.requests
    assert outcome.manifest.agent in RUNNERS.values()
    if outcome.manifest.agent != "codex-exec":
        assert len(_Page.requests) == 4, _Page.requests
