"""Stage 6: read an accepted session into normalised evidence records."""

from evaluator.evidence.records import EvidenceRecord, SessionEvidence
from evaluator.evidence.session import normalize_session

__all__ = ["EvidenceRecord", "SessionEvidence", "normalize_session"]
