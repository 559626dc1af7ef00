"""A skill author's fourth review (docs/first-hour.md, "Fourth review"): a public docs skill
whose evals.json holds negative evals the skill must stay silent on. Each test builds its own
minimal skill-creator layout and checks one thing the author was told wrong before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_skill_author import behaviour, write

EVALS = {
    "skill_name": "doc-forms",
    "evals": [
        {
            "id": 1,
            "category": "non-trigger",
            "prompt": "Write a hero section for our landing page",
            "expectations": [
                "The agent never shows consultation of"
                " `.agents/skills/doc-forms/references/blueprints.md`."
            ],
        },
        {
            "id": 2,
            "prompt": "Write a how-to guide for rotating keys",
            "expectations": ["The final answer mentions `How-to`."],
        },
    ],
}


@pytest.mark.slow
@pytest.mark.codex
def test_a_case_left_out_as_the_evals_is_not_the_skills_to_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent that declines without a tool call leaves no evidence of where it worked: the
    attempt is `blocked: insufficient-evidence`, which the case table calls "the eval's, left
    out". "Suggested Next Fixes" still said "Fix the skill: `SKILL.md`: named by 1 failing or
    blocked case(s)", for a case the score leaves out whatever the skill says. It now names no
    skill file for it and says under "Fix the eval" why the case could not be decided. A
    `command` check of a program the machine lacks (`blocked: environment`) already named no
    skill file, but left "Suggested Next Fixes" at "None."; it now says which program. A case
    that failed still names the skill."""
    from evaluator.cli.main import run_cli
    from tests.support import codex_or_skip, scratch_dir

    codex_or_skip()
    folder = tmp_path / "doc-forms"
    write(folder / "SKILL.md", "---\nname: doc-forms\ndescription: Doc forms.\n---\nBody.\n")
    write(folder / "references/blueprints.md", "Blueprints.\n")
    # A check of a program this machine lacks: blocked (environment), the eval's too.
    linted = {
        "id": 3,
        "prompt": "Lint the docs",
        "assertions": [{"type": "command", "command": "no-such-linter-xyz ."}],
    }
    write(folder / "evals/evals.json", json.dumps({**EVALS, "evals": [*EVALS["evals"], linted]}))
    behaviors = tmp_path / "behaviors"
    behaviour(behaviors, "declines", "hero section")  # answers at once: no tool call
    behaviour(behaviors, "guide", "rotating keys")  # answers without the word: fails
    behaviour(behaviors, "lint", "Lint the docs")
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = ["run", "--evals", str(folder), "--behaviors", str(behaviors)]
        argv += ["--runs-dir", str(runs), "--run-id", "r", "--scratch-root", str(scratch)]
        code = run_cli(argv)
    capsys.readouterr()
    assert code == 1
    report = (runs / "r/report.md").read_text()
    assert "| eval-1 | non-trigger | blocked | insufficient-evidence; the eval's, left out |" in (
        report
    )
    fixes = report.split("## Suggested Next Fixes", 1)[1]
    assert "### Fix the eval" in fixes, fixes
    skill, eval_ = fixes.split("### Fix the eval", 1)
    # The failing case alone names the skill file.
    assert "1. `SKILL.md`: named by 1 failing or blocked case(s)." in skill
    assert (
        "1. `evals/evals.json`: eval-1: blocked and left out of the score, whatever the skill:"
        " isolation unverifiable" in eval_
    )
    assert (
        "1. `evals/evals.json`: eval-3: blocked and left out of the score, whatever the skill:"
        " command: 'no-such-linter-xyz .' exited 127" in eval_
    )
    assert "`no-such-linter-xyz` is not installed here" in eval_


@pytest.mark.slow
@pytest.mark.codex
def test_a_trigger_run_names_the_skill_file_the_author_edits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skill-creator skill is its own source workspace, mounted at `.agents/skills/<name>/`.
    The trigger report's fixes said "`.agents/skills/doc-forms/SKILL.md`, the `description` in
    its front matter", a path the author's repository does not have, where the case fixes of
    the same skill say `SKILL.md`. It now names `SKILL.md`; an eval repo, whose source
    workspace holds the skill at that path, keeps it (tests/triggers/test_trigger_run.py)."""
    from evaluator.cli.main import run_cli
    from tests.support import codex_or_skip, scratch_dir

    codex_or_skip()
    folder = tmp_path / "doc-forms"
    write(folder / "SKILL.md", "---\nname: doc-forms\ndescription: Doc forms.\n---\nBody.\n")
    write(folder / "evals/evals.json", json.dumps(EVALS))
    queries = [{"query": "Classify this docs page", "should_trigger": True}]
    write(folder / "evals/trigger-evals.json", json.dumps(queries))
    behaviors = tmp_path / "behaviors"
    behaviour(behaviors, "never-fires", "Classify this docs page")
    runs = tmp_path / "runs"
    with scratch_dir() as scratch:
        argv = [
            "triggers",
            "--evals",
            str(folder),
            "--behaviors",
            str(behaviors),
            "--attempts",
            "1",
        ]
        argv += ["--runs-dir", str(runs), "--run-id", "t", "--scratch-root", str(scratch)]
        run_cli(argv)
    capsys.readouterr()
    fixes = (runs / "t/report.md").read_text().split("## Suggested Next Fixes", 1)[1]
    assert (
        "1. `SKILL.md`, the `description` in its front matter: the agent did not load the skill"
        " on 1 prompt(s) it should" in fixes
    ), fixes


def _prose_skill(tmp_path: Path, expectations: list[str], fail: list[str] = ()) -> Path:  # type: ignore[assignment]
    folder = tmp_path / "doc-forms"
    write(folder / "SKILL.md", "---\nname: doc-forms\ndescription: Doc forms.\n---\nBody.\n")
    write(folder / "references/blueprints.md", "Blueprints.\n")
    write(folder / "evals/files/page.md", "A page.\n")
    item: dict[str, object] = {
        "id": 1,
        "prompt": "Review evals/files/page.md",
        "files": ["evals/files/page.md"],
        "expectations": expectations,
    }
    if fail:
        item["fail"] = list(fail)
    write(
        folder / "evals/evals.json",
        json.dumps({"skill_name": "doc-forms", "evals": [item]}, indent=2),
    )
    return folder


def test_prose_that_compiles_to_a_read_of_no_file_is_a_located_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "Shows consultation of `.../references/blueprint.md`" (one letter off the skill's
    `blueprints.md`) compiles to a read no workspace can ever show: the case fails whatever the
    agent does, and the same path under "never" holds whatever it does. `checks:` with such a
    path are refused, but compiled prose passed `validate` as `ok`. It is now a warning at the
    sentence's own line; the paths that exist (the skill's file, a glob, the eval's input
    file, an alternative of an "or") say nothing."""
    from tests.cli.test_skill_author import run_cli

    mount = ".agents/skills/doc-forms"
    folder = _prose_skill(
        tmp_path,
        [
            f"Shows consultation of `{mount}/references/blueprints.md`.",
            f"Shows consultation of `{mount}/references/*.md`.",
            "Shows consultation of `evals/files/page.md`.",
            f"Shows consultation of `{mount}/references/blueprint.md`.",
        ],
        fail=[f"Shows consultation of `{mount}/references/blueprnts.md`."],
    )
    code, out, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 0 and out.startswith("ok: 1 target(s), 1 case(s)"), err
    warnings = [line for line in err.splitlines() if "compiles to a read" in line]
    evals = folder / "evals/evals.json"
    assert [w.split(": eval-1: ")[0] for w in warnings] == [
        f"warning: {evals}:14:9: evals[0].expectations[3]",
        f"warning: {evals}:17:9: evals[0].fail[0]",
    ], err
    assert (
        f"'{mount}/references/blueprint.md', which matches no file the workspace can contain"
    ) in warnings[0]
    # `run` prints the same warning before it starts (here it then stops: an empty folder of
    # behaviours, so no agent runs).
    (tmp_path / "empty").mkdir()
    code, _, err = run_cli(
        ["run", "--evals", str(folder), "--behaviors", str(tmp_path / "empty")], capsys
    )
    assert code == 2 and "evals[0].expectations[3]: eval-1: " in err, err


def test_an_alternative_that_names_no_file_is_not_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "`A` or `B`": one alternative that names no file leaves the other to pass the entry."""
    from tests.cli.test_skill_author import run_cli

    mount = ".agents/skills/doc-forms"
    folder = _prose_skill(
        tmp_path,
        [
            f"Shows consultation of `{mount}/references/blueprints.md` or"
            f" `{mount}/references/guide.md`."
        ],
    )
    code, _, err = run_cli(["validate", "--evals", str(folder)], capsys)
    assert code == 0 and "compiles to a read" not in err, err


def test_the_progress_line_says_its_tally_is_of_the_runs_cases() -> None:
    """`eval-15: BLOCKED [5/5; pass 0, fail 4, blocked 1]` after eval-15's three attempts read
    as eval-15's own counts; the bracket is the run's tally of finished cases."""
    import io

    from evaluator.artifacts.models import CaseResult
    from evaluator.pipeline.progress import PlainProgress

    stream = io.StringIO()
    progress = PlainProgress(stream)
    progress.start("r", ["a", "b"], 3)
    for case_id, status in (("a", "fail"), ("b", "blocked")):
        progress.case_finished(
            CaseResult(
                case_id=case_id,
                workspace_root=None,
                thread_id=None,
                session_path=None,
                status=status,  # type: ignore[arg-type]
            )
        )
    last = stream.getvalue().splitlines()[-1]
    assert last.endswith("b: BLOCKED [cases done 2/2: pass 0, fail 1, blocked 1]"), last


def test_explain_says_a_case_without_entries_is_never_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An eval with `expected_output` only: `explain` printed its intent as "intent (model
    judge only): ..." and then nothing, as if a judge model would grade that intent; with
    `--judge-model` too. It is never graded: the case is blocked whatever the agent does. The
    line under the case now says so; a case with entries does not get it."""
    from tests.cli.test_skill_author import run_cli

    folder = tmp_path / "doc-forms"
    write(folder / "SKILL.md", "---\nname: doc-forms\ndescription: Doc forms.\n---\nBody.\n")
    evals = [
        {"id": 1, "prompt": "Split this page", "expected_output": "A split into four forms."},
        {"id": 2, "prompt": "Write a how-to", "expectations": ["The final answer mentions `How`."]},
    ]
    write(folder / "evals/evals.json", json.dumps({"skill_name": "doc-forms", "evals": evals}))
    for extra in ([], ["--judge-model", "gpt-5.5"]):
        code, out, _ = run_cli(["explain", "--evals", str(folder), *extra], capsys)
        assert code == 0
        first, second = out.split("\neval-2\n", 1)
        assert "  intent (model judge only): A split into four forms.\n" in first
        assert "  no assertion entries: nothing to judge, so the case is blocked" in first
        assert "no assertion entries" not in second


def test_an_evals_json_id_given_as_a_case_is_pointed_at_its_case_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--case 6` (the eval's `id` in the author's evals.json) said `unknown case id(s): 6`;
    the loader names that case `eval-6`. The line now says which was meant; an id that is no
    near miss of any case keeps the plain line."""
    from tests.cli.test_skill_author import run_cli

    folder = tmp_path / "doc-forms"
    write(folder / "SKILL.md", "---\nname: doc-forms\ndescription: Doc forms.\n---\nBody.\n")
    evals = [{"id": 6, "prompt": "Write a how-to", "expectations": ["Mentions `How`."]}]
    write(folder / "evals/evals.json", json.dumps({"skill_name": "doc-forms", "evals": evals}))
    (tmp_path / "b").mkdir()
    argv = ["run", "--evals", str(folder), "--behaviors", str(tmp_path / "b"), "--case"]
    code, _, err = run_cli([*argv, "6"], capsys)
    assert code == 2
    assert err.rstrip().endswith("--case: unknown case id(s): 6 (did you mean 'eval-6'?)"), err
    code, _, err = run_cli([*argv, "zzz"], capsys)
    assert code == 2 and err.rstrip().endswith("--case: unknown case id(s): zzz"), err
