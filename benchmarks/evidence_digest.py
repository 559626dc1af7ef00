"""A digest of everything the evidence stage decides, for comparing two checkouts: run it from
each (its own directory, the same interpreter) and `cmp` the outputs.

One line per item, its sha256: the `ShellAnalysis` of every distinct command found in the
isolation corpus (placeholders filled), in the fixture sessions, in the given sessions and in
the tests' command strings, with and without a home; and for every session (the fixture sessions
and the given ones) the whole `SessionEvidence.to_json()`, every record in order, and its
isolation report. The inputs are read from THIS file's checkout, so both runs judge the same.

Run: .venv/bin/python -m benchmarks.evidence_digest OUT [SESSION ...]
     (cd OLD && PYTHONPATH=OLD python /path/to/benchmarks/evidence_digest.py OUT2 [SESSION ...])
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from evaluator.adapters import normalize_session
from evaluator.evidence.shell.analysis import analyze_command
from evaluator.isolation import assess_isolation

ROOT = Path(__file__).resolve().parent.parent
MAX_SCANNED_SESSION = 5_000_000  # bytes: a larger session is judged, not searched for commands
TEST_COMMAND = re.compile(
    r'"((?:cd |cat |bash |sh |python3? |echo |sed |ln |cp |find |git |tar |rm |mv |printf |env '
    r'|xargs |awk )[^"\n]{2,300})"'
)


def _commands_in(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("cmd", "command") and isinstance(item, str):
                yield item
            elif key == "arguments" and isinstance(item, str):
                try:
                    yield from _commands_in(json.loads(item))
                except ValueError:
                    continue
            else:
                yield from _commands_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _commands_in(item)


def _corpus_commands() -> Iterator[str]:
    for name in ("escapes.yaml", "clean.yaml"):
        for entry in yaml.safe_load((ROOT / "tests/isolation_corpus" / name).read_text()) or []:
            for step in entry.get("steps", []):
                if isinstance(step, str):
                    yield re.sub(r"@[A-Z0-9]+@", "/tmp/canary", step)


def _session_commands(sessions: list[Path]) -> Iterator[str]:
    for session in sessions:
        if session.stat().st_size > MAX_SCANNED_SESSION:
            continue
        for line in session.read_text(errors="replace").splitlines():
            try:
                yield from _commands_in(json.loads(line))
            except (ValueError, RecursionError):
                continue


def _test_commands() -> Iterator[str]:
    # By file name, not path: the tests live in one folder per package, and the digest's order
    # of commands stays what it was when they lived in one folder.
    tests = (
        p
        for p in (ROOT / "tests").rglob("*.py")
        if not {"fixtures", "isolation_corpus"} & set(p.parts)
    )
    for test in sorted(tests, key=lambda p: p.name):
        for match in TEST_COMMAND.finditer(test.read_text()):
            yield match.group(1)


def known_commands(sessions: list[Path]) -> list[str]:
    """Every distinct command of the corpus, of `sessions` and of the tests' strings."""
    return list(
        dict.fromkeys([*_corpus_commands(), *_session_commands(sessions), *_test_commands()])
    )


def fixture_sessions() -> list[Path]:
    fixtures = ROOT / "tests/fixtures"
    return sorted({*fixtures.rglob("*.jsonl"), *fixtures.rglob("*.json")})


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("out", type=Path)
    parser.add_argument("sessions", nargs="*", type=Path, help="More sessions (e.g. runs/*/...).")
    parser.add_argument("--workspace", default="/w/ws", help="The sessions' workspace.")
    args = parser.parse_args()
    sessions = sorted({*fixture_sessions(), *args.sessions})
    commands = known_commands(sessions)
    with args.out.open("w", encoding="utf-8") as out:
        for home in (None, "/home/u"):
            for command in commands:
                try:
                    text = repr(analyze_command(command, "/w/ws", home))
                except Exception as exc:  # a failure is part of the digest
                    text = f"{type(exc).__name__}: {exc}"
                out.write(f"command {home} {command[:80]!r}\t{_digest(text)}\n")
        for session in sessions:
            try:
                evidence = normalize_session(session)
                report = assess_isolation(evidence, Path(args.workspace))
                text = json.dumps(evidence.to_json(), default=str)
                text += json.dumps(report.to_json(), default=str)
            except Exception as exc:
                text = f"{type(exc).__name__}: {exc}"
            out.write(f"session {session}\t{_digest(text)}\n")
    print(f"{len(commands)} commands, {len(sessions)} sessions -> {args.out}")


if __name__ == "__main__":
    main()
