"""The no-skill baseline's contamination check on hand-written Codex rollouts and traces."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from evaluator.adapters import adapter_for_runner, get_store, normalize_session, tool_text_source
from evaluator.evidence.content import SourceText
from evaluator.isolation.contamination import (
    Contamination,
    SkillCopies,
    check_contamination,
    skill_copies,
)
from evaluator.sandbox import LaunchPolicy, Tracer
from evaluator.sandbox.strace_log import ObservedTrace, ToolCallTrace, TracedAccess, read_trace
from tests.conftest import ROOT
from tests.judge.test_consultation import _rollout
from tests.support import (
    behavior,
    claude_or_skip,
    codex_or_skip,
    run_attempt,
    scratch_dir,
    serving,
)

NAME = "ledger"
SKILL_TEXT = "---\nname: ledger\n---\n# Ledger\n\n" + "".join(
    f"Rule {n}: reconcile the ledger against the bank statement before closing period {n}.\n"
    for n in range(1, 21)
)
CODEX_DIRS = (".agents/skills", "$AGENT_HOME/skills", "~/.agents/skills")


def _setup(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    source = tmp_path / "src/.agents/skills" / NAME
    source.mkdir(parents=True)
    (source / "SKILL.md").write_text(SKILL_TEXT)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "README.md").write_text("Books for the year.\n")
    home, agent_home = tmp_path / "home", tmp_path / "agent-home"
    home.mkdir()
    agent_home.mkdir()
    return source, workspace, home, agent_home


def _copies(source: Path, workspace: Path, home: Path, agent_home: Path) -> SkillCopies:
    """The skill's copies as a Codex attempt would have them."""
    return skill_copies(
        source,
        workspace=workspace,
        workspace_skill_dir=f".agents/skills/{NAME}",
        discovery_dirs=CODEX_DIRS,
        agent_home=agent_home,
        user_home=home,
    )


def _check(
    tmp_path: Path,
    calls: list[tuple[str, str | None]],
    *,
    trace: ObservedTrace | None = None,
    workspace_texts: tuple[SourceText, ...] = (),
    plant: str | None = None,
    planted_text: str = SKILL_TEXT,
    made_in_run: Callable[[str], bool] | None = None,
    hidden: tuple[str, ...] = (),
) -> Contamination:
    source, workspace, home, agent_home = _setup(tmp_path)
    if plant:
        (tmp_path / plant).mkdir(parents=True)
        (tmp_path / plant / "SKILL.md").write_text(planted_text)
    copies = _copies(source, workspace, home, agent_home)
    session = _rollout(tmp_path / "rollout.jsonl", workspace, calls)
    return check_contamination(
        normalize_session(session),
        copies,
        trace=trace,
        texts=tool_text_source(session),
        workspace_texts=workspace_texts,
        user_home=home,
        made_in_run=made_in_run,
        hidden=hidden,
    )


def test_a_clean_baseline_is_not_contaminated(tmp_path: Path) -> None:
    found = _check(tmp_path, [("cat README.md", "Books for the year.\n")])
    assert not found.contaminated
    assert found.layers == ["discovery", "session", "content"]
    assert found.reason() == "no sign of the skill (checked: discovery, session, content)"


def test_reading_a_planted_copy_outside_the_workspace_is_seen_by_path_and_content(
    tmp_path: Path,
) -> None:
    planted = tmp_path / "elsewhere/ledger-copy/SKILL.md"
    found = _check(tmp_path, [(f"cat {planted}", SKILL_TEXT)], plant="elsewhere/ledger-copy")
    assert found.contaminated
    layers = {f.layer: f for f in found.findings}
    assert set(layers) == {"session", "content"}
    assert "holds the same bytes as the skill's SKILL.md" in layers["session"].detail
    assert layers["session"].ref.startswith("msg-") and layers["session"].path == str(planted)
    assert layers["content"].path == "ledger/SKILL.md" and layers["content"].ref.startswith("msg-")
    assert found.reason().startswith("the skill reached the no-skill attempt: session msg-")


def test_touching_the_source_skill_directory_is_contamination_even_without_output(
    tmp_path: Path,
) -> None:
    source = tmp_path / "src/.agents/skills" / NAME
    found = _check(tmp_path, [(f"ls {source}", None)])
    (finding,) = found.findings
    assert finding.layer == "session" and "is a copy of the skill" in finding.detail
    assert "content" not in found.layers  # the session recorded no tool output


def test_the_skill_text_from_a_download_is_seen_by_content_alone(tmp_path: Path) -> None:
    found = _check(tmp_path, [("curl -s https://example.invalid/ledger.md", SKILL_TEXT)])
    (finding,) = found.findings
    assert finding.layer == "content" and "100% of its lines" in finding.detail


def test_text_the_workspace_also_holds_is_not_the_skills(tmp_path: Path) -> None:
    # The workspace's notes quote five of the skill's rules among their own lines: showing the
    # notes shows those rules, which is no sign of the skill.
    rules = "".join(SKILL_TEXT.splitlines(keepends=True)[5:10])
    notes = "# Notes\n\nThe auditors visit every spring and read the minutes first.\n" + rules
    shared = SourceText("NOTES.md", notes)
    found = _check(tmp_path, [("cat NOTES.md", notes)], workspace_texts=(shared,))
    assert not found.contaminated
    # Without the workspace's files to explain them, the same rules are the skill's text.
    alone = _check(tmp_path / "b", [("cat NOTES.md", notes)])
    assert [f.layer for f in alone.findings] == ["content"]


def test_a_same_name_skill_where_the_agent_discovers_skills(tmp_path: Path) -> None:
    found = _check(tmp_path, [("true", "")], plant="home/.agents/skills/ledger")
    (finding,) = found.findings
    assert finding.layer == "discovery"
    assert finding.path == str((tmp_path / "home/.agents/skills/ledger").resolve())


def test_the_trace_sees_what_the_session_does_not(tmp_path: Path) -> None:
    source = tmp_path / "src/.agents/skills" / NAME
    call = ToolCallTrace(index=0, pid=10, command="python3 tool.py", line=3)
    call.add(TracedAccess(str(tmp_path / "ws/tool.py"), "read", "ok", "openat", 10, 4))
    call.add(TracedAccess(str(source / "SKILL.md"), "read", "ok", "openat", 10, 5))
    trace = ObservedTrace(tool_calls=[call], lines=6)
    found = _check(tmp_path, [("python3 tool.py", "done\n")], trace=trace)
    (finding,) = found.findings
    assert (finding.layer, finding.ref) == ("trace", "trace:5")
    assert "read by `python3 tool.py` (openat)" in finding.detail
    assert found.layers == ["discovery", "session", "trace", "content"]
    assert found.to_json()["contaminated"] is True


@pytest.mark.slow
@pytest.mark.parametrize(
    "agent",
    [
        pytest.param("codex", marks=pytest.mark.codex),
        pytest.param("claude", marks=pytest.mark.claude),
    ],
)
def test_a_real_agent_reading_a_planted_copy_outside_its_workspace_is_contaminated(
    agent: str,
) -> None:
    """A no-skill attempt (the skill removed from its workspace) whose agent reads a copy of the
    skill planted outside: every layer that can see it does (session, trace, content)."""
    runner = {"codex": "codex-exec", "claude": "claude-code"}[agent]
    (codex_or_skip if agent == "codex" else claude_or_skip)()
    source = ROOT / ".agents/skills/db-migrations"
    plant = Path("/tmp") / f"agentic-eval-plant-{uuid.uuid4().hex[:8]}" / "db-migrations"
    shutil.copytree(source, plant)
    adapter = adapter_for_runner(runner)
    recognizer = adapter.trace_recognizer()
    traced = recognizer is not None and Tracer().unavailable() is None
    steps = [{"cmd": f"cat {plant}/SKILL.md"}, {"final": "done"}]
    try:
        with (
            scratch_dir() as scratch,
            serving(behavior("plant", "default currency", steps)) as server,
        ):
            workspace, handle = run_attempt(
                scratch,
                server,
                "routing-add-column",
                runner=runner,
                launch=LaunchPolicy(jail="none", trace=traced),
                before_run=lambda ws: shutil.rmtree(ws / ".agents/skills/db-migrations"),
                timeout_s=120,
                # Claude Code's default refuses tools outside the workspace; the read must happen.
                options={"permission_mode": "bypassPermissions"} if agent == "claude" else None,
            )
            assert handle.fault is None, handle.fault
            assert handle.root_thread_id
            located = get_store(agent, handle.agent_home).locate_thread(handle.root_thread_id)
            assert located.status == "found", located.reason
            session = located.sessions[0].path
            trace = (
                read_trace(handle.trace_path, recognizer, start_cwd=str(workspace.path))
                if traced and recognizer is not None and handle.trace_path
                else None
            )
            copies = skill_copies(
                source,
                workspace=workspace.path,
                workspace_skill_dir=".agents/skills/db-migrations",
                discovery_dirs=adapter.discovery_dirs,
                agent_home=handle.agent_home,
                user_home=scratch / "home",
            )
            found = check_contamination(
                normalize_session(session),
                copies,
                trace=trace,
                texts=tool_text_source(session),
                user_home=scratch / "home",
            )
    finally:
        shutil.rmtree(plant.parent, ignore_errors=True)
    assert found.contaminated, found.to_json()
    layers = {f.layer for f in found.findings}
    assert {"session", "content"} <= layers, found.to_json()
    assert "discovery" not in layers  # the workspace and the homes hold no copy
    if trace is not None:
        assert any(f.path == str(plant / "SKILL.md") for f in found.findings if f.layer == "trace")


def test_probing_where_the_skill_would_be_and_finding_nothing_is_no_contamination(
    tmp_path: Path,
) -> None:
    """The no-skill workspace has no `.agents/skills/ledger`: an agent that tries to read it
    (as any agent told nothing would) saw nothing. The same read of a copy that is there is."""
    missing = f".agents/skills/{NAME}/SKILL.md"
    found = _check(tmp_path, [(f"cat {missing}", "cat: No such file or directory\n")])
    assert not found.contaminated, found.to_json()
    there = _check(
        tmp_path / "b", [(f"cat {missing}", SKILL_TEXT)], plant=f"ws/.agents/skills/{NAME}"
    )
    assert {f.layer for f in there.findings} == {"discovery", "session", "content"}


# ------------------------------------------------------------------ red team, round 8

AGENTS_OWN = "---\nname: ledger\ndescription: mine\n---\nNothing of the real skill.\n"


@pytest.mark.parametrize(
    ("planted_text", "made", "own"),
    [
        # A same-name folder the agent made during the attempt, holding its own text.
        (AGENTS_OWN, True, True),
        # The same holding the skill's bytes: a copy of the skill, whoever put it there.
        (SKILL_TEXT, True, False),
        # A same-name skill that was there before the agent ran: the eval's leak.
        (AGENTS_OWN, False, False),
    ],
)
def test_round_eight_a_same_name_folder_the_agent_made_is_its_own_doing(
    planted_text: str, made: bool, own: bool, tmp_path: Path
) -> None:
    """Red team 8: a failing no-skill attempt ran `mkdir -p .agents/skills/ledger` (and wrote
    a SKILL.md of its own there): the attempt was contaminated, blamed on the eval, and its
    failure left the baseline. Nothing of the skill reached it: the block is now the agent's."""
    place = tmp_path / "ws/.agents/skills/ledger"
    found = _check(
        tmp_path,
        [("mkdir -p .agents/skills/ledger", "")],
        plant="ws/.agents/skills/ledger",
        planted_text=planted_text,
        made_in_run=lambda path: made and path == str(place.resolve()),
    )
    assert found.contaminated and found.agents_own is own
    assert [f.layer for f in found.findings] == ["discovery", "session"]  # the mkdir too


def test_round_eight_a_reach_for_the_hidden_source_is_the_agents_own(tmp_path: Path) -> None:
    """Red team 8: the skill's source path (learnt from the jail's `/proc/1/cmdline`, which lists
    what the jail hides) probed from a no-skill attempt: under the jail it is an empty folder,
    so nothing reached the agent; without the jail the same reach is the eval's leak."""
    source = tmp_path / "src/.agents/skills" / NAME
    jailed = _check(tmp_path / "a", [(f"ls {tmp_path / 'a' / 'src'}", None)], hidden=())
    assert not jailed.contaminated  # the folder above the skill: no copy
    probe = [(f"ls {source}", None)]
    hidden = _check(tmp_path, probe, hidden=(str((tmp_path / "src").resolve()),))
    assert hidden.contaminated and hidden.agents_own
    assert hidden.reason().startswith("the agent reached for the skill")
    assert hidden.to_json()["findings"][0]["reached"] is False  # type: ignore[index]
    plain = _check(tmp_path / "b", [(f"ls {tmp_path / 'b' / 'src/.agents/skills' / NAME}", None)])
    assert plain.contaminated and not plain.agents_own


def test_the_workspace_texts_that_excuse_words_are_those_the_eval_made(tmp_path: Path) -> None:
    """Red team, round 10: the inspector keeps the workspace's texts before the agent starts.
    A file the agent writes later (the skill downloaded into `notes.md`) excuses nothing; a
    fixture the agent edits still excuses what it said before (an honest agent that shows the
    notes quoting the skill's rules, then edits them, saw no skill)."""
    from evaluator.evaluate.inspect import ContaminationInspector
    from evaluator.workspace import AttemptWorkspace

    root = tmp_path / "ws"
    root.mkdir()
    rules = "".join(SKILL_TEXT.splitlines(keepends=True)[5:10])
    (root / "NOTES.md").write_text("# Notes\n" + rules)
    workspace = AttemptWorkspace(case_id="c", attempt=1, path=root)
    ContaminationInspector(tmp_path / "skill", ".agents/skills/ledger").before_agent(workspace)
    (root / "NOTES.md").write_text("# Notes\nrewritten by the agent\n")
    (root / "notes.md").write_text(SKILL_TEXT + "\nThese are my own notes.\n")
    assert workspace.texts_before == {"NOTES.md": "# Notes\n" + rules}


def test_an_empty_file_is_no_copy_of_the_skills_empty_file(tmp_path: Path) -> None:
    """Round 14 (`wos`'s `check-bash-script`, whose `scripts/tests/__init__.py` is empty): the
    no-skill agent's loop over scripts it did not have left `tier1.json` empty, and on `main`
    that was "holds the same bytes as the skill's scripts/tests/__init__.py": contaminated.
    Bytes that are empty or blank identify nothing of the skill; a file with the skill's text
    still does."""
    source, workspace, home, agent_home = _setup(tmp_path)
    (source / "scripts/tests").mkdir(parents=True)
    (source / "scripts/tests/__init__.py").write_text("")
    (source / "scripts/blank.txt").write_text("\n\n")
    (workspace / "tier1.json").write_text("")
    (workspace / "notes.txt").write_text("\n\n")
    copies = _copies(source, workspace, home, agent_home)
    session = _rollout(
        tmp_path / "rollout.jsonl",
        workspace,
        [("cat tier1.json", ""), ("cat notes.txt", "\n\n")],
    )
    found = check_contamination(
        normalize_session(session), copies, texts=tool_text_source(session), user_home=home
    )
    assert not found.contaminated, found.reason()
    (workspace / "copy.md").write_text(SKILL_TEXT)
    session = _rollout(tmp_path / "rollout2.jsonl", workspace, [("cat copy.md", SKILL_TEXT)])
    found = check_contamination(
        normalize_session(session), copies, texts=tool_text_source(session), user_home=home
    )
    assert found.contaminated
