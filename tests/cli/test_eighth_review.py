"""What the eighth new user met (docs/first-hour.md, "Eighth review"): a team's eval repo in the
public `agentic-evals` shape, with several targets and no `default_target` (upstream names its
default target in prose), run one target, one suite, one case at a time."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.test_skill_author import run_cli
from tests.conftest import DEMO_REPO, copy_demo

ADD_COLUMN = DEMO_REPO / "targets/db-migrations/behaviors/follows-skill/routing-add-column.yaml"
# A behaviour of the repo's other target (skill-eval), beside it in the team's one folder.
REFUSES = DEMO_REPO / "targets/skill-eval/behaviors/follows-skill/refuses-without-repo.yaml"


def _repo_without_default(tmp_path: Path) -> Path:
    """The demo's eval repo as upstream keeps it: two targets, none named the default."""
    repo = copy_demo(tmp_path / "project")
    (repo / "agentic-eval.yaml").unlink()
    return repo


def _one_folder(tmp_path: Path) -> Path:
    """One behaviours folder for the whole repo: a case of each target."""
    folder = tmp_path / "behaviors"
    folder.mkdir()
    shutil.copy(ADD_COLUMN, folder)
    shutil.copy(REFUSES, folder)
    return folder


def test_a_case_id_names_its_target_in_a_repo_without_a_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Case ids are unique across a repo, so one names its target; `--case routing-add-column`
    stopped at `several targets (db-migrations, skill-eval); pass --target`."""
    repo = str(_repo_without_default(tmp_path))
    code, out, err = run_cli(["explain", "--repo", repo, "--case", "routing-add-column"], capsys)
    assert code == 0, err
    assert out.startswith("routing-add-column\n"), out
    # Cases of two targets: a run is of one target, and the line says which case is where.
    argv = ["explain", "--repo", repo, "--case", "routing-add-column"]
    code, _, err = run_cli([*argv, "--case", "refuses-without-repo"], capsys)
    assert code == 2
    assert (
        "--case: the cases named belong to several targets (db-migrations: routing-add-column;"
        " skill-eval: refuses-without-repo): a run is of one target" in err
    ), err
    # Without a case there is nothing to tell the target by: the line is as before.
    code, _, err = run_cli(["explain", "--repo", repo], capsys)
    assert code == 2 and "several targets (db-migrations, skill-eval); pass --target" in err, err


def test_one_behaviours_folder_for_a_repo_of_several_targets_passes_its_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`validate --behaviors DIR` checks a folder against every target's prompts and accepted
    the team's one folder; `run --target db-migrations --behaviors DIR` refused it before any
    attempt (`behaviour 'follows-skill/refuses-without-repo' matches no case prompt`), so each
    target needed a folder of its own. The check now passes it (the run goes on to look for the
    agent CLI, missing here); a behaviour that matches no case of any target is still refused."""
    repo = str(_repo_without_default(tmp_path))
    folder = _one_folder(tmp_path)
    code, _, err = run_cli(["validate", "--repo", repo, "--behaviors", str(folder)], capsys)
    assert code == 0, err
    # `validate --target` (or a repo's default target) checked the folder against that target
    # only, and refused it the same way.
    checked = ["validate", "--repo", repo, "--target", "db-migrations", "--behaviors", str(folder)]
    code, _, err = run_cli(checked, capsys)
    assert code == 0, err
    argv = ["run", "--repo", repo, "--target", "db-migrations", "--case", "routing-add-column"]
    argv += ["--behaviors", str(folder), "--runs-dir", str(tmp_path / "runs")]
    argv += ["--codex-bin", str(tmp_path / "no-codex")]
    code, _, err = run_cli(argv, capsys)
    assert "matches no case prompt" not in err, err
    assert code == 3 and "no-codex" in err, err
    stale = (
        (folder / "refuses-without-repo.yaml")
        .read_text()
        .replace("Evaluate my deploy skill", "Evaluate my deployment skill")
    )
    (folder / "refuses-without-repo.yaml").write_text(stale)
    code, _, err = run_cli(argv, capsys)
    assert code == 2
    assert "match: behaviour 'follows-skill/refuses-without-repo' matches no case prompt" in err
    code, _, err = run_cli(checked, capsys)
    assert code == 2 and "'follows-skill/refuses-without-repo' matches no case prompt" in err


@pytest.mark.slow
@pytest.mark.codex
def test_one_behaviours_folder_runs_one_target_with_real_codex(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same folder, played to the real Codex CLI: the case of the chosen target passes."""
    from tests.support import codex_or_skip, scratch_dir

    codex_or_skip()
    repo = str(_repo_without_default(tmp_path))
    folder = _one_folder(tmp_path)
    with scratch_dir() as scratch:
        argv = ["run", "--repo", repo, "--case", "routing-add-column", "--run-id", "r"]
        argv += ["--behaviors", str(folder), "--runs-dir", str(tmp_path / "runs")]
        code, out, err = run_cli([*argv, "--scratch-root", str(scratch)], capsys)
    assert code == 0, out + err
    assert "routing-add-column  pass" in out, out


def test_a_missing_required_variable_says_where_to_set_it() -> None:
    """A case whose `setup.env_vars_required` names a variable this machine lacks: "Fix the
    eval" said only `setup not reproducible: env_vars_required: SENTRY_DSN is not set in the
    environment`, not which environment, nor whether the value would reach the run's files."""
    from evaluator.artifacts.models import CaseResult
    from evaluator.artifacts.report_findings import eval_fixes

    def blocked(case_id: str, mismatch: str) -> CaseResult:
        return CaseResult(
            case_id=case_id,
            workspace_root=None,
            thread_id=None,
            session_path=None,
            status="blocked",
            blocked_reason="environment",
            environment_mismatches=[mismatch],
            case_file=f"cases/{case_id}.yaml",
        )

    missing = blocked("needs-sentry", "env_vars_required: SENTRY_DSN is not set in the environment")
    other = blocked("no-git", "setup.git: git is not installed")
    fixes = {fix.path: fix.why for fix in eval_fixes([missing, other], None)}
    assert fixes["cases/needs-sentry.yaml"] == (
        "setup not reproducible: env_vars_required: SENTRY_DSN is not set in the environment"
        " (set SENTRY_DSN where agentic-eval runs: each attempt passes it to the agent; its value"
        " is redacted from the run when its name says secret or it is listed in the case's"
        " `setup.secret_env_vars`, docs/security.md)"
    )
    # Any other mismatch keeps its line as it was.
    assert fixes["cases/no-git.yaml"] == "setup not reproducible: setup.git: git is not installed"


def test_explain_names_a_required_variable_this_machine_lacks(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user asked `explain` why a case would be blocked: it listed the case's entries and
    said nothing of the `setup.env_vars_required` variable missing here, which blocks the case
    (environment) on every run from this shell, after the agent has run (a real model's
    tokens spent)."""
    case = ["explain", "--repo", str(DEMO_REPO), "--case", "bootstrap-needs-database-url"]
    monkeypatch.delenv("DATABASE_URL", raising=False)
    code, out, err = run_cli(case, capsys)
    assert code == 0, err
    assert out.splitlines()[1] == (
        "  environment: DATABASE_URL not set here (setup.env_vars_required): a run from here"
        " does not start the agent, and the case is blocked (environment); set it where"
        " agentic-eval runs"
    )
    code, out, _ = run_cli([*case, "--json"], capsys)
    assert code == 0 and '"env_vars_missing": [\n        "DATABASE_URL"\n      ]' in out, out
    # Set here: nothing to say.
    monkeypatch.setenv("DATABASE_URL", "postgres://app@db/app")
    code, out, _ = run_cli(case, capsys)
    assert code == 0 and "environment:" not in out, out
    code, out, _ = run_cli([*case, "--json"], capsys)
    assert '"env_vars_missing": []' in out, out


def test_no_comparison_names_the_cases_it_could_not_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A three-case target, one case blocked by its environment on both sides: `compare` exits
    3 (coverage 0.67 under 0.80), and its last line said only `no comparison: 2 of 3 case(s) ...
    (below the minimum)`; the `same-blocked` case is not among the lines above it either."""
    from tests.compare.test_compare import compare_cli, write_run

    statuses = {"a": ["pass"], "b": ["pass"], "needs-sentry": ["env"]}
    base = write_run(tmp_path / "base", statuses)
    candidate = write_run(tmp_path / "cand", statuses)
    code, out, _ = compare_cli(capsys, str(base), str(candidate))
    assert code == 3
    assert out.splitlines()[-1] == (
        "COMPARE: no comparison: 2 of 3 case(s) in both runs decided on both sides: coverage"
        " 0.67, minimum 0.80 (below the minimum); not decided on both sides: needs-sentry"
        " blocked by environment (each run's report.md says what blocked them): fix that, or"
        " compare with a lower --min-coverage"
    )
    # Enough compared: the line is as it was.
    code, out, _ = compare_cli(capsys, str(base), str(candidate), "--min-coverage", "0.6")
    assert code == 0 and out.splitlines()[-1] == "COMPARE: no regression"


def test_no_comparison_says_a_case_blocked_by_prose_needs_a_judge_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A skill-creator suite of prose expectations run in CI without a judge model: every case
    `blocked (unclear-rule)` on both sides, and `compare` ended `not decided on both sides:
    eval-1, eval-2 (each run's report.md says what blocked them)`, on every pull request, while
    the cure is one option of both runs (sixth-round new user). The line now says each case's
    reason, and for prose, the judge model."""
    from tests.compare.test_compare import compare_cli, write_run

    statuses = {"a": ["pass"], "eval-1": ["none"], "eval-2": ["none"], "needs-sentry": ["env"]}
    runs = [write_run(tmp_path / side, statuses) for side in ("base", "cand")]
    for run in runs:
        for case in ("eval-1", "eval-2"):
            path = run / "case-results" / f"{case}.json"
            result = json.loads(path.read_text())
            result.update(blocked_reason="unclear-rule", blocked_by="eval")
            path.write_text(json.dumps(result))
    code, out, _ = compare_cli(capsys, *map(str, runs))
    assert code == 3
    assert out.splitlines()[-1].endswith(
        "; not decided on both sides: eval-1, eval-2 blocked by unclear-rule (prose no rule"
        " decides: give both runs a judge model, --judge-model M; docs/model-judge.md) and"
        " needs-sentry blocked by environment (each run's report.md says what blocked them):"
        " fix that, or compare with a lower --min-coverage"
    )
