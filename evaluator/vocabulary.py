"""The words every stage shares, in one place: record kinds, access kinds, outcomes and verdicts.

Stages import these instead of spelling strings of their own, so a new kind of access or verdict
is added once and mypy finds every place that must learn about it.
"""

from __future__ import annotations

from typing import Literal

# --- evidence -------------------------------------------------------------------------------

RecordKind = Literal[
    "session_start",
    "tool_call",
    "tool_result",
    "tool_workdir_observed",
    "command_observed",
    "file_read_observed",
    "file_write_observed",
    "url_fetch_observed",  # an agent's own web tool fetched `text`, a URL (evidence/fetches.py)
    "tool_denied",  # the agent CLI refused to run a tool call: recorded, but no access
    "subagent_spawned",  # a tool call that started a sub-agent (SessionEvidence.spawns)
    # The agent CLI told the parent that a sub-agent it spawned had finished (Codex's
    # `<subagent_notification>`): a bound on the helper's acts (SubagentSpawn.finished_record).
    "subagent_finished",
    # The agent CLI loaded a skill the user named as a command (`/name`, Claude Code's slash
    # command) before the agent acted: no tool call, no access (adapters/claude/normalize.py).
    "skill_loaded",
    "isolation_violation",
    "final_answer",
    "session_end",
]
RECORD_KINDS: tuple[RecordKind, ...] = RecordKind.__args__  # type: ignore[attr-defined]
# The record kinds that observe an access to a path (what isolation classifies).
ACCESS_RECORD_KINDS: tuple[RecordKind, ...] = (
    "tool_workdir_observed",
    "file_read_observed",
    "file_write_observed",
)

# How a path was touched. `read` means its content reached the agent (what "consulted X"
# needs); `metadata` touched it without showing content (`wc -l`, `stat`, `test -f`, `md5sum`,
# output sent to /dev/null); `list` is a directory listing; `path` is a path in an unknown role.
# Isolation treats every kind as an access; only `read` counts as consultation.
AccessKind = Literal["read", "metadata", "list", "write", "exec", "cwd", "path"]
ACCESS_KINDS: tuple[AccessKind, ...] = AccessKind.__args__  # type: ignore[attr-defined]

# Whether the action that produced an access took effect: a failed `apply_patch` or a command
# that exited non-zero is `failed`; no exit code recorded is `unknown`.
Outcome = Literal["ok", "failed", "unknown"]
OUTCOMES: tuple[Outcome, ...] = Outcome.__args__  # type: ignore[attr-defined]

# --- isolation ------------------------------------------------------------------------------

IsolationVerdict = Literal["contained", "violation", "unverifiable"]
# The shells whose `-c TEXT` the trace reader takes as a tool call's command line
# (`sandbox/strace_log.py`), and the stop proof as a script a check ran (`judge/checks/
# stop_proof.py`): one list, as the judge may not import the sandbox.
TRACED_SHELLS: tuple[str, ...] = ("bash", "sh", "dash", "zsh")
# The access-trace layer of a run and of each attempt: `strace` when it traced, else `off`.
TraceLayer = Literal["strace", "ebpf", "off"]
# Where a run keeps its scratch (evaluator/workspace/memory.py): `auto` in memory where the
# evaluator may mount a tmpfs of its own, `on` refuses to run otherwise, `off` on disk.
ScratchMemory = Literal["auto", "on", "off"]
SCRATCH_MEMORY_CHOICES: tuple[ScratchMemory, ...] = ScratchMemory.__args__  # type: ignore[attr-defined]

# --- judging --------------------------------------------------------------------------------

Status = Literal["pass", "fail", "blocked"]
ALL_STATUSES: tuple[Status, ...] = ("pass", "fail", "blocked")
BlockedReason = Literal["environment", "unclear-rule", "insufficient-evidence"]
# Whose doing a `blocked` verdict is: the `agent`'s own actions (a command it ran in a form that
# may not have run, in the background, or that the analysis cannot see into; a fetch it could
# have made unseen) or the `eval` and the machine (a session format that records no outputs, a
# variable the environment lacks, a rule no judge decides). Scoring: artifacts/attribution.py.
BlockedBy = Literal["agent", "eval"]
CheckStatus = Literal["pass", "fail", "blocked"]
Polarity = Literal["required", "forbidden"]
# Who decided an assertion entry: its structured `checks`, compiled `rules` from its prose,
# the `model` judge, or nobody (`unclear-rule`).
DecidedBy = Literal["checks", "rules", "model", "unclear-rule"]
# How `explain` says an entry will be decided: who decides it, or, for an entry whose compiled
# sentences can fail it alone (`judge/parts.py`), rules when they do and otherwise the model
# judge (`rules-or-model`) or nobody (`rules-or-unclear`: no judge model).
Route = Literal["checks", "rules", "rules-or-model", "rules-or-unclear", "model", "unclear-rule"]
# How prose entries may be judged: `rules` never calls a model; `auto` asks the model judge for
# what rules cannot decide when one is configured; `model` insists that one is.
JudgeMode = Literal["rules", "model", "auto"]
JUDGE_MODES: tuple[JudgeMode, ...] = JudgeMode.__args__  # type: ignore[attr-defined]

# --- scoring --------------------------------------------------------------------------------

# Who caused a `blocked`: the `agent` under the skill (its attempt counts as not passed, so a
# skill cannot raise its score by making hard cases time out or escape), the `eval` itself or
# the machine (excluded from the pass rate, lowers coverage), or an `outage` of the agent's
# model or tooling (no score at all: an outage must never read as a score of 0).
BlockSide = Literal["agent", "eval", "outage"]
BlockCause = Literal[
    "timeout",
    "isolation-violation",
    "agent-crash",
    "no-final-answer",
    "agent-unverifiable",
    "agent-error",
    "model-unreachable",
    "not-started",
    "unclear-rule",
    "environment",
    "insufficient-evidence",
]

# The data splits of an optimiser (SkillOpt: train → reflection, val → the gate, test → held out).
Split = Literal["train", "val", "test"]
SPLITS: tuple[Split, ...] = ("train", "val", "test")

# --- comparing two runs ---------------------------------------------------------------------

# How a case changed between a base run and a candidate run (`agentic-eval compare`,
# docs/cli.md "compare" says exactly when each applies).
ComparisonClass = Literal[
    "regression",
    "improvement",
    "flaky",
    "environment-divergence",
    "same-pass",
    "same-fail",
    "same-blocked",
    "added",
    "removed",
]
COMPARISON_CLASSES: tuple[ComparisonClass, ...] = ComparisonClass.__args__  # type: ignore[attr-defined]
# The headline's call on two variants (`evaluate`, docs/statistics.md): the candidate is
# `better` or `worse`, the difference is `inside-noise` (within the A/A floor) or none is
# called (`no-difference`), or nothing was measured (`no-data`).
Call = Literal["better", "worse", "no-difference", "inside-noise", "no-data"]

# The sockets through which a name lookup asks a local service (nscd, systemd-resolved): the
# trace's network attempts and the stop proof both tell them from other sockets.
NAME_SERVICE_SOCKETS = frozenset(
    (
        "/run/nscd/socket",
        "/var/run/nscd/socket",
        "/run/systemd/resolve/io.systemd.Resolve",
    )
)

# What a name lookup or a connection prints when there is no network: a `command` check's fetch
# that failed for the machine's sake, and the report's note on an agent's command that met none.
NO_NETWORK_SIGNS = (
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "No route to host",
    "Failed to establish a new connection",  # pip (urllib3)
    "Could not resolve host",  # curl, cargo, git
    "Unknown host",  # Maven
    "UnknownHostException",  # the JVM's (Gradle, Maven, the Gradle wrapper)
    "EAI_AGAIN",  # npm
    "ENOTFOUND",  # npm
)
