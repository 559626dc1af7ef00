"""Stage 6: read an accepted session into normalised evidence records (each agent's format is
read by its adapter, `evaluator.adapters.normalize_session`)."""

from evaluator.evidence.records import EvidenceRecord, SessionEvidence

__all__ = ["EvidenceRecord", "SessionEvidence"]
