"""Stage 9: the run directory and everything written into it."""

from evaluator.artifacts.models import AttemptRecord, CaseResult, CaseStats, Manifest
from evaluator.artifacts.rundir import RunDir

__all__ = ["AttemptRecord", "CaseResult", "CaseStats", "Manifest", "RunDir"]
