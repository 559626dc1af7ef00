"""The run history: every finished run, case result and attempt in `<runs root>/history.db`, and
the per-case pass-rate trends read back from it. The last stage, beside gate and report: it reads
finished run directories through the artifact models and never changes them."""

from evaluator.history.database import HISTORY_FILE, HistoryError, history_path, open_history
from evaluator.history.record import ImportReport, import_runs, record_run
from evaluator.history.trends import CaseTrend, TrendPoint, case_trends

__all__ = [
    "HISTORY_FILE",
    "CaseTrend",
    "HistoryError",
    "ImportReport",
    "TrendPoint",
    "case_trends",
    "history_path",
    "import_runs",
    "open_history",
    "record_run",
]
