"""The judge chain: its fixed order, check operators, what counts as a read or a write, the model
step's mapping, the criteria compiler and the coverage `explain` reports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evaluator.adapters import normalize_session
from evaluator.artifacts.models import AttemptFile
from evaluator.cli.main import main
from evaluator.contract.models import Case
from evaluator.evidence import SessionEvidence
from evaluator.judge import JUDGE_CHAIN, JudgeContext, judge_case
from evaluator.judge.chain import plan_entries
from evaluator.judge.criteria import compile_entry, compile_sentence
from evaluator.judge.grading import GradeItem, GradeResult
from evaluator.judge.literal_checks import GIT_OPTIONS, literal_command
from evaluator.pipeline.rejudge import _isolation
from evaluator.plan import open_repo, select_cases
from tests.conftest import ROOT, copy_demo
from tests.judge.test_consultation import _rollout
from tests.support import judgement_report

WS = Path("/ws")
SKILL = ".agents/skills/s"
FIXTURES = (
    ROOT / "tests/fixtures/upstream/agentic-evals",
    ROOT / "tests/fixtures/prose-variants/agentic-evals",
)


def _evidence() -> SessionEvidence:
    ev = SessionEvidence(
        session_path="s.jsonl", complete=True, final_answer="see http://localhost:3000"
    )
    ev.add("command_observed", 1, command=f"wc -l {SKILL}/SKILL.md", exit_code=0, call_id="c1")
    ev.add("file_read_observed", 1, path=f"/ws/{SKILL}/SKILL.md", access="metadata", call_id="c1")
    ev.add("command_observed", 2, command=f"cat {SKILL}/docs.txt", exit_code=0, call_id="c2")
    ev.add("file_read_observed", 2, path=f"/ws/{SKILL}/docs.txt", access="read", call_id="c2")
    ev.add("command_observed", 3, command="python3 tool.py", exit_code=1, call_id="c3")
    ev.add("file_read_observed", 3, path="/ws/tool.py", access="exec", call_id="c3")
    ev.add("file_write_observed", 4, path="/ws/ok.txt", access="write", outcome="ok")
    ev.add("file_write_observed", 5, path="/ws/failed.txt", access="write", outcome="failed")
    ev.add("file_write_observed", 6, path="/ws/unknown.txt", access="write", outcome="unknown")
    ev.add("final_answer", 7, text="see http://localhost:3000")
    return ev


def _case(
    required: list[dict[str, object]], forbidden: list[dict[str, object]] | None = None
) -> Case:
    return Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {"required": required, "forbidden": forbidden or []},
        }
    )


class ScriptedGrader:
    """Answers every item with the verdict named for its entry id, and counts its calls."""

    def __init__(self, verdicts: dict[str, str]) -> None:
        self.verdicts = verdicts
        self.calls: list[list[GradeItem]] = []

    def grade(
        self, items: list[GradeItem], evidence: SessionEvidence, workspace: Path, record_dir: Path
    ) -> list[GradeResult]:
        self.calls.append(items)
        return [
            GradeResult(
                i.entry_id,
                self.verdicts[i.entry_id],  # type: ignore[arg-type]
                "because",
                ("msg-2",),
                f"judge/{i.entry_id}.json",
            )
            for i in items
        ]


def _judge(case: Case, grader: ScriptedGrader | None = None) -> list[tuple[str, str, str | None]]:
    context = JudgeContext(
        evidence=_evidence(),
        workspace=WS,
        ref_prefix="e.json",
        workspace_available=False,
        grader=grader,
    )
    return [
        (e.status, e.decided_by or "", e.blocked_reason) for e in judge_case(case, context).entries
    ]


def test_the_chain_asks_checks_then_rules_then_the_model() -> None:
    assert JUDGE_CHAIN == ("checks", "rules", "model")
    # The prose alone passes ("a command invoking"); the author's exit-code check must decide.
    entry = {
        "description": "the tool succeeded",
        "pass_criteria": ["The accepted session evidence shows a command invoking `tool.py`."],
        "checks": [{"kind": "command_ran", "pattern": r"tool\.py", "exit_code": 0}],
    }
    assert _judge(_case([entry])) == [("fail", "checks", None)]
    prose_only = {k: v for k, v in entry.items() if k != "checks"}
    assert _judge(_case([prose_only])) == [("pass", "rules", None)]


@pytest.mark.parametrize(
    "check,expected",
    [
        ({"not": {"kind": "file_read", "path": f"{SKILL}/x.md"}}, "pass"),
        ({"not": {"kind": "file_read", "path": f"{SKILL}/docs.txt"}}, "fail"),
        ({"not": {"kind": "workspace_file_exists", "path": "a"}}, "blocked"),
        (
            {
                "any_of": [
                    {"kind": "file_read", "path": "x"},
                    {"kind": "file_read", "path": "*.txt"},
                ]
            },
            "pass",
        ),
        (
            {"any_of": [{"kind": "file_read", "path": "x"}, {"kind": "file_read", "path": "y"}]},
            "fail",
        ),
        # One operand that holds decides an any_of even when another cannot be decided.
        (
            {
                "any_of": [
                    {"kind": "workspace_file_exists", "path": "a"},
                    {"kind": "final_answer_url"},
                ]
            },
            "pass",
        ),
        (
            {
                "all_of": [
                    {"kind": "final_answer_url"},
                    {"kind": "workspace_file_exists", "path": "a"},
                ]
            },
            "blocked",
        ),
        ({"all_of": [{"kind": "final_answer_url"}, {"kind": "file_read", "path": "y"}]}, "fail"),
        ({"not": {"any_of": [{"kind": "file_read", "path": "x"}]}}, "pass"),
    ],
)
def test_not_any_of_all_of(check: dict[str, object], expected: str) -> None:
    [(status, decided_by, _)] = _judge(_case([{"description": "d", "checks": [check]}]))
    assert (status, decided_by) == (expected, "checks")


def test_consultation_needs_content_not_metadata() -> None:
    read = {"kind": "file_read", "path": f"{SKILL}/SKILL.md"}
    assert _judge(_case([{"description": "d", "checks": [read]}]))[0][0] == "fail"
    before = {"kind": "read_before", "first": f"{SKILL}/SKILL.md", "then": f"{SKILL}/*.txt"}
    assert _judge(_case([{"description": "d", "checks": [before]}]))[0][0] == "fail"
    context = JudgeContext(evidence=_evidence(), workspace=WS, ref_prefix="e")
    entry = judge_case(_case([{"description": "d", "checks": [read]}]), context).entries[0]
    assert "content never reached the agent" in entry.checks[0].detail


@pytest.mark.parametrize(
    "path,required,forbidden",
    [
        ("ok.txt", ("pass", None), ("fail", None)),
        ("failed.txt", ("fail", None), ("pass", None)),
        ("unknown.txt", ("blocked", "insufficient-evidence"), ("blocked", "insufficient-evidence")),
    ],
)
def test_a_write_counts_only_when_it_took_effect(
    path: str, required: tuple[str, str | None], forbidden: tuple[str, str | None]
) -> None:
    entry = {"description": "d", "checks": [{"kind": "file_written", "path": path}]}
    [(status, _, reason)] = _judge(_case([entry]))
    assert (status, reason) == required
    [(status, _, reason)] = _judge(_case([], [entry]))
    assert (status, reason) == forbidden


def test_write_outcome_falls_back_on_the_exit_code_of_its_call() -> None:
    ev = _evidence()
    ev.add("file_write_observed", 3, path="/ws/from-tool.txt", access="write", call_id="c3")
    context = JudgeContext(evidence=ev, workspace=WS, ref_prefix="e")
    entry = {"description": "d", "checks": [{"kind": "file_written", "path": "from-tool.txt"}]}
    assert judge_case(_case([entry]), context).status == "fail"  # tool.py exited 1


@pytest.mark.parametrize(
    "check,expected,detail",
    [
        ({"kind": "script_ran", "path": "tool.py"}, "pass", "ran"),
        ({"kind": "script_ran", "path": "tool.py", "exit_code": 1}, "pass", "exit code 1"),
        ({"kind": "script_ran", "path": "tool.py", "exit_code": 0}, "fail", "exited with 1"),
        # `cat docs.txt` names it; naming a file is not executing it.
        ({"kind": "script_ran", "path": f"{SKILL}/docs.txt"}, "fail", "never executed"),
        ({"kind": "script_ran", "path": "nowhere.sh"}, "fail", "no execution"),
    ],
)
def test_a_script_ran_only_when_it_was_executed(
    check: dict[str, object], expected: str, detail: str
) -> None:
    context = JudgeContext(
        evidence=_evidence(), workspace=WS, ref_prefix="e", workspace_available=False
    )
    entry = judge_case(_case([{"description": "d", "checks": [check]}]), context).entries[0]
    assert entry.status == expected
    assert detail in entry.checks[0].detail


@pytest.mark.parametrize(
    "command,exit_code,expected",
    [
        ("python3 run.py", 0, "pass"),
        ("true || python3 run.py", 0, "blocked"),
        ("for f in; do python3 run.py; done", 0, "blocked"),
        ("ls nowhere && python3 run.py", 2, "blocked"),
        ("ls && python3 run.py", 0, "pass"),
    ],
)
def test_a_script_that_may_not_have_run_is_no_run(
    command: str, exit_code: int, expected: str
) -> None:
    """Red team, round 2: `script_ran` without a command pattern took any execution the
    analysis saw, even one after `||` or in a loop that runs nothing."""
    ev = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
    ev.add("command_observed", 1, command=command, workdir="/ws", exit_code=exit_code, call_id="c1")
    ev.add("file_read_observed", 1, path="/ws/run.py", access="exec", call_id="c1")
    context = JudgeContext(evidence=ev, workspace=WS, ref_prefix="e", workspace_available=False)
    check = {"kind": "script_ran", "path": "run.py"}
    entry = judge_case(_case([{"description": "d", "checks": [check]}]), context).entries[0]
    assert entry.status == expected


def test_a_script_named_in_an_opaque_construct_cannot_be_judged() -> None:
    ev = _evidence()
    ev.add("command_observed", 8, command='eval "$(cat run.sh)"', exit_code=0, call_id="c8")
    ev.opaque.append((ev.records[-1].id, "eval"))
    context = JudgeContext(evidence=ev, workspace=WS, ref_prefix="e")
    check = {"kind": "script_ran", "path": "run.sh"}
    entry = judge_case(_case([{"description": "d", "checks": [check]}]), context).entries[0]
    assert (entry.status, entry.blocked_reason) == ("blocked", "insufficient-evidence")


PROSE = "The final answer recommends token auth over Basic Auth."


@pytest.mark.parametrize(
    "polarity,verdict,expected",
    [
        ("required", "met", ("pass", "model", None)),
        ("required", "not-met", ("fail", "model", None)),
        ("required", "cannot-judge", ("blocked", "model", "insufficient-evidence")),
        ("forbidden", "met", ("fail", "model", None)),
        ("forbidden", "not-met", ("pass", "model", None)),
        ("forbidden", "cannot-judge", ("blocked", "model", "insufficient-evidence")),
    ],
)
def test_model_verdicts_map_strictly(
    polarity: str, verdict: str, expected: tuple[str, ...]
) -> None:
    entry = {"description": "d", "pass_criteria": [PROSE], "fail_signals": [PROSE]}
    case = _case([entry]) if polarity == "required" else _case([], [entry])
    grader = ScriptedGrader({f"{polarity}[0]": verdict})
    assert _judge(case, grader) == [expected]


def test_a_command_literal_is_a_whole_word() -> None:
    compiled = compile_sentence("The agent uses `rg` or `grep`.")
    assert compiled is not None
    patterns = [c.pattern for c in compiled.check.operands]  # type: ignore[union-attr]
    assert [bool(re.search(patterns[0], c)) for c in ("rg -n x .", "cargo build", "a|rg x")] == [
        True,
        False,
        True,
    ]


@pytest.mark.parametrize(
    ("command", "runs_it"),
    [
        ("git commit -m x", True),
        ("git -c user.name=a -c user.email=a@a commit -q -F MSG", True),
        ("git -C repo commit -m x", True),
        ("git --git-dir=.repo --work-tree . commit", True),
        ("git --no-pager -P commit", True),
        ("/usr/bin/git -C . commit", True),
        # Look-alikes: another subcommand, the word as an option's value or argument.
        ("git commit-tree HEAD^{tree}", False),
        ("git log --grep commit", False),
        ("git -C commit status", False),
        ("git -c alias.ci=commit status", False),
        ("git stash", False),
    ],
)
def test_a_git_subcommand_is_found_after_gits_own_options(command: str, runs_it: bool) -> None:
    """`git -c user.name=x commit` is `git commit` (newuser5: a forbidden "never `git commit`"
    passed an agent that committed that way)."""
    compiled = compile_sentence("The agent never runs `git commit`.")
    assert compiled is not None
    pattern = compiled.check.operand.pattern  # type: ignore[union-attr]
    assert bool(re.search(pattern, command)) is runs_it


def test_the_model_gets_every_undecided_entry_in_one_call_and_nothing_else() -> None:
    exact = {"description": "e", "pass_criteria": ["The final answer includes a local URL."]}
    vague = {"description": "v", "pass_criteria": [PROSE]}
    partial = {
        "description": "p",
        "pass_criteria": ["The final answer includes a local URL and the page loads."],
    }
    grader = ScriptedGrader({"required[1]": "met", "forbidden[0]": "not-met"})
    case = _case([exact, vague], [partial])
    assert _judge(case, grader) == [
        ("pass", "rules", None),
        ("pass", "model", None),
        ("pass", "model", None),
    ]
    assert [[i.entry_id for i in items] for items in grader.calls] == [
        ["required[1]", "forbidden[0]"]
    ]
    # Without a grader the same entries are blocked as unclear, never passed.
    assert _judge(case) == [
        ("pass", "rules", None),
        ("blocked", "unclear-rule", "unclear-rule"),
        ("blocked", "unclear-rule", "unclear-rule"),
    ]
    context = JudgeContext(evidence=_evidence(), workspace=WS, ref_prefix="e.json", grader=grader)
    graded = judge_case(case, context).entries[1]
    assert graded.model is not None and graded.model.record_path == "judge/required[1].json"
    assert graded.evidence == ["e.json#msg-2"]


@pytest.mark.parametrize(
    "sentence,check",
    [
        (
            "The accepted session evidence shows consultation of `a/SKILL.md`.",
            {"kind": "file_read", "path": "a/SKILL.md"},
        ),
        (
            "The session shows consultation of any file under `refs/`.",
            {"kind": "file_read", "path": "refs/*"},
        ),
        ("The agent opened `refs/*.md`.", {"kind": "file_read", "path": "refs/*.md"}),
        ("No file under `refs/` was read.", {"not": {"kind": "file_read", "path": "refs/*"}}),
        (
            # A file under `refs/` must have been shown, and before `docs.txt` (if ever).
            "A file under `refs/` was read before `docs.txt`.",
            {"kind": "read_before", "first": "refs/*", "then": "docs.txt"},
        ),
        (
            "The agent answers without reading `a.md`.",
            {"not": {"kind": "file_read", "path": "a.md"}},
        ),
        (
            "The evidence never shows consultation of `a.md`.",
            {"not": {"kind": "file_read", "path": "a.md"}},
        ),
        (
            "`a.md` or `b.md` was read.",
            {
                "any_of": [
                    {"kind": "file_read", "path": "a.md"},
                    {"kind": "file_read", "path": "b.md"},
                ]
            },
        ),
        (
            "The agent reads `a.md` and `b.md`.",
            {
                "all_of": [
                    {"kind": "file_read", "path": "a.md"},
                    {"kind": "file_read", "path": "b.md"},
                ]
            },
        ),
        (
            "`docs.txt` was read before any file under `refs/`.",
            {"kind": "read_before", "first": "docs.txt", "then": "refs/*"},
        ),
        ("`SKILL.md` was read first.", {"kind": "read_before", "first": "SKILL.md", "then": "*"}),
        (
            "The accepted session evidence shows a command invoking `scripts/x.sh`.",
            {"kind": "script_ran", "path": "scripts/x.sh"},
        ),
        (
            "The agent never runs `rm -rf`.",
            {"not": {"kind": "command_ran", "pattern": literal_command("rm -rf")}},
        ),
        (
            "The agent runs `scripts/dev.sh` or equivalent.",
            {"kind": "script_ran", "path": "scripts/dev.sh"},
        ),
        (
            "The session shows a git clone command targeting `github.com/o/r`.",
            {"kind": "command_ran", "pattern": rf"\bgit{GIT_OPTIONS}\s+clone\b.*github\.com/o/r"},
        ),
        (
            "The final answer mentions `0001_x.sql`.",
            {"kind": "final_answer_contains", "text": "0001_x.sql"},
        ),
        (
            "The final answer includes a local URL.",
            {"kind": "final_answer_url", "local_only": True},
        ),
        (
            "A file exists in the workspace containing `SECRET=`.",
            {"kind": "workspace_file_contains", "path": "**/*", "text": "SECRET="},
        ),
        (
            "`out/x.sql` exists in the workspace.",
            {"kind": "workspace_file_exists", "path": "out/x.sql"},
        ),
        (
            "`refs/a.md` was never modified.",
            {"not": {"kind": "file_written", "path": "refs/a.md"}},
        ),
        ("会话证据显示读取了 `a/SKILL.md`。", {"kind": "file_read", "path": "a/SKILL.md"}),
        ("会话证据显示未读取 `a.md`。", {"not": {"kind": "file_read", "path": "a.md"}}),
        (
            "会话证据显示运行了 `scripts/x.sh`。",
            {"kind": "script_ran", "path": "scripts/x.sh"},
        ),
        (
            "`docs.txt` 在 `refs/` 下任何文件之前被读取。",
            {"kind": "read_before", "first": "docs.txt", "then": "refs/*"},
        ),
        ("最终回答包含本地 URL。", {"kind": "final_answer_url", "local_only": True}),
        ("最终回答提到 `x.sql`。", {"kind": "final_answer_contains", "text": "x.sql"}),
    ],
)
def test_the_compiler_turns_exact_sentences_into_checks(
    sentence: str, check: dict[str, object]
) -> None:
    compiled = compile_sentence(sentence)
    assert compiled is not None, sentence
    produced = compiled.check.model_dump(mode="json", by_alias=True, exclude_none=True)
    expected = (
        type(compiled.check)
        .model_validate(check)
        .model_dump(mode="json", by_alias=True, exclude_none=True)
    )
    assert produced == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "The final answer recommends token auth over Basic Auth.",
        "The agent asks the user to confirm readiness.",
        "The code registers handlers before join.",
        "The final answer includes a local URL and the evaluator opens the reported URL.",
        "The agent reads `SKILL.md` before any product-module reference.",
        "The evidence shows consultation of `a.md` and `b.md` or `c.md`.",
        "A file exists in the workspace containing the literal app certificate.",
    ],
)
def test_the_compiler_leaves_judgements_of_meaning_alone(sentence: str) -> None:
    assert compile_sentence(sentence) is None


def test_an_entry_compiles_whole_or_not_at_all_and_records_provenance() -> None:
    entry = _case(
        [
            {
                "description": "d",
                "pass_criteria": ["The agent reads `a.md`.", PROSE],
            },
            {
                "description": "d",
                "pass_criteria": ["The agent reads `a.md`."],
                "fail_signals": ["The agent never reads `a.md`."],
            },
        ]
    ).assertions.required
    assert compile_entry(entry[0], "required") is None
    compiled = compile_entry(entry[1], "required")
    assert compiled is not None
    assert [(p.role, p.rule) for p in compiled.provenance] == [
        ("pass_criteria", "consultation"),
        ("fail_signals", "not consultation"),
    ]


def _plans(grader_configured: bool) -> list[str]:
    routes = []
    for fixture in FIXTURES:
        repo = open_repo(fixture, None)
        for case in select_cases(repo).cases:
            routes += [p.decided_by for p in plan_entries(case.case, grader_configured)]
    return routes


def test_rules_decide_at_least_75_percent_of_realistic_prose_entries() -> None:
    routes = _plans(grader_configured=True)
    assert len(routes) >= 40
    # 35 of 45 (36 until "(pnpm dev, npm run dev, or equivalent)" stopped compiling: an equivalent
    # of a package manager's script (`pnpm --dir app dev`, `npx next dev`) is no listed command).
    assert routes.count("rules") / len(routes) >= 0.75
    assert set(routes) == {"rules", "model"}  # with a judge model, nothing is left unclear
    assert "model" not in _plans(grader_configured=False)


def test_explain_json_and_judge_model_without_a_grader(capsys: pytest.CaptureFixture[str]) -> None:
    repo = str(FIXTURES[0])
    with pytest.raises(SystemExit) as exit_info:
        main(["explain", "--repo", repo, "--json"])
    assert exit_info.value.code == 0
    payload = json.loads(capsys.readouterr().out)
    # 4: the forbidden "literal app certificate" names a declared variable (workspace_env_value)
    assert payload["total"] == 5 and payload["counts"]["rules"] == 4
    first = payload["cases"][0]["entries"][0]
    assert first["decided_by"] == "rules" and first["provenance"][0]["rule"] == "consultation"
    with pytest.raises(SystemExit) as exit_info:
        main(["explain", "--repo", repo, "--judge", "model"])
    assert exit_info.value.code == 2
    assert "--judge model needs --judge-model" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["explain", "--repo", repo, "--judge", "model", "--judge-model", "m", "--json"])
    assert exit_info.value.code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["counts"]["model"] == 1 and payload["counts"]["unclear-rule"] == 0
    assert payload["decided_without_model"] == 4


def test_attempt_file_keeps_isolation_violations_through_a_round_trip() -> None:
    saved = AttemptFile.model_validate(
        {
            "attempt": 1,
            "workspace_root": "/ws",
            "valid": False,
            "isolation_report": {
                "verdict": "violation",
                "workspace": "/ws",
                "reason": "1 access outside",
                "violations": [{"ref": "msg-3", "kind": "read", "path": "/etc/x", "detail": "cat"}],
            },
        }
    )
    assert saved.isolation_report is not None
    restored = _isolation(saved.isolation_report).to_json()
    assert restored["violations"] == [
        {"ref": "msg-3", "kind": "read", "path": "/etc/x", "detail": "cat"}
    ]


def test_the_report_labels_forbidden_entries_and_says_who_decided() -> None:
    grader = ScriptedGrader({"required[1]": "not-met"})
    case = _case(
        [
            {"description": "url", "pass_criteria": ["The final answer includes a local URL."]},
            {"description": "tone", "pass_criteria": [PROSE]},
        ],
        [{"description": "wrote ok", "checks": [{"kind": "file_written", "path": "ok.txt"}]}],
    )
    context = JudgeContext(evidence=_evidence(), workspace=WS, ref_prefix="e.json", grader=grader)
    judgement = judge_case(case, context)
    report = judgement_report(judgement)
    assert "- forbidden `observed`: wrote ok" in report
    assert "decided by checks" in report
    assert "- required `fail`: tone" in report
    assert "decided by the model judge: not-met (record `judge/required[1].json`)" in report


OPERATOR_CHECKS = """        - any_of:
            - kind: workspace_file_exists
              path: "migrations/0002_*.sql"
            - not:
                kind: file_written
                {key}: "migrations/0001_init.sql\""""


@pytest.mark.parametrize("key,code", [("path", 0), ("pth", 2)])
def test_validate_reads_operators_and_locates_errors_inside_them(
    key: str, code: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = copy_demo(tmp_path)
    case = repo / "targets/db-migrations/cases/workflow/workflow-keeps-shipped-migrations.yaml"
    text = case.read_text().replace(
        '        - kind: workspace_file_exists\n          path: "migrations/0002_*.sql"',
        OPERATOR_CHECKS.format(key=key),
    )
    case.write_text(text)
    with pytest.raises(SystemExit) as exit_info:
        main(["validate", "--repo", str(repo)])
    assert exit_info.value.code == code
    if code:
        error = capsys.readouterr().err
        # Located at the misspelt key itself, with the key it was meant to be.
        assert (
            f"{case.resolve()}:21:17: assert.required[0].checks[0].any_of[1].not.pth:"
            " unknown field 'pth' (did you mean 'path'?)"
        ) in error


def test_an_entry_without_criteria_is_judged_by_its_description() -> None:
    entry = {"description": "The accepted session shows a command invoking `tool.py`."}
    assert _judge(_case([entry])) == [("pass", "rules", None)]
    vague = {"description": "The skill's instructions were followed."}
    assert _judge(_case([vague])) == [("blocked", "unclear-rule", "unclear-rule")]


def _fail_signal(pass_criteria: list[str], fail_signal: str, polarity: str = "required") -> object:
    entry = {"description": "d", "pass_criteria": pass_criteria, "fail_signals": [fail_signal]}
    case = _case([entry]) if polarity == "required" else _case([], [entry])
    entries = case.assertions.required or case.assertions.forbidden
    return compile_entry(entries[0], polarity)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "fail_signal",
    [
        "A complete accepted trace shows no consultation of the required reference.",
        "The accepted session evidence never consults the ConvoAI routing guide.",
        "The accepted session evidence never consults any local reference file relevant to RTC.",
        "The accepted session evidence never consults the ConvoAI docs.txt.",  # names it, bare
    ],
)
def test_a_fail_signal_that_only_denies_a_pass_criterion_adds_no_check(fail_signal: str) -> None:
    compiled = _fail_signal(
        ["The agent ran `make`.", f"The session shows consultation of `{SKILL}/docs.txt`."],
        fail_signal,
    )
    assert compiled is not None
    assert [(p.role, p.rule, len(p.checks)) for p in compiled.provenance] == [  # type: ignore[attr-defined]
        ("pass_criteria", "command", 1),
        ("pass_criteria", "consultation", 1),
        ("fail_signals", "complement of pass_criteria[1]", 0),
    ]
    assert len(compiled.checks) == 2  # type: ignore[attr-defined]
    # Decided by the pass criteria alone: docs.txt was read, `make` never ran.
    case = _case(
        [
            {
                "description": "d",
                "pass_criteria": [f"The session shows consultation of `{SKILL}/docs.txt`."],
                "fail_signals": [fail_signal],
            },
            {
                "description": "d",
                "pass_criteria": [f"The session shows consultation of `{SKILL}/missing.md`."],
                "fail_signals": [fail_signal.replace("docs.txt", "missing.md")],
            },
        ]
    )
    assert _judge(case) == [("pass", "rules", None), ("fail", "rules", None)]


@pytest.mark.parametrize(
    ("pass_criteria", "fail_signal", "polarity"),
    [
        # It names a file the pass criterion does not: it may hold while the criterion does.
        (["The agent reads `a.md`."], "The agent never reads the shared `b.md`.", "required"),
        # Another predicate: not the criterion's denial.
        (["The agent reads `a.md`."], "The agent never runs the fetch script.", "required"),
        # A pass criterion that is itself a denial asserts nothing to complement.
        (["The agent never reads `a.md`."], "The agent never reads the routing guide.", "required"),
        # Not a denial at all.
        (["The agent reads `a.md`."], "The agent reads the phase-2 docs.", "required"),
        # A forbidden entry's sentences each describe the behaviour: none is a complement.
        (["The agent reads `a.md`."], "The agent never reads the routing guide.", "forbidden"),
        # It denies one alternative: reading `b.md` alone passes the criterion, not the signal.
        (
            ["The session shows consultation of `a.md` or `b.md`."],
            "The agent never consults the ConvoAI `a.md`.",
            "required",
        ),
        # `a.md` is not `docs/data.md`, though its text is inside that path.
        (
            ["The session shows consultation of `docs/data.md`."],
            "The agent never consults the ConvoAI `a.md`.",
            "required",
        ),
        # `make` is not the command `cmake build`, though its text is inside it.
        (["The agent ran `cmake build`."], "No `make` command observed at all.", "required"),
    ],
)
def test_a_fail_signal_that_could_add_something_sends_the_entry_on(
    pass_criteria: list[str], fail_signal: str, polarity: str
) -> None:
    assert _fail_signal(pass_criteria, fail_signal, polarity) is None


@pytest.mark.parametrize(
    ("pass_criterion", "fail_signal"),
    [
        # Denying one part of an `all_of` defeats it.
        (
            "The session shows consultation of `a.md` and `b.md`.",
            "The agent never consults the ConvoAI `a.md`.",
        ),
        # A directory names what is under it; a command names its longer spellings.
        (
            "The session shows consultation of `x/references/a.md`.",
            "The agent never consults any ConvoAI file under `references/`.",
        ),
        ("The agent ran `make test`.", "No `make` command observed at all."),
    ],
)
def test_a_denial_of_what_the_criterion_needs_is_its_complement(
    pass_criterion: str, fail_signal: str
) -> None:
    compiled = _fail_signal([pass_criterion], fail_signal)
    assert compiled is not None
    assert compiled.provenance[1].rule == "complement of pass_criteria[0]"  # type: ignore[attr-defined]


def test_a_denial_the_grammar_cannot_parse_still_names_its_one_predicate() -> None:
    compiled = _fail_signal(
        ["Session evidence shows the agent ran `scripts/dev.sh` or equivalent."],
        "No dev server start command observed.",
    )
    assert compiled is not None
    assert compiled.provenance[1].rule == "complement of pass_criteria[0]"  # type: ignore[attr-defined]
    # Two predicates named (a command, a read), or an order: not a plain denial.
    for signal in (
        "No command was run without reading the docs.",
        "No dev server start command observed before the docs were read.",
    ):
        assert _fail_signal(["The agent ran `make`.", "The agent read `a.md`."], signal) is None, (
            signal
        )


@pytest.mark.parametrize(
    ("command", "status"),
    [
        ("python3 tool.py --dry-run", "pass"),
        ("python3 ./tool.py -v --dry-run 2>&1", "pass"),
        ("python3 tool.py", "fail"),  # ran, without the argument
        ("python3 tool.py --dry-run-all", "fail"),  # another argument
        ("echo --dry-run; python3 tool.py", "fail"),  # the argument before the command
        ("python3 tool.py; echo --dry-run", "fail"),  # the argument of another statement
        ("python3 tool.py '--dry-run'", "pass"),  # quoted, the program sees the same word
    ],
)
def test_an_argument_must_be_on_the_commands_own_line(command: str, status: str) -> None:
    evidence = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
    evidence.add("command_observed", 1, command=command, exit_code=0, call_id="c1")
    evidence.add("file_read_observed", 1, path="/ws/tool.py", access="exec", call_id="c1")
    evidence.add("final_answer", 2, text="done")
    context = JudgeContext(
        evidence=evidence, workspace=WS, ref_prefix="e.json", workspace_available=False
    )
    case = _case(
        [{"description": "d", "pass_criteria": ["The agent invoked `tool.py` with `--dry-run`."]}]
    )
    (entry,) = judge_case(case, context).entries
    assert (entry.status, entry.decided_by) == (status, "rules"), entry.notes


@pytest.mark.parametrize(
    "script,expected",
    [
        ("python3 tool.py", "pass"),
        ("true || python3 tool.py", "blocked"),
        ("false && python3 tool.py", "blocked"),
        ("for f in; do python3 tool.py; done", "blocked"),
    ],
)
def test_a_script_a_written_script_may_not_reach_is_no_run(
    tmp_path: Path, script: str, expected: str
) -> None:
    """Red team, round 2: the gating of a run inside a script the session wrote was not seen."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "tool.py").write_text("print('tool')\n")
    command = f"printf '%s\\n' '{script}' > run.sh && bash run.sh"
    session = _rollout(tmp_path / "rollout.jsonl", workspace, [(command, "tool")])
    context = JudgeContext(evidence=normalize_session(session), workspace=workspace, ref_prefix="e")
    check = {"kind": "script_ran", "path": "tool.py"}
    entry = judge_case(_case([{"description": "d", "checks": [check]}]), context).entries[0]
    assert entry.status == expected, entry.checks[0].detail


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # Red team, round 12b: a write the shell may not reach is no write by the exit code.
        ("true || echo x > summary.txt", "blocked"),
        ("true || touch summary.txt", "blocked"),
        ("if false; then echo x > summary.txt; fi", "blocked"),
        ("false && echo x > summary.txt; true", "blocked"),
        ("for f in; do echo x > summary.txt; done", "blocked"),
        ("bash -c 'exit 0; echo x > summary.txt'", "blocked"),
        ("echo x > summary.txt & true", "blocked"),
        # Look-alikes: writes the shell surely reached.
        ("echo x > summary.txt", "pass"),
        ("mkdir -p d && echo x > summary.txt", "pass"),
        ("echo a | cat > summary.txt", "pass"),
        ("bash -c 'echo x > summary.txt'", "pass"),
        ("true; touch summary.txt", "pass"),
        # Leftovers 14: Python after an exit call in the same block may not run (a
        # `sitecustomize.py` on PYTHONPATH can make `sys.exit` return), as the shell after
        # `exit`; after `raise`, `return`, `break`, `continue` it never runs.
        ('python3 -c \'import sys; sys.exit(0); open("summary.txt", "w")\'', "blocked"),
        ('python3 -c \'exit(); open("summary.txt", "w")\'', "blocked"),
        ('python3 -c \'quit(0); open("summary.txt", "w")\'', "blocked"),
        ('python3 -c \'import os\nos._exit(0)\nopen("summary.txt", "w")\'', "blocked"),
        (
            'python3 -c \'import sys\nfor x in [1]:\n    sys.exit(0)\n    open("summary.txt",'
            ' "w")\'',
            "blocked",
        ),
        ('python3 -c \'raise SystemExit(0)\nopen("summary.txt", "w")\'', "fail"),
        ('python3 -c \'def f():\n    return\n    open("summary.txt", "w")\nf()\'', "fail"),
        # Look-alikes: the exit is in another block, or not called; the write runs.
        ('python3 -c \'import sys\nif 0:\n    sys.exit()\nopen("summary.txt", "w")\'', "pass"),
        (
            "python3 -c 'import sys\ntry:\n    sys.exit(0)\nfinally:\n"
            '    open("summary.txt", "w")\'',
            "pass",
        ),
        (
            "python3 -c 'import sys\ntry:\n    sys.exit(1)\nexcept SystemExit:\n    pass\n"
            'open("summary.txt", "w")\'',
            "pass",
        ),
        ('python3 -c \'def f():\n    raise SystemExit\nopen("summary.txt", "w")\'', "pass"),
        ('python3 -c \'import sys; end = sys.exit; open("summary.txt", "w")\'', "pass"),
        ('python3 -c \'print("sys.exit()"); open("summary.txt", "w")\'', "pass"),
        ('python3 -c \'open("summary.txt", "w"); import sys; sys.exit(0)\'', "pass"),
    ],
)
def test_a_write_the_shell_may_not_reach_is_no_write_by_its_exit_code(
    tmp_path: Path, command: str, expected: str
) -> None:
    """Without the trace, `file_written` passed on the call's exit code 0 for a write after
    `||`, in a branch, a loop, the background or after `exit` (the redirect of `a || b > f` is
    on the list in tree-sitter's parse, on `b` in bash's). Such a write is now undecided, the
    agent's doing; the trace decides it when it saw the call whole (test_red_team_agents)."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    session = _rollout(tmp_path / "rollout.jsonl", workspace, [(command, "")])
    context = JudgeContext(evidence=normalize_session(session), workspace=workspace, ref_prefix="e")
    check = {"kind": "file_written", "path": "summary.txt"}
    entry = judge_case(_case([{"description": "d", "checks": [check]}]), context).entries[0]
    assert entry.status == expected, entry.checks[0].detail
    if expected == "blocked":
        assert entry.checks[0].blocked_by == "agent"
