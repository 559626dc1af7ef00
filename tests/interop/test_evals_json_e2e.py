"""Public skill-creator suites, unchanged, run with the real Codex CLI against scripted agents.

Each suite is read in place from `../shared/fixtures/public-suites/` (never copied). A good
scripted agent does what the evals ask and a bad one does part of it; the tables below, written
before any run, say which entries each must pass: the bad agents pass what they really did.
Typed assertions are decided by checks (the `command` ones run in the attempt's jail), prose
expectations by the scripted model judge (`tests/fixtures/evals-json/xcode/judge/`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from evaluator.adapters.codex.judge import CodexJudgeBackend
from evaluator.grader import Grader, make_grader
from evaluator.pipeline.progress import PlainProgress
from evaluator.pipeline.run import Run, RunOptions
from tests.conftest import ROOT
from tests.support import claude_or_skip, codex_or_skip, run_scripted, scratch_dir

pytestmark = pytest.mark.slow

SUITES = ROOT.parent / "shared/fixtures/public-suites"
BEHAVIORS = ROOT / "tests/fixtures/evals-json"
P, F = "pass", "fail"

# suite: (evals path under SUITES, case, behaviours, judge behaviours or None)
RUNS = {
    "flink-udf": (
        "confluentinc__agent-skills__flink-udf/upstream/skills/flink-udf/evals/evals.json",
        "eval-1",
        "flink-udf",
        None,
    ),
    "kafka": (
        # a skill folder holding evals/evals.json, as `run --evals DIR` accepts it
        "confluentinc__agent-skills__developing-kafka-python-client/upstream/skills/"
        "developing-kafka-python-client",
        "eval-7",
        "kafka",
        None,
    ),
    "xcode": (
        "AvdLee__Xcode-Disk-Cleanup-Agent-Skill__xcode-disk-cleanup/upstream/evals/evals.json",
        "eval-1",
        "xcode",
        "xcode/judge",
    ),
}

# Expected per suite and behaviour: the case status, then each required entry's status in
# the file's order, and who decides the entries.
EXPECTED: dict[str, dict[str, tuple[str, list[str]]]] = {
    "flink-udf": {
        # pom exists, flink-table-api-java, provided, extends ScalarFunction (command), eval()
        # (command), null (command), README exists, mvn clean package, artifact create,
        # CREATE FUNCTION, USING JAR, SELECT
        "good": (P, [P, P, P, P, P, P, P, P, P, P, P, P]),
        # a pom without `provided`, a UDF without null handling, no README
        "bad": (F, [P, P, F, P, P, F, F, F, F, F, F, F]),
    },
    "kafka": {
        # JSONSerializer, no json.dumps, schema exists, user_id, action, description,
        # date-time, no producer.py, auto.register.schemas
        "good": (P, [P, P, P, P, P, P, P, P, P]),
        # left the given producer as it was, a thin schema, and a new producer.py
        "bad": (F, [F, F, P, P, P, F, F, F, F]),
    },
    "xcode": {
        # says no deletion, itemizes with IDs/GiB/risk/cost, APFS vs summed size, asks approval
        "good": (P, [P, P, P, P]),
        # claims it cleaned up, but does itemize
        "bad": (F, [F, P, F, F]),
    },
}
DECIDED_BY = {"flink-udf": "checks", "kafka": "checks", "xcode": "model"}


def _run(
    suite: str, behaviour: str, runs_dir: Path, scratch: Path, agent: str | None = None
) -> Path:
    evals, case, folder, judges = RUNS[suite]
    grader: Grader | None = None
    if judges is not None:
        grader = make_grader(
            "mock-judge",
            backend=CodexJudgeBackend,
            behaviors=BEHAVIORS / judges,
            scratch_root=scratch / "judge",
        )
    try:
        outcome = Run(
            RunOptions(
                repo=SUITES / evals,
                cases=(case,),
                behaviors=BEHAVIORS / folder / behaviour,
                runs_dir=runs_dir,
                scratch_root=scratch,
                grader=grader,
                agent=agent,
            ),
            PlainProgress(),
        ).execute()
    finally:
        if grader is not None:
            grader.close()
    return outcome.run_dir.path


@pytest.mark.codex
@pytest.mark.parametrize("behaviour", ["good", "bad"])
@pytest.mark.parametrize("suite", sorted(RUNS))
def test_a_public_suite_runs_unchanged_and_tells_good_from_bad(
    suite: str, behaviour: str, tmp_path: Path
) -> None:
    codex_or_skip()
    if not SUITES.is_dir():
        pytest.fail(f"the public suites are missing: {SUITES}")
    evals_before = {p: p.read_bytes() for p in SUITES.rglob("*") if p.is_file()}
    status, entries = EXPECTED[suite][behaviour]
    case = RUNS[suite][1]
    with scratch_dir() as scratch:
        run_dir = _run(suite, behaviour, tmp_path / "runs", scratch)
    result = json.loads((run_dir / "case-results" / f"{case}.json").read_text())
    got = [entry["status"] for entry in result["assertions"]]
    assert (result["status"], got) == (status, entries), result["assertions"]
    prefix = f"case-artifacts/{case}/accepted-session.json#msg-"
    for entry in result["assertions"]:
        assert entry["decided_by"] == DECIDED_BY[suite]
        # every verdict cites the agent's recorded session, whatever decided it
        assert any(ref.startswith(prefix) for ref in entry["evidence"]), entry
    manifest = json.loads((run_dir / "manifest.json").read_text())
    jail = "no jail" if manifest["sandbox"] == "none" else f"{manifest['sandbox']} jail"
    commands = [
        check
        for entry in result["assertions"]
        for check in entry.get("checks", [])
        if check["kind"] == "command"
    ]
    assert len(commands) == (3 if suite == "flink-udf" else 0)
    for check in commands:
        record = next(r for r in check["evidence"] if "/judge/command-" in r)
        saved = json.loads((run_dir / record).read_text())
        # ran after the agent, in its workspace, confined as the agent was
        assert saved["where"] == jail and saved["exit_code"] in (0, 1)
        assert saved["ran"].endswith("/src/main/java 2>&1") and "{{output_dir}}" not in saved["ran"]
    # the suite was read in place: nothing was written beside it
    after = {p: p.read_bytes() for p in SUITES.rglob("*") if p.is_file()}
    assert after == evals_before


@pytest.mark.codex
def test_an_agent_that_reads_the_evals_file_is_blocked_and_the_jail_hid_it(
    tmp_path: Path,
) -> None:
    """The evals file sits beside the skill (a repo-level `evals/`): the agent must not be able
    to read the expectations. The jail hides it and the isolation verdict blocks the attempt."""
    codex_or_skip()
    evals = SUITES / RUNS["xcode"][0]
    peeks = tmp_path / "peeks"
    peeks.mkdir()
    (peeks / "eval-1.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "peeks/xcode/eval-1",
                "match": {"prompt_contains": "Audit the machine and give me an itemized report"},
                "steps": [{"cmd": f"cat {evals}"}, {"final": "No deletion was performed."}],
            }
        )
    )
    outcome = run_scripted(
        repo=evals,
        cases=("eval-1",),
        behaviors=peeks,
        runs_dir=tmp_path / "runs",
    )
    [result] = outcome.results
    assert (result.status, result.blocked_reason) == ("blocked", "insufficient-evidence")
    run_dir = outcome.run_dir.path
    manifest = json.loads((run_dir / "manifest.json").read_text())
    attempts = sorted((run_dir / "case-artifacts/eval-1/attempts").glob("*/attempt.json"))
    assert len(attempts) == 2  # the violation was retried once in a new workspace
    for path in attempts:
        attempt = json.loads(path.read_text())
        assert attempt["isolation"] == "violation"
        if manifest["sandbox"] == "bwrap":
            answer = (path.parent / "accepted-session.json").read_text()
            assert "No such file or directory" in answer  # the jail hid it


@pytest.mark.claude
@pytest.mark.parametrize("behaviour", ["good", "bad"])
def test_the_typed_suite_gives_the_same_table_under_claude_code(
    behaviour: str, tmp_path: Path
) -> None:
    """The same scripted behaviours played to Claude Code (its Write tool for `write:` steps):
    the skill is linked where Claude Code finds skills, the table is the same."""
    claude_or_skip()
    status, entries = EXPECTED["flink-udf"][behaviour]
    with scratch_dir() as scratch:
        run_dir = _run("flink-udf", behaviour, tmp_path / "runs", scratch, agent="claude-code")
    result = json.loads((run_dir / "case-results/eval-1.json").read_text())
    assert (result["status"], [e["status"] for e in result["assertions"]]) == (status, entries)
    prefix = "case-artifacts/eval-1/accepted-session.json#msg-"
    assert all(any(r.startswith(prefix) for r in e["evidence"]) for e in result["assertions"])
