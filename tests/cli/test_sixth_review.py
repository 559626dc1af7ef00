"""What the sixth new user met (docs/first-hour.md, "Sixth review"): a skill kept in the
project's `skills/` folder, as `agentic-eval init --skill skills/NAME` and docs/first-target.md
lay it out."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.test_skill_author import run_cli, write

SKILL_BODY = """\
---
name: commit-msg
description: Write a Conventional Commits message for the staged changes. Use when the user asks for a commit message.
---

# Commit messages

1. Read `references/types.md` to pick the type of the change you describe.
2. Write the message to `COMMIT_MSG.txt` at the repository root, one summary line first.
3. Never run `git commit` yourself: the user commits after reading your message.
"""
TYPES = "# Types\n\n- feat: a new feature visible to the user of the project\n"
# prompt: (should fire, what the scripted agent reads)
PROMPTS = {
    "Write a commit message through the link": (True, ".agents/skills/commit-msg/SKILL.md"),
    "Write a commit message from the project": (True, "skills/commit-msg/SKILL.md"),
    "List the commit types only": (False, "skills/commit-msg/references/types.md"),
}


@pytest.mark.slow
@pytest.mark.codex
def test_a_skill_linked_into_the_workspace_fires_when_codex_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`init --skill skills/commit-msg` targets a skill outside `.agents/skills/`; each attempt
    links it there (`link_skill`). Codex fires a skill when its SKILL.md body reaches the agent,
    and a read is placed where the workspace resolves it: a `cat` through the link (the path
    Codex lists) or of the project's own path reached `skills/commit-msg/SKILL.md`, which was not
    the installed skill's `.agents/skills/commit-msg/SKILL.md`. Every should-fire prompt was
    `MISSED` and the run `SUSPECT (nothing-fired)`. Both now fire; a read of another of the
    skill's files still does not."""
    from tests.support import codex_or_skip, scratch_dir

    codex_or_skip()
    project = tmp_path / "project"
    write(project / "skills/commit-msg/SKILL.md", SKILL_BODY)
    write(project / "skills/commit-msg/references/types.md", TYPES)
    monkeypatch.chdir(project)
    assert run_cli(["init", "--skill", "skills/commit-msg"], capsys)[0] == 0
    target = project / "agentic-evals/targets/commit-msg"
    queries = [{"query": q, "should_trigger": fire} for q, (fire, _) in PROMPTS.items()]
    write(target / "triggers.json", json.dumps(queries))
    with (target / "target.yaml").open("a") as handle:
        handle.write("trigger_suite: triggers.json\n")
    behaviors = tmp_path / "behaviors"
    for number, (prompt, (_, path)) in enumerate(PROMPTS.items()):
        steps = [{"cmd": f"cat {path}"}, {"final": "Done."}]
        behaviour = {"name": f"q-{number}", "match": {"prompt_contains": prompt}, "steps": steps}
        write(behaviors / f"q-{number}.yaml", json.dumps(behaviour))
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["triggers", "--behaviors", str(behaviors), "--attempts", "1"]
        argv += ["--runs-dir", str(runs), "--run-id", "t", "--scratch-root", str(scratch)]
        code, out, _ = run_cli(argv, capsys)
    prompts = json.loads((runs / "t/triggers.json").read_text())["prompts"]
    fired = {p["prompt"]: p["fired"] for p in prompts}
    assert fired == {prompt: int(fire) for prompt, (fire, _) in PROMPTS.items()}, out
    assert code == 0, out


def _init_project(tmp_path: Path, capsys: pytest.CaptureFixture[str], sentence: str) -> Path:
    """`init --skill skills/commit-msg`, its first case's criterion replaced by `sentence`."""
    project = tmp_path / "project"
    write(project / "skills/commit-msg/SKILL.md", SKILL_BODY)
    write(project / "skills/commit-msg/references/types.md", TYPES)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        assert run_cli(["init", "--skill", "skills/commit-msg"], capsys)[0] == 0
    case = project / "agentic-evals/targets/commit-msg/cases/basics/commit-msg-reads-types.yaml"
    text = case.read_text()
    old = "consultation of `skills/commit-msg/references/types.md`."
    assert old in text
    text = text.replace(old, sentence)
    # Prose alone, as an author writes it (the checks init wrote would decide first).
    text = text.split("    checks:\n")[0] + "golden:" + text.split("golden:")[1]
    case.write_text(text)
    return project


@pytest.mark.parametrize(
    ("named", "hint"),
    [
        # Through the link Codex lists the skill at: the skill's own path is named.
        (".agents/skills/commit-msg/references/types.md", "skills/commit-msg/references/types.md"),
        (".claude/skills/commit-msg/references/types.md", "skills/commit-msg/references/types.md"),
        # Look-alikes: a typo under the link, or outside it, gets the warning alone.
        (".agents/skills/commit-msg/references/type.md", None),
        ("skills/commit-msg/references/type.md", None),
    ],
)
def test_a_read_through_the_skills_link_names_the_skills_own_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], named: str, hint: str | None
) -> None:
    """A skill in `skills/commit-msg/` is linked at `.agents/skills/commit-msg/` in each attempt,
    where Codex lists it: an author who names that path ("consultation of
    `.agents/skills/commit-msg/references/types.md`") was told only that it "matches no file the
    workspace can contain", which reads as false (the agent can read it there), and not what to
    write. Reads are judged by the file they reach, so the check can never pass: the warning
    now names the skill's own path."""
    project = _init_project(tmp_path, capsys, f"consultation of `{named}`.")
    code, _, err = run_cli(["validate", "--repo", str(project / "agentic-evals")], capsys)
    assert code == 0
    assert f"compiles to a read of {named!r}, which matches no file" in err
    if hint is None:
        assert "is a link each attempt makes" not in err
    else:
        assert (
            f"`{named.split('references')[0]}` is a link each attempt makes to the skill's own"
            f" folder `skills/commit-msg/`, and a read is judged by the file it reaches:"
            f" name {hint!r}"
        ) in err


def test_a_checks_read_through_the_skills_link_names_the_skills_own_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same path in structured `checks:` is refused (exit 2) with the same pointer."""
    project = _init_project(tmp_path, capsys, "consultation of `skills/commit-msg/SKILL.md`.")
    case = project / "agentic-evals/targets/commit-msg/cases/basics/commit-msg-reads-skill.yaml"
    text = case.read_text().replace(
        "path: skills/commit-msg/SKILL.md", "path: .agents/skills/commit-msg/SKILL.md"
    )
    case.write_text(text)
    code, _, err = run_cli(["validate", "--repo", str(project / "agentic-evals")], capsys)
    assert code == 2
    assert "'.agents/skills/commit-msg/SKILL.md' matches no file" in err
    assert "name 'skills/commit-msg/SKILL.md'" in err


def test_the_agents_skill_folders_are_hidden_folders_skills() -> None:
    """`linked_path_hint` knows an agent's skills folder by its shape, naming no agent."""
    from evaluator.adapters import all_adapters

    for adapter in all_adapters():
        assert re.fullmatch(r"\.[\w-]+/skills", str(adapter.skill_dir)), adapter.skill_dir


def test_a_behaviour_text_read_as_a_mapping_says_to_quote_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `cmd` or `final` text holding `: ` on a line of its own is a mapping to YAML: pydantic's
    "Input should be a valid string" now says why, and what to do."""
    project = _init_project(tmp_path, capsys, "consultation of `skills/commit-msg/SKILL.md`.")
    behaviors = tmp_path / "behaviors"
    write(
        behaviors / "b.yaml",
        "name: b\nmatch:\n  prompt_contains: commit-msg\nsteps:\n- final:\n    Linted: ok\n",
    )
    repo = str(project / "agentic-evals")
    code, _, err = run_cli(["validate", "--repo", repo, "--behaviors", str(behaviors)], capsys)
    assert code == 2
    assert err.strip().endswith(
        "b.yaml:6:5: steps[0].final: Input should be a valid string (YAML read 'Linted: ok' as a"
        " mapping at its ': '; put the whole text in quotes)"
    ), err


@pytest.mark.slow
@pytest.mark.codex
def test_allow_blocked_does_not_forgive_an_agent_that_left_its_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One case passes; in the other the agent reads a file outside its workspace, twice (the
    retry too): `blocked (insufficient-evidence; the agent's, counted as not passed)`. `run
    --allow-blocked` exited 0 on `main`: a green CI job for a skill whose agent escaped."""
    from tests.support import codex_or_skip, layers_or_skip, scratch_dir

    codex_or_skip()
    layers_or_skip(trace=True, jail=True)
    project = _init_project(tmp_path, capsys, "consultation of `skills/commit-msg/SKILL.md`.")
    target = project / "agentic-evals/targets/commit-msg"
    escape = target / "behaviors/good/commit-msg-reads-types.yaml"
    escape.write_text(
        escape.read_text().replace(
            "cat skills/commit-msg/references/types.md",
            "cat skills/commit-msg/references/types.md /etc/hostname",
        )
    )
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["run", "--repo", str(project / "agentic-evals"), "--allow-blocked"]
        argv += ["--behaviors", str(target / "behaviors/good"), "--runs-dir", str(runs)]
        argv += ["--run-id", "r", "--scratch-root", str(scratch)]
        code, out, _ = run_cli(argv, capsys)
    assert "commit-msg-reads-skill                   pass" in out or "pass 1," in out, out
    assert code == 1, out
    assert (
        "exit 1: 1 case blocked by the agent's own doing, counted as not passed:"
        " commit-msg-reads-types: "
    ) in out
    assert "isolation violation" in out


def test_a_behaviour_without_a_final_step_is_said_at_its_steps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was `b.yaml:1:1: <document>: ... not a branch`, for a last step that was a `cmd`."""
    project = _init_project(tmp_path, capsys, "consultation of `skills/commit-msg/SKILL.md`.")
    behaviors = tmp_path / "behaviors"
    write(
        behaviors / "b.yaml",
        "name: b\nmatch:\n  prompt_contains: commit-msg\nsteps:\n- cmd: ls\n",
    )
    repo = str(project / "agentic-evals")
    code, _, err = run_cli(["validate", "--repo", repo, "--behaviors", str(behaviors)], capsys)
    assert code == 2
    assert err.strip().endswith(
        "b.yaml:5:1: steps: the last step must be `final` (or `final_json`, `http_error`), not"
        " `cmd`: add a `final` step after steps[0]"
    ), err


@pytest.mark.slow
@pytest.mark.codex
def test_a_case_whose_every_attempt_timed_out_says_what_to_try(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "Suggested Next Fixes" said `None.` for a case blocked because every attempt timed out:
    it now names the case file, the time, and both ways out (a longer `timeout_s`, or the
    transcript's last call)."""
    from tests.support import codex_or_skip, scratch_dir

    codex_or_skip()
    project = _init_project(tmp_path, capsys, "consultation of `skills/commit-msg/SKILL.md`.")
    target = project / "agentic-evals/targets/commit-msg"
    slow = tmp_path / "slow"
    steps = [{"cmd": "sleep 20", "yield_time_ms": 30000}, {"final": "Done."}]
    behaviour = {"name": "slow", "match": {"prompt_contains": "commit-msg skill covers"}}
    write(slow / "slow.yaml", json.dumps({**behaviour, "steps": steps}))
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["run", "--repo", str(project / "agentic-evals"), "--timeout", "3"]
        argv += ["--case", "commit-msg-reads-skill", "--behaviors", str(slow)]
        argv += ["--runs-dir", str(runs), "--run-id", "r", "--scratch-root", str(scratch)]
        code, out, _ = run_cli(argv, capsys)
    assert code == 1, out
    fixes = (runs / "r/report.md").read_text().split("## Suggested Next Fixes", 1)[1]
    case = target.relative_to(project) / "cases/basics/commit-msg-reads-skill.yaml"
    assert f"1. `{case.as_posix()}`: every attempt timed out (the agent was stopped after" in fixes
    assert "raise the case's `timeout_s` (or `--timeout`)" in fixes, fixes
