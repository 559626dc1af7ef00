"""`agentic-eval evaluate` without an agent: variant resolution, bad input, the statistics and
the report written from finished runs."""

from __future__ import annotations

import json
import shutil
import subprocess
from contextlib import ExitStack
from pathlib import Path

import pytest

from evaluator.artifacts.models import AttemptRecord, CaseResult, Manifest
from evaluator.artifacts.rundir import RunDir
from evaluator.cli.main import run_cli
from evaluator.errors import InputError
from evaluator.evaluate.build import FinishedVariant, case_counts, compare, variant_summary
from evaluator.evaluate.driver import check_case_sets
from evaluator.evaluate.model import EvaluationResult, VariantComparison, VariantSummary
from evaluator.evaluate.page import render_eval_page
from evaluator.evaluate.report import render_eval_report
from evaluator.evaluate.variants import (
    check_revision,
    command_line_plan,
    load_evaluation,
    materialize,
    parse_variant,
)
from evaluator.pipeline.run import interleave
from evaluator.pipeline.runplan import RunOptions
from evaluator.plan import open_repo, select_cases
from tests.conftest import ROOT, copy_demo

UPSTREAM = ROOT / "tests/fixtures/upstream"
SKILL_DIR = ".agents/skills/db-migrations"


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(cwd), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture
def demo_git(tmp_path: Path) -> Path:
    """A source workspace under git: the demo skill and eval repo, committed once."""
    source = tmp_path / "source"
    shutil.copytree(ROOT / SKILL_DIR, source / SKILL_DIR)
    shutil.copytree(ROOT / "agentic-evals", source / "agentic-evals")
    shutil.rmtree(source / "agentic-evals/targets/skill-eval")  # its skill lives elsewhere
    _git(source, "init", "-q", "-b", "main")
    _git(source, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    _git(source, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "v1")
    return source


# ---------------------------------------------------------------- variants


def test_each_command_line_form_resolves_to_its_kind(tmp_path: Path) -> None:
    skill = tmp_path / "v2"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: x\n---\n")
    assert parse_variant("none", "a").kind == "none"
    assert parse_variant("current", "a").kind == "current"
    rev = parse_variant("rev:HEAD~1", "a")
    assert (rev.kind, rev.rev) == ("rev", "HEAD~1")
    assert parse_variant(str(skill), "a").kind == "dir"
    assert parse_variant(str(skill / "SKILL.md"), "a").kind == "file"
    for bad, why in [
        (str(tmp_path / "missing"), "neither none"),
        (str(tmp_path), "holds no SKILL.md"),
        ("rev:", "needs a revision"),
    ]:
        with pytest.raises(InputError, match=why):
            parse_variant(bad, "a")
    with pytest.raises(InputError, match="cannot be `none`"):
        parse_variant("none", "b", candidate=True)
    # the candidate's forms are named, not the baseline's
    with pytest.raises(InputError, match="neither current, rev:REV") as missing:
        parse_variant(str(tmp_path / "missing"), "b", candidate=True)
    assert missing.value.field == "--candidate"


def test_the_labels_say_which_side_is_the_baseline(tmp_path: Path) -> None:
    plan = command_line_plan("none", None, aa=False, target=None, suites=())
    assert [(v.label, v.kind) for v in plan.variants] == [
        ("without_skill", "none"),
        ("with_skill", "current"),
    ]
    plan = command_line_plan("rev:HEAD~1", None, aa=False, target=None, suites=())
    assert [v.label for v in plan.variants] == ["old_skill", "new_skill"]
    plan = command_line_plan("none", None, aa=True, target=None, suites=())
    assert [(v.label, v.kind) for v in plan.variants] == [("a1", "current"), ("a2", "current")]
    assert plan.aa


def test_the_upstream_ab_file_runs_unchanged_as_two_revisions() -> None:
    repo = open_repo(UPSTREAM / "agentic-evals", None, lenient=True)
    path = UPSTREAM / "agentic-evals/evaluations/ab/skill-v1-vs-v2.yaml"
    plan = load_evaluation(path, repo)
    assert (plan.eval_id, plan.mode, plan.target_id, plan.suites) == (
        "skill-v1-vs-v2",
        "ab",
        "voice-ai-integration",
        ("routing",),
    )
    assert [(v.label, v.kind, v.rev, str(v.path)) for v in plan.variants] == [
        ("v1", "rev", "main", ".agents/skills/voice-ai-integration"),
        ("v2", "rev", "feature", ".agents/skills/voice-ai-integration"),
    ]


def test_an_evaluation_naming_an_unknown_target_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "upstream"
    shutil.copytree(UPSTREAM, copy)
    path = copy / "agentic-evals/evaluations/ab/skill-v1-vs-v2.yaml"
    path.write_text(path.read_text().replace('target_id: "voice-ai-integration"', 'target_id: "x"'))
    runs = tmp_path / "runs"
    code = run_cli(
        [
            "evaluate",
            "--repo",
            str(copy / "agentic-evals"),
            "--runs-dir",
            str(runs),
            "--lenient",
            "--evaluation",
            str(path),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "skill-v1-vs-v2.yaml:8:12: target_id: unknown target 'x'" in err[0]
    assert not runs.exists()


def test_an_evaluation_reads_only_the_target_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The public repo holds two targets; an evaluation of one must not stop at the other's
    missing skill (as `run --target` reads only its own), but reach its own questions."""
    copy = tmp_path / "upstream"
    shutil.copytree(UPSTREAM, copy)
    other = copy / "agentic-evals/targets/other"
    other.mkdir()
    (other / "target.yaml").write_text(
        'target_id: "other"\nentry_skill: ".agents/skills/other/SKILL.md"\n'
    )
    path = copy / "agentic-evals/evaluations/subjective/tone.yaml"
    args = ["evaluate", "--repo", str(copy / "agentic-evals"), "--lenient"]
    code = run_cli([*args, "--evaluation", str(path), "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert code == 2 and "give --judge-model" in err and "other" not in err, err
    # a run of the other target still meets its missing skill
    code = run_cli([*args, "--target", "other", "--runs-dir", str(tmp_path / "runs")])
    assert code == 2 and "skills/other/SKILL.md" in capsys.readouterr().err


def test_an_evaluation_naming_an_unknown_suite_fails_validate_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`validate` checks an evaluation's suites against its target, as `evaluate` would plan
    them, and names the evaluation's own line; the known suites still validate."""
    copy = tmp_path / "upstream"
    shutil.copytree(UPSTREAM, copy)
    repo = copy / "agentic-evals"
    assert run_cli(["validate", "--repo", str(repo), "--lenient"]) == 0
    capsys.readouterr()
    path = repo / "evaluations/ab/skill-v1-vs-v2.yaml"
    path.write_text(path.read_text().replace('suites: ["routing"]', 'suites: ["routing", "nope"]'))
    code = run_cli(["validate", "--repo", str(repo), "--lenient"])
    err = capsys.readouterr().err
    assert code == 2
    assert (
        "skill-v1-vs-v2.yaml:9:21: suites[1]: unknown suite 'nope' in target"
        " 'voice-ai-integration'" in err
    ), err


def test_an_evaluation_variant_without_a_skill_is_located_in_its_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `skill_path` that holds no SKILL.md is the evaluation file's mistake: named at its
    line and field, as an unknown target is, not as a bare path."""
    repo = copy_demo(tmp_path)
    path = repo / "evaluations/ab/typo.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(
        'eval_id: "typo"\nmode: "ab"\ntarget_id: "db-migrations"\nvariants:\n'
        '  a: {label: "old", skill_path: ".agents/skills/db-migration"}\n'
        '  b: {label: "current"}\n'
    )
    runs = tmp_path / "runs"
    argv = ["evaluate", "--repo", str(repo), "--runs-dir", str(runs), "--evaluation", str(path)]
    code = run_cli(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "typo.yaml:5:" in err[0] and "variants.a.skill_path:" in err[0], err[0]
    assert ".agents/skills/db-migration holds no SKILL.md" in err[0]
    assert not runs.exists()


def test_a_revision_that_does_not_exist_is_refused(demo_git: Path) -> None:
    assert check_revision(demo_git, "HEAD", "--baseline") == _git(demo_git, "rev-parse", "HEAD")
    with pytest.raises(InputError, match="revision 'nope' does not exist"):
        check_revision(demo_git, "nope", "--baseline")


def test_a_revision_outside_git_says_there_is_no_repository(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"rev:HEAD~1 needs a git repository, and .* is not in"):
        check_revision(tmp_path, "HEAD~1", "--baseline")


def test_a_skill_directory_is_laid_where_the_entry_skill_lies(tmp_path: Path) -> None:
    repo = open_repo(ROOT / "agentic-evals", None)
    selection = select_cases(repo, "db-migrations", (), ())
    other = tmp_path / "v2"
    other.mkdir()
    (other / "SKILL.md").write_text("---\nname: db-migrations\n---\nversion two\n")
    with ExitStack() as stack:
        found = materialize(
            parse_variant(str(other), "v2"), repo, selection.target, tmp_path / "work", stack
        )
    laid = found.source_workspace
    assert (laid / SKILL_DIR / "SKILL.md").read_text().endswith("version two\n")
    # This version has no references/ or scripts/: the target's roots exist, empty.
    assert sorted(p.name for p in (laid / SKILL_DIR).iterdir()) == [
        "SKILL.md",
        "references",
        "scripts",
    ]
    assert not any((laid / SKILL_DIR / "references").iterdir())
    assert found.skill_dir == other.resolve()


def test_a_revision_is_a_worktree_removed_afterwards_and_its_case_set_is_checked(
    demo_git: Path, tmp_path: Path
) -> None:
    first = _git(demo_git, "rev-parse", "HEAD")
    (demo_git / SKILL_DIR / "SKILL.md").write_text("---\nname: db-migrations\n---\nedited\n")
    extra = demo_git / "agentic-evals/targets/db-migrations/cases/routing/routing-extra.yaml"
    text = (extra.parent / "routing-backfill.yaml").read_text()
    extra.write_text(text.replace('case_id: "routing-backfill"', 'case_id: "routing-extra"'))
    suite = extra.parent / "suite.yaml"
    suite.write_text(
        suite.read_text() + '  - "targets/db-migrations/cases/routing/routing-extra.yaml"\n'
    )
    repo = open_repo(demo_git / "agentic-evals", None)
    selection = select_cases(repo, "db-migrations", ("routing",), ())
    work = tmp_path / "work"
    with ExitStack() as stack:
        found = materialize(
            parse_variant(f"rev:{first}", "old"), repo, selection.target, work, stack
        )
        assert found.commit == first
        skill = found.source_workspace / SKILL_DIR / "SKILL.md"
        assert skill.read_text() == (ROOT / SKILL_DIR / "SKILL.md").read_text()
        with pytest.raises(InputError, match=r"another case set \(missing: routing-extra"):
            check_case_sets([found], repo, selection, _options(demo_git))
    assert not found.source_workspace.exists()
    assert str(found.source_workspace) not in _git(demo_git, "worktree", "list")


def _skill_creator_suite(folder: Path) -> Path:
    """A skill folder holding skill-creator's evals/evals.json, committed under git."""
    (folder / "evals").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: tidy\ndescription: d\n---\nversion one\n")
    evals = {"skill_name": "tidy", "evals": [{"id": 1, "prompt": "p", "expectations": ["x"]}]}
    (folder / "evals/evals.json").write_text(json.dumps(evals))
    _git(folder.parent, "init", "-q", "-b", "main")
    _git(folder.parent, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    _git(folder.parent, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "v1")
    return folder


def test_the_variants_of_a_skill_creator_suite_are_its_skill_folders(tmp_path: Path) -> None:
    """An evals.json suite's source workspace is the skill folder itself: each variant's skill
    (the one the no-skill baseline's contamination check looks for) is a real skill folder."""
    folder = _skill_creator_suite(tmp_path / "repo" / "tidy")
    first = _git(folder, "rev-parse", "HEAD")
    (folder / "SKILL.md").write_text("---\nname: tidy\ndescription: d\n---\nversion two\n")
    other = tmp_path / "v3"
    other.mkdir()
    (other / "SKILL.md").write_text("---\nname: tidy\ndescription: d\n---\nversion three\n")
    repo = open_repo(folder, None)
    target = select_cases(repo, None, (), ()).target
    with ExitStack() as stack:
        current = materialize(parse_variant("current", "c"), repo, target, tmp_path / "w", stack)
        assert current.skill_dir == folder.resolve()
        assert current.source_workspace == folder.resolve()
        given = materialize(parse_variant(str(other), "d"), repo, target, tmp_path / "w", stack)
        assert given.source_workspace == given.skill_dir == other.resolve()
        old = materialize(parse_variant(f"rev:{first}", "o"), repo, target, tmp_path / "w", stack)
        assert old.commit == first and old.skill_dir == old.source_workspace
        assert (old.source_workspace / "SKILL.md").read_text().endswith("version one\n")
        # the variant's run finds its own skill there, mounted where the agent looks
        for variant, text in ((given, "version three\n"), (old, "version one\n")):
            loaded = open_repo(folder, variant.source_workspace)
            mount = loaded.targets["tidy"].skill_mount
            assert mount is not None and (mount.origin / "SKILL.md").read_text().endswith(text)


def _options(source: Path) -> RunOptions:
    return RunOptions(repo=source / "agentic-evals")


def test_bad_input_is_one_line_and_exit_2_before_anything_is_created(
    demo_git: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    common = ["--repo", str(demo_git / "agentic-evals"), "--runs-dir", str(runs)]
    common += [
        "--behaviors",
        str(ROOT / "agentic-evals/targets/db-migrations/behaviors/reads-skill"),
    ]
    common += ["--scratch-root", str(tmp_path / "scratch")]
    code = run_cli(["evaluate", *common, "--baseline", "rev:does-not-exist"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "revision 'does-not-exist' does not exist" in err[0], err
    code = run_cli(["evaluate", *common, "--candidate", "none"])
    assert code == 2 and "cannot be `none`" in capsys.readouterr().err
    code = run_cli(["evaluate", *common, "--aa", "--baseline", "none"])
    assert code == 2
    assert not runs.exists()
    # Found while the variants' runs are planned (after the evaluation directory was made): the
    # directory goes again, nothing ran.
    code = run_cli(["evaluate", *common, "--run-id", "x", "--agent-option", "bogus=1"])
    assert code == 2 and "agent option 'bogus'" in capsys.readouterr().err
    assert not (runs / "x").exists()


# ---------------------------------------------------------------- statistics and report


def _result(
    case_id: str, statuses: list[str], reasons: list[str | None] | None = None
) -> CaseResult:
    reasons = reasons or [None] * len(statuses)
    attempts = [
        AttemptRecord(
            attempt=i + 1,
            workspace_root="/w",
            valid=reason is None,
            status=status,
            blocked_reason="insufficient-evidence" if status == "blocked" else None,
            reason=reason,
            thread_id="t",
            exit_code=0,
            session_complete=True,
            isolation="contained",
            duration_s=2.0,
            tokens={"total": 1000 if status == "pass" else 500},
        )
        for i, (status, reason) in enumerate(zip(statuses, reasons, strict=True))
    ]
    overall = "fail" if "fail" in statuses else "pass" if "pass" in statuses else "blocked"
    return CaseResult(
        case_id=case_id,
        workspace_root=None,
        thread_id=None,
        session_path=None,
        status=overall,
        attempts=attempts,
    )


def _variant(
    tmp_path: Path, label: str, results: list[CaseResult], *, checked: bool = False
) -> FinishedVariant:
    manifest = Manifest.model_construct(run_state="completed", skill_hash=None)  # type: ignore[call-arg]
    return FinishedVariant(
        label=label,
        kind="none" if checked else "current",
        source=label,
        description=label,
        run_dir=RunDir(tmp_path / label / "run"),
        relative_dir=f"variants/{label}/run",
        manifest=manifest,
        results=results,
        skill_dir=tmp_path / "skill" if checked else None,
        checked=checked,
    )


def _ab_result(
    case_ids: list[str], variants: list[VariantSummary], comparisons: list[VariantComparison]
) -> EvaluationResult:
    """An A/B evaluation of five attempts per case, as `evaluate` writes it, for the report."""
    return EvaluationResult(
        eval_id="e",
        mode="ab",
        target_id="t",
        suite_ids=["s"],
        case_ids=case_ids,
        agent="codex-exec",
        attempts=5,
        started_at="now",
        interleaved=True,
        variants=variants,
        comparisons=comparisons,
    )


def test_a_contaminated_attempt_is_not_counted() -> None:
    clean = _result("c", ["pass", "fail", "pass"])
    assert case_counts(clean) == (2, 3)
    dirty = _result("c", ["blocked", "pass"], ["contaminated: the skill reached it", None])
    assert case_counts(dirty) == (1, 1)
    # Red team 8: a contamination only the agent's own doing made is its block, not passed.
    faked = _result("c", ["blocked", "pass"], ["contaminated: the agent reached for ...", None])
    faked.attempts[0].blocked_by = "agent"
    assert case_counts(faked) == (1, 2)


def test_the_hurt_case_is_listed_first_and_the_report_has_the_contract_sections(
    tmp_path: Path,
) -> None:
    reference = _variant(
        tmp_path,
        "without_skill",
        [
            _result("helped", ["fail"] * 5),
            _result("hurt", ["pass"] * 5),
            _result("same", ["pass"] * 4 + ["blocked"], [None] * 4 + ["contaminated: copy"]),
        ],
        checked=True,
    )
    attempt = reference.run_dir.path / "case-artifacts/same/attempts/attempt-05"
    attempt.mkdir(parents=True)
    (attempt / "contamination.json").write_text(
        json.dumps(
            {
                "contaminated": True,
                "layers": ["discovery", "session", "trace"],
                "findings": [{"layer": "trace", "ref": "trace:9", "detail": "read a copy"}],
            }
        )
    )
    compared = _variant(
        tmp_path,
        "with_skill",
        [
            _result("helped", ["pass"] * 5),
            _result("hurt", ["fail"] * 5),
            _result("same", ["pass"] * 5),
        ],
    )
    comparison, _ = compare(reference, compared, None)
    assert comparison.cases[0].case_id == "hurt"
    assert comparison.hurt_cases == ["hurt"]
    assert comparison.cases[0].p_hurt_holm is not None and comparison.cases[0].p_hurt_holm < 0.05
    helped = next(c for c in comparison.cases if c.case_id == "helped")
    assert helped.significant and helped.difference == 1.0
    assert (helped.interval is not None) and helped.interval.low > 0
    assert comparison.overall.mean_difference == pytest.approx(0.0)
    assert comparison.headline.call == "no-difference"
    summaries = [variant_summary(reference), variant_summary(compared)]
    check = summaries[0].contamination
    assert check is not None
    assert (check.layers, check.attempts_checked) == (["discovery", "session", "trace"], 1)
    assert check.contaminated_attempts == ["same/attempt-05: trace trace:9: read a copy"]
    assert check.blocked_cases == ["same"]
    assert summaries[1].contamination is None
    assert (summaries[0].passed, summaries[0].counted) == (9, 14)
    result = _ab_result(["helped", "hurt", "same"], summaries, [comparison])
    report = render_eval_report(result)
    headings = [line for line in report.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Evaluation Summary",
        "## Scoring Table",
        "## Head-to-Head",
        "## Detailed Findings",
        "## Recommendations",
    ]
    rows = [line for line in report.splitlines() if line.startswith("| hurt |")]
    assert rows and "**hurt**" in rows[0]
    table = report.index("| hurt |")
    # then the rest, the smallest gain first
    assert table < report.index("| same |") < report.index("| helped |")
    assert "by layers: discovery, session, trace; 1 contaminated, cases blocked: same" in report
    assert "| without_skill | without_skill | 64.3% |" in report
    assert "hurts 1 case(s) significantly: hurt" in report
    page = render_eval_page(result, report)
    # The report reads as a page, not as its markdown source.
    shown = page.split("<h2>Report</h2>", 1)[1]
    assert "<h3>Scoring Table</h3>" in shown and "<th>95% CI (Wilson)</th>" in shown
    assert "<strong>hurt</strong>" in shown and "<li>" in shown
    assert "## " not in shown and "|---|" not in shown and "**" not in shown
    # The reports' one page template: their Content-Security-Policy, our own inlined script
    # only, nothing fetched.
    assert 'http-equiv="Content-Security-Policy" content="default-src' in page
    assert page.count("<script") == 1 and "<script src" not in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    # One interval bar and one dot per case; the hurt case's in red, first.
    assert page.count('stroke-width="3"') == 3 and page.count("<circle") == 3
    assert page.index("#c0392b") < page.index(">helped<")
    # A variant's description is the user's text: escaped, never markup.
    marked = summaries[0].model_copy(update={"description": "<img src=x onerror=alert(1)>"})
    page = render_eval_page(_ab_result(["helped"], [marked], []), report)
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_the_variants_attempts_are_interleaved() -> None:
    """A1, B1, A2, B2, ...: drift over the run touches every variant alike."""
    assert interleave([["a1", "a2", "a3"], ["b1", "b2", "b3"]]) == [
        "a1",
        "b1",
        "a2",
        "b2",
        "a3",
        "b3",
    ]
    assert interleave([["a1", "a2"], ["b1"], []]) == ["a1", "b1", "a2"]


def test_a_difference_inside_an_a_a_noise_floor_is_not_called(tmp_path: Path) -> None:
    from evaluator.evaluate.driver import read_noise_floor

    reference = _variant(tmp_path, "a", [_result(f"c{i}", ["fail"] * 3) for i in range(6)])
    compared = _variant(
        tmp_path, "b", [_result(f"c{i}", ["pass"] + ["fail"] * 2) for i in range(6)]
    )
    called, _ = compare(reference, compared, None)
    assert called.headline.call == "better"  # +33 pp on every one of six cases
    floor = EvaluationResult(
        eval_id="aa",
        mode="aa",
        target_id="t",
        suite_ids=[],
        case_ids=[],
        agent="codex-exec",
        attempts=3,
        started_at="now",
        interleaved=True,
        variants=[],
        comparisons=[],
        noise_floor=0.5,
    )
    (tmp_path / "aa").mkdir()
    (tmp_path / "aa/evaluation.json").write_text(floor.model_dump_json())
    assert read_noise_floor(tmp_path / "aa") == 0.5
    inside, _ = compare(reference, compared, read_noise_floor(tmp_path / "aa"))
    assert inside.headline.call == "inside-noise"
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab/evaluation.json").write_text(
        floor.model_copy(update={"mode": "ab", "noise_floor": None}).model_dump_json()
    )
    with pytest.raises(InputError, match="no A/A evaluation"):
        read_noise_floor(tmp_path / "ab")


def test_a_vendor_comparison_runs_each_targets_skill_on_the_shared_cases(demo_git: Path) -> None:
    """`evaluations/comparison/<id>.yaml`: each variant's own target's skill, laid where the
    shared cases' target keeps its skill, on the cases `shared_cases` names."""
    other = demo_git / ".agents/skills/db-alt"
    other.mkdir(parents=True)
    (other / "SKILL.md").write_text("---\nname: db-alt\n---\nanother vendor's skill\n")
    targets = demo_git / "agentic-evals/targets"
    (targets / "db-alt").mkdir()
    (targets / "db-alt/target.yaml").write_text(
        'target_id: "db-alt"\nentry_skill: ".agents/skills/db-alt/SKILL.md"\n'
        'default_suites: ["routing"]\nsuite_root: "cases"\n'
    )
    (targets / "db-alt/cases/routing").mkdir(parents=True)
    (targets / "db-alt/cases/routing/suite.yaml").write_text('suite_id: "routing"\ncases: []\n')
    path = demo_git / "agentic-evals/evaluations/comparison/vendors.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(
        'eval_id: "vendors"\nmode: "comparison"\nvariants:\n'
        '  ours: {label: "ours", target_id: "db-migrations"}\n'
        '  theirs: {label: "theirs", target_id: "db-alt"}\n'
        'shared_cases: {from_target: "db-migrations", suites: ["routing"]}\n'
    )
    repo = open_repo(demo_git / "agentic-evals", None)
    plan = load_evaluation(path, repo)
    assert (plan.mode, plan.target_id, plan.suites) == ("comparison", "db-migrations", ("routing",))
    assert [(v.label, v.kind) for v in plan.variants] == [("ours", "dir"), ("theirs", "dir")]
    selection = select_cases(repo, plan.target_id, plan.suites, ())
    with ExitStack() as stack:
        theirs = materialize(plan.variants[1], repo, selection.target, demo_git / "work", stack)
    laid = theirs.source_workspace / SKILL_DIR / "SKILL.md"
    assert laid.read_text().endswith("another vendor's skill\n")
    path.write_text(path.read_text().replace('target_id: "db-alt"', 'target_id: "nobody"'))
    with pytest.raises(InputError, match="unknown target 'nobody'"):
        load_evaluation(path, repo)


def test_the_report_prices_a_point_only_of_a_significant_gain(tmp_path: Path) -> None:
    """+50 pp over two cases is no significant gain (a sign-flip test over two cases cannot pass
    0.05): the report gives its cost but no price per point, which would read as a gain."""
    reference = _variant(
        tmp_path, "without_skill", [_result("a", ["fail"] * 5), _result("b", ["pass"] * 5)]
    )
    compared = _variant(
        tmp_path, "with_skill", [_result("a", ["pass"] * 5), _result("b", ["pass"] * 5)]
    )
    comparison, _ = compare(reference, compared, None)
    assert comparison.overall.mean_difference == pytest.approx(0.5)
    assert comparison.headline.call == "no-difference"
    assert comparison.cost.tokens_per_point is not None  # the price exists, unshown
    result = _ab_result(
        ["a", "b"], [variant_summary(reference), variant_summary(compared)], [comparison]
    )
    report = render_eval_report(result)
    assert "point of pass rate gained" not in report
    # "no significant gain" beside a case the table calls better read as a contradiction.
    assert "no significant overall gain, so no price per point" in report
    # Two cases can never show an overall gain: the advice is to add cases, not to drop a skill
    # that is significantly better on one of them.
    assert "Add cases: with 2 case(s)" in report and "significantly better on a." in report
    assert "does no good" not in report
    better = comparison.model_copy(
        update={"headline": comparison.headline.model_copy(update={"call": "better"})}
    )
    priced = render_eval_report(result.model_copy(update={"comparisons": [better]}))
    assert "point of pass rate gained" in priced


def test_the_advice_names_every_case_the_skill_is_significantly_better_on(
    tmp_path: Path,
) -> None:
    """Four cases, each 0/5 → 5/5: each is significant, the overall test cannot be (four cases).
    The advice named only the first three, so a reader took the fourth for no gain; it names
    all four, and past five names it says how many more the table holds. A cost that rounds to
    zero is shown as 0.0, not -0.0 (a saving that is not there)."""
    ids = ["a", "b", "c", "d"]
    reference = _variant(tmp_path, "without_skill", [_result(i, ["fail"] * 5) for i in ids])
    compared = _variant(tmp_path, "with_skill", [_result(i, ["pass"] * 5) for i in ids])
    comparison, _ = compare(reference, compared, None)
    assert [case.significant for case in comparison.cases] == [True] * 4
    cost = comparison.cost.model_copy(update={"extra_seconds_per_attempt": -0.01})
    result = _ab_result(
        ids,
        [variant_summary(reference), variant_summary(compared)],
        [comparison.model_copy(update={"cost": cost})],
    )
    report = render_eval_report(result)
    assert "significantly better on a, b, c, d." in report
    assert " 0.0 extra agent seconds" in report and "-0.0" not in report
    # A real saving is said as one: "18 fewer tokens", not "-18 extra tokens".
    cheaper = comparison.cost.model_copy(
        update={"extra_tokens_per_attempt": -18.0, "extra_seconds_per_attempt": -0.14}
    )
    cheaper_report = render_eval_report(
        _ab_result(
            ids,
            [variant_summary(reference), variant_summary(compared)],
            [comparison.model_copy(update={"cost": cheaper})],
        )
    )
    assert "Cost of the difference: 18 fewer tokens and 0.1 fewer agent seconds" in cheaper_report
    assert "-18" not in cheaper_report
    many = [f"case-{n}" for n in range(7)]
    reference = _variant(tmp_path / "7", "without_skill", [_result(i, ["fail"] * 5) for i in many])
    compared = _variant(tmp_path / "7", "with_skill", [_result(i, ["pass"] * 5) for i in many])
    comparison, _ = compare(reference, compared, None)
    assert comparison.headline.call == "better"  # seven cases can show it: no advice to add any
    hurt = comparison.model_copy(update={"hurt_cases": many})
    report = render_eval_report(result.model_copy(update={"comparisons": [hurt]}))
    assert "changes for case-0, case-1, case-2, case-3, case-4 and 2 more (Head-to-Head)" in report


def test_a_skill_that_changes_no_case_is_not_told_only_to_add_cases(tmp_path: Path) -> None:
    """Four cases, the same counts with and without the skill: the headline said only that
    four cases are too few, and the advice was to add cases, "however large" the gain, as if
    one were hidden. Both now say that no case is better with the skill."""
    ids = ["a", "b", "c", "d"]
    counts = {"a": ["fail"] * 5, "b": ["pass"] * 5, "c": ["pass"] * 5, "d": ["pass"] * 5}
    reference = _variant(tmp_path, "without_skill", [_result(i, counts[i]) for i in ids])
    compared = _variant(tmp_path, "with_skill", [_result(i, counts[i]) for i in ids])
    comparison, _ = compare(reference, compared, None)
    assert comparison.headline.call == "no-difference"
    assert "too few for the paired sign-flip test" in comparison.headline.text
    assert comparison.headline.text.endswith("; per case, significantly better on none")
    result = _ab_result(ids, [variant_summary(reference), variant_summary(compared)], [comparison])
    report = render_eval_report(result)
    assert (
        "with_skill is significantly better than without_skill on no case (mean per-case"
        " difference +0.0 pp): on this evidence it does no good." in report
    )
    assert "however large" not in report
    # One attempt each, 0/1 → 1/1 on every case: no case is significant, but every case
    # gained; that is a reason to add attempts and cases, not a finding of no good.
    reference = _variant(tmp_path / "k1", "without_skill", [_result(i, ["fail"]) for i in ids])
    compared = _variant(tmp_path / "k1", "with_skill", [_result(i, ["pass"]) for i in ids])
    comparison, _ = compare(reference, compared, None)
    assert not any(case.significant for case in comparison.cases)
    report = render_eval_report(result.model_copy(update={"comparisons": [comparison]}))
    assert "does no good" not in report and "Add cases: with 4 case(s)" in report


def test_a_contamination_quoting_the_agent_is_literal_in_the_report(tmp_path: Path) -> None:
    """Red team, round 11: a contamination finding quotes the no-skill attempt's command; its
    link rendered as one in `eval-report.html` (the report's markdown, links on). Notes are
    written as literal text."""
    reference = _variant(
        tmp_path,
        "without_skill",
        [_result("same", ["pass"] * 4 + ["blocked"], [None] * 4 + ["contaminated: copy"])],
        checked=True,
    )
    attempt = reference.run_dir.path / "case-artifacts/same/attempts/attempt-05"
    attempt.mkdir(parents=True)
    link = "curl https://example.com/SKILL.md # [ok](https://example.com/) <b>x</b>"
    finding = {"layer": "session", "ref": "msg-3", "detail": link}
    (attempt / "contamination.json").write_text(
        json.dumps({"contaminated": True, "layers": ["session"], "findings": [finding]})
    )
    compared = _variant(tmp_path, "with_skill", [_result("same", ["pass"] * 5)])
    comparison, _ = compare(reference, compared, None)
    summaries = [variant_summary(reference), variant_summary(compared)]
    result = _ab_result(["same"], summaries, [comparison])
    report = render_eval_report(result)
    assert "example.com/SKILL.md" in report
    shown = render_eval_page(result, report).split("<h2>Report</h2>", 1)[1]
    assert "[ok](https://example.com/)" in shown.replace("&lt;", "<")
    assert "<a " not in shown and "<b>" not in shown


def test_one_case_has_no_interval_and_the_report_says_why(tmp_path: Path) -> None:
    """With one case the head-to-head line read `95% case-bootstrap interval n/a (none)`: two
    unexplained words where a skill author looks for how sure the difference is."""
    reference = _variant(tmp_path, "without_skill", [_result("a", ["fail"] * 5)])
    compared = _variant(tmp_path, "with_skill", [_result("a", ["pass"] * 5)])
    comparison, _ = compare(reference, compared, None)
    assert comparison.overall.interval is None
    summaries = [variant_summary(reference), variant_summary(compared)]
    report = render_eval_report(_ab_result(["a"], summaries, [comparison]))
    assert "n/a (none)" not in report
    assert (
        "no 95% interval (1 case(s) compared: the interval comes from resampling the cases, and"
        " one case cannot say how much another would differ; add cases for one)" in report
    )
    both = [_result("a", ["pass"] * 5), _result("b", ["pass"] * 5)]
    two, _ = compare(
        _variant(tmp_path, "none2", [_result("a", ["fail"] * 5), _result("b", ["pass"] * 5)]),
        _variant(tmp_path, "skill2", both),
        None,
    )
    shown = render_eval_report(_ab_result(["a", "b"], summaries, [two]))
    assert "95% case-bootstrap interval [" in shown
