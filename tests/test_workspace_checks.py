"""`workspace_file_matches`: an RE2 pattern over the content of the workspace files a glob names."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.contract.models import NotCheck, WorkspaceFileMatchesCheck
from evaluator.evidence import SessionEvidence
from evaluator.judge import JudgeContext
from evaluator.judge.checks.registry import run_check
from tests.test_validate import run_cli, write


def _context(root: Path) -> JudgeContext:
    return JudgeContext(
        evidence=SessionEvidence(session_path="s"),
        workspace=root,
        ref_prefix="e.json",
    )


def _matches(path: str, pattern: str) -> WorkspaceFileMatchesCheck:
    return WorkspaceFileMatchesCheck(kind="workspace_file_matches", path=path, pattern=pattern)


def test_a_pattern_over_file_content_passes_fails_and_negates(tmp_path: Path) -> None:
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations/0001_a.sql").write_text("-- up\nALTER TABLE a ADD COLUMN b TEXT;\n")
    context = _context(tmp_path)
    hit = run_check(_matches("migrations/*.sql", r"ADD COLUMN \w+ TEXT"), context)
    assert hit.status == "pass"
    assert "'ADD COLUMN b TEXT'" in hit.detail
    assert "workspace-files:migrations/0001_a.sql" in hit.evidence
    miss = run_check(_matches("migrations/*.sql", r"DROP\s+TABLE"), context)
    assert miss.status == "fail"
    assert miss.detail == "migrations/0001_a.sql does not contain /DROP\\s+TABLE/"
    forbidden = NotCheck(operand=_matches("migrations/*.sql", r"DROP\s+TABLE"))
    negated = run_check(forbidden, context)
    assert negated.status == "pass"
    # Said plainly: never a double negative.
    assert negated.detail == (
        "migrations/0001_a.sql does not contain /DROP\\s+TABLE/, as `not` requires"
    )
    nothing = run_check(_matches("docs/*.md", "x"), context)
    assert nothing.status == "fail" and "no file matching docs/*.md" in nothing.detail


def test_validate_rejects_a_pattern_re2_cannot_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A backreference is not RE2: refused with its location before any agent runs."""
    from tests.conftest import copy_demo

    repo = copy_demo(tmp_path)
    case = repo / "targets/db-migrations/cases/routing/routing-add-column.yaml"
    text = case.read_text().replace(
        '      checks:\n        - kind: file_read\n          path: ".agents/skills/db-migrations/references/add-column.md"',
        '      checks:\n        - kind: workspace_file_matches\n          path: "migrations/*.sql"\n          pattern: "(a)\\\\1"',
        1,
    )
    write(case.parent, case.name, text)
    code, _, err = run_cli(["validate", "--repo", str(repo)], capsys)
    assert code == 2
    assert (
        "routing-add-column.yaml" in err
        and "pattern" in err
        and "invalid regular expression" in err
    )
