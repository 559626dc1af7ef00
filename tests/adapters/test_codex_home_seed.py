"""The Codex home seed (evaluator/adapters/codex/home_seed.py): what Codex writes into an empty
home at start-up, made once per binary by the binary itself, copied into each attempt's home."""

from __future__ import annotations

import sqlite3
import textwrap
from pathlib import Path

import pytest

from evaluator.adapters.codex import home_seed, judge
from evaluator.adapters.codex.binary import codex_version, find_codex
from evaluator.adapters.codex.home_seed import (
    MARKER,
    codex_executables,
    codex_home_seed,
    seed_codex_home,
)
from evaluator.agents.base import ModelEndpoint
from evaluator.grader.base import JudgeCall
from tests.support import behavior, codex_or_skip, run_attempt, scratch_dir, serving

# Stands in for `codex delete <id>`: writes a marker, a skill and a state database in
# $CODEX_HOME, a thread row when told to, and the files the seed must not keep.
FAKE_CODEX = textwrap.dedent(
    """\
    #!/usr/bin/env python3
    import os, sqlite3, sys
    THREAD = False
    from pathlib import Path
    home = Path(os.environ["CODEX_HOME"])
    seeded = (home / "state_5.sqlite").exists()
    skill = home / "skills/.system/helper"
    skill.mkdir(parents=True)
    (home / "skills/.system/.codex-system-skills.marker").write_text("fingerprint")
    (skill / "SKILL.md").write_text("---\\nname: helper\\n---\\n")
    (home / "installation_id").write_text("not to be shared")
    (home / "tmp").mkdir()
    db = sqlite3.connect(home / "state_5.sqlite")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS threads (id TEXT)")
    if THREAD:
        db.execute("INSERT INTO threads VALUES ('a session')")
    db.commit()
    print(sys.argv[1:], seeded, file=open(home.parent / "argv.txt", "w"))
    sys.exit(1)
    """
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(home_seed, "_seeds", {})
    return tmp_path / "cache" / "agentic-eval" / "codex-home-seed"


def fake_codex(tmp_path: Path, thread: bool = False) -> Path:
    binary = tmp_path / "bin" / "codex"
    binary.parent.mkdir()
    binary.write_text(FAKE_CODEX.replace("THREAD = False", f"THREAD = {thread}"))
    binary.chmod(0o755)
    return binary


def test_the_seed_keeps_only_the_folded_databases(tmp_path: Path, cache: Path) -> None:
    seed = codex_home_seed(fake_codex(tmp_path), "9.9.9")
    assert seed is not None
    assert seed.path.parent == cache and seed.path.name.startswith("9.9.9-")
    assert seed.dirs == ()
    assert seed.files == ("state_5.sqlite",)
    kept = sorted(p.name for p in seed.path.iterdir())
    # No skills (Codex unpacks its own), installation_id, WAL or tmp/.
    assert kept == ["seed.json", "state_5.sqlite"]

    home = tmp_path / "attempt" / "codex-home"
    home.mkdir(parents=True)
    assert seed_codex_home(home, seed)
    assert not (home / MARKER).exists()
    copied = home / "state_5.sqlite"
    assert copied.stat().st_ino != (seed.path / "state_5.sqlite").stat().st_ino
    with sqlite3.connect(copied) as db:
        assert db.execute("SELECT count(*) FROM threads").fetchone() == (0,)


def test_the_seed_is_keyed_by_the_binary_bytes(tmp_path: Path, cache: Path) -> None:
    binary = fake_codex(tmp_path)
    first = codex_home_seed(binary, "9.9.9")
    assert first is not None
    home_seed._seeds.clear()  # as in a new process
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert codex_home_seed(fake_codex(elsewhere), "9.9.9") == first  # the same bytes
    home_seed._seeds.clear()
    binary.write_text(FAKE_CODEX + "\n# another build\n")
    other = codex_home_seed(binary, "9.9.9")
    assert other is not None and other.path != first.path


def test_a_binary_that_left_a_session_gives_no_seed(tmp_path: Path, cache: Path) -> None:
    assert codex_home_seed(fake_codex(tmp_path, thread=True), "9.9.9") is None
    assert not [p for p in cache.iterdir() if p.name.startswith("9.9.9-")]


def test_a_binary_that_writes_nothing_gives_no_seed(tmp_path: Path, cache: Path) -> None:
    binary = tmp_path / "codex"
    binary.write_text("#!/bin/sh\nexit 1\n")
    binary.chmod(0o755)
    assert codex_home_seed(binary, "9.9.9") is None
    assert codex_home_seed(binary, None) is None


def test_a_failed_copy_leaves_an_empty_home(tmp_path: Path, cache: Path) -> None:
    seed = codex_home_seed(fake_codex(tmp_path), "9.9.9")
    assert seed is not None
    (seed.path / "state_5.sqlite").unlink()  # the seed changed under us
    home = tmp_path / "codex-home"
    home.mkdir()
    assert not seed_codex_home(home, seed)
    assert list(home.iterdir()) == []  # nothing half copied: Codex writes its own
    assert home_seed._seeds == {}


def test_the_codex_judge_starts_from_a_seeded_home(
    tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = fake_codex(tmp_path)
    monkeypatch.setattr(judge, "codex_version", lambda _binary: "9.9.9")
    backend = judge.CodexJudgeBackend(
        ModelEndpoint(model="m", base_url="http://127.0.0.1:9", scripted=True), binary
    )
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    with scratch_dir() as scratch:  # not under /tmp, where codex cannot start its sandbox
        call = JudgeCall("p", {}, bundle, scratch / "judge", timeout_s=30)
        backend.ask(call)  # the stand-in answers nothing: what counts is the home it started in
        argv, seeded = (scratch / "judge/argv.txt").read_text().rsplit(" ", 1)
    assert "'exec'" in argv and seeded.strip() == "True"


def test_the_npm_launcher_is_hashed_with_its_native_binaries(tmp_path: Path) -> None:
    scope = tmp_path / "node_modules/@openai"
    launcher = scope / "codex/bin/codex.js"
    native = scope / "codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
    for path in (launcher, native):
        path.parent.mkdir(parents=True)
        path.write_text("x")
    link = tmp_path / "node_modules/.bin/codex"
    link.parent.mkdir()
    link.symlink_to(launcher)
    assert codex_executables(link) == [launcher, native]
    assert codex_executables(native) == [native]


@pytest.mark.codex
def test_codex_keeps_the_seeded_files_and_its_session_is_found() -> None:
    """The real binary: the copied databases are not migrated again, the session is recorded in
    the seeded state database, and Codex unpacks its bundled skills itself, as in an empty home."""
    codex_or_skip()
    binary = find_codex()
    seed = codex_home_seed(binary, codex_version(binary))
    assert seed is not None
    steps = [{"cmd": "cat .agents/skills/db-migrations/SKILL.md"}, {"final": "done"}]
    with scratch_dir() as scratch, serving(behavior("seeded", "currency", steps)) as server:
        _, handle = run_attempt(scratch, server, "routing-add-column")
        assert handle.fault is None, handle.stderr_path.read_text()
        home = handle.agent_home
        assert (home / MARKER).stat().st_mtime >= handle.started_at
        migrations = "SELECT version, installed_on FROM _sqlx_migrations"
        seeded = f"file:{seed.path / 'state_5.sqlite'}?mode=ro&immutable=1"
        with sqlite3.connect(seeded, uri=True) as db:
            seeded_migrations = db.execute(migrations).fetchall()
        with sqlite3.connect(f"file:{home / 'state_5.sqlite'}?mode=ro", uri=True) as db:
            assert db.execute(migrations).fetchall() == seeded_migrations
            assert db.execute("SELECT id FROM threads").fetchall() == [(handle.root_thread_id,)]
        assert [r.step for r in server.records] == [1, 2]
