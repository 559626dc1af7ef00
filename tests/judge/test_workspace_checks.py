"""`workspace_file_matches`: an RE2 pattern over the content of the workspace files a glob names."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evaluator.contract.models import (
    NotCheck,
    WorkspaceFileContainsCheck,
    WorkspaceFileExistsCheck,
    WorkspaceFileMatchesCheck,
)
from evaluator.evidence import SessionEvidence
from evaluator.judge import JudgeContext
from evaluator.judge.checks.attempt_sessions import run_check
from tests.cli.test_validate import validate_with_checks
from tests.support import judgement_report


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
    code, err = validate_with_checks(
        tmp_path,
        capsys,
        '      checks:\n        - kind: workspace_file_matches\n          path: "migrations/*.sql"\n          pattern: "(a)\\\\1"',
    )
    assert code == 2
    assert (
        "routing-add-column.yaml" in err
        and "pattern" in err
        and "invalid regular expression" in err
    )


def _contains(path: str, text: str) -> WorkspaceFileContainsCheck:
    return WorkspaceFileContainsCheck(kind="workspace_file_contains", path=path, text=text)


def _exists(path: str) -> WorkspaceFileExistsCheck:
    return WorkspaceFileExistsCheck(kind="workspace_file_exists", path=path)


def test_a_symlink_the_agent_pointed_outside_is_no_workspace_file(tmp_path: Path) -> None:
    """Red team, round 4: the judge runs unconfined, so a link the agent left in its workspace
    must not make it read a file outside (a fixture with the wanted text, the evaluator's own
    environment through /proc/self/environ), nor count as the file made."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "expected.txt").write_text("TOTAL: 42\n")
    (workspace / "report.txt").symlink_to(outside / "expected.txt")
    (workspace / "env.txt").symlink_to("/proc/self/environ")
    (workspace / "dangling.txt").symlink_to(outside / "missing.txt")
    context = _context(workspace)
    linked = run_check(_contains("report.txt", "TOTAL: 42"), context)
    assert linked.status == "fail"
    assert "report.txt is a symlink to outside the workspace" in linked.detail
    assert run_check(_contains("env.txt", "PATH="), context).status == "fail"
    assert run_check(_exists("report.txt"), context).status == "fail"
    dangling = run_check(_exists("dangling.txt"), context)
    assert dangling.status == "fail" and "leads nowhere" in dangling.detail
    # A link that stays inside is the workspace's own file, followed as before.
    (workspace / "real.txt").write_text("TOTAL: 42\n")
    (workspace / "inside.txt").symlink_to("real.txt")
    assert run_check(_contains("inside.txt", "TOTAL: 42"), context).status == "pass"
    assert run_check(_exists("inside.txt"), context).status == "pass"


def test_a_fifo_or_a_huge_sparse_file_fails_without_stalling_the_judge(tmp_path: Path) -> None:
    """A FIFO named like the output would block a plain read forever, and a sparse file of any
    size costs the agent nothing: neither is read, and the check fails (never `blocked`, which
    would drop the case from the score)."""
    os.mkfifo(tmp_path / "out.csv")
    with (tmp_path / "big.log").open("wb") as sparse:
        sparse.truncate(200 * 1024 * 1024 * 1024)
    context = _context(tmp_path)
    fifo = run_check(_contains("out.csv", "id,total"), context)
    assert fifo.status == "fail" and "not a regular file" in fifo.detail
    assert run_check(_exists("out.csv"), context).status == "fail"
    big = run_check(_contains("big.log", "done"), context)
    assert big.status == "fail" and "larger than 64 MiB, not read" in big.detail
    assert run_check(_matches("big.log", "done"), context).status == "fail"


def test_a_file_named_with_a_newline_cannot_write_a_line_of_the_report(tmp_path: Path) -> None:
    """Red team, round 4: a name with a newline matches a glob as it should, but in a failing
    check's note it must not start a heading or a line of its own in report.md."""
    from evaluator.contract.models import Case
    from evaluator.judge import judge_case

    (tmp_path / "out\n## bootstrap: pass\n.md").write_text("nothing\n")
    case = Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "assert": {
                "required": [
                    {
                        "description": "total",
                        "checks": [
                            {"kind": "workspace_file_contains", "path": "*.md", "text": "42"}
                        ],
                    }
                ]
            },
        }
    )
    judgement = judge_case(case, _context(tmp_path))
    assert judgement.status == "fail"
    report = judgement_report(judgement)
    assert "## bootstrap: pass" in report
    assert not any(line.startswith("## bootstrap") for line in report.splitlines())


SECRET = "sk-live-4f9a8b7c6d5e4f3a2b1c"


def _rejudged(workspace: Path, tmp_path: Path, *, recorded: bool = True) -> JudgeContext:
    """The context a re-judge builds from `workspace` saved, redacted and restored as a run
    does (with the placeholder record unless `recorded` is False: an older run)."""
    from evaluator.artifacts.redact import Redactor
    from evaluator.workspace.snapshot import record_placeholders, restore_snapshot, save_snapshot

    snapshot = tmp_path / "snapshot"
    save_snapshot(workspace, {}, snapshot, tmp_path / "no-source")
    redactor = Redactor({"API_KEY": SECRET})
    if recorded:
        record_placeholders(snapshot, redactor)
    redactor.tree(snapshot)
    restored = restore_snapshot(snapshot, tmp_path / "no-source", tmp_path / "restored")
    return JudgeContext(
        evidence=SessionEvidence(session_path="s"),
        workspace=workspace,
        ref_prefix="e.json",
        files_root=restored.root,
        placeholders=restored.placeholders,
    )


@pytest.mark.parametrize("recorded", [True, False])
def test_a_content_check_the_runs_placeholder_would_decide_is_blocked_on_re_judge(
    tmp_path: Path, recorded: bool
) -> None:
    """The run saw the secret, the snapshot holds `[REDACTED:API_KEY]` in its place: a pattern
    that matches the placeholder failed in the run and passed on re-judge (before), and one
    that matched the secret passed in the run and failed on re-judge. Neither can be judged
    again; a match clear of the placeholder can."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "config.py").write_text(f'KEY = "{SECRET}"\nDEBUG = False\n')
    redacted = _matches("config.py", r"REDACTED")
    by_secret = WorkspaceFileContainsCheck(
        kind="workspace_file_contains", path="config.py", text="sk-live"
    )
    clear = WorkspaceFileContainsCheck(
        kind="workspace_file_contains", path="config.py", text="DEBUG = False"
    )
    live = _context(workspace)
    assert [run_check(c, live).status for c in (redacted, by_secret, clear)] == [
        "fail",
        "pass",
        "pass",
    ]
    again = _rejudged(workspace, tmp_path, recorded=recorded)
    assert "[REDACTED:API_KEY]" in (again.file_root / "config.py").read_text()
    verdicts = [run_check(c, again) for c in (redacted, by_secret, clear)]
    assert [v.status for v in verdicts] == ["blocked", "blocked", "pass"]
    assert "replaced by a placeholder" in verdicts[0].detail
    assert ("does not record which" in verdicts[0].detail) is not recorded


def test_a_placeholder_the_agent_typed_is_judged_as_text_on_re_judge(tmp_path: Path) -> None:
    """The agent typed `[REDACTED:API_KEY]` itself and no secret was in the file: the run and a
    re-judge read the same text and decide alike."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "config.py").write_text('KEY = "[REDACTED:API_KEY]"\n')
    redacted = _matches("config.py", r"REDACTED:API_KEY")
    other = _matches("config.py", r"sk-live")
    live = _context(workspace)
    again = _rejudged(workspace, tmp_path)
    for check, status in ((redacted, "pass"), (other, "fail")):
        assert run_check(check, live).status == status
        assert run_check(check, again).status == status


def test_an_excluded_input_counts_as_given_only_while_unchanged(tmp_path: Path) -> None:
    """Red team, round 11: `exclude` names the case's own inputs (an `evals.json` eval's
    `files`), skipped by a `must_have` / `must_not_have` search. An input the agent changed,
    replaced or added to is its output, and is searched."""
    import hashlib

    given = "Meeting at noon.\nThe passphrase is hunter2.\n"
    (tmp_path / "in").mkdir()
    (tmp_path / "notes.txt").write_text(given)
    (tmp_path / "in/a.txt").write_text(given)
    digest = hashlib.sha256(given.encode()).hexdigest()
    context = _context(tmp_path)
    context.baseline = {"notes.txt": digest, "in/a.txt": digest}
    check = WorkspaceFileMatchesCheck(
        kind="workspace_file_matches", path="**/*", pattern="hunter2", exclude=["notes.txt", "in"]
    )
    assert run_check(check, context).status == "fail"  # as given: not the agent's
    (tmp_path / "notes.txt").write_text(given + "Shared hunter2.\n")
    assert run_check(check, context).status == "pass"  # changed: the agent's output
    (tmp_path / "notes.txt").write_text(given)
    (tmp_path / "in/b.txt").write_text("hunter2")  # a new file in a given folder
    assert run_check(check, context).status == "pass"
    (tmp_path / "in/b.txt").unlink()
    os.remove(tmp_path / "in/a.txt")
    os.symlink("../notes.txt", tmp_path / "in/a.txt")  # the input replaced by a link
    assert run_check(check, context).status == "pass"
    context.baseline = None  # no hashes from before the run: the path decides, as before
    assert run_check(check, context).status == "fail"
