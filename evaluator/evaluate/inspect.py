"""The no-skill variant's attempt inspector: every attempt is checked for the skill reaching it.

It runs inside the attempt (`AttemptInspector`), while the workspace and the agent home exist:
`check_contamination` looks at discovery places on disk and compares accessed files with the
skill's by content. A contaminated attempt is made invalid, so the driver reruns it once in a
new workspace; a rerun contaminated again leaves the try blocked (`insufficient-evidence`) with
the contamination as its reason. The findings are kept beside the attempt (`contamination.json`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from evaluator.adapters import adapter_for_runner, normalize_session, tool_text_source
from evaluator.artifacts.rundir import write_json
from evaluator.evidence.content import SourceText
from evaluator.isolation.contamination import check_contamination, skill_copies
from evaluator.pipeline.attempt import AttemptInspector, AttemptResult, AttemptSettings
from evaluator.sandbox import ObservedTrace
from evaluator.workspace import AttemptWorkspace
from evaluator.workspace.naming import attempt_folder

CONTAMINATION_FILE = "contamination.json"
CONTAMINATED = "contaminated"  # how a contaminated attempt's reason starts
# The workspace's own text files, compared so that words the skill shares with them are not
# taken for the skill's; a workspace is a fixture, a few files.
MAX_WORKSPACE_TEXTS = 200
MAX_TEXT_BYTES = 256 * 1024


@dataclass(frozen=True)
class ContaminationInspector(AttemptInspector):
    """`skill_dir`: the skill the baseline must never see (the candidate's directory);
    `workspace_skill_dir`: where the skill would lie in a workspace (relative); `left_out`: its
    folders a with-skill agent is not given either (`skill_copies`); `host_ports`: the ports
    this machine listened on before the evaluation's attempts began (`listening_ports`)."""

    skill_dir: Path
    workspace_skill_dir: str
    left_out: tuple[Path, ...] = ()
    host_ports: frozenset[int] = frozenset()

    def before_agent(self, workspace: AttemptWorkspace) -> None:
        workspace.texts_before = {t.path: t.text for t in workspace_texts(workspace.path)}

    def inspect(
        self, settings: AttemptSettings, result: AttemptResult, trace: ObservedTrace | None
    ) -> None:
        handle, evidence, workspace = result.handle, result.evidence, result.workspace
        if handle is None or evidence is None or workspace is None:
            return
        adapter = adapter_for_runner(settings.runner.name)
        copies = skill_copies(
            self.skill_dir,
            workspace=workspace.path,
            workspace_skill_dir=self.workspace_skill_dir,
            # Where a user installs it too: a with-skill attempt has it linked there, so one
            # there in a no-skill attempt is the skill leaking in the same way.
            discovery_dirs=(*adapter.discovery_dirs, *adapter.user_skill_dirs),
            agent_home=handle.agent_home,
            user_home=handle.home,
            left_out=self.left_out,
        )
        root = os.path.realpath(workspace.path)
        home = str(handle.home) if handle.home else None
        before = workspace.baseline
        # Directories the eval made for this attempt without the skill: the workspace (what
        # was in it before the agent ran is its baseline) and the agent's own directory (its
        # homes; never the user's home, where a same-name skill is the user's).
        agent_dir = attempt_folder(settings.agent_root, result.case_id, result.number)
        fresh = [os.path.realpath(agent_dir)]

        def made_in_run(place: str) -> bool:
            if _inside(place, root):
                if before is None:
                    return False
                relative = os.path.relpath(place, root)
                return not any(_inside(known, relative) for known in before)
            return any(_inside(place, home) for home in fresh)

        hidden = (
            [os.path.realpath(p) for p in settings.launch.hidden]
            if settings.launch.jail != "none"
            else []
        )
        found = check_contamination(
            evidence,
            copies,
            trace=trace,
            texts=tool_text_source(result.session.path if result.session else None, adapter),
            # The workspace as the eval made it, never as the agent left it: a file the agent
            # wrote (the skill downloaded into `notes.md`) says what the skill says, and would
            # excuse the skill's own words in its outputs (red team 10).
            workspace_texts=[
                SourceText(path, text) for path, text in (workspace.texts_before or {}).items()
            ],
            user_home=handle.home,
            made_in_run=made_in_run,
            hidden=hidden,
            host_ports=self.host_ports,
            spawned=[
                (
                    normalize_session(ref.path, home=home, adapter=adapter),
                    tool_text_source(ref.path, adapter),
                )
                for ref in result.descendants
            ],
        )
        workspace.texts_before = None  # read: not carried with the result any further
        directory = settings.run_dir.attempt_artifacts(result.case_id, result.number)
        directory.mkdir(parents=True, exist_ok=True)
        write_json(directory / CONTAMINATION_FILE, found.to_json())
        if found.contaminated:
            result.status = "blocked"
            result.blocked_reason = "insufficient-evidence"
            # Made by the agent alone, it is the agent's: otherwise a failing no-skill attempt
            # could leave the baseline by reaching for the skill where it cannot be.
            result.blocked_by = "agent" if found.agents_own else "eval"
            result.reason = f"{CONTAMINATED}: {found.reason()}"
            result.valid = False


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def workspace_texts(root: Path) -> list[SourceText]:
    texts: list[SourceText] = []
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d != ".git")
        for name in sorted(names):
            path = Path(directory) / name
            try:
                if path.is_symlink() or path.stat().st_size > MAX_TEXT_BYTES:
                    continue
                text = path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            texts.append(SourceText(path.relative_to(root).as_posix(), text))
            if len(texts) >= MAX_WORKSPACE_TEXTS:
                return texts
    return texts
