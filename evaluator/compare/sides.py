"""One side of a case as the comparison counts it: passes out of the tries that have a verdict.

The counting is the score's (`artifacts/attribution.py`): a try the agent caused to be blocked
(a timeout, an isolation violation the retry repeated, a crash, no final answer) counts as not
passed, so a skill edit that makes the agent escape its workspace is a regression and not an
`environment-divergence`; a try blocked by the eval or the machine is left out.
"""

from __future__ import annotations

from evaluator.artifacts.attribution import (
    attempt_blame,
    case_blame,
    case_blame_without_attempts,
    final_attempts,
)
from evaluator.artifacts.models import CaseResult
from evaluator.compare.model import CaseSide
from evaluator.vocabulary import BlockSide


def case_side(result: CaseResult) -> CaseSide:
    relative = f"case-results/{result.case_id}.json"
    tries = final_attempts(result)
    if not tries:
        # A result without attempt records (another evaluator's): one try, its status.
        agent_blocked = (
            result.status == "blocked" and case_blame_without_attempts(result).side == "agent"
        )
        counted = 1 if result.status != "blocked" or agent_blocked else 0
        passed = 1 if result.status == "pass" else 0
        return CaseSide(
            status=result.status,
            blocked_reason=result.blocked_reason,
            blocked_by=_blocked_by(result),
            attempts=1,
            passed=passed,
            counted=counted,
            blocked=1 - counted,
            pass_rate=passed / counted if counted else None,
            case_result=relative,
        )
    passed = sum(1 for t in tries if t.status == "pass")
    judged = sum(1 for t in tries if t.status in ("pass", "fail"))
    against = sum(
        1 for t in tries if t.status not in ("pass", "fail") and attempt_blame(t).side == "agent"
    )
    counted = judged + against
    return CaseSide(
        status=result.status,
        blocked_reason=result.blocked_reason,
        blocked_by=_blocked_by(result),
        attempts=len(tries),
        passed=passed,
        counted=counted,
        blocked=len(tries) - counted,
        pass_rate=passed / counted if counted else None,
        case_result=relative,
    )


def _blocked_by(result: CaseResult) -> BlockSide | None:
    blame = case_blame(result)
    return blame.side if blame is not None else None
