"""What Codex writes into every fresh CODEX_HOME at start-up that is worth making once per Codex
binary: its sqlite databases, created and migrated (62 migrations for `state_5.sqlite` in
0.169.0, each synced), copied into each attempt's home before the agent starts (docs/agents.md,
"Codex's start-up files").

Codex applies only the migrations a database's `_sqlx_migrations` table lacks, so a migrated,
empty database spares it that work. The evaluator lets the binary itself write them once, into a
throwaway home, and keeps exactly those files:

- the seed is keyed by the Codex version and the SHA-256 of the binary's bytes (the npm launcher
  and the native binaries it starts), so a different build never gets another's files;
- it is made by `codex delete <an id no session has>` in an empty home with our housekeeping
  features off: the cheapest command that opens every database, with no model, no network and no
  session; the databases are then checked to hold no thread and their write-ahead logs are
  folded in;
- nothing else is kept. The bundled system skills (`skills/.system/`, about 80 files and folders)
  are left for Codex to unpack as before: copying them cost the evaluator more per attempt than
  it saved the agent (docs/benchmarks.md, "Codex's home seed: the databases only");
  `installation_id`, `tmp/`, logs and locks are written fresh by each attempt's Codex;
- each attempt gets copies, never hard links: Codex and its tools can write in their own home,
  and a write through a link would change every later attempt's files.

The seed lives in the evaluator's cache (`$XDG_CACHE_HOME/agentic-eval/codex-home-seed/`),
never in the user's `~/.codex`. If it cannot be made, the attempt gets an empty home as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from evaluator.adapters.codex.home import HOUSEKEEPING_FEATURES

SKILLS = Path("skills/.system")
MARKER = SKILLS / ".codex-system-skills.marker"
STATE_DB = "state_5.sqlite"
# A well-formed thread id that no session has: `codex delete` finds nothing and exits.
NO_SESSION = "00000000-0000-7000-8000-000000000000"
SEED_TIMEOUT_S = 60
SEED_MANIFEST = "seed.json"
SEED_FORMAT = 2  # in the seed's directory name: a seed laid out otherwise is another seed


@dataclass(frozen=True)
class HomeSeed:
    path: Path
    dirs: tuple[str, ...]  # relative, parents first
    files: tuple[str, ...]  # relative


_lock = threading.Lock()
_seeds: dict[tuple[Path, str], HomeSeed | None] = {}


def cache_root() -> Path:
    cache_home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache_home) / "agentic-eval" / "codex-home-seed"


def codex_executables(binary: Path) -> list[Path]:
    """The files whose bytes decide what Codex writes: the binary and, when it is the npm
    launcher (`@openai/codex/bin/codex.js`), the native binaries of the platform packages beside
    it, which the launcher starts."""
    real = binary.resolve()
    found = [real]
    if real.suffix == ".js" and len(real.parents) > 2:
        scope = real.parents[2]  # node_modules/@openai
        found += sorted(p.resolve() for p in scope.glob("codex*/vendor/*/bin/codex"))
    return found


def _content_hash(path: Path, memo_dir: Path) -> str:
    """SHA-256 of a file, remembered under its inode identity: hashing the 290 MB native binary
    takes about 0.3 s of CPU, and any change of the file changes its ctime."""
    st = path.stat()
    identity = f"{path}|{st.st_dev}|{st.st_ino}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}"
    memo = memo_dir / hashlib.sha256(identity.encode()).hexdigest()[:32]
    try:
        remembered: str = memo.read_text(encoding="ascii").strip()
        return remembered
    except OSError:
        pass
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            hasher.update(chunk)
    digest = hasher.hexdigest()
    memo_dir.mkdir(parents=True, exist_ok=True)
    partial = memo.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(digest, encoding="ascii")
    os.replace(partial, memo)
    return digest


def binary_key(binary: Path, version: str) -> str:
    root = cache_root()
    combined = hashlib.sha256()
    for path in codex_executables(binary):
        combined.update(_content_hash(path, root / "hashes").encode())
    return f"{version}-{combined.hexdigest()[:16]}-v{SEED_FORMAT}"


def _fold_wal(database: Path) -> None:
    """Writes the database's write-ahead log into the file and removes it (closing the last
    connection of a WAL database does that)."""
    connection = sqlite3.connect(database)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


def _listing(seed: Path) -> tuple[list[str], list[str]]:
    dirs: list[str] = []
    files: list[str] = []
    for root, subdirs, names in os.walk(seed):
        base = Path(root).relative_to(seed)
        dirs += sorted(str(base / d) for d in subdirs)
        files += sorted(str(base / n) for n in names)
    return dirs, files


def _holds_no_thread(database: Path) -> bool:
    connection = sqlite3.connect(f"file:{database}?mode=ro&immutable=1", uri=True)
    try:
        threads: int = connection.execute("SELECT count(*) FROM threads").fetchone()[0]
        return threads == 0
    except sqlite3.Error:
        return False
    finally:
        connection.close()


def _make_seed(binary: Path, version: str, target: Path) -> None:
    """Lets `binary` write its start-up files into a throwaway home and keeps them at `target`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="making-", dir=target.parent) as scratch:
        home = Path(scratch) / "codex-home"
        home.mkdir()
        (Path(scratch) / "home").mkdir()
        (home / "config.toml").write_text(
            "check_for_update_on_startup = false\n\n[features]\n"
            + "".join(f"{name} = false\n" for name in HOUSEKEEPING_FEATURES),
            encoding="utf-8",
        )
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(Path(scratch) / "home"),
            "CODEX_HOME": str(home),
            "LANG": "C.UTF-8",
        }
        # It exits 1 ("no session found"); what counts is the files it wrote.
        subprocess.run(
            [str(binary), "delete", NO_SESSION],
            env=env,
            cwd=scratch,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=SEED_TIMEOUT_S,
            check=False,
        )
        if not (home / MARKER).is_file() or not _databases_ready(home):
            raise RuntimeError("codex did not write its start-up files as expected")
        seed = Path(scratch) / "seed"
        seed.mkdir()
        for database in home.glob("*.sqlite"):
            shutil.copyfile(database, seed / database.name)
        dirs, files = _listing(seed)
        manifest = {"codex_version": version, "binary": str(binary), "dirs": dirs, "files": files}
        (seed / SEED_MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        try:
            os.rename(seed, target)
        except OSError:
            if not (target / SEED_MANIFEST).is_file():
                raise  # not another process's finished seed


def _databases_ready(home: Path) -> bool:
    """Every database folded into one file, and the state database holding no session."""
    for database in home.glob("*.sqlite"):
        _fold_wal(database)
    leftovers = [p for p in home.iterdir() if p.name.endswith(("-wal", "-shm", "-journal"))]
    return (home / STATE_DB).is_file() and not leftovers and _holds_no_thread(home / STATE_DB)


def _load(target: Path) -> HomeSeed:
    manifest = json.loads((target / SEED_MANIFEST).read_text(encoding="utf-8"))
    return HomeSeed(target, tuple(manifest["dirs"]), tuple(manifest["files"]))


def codex_home_seed(binary: Path, version: str | None) -> HomeSeed | None:
    """The seed for this binary, made on first use; None when it cannot be made (the attempt
    then starts from an empty home, as without a seed)."""
    if version is None:
        return None
    with _lock:
        key = (binary, version)
        if key not in _seeds:
            try:
                target = cache_root() / binary_key(binary, version)
                if not (target / SEED_MANIFEST).is_file():
                    _make_seed(binary, version, target)
                _seeds[key] = _load(target)
            except (
                OSError,
                ValueError,
                KeyError,
                RuntimeError,
                sqlite3.Error,
                subprocess.SubprocessError,
            ):
                _seeds[key] = None
        return _seeds[key]


def seed_codex_home(home: Path, seed: HomeSeed) -> bool:
    """Copies the seed's databases into a fresh `home` (copies: see the module).
    False, with nothing left behind, when the copy failed (a seed removed meanwhile): Codex
    then writes its own, as in an empty home."""
    made: list[Path] = []
    try:
        for relative in seed.dirs:
            (home / relative).mkdir()
            made.append(home / relative)
        for relative in seed.files:
            shutil.copyfile(seed.path / relative, home / relative)
            made.append(home / relative)
    except OSError:
        for path in reversed(made):
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        with _lock:
            _seeds.clear()
        return False
    return True
