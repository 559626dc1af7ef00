"""Where an attempt lives in the scratch: `<scratch root>/<run>/w/<case>/<NN>` for its workspace
and `<scratch root>/<run>/a/<case>/<NN>` for its agent's own directory (homes, `TMPDIR`), each
of `<run>` and `<case>` a digest of ten hex digits.

An agent gets these paths (its working directory, `HOME`, `TMPDIR`) and makes its own under them.
A Unix socket's path holds at most 107 bytes (`sun_path`), so a tmux server, an ssh-agent, a
language server or a program's `socket.bind` under `$TMPDIR` or the workspace failed for the
length of a case id alone (`<scratch>/<run id>/agents/<case id>/attempt-NN/tmp`: Gemini CLI's
`TMPDIR` was 74 characters with a six-character case id). Now every path an agent is given is
its scratch root plus a fixed number of characters, whatever the run id, the evaluation's id,
its variants' labels or the case id (`AGENT_PATH_EXTRA`). The digests also keep from the agent
what the names would have told it (a case id names what is checked; an evaluation's variant,
`without_skill`, that it is the baseline): the run directory, not the scratch, carries the names.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

# Ten hex digits: two names of one scratch share a folder with odds of about n² / 2^41. Two cases
# sharing one would have an attempt refused (`build_workspace` never reuses a workspace), never a
# wrong verdict.
DIGEST_LENGTH = 10
WORKSPACES = "w"
AGENTS = "a"
# The layout before it (until 30 November, `leftovers14`): `<scratch root>/<run id>/workspaces/
# <case id>/attempt-NN` and `.../agents/<case id>/attempt-NN`. A run it stopped is resumed by a
# version of today's layout: `ScratchLayout` reads both.
OLD_WORKSPACES = "workspaces"
OLD_AGENTS = "agents"
# The most an attempt's folders add to the scratch root, for the deepest nesting the project
# makes (an evaluation's variant run: eval / variant / run / a / case / NN), before what the
# agent's runner puts inside its directory (`tmp`, `home`, `codex-home`, ...).
AGENT_PATH_EXTRA = 3 * (1 + DIGEST_LENGTH) + 2 + (1 + DIGEST_LENGTH) + 3


def digest_name(name: str) -> str:
    """A folder name of fixed length for `name` (a run id, a case id, a variant's label)."""
    encoded = name.encode("utf-8", "surrogatepass")
    return hashlib.sha256(encoded).hexdigest()[:DIGEST_LENGTH]


def run_scratch(scratch_root: Path, run_id: str) -> Path:
    """A run's part of the scratch root."""
    return scratch_root / digest_name(run_id)


def attempt_folder(root: Path, case_id: str, attempt: int) -> Path:
    """`root/<case>/<NN>`: an attempt's workspace (`root` a run's `w`) or agent directory (`a`)."""
    return root / digest_name(case_id) / f"{attempt:02d}"


def attempt_folders(root: Path, case_id: str) -> list[tuple[int, Path]]:
    """The attempts of a case that have a folder under `root`, by number."""
    found = []
    for path in sorted((root / digest_name(case_id)).glob("[0-9]*")):
        if path.name.isdigit():
            found.append((int(path.name), path))
    return sorted(found)


@dataclass(frozen=True)
class ScratchLayout:
    """A run's scratch folder and how its attempts' folders are named in it: today's layout or
    the one before (`old`), for a resume of a run an older version stopped."""

    scratch: Path
    old: bool = False

    @property
    def workspaces(self) -> Path:
        return self.scratch / (OLD_WORKSPACES if self.old else WORKSPACES)

    def attempts(self, case_id: str) -> list[tuple[int, Path, Path]]:
        """`(number, workspace, agent directory)` of every attempt of a case with a workspace."""
        if not self.old:
            agents = self.scratch / AGENTS
            return [
                (number, path, attempt_folder(agents, case_id, number))
                for number, path in attempt_folders(self.workspaces, case_id)
            ]
        found = []
        for path in (self.workspaces / case_id).glob("attempt-*"):
            suffix = path.name.removeprefix("attempt-")
            if suffix.isdigit():
                found.append((int(suffix), path, self.scratch / OLD_AGENTS / case_id / path.name))
        return sorted(found)


def recorded_layout(
    recorded_workspaces: Path, scratch_root: Path, run_id: str
) -> ScratchLayout | None:
    """The layout of the workspaces a stopped run's manifest names (`case_workspace_root`), when
    they are where this version, or the one before it, puts them under `scratch_root`; None
    otherwise (another scratch root, a layout unknown here): then they are not this run's to
    read, stop or remove, whatever the manifest says."""
    recorded = recorded_workspaces.absolute()
    for layout in (
        ScratchLayout(run_scratch(scratch_root, run_id)),
        ScratchLayout(scratch_root / run_id, old=True),
    ):
        if recorded == layout.workspaces.absolute():
            return layout
    return None
