"""Stage 7: prove from the evidence that the agent stayed inside its workspace."""

from evaluator.isolation.allowlist import SYSTEM_ALLOWLIST
from evaluator.isolation.assess import (
    IsolationReport,
    Violation,
    assess_attempt,
    assess_isolation,
)

__all__ = [
    "SYSTEM_ALLOWLIST",
    "IsolationReport",
    "Violation",
    "assess_attempt",
    "assess_isolation",
]
