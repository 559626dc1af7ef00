"""The skill under test linked at the agent's user-level skills path in the attempt's home
(`agents/base.py` `link_user_skill`), offline: the link itself, how the evidence records a path
through it, and how the session layer judges it (docs/isolation.md, "The skill at its user-level
path"). The real CLIs: tests/test_user_level_skill_paths.py."""

from __future__ import annotations

from pathlib import Path

from evaluator.agents.base import link_user_skill, skill_folder
from evaluator.evidence.builder import EvidenceBuilder
from evaluator.isolation import assess_isolation


def _attempt(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A workspace holding the skill, the attempt's home with the skill linked, and the link."""
    workspace = tmp_path / "workspace"
    skill = workspace / ".agents/skills/site-report"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: site-report\ndescription: d\n---\n")
    (skill / "scripts/x.sh").write_text("echo hi\n")
    home = tmp_path / "agent/home"
    home.mkdir(parents=True)
    (home / ".bashrc").write_text("")
    links = link_user_skill(
        home, skill_folder(workspace, Path(".agents/skills/site-report")), ("~/.claude/skills",)
    )
    (link,) = links
    assert links[link] == skill.resolve()
    return workspace, home, link


def _evidence(home: Path, workspace: Path, link: Path, *commands: str):  # type: ignore[no-untyped-def]
    builder = EvidenceBuilder(Path("session.jsonl"), str(home), {str(link): str(link.resolve())})
    builder.evidence.cwd = str(workspace)
    for index, command in enumerate(commands, 1):
        builder.observe_command(index, None, f"call-{index}", "shell", command, None, "tool-call")
    return builder.evidence


def test_the_link_names_the_workspace_skill_and_only_with_a_skill(tmp_path: Path) -> None:
    _, home, link = _attempt(tmp_path)
    assert link == home / ".claude/skills/site-report"
    assert link.is_symlink() and (link / "scripts/x.sh").read_text() == "echo hi\n"
    # A no-skill variant's workspace has none: no link either.
    empty = tmp_path / "empty"
    empty.mkdir()
    other = tmp_path / "other-home"
    other.mkdir()
    assert skill_folder(empty, Path(".agents/skills/site-report/SKILL.md")) is None
    assert link_user_skill(other, None, ("~/.claude/skills",)) == {}
    assert list(other.iterdir()) == []


def test_a_path_through_the_link_is_the_skills_and_recorded_there_too(tmp_path: Path) -> None:
    workspace, home, link = _attempt(tmp_path)
    evidence = _evidence(home, workspace, link, "bash ~/.claude/skills/site-report/scripts/x.sh")
    paths = {r.path for r in evidence.of_kind("file_read_observed") if r.access == "exec"}
    assert str(workspace.resolve() / ".agents/skills/site-report/scripts/x.sh") in paths
    report = assess_isolation(evidence, workspace, skill_links=(link,))
    # No violation (`contained` needs a reliable working directory, which a bare command lacks).
    assert report.violations == [] and report.checked == 2, report.to_json()


def test_other_paths_under_the_home_stay_outside(tmp_path: Path) -> None:
    workspace, home, link = _attempt(tmp_path)
    for command in ("cat ~/.bashrc", "ls ~/.claude/skills", "ls ~/.claude/skills/site-report/.."):
        evidence = _evidence(home, workspace, link, command)
        report = assess_isolation(evidence, workspace, skill_links=(link,))
        assert report.verdict == "violation", command


def test_a_write_of_the_link_itself_is_a_violation(tmp_path: Path) -> None:
    workspace, home, link = _attempt(tmp_path)
    for command in (
        "ln -sfn /etc ~/.claude/skills/site-report",
        "rm ~/.claude/skills/site-report",
        "mv ~/.claude/skills/site-report ~/.claude/skills/old",
    ):
        evidence = _evidence(home, workspace, link, command)
        report = assess_isolation(evidence, workspace, skill_links=(link,))
        details = [v.detail for v in report.violations]
        assert any("link at its user-level path" in d for d in details), (command, details)
    # Through it, into the skill's folder: a write there, as by the workspace path.
    evidence = _evidence(home, workspace, link, "echo x > ~/.claude/skills/site-report/notes.txt")
    assert assess_isolation(evidence, workspace, skill_links=(link,)).violations == []


def test_without_the_links_the_user_level_path_is_outside(tmp_path: Path) -> None:
    """What `main` did with any such path (its home had no link): the same path, not the
    evaluator's link, is outside."""
    workspace, home, link = _attempt(tmp_path)
    link.unlink()
    link.mkdir()
    (link / "x.sh").write_text("echo other\n")
    evidence = _evidence(home, workspace, link, "bash ~/.claude/skills/site-report/x.sh")
    assert assess_isolation(evidence, workspace, skill_links=()).verdict == "violation"
