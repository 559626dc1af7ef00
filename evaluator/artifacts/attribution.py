"""Who caused each `blocked`, and the verified score that follows from it: the one place that decides.

A score must not be gameable. A skill that makes hard cases time out, escape the workspace, crash
the agent or end without an answer must not raise its own pass rate, so those attempts count as
not passed. What the eval or the machine caused (a rule no judge can decide, a setup that cannot
be reproduced, evidence our tools could not locate) says nothing about the skill: it is left out
of the pass rate and lowers the coverage instead. An outage of the agent's model or tooling gives
no score at all. Evidence the agent itself made undecidable (a check it could fail, hidden behind
a command that may not have run, a background job, a construct the analysis cannot see into) is
the agent's: otherwise an agent that would fail could drop its case instead (red team, round 5).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluator.artifacts.models import AssertionResult, AttemptRecord, CaseResult
from evaluator.vocabulary import BlockCause, BlockedReason, BlockSide, Status


@dataclass(frozen=True)
class Blame:
    side: BlockSide
    cause: BlockCause


_REASON_BLAME: dict[BlockedReason, Blame] = {
    "unclear-rule": Blame("eval", "unclear-rule"),
    "environment": Blame("eval", "environment"),
    "insufficient-evidence": Blame("eval", "insufficient-evidence"),
}


def attempt_blame(record: AttemptRecord) -> Blame:
    """Why one blocked attempt was blocked, from the facts its record keeps (in this order)."""
    if record.unmet_needs:
        # The case needs a program the machine lacks: checked before the agent started, so no
        # agent ran and nothing the skill did could cause it.
        return Blame("eval", "environment")
    if record.model_unreachable:
        # The agent sat waiting for its model: an outage, never a low score for the skill.
        return Blame("outage", "model-unreachable")
    if record.timed_out:
        return Blame("agent", "timeout")
    if record.isolation == "violation":
        return Blame("agent", "isolation-violation")
    if record.agent_error:
        # The agent reported an error from its model or tools: nothing the skill text did.
        return Blame("outage", "agent-error")
    if record.killed or record.exit_code not in (0, None):
        return Blame("agent", "agent-crash")
    if record.exit_code is None and not record.thread_id:
        return Blame("outage", "not-started")
    if record.session_complete is False:
        return Blame("agent", "no-final-answer")
    if record.blocked_by == "agent":
        # Its judgement was blocked by its own gaps, which may hide a failure: never a drop.
        return Blame("agent", "agent-unverifiable")
    return _reason_blame(record.blocked_reason or "insufficient-evidence")


def case_blame_without_attempts(result: CaseResult) -> Blame:
    """A blocked result with no attempt records (another evaluator's run, or one written before
    attempts were kept): the blame it states (`blocked_by`, `blocked_cause`), else only its
    reason is known. There `insufficient-evidence` covers isolation violations and incomplete
    sessions, so it counts against the skill rather than letting a violation drop out of the
    score (the old rule, kept for files that say nothing more)."""
    reason = result.blocked_reason
    if result.blocked_by is not None:
        cause = result.blocked_cause
        if cause is None:
            default = reason or "insufficient-evidence"
            cause = "agent-unverifiable" if result.blocked_by == "agent" else default
            if result.blocked_by == "outage":
                cause = "agent-error"
        return Blame(result.blocked_by, cause)
    if reason == "insufficient-evidence" or reason is None:
        return Blame("agent", "insufficient-evidence")
    return _reason_blame(reason)


def case_blame(result: CaseResult) -> Blame | None:
    """Who caused a blocked case, as its score counts it; None when it is not blocked."""
    return score_case(result).blame


def blocked_label(result: CaseResult) -> str:
    """A blocked case's reason with whose doing it is, as reports show its status: the score
    drops an eval's block and counts an agent's as not passed."""
    reason = result.blocked_reason or "no reason given"
    blame = case_blame(result) if result.status == "blocked" else None
    if blame is None:
        return reason
    whose = {
        "agent": "the agent's, counted as not passed",
        "eval": "the eval's, left out",
        "outage": "an outage, no score",
    }[blame.side]
    return f"{reason}; {whose}"


def _reason_blame(reason: BlockedReason) -> Blame:
    # A reason added later (a judge outage, say) is the eval's until it is classified here.
    return _REASON_BLAME.get(reason, Blame("eval", "environment"))


def final_attempts(result: CaseResult) -> list[AttemptRecord]:
    """The last attempt of each of the K tries (an invalid attempt is replaced by its retry).
    An interrupted attempt (a stopped run's, or one lost with its worker) is listed, never
    counted: its case ran again, so it is no try of the K, nor its blame an outage or a crash."""
    retried = {a.retry_of for a in result.attempts if a.retry_of is not None}
    return [a for a in result.attempts if a.attempt not in retried and not a.interrupted]


def entry_share(assertions: Sequence[AssertionResult]) -> float | None:
    """The share of decided entries that passed; None when none was decided."""
    decided = [a for a in assertions if a.status != "blocked"]
    if not decided:
        return None
    return sum(1 for a in decided if a.status == "pass") / len(decided)


@dataclass
class CaseScore:
    """One case's contribution. `hard`/`soft` are None when the case has no verdict."""

    case_id: str
    status: Status
    hard: float | None
    soft: float | None
    blames: list[Blame] = field(default_factory=list)  # one per blocked try

    @property
    def has_verdict(self) -> bool:
        return self.hard is not None

    @property
    def outage(self) -> bool:
        return any(b.side == "outage" for b in self.blames)

    @property
    def blame(self) -> Blame | None:
        """For a blocked case: the agent's fault if any try had one, else the first cause."""
        if self.status != "blocked" or not self.blames:
            return None
        agent = [b for b in self.blames if b.side == "agent"]
        return agent[0] if agent else self.blames[0]


def score_case(result: CaseResult) -> CaseScore:
    tries = final_attempts(result)
    share = entry_share(result.assertions)
    if not tries:
        if result.status in ("pass", "fail"):
            hard = 1.0 if result.status == "pass" else 0.0
            return CaseScore(
                result.case_id, result.status, hard, share if share is not None else hard
            )
        blame = case_blame_without_attempts(result)
        zero = 0.0 if blame.side == "agent" else None
        return CaseScore(result.case_id, result.status, zero, zero, [blame])
    blames = [attempt_blame(t) for t in tries if t.status == "blocked" or t.status is None]
    passed = sum(1 for t in tries if t.status == "pass")
    judged = sum(1 for t in tries if t.status in ("pass", "fail"))
    against = sum(1 for b in blames if b.side == "agent")
    counted = judged + against
    if counted == 0 or (result.status == "blocked" and against == 0):
        return CaseScore(result.case_id, result.status, None, None, blames)
    hard = passed / counted
    shares = [t.entry_share for t in tries if t.status in ("pass", "fail")]
    if all(s is not None for s in shares):
        # Each judged try's own share, an agent-blocked try's 0: the mean over the K tries, as
        # `hard` is. The case-level entries are one try's (the first failing), so with K > 1
        # they made a case that passed 2 of 3 tries `soft` 0 beside `hard` 0.667.
        soft = sum(s or 0.0 for s in shares) / counted
    else:  # records written before attempts kept their share
        soft = (share if share is not None else hard) * judged / counted
    return CaseScore(result.case_id, result.status, hard, soft, blames)


@dataclass
class RunScore:
    """The verified score of a run over its selected cases."""

    selected: int
    cases: list[CaseScore]
    # A trigger run's `triggers.json` (its precision, recall and F1), for the trigger-f1 metric.
    triggers: dict[str, Any] | None = None
    # Where the run was read from (its directory), for messages that must say which run.
    source: str | None = None

    @property
    def judged(self) -> list[CaseScore]:
        return [c for c in self.cases if c.has_verdict]

    @property
    def hard(self) -> float | None:
        judged = self.judged
        return sum(c.hard or 0.0 for c in judged) / len(judged) if judged else None

    @property
    def soft(self) -> float | None:
        judged = self.judged
        return sum(c.soft or 0.0 for c in judged) / len(judged) if judged else None

    @property
    def coverage(self) -> float:
        return len(self.judged) / self.selected if self.selected else 0.0

    @property
    def outage(self) -> bool:
        return any(c.outage for c in self.cases)

    def count(self, status: Status) -> int:
        return sum(1 for c in self.cases if c.status == status)

    def blocked_causes(self) -> Counter[Blame]:
        return Counter(c.blame for c in self.cases if c.blame is not None)

    def headline(self) -> str:
        """One line that never shows a pass rate without the coverage behind it, and says what
        each figure is of: the cases judged (a case blocked by the agent is judged, as not
        passed), the blocked ones by whose doing, and what `hard` is the mean of when it is not
        simply the passed share of the judged cases (a case with K attempts counts its share).
        report.md, report.html, `run`'s summary, `score` and the CI step summary all print it."""
        n = self.selected
        judged = self.judged
        passed = self.count("pass")
        blocked = self.count("blocked")
        whose = {"agent": ", counted as not passed", "eval": ", left out", "outage": ", no score"}
        parts = [
            f"{blame.cause} {count}{whose[blame.side]}"
            for blame, count in sorted(self.blocked_causes().items(), key=lambda kv: -kv[1])
        ]
        tail = f"; {blocked} of {n} blocked ({'; '.join(parts)})" if blocked else ""
        if self.hard is None:
            return f"no verdict: 0 of {n} cases judged{tail}"
        coverage = f"coverage {len(judged)} of {n} cases judged = {self.coverage:.0%}"
        if abs(self.hard - passed / len(judged)) < 1e-9:
            of = "passed of judged"
        else:
            # Some case passed only part of its attempts (or a passed case lost one to the
            # agent): `hard` is the mean of the cases' shares, not the count of passed cases.
            shares = [c.hard or 0.0 for c in judged]
            listed = (
                ": " + ", ".join(f"{s:.0%}" for s in shares)
                if len(shares) <= 5
                else f" over {len(shares)} cases"
            )
            of = f"the mean of each judged case's share of passed attempts{listed}"
        return (
            f"{passed} of {len(judged)} judged cases passed (hard {self.hard:.0%} = {of};"
            f" {coverage}){tail}"
        )


def score_run(results: Sequence[CaseResult], selected: int | None = None) -> RunScore:
    """`selected` is the number of cases the run planned; missing results lower the coverage."""
    cases = [score_case(r) for r in results]
    return RunScore(selected if selected is not None else len(cases), cases)
