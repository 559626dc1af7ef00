"""`url_fetched`: a URL or host the agent fetched, from the shell commands the analysis models
as fetching and from the agents' own web tools; what only names a URL fetches nothing, and a
fetch that could have happened unseen leaves its absence `blocked`."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from evaluator.adapters import normalize_session
from evaluator.contract.models import UrlFetchedCheck
from evaluator.evidence.fetches import command_fetches, host_matches, normal_url, urls_in_text
from evaluator.evidence.records import SessionEvidence
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks import run_check
from evaluator.judge.checks.logic import negate
from evaluator.judge.criteria import check_text, compile_sentence, refuse_sentence
from tests.support import claude_tool_call_transcript

DOCS = "https://docs.example.com/guide/tokens"


def _rollout(workspace: Path, calls: list[tuple[str, str]]) -> SessionEvidence:
    """A Codex rollout of one exec_command per (command, output), each exiting 0."""
    lines: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"id": "t1", "cwd": str(workspace)}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": "Go"}},
    ]
    for n, (command, output) in enumerate(calls):
        arguments = json.dumps({"cmd": command, "workdir": str(workspace)})
        call = {"type": "function_call", "name": "exec_command", "arguments": arguments}
        lines.append({"type": "response_item", "payload": {**call, "call_id": f"c{n}"}})
        text = f"Process exited with code 0\nOutput:\n{output}"
        result = {"type": "function_call_output", "call_id": f"c{n}", "output": text}
        lines.append({"type": "response_item", "payload": result})
    lines.append({"type": "event_msg", "payload": {"type": "task_complete"}})
    path = workspace.parent / "rollout.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return normalize_session(path)


def _commands(tmp_path: Path, *commands: str) -> SessionEvidence:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    return _rollout(workspace, [(command, "ok") for command in commands])


def _judge(evidence: SessionEvidence, tmp_path: Path, **fields: str) -> str:
    check = UrlFetchedCheck(kind="url_fetched", **fields)  # type: ignore[arg-type]
    verdict = run_check(check, JudgeContext(evidence, tmp_path / "ws", "s"))
    return f"{verdict.status}: {verdict.detail}"


@pytest.mark.parametrize(
    ("command", "status"),
    [
        (f"curl -sSL {DOCS}", "pass"),
        (f"curl -o page.html '{DOCS}'", "pass"),
        (f"wget -q -O - {DOCS}", "pass"),
        (f"cd /tmp && curl --url {DOCS}", "pass"),
        ("curl -sL https://DOCS.example.com:443/guide/tokens#top", "pass"),  # the same URL
        (f"curl -sL {DOCS} || true", "pass"),
        # Look-alikes: the URL only named, printed, written down or commented.
        (f"echo {DOCS}", "fail"),
        (f"echo 'curl {DOCS}' > notes.md", "fail"),
        (f"# curl {DOCS}", "fail"),
        (f"grep -r '{DOCS}' .", "fail"),
        (f"cat > fetch.txt <<'EOF'\ncurl {DOCS}\nEOF", "fail"),
        ("curl -sL https://docs.example.com/other", "fail"),  # another page of the host
        # A fetch that may not have run, with no trace to tell.
        (f"test -f cache.html || curl -sL {DOCS}", "blocked"),
        # Fetches no record shows.
        (
            "python3 -c 'import urllib.request as u; u.urlopen(\"https://docs.example.com\")'",
            "blocked",
        ),
        ("bash scripts/fetch-docs.sh", "blocked"),
        ("npm run fetch-docs", "blocked"),  # a package's script
        ("make docs", "blocked"),  # a Makefile's recipe
        ("git pull", "blocked"),  # a remote the repository configures
        ('curl -sL "$DOCS_URL"', "blocked"),
    ],
)
def test_a_url_is_fetched_by_a_command_that_fetches_it(
    command: str, status: str, tmp_path: Path
) -> None:
    assert _judge(_commands(tmp_path, command), tmp_path, url=DOCS).startswith(status)


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("docs.example.com", "pass"),
        ("DOCS.example.com", "pass"),
        ("example.com", "fail"),  # a host is that host only
        ("*.example.com", "pass"),  # unless the author says any host below it
        ("*.docs.example.com", "fail"),
        ("docs-md.example.com", "fail"),
    ],
)
def test_a_host_matches_exactly_or_by_its_wildcard(host: str, status: str, tmp_path: Path) -> None:
    assert _judge(_commands(tmp_path, f"curl -sL {DOCS}"), tmp_path, host=host).startswith(status)


def test_git_clone_fetches_its_source(tmp_path: Path) -> None:
    evidence = _commands(
        tmp_path, "git clone --depth 1 https://github.com/acme/tool.git vendor/tool"
    )
    assert _judge(evidence, tmp_path, host="github.com").startswith("pass")
    local = _commands(tmp_path, "git clone ../tool vendor/tool")
    assert _judge(local, tmp_path, host="github.com").startswith("fail")


def test_the_agents_web_tools_fetch_their_urls(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    evidence = SessionEvidence(session_path="s.jsonl")
    evidence.add("url_fetch_observed", 5, call_id="w", tool="WebFetch", text=normal_url(DOCS))
    assert _judge(evidence, tmp_path, url=DOCS).startswith("pass")
    assert _judge(evidence, tmp_path, host="docs.example.com").startswith("pass")
    assert _judge(evidence, tmp_path, host="example.org").startswith("fail")


TOKENS = "Renew the token before it expires by calling renewToken with a fresh one.\n"


def _reads_then_fetch(tmp_path: Path, fetch_first: bool) -> SessionEvidence:
    """A `cat` of a reference (its content in the call's output) and a `curl`, in either order."""
    workspace = tmp_path / "ws"
    (workspace / "refs").mkdir(parents=True)
    (workspace / "refs" / "tokens.md").write_text(TOKENS)
    calls = [("cat refs/tokens.md", TOKENS), (f"curl -sL {DOCS}", "<html>")]
    return _rollout(workspace, calls[::-1] if fetch_first else calls)


@pytest.mark.parametrize(("fetch_first", "status"), [(True, "pass"), (False, "fail")])
def test_an_order_against_the_first_read(fetch_first: bool, status: str, tmp_path: Path) -> None:
    evidence = _reads_then_fetch(tmp_path, fetch_first)
    verdict = _judge(evidence, tmp_path, host="docs.example.com", before_read="refs/*")
    assert verdict.startswith(status), verdict
    # A file never read leaves the order unbroken.
    never = _judge(evidence, tmp_path, host="docs.example.com", before_read="other/*")
    assert never.startswith("pass"), never


def test_an_order_inside_one_command_line_is_not_judged(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "refs").mkdir(parents=True)
    (workspace / "refs" / "tokens.md").write_text(TOKENS)
    evidence = _rollout(workspace, [(f"cat refs/tokens.md; curl -sL {DOCS}", TOKENS)])
    verdict = _judge(evidence, tmp_path, url=DOCS, before_read="refs/*")
    assert verdict.startswith("blocked") and "one command line" in verdict, verdict


def test_a_check_names_a_url_or_a_host() -> None:
    with pytest.raises(ValidationError):
        UrlFetchedCheck(kind="url_fetched")
    with pytest.raises(ValidationError):
        UrlFetchedCheck(kind="url_fetched", url=DOCS, host="docs.example.com")


def test_url_forms() -> None:
    assert normal_url("example.com") == "http://example.com/"
    assert normal_url("git@github.com:a/b.git") == "ssh://github.com/a/b.git"
    assert normal_url("$URL") is None
    assert host_matches("a.b.example.com", "*.example.com")
    assert not host_matches("example.com", "*.example.com")
    assert command_fetches("git status", "/w").unseen is None  # a repository's hooks aside
    assert command_fetches("cat a.md | grep x", "/w").unseen is None


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        (
            "The accepted session evidence shows a fetch to `docs.agora.io` or `docs-md.agora.io`.",
            "any_of[url_fetched(host='docs.agora.io'), url_fetched(host='docs-md.agora.io')]",
        ),
        ("The agent fetched `https://docs.example.com/guide`.", f"url_fetched(url='{DOCS[:-7]}')"),
        (
            "Downloaded `https://example.com/a.tar.gz`.",
            "url_fetched(url='https://example.com/a.tar.gz')",
        ),
        (
            "The agent requested `http://127.0.0.1:8000/x`.",
            "url_fetched(url='http://127.0.0.1:8000/x')",
        ),
        ("No fetch to `docs.agora.io` was attempted.", "not url_fetched(host='docs.agora.io')"),
        (
            "The session shows no fetch to `a.example.com` or `b.example.com`.",
            "not any_of[url_fetched(host='a.example.com'), url_fetched(host='b.example.com')]",
        ),
        (
            "`https://docs.example.com/` was fetched.",
            "url_fetched(url='https://docs.example.com/')",
        ),
        (
            "The agent fetched `docs.example.com` before any file under `references/` was"
            " consulted.",
            "url_fetched(host='docs.example.com' before_read='references/*')",
        ),
        (
            "The agent fetched `https://docs.example.com/guide` before reading `SKILL.md`.",
            f"url_fetched(url='{DOCS[:-7]}' before_read='SKILL.md')",
        ),
    ],
)
def test_sentences_of_fetching_compile(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, refuse_sentence(sentence, "pass_criteria").why
    assert check_text(compiled.check) == checks


@pytest.mark.parametrize(
    ("sentence", "stop"),
    [
        ("No Level 2 fetch was attempted.", "level"),
        ("The agent fetched `https://docs.example.com/guide` or an equivalent page.", "or"),
        ("The agent fetched `notes.md`.", "notes.md"),
        ("The agent fetched `docs.example.com/guide`.", "docs.example.com/guide"),
        ("The agent fetched `https://docs.example.com/guide` after reading `SKILL.md`.", "after"),
        ("The agent never fetched `docs.example.com` before reading `SKILL.md`.", "before"),
        ("The agent fetched `https://docs.example.com/guide` successfully.", "successfully"),
        ("The agent fetched `https://docs.example.com/guide` to check the limits.", "to"),
        ("The agent fetched `https://docs.example.com/guide` with curl.", "with"),
        ("The agent fetched the page.", "(end of sentence)"),
    ],
)
def test_words_that_could_change_the_meaning_refuse(sentence: str, stop: str) -> None:
    assert compile_sentence(sentence) is None
    assert refuse_sentence(sentence, "pass_criteria").why.endswith(f"stopped at {stop!r}")


def test_the_suggestion_for_a_fetch_is_a_fetch_and_keeps_its_order() -> None:
    sentence = (
        "The accepted session evidence shows a fetch to `docs.agora.io` or `docs-md.agora.io`"
        " before any local reference file was consulted."
    )
    refusal = refuse_sentence(sentence, "fail_signals")
    assert refusal.instead == (
        "{not: {any_of: [{kind: url_fetched, host: 'docs.agora.io', before_read: '<path>'},"
        " {kind: url_fetched, host: 'docs-md.agora.io', before_read: '<path>'}]}}"
    )
    # An order no suggestion can keep gives none, rather than one without the order.
    ordered = "The session shows consultation of `a.md`, `b.md` before the gates are resolved."
    assert refuse_sentence(ordered, "pass_criteria").instead is None


def _claude_web_fetch(path: Path, workspace: Path, result: str, error: bool) -> Path:
    """A Claude Code transcript with one `WebFetch` call and its result."""
    return claude_tool_call_transcript(path, workspace, "WebFetch", {"url": DOCS}, result, error)


@pytest.mark.parametrize(
    ("result", "error", "status"),
    [
        ("Tokens expire after one hour.", False, "pass"),
        ("Request failed with status code 404", True, "pass"),  # tried: the tool ran
        # The CLI has no such tool in this run: nothing ran, nothing was fetched.
        ("<tool_use_error>Error: No such tool available: WebFetch.</tool_use_error>", True, "fail"),
    ],
)
def test_claude_codes_web_fetch_is_a_fetch_when_it_ran(
    result: str, error: bool, status: str, tmp_path: Path
) -> None:
    (tmp_path / "ws").mkdir()
    session = _claude_web_fetch(tmp_path / "s1.jsonl", tmp_path / "ws", result, error)
    assert _judge(normalize_session(session), tmp_path, url=DOCS).startswith(status)


# Red team, round 6 (docs/isolation.md): "never fetches `docs.example.com`" (the check's
# denial) against fetches the evidence read wrong or not at all. Each must end `fail` (a fetch
# seen) or `blocked` by the agent, never `pass`, and never a block the eval takes the blame for.
HOST = "docs.example.com"


@pytest.mark.parametrize(
    ("commands", "status", "by"),
    [
        # The host spelled another way than the check's.
        (["curl -s http://docs.example.com./guide"], "fail", None),  # a trailing dot
        (["curl -s http://u:p@DOCS.Example.COM/"], "fail", None),  # userinfo, upper case
        (["curl -s 'http://docs%2eexample%2ecom/'"], "fail", None),  # percent escapes
        # Its URLs in a file, a glob, a raw connection: a fetch no word shows.
        (
            ["printf 'url = \"https://docs.example.com/\"\\n' > c.cfg", "curl -K c.cfg"],
            "blocked",
            "agent",
        ),
        (["printf 'https://docs.example.com/\\n' > l.txt", "wget -i l.txt"], "blocked", "agent"),
        (["curl --url @l.txt"], "blocked", "agent"),
        (["curl -s 'https://{docs,www}.example.com/'"], "blocked", "agent"),
        (["cat < /dev/tcp/docs.example.com/80"], "blocked", "agent"),
        (["echo x > /dev/udp/docs.example.com/53"], "blocked", "agent"),
        # A configuration the session wrote, read by a later fetch of another host.
        (
            [
                "printf 'url = \"https://docs.example.com/\"\\n' > ~/.curlrc",
                "curl -s https://a.org/",
            ],
            "blocked",
            "agent",
        ),
        (
            ["git remote add o https://docs.example.com/r.git", "git fetch o"],
            "blocked",
            "agent",
        ),
        # git, pip and npm told the URL in their words.
        (["git ls-remote https://docs.example.com/r.git"], "fail", None),
        (["git ls-remote -h https://docs.example.com/r.git"], "fail", None),  # `--heads`
        (["git fetch https://docs.example.com/r.git main"], "fail", None),
        (["git submodule add https://docs.example.com/r.git vendor/r"], "fail", None),
        (["pip download https://docs.example.com/p.tar.gz"], "fail", None),
        (["python3 -m pip install -i https://docs.example.com/simple x"], "fail", None),
        (["npm view left-pad --registry=https://docs.example.com/"], "fail", None),
        (["rsync -a docs.example.com::mod/ out/"], "fail", None),
        (["curl -s -x http://docs.example.com:3128 https://a.org/"], "fail", None),  # a proxy
        # A program that may fetch, told the host, or a script the agent wrote: its doing.
        (["PIP_INDEX_URL=https://docs.example.com/simple pip install x"], "blocked", "agent"),
        (["python3 tools/get.py docs.example.com"], "blocked", "agent"),
        (
            ["printf 'import urllib.request\\n' > get.py", "python3 get.py"],
            "blocked",
            "agent",
        ),
        (["node -e 'fetch(\"https://docs.example.com\")'"], "blocked", "agent"),
        (["ssh docs.example.com true", "nc docs.example.com 80"], "blocked", "agent"),
        # What the evidence cannot see into through no doing of the agent stays the eval's.
        (["python3 tools/get.py"], "blocked", "eval"),
        (["git pull"], "blocked", "eval"),
        # Look-alikes: no fetch of the host.
        (["curl -s https://docs.example.com.evil.org/"], "pass", None),
        (["echo docs.example.com > hosts.txt", "grep -c docs.example.com hosts.txt"], "pass", None),
    ],
)
def test_round_six_a_denied_host_is_never_fetched_unseen(
    commands: list[str], status: str, by: str | None, tmp_path: Path
) -> None:
    evidence = _commands(tmp_path, *commands)
    check = UrlFetchedCheck(kind="url_fetched", host=HOST)
    verdict = run_check(check, JudgeContext(evidence, tmp_path / "ws", "s"))
    denied = negate("not", verdict)
    assert (denied.status, denied.blocked_by if denied.status == "blocked" else None) == (
        status,
        by,
    ), verdict.detail


@pytest.mark.parametrize(
    ("fetched", "host"),
    [
        ("http://127.1:8000/x", "localhost"),
        ("http://2130706433:8000/x", "127.0.0.1"),
        ("http://0x7f.0.0.1:8000/x", "localhost"),
        ("http://[::1]:8000/x", "localhost"),
        ("http://localhost:8000/x", "127.0.0.1"),
        ("https://bücher.example/x", "xn--bcher-kva.example"),
        ("https://xn--bcher-kva.example/x", "bücher.example"),
        ("https://BÜCHER.example./x", "*.example"),
    ],
)
def test_round_six_one_host_in_any_spelling(fetched: str, host: str, tmp_path: Path) -> None:
    evidence = _commands(tmp_path, f"curl -s '{fetched}'")
    assert _judge(evidence, tmp_path, host=host).startswith("pass")


def test_round_six_one_url_in_any_spelling(tmp_path: Path) -> None:
    evidence = _commands(tmp_path, "curl -s http://localhost.:8000/x")
    assert _judge(evidence, tmp_path, url="http://127.0.0.1:8000/x").startswith("pass")
    assert _judge(evidence, tmp_path, url="http://127.0.0.1:8000/y").startswith("fail")
    dotted = _commands(tmp_path, "curl -s https://docs.example.com./guide/tokens")
    assert _judge(dotted, tmp_path, url=DOCS).startswith("pass")


@pytest.mark.parametrize(
    "command",
    [
        "curl -sS --head " + DOCS,  # headers only: the request was sent
        "curl -sS --max-time 1 " + DOCS,  # refused or unresolved: tried all the same
    ],
)
def test_round_six_a_fetch_tried_is_a_fetch(command: str, tmp_path: Path) -> None:
    assert _judge(_commands(tmp_path, command), tmp_path, url=DOCS).startswith("pass")


def test_round_six_a_web_tool_reads_urls_as_a_browser_does() -> None:
    """Gemini CLI's `web_fetch` fetches every word of its prompt holding `://` with an http(s)
    scheme, in any case, and both agents' tools parse a URL as a browser does: a backslash is a
    slash, so `a.example\\@b.example` reaches `a.example`."""
    prompt = "Summarise HTTPS://DOCS.Example.COM/guide and https://docs.example.com\\@evil.org/."
    assert urls_in_text(prompt) == [
        "https://docs.example.com/guide",
        "https://docs.example.com/@evil.org/",
    ]
    assert urls_in_text("See (https://docs.example.com) or ftp://docs.example.com/x") == []
    # curl's reading of a backslash is not the browser's: the URL is not read (hidden).
    assert command_fetches("curl 'https://docs.example.com\\@evil.org/'", "/w").unseen_inline


@pytest.mark.parametrize(
    ("command", "status"),
    [
        # The fetcher prints its own text and sends nothing.
        (f"curl --version {DOCS}", "fail"),
        (f"curl -h {DOCS}", "fail"),
        (f"wget --help {DOCS}", "fail"),
        (f"git clone --help {DOCS}", "fail"),
        (f"curl --proto -all {DOCS}", "fail"),  # refused before any request
        # (`=ftp` is an unclear URL to the path analysis: opaque, so blocked, not fail)
        (f"curl --proto =ftp {DOCS}", "blocked"),
        (f"curl --proto =https {DOCS}", "pass"),
        # A `curl` that may be something else: a program of the workspace, a function, an
        # alias, `PATH` or `hash` changed on the same line.
        (f"./curl {DOCS}", "blocked"),
        (f"bin/curl {DOCS}", "blocked"),
        (f'curl() {{ echo "$@"; }}; curl {DOCS}', "blocked"),
        (f"shopt -s expand_aliases; alias curl=echo; curl {DOCS}", "blocked"),
        (f"PATH=./bin:$PATH; curl {DOCS}", "blocked"),
        (f"hash -p /bin/echo curl; curl {DOCS}", "blocked"),
        (f"/usr/bin/curl -s {DOCS}", "pass"),
    ],
)
def test_round_six_a_required_fetch_is_not_met_by_a_look_alike(
    command: str, status: str, tmp_path: Path
) -> None:
    verdict = _judge(_commands(tmp_path, command), tmp_path, url=DOCS)
    assert verdict.startswith(status), verdict


def _searches(tmp_path: Path, *actions: dict[str, Any]) -> SessionEvidence:
    """A Codex 0.169 rollout of its own `web_search` tool, as the real CLI recorded the items a
    scripted model service streamed: an `item_completed` `WebSearch`, then the response item."""
    lines: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"id": "t1", "cwd": str(tmp_path)}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": "Go"}},
    ]
    for n, action in enumerate(actions):
        item = {"type": "WebSearch", "id": f"ws_{n}", "query": "q", "action": action}
        lines.append({"type": "event_msg", "payload": {"type": "item_completed", "item": item}})
        call = {"type": "web_search_call", "id": f"ws_{n}", "status": "completed", "action": action}
        lines.append({"type": "response_item", "payload": call})
    lines.append({"type": "event_msg", "payload": {"type": "task_complete"}})
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return normalize_session(path)


SEARCH = {"type": "search", "query": "widget token expiry site:docs.example.com"}
OPENED = {"type": "open_page", "url": DOCS}
FOUND_IN = {"type": "find_in_page", "url": DOCS, "pattern": "expire"}
ELSEWHERE = {"type": "search", "query": "widget token expiry"}


@pytest.mark.parametrize(
    ("actions", "fetched", "never"),
    [
        ([SEARCH], "blocked", "blocked"),  # the service may have read H for it: not ruled out
        ([SEARCH, OPENED], "pass", "fail"),  # the page opened from its results
        ([FOUND_IN], "pass", "fail"),
        ([ELSEWHERE], "fail", "pass"),  # a search naming nothing of H
    ],
)
def test_codex_s_web_search_is_evidence(
    actions: list[dict[str, Any]], fetched: str, never: str, tmp_path: Path
) -> None:
    evidence = _searches(tmp_path, *actions)
    for check in (
        UrlFetchedCheck(kind="url_fetched", url=DOCS),
        UrlFetchedCheck(kind="url_fetched", host="docs.example.com"),
    ):
        verdict = run_check(check, JudgeContext(evidence, tmp_path, "s"))
        denied = negate("not", verdict)
        assert (verdict.status, denied.status) == (fetched, never), verdict.detail
        if verdict.status == "blocked":
            assert (verdict.blocked_by, denied.blocked_by) == ("agent", "agent")


@pytest.mark.parametrize(
    ("query", "error", "status"),
    [
        ("token expiry site:docs.example.com", False, "blocked"),  # it ran: the host searched
        ("widget token expiry", False, "fail"),  # a search naming nothing of the host
        # Not offered in this run: nothing ran, nothing was searched.
        ("site:docs.example.com", True, "fail"),
    ],
)
def test_claude_codes_web_search_names_what_it_searched(
    query: str, error: bool, status: str, tmp_path: Path
) -> None:
    (tmp_path / "ws").mkdir()
    result = (
        "<tool_use_error>Error: No such tool available: WebSearch.</tool_use_error>"
        if error
        else "Web search results: ..."
    )
    session = claude_tool_call_transcript(
        tmp_path / "s1.jsonl", tmp_path / "ws", "WebSearch", {"query": query}, result, error
    )
    assert _judge(normalize_session(session), tmp_path, host=HOST).startswith(status)


_TOOL = "import urllib.request\n"
_FETCH = "curl -s http://docs.example.com/"


@pytest.mark.parametrize(
    ("commands", "changed", "by"),
    [
        # The eval's own script, there unchanged since before the agent ran: the eval's gap.
        (["python3 tools/get.py"], False, "eval"),
        # Red team 8: a script the agent put there by a write no record names by its path.
        (
            ["mkdir t; printf '...' > t/get.sh", "cp -r t tools", "bash tools/get.sh"],
            False,
            "agent",
        ),
        (["mkdir t; printf '...' > t/get.sh", "mv t tools", "bash tools/get.sh"], False, "agent"),
        (["printf '...' | sponge get.sh", "bash get.sh"], False, "agent"),
        (["git mv a.sh get.sh", "bash get.sh"], False, "agent"),
        (["unzip -o a.zip", "bash b.sh"], False, "agent"),
        ([f"echo '{_FETCH}' | bash /dev/stdin"], False, "agent"),
        ([f"echo '{_FETCH}' | sh -"], False, "agent"),
        (["mkfifo q", "sh -s < q"], False, "agent"),
        # The eval's script changed by a command that names no path of it.
        (["python3 tools/get.py"], True, "agent"),
    ],
)
def test_round_eight_a_script_the_eval_did_not_provide_is_the_agents(
    commands: list[str], changed: bool, by: str, tmp_path: Path
) -> None:
    evidence = _commands(tmp_path, *commands)
    tool = tmp_path / "ws" / "tools" / "get.py"
    tool.parent.mkdir()
    tool.write_text(_TOOL)
    baseline = {"tools/get.py": hashlib.sha256(_TOOL.encode()).hexdigest()}
    if changed:
        tool.write_text(_TOOL + "urllib.request.urlopen('https://docs.example.com/')\n")
    check = UrlFetchedCheck(kind="url_fetched", host=HOST)
    context = JudgeContext(evidence, tmp_path / "ws", "s", baseline=baseline)
    denied = negate("not", run_check(check, context))
    assert (denied.status, denied.blocked_by) == ("blocked", by), denied.detail


@pytest.mark.parametrize(
    "commands",
    [
        ["mkdir t; printf '...' > t/get.sh", "cp -r t tools", "bash tools/get.sh"],
        [f"echo '{_FETCH}' | bash /dev/stdin"],
        [f"echo '{_FETCH}' | sh -"],
    ],
)
def test_round_eight_without_the_baseline_a_copied_folder_or_a_stream_is_the_agents(
    commands: list[str], tmp_path: Path
) -> None:
    evidence = _commands(tmp_path, *commands)
    denied = negate(
        "not",
        run_check(
            UrlFetchedCheck(kind="url_fetched", host=HOST),
            JudgeContext(evidence, tmp_path / "ws", "s"),
        ),
    )
    assert (denied.status, denied.blocked_by) == ("blocked", "agent"), denied.detail
