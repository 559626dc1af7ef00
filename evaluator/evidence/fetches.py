"""URLs the agent fetched or tried to fetch, and where a fetch could have happened unseen.

Two sources, both neutral: the shell commands the analysis models as fetching a URL (`curl`,
`wget`, `git clone`; their operands, read with the commands' own option models), and the agents'
own web tools, which each normaliser records as `url_fetch_observed` (Claude Code's `WebFetch`,
Gemini CLI's `web_fetch`; a search tool fetches no URL the agent chose). A fetch that failed
(no network here, a 404) was still tried: the request is the act.

What no record shows: a program whose code decides what it fetches (a script, `python -c`,
`node -e`), a command the analysis does not model, a URL computed at run time. A session with one
of these cannot prove that no fetch to a host happened (`unseen_fetch`).

The access trace records a `connect()` only to an address: offline, a host name never resolves,
so no connection to a public host is made for it to show, and an address says nothing of the
host a URL named (one address serves many hosts). So it adds nothing here.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from evaluator.evidence.shell import COMMANDS, analyze_command, split_options
from evaluator.evidence.shell.families.git import CLONE_VALUED
from evaluator.evidence.shell.model import words
from evaluator.evidence.shell.results import Invocation

# Commands whose operands are URLs they fetch (git: its `clone` subcommand's source).
URL_FETCHERS = frozenset({"curl", "wget", "git"})
# Programs that run code their words do not show (an interpreter's program, a Makefile's
# recipes, a package's scripts) or fetch from places their words do not name (a package
# index): what they fetch is not seen.
_CODE_RUNNERS = words(
    "python python3 node nodejs deno bun perl ruby php pytest make uv npm npx pnpm yarn pip pip3"
)
# git subcommands that reach a remote the repository configures, not one their words name.
_GIT_REMOTE = words("fetch pull push ls-remote submodule remote")
# Options taking a separate value: git's own (its `clone`'s: the git family's).
_GIT_VALUED = frozenset({"-C", "-c", "--config-env", "--git-dir", "--work-tree", "--namespace"})
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
# `git@github.com:owner/repo.git`: ssh's scp-like form.
_SCP_LIKE = re.compile(r"^(?:[\w.-]+@)?([\w.-]+\.[a-zA-Z]{2,}):(?!//)")
_HOST = re.compile(r"[a-z0-9._-]+|[0-9a-f:.]+")
_DEFAULT_PORTS = {"http": "80", "https": "443"}
# A URL in a web tool's prompt (Gemini CLI's `web_fetch` takes its URLs inside `prompt`).
_URL_IN_TEXT = re.compile(r"https?://[^\s<>\"'`)\]]+")


def normal_url(raw: str) -> str | None:
    """The URL as compared: scheme and host in lower case, a default port and a fragment
    dropped, an empty path as `/`; a URL without a scheme (what `curl example.com/x` fetches)
    is `http://`. None when it names no host."""
    text = raw.strip()
    scp = _SCP_LIKE.match(text)
    if scp and not _SCHEME.match(text):
        return f"ssh://{scp.group(1).lower()}/{text[scp.end() :]}"
    if not _SCHEME.match(text):
        text = "http://" + text
    try:
        parts = urlsplit(text)
        host = parts.hostname
        port = parts.port
    except ValueError:
        return None
    if not host or not _HOST.fullmatch(host.lower()):
        return None  # no host, or text the shell computes (`$URL`)
    scheme = parts.scheme.lower()
    netloc = host.lower()
    if port is not None and _DEFAULT_PORTS.get(scheme) != str(port):
        netloc += f":{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def url_host(url: str) -> str | None:
    """The host a (normal) URL names, lower case, without its port."""
    try:
        host = urlsplit(url if _SCHEME.match(url) else "http://" + url).hostname
    except ValueError:
        return None
    return host.lower().rstrip(".") if host else None


def host_matches(host: str, wanted: str) -> bool:
    """`docs.example.com` is that host only; `*.example.com` is any host below it (not
    `example.com` itself, as the pattern says)."""
    wanted = wanted.lower().rstrip(".")
    if wanted.startswith("*."):
        return host.endswith(wanted[1:])
    return host == wanted


def url_matches(url: str, wanted: str) -> bool:
    """The same URL once both are normal (`normal_url`)."""
    return normal_url(wanted) == url


def shell_fetches(invocation: Invocation) -> list[str]:
    """The URLs (normal) one simple command fetches by what it is: `curl`, `wget`, `git
    clone`. A URL the analysis could not read (computed) is not here: it makes the command
    opaque (`unseen_fetch`)."""
    name = posixpath.basename(invocation.words[0])
    if name not in URL_FETCHERS or 0 not in invocation.executed:
        return []
    args = list(invocation.words[1:])
    if name == "git":
        operands = _git_clone_source(args)
    else:
        options, positional = split_options(COMMANDS[name], list(args), args)
        operands = [raw for raw, _ in positional if raw is not None]
        operands += [value for option, value in options if option == "--url" and value]
    urls = []
    for raw in operands:
        if raw.lower().startswith("file:"):
            continue  # a local file (the analysis reads it as a path)
        if name == "git" and not (_SCHEME.match(raw) or _SCP_LIKE.match(raw)):
            continue  # a local repository
        url = normal_url(raw)
        if url is not None:
            urls.append(url)
    return urls


def _git_subcommand(args: list[str]) -> tuple[str, list[str]]:
    """`git [options] SUBCOMMAND ARGS...`: the subcommand and its arguments."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in _GIT_VALUED else 1
    if index >= len(args):
        return "", []
    return args[index], args[index + 1 :]


def _git_clone_source(args: list[str]) -> list[str]:
    """`git [options] clone [options] SOURCE [DIR]`: SOURCE."""
    sub, rest = _git_subcommand(args)
    if sub != "clone":
        return []
    index = 0
    while index < len(rest):
        word = rest[index]
        if word == "--":
            return rest[index + 1 : index + 2]
        if not word.startswith("-"):
            return [word]
        index += 2 if word in CLONE_VALUED else 1
    return []


def urls_in_text(text: str) -> list[str]:
    """The http(s) URLs written in a text (a web tool's prompt), normal."""
    found = (normal_url(m.group(0).rstrip(".,;:")) for m in _URL_IN_TEXT.finditer(text))
    return [url for url in found if url is not None]


@dataclass(frozen=True)
class CommandFetches:
    """What one tool call's command fetched, by the shell analysis: the URLs of each simple
    command (with it, to know whether it surely ran), and why a fetch could have happened
    unseen (None when none could)."""

    fetches: list[tuple[Invocation, list[str]]]
    unseen: str | None
    # The command line itself hides the fetch (a construct the analysis cannot read, code given
    # inline to an interpreter): the agent's doing. A program or script that may fetch (the
    # skill's own script, `make`, `pip`) is what the evidence cannot see into: the eval's.
    unseen_inline: bool = False


# Interpreters' options that take the program itself as text.
_INLINE_CODE = frozenset(words("-c -e -E -p --eval --print -r"))


def _code_runner(program: str) -> bool:
    return program in _CODE_RUNNERS or re.fullmatch(r"python3\.\d+", program) is not None


def command_fetches(command: str, workdir: str) -> CommandFetches:
    analysis = analyze_command(command, workdir)
    fetches = [(i, urls) for i in analysis.invocations if (urls := shell_fetches(i))]
    unseen = None
    inline = False
    given_code = [
        program
        for invocation in analysis.invocations
        if _code_runner(program := posixpath.basename(invocation.words[0]))
        and _INLINE_CODE & set(invocation.words[1:])
    ]
    if analysis.opaque:
        unseen, inline = analysis.opaque[0], True
    elif given_code:
        unseen, inline = (
            f"{given_code[0]} runs code given inline, whose fetches no record shows",
            True,
        )
    elif runs := [r for r in analysis.runs if not r.path.endswith("/.git")]:
        # (git's runs of a repository's hooks are left out: every git command has them)
        unseen = f"it runs {runs[0].path}, whose fetches no record shows"
    else:
        for invocation in analysis.invocations:
            program = posixpath.basename(invocation.words[0])
            if _code_runner(program):
                unseen = f"{program} runs code whose fetches no record shows"
                break
            if program == "git" and (sub := _git_subcommand(list(invocation.words[1:]))[0]) in (
                _GIT_REMOTE
            ):
                unseen = f"git {sub} reaches a remote its words do not name"
                break
    return CommandFetches(fetches, unseen, inline)
