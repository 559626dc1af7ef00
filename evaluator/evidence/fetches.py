"""URLs the agent fetched or tried to fetch, and where a fetch could have happened unseen.

Two sources, both neutral: the shell commands the analysis models as fetching a URL (`curl`,
`wget`, `git clone`; their operands, read with the commands' own option models), and the agents'
own web tools, which each normaliser records as `url_fetch_observed` (Claude Code's `WebFetch`,
Gemini CLI's `web_fetch`, a page Codex's `web_search` opened; a search itself fetches no URL the
agent chose: its query is kept, below). A fetch that failed
(no network here, a 404) was still tried: the request is the act.

What no record shows: a program whose code decides what it fetches (a script, `python -c`,
`node -e`), a command the analysis does not model, a URL computed at run time, a URL a fetcher
reads from a file (`curl -K`, `wget -i`, a configuration the session wrote: `~/.curlrc`, a git
remote, `pip.conf`, `.npmrc`), a URL the analysis cannot read (curl's `{a,b}` globs), bash's own
connections (`< /dev/tcp/HOST/PORT`). A session with one of these cannot prove that no fetch to
a host happened (`unseen_fetch`).

Hosts are compared as the network sees them: case, a trailing dot and percent escapes undone,
an international name in its ASCII (IDNA) form, an IPv4 address in any spelling the resolver
takes (`127.1`, `0x7f000001`, `2130706433`) dotted, and `localhost` the same host as the
loopback addresses (RFC 6761). A package manager (`pip`, `npm`, ...) fetches every URL its words
give it (`pip install URL`, `--index-url`, `--registry`), and git every URL its remote
subcommands name (`git fetch URL`, `ls-remote`, `submodule add`).

The agents' own web searches are kept as their queries (`SEARCH_QUERY`): the pages a search
service read for them are not seen; a page a search opened is a fetch of its URL.

The access trace records a network attempt only as an address or a socket's family: offline, a
host name never resolves, so no connection to a public host is made for it to show, and an
address says nothing of the host a URL named (one address serves many hosts). What it can show
is that a call tried no network at all (`TracedCall.reached_nothing`): then it fetched nothing.
"""

from __future__ import annotations

import ipaddress
import posixpath
import re
import socket
from collections.abc import Iterator
from dataclasses import dataclass, replace
from urllib.parse import unquote, urlsplit, urlunsplit

from tree_sitter import Node

from evaluator.evidence.shell import COMMANDS, analyze_command, split_options
from evaluator.evidence.shell.families.git import CLONE_VALUED
from evaluator.evidence.shell.model import words
from evaluator.evidence.shell.results import Invocation, ShellAnalysis
from evaluator.evidence.shell.walker import parse

# The source of a `url_fetch_observed` that is a web search's query, not a URL fetched.
SEARCH_QUERY = "search-query"
# Commands whose operands are URLs they fetch (git: its `clone` subcommand's source).
URL_FETCHERS = frozenset({"curl", "wget", "git"})
# Programs that run code their words do not show (an interpreter's program, a Makefile's
# recipes, a package's scripts) or fetch from places their words do not name (a package
# index): what they fetch is not seen.
_CODE_RUNNERS = words(
    "python python3 node nodejs deno bun perl ruby php pytest make uv npm npx pnpm yarn pip pip3"
)
# Package managers: every URL their words give them is fetched (a package, an index, a
# registry); their `config` subcommand only writes it down.
_PACKAGE_MANAGERS = words("pip pip3 npm npx pnpm yarn uv")
# git subcommands that reach a remote the repository configures, not one their words name.
_GIT_REMOTE = words("fetch pull push ls-remote submodule remote")
# Options taking a separate value: git's own (its `clone`'s: the git family's).
_GIT_VALUED = frozenset({"-C", "-c", "--config-env", "--git-dir", "--work-tree", "--namespace"})
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
# `git@github.com:owner/repo.git`: ssh's scp-like form.
_SCP_LIKE = re.compile(r"^(?:[\w.-]+@)?([\w.-]+\.[a-zA-Z]{2,}):(?!//)")
_HOST = re.compile(r"[a-z0-9._-]+|[0-9a-f:.]+")
# A host every label of which is a number (decimal, octal or hex): an IPv4 address to the
# resolver (`inet_aton`), whatever its spelling.
_NUMERIC_HOST = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}")
_DEFAULT_PORTS = {"http": "80", "https": "443"}
# A URL (any scheme, a VCS prefix such as `git+https://` included) inside a word.
_ANY_URL_IN_TEXT = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s<>\"'`)\]]+")
# bash opens a connection for a redirection to `/dev/tcp/HOST/PORT` (or udp).
_BASH_NET = re.compile(r"^/dev/(?:tcp|udp)/([^/]+)/")
_REDIRECTIONS = frozenset({"<", ">", ">>", "<>", ">|", "&>", "&>>"})
# A fetcher's option whose value is a file it reads its URLs from.
_URLS_FROM_FILE = {
    "curl": frozenset({"-K", "--config"}),
    "wget": frozenset({"-i", "--input-file"}),
}
# Files whose writing configures what a program fetches (its URLs, a remote, an index).
_CONFIG_FILES = {
    ".curlrc": "curl",
    "_curlrc": "curl",
    "curlrc": "curl",
    ".wgetrc": "wget",
    "wgetrc": "wget",
    ".gitconfig": "git",
    ".gitmodules": "git",
    "pip.conf": "pip",
    "pip.ini": "pip",
    ".npmrc": "npm",
    ".yarnrc": "npm",
    ".yarnrc.yml": "npm",
}
# The programs a configuration of each is read by.
_CONFIGURED_BY = {
    "curl": frozenset({"curl"}),
    "wget": frozenset({"wget"}),
    "git": frozenset({"git"}),
    "pip": frozenset({"pip", "pip3", "uv"}),
    "npm": frozenset({"npm", "npx", "pnpm", "yarn"}),
}
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})
# Where the fetchers themselves live: a `curl` elsewhere (`./curl`, `bin/curl`) is a program of
# its own, whatever its name.
SYSTEM_BIN = ("/usr/bin/", "/bin/", "/usr/local/bin/", "/usr/sbin/", "/sbin/")
# Options with which a fetcher prints something of its own and sends no request.
_INFO_OPTIONS = frozenset(words("-V --version -h --help -M --manual"))
# Commands that can make a later `curl` of the same line run something else.
_REDEFINERS = frozenset(words("alias hash enable source . unalias"))
_REDEFINING = re.compile(r"function|alias|\bPATH\b")


# The fetchers' option models, with the valued options that only say how to fetch (the path
# analysis has no use for them, and takes their values for operands).
_FETCH_MODELS = {
    "curl": replace(
        COMMANDS["curl"],
        long_values=COMMANDS["curl"].long_values
        | frozenset(
            words(
                "--proto --proto-redir --proto-default --resolve --connect-to --retry-delay"
                " --retry-max-time --limit-rate --max-filesize --interface --dns-servers"
                " --url-query --variable --expand-url --expand-data --noproxy --preproxy"
                " --proxy-user --oauth2-bearer --aws-sigv4 --speed-limit --speed-time"
            )
        ),
    ),
    "wget": COMMANDS["wget"],
}


def normal_host(raw: str) -> str | None:
    """The host as the network reaches it (see the module's note), or None when it is none."""
    host = unquote(raw).lower().rstrip(".")
    if not host:
        return None
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    if _NUMERIC_HOST.fullmatch(host):
        try:
            return socket.inet_ntoa(socket.inet_aton(host))
        except OSError:
            return None
    if ":" in host:
        try:
            return str(ipaddress.IPv6Address(host))
        except ValueError:
            return None
    return host if _HOST.fullmatch(host) else None


def _loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normal_url(raw: str, scp_like: bool = True, web: bool = False) -> str | None:
    """The URL as compared: scheme and host normal (`normal_host`), a default port and a
    fragment dropped, an empty path as `/`; a URL without a scheme (what `curl example.com/x`
    fetches) is `http://`, unless `scp_like` reads `host:path` as ssh's (git's) form. None when
    it names no host. A backslash is a slash to a browser's URL parser (`web`: what the agents'
    web tools use, so `https://a.example\\@b.example/` reaches `a.example`); elsewhere where it
    ends the host is not known, and the URL is not read."""
    text = raw.strip()
    if "\\" in text:
        if not web:
            return None
        if re.match(r"(?i)https?:", text):
            text = text.replace("\\", "/")
    scp = _SCP_LIKE.match(text) if scp_like else None
    if scp and not _SCHEME.match(text):
        host = normal_host(scp.group(1))
        return f"ssh://{host}/{text[scp.end() :]}" if host else None
    if not _SCHEME.match(text):
        text = "http://" + text
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return None
    # `hostname` lower-cases, which an international name survives; `netloc` keeps escapes.
    netloc_host = parts.netloc.rpartition("@")[2]
    if netloc_host.startswith("["):
        raw_host = netloc_host[1:].partition("]")[0]
    else:
        raw_host = netloc_host.partition(":")[0]
    host = normal_host(raw_host) if raw_host else None
    if host is None:
        return None  # no host, or text the shell computes (`$URL`)
    scheme = parts.scheme.lower()
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and _DEFAULT_PORTS.get(scheme) != str(port):
        netloc += f":{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def url_host(url: str) -> str | None:
    """The host a URL names, normal, without its port."""
    normal = normal_url(url)
    if normal is None:
        return None
    host = urlsplit(normal).hostname
    return normal_host(host) if host else None


def host_matches(host: str, wanted: str) -> bool:
    """`docs.example.com` is that host only; `*.example.com` is any host below it (not
    `example.com` itself, as the pattern says). `localhost` and a loopback address are one."""
    if wanted.startswith("*."):
        suffix = normal_host(wanted[2:])
        return suffix is not None and host.endswith("." + suffix)
    normal = normal_host(wanted)
    if normal is None:
        return False
    return host == normal or (_loopback(host) and _loopback(normal))


def url_matches(url: str, wanted: str) -> bool:
    """The same URL once both are normal (`normal_url`), a loopback host for another."""
    want = normal_url(wanted)
    if want is None:
        return False
    if want == url:
        return True
    a, b = urlsplit(url), urlsplit(want)
    same_rest = (a.scheme, a.port, a.path, a.query) == (b.scheme, b.port, b.path, b.query)
    return (
        same_rest
        and a.hostname is not None
        and b.hostname is not None
        and _loopback(a.hostname)
        and _loopback(b.hostname)
    )


@dataclass(frozen=True)
class InvocationFetches:
    """What one simple command fetches by its words, and why it may fetch what they do not
    show (`hidden`: its own words hide it, the agent's doing)."""

    urls: list[str]
    hidden: str | None = None


def invocation_fetches(invocation: Invocation) -> InvocationFetches:
    """`curl`, `wget`, git's remote subcommands, a package manager: the URLs their words give
    them, and whether the words also hide one (a file of URLs, an unreadable URL)."""
    program = invocation.words[0]
    name = posixpath.basename(program)
    args = list(invocation.words[1:])
    if 0 not in invocation.executed or ("/" in program and not program.startswith(SYSTEM_BIN)):
        return InvocationFetches([])
    if name in _PACKAGE_MANAGERS or (_code_runner(name) and args[:2] in (["-m", "pip"], ["-mpip"])):
        return InvocationFetches(_package_urls(args))
    if name == "rsync":
        return InvocationFetches(_rsync_urls(args))
    if name not in URL_FETCHERS:
        return InvocationFetches([])
    if _INFO_OPTIONS & set(args[:1] if name == "git" else args):
        return InvocationFetches([])
    if name == "git":
        rest = _git_subcommand(args)[1]
        if "--help" in args or rest == ["-h"]:  # (`ls-remote -h URL` is its `--heads`)
            return InvocationFetches([])
        urls = [url for raw in _git_remote_sources(args) if (url := _git_url(raw))]
        return InvocationFetches(urls)
    options, positional = split_options(_FETCH_MODELS[name], list(args), args)
    operands = [raw for raw, _ in positional if raw is not None]
    hidden = None
    for option, value in options:
        if option == "--url" and value:
            if value.startswith("@"):
                hidden = f"{name} --url {value} reads its URLs from a file"
            else:
                operands.append(value)
        elif option in _URLS_FROM_FILE[name]:
            hidden = f"{name} {option} {value} reads its URLs from a file"
    globbing = name == "curl" and not {"-g", "--globoff"} & {o for o, _ in options}
    urls = []
    for option, value in options:
        # A proxy is sent the request itself.
        if option in ("-x", "--proxy") and value and (url := normal_url(value, False)):
            urls.append(url)
    allowed = _curl_protocols([v for o, v in options if o == "--proto"]) if name == "curl" else None
    for raw in operands:
        if raw.lower().startswith("file:"):
            continue  # a local file (the analysis reads it as a path)
        url = normal_url(raw, scp_like=False)
        if url is not None and allowed is not None and url.partition(":")[0] not in allowed:
            continue  # `--proto -all`: curl refuses the URL before any request
        if url is None or (globbing and _curl_glob(raw)):
            hidden = hidden or f"{name} of a URL the analysis cannot read: {raw}"
            if url is None:
                continue
        urls.append(url)
    return InvocationFetches(urls, hidden)


def _curl_protocols(values: list[str | None]) -> set[str] | None:
    """The schemes curl's `--proto` leaves it (None: every one). `=x` sets, `-x` removes,
    `+x` or `x` adds; `all` is every scheme."""
    if not values:
        return None
    every = {"http", "https", "ftp", "ftps", "scp", "sftp", "file", "ws", "wss", "tftp"}
    allowed = set(every)
    for value in values:
        for item in (value or "").split(","):
            op = item[:1] if item[:1] in ("=", "+", "-") else "+"
            name = item.lstrip("=+-").lower()
            names = every if name == "all" else {name}
            if op == "=":
                allowed = set(names)
            elif op == "-":
                allowed -= names
            else:
                allowed |= names
    return allowed


def _curl_glob(raw: str) -> bool:
    """curl expands `{a,b}` and `[1-9]` in a URL (an IPv6 host's brackets aside)."""
    rest = re.sub(r"^([^/@]*@)?\[[0-9a-fA-F:.%]+\]", "", raw.partition("://")[2])
    return re.search(r"[{}\[\]]", rest) is not None


def _rsync_urls(args: list[str]) -> list[str]:
    """rsync's remote operands: `rsync://HOST/...`, `HOST::MODULE`, `[USER@]HOST:PATH`."""
    urls = []
    for word in args:
        if word.startswith("-"):
            continue
        remote = re.match(r"^(?:[^@/:]+@)?([^/:]+)::?(?!//)", word)
        if _SCHEME.match(word):
            url = normal_url(word)
        elif remote:
            url = normal_url(f"rsync://{remote.group(1)}/")
        else:
            continue
        if url is not None:
            urls.append(url)
    return urls


def _package_urls(args: list[str]) -> list[str]:
    if "config" in args[:2]:
        return []  # `npm config set registry URL`: written down, not fetched
    found = []
    for word in args:
        for match in _ANY_URL_IN_TEXT.finditer(word):
            text = re.sub(r"^[a-z]+\+", "", match.group(0), flags=re.I)  # `git+https://`
            if text.lower().startswith("file:"):
                continue
            if (url := normal_url(text.rstrip(".,;:"))) is not None:
                found.append(url)
    return found


def _git_url(raw: str) -> str | None:
    if raw.lower().startswith("file:") or not (_SCHEME.match(raw) or _SCP_LIKE.match(raw)):
        return None  # a local repository, or a remote's name
    return normal_url(raw)


def _git_subcommand(args: list[str]) -> tuple[str, list[str]]:
    """`git [options] SUBCOMMAND ARGS...`: the subcommand and its arguments."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in _GIT_VALUED else 1
    if index >= len(args):
        return "", []
    return args[index], args[index + 1 :]


def _git_remote_sources(args: list[str]) -> list[str]:
    """The repositories a git command reaches by its words: `clone`'s source, the first
    operand of `fetch`/`pull`/`push`/`ls-remote`, `submodule add`'s, `remote add -f`'s."""
    sub, rest = _git_subcommand(args)
    operands = _git_operands(rest)
    if sub == "clone":
        return operands[:1]
    if sub in ("fetch", "pull", "push", "ls-remote"):
        return operands[:1]
    if sub == "submodule" and operands[:1] == ["add"]:
        return _git_operands(rest[rest.index("add") + 1 :])[:1]
    if sub == "remote" and operands[:1] == ["add"] and ("-f" in rest or "--fetch" in rest):
        return operands[2:3]
    return []


def _git_operands(rest: list[str]) -> list[str]:
    operands: list[str] = []
    index = 0
    while index < len(rest):
        word = rest[index]
        if word == "--":
            return operands + rest[index + 1 :]
        if not word.startswith("-"):
            operands.append(word)
        index += 2 if word in CLONE_VALUED else 1
    return operands


def urls_in_text(text: str) -> list[str]:
    """The http(s) URLs written in a text (a web tool's prompt), normal: as Gemini CLI's
    `web_fetch` reads its prompt, each word holding `://` whose scheme is http or https, in
    any case."""
    found = (
        normal_url(word.rstrip(".,;:"), web=True)
        for word in text.split()
        if "://" in word and word.lower().startswith(("http://", "https://"))
    )
    return [url for url in found if url is not None]


def names_target(text: str, url: str | None, host: str | None) -> bool:
    """Whether a text (a command line, a script the session wrote) names the URL, or the host
    in any of the forms `normal_host` reads: what a program given it could fetch."""
    for match in _ANY_URL_IN_TEXT.finditer(text):
        found = normal_url(match.group(0).rstrip(".,;:"))
        if found is None:
            continue
        if url is not None and url_matches(found, url):
            return True
        if host is not None and (got := url_host(found)) and host_matches(got, host):
            return True
    if host is None:
        return False
    wanted = host[2:] if host.startswith("*.") else host
    for word in re.findall(r"[\w.%-]+", text):
        got = normal_host(word)
        if got is not None and "." in word and (host_matches(got, host) or got == wanted):
            return True
    return False


# Commands that hand what their words name on to later statements (a variable, an alias, a
# file sourced), whatever they write.
_PASSING_ON = frozenset(
    words("export declare typeset local readonly alias set source . eval read mapfile readarray")
)


def statements(command: str) -> list[str]:
    """The command line's top-level statements as text, a list (`a && b || c`, `a; b`) split
    into its operands and a pipeline kept whole (its parts share their data); a here-doc's body
    stays with the statement it feeds. None of them when the line does not parse."""
    tree = parse(command)
    if tree.root_node.has_error:
        return []
    found: list[str] = []

    def visit(node: Node) -> None:
        if node.type in ("program", "list"):
            for child in node.named_children:
                visit(child)
        elif node.type not in ("comment", "heredoc_body"):
            found.append(command.encode("utf-8")[node.start_byte : node.end_byte].decode())

    visit(tree.root_node)
    return found


def _passes_on(statement: str, workdir: str) -> bool:
    """Whether a statement can hand what it names to a later one: it sets a variable, defines a
    function or alias, writes a file or a fetcher's configuration (a git remote), changes
    directory or sources code. Only a statement that
    does none of these (`grep H notes.md`, `echo H`) keeps it to itself and the agent."""
    analysis = analyze_command(statement, workdir)
    tree = parse(statement)
    kinds = {node.type for node in _nodes(tree.root_node)}
    return bool(
        kinds & {"variable_assignment", "function_definition", "declaration_command"}
        or any(a.kind == "write" for a in analysis.accesses)
        or analysis.contents
        or analysis.opaque
        or configured_programs(analysis)
        or any(posixpath.basename(i.words[0]) in _PASSING_ON | {"cd"} for i in analysis.invocations)
    )


def _nodes(root: Node) -> Iterator[Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.named_children)


def gap_names_target(command: str, workdir: str, url: str | None, host: str | None) -> bool:
    """Whether the part of a command line that could fetch unseen names the URL or host: the
    statement that runs the script or program, or one that can hand the name to it (a variable,
    a file). `grep H notes.md && make` names `H` only to grep, which keeps it to itself."""
    if not names_target(command, url, host):
        return False
    parts = statements(command)
    if len(parts) <= 1:
        return True
    named = [part for part in parts if names_target(part, url, host)]
    if not named:
        return True  # named only where no statement shows it (a here-doc's body): kept
    return any(
        command_fetches(part, workdir).unseen is not None or _passes_on(part, workdir)
        for part in named
    )


def configured_programs(analysis: ShellAnalysis) -> set[str]:
    """The programs whose fetch configuration one command wrote (`~/.curlrc`, a git remote,
    `pip.conf`): what they fetch afterwards no record shows."""
    configured = set()
    written = [a.path for a in analysis.accesses if a.kind == "write"]
    written += [c.path for c in analysis.contents]
    for path in written:
        if (program := _CONFIG_FILES.get(posixpath.basename(path))) is not None:
            configured.add(program)
        elif path.endswith("/.git/config") or "/.config/pip/" in path:
            configured.add("git" if path.endswith("/.git/config") else "pip")
    for invocation in analysis.invocations:
        program = posixpath.basename(invocation.words[0])
        sub, rest = _git_subcommand(list(invocation.words[1:]))
        if program == "git" and (
            (sub == "remote" and rest[:1] in (["add"], ["set-url"]))
            or (sub == "config" and any(w.startswith(("remote.", "url.")) for w in rest))
            or (sub == "submodule" and rest[:1] == ["add"])
        ):
            configured.add("git")
        elif program in _PACKAGE_MANAGERS and "config" in invocation.words[1:3]:
            configured.add("pip" if program.startswith("pip") else "npm")
    return configured


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
    # The programs whose fetch configuration this command wrote (`configured_programs`).
    configures: frozenset[str] = frozenset()
    # The scripts it runs (their paths), for the check to know whether the session wrote them.
    runs: tuple[str, ...] = ()
    # Why its fetchers may not be what they are named (a function or alias of the name, `PATH`
    # set, `hash -p`): their fetches ran only if the trace shows the fetcher itself run.
    shadowed: str | None = None


# Interpreters' options that take the program itself as text.
_INLINE_CODE = frozenset(words("-c -e -E -p --eval --print -r"))


def _code_runner(program: str) -> bool:
    return program in _CODE_RUNNERS or re.fullmatch(r"python3\.\d+", program) is not None


def command_fetches(
    command: str, workdir: str, configured: frozenset[str] = frozenset()
) -> CommandFetches:
    """`configured`: the programs whose fetch configuration an earlier command wrote."""
    analysis = analyze_command(command, workdir)
    fetches = []
    hidden = None
    for invocation in analysis.invocations:
        found = invocation_fetches(invocation)
        if found.urls:
            fetches.append((invocation, found.urls))
        hidden = hidden or found.hidden
    unseen = None
    inline = False
    given_code = [
        program
        for invocation in analysis.invocations
        if _code_runner(program := posixpath.basename(invocation.words[0]))
        and _INLINE_CODE & set(invocation.words[1:])
    ]
    bash_net = [
        match.group(1)
        for access in analysis.accesses
        if access.via in _REDIRECTIONS and (match := _BASH_NET.match(access.path))
    ]
    reads_config = [
        program
        for invocation in analysis.invocations
        if 0 in invocation.executed
        and any(
            (program := posixpath.basename(invocation.words[0])) in _CONFIGURED_BY[c]
            for c in configured
        )
    ]
    runs = tuple(r.path for r in analysis.runs if not r.path.endswith("/.git"))
    if analysis.opaque:
        unseen, inline = analysis.opaque[0], True
    elif given_code:
        unseen, inline = (
            f"{given_code[0]} runs code given inline, whose fetches no record shows",
            True,
        )
    elif bash_net:
        unseen, inline = f"bash connects to {bash_net[0]} by a redirection", True
    elif hidden is not None:
        unseen, inline = hidden, True
    elif reads_config:
        unseen, inline = (
            f"{reads_config[0]} reads a fetch configuration an earlier command wrote",
            True,
        )
    elif runs:
        # (git's runs of a repository's hooks are left out: every git command has them)
        unseen = f"it runs {runs[0]}, whose fetches no record shows"
    else:
        for invocation in analysis.invocations:
            program = posixpath.basename(invocation.words[0])
            if _code_runner(program):
                unseen = f"{program} runs code whose fetches no record shows"
                break
            args = list(invocation.words[1:])
            sub = _git_subcommand(args)[0] if program == "git" else ""
            if sub in _GIT_REMOTE and not _git_remote_sources(args):
                unseen = f"git {sub} reaches a remote its words do not name"
                break
    redefining = [r for r in analysis.opaque if _REDEFINING.search(r)] + [
        " ".join(i.words[:2])
        for i in analysis.invocations
        if posixpath.basename(i.words[0]) in _REDEFINERS
    ]
    shadowed = f"{redefining[0]} may change what a fetcher's name runs" if redefining else None
    configures = frozenset(configured_programs(analysis))
    return CommandFetches(fetches, unseen, inline, configures, runs, shadowed)
