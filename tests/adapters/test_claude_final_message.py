"""Claude Code 2.1.197 sometimes exits with its final answer printed on stdout but not written to
its transcript (after a `git commit` that succeeded; docs/agents.md). The pair in
`tests/fixtures/recorded/claude-final-unwritten/` was recorded by the real CLI against the
scripted server (`run --agent claude-code` of a case that commits, 1 attempt of 30): the
transcript ends with the commit's tool result and a `last-prompt` naming the answer, and the
stream holds it. On `main` that attempt was `blocked`, `session incomplete`. The look-alikes
(a killed CLI, an error result, another leaf) must stay incomplete."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evaluator.adapters.claude.final_message import RECOVERED_KEY, recover_final_message
from evaluator.adapters.claude.normalize import normalize_claude_transcript

RECORDED = Path(__file__).parents[1] / "fixtures/recorded/claude-final-unwritten"
ANSWER = "a4a9368d-5749-4246-a440-067282d246a1"


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    stdout, transcript = tmp_path / "stdout.jsonl", tmp_path / "session.jsonl"
    shutil.copyfile(RECORDED / "stdout.jsonl", stdout)
    shutil.copyfile(RECORDED / "transcript.jsonl", transcript)
    return stdout, transcript


def _rewrite(path: Path, keep: object) -> None:
    lines = [line for line in path.read_text().splitlines() if keep(json.loads(line))]
    path.write_text("".join(line + "\n" for line in lines))


def test_the_recorded_transcript_lacks_the_answer_the_stream_printed(tmp_path: Path) -> None:
    _, transcript = _pair(tmp_path)
    before = normalize_claude_transcript(transcript)
    assert not before.complete and before.final_answer is None


def test_the_final_answer_the_cli_left_unwritten_is_recovered(tmp_path: Path) -> None:
    stdout, transcript = _pair(tmp_path)
    note = recover_final_message(stdout, transcript, 1796058114.5)
    assert note is not None and ANSWER in note
    evidence = normalize_claude_transcript(transcript)
    assert evidence.complete
    assert evidence.final_answer is not None
    assert evidence.final_answer.startswith("Committed `fix(calc): add instead of subtract`")
    end = next(r for r in evidence.records if r.kind == "session_end")
    assert "recovered from the CLI's stream" in (end.detail or "")
    last = json.loads(transcript.read_text().splitlines()[-1])
    assert last["uuid"] == ANSWER and last[RECOVERED_KEY]["from"] == "stdout.jsonl"
    # Once: a second pass finds the answer in the file.
    assert recover_final_message(stdout, transcript, 1796058114.5) is None


def _killed(event: dict[str, object]) -> bool:
    return event.get("type") != "result"


def _error(path: Path) -> None:
    lines = path.read_text().splitlines()
    result = json.loads(lines[-1])
    result.update(is_error=True, subtype="error_during_execution")
    path.write_text("\n".join([*lines[:-1], json.dumps(result)]) + "\n")


@pytest.mark.parametrize("change", ["killed", "error", "other-leaf", "no-last-prompt"])
def test_a_session_truly_without_its_answer_stays_incomplete(tmp_path: Path, change: str) -> None:
    stdout, transcript = _pair(tmp_path)
    if change == "killed":  # no `result`: the CLI did not finish its turn
        _rewrite(stdout, _killed)
    elif change == "error":
        _error(stdout)
    elif change == "other-leaf":  # the CLI's own record names another message as its leaf
        text = transcript.read_text().replace(ANSWER, "0" * 8 + ANSWER[8:])
        transcript.write_text(text)
    else:
        _rewrite(transcript, lambda r: r.get("type") != "last-prompt")
    before = transcript.read_bytes()
    assert recover_final_message(stdout, transcript, 1796058114.5) is None
    assert transcript.read_bytes() == before
    assert not normalize_claude_transcript(transcript).complete


def _committing_repo(root: Path) -> tuple[Path, Path, Path]:
    """test_git_subcommand_agents' repository, with a change staged: the commit succeeds."""
    import subprocess

    from tests.pipeline import test_git_subcommand_agents as git_cases

    repo, source, behaviors = git_cases._eval_repo(root)
    staged = repo / "targets/commit-msg/fixtures/staged"
    (staged / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    subprocess.run(["git", "-C", str(staged), "add", "-A"], check=True)
    steps = [
        {"write": {"path": "COMMIT_MSG.txt", "content": "fix(calc): add, not subtract\n"}},
        {"cmd": "git -c user.name=a -c user.email=a@a commit -q -F COMMIT_MSG.txt"},
        {"final": "Committed `fix(calc): add, not subtract` from COMMIT_MSG.txt."},
    ]
    for case in git_cases.CASES:
        prompt = git_cases.CASES[case][0]
        behavior = {"name": case, "match": {"prompt_contains": prompt}, "steps": steps}
        (behaviors / f"{case}.yaml").write_text(json.dumps(behavior))
    return repo, source, behaviors


@pytest.mark.claude
@pytest.mark.minutes(1)
def test_a_turn_that_commits_then_answers_is_never_left_incomplete(tmp_path: Path) -> None:
    """The real CLI, 5 attempts of each of 4 cases that commit and answer: every attempt
    judged (the forbidden commit seen: `fail`), none `blocked` as `session incomplete`. On
    `main` 1 in 30 to 4 in 18 such attempts was (the race is the CLI's, so a run of this test
    may not meet it; the recorded pair above always does)."""
    from tests.support import agent_or_skip, layers_or_skip, run_scripted

    runner = agent_or_skip("claude")
    layers_or_skip(trace=True, jail=True)
    repo, source, behaviors = _committing_repo(tmp_path)
    outcome = run_scripted(
        repo, behaviors, tmp_path / "runs", source_workspace=source, agent=runner, attempts=5
    )
    for result in outcome.results:
        assert result.status == "fail", (result.case_id, result.notes)
        assert not any("incomplete" in note for note in result.notes), result.notes
