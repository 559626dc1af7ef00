"""Evidence + isolation over every saved session of finished runs, repeated: the per-attempt
session work as a whole process, for comparing two checkouts (run each checkout's interpreter on
the same run directories, interleaved, several times; compare the CPU time).

Run: .venv/bin/python -m benchmarks.saved_sessions --repeat 300 runs/<id> [runs/<id> ...]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.common import table
from evaluator.adapters import normalize_session
from evaluator.isolation import assess_isolation


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    sessions = []
    for run in args.runs:
        for record in sorted(run.glob("case-artifacts/*/attempts/*/attempt.json")):
            saved = record.parent / "accepted-session.jsonl"
            if saved.is_file():
                workspace = Path(json.loads(record.read_text())["workspace_root"])
                sessions.append((saved, workspace))
    start = time.process_time()
    for _ in range(args.repeat):
        for saved, workspace in sessions:
            assess_isolation(normalize_session(saved), workspace)
    cpu = time.process_time() - start
    done = len(sessions) * args.repeat
    table(
        "Evidence + isolation of saved sessions (CPU time of this process)",
        ["sessions", "repeats", "CPU", "per session"],
        [
            [
                str(len(sessions)),
                str(args.repeat),
                f"{cpu:.2f} s",
                f"{cpu / max(done, 1) * 1000:.2f} ms",
            ]
        ],
    )


if __name__ == "__main__":
    main()
