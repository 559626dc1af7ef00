"""`agentic-eval session locate|inspect`: find an accepted session and read its evidence."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from evaluator.adapters import adapter_named, adapter_names
from evaluator.cli.agent_flags import AgentHome, agent_home_flags
from evaluator.cli.options import emit_json, json_option
from evaluator.errors import EXIT_FAILURES, EXIT_OK, InputError


@click.group("session")
def command() -> None:
    """Locate and inspect agent sessions on disk."""


def _when(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"not an ISO timestamp: {value!r}", field=name) from None
    if parsed.tzinfo is None:
        raise InputError(f"timestamp needs a timezone (e.g. Z): {value!r}", field=name)
    return parsed


@command.command("locate")
@agent_home_flags(exists=True, what="whose session store is searched")
@click.option("--thread", "thread_id", default=None, help="Root thread id.")
@click.option("--parent-thread", default=None, help="Find the one child spawned by this thread.")
@click.option("--nickname", default=None, help="Child nickname (tie-breaker).")
@click.option("--since", default=None, help="ISO time the attempt started (tie-breaker).")
@click.option("--until", default=None, help="ISO time the attempt ended (tie-breaker).")
@json_option
def locate(
    agent_home: AgentHome,
    thread_id: str | None,
    parent_thread: str | None,
    nickname: str | None,
    since: str | None,
    until: str | None,
    as_json: bool,
) -> int:
    """Print the accepted session path(s), or why none was accepted (exit 1)."""
    # the stages are imported when the command runs, not for its --help
    from evaluator.adapters import get_store
    from evaluator.sessions.base import ChildQuery

    if (thread_id is None) == (parent_thread is None):
        raise click.UsageError("give exactly one of --thread or --parent-thread")
    from evaluator.adapters import get_adapter

    adapter = get_adapter(agent_home.adapter)
    store = get_store(adapter.name, agent_home.home or adapter.user_home())
    if thread_id is not None:
        result = store.locate_thread(thread_id)
    else:
        assert parent_thread is not None
        result = store.locate_child(
            ChildQuery(
                parent_thread,
                nickname=nickname,
                since=_when(since, "--since"),
                until=_when(until, "--until"),
            )
        )
    if as_json:
        emit_json(result.to_json(), EXIT_OK if result.status == "found" else EXIT_FAILURES)
    elif result.status == "found":
        for ref in result.sessions:
            click.echo(str(ref.path))
    else:
        click.echo(f"{result.status}: {result.reason}", err=True)
        for ref in result.sessions:
            click.echo(f"  candidate {ref.thread_id} {ref.path}", err=True)
    return EXIT_OK if result.status == "found" else EXIT_FAILURES


@command.command("inspect")
@click.argument("source", type=click.Path(path_type=Path, exists=True))
@click.option(
    "--workspace",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    default=None,
    help="The workspace the session ran in (default for an attempt directory: the one it records).",
)
@click.option(
    "--agent",
    "agent",
    metavar="AGENT",
    default=None,
    help="The adapter of the agent that wrote the session (default: the run's agent, else the"
    f" one that recognises the file; one of {', '.join(adapter_names())}, or a runner of one).",
)
@json_option
def inspect(source: Path, workspace: Path | None, agent: str | None, as_json: bool) -> int:
    """Commands, reads, writes, final answer and the isolation verdict of one session.

    SOURCE is a session file (then --workspace is needed) or a finished run's attempt directory
    (`runs/<id>/case-artifacts/<case>/attempts/attempt-NN`), whose saved session and recorded
    workspace path are used: the workspace itself may be gone."""
    # the stages are imported when the command runs, not for its --help
    from evaluator.adapters import (
        adapter_for_agent,
        get_adapter,
        normalize_session,
        recognising_adapters,
    )
    from evaluator.isolation import assess_isolation

    session_file, workspace = _session_and_workspace(source, workspace)
    problem = _no_json_record(session_file)
    if problem is not None:
        raise InputError(
            f"not a session file: no line is a JSON record{problem}", path=session_file
        )
    # The agent named, else the one the run recorded; a bare file is recognised by its content.
    agent = adapter_named(agent) if agent else agent  # a runner's name names its agent
    reader = get_adapter(agent) if agent else adapter_for_agent(_run_agent(source))
    if agent:
        # Read by another agent's adapter, a session yields nothing: an empty inspection that
        # exits 0 would say the agent did nothing.
        named = get_adapter(agent).name
        claimed = [a.name for a in recognising_adapters(session_file)]
        if claimed and named not in claimed:
            raise InputError(
                f"the session is {' or '.join(claimed)}'s, not {named}'s"
                f" (give --agent {claimed[0]}, or leave --agent out)",
                path=session_file,
                field="--agent",
            )
    evidence = normalize_session(session_file, adapter=reader)
    report = assess_isolation(evidence, workspace, record_violations=False)
    commands = [
        {"ref": r.id, "command": r.command, "workdir": r.workdir}
        for r in evidence.of_kind("command_observed")
    ]
    reads = [{"ref": r.id, "path": r.path} for r in evidence.of_kind("file_read_observed")]
    writes = [{"ref": r.id, "path": r.path} for r in evidence.of_kind("file_write_observed")]
    payload = {
        "thread_id": evidence.thread_id,
        "session_path": str(session_file.resolve()),
        "complete": evidence.complete,
        "final_answer": evidence.final_answer,
        "commands": commands,
        "reads": reads,
        "writes": writes,
        "isolation": {
            "verdict": report.verdict,
            "violations": [v.to_json() for v in report.violations],
            "reason": report.reason,
        },
        "malformed": [{"line": line, "reason": why} for line, why in evidence.malformed],
    }
    if as_json:
        emit_json(payload, EXIT_OK)
        return EXIT_OK
    click.echo(f"thread {evidence.thread_id}  complete={evidence.complete}")
    for item in commands:
        click.echo(f"  {item['ref']:>7} $ {item['command']}   (in {item['workdir']})")
    for item in reads:
        click.echo(f"  {item['ref']:>7} read  {item['path']}")
    for item in writes:
        click.echo(f"  {item['ref']:>7} write {item['path']}")
    click.echo(f"isolation: {report.verdict} ({report.reason})")
    for violation in report.violations:
        click.echo(f"  {violation.ref:>7} {violation.kind} {violation.path}  {violation.detail}")
    click.echo(f"final answer: {evidence.final_answer!r}")
    for line, why in evidence.malformed:
        click.echo(f"{session_file}:{line}: skipped: {why}", err=True)
    return EXIT_OK


SAVED_SESSION = "accepted-session.jsonl"


def _run_agent(source: Path) -> str | None:
    """The agent a finished run's manifest names, for an attempt directory inside that run
    (`runs/<id>/case-artifacts/<case>/attempts/attempt-NN`)."""
    parents = source.resolve().parents
    if source.is_file() or len(parents) < 4 or not (parents[3] / "manifest.json").is_file():
        return None
    import json

    manifest = parents[3] / "manifest.json"

    try:
        agent = json.loads(manifest.read_text(encoding="utf-8")).get("agent")
    except (OSError, ValueError):
        return None
    return agent if isinstance(agent, str) else None


def _no_json_record(path: Path) -> str | None:
    """None when some line of `path` is a JSON value (a session with a few broken lines is read,
    and they are reported) or the whole file is one; else why its first line is not."""
    import json

    first: str | None = None
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                json.loads(line)
            except (ValueError, RecursionError) as exc:
                first = first or f" (line {number}: {exc})"
                continue
            return None
    try:  # a session written as one JSON document (Gemini CLI's legacy `.json` chats)
        with path.open("rb") as handle:
            json.load(handle)
    except (ValueError, RecursionError):
        return first or ""
    return None


def _session_and_workspace(source: Path, workspace: Path | None) -> tuple[Path, Path]:
    if source.is_file():
        if workspace is None:
            raise click.UsageError("--workspace is needed with a session file")
        return source, workspace
    record = source / "attempt.json"
    session = source / SAVED_SESSION
    if not record.is_file() or not session.is_file():
        raise InputError(
            f"not a session file, nor an attempt directory holding attempt.json and {SAVED_SESSION}",
            path=source,
        )
    import json

    try:
        recorded = json.loads(record.read_text(encoding="utf-8")).get("workspace_root")
    except (OSError, ValueError) as exc:
        raise InputError(f"unreadable: {exc}", path=record) from None
    if workspace is None and not recorded:
        raise InputError("records no workspace_root; pass --workspace", path=record)
    return session, workspace or Path(str(recorded))
