"""Variants of skill-creator's `evals.json` that public repos keep and the loader refused
(docs/real-repos.md, "Real evals files, ninth session"): each test builds its own minimal
input of that shape."""

from __future__ import annotations

import json
import subprocess
from contextlib import ExitStack
from pathlib import Path

import pytest

from evaluator.artifacts.models import AssertionResult, CaseResult
from evaluator.artifacts.report_findings import eval_fixes
from evaluator.cli.main import main
from evaluator.cli.main import run_cli as run_cli_code
from evaluator.contract.models import AnyOfCheck, WorkspaceFileMatchesCheck
from evaluator.evaluate.variants import materialize, parse_variant, suite_drift
from evaluator.evidence import SessionEvidence
from evaluator.evidence.records import EvidenceRecord
from evaluator.judge import JudgeContext
from evaluator.judge.checks.attempt_sessions import run_check
from evaluator.plan import open_repo, select_cases
from evaluator.repo import load_repo
from tests.support import codex_or_skip, scratch_dir


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def skill_folder(folder: Path, evals: object, name: str = "lint-fixer") -> Path:
    """A skill at `folder` with `evals/evals.json` holding `evals`."""
    (folder / "evals").mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\nBody.\n")
    (folder / "evals/evals.json").write_text(json.dumps(evals, indent=2))
    return folder / "evals/evals.json"


def test_a_bare_list_with_string_ids_expect_and_fail_lists_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`[{id: "x", prompt, expect: [...], fail: [...]}]` without `skill_name`: each `expect`
    sentence a required entry, each `fail` sentence a forbidden entry it fails on."""
    evals = [
        {
            "id": "quick-fix",
            "prompt": "Fix the lint errors in app.py",
            "expect": ["ruff is run before editing", "the answer lists each fix"],
            "fail": ["the tests are deleted"],
        },
        {"id": "no-op", "prompt": "Is app.py clean?", "expect": ["says whether it is clean"]},
    ]
    path = skill_folder(tmp_path / "lint-fixer", evals)
    code, out, err = run_cli(["validate", "--evals", str(path.parent.parent)], capsys)
    assert code == 0 and out.startswith("ok: 1 target(s), 2 case(s)"), err
    repo, diagnostics = load_repo(path, None)
    assert repo is not None and not diagnostics.errors and not diagnostics.warnings
    cases = {c.case.case_id: c.case for c in repo.targets["lint-fixer"].suites["evals"].cases}
    assert list(cases) == ["eval-quick-fix", "eval-no-op"]
    first = cases["eval-quick-fix"].assertions
    assert [e.pass_criteria for e in first.required] == [
        ["ruff is run before editing"],
        ["the answer lists each fix"],
    ]
    assert [(e.description, e.fail_signals) for e in first.forbidden] == [
        ("the tests are deleted", ["the tests are deleted"])
    ]


def test_a_mistake_in_a_bare_list_is_located_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = skill_folder(tmp_path / "lint-fixer", [{"id": 1, "prompt": "p", "expect": "one"}])
    code, _, err = run_cli(["validate", "--evals", str(path)], capsys)
    assert code == 2 and "Traceback" not in err
    assert "evals.json:5:" in err and "[0].expect: expected a list" in err


def test_a_version_and_categories_load_each_category_a_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A top-level `version` is the file's version; `category` groups evals into suites (a
    `case_set` still wins), so one category runs with `--suite`."""
    evals = {
        "skill_name": "lint-fixer",
        "version": "0.3.0",
        "evals": [
            {"id": 1, "category": "fixing", "prompt": "Fix app.py", "expectations": ["fixed"]},
            {"id": 2, "category": "non-trigger", "prompt": "Write a poem", "expectations": ["x"]},
            {
                "id": 3,
                "category": "fixing",
                "case_set": "release",
                "prompt": "p",
                "expectations": ["y"],
            },
        ],
    }
    path = skill_folder(tmp_path / "lint-fixer", evals)
    code, out, err = run_cli(["validate", "--evals", str(path)], capsys)
    assert code == 0 and "3 case(s)" in out and "warning" not in err, err
    repo, _ = load_repo(path, None)
    assert repo is not None
    suites = repo.targets["lint-fixer"].suites
    assert {s: [c.case.case_id for c in suites[s].cases] for s in suites} == {
        "fixing": ["eval-1"],
        "non-trigger": ["eval-2"],
        "release": ["eval-3"],
    }


def _context(root: Path, answer: str) -> JudgeContext:
    evidence = SessionEvidence(
        session_path="s",
        final_answer=answer,
        records=[EvidenceRecord(id="msg-1", kind="final_answer", line=1, text=answer)],
    )
    return JudgeContext(evidence=evidence, workspace=root, ref_prefix="e.json")


def test_must_have_patterns_search_the_answer_and_the_files_the_case_did_not_give(
    tmp_path: Path,
) -> None:
    """`must_have` / `must_not_have` regular expressions, case-insensitive as the authors'
    harnesses search them, over the final answer and the workspace files other than the
    eval's own `files` (an input holding a forbidden word is not the agent's output)."""
    evals = {
        "skill_name": "lint-fixer",
        "evals": [
            {
                "id": 0,
                "prompt": "Convert evals/inputs/old.vhd",
                "files": ["evals/inputs/old.vhd"],
                "must_have": ["always_ff", "module\\s+cnt\\b"],
                "must_not_have": ["\\bwait\\b"],
                "manual_review_expected": True,
            }
        ],
    }
    path = skill_folder(tmp_path / "lint-fixer", evals)
    (path.parent / "inputs").mkdir()
    (path.parent / "inputs/old.vhd").write_text("process begin wait; end process;\n")
    repo, diagnostics = load_repo(path, None)
    assert repo is not None and not diagnostics.errors, diagnostics.errors
    case = repo.targets["lint-fixer"].suites["evals"].cases[0].case
    required, forbidden = case.assertions.required, case.assertions.forbidden
    assert [e.description for e in required] == [
        "the final answer or a file the agent left matches /always_ff/",
        "the final answer or a file the agent left matches /module\\s+cnt\\b/",
    ]
    anywhere = forbidden[0].checks[0]
    assert isinstance(anywhere, AnyOfCheck)
    in_files = anywhere.operands[1]
    assert isinstance(in_files, WorkspaceFileMatchesCheck)
    assert in_files.exclude == ["evals/inputs/old.vhd"]

    workspace = tmp_path / "attempt"
    (workspace / "evals/inputs").mkdir(parents=True)
    (workspace / "evals/inputs/old.vhd").write_text("process begin wait; end process;\n")
    (workspace / "cnt.sv").write_text("MODULE cnt;\n  ALWAYS_FF @(posedge clk) q <= d;\n")
    context = _context(workspace, "Wrote cnt.sv.")
    assert run_check(required[0].checks[0], context).status == "pass"
    assert run_check(required[1].checks[0], context).status == "pass"
    # the input's `wait` is not the agent's; the same word in the answer is
    assert run_check(anywhere, context).status == "fail"
    said = _context(workspace, "I kept the WAIT statement.")
    assert run_check(anywhere, said).status == "pass"
    # nothing but the given input and its folders: no file of the agent's, said as such
    (workspace / "cnt.sv").unlink()
    missed = run_check(required[0].checks[0], _context(workspace, "Done."))
    assert missed.status == "fail"
    assert missed.detail == (
        "final answer does not match /(?ims)always_ff/; no file matching **/* in the workspace"
        " but the case's own inputs (evals/inputs/old.vhd)"
    )


def test_typed_pattern_assertions_of_a_public_suite_load_and_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite shaped as 951050634/pdf-trans2md-SKILL's (round 6, docs/real-repos.md): the
    title as `eval_name`, `files` as `{path, purpose}`, and assertions typed `content_contains`,
    `content_not_contains`, `behavior_contains`, `behavior_not_contains` and `ordered_content`
    with a `pattern` or `patterns`. On `main` it was refused, a line per key (`eval_name`,
    `purpose`, `pattern`, `patterns`). A pattern RE2 cannot compile is searched as plain text."""
    evals = {
        "skill_name": "lint-fixer",
        "version": "3.0",
        "evals": [
            {
                "id": 1,
                "eval_name": "bilingual-order",
                "prompt": "Translate inputs/paper.txt, original before translation.",
                "files": [{"path": "inputs/paper.txt", "purpose": "a two-column page"}],
                "assertions": [
                    {
                        "text": "renders pages",
                        "type": "behavior_contains",
                        "pattern": "render\\.py.*--dpi 280",
                    },
                    {
                        "text": "no text extraction",
                        "type": "behavior_not_contains",
                        "pattern": "extract\\.py",
                    },
                    {
                        "text": "quotes the translation",
                        "type": "content_contains",
                        "pattern": "^> [*]+tr:",
                    },
                    {
                        "text": "no old marker",
                        "type": "content_not_contains",
                        "pattern": "OLD-MARKER",
                    },
                    {"type": "ordered_content", "patterns": ["Original text", "> **tr:**"]},
                ],
            }
        ],
    }
    path = skill_folder(tmp_path / "lint-fixer", evals)
    (path.parent.parent / "inputs").mkdir()
    (path.parent.parent / "inputs/paper.txt").write_text("Original text. OLD-MARKER\n")
    code, out, err = run_cli(["validate", "--evals", str(path.parent.parent)], capsys)
    assert code == 0 and out.startswith("ok: 1 target(s), 1 case(s)"), err
    assert err.count("warning:") == 1 and "searched as plain text: > **tr:**" in err, err
    repo, _ = load_repo(path, None)
    assert repo is not None
    case = repo.targets["lint-fixer"].suites["evals"].cases[0].case
    assert case.title == "bilingual-order"
    assert case.setup.copy_fixtures is not None
    assert [c.target for c in case.setup.copy_fixtures] == ["inputs/paper.txt"]
    entries = case.assertions.required
    assert [e.description for e in entries[:4]] == [
        "renders pages",
        "no text extraction",
        "quotes the translation",
        "no old marker",
    ]
    assert entries[4].description == "the output matches Original text, then > **tr:**"

    workspace = tmp_path / "attempt"
    (workspace / "inputs").mkdir(parents=True)
    (workspace / "inputs/paper.txt").write_text("Original text. OLD-MARKER\n")
    (workspace / "out.md").write_text("Original text.\n\n> **tr:** translated\n")
    answer = "Done: out.md."
    evidence = SessionEvidence(
        session_path="s",
        final_answer=answer,
        records=[
            EvidenceRecord(
                id="msg-1",
                kind="command_observed",
                line=1,
                call_id="c1",
                command="python3 scripts/render.py inputs/paper.txt --dpi 280",
                exit_code=0,
            ),
            EvidenceRecord(id="msg-2", kind="final_answer", line=2, text=answer),
        ],
    )
    context = JudgeContext(evidence=evidence, workspace=workspace, ref_prefix="e.json")
    verdicts = [run_check(e.checks[0], context).status for e in entries]
    # the input's OLD-MARKER is not the agent's output; the quote is at a line's start
    assert verdicts == ["pass", "pass", "pass", "pass", "pass"], [
        run_check(e.checks[0], context).detail for e in entries
    ]
    # the other way round: the original after its translation, the marker in the output, the
    # text extractor run, no page rendered
    (workspace / "out.md").write_text("> **tr:** translated\n\nOriginal text. OLD-MARKER\n")
    evidence.records[0].command = "python3 scripts/extract.py inputs/paper.txt"
    assert [run_check(e.checks[0], context).status for e in entries] == [
        "fail",
        "fail",
        "pass",
        "fail",
        "fail",
    ]


@pytest.mark.parametrize(
    "item,message",
    [
        (
            {"files": [{"path": "inputs/paper.txt", "purpose": "p", "size": 3}]},
            "files[0].size: unknown field",
        ),
        (
            {"assertions": [{"type": "ordered_content", "patterns": ["only one"]}]},
            "assertions[0].patterns: expected a list of two or more patterns",
        ),
        (
            {"assertions": [{"type": "behavior_contains"}]},
            "assertions[0].pattern: a behavior_contains assertion needs a non-empty `pattern`",
        ),
        ({"eval_name": 3}, "evals[0].eval_name: expected a string"),
    ],
)
def test_a_mistake_in_a_public_suites_typed_assertion_is_one_located_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], item: dict[str, object], message: str
) -> None:
    evals = {"skill_name": "lint-fixer", "evals": [{"id": 1, "prompt": "Translate.", **item}]}
    path = skill_folder(tmp_path / "lint-fixer", evals)
    (path.parent.parent / "inputs").mkdir()
    (path.parent.parent / "inputs/paper.txt").write_text("x\n")
    code, _out, err = run_cli(["validate", "--evals", str(path.parent.parent)], capsys)
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], err


def test_an_evals_json_entry_no_judge_decides_is_not_told_to_add_checks(tmp_path: Path) -> None:
    """An evals.json cannot hold `checks:`: its report's eval fix says what can decide prose
    there (a judge model, typed assertions)."""
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals/evals.json").write_text("{}")
    unclear = CaseResult(
        case_id="eval-1",
        workspace_root=None,
        thread_id=None,
        session_path=None,
        status="blocked",
        blocked_reason="unclear-rule",
        assertions=[
            AssertionResult(
                summary="The answer is kind.", status="blocked", blocked_reason="unclear-rule"
            )
        ],
        case_file="evals/evals.json",
    )
    (fix,) = eval_fixes([unclear], tmp_path)
    assert fix.why == (
        "1 assertion(s) no judge can decide (give a judge model or write typed assertions):"
        ' "The answer is kind."'
    )
    # Several evals of one file: each fix names its eval; one with nothing to judge is listed.
    empty = unclear.model_copy(update={"case_id": "eval-2", "assertions": []})
    first, second = eval_fixes([unclear, empty], tmp_path)
    assert (first.path, second.path) == ("evals/evals.json", "evals/evals.json")
    assert first.why.startswith("eval-1: 1 assertion(s) no judge can decide")
    assert second.why == (
        "eval-2: no assertions: nothing can pass or fail the case (add expectations)"
    )


def test_files_naming_the_skill_itself_are_references_not_copies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`files: ["SKILL.md", "references/x.md"]` lists the skill's own documents behind the
    expected output: copying them would put the skill in every workspace a second time (and
    into a no-skill variant's); they become the case's references, said once. One the prompt
    names is the task's input and is copied."""
    evals = {
        "skill_name": "lint-fixer",
        "evals": [
            {
                "id": 1,
                "prompt": "p",
                "expectations": ["x"],
                "files": ["SKILL.md", "references/rules.md", "evals/files/in.txt"],
            },
            {"id": 2, "prompt": "q", "expectations": ["y"], "files": ["references/rules.md"]},
            {
                "id": 3,
                "prompt": "Review the local SKILL.md for clarity",
                "expectations": ["z"],
                "files": ["SKILL.md"],
            },
        ],
    }
    path = skill_folder(tmp_path / "lint-fixer", evals)
    (tmp_path / "lint-fixer/references").mkdir()
    (tmp_path / "lint-fixer/references/rules.md").write_text("rules\n")
    (path.parent / "files").mkdir()
    (path.parent / "files/in.txt").write_text("input\n")
    code, _, err = run_cli(["validate", "--evals", str(path)], capsys)
    assert code == 0, err
    assert err.count("warning") == 1
    assert "evals.json:10:" in err
    assert "files of the skill itself that no prompt names (SKILL.md, references/rules.md)" in err
    repo, _ = load_repo(path, None)
    assert repo is not None
    first, second, named = (c.case for c in repo.targets["lint-fixer"].suites["evals"].cases)
    copies = first.setup.copy_fixtures or []
    assert [c.target for c in copies] == ["evals/files/in.txt"]
    assert first.notes.likely_fix_files == ["SKILL.md", "references/rules.md"]
    assert second.setup.copy_fixtures is None
    assert second.notes.likely_fix_files == ["references/rules.md"]
    # a file the prompt names is the task's input: copied as skill-creator copies it
    assert [c.target for c in named.setup.copy_fixtures or []] == ["SKILL.md"]


def test_a_file_whose_evals_have_no_prompt_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another harness's inputs under an evals name (a script's `type`, `target`, `inputs`,
    `expectations`, no `prompt`): one line naming the file and what is missing, exit 2."""
    evals = {
        "skill_name": "lint-fixer",
        "evals": [
            {
                "id": 7,
                "name": "scan",
                "type": "scan",
                "target": "fixtures/repo",
                "expectations": ["a"],
            },
            {"id": 8, "name": "report", "type": "report_md", "inputs": ["x.json"]},
        ],
    }
    path = skill_folder(tmp_path / "lint-fixer", evals)
    local = path.with_name("local-evals.json")
    path.rename(local)
    code, _, err = run_cli(["validate", "--evals", str(local)], capsys)
    assert code == 2 and "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "local-evals.json:4:" in lines[0]
    assert "no eval has a `prompt`" in lines[0] and "type" in lines[0]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.email=t@t", "-c", "user.name=t", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_a_revision_is_judged_with_the_current_suite_and_a_changed_one_is_said(
    tmp_path: Path,
) -> None:
    """`rev:` variants are measured with the current evals.json, the fixed yardstick: a
    revision whose evals.json differs (another case set included) is said, never refused and
    never silently used."""
    cases: list[dict[str, object]] = [{"id": 1, "prompt": "p", "expectations": ["x"]}]
    evals = {"skill_name": "lint-fixer", "evals": cases}
    path = skill_folder(tmp_path / "repo/lint-fixer", evals)
    _git(tmp_path / "repo", "init", "-q", "-b", "main")
    _git(tmp_path / "repo", "add", "-A")
    _git(tmp_path / "repo", "commit", "-q", "-m", "v1")
    first = _git(tmp_path / "repo", "rev-parse", "HEAD")
    repo = open_repo(path.parent.parent, None)
    target = select_cases(repo, None, (), ()).target
    spec = parse_variant(f"rev:{first}", "old_skill")
    assert suite_drift(spec, first, repo, target) is None
    cases.append({"id": 2, "prompt": "q", "expectations": ["y"]})
    path.write_text(json.dumps(evals))
    repo = open_repo(path.parent.parent, None)
    target = select_cases(repo, None, (), ()).target
    note = suite_drift(spec, first, repo, target)
    assert note is not None
    assert note.startswith(f"old_skill (rev:{first}) is judged with the current evals.json")
    assert "fixed yardstick" in note
    with ExitStack() as stack:
        old = materialize(spec, repo, target, tmp_path / "work", stack)
        assert old.commit == first


def test_files_written_from_the_folder_holding_the_repo_are_found_below_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`files: ["checkout/evals/fixtures/x"]` written where the repo is checked out as
    `checkout/` (any clone name): found as `evals/fixtures/x` below the repo, placed at the
    path as written (the prompt names it), with a located warning."""
    evals = {
        "skill_name": "lint-fixer",
        "evals": [
            {
                "id": 1,
                "prompt": "Check checkout/evals/fixtures/bad.py",
                "expectations": ["x"],
                "files": ["checkout/evals/fixtures/bad.py"],
            }
        ],
    }
    skill = tmp_path / "repo/skills/lint-fixer"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: lint-fixer\ndescription: d\n---\nBody.\n")
    (tmp_path / "repo/evals/fixtures").mkdir(parents=True)
    (tmp_path / "repo/evals/fixtures/bad.py").write_text("import os\n")
    (tmp_path / "repo/evals/evals.json").write_text(json.dumps(evals, indent=2))
    code, out, err = run_cli(["validate", "--evals", str(tmp_path / "repo")], capsys)
    assert code == 0 and "1 case(s)" in out, err
    assert "evals.json:11:" in err and "found as evals/fixtures/bad.py" in err
    repo, _ = load_repo(tmp_path / "repo/evals/evals.json", None)
    assert repo is not None
    case = repo.targets["lint-fixer"].suites["evals"].cases[0].case
    copies = case.setup.copy_fixtures or []
    assert [(c.source, c.target) for c in copies] == [
        ("evals/fixtures/bad.py", "checkout/evals/fixtures/bad.py")
    ]


@pytest.mark.codex
@pytest.mark.slow
def test_evaluate_runs_a_revision_with_fewer_evals_on_the_current_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real Codex CLI on both versions: v1's evals.json had one eval, the current has two.
    Both variants run both evals (refused before as "another case set"), and the warning and
    the evaluation's note say the current suite judged v1."""
    codex_or_skip()
    cases: list[dict[str, object]] = [{"id": 1, "prompt": "Tidy app.py", "expectations": ["x"]}]
    path = skill_folder(tmp_path / "repo/lint-fixer", {"skill_name": "lint-fixer", "evals": cases})
    _git(tmp_path / "repo", "init", "-q", "-b", "main")
    _git(tmp_path / "repo", "add", "-A")
    _git(tmp_path / "repo", "commit", "-q", "-m", "v1")
    cases.append({"id": 2, "prompt": "Tidy lib.py", "expectations": ["y"]})
    path.write_text(json.dumps({"skill_name": "lint-fixer", "evals": cases}))
    behaviors = tmp_path / "behaviors"
    behaviors.mkdir()
    (behaviors / "loads.yaml").write_text(
        'name: "loads"\nmatch:\n  prompt_regex: "Tidy"\nsteps:\n'
        "  - skill: lint-fixer\n  - final: done\n"
    )
    with scratch_dir() as scratch:
        argv = ["evaluate", "--evals", str(path.parent.parent), "--baseline", "rev:HEAD"]
        argv += ["--agent", "codex-exec", "--behaviors", str(behaviors), "--attempts", "1"]
        argv += ["--runs-dir", str(tmp_path / "runs"), "--scratch-root", str(scratch)]
        code = run_cli_code([*argv, "--run-id", "versions"])
    err = capsys.readouterr().err
    assert code == 1  # prose without a judge model: nothing compared, but it ran
    assert "warning: old_skill (rev:HEAD) is judged with the current evals.json" in err
    directory = tmp_path / "runs/versions"
    result = json.loads((directory / "evaluation.json").read_text())
    assert result["case_ids"] == ["eval-1", "eval-2"]
    assert any("fixed yardstick" in note for note in result["notes"])
    for label in ("old_skill", "new_skill"):
        manifest = json.loads((directory / f"variants/{label}/run/manifest.json").read_text())
        assert manifest["resolved_case_ids"] == ["eval-1", "eval-2"]
