"""Faults and secrets without an agent: hostile sessions, redaction encodings, the scratch root,
the run-dir lock, workspace snapshots and the report's findings."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from evaluator.artifacts.models import AssertionResult, AttemptRecord, CaseResult, Manifest
from evaluator.artifacts.redact import Redactor
from evaluator.artifacts.report import render_report
from evaluator.artifacts.report_findings import case_findings
from evaluator.artifacts.rundir import (
    RunDir,
    RunLock,
    RunLocked,
    copy_staged,
    storage_error,
    write_staged,
)
from evaluator.cli.main import main
from evaluator.contract.models import WorkspaceFileContainsCheck, WorkspaceFileExistsCheck
from evaluator.credentials import embedded_credentials
from evaluator.errors import EnvironmentProblem
from evaluator.evidence import SessionEvidence
from evaluator.judge import JudgeContext
from evaluator.judge.checks.attempt_sessions import run_check
from evaluator.pipeline import run as run_module
from evaluator.pipeline.stats import case_stats
from evaluator.workspace.builder import AttemptWorkspace
from evaluator.workspace.scratch import check_scratch_root, make_tree_private, remove_scratch
from evaluator.workspace.snapshot import fingerprint, restore_snapshot, save_snapshot

HOSTILE = Path(__file__).parents[1] / "fixtures/hostile"


# ------------------------------------------------------------------ malformed sessions


@pytest.mark.parametrize(
    ("name", "lines"),
    [("deeply-nested.jsonl", [2]), ("wrong-types.jsonl", [2, 3])],
)
def test_session_inspect_reports_malformed_records_and_never_crashes(
    name: str, lines: list[int], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The sessions ran in /w; inspected against a workspace that exists, with their paths moved.
    workspace = tmp_path / "w"
    workspace.mkdir()
    path = tmp_path / name
    path.write_text((HOSTILE / "sessions" / name).read_text().replace('"/w', f'"{workspace}'))
    with pytest.raises(SystemExit) as info:
        main(["session", "inspect", str(path), "--workspace", str(workspace), "--json"])
    assert info.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert [m["line"] for m in data["malformed"]] == lines
    # A skipped record may have done anything: never `contained`.
    assert data["isolation"]["verdict"] == "unverifiable"
    assert data["complete"] is True and data["final_answer"] == "done"
    with pytest.raises(SystemExit) as info:
        main(["session", "inspect", str(path), "--workspace", str(workspace)])
    assert info.value.code == 0
    err = capsys.readouterr().err
    for line in lines:
        assert f"{path}:{line}: skipped: " in err
    assert "internal error" not in err


# ------------------------------------------------------------------ redaction

AWKWARD = 'pa"ss\\word/ö &x=1'


def test_redaction_replaces_raw_json_escaped_and_url_encoded_forms() -> None:
    once = json.dumps(AWKWARD)[1:-1]
    forms = [
        AWKWARD,
        once,
        json.dumps(AWKWARD, ensure_ascii=True)[1:-1],
        json.dumps(once)[1:-1],  # a command inside a function call's `arguments` string
        quote(AWKWARD, safe=""),
        quote_plus(AWKWARD),
    ]
    text = " | ".join(forms)
    redacted = Redactor({"DB_PASSWORD": AWKWARD}).text(text)
    assert redacted == " | ".join(["[REDACTED:DB_PASSWORD]"] * len(forms))
    # And in a JSON artifact, where the raw value only ever appears escaped.
    artifact = json.dumps({"answer": f"it is {AWKWARD}"})
    assert AWKWARD not in json.loads(Redactor({"P": AWKWARD}).text(artifact))["answer"]


def test_credentials_inside_declared_urls_are_secrets() -> None:
    url = "postgres://app:s3cr%40t-pw@db.internal:5432/shop?sslmode=require&sslpassword=k3y-pass"
    assert embedded_credentials(url) == [("password", "s3cr%40t-pw"), ("sslpassword", "k3y-pass")]
    workspace = AttemptWorkspace("c", 1, Path("."), env={"DATABASE_URL": url, "PLAIN": "x"})
    secrets = workspace.secret_values()
    assert secrets == {
        "DATABASE_URL:password": "s3cr%40t-pw",
        "DATABASE_URL:sslpassword": "k3y-pass",
    }
    redactor = Redactor(secrets)
    # The decoded form the agent may print is caught too.
    assert redactor.text("user app, password s3cr@t-pw") == (
        "user app, password [REDACTED:DATABASE_URL:password]"
    )
    assert "s3cr" not in redactor.text(url)
    assert embedded_credentials("not a url") == []


# ------------------------------------------------------------------ scratch root


def test_scratch_root_is_private_and_refused_when_others_can_write(tmp_path: Path) -> None:
    fresh = tmp_path / "new-root"
    check_scratch_root(fresh)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700
    loose = tmp_path / "loose"
    loose.mkdir()
    loose.chmod(0o755)
    check_scratch_root(loose)  # ours and not writable by others: tightened, not refused
    assert stat.S_IMODE(loose.stat().st_mode) == 0o700
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(EnvironmentProblem, match="writable by other users"):
        check_scratch_root(shared)
    link = tmp_path / "link"
    link.symlink_to(fresh)
    with pytest.raises(EnvironmentProblem, match="not a plain directory"):
        check_scratch_root(link)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a directory to another user")
def test_scratch_root_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir(mode=0o700)
    os.chown(foreign, 65534, 65534)
    with pytest.raises(EnvironmentProblem, match="owned by uid 65534"):
        check_scratch_root(foreign)


def test_scratch_tree_is_made_private_and_removed(tmp_path: Path) -> None:
    root = tmp_path / "run"
    (root / "a/b").mkdir(parents=True)
    (root / "a/b/f.txt").write_text("x")
    script = root / "a/run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    outside = tmp_path / "outside"
    (outside / "d").mkdir(parents=True)
    (outside / "d").chmod(0o755)
    (outside / "f.txt").write_text("x")
    (outside / "f.txt").chmod(0o644)
    (root / "a/link-dir").symlink_to(outside / "d")
    (root / "a/link-file").symlink_to(outside / "f.txt")
    make_tree_private(root)
    # Symlinks are not followed: what they point to keeps its mode.
    assert stat.S_IMODE((outside / "d").stat().st_mode) == 0o755
    assert stat.S_IMODE((outside / "f.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE((root / "a/b").stat().st_mode) == 0o700
    assert stat.S_IMODE((root / "a/b/f.txt").stat().st_mode) == 0o600
    assert stat.S_IMODE(script.stat().st_mode) == 0o700
    (root / "a/b").chmod(0o500)  # an agent may leave read-only directories behind
    remove_scratch(root)
    assert not root.exists()


def test_make_tree_private_writes_only_the_modes_that_are_wrong(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "home"
    (root / "skills/.system").mkdir(parents=True)
    for directory in (root, root / "skills", root / "skills/.system"):
        directory.chmod(0o700)
    private = root / "skills/.system/SKILL.md"
    private.write_text("x")
    private.chmod(0o600)
    shared = root / "installation_id"  # Codex writes this one 0644 on purpose
    shared.write_text("id")
    shared.chmod(0o644)
    setuid = root / "tool"
    setuid.write_text("#!/bin/sh\n")
    setuid.chmod(0o4755)
    (root / "skills").chmod(0o755)
    changed: list[str] = []
    real_chmod = os.chmod
    monkeypatch.setattr(
        os, "chmod", lambda path, mode: (changed.append(os.fspath(path)), real_chmod(path, mode))
    )
    make_tree_private(root)
    assert sorted(changed) == sorted(str(p) for p in (shared, setuid, root / "skills"))
    assert stat.S_IMODE(shared.stat().st_mode) == 0o600
    assert stat.S_IMODE(setuid.stat().st_mode) == 0o700  # the setuid bit goes too
    assert stat.S_IMODE((root / "skills").stat().st_mode) == 0o700
    assert stat.S_IMODE(private.stat().st_mode) == 0o600


# ------------------------------------------------------------------ run-dir lock


def test_run_lock_is_exclusive_and_released_and_a_stale_lock_does_not_block(
    tmp_path: Path,
) -> None:
    first = RunLock(tmp_path)
    first.acquire()
    with pytest.raises(RunLocked, match=f"pid {os.getpid()}"):
        RunLock(tmp_path).acquire()
    first.release()
    second = RunLock(tmp_path)
    second.acquire()  # released on release()
    second.release()
    # A holder killed by SIGKILL: its pid stays in the file, the kernel dropped its lock.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path;"
            " from evaluator.artifacts.rundir import RunLock;"
            f" lock = RunLock(Path({str(tmp_path)!r})); lock.acquire(); print('held', flush=True);"
            " time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    with pytest.raises(RunLocked, match=f"pid {holder.pid}"):
        RunLock(tmp_path).acquire()
    holder.kill()
    holder.wait()
    assert f"pid {holder.pid}" in (tmp_path / ".lock").read_text()
    stale = RunLock(tmp_path)
    stale.acquire()
    assert (tmp_path / ".lock").read_text() == f"pid {os.getpid()}\n"
    stale.release()


def test_storage_errors_are_recognised_only_where_they_matter(tmp_path: Path) -> None:
    full = OSError(28, "No space left on device", "/anywhere/x")
    assert storage_error(full, ()) is full
    denied_here = PermissionError(13, "Permission denied", str(tmp_path / "runs/x"))
    denied_elsewhere = PermissionError(13, "Permission denied", "/etc/shadow")
    assert storage_error(denied_here, (tmp_path,)) is denied_here
    assert storage_error(denied_elsewhere, (tmp_path,)) is None
    try:
        try:
            raise full
        except OSError as exc:
            raise RuntimeError("wrapped") from exc
    except RuntimeError as wrapped:
        assert storage_error(wrapped, ()) is full


# ------------------------------------------------------------------ workspace snapshot


def test_snapshot_keeps_what_the_agent_made_and_restores_the_rest(tmp_path: Path) -> None:
    source = tmp_path / "source"
    (source / ".agents/skills/s").mkdir(parents=True)
    (source / ".agents/skills/s/SKILL.md").write_text("the skill")
    workspace = tmp_path / "ws"
    (workspace / ".agents/skills/s").mkdir(parents=True)
    (workspace / ".agents/skills/s/SKILL.md").write_text("the skill")
    (workspace / "fixture.txt").write_text("set up by the case")
    (workspace / "doomed.txt").write_text("deleted by the agent")
    baseline = fingerprint(workspace)
    (workspace / "doomed.txt").unlink()
    (workspace / "fixture.txt").write_text("changed by the agent")
    (workspace / "migrations").mkdir()
    (workspace / "migrations/0001_x.sql").write_text("ALTER TABLE x ADD COLUMN y;")
    (workspace / "big.bin").write_bytes(b"0" * 2048)
    (workspace / "escape").symlink_to("/etc")
    snapshot = tmp_path / "snapshot"
    manifest = save_snapshot(workspace, baseline, snapshot, source, max_file_bytes=1024)
    kept = {e["path"]: (e["change"], e["kept"]) for e in manifest["files"]}
    assert kept == {
        ".agents/skills/s/SKILL.md": ("unchanged", "source"),
        "big.bin": ("created", "too-large"),
        "escape": ("created", "symlink"),
        "fixture.txt": ("changed", "saved"),
        "migrations/0001_x.sql": ("created", "saved"),
    }
    assert manifest["deleted"] == ["doomed.txt"]
    assert not (snapshot / "files/.agents").exists()  # unchanged skill files are not copied
    restored = restore_snapshot(snapshot, source, tmp_path / "restored")
    root = restored.root
    assert (root / "migrations/0001_x.sql").read_text() == "ALTER TABLE x ADD COLUMN y;"
    assert (root / ".agents/skills/s/SKILL.md").read_text() == "the skill"
    assert (root / "fixture.txt").read_text() == "changed by the agent"
    assert (root / "big.bin").read_bytes() == b""  # exists, content unknown
    assert restored.without_content == {"big.bin"}
    assert not (root / "escape").exists()  # never recreate a link out of the workspace
    # The source changed since: its content is no longer known, its existence still is.
    (source / ".agents/skills/s/SKILL.md").write_text("edited later")
    again = restore_snapshot(snapshot, source, tmp_path / "again")
    assert again.without_content == {"big.bin", ".agents/skills/s/SKILL.md"}


def test_a_source_file_edited_between_attempts_is_hashed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Source hashes are kept between snapshots by the file's identity and times: an edit of the
    same size is seen at the next snapshot, never taken from the kept hash."""
    from evaluator.workspace import snapshot as snapshots

    monkeypatch.setattr(snapshots, "SETTLED_S", -60.0)  # every file counts as settled
    source, workspace = tmp_path / "source", tmp_path / "ws"
    for root in (source, workspace):
        root.mkdir()
        (root / "SKILL.md").write_text("the skill")
    os.utime(source / "SKILL.md", ns=(10**18, 10**18))  # the edit below gets other times
    baseline = fingerprint(workspace)
    first = save_snapshot(workspace, baseline, tmp_path / "one", source)
    assert [e["kept"] for e in first["files"]] == ["source"]
    assert any(key[0] == str(source / "SKILL.md") for key in snapshots._SOURCE_DIGESTS)
    (source / "SKILL.md").write_text("THE SKILL")  # the same size
    second = save_snapshot(workspace, baseline, tmp_path / "two", source)
    assert [e["kept"] for e in second["files"]] == ["saved"]


# ------------------------------------------------------------------ report findings


def _manifest(tmp_path: Path) -> Manifest:
    return Manifest(
        run_id="r",
        target_id="t",
        suite_ids=["s"],
        target_skill_path=".agents/skills/s/SKILL.md",
        started_at="2026-01-01T00:00:00+00:00",
        case_workspace_root=str(tmp_path / "ws"),
        source_workspace=str(tmp_path),
        resolved_case_ids=["flaky", "unclear"],
    )


def test_report_names_flaky_attempts_and_separates_skill_and_eval_fixes(tmp_path: Path) -> None:
    (tmp_path / ".agents/skills/s").mkdir(parents=True)
    (tmp_path / ".agents/skills/s/SKILL.md").write_text("x")
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases/unclear.yaml").write_text("x")
    statuses = ["pass", "fail", "fail"]
    flaky = CaseResult(
        case_id="flaky",
        workspace_root=None,
        thread_id=None,
        session_path=None,
        status="fail",
        suggested_fix_files=[".agents/skills/s/SKILL.md", "missing/file.md"],
        attempts=[
            AttemptRecord(attempt=n, workspace_root="", valid=True, status=s)
            for n, s in enumerate(statuses, start=1)
        ],
        stats=case_stats(statuses),
        case_file="cases/flaky.yaml",
    )
    unclear = CaseResult(
        case_id="unclear",
        workspace_root=None,
        thread_id=None,
        session_path=None,
        status="blocked",
        blocked_reason="unclear-rule",
        suggested_fix_files=[".agents/skills/s/SKILL.md"],
        assertions=[
            AssertionResult(
                summary="The answer is kind.", status="blocked", blocked_reason="unclear-rule"
            )
        ],
        environment_mismatches=["setup key 'force_fetch_failure' is not understood"],
        case_file="cases/unclear.yaml",
    )
    results = [flaky, unclear]
    report = render_report(
        _manifest(tmp_path), results, case_findings(RunDir(tmp_path / "run"), results)
    )
    assert "- Flaky: attempt(s) 02, 03 failed, 01 passed" in report
    assert "- Setup mismatch: setup key 'force_fetch_failure' is not understood" in report
    fixes = report.split("## Suggested Next Fixes", 1)[1]
    skill, eval_ = fixes.split("### Fix the eval", 1)
    assert "### Fix the skill" in skill
    # The unclear-rule case names the skill file but is the eval's to fix: counted once.
    assert "1. `.agents/skills/s/SKILL.md`: named by 1 failing or blocked case(s)." in skill
    assert "missing/file.md" not in fixes  # every fix points at a real file
    assert "1. `cases/unclear.yaml`: 1 assertion(s) no judge can decide (add `checks:`):" in eval_
    assert "setup not reproducible" in eval_


def test_workspace_checks_read_a_restored_snapshot_and_block_on_unkept_content(
    tmp_path: Path,
) -> None:
    restored = tmp_path / "restored"
    (restored / "migrations").mkdir(parents=True)
    (restored / "migrations/0001_a.sql").write_text("ALTER TABLE a ADD COLUMN b;")
    (restored / "migrations/0002_big.sql").write_bytes(b"")  # kept as a placeholder only
    context = JudgeContext(
        evidence=SessionEvidence(session_path="s"),
        workspace=Path("/gone/workspace"),  # the scratch space is gone
        ref_prefix="e.json",
        files_root=restored,
        without_content=frozenset({"migrations/0002_big.sql"}),
    )
    exists = WorkspaceFileExistsCheck(kind="workspace_file_exists", path="migrations/0002_*.sql")
    assert run_check(exists, context).status == "pass"
    found = WorkspaceFileContainsCheck(
        kind="workspace_file_contains", path="migrations/0001_*.sql", text="ADD COLUMN b"
    )
    outcome = run_check(found, context)
    assert outcome.status == "pass" and "workspace-files:migrations/0001_a.sql" in outcome.evidence
    unknown = WorkspaceFileContainsCheck(
        kind="workspace_file_contains", path="migrations/0002_*.sql", text="anything"
    )
    outcome = run_check(unknown, context)
    assert (outcome.status, outcome.blocked_reason) == ("blocked", "insufficient-evidence")
    assert "not kept in the workspace snapshot" in outcome.detail


def test_what_the_agent_did_names_the_files_it_wrote(tmp_path: Path) -> None:
    """A skill-creator suite judges the files an agent writes: an agent that wrote three files
    and read none is not summed up as having read no file, as if it did nothing; a write that
    did not take effect is not named."""
    from evaluator.artifacts.report_findings import agent_activity

    run_dir = RunDir(tmp_path / "run")
    folder = run_dir.case_artifacts("c")
    folder.mkdir(parents=True)
    ws = "/w/c/attempt-01"

    def write(n: int, path: str, outcome: str = "ok") -> dict[str, object]:
        return {
            "id": f"msg-{n}",
            "kind": "file_write_observed",
            "path": f"{ws}/{path}",
            "access": "write",
            "outcome": outcome,
        }

    records = [
        write(1, "pom.xml"),
        write(2, "pom.xml"),
        write(3, "src/A.java"),
        write(4, "README.md", "failed"),
    ]
    (folder / "accepted-session.json").write_text(json.dumps({"records": records}))
    result = CaseResult(
        case_id="c", workspace_root=ws, thread_id=None, session_path=None, status="fail"
    )
    (line,) = agent_activity(run_dir, result)
    assert line == "What the agent did instead: it read no file; it wrote `pom.xml`, `src/A.java`"


def test_a_case_blocked_by_unclear_prose_gets_a_hint_saying_what_to_do() -> None:
    """skill-creator's expectations are prose: without a judge model a run blocks them, and the
    summary says how to decide them rather than only that nothing was proven."""
    from evaluator.cli.run import unclear_rule_hint

    def result(case_id: str, status: str, reason: str | None) -> CaseResult:
        return CaseResult(
            case_id=case_id,
            workspace_root=None,
            thread_id=None,
            session_path=None,
            status=status,
            blocked_reason=reason,
        )

    assert (
        unclear_rule_hint([result("a", "pass", None), result("b", "blocked", "environment")])
        is None
    )
    hint = unclear_rule_hint([result("a", "blocked", "unclear-rule"), result("b", "fail", None)])
    assert hint is not None and hint.startswith("hint: 1 case blocked by unclear-rule")
    assert "--judge-model M" in hint and "agentic-eval explain" in hint
    assert "write checks" in hint
    # An evals.json cannot hold `checks:`: its author is told what it can hold instead.
    blocked = [result("a", "blocked", "unclear-rule")]
    evals_hint = unclear_rule_hint(blocked, from_evals=True)
    assert evals_hint is not None and "write checks" not in evals_hint
    assert "typed assertions" in evals_hint and "agentic-eval convert" in evals_hint


def test_staged_files_are_written_in_place_private_and_whole(tmp_path: Path) -> None:
    """An attempt's staging area is written without temporary files: each file 0600, its whole
    content, replacing what an earlier save of the same attempt left."""
    source = tmp_path / "session.jsonl"
    source.write_bytes(b"x" * (3 * 1024 * 1024 + 7))
    staged = tmp_path / "staging"
    staged.mkdir()
    (staged / "copy.jsonl").write_bytes(b"an earlier, longer save" * 1000)
    (staged / "attempt.json").write_text("an earlier, longer save" * 1000)
    copy_staged(source, staged / "copy.jsonl")
    write_staged(staged / "attempt.json", b"{}\n")
    assert (staged / "copy.jsonl").read_bytes() == source.read_bytes()
    assert (staged / "attempt.json").read_text() == "{}\n"
    assert sorted(p.name for p in staged.iterdir()) == ["attempt.json", "copy.jsonl"]
    new = staged / "new.txt"
    write_staged(new, b"fresh")
    assert new.stat().st_mode & 0o777 == 0o600


def test_the_heap_is_frozen_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    frozen: list[bool] = []
    monkeypatch.setattr(run_module, "_heap_frozen", False)
    monkeypatch.setattr(run_module.gc, "freeze", lambda: frozen.append(True))
    run_module.freeze_heap_once()
    run_module.freeze_heap_once()
    assert frozen == [True]


def test_a_scratch_the_first_removal_fails_on_is_made_writable_then_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first removal is tried as the tree is (an attempt's trees are already private); when
    it fails (a read-only directory, for a user who cannot ignore that) the rest is made
    private and removed."""
    root = tmp_path / "scratch"
    (root / "a/b").mkdir(parents=True)
    (root / "a/b/f.txt").write_text("x")
    (root / "a/b").chmod(0o500)
    real_rmtree = shutil.rmtree
    calls: list[int] = []

    def refusing_once(path: Path) -> None:
        calls.append(stat.S_IMODE((root / "a/b").stat().st_mode))
        if len(calls) == 1:
            raise PermissionError(13, "Permission denied", str(root / "a/b/f.txt"))
        real_rmtree(path)

    monkeypatch.setattr(shutil, "rmtree", refusing_once)
    remove_scratch(root)
    assert calls == [0o500, 0o700]  # the second try came after the tree was made private
    assert not root.exists()
