"""`agentic-eval triggers` on real agents: the demo target beside two distractor skills
(tests/fixtures/trigger-run/skills), scripted agents that pick the skill whose description says
what the prompt asks (`request_contains`), three descriptions of db-migrations: a good one
(recall and precision 1.0), a vague one (nothing fires) and an overlapping one (it steals the
distractors' prompts). K = 3, trigger-only, under Codex and Claude Code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from evaluator.pipeline.run import RunOptions
from evaluator.pipeline.triggers import TriggerOptions, TriggerRun
from tests.conftest import DEMO_REPO, ROOT
from tests.support import (
    agent_or_skip,
    agent_params,
    claude_or_skip,
    codex_or_skip,
    gemini_or_skip,
    scratch_dir,
)

FIXTURES = ROOT / "tests/fixtures/trigger-run"
RUNNERS = {"codex": "codex-exec", "claude": "claude-code", "gemini": "gemini-cli"}
AGENTS = [
    pytest.param(agent, marks=[getattr(pytest.mark, agent), pytest.mark.slow])
    for agent in ("codex", "claude")
]


def source_workspace(
    root: Path, distractors: tuple[str, ...] = ("pdf-forms", "csv-report")
) -> Path:
    """The demo's skill and eval repo, with the distractors and the trigger set declared."""
    shutil.copytree(ROOT / ".agents/skills/db-migrations", root / ".agents/skills/db-migrations")
    for skill in distractors:
        shutil.copytree(FIXTURES / "skills" / skill, root / ".agents/skills" / skill)
    repo = root / "agentic-evals"
    shutil.copytree(DEMO_REPO, repo, ignore=shutil.ignore_patterns("runs"))
    shutil.copytree(ROOT / "skill-eval", root / "skill-eval")
    target = repo / "targets/db-migrations"
    shutil.copy(FIXTURES / "triggers.yaml", target / "triggers.yaml")
    with (target / "target.yaml").open("a") as handle:
        handle.write(
            'trigger_suite: "triggers.yaml"\n'
            "distractor_skills: ["
            + ", ".join(f'".agents/skills/{skill}"' for skill in distractors)
            + "]\n"
        )
    return repo


def trigger_run(
    scratch: Path,
    agent: str,
    description: str,
    *,
    attempts: int = 3,
    distractors: tuple[str, ...] = ("pdf-forms", "csv-report"),
    trigger_file: Path | None = None,
    behaviors: Path = FIXTURES / "behaviors",
) -> tuple[Path, dict[str, Any]]:
    (scratch / "source").mkdir(parents=True, exist_ok=True)
    repo = source_workspace(scratch / "source", distractors)
    options = RunOptions(
        repo=repo,
        agent=RUNNERS[agent],
        attempts=attempts,
        behaviors=behaviors,
        runs_dir=scratch / "runs",
        scratch_root=scratch / "scratch",
        timeout_s=90,
        skill_text=(FIXTURES / "descriptions" / f"{description}.md").read_text(),
    )
    outcome = TriggerRun(options, TriggerOptions(trigger_file=trigger_file)).execute()
    assert not outcome.interrupted
    run = outcome.run_dir.path
    _check_schemas(run)
    return run, json.loads((run / "triggers.json").read_text())


def _check_schemas(run: Path) -> None:
    """Every artifact of the trigger run matches its committed schema."""
    for kind, pattern in (
        ("trigger-run", "triggers.json"),
        ("trigger-plan", "trigger-plan.json"),
        ("trigger-attempt", "case-artifacts/*/attempts/attempt-*/trigger.json"),
    ):
        schema = json.loads((ROOT / "schemas" / f"{kind}.schema.json").read_text())
        paths = list(run.glob(pattern))
        assert paths, pattern
        for path in paths:
            jsonschema.Draft202012Validator(schema).validate(json.loads(path.read_text()))


def _prompts(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in data["prompts"]}


def _observations(run: Path) -> list[dict[str, Any]]:
    return [
        json.loads(path.read_text())
        for path in sorted(run.glob("case-artifacts/*/attempts/attempt-*/trigger.json"))
    ]


def _skip_without(agent: str) -> None:
    if agent == "codex":
        codex_or_skip()
    else:
        claude_or_skip()


def plant(root: Path, folder: str, description: str) -> None:
    skill = root / folder
    skill.mkdir(parents=True)
    name = Path(folder).name
    (skill / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nPlanted.\n"
    )


@pytest.mark.parametrize("agent", AGENTS)
def test_the_good_description_fires_exactly_on_its_prompts(
    agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same-name and stray skills planted in the user's home and the source workspace, with
    descriptions that would take every prompt, change nothing: an attempt sees only what was
    installed for it."""
    _skip_without(agent)
    greedy = "Use when the user asks to change the database schema, CSV files and forms included."
    with scratch_dir() as scratch:
        home = scratch / "home"
        for folder in (".agents/skills/db-migrations", ".claude/skills/db-migrations"):
            plant(home, folder, greedy)
        plant(scratch / "source", ".claude/skills/db-migrations", greedy)
        plant(scratch / "source", ".agents/skills/planted", greedy)
        monkeypatch.setenv("HOME", str(home))
        run, data = trigger_run(scratch, agent, "good")
        assert data["over_prompts"]["recall"] == 1.0
        assert data["over_prompts"]["precision"] == 1.0
        assert data["over_attempts"]["recall"] == 1.0
        assert data["over_attempts"]["precision"] == 1.0
        assert data["suspect"] is None and data["invalid_attempts"] == 0
        prompts = _prompts(data)
        assert [prompts[p]["fired"] for p in ("add-column", "rename-table")] == [3, 3]
        # Which skill fired instead is reported: each distractor took its own prompt.
        assert prompts["fill-pdf"]["others"] == {"pdf-forms": 3}
        assert prompts["csv-summary"]["others"] == {"csv-report": 3}
        observed = _observations(run)
        assert len(observed) == 15
        for seen in observed:
            assert seen["registry"]["problems"] == [], seen["registry"]
            for trigger in seen["triggers"]:
                assert trigger["first"] is True and trigger["ref"].endswith(trigger["record"])
            if seen["prompt_id"] in ("add-column", "rename-table"):
                # Trigger-only: the agent loads the skill and goes on working (a 4 s command);
                # it is stopped once the load shows in its session.
                assert seen["stopped_at_decision"] is True
        report = (run / "report.md").read_text()
        assert "## Triggers: db-migrations" in report
        assert "| should fire | 2 | 0 |" in report and "| should not fire | 0 | 3 |" in report
        assert "<h2>Triggers: db-migrations</h2>" in (run / "report.html").read_text()


@pytest.mark.parametrize("agent", AGENTS)
def test_the_vague_description_misses_and_the_overlapping_one_steals(agent: str) -> None:
    _skip_without(agent)
    with scratch_dir() as scratch:
        vague_run, vague = trigger_run(scratch / "vague", agent, "vague")
        assert vague["over_prompts"]["recall"] is not None
        fixes = (vague_run / "report.md").read_text().split("## Suggested Next Fixes", 1)[1]
        assert "the `description` in its front matter: the agent did not load the skill" in fixes
        assert vague["over_prompts"]["recall"] <= 0.5
        assert vague["suspect"] is not None and vague["suspect"]["kind"] == "nothing-fired"
        run, overlapping = trigger_run(scratch / "overlapping", agent, "overlapping")
        prompts = _prompts(overlapping)
        for stolen in ("fill-pdf", "csv-summary"):
            assert prompts[stolen]["fired"] >= 2 and prompts[stolen]["misfires"] is True
        assert overlapping["over_prompts"]["recall"] == 1.0
        report = (run / "report.md").read_text()
        misfires = report.split("### Prompts that missed or misfired", 1)[1]
        assert "| fill-pdf |" in misfires and "| csv-summary |" in misfires
        assert "it should not (`fill-pdf`, `csv-summary`)" in report


@pytest.mark.parametrize("agent", AGENTS)
def test_a_skill_shadowing_the_target_makes_every_attempt_invalid(agent: str) -> None:
    """A distractor whose front matter takes the target's name: under an agent that names skills
    by their front matter (Codex) the registry check names the shadowing copy, every attempt
    (and its one rerun) is invalid, nothing is counted, and the run is flagged with that cause;
    under Claude Code, which names them by folder, nothing is shadowed. The trigger set is given
    by path, as a CSV."""
    _skip_without(agent)
    with scratch_dir() as scratch:
        run, data = trigger_run(
            scratch,
            agent,
            "good",
            attempts=1,
            distractors=("pdf-forms", "impostor"),
            trigger_file=FIXTURES / "triggers.csv",
        )
        assert data["format"] == "csv"
        if agent == "claude":
            # Claude Code names a skill by its folder, not its front matter (docs/agents.md,
            # "How each agent names a skill"): the impostor is listed as `impostor` and shadows
            # nothing, so every attempt is a valid measurement.
            assert data["invalid_attempts"] == 0
            for seen in _observations(run):
                assert seen["invalid"] is None, seen
                listed = {s["name"] for s in seen["registry"]["skills"]}
                assert {"db-migrations", "impostor"} <= listed
                assert seen["registry"]["reported"] == sorted(listed)
            return
        assert data["invalid_attempts"] == 5
        assert all(p["triggered"] is None for p in data["prompts"])
        assert data["suspect"]["kind"] == "nothing-fired"
        assert "shadows skill 'db-migrations'" in data["suspect"]["causes"][0]
        observed = _observations(run)
        assert len(observed) == 10  # each attempt and its rerun
        assert all("unclean skill registry" in seen["invalid"] for seen in observed)
        result = json.loads((run / "case-results/add-column.json").read_text())
        assert result["status"] == "blocked"


MAKE_OWN_SKILL = (
    'import os; d = os.path.join(".claude", "skills", "mine"); os.makedirs(d);'
    ' open(os.path.join(d, "SKILL.md"), "w").write("---\\nname: mine\\n---\\n")'
)


def _miss_after_command(
    tmp_path: Path, command: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A Claude Code trigger run of one should-fire prompt the agent misses, running `command`
    and answering without the skill: its `triggers.json` and its attempts' observations."""
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "add-column.yaml").write_text(
        json.dumps(
            {
                "name": "add-column-misses",
                "match": {"prompt_contains": "avatar_url column"},
                "steps": [{"cmd": command}, {"final": "Done."}],
            }
        )
    )
    triggers = tmp_path / "one.yaml"
    triggers.write_text(
        'trigger_suite_id: "one"\nskill: "db-migrations"\ncases:\n'
        '  - {id: "add-column", prompt: "Add a nullable avatar_url column to the users table.",'
        " expect_trigger: true}\n"
    )
    with scratch_dir() as scratch:
        run, data = trigger_run(
            scratch, "claude", "good", attempts=1, trigger_file=triggers, behaviors=behaviors
        )
        return data, _observations(run)


@pytest.mark.claude
def test_round_eight_a_miss_cannot_make_itself_invalid(tmp_path: Path) -> None:
    """Red team, round 8 (docs/isolation.md): a should-fire prompt the agent misses, after
    which it makes a skill folder of its own in the workspace (Claude Code; Codex's sandbox
    keeps `.agents` read-only). The registry was checked after the run: unclean, the attempt
    and its rerun invalid, and the miss never counted. Checked as launched, the miss counts."""
    claude_or_skip()
    data, (seen,) = _miss_after_command(tmp_path, f"python3 -c '{MAKE_OWN_SKILL}'")
    assert data["invalid_attempts"] == 0
    (prompt,) = data["prompts"]
    assert (prompt["fired"], prompt["attempts"], prompt["triggered"]) == (0, 1, False)
    assert seen["registry"]["problems"] == [] and seen["fired"] is False


# Red team, round 10: a copy of the agent's own transcript in another project folder of its
# store (by Python: Claude Code asks before a command that names its config directory).
DUPLICATE_TRANSCRIPT = (
    "import glob, os, shutil; d = os.environ['CLAUDE_CONFIG_DIR'] + '/projects';"
    " f = glob.glob(d + '/*/*.jsonl')[0]; os.makedirs(d + '/copy'); shutil.copy(f, d + '/copy/')"
)


@pytest.mark.claude
def test_round_ten_a_miss_cannot_make_itself_invalid_by_duplicating_its_session(
    tmp_path: Path,
) -> None:
    """Red team, round 10 (docs/isolation.md): a should-fire prompt the agent misses, after
    which it copies its own transcript into another project folder of its store. The store
    held two transcripts for the session: the attempt and its rerun were invalid, blamed on the
    eval, and the miss never counted. A tool call's change of the store, in the trace, makes it
    an isolation violation, counted as the outcome not expected."""
    claude_or_skip()
    data, seen = _miss_after_command(tmp_path, f'python3 -c "{DUPLICATE_TRANSCRIPT}"')
    assert seen and all(o["invalid"].startswith("isolation violation: ") for o in seen), seen
    (prompt,) = data["prompts"]
    assert (prompt["fired"], prompt["attempts"], prompt["triggered"]) == (0, 1, False), prompt


@pytest.mark.parametrize("agent", agent_params("claude", "gemini"))
def test_round_ten_a_skill_a_helper_loads_fired_in_the_attempt(agent: str, tmp_path: Path) -> None:
    """Red team, round 10 (docs/isolation.md): on a prompt the skill should not fire for, the
    agent hands the work to a helper (Claude Code's Agent tool), which loads the skill with its
    `Skill` tool. The trigger signal read the parent's session alone: the skill never fired,
    counted as right. A skill a spawned session loaded fired in the attempt. Round 11b played it
    through Gemini CLI (`invoke_agent`, then `activate_skill`): already caught, kept as the one
    test of a Gemini CLI helper's session in a trigger run."""
    agent_or_skip(agent)
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    documents = [
        {
            "name": "root",
            "match": {"prompt_contains": "quarterly revenue chart", "thread": "root"},
            "steps": [{"spawn": {"message": "helper task: do the chart"}}, {"final": "Done."}],
        },
        {
            "name": "helper",
            "match": {"prompt_contains": "helper task", "thread": "child"},
            "steps": [{"skill": "db-migrations"}, {"final": "Done it."}],
        },
    ]
    for document in documents:
        (behaviors / f"{document['name']}.yaml").write_text(json.dumps(document))
    triggers = tmp_path / "one.yaml"
    triggers.write_text(
        'trigger_suite_id: "one"\nskill: "db-migrations"\ncases:\n'
        '  - {id: "chart", prompt: "Draw the quarterly revenue chart as an SVG.",'
        " expect_trigger: false}\n"
    )
    with scratch_dir() as scratch:
        run, data = trigger_run(
            scratch, agent, "good", attempts=1, trigger_file=triggers, behaviors=behaviors
        )
        (seen,) = _observations(run)
    assert seen["fired"] is True, json.dumps(seen)
    (prompt,) = data["prompts"]
    assert (prompt["fired"], prompt["attempts"], prompt["triggered"]) == (1, 1, True), prompt


@pytest.mark.codex
@pytest.mark.slow
def test_score_holds_the_trigger_f1_of_a_description_to_min_f1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """What a description optimiser runs: `score --metric trigger-f1 --skill CANDIDATE`, PASS
    for the good description, FAIL for the overlapping one; `triggers --json` for the numbers."""
    from evaluator.cli.main import main

    codex_or_skip()
    with scratch_dir() as scratch:
        repo = source_workspace(scratch / "source")
        common = [
            "--repo",
            str(repo),
            "--attempts",
            "1",
            "--behaviors",
            str(FIXTURES / "behaviors"),
        ]
        common += ["--runs-dir", str(scratch / "runs"), "--scratch-root", str(scratch / "s")]
        verdicts = {}
        for description in ("good", "overlapping"):
            candidate = str(FIXTURES / "descriptions" / f"{description}.md")
            with pytest.raises(SystemExit) as exit_info:
                main(["score", "--metric", "trigger-f1", "--skill", candidate, *common])
            last = capsys.readouterr().out.strip().splitlines()[-1]
            verdicts[description] = (exit_info.value.code, last.split()[:2])
        assert verdicts == {
            "good": (0, ["VERDICT:", "PASS"]),
            "overlapping": (1, ["VERDICT:", "FAIL"]),
        }
        with pytest.raises(SystemExit) as exit_info:
            main(["triggers", "--json", *common])
        assert exit_info.value.code == 0
        payload = json.loads(capsys.readouterr().out)
        assert payload["triggers"]["over_prompts"]["f1"] == 1.0


@pytest.mark.codex
@pytest.mark.slow
def test_an_interrupted_trigger_run_resumes_its_own_plan(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`triggers --resume ID` runs only the prompts without a result, with the prompts and the
    candidate the run started with (the trigger file is kept in the run, so editing it
    meanwhile changes nothing), lists the stopped attempts as interrupted, and writes the
    metrics over every prompt. `run --resume` of a trigger run and `triggers --resume` of a
    plain run are refused with one line."""
    from evaluator.cli.main import main

    codex_or_skip()
    with scratch_dir() as scratch:
        repo = source_workspace(scratch / "source")
        runs = scratch / "runs"
        common = [
            "--repo",
            str(repo),
            "--runs-dir",
            str(runs),
            "--scratch-root",
            str(scratch / "s"),
        ]
        trigger_file = scratch / "triggers.csv"
        trigger_file.write_text(
            "id,should_trigger,prompt\n"
            "add-column,true,Add a nullable avatar_url column to the users table.\n"
            "fill-pdf,false,Fill the name field of intake.pdf with Ada Lovelace.\n"
        )
        candidate = str(FIXTURES / "descriptions" / "good.md")
        first = ["--behaviors", str(FIXTURES / "behaviors"), "--attempts", "2", "--run-id", "t"]
        first += ["--triggers", str(trigger_file), "--skill", candidate]
        with pytest.raises(SystemExit) as exit_info:
            main(["triggers", *common, *first])
        assert exit_info.value.code == 0
        run = runs / "t"
        kept = (run / "case-results/fill-pdf.json").read_bytes()
        # As a stopped run leaves it: one prompt without a result, the manifest interrupted.
        (run / "case-results/add-column.json").unlink()
        manifest = json.loads((run / "manifest.json").read_text())
        (run / "manifest.json").write_text(json.dumps({**manifest, "run_state": "interrupted"}))
        trigger_file.write_text("id,should_trigger,prompt\nother,true,Something else.\n")
        capsys.readouterr()
        with pytest.raises(SystemExit) as exit_info:
            main(["triggers", *common, "--resume", "t", "--json"])
        assert exit_info.value.code == 0, capsys.readouterr().err
        data = json.loads(capsys.readouterr().out)["triggers"]
        assert [(p["id"], p["fired"], p["attempts"]) for p in data["prompts"]] == [
            ("add-column", 2, 2),
            ("fill-pdf", 0, 2),
        ]
        assert data["over_prompts"]["f1"] == 1.0 and data["attempts"] == 2
        assert (run / "case-results/fill-pdf.json").read_bytes() == kept  # not run again
        result = json.loads((run / "case-results/add-column.json").read_text())
        assert [(a["attempt"], a["interrupted"]) for a in result["attempts"]] == [
            (1, True),
            (2, True),
            (3, False),
            (4, False),
        ]
        assert json.loads((run / "manifest.json").read_text())["run_state"] == "completed"
        _check_schemas(run)
        with pytest.raises(SystemExit) as exit_info:
            main(["run", *common, "--resume", "t"])
        err = capsys.readouterr().err
        assert exit_info.value.code == 2
        assert "run t is a trigger run: resume it with `agentic-eval triggers --resume t`" in err
        with pytest.raises(SystemExit) as exit_info:
            main(["triggers", *common, "--resume", "t", "--triggers", str(trigger_file)])
        assert exit_info.value.code == 2
        assert "--resume takes the plan of the trigger run" in capsys.readouterr().err


@pytest.mark.claude
@pytest.mark.slow
def test_a_server_left_running_does_not_hold_a_full_trigger_attempt_to_its_timeout() -> None:
    """A run to the end (not trigger-only) whose agent loads the skill, starts a server in the
    background and answers: once the CLI has exited, what its tool call left running is stopped,
    as in a case's attempt, and the attempt counts; the server never holds the tracer until the
    timeout. Under Claude Code: Codex's sandbox ends a command's processes with the command."""
    claude_or_skip()
    with scratch_dir() as scratch:
        behaviors = scratch / "behaviors"
        behaviors.mkdir()
        (behaviors / "add-column.yaml").write_text(
            "name: add-column\nmatch:\n  prompt_contains: avatar_url column\nsteps:\n"
            "- skill: db-migrations\n"
            "- cmd: nohup python3 -c 'import time; time.sleep(600)' >/dev/null 2>&1 &\n"
            "- final: Done.\n"
        )
        trigger_file = scratch / "triggers.csv"
        trigger_file.write_text(
            "id,should_trigger,prompt\n"
            "add-column,true,Add a nullable avatar_url column to the users table.\n"
        )
        (scratch / "source").mkdir()
        options = RunOptions(
            repo=source_workspace(scratch / "source"),
            agent=RUNNERS["claude"],
            attempts=1,
            behaviors=behaviors,
            runs_dir=scratch / "runs",
            scratch_root=scratch / "scratch",
            timeout_s=60,
        )
        outcome = TriggerRun(
            options, TriggerOptions(trigger_file=trigger_file, trigger_only=False)
        ).execute()
        [seen] = _observations(outcome.run_dir.path)
        attempt = json.loads(
            next(
                outcome.run_dir.path.glob("case-artifacts/add-column/attempts/*/attempt.json")
            ).read_text()
        )
        assert attempt["timed_out"] is False, attempt["reason"]
        assert seen["stopped_at_decision"] is False
        assert attempt["status"] == "pass", (attempt["status"], attempt["reason"])


def _one_prompt_run(
    tmp_path: Path, agent: str, prompt: str, expect: bool, steps: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One attempt of one prompt whose scripted agent takes `steps`: (each try's
    `trigger.json`, the prompt's result)."""
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "one.yaml").write_text(
        json.dumps({"name": "one", "match": {"prompt_contains": prompt[:20]}, "steps": steps})
    )
    triggers = tmp_path / "one.yaml"
    triggers.write_text(
        'trigger_suite_id: "one"\nskill: "db-migrations"\ncases:\n'
        f'  - {{id: "one", prompt: "{prompt}", expect_trigger: {str(expect).lower()}}}\n'
    )
    with scratch_dir() as scratch:
        run, data = trigger_run(
            scratch, agent, "good", attempts=1, trigger_file=triggers, behaviors=behaviors
        )
        seen = _observations(run)
    (result,) = data["prompts"]
    return seen, result


# Red team, round 11b: an older copy of the target under another folder name, in the
# workspace's `.agents/skills` (a root of the target: a real repository may list the folder).
STALE_COPY = (
    "---\nname: db-migrations\ndescription: Add a column to a SQLite table with a numbered"
    " migration.\n---\n\n# db-migrations (v1)\n\nEdit schema.sql by hand. No script.\n"
)


@pytest.mark.gemini
def test_round_eleven_b_a_same_name_skill_in_agents_skills_makes_the_attempt_invalid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team, round 11b (docs/isolation.md): Gemini CLI 0.61.0 also discovers skills in
    the workspace's `.agents/skills` (and its home's), where a skill overrides a same-name one
    in `.gemini/skills`. With a stale copy named `db-migrations` in
    `.agents/skills/old-db-migrations`, the CLI saw two skills of that name (it warns of the
    conflict; which one `activate_skill` loads is its listing's order), but the registry check
    listed `.gemini/skills` alone: clean, and the attempt counted as the target firing. Checked
    where the CLI looks, the registry is unclean: the attempt is invalid, never counted."""
    gemini_or_skip()
    real_source = source_workspace

    def with_stale_copy(root: Path, distractors: tuple[str, ...] = ()) -> Path:
        repo = real_source(root, distractors)
        stale = root / ".agents/skills/old-db-migrations"
        stale.mkdir(parents=True)
        (stale / "SKILL.md").write_text(STALE_COPY)
        target = repo / "targets/db-migrations/target.yaml"
        text = target.read_text()
        target.write_text(
            text.replace("roots:\n", 'roots:\n  - ".agents/skills/old-db-migrations"\n')
        )
        return repo

    monkeypatch.setattr(f"{__name__}.source_workspace", with_stale_copy)
    seen, result = _one_prompt_run(
        tmp_path,
        "gemini",
        "Add a nullable avatar_url column to the users table.",
        True,
        [{"skill": "db-migrations"}, {"final": "Done."}],
    )
    assert len(seen) == 2, json.dumps(seen)  # the attempt and its rerun
    for tried in seen:
        assert "a same-name copy shadows skill 'db-migrations'" in tried["invalid"], tried
        assert "old-db-migrations" in tried["invalid"], tried
    assert (result["attempts"], result["invalid"]) == (0, 1), result


@pytest.mark.gemini
def test_round_eleven_b_look_alike_the_skill_linked_into_gemini_skills_is_one_skill(
    tmp_path: Path,
) -> None:
    """The look-alike of the above: the demo's skills lie in `.agents/skills` and the runner
    links each into `.gemini/skills`; the CLI lists both places, but they are the same folders,
    so the registry is clean and the should-fire prompt counts as fired."""
    gemini_or_skip()
    seen, result = _one_prompt_run(
        tmp_path,
        "gemini",
        "Add a nullable avatar_url column to the users table.",
        True,
        [{"skill": "db-migrations"}, {"final": "Done."}],
    )
    (tried,) = seen
    assert tried["registry"]["problems"] == [] and tried["fired"] is True, tried
    assert (result["fired"], result["attempts"], result["triggered"]) == (1, 1, True), result


@pytest.mark.codex
def test_round_eleven_b_codex_reading_the_skill_through_a_link_of_its_own_fired(
    tmp_path: Path,
) -> None:
    """Red team, round 11b (already caught): on a prompt the skill should not fire for, Codex
    links the skill's folder under a name of its own in one call and prints `ref/SKILL.md` in
    the next. (A hard link to SKILL.md fails: the skill is on another mount in the jail.)"""
    codex_or_skip()
    steps = [{"cmd": "ln -s .agents/skills/db-migrations ref"}, {"cmd": "cat ref/SKILL.md"}]
    seen, result = _one_prompt_run(
        tmp_path,
        "codex",
        "Draw the quarterly revenue chart as an SVG.",
        False,
        [*steps, {"final": "Done."}],
    )
    assert seen[-1]["fired"] is True, json.dumps(seen)
    assert (result["fired"], result["triggered"]) == (1, True), result


@pytest.mark.codex
@pytest.mark.parametrize(
    "command,fired",
    [
        ("tr ' ' '_' < .agents/skills/db-migrations/SKILL.md", True),
        # look-alike: only the front matter, underscored, shows none of the body
        ("head -4 .agents/skills/db-migrations/SKILL.md | tr ' ' '_'", False),
    ],
    ids=["underscored-body", "underscored-front-matter"],
)
def test_round_eleven_b_codex_printing_the_skill_with_underscores_fired(
    tmp_path: Path, command: str, fired: bool
) -> None:
    """Red team, round 11b (docs/isolation.md): on a prompt the skill should not fire for,
    Codex prints SKILL.md with `_` for every space. The content proof took `a_b_c` for one
    word, so no window of the body matched: the skill never fired, counted as right."""
    codex_or_skip()
    seen, result = _one_prompt_run(
        tmp_path,
        "codex",
        "Draw the quarterly revenue chart as an SVG.",
        False,
        [{"cmd": command}, {"final": "Done."}],
    )
    assert seen[-1]["fired"] is fired, json.dumps(seen)
    assert result["triggered"] is fired, result


@pytest.mark.codex
@pytest.mark.slow
def test_an_evals_folder_is_measured_beside_the_distractors_given_on_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A skill-creator evals.json has no target.yaml to name distractors in: `--distractor`
    installs each beside the skill, so a should-not prompt is contested (the distractor takes
    it) as it is for a target's declared ones, and a resume must name the same ones."""
    codex_or_skip()
    with scratch_dir() as scratch:
        skill = scratch / "db-migrations"
        shutil.copytree(ROOT / ".agents/skills/db-migrations", skill)
        (skill / "SKILL.md").write_text((FIXTURES / "descriptions/good.md").read_text())
        (skill / "evals").mkdir()
        evals = {
            "skill_name": "db-migrations",
            "evals": [{"id": 1, "prompt": "Add a nullable avatar_url column to users."}],
        }
        (skill / "evals/evals.json").write_text(json.dumps(evals))
        queries = [
            {
                "query": "Add a nullable avatar_url column to the users table.",
                "should_trigger": True,
            },
            {
                "query": "Fill the name field of intake.pdf with Ada Lovelace.",
                "should_trigger": False,
            },
        ]
        (skill / "evals/trigger-evals.json").write_text(json.dumps(queries))
        common = [
            "--evals", str(skill), "--agent", "codex-exec", "--attempts", "1",
            "--behaviors", str(FIXTURES / "behaviors"), "--runs-dir", str(scratch / "runs"),
            "--scratch-root", str(scratch / "scratch"), "--timeout", "90",
        ]  # fmt: skip
        distractors = [
            part
            for name in ("pdf-forms", "csv-report")
            for part in ("--distractor", str(FIXTURES / "skills" / name))
        ]
        from evaluator.cli.main import main

        with pytest.raises(SystemExit) as done:
            main(["triggers", "--json", "--run-id", "t", *common, *distractors])
        assert done.value.code == 0
        data = json.loads(capsys.readouterr().out)["triggers"]
        prompts = _prompts(data)
        assert prompts["q-01"]["fired"] == 1
        assert prompts["q-02"]["fired"] == 0 and prompts["q-02"]["others"] == {"pdf-forms": 1}
        run = scratch / "runs" / "t"
        plan = json.loads((run / "trigger-plan.json").read_text())
        assert plan["distractors"] == [".agents/skills/pdf-forms", ".agents/skills/csv-report"]
        for seen in _observations(run):
            assert seen["registry"]["problems"] == [], seen["registry"]
        # A resume without them would measure another thing: refused, naming both lists.
        with pytest.raises(SystemExit) as done:
            main(["triggers", *common, "--resume", "t"])
        assert done.value.code == 2
        assert "--distractor" in capsys.readouterr().err
