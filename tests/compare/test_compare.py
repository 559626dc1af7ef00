"""`agentic-eval compare` on hand-made run dirs: every class, the exact-test rule, the refusals."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from junitparser import Failure, JUnitXml

from evaluator.cli.main import run_cli
from evaluator.compare.build import compare_runs
from evaluator.compare.classify import classify
from evaluator.compare.markdown import SECTION_ORDER
from evaluator.compare.model import CaseSide
from evaluator.vocabulary import COMPARISON_CLASSES
from tests.conftest import ROOT

# One case on one side: the status of each try ("pass", "fail", "timeout": blocked by the agent,
# "env": blocked by the environment), and the verdict of each assertion entry per try.
Tries = list[str]


def attempt(number: int, outcome: str) -> dict[str, Any]:
    record: dict[str, Any] = {
        "attempt": number,
        "workspace_root": f"/scratch/ws/attempt-{number:02d}",
        "valid": True,
        "exit_code": 0,
        "thread_id": f"t-{number}",
        "session_complete": True,
    }
    if outcome in ("pass", "fail"):
        record["status"] = outcome
    elif outcome == "timeout":
        record |= {
            "status": "blocked",
            "blocked_reason": "insufficient-evidence",
            "timed_out": True,
        }
    else:
        record |= {"status": "blocked", "blocked_reason": "environment"}
    return record


def entries(outcome: str) -> list[dict[str, Any]]:
    """Two entries: the first follows the try's status, the second always passes."""
    first = outcome if outcome in ("pass", "fail") else "blocked"
    return [
        {
            "summary": "The reference was consulted.",
            "status": first,
            "entry_id": "required[0]",
            "evidence": ["case-artifacts/c/accepted-session.json#msg-3"],
        },
        {"summary": "The answer names the file.", "status": "pass", "entry_id": "required[1]"},
    ]


def write_run(
    directory: Path,
    cases: dict[str, Tries],
    *,
    target: str = "db-migrations",
    skill: str = ".agents/skills/db-migrations/SKILL.md",
    digests: dict[str, str] | None = None,
    state: str = "completed",
    agent: str = "codex-exec",
    model: str = "gpt-5.5",
) -> Path:
    directory.mkdir(parents=True)
    manifest = {
        "run_id": directory.name,
        "run_state": state,
        "target_id": target,
        "target_skill_path": skill,
        "resolved_case_ids": list(cases),
        "attempts": max(len(t) for t in cases.values()),
        "agent": agent,
        "model": model,
    }
    (directory / "manifest.json").write_text(json.dumps(manifest))
    (directory / "case-results").mkdir()
    for case_id, tries in cases.items():
        judged = [t for t in tries if t in ("pass", "fail")]
        status = "fail" if "fail" in judged else "pass" if judged else "blocked"
        accepted = next((t for t in ("fail", "pass") if t in judged), tries[-1])
        result: dict[str, Any] = {
            "case_id": case_id,
            "workspace_root": None,
            "thread_id": None,
            "session_path": None,
            "status": status,
            "assertions": entries(accepted),
            "attempts": [attempt(i, t) for i, t in enumerate(tries, 1)],
            "case_digest": (digests or {}).get(case_id, f"sha256:{case_id}"),
        }
        if status == "blocked":
            result["blocked_reason"] = "environment" if "env" in tries else "insufficient-evidence"
        (directory / "case-results" / f"{case_id}.json").write_text(json.dumps(result))
        for i, outcome in enumerate(tries, 1):
            folder = directory / "case-artifacts" / case_id / "attempts" / f"attempt-{i:02d}"
            folder.mkdir(parents=True)
            record = attempt(i, outcome)
            if outcome in ("pass", "fail"):
                record["assertions"] = entries(outcome)
            (folder / "attempt.json").write_text(json.dumps(record))
    return directory


P5, F5 = ["pass"] * 5, ["fail"] * 5
BASE: dict[str, Tries] = {
    "same-pass": ["pass"],
    "same-fail": ["fail"],
    "same-blocked": ["env"],
    "regression": ["pass"],
    "improvement": ["fail"],
    "env-divergence": ["pass"],
    "removed": ["pass"],
    "k5-regression": P5,
    "k5-flaky": P5,
    "k5-same-pass": P5,
    "k5-improvement": F5,
    "escapes": ["pass"],
}
CANDIDATE: dict[str, Tries] = {
    "same-pass": ["pass"],
    "same-fail": ["fail"],
    "same-blocked": ["env"],
    "regression": ["fail"],
    "improvement": ["pass"],
    "env-divergence": ["env"],
    "added": ["pass"],
    "k5-regression": ["pass", "fail", "fail", "fail", "fail"],
    "k5-flaky": ["pass", "fail", "pass", "fail", "pass"],
    "k5-same-pass": P5,
    "k5-improvement": P5,
    "escapes": ["timeout"],
}
EXPECTED = {
    "same-pass": "same-pass",
    "same-fail": "same-fail",
    "same-blocked": "same-blocked",
    "regression": "regression",
    "improvement": "improvement",
    "env-divergence": "environment-divergence",
    "added": "added",
    "removed": "removed",
    "k5-regression": "regression",
    "k5-flaky": "flaky",
    "k5-same-pass": "same-pass",
    "k5-improvement": "improvement",
    "escapes": "regression",  # a timeout the agent caused counts as not passed
}


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    return write_run(tmp_path / "base", BASE), write_run(tmp_path / "candidate", CANDIDATE)


def test_every_class_on_hand_made_runs(pair: tuple[Path, Path]) -> None:
    comparison = compare_runs(*pair)
    found = {c.case_id: c.classification for c in comparison.cases}
    assert found == EXPECTED
    assert set(found.values()) == set(COMPARISON_CLASSES)
    assert comparison.regressions == ["regression", "k5-regression", "escapes"]
    assert comparison.counts["regression"] == 3 and sum(comparison.counts.values()) == 13
    assert "one-sided Boschloo exact test at alpha=0.05" in comparison.method


def test_the_exact_decisions_and_their_p_values(pair: tuple[Path, Path]) -> None:
    # Boschloo's test (the statistics module's, docs/statistics.md) replaced Fisher's (1/42 and
    # 2/9 here): it is uniformly more powerful, so the p-values are smaller, the classes the same.
    cases = {c.case_id: c for c in compare_runs(*pair).cases}
    assert cases["k5-regression"].decision == "boschloo-one-sided"
    assert cases["k5-regression"].p_drop == pytest.approx(0.0068654, abs=1e-6)  # 5/5 -> 1/5
    assert cases["k5-flaky"].p_drop == pytest.approx(0.1031183, abs=1e-6)  # 5/5 -> 3/5
    # Newcombe's interval of the difference, by hand from the Wilson bounds of 3/5
    # [0.2307, 0.8824] and 5/5 [0.5655, 1]: -0.4 - 0.3693 and -0.4 + sqrt(0.2824² + 0.4345²).
    assert cases["k5-flaky"].difference == pytest.approx(-0.4)
    assert cases["k5-flaky"].difference_interval == pytest.approx((-0.7693, 0.1182), abs=1e-4)
    assert cases["regression"].decision == "single-attempt"
    assert cases["env-divergence"].decision == "none"
    # A stricter alpha turns the K=5 drop into a flaky case, never the K=1 one.
    strict = {c.case_id: c.classification for c in compare_runs(*pair, alpha=0.005).cases}
    assert strict["k5-regression"] == "flaky" and strict["regression"] == "regression"


def test_each_p_is_also_holm_corrected_across_the_cases_and_the_class_stays_the_raw_one(
    pair: tuple[Path, Path],
) -> None:
    """`evaluate` Holm-corrects its per-case tests, `compare` classified on the raw p and gave
    no corrected one: a reader of 50 flaky cases could not tell a family-wise finding from one
    test in 20 at chance. The corrected p now stands beside the raw one (the same
    `stats/holm.py`); the class, the CI alarm, stays the raw test's (docs/statistics.md)."""
    from evaluator.compare.markdown import render_markdown
    from evaluator.html.comparison_view import _test

    comparison = compare_runs(*pair, alpha=0.02)
    cases = {c.case_id: c for c in comparison.cases}
    tested = [c for c in comparison.cases if c.p_drop is not None]
    # The four K=5 cases are the family; a K=1 case has no test, so no member of it.
    assert sorted(c.case_id for c in tested) == sorted(k for k in BASE if k.startswith("k5-"))
    regression = cases["k5-regression"]
    assert regression.p_drop_holm == pytest.approx(4 * 0.0068654, abs=1e-6)
    assert all(c.p_drop_holm is not None and c.p_drop_holm >= c.p_drop for c in tested)
    assert cases["regression"].p_drop_holm is None and cases["regression"].p_rise_holm is None
    # Raw 0.0069 <= 0.02 < 0.0275 corrected: still a regression (the per-case alarm).
    assert regression.classification == "regression"
    assert cases["k5-improvement"].p_rise_holm is not None
    markdown = render_markdown(comparison)
    assert "Holm-corrected across the cases tested: p=0.0275." in markdown
    assert "(Holm 0.0275)" in _test(regression)


def test_assertion_flips_name_the_entry_with_counts_and_evidence(pair: tuple[Path, Path]) -> None:
    cases = {c.case_id: c for c in compare_runs(*pair).cases}
    (flip,) = cases["k5-regression"].assertion_flips
    assert (flip.entry_id, flip.direction) == ("required[0]", "broke")
    assert (flip.base_passed, flip.base_judged) == (5, 5)
    assert (flip.candidate_passed, flip.candidate_judged) == (1, 5)
    assert flip.candidate_evidence == ["case-artifacts/c/accepted-session.json#msg-3"]
    (fixed,) = cases["improvement"].assertion_flips
    assert (fixed.base_status, fixed.candidate_status, fixed.direction) == ("fail", "pass", "fixed")
    assert cases["same-pass"].assertion_flips == []


def side(passed: int, counted: int, blocked: int = 0) -> CaseSide:
    status = "blocked" if counted == 0 else "pass" if passed == counted else "fail"
    return CaseSide(
        status=status,
        attempts=counted + blocked,
        passed=passed,
        counted=counted,
        blocked=blocked,
        pass_rate=passed / counted if counted else None,
        case_result="case-results/c.json",
    )


@pytest.mark.parametrize(
    "base,candidate,expected",
    [
        (side(2, 2), side(0, 2), "flaky"),  # unanimous but too few attempts to be significant
        (side(1, 1), side(0, 5), "flaky"),  # K=1 on one side only: the test decides
        (side(0, 3), side(0, 3, blocked=2), "same-fail"),
        (side(3, 5), side(3, 5), "flaky"),  # mixed on both sides, unchanged
        (side(0, 0, blocked=5), side(4, 5), "environment-divergence"),
    ],
)
def test_edge_rules(base: CaseSide, candidate: CaseSide, expected: str) -> None:
    assert classify(base, candidate).classification == expected


def compare_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(["compare", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_exit_codes_files_and_schema(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base, candidate = pair
    code, out, _ = compare_cli(capsys, str(base), str(candidate))
    assert code == 1
    assert out.splitlines()[-1] == "COMPARE: 3 regression(s): regression, k5-regression, escapes"
    assert out.index("regression  ") < out.index("improvement  ")  # regressions first
    written = json.loads((candidate / "comparison.json").read_text())
    schema = json.loads((ROOT / "schemas/comparison.schema.json").read_text())
    jsonschema.validate(written, schema)
    markdown = (candidate / "comparison.md").read_text()
    assert "**3 regression(s): regression, k5-regression, escapes**" in markdown
    assert "one-sided Boschloo exact test" in markdown
    code, out, _ = compare_cli(capsys, str(base), str(base), "--json")
    assert code == 0 and json.loads(out)["regressions"] == []


@pytest.mark.parametrize(
    "change,message",
    [
        ({"target": "other"}, "different targets: base db-migrations, candidate other"),
        ({"skill": "x/SKILL.md"}, "different skills"),
        ({"digests": {"same-pass": "sha256:edited"}}, "different case definitions: same-pass"),
    ],
)
def test_incomparable_runs_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any], message: str
) -> None:
    base = write_run(tmp_path / "base", BASE)
    candidate = write_run(tmp_path / "candidate", CANDIDATE, **change)
    code, out, err = compare_cli(capsys, str(base), str(candidate))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    assert "--allow-different-cases" in err
    assert not (candidate / "comparison.json").exists()
    code, _, _ = compare_cli(capsys, str(base), str(candidate), "--allow-different-cases")
    assert code == 1
    assert message in json.loads((candidate / "comparison.json").read_text())["differences"][0]


def test_runs_without_a_shared_case_or_of_another_kind_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gate that compared nothing would pass: runs with no case in common (renamed cases, the
    wrong artifact) and a trigger run against a case run are refused, exit 2, one line."""
    base = write_run(tmp_path / "base", {"a": ["pass"], "b": ["pass"]})
    renamed = write_run(tmp_path / "renamed", {"c": ["fail"], "d": ["fail"]})
    code, out, err = compare_cli(capsys, str(base), str(renamed))
    assert code == 2 and out == ""
    assert "no case is in both runs, so nothing would be compared" in err
    assert len(err.strip().splitlines()) == 1
    triggers = write_run(tmp_path / "triggers", {"a": ["pass"], "b": ["pass"]})
    (triggers / "trigger-plan.json").write_text("{}")
    code, _, err = compare_cli(capsys, str(triggers), str(base))
    assert code == 2
    assert "different kinds of run: base a trigger run, candidate a case run" in err


def test_runs_of_another_agent_or_model_are_compared_with_that_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Upgrading the agent or the model is a change worth comparing, so it is not refused; but
    what moved may be the agent's, so the output and comparison.md say so."""
    base = write_run(tmp_path / "base", BASE)
    candidate = write_run(tmp_path / "candidate", CANDIDATE, agent="claude-code")
    code, out, _ = compare_cli(capsys, str(base), str(candidate))
    assert code == 1
    said = "agent: base codex-exec, candidate claude-code"
    assert said in out and "model:" not in out
    written = json.loads((candidate / "comparison.json").read_text())
    assert written["setting_differences"] == [said] and written["differences"] == []
    assert f"- {said}" in (candidate / "comparison.md").read_text()
    alike = write_run(tmp_path / "alike", CANDIDATE)
    code, out, _ = compare_cli(capsys, str(base), str(alike))
    assert "different settings" not in out
    assert json.loads((alike / "comparison.json").read_text())["setting_differences"] == []


def test_unfinished_or_missing_runs_are_input_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write_run(tmp_path / "base", BASE)
    running = write_run(tmp_path / "running", CANDIDATE, state="running")
    code, _, err = compare_cli(capsys, str(base), str(running))
    assert code == 2 and "run_state: the run is running" in err
    code, _, err = compare_cli(capsys, str(base), str(tmp_path / "nope"))
    assert code == 2 and "run directory not found" in err


def test_ci_outputs_that_cannot_be_written_never_cost_the_verdict(
    pair: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, _, err = compare_cli(capsys, *map(str, pair), "--junit", "/proc/1/x.xml")
    assert code == 2 and "--junit" in err and "Traceback" not in err
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "missing/dir/summary.md"))
    code, _, err = compare_cli(capsys, *map(str, pair))
    assert code == 1  # the regression still decides the exit code
    assert "warning: GitHub step summary not written" in err


def test_comparison_junit_fails_regressions_and_skips_what_cannot_be_compared(
    pair: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    junit = tmp_path / "reports" / "compare.xml"
    code, _, _ = compare_cli(capsys, *map(str, pair), "--junit", str(junit))
    assert code == 1
    cases = {case.name: case for suite in JUnitXml.fromfile(str(junit)) for case in suite}
    assert set(cases) == set(EXPECTED)
    failed = {name for name, case in cases.items() if case.is_failure}
    skipped = {name for name, case in cases.items() if case.is_skipped}
    assert failed == {"regression", "k5-regression", "escapes"}
    assert skipped == {"same-blocked", "env-divergence", "removed"}
    (failure,) = cases["k5-regression"].result
    assert isinstance(failure, Failure)
    assert failure.message == (
        "regression: `required[0]` (required) pass 5/5 → fail 1/5: The reference was consulted;"
        " evidence: case-artifacts/c/accepted-session.json#msg-3"
    )
    assert {c.classname for c in cases.values()} == {"db-migrations.cases"}
    text = summary.read_text()
    assert text.startswith("## agentic-eval compare: `base` → `candidate`")
    # Regressions come first in the table, before improvements and flaky cases.
    rows = [
        line.split(" | ")[1]
        for line in text.splitlines()
        if line.startswith("| ") and " | " in line
    ]
    assert rows[1:4] == ["regression", "regression", "regression"]
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    compare_cli(capsys, *map(str, pair))
    assert summary.read_text() == text  # not set: nothing appended


def test_a_flip_line_does_not_put_a_sentence_stop_before_its_evidence() -> None:
    from evaluator.compare.markdown import flip_line
    from evaluator.compare.model import AssertionFlip

    flip = AssertionFlip(
        entry_id="required[2]",
        summary="The final answer mentions `#7`.",
        base_status="pass",
        candidate_status="fail",
        direction="broke",
        candidate_evidence=["case-artifacts/c/accepted-session.json#msg-11"],
    )
    line = flip_line(flip)
    assert "mentions `#7`; evidence: case-artifacts/c/accepted-session.json#msg-11" in line
    bare = flip_line(flip.model_copy(update={"candidate_evidence": []}))
    assert bare.endswith("mentions `#7`.")


def test_variant_runs_of_an_evaluation_are_named_by_their_variant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every variant run of `evaluate` has the run id `run`, so comparing two of them (what a
    skill author does to see which entries v2 flipped) was titled `run → run`, both sides
    `run`. The comparison names each by its variant, in comparison.md, the HTML, JUnit and the
    step summary; a plain run keeps its id."""
    tries = {"a": ["fail", "fail", "fail"]}
    better = {"a": ["pass", "pass", "pass"]}
    base = write_run(tmp_path / "eval-7/variants/old_skill/run", tries)
    candidate = write_run(tmp_path / "eval-7/variants/new_skill/run", better)
    for run, label in ((base, "old_skill"), (candidate, "new_skill")):
        manifest = json.loads((run / "manifest.json").read_text())
        manifest["variant"] = {
            "label": label,
            "evaluation_id": "eval-7",
            "compared": ["old_skill", "new_skill"],
        }
        (run / "manifest.json").write_text(json.dumps(manifest))
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    junit = tmp_path / "compare.xml"
    code, _, _ = compare_cli(capsys, str(base), str(candidate), "--junit", str(junit))
    assert code == 0
    markdown = (candidate / "comparison.md").read_text()
    assert markdown.startswith("# Comparison: old_skill of eval-7 → new_skill of eval-7\n")
    assert "- **base** `old_skill of eval-7` (" in markdown
    written = json.loads((candidate / "comparison.json").read_text())
    assert (written["base"]["run_id"], written["base"]["variant"]) == ("run", "old_skill of eval-7")
    assert "old_skill of eval-7` → `new_skill of eval-7`" in summary.read_text()
    suites = list(JUnitXml.fromfile(str(junit)))
    assert suites[0].name == "agentic-eval compare old_skill of eval-7 -> new_skill of eval-7"
    plain = write_run(tmp_path / "main-1", tries)
    compare_cli(capsys, str(plain), str(candidate))
    assert (
        (candidate / "comparison.md")
        .read_text()
        .startswith("# Comparison: main-1 → new_skill of eval-7\n")
    )


def test_the_unchanged_line_counts_the_classes_that_occur(
    pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The terminal said "7 case(s) unchanged (same-pass, same-fail, same-blocked)" whatever
    occurred, after a blank line even when no case above it changed."""
    base, _ = pair
    code, out, _ = compare_cli(capsys, str(base), str(base))
    comparison = compare_runs(base, base)
    kept = {name: n for name, n in comparison.counts.items() if n and name not in SECTION_ORDER}
    expected = ", ".join(f"{n} {name}" for name, n in kept.items())
    assert len(kept) >= 2 and code == 0
    assert f"{sum(kept.values())} case(s) unchanged: {expected}" in out.splitlines()
    assert "same-pass, same-fail, same-blocked" not in out


def _define(run: Path, definitions: dict[str, str]) -> None:
    """Sets each case's `definition_digest` (its definition without its id)."""
    for case_id, digest in definitions.items():
        path = run / "case-results" / f"{case_id}.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "definition_digest": digest}))


def test_a_renamed_case_that_broke_is_a_regression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pull request that renames a case (`routing-rename-table` → `routing-table-rename`,
    nothing else changed) while the skill breaks it: on main `removed` + `added`, `COMPARE: no
    regression`, exit 0. The pair is one case when the definitions, ids aside, are the same."""
    base = write_run(
        tmp_path / "base",
        {"kept": ["pass"], "old-name": ["pass", "pass", "pass"], "gone": ["pass"]},
    )
    candidate = write_run(
        tmp_path / "cand",
        {"kept": ["pass"], "new-name": ["fail", "fail", "fail"], "new": ["fail"]},
    )
    # `gone` and `new` are different definitions: they stay removed and added.
    _define(base, {"kept": "sha256:K", "old-name": "sha256:R", "gone": "sha256:G"})
    _define(candidate, {"kept": "sha256:K", "new-name": "sha256:R", "new": "sha256:N"})
    code, out, _ = compare_cli(capsys, str(base), str(candidate))
    assert code == 1
    assert out.splitlines()[-1] == "COMPARE: 1 regression(s): new-name"
    assert "(renamed from old-name)" in out
    written = json.loads((candidate / "comparison.json").read_text())
    jsonschema.validate(written, json.loads((ROOT / "schemas/comparison.schema.json").read_text()))
    by_id = {c["case_id"]: c for c in written["cases"]}
    assert by_id["new-name"]["renamed_from"] == "old-name"
    assert by_id["new-name"]["classification"] == "regression"
    assert [flip["entry_id"] for flip in by_id["new-name"]["assertion_flips"]] == ["required[0]"]
    assert (by_id["gone"]["classification"], by_id["new"]["classification"]) == (
        "removed",
        "added",
    )
    assert "old-name" not in by_id
    assert "Renamed from `old-name`" in (candidate / "comparison.md").read_text()
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    compare_cli(capsys, str(base), str(candidate))
    assert "| new-name (renamed from old-name) | regression |" in summary.read_text()


def test_a_rename_that_cannot_be_told_apart_is_not_followed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two removed cases with one definition (or a run that recorded none) name no rename."""
    base = write_run(tmp_path / "base", {"kept": ["pass"], "a": ["pass"], "b": ["pass"]})
    candidate = write_run(tmp_path / "cand", {"kept": ["pass"], "c": ["fail"]})
    _define(base, {"a": "sha256:R", "b": "sha256:R"})
    _define(candidate, {"c": "sha256:R"})
    code, out, _ = compare_cli(capsys, str(base), str(candidate), "--json")
    assert code == 0
    classes = {c["case_id"]: c["classification"] for c in json.loads(out)["cases"]}
    assert classes == {"kept": "same-pass", "a": "removed", "b": "removed", "c": "added"}
    older = write_run(tmp_path / "older", {"kept": ["pass"], "a": ["pass"]})
    code, out, _ = compare_cli(capsys, str(older), str(candidate), "--json")
    assert code == 0
    classes = {c["case_id"]: c["classification"] for c in json.loads(out)["cases"]}
    assert classes == {"kept": "same-pass", "a": "removed", "c": "added"}


def test_a_run_with_too_few_cases_decided_on_both_sides_is_no_comparison(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An outage (here the agent's model unreachable) on three of five candidate cases: each is
    `environment-divergence`, and the comparison said `no regression`, exit 0, over two cases.
    Now it states its coverage (cases of both runs decided on both sides) and is no comparison
    below `--min-coverage` (default 0.8): exit 3. A regression still is one (exit 1)."""
    names = [f"c{i}" for i in range(5)]
    base = write_run(tmp_path / "base", {n: ["pass"] for n in names})
    outage = {n: (["env"] if i < 3 else ["pass"]) for i, n in enumerate(names)}
    candidate = write_run(tmp_path / "cand", outage)
    for n in names[:3]:
        path = candidate / "case-artifacts" / n / "attempts" / "attempt-01" / "attempt.json"
        record = json.loads(path.read_text())
        path.write_text(json.dumps({**record, "model_unreachable": True, "exit_code": 1}))
    code, out, _ = compare_cli(capsys, str(base), str(candidate))
    assert code == 3
    assert "compared: 2 of 5 case(s) in both runs decided on both sides: coverage 0.40," in out
    assert out.splitlines()[-1].startswith("COMPARE: no comparison: 2 of 5 case(s)")
    written = json.loads((candidate / "comparison.json").read_text())
    assert written["coverage"] == 0.4 and written["min_coverage"] == 0.8
    assert "Compared: 2 of 5 case(s)" in (candidate / "comparison.md").read_text()
    code, out, _ = compare_cli(capsys, str(base), str(candidate), "--min-coverage", "0.4")
    assert code == 0 and out.splitlines()[-1] == "COMPARE: no regression"
    # the look-alike: one outage of five leaves 0.8, enough
    one = write_run(tmp_path / "one", {n: (["env"] if n == "c0" else ["pass"]) for n in names})
    code, out, _ = compare_cli(capsys, str(base), str(one))
    assert code == 0 and "coverage 0.80, minimum 0.80" in out
    # a regression among the few compared is one
    broke = write_run(
        tmp_path / "broke",
        {n: (["env"] if i < 3 else ["fail"]) for i, n in enumerate(names)},
    )
    code, out, _ = compare_cli(capsys, str(base), str(broke))
    assert code == 1 and out.splitlines()[-1] == "COMPARE: 2 regression(s): c3, c4"
