"""A declared variable's value in the workspace: the `workspace_env_value` check, the phrases that
name a declared variable ("the literal app certificate"), and the entry they decide by rules."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from evaluator.contract.models import Case, NotCheck, WorkspaceEnvValueCheck
from evaluator.evidence import SessionEvidence
from evaluator.judge import JudgeContext, judge_case
from evaluator.judge.chain import plan_entries
from evaluator.judge.checks.attempt_sessions import run_check
from evaluator.judge.checks.env_value import placeholder
from evaluator.judge.criteria import check_text, compile_sentence, refuse_sentence
from evaluator.judge.skill_vocabulary import SkillVocabulary, with_variables
from tests.cli.test_validate import validate_with_checks

CERTIFICATE = "c3rt-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
APP_ID = "appid-0a1b2c3d4e5f60718293a4b5c6d7e8f9"
VARIABLES = {"AGORA_APP_ID": APP_ID, "AGORA_APP_CERTIFICATE": CERTIFICATE}
AGORA = SkillVocabulary(variables=tuple(VARIABLES))


def _context(root: Path, variables: dict[str, str] | None = None, **extra: object) -> JudgeContext:
    evidence = SessionEvidence(session_path="s.jsonl", complete=True, final_answer="done")
    evidence.add("file_write_observed", 1, path=str(root / "server.py"), access="write")
    evidence.add("final_answer", 2, text="done")
    return JudgeContext(
        evidence=evidence,
        workspace=root,
        ref_prefix="e.json",
        variables=VARIABLES if variables is None else variables,
        **extra,  # type: ignore[arg-type]
    )


def _check(variable: str = "AGORA_APP_CERTIFICATE", path: str = "**/*") -> WorkspaceEnvValueCheck:
    return WorkspaceEnvValueCheck(kind="workspace_env_value", variable=variable, path=path)


# --------------------------------------------------------------------------- the check


def test_a_file_holding_the_value_is_named_and_the_value_never_is(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app/server.py").write_text(f'CERT = "{CERTIFICATE}"\n')
    (tmp_path / "README.md").write_text("set AGORA_APP_CERTIFICATE in the environment\n")
    verdict = run_check(_check(), _context(tmp_path))
    assert verdict.status == "pass"
    assert verdict.detail == "the value of AGORA_APP_CERTIFICATE is in app/server.py"
    assert "workspace-files:app/server.py" in verdict.evidence
    assert CERTIFICATE not in verdict.model_dump_json()
    # The other variable's value is in no file; its name in a file is no value.
    other = run_check(_check("AGORA_APP_ID"), _context(tmp_path))
    assert other.status == "fail"
    assert other.detail == "no workspace file holds the value of AGORA_APP_ID"
    denied = run_check(NotCheck(operand=_check("AGORA_APP_ID")), _context(tmp_path))
    assert denied.status == "pass"


def test_the_encodings_redaction_replaces_are_found_too(tmp_path: Path) -> None:
    """A re-judge sees these forms as the snapshot's placeholder: the run must decide alike."""
    for form in (
        json.dumps({"cert": CERTIFICATE}),
        "x" + base64.b64encode(b"pre:" + CERTIFICATE.encode()).decode(),
        "&lt;" + CERTIFICATE + "&gt;",
    ):
        (tmp_path / "f.txt").write_text(form)
        assert run_check(_check(), _context(tmp_path)).status == "pass", form
    # Hex is no form redaction replaces: not found (docs/criteria.md says so).
    (tmp_path / "f.txt").write_text(CERTIFICATE.encode().hex())
    assert run_check(_check(), _context(tmp_path)).status == "fail"


def test_a_value_across_a_read_boundary_is_found(tmp_path: Path) -> None:
    from evaluator.judge.checks import env_value

    (tmp_path / "big.bin").write_bytes(b"\0" * (env_value._CHUNK - 5) + CERTIFICATE.encode())
    assert run_check(_check(), _context(tmp_path)).status == "pass"


def test_an_unset_empty_or_short_value_blocks_never_passes_a_forbidden_entry(
    tmp_path: Path,
) -> None:
    (tmp_path / "server.py").write_text("x = 1\n")
    for variables in ({}, {"AGORA_APP_CERTIFICATE": ""}):
        verdict = run_check(_check(), _context(tmp_path, variables))
        assert verdict.status == "blocked" and verdict.blocked_reason == "environment"
        assert "unset or empty" in verdict.detail
        assert run_check(NotCheck(operand=_check()), _context(tmp_path, variables)).status == (
            "blocked"
        )
    short = run_check(_check(), _context(tmp_path, {"AGORA_APP_CERTIFICATE": "1"}))
    assert short.status == "blocked" and "shorter than 8" in short.detail


def test_a_symlink_out_of_the_workspace_is_never_followed(tmp_path: Path) -> None:
    """A link may point anywhere (the environment's own files): only the workspace is searched."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "env").write_text(CERTIFICATE)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "link.txt").symlink_to(outside / "env")
    (workspace / "dir").symlink_to(outside)
    assert run_check(_check(), _context(workspace)).status == "fail"


def test_a_symlink_inside_the_workspace_is_followed(tmp_path: Path) -> None:
    """`config/app.env` made a link to a file elsewhere in the workspace is still that file."""
    (tmp_path / "notes.txt").write_text(f"key={CERTIFICATE}\n")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "app.env").symlink_to(tmp_path / "notes.txt")
    verdict = run_check(_check(path="config/*.env"), _context(tmp_path))
    assert verdict.status == "pass" and "config/app.env" in verdict.detail
    (tmp_path / "config" / "gone.env").symlink_to(tmp_path / "missing")
    assert run_check(_check(path="config/gone.env"), _context(tmp_path)).status == "fail"


def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "out.env")  # opened for reading, it would wait for a writer forever
    assert run_check(_check(), _context(tmp_path)).status == "fail"


def test_a_huge_sparse_file_is_searched_whole_where_it_holds_data(tmp_path: Path) -> None:
    """No size cap: the holes of a sparse file (free for the agent) are skipped, its data read,
    so a value written after 64 GiB of nothing is found."""
    with (tmp_path / "huge.bin").open("wb") as handle:
        handle.write(b"header\n")
        handle.seek(64 << 30)
        handle.write(f"token={CERTIFICATE}\n".encode())
    verdict = run_check(_check(), _context(tmp_path))
    assert verdict.status == "pass" and "huge.bin" in verdict.detail
    (tmp_path / "huge.bin").unlink()
    with (tmp_path / "huge.bin").open("wb") as handle:
        handle.seek(64 << 30)
        handle.write(b"nothing here\n")
    assert run_check(_check(), _context(tmp_path)).status == "fail"


def test_a_path_narrows_the_files_searched(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"AGORA_APP_CERTIFICATE={CERTIFICATE}\n")
    (tmp_path / "server.py").write_text("import os\n")
    assert run_check(_check(path="**/*.py"), _context(tmp_path)).status == "fail"
    assert run_check(_check(path=".env"), _context(tmp_path)).status == "pass"


def _rejudged(workspace: Path, tmp_path: Path, *, recorded: bool = True) -> JudgeContext:
    """The context a re-judge builds: `workspace` saved as a run saves it (snapshot, placeholder
    record unless `recorded` is False: an older run's), redacted with the case's secrets, then
    restored; the re-judging environment knows no value."""
    from evaluator.artifacts.redact import Redactor
    from evaluator.workspace.snapshot import (
        record_placeholders,
        restore_snapshot,
        save_snapshot,
    )

    snapshot = tmp_path / "snapshot"
    save_snapshot(workspace, {}, snapshot, tmp_path / "no-source")
    redactor = Redactor({"AGORA_APP_CERTIFICATE": CERTIFICATE})
    if recorded:
        record_placeholders(snapshot, redactor)
    redactor.tree(snapshot)
    restored = restore_snapshot(snapshot, tmp_path / "no-source", tmp_path / "restored")
    return _context(
        workspace,
        {},
        files_root=restored.root,
        without_content=frozenset(restored.without_content),
        placeholders=restored.placeholders,
    )


def test_the_runs_placeholder_stands_for_the_value(tmp_path: Path) -> None:
    """A re-judge reads the redacted snapshot: the value became `[REDACTED:NAME]` there, and the
    re-judging environment may not know the value at all. The run recorded that it wrote it."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "server.py").write_text(f'CERT = "{CERTIFICATE}"\n')
    restored = _rejudged(workspace, tmp_path)
    assert placeholder("AGORA_APP_CERTIFICATE") in (restored.file_root / "server.py").read_text()
    assert run_check(_check(), restored).status == "pass"
    assert run_check(_check("AGORA_APP_ID"), restored).status == "blocked"
    # A file whose content the snapshot did not keep: no verdict.
    kept = _context(workspace, files_root=workspace, without_content=frozenset({"server.py"}))
    assert run_check(_check(), kept).status == "blocked"
    # A binary file's copy is masked with `*`, and the record still says the value was there.
    (workspace / "server.py").write_text("import os\n")
    (workspace / "cert.db").write_bytes(b"\0\1" + CERTIFICATE.encode() + b"\0")
    masked = _rejudged(workspace, tmp_path / "binary")
    assert CERTIFICATE.encode() not in (masked.file_root / "cert.db").read_bytes()
    assert run_check(_check(), masked).status == "pass"


def test_a_placeholder_the_agent_typed_is_ordinary_text_on_re_judge(tmp_path: Path) -> None:
    """The agent can type `[REDACTED:NAME]` itself: the run found no value (fail), and a
    re-judge must not take the look-alike for the run's placeholder (before: pass)."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    typed = placeholder("AGORA_APP_CERTIFICATE")
    (workspace / "server.py").write_text(f'CERT = "{typed}"\n')
    (workspace / typed).write_text("named like it too\n")
    assert run_check(_check(), _context(workspace)).status == "fail"
    restored = _rejudged(workspace, tmp_path)
    assert (
        run_check(
            _check(),
            _context(workspace, files_root=restored.file_root, placeholders=restored.placeholders),
        ).status
        == "fail"
    )
    # Without the value, a file free of the run's placeholders shows nothing either way.
    verdict = run_check(_check(), restored)
    assert verdict.status == "blocked" and "has no value here" in verdict.detail


def test_an_older_snapshot_without_a_placeholder_record_is_blocked(tmp_path: Path) -> None:
    """A run saved before placeholders were recorded: one cannot be told from the agent's own
    text, so a verdict it alone would decide is blocked, naming why; a file with the raw value
    (not a secret, so not redacted) still decides."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "server.py").write_text(f'CERT = "{CERTIFICATE}"\n')
    old = _rejudged(workspace, tmp_path, recorded=False)
    assert old.placeholders is None
    verdict = run_check(_check(), old)
    assert verdict.status == "blocked"
    assert "does not record which placeholders" in verdict.detail
    (old.file_root / "app.py").write_text(f"ID = '{APP_ID}'\n")
    known = _context(workspace, files_root=old.file_root)
    assert run_check(_check("AGORA_APP_ID"), known).status == "pass"


# --------------------------------------------------------------------------- the compiler


@pytest.mark.parametrize(
    ("sentence", "checks"),
    [
        (
            "A file exists in the workspace containing the literal app certificate.",
            "workspace_env_value(variable='AGORA_APP_CERTIFICATE' path='**/*')",
        ),
        (
            "No file in the workspace contains the app ID's value.",
            "not workspace_env_value(variable='AGORA_APP_ID' path='**/*')",
        ),
        (
            "A file in the workspace contains the value of `AGORA_APP_ID`.",
            "workspace_env_value(variable='AGORA_APP_ID' path='**/*')",
        ),
        (
            "The app certificate is hard-coded in a file.",
            "workspace_env_value(variable='AGORA_APP_CERTIFICATE' path='**/*')",
        ),
        (
            "The code hard-codes the app ID value.",
            "workspace_env_value(variable='AGORA_APP_ID' path='**/*')",
        ),
        (
            "The code never hard-codes the app certificate.",
            "not workspace_env_value(variable='AGORA_APP_CERTIFICATE' path='**/*')",
        ),
        (
            "The app certificate is not hard-coded in `server.py`.",
            "not workspace_env_value(variable='AGORA_APP_CERTIFICATE' path='server.py')",
        ),
        (
            "`server.py` contains the exact app certificate.",
            "workspace_env_value(variable='AGORA_APP_CERTIFICATE' path='server.py')",
        ),
    ],
)
def test_a_phrase_naming_one_declared_variable_compiles(sentence: str, checks: str) -> None:
    compiled = compile_sentence(sentence, AGORA)
    assert compiled is not None, refuse_sentence(sentence, "fail_signals", vocabulary=AGORA)
    assert check_text(compiled.check) == checks
    assert compiled.tree is not None and "(value of AGORA_APP_" in compiled.tree


@pytest.mark.parametrize(
    ("sentence", "word"),
    [
        # Both variables' names hold "app": which value?
        ("A file exists in the workspace containing the app value.", "app"),
        # A word in no declared name: it could change what is meant.
        ("A file exists in the workspace containing the expired app certificate.", "expired"),
        ("The app certificate file is hard-coded.", "file"),
        # No declared variable has this name at all.
        ("The value of `AGORA_SECRET` is hard-coded.", "\u27e80\u27e9"),
    ],
)
def test_an_ambiguous_or_unmatched_phrase_refuses(sentence: str, word: str) -> None:
    assert compile_sentence(sentence, AGORA) is None
    refusal = refuse_sentence(sentence, "fail_signals", vocabulary=AGORA)
    assert f"stopped at {word!r}" in refusal.why


def test_a_phrase_with_no_declared_variable_refuses() -> None:
    """Without the case's variables the same words name nothing: no check, as before."""
    sentence = "A file exists in the workspace containing the literal app certificate."
    assert compile_sentence(sentence, None) is None
    assert compile_sentence(sentence, SkillVocabulary(variables=("OPENAI_API_KEY",))) is None


def test_the_variables_are_the_case_s_data() -> None:
    """The same words resolve against whatever the case declares."""
    sentence = "The API key is hard-coded in a file."
    one = compile_sentence(sentence, with_variables(None, ("STRIPE_API_KEY", "STRIPE_WEBHOOK")))
    assert one is not None and check_text(one.check).startswith(
        "workspace_env_value(variable='STRIPE_API_KEY'"
    )
    two = with_variables(None, ("STRIPE_API_KEY", "OPENAI_API_KEY"))
    assert compile_sentence(sentence, two) is None  # two API keys: which?
    assert with_variables(None, ()) is None


def test_literals_keep_their_meaning_beside_declared_variables() -> None:
    """A backticked name is the text itself; a phrase before a literal is the literal's."""
    named = compile_sentence("A file in the workspace contains `AGORA_APP_ID`.", AGORA)
    assert named is not None
    assert check_text(named.check) == "workspace_file_contains(path='**/*' text='AGORA_APP_ID')"
    kind = compile_sentence("A file in the workspace contains the string `app`.", AGORA)
    assert kind is not None
    assert check_text(kind.check) == "workspace_file_contains(path='**/*' text='app')"


# --------------------------------------------------------------------------- the entry


def _agora_case() -> Case:
    return Case.model_validate(
        {
            "case_id": "c",
            "title": "t",
            "input": {"user_prompt": "p"},
            "setup": {"env_vars_required": ["AGORA_APP_ID", "AGORA_APP_CERTIFICATE"]},
            "assert": {
                "required": [],
                "forbidden": [
                    {
                        "description": "Hard-coded credentials.",
                        "fail_signals": [
                            "A file exists in the workspace containing the literal app certificate."
                        ],
                    }
                ],
            },
        }
    )


def test_the_forbidden_entry_is_decided_by_rules(tmp_path: Path) -> None:
    case = _agora_case()
    (plan,) = plan_entries(case, True, None)
    assert plan.decided_by == "rules"
    (tmp_path / "server.py").write_text("import os\nCERT = os.environ['AGORA_APP_CERTIFICATE']\n")
    clean = judge_case(case, _context(tmp_path))
    assert clean.status == "pass" and clean.entries[0].decided_by == "rules"
    (tmp_path / "server.py").write_text(f"CERT = '{CERTIFICATE}'\n")
    leaked = judge_case(case, _context(tmp_path))
    assert leaked.status == "fail"
    (entry,) = leaked.entries
    assert entry.decided_by == "rules" and entry.status == "fail"
    assert "workspace-files:server.py" in entry.checks[0].evidence
    assert CERTIFICATE not in json.dumps([e.model_dump(mode="json") for e in leaked.entries])
    unset = judge_case(case, _context(tmp_path, {"AGORA_APP_ID": APP_ID}))
    assert unset.status == "blocked"


def test_validate_refuses_a_check_on_a_variable_the_case_does_not_declare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = validate_with_checks(
        tmp_path,
        capsys,
        "      checks:\n        - not:\n            kind: workspace_env_value\n            variable: DATABASE_URL",
    )
    assert code == 2
    assert "routing-add-column.yaml" in err and "'DATABASE_URL' is not declared" in err


# --------------------------------------------------------------- red team, round 5


def _git(root: Path, *args: str) -> None:
    import subprocess

    subprocess.run(
        [
            "git",
            "-c",
            "user.name=a",
            "-c",
            "user.email=a@b",
            "-c",
            "core.hooksPath=/dev/null",
            *args,
        ],
        cwd=root,
        check=True,
        capture_output=True,
    )


def _commit_the_key_then_delete_it(workspace: Path, packed: bool) -> None:
    """Only git's compressed objects hold the key: a loose object, or a pack after `git gc`."""
    _git(workspace, "init", "-q")
    (workspace / "config.py").write_text(f'CERT = "{CERTIFICATE}"\n')
    _git(workspace, "add", "config.py")
    _git(workspace, "commit", "-qm", "config")
    (workspace / "config.py").unlink()
    if packed:
        _git(workspace, "gc", "-q")
        assert list(workspace.glob(".git/objects/pack/*.pack"))


@pytest.mark.parametrize("packed", [False, True])
def test_a_value_committed_to_git_and_then_removed_is_found(tmp_path: Path, packed: bool) -> None:
    """The key committed, then the file deleted: only git's compressed objects hold it (a loose
    object, or a pack after `git gc`). Before: not found (the forbidden entry passed)."""
    _commit_the_key_then_delete_it(tmp_path, packed)
    verdict = run_check(_check(), _context(tmp_path))
    assert verdict.status == "pass", verdict.detail
    assert ".git/objects/" in verdict.detail
    assert run_check(_check("AGORA_APP_ID"), _context(tmp_path)).status == "fail"


@pytest.mark.parametrize(
    "written",
    [
        CERTIFICATE[:5] + "%" + CERTIFICATE[5].encode().hex() + CERTIFICATE[6:],  # one %XX
        CERTIFICATE[:3] + "\\u00" + CERTIFICATE[3].encode().hex() + CERTIFICATE[4:],
        CERTIFICATE[:7] + f"&#{ord(CERTIFICATE[7])};" + CERTIFICATE[8:],
    ],
)
def test_a_value_with_some_characters_escaped_is_found(tmp_path: Path, written: str) -> None:
    """Escaping one character is free and decodes to the value (before: not found)."""
    (tmp_path / "settings.json").write_text(f'{{"cert": "{written}"}}\n')
    verdict = run_check(_check(), _context(tmp_path))
    assert verdict.status == "pass", verdict.detail


def test_a_value_in_a_file_name_is_found_and_never_shown(tmp_path: Path) -> None:
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / CERTIFICATE).write_text("x\n")
    verdict = run_check(_check(), _context(tmp_path))
    assert verdict.status == "pass", verdict.detail
    assert "keys/[REDACTED:AGORA_APP_CERTIFICATE]" in verdict.detail
    assert CERTIFICATE not in verdict.model_dump_json()


def test_a_value_after_a_hole_of_a_sparse_file_is_found(tmp_path: Path) -> None:
    with (tmp_path / "data.bin").open("wb") as out:
        out.seek(3 << 20)  # a hole, then the value (with no data before it to overlap)
        out.write(CERTIFICATE.encode())
    assert run_check(_check(), _context(tmp_path)).status == "pass"


def test_a_git_object_that_inflates_without_end_cannot_be_shown_clean(tmp_path: Path) -> None:
    import zlib

    from evaluator.judge.checks import env_value

    folder = tmp_path / ".git/objects/ab"
    folder.mkdir(parents=True)
    (folder / ("c" * 38)).write_bytes(zlib.compress(bytes(4 << 20)))
    limit = env_value.MAX_INFLATED_BYTES
    try:
        env_value.MAX_INFLATED_BYTES = 1 << 20
        verdict = run_check(_check(), _context(tmp_path))
    finally:
        env_value.MAX_INFLATED_BYTES = limit
    assert verdict.status == "blocked", verdict.detail


@pytest.mark.parametrize("packed", [False, True])
def test_a_committed_value_leaves_the_redacted_snapshot_and_a_rejudge_still_finds_it(
    tmp_path: Path, packed: bool
) -> None:
    """The snapshot keeps `.git/objects`: before, the committed key reached `runs/` compressed
    (the redactor masked raw bytes only). Now a loose object is rewritten with the placeholder
    and a pack holding a secret is replaced by a note naming it; a re-judge decides the same."""
    from tests.leaks import leaks_in

    workspace = tmp_path / "ws"
    workspace.mkdir()
    _commit_the_key_then_delete_it(workspace, packed)
    assert leaks_in({"AGORA_APP_CERTIFICATE": CERTIFICATE}, [workspace])
    restored = _rejudged(workspace, tmp_path)
    assert leaks_in(VARIABLES, [tmp_path / "snapshot", tmp_path / "restored"]) == []
    assert run_check(_check(), restored).status == "pass"
