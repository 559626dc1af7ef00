"""Stage 6: read an accepted session into normalised evidence records."""

from evaluator.evidence.normalize import normalize_session
from evaluator.evidence.records import EvidenceRecord, SessionEvidence

__all__ = ["EvidenceRecord", "SessionEvidence", "normalize_session"]
