"""The shapes of what the commands print with `--json` (their JSON Schemas are exported)."""

from evaluator.outputs.models import OUTPUT_MODELS, output_kind

__all__ = ["OUTPUT_MODELS", "output_kind"]
