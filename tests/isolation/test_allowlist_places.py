"""The allowlist, round 20: `/opt` is read like `/usr/local` (a skill's script that looks for a
tool installed there, `find /opt /usr/local -name analyzeHeadless`, was blocked on every honest
run), and no allowed prefix covers the places the jail hides (the source workspace, the eval
repo, the runs, the run's scratch): an eval repo kept under `/usr/local/src` or `/opt` used to
be a system location, so a read of its other cases was allowed."""

from __future__ import annotations

from pathlib import Path

from evaluator.evidence.builder import EvidenceBuilder
from evaluator.isolation import SYSTEM_ALLOWLIST
from evaluator.isolation.allowlist import allowed, excluding
from evaluator.isolation.assess import assess_isolation
from evaluator.isolation.trace import RUNTIME_ALLOWLIST

REPO = Path("/usr/local/src/team-evals")
RUNS = Path("/opt/agentic/runs")


def _evidence(workspace: Path, *commands: str):  # type: ignore[no-untyped-def]
    builder = EvidenceBuilder(Path("session.jsonl"), "/nonexistent-home", {})
    builder.evidence.cwd = str(workspace)
    for index, command in enumerate(commands, 1):
        builder.observe_command(index, None, f"call-{index}", "shell", command, None, "tool-call")
    return builder.evidence


def test_opt_is_read_like_usr_local_and_written_nowhere(tmp_path: Path) -> None:
    reads = _evidence(
        tmp_path,
        "find /opt /usr/local -maxdepth 5 -name analyzeHeadless",
        "ls /opt/ghidra/support",
        "/opt/ghidra/support/analyzeHeadless proj-dir proj -import a.bin",
    )
    report = assess_isolation(reads, tmp_path)
    assert report.violations == [], report.to_json()
    assert any("/opt" in line and "add-on software" in line for line in report.allowed_outside)
    writes = assess_isolation(_evidence(tmp_path, "touch /opt/ghidra/x"), tmp_path)
    assert [(v.kind, v.path) for v in writes.violations] == [("write", "/opt/ghidra/x")]


def test_an_allowed_prefix_does_not_cover_the_eval_repo_or_the_runs(tmp_path: Path) -> None:
    commands = (
        f"cat {REPO}/targets/t/cases/other-case.yaml",
        f"ls {RUNS}",
        f"cat {RUNS}/r1/case-results/c.json",
    )
    evidence = _evidence(tmp_path, *commands)
    # What the verdict was: every read allowed as a system location.
    before = assess_isolation(evidence, tmp_path)
    assert before.violations == [], before.to_json()
    rules = excluding(SYSTEM_ALLOWLIST, (REPO, RUNS))
    after = assess_isolation(_evidence(tmp_path, *commands), tmp_path, rules=rules)
    assert sorted(v.path for v in after.violations) == sorted(
        [f"{REPO}/targets/t/cases/other-case.yaml", str(RUNS), f"{RUNS}/r1/case-results/c.json"]
    )
    # The rest of the prefix stays allowed, and so does a neighbour that only shares a prefix.
    for path in ("/usr/local/src/other/x", f"{REPO}-old/x", "/usr/bin/cat", "/opt/ghidra/x"):
        assert allowed(path, "read", rules) is not None, path
    # The trace's rules the same way.
    traced = excluding(SYSTEM_ALLOWLIST + RUNTIME_ALLOWLIST, (REPO, RUNS))
    assert allowed(f"{REPO}/targets/t/target.yaml", "read", traced) is None
    assert allowed(str(RUNS), "list", traced) is None
    assert allowed("/etc/ssl/certs/ca.pem", "read", traced) is not None
