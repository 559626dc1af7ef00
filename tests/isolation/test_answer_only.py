"""An attempt whose right answer needs no tool call: the session has no working directory to
observe, but in the jail under the trace (which would show any tool call's process) there is
nothing for one to place, so the attempt is contained and judged. Without the trace the session
layer's rule stands (no reliable signal: unverifiable, a pass blocked), and one tool call, however
harmless, brings the usual rules back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.evidence import SessionEvidence
from evaluator.isolation.assess import IsolationReport
from evaluator.isolation.trace import TraceReport, _answered_without_tools
from evaluator.pipeline.run import RunOutcome
from tests.support import agent_params, one_behavior, run_scripted, tracer_under_test

PROMPT = "Which colour does the palette skill recommend for warnings? Answer in one word."
ANSWER = "amber"


def _suite(root: Path) -> Path:
    skill = root / "palette"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: palette\ndescription: Colours for status messages.\n---\n\n"
        "Warnings are amber. Errors are red.\n"
    )
    evals = skill / "evals"
    evals.mkdir()
    (evals / "evals.json").write_text(
        json.dumps(
            {
                "skill_name": "palette",
                "evals": [
                    {
                        "id": 1,
                        "prompt": PROMPT,
                        "expected_output": "amber",
                        "expectations": [f"The final answer mentions `{ANSWER}`."],
                    }
                ],
            }
        )
    )
    return evals / "evals.json"


def _run(root: Path, agent: str, steps: list[dict[str, Any]], **options: Any) -> RunOutcome:
    root.mkdir(exist_ok=True)
    behaviors = one_behavior(root, "answer-only", PROMPT[:40], steps)
    return run_scripted(
        _suite(root), behaviors, root / "runs", agent=agent, cases=("eval-1",), **options
    )


def _attempt(outcome: RunOutcome) -> dict[str, Any]:
    folder = outcome.run_dir.path / "case-artifacts/eval-1/attempts"
    (path,) = sorted(folder.glob("*/attempt.json"))
    return dict(json.loads(path.read_text()))


AGENTS = agent_params("codex", "claude", "gemini")
RUNNERS = {"codex": "codex-exec", "claude": "claude-code", "gemini": "gemini-cli"}


@pytest.mark.parametrize("agent", AGENTS)
def test_an_answer_without_tool_calls_is_contained_in_the_jail(agent: str, tmp_path: Path) -> None:
    outcome = _run(tmp_path, RUNNERS[agent], [{"final": f"Warnings are {ANSWER}."}])
    attempt = _attempt(outcome)
    if attempt["isolation_layers"] != {"sandbox": "bwrap", "trace": tracer_under_test()}:
        pytest.skip(f"the default layers are not available here: {attempt['isolation_layers']}")
    assert attempt["trace_report"]["tool_calls"] == 0, attempt["trace_report"]
    assert attempt["isolation"] == "contained", attempt["isolation_report"]
    assert "no tool call" in attempt["isolation_report"]["reason"]
    (result,) = outcome.results
    assert result.status == "pass", result
    # The wrong answer still fails: containment decides nothing about the answer.
    wrong = _run(tmp_path / "wrong", RUNNERS[agent], [{"final": "Warnings are blue."}])
    (result,) = wrong.results
    assert result.status == "fail", result


@pytest.mark.codex
def test_without_the_trace_the_session_alone_cannot_vouch(tmp_path: Path) -> None:
    outcome = _run(tmp_path, "codex-exec", [{"final": f"Warnings are {ANSWER}."}], trace="off")
    attempt = _attempt(outcome)
    assert attempt["isolation"] == "unverifiable", attempt["isolation_report"]
    (result,) = outcome.results
    assert (result.status, result.blocked_reason) == ("blocked", "insufficient-evidence")


@pytest.mark.codex
def test_one_tool_call_brings_the_usual_rules_back(tmp_path: Path) -> None:
    """A tool call the session shows no working directory for (Codex's `web_search`-like calls
    have none; a command always has one): here a plain command, so the session's own signal
    decides, and the answer-only rule is not what made it contained."""
    outcome = _run(
        tmp_path,
        "codex-exec",
        [{"cmd": "cat palette/SKILL.md"}, {"final": f"Warnings are {ANSWER}."}],
    )
    attempt = _attempt(outcome)
    if attempt["isolation_layers"] != {"sandbox": "bwrap", "trace": tracer_under_test()}:
        pytest.skip(f"the default layers are not available here: {attempt['isolation_layers']}")
    assert attempt["isolation"] == "contained", attempt["isolation_report"]
    assert "no tool call" not in attempt["isolation_report"]["reason"]


def test_a_header_without_its_records_is_no_proof_of_no_tool_call() -> None:
    """The rule reads the session's records back; evidence reduced to its header (a run
    driver's copy) has a record count but no records, and must not pass for an empty session."""
    evidence = SessionEvidence(session_path="s.jsonl")
    evidence.add("tool_call", 3, call_id="c1", tool="shell")
    report = IsolationReport(verdict="unverifiable", workspace="/w")
    trace = TraceReport("contained", "0 traced tool call(s)", 0)
    assert not _answered_without_tools(report, trace, evidence)
    assert not _answered_without_tools(report, trace, evidence.header_only())
    assert _answered_without_tools(report, trace, SessionEvidence(session_path="s.jsonl"))
