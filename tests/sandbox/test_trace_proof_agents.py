"""The trace as proof of a run the shell text cannot prove, on real Codex runs through the whole
pipeline (judge/checks/trace_proof.py; the offline tests on the logs these runs wrote are in
tests/sandbox/test_trace_proof.py). Each behaviour is played with the default layers (jail and trace)
and with evidence only (`--sandbox none --trace off`), on the demo's
`workflow-script-must-succeed` (`command_ran` /new_migration\\.py/ with exit code 0)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.artifacts.attribution import Blame, score_case
from evaluator.pipeline.rejudge import rejudge_run
from evaluator.sandbox import Tracer
from tests.conftest import ROOT
from tests.support import codex_or_skip, run_scripted

pytestmark = pytest.mark.codex
FIXTURES = Path(__file__).parents[1] / "fixtures"
CASE = "workflow-script-must-succeed"


def _run(
    tmp_path: Path, behavior: Path, evidence_only: bool
) -> tuple[str, list[str], str, Blame | None]:
    """(case status, attempt isolation verdicts, the check's detail of the first attempt, whose
    doing its `blocked` is when it is blocked)."""
    chosen = tmp_path / "behaviors"
    chosen.mkdir()
    shutil.copy(behavior, chosen / "x.yaml")
    outcome = run_scripted(
        repo=ROOT / "agentic-evals",
        runs_dir=tmp_path / "runs",
        behaviors=chosen,
        cases=(CASE,),
        agent="codex-exec",
        sandbox="none" if evidence_only else None,
        trace="off" if evidence_only else "auto",
    )
    (result,) = outcome.results
    (attempt,) = (tmp_path / "runs").glob(f"*/case-artifacts/{CASE}/attempts/attempt-01")
    (entry,) = json.loads((attempt / "attempt.json").read_text())["assertions"]
    blame = score_case(result).blame
    return (
        result.status,
        [a.isolation for a in result.attempts],
        entry["checks"][0]["detail"],
        blame,
    )


@pytest.mark.parametrize("evidence_only", [False, True], ids=["default-layers", "evidence-only"])
@pytest.mark.parametrize(
    "behavior,traced,untraced",
    [
        # `cd db && python3 SCRIPT x; echo done`: the echo's exit code is the call's
        ("trace_proof/after-cd-then-echo", "pass", "blocked"),
        # `ls no-such-directory && python3 SCRIPT x; true`: the trace shows it never ran
        ("red_team/command-after-failed-and", "fail", "blocked"),
        # the script behind a sleep, started in the background and killed at once, or a
        # second later: it never starts. The trace shows the killed subshell's end (the
        # tracer shows the signals that kill: real-repos round 4), so the call is seen whole
        # and no process ran the script: fail (before, no end in the log: blocked)
        ("trace_proof/background-killed", "fail", "blocked"),
        ("trace_proof/background-killed-later", "fail", "blocked"),
        # waited for at once: a sure run by its text
        ("trace_proof/background-waited", "pass", "pass"),
    ],
)
def test_a_run_the_text_cannot_prove_is_decided_by_the_trace(
    tmp_path: Path, behavior: str, traced: str, untraced: str, evidence_only: bool
) -> None:
    codex_or_skip()
    if not evidence_only and Tracer().unavailable():
        pytest.skip(f"no tracer here: {Tracer().unavailable()}")
    status, isolation, detail, blame = _run(tmp_path, FIXTURES / f"{behavior}.yaml", evidence_only)
    assert isolation == ["contained"]
    assert status == (untraced if evidence_only else traced), detail
    if status == "blocked":
        # The agent's own command leaves the run undecided (a background job, `; echo done`
        # after the run, a failed `&&`): not passed, never dropped from the score (before:
        # `insufficient-evidence`, the eval's).
        assert blame == Blame("agent", "agent-unverifiable"), detail
    if not evidence_only and traced != untraced:
        assert "the trace shows" in detail or "trace of its tool call shows" in detail
    # Judged again from the saved run (its trace.<tracer>.gz): the same verdict.
    (run_dir,) = [d.parent for d in (tmp_path / "runs").glob("*/manifest.json")]
    (rejudged,) = rejudge_run(run_dir)
    assert rejudged.status == status
    assert score_case(rejudged).blame == blame
    (ebpf_log,) = list(run_dir.glob("case-artifacts/*/attempts/attempt-01/trace.ebpf.gz")) or [None]
    if ebpf_log is not None and traced != untraced:
        # A run directory written before session 17 kept the eBPF log as `trace.strace.gz`:
        # still read (without it the verdict would be the untraced one).
        ebpf_log.rename(ebpf_log.with_name("trace.strace.gz"))
        (rejudged,) = rejudge_run(run_dir)
        assert rejudged.status == status
        ebpf_log.with_name("trace.strace.gz").unlink()
        (rejudged,) = rejudge_run(run_dir)
        assert rejudged.status == untraced  # the look-alike: no trace, the text's verdict
