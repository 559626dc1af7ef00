"""`agentic-eval selftest`: golden behaviours per case, validated, grouped into runs, and judged.

The codex tests run every demo golden through the real agent (the demo's assertions must tell
each good behaviour from its bad variants) and show that a weakened assertion is reported.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.cli.main import main
from evaluator.pipeline.selftest import (
    EntryCoverage,
    Golden,
    GoldenOutcome,
    SelftestReport,
    load_goldens,
    plan_behavior_sets,
)
from evaluator.plan import open_repo
from tests.conftest import DEMO_REPO, copy_demo
from tests.support import codex_or_skip, scratch_dir

T = "targets/db-migrations"
RENAME = f"{T}/cases/routing/routing-rename-table.yaml"
ANSWER = f"{T}/cases/workflow/workflow-answer-names-file.yaml"


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def replace_in(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "old,new,field,message",
    [
        (
            "behaviors/broken/routes-wrong.yaml",
            "behaviors/golden/nope.yaml",
            "golden[1].behavior",
            "behaviour file not found",
        ),
        (
            "behaviors/broken/routes-wrong.yaml",
            "../db-migrations/../../agentic-eval.yaml",
            "golden[1].behavior",
            "must not contain '..'",
        ),
        (
            "behaviors/broken/routes-wrong.yaml",
            "behaviors/broken/skips-skill.yaml",
            "golden[1].behavior",
            "does not match this case's prompt",
        ),
        (
            "behaviors/broken/routes-wrong.yaml",
            "behaviors/follows-skill/routing-rename-table.yaml",
            "golden[1].behavior",
            "is listed twice",
        ),
        ("expect: fail", "expect: failed", "golden[1].expect", "must be one of"),
        # Located at the golden itself or at its key, whichever the unknown-key report picks.
        ("expect: fail", "expect: fail, why: x", "golden[1]", "why"),
    ],
    ids=["missing", "escapes", "wrong-prompt", "twice", "bad-expect", "unknown-key"],
)
def test_validate_locates_every_unusable_golden(
    old: str,
    new: str,
    field: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    repo = copy_demo(tmp_path)
    replace_in(repo, RENAME, old, new)
    code, out, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 2 and "Traceback" not in out + err
    case_file = str((repo / RENAME).resolve())
    line = next(line for line in err.splitlines() if line.startswith(case_file))
    assert f" {field}" in line and message in line, line


def test_validate_reports_an_invalid_golden_file_where_it_is_broken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    behavior = repo / T / "behaviors/broken/routes-wrong.yaml"
    behavior.write_text(behavior.read_text().replace("  - final:", "  - finale:"))
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 2
    assert err.startswith(str(behavior.resolve()) + ":"), err


def test_selftest_refuses_bad_goldens_before_running_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    replace_in(repo, RENAME, "behaviors/broken/routes-wrong.yaml", "behaviors/golden/nope.yaml")
    runs = tmp_path / "runs"
    args = ["selftest", "--repo", str(repo), "--runs-dir", str(runs)]
    code, _, err = run_cli([*args, "--case", "routing-rename-table"], capsys)
    assert code == 2 and "behaviour file not found" in err and not runs.exists()
    code, _, err = run_cli([*args, "--case", "no-such-case"], capsys)
    assert code == 2 and "unknown case id(s): no-such-case" in err


def test_selftest_without_goldens_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    case = repo / ANSWER
    case.write_text(case.read_text().split("\ngolden:", 1)[0] + "\n")
    code, _, err = run_cli(
        ["selftest", "--repo", str(repo), "--case", "workflow-answer-names-file"], capsys
    )
    assert code == 2 and "no selected case lists golden behaviours" in err


def test_selftest_without_the_agent_is_an_environment_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(
        [
            "selftest",
            "--repo",
            str(DEMO_REPO),
            "--case",
            "routing-add-column",
            "--runs-dir",
            str(tmp_path / "runs"),
            "--codex-bin",
            str(tmp_path / "no-codex"),
        ],
        capsys,
    )
    assert code == 3, err
    assert list((tmp_path / "runs").iterdir()) == []


# --------------------------------------------------------------------------- planning, verdicts


def test_every_demo_case_has_a_passing_and_a_failing_golden() -> None:
    target = open_repo(DEMO_REPO, None).targets["db-migrations"]
    for case in target.all_cases():
        goldens, problems = load_goldens(target, case)
        assert problems == []
        expects = [g.spec.expect for g in goldens]
        if case.case.setup.env_vars_required:
            # A setup no selftest reproduces (DATABASE_URL): no agent starts since session 19,
            # so every golden is blocked and its entries are "not checked here".
            assert set(expects) == {"blocked"} and len(expects) > 1, case.case_id
            continue
        assert "fail" in expects and ("pass" in expects or "blocked" in expects), case.case_id


def test_behaviour_sets_hold_one_golden_per_case_and_never_two_answers_to_a_prompt() -> None:
    target = open_repo(DEMO_REPO, None).targets["db-migrations"]
    goldens = [g for case in target.all_cases() for g in load_goldens(target, case)[0]]
    sets = plan_behavior_sets(goldens)
    # Three goldens at most per case: three runs; every case's first golden in the first one.
    assert len(sets) == 3
    assert [g.index for g in sets[0]] == [0] * len(target.all_cases())
    assert sorted((g.case_id, g.index) for s in sets for g in s) == sorted(
        (g.case_id, g.index) for g in goldens
    )
    for members in sets:
        assert len({g.case_id for g in members}) == len(members)
    # routes-wrong (for rename-table) and follows-skill/routing-add-column answer different
    # prompts; a behaviour answering another member's prompt must go to a run of its own.
    rename = next(g for g in goldens if g.spec.behavior.endswith("routes-wrong.yaml"))
    greedy = rename.behavior.model_copy(
        update={"match": rename.behavior.match.model_copy(update={"prompt_contains": "workspace"})}
    )
    clash = Golden(rename.case, rename.index, rename.spec, rename.path, greedy)
    add_column = next(g for g in goldens if g.case_id == "routing-add-column" and g.index == 0)
    planned = plan_behavior_sets([add_column, clash])
    assert [[g.case_id for g in s] for s in planned] == [
        ["routing-add-column"],
        ["routing-rename-table"],
    ]


def test_an_entry_no_golden_fails_is_vacuous_and_a_mismatch_fails_the_selftest() -> None:
    caught = EntryCoverage(
        case_id="c",
        polarity="forbidden",
        index=0,
        description="d",
        statuses={"good.yaml": "pass", "bad.yaml": "fail"},
    )
    untested = caught.model_copy(update={"statuses": {"good.yaml": "pass", "bad.yaml": "pass"}})
    blocked = caught.model_copy(update={"statuses": {"good.yaml": "pass", "bad.yaml": "blocked"}})
    assert not caught.vacuous and untested.vacuous and blocked.vacuous
    # Session 19: a case none of whose goldens started an agent (a setup this machine cannot
    # reproduce) could not be checked here, which is not the assertion's fault.
    unstarted = blocked.model_copy(
        update={"statuses": {"good.yaml": "blocked", "bad.yaml": "blocked"}, "not_started": True}
    )
    assert not unstarted.vacuous and unstarted.model_copy(update={"not_started": False}).vacuous
    good = GoldenOutcome(case_id="c", behavior="b", expect="fail", status="fail", run_id="set-1")
    report = SelftestReport(
        selftest_id="s", directory="d", target_id="t", goldens=[good], entries=[caught]
    )
    assert report.ok
    assert not report.model_copy(update={"entries": [caught, untested]}).ok
    wrong = good.model_copy(update={"status": "pass"})
    assert not report.model_copy(update={"goldens": [wrong]}).ok
    assert not report.model_copy(update={"interrupted": True}).ok
    payload = report.model_copy(update={"entries": [untested]}).as_json()
    assert payload["vacuous_entries"] == 1 and payload["entries"][0]["vacuous"] is True


# --------------------------------------------------------------------------- real runs


@pytest.mark.codex
def test_selftest_passes_on_the_demo_target(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_or_skip()
    # The database-url case's good golden expects `blocked`: the variable must be missing.
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with scratch_dir() as scratch:
        code, out, err = run_cli(
            [
                "selftest",
                "--repo",
                str(DEMO_REPO),
                "--workers",
                "2",
                "--runs-dir",
                str(tmp_path / "runs"),
                "--scratch-root",
                str(scratch),
                "--json",
            ],
            capsys,
        )
    report = json.loads(out)
    mismatched = [g for g in report["goldens"] if not g["matches"]]
    vacuous = [e for e in report["entries"] if e["vacuous"]]
    assert (code, mismatched, vacuous) == (0, [], []), err
    assert report["ok"] and report["exit_code"] == 0
    assert len(report["goldens"]) == 26 and len(report["runs"]) == 3
    assert {g["case_id"] for g in report["goldens"]} == {
        c.case_id for c in open_repo(DEMO_REPO, None).targets["db-migrations"].all_cases()
    }
    # Each bad golden is a minimal variant: it fails the entry it was written for and no other.
    answer = [e for e in report["entries"] if e["case_id"] == "workflow-answer-names-file"]
    assert [e["statuses"] for e in answer] == [
        {
            "behaviors/follows-skill/workflow-answer-names-file.yaml": "pass",
            "behaviors/golden/workflow-answer-names-file/no-file-name.yaml": "fail",
            "behaviors/golden/workflow-answer-names-file/no-rollback.yaml": "pass",
        },
        {
            "behaviors/follows-skill/workflow-answer-names-file.yaml": "pass",
            "behaviors/golden/workflow-answer-names-file/no-file-name.yaml": "pass",
            "behaviors/golden/workflow-answer-names-file/no-rollback.yaml": "fail",
        },
    ]
    selftest_dir = Path(report["directory"])
    assert json.loads((selftest_dir / "selftest.json").read_text())["ok"] is True
    for run_dir in report["runs"].values():
        manifest = json.loads((Path(run_dir) / "manifest.json").read_text())
        assert manifest["run_state"] == "completed" and manifest["model"] == "mock-model"


@pytest.mark.codex
def test_a_weakened_assertion_is_reported_as_vacuous_and_not_separating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    codex_or_skip()
    repo = copy_demo(tmp_path)
    # Loosen "the final answer explains the rollback" until any answer about a migration passes.
    replace_in(
        repo,
        ANSWER,
        'pattern: "(?i)roll ?back|undo|RENAME COLUMN full_name TO name"',
        'pattern: "(?i)migration"',
    )
    with scratch_dir() as scratch:
        code, out, err = run_cli(
            [
                "selftest",
                "--repo",
                str(repo),
                "--case",
                "workflow-answer-names-file",
                "--workers",
                "2",
                "--runs-dir",
                str(tmp_path / "runs"),
                "--scratch-root",
                str(scratch),
            ],
            capsys,
        )
    assert code == 1, err
    rows = {line.split()[1]: line.split()[2:] for line in out.splitlines() if line.count(".yaml")}
    assert rows["behaviors/follows-skill/workflow-answer-names-file.yaml"] == ["pass", "pass"]
    assert rows["behaviors/golden/workflow-answer-names-file/no-file-name.yaml"] == [
        "fail",
        "fail",
    ]
    assert rows["behaviors/golden/workflow-answer-names-file/no-rollback.yaml"] == [
        "fail",
        "pass",
        "MISMATCH",
    ]
    assert "workflow-answer-names-file required[1]: The final answer explains the rollback." in out
    assert (
        "cases whose assertions do not separate good from bad behaviour: workflow-answer-names-file"
        in out
    )
    assert "3 golden behaviour(s), 1 mismatch(es), 1 vacuous assertion(s)" in out
    selftest = json.loads(next((tmp_path / "runs").glob("selftest-*/selftest.json")).read_text())
    assert selftest["non_separating_cases"] == ["workflow-answer-names-file"]
    assert [e["index"] for e in selftest["entries"] if e["vacuous"]] == [1]


@pytest.mark.parametrize(
    ("marker", "runs", "what"),
    [
        ("selftest.json", ["set-1", "set-2"], "a self-test directory (selftest.json)"),
        ("evaluation.json", ["variants/a/run"], "an evaluation directory (evaluation.json)"),
        (None, ["r1"], "a runs root"),
    ],
)
@pytest.mark.parametrize(
    "command", [["report"], ["report", "--html"], ["export", "atif"], ["gate", "--candidate"]]
)
def test_a_command_given_a_directory_that_holds_runs_says_what_it_is_and_which_to_give(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    marker: str | None,
    runs: list[str],
    what: str,
    command: list[str],
) -> None:
    directory = tmp_path / "selftest-x"
    directory.mkdir()
    if marker:
        (directory / marker).write_text("{}")
    for run in runs:
        (directory / run).mkdir(parents=True)
        (directory / run / "manifest.json").write_text("{}")
    code, _, err = run_cli([*command, str(directory)], capsys)
    assert code == 2
    assert err.strip() == (
        f"agentic-eval: {directory}: {what}, not a run directory (a run directory holds"
        f" manifest.json); give one of its run directories: {', '.join(runs)}"
    )
