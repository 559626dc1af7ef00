"""The clean-registry check over each adapter's discovery folders, as an attempt launched them."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.adapters import all_adapters, get_adapter
from evaluator.adapters.base import AgentAdapter
from evaluator.evidence.triggers import skill_name
from evaluator.triggers.discovery import check_registry, installed_sources


def put_skill(folder: Path, name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    front = f"name: {name}\n" if name else ""
    (folder / "SKILL.md").write_text(f"---\n{front}description: d\n---\n# body\n")
    return folder


def attempt(tmp_path: Path) -> dict[str, Path]:
    paths = {"workspace": tmp_path / "ws", "agent_home": tmp_path / "agent", "home": tmp_path / "h"}
    for path in paths.values():
        path.mkdir()
    return paths


def install(adapter: AgentAdapter, workspace: Path, *names: str) -> None:
    for name in names:
        put_skill(workspace / adapter.skill_dir / name)


@pytest.mark.parametrize("adapter", all_adapters(), ids=lambda a: a.name)
def test_a_clean_registry_has_no_problem(tmp_path: Path, adapter: AgentAdapter) -> None:
    paths = attempt(tmp_path)
    install(adapter, paths["workspace"], "target", "distractor")
    # The agent's own bundled skills, in a hidden folder of its home, are allowed.
    put_skill(adapter.home_skill_dir(paths["agent_home"]) / ".system" / "helper")
    check = check_registry(
        adapter, **paths, installed={"target", "distractor"}, reported=["target", "distractor"]
    )
    assert check.problems == [] and check.invalid_reason is None
    assert {(s.name, s.scope) for s in check.skills} == {
        ("target", "workspace"),
        ("distractor", "workspace"),
        ("helper", "bundled"),
    }


@pytest.mark.parametrize("adapter", all_adapters(), ids=lambda a: a.name)
def test_a_user_skill_with_the_same_name_shadows_ours(
    tmp_path: Path, adapter: AgentAdapter
) -> None:
    paths = attempt(tmp_path)
    install(adapter, paths["workspace"], "target")
    user_dir = next(d for d in adapter.discovery_dirs if d.startswith("~/"))
    put_skill(paths["home"] / user_dir.removeprefix("~/") / "target")
    check = check_registry(adapter, **paths, installed={"target"})
    reason = check.invalid_reason or ""
    assert "a same-name copy shadows skill 'target'" in reason
    assert "user-home skill 'target'" in reason


def test_host_skill_duplicate_and_missing_skill(tmp_path: Path) -> None:
    adapter = get_adapter("codex")
    paths = attempt(tmp_path)
    install(adapter, paths["workspace"], "target")
    put_skill(adapter.home_skill_dir(paths["agent_home"]) / "leaked")
    # Two folders whose front matter gives the same name: agents list them once each.
    put_skill(paths["workspace"] / adapter.skill_dir / "copy-a", name="other")
    put_skill(paths["workspace"] / adapter.skill_dir / "copy-b", name="other")
    check = check_registry(adapter, **paths, installed={"target", "distractor"})
    assert "agent-home skill 'leaked'" in "\n".join(check.problems)
    assert any(p.startswith("a duplicate of skill 'other'") for p in check.problems)
    assert "skill 'other' in the workspace was not installed by us" in check.problems
    assert "skill 'distractor' is not discoverable in the workspace" in check.problems


def test_the_list_the_agent_reports_must_match(tmp_path: Path) -> None:
    adapter = get_adapter("claude")
    paths = attempt(tmp_path)
    install(adapter, paths["workspace"], "target")
    check = check_registry(adapter, **paths, installed={"target"}, reported=["elsewhere"])
    assert check.problems == [
        "the agent reports skill 'elsewhere', which was not installed",
        "the agent does not report skill 'target'",
    ]


def test_skill_name_prefers_the_front_matter(tmp_path: Path) -> None:
    assert skill_name(put_skill(tmp_path / "folder", name="'declared'")) == "declared"
    assert skill_name(put_skill(tmp_path / "plain")) == "plain"
    assert skill_name(tmp_path / "missing") == "missing"


def test_installed_sources_are_the_workspace_skills_as_launched(tmp_path: Path) -> None:
    adapter = get_adapter("claude")
    paths = attempt(tmp_path)
    install(adapter, paths["workspace"], "target")
    put_skill(adapter.home_skill_dir(paths["agent_home"]) / ".system" / "helper")
    check = check_registry(adapter, **paths, installed={"target"})
    (source,) = installed_sources(check, paths["workspace"])
    assert (source.name, source.path) == ("target", ".claude/skills/target/SKILL.md")
    assert source.text.endswith("# body\n")


@pytest.mark.parametrize("adapter", all_adapters(), ids=lambda a: a.name)
@pytest.mark.parametrize("change", ["add", "remove", "rename", "home"])
def test_round_eight_what_the_agent_did_to_the_folders_is_no_registry_problem(
    tmp_path: Path, adapter: AgentAdapter, change: str
) -> None:
    """Red team 8: a misfiring attempt added a skill folder of its own, removed or renamed
    the target's, or made a skill in its fresh home after it started: the registry, checked
    after the run, was unclean, the attempt invalid (rerun, never counted), and its miss left
    the metrics. Checked as launched (the workspace listed before the run; a home skill made
    in the run skipped), it is clean and counts."""
    from evaluator.triggers.discovery import launched_skills

    paths = attempt(tmp_path)
    install(adapter, paths["workspace"], "target")
    launched = launched_skills(adapter, paths["workspace"])
    skills = paths["workspace"] / adapter.skill_dir
    if change == "add":
        put_skill(skills / "mine")
    elif change == "remove":
        (skills / "target" / "SKILL.md").unlink()
    elif change == "rename":
        # Folder and front matter both: an agent names a skill by one or the other.
        (skills / "target").rename(skills / "other")
        put_skill(skills / "other", name="other")
    else:
        put_skill(adapter.home_skill_dir(paths["agent_home"]) / "mine")
    before = check_registry(adapter, **paths, installed={"target"})
    assert before.problems  # the check after the run, as it was
    made = adapter.home_skill_dir(paths["agent_home"]) / "mine"
    after = check_registry(
        adapter, **paths, installed={"target"}, launched=launched, made_in_run=lambda f: f == made
    )
    assert after.problems == []
    # A home skill there before the agent started (not made in the run) is still a problem.
    if change == "home":
        kept = check_registry(
            adapter, **paths, installed={"target"}, launched=launched, made_in_run=lambda f: False
        )
        assert any("agent-home skill 'mine'" in p for p in kept.problems)


@pytest.mark.parametrize("home", ["workspace", "agent_home"])
def test_round_eleven_b_gemini_skills_in_agents_skills_are_discovered(
    tmp_path: Path, home: str
) -> None:
    """Red team, round 11b (docs/isolation.md): Gemini CLI also lists `.agents/skills`, in
    the workspace and in its home. A same-name skill there is a registry problem; the runner's
    link from `.gemini/skills` to a skill in `.agents/skills` is the same folder, none."""
    adapter = get_adapter("gemini")
    paths = attempt(tmp_path)
    workspace = paths["workspace"]
    real = put_skill(workspace / ".agents/skills/target")
    (workspace / ".gemini/skills").mkdir(parents=True)
    (workspace / ".gemini/skills/target").symlink_to(real)
    clean = check_registry(adapter, **paths, installed={"target"})
    assert clean.problems == [], clean.problems
    assert [s.folder for s in clean.skills] == [workspace / ".gemini/skills/target"]
    put_skill(paths[home] / ".agents/skills/old-target", name="target")
    check = check_registry(adapter, **paths, installed={"target"})
    assert any("a same-name copy shadows skill 'target'" in p for p in check.problems), check
