"""`url_fetched`: the agent fetched (or tried to fetch) a URL, or any URL of a host.

The fetches are what the evidence shows (`evidence/fetches.py`): a command the shell analysis
models as fetching (`curl`, `wget`, `git clone`), run as `command_ran` proves a run (surely by
its text, or by the trace; a fetch after `||` or in a branch that the trace cannot decide is
`blocked`), and the agent's own web tools (`url_fetch_observed`). Echoing a URL, writing it to a
file or naming it in a comment fetches nothing.

A tool call that could have fetched unseen (a script, `python -c`, a command the analysis does
not model, a computed URL) cannot show that no fetch happened: without a fetch seen, the check
is then `blocked` (so is its denial), never a fail; the way `command_ran` treats a run that may
not have happened. The block is the agent's (it counts as not passed) when its own command line
hid the fetch, named the URL or host it could fetch, ran a script the session wrote, or read a
fetch configuration an earlier command wrote; the eval's only for what the evidence cannot see
into through no doing of the agent (the skill's own script, `make`, `git pull` of a remote the
workspace came with).

A tool call the access trace saw whole (every process of it ended) in which no process tried
the network (no internet socket made, no connection out, none to a socket of a service of
the host, abstract or a file; a name lookup through nscd's socket is none) and on which no
seccomp filter was set up (one hides what it refuses from the trace: Codex's sandbox refuses
`socket()` itself) fetched nothing, whatever it ran: it is no gap. A fetch that follows a
redirect (`curl -L`, `wget`) is seen by the host its words name only, not by the hosts it was
sent to.

"Fetched" is "tried to fetch": the request is the act, whether it was answered, refused
(connection refused, no such host) or only asked for headers (`curl --head`); a URL only named,
printed or written down is no fetch.

The agents' own web search: a page it opened (Codex's `open_page`, `find_in_page`) is a fetch
of its URL; a search whose query names the URL or its host (`site:H`, the host, a URL of it) leaves
the check `blocked`, the agent's: the search service may have read the host's pages for it,
unseen, so a forbidden fetch is not ruled out, and a search result alone is no fetch of the page
a required fetch asks for.

`before_read`: the first fetch came before the first read of a file matching the glob (as
`read_before` finds reads: the first output that showed its content, else the command table),
or no such file was read. A fetch counts from its tool call's line: a fetch issued before the
file's content reached the agent came before it, even in the same turn.
"""

from __future__ import annotations

import hashlib
import posixpath
from dataclasses import dataclass
from pathlib import Path

from evaluator.contract.models import UrlFetchedCheck
from evaluator.evidence.fetches import (
    SEARCH_QUERY,
    SYSTEM_BIN,
    command_fetches,
    gap_names_target,
    host_matches,
    names_target,
    url_host,
    url_matches,
)
from evaluator.evidence.records import EvidenceRecord
from evaluator.evidence.traced import ExecutedProgram
from evaluator.judge.base import JudgeContext
from evaluator.judge.checks.command_ran import trace_verdict
from evaluator.judge.checks.read_before import first_read
from evaluator.judge.checks.registry import register_check
from evaluator.judge.checks.trace_proof import invocation_proof
from evaluator.judge.verdict import CheckVerdict, blocked, failed, passed
from evaluator.kernelpaths import resolve_kernel_path

KIND = "url_fetched"


@dataclass(frozen=True)
class _Fetch:
    url: str
    record: EvidenceRecord
    how: str  # "curl", "WebFetch", ...; with the trace's proof when it decided
    # For a fetch that may not have run: whether the doubt is its command's own form (`||`, a
    # branch, the background, a failed `&&`) rather than an exit code the session lacks.
    by_form: bool = True


@dataclass
class _Found:
    sure: list[_Fetch]
    maybe: list[_Fetch]  # may not have run, and the trace cannot tell
    # calls that could have fetched unseen, why, and whether the command line itself hid it
    unseen: list[tuple[EvidenceRecord, str, bool]]
    # the agent's web searches whose query names the URL or host
    searches: list[EvidenceRecord]


def _wanted(check: UrlFetchedCheck) -> str:
    return check.url if check.url is not None else f"host {check.host}"


def _matches(check: UrlFetchedCheck, url: str) -> bool:
    if check.url is not None:
        return url_matches(url, check.url)
    host = url_host(url)
    return host is not None and check.host is not None and host_matches(host, check.host)


def _agents_script(path: str, written: list[str], context: JudgeContext) -> bool:
    """Whether a script a call ran is the agent's: one the session wrote (or wrote a folder
    holding), a stream (`bash /dev/stdin`, `sh -`: text piped in), or, where the workspace's
    files before the run are known, any file that was not there byte for byte the same (a
    folder copied or moved over, an archive unpacked, `git mv`: writes no record names by the
    script's path). Only a file the eval provided unchanged is what the evidence cannot see
    into through no doing of the agent (red team 8)."""
    if any(path == w or path.startswith(w.rstrip("/") + "/") for w in written):
        return True
    if resolve_kernel_path(path).kind != "plain" or posixpath.basename(path) == "-":
        return True
    if context.baseline is None or not context.workspace_available:
        return False  # what the eval provided cannot be told: the eval's, as before
    relative = context.relative(path)
    if relative is None or relative not in context.baseline:
        return True
    if relative in context.without_content:
        return False  # kept without its content: cannot be compared
    digest = hashlib.sha256()
    try:
        with Path(context.on_disk(path)).open("rb") as stream:
            while block := stream.read(1 << 20):
                digest.update(block)
    except OSError:
        return True  # gone or unreadable now: not the file the eval provided
    return digest.hexdigest() != context.baseline[relative]


def _found(check: UrlFetchedCheck, context: JudgeContext) -> _Found:
    found = _Found([], [], [], [])
    configured: frozenset[str] = frozenset()
    written = sorted(
        (r.line, r.path) for r in context.evidence.of_kind("file_write_observed") if r.path
    )
    for record in context.evidence.of_kind("command_observed"):
        if not record.command:
            continue
        fetched = command_fetches(record.command, record.workdir or "/", configured)
        configured |= fetched.configures
        traced = context.traced_call(record)
        unproven = None if traced is None else traced.network_unproven
        if fetched.unseen is not None and (traced is None or unproven is not None):
            # What the evidence cannot see into is the agent's doing when the command line
            # names what it could fetch, or runs a script the session itself wrote.
            own = [path for line, path in written if line <= record.line]
            inline = (
                fetched.unseen_inline
                or gap_names_target(record.command, record.workdir or "/", check.url, check.host)
                or any(_agents_script(path, own, context) for path in fetched.runs)
            )
            why = fetched.unseen if unproven is None else f"{fetched.unseen}; {unproven}"
            found.unseen.append((record, why, inline))
        # A start-up file the attempt wrote, read by the call's shell, may define the fetcher's
        # name as the agent's own (red team 17), as a line that redefines it does.
        startup = context.agents_startup(record)
        shadowed = fetched.shadowed or (
            f"it first read {', '.join(startup)}, which the attempt wrote" if startup else None
        )
        # A process of it ran code the attempt wrote (red team 19): the fetcher's exit and the
        # call's show nothing of what it sent.
        code = context.agents_code(record)
        for invocation, urls in fetched.fetches:
            urls = [u for u in urls if _matches(check, u)]
            if not urls:
                continue
            via = invocation.words[0]
            if invocation.surely_ran(record.exit_code) and shadowed is None and not code:
                found.sure.append(_Fetch(urls[0], record, via))
                continue

            def mentions(program: ExecutedProgram, url: str = urls[0]) -> bool:
                return any(url_matches(url, word) for word in program.argv)

            proof = trace_verdict(
                [invocation_proof(invocation, context.traced_call(record), mentions)]
            )
            by_form = (
                invocation.conditional
                or record.exit_code is not None
                or shadowed is not None
                or bool(code)
            )
            fetch = _Fetch(urls[0], record, f"{via} ({proof.reason})", by_form)
            # Under another name's shadow only the fetcher's own file proves the fetch.
            genuine = proof.program is None or proof.program.path.startswith(SYSTEM_BIN)
            if proof.finding == "ran" and (shadowed is None or genuine):
                found.sure.append(fetch)
            elif proof.finding != "never":
                # killed or unknown: it may have sent the request
                found.maybe.append(fetch)
    for record in context.evidence.of_kind("url_fetch_observed"):
        if record.source == SEARCH_QUERY:
            # (a search naming the URL's host may have had the service read that page)
            host = check.host or (url_host(check.url) if check.url else None)
            if record.text and names_target(record.text, check.url, host):
                found.searches.append(record)
        elif record.text and _matches(check, record.text):
            found.sure.append(_Fetch(record.text, record, record.tool or "a web tool"))
    return found


@register_check(KIND)
def url_fetched(check: UrlFetchedCheck, context: JudgeContext) -> CheckVerdict:
    found = _found(check, context)
    wanted = _wanted(check)
    if not found.sure:
        if found.maybe:
            fetch = found.maybe[0]
            return blocked(
                KIND,
                f"a fetch of {fetch.url} may not have run (after `||` or a failed `&&`, in a"
                " branch, a loop or the background, or under a name a function, an alias or"
                f" `PATH` may have changed): {fetch.record.command}",
                [context.ref(f.record) for f in found.maybe],
                by="agent" if all(f.by_form for f in found.maybe) else "eval",
            )
        if found.searches:
            search = found.searches[0]
            return blocked(
                KIND,
                f"no fetch of {wanted} was seen, but the agent's web search named it ({search.tool}"
                f" for {search.text!r}): the pages the search service read for it are not seen,"
                " and a search result is no fetch of the page until the page is opened",
                [context.ref(r) for r in found.searches],
                by="agent",
            )
        if found.unseen:
            record, why, _ = found.unseen[0]
            return blocked(
                KIND,
                f"no fetch of {wanted} was seen, but one could have happened unseen ({why}):"
                f" {record.command}",
                [context.ref(r) for r, _, _ in found.unseen],
                # The agent's when its own command line hid the fetch (a computed URL, inline
                # code); a script or program that may fetch (the skill's own script, `make`) is
                # what the evidence cannot see into, which says nothing against the skill.
                by="agent" if all(inline for _, _, inline in found.unseen) else "eval",
            )
        return failed(KIND, f"no fetch of {wanted} was observed")
    first = min(found.sure, key=lambda f: f.record.line)
    detail = f"fetched {first.url} by {first.how}"
    if check.before_read is None:
        return passed(KIND, detail, [context.ref(f.record) for f in found.sure])
    read = first_read(context, check.before_read)
    if read is None:
        return passed(
            KIND,
            f"{detail}; nothing matching {check.before_read} was read",
            [context.ref(first.record)],
        )
    line = read.line
    refs = [context.ref(first.record), *([read.ref] if read.ref else [])]
    if first.record.call_id is not None and first.record.call_id == read.call_id:
        return blocked(
            KIND,
            f"{first.url} was fetched in the tool call that first read {check.before_read}:"
            " the order inside one command line is not judged",
            refs,
        )
    if first.record.line < line:
        return passed(
            KIND,
            f"{detail} (session line {first.record.line}) before {check.before_read} was"
            f" first read (line {line})",
            refs,
        )
    earlier_maybe = [f for f in found.maybe if f.record.line < line]
    earlier_unseen = [(r, inline) for r, _, inline in found.unseen if r.line < line]
    earlier = [f.record for f in earlier_maybe] + [r for r, _ in earlier_unseen]
    if earlier:
        return blocked(
            KIND,
            f"the first fetch seen of {wanted} (line {first.record.line}) came after"
            f" {check.before_read} was first read (line {line}), but an earlier one may have"
            " happened unseen",
            [*refs, *map(context.ref, earlier)],
            by="agent"
            if all(f.by_form for f in earlier_maybe) and all(i for _, i in earlier_unseen)
            else "eval",
        )
    return failed(
        KIND,
        f"{check.before_read} was first read (line {line}) before the first fetch of {wanted}"
        f" ({first.url}, line {first.record.line})",
        refs,
    )
