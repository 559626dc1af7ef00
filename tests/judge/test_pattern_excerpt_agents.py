"""Long patterns in verdict notes (docs/criteria.md, "Long patterns in verdict notes"): a
forbidden or required regex of 2 KB, or a command literal's pattern (about 3.8 KB for `rm -rf`),
was quoted whole in every line that shows a check's detail. Since session 18 the detail quotes an
excerpt and the pattern's length (a command literal by its literal), the same in report.md, the
HTML report and `explain`, and the case result JSON keeps the whole pattern in the check's
`patterns`. Real Codex through the scripted server, default layers."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from evaluator.contract.models import CommandRanCheck
from evaluator.judge.criteria import check_yaml
from evaluator.judge.literal_checks import literal_command
from evaluator.judge.pattern_excerpt import MAX_PATTERN_SHOWN
from evaluator.pipeline.run import RunOutcome
from tests.support import agent_params, scripted_outcome

SKILL = ".agents/skills/tidy"
LONG = "(?:" + "|".join(f"forbidden-token-{i:03d}" for i in range(100)) + ")"
CASES = {
    "long-regex": (
        "Say done.",
        "ls",
        f"""
  required:
    - description: "The answer names a token."
      checks:
        - kind: final_answer_matches
          pattern: '{LONG}'
""",
    ),
    "literal": (
        "Tidy up.",
        "ls",
        """
  required:
    - description: "The tree was removed."
      pass_criteria:
        - "The agent ran `rm -rf`."
""",
    ),
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def _eval_repo(root: Path) -> tuple[Path, Path, Path]:
    source = root / "source"
    _write(
        source / SKILL / "SKILL.md",
        """
        ---
        name: tidy
        description: Tidies a project's build output.
        ---
        Remove build output with care.
        """,
    )
    repo = root / "agentic-evals"
    target = repo / "targets/tidy"
    _write(
        target / "target.yaml",
        f"""
        target_id: "tidy"
        title: "tidy"
        entry_skill: "{SKILL}/SKILL.md"
        default_suites: ["use"]
        suite_root: "cases"
        """,
    )
    paths = [f"targets/tidy/cases/use/{case}.yaml" for case in CASES]
    _write(
        target / "cases/use/suite.yaml",
        'suite_id: "use"\ntitle: "use"\ncases:\n' + "".join(f'  - "{p}"\n' for p in paths),
    )
    behaviors = root / "behaviors"
    behaviors.mkdir()
    for case, (prompt, command, assertions) in CASES.items():
        (target / f"cases/use/{case}.yaml").write_text(
            f'case_id: "{case}"\ntitle: "{case}"\ninput: {{user_prompt: "{prompt}"}}\n'
            f'assert:\n  summary: "{case}"{assertions}'
        )
        steps = [{"cmd": command}, {"final": "Done."}]
        (behaviors / f"{case}.yaml").write_text(
            json.dumps({"name": case, "match": {"prompt_contains": prompt}, "steps": steps})
        )
    return repo, source, behaviors


@pytest.fixture(scope="module", params=agent_params("codex"))
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunOutcome]:
    yield from scripted_outcome(request.param, tmp_path_factory, "excerpts", _eval_repo)


def test_a_long_pattern_is_an_excerpt_in_reports_and_whole_in_the_json(
    outcome: RunOutcome,
) -> None:
    literal = literal_command("rm -rf")
    assert len(LONG) > 2000 and len(literal) > MAX_PATTERN_SHOWN
    results = {r.case_id: r for r in outcome.results}
    assert {c: r.status for c, r in results.items()} == {"long-regex": "fail", "literal": "fail"}
    saved = {case: json.loads(outcome.run_dir.case_result_path(case).read_text()) for case in CASES}
    long_check = saved["long-regex"]["assertions"][0]["checks"][0]
    assert long_check["patterns"] == [LONG]
    assert long_check["detail"] == (
        f"final answer does not match /{LONG[:80]}…/ ({len(LONG):,} characters)"
    )
    literal_check = saved["literal"]["assertions"][0]["checks"][0]
    assert literal_check["patterns"] == [literal]
    assert "the pattern of the command `rm -rf`" in literal_check["detail"]
    report = (outcome.run_dir.path / "report.md").read_text()
    html = (outcome.run_dir.path / "report.html").read_text()
    for text in (report, html):
        assert LONG not in text and LONG[:200] not in text
        assert f"({len(LONG):,} characters)" in text
        assert "the pattern of the command `rm -rf`" in text or (
            "the pattern of the command <code>rm -rf</code>" in text
        )
    assert max(len(line) for line in report.splitlines()) < 600


def test_explain_shows_the_excerpt() -> None:
    shown = check_yaml(CommandRanCheck(kind="command_ran", pattern=LONG))
    assert LONG not in shown and f"({len(LONG):,} characters)" in shown
    short = check_yaml(CommandRanCheck(kind="command_ran", pattern=r"pytest\b"))
    assert "pytest" in short and "characters" not in short
